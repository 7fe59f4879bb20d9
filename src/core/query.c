/*
 * query.c - the query of tk_reader_opts: a time window and entity, type
 * and event filters applied by tk_reader_next() and tk_reader_next_batch()
 * (tracekit.h, tk_reader_opts), and the stop at the window's end.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* the three lists of names */
enum { Q_ENTITY, Q_TYPE, Q_EVENT, Q_LISTS };

typedef struct tk_query {
	/* the window in ticks: start <= t, and t < end (has_end) */
	uint64_t start, end;
	int has_start, has_end;
	int empty;          /* no event can pass */
	int stop;           /* stop at the first time at or past the end */
	int done;           /* stopped: TK_END from now on */
	uint64_t first;     /* the earliest time looked at (have_first) */
	int have_first;
	int skipped;        /* the skip to the start is done (query_skip) */
	char **names[Q_LISTS];
	size_t *lens[Q_LISTS];
	size_t n[Q_LISTS];
	uint32_t *ids;      /* entity ids, looked up as they appear */
	unsigned char *seen; /* event names that named an event in the window */
	tk_event *buf;      /* the batch of events that passed */
	size_t cap;
} tk_query;

static void query_free(tk_query *q)
{
	size_t k, i;

	if (!q)
		return;
	for (k = 0; k < Q_LISTS; k++) {
		for (i = 0; i < q->n[k]; i++)
			free(q->names[k][i]);
		free(q->names[k]);
		free(q->lens[k]);
	}
	free(q->ids);
	free(q->seen);
	free(q->buf);
	free(q);
}

void tk_query_close(tk_reader *r)
{
	query_free(r->q);
	r->q = NULL;
}

/* names[0..n) copied into list k */
static int copy_list(tk_query *q, int k, const char *const *names, size_t n)
{
	size_t i;

	if (!n)
		return TK_OK;
	q->names[k] = calloc(n, sizeof(*q->names[k]));
	q->lens[k] = calloc(n, sizeof(*q->lens[k]));
	if (!q->names[k] || !q->lens[k])
		return TK_E_NOMEM;
	q->n[k] = n;
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (!(q->names[k][i] = malloc(len + 1)))
			return TK_E_NOMEM;
		memcpy(q->names[k][i], names[i], len + 1);
		q->lens[k][i] = len;
	}
	return TK_OK;
}

/*
 * A bound in ticks: `v` as given (ticks, or a count of `unit`), rounded
 * `round`.  1 when it lies beyond the last tick, 0, or a negative status.
 */
static int bound(tk_reader *r, uint64_t v, int unit, tk_round round,
		 uint64_t *out, const char *which, tk_error *err)
{
	const tk_trace *t = r->trace;
	tk_timebase from;
	int rc;

	if (unit == TK_TICKS) {
		*out = v;
		return 0;
	}
	if (unit < (int)TK_UNIT_PS || unit > (int)TK_UNIT_S)
		return tk_err_set(err, TK_E_USAGE, tk_source_name(r->src), 0, 0,
				  "tk_reader_opts: %s_unit %d is neither TK_TICKS nor a tk_unit",
				  which, unit);
	from.unit = (tk_unit)unit;
	from.num = 1;
	from.den = 1;
	rc = tk_time_convert(v, &from, tk_trace_timebase(t), round, out);
	if (rc == TK_E_RANGE) {
		*out = UINT64_MAX;
		return 1;
	}
	if (rc < 0)
		return tk_err_set(err, rc, tk_source_name(r->src), 0, 0,
				  "tk_reader_opts: the window's %s cannot be converted to the trace's ticks",
				  which);
	return 0;
}

int tk_query_open(tk_reader *r, tk_error *err)
{
	const tk_reader_opts *o = &r->opts;
	tk_query *q;
	int rc;

	if (!o->has_start && !o->has_end && !o->nentities && !o->ntypes &&
	    !o->nevents)
		return TK_OK;
	if (!(q = calloc(1, sizeof(*q))))
		return tk_err_nomem(err, tk_source_name(r->src));
	if (o->has_start) {
		/* the first tick at or after the start */
		rc = bound(r, o->start, o->start_unit, TK_ROUND_UP, &q->start,
			   "start", err);
		if (rc < 0)
			goto fail;
		q->has_start = 1;
		q->empty |= rc == 1;
	}
	if (o->has_end) {
		/* half-open: the first tick at or after the end is out;
		 * closed: the last tick at or before it is in */
		rc = bound(r, o->end, o->end_unit,
			   o->end_closed ? TK_ROUND_DOWN : TK_ROUND_UP, &q->end,
			   "end", err);
		if (rc < 0)
			goto fail;
		if (o->end_closed && rc == 0) {
			if (q->end == UINT64_MAX)
				rc = 1;
			else
				q->end++;
		}
		q->has_end = rc == 0;
	}
	if (q->has_start && q->has_end && q->start >= q->end)
		q->empty = 1;
	q->stop = o->window_stop == TK_STOP_ALWAYS ||
		  (o->window_stop == TK_STOP_ORDERED && r->ordered);
	rc = copy_list(q, Q_ENTITY, o->entities, o->nentities);
	if (rc == TK_OK)
		rc = copy_list(q, Q_TYPE, o->types, o->ntypes);
	if (rc == TK_OK)
		rc = copy_list(q, Q_EVENT, o->events, o->nevents);
	if (rc == TK_OK && o->nevents && !(q->seen = calloc(o->nevents, 1)))
		rc = TK_E_NOMEM;
	if (rc == TK_OK && o->nentities) {
		size_t i;
		if (!(q->ids = malloc(o->nentities * sizeof(*q->ids))))
			rc = TK_E_NOMEM;
		for (i = 0; q->ids && i < o->nentities; i++)
			q->ids[i] = TK_NONE;
	}
	if (rc < 0) {
		rc = tk_err_nomem(err, tk_source_name(r->src));
		goto fail;
	}
	/* an empty window where reading stops: nothing to read at all */
	q->done = q->empty && q->stop;
	r->q = q;
	return TK_OK;

fail:
	query_free(q);
	return rc;
}

/* is the interned string s the len bytes of want? */
static int str_is(const tk_trace *t, tk_str s, const char *want, size_t len)
{
	size_t n;
	const char *p;

	if (s == TK_NONE)
		return 0;
	p = tk_trace_str(t, s, &n);
	return n == len && memcmp(p, want, n) == 0;
}

/* 1: ev passes; 0: it does not; -1: it is past the end where reading
 * stops */
static int match(tk_reader *r, tk_query *q, const tk_event *ev)
{
	const tk_trace *t = r->trace;
	size_t i;
	int hit;

	if (!q->have_first || ev->time < q->first) {
		q->first = ev->time;
		q->have_first = 1;
	}
	if (q->has_end && ev->time >= q->end)
		return q->stop ? -1 : 0;
	if (q->empty || (q->has_start && ev->time < q->start))
		return 0;
	if (q->n[Q_EVENT]) {
		/* every name, each that names the event seen (whatever the
		 * other filters say: tk_reader_event_name_seen()) */
		const char *canon = ev->kind != TK_EV_OTHER ? tk_evkind_name(ev->kind)
							      : NULL;
		size_t clen = canon ? strlen(canon) : 0;
		for (i = 0, hit = 0; i < q->n[Q_EVENT]; i++)
			if ((canon && q->lens[Q_EVENT][i] == clen &&
			     memcmp(q->names[Q_EVENT][i], canon, clen) == 0) ||
			    str_is(t, ev->name, q->names[Q_EVENT][i],
				   q->lens[Q_EVENT][i]))
				hit = q->seen[i] = 1;
		if (!hit)
			return 0;
	}
	if (q->n[Q_ENTITY]) {
		for (i = 0, hit = 0; i < q->n[Q_ENTITY] && !hit; i++) {
			uint32_t id = q->ids[i];
			if (id == TK_NONE) {
				/* named by no event yet: it may be by this one */
				id = tk_trace_entity_find(t, q->names[Q_ENTITY][i],
							  q->lens[Q_ENTITY][i]);
				q->ids[i] = id;
			}
			hit = id != TK_NONE && (ev->source == id || ev->target == id);
		}
		if (!hit)
			return 0;
	}
	if (q->n[Q_TYPE]) {
		const char *canon = tk_etype_name(ev->type);
		size_t clen = strlen(canon);
		for (i = 0, hit = 0; i < q->n[Q_TYPE] && !hit; i++)
			hit = (q->lens[Q_TYPE][i] == clen &&
			       memcmp(q->names[Q_TYPE][i], canon, clen) == 0) ||
			      str_is(t, ev->type_name, q->names[Q_TYPE][i],
				     q->lens[Q_TYPE][i]);
		if (!hit)
			return 0;
	}
	return 1;
}

int tk_reader_event_name_seen(const tk_reader *r, size_t i)
{
	const tk_query *q = r ? r->q : NULL;

	if (!q || i >= q->n[Q_EVENT])
		return -1;
	return q->seen[i];
}

/*
 * Before the first event: the reader skips ahead to the window's start
 * where its format allows it (tk_format_ops.reader_skip), so that the
 * events before it are not made only to be dropped here.  Those it
 * takes all lie before the start: match() would have dropped them.
 */
static int query_skip(tk_reader *r, tk_query *q, tk_error *err)
{
	q->skipped = 1;
	if (!q->has_start || !q->start)
		return TK_OK;
	return tk_reader_raw_skip(r, q->start, err);
}

int tk_query_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	tk_query *q = r->q;
	int rc, m;

	if (q->done)
		return TK_END;
	if (TK_UNLIKELY(!q->skipped) && (rc = query_skip(r, q, err)) < 0)
		return rc;
	while ((rc = tk_reader_raw_next(r, ev, err)) == TK_OK) {
		m = match(r, q, *ev);
		if (m > 0)
			return TK_OK;
		if (m < 0) {
			q->done = 1;
			return TK_END;
		}
	}
	return rc;
}

int tk_query_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			size_t max, tk_error *err)
{
	tk_query *q = r->q;
	const tk_event *in;
	size_t k, i, kept;
	int rc, m;

	*n = 0;
	if (q->done)
		return TK_END;
	if (TK_UNLIKELY(!q->skipped) && (rc = query_skip(r, q, err)) < 0)
		return rc;
	for (;;) {
		rc = tk_reader_raw_next_batch(r, &in, &k, max, err);
		if (rc != TK_OK)
			return rc;
		if (k > q->cap) {
			tk_event *nb = realloc(q->buf, k * sizeof(*nb));
			if (!nb)
				return tk_err_nomem(err, tk_source_name(r->src));
			q->buf = nb;
			q->cap = k;
		}
		for (i = 0, kept = 0; i < k; i++) {
			m = match(r, q, &in[i]);
			if (m > 0) {
				q->buf[kept++] = in[i];
			} else if (m < 0) {
				q->done = 1;
				break;
			}
		}
		if (kept) {
			*evs = q->buf;
			*n = kept;
			return TK_OK;
		}
		if (q->done)
			return TK_END;
	}
}

void tk_query_no_skip(tk_reader *r)
{
	if (r->q)
		r->q->skipped = 1;
}

int tk_query_first_time(const tk_reader *r, uint64_t *t)
{
	if (!r->q || !r->q->have_first)
		return 0;
	*t = r->q->first;
	return 1;
}
