/* cmd_check.c - `tracekit check`: state-machine validation of a trace. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit check [options] FILE\n\n"
		"Checks a trace against the BTF state machines (process, runnable,\n"
		"semaphore, spinlock) per entity instance, and the cross-entity rules:\n"
		"one process per core, a process leaves the core it runs on, runnables\n"
		"run inside their running process and terminate before it, instances\n"
		"increase without gaps, time never decreases.  Each violation is one\n"
		"line FILE:LINE: error: MESSAGE [rule]; a summary line follows.\n"
		"Exit status: 0 clean, 1 violations, 2 unreadable input.\n\n"
		"options:\n"
		"  --max-errors N      stop after N violations (default: report all)\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read and check by the specification only (reading stops\n"
		"                      at the first departure)\n"
		"  -q, --quiet         no reader warnings on stderr\n"
		"  -h, --help          this help\n");
}

typedef struct check_ctx {
	const char *path;
	uint64_t shown, max;
} check_ctx;

static void on_violation(void *ctx, const tk_violation *v)
{
	check_ctx *c = ctx;

	if (c->max && c->shown >= c->max)
		return;
	c->shown++;
	/* the file and the names the message quotes by the rule of text output */
	cli_text_cstr(stdout, c->path);
	printf(":%llu: error: ", (unsigned long long)v->pos);
	cli_text_cstr(stdout, v->msg);
	printf(" [%s]\n", tk_rule_name(v->rule));
}

enum { O_MAX = 256 };

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-errors", required_argument, NULL, O_MAX },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_args args = { { NULL }, 0 };
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	check_ctx cx = { NULL, 0, 0 };
	tk_reader *r = NULL;
	tk_check *chk = NULL;
	const tk_event *ev;
	tk_error err;
	uint64_t nevents = 0, total;
	int c, rc, ret = EXIT_BAD, stopped = 0;
	char *end;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		case O_MAX:
			errno = 0;
			cx.max = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !cx.max) {
				cli_usage_error("check", "bad --max-errors '%s' (a positive number)",
						optarg);
				return EXIT_BAD;
			}
			if (errno == ERANGE) {
				/* strtoull gave ULLONG_MAX: not the number asked */
				cli_usage_error("check", "bad --max-errors '%s' (out of range: at most %llu)",
						optarg, ULLONG_MAX);
				return EXIT_BAD;
			}
			break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "check", c, optarg) < 0)
				return EXIT_BAD;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 1) {
		cli_usage_error("check", "expected one FILE");
		return EXIT_BAD;
	}
	cx.path = cli_input_name(args.v[0]);
	if (cli_open(&r, args.v[0], &ro) < 0)
		return EXIT_BAD;
	if (tk_check_new(&chk, tk_reader_trace(r), on_violation, &cx, NULL) < 0)
		goto nomem;
	tk_check_set_strict(chk, ro.strict);
	tk_error_clear(&err);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		nevents++;
		if ((rc = tk_check_event(chk, ev, &err)) < 0)
			break;
		if (cx.max && tk_check_count(chk, TK_RULE_COUNT) >= cx.max) {
			stopped = 1;
			break;
		}
	}
	fflush(stdout);
	if (rc < 0) {
		cli_error(&err);
		goto out;
	}
	total = tk_check_count(chk, TK_RULE_COUNT);
	if (!total) {
		cli_text_cstr(stdout, cx.path);
		printf(": ok: %llu events, no violations\n", (unsigned long long)nevents);
	} else {
		int first = 1;
		cli_text_cstr(stdout, cx.path);
		printf(": %llu violation%s%s in %llu events (", (unsigned long long)total, total == 1 ? "" : "s",
		       stopped ? " (stopped at --max-errors)" : "",
		       (unsigned long long)nevents);
		for (c = 0; c < TK_RULE_COUNT; c++) {
			uint64_t n = tk_check_count(chk, (tk_rule)c);
			if (!n)
				continue;
			printf("%s%s %llu", first ? "" : ", ", tk_rule_name((tk_rule)c),
			       (unsigned long long)n);
			first = 0;
		}
		printf(")\n");
	}
	cli_warning_summary(r, &ro);
	ret = total ? EXIT_PROBLEMS : EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: out of memory\n");
out:
	tk_check_free(chk);
	tk_reader_close(r);
	return ret;
}
