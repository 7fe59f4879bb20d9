/* atf.h - what the ATF reader, writer and vocabulary share. */
#ifndef TK_ATF_H
#define TK_ATF_H

#include "../../core/internal.h"
#include "../../core/synth.h"

/* SystemElement types of the spec (4.12.2), in its order. */
enum { ATF_ISR, ATF_TASK, ATF_RUNNABLE, ATF_PROCESS, ATF_FUNCTION,
       ATF_BASIC_BLOCK, ATF_MESSAGE, ATF_UNKNOWN, ATF_NTYPES };

/* Event types of the spec (4.5.2), plus "end" of its examples. */
enum { ATF_EV_ACTIVATION_OS, ATF_EV_ACTIVATION_CHAINED,
       ATF_EV_ACTIVATION_FAILED, ATF_EV_ACTIVATION, ATF_EV_ERROR,
       ATF_EV_START, ATF_EV_STOP, ATF_EV_PREEMPT, ATF_EV_RESUME,
       ATF_EV_TERMINATE, ATF_EV_USER, ATF_EV_END, ATF_NEVTYPES };

/** The spec's name of SystemElement type t ("task", "basic block" ...). */
const char *atf_type_name(int t);
/** The type named s exactly, or -1. */
int atf_type_lookup(const char *s, size_t len);
/** The common-model type of ATF type t (T, I, R, IB; OTHER for the rest). */
tk_etype atf_type_etype(int t);
/**
 * The ATF type of an entity of the common model (type and type name as
 * written), or -1 if ATF has no SystemElement type for it.
 */
int atf_type_of_entity(tk_etype et, const char *type_name, size_t n);

/** The spec's name of event type e ("activation-OS" ...). */
const char *atf_evtype_name(int e);
/** The event type named s exactly, or -1. */
int atf_evtype_lookup(const char *s, size_t len);
/**
 * The model's event kind of event type e on a SystemElement of ATF type t
 * (preempt of a runnable is the model's suspend).  *name receives the
 * model's event name ("activate", "activation-failed", ...).
 */
tk_evkind atf_evtype_kind(int e, int t, const char **name);
/**
 * The ATF event type of event kind `kind` (named `name`) on ATF type t, or
 * -1 if ATF has none.
 */
int atf_evtype_of(tk_evkind kind, const char *name, size_t n, int t);

/**
 * The model's time base of an ATF TimeBase (unit "s", "ms", "us", "ns",
 * "ps" or "as"; num/den) whose times have `digits` decimal digits:
 * num / (den * 10^digits) units, reduced; "as" becomes ps.  TK_OK,
 * TK_E_PARSE (unit), TK_E_RANGE (does not fit 64 bits).
 */
int atf_tick(const char *unit, size_t ulen, uint64_t num, uint64_t den,
	     unsigned digits, tk_timebase *out);

/** Ticks v of TimeBase / 10^digits as a TimeStampType (trailing zeros
 *  of the decimals cut); o holds 24 bytes.  Returns the length. */
size_t atf_time_fmt(char *o, uint64_t v, unsigned digits);
/** Time stamps a and b (TimeStampType text, leading and trailing zeros
 *  allowed) compared exactly as decimals: -1, 0 or 1. */
int atf_time_cmp(const char *a, const char *b);

enum { ATF_WIDEN_START = 1, ATF_WIDEN_STOP = 2 };

/* The Start and Stop a TraceData is written with (atf_window_fit()). */
typedef struct atf_window {
	const char *start;       /* always */
	const char *stop;        /* NULL: none written */
	unsigned widened;        /* ATF_WIDEN_*: what the kept ones became */
	char lo[24], hi[24];     /* times made from ticks (start, stop may
				    point here: do not copy the struct) */
} atf_window;

/**
 * The window of a TraceData whose Start and Stop were kept as `start` and
 * `stop` (TimeStampType text, NULL when absent) and whose entries (`any`
 * of them) are from tick lo to tick hi (ticks of TimeBase / 10^digits):
 * the kept ones, widened exactly to hold every entry (win->widened says
 * which); a Stop before the Start (an empty TraceData) becomes the Start.
 * With no kept Start, the Start is lo (tick `at` when it has no entries).
 */
void atf_window_fit(atf_window *win, const char *start, const char *stop,
		    unsigned digits, int any, uint64_t lo, uint64_t hi,
		    uint64_t at);

/* The synthesis rules of ATF (src/core/synth.h, by the rules of HTF with
 * the Resource of an element as its core; core slot 0 is "no core", slot k
 * the k-th Resource). */
extern const tk_synth_rules atf_synth_rules;

int atf_probe(const uint8_t *buf, size_t len);
int atf_reader_open(tk_reader *r, tk_error *err);
int atf_reader_next(tk_reader *r, const tk_event **ev, tk_error *err);
void atf_reader_close(tk_reader *r);

#endif
