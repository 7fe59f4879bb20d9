/* cmd_formats.c - `tracekit formats`: the format registry as a table. */
#include "cli.h"

#include <string.h>

int cmd_formats(int argc, char **argv)
{
	size_t i;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: tracekit formats\n\nLists the formats this build reads and writes.\n");
		return EXIT_OK;
	}
	if (argc > 1) {
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
