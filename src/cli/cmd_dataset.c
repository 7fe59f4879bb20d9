/* cmd_dataset.c - `tracekit dataset DIR TRACE...`: traces into a Parquet
 * dataset (docs/fleet.md), one file per input per table. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli.h"
#include "tracekit/dataset.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit dataset [options] DIR TRACE...\n\n"
		"Adds traces to the Parquet dataset DIR, a folder with one table per\n"
		"level, each a folder of Parquet files, one file per input per table:\n"
		"events/ (the rows of convert T out.parquet), instances/ (one row per\n"
		"task, ISR and runnable instance, with its metrics), metrics/ (the rows\n"
		"of stats --format csv), load/ (per core, over the trace and per window)\n"
		"and traces/ (one row per input: format, header, time base, span, counts,\n"
		"warnings, SHA-256 of its bytes).  docs/fleet.md has the schema and\n"
		"queries for DuckDB and Spark.  The files of an input appear only when\n"
		"the whole input was read: a bad input is reported, leaves no file and\n"
		"makes the exit status 2; the others are added.  With -j N the inputs\n"
		"are converted N at a time, each on a thread (N traces in memory at\n"
		"once): the same files and messages as -j 1, in the inputs' order.\n\n"
		"options:\n"
		"  --append            add to an existing dataset (without it DIR must not\n"
		"                      exist or be empty); an input whose content hash\n"
		"                      is in traces/ already is skipped, with a note\n"
		"  -j, --jobs N        convert N inputs at a time (default 1; at most 256)\n"
		"  --id ID             the trace column (and the files' name) of the one\n"
		"                      input (default: its file name without extension)\n"
		"  --window TIME       load/: windows of TIME (10ms, 250us; default 10ms;\n"
		"                      0: the whole trace only); a trace whose ticks do not\n"
		"                      divide TIME is an error, but the default's gets no\n"
		"                      windows, with a warning; so do an ATF file of\n"
		"                      several TraceData (time lines) and a trace of\n"
		"                      over 10,000,000 default windows\n"
		"  --from FORMAT       input format\n"
		CLI_READ_HELP
		"  --strict            read by the specification only, and refuse strings\n"
		"                      that are not UTF-8\n"
		"  -q, --quiet         no warnings or notes on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_APPEND = 256, O_ID, O_WINDOW };

typedef struct ds_input {
	const char *path;
	char hex[65];
	int skip;        /* in the dataset already, or given twice */
	int failed;
	int hash_rc;     /* tk_dataset_hash()'s, with its error: */
	tk_error hash_err;
	char *msg;       /* its messages, printed in the inputs' order */
	size_t msglen;
} ds_input;

typedef struct ds_run {
	const char *dir;
	const cli_read_opts *ro;
	tk_dataset_opts o;
	ds_input *in;
} ds_run;

/* a warning, on the input's messages (ctx: their FILE) */
static void warn(void *ctx, const tk_error *w)
{
	char buf[1280];

	cli_text_cstr(ctx, cli_error_text(w, "warning", buf, sizeof(buf)));
	fputc('\n', ctx);
}

/* one input into the dataset (a task of tk_jobs_run(), on any thread):
 * 0, or -1 (its error in its messages) */
static int add_one(const ds_run *run, ds_input *in)
{
	tk_reader *r = NULL;
	tk_reader_opts ro;
	tk_dataset_opts o = run->o;
	tk_error err;
	char buf[1280];
	FILE *fp;
	int rc = -1;

	if (!(fp = open_memstream(&in->msg, &in->msglen)))
		return -1;
	cli_reader_opts(&ro, run->ro);
	if (ro.on_warning) {
		ro.on_warning = warn;
		ro.warning_ctx = fp;
	}
	if (o.on_warning)
		o.warning_ctx = fp;
	tk_error_clear(&err);
	if (tk_reader_open(&r, in->path, &ro, &err) < 0)
		goto failed;
	if (tk_dataset_add(run->dir, in->path, in->hex, r, &o, &err) < 0)
		goto failed;
	cli_warning_total_to(fp, tk_reader_warning_count(r), run->ro);
	rc = 0;
	goto out;
failed:
	cli_text_cstr(fp, cli_error_text(&err, "error", buf, sizeof(buf)));
	fputc('\n', fp);
out:
	tk_reader_close(r);
	if (fclose(fp) != 0 || !in->msg) {
		free(in->msg);
		in->msg = NULL;
		in->msglen = 0;
		return -1;
	}
	return rc;
}

/* input i's content hash (a task of tk_jobs_run(), on any thread) */
static int hash_task(void *ctx, size_t i)
{
	ds_run *run = ctx;
	ds_input *in = &run->in[i];

	tk_error_clear(&in->hash_err);
	if (strcmp(in->path, "-") == 0)
		return 0;
	in->hash_rc = tk_dataset_hash(in->path, in->hex, &in->hash_err);
	return 0;
}

/* an input's trace id without --id (tk_dataset_add()'s): its file name
 * up to the first '.' (whole when it starts with one), n bytes at *s */
static size_t stem_of(const char *path, const char **s)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	*s = b;
	return n ? n : strlen(b);
}

/* whether the files of trace id s[0..n) are named after it whole and
 * after no other id (docs/fleet.md: [A-Za-z0-9._-] kept, a 't' before a
 * name that would not start with a letter or digit, the first 200
 * bytes), so that a file of that name is a trace of that id */
static int own_file_name(const char *s, size_t n)
{
	size_t k;

	if (!n || n >= 200 ||
	    (s[0] == 't' && n > 1 && (s[1] == '.' || s[1] == '_' || s[1] == '-')))
		return 0;
	for (k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[k];
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9');

		if (!alnum && (k == 0 || (c != '.' && c != '_' && c != '-')))
			return 0;
	}
	return 1;
}

/* input i (added) has the trace id of an input added before it, or of a
 * trace in the dataset already (another content: the same is skipped): a
 * warning (the rows of both would share their trace column) */
static void same_id(const ds_run *run, size_t i)
{
	const ds_input *in = run->in;
	const char *s, *t;
	size_t n, j;

	if (run->ro->quiet)
		return;
	if (run->o.id) {
		s = run->o.id;
		n = strlen(s);
	} else {
		n = stem_of(in[i].path, &s);
	}
	if (tk_dataset_has_id(run->dir, s, n)) {
		if (own_file_name(s, n))
			cli_msg("tracekit: warning: %s: its trace id '%.*s' is in %s already, of a trace of other content: their rows share it (give each input a name of its own, or --id)\n",
				in[i].path, (int)n, s, run->dir);
		else /* the files' name says the id up to the bytes it keeps */
			cli_msg("tracekit: warning: %s: %s has a trace of other content whose files are named as those of trace id '%.*s': if that is its id, their rows share it (give each input a name of its own, or --id)\n",
				in[i].path, run->dir, (int)n, s);
		return;
	}
	if (run->o.id)
		return;
	for (j = 0; j < i; j++)
		if (!in[j].failed && !in[j].skip && stem_of(in[j].path, &t) == n &&
		    memcmp(s, t, n) == 0) {
			cli_msg("tracekit: warning: %s: its trace id '%.*s' is that of %s: their rows share it (give each input a name of its own)\n",
				in[i].path, (int)n, s, in[j].path);
			return;
		}
}

/* input i's hash taken: its error, or whether it is skipped (in the
 * dataset already, or the same bytes as an input before it), in the
 * inputs' order */
static void hash_done(void *ctx, size_t i, int rc)
{
	ds_run *run = ctx;
	ds_input *in = run->in;
	size_t j;

	(void)rc;
	if (strcmp(in[i].path, "-") == 0) {
		cli_usage_error("dataset", "a TRACE must be a file (its content hash), not '-'");
		in[i].failed = 1;
		return;
	}
	if (in[i].hash_rc < 0) {
		cli_error(&in[i].hash_err);
		in[i].failed = 1;
		return;
	}
	for (j = 0; j < i && (in[j].failed || strcmp(in[j].hex, in[i].hex)); j++)
		;
	if (j < i || tk_dataset_has(run->dir, in[i].hex)) {
		in[i].skip = 1;
		if (!run->ro->quiet)
			cli_msg("tracekit: note: %s: skipped: its content (SHA-256 %.16s...) is in %s already\n",
				in[i].path, in[i].hex,
				j < i ? "this run" : run->dir);
		return;
	}
	same_id(run, i);
}

static int add_task(void *ctx, size_t i)
{
	ds_run *run = ctx;
	ds_input *in = &run->in[i];

	return in->failed || in->skip ? 0 : add_one(run, in);
}

/* task i returned rc: its messages, in the inputs' order */
static void add_done(void *ctx, size_t i, int rc)
{
	ds_run *run = ctx;
	ds_input *in = &run->in[i];

	if (in->failed || in->skip)
		return;
	if (in->msg)
		fwrite(in->msg, 1, in->msglen, stderr);
	else if (rc < 0)
		cli_msg("tracekit: dataset: %s: out of memory\n", in->path);
	free(in->msg);
	in->msg = NULL;
	in->failed = rc < 0;
}

int cmd_dataset(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_READ_LONGOPTS,
		{ "append", no_argument, NULL, O_APPEND },
		{ "id", required_argument, NULL, O_ID },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "jobs", required_argument, NULL, 'j' },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	const char **ops = NULL, *window_s = "10ms";
	unsigned long jobs = 1;
	char *end;
	ds_input *in = NULL;
	ds_run run;
	tk_error err;
	size_t nops = 0, i;
	int c, bad = 0, append = 0, ret = EXIT_BAD, failed = 0;

	memset(&run, 0, sizeof(run));
	tk_dataset_opts_init(&run.o);
	optind = 1;
	/* a leading '-': the operands come back as code 1, in order */
	while ((c = getopt_long(argc, argv, "-:qhj:", longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (cli_filter_add(&ops, &nops, optarg) < 0)
				goto nomem;
			break;
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "dataset", c, optarg) < 0;
			break;
		case O_APPEND: append = 1; break;
		case O_ID: run.o.id = optarg; break;
		case O_WINDOW: window_s = optarg ? optarg : ""; run.o.window_given = 1; break;
		case 'j':
			jobs = optarg ? strtoul(optarg, &end, 10) : 0;
			if (!optarg || *optarg < '0' || *optarg > '9' || *end || !jobs || jobs > 256) {
				cli_usage_error("dataset", "bad -j '%s' (a number of inputs at a time, 1 to 256)",
						optarg ? optarg : "");
				bad = 1;
			}
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		case ':':
			cli_usage_error("dataset", "no argument for '%s'", argv[optind - 1]);
			goto out;
		default:
			cli_usage_error("dataset", "unrecognized option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	while (optind < argc)
		if (cli_filter_add(&ops, &nops, argv[optind++]) < 0)
			goto nomem;
	if (bad)
		goto out;
	if (nops < 2) {
		cli_usage_error("dataset", "expected DIR and at least one TRACE");
		goto out;
	}
	if (run.o.id && nops != 2) {
		cli_usage_error("dataset", "--id names one input, not %zu", nops - 1);
		goto out;
	}
	if (strcmp(window_s, "0") != 0) {
		uint64_t v;
		tk_unit u;
		tk_timebase from = { TK_UNIT_NS, 1, 1 }, ns = { TK_UNIT_NS, 1, 1 };

		if (tk_duration_parse(window_s, -1, &v, &u) < 0 || !v ||
		    (from.unit = u, tk_time_convert(v, &from, &ns, TK_ROUND_EXACT,
						    &run.o.window_ns) < 0)) {
			cli_usage_error("dataset", "bad --window '%s' (a time such as 10ms, a whole number of ns; 0: none)",
					window_s);
			goto out;
		}
	}
	if (cli_read_opts_check(&ro) < 0)
		goto out;
	run.dir = ops[0];
	run.ro = &ro;
	run.o.strict = ro.strict;
	run.o.on_warning = ro.quiet ? NULL : warn;
	run.o.warning_ctx = stderr;
	tk_error_clear(&err);
	if (tk_dataset_prepare(run.dir, append, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	in = calloc(nops - 1, sizeof(*in));
	if (!in)
		goto nomem;
	run.in = in;
	/* the content hashes, N at a time as the inputs (hashing is no
	 * small part of an input's work); then, in the inputs' order, an
	 * input in the dataset or given before is skipped */
	for (i = 0; i + 1 < nops; i++)
		in[i].path = ops[i + 1];
	tk_error_clear(&err);
	if (tk_jobs_run(nops - 1, (unsigned)jobs, hash_task, hash_done, &run, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	tk_error_clear(&err);
	if (tk_jobs_run(nops - 1, (unsigned)jobs, add_task, add_done, &run, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	for (i = 0; i + 1 < nops; i++)
		failed |= in[i].failed;
	ret = failed ? EXIT_BAD : EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: dataset: out of memory\n");
out:
	free(in);
	free(ops);
	return ret;
}
