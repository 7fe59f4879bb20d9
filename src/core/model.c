/*
 * model.c - the names of the entity types and event kinds of the event
 * model, and the rules every format shares (model.h).
 */
#include "model.h"

#include <string.h>

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

typedef struct {
	const char *name;
	tk_etype type;
	int dialect;     /* a producer's other spelling of a type */
} type_spelling;

static const type_spelling types[] = {
	{ "STI", TK_ET_STI, 0 },     { "T", TK_ET_T, 0 },
	{ "I", TK_ET_I, 0 },         { "ISR", TK_ET_I, 1 },
	{ "R", TK_ET_R, 0 },         { "IB", TK_ET_IB, 0 },
	{ "ECU", TK_ET_ECU, 0 },     { "P", TK_ET_P, 0 },
	{ "Processor", TK_ET_P, 0 }, { "C", TK_ET_C, 0 },
	{ "M", TK_ET_M, 0 },         { "SCHED", TK_ET_SCHED, 0 },
	{ "SIG", TK_ET_SIG, 0 },     { "SEM", TK_ET_SEM, 0 },
	{ "EVENT", TK_ET_EVENT, 0 }, { "SIM", TK_ET_SIM, 0 },
	{ "SYS", TK_ET_SYS, 0 },     { "THR", TK_ET_THR, 0 },
	{ "SYSC", TK_ET_SYSC, 0 },
};

int tk_etype_lookup(const char *s, size_t len, tk_etype *type, int *dialect)
{
	size_t i;

	/* the common one-letter types first: this runs for every line */
	if (len == 1) {
		switch (s[0]) {
		case 'T': *type = TK_ET_T; *dialect = 0; return 1;
		case 'R': *type = TK_ET_R; *dialect = 0; return 1;
		case 'I': *type = TK_ET_I; *dialect = 0; return 1;
		case 'C': *type = TK_ET_C; *dialect = 0; return 1;
		default: break;
		}
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i].name) == len &&
		    memcmp(types[i].name, s, len) == 0) {
			*type = types[i].type;
			*dialect = types[i].dialect;
			return 1;
		}
	}
	return 0;
}

typedef struct {
	const char *name;
	tk_evkind kind;
} spelling;

/* spellings of real producers that stand for a known event */
static const spelling variants[] = {
	{ "mpalimitexceeded", TK_EV_MTALIMITEXCEEDED },
	{ "mtalimitexceded", TK_EV_MTALIMITEXCEEDED },
	{ "set_frequency", TK_EV_SET_FREQUENCE },
};

tk_evkind tk_evkind_lookup(const char *s, size_t len, int *dialect)
{
	size_t i;
	int k;

	*dialect = 0;
	for (k = 1; k < TK_EV_COUNT; k++) {
		const char *n = tk_evkind_name((tk_evkind)k);
		if (strlen(n) == len && memcmp(n, s, len) == 0)
			return (tk_evkind)k;
	}
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		if (strlen(variants[i].name) == len &&
		    memcmp(variants[i].name, s, len) == 0) {
			*dialect = 1;
			return variants[i].kind;
		}
	}
	return TK_EV_OTHER;
}

tk_evkind tk_evkind_from_name(const char *s, size_t len)
{
	int dialect;

	return s ? tk_evkind_lookup(s, len, &dialect) : TK_EV_OTHER;
}

tk_etype tk_etype_from_name(const char *s, size_t len)
{
	tk_etype type;
	int dialect;

	if (!s || !len)
		return TK_ET_UNKNOWN;
	return tk_etype_lookup(s, len, &type, &dialect) ? type : TK_ET_OTHER;
}

tk_etype tk_implied_source_type(tk_etype type, tk_evkind kind)
{
	if (!tk_etype_is_process(type))
		return TK_ET_UNKNOWN;
	switch (kind) {
	case TK_EV_START: case TK_EV_PREEMPT: case TK_EV_RESUME:
	case TK_EV_TERMINATE: case TK_EV_POLL: case TK_EV_RUN:
	case TK_EV_PARK: case TK_EV_POLL_PARKING: case TK_EV_RELEASE_PARKING:
	case TK_EV_WAIT: case TK_EV_RELEASE:
		return TK_ET_C;
	case TK_EV_INTERRUPT_SUSPENDED:
		return TK_ET_SCHED;
	default:
		return TK_ET_UNKNOWN;
	}
}

int tk_entity_is_core(const tk_trace *t, uint32_t ent)
{
	const tk_entity *e = tk_trace_entity(t, ent);
	size_t n;
	uint64_t id;
	const char *s;

	if (!e)
		return 0;
	if (e->type == TK_ET_C)
		return 1;
	s = tk_trace_str(t, e->name, &n);
	return tk_core_number(s, n, &id);
}

int tk_event_source_is_core(const tk_trace *t, const tk_event *ev)
{
	const tk_entity *e = tk_trace_entity(t, ev->source);

	if (tk_entity_is_core(t, ev->source))
		return 1;
	return e && (e->type == TK_ET_UNKNOWN || e->type == TK_ET_STI) &&
	       tk_implied_source_type(ev->type, ev->kind) == TK_ET_C;
}

/* Is type_name the len bytes of s? */
static int named(const tk_trace *t, tk_str type_name, const char *s,
		 size_t len)
{
	size_t n;
	const char *p;

	if (type_name == TK_NONE)
		return 0;
	p = tk_trace_str(t, type_name, &n);
	return n == len && memcmp(p, s, len) == 0;
}

tk_etype tk_etype_closest(const tk_trace *t, tk_etype type, tk_str type_name)
{
	switch (type) {
	case TK_ET_THR: return TK_ET_T;
	case TK_ET_SYSC: return TK_ET_R;
	case TK_ET_OTHER:
		if (named(t, type_name, "process", 7))
			return TK_ET_T;
		if (named(t, type_name, "function", 8))
			return TK_ET_R;
		return type;
	default: return type;
	}
}

int tk_etype_is_user(const tk_trace *t, tk_etype type, tk_str type_name)
{
	return type == TK_ET_OTHER && named(t, type_name, "user", 4);
}
