/*
 * load.c - the share of time each core has a process allocated (RUNNING or
 * POLLING), over the whole trace, per window and per entity.
 *
 * The run intervals are the timeline's (timeline.c: which process is
 * allocated to which core, the one place that decides it), so that load,
 * the exports and the report agree.  Busy time is added when a run ends
 * and, for windows, at every window boundary a run goes across (the
 * timeline cuts it there), so that each window is complete (and reported)
 * as soon as an event passes its end.  The time of an idle process (named
 * by patterns) is counted apart, not as busy.  Memory: the cores, the
 * entities that ran, the live instances, one window.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* tk_load_set_limit(): windows cheaper than a second reading of any input */
#define AHEAD_MIN 4096u
/* about the bytes of input whose reading costs what one window does (a
 * window of `tracekit load` is written out, read back and printed; a
 * dataset's is a row per core) */
#define AHEAD_BYTES 256u

typedef struct lcore {
	uint32_t ent;        /* the core's entity id */
	uint64_t busy;       /* time a process other than an idle one ran */
	uint64_t idle;       /* time an idle process ran */
} lcore;

struct tk_load {
	const tk_trace *t;
	uint64_t window;
	tk_load_window_fn fn;
	void *ctx;
	tk_timeline *tl;     /* the run intervals */
	lcore *cores;
	size_t ncores, capcores;
	uint32_t *core_of;   /* entity id -> core index + 1 (0: not a core) */
	size_t ncore_of;
	uint64_t *win_busy;  /* per core, in the current window */
	size_t capwin;
	uint64_t win;        /* index of the current window */
	tk_imap ebusy;       /* (entity, core index) -> uint64_t busy */
	/* after finish: the pairs of ebusy by (entity, core) */
	uint32_t *pair_ent, *pair_core;
	uint64_t *pair_busy;
	size_t npairs;
	uint64_t first, last;  /* of the time line of the last event */
	uint64_t first0;       /* the first event's time */
	tk_tlines tlines;      /* where a time line begins (several: ATF) */
	uint64_t length;       /* the spans of the time lines before it */
	uint32_t nlines;       /* time lines with events */
	int have_time;
	int nomem;           /* a run interval could not be counted */
	int stopped;         /* the window callback returned a status */
	int finished;        /* tk_load_finish: 1 called (no more events), 2 done */
	/* tk_load_set_limit(): at most max_windows windows; past ahead_at
	 * windows up to an event, the span of ahead_path is read ahead once */
	uint64_t max_windows, ahead_at;
	char *ahead_path;
	tk_reader_opts ahead_opts;
	int ahead_done;
};

static int core_index(tk_load *l, uint32_t ent, size_t *out)
{
	lcore *c;

	if (tk_grow_zero((void **)&l->core_of, &l->ncore_of, ent, sizeof(*l->core_of)) < 0)
		return -1;
	if (l->core_of[ent]) {
		*out = l->core_of[ent] - 1;
		return 0;
	}
	if (tk_grow_zero((void **)&l->cores, &l->capcores, l->ncores, sizeof(*l->cores)) < 0 ||
	    tk_grow_zero((void **)&l->win_busy, &l->capwin, l->ncores, sizeof(*l->win_busy)) < 0)
		return -1;
	c = &l->cores[l->ncores];
	memset(c, 0, sizeof(*c));
	c->ent = ent;
	*out = l->ncores++;
	l->core_of[ent] = (uint32_t)l->ncores;
	return 0;
}

/* time [from, to) of entity ent on core i */
static int account(tk_load *l, size_t i, uint32_t ent, uint64_t from,
		   uint64_t to)
{
	uint64_t *eb, d;
	int idle;

	if (to <= from)
		return 0;
	d = to - from;
	if ((idle = tk_timeline_is_idle(l->tl, ent)) < 0)
		return -1;
	if (idle) {
		l->cores[i].idle += d;
	} else {
		l->cores[i].busy += d;
		l->win_busy[i] += d;
	}
	eb = tk_imap_put(&l->ebusy, ent, (int64_t)i, NULL);
	if (!eb)
		return -1;
	*eb += d;
	return 0;
}

/* a run interval of the timeline */
static void on_run(void *ctx, uint32_t lane, uint32_t ent, int64_t inst,
		   uint64_t start, uint64_t end)
{
	tk_load *l = ctx;
	size_t i;

	(void)inst;
	if (core_index(l, tk_timeline_lane_core(l->tl, lane), &i) < 0 ||
	    account(l, i, ent, start, end) < 0)
		l->nomem = 1;
}

static int emit(tk_load *l, uint64_t start, uint64_t end)
{
	int rc = TK_OK;

	if (start < l->first)
		start = l->first;
	if (end > l->last)
		end = l->last;
	if (l->fn && end > start)
		rc = l->fn(l->ctx, start, end, l->win_busy, l->ncores);
	if (rc != TK_OK)
		l->stopped = 1;
	if (l->ncores)
		memset(l->win_busy, 0, l->ncores * sizeof(*l->win_busy));
	return rc;
}

/* close the windows that end at or before t */
static int advance(tk_load *l, uint64_t t)
{
	uint64_t w = l->window, idx = t / w;
	int rc;

	while (l->win < idx) {
		uint64_t end = (l->win + 1) * w;
		uint64_t last = l->last;
		tk_timeline_cut(l->tl, end);
		if (l->nomem)
			return TK_E_NOMEM;
		l->last = end; /* the window is complete up to its end */
		rc = emit(l, l->win * w, end);
		l->last = last;
		if (rc != TK_OK)
			return rc;
		l->win++;
	}
	return 0;
}

int tk_load_new(tk_load **out, const tk_trace *t, uint64_t window,
		tk_load_window_fn fn, void *ctx, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_load_new", "out pointer");
	tk_load *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return tk_err_nomem(err, NULL);
	l->t = t;
	l->window = window;
	l->fn = fn;
	l->ctx = ctx;
	tk_imap_init(&l->ebusy, sizeof(uint64_t));
	tk_tlines_init(&l->tlines, t);
	if (tk_timeline_new(&l->tl, t, NULL, on_run, l, err) < 0) {
		tk_load_free(l);
		return TK_E_NOMEM;
	}
	*out = l;
	return TK_OK;
}

const char *tk_load_default_idle(const tk_trace *t)
{
	return tk_trace_is_freertos(t) ? "IDLE*" : NULL;
}

int tk_load_set_idle(tk_load *l, const char *const *patterns, size_t n)
{
	return tk_timeline_set_idle(l->tl, patterns, n);
}

/* the windows of `window` ticks [first, last] makes (advance() and
 * load_finish(): aligned to multiples of the window, clipped to the span,
 * none when empty) */
static uint64_t window_count(uint64_t first, uint64_t last, uint64_t window)
{
	if (last <= first)
		return 0;
	return last / window + (last % window != 0) - first / window;
}

int tk_load_set_limit(tk_load *l, uint64_t max, const char *path,
		      const tk_reader_opts *opts, tk_error *err)
{
	struct stat st;
	int rc;

	if (!l)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_load_set_limit: no analysis given");
	if (l->have_time)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_load_set_limit: after the first event");
	free(l->ahead_path);
	l->ahead_path = NULL;
	l->max_windows = max;
	l->ahead_done = 1;
	tk_reader_opts_init(&l->ahead_opts);
	if ((rc = tk_reader_opts_take(&l->ahead_opts, opts, err)) < 0)
		return rc;
	l->ahead_opts.on_warning = NULL;
	l->ahead_opts.warning_ctx = NULL;
	if (path && !(l->ahead_path = strdup(path)))
		return tk_err_nomem(err, path);
	if (!path || !max || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return TK_OK; /* the windows are counted as they come */
	l->ahead_done = 0;
	l->ahead_at = (uint64_t)st.st_size / AHEAD_BYTES;
	if (l->ahead_at < AHEAD_MIN)
		l->ahead_at = AHEAD_MIN;
	return TK_OK;
}

/* the first and the greatest time of the events of the input, read ahead
 * with a reader of its own: 0, or -1 (it cannot be read: the windows are
 * then counted as they come) */
static int span_ahead(const tk_load *l, uint64_t *first, uint64_t *last)
{
	tk_reader *r = NULL;
	const tk_event *ev;
	int rc, have = 0, ret = -1;

	if (tk_reader_open(&r, l->ahead_path, &l->ahead_opts, NULL) < 0)
		goto cleanup;
	while ((rc = tk_reader_next(r, &ev, NULL)) == TK_OK) {
		if (!have) {
			have = 1;
			*first = *last = ev->time;
		} else if (ev->time > *last) {
			*last = ev->time;
		}
	}
	if (rc < 0 || !have)
		goto cleanup;
	ret = 0;
cleanup:
	tk_reader_close(r);
	return ret;
}

/* the windows up to time t (the span grows to it), counted before they
 * are made: TK_OK, or TK_E_RANGE past the limit */
static int limit(tk_load *l, uint64_t t)
{
	uint64_t n = window_count(l->first, t, l->window), f = 0, e = 0;

	if (n > l->ahead_at && !l->ahead_done) {
		l->ahead_done = 1;
		if (span_ahead(l, &f, &e) == 0)
			n = window_count(f, e, l->window);
	}
	return n > l->max_windows ? TK_E_RANGE : TK_OK;
}

static int load_event(tk_load *l, const tk_event *ev)
{
	uint64_t t = ev->time;
	size_t i;
	int rc;

	if (tk_tlines_next(&l->tlines, ev)) {
		/* a new time line: its span adds to the others' (the timeline
		 * ends the runs of the one before at its last time) */
		if (l->window)
			return TK_E_UNSUPPORTED;
		l->length += l->last - l->first;
		l->nlines++;
		l->first = l->last = t;
	}
	if (!l->have_time) {
		l->have_time = 1;
		l->nlines = 1;
		l->first0 = l->first = l->last = t;
		if (l->window)
			l->win = t / l->window;
	}
	if (t < l->last)
		t = l->last; /* a decreasing time (lenient reading) counts as now */
	if (l->window && l->max_windows && t > l->last &&
	    (rc = limit(l, t)) != TK_OK)
		return rc;
	if (l->window && (rc = advance(l, t)) != TK_OK)
		return rc;
	l->last = t;
	if (tk_etype_is_process(ev->type) && ev->core != TK_NONE) {
		/* the cores are listed in the order of their first process
		 * state change */
		switch (ev->kind) {
		case TK_EV_START: case TK_EV_RESUME: case TK_EV_RUN: case TK_EV_POLL:
		case TK_EV_POLL_PARKING: case TK_EV_PREEMPT: case TK_EV_TERMINATE:
		case TK_EV_WAIT: case TK_EV_PARK:
			if (core_index(l, ev->core, &i) < 0)
				return TK_E_NOMEM;
			break;
		default:
			break;
		}
	}
	if (tk_timeline_event(l->tl, ev, NULL) < 0 || l->nomem)
		return TK_E_NOMEM;
	return TK_OK;
}

/* fill err for the failure rc of fn: the window callback's code keeps a
 * message the callback put in the same tk_error */
static int load_fail(tk_load *l, int rc, const char *fn, tk_error *err)
{
	if (rc == TK_OK || !l->stopped)
		return tk_an_fail(err, rc, fn);
	if (err && err->code == rc)
		return rc;
	return tk_err_set(err, rc, NULL, 0, 0,
			  "%s: the window callback stopped the windows (%s)", fn,
			  rc < 0 ? tk_status_str(rc) : "a status that is not TK_OK");
}

int tk_load_event(tk_load *l, const tk_event *ev, tk_error *err)
{
	int rc = tk_an_check_event(l ? l->t : NULL, l, ev, "tk_load_event", err);

	if (rc < 0)
		return rc;
	if (l->finished)
		return tk_an_finished(err, "tk_load_event", "tk_load_finish");
	rc = load_event(l, ev);
	if (rc == TK_E_RANGE && !l->stopped)
		return tk_err_set(err, rc, l->ahead_path, 0, 0,
				  "over %llu load windows: use a longer load window",
				  (unsigned long long)l->max_windows);
	if (rc == TK_E_UNSUPPORTED && !l->stopped)
		return tk_err_set(err, rc, NULL, ev->pos, 0,
				  "load windows over several time lines: TraceData %lu starts its time again (read one with the reader option trace=N)",
				  (unsigned long)l->tlines.k);
	return load_fail(l, rc, "tk_load_event", err);
}

/* a pair of ebusy, for sorting */
typedef struct lpair {
	uint32_t ent, core;
	uint64_t busy;
} lpair;

static int cmp_pairs(const void *a, const void *b)
{
	const lpair *x = a, *y = b;

	if (x->ent != y->ent)
		return x->ent < y->ent ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

/* the pairs of ebusy sorted by (entity, core) into pair_*; 0 or -1 */
static int sort_pairs(tk_load *l)
{
	size_t i, n = l->ebusy.count;
	lpair *p = calloc(n ? n : 1, sizeof(*p));
	int rc = -1;

	free(l->pair_ent);
	free(l->pair_core);
	free(l->pair_busy);
	l->npairs = 0;
	l->pair_ent = calloc(n ? n : 1, sizeof(*l->pair_ent));
	l->pair_core = calloc(n ? n : 1, sizeof(*l->pair_core));
	l->pair_busy = calloc(n ? n : 1, sizeof(*l->pair_busy));
	if (!p || !l->pair_ent || !l->pair_core || !l->pair_busy)
		goto cleanup;
	for (i = 0; i < n; i++) {
		p[i].ent = l->ebusy.ent[i];
		p[i].core = (uint32_t)l->ebusy.inst[i];
		memcpy(&p[i].busy, l->ebusy.vals + i * sizeof(uint64_t),
		       sizeof(uint64_t));
	}
	qsort(p, n, sizeof(*p), cmp_pairs);
	for (i = 0; i < n; i++) {
		if (!p[i].busy)
			continue; /* none: a sum of ticks that wrapped (not listed) */
		l->pair_ent[l->npairs] = p[i].ent;
		l->pair_core[l->npairs] = p[i].core;
		l->pair_busy[l->npairs] = p[i].busy;
		l->npairs++;
	}
	rc = 0;
cleanup:
	free(p);
	return rc;
}

static int load_finish(tk_load *l)
{
	int rc;

	if (tk_timeline_finish(l->tl, NULL) < 0 || l->nomem)
		return TK_E_NOMEM;
	if (l->window && l->have_time &&
	    (rc = emit(l, l->win * l->window, l->last)) != TK_OK)
		return rc;
	return sort_pairs(l) < 0 ? TK_E_NOMEM : TK_OK;
}

int tk_load_finish(tk_load *l, tk_error *err)
{
	int rc;

	if (!l)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_load_finish: no analysis given");
	if (l->finished == 2)
		return TK_OK;
	l->finished = 1;
	rc = load_fail(l, load_finish(l), "tk_load_finish", err);
	if (rc == TK_OK)
		l->finished = 2;
	return rc;
}

void tk_load_end_windows(tk_load *l)
{
	l->window = 0;
}

void tk_load_span(const tk_load *l, uint64_t *first, uint64_t *last)
{
	*first = l->have_time ? l->first0 : 0;
	*last = l->have_time ? l->last : 0;
}

uint64_t tk_load_length(const tk_load *l)
{
	return l->have_time ? l->length + (l->last - l->first) : 0;
}

uint32_t tk_load_time_lines(const tk_load *l)
{
	return l->nlines;
}

size_t tk_load_core_count(const tk_load *l)
{
	return l->ncores;
}

uint32_t tk_load_core(const tk_load *l, size_t i)
{
	return i < l->ncores ? l->cores[i].ent : TK_NONE;
}

uint64_t tk_load_core_busy(const tk_load *l, size_t i)
{
	return i < l->ncores ? l->cores[i].busy : 0;
}

uint64_t tk_load_core_idle(const tk_load *l, size_t i)
{
	return i < l->ncores ? l->cores[i].idle : 0;
}

int tk_load_entity_is_idle(const tk_load *l, uint32_t id)
{
	return tk_timeline_is_idle(l->tl, id) > 0;
}

uint64_t tk_load_conflicts(const tk_load *l)
{
	return tk_timeline_conflicts(l->tl);
}

uint64_t tk_load_takeovers(const tk_load *l)
{
	return tk_timeline_takeovers(l->tl);
}

uint64_t tk_load_entity_busy(const tk_load *l, uint32_t id, size_t i)
{
	const uint64_t *b;
	uint64_t sum = 0;
	size_t j;

	if (i != SIZE_MAX) {
		b = tk_imap_get(&l->ebusy, id, (int64_t)i);
		return b ? *b : 0;
	}
	for (j = 0; j < l->ncores; j++) {
		b = tk_imap_get(&l->ebusy, id, (int64_t)j);
		if (b && __builtin_add_overflow(sum, *b, &sum))
			return UINT64_MAX;
	}
	return sum;
}

size_t tk_load_entity_cores(const tk_load *l, uint32_t id,
			    const uint32_t **cores, const uint64_t **busy)
{
	size_t lo = 0, hi = l->npairs, end;

	while (lo < hi) { /* the first pair of id */
		size_t mid = lo + (hi - lo) / 2;
		if (l->pair_ent[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < l->npairs && l->pair_ent[end] == id; end++)
		;
	*cores = l->pair_core ? l->pair_core + lo : NULL;
	*busy = l->pair_busy ? l->pair_busy + lo : NULL;
	return end - lo;
}

void tk_load_free(tk_load *l)
{
	if (!l)
		return;
	tk_timeline_free(l->tl);
	free(l->ahead_path);
	free(l->pair_ent);
	free(l->pair_core);
	free(l->pair_busy);
	free(l->cores);
	free(l->core_of);
	free(l->win_busy);
	tk_imap_free(&l->ebusy);
	free(l);
}
