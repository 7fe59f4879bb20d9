/*
 * cmd_shark.c - `tracekit shark list|pwc IN [-o OUT]`: the text of the
 * S.Ha.R.K. host tools `list` and `pwcet_gen` from a dump's records
 * (include/tracekit/shark.h), byte for byte; and their old spellings,
 * `convert --to shark-list|shark-pwc` or OUT named .list / .pwc (a view of
 * convert, cli.h).
 */
#include "cli.h"
#include "tracekit/shark.h"

#include <getopt.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit shark list|pwc [options] IN\n\n"
		"The text of a S.Ha.R.K. host tool, made from the 16-byte records of the\n"
		"FTrace dump IN in file order, byte for byte:\n"
		"  list   the `list` tool: every record, empty slots included\n"
		"  pwc    the `pwcet_gen` tool: the significant events\n"
		"IN is read as a dump whatever its content ('-' is standard input; gzip\n"
		"and zstd are decoded); bytes after the last whole record are ignored.\n\n"
		"options:\n"
		"  -o, --output OUT    write OUT instead of standard output (under a\n"
		"                      temporary name, renamed once complete; an OUT\n"
		"                      named .gz or .zst is compressed)\n"
		"  -h, --help          this help\n");
}

/* the host tool's text ("list" or "pwc") from the records of `in` (closed) */
static int shark_tool(const char *tool, tk_input *in, const char *out)
{
	tk_error err;

	tk_error_clear(&err);
	if (tk_shark_tool_write(in, strcmp(tool, "list") == 0 ? TK_SHARK_LIST
							       : TK_SHARK_PWC,
				out, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	return EXIT_OK;
}

/* `convert IN OUT --to shark-pwc` (or OUT.pwc), the old way */
static int convert_view(const cli_view *v, int argc, char **argv, tk_input *in)
{
	static const struct option longopts[] = {
		CLI_READ_LONGOPTS,
		CLI_FILTER_LONGOPTS,
		{ "to", required_argument, NULL, CLI_O_SKIP },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args a = { { NULL }, 0 };
	const char *tool = v->ext;
	int c, filter = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &a)) != -1) {
		if (c == CLI_O_FROM || c == CLI_O_STRICT || c == CLI_O_TRACE ||
		    c == CLI_O_INPUT_OPTION || c == CLI_O_FORCE_FORMAT)
			cli_read_opt(&ro, "convert", c, optarg);
		else if (c == 'q')
			ro.quiet = 1;
		else if (c >= CLI_O_START && c <= CLI_O_EVENT)
			filter = 1;
	}
	if (filter) {
		cli_usage_error("convert",
				"shark-%s writes every record of the dump, as the S.Ha.R.K. tool does: --start/--end/--entity/--type/--event do not apply",
				tool);
		return EXIT_BAD;
	}
	if (cli_getopt_other()) {
		cli_usage_error("convert", "shark-%s takes no %s", tool, cli_getopt_other());
		return EXIT_BAD;
	}
	if (cli_input(&in, a.v[0], &ro) < 0)
		return EXIT_BAD;
	if (strcmp(tk_input_format(in)->name, "shark") != 0) {
		fprintf(stderr, "%s: error: shark-%s reproduces a S.Ha.R.K. tool from the records of a shark dump: the input must be read as shark\n",
			a.v[1], tool);
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (!ro.quiet)
		fprintf(stderr, "tracekit convert: note: --to shark-%s is deprecated: use 'tracekit shark %s IN -o OUT'\n",
			tool, tool);
	return shark_tool(tool, in, a.v[1]);
}

const cli_view cli_view_shark_list = {
	"convert", NULL, "shark-list", "list", NULL, NULL, NULL, convert_view
};
const cli_view cli_view_shark_pwc = {
	"convert", NULL, "shark-pwc", "pwc", NULL, NULL, NULL, convert_view
};

int cmd_shark(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cli_args args = { { NULL }, 0 };
	const char *out = "-";
	tk_input *in = NULL;
	tk_reader_opts ro;
	tk_error err;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:h", longopts, &args)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 2) {
		cli_usage_error("shark", "expected a tool (list or pwc) and IN");
		return EXIT_BAD;
	}
	if (strcmp(args.v[0], "list") != 0 && strcmp(args.v[0], "pwc") != 0) {
		cli_usage_error("shark", "unknown tool '%s' (list or pwc)", args.v[0]);
		return EXIT_BAD;
	}
	/* whatever its content, as the S.Ha.R.K. tools read it */
	tk_reader_opts_init(&ro);
	ro.format = "shark";
	ro.force_format = 1;
	tk_error_clear(&err);
	if (tk_input_open_opts(&in, args.v[1], &ro, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	return shark_tool(args.v[0], in, out);
}
