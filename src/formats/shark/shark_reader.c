/*
 * shark_reader.c - the reader of S.Ha.R.K. FTrace dumps (the "new tracer"
 * of S.Ha.R.K. 1.4 - 1.5.4): 16-byte records, no file header.
 *
 * A record is  u16 type | u16 par1 | u32 tsc_hi | u32 tsc_lo | u32 par2,
 * each field little-endian, the TSC high word first
 * (specs/shark-ftrace-reference.md 1.7).  Records whose type word is 0 are
 * empty slots and are skipped, as the target's own writers do.
 *
 * Time: the dump carries cycles, and the clock rate only as a parameter
 * (trace_start's or cycles_per_msec's par2, clk_per_msec).  When the whole
 * dump is in memory and gives one clock rate (the usual case), a tick is
 * one cycle: the time base is exactly 1/clk_per_msec ms and event times
 * are the TSC values themselves, with nothing rounded.  A writer that
 * needs a decimal unit then converts exactly where it can and says how
 * many times it had to round.  Only a stream too large to scan ahead, or a
 * dump whose clock rate changes, is read in picoseconds,
 * floor(tsc * 10^9 / clk_per_msec) per rate segment, and a warning says
 * so (any clock below 1 THz keeps that map one-to-one); shark_time.h
 * computes it exactly without a division per record.
 *
 * Order: the target writes records in buffer order, which after a cyclic
 * chunk wrapped is not time order.  When the whole input is in memory
 * (mapped files, memory, or a stream of up to WHOLE_MAX bytes) a single
 * wrap is read as a rotation from the oldest record, a plain file of at
 * most MERGE_MAX ascending runs is merged from its runs, and anything else
 * out of order is sorted by TSC (an index of 4 bytes per record);
 * otherwise records are read as they come and a decrease is reported.
 *
 * Speed and memory: a wholly read dump is scanned once at open (its clock
 * rates and its order: a few instructions per record) and then mapped to
 * events a block of records at a time.  A plain file is read by both
 * passes with pread() into buffers of CHUNK_SLOTS records that stay in
 * the cache, not through its mapping: the copy costs less than touching
 * pages that are mapped for one pass only (each new page's table entry,
 * and far more where a hypervisor shadows page tables), and the resident
 * size stays a few MB whatever the size of the dump.  Only a dump that
 * must be sorted through the index is read through the mapping.
 *
 * Blocks and threads: records are mapped to events a block (BCAP events)
 * at a time by fill(), which runs either in shark_reader_next() (one
 * thread) or on a second thread through src/core/pipe.h (tk_reader_opts
 * threads); tk_reader_next() hands out the events of a block itself
 * (r->evq), so that most events cost it a compare and a pointer step.  fill() takes only the records whose mapping touches nothing
 * but the reader's own decoding state and the block (a context, interrupt,
 * mutex or kept code seen before, no warning): a record that needs more
 * (a new entity, a string to intern, a warning, an error, the first
 * event) ends the block with TK_PIPE_STALL before it, and the consumer,
 * once it has handed out the block's events, maps that one record itself
 * (the slow path, refill(): the worker waits), then lets the worker go
 * on.  So the tk_trace is only changed on the caller's thread, warnings
 * reach the callback exactly between the events before and after their
 * record, and an error is returned after the events of the records before
 * it (its record is taken: a caller that goes on reads the next one),
 * with or without the thread.  A dump whose records often need the consumer is
 * read on the caller's thread for a while after each stall (INLINE_RUN),
 * so that stalls cost no more than a thread's round trip now and then.
 *
 * The event model mapping (tasks, context switches, interrupts, mutexes,
 * the rest kept by name) is in docs/mappings.md.
 */
#include "shark.h"
#include "shark_time.h"
#include "../../core/pipe.h"
#include "../../core/readahead.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* warning kinds (one report each, then only counted) */
enum {
	W_NO_CLOCK,
	W_REORDERED,
	W_TIME_DECREASES,
	W_TRUNCATED,
	W_UNKNOWN_CODE,
	W_TYPE_HIGH_BITS,
	W_UNLOCK_43,
	W_NO_JOB,
	W_ISR_UNBALANCED,
	W_LOST,
	W_ISR_DEPTH,
	W_CLOCK_ROUNDED,
};

/* Streams up to this size are read whole so that they can be reordered. */
#define WHOLE_MAX ((size_t)64 << 20)
/* How far a stream is looked into for the clock rate. */
#define CLOCK_SCAN ((size_t)64 << 10)
/* Assumed when the dump never gives its clock: 1 GHz, a cycle is 1 ns. */
#define DEFAULT_CLK 1000000u
/*
 * Events are made a block of BCAP at a time.  PER_REC is the most events
 * one record makes: 3 (a context switch, an interrupt's start or end: the
 * preemption or end of one thing, the activation and start of another)
 * and the first event of the trace; a record is mapped only with PER_REC
 * free slots in the block.  The caller's own block is filled only up to
 * OWN_CAP events: 4096 (288 KB) stay in the second-level cache between
 * being made and being handed out (on one thread 7 % faster than 16384,
 * bench/shark_read.sh); the pipe's blocks take BCAP, which halves the
 * handovers between the threads.
 */
#define BCAP 16384
#define OWN_CAP 4096
#define PER_REC 4
/* blocks of the pipe (one held by the consumer, the others filled ahead) */
#define NBLOCKS 4
/* After a stall (auto threads), the blocks filled on the caller's thread
 * before the worker is let go on: at the start, and after each stall (more
 * if the worker stalled again soon after it went on).  (These counts, and
 * BACKOFF_* and HERE_PROBE below, are of the caller's blocks, OWN_CAP
 * events each; WARM, PROBE and PERIOD_* are of the pipe's, BCAP each.) */
#define INLINE_RUN 32
#define INLINE_MAX 2048
/*
 * Auto threads also time the pipe against the caller's thread (adapt()).
 * Each run of the pipe is let go WARM blocks (its worker starts or wakes,
 * its ring fills), then the events of its next PROBE blocks are timed and
 * compared with the last run of blocks filled here (from its second
 * block).  Where the pipe is slower (its blocks cross between cores that
 * share no cache, or its CPU is slow: on some hosts that costs more than
 * the mapping it takes off the caller), the worker is stopped and the
 * caller fills BACKOFF_MIN blocks itself before the pipe is tried again,
 * twice as many each time it loses again.  Where it is faster it runs
 * PERIOD_MIN blocks (twice as many each time it wins again), then the
 * caller fills HERE_PROBE blocks to time itself afresh (the host may have
 * changed).  The first run here (new tasks, the first touch of
 * everything) is no measure: the first run of the pipe is followed by
 * such a timed run here before anything is compared.
 */
#define WARM 2
#define PROBE 4
#define HERE_PROBE 18
#define BACKOFF_MIN 256
#define BACKOFF_MAX 16384
#define PERIOD_MIN 128
#define PERIOD_MAX 2048
/* the records one pread() of a plain file reads (256 KB: the buffer stays
 * in the cache while its records are decoded) */
#define CHUNK_SLOTS ((size_t)16384)
/* the scan at open reads 1 MB at a time: it looks at each record once,
 * right after the copy, and a pread() costs a few microseconds on hosts
 * that trap system calls (1024 calls for a 1 GiB dump instead of 4096:
 * its time 0.080 -> 0.070 s, medians of 15 interleaved) */
#define SCAN_SLOTS (4 * CHUNK_SLOTS)
#define ISR_MAX 16
#define NOTE_MAX 64
/* A plain file in at most MERGE_MAX ascending runs (a dump of several
 * chunks: one per core, say) is read in TSC order by merging its runs,
 * each through a pread() buffer of MERGE_SLOTS records; with more runs,
 * through the sort index and the mapping. */
#define MERGE_MAX 32
#define MERGE_SLOTS ((size_t)4096)
/*
 * A plain file read in file order with a second thread allowed: the
 * chunks (CHUNK_SLOTS) of the read pass are read ahead into RA_BUFS
 * buffers (src/core/readahead.h), so that the kernel's copy runs beside
 * the mapping, and never on a third busy thread: while the caller's
 * thread maps (auto threads), a read-ahead worker reads; while the pipe
 * maps, that worker is parked and the caller's thread reads ahead itself
 * between the blocks it takes (forced threads start no worker).  The
 * mapping reads a chunk itself when nobody has.  With three busy threads
 * on two CPUs the mapping shares its CPU and loses: the loop of
 * bench/shark_read.sh's 1 GiB dump took 0.373 s with the worker beside
 * the pipe, 0.303 s with the caller reading ahead (auto threads, medians
 * of 11 interleaved; docs/shark.md, stop 18).
 */
#define RA_BUFS 8

enum task_state { TS_NONE, TS_ACTIVE, TS_RUNNING, TS_READY };

/* A task: one per (context, pid) naming; the job (instance) it is in. */
typedef struct task {
	uint32_t ent;
	uint16_t ctx;
	uint8_t state;
	int64_t last_inst;   /* the last instance activated */
	int64_t cur_inst;    /* the instance being executed, 0: none */
} task;

typedef struct isr {
	uint32_t ent;
	int64_t inst;
} isr;

/* One raw record, decoded (par2: par2_of()). */
typedef struct rec {
	unsigned type;       /* the whole type word */
	unsigned code;       /* its low byte */
	unsigned par1;
	uint64_t tsc;
	const uint8_t *p;    /* the record */
} rec;

/* An event's type, kind, type_name and name, laid out as in tk_event
 * so that emit_named() stores them in one copy. */
typedef struct ev_head {
	tk_etype type;
	tk_evkind kind;
	tk_str type_name, name;
} ev_head;
_Static_assert(sizeof(ev_head) == 16 &&
	       offsetof(tk_event, kind) - offsetof(tk_event, type) ==
		       offsetof(ev_head, kind) &&
	       offsetof(tk_event, type_name) - offsetof(tk_event, type) ==
		       offsetof(ev_head, type_name) &&
	       offsetof(tk_event, name) - offsetof(tk_event, type) ==
		       offsetof(ev_head, name),
	       "ev_head is tk_event's type, kind, type_name and name");

/* A kept record whose target, type and source rule depend on its code
 * alone (see keep()): what the first one of the code found.  A code whose
 * target depends on a parameter (pmode) keeps its type, source rule and
 * names here and its targets in the reader's pcache. */
typedef struct kept_code {
	uint32_t tgt1;       /* target entity + 1; 0: not known yet */
	uint8_t sys;         /* the source is the core, not the running task */
	uint8_t pmode;       /* PM_*: where the target comes from */
	/* the event's type (TK_EV_OTHER), type_name and name */
	ev_head head;
	/* the last note made for the code in the block being filled (gen:
	 * the block's fill_gen; 0: none): the next with the same par1 and
	 * par2 points to it (note_kept()) */
	uint64_t ngen;
	const char *note;
	uint32_t np1, np2, nlen;
	uint32_t spare[3];   /* to 64 bytes: kept[code] is a shift away */
} kept_code;

/* kept_code.pmode: the target by code (tgt1), by par1 or par2 (pcache),
 * or the task of context par1 */
enum { PM_CODE, PM_PAR1, PM_PAR2, PM_TASK };

/*
 * The targets of kept records whose target depends on a parameter
 * (ipoint N, IRQ N, a mutex, a server): (code family << 32 | parameter)
 * -> entity + 1, direct-mapped, filled on the slow path so that the
 * worker maps the next records of the same target itself instead of
 * stalling on each (an ipoint-heavy dump stalled on every record).
 */
#define PCACHE 1024
typedef struct pcache_slot {
	uint64_t key;
	uint32_t ent1;       /* 0: empty */
} pcache_slot;

/*
 * A block of events and the notes of its events (the note of ev[i] is
 * notes[i]): the one filled on the caller's thread (s->own, s->ocap
 * events: OWN_CAP at most) or an item of the pipe (s->pcap: BCAP at
 * most).  Its count, then its events from BLK_HDR on, then their notes;
 * a block has room for no more events than its dump can make
 * (events_for()), so that a small dump costs little memory to open.
 */
typedef struct blk {
	size_t n;
} blk;
#define BLK_HDR ((size_t)64)

static size_t blk_bytes(size_t cap)
{
	return BLK_HDR + cap * (sizeof(tk_event) + NOTE_MAX);
}

static tk_event *blk_ev(const void *b)
{
	return (tk_event *)((uintptr_t)b + BLK_HDR);
}

static char (*blk_notes(const void *b, size_t cap))[NOTE_MAX]
{
	return (char (*)[NOTE_MAX])(blk_ev(b) + cap);
}

/* One ascending run of a dump merged in TSC order: its slots [cur, end)
 * are next, those of [wfrom, wto) are in buf; head is the TSC of slot cur
 * once `ready` (cur is then on a record, not an empty slot). */
typedef struct mrun {
	size_t cur, end;
	size_t wfrom, wto;
	uint8_t *buf;
	uint64_t head;
	int ready;
} mrun;

/* The semaphores and mutexes met (sem_map): key (par2 << 1 | is_sem) + 1,
 * 0 for a free slot, and the entity. */
typedef struct sem_slot {
	uint64_t key1;
	uint32_t ent;
} sem_slot;

/* fill() and the steps of one record: how they end (besides the negative
 * statuses).  R_STALL: the record needs the consumer (nothing was done). */
enum { R_OK = 0, R_STALL = 1 };

/*
 * What the mapping of almost every record reads or writes: the block's
 * room, the record's time and number, the order check, what runs on the
 * core.  The reader keeps it (s->h) between passes and the slow path
 * works on that; a pass of run_fast_t() works on a local copy, which the
 * compiler keeps in registers (nothing else can point to it, while the
 * events it stores could alias the reader's fields of the same types),
 * and stores it back where the pass ends.
 */
typedef struct hot {
	tk_event *qp;        /* the block's next free slot */
	tk_event *qend;      /* the end of its room (OWN_CAP or BCAP) */
	uint64_t now;        /* time of the current record */
	uint64_t pos;        /* its physical record number */
	uint64_t last_tsc;   /* the TSC of the last record mapped */
	uint32_t running;    /* task index on the core, TK_NONE */
	int isr_depth;       /* interrupts entered (isr_stack) */
	uint32_t core;       /* the core's entity (set at open) */
} hot;

typedef struct shark_reader {
	/* ---- the consumer's (the caller's thread) ---- */
	const tk_event *rp;  /* the next event to return */
	const tk_event *rend;/* the end of the events in hand */
	int ending;          /* how they end: TK_PIPE_MORE, TK_PIPE_STALL,
			      * TK_END or a failure (cerr) */
	int threads;         /* tk_reader_opts threads: 0, 1, -1 auto */
	int threaded;        /* the pipe is wanted */
	int piped;           /* the pipe is started */
	int paused;          /* the pipe's block in hand ended with a stall */
	unsigned inline_left;/* blocks to fill here before the pipe goes on */
	unsigned inline_run; /* the length of the last such run */
	unsigned since;      /* pipe blocks taken since it last went on */
	/* adapt(): the run of blocks going on, from the pipe (piped 1) or
	 * filled here (0), -1: none yet; its blocks so far; the time and the
	 * events counted from its window's start */
	int win_piped;
	unsigned win_blk;
	uint64_t win_t0, win_ev;
	uint64_t here_ns, here_ev;  /* the last run here, timed (0: none) */
	unsigned backoff;    /* blocks to fill here after the pipe lost */
	unsigned period;     /* blocks of the pipe after it won */
	int first_run;       /* the first run here is going on (not timed:
			      * its first touches and new tasks) */
	int always_lose;     /* tests: every probe of the pipe loses (and
			      * the caller fills only 2 blocks) */
	atomic_int yield;    /* asks the worker to stall (it lost) */
	tk_error cerr;
	blk *own;            /* the block filled on the caller's thread */
	size_t ocap, pcap;   /* the events of s->own, of a pipe's block */
	tk_pipe pipe;
	int ra_pump;         /* the caller reads chunks ahead while the pipe
			      * maps (s->ra was started) */
	int ra_parked;       /* and the read-ahead's worker is parked */
	char pad[128];       /* what the worker writes below: another line */

	/* ---- the decoder's: fill() (the worker while the pipe runs) ---- */
	tk_reader *r;
	tk_trace *t;
	const char *name;
	int strict;
	/* whole mode: every record is in memory at `base` */
	int whole;
	const uint8_t *base;
	size_t nslots;       /* 16-byte slots in memory */
	uint32_t *order;     /* sorted physical indices, or NULL */
	size_t norder;
	mrun *runs;          /* a plain file merged from its runs, or NULL */
	size_t nruns;
	uint8_t *runmem;     /* the runs' buffers */
	size_t rot;          /* rotation start when not sorted */
	int fd;              /* a plain file: read with pread() from foff */
	uint64_t foff;
	uint8_t *win;        /* the read pass's pread() buffer: slots */
	size_t wfrom, wto;   /* [wfrom, wto) */
	const uint8_t *wbuf; /* where they are: win, or a chunk of ra */
	tk_readahead ra;     /* the read pass's chunks read ahead (ra_on;
			      * the caller reads ahead into it too: ra_pump) */
	int ra_on;           /* the decoder takes its chunks from ra */
	size_t next;         /* position in time order */
	/* whole mode, not sorted: the physical slots [cur, lim) are next;
	 * part 0 is [rot, nslots), part 1 [0, rot) */
	size_t cur, lim;
	int part;
	/* the clock */
	uint64_t clk;
	shark_clock ck;      /* picoseconds (not cycles) */
	int cycles;          /* ticks are TSC cycles (one clock rate) */
	int clean;           /* cycles, and the scan found the TSC never
			      * decreasing in file order and no type word
			      * with bits 8-14 set: run_fast_t() unchecked */
	int started;
	int fst;             /* how the pass of fill_t() stopped (F_RUN ...) */
	/* a failure to read the stream met by fill(), for the consumer */
	int pend_rc;
	int done;
	tk_error perr;
	/* entities */
	uint32_t sys, sched;
	task *tasks;
	uint32_t ntasks, captasks;
	uint32_t *ctx_map;   /* context -> task index (u16_map()) */
	uint32_t *ent_task;  /* entity -> its task's index + 1, 0: none */
	size_t nent_task;
	isr *isrs;
	uint32_t nisrs, capisrs;
	uint32_t *irq_map;   /* irq number -> isr index (u16_map()), or NULL */
	uint32_t isr_stack[ISR_MAX];
	sem_slot *sem_map;   /* open addressing, a power of 2 long */
	size_t nsem, capsem;
	/* per event code, + 1 (0: not yet): its interned name, and the
	 * entity keep() gives it when that depends on the code alone */
	tk_str code_name1[256];
	uint32_t code_ent1[256];
	kept_code kept[256];
	pcache_slot pcache[PCACHE];
	uint8_t cls[256];    /* K_* by code (code_class, K_UNKNOWN, K_EMPTY) */
	tk_str kind_str[TK_EV_COUNT];
	tk_str type_str[TK_ET_COUNT];
	/* an event's type_name and name, by type and kind */
	ev_head names[TK_ET_COUNT][TK_EV_COUNT];
	/* the block being filled */
	uint64_t fill_gen;   /* counts the blocks filled, from 1 */
	tk_event *bev;       /* its first event */
	char (*bnotes)[NOTE_MAX];  /* its notes (bnotes[i]: bev[i]'s) */
	hot h;               /* the block's room and the decoding state */
} shark_reader;

/* ---- little-endian fields ----------------------------------------------- */

/* One load per field where the host is little-endian (as the dump is),
 * the bytes one by one elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static TK_INLINE uint16_t le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static TK_INLINE uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* the TSC: high word first, each word little-endian */
static TK_INLINE uint64_t tsc_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p + 4, sizeof(v));
	return v << 32 | v >> 32;
}
#else
static TK_INLINE uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static TK_INLINE uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static TK_INLINE uint64_t tsc_at(const uint8_t *p)
{
	return (uint64_t)le32(p + 4) << 32 | le32(p + 8);
}
#endif

static TK_INLINE void decode(const uint8_t *p, rec *o)
{
	uint32_t w = le32(p);

	o->type = w & 0xffffu;
	o->code = w & 0xffu;
	o->par1 = w >> 16;
	o->tsc = tsc_at(p);
	o->p = p;
}

/* par2, read where it is used */
static TK_INLINE uint32_t par2_of(const rec *x)
{
	/* the FAST ipoint never writes par2: what is there is stale */
	return (x->type & SHARK_FAST) ? 0 : le32(x->p + 12);
}

static int is_clock(const rec *x)
{
	return (x->code == SHARK_TRACE_START ||
		x->code == SHARK_CYCLES_PER_MSEC) &&
	       !(x->type & SHARK_FAST) && par2_of(x) != 0;
}

/* ---- probing ------------------------------------------------------------ */

/*
 * Binary records have no magic, so this is a guess: every record's type
 * word is a known code with only the FAST bit above it, the TSCs grow
 * (one wrap allowed), and the length is whole records when all of it is
 * seen.  Text never passes (its second byte is never 0x00 or 0x80); a low
 * score lets a format with a real signature win.
 */
int shark_probe(const uint8_t *buf, size_t len)
{
	size_t i, n = len / SHARK_REC, seen = 0;
	uint64_t prev = 0;
	int descents = 0;

	if (n < 2 || (len < 4096 && len % SHARK_REC))
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *p = buf + i * SHARK_REC;
		unsigned type = le16(p);
		uint64_t tsc = tsc_at(p);
		if (type == 0)
			continue;
		if ((type & 0x7f00u) || !shark_code_name(type & 0xffu) ||
		    tsc == 0)
			return 0;
		if (seen++ && tsc < prev && ++descents > 1)
			return 0;
		prev = tsc;
	}
	return seen >= 2 ? 30 : 0;
}

/* ---- time --------------------------------------------------------------- */

static TK_INLINE int tsc_to_ps(shark_reader *s, int cycles, uint64_t tsc,
				uint64_t *out)
{
	if (cycles) {
		*out = tsc;
		return TK_OK;
	}
	/* exactly floor((tsc - seg_tsc) * 10^9 / clk) + seg_ps (shark_time.h) */
	return shark_clock_ps(&s->ck, tsc, out) < 0 ? TK_E_RANGE : TK_OK;
}

/* ---- entities ----------------------------------------------------------- */

static uint32_t entity(shark_reader *s, tk_etype type, const char *fmt, ...)
	TK_PRINTF(3, 4);

static uint32_t entity(shark_reader *s, tk_etype type, const char *fmt, ...)
{
	char name[64];
	va_list ap;
	int n;
	uint32_t id;

	va_start(ap, fmt);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (n < 0)
		return TK_NONE;
	if ((size_t)n >= sizeof(name))
		n = sizeof(name) - 1;
	id = tk_trace_entity_intern(s->t, name, (size_t)n);
	if (id != TK_NONE && s->t->ents[id].type == TK_ET_UNKNOWN) {
		s->t->ents[id].type = type;
		s->t->ents[id].type_name = s->type_str[type];
	}
	return id;
}

/*
 * A map of a 16-bit number (a context, an IRQ) to an index: index + 1,
 * 0 for none, so that calloc() gives an empty map whose pages the system
 * supplies when they are first touched (a few for a usual dump) instead
 * of 256 KB written at each open.
 */
static uint32_t *u16_map(uint32_t **map)
{
	if (!*map)
		*map = calloc(65536, sizeof(**map));
	return *map;
}

/* the index of `k` in a u16_map(), TK_NONE if none (0 - 1 wraps to it) */
static TK_INLINE uint32_t map_get(const uint32_t *map, unsigned k)
{
	return map[k] - 1u;
}

static TK_INLINE void map_set(uint32_t *map, unsigned k, uint32_t i)
{
	map[k] = i + 1u;
}
_Static_assert(TK_NONE == UINT32_MAX, "map_get() wraps 0 to TK_NONE");

static uint32_t new_task(shark_reader *s, uint16_t ctx, uint32_t ent)
{
	task *tk;
	uint32_t i;

	/* a name met again (a pid logged twice) continues its instances */
	if (ent < s->nent_task && s->ent_task[ent]) {
		i = s->ent_task[ent] - 1;
		s->tasks[i].ctx = ctx;
		map_set(s->ctx_map, ctx, i);
		return i;
	}
	if (tk_grow_zero((void **)&s->ent_task, &s->nent_task, ent,
			 sizeof(*s->ent_task)) < 0)
		return TK_NONE;
	if (s->ntasks == s->captasks) {
		uint32_t ncap = s->captasks ? s->captasks * 2 : 32;
		task *n = tk_xrealloc_array(s->tasks, ncap, sizeof(*n));
		if (!n)
			return TK_NONE;
		s->tasks = n;
		s->captasks = ncap;
	}
	tk = &s->tasks[s->ntasks];
	memset(tk, 0, sizeof(*tk));
	tk->ent = ent;
	tk->ctx = ctx;
	tk->state = TS_NONE;
	map_set(s->ctx_map, ctx, s->ntasks);
	s->ent_task[ent] = s->ntasks + 1;
	return s->ntasks++;
}

/* The task running in context `ctx`; named "ctx<N>" until an id names it. */
static uint32_t new_ctx_task(shark_reader *s, unsigned ctx)
{
	uint32_t ent = entity(s, TK_ET_T, "ctx%u", ctx);

	return ent == TK_NONE ? TK_NONE : new_task(s, (uint16_t)ctx, ent);
}

static TK_INLINE uint32_t task_of(shark_reader *s, unsigned ctx)
{
	/* ctx_map is made at open */
	uint32_t ti = map_get(s->ctx_map, ctx);

	if (TK_LIKELY(ti != TK_NONE))
		return ti;
	return new_ctx_task(s, ctx);
}

/* id / task_create: context `ctx` is now the task of pid `pid`. */
static uint32_t name_task(shark_reader *s, unsigned ctx, uint32_t pid)
{
	uint32_t ent, cur;

	if (!u16_map(&s->ctx_map))
		return TK_NONE;
	ent = entity(s, TK_ET_T, "task%lu", (unsigned long)pid);
	if (ent == TK_NONE)
		return TK_NONE;
	cur = map_get(s->ctx_map, ctx);
	if (cur != TK_NONE && s->tasks[cur].ent == ent)
		return cur;
	return new_task(s, (uint16_t)ctx, ent);
}

static uint32_t isr_of(shark_reader *s, unsigned irq)
{
	uint32_t ent;

	if (!u16_map(&s->irq_map))
		return TK_NONE;
	if (map_get(s->irq_map, irq) != TK_NONE)
		return map_get(s->irq_map, irq);
	ent = entity(s, TK_ET_I, "IRQ%u", irq);
	if (ent == TK_NONE)
		return TK_NONE;
	if (s->nisrs == s->capisrs) {
		uint32_t ncap = s->capisrs ? s->capisrs * 2 : 8;
		isr *n = tk_xrealloc_array(s->isrs, ncap, sizeof(*n));
		if (!n)
			return TK_NONE;
		s->isrs = n;
		s->capisrs = ncap;
	}
	s->isrs[s->nisrs].ent = ent;
	s->isrs[s->nisrs].inst = 0;
	map_set(s->irq_map, irq, s->nisrs);
	return s->nisrs++;
}

/* ---- events ------------------------------------------------------------- */

/* An event: its type, kind and names from `hd`, its note `nt` (NULL: none)
 * of `nlen` bytes. */
static TK_INLINE tk_event *emit_noted(hot *h, uint32_t src, int64_t sinst,
				       uint32_t tgt, int64_t tinst,
				       const ev_head *hd, const char *nt,
				       uint32_t nlen)
{
	tk_event *e = h->qp;
	uint64_t now = h->now, pos = h->pos;
	uint32_t core = h->core;

	/*
	 * src and tgt are entities (every caller checks what it interns), and
	 * there is room: a record is mapped only with PER_REC free slots.
	 * The reader's fields are loaded before the first store to the event
	 * (which could alias them), and stored with their own types.
	 */
#ifndef NDEBUG
	if (e >= h->qend)
		abort();
#endif
	h->qp = e + 1;
	e->time = now;
	e->source = src;
	e->target = tgt;
	e->source_inst = sinst;
	e->target_inst = tinst;
	memcpy(&e->type, hd, sizeof(*hd));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		/* core and note_len in one store (a note-less event's is the
		 * core alone, zero-extended) */
		uint64_t cn = (uint64_t)core | (uint64_t)nlen << 32;
		_Static_assert(offsetof(tk_event, note_len) ==
				       offsetof(tk_event, core) + 4,
			       "note_len follows core");
		memcpy(&e->core, &cn, sizeof(cn));
	}
#else
	e->core = core;
	e->note_len = nlen;
#endif
	e->note = nt;
	e->pos = pos;
	return e;
}

/* An event without a note (note() may add one). */
static TK_INLINE tk_event *emit_named(hot *h, uint32_t src, int64_t sinst,
				       uint32_t tgt, int64_t tinst,
				       const ev_head *hd)
{
	return emit_noted(h, src, sinst, tgt, tinst, hd, NULL, 0);
}

static TK_INLINE tk_event *emit(shark_reader *s, hot *h, uint32_t src,
				 int64_t sinst, tk_etype type, uint32_t tgt,
				 int64_t tinst, tk_evkind kind)
{
	return emit_named(h, src, sinst, tgt, tinst, &s->names[type][kind]);
}

static void note(shark_reader *s, tk_event *e, const char *fmt, ...)
	TK_PRINTF(3, 4);

static void note(shark_reader *s, tk_event *e, const char *fmt, ...)
{
	char *buf;
	va_list ap;
	int n;

	if (!e)
		return;
	buf = s->bnotes[e - s->bev];
	va_start(ap, fmt);
	n = vsnprintf(buf, NOTE_MAX, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	e->note = buf;
	e->note_len = (uint32_t)((size_t)n < NOTE_MAX ? (size_t)n : NOTE_MAX - 1);
}

/* The note "par1=P1 par2=P2" of a kept record, without printf. */
static const char zero_pars[] = "par1=0 par2=0";

/* "par1=P1 par2=P2" into b (NOTE_MAX bytes); its length */
static uint32_t fmt_pars(char *b, unsigned par1, uint32_t par2)
{
	size_t n;

	memcpy(b, "par1=", 5);
	n = 5 + tk_fmt_u64(b + 5, par1);
	memcpy(b + n, " par2=", 6);
	n += 6;
	n += tk_fmt_u64(b + n, par2);
	b[n] = 0;
	return (uint32_t)n;
}

static void note_pars(shark_reader *s, tk_event *e, unsigned par1,
		      uint32_t par2)
{
	if (!par1 && !par2) {
		e->note = zero_pars;
		e->note_len = sizeof(zero_pars) - 1;
		return;
	}
	e->note = s->bnotes[e - s->bev];
	e->note_len = fmt_pars(s->bnotes[e - s->bev], par1, par2);
}

/*
 * The event of a kept record of code k, with its note_pars(): most kept
 * records (timer_post, timer_delete) have both parameters 0, and the
 * others of a code often repeat theirs (task_timer of the same task), so
 * the note made last for the code in this block is pointed to again: the
 * notes of a block live as long as its events.
 */
static TK_INLINE void emit_kept(shark_reader *s, hot *h, kept_code *k,
				uint32_t src, int64_t sinst, uint32_t tgt,
				int64_t tinst, unsigned par1, uint32_t par2)
{
	const char *nt = zero_pars;
	uint32_t nlen = sizeof(zero_pars) - 1;

	if (par1 | par2) {
		if (k->ngen != s->fill_gen || k->np1 != par1 ||
		    k->np2 != par2) {
			char *b = s->bnotes[h->qp - s->bev];
			k->ngen = s->fill_gen;
			k->np1 = par1;
			k->np2 = par2;
			k->note = b;
			k->nlen = fmt_pars(b, par1, par2);
		}
		nt = k->note;
		nlen = k->nlen;
	}
	emit_noted(h, src, sinst, tgt, tinst, &k->head, nt, nlen);
}

/* The interned FTrace name of `code` (NULL name: code_0xNN). */
static tk_str code_name_id(shark_reader *s, unsigned code)
{
	const char *n;
	char unk[16];
	tk_str id;

	if (TK_LIKELY(s->code_name1[code]))
		return s->code_name1[code] - 1;
	n = shark_code_name(code);
	if (!n) {
		snprintf(unk, sizeof(unk), "code_0x%02x", code);
		n = unk;
	}
	id = tk_strpool_intern(&s->t->pool, n, strlen(n));
	if (id != TK_NONE)
		s->code_name1[code] = id + 1;
	return id;
}

static TK_INLINE tk_event *emit_task(shark_reader *s, hot *h, task *tk, int64_t inst,
			   tk_evkind kind)
{
	return emit(s, h, h->core, 0, TK_ET_T, tk->ent, inst, kind);
}

static TK_INLINE void activate(shark_reader *s, hot *h, task *tk)
{
	emit_task(s, h, tk, ++tk->last_inst, TK_EV_ACTIVATE);
	if (!tk->cur_inst) {
		tk->cur_inst = tk->last_inst;
		tk->state = TS_ACTIVE;
	}
}

/* The task gets the core. */
static TK_INLINE void run(shark_reader *s, hot *h, task *tk)
{
	if (!tk->cur_inst)
		activate(s, h, tk);  /* runs with no activation seen (idle, init) */
	if (tk->state == TS_ACTIVE)
		emit_task(s, h, tk, tk->cur_inst, TK_EV_START);
	else if (tk->state == TS_READY)
		emit_task(s, h, tk, tk->cur_inst, TK_EV_RESUME);
	tk->state = TS_RUNNING;
}

/* The task loses the core. */
static TK_INLINE void unrun(shark_reader *s, hot *h, task *tk)
{
	if (tk->cur_inst && tk->state == TS_RUNNING) {
		emit_task(s, h, tk, tk->cur_inst, TK_EV_PREEMPT);
		tk->state = TS_READY;
	}
}

/* A job end of a task that has no job: kept as an event, with a warning. */
static void no_job(shark_reader *s, hot *h, task *tk, rec xv)
{
	const rec *x = &xv;
	tk_event *e;

	{
		tk_reader_warn(s->r, W_NO_JOB, 0, 0,
			       "offset %llu: %s of context %u, which has no job (kept as an event)",
			       (unsigned long long)(h->pos * SHARK_REC),
			       shark_code_name(x->code), x->par1);
		e = emit_task(s, h, tk, 0, TK_EV_OTHER);
		note(s, e, "par1=%u par2=%lu", x->par1, (unsigned long)par2_of(x));
		if (e)
			e->name = tk_strpool_intern(&s->t->pool,
						    shark_code_name(x->code),
						    strlen(shark_code_name(x->code)));
	}
}

/* The end of the task's job (it has one: cur_inst). */
static TK_INLINE void end_job(shark_reader *s, hot *h, uint32_t ti)
{
	task *tk = &s->tasks[ti];
	int on_core = tk->state == TS_RUNNING;

	emit_task(s, h, tk, tk->cur_inst, TK_EV_TERMINATE);
	if (tk->last_inst > tk->cur_inst) {
		/* a queued activation: the next job is ready at once */
		tk->cur_inst++;
		tk->state = TS_ACTIVE;
		if (on_core && h->running == ti && !h->isr_depth)
			run(s, h, tk);
	} else {
		tk->cur_inst = 0;
		tk->state = TS_NONE;
	}
}

static TK_INLINE void switch_to(shark_reader *s, hot *h, uint32_t ti)
{
	if (h->isr_depth) {
		/* taken when the interrupt returns */
		h->running = ti;
		return;
	}
	if (h->running != TK_NONE && h->running != ti)
		unrun(s, h, &s->tasks[h->running]);
	h->running = ti;
	run(s, h, &s->tasks[ti]);
}

static TK_INLINE void isr_enter(shark_reader *s, hot *h, uint32_t ii)
{
	isr *is = &s->isrs[ii];

	if (!h->isr_depth && h->running != TK_NONE)
		unrun(s, h, &s->tasks[h->running]);
	if (h->isr_depth == ISR_MAX) {
		tk_reader_warn(s->r, W_ISR_DEPTH, 0, 0,
			       "offset %llu: interrupts nested deeper than %d",
			       (unsigned long long)(h->pos * SHARK_REC), ISR_MAX);
		return;
	}
	s->isr_stack[h->isr_depth++] = ii;
	is->inst++;
	emit(s, h, h->core, 0, TK_ET_I, is->ent, is->inst, TK_EV_ACTIVATE);
	emit(s, h, h->core, 0, TK_ET_I, is->ent, is->inst, TK_EV_START);
}

static TK_INLINE void isr_leave(shark_reader *s, hot *h, uint32_t next_task)
{
	if (!h->isr_depth) {
		tk_reader_warn(s->r, W_ISR_UNBALANCED, 0, 0,
			       "offset %llu: end of an interrupt that did not start in the trace",
			       (unsigned long long)(h->pos * SHARK_REC));
	} else {
		isr *is = &s->isrs[s->isr_stack[--h->isr_depth]];
		emit(s, h, h->core, 0, TK_ET_I, is->ent, is->inst,
		     TK_EV_TERMINATE);
	}
	if (next_task != TK_NONE)
		h->running = next_task;
	if (!h->isr_depth && h->running != TK_NONE)
		run(s, h, &s->tasks[h->running]);
}

/* The pcache key and slot of a parameter of a kept code's family. */
static TK_INLINE uint64_t pcache_key(unsigned code, uint32_t par)
{
	return (uint64_t)(code & 0x0f) << 32 | par;
}

static TK_INLINE pcache_slot *pcache_at(shark_reader *s, unsigned code,
					uint32_t par)
{
	uint64_t h = pcache_key(code, par) * 0x9e3779b97f4a7c15ull;

	return &s->pcache[h >> (64 - 10)];
}
_Static_assert(PCACHE == 1024, "pcache_at() takes 10 bits");

/* keep() the first time for a code, or for a code whose target depends
 * on the parameters and is not in the pcache. */
static int keep_slow(shark_reader *s, hot *h, rec xv)
{
	const rec *x = &xv;
	kept_code *k;
	const char *n = shark_code_name(x->code);
	char unk[16];
	uint32_t src = h->core, tgt;
	int64_t sinst = 0;
	tk_etype type = TK_ET_EVENT;
	tk_event *e;
	int by_code = 0;

	if (!n) {
		snprintf(unk, sizeof(unk), "code_0x%02x", x->code);
		n = unk;
	}
	if (h->running != TK_NONE && !h->isr_depth &&
	    s->tasks[h->running].cur_inst) {
		src = s->tasks[h->running].ent;
		sinst = s->tasks[h->running].cur_inst;
	}
	switch (x->code & 0x0f) {
	case 0x0: /* general: the tracer itself */
		type = TK_ET_SYS;
		tgt = s->sys;
		src = h->core;
		sinst = 0;
		break;
	case 0x1:
		tgt = entity(s, TK_ET_EVENT, "ipoint%u", x->par1);
		break;
	case 0x2: case 0x5: { /* task and priority events: the task of par1 */
		uint32_t ti = task_of(s, x->par1);
		if (ti == TK_NONE)
			return TK_E_NOMEM;
		type = TK_ET_T;
		tgt = s->tasks[ti].ent;
		src = h->core;
		sinst = 0;
		e = emit(s, h, src, sinst, type, tgt, s->tasks[ti].cur_inst,
			 TK_EV_OTHER);
		goto named;
	}
	case 0x3:
		type = TK_ET_I;
		tgt = entity(s, TK_ET_I, "IRQ%u", x->par1);
		src = h->core;
		sinst = 0;
		break;
	case 0x4:
		type = TK_ET_C;
		tgt = h->core;
		break;
	case 0x6:
		type = TK_ET_SEM;
		tgt = entity(s, TK_ET_SEM, "mutex_%lx", (unsigned long)par2_of(x));
		break;
	case 0x8:
		tgt = entity(s, TK_ET_EVENT, "server%lu", (unsigned long)par2_of(x));
		break;
	case 0x9:
		tgt = s->code_ent1[x->code] ? s->code_ent1[x->code] - 1
					    : entity(s, TK_ET_EVENT, "%s", n);
		by_code = 1;
		break;
	case 0xB:
		tgt = s->code_ent1[x->code] ? s->code_ent1[x->code] - 1
					    : entity(s, TK_ET_EVENT, "timer");
		by_code = 1;
		break;
	case 0xF:
		type = TK_ET_SYS;
		tgt = s->sys;
		src = h->core;
		sinst = 0;
		break;
	default:
		tgt = entity(s, TK_ET_EVENT, "%s",
			     (x->code & 0x0f) == 0x7 ? "signal" :
			     (x->code & 0x0f) == 0xA ? "data" : "other");
		break;
	}
	if (tgt == TK_NONE)
		return TK_E_NOMEM;
	if (by_code)
		s->code_ent1[x->code] = tgt + 1;
	e = emit(s, h, src, sinst, type, tgt, 0, TK_EV_OTHER);
named:
	if (!e)
		return TK_E_NOMEM;
	e->name = code_name_id(s, x->code);
	if (e->name == TK_NONE)
		return TK_E_NOMEM;
	note_pars(s, e, x->par1, par2_of(x));
	k = &s->kept[x->code];
	k->head.type = e->type;
	k->head.kind = e->kind;
	k->head.type_name = e->type_name;
	k->head.name = e->name;
	switch (x->code & 0x0f) {
	case 0x2: case 0x5:
		k->pmode = PM_TASK;
		break;
	case 0x1: case 0x3: case 0x6: case 0x8: {
		/* the target depends on par1 or par2 */
		int by2 = (x->code & 0x0f) >= 0x6;
		uint32_t par = by2 ? par2_of(x) : x->par1;
		pcache_slot *ps = pcache_at(s, x->code, par);
		k->pmode = by2 ? PM_PAR2 : PM_PAR1;
		k->sys = (x->code & 0x0f) == 0x3;
		ps->key = pcache_key(x->code, par);
		ps->ent1 = e->target + 1;
		break;
	}
	default:
		/* the same target, type and source rule every time */
		k->tgt1 = tgt + 1;
		k->sys = (x->code & 0x0f) == 0x0 || (x->code & 0x0f) == 0xF;
		break;
	}
	return TK_OK;
}

/* An event with no equivalent in the model: kept by its FTrace name.
 * The first of a code (or one whose target depends on its parameters)
 * needs the slow path. */
static TK_INLINE int keep(shark_reader *s, hot *h, int slow, const rec *x,
			  tk_error *err)
{
	kept_code *k = &s->kept[x->code];
	uint32_t src = h->core, tgt1 = k->tgt1;
	int64_t sinst = 0;

	if (TK_UNLIKELY(!tgt1)) {
		if (k->pmode == PM_PAR1 || k->pmode == PM_PAR2) {
			uint32_t par = k->pmode == PM_PAR1 ? x->par1 : par2_of(x);
			const pcache_slot *ps = pcache_at(s, x->code, par);
			if (ps->ent1 && ps->key == pcache_key(x->code, par))
				tgt1 = ps->ent1;
		} else if (k->pmode == PM_TASK) {
			uint32_t ti = map_get(s->ctx_map, x->par1);
			if (ti != TK_NONE) {
				/* a task event: from the core, to the task's
				 * current job */
				emit_kept(s, h, k, h->core, 0,
					  s->tasks[ti].ent,
					  s->tasks[ti].cur_inst, x->par1,
					  par2_of(x));
				return R_OK;
			}
		}
	}
	if (TK_UNLIKELY(!tgt1)) {
		if (!slow)
			return R_STALL;
		if (keep_slow(s, h, *x) < 0)
			return tk_err_nomem(err, s->name);
		return R_OK;
	}
	/* from the running task's job, if any and not interrupted */
	if (!h->isr_depth && h->running != TK_NONE && !k->sys) {
		const task *rt = &s->tasks[h->running];
		if (rt->cur_inst) {
			src = rt->ent;
			sinst = rt->cur_inst;
		}
	}
	emit_kept(s, h, k, src, sinst, tgt1 - 1, 0, x->par1, par2_of(x));
	return R_OK;
}

/* ---- one record --------------------------------------------------------- */

/* A clock record (is_clock()): its rate applies from this record on. */
static void new_rate(shark_reader *s, uint64_t now, rec xv)
{
	const rec *x = &xv;

	if (is_clock(x) && par2_of(x) != s->clk) {
		shark_clock_set(&s->ck, par2_of(x), x->tsc, now);
		s->clk = par2_of(x);
	}
}

/*
 * The switch of map_record() is on a dense class per code (0: the rest of
 * the known codes), one jump through a small table: code_class, which
 * each reader completes in its own s->cls with K_UNKNOWN for the codes
 * that have no FTrace name and K_EMPTY for code 0 (an empty slot's).
 */
enum {
	K_OTHER,
	K_SHARK_TRACE_START,
	K_SHARK_TRACE_STOP,
	K_SHARK_CYCLES_PER_MSEC,
	K_SHARK_ID,
	K_SHARK_TASK_CREATE,
	K_SHARK_TASK_ACTIVATE,
	K_SHARK_TASK_TIMER,
	K_SHARK_TASK_END_CYCLE,
	K_SHARK_TASK_END,
	K_SHARK_TASK_SCHEDULE,
	K_SHARK_TASK_DEADLINE_MISS,
	K_SHARK_CONTEXT_SWITCH,
	K_SHARK_INTERRUPT_START,
	K_SHARK_TIMER_WAKEUP_START,
	K_SHARK_INTERRUPT_END,
	K_SHARK_TIMER_WAKEUP_END,
	K_SHARK_MUTEX_UNLOCK_MANUAL,
	K_SHARK_MUTEX_LOCK,
	K_SHARK_MUTEX_UNLOCK,
	K_SHARK_MUTEX_WAIT,
	K_SHARK_MUTEX_POST,
	K_LOST,
	K_UNKNOWN,
	K_EMPTY
};

static const uint8_t code_class[256] = {
	[SHARK_TRACE_START] = K_SHARK_TRACE_START,
	[SHARK_TRACE_STOP] = K_SHARK_TRACE_STOP,
	[SHARK_CYCLES_PER_MSEC] = K_SHARK_CYCLES_PER_MSEC,
	[SHARK_ID] = K_SHARK_ID,
	[SHARK_TASK_CREATE] = K_SHARK_TASK_CREATE,
	[SHARK_TASK_ACTIVATE] = K_SHARK_TASK_ACTIVATE,
	[SHARK_TASK_TIMER] = K_SHARK_TASK_TIMER,
	[SHARK_TASK_END_CYCLE] = K_SHARK_TASK_END_CYCLE,
	[SHARK_TASK_END] = K_SHARK_TASK_END,
	[SHARK_TASK_SCHEDULE] = K_SHARK_TASK_SCHEDULE,
	[SHARK_TASK_DEADLINE_MISS] = K_SHARK_TASK_DEADLINE_MISS,
	[SHARK_CONTEXT_SWITCH] = K_SHARK_CONTEXT_SWITCH,
	[SHARK_INTERRUPT_START] = K_SHARK_INTERRUPT_START,
	[SHARK_TIMER_WAKEUP_START] = K_SHARK_TIMER_WAKEUP_START,
	[SHARK_INTERRUPT_END] = K_SHARK_INTERRUPT_END,
	[SHARK_TIMER_WAKEUP_END] = K_SHARK_TIMER_WAKEUP_END,
	[SHARK_MUTEX_UNLOCK_MANUAL] = K_SHARK_MUTEX_UNLOCK_MANUAL,
	[SHARK_MUTEX_LOCK] = K_SHARK_MUTEX_LOCK,
	[SHARK_MUTEX_UNLOCK] = K_SHARK_MUTEX_UNLOCK,
	[SHARK_MUTEX_WAIT] = K_SHARK_MUTEX_WAIT,
	[SHARK_MUTEX_POST] = K_SHARK_MUTEX_POST,
	[0x70] = K_LOST,
};

/* The first slot of a key of sem_map (seeded: the dump gives mutex
 * addresses and semaphore numbers, internal.h) */
static TK_INLINE size_t sem_slot_of(uint64_t key1, size_t mask)
{
	return (size_t)(tk_hash64(key1) >> 20) & mask;
}

/* The entity of a semaphore (sem) or mutex (!sem) met before, or TK_NONE. */
static TK_INLINE uint32_t sem_find(const shark_reader *s, int sem, uint32_t par2)
{
	uint64_t key1 = ((uint64_t)par2 << 1 | (unsigned)sem) + 1;
	size_t i, mask = s->capsem - 1;

	if (!s->capsem)
		return TK_NONE;
	for (i = sem_slot_of(key1, mask);
	     s->sem_map[i].key1; i = (i + 1) & mask)
		if (s->sem_map[i].key1 == key1)
			return s->sem_map[i].ent;
	return TK_NONE;
}

/* The entity of a semaphore or mutex, made the first time (slow path). */
static uint32_t sem_get(shark_reader *s, int sem, uint32_t par2)
{
	uint64_t key1 = ((uint64_t)par2 << 1 | (unsigned)sem) + 1;
	uint32_t ent = sem_find(s, sem, par2);
	size_t i, mask;

	if (ent != TK_NONE)
		return ent;
	if (sem)  /* par2 is an index into sem_table */
		ent = entity(s, TK_ET_SEM, "sem%lu", (unsigned long)par2);
	else      /* par2 is the mutex's address */
		ent = entity(s, TK_ET_SEM, "mutex_%lx", (unsigned long)par2);
	if (ent == TK_NONE)
		return TK_NONE;
	if ((s->nsem + 1) * 2 > s->capsem) {
		size_t ncap = s->capsem ? s->capsem * 2 : 64, j;
		sem_slot *n = calloc(ncap, sizeof(*n));
		if (!n)
			return TK_NONE;
		for (j = 0; j < s->capsem; j++) {
			if (!s->sem_map[j].key1)
				continue;
			for (i = sem_slot_of(s->sem_map[j].key1, ncap - 1);
			     n[i].key1; i = (i + 1) & (ncap - 1))
				;
			n[i] = s->sem_map[j];
		}
		free(s->sem_map);
		s->sem_map = n;
		s->capsem = ncap;
	}
	mask = s->capsem - 1;
	for (i = sem_slot_of(key1, mask);
	     s->sem_map[i].key1; i = (i + 1) & mask)
		;
	s->sem_map[i].key1 = key1;
	s->sem_map[i].ent = ent;
	s->nsem++;
	return ent;
}

/* The task of context `ctx`: made if new when `slow`, else TK_NONE. */
static TK_INLINE uint32_t task_at(shark_reader *s, int slow, unsigned ctx)
{
	/* ctx_map is made at open */
	uint32_t ti = map_get(s->ctx_map, ctx);

	if (TK_LIKELY(ti != TK_NONE) || !slow)
		return ti;
	return new_ctx_task(s, ctx);
}

/*
 * Map one record to events.  With `slow` clear (fill()), a record that
 * needs more than the reader's decoding state (a new entity, a warning,
 * an error) is left alone: R_STALL, nothing done.  With `slow` set (the
 * consumer's thread), every record is mapped.
 */
static TK_INLINE int map_record(shark_reader *s, hot *h, int slow, const rec *x,
				tk_error *err)
{
	unsigned cls = s->cls[x->code];
	uint32_t ti;
	tk_event *e;

	switch (cls) {
	case K_SHARK_TRACE_START:
	case K_SHARK_TRACE_STOP:
		new_rate(s, h->now, *x);
		e = emit(s, h, h->core, 0, TK_ET_SYS, s->sys, 0,
			 x->code == SHARK_TRACE_START ? TK_EV_START : TK_EV_STOP);
		if (x->code == SHARK_TRACE_START)
			note(s, e, "par1=%u par2=%lu", x->par1,
			     (unsigned long)par2_of(x));
		return R_OK;
	case K_SHARK_CYCLES_PER_MSEC:
		new_rate(s, h->now, *x);
		e = emit(s, h, h->core, 0, TK_ET_C, h->core, 0,
			 TK_EV_SET_FREQUENCE);
		note(s, e, "%llu", (unsigned long long)par2_of(x) * 1000u);
		return R_OK;
	case K_SHARK_ID:
	case K_SHARK_TASK_CREATE:
		if (!slow)
			return R_STALL;
		ti = name_task(s, x->par1, par2_of(x));
		if (ti == TK_NONE)
			break;
		return R_OK;
	case K_SHARK_TASK_ACTIVATE:
	case K_SHARK_TASK_TIMER:
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		/*
		 * A periodic task's first job is logged twice (task_activate,
		 * then task_timer when its period timer is armed): a release
		 * of a job that has not started yet is that same job, kept by
		 * name.  A release while a job runs is a queued next job.
		 */
		if (s->tasks[ti].state == TS_ACTIVE)
			return keep(s, h, slow, x, err);
		activate(s, h, &s->tasks[ti]);
		return R_OK;
	case K_SHARK_TASK_END_CYCLE:
	case K_SHARK_TASK_END:
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		if (TK_UNLIKELY(!s->tasks[ti].cur_inst)) {
			if (!slow)
				return R_STALL;
			no_job(s, h, &s->tasks[ti], *x);
			return R_OK;
		}
		end_job(s, h, ti);
		return R_OK;
	case K_SHARK_TASK_SCHEDULE:
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		e = emit(s, h, s->tasks[ti].ent, s->tasks[ti].cur_inst,
			 TK_ET_SCHED, s->sched, 0, TK_EV_SCHEDULE);
		if (par2_of(x) != x->par1)
			note(s, e, "exec=%lu", (unsigned long)par2_of(x));
		return R_OK;
	case K_SHARK_TASK_DEADLINE_MISS:
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		emit_task(s, h, &s->tasks[ti],
			  s->tasks[ti].cur_inst ? s->tasks[ti].cur_inst
						: s->tasks[ti].last_inst,
			  TK_EV_DEADLINE);
		return R_OK;
	case K_SHARK_CONTEXT_SWITCH:
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		switch_to(s, h, ti);
		return R_OK;
	case K_SHARK_INTERRUPT_START:
	case K_SHARK_TIMER_WAKEUP_START: {
		/* the timer handler is IRQ 0, as pwcet_gen writes it */
		unsigned irq = x->code == SHARK_INTERRUPT_START ? x->par1 : 0;
		if (slow) {
			ti = isr_of(s, irq);
			if (ti == TK_NONE)
				break;
		} else {
			if (!s->irq_map ||
			    (ti = map_get(s->irq_map, irq)) == TK_NONE ||
			    h->isr_depth == ISR_MAX)
				return R_STALL;
		}
		isr_enter(s, h, ti);
		return R_OK;
	}
	case K_SHARK_INTERRUPT_END:
		if (!slow && !h->isr_depth)
			return R_STALL;
		isr_leave(s, h, TK_NONE);
		return R_OK;
	case K_SHARK_TIMER_WAKEUP_END:
		/* par1: the context the interrupt returns to */
		ti = TK_NONE;
		if (x->par1) {
			ti = task_at(s, slow, x->par1);
			if (ti == TK_NONE)
				break;
		}
		if (!slow && !h->isr_depth)
			return R_STALL;
		isr_leave(s, h, ti);
		return R_OK;
	case K_SHARK_MUTEX_UNLOCK_MANUAL:
		if (!slow)
			return R_STALL;
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, h->pos * SHARK_REC,
					     "code 0x43 is the manual's set_mutex_unlock; the S.Ha.R.K. source writes 0x36");
		tk_reader_warn(s->r, W_UNLOCK_43, 0, 0,
			       "offset %llu: code 0x43 read as set_mutex_unlock (0x36 in the S.Ha.R.K. source)",
			       (unsigned long long)(h->pos * SHARK_REC));
		/* fall through */
	case K_SHARK_MUTEX_LOCK:
	case K_SHARK_MUTEX_UNLOCK:
	case K_SHARK_MUTEX_WAIT:
	case K_SHARK_MUTEX_POST: {
		uint32_t sem;
		tk_evkind k;
		int is_sem = x->code == SHARK_MUTEX_WAIT ||
			     x->code == SHARK_MUTEX_POST;
		ti = task_at(s, slow, x->par1);
		if (ti == TK_NONE)
			break;
		if (is_sem)
			k = x->code == SHARK_MUTEX_WAIT ? TK_EV_DECREMENT
							: TK_EV_INCREMENT;
		else
			k = x->code == SHARK_MUTEX_LOCK ? TK_EV_LOCK : TK_EV_UNLOCK;
		if (slow) {
			sem = sem_get(s, is_sem, par2_of(x));
			if (sem == TK_NONE)
				return tk_err_nomem(err, s->name);
		} else {
			sem = sem_find(s, is_sem, par2_of(x));
			if (sem == TK_NONE)
				return R_STALL;
		}
		emit(s, h, s->tasks[ti].ent, s->tasks[ti].cur_inst, TK_ET_SEM,
		     sem, 0, k);
		return R_OK;
	}
	case K_LOST:
		/* the recorder's lost-events record: par1 1, par2 the count */
		if (x->par1 == 1) {
			if (!slow)
				return R_STALL;
			tk_reader_warn(s->r, W_LOST, 0, 0,
				       "offset %llu: the target lost %lu events here",
				       (unsigned long long)(h->pos * SHARK_REC),
				       (unsigned long)par2_of(x));
		}
		return keep(s, h, slow, x, err);
	case K_EMPTY:
		/* code 0: an empty slot (type word 0; only run_fast_t()
		 * unchecked maps one) makes nothing; with FAST or high bits,
		 * an unknown code */
		if (x->type == 0)
			return R_OK;
		/* fall through */
	case K_UNKNOWN:
		if (!slow)
			return R_STALL;
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name,
					     h->pos * SHARK_REC,
					     "unknown event code 0x%02x",
					     x->code);
		tk_reader_warn(s->r, W_UNKNOWN_CODE, 0, 0,
			       "offset %llu: unknown event code 0x%02x (kept as code_0x%02x)",
			       (unsigned long long)(h->pos * SHARK_REC), x->code,
			       x->code);
		return keep(s, h, slow, x, err);
	default:
		return keep(s, h, slow, x, err);
	}
	/* a context or interrupt not met before (fill()), or out of memory */
	if (!slow)
		return R_STALL;
	return tk_err_nomem(err, s->name);
}

/* ---- reading records ---------------------------------------------------- */

/* A departure in the type word or the TSC order: warn, or fail if strict. */
static int irregular(shark_reader *s, hot *h, rec xv, tk_error *err)
{
	const rec *x = &xv;
	uint64_t off = h->pos * SHARK_REC;

	if (x->type & 0x7f00u) {
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, off,
					     "type word 0x%04x: only bit 15 (FAST) may be set above the event code",
					     x->type);
		tk_reader_warn(s->r, W_TYPE_HIGH_BITS, 0, 0,
			       "offset %llu: type word 0x%04x has bits 8-14 set (the low byte is read as the code)",
			       (unsigned long long)(h->pos * SHARK_REC), x->type);
	}
	if (x->tsc < h->last_tsc) {
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, off,
					     "TSC %llu is before the previous record's %llu",
					     (unsigned long long)x->tsc,
					     (unsigned long long)h->last_tsc);
		tk_reader_warn(s->r, W_TIME_DECREASES, 0, 0,
			       "offset %llu: the TSC decreases (a wrapped chunk read from a stream is not reordered)",
			       (unsigned long long)(h->pos * SHARK_REC));
	} else {
		h->last_tsc = x->tsc;
	}
	return TK_OK;
}

/* The first event names the core and its clock (Hz), so that a reader of
 * the BTF output sees Core_0 as a core from the start. */
static void first_event(shark_reader *s, hot *h)
{
	s->started = 1;
	note(s, emit(s, h, h->core, 0, TK_ET_C, h->core, 0, TK_EV_SET_FREQUENCE),
	     "%llu", (unsigned long long)s->clk * 1000u);
}

/* One record: R_OK, R_STALL (fill(): left to the consumer, nothing done
 * that the consumer's mapping of it would not do the same) or a failure. */
static TK_INLINE int process(shark_reader *s, hot *h, int cycles, int slow,
			      const rec *x, tk_error *err)
{
	/* last_tsc starts at 0: the first record never decreases */
	if (TK_UNLIKELY((x->type & 0x7f00u) || x->tsc < h->last_tsc)) {
		int rc;
		if (!slow)
			return R_STALL;
		rc = irregular(s, h, *x, err);
		if (rc < 0)
			return rc;
	} else {
		h->last_tsc = x->tsc;
	}
	if (TK_UNLIKELY(tsc_to_ps(s, cycles, x->tsc, &h->now) < 0)) {
		if (!slow)
			return R_STALL;
		return tk_err_set_at(err, TK_E_RANGE, s->name, h->pos * SHARK_REC,
				     "TSC %llu at %llu cycles/ms is past 2^64 ps",
				     (unsigned long long)x->tsc,
				     (unsigned long long)s->clk);
	}
	/* run_block() leaves the first record to the slow path */
	if (slow && TK_UNLIKELY(!s->started))
		first_event(s, h);
	return map_record(s, h, slow, x, err);
}

/* Take back the events of the record that failed (they are last). */
static void drop_record(shark_reader *s, hot *h)
{
	while (h->qp > s->bev && h->qp[-1].pos == h->pos)
		h->qp--;
}

/*
 * How a pass of fill_t() stopped (s->fst): F_RUN (the block is full, or
 * nothing stopped it), F_ONE (the slow path: its one record is
 * mapped), TK_PIPE_STALL (a record for the consumer is next), TK_END, or
 * a failure (in s->perr; its record taken and its events dropped).
 */
enum { F_RUN = 0, F_ONE = 4 };

/*
 * Map the n records at p (the first is record number pos) to events while
 * the block has room; returns how many records were taken.  `slow`: one
 * record only (the next that is not an empty slot), by the slow path.
 */
static TK_INLINE size_t run_block_t(shark_reader *s, int cycles, int slow,
				    const uint8_t *p, size_t n, uint64_t pos)
{
	hot *h = &s->h;
	size_t i = 0, m;

	/* m records at a time: as many as surely fit in the block */
	while (i < n && (m = (size_t)(h->qend - h->qp) / PER_REC) != 0) {
		if (m > n - i)
			m = n - i;
		for (m += i; i < m; i++, p += SHARK_REC) {
			rec x;
			int rc;

			decode(p, &x);
			if (TK_UNLIKELY(x.type == 0))
				continue;  /* an empty slot */
			h->pos = pos + i;
			rc = process(s, h, cycles, slow, &x, &s->perr);
			if (TK_UNLIKELY(rc != R_OK)) {
				if (rc == R_STALL) {
					s->fst = TK_PIPE_STALL;
					return i;
				}
				drop_record(s, h);
				s->fst = rc;
				return i + 1;
			}
			if (slow) {
				s->fst = F_ONE;
				return i + 1;
			}
		}
	}
	return i;
}

/*
 * run_block_t() without `slow` (fill()), on a copy of the hot state (in
 * registers); a record that needs the consumer ends the pass (R_STALL)
 * where it is, not taken.  `checked`: the TSC order and the type word
 * checked with one compare for an empty slot or a type word with high
 * bits.  Without it (a clean dump, s->clean: read in file order with the
 * TSC as the time) no record is checked but by its class (an empty slot
 * is one, K_EMPTY), and last_tsc stays as it was: every later TSC is at
 * least as large, which is all the slow path asks of it.
 */
static TK_INLINE size_t run_fast_t(shark_reader *s, int cycles, int checked,
				   const uint8_t *p, size_t n, uint64_t pos)
{
	hot hv = s->h, *h = &hv;
	uint64_t end = pos + n, q = pos, m;
	/* record q is at base + 16 q: one counter for the loop, the record
	 * and the events' pos (an integer, so that no pointer is made
	 * outside the buffer) */
	uintptr_t base = (uintptr_t)p - (uintptr_t)pos * SHARK_REC;

	while (q < end && (m = (uint64_t)(h->qend - h->qp) / PER_REC) != 0) {
		if (m > end - q)
			m = end - q;
		for (m += q; q < m; q++) {
			const uint8_t *r =
				(const uint8_t *)(base + (uintptr_t)q * SHARK_REC);
			uint32_t w = le32(r);
			rec x;

			/* type word 0 (an empty slot) or with bits 8-14 set
			 * (or code 0) */
			if (checked &&
			    TK_UNLIKELY(((w & 0x7fffu) - 1u) >= 0xffu)) {
				if ((w & 0xffffu) == 0)
					continue;
				if (w & 0x7f00u)
					goto stall;
			}
			x.tsc = tsc_at(r);
			if (checked && TK_UNLIKELY(x.tsc < h->last_tsc))
				goto stall;
			x.type = w & 0xffffu;
			x.code = w & 0xffu;
			x.par1 = w >> 16;
			x.p = r;
			if (TK_UNLIKELY(tsc_to_ps(s, cycles, x.tsc, &h->now) < 0))
				goto stall;
			h->pos = q;
			if (TK_UNLIKELY(map_record(s, h, 0, &x, NULL) != R_OK))
				goto stall;
			if (checked)
				h->last_tsc = x.tsc;
		}
	}
	s->h = hv;
	return (size_t)(q - pos);
stall:
	s->h = hv;
	s->fst = TK_PIPE_STALL;
	return (size_t)(q - pos);
}

/* run_block_t() for each time map and path, so that the hot loop does
 * not ask */
static size_t run_block(shark_reader *s, int slow, const uint8_t *p,
			size_t n, uint64_t pos)
{
	if (TK_UNLIKELY(slow))
		return run_block_t(s, s->cycles, 1, p, n, pos);
	if (TK_UNLIKELY(!s->started)) {
		/* the first record makes the first event: the slow path */
		size_t i;
		for (i = 0; i < n && le16(p + i * SHARK_REC) == 0; i++)
			;
		if (i < n)
			s->fst = TK_PIPE_STALL;
		return i;
	}
	if (s->clean)
		return run_fast_t(s, 1, 0, p, n, pos);
	if (s->cycles)
		return run_fast_t(s, 1, 1, p, n, pos);
	return run_fast_t(s, 0, 1, p, n, pos);
}

/*
 * The buffers of a wholly read dump hold at most `max` records, and no
 * more than it has: every read into them is of slots [a, b) of the dump
 * with b - a <= max.
 */
static size_t slots_for(const shark_reader *s, size_t max)
{
	return s->nslots < max ? (s->nslots ? s->nslots : 1) : max;
}

/* The room of a block: `max` events, or what all the records of a wholly
 * read dump can make (PER_REC each, the first event too) if fewer. */
static size_t events_for(const shark_reader *s, size_t max)
{
	size_t n;

	if (!s->whole || s->nslots >= max / PER_REC - 1)
		return max;
	n = (s->nslots + 1) * PER_REC;
	return (n + 15) & ~(size_t)15;  /* blocks of 64-byte multiples */
}

/* Slots [from, to) of a plain file into buf with pread(). */
static int read_slots(const shark_reader *s, uint8_t *buf, size_t from,
		      size_t to, tk_error *err)
{
	uint64_t off = (uint64_t)from * SHARK_REC;
	int rc = tk_pread_all(s->fd, buf, (to - from) * SHARK_REC, s->foff + off);
	struct stat st;

	if (rc == 0)
		return TK_OK;
	if (rc < 0)
		return tk_err_set_at(err, TK_E_IO, s->name, off, "read failed: %s",
				     strerror(errno));
	/* where it ends now (before `from` too: the runs of a merged dump
	 * are read out of file order) */
	if (fstat(s->fd, &st) == 0 && (uint64_t)st.st_size >= s->foff)
		off = (uint64_t)st.st_size - s->foff;
	return tk_err_set_at(err, TK_E_IO, s->name, off,
			     "the file ends here, before its %zu records (it shrank while being read)",
			     s->nslots);
}

/* read_slots() for the read-ahead (its worker, the caller pumping or the
 * mapping: it reads only what open set, from any of them at once) */
static int ra_read(void *arg, uint8_t *buf, uint64_t from, uint64_t to,
		   tk_error *err)
{
	return read_slots(arg, buf, (size_t)from, (size_t)to, err);
}

/* 1 if the record at q is a clock record (is_clock()), decoded into *x;
 * its low byte is looked at first. */
static int clock_rec(const uint8_t *q, rec *x)
{
	if (q[0] != SHARK_TRACE_START && q[0] != SHARK_CYCLES_PER_MSEC)
		return 0;
	decode(q, x);
	return is_clock(x);
}

/*
 * The clock record at q, if it is one, in the search for the first rate
 * in time order: *first takes the first rate, s->cycles is cleared where
 * another follows.
 */
static void clock_at(shark_reader *s, const uint8_t *q, uint64_t *first)
{
	rec x;

	if (!clock_rec(q, &x))
		return;
	if (!*first)
		*first = par2_of(&x);
	else if (par2_of(&x) != *first)
		s->cycles = 0;  /* the rate changes */
}

/*
 * find_clock() for a plain file read in file order (no sort index): the
 * slots from s->rot on, then those before it, read into s->win (at open,
 * before the read pass uses it), not through the mapping, which would
 * keep every page of the dump.  The first rate in *first, s->cycles
 * cleared where another follows.
 */
static int find_clock_plain(shark_reader *s, uint64_t *first, tk_error *err)
{
	size_t part, a, b, i;

	*first = 0;
	s->cycles = 1;
	for (part = 0; part < 2; part++) {
		size_t from = part ? 0 : s->rot, to = part ? s->rot : s->nslots;
		for (a = from; a < to; a = b) {
			b = to - a > CHUNK_SLOTS ? a + CHUNK_SLOTS : to;
			if (read_slots(s, s->win, a, b, err) < 0)
				return -1;
			for (i = 0; i < b - a; i++)
				clock_at(s, s->win + i * SHARK_REC, first);
		}
	}
	s->wfrom = s->wto = 0;
	return 0;
}

/*
 * The slots from s->cur on: slot cur, and in *n how many follow it in
 * memory up to lim (at least one); a plain file's are read into s->win,
 * CHUNK_SLOTS at a time.  NULL when the read failed (the worker stalls).
 */
static const uint8_t *slots_at(shark_reader *s, int slow, size_t *n)
{
	if (s->fd < 0) {
		*n = s->lim - s->cur;
		return s->base + s->cur * SHARK_REC;
	}
	if (s->cur < s->wfrom || s->cur >= s->wto) {
		size_t to = s->lim - s->cur > CHUNK_SLOTS ? s->cur + CHUNK_SLOTS
							   : s->lim;
		int rc;
		if (s->ra_on) {
			const tk_readahead_buf *b = tk_readahead_next(&s->ra);
			if (b && b->rc == TK_OK && b->from == s->cur &&
			    b->to == to) {
				s->wbuf = b->data;
				s->wfrom = s->cur;
				s->wto = to;
				goto have;
			}
			/* a read that failed (or, never seen, a chunk out of
			 * turn): read here from now on, which reports the
			 * failure where it is, as without the read-ahead (the
			 * caller may still pump into it: it is stopped at
			 * close; after a failure nothing more is read) */
			s->ra_on = 0;
		}
		rc = read_slots(s, s->win, s->cur, to, &s->perr);
		if (rc < 0) {
			/* the consumer reads again and reports it: the last
			 * thing read */
			s->wfrom = s->wto = 0;
			s->fst = slow ? rc : TK_PIPE_STALL;
			s->done = slow;
			return NULL;
		}
		s->wbuf = s->win;
		s->wfrom = s->cur;
		s->wto = to;
	}
have:
	*n = (s->wto < s->lim ? s->wto : s->lim) - s->cur;
	return s->wbuf + (s->cur - s->wfrom) * SHARK_REC;
}

/* room in the block for another record's events */
#define ROOM(s) ((s)->h.qp <= (s)->h.qend - PER_REC)

/* Whole and not sorted: slots [rot, nslots), then [0, rot). */
static void run_whole(shark_reader *s, int slow)
{
	while (ROOM(s) && s->fst == F_RUN) {
		const uint8_t *p;
		size_t n;
		if (s->cur == s->lim) {
			if (s->part || !s->rot) {
				s->done = 1;
				s->fst = TK_END;
				return;
			}
			s->part = 1;
			s->cur = 0;
			s->lim = s->rot;
			continue;
		}
		p = slots_at(s, slow, &n);
		if (!p)
			return;
		s->cur += run_block(s, slow, p, n, s->cur);
	}
}

/* Whole and sorted by TSC: one record at a time through the index. */
static void run_sorted(shark_reader *s, int slow)
{
	while (ROOM(s) && s->fst == F_RUN) {
		size_t phys;
		if (s->next >= s->norder) {
			s->done = 1;
			s->fst = TK_END;
			return;
		}
		phys = s->order[s->next];
		/* a record left for the consumer is not taken */
		s->next += run_block(s, slow, s->base + phys * SHARK_REC, 1, phys);
	}
}

/*
 * Make run r's head ready: its next record (empty slots skipped) read
 * into its buffer, or cur == end.  A failure to read: as slots_at().
 */
static int run_head(shark_reader *s, int slow, mrun *u)
{
	for (;;) {
		const uint8_t *q;
		if (u->cur == u->end) {
			u->ready = 1;
			return 0;
		}
		if (u->cur >= u->wto) {
			size_t to = u->end - u->cur > MERGE_SLOTS
				    ? u->cur + MERGE_SLOTS : u->end;
			int rc = read_slots(s, u->buf, u->cur, to, &s->perr);
			if (rc < 0) {
				s->fst = slow ? rc : TK_PIPE_STALL;
				s->done = slow;
				return -1;
			}
			u->wfrom = u->cur;
			u->wto = to;
		}
		q = u->buf + (u->cur - u->wfrom) * SHARK_REC;
		if (le16(q) != 0) {
			u->head = tsc_at(q);
			u->ready = 1;
			return 0;
		}
		u->cur++;
	}
}

/*
 * A plain file of a few ascending runs, in TSC order: the record with the
 * smallest TSC at the heads of the runs, the earliest run's on a tie (so
 * the order of the sort index: TSC, then position in the file).  That
 * run's records are taken as a stretch, as many as come before the next
 * smallest head (the stretch ends at a record of that TSC unless the run
 * is the earlier one), up to the end of its buffer.
 */
static void run_merged(shark_reader *s, int slow)
{
	while (ROOM(s) && s->fst == F_RUN) {
		mrun *best = NULL, *next = NULL;
		const uint8_t *p;
		size_t r, k, lim, taken;
		for (r = 0; r < s->nruns; r++) {
			mrun *u = &s->runs[r];
			if (!u->ready && run_head(s, slow, u) < 0)
				return;
			if (u->cur == u->end)
				continue;
			/* runs in file order: a tie keeps the earlier one */
			if (!best || u->head < best->head) {
				next = best;
				best = u;
			} else if (!next || u->head < next->head) {
				next = u;
			}
		}
		if (!best) {
			s->done = 1;
			s->fst = TK_END;
			return;
		}
		p = best->buf + (best->cur - best->wfrom) * SHARK_REC;
		lim = (best->wto < best->end ? best->wto : best->end) - best->cur;
		/* the stretch: records before next's head (empty slots in it
		 * are skipped by run_block()); the whole buffer if no other
		 * run is left */
		for (k = next ? 1 : lim; k < lim; k++) {
			const uint8_t *q = p + k * SHARK_REC;
			uint64_t t;
			if (le16(q) == 0)
				continue;
			t = tsc_at(q);
			if (t > next->head || (t == next->head && best > next))
				break;
		}
		/* records left for the consumer are not taken */
		taken = run_block(s, slow, p, k, best->cur);
		if (taken) {
			best->cur += taken;
			best->ready = 0;
		}
	}
}

/* A stream: the whole records of the window, as they come.  What the end
 * of the stream needs (a warning or a failure for a partial record, a
 * failure to read) is done by the consumer (slow). */
static void run_stream(shark_reader *s, int slow)
{
	tk_source *src = s->r->src;

	while (ROOM(s) && s->fst == F_RUN) {
		tk_window w = tk_source_window(src);
		size_t k;
		int rc;

		while (w.n < SHARK_REC) {
			if (s->pend_rc) {
				/* met by fill(): reported here, once */
				s->fst = s->pend_rc;
				s->pend_rc = 0;
				return;
			}
			rc = tk_source_fill(src, SHARK_REC, &w, &s->perr);
			if (rc < 0) {
				if (!slow) {
					s->pend_rc = rc;
					s->fst = TK_PIPE_STALL;
				} else {
					s->fst = rc;
				}
				return;
			}
			if (rc == 0)
				break;
		}
		if (w.n == 0) {
			s->done = 1;
			s->fst = TK_END;
			return;
		}
		if (w.n < SHARK_REC) {
			if (!slow) {
				s->fst = TK_PIPE_STALL;
				return;
			}
			s->done = 1;
			if (s->strict) {
				s->fst = tk_err_set_at(&s->perr, TK_E_PARSE, s->name,
						       tk_source_offset(src),
						       "truncated record: %zu bytes at the end (records are 16 bytes)",
						       w.n);
				return;
			}
			tk_reader_warn(s->r, W_TRUNCATED, 0, 0,
				       "the last %zu bytes are not a whole record (ignored)",
				       w.n);
			tk_source_consume(src, w.n);
			s->fst = F_ONE;
			return;
		}
		k = run_block(s, slow, w.p, w.n / SHARK_REC,
			      tk_source_offset(src) / SHARK_REC);
		tk_source_consume(src, k * SHARK_REC);
	}
}

/* Map records into a block of cap events at ev and their notes (one
 * record by the slow path if `slow`), *n of them: TK_PIPE_MORE,
 * TK_PIPE_STALL, TK_END or a failure (err filled). */
static int fill_t(shark_reader *s, tk_event *ev, char (*notes)[NOTE_MAX],
		  size_t cap, size_t *n, int slow, tk_error *err)
{
	s->fill_gen++;
	s->bev = ev;
	s->bnotes = notes;
	s->h.qp = ev;
	s->h.qend = ev + cap;
	s->fst = F_RUN;
	if (s->done) {
		s->fst = TK_END;
	} else if (!s->whole) {
		run_stream(s, slow);
	} else if (s->order) {
		run_sorted(s, slow);
	} else if (s->runs) {
		run_merged(s, slow);
	} else {
		run_whole(s, slow);
	}
	*n = (size_t)(s->h.qp - ev);
	if (s->fst == F_RUN || s->fst == F_ONE)
		return TK_PIPE_MORE;
	if (s->fst < 0 && err)
		*err = s->perr;
	return s->fst;
}

/* The pipe's fill function (pipe.h): one block, on either thread. */
static int fill(void *arg, void *block, size_t cap, size_t *n, tk_error *err)
{
	shark_reader *s = arg;
	blk *b = block;

	(void)cap;
	*n = 1;
	if (atomic_load_explicit(&s->yield, memory_order_relaxed)) {
		/* the consumer goes on by itself (adapt()): an empty block */
		b->n = 0;
		return TK_PIPE_STALL;
	}
	return fill_t(s, blk_ev(b), blk_notes(b, s->pcap), s->pcap, &b->n, 0,
		      err);
}

/* ---- open --------------------------------------------------------------- */

typedef struct keyed {
	uint64_t tsc;
	uint32_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* What one pass over a wholly read input finds. */
typedef struct scan_out {
	size_t descents;     /* times the TSC goes down (empty slots skipped) */
	size_t at;           /* the slot of the first descent */
	uint64_t first, last;/* the TSCs of the first and last records */
	uint64_t clk;        /* the first clock rate in file order, 0: none */
	int clk_differ;      /* another record gives another rate */
	int high;            /* a type word has bits 8-14 set */
	int any;             /* a record that is not an empty slot was seen */
	size_t first_at;     /* the first one's slot */
} scan_out;

/*
 * The scan at open goes over the dump in parts (at most SCAN_PARTS, of
 * whole CHUNK_SLOTS), each scanned into a scan_out of its own and joined
 * in file order after; with two threads each takes the next part from a
 * counter, so that a slower CPU takes fewer (the hosts this runs on do
 * not always give a process two CPUs of one speed).
 */
#define SCAN_PARTS 64

typedef struct scan_job {
	const shark_reader *s;
	size_t nparts, per;  /* parts of `per` slots (the last: the rest) */
	atomic_size_t next;  /* the next part to take */
	int simd;            /* SIMD_*: the widest scan_plain_*() the CPU has */
	scan_out o[SCAN_PARTS];
} scan_job;

/* One thread of the scan: it touches only the parts it takes and their
 * scan_out. */
typedef struct scan_part {
	scan_job *job;
	uint8_t *buf;    /* SCAN_SLOTS records (a plain file), or NULL */
	int rc;          /* a pread() that failed: its status, and err */
	tk_error err;
} scan_part;

#if defined(__x86_64__) && defined(__GNUC__) && \
	defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SCAN_AVX2 1
#include <immintrin.h>

/*
 * The scan's plain stretches, four records at a time with AVX2: from
 * record i while the four have no empty slot, no clock code and no type
 * word with bits 8-14 set (those go to the scalar loop), the TSC descents counted (the first one's index in
 * *at) and *prevp left at the last TSC.  Returns where it stopped.
 */
__attribute__((target("avx2"))) static size_t
scan_plain_avx2(const uint8_t *b, size_t i, size_t end, uint64_t *prevp,
		size_t *descents, size_t *at)
{
	const __m256i lo16 = _mm256_set1_epi32(0xffff),
		      c10 = _mm256_set1_epi32(SHARK_CYCLES_PER_MSEC),
		      cef = _mm256_set1_epi32(0xef),
		      fast = _mm256_set1_epi32((int)SHARK_FAST),
		      h7f = _mm256_set1_epi32(0x7f00),
		      zero = _mm256_setzero_si256(),
		      sign = _mm256_set1_epi64x(INT64_MIN);
	__m256i prevv = _mm256_set1_epi64x((long long)*prevp);
	size_t n = *descents;

	while (end - i >= 4) {
		const uint8_t *p = b + i * SHARK_REC;
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p),
			c = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32)),
			za, zc, ka, kc, ha, hc, t, pv;
		unsigned m;
		/* per dword: an empty slot (type 0) or a clock code
		 * ((w - 0x10) & 0xef and FAST all zero), or (ha, hc clear)
		 * bits 8-14 set; only each record's first dword counts */
		za = _mm256_cmpeq_epi32(_mm256_and_si256(a, lo16), zero);
		zc = _mm256_cmpeq_epi32(_mm256_and_si256(c, lo16), zero);
		ka = _mm256_cmpeq_epi32(
			_mm256_or_si256(_mm256_and_si256(_mm256_sub_epi32(a, c10), cef),
					_mm256_and_si256(a, fast)), zero);
		kc = _mm256_cmpeq_epi32(
			_mm256_or_si256(_mm256_and_si256(_mm256_sub_epi32(c, c10), cef),
					_mm256_and_si256(c, fast)), zero);
		ha = _mm256_cmpeq_epi32(_mm256_and_si256(a, h7f), zero);
		hc = _mm256_cmpeq_epi32(_mm256_and_si256(c, h7f), zero);
		if ((_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(za, ka))) |
		     _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(zc, kc))) |
		     ~(_mm256_movemask_ps(_mm256_castsi256_ps(ha)) &
		       _mm256_movemask_ps(_mm256_castsi256_ps(hc)))) &
		    0x11)
			break;
		/* the TSCs (dwords 2, 1 of each record: low, high) in order */
		a = _mm256_shuffle_epi32(a, 0x36);
		c = _mm256_shuffle_epi32(c, 0x36);
		t = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, c), 0xd8);
		/* each against the one before */
		pv = _mm256_blend_epi32(_mm256_permute4x64_epi64(t, 0x90), prevv, 0x03);
		m = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(
			_mm256_cmpgt_epi64(_mm256_xor_si256(pv, sign),
					   _mm256_xor_si256(t, sign))));
		if (TK_UNLIKELY(m)) {
			if (!n)
				*at = i + (size_t)__builtin_ctz(m);
			n += (size_t)__builtin_popcount(m);
		}
		prevv = _mm256_permute4x64_epi64(t, 0xff);
		i += 4;
	}
	*prevp = (uint64_t)_mm256_extract_epi64(prevv, 0);
	*descents = n;
	return i;
}

/*
 * scan_plain_avx2() eight records at a time with AVX-512F: the eight
 * TSCs gathered from two 64-byte loads by one permute, compared unsigned
 * with the one before each straight into a mask.
 */
__attribute__((target("avx512f"))) static size_t
scan_plain_avx512(const uint8_t *b, size_t i, size_t end, uint64_t *prevp,
		  size_t *descents, size_t *at)
{
	/* record j of the pair is dwords 4j..4j+3; its TSC as a qword is
	 * dword 2 (low) then dword 1 (high) */
	const __m512i tidx = _mm512_set_epi32(29, 30, 25, 26, 21, 22, 17, 18,
					      13, 14, 9, 10, 5, 6, 1, 2),
		      lo16 = _mm512_set1_epi32(0xffff),
		      c10 = _mm512_set1_epi32(SHARK_CYCLES_PER_MSEC),
		      cef = _mm512_set1_epi32(0xef),
		      fast = _mm512_set1_epi32((int)SHARK_FAST),
		      h7f = _mm512_set1_epi32(0x7f00);
	/* only each record's first dword is its type word */
	const __mmask16 w0 = 0x1111;
	__m512i prevv = _mm512_set1_epi64((long long)*prevp);
	uint64_t last[8];
	size_t n = *descents;

	while (end - i >= 8) {
		const uint8_t *p = b + i * SHARK_REC;
		__m512i a = _mm512_loadu_si512((const void *)p),
			c = _mm512_loadu_si512((const void *)(p + 64)),
			ka, kc, t, pv;
		__mmask8 m;
		/* an empty slot (type 0), a clock code ((w - 0x10) & 0xef
		 * and FAST all zero) or bits 8-14 set: left to the scalar
		 * loop */
		ka = _mm512_or_si512(_mm512_and_si512(_mm512_sub_epi32(a, c10), cef),
				     _mm512_and_si512(a, fast));
		kc = _mm512_or_si512(_mm512_and_si512(_mm512_sub_epi32(c, c10), cef),
				     _mm512_and_si512(c, fast));
		if (_mm512_mask_testn_epi32_mask(w0, a, lo16) |
		    _mm512_mask_testn_epi32_mask(w0, c, lo16) |
		    _mm512_mask_testn_epi32_mask(w0, ka, ka) |
		    _mm512_mask_testn_epi32_mask(w0, kc, kc) |
		    _mm512_mask_test_epi32_mask(w0, a, h7f) |
		    _mm512_mask_test_epi32_mask(w0, c, h7f))
			break;
		t = _mm512_permutex2var_epi32(a, tidx, c);
		/* each TSC against the one before (the last of the previous
		 * eight, in prevv's top lane, before the first) */
		pv = _mm512_alignr_epi64(t, prevv, 7);
		m = _mm512_cmplt_epu64_mask(t, pv);
		if (TK_UNLIKELY(m)) {
			if (!n)
				*at = i + (size_t)__builtin_ctz(m);
			n += (size_t)__builtin_popcount(m);
		}
		prevv = t;
		i += 8;
	}
	_mm512_storeu_si512((void *)last, prevv);
	*prevp = last[7];
	*descents = n;
	return i;
}
#endif

/* scan_part.simd */
enum { SIMD_NONE, SIMD_AVX2, SIMD_AVX512 };

/* The widest scan the CPU has; TRACEKIT_TEST_SIMD (none, avx2) caps it
 * so that the tests read every path on any host. */
static int simd_level(void)
{
	int level = SIMD_NONE;
	const char *cap = getenv("TRACEKIT_TEST_SIMD");

#ifdef SCAN_AVX2
	if (__builtin_cpu_supports("avx512f"))
		level = SIMD_AVX512;
	else if (__builtin_cpu_supports("avx2"))
		level = SIMD_AVX2;
#endif
	if (cap && strcmp(cap, "none") == 0)
		level = SIMD_NONE;
	else if (cap && strcmp(cap, "avx2") == 0 && level > SIMD_AVX2)
		level = SIMD_AVX2;
	return level;
}

/* The scan of n slots at b, slot i0 of the dump first, going on from
 * what *o has found: a few instructions per record (eight at a time where
 * the CPU has AVX-512F, four where it has AVX2). */
static void scan_slots(scan_out *o, const uint8_t *b, size_t n, size_t i0,
		       int simd)
{
	size_t i = 0, descents = o->descents, at = o->at;
	uint64_t prev = o->last, c0 = o->clk;
	int differ = o->clk_differ, high = o->high;

	(void)simd;
	if (!o->any) {
		while (i < n && le16(b + i * SHARK_REC) == 0)
			i++;
		if (i == n)
			return;
		o->any = 1;
		o->first_at = i0 + i;
		o->first = prev = tsc_at(b + i * SHARK_REC);
	}
	for (; i < n; i++) {
		const uint8_t *p;
		uint32_t w, par2;
		uint64_t tsc;
#ifdef SCAN_AVX2
		/* plain stretches eight or four at a time; one record here
		 * where that stops, then back to it */
		if ((simd == SIMD_AVX512 && !(i & 7)) ||
		    (simd == SIMD_AVX2 && !(i & 3))) {
			size_t d0 = descents, a = 0;
			i = simd == SIMD_AVX512
			    ? scan_plain_avx512(b, i, n, &prev, &descents, &a)
			    : scan_plain_avx2(b, i, n, &prev, &descents, &a);
			if (!d0 && descents)
				at = i0 + a;
			if (i >= n)
				break;
		}
#endif
		p = b + i * SHARK_REC;
		w = le32(p);
		if (TK_UNLIKELY((w & 0xffffu) == 0))
			continue;
		high |= (w & 0x7f00u) != 0;
		tsc = tsc_at(p);
		if (TK_UNLIKELY(tsc < prev) && !descents++)
			at = i0 + i;
		prev = tsc;
		/* a clock record: trace_start or cycles_per_msec (the codes
		 * 0x10 and 0x20 are the only ones with (code - 0x10) & 0xef
		 * zero), not FAST, with a rate (is_clock()) */
		if (TK_UNLIKELY((((w - SHARK_CYCLES_PER_MSEC) & 0xefu) |
				 (w & SHARK_FAST)) == 0) &&
		    (par2 = le32(p + 12)) != 0) {
			if (!c0)
				c0 = par2;
			else if (par2 != c0)
				differ = 1;
		}
	}
	o->descents = descents;
	o->at = at;
	o->last = prev;
	o->clk = c0;
	o->clk_differ = differ;
	o->high = high;
}

/* The pass at open over slots [from, to) of a wholly read input into *o
 * (a plain file's read SCAN_SLOTS at a time into sp->buf). */
static void scan_range(scan_part *sp, size_t from, size_t to, scan_out *o)
{
	const shark_reader *s = sp->job->s;
	size_t i, end;

	memset(o, 0, sizeof(*o));
	for (i = from; i < to; i = end) {
		const uint8_t *b;
		end = to - i > SCAN_SLOTS ? i + SCAN_SLOTS : to;
		if (sp->buf) {
			sp->rc = read_slots(s, sp->buf, i, end, &sp->err);
			if (sp->rc < 0)
				return;
			b = sp->buf;
		} else {
			b = s->base + i * SHARK_REC;
		}
		scan_slots(o, b, end - i, i, sp->job->simd);
	}
}

/* Scan the parts not taken yet, one at a time, until none is left (or a
 * read fails). */
static void *scan_parts(void *v)
{
	scan_part *sp = v;
	scan_job *job = sp->job;
	size_t k;

	while (sp->rc == TK_OK &&
	       (k = atomic_fetch_add_explicit(&job->next, 1,
					      memory_order_relaxed)) < job->nparts) {
		size_t from = k * job->per,
		       to = k + 1 < job->nparts ? from + job->per : job->s->nslots;
		scan_range(sp, from, to, &job->o[k]);
	}
	return NULL;
}

/* *o, then the records of *b that follow them in the file. */
static void scan_join(scan_out *o, const scan_out *b)
{
	if (!b->any)
		return;
	if (!o->any) {
		*o = *b;
		return;
	}
	/* the step between them, then b's own */
	if (b->first < o->last && !o->descents++)
		o->at = b->first_at;
	if (b->descents) {
		if (!o->descents)
			o->at = b->at;
		o->descents += b->descents;
	}
	o->last = b->last;
	if (!o->clk)
		o->clk = b->clk;
	else if (b->clk && b->clk != o->clk)
		o->clk_differ = 1;
	o->clk_differ |= b->clk_differ;
	o->high |= b->high;
}

/* The scan of the whole input: in parts on two threads when the reader may
 * use a second thread (threads), in one pass otherwise. */
static int scan(shark_reader *s, int threads, scan_out *o, tk_error *err)
{
	scan_job *job = calloc(1, sizeof(*job));
	scan_part a, b;
	pthread_t th;
	size_t k, per;
	int rc = TK_OK, two;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!job)
		return tk_err_nomem(err, s->name);
	job->s = s;
	job->simd = simd_level();
	a.job = b.job = job;
	/* parts of whole CHUNK_SLOTS, SCAN_PARTS at most */
	per = (s->nslots / SCAN_PARTS + CHUNK_SLOTS - 1) & ~(CHUNK_SLOTS - 1);
	job->per = per > CHUNK_SLOTS ? per : CHUNK_SLOTS;
	job->nparts = s->nslots / job->per + (s->nslots % job->per != 0);
	two = threads && job->nparts > 1;
	if (!threads || job->nparts < 1) {
		/* one pass */
		job->nparts = 1;
		job->per = s->nslots;
	}
	atomic_init(&job->next, 0);
	if (s->fd >= 0) {
		a.buf = tk_bigbuf_alloc(slots_for(s, SCAN_SLOTS) * SHARK_REC);
		b.buf = two ? tk_bigbuf_alloc(slots_for(s, SCAN_SLOTS) *
					      SHARK_REC) : NULL;
		if (!a.buf || (two && !b.buf)) {
			rc = tk_err_nomem(err, s->name);
			goto out;
		}
	}
	if (two && tk_thread_start(&th, scan_parts, &b) == 0) {
		scan_parts(&a);
		pthread_join(th, NULL);
	} else {
		scan_parts(&a);
	}
	if (a.rc < 0 || b.rc < 0) {
		rc = a.rc < 0 ? a.rc : b.rc;
		*err = a.rc < 0 ? a.err : b.err;
		goto out;
	}
	*o = job->o[0];
	for (k = 1; k < job->nparts; k++)
		scan_join(o, &job->o[k]);
out:
	tk_bigbuf_free(a.buf);
	tk_bigbuf_free(b.buf);
	free(job);
	return rc;
}

/*
 * A plain file of at most MERGE_MAX ascending runs: where each starts
 * (read with pread() into s->win), and the runs set up for run_merged().
 * 1 if it has more runs (the sort index, then), -1 on a failure.
 */
static int find_runs(shark_reader *s, tk_error *err)
{
	size_t start[MERGE_MAX], nr = 1, a, b, i, r;
	uint64_t prev = 0;
	int any = 0;

	start[0] = 0;
	for (a = 0; a < s->nslots; a = b) {
		b = s->nslots - a > CHUNK_SLOTS ? a + CHUNK_SLOTS : s->nslots;
		if (read_slots(s, s->win, a, b, err) < 0)
			return -1;
		for (i = 0; i < b - a; i++) {
			const uint8_t *q = s->win + i * SHARK_REC;
			uint64_t tsc;
			if (le16(q) == 0)
				continue;
			tsc = tsc_at(q);
			if (any && tsc < prev) {
				if (nr == MERGE_MAX)
					return 1;
				start[nr++] = a + i;
			}
			prev = tsc;
			any = 1;
		}
	}
	s->runs = calloc(nr, sizeof(*s->runs));
	s->runmem = tk_bigbuf_alloc(nr * slots_for(s, MERGE_SLOTS) * SHARK_REC);
	if (!s->runs || !s->runmem)
		return tk_err_nomem(err, s->name);
	for (r = 0; r < nr; r++) {
		s->runs[r].cur = start[r];
		s->runs[r].end = r + 1 < nr ? start[r + 1] : s->nslots;
		s->runs[r].buf = s->runmem +
				 r * slots_for(s, MERGE_SLOTS) * SHARK_REC;
	}
	s->nruns = nr;
	s->wfrom = s->wto = 0;
	return 0;
}

/*
 * find_clock() for a merged file: the rate of the first clock record in
 * TSC order (the earliest in the file among equal TSCs), read with
 * pread(); the rates differ (the scan said so).
 */
static int find_clock_merged(shark_reader *s, uint64_t *first, tk_error *err)
{
	size_t a, b, i;
	uint64_t best = 0;
	int found = 0;
	rec x;

	*first = 0;
	s->cycles = 0;
	for (a = 0; a < s->nslots; a = b) {
		b = s->nslots - a > CHUNK_SLOTS ? a + CHUNK_SLOTS : s->nslots;
		if (read_slots(s, s->win, a, b, err) < 0)
			return -1;
		for (i = 0; i < b - a; i++) {
			if (!clock_rec(s->win + i * SHARK_REC, &x) ||
			    (found && x.tsc >= best))
				continue;
			best = x.tsc;
			*first = par2_of(&x);
			found = 1;
		}
	}
	s->wfrom = s->wto = 0;
	return 0;
}

/* Put the records of a wholly read input into TSC order. */
static int arrange(shark_reader *s, const scan_out *o, tk_error *err)
{
	size_t i, n = 0, at = o->at;
	keyed *k;

	if (!o->descents)
		return TK_OK;
	tk_reader_warn(s->r, W_REORDERED, 0, 0,
		       "records are not in TSC order from offset %zu on (a wrapped cyclic chunk?): read in TSC order",
		       at * SHARK_REC);
	if (o->descents == 1 && o->last <= o->first) {
		s->rot = at;  /* one wrap: the oldest record follows it */
		return TK_OK;
	}
	if (s->fd >= 0 && o->descents < MERGE_MAX) {
		int rc = find_runs(s, err);
		if (rc <= 0)
			return rc;
	}
	if (s->nslots > UINT32_MAX)
		return tk_err_set_at(err, TK_E_RANGE, s->name, 0,
				     "too many records to sort");
	for (i = 0, n = 0; i < s->nslots; i++)
		n += le16(s->base + i * SHARK_REC) != 0;
	k = tk_xrealloc_array(NULL, n, sizeof(*k));
	s->order = tk_xrealloc_array(NULL, n, sizeof(*s->order));
	if (!k || !s->order) {
		free(k);
		return tk_err_nomem(err, s->name);
	}
	for (i = 0, n = 0; i < s->nslots; i++) {
		const uint8_t *p = s->base + i * SHARK_REC;
		if (le16(p) == 0)
			continue;
		k[n].tsc = tsc_at(p);
		k[n++].idx = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (i = 0; i < n; i++)
		s->order[i] = k[i].idx;
	s->norder = n;
	free(k);
	return TK_OK;
}

/*
 * The first clock rate in time order (whole: all records; a stream: the
 * first CLOCK_SCAN bytes).  A wholly read input whose rates all agree has
 * it from scan(); this pass is for the others.
 */
static uint64_t find_clock(shark_reader *s)
{
	size_t i, n;
	tk_window w;
	rec x;

	if (s->whole) {
		uint64_t first = 0;
		n = s->order ? s->norder : s->nslots;
		s->cycles = 1;
		for (i = 0; i < n; i++) {
			size_t phys = s->order ? s->order[i] : s->rot + i;
			if (phys >= s->nslots)
				phys -= s->nslots;
			clock_at(s, s->base + phys * SHARK_REC, &first);
		}
		return first;
	}
	w = tk_source_window(s->r->src);
	for (i = 0; i + SHARK_REC <= w.n; i += SHARK_REC) {
		decode(w.p + i, &x);
		if (is_clock(&x))
			return par2_of(&x);
	}
	return 0;
}

static int add_param(shark_reader *s, const char *key, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);

	return tk_trace_add_header(s->t, TK_HDR_PARAM, key, strlen(key), buf,
				   (size_t)n, 1);
}

/*
 * Tests: TRACEKIT_TEST_SHARK_PATH=checked reads a clean dump with
 * run_fast_t() checked, as if it were not; =clean fails the open of a
 * dump that is not read by run_fast_t() unchecked, so that a test knows
 * which path it read.
 */
static int test_path(shark_reader *s, tk_error *err)
{
	const char *v = getenv("TRACEKIT_TEST_SHARK_PATH");

	if (v && strcmp(v, "checked") == 0)
		s->clean = 0;
	else if (v && strcmp(v, "clean") == 0 && !s->clean)
		return tk_err_set_at(err, TK_E_PARSE, s->name, 0,
				     "TRACEKIT_TEST_SHARK_PATH=clean: not read clean");
	return TK_OK;
}

int shark_reader_open(tk_reader *r, tk_error *err)
{
	shark_reader *s = calloc(1, sizeof(*s));
	tk_window w;
	int rc, k;

	if (!s)
		return tk_err_nomem(err, tk_source_name(r->src));
	r->impl = s;
	s->r = r;
	s->t = r->trace;
	s->name = tk_source_name(r->src);
	s->strict = r->opts.strict;
	s->h.running = TK_NONE;
	s->ending = TK_PIPE_MORE;
	s->threads = r->opts.threads;
	s->fd = -1;
	s->t->tb.unit = TK_UNIT_PS;
	s->t->tb.num = 1;
	s->t->tb.den = 1;
	for (k = 0; k < TK_EV_COUNT; k++) {
		const char *n = tk_evkind_name((tk_evkind)k);
		s->kind_str[k] = tk_strpool_intern(&s->t->pool, n, strlen(n));
		if (s->kind_str[k] == TK_NONE)
			goto nomem;
	}
	for (k = 0; k < TK_ET_COUNT; k++) {
		const char *n = tk_etype_name((tk_etype)k);
		s->type_str[k] = tk_strpool_intern(&s->t->pool, n, strlen(n));
		if (s->type_str[k] == TK_NONE)
			goto nomem;
	}
	for (k = 0; k < TK_ET_COUNT; k++) {
		int j;
		for (j = 0; j < TK_EV_COUNT; j++) {
			s->names[k][j].type = (tk_etype)k;
			s->names[k][j].kind = (tk_evkind)j;
			s->names[k][j].type_name = s->type_str[k];
			s->names[k][j].name = s->kind_str[j];
		}
	}
	for (k = 0; k < 256; k++)
		s->cls[k] = shark_code_name((unsigned)k) ? code_class[k]
							 : K_UNKNOWN;
	s->cls[0] = K_EMPTY;
	s->h.core = entity(s, TK_ET_C, "Core_0");
	s->sys = entity(s, TK_ET_SYS, "FTrace");
	s->sched = entity(s, TK_ET_SCHED, "Scheduler");
	if (s->h.core == TK_NONE || s->sys == TK_NONE || s->sched == TK_NONE ||
	    !u16_map(&s->ctx_map))
		goto nomem;

	/* read a small stream whole, so that it can be reordered too */
	w = tk_source_window(r->src);
	while (!tk_source_eof(r->src) && w.n < WHOLE_MAX) {
		rc = tk_source_fill(r->src, w.n + CLOCK_SCAN, &w, err);
		if (rc < 0)
			goto fail;
		if (rc == 0)
			break;
	}
	if (tk_source_eof(r->src)) {
		scan_out so;
		s->whole = 1;
		s->base = w.p;
		s->nslots = w.n / SHARK_REC;
		/* for the writers of the host tools' outputs (shark_tools.c) */
		s->t->raw = w.p;
		s->t->raw_len = w.n;
		if (w.n % SHARK_REC) {
			if (s->strict) {
				rc = tk_err_set_at(err, TK_E_PARSE, s->name,
						   s->nslots * SHARK_REC,
						   "truncated record: %zu bytes at the end (records are 16 bytes)",
						   w.n % SHARK_REC);
				goto fail;
			}
			tk_reader_warn(r, W_TRUNCATED, 0, 0,
				       "the last %zu bytes are not a whole record (ignored)",
				       w.n % SHARK_REC);
		}
		/* a plain file: read with pread() (see the top) */
		s->fd = tk_source_file_fd(r->src, &s->foff);
		if (s->fd >= 0 &&
		    !(s->win = tk_bigbuf_alloc(slots_for(s, CHUNK_SLOTS) *
					       SHARK_REC)))
			goto nomem;
		rc = scan(s, tk_pipe_want_thread(s->threads, w.n), &so, err);
		if (rc < 0)
			goto fail;
		rc = arrange(s, &so, err);
		if (rc < 0)
			goto fail;
		if (so.clk_differ && s->runs) {
			rc = find_clock_merged(s, &s->clk, err);
			if (rc < 0)
				goto fail;
		} else if (so.clk_differ && s->fd >= 0 && !s->order) {
			rc = find_clock_plain(s, &s->clk, err);
			if (rc < 0)
				goto fail;
		} else if (so.clk_differ) {
			s->clk = find_clock(s);
		} else {
			s->clk = so.clk;
			s->cycles = 1;
			s->clean = !so.descents && !so.high;
		}
		/* the read pass: from the oldest record, in file order */
		s->cur = s->rot;
		s->lim = s->nslots;
	} else {
		s->clk = find_clock(s);
	}
	rc = test_path(s, err);
	if (rc < 0)
		goto fail;
	if (!s->clk) {
		s->clk = DEFAULT_CLK;
		tk_reader_warn(r, W_NO_CLOCK, 0, 0,
			       "no trace_start or cycles_per_msec record gives the clock rate: 1 GHz assumed (1 cycle = 1 ns)");
	}
	shark_clock_set(&s->ck, s->clk, 0, 0);
	if (s->cycles) {
		/* one tick = one cycle = 1/clk_per_msec ms, exactly */
		s->t->tb.unit = TK_UNIT_MS;
		s->t->tb.num = 1;
		s->t->tb.den = s->clk;
	} else {
		tk_reader_warn(r, W_CLOCK_ROUNDED, 0, 0,
			       s->whole ? "the clock rate changes within the dump: times are read in whole picoseconds (rounded down)"
					: "a stream too large to scan for its clock rates: times are read in whole picoseconds (rounded down)");
	}
	if (add_param(s, "clk_per_msec", s->clk) < 0 ||
	    (s->whole && add_param(s, "records", s->nslots) < 0))
		goto nomem;
	/* the blocks: no more room than the dump needs */
	s->ocap = events_for(s, OWN_CAP);
	s->pcap = events_for(s, BCAP);
	s->own = tk_bigbuf_alloc(blk_bytes(s->ocap));
	if (!s->own)
		goto nomem;
	/* a stream is one of more than WHOLE_MAX bytes */
	s->threaded = tk_pipe_want_thread(s->threads,
					  s->whole ? (uint64_t)s->nslots * SHARK_REC
						   : UINT64_MAX);
	/* auto: the first records (new tasks, first codes: stalls) here */
	s->inline_left = s->threads < 0 ? INLINE_RUN : 0;
	s->win_piped = -1;
	s->first_run = 1;
	/* (tests: the stops of the worker on any host) */
	s->always_lose = getenv("TRACEKIT_TEST_PIPE_LOSES") != NULL;
	/* a plain file read in file order: its chunks read ahead (see
	 * RA_BUFS; none if that cannot start: then read here) */
	if (s->fd >= 0 && !s->order && !s->runs && s->threaded)
		s->ra_on = tk_readahead_start(&s->ra, ra_read, s, SHARK_REC,
					      slots_for(s, CHUNK_SLOTS), RA_BUFS,
					      s->rot, s->nslots, 0, s->rot,
					      s->threads < 0) == TK_OK;
	s->ra_pump = s->ra_on;
	return TK_OK;
nomem:
	rc = tk_err_nomem(err, s->name);
fail:
	shark_reader_close(r);
	return rc;
}

/* ---- handing out events ------------------------------------------------ */

/* The n events at ev, ended by `st` (err: its failure), are next. */
static TK_INLINE void take(shark_reader *s, const tk_event *ev, size_t n,
			   int st, const tk_error *err)
{
	s->rp = ev;
	s->rend = ev + n;
	s->ending = st;
	if (st < 0)
		s->cerr = *err;
}

/* Fill the consumer's own block here (producer state is the caller's:
 * no pipe, or its worker waits). */
static void fill_here(shark_reader *s, int slow)
{
	tk_error e;
	int st = fill_t(s, blk_ev(s->own), blk_notes(s->own, s->ocap), s->ocap,
			&s->own->n,
			slow, &e);

	take(s, blk_ev(s->own), s->own->n, st, &e);
}

/* The pipe (auto or forced threads) goes on filling from where the caller's
 * thread left the records. */
static void pipe_next(shark_reader *s)
{
	const tk_pipe_block *b;

	if (!s->piped) {
		tk_error e;
		if (tk_pipe_start(&s->pipe, blk_bytes(s->pcap), 1, NBLOCKS, 1, fill,
				  s, s->name, &e) < 0) {
			/* no memory for the blocks: on one thread, then */
			s->threaded = 0;
			fill_here(s, 0);
			return;
		}
		s->piped = 1;
		s->since = 0;
	} else if (s->paused) {
		tk_pipe_resume(&s->pipe);
		s->paused = 0;
		s->since = 0;
	}
	b = tk_pipe_next(&s->pipe);
	s->since++;
	if (!b->items) {
		/* past the worker's last block (not reached: a block that ends
		 * with TK_END or a failure is the last one taken) */
		s->rp = s->rend = NULL;
		s->ending = TK_END;
		return;
	}
	take(s, blk_ev(b->items), ((const blk *)b->items)->n, b->status,
	     &b->err);
	if (b->status == TK_PIPE_STALL)
		s->paused = 1;
}

/*
 * Auto threads: a block was taken, from the pipe (piped) or filled here,
 * its events in hand (see WARM, PROBE).  A window's time runs from its
 * first block in hand to its last: the events of the blocks before the
 * last one are counted.
 */
static void adapt(shark_reader *s, int piped)
{
	uint64_t now = tk_pipe_now_ns(), nev = (uint64_t)(s->rend - s->rp);
	unsigned start = piped ? WARM + 1 : 2;

	if (piped != s->win_piped) {
		s->win_piped = piped;
		s->win_blk = 0;
	}
	s->win_blk++;
	if (s->win_blk == start) {
		s->win_t0 = now;
		s->win_ev = nev;
		return;
	}
	if (s->win_blk < start)
		return;
	if (!piped) {
		if (s->first_run)
			return;
		s->here_ns = now - s->win_t0;
		s->here_ev = s->win_ev;
	} else if (s->win_blk == start + PROBE && !s->here_ev) {
		/* no run here timed yet: time one now */
		s->first_run = 0;
		s->backoff = 0;
		atomic_store_explicit(&s->yield, 1, memory_order_relaxed);
	} else if (s->win_blk == start + PROBE) {
		uint64_t pipe_ps = s->win_ev ? (now - s->win_t0) * 1000u
					       / s->win_ev : 0,
			 here_ps = s->here_ev ? s->here_ns * 1000u
					       / s->here_ev : UINT64_MAX;
		if (s->always_lose || pipe_ps > here_ps) {
			s->backoff = s->always_lose ? 2
				     : !s->backoff ? BACKOFF_MIN
				     : s->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX
								    : s->backoff * 2;
			s->period = 0;
			atomic_store_explicit(&s->yield, 1, memory_order_relaxed);
		} else {
			s->backoff = 0;
			s->period = !s->period ? PERIOD_MIN
				    : s->period * 2 > PERIOD_MAX ? PERIOD_MAX
								 : s->period * 2;
		}
	} else if (s->win_blk == start + PROBE + s->period) {
		/* time the caller's thread again */
		s->backoff = 0;
		atomic_store_explicit(&s->yield, 1, memory_order_relaxed);
	}
	s->win_ev += nev;
}

/* The events in hand are used up: the next ones, or the end. */
static int refill(shark_reader *s, const tk_event **ev, tk_error *err)
{
	for (;;) {
		int st = s->ending;

		if (st == TK_END)
			return TK_END;
		if (st < 0) {
			/* reported once; a caller that goes on reads the next
			 * record */
			s->ending = TK_PIPE_MORE;
			if (err)
				*err = s->cerr;
			return st;
		}
		int piped = 0;

		if (st == TK_PIPE_STALL) {
			/*
			 * The next record needs this thread (the worker, if
			 * any, waits): its warnings now, after the events
			 * before it, then its events.  With auto threads the
			 * records after it are read here for a while (longer
			 * when the stall was asked for: adapt()).
			 */
			fill_here(s, 1);
			if (atomic_load_explicit(&s->yield, memory_order_relaxed)) {
				atomic_store_explicit(&s->yield, 0,
						      memory_order_relaxed);
				s->inline_left = s->backoff ? s->backoff
							    : HERE_PROBE;
			} else if (s->threaded && s->threads < 0 && s->paused) {
				/* (a stall met here leaves the run as it is) */
				s->inline_run = s->since <= 2 && s->inline_run
							? s->inline_run * 2 : INLINE_RUN;
				if (s->inline_run > INLINE_MAX)
					s->inline_run = INLINE_MAX;
				s->inline_left = s->inline_run;
			}
		} else if (!s->threaded || s->inline_left) {
			if (s->inline_left)
				s->inline_left--;
			if (s->ra_parked) {
				/* mapped here: the worker reads ahead */
				tk_readahead_park(&s->ra, 0);
				s->ra_parked = 0;
			}
			fill_here(s, 0);
		} else {
			if (s->ra_pump) {
				/* the pipe maps: this thread reads ahead, the
				 * worker (auto threads) rests */
				if (!s->ra_parked) {
					tk_readahead_park(&s->ra, 1);
					s->ra_parked = 1;
				}
				while (tk_readahead_pump(&s->ra))
					;
			}
			pipe_next(s);
			piped = s->piped;
		}
		if (s->threaded && s->threads < 0)
			adapt(s, piped);
		if (s->rp < s->rend) {
			*ev = s->rp++;
			return TK_OK;
		}
	}
}

/* Called by tk_reader_next() once the events it was handed (r->evq) are
 * used up: the next event, and the others in hand after it for
 * tk_reader_next() to hand out itself. */
int shark_reader_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	shark_reader *s = r->impl;
	int rc;

	if (TK_LIKELY(s->rp < s->rend)) {
		*ev = s->rp++;
		rc = TK_OK;
	} else {
		rc = refill(s, ev, err);
	}
	if (rc == TK_OK) {
		r->evq = s->rp;
		r->evq_end = s->rend;
		s->rp = s->rend;
	}
	return rc;
}

void shark_reader_close(tk_reader *r)
{
	shark_reader *s = r->impl;

	if (!s)
		return;
	/* the workers first: they read the state freed below */
	tk_pipe_stop(&s->pipe);
	tk_readahead_stop(&s->ra);
	tk_bigbuf_free(s->own);
	tk_bigbuf_free(s->win);
	free(s->order);
	free(s->runs);
	tk_bigbuf_free(s->runmem);
	free(s->tasks);
	free(s->ctx_map);
	free(s->ent_task);
	free(s->isrs);
	free(s->irq_map);
	free(s->sem_map);
	free(s);
	r->impl = NULL;
}

const tk_format_ops tk_format_shark = {
	.info = {
		.name = "shark",
		.extensions = "bin",
		.description = "S.Ha.R.K. FTrace dump (16-byte binary records; read only)",
		.caps = TK_CAP_READ,
	},
	.probe = shark_probe,
	.reader_open = shark_reader_open,
	.reader_next = shark_reader_next,
	.reader_close = shark_reader_close,
};
