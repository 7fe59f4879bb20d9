/*
 * synth.c - instance and source synthesis shared by the HTF and ATF readers
 * and writers (see synth.h).
 */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

/*
 * A stack that tasks started and never terminated made deep would cost a
 * search of the whole stack at each push (and a memmove at each removal
 * from the middle): O(depth) per event.  A deep stack has an index, a
 * hash table of entity -> position (linear probing, an empty slot has the
 * key TK_NONE, which is no entity: tk_synth_grow refuses it), and a removal
 * below the top only marks the entry (ent TK_NONE); the marked entries are
 * dropped when the top comes down to them, or all at once when the array is
 * full and at least half of it is marked, so each costs O(1) amortized.
 */
#define DEEP_ON 32   /* a stack of this many entries gets an index */
#define DEEP_OFF 8   /* and loses it at this many live ones (hysteresis) */

typedef struct deep_slot {
	uint32_t ent, pos;
} deep_slot;

struct tk_synth_deep {
	deep_slot *tab;
	uint32_t mask;        /* table size - 1 (a power of two) */
	uint32_t live;        /* entries in the table = live entries of the stack */
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
			free(s->procs[i].deep->tab);
		if (s->runs[i].deep)
			free(s->runs[i].deep->tab);
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
	uint32_t ncap;
	int64_t *a, *b;

	if (id == UINT32_MAX)
		return TK_E_NOMEM;
	ncap = s->cap_ent ? s->cap_ent : 64;
	while (ncap <= id) {
		if (ncap > UINT32_MAX / 2) {
			ncap = UINT32_MAX;
			break;
		}
		ncap *= 2;
	}
	a = tk_xrealloc_array(s->acts, ncap, sizeof(*a));
	if (!a)
		return TK_E_NOMEM;
	s->acts = a;
	b = tk_xrealloc_array(s->starts, ncap, sizeof(*b));
	if (!b)
		return TK_E_NOMEM;
	s->starts = b;
	memset(a + s->cap_ent, 0, (ncap - s->cap_ent) * sizeof(*a));
	memset(b + s->cap_ent, 0, (ncap - s->cap_ent) * sizeof(*b));
	s->cap_ent = ncap;
	return TK_OK;
}

/* ---- deep stacks -------------------------------------------------------- */

/* seeded (internal.h): which entities are on a stack is the input's choice */
static uint32_t deep_hash(uint32_t ent)
{
	return (uint32_t)tk_hash64(ent);
}

/* the slot of ent, or the empty slot where it would go */
static uint32_t deep_find(const tk_synth_deep *d, uint32_t ent)
{
	uint32_t i = deep_hash(ent) & d->mask;

	while (d->tab[i].ent != ent && d->tab[i].ent != TK_NONE)
		i = (i + 1) & d->mask;
	return i;
}

/* A table of 2^k >= 2 * want slots, all empty.  TK_OK or TK_E_NOMEM. */
static int deep_table(tk_synth_deep *d, uint32_t want)
{
	uint32_t size = 64, i;
	deep_slot *t;

	while (size / 2 < want) {
		if (size > UINT32_MAX / 4)
			return TK_E_NOMEM;
		size *= 2;
	}
	t = tk_xrealloc_array(NULL, size, sizeof(*t));
	if (!t)
		return TK_E_NOMEM;
	for (i = 0; i < size; i++)
		t[i].ent = TK_NONE;
	free(d->tab);
	d->tab = t;
	d->mask = size - 1;
	d->live = 0;
	return TK_OK;
}

/* Set ent's position; the table has room (at most half full). */
static void deep_set(tk_synth_deep *d, uint32_t ent, uint32_t pos)
{
	uint32_t i = deep_find(d, ent);

	if (d->tab[i].ent == TK_NONE) {
		d->tab[i].ent = ent;
		d->live++;
	}
	d->tab[i].pos = pos;
}

/* Take slot i out (linear probing: the entries after it that would no
 * longer be found move back into the gap). */
static void deep_del(tk_synth_deep *d, uint32_t i)
{
	uint32_t j = i, h;

	for (;;) {
		j = (j + 1) & d->mask;
		if (d->tab[j].ent == TK_NONE)
			break;
		h = deep_hash(d->tab[j].ent) & d->mask;
		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		d->tab[i] = d->tab[j];
		i = j;
	}
	d->tab[i].ent = TK_NONE;
	d->live--;
}

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
	if ((rc = deep_table(d, n + 1)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		deep_set(d, st->s[i].ent, i);
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
	free(st->deep->tab);
	free(st->deep);
	st->deep = NULL;
}

/* Index a shallow stack that has grown deep.  TK_OK or TK_E_NOMEM. */
static int deep_on(tk_synth_stack *st)
{
	tk_synth_deep *d = calloc(1, sizeof(*d));

	if (!d)
		return TK_E_NOMEM;
	tk_hash_init();
	st->deep = d;
	if (deep_compact(st) < 0) {
		free(d->tab);
		free(d);
		st->deep = NULL;
		return TK_E_NOMEM;
	}
	return TK_OK;
}

static void deep_remove(tk_synth_stack *st, uint32_t ent)
{
	tk_synth_deep *d = st->deep;
	uint32_t i = deep_find(d, ent), pos;

	if (d->tab[i].ent == TK_NONE)
		return;
	pos = d->tab[i].pos;
	deep_del(d, i);
	if (pos + 1 == st->n) {
		/* the top: the marked entries below it go too */
		st->n--;
		while (st->n && st->s[st->n - 1].ent == TK_NONE)
			st->n--;
	} else {
		st->s[pos].ent = TK_NONE;
	}
	if (d->live <= DEEP_OFF)
		deep_off(st);
}

/* Grow the array by half or more, or compact it if half of it is marked. */
static int stack_room(tk_synth_stack *st)
{
	uint32_t ncap;
	tk_synth_slot *n;

	if (st->deep && st->deep->live <= st->n / 2)
		return deep_compact(st);
	if (st->cap > UINT32_MAX / 2)
		return TK_E_NOMEM;
	ncap = st->cap ? st->cap * 2 : 8;
	n = tk_xrealloc_array(st->s, ncap, sizeof(*n));
	if (!n)
		return TK_E_NOMEM;
	st->s = n;
	st->cap = ncap;
	return TK_OK;
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
	if (st->deep) {
		/* the table has room: it holds at most half its size, and
		 * deep_set() fills no more than one slot */
		if (2 * (st->deep->live + 1) > st->deep->mask + 1 &&
		    (rc = deep_compact(st)) < 0)
			return rc;
		deep_set(st->deep, ent, st->n - 1);
		return TK_OK;
	}
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
