/*
 * main.c - the tracekit command: a table of subcommands, one file each.
 */
#include "cli.h"

#include <string.h>

static const cli_cmd commands[] = {
	{ "info", cmd_info, "FILE",
	  "format, header, time span, counts of events, entities per type, cores" },
	{ "cat", cmd_cat, "FILE",
	  "events as canonical BTF text, with filters (time window, entity, type, event)" },
	{ "convert", cmd_convert, "IN OUT", "any readable format to any writable one" },
	{ "check", cmd_check, "FILE",
	  "state-machine validation; exit 0 clean, 1 violations, 2 unreadable" },
	{ "stats", cmd_stats, "FILE",
	  "timing metrics per task, ISR and runnable (IPT CET GET RT DT PER ST JIT PRE)" },
	{ "load", cmd_load, "FILE", "core load over the whole trace, per window and per entity" },
	{ "report", cmd_report, "FILE",
	  "one self-contained HTML page: timeline, metrics, histograms, load, problems" },
	{ "formats", cmd_formats, "", "the formats and what each supports" },
	{ "shark-receive", cmd_shark_receive, "FILE",
	  "receive a S.Ha.R.K. FTrace dump by UDP (udpdump); reports missing packets" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"usage: tracekit <command> [options] FILE...\n"
		"       tracekit --help | --version\n\n"
		"Reads, checks, converts and measures the timing traces of embedded\n"
		"real-time systems.  '-' reads standard input / writes standard output.\n\n"
		"commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-13s %-7s %s\n", commands[i].name, commands[i].args,
			commands[i].summary);
	fprintf(fp,
		"\n'tracekit <command> --help' shows a command's options.\n"
		"Exit status: 0 success, 1 the trace has problems, 2 usage error or\n"
		"unreadable input.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_BAD;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("tracekit %s\n", tk_version());
		return EXIT_OK;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "tracekit: '%s' is not a command (see 'tracekit --help')\n",
		argv[1]);
	return EXIT_BAD;
}
