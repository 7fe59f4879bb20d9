/*
 * perfetto_writer.c - Chrome Trace Event JSON, as ui.perfetto.dev and
 * chrome://tracing open it (docs/exports.md).
 *
 * Tracks: one process (pid 1) named after the trace; one thread per core
 * (tid = lane + 1, in order of first appearance, named after the core and
 * sorted by that order); tid 1000000 holds the instants that belong to no
 * core.  The slices are those of the timeline (timeline.h): process
 * instances per core with the processes that preempt them and their
 * runnables nested inside.  Signals, OS events and semaphores are instant
 * events on the track of their source's core.  Core load is one counter
 * track per core ("C" events), in percent per window; the window doubles
 * whenever the trace outgrows TK_LOAD_BINS windows, so its size is bounded.
 *
 * Viewers nest "X" events of one track by start time and, at equal starts,
 * by the order in the file (Perfetto also by duration), so a slice must be
 * written before the slices nested in it: closed slices wait per lane until
 * no open slice can start at or before them (tk_timeline_lane_floor), then
 * go out sorted by (start, depth), slices of equal start and depth in the
 * order they closed.  The waiting slices of a lane are a binary min-heap on
 * that order, so a slice that stays open the whole trace (a background task
 * under everything else) costs O(log n) per slice, not a sort per event.
 *
 * Times: microseconds since the first event, written as exact decimals
 * from integer arithmetic ("1.2" for 1200 ns, "0.000001" for 1 ps); a
 * time with no finite decimal is rounded down to ps and counted (strict
 * mode refuses it).
 */
#include "../../core/internal.h"
#include "../../analysis/loadbins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOCORE_TID 1000000u

typedef struct pslice {
	uint64_t start, end;
	uint32_t depth, entity;
	int64_t inst;
	tk_etype type;
	unsigned flags;
	uint64_t activated, cet;
	uint64_t seq;          /* order of closing: ties of (start, depth) */
} pslice;

typedef struct plane {
	pslice *pend;          /* closed, not yet written: a min-heap (slice_before) */
	size_t npend, cappend;
	uint64_t seq;          /* slices closed on this lane so far */
	int dirty;
} plane;

typedef struct pf_writer {
	const char *name;
	tk_timeline *tl;
	plane *lanes;
	size_t nlanes, caplanes;
	size_t *dirtyq;        /* the lanes with dirty set, in no order */
	size_t ndirty, capdirty;
	uint64_t first;
	int have_first;
	int fast;              /* a tick is a whole number of ps */
	uint64_t ps_per_tick;
	tk_loadbins lb;        /* busy ticks per lane and load window */
	int nocore_used;
	uint64_t nrecords;
	uint64_t rounded;      /* times rounded down to ps (no finite decimal) */
	int rc;                /* first error of a callback */
	tk_error *err;
	tk_writer *w;
} pf_writer;

/* ---- output helpers ------------------------------------------------------ */

static int out(pf_writer *pw, const char *s, size_t n)
{
	if (pw->rc < 0)
		return pw->rc;
	pw->rc = tk_sink_write(&pw->w->sink, s, n, pw->err);
	return pw->rc;
}

static int outs(pf_writer *pw, const char *s)
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

/* a JSON string (with its quotes) */
static int out_json(pf_writer *pw, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, from = 0;
	char esc[8];

	out(pw, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		out(pw, s + from, i - from);
		from = i + 1;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			out(pw, esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			out(pw, esc, 6);
		}
	}
	out(pw, s + from, n - from);
	return out(pw, "\"", 1);
}

static int out_name(pf_writer *pw, uint32_t ent)
{
	const tk_entity *e = tk_trace_entity(pw->w->trace, ent);
	const char *s;
	size_t n;

	if (!e)
		return out_json(pw, "?", 1);
	s = tk_trace_str(pw->w->trace, e->name, &n);
	return out_json(pw, s, n);
}

/* `ps` picoseconds in microseconds: an exact decimal */
static int out_ps_us(pf_writer *pw, tk_u128 ps)
{
	char b[64];
	uint32_t frac = (uint32_t)(ps % 1000000u);
	size_t len = tk_fmt_u128(b, ps / 1000000u);
	int d;

	if (frac) {
		b[len++] = '.';
		for (d = 100000; d && frac; d /= 10) {
			b[len++] = (char)('0' + frac / (uint32_t)d);
			frac %= (uint32_t)d;
		}
	}
	return out(pw, b, len);
}

/* `ticks` (a duration or a time since the first event) in microseconds */
static int out_us(pf_writer *pw, uint64_t ticks)
{
	char b[200];
	tk_u128 p, q;
	int n;

	if (pw->fast)
		return out_ps_us(pw, (tk_u128)ticks * pw->ps_per_tick);
	n = tk_time_format(ticks, tk_trace_timebase(pw->w->trace), TK_UNIT_US,
			   b, sizeof(b));
	if (n > 0 && !memchr(b, '/', (size_t)n))
		return out(pw, b, (size_t)n);
	/*
	 * No finite decimal (a time base of 1/3 ns): whole picoseconds,
	 * rounded down, computed in 128 bits (they may pass 2^64) and counted
	 * (a warning at close), or refused in strict mode.
	 */
	if (pw->w->opts.strict) {
		const tk_timebase *tb = tk_trace_timebase(pw->w->trace);
		if (pw->rc >= 0)
			pw->rc = tk_err_set(pw->err, TK_E_UNSUPPORTED, pw->name, 0, 0,
					    "Chrome Trace Event JSON cannot hold a time of %llu ticks of %llu/%llu %s exactly (no finite decimal of us); without --strict it is rounded down to ps with a warning",
					    (unsigned long long)ticks,
					    (unsigned long long)tb->num,
					    (unsigned long long)tb->den,
					    tk_unit_name(tb->unit));
		return pw->rc;
	}
	if (tk_unit_factor(tk_trace_timebase(pw->w->trace), TK_UNIT_PS, &p,
			   &q) < 0 || (ticks && p > ~(tk_u128)0 / ticks)) {
		if (pw->rc >= 0)
			pw->rc = tk_err_set(pw->err, TK_E_RANGE, pw->name, 0, 0,
					    "%llu ticks are beyond 2^128 ps",
					    (unsigned long long)ticks);
		return pw->rc;
	}
	pw->rounded++;
	return out_ps_us(pw, (tk_u128)ticks * p / q);
}

/* start of one trace event record */
static int begin_rec(pf_writer *pw)
{
	return outs(pw, pw->nrecords++ ? ",\n{" : "\n{");
}

static int out_tid(pf_writer *pw, long lane)
{
	outs(pw, "\"pid\":1,\"tid\":");
	return out_u64(pw, lane >= 0 ? (uint64_t)lane + 1 : NOCORE_TID);
}

/* ---- lanes, load windows ------------------------------------------------- */

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

static void on_run(void *ctx, uint32_t lane, uint32_t entity, int64_t inst,
		   uint64_t start, uint64_t end)
{
	pf_writer *pw = ctx;

	(void)entity;
	(void)inst;
	if (!lane_at(pw, lane) || tk_loadbins_add(&pw->lb, lane, start, end) < 0) {
		if (pw->rc >= 0)
			pw->rc = tk_err_nomem(pw->err, pw->name);
	}
}

/* ---- slices -------------------------------------------------------------- */

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
	plane *l = lane_at(pw, s->lane);
	pslice *p;

	if (!l || tk_grow_zero((void **)&l->pend, &l->cappend, l->npend,
			       sizeof(*l->pend)) < 0) {
		if (pw->rc >= 0)
			pw->rc = tk_err_nomem(pw->err, pw->name);
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
	p->activated = s->activated;
	p->cet = s->cet;
	p->seq = l->seq++;
	heap_up(l->pend, l->npend++);
	if (l->dirty)
		return;
	if (tk_grow_zero((void **)&pw->dirtyq, &pw->capdirty, pw->ndirty,
			   sizeof(*pw->dirtyq)) < 0) {
		if (pw->rc >= 0)
			pw->rc = tk_err_nomem(pw->err, pw->name);
		return;
	}
	pw->dirtyq[pw->ndirty++] = s->lane;
	l->dirty = 1;
}

static void write_slice(pf_writer *pw, size_t lane, const pslice *p)
{
	static const char *const fl[] = { "cut-start", "cut-end", "open",
					  "began-before-trace", "migrated",
					  "terminated" };
	int i, n = 0;

	begin_rec(pw);
	outs(pw, "\"ph\":\"X\",");
	out_tid(pw, (long)lane);
	outs(pw, ",\"ts\":");
	out_us(pw, p->start - pw->first);
	outs(pw, ",\"dur\":");
	out_us(pw, p->end - p->start);
	outs(pw, ",\"name\":");
	out_name(pw, p->entity);
	outs(pw, ",\"cat\":\"");
	outs(pw, tk_etype_name(p->type));
	outs(pw, "\",\"args\":{\"instance\":");
	if (p->inst == TK_INST_NONE)
		outs(pw, "null");
	else
		out_i64(pw, p->inst);
	if (p->flags & TK_SLICE_TERMINATED && tk_etype_is_process(p->type)) {
		outs(pw, ",\"CET_us\":");
		out_us(pw, p->cet);
		if (p->activated != UINT64_MAX && p->activated <= p->end) {
			outs(pw, ",\"RT_us\":");
			out_us(pw, p->end - p->activated);
		}
	}
	for (i = 0; i < 6; i++) {
		if (!(p->flags & (1u << i)))
			continue;
		outs(pw, n++ ? "," : ",\"flags\":\"");
		outs(pw, fl[i]);
	}
	if (n)
		outs(pw, "\"");
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

/* ---- instants ------------------------------------------------------------ */

static void write_instant(pf_writer *pw, const tk_event *ev)
{
	const tk_trace *t = pw->w->trace;
	long lane = tk_timeline_event_lane(pw->tl, ev);
	const char *s;
	size_t n;

	if (lane < 0)
		pw->nocore_used = 1;
	begin_rec(pw);
	outs(pw, "\"ph\":\"i\",\"s\":\"t\",");
	out_tid(pw, lane);
	outs(pw, ",\"ts\":");
	out_us(pw, ev->time - pw->first);
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

	if (!pw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = pw;
	pw->w = w;
	pw->err = err;
	pw->name = w->sink.path ? w->sink.path : "<stdout>";
	tk_loadbins_init(&pw->lb, 0);
	pw->fast = tk_time_convert(1, tk_trace_timebase(w->trace), &ps,
				   TK_ROUND_EXACT, &pw->ps_per_tick) == TK_OK;
	if (tk_timeline_new(&pw->tl, w->trace, on_slice, on_run, pw, NULL) < 0)
		return tk_err_nomem(err, pw->name);
	outs(pw, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tracekit ");
	outs(pw, tk_version());
	outs(pw, "\",\"time\":\"microseconds since the first event\"},\"traceEvents\":[");
	return pw->rc;
}

static int perfetto_writer_write(tk_writer *w, const tk_event *ev,
				 tk_error *err)
{
	pf_writer *pw = w->impl;
	size_t i;

	pw->err = err;
	if (!pw->have_first) {
		pw->have_first = 1;
		pw->first = ev->time;
		pw->lb.first = ev->time;
	}
	if (ev->time < pw->first) {
		/* lenient reading keeps decreasing times: they count as now */
		tk_event e = *ev;
		e.time = pw->first;
		return perfetto_writer_write(w, &e, err);
	}
	if (tk_timeline_event(pw->tl, ev) < 0)
		return tk_err_nomem(err, pw->name);
	switch (ev->type) {
	case TK_ET_SIG: case TK_ET_EVENT: case TK_ET_SEM:
		write_instant(pw, ev);
		break;
	default:
		break;
	}
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

static void write_meta(pf_writer *pw, const char *what, long lane,
		       const char *s, size_t n, uint64_t sort)
{
	begin_rec(pw);
	outs(pw, "\"ph\":\"M\",\"name\":\"");
	outs(pw, what);
	outs(pw, "\",");
	if (lane == -2)
		outs(pw, "\"pid\":1");
	else
		out_tid(pw, lane);
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

static void write_load(pf_writer *pw, size_t lane, uint64_t last)
{
	const tk_trace *t = pw->w->trace;
	const tk_entity *e = tk_trace_entity(t, tk_timeline_lane_core(pw->tl, lane));
	size_t cl = 1;
	const char *cn = e ? tk_trace_str(t, e->name, &cl) : "?";
	uint64_t span = last - pw->first, b;
	char pct[32], *name = malloc(cl + 6);

	if (!name) {
		if (pw->rc >= 0)
			pw->rc = tk_err_nomem(pw->err, pw->name);
		return;
	}
	memcpy(name, "load ", 5);
	memcpy(name + 5, cn, cl);
	for (b = 0; b < pw->lb.nbins; b++) {
		/* the last window may end at 2^64: 128 bits before the clamp */
		uint64_t s = b * pw->lb.binw, end;
		tk_u128 wend = (tk_u128)s + pw->lb.binw;
		end = wend > span ? span : (uint64_t)wend;
		if (end <= s && b)
			break;
		begin_rec(pw);
		outs(pw, "\"ph\":\"C\",\"pid\":1,\"name\":");
		out_json(pw, name, cl + 5);
		outs(pw, ",\"ts\":");
		out_us(pw, s);
		outs(pw, ",\"args\":{\"percent\":");
		if (end > s && tk_share_format(tk_loadbins_busy(&pw->lb, lane, b), end - s,
					       pct, sizeof(pct)) > 0)
			outs(pw, pct);
		else
			outs(pw, "0");
		outs(pw, "}}");
	}
	free(name);
}

static int perfetto_writer_close(tk_writer *w, tk_error *err)
{
	pf_writer *pw = w->impl;
	const tk_trace *t = w->trace;
	uint64_t first, last;
	size_t i, n;
	char label[64];

	pw->err = err;
	if (tk_timeline_finish(pw->tl) < 0)
		return tk_err_nomem(err, pw->name);
	tk_timeline_span(pw->tl, &first, &last);
	/* lanes of cores that only ever had non-process events */
	for (i = 0; i < tk_timeline_lane_count(pw->tl); i++)
		if (!lane_at(pw, i))
			return tk_err_nomem(err, pw->name);
	for (i = 0; i < pw->nlanes; i++)
		flush_lane(pw, i, 1);
	snprintf(label, sizeof(label), "%s trace", tk_trace_format(t));
	write_meta(pw, "process_name", -2, label, strlen(label), 0);
	for (i = 0; i < pw->nlanes; i++) {
		const tk_entity *e = tk_trace_entity(t, tk_timeline_lane_core(pw->tl, i));
		const char *s = e ? tk_trace_str(t, e->name, &n) : "?";
		if (!e)
			n = 1;
		write_meta(pw, "thread_name", (long)i, s, n, 0);
		write_meta(pw, "thread_sort_index", (long)i, NULL, 0, i);
	}
	if (pw->nocore_used)
		write_meta(pw, "thread_name", -1, "(no core)", 9, 0);
	if (pw->have_first)
		for (i = 0; i < pw->nlanes; i++)
			write_load(pw, i, last);
	outs(pw, "\n]}\n");
	if (pw->rc >= 0 && pw->rounded && w->opts.on_warning) {
		tk_error wn;

		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", pw->name);
		snprintf(wn.msg, sizeof(wn.msg),
			 "Chrome Trace Event JSON cannot hold everything: %llu times with no finite decimal of us rounded down to ps (--strict refuses)",
			 (unsigned long long)pw->rounded);
		w->opts.on_warning(w->opts.warning_ctx, &wn);
	}
	return pw->rc < 0 ? pw->rc : TK_OK;
}

static void perfetto_writer_free(tk_writer *w)
{
	pf_writer *pw = w->impl;
	size_t i;

	if (!pw)
		return;
	for (i = 0; i < pw->nlanes; i++) {
		free(pw->lanes[i].pend);
	}
	free(pw->lanes);
	free(pw->dirtyq);
	tk_loadbins_free(&pw->lb);
	tk_timeline_free(pw->tl);
	free(pw);
	w->impl = NULL;
}

const tk_format_ops tk_format_perfetto = {
	.info = {
		.name = "perfetto",
		.extensions = "json",
		.description = "Chrome Trace Event JSON for ui.perfetto.dev and chrome://tracing (export only)",
		.caps = TK_CAP_WRITE,
	},
	.writer_open = perfetto_writer_open,
	.writer_write = perfetto_writer_write,
	.writer_close = perfetto_writer_close,
	.writer_free = perfetto_writer_free,
};
