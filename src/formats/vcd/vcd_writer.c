/*
 * vcd_writer.c - a Value Change Dump (IEEE 1364 §18) for GTKWave
 * (docs/exports.md).
 *
 * Variables:
 *  - per core (scope cores.<core>), from the timeline (timeline.h):
 *    `running`, a string variable holding the name of the process
 *    allocated to the core, or "idle"; and `load_permille`, a 32-bit
 *    integer: the core's load in per mille of each load window (the time
 *    a process is allocated to it, as `tracekit load` counts, * 1000 /
 *    the window, rounded down), changing at the window starts.  The
 *    window is the smallest power-of-two number of ticks that covers the
 *    trace in at most TK_LOAD_BINS windows (as perfetto's load counters);
 *    the header's comment gives it;
 *  - per process (T, I, THR; scope tasks): a wire, 1 while the process is
 *    allocated to some core, 0 otherwise;
 *  - per runnable (R, SYSC; scope runnables): a wire, 1 from start (or
 *    resume) to terminate (or suspend) of any of its instances;
 *  - per signal (SIG; scope signals): an `event` variable that fires at
 *    each read and write, and (scope signal_values) a string variable with
 *    the value (note) of the last write, "-" before the first.
 *
 * The declarations must come first but the entity table is complete only
 * at the end, so the value changes are spilled to a temporary file and
 * copied behind the header at close.  A trace with no core has nothing to
 * draw: close fails, and the sink (with its temporary file) is removed.
 *
 * Timescale: the largest of 1/10/100 s, ms, us, ns, ps, fs of which one
 * tick is a whole multiple; VCD times are the event times (not rebased)
 * in that timescale.  A time base with no such timescale (1/3 ns) is
 * refused at open.
 *
 * Names: VCD identifiers end at white space, so every byte outside '!'..'~'
 * in a scope, variable or string value is written as '_'.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "../../core/internal.h"
#include "../../analysis/loadbins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct vlane {
	uint32_t running;      /* entity allocated, or TK_NONE */
	uint32_t run_id, load_id;
} vlane;

typedef struct vcd_writer {
	const char *name;
	tk_timeline *tl;
	FILE *spill;
	vlane *lanes;
	size_t nlanes, caplanes;
	uint32_t *wire_id;     /* per entity: id + 1, 0 when none yet */
	uint32_t *nrun;        /* per entity: cores it is allocated to (a
				* process), instances active (a runnable) */
	uint32_t *val_id;      /* per signal entity: value variable id + 1 */
	uint8_t *seen;         /* per entity: a runnable or signal declared */
	size_t capents;
	uint32_t next_id;
	uint64_t mult;         /* timescale units per tick */
	const char *timescale;
	uint64_t first, last;  /* event times (ticks) */
	int have_first;
	int time_open;         /* a "#time" line for `last` is written */
	uint64_t written;      /* the time of the last "#time" line */
	tk_loadbins lb;        /* busy ticks per lane and load window */
	int nomem;             /* the run callback ran out of memory */
} vcd_writer;

/* ---- helpers ------------------------------------------------------------- */

/* VCD identifier code of variable number n: base 94 over '!'..'~' */
static size_t fmt_id(char *out, uint32_t n)
{
	size_t len = 0;

	do {
		out[len++] = (char)('!' + n % 94);
		n /= 94;
	} while (n);
	return len;
}

static void put_name(FILE *f, const char *s, size_t n)
{
	size_t i;

	if (!n) {
		fputc('_', f);
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		fputc(c > ' ' && c < 0x7f ? c : '_', f);
	}
}

static void put_entity(vcd_writer *vw, FILE *f, const tk_trace *t, uint32_t ent)
{
	const tk_entity *e = ent == TK_NONE ? NULL : tk_trace_entity(t, ent);
	const char *s;
	size_t n;

	(void)vw;
	if (!e) {
		fputs(ent == TK_NONE ? "idle" : "?", f);
		return;
	}
	s = tk_trace_str(t, e->name, &n);
	put_name(f, s, n);
}

static void put_id(FILE *f, uint32_t id)
{
	char b[8];

	fwrite(b, 1, fmt_id(b, id), f);
}

/* The per-entity arrays hold n entries (new ones zero).  0, or -1 out of
 * memory. */
static int grow_ents(vcd_writer *vw, size_t n)
{
	void **arr[4] = { (void **)&vw->wire_id, (void **)&vw->nrun,
			  (void **)&vw->val_id, (void **)&vw->seen };
	const size_t esize[4] = { sizeof(*vw->wire_id), sizeof(*vw->nrun),
				  sizeof(*vw->val_id), sizeof(*vw->seen) };
	size_t cap = vw->capents;
	int i;

	if (n <= vw->capents)
		return 0;
	for (i = 0; i < 4; i++) {
		cap = vw->capents;
		if (tk_grow_zero(arr[i], &cap, n - 1, esize[i]) < 0)
			return -1;
	}
	vw->capents = cap;
	return 0;
}

static uint32_t wire_of(vcd_writer *vw, uint32_t ent)
{
	if (!vw->wire_id[ent])
		vw->wire_id[ent] = ++vw->next_id;
	return vw->wire_id[ent] - 1;
}

static uint32_t val_of(vcd_writer *vw, uint32_t ent)
{
	if (!vw->val_id[ent])
		vw->val_id[ent] = ++vw->next_id;
	return vw->val_id[ent] - 1;
}

static vlane *lane_at(vcd_writer *vw, size_t i)
{
	while (vw->nlanes <= i) {
		if (tk_grow_zero((void **)&vw->lanes, &vw->caplanes, vw->nlanes,
				   sizeof(*vw->lanes)) < 0)
			return NULL;
		vw->lanes[vw->nlanes].running = TK_NONE;
		vw->lanes[vw->nlanes].run_id = vw->next_id++;
		vw->lanes[vw->nlanes].load_id = vw->next_id++;
		vw->nlanes++;
	}
	return &vw->lanes[i];
}

/* the "#time" line before the first change at time `last` */
static void open_time(vcd_writer *vw)
{
	if (vw->time_open)
		return;
	fprintf(vw->spill, "#%llu\n", (unsigned long long)(vw->last * vw->mult));
	vw->time_open = 1;
	vw->written = vw->last;
}

/* a run interval of the timeline: add it to the lane's load windows */
static void on_run(void *ctx, uint32_t lane, uint32_t entity, int64_t inst,
		   uint64_t start, uint64_t end)
{
	vcd_writer *vw = ctx;

	(void)entity;
	(void)inst;
	/* lenient reading keeps times that go back: the windows clamp them */
	if (!lane_at(vw, lane) || tk_loadbins_add(&vw->lb, lane, start, end) < 0)
		vw->nomem = 1;
}

/* the load of lane i in window b, per mille (rounded down) */
static uint64_t load_at(const vcd_writer *vw, size_t i, uint64_t b)
{
	uint64_t span = vw->last - vw->first, s = b * vw->lb.binw, end;
	/* the last window may end at 2^64: 128 bits before the clamp */
	tk_u128 wend = (tk_u128)s + vw->lb.binw;

	end = wend > span ? span : (uint64_t)wend;
	if (end <= s)
		return 0;
	return (uint64_t)((tk_u128)tk_loadbins_busy(&vw->lb, i, (size_t)b) * 1000 / (end - s));
}

static void put_bin(FILE *f, uint64_t v)
{
	char b[72];
	int n = 0;

	do {
		b[n++] = (char)('0' + (v & 1));
		v >>= 1;
	} while (v);
	fputc('b', f);
	while (n)
		fputc(b[--n], f);
	fputc(' ', f);
}

/* The load changes of window b (> 0) on every lane whose value changes. */
static void put_loads(vcd_writer *vw, FILE *f, uint64_t b)
{
	size_t i;

	for (i = 0; i < vw->nlanes; i++) {
		uint64_t v = load_at(vw, i, b);
		if (v == load_at(vw, i, b - 1))
			continue;
		put_bin(f, v);
		put_id(f, vw->lanes[i].load_id);
		fputc('\n', f);
	}
}

/* the first window after b whose start is before the last event, or 0 */
static uint64_t next_window(const vcd_writer *vw, uint64_t b)
{
	b++;
	if (b >= vw->lb.nbins || b * vw->lb.binw >= vw->last - vw->first)
		return 0;
	return b;
}

/* ---- writer ops ---------------------------------------------------------- */

static const struct {
	const char *name;
	tk_timebase tb;
} scales[] = {
	{ "100 s", { TK_UNIT_S, 100, 1 } }, { "10 s", { TK_UNIT_S, 10, 1 } },
	{ "1 s", { TK_UNIT_S, 1, 1 } }, { "100 ms", { TK_UNIT_MS, 100, 1 } },
	{ "10 ms", { TK_UNIT_MS, 10, 1 } }, { "1 ms", { TK_UNIT_MS, 1, 1 } },
	{ "100 us", { TK_UNIT_US, 100, 1 } }, { "10 us", { TK_UNIT_US, 10, 1 } },
	{ "1 us", { TK_UNIT_US, 1, 1 } }, { "100 ns", { TK_UNIT_NS, 100, 1 } },
	{ "10 ns", { TK_UNIT_NS, 10, 1 } }, { "1 ns", { TK_UNIT_NS, 1, 1 } },
	{ "100 ps", { TK_UNIT_PS, 100, 1 } }, { "10 ps", { TK_UNIT_PS, 10, 1 } },
	{ "1 ps", { TK_UNIT_PS, 1, 1 } }, { "100 fs", { TK_UNIT_PS, 1, 10 } },
	{ "10 fs", { TK_UNIT_PS, 1, 100 } }, { "1 fs", { TK_UNIT_PS, 1, 1000 } },
};

static int vcd_writer_open(tk_writer *w, tk_error *err)
{
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	vcd_writer *vw = calloc(1, sizeof(*vw));
	size_t i;

	if (!vw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = vw;
	vw->name = w->sink.path ? w->sink.path : "<stdout>";
	for (i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
		if (tk_time_convert(1, tb, &scales[i].tb, TK_ROUND_EXACT,
				    &vw->mult) == TK_OK && vw->mult) {
			vw->timescale = scales[i].name;
			break;
		}
	if (!vw->timescale)
		return tk_err_set(err, TK_E_UNSUPPORTED, vw->name, 0, 0,
				  "VCD cannot hold a tick of %llu/%llu %s exactly (its timescales are 1, 10 or 100 s, ms, us, ns, ps or fs)",
				  (unsigned long long)tb->num,
				  (unsigned long long)tb->den,
				  tk_unit_name(tb->unit));
	vw->spill = tmpfile();
	if (!vw->spill)
		return tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				  "cannot create a temporary file");
	tk_loadbins_init(&vw->lb, 0);
	if (tk_timeline_new(&vw->tl, w->trace, NULL, on_run, vw, NULL) < 0)
		return tk_err_nomem(err, vw->name);
	return TK_OK;
}

static int vcd_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	vcd_writer *vw = w->impl;
	uint64_t t = ev->time;
	size_t i, n;
	long touched;

	if (!vw->have_first) {
		vw->have_first = 1;
		vw->first = vw->last = vw->written = t;
		vw->lb.first = t;
		vw->time_open = 1; /* the header's "#first $dumpvars" */
	}
	if (t < vw->last)
		t = vw->last; /* lenient reading keeps decreasing times */
	if ((unsigned __int128)t * vw->mult > UINT64_MAX)
		return tk_err_set(err, TK_E_RANGE, vw->name, 0, 0,
				  "time %llu does not fit VCD's 64-bit times in %s",
				  (unsigned long long)t, vw->timescale);
	if (t != vw->last) {
		vw->last = t;
		vw->time_open = 0;
	}
	if (tk_timeline_event(vw->tl, ev) < 0 ||
	    grow_ents(vw, tk_trace_entity_count(w->trace)) < 0)
		return tk_err_nomem(err, vw->name);
	/* new lanes start idle; only the lane the event touched can change
	 * its running process, so the cost per event does not grow with the
	 * number of cores */
	n = tk_timeline_lane_count(vw->tl);
	for (i = vw->nlanes; i < n; i++)
		if (!lane_at(vw, i))
			return tk_err_nomem(err, vw->name);
	touched = tk_timeline_touched_lane(vw->tl);
	for (i = touched < 0 ? n : (size_t)touched; i < n; i = n) {
		vlane *l = lane_at(vw, i);
		uint32_t ent = TK_NONE;
		int64_t inst;

		if (!l)
			return tk_err_nomem(err, vw->name);
		if (!tk_timeline_running(vw->tl, i, &ent, &inst))
			ent = TK_NONE;
		if (ent == l->running)
			continue;
		open_time(vw);
		if (l->running != TK_NONE && --vw->nrun[l->running] == 0) {
			fputc('0', vw->spill);
			put_id(vw->spill, wire_of(vw, l->running));
			fputc('\n', vw->spill);
		}
		if (ent != TK_NONE && vw->nrun[ent]++ == 0) {
			fputc('1', vw->spill);
			put_id(vw->spill, wire_of(vw, ent));
			fputc('\n', vw->spill);
		}
		fputc('s', vw->spill);
		put_entity(vw, vw->spill, w->trace, ent);
		fputc(' ', vw->spill);
		put_id(vw->spill, l->run_id);
		fputc('\n', vw->spill);
		l->running = ent;
	}
	if (vw->nomem)
		return tk_err_nomem(err, vw->name);
	if ((ev->type == TK_ET_R || ev->type == TK_ET_SYSC) &&
	    ev->target != TK_NONE) {
		uint32_t *c = &vw->nrun[ev->target];
		int was = *c > 0;
		vw->seen[ev->target] = 1;
		if (ev->kind == TK_EV_START || ev->kind == TK_EV_RESUME)
			++*c;
		else if ((ev->kind == TK_EV_TERMINATE ||
			  ev->kind == TK_EV_SUSPEND) && *c)
			--*c;
		if (was != (*c > 0)) {
			open_time(vw);
			fputc(*c ? '1' : '0', vw->spill);
			put_id(vw->spill, wire_of(vw, ev->target));
			fputc('\n', vw->spill);
		}
	} else if (ev->type == TK_ET_SIG && ev->target != TK_NONE) {
		vw->seen[ev->target] = 1;
		open_time(vw);
		fputc('1', vw->spill);
		put_id(vw->spill, wire_of(vw, ev->target));
		fputc('\n', vw->spill);
		if (ev->kind == TK_EV_WRITE && ev->note) {
			fputc('s', vw->spill);
			put_name(vw->spill, ev->note, ev->note_len);
			fputc(' ', vw->spill);
			put_id(vw->spill, val_of(vw, ev->target));
			fputc('\n', vw->spill);
		}
	}
	if (ferror(vw->spill))
		return tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				  "cannot write the temporary file");
	return TK_OK;
}

/* Write the load changes of window b, after a "#time" line if `with_time`. */
static int emit_window(tk_writer *w, vcd_writer *vw, uint64_t b,
		       int with_time, tk_error *err)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	int rc;

	if (!f)
		return tk_err_nomem(err, vw->name);
	if (with_time)
		fprintf(f, "#%llu\n", (unsigned long long)
			((vw->first + b * vw->lb.binw) * vw->mult));
	put_loads(vw, f, b);
	if (fclose(f) != 0) {
		free(p);
		return tk_err_nomem(err, vw->name);
	}
	rc = tk_sink_write(&w->sink, p, n, err);
	free(p);
	return rc;
}

static int vcd_writer_close(tk_writer *w, tk_error *err)
{
	vcd_writer *vw = w->impl;
	const tk_trace *t = w->trace;
	char *hdr = NULL, *line = NULL;
	size_t hlen = 0, i, ne, lcap = 0;
	ssize_t n;
	uint64_t nb, wt, at;
	FILE *h;
	int rc;

	if (tk_timeline_finish(vw->tl) < 0 || vw->nomem)
		return tk_err_nomem(err, vw->name);
	if (tk_timeline_lane_count(vw->tl) == 0)
		return tk_err_set(err, TK_E_UNSUPPORTED, vw->name, 0, 0,
				  "VCD needs cores: no event of this trace happens on a core, so there is nothing to draw");
	ne = tk_trace_entity_count(t);
	if (grow_ents(vw, ne) < 0)
		return tk_err_nomem(err, vw->name);
	for (i = 0; i < tk_timeline_lane_count(vw->tl); i++)
		if (!lane_at(vw, i))
			return tk_err_nomem(err, vw->name);
	h = open_memstream(&hdr, &hlen);
	if (!h)
		return tk_err_nomem(err, vw->name);
	fprintf(h, "$version tracekit %s $end\n", tk_version());
	fprintf(h, "$comment %s trace; per core the running process and its load in per mille of each load window (rounded down); per process 1 while allocated to a core; per runnable 1 while started; per signal an event at each access and the last value written $end\n",
		tk_trace_format(t));
	fprintf(h, "$comment load window %llu timescale units ($timescale), starting at %llu $end\n",
		(unsigned long long)(vw->lb.binw * vw->mult),
		(unsigned long long)(vw->first * vw->mult));
	fprintf(h, "$timescale %s $end\n", vw->timescale);
	fputs("$scope module cores $end\n", h);
	for (i = 0; i < vw->nlanes; i++) {
		fputs("$scope module ", h);
		put_entity(vw, h, t, tk_timeline_lane_core(vw->tl, i));
		fputs(" $end\n$var string 1 ", h);
		put_id(h, vw->lanes[i].run_id);
		fputs(" running $end\n$var integer 32 ", h);
		put_id(h, vw->lanes[i].load_id);
		fputs(" load_permille $end\n$upscope $end\n", h);
	}
	fputs("$upscope $end\n$scope module tasks $end\n", h);
	for (i = 0; i < ne; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		if (!tk_etype_is_process(e->type))
			continue;
		fputs("$var wire 1 ", h);
		put_id(h, wire_of(vw, (uint32_t)i));
		fputc(' ', h);
		put_entity(vw, h, t, (uint32_t)i);
		fputs(" $end\n", h);
	}
	fputs("$upscope $end\n", h);
	rc = 0; /* bits: runnables, signals declared */
	for (i = 0; i < ne; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		if (!vw->seen[i] || (e->type != TK_ET_R && e->type != TK_ET_SYSC))
			continue;
		if (!(rc & 1))
			fputs("$scope module runnables $end\n", h);
		rc |= 1;
		fputs("$var wire 1 ", h);
		put_id(h, wire_of(vw, (uint32_t)i));
		fputc(' ', h);
		put_entity(vw, h, t, (uint32_t)i);
		fputs(" $end\n", h);
	}
	if (rc & 1)
		fputs("$upscope $end\n", h);
	for (i = 0; i < ne; i++) {
		if (!vw->seen[i] || tk_trace_entity(t, (uint32_t)i)->type != TK_ET_SIG)
			continue;
		if (!(rc & 2))
			fputs("$scope module signals $end\n", h);
		rc |= 2;
		fputs("$var event 1 ", h);
		put_id(h, wire_of(vw, (uint32_t)i));
		fputc(' ', h);
		put_entity(vw, h, t, (uint32_t)i);
		fputs(" $end\n", h);
	}
	if (rc & 2) {
		fputs("$upscope $end\n$scope module signal_values $end\n", h);
		for (i = 0; i < ne; i++) {
			if (!vw->seen[i] ||
			    tk_trace_entity(t, (uint32_t)i)->type != TK_ET_SIG)
				continue;
			fputs("$var string 1 ", h);
			put_id(h, val_of(vw, (uint32_t)i));
			fputc(' ', h);
			put_entity(vw, h, t, (uint32_t)i);
			fputs(" $end\n", h);
		}
		fputs("$upscope $end\n", h);
	}
	fputs("$enddefinitions $end\n", h);
	fprintf(h, "#%llu\n$dumpvars\n", (unsigned long long)(vw->first * vw->mult));
	for (i = 0; i < vw->nlanes; i++) {
		fputs("sidle ", h);
		put_id(h, vw->lanes[i].run_id);
		fputc('\n', h);
		put_bin(h, load_at(vw, i, 0));
		put_id(h, vw->lanes[i].load_id);
		fputc('\n', h);
	}
	for (i = 0; i < ne; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		if (!vw->seen[i])
			continue;
		if (e->type == TK_ET_SIG) {
			fputs("s- ", h);
			put_id(h, val_of(vw, (uint32_t)i));
		} else {
			fputc('0', h);
			put_id(h, wire_of(vw, (uint32_t)i));
		}
		fputc('\n', h);
	}
	for (i = 0; i < ne; i++)
		if (tk_etype_is_process(tk_trace_entity(t, (uint32_t)i)->type)) {
			fputc('0', h);
			put_id(h, wire_of(vw, (uint32_t)i));
			fputc('\n', h);
		}
	fputs("$end\n", h);
	if (fclose(h) != 0) {
		free(hdr);
		return tk_err_nomem(err, vw->name);
	}
	rc = tk_sink_write(&w->sink, hdr, hlen, err);
	free(hdr);
	if (rc < 0)
		return rc;
	if (fflush(vw->spill) != 0 || fseek(vw->spill, 0, SEEK_SET) != 0)
		return tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				  "cannot read back the temporary file");
	/* the changes, with the load windows' changes merged in at their
	 * times (wt: the time of window nb; 0 for no more windows) */
	nb = vw->have_first ? next_window(vw, 0) : 0;
	at = vw->first * vw->mult;
	rc = TK_OK;
	while ((n = getline(&line, &lcap, vw->spill)) > 0) {
		if (line[0] == '#') {
			uint64_t tm = strtoull(line + 1, NULL, 10);
			while (nb && (wt = (vw->first + nb * vw->lb.binw) * vw->mult) < tm) {
				if ((rc = emit_window(w, vw, nb, 1, err)) < 0)
					goto out;
				nb = next_window(vw, nb);
			}
			at = tm;
			if ((rc = tk_sink_write(&w->sink, line, (size_t)n, err)) < 0)
				goto out;
			if (nb && (vw->first + nb * vw->lb.binw) * vw->mult == tm) {
				if ((rc = emit_window(w, vw, nb, 0, err)) < 0)
					goto out;
				nb = next_window(vw, nb);
			}
			continue;
		}
		if ((rc = tk_sink_write(&w->sink, line, (size_t)n, err)) < 0)
			goto out;
	}
	if (ferror(vw->spill)) {
		rc = tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				"cannot read back the temporary file");
		goto out;
	}
	for (; nb; nb = next_window(vw, nb)) {
		at = (vw->first + nb * vw->lb.binw) * vw->mult;
		if ((rc = emit_window(w, vw, nb, 1, err)) < 0)
			goto out;
	}
	if (vw->have_first && vw->last * vw->mult != at) {
		/* the last event's time, so viewers show the last state */
		char b[32];
		int len = snprintf(b, sizeof(b), "#%llu\n",
				   (unsigned long long)(vw->last * vw->mult));
		rc = tk_sink_write(&w->sink, b, (size_t)len, err);
	}
out:
	free(line);
	return rc;
}

static void vcd_writer_free(tk_writer *w)
{
	vcd_writer *vw = w->impl;

	if (!vw)
		return;
	if (vw->spill)
		fclose(vw->spill);
	tk_timeline_free(vw->tl);
	tk_loadbins_free(&vw->lb);
	free(vw->lanes);
	free(vw->wire_id);
	free(vw->nrun);
	free(vw->val_id);
	free(vw->seen);
	free(vw);
	w->impl = NULL;
}

const tk_format_ops tk_format_vcd = {
	.info = {
		.name = "vcd",
		.extensions = "vcd",
		.description = "Value Change Dump for GTKWave: running process and load per core, a wire per process and runnable, signal accesses (export only)",
		.caps = TK_CAP_WRITE,
	},
	.writer_open = vcd_writer_open,
	.writer_write = vcd_writer_write,
	.writer_close = vcd_writer_close,
	.writer_free = vcd_writer_free,
};
