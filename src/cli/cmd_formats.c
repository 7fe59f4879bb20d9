/* cmd_formats.c - `tracekit formats`: the format registry as a table. */
#include "cli.h"

#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit formats\n\n"
		"Lists the formats this build reads and writes.\n\n"
		"options:\n"
		"  -h, --help          this help\n");
}

int cmd_formats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cli_args args = { { NULL }, 0 };
	size_t i;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", longopts, &args)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n) {
		cli_usage_error("formats", "takes no arguments");
		return EXIT_BAD;
	}
	printf("%-10s %-5s %-5s %-12s %s\n", "format", "read", "write",
	       "extensions", "description");
	for (i = 0; i < tk_format_count(); i++) {
		const tk_format_info *f = tk_format_get(i);
		printf("%-10s %-5s %-5s %-12s %s\n", f->name,
		       f->caps & TK_CAP_READ ? "yes" : "-",
		       f->caps & TK_CAP_WRITE ? "yes" : "-", f->extensions,
		       f->description);
	}
	printf("\nInput may be gzip- or zstd-compressed (recognised by content).\n"
	       "Output named .gz or .zst is compressed (except ctf and sqlite).\n");
	return EXIT_OK;
}
