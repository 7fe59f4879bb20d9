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

/* the index of a deep stack (synth.c) */
typedef struct tk_synth_deep tk_synth_deep;

/*
 * A running stack: s[0..n), the top last.  A shallow one is searched from
 * the top.  One that has grown deep (tasks started and never terminated)
 * has an index of where each entity is (`deep`, synth.c), and an entity
 * taken out from below the top is only marked (ent TK_NONE) until the
 * marks are many.  Every push and pop of a deep stack goes to synth.c,
 * which keeps the top a live entry: the inline readers of the top see the
 * same stack either way.
 */
typedef struct tk_synth_stack {
	tk_synth_slot *s;                /* never NULL once set up */
	uint32_t n, cap;
	tk_synth_slot scratch;           /* written instead when not pushing */
	tk_synth_deep *deep;             /* NULL while shallow */
} tk_synth_stack;

typedef struct tk_synth {
	const tk_synth_rules *rules;
	int64_t *acts, *starts;        /* per entity id */
	uint32_t cap_ent;
	tk_synth_stack *procs, *runs;  /* per core slot */
	uint32_t ncores, cap_cores;    /* slots set up, allocated */
} tk_synth;

/** The synthesis kind of a common-model type. */
int tk_synth_kind(tk_etype et);
int tk_synth_init(tk_synth *s, const tk_synth_rules *rules, uint32_t ncores);
void tk_synth_free(tk_synth *s);
/**
 * Start again as at the beginning of a trace (a recording of its own, as
 * an ATF TraceData): no entity running, every instance counter at zero.
 */
void tk_synth_reset(tk_synth *s);
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
 * an empty stack, nothing) are done without a branch on `what`; the rest,
 * and every push and pop on a deep stack (its index must follow), go to
 * synth.c.  The stacks always have room (tk_synth_cores).
 */
static inline int tk_synth_apply_(tk_synth_stack *st, unsigned what,
				  uint32_t target, int64_t inst)
{
	uint32_t n = st->n, nz = n != 0, top, w, deep = st->deep != NULL;
	uint32_t is_push = what == TK_SYN_PUSH, is_pop = what == TK_SYN_POP;
	tk_synth_slot *ws;

	top = nz & (st->s[n - nz].ent == target);
	if (TK_UNLIKELY((what != TK_SYN_KEEP) & ((nz & !top) | deep))) {
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

/*
 * What an event of one kind on a target of one synthesis kind does,
 * worked out once (a reader does it per event type of its tables).
 */
typedef struct tk_synth_op {
	uint8_t sk;        /* TK_SK_* */
	uint8_t what;      /* TK_SYN_* on the stack of sk (process, runnable) */
	uint8_t is_act;    /* an activate of a process */
	uint8_t is_start;  /* a start of a process, runnable or block */
} tk_synth_op;

static inline tk_synth_op tk_synth_op_make(const tk_synth_rules *rules,
					   int sk, tk_evkind kind)
{
	unsigned k = (unsigned)kind < TK_EV_COUNT ? (unsigned)kind : 0;
	tk_synth_op op;

	op.sk = (uint8_t)sk;
	op.what = sk == TK_SK_PROCESS ? rules->proc[k]
		  : sk == TK_SK_RUNNABLE ? rules->run[k] : TK_SYN_KEEP;
	op.is_act = sk == TK_SK_PROCESS && kind == TK_EV_ACTIVATE;
	op.is_start = sk != TK_SK_OTHER && kind == TK_EV_START;
	return op;
}

/*
 * The first half of an event's synthesis: the target's instance, from the
 * per-entity counters alone (so that it may run apart from the second
 * half, in the same event order).  TK_OK or TK_E_NOMEM.
 *
 * An activate takes the next activation (processes), a start the next
 * start (and raises the activations to it), any other event the instance
 * started last; an entity first seen mid-instance (no start yet) gets
 * instance 0 (its counters become 1).  Signals and semaphores have no
 * instances (0).  Computed without a branch, for any kind of target: the
 * kinds come in no order a predictor could learn.  (A runnable's or a
 * signal's activation counter is never read, so what the formula leaves
 * in it does not matter.)
 */
static inline int64_t tk_synth_count_(int64_t *acts, int64_t *starts,
				      uint32_t is_act, uint32_t is_start,
				      uint32_t counted, uint32_t target)
{
	/* the activations never trail the starts (a start raises them), so
	 * "raise to the start" is a max */
	int64_t a = acts[target], st = starts[target], ns, inst;

	ns = st + is_start;
	ns = ns > 1 ? ns : 1;
	inst = tk_synth_sel_(is_act, a, ns - 1);
	starts[target] = tk_synth_sel_(is_act, st, ns);
	acts[target] = tk_synth_sel_(is_act, a + 1, a > ns ? a : ns);
	return tk_synth_sel_(counted, inst, 0);
}

static inline int tk_synth_inst_inline(tk_synth *s, tk_synth_op op,
				       uint32_t target, int64_t *tgt_inst)
{
	if (TK_UNLIKELY(target >= s->cap_ent) && tk_synth_grow(s, target) < 0)
		return TK_E_NOMEM;
	*tgt_inst = tk_synth_count_(s->acts, s->starts, op.is_act, op.is_start,
				    op.sk < TK_SK_OTHER, target);
	return TK_OK;
}

/*
 * The second half: the source and its instance from the running stacks of
 * one core slot (`procs` and `runs`: &s->procs[slot], &s->runs[slot]),
 * and the stacks updated with the target (instance `inst`, from the first
 * half).  TK_OK or TK_E_NOMEM.  (The stacks are read into locals before
 * anything is stored: the stores through src and src_inst could otherwise
 * alias them, and every load would be done twice.)
 */
static inline int tk_synth_stack_inline(tk_synth_stack *procs,
					tk_synth_stack *runs, uint32_t core,
					uint32_t fallback, tk_synth_op op,
					uint32_t target, int64_t inst,
					uint32_t *src, int64_t *src_inst)
{
	uint32_t np = procs->n, se = core != TK_NONE ? core : fallback;
	int64_t si = 0;
	int rc = TK_OK;

	switch (op.sk) {
	case TK_SK_PROCESS:
		rc = tk_synth_apply_(procs, op.what, target, inst);
		break;
	case TK_SK_RUNNABLE:
		if (np) {
			const tk_synth_slot top = procs->s[np - 1];
			se = top.ent;
			si = top.inst;
		}
		rc = tk_synth_apply_(runs, op.what, target, inst);
		break;
	case TK_SK_BLOCK:
		if (runs->n) {
			const tk_synth_slot top = runs->s[runs->n - 1];
			se = top.ent;
			si = top.inst;
		} else if (np) {
			const tk_synth_slot top = procs->s[np - 1];
			se = top.ent;
			si = top.inst;
		}
		break;
	default:
		/* signals, semaphores (and unknown types): the running process */
		if (np) {
			const tk_synth_slot top = procs->s[np - 1];
			se = top.ent;
			si = top.inst;
		}
		break;
	}
	*src = se;
	*src_inst = si;
	return rc;
}

/* Both halves at once. */
static inline int tk_synth_event_inline(tk_synth *s, uint32_t slot,
					uint32_t core, uint32_t fallback,
					int sk, tk_evkind kind,
					uint32_t target, uint32_t *src,
					int64_t *src_inst, int64_t *tgt_inst)
{
	tk_synth_op op = tk_synth_op_make(s->rules, sk, kind);

	if (tk_synth_inst_inline(s, op, target, tgt_inst) < 0)
		return TK_E_NOMEM;
	return tk_synth_stack_inline(&s->procs[slot], &s->runs[slot], core,
				     fallback, op, target, *tgt_inst, src,
				     src_inst);
}

#endif
