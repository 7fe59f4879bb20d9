/* cli.h - what the subcommands of the tracekit command share. */
#ifndef TK_CLI_H
#define TK_CLI_H

#include "tracekit/tracekit.h"

#include <stdint.h>
#include <stdio.h>

/* exit codes (DESIGN.md) */
enum { EXIT_OK = 0, EXIT_PROBLEMS = 1, EXIT_BAD = 2 };

typedef struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args;
	const char *summary;
} cli_cmd;

int cmd_info(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_shark_receive(int argc, char **argv);

/* Options every reading command takes. */
typedef struct cli_read_opts {
	const char *from;
	int strict;
	int quiet;
	/* the reader's format-specific options (tk_reader_opts.options) from
	 * --input-option KEY=VALUE and --trace N, comma-joined */
	char options[512];
	/* --threads, when given (threads_set; zero-initialised options take
	 * the reader's default): tk_reader_opts.threads, 0, 1 or -1 (auto) */
	int threads_set;
	int threads;
} cli_read_opts;

/* Options not given: the reader's defaults. */
#define CLI_READ_OPTS_INIT { NULL, 0, 0, "", 0, 0 }

/*
 * The reader options every reading command takes besides -q: put
 * CLI_READ_LONGOPTS in the getopt_long table, hand the codes
 * (CLI_READ_CASES) to cli_read_opt(), and print CLI_READ_HELP in the
 * help (--from and --strict each command's help lists itself).
 */
enum { CLI_O_FROM = 0x4000, CLI_O_STRICT, CLI_O_TRACE, CLI_O_INPUT_OPTION,
       CLI_O_THREADS };
#define CLI_READ_LONGOPTS \
	{ "from", required_argument, NULL, CLI_O_FROM }, \
	{ "strict", no_argument, NULL, CLI_O_STRICT }, \
	{ "trace", required_argument, NULL, CLI_O_TRACE }, \
	{ "input-option", required_argument, NULL, CLI_O_INPUT_OPTION }, \
	{ "threads", required_argument, NULL, CLI_O_THREADS }
#define CLI_READ_CASES \
	case CLI_O_FROM: case CLI_O_STRICT: case CLI_O_TRACE: \
	case CLI_O_INPUT_OPTION: case CLI_O_THREADS
#define CLI_READ_HELP \
	"  --trace N           ATF: read only the N-th TraceData (1-based; default\n" \
	"                      all of them, one after the other)\n" \
	"  --input-option KEY=VALUE\n" \
	"                      an option of the input format's reader (repeatable);\n" \
	"                      ATF: trace=N, time-digits=D (see docs/atf.md)\n" \
	"  --threads 0|1|auto  decode on a second thread (HTF, S.Ha.R.K.): never,\n" \
	"                      always, or for inputs of 8 MiB or more on a machine\n" \
	"                      with 2+ CPUs (auto, the default); same output\n"
/** Handle an option of CLI_READ_CASES (arg: its argument, NULL for
 * --strict): 0, or -1 after a usage error. */
int cli_read_opt(cli_read_opts *o, const char *cmd, int code, const char *arg);

/** Print "tracekit: error: ..." (or the error's position form) to stderr. */
void cli_error(const tk_error *err);
void cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Open a reader, printing warnings to stderr unless quiet. */
int cli_open(tk_reader **r, const char *path, const cli_read_opts *o);
/** After reading: a line with the number of warnings, if any were hidden. */
void cli_warning_summary(tk_reader *r, const cli_read_opts *o);

/** Event filters of `cat` and `convert`. */
typedef struct cli_filter {
	const char *start_s, *end_s;
	uint64_t start, end;      /* in trace ticks, inclusive */
	int has_start, has_end;
	const char **entities, **types, **events;
	size_t nentities, ntypes, nevents;
	uint32_t *entity_ids;     /* resolved lazily: names are found as read */
} cli_filter;

int cli_filter_add(const char ***list, size_t *n, const char *value);
/** Resolve --start/--end against the trace's time base. */
int cli_filter_prepare(cli_filter *f, tk_reader *r);
int cli_filter_match(const cli_filter *f, const tk_trace *t, const tk_event *ev);
void cli_filter_free(cli_filter *f);

/** Copy events from r through f into a writer on out; 0 or 2. */
int cli_pipe(tk_reader *r, const char *out, const char *to, int strict,
	     int no_header, const cli_filter *f, const cli_read_opts *ro);
/** As cli_pipe(), with the writer's format-specific options (or NULL). */
int cli_pipe_ex(tk_reader *r, const char *out, const char *to, int strict,
		int no_header, const cli_filter *f, const cli_read_opts *ro,
		const char *writer_options);

/* JSON string output with escapes */
void cli_json_str(FILE *fp, const char *s, size_t n);

/* A hash map from 64-bit keys to 64-bit counters. */
typedef struct cli_map {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t cap, count;
} cli_map;

int cli_map_add(cli_map *m, uint64_t key, uint64_t delta);
void cli_map_free(cli_map *m);

/*
 * Arm Tarmac input (tarmac_cli.c).  cli_tarmac_wants() tells whether a
 * command's FILE (its last argument) is a Tarmac log: --from tarmac, or a
 * probe of the content.  The others take the command's own argc/argv
 * (argv[0] is the command name) and return an exit status.
 */
int cli_tarmac_wants(int argc, char **argv);
int cli_tarmac_info(int argc, char **argv);
int cli_tarmac_cat(int argc, char **argv);
int cli_tarmac_stats(int argc, char **argv);
/* `convert LOG OUT.folded --elf FILE` (or --to folded): folded stacks */
int cli_tarmac_folded_wants(int argc, char **argv);
int cli_tarmac_convert(int argc, char **argv);

#endif
