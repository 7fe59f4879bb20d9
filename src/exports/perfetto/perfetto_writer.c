/*
 * perfetto_writer.c - Chrome Trace Event JSON, as ui.perfetto.dev and
 * chrome://tracing open it (docs/exports.md).
 *
 * Tracks (every tid is unique; tid = track index + 3, in order of first
 * use, so that no tid is a pid; every sort index fits 32 signed bits):
 *  - pid 1 "cores": one thread per core, holding the run intervals of the
 *    timeline (timeline.h: the process allocated to the core, as `load`
 *    counts it) as flat "X" slices, so a preempted task is never drawn
 *    under the one that preempted it, and the signals, OS events and
 *    semaphores as instants; "(no core)" holds the instants of no core;
 *    one thread "CORE runnables" per core with the runnable slices of the
 *    timeline (nested as the timeline nests them).  Core load is one
 *    counter track per core ("C" events), in percent per window; when an
 *    idle process (tk_timeline_set_idle) ran, its time is not load but
 *    idle time, one more counter "idle CORE" per core.
 *  - pid 2 "processes": one thread per task / ISR (a second one for an
 *    instance activated while the previous is alive): an "X" slice per
 *    instance (activate to terminate, CET_us and RT_us from the stats
 *    analysis), with its states nested inside: Ready, Running (args.core),
 *    Waiting, Polling, Parking.  A flow (bind_id) draws activate -> start:
 *    from a zero-length mark "activate" (flow_out, args.activated_by)
 *    at the activation on the track of the stimulus,
 *    task or ISR that activated it (the source instance's track; for a
 *    stimulus or a runnable, its core's track, else "(no core)"), or, when
 *    a core activated it, from the instance slice; to its first Running
 *    slice (flow_in; a zero-length mark "start" at its beginning when
 *    that is the activation's ns).
 *
 * Viewers nest "X" events of one track by start time and, at equal starts,
 * by the order in the file (Perfetto by duration first), so a slice is
 * written before the slices nested in it: runnable slices wait per lane
 * until no open slice can start at or before them (tk_timeline_lane_floor)
 * in a binary min-heap on (start, depth, order of closing); the states of
 * an instance wait in it until it terminates.
 *
 * Times: Perfetto reads ts and dur (us) as doubles and rounds each to
 * whole ns.  Each time is rounded to the ns first (half up, counted, refused
 * under --strict when not exact), dur is the difference of the rounded
 * ends, and both are written as us with at most 3 decimals, so nesting and
 * adjacency survive the importer.  Times are since the trace's own time
 * zero (absolute), unless the first event is at or past 2^49 ns, where a
 * double no longer holds a ns exactly: then since the first event, and
 * metadata.ts_offset_us says so.
 */
#include "../../core/internal.h"
#include "../../core/loss.h"
#include "../../analysis/analysis_exports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABS_LIMIT_NS ((uint64_t)1 << 49)
/* load windows: at most this many in all lanes (and at least
 * LOAD_MIN_WINDOWS per lane), as the report caps its own, so that the
 * counters grow with the lanes, not with lanes times TK_LOAD_BINS */
#define LOAD_LANE_WINDOWS 65536u
#define LOAD_MIN_WINDOWS 50u

enum { TR_CORE, TR_NOCORE, TR_RUNNABLES, TR_PROC };

typedef struct ptrack {
	uint32_t kind, ref, slot;  /* ref: lane, or entity of TR_PROC */
} ptrack;

typedef struct pslice {
	uint64_t start, end;
	uint32_t depth, entity;
	int64_t inst;
	tk_etype type;
	unsigned flags;
	uint64_t seq;          /* order of closing: ties of (start, depth) */
} pslice;

typedef struct plane {
	pslice *pend;          /* closed, not yet written: a min-heap (slice_before) */
	size_t npend, cappend;
	uint64_t seq;          /* slices closed on this lane so far */
	uint32_t core_track;   /* track index + 1, 0: none yet */
	uint32_t rnbl_track;
	int dirty;
} plane;

/* the states of a process instance */
enum { ST_READY, ST_RUNNING, ST_WAITING, ST_POLLING, ST_PARKING };
static const char *const state_names[] = { "Ready", "Running", "Waiting",
					   "Polling", "Parking" };

typedef struct pstate {
	uint64_t start, end;
	uint64_t flow;         /* flow id ending here, 0: none */
	int32_t lane;          /* Running: the core's lane, else -1 */
	uint32_t state;
} pstate;

/* PI_MARK: the flow begins at a mark of the activation on the track of
 * the source that activated it (mark_pid, mark_tid), not on the instance */
enum { PI_ACT = 1, PI_STARTED = 2, PI_CET = 4, PI_RT = 8, PI_MARK = 16 };

/* a live process instance (in pw->insts) */
typedef struct pinst {
	uint64_t begin, since; /* first time, start of the current state */
	uint64_t cet, rt, flow;
	pstate *st;            /* closed states, written at the end */
	uint32_t nst, capst;
	uint32_t track, stim;  /* stim: activating entity or TK_NONE */
	uint32_t mark_pid, mark_tid;
	int32_t lane;
	uint32_t state, flags;
} pinst;

/* the tracks of one process entity: one per instance alive at once */
typedef struct pent {
	uint32_t *tracks;
	unsigned char *busy;
	uint32_t nslots;
} pent;

/* an entity's name as a JSON string, quotes included, made once (most
 * records name one or two), and its type (the "cat" of its slices) */
typedef struct pname {
	char *json;
	size_t len;
	size_t raw;            /* bytes of the name (the count of a bad one) */
	const char *cat;
	size_t catlen;
	int bad;               /* not UTF-8: counted at every use */
	tk_etype type;         /* the type cat is the name of */
	uint64_t pos1;         /* the first event that names the entity: its
				* tk_event.pos + 1 (0: none), where its name
				* refused is reported (slices and track names
				* are written events later, or at close) */
} pname;

static const char *const back_what[] = {
	"a time earlier than the previous event's",
};
static const char *const back_brief[] = {
	"times raised to the previous event's",
};

typedef struct pf_writer {
	const char *name;
	tk_timeline *tl;
	tk_stats *stats;
	plane *lanes;
	size_t nlanes, caplanes;
	size_t *dirtyq;        /* the lanes with dirty set, in no order */
	size_t ndirty, capdirty;
	ptrack *tracks;
	size_t ntracks, captracks;
	uint32_t nocore_track; /* track index + 1, 0: none */
	pent *ents;
	size_t capents;
	tk_imap insts;         /* (entity, instance) -> pinst */
	pstate *spare;         /* the states of an instance written, for the
				  next one (an array each was a malloc) */
	uint32_t capspare;
	uint64_t first;        /* ticks of the first event */
	uint64_t now;          /* ticks of the latest event so far */
	tk_losses back;        /* events whose time went back (raised) */
	int have_first;
	int fast;              /* a tick is a whole number of ps */
	uint64_t ps_per_tick;
	uint64_t ns_mul;       /* ns per tick when a whole number, else 0 */
	uint64_t ns_max;       /* the most ticks that ns_mul turns into ns */
	tk_u128 ns_p, ns_q;    /* one tick in ns (when not fast) */
	int ns_ok;
	uint64_t offset_ns;    /* subtracted from every time */
	uint64_t flows;        /* flow ids given */
	const tk_event *ev;    /* the event being written (stats callback) */
	uint64_t v_cet, v_rt;  /* its CET / RT from the stats callback */
	int has_cet, has_rt;
	/* a run of the event's own instance that the event ended, from the
	 * timeline (one that began before the trace, for a new instance) */
	int run_seen;
	int32_t run_lane;
	uint64_t run_start;
	tk_loadbins lb;        /* per lane i and load window: busy ticks in
				  lane 2i, idle ticks (idle processes) in 2i+1 */
	int idle_lanes;        /* an idle process ran: "idle CORE" counters */
	pname *names;          /* by entity; json NULL: not made yet */
	size_t capnames;
	char *rec;             /* the record being written (rec_open()) */
	char *big;             /* one longer than the sink's buffer */
	size_t capbig;
	uint64_t nrecords;
	uint64_t rounded;      /* times rounded to whole ns */
	tk_tlines tlines;      /* where a time line begins */
	uint64_t tlines_left;  /* events of the time lines after the first */
	int rc;                /* first error of a callback */
	tk_error *err;
	tk_writer *w;
} pf_writer;

/* ---- output helpers ------------------------------------------------------ */

/* the bytes straight into the sink's buffer when they fit (a record is
 * some twenty pieces: a call each was a tenth of the time), else through
 * tk_sink_write() */
static TK_INLINE int out(pf_writer *pw, const char *s, size_t n)
{
	tk_sink *k = &pw->w->sink;

	if (pw->rc < 0)
		return pw->rc;
	if (n <= k->cap - k->len && !k->is_dir) {
		memcpy(k->buf + k->len, s, n);
		k->len += n;
		return TK_OK;
	}
	pw->rc = tk_sink_write(k, s, n, pw->err);
	return pw->rc;
}

static TK_INLINE int outs(pf_writer *pw, const char *s)
{
	return out(pw, s, strlen(s));
}

static int out_u64(pf_writer *pw, uint64_t v)
{
	char b[24];

	return out(pw, b, tk_fmt_u64(b, v));
}

static int out_i64(pf_writer *pw, int64_t v)
{
	char b[24];

	return out(pw, b, tk_fmt_i64(b, v));
}

static void set_err(pf_writer *pw, int rc)
{
	if (pw->rc >= 0)
		pw->rc = rc;
}

static void nomem(pf_writer *pw)
{
	if (pw->rc >= 0)
		pw->rc = tk_err_nomem(pw->err, pw->name);
}

/*
 * s as a JSON string (with its quotes) at o, which has room for 6 n + 2
 * bytes; returns the end.  A byte that is not part of a well-formed UTF-8
 * sequence is written as U+FFFD ("\ufffd") and sets *bad.
 */
static char *put_json(char *o, const char *s, size_t n, int *bad)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, from = 0, len;

	*o++ = '"';
	while (i < n) {
		unsigned char c = u[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0x80 && (len = tk_utf8_len(u + i, n - i)) > 0) {
			i += len;
			continue;
		}
		memcpy(o, s + from, i - from);
		o += i - from;
		from = i + 1;
		if (c >= 0x80) {
			*bad = 1;
			memcpy(o, "\\ufffd", 6);
			o += 6;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		}
		i++;
	}
	memcpy(o, s + from, n - from);
	o += n - from;
	*o++ = '"';
	return o;
}

/*
 * A JSON string (put_json()).  A string with bytes that are not UTF-8 is
 * counted by tk_writer_text_bad() (the warning of every writer, at
 * close), or refused under --strict.
 */
static int out_json(pf_writer *pw, const char *s, size_t n)
{
	tk_sink *k = &pw->w->sink;
	char *o, *end, *heap = NULL;
	int bad = 0, rc;

	if (pw->rc < 0)
		return pw->rc;
	if (n > (SIZE_MAX - 2) / 6) {
		nomem(pw);
		return pw->rc;
	}
	if (6 * n + 2 <= k->cap && !k->is_dir) {
		o = tk_sink_reserve(k, 6 * n + 2, pw->err);
		if (!o) {
			set_err(pw, TK_E_IO);
			return pw->rc;
		}
	} else if (!(o = heap = malloc(6 * n + 2))) {
		nomem(pw);
		return pw->rc;
	}
	end = put_json(o, s, n, &bad);
	if (heap) {
		out(pw, heap, (size_t)(end - heap));
		free(heap);
	} else {
		k->len += (size_t)(end - o);
	}
	/* counted (and refused under --strict) as every writer does */
	if (bad && (rc = tk_writer_text_bad(pw->w, n, pw->err)) < 0)
		set_err(pw, rc);
	return pw->rc;
}

/* entity ent (or TK_NONE) is named by an event at position pos */
static void name_pos(pf_writer *pw, uint32_t ent, uint64_t pos)
{
	if (ent == TK_NONE || !tk_trace_entity(pw->w->trace, ent))
		return;
	if (ent >= pw->capnames &&
	    tk_grow_zero((void **)&pw->names, &pw->capnames, ent,
			 sizeof(*pw->names)) < 0) {
		nomem(pw);
		return;
	}
	if (!pw->names[ent].pos1)
		pw->names[ent].pos1 = pos + 1;
}

/* A write of entity ent's name failed with rc: a name refused (not UTF-8
 * under strict) is reported at the first event that names it, not at the
 * later one whose slice carries it (tk_writer_locate_pos()).  Returns rc. */
static int name_failed(pf_writer *pw, uint32_t ent, int rc)
{
	if (rc != TK_E_UNSUPPORTED || ent >= pw->capnames)
		return rc;
	return tk_writer_locate_pos(pw->w, pw->names[ent].pos1, rc, pw->err);
}

/* the name of entity ent as a JSON string and its type, made on first use
 * (an unknown entity: "?"); a bad name is counted as out_json() counts it */
static pname ent_name(pf_writer *pw, uint32_t ent)
{
	pname unknown = { "\"?\"", 3, 1, NULL, 0, 0, TK_ET_UNKNOWN, 0 };
	const tk_trace *t = pw->w->trace;
	const tk_entity *e = tk_trace_entity(t, ent);
	pname *p;
	const char *s;
	size_t n;
	int rc;

	unknown.cat = tk_etype_name(TK_ET_UNKNOWN);
	unknown.catlen = strlen(unknown.cat);
	if (!e)
		return unknown;
	if (ent >= pw->capnames &&
	    tk_grow_zero((void **)&pw->names, &pw->capnames, ent,
			 sizeof(*pw->names)) < 0) {
		nomem(pw);
		return unknown;
	}
	p = &pw->names[ent];
	if (TK_UNLIKELY(!p->json)) {
		s = tk_trace_str(t, e->name, &n);
		if (n > (SIZE_MAX - 2) / 6 || !(p->json = malloc(6 * n + 2))) {
			nomem(pw);
			return unknown;
		}
		p->len = (size_t)(put_json(p->json, s, n, &p->bad) - p->json);
		p->raw = n;
		p->cat = NULL;
	}
	/* the type may be learnt after the name (a source seen first) */
	if (TK_UNLIKELY(!p->cat || p->type != e->type)) {
		p->type = e->type;
		p->cat = tk_etype_name(e->type);
		p->catlen = strlen(p->cat);
	}
	/* after a first error, as out_json(): that error stands (a second
	 * refusal would overwrite it, and locate it elsewhere) */
	if (TK_UNLIKELY(p->bad) && pw->rc >= 0 &&
	    (rc = tk_writer_text_bad(pw->w, p->raw, pw->err)) < 0)
		set_err(pw, name_failed(pw, ent, rc));
	return *p;
}

static int out_name(pf_writer *pw, uint32_t ent)
{
	pname nm = ent_name(pw, ent);

	return out(pw, nm.json, nm.len);
}

/* ticks since the trace's time zero in whole ns (half up; a sample of
 * the load counters: the ns it falls in, not counted), *ns */
static int ticks_ns(pf_writer *pw, uint64_t ticks, int sample, tk_u128 *ns)
{
	const tk_timebase *tb = tk_trace_timebase(pw->w->trace);
	tk_u128 num, den, r;

	if (pw->fast && (!ticks || pw->ps_per_tick <= UINT64_MAX / ticks)) {
		/* the usual case in 64 bits (a 128-bit division is a call) */
		uint64_t ps = ticks * pw->ps_per_tick;
		uint32_t r64 = (uint32_t)(ps % 1000u);
		*ns = ps / 1000u;
		if (!r64 || sample)
			return TK_OK;
		num = ps;
		den = 1000;
		r = r64;
		goto inexact;
	}
	if (pw->fast) {
		num = (tk_u128)ticks * pw->ps_per_tick;
		den = 1000;
	} else {
		if (!pw->ns_ok || (ticks && pw->ns_p > ~(tk_u128)0 / ticks)) {
			set_err(pw, tk_err_set(pw->err, TK_E_RANGE, pw->name, 0, 0,
					       "%llu ticks are beyond 2^128 ns",
					       (unsigned long long)ticks));
			return pw->rc;
		}
		num = (tk_u128)ticks * pw->ns_p;
		den = pw->ns_q;
	}
	*ns = num / den;
	r = num % den;
	if (!r || sample)
		return TK_OK;
inexact:
	if (pw->w->opts.strict) {
		set_err(pw, tk_err_set(pw->err, TK_E_UNSUPPORTED, pw->name, 0, 0,
				       "Chrome Trace Event JSON cannot hold a time of %llu ticks of %llu/%llu %s exactly (Perfetto reads whole ns); outside strict mode it is rounded to the nearest ns with a warning",
				       (unsigned long long)ticks,
				       (unsigned long long)tb->num,
				       (unsigned long long)tb->den,
				       tk_unit_name(tb->unit)));
		return pw->rc;
	}
	pw->rounded++;
	if (r >= den - r)
		++*ns;
	return TK_OK;
}

/* time_ns() when its usual case does not hold */
static TK_NOINLINE int time_ns_slow(pf_writer *pw, uint64_t ticks, int sample, uint64_t *ns)
{
	tk_u128 v = 0;

	if (ticks_ns(pw, ticks, sample, &v) < 0)
		return pw->rc;
	if (sample && v < pw->offset_ns)
		v = pw->offset_ns;
	if (v < pw->offset_ns || v - pw->offset_ns > (tk_u128)INT64_MAX) {
		set_err(pw, tk_err_set(pw->err, TK_E_RANGE, pw->name, 0, 0,
				       "a time of %llu ticks is beyond 2^63 ns after the first event (Perfetto's limit)",
				       (unsigned long long)ticks));
		return pw->rc;
	}
	*ns = (uint64_t)(v - pw->offset_ns);
	return TK_OK;
}

/* the time written for `ticks`: ns since the time zero less the offset
 * (sample: as ticks_ns()); a whole number of ns per tick without a
 * division */
static TK_INLINE int time_ns(pf_writer *pw, uint64_t ticks, int sample,
			     uint64_t *ns)
{
	if (TK_LIKELY(pw->ns_mul && ticks <= pw->ns_max)) {
		uint64_t v = ticks * pw->ns_mul;
		if (TK_LIKELY(v >= pw->offset_ns &&
			      v - pw->offset_ns <= (uint64_t)INT64_MAX)) {
			*ns = v - pw->offset_ns;
			return TK_OK;
		}
	}
	return time_ns_slow(pw, ticks, sample, ns);
}

/* ns in us at o: at most 3 decimals, no trailing zeros (24 bytes at most);
 * returns the end */
static TK_INLINE char *put_ns_us(char *o, uint64_t ns)
{
	uint32_t frac = (uint32_t)(ns % 1000u);

	o = tk_put_u64(o, ns / 1000u);
	if (frac) {
		*o++ = '.';
		o[0] = (char)('0' + frac / 100);
		o[1] = (char)('0' + frac / 10 % 10);
		o[2] = (char)('0' + frac % 10);
		o += frac % 10 ? 3 : frac % 100 ? 2 : 1;
	}
	return o;
}

static int out_ns_us(pf_writer *pw, uint64_t ns)
{
	char b[32];

	return out(pw, b, (size_t)(put_ns_us(b, ns) - b));
}

/* ,"ts":..,"dur":.. of [start, end] (ticks): both ends rounded first */
static int out_span(pf_writer *pw, uint64_t start, uint64_t end)
{
	uint64_t a = 0, b = 0;

	if (time_ns(pw, start, 0, &a) < 0 || time_ns(pw, end, 0, &b) < 0)
		return pw->rc;
	outs(pw, ",\"ts\":");
	out_ns_us(pw, a);
	outs(pw, ",\"dur\":");
	return out_ns_us(pw, b - a);
}

static int out_ts(pf_writer *pw, uint64_t t)
{
	uint64_t a = 0;

	if (time_ns(pw, t, 0, &a) < 0)
		return pw->rc;
	outs(pw, ",\"ts\":");
	return out_ns_us(pw, a);
}

/* the most bytes of put_dur_us() */
#define DUR_MAX 200

/* a duration in args, in us, at o (DUR_MAX bytes at most): the figure
 * `stats --unit us` writes; returns the end, or NULL (pw->rc set) */
static char *put_dur_us(pf_writer *pw, char *o, uint64_t ticks)
{
	char b[DUR_MAX];
	int n;

	if (pw->fast && (!ticks || pw->ps_per_tick <= UINT64_MAX / ticks)) {
		/* a whole number of ps: exact in 6 decimals, which the
		 * general form gives too (at least 6 for a tick of 1 ps or
		 * more), without its 128-bit arithmetic */
		uint64_t ps = ticks * pw->ps_per_tick;
		uint32_t frac = (uint32_t)(ps % 1000000u), d;
		o = tk_put_u64(o, ps / 1000000u);
		if (frac) {
			*o++ = '.';
			for (d = 100000; d && frac; d /= 10) {
				*o++ = (char)('0' + frac / d);
				frac %= d;
			}
		}
		return o;
	}
	n = tk_time_format_decimal(ticks, tk_trace_timebase(pw->w->trace),
				   TK_UNIT_US, b, sizeof(b));
	if (n < 0) {
		set_err(pw, tk_err_set(pw->err, TK_E_RANGE, pw->name, 0, 0,
				       "a duration of %llu ticks cannot be written in us",
				       (unsigned long long)ticks));
		return NULL;
	}
	memcpy(o, b, (size_t)n);
	return o + n;
}

static int out_dur_us(pf_writer *pw, uint64_t ticks)
{
	char b[DUR_MAX], *e = put_dur_us(pw, b, ticks);

	return e ? out(pw, b, (size_t)(e - b)) : pw->rc;
}

/* start of one trace event record */
static int begin_rec(pf_writer *pw)
{
	return outs(pw, pw->nrecords++ ? ",\n{" : "\n{");
}

/* the bytes of a record's fixed text and numbers, at most (its names and
 * CET_us/RT_us apart) */
#define REC_FIXED 320

/*
 * A record of at most `need` bytes, written at the pointer returned (NULL:
 * an error, pw->rc) and ended by rec_close() with the end: in the sink's
 * buffer, or when longer than it in pw->big.  The record's separator is
 * written.
 */
static char *rec_open(pf_writer *pw, size_t need)
{
	tk_sink *k = &pw->w->sink;
	char *o;

	if (pw->rc < 0)
		return NULL;
	need += 3;
	if (TK_LIKELY(need <= k->cap && !k->is_dir)) {
		if (!(o = tk_sink_reserve(k, need, pw->err))) {
			set_err(pw, TK_E_IO);
			return NULL;
		}
	} else {
		if (need > pw->capbig) {
			char *nb = realloc(pw->big, need);
			if (!nb) {
				nomem(pw);
				return NULL;
			}
			pw->big = nb;
			pw->capbig = need;
		}
		o = pw->big;
	}
	pw->rec = o;
	if (pw->nrecords++)
		*o++ = ',';
	*o++ = '\n';
	*o++ = '{';
	return o;
}

static void rec_close(pf_writer *pw, char *end)
{
	tk_sink *k = &pw->w->sink;

	if (pw->rec == pw->big)
		out(pw, pw->big, (size_t)(end - pw->big));
	else
		k->len += (size_t)(end - pw->rec);
}

/* the bytes of literal s at o */
#define PUT_LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) + sizeof(s) - 1)

static TK_INLINE char *put_bytes(char *o, const char *s, size_t n)
{
	if (n) /* (s may be NULL then) */
		memcpy(o, s, n);
	return o + n;
}

/* "pid":P,"tid":T of track (index + 1) `track` (as out_tid()) */
static TK_INLINE char *put_tid(char *o, uint32_t pid, uint32_t track)
{
	o = pid == 1 ? PUT_LIT(o, "\"pid\":1,\"tid\":")
		     : PUT_LIT(o, "\"pid\":2,\"tid\":");
	return tk_put_u64(o, (uint64_t)track + 2);
}

/* ,"ts":..,"dur":.. of [a, b] (ns, as time_ns() gives them) */
static TK_INLINE char *put_span(char *o, uint64_t a, uint64_t b)
{
	o = PUT_LIT(o, ",\"ts\":");
	o = put_ns_us(o, a);
	o = PUT_LIT(o, ",\"dur\":");
	return put_ns_us(o, b - a);
}

/* ,"name":NAME,"cat":"TYPE" of an entity */
static TK_INLINE char *put_name_cat(char *o, const pname *nm)
{
	o = PUT_LIT(o, ",\"name\":");
	o = put_bytes(o, nm->json, nm->len);
	o = PUT_LIT(o, ",\"cat\":\"");
	o = put_bytes(o, nm->cat, nm->catlen);
	*o++ = '"';
	return o;
}

/* ,"bind_id":ID,"DIR":true (flow_out, flow_in) when id is not 0 */
static TK_INLINE char *put_flow(char *o, uint64_t id, int in)
{
	if (!id)
		return o;
	o = PUT_LIT(o, ",\"bind_id\":");
	o = tk_put_u64(o, id);
	return in ? PUT_LIT(o, ",\"flow_in\":true")
		  : PUT_LIT(o, ",\"flow_out\":true");
}

static TK_INLINE char *put_inst(char *o, int64_t inst)
{
	return inst == TK_INST_NONE ? PUT_LIT(o, "null") : tk_put_i64(o, inst);
}

/* ---- tracks -------------------------------------------------------------- */

/* a new track; its index + 1 (its tid), or 0 out of memory */
static uint32_t new_track(pf_writer *pw, uint32_t kind, uint32_t ref,
			  uint32_t slot)
{
	ptrack *t;

	if (pw->ntracks >= UINT32_MAX - 1 ||
	    tk_grow_zero((void **)&pw->tracks, &pw->captracks, pw->ntracks,
			 sizeof(*pw->tracks)) < 0) {
		nomem(pw);
		return 0;
	}
	t = &pw->tracks[pw->ntracks++];
	t->kind = kind;
	t->ref = ref;
	t->slot = slot;
	return (uint32_t)pw->ntracks;
}

/* track (index + 1) as a tid: + 2, so that no tid is 1 or 2, a pid (a
 * thread whose tid is its pid is the process's main thread, which
 * Perfetto lists first) */
static int out_tid(pf_writer *pw, uint32_t pid, uint32_t track)
{
	outs(pw, pid == 1 ? "\"pid\":1,\"tid\":" : "\"pid\":2,\"tid\":");
	return out_u64(pw, (uint64_t)track + 2);
}

/* ---- lanes, load windows, run intervals ---------------------------------- */

static plane *lane_at(pf_writer *pw, size_t lane)
{
	while (pw->nlanes <= lane) {
		plane *l;
		if (tk_grow_zero((void **)&pw->lanes, &pw->caplanes, pw->nlanes,
				   sizeof(*pw->lanes)) < 0)
			return NULL;
		l = &pw->lanes[pw->nlanes];
		memset(l, 0, sizeof(*l));
		pw->nlanes++;
	}
	return &pw->lanes[lane];
}

/* the tid of the core track of `lane` (made on first use), 0: no memory */
static uint32_t core_tid(pf_writer *pw, size_t lane)
{
	plane *l = lane_at(pw, lane);

	if (!l) {
		nomem(pw);
		return 0;
	}
	if (!l->core_track)
		l->core_track = new_track(pw, TR_CORE, (uint32_t)lane, 0);
	return l->core_track;
}

static void on_run(void *ctx, uint32_t lane, uint32_t entity, int64_t inst,
		   uint64_t start, uint64_t end)
{
	pf_writer *pw = ctx;
	uint32_t tid = core_tid(pw, lane);
	uint64_t a = 0, b = 0;
	pname nm;
	char *o;
	int idle;

	if (pw->ev && entity == pw->ev->target && inst == pw->ev->target_inst &&
	    lane <= INT32_MAX) {
		pw->run_seen = 1;
		pw->run_lane = (int32_t)lane;
		pw->run_start = start;
	}
	if (!tid)
		return;
	/* an idle process's time is idle time, not load (as `tracekit
	 * load` counts) */
	idle = tk_timeline_is_idle(pw->tl, entity);
	if (idle < 0 || tk_loadbins_add(&pw->lb, (size_t)lane * 2 + (idle != 0),
					start, end) < 0) {
		nomem(pw);
		return;
	}
	if (idle && end > start)
		pw->idle_lanes = 1;
	if (time_ns(pw, start, 0, &a) < 0 || time_ns(pw, end, 0, &b) < 0)
		return;
	nm = ent_name(pw, entity);
	if (!(o = rec_open(pw, REC_FIXED + nm.len + nm.catlen)))
		return;
	o = PUT_LIT(o, "\"ph\":\"X\",");
	o = put_tid(o, 1, tid);
	o = put_span(o, a, b);
	o = put_name_cat(o, &nm);
	o = PUT_LIT(o, ",\"args\":{\"instance\":");
	o = put_inst(o, inst);
	o = PUT_LIT(o, "}}");
	rec_close(pw, o);
}

/* ---- runnable slices ----------------------------------------------------- */

/* the order slices go out in: (start, depth, order of closing) */
static int slice_before(const pslice *x, const pslice *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->depth != y->depth)
		return x->depth < y->depth;
	return x->seq < y->seq;
}

static void heap_up(pslice *h, size_t i)
{
	pslice v = h[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!slice_before(&v, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = v;
}

/* remove the heap's first slice (n > 0 slices) into *top */
static void heap_pop(pslice *h, size_t n, pslice *top)
{
	size_t i = 0;
	pslice v;

	*top = h[0];
	v = h[--n];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && slice_before(&h[c + 1], &h[c]))
			c++;
		if (!slice_before(&h[c], &v))
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = v;
}

static void on_slice(void *ctx, const tk_slice *s)
{
	pf_writer *pw = ctx;
	plane *l;
	pslice *p;

	/* process slices: the run intervals and the process tracks say it */
	if (tk_etype_is_process(s->type))
		return;
	l = lane_at(pw, s->lane);
	if (!l || tk_grow_zero((void **)&l->pend, &l->cappend, l->npend,
			       sizeof(*l->pend)) < 0) {
		nomem(pw);
		return;
	}
	p = &l->pend[l->npend];
	p->start = s->start;
	p->end = s->end;
	p->depth = s->depth;
	p->entity = s->entity;
	p->inst = s->inst;
	p->type = s->type;
	p->flags = s->flags;
	p->seq = l->seq++;
	heap_up(l->pend, l->npend++);
	if (l->dirty)
		return;
	if (tk_grow_zero((void **)&pw->dirtyq, &pw->capdirty, pw->ndirty,
			   sizeof(*pw->dirtyq)) < 0) {
		nomem(pw);
		return;
	}
	pw->dirtyq[pw->ndirty++] = s->lane;
	l->dirty = 1;
}

static const char *const slice_flags[] = { "cut-start", "cut-end", "open",
					   "began-before-trace", "migrated",
					   "terminated" };

static void out_flags(pf_writer *pw, unsigned flags)
{
	int i, n = 0;

	for (i = 0; i < 6; i++) {
		if (!(flags & (1u << i)))
			continue;
		outs(pw, n++ ? "," : ",\"flags\":\"");
		outs(pw, slice_flags[i]);
	}
	if (n)
		outs(pw, "\"");
}

static void write_slice(pf_writer *pw, size_t lane, const pslice *p)
{
	plane *l = &pw->lanes[lane];

	if (!l->rnbl_track)
		l->rnbl_track = new_track(pw, TR_RUNNABLES, (uint32_t)lane, 0);
	if (!l->rnbl_track)
		return;
	begin_rec(pw);
	outs(pw, "\"ph\":\"X\",");
	out_tid(pw, 1, l->rnbl_track);
	out_span(pw, p->start, p->end);
	outs(pw, ",\"name\":");
	out_name(pw, p->entity);
	outs(pw, ",\"cat\":\"");
	outs(pw, tk_etype_name(p->type));
	outs(pw, "\",\"args\":{\"instance\":");
	if (p->inst == TK_INST_NONE)
		outs(pw, "null");
	else
		out_i64(pw, p->inst);
	out_flags(pw, p->flags);
	outs(pw, "}}");
}

/* write the pending slices of `lane` that nothing open can contain */
static void flush_lane(pf_writer *pw, size_t lane, int all)
{
	plane *l = &pw->lanes[lane];
	uint64_t floor = all ? UINT64_MAX : tk_timeline_lane_floor(pw->tl, lane);
	pslice p;

	/*
	 * floor is UINT64_MAX when nothing is open: a slice that starts at
	 * the last tick waits for the next flush (at the latest the last),
	 * as an open slice may start there too
	 */
	l->dirty = 0;
	while (l->npend && (all || l->pend[0].start < floor)) {
		heap_pop(l->pend, l->npend, &p);
		l->npend--;
		write_slice(pw, lane, &p);
	}
}

/* ---- process instances and their states --------------------------------- */

/* a track of entity `ent` free for a new instance: its index + 1, 0: error */
static uint32_t take_track(pf_writer *pw, uint32_t ent)
{
	pent *e;
	uint32_t i;

	if (tk_grow_zero((void **)&pw->ents, &pw->capents, ent,
			 sizeof(*pw->ents)) < 0) {
		nomem(pw);
		return 0;
	}
	e = &pw->ents[ent];
	for (i = 0; i < e->nslots; i++)
		if (!e->busy[i])
			break;
	if (i == e->nslots) {
		uint32_t *t = tk_xrealloc_array(e->tracks, (size_t)i + 1, sizeof(*t));
		unsigned char *b;
		if (!t) {
			nomem(pw);
			return 0;
		}
		e->tracks = t;
		b = tk_xrealloc_array(e->busy, (size_t)i + 1, 1);
		if (!b) {
			nomem(pw);
			return 0;
		}
		e->busy = b;
		e->tracks[i] = new_track(pw, TR_PROC, ent, i);
		if (!e->tracks[i])
			return 0;
		e->nslots++;
	}
	e->busy[i] = 1;
	return e->tracks[i];
}

static void free_track(pf_writer *pw, uint32_t ent, uint32_t track)
{
	pent *e = &pw->ents[ent];
	uint32_t i;

	for (i = 0; i < e->nslots; i++)
		if (e->tracks[i] == track)
			e->busy[i] = 0;
}

/* end the current state of r at t (kept when it lasted) */
static void end_state(pf_writer *pw, pinst *r, uint64_t t)
{
	pstate *s;

	if (t <= r->since && !(r->state == ST_RUNNING && r->flow &&
			       !(r->flags & PI_STARTED)))
		return;
	if (tk_grow_zero32((void **)&r->st, &r->capst, r->nst,
			   sizeof(*r->st)) < 0) {
		nomem(pw);
		return;
	}
	s = &r->st[r->nst++];
	s->start = r->since;
	s->end = t;
	s->state = r->state;
	s->lane = r->lane;
	s->flow = 0;
	if (r->state == ST_RUNNING && !(r->flags & PI_STARTED)) {
		/* the first Running slice ends the activate -> start flow */
		s->flow = r->flow;
		r->flags |= PI_STARTED;
	}
}

/* do ticks a and b give the same ns (as written, rounding uncounted)? */
static int same_ns(pf_writer *pw, uint64_t a, uint64_t b)
{
	uint64_t rounded = pw->rounded, x = 0, y = 1;
	int same = a == b || (time_ns(pw, a, 0, &x) == TK_OK &&
			      time_ns(pw, b, 0, &y) == TK_OK && x == y);

	pw->rounded = rounded;
	return same;
}

/*
 * A zero-length slice at t on track (pid, tid) that carries one end of
 * flow `flow`: "activate" (args.activated_by
 * names src) at the activation on the track of the source that activated
 * the instance, or "start" (src TK_NONE) at the start of an instance that
 * began at the activation's very ns (the importer orders a longer slice
 * first at one time, and a flow must begin before it ends).  Short: a
 * trace of 300,000 activations has as many.  in: the flow's end
 * (flow_in), else its beginning (flow_out).
 */
static void out_mark(pf_writer *pw, uint32_t pid, uint32_t tid, uint64_t t,
		     uint32_t src, uint64_t flow, int in)
{
	pname nm = { NULL, 0, 0, NULL, 0, 0, TK_ET_UNKNOWN, 0 };
	uint64_t a = 0, rounded = pw->rounded;
	char *o;

	if (time_ns(pw, t, 0, &a) < 0)
		return;
	/* a rounded t counts twice, as both ends of a span */
	pw->rounded += pw->rounded - rounded;
	if (src != TK_NONE)
		nm = ent_name(pw, src);
	if (!(o = rec_open(pw, REC_FIXED + nm.len)))
		return;
	o = PUT_LIT(o, "\"ph\":\"X\",");
	o = put_tid(o, pid, tid);
	o = put_span(o, a, a);
	o = src != TK_NONE
		? PUT_LIT(o, ",\"name\":\"activate\",\"cat\":\"activate\"")
		: PUT_LIT(o, ",\"name\":\"start\",\"cat\":\"state\"");
	o = put_flow(o, flow, in);
	if (src != TK_NONE) {
		o = PUT_LIT(o, ",\"args\":{\"activated_by\":");
		o = put_bytes(o, nm.json, nm.len);
		o = PUT_LIT(o, "}}");
	} else {
		o = PUT_LIT(o, ",\"args\":{}}");
	}
	rec_close(pw, o);
}

/* a state slice of r (the "start" mark after it when it ends a flow from a
 * mark at the activation's ns) */
static void write_state(pf_writer *pw, const pinst *r, const pstate *s)
{
	static const unsigned char state_len[] = { 5, 7, 7, 7, 7 };
	/* a flow from a mark at the activation's ns ends on a mark */
	int mark = s->flow && (r->flags & PI_MARK) &&
		   same_ns(pw, s->start, r->begin);
	uint64_t a = 0, b = 0;
	pname core = { NULL, 0, 0, NULL, 0, 0, TK_ET_UNKNOWN, 0 };
	char *o;

	if (time_ns(pw, s->start, 0, &a) < 0 || time_ns(pw, s->end, 0, &b) < 0)
		return;
	if (s->lane >= 0)
		core = ent_name(pw, tk_timeline_lane_core(pw->tl, (size_t)s->lane));
	if (!(o = rec_open(pw, REC_FIXED + core.len)))
		return;
	o = PUT_LIT(o, "\"ph\":\"X\",");
	o = put_tid(o, 2, r->track);
	o = put_span(o, a, b);
	o = PUT_LIT(o, ",\"name\":\"");
	o = put_bytes(o, state_names[s->state], state_len[s->state]);
	o = PUT_LIT(o, "\",\"cat\":\"state\"");
	if (!mark)
		o = put_flow(o, s->flow, 1);
	o = PUT_LIT(o, ",\"args\":{");
	if (s->lane >= 0) {
		o = PUT_LIT(o, "\"core\":");
		o = put_bytes(o, core.json, core.len);
	}
	o = PUT_LIT(o, "}}");
	rec_close(pw, o);
	if (mark)
		out_mark(pw, 2, r->track, s->start, TK_NONE, s->flow, 1);
}

/* the instance slice and its states, then the instance is gone */
static void write_inst(pf_writer *pw, uint32_t ent, int64_t inst,
		       pinst *r, uint64_t end, int open)
{
	pname nm, stim = { NULL, 0, 0, NULL, 0, 0, TK_ET_UNKNOWN, 0 };
	uint64_t a = 0, b = 0;
	uint32_t i;
	char *o;

	end_state(pw, r, end);
	if (time_ns(pw, r->begin, 0, &a) < 0 || time_ns(pw, end, 0, &b) < 0)
		goto done;
	nm = ent_name(pw, ent);
	if (r->stim != TK_NONE)
		stim = ent_name(pw, r->stim);
	if (!(o = rec_open(pw, REC_FIXED + 2 * DUR_MAX + nm.len + nm.catlen +
			       stim.len)))
		goto done;
	o = PUT_LIT(o, "\"ph\":\"X\",");
	o = put_tid(o, 2, r->track);
	o = put_span(o, a, b);
	o = put_name_cat(o, &nm);
	if (!(r->flags & PI_MARK))
		o = put_flow(o, r->flow, 0);
	o = PUT_LIT(o, ",\"args\":{\"instance\":");
	o = put_inst(o, inst);
	if (r->stim != TK_NONE) {
		o = PUT_LIT(o, ",\"activated_by\":");
		o = put_bytes(o, stim.json, stim.len);
	}
	if ((r->flags & PI_CET) && o) {
		o = PUT_LIT(o, ",\"CET_us\":");
		o = put_dur_us(pw, o, r->cet);
	}
	if ((r->flags & PI_RT) && o) {
		o = PUT_LIT(o, ",\"RT_us\":");
		o = put_dur_us(pw, o, r->rt);
	}
	if (!o)
		goto done;
	if (open || !(r->flags & PI_ACT)) {
		o = PUT_LIT(o, ",\"flags\":\"");
		if (open && !(r->flags & PI_ACT))
			o = PUT_LIT(o, "open,no-activate");
		else if (open)
			o = PUT_LIT(o, "open");
		else
			o = PUT_LIT(o, "no-activate");
		*o++ = '"';
	}
	o = PUT_LIT(o, "}}");
	rec_close(pw, o);
	for (i = 0; i < r->nst; i++)
		write_state(pw, r, &r->st[i]);
done:
	if (!pw->spare) {
		pw->spare = r->st;
		pw->capspare = r->capst;
	} else {
		free(r->st);
	}
	r->st = NULL;
	r->capst = r->nst = 0;
	free_track(pw, ent, r->track);
}

/* the lane on which the timeline has (ent, inst) running now, or -1 */
static int32_t running_lane(pf_writer *pw, uint32_t ent, int64_t inst)
{
	long lane = tk_timeline_touched_lane(pw->tl);
	uint32_t e;
	int64_t k;

	if (lane >= 0 && lane <= INT32_MAX &&
	    tk_timeline_running(pw->tl, (size_t)lane, &e, &k) && e == ent &&
	    k == inst)
		return (int32_t)lane;
	return -1;
}

static void on_process(pf_writer *pw, const tk_event *ev)
{
	uint32_t ent = ev->target;
	int64_t inst = ev->target_inst;
	uint32_t state;
	pinst *r;
	int created;

	switch (ev->kind) {
	case TK_EV_ACTIVATE: case TK_EV_PREEMPT: case TK_EV_RELEASE:
	case TK_EV_RELEASE_PARKING:
		state = ST_READY;
		break;
	case TK_EV_START: case TK_EV_RESUME: case TK_EV_RUN:
		state = ST_RUNNING;
		break;
	case TK_EV_WAIT:
		state = ST_WAITING;
		break;
	case TK_EV_POLL: case TK_EV_POLL_PARKING:
		state = ST_POLLING;
		break;
	case TK_EV_PARK:
		state = ST_PARKING;
		break;
	case TK_EV_TERMINATE:
		r = tk_imap_get(&pw->insts, ent, inst);
		if (!r)
			return;
		if (pw->has_cet) {
			r->cet = pw->v_cet;
			r->flags |= PI_CET;
		}
		if (pw->has_rt) {
			r->rt = pw->v_rt;
			r->flags |= PI_RT;
		}
		write_inst(pw, ent, inst, r, ev->time, 0);
		tk_imap_del(&pw->insts, ent, inst);
		return;
	default:
		return;
	}
	r = tk_imap_get(&pw->insts, ent, inst);
	if (r && ev->kind == TK_EV_ACTIVATE) {
		/* activated again while alive: the old one ends here, open */
		write_inst(pw, ent, inst, r, ev->time, 1);
		tk_imap_del(&pw->insts, ent, inst);
		r = NULL;
	}
	if (!r) {
		uint32_t track = take_track(pw, ent);
		if (!track)
			return;
		r = tk_imap_put(&pw->insts, ent, inst, &created);
		if (!r) {
			free_track(pw, ent, track);
			nomem(pw);
			return;
		}
		r->begin = r->since = ev->time;
		r->st = pw->spare;
		r->capst = pw->capspare;
		pw->spare = NULL;
		pw->capspare = 0;
		r->track = track;
		r->stim = TK_NONE;
		r->lane = -1;
		r->state = state;
		if (ev->kind == TK_EV_ACTIVATE) {
			const tk_entity *src = tk_trace_entity(pw->w->trace, ev->source);
			r->flags = PI_ACT;
			/* who activated it, unless a core; its flow begins on
			 * the track of that source: the instance of a process
			 * alive now, else the core track of the event's lane,
			 * else (no core) */
			if (src && src->type != TK_ET_C && src->type != TK_ET_UNKNOWN) {
				const pinst *sr = NULL;
				long lane = -1;
				r->stim = ev->source;
				if (tk_etype_is_process(src->type))
					sr = tk_imap_get(&pw->insts, ev->source,
							 ev->source_inst);
				if (sr) {
					r->mark_pid = 2;
					r->mark_tid = sr->track;
				} else if ((lane = tk_timeline_event_lane(pw->tl, ev)) >= 0) {
					r->mark_pid = 1;
					r->mark_tid = core_tid(pw, (size_t)lane);
				} else {
					if (!pw->nocore_track)
						pw->nocore_track = new_track(pw, TR_NOCORE, 0, 0);
					r->mark_pid = 1;
					r->mark_tid = pw->nocore_track;
				}
				if (r->mark_tid)
					r->flags |= PI_MARK;
			}
		} else {
			r->flags = PI_STARTED; /* no flow: the activate was not seen */
		}
		if (pw->run_seen && pw->run_start < ev->time &&
		    state != ST_RUNNING) {
			/* it ran since before the trace, as the core's track
			 * shows: Running from then to here */
			r->begin = r->since = pw->run_start;
			r->state = ST_RUNNING;
			r->lane = pw->run_lane;
			end_state(pw, r, ev->time);
			r->since = ev->time;
			r->state = state;
		}
	} else {
		end_state(pw, r, ev->time);
		r->since = ev->time;
		r->state = state;
	}
	r->lane = state == ST_RUNNING ? running_lane(pw, ent, inst) : -1;
	/* the first start of an activated instance: the flow from its
	 * activate (the instance slice) to here (its first Running slice) */
	if (state == ST_RUNNING && (r->flags & PI_ACT) && !r->flow) {
		r->flow = ++pw->flows;
		/* from the mark of the activation on its source's track */
		if (r->flags & PI_MARK)
			out_mark(pw, r->mark_pid, r->mark_tid, r->begin, r->stim,
				 r->flow, 0);
	}
}

static void on_stat_value(void *ctx, uint32_t entity, tk_metric metric,
			  int64_t inst, uint64_t value, uint64_t time)
{
	pf_writer *pw = ctx;

	(void)time;
	if (!pw->ev || entity != pw->ev->target || inst != pw->ev->target_inst)
		return;
	if (metric == TK_METRIC_CET) {
		pw->v_cet = value;
		pw->has_cet = 1;
	} else if (metric == TK_METRIC_RT) {
		pw->v_rt = value;
		pw->has_rt = 1;
	}
}

/* ---- instants ------------------------------------------------------------ */

static void write_instant(pf_writer *pw, const tk_event *ev)
{
	const tk_trace *t = pw->w->trace;
	long lane = tk_timeline_event_lane(pw->tl, ev);
	uint32_t tid;
	const char *s;
	size_t n;

	if (lane >= 0) {
		tid = core_tid(pw, (size_t)lane);
	} else {
		if (!pw->nocore_track)
			pw->nocore_track = new_track(pw, TR_NOCORE, 0, 0);
		tid = pw->nocore_track;
	}
	if (!tid)
		return;
	begin_rec(pw);
	outs(pw, "\"ph\":\"i\",\"s\":\"t\",");
	out_tid(pw, 1, tid);
	out_ts(pw, ev->time);
	outs(pw, ",\"name\":");
	{
		/* "Sig_Speed write" */
		const tk_entity *e = tk_trace_entity(t, ev->target);
		const char *en = e ? tk_trace_str(t, e->name, &n) : "?";
		size_t enl = e ? n : 1;
		const char *evn = tk_trace_str(t, ev->name, &n);
		char *buf = malloc(enl + n + 2);
		if (buf) {
			memcpy(buf, en, enl);
			buf[enl] = ' ';
			memcpy(buf + enl + 1, evn, n);
			out_json(pw, buf, enl + 1 + n);
			free(buf);
		} else {
			out_json(pw, en, enl);
		}
	}
	outs(pw, ",\"cat\":\"");
	outs(pw, tk_etype_name(ev->type));
	outs(pw, "\",\"args\":{\"source\":");
	out_name(pw, ev->source);
	outs(pw, ",\"event\":");
	s = tk_trace_str(t, ev->name, &n);
	out_json(pw, s, n);
	if (ev->target_inst != TK_INST_NONE) {
		outs(pw, ",\"instance\":");
		out_i64(pw, ev->target_inst);
	}
	if (ev->note) {
		outs(pw, ",\"value\":");
		out_json(pw, ev->note, ev->note_len);
	}
	outs(pw, "}}");
}

/* ---- writer ops ---------------------------------------------------------- */

static int perfetto_writer_open(tk_writer *w, tk_error *err)
{
	static const tk_timebase ps = { TK_UNIT_PS, 1, 1 };
	pf_writer *pw = calloc(1, sizeof(*pw));
	const char *cycles = tk_trace_cycle_unit(w->trace);

	if (!pw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = pw;
	pw->w = w;
	pw->err = err;
	pw->name = w->sink.path ? w->sink.path : "<stdout>";
	tk_tlines_init(&pw->tlines, w->trace);
	pw->back.format = "Chrome Trace Event JSON";
	pw->back.what = back_what;
	pw->back.brief = back_brief;
	pw->back.nkinds = 1;
	tk_loadbins_init(&pw->lb, 0);
	tk_imap_init(&pw->insts, sizeof(pinst));
	pw->fast = tk_time_convert(1, tk_trace_timebase(w->trace), &ps,
				   TK_ROUND_EXACT, &pw->ps_per_tick) == TK_OK;
	if (pw->fast && pw->ps_per_tick && pw->ps_per_tick % 1000u == 0) {
		pw->ns_mul = pw->ps_per_tick / 1000u;
		pw->ns_max = UINT64_MAX / pw->ns_mul;
	}
	pw->ns_ok = tk_unit_factor(tk_trace_timebase(w->trace), TK_UNIT_NS,
				   &pw->ns_p, &pw->ns_q) >= 0 && pw->ns_q;
	if (tk_timeline_new(&pw->tl, w->trace, on_slice, on_run, pw, NULL) < 0 ||
	    tk_stats_new(&pw->stats, w->trace, NULL) < 0 ||
	    (w->opts.idle && tk_timeline_set_idle(pw->tl, w->opts.idle,
						  w->opts.nidle) < 0))
		return tk_err_nomem(err, pw->name);
	tk_stats_on_value(pw->stats, on_stat_value, pw);
	outs(pw, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tracekit ");
	outs(pw, tk_version());
	outs(pw, "\",\"time\":\"microseconds since the trace's time zero less metadata.ts_offset_us, each end rounded to whole ns\"");
	if (cycles) {
		/* ticks that count cycles (a Tarmac log): one per ns, said */
		char note[96];
		int n = snprintf(note, sizeof(note),
				 "%.16s cycles: one cycle is shown as 1 ns",
				 cycles);
		outs(pw, ",\"timeUnit\":");
		out_json(pw, note, (size_t)n);
	}
	outs(pw, "},\"traceEvents\":[");
	return pw->rc;
}

static int perfetto_writer_write(tk_writer *w, const tk_event *ev,
				 tk_error *err)
{
	pf_writer *pw = w->impl;
	size_t i;
	int rc;

	pw->err = err;
	/* the time lines after the first (an ATF TraceData whose time starts
	 * again) would be drawn over it, on its tracks */
	if (tk_tlines_of(&pw->tlines, ev) > 1) {
		if (w->opts.strict)
			return tk_err_set(err, TK_E_UNSUPPORTED, pw->name, 0, 0,
					  "Chrome Trace Event JSON of a second time line, TraceData %lu of an ATF file whose time starts again, would be drawn over the first (read one with the reader option trace=N); outside strict mode the first is written with a warning",
					  (unsigned long)pw->tlines.k);
		pw->tlines_left++;
		return TK_OK;
	}
	if (!pw->have_first) {
		tk_u128 ns = 0;
		pw->have_first = 1;
		pw->first = ev->time;
		pw->lb.first = ev->time;
		if (ticks_ns(pw, ev->time, 0, &ns) < 0)
			return pw->rc;
		if (ns >= ABS_LIMIT_NS)
			pw->offset_ns = (uint64_t)(ns > UINT64_MAX ? UINT64_MAX : ns);
		if (ns > UINT64_MAX) {
			set_err(pw, tk_err_set(err, TK_E_RANGE, pw->name, 0, 0,
					       "the first time is beyond 2^64 ns"));
			return pw->rc;
		}
	}
	if (ev->time < pw->now) {
		/* lenient reading keeps decreasing times: they count as now
		 * (the latest time so far), so no slice ends before it began */
		tk_event e = *ev;

		if ((rc = tk_loss_add(&pw->back, w, pw->name, 0, ev, err)) < 0)
			return rc;
		e.time = pw->now;
		return perfetto_writer_write(w, &e, err);
	}
	pw->now = ev->time;
	pw->ev = ev;
	name_pos(pw, ev->source, ev->pos);
	name_pos(pw, ev->target, ev->pos);
	name_pos(pw, ev->core, ev->pos);
	pw->has_cet = pw->has_rt = 0;
	pw->run_seen = 0;
	if (tk_etype_is_process(ev->type) && (rc = tk_stats_event(pw->stats, ev, err)) < 0)
		return tk_err_input(err, pw->name, rc);
	if ((rc = tk_timeline_event(pw->tl, ev, err)) < 0)
		return tk_err_input(err, pw->name, rc);
	switch (ev->type) {
	case TK_ET_SIG: case TK_ET_EVENT: case TK_ET_SEM:
		write_instant(pw, ev);
		break;
	default:
		if (tk_etype_is_process(ev->type))
			on_process(pw, ev);
		break;
	}
	pw->ev = NULL;
	/* the lanes a slice closed on (few), in lane order, rather than a
	 * look at every lane per event */
	for (i = 1; i < pw->ndirty; i++) {
		size_t v = pw->dirtyq[i], j = i;
		for (; j > 0 && pw->dirtyq[j - 1] > v; j--)
			pw->dirtyq[j] = pw->dirtyq[j - 1];
		pw->dirtyq[j] = v;
	}
	for (i = 0; i < pw->ndirty; i++)
		if (pw->lanes[pw->dirtyq[i]].dirty)
			flush_lane(pw, pw->dirtyq[i], 0);
	pw->ndirty = 0;
	return pw->rc < 0 ? pw->rc : TK_OK;
}

static void write_meta(pf_writer *pw, const char *what, uint32_t pid,
		       uint32_t tid, const char *s, size_t n, uint64_t sort)
{
	begin_rec(pw);
	outs(pw, "\"ph\":\"M\",\"name\":\"");
	outs(pw, what);
	outs(pw, "\",");
	if (!tid)
		outs(pw, pid == 1 ? "\"pid\":1" : "\"pid\":2");
	else
		out_tid(pw, pid, tid);
	outs(pw, ",\"args\":{");
	if (s) {
		outs(pw, "\"name\":");
		out_json(pw, s, n);
	} else {
		outs(pw, "\"sort_index\":");
		out_u64(pw, sort);
	}
	outs(pw, "}}");
}

/* the counter "load CORE" (idle == 0) or "idle CORE" (1) of lane `lane`,
 * in windows of `group` load windows each (a power of two) */
static void write_load(pf_writer *pw, size_t lane, int idle, uint64_t last,
		       uint64_t group)
{
	const tk_trace *t = pw->w->trace;
	const tk_entity *e = tk_trace_entity(t, tk_timeline_lane_core(pw->tl, lane));
	size_t cl = 1, li = lane * 2 + (size_t)idle;
	const char *cn = e ? tk_trace_str(t, e->name, &cl) : "?";
	const tk_loadlane *ll = li < pw->lb.nlanes ? &pw->lb.lane[li] : NULL;
	uint64_t span = last - pw->first, b, last_ns = 0;
	uint64_t nwin = (pw->lb.nbins + group - 1) / group;
	/* windows of group load windows: 128 bits (near 2^64 ticks) */
	tk_u128 binw = (tk_u128)pw->lb.binw * group;
	uint32_t k = 0;
	char pct[32], prev[32] = "", *name = malloc(cl + 6);

	if (!name) {
		nomem(pw);
		return;
	}
	memcpy(name, idle ? "idle " : "load ", 5);
	memcpy(name + 5, cn, cl);
	for (b = 0; b < nwin; b++) {
		/* the last window may end at 2^64: 128 bits before the clamp */
		tk_u128 ws = b * binw, wend = ws + binw;
		uint64_t s, end, ns = 0, busy = 0;
		if (ws > span || (ws == span && b))
			break;
		s = (uint64_t)ws;
		end = wend > span ? span : (uint64_t)wend;
		/* the busy ticks of the lane's windows in this one: its
		 * windows in order, walked once */
		while (ll && k < ll->n && ll->bin[k] / group == b)
			busy += ll->busy[k++];
		/* a window starts in the ns it falls in (not a time of the
		 * trace: never counted as rounded); windows narrower than a
		 * ns: the first of each ns */
		if (time_ns(pw, pw->first + s, 1, &ns) < 0)
			break;
		if (b && ns == last_ns)
			continue;
		last_ns = ns;
		if (!(end > s && tk_share_format(busy, end - s, pct, sizeof(pct)) > 0))
			memcpy(pct, "0", 2);
		/* a counter holds its value until the next sample: a window
		 * with the value of the one before adds nothing */
		if (b && strcmp(pct, prev) == 0)
			continue;
		memcpy(prev, pct, sizeof(prev));
		begin_rec(pw);
		outs(pw, "\"ph\":\"C\",\"pid\":1,\"name\":");
		out_json(pw, name, cl + 5);
		outs(pw, ",\"ts\":");
		out_ns_us(pw, ns);
		outs(pw, ",\"args\":{\"percent\":");
		outs(pw, pct);
		outs(pw, "}}");
	}
	free(name);
}

/* the name of track i (a thread_name) */
static void write_track_name(pf_writer *pw, size_t i)
{
	const tk_trace *t = pw->w->trace;
	const ptrack *tr = &pw->tracks[i];
	const tk_entity *e;
	const char *s;
	size_t n = 1;
	char *buf;

	if (tr->kind == TR_NOCORE) {
		write_meta(pw, "thread_name", 1, (uint32_t)i + 1, "(no core)", 9, 0);
		return;
	}
	e = tk_trace_entity(t, tr->kind == TR_PROC ? tr->ref
				: tk_timeline_lane_core(pw->tl, tr->ref));
	s = e ? tk_trace_str(t, e->name, &n) : "?";
	if (tr->kind == TR_CORE || (tr->kind == TR_PROC && !tr->slot)) {
		write_meta(pw, "thread_name", tr->kind == TR_CORE ? 1 : 2,
			   (uint32_t)i + 1, s, n, 0);
		return;
	}
	/* "Core_0 runnables", "Task_A (2)" */
	buf = malloc(n + 32);
	if (!buf) {
		nomem(pw);
		return;
	}
	memcpy(buf, s, n);
	if (tr->kind == TR_RUNNABLES) {
		memcpy(buf + n, " runnables", 10);
		write_meta(pw, "thread_name", 1, (uint32_t)i + 1, buf, n + 10, 0);
	} else {
		int k = snprintf(buf + n, 32, " (%lu)", (unsigned long)tr->slot + 1);
		write_meta(pw, "thread_name", 2, (uint32_t)i + 1, buf,
			   n + (size_t)(k > 0 ? k : 0), 0);
	}
	free(buf);
}

/*
 * cores in lane order, each followed by its runnables; then (no core);
 * processes in order of first use.  Perfetto keeps a sort index in 32
 * signed bits: each is at most INT32_MAX (the order holds up to 2^30 lanes).
 */
static uint64_t track_sort(const pf_writer *pw, const ptrack *tr, size_t i)
{
	uint64_t v;

	switch (tr->kind) {
	case TR_CORE: v = (uint64_t)tr->ref * 2; break;
	case TR_RUNNABLES: v = (uint64_t)tr->ref * 2 + 1; break;
	case TR_NOCORE: v = (uint64_t)pw->nlanes * 2; break;
	default: v = i; break;
	}
	return v > INT32_MAX ? INT32_MAX : v;
}

static int perfetto_writer_close(tk_writer *w, tk_error *err)
{
	pf_writer *pw = w->impl;
	const tk_trace *t = w->trace;
	uint64_t first, last;
	size_t i;
	char label[64];
	int rc;

	pw->err = err;
	if ((rc = tk_timeline_finish(pw->tl, err)) < 0)
		return tk_err_input(err, pw->name, rc);
	tk_timeline_span(pw->tl, &first, &last);
	/* lanes of cores that only ever had non-process events */
	for (i = 0; i < tk_timeline_lane_count(pw->tl); i++)
		if (!core_tid(pw, i))
			return pw->rc;
	for (i = 0; i < pw->nlanes; i++)
		flush_lane(pw, i, 1);
	/* instances alive at the end: open */
	while (pw->insts.count) {
		size_t k = pw->insts.count - 1;
		uint32_t ent = pw->insts.ent[k];
		int64_t inst = pw->insts.inst[k];
		write_inst(pw, ent, inst, (pinst *)(pw->insts.vals + k * pw->insts.vsize),
			   last, 1);
		tk_imap_del(&pw->insts, ent, inst);
	}
	if (tk_trace_cycle_unit(t)) {
		/* the unit's first 8 bytes at most, no character cut */
		const char *u = tk_trace_cycle_unit(t);
		int n = 0;

		while (n < 8 && u[n])
			n++;

		while (u[n] && n > 0 && ((unsigned char)u[n] & 0xC0) == 0x80)
			n--;
		snprintf(label, sizeof(label), "%s trace (%.*s cycles as ns): cores",
			 tk_trace_format(t), n, u);
	} else
		snprintf(label, sizeof(label), "%s trace: cores", tk_trace_format(t));
	write_meta(pw, "process_name", 1, 0, label, strlen(label), 0);
	write_meta(pw, "process_sort_index", 1, 0, NULL, 0, 0);
	snprintf(label, sizeof(label), "%s trace: processes", tk_trace_format(t));
	write_meta(pw, "process_name", 2, 0, label, strlen(label), 0);
	write_meta(pw, "process_sort_index", 2, 0, NULL, 0, 1);
	for (i = 0; i < pw->ntracks; i++) {
		const ptrack *tr = &pw->tracks[i];
		write_track_name(pw, i);
		write_meta(pw, "thread_sort_index", tr->kind == TR_PROC ? 2 : 1,
			   (uint32_t)i + 1, NULL, 0, track_sort(pw, tr, i));
	}
	if (pw->have_first) {
		/* with many lanes, wider windows: LOAD_LANE_WINDOWS in all */
		uint64_t group = 1, cap = pw->nlanes * (pw->idle_lanes ? 2 : 1);
		cap = cap ? LOAD_LANE_WINDOWS / cap : LOAD_LANE_WINDOWS;
		if (cap < LOAD_MIN_WINDOWS)
			cap = LOAD_MIN_WINDOWS;
		while ((pw->lb.nbins + group - 1) / group > cap)
			group *= 2;
		for (i = 0; i < pw->nlanes; i++) {
			write_load(pw, i, 0, last, group);
			if (pw->idle_lanes)
				write_load(pw, i, 1, last, group);
		}
	}
	/* strings: Perfetto shows a double metadata value with %g */
	outs(pw, "\n],\"metadata\":{\"ts_offset_us\":\"");
	out_ns_us(pw, pw->offset_ns);
	outs(pw, "\"");
	if (pw->have_first) {
		outs(pw, ",\"first_event_us\":\"");
		out_dur_us(pw, pw->first);
		outs(pw, "\"");
	}
	outs(pw, ",\"flows\":");
	out_u64(pw, pw->flows);
	outs(pw, "}}\n");
	if (pw->rc >= 0)
		tk_loss_report(&pw->back, w, pw->name);
	if (pw->rc >= 0 && w->opts.on_warning && (pw->rounded || pw->tlines_left)) {
		tk_error wn;

		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", pw->name);
		if (pw->tlines_left) {
			snprintf(wn.msg, sizeof(wn.msg),
				 "Chrome Trace Event JSON holds the first of %lu time lines, ATF TraceData whose time starts again: %llu events of the others left out, not drawn over it (read one with the reader option trace=N); strict mode refuses them",
				 (unsigned long)pw->tlines.k,
				 (unsigned long long)pw->tlines_left);
			w->opts.on_warning(w->opts.warning_ctx, &wn);
		}
		if (pw->rounded) {
			snprintf(wn.msg, sizeof(wn.msg),
				 "Chrome Trace Event JSON cannot hold everything: %llu times that are not whole ns rounded to the nearest ns (Perfetto reads whole ns; strict mode refuses)",
				 (unsigned long long)pw->rounded);
			w->opts.on_warning(w->opts.warning_ctx, &wn);
		}
	}
	return pw->rc < 0 ? pw->rc : TK_OK;
}

static void perfetto_writer_free(tk_writer *w)
{
	pf_writer *pw = w->impl;
	size_t i;

	if (!pw)
		return;
	for (i = 0; i < pw->nlanes; i++)
		free(pw->lanes[i].pend);
	for (i = 0; i < pw->insts.count; i++)
		free(((pinst *)(pw->insts.vals + i * pw->insts.vsize))->st);
	for (i = 0; i < pw->capnames; i++)
		free(pw->names[i].json);
	free(pw->names);
	free(pw->big);
	free(pw->spare);
	for (i = 0; i < pw->capents; i++) {
		free(pw->ents[i].tracks);
		free(pw->ents[i].busy);
	}
	free(pw->ents);
	free(pw->tracks);
	free(pw->lanes);
	free(pw->dirtyq);
	tk_imap_free(&pw->insts);
	tk_loadbins_free(&pw->lb);
	tk_stats_free(pw->stats);
	tk_timeline_free(pw->tl);
	free(pw);
	w->impl = NULL;
}

const tk_format_ops tk_format_perfetto = {
	.info = {
		.name = "perfetto",
		.extensions = "json",
		.description = "Chrome Trace Event JSON for ui.perfetto.dev and chrome://tracing (export only)",
		.caps = TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.writer_open = perfetto_writer_open,
	.writer_write = perfetto_writer_write,
	.writer_close = perfetto_writer_close,
	.writer_free = perfetto_writer_free,
};
