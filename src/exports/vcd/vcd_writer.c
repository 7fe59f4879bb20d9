/*
 * vcd_writer.c - a Value Change Dump (IEEE 1364 §18) for GTKWave
 * (docs/exports.md).
 *
 * Variables:
 *  - per core (scope cores.<core>), from the timeline (timeline.h):
 *    `running`, a string variable holding the name of the process
 *    allocated to the core, or "idle"; and `load_permille`, a 32-bit
 *    integer: the core's load in per mille of each load window (the time
 *    a process other than an idle one (tk_timeline_set_idle) is allocated
 *    to it, as `tracekit load` counts, * 1000 /
 *    the window, rounded down), changing at the window starts; when an
 *    idle process ran, `idle_permille` beside it: the idle processes'
 *    time on the core in per mille of each window, as load_permille.  The
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
 * copied behind the header at close.  A core of the trace that no event
 * ran on (a Tarmac log without exceptions) is declared idle throughout;
 * a trace with nothing to declare gets one wire that stays 0,
 * trace.no_entity, since viewers refuse a VCD without any.
 *
 * Timescale: the largest of 1/10/100 s, ms, us, ns, ps, fs of which one
 * tick is a whole multiple; VCD times are the event times (not rebased)
 * in that timescale.  A time base with no such timescale (1/3 ns) is
 * refused at open with --strict; otherwise the timescale is 1 ps, times
 * are rounded down and a warning counts them.
 *
 * Names: VCD identifiers and values end at white space, so every byte
 * outside '!'..'~' in a scope, variable or string value is written as '_'.
 * A scope or variable name (a reference) that is not a simple Verilog
 * identifier ([A-Za-z_][A-Za-z0-9_$]*, not a keyword) is written as an
 * escaped identifier ('\' and the name; IEEE 1364 3.7.1, 18.2.3), and a
 * name that two entities of one scope share gets a suffix "~N"; a
 * `$comment` per changed name gives the original.
 */
#define _GNU_SOURCE /* fopencookie */

#include "../../core/internal.h"
#include "../../core/loss.h"
#include "../../analysis/analysis_exports.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct vlane {
	uint32_t core;         /* its core entity */
	uint32_t running;      /* entity allocated, or TK_NONE */
	uint32_t run_id, load_id;
	uint32_t idle_id;      /* idle_permille (when vcd_writer.idle_lanes) */
} vlane;

enum { L_BACK, L_TLINE };
static const char *const back_what[] = {
	"a time earlier than the previous event's",
	"a second time line, an ATF TraceData whose time starts again: the dump has one time axis (read one with the reader option trace=N)",
};
static const char *const back_brief[] = {
	"times raised to the previous event's",
	"events of the time lines after the first dropped, ATF TraceData whose time starts again (read one with the reader option trace=N)",
};

/* What the writer keeps per entity. */
typedef struct vent {
	uint32_t wire_id;      /* id + 1, 0 when none yet */
	uint32_t nrun;         /* cores it is allocated to (a process),
				* instances active (a runnable) */
	uint32_t val_id;       /* a signal: value variable id + 1 */
	uint32_t seen;         /* a runnable or signal declared */
	uint32_t lane;         /* a core a lane of the timeline draws */
	uint64_t pos1;         /* the first event that names it: its
				* tk_event.pos + 1 (0: none), where a name
				* refused at close is reported */
} vent;

typedef struct vcd_writer {
	const char *name;
	tk_losses lost;        /* decreasing times (lenient reading keeps
				  them), the time lines after the first */
	tk_tlines tlines;      /* where a time line begins */
	tk_timeline *tl;
	FILE *spill;
	vlane *lanes;
	size_t nlanes, caplanes;
	vent *ents;            /* per entity */
	size_t capents;
	uint32_t next_id;
	uint64_t mult;         /* timescale units per tick (0: rounding) */
	const char *timescale;
	tk_timebase tb;        /* the trace's */
	int rounding;          /* no exact timescale: ps, rounded down */
	uint64_t nrounded, nevents;
	uint64_t first, last;  /* event times (ticks) */
	uint64_t vfirst, vlast; /* the same in timescale units */
	int have_first;
	int time_open;         /* a "#time" line for `vlast` is written */
	tk_loadbins lb;        /* per lane i and load window: busy ticks in
				  lane 2i, idle ticks (idle processes) in 2i+1 */
	int idle_lanes;        /* an idle process ran: idle_permille per core */
	int nomem;             /* the run callback ran out of memory */
	int no_vars;           /* nothing to declare: a placeholder */
	uint32_t placeholder;  /* its id */
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

static void put_entity(FILE *f, const tk_trace *t, uint32_t ent)
{
	const tk_entity *e = ent == TK_NONE ? NULL : tk_trace_entity(t, ent);
	const char *s;
	size_t n;

	if (!e) {
		fputs(ent == TK_NONE ? "idle" : "?", f);
		return;
	}
	s = tk_trace_str(t, e->name, &n);
	put_name(f, s, n);
}

/* ---- references: names as legal VCD identifiers --------------------------- */

/* the keywords of IEEE 1364-2005 (Annex B), in strcmp order: a simple
 * identifier must not be one */
static const char *const keywords[] = {
	"always", "and", "assign", "automatic", "begin", "buf", "bufif0",
	"bufif1", "case", "casex", "casez", "cell", "cmos", "config",
	"deassign", "default", "defparam", "design", "disable", "edge", "else",
	"end", "endcase", "endconfig", "endfunction", "endgenerate",
	"endmodule", "endprimitive", "endspecify", "endtable", "endtask",
	"event", "for", "force", "forever", "fork", "function", "generate",
	"genvar", "highz0", "highz1", "if", "ifnone", "incdir", "include",
	"initial", "inout", "input", "instance", "integer", "join", "large",
	"liblist", "library", "localparam", "macromodule", "medium", "module",
	"nand", "negedge", "nmos", "nor", "noshowcancelled", "not", "notif0",
	"notif1", "or", "output", "parameter", "pmos", "posedge", "primitive",
	"pull0", "pull1", "pulldown", "pullup", "pulsestyle_ondetect",
	"pulsestyle_onevent", "rcmos", "real", "realtime", "reg", "release",
	"repeat", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1",
	"scalared", "showcancelled", "signed", "small", "specify", "specparam",
	"strong0", "strong1", "supply0", "supply1", "table", "task", "time",
	"tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior",
	"trireg", "unsigned", "use", "uwire", "vectored", "wait", "wand",
	"weak0", "weak1", "while", "wire", "wor", "xnor", "xor"
};

static int kw_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* byte c of a name as written: outside '!'..'~' it is '_' */
static unsigned char vchar(char c)
{
	unsigned char u = (unsigned char)c;

	return u > ' ' && u < 0x7f ? u : '_';
}

/* A simple identifier: [A-Za-z_][A-Za-z0-9_$]*, not a keyword (the n
 * bytes of s as written). */
static int is_simple(const char *s, size_t n)
{
	char kw[24];
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = vchar(s[i]);
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (i && ((c >= '0' && c <= '9') || c == '$'))))
			return 0;
		if (i < sizeof(kw))
			kw[i] = (char)c;
	}
	if (!n || n >= sizeof(kw))
		return n > 0;
	kw[n] = 0;
	return !bsearch(kw, keywords, sizeof(keywords) / sizeof(keywords[0]),
			sizeof(keywords[0]), kw_cmp);
}

/* One name of a scope while its references are made: the entity's name
 * in the trace's pool, or a name with a suffix "~N" (owned). */
typedef struct vref {
	const char *p;    /* the name's bytes (written through vchar) */
	uint32_t len;
	uint32_t ent;     /* the entity (TK_NONE: "idle") */
	uint32_t key;     /* its place in the scope */
	uint8_t changed;  /* bytes replaced or a suffix added */
	uint8_t owned;    /* p is malloc'ed */
} vref;

/* the names as written, in strcmp order */
static int name_cmp(const vref *x, const vref *y)
{
	size_t i, n = x->len < y->len ? x->len : y->len;

	for (i = 0; i < n; i++)
		if (vchar(x->p[i]) != vchar(y->p[i]))
			return vchar(x->p[i]) < vchar(y->p[i]) ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

static int vref_by_name(const void *a, const void *b)
{
	const vref *x = a, *y = b;
	int c = name_cmp(x, y);

	/* a name kept as it is keeps it: the changed ones get the suffix */
	if (!c)
		c = x->changed - y->changed;
	return c ? c : (x->key > y->key) - (x->key < y->key);
}

static int vref_by_key(const void *a, const void *b)
{
	const vref *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The reference: the name as written, escaped when not simple. */
static void put_ref(FILE *f, const vref *v)
{
	if (!is_simple(v->p, v->len))
		fputc('\\', f);
	put_name(f, v->p, v->len);
}

/* The original name as a quoted token: bytes outside '!'..'~', '"' and
 * '\' as \xHH (so no white space, and never the token "$end"). */
static void put_quoted(FILE *f, const tk_trace *t, uint32_t ent)
{
	const tk_entity *e = ent == TK_NONE ? NULL : tk_trace_entity(t, ent);
	const char *s = "";
	size_t n = 0, i;

	if (e)
		s = tk_trace_str(t, e->name, &n);
	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > ' ' && c < 0x7f && c != '"' && c != '\\')
			fputc(c, f);
		else
			fprintf(f, "\\x%02X", c);
	}
	fputc('"', f);
}

static void free_refs(vref *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		if (v[i].owned)
			free((char *)v[i].p);
	free(v);
}

/* The scopes: the cores' (one per lane), then the declared entities'. */
enum { SC_CORES, SC_TASKS, SC_RUNS, SC_SIGS };

static int in_scope(const vcd_writer *vw, const tk_trace *t, int k, size_t i)
{
	tk_etype ty = tk_trace_entity(t, (uint32_t)i)->type;

	if (k == SC_TASKS)
		return tk_etype_is_process(ty);
	if (!vw->ents[i].seen)
		return 0;
	return k == SC_RUNS ? ty == TK_ET_R || ty == TK_ET_SYSC : ty == TK_ET_SIG;
}

/*
 * The references of scope k in key order (*pn of them; lane order for the
 * cores, entity order for the others): unique (a repeated name gets "~N",
 * N counting up until no two are equal) and legal (escaped when not simple,
 * by put_ref).  With `map`, a `$comment` line on it per changed name, for
 * the scope's names (two for the signals: their events and values).
 * Only the names with a suffix are held as strings.  NULL when out of memory.
 */
static vref *scope_refs(const vcd_writer *vw, const tk_trace *t, int k,
			size_t *pn, FILE *map)
{
	static const char *const names[4][3] = {
		{ "cores", NULL }, { "tasks", NULL }, { "runnables", NULL },
		{ "signals", "signal_values", NULL }
	};
	size_t i, g, n = 0, ne = tk_trace_entity_count(t);
	size_t cap = k == SC_CORES ? vw->nlanes : ne;
	uint64_t suffix = 1;
	int dup = 1;
	vref *v = tk_xrealloc_array(NULL, cap ? cap : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (i = 0; i < cap; i++) {
		uint32_t ent = k == SC_CORES ? vw->lanes[i].core : (uint32_t)i;
		const tk_entity *e = ent == TK_NONE ? NULL : tk_trace_entity(t, ent);
		size_t len;
		if (k != SC_CORES && !in_scope(vw, t, k, i))
			continue;
		v[n].p = e ? tk_trace_str(t, e->name, &len)
			   : ent == TK_NONE ? "idle" : "?";
		if (!e)
			len = strlen(v[n].p);
		v[n].changed = 0;
		for (g = 0; g < len; g++)
			v[n].changed |= vchar(v[n].p[g]) != (unsigned char)v[n].p[g];
		if (!len) {
			v[n].p = "_";
			len = 1;
			v[n].changed = 1;
		}
		v[n].len = (uint32_t)len;
		v[n].ent = ent;
		v[n].key = (uint32_t)i;
		v[n++].owned = 0;
	}
	while (dup && n > 1) {
		dup = 0;
		qsort(v, n, sizeof(*v), vref_by_name);
		for (g = 0, i = 1; i < n; i++) {
			size_t len = v[i].len, j;
			char *s;

			if (name_cmp(&v[i], &v[g])) {
				g = i;
				continue;
			}
			if (!(s = malloc(len + 24))) {
				free_refs(v, n);
				return NULL;
			}
			for (j = 0; j < len; j++)
				s[j] = (char)vchar(v[i].p[j]);
			len += (size_t)snprintf(s + len, 24, "~%llu",
						(unsigned long long)++suffix);
			if (v[i].owned)
				free((char *)v[i].p);
			v[i].p = s;
			v[i].len = (uint32_t)len;
			v[i].changed = v[i].owned = 1;
			dup = 1;
		}
	}
	qsort(v, n, sizeof(*v), vref_by_key);
	for (i = 0; map && i < n; i++)
		for (g = 0; v[i].changed && names[k][g]; g++) {
			fprintf(map, "$comment name %s.", names[k][g]);
			put_ref(map, &v[i]);
			fputs(" = ", map);
			put_quoted(map, t, v[i].ent);
			fputs(" $end\n", map);
		}
	*pn = n;
	return v;
}

static void put_id(FILE *f, uint32_t id)
{
	char b[8];

	fwrite(b, 1, fmt_id(b, id), f);
}

/* The per-entity arrays hold n entries (new ones zero).  0, or -1 out of
 * memory. */
/* vw->ents[0 .. n) exist.  0, or -1 out of memory. */
static int grow_ents(vcd_writer *vw, size_t n)
{
	return n ? tk_grow_zero((void **)&vw->ents, &vw->capents, n - 1,
				sizeof(*vw->ents)) : 0;
}

/* entity ent (or TK_NONE) is named by an event at position pos */
static void name_pos(vcd_writer *vw, uint32_t ent, uint64_t pos)
{
	if (ent != TK_NONE && !vw->ents[ent].pos1)
		vw->ents[ent].pos1 = pos + 1;
}

static uint32_t wire_of(vcd_writer *vw, uint32_t ent)
{
	if (!vw->ents[ent].wire_id)
		vw->ents[ent].wire_id = ++vw->next_id;
	return vw->ents[ent].wire_id - 1;
}

static uint32_t val_of(vcd_writer *vw, uint32_t ent)
{
	if (!vw->ents[ent].val_id)
		vw->ents[ent].val_id = ++vw->next_id;
	return vw->ents[ent].val_id - 1;
}

static vlane *lane_at(vcd_writer *vw, size_t i)
{
	while (vw->nlanes <= i) {
		if (tk_grow_zero((void **)&vw->lanes, &vw->caplanes, vw->nlanes,
				   sizeof(*vw->lanes)) < 0)
			return NULL;
		vw->lanes[vw->nlanes].core = TK_NONE;
		vw->lanes[vw->nlanes].running = TK_NONE;
		vw->lanes[vw->nlanes].run_id = vw->next_id++;
		vw->lanes[vw->nlanes].load_id = vw->next_id++;
		vw->nlanes++;
	}
	return &vw->lanes[i];
}

/* Tick t in timescale units: exact, or (rounding) in ps rounded down,
 * with *rounded set when it was not exact.  -1 when it reaches 2^63,
 * which GTKWave's readers take as a negative time (its loaders and
 * vcd2lxt2 parse times as signed 64-bit numbers). */
static int vtime(const vcd_writer *vw, uint64_t t, uint64_t *out, int *rounded)
{
	static const tk_timebase ps = { TK_UNIT_PS, 1, 1 };

	*rounded = 0;
	if (!vw->rounding) {
		if ((tk_u128)t * vw->mult > INT64_MAX)
			return -1;
		*out = t * vw->mult;
		return 0;
	}
	if (tk_time_convert(t, &vw->tb, &ps, TK_ROUND_EXACT, out) != TK_OK) {
		*rounded = 1;
		if (tk_time_convert(t, &vw->tb, &ps, TK_ROUND_DOWN, out) != TK_OK)
			return -1;
	}
	return *out > INT64_MAX ? -1 : 0;
}

/* The start of load window b in timescale units (at most the last event's
 * time, which converts, so this cannot fail). */
static uint64_t win_time(const vcd_writer *vw, uint64_t b)
{
	uint64_t v = vw->vlast;
	int r;

	if (vtime(vw, vw->first + b * vw->lb.binw, &v, &r) < 0)
		v = vw->vlast;
	return v;
}

/* the "#time" line before the first change at time `vlast` */
static void open_time(vcd_writer *vw)
{
	if (vw->time_open)
		return;
	fprintf(vw->spill, "#%llu\n", (unsigned long long)vw->vlast);
	vw->time_open = 1;
}

/* a run interval of the timeline: add it to the lane's load windows */
static void on_run(void *ctx, uint32_t lane, uint32_t entity, int64_t inst,
		   uint64_t start, uint64_t end)
{
	vcd_writer *vw = ctx;
	int idle = tk_timeline_is_idle(vw->tl, entity);

	(void)inst;
	/* lenient reading keeps times that go back: the windows clamp them;
	 * an idle process's time is idle time, not load */
	if (idle < 0 || !lane_at(vw, lane) ||
	    tk_loadbins_add(&vw->lb, (size_t)lane * 2 + (idle != 0), start, end) < 0)
		vw->nomem = 1;
	else if (idle && end > start)
		vw->idle_lanes = 1;
}

/* the load (idle == 0) or idle time (1) of lane i in window b, per mille
 * (rounded down) */
static uint64_t share_at(const vcd_writer *vw, size_t i, int idle, uint64_t b)
{
	uint64_t span = vw->last - vw->first, s = b * vw->lb.binw, end;
	/* the last window may end at 2^64: 128 bits before the clamp */
	tk_u128 wend = (tk_u128)s + vw->lb.binw;

	end = wend > span ? span : (uint64_t)wend;
	if (end <= s)
		return 0;
	return (uint64_t)((tk_u128)tk_loadbins_busy(&vw->lb, i * 2 + (size_t)idle,
						     (size_t)b) * 1000 / (end - s));
}

static uint64_t load_at(const vcd_writer *vw, size_t i, uint64_t b)
{
	return share_at(vw, i, 0, b);
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
	vw->lost.format = "VCD";
	vw->lost.what = back_what;
	vw->lost.brief = back_brief;
	vw->lost.nkinds = 2;
	tk_tlines_init(&vw->tlines, w->trace);
	vw->tb = *tb;
	for (i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
		if (tk_time_convert(1, tb, &scales[i].tb, TK_ROUND_EXACT,
				    &vw->mult) == TK_OK && vw->mult) {
			vw->timescale = scales[i].name;
			break;
		}
	if (!vw->timescale && w->opts.strict)
		return tk_err_set(err, TK_E_UNSUPPORTED, vw->name, 0, 0,
				  "VCD cannot hold a tick of %llu/%llu %s exactly (its timescales are 1, 10 or 100 s, ms, us, ns, ps or fs); outside strict mode times are rounded down to ps with a warning",
				  (unsigned long long)tb->num,
				  (unsigned long long)tb->den,
				  tk_unit_name(tb->unit));
	if (!vw->timescale) {
		vw->timescale = "1 ps";
		vw->rounding = 1;
		vw->mult = 0;
	}
	vw->spill = tmpfile();
	if (!vw->spill)
		return tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				  "cannot create a temporary file");
	tk_loadbins_init(&vw->lb, 0);
	if (tk_timeline_new(&vw->tl, w->trace, NULL, on_run, vw, NULL) < 0 ||
	    (w->opts.idle && tk_timeline_set_idle(vw->tl, w->opts.idle,
						  w->opts.nidle) < 0))
		return tk_err_nomem(err, vw->name);
	return TK_OK;
}

static int vcd_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	vcd_writer *vw = w->impl;
	uint64_t t = ev->time, vt;
	size_t i, n;
	long touched;
	int rounded, rc;
	tk_etype ety;

	/* one time axis: the first time line only */
	if (tk_tlines_of(&vw->tlines, ev) > 1)
		return tk_loss_add(&vw->lost, w, vw->name, L_TLINE, ev, err);
	if (vw->have_first && t < vw->last) {
		rc = tk_loss_add(&vw->lost, w, vw->name, L_BACK, ev, err);
		if (rc < 0)
			return rc;
		t = vw->last;
	}
	if (vtime(vw, t, &vt, &rounded) < 0)
		return tk_err_set(err, TK_E_RANGE, vw->name, 0, 0,
				  "time %llu is 2^63 or more in VCD's timescale (%s), which GTKWave reads as a time before 0",
				  (unsigned long long)t, vw->timescale);
	vw->nevents++;
	vw->nrounded += (uint64_t)rounded;
	if (!vw->have_first) {
		vw->have_first = 1;
		vw->first = vw->last = t;
		vw->vfirst = vw->vlast = vt;
		vw->lb.first = t;
		vw->time_open = 1; /* the header's "#first $dumpvars" */
	}
	vw->last = t;
	if (vt != vw->vlast) {
		vw->vlast = vt;
		vw->time_open = 0;
	}
	if ((rc = tk_timeline_event(vw->tl, ev, err)) < 0)
		return tk_err_input(err, vw->name, rc);
	if (grow_ents(vw, tk_trace_entity_count(w->trace)) < 0)
		return tk_err_nomem(err, vw->name);
	name_pos(vw, ev->source, ev->pos);
	name_pos(vw, ev->target, ev->pos);
	name_pos(vw, ev->core, ev->pos);
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
		if (l->running != TK_NONE && --vw->ents[l->running].nrun == 0) {
			fputc('0', vw->spill);
			put_id(vw->spill, wire_of(vw, l->running));
			fputc('\n', vw->spill);
		}
		if (ent != TK_NONE && vw->ents[ent].nrun++ == 0) {
			fputc('1', vw->spill);
			put_id(vw->spill, wire_of(vw, ent));
			fputc('\n', vw->spill);
		}
		fputc('s', vw->spill);
		put_entity(vw->spill, w->trace, ent);
		fputc(' ', vw->spill);
		put_id(vw->spill, l->run_id);
		fputc('\n', vw->spill);
		l->running = ent;
	}
	if (vw->nomem)
		return tk_err_nomem(err, vw->name);
	/* by the entity's type, as declared (an event of another type on it,
	 * kept by lenient reading, would change an undeclared variable) */
	ety = ev->target == TK_NONE ? TK_ET_UNKNOWN
		: tk_trace_entity(w->trace, ev->target)->type;
	if ((ety == TK_ET_R || ety == TK_ET_SYSC) &&
	    ev->target != TK_NONE) {
		uint32_t *c = &vw->ents[ev->target].nrun;
		int was = *c > 0;
		vw->ents[ev->target].seen = 1;
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
	} else if (ety == TK_ET_SIG && ev->target != TK_NONE) {
		vw->ents[ev->target].seen = 1;
		open_time(vw);
		fputc('1', vw->spill);
		put_id(vw->spill, wire_of(vw, ev->target));
		fputc('\n', vw->spill);
		if (ev->kind == TK_EV_WRITE && ev->note) {
			/* a value that is not UTF-8: counted, strict mode refuses */
			if (!tk_utf8_valid(ev->note, ev->note_len)) {
				rc = tk_writer_text_bad(w, ev->note_len, err);
				if (rc < 0)
					return rc;
			}
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

/* The output of close goes through stdio straight onto the sink. */
typedef struct vout {
	tk_sink *sink;
	tk_error *err;
	int rc;                /* the sink's first failure, or TK_OK */
} vout;

static ssize_t vout_write(void *cookie, const char *buf, size_t n)
{
	vout *o = cookie;

	if (o->rc == TK_OK)
		o->rc = tk_sink_write(o->sink, buf, n, o->err);
	if (o->rc < 0) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

/* The declarations of scope k (none for runnables or signals without
 * any).  -1 when out of memory. */
static int put_scope(vcd_writer *vw, const tk_trace *t, FILE *h, int k)
{
	static const char *const scope[5] = { "cores", "tasks", "runnables",
					      "signals", "signal_values" };
	size_t i, n, val;
	vref *v = scope_refs(vw, t, k, &n, NULL);

	if (!v)
		return -1;
	/* val 1: the signals' values, in a scope of their own */
	for (val = 0; val < 1u + (k == SC_SIGS) && (n || k <= SC_TASKS); val++) {
		fprintf(h, "$scope module %s $end\n", scope[k + val]);
		for (i = 0; i < n; i++) {
			if (k == SC_CORES) {
				fputs("$scope module ", h);
				put_ref(h, &v[i]);
				fputs(" $end\n$var string 1 ", h);
				put_id(h, vw->lanes[i].run_id);
				fputs(" running $end\n$var integer 32 ", h);
				put_id(h, vw->lanes[i].load_id);
				fputs(" load_permille $end\n", h);
				if (vw->idle_lanes) {
					vw->lanes[i].idle_id = vw->next_id++;
					fputs("$var integer 32 ", h);
					put_id(h, vw->lanes[i].idle_id);
					fputs(" idle_permille $end\n", h);
				}
				fputs("$upscope $end\n", h);
				continue;
			}
			fputs(val ? "$var string 1 " : k == SC_SIGS ? "$var event 1 "
				  : "$var wire 1 ", h);
			put_id(h, val ? val_of(vw, v[i].ent) : wire_of(vw, v[i].ent));
			fputc(' ', h);
			put_ref(h, &v[i]);
			fputs(" $end\n", h);
		}
		fputs("$upscope $end\n", h);
	}
	free_refs(v, n);
	return 0;
}

/* The header: declarations and initial values. -1 when out of memory. */
static int put_header(vcd_writer *vw, const tk_trace *t, FILE *h)
{
	size_t i, n, ne = tk_trace_entity_count(t);
	const char *cyc;
	int k, sig;

	fprintf(h, "$version tracekit %s $end\n", tk_version());
	fprintf(h, "$comment %s trace; per core the running process and its load in per mille of each load window (rounded down); per process 1 while allocated to a core; per runnable 1 while started; per signal an event at each access and the last value written $end\n",
		tk_trace_format(t));
	if (vw->idle_lanes)
		fputs("$comment idle_permille: the time of the idle processes (not load) on the core in per mille of each load window (rounded down) $end\n", h);
	if (!vw->rounding)
		fprintf(h, "$comment load window %llu timescale units ($timescale), starting at %llu $end\n",
			(unsigned long long)(vw->lb.binw * vw->mult),
			(unsigned long long)vw->vfirst);
	else
		fprintf(h, "$comment load window %llu ticks of %llu/%llu %s, starting at tick %llu; the times are in ps, rounded down $end\n",
			(unsigned long long)vw->lb.binw,
			(unsigned long long)vw->tb.num,
			(unsigned long long)vw->tb.den, tk_unit_name(vw->tb.unit),
			(unsigned long long)vw->first);
	fprintf(h, "$timescale %s $end\n", vw->timescale);
	if ((cyc = tk_trace_cycle_unit(t)) != NULL) {
		/* VCD's timescales are s to fs: cycles (a Tarmac log) are the
		 * trace's ticks, one per ns, and the comment says so */
		fputs("$comment the times are ", h);
		for (; *cyc; cyc++)
			fputc((*cyc >= 'a' && *cyc <= 'z') || (*cyc >= '0' && *cyc <= '9') ? *cyc : '_', h);
		fputs(" cycles: the $timescale 1 ns stands for one cycle $end\n", h);
	}
	/* the original names of the changed ones, then the scopes: the
	 * references are made twice rather than kept */
	for (k = SC_CORES; k <= SC_SIGS; k++) {
		vref *v = scope_refs(vw, t, k, &n, h);
		if (!v)
			return -1;
		free_refs(v, n);
	}
	for (k = SC_CORES; k <= SC_SIGS; k++)
		if (put_scope(vw, t, h, k) < 0)
			return -1;
	if (vw->no_vars) {
		/* viewers refuse a VCD without a variable (GTKWave: "No
		 * symbols in VCD file") */
		fputs("$comment the trace has no core, process, runnable or signal $end\n$scope module trace $end\n$var wire 1 ", h);
		vw->placeholder = vw->next_id++;
		put_id(h, vw->placeholder);
		fputs(" no_entity $end\n$upscope $end\n", h);
	}
	fputs("$enddefinitions $end\n", h);
	fprintf(h, "#%llu\n$dumpvars\n", (unsigned long long)vw->vfirst);
	if (vw->no_vars) {
		fputc('0', h);
		put_id(h, vw->placeholder);
		fputc('\n', h);
	}
	for (i = 0; i < vw->nlanes; i++) {
		fputs("sidle ", h);
		put_id(h, vw->lanes[i].run_id);
		fputc('\n', h);
		put_bin(h, load_at(vw, i, 0));
		put_id(h, vw->lanes[i].load_id);
		fputc('\n', h);
		if (vw->idle_lanes) {
			put_bin(h, share_at(vw, i, 1, 0));
			put_id(h, vw->lanes[i].idle_id);
			fputc('\n', h);
		}
	}
	for (i = 0; i < ne; i++) {
		if (!vw->ents[i].seen)
			continue;
		sig = tk_trace_entity(t, (uint32_t)i)->type == TK_ET_SIG;
		fputs(sig ? "s- " : "0", h);
		put_id(h, sig ? val_of(vw, (uint32_t)i) : wire_of(vw, (uint32_t)i));
		fputc('\n', h);
	}
	for (i = 0; i < ne; i++)
		if (tk_etype_is_process(tk_trace_entity(t, (uint32_t)i)->type)) {
			fputc('0', h);
			put_id(h, wire_of(vw, (uint32_t)i));
			fputc('\n', h);
		}
	fputs("$end\n", h);
	return 0;
}

/* The load changes of window b (> 0) on the lanes whose load changes,
 * after its "#time" line if `with_time` (none when no load changes):
 * 1 if that line was written. */
static int put_window(vcd_writer *vw, FILE *o, uint64_t b, int with_time)
{
	size_t i;
	int wrote = 0;

	for (i = 0; i < vw->nlanes * 2; i++) {
		int idle = (int)(i & 1);
		uint64_t v = share_at(vw, i / 2, idle, b);
		if ((idle && !vw->idle_lanes) || v == share_at(vw, i / 2, idle, b - 1))
			continue;
		if (with_time && !wrote)
			fprintf(o, "#%llu\n", (unsigned long long)win_time(vw, b));
		wrote = 1;
		put_bin(o, v);
		put_id(o, idle ? vw->lanes[i / 2].idle_id : vw->lanes[i / 2].load_id);
		fputc('\n', o);
	}
	return with_time && wrote;
}

/*
 * The UTF-8 rule of every writer (tk_writer_text()): VCD writes the bytes
 * of a name outside '!'..'~' as '_' (the reference's original in a
 * $comment, as \xHH), so a name that is not UTF-8 is only counted, once
 * per entity drawn; strict mode refuses it, at the input's position of the
 * first event that names the entity (as the writers that write names with
 * the events).
 */
static int count_bad_names(tk_writer *w, vcd_writer *vw, tk_error *err)
{
	const tk_trace *t = w->trace;
	size_t i, l, n = tk_trace_entity_count(t);
	int rc;

	w->text_as = "'_' (as every byte outside '!'..'~')";
	/* the cores the lanes draw, marked once: a look over the lanes per
	 * entity made the close quadratic in the cores */
	for (l = 0; l < vw->nlanes; l++) {
		uint32_t c = tk_timeline_lane_core(vw->tl, l);
		if (c != TK_NONE && c < n)
			vw->ents[c].lane = 1;
	}
	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		const char *s;
		size_t len;
		int drawn = vw->ents[i].lane || in_scope(vw, t, SC_TASKS, i) ||
			    in_scope(vw, t, SC_RUNS, i) || in_scope(vw, t, SC_SIGS, i);
		if (!drawn)
			continue;
		s = tk_trace_str(t, e->name, &len);
		if (!tk_utf8_valid(s, len) && (rc = tk_writer_text_bad(w, len, err)) < 0)
			return tk_writer_locate_pos(w, vw->ents[i].pos1, rc, err);
	}
	return TK_OK;
}

static int vcd_writer_close(tk_writer *w, tk_error *err)
{
	static const cookie_io_functions_t io = { NULL, vout_write, NULL, NULL };
	vcd_writer *vw = w->impl;
	const tk_trace *t = w->trace;
	vout out = { &w->sink, err, TK_OK };
	char *line = NULL;
	size_t lcap = 0;
	ssize_t n;
	uint64_t nb, wt, at;
	size_t i, nl;
	FILE *o = NULL;
	int rc;

	if ((rc = tk_timeline_finish(vw->tl, err)) < 0)
		return tk_err_input(err, vw->name, rc);
	if (vw->nomem)
		return tk_err_nomem(err, vw->name);
	if (grow_ents(vw, tk_trace_entity_count(t)) < 0)
		return tk_err_nomem(err, vw->name);
	/* the lanes of the timeline, then the trace's cores that no event
	 * ran on (a Tarmac log without exceptions): idle throughout */
	nl = tk_timeline_lane_count(vw->tl);
	for (i = 0; i < nl; i++) {
		vlane *l = lane_at(vw, i);
		if (!l)
			return tk_err_nomem(err, vw->name);
		l->core = tk_timeline_lane_core(vw->tl, i);
	}
	for (i = 0; i < tk_trace_entity_count(t); i++) {
		vlane *l;
		if (tk_trace_entity(t, (uint32_t)i)->type != TK_ET_C ||
		    tk_timeline_lane_of(vw->tl, (uint32_t)i) >= 0)
			continue;
		if (!(l = lane_at(vw, vw->nlanes)))
			return tk_err_nomem(err, vw->name);
		l->core = (uint32_t)i;
	}
	vw->no_vars = vw->nlanes == 0;
	for (i = 0; i < tk_trace_entity_count(t) && vw->no_vars; i++)
		vw->no_vars = !vw->ents[i].seen &&
			!tk_etype_is_process(tk_trace_entity(t, (uint32_t)i)->type);
	if ((rc = count_bad_names(w, vw, err)) < 0)
		return rc;
	if (fflush(vw->spill) != 0 || fseek(vw->spill, 0, SEEK_SET) != 0)
		return tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				  "cannot read back the temporary file");
	o = fopencookie(&out, "w", io);
	if (!o || put_header(vw, t, o) < 0) {
		rc = tk_err_nomem(err, vw->name);
		goto out;
	}
	/* the changes, with the load windows' changes merged in at their
	 * times (wt: the time of window nb; 0 for no more windows) */
	nb = vw->have_first ? next_window(vw, 0) : 0;
	at = vw->vfirst;
	while (out.rc == TK_OK && (n = getline(&line, &lcap, vw->spill)) > 0) {
		if (line[0] == '#') {
			uint64_t tm = strtoull(line + 1, NULL, 10);
			/* (rounded times: windows may share a time) */
			for (; nb && (wt = win_time(vw, nb)) < tm; nb = next_window(vw, nb))
				if (put_window(vw, o, nb, wt != at))
					at = wt;
			at = tm;
			fwrite(line, 1, (size_t)n, o);
			for (; nb && win_time(vw, nb) == tm; nb = next_window(vw, nb))
				put_window(vw, o, nb, 0);
			continue;
		}
		fwrite(line, 1, (size_t)n, o);
	}
	if (ferror(vw->spill)) {
		rc = tk_err_set(err, TK_E_IO, vw->name, 0, 0,
				"cannot read back the temporary file");
		goto out;
	}
	for (; nb; nb = next_window(vw, nb))
		if (put_window(vw, o, nb, (wt = win_time(vw, nb)) != at))
			at = wt;
	/* the last event's time, so viewers show the last state */
	if (vw->have_first && vw->vlast != at)
		fprintf(o, "#%llu\n", (unsigned long long)vw->vlast);
	/* every event at one time, or none: one unit more gives viewers a
	 * time range to draw (a converter refuses an empty one) */
	if (vw->vlast == vw->vfirst && vw->vlast < UINT64_MAX)
		fprintf(o, "#%llu\n", (unsigned long long)vw->vlast + 1);
	rc = fclose(o) != 0 && out.rc == TK_OK ? tk_err_nomem(err, vw->name) : out.rc;
	o = NULL;
	if (rc >= 0 && vw->nrounded && w->opts.on_warning) {
		tk_error wn;

		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", vw->name);
		snprintf(wn.msg, sizeof(wn.msg),
			 "VCD cannot hold everything: no VCD timescale is exact for ticks of %llu/%llu %s; %llu of %llu times rounded down to whole ps (strict mode refuses)",
			 (unsigned long long)vw->tb.num,
			 (unsigned long long)vw->tb.den,
			 tk_unit_name(vw->tb.unit),
			 (unsigned long long)vw->nrounded,
			 (unsigned long long)vw->nevents);
		w->opts.on_warning(w->opts.warning_ctx, &wn);
	}
	if (rc >= 0)
		tk_loss_report(&vw->lost, w, vw->name);
out:
	if (o)
		fclose(o);
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
	free(vw->ents);
	free(vw);
	w->impl = NULL;
}

const tk_format_ops tk_format_vcd = {
	.info = {
		.name = "vcd",
		.extensions = "vcd",
		.description = "Value Change Dump for GTKWave: running process and load per core, a wire per process and runnable, signal accesses (export only)",
		.caps = TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.writer_open = vcd_writer_open,
	.writer_write = vcd_writer_write,
	.writer_close = vcd_writer_close,
	.writer_free = vcd_writer_free,
};
