/* cmd_convert.c - `tracekit convert IN OUT`: any readable format to any
 * writable one; the output appears only when the whole input was read. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit convert [options] IN OUT\n\n"
		"Converts a trace.  The input format is probed from the content (or its\n"
		"name); the output format comes from OUT's extension or --to.  '-' is\n"
		"standard input / output.  OUT is written under a temporary name and\n"
		"appears only if the whole conversion succeeds; an OUT named .gz or .zst\n"
		"is compressed (out.btf.gz: gzip-compressed BTF).\n\n"
		"options:\n"
		"  --from FORMAT       input format\n"
		CLI_READ_HELP
		"  --to FORMAT         output format: a name or an extension (json, db);\n"
		"                      with .gz or .zst (btf.gz) OUT must be named so too\n"
		"                      (OUT's name compresses; standard output never is)\n"
		"  --strict            read by the specification only, and refuse to drop\n"
		"                      what the output format cannot hold\n"
		"  --start/--end/--entity/--type/--event   the filters of 'tracekit cat'\n"
		"  --option KEY=VALUE  an option of the output format's writer (repeatable);\n"
		"                      HTF: timestamp-length, entity-length, event-length =\n"
		"                      1|2|4|8 (--input-option is the reader's counterpart)\n"
		"  --idle PATTERN      Perfetto and VCD: a process whose name matches the\n"
		"                      glob PATTERN (*, ?) is idle: its time on a core is\n"
		"                      idle time (counter idle CORE, idle_permille), not\n"
		"                      load (repeatable; default: IDLE* for the FreeRTOS\n"
		"                      trace logger's tasks, the name after their [c/id]\n"
		"                      or (id) prefix, else none; as 'tracekit load')\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n"
		"An Arm Tarmac log converts to folded stacks for flame graphs with\n"
		"--to folded (or OUT.folded); the filters, --option, --trace and\n"
		"--input-option do not apply to them (docs/tarmac.md):\n"
		"  --elf FILE          the program's ELF file (required for folded stacks)\n"
		"  --weight instructions|time\n"
		"                      what a stack's number counts (default instructions)\n"
		"(--to folded is deprecated: 'tracekit tarmac folded IN --elf FILE -o OUT'\n"
		"makes them)\n"
		"See 'tracekit formats' for the formats.\n");
}

/*
 * The S.Ha.R.K. host tools' old spellings, --to shark-list / shark-pwc or
 * OUT named .list / .pwc (through .gz or .zst): "list", "pwc" or NULL.
 * They go to `tracekit shark` (cmd_shark.c).
 */
static const char *shark_tool(const char *to, const char *out)
{
	size_t n = strlen(out);

	if (to)
		return strcasecmp(to, "shark-list") == 0 ? "list"
		       : strcasecmp(to, "shark-pwc") == 0 ? "pwc" : NULL;
	if (n > 3 && strcasecmp(out + n - 3, ".gz") == 0)
		n -= 3;
	else if (n > 4 && strcasecmp(out + n - 4, ".zst") == 0)
		n -= 4;
	if (n > 5 && strncasecmp(out + n - 5, ".list", 5) == 0)
		return "list";
	if (n > 4 && strncasecmp(out + n - 4, ".pwc", 4) == 0)
		return "pwc";
	return NULL;
}

/* IN to a host tool's text on OUT, the old way (convert --to shark-pwc) */
static int shark_convert(const char *tool, const char *path, const char *out,
			 const cli_filter *f, const char *ev_only,
			 const cli_read_opts *ro)
{
	tk_input *in = NULL;

	if (f->given) {
		cli_usage_error("convert",
				"shark-%s writes every record of the dump, as the S.Ha.R.K. tool does: --start/--end/--entity/--type/--event do not apply",
				tool);
		return EXIT_BAD;
	}
	if (ev_only) {
		cli_usage_error("convert", "shark-%s takes no %s", tool, ev_only);
		return EXIT_BAD;
	}
	if (cli_input(&in, path, ro) < 0)
		return EXIT_BAD;
	if (strcmp(tk_input_format(in)->name, "shark") != 0) {
		fprintf(stderr, "%s: error: shark-%s reproduces a S.Ha.R.K. tool from the records of a shark dump: the input must be read as shark\n",
			out, tool);
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (!ro->quiet)
		fprintf(stderr, "tracekit convert: note: --to shark-%s is deprecated: use 'tracekit shark %s IN -o OUT'\n",
			tool, tool);
	return cli_shark_tool(tool, in, out);
}

/* ".gz" or ".zst" when s ends in it (ASCII case ignored), else NULL */
static const char *zsuffix(const char *s)
{
	size_t n = strlen(s);

	if (n > 3 && strcasecmp(s + n - 3, ".gz") == 0)
		return ".gz";
	if (n > 4 && strcasecmp(s + n - 4, ".zst") == 0)
		return ".zst";
	return NULL;
}

enum { O_TO = 256, O_OPTION, O_IDLE };

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_READ_LONGOPTS,
		{ "to", required_argument, NULL, O_TO },
		CLI_FILTER_LONGOPTS,
		{ "option", required_argument, NULL, O_OPTION },
		{ "idle", required_argument, NULL, O_IDLE },
		{ "elf", required_argument, NULL, CLI_O_ELF },
		{ "weight", required_argument, NULL, CLI_O_WEIGHT },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_tarmac_args ta;
	cli_args args = { { NULL }, 0 };
	const char *to = NULL, *out, *ev_only = NULL;
	cli_filter f;
	tk_reader *r = NULL;
	char wopts[512] = "";
	const char **idle = NULL, *fmt;
	size_t nidle = 0;
	int c, ret = EXIT_BAD, bad = 0, load_tracks;

	memset(&f, 0, sizeof(f));
	cli_tarmac_args_init(&ta);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "convert", c, optarg) < 0;
			break;
		CLI_TARMAC_CASES:
			bad |= cli_tarmac_opt(&ta, "convert", c, optarg) < 0;
			break;
		case O_TO: to = optarg; break;
		CLI_FILTER_CASES:
			bad |= cli_filter_opt(&f, c, optarg) < 0;
			ev_only = ev_only ? ev_only : f.given;
			break;
		case O_IDLE:
			bad |= cli_filter_add(&idle, &nidle, optarg);
			break;
		case O_OPTION:
			ev_only = ev_only ? ev_only : "--option";
			if (strlen(wopts) + strlen(optarg) + 2 > sizeof(wopts) ||
			    strchr(optarg, ',')) {
				cli_usage_error("convert", "bad --option '%s'", optarg);
				bad = 1;
				break;
			}
			{
				size_t n = strlen(wopts);
				snprintf(wopts + n, sizeof(wopts) - n, "%s%s",
					 n ? "," : "", optarg);
			}
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	if (bad)
		goto out;
	if (args.n != 2) {
		cli_usage_error("convert", "expected IN and OUT");
		goto out;
	}
	out = args.v[1];
	/* folded stacks are no format: `tracekit tarmac folded` makes them,
	 * and this spelling stays for one release */
	if (to ? strcmp(to, "folded") == 0 : cli_tarmac_folded_path(out)) {
		if (!ro.quiet)
			fprintf(stderr, "tracekit convert: note: --to folded is deprecated: "
				"use 'tracekit tarmac folded IN --elf FILE -o OUT'\n");
		ret = cli_tarmac_folded("convert", args.v[0], out, &ta, ev_only, &ro);
		goto out;
	}
	if (ta.given) {
		cli_usage_error("convert", "--elf and --weight are for folded stacks "
				"(--to folded or OUT.folded)");
		goto out;
	}
	if (shark_tool(to, out)) {
		ret = shark_convert(shark_tool(to, out), args.v[0], out, &f, ev_only, &ro);
		goto out;
	}
	if (!to) {
		if (strcmp(out, "-") == 0) {
			cli_usage_error("convert", "writing to standard output needs --to FORMAT");
			goto out;
		}
		if (!tk_format_from_path(out)) {
			cli_usage_error("convert",
					"cannot tell the output format from '%s' (use --to FORMAT)",
					out);
			goto out;
		}
	} else if (!tk_format_find(to)) {
		/* an extension names its format too: --to json is perfetto */
		char x[64];
		const tk_format_info *fi = (size_t)snprintf(x, sizeof(x), "x.%s", to) < sizeof(x)
						   ? tk_format_from_path(x) : NULL;
		if (!fi) {
			cli_usage_error("convert", "unknown format '%s'", to);
			goto out;
		}
		/* --to btf.gz: the sink compresses by OUT's name, so the
		 * name must say it (it wrote plain BTF before) */
		if (zsuffix(to) && strcmp(out, "-") == 0) {
			cli_usage_error("convert", "--to '%s': standard output is never compressed "
					"(use --to %s and a pipe to %s)", to, fi->name,
					strcmp(zsuffix(to), ".gz") ? "zstd" : "gzip");
			goto out;
		}
		if (zsuffix(to) && (!zsuffix(out) ||
				    strcasecmp(zsuffix(to), zsuffix(out)) != 0)) {
			cli_usage_error("convert", "--to '%s' compresses, but OUT '%s' is not named %s "
					"(OUT's name decides the compression: name it %s%s, or use --to %s)",
					to, out, zsuffix(to), out, zsuffix(to), fi->name);
			goto out;
		}
		to = fi->name;
	}
	/* only the exports with core load tracks know idle processes */
	fmt = to ? to : tk_format_from_path(out)->name;
	load_tracks = strcasecmp(fmt, "perfetto") == 0 || strcasecmp(fmt, "vcd") == 0;
	if (nidle && !load_tracks) {
		cli_usage_error("convert", "--idle is for the exports with core load "
				"(perfetto, vcd), not %s", fmt);
		goto out;
	}
	if (cli_open(&r, args.v[0], &ro) < 0)
		goto out;
	if (cli_filter_prepare(&f, r) < 0)
		goto out;
	if (load_tracks)
		cli_idle_note(tk_reader_trace(r), nidle, &ro);
	ret = cli_pipe(r, out, to, ro.strict, 0, &f, &ro,
		       wopts[0] ? wopts : NULL, nidle ? idle : NULL, nidle);
out:
	free(idle);
	tk_reader_close(r);
	cli_filter_free(&f);
	cli_tarmac_args_free(&ta);
	return ret;
}
