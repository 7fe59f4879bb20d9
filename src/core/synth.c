/*
 * synth.c - instance and source synthesis shared by the HTF and ATF readers
 * and writers (see synth.h).
 */
#include "synth.h"
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

/*
 * A stack that tasks started and never terminated made deep would cost a
 * search of the whole stack at each push (and a memmove at each removal
 * from the middle): O(depth) per event.  A deep stack has an index, a
 * map of entity -> position (tk_hashmap), and a removal
 * below the top only marks the entry (ent TK_NONE); the marked entries are
 * dropped when the top comes down to them, or all at once when the array is
 * full and at least half of it is marked, so each costs O(1) amortized.
 */
#define DEEP_ON 32   /* a stack of this many entries gets an index */
#define DEEP_OFF 8   /* and loses it at this many live ones (hysteresis) */

struct tk_synth_deep {
	tk_hashmap pos;       /* entity -> position; count: the live entries */
};

int tk_synth_kind(tk_etype et)
{
	switch (et) {
	case TK_ET_T: case TK_ET_I: case TK_ET_THR: return TK_SK_PROCESS;
	case TK_ET_R: case TK_ET_SYSC: return TK_SK_RUNNABLE;
	case TK_ET_IB: return TK_SK_BLOCK;
	default: return TK_SK_OTHER;
	}
}

int tk_synth_init(tk_synth *s, const tk_synth_rules *rules, uint32_t ncores)
{
	memset(s, 0, sizeof(*s));
	s->rules = rules;
	return tk_synth_cores(s, ncores);
}

void tk_synth_free(tk_synth *s)
{
	uint32_t i;

	for (i = 0; i < s->ncores; i++) {
		free(s->procs[i].s);
		free(s->runs[i].s);
		if (s->procs[i].deep)
			tk_hashmap_free(&s->procs[i].deep->pos);
		if (s->runs[i].deep)
			tk_hashmap_free(&s->runs[i].deep->pos);
		free(s->procs[i].deep);
		free(s->runs[i].deep);
	}
	free(s->procs);
	free(s->runs);
	free(s->acts);
	free(s->starts);
	memset(s, 0, sizeof(*s));
}

int tk_synth_cores(tk_synth *s, uint32_t n)
{
	tk_synth_stack *p, *r;
	uint32_t i, ncap;

	if (n <= s->ncores)
		return TK_OK;
	if (n > s->cap_cores) {
		/* doubled: a reader adds the cores one at a time (one per ATF
		 * Resource, of which a file may have many) */
		ncap = s->cap_cores > UINT32_MAX / 2 ? UINT32_MAX : s->cap_cores * 2;
		if (ncap < n)
			ncap = n;
		p = tk_xrealloc_array(s->procs, ncap, sizeof(*p));
		if (!p)
			return TK_E_NOMEM;
		s->procs = p;
		r = tk_xrealloc_array(s->runs, ncap, sizeof(*r));
		if (!r)
			return TK_E_NOMEM;
		s->runs = r;
		s->cap_cores = ncap;
	}
	p = s->procs;
	r = s->runs;
	memset(p + s->ncores, 0, (n - s->ncores) * sizeof(*p));
	memset(r + s->ncores, 0, (n - s->ncores) * sizeof(*r));
	i = s->ncores;
	s->ncores = n;
	/* room from the start: tk_synth_apply_() reads the top unchecked */
	for (; i < n; i++) {
		p[i].s = calloc(2, sizeof(*p[i].s));
		r[i].s = calloc(2, sizeof(*r[i].s));
		if (!p[i].s || !r[i].s)
			return TK_E_NOMEM;
		p[i].cap = r[i].cap = 2;
	}
	return TK_OK;
}

int tk_synth_grow(tk_synth *s, uint32_t id)
{
	uint32_t cap = s->cap_ent;

	/* two arrays of one capacity */
	if (tk_grow_zero32((void **)&s->acts, &cap, id, sizeof(*s->acts)) < 0)
		return TK_E_NOMEM;
	cap = s->cap_ent;
	if (tk_grow_zero32((void **)&s->starts, &cap, id, sizeof(*s->starts)) < 0)
		return TK_E_NOMEM;
	s->cap_ent = cap;
	return TK_OK;
}

/* ---- deep stacks -------------------------------------------------------- */

/* Drop the marked entries and index the rest anew.  TK_OK or TK_E_NOMEM. */
static int deep_compact(tk_synth_stack *st)
{
	tk_synth_deep *d = st->deep;
	uint32_t i, n = 0;
	int rc;

	for (i = 0; i < st->n; i++)
		if (st->s[i].ent != TK_NONE)
			st->s[n++] = st->s[i];
	st->n = n;
	if ((rc = tk_hashmap_reset(&d->pos, n + 1)) < 0)
		return rc;
	/* (no growth: the map has room for n + 1) */
	for (i = 0; i < n; i++)
		if ((rc = tk_hashmap_set(&d->pos, st->s[i].ent, i)) < 0)
			return rc;
	return TK_OK;
}

/* Back to a shallow stack (all live entries, searched from the top). */
static void deep_off(tk_synth_stack *st)
{
	uint32_t i, n = 0;

	for (i = 0; i < st->n; i++)
		if (st->s[i].ent != TK_NONE)
			st->s[n++] = st->s[i];
	st->n = n;
	tk_hashmap_free(&st->deep->pos);
	free(st->deep);
	st->deep = NULL;
}

/* An empty stack, shallow again. */
static void stack_clear(tk_synth_stack *st)
{
	if (st->deep)
		deep_off(st);
	st->n = 0;
}

void tk_synth_reset(tk_synth *s)
{
	uint32_t i;

	for (i = 0; i < s->ncores; i++) {
		stack_clear(&s->procs[i]);
		stack_clear(&s->runs[i]);
	}
	if (s->cap_ent) {
		memset(s->acts, 0, (size_t)s->cap_ent * sizeof(*s->acts));
		memset(s->starts, 0, (size_t)s->cap_ent * sizeof(*s->starts));
	}
}

/* Index a shallow stack that has grown deep.  TK_OK or TK_E_NOMEM. */
static int deep_on(tk_synth_stack *st)
{
	tk_synth_deep *d = calloc(1, sizeof(*d));

	if (!d)
		return TK_E_NOMEM;
	tk_hashmap_init(&d->pos);
	st->deep = d;
	if (deep_compact(st) < 0) {
		tk_hashmap_free(&d->pos);
		free(d);
		st->deep = NULL;
		return TK_E_NOMEM;
	}
	return TK_OK;
}

static void deep_remove(tk_synth_stack *st, uint32_t ent)
{
	tk_synth_deep *d = st->deep;
	uint32_t pos = tk_hashmap_get(&d->pos, ent);

	if (pos == TK_NONE)
		return;
	tk_hashmap_del(&d->pos, ent);
	if (pos + 1 == st->n) {
		/* the top: the marked entries below it go too */
		st->n--;
		while (st->n && st->s[st->n - 1].ent == TK_NONE)
			st->n--;
	} else {
		st->s[pos].ent = TK_NONE;
	}
	if (d->pos.count <= DEEP_OFF)
		deep_off(st);
}

/* Grow the array by half or more, or compact it if half of it is marked. */
static int stack_room(tk_synth_stack *st)
{
	if (st->deep && st->deep->pos.count <= st->n / 2)
		return deep_compact(st);
	return tk_grow_zero32((void **)&st->s, &st->cap, st->n, sizeof(*st->s));
}

void tk_synth_stack_remove(tk_synth_stack *st, uint32_t ent)
{
	uint32_t i;

	if (st->deep) {
		deep_remove(st, ent);
		return;
	}
	if (st->n && st->s[st->n - 1].ent == ent) { /* the usual case */
		st->n--;
		return;
	}
	/* shallow: fewer than DEEP_ON entries */
	for (i = st->n; i-- > 0;) {
		if (st->s[i].ent == ent) {
			memmove(&st->s[i], &st->s[i + 1],
				(st->n - i - 1) * sizeof(st->s[0]));
			st->n--;
			return;
		}
	}
}

int tk_synth_stack_push(tk_synth_stack *st, uint32_t ent, int64_t inst)
{
	int rc;

	tk_synth_stack_remove(st, ent);
	if (TK_UNLIKELY(st->n == st->cap) && (rc = stack_room(st)) < 0)
		return rc;
	st->s[st->n].ent = ent;
	st->s[st->n].inst = inst;
	st->n++;
	if (st->deep)
		return tk_hashmap_set(&st->deep->pos, ent, st->n - 1);
	if (st->n >= DEEP_ON)
		return deep_on(st);
	return TK_OK;
}

int tk_synth_event(tk_synth *s, uint32_t slot, uint32_t core,
		   uint32_t fallback, int sk, tk_evkind kind, uint32_t target,
		   uint32_t *src, int64_t *src_inst, int64_t *tgt_inst)
{
	return tk_synth_event_inline(s, slot, core, fallback, sk, kind, target,
				     src, src_inst, tgt_inst);
}
