/* cmd_load.c - `tracekit load`: core load, whole trace, per window, per entity. */
#define _POSIX_C_SOURCE 200809L /* fstat */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit load [options] FILE\n\n"
		"The share of time each core has a process allocated (RUNNING or\n"
		"POLLING): over the whole trace (first to last event), per window, and\n"
		"per entity.  Shares are percentages rounded half up to two places.\n"
		"An input of several time lines (ATF TraceData whose time starts\n"
		"again) is loaded per time line, busy times and spans added; --window\n"
		"refuses it (read one with --trace N).\n"
		"Times are decimal numbers in the unit asked for, with D places: enough\n"
		"for a thousandth of a tick (D = 3 for 1 ns ticks in ns, 6 in us) and at\n"
		"least the decimals of one tick; a time that does not end within D\n"
		"places (a tick of 1/367483 ms) is rounded half up at the last place.\n"
		"--exact writes the exact times instead (N/D where the decimal does not\n"
		"end; docs/analysis.md).\n\n"
		"options:\n"
		"  --window TIME       also per window of TIME (10ms, 250us; a bare number\n"
		"                      is in the trace's ticks, the only form for cycles),\n"
		"                      aligned to multiples of it\n"
		"  --idle PATTERN      a process whose name matches the glob PATTERN (*, ?)\n"
		"                      is idle: its time is the core's idle time (column\n"
		"                      idle, CSV kind idle), not load (repeatable; default:\n"
		"                      IDLE* for the FreeRTOS trace logger's tasks, the name\n"
		"                      after their [c/id] or (id) prefix, else none)\n"
		"  --format table|csv  output format (default table)\n"
		"  --unit UNIT         unit of the times: ps, ns, us, ms, s (default ns;\n"
		"                      a trace timed in cycles, a Tarmac log in clk, gives\n"
		"                      them in cycles and takes no --unit)\n"
		"  --exact             exact times: N/D where there is no finite decimal\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_WINDOW = 256, O_FORMAT, O_UNIT, O_EXACT, O_IDLE };

/* at most this many windows (--window): beyond, the window is refused */
#define LOAD_MAX_WINDOWS 10000000u

/* the descriptor an input names: 0 for "-", N for /dev/fd/N and
 * /proc/self/fd/N; else -1 */
static int input_fd(const char *path)
{
	const char *p = NULL;
	char *end;
	long n;

	if (!strcmp(path, "-"))
		return STDIN_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		p = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		p = path + 14;
	if (!p || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtol(p, &end, 10);
	return *end || errno || n > 65535 ? -1 : (int)n;
}

typedef struct load_ctx {
	tk_load *l;
	const tk_trace *t;
	const tk_timebase *tb;
	tk_unit unit;
	int csv;
	int exact;
	FILE *win;          /* the windows, kept until the cores and widths are known */
	int win_err;
	size_t wstart, wend; /* widths of the windows' start and end */
} load_ctx;

/* a time as written (decimal, or exact with --exact); "?" if it cannot be */
static void fmt_time(const load_ctx *x, uint64_t ticks, char *buf, size_t size)
{
	int n = x->exact ? tk_time_format(ticks, x->tb, x->unit, buf, size)
			 : tk_time_format_decimal(ticks, x->tb, x->unit, buf, size);
	if (n < 0)
		snprintf(buf, size, "?");
}

static size_t time_width(const load_ctx *x, uint64_t ticks)
{
	char buf[200];

	fmt_time(x, ticks, buf, sizeof(buf));
	return strlen(buf);
}

static size_t name_width(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = tk_trace_entity(t, id);
	size_t n = 1;
	const char *s = e ? tk_trace_str(t, e->name, &n) : "?";

	/* as put_name() shows it */
	return cli_text_width(s, n);
}

static void put_time(const load_ctx *x, uint64_t ticks, int width)
{
	char buf[200];

	fmt_time(x, ticks, buf, sizeof(buf));
	printf("%*s", width, buf);
}

static void put_name(const tk_trace *t, uint32_t id, int width)
{
	const tk_entity *e = tk_trace_entity(t, id);
	size_t n = 1;
	const char *s = e ? tk_trace_str(t, e->name, &n) : "?";

	cli_text_pad(stdout, s, n, (size_t)width);
}

static void put_share(uint64_t part, uint64_t whole, int width)
{
	char buf[64];

	tk_share_format(part, whole, buf, sizeof(buf));
	printf("%*s", width, buf);
}

/* a name as a CSV field */
static void put_csv_name(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = tk_trace_entity(t, id);
	size_t n = 1;
	const char *s = e ? tk_trace_str(t, e->name, &n) : "?";

	cli_csv_field(stdout, s, n);
}

/* kind,start,end,core,entity,busy,length,percent (length: end - start,
 * but over several time lines the sum of their spans) */
static void csv_row(const load_ctx *x, const char *kind, uint64_t start,
		    uint64_t end, uint64_t len, uint32_t core, uint32_t ent,
		    uint64_t busy)
{
	printf("%s,", kind);
	put_time(x, start, 0);
	putchar(',');
	put_time(x, end, 0);
	putchar(',');
	if (core != TK_NONE)
		put_csv_name(x->t, core);
	putchar(',');
	if (ent != TK_NONE)
		put_csv_name(x->t, ent);
	putchar(',');
	put_time(x, busy, 0);
	putchar(',');
	put_time(x, len, 0);
	putchar(',');
	if (len) /* an empty cell where there is no share: "-" is no number */
		put_share(busy, len, 0);
	putchar('\n');
}

static int on_window(void *ctx, uint64_t start, uint64_t end,
		     const uint64_t *busy, size_t ncores)
{
	load_ctx *x = ctx;

	/* the table's columns are as wide as their widest value, and every
	 * window has a value for every core: the windows wait in a temporary
	 * file until the last one is known */
	if (x->win_err)
		return TK_OK;
	if (!x->win) {
		x->win = tmpfile();
		if (!x->win) {
			x->win_err = 1;
			return TK_OK;
		}
	}
	if (!x->csv && time_width(x, start) > x->wstart) /* the table's */
		x->wstart = time_width(x, start);
	if (!x->csv && time_width(x, end) > x->wend)
		x->wend = time_width(x, end);
	{
		uint64_t h[3] = { start, end, ncores };
		if (fwrite(h, sizeof(h), 1, x->win) != 1 ||
		    (ncores && fwrite(busy, sizeof(*busy), ncores, x->win) != ncores))
			x->win_err = 1;
	}
	return TK_OK;
}

/* the windows, read back from the temporary file */
static int put_windows(load_ctx *x)
{
	uint64_t h[3], *busy = NULL;
	size_t i, cap = 0;
	int ret = -1;

	if (x->win_err) {
		cli_msg("tracekit: load: cannot keep the windows in a temporary file\n");
		return -1;
	}
	if (!x->win)
		return 0;
	if (x->wstart < 12)
		x->wstart = 12; /* "window start" */
	if (x->wend < 3)
		x->wend = 3;
	if (x->wstart < 14 && x->wend < 14)
		x->wstart = x->wend = 14; /* the layout of short times */
	rewind(x->win);
	if (!x->csv)
		printf("%*s %*s  per core: load %%\n", (int)x->wstart,
		       "window start", (int)x->wend, "end");
	while (fread(h, sizeof(h), 1, x->win) == 1) {
		if (h[2] > cap) {
			uint64_t *nb = realloc(busy, (size_t)h[2] * sizeof(*busy));
			if (!nb)
				goto out;
			busy = nb;
			cap = (size_t)h[2];
		}
		if (h[2] && fread(busy, sizeof(*busy), (size_t)h[2], x->win) != h[2])
			goto out;
		/* a core met later had 0 */
		for (i = 0; x->csv && i < tk_load_core_count(x->l); i++)
			csv_row(x, "window", h[0], h[1], h[1] - h[0], tk_load_core(x->l, i),
				TK_NONE, i < h[2] ? busy[i] : 0);
		if (x->csv)
			continue;
		put_time(x, h[0], (int)x->wstart);
		putchar(' ');
		put_time(x, h[1], (int)x->wend);
		putchar(' ');
		for (i = 0; i < tk_load_core_count(x->l); i++) {
			putchar(' ');
			put_name(x->t, tk_load_core(x->l, i), 0);
			putchar(' ');
			put_share(i < h[2] ? busy[i] : 0, h[1] - h[0], 6);
		}
		putchar('\n');
	}
	ret = ferror(x->win) ? -1 : 0;
	if (!x->csv)
		putchar('\n');
out:
	if (ret < 0)
		cli_msg("tracekit: load: cannot read back the windows\n");
	free(busy);
	return ret;
}

static int parse_window(const char *s, const tk_timebase *tb, uint64_t *out)
{
	tk_timebase from = { TK_UNIT_NS, 1, 1 };
	uint64_t v;
	tk_unit u;
	char *end;

	if (tk_duration_parse(s, -1, &v, &u) == TK_OK) {
		from.unit = u;
		if (tk_time_convert(v, &from, tb, TK_ROUND_EXACT, out) < 0)
			return -1;
	} else {
		unsigned long long n;
		errno = 0;
		n = strtoull(s, &end, 10);
		if (*s < '0' || *s > '9' || *end || errno == ERANGE)
			return -1; /* beyond 2^64 - 1 ticks too */
		*out = (uint64_t)n;
	}
	return *out ? 0 : -1;
}

int cmd_load(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "window", required_argument, NULL, O_WINDOW },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "unit", required_argument, NULL, O_UNIT },
		{ "exact", no_argument, NULL, O_EXACT },
		{ "idle", required_argument, NULL, O_IDLE },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_args args = { { NULL }, 0 };
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	const char *path, *span_path, *outfmt = "table", *unit_s = NULL, *window_s = NULL;
	char spool_path[32];
	int spool_fd = -1, in_fd;
	tk_reader_opts aro;
	struct stat st;
	load_ctx x;
	tk_reader *r = NULL;
	tk_load *l = NULL;
	const tk_event *ev;
	tk_error err;
	uint64_t window = 0, first = 0, last = 0, length = 0, nevents = 0;
	tk_unit wunit;
	size_t i, j, n, q;
	const uint32_t *ecores;
	const uint64_t *ebusy;
	int c, rc, lrc, ret = EXIT_BAD;
	const char **idle = NULL;
	size_t nidle = 0;
	uint64_t idle_all = 0;

	memset(&x, 0, sizeof(x));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		case O_WINDOW: window_s = optarg; break;
		case O_FORMAT: outfmt = optarg; break;
		case O_UNIT: unit_s = optarg; break;
		case O_EXACT: x.exact = 1; break;
		case O_IDLE:
			if (cli_filter_add(&idle, &nidle, optarg) < 0)
				goto nomem;
			break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "load", c, optarg) < 0)
				return EXIT_BAD;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (strcmp(outfmt, "table") && strcmp(outfmt, "csv")) {
		cli_usage_error("load", "unknown --format '%s' (table or csv)", outfmt);
		return EXIT_BAD;
	}
	x.csv = !strcmp(outfmt, "csv");
	if (tk_unit_parse(unit_s ? unit_s : "ns", unit_s ? strlen(unit_s) : 2,
			  0, &x.unit) < 0) {
		cli_usage_error("load", "unknown --unit '%s' (ps, ns, us, ms or s)", unit_s);
		return EXIT_BAD;
	}
	if (args.n != 1) {
		cli_usage_error("load", "expected one FILE");
		return EXIT_BAD;
	}
	path = span_path = args.v[0];
	/* windows of standard input or /dev/fd/N on a pipe: copied first,
	 * so that a window far too short is refused as early as in a file */
	tk_error_clear(&err);
	if (window_s && (in_fd = input_fd(path)) >= 0 &&
	    fstat(in_fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (tk_fd_spool(in_fd, strcmp(path, "-") ? path : NULL, &spool_fd,
				&err) < 0) {
			cli_error(&err);
			goto out;
		}
		snprintf(spool_path, sizeof(spool_path), "/dev/fd/%d", spool_fd);
		span_path = spool_path;
	}
	if (cli_open(&r, path, &ro) < 0)
		goto out;
	x.t = tk_reader_trace(r);
	x.tb = tk_trace_timebase(x.t);
	/* ticks that count cycles are given as cycles, in no other unit */
	if (cli_cycle_unit_check("load", x.t, unit_s) < 0)
		goto out;
	if (tk_trace_cycle_unit(x.t))
		x.unit = x.tb->unit;
	if (window_s && tk_trace_cycle_unit(x.t) &&
	    tk_duration_parse(window_s, -1, &window, &wunit) == TK_OK) {
		cli_msg("tracekit: bad --window '%s': the trace's times are %s cycles, which have no length (a bare number of them)\n",
			window_s, tk_trace_cycle_unit(x.t));
		goto out;
	}
	if (window_s && parse_window(window_s, x.tb, &window) < 0) {
		cli_msg("tracekit: bad --window '%s' (a positive whole number of the trace's ticks, such as 10ms)\n",
			window_s);
		goto out;
	}
	if (tk_load_new(&l, x.t, window, on_window, &x, NULL) < 0 ||
	    (nidle && tk_load_set_idle(l, idle, nidle) < 0))
		goto nomem;
	x.l = l;
	/* a window far too short for the trace: refused before its windows
	 * are made, not written out for hours (1ps over seconds of trace) */
	cli_reader_opts(&aro, &ro);
	if (window && tk_load_set_limit(l, LOAD_MAX_WINDOWS, span_path, &aro, NULL) < 0)
		goto nomem;
	cli_idle_note(x.t, nidle, &ro);
	tk_error_clear(&err);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		nevents++;
		if ((lrc = tk_load_event(l, ev, &err)) < 0)
			goto load_failed;
	}
	if (rc < 0) {
		fflush(stdout);
		cli_error(&err);
		goto out;
	}
	if ((lrc = tk_load_finish(l, &err)) < 0)
		goto load_failed;
	tk_load_span(l, &first, &last);
	length = tk_load_length(l); /* over several time lines, their sum */
	n = tk_load_core_count(l);
	for (i = 0; i < n; i++)
		idle_all |= tk_load_core_idle(l, i);
	if (tk_load_conflicts(l) && !ro.quiet)
		cli_msg("tracekit: warning: %llu process event%s named a core other than the one %s process ran on: it runs on one core at a time, its run there ended\n",
			(unsigned long long)tk_load_conflicts(l),
			tk_load_conflicts(l) == 1 ? "" : "s",
			tk_load_conflicts(l) == 1 ? "its" : "their");
	if (tk_load_takeovers(l) && !ro.quiet)
		cli_msg("tracekit: warning: %llu process event%s allocated a core another process held (no preempt of it first): its run there ended\n",
			(unsigned long long)tk_load_takeovers(l),
			tk_load_takeovers(l) == 1 ? "" : "s");
	if (x.csv) {
		printf("kind,start,end,core,entity,busy,length,percent\n");
		if (put_windows(&x) < 0)
			goto out;
		for (i = 0; i < n; i++)
			csv_row(&x, "core", first, last, length, tk_load_core(l, i), TK_NONE,
				tk_load_core_busy(l, i));
		for (i = 0; idle_all && i < n; i++)
			csv_row(&x, "idle", first, last, length, tk_load_core(l, i), TK_NONE,
				tk_load_core_idle(l, i));
		for (j = 0; j < tk_trace_entity_count(x.t); j++) {
			size_t k = tk_load_entity_cores(l, (uint32_t)j, &ecores, &ebusy);
			for (q = 0; q < k; q++)
				csv_row(&x, "entity", first, last, length, tk_load_core(l, ecores[q]),
					(uint32_t)j, ebusy[q]);
		}
	} else {
		size_t wname = 20, wcore = 12, wbusy = 16, wcname = 20;
		if (put_windows(&x) < 0)
			goto out;
		for (i = 0; i < n; i++) {
			size_t k = name_width(x.t, tk_load_core(l, i));
			if (k > wcname)
				wcname = k;
			if (k > wcore)
				wcore = k;
			k = time_width(&x, tk_load_core_busy(l, i));
			if (k > wbusy)
				wbusy = k;
		}
		for (j = 0; j < tk_trace_entity_count(x.t); j++)
			for (q = 0; q < tk_load_entity_cores(l, (uint32_t)j, &ecores, &ebusy); q++) {
				uint64_t b = ebusy[q];
				size_t k = name_width(x.t, (uint32_t)j);
				if (k > wname)
					wname = k;
				k = time_width(&x, b);
				if (k > wbusy)
					wbusy = k;
			}
		if (!nevents) {
			/* no event: no span (as info says), not 0 .. 0 */
			printf("span: - (no events)\n\n");
		} else if (tk_load_time_lines(l) > 1) {
			printf("span: %lu time lines, ", (unsigned long)tk_load_time_lines(l));
			put_time(&x, length, 0);
			printf(" %s in all (each from its first event to its last)\n\n",
			       cli_unit_name(x.t, x.unit));
		} else {
			printf("span: ");
			put_time(&x, first, 0);
			printf(" .. ");
			put_time(&x, last, 0);
			printf(" %s (", cli_unit_name(x.t, x.unit));
			put_time(&x, last - first, 0);
			printf(" %s)\n\n", cli_unit_name(x.t, x.unit));
		}
		printf("%-*s %*s %8s", (int)wcname, "core", (int)wbusy, "busy", "load %");
		if (idle_all)
			printf(" %*s %8s", (int)wbusy, "idle", "idle %");
		putchar('\n');
		for (i = 0; i < n; i++) {
			put_name(x.t, tk_load_core(l, i), (int)wcname);
			putchar(' ');
			put_time(&x, tk_load_core_busy(l, i), (int)wbusy);
			putchar(' ');
			put_share(tk_load_core_busy(l, i), length, 8);
			if (idle_all) {
				putchar(' ');
				put_time(&x, tk_load_core_idle(l, i), (int)wbusy);
				putchar(' ');
				put_share(tk_load_core_idle(l, i), length, 8);
			}
			putchar('\n');
		}
		if (!n)
			printf("(no process ran on a known core)\n");
		else
			printf("\n%-*s %-*s %*s %8s\n", (int)wname, "entity",
			       (int)wcore, "core", (int)wbusy, "busy", "share %");
		for (j = 0; j < tk_trace_entity_count(x.t); j++)
			for (q = 0; q < tk_load_entity_cores(l, (uint32_t)j, &ecores, &ebusy); q++) {
				uint64_t b = ebusy[q];
				put_name(x.t, (uint32_t)j, (int)wname);
				putchar(' ');
				put_name(x.t, tk_load_core(l, ecores[q]), (int)wcore);
				putchar(' ');
				put_time(&x, b, (int)wbusy);
				putchar(' ');
				put_share(b, length, 8);
				putchar('\n');
			}
	}
	cli_warning_summary(r, &ro);
	ret = EXIT_OK;
	goto out;
load_failed:
	fflush(stdout);
	if (lrc == TK_E_RANGE) /* tk_load_set_limit() */
		cli_msg("tracekit: load: --window %s makes more than %u windows of this trace: give a longer window\n",
			window_s, LOAD_MAX_WINDOWS);
	else {
		/* windows over a second time line (tk_load_length()): at its
		 * first event, in the input, named as the reader names it
		 * (<stdin> for "-") */
		if (lrc == TK_E_UNSUPPORTED && !err.input[0])
			snprintf(err.input, sizeof(err.input), "%s",
				 cli_input_name(path));
		cli_error(&err);
	}
	goto out;
nomem:
	cli_msg("tracekit: out of memory\n");
out:
	if (x.win)
		fclose(x.win);
	free(idle);
	tk_load_free(l);
	tk_reader_close(r);
	if (spool_fd >= 0)
		close(spool_fd);
	return ret;
}
