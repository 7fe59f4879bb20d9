/* cmd_stats.c - `tracekit stats`: timing metrics per task, ISR, runnable. */
#define _GNU_SOURCE /* getc_unlocked, fwrite_unlocked */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit stats [options] FILE\n\n"
		"Timing metrics (ATF appendix B) per task (T), ISR (I) and runnable (R),\n"
		"from the complete instances, in one pass:\n"
		"  IPT first start - activate     CET time RUNNING      GET terminate - first start\n"
		"  RT  terminate - activate       DT  start - previous start\n"
		"  PER activate - previous activate\n"
		"  ST  next activate (tasks) or next start (ISRs, runnables) - terminate\n"
		"  JIT 1 - DT/PER (unit 1)        PRE preempt/suspend -> resume\n"
		"  NPRE preemptions per instance  WAIT wait -> release  POLL poll -> run/park\n"
		"Values are decimal numbers in the unit asked for, with D places: enough\n"
		"for a thousandth of a tick (D = 3 for 1 ns ticks in ns, 6 in us) and at\n"
		"least the decimals of one tick.  A value that does not end within D\n"
		"places (an average such as 64001/3, or any time of a tick like\n"
		"1/367483 ms) is rounded half up at the last place; --exact writes the\n"
		"exact values instead (N/D where the decimal does not end).  JIT is\n"
		"rounded half away from zero to 6 places (docs/analysis.md).\n\n"
		"--chain NAME=S0,S1,...,Sn adds the rows of a cause-effect chain (entity\n"
		"NAME, type CHAIN) from the SIG read/write events, a link being a process\n"
		"instance that reads S(i) and then writes S(i+1):\n"
		"  REACTION  first write of Sn that leads back to a write of S0 - that write\n"
		"            (the max's instance and time: the cause's)\n"
		"  AGE       write of Sn - the write of S0 it leads back to (the effect's)\n"
		"  LOST      count of the writes of S0 that no write of Sn leads back to\n\n"
		"--percentiles 50,90,99,99.9 adds the columns p50, p90, p99, p99.9 (after\n"
		"the others) to every row whose metric is a time: exact, nearest rank (the\n"
		"smallest value with at least p %% of the row's values at or below it).\n\n"
		"options:\n"
		"  --format table|csv|json  output format (default table)\n"
		"  --chain NAME=S0,...,Sn  a cause-effect chain of n >= 1 links (repeatable)\n"
		"  --percentiles P,...  percentiles of the times, 0 < P <= 100, at most 6\n"
		"                      decimals, at most 64 of them, none twice\n"
		"  --entity NAME       only this entity or chain (repeatable)\n"
		"  --type TYPE         only this type: T, I, R, CHAIN (repeatable)\n"
		"  --unit UNIT         unit of the times: ps, ns, us, ms, s (default ns;\n"
		"                      a trace timed in cycles, a Tarmac log in clk, gives\n"
		"                      them in cycles and takes no --unit)\n"
		"  --exact             exact values: N/D where there is no finite decimal\n"
		"                      (a string in JSON)\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
	cli_view_help(fp, "stats");
}

enum { O_FORMAT = 256, O_UNIT, O_EXACT, O_CHAIN, O_PERCENTILES };

enum { OUT_TABLE, OUT_CSV, OUT_JSON };

/* one output row, formatted */
typedef struct orow {
	const char *name;
	size_t nlen;
	const char *type, *metric, *unit;
	char count[24], min[96], avg[160], max[96], inst[24], at[64];
	char pct[CLI_MAX_PCT][96];
} orow;

static void put_num(FILE *fp, const char *v)
{
	/* JSON numbers where the value is one, strings for fractions (--exact) */
	if (!strcmp(v, "?") || !v[0])
		fputs("null", fp);
	else if (strchr(v, '/'))
		fprintf(fp, "\"%s\"", v);
	else
		fputs(v, fp);
}

/* a string ended by NUL from fp into buf (size bytes at most) */
static int read_str(FILE *fp, char *buf, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(fp)) != EOF && c != 0)
		if (n + 1 < size)
			buf[n++] = (char)c;
	buf[n] = '\0';
	return c == EOF ? -1 : 0;
}

/* s (n bytes) in a column w wide, left- or right-aligned, then two
 * blanks unless last: the table's cells without printf's parsing (a
 * table of 100,000 tasks has 900,000 lines) */
static void put_cell(const char *s, size_t n, size_t w, int right, int last)
{
	static const char blanks[64] = "                                                               ";
	size_t pad = w > n ? w - n : 0;

	if (!right)
		fwrite_unlocked(s, 1, n, stdout);
	while (pad && (right || !last)) {
		size_t k = pad < sizeof(blanks) ? pad : sizeof(blanks);
		fwrite_unlocked(blanks, 1, k, stdout);
		pad -= k;
	}
	if (right)
		fwrite_unlocked(s, 1, n, stdout);
	if (!last)
		fwrite_unlocked("  ", 1, 2, stdout);
}

int cli_stats_chain(tk_stats *st, const char *cmd, const char *arg)
{
	const char *eq = strchr(arg, '='), *p;
	char *copy = NULL, *q;
	const char **sig = NULL;
	size_t n = 1, i;
	int rc = -1;

	if (!eq || eq == arg) {
		cli_usage_error(cmd, "--chain '%s': expected NAME=S0,S1,...,Sn", arg);
		return -1;
	}
	for (p = eq + 1; *p; p++)
		n += *p == ',';
	copy = strdup(arg);
	sig = calloc(n, sizeof(*sig));
	if (!copy || !sig) {
		cli_msg("tracekit: out of memory\n");
		goto out;
	}
	copy[eq - arg] = '\0';
	q = copy + (eq - arg) + 1;
	for (i = 0; i < n; i++) {
		sig[i] = q;
		q += strcspn(q, ",");
		if (*q)
			*q++ = '\0';
		if (!sig[i][0]) {
			cli_usage_error(cmd, "--chain '%s': an empty signal name", arg);
			goto out;
		}
	}
	switch (tk_stats_add_chain(st, copy, sig, n)) {
	case TK_OK:
		rc = 0;
		break;
	case TK_E_NOMEM:
		cli_msg("tracekit: out of memory\n");
		break;
	default:
		cli_usage_error(cmd, "--chain '%s': needs two signals or more, all different, "
				"and a name not given before", arg);
		break;
	}
out:
	free(sig);
	free(copy);
	return rc;
}

int cli_stats_percentiles(const char *cmd, const char *arg, uint32_t *p,
			  char (*names)[16])
{
	const char *s = arg;
	int n = 0;

	for (;;) {
		uint64_t ip = 0, fr = 0;
		int id = 0, fd = 0, k;
		char *o;
		while (*s >= '0' && *s <= '9' && id < 4)
			ip = ip * 10 + (uint64_t)(*s++ - '0'), id++;
		if (*s == '.') {
			s++;
			while (*s >= '0' && *s <= '9' && fd < 6)
				fr = fr * 10 + (uint64_t)(*s++ - '0'), fd++;
			if (!fd)
				id = 0;
		}
		for (k = fd; k < 6; k++)
			fr *= 10;
		if (!id || (*s && *s != ',') || n == CLI_MAX_PCT ||
		    ip * 1000000 + fr == 0 || ip * 1000000 + fr > 100000000) {
			cli_usage_error(cmd, "--percentiles '%s': expected numbers above 0 and "
					"at most 100, with at most 6 decimals, separated by commas "
					"(at most %d)", arg, CLI_MAX_PCT);
			return -1;
		}
		p[n] = (uint32_t)(ip * 1000000 + fr);
		for (k = 0; k < n; k++)
			if (p[k] == p[n]) {
				/* two columns of one name (two "p50" keys in
				 * a JSON object) */
				cli_usage_error(cmd, "--percentiles '%s': %s is given twice",
						arg, names[k] + 1);
				return -1;
			}
		o = names[n];
		o += sprintf(o, "p%u", (unsigned)ip);
		if (fr) {
			for (k = 6; fr % 10 == 0; k--)
				fr /= 10;
			sprintf(o, ".%0*u", k, (unsigned)fr);
		}
		n++;
		if (!*s)
			return n;
		s++;
	}
}

/* what format_row needs */
typedef struct fmtctx {
	const tk_stats *st;
	const tk_trace *t;
	tk_unit unit;
	int exact;
	const cli_filter *f;      /* --entity, --type */
	size_t npct;              /* --percentiles */
} fmtctx;

/* row i of the stats into *o; 0 when the filters leave it out.  what:
 * ROW_ALL, ROW_TABLE (not the worst instance and its time), ROW_NAMES (the
 * names only, no value) */
enum { ROW_ALL, ROW_TABLE, ROW_NAMES };

static int format_row(const fmtctx *x, size_t i, int what, orow *o)
{
	int (*fmt)(const tk_stats *, size_t, tk_stat_field, tk_unit, char *,
		   size_t) = x->exact ? tk_stats_format_exact : tk_stats_format;
	int (*fmt_time)(uint64_t, const tk_timebase *, tk_unit, char *, size_t) =
		x->exact ? tk_time_format : tk_time_format_decimal;
	const tk_stat *s = tk_stats_get(x->st, i);
	const char *ty = s->chain ? "CHAIN" : tk_etype_name(s->type);
	tk_unit unit = x->unit;

	o->name = tk_stats_row_name(x->st, i, &o->nlen);
	if (!o->name) {
		o->name = "";
		o->nlen = 0;
	}
	if (!cli_filter_names(x->f, o->name, o->nlen, ty))
		return 0;
	o->type = ty;
	o->metric = tk_metric_name(s->metric);
	o->unit = tk_metric_is_time(s->metric) ? cli_unit_name(x->t, unit) : "1";
	if (what == ROW_NAMES)
		return 1;
	snprintf(o->count, sizeof(o->count), "%llu", (unsigned long long)s->count);
	if (fmt(x->st, i, TK_STAT_MIN, unit, o->min, sizeof(o->min)) < 0)
		strcpy(o->min, "?");
	if (fmt(x->st, i, TK_STAT_AVG, unit, o->avg, sizeof(o->avg)) < 0)
		strcpy(o->avg, "?");
	if (fmt(x->st, i, TK_STAT_MAX, unit, o->max, sizeof(o->max)) < 0)
		strcpy(o->max, "?");
	for (size_t j = 0; j < x->npct; j++)
		if (fmt(x->st, i, (tk_stat_field)(TK_STAT_PCT0 + j), unit, o->pct[j],
			sizeof(o->pct[j])) < 0)
			strcpy(o->pct[j], "?");
	if (what == ROW_TABLE)
		return 1;
	if (s->max_inst == TK_INST_NONE || !o->max[0])
		strcpy(o->inst, "");
	else
		snprintf(o->inst, sizeof(o->inst), "%lld", (long long)s->max_inst);
	if (!o->max[0])
		strcpy(o->at, ""); /* no value (LOST, a chain's empty row) */
	else if (fmt_time(s->max_time, tk_trace_timebase(x->t), unit, o->at,
			  sizeof(o->at)) < 0)
		strcpy(o->at, "?");
	return 1;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		CLI_FILTER_NAME_LONGOPTS,
		{ "unit", required_argument, NULL, O_UNIT },
		{ "exact", no_argument, NULL, O_EXACT },
		{ "chain", required_argument, NULL, O_CHAIN },
		{ "percentiles", required_argument, NULL, O_PERCENTILES },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	tk_input *in = NULL;
	const char *path, *outfmt = "table", *unit_s = NULL;
	cli_filter f;
	size_t i, nrows = 0;
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	orow o;
	fmtctx fx;
	FILE *tmp = NULL;
	const tk_event *ev;
	const tk_trace *t;
	tk_error err;
	tk_unit unit;
	const char **chains = NULL, **nchains;
	size_t nchain = 0, j, npct = 0;
	uint32_t pct[CLI_MAX_PCT];
	char pname[CLI_MAX_PCT][16];
	size_t pw[CLI_MAX_PCT];
	int c, rc, out, exact = 0, ret = EXIT_BAD;
	size_t w[8] = { 6, 4, 6, 5, 3, 3, 3, 4 };

	memset(&f, 0, sizeof(f));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		case O_FORMAT: outfmt = optarg; break;
		CLI_FILTER_CASES:
			if (cli_filter_opt(&f, c, optarg) < 0)
				goto out;
			break;
		case O_UNIT:
			unit_s = optarg;
			break;
		case O_EXACT:
			exact = 1;
			break;
		case O_CHAIN:
			nchains = realloc(chains, (nchain + 1) * sizeof(*chains));
			if (!nchains)
				goto nomem;
			chains = nchains;
			chains[nchain++] = optarg;
			break;
		case O_PERCENTILES:
			if ((rc = cli_stats_percentiles("stats", optarg, pct, pname)) < 0)
				goto out;
			npct = (size_t)rc;
			break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "stats", c, optarg) < 0)
				goto out;
			break;
		case CLI_O_VIEW: break;   /* cli_getopt_other() */
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	if (tk_unit_parse(unit_s ? unit_s : "ns", unit_s ? strlen(unit_s) : 2,
			  0, &unit) < 0) {
		cli_usage_error("stats", "unknown --unit '%s' (ps, ns, us, ms or s)", unit_s);
		goto out;
	}
	for (i = 0; i < f.ntypes; i++)
		if (strcmp(f.types[i], "T") && strcmp(f.types[i], "I") && strcmp(f.types[i], "R") &&
		    strcmp(f.types[i], "CHAIN")) {
			cli_usage_error("stats", "unknown --type '%s' (T, I or R: the types with instances, or CHAIN)", f.types[i]);
			goto out;
		}
	if (args.n != 1) {
		cli_usage_error("stats", "expected one FILE");
		goto out;
	}
	path = args.v[0];
	/* FILE opened once: its format may have a view of its own (cli.h) */
	if (cli_input(&in, path, &ro) < 0 ||
	    (ret = cli_view_run(argc, argv, &args, &in, NULL, NULL)) >= 0)
		goto out;
	ret = EXIT_BAD;
	path = cli_input_name(path);
	/* analyzer-ok core.NonNullParamChecker: getopt sets optarg for --format, which takes an argument (the unit_s test for --unit given leads it to assume otherwise) */
	out = !strcmp(outfmt, "table") ? OUT_TABLE : !strcmp(outfmt, "csv") ? OUT_CSV
	      : !strcmp(outfmt, "json") ? OUT_JSON : -1;
	if (out < 0) {
		cli_usage_error("stats", "unknown --format '%s' (table, csv or json)", outfmt);
		goto out;
	}
	c = cli_open_input(&r, in, &ro);
	in = NULL;
	if (c < 0)
		goto out;
	t = tk_reader_trace(r);
	/* ticks that count cycles are given as cycles, in no other unit */
	if (cli_cycle_unit_check("stats", t, unit_s) < 0)
		goto out;
	if (tk_trace_cycle_unit(t))
		unit = tk_trace_timebase(t)->unit;
	if (tk_stats_new(&st, t, NULL) < 0)
		goto nomem;
	for (i = 0; i < nchain; i++)
		if (cli_stats_chain(st, "stats", chains[i]) < 0)
			goto out;
	if (npct && tk_stats_set_percentiles(st, pct, npct) < 0)
		goto nomem;
	tk_error_clear(&err);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		if ((rc = tk_stats_event(st, ev, &err)) < 0)
			break;
	if (rc < 0 || tk_stats_finish(st, &err) < 0) {
		cli_error(&err);
		goto out;
	}

	fx.st = st;
	fx.t = t;
	fx.unit = unit;
	fx.exact = exact;
	fx.f = &f;
	fx.npct = npct;
	for (j = 0; j < npct; j++)
		pw[j] = strlen(pname[j]);
	/* rows are formatted one at a time (twice for the table: widths, then
	 * the lines), so memory does not grow with the number of rows */
	if (out == OUT_CSV) {
		printf("entity,type,metric,count,min,avg,max,unit,max_instance,max_at");
		for (j = 0; j < npct; j++)
			printf(",%s", pname[j]);
		putchar('\n');
		for (i = 0; i < tk_stats_count(st); i++) {
			if (!format_row(&fx, i, ROW_ALL, &o))
				continue;
			cli_csv_field(stdout, o.name, o.nlen);
			printf(",%s,%s,%s,%s,%s,%s,%s,%s,%s", o.type, o.metric,
			       o.count, o.min, o.avg, o.max, o.unit, o.inst, o.at);
			for (j = 0; j < npct; j++)
				printf(",%s", o.pct[j]);
			putchar('\n');
		}
	} else if (out == OUT_JSON) {
		printf("{\n  \"file\": ");
		cli_json_str(stdout, path, strlen(path));
		printf(",\n  \"unit\": \"%s\",\n  \"stats\": [", cli_unit_name(t, unit));
		for (i = 0; i < tk_stats_count(st); i++) {
			if (!format_row(&fx, i, ROW_ALL, &o))
				continue;
			printf("%s\n    {\"entity\": ", nrows++ ? "," : "");
			cli_json_str(stdout, o.name, o.nlen);
			printf(", \"type\": \"%s\", \"metric\": \"%s\", \"count\": %s, \"min\": ",
			       o.type, o.metric, o.count);
			put_num(stdout, o.min);
			printf(", \"avg\": ");
			put_num(stdout, o.avg);
			printf(", \"max\": ");
			put_num(stdout, o.max);
			printf(", \"unit\": \"%s\", \"max_instance\": %s, \"max_at\": ",
			       o.unit, o.inst[0] ? o.inst : "null");
			put_num(stdout, o.at);
			for (j = 0; j < npct; j++) {
				printf(", \"%s\": ", pname[j]);
				put_num(stdout, o.pct[j]);
			}
			printf("}");
		}
		printf("%s]\n}\n", nrows ? "\n  " : "");
	} else {
		/* the values go to a temporary file while the widths are
		 * found, then come back for the lines: formatted once, and
		 * memory flat */
		tmp = tmpfile();
		if (!tmp)
			goto nomem;
		for (i = 0; i < tk_stats_count(st); i++) {
			if (!format_row(&fx, i, ROW_TABLE, &o))
				continue;
			if (!o.min[0])
				strcpy(o.min, "-"); /* no value */
			if (!o.avg[0])
				strcpy(o.avg, "-");
			if (!o.max[0])
				strcpy(o.max, "-");
			const size_t len[8] = { cli_text_width(o.name, o.nlen), strlen(o.type), strlen(o.metric),
						strlen(o.count), strlen(o.min),
						strlen(o.avg), strlen(o.max),
						strlen(o.unit) };
			if (fwrite_unlocked(o.count, 1, len[3] + 1, tmp) != len[3] + 1 ||
			    fwrite_unlocked(o.min, 1, len[4] + 1, tmp) != len[4] + 1 ||
			    fwrite_unlocked(o.avg, 1, len[5] + 1, tmp) != len[5] + 1 ||
			    fwrite_unlocked(o.max, 1, len[6] + 1, tmp) != len[6] + 1) {
				cli_msg("tracekit: cannot write a temporary file\n");
				goto out;
			}
			for (j = 0; j < npct; j++) {
				size_t l;
				if (!o.pct[j][0])
					strcpy(o.pct[j], "-");
				l = strlen(o.pct[j]);
				if (fwrite_unlocked(o.pct[j], 1, l + 1, tmp) != l + 1) {
					cli_msg("tracekit: cannot write a temporary file\n");
					goto out;
				}
				if (l > pw[j])
					pw[j] = l;
			}
			for (c = 0; c < 8; c++)
				if (len[c] > w[c])
					w[c] = len[c];
			nrows++;
		}
		printf("%-*s  %-*s  %-*s  %*s  %*s  %*s  %*s  %-*s",
		       (int)w[0], "entity", (int)w[1], "type", (int)w[2], "metric",
		       (int)w[3], "count", (int)w[4], "min", (int)w[5], "avg",
		       (int)w[6], "max", npct ? (int)w[7] : 0, "unit");
		for (j = 0; j < npct; j++)
			printf("  %*s", (int)pw[j], pname[j]);
		putchar('\n');
		rewind(tmp);
		for (i = 0; i < tk_stats_count(st); i++) {
			if (!format_row(&fx, i, ROW_NAMES, &o))
				continue;
			if (read_str(tmp, o.count, sizeof(o.count)) < 0 ||
			    read_str(tmp, o.min, sizeof(o.min)) < 0 ||
			    read_str(tmp, o.avg, sizeof(o.avg)) < 0 ||
			    read_str(tmp, o.max, sizeof(o.max)) < 0) {
				cli_msg("tracekit: cannot read back a temporary file\n");
				goto out;
			}
			for (j = 0; j < npct; j++)
				if (read_str(tmp, o.pct[j], sizeof(o.pct[j])) < 0) {
					cli_msg("tracekit: cannot read back a temporary file\n");
					goto out;
				}
			/* the name by the rule of text output */
			cli_text_pad(stdout, o.name, o.nlen, w[0]);
			fwrite_unlocked("  ", 1, 2, stdout);
			put_cell(o.type, strlen(o.type), w[1], 0, 0);
			put_cell(o.metric, strlen(o.metric), w[2], 0, 0);
			put_cell(o.count, strlen(o.count), w[3], 1, 0);
			put_cell(o.min, strlen(o.min), w[4], 1, 0);
			put_cell(o.avg, strlen(o.avg), w[5], 1, 0);
			put_cell(o.max, strlen(o.max), w[6], 1, 0);
			put_cell(o.unit, strlen(o.unit), w[7], 0, !npct);
			for (j = 0; j < npct; j++)
				put_cell(o.pct[j], strlen(o.pct[j]), pw[j], 1, j + 1 == npct);
			putchar_unlocked('\n');
		}
		if (!nrows)
			printf("(no complete instances of tasks, ISRs or runnables)\n");
	}
	cli_filter_unmatched(&f, r, chains, nchain, &ro);
	cli_warning_summary(r, &ro);
	ret = EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: out of memory\n");
out:
	tk_input_close(in);
	if (tmp)
		fclose(tmp);
	cli_filter_free(&f);
	free(chains);
	tk_stats_free(st);
	tk_reader_close(r);
	return ret;
}
