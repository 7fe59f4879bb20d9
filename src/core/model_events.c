/*
 * model_events.c - which events each type of the event model accepts: by
 * the specifications (BTF 2.1.5 and 2.3.0, whose table the model's is, and
 * the core events of Vector's 2.2.1 toolchain), and in the dialects of real
 * producers (specs/btf-2.x-reference.md).  Every format that checks events
 * by type reads this table (model.h).
 */
#include "model.h"

/* Events of each group, by the specifications (strict). */
static const tk_evkind ev_process[] = {
	TK_EV_ACTIVATE, TK_EV_START, TK_EV_PREEMPT, TK_EV_RESUME,
	TK_EV_TERMINATE, TK_EV_POLL, TK_EV_RUN, TK_EV_PARK,
	TK_EV_POLL_PARKING, TK_EV_RELEASE_PARKING, TK_EV_WAIT,
	TK_EV_RELEASE, TK_EV_MTALIMITEXCEEDED, TK_EV_BOUNDEDMIGRATION,
	TK_EV_PHASEMIGRATION, TK_EV_FULLMIGRATION, TK_EV_ENFORCEDMIGRATION,
};
static const tk_evkind ev_runnable[] = {
	TK_EV_START, TK_EV_SUSPEND, TK_EV_RESUME, TK_EV_TERMINATE,
};
static const tk_evkind ev_stimulus[] = { TK_EV_TRIGGER };
static const tk_evkind ev_sched[] = {
	TK_EV_SCHEDULE, TK_EV_SCHEDULEPOINT, TK_EV_PROCESSACTIVATE,
	TK_EV_PROCESSPOLLING, TK_EV_PROCESSTERMINATE, TK_EV_FINALIZE,
};
static const tk_evkind ev_signal[] = { TK_EV_READ, TK_EV_WRITE };
static const tk_evkind ev_osevent[] = {
	TK_EV_WAIT_EVENT, TK_EV_SET_EVENT, TK_EV_CLEAR_EVENT,
};
static const tk_evkind ev_sem[] = {
	TK_EV_READY, TK_EV_LOCK, TK_EV_UNLOCK, TK_EV_FINALIZE,
	TK_EV_REQUESTSEMAPHORE, TK_EV_EXCLUSIVESEMAPHORE,
	TK_EV_RELEASESEMAPHORE, TK_EV_TRIGGER, TK_EV_INCREMENT,
	TK_EV_DECREMENT, TK_EV_QUEUED, TK_EV_ASSIGNED, TK_EV_WAITING,
	TK_EV_RELEASED, TK_EV_FREE, TK_EV_USED, TK_EV_FULL, TK_EV_OVERFULL,
	TK_EV_UNLOCK_FULL, TK_EV_LOCK_USED,
};
static const tk_evkind ev_sim[] = {
	TK_EV_FINALIZE, TK_EV_ERROR, TK_EV_TAG, TK_EV_DESCRIPTION,
};
static const tk_evkind ev_sys[] = { TK_EV_START, TK_EV_STOP };
static const tk_evkind ev_core[] = {
	TK_EV_SET_FREQUENCE, TK_EV_EXECUTE, TK_EV_IDLE,
};
/* dialect extras (lenient only, with a warning) */
static const tk_evkind ev_process_dialect[] = {
	TK_EV_NOWAIT, TK_EV_DEADLINE,
};
static const tk_evkind ev_core_dialect[] = {
	TK_EV_EXECUTE_IDLE, TK_EV_IDLE_EXECUTION, TK_EV_EXECUTE_WAITING,
	TK_EV_WAIT_POSTEXECUTION, TK_EV_LOCK, TK_EV_UNLOCK,
};

/* [type][kind]: 0 not defined, 1 spec, 2 dialect */
static uint8_t allowed[TK_ET_COUNT][TK_EV_COUNT];
static tk_once allowed_once = TK_ONCE_INIT;

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void allow(tk_etype t, const tk_evkind *k, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!allowed[t][k[i]])
			allowed[t][k[i]] = v;
}

static void init_allowed(void)
{
	static const tk_etype procs[] = { TK_ET_T, TK_ET_I, TK_ET_THR };
	size_t i;

	for (i = 0; i < N(procs); i++) {
		allow(procs[i], ev_process, N(ev_process), 1);
		allow(procs[i], ev_process_dialect, N(ev_process_dialect), 2);
	}
	/* 2.2+: interrupt_suspended is for ISRs only */
	allowed[TK_ET_I][TK_EV_INTERRUPT_SUSPENDED] = 1;
	allowed[TK_ET_T][TK_EV_INTERRUPT_SUSPENDED] = 2;
	allow(TK_ET_R, ev_runnable, N(ev_runnable), 1);
	allow(TK_ET_SYSC, ev_runnable, N(ev_runnable), 1);
	/* instruction blocks are sub-fractions of runnables; 2.1.5 names no
	 * events for them, the runnable ones are the natural reading */
	allow(TK_ET_IB, ev_runnable, N(ev_runnable), 1);
	allow(TK_ET_STI, ev_stimulus, N(ev_stimulus), 1);
	allow(TK_ET_SCHED, ev_sched, N(ev_sched), 1);
	allow(TK_ET_SIG, ev_signal, N(ev_signal), 1);
	allow(TK_ET_EVENT, ev_osevent, N(ev_osevent), 1);
	allow(TK_ET_SEM, ev_sem, N(ev_sem), 1);
	allow(TK_ET_SIM, ev_sim, N(ev_sim), 1);
	allow(TK_ET_SYS, ev_sys, N(ev_sys), 1);
	allow(TK_ET_C, ev_core, N(ev_core), 1);
	allow(TK_ET_C, ev_core_dialect, N(ev_core_dialect), 2);
}

const uint8_t (*tk_model_event_table(void))[TK_EV_COUNT]
{
	tk_once_run(&allowed_once, init_allowed);
	return (const uint8_t (*)[TK_EV_COUNT])allowed;
}
