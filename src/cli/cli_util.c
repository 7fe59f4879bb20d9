/* cli_util.c - error printing, opening readers, filters, the copy loop. */
#define _XOPEN_SOURCE 700 /* newlocale, uselocale, wcwidth */
#include "cli.h"

#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <wchar.h>

/*
 * The library's messages speak of the API, never of flags (a library user
 * has none): strict mode, tk_reader_opts.format, ...  The command says the
 * same in the words of its flags: each phrase of the library (left) is
 * written as the command's (right).  tests/docs/check_messages.py holds
 * that each left phrase is one the library says.
 */
static const struct cli_words {
	const char *lib, *cli;
} cli_words[] = {
	{ "(set tk_reader_opts.format; tk_format_get() lists the formats)",
	  "(use --from FORMAT; see 'tracekit formats')" },
	{ "(tk_format_get() lists the formats)", "(see 'tracekit formats')" },
	{ "(set tk_writer_opts.format)", "(use --to FORMAT)" },
	{ "tk_reader_opts.force_format reads it", "--force-format reads it" },
	{ "outside strict mode", "without --strict" },
	{ "strict mode refuses", "--strict refuses" },
	{ "(appending adds to a dataset)", "(--append adds to a dataset)" },
	{ "use a longer load window", "use a longer --window" },
	{ "(read one with the reader option trace=N)", "(read one with --trace N)" },
	{ "ticks (the load window)", "ticks (--window)" },
	{ "with the reader option hz=N",
	  "with the reader option hz=N (--input-option hz=N)" },
};

const char *cli_error_text(const tk_error *err, const char *severity,
			   char *buf, size_t size)
{
	char raw[1024];
	const char *p = tk_error_format(err, severity, raw, sizeof(raw));
	size_t o = 0, i, n;

	if (!size)
		return buf;
	while (*p && o + 1 < size) {
		for (i = 0; i < sizeof(cli_words) / sizeof(cli_words[0]); i++)
			if (!strncmp(p, cli_words[i].lib, strlen(cli_words[i].lib)))
				break;
		if (i == sizeof(cli_words) / sizeof(cli_words[0])) {
			buf[o++] = *p++;
			continue;
		}
		n = strlen(cli_words[i].cli);
		if (n > size - 1 - o)
			n = size - 1 - o;
		memcpy(buf + o, cli_words[i].cli, n);
		o += n;
		p += strlen(cli_words[i].lib);
	}
	buf[o] = '\0';
	return buf;
}

static void vmsg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

void cli_error(const tk_error *err)
{
	char buf[1280];

	/* a name it quotes by the rule of text output (cli_text()) */
	cli_text_cstr(stderr, cli_error_text(err, "error", buf, sizeof(buf)));
	fputc('\n', stderr);
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	/* the arguments it quotes by the rule of text output (cli_text()) */
	cli_msg("tracekit %s: ", cmd);
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	cli_msg(" (see 'tracekit %s --help')\n", cmd);
}

const char *cli_unit_name(const tk_trace *t, tk_unit u)
{
	const char *cyc = tk_trace_cycle_unit(t);

	return cyc && u == tk_trace_timebase(t)->unit ? cyc : tk_unit_name(u);
}

int cli_cycle_unit_check(const char *cmd, const tk_trace *t, const char *unit)
{
	const char *cyc = tk_trace_cycle_unit(t);

	if (!cyc || !unit)
		return 0;
	cli_msg("tracekit %s: --unit %s: the trace's times are %s cycles, which have no length (its times are given in %s)\n",
		cmd, unit, cyc, cyc);
	return -1;
}

static void add_operand(cli_args *a, const char *s)
{
	if (a->n < (int)(sizeof(a->v) / sizeof(a->v[0])))
		a->v[a->n] = s;
	a->n++;
}

/* the table of the last parse: its own options, then the others */
static struct option opts[64];
static char other[40];

/* the entries of t not yet in opts, with code `code` (0: their own) */
static void merge(const struct option *t, int code)
{
	size_t n, k;

	for (n = 0; opts[n].name; n++)
		;
	for (; t && t->name && n + 1 < sizeof(opts) / sizeof(opts[0]); t++) {
		for (k = 0; k < n && strcmp(opts[k].name, t->name); k++)
			;
		if (k == n) {
			opts[n] = *t;
			if (code)
				opts[n].val = code;
			n++;
		}
	}
}

const char *cli_getopt_other(void)
{
	return other[0] ? other : NULL;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, cli_args *a)
{
	/* the command's table (the first parsed), for its views' parses */
	static const struct option *cmd_opts, *made_for;
	char in_order[32];
	int c, i = -1;
	size_t v;

	if (made_for != longopts) {
		memset(opts, 0, sizeof(opts));
		other[0] = '\0';
		made_for = longopts;
		cmd_opts = cmd_opts ? cmd_opts : longopts;
		merge(longopts, 0);
		merge(cmd_opts, CLI_O_VIEW);
		for (v = 0; v < cli_nviews; v++)
			if (strcmp(cli_views[v]->cmd, argv[0]) == 0)
				merge(cli_views[v]->longopts, CLI_O_VIEW);
	}
	/* a leading '-': each operand comes back as code 1 where it stands
	 * (no permutation, so POSIXLY_CORRECT cannot end the options at the
	 * first operand); after "--" the rest are operands */
	snprintf(in_order, sizeof(in_order), "-:%s", shortopts);
	while ((c = getopt_long(argc, argv, in_order, opts, &i)) == 1)
		add_operand(a, optarg);
	if (c == -1)
		while (optind < argc)
			add_operand(a, argv[optind++]);
	if (c == CLI_O_VIEW && !other[0] && i >= 0)
		snprintf(other, sizeof(other), "--%s", opts[i].name);
	/* one line (the ':' above keeps getopt quiet), not the whole usage;
	 * a short option by its letter (its word may hold others) */
	if (c == '?' || c == ':') {
		const char *w = argv[optind - 1], opt[3] = { '-', (char)optopt, 0 };
		int letter = c == '?' && optopt > 0 && optopt < 128 &&
			     strncmp(w, "--", 2);
		cli_usage_error(argv[0], "%s '%s'", c == ':' ? "no argument for"
				: "unrecognized option", letter ? opt : w);
	}
	return c;
}

/* name ends in "." ext (ASCII case ignored), or in that and .gz or .zst */
static int has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), k = strlen(ext);

	if (n > 3 && strcasecmp(name + n - 3, ".gz") == 0)
		n -= 3;
	else if (n > 4 && strcasecmp(name + n - 4, ".zst") == 0)
		n -= 4;
	return n > k + 1 && name[n - k - 1] == '.' &&
	       strncasecmp(name + n - k, ext, k) == 0;
}

int cli_view_run(int argc, char **argv, const cli_args *a, tk_input **in,
		 const char *to, const char *out)
{
	const char *fmt = in ? tk_input_format(*in)->name : NULL;
	const char *given = cli_getopt_other();
	const cli_view *v, *owner = NULL;
	size_t i, k;

	for (i = 0; i < cli_nviews; i++) {
		v = cli_views[i];
		if (strcmp(v->cmd, argv[0]) != 0)
			continue;
		if (fmt ? v->format && strcmp(v->format, fmt) == 0
			: to ? v->to && strcmp(v->to, to) == 0
			     : v->ext && has_ext(out, v->ext)) {
			tk_input *mine = in ? *in : NULL;

			if (in)
				*in = NULL;
			return v->run(v, argc, argv, mine);
		}
		for (k = 0; given && v->longopts && v->longopts[k].name; k++)
			if (strcmp(v->longopts[k].name, given + 2) == 0)
				owner = v;
	}
	if (!given || !owner)
		return -1;
	if (fmt)
		cli_usage_error(argv[0], "%s applies to %s only (%s is %s)", given,
				owner->only, a->v[0], fmt);
	else
		cli_usage_error(argv[0], "%s is for %s", given, owner->only);
	return EXIT_BAD;
}

void cli_view_help(FILE *fp, const char *cmd)
{
	size_t i;

	for (i = 0; i < cli_nviews; i++)
		if (strcmp(cli_views[i]->cmd, cmd) == 0 && cli_views[i]->help)
			fputs(cli_views[i]->help, fp);
}

/* the writer's warnings (each one shown), for the reader's summary */
static uint64_t nwriter_warnings;

static void print_warning(void *ctx, const tk_error *w)
{
	char buf[1280];

	if (ctx)
		(*(uint64_t *)ctx)++;
	cli_text_cstr(stderr, cli_error_text(w, "warning", buf, sizeof(buf)));
	fputc('\n', stderr);
}

/* append "key=value" to the comma-joined reader options */
static int add_read_option(cli_read_opts *o, const char *cmd, const char *kv,
			   const char *what)
{
	size_t have = strlen(o->options), n = strlen(kv);
	const char *eq = strchr(kv, '='), *p;

	if (!eq || eq == kv || strchr(kv, ',')) {
		cli_usage_error(cmd, "bad %s '%s' (KEY=VALUE, no commas)", what, kv);
		return -1;
	}
	/* a key given again (--trace 1 --input-option trace=2) must
	 * repeat its value: the reader would take one of the two */
	for (p = o->options; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ","), kn = (size_t)(strchr(p, '=') - p);
		if (kn == (size_t)(eq - kv) && strncasecmp(p, kv, kn) == 0 &&
		    (len != n || memcmp(p + kn, eq, n - kn) != 0)) {
			cli_usage_error(cmd, "%s '%s' contradicts '%.*s' given before",
					what, strcmp(what, "--trace") ? kv : eq + 1,
					(int)len, p);
			return -1;
		}
	}
	if (have + (have > 0) + n >= sizeof(o->options)) {
		cli_usage_error(cmd, "too many input options");
		return -1;
	}
	if (have)
		o->options[have++] = ',';
	memcpy(o->options + have, kv, n + 1);
	return 0;
}

int cli_read_opt(cli_read_opts *o, const char *cmd, int code, const char *arg)
{
	char kv[64];
	const char *p;

	if (code == CLI_O_FROM) {
		/* given again, it must say the same: one of two is a guess */
		if (o->from && strcasecmp(o->from, arg) != 0) {
			cli_usage_error(cmd, "--from %s contradicts --from %s given before",
					arg, o->from);
			return -1;
		}
		o->from = arg;
		return 0;
	}
	if (code == CLI_O_STRICT) {
		o->strict = 1;
		return 0;
	}
	if (code == CLI_O_FORCE_FORMAT) {
		o->force = 1;
		return 0;
	}
	if (code == CLI_O_INPUT_OPTION) {
		if (!o->data_opt)
			o->data_opt = "--input-option";
		return add_read_option(o, cmd, arg, "--input-option");
	}
	if (code == CLI_O_THREADS) {
		if (strcmp(arg, "0") != 0 && strcmp(arg, "1") != 0 &&
		    strcmp(arg, "auto") != 0) {
			cli_usage_error(cmd, "bad --threads '%s' (0, 1 or auto)", arg);
			return -1;
		}
		if (!o->quiet)
			cli_msg("tracekit: note: --threads is deprecated and has "
				"no effect (every reader decodes on one thread)\n");
		return 0;
	}
	/* --trace N: a positive decimal number */
	for (p = arg; *p >= '0' && *p <= '9'; p++)
		;
	if (!*arg || *p || p - arg > 9 || strspn(arg, "0") == strlen(arg)) {
		cli_usage_error(cmd, "bad --trace '%s' (a TraceData number from 1)", arg);
		return -1;
	}
	snprintf(kv, sizeof(kv), "trace=%s", arg);
	if (!o->data_opt)
		o->data_opt = "--trace";
	return add_read_option(o, cmd, kv, "--trace");
}

void cli_reader_opts(tk_reader_opts *ro, const cli_read_opts *o)
{
	tk_reader_opts_init(ro);
	ro->format = o->from;
	ro->strict = o->strict;
	ro->force_format = o->force;
	ro->options = o->options[0] ? o->options : NULL;
	ro->on_warning = o->quiet ? NULL : print_warning;
	if (o->filter)
		cli_filter_query(o->filter, ro);
}

int cli_read_opts_check(const cli_read_opts *o)
{
	/* --force-format says "read as --from FORMAT": alone it says nothing */
	if (!o->force || o->from)
		return 0;
	cli_msg("tracekit: --force-format needs --from FORMAT (the format to read the input as)\n");
	return -1;
}

/* 0, or -1 with the error printed when rc (an opening's) failed */
static int opened(int rc, const tk_error *err)
{
	if (rc < 0)
		cli_error(err);
	return rc < 0 ? -1 : 0;
}

int cli_input(tk_input **in, const char *path, const cli_read_opts *o)
{
	tk_reader_opts ro;
	tk_error err;

	if (cli_read_opts_check(o) < 0)
		return -1;
	cli_reader_opts(&ro, o);
	tk_error_clear(&err);
	return opened(tk_input_open_opts(in, path, &ro, &err), &err);
}

int cli_open_input(tk_reader **r, tk_input *in, const cli_read_opts *o)
{
	tk_reader_opts ro;
	tk_error err;

	cli_reader_opts(&ro, o);
	tk_error_clear(&err);
	return opened(tk_reader_open_input(r, in, &ro, &err), &err);
}

int cli_open(tk_reader **r, const char *path, const cli_read_opts *o)
{
	tk_reader_opts ro;
	tk_error err;

	if (cli_read_opts_check(o) < 0)
		return -1;
	cli_reader_opts(&ro, o);
	tk_error_clear(&err);
	return opened(tk_reader_open(r, path, &ro, &err), &err);
}

void cli_warning_summary(tk_reader *r, const cli_read_opts *o)
{
	if (o && o->filter)
		cli_filter_unmatched(o->filter, r, NULL, 0, o);
	cli_warning_total(tk_reader_warning_count(r), o);
}

void cli_warning_total(uint64_t n, const cli_read_opts *o)
{
	cli_warning_total_to(stderr, n, o);
}

void cli_warning_total_to(FILE *fp, uint64_t n, const cli_read_opts *o)
{
	n += n ? nwriter_warnings : 0;
	if (n && !(o && o->quiet)) /* o may be NULL as in cli_pipe() */
		fprintf(fp,
			"tracekit: %llu warning%s in all (the first of each kind shown%s)\n",
			(unsigned long long)n, n == 1 ? "" : "s",
			o && o->strict ? "" : "; lenient mode");
}

const char *cli_input_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

int cli_out_is_in(const char *in, const char *out)
{
	return cli_out_is_file(in, "input", out);
}

int cli_out_is_file(const char *in, const char *what, const char *out)
{
	struct stat si, so;

	if (!in || !out || strcmp(out, "-") == 0 ||
	    (strcmp(in, "-") == 0 ? fstat(0, &si) : stat(in, &si)) != 0 ||
	    stat(out, &so) != 0 || !S_ISREG(so.st_mode) ||
	    si.st_dev != so.st_dev || si.st_ino != so.st_ino)
		return 0;
	cli_msg("%s: error: the output is the %s %s (it would be replaced): name another file\n",
		out, what, cli_input_name(in));
	return 1;
}

/* the most events cli_pipe() takes from the reader at a time */
#define PIPE_BATCH 256

int cli_pipe(tk_reader *r, const char *in, const char *out, const char *to, int strict,
	     int no_header, const cli_read_opts *ro,
	     const char *writer_options, const char *const *idle, size_t nidle)
{
	tk_writer_opts wo;
	tk_writer *w = NULL;
	const tk_event *ev;
	tk_error err;
	tk_trace *t = tk_reader_trace(r);
	size_t n;
	int rc;

	tk_writer_opts_init(&wo);
	wo.format = to;
	wo.strict = strict;
	wo.no_header = no_header;
	wo.options = writer_options;
	wo.idle = idle;
	wo.nidle = nidle;
	/* an event the output cannot hold is named by its line */
	wo.input = cli_input_name(in);
	/* what the output format cannot hold: counted, reported at close */
	wo.on_warning = ro && ro->quiet ? NULL : print_warning;
	wo.warning_ctx = &nwriter_warnings;
	tk_error_clear(&err);
	if (tk_writer_open(&w, out, t, &wo, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	/* the events a batch at a time, written as they come */
	while ((rc = tk_reader_next_batch(r, &ev, &n, PIPE_BATCH, &err)) == TK_OK) {
		if (tk_writer_write_batch(w, ev, n, &err) < 0) {
			rc = err.code ? err.code : TK_E_IO;
			break;
		}
	}
	if (rc < 0) {
		cli_error(&err);
		tk_writer_abort(w);
		return EXIT_BAD;
	}
	if (tk_writer_close(w, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	cli_warning_summary(r, ro);
	return EXIT_OK;
}

void cli_idle_note(const tk_trace *t, size_t nidle, const cli_read_opts *ro)
{
	if (!nidle && tk_load_default_idle(t) && !(ro && ro->quiet))
		cli_msg("tracekit: note: a FreeRTOS trace logger task named %s (after its [c/id] or (id) prefix) is idle: its time is not load (--idle names others)\n",
			tk_load_default_idle(t));
}

/*
 * The columns a terminal gives the character of the valid UTF-8 sequence
 * s[0..len): the C library's wcwidth() in the C.UTF-8 locale (2 for East
 * Asian wide characters, 0 for combining marks), 1 where that locale is
 * missing or the character has no width there.
 */
static size_t utf8_cols(const unsigned char *s, size_t len)
{
	static locale_t utf8;
	static int tried;
	locale_t old;
	uint32_t cp;
	int w;

	if (!tried) {
		tried = 1;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	if (!utf8)
		return 1;
	cp = len == 2 ? (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f) :
	     len == 3 ? (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f) :
			(uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
			(uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	old = uselocale(utf8);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : (size_t)w;
}

/*
 * The next character shown of s[i..n) by the rule of cli_text(): its text
 * in out (at most 8 bytes, *olen of them), the columns it takes in *cols;
 * the number of bytes of s it stands for.
 */
static size_t text_next(const unsigned char *s, size_t n, size_t i, char *out,
			size_t *olen, size_t *cols)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[i];
	size_t len;

	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		*olen = *cols = 1;
		if (c == '\\' && i + 1 < n) {
			/* doubled where it could start an escape: before an
			 * 'x', a backslash or a byte written escaped */
			unsigned char d = s[i + 1];
			if (d == 'x' || d == '\\' || d < 0x20 || d == 0x7f ||
			    (d >= 0x80 && ((len = tk_utf8_len(s + i + 1, n - i - 1)) == 0 ||
					   (d == 0xc2 && s[i + 2] < 0xa0)))) {
				out[1] = '\\';
				*olen = *cols = 2;
			}
		}
		return 1;
	}
	if (c >= 0x80 && (len = tk_utf8_len(s + i, n - i)) != 0 &&
	    !(c == 0xc2 && s[i + 1] < 0xa0)) {
		memcpy(out, s + i, len);
		*olen = len;
		*cols = utf8_cols(s + i, len);
		return len;
	}
	/* a control character, a C1 control (its two bytes), a stray byte */
	len = c == 0xc2 && i + 1 < n && tk_utf8_len(s + i, n - i) ? 2 : 1;
	for (*olen = 0; *olen < 4 * len; *olen += 4) {
		unsigned char b = s[i + *olen / 4];
		out[*olen] = '\\';
		out[*olen + 1] = 'x';
		out[*olen + 2] = hex[b >> 4];
		out[*olen + 3] = hex[b & 15];
	}
	*cols = *olen;
	return len;
}

/* s[0..n) holds only printable ASCII other than the backslash: shown as it is */
static int text_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '\\')
			return 0;
	}
	return 1;
}

void cli_text(FILE *fp, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char out[8];
	size_t i, olen, cols;

	if (text_plain(s, n)) {
		fwrite(s, 1, n, fp);
		return;
	}
	for (i = 0; i < n; ) {
		i += text_next(u, n, i, out, &olen, &cols);
		fwrite(out, 1, olen, fp);
	}
}

void cli_text_cstr(FILE *fp, const char *s)
{
	if (s)
		cli_text(fp, s, strlen(s));
}

size_t cli_text_width(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char out[8];
	size_t i, olen, cols, w = 0;

	if (text_plain(s, n))
		return n;
	for (i = 0; i < n; w += cols)
		i += text_next(u, n, i, out, &olen, &cols);
	return w;
}

static void text_blanks(FILE *fp, size_t k)
{
	static const char blanks[32] = "                               ";

	while (k) {
		size_t m = k < sizeof(blanks) - 1 ? k : sizeof(blanks) - 1;
		fwrite(blanks, 1, m, fp);
		k -= m;
	}
}

void cli_text_pad(FILE *fp, const char *s, size_t n, size_t width)
{
	size_t w = cli_text_width(s, n);

	cli_text(fp, s, n);
	text_blanks(fp, w < width ? width - w : 0);
}

/* cli_msg() of a va_list */
static void vmsg(const char *fmt, va_list ap)
{
	va_list again;
	char buf[2048], *p = buf;
	int n;

	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(buf)) {
		if ((p = malloc((size_t)n + 1)) != NULL) {
			vsnprintf(p, (size_t)n + 1, fmt, again);
		} else {
			p = buf;  /* out of memory: the message cut */
			n = (int)strlen(buf);
		}
	}
	va_end(again);
	if (n < 0)
		return;
	if (n && p[n - 1] == '\n') {
		cli_text(stderr, p, (size_t)n - 1);
		fputc('\n', stderr);
	} else {
		cli_text(stderr, p, (size_t)n);
	}
	if (p != buf)
		free(p);
}

void cli_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void cli_json_str(FILE *fp, const char *s, size_t n)
{
	tk_json_write_str(fp, s, n, 0);
}

void cli_json_cstr(FILE *fp, const char *s)
{
	tk_json_write_str(fp, s, strlen(s), 0);
}

void cli_csv_field(FILE *fp, const char *s, size_t n)
{
	size_t i, len;
	int quote = 0;

	for (i = 0; i < n && !quote; i++) {
		unsigned char c = (unsigned char)s[i];
		quote = c == ',' || c == '"' || c < 0x20 || c == 0x7f;
	}
	if (quote)
		fputc('"', fp);
	/* well-formed UTF-8 as it is, '"' doubled, a stray byte as U+FFFD
	 * (as tk_json_write_str() walks a JSON string) */
	for (i = 0; i < n; i += len) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			if (c == '"')
				fputc('"', fp);
			fputc(c, fp);
			len = 1;
		} else if ((len = tk_utf8_len((const unsigned char *)s + i, n - i))) {
			fwrite(s + i, 1, len, fp);
		} else {
			fputs("\xef\xbf\xbd", fp);
			len = 1;
		}
	}
	if (quote)
		fputc('"', fp);
}

void cli_csv_cstr(FILE *fp, const char *s)
{
	cli_csv_field(fp, s, strlen(s));
}

int cli_grow(void **arr, size_t *cap, size_t id, size_t esize)
{
	return cli_grow_to(arr, cap, id, esize, SIZE_MAX);
}

int cli_grow_to(void **arr, size_t *cap, size_t id, size_t esize, size_t max)
{
	size_t ncap = *cap ? *cap : 16;
	unsigned char *p;

	if (id < *cap)
		return 0;
	while (ncap <= id) {
		if (ncap > SIZE_MAX / 2 / esize)
			return -1;
		ncap *= 2;
	}
	if (ncap > max)
		ncap = max > id ? max : id + 1;
	if (ncap > SIZE_MAX / esize)
		return -1;
	p = realloc(*arr, ncap * esize);
	if (!p)
		return -1;
	memset(p + *cap * esize, 0, (ncap - *cap) * esize);
	*arr = p;
	*cap = ncap;
	return 0;
}

