/*
 * report.c - the HTML report: tk_report_write() (include/tracekit/report.h),
 * one self-contained page (docs/exports.md); `tracekit report` calls it.
 *
 * Two passes over FILE keep memory flat and the page bounded:
 *  1. stats, check, the span, and how many bars and instants there are
 *     (with a log2 histogram of bar durations);
 *  2. the timeline again: bars (the run intervals of tasks and ISRs, as
 *     the timeline analysis gives them, and the runnable slices) at least
 *     as long as a threshold chosen from pass 1 (0 when all of them fit the
 *     budget) go into the page as they are; shorter ones are summarised
 *     into REPORT_BINS windows per core (busy share and the dominant
 *     entity); so are instants beyond
 *     their budget.  Core load and the histograms of RT and CET (binned
 *     between the min and max that stats found) are filled in the same pass.
 * The page's data is one JSON object written into the template
 * (report.html, made into the C strings of report_page.c by the build);
 * the page goes through a tk_output: written under a temporary name and
 * renamed when complete, compressed for a name ending in .gz or .zst,
 * standard output for "-".
 */
#define _GNU_SOURCE
#include "../../core/internal.h"
#include "../../core/hashmap.h"
#include "../../analysis/analysis_exports.h"
#include "report_page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define SLICE_BUDGET 150000u
#define INSTANT_BUDGET 60000u
#define PROBLEM_MAX 2000u
#define REPORT_BINS 2000u
/* with many lanes, fewer windows each: at most this many lane windows in
 * all (and at least REPORT_MIN_BINS per lane), so that memory and the page
 * grow with the lanes, not with lanes times REPORT_BINS */
#define REPORT_LANE_BINS 256000u
#define REPORT_MIN_BINS 50u
#define HIST_BINS 24u
/* beyond this many processes, histogram panels for the HIST_PANELS / 2
 * with the worst RT and the HIST_PANELS / 2 with the most CPU time */
#define HIST_PANELS 48u
/* beyond this many entities, full metric rows for those of the panels
 * only, and one compact row per entity for the rest */
#define STATS_ENTITY_MAX 1000u
/* the flag of a run interval in the page's bars (beside the TK_SLICE_*
 * flags of runnable slices) */
#define REPORT_RUN (1u << 6)

/* the idle processes the page names, at most */
#define IDLE_NAMES 100u

/* ---- JSON out, safe inside <script> -------------------------------------- */

static void jcstr(FILE *fp, const char *s)
{
	tk_json_write_str(fp, s, strlen(s), 1);
}

/* ---- pass state ------------------------------------------------------------ */

typedef struct problem {
	uint64_t time, pos;
	tk_rule rule;
	char *msg;
} problem;

typedef struct hist {
	uint32_t entity;
	tk_metric metric;
	uint64_t lo, hi;
	uint64_t p50, p99;   /* of the values binned (has_pct) */
	int has_pct;
	uint64_t bins[HIST_BINS];
} hist;

typedef struct rep {
	const tk_trace *t;
	FILE *fp;
	const tk_report_opts *o;
	/* the page draws the first time line (an ATF TraceData) only */
	tk_tlines tlines;
	uint32_t tlines_n;      /* time lines met */
	uint64_t tlines_left;   /* events of the others, left out */
	/* pass 1 */
	uint64_t dur_log2[66];
	uint64_t nslices, ninstants;
	uint32_t maxdepth[256];
	problem *probs;
	size_t nprobs, capprobs;
	uint64_t nviol[TK_RULE_COUNT];
	/* pass 2 */
	int pass;
	tk_timeline *tl;
	FILE *sfp;                  /* slices of pass 2, copied in after */
	uint64_t first, last, span, binw;
	uint64_t file_first;        /* the first time in FILE, window or not */
	int have_file_first;
	/* the page's lanes in the order of their cores' entity ids (the same
	 * with --start/--end as without): lane -> its place, and back */
	uint32_t *lane_pos;
	uint32_t *lane_at;
	size_t nlane_pos;
	size_t nbins;               /* windows per lane (fewer with many lanes) */
	uint64_t threshold;         /* slices shorter than this are summarised */
	int instants_binned;
	size_t nlanes, lanes1;      /* lanes with windows; lanes of pass 1 */
	/* cells of csz bytes: 4 when a window's ticks fit (binw < 2^32) */
	size_t csz;
	void *busy;                 /* [lane][nbins] run time */
	void *idlebin;              /* [lane][nbins] idle processes' run time */
	const char *const *idle;    /* idle patterns (NULL: the default) */
	size_t nidle;
	void *sumbusy;              /* [lane][nbins] summarised slice time */
	uint32_t *dom;              /* [lane][nbins] dominant summarised entity */
	void *domdur;
	uint32_t *ibins;            /* [lane+1][nbins] instants */
	uint64_t nwritten, ninst_written;
	hist *hists;
	size_t nhists;
	uint32_t *hist_of;          /* entity -> index of its RT hist + 1 (CET next) */
	tk_pctl *pctl;              /* the hists' values, for p50 and p99 */
	uint64_t *hist_n;           /* hist -> values given to pctl */
	size_t nhist_of;
	size_t nhist_procs;         /* processes with RT and CET (panels or not) */
	uint64_t *cpu;              /* entity -> CET of its terminated instances */
	size_t ncpu;
	/* the worst instances of the metric rows in the page, whose slices
	 * are written even when shorter than the threshold: (entity, inst)
	 * pairs, indexed by entity << 32 | low 32 bits of inst */
	struct worst { uint32_t entity; int64_t inst; } *worst;
	size_t nworst, capworst;
	tk_hashmap worst_idx;
	tk_verify *ver;             /* the requirements (pass 1), or NULL */
	int nomem;
} rep;

static int lane_cap(rep *x, size_t lane)
{
	size_t n = lane + 1, old = x->nlanes, i;
	void *p;

	if (n <= old)
		return 0;
	/* pass 1 counted the lanes: room for them at once, not twice that */
	n = n <= x->lanes1 ? x->lanes1 : n < 4 ? 4 : n * 2;
	/* the summaries and instant counts only where the page has them */
#define GROW(use, a, sz, ex)                                                   \
	do {                                                                   \
		if (!(use))                                                    \
			break;                                                 \
		p = realloc(a, (n + ex) * x->nbins * sz);                   \
		if (!p)                                                        \
			return -1;                                             \
		a = p;                                                         \
		memset((char *)a + (old + ex) * x->nbins * sz, 0,           \
		       (n - old) * x->nbins * sz);                          \
	} while (0)
	GROW(1, x->busy, x->csz, 0);
	GROW(1, x->idlebin, x->csz, 0);
	GROW(x->threshold, x->sumbusy, x->csz, 0);
	GROW(x->threshold, x->dom, sizeof(uint32_t), 0);
	GROW(x->threshold, x->domdur, x->csz, 0);
	GROW(x->instants_binned, x->ibins, sizeof(uint32_t), 1);
#undef GROW
	if (old == 0 && x->instants_binned)
		memset(x->ibins, 0, x->nbins * sizeof(uint32_t));
	for (i = old * x->nbins; x->threshold && i < n * x->nbins; i++)
		x->dom[i] = TK_NONE;
	x->nlanes = n;
	return 0;
}

/* cell i of a, and a value into it (a narrow cell holds at most a
 * window's ticks: it saturates rather than wraps) */
static uint64_t cell(size_t csz, const void *a, size_t i)
{
	return csz == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

static void cell_set(const rep *x, void *a, size_t i, uint64_t v)
{
	if (x->csz == 4)
		((uint32_t *)a)[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	else
		((uint64_t *)a)[i] = v;
}

static size_t bin_of(const rep *x, uint64_t t)
{
	uint64_t b = (t - x->first) / x->binw;

	return b >= x->nbins ? x->nbins - 1 : (size_t)b;
}

/*
 * The end of window b, or `end` when that comes first or b is the last
 * window.  In 128 bits: near the top of the tick range first + (b+1)*binw
 * may pass 2^64.
 */
static uint64_t bin_end(const rep *x, size_t b, uint64_t end)
{
	unsigned __int128 e = (unsigned __int128)x->first +
			      (unsigned __int128)(b + 1) * x->binw;

	return b == x->nbins - 1 || e > end ? end : (uint64_t)e;
}

static unsigned ilog2(uint64_t v)
{
	unsigned n = 0;

	while (v) {
		n++;
		v >>= 1;
	}
	return n; /* 0 for 0, 1 for 1, ... 64 */
}

static void on_violation(void *ctx, const tk_violation *v)
{
	rep *x = ctx;
	problem *p;

	x->nviol[v->rule]++;
	if (x->nprobs >= PROBLEM_MAX)
		return;
	if (tk_grow_zero((void **)&x->probs, &x->capprobs, x->nprobs,
			 sizeof(*x->probs)) < 0) {
		x->nomem = 1;
		return;
	}
	p = &x->probs[x->nprobs];
	p->time = v->time;
	p->pos = v->pos;
	p->rule = v->rule;
	p->msg = strdup(v->msg);
	if (!p->msg) {
		x->nomem = 1;
		return;
	}
	x->nprobs++;
}

static hist *hist_for(rep *x, uint32_t ent, tk_metric m)
{
	if (ent >= x->nhist_of || !x->hist_of[ent])
		return NULL;
	return &x->hists[x->hist_of[ent] - 1 + (m == TK_METRIC_CET)];
}

/* v into h's bins, and to the values whose p50 and p99 mark it (only the
 * panels' processes give theirs: memory stays flat in the entities) */
static void hist_add(rep *x, hist *h, uint64_t v)
{
	uint64_t w = h->hi - h->lo;
	size_t b, i = (size_t)(h - x->hists);

	if (v < h->lo || v > h->hi)
		return;
	b = w ? (size_t)((unsigned __int128)(v - h->lo) * HIST_BINS /
			 ((unsigned __int128)w + 1)) : 0;
	h->bins[b < HIST_BINS ? b : HIST_BINS - 1]++;
	if (tk_pctl_put(x->pctl, (uint32_t)i, v) < 0)
		x->nomem = 1; /* (or its temporary file failed) */
	else
		x->hist_n[i]++;
}

static uint64_t hist_count(void *ctx, uint32_t i)
{
	return ((rep *)ctx)->hist_n[i];
}

/* after pass 2: each hist's p50 and p99 */
static int hist_percentiles(rep *x)
{
	uint64_t *out = calloc(x->nhists * 2 + 1, sizeof(*out));
	size_t i;
	int rc;

	if (!out)
		return TK_E_NOMEM;
	rc = tk_pctl_finish(x->pctl, (uint32_t)x->nhists, hist_count, x, out);
	for (i = 0; rc >= 0 && i < x->nhists; i++) {
		x->hists[i].has_pct = x->hist_n[i] > 0;
		x->hists[i].p50 = out[2 * i];
		x->hists[i].p99 = out[2 * i + 1];
	}
	free(out);
	return rc;
}

static uint64_t worst_key(uint32_t entity, int64_t inst)
{
	return (uint64_t)entity << 32 | (uint32_t)(uint64_t)inst;
}

static int is_worst(const rep *x, uint32_t entity, int64_t inst)
{
	uint64_t key = worst_key(entity, inst);
	uint32_t i;

	for (i = tk_hashmap_first(&x->worst_idx, key); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(&x->worst_idx, key, i)) {
		const struct worst *w = &x->worst[x->worst_idx.slots[i].val];
		if (w->entity == entity && w->inst == inst)
			return 1;
	}
	return 0;
}

static int add_worst(rep *x, uint32_t entity, int64_t inst)
{
	if (inst == TK_INST_NONE || is_worst(x, entity, inst))
		return 0;
	if (x->nworst >= UINT32_MAX ||
	    tk_grow_zero((void **)&x->worst, &x->capworst, x->nworst,
			 sizeof(*x->worst)) < 0)
		return -1;
	x->worst[x->nworst].entity = entity;
	x->worst[x->nworst].inst = inst;
	if (tk_hashmap_add(&x->worst_idx, worst_key(entity, inst),
			   (uint32_t)x->nworst) < 0)
		return -1;
	x->nworst++;
	return 0;
}

/* the place in the page of lane `lane` of pass 2 (its core's place) */
static uint32_t page_lane(const rep *x, uint32_t lane)
{
	uint32_t core = tk_timeline_lane_core(x->tl, lane);

	return core < x->nlane_pos && x->lane_pos[core] != TK_NONE
		       ? x->lane_pos[core] : lane;
}

/* the page's lanes of pass 1, in the order of their cores' entity ids */
static int order_lanes(rep *x)
{
	size_t i, n = tk_timeline_lane_count(x->tl), k = 0;
	size_t ne = tk_trace_entity_count(x->t);

	x->nlane_pos = ne;
	x->lane_pos = malloc((ne ? ne : 1) * sizeof(*x->lane_pos));
	x->lane_at = malloc((n ? n : 1) * sizeof(*x->lane_at));
	if (!x->lane_pos || !x->lane_at)
		return -1;
	for (i = 0; i < ne; i++)
		x->lane_pos[i] = TK_NONE;
	for (i = 0; i < n; i++) {
		uint32_t core = tk_timeline_lane_core(x->tl, i);
		if (core < ne)
			x->lane_pos[core] = (uint32_t)i;
	}
	/* entity order: a walk over the entity ids (linear, no sort) */
	for (i = 0; i < ne; i++)
		if (x->lane_pos[i] != TK_NONE) {
			x->lane_at[k] = x->lane_pos[i];
			x->lane_pos[i] = (uint32_t)k++;
		}
	return k == n ? 0 : -1;
}

/*
 * One bar of the page: written as it is when at least the threshold long
 * (or the worst instance of a metric row), else summarised into the
 * windows of its lane (pass 2).
 */
static void put_bar(rep *x, uint32_t lane, uint32_t depth, uint32_t entity,
		    int64_t inst, uint64_t start, uint64_t end, unsigned flags)
{
	uint64_t d = end - start;

	if (d >= x->threshold ||
	    (inst != TK_INST_NONE && is_worst(x, entity, inst))) {
		/* lane, depth, entity, start, duration, flags, instance */
		fprintf(x->sfp, "%s%u,%u,%u,%llu,%llu,%u,", x->nwritten++ ? "," : "",
			lane, depth, entity,
			(unsigned long long)(start - x->first),
			(unsigned long long)d, flags);
		if (inst == TK_INST_NONE)
			fputs("null", x->sfp);
		else
			fprintf(x->sfp, "%lld", (long long)inst);
		if (x->nwritten % 8 == 0)
			fputc('\n', x->sfp);
		if (d >= x->threshold)
			return;
		/* a worst instance's short bar: in the summary too */
	}
	if (lane_cap(x, lane) < 0) {
		x->nomem = 1;
		return;
	}
	{
		uint64_t t = start;
		size_t base = (size_t)lane * x->nbins, b;
		while (1) {
			uint64_t bend;
			b = bin_of(x, t);
			bend = bin_end(x, b, end);
			if (depth == 0)
				cell_set(x, x->sumbusy, base + b,
					 cell(x->csz, x->sumbusy, base + b) + (bend - t));
			if (bend - t >= cell(x->csz, x->domdur, base + b) ||
			    x->dom[base + b] == TK_NONE) {
				cell_set(x, x->domdur, base + b, bend - t);
				x->dom[base + b] = entity;
			}
			if (bend >= end)
				break;
			t = bend;
		}
	}
}

/* pass 1: one more bar of duration d at that depth of that lane */
static void count_bar(rep *x, uint32_t lane, uint32_t depth, uint64_t d)
{
	x->nslices++;
	x->dur_log2[ilog2(d)]++;
	if (lane < 256 && depth + 1 > x->maxdepth[lane])
		x->maxdepth[lane] = depth + 1;
}

/*
 * The timeline's slices: of a process instance (activation to terminate,
 * with the instances it was preempted by nested in it), only its metrics
 * (CPU time, the histograms); the page draws its run intervals instead
 * (on_run).  Runnable slices are drawn as the timeline nests them, above
 * the run interval of the process they run in.
 */
static void on_slice(void *ctx, const tk_slice *s)
{
	rep *x = ctx;

	if (tk_etype_is_process(s->type)) {
		if (!(s->flags & TK_SLICE_TERMINATED))
			return;
		if (x->pass == 1) {
			if (s->entity >= x->ncpu) {
				size_t n = (size_t)s->entity * 2 + 16;
				uint64_t *p = realloc(x->cpu, n * sizeof(*p));
				if (!p) {
					x->nomem = 1;
					return;
				}
				memset(p + x->ncpu, 0, (n - x->ncpu) * sizeof(*p));
				x->cpu = p;
				x->ncpu = n;
			}
			x->cpu[s->entity] += s->cet;
		} else {
			hist *h = hist_for(x, s->entity, TK_METRIC_RT);
			if (h && s->activated != UINT64_MAX && s->activated <= s->end)
				hist_add(x, h, s->end - s->activated);
			h = hist_for(x, s->entity, TK_METRIC_CET);
			if (h)
				hist_add(x, h, s->cet);
		}
		return;
	}
	if (x->pass == 1)
		count_bar(x, s->lane, s->depth, s->end - s->start);
	else
		put_bar(x, page_lane(x, s->lane), s->depth, s->entity, s->inst,
			s->start, s->end, s->flags);
}

/*
 * A run interval (the process allocated to the core, as the analyses
 * count it: tk_load, the exports' core tracks): a bar at depth 0 of its
 * lane, flagged TK_SLICE_RUN for the page, and the core's busy time.
 */
static void on_run(void *ctx, uint32_t lane, uint32_t entity, int64_t inst,
		   uint64_t start, uint64_t end)
{
	rep *x = ctx;
	uint64_t t = start;
	void *cells;
	int idle;

	if (x->pass != 2) {
		count_bar(x, lane, 0, end - start);
		return;
	}
	lane = page_lane(x, lane);
	put_bar(x, lane, 0, entity, inst, start, end, REPORT_RUN);
	if (x->nomem || lane_cap(x, lane) < 0) {
		x->nomem = 1;
		return;
	}
	/* an idle process is drawn, but its time is idle time, not load
	   (as `tracekit load` counts) */
	idle = tk_timeline_is_idle(x->tl, entity);
	if (idle < 0) {
		x->nomem = 1;
		return;
	}
	cells = idle ? x->idlebin : x->busy;
	while (t < end) {
		size_t b = bin_of(x, t);
		uint64_t bend = bin_end(x, b, end);
		size_t i = (size_t)lane * x->nbins + b;
		cell_set(x, cells, i, cell(x->csz, cells, i) + (bend - t));
		t = bend;
	}
}

/* the most bytes of a note the page holds */
#define NOTE_MAX 200u

/* The length of the note s[0..n) the page holds: at most NOTE_MAX bytes,
 * cut between two characters (a well-formed UTF-8 sequence is kept whole
 * or left out, never split into a stray byte). */
static size_t note_cut(const char *s, size_t n)
{
	size_t i = 0, len;

	if (n <= NOTE_MAX)
		return n;
	while (i < NOTE_MAX) {
		len = tk_utf8_len((const unsigned char *)s + i, n - i);
		if (!len)
			len = 1;  /* a stray byte: one */
		if (i + len > NOTE_MAX)
			break;
		i += len;
	}
	return i;
}

static int is_instant(const tk_event *ev)
{
	return ev->type == TK_ET_SIG || ev->type == TK_ET_EVENT ||
	       ev->type == TK_ET_SEM;
}

static void instant(rep *x, const tk_event *ev)
{
	long lane = tk_timeline_event_lane(x->tl, ev);

	if (lane >= 0)
		lane = (long)page_lane(x, (uint32_t)lane);

	if (x->instants_binned) {
		if (lane_cap(x, lane < 0 ? 0 : (size_t)lane) < 0) {
			x->nomem = 1;
			return;
		}
		x->ibins[(size_t)(lane + 1) * x->nbins + bin_of(x, ev->time)]++;
		return;
	}
	/* lane, target, event name, time, source, note */
	fprintf(x->fp, "%s[%ld,%u,", x->ninst_written++ ? "," : "", lane,
		ev->target);
	{
		size_t n;
		const char *s = tk_trace_str(x->t, ev->name, &n);
		tk_json_write_str(x->fp, s, n, 1);
	}
	fprintf(x->fp, ",%llu,%u", (unsigned long long)(ev->time - x->first),
		ev->source);
	if (ev->note) {
		fputc(',', x->fp);
		tk_json_write_str(x->fp, ev->note, note_cut(ev->note, ev->note_len), 1);
	}
	fputs("]\n", x->fp);
}

/* ---- one pass over the file ------------------------------------------------ */

/* chain "NAME=S0,S1,...,Sn" into st: TK_OK, or an error in err */
static int add_chain(tk_stats *st, const char *spec, tk_error *err)
{
	const char *eq = strchr(spec, '='), *p;
	char *copy = strdup(spec), *q;
	const char **sig = NULL;
	size_t n = 1, i;
	int rc;

	for (p = eq ? eq + 1 : spec; *p; p++)
		n += *p == ',';
	sig = copy && eq ? calloc(n, sizeof(*sig)) : NULL;
	if (sig) {
		copy[eq - spec] = '\0';
		for (i = 0, q = copy + (eq - spec) + 1; i < n; i++) {
			sig[i] = q;
			q += strcspn(q, ",");
			if (*q)
				*q++ = '\0';
		}
	}
	rc = !copy || (eq && !sig) ? TK_E_NOMEM : !eq ? TK_E_USAGE
	     : tk_stats_add_chain(st, copy, sig, n);
	free(sig);
	free(copy);
	if (rc == TK_E_NOMEM)
		return tk_err_nomem(err, NULL);
	if (rc < 0)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "bad chain '%.60s' (NAME=S0,S1,...,Sn: two signals or more, all different)",
				  spec);
	return TK_OK;
}

static int read_pass(rep *x, const char *path, const tk_reader_opts *ro,
		     tk_reader **rout, tk_stats **stout, tk_check **chkout,
		     tk_error *err)
{
	const tk_report_opts *o = x->o;
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	tk_check *chk = NULL;
	const tk_event *ev;
	int rc, have = 0;

	*rout = NULL;
	rc = tk_reader_open(&r, path, ro, err);
	if (rc < 0)
		return rc;
	/* the page counts times from the trace's first event, before the
	 * window too: the events before it are read, not skipped */
	tk_query_no_skip(r);
	x->t = tk_reader_trace(r);
	tk_tlines_init(&x->tlines, x->t);
	x->tlines_n = 0;
	x->tlines_left = 0;
	if (o->on_open && (rc = o->on_open(o->ctx, r, x->pass)) < 0) {
		tk_error_clear(err);
		if (err)
			err->code = rc;
		tk_reader_close(r);
		return rc;
	}
	if (tk_timeline_new(&x->tl, x->t, on_slice, on_run, x, NULL) < 0 ||
	    (x->idle && tk_timeline_set_idle(x->tl, x->idle, x->nidle) < 0) ||
	    (x->pass == 1 &&
	     (tk_stats_new(&st, x->t, NULL) < 0 ||
	      tk_check_new(&chk, x->t, on_violation, x, NULL) < 0)))
		goto nomem;
	if (x->pass == 1 && o->reqs && tk_verify_new(&x->ver, o->reqs, x->t, err) < 0) {
		tk_stats_free(st);
		tk_check_free(chk);
		tk_reader_close(r);
		return TK_E_NOMEM;
	}
	if (st) {
		/* the chains' rows */
		for (size_t i = 0; i < o->nchains; i++)
			if ((rc = add_chain(st, o->chains[i], err)) < 0) {
				tk_stats_free(st);
				tk_check_free(chk);
				tk_reader_close(r);
				return rc;
			}
	}
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK) {
		/* one time axis: the time lines after the first (their
		 * times start again) are read through, not drawn */
		uint32_t k = tk_tlines_of(&x->tlines, ev);
		if (k > x->tlines_n)
			x->tlines_n = k;
		if (k > 1) {
			x->tlines_left++;
			continue;
		}
		if (x->pass == 1 && (!x->have_file_first || ev->time < x->file_first)) {
			x->file_first = ev->time;
			x->have_file_first = 1;
		}
		if (x->pass == 1) {
			if (!have || ev->time < x->first)
				x->first = ev->time;
			if (!have || ev->time > x->last)
				x->last = ev->time;
			have = 1;
			if ((rc = tk_stats_event(st, ev, err)) < 0 ||
			    (rc = tk_check_event(chk, ev, err)) < 0 ||
			    (x->ver && (rc = tk_verify_event(x->ver, ev, err)) < 0)) {
				tk_err_input(err, path, rc);
				break;
			}
			if (is_instant(ev))
				x->ninstants++;
		}
		if ((rc = tk_timeline_event(x->tl, ev, err)) < 0) {
			tk_err_input(err, path, rc);
			break;
		}
		if (x->pass == 2 && is_instant(ev))
			instant(x, ev);
		if (x->nomem)
			goto nomem;
	}
	if (rc < 0) {
		tk_stats_free(st);
		tk_check_free(chk);
		tk_reader_close(r);
		return rc;
	}
	if (x->nomem)
		goto nomem;
	{
		/* the trace's first event may be one the query skipped (before
		 * the window's start, or not an entity of its filter) */
		uint64_t t;
		if (x->pass == 1 && x->tlines_n <= 1 && tk_query_first_time(r, &t) &&
		    (!x->have_file_first || t < x->file_first)) {
			x->file_first = t;
			x->have_file_first = 1;
		}
	}
	if ((rc = tk_timeline_finish(x->tl, err)) < 0 ||
	    (st && (rc = tk_stats_finish(st, err)) < 0)) {
		tk_err_input(err, path, rc);
		tk_stats_free(st);
		tk_check_free(chk);
		tk_reader_close(r);
		return rc;
	}
	if (x->nomem)
		goto nomem;
	if (x->pass == 1 && x->ver && (rc = tk_verify_finish(x->ver, err)) < 0) {
		if (!err->input[0])
			snprintf(err->input, sizeof(err->input), "%s", path);
		tk_stats_free(st);
		tk_check_free(chk);
		tk_reader_close(r);
		return rc;
	}
	*rout = r;
	*stout = st;
	*chkout = chk;
	return TK_OK;
nomem:
	tk_stats_free(st);
	tk_check_free(chk);
	tk_reader_close(r);
	return tk_err_nomem(err, NULL);
}

/* ---- the page --------------------------------------------------------------- */

/* cells off..off+n-1 of a, of csz bytes each (0: entities, uint32_t,
 * TK_NONE as -1) */
static void write_cells(FILE *fp, const void *a, size_t csz, size_t off, size_t n)
{
	size_t i;

	fputc('[', fp);
	for (i = 0; i < n; i++) {
		uint64_t v = cell(csz ? csz : 4, a, off + i);
		if (!csz && v == TK_NONE)
			fprintf(fp, "%s-1", i ? "," : "");
		else
			fprintf(fp, "%s%llu", i ? "," : "", (unsigned long long)v);
	}
	fputc(']', fp);
}

/* a number of ticks, or null */
static void put_opt(FILE *fp, int have, uint64_t v)
{
	if (have)
		fprintf(fp, ",%llu", (unsigned long long)v);
	else
		fputs(",null", fp);
}

/*
 * Very many entities: one compact row per entity, for the page's table
 * (entity, instances, worst RT, its instance, its time, worst CET, total
 * CET of the terminated instances; times in ticks, null when absent).
 */
/* the rows of entities (the chains' rows follow them) */
static size_t entity_rows(tk_stats *st)
{
	size_t n = tk_stats_count(st);

	while (n && tk_stats_get(st, n - 1)->chain)
		n--;
	return n;
}

static void write_table(rep *x, tk_stats *st, size_t nents)
{
	size_t i = 0, ns = entity_rows(st), nrow = 0;

	fprintf(x->fp, ",\"tableOf\":%zu,\n\"table\":[", nents);
	while (i < ns) {
		const tk_stat *s = tk_stats_get(st, i), *rt = NULL, *cet = NULL;
		uint32_t e = s->entity;
		uint64_t n = 0;
		for (; i < ns && (s = tk_stats_get(st, i))->entity == e; i++) {
			if (s->metric == TK_METRIC_RT)
				rt = s;
			else if (s->metric == TK_METRIC_CET)
				cet = s;
			if (s->count > n && s->metric != TK_METRIC_JIT)
				n = s->count;
		}
		fprintf(x->fp, "%s[%u,%llu", nrow++ ? (nrow % 8 == 1 ? ",\n" : ",") : "",
			e, (unsigned long long)n);
		put_opt(x->fp, rt != NULL, rt ? rt->max : 0);
		put_opt(x->fp, rt && rt->max_inst != TK_INST_NONE,
			rt ? (uint64_t)rt->max_inst : 0);
		put_opt(x->fp, rt != NULL,
			rt && rt->max_time >= x->first ? rt->max_time - x->first : 0);
		put_opt(x->fp, cet != NULL, cet ? cet->max : 0);
		put_opt(x->fp, e < x->ncpu, e < x->ncpu ? x->cpu[e] : 0);
		fputc(']', x->fp);
	}
	fputc(']', x->fp);
}

/* how many entities have stats rows (the rows of one entity are together,
 * sorted by name, entity) */
static size_t stat_entities(tk_stats *st)
{
	size_t i, n = 0;

	for (i = 0; i < entity_rows(st); i++)
		if (!i || tk_stats_get(st, i)->entity != tk_stats_get(st, i - 1)->entity)
			n++;
	return n;
}

/* a full metric row in the page (beyond STATS_ENTITY_MAX entities, those
 * of the entities with histogram panels only) */
static int row_in_page(const rep *x, const tk_stat *s, int limited)
{
	return !limited || s->chain ||
	       (s->entity < x->nhist_of && x->hist_of[s->entity]);
}

/*
 * The worst instances of the metric rows in the page: their slices go into
 * the page whatever their length, so that a click on a row outlines one.
 * (A row of the "All entities" table marks its worst RT as a time range:
 * a slice for each of 100,000 tasks would add half to the page.)  0 or -1
 * (out of memory).
 */
static int collect_worst(rep *x, tk_stats *st)
{
	size_t i;
	int limited = stat_entities(st) > STATS_ENTITY_MAX;

	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *s = tk_stats_get(st, i);
		if (!s->chain && row_in_page(x, s, limited) &&
		    add_worst(x, s->entity, s->max_inst) < 0)
			return -1;
	}
	return 0;
}

/* whether process `ent` is idle (out of memory: x->nomem, and not) */
static int idle_of(rep *x, uint32_t ent)
{
	int idle = tk_timeline_is_idle(x->tl, ent);

	if (idle < 0)
		x->nomem = 1;
	return idle > 0;
}

static void write_meta(rep *x, const char *path, tk_stats *st)
{
	const tk_trace *t = x->t;
	const tk_timebase *tb = tk_trace_timebase(t);
	char buf[200];
	size_t i, n, nents, nrow;
	int limited;

	fputs("\"file\":", x->fp);
	jcstr(x->fp, path);
	fputs(",\"format\":", x->fp);
	jcstr(x->fp, tk_trace_format(t));
	if (tk_time_format(1, tb, TK_UNIT_NS, buf, sizeof(buf)) < 0)
		strcpy(buf, "1");
	/* ns per tick, for display only (the page computes in ticks) */
	if (strchr(buf, '/')) {
		double a = strtod(buf, NULL), b = strtod(strchr(buf, '/') + 1, NULL);
		snprintf(buf, sizeof(buf), "%.17g", b ? a / b : 1.0);
	}
	fprintf(x->fp, ",\"nsPerTick\":%s,\"span\":%llu,\"cycles\":", buf,
		(unsigned long long)x->span);
	/* ticks that count cycles (a Tarmac log): shown as such, not as ns */
	if (tk_trace_cycle_unit(t))
		jcstr(x->fp, tk_trace_cycle_unit(t));
	else
		fputs("null", x->fp);
	fputs(",\"first\":", x->fp);
	if (tk_time_format_decimal(x->first, tb, TK_UNIT_NS, buf, sizeof(buf)) < 0)
		strcpy(buf, "?");
	jcstr(x->fp, buf);
	/* the page's time 0 is its first event; the trace's first event
	 * (before --start) is this many ticks before it */
	fprintf(x->fp, ",\"sinceFirst\":%llu",
		(unsigned long long)(x->have_file_first && x->file_first <= x->first
					     ? x->first - x->file_first : 0));
	/* of several time lines, the first is drawn: the others' number */
	fprintf(x->fp, ",\"timeLines\":%lu,\"timeLinesLeft\":%llu",
		(unsigned long)(x->tlines_n ? x->tlines_n : 1),
		(unsigned long long)x->tlines_left);
	fputs(",\n\"ents\":[", x->fp);
	for (i = 0; i < tk_trace_entity_count(t); i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		const char *s = tk_trace_str(t, e->name, &n);
		fputs(i ? ",[" : "[", x->fp);
		tk_json_write_str(x->fp, s, n, 1);
		fputc(',', x->fp);
		jcstr(x->fp, tk_etype_name(e->type));
		fputs("]", x->fp);
		if (i % 16 == 15)
			fputc('\n', x->fp);
	}
	fputs("],\n\"lanes\":[", x->fp);
	for (i = 0; i < tk_timeline_lane_count(x->tl); i++) {
		uint32_t l = x->lane_at[i];
		const tk_entity *e = tk_trace_entity(t, tk_timeline_lane_core(x->tl, l));
		const char *s = e ? tk_trace_str(t, e->name, &n) : "?";
		fputs(i ? ",{\"name\":" : "{\"name\":", x->fp);
		tk_json_write_str(x->fp, s, e ? n : 1, 1);
		fprintf(x->fp, ",\"depth\":%u}", l < 256 ? x->maxdepth[l] : 8);
	}
	/* the idle processes (their time is idle time, not load): how many,
	 * and the names of the first IDLE_NAMES (the array stays open) */
	for (i = 0, nrow = 0; i < tk_trace_entity_count(t); i++)
		if (tk_etype_is_process(tk_trace_entity(t, (uint32_t)i)->type) &&
		    idle_of(x, (uint32_t)i))
			nrow++;
	fprintf(x->fp, "],\n\"idleCount\":%zu,\"idleNames\":[", nrow);
	for (i = 0, nrow = 0; i < tk_trace_entity_count(t) && nrow < IDLE_NAMES; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		const char *s;
		if (!tk_etype_is_process(e->type) || !idle_of(x, (uint32_t)i))
			continue;
		s = tk_trace_str(t, e->name, &n);
		fputs(nrow++ ? "," : "", x->fp);
		tk_json_write_str(x->fp, s, n, 1);
	}
	nents = stat_entities(st);
	limited = nents > STATS_ENTITY_MAX;
	fputs("],\n\"stats\":[", x->fp);
	for (i = 0, nrow = 0; i < tk_stats_count(st); i++) {
		const tk_stat *s = tk_stats_get(st, i);
		static const tk_stat_field fld[3] = { TK_STAT_MIN, TK_STAT_AVG,
						      TK_STAT_MAX };
		char v[3][160], ex[3][160];
		int k, differs = 0;
		if (!row_in_page(x, s, limited))
			continue;
		for (k = 0; k < 3; k++) {
			if (tk_stats_format(st, i, fld[k], TK_UNIT_US, v[k],
					    sizeof(v[k])) < 0)
				strcpy(v[k], "?");
			if (tk_stats_format_exact(st, i, fld[k], TK_UNIT_US, ex[k],
						  sizeof(ex[k])) < 0)
				strcpy(ex[k], v[k]);
			differs |= strcmp(v[k], ex[k]) != 0;
		}
		if (s->chain) {
			/* a cause-effect chain's row: its name, no entity */
			size_t len;
			const char *nm = tk_stats_row_name(st, i, &len);
			fprintf(x->fp, "%s{\"e\":-1,\"c\":", nrow++ ? ",\n" : "");
			tk_json_write_str(x->fp, nm ? nm : "", nm ? len : 0, 1);
			fprintf(x->fp, ",\"m\":\"%s\",\"time\":%d,\"n\":%llu,\"min\":",
				tk_metric_name(s->metric), tk_metric_is_time(s->metric),
				(unsigned long long)s->count);
		} else {
			fprintf(x->fp, "%s{\"e\":%u,\"m\":\"%s\",\"time\":%d,\"n\":%llu,\"min\":",
				nrow++ ? ",\n" : "", s->entity, tk_metric_name(s->metric),
				tk_metric_is_time(s->metric),
				(unsigned long long)s->count);
		}
		jcstr(x->fp, v[0]);
		fputs(",\"avg\":", x->fp);
		jcstr(x->fp, v[1]);
		fputs(",\"max\":", x->fp);
		jcstr(x->fp, v[2]);
		if (differs) {
			/* the exact values, for the cells' tooltips */
			fputs(",\"ex\":[", x->fp);
			for (k = 0; k < 3; k++) {
				if (k)
					fputc(',', x->fp);
				jcstr(x->fp, ex[k]);
			}
			fputc(']', x->fp);
		}
		fprintf(x->fp, ",\"maxTicks\":%llu,\"inst\":",
			(unsigned long long)(tk_metric_is_time(s->metric) ? s->max : 0));
		if (s->max_inst == TK_INST_NONE)
			fputs("null", x->fp);
		else
			fprintf(x->fp, "%lld", (long long)s->max_inst);
		fprintf(x->fp, ",\"at\":%llu}",
			(unsigned long long)(s->max_time >= x->first ? s->max_time - x->first : 0));
	}
	fputc(']', x->fp);
	if (limited)
		write_table(x, st, nents);
	fputs(",\n\"problems\":[", x->fp);
	for (i = 0; i < x->nprobs; i++) {
		const problem *p = &x->probs[i];
		fprintf(x->fp, "%s{\"t\":%llu,\"pos\":%llu,\"rule\":\"%s\",\"msg\":",
			i ? ",\n" : "",
			(unsigned long long)(p->time >= x->first ? p->time - x->first : 0),
			(unsigned long long)p->pos, tk_rule_name(p->rule));
		jcstr(x->fp, p->msg);
		fputc('}', x->fp);
	}
	fputs("],\n\"reqs\":[", x->fp);
	for (i = 0; x->ver && i < tk_verify_count(x->ver); i++) {
		const tk_verdict *d = tk_verify_get(x->ver, i);
		fprintf(x->fp, "%s{\"n\":", i ? ",\n" : "");
		jcstr(x->fp, d->name);
		fprintf(x->fp, ",\"ok\":%d,\"msg\":", d->ok);
		jcstr(x->fp, d->text);
		if (d->has_time)
			fprintf(x->fp, ",\"t\":%llu", (unsigned long long)
				(d->time >= x->first ? d->time - x->first : 0));
		fputc('}', x->fp);
	}
	fputs("],\"violations\":{", x->fp);
	for (i = 0; i < TK_RULE_COUNT; i++)
		fprintf(x->fp, "%s\"%s\":%llu", i ? "," : "", tk_rule_name((tk_rule)i),
			(unsigned long long)x->nviol[i]);
	fputs("},\n", x->fp);
}

/* the slice duration below which slices are summarised */
static uint64_t pick_threshold(const rep *x)
{
	uint64_t n = x->nslices;
	unsigned k;

	if (n <= SLICE_BUDGET)
		return 0;
	for (k = 0; k < 65 && n > SLICE_BUDGET; k++)
		n -= x->dur_log2[k];
	/* slices of ilog2(d) < k are summarised: d < 2^(k-1) */
	return k <= 1 ? 1 : (k - 1 >= 64 ? UINT64_MAX : (uint64_t)1 << (k - 1));
}

typedef struct cand {
	uint32_t entity;
	size_t rt, cet;         /* their stats rows */
	uint64_t key;
} cand;

static int cmp_cand_desc(const void *a, const void *b)
{
	const cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->entity < y->entity ? -1 : x->entity > y->entity;
}

static void add_hist_pair(rep *x, tk_stats *st, const cand *c, size_t k)
{
	const tk_stat *s = tk_stats_get(st, c->rt), *o = tk_stats_get(st, c->cet);

	x->hists[k].entity = c->entity;
	x->hists[k].metric = TK_METRIC_RT;
	x->hists[k].lo = s->min;
	x->hists[k].hi = s->max;
	x->hists[k + 1].entity = c->entity;
	x->hists[k + 1].metric = TK_METRIC_CET;
	x->hists[k + 1].lo = o->min;
	x->hists[k + 1].hi = o->max;
	x->hist_of[c->entity] = (uint32_t)k + 1;
}

/* Keep c if it is among the HIST_PANELS / 2 first of cmp_cand_desc's
 * order: top[0..*n) stays sorted. */
static void top_add(cand *top, size_t *n, const cand *c)
{
	size_t i = *n;

	if (i == HIST_PANELS / 2 && cmp_cand_desc(c, &top[i - 1]) >= 0)
		return;
	if (i == HIST_PANELS / 2)
		i--; /* the last one drops out */
	else
		(*n)++;
	for (; i > 0 && cmp_cand_desc(c, &top[i - 1]) < 0; i--)
		top[i] = top[i - 1];
	top[i] = *c;
}

/* Stats row i as a candidate for panels: an RT row of a process that has
 * a CET row too (key: its worst RT).  0 when it is not one. */
static int cand_at(const rep *x, tk_stats *st, const size_t *cet_row,
		   size_t i, cand *c)
{
	const tk_stat *s = tk_stats_get(st, i);

	if (s->metric != TK_METRIC_RT || !tk_etype_is_process(s->type) ||
	    s->entity >= x->nhist_of || !cet_row[s->entity])
		return 0;
	c->entity = s->entity;
	c->rt = i;
	c->cet = cet_row[s->entity] - 1;
	c->key = s->max;
	return 1;
}

/*
 * A pair of histograms (RT, CET) per process with both metrics, in the
 * order of the stats; beyond HIST_PANELS processes, the half with the worst
 * RT, then the half with the most CPU time (not already shown).  Linear in
 * the rows (the halves are kept as the rows go by, not sorted out of a copy
 * of every candidate).
 */
static int make_hists(rep *x, tk_stats *st)
{
	size_t i, j, k = 0, nc = 0, ntop, ns = tk_stats_count(st);
	size_t *cet_row = NULL;
	cand c, top[HIST_PANELS / 2];
	int ret = -1;

	x->nhist_of = tk_trace_entity_count(x->t) + 1;
	x->hist_of = calloc(x->nhist_of, sizeof(*x->hist_of));
	cet_row = calloc(x->nhist_of, sizeof(*cet_row));
	if (!x->hist_of || !cet_row)
		goto out;
	for (i = 0; i < ns; i++) {
		const tk_stat *s = tk_stats_get(st, i);
		if (s->metric == TK_METRIC_CET && s->entity < x->nhist_of)
			cet_row[s->entity] = i + 1;
	}
	for (i = 0; i < ns; i++)
		nc += (size_t)cand_at(x, st, cet_row, i, &c);
	x->nhist_procs = nc;
	x->hists = calloc(2 * (nc < HIST_PANELS ? nc : HIST_PANELS) + 2,
			  sizeof(*x->hists));
	if (!x->hists)
		goto out;
	/* all of them; or j = 0: the worst RT, j = 1: the most CPU time of
	 * the others */
	for (j = 0; j < (nc > HIST_PANELS ? 2u : 1u); j++) {
		for (i = 0, ntop = 0; i < ns; i++) {
			if (!cand_at(x, st, cet_row, i, &c) || x->hist_of[c.entity])
				continue;
			if (j)
				c.key = c.entity < x->ncpu ? x->cpu[c.entity] : 0;
			if (nc > HIST_PANELS) {
				top_add(top, &ntop, &c);
				continue;
			}
			add_hist_pair(x, st, &c, k);
			k += 2;
		}
		for (i = 0; i < ntop; i++, k += 2)
			add_hist_pair(x, st, &top[i], k);
	}
	x->nhists = k;
	{
		/* the histograms mark p50 and p99 */
		static const uint32_t pct[2] = { 50000000, 99000000 };
		x->pctl = tk_pctl_new(pct, 2);
		x->hist_n = calloc(k + 1, sizeof(*x->hist_n));
		if (!x->pctl || !x->hist_n)
			goto out;
	}
	ret = 0;
out:
	free(cet_row);
	return ret;
}

/* The page is written with stdio onto a tk_output. */
typedef struct page_out {
	tk_output *o;
	tk_error err;
	int failed;
} page_out;

static ssize_t page_write(void *cookie, const char *buf, size_t n)
{
	page_out *p = cookie;

	if (!p->failed && tk_output_write(p->o, buf, n, &p->err) < 0)
		p->failed = 1;
	if (p->failed) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

static int page_open(page_out *p, const char *out, FILE **fp, tk_error *err)
{
	static const cookie_io_functions_t io = { NULL, page_write, NULL, NULL };
	int rc;

	tk_error_clear(&p->err);
	if ((rc = tk_output_open(&p->o, out, err)) < 0)
		return rc;
	*fp = fopencookie(p, "w", io);
	if (!*fp) {
		tk_output_abort(p->o);
		p->o = NULL;
		return tk_err_nomem(err, NULL);
	}
	return TK_OK;
}

void tk_report_page(const char **head, const char **tail)
{
	if (head)
		*head = tk_report_page_head;
	if (tail)
		*tail = tk_report_page_tail;
}

void tk_report_opts_init(tk_report_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

/* The sizes tk_report_opts has had, oldest first (TK_OPTS_TAKE()). */
static const size_t report_opts_sizes[] = {
	offsetof(tk_report_opts, on_read),
	sizeof(tk_report_opts)
};

int tk_report_write(const char *path, const char *out,
		    const tk_report_opts *opts, tk_error *err)
{
	tk_report_opts given;
	tk_reader_opts ro;
	rep x;
	tk_reader *r1 = NULL, *r2 = NULL;
	tk_stats *st = NULL, *st2 = NULL;
	tk_check *chk = NULL, *chk2 = NULL;
	page_out page;
	struct stat sb;
	int ret;
	size_t i;

	ret = TK_OPTS_TAKE(tk_report_opts, &given, opts, report_opts_sizes, err);
	if (ret == TK_OK)
		ret = tk_reader_opts_take(&ro, given.reader, err);
	if (ret < 0)
		return ret;
	opts = &given;
	memset(&x, 0, sizeof(x));
	memset(&page, 0, sizeof(page));
	tk_error_clear(err);
	if (strcmp(path, "-") == 0)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "the report reads FILE twice: standard input cannot be used");
	/* a pipe (/dev/fd/N of a process substitution) is read once */
	if (stat(path, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) ||
				     S_ISCHR(sb.st_mode)))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "the report reads FILE twice: %s is a pipe or "
				  "device, which can be read only once", path);
	x.o = opts;
	x.idle = opts->idle;
	x.nidle = opts->idle ? opts->nidle : 0;
	x.pass = 1;
	if ((ret = read_pass(&x, path, &ro, &r1, &st, &chk, err)) < 0)
		goto out;
	if (x.tlines_left && ro.on_warning) {
		tk_error wn;

		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", path);
		snprintf(wn.msg, sizeof(wn.msg),
			 "the report draws one time line: the first of %lu, ATF TraceData whose time starts again; %llu events of the others left out (read one with the reader option trace=N)",
			 (unsigned long)x.tlines_n, (unsigned long long)x.tlines_left);
		ro.on_warning(ro.warning_ctx, &wn);
	}
	if (opts->on_read && (ret = opts->on_read(opts->ctx, r1)) < 0) {
		tk_error_clear(err);
		if (err)
			err->code = ret;
		goto out;
	}
	x.span = x.last - x.first;
	{
		size_t lanes = x.lanes1 = tk_timeline_lane_count(x.tl);
		x.nbins = REPORT_BINS;
		if (lanes > REPORT_LANE_BINS / REPORT_BINS)
			x.nbins = REPORT_LANE_BINS / lanes < REPORT_MIN_BINS
					  ? REPORT_MIN_BINS
					  : REPORT_LANE_BINS / lanes;
	}
	x.binw = x.span / x.nbins + 1;
	x.csz = x.binw <= UINT32_MAX ? 4 : 8;
	x.threshold = pick_threshold(&x);
	x.instants_binned = x.ninstants > INSTANT_BUDGET;
	if (make_hists(&x, st) < 0 || collect_worst(&x, st) < 0 ||
	    order_lanes(&x) < 0)
		goto nomem;
	if ((ret = page_open(&page, out, &x.fp, err)) < 0)
		goto out;
	x.sfp = tmpfile();
	if (!x.sfp)
		goto nomem;
	fputs(tk_report_page_head, x.fp);
	fputs("{", x.fp);
	write_meta(&x, path, st);
	fprintf(x.fp, "\"threshold\":%llu,\"binw\":%llu,\"bins\":%zu,\n\"instants\":[",
		(unsigned long long)x.threshold, (unsigned long long)x.binw,
		x.nbins);
	/* the page has the stats and problems: pass 2 does without them and
	 * without pass 1's trace (it reads the same one again) */
	tk_stats_free(st);
	tk_check_free(chk);
	if (opts->req_failures)
		*opts->req_failures = x.ver ? tk_verify_failures(x.ver) : 0;
	tk_verify_free(x.ver); /* in the page; it holds pass 1's trace */
	x.ver = NULL;
	st = NULL;
	chk = NULL;
	tk_timeline_free(x.tl);
	x.tl = NULL;
	tk_reader_close(r1);
	r1 = NULL;
	/* pass 2: slices to x.sfp as they close, instants to the page */
	x.pass = 2;
	ro.on_warning = NULL; /* pass 1 showed the warnings */
	if ((ret = read_pass(&x, path, &ro, &r2, &st2, &chk2, err)) < 0)
		goto out;
	if ((ret = hist_percentiles(&x)) < 0) {
		ret = ret == TK_E_NOMEM ? tk_err_nomem(err, NULL)
					: tk_err_set(err, TK_E_IO, NULL, 0, 0,
						     "cannot write or read back a temporary file");
		goto out;
	}
	fputs("],\n\"slices\":[", x.fp);
	{
		char buf[65536];
		size_t n;
		rewind(x.sfp);
		while ((n = fread(buf, 1, sizeof(buf), x.sfp)) > 0)
			fwrite(buf, 1, n, x.fp);
		if (ferror(x.sfp)) {
			ret = tk_err_set(err, TK_E_IO, NULL, 0, 0,
					 "cannot read back a temporary file");
			goto out;
		}
	}
	{
		/* per lane (instants: and one row for those of no lane) */
		static const char *const name[5] = { "load", "summary", "summaryDom",
						     "instantBins", "idle" };
		const void *cells[5] = { x.busy, x.sumbusy, x.dom, x.ibins, x.idlebin };
		size_t csz[5] = { x.csz, x.csz, 0, sizeof(uint32_t), x.csz }, k;
		size_t lanes = tk_timeline_lane_count(x.tl), n[5];
		n[0] = lanes < x.nlanes ? lanes : x.nlanes;
		n[1] = n[2] = x.threshold ? n[0] : 0;
		n[3] = x.instants_binned ? n[0] + 1 : 0;
		n[4] = n[0];
		for (k = 0; k < 5; k++) {
			fprintf(x.fp, "],\n\"%s\":[", name[k]);
			for (i = 0; i < n[k]; i++) {
				fputs(i ? ",\n" : "", x.fp);
				write_cells(x.fp, cells[k], csz[k], i * x.nbins, x.nbins);
			}
		}
	}
	fprintf(x.fp, "],\"nInstants\":%llu,\"nSlices\":%llu,",
		(unsigned long long)x.ninstants, (unsigned long long)x.nslices);
	if (x.nhist_procs > HIST_PANELS)
		fprintf(x.fp, "\"histProcs\":%zu,", x.nhist_procs);
	fputs("\n\"hists\":[", x.fp);
	for (i = 0; i < x.nhists; i++) {
		const hist *h = &x.hists[i];
		fprintf(x.fp, "%s{\"e\":%u,\"m\":\"%s\",\"lo\":%llu,\"hi\":%llu,",
			i ? ",\n" : "", h->entity, tk_metric_name(h->metric),
			(unsigned long long)h->lo, (unsigned long long)h->hi);
		if (h->has_pct)
			fprintf(x.fp, "\"p50\":%llu,\"p99\":%llu,",
				(unsigned long long)h->p50, (unsigned long long)h->p99);
		fputs("\"bins\":", x.fp);
		write_cells(x.fp, h->bins, sizeof(h->bins[0]), 0, HIST_BINS);
		fputc('}', x.fp);
	}
	fputs("]}", x.fp);
	fputs(tk_report_page_tail, x.fp);
	{
		int bad = fclose(x.fp) != 0;
		x.fp = NULL;
		if (page.failed) {
			if (err)
				*err = page.err;
			ret = page.err.code ? page.err.code : TK_E_IO;
			goto out;
		}
		if (bad) {
			ret = tk_err_set(err, TK_E_IO, NULL, 0, 0, "%s: write failed", out);
			goto out;
		}
	}
	ret = tk_output_close(page.o, err);
	page.o = NULL;
	if (ret < 0)
		goto out;
	if (opts->warnings)
		*opts->warnings = tk_reader_warning_count(r2) + (x.tlines_left != 0);
	ret = TK_OK;
	goto out;
nomem:
	ret = tk_err_nomem(err, NULL);
out:
	if (x.fp)
		fclose(x.fp);
	if (x.sfp)
		fclose(x.sfp);
	tk_output_abort(page.o);
	tk_verify_free(x.ver);
	for (i = 0; i < x.nprobs; i++)
		free(x.probs[i].msg);
	free(x.probs);
	free(x.busy);
	free(x.idlebin);
	free(x.sumbusy);
	free(x.dom);
	free(x.domdur);
	free(x.ibins);
	free(x.hists);
	free(x.hist_of);
	tk_pctl_free(x.pctl);
	free(x.hist_n);
	free(x.cpu);
	free(x.worst);
	free(x.lane_pos);
	free(x.lane_at);
	tk_hashmap_free(&x.worst_idx);
	tk_timeline_free(x.tl);
	tk_stats_free(st);
	tk_stats_free(st2);
	tk_check_free(chk);
	tk_check_free(chk2);
	tk_reader_close(r1);
	tk_reader_close(r2);
	return ret;
}
