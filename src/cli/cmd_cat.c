/* cmd_cat.c - `tracekit cat`: events as canonical BTF text, filtered. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit cat [options] FILE\n\n"
		"Prints the trace as canonical BTF (header, then one event per line).\n\n"
		"filters (repeat --entity/--type/--event to allow several values):\n"
		"  --start TIME        events at or after TIME (10ms, 250us, 1.5s; a bare\n"
		"                      number is in the trace's own ticks)\n"
		"  --end TIME          events at or before TIME\n"
		"  --entity NAME       events whose source or target is NAME\n"
		"  --type TYPE         events whose target type is TYPE (T, I, R, SEM, ...)\n"
		"  --event NAME        events named NAME (start, preempt, ...)\n"
		"options:\n"
		"  --no-header         events only\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_START = 256, O_END, O_ENTITY, O_TYPE, O_EVENT, O_NOHDR };

int cmd_cat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "start", required_argument, NULL, O_START },
		{ "end", required_argument, NULL, O_END },
		{ "entity", required_argument, NULL, O_ENTITY },
		{ "type", required_argument, NULL, O_TYPE },
		{ "event", required_argument, NULL, O_EVENT },
		{ "no-header", no_argument, NULL, O_NOHDR },
		CLI_READ_LONGOPTS,
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_filter f;
	tk_reader *r = NULL;
	int c, no_header = 0, ret = EXIT_BAD, bad = 0;

	if (cli_tarmac_wants(argc, argv))
		return cli_tarmac_cat(argc, argv);
	memset(&f, 0, sizeof(f));
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case O_START: f.start_s = optarg; break;
		case O_END: f.end_s = optarg; break;
		case O_ENTITY: bad |= cli_filter_add(&f.entities, &f.nentities, optarg); break;
		case O_TYPE: bad |= cli_filter_add(&f.types, &f.ntypes, optarg); break;
		case O_EVENT: bad |= cli_filter_add(&f.events, &f.nevents, optarg); break;
		case O_NOHDR: no_header = 1; break;
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "cat", c, optarg) < 0;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); cli_filter_free(&f); return EXIT_OK;
		default: help(stderr); cli_filter_free(&f); return EXIT_BAD;
		}
	}
	if (bad)
		goto out;
	if (optind != argc - 1) {
		cli_usage_error("cat", "expected one FILE");
		goto out;
	}
	if (cli_open(&r, argv[optind], &ro) < 0)
		goto out;
	if (cli_filter_prepare(&f, r) < 0)
		goto out;
	ret = cli_pipe(r, "-", "btf", 0, no_header, &f, &ro);
out:
	tk_reader_close(r);
	cli_filter_free(&f);
	return ret;
}
