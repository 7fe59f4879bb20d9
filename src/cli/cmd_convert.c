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
		"is compressed (out.btf.gz: gzip-compressed BTF).  An OUT that is IN\n"
		"itself (through a link too) is an error: it would replace the input.\n\n"
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
		"  -h, --help          this help\n");
	cli_view_help(fp, "convert");
	fprintf(fp, "See 'tracekit formats' for the formats.\n");
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
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	const char *to = NULL, *out;
	cli_filter f;
	tk_reader *r = NULL;
	char wopts[512] = "";
	const char **idle = NULL, *fmt;
	size_t nidle = 0;
	int c, ret = EXIT_BAD, bad = 0, load_tracks;

	memset(&f, 0, sizeof(f));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		CLI_READ_CASES:
			bad |= cli_read_opt(&ro, "convert", c, optarg) < 0;
			break;
		case CLI_O_VIEW: break;   /* cli_getopt_other() */
		case O_TO: to = optarg; break;
		CLI_FILTER_CASES:
			bad |= cli_filter_opt(&f, c, optarg) < 0;
			break;
		case O_IDLE:
			bad |= cli_filter_add(&idle, &nidle, optarg);
			break;
		case O_OPTION:
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
	ret = EXIT_BAD;
	if (cli_out_is_in(args.v[0], out))
		goto out;
	/* an output of a format's own command (cli.h) */
	if ((ret = cli_view_run(argc, argv, &args, NULL, to, out)) >= 0)
		goto out;
	ret = EXIT_BAD;
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
	ro.filter = &f;
	if (cli_open(&r, args.v[0], &ro) < 0)
		goto out;
	if (cli_filter_prepare(&f, r) < 0)
		goto out;
	if (load_tracks)
		cli_idle_note(tk_reader_trace(r), nidle, &ro);
	ret = cli_pipe(r, args.v[0], out, to, ro.strict, 0, &ro,
		       wopts[0] ? wopts : NULL, nidle ? idle : NULL, nidle);
out:
	free(idle);
	tk_reader_close(r);
	cli_filter_free(&f);
	return ret;
}
