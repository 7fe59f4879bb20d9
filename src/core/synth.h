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
	tk_synth_slot *s;
	uint32_t n, cap;
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
 * TK_OK or TK_E_NOMEM.
 */
int tk_synth_event(tk_synth *s, uint32_t slot, uint32_t core,
		   uint32_t fallback, int sk, tk_evkind kind, uint32_t target,
		   uint32_t *src, int64_t *src_inst, int64_t *tgt_inst);

#endif
