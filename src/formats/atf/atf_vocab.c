/*
 * atf_vocab.c - the ATF vocabulary (SystemElement types, event types), its
 * mapping to the common model, the exact tick of a TimeBase with decimal
 * times, and the rules that synthesise what ATF does not record (instances,
 * sources).  See docs/mappings.md.
 */
#include "atf.h"

#include <stdlib.h>
#include <string.h>

static const char *const type_names[ATF_NTYPES] = {
	"isr", "task", "runnable", "process", "function", "basic block",
	"message", "unknown"
};

static const char *const ev_names[ATF_NEVTYPES] = {
	"activation-OS", "activation-chained", "activation-failed",
	"activation", "error", "start", "stop", "preempt", "resume",
	"terminate", "user", "end"
};

const char *atf_type_name(int t)
{
	return t >= 0 && t < ATF_NTYPES ? type_names[t] : "unknown";
}

int atf_type_lookup(const char *s, size_t len)
{
	int t;

	for (t = 0; t < ATF_NTYPES; t++)
		if (strlen(type_names[t]) == len && memcmp(s, type_names[t], len) == 0)
			return t;
	return -1;
}

tk_etype atf_type_etype(int t)
{
	switch (t) {
	case ATF_ISR: return TK_ET_I;
	case ATF_TASK: return TK_ET_T;
	case ATF_RUNNABLE: return TK_ET_R;
	case ATF_BASIC_BLOCK: return TK_ET_IB;
	default: return TK_ET_OTHER;
	}
}

int atf_type_of_entity(tk_etype et, const char *type_name, size_t n)
{
	switch (et) {
	case TK_ET_I: return ATF_ISR;
	case TK_ET_T: return ATF_TASK;
	case TK_ET_R: return ATF_RUNNABLE;
	case TK_ET_IB: return ATF_BASIC_BLOCK;
	case TK_ET_OTHER: {
		int t = type_name ? atf_type_lookup(type_name, n) : -1;
		return atf_type_etype(t) == TK_ET_OTHER ? t : -1;
	}
	default: return -1;
	}
}

const char *atf_evtype_name(int e)
{
	return e >= 0 && e < ATF_NEVTYPES ? ev_names[e] : "?";
}

int atf_evtype_lookup(const char *s, size_t len)
{
	int e;

	for (e = 0; e < ATF_NEVTYPES; e++)
		if (strlen(ev_names[e]) == len && memcmp(s, ev_names[e], len) == 0)
			return e;
	return -1;
}

tk_evkind atf_evtype_kind(int e, int t, const char **name)
{
	tk_evkind k;

	switch (e) {
	case ATF_EV_ACTIVATION_OS: case ATF_EV_ACTIVATION_CHAINED:
	case ATF_EV_ACTIVATION: k = TK_EV_ACTIVATE; break;
	case ATF_EV_ACTIVATION_FAILED:
		*name = "activation-failed";
		return TK_EV_OTHER;
	case ATF_EV_ERROR: k = TK_EV_ERROR; break;
	case ATF_EV_START: k = TK_EV_START; break;
	case ATF_EV_STOP: k = TK_EV_STOP; break;
	case ATF_EV_PREEMPT:
		k = t == ATF_RUNNABLE ? TK_EV_SUSPEND : TK_EV_PREEMPT;
		break;
	case ATF_EV_RESUME: k = TK_EV_RESUME; break;
	case ATF_EV_TERMINATE: case ATF_EV_END: k = TK_EV_TERMINATE; break;
	default:
		*name = "user";
		return TK_EV_OTHER;
	}
	*name = tk_evkind_name(k);
	return k;
}

int atf_evtype_of(tk_evkind kind, const char *name, size_t n, int t)
{
	switch (kind) {
	case TK_EV_ACTIVATE: return ATF_EV_ACTIVATION;
	case TK_EV_ERROR: return ATF_EV_ERROR;
	case TK_EV_START: return ATF_EV_START;
	case TK_EV_STOP: return ATF_EV_STOP;
	case TK_EV_PREEMPT: return t == ATF_RUNNABLE ? -1 : ATF_EV_PREEMPT;
	case TK_EV_SUSPEND: return t == ATF_RUNNABLE ? ATF_EV_PREEMPT : -1;
	case TK_EV_RESUME: return ATF_EV_RESUME;
	case TK_EV_TERMINATE: return ATF_EV_TERMINATE;
	case TK_EV_OTHER:
		if (name && n == 17 && memcmp(name, "activation-failed", 17) == 0)
			return ATF_EV_ACTIVATION_FAILED;
		return -1;
	default: return -1;
	}
}

/* ---- time --------------------------------------------------------------- */

int atf_tick(const char *unit, size_t ulen, uint64_t num, uint64_t den,
	     unsigned digits, tk_timebase *out)
{
	uint64_t g;
	unsigned i;

	if (num == 0 || den == 0)
		return TK_E_RANGE;
	if (ulen == 2 && memcmp(unit, "as", 2) == 0) {
		out->unit = TK_UNIT_PS;
		digits += 6;
	} else if (tk_unit_micro_sign(unit, ulen) ||
		   tk_unit_parse(unit, ulen, 0, &out->unit) < 0) {
		/* the spec's unit names alone (us, not µs) */
		return TK_E_PARSE;
	}
	g = (uint64_t)tk_gcd128(num, den);
	num /= g;
	den /= g;
	/* den * 10^digits, kept reduced against num */
	for (i = 0; i < digits; i++) {
		if (num % 10 == 0) {
			num /= 10;
		} else if (num % 5 == 0) {
			if (den > UINT64_MAX / 2)
				return TK_E_RANGE;
			num /= 5;
			den *= 2;
		} else if (num % 2 == 0) {
			if (den > UINT64_MAX / 5)
				return TK_E_RANGE;
			num /= 2;
			den *= 5;
		} else {
			if (den > UINT64_MAX / 10)
				return TK_E_RANGE;
			den *= 10;
		}
	}
	out->num = num;
	out->den = den;
	return TK_OK;
}

/* ---- synthesis ---------------------------------------------------------- */

const tk_synth_rules atf_synth_rules = {
	.proc = {
		[TK_EV_START] = TK_SYN_PUSH, [TK_EV_RESUME] = TK_SYN_PUSH,
		[TK_EV_PREEMPT] = TK_SYN_POP, [TK_EV_TERMINATE] = TK_SYN_POP,
		[TK_EV_STOP] = TK_SYN_POP,
	},
	.run = {
		[TK_EV_START] = TK_SYN_PUSH, [TK_EV_RESUME] = TK_SYN_PUSH,
		[TK_EV_SUSPEND] = TK_SYN_POP, [TK_EV_TERMINATE] = TK_SYN_POP,
		[TK_EV_STOP] = TK_SYN_POP,
	},
};
