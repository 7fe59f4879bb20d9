/* cmd_formats.c - `tracekit formats`: the format registry as a table, or
 * as CSV or JSON for scripts (the tests and the benchmarks take their
 * lists of formats from it). */
#include "cli.h"

#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit formats [--format text|csv|json]\n\n"
		"Lists the formats this build reads and writes.\n\n"
		"options:\n"
		"      --format F      text (default), csv or json: one row per format\n"
		"                      with name, read, write, stream (the output\n"
		"                      can go to standard output and be compressed),\n"
		"                      extensions and description\n"
		"  -h, --help          this help\n");
}

static const char *yes(unsigned caps, unsigned cap)
{
	return caps & cap ? "yes" : "no";
}

static void print_text(void)
{
	const char *sep = "";
	size_t i;

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
	       "Output named .gz or .zst is compressed (except ");
	for (i = 0; i < tk_format_count(); i++) {
		const tk_format_info *f = tk_format_get(i);
		if ((f->caps & TK_CAP_WRITE) && !(f->caps & TK_CAP_STREAM)) {
			printf("%s%s", sep, f->name);
			sep = " and ";
		}
	}
	printf(").\n");
}

static void print_rows(int json)
{
	size_t i;

	if (json)
		printf("[");
	else
		printf("format,read,write,stream,extensions,description\n");
	for (i = 0; i < tk_format_count(); i++) {
		const tk_format_info *f = tk_format_get(i);
		if (!json) {
			printf("%s,%s,%s,%s,", f->name, yes(f->caps, TK_CAP_READ),
			       yes(f->caps, TK_CAP_WRITE),
			       yes(f->caps, TK_CAP_STREAM));
			cli_csv_field(stdout, f->extensions,
				      strlen(f->extensions));
			putchar(',');
			cli_csv_field(stdout, f->description,
				      strlen(f->description));
			putchar('\n');
			continue;
		}
		printf("%s\n  {\"format\": ", i ? "," : "");
		cli_json_cstr(stdout, f->name);
		printf(", \"read\": %s, \"write\": %s, \"stream\": %s, "
		       "\"extensions\": ",
		       f->caps & TK_CAP_READ ? "true" : "false",
		       f->caps & TK_CAP_WRITE ? "true" : "false",
		       f->caps & TK_CAP_STREAM ? "true" : "false");
		cli_json_cstr(stdout, f->extensions);
		printf(", \"description\": ");
		cli_json_cstr(stdout, f->description);
		printf("}");
	}
	if (json)
		printf("\n]\n");
}

int cmd_formats(int argc, char **argv)
{
	enum { O_FORMAT = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ NULL, 0, NULL, 0 }
	};
	cli_args args = { { NULL }, 0 };
	const char *form = "text";
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", longopts, &args)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case O_FORMAT: form = optarg; break;
		default: return EXIT_BAD;
		}
	}
	if (args.n) {
		cli_usage_error("formats", "takes no arguments");
		return EXIT_BAD;
	}
	if (!strcmp(form, "text"))
		print_text();
	else if (!strcmp(form, "csv") || !strcmp(form, "json"))
		print_rows(!strcmp(form, "json"));
	else {
		cli_usage_error("formats", "unknown --format '%s' (text, csv or json)",
				form);
		return EXIT_BAD;
	}
	return EXIT_OK;
}
