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
	s->ncores = n;
	return TK_OK;
}

static int grow_ent(tk_synth *s, uint32_t id)
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

static void stack_remove(tk_synth_stack *st, uint32_t ent)
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

static int stack_push(tk_synth_stack *st, uint32_t ent, int64_t inst)
{
	stack_remove(st, ent);
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

/* The instance an event other than a (re)start refers to: the one started
 * last; an entity first seen mid-instance gets instance 0. */
static int64_t current(tk_synth *s, uint32_t e)
{
	if (s->starts[e] == 0) {
		s->starts[e] = 1;
		if (s->acts[e] < 1)
			s->acts[e] = 1;
	}
	return s->starts[e] - 1;
}

static int apply(tk_synth_stack *st, unsigned what, uint32_t target,
		 int64_t inst)
{
	if (what == TK_SYN_PUSH)
		return stack_push(st, target, inst);
	if (what == TK_SYN_POP)
		stack_remove(st, target);
	return TK_OK;
}

int tk_synth_event(tk_synth *s, uint32_t slot, uint32_t core,
		   uint32_t fallback, int sk, tk_evkind kind, uint32_t target,
		   uint32_t *src, int64_t *src_inst, int64_t *tgt_inst)
{
	tk_synth_stack *procs = &s->procs[slot], *runs = &s->runs[slot];
	unsigned k = (unsigned)kind < TK_EV_COUNT ? (unsigned)kind : 0;
	int64_t inst;

	if (TK_UNLIKELY(target >= s->cap_ent) && grow_ent(s, target) < 0)
		return TK_E_NOMEM;
	*src = core != TK_NONE ? core : fallback;
	*src_inst = 0;
	switch (sk) {
	case TK_SK_PROCESS:
		if (kind == TK_EV_ACTIVATE) {
			inst = s->acts[target]++;
		} else if (kind == TK_EV_START) {
			inst = s->starts[target]++;
			if (s->acts[target] < s->starts[target])
				s->acts[target] = s->starts[target];
		} else {
			inst = current(s, target);
		}
		*tgt_inst = inst;
		return apply(procs, s->rules->proc[k], target, inst);
	case TK_SK_RUNNABLE:
	case TK_SK_BLOCK:
		if (sk == TK_SK_BLOCK && runs->n) {
			*src = runs->s[runs->n - 1].ent;
			*src_inst = runs->s[runs->n - 1].inst;
		} else if (procs->n) {
			*src = procs->s[procs->n - 1].ent;
			*src_inst = procs->s[procs->n - 1].inst;
		}
		if (kind == TK_EV_START)
			inst = s->starts[target]++;
		else
			inst = current(s, target);
		*tgt_inst = inst;
		if (sk == TK_SK_RUNNABLE)
			return apply(runs, s->rules->run[k], target, inst);
		return TK_OK;
	default:
		/* signals, semaphores (and unknown types): the running process */
		if (procs->n) {
			*src = procs->s[procs->n - 1].ent;
			*src_inst = procs->s[procs->n - 1].inst;
		}
		*tgt_inst = 0;
		return TK_OK;
	}
}
