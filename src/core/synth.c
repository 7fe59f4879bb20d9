/*
 * synth.c - instance and source synthesis shared by the HTF and ATF readers
 * and writers (see synth.h).
 */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

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
	uint32_t i;

	if (n <= s->ncores)
		return TK_OK;
	p = tk_xrealloc_array(s->procs, n, sizeof(*p));
	if (!p)
		return TK_E_NOMEM;
	s->procs = p;
	r = tk_xrealloc_array(s->runs, n, sizeof(*r));
	if (!r)
		return TK_E_NOMEM;
	s->runs = r;
	memset(p + s->ncores, 0, (n - s->ncores) * sizeof(*p));
	memset(r + s->ncores, 0, (n - s->ncores) * sizeof(*r));
	i = s->ncores;
	s->ncores = n;
	/* room from the start: tk_synth_apply_() reads the top unchecked */
	for (; i < n; i++) {
		p[i].s = calloc(8, sizeof(*p[i].s));
		r[i].s = calloc(8, sizeof(*r[i].s));
		if (!p[i].s || !r[i].s)
			return TK_E_NOMEM;
		p[i].cap = r[i].cap = 8;
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

void tk_synth_stack_remove(tk_synth_stack *st, uint32_t ent)
{
	uint32_t i;

	if (st->n && st->s[st->n - 1].ent == ent) { /* the usual case */
		st->n--;
		return;
	}
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
	tk_synth_stack_remove(st, ent);
	if (TK_UNLIKELY(st->n == st->cap)) {
		uint32_t ncap = st->cap ? st->cap * 2 : 8;
		tk_synth_slot *n = tk_xrealloc_array(st->s, ncap, sizeof(*n));
		if (!n)
			return TK_E_NOMEM;
		st->s = n;
		st->cap = ncap;
	}
	st->s[st->n].ent = ent;
	st->s[st->n].inst = inst;
	st->n++;
	return TK_OK;
}

int tk_synth_event(tk_synth *s, uint32_t slot, uint32_t core,
		   uint32_t fallback, int sk, tk_evkind kind, uint32_t target,
		   uint32_t *src, int64_t *src_inst, int64_t *tgt_inst)
{
	return tk_synth_event_inline(s, slot, core, fallback, sk, kind, target,
				     src, src_inst, tgt_inst);
}
