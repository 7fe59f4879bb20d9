/*
 * tarmac.h - Arm Tarmac logs as CPU-level records.
 *
 * A Tarmac log is a text trace of a CPU: executed instructions, register
 * writes, events (resets, exceptions), memory accesses and bus transfers,
 * one per line.  This API reads such a log as a stream of tk_tarmac_record
 * values, without loading it (a file is read in pieces) and without an
 * allocation per record, and counts them into record statistics
 * (tk_tarmac_stats: the figures of `tracekit stats`).  The common event
 * model sees the same logs through the "tarmac" format of tk_reader_open(),
 * which derives exception entry and return as ISR events per core
 * (docs/mappings.md, "Tarmac").  Other objects are fed these records:
 * tarmac_exceptions.h (those ISR events, in the same pass),
 * tarmac_profile.h (a function profile against an ELF file's symbols) and
 * tarmac_state.h (the CPU's registers and memory at any moment).
 *
 * The variants read (docs/tarmac.md has one example line of each):
 *  - Cortex-M RTL ("tarmac.txt" of the Cortex-M3/M4 bundles): IT/IS/IF/IE/IA
 *    instruction lines with the (addr:count) tag and T16/T32/X, R, E, the
 *    B<sn><rw><sz><od><lk><sp><pt> bus and M... memory lines; Cortex-M0 RTL
 *    lines without tag and instruction-set field, MR4_I style memory lines.
 *  - Arm Fast Models: IT/IS (n) addr opcode A|T|O mode : disassembly, R with
 *    any register name, MR1..MR16 / MW..., (ABORTED), E CoreEvent_...,
 *    CADI E, SIGNAL:, INFO_EXCEPTION_REASON:, CACHE MAINTENANCE, FD, CPU
 *    prefixes ("cpu0", "cluster0.cpu1").
 *  - gem5's Tarmac (Fast Models form with a "cpuN" prefix).
 *  - "Tarmac Text Rev 3t": ES instruction records, EXC exceptions, BR
 *    branches, LD/ST memory records with their continuation lines, records
 *    without a time stamp (they take the previous line's time).
 *  - AArch64 registers (X, W, V, Q, Z, P, named system registers).
 *  Times: any unit ("ps", "ns", "us", "clk", "cyc", "tic", ...), with or
 *  without a blank before it; fractional SI times are scaled exactly.
 *
 * Strict mode accepts exactly these documented line forms; any other line is
 * an error with its FILE:LINE:COL.  Lenient mode (the default) counts such a
 * line as skipped, reports a warning, and goes on.  In both modes blank lines
 * and lines whose first non-blank character is '#' are comments.
 */
/* tk_error, tk_warning_fn, tk_input and TK_API; first, as tracekit.h
 * includes this header at its end */
#include "tracekit.h"

#ifndef TRACEKIT_TARMAC_H
#define TRACEKIT_TARMAC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Record kinds, one per kind of Tarmac line. */
typedef enum tk_tarmac_kind {
	TK_TARMAC_INSTRUCTION = 0, /**< IT IS IF IE IA, ES (addr:opcode) */
	TK_TARMAC_REGISTER = 1,        /**< R name value */
	TK_TARMAC_EVENT = 2,           /**< E, EXC, ES EXC, CADI E, SIGNAL:, INFO_...: */
	TK_TARMAC_MEMORY = 3,          /**< M..., MR/MW, LD/ST, R08/W04 */
	TK_TARMAC_BUS = 4,             /**< B<sn><rw><sz><od><lk><sp><pt> */
	TK_TARMAC_BRANCH = 5,          /**< BR (addr), FD program flow */
	TK_TARMAC_OTHER = 6,           /**< header, CACHE MAINTENANCE: kept as text */
	TK_TARMAC_KIND_COUNT = 7
} tk_tarmac_kind;

/** "instruction", "register", "event", "memory", "bus", "branch", "other". */
TK_API const char *tk_tarmac_kind_name(tk_tarmac_kind kind);

/** Time units of the stamps. */
typedef enum tk_tarmac_unit {
	TK_TARMAC_UNIT_NONE = 0, /**< the record has no time stamp of its own */
	TK_TARMAC_UNIT_FS = 1, TK_TARMAC_UNIT_PS = 2, TK_TARMAC_UNIT_NS = 3,
	TK_TARMAC_UNIT_US = 4, TK_TARMAC_UNIT_MS = 5, TK_TARMAC_UNIT_S = 6,
	TK_TARMAC_UNIT_CLK = 7,      /**< clock cycles (Fast Models, gem5) */
	TK_TARMAC_UNIT_CYC = 8,      /**< cycles (Cortex-M4 RTL) */
	TK_TARMAC_UNIT_TIC = 9,      /**< ticks (Text Rev 3t) */
	TK_TARMAC_UNIT_CS = 10,       /**< "cs" as written by some producers */
	TK_TARMAC_UNIT_COUNT = 11
} tk_tarmac_unit;

/** The unit as written ("ns", "clk", ...; "" for NONE). */
TK_API const char *tk_tarmac_unit_name(tk_tarmac_unit unit);

/** Producers, as far as the lines tell. */
typedef enum tk_tarmac_variant {
	TK_TARMAC_VARIANT_UNKNOWN = 0, /**< no record seen yet */
	TK_TARMAC_VARIANT_CORTEX_M = 1,    /**< Cortex-M RTL (the spec) */
	TK_TARMAC_VARIANT_FAST_MODELS = 2, /**< Arm Fast Models */
	TK_TARMAC_VARIANT_GEM5 = 3,        /**< gem5 (Fast Models form, cpuN prefix) */
	TK_TARMAC_VARIANT_TEXT_REV3T = 4,  /**< "Tarmac Text Rev 3t" ES style */
	TK_TARMAC_VARIANT_MIXED = 5        /**< lines of several producers */
} tk_tarmac_variant;

/** "cortex-m-rtl", "fast-models", "gem5", "text-rev3t", "mixed", "unknown". */
TK_API const char *tk_tarmac_variant_name(tk_tarmac_variant v);

/** A span of the input line; not NUL-terminated; len 0 when absent. */
typedef struct tk_tarmac_span {
	const char *ptr;
	size_t len;
} tk_tarmac_span;

/** Instruction-set states of instruction and branch records. */
enum {
	TK_TARMAC_ISET_NONE = 0,   /**< not given */
	TK_TARMAC_ISET_ARM = 'A',  /**< A32 ("A", or IA) */
	TK_TARMAC_ISET_THUMB = 'T',/**< T32 ("T", "T16", "T32") */
	TK_TARMAC_ISET_A64 = 'O',  /**< A64 ("O") */
	TK_TARMAC_ISET_UNKNOWN = 'X' /**< "X": the encoding was not recognised */
};

/**
 * One record.  Spans point into the input and, like the record, are valid
 * until the next call to tk_tarmac_next() or tk_tarmac_close().  Fields that
 * do not apply to the record's kind are 0 / empty.
 */
typedef struct tk_tarmac_record {
	tk_tarmac_kind kind;
	uint64_t line;            /**< 1-based line number */
	uint32_t column;          /**< 1-based column of the kind token */
	tk_tarmac_span raw;       /**< the whole line, its end-of-line cut */
	/**
	 * Time in `unit`.  A record without a stamp of its own (Text Rev 3t
	 * continuation lines) has the time and unit of the last stamped line
	 * and own_time == 0; before any stamp unit is NONE and time 0.
	 * Fractional SI stamps ("10.356000us") are scaled exactly into a finer
	 * unit (here ps).
	 */
	uint64_t time;
	tk_tarmac_unit unit;
	int own_time;
	/** CPU index: 0 for lines without a CPU prefix, else 1 + the index
	 *  in tk_tarmac_cpu_name()'s table. */
	uint32_t cpu;
	tk_tarmac_span kind_text; /**< the kind token as written ("IT", "MNW4___D") */

	/* instruction, branch, memory, bus, event: an address */
	uint64_t address;         /**< PC (instruction), target (branch), data address */
	int has_address;
	tk_tarmac_span phys;      /**< physical address text after ':' where given */

	/* instruction */
	uint64_t opcode;
	unsigned opcode_bits;     /**< 16, 32 (0: not known, e.g. "--------") */
	int iset;                 /**< TK_TARMAC_ISET_* */
	int executed;             /**< 1 executed; 0 skipped (IS, CCFAIL), faulted (IE) */
	char status;              /**< the letter after I: 'T','S','F','E','A'; 'S'/'T' for ES,
				       'E' for an ES whose fetch failed ("--------") */
	uint64_t count;           /**< the instruction count or tag count, where given */
	tk_tarmac_span mode;      /**< processor mode ("svc_s", "EL3h_s", "thread") */
	tk_tarmac_span mnemonic;  /**< first word of the disassembly */
	tk_tarmac_span disasm;    /**< the disassembly text, trailing blanks cut */

	/* register */
	tk_tarmac_span reg;       /**< name as written ("r0", "X30", "V0<127:64>", "DC CISW") */
	tk_tarmac_span qualifier; /**< "(USR)", "(MSP)", "__C_" around the value */
	tk_tarmac_span value;     /**< value text as written (may hold '_', ' ', '-', 'x') */
	uint64_t reg_value;       /**< value when value_known */
	int value_known;          /**< the value is all hex digits and fits 64 bits */

	/* memory, bus */
	int write;                /**< 1 write, 0 read */
	unsigned size;            /**< bytes transferred (0 when not known) */
	int aborted;              /**< "(ABORTED)" */
	char seq;                 /**< 'N', 'S' (spec lines), 'C' (coprocessor), 0 */
	char port;                /**< 'I', 'D', 'S', 'A', 'R', '_' (spec lines), 0 */
	int opcode_fetch;         /**< 'O' attribute: an instruction fetch */
	int locked, speculative;  /**< 'L', 'S' attributes */
	tk_tarmac_span data;      /**< data text as written */
	uint64_t data_value;      /**< when data_known */
	int data_known;

	/* event, other */
	tk_tarmac_span name;      /**< event name ("Reset", "CoreEvent_RESET",
				       "simulation_stopped", "SIGNAL") */
	tk_tarmac_span text;      /**< the rest of the line after the kind token */
	int exception_number;     /**< EXC [n], INT_TAKEN n; -1 when not given */
} tk_tarmac_record;

typedef struct tk_tarmac tk_tarmac;

typedef struct tk_tarmac_opts {
	/** sizeof(tk_tarmac_opts), set by tk_tarmac_opts_init(): see
	 *  "Option structs" in tracekit.h. */
	size_t size;
	int strict;               /**< see the top of this header */
	tk_warning_fn on_warning; /**< once per kind of warning; NULL: counted only */
	void *warning_ctx;
} tk_tarmac_opts;

/** Fill `opts` with the defaults (lenient) and its size. */
TK_API void tk_tarmac_opts_init(tk_tarmac_opts *opts);

/**
 * Open a Tarmac log ("-" for standard input; gzip and zstd are decoded).
 * `opts` may be NULL for the defaults.  Returns TK_OK, or a negative status
 * with `err` filled.
 */
TK_API int tk_tarmac_open(tk_tarmac **out, const char *path,
			  const tk_tarmac_opts *opts, tk_error *err);

/**
 * As tk_tarmac_open(), on `len` bytes at `data` (not copied).  Returns
 * TK_OK, or a negative status with `err` filled.
 */
TK_API int tk_tarmac_open_mem(tk_tarmac **out, const void *data, size_t len,
			      const char *name, const tk_tarmac_opts *opts,
			      tk_error *err);

/**
 * As tk_tarmac_open(), on an input of tk_input_open() (its probe lost no
 * byte: standard input or a pipe is read once), read as a Tarmac log
 * whatever format it was told to have.  The input is the reader's from
 * then on and is closed with it, and on failure too.  Returns TK_OK, or a
 * negative status with `err` filled.
 */
TK_API int tk_tarmac_open_input(tk_tarmac **out, tk_input *in,
				const tk_tarmac_opts *opts, tk_error *err);

/**
 * The next record: TK_OK with *rec filled, TK_END at the end, or a negative
 * status with `err` filled (strict mode: an unknown or malformed line):
 * the same status and error on every later call (an error is never
 * followed by records or by TK_END).
 */
TK_API int tk_tarmac_next(tk_tarmac *tr, tk_tarmac_record *rec, tk_error *err);

/** Lines skipped so far (lenient mode), and warnings so far. */
TK_API uint64_t tk_tarmac_skipped_count(const tk_tarmac *tr);
TK_API uint64_t tk_tarmac_warning_count(const tk_tarmac *tr);

/** The producer as far as the lines read so far tell. */
TK_API tk_tarmac_variant tk_tarmac_variant_get(const tk_tarmac *tr);

/** Number of CPU prefixes seen, and the name of the i-th (0-based). */
TK_API size_t tk_tarmac_cpu_count(const tk_tarmac *tr);
TK_API const char *tk_tarmac_cpu_name(const tk_tarmac *tr, size_t i);

/** The input name used in messages. */
TK_API const char *tk_tarmac_name(const tk_tarmac *tr);

/** Close and free; NULL is allowed. */
TK_API void tk_tarmac_close(tk_tarmac *tr);

/* ------------------------------------------------------------------------ */
/* Record statistics                                                         */
/* ------------------------------------------------------------------------ */

/**
 * Figures of a log's records, fed in one pass (those of `tracekit stats` on
 * a Tarmac log):
 *  - instructions executed, skipped (IS, CCFAIL: the condition failed) and
 *    faulted (IE, an ES whose fetch failed: a prefetch abort);
 *  - the instruction mix: executed instructions per mnemonic (the first
 *    word of the disassembly, in upper case, cut to 23 bytes);
 *  - the hottest addresses: executed instructions per PC;
 *  - exception durations: per exception of the exception events (the
 *    ISR events of tk_tarmac_exceptions_*, in its time base), the instances
 *    from entry to return, and those still open at the end of the log;
 *  - memory and bus traffic per 256 MB region: accesses and bytes per
 *    direction (aborted accesses and those without an address are left out).
 */
typedef struct tk_tarmac_stats tk_tarmac_stats;

/** What to gather (bits); the instruction counts and the unit always. */
enum {
	TK_TARMAC_STATS_MIX = 1,
	TK_TARMAC_STATS_HOT = 2,
	TK_TARMAC_STATS_EXCEPTIONS = 4,   /**< runs the exception events */
	TK_TARMAC_STATS_TRAFFIC = 8,
	TK_TARMAC_STATS_ALL = 15
};

typedef struct tk_tarmac_mnemonic_count {
	const char *mnemonic;     /**< upper case, NUL-terminated */
	uint64_t count;
} tk_tarmac_mnemonic_count;

typedef struct tk_tarmac_address_count {
	uint64_t address;
	uint64_t count;
} tk_tarmac_address_count;

typedef struct tk_tarmac_exception_stat {
	const char *name;         /**< "Reset", "SysTick", "IRQ12", ... */
	uint64_t count;           /**< instances from entry to return */
	uint64_t total, min, max; /**< their durations (min, max 0 when count 0) */
	uint64_t open;            /**< entered and not returned by the end */
} tk_tarmac_exception_stat;

/** Directions of tk_tarmac_traffic's arrays. */
enum { TK_TARMAC_MEMORY_READ = 0, TK_TARMAC_MEMORY_WRITE = 1, TK_TARMAC_BUS_READ = 2,
       TK_TARMAC_BUS_WRITE = 3 };

typedef struct tk_tarmac_traffic {
	uint64_t base;            /**< the region's first address (a multiple of 2^28) */
	uint64_t count[4];        /**< accesses per TK_TARMAC_MEMORY_READ .. BUS_WRITE */
	uint64_t bytes[4];        /**< bytes transferred, likewise */
} tk_tarmac_traffic;

/**
 * Statistics of the records of `tr` (borrowed: it must outlive them),
 * gathering `what` (TK_TARMAC_STATS_* bits).  `opts` (NULL: the defaults)
 * gives the exception events strict mode and its warning callback.
 * TK_OK, or a negative status with `err` filled.
 */
TK_API int tk_tarmac_stats_new(tk_tarmac_stats **out, const tk_tarmac *tr,
			       unsigned what, const tk_tarmac_opts *opts,
			       tk_error *err);

/** Feed the next record of the log (every record, in order).  TK_OK or
 * TK_E_NOMEM. */
TK_API int tk_tarmac_stats_record(tk_tarmac_stats *s, const tk_tarmac_record *rec,
				  tk_error *err);

/**
 * After the last record: the tables are made.  TK_OK, TK_E_NOMEM, or the
 * exception events's error (strict mode: TK_E_RANGE for a stamp that
 * cannot be expressed in its time base).  Feed no record afterwards.
 */
TK_API int tk_tarmac_stats_finish(tk_tarmac_stats *s, tk_error *err);

/** Executed, skipped (condition failed) and faulted (prefetch abort)
 *  instructions, and the unit of the first stamp. */
TK_API uint64_t tk_tarmac_stats_executed(const tk_tarmac_stats *s);
TK_API uint64_t tk_tarmac_stats_skipped(const tk_tarmac_stats *s);
TK_API uint64_t tk_tarmac_stats_faulted(const tk_tarmac_stats *s);
TK_API tk_tarmac_unit tk_tarmac_stats_unit(const tk_tarmac_stats *s);
/** The exceptions whose return is stamped earlier than their entry (their
 * duration counts as 0): 0 when every duration is exact. */
TK_API uint64_t tk_tarmac_stats_backwards(const tk_tarmac_stats *s);

/**
 * The tables (after finish), each an array owned by `s` set in *rows, and
 * its length returned:
 *  - mix: by count, largest first, then mnemonic;
 *  - hottest: by count, largest first, then address;
 *  - exceptions: in the order of their first complete instance, then those
 *    only open at the end in the order they started;
 *  - traffic: regions in the order of their first access.
 */
TK_API size_t tk_tarmac_stats_mix(const tk_tarmac_stats *s,
				  const tk_tarmac_mnemonic_count **rows);
TK_API size_t tk_tarmac_stats_hottest(const tk_tarmac_stats *s,
				      const tk_tarmac_address_count **rows);
TK_API size_t tk_tarmac_stats_exceptions(const tk_tarmac_stats *s,
					 const tk_tarmac_exception_stat **rows);
TK_API size_t tk_tarmac_stats_traffic(const tk_tarmac_stats *s,
				      const tk_tarmac_traffic **rows);

/** Free; NULL is allowed. */
TK_API void tk_tarmac_stats_free(tk_tarmac_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_TARMAC_H */

