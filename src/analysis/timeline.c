/*
 * timeline.c - nested slices per core (timeline.h).
 *
 * Each lane keeps a stack of its open slices; an instance record (one map
 * for processes and runnables: entity ids never collide) knows the lane
 * its slice is open on, so an end finds its slice by a short scan of that
 * stack (stacks are as deep as the preemption nesting, a few levels).
 * The run intervals are the one place where a process is allocated to a
 * core: tk_load (load.c) sums them, the exports draw them, so that every
 * figure agrees.  A process runs on one core at a time: an allocation on
 * another core, or a deallocation named on another core, ends its run
 * where it runs (and counts as a conflict).  A process that was seen
 * before in the trace (created, activated, ran) and leaves a core it was
 * not seen on did not run there since before the trace.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tentry {
	uint32_t ent;
	int64_t inst;
	tk_etype type;
	uint64_t start;
	unsigned flags;
} tentry;

typedef struct tlane {
	uint32_t core;
	tentry *stk;
	size_t n, cap;
	uint8_t owned, seen_alloc;
	uint32_t owner;
	int64_t owner_inst;
	uint64_t since;
} tlane;

typedef struct trec {
	uint32_t lane1;       /* lane of the open slice + 1; 0: none */
	uint8_t has_act;
	uint64_t activated;
	uint64_t cet;
} trec;

struct tk_timeline {
	const tk_trace *t;
	int started;        /* an event was given: no more setup */
	int finished;       /* tk_timeline_finish was called: no more events */
	tk_slice_fn on_slice;
	tk_run_fn on_run;
	void *ctx;
	tlane *lanes;
	size_t nlanes, caplanes;
	uint32_t *lane_of;   /* core entity id -> lane + 1 */
	size_t nlane_of;
	tk_imap recs;
	tk_tlines tlines;    /* where a time line begins: all starts afresh */
	uint64_t first, last;
	int have_time;
	int freertos;        /* the FreeRTOS trace logger's dialect */
	uint64_t conflicts;  /* events naming a core other than their process's */
	uint64_t takeovers;  /* allocations on a core another process held */
	long touched;        /* the lane whose process may have changed, or -1 */
	/* idle processes: their names match one of the patterns (the
	 * FreeRTOS trace logger's also without their "[c/id]" or "(id)"
	 * prefix); per entity id: 0 not yet known, 1 not idle, 2 idle */
	char **idle_pat;
	size_t nidle_pat;
	uint8_t *idle_of;
	size_t nidle_of;
};

int tk_timeline_new(tk_timeline **out, const tk_trace *t, tk_slice_fn on_slice,
		    tk_run_fn on_run, void *ctx, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_timeline_new", "out pointer");
	tk_timeline *tl = calloc(1, sizeof(*tl));

	*out = NULL;
	if (!tl)
		return tk_err_nomem(err, NULL);
	tl->t = t;
	tl->on_slice = on_slice;
	tl->on_run = on_run;
	tl->ctx = ctx;
	tl->touched = -1;
	tl->freertos = tk_trace_is_freertos(t);
	tk_tlines_init(&tl->tlines, t);
	tk_imap_init(&tl->recs, sizeof(trec));
	if (tl->freertos) {
		static const char *const freertos_idle[] = { "IDLE*" };
		if (tk_timeline_set_idle(tl, freertos_idle, 1) < 0) {
			tk_timeline_free(tl);
			return tk_err_nomem(err, NULL);
		}
	}
	*out = tl;
	return TK_OK;
}

int tk_timeline_set_idle(tk_timeline *tl, const char *const *patterns, size_t n)
{
	char **p;
	size_t i;

	if (tl->started || (n && !patterns))
		return TK_E_USAGE;
	p = n ? calloc(n, sizeof(*p)) : NULL;
	if (n && !p)
		return TK_E_NOMEM;
	for (i = 0; i < n; i++) {
		size_t len = strlen(patterns[i]);
		p[i] = malloc(len + 1);
		if (!p[i]) {
			while (i-- > 0)
				free(p[i]);
			free(p);
			return TK_E_NOMEM;
		}
		memcpy(p[i], patterns[i], len + 1);
	}
	for (i = 0; i < tl->nidle_pat; i++)
		free(tl->idle_pat[i]);
	free(tl->idle_pat);
	tl->idle_pat = p;
	tl->nidle_pat = n;
	if (tl->idle_of)
		memset(tl->idle_of, 0, tl->nidle_of);
	return TK_OK;
}

/* the name of a FreeRTOS trace logger task after its "[c/id]" or "(id)" */
static const char *freertos_bare(const char *s, size_t *n)
{
	char close = *n && s[0] == '[' ? ']' : *n && s[0] == '(' ? ')' : 0;
	const char *p = close ? memchr(s, close, *n) : NULL;

	if (!p)
		return NULL;
	p++;
	*n -= (size_t)(p - s);
	return p;
}

int tk_timeline_is_idle(tk_timeline *tl, uint32_t ent)
{
	const tk_entity *e;
	const char *s, *b;
	size_t n = 0, nb, i;
	int idle = 0;

	if (!tl->nidle_pat || ent >= tk_trace_entity_count(tl->t))
		return 0; /* (TK_NONE is no entity: no table of 2^32 flags) */
	if (tk_grow_zero((void **)&tl->idle_of, &tl->nidle_of, ent, 1) < 0)
		return -1;
	if (tl->idle_of[ent])
		return tl->idle_of[ent] == 2;
	e = tk_trace_entity(tl->t, ent);
	s = e ? tk_trace_str(tl->t, e->name, &n) : NULL;
	nb = n;
	b = s && tl->freertos ? freertos_bare(s, &nb) : NULL;
	for (i = 0; s && i < tl->nidle_pat && !idle; i++)
		idle = tk_glob_match(tl->idle_pat[i], s, n) ||
		       (b && tk_glob_match(tl->idle_pat[i], b, nb));
	tl->idle_of[ent] = (uint8_t)(idle ? 2 : 1);
	return idle;
}

static long lane_get(tk_timeline *tl, uint32_t core)
{
	tlane *l;

	if (tk_grow_zero((void **)&tl->lane_of, &tl->nlane_of, core,
			 sizeof(*tl->lane_of)) < 0)
		return -1;
	if (tl->lane_of[core])
		return (long)tl->lane_of[core] - 1;
	if (tk_grow_zero((void **)&tl->lanes, &tl->caplanes, tl->nlanes,
			 sizeof(*tl->lanes)) < 0)
		return -1;
	l = &tl->lanes[tl->nlanes];
	memset(l, 0, sizeof(*l));
	l->core = core;
	tl->lane_of[core] = (uint32_t)++tl->nlanes;
	return (long)tl->nlanes - 1;
}

static int push(tlane *l, uint32_t ent, int64_t inst, tk_etype type,
		uint64_t start, unsigned flags)
{
	if (tk_grow_zero((void **)&l->stk, &l->cap, l->n, sizeof(*l->stk)) < 0)
		return -1;
	l->stk[l->n].ent = ent;
	l->stk[l->n].inst = inst;
	l->stk[l->n].type = type;
	l->stk[l->n].start = start;
	l->stk[l->n].flags = flags;
	l->n++;
	return 0;
}

static void emit(tk_timeline *tl, uint32_t lane, size_t depth,
		 const tentry *e, uint64_t end, unsigned flags,
		 uint64_t activated, uint64_t cet)
{
	tk_slice s;

	if (!tl->on_slice)
		return;
	s.lane = lane;
	s.depth = (uint32_t)depth;
	s.entity = e->ent;
	s.inst = e->inst;
	s.type = e->type;
	s.start = e->start;
	s.end = end < e->start ? e->start : end;
	s.flags = e->flags | flags;
	s.activated = activated;
	s.cet = cet;
	tl->on_slice(tl->ctx, &s);
}

/*
 * End the slice of (ent, inst) on lane `lane` at t; the slices above it are
 * cut and continued.  Returns 1 if found.
 */
static int close_slice(tk_timeline *tl, size_t lane, uint32_t ent,
		       int64_t inst, uint64_t t, unsigned flags,
		       uint64_t activated, uint64_t cet)
{
	tlane *l = &tl->lanes[lane];
	size_t k, j;

	for (k = l->n; k-- > 0;)
		if (l->stk[k].ent == ent && l->stk[k].inst == inst)
			break;
	if (k == (size_t)-1)
		return 0;
	for (j = l->n; j-- > k + 1;)
		emit(tl, (uint32_t)lane, j, &l->stk[j], t, TK_SLICE_CUT_END, 0, 0);
	emit(tl, (uint32_t)lane, k, &l->stk[k], t, flags, activated, cet);
	for (j = k + 1; j < l->n; j++) {
		l->stk[j - 1] = l->stk[j];
		l->stk[j - 1].start = t;
		l->stk[j - 1].flags = TK_SLICE_CUT_START;
	}
	l->n--;
	return 1;
}

static void end_run(tk_timeline *tl, size_t lane, uint64_t t)
{
	tlane *l = &tl->lanes[lane];
	trec *r;

	if (!l->owned)
		return;
	l->owned = 0;
	if (t <= l->since)
		return;
	r = tk_imap_get(&tl->recs, l->owner, l->owner_inst);
	/* an instance allocated on two cores at once (a broken trace) could
	 * pass 2^64 ticks: the sum stops at the largest tick count */
	if (r && __builtin_add_overflow(r->cet, t - l->since, &r->cet))
		r->cet = UINT64_MAX;
	if (tl->on_run)
		tl->on_run(tl->ctx, (uint32_t)lane, l->owner, l->owner_inst,
			   l->since, t);
}

/* is (ent, inst) allocated on lane `lane`? */
static int owns(const tk_timeline *tl, size_t lane, uint32_t ent, int64_t inst)
{
	const tlane *l = &tl->lanes[lane];

	return l->owned && l->owner == ent && l->owner_inst == inst;
}

/* may a slice that began before the trace be pushed on lane l? */
static int before_ok(const tk_timeline *tl, const tlane *l)
{
	return l->n == 0 || l->stk[l->n - 1].start == tl->first;
}

static int process_event(tk_timeline *tl, const tk_event *ev, uint64_t t)
{
	uint32_t ent = ev->target;
	int64_t inst = ev->target_inst;
	long lane = -1;
	int created;
	tlane *l;
	trec *r;

	if (ev->kind == TK_EV_ACTIVATE) {
		r = tk_imap_put(&tl->recs, ent, inst, NULL);
		if (!r)
			return -1;
		r->has_act = 1;
		r->activated = t;
		return 0;
	}
	switch (ev->kind) {
	case TK_EV_START: case TK_EV_RESUME: case TK_EV_RUN:
	case TK_EV_POLL: case TK_EV_POLL_PARKING:
		if (ev->core == TK_NONE)
			return 0;
		lane = lane_get(tl, ev->core);
		if (lane < 0)
			return -1;
		tl->touched = lane;
		r = tk_imap_put(&tl->recs, ent, inst, &created);
		if (!r)
			return -1;
		if (r->lane1 && r->lane1 - 1 != (uint32_t)lane &&
		    owns(tl, r->lane1 - 1, ent, inst)) {
			/* allocated here while it runs there: it left there */
			end_run(tl, r->lane1 - 1, t);
			tl->conflicts++;
			r = tk_imap_get(&tl->recs, ent, inst);
		}
		l = &tl->lanes[lane];
		if (!owns(tl, (size_t)lane, ent, inst)) {
			/* another process held the core: its run ends here
			 * (check's core-busy) */
			tl->takeovers += l->owned;
			end_run(tl, (size_t)lane, t);
			l->owned = 1;
			l->seen_alloc = 1;
			l->owner = ent;
			l->owner_inst = inst;
			l->since = t;
		}
		if (r->lane1 && r->lane1 - 1 != (uint32_t)lane) {
			close_slice(tl, r->lane1 - 1, ent, inst, t,
				    TK_SLICE_MIGRATED, 0, 0);
			r->lane1 = 0;
		}
		if (!r->lane1) {
			if (push(l, ent, inst, ev->type, t, 0) < 0)
				return -1;
			r->lane1 = (uint32_t)lane + 1;
		}
		return 0;
	case TK_EV_PREEMPT: case TK_EV_TERMINATE: case TK_EV_WAIT:
	case TK_EV_PARK:
		break;
	default:
		return 0;
	}
	r = tk_imap_get(&tl->recs, ent, inst);
	if (ev->kind == TK_EV_PREEMPT && tk_event_is_creation(tl->freertos, ev)) {
		/* created: READY, seen from now on */
		return tk_imap_put(&tl->recs, ent, inst, NULL) ? 0 : -1;
	}
	if (r && r->lane1 && owns(tl, r->lane1 - 1, ent, inst)) {
		/* it leaves the core it runs on, whichever the event names */
		lane = (long)r->lane1 - 1;
		if (ev->core != TK_NONE && ev->core != tl->lanes[lane].core)
			tl->conflicts++;
	} else if (ev->core != TK_NONE) {
		lane = lane_get(tl, ev->core);
	} else if (r && r->lane1) {
		lane = (long)r->lane1 - 1;
	}
	if (lane < 0)
		return ev->core != TK_NONE ? -1 : 0;
	tl->touched = lane;
	l = &tl->lanes[lane];
	if (owns(tl, (size_t)lane, ent, inst)) {
		end_run(tl, (size_t)lane, t);
	} else if (!r && !l->seen_alloc && !l->owned) {
		/* it ran since before the trace began */
		l->seen_alloc = 1;
		l->owned = 1;
		l->owner = ent;
		l->owner_inst = inst;
		l->since = tl->first;
		r = tk_imap_put(&tl->recs, ent, inst, NULL);
		if (!r)
			return -1;
		end_run(tl, (size_t)lane, t);
		r = tk_imap_get(&tl->recs, ent, inst);
		if (!r->lane1 && before_ok(tl, l)) {
			if (push(l, ent, inst, ev->type, tl->first,
				 TK_SLICE_BEFORE) < 0)
				return -1;
			r->lane1 = (uint32_t)lane + 1;
		}
	}
	if (ev->kind == TK_EV_TERMINATE && r) {
		if (r->lane1)
			close_slice(tl, r->lane1 - 1, ent, inst, t,
				    TK_SLICE_TERMINATED,
				    r->has_act ? r->activated : UINT64_MAX,
				    r->cet);
		tk_imap_del(&tl->recs, ent, inst);
	}
	return 0;
}

static int runnable_event(tk_timeline *tl, const tk_event *ev, uint64_t t)
{
	trec *r, *src;
	long lane = -1;
	tlane *l;

	if (ev->kind != TK_EV_START && ev->kind != TK_EV_TERMINATE)
		return 0;
	src = tk_imap_get(&tl->recs, ev->source, ev->source_inst);
	if (src && src->lane1)
		lane = (long)src->lane1 - 1;
	else if (ev->core != TK_NONE && (lane = lane_get(tl, ev->core)) < 0)
		return -1;
	r = tk_imap_get(&tl->recs, ev->target, ev->target_inst);
	if (ev->kind == TK_EV_START) {
		if (r && r->lane1)
			close_slice(tl, r->lane1 - 1, ev->target, ev->target_inst,
				    t, 0, 0, 0);
		if (lane < 0) {
			if (r)
				tk_imap_del(&tl->recs, ev->target, ev->target_inst);
			return 0;
		}
		r = tk_imap_put(&tl->recs, ev->target, ev->target_inst, NULL);
		if (!r || push(&tl->lanes[lane], ev->target, ev->target_inst,
			       ev->type, t, 0) < 0)
			return -1;
		r->lane1 = (uint32_t)lane + 1;
		return 0;
	}
	/* terminate */
	if (r) {
		if (r->lane1)
			close_slice(tl, r->lane1 - 1, ev->target, ev->target_inst,
				    t, TK_SLICE_TERMINATED, 0, 0);
		tk_imap_del(&tl->recs, ev->target, ev->target_inst);
		return 0;
	}
	if (lane < 0)
		return 0;
	l = &tl->lanes[lane];
	if (before_ok(tl, l)) {
		/* it ran since before the trace began */
		tentry e = { ev->target, ev->target_inst, ev->type, tl->first,
			     TK_SLICE_BEFORE };
		emit(tl, (uint32_t)lane, l->n, &e, t, TK_SLICE_TERMINATED, 0, 0);
	}
	return 0;
}

/* the end of a time line (of the trace, at tk_timeline_finish): the runs
 * and slices still open end at its last time */
static void end_line(tk_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nlanes; i++)
		end_run(tl, i, tl->last);
	for (i = 0; i < tl->nlanes; i++) {
		tlane *l = &tl->lanes[i];
		while (l->n) {
			l->n--;
			emit(tl, (uint32_t)i, l->n, &l->stk[l->n], tl->last,
			     TK_SLICE_OPEN, 0, 0);
		}
	}
}

/* a new time line (tk_tlines) begins at t: the one before ends, and
 * nothing of it goes on (as at the start of the trace) */
static void new_line(tk_timeline *tl, uint64_t t)
{
	size_t i;

	end_line(tl);
	for (i = 0; i < tl->nlanes; i++) {
		tl->lanes[i].owned = 0;
		tl->lanes[i].seen_alloc = 0;
	}
	tk_imap_free(&tl->recs);
	tk_imap_init(&tl->recs, sizeof(trec));
	tl->first = tl->last = t;
}

static int timeline_event(tk_timeline *tl, const tk_event *ev)
{
	uint64_t t = ev->time;

	if (tk_tlines_next(&tl->tlines, ev))
		new_line(tl, t);
	if (!tl->have_time) {
		tl->have_time = 1;
		tl->first = tl->last = t;
	}
	if (t < tl->last)
		t = tl->last; /* a decreasing time (lenient reading) counts as now */
	tl->last = t;
	tl->touched = -1;
	if (ev->core != TK_NONE && lane_get(tl, ev->core) < 0)
		return TK_E_NOMEM;
	switch (ev->type) {
	case TK_ET_T: case TK_ET_I: case TK_ET_THR:
		return process_event(tl, ev, t) < 0 ? TK_E_NOMEM : TK_OK;
	case TK_ET_R: case TK_ET_SYSC:
		return runnable_event(tl, ev, t) < 0 ? TK_E_NOMEM : TK_OK;
	default:
		return TK_OK;
	}
}

int tk_timeline_event(tk_timeline *tl, const tk_event *ev, tk_error *err)
{
	int rc = tk_an_check_event(tl ? tl->t : NULL, tl, ev, "tk_timeline_event", err);

	if (rc < 0)
		return rc;
	if (tl->finished)
		return tk_an_finished(err, "tk_timeline_event", "tk_timeline_finish");
	tl->started = 1;
	return tk_an_fail(err, timeline_event(tl, ev), "tk_timeline_event");
}

int tk_timeline_finish(tk_timeline *tl, tk_error *err)
{
	if (!tl)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_timeline_finish: no analysis given");
	if (tl->finished)
		return TK_OK;
	tl->finished = 1;
	end_line(tl);
	return TK_OK;
}

void tk_timeline_cut(tk_timeline *tl, uint64_t t)
{
	size_t i;

	for (i = 0; i < tl->nlanes; i++) {
		tlane *l = &tl->lanes[i];
		if (!l->owned || t <= l->since)
			continue;
		end_run(tl, i, t);
		l->owned = 1;
		l->since = t;
	}
}

uint64_t tk_timeline_conflicts(const tk_timeline *tl)
{
	return tl->conflicts;
}

uint64_t tk_timeline_takeovers(const tk_timeline *tl)
{
	return tl->takeovers;
}

size_t tk_timeline_lane_count(const tk_timeline *tl)
{
	return tl->nlanes;
}

uint32_t tk_timeline_lane_core(const tk_timeline *tl, size_t lane)
{
	return lane < tl->nlanes ? tl->lanes[lane].core : TK_NONE;
}

long tk_timeline_lane_of(const tk_timeline *tl, uint32_t core)
{
	if (core == TK_NONE || core >= tl->nlane_of || !tl->lane_of[core])
		return -1;
	return (long)tl->lane_of[core] - 1;
}

long tk_timeline_event_lane(const tk_timeline *tl, const tk_event *ev)
{
	const trec *r;
	long lane = tk_timeline_lane_of(tl, ev->core);

	if (lane >= 0)
		return lane;
	r = tk_imap_get(&tl->recs, ev->source, ev->source_inst);
	if (r && r->lane1)
		return (long)r->lane1 - 1;
	r = tk_imap_get(&tl->recs, ev->target, ev->target_inst);
	if (r && r->lane1)
		return (long)r->lane1 - 1;
	return -1;
}

int tk_timeline_running(const tk_timeline *tl, size_t lane, uint32_t *entity,
			int64_t *inst)
{
	if (lane >= tl->nlanes || !tl->lanes[lane].owned)
		return 0;
	*entity = tl->lanes[lane].owner;
	*inst = tl->lanes[lane].owner_inst;
	return 1;
}

long tk_timeline_touched_lane(const tk_timeline *tl)
{
	return tl->touched;
}

uint64_t tk_timeline_lane_floor(const tk_timeline *tl, size_t lane)
{
	if (lane >= tl->nlanes || !tl->lanes[lane].n)
		return UINT64_MAX;
	return tl->lanes[lane].stk[0].start;
}

void tk_timeline_span(const tk_timeline *tl, uint64_t *first, uint64_t *last)
{
	*first = tl->have_time ? tl->first : 0;
	*last = tl->have_time ? tl->last : 0;
}

void tk_timeline_free(tk_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nlanes; i++)
		free(tl->lanes[i].stk);
	free(tl->lanes);
	free(tl->lane_of);
	tk_imap_free(&tl->recs);
	for (i = 0; i < tl->nidle_pat; i++)
		free(tl->idle_pat[i]);
	free(tl->idle_pat);
	free(tl->idle_of);
	free(tl);
}
