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
 * so (any clock below 1 THz keeps that map one-to-one).
 *
 * Order: the target writes records in buffer order, which after a cyclic
 * chunk wrapped is not time order.  When the whole input is in memory
 * (mapped files, memory, or a stream of up to WHOLE_MAX bytes) a single
 * wrap is read as a rotation from the oldest record, and anything else
 * out of order is sorted by TSC (an index of 4 bytes per record);
 * otherwise records are read as they come and a decrease is reported.
 *
 * The event model mapping (tasks, context switches, interrupts, mutexes,
 * the rest kept by name) is in docs/mappings.md.
 */
#include "shark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define PS_PER_MS 1000000000u
#define QMAX 8
#define ISR_MAX 16
#define NOTE_MAX 64

typedef unsigned __int128 u128;

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

/* One raw record, decoded. */
typedef struct rec {
	unsigned type;       /* the whole type word */
	unsigned code;       /* its low byte */
	unsigned par1;
	uint32_t par2;
	uint64_t tsc;
} rec;

typedef struct shark_reader {
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
	size_t rot;          /* rotation start when not sorted */
	int release;         /* a mapped file read in file order: consume it */
	size_t consumed;
	size_t next;         /* position in time order */
	/* the clock */
	uint64_t clk, seg_tsc, seg_ps;
	int cycles;          /* ticks are TSC cycles (one clock rate) */
	uint64_t last_tsc;
	int have_tsc;
	int started;
	/* entities */
	uint32_t core, sys, sched;
	task *tasks;
	uint32_t ntasks, captasks;
	uint32_t *ctx_map;   /* context -> task index, TK_NONE */
	isr *isrs;
	uint32_t nisrs, capisrs;
	uint32_t *irq_map;   /* irq number -> isr index */
	uint32_t running;    /* task index on the core, TK_NONE */
	uint32_t isr_stack[ISR_MAX];
	int isr_depth;
	/* per event code, + 1 (0: not yet): its interned name, and the
	 * entity keep() gives it when that depends on the code alone */
	tk_str code_name1[256];
	uint32_t code_ent1[256];
	tk_str kind_str[TK_EV_COUNT];
	tk_str type_str[TK_ET_COUNT];
	/* events made from the current record */
	tk_event q[QMAX];
	char notes[QMAX][NOTE_MAX];
	int qn, qi;
	uint64_t now;        /* time of the current record */
	uint64_t pos;        /* its physical record number */
} shark_reader;

/* ---- little-endian fields ----------------------------------------------- */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void decode(const uint8_t *p, rec *o)
{
	o->type = le16(p);
	o->code = o->type & 0xffu;
	o->par1 = le16(p + 2);
	o->tsc = (uint64_t)le32(p + 4) << 32 | le32(p + 8);
	/* the FAST ipoint never writes par2: what is there is stale */
	o->par2 = (o->type & SHARK_FAST) ? 0 : le32(p + 12);
}

static uint64_t tsc_at(const uint8_t *p)
{
	return (uint64_t)le32(p + 4) << 32 | le32(p + 8);
}

static int is_clock(const rec *x)
{
	return (x->code == SHARK_TRACE_START ||
		x->code == SHARK_CYCLES_PER_MSEC) &&
	       !(x->type & SHARK_FAST) && x->par2 != 0;
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

static int tsc_to_ps(shark_reader *s, uint64_t tsc, uint64_t *out)
{
	u128 d;

	if (s->cycles) {
		*out = tsc;
		return TK_OK;
	}
	if (tsc >= s->seg_tsc) {
		d = (u128)(tsc - s->seg_tsc) * PS_PER_MS / s->clk + s->seg_ps;
		if (d > UINT64_MAX)
			return TK_E_RANGE;
		*out = (uint64_t)d;
	} else {
		/* before the segment start (a decrease read as it came) */
		d = ((u128)(s->seg_tsc - tsc) * PS_PER_MS + s->clk - 1) / s->clk;
		*out = d >= s->seg_ps ? 0 : s->seg_ps - (uint64_t)d;
	}
	return TK_OK;
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

static uint32_t *u16_map(uint32_t **map)
{
	if (!*map) {
		*map = malloc(65536 * sizeof(**map));
		if (*map)
			memset(*map, 0xff, 65536 * sizeof(**map));
	}
	return *map;
}

static uint32_t new_task(shark_reader *s, uint16_t ctx, uint32_t ent)
{
	task *tk;
	uint32_t i;

	/* a name met again (a pid logged twice) continues its instances */
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].ent == ent) {
			s->tasks[i].ctx = ctx;
			s->ctx_map[ctx] = i;
			return i;
		}
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
	s->ctx_map[ctx] = s->ntasks;
	return s->ntasks++;
}

/* The task running in context `ctx`; named "ctx<N>" until an id names it. */
static uint32_t task_of(shark_reader *s, unsigned ctx)
{
	uint32_t ent;

	if (!u16_map(&s->ctx_map))
		return TK_NONE;
	if (s->ctx_map[ctx] != TK_NONE)
		return s->ctx_map[ctx];
	ent = entity(s, TK_ET_T, "ctx%u", ctx);
	return ent == TK_NONE ? TK_NONE : new_task(s, (uint16_t)ctx, ent);
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
	cur = s->ctx_map[ctx];
	if (cur != TK_NONE && s->tasks[cur].ent == ent)
		return cur;
	return new_task(s, (uint16_t)ctx, ent);
}

static uint32_t isr_of(shark_reader *s, unsigned irq)
{
	uint32_t ent;

	if (!u16_map(&s->irq_map))
		return TK_NONE;
	if (s->irq_map[irq] != TK_NONE)
		return s->irq_map[irq];
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
	s->irq_map[irq] = s->nisrs;
	return s->nisrs++;
}

/* ---- events ------------------------------------------------------------- */

static tk_event *emit(shark_reader *s, uint32_t src, int64_t sinst,
		      tk_etype type, uint32_t tgt, int64_t tinst,
		      tk_evkind kind)
{
	tk_event *e;

	if (s->qn == QMAX || src == TK_NONE || tgt == TK_NONE)
		return NULL;
	e = &s->q[s->qn++];
	memset(e, 0, sizeof(*e));
	e->time = s->now;
	e->source = src;
	e->source_inst = sinst;
	e->target = tgt;
	e->target_inst = tinst;
	e->type = type;
	e->type_name = s->type_str[type];
	e->kind = kind;
	e->name = s->kind_str[kind];
	e->core = s->core;
	e->pos = s->pos;
	e->note = NULL;
	return e;
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
	buf = s->notes[e - s->q];
	va_start(ap, fmt);
	n = vsnprintf(buf, NOTE_MAX, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	e->note = buf;
	e->note_len = (uint32_t)((size_t)n < NOTE_MAX ? (size_t)n : NOTE_MAX - 1);
}

/* The note "par1=P1 par2=P2" of a kept record, without printf. */
static void note_pars(shark_reader *s, tk_event *e, unsigned par1,
		      uint32_t par2)
{
	char *b;
	size_t n;

	if (!e)
		return;
	if (!par1 && !par2) {
		/* most kept records (timer_post, timer_delete) */
		static const char zero[] = "par1=0 par2=0";
		e->note = zero;
		e->note_len = sizeof(zero) - 1;
		return;
	}
	b = s->notes[e - s->q];
	memcpy(b, "par1=", 5);
	n = 5 + tk_fmt_u64(b + 5, par1);
	memcpy(b + n, " par2=", 6);
	n += 6;
	n += tk_fmt_u64(b + n, par2);
	b[n] = 0;
	e->note = b;
	e->note_len = (uint32_t)n;
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

static tk_event *emit_task(shark_reader *s, task *tk, int64_t inst,
			   tk_evkind kind)
{
	return emit(s, s->core, 0, TK_ET_T, tk->ent, inst, kind);
}

static void activate(shark_reader *s, task *tk)
{
	emit_task(s, tk, ++tk->last_inst, TK_EV_ACTIVATE);
	if (!tk->cur_inst) {
		tk->cur_inst = tk->last_inst;
		tk->state = TS_ACTIVE;
	}
}

/* The task gets the core. */
static void run(shark_reader *s, task *tk)
{
	if (!tk->cur_inst)
		activate(s, tk);  /* runs with no activation seen (idle, init) */
	if (tk->state == TS_ACTIVE)
		emit_task(s, tk, tk->cur_inst, TK_EV_START);
	else if (tk->state == TS_READY)
		emit_task(s, tk, tk->cur_inst, TK_EV_RESUME);
	tk->state = TS_RUNNING;
}

/* The task loses the core. */
static void unrun(shark_reader *s, task *tk)
{
	if (tk->cur_inst && tk->state == TS_RUNNING) {
		emit_task(s, tk, tk->cur_inst, TK_EV_PREEMPT);
		tk->state = TS_READY;
	}
}

static void end_job(shark_reader *s, uint32_t ti, const rec *x)
{
	task *tk = &s->tasks[ti];
	int on_core = tk->state == TS_RUNNING;

	if (!tk->cur_inst) {
		tk_reader_warn(s->r, W_NO_JOB, 0, 0,
			       "offset %llu: %s of context %u, which has no job (kept as an event)",
			       (unsigned long long)(s->pos * SHARK_REC),
			       shark_code_name(x->code), x->par1);
		note(s, emit_task(s, tk, 0, TK_EV_OTHER), "par1=%u par2=%lu",
		     x->par1, (unsigned long)x->par2);
		if (s->qn)
			s->q[s->qn - 1].name = tk_strpool_intern(
				&s->t->pool, shark_code_name(x->code),
				strlen(shark_code_name(x->code)));
		return;
	}
	emit_task(s, tk, tk->cur_inst, TK_EV_TERMINATE);
	if (tk->last_inst > tk->cur_inst) {
		/* a queued activation: the next job is ready at once */
		tk->cur_inst++;
		tk->state = TS_ACTIVE;
		if (on_core && s->running == ti && !s->isr_depth)
			run(s, tk);
	} else {
		tk->cur_inst = 0;
		tk->state = TS_NONE;
	}
}

static void switch_to(shark_reader *s, uint32_t ti)
{
	if (s->isr_depth) {
		/* taken when the interrupt returns */
		s->running = ti;
		return;
	}
	if (s->running != TK_NONE && s->running != ti)
		unrun(s, &s->tasks[s->running]);
	s->running = ti;
	run(s, &s->tasks[ti]);
}

static void isr_enter(shark_reader *s, uint32_t ii)
{
	isr *is = &s->isrs[ii];

	if (!s->isr_depth && s->running != TK_NONE)
		unrun(s, &s->tasks[s->running]);
	if (s->isr_depth == ISR_MAX) {
		tk_reader_warn(s->r, W_ISR_DEPTH, 0, 0,
			       "offset %llu: interrupts nested deeper than %d",
			       (unsigned long long)(s->pos * SHARK_REC), ISR_MAX);
		return;
	}
	s->isr_stack[s->isr_depth++] = ii;
	is->inst++;
	emit(s, s->core, 0, TK_ET_I, is->ent, is->inst, TK_EV_ACTIVATE);
	emit(s, s->core, 0, TK_ET_I, is->ent, is->inst, TK_EV_START);
}

static void isr_leave(shark_reader *s, uint32_t next_task)
{
	if (!s->isr_depth) {
		tk_reader_warn(s->r, W_ISR_UNBALANCED, 0, 0,
			       "offset %llu: end of an interrupt that did not start in the trace",
			       (unsigned long long)(s->pos * SHARK_REC));
	} else {
		isr *is = &s->isrs[s->isr_stack[--s->isr_depth]];
		emit(s, s->core, 0, TK_ET_I, is->ent, is->inst,
		     TK_EV_TERMINATE);
	}
	if (next_task != TK_NONE)
		s->running = next_task;
	if (!s->isr_depth && s->running != TK_NONE)
		run(s, &s->tasks[s->running]);
}

/* An event with no equivalent in the model: kept by its FTrace name. */
static int keep(shark_reader *s, const rec *x)
{
	const char *n = shark_code_name(x->code);
	char unk[16];
	uint32_t src = s->core, tgt;
	int64_t sinst = 0;
	tk_etype type = TK_ET_EVENT;
	tk_event *e;
	int by_code = 0;

	if (!n) {
		snprintf(unk, sizeof(unk), "code_0x%02x", x->code);
		n = unk;
	}
	if (s->running != TK_NONE && !s->isr_depth &&
	    s->tasks[s->running].cur_inst) {
		src = s->tasks[s->running].ent;
		sinst = s->tasks[s->running].cur_inst;
	}
	switch (x->code & 0x0f) {
	case 0x0: /* general: the tracer itself */
		type = TK_ET_SYS;
		tgt = s->sys;
		src = s->core;
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
		src = s->core;
		sinst = 0;
		e = emit(s, src, sinst, type, tgt, s->tasks[ti].cur_inst,
			 TK_EV_OTHER);
		goto named;
	}
	case 0x3:
		type = TK_ET_I;
		tgt = entity(s, TK_ET_I, "IRQ%u", x->par1);
		src = s->core;
		sinst = 0;
		break;
	case 0x4:
		type = TK_ET_C;
		tgt = s->core;
		break;
	case 0x6:
		type = TK_ET_SEM;
		tgt = entity(s, TK_ET_SEM, "mutex_%lx", (unsigned long)x->par2);
		break;
	case 0x8:
		tgt = entity(s, TK_ET_EVENT, "server%lu", (unsigned long)x->par2);
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
		src = s->core;
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
	e = emit(s, src, sinst, type, tgt, 0, TK_EV_OTHER);
named:
	if (!e)
		return TK_E_NOMEM;
	e->name = code_name_id(s, x->code);
	if (e->name == TK_NONE)
		return TK_E_NOMEM;
	note_pars(s, e, x->par1, x->par2);
	return TK_OK;
}

/* ---- one record --------------------------------------------------------- */

static int map_record(shark_reader *s, const rec *x, tk_error *err)
{
	uint32_t ti;
	tk_event *e;

	switch (x->code) {
	case SHARK_TRACE_START:
	case SHARK_TRACE_STOP:
		e = emit(s, s->core, 0, TK_ET_SYS, s->sys, 0,
			 x->code == SHARK_TRACE_START ? TK_EV_START : TK_EV_STOP);
		if (x->code == SHARK_TRACE_START)
			note(s, e, "par1=%u par2=%lu", x->par1,
			     (unsigned long)x->par2);
		return TK_OK;
	case SHARK_CYCLES_PER_MSEC:
		e = emit(s, s->core, 0, TK_ET_C, s->core, 0,
			 TK_EV_SET_FREQUENCE);
		note(s, e, "%llu", (unsigned long long)x->par2 * 1000u);
		return TK_OK;
	case SHARK_ID:
	case SHARK_TASK_CREATE:
		ti = name_task(s, x->par1, x->par2);
		break;
	case SHARK_TASK_ACTIVATE:
	case SHARK_TASK_TIMER:
		ti = task_of(s, x->par1);
		if (ti == TK_NONE)
			break;
		/*
		 * A periodic task's first job is logged twice (task_activate,
		 * then task_timer when its period timer is armed): a release
		 * of a job that has not started yet is that same job, kept by
		 * name.  A release while a job runs is a queued next job.
		 */
		if (s->tasks[ti].state == TS_ACTIVE) {
			if (keep(s, x) < 0)
				return tk_err_nomem(err, s->name);
			return TK_OK;
		}
		activate(s, &s->tasks[ti]);
		break;
	case SHARK_TASK_END_CYCLE:
	case SHARK_TASK_END:
		ti = task_of(s, x->par1);
		if (ti != TK_NONE)
			end_job(s, ti, x);
		break;
	case SHARK_TASK_SCHEDULE:
		ti = task_of(s, x->par1);
		if (ti == TK_NONE)
			break;
		e = emit(s, s->tasks[ti].ent, s->tasks[ti].cur_inst,
			 TK_ET_SCHED, s->sched, 0, TK_EV_SCHEDULE);
		if (x->par2 != x->par1)
			note(s, e, "exec=%lu", (unsigned long)x->par2);
		break;
	case SHARK_TASK_DEADLINE_MISS:
		ti = task_of(s, x->par1);
		if (ti != TK_NONE)
			emit_task(s, &s->tasks[ti],
				  s->tasks[ti].cur_inst ? s->tasks[ti].cur_inst
							: s->tasks[ti].last_inst,
				  TK_EV_DEADLINE);
		break;
	case SHARK_CONTEXT_SWITCH:
		ti = task_of(s, x->par1);
		if (ti != TK_NONE)
			switch_to(s, ti);
		break;
	case SHARK_INTERRUPT_START:
	case SHARK_TIMER_WAKEUP_START:
		/* the timer handler is IRQ 0, as pwcet_gen writes it */
		ti = isr_of(s, x->code == SHARK_INTERRUPT_START ? x->par1 : 0);
		if (ti != TK_NONE)
			isr_enter(s, ti);
		break;
	case SHARK_INTERRUPT_END:
		isr_leave(s, TK_NONE);
		return TK_OK;
	case SHARK_TIMER_WAKEUP_END:
		/* par1: the context the interrupt returns to */
		ti = TK_NONE;
		if (x->par1) {
			ti = task_of(s, x->par1);
			if (ti == TK_NONE)
				break;
		}
		isr_leave(s, ti);
		return TK_OK;
	case SHARK_MUTEX_UNLOCK_MANUAL:
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, s->pos * SHARK_REC,
					     "code 0x43 is the manual's set_mutex_unlock; the S.Ha.R.K. source writes 0x36");
		tk_reader_warn(s->r, W_UNLOCK_43, 0, 0,
			       "offset %llu: code 0x43 read as set_mutex_unlock (0x36 in the S.Ha.R.K. source)",
			       (unsigned long long)(s->pos * SHARK_REC));
		/* fall through */
	case SHARK_MUTEX_LOCK:
	case SHARK_MUTEX_UNLOCK:
	case SHARK_MUTEX_WAIT:
	case SHARK_MUTEX_POST: {
		uint32_t sem;
		tk_evkind k;
		ti = task_of(s, x->par1);
		if (ti == TK_NONE)
			break;
		if (x->code == SHARK_MUTEX_WAIT || x->code == SHARK_MUTEX_POST) {
			/* par2 is an index into sem_table */
			sem = entity(s, TK_ET_SEM, "sem%lu", (unsigned long)x->par2);
			k = x->code == SHARK_MUTEX_WAIT ? TK_EV_DECREMENT
							: TK_EV_INCREMENT;
		} else {
			/* par2 is the mutex's address */
			sem = entity(s, TK_ET_SEM, "mutex_%lx",
				     (unsigned long)x->par2);
			k = x->code == SHARK_MUTEX_LOCK ? TK_EV_LOCK : TK_EV_UNLOCK;
		}
		if (sem == TK_NONE)
			return tk_err_nomem(err, s->name);
		emit(s, s->tasks[ti].ent, s->tasks[ti].cur_inst, TK_ET_SEM,
		     sem, 0, k);
		return TK_OK;
	}
	case 0x70:
		/* the recorder's lost-events record: par1 1, par2 the count */
		if (x->par1 == 1) {
			tk_reader_warn(s->r, W_LOST, 0, 0,
				       "offset %llu: the target lost %lu events here",
				       (unsigned long long)(s->pos * SHARK_REC),
				       (unsigned long)x->par2);
		}
		/* fall through */
	default:
		if (!shark_code_name(x->code)) {
			if (s->strict)
				return tk_err_set_at(err, TK_E_PARSE, s->name,
						     s->pos * SHARK_REC,
						     "unknown event code 0x%02x",
						     x->code);
			tk_reader_warn(s->r, W_UNKNOWN_CODE, 0, 0,
				       "offset %llu: unknown event code 0x%02x (kept as code_0x%02x)",
				       (unsigned long long)(s->pos * SHARK_REC), x->code,
				       x->code);
		}
		if (keep(s, x) < 0)
			return tk_err_nomem(err, s->name);
		return TK_OK;
	}
	if (ti == TK_NONE)
		return tk_err_nomem(err, s->name);
	return TK_OK;
}

/* ---- reading records ---------------------------------------------------- */

/* The next non-empty record: 1, 0 at the end, or a negative status. */
static int next_record(shark_reader *s, rec *x, tk_error *err)
{
	for (;;) {
		const uint8_t *p;
		size_t phys;

		if (s->whole) {
			if (s->order) {
				if (s->next >= s->norder)
					return 0;
				phys = s->order[s->next++];
			} else {
				if (s->next >= s->nslots)
					return 0;
				phys = s->rot + s->next++;
				if (phys >= s->nslots)
					phys -= s->nslots;
				/*
				 * In file order, let the source give back the
				 * pages behind (memory stays flat on a big
				 * mapped dump; pointers into it stay valid).
				 */
				if (TK_UNLIKELY(!(s->next & 0xffff)) && !s->rot &&
				    s->release) {
					tk_source_consume(s->r->src,
							  (size_t)(s->next * SHARK_REC -
								   s->consumed));
					s->consumed = s->next * SHARK_REC;
				}
			}
			p = s->base + phys * SHARK_REC;
		} else {
			size_t avail;
			int rc;
			p = tk_source_window(s->r->src, &avail);
			while (avail < SHARK_REC) {
				rc = tk_source_fill(s->r->src, SHARK_REC, err);
				if (rc < 0)
					return rc;
				p = tk_source_window(s->r->src, &avail);
				if (rc == 0)
					break;
			}
			if (avail == 0)
				return 0;
			phys = (size_t)(tk_source_offset(s->r->src) / SHARK_REC);
			if (avail < SHARK_REC) {
				if (s->strict)
					return tk_err_set_at(err, TK_E_PARSE, s->name,
							     tk_source_offset(s->r->src),
							     "truncated record: %zu bytes at the end (records are 16 bytes)",
							     avail);
				tk_reader_warn(s->r, W_TRUNCATED, 0, 0,
					       "the last %zu bytes are not a whole record (ignored)",
					       avail);
				tk_source_consume(s->r->src, avail);
				return 0;
			}
			tk_source_consume(s->r->src, SHARK_REC);
		}
		s->pos = phys;
		decode(p, x);
		if (x->type == 0)
			continue;  /* an empty slot */
		return 1;
	}
}

static int process(shark_reader *s, const rec *x, tk_error *err)
{
	uint64_t off = s->pos * SHARK_REC;

	if (x->type & 0x7f00u) {
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, off,
					     "type word 0x%04x: only bit 15 (FAST) may be set above the event code",
					     x->type);
		tk_reader_warn(s->r, W_TYPE_HIGH_BITS, 0, 0,
			       "offset %llu: type word 0x%04x has bits 8-14 set (the low byte is read as the code)",
			       (unsigned long long)(s->pos * SHARK_REC), x->type);
	}
	if (s->have_tsc && x->tsc < s->last_tsc) {
		if (s->strict)
			return tk_err_set_at(err, TK_E_PARSE, s->name, off,
					     "TSC %llu is before the previous record's %llu",
					     (unsigned long long)x->tsc,
					     (unsigned long long)s->last_tsc);
		tk_reader_warn(s->r, W_TIME_DECREASES, 0, 0,
			       "offset %llu: the TSC decreases (a wrapped chunk read from a stream is not reordered)",
			       (unsigned long long)(s->pos * SHARK_REC));
	}
	if (!s->have_tsc || x->tsc > s->last_tsc)
		s->last_tsc = x->tsc;
	s->have_tsc = 1;
	if (tsc_to_ps(s, x->tsc, &s->now) < 0)
		return tk_err_set_at(err, TK_E_RANGE, s->name, off,
				     "TSC %llu at %llu cycles/ms is past 2^64 ps",
				     (unsigned long long)x->tsc,
				     (unsigned long long)s->clk);
	/*
	 * The first event names the core and its clock (Hz), so that a
	 * reader of the BTF output sees Core_0 as a core from the start.
	 */
	if (!s->started) {
		s->started = 1;
		note(s, emit(s, s->core, 0, TK_ET_C, s->core, 0,
			     TK_EV_SET_FREQUENCE),
		     "%llu", (unsigned long long)s->clk * 1000u);
	}
	/* a new clock rate applies from this record on */
	if (is_clock(x) && x->par2 != s->clk) {
		s->seg_tsc = x->tsc;
		s->seg_ps = s->now;
		s->clk = x->par2;
	}
	return map_record(s, x, err);
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

/* Put the records of a wholly read input into TSC order. */
static int arrange(shark_reader *s, tk_error *err)
{
	size_t i, n = 0, descents = 0, at = 0;
	uint64_t prev = 0, first = 0;
	keyed *k;

	for (i = 0; i < s->nslots; i++) {
		const uint8_t *p = s->base + i * SHARK_REC;
		uint64_t tsc;
		if (le16(p) == 0)
			continue;
		tsc = tsc_at(p);
		if (!n)
			first = tsc;
		else if (tsc < prev && !descents++)
			at = i;
		prev = tsc;
		n++;
	}
	if (!descents)
		return TK_OK;
	tk_reader_warn(s->r, W_REORDERED, 0, 0,
		       "records are not in TSC order from offset %zu on (a wrapped cyclic chunk?): read in TSC order",
		       at * SHARK_REC);
	if (descents == 1 && prev <= first) {
		s->rot = at;  /* one wrap: the oldest record follows it */
		return TK_OK;
	}
	if (s->nslots > UINT32_MAX)
		return tk_err_set_at(err, TK_E_RANGE, s->name, 0,
				     "too many records to sort");
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

/* The first clock rate in time order (or in the first CLOCK_SCAN bytes). */
static uint64_t find_clock(shark_reader *s)
{
	size_t i, n, avail;
	const uint8_t *p;
	rec x;

	if (s->whole) {
		uint64_t first = 0;
		n = s->order ? s->norder : s->nslots;
		s->cycles = 1;
		for (i = 0; i < n; i++) {
			size_t phys = s->order ? s->order[i] : s->rot + i;
			if (phys >= s->nslots)
				phys -= s->nslots;
			const uint8_t *q = s->base + phys * SHARK_REC;
			if (q[0] != SHARK_TRACE_START && q[0] != SHARK_CYCLES_PER_MSEC)
				continue;
			decode(q, &x);
			if (!is_clock(&x))
				continue;
			if (!first)
				first = x.par2;
			else if (x.par2 != first)
				s->cycles = 0;  /* the rate changes */
		}
		return first;
	}
	p = tk_source_window(s->r->src, &avail);
	for (i = 0; i + SHARK_REC <= avail; i += SHARK_REC) {
		decode(p + i, &x);
		if (is_clock(&x))
			return x.par2;
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

int shark_reader_open(tk_reader *r, tk_error *err)
{
	shark_reader *s = calloc(1, sizeof(*s));
	const uint8_t *p;
	size_t avail;
	int rc, k;

	if (!s)
		return tk_err_nomem(err, tk_source_name(r->src));
	r->impl = s;
	s->r = r;
	s->t = r->trace;
	s->name = tk_source_name(r->src);
	s->strict = r->opts.strict;
	s->running = TK_NONE;
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
	s->core = entity(s, TK_ET_C, "Core_0");
	s->sys = entity(s, TK_ET_SYS, "FTrace");
	s->sched = entity(s, TK_ET_SCHED, "Scheduler");
	if (s->core == TK_NONE || s->sys == TK_NONE || s->sched == TK_NONE)
		goto nomem;

	/* read a small stream whole, so that it can be reordered too */
	p = tk_source_window(r->src, &avail);
	while (!tk_source_eof(r->src) && avail < WHOLE_MAX) {
		rc = tk_source_fill(r->src, avail + CLOCK_SCAN, err);
		if (rc < 0)
			goto fail;
		p = tk_source_window(r->src, &avail);
		if (rc == 0)
			break;
	}
	if (tk_source_eof(r->src)) {
		s->whole = 1;
		s->base = p;
		s->nslots = avail / SHARK_REC;
		/* for the writers of the host tools' outputs (shark_tools.c) */
		s->t->raw = p;
		s->t->raw_len = avail;
		if (avail % SHARK_REC) {
			if (s->strict) {
				rc = tk_err_set_at(err, TK_E_PARSE, s->name,
						   s->nslots * SHARK_REC,
						   "truncated record: %zu bytes at the end (records are 16 bytes)",
						   avail % SHARK_REC);
				goto fail;
			}
			tk_reader_warn(r, W_TRUNCATED, 0, 0,
				       "the last %zu bytes are not a whole record (ignored)",
				       avail % SHARK_REC);
		}
		rc = arrange(s, err);
		if (rc < 0)
			goto fail;
		s->release = strcmp(tk_source_transport(r->src), "file") == 0;
	}
	s->clk = find_clock(s);
	if (!s->clk) {
		s->clk = DEFAULT_CLK;
		tk_reader_warn(r, W_NO_CLOCK, 0, 0,
			       "no trace_start or cycles_per_msec record gives the clock rate: 1 GHz assumed (1 cycle = 1 ns)");
	}
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
	return TK_OK;
nomem:
	rc = tk_err_nomem(err, s->name);
fail:
	shark_reader_close(r);
	return rc;
}

int shark_reader_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	shark_reader *s = r->impl;
	rec x;
	int rc;

	while (s->qi == s->qn) {
		s->qi = s->qn = 0;
		rc = next_record(s, &x, err);
		if (rc <= 0)
			return rc < 0 ? rc : TK_END;
		rc = process(s, &x, err);
		if (rc < 0)
			return rc;
	}
	*ev = &s->q[s->qi++];
	return TK_OK;
}

void shark_reader_close(tk_reader *r)
{
	shark_reader *s = r->impl;

	if (!s)
		return;
	free(s->order);
	free(s->tasks);
	free(s->ctx_map);
	free(s->isrs);
	free(s->irq_map);
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
