/*
 * cmd_tarmac.c - `tracekit tarmac SUBCOMMAND`: tools over the CPU-level
 * records of an Arm Tarmac log that give no trace of events (the generic
 * commands read Tarmac logs themselves: info, cat and stats show their
 * records, the others their ISR events): folded, calls.
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit tarmac folded [options] IN --elf FILE [-o OUT]\n"
		"       tracekit tarmac calls [options] IN --elf FILE [--function NAME]\n\n"
		"Tools over the records of an Arm Tarmac log (docs/tarmac.md).  info, cat\n"
		"and stats read Tarmac logs too.\n\n"
		"folded: the function profile of the log (the call stacks of the program\n"
		"in the ELF file) as folded stacks for flame graphs (flamegraph.pl,\n"
		"speedscope), one line per distinct stack: 'main;foo;bar 123'.  OUT is\n"
		"written under a temporary name and appears only when complete; an OUT\n"
		"named .gz or .zst is compressed; default standard output.\n\n"
		"calls: every call, one line each in the order they were made, indented by\n"
		"depth: the callee, how it was entered (call, tail call, exception, root),\n"
		"and as t:TIME l:LINE pc:ADDRESS the call site ('from': the BL or jump),\n"
		"the callee's first instruction ('entry'), its last ('exit': the return;\n"
		"'last' when it never returned) and where the caller went on ('back').\n"
		"--function NAME: only the calls of NAME, not indented.\n\n"
		"options:\n"
		"  --elf FILE          the program's ELF file (required)\n"
		"  --function NAME     calls: only the calls of this function\n"
		"  -o, --output OUT    where to write the stacks ('-': standard output)\n"
		"  --weight instructions|time\n"
		"                      what a stack's number counts (default instructions)\n"
		"  --load-offset OFF   the ELF was loaded OFF bytes above its link addresses\n"
		"                      ([-]0xHEX or [-]DECIMAL)\n"
		"  --from tarmac       read IN as a Tarmac log instead of probing it\n"
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

/* One getopt table for the family: the first operand names the tool. */
int cmd_tarmac(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, CLI_O_FROM },
		{ "strict", no_argument, NULL, CLI_O_STRICT },
		{ "elf", required_argument, NULL, CLI_O_ELF },
		{ "weight", required_argument, NULL, CLI_O_WEIGHT },
		{ "load-offset", required_argument, NULL, CLI_O_LOAD_OFFSET },
		{ "output", required_argument, NULL, 'o' },
		{ "function", required_argument, NULL, 'F' },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_tarmac_args ta;
	cli_args args = { { NULL }, 0 };
	const char *out = "-", *function = NULL;
	int c, ret = EXIT_BAD, bad = 0;

	cli_tarmac_args_init(&ta);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:qh", longopts, &args)) != -1) {
		switch (c) {
		case CLI_O_FROM:
		case CLI_O_STRICT:
			bad |= cli_read_opt(&ro, "tarmac", c, optarg) < 0;
			break;
		case CLI_O_ELF:
		case CLI_O_WEIGHT:
		case CLI_O_LOAD_OFFSET:
			bad |= cli_tarmac_opt(&ta, "tarmac", c, optarg) < 0;
			break;
		case 'o': out = optarg; break;
		case 'F': function = optarg; break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	if (bad)
		goto out;
	if (args.n < 1) {
		cli_usage_error("tarmac", "expected a tool (folded, calls) and IN");
		goto out;
	}
	if (strcmp(args.v[0], "folded") != 0 && strcmp(args.v[0], "calls") != 0) {
		cli_usage_error("tarmac", "unknown tool '%s' (folded, calls)", args.v[0]);
		goto out;
	}
	if (args.n != 2) {
		cli_usage_error("tarmac", "%s: expected one IN", args.v[0]);
		goto out;
	}
	if (args.v[0][0] == 'c') {
		if (strcmp(out, "-") != 0 || strcmp(ta.weight, "instructions") != 0) {
			cli_usage_error("tarmac", "calls: -o and --weight do not apply");
			goto out;
		}
		ret = cli_tarmac_calls(args.v[1], &ta, function, &ro);
		goto out;
	}
	if (function) {
		cli_usage_error("tarmac", "folded: --function does not apply");
		goto out;
	}
	ret = cli_tarmac_folded("tarmac", args.v[1], out, &ta, NULL, &ro);
out:
	cli_tarmac_args_free(&ta);
	return ret;
}
