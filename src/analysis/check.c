/*
 * check.c - validation of a trace against the BTF 2.3.0 state machines
 * (process, runnable, semaphore/spinlock) per entity instance, and the
 * cross-entity rules: one process per core, a process leaves the core it
 * runs on, runnables only inside their running process and terminated
 * before it, gapless instance numbers, time never decreasing.
 *
 * An instance seen for the first time at the start of the trace is in an
 * unknown state and accepts any event (BTF 2.2+: "at the beginning of a
 * trace a process may be in any defined state").  "The start of the trace"
 * is judged per entity: an instance number below every instance seen so
 * far of its entity was created before the trace began; one above the
 * highest seen is a new one and starts TERMINATED (not yet activated) -
 * unless the entity never had an activate event, as ISRs often do not,
 * in which case its instances stay unknown until their first event.
 */
#include "analysis_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct centity {
	int64_t min_inst, max_inst;  /* instance numbers seen, if seen */
	uint8_t seen;
	uint8_t activated;           /* has had an activate event */
	uint8_t sem_state;           /* tk_state of a semaphore */
} centity;

typedef struct cproc {
	uint8_t state;
	uint32_t core;               /* where allocated, or TK_NONE */
	uint32_t open_runs;          /* runnables started and not terminated */
	uint32_t last_run;
	int64_t last_run_inst;
} cproc;

typedef struct crun {
	uint8_t state;
	uint8_t counted;             /* counted in the parent's open_runs */
	uint32_t parent;
	int64_t parent_inst;
} crun;

typedef struct ccore {
	uint8_t busy;
	uint32_t ent;
	int64_t inst;
} ccore;

struct tk_check {
	const tk_trace *t;
	tk_violation_fn fn;
	void *ctx;
	centity *ents;
	size_t nents;
	ccore *cores;
	size_t ncores;
	tk_imap procs, runs;
	tk_tlines tlines;    /* where a time line begins: all starts afresh */
	uint64_t last_time;
	int have_time;
	int strict;
	uint64_t counts[TK_RULE_COUNT + 1];
	char msg[512];
};

static const char *const state_names[TK_STATE_COUNT] = {
	"unknown", "TERMINATED", "ACTIVE", "RUNNING", "READY", "WAITING",
	"POLLING", "PARKING", "SUSPENDED", "NOT_INITIALIZED", "FREE", "USED",
	"FULL", "OVERFULL"
};

const char *tk_state_name(tk_state s)
{
	return (unsigned)s < TK_STATE_COUNT ? state_names[s] : "?";
}

static const char *const rule_names[TK_RULE_COUNT] = {
	"time", "process-state", "runnable-state", "semaphore-state",
	"core-busy", "core-mismatch", "runnable-outside", "runnable-open",
	"instance-gap", "activator"
};

const char *tk_rule_name(tk_rule rule)
{
	return (unsigned)rule < TK_RULE_COUNT ? rule_names[rule] : "?";
}

/* ---- the state machines (BTF 2.3.0 figures 2-4, 2-5, 2-6, 2-7) --------- */

/* process: the state an event leads to and the state it must come from */
static int proc_step(tk_evkind k, tk_state *from, tk_state *to)
{
	switch (k) {
	case TK_EV_ACTIVATE: *from = TK_STATE_TERMINATED; *to = TK_STATE_ACTIVE; return 1;
	case TK_EV_MTALIMITEXCEEDED: *from = TK_STATE_TERMINATED; *to = TK_STATE_TERMINATED; return 1;
	case TK_EV_START: *from = TK_STATE_ACTIVE; *to = TK_STATE_RUNNING; return 1;
	case TK_EV_INTERRUPT_SUSPENDED: *from = TK_STATE_ACTIVE; *to = TK_STATE_ACTIVE; return 1;
	case TK_EV_PREEMPT: *from = TK_STATE_RUNNING; *to = TK_STATE_READY; return 1;
	case TK_EV_RESUME: *from = TK_STATE_READY; *to = TK_STATE_RUNNING; return 1;
	case TK_EV_TERMINATE: *from = TK_STATE_RUNNING; *to = TK_STATE_TERMINATED; return 1;
	case TK_EV_POLL: *from = TK_STATE_RUNNING; *to = TK_STATE_POLLING; return 1;
	case TK_EV_RUN: *from = TK_STATE_POLLING; *to = TK_STATE_RUNNING; return 1;
	case TK_EV_PARK: *from = TK_STATE_POLLING; *to = TK_STATE_PARKING; return 1;
	case TK_EV_POLL_PARKING: *from = TK_STATE_PARKING; *to = TK_STATE_POLLING; return 1;
	case TK_EV_RELEASE_PARKING: *from = TK_STATE_PARKING; *to = TK_STATE_READY; return 1;
	case TK_EV_WAIT: *from = TK_STATE_RUNNING; *to = TK_STATE_WAITING; return 1;
	case TK_EV_RELEASE: *from = TK_STATE_WAITING; *to = TK_STATE_READY; return 1;
	default: return 0; /* information events: no state change */
	}
}

static int run_step(tk_evkind k, tk_state *from, tk_state *to)
{
	switch (k) {
	case TK_EV_START: *from = TK_STATE_TERMINATED; *to = TK_STATE_RUNNING; return 1;
	case TK_EV_SUSPEND: *from = TK_STATE_RUNNING; *to = TK_STATE_SUSPENDED; return 1;
	case TK_EV_RESUME: *from = TK_STATE_SUSPENDED; *to = TK_STATE_RUNNING; return 1;
	case TK_EV_TERMINATE: *from = TK_STATE_RUNNING; *to = TK_STATE_TERMINATED; return 1;
	default: return 0;
	}
}

/* semaphore-sourced events; several source states lead to one event */
static int sem_step(tk_evkind k, tk_state s, tk_state *to, const char **allowed)
{
	switch (k) {
	case TK_EV_READY:
		*allowed = "unknown or NOT_INITIALIZED";
		*to = TK_STATE_NOTINITIALIZED;
		return s == TK_STATE_NOTINITIALIZED;
	case TK_EV_FREE:
		*allowed = "USED or NOT_INITIALIZED";
		*to = TK_STATE_FREE;
		return s == TK_STATE_USED || s == TK_STATE_NOTINITIALIZED;
	case TK_EV_USED:
		*allowed = "FREE or USED";
		*to = TK_STATE_USED;
		return s == TK_STATE_FREE || s == TK_STATE_USED;
	case TK_EV_LOCK:
		*allowed = "FREE";
		*to = TK_STATE_FULL;
		return s == TK_STATE_FREE;
	case TK_EV_LOCK_USED:
		*allowed = "USED";
		*to = TK_STATE_FULL;
		return s == TK_STATE_USED;
	case TK_EV_UNLOCK:
		*allowed = "FULL";
		*to = TK_STATE_FREE;
		return s == TK_STATE_FULL;
	case TK_EV_UNLOCK_FULL:
		*allowed = "FULL";
		*to = TK_STATE_USED;
		return s == TK_STATE_FULL;
	case TK_EV_OVERFULL:
		*allowed = "FULL or OVERFULL";
		*to = TK_STATE_OVERFULL;
		return s == TK_STATE_FULL || s == TK_STATE_OVERFULL;
	case TK_EV_FULL:
		*allowed = "OVERFULL";
		*to = TK_STATE_FULL;
		return s == TK_STATE_OVERFULL;
	default:
		*to = s;
		return -1; /* not a state event (queued in 2.1.5 ...) */
	}
}

/* ---- helpers ------------------------------------------------------------ */

/* An entity's name, NUL-terminated, into buf. */
static const char *ename(const tk_check *c, uint32_t id, char *buf, size_t size)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(c->t, id);
	size_t n = 0;
	const char *s = e ? tk_trace_str(c->t, e->name, &n) : NULL;

	snprintf(buf, size, "%.*s", s ? (int)(n > 200 ? 200 : n) : 1, s ? s : "?");
	return buf;
}

/* "T Task_A 3" into buf */
static const char *who(const tk_check *c, tk_etype type, uint32_t id,
		       int64_t inst, char *buf, size_t size)
{
	char name[256];

	if (inst == TK_INST_NONE)
		snprintf(buf, size, "%s %s", tk_etype_name(type),
			 ename(c, id, name, sizeof(name)));
	else
		snprintf(buf, size, "%s %s %" PRId64, tk_etype_name(type),
			 ename(c, id, name, sizeof(name)), inst);
	return buf;
}

static tk_etype etype_of(const tk_check *c, uint32_t id)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(c->t, id);

	return e ? e->type : TK_ET_UNKNOWN;
}

static void report(tk_check *c, tk_rule rule, const tk_event *ev,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report(tk_check *c, tk_rule rule, const tk_event *ev,
		   const char *fmt, ...)
{
	tk_violation v;
	va_list ap;

	c->counts[rule]++;
	c->counts[TK_RULE_COUNT]++;
	if (!c->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	v.rule = rule;
	v.pos = ev->pos;
	v.time = ev->time;
	v.msg = c->msg;
	c->fn(c->ctx, &v);
}

static centity *entity(tk_check *c, uint32_t id)
{
	if (id == TK_NONE)
		return NULL;
	if (tk_grow_zero((void **)&c->ents, &c->nents, id, sizeof(*c->ents)) < 0)
		return NULL;
	return &c->ents[id];
}

/*
 * The state of an instance that has no record: one of its entity's past
 * (terminated) instances, or one from before the trace began, or a new one.
 */
static tk_state implied_state(const centity *e, int64_t inst)
{
	if (!e || !e->seen || inst == TK_INST_NONE || inst < e->min_inst)
		return TK_STATE_UNKNOWN;
	if (inst <= e->max_inst)
		return TK_STATE_TERMINATED;
	return e->activated ? TK_STATE_TERMINATED : TK_STATE_UNKNOWN;
}

static void note_inst(centity *e, int64_t inst)
{
	if (inst == TK_INST_NONE)
		return;
	if (!e->seen) {
		e->seen = 1;
		e->min_inst = e->max_inst = inst;
		return;
	}
	if (inst < e->min_inst)
		e->min_inst = inst;
	if (inst > e->max_inst)
		e->max_inst = inst;
}

/*
 * Gapless numbering: a new instance (above all seen), and every
 * activation, must take the next number.
 */
static void check_gap(tk_check *c, const tk_event *ev, const centity *e,
		      int force, int live)
{
	int64_t inst = ev->target_inst;
	char a[320];

	if (!e->seen || inst == TK_INST_NONE)
		return;
	if (!force && inst <= e->max_inst)
		return;
	/*
	 * Vector's btf-toolchain numbers a task's activations 0, 0, ... (its
	 * expected output stimulus.btf): reusing the number of an instance
	 * that has terminated is accepted unless strict.
	 */
	if (!c->strict && !live && inst <= e->max_inst && inst >= e->min_inst)
		return;
	if (inst != INT64_MIN && inst - 1 == e->max_inst)
		return;
	if (e->max_inst == INT64_MAX)
		return;
	report(c, TK_RULE_INSTANCE_GAP, ev,
	       "%s: '%s' of a new instance, expected instance %" PRId64 " (instance numbers must increase by one, without gaps)",
	       who(c, ev->type, ev->target, inst, a, sizeof(a)),
	       tk_evkind_name(ev->kind), e->max_inst + 1);
}

static int allocated(tk_state s)
{
	return s == TK_STATE_RUNNING || s == TK_STATE_POLLING;
}

/* ---- per kind of target ------------------------------------------------- */

static int on_process(tk_check *c, const tk_event *ev)
{
	centity *e = entity(c, ev->target);
	tk_state from, to, cur;
	cproc *p;
	uint32_t core = ev->core;
	char a[320], b[256], d[256];
	int created;

	if (!e)
		return TK_E_NOMEM;
	if (!proc_step(ev->kind, &from, &to))
		return TK_OK;

	if (ev->kind == TK_EV_ACTIVATE) {
		const tk_entity *src = tk_trace_entity(c->t, ev->source);
		if (ev->source == ev->target ||
		    (src && (tk_etype_is_process(src->type) ||
			     src->type == TK_ET_R || src->type == TK_ET_SYSC)))
			report(c, TK_RULE_ACTIVATOR, ev,
			       "%s: 'activate' from %s %s, not from a stimulus",
			       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
			       src ? tk_etype_name(src->type) : "?",
			       ename(c, ev->source, b, sizeof(b)));
	}
	p = tk_imap_get(&c->procs, ev->target, ev->target_inst);
	check_gap(c, ev, e, ev->kind == TK_EV_ACTIVATE ||
			    ev->kind == TK_EV_MTALIMITEXCEEDED, p != NULL);
	cur = p ? (tk_state)p->state : implied_state(e, ev->target_inst);
	if (ev->kind == TK_EV_ACTIVATE || ev->kind == TK_EV_MTALIMITEXCEEDED)
		e->activated = 1;
	note_inst(e, ev->target_inst);

	if (cur != TK_STATE_UNKNOWN && cur != from)
		report(c, TK_RULE_PROCESS, ev,
		       "%s: '%s' in state %s (allowed in %s)",
		       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
		       tk_evkind_name(ev->kind), tk_state_name(cur),
		       tk_state_name(from));

	if (to == TK_STATE_TERMINATED) {
		if (p && p->open_runs)
			report(c, TK_RULE_RUNNABLE_OPEN, ev,
			       "%s: 'terminate' in state %s while %u of its runnables have not terminated (last started: %s)",
			       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
			       tk_state_name(cur), p->open_runs,
			       who(c, etype_of(c, p->last_run), p->last_run,
				   p->last_run_inst, b, sizeof(b)));
		if (p && p->core != TK_NONE && p->core < c->ncores) {
			ccore *cc = &c->cores[p->core];
			if (core != TK_NONE && core != p->core)
				report(c, TK_RULE_CORE_MISMATCH, ev,
				       "%s: '%s' in state %s from core %s but it runs on %s",
				       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
				       tk_evkind_name(ev->kind), tk_state_name(cur),
				       ename(c, core, b, sizeof(b)),
				       ename(c, p->core, d, sizeof(d)));
			if (cc->busy && cc->ent == ev->target && cc->inst == ev->target_inst)
				cc->busy = 0;
		} else if (core != TK_NONE && core < c->ncores) {
			ccore *cc = &c->cores[core];
			if (cc->busy && cc->ent == ev->target && cc->inst == ev->target_inst)
				cc->busy = 0;
		}
		/* a terminated instance needs no record: implied_state() knows */
		tk_imap_del(&c->procs, ev->target, ev->target_inst);
		return TK_OK;
	}

	p = tk_imap_put(&c->procs, ev->target, ev->target_inst, &created);
	if (!p)
		return TK_E_NOMEM;
	if (created) {
		p->core = TK_NONE;
		p->last_run = TK_NONE;
	}
	p->state = (uint8_t)to;

	if (allocated(to) && p->core == TK_NONE && core != TK_NONE) {
		/* newly allocated: the core must be free */
		ccore *cc;
		if (tk_grow_zero((void **)&c->cores, &c->ncores, core, sizeof(*c->cores)) < 0)
			return TK_E_NOMEM;
		cc = &c->cores[core];
		if (cc->busy && !(cc->ent == ev->target && cc->inst == ev->target_inst)) {
			const tk_entity *o = tk_trace_entity(c->t, cc->ent);
			report(c, TK_RULE_CORE_BUSY, ev,
			       "%s: '%s' in state %s on core %s while %s is allocated to it",
			       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
			       tk_evkind_name(ev->kind), tk_state_name(cur),
			       ename(c, core, b, sizeof(b)),
			       who(c, o ? o->type : TK_ET_UNKNOWN, cc->ent, cc->inst,
				   d, sizeof(d)));
		}
		cc->busy = 1;
		cc->ent = ev->target;
		cc->inst = ev->target_inst;
		p->core = core;
	} else if (p->core != TK_NONE && p->core < c->ncores) {
		/* an event from the core while allocated, or leaving it */
		ccore *cc = &c->cores[p->core];
		if (core != TK_NONE && core != p->core &&
		    (allocated(cur) || cur == TK_STATE_UNKNOWN))
			report(c, TK_RULE_CORE_MISMATCH, ev,
			       "%s: '%s' in state %s from core %s but it runs on %s",
			       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
			       tk_evkind_name(ev->kind), tk_state_name(cur),
			       ename(c, core, b, sizeof(b)),
			       ename(c, p->core, d, sizeof(d)));
		if (!allocated(to)) {
			if (cc->busy && cc->ent == ev->target && cc->inst == ev->target_inst)
				cc->busy = 0;
			p->core = TK_NONE;
		}
	} else if (!allocated(to) && core != TK_NONE && core < c->ncores) {
		/* left a core it was on before the trace began */
		ccore *cc = &c->cores[core];
		if (cc->busy && cc->ent == ev->target && cc->inst == ev->target_inst)
			cc->busy = 0;
	}
	return TK_OK;
}

static tk_state proc_state(tk_check *c, uint32_t ent, int64_t inst)
{
	const cproc *p = tk_imap_get(&c->procs, ent, inst);

	if (p)
		return (tk_state)p->state;
	return implied_state(ent < c->nents ? &c->ents[ent] : NULL, inst);
}

static int on_runnable(tk_check *c, const tk_event *ev)
{
	centity *e = entity(c, ev->target);
	const tk_entity *src = tk_trace_entity(c->t, ev->source);
	int src_is_proc = src && tk_etype_is_process(src->type);
	tk_state from, to, cur;
	crun *r;
	char a[320], b[320];
	int created;

	if (!e)
		return TK_E_NOMEM;
	if (!run_step(ev->kind, &from, &to))
		return TK_OK;
	r = tk_imap_get(&c->runs, ev->target, ev->target_inst);
	check_gap(c, ev, e, ev->kind == TK_EV_START, r != NULL);
	if (r) {
		cur = (tk_state)r->state;
	} else {
		/* runnables always have start events: a new one is TERMINATED */
		cur = !e->seen || ev->target_inst == TK_INST_NONE ||
		      ev->target_inst < e->min_inst ? TK_STATE_UNKNOWN
						    : TK_STATE_TERMINATED;
	}
	note_inst(e, ev->target_inst);
	if (cur != TK_STATE_UNKNOWN && cur != from)
		report(c, TK_RULE_RUNNABLE, ev,
		       "%s: '%s' in state %s (allowed in %s)",
		       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
		       tk_evkind_name(ev->kind), tk_state_name(cur),
		       tk_state_name(from));

	if (src_is_proc && (ev->kind == TK_EV_START || ev->kind == TK_EV_RESUME)) {
		tk_state ps = proc_state(c, ev->source, ev->source_inst);
		if (ps != TK_STATE_UNKNOWN && ps != TK_STATE_RUNNING)
			report(c, TK_RULE_RUNNABLE_OUTSIDE, ev,
			       "%s: '%s' in state %s while its process %s is %s",
			       who(c, ev->type, ev->target, ev->target_inst, a, sizeof(a)),
			       tk_evkind_name(ev->kind), tk_state_name(cur),
			       who(c, src->type, ev->source, ev->source_inst, b, sizeof(b)),
			       tk_state_name(ps));
	}

	if (to == TK_STATE_TERMINATED) {
		if (r && r->counted) {
			cproc *p = tk_imap_get(&c->procs, r->parent, r->parent_inst);
			if (p && p->open_runs)
				p->open_runs--;
		}
		tk_imap_del(&c->runs, ev->target, ev->target_inst);
		return TK_OK;
	}
	r = tk_imap_put(&c->runs, ev->target, ev->target_inst, &created);
	if (!r)
		return TK_E_NOMEM;
	r->state = (uint8_t)to;
	if (ev->kind == TK_EV_START && src_is_proc && !r->counted) {
		tk_state ps = proc_state(c, ev->source, ev->source_inst);
		cproc *p;
		if (ps == TK_STATE_TERMINATED)
			return TK_OK; /* reported above; nothing to count in */
		p = tk_imap_put(&c->procs, ev->source, ev->source_inst, &created);
		if (!p)
			return TK_E_NOMEM;
		if (created) {
			p->state = TK_STATE_UNKNOWN;
			p->core = TK_NONE;
		}
		/* the runs map may not move under r: look it up again */
		r = tk_imap_get(&c->runs, ev->target, ev->target_inst);
		r->counted = 1;
		r->parent = ev->source;
		r->parent_inst = ev->source_inst;
		p->open_runs++;
		p->last_run = ev->target;
		p->last_run_inst = ev->target_inst;
	}
	return TK_OK;
}

static int on_semaphore(tk_check *c, const tk_event *ev)
{
	centity *e;
	const char *allowed = "";
	tk_state to, cur;
	char a[256];
	int ok;

	if (ev->source != ev->target)
		return TK_OK; /* process-sourced: requests, no state change */
	e = entity(c, ev->target);
	if (!e)
		return TK_E_NOMEM;
	cur = (tk_state)e->sem_state;
	ok = sem_step(ev->kind, cur, &to, &allowed);
	if (ok < 0)
		return TK_OK;
	if (!ok && cur != TK_STATE_UNKNOWN)
		report(c, TK_RULE_SEMAPHORE, ev,
		       "SEM %s: '%s' in state %s (allowed in %s)",
		       ename(c, ev->target, a, sizeof(a)), tk_evkind_name(ev->kind),
		       tk_state_name(cur), allowed);
	e->sem_state = (uint8_t)to;
	return TK_OK;
}

/* ---- the API ------------------------------------------------------------ */

int tk_check_new(tk_check **out, const tk_trace *t, tk_violation_fn fn,
		 void *ctx, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_check_new", "out pointer");
	tk_check *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return tk_err_nomem(err, NULL);
	c->t = t;
	c->fn = fn;
	c->ctx = ctx;
	tk_tlines_init(&c->tlines, t);
	tk_imap_init(&c->procs, sizeof(cproc));
	tk_imap_init(&c->runs, sizeof(crun));
	*out = c;
	return TK_OK;
}

/*
 * A new time line (tk_tlines: an ATF file's next TraceData, a recording of
 * its own whose time starts again): checked as a trace of its own, its
 * instances first seen in an unknown state; what the one before left open
 * is left as the end of a trace leaves it.
 */
static void new_time_line(tk_check *c)
{
	tk_imap_free(&c->procs);
	tk_imap_free(&c->runs);
	tk_imap_init(&c->procs, sizeof(cproc));
	tk_imap_init(&c->runs, sizeof(crun));
	if (c->nents)
		memset(c->ents, 0, c->nents * sizeof(*c->ents));
	if (c->ncores)
		memset(c->cores, 0, c->ncores * sizeof(*c->cores));
	c->have_time = 0;
}

static int check_event(tk_check *c, const tk_event *ev)
{
	if (tk_tlines_next(&c->tlines, ev))
		new_time_line(c);
	if (c->have_time && ev->time < c->last_time) {
		char a[64], b[64];
		const tk_timebase *tb = tk_trace_timebase(c->t);
		/* ticks that count cycles (a Tarmac log in clk) say so */
		const char *u = tk_trace_cycle_unit(c->t) ? tk_trace_cycle_unit(c->t)
							  : tk_unit_name(tb->unit);
		if (tk_time_format(ev->time, tb, tb->unit, a, sizeof(a)) < 0)
			strcpy(a, "?");
		if (tk_time_format(c->last_time, tb, tb->unit, b, sizeof(b)) < 0)
			strcpy(b, "?");
		report(c, TK_RULE_TIME, ev,
		       "time %s %s is before the previous event's %s %s",
		       a, u, b, u);
	} else {
		c->last_time = ev->time;
		c->have_time = 1;
	}
	switch (ev->type) {
	case TK_ET_T:
	case TK_ET_I:
	case TK_ET_THR:
		return on_process(c, ev);
	case TK_ET_R:
	case TK_ET_SYSC:
		return on_runnable(c, ev);
	case TK_ET_SEM:
		return on_semaphore(c, ev);
	default:
		return TK_OK;
	}
}

int tk_check_event(tk_check *c, const tk_event *ev, tk_error *err)
{
	int rc = tk_an_check_event(c ? c->t : NULL, c, ev, "tk_check_event", err);

	if (rc < 0)
		return rc;
	return tk_an_fail(err, check_event(c, ev), "tk_check_event");
}

void tk_check_set_strict(tk_check *c, int strict)
{
	c->strict = strict;
}

uint64_t tk_check_count(const tk_check *c, tk_rule rule)
{
	return (unsigned)rule <= TK_RULE_COUNT ? c->counts[rule] : 0;
}

void tk_check_free(tk_check *c)
{
	if (!c)
		return;
	tk_imap_free(&c->procs);
	tk_imap_free(&c->runs);
	free(c->ents);
	free(c->cores);
	free(c);
}
