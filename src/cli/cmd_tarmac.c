/*
 * cmd_tarmac.c - `tracekit tarmac SUBCOMMAND`: tools over the CPU-level
 * records of an Arm Tarmac log that give no trace of events (the generic
 * commands read Tarmac logs themselves: info, cat and stats show their
 * records, the others their ISR events): folded, calls, and the state at a
 * moment: regs, mem, history.
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit tarmac folded [options] IN --elf FILE [-o OUT]\n"
		"       tracekit tarmac calls [options] IN --elf FILE [--function NAME]\n"
		"       tracekit tarmac regs [options] IN [--line N | --time T | --instr K]...\n"
		"       tracekit tarmac mem [options] IN ADDR [LEN] [--line N | --time T | --instr K]...\n"
		"       tracekit tarmac history [options] IN (--reg NAME | --addr ADDR [--len L])\n"
		"       tracekit tarmac vcd [options] IN OUT.vcd [--elf FILE]\n\n"
		"Tools over the records of an Arm Tarmac log (docs/tarmac.md).  info, cat\n"
		"and stats read Tarmac logs too.\n\n"
		"folded: the function profile of the log (the call stacks of the program\n"
		"in the ELF file) as folded stacks for flame graphs (flamegraph.pl,\n"
		"speedscope), one line per distinct stack: 'main;foo;bar 123'.  OUT is\n"
		"written under a temporary name and appears only when complete; an OUT\n"
		"named .gz or .zst is compressed; default standard output.  An OUT that\n"
		"is IN or the ELF file (through a link too) is an error.\n\n"
		"calls: every call, one line each in the order they were made, indented by\n"
		"depth: the callee, how it was entered (call, tail call, exception, root),\n"
		"and as t:TIME l:LINE pc:ADDRESS the call site ('from': the BL or jump),\n"
		"the callee's first instruction ('entry'), its last ('exit': the return;\n"
		"'last' when it never returned) and where the caller went on ('back').\n"
		"--function NAME: only the calls of NAME, not indented.\n\n"
		"regs: every register the log has shown by the moment (default: the end),\n"
		"one per line as 'NAME 0xVALUE' (the name as the log writes it, the value\n"
		"in lower-case hex at the width the log writes, '-' for digits it marked\n"
		"as not known); a register the log never wrote is not listed.\n"
		"mem: the bytes at ADDR (hexadecimal; LEN bytes, default 1, at most 65536)\n"
		"that the log's memory accesses (reads and writes, LD/ST lanes) have shown\n"
		"by the moment, 16 a line, '..' for a byte never seen.\n"
		"regs, mem at several moments (--line, --time, --instr repeated or mixed;\n"
		"IN a file): each answered in the order given, as its own run answers it,\n"
		"after a line '@ OPTION VALUE' that names it as given ('@ --line 120',\n"
		"'@ --time 20us'); a moment that has no answer (past the end) fails the\n"
		"run with its error and nothing on standard output.\n"
		"history: every change of a register (--reg: names as cat --register\n"
		"matches them) or of the bytes from ADDR (--len L, default 1), one line\n"
		"each: 't:TIME l:LINE pc:PC' (the last instruction of the CPU), then the\n"
		"register or the access, old -> new ('unknown' or '..' where not known).\n"
		"No change to show (a register never written, a name mistyped): a line\n"
		"on stderr says so, exit status 1.\n"
		"vcd: the registers (those written in hex) and the PC of each CPU as VCD\n"
		"variables over the log's time (one scope per CPU), for GTKWave; with\n"
		"--elf, 'func' (a string) names the function of the PC.  OUT appears\n"
		"only complete.\n\n"
		"regs, mem and history keep an index of a log file (not standard input,\n"
		"not compressed) of 16 spans or more, built at the first query and again\n"
		"when the log changes or the index is damaged: checkpoints of the state\n"
		"every span, from which a query reads the log (docs/tarmac.md, \"The index\").\n\n"

		"options:\n"
		"  --elf FILE          the program's ELF file (folded, calls: required)\n"
		"  --function NAME     calls: only the calls of this function\n"
		"  -o, --output OUT    where to write the stacks ('-': standard output)\n"
		"  --weight instructions|time\n"
		"                      what a stack's number counts (default instructions)\n"
		"  --load-offset OFF   the ELF was loaded OFF bytes above its link addresses\n"
		"                      ([-]0xHEX or [-]DECIMAL)\n"
		"  --line N            regs, mem: after the record on line N (--line,\n"
		"                      --time and --instr repeatable: several moments)\n"
		"  --time T            regs, mem: after the records stamped up to T (in the\n"
		"                      log's unit, or with one: 2500ns, 40clk)\n"
		"  --instr K           regs, mem: after the K-th executed instruction\n"
		"  --cpu NAME          regs, mem, history: the registers (and --instr's\n"
		"                      count) of this CPU prefix; required by regs when\n"
		"                      several CPUs wrote registers\n"
		"  --reg NAME          history: the changes of this register\n"
		"  --addr ADDR         history: the changes of the bytes from ADDR\n"
		"  --len L             history: L bytes from ADDR (default 1)\n"
		"  --format table|json regs: the output's form (default table)\n"
		"  --index-dir DIR     regs, mem, history: keep the log's index in DIR\n"
		"                      (default: beside the log, as IN.tkidx)\n"
		"  --no-index          regs, mem, history: read the log from its start,\n"
		"                      no index read or written\n"
		"  --index-span BYTES  regs, mem, history: bytes of log between two\n"
		"                      checkpoints of the index (default 262144); a log\n"
		"                      shorter than 16 spans is read without an index\n"
		"  --big-endian        mem, history --addr: the data side is big-endian\n"
		"                      (BE8): a value's most significant byte is at its\n"
		"                      address (default: as the AArch32 CPSR's E bit\n"
		"                      says, else little-endian)\n"
		"  --little-endian     mem, history --addr: little-endian, whatever the\n"
		"                      CPSR's E bit says\n"
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
		{ "cpu", required_argument, NULL, CLI_O_CPU },
		{ "line", required_argument, NULL, CLI_O_AT_LINE },
		{ "time", required_argument, NULL, CLI_O_AT_TIME },
		{ "instr", required_argument, NULL, CLI_O_AT_INSTR },
		{ "reg", required_argument, NULL, CLI_O_REG },
		{ "addr", required_argument, NULL, CLI_O_HADDR },
		{ "len", required_argument, NULL, CLI_O_LEN },
		{ "format", required_argument, NULL, CLI_O_SFORMAT },
		{ "index-dir", required_argument, NULL, CLI_O_INDEX_DIR },
		{ "no-index", no_argument, NULL, CLI_O_NO_INDEX },
		{ "index-span", required_argument, NULL, CLI_O_INDEX_SPAN },
		{ "big-endian", no_argument, NULL, CLI_O_BIG_ENDIAN },
		{ "little-endian", no_argument, NULL, CLI_O_LITTLE_ENDIAN },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_tarmac_args ta;
	cli_state_args sa;
	int state_opt = 0;
	cli_args args = { { NULL }, 0 };
	const char *out = "-", *function = NULL;
	int c, ret = EXIT_BAD, bad = 0;

	cli_tarmac_args_init(&ta);
	cli_state_args_init(&sa);
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
		case CLI_O_CPU:
			ta.cpu = optarg;
			state_opt = 1;
			break;
		case CLI_O_AT_LINE:
		case CLI_O_AT_TIME:
		case CLI_O_AT_INSTR:
		case CLI_O_REG:
		case CLI_O_HADDR:
		case CLI_O_LEN:
		case CLI_O_SFORMAT:
		case CLI_O_INDEX_DIR:
		case CLI_O_NO_INDEX:
		case CLI_O_INDEX_SPAN:
		case CLI_O_BIG_ENDIAN:
		case CLI_O_LITTLE_ENDIAN:
			bad |= cli_state_opt(&sa, c, optarg) < 0;
			state_opt = 1;
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
		cli_usage_error("tarmac", "expected a tool (folded, calls, regs, mem, history, vcd) and IN");
		goto out;
	}
	if (strcmp(args.v[0], "vcd") == 0) {
		if (args.n != 3) {
			cli_usage_error("tarmac", "vcd: expected IN OUT");
			goto out;
		}
		if (state_opt || function || (out && strcmp(out, "-") != 0) ||
		    strcmp(ta.weight, "instructions") != 0 || ta.load_offset) {
			cli_usage_error("tarmac", "vcd: only --from, --strict and -q apply");
			goto out;
		}
		if (cli_out_is_in(args.v[1], args.v[2]) ||
		    cli_out_is_file(ta.elf, "ELF file (--elf)", args.v[2]))
			goto out;
		ret = cli_tarmac_vcd(args.v[1], args.v[2], &ta, &ro);
		goto out;
	}
	if (strcmp(args.v[0], "regs") == 0 || strcmp(args.v[0], "mem") == 0 ||
	    strcmp(args.v[0], "history") == 0) {
		if (args.n < 2 || args.n > 16) {
			cli_usage_error("tarmac", "%s: expected IN", args.v[0]);
			goto out;
		}
		if (ta.elf || function || (out && strcmp(out, "-") != 0) ||
		    strcmp(ta.weight, "instructions") != 0 || ta.load_offset) {
			cli_usage_error("tarmac", "%s: --elf, --function, -o, --weight and "
					"--load-offset do not apply", args.v[0]);
			goto out;
		}
		ret = cli_tarmac_state(args.v[0], args.v[1], (const char *const *)args.v + 2,
				       (size_t)args.n - 2, &sa, &ta, &ro);
		goto out;
	}
	if (strcmp(args.v[0], "folded") != 0 && strcmp(args.v[0], "calls") != 0) {
		cli_usage_error("tarmac", "unknown tool '%s' (folded, calls, regs, mem, history, vcd)",
				args.v[0]);
		goto out;
	}
	if (state_opt) {
		cli_usage_error("tarmac", "%s: --cpu, --line, --time, --instr, --reg, --addr, "
				"--len, --format and the --index options are options of regs, "
				"mem and history",
				args.v[0]);
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
	if (cli_out_is_in(args.v[1], out))
		goto out;
	ret = cli_tarmac_folded("tarmac", args.v[1], out, &ta, NULL, &ro);
out:
	cli_tarmac_args_free(&ta);
	cli_state_args_free(&sa);
	return ret;
}
