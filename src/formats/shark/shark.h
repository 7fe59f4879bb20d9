/* shark.h - what the S.Ha.R.K. FTrace reader and its tables share. */
#ifndef TK_SHARK_H
#define TK_SHARK_H

#include "../../core/internal.h"
#include "../../core/bytes.h"

#include <string.h>

/* One record: 16 bytes, little-endian (specs/shark-ftrace-reference.md 1.7). */
#define SHARK_REC 16
/* Bit 15 of the type word: written by the unchecked FAST ipoint. */
#define SHARK_FAST 0x8000u

/* Event codes of FTrace.h (the source values; 0x43 is the manual's). */
enum {
	SHARK_CYCLES_PER_MSEC = 0x10,
	SHARK_TRACE_START = 0x20,
	SHARK_TRACE_STOP = 0x30,
	SHARK_ID = 0x60,
	SHARK_IPOINT = 0x01,
	SHARK_TASK_CREATE = 0x02,
	SHARK_TASK_ACTIVATE = 0x12,
	SHARK_TASK_END = 0x42,
	SHARK_TASK_END_CYCLE = 0x62,
	SHARK_TASK_SCHEDULE = 0x82,
	SHARK_TASK_TIMER = 0x92,
	SHARK_TASK_DEADLINE_MISS = 0xB2,
	SHARK_TASK_WCET_VIOLATION = 0xC2,
	SHARK_SERVER_ACTIVE = 0x58,
	SHARK_INTERRUPT_START = 0x03,
	SHARK_INTERRUPT_END = 0x13,
	SHARK_CONTEXT_SWITCH = 0x15,
	SHARK_MUTEX_LOCK = 0x16,
	SHARK_MUTEX_UNLOCK = 0x36,
	SHARK_MUTEX_UNLOCK_MANUAL = 0x43,
	SHARK_MUTEX_WAIT = 0x46,
	SHARK_MUTEX_POST = 0x56,
	SHARK_TIMER_WAKEUP_START = 0x2B,
	SHARK_TIMER_WAKEUP_END = 0x3B,
	SHARK_NEXT_CHUNK = 0xFF
};

/** The FTrace name of an event code ("task_activate"), or NULL if unknown. */
const char *shark_code_name(unsigned code);

/* ---- names given by another reader ------------------------------------- */

/* The kinds of names (the recorder stream's name records). */
enum { SHARK_NAME_TASK = 0, SHARK_NAME_ISR = 1, SHARK_NAME_USER = 2 };

/*
 * The name of a task (by its pid), an ISR (by its IRQ) or a user event
 * channel (n of user_event_n) that another reader knows (the ftstream
 * reader's name records), or NULL: the reader's own name then (task<pid>,
 * IRQ<n>, user_event_<n>).  `len` gets its length.
 */
typedef const char *(*shark_name_fn)(void *ctx, unsigned kind, uint32_t id,
				     size_t *len);

/* What another reader gives the shark reader besides the records. */
typedef struct shark_ext {
	shark_name_fn name;      /* names (NULL: none) */
	void *name_ctx;
	/* the core of each record, by its number (NULL: all on core 0):
	 * each core has its own running task and interrupts, Core_<n> */
	const uint8_t *cores;
	uint64_t ncores;         /* records in cores[] */
	/* the byte offset in the other reader's file of each record, by its
	 * number (NULL: the dump's own, 16 a record), for the messages */
	const uint64_t *offs;
	uint64_t noffs;          /* records in offs[] */
} shark_ext;

/** tk_format_shark's reader_open, with what `x` gives (NULL: nothing). */
int shark_reader_open_ext(tk_reader *r, const shark_ext *x, tk_error *err);

/* ---- the fields of a record (little-endian, as the dump is) ------------- */

/* the TSC: high word first, each word little-endian (one load and a
 * rotation) */
static TK_INLINE uint64_t shark_tsc(const uint8_t *p)
{
	uint64_t v = tk_load_le64(p + 4);

	return v << 32 | v >> 32;
}

/* A clock record: trace_start or cycles_per_msec (the only codes with
 * (code - 0x10) & 0xef zero), FAST or not, with a rate in par2. */
static TK_INLINE int shark_is_clock(const uint8_t *p)
{
	uint32_t w = tk_load_le32(p);

	return ((w - SHARK_CYCLES_PER_MSEC) & 0xefu) == 0 &&
	       tk_load_le32(p + 12) != 0;
}

/* ---- the order records are read in (shark_order.c) ---------------------- */

/*
 * The dump is read through the source's random access (tk_source_size(),
 * tk_source_read_at()), whatever the transport.  A scan at open finds its
 * clock rates and its order; then the records are handed out in time
 * order, a stretch of consecutive records at a time: the file from the
 * oldest record on (one rotation for a single wrap), a merge of at most
 * SHARK_MERGE_MAX ascending runs, or a sort by TSC (then position).
 */
#define SHARK_MERGE_MAX 32

typedef struct shark_run {
	uint64_t cur, end;   /* its slots [cur, end) are next */
	uint64_t wfrom, wto; /* those of [wfrom, wto) are in buf */
	uint8_t *buf;
	uint64_t head;       /* the TSC of slot cur, once ready */
	int ready;
} shark_run;

typedef struct shark_order {
	tk_source *src;
	const char *name;
	/* what the scan found */
	uint64_t nslots;     /* whole records (16-byte slots, empty ones too) */
	size_t tail;         /* bytes after the last whole record */
	uint64_t descents;   /* times the TSC goes down (empty slots skipped) */
	uint64_t at;         /* the slot of the first descent */
	uint64_t clk;        /* the first clock rate in file order, 0: none */
	int clk_differ;      /* another clock record gives another rate */
	int high;            /* a type word has bits 8-14 set */
	uint64_t clk_read;   /* the first rate in reading order */
	/* reading: the file from rot on (runs and sorted NULL), the runs
	 * merged, or the sorted index over the whole dump at base */
	uint64_t rot, cur, lim;
	int part;
	uint8_t *buf;        /* a stretch of the file: slots [wfrom, wto) */
	uint64_t wfrom, wto;
	shark_run *runs;
	size_t nruns;
	uint8_t *base;
	uint32_t *sorted;
	uint64_t nsorted, next;
	/* the last peek: a merged run's stretch, or the sorted index; the
	 * stretch ends before slot `stop` of that run */
	shark_run *peeked;
	uint64_t stop;
} shark_order;

/** Size, scan and arrange the dump of `src` (not consumed; read through
 * tk_source_read_at() from then on).  TK_OK or < 0 (err filled). */
int shark_order_open(shark_order *o, tk_source *src, tk_error *err);
/** The next records in time order: *n >= 1 consecutive slots at *p, the
 * first of them slot *slot of the file.  TK_OK, TK_END or < 0. */
int shark_order_peek(shark_order *o, const uint8_t **p, size_t *n,
		     uint64_t *slot, tk_error *err);
/** The first k records of the last peek were taken. */
void shark_order_take(shark_order *o, size_t k);
void shark_order_close(shark_order *o);


#endif
