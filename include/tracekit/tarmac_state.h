/*
 * tarmac_state.h - the CPU's state at any moment of an Arm Tarmac log.
 *
 * A tk_tarmac_state is fed the records of a log (tracekit/tarmac.h) in
 * order and holds what the log has shown by then: the value of every
 * register it wrote (per CPU), the PC of each CPU's last instruction, and
 * the bytes of one watched range of memory that its memory accesses (reads
 * and writes) showed.  After each record it says what that record changed,
 * which is the history of a register or of an address.  A tk_tarmac_at
 * says where to stop: after the record on a line, at a time, or after the
 * K-th executed instruction.  `tracekit tarmac regs`, `mem` and `history`
 * are a loop of tk_tarmac_next(), tk_tarmac_at_passed() and
 * tk_tarmac_state_record() (docs/tarmac.md, "State at any moment").
 *
 * Included by tracekit.h.
 */
/* tk_error and TK_API; first, as tracekit.h includes this header at its
 * end */
#include "tracekit.h"

#ifndef TRACEKIT_TARMAC_STATE_H
#define TRACEKIT_TARMAC_STATE_H

#include <stddef.h>
#include <stdint.h>

/* the records it is fed (tk_tarmac_record) */
#include "tracekit/tarmac.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A register as the log has shown it.  `value` holds the value's hex
 * digits, most significant first, in lower case, as many as the log wrote
 * (the register's width), '-' for a digit the log marked as not known
 * (`--------` lanes of a Q register, never written since); separators
 * (`_`, `:`, blanks) are dropped.  A value that is not hex digits (`psr
 * xx0xxXxx`) is kept as written, and `hex` is 0.  A write whose digits are
 * '-' keeps the digits known before at the same width.
 */
typedef struct tk_tarmac_reg {
	const char *name;         /**< as the log writes it ("X30", "r14_svc") */
	uint32_t cpu;             /**< the record's cpu (tk_tarmac_record) */
	const char *value;        /**< NUL-terminated, see above */
	int hex;                  /**< value is hex digits and '-' only */
	uint64_t line;            /**< the line that last wrote it */
} tk_tarmac_reg;

typedef struct tk_tarmac_state tk_tarmac_state;

/** An empty state (nothing known).  TK_OK or TK_E_NOMEM. */
TK_API int tk_tarmac_state_new(tk_tarmac_state **out, tk_error *err);

/**
 * Follow the `len` bytes of memory from `address` (at most 2^24; a range
 * may wrap past the top of the address space).  Only these bytes are
 * kept.  Call it before the first record.  TK_OK, TK_E_USAGE (len 0 or
 * too long) or TK_E_NOMEM.
 */
TK_API int tk_tarmac_state_watch(tk_tarmac_state *st, uint64_t address,
				 uint64_t len, tk_error *err);

/** The data side's byte order (tk_tarmac_state_set_order()). */
enum { TK_TARMAC_ORDER_AUTO = 0,  /**< the default: big-endian (BE8) for
				       the records of a CPU whose CPSR, as
				       last written, has its E bit (9) set
				       in AArch32 state (M[4], bit 4, set) */
       TK_TARMAC_ORDER_LE = 1,    /**< little-endian */
       TK_TARMAC_ORDER_BE = 2     /**< big-endian (BE8) */ };

/**
 * How a memory record's value is laid out in bytes: little-endian (its
 * least significant byte at the lowest address) or BE8 (its most
 * significant byte there).  The lanes of LD/ST lines are shown byte by
 * byte at their addresses, and the data-port lines of the spec's form
 * ("MNW4___D") in memory order: neither depends on it.  An order outside
 * the enum is ignored.
 */
TK_API void tk_tarmac_state_set_order(tk_tarmac_state *st, int order);

/** What a record changed: bits of tk_tarmac_state_record()'s result. */
enum { TK_TARMAC_CHANGED_REG = 1,   /**< a register's value (a new one too) */
       TK_TARMAC_CHANGED_MEM = 2    /**< a watched byte (one not known before too) */ };

/**
 * Feed the next record of the log (every record, in order).  A register
 * record sets its register; an instruction record the PC of its CPU; a
 * memory record (not aborted, with its data) the watched bytes it covers,
 * in little-endian byte order (the value's least significant byte at the
 * lowest address; or big-endian, tk_tarmac_state_set_order(); the
 * Cortex-M data-port lines are already in that order,
 * tk_tarmac_record), the lanes of LD/ST lines byte by byte (`##` bytes
 * not known).  Bus transfers and events change nothing.  Returns the
 * TK_TARMAC_CHANGED_* bits of what changed (0: nothing), or TK_E_NOMEM.
 */
TK_API int tk_tarmac_state_record(tk_tarmac_state *st, const tk_tarmac_record *rec,
				  tk_error *err);

/** The registers shown so far, in the order they were first written. */
TK_API size_t tk_tarmac_state_reg_count(const tk_tarmac_state *st);
TK_API const tk_tarmac_reg *tk_tarmac_state_reg(const tk_tarmac_state *st, size_t i);

/**
 * After a record that changed a register: its index, and in *old its
 * value before the record (NULL: not known before; valid until the next
 * record).
 */
TK_API size_t tk_tarmac_state_changed_reg(const tk_tarmac_state *st, const char **old);

/**
 * The watched bytes (tk_tarmac_state_watch()): their values and, per byte,
 * 1 when the log has shown it.  With `before` set, as they were before the
 * last record.  Returns the length (0: none watched).
 */
TK_API size_t tk_tarmac_state_bytes(const tk_tarmac_state *st, int before,
				    const uint8_t **value, const uint8_t **known);

/** The address of the last instruction record of CPU `cpu` (any status):
 * 1 with *pc set, or 0 when it has none yet. */
TK_API int tk_tarmac_state_pc(const tk_tarmac_state *st, uint32_t cpu, uint64_t *pc);

/** Free; NULL is allowed. */
TK_API void tk_tarmac_state_free(tk_tarmac_state *st);

/** Kinds of moment. */
enum { TK_TARMAC_AT_END = 0,     /**< after the last record */
       TK_TARMAC_AT_LINE = 1,    /**< after the record on line `value` */
       TK_TARMAC_AT_TIME = 2,    /**< after the records stamped up to `value` */
       TK_TARMAC_AT_INSTR = 3    /**< after the `value`-th executed instruction */ };

/** A moment of a log (tk_tarmac_at_init(), then set the fields). */
typedef struct tk_tarmac_at {
	int kind;                 /**< TK_TARMAC_AT_* */
	uint64_t value;
	/** AT_TIME: the unit of `value`; TK_TARMAC_UNIT_NONE: the log's own
	 * (compared as written).  An SI unit is compared exactly with a
	 * record's SI stamp of any SI unit. */
	tk_tarmac_unit unit;
	/** AT_INSTR: count only the instructions of this record cpu;
	 * UINT32_MAX (the default) counts every CPU's. */
	uint32_t cpu;
	uint64_t executed;        /**< AT_INSTR: executed instructions counted so far */
} tk_tarmac_at;

/** The end of the log, every CPU. */
TK_API void tk_tarmac_at_init(tk_tarmac_at *at);

/**
 * 1 when `rec` lies past the moment (feed it nothing more: the state is
 * the one asked for), 0 when it is still before it or at it, TK_E_RANGE
 * when its stamp cannot be compared with the time asked (another unit
 * without an SI length: clk against ns).  Call it on every record in
 * order: AT_INSTR counts the executed instructions (IT, IA, ES; not IS,
 * CCFAIL, IE) and is passed at the first instruction record after the
 * value-th; AT_TIME at the first record stamped later than the time;
 * AT_LINE at the first record after the line.
 */
TK_API int tk_tarmac_at_passed(tk_tarmac_at *at, const tk_tarmac_record *rec);


/**
 * The index of a Tarmac log: checkpoints every `span` bytes of the log (at
 * the line after an instruction record) holding the registers and PCs
 * known there, the reader's place (byte offset, line, time) and the
 * executed instructions counted, and per span between two checkpoints the
 * 4 KiB blocks its memory records touch and the register names its
 * register records name.  A query reads the log from the checkpoint
 * before its moment only, and history skips the spans that cannot change
 * what it follows (docs/tarmac.md, "The index").  Checkpoint 0 is the
 * start of the log (nothing known); span k runs from checkpoint k to
 * checkpoint k + 1 (the last one to the end).
 */
typedef struct tk_tarmac_index tk_tarmac_index;

/** The default bytes of log between two checkpoints (256 KiB). */
#define TK_TARMAC_INDEX_SPAN ((uint64_t)1 << 18)

/** Where tk_tarmac_index_open() found or made the index. */
enum { TK_TARMAC_INDEX_LOADED = 0,   /**< a valid index of the log as it is */
       TK_TARMAC_INDEX_BUILT = 1,    /**< none (or another span): built and written */
       TK_TARMAC_INDEX_REBUILT = 2,  /**< one not valid (damaged, of another log or
					  of the log before it changed): built again */
       TK_TARMAC_INDEX_MEMORY = 3    /**< built, and not written (`write` 0) */ };

/**
 * The index of the Tarmac log file `path` (a file: not standard input nor
 * compressed), kept at `index_path` (tk_tarmac_index_path()): loaded when
 * it is valid, of this span and of the log as it is now (its size, mtime
 * and a hash of its first and last 64 KiB), else built (every record read,
 * leniently) and, with `write` set, written atomically (a temporary file
 * renamed over it).  `span` 0 is TK_TARMAC_INDEX_SPAN.  *how (may be NULL)
 * says which (TK_TARMAC_INDEX_*).  Returns TK_OK, TK_E_IO (the log cannot
 * be read, changed while it was indexed, or the index cannot be written:
 * nothing is left behind), TK_E_PARSE (the log cannot be read through: a
 * line too long, a damaged compressed stream), TK_E_FORMAT (the index
 * built does not read back), TK_E_USAGE (not a file) or TK_E_NOMEM.
 */
TK_API int tk_tarmac_index_open(tk_tarmac_index **out, const char *path,
				const char *index_path, uint64_t span, int write,
				int *how, tk_error *err);

/**
 * The path of the index of `path` into buf (of `size` bytes): PATH.tkidx
 * beside the log when `dir` is NULL, else DIR/NAME-HASH.tkidx (NAME the
 * log's file name, HASH of its absolute path).  Returns the length, or 0
 * when it does not fit or the absolute path cannot be had.
 */
TK_API size_t tk_tarmac_index_path(const char *path, const char *dir, char *buf,
				   size_t size);

/** The number of checkpoints, the start of the log (checkpoint 0) included. */
TK_API size_t tk_tarmac_index_count(const tk_tarmac_index *ix);

/**
 * The last checkpoint before the moment `at` (its kind, value, unit) that
 * no record before it passes: replayed from there, tk_tarmac_at_passed()
 * stops where it stops from the start.  `cpu` is the CPU prefix whose
 * instructions AT_INSTR counts (NULL: every CPU's).  Returns the index of
 * the checkpoint (0: the start).
 */
TK_API size_t tk_tarmac_index_find(const tk_tarmac_index *ix, const tk_tarmac_at *at,
				   const char *cpu);

/**
 * Set `tr` (opened with tk_tarmac_open() on the indexed file, no record
 * read yet, or set by this call before) to read on after checkpoint `k`,
 * its lines numbered as in the whole log and every CPU name of the log
 * known in the order the log names them; and, with `st` set, the
 * registers and PCs of `st` to those of checkpoint k (its watched bytes
 * are kept).  The log's bytes at the checkpoint are checked against the
 * index.  Returns TK_OK, TK_E_FORMAT (the log changed since it was
 * indexed), TK_E_IO (the log cannot be read), TK_E_USAGE (k out of range,
 * or `tr` not on a file) or TK_E_NOMEM.
 */
TK_API int tk_tarmac_index_seek(const tk_tarmac_index *ix, size_t k, tk_tarmac *tr,
				tk_tarmac_state *st, tk_error *err);

/** The line of the last record before checkpoint k (0 for the start, and
 * out of range: UINT64_MAX past the last). */
TK_API uint64_t tk_tarmac_index_line(const tk_tarmac_index *ix, size_t k);

/**
 * The executed instructions (as tk_tarmac_at counts them) before
 * checkpoint k: of the CPU prefix `cpu`, or of every CPU (NULL).  Returns
 * the count.
 */
TK_API uint64_t tk_tarmac_index_executed(const tk_tarmac_index *ix, size_t k,
					 const char *cpu);

/** 1 when the log has named the CPU prefix `cpu` before checkpoint k (k past
 * the last: anywhere in the log), else 0. */
TK_API int tk_tarmac_index_has_cpu(const tk_tarmac_index *ix, size_t k, const char *cpu);

/** 1 when span k holds a memory record that may show a byte of the `len`
 * bytes from `address` (0: none does, the span changes none of them). */
TK_API int tk_tarmac_index_mem(const tk_tarmac_index *ix, size_t k, uint64_t address,
			       uint64_t len);

/** The number of register names (as the log writes them) of the log, and
 * name i (its length in *len); NULL out of range. */
TK_API size_t tk_tarmac_index_reg_count(const tk_tarmac_index *ix);
TK_API const char *tk_tarmac_index_reg_name(const tk_tarmac_index *ix, size_t i,
					    size_t *len);

/** 1 when span k holds a register record of register name i, else 0. */
TK_API int tk_tarmac_index_reg_in(const tk_tarmac_index *ix, size_t k, size_t i);

/** 1 when the lenient read that built the index skipped a line or warned
 * (strict mode has to read the log itself), else 0. */
TK_API int tk_tarmac_index_warned(const tk_tarmac_index *ix);

/**
 * The index is checked lazily: its header, names and table when opened, a
 * checkpoint's state and span summary when a query first uses them.  A
 * part found damaged is not used: the queries on it answer conservatively
 * (tk_tarmac_index_mem() and tk_tarmac_index_reg_in() 1, the others 0) and
 * tk_tarmac_index_seek() fails with TK_E_FORMAT from then on; the caller
 * then builds the index again (removes it and opens it once more).
 * tk_tarmac_index_check(): checkpoint k's parts checked now, 1 when they
 * (and every part checked before) are sound, else 0.
 * tk_tarmac_index_damaged(): 1 when a damaged part was found, else 0.
 */
TK_API int tk_tarmac_index_check(const tk_tarmac_index *ix, size_t k);
TK_API int tk_tarmac_index_damaged(const tk_tarmac_index *ix);

/** Free; NULL is allowed. */
TK_API void tk_tarmac_index_free(tk_tarmac_index *ix);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_TARMAC_STATE_H */
