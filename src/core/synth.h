/*
 * synth.h - the synthesis of what HTF and ATF do not record: instance
 * numbers and the source of each event (docs/mappings.md).  The readers
 * run it to fill events; the writers run the same rules to count what a
 * read-back would not restore.
 *
 * Processes get an instance per activate (or per start where no activate
 * came first), runnables and code blocks per start; an event on a runnable
 * or a code block has as its source the process (or, for a block, the
 * runnable) running on its core; other events (signals, semaphores) the
 * running process.  Which event kinds put an entity on top of the running
 * stack of its core and which take it off is given per format (the rules).
 */
#ifndef TK_SYNTH_H
#define TK_SYNTH_H

#include "internal.h"

/* What the synthesis needs to know of a target. */
enum { TK_SK_PROCESS, TK_SK_RUNNABLE, TK_SK_BLOCK, TK_SK_OTHER };

/* what an event kind does to the running stacks */
enum { TK_SYN_KEEP = 0, TK_SYN_PUSH = 1, TK_SYN_POP = 2 };

typedef struct tk_synth_rules {
	uint8_t proc[TK_EV_COUNT];  /* on the process stack */
	uint8_t run[TK_EV_COUNT];   /* on the runnable stack */
} tk_synth_rules;

typedef struct tk_synth_slot {
	uint32_t ent;
	int64_t inst;
} tk_synth_slot;

typedef struct tk_synth_stack {
	tk_synth_slot *s;                /* never NULL once set up */
	uint32_t n, cap;
	tk_synth_slot scratch;           /* written instead when not pushing */
} tk_synth_stack;

typedef struct tk_synth {
	const tk_synth_rules *rules;
	int64_t *acts, *starts;        /* per entity id */
	uint32_t cap_ent;
	tk_synth_stack *procs, *runs;  /* per core slot */
	uint32_t ncores;
} tk_synth;

/** The synthesis kind of a common-model type. */
int tk_synth_kind(tk_etype et);
int tk_synth_init(tk_synth *s, const tk_synth_rules *rules, uint32_t ncores);
void tk_synth_free(tk_synth *s);
/** Add core slots up to n.  TK_OK or TK_E_NOMEM. */
int tk_synth_cores(tk_synth *s, uint32_t n);
/**
 * An event of kind `kind` on `target` (synthesis kind sk) in core slot
 * `slot` whose core entity is `core` (TK_NONE: the source falls back to
 * `fallback`): fills the source, its instance and the target instance.
 * TK_OK or TK_E_NOMEM.  (tk_synth_event_inline() is the same, inlined into
 * a reader's per-event loop.)
 */
int tk_synth_event(tk_synth *s, uint32_t slot, uint32_t core,
		   uint32_t fallback, int sk, tk_evkind kind, uint32_t target,
		   uint32_t *src, int64_t *src_inst, int64_t *tgt_inst);

/* the slow paths of the inline code below (synth.c) */
int tk_synth_grow(tk_synth *s, uint32_t id);
int tk_synth_stack_push(tk_synth_stack *st, uint32_t ent, int64_t inst);
void tk_synth_stack_remove(tk_synth_stack *st, uint32_t ent);

/* c ? x : y (a mask was tried, to spare the compiler's branches: more
 * instructions, and slower than the branches it saved) */
static inline int64_t tk_synth_sel_(uint32_t c, int64_t x, int64_t y)
{
	return c ? x : y;
}

/*
 * Instances: an activate takes the next activation number, a start the
 * next start number (and raises the activations to it); any other event
 * refers to the instance started last, and an entity first seen
 * mid-instance (no start yet) gets instance 0 (its counters become 1).
 */

/*
 * What an event does to a running stack (TK_SYN_*): a push takes the entity
 * out first if it is on the stack already.  The usual cases (a push on an
 * empty stack or of the entity on top, a pop of the entity on top or from
 * an empty stack, nothing) are done without a branch on `what`; the rest
 * go to synth.c.  The stacks always have room (tk_synth_cores).
 */
static inline int tk_synth_apply_(tk_synth_stack *st, unsigned what,
				  uint32_t target, int64_t inst)
{
	uint32_t n = st->n, nz = n != 0, top, w;
	uint32_t is_push = what == TK_SYN_PUSH, is_pop = what == TK_SYN_POP;
	tk_synth_slot *ws;

	top = nz & (st->s[n - nz].ent == target);
	if (TK_UNLIKELY((is_push | is_pop) & nz & !top)) {
		if (is_push)
			return tk_synth_stack_push(st, target, inst);
		tk_synth_stack_remove(st, target);
		return TK_OK;
	}
	w = n - top;                      /* where a push goes */
	ws = (tk_synth_slot *)(uintptr_t)tk_synth_sel_(
		is_push, (int64_t)(uintptr_t)&st->s[w],
		(int64_t)(uintptr_t)&st->scratch);
	ws->ent = target;
	ws->inst = inst;
	st->n = (uint32_t)tk_synth_sel_(is_push, w + 1, n - (is_pop & top));
	return TK_OK;
}

static inline int tk_synth_event_inline(tk_synth *s, uint32_t slot,
					uint32_t core, uint32_t fallback,
					int sk, tk_evkind kind,
					uint32_t target, uint32_t *src,
					int64_t *src_inst, int64_t *tgt_inst)
{
	tk_synth_stack *procs = &s->procs[slot], *runs = &s->runs[slot];
	unsigned k = (unsigned)kind < TK_EV_COUNT ? (unsigned)kind : 0;
	int64_t inst;

	if (TK_UNLIKELY(target >= s->cap_ent) && tk_synth_grow(s, target) < 0)
		return TK_E_NOMEM;
	*src = core != TK_NONE ? core : fallback;
	*src_inst = 0;
	switch (sk) {
	case TK_SK_PROCESS: {
		/* activate: the next activation; start: the next start (and
		 * at least as many activations); other: the instance started
		 * last -- computed without branches, the kinds come in no
		 * order a predictor could learn */
		int64_t a = s->acts[target], st = s->starts[target], ns, na;
		uint32_t is_act = kind == TK_EV_ACTIVATE,
			 is_start = kind == TK_EV_START;
		ns = st + is_start;
		ns |= (int64_t)(ns == 0);
		na = tk_synth_sel_((is_start | (st == 0)) & (a < ns), ns, a);
		inst = tk_synth_sel_(is_act, a, ns - 1);
		s->starts[target] = tk_synth_sel_(is_act, st, ns);
		s->acts[target] = tk_synth_sel_(is_act, a + 1, na);
		*tgt_inst = inst;
		return tk_synth_apply_(procs, s->rules->proc[k], target, inst);
	}
	case TK_SK_RUNNABLE:
	case TK_SK_BLOCK:
		if (sk == TK_SK_BLOCK && runs->n) {
			*src = runs->s[runs->n - 1].ent;
			*src_inst = runs->s[runs->n - 1].inst;
		} else if (procs->n) {
			*src = procs->s[procs->n - 1].ent;
			*src_inst = procs->s[procs->n - 1].inst;
		}
		{
			/* start: the next start; other: the one started
			 * last, without a branch */
			int64_t st = s->starts[target], ns;
			int is_start = kind == TK_EV_START;
			ns = st + is_start;
			ns |= (int64_t)(ns == 0);
			s->starts[target] = ns;
			inst = ns - 1;
			if (TK_UNLIKELY((st == 0) & !is_start) &&
			    s->acts[target] < 1)
				s->acts[target] = 1;
		}
		*tgt_inst = inst;
		if (sk == TK_SK_RUNNABLE)
			return tk_synth_apply_(runs, s->rules->run[k], target,
					       inst);
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

#endif
