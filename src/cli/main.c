/*
 * main.c - the tracekit command: a table of subcommands, one file each.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static const cli_cmd commands[] = {
	{ "info", cmd_info, "FILE",
	  "format, header, time span, counts of events, entities per type, cores" },
	{ "cat", cmd_cat, "FILE",
	  "events as canonical BTF text, with filters (time window, entity, type, event)" },
	{ "convert", cmd_convert, "IN OUT", "any readable format to any writable one" },
	{ "dataset", cmd_dataset, "DIR T...", "traces into a Parquet dataset for DuckDB and Spark" },
	{ "check", cmd_check, "FILE",
	  "state-machine validation; exit 0 clean, 1 violations, 2 unreadable" },
	{ "stats", cmd_stats, "FILE",
	  "timing metrics per task, ISR and runnable (IPT CET GET RT DT PER ST JIT PRE)" },
	{ "verify", cmd_verify, "TRACE...",
	  "timing requirements of a YAML file (-r) held; exit 0 hold, 1 fail (text, json, junit)" },
	{ "diff", cmd_diff, "BASE NEW",
	  "stats of two traces side by side; what worsened beyond --threshold, worst first" },
	{ "load", cmd_load, "FILE", "core load over the whole trace, per window and per entity" },
	{ "report", cmd_report, "FILE",
	  "one self-contained HTML page: timeline, metrics, histograms, load, problems" },
	{ "formats", cmd_formats, "", "the formats and what each supports" },
	{ "tarmac", cmd_tarmac, "TOOL IN",
	  "Arm Tarmac log tools: folded, calls (--elf); regs, mem, history at any moment; vcd" },
	{ "shark-receive", cmd_shark_receive, "FILE",
	  "receive a S.Ha.R.K. FTrace dump by UDP (udpdump); reports missing packets" },
	{ "record", cmd_record, "SOURCE",
	  "capture a recorder stream from stdin, a FIFO or a growing file, readable as it grows" },
	{ "live", cmd_live, "SOURCE",
	  "the report of a stream or a growing trace, served on a local port, updated live" },
	{ "shark", cmd_shark, "TOOL IN",
	  "a S.Ha.R.K. host tool's text from a dump's records (list, pwc)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The format commands' views in the generic ones (cli.h). */
const cli_view *const cli_views[] = {
	&cli_view_tarmac_info, &cli_view_tarmac_stats, &cli_view_tarmac_cat,
	&cli_view_tarmac_folded, &cli_view_shark_list, &cli_view_shark_pwc
};
const size_t cli_nviews = sizeof(cli_views) / sizeof(cli_views[0]);

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
		fprintf(fp, "  %-13s %-8s %s\n", commands[i].name, commands[i].args,
			commands[i].summary);
	fprintf(fp,
		"\n'tracekit <command> --help' shows a command's options.\n"
		"Exit status: 0 success, 1 the trace has problems, 2 usage error or\n"
		"unreadable input.\n");
}

/*
 * An interrupted run leaves no temporary output: the handler removes them
 * (async-signal-safe), and the signal, re-raised with its default action
 * (SA_RESETHAND) once the handler returns, ends the process as it would
 * have without it.  A signal ignored at start (nohup) stays ignored.
 */
static void on_fatal_signal(int sig)
{
	tk_temp_remove_all();
	raise(sig);
}

static void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/*
 * What a command printed on standard output must have arrived: a write
 * error (a full disk, /dev/full) is exit 2 with one line, as for any
 * output file.
 */
static int check_stdout(int ret)
{
	if (fflush(stdout) != 0)
		/* errno is this flush's */
		cli_msg("<stdout>: error: write failed: %s\n",
			strerror(errno));
	else if (ferror(stdout))
		/* an earlier write failed, for a reason no longer known */
		cli_msg("<stdout>: error: write failed\n");
	else
		return ret;
	return EXIT_BAD;
}

static int run(int argc, char **argv)
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
	cli_msg("tracekit: '%s' is not a command (see 'tracekit --help')\n",
		argv[1]);
	return EXIT_BAD;
}

/*
 * glibc's heap gives freed memory at its top back to the kernel at once
 * (above 128 KB), and asks for it again page by page: a command that
 * frees and makes its tables again (dataset: five Parquet tables an
 * input; a growing buffer moved by realloc) then faults in fresh, zeroed
 * pages all along.  The heap keeps 64 MB beyond what is in use instead
 * (grown and trimmed by that much), which only reserves address space:
 * the peak of memory in use is the same.
 */
static void heap_policy(void)
{
#if defined(__GLIBC__)
	(void)mallopt(M_TOP_PAD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
	heap_policy();
	catch_fatal_signals();
	return check_stdout(run(argc, argv));
}
