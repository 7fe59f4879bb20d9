/*
 * tracekit.h - the public API of the tracekit library.
 *
 * tracekit reads, writes, checks and converts the timing traces of embedded
 * real-time systems (BTF, HTF, ATF, S.Ha.R.K. FTrace, Arm Tarmac).
 *
 * The model, in one paragraph: a trace is metadata (header key/values kept in
 * order, an exact time base, an entity table, interned strings) plus a
 * time-ordered stream of events.  A reader is a pull iterator that yields one
 * event at a time and never loads the whole trace; a writer is pushed events
 * and writes to a temporary file that is renamed into place only when the
 * writer is closed successfully.
 *
 * Conventions:
 *  - Names are tk_<object>_<verb>.
 *  - Functions that can fail return an int: TK_OK (0) on success, a negative
 *    tk_status on failure, and fill the caller's tk_error when one is given
 *    (NULL is allowed).  Iterators (tk_<object>_next*) return TK_END (> 0)
 *    at the normal end.
 *  - Constructors hand the object out through their first argument, NULL on
 *    failure: int tk_<object>_open(tk_<object> **out, ..., tk_error *err)
 *    for what is read from or written to a file, tk_<object>_new(...) for
 *    the rest.  A NULL `out` is refused with TK_E_USAGE, as is a NULL
 *    object, event or record given to the functions fed one at a time
 *    (tk_<analysis>_event(), tk_tarmac_<analysis>_record()).  Objects end
 *    with their _close() or _free(); those that return nothing take NULL.
 *  - Pointers returned by getters are borrowed: they stay valid until the
 *    object that returned them is closed, unless stated otherwise.
 *  - "Not found" is no error: a lookup that finds nothing returns the none
 *    of its type: NULL (a pointer), TK_NONE (an entity id), -1 (an index
 *    returned as a long), 0 (a yes/no with the value through an argument).
 *  - Messages (tk_error.msg) speak of the API, never of the command's
 *    flags ("strict mode refuses", "set tk_reader_opts.format").
 *  - Every time is an unsigned 64-bit tick count; what a tick means is the
 *    trace's tk_timebase.  Conversions are exact integer arithmetic: a value
 *    that cannot be represented is an error, never a rounding (unless the
 *    caller asks for a rounding direction explicitly).
 *  - Option structs (tk_reader_opts, tk_writer_opts, tk_report_opts,
 *    tk_dataset_opts, tk_tarmac_opts) can grow without an ABI break, as
 *    zstd's parameters do: their first member is `size_t size`, which
 *    their *_opts_init() sets to the struct's sizeof in the header the
 *    caller was compiled with.  Always fill one with its *_opts_init()
 *    before setting fields.  The library reads a struct only up to its
 *    size: the fields a newer library added after it take their
 *    defaults, so a program built against an older header keeps working.
 *    A size that is no version's size of the struct (0, garbage: a
 *    struct that was never initialised) is refused with TK_E_USAGE and a
 *    message naming the struct, before anything is opened.  Fields are
 *    only ever added at the end.
 *  - Threads: the library starts none unless asked: tk_jobs_run()
 *    (jobs.h), the one place where it runs work in parallel, starts the
 *    threads it is asked for and joins them before it returns.  It keeps
 *    no state shared between objects but the table of temporary outputs,
 *    which a mutex orders.  An object (a reader, its trace, a writer, an
 *    analysis) is used by one thread at a time; objects of different
 *    traces may be used on different threads at once.  A trace whose
 *    reader has returned TK_END no longer changes: its getters may then be
 *    called from several threads at once, until the reader is closed.
 *    `make tsan` holds this (unit.threads, unit.temps, unit.jobs).
 *
 * The same header is used by the CLI, the tests and the benchmarks; nothing
 * outside it is part of the API.
 */
#ifndef TRACEKIT_H
#define TRACEKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * TK_API marks what the library exports.  The library is built with hidden
 * visibility, so that libtracekit.so (and the objects of libtracekit.a)
 * export the functions declared TK_API in these headers and nothing else.
 */
#ifndef TK_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define TK_API __attribute__((visibility("default")))
#else
#define TK_API
#endif
#endif

#define TK_VERSION_MAJOR 0
#define TK_VERSION_MINOR 1
#define TK_VERSION_PATCH 0
#define TK_VERSION_STRING "0.1.0"
/** MAJOR * 10000 + MINOR * 100 + PATCH: 100 for 0.1.0, comparable with < */
#define TK_VERSION_NUMBER (TK_VERSION_MAJOR * 10000 + TK_VERSION_MINOR * 100 + \
			   TK_VERSION_PATCH)

/**
 * The library's version string, "MAJOR.MINOR.PATCH", and number (as
 * TK_VERSION_NUMBER): those of the library the program runs with, which
 * may be newer than the headers it was compiled with (the macros).  The
 * soname of libtracekit.so changes with MAJOR.
 */
TK_API const char *tk_version(void);
TK_API unsigned tk_version_number(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

typedef enum tk_status {
	TK_OK = 0,               /**< success */
	TK_END = 1,              /**< an iterator reached its normal end */
	TK_E_IO = -1,            /**< a file could not be opened, read or written */
	TK_E_PARSE = -2,         /**< the input is malformed */
	TK_E_NOMEM = -3,         /**< out of memory */
	TK_E_USAGE = -4,         /**< a bad argument or option */
	TK_E_RANGE = -5,         /**< a value cannot be represented exactly */
	TK_E_UNSUPPORTED = -6,   /**< the format cannot do what was asked */
	TK_E_FORMAT = -7         /**< the input's format is not recognised */
} tk_status;

/** The name of a status code ("ok", "parse error", ...). */
TK_API const char *tk_status_str(int code);

/**
 * An error or a warning, with the position it applies to.
 * line and column are 1-based; 0 means "not known".  For binary inputs the
 * byte offset is given instead (has_offset != 0).
 */
typedef struct tk_error {
	int code;            /**< a tk_status (negative), 0 when clear */
	char input[256];     /**< input name: a path, "-" / "<stdin>", or a label */
	uint64_t line;
	uint32_t column;
	int has_offset;
	uint64_t offset;
	char msg[384];       /**< one line, no trailing newline */
} tk_error;

/** Reset an error to "no error". */
TK_API void tk_error_clear(tk_error *err);

/**
 * Format an error as one line: "INPUT:LINE:COL: error: MSG" (or
 * "INPUT: error: at byte offset N: MSG", "INPUT: error: MSG" where that is
 * what is known).  `severity` is the word put before the message ("error",
 * "warning").  A NULL `err` gives "tracekit: error: no error was given".
 * Returns buf.
 */
TK_API const char *tk_error_format(const tk_error *err, const char *severity,
				   char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Exact time                                                                */
/* ------------------------------------------------------------------------ */

typedef enum tk_unit {
	TK_UNIT_PS = 0,
	TK_UNIT_NS = 1,
	TK_UNIT_US = 2,
	TK_UNIT_MS = 3,
	TK_UNIT_S = 4
} tk_unit;

/** "ps", "ns", "us", "ms" or "s". */
TK_API const char *tk_unit_name(tk_unit unit);

/**
 * Parse a unit name (exactly "ps", "ns", "us", "ms", "s", "us" also with
 * its u as U+00B5 MICRO SIGN or U+03BC GREEK SMALL LETTER MU in UTF-8; with
 * `ignore_case` also "NS", "Ms", ...).  Returns TK_OK or TK_E_PARSE.
 */
TK_API int tk_unit_parse(const char *s, size_t len, int ignore_case, tk_unit *out);

/** One tick lasts num/den units. num and den are never 0. */
typedef struct tk_timebase {
	tk_unit unit;
	uint64_t num;
	uint64_t den;
} tk_timebase;

/** Rounding policy of a conversion. */
typedef enum tk_round {
	TK_ROUND_EXACT = 0,  /**< a value that does not convert exactly is an error */
	TK_ROUND_DOWN = 1,   /**< floor: for the end of a closed interval */
	TK_ROUND_UP = 2      /**< ceiling: for the start of an interval */
} tk_round;

/**
 * Convert `value` ticks of `from` into ticks of `to`.
 * Exact integer arithmetic.  Returns TK_OK, TK_E_USAGE for a zero num or
 * den, an unknown unit or rounding, or TK_E_RANGE if the result does not
 * fit in 64 bits, (with TK_ROUND_EXACT) is not a whole number of `to`
 * ticks, or (a value other than 0) the ratio of the two ticks in lowest
 * terms needs more than 128 bits.
 */
TK_API int tk_time_convert(uint64_t value, const tk_timebase *from,
			   const tk_timebase *to, tk_round round, uint64_t *out);

/**
 * Parse a duration such as "10ms", "250 us", "1500ns", "3s" or "42" into a
 * value and unit (blanks around it are ignored).  A bare number is whole
 * and gets `default_unit` if that is >= 0, or is an error (TK_E_PARSE) if
 * default_unit < 0; a default_unit beyond TK_UNIT_S is TK_E_USAGE.
 * Returns TK_OK, TK_E_PARSE (no number, an unknown unit, a fraction of a
 * bare number), TK_E_RANGE (beyond 64 bits, or a fraction finer than a
 * picosecond) or TK_E_USAGE.
 */
TK_API int tk_duration_parse(const char *s, int default_unit, uint64_t *value,
			     tk_unit *unit);

/**
 * Write `ticks` of timebase `tb` in `unit` as an exact decimal ("1.5",
 * "100", "0.000001").  A value that has no finite decimal expansion (a time
 * base of 1/3 ns) is written as an exact fraction "10/3".  Returns the
 * length written (excluding the NUL), or a negative tk_status.
 */
TK_API int tk_time_format(uint64_t ticks, const tk_timebase *tb, tk_unit unit,
			  char *buf, size_t size);

/**
 * The number of decimal places tracekit writes for times of `tb` in `unit`
 * (tk_time_format_decimal, stats, load): enough to show a thousandth of a
 * tick, the smallest D with 10^-D <= tick/1000, and at least the decimals
 * of one tick where that has a finite decimal expansion.  A time base of
 * 1 ns gives 3 in ns and 6 in us; one of 1/367483 ms (2.72 ns) gives 3 in
 * ns.  Every tick count stays distinct and is round(value / tick).
 * Returns 0 to 40; 3 for a time base that is not valid (num or den 0, a
 * unit out of range).
 */
TK_API int tk_time_digits(const tk_timebase *tb, tk_unit unit);

/**
 * Write `ticks` of `tb` in `unit` as a decimal number of at most
 * tk_time_digits(tb, unit) places: exact where the value ends within them
 * ("1.5", "100"), else rounded half up at the last place ("1823.214" for
 * 670000000/367483 ns).  Trailing zeros are dropped.  Returns the length
 * (excluding the NUL), or a negative tk_status.
 */
TK_API int tk_time_format_decimal(uint64_t ticks, const tk_timebase *tb,
				  tk_unit unit, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Entity types and event kinds                                              */
/* ------------------------------------------------------------------------ */

/** Entity types, after BTF's TargetType column. */
typedef enum tk_etype {
	TK_ET_UNKNOWN = 0, /**< not known (a source that is never a target) */
	TK_ET_STI = 1,         /**< stimulus */
	TK_ET_T = 2,           /**< task (a process) */
	TK_ET_I = 3,           /**< ISR (a process); BTF <= 2.1.4 wrote "ISR" */
	TK_ET_R = 4,           /**< runnable */
	TK_ET_IB = 5,          /**< instruction block */
	TK_ET_ECU = 6,
	TK_ET_P = 7,           /**< processor */
	TK_ET_C = 8,           /**< core */
	TK_ET_M = 9,           /**< memory module */
	TK_ET_SCHED = 10,       /**< scheduler */
	TK_ET_SIG = 11,         /**< signal / label */
	TK_ET_SEM = 12,         /**< semaphore or spinlock */
	TK_ET_EVENT = 13,       /**< OS event */
	TK_ET_SIM = 14,         /**< simulation (BTF 2.1.x) */
	TK_ET_SYS = 15,         /**< system / tracing device (BTF 2.1.5) */
	TK_ET_THR = 16,         /**< thread (Vector extension, a process) */
	TK_ET_SYSC = 17,        /**< syscall (Vector extension, a runnable) */
	TK_ET_OTHER = 18,       /**< a type name tracekit does not know; kept by name */
	TK_ET_COUNT = 19
} tk_etype;

/** The canonical short name of an entity type ("T", "SEM", "?" ...). */
TK_API const char *tk_etype_name(tk_etype type);

/** Non-zero for the process types (T, I, THR). */
TK_API int tk_etype_is_process(tk_etype type);

/**
 * Event kinds.  Every event name of BTF 2.1.5 and 2.3.0, the core events of
 * the public tools, and TK_EV_OTHER for any other name (the name itself is
 * always kept in tk_event.name).
 */
typedef enum tk_evkind {
	TK_EV_OTHER = 0,
	/* process (T, I) */
	TK_EV_ACTIVATE = 1, TK_EV_START = 2, TK_EV_PREEMPT = 3, TK_EV_RESUME = 4,
	TK_EV_TERMINATE = 5, TK_EV_POLL = 6, TK_EV_RUN = 7, TK_EV_PARK = 8,
	TK_EV_POLL_PARKING = 9, TK_EV_RELEASE_PARKING = 10, TK_EV_WAIT = 11,
	TK_EV_RELEASE = 12, TK_EV_MTALIMITEXCEEDED = 13, TK_EV_INTERRUPT_SUSPENDED = 14,
	TK_EV_BOUNDEDMIGRATION = 15, TK_EV_PHASEMIGRATION = 16, TK_EV_FULLMIGRATION = 17,
	TK_EV_ENFORCEDMIGRATION = 18, TK_EV_NOWAIT = 19, TK_EV_DEADLINE = 20,
	/* runnable */
	TK_EV_SUSPEND = 21,
	/* stimulus */
	TK_EV_TRIGGER = 22,
	/* scheduler */
	TK_EV_SCHEDULE = 23, TK_EV_SCHEDULEPOINT = 24, TK_EV_PROCESSACTIVATE = 25,
	TK_EV_PROCESSPOLLING = 26, TK_EV_PROCESSTERMINATE = 27,
	/* signal */
	TK_EV_READ = 28, TK_EV_WRITE = 29,
	/* OS event */
	TK_EV_WAIT_EVENT = 30, TK_EV_SET_EVENT = 31, TK_EV_CLEAR_EVENT = 32,
	/* semaphore / spinlock */
	TK_EV_READY = 33, TK_EV_LOCK = 34, TK_EV_UNLOCK = 35, TK_EV_FREE = 36, TK_EV_USED = 37,
	TK_EV_FULL = 38, TK_EV_OVERFULL = 39, TK_EV_UNLOCK_FULL = 40, TK_EV_LOCK_USED = 41,
	TK_EV_REQUESTSEMAPHORE = 42, TK_EV_EXCLUSIVESEMAPHORE = 43,
	TK_EV_RELEASESEMAPHORE = 44, TK_EV_INCREMENT = 45, TK_EV_DECREMENT = 46,
	TK_EV_QUEUED = 47, TK_EV_ASSIGNED = 48, TK_EV_WAITING = 49, TK_EV_RELEASED = 50,
	/* simulation / system */
	TK_EV_FINALIZE = 51, TK_EV_ERROR = 52, TK_EV_TAG = 53, TK_EV_DESCRIPTION = 54, TK_EV_STOP = 55,
	/* core */
	TK_EV_SET_FREQUENCE = 56, TK_EV_EXECUTE = 57, TK_EV_IDLE = 58, TK_EV_EXECUTE_IDLE = 59,
	TK_EV_IDLE_EXECUTION = 60, TK_EV_EXECUTE_WAITING = 61, TK_EV_WAIT_POSTEXECUTION = 62,
	TK_EV_COUNT = 63
} tk_evkind;

/** The canonical name of an event kind ("activate", ...; "?" for OTHER). */
TK_API const char *tk_evkind_name(tk_evkind kind);

/**
 * The event kind named by the `len` bytes at `s`, as the readers map
 * names: a canonical name (tk_evkind_name()) or a spelling real producers
 * write for one ("set_frequency", "mtalimitexceded"); TK_EV_OTHER for
 * any other name (and a NULL `s`).  For a trace built in code from names
 * as written (tk_event.name): the kind its writers need.
 */
TK_API tk_evkind tk_evkind_from_name(const char *s, size_t len);

/**
 * The entity type named by the `len` bytes at `s`, as the readers map
 * names: a canonical name (tk_etype_name()) or a producer's spelling
 * ("ISR", "Processor"); TK_ET_OTHER for any other name, TK_ET_UNKNOWN
 * for an empty one (and a NULL `s`).
 */
TK_API tk_etype tk_etype_from_name(const char *s, size_t len);

/* ------------------------------------------------------------------------ */
/* Traces: metadata                                                          */
/* ------------------------------------------------------------------------ */

/** An interned string: an index into the trace's string pool. */
typedef uint32_t tk_str;

/** "No entity", "no string". */
#define TK_NONE UINT32_MAX
/** An instance column that was empty in the input. */
#define TK_INST_NONE INT64_MIN

typedef struct tk_trace tk_trace;

/** Kinds of header entries. */
typedef enum tk_hdr_kind {
	TK_HDR_PARAM = 0,   /**< "#key value" */
	TK_HDR_COMMENT = 1, /**< "# text": value holds the text after "# " */
	TK_HDR_ROW = 2      /**< a table row "#-key value" (BTF 2.1.x tables) */
} tk_hdr_kind;

/** One header entry, kept in input order so that round trips lose nothing. */
typedef struct tk_header_entry {
	tk_hdr_kind kind;
	const char *key;    /**< without the '#' (or "#-"); "" for comments */
	const char *value;  /**< the rest of the line, as written; may be "" */
	int has_value;      /**< 0 when the line had no blank after the key */
} tk_header_entry;

/** An entity: something that causes or undergoes events. */
typedef struct tk_entity {
	tk_str name;        /**< interned name */
	tk_etype type;      /**< TK_ET_UNKNOWN until seen with a type */
	tk_str type_name;   /**< the type as written (e.g. "ISR"), or TK_NONE */
	/**
	 * The entity that holds this one, or TK_NONE.  For a process (T, I,
	 * THR) it is its core: the core of the first event that names one
	 * (tk_event.core) with the process as its target, set as that event
	 * is handed out by tk_reader_next() or tk_reader_next_batch(), or
	 * dropped by a query, or skipped before a window's start
	 * (tk_reader_opts; or queued by tarmac_exceptions.h's events): TK_NONE
	 * until then, final once the
	 * reader has returned TK_END.  A process seen on several cores keeps
	 * the first (tk_load_entity_cores() lists them all); a process whose
	 * events name no core keeps TK_NONE.  Per format: BTF and the FreeRTOS
	 * trace logger's BTF, the core that is the source of the process
	 * event (or the core the logger's dialect reads it on); HTF, the core
	 * section of the record; S.Ha.R.K., its one core "Core_0"; Tarmac,
	 * the CPU the exception is taken on.  For a runnable (R) it is the
	 * process that runs it: the source of the first event handed out
	 * with the runnable as its target whose source is a process, set
	 * likewise (TK_NONE until then, final at TK_END; a runnable run by
	 * several processes keeps the first; one whose events have no
	 * process as source keeps TK_NONE).  Per format: BTF, the source of
	 * the runnable event (the calling process); HTF, the process running
	 * on the record's core (the source HTF reading gives a runnable's
	 * events).  ATF sets it when the element is declared, before the
	 * first event: its Resource's core, or for an element nested in
	 * another (a runnable in a task) that element.  A trace built in
	 * code has the parents given to tk_trace_add_entity().
	 */
	uint32_t parent;
} tk_entity;

/** The format name of the trace ("btf", ...). */
TK_API const char *tk_trace_format(const tk_trace *t);

/** The time base: what one tick of tk_event.time means. */
TK_API const tk_timebase *tk_trace_timebase(const tk_trace *t);

/**
 * Number of header entries and the i-th one (0-based, input order).  An
 * entry never moves: its pointer stays valid until the trace is freed,
 * while a reader adds the entries of a later header block as it reads
 * them, or tk_trace_add_header() adds more.
 */
TK_API size_t tk_trace_header_count(const tk_trace *t);
TK_API const tk_header_entry *tk_trace_header(const tk_trace *t, size_t i);

/**
 * The value of the first parameter named `key` (ASCII case ignored), or
 * NULL (also for a NULL key).  A later repetition (a second BTF header block's, as Trace Compass
 * writes) is only in tk_trace_header(): every writer takes the first value
 * of a key, as the BTF writer's merge of header blocks keeps it.
 */
TK_API const char *tk_trace_header_get(const tk_trace *t, const char *key);

/**
 * The cycle unit the trace's ticks count ("clk", "cyc", "tic", "cs": a
 * Tarmac log timed in cycles, whose time base says 1 ns since a cycle has
 * no SI length; its header's `tarmacTimeUnit` says so, and a BTF written
 * from it keeps that line), or NULL when the ticks are what the time base
 * says (also for a `tarmacTimeUnit` of another value: a line written by
 * hand, which no time is labelled with).  The writers and the report keep it where their format can
 * (docs/exports.md, "Cycles").
 */
TK_API const char *tk_trace_cycle_unit(const tk_trace *t);

/** The text of an interned string; `len` (if not NULL) receives its length. */
TK_API const char *tk_trace_str(const tk_trace *t, tk_str s, size_t *len);

/**
 * The length (1 to 4) of the well-formed UTF-8 sequence at s (n > 0 bytes
 * left), or 0 when the byte at s starts none (Unicode 15, table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF).  A trace's names
 * are its bytes as read: a tool that writes them as UTF-8 text (JSON, CSV)
 * replaces the bytes that start no sequence.
 */
TK_API size_t tk_utf8_len(const unsigned char *s, size_t n);

/**
 * The number of entities so far.  Entities are added while a trace is read:
 * after the reader's end the table is complete.
 */
TK_API size_t tk_trace_entity_count(const tk_trace *t);

/**
 * Entity `id` (0 <= id < count), or NULL.  The record never moves: the
 * pointer stays valid until the trace's reader is closed, however many
 * entities are added after it (its fields may still change while the
 * trace is read: a type learnt from a later event).
 */
TK_API const tk_entity *tk_trace_entity(const tk_trace *t, uint32_t id);

/** The id of the entity named `name`, or TK_NONE (also for a NULL name). */
TK_API uint32_t tk_trace_entity_find(const tk_trace *t, const char *name, size_t len);

/*
 * A trace built in code, for the writers: a program makes the trace, its
 * header, entities and names, then fills tk_event records that refer to
 * them and hands them to tk_writer_write(), without printing a text and
 * reading it back.  examples/c/build_trace.c does so.
 */

/**
 * A new, empty trace of time base `tb` (copied; num and den >= 1) whose
 * tk_trace_format() is "api".  Returns TK_OK with *out set, TK_E_USAGE (a
 * time base with num or den 0, or a unit out of range) or TK_E_NOMEM,
 * with *out NULL and `err` filled.  Free it with tk_trace_free().
 */
TK_API int tk_trace_new(tk_trace **out, const tk_timebase *tb, tk_error *err);

/**
 * Append a header entry (`key` of klen bytes, `value` of vlen bytes,
 * copied; has_value 0 for a key written alone).  Writers write the entries
 * their format holds (BTF: all; docs/mappings.md).  TK_OK, TK_E_USAGE (a
 * key or value with a line break, an empty key of a parameter) or
 * TK_E_NOMEM.
 */
TK_API int tk_trace_add_header(tk_trace *t, tk_hdr_kind kind, const char *key,
			       size_t klen, const char *value, size_t vlen,
			       int has_value);

/**
 * The string `s` of `len` bytes interned in the trace (copied once): *out
 * is its tk_str, for tk_event.name (the event's name as the format writes
 * it: "start", "activate", ...) and tk_event.type_name.  TK_OK,
 * TK_E_USAGE (NULL out) or TK_E_NOMEM.
 */
TK_API int tk_trace_intern(tk_trace *t, const char *s, size_t len, tk_str *out);

/**
 * The entity named `name` (len bytes), added if the trace has none of that
 * name: *id is its id for tk_event.source, .target and .core.  `type` is
 * its type (TK_ET_UNKNOWN leaves it to be learnt); `parent` an entity id
 * or TK_NONE (a task's core).  For an entity already there, a type or a
 * parent given where it had none is set; a different one is TK_E_USAGE.
 * TK_OK, TK_E_USAGE (an empty name, a parent that is no entity) or
 * TK_E_NOMEM.
 */
TK_API int tk_trace_add_entity(tk_trace *t, const char *name, size_t len,
			       tk_etype type, uint32_t parent, uint32_t *id);

/**
 * Free a trace made by tk_trace_new() (never a reader's: tk_reader_close()
 * frees that one).  NULL is allowed.
 */
TK_API void tk_trace_free(tk_trace *t);

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * One event, shaped after a BTF data line.  Valid until the next call to
 * tk_reader_next() or tk_reader_next_batch() on the reader that produced
 * it.
 */
typedef struct tk_event {
	uint64_t time;          /**< ticks of the trace's time base */
	uint32_t source;        /**< entity id */
	uint32_t target;        /**< entity id */
	int64_t source_inst;    /**< instance, or TK_INST_NONE when absent */
	int64_t target_inst;    /**< instance, or TK_INST_NONE when absent */
	tk_etype type;          /**< the target's type */
	tk_evkind kind;         /**< the event kind, TK_EV_OTHER if not known */
	tk_str type_name;       /**< the target type as written */
	tk_str name;            /**< the event name as written */
	uint32_t core;          /**< core entity id where known, else TK_NONE */
	uint32_t note_len;
	const char *note;       /**< NULL when the event has no note field */
	uint64_t pos;           /**< line number (text) or record number (binary) */
} tk_event;

/* ------------------------------------------------------------------------ */
/* Formats                                                                   */
/* ------------------------------------------------------------------------ */

enum {
	TK_CAP_READ = 1u << 0,
	TK_CAP_WRITE = 1u << 1,
	/** The output written is one byte stream: it may go to standard output
	 *  ("-") and is compressed when named .gz or .zst (not so for a
	 *  directory, or a file the writer writes itself such as SQLite's). */
	TK_CAP_STREAM = 1u << 2
};

typedef struct tk_format_info {
	const char *name;        /**< "btf" */
	const char *extensions;  /**< space-separated, without dots: "btf" */
	const char *description; /**< one line */
	unsigned caps;           /**< TK_CAP_* */
} tk_format_info;

/** The formats known to this build, in a fixed order. */
TK_API size_t tk_format_count(void);
TK_API const tk_format_info *tk_format_get(size_t i);

/** The format called `name`, or NULL (for a NULL `name` too). */
TK_API const tk_format_info *tk_format_find(const char *name);

/**
 * The format whose extension `path` has (".gz" and ".zst" suffixes are
 * looked through), or NULL (for a NULL `path` too).
 */
TK_API const tk_format_info *tk_format_from_path(const char *path);

/**
 * The format of the file at `path`, by its content (the first few kilobytes,
 * decompressed if need be) and then its name, without reading the trace.
 * NULL (with `err` filled) if it cannot be told or the file cannot be read.
 * Standard input ("-"), named pipes, sockets and devices cannot be
 * detected this way: they can be read once, and detection would consume
 * what it looks at; they are refused (TK_E_USAGE) before a byte is read.
 * Open them with tk_reader_open() or tk_input_open(), which detect and
 * read from the same bytes.
 */
TK_API const tk_format_info *tk_format_detect(const char *path, tk_error *err);

/* ------------------------------------------------------------------------ */
/* Readers                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct tk_reader tk_reader;

/** Called for each warning; the error is valid only during the call. */
typedef void (*tk_warning_fn)(void *ctx, const tk_error *warning);

typedef struct tk_reader_opts {
	/** sizeof(tk_reader_opts), set by tk_reader_opts_init(): see
	 *  "Option structs" at the top of this header. */
	size_t size;
	/**
	 * Force a format by name; NULL probes the content, then the name.
	 * A forced format's own probe still looks at the content: an input
	 * (not empty) in which it finds none of the format's signs is refused
	 * by tk_reader_open() (TK_E_FORMAT), unless force_format is set.
	 */
	const char *format;
	/**
	 * Strict mode: the format's specification, nothing else.  Lenient
	 * mode (0) accepts the dialects of real producers and counts a warning
	 * for each departure from the specification.
	 */
	int strict;
	/**
	 * Called once for the first warning of each kind (later ones of the
	 * same kind are only counted).  NULL: warnings are only counted.
	 */
	tk_warning_fn on_warning;
	void *warning_ctx;
	/**
	 * Format-specific options: "key=value" pairs separated by commas, or
	 * NULL.  BTF: encoding=utf-8 (the default: the bytes as they are),
	 * latin1 (also latin-1, iso-8859-1) or cp1252 (also windows-1252):
	 * names, notes and header values converted to UTF-8 as they are read
	 * (docs/btf.md).  ATF: trace=N (read only the N-th TraceData, 1-based;
	 * default all, concatenated in order), time-digits=D (the tick is the
	 * TimeBase / 10^D, 0..18; default: the most decimal digits among the
	 * times of the first 4 MiB).  S.Ha.R.K. FTrace (shark) and the
	 * recorder's stream (ftstream): hz=N (the clock rate in Hz, a multiple
	 * of 1000, used instead of the dump's clock records or the stream's
	 * sync record; for one without).  A key the format does not know is
	 * an error (TK_E_USAGE) of tk_reader_open().  The other readers (HTF,
	 * Tarmac) take none: any option is an error (TK_E_USAGE) of
	 * tk_reader_open().
	 */
	const char *options;
	/**
	 * With `format`: read the input as that format even when its probe
	 * finds none of the format's signs (what a lenient reader then makes
	 * of it is the caller's risk: mostly warnings).  0 by default.
	 */
	int force_format;

	/*
	 * A query: only the events that pass every filter given come out of
	 * tk_reader_next() and tk_reader_next_batch(), which skip the others
	 * (tk_reader_opts_init(): none given, every event).  The filters look
	 * at each event alone, by its own fields: an entity filter keeps the
	 * events whose source or target is one of the entities, and no other
	 * (not the core's events a task's state or a metric would need: an
	 * analysis fed a filtered stream sees only what passed; window a
	 * whole trace for that).  The trace's metadata (header, time base,
	 * entity table) is the reader's as without a query: an entity first
	 * named by a skipped event is in the table all the same, where the
	 * reader decoded that event (see window_stop for what is not).
	 *
	 * The time window: [start, end) with has_start and has_end (each
	 * may be given alone); with end_closed, [start, end].  start_unit
	 * and end_unit say what the numbers are: TK_TICKS (the default) for
	 * ticks of the trace's time base, or a tk_unit for an exact time
	 * ("1500 us": start 1500, start_unit TK_UNIT_US) converted once the
	 * header is read with exact arithmetic: an event at tick t is kept
	 * when start <= t * tick (and t * tick < end, or <= end when
	 * closed).  A start beyond the last tick keeps no event; an end
	 * beyond it is no end.  A start at or after the end is an empty
	 * window, not an error.  For a trace whose ticks are cycles
	 * (tk_trace_cycle_unit()) a time in a unit goes through its time
	 * base all the same (a cycle as its 1 ns): give ticks there.
	 */
	uint64_t start;
	uint64_t end;
	int has_start;
	int has_end;
	int end_closed;
	int start_unit;       /**< TK_TICKS or a tk_unit */
	int end_unit;         /**< TK_TICKS or a tk_unit */
	/**
	 * Where reading stops once an event reaches the window's end (the
	 * first at or after `end`; with end_closed, after it): a tk_stop.
	 * TK_STOP_ORDERED (the default): where the format's reader gives
	 * times that never decrease: S.Ha.R.K. FTrace and the recorder's
	 * stream (read in TSC order) always, BTF and HTF in strict mode (a
	 * time that decreases is an error there; in lenient mode it is kept
	 * in file order with a warning, so those read to the end).  ATF
	 * (whose TraceData may restart in time even in strict mode), Tarmac
	 * and the rest read to the end.  TK_STOP_ALWAYS: in every
	 * format (the caller knows the times are ordered; an event after a
	 * decrease past the end is then missed).  TK_STOP_NEVER: every
	 * format reads its whole input, the events outside the window only
	 * dropped, so the warnings, the errors and the entity table are
	 * those of the whole input (what the CLI does).  Where reading
	 * stops, what lies after is not read at all: its warnings, its
	 * errors and the entities it names are not seen.
	 * Skipping before the start: what a reader makes of a record
	 * depends on the records before it (HTF's and S.Ha.R.K.'s instance
	 * counters and running tasks, S.Ha.R.K.'s task names, BTF's entity
	 * types), so every record before the window is read.  The HTF and
	 * S.Ha.R.K. readers skip ahead to the start before the first event:
	 * the records they would hand out first whose times are below the
	 * start go through their state alone (instance counters, running
	 * stacks and tasks, entities and interned names, warnings and
	 * errors, tk_entity.parent), without events made, synthesised,
	 * handed out or filtered, up to the first record at or after the
	 * start; the events of the window, the entity table, the warnings
	 * and the errors are those of a full read whose events before the
	 * start are dropped.  (An HTF section whose time decreases, in
	 * lenient mode, may bring a record before the start after the
	 * skip: it is decoded and dropped.)  The other formats decode the
	 * events before the window and drop them.  tk_reader_decoded_count()
	 * does not count the records skipped.  S.Ha.R.K.'s reader reads the
	 * whole dump once at the open anyway (to put it in time order); its
	 * stop saves the decoding of the records after the window.
	 */
	int window_stop;
	/**
	 * Entity names (exact bytes): events whose source or target is one
	 * of them.  Types: events whose target type is one of them, by its
	 * canonical name (tk_etype_name(): "T", "SEM") or as written
	 * (tk_event.type_name).  Events: events whose kind's canonical name
	 * (tk_evkind_name()) or name as written (tk_event.name) is one of
	 * them.  A filter holds when any of its names matches; NULL (n 0):
	 * no such filter.  The names are copied by the open.
	 */
	const char *const *entities;
	size_t nentities;
	const char *const *types;
	size_t ntypes;
	const char *const *events;
	size_t nevents;
} tk_reader_opts;

/** tk_reader_opts.start_unit, end_unit: a number of the trace's ticks. */
enum { TK_TICKS = -1 };

/** tk_reader_opts.window_stop. */
typedef enum tk_stop {
	TK_STOP_ORDERED = 0,  /**< where the format's times are ordered */
	TK_STOP_ALWAYS = 1,   /**< in every format */
	TK_STOP_NEVER = 2     /**< never: the whole input is read */
} tk_stop;

/** Fill `opts` with the defaults (lenient, probe the format) and its
 *  size.  Every tk_reader_opts handed to the library starts here. */
TK_API void tk_reader_opts_init(tk_reader_opts *opts);

/**
 * Open `path` ("-" for standard input) for reading.  Compressed input
 * (gzip, zstd) is recognised by its magic bytes and decompressed on the fly.
 * The header is read before this returns, so the trace's metadata (time
 * base, header entries) is available at once.
 * Returns TK_OK, or a negative status with `err` filled.
 */
TK_API int tk_reader_open(tk_reader **out, const char *path,
			  const tk_reader_opts *opts, tk_error *err);

/**
 * As tk_reader_open(), on `len` bytes at `data` (not copied: they must stay
 * valid until the reader is closed).  `name` is used in messages.
 * Returns TK_OK, or a negative status with `err` filled.
 */
TK_API int tk_reader_open_mem(tk_reader **out, const void *data, size_t len,
			      const char *name, const tk_reader_opts *opts,
			      tk_error *err);

/**
 * Make a streamed input readable twice: the rest of descriptor `fd` (a
 * pipe: standard input, /dev/fd/N) is copied into an unlinked temporary
 * file in $TMPDIR (else /tmp), which then takes `fd`'s place (dup2(), at
 * its first byte), so that a reader opened on the input ("-", /dev/fd/N)
 * reads the copy.  *copy is a second descriptor of it, from which a second
 * reader opens "/dev/fd/<*copy>" (tk_load_set_limit()); the caller closes
 * it when done, and the file goes with its last descriptor, on any exit.
 * `name` is the input's name in the messages (NULL: "<stdin>" for
 * descriptor 0).  Returns TK_OK, or TK_E_IO (TMPDIR too long, the file
 * cannot be made or written, `fd` cannot be read), TK_E_NOMEM or
 * TK_E_USAGE (`copy` NULL) with `err` filled and *copy -1.
 */
TK_API int tk_fd_spool(int fd, const char *name, int *copy, tk_error *err);

/**
 * An input opened, and its format told, before a reader is chosen: for a
 * program that reads some formats through another API than the events of
 * tk_reader (the records of an Arm Tarmac log: tk_tarmac_open_input()),
 * or that wants to see the format first.  The probe reads the first few
 * kilobytes (decompressed) into the input and consumes nothing, so
 * standard input, a pipe or /dev/fd/N is read only once: the reader opened
 * on the input starts at its first byte.
 */
typedef struct tk_input tk_input;

/**
 * Open `path` ("-" for standard input; gzip and zstd are decoded) and tell
 * its format: the one named `format`, or when NULL the one the content
 * (then the name) shows, exactly as tk_reader_open() chooses it, with the
 * same errors (a forced format whose probe finds none of its signs is
 * refused: see tk_reader_opts.format).  Returns TK_OK, or a negative
 * status with `err` filled.
 */
TK_API int tk_input_open(tk_input **out, const char *path, const char *format,
			 tk_error *err);

/**
 * As tk_input_open(), with the format and force_format of `opts` (its
 * other fields are for tk_reader_open_input(); NULL: the defaults).
 * Returns TK_OK, or a negative status with `err` filled.
 */
TK_API int tk_input_open_opts(tk_input **out, const char *path,
			      const tk_reader_opts *opts, tk_error *err);

/** The input's format (one that can be read). */
TK_API const tk_format_info *tk_input_format(const tk_input *in);

/** Close an input no reader was opened on; NULL is allowed. */
TK_API void tk_input_close(tk_input *in);

/**
 * A reader of the input's format on `in`, as tk_reader_open() makes it
 * (opts->format is not looked at; NULL opts: the defaults).  The input is
 * the reader's from then on and is closed with it, and on failure too: do
 * not close it after this call.  Returns TK_OK, or a negative status with
 * `err` filled.
 */
TK_API int tk_reader_open_input(tk_reader **out, tk_input *in,
				const tk_reader_opts *opts, tk_error *err);

/** The trace being read (borrowed, valid until tk_reader_close()). */
TK_API tk_trace *tk_reader_trace(tk_reader *r);

/** The name of the format being read. */
TK_API const char *tk_reader_format(const tk_reader *r);

/**
 * The next event (that passes the query of tk_reader_opts, if any: TK_END
 * where reading stops at the window's end).  Returns TK_OK with *ev set,
 * TK_END at the end, or a
 * negative status with `err` filled: the same status and error on every
 * later call (an error is never followed by events or by TK_END).
 */
TK_API int tk_reader_next(tk_reader *r, const tk_event **ev, tk_error *err);

/**
 * The next events, up to `max` (>= 1) at once: *evs points at *n
 * consecutive events (1 <= *n <= max), in order, valid until the next call
 * of this or tk_reader_next().  Returns TK_OK, TK_END at the end (*n 0),
 * TK_E_USAGE for max 0 (*n 0; the reader goes on as before the call),
 * or a negative status with `err` filled (again on every later call, as
 * tk_reader_next()).  The same events as tk_reader_next() one by one,
 * with less work per event where the reader makes them in batches (HTF,
 * S.Ha.R.K.); otherwise *n is 1.  With a query, the batch holds the
 * events of the reader's batch that pass it (copied: 1 <= *n <= max).
 */
TK_API int tk_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
				size_t max, tk_error *err);

/**
 * The number of events the format has decoded so far: those handed out
 * and those the query (tk_reader_opts) dropped.  Without a query, or with
 * one that only filters, it reaches the trace's number of events; what
 * the query saved by stopping at the window's end, and the events before
 * the window's start that the HTF and S.Ha.R.K. readers skipped through
 * their state alone (tk_reader_opts, "Skipping before the start"), is
 * what it does not.
 */
TK_API uint64_t tk_reader_decoded_count(const tk_reader *r);

/** The number of warnings so far (lenient mode). */
TK_API uint64_t tk_reader_warning_count(const tk_reader *r);

/**
 * Whether the i-th name of tk_reader_opts.events (in the order given) has
 * named an event read so far inside the window, whatever the entity and
 * type filters said of that event: 1 yes, 0 not yet, -1 no such name (no
 * event filter, or i out of range).  After the last event, 0 says the
 * name matched nothing, so that a caller can warn of a misspelt name.
 */
TK_API int tk_reader_event_name_seen(const tk_reader *r, size_t i);

/** Close and free; NULL is allowed. */
TK_API void tk_reader_close(tk_reader *r);

/* ------------------------------------------------------------------------ */
/* Writers                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct tk_writer tk_writer;

typedef struct tk_writer_opts {
	/** sizeof(tk_writer_opts), set by tk_writer_opts_init(): see
	 *  "Option structs" at the top of this header. */
	size_t size;
	/** Format name; NULL takes it from the path's extension. */
	const char *format;
	/** Refuse (instead of warn about) information the format cannot hold. */
	int strict;
	/** Write no header (for `cat`-like output of events only). */
	int no_header;
	/**
	 * Called by tk_writer_close() when the format could not hold all of
	 * the trace: one warning that counts what was dropped or changed, by
	 * kind ("HTF cannot hold everything: 3 notes dropped; ..."), and one
	 * more where times were rounded to the format's unit (BTF, VCD).
	 * Only lenient mode drops: with `strict`, the first such loss is an
	 * error (TK_E_UNSUPPORTED) of tk_writer_write(), or of
	 * tk_writer_close() for what only the whole trace shows (ATF: a
	 * source or instance its reading gives otherwise, checked once every
	 * element is placed; CTF: a class name with a control character).
	 * NULL: losses are not reported.  The warning is valid only during
	 * the call.
	 */
	tk_warning_fn on_warning;
	void *warning_ctx;
	/**
	 * Format-specific options: "key=value" pairs separated by commas, or
	 * NULL.  HTF: timestamp-length, entity-length, event-length (bytes: 1,
	 * 2, 4 or 8; default: the smallest that holds the data); a key it does
	 * not know is an error (TK_E_USAGE) of tk_writer_open().  BTF:
	 * as-read=1 writes names, types, header and times as the reader gave
	 * them (what `tracekit cat` prints); by default (as-read=0) the output
	 * is what the specification allows (docs/mappings.md).  SQLite:
	 * entity-index=0|1.  Parquet: row-group=N and page=N (rows, 1 to
	 * 1048576), zstd=N (the level, 1 to 19; docs/exports.md).  The other
	 * writers take none: any option is an error (TK_E_USAGE) of
	 * tk_writer_open().
	 */
	const char *options;
	/**
	 * The idle processes of the Perfetto and VCD exports (the other
	 * writers ignore them): the glob patterns of tk_timeline_set_idle()
	 * and tk_load_set_idle().  Their run intervals are drawn as any
	 * other, but their time on a core is its idle time (Perfetto: an
	 * "idle CORE" counter beside "load CORE"; VCD: an idle_permille
	 * variable beside load_permille), not its load.  NULL (the
	 * default): tk_load_default_idle() of the trace ("IDLE*" for the
	 * FreeRTOS trace logger's traces, else none); non-NULL with
	 * nidle == 0: no process is idle.  The patterns are copied by
	 * tk_writer_open().
	 */
	const char *const *idle;
	size_t nidle;
	/**
	 * The name of the input the events come from ("<stdin>", a path),
	 * or NULL (the default).  Given, an error about one event, which the
	 * output cannot hold (TK_E_RANGE, TK_E_UNSUPPORTED), names the
	 * input and the event's line (tk_event.pos; "record N" in the
	 * message for a binary input), with the output in the message:
	 * "in.btf:4: error: ... (writing out.json)".  Without it such an
	 * error names the output alone.  Copied by tk_writer_open() (its
	 * first 255 bytes).
	 */
	const char *input;
} tk_writer_opts;

/** Fill `opts` with the defaults (lenient, format from the path, header)
 *  and its size.  Every tk_writer_opts handed to the library starts here. */
TK_API void tk_writer_opts_init(tk_writer_opts *opts);

/**
 * Open a writer on `path` ("-" for standard output) for events of trace
 * `t` (whose strings and entities the events refer to; `t` must outlive the
 * writer).  A file is written under a temporary name in the same folder
 * and renamed to `path` by a successful tk_writer_close(): a failed run
 * leaves no partial file, and a file written over keeps its permission
 * bits (a new one gets 0666 less the umask).  A path that names no
 * regular file (a device such as /dev/null, a FIFO), or an open file of
 * the process (/dev/stdout, /dev/fd/N: appended to), is written to as it
 * is, never replaced (a format that writes a file of its own, SQLite,
 * refuses it: TK_E_USAGE); a symbolic link to a regular file keeps the
 * link and has the file it leads to replaced.  Returns TK_OK, or a negative status with `err`
 * filled (TK_E_USAGE for an unknown format or a bad option,
 * TK_E_UNSUPPORTED for a format that cannot be written, TK_E_IO when the
 * file cannot be created, TK_E_NOMEM).
 */
TK_API int tk_writer_open(tk_writer **out, const char *path, const tk_trace *t,
			  const tk_writer_opts *opts, tk_error *err);

/**
 * Write one event.  Returns TK_OK, or a negative status with `err` filled
 * (TK_E_IO, or TK_E_UNSUPPORTED in strict mode for what the format cannot
 * hold: tk_writer_opts.on_warning says when close refuses instead;
 * TK_E_RANGE for a time the format cannot hold; TK_E_USAGE for an event
 * whose source, target or core is an entity id, other than TK_NONE, that
 * the writer's trace does not have: an event of another trace).  A
 * failed write gives the writer up: every later write returns the same
 * status and error, and tk_writer_close() (or tk_writer_abort()) frees
 * it, returning that status, with no file left.
 */
TK_API int tk_writer_write(tk_writer *w, const tk_event *ev, tk_error *err);

/**
 * Write the events evs[0..n) (a batch of tk_reader_next_batch(), say): the
 * same file, warnings and error as tk_writer_write() of each in turn, in
 * less time for a writer that takes them column by column (Parquet).
 * Returns TK_OK, or a negative status with `err` filled, as
 * tk_writer_write() (the writer then given up as there).
 */
TK_API int tk_writer_write_batch(tk_writer *w, const tk_event *evs, size_t n,
				 tk_error *err);

/**
 * Finish: flush, and move the file into place.  The writer is freed
 * whatever the result; on failure no output file is left.  Returns TK_OK,
 * or a negative status with `err` filled.  NULL is allowed (TK_OK).
 */
TK_API int tk_writer_close(tk_writer *w, tk_error *err);

/** Give up: free the writer and remove its temporary file.  NULL is allowed. */
TK_API void tk_writer_abort(tk_writer *w);

/* ------------------------------------------------------------------------ */
/* Outputs: bytes that appear all at once                                    */
/* ------------------------------------------------------------------------ */

/*
 * What the writers write through, for callers with bytes of their own (the
 * HTML report): "-" is standard output; a path that names no regular file
 * (a device such as /dev/null, a FIFO) or an open file of the process
 * (/dev/stdout, /dev/fd/N: appended to) is written to as it is; a
 * symbolic link to a regular file has the file it leads to written; any
 * other path is written under a temporary name in the same folder and renamed
 * to `path` by a successful tk_output_close().  A path ending in ".gz" is written as a gzip stream,
 * ".zst" as a zstd frame (writers too: `out.btf.gz` is gzip-compressed
 * BTF; formats that cannot be compressed refuse such a name).
 */
typedef struct tk_output tk_output;

/**
 * Open an output on `path` as above.  Returns TK_OK, or a negative status
 * with `err` filled (TK_E_IO when the file cannot be created, TK_E_USAGE
 * for an empty `path`, TK_E_NOMEM).
 */
TK_API int tk_output_open(tk_output **out, const char *path, tk_error *err);
/**
 * Append n bytes (buffered).  Returns TK_OK, or a negative status (TK_E_IO)
 * with `err` filled; the output is then given up with tk_output_abort().
 */
TK_API int tk_output_write(tk_output *o, const void *p, size_t n, tk_error *err);
/**
 * Finish: flush, end the compressed stream, move the file into place.
 * The output is freed whatever the result; on failure no file is left.
 * Returns TK_OK, or a negative status with `err` filled.  NULL is allowed
 * (TK_OK).
 */
TK_API int tk_output_close(tk_output *o, tk_error *err);
/** Give up: free the output and remove its temporary file.  NULL is allowed. */
TK_API void tk_output_abort(tk_output *o);

/**
 * Remove every temporary output of this process that is not finished yet:
 * the files of open writers and outputs, a directory output (CTF) with the
 * files in it.  Async-signal-safe: meant to be called by a handler of
 * SIGINT, SIGTERM or SIGHUP that then ends the process by the signal's
 * default action.  Every temporary is listed, however many outputs are
 * open: writers and outputs may be opened, closed and aborted on several
 * threads at once.  The library starts no thread: a handler runs on a
 * thread of the caller.
 */
TK_API void tk_temp_remove_all(void);

/* ------------------------------------------------------------------------ */
/* JSON text                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * s[0..n) as a JSON string, with its quotes, on fp: '"' and '\' escaped,
 * control characters (and DEL) as \n, \r, \t or \u00XX, valid UTF-8 as it
 * is, a byte that is not part of a well-formed UTF-8 sequence as \ufffd;
 * with `html` non-zero '<', '>' and '&' are escaped too (\u003c ...), and
 * U+2028 and U+2029 (\u2028, \u2029: JavaScript before ES2019 cannot hold
 * them in a string literal), so the string is safe inside a <script>
 * element (the report's data).  The
 * one JSON string writer of the library and of tracekit's outputs.
 */
TK_API void tk_json_write_str(FILE *fp, const char *s, size_t n, int html);

/* ------------------------------------------------------------------------ */
/* counts: a map of 64-bit keys to counters                                  */
/* ------------------------------------------------------------------------ */

/*
 * The library's hash map (seeded once per process, so that no input piles
 * its keys into one slot) for a caller's keys: each key counts, and the
 * keys are kept in the order first added.
 */
typedef struct tk_counts tk_counts;

/** An empty map.  TK_OK, or TK_E_NOMEM with *out NULL. */
TK_API int tk_counts_new(tk_counts **out, tk_error *err);
/** Add n to the counter of `key` (a new key starts at 0): 1 if the key is
 *  new, 0 if it was there, or TK_E_NOMEM or TK_E_RANGE (the counter would
 *  pass UINT64_MAX), the map unchanged. */
TK_API int tk_counts_add(tk_counts *c, uint64_t key, uint64_t n);
/** 1 with *n the counter of `key` (n may be NULL), 0 if it is absent. */
TK_API int tk_counts_get(const tk_counts *c, uint64_t key, uint64_t *n);
/** The number of keys, and the i-th key first added with its counter in
 *  *n (n may be NULL); 0 with *n 0 for i out of range. */
TK_API size_t tk_counts_size(const tk_counts *c);
TK_API uint64_t tk_counts_key(const tk_counts *c, size_t i, uint64_t *n);
/** Free; NULL is allowed. */
TK_API void tk_counts_free(tk_counts *c);

#ifdef __cplusplus
}
#endif

/* the function symbols of an ELF file */
#include "tracekit/elf.h"
/* Arm Tarmac logs as CPU-level records, and their statistics */
#include "tracekit/tarmac.h"
/* check, stats, load: the timing analysis of any trace */
#include "tracekit/analysis.h"
/* nested slices per core: what the exports and the report draw */
#include "tracekit/timeline.h"
/* S.Ha.R.K. FTrace dumps as records */
#include "tracekit/shark.h"
/* the HTML report of a trace */
#include "tracekit/report.h"
/* traces into a Parquet dataset (tracekit dataset) */
#include "tracekit/dataset.h"
/* independent tasks on a few threads (tracekit dataset -j) */
#include "tracekit/jobs.h"
/* the records of the recorder's stream (tracekit record) */
#include "tracekit/ftstream.h"
/* the CPU's state at any moment of a Tarmac log (tracekit tarmac regs) */
#include "tracekit/tarmac_state.h"
/* the exceptions of a Tarmac log as ISR events, fed its records */
#include "tracekit/tarmac_exceptions.h"
/* the function profile of a Tarmac log (tracekit tarmac folded, calls) */
#include "tracekit/tarmac_profile.h"

#endif /* TRACEKIT_H */
