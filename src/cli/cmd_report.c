/*
 * cmd_report.c - `tracekit report FILE -o report.html`: the options, then
 * tk_report_write() (src/exports/report/report.c) writes the page
 * (docs/exports.md).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit report [options] FILE -o OUT.html\n\n"
		"Writes one self-contained HTML page (no network, no other files): a\n"
		"timeline per core (when each task and ISR ran, runnables above them,\n"
		"signals as ticks) with zoom (wheel), pan (drag) and hover details;\n"
		"the metrics of 'tracekit stats' with the worst instance one click\n"
		"away; histograms of RT and CET per entity (p50, p99, max marked); core\n"
		"load over time; the problems 'tracekit check' finds, listed and\n"
		"marked.  Where a pixel\n"
		"would hold many bars the page holds a summary (the page stays below\n"
		"about 10 MB); re-run with --start/--end for the full detail of a\n"
		"window.  FILE is read twice: a file (compressed or not), not\n"
		"standard input.  The filters choose the events that go into the\n"
		"page (the metrics, the problems and the load are of those alone).\n\n"
		CLI_FILTER_HELP
		"options:\n"
		"  -o, --output FILE   the page to write (required; '-' is standard output,\n"
		"                      a name ending in .gz or .zst is compressed; FILE\n"
		"                      itself is an error)\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  --idle PATTERN      a process whose name matches the glob PATTERN (*, ?)\n"
		"                      is idle: drawn, but its time is the core's idle\n"
		"                      time (grey in the load chart), not load\n"
		"                      (repeatable; default: IDLE* for the FreeRTOS trace\n"
		"                      logger's tasks, the name after their [c/id] or (id)\n"
		"                      prefix, else none; as 'tracekit load')\n"
		"  --chain NAME=S0,...,Sn  a cause-effect chain's rows (REACTION, AGE, LOST)\n"
		"                      in the metric table, as 'tracekit stats --chain'\n"
		"                      (repeatable)\n"
		"  -r, --requirements FILE  timing requirements (YAML, as 'tracekit verify'):\n"
		"                      a section lists each with PASS or FAIL and its\n"
		"                      message, and links each worst instance to the\n"
		"                      timeline; the exit status stays 0 (verify gates);\n"
		"                      '-' reads them from standard input\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_IDLE = 256, O_CHAIN };

/* what the report's on_open needs: the filters and the options */
typedef struct report_ctx {
	cli_filter f;
	const cli_read_opts *ro;
	size_t nidle;
} report_ctx;

/* the first pass: a --start/--end the reader's query could not take (not
 * a time, a start after the end) refused as cat and convert refuse it;
 * the idle note */
static int on_open(void *ctx, tk_reader *r, int pass)
{
	report_ctx *c = ctx;

	if (pass != 1)
		return TK_OK;
	if (cli_filter_prepare(&c->f, r) < 0)
		return TK_E_USAGE;
	cli_idle_note(tk_reader_trace(r), c->nidle, c->ro);
	return TK_OK;
}

/* after the first pass: each filter name that matched nothing */
static int on_read(void *ctx, tk_reader *r)
{
	report_ctx *c = ctx;

	cli_filter_unmatched(&c->f, r, NULL, 0, c->ro);
	return TK_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		CLI_READ_LONGOPTS,
		CLI_FILTER_LONGOPTS,
		{ "idle", required_argument, NULL, O_IDLE },
		{ "chain", required_argument, NULL, O_CHAIN },
		{ "requirements", required_argument, NULL, 'r' },
		CLI_END_LONGOPTS
	};
	cli_args args = { { NULL }, 0 };
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	const char *out = NULL, *reqpath = NULL;
	tk_reqs *reqs = NULL;
	const char **idle = NULL, **chains = NULL;
	size_t nidle = 0, nchains = 0;
	report_ctx c;
	tk_report_opts opts;
	tk_reader_opts rdo;
	tk_error err;
	uint64_t warnings = 0;
	int ch, ret = EXIT_BAD, bad = 0;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((ch = cli_getopt(argc, argv, "o:r:qh", longopts, &args)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 'r': reqpath = optarg; break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "report", ch, optarg) < 0)
				goto out;
			break;
		CLI_FILTER_CASES:
			bad |= cli_filter_opt(&c.f, ch, optarg) < 0;
			break;
		case O_IDLE:
			if (cli_filter_add(&idle, &nidle, optarg) < 0) {
				cli_msg("tracekit: out of memory\n");
				goto out;
			}
			break;
		case O_CHAIN:
			if (cli_filter_add(&chains, &nchains, optarg) < 0) {
				cli_msg("tracekit: out of memory\n");
				goto out;
			}
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	if (bad || cli_read_opts_check(&ro) < 0)
		goto out;
	if (args.n != 1 || !out) {
		cli_usage_error("report", "expected FILE and -o OUT.html");
		goto out;
	}
	if (cli_out_is_in(args.v[0], out))
		goto out;
	tk_error_clear(&err);
	/* FILE '-' is refused by tk_report_write() (it reads FILE twice):
	 * the requirements are not read first, which might be '-' as well */
	if (reqpath && strcmp(args.v[0], "-") && tk_reqs_read(&reqs, reqpath, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	c.ro = &ro;
	c.nidle = nidle;
	tk_report_opts_init(&opts);
	/* the filters are the reader's query (the whole file is read) */
	ro.filter = &c.f;
	cli_reader_opts(&rdo, &ro);
	opts.reader = &rdo;
	opts.idle = idle;
	opts.nidle = nidle;
	opts.on_open = on_open;
	opts.on_read = on_read;
	opts.ctx = &c;
	opts.warnings = &warnings;
	opts.chains = chains;
	opts.nchains = nchains;
	opts.reqs = reqs;
	if (tk_report_write(args.v[0], out, &opts, &err) < 0) {
		/* an error of the report's own (no input named) as the other
		 * commands put theirs; none when on_open printed it */
		if (err.input[0])
			cli_error(&err);
		else if (err.code == TK_E_USAGE && err.msg[0])
			cli_usage_error("report", "%s", err.msg);
		else if (err.msg[0])
			cli_msg("tracekit: %s\n", err.msg);
		goto out;
	}
	cli_warning_total(warnings, &ro);
	ret = EXIT_OK;
out:
	tk_reqs_free(reqs);
	free(idle);
	free(chains);
	cli_filter_free(&c.f);
	return ret;
}
