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

const tk_synth_rules htf_synth_rules = {
	.proc = {
		[TK_EV_START] = TK_SYN_PUSH, [TK_EV_RESUME] = TK_SYN_PUSH,
		[TK_EV_RUN] = TK_SYN_PUSH, [TK_EV_POLL] = TK_SYN_PUSH,
		[TK_EV_POLL_PARKING] = TK_SYN_PUSH,
		[TK_EV_PREEMPT] = TK_SYN_POP, [TK_EV_TERMINATE] = TK_SYN_POP,
		[TK_EV_WAIT] = TK_SYN_POP, [TK_EV_PARK] = TK_SYN_POP,
		[TK_EV_RELEASE_PARKING] = TK_SYN_POP,
	},
	.run = {
		[TK_EV_START] = TK_SYN_PUSH, [TK_EV_RESUME] = TK_SYN_PUSH,
		[TK_EV_SUSPEND] = TK_SYN_POP, [TK_EV_TERMINATE] = TK_SYN_POP,
	},
};

int htf_synth_kind(int t)
{
	switch (t) {
	case HTF_TASK: case HTF_ISR: return TK_SK_PROCESS;
	case HTF_RUNNABLE: return TK_SK_RUNNABLE;
	case HTF_CODEBLOCK: return TK_SK_BLOCK;
	default: return TK_SK_OTHER;
	}
}
