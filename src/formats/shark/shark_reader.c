/*
 * shark_reader.c - the reader of S.Ha.R.K. FTrace dumps (the "new tracer"
 * of S.Ha.R.K. 1.4 - 1.5.4): 16-byte records, no file header.
 *
 * A record is  u16 type | u16 par1 | u32 tsc_hi | u32 tsc_lo | u32 par2,
 * each field little-endian, the TSC high word first
 * (specs/shark-ftrace-reference.md 1.7).  Records whose type word is 0 are
 * empty slots and are skipped, as the target's own writers do.
 *
 * How it reads: source -> scan -> order -> decode blocks.  The dump is
 * read through the source's random access (tk_source_read_at(): a pipe or
 * a compressed input is spooled by the source first, so every transport
 * gives the same events).  shark_order.c scans it once at open (its clock
 * rates and its order) and then hands out its records in time order, a
 * stretch of consecutive records at a time; this file maps them to events
 * a block at a time, and tk_reader_next() hands the block's events out.
 *
 * Time: the dump carries cycles, and the clock rate only as a parameter
 * (trace_start's or cycles_per_msec's par2, clk_per_msec).  When it gives
 * one clock rate (the usual case), a tick is one cycle: the time base is
 * exactly 1/clk_per_msec ms and event times are the TSC values
 * themselves, with nothing rounded.  A dump whose clock rate changes is
 * read in picoseconds, floor(tsc * 10^9 / clk_per_msec) per rate segment,
 * and a warning says so; shark_time.h computes it exactly without a
 * division per record.
 *
 * Blocks: the records whose mapping needs nothing but the reader's own
 * decoding state are mapped in a tight loop (run_fast_t()); a record that
 * needs more (a new entity, a string to intern, a warning, an error, the
 * first event) ends the block before it, and starts the next block alone
 * (the slow path).  So warnings reach the callback exactly between the
 * events before and after their record, and an error is returned after
 * the events of the records before it (its record is taken: a caller
 * that goes on reads the next one).
 *
 * The event model mapping (tasks, context switches, interrupts, mutexes,
 * the rest kept by name) is in docs/mappings.md.
 */
#include "shark.h"
#include "shark_time.h"
#include "../../core/hashmap.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* warning kinds (one report each, then only counted) */
enum {
	W_NO_CLOCK,
	W_REORDERED,
	W_TRUNCATED,
	W_UNKNOWN_CODE,
	W_TYPE_HIGH_BITS,
	W_UNLOCK_43,
	W_NO_JOB,
	W_ISR_UNBALANCED,
	W_LOST,
	W_ISR_DEPTH,
	W_CLOCK_ROUNDED,
	W_CLOCK_FORCED,
	W_NAME,
};

/* Assumed when the dump never gives its clock: 1 GHz, a cycle is 1 ns. */
#define DEFAULT_CLK 1000000u
/*
 * Events are made a block of BCAP at a time: 4096 (288 KB with their
 * notes) stay in the second-level cache between being made and being
 * handed out.  PER_REC is the most events one record makes: 3 (a context
 * switch, an interrupt's start or end: the preemption or end of one thing,
 * the activation and start of another) and the first event of the trace;
 * a record is mapped only with PER_REC free slots in the block.
 */
#define BCAP 4096
#define PER_REC 4
#define ISR_MAX 16
#define NOTE_MAX 64

enum task_state { TS_NONE, TS_ACTIVE, TS_RUNNING, TS_READY };

/* A task: one per (context, pid) naming; the job (instance) it is in. */
typedef struct task {
	uint32_t ent;
	uint16_t ctx;
	uint8_t state;
	uint8_t on_core;     /* the core it runs on (TS_RUNNING; a stream's) */
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
 * names here and its targets in the reader's targets map. */
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

/* kept_code.pmode: the target by code (tgt1), by par1 or par2 (targets),
 * or the task of context par1 */
enum { PM_CODE, PM_PAR1, PM_PAR2, PM_TASK };

/* The steps of one record: how they end (besides the negative statuses).
 * R_STALL: the record needs the slow path (nothing was done). */
enum { R_OK = 0, R_STALL = 1 };

/*
 * What the mapping of almost every record reads or writes: the block's
 * room, the record's time and number, what runs on the
 * core.  The reader keeps it (s->h) between passes and the slow path
 * works on that; a pass of run_fast_t() works on a local copy, which the
 * compiler keeps in registers (nothing else can point to it, while the
 * events it stores could alias the reader's fields of the same types),
 * and stores it back where the pass ends.
 */
typedef struct hot {
	tk_event *qp;        /* the block's next free slot */
	tk_event *qend;      /* the end of its room */
	uint64_t now;        /* time of the current record */
	uint64_t pos;        /* its physical record number */
	uint32_t running;    /* task index on the core, TK_NONE */
	int isr_depth;       /* interrupts entered (isr_stack) */
	uint32_t core;       /* the core's entity (set at open) */
} hot;

typedef struct shark_reader {
	tk_reader *r;
	tk_trace *t;
	const char *name;
	int strict;
	shark_name_fn name_fn;  /* names another reader gives, or NULL */
	void *name_ctx;
	/* the core of each record (another reader's), or NULL: one core */
	const uint8_t *rec_core;
	uint64_t nrec_core;
	/* the file offset of each record (another reader's), or NULL */
	const uint64_t *rec_off;
	uint64_t nrec_off;
	unsigned cur_core;      /* the core in s->h and isr_stack */
	struct core_st *cst;    /* each core's state while another runs */
	shark_order ord;     /* the records in time order */
	/* the block of events and their notes (bnotes[i]: bev[i]'s) */
	tk_event *bev;
	char (*bnotes)[NOTE_MAX];
	size_t cap;          /* its room */
	uint64_t fill_gen;   /* counts the blocks filled, from 1 */
	const tk_event *rp, *rend;  /* the events not handed out yet */
	int ending;          /* how they end: F_RUN (more), F_STALL, TK_END
			      * or a failure (cerr) */
	tk_error cerr;
	/* the clock */
	uint64_t clk;
	uint64_t clk_forced; /* the reader option hz=N / 1000, 0: none */
	shark_clock ck;      /* picoseconds (not cycles) */
	int cycles;          /* ticks are TSC cycles (one clock rate) */
	int clean;           /* cycles, and the scan found no type word with
			      * bits 8-14 set: run_fast_t() unchecked */
	int started;
	int fst;             /* how the pass of fill() stopped (F_RUN ...) */
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
	tk_hashmap sem_map;  /* the semaphores and mutexes met: (par2 << 1 |
				is_sem) -> entity */
	/* the targets of kept records whose target depends on a parameter
	 * (ipoint N, IRQ N, a mutex, a server): target_key() -> entity,
	 * filled on the slow path so that the fast loop maps the next
	 * records of the same target itself instead of ending its block on
	 * each (an ipoint-heavy dump would on every record) */
	tk_hashmap targets;
	/* per event code, + 1 (0: not yet): its interned name, and the
	 * entity keep() gives it when that depends on the code alone */
	tk_str code_name1[256];
	uint32_t code_ent1[256];
	kept_code kept[256];
	uint8_t cls[256];    /* K_* by code (code_class, K_UNKNOWN, K_EMPTY) */
	tk_str kind_str[TK_EV_COUNT];
	tk_str type_str[TK_ET_COUNT];
	/* an event's type_name and name, by type and kind */
	ev_head names[TK_ET_COUNT][TK_EV_COUNT];
	hot h;               /* the block's room and the decoding state */
	/* skipping ahead (shark_reader_skip()): the records before
	 * skip_start are mapped, their events dropped */
	int skip;
	uint64_t skip_start;
} shark_reader;

/* The byte offset of record number pos in the file read: the dump's,
 * or the other reader's (a stream's record is where its bytes are). */
static uint64_t rec_offset(const shark_reader *s, uint64_t pos)
{
	return pos < s->nrec_off ? s->rec_off[pos] : pos * SHARK_REC;
}

/* A core's decoding state while the records are another core's. */
typedef struct core_st {
	uint32_t ent1;       /* its entity + 1, 0: not met yet */
	uint32_t running;
	int isr_depth;
	uint32_t isr_stack[ISR_MAX];
} core_st;

/* ---- records ------------------------------------------------------------ */

static TK_INLINE void decode(const uint8_t *p, rec *o)
{
	uint32_t w = tk_load_le32(p);

	o->type = w & 0xffffu;
	o->code = w & 0xffu;
	o->par1 = w >> 16;
	o->tsc = shark_tsc(p);
	o->p = p;
}

/*
 * par2, read where it is used, as the record holds it, FAST or not:
 * tracekit's recorder writes it on both paths (a FAST task_create names
 * its task, a FAST clock record sets the clock); the original FAST ipoint
 * left it as it was (0 in a fresh chunk: no clock, pid 0)
 */
static TK_INLINE uint32_t par2_of(const rec *x)
{
	return tk_load_le32(x->p + 12);
}

static int is_clock(const rec *x)
{
	return (x->code == SHARK_TRACE_START ||
		x->code == SHARK_CYCLES_PER_MSEC) &&
	       par2_of(x) != 0;
}

/* ---- probing ------------------------------------------------------------ */

/*
 * Binary records have no magic, so this is a guess: every record's type
 * word is a known code with only the FAST bit above it, the TSCs grow
 * (one wrap allowed), and the length is whole records when all of it is
 * seen.  Text never passes (its second byte is never 0x00 or 0x80); a low
 * score lets a format with a real signature win.
 */
static int shark_probe(const uint8_t *buf, size_t len)
{
	size_t i, n = len / SHARK_REC, seen = 0;
	uint64_t prev = 0;
	int descents = 0;

	if (n < 2 || (len < 4096 && len % SHARK_REC))
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *p = buf + i * SHARK_REC;
		unsigned type = tk_load_le16(p);
		uint64_t tsc = shark_tsc(p);
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

/*
 * A dump forced by --from shark: what the lenient reader reads (a record
 * with high bits or an unknown code, TSCs out of order, a cut record) is
 * enough, as long as the type words are mostly records' (a known code with
 * only the FAST bit above, at least as many as the others, empty slots
 * aside).  Text has none: its second byte is never 0x00 or 0x80.
 */
static int shark_sign(const uint8_t *buf, size_t len)
{
	size_t i, n = len / SHARK_REC, good = 0, bad = 0;

	for (i = 0; i < n; i++) {
		unsigned type = tk_load_le16(buf + i * SHARK_REC);
		if (type == 0)
			continue;
		if (!(type & 0x7f00u) && shark_code_name(type & 0xffu))
			good++;
		else
			bad++;
	}
	return good && good >= bad;
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
	tk_entity *e;
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
	e = id != TK_NONE ? tk_trace_ent(s->t, id) : NULL;
	if (e && e->type == TK_ET_UNKNOWN) {
		e->type = type;
		e->type_name = s->type_str[type];
	}
	return id;
}

/*
 * A name the reader makes itself (or an event code's): a given name equal
 * to one would be taken for that other entity.
 */
static int reserved_name(const char *n, size_t len)
{
	static const char *const fixed[] = { "FTrace", "Scheduler", "timer",
					     "signal", "data", "other" };
	static const char *const numbered[] = { "Core_", "task", "ctx", "IRQ",
						"ipoint", "sem", "server" };
	size_t i, k;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i]) == len && memcmp(n, fixed[i], len) == 0)
			return 1;
	for (i = 0; i < sizeof(numbered) / sizeof(numbered[0]); i++) {
		size_t pl = strlen(numbered[i]);

		if (len <= pl || memcmp(n, numbered[i], pl) != 0)
			continue;
		for (k = pl; k < len && n[k] >= '0' && n[k] <= '9'; k++)
			;
		if (k == len)
			return 1;
	}
	if (len > 6 && memcmp(n, "mutex_", 6) == 0) {
		for (k = 6; k < len && ((n[k] >= '0' && n[k] <= '9') ||
					(n[k] >= 'a' && n[k] <= 'f')); k++)
			;
		if (k == len)
			return 1;
	}
	if (len >= 7 && memcmp(n, "code_0x", 7) == 0)
		return 1;
	for (i = 0; i < 256; i++) {
		const char *c = shark_code_name((unsigned)i);

		if (c && strlen(c) == len && memcmp(n, c, len) == 0)
			return 1;
	}
	return 0;
}

/*
 * The entity of the name another reader gives to (kind, id), of type
 * `type`: 1 (*ent set), 0 if there is none or it cannot be used (a
 * warning; the reader's own name then), -1 out of memory.
 */
static int given_name(shark_reader *s, tk_etype type, unsigned kind,
		      uint32_t id, uint32_t *ent)
{
	static const char *const what[] = { "task", "ISR", "user event" };
	const char *n, *why = NULL;
	size_t len = 0, i;
	tk_entity *e;
	uint32_t x;

	if (!s->name_fn || id > 0xFFFFu ||
	    !(n = s->name_fn(s->name_ctx, kind, id, &len)))
		return 0;
	for (i = 0; i < len && !why; i++)
		if ((unsigned char)n[i] < 0x20u || n[i] == 0x7f)
			why = "has a control character";
	if (!why && (!len || reserved_name(n, len)))
		why = len ? "is one the reader gives other entities" : "is empty";
	if (!why) {
		x = tk_trace_entity_intern(s->t, n, len);
		if (x == TK_NONE)
			return -1;
		e = tk_trace_ent(s->t, x);
		if (e->type == TK_ET_UNKNOWN) {
			e->type = type;
			e->type_name = s->type_str[type];
		} else if (e->type != type) {
			why = "names an entity of another type";
		}
	}
	if (why) {
		tk_reader_warn(s->r, W_NAME, 0, 0,
			       "the name '%.*s' of %s %lu %s (the reader's own name kept)",
			       (int)(len > 64 ? 64 : len), n, what[kind],
			       (unsigned long)id, why);
		return 0;
	}
	*ent = x;
	return 1;
}

/* The entity of interrupt `irq`: its given name, or IRQ<irq>. */
static uint32_t irq_entity(shark_reader *s, unsigned irq)
{
	uint32_t ent;
	int rc = given_name(s, TK_ET_I, SHARK_NAME_ISR, irq, &ent);

	if (rc < 0)
		return TK_NONE;
	return rc ? ent : entity(s, TK_ET_I, "IRQ%u", irq);
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
	if (tk_grow_zero32((void **)&s->tasks, &s->captasks, s->ntasks,
			   sizeof(*s->tasks)) < 0)
		return TK_NONE;
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

	int rc;

	if (!u16_map(&s->ctx_map))
		return TK_NONE;
	rc = given_name(s, TK_ET_T, SHARK_NAME_TASK, pid, &ent);
	if (rc < 0)
		return TK_NONE;
	if (!rc)
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
	ent = irq_entity(s, irq);
	if (ent == TK_NONE)
		return TK_NONE;
	if (tk_grow_zero32((void **)&s->isrs, &s->capisrs, s->nisrs,
			   sizeof(*s->isrs)) < 0)
		return TK_NONE;
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
	tk->on_core = (uint8_t)s->cur_core;
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
			       (unsigned long long)rec_offset(s, h->pos),
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

/* A task that runs on another core comes to this one (a stream's cores):
 * it is preempted there (the event on this core), that core runs nothing. */
static void migrate(shark_reader *s, hot *h, uint32_t ti)
{
	task *tk = &s->tasks[ti];
	core_st *o = &s->cst[tk->on_core];

	if (tk->state != TS_RUNNING || tk->on_core == s->cur_core)
		return;
	unrun(s, h, tk);
	if (o->running == ti)
		o->running = TK_NONE;
}

static TK_INLINE void switch_to(shark_reader *s, hot *h, uint32_t ti)
{
	if (h->isr_depth) {
		/* taken when the interrupt returns */
		h->running = ti;
		return;
	}
	if (TK_UNLIKELY(s->cst != NULL) && h->running != ti)
		migrate(s, h, ti);
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
			       (unsigned long long)rec_offset(s, h->pos), ISR_MAX);
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
			       (unsigned long long)rec_offset(s, h->pos));
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

/* The key in the targets map of a parameter of a kept code's family. */
static TK_INLINE uint64_t target_key(unsigned code, uint32_t par)
{
	return (uint64_t)(code & 0x0f) << 32 | par;
}

/* keep() the first time for a code, or for a code whose target depends
 * on the parameters and is not in the targets map. */
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
		tgt = irq_entity(s, x->par1);
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
	case 0x9: {
		/* user_event_<n> (0 .. 14; 0xF9 is filter_user): its given name */
		int rc = 0;

		if (s->code_ent1[x->code]) {
			tgt = s->code_ent1[x->code] - 1;
		} else {
			if (x->code != 0xF9)
				rc = given_name(s, TK_ET_EVENT, SHARK_NAME_USER,
						x->code >> 4, &tgt);
			if (rc < 0)
				return TK_E_NOMEM;
			if (!rc)
				tgt = entity(s, TK_ET_EVENT, "%s", n);
		}
		by_code = 1;
		break;
	}
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
		k->pmode = by2 ? PM_PAR2 : PM_PAR1;
		k->sys = (x->code & 0x0f) == 0x3;
		if (tk_hashmap_set(&s->targets, target_key(x->code, par),
				   e->target) < 0)
			return TK_E_NOMEM;
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
			/* absent: TK_NONE + 1, 0 */
			tgt1 = tk_hashmap_get(&s->targets,
					      target_key(x->code, par)) + 1;
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

	if (s->clk_forced)
		return;  /* hz=N: the user's rate for the whole dump */
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

/* The entity of a semaphore (sem) or mutex (!sem) met before, or TK_NONE. */
static TK_INLINE uint32_t sem_find(const shark_reader *s, int sem, uint32_t par2)
{
	return tk_hashmap_get(&s->sem_map, (uint64_t)par2 << 1 | (unsigned)sem);
}

/* The entity of a semaphore or mutex, made the first time (slow path). */
static uint32_t sem_get(shark_reader *s, int sem, uint32_t par2)
{
	uint64_t key = (uint64_t)par2 << 1 | (unsigned)sem;
	uint32_t ent = sem_find(s, sem, par2);

	if (ent != TK_NONE)
		return ent;
	if (sem)  /* par2 is an index into sem_table */
		ent = entity(s, TK_ET_SEM, "sem%lu", (unsigned long)par2);
	else      /* par2 is the mutex's address */
		ent = entity(s, TK_ET_SEM, "mutex_%lx", (unsigned long)par2);
	if (ent == TK_NONE || tk_hashmap_set(&s->sem_map, key, ent) < 0)
		return TK_NONE;
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
 * Map one record to events.  With `slow` clear (the fast loop), a record
 * that needs more than the reader's decoding state (a new entity, a
 * warning, an error) is left alone: R_STALL, nothing done.  With `slow`
 * set (a block's first record), every record is mapped.
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
			return tk_err_set_at(err, TK_E_PARSE, s->name, rec_offset(s, h->pos),
					     "code 0x43 is the manual's set_mutex_unlock; the S.Ha.R.K. source writes 0x36");
		tk_reader_warn(s->r, W_UNLOCK_43, 0, 0,
			       "offset %llu: code 0x43 read as set_mutex_unlock (0x36 in the S.Ha.R.K. source)",
			       (unsigned long long)rec_offset(s, h->pos));
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
				       (unsigned long long)rec_offset(s, h->pos),
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
					     rec_offset(s, h->pos),
					     "unknown event code 0x%02x",
					     x->code);
		tk_reader_warn(s->r, W_UNKNOWN_CODE, 0, 0,
			       "offset %llu: unknown event code 0x%02x (kept as code_0x%02x)",
			       (unsigned long long)rec_offset(s, h->pos), x->code,
			       x->code);
		return keep(s, h, slow, x, err);
	default:
		return keep(s, h, slow, x, err);
	}
	/* a context or interrupt not met before (fast loop), or out of memory */
	if (!slow)
		return R_STALL;
	return tk_err_nomem(err, s->name);
}

/* ---- reading records ---------------------------------------------------- */

/* A type word with bits 8-14 set: warn, or fail if strict. */
static int irregular(shark_reader *s, hot *h, rec xv, tk_error *err)
{
	const rec *x = &xv;
	uint64_t off = rec_offset(s, h->pos);

	if (x->type & 0x7f00u) {
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, off,
					     "type word 0x%04x: only bit 15 (FAST) may be set above the event code",
					     x->type);
		tk_reader_warn(s->r, W_TYPE_HIGH_BITS, 0, 0,
			       "offset %llu: type word 0x%04x has bits 8-14 set (the low byte is read as the code)",
			       (unsigned long long)rec_offset(s, h->pos), x->type);
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

/*
 * The record's core is not the one in s->h (the slow path): that core's
 * state is put aside and this one's taken, made the first time (Core_<n>,
 * its clock event unless it is the trace's first: first_event() makes
 * that).  TK_OK or TK_E_NOMEM.
 */
static int switch_core(shark_reader *s, hot *h, unsigned c)
{
	core_st *o = &s->cst[s->cur_core], *n = &s->cst[c];

	o->ent1 = h->core + 1;
	o->running = h->running;
	o->isr_depth = h->isr_depth;
	memcpy(o->isr_stack, s->isr_stack, sizeof(o->isr_stack));
	s->cur_core = c;
	if (!n->ent1) {
		uint32_t ent = entity(s, TK_ET_C, "Core_%u", c);

		if (ent == TK_NONE)
			return TK_E_NOMEM;
		h->core = ent;
		h->running = TK_NONE;
		h->isr_depth = 0;
		if (s->started)
			note(s, emit(s, h, h->core, 0, TK_ET_C, h->core, 0,
				     TK_EV_SET_FREQUENCE),
			     "%llu", (unsigned long long)s->clk * 1000u);
		return TK_OK;
	}
	h->core = n->ent1 - 1;
	h->running = n->running;
	h->isr_depth = n->isr_depth;
	memcpy(s->isr_stack, n->isr_stack, sizeof(s->isr_stack));
	return TK_OK;
}

/* The core of record number pos (a stream's), or 0. */
static TK_INLINE unsigned core_of(const shark_reader *s, uint64_t pos)
{
	return pos < s->nrec_core ? s->rec_core[pos] : 0;
}

/* One record: R_OK, R_STALL (the fast loop: left to the slow path,
 * nothing done that the slow path would not do the same) or a failure. */
static TK_INLINE int process(shark_reader *s, hot *h, int cycles, int slow,
			      const rec *x, tk_error *err)
{
	/* (the records come in TSC order: shark_order.c) */
	if (TK_UNLIKELY(x->type & 0x7f00u)) {
		int rc;
		if (!slow)
			return R_STALL;
		rc = irregular(s, h, *x, err);
		if (rc < 0)
			return rc;
	}
	if (TK_UNLIKELY(tsc_to_ps(s, cycles, x->tsc, &h->now) < 0)) {
		if (!slow)
			return R_STALL;
		return tk_err_set_at(err, TK_E_RANGE, s->name, rec_offset(s, h->pos),
				     "TSC %llu at %llu cycles/ms is past 2^64 ps",
				     (unsigned long long)x->tsc,
				     (unsigned long long)s->clk);
	}
	if (slow && TK_UNLIKELY(s->rec_core != NULL) &&
	    core_of(s, h->pos) != s->cur_core &&
	    switch_core(s, h, core_of(s, h->pos)) < 0)
		return tk_err_nomem(err, s->name);
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
 * How a pass of fill() stopped (s->fst): F_RUN (the block is full, or
 * nothing stopped it), F_ONE (the slow path: its one record is mapped),
 * F_STALL (a record for the slow path is next), TK_END, or a failure (in
 * s->perr; its record taken and its events dropped); skipping
 * (shark_reader_skip()), F_AT: the next record's time is at or after the
 * start (not taken).
 */
enum { F_RUN = 0, F_ONE = 4, F_STALL = 5, F_AT = 6 };

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
	uint64_t now;

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
			/* skipping (shark_reader_skip()): stop before the
			 * first record at or after the start (a time that
			 * cannot be had is the read's error to give) */
			if (TK_UNLIKELY(s->skip) &&
			    (tsc_to_ps(s, cycles, x.tsc, &now) < 0 ||
			     now >= s->skip_start)) {
				s->fst = F_AT;
				return i;
			}
			h->pos = pos + i;
			rc = process(s, h, cycles, slow, &x, &s->perr);
			if (TK_UNLIKELY(rc != R_OK)) {
				if (rc == R_STALL) {
					s->fst = F_STALL;
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
 * run_block_t() without `slow`, on a copy of the hot state (in
 * registers); a record that needs the slow path ends the pass (R_STALL)
 * where it is, not taken.  `checked`: the type word checked with one
 * compare for an empty slot or a type word with high bits.  Without it (a
 * clean dump, s->clean: the TSC as the time, no type word with high bits)
 * no record is checked but by its class (an empty slot is one, K_EMPTY).
 */
static TK_INLINE size_t run_fast_t(shark_reader *s, int cycles, int checked,
				   int skip, const uint8_t *p, size_t n,
				   uint64_t pos)
{
	hot hv = s->h, *h = &hv;
	uint64_t end = pos + n, q = pos, m, start = s->skip_start;
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
			uint32_t w = tk_load_le32(r);
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
			x.tsc = shark_tsc(r);
			x.type = w & 0xffffu;
			x.code = w & 0xffu;
			x.par1 = w >> 16;
			x.p = r;
			if (TK_UNLIKELY(tsc_to_ps(s, cycles, x.tsc, &h->now) < 0))
				goto stall;
			if (skip && TK_UNLIKELY(h->now >= start)) {
				s->h = hv;
				s->fst = F_AT;
				return (size_t)(q - pos);
			}
			h->pos = q;
			if (TK_UNLIKELY(map_record(s, h, 0, &x, NULL) != R_OK))
				goto stall;
		}
	}
	s->h = hv;
	return (size_t)(q - pos);
stall:
	s->h = hv;
	s->fst = F_STALL;
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
		for (i = 0; i < n && tk_load_le16(p + i * SHARK_REC) == 0; i++)
			;
		if (i < n)
			s->fst = F_STALL;
		return i;
	}
	if (TK_UNLIKELY(s->rec_core != NULL)) {
		/* the fast loop maps the records of the core in s->h */
		size_t i;
		for (i = 0; i < n && core_of(s, pos + i) == s->cur_core; i++)
			;
		if (i < n && !i) {
			s->fst = F_STALL;
			return 0;
		}
		n = i;
	}
	if (TK_UNLIKELY(s->skip)) {
		if (s->clean)
			return run_fast_t(s, 1, 0, 1, p, n, pos);
		if (s->cycles)
			return run_fast_t(s, 1, 1, 1, p, n, pos);
		return run_fast_t(s, 0, 1, 1, p, n, pos);
	}
	if (s->clean)
		return run_fast_t(s, 1, 0, 0, p, n, pos);
	if (s->cycles)
		return run_fast_t(s, 1, 1, 0, p, n, pos);
	return run_fast_t(s, 0, 1, 0, p, n, pos);
}
/* ---- blocks ------------------------------------------------------------- */

/* room in the block for another record's events */
#define ROOM(s) ((s)->h.qp <= (s)->h.qend - PER_REC)

/*
 * Map records into the block (one record by the slow path if `slow`):
 * its events from s->bev on; how the pass stopped in s->fst (F_RUN,
 * F_ONE, F_STALL, TK_END or a failure, in s->perr).
 */
static void fill(shark_reader *s, int slow)
{
	s->fill_gen++;
	s->h.qp = s->bev;
	s->h.qend = s->bev + s->cap;
	s->fst = s->done ? TK_END : F_RUN;
	while (s->fst == F_RUN && ROOM(s)) {
		const uint8_t *p;
		uint64_t slot;
		size_t n;
		int rc = shark_order_peek(&s->ord, &p, &n, &slot, &s->perr);

		if (rc != TK_OK) {
			s->done = 1;
			s->fst = rc;
			break;
		}
		shark_order_take(&s->ord, run_block(s, slow, p, n, slot));
	}
}

/* The room of a block: BCAP events, or what all the records of the dump
 * can make (PER_REC each, the first event too) if fewer. */
static size_t events_for(const shark_reader *s)
{
	size_t n;

	if (s->ord.nslots >= BCAP / PER_REC - 1)
		return BCAP;
	n = ((size_t)s->ord.nslots + 1) * PER_REC;
	return (n + 15) & ~(size_t)15;
}

/*
 * tk_format_ops.reader_skip: the records before the first whose time is
 * at or after `start` (the records come in time order), mapped by
 * fill()'s passes with s->skip set, which stop before that record
 * (F_AT): each block's events only set tk_entity.parent
 * (tk_reader_note_parents()) and are dropped, not handed out, filtered or
 * counted; the reader's state (tasks, jobs, what runs, interrupts,
 * entities and names, the clock, warnings) is that of a full read.
 */
static int shark_reader_skip(tk_reader *r, uint64_t start, tk_error *err)
{
	shark_reader *s = r->impl;
	int slow;

	/* between records only: no event of a block waits */
	if (s->rp != s->rend || s->done ||
	    (s->ending != F_RUN && s->ending != F_STALL))
		return TK_OK;
	slow = s->ending == F_STALL;
	s->skip = 1;
	s->skip_start = start;
	for (;;) {
		fill(s, slow);
		tk_reader_note_parents(r, s->bev, (size_t)(s->h.qp - s->bev));
		if (s->fst == F_AT || s->fst == TK_END)
			break;
		if (s->fst < 0) {
			s->skip = 0;
			s->ending = TK_END;
			if (err)
				*err = s->perr;
			return s->fst;
		}
		slow = s->fst == F_STALL;
	}
	s->skip = 0;
	s->ending = s->fst == TK_END ? TK_END : F_RUN;
	return TK_OK;
}

/* ---- open --------------------------------------------------------------- */

static int add_param(shark_reader *s, const char *key, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);

	return tk_trace_header_push(s->t, TK_HDR_PARAM, key, strlen(key), buf,
				   (size_t)n, 1);
}

/* The interned names of the event types and kinds, and the tables. */
static int set_names(shark_reader *s)
{
	int k, j;

	for (k = 0; k < TK_EV_COUNT; k++) {
		const char *n = tk_evkind_name((tk_evkind)k);
		s->kind_str[k] = tk_strpool_intern(&s->t->pool, n, strlen(n));
		if (s->kind_str[k] == TK_NONE)
			return -1;
	}
	for (k = 0; k < TK_ET_COUNT; k++) {
		const char *n = tk_etype_name((tk_etype)k);
		s->type_str[k] = tk_strpool_intern(&s->t->pool, n, strlen(n));
		if (s->type_str[k] == TK_NONE)
			return -1;
	}
	for (k = 0; k < TK_ET_COUNT; k++) {
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
	s->h.core = entity(s, TK_ET_C, "Core_%u", s->cur_core);
	s->sys = entity(s, TK_ET_SYS, "FTrace");
	s->sched = entity(s, TK_ET_SCHED, "Scheduler");
	if (s->h.core == TK_NONE || s->sys == TK_NONE || s->sched == TK_NONE ||
	    !u16_map(&s->ctx_map))
		return -1;
	return 0;
}

static void shark_reader_close(tk_reader *r);

/*
 * The reader options ("key=value,..."): hz=N, the clock rate in Hz, for a
 * dump that lacks its clock record (a cyclic chunk that wrapped over it)
 * or gives a wrong one.  N is a multiple of 1000 (the dump's time base is
 * cycles per millisecond, as its clock records say) below 2^32 kHz.
 */
static int parse_options(shark_reader *s, tk_error *err)
{
	const char *p = s->r->opts.options;

	while (p && *p) {
		size_t n = strcspn(p, ","), kn, i;
		const char *eq = memchr(p, '=', n);
		uint64_t v = 0;
		int ok = eq != NULL && (size_t)(eq - p) + 1 < n;

		kn = eq ? (size_t)(eq - p) : n;
		for (i = kn + 1; ok && i < n; i++) {
			if (p[i] < '0' || p[i] > '9' || v > UINT32_MAX * 1000ull)
				ok = 0;
			else
				v = v * 10 + (uint64_t)(p[i] - '0');
		}
		if (tk_ascii_casecmp(p, kn, "hz") == 0 && ok && v && v % 1000 == 0 &&
		    v / 1000 <= UINT32_MAX) {
			s->clk_forced = v / 1000;
		} else {
			return tk_err_set(err, TK_E_USAGE, s->name, 0, 0,
					  "bad shark reader option '%.*s' (hz=N: the clock rate in Hz, a multiple of 1000 below 2^32 kHz)",
					  (int)n, p);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return TK_OK;
}

int shark_reader_open_ext(tk_reader *r, const shark_ext *x, tk_error *err)
{
	shark_reader *s = calloc(1, sizeof(*s));
	shark_order *o;
	int rc;

	if (!s)
		return tk_err_nomem(err, tk_source_name(r->src));
	r->impl = s;
	if (x) {
		s->name_fn = x->name;
		s->name_ctx = x->name_ctx;
		if (x->offs && x->noffs) {
			s->rec_off = x->offs;
			s->nrec_off = x->noffs;
		}
		if (x->cores && x->ncores) {
			s->rec_core = x->cores;
			s->nrec_core = x->ncores;
			s->cur_core = x->cores[0];
			s->cst = calloc(256, sizeof(*s->cst));
			if (!s->cst)
				goto nomem;
		}
	}
	/* read in TSC order (shark_order.c), whatever the buffer order */
	r->ordered = 1;
	/* entity() gives an entity its type when it makes it */
	r->fixed_types = 1;
	s->r = r;
	s->t = r->trace;
	s->name = tk_source_name(r->src);
	s->strict = r->opts.strict;
	s->h.running = TK_NONE;
	tk_trace_set_timebase(s->t, &(tk_timebase){ TK_UNIT_PS, 1, 1 });
	if (set_names(s) < 0)
		goto nomem;
	if ((rc = parse_options(s, err)) < 0)
		goto fail;
	o = &s->ord;
	rc = shark_order_open(o, r->src, err);
	if (rc < 0)
		goto fail;
	if (o->tail) {
		if (s->strict) {
			rc = tk_err_set_at(err, TK_E_PARSE, s->name,
					   o->nslots * SHARK_REC,
					   "truncated record: %zu bytes at the end (records are 16 bytes)",
					   o->tail);
			goto fail;
		}
		tk_reader_warn(r, W_TRUNCATED, 0, 0,
			       "the last %zu bytes are not a whole record (ignored)",
			       o->tail);
	}
	if (o->descents)
		tk_reader_warn(r, W_REORDERED, 0, 0,
			       "records are not in TSC order from offset %llu on (a wrapped cyclic chunk?): read in TSC order",
			       (unsigned long long)rec_offset(s, o->at));
	if (s->clk_forced) {
		/* one rate, the user's: the dump's clock records only named */
		s->clk = s->clk_forced;
		s->cycles = 1;
		s->clean = !o->high;
		if (o->clk && (o->clk_differ || o->clk != s->clk_forced))
			tk_reader_warn(r, W_CLOCK_FORCED, 0, 0,
				       "the dump's clock records say %llu cycles/ms%s: hz=%llu is used instead",
				       (unsigned long long)o->clk,
				       o->clk_differ ? " (and other rates)" : "",
				       (unsigned long long)s->clk_forced * 1000u);
	} else if (o->clk_differ) {
		s->clk = o->clk_read;
	} else {
		s->clk = o->clk;
		s->cycles = 1;
		s->clean = !o->high;
	}
	if (!s->clk) {
		s->clk = DEFAULT_CLK;
		tk_reader_warn(r, W_NO_CLOCK, 0, 0,
			       "no trace_start or cycles_per_msec record gives the clock rate (a cyclic chunk that wrapped over it?): 1 GHz assumed, 1 cycle = 1 ns; give the rate with the reader option hz=N");
	}
	shark_clock_set(&s->ck, s->clk, 0, 0);
	if (s->cycles) {
		/* one tick = one cycle = 1/clk_per_msec ms, exactly */
		tk_trace_set_timebase(s->t,
				      &(tk_timebase){ TK_UNIT_MS, 1, s->clk });
	} else {
		tk_reader_warn(r, W_CLOCK_ROUNDED, 0, 0,
			       "the clock rate changes within the dump: times are read in whole picoseconds (rounded down)");
	}
	if (add_param(s, "clk_per_msec", s->clk) < 0 ||
	    add_param(s, "records", o->nslots) < 0)
		goto nomem;
	/* the block: no more room than the dump needs */
	s->cap = events_for(s);
	s->bev = tk_bigbuf_alloc(s->cap * (sizeof(tk_event) + NOTE_MAX));
	if (!s->bev)
		goto nomem;
	s->bnotes = (char (*)[NOTE_MAX])(s->bev + s->cap);
	s->ending = F_RUN;
	return TK_OK;
nomem:
	rc = tk_err_nomem(err, s->name);
fail:
	shark_reader_close(r);
	return rc;
}

static int shark_reader_open(tk_reader *r, tk_error *err)
{
	return shark_reader_open_ext(r, NULL, err);
}

/* ---- handing out events ------------------------------------------------- */

/*
 * The events of the block not handed out yet, at most max of them; a new
 * block when they are used up (by the slow path after a pass that stopped
 * at a record that needs it).  A failure comes after the events before it,
 * once; a caller that goes on reads the next record.
 */
static int shark_reader_next_batch(tk_reader *r, const tk_event **evs,
				   size_t *n, size_t max, tk_error *err)
{
	shark_reader *s = r->impl;
	size_t k;

	while (s->rp == s->rend) {
		int st = s->ending;

		if (st == TK_END)
			return TK_END;
		if (st < 0) {
			s->ending = F_RUN;
			if (err)
				*err = s->cerr;
			return st;
		}
		fill(s, st == F_STALL);
		s->rp = s->bev;
		s->rend = s->h.qp;
		s->ending = s->fst == F_ONE ? F_RUN : s->fst;
		if (s->fst < 0)
			s->cerr = s->perr;
	}
	k = (size_t)(s->rend - s->rp);
	if (k > max)
		k = max;
	*evs = s->rp;
	*n = k;
	s->rp += k;
	return TK_OK;
}

static void shark_reader_close(tk_reader *r)
{
	shark_reader *s = r->impl;

	if (!s)
		return;
	shark_order_close(&s->ord);
	tk_bigbuf_free(s->bev);
	free(s->tasks);
	free(s->ctx_map);
	free(s->ent_task);
	free(s->isrs);
	free(s->irq_map);
	free(s->cst);
	tk_hashmap_free(&s->sem_map);
	tk_hashmap_free(&s->targets);
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
	.sign = shark_sign,
	.reader_open = shark_reader_open,
	.reader_next_batch = shark_reader_next_batch,
	.reader_skip = shark_reader_skip,
	.reader_close = shark_reader_close,
	.reader_options = 1,
	.pos_records = 1,
};
