/* htf_merge.c - the HTF reader's k-way merge of its sections' records into
 * blocks of events (htf_reader.h). */
#include "htf_reader.h"

/*
 * Up to NET_MAX sections, the heads are kept sorted in h->nt[] (times)
 * and h->nr[] (record addresses): the batches lie in one block in
 * section order, so the address breaks a tie in favour of the earlier
 * section.  An event takes the first head, and its section's next record
 * goes in its place among the others, by compares and selects alone:
 * which section comes next follows no pattern a branch predictor could
 * learn when the cores' events interleave.  Free places hold UINT64_MAX
 * and UINTPTR_MAX, after every live head.  More sections go through a
 * binary heap of nodes.
 */
/* Place 0 of t/r[0..nn) is free, the rest sorted: (xt, xr) goes in. */
static TK_INLINE void net_insert(uint64_t *t, uintptr_t *r, unsigned nn,
				 uint64_t xt, uintptr_t xr)
{
	unsigned k;

	for (k = 1; k < nn; k++) {
		const uint64_t tk = t[k];
		const uintptr_t rk = r[k];
		/* (xt, xr) comes first */
		const uint32_t b = (uint32_t)(xt < tk) |
				   ((uint32_t)(xt == tk) & (uint32_t)(xr < rk));
		t[k - 1] = b ? xt : tk;
		r[k - 1] = b ? xr : rk;
		xt = b ? tk : xt;
		xr = b ? rk : xr;
	}
	t[nn - 1] = xt;
	r[nn - 1] = xr;
}

/* Cursor c's fresh batch into the sorted heads: the last place is free,
 * and moves down past the heads that come after the new one. */
static void net_add(htf_reader *h, const cursor *c)
{
	const uint64_t xt = c->b[0].time;
	const uintptr_t xr = (uintptr_t)c->b;
	unsigned k = h->nnet - 1;

	for (; k > 0 && (h->nt[k - 1] > xt ||
			 (h->nt[k - 1] == xt && h->nr[k - 1] > xr)); k--) {
		h->nt[k] = h->nt[k - 1];
		h->nr[k] = h->nr[k - 1];
	}
	h->nt[k] = xt;
	h->nr[k] = xr;
}

/*
 * The event of record `rec` into ev, and its core slot and key into
 * *evkey, for the synthesis after the merge (synth_block).  (The callers
 * keep h's fields in locals: the stores to the events could alias them.)
 */
static TK_INLINE void event_out(const hdesc *descs, tk_event *ev,
				uint64_t *evkey, const hrec *rec,
				uint64_t line, uint32_t slot, uint32_t core)
{
	const uint64_t id = rec->id;
	const uint32_t key = (uint32_t)id;
	const hdesc *d = &descs[key & KEY_DESC];

	ev->time = rec->time;
	ev->pos = line;
	ev->target = (uint32_t)(id >> 32);
	ev->type = d->et;
	ev->type_name = d->type_name;
	ev->kind = d->kind;
	ev->name = d->name;
	ev->core = core;
	/* (no record has a note: h->evs[] holds NULL and 0 from the start) */
	*evkey = (uint64_t)slot << 32 | key;
}

/*
 * The merge of up to nn (4 or NET_MAX) sections: up to cap events in
 * (time, section) order into h->evs.  A cursor whose batch runs out is
 * refilled by the batch decoder; when its next record needs the
 * line-at-a-time path (its warnings and errors must come after the events
 * before it), the block ends there with h->stalled set, and the next call
 * reads that record first.  Returns the number of events; *rc an error
 * met after them.
 */
static TK_INLINE size_t merge_net(htf_reader *h, size_t cap,
				  const unsigned nn, int *rc, tk_error *err)
{
	const hrec *block = h->block;
	const hdesc *descs = h->descs;
	cursor *cur = h->cur;
	tk_event *evs = h->evs;
	uint64_t *evkey = h->evkey;
	uint64_t t[NET_MAX];
	uintptr_t r[NET_MAX];
	size_t n = 0;

	memcpy(t, h->nt, nn * sizeof(*t));
	memcpy(r, h->nr, nn * sizeof(*r));
	while (n < cap) {
		const hrec *rec = (const hrec *)r[0];
		cursor *c = &cur[(size_t)(rec - block) / BATCH];

		event_out(descs, &evs[n], &evkey[n], rec,
			  c->bline + (uint64_t)(rec - c->b), c->slot, c->core);
		n++;
		if (TK_UNLIKELY(++rec == c->b + c->bn)) {
			int got = htf_refill_fast(h, c, err);
			if (got <= 0) {
				if (got < 0)
					*rc = got;
				/* its head stays first until it is read */
				h->stalled = 1;
				h->stall = (uint32_t)(c - cur);
				break;
			}
			rec = c->b;
		}
		net_insert(t, r, nn, rec->time, (uintptr_t)rec);
	}
	memcpy(h->nt, t, nn * sizeof(*t));
	memcpy(h->nr, r, nn * sizeof(*r));
	return n;
}

static inline int before(const hnode *x, const hnode *y)
{
	return x->time < y->time || (x->time == y->time && x->idx < y->idx);
}

static void sift_down(htf_reader *h, uint32_t i)
{
	uint32_t n = h->nheap;
	hnode *hp = h->heap;

	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		hnode tmp;
		if (l < n && before(&hp[l], &hp[m]))
			m = l;
		if (l + 1 < n && before(&hp[l + 1], &hp[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = hp[i];
		hp[i] = hp[m];
		hp[m] = tmp;
		i = m;
	}
}

static void sift_up(htf_reader *h, uint32_t i)
{
	hnode *hp = h->heap;

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		hnode tmp;
		if (!before(&hp[i], &hp[parent]))
			return;
		tmp = hp[i];
		hp[i] = hp[parent];
		hp[parent] = tmp;
		i = parent;
	}
}

/* A node for cursor i's fresh batch. */
static inline void node_set(hnode *t, const cursor *c, uint32_t i)
{
	t->rec = c->b;
	t->bend = c->b + c->bn;
	t->time = c->b[0].time;
	t->line = c->bline;
	t->slot = c->slot;
	t->core = c->core;
	t->idx = i;
}

/* The first records of all sections, and the merge set up. */
static int merge_start(htf_reader *h, tk_error *err)
{
	uint32_t i;
	int rc;

	for (i = 0; i < h->nnet; i++) {
		h->nt[i] = UINT64_MAX;
		h->nr[i] = UINTPTR_MAX;
	}
	for (i = 0; i < h->ncur; i++) {
		rc = htf_refill(h, &h->cur[i], err);
		if (rc < 0)
			return rc;
		if (rc != TK_OK)
			continue;
		if (h->nnet) {
			net_add(h, &h->cur[i]);
		} else {
			node_set(&h->heap[h->nheap], &h->cur[i], i);
			sift_up(h, h->nheap);
		}
		h->nheap++;
	}
	/* the instance counters of every entity (the trace's entities are
	 * all known by now), made before the merge counts on them */
	if (h->t->nents > h->synth.cap_ent &&
	    tk_synth_grow(&h->synth, h->t->nents - 1) < 0)
		return tk_err_nomem(err, h->name);
	return TK_OK;
}

/* The merge of many sections through the heap: as merge_net() does. */
static size_t merge_heap(htf_reader *h, size_t cap, int *rc, tk_error *err)
{
	hnode *t = &h->heap[0];
	const hdesc *descs = h->descs;
	tk_event *evs = h->evs;
	uint64_t *evkey = h->evkey;
	size_t n = 0;

	while (n < cap) {
		event_out(descs, &evs[n], &evkey[n], t->rec, t->line++, t->slot,
			  t->core);
		n++;
		if (TK_UNLIKELY(++t->rec == t->bend)) {
			cursor *c = &h->cur[t->idx];
			int got = htf_refill_fast(h, c, err);
			if (got <= 0) {
				/* its node stays at the root */
				if (got < 0)
					*rc = got;
				h->stalled = 1;
				h->stall = (uint32_t)t->idx;
				break;
			}
			node_set(t, c, (uint32_t)t->idx);
		}
		t->time = t->rec->time;
		if (h->nheap > 1)
			sift_down(h, 0);
	}
	return n;
}

/*
 * The synthesis of the block's n events, in their order, after the merge:
 * each target's instance (the counters need only the global order) and
 * the source from the running stacks of its core.  Returns the number of
 * events done: n, or fewer with *rc an error (no memory for a stack).
 */
static size_t synth_block(htf_reader *h, size_t n, int *rc, tk_error *err)
{
	/* in locals: the stores to the events could alias the fields of h */
	int64_t *acts = h->synth.acts, *starts = h->synth.starts;
	tk_synth_stack *procs = h->synth.procs, *runs = h->synth.runs;
	const hdesc *descs = h->descs;
	const uint64_t *evkey = h->evkey;
	tk_event *ev = h->evs;
	size_t i;

	for (i = 0; i < n; i++, ev++) {
		const uint32_t key = (uint32_t)evkey[i],
			       slot = (uint32_t)(evkey[i] >> 32),
			       target = ev->target, core = ev->core;
		/* every target has its counters (merge_start) */
		const int64_t inst = tk_synth_count_(
			acts, starts, (key & KEY_ACT) != 0,
			(key & KEY_START) != 0, (key & KEY_COUNTED) != 0,
			target);

		ev->target_inst = inst;
		if (TK_UNLIKELY(tk_synth_stack_inline(
			    &procs[slot], &runs[slot], core, core,
			    descs[key & KEY_DESC].op, target, inst,
			    &ev->source, &ev->source_inst) < 0)) {
			*rc = tk_err_nomem(err, h->name);
			return i;
		}
	}
	return n;
}

/* The record the merge stopped at, through the line-at-a-time path
 * (warnings and all); its section goes on or ends. */
static int settle_stall(htf_reader *h, tk_error *err)
{
	uint32_t i = h->stall;
	int rc = htf_refill(h, &h->cur[i], err);

	h->stalled = 0;
	if (rc < 0)
		return rc;
	if (h->nnet) {
		/* its head, the first, is replaced (by a free place at the end) */
		if (rc == TK_OK)
			net_insert(h->nt, h->nr, h->nnet, h->cur[i].b[0].time,
				   (uintptr_t)h->cur[i].b);
		else
			net_insert(h->nt, h->nr, h->nnet, UINT64_MAX, UINTPTR_MAX);
		h->nheap -= rc != TK_OK;
		return TK_OK;
	}
	if (rc == TK_OK)
		node_set(&h->heap[0], &h->cur[i], i);
	else
		h->heap[0] = h->heap[--h->nheap];
	if (h->nheap > 1)
		sift_down(h, 0);
	return TK_OK;
}

/*
 * The next block of events: TK_OK with 1 <= *n <= max events at *evs
 * (valid until the next call), TK_END, or an error (the same on every
 * later call).
 */
int htf_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			  size_t max, tk_error *err)
{
	htf_reader *h = r->impl;
	size_t cap = max < EV_BATCH ? max : EV_BATCH, got;
	int rc = TK_OK;

	*n = 0;
	if (TK_UNLIKELY(h->done))
		return h->done_rc == TK_END ? TK_END
					    : (err ? *err = h->done_err, h->done_rc : h->done_rc);
	if (!h->started) {
		h->started = 1;
		if ((rc = merge_start(h, err)) < 0)
			goto fail;
	} else if (h->stalled && (rc = settle_stall(h, err)) < 0) {
		goto fail;
	}
	if (!h->nheap || !cap) {
		rc = h->nheap ? TK_OK : TK_END;
		if (rc == TK_END)
			goto fail;
		return rc;
	}
	if (h->nnet == 4)
		got = merge_net(h, cap, 4, &rc, err);
	else if (h->nnet)
		got = merge_net(h, cap, NET_MAX, &rc, err);
	else
		got = merge_heap(h, cap, &rc, err);
	got = synth_block(h, got, &rc, err);
	if (rc < 0) {
		/* the events before the error go out first */
		h->done = 1;
		h->done_rc = rc;
		h->done_err = *err;
		if (!got)
			return rc;
	}
	*evs = h->evs;
	*n = got;
	return TK_OK;
fail:
	/* the end or an error: the same on every later call */
	h->done = 1;
	h->done_rc = rc;
	if (rc < 0)
		h->done_err = *err;
	return rc;
}

/* ---- skipping ahead ----------------------------------------------------- */

/*
 * What a record (key `key`, target `target`) in core slot `slot` (core
 * entity `core`) does to the state, without its event: the target's
 * instance counters and its core's running stacks, as synth_block()
 * does, and the target's parent as tk_reader_note_parents() sets it
 * (orphan[target]: a process without a parent yet).  TK_OK or
 * TK_E_NOMEM.
 */
static TK_INLINE int skip_record(htf_reader *h, uint8_t *orphan,
				 uint32_t key, uint32_t target, uint32_t slot,
				 uint32_t core)
{
	tk_synth *sy = &h->synth;
	uint32_t src;
	int64_t inst, sinst;

	/* every target has its counters (merge_start) */
	inst = tk_synth_count_(sy->acts, sy->starts, (key & KEY_ACT) != 0,
			       (key & KEY_START) != 0, (key & KEY_COUNTED) != 0,
			       target);
	if (TK_UNLIKELY(tk_synth_stack_inline(&sy->procs[slot], &sy->runs[slot],
					      core, core,
					      h->descs[key & KEY_DESC].op,
					      target, inst, &src, &sinst) < 0))
		return TK_E_NOMEM;
	if (TK_UNLIKELY(orphan[target])) {
		if (orphan[target] == 1) {
			/* a process: the record's core */
			if (target != core) {
				tk_trace_ent(h->t, target)->parent = core;
				orphan[target] = 0;
			}
		} else if (src != TK_NONE && src < h->t->nents && src != target &&
			   tk_etype_is_process(tk_trace_ent(h->t, src)->type)) {
			/* a runnable: the process its event has as source */
			tk_trace_ent(h->t, target)->parent = src;
			orphan[target] = 0;
		}
	}
	return TK_OK;
}

/*
 * The merge of up to nn sections without events: the records whose times
 * are below `start` at the head, each through skip_record(); a cursor
 * whose batch runs out is refilled at once, by the line-at-a-time path
 * where the batch decoder stops (as settle_stall() would: the same
 * warnings and errors, in the same order).  TK_OK or an error.
 */
static int skip_net(htf_reader *h, uint8_t *orphan, uint64_t start,
		    const unsigned nn, tk_error *err)
{
	const hrec *block = h->block;
	cursor *cur = h->cur;
	uint64_t *t = h->nt;
	uintptr_t *r = h->nr;
	int rc;

	while (h->nheap && t[0] < start) {
		const hrec *rec = (const hrec *)r[0];
		cursor *c = &cur[(size_t)(rec - block) / BATCH];

		if (TK_UNLIKELY(skip_record(h, orphan, (uint32_t)rec->id,
					    (uint32_t)(rec->id >> 32), c->slot,
					    c->core) < 0))
			return tk_err_nomem(err, h->name);
		if (TK_UNLIKELY(++rec == c->b + c->bn)) {
			rc = htf_refill(h, c, err);
			if (rc < 0)
				return rc;
			if (rc != TK_OK) {
				net_insert(t, r, nn, UINT64_MAX, UINTPTR_MAX);
				h->nheap--;
				continue;
			}
			rec = c->b;
		}
		net_insert(t, r, nn, rec->time, (uintptr_t)rec);
	}
	return TK_OK;
}

/* skip_net() through the heap. */
static int skip_heap(htf_reader *h, uint8_t *orphan, uint64_t start,
		     tk_error *err)
{
	hnode *t = &h->heap[0];
	int rc;

	while (h->nheap && t->time < start) {
		if (TK_UNLIKELY(skip_record(h, orphan, (uint32_t)t->rec->id,
					    (uint32_t)(t->rec->id >> 32),
					    t->slot, t->core) < 0))
			return tk_err_nomem(err, h->name);
		t->line++;
		if (TK_UNLIKELY(++t->rec == t->bend)) {
			cursor *c = &h->cur[t->idx];
			rc = htf_refill(h, c, err);
			if (rc < 0)
				return rc;
			if (rc == TK_OK)
				node_set(t, c, (uint32_t)t->idx);
			else
				*t = h->heap[--h->nheap];
		}
		if (h->nheap) {
			t->time = t->rec->time;
			if (h->nheap > 1)
				sift_down(h, 0);
		}
	}
	return TK_OK;
}

/*
 * tk_format_ops.reader_skip: the records the merge would hand out first
 * whose times are below `start`, up to the first at or after it (in
 * lenient mode a later record of a section whose time decreases may lie
 * before the start again: it is read and dropped as before), through
 * their state alone.  Each is decoded as for its event (the instance
 * counters and the running stacks need every record before the window),
 * but no event is made, synthesised, handed out or filtered.
 */
int htf_reader_skip(tk_reader *r, uint64_t start, tk_error *err)
{
	htf_reader *h = r->impl;
	uint8_t *orphan = NULL;
	uint32_t i;
	int rc = TK_OK;

	if (h->done)
		return TK_OK;
	if (!h->started) {
		h->started = 1;
		rc = merge_start(h, err);
	} else if (h->stalled) {
		rc = settle_stall(h, err);
	}
	/* the processes (1) and runnables (2) that have no parent yet, by
	 * entity id (every record's target is a trace entity: one load per
	 * record) */
	if (rc >= 0 && !(orphan = malloc(h->t->nents + 1)))
		rc = tk_err_nomem(err, h->name);
	for (i = 0; rc >= 0 && i < h->t->nents; i++) {
		const tk_entity *e = tk_trace_ent(h->t, i);
		orphan[i] = e->parent != TK_NONE ? 0 : tk_etype_is_process(e->type) ? 1
			    : e->type == TK_ET_R ? 2 : 0;
	}
	if (rc >= 0) {
		if (h->nnet == 4)
			rc = skip_net(h, orphan, start, 4, err);
		else if (h->nnet)
			rc = skip_net(h, orphan, start, NET_MAX, err);
		else
			rc = skip_heap(h, orphan, start, err);
	}
	free(orphan);
	if (rc < 0) {
		h->done = 1;
		h->done_rc = rc;
		h->done_err = *err;
	}
	return rc < 0 ? rc : TK_OK;
}
