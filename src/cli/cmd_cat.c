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
		"  -h, --help          this help\n\n"
		"For an Arm Tarmac log (probed, or --from tarmac) cat prints the lines of\n"
		"the records that pass every filter (--entity, --type, --event, --no-header,\n"
		"--trace and --input-option do not apply; docs/tarmac.md):\n"
		"  --start T, --end T  time window, in the log's own unit (inclusive)\n"
		"  --pc LO[-HI]        instructions at these addresses (hex)\n"
		"  --mnemonic NAME     instructions with this mnemonic (any case; repeatable)\n"
		"  --register NAME     writes of this register (any case; repeatable)\n"
		"  --addr LO[-HI]      memory and bus accesses in this range (hex)\n"
		"  --kind KIND         instruction, register, event, memory, bus, branch,\n"
		"                      other (repeatable)\n"
		"  --cpu NAME          lines with this CPU prefix\n");
}

enum { O_NOHDR = 256 };

int cmd_cat(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_FILTER_LONGOPTS,
		{ "no-header", no_argument, NULL, O_NOHDR },
		CLI_READ_LONGOPTS,
		{ "pc", required_argument, NULL, CLI_O_PC },
		{ "mnemonic", required_argument, NULL, CLI_O_MNEMONIC },
		{ "register", required_argument, NULL, CLI_O_REGISTER },
		{ "addr", required_argument, NULL, CLI_O_ADDR },
		{ "kind", required_argument, NULL, CLI_O_KIND },
		{ "cpu", required_argument, NULL, CLI_O_CPU },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_tarmac_args ta;
	cli_args args = { { NULL }, 0 };
	const char *ev_only = NULL;   /* the first event-view option given */
	cli_filter f;
	tk_input *in = NULL;
	tk_reader *r = NULL;
	int c, no_header = 0, ret = EXIT_BAD, bad = 0;

	memset(&f, 0, sizeof(f));
	cli_tarmac_args_init(&ta);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		CLI_FILTER_CASES:
			bad |= cli_filter_opt(&f, c, optarg) < 0;
			/* the time window applies to the records too */
			if (!ev_only && c != CLI_O_START && c != CLI_O_END)
				ev_only = c == CLI_O_ENTITY ? "--entity"
					  : c == CLI_O_TYPE ? "--type" : "--event";
			break;
		case O_NOHDR:
			no_header = 1;
			ev_only = ev_only ? ev_only : "--no-header";
			break;
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "cat", c, optarg) < 0;
			break;
		CLI_TARMAC_CASES:
			bad |= cli_tarmac_opt(&ta, "cat", c, optarg) < 0;
			break;
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
	/* FILE opened once: its probe picks the view */
	if (cli_input(&in, args.v[0], &ro) < 0)
		goto out;
	if (cli_input_is_tarmac(in)) {
		if (cli_tarmac_refuse("cat", ev_only, &ro, args.v[0]) < 0)
			goto out;
		ret = cli_tarmac_cat(in, &ta, f.start_s, f.end_s, &ro);
		in = NULL;
		goto out;
	}
	if (cli_tarmac_none(&ta, "cat", args.v[0], in) < 0)
		goto out;
	c = cli_open_input(&r, in, &ro);
	in = NULL;
	if (c < 0)
		goto out;
	if (cli_filter_prepare(&f, r) < 0)
		goto out;
	/* the events as read: no spelling mapped, nothing dropped */
	ret = cli_pipe(r, "-", "btf", 0, no_header, &f, &ro, "as-read=1", NULL, 0);
out:
	tk_input_close(in);
	tk_reader_close(r);
	cli_filter_free(&f);
	cli_tarmac_args_free(&ta);
	return ret;
}
