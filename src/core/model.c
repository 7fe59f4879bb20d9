/* model.c - names of the entity types and event kinds of the event model. */
#include "internal.h"

static const char *const etype_names[TK_ET_COUNT] = {
	[TK_ET_UNKNOWN] = "?",   [TK_ET_STI] = "STI",   [TK_ET_T] = "T",
	[TK_ET_I] = "I",         [TK_ET_R] = "R",       [TK_ET_IB] = "IB",
	[TK_ET_ECU] = "ECU",     [TK_ET_P] = "P",       [TK_ET_C] = "C",
	[TK_ET_M] = "M",         [TK_ET_SCHED] = "SCHED", [TK_ET_SIG] = "SIG",
	[TK_ET_SEM] = "SEM",     [TK_ET_EVENT] = "EVENT", [TK_ET_SIM] = "SIM",
	[TK_ET_SYS] = "SYS",     [TK_ET_THR] = "THR",   [TK_ET_SYSC] = "SYSC",
	[TK_ET_OTHER] = "other",
};

const char *tk_etype_name(tk_etype type)
{
	if ((unsigned)type >= TK_ET_COUNT)
		return "?";
	return etype_names[type];
}

int tk_etype_is_process(tk_etype type)
{
	return type == TK_ET_T || type == TK_ET_I || type == TK_ET_THR;
}

static const char *const evkind_names[TK_EV_COUNT] = {
	[TK_EV_OTHER] = "?",
	[TK_EV_ACTIVATE] = "activate",
	[TK_EV_START] = "start",
	[TK_EV_PREEMPT] = "preempt",
	[TK_EV_RESUME] = "resume",
	[TK_EV_TERMINATE] = "terminate",
	[TK_EV_POLL] = "poll",
	[TK_EV_RUN] = "run",
	[TK_EV_PARK] = "park",
	[TK_EV_POLL_PARKING] = "poll_parking",
	[TK_EV_RELEASE_PARKING] = "release_parking",
	[TK_EV_WAIT] = "wait",
	[TK_EV_RELEASE] = "release",
	[TK_EV_MTALIMITEXCEEDED] = "mtalimitexceeded",
	[TK_EV_INTERRUPT_SUSPENDED] = "interrupt_suspended",
	[TK_EV_BOUNDEDMIGRATION] = "boundedmigration",
	[TK_EV_PHASEMIGRATION] = "phasemigration",
	[TK_EV_FULLMIGRATION] = "fullmigration",
	[TK_EV_ENFORCEDMIGRATION] = "enforcedmigration",
	[TK_EV_NOWAIT] = "nowait",
	[TK_EV_DEADLINE] = "deadline",
	[TK_EV_SUSPEND] = "suspend",
	[TK_EV_TRIGGER] = "trigger",
	[TK_EV_SCHEDULE] = "schedule",
	[TK_EV_SCHEDULEPOINT] = "schedulepoint",
	[TK_EV_PROCESSACTIVATE] = "processactivate",
	[TK_EV_PROCESSPOLLING] = "processpolling",
	[TK_EV_PROCESSTERMINATE] = "processterminate",
	[TK_EV_READ] = "read",
	[TK_EV_WRITE] = "write",
	[TK_EV_WAIT_EVENT] = "wait_event",
	[TK_EV_SET_EVENT] = "set_event",
	[TK_EV_CLEAR_EVENT] = "clear_event",
	[TK_EV_READY] = "ready",
	[TK_EV_LOCK] = "lock",
	[TK_EV_UNLOCK] = "unlock",
	[TK_EV_FREE] = "free",
	[TK_EV_USED] = "used",
	[TK_EV_FULL] = "full",
	[TK_EV_OVERFULL] = "overfull",
	[TK_EV_UNLOCK_FULL] = "unlock_full",
	[TK_EV_LOCK_USED] = "lock_used",
	[TK_EV_REQUESTSEMAPHORE] = "requestsemaphore",
	[TK_EV_EXCLUSIVESEMAPHORE] = "exclusivesemaphore",
	[TK_EV_RELEASESEMAPHORE] = "releasesemaphore",
	[TK_EV_INCREMENT] = "increment",
	[TK_EV_DECREMENT] = "decrement",
	[TK_EV_QUEUED] = "queued",
	[TK_EV_ASSIGNED] = "assigned",
	[TK_EV_WAITING] = "waiting",
	[TK_EV_RELEASED] = "released",
	[TK_EV_FINALIZE] = "finalize",
	[TK_EV_ERROR] = "error",
	[TK_EV_TAG] = "tag",
	[TK_EV_DESCRIPTION] = "description",
	[TK_EV_STOP] = "stop",
	[TK_EV_SET_FREQUENCE] = "set_frequence",
	[TK_EV_EXECUTE] = "execute",
	[TK_EV_IDLE] = "idle",
	[TK_EV_EXECUTE_IDLE] = "execute_idle",
	[TK_EV_IDLE_EXECUTION] = "idle_execution",
	[TK_EV_EXECUTE_WAITING] = "execute_waiting",
	[TK_EV_WAIT_POSTEXECUTION] = "wait_postexecution",
};

const char *tk_evkind_name(tk_evkind kind)
{
	if ((unsigned)kind >= TK_EV_COUNT || !evkind_names[kind])
		return "?";
	return evkind_names[kind];
}
