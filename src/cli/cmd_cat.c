/* cmd_cat.c - `tracekit cat`: events as canonical BTF text, filtered. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit cat [options] FILE\n\n"
		"Prints the trace as canonical BTF (header, then one event per line).\n\n"
		CLI_FILTER_HELP
		"options:\n"
		"  --no-header         events only\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
	cli_view_help(fp, "cat");
}

enum { O_NOHDR = 256 };

int cmd_cat(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_FILTER_LONGOPTS,
		{ "no-header", no_argument, NULL, O_NOHDR },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	cli_filter f;
	tk_input *in = NULL;
	tk_reader *r = NULL;
	int c, no_header = 0, ret = EXIT_BAD, bad = 0;

	memset(&f, 0, sizeof(f));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		CLI_FILTER_CASES:
			bad |= cli_filter_opt(&f, c, optarg) < 0;
			break;
		case O_NOHDR:
			no_header = 1;
			break;
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "cat", c, optarg) < 0;
			break;
		case CLI_O_VIEW: break;   /* cli_getopt_other() */
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	if (bad)
		goto out;
	if (args.n != 1) {
		cli_usage_error("cat", "expected one FILE");
		goto out;
	}
	/* FILE opened once: its format may have a view of its own (cli.h) */
	if (cli_input(&in, args.v[0], &ro) < 0 ||
	    (ret = cli_view_run(argc, argv, &args, &in, NULL, NULL)) >= 0)
		goto out;
	ret = EXIT_BAD;
	ro.filter = &f;
	c = cli_open_input(&r, in, &ro);
	in = NULL;
	if (c < 0)
		goto out;
	if (cli_filter_prepare(&f, r) < 0)
		goto out;
	/* the events as read: no spelling mapped, nothing dropped */
	ret = cli_pipe(r, args.v[0], "-", "btf", 0, no_header, &ro, "as-read=1", NULL, 0);
out:
	tk_input_close(in);
	tk_reader_close(r);
	cli_filter_free(&f);
	return ret;
}
