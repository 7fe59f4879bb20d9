/*
 * htf_vocab.c - the HTF vocabulary (the spec's TypeTable and six event
 * tables), its mapping to the common model, and the rules that synthesise
 * what HTF does not record (instances, sources).  See docs/mappings.md.
 */
#include "htf.h"

#include <stdlib.h>
#include <string.h>

static const char *const type_names[HTF_NTYPES] = {
	"Task", "ISR", "Runnable", "CodeBlock", "Signal", "Semaphore"
};

static const tk_etype type_etypes[HTF_NTYPES] = {
	TK_ET_T, TK_ET_I, TK_ET_R, TK_ET_IB, TK_ET_SIG, TK_ET_SEM
};

/* The spec's tables (section 3.2); the index is the spec's id. */
static const htf_event_name task_ev[] = {
	{ "activate", TK_EV_ACTIVATE }, { "start", TK_EV_START },
	{ "resume", TK_EV_RESUME }, { "preempt", TK_EV_PREEMPT },
	{ "terminate", TK_EV_TERMINATE }, { "wait", TK_EV_WAIT },
	{ "release", TK_EV_RELEASE }, { "poll", TK_EV_POLL },
	{ "run_polling", TK_EV_RUN }, { "park", TK_EV_PARK },
	{ "poll_parking", TK_EV_POLL_PARKING },
	{ "release_parking", TK_EV_RELEASE_PARKING },
};
static const htf_event_name isr_ev[] = {
	{ "start", TK_EV_START }, { "resume", TK_EV_RESUME },
	{ "preempt", TK_EV_PREEMPT }, { "terminate", TK_EV_TERMINATE },
};
static const htf_event_name runnable_ev[] = {
	{ "start", TK_EV_START }, { "suspend", TK_EV_SUSPEND },
	{ "resume", TK_EV_RESUME }, { "terminate", TK_EV_TERMINATE },
};
static const htf_event_name codeblock_ev[] = {
	{ "start", TK_EV_START }, { "stop", TK_EV_TERMINATE },
};
static const htf_event_name signal_ev[] = {
	{ "read", TK_EV_READ }, { "write", TK_EV_WRITE },
};
static const htf_event_name semaphore_ev[] = {
	{ "lock", TK_EV_LOCK }, { "unlock", TK_EV_UNLOCK },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const htf_event_name *ev;
	size_t n;
} tables[HTF_NTYPES] = {
	{ task_ev, N(task_ev) }, { isr_ev, N(isr_ev) },
	{ runnable_ev, N(runnable_ev) }, { codeblock_ev, N(codeblock_ev) },
	{ signal_ev, N(signal_ev) }, { semaphore_ev, N(semaphore_ev) },
};

const char *htf_type_name(int t)
{
	return t >= 0 && t < HTF_NTYPES ? type_names[t] : "?";
}

tk_etype htf_type_etype(int t)
{
	return t >= 0 && t < HTF_NTYPES ? type_etypes[t] : TK_ET_OTHER;
}

int htf_type_of_etype(tk_etype et)
{
	int t;

	for (t = 0; t < HTF_NTYPES; t++)
		if (type_etypes[t] == et)
			return t;
	return -1;
}

int htf_type_lookup(const char *s, size_t len)
{
	int t;

	for (t = 0; t < HTF_NTYPES; t++)
		if (tk_ascii_casecmp(s, len, type_names[t]) == 0)
			return t;
	return -1;
}

const htf_event_name *htf_events(int t, size_t *n)
{
	if (t < 0 || t >= HTF_NTYPES) {
		*n = 0;
		return NULL;
	}
	*n = tables[t].n;
	return tables[t].ev;
}

int htf_event_id(int t, tk_evkind kind)
{
	size_t i;

	if (t < 0 || t >= HTF_NTYPES)
		return -1;
	if (t == HTF_CODEBLOCK && kind == TK_EV_STOP)
		return 1;
	for (i = 0; i < tables[t].n; i++)
		if (tables[t].ev[i].kind == kind)
			return (int)i;
	return -1;
}

/* ---- synthesis ---------------------------------------------------------- */

int htf_synth_init(htf_synth *s, uint32_t ncores)
{
	memset(s, 0, sizeof(*s));
	return htf_synth_cores(s, ncores);
}

void htf_synth_free(htf_synth *s)
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

int htf_synth_cores(htf_synth *s, uint32_t n)
{
	htf_stack *p, *r;

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

static int grow_ent(htf_synth *s, uint32_t id)
{
	uint32_t ncap;
	int64_t *a, *b;

	if (id < s->cap_ent)
		return TK_OK;
	ncap = s->cap_ent ? s->cap_ent : 64;
	while (ncap <= id)
		ncap *= 2;
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

static void stack_remove(htf_stack *st, uint32_t ent)
{
	uint32_t i;

	for (i = st->n; i-- > 0;) {
		if (st->s[i].ent == ent) {
			memmove(&st->s[i], &st->s[i + 1],
				(st->n - i - 1) * sizeof(st->s[0]));
			st->n--;
			return;
		}
	}
}

static int stack_push(htf_stack *st, uint32_t ent, int64_t inst)
{
	stack_remove(st, ent);
	if (st->n == st->cap) {
		uint32_t ncap = st->cap ? st->cap * 2 : 8;
		htf_slot *n = tk_xrealloc_array(st->s, ncap, sizeof(*n));
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
static int64_t current(htf_synth *s, uint32_t e)
{
	if (s->starts[e] == 0) {
		s->starts[e] = 1;
		if (s->acts[e] < 1)
			s->acts[e] = 1;
	}
	return s->starts[e] - 1;
}

int htf_synth_event(htf_synth *s, uint32_t slot, uint32_t core, int t,
		    tk_evkind kind, uint32_t target, uint32_t *src,
		    int64_t *src_inst, int64_t *tgt_inst)
{
	htf_stack *procs = &s->procs[slot], *runs = &s->runs[slot];
	int64_t inst;

	if (grow_ent(s, target) < 0)
		return TK_E_NOMEM;
	*src = core;
	*src_inst = 0;
	switch (t) {
	case HTF_TASK:
	case HTF_ISR:
		if (kind == TK_EV_ACTIVATE) {
			inst = s->acts[target]++;
		} else if (kind == TK_EV_START) {
			inst = s->starts[target]++;
			if (s->acts[target] < s->starts[target])
				s->acts[target] = s->starts[target];
		} else {
			inst = current(s, target);
		}
		switch (kind) {
		case TK_EV_START: case TK_EV_RESUME: case TK_EV_RUN:
		case TK_EV_POLL: case TK_EV_POLL_PARKING:
			if (stack_push(procs, target, inst) < 0)
				return TK_E_NOMEM;
			break;
		case TK_EV_PREEMPT: case TK_EV_TERMINATE: case TK_EV_WAIT:
		case TK_EV_PARK: case TK_EV_RELEASE_PARKING:
			stack_remove(procs, target);
			break;
		default:
			break;
		}
		*tgt_inst = inst;
		return TK_OK;
	case HTF_RUNNABLE:
	case HTF_CODEBLOCK:
		if (t == HTF_CODEBLOCK && runs->n) {
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
		if (t == HTF_RUNNABLE) {
			if (kind == TK_EV_START || kind == TK_EV_RESUME) {
				if (stack_push(runs, target, inst) < 0)
					return TK_E_NOMEM;
			} else if (kind == TK_EV_SUSPEND ||
				   kind == TK_EV_TERMINATE) {
				stack_remove(runs, target);
			}
		}
		*tgt_inst = inst;
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
