/* cli.h - what the subcommands of the tracekit command share. */
#ifndef TK_CLI_H
#define TK_CLI_H

#include "tracekit/tracekit.h"

#include <getopt.h>
#include <signal.h>
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
int cmd_dataset(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_shark_receive(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_shark(int argc, char **argv);
int cmd_tarmac(int argc, char **argv);

/*
 * Options and operands come in any order: cli_getopt() is getopt_long()
 * (its short options without the leading '-' of the in-order mode) that
 * collects the operands as it meets them, and the rest after "--", in
 * the order given, whatever POSIXLY_CORRECT says.  The command sets
 * optind = 1 before the first call; -1 when every argument is read.
 * Beside the table it is given, it takes the options of the command's
 * views, and in a view the command's, as CLI_O_VIEW (below).
 */
typedef struct cli_args {
	const char *v[16];   /* the first operands */
	int n;               /* all of them */
} cli_args;

/*
 * Views (cli_views[], main.c): a format's file serves a generic command
 * when its input is of `format` (cat of a Tarmac log), or convert's --to
 * is `to` or OUT is named .`ext` (.gz/.zst aside: folded stacks, the
 * S.Ha.R.K. tools), so that the command knows no format.  The command's
 * cli_getopt() takes the views' options as CLI_O_VIEW; run() parses argv
 * again with `longopts`, the command's options it lacks being CLI_O_VIEW.
 */
enum { CLI_O_VIEW = 0x4300, CLI_O_SKIP };  /* SKIP: the command's, seen */
typedef struct cli_view {
	const char *cmd, *format, *to, *ext;
	const char *only, *help;   /* what its options are for; its --help */
	const struct option *longopts;
	/* in: the input (the view's to close) of a view by format, else NULL */
	int (*run)(const struct cli_view *v, int argc, char **argv, tk_input *in);
} cli_view;
extern const cli_view *const cli_views[];
extern const size_t cli_nviews;
extern const cli_view cli_view_tarmac_info, cli_view_tarmac_stats,
	cli_view_tarmac_cat, cli_view_tarmac_folded, cli_view_shark_list,
	cli_view_shark_pwc;
/** Run the view of command argv[0] for *in (taken) or --to / OUT: its exit
 *  status; else EXIT_BAD after a usage error if an option of a view was
 *  given (cli_getopt_other()), else -1. */
int cli_view_run(int argc, char **argv, const cli_args *a, tk_input **in,
		 const char *to, const char *out);
/** The views' help texts of command `cmd`. */
void cli_view_help(FILE *fp, const char *cmd);

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, cli_args *a);
/** The first CLI_O_VIEW option of the last table parsed ("--elf"), or NULL. */
const char *cli_getopt_other(void);

/* Options every reading command takes. */
typedef struct cli_read_opts {
	const char *from;
	int strict;
	int quiet;
	/* --force-format: read as --from FORMAT whatever its probe says */
	int force;
	/* the reader's format-specific options (tk_reader_opts.options) from
	 * --input-option KEY=VALUE and --trace N, comma-joined */
	char options[512];
	/* the first of --trace and --input-option given ("--trace"), or
	 * NULL: they choose what the event reader reads, and do not apply to
	 * the records of an Arm Tarmac log */
	const char *data_opt;
	/* the event filters the reader applies (its query), or NULL */
	const struct cli_filter *filter;
} cli_read_opts;

/* Options not given: the reader's defaults. */
#define CLI_READ_OPTS_INIT { NULL, 0, 0, 0, "", NULL, NULL }

/*
 * The reader options every reading command takes besides -q: put
 * CLI_READ_LONGOPTS in the getopt_long table, hand the codes
 * (CLI_READ_CASES) to cli_read_opt(), and print CLI_READ_HELP in the
 * help (--from and --strict each command's help lists itself).
 */
enum { CLI_O_FROM = 0x4000, CLI_O_STRICT, CLI_O_TRACE, CLI_O_INPUT_OPTION,
       CLI_O_THREADS, CLI_O_FORCE_FORMAT };
#define CLI_READ_LONGOPTS \
	{ "from", required_argument, NULL, CLI_O_FROM }, \
	{ "force-format", no_argument, NULL, CLI_O_FORCE_FORMAT }, \
	{ "strict", no_argument, NULL, CLI_O_STRICT }, \
	{ "trace", required_argument, NULL, CLI_O_TRACE }, \
	{ "input-option", required_argument, NULL, CLI_O_INPUT_OPTION }, \
	{ "threads", required_argument, NULL, CLI_O_THREADS }
/* the end of every command's getopt_long table: -q, -h, the terminator */
#define CLI_END_LONGOPTS \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }
#define CLI_READ_CASES \
	case CLI_O_FROM: case CLI_O_STRICT: case CLI_O_TRACE: \
	case CLI_O_INPUT_OPTION: case CLI_O_THREADS: case CLI_O_FORCE_FORMAT
#define CLI_READ_HELP \
	"  --force-format      with --from: read FILE as FORMAT even when FORMAT's\n" \
	"                      probe finds none of its signs in it (by default an\n" \
	"                      error: a wrong --from reads garbage as warnings)\n" \
	"  --trace N           ATF: read only the N-th TraceData (1-based; default\n" \
	"                      all of them, one after the other)\n" \
	"  --input-option KEY=VALUE\n" \
	"                      an option of the input format's reader (repeatable);\n" \
	"                      ATF: trace=N, time-digits=D (see docs/atf.md);\n" \
	"                      BTF: encoding=utf-8|latin1|cp1252 (see docs/btf.md)\n" \
	"  --threads 0|1|auto  deprecated, no effect: every reader decodes on the\n" \
	"                      caller's thread (accepted for one more release)\n"
/** Handle an option of CLI_READ_CASES (arg: its argument, NULL for
 * --strict): 0, or -1 after a usage error. */
int cli_read_opt(cli_read_opts *o, const char *cmd, int code, const char *arg);

/** Print "tracekit: error: ..." (or the error's position form) to stderr. */
void cli_error(const tk_error *err);
/** tk_error_format() of `err` with the library's phrases said in the
 *  words of the command's flags ("strict mode refuses": "--strict
 *  refuses"); returns buf. */
const char *cli_error_text(const tk_error *err, const char *severity,
			   char *buf, size_t size);
void cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * The name of unit `u` for the times of `t`: where its ticks count cycles
 * (tk_trace_cycle_unit(), a Tarmac log timed in clk, whose time base
 * calls a cycle 1 ns), its cycle unit for the time base's unit; else
 * tk_unit_name(u).
 */
const char *cli_unit_name(const tk_trace *t, tk_unit u);
/**
 * 0, or -1 with a usage error of `cmd` when `t`'s ticks count cycles and
 * `unit` (an explicit --unit; NULL when none was given) asks for a
 * length: cycles have none.
 */
int cli_cycle_unit_check(const char *cmd, const tk_trace *t, const char *unit);

/** 0, or -1 with the message printed when the options read say nothing
 *  together (--force-format without --from); cli_open() and cli_input()
 *  call it. */
int cli_read_opts_check(const cli_read_opts *o);
/** Open a reader, printing warnings to stderr unless quiet. */
int cli_open(tk_reader **r, const char *path, const cli_read_opts *o);
/**
 * Open `path` once and tell its format (--from, or the probe of its first
 * bytes, which are kept: a pipe is read once); prints the error.  The
 * commands with a Tarmac record view open their FILE this way and then
 * hand the input to that view or to cli_open_input().
 */
int cli_input(tk_input **in, const char *path, const cli_read_opts *o);
/** How outputs name the input `path`: "<stdin>" for "-", as the readers do. */
const char *cli_input_name(const char *path);
/** The input's format is "tarmac". */
int cli_input_is_tarmac(const tk_input *in);
/** A reader on the input (which is the reader's from then on, on failure
 * too), as cli_open() makes it; prints the error. */
int cli_open_input(tk_reader **r, tk_input *in, const cli_read_opts *o);
/** After reading: a line with the number of warnings, if any were hidden. */
void cli_warning_summary(tk_reader *r, const cli_read_opts *o);
/** The same line for n warnings of reading (the report's count). */
void cli_warning_total(uint64_t n, const cli_read_opts *o);
/** The same line on fp (tracekit dataset -j: a task's messages). */
void cli_warning_total_to(FILE *fp, uint64_t n, const cli_read_opts *o);
/** The library's reader options of the command's options (warnings printed
 *  to stderr unless quiet). */
void cli_reader_opts(tk_reader_opts *ro, const cli_read_opts *o);

/*
 * The event filters (cli_filter.c), parsed once for every command that
 * takes them: cat, convert and report all five (CLI_FILTER_LONGOPTS, help
 * CLI_FILTER_HELP), stats the names of its rows (CLI_FILTER_NAME_LONGOPTS);
 * the codes (CLI_FILTER_CASES) go to cli_filter_opt().
 */
typedef struct cli_filter {
	const char *start_s, *end_s;
	uint64_t start, end;      /* in trace ticks, inclusive (prepare's check) */
	int has_start, has_end;
	const char **entities, **types, **events;
	size_t nentities, ntypes, nevents;
	const char *given;        /* the first filter option given ("--start"), or NULL */
} cli_filter;

enum { CLI_O_START = 0x4200, CLI_O_END, CLI_O_ENTITY, CLI_O_TYPE, CLI_O_EVENT };
#define CLI_FILTER_NAME_LONGOPTS \
	{ "entity", required_argument, NULL, CLI_O_ENTITY }, \
	{ "type", required_argument, NULL, CLI_O_TYPE }
#define CLI_FILTER_LONGOPTS \
	{ "start", required_argument, NULL, CLI_O_START }, \
	{ "end", required_argument, NULL, CLI_O_END }, \
	{ "entity", required_argument, NULL, CLI_O_ENTITY }, \
	{ "type", required_argument, NULL, CLI_O_TYPE }, \
	{ "event", required_argument, NULL, CLI_O_EVENT }
#define CLI_FILTER_CASES \
	case CLI_O_START: case CLI_O_END: case CLI_O_ENTITY: case CLI_O_TYPE: \
	case CLI_O_EVENT
#define CLI_FILTER_HELP \
	"filters (repeat --entity/--type/--event to allow several values):\n" \
	"  --start TIME        events at or after TIME (10ms, 250us, 1.5s; a bare\n" \
	"                      number is in the trace's own ticks, the only form\n" \
	"                      for a trace timed in cycles)\n" \
	"  --end TIME          events at or before TIME (a start after the end is\n" \
	"                      an error; a window between two ticks is empty)\n" \
	"  --entity NAME       events whose source or target is NAME\n" \
	"  --type TYPE         events whose target type is TYPE (T, I, R, SEM, ...)\n" \
	"  --event NAME        events named NAME (start, preempt, ...)\n"

/** Handle an option of CLI_FILTER_CASES: 0, or -1 (out of memory, said). */
int cli_filter_opt(cli_filter *f, int code, const char *arg);
/** Append value to the list: 0, or -1 out of memory. */
int cli_filter_add(const char ***list, size_t *n, const char *value);
/** Check --start/--end against the trace's time base once the reader is
 *  open: 0, or -1 after printing what is wrong (not a time, a start after
 *  the end), which the reader's query does not refuse. */
int cli_filter_prepare(cli_filter *f, tk_reader *r);
/** The filters as the reader's query (tk_reader_opts), set before the
 *  reader is opened; cli_filter_prepare() then refuses a window that is
 *  not one.  The whole input is read (TK_STOP_NEVER): warnings, errors
 *  and entities as without it. */
void cli_filter_query(const cli_filter *f, tk_reader_opts *ro);
/** 1 if a row of `entity` (len bytes) and `type` passes --entity and --type. */
int cli_filter_names(const cli_filter *f, const char *entity, size_t len,
		     const char *type);
void cli_filter_free(cli_filter *f);
/** After the whole trace t was read: a warning for each --entity that
 *  names no entity of t (nor the NAME of one of the nalso NAME=... of
 *  also: stats' --chain), each --type no entity of t has and each --event
 *  that named no event in the window, when r's query has the names (a
 *  name mistyped gives an empty output, said so); none with -q. */
void cli_filter_unmatched(const cli_filter *f, tk_reader *r, const char *const *also,
			  size_t nalso, const cli_read_opts *o);

/** Whether out names the same regular file as in (the output, written
 *  under a temporary name and renamed, would replace the input; symbolic
 *  and hard links followed; in "-": the file on standard input; in NULL:
 *  0): 1 with a one-line error printed, else 0.  Devices and pipes
 *  (/dev/stdout for both) are not. */
int cli_out_is_in(const char *in, const char *out);
/** cli_out_is_in() for a file the command reads besides its input, which
 *  the message names as `what` ("ELF file (--elf)"). */
int cli_out_is_file(const char *in, const char *what, const char *out);

/** Copy the events of r (filtered by its query) into a writer on out, with the writer's
 *  format-specific options (or NULL) and idle patterns (tk_writer_opts:
 *  NULL for the default); 0 or 2. */
int cli_pipe(tk_reader *r, const char *in, const char *out, const char *to, int strict,
	     int no_header, const cli_read_opts *ro,
	     const char *writer_options, const char *const *idle, size_t nidle);

/** The note of `load`, `convert` and `report` when no --idle was given
 *  and trace t's dialect makes processes idle (tk_load_default_idle). */
void cli_idle_note(const tk_trace *t, size_t nidle, const cli_read_opts *ro);

/*
 * The one rule for a name in human-readable text (docs/analysis.md, "Text
 * in tables and messages"): a name from a trace, a log, an ELF file or the command
 * line (entity, core, type, event, note, header value, file name) is
 * written through these, never through printf's %s, in every table and
 * line meant for a reader, and every message goes out through cli_msg().  Well-formed UTF-8 (other than the
 * C1 controls U+0080..U+009F) and printable ASCII are written as they are;
 * each byte of a control character (0x00..0x1F, 0x7F), of a C1 control and
 * each byte that is not part of a well-formed UTF-8 sequence is written
 * \xHH (two lowercase hex digits); a backslash is written \\ only where
 * the next character shown is an 'x' or a backslash (so that \xHH is read
 * one way only).  The width of a name in a column is the number of code
 * points shown.  Machine formats (BTF text, CSV, JSON, XML, the exports)
 * keep their own rules.
 */
/** A message on stderr: printf's text of fmt by the rule (a name it
 *  quotes escaped), but for a newline that ends it.  Every message of the
 *  commands goes out through it. */
void cli_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** s[0..n) as the rule writes it. */
void cli_text(FILE *fp, const char *s, size_t n);
/** cli_text() of a NUL-terminated string (NULL: nothing). */
void cli_text_cstr(FILE *fp, const char *s);
/** The width of s[0..n) as cli_text() writes it: code points shown. */
size_t cli_text_width(const char *s, size_t n);
/** cli_text() of s[0..n) left-aligned in a column `width` wide (blanks
 *  after it up to the width, none if it is wider). */
void cli_text_pad(FILE *fp, const char *s, size_t n, size_t width);

/*
 * The one JSON string writer and the one CSV field writer of every
 * command's output (--format json|csv, the report's data): text from a
 * trace, a log or an ELF file goes out through these, never through
 * printf's %s.
 *
 * cli_json_str: s[0..n) as a JSON string, with its quotes: '"' and '\'
 * escaped, control characters (and DEL) as \n, \r, \t or \u00XX, valid
 * UTF-8 as it is, a byte that is not part of a well-formed UTF-8 sequence
 * as \ufffd.
 */
void cli_json_str(FILE *fp, const char *s, size_t n);
/* As cli_json_str(), with <, > and & escaped too: safe inside <script>. */
/* cli_json_str() of a NUL-terminated string. */
void cli_json_cstr(FILE *fp, const char *s);
/*
 * s[0..n) as a CSV field (RFC 4180): in double quotes, each '"' doubled,
 * when it holds a comma, a '"', a CR, a LF or another control character;
 * else as it is.  Valid UTF-8 is kept, a byte that is not part of a
 * well-formed UTF-8 sequence is written as U+FFFD (as in JSON).
 */
void cli_csv_field(FILE *fp, const char *s, size_t n);
/* cli_csv_field() of a NUL-terminated string. */
void cli_csv_cstr(FILE *fp, const char *s);

/*
 * What stats, diff and the like share (cmd_stats.c): --chain
 * NAME=S0,S1,...,Sn added to st, 0 or -1 after a message (cmd names the
 * command); --percentiles P,... into p (millionths of a percent) and
 * their column names ("p99.9") into names, the count (at most
 * CLI_MAX_PCT) or -1 after a message.
 */
#define CLI_MAX_PCT 64
int cli_stats_chain(tk_stats *st, const char *cmd, const char *arg);
int cli_stats_percentiles(const char *cmd, const char *arg, uint32_t *p,
			  char (*names)[16]);

/** Make (*arr)[id] exist: the array of *cap elements of esize bytes grows
 *  by doubling (from 16), the new elements zeroed; 0, or -1 out of memory. */
int cli_grow(void **arr, size_t *cap, size_t id, size_t esize);
/** cli_grow() that never makes *cap more than max elements (or id + 1). */
int cli_grow_to(void **arr, size_t *cap, size_t id, size_t esize, size_t max);

/*
 * Arm Tarmac logs (tarmac_cli.c).  info, stats and cat show the CPU-level
 * records of a Tarmac input (probed, or --from tarmac) through their views,
 * `tracekit tarmac folded` makes folded stacks of one; the other commands
 * and outputs see its ISR events.  The record views' options are CLI_O_PC ..
 * CLI_O_WEIGHT, handed to cli_tarmac_opt().
 */
enum { CLI_O_PC = 0x4100, CLI_O_MNEMONIC, CLI_O_REGISTER, CLI_O_ADDR,
       CLI_O_KIND, CLI_O_CPU, CLI_O_TOP, CLI_O_ELF, CLI_O_WEIGHT,
       CLI_O_LOAD_OFFSET };
#define CLI_TARMAC_CASES \
	case CLI_O_PC: case CLI_O_MNEMONIC: case CLI_O_REGISTER: \
	case CLI_O_ADDR: case CLI_O_KIND: case CLI_O_CPU: case CLI_O_TOP: \
	case CLI_O_ELF: case CLI_O_WEIGHT: case CLI_O_LOAD_OFFSET

typedef struct cli_tarmac_args {
	/* cat */
	uint64_t pclo, pchi, alo, ahi;
	int has_pc, has_addr;
	unsigned kinds;           /* bit per tk_tarmac_kind, 0: all */
	const char **mnems, **regs;
	size_t nmnems, nregs;
	const char *cpu;
	/* stats */
	size_t top;
	const char *elf;          /* stats, folded stacks */
	uint64_t load_offset;     /* added to the ELF's addresses */
	/* folded stacks */
	const char *weight;
} cli_tarmac_args;

void cli_tarmac_args_init(cli_tarmac_args *a);
void cli_tarmac_args_free(cli_tarmac_args *a);
/** Handle an option of CLI_TARMAC_CASES: 0, or -1 after a usage error. */
int cli_tarmac_opt(cli_tarmac_args *a, const char *cmd, int code, const char *arg);
/** For a Tarmac input: a usage error if `opt` (an option of the event view
 * given, or NULL) or one of the reader's --trace / --input-option was
 * given (-1), else 0. */
int cli_tarmac_refuse(const char *cmd, const char *opt, const cli_read_opts *ro,
		      const char *path);

/*
 * The record views.  Each takes the input (closed before it returns) and
 * returns the exit status; `path` is FILE as given, for the output.
 */
int cli_tarmac_info(tk_input *in, const char *path, int json,
		    const cli_read_opts *ro);
int cli_tarmac_stats(tk_input *in, const char *path, const cli_tarmac_args *a,
		     const char *outfmt, const cli_read_opts *ro);
/*
 * `tracekit tarmac folded` (and the deprecated `convert --to folded`): the
 * folded stacks of the Arm Tarmac log at `path` on `out` (--elf required,
 * --weight); `cmd` names the command in usage errors, `ev_only` is an
 * option of the event view given (refused), or NULL.
 */
int cli_tarmac_folded(const char *cmd, const char *path, const char *out,
		      const cli_tarmac_args *a, const char *ev_only,
		      const cli_read_opts *ro);
/*
 * `tracekit tarmac calls`: every call of the Arm Tarmac log at `path`
 * (--elf required), or those of the function named `function` (NULL: all),
 * on standard output.
 */
int cli_tarmac_calls(const char *path, const cli_tarmac_args *a,
		     const char *function, const cli_read_opts *ro);
/* cat's --register NAME against a register record's name (w1 finds X1,
 * lr every link register, sp every stack pointer) */
int cli_tarmac_reg_match(const tk_tarmac_span *r, const char *want);

/*
 * `tracekit tarmac regs`, `mem` and `history` (tarmac_state_cli.c): the
 * moment (--line, --time, --instr), history's --reg / --addr / --len and
 * regs' --format, handed to cli_state_opt(); --cpu is cli_tarmac_args'.
 */
enum { CLI_O_AT_LINE = 0x4200, CLI_O_AT_TIME, CLI_O_AT_INSTR, CLI_O_REG,
       CLI_O_HADDR, CLI_O_LEN, CLI_O_SFORMAT, CLI_O_INDEX_DIR, CLI_O_NO_INDEX,
       CLI_O_INDEX_SPAN, CLI_O_BIG_ENDIAN, CLI_O_LITTLE_ENDIAN };
#define CLI_STATE_LEN_MAX 65536u

/* A moment asked (--line, --time, --instr): as parsed, and as written
 * (the heading of its answer when several are asked) */
typedef struct cli_state_at {
	tk_tarmac_at at;
	const char *opt, *arg;
} cli_state_at;

typedef struct cli_state_args {
	tk_tarmac_at at;          /* the moment answered, when at_opt is set */
	const char *at_opt;       /* the option that gave it */
	cli_state_at *ats;        /* the moments asked, in the order given */
	size_t nats;
	const char *reg;          /* history --reg */
	uint64_t addr, len;       /* history --addr / --len (len 0: not given) */
	int has_addr;
	const char *format;       /* table, json */
	/* the index (docs/tarmac.md, "The index") */
	const char *index_dir;    /* --index-dir: NULL beside the log */
	int no_index;             /* --no-index */
	uint64_t index_span;      /* --index-span: 0 the default */
	int order;                /* TK_TARMAC_ORDER_*: --big-endian,
				     --little-endian, or neither */
} cli_state_args;

void cli_state_args_init(cli_state_args *s);
void cli_state_args_free(cli_state_args *s);
/** One of the options above: 0, or -1 after a usage error. */
int cli_state_opt(cli_state_args *s, int code, const char *arg);
/** Run `tool` (regs, mem, history) on the log at `path`, with the operands
 * after IN (mem: ADDR [LEN]); returns the exit status. */
/** `tracekit tarmac vcd IN OUT`: the registers and PC of each CPU as VCD
 * variables over time; returns the exit status. */
int cli_tarmac_vcd(const char *path, const char *outpath, const cli_tarmac_args *ta,
		   const cli_read_opts *ro);
int cli_tarmac_state(const char *tool, const char *path, const char *const *ops,
		     size_t nops, const cli_state_args *sa, const cli_tarmac_args *ta,
		     const cli_read_opts *ro);

/*
 * The capture of a recorder stream into a stream file (cli_capture.c):
 * `tracekit record` and `tracekit live`.  Read into cli_capture_space(),
 * then cli_capture_took() writes the whole records from the first sync
 * record on to `out` (a stretch that is no record is dropped and counted);
 * cli_capture_end() appends the end record (TK_FTSTREAM_END_*).
 */
typedef struct cli_capture {
	int out;                  /* the stream file */
	const char *outp;         /* its name, for messages */
	uint8_t *buf;
	size_t cap, len;          /* len: bytes of a cut record kept */
	int insync;
	uint64_t written, dropped, syncs;
	/* the caller's flag of a stop signal, or NULL: once it is set, a
	 * write that a signal interrupts fails (a stalled OUT does not hold
	 * the capture past the signal) */
	volatile sig_atomic_t *stop;
} cli_capture;
/** The descriptor of SOURCE: '-' standard input, 'tcp:HOST:PORT' a
 *  connection, a tty in raw mode, a FIFO or a file; -1 after a line on
 *  stderr. */
int cli_capture_open_source(const char *src);
/** 0, or -1 (out of memory, said). */
int cli_capture_init(cli_capture *c, int out, const char *outp);
/** Where the next read goes, and *n its room (never 0). */
uint8_t *cli_capture_space(cli_capture *c, size_t *n);
/** n bytes were read there: 0, or -1 after a write error (said). */
int cli_capture_took(cli_capture *c, size_t n);
/** The end record with `reason`: 0, or -1 after a write error (said). */
int cli_capture_end(cli_capture *c, unsigned reason);
void cli_capture_free(cli_capture *c);

#endif
