/*
 * dataset.c - one trace added to a Parquet dataset (include/tracekit/
 * dataset.h, docs/fleet.md): in one pass over its events, the events
 * writer of convert (parquet_writer.c) writes events/, the stats analysis
 * (as `tracekit stats`, its per-instance values through the value callback
 * the SQLite writer's instanceMetricValue uses) gives instances/ and
 * metrics/, the load analysis (as `tracekit load`) load/; traces/ holds
 * the input's row.  Every table is a column table of coltab.c written
 * through its own sink: the files are committed only after all of them
 * were written in full (traces/ last, so that the content hash an
 * --append looks for names a complete input), and a failure removes
 * those committed already.
 *
 * Memory: the events writer's row group, the analyses', and one record
 * per instance (ds_inst) until the end of the trace.
 */
#include "tracekit/dataset.h"
#include "tracekit/analysis.h"

#include "../../analysis/analysis_exports.h"
#include "../../core/internal.h"
#include "../parquet/coltab.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the tables, in the order their files are committed */
enum { T_EVENTS, T_INSTANCES, T_METRICS, T_LOAD, T_TRACES, NTABLES };
static const char *const table_name[NTABLES] = {
	"events", "instances", "metrics", "load", "traces"
};

/* instances/: the per-instance metrics in stats' order of columns */
#define NM 8
static const tk_metric inst_metric[NM] = {
	TK_METRIC_IPT, TK_METRIC_CET, TK_METRIC_GET, TK_METRIC_RT,
	TK_METRIC_DT, TK_METRIC_PER, TK_METRIC_ST, TK_METRIC_NPRE
};
enum { I_TRACE, I_ENTITY, I_TYPE, I_INST, I_CORE, I_ACT, I_START, I_END,
       I_M0, I_JIT = I_M0 + NM, I_NCOLS };
static const tk_colspec inst_cols[I_NCOLS] = {
	{ "trace", TK_COL_STR, 0, 0 },
	{ "entity", TK_COL_STR, 0, 0 },
	{ "type", TK_COL_STR, 0, 0 },
	{ "instance", TK_COL_I64, 0, 0 },
	{ "core", TK_COL_STR, 1, 0 },
	{ "activate_ns", TK_COL_F64, 1, 0 },
	{ "start_ns", TK_COL_F64, 1, 0 },
	{ "end_ns", TK_COL_F64, 1, 0 },
	{ "ipt_ns", TK_COL_F64, 1, 0 },
	{ "cet_ns", TK_COL_F64, 1, 0 },
	{ "get_ns", TK_COL_F64, 1, 0 },
	{ "rt_ns", TK_COL_F64, 1, 0 },
	{ "dt_ns", TK_COL_F64, 1, 0 },
	{ "per_ns", TK_COL_F64, 1, 0 },
	{ "st_ns", TK_COL_F64, 1, 0 },
	{ "npre", TK_COL_I64, 1, 0 },
	{ "jit", TK_COL_F64, 1, 0 },
};

enum { M_TRACE, M_ENTITY, M_TYPE, M_METRIC, M_COUNT, M_MIN, M_AVG, M_MAX,
       M_UNIT, M_MAXINST, M_MAXAT, M_NCOLS };
static const tk_colspec metric_cols[M_NCOLS] = {
	{ "trace", TK_COL_STR, 0, 0 },
	{ "entity", TK_COL_STR, 0, 0 },
	{ "type", TK_COL_STR, 0, 0 },
	{ "metric", TK_COL_STR, 0, 0 },
	{ "count", TK_COL_I64, 0, 0 },
	{ "min", TK_COL_F64, 1, 0 },
	{ "avg", TK_COL_F64, 1, 0 },
	{ "max", TK_COL_F64, 1, 0 },
	{ "unit", TK_COL_STR, 0, 0 },
	{ "max_instance", TK_COL_I64, 1, 0 },
	{ "max_at", TK_COL_F64, 1, 0 },
};

enum { L_TRACE, L_KIND, L_CORE, L_START, L_END, L_BUSY, L_LOAD, L_NCOLS };
static const tk_colspec load_cols[L_NCOLS] = {
	{ "trace", TK_COL_STR, 0, 0 },
	{ "kind", TK_COL_STR, 0, 0 },
	{ "core", TK_COL_STR, 0, 0 },
	{ "start_ns", TK_COL_F64, 1, 0 },
	{ "end_ns", TK_COL_F64, 1, 0 },
	{ "busy_ns", TK_COL_F64, 1, 0 },
	{ "load", TK_COL_F64, 1, 0 },
};

enum { R_TRACE, R_PATH, R_FORMAT, R_HEADER, R_TIMEBASE, R_FIRST, R_LAST,
       R_SPAN, R_EVENTS, R_ENTITIES, R_INSTANCES, R_CORES, R_WARNINGS,
       R_SHA, R_NCOLS };
static const tk_colspec trace_cols[R_NCOLS] = {
	{ "trace", TK_COL_STR, 0, 0 },
	{ "path", TK_COL_STR, 0, 0 },
	{ "format", TK_COL_STR, 0, 0 },
	{ "header", TK_COL_STR, 0, 0 },
	{ "timebase", TK_COL_STR, 0, 0 },
	{ "first_ns", TK_COL_F64, 1, 0 },
	{ "last_ns", TK_COL_F64, 1, 0 },
	{ "span_ns", TK_COL_F64, 1, 0 },
	{ "events", TK_COL_I64, 0, 0 },
	{ "entities", TK_COL_I64, 0, 0 },
	{ "instances", TK_COL_I64, 0, 0 },
	{ "cores", TK_COL_I64, 0, 0 },
	{ "warnings", TK_COL_I64, 0, 0 },
	{ "sha256", TK_COL_STR, 0, 0 },
};

/* one instance of a task, ISR or runnable */
typedef struct ds_inst {
	uint64_t act, start, end;     /* ticks (seen bits 0, 1, 2) */
	uint64_t v[NM];               /* the metrics' first values (have) */
	uint32_t core;                /* of its first start; TK_NONE */
	uint8_t seen;
	uint8_t have;
} ds_inst;

typedef struct ds_ctx {
	const tk_trace *t;
	tk_writer *w;                 /* events/ (its UTF-8 rule for all) */
	tk_load *load;
	tk_imap insts;
	tk_tlines tlines;             /* where a time line begins */
	uint64_t ninst;               /* rows written to instances/ */
	tk_coltab *tab[NTABLES];      /* but events */
	tk_sink sink[NTABLES];
	int open[NTABLES];            /* sink opened */
	char *path[NTABLES];
	char *id;                     /* the trace column (UTF-8) */
	size_t idlen;
	tk_timebase tb, ns;
	int ns_ok;
	uint64_t ns_mul;              /* ns per tick when a whole number, else 0 */
	uint64_t ns_max;              /* the most ticks whose ns a DOUBLE holds exactly */
	int rc;                       /* the first error of a callback */
	tk_error *err;
	int default_window;           /* load/'s windows: --window not given */
	const tk_dataset_opts *o;
	const char *input;            /* the input's path */
} ds_ctx;

void tk_dataset_opts_init(tk_dataset_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

/* The sizes tk_dataset_opts has had, oldest first (TK_OPTS_TAKE()). */
static const size_t dataset_opts_sizes[] = {
	sizeof(tk_dataset_opts)
};

int tk_dataset_hash(const char *path, char hex[65], tk_error *err)
{
	struct stat st;

	/* an input is read twice (its hash, then its events): a pipe or a
	 * FIFO would give its events no bytes, or block */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return tk_err_set(err, TK_E_USAGE, path, 0, 0,
				  "not a regular file (an input is read twice: its content hash, then its events)");
	return tk_sha256_file(path, hex, err);
}

static int mkdir_ok(const char *p)
{
	return mkdir(p, 0777) == 0 || errno == EEXIST;
}

int tk_dataset_prepare(const char *dir, int append, tk_error *err)
{
	char p[4096];
	DIR *d;
	struct dirent *de;
	struct stat st;
	int i, used = 0;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				used = 1;
		closedir(d);
		if (used && !append)
			return tk_err_set(err, TK_E_USAGE, dir, 0, 0,
					  "not empty (appending adds to a dataset)");
		/* appended to: a dataset (its traces/ table) or an empty
		 * folder, not any folder that happens to be there */
		snprintf(p, sizeof(p), "%s/traces", dir);
		if (used && (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)))
			return tk_err_set(err, TK_E_USAGE, dir, 0, 0,
					  "not a dataset (no traces/ folder): appending adds to a dataset, or fills an empty folder");
	}
	if (!mkdir_ok(dir))
		return tk_err_set(err, TK_E_IO, dir, 0, 0, "cannot create: %s",
				  strerror(errno));
	/* traces/ first (the last table in table_name): a worker appending at
	 * the same time sees an empty folder or a dataset, never a folder
	 * with other tables alone */
	for (i = NTABLES - 1; i >= 0; i--) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, table_name[i]) >=
		    sizeof(p))
			return tk_err_set(err, TK_E_USAGE, dir, 0, 0, "name too long");
		if (!mkdir_ok(p))
			return tk_err_set(err, TK_E_IO, p, 0, 0,
					  "cannot create: %s", strerror(errno));
	}
	return TK_OK;
}

/* ".<16 digits>.parquet" ends a file of an input of that hash */
int tk_dataset_has(const char *dir, const char *hex)
{
	char p[4096], tail[32];
	DIR *d;
	struct dirent *de;
	size_t n, nt;
	int found = 0;

	snprintf(p, sizeof(p), "%s/traces", dir);
	snprintf(tail, sizeof(tail), "-%.16s.parquet", hex);
	nt = strlen(tail);
	if (!(d = opendir(p)))
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		found = n > nt && strcmp(de->d_name + n - nt, tail) == 0;
	}
	closedir(d);
	return found;
}

/* the most load windows one input writes (as `tracekit load`) */
#define MAX_WINDOWS 10000000u

/* the most events taken from the reader at a time */
#define BATCH 256

/* ---- values -------------------------------------------------------------- */

/* ticks as ns, a DOUBLE: the decimal `tracekit stats` and `load` print
 * (tk_time_format_decimal: exact where it ends within its places, else
 * rounded at the last), so that a value equals theirs; null when the
 * ticks have no ns (cycles) */
static void put_ns(ds_ctx *x, tk_coltab *t, size_t c, int has, uint64_t ticks)
{
	char buf[64], *end;
	int n;
	double v;

	/* a whole number of ns under 2^53: that decimal's DOUBLE, with no
	 * decimal made and read */
	if (TK_LIKELY(has && x->ns_mul && ticks <= x->ns_max)) {
		tk_coltab_f64(t, c, (double)(ticks * x->ns_mul));
		return;
	}
	if (!has || !x->ns_ok ||
	    (n = tk_time_format_decimal(ticks, &x->tb, TK_UNIT_NS, buf,
					sizeof(buf))) <= 0 ||
	    (v = strtod(buf, &end), *end)) {
		tk_coltab_null(t, c);
		return;
	}
	tk_coltab_f64(t, c, v);
}

/* a string under the UTF-8 rule of every writer */
static int put_text(ds_ctx *x, tk_coltab *t, size_t c, const char *s,
		    size_t n)
{
	int rc;

	if (!s) {
		s = "";
		n = 0;
	}
	if ((rc = tk_writer_text(x->w, s, n, &s, &n, x->err)) < 0)
		return rc;
	tk_coltab_str(t, c, s, n);
	return TK_OK;
}

static int put_name(ds_ctx *x, tk_coltab *t, size_t c, uint32_t id)
{
	const tk_entity *e = id != TK_NONE ? tk_trace_entity(x->t, id) : NULL;
	const char *s = NULL;
	size_t n = 0;

	if (e)
		s = tk_trace_str(x->t, e->name, &n);
	return put_text(x, t, c, s, n);
}

/* a decimal of stats or load as a DOUBLE; "" is null */
static void put_decimal(tk_coltab *t, size_t c, const char *s, int len)
{
	char *end;
	double v;

	if (len <= 0) {
		tk_coltab_null(t, c);
		return;
	}
	v = strtod(s, &end);
	if (*end)
		tk_coltab_null(t, c);
	else
		tk_coltab_f64(t, c, v);
}

/* ---- the analyses' callbacks --------------------------------------------- */

static int is_process(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = tk_trace_entity(t, id);

	return e && (e->type == TK_ET_T || e->type == TK_ET_I ||
		     e->type == TK_ET_R);
}

static ds_inst *inst_of(ds_ctx *x, uint32_t ent, int64_t k)
{
	int created;
	ds_inst *r = tk_imap_put(&x->insts, ent, k, &created);

	if (!r) {
		x->rc = tk_err_nomem(x->err, x->w->sink.path);
		return NULL;
	}
	if (created)
		r->core = TK_NONE;
	return r;
}

static void on_value(void *ctx, uint32_t entity, tk_metric metric,
		     int64_t inst, uint64_t value, uint64_t time)
{
	ds_ctx *x = ctx;
	ds_inst *r;
	int j;

	(void)time;
	if (x->rc < 0 || inst == TK_INST_NONE || !is_process(x->t, entity))
		return;
	for (j = 0; j < NM && inst_metric[j] != metric; j++)
		;
	if (j == NM || !(r = inst_of(x, entity, inst)))
		return;
	if (!(r->have & (1u << j))) { /* the first value, as SQLite's column */
		r->have |= (uint8_t)(1u << j);
		r->v[j] = value;
	}
}

static int on_window(void *ctx, uint64_t start, uint64_t end,
		     const uint64_t *busy, size_t ncores)
{
	ds_ctx *x = ctx;
	tk_coltab *t = x->tab[T_LOAD];
	size_t i;
	int rc;

	for (i = 0; i < ncores; i++) {
		tk_coltab_str(t, L_TRACE, x->id, x->idlen);
		tk_coltab_str(t, L_KIND, "window", 6);
		if ((rc = put_name(x, t, L_CORE, tk_load_core(x->load, i))) < 0)
			return rc;
		put_ns(x, t, L_START, 1, start);
		put_ns(x, t, L_END, 1, end);
		put_ns(x, t, L_BUSY, 1, busy[i]);
		if (end > start)
			tk_coltab_f64(t, L_LOAD, (double)busy[i] * 100.0 /
						 (double)(end - start));
		else
			tk_coltab_null(t, L_LOAD);
		if ((rc = tk_coltab_row(t, x->err)) < 0)
			return rc;
	}
	return TK_OK;
}

static int write_instance(ds_ctx *x, uint32_t ent, int64_t inst,
			  const ds_inst *r);

/* the instances' own times (the target's events) */
static void track(ds_ctx *x, const tk_event *ev)
{
	ds_inst *r;

	/* an error of this event's values (on_value()) is kept */
	if (x->rc < 0 || ev->target == TK_NONE || ev->target_inst == TK_INST_NONE ||
	    !is_process(x->t, ev->target))
		return;
	if (!(r = inst_of(x, ev->target, ev->target_inst)))
		return;
	switch (ev->kind) {
	case TK_EV_ACTIVATE:
		if (!(r->seen & 1)) {
			r->seen |= 1;
			r->act = ev->time;
		}
		break;
	case TK_EV_START:
		if (!(r->seen & 2)) {
			r->seen |= 2;
			r->start = ev->time;
			r->core = ev->core;
		}
		break;
	case TK_EV_TERMINATE:
		/* its last values came with this event (the analyses take
		 * it first): its row is written now, and the map keeps the
		 * live instances only */
		r->seen |= 4;
		r->end = ev->time;
		if ((x->rc = write_instance(x, ev->target, ev->target_inst, r)) >= 0)
			tk_imap_del(&x->insts, ev->target, ev->target_inst);
		break;
	default:
		break;
	}
}

/* ---- the tables ---------------------------------------------------------- */

static int write_instance(ds_ctx *x, uint32_t ent, int64_t inst,
			  const ds_inst *r)
{
	tk_coltab *t = x->tab[T_INSTANCES];
	const tk_entity *e = tk_trace_entity(x->t, ent);
	int j, rc;

	tk_coltab_str(t, I_TRACE, x->id, x->idlen);
	if ((rc = put_name(x, t, I_ENTITY, ent)) < 0)
		return rc;
	tk_coltab_str(t, I_TYPE, tk_etype_name(e->type),
		      strlen(tk_etype_name(e->type)));
	tk_coltab_i64(t, I_INST, inst);
	if (r->core == TK_NONE)
		tk_coltab_null(t, I_CORE);
	else if ((rc = put_name(x, t, I_CORE, r->core)) < 0)
		return rc;
	put_ns(x, t, I_ACT, r->seen & 1, r->act);
	put_ns(x, t, I_START, r->seen & 2, r->start);
	put_ns(x, t, I_END, r->seen & 4, r->end);
	for (j = 0; j < NM; j++) {
		if (!(r->have & (1u << j)))
			tk_coltab_null(t, I_M0 + (size_t)j);
		else if (inst_metric[j] == TK_METRIC_NPRE)
			tk_coltab_i64(t, I_M0 + (size_t)j, (int64_t)r->v[j]);
		else
			put_ns(x, t, I_M0 + (size_t)j, 1, r->v[j]);
	}
	/* JIT = 1 - DT/PER of the instance, as stats takes it */
	if ((r->have & (1u << 4)) && (r->have & (1u << 5)) && r->v[5])
		tk_coltab_f64(t, I_JIT, 1.0 - (double)r->v[4] / (double)r->v[5]);
	else
		tk_coltab_null(t, I_JIT);
	if ((rc = tk_coltab_row(t, x->err)) < 0)
		return rc;
	x->ninst++;
	return TK_OK;
}

/* what `tracekit load` warns of in the load it measured (load/ holds the
 * same figures): a process event naming another core than the one its
 * process ran on, one allocating a core another process held */
static void load_warnings(const tk_dataset_opts *o, const char *path,
			  const tk_load *l)
{
	uint64_t n[2];
	tk_error wn;
	int k;

	if (!o->on_warning)
		return;
	n[0] = tk_load_conflicts(l);
	n[1] = tk_load_takeovers(l);
	for (k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", path);
		if (k == 0)
			snprintf(wn.msg, sizeof(wn.msg),
				 "load/: %llu process event%s named a core other than the one %s process ran on: it runs on one core at a time, its run there ended",
				 (unsigned long long)n[k], n[k] == 1 ? "" : "s",
				 n[k] == 1 ? "its" : "their");
		else
			snprintf(wn.msg, sizeof(wn.msg),
				 "load/: %llu process event%s allocated a core another process held (no preempt of it first): its run there ended",
				 (unsigned long long)n[k], n[k] == 1 ? "" : "s");
		o->on_warning(o->warning_ctx, &wn);
	}
}

/* the instances not terminated by the end of the trace */
static int write_instances(ds_ctx *x)
{
	size_t i;
	int rc;

	for (i = 0; i < x->insts.count; i++)
		if ((rc = write_instance(x, x->insts.ent[i], x->insts.inst[i],
					 (const ds_inst *)(x->insts.vals +
							   i * x->insts.vsize))) < 0)
			return rc;
	return TK_OK;
}

static int write_metrics(ds_ctx *x, const tk_stats *st)
{
	tk_coltab *t = x->tab[T_METRICS];
	const char *cyc = tk_trace_cycle_unit(x->t);
	char buf[128];
	size_t i, n;
	int rc, len;

	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *s = tk_stats_get(st, i);
		const char *ty = s->chain ? "CHAIN" : tk_etype_name(s->type);
		const char *name = tk_stats_row_name(st, i, &n);
		int has_max;

		tk_coltab_str(t, M_TRACE, x->id, x->idlen);
		if ((rc = put_text(x, t, M_ENTITY, name, name ? n : 0)) < 0)
			return rc;
		tk_coltab_str(t, M_TYPE, ty, strlen(ty));
		tk_coltab_str(t, M_METRIC, tk_metric_name(s->metric),
			      strlen(tk_metric_name(s->metric)));
		tk_coltab_i64(t, M_COUNT, (int64_t)s->count);
		len = tk_stats_format(st, i, TK_STAT_MIN, TK_UNIT_NS, buf, sizeof(buf));
		put_decimal(t, M_MIN, buf, len);
		len = tk_stats_format(st, i, TK_STAT_AVG, TK_UNIT_NS, buf, sizeof(buf));
		put_decimal(t, M_AVG, buf, len);
		len = tk_stats_format(st, i, TK_STAT_MAX, TK_UNIT_NS, buf, sizeof(buf));
		has_max = len > 0;
		put_decimal(t, M_MAX, buf, len);
		if (tk_metric_is_time(s->metric))
			/* a trace timed in cycles: cycles, as stats says */
			tk_coltab_str(t, M_UNIT, cyc ? cyc : "ns", cyc ? strlen(cyc) : 2);
		else
			tk_coltab_str(t, M_UNIT, "1", 1);
		if (has_max && s->max_inst != TK_INST_NONE)
			tk_coltab_i64(t, M_MAXINST, s->max_inst);
		else
			tk_coltab_null(t, M_MAXINST);
		len = has_max ? tk_time_format_decimal(s->max_time, &x->tb,
						      TK_UNIT_NS, buf, sizeof(buf))
			      : 0;
		put_decimal(t, M_MAXAT, buf, len);
		if ((rc = tk_coltab_row(t, x->err)) < 0)
			return rc;
	}
	return TK_OK;
}

static int write_load(ds_ctx *x)
{
	tk_coltab *t = x->tab[T_LOAD];
	uint64_t first, last;
	size_t i;
	int rc;

	tk_load_span(x->load, &first, &last);
	for (i = 0; i < tk_load_core_count(x->load); i++) {
		uint64_t busy = tk_load_core_busy(x->load, i);

		tk_coltab_str(t, L_TRACE, x->id, x->idlen);
		tk_coltab_str(t, L_KIND, "trace", 5);
		if ((rc = put_name(x, t, L_CORE, tk_load_core(x->load, i))) < 0)
			return rc;
		put_ns(x, t, L_START, 1, first);
		put_ns(x, t, L_END, 1, last);
		put_ns(x, t, L_BUSY, 1, busy);
		/* over several time lines, the sum of their spans */
		if (tk_load_length(x->load))
			tk_coltab_f64(t, L_LOAD, (double)busy * 100.0 /
						 (double)tk_load_length(x->load));
		else
			tk_coltab_null(t, L_LOAD);
		if ((rc = tk_coltab_row(t, x->err)) < 0)
			return rc;
	}
	return TK_OK;
}

/* the cores of the trace, as info counts them: its entities of type C
 * (load lists only the cores a process ran on) */
static size_t core_count(const tk_trace *t)
{
	size_t i, n = 0, nents = tk_trace_entity_count(t);

	for (i = 0; i < nents; i++)
		n += tk_trace_entity(t, (uint32_t)i)->type == TK_ET_C;
	return n;
}

static int write_trace(ds_ctx *x, const char *path, const char *hex,
		       tk_reader *r, uint64_t nev)
{
	tk_coltab *t = x->tab[T_TRACES];
	char *hdr = NULL, *tb = NULL;
	size_t hlen = 0, tblen = 0;
	uint64_t first, last;
	int rc;

	tk_load_span(x->load, &first, &last);
	tk_coltab_str(t, R_TRACE, x->id, x->idlen);
	if ((rc = put_text(x, t, R_PATH, path, strlen(path))) < 0)
		return rc;
	tk_coltab_str(t, R_FORMAT, tk_trace_format(x->t),
		      strlen(tk_trace_format(x->t)));
	if ((rc = tk_parquet_header_text(x->w, &hdr, &hlen, x->err)) < 0)
		return rc;
	tk_coltab_str(t, R_HEADER, hdr ? hdr : "", hlen);
	free(hdr);
	if ((rc = tk_parquet_timebase_text(x->w, &tb, &tblen, x->err)) < 0)
		return rc;
	tk_coltab_str(t, R_TIMEBASE, tb, tblen);
	free(tb);
	put_ns(x, t, R_FIRST, nev > 0, first);
	put_ns(x, t, R_LAST, nev > 0, last);
	put_ns(x, t, R_SPAN, nev > 0, tk_load_length(x->load));
	tk_coltab_i64(t, R_EVENTS, (int64_t)nev);
	tk_coltab_i64(t, R_ENTITIES, (int64_t)tk_trace_entity_count(x->t));
	tk_coltab_i64(t, R_INSTANCES, (int64_t)x->ninst);
	tk_coltab_i64(t, R_CORES, (int64_t)core_count(x->t));
	tk_coltab_i64(t, R_WARNINGS, (int64_t)tk_reader_warning_count(r));
	tk_coltab_str(t, R_SHA, hex, strlen(hex));
	return tk_coltab_row(t, x->err);
}

/* ---- one input ----------------------------------------------------------- */

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/*
 * The files' name of trace id[0..n) before its "-HASH.parquet", in out
 * (at least 202 bytes; no NUL), its length returned: the id's first 200
 * bytes, those outside [A-Za-z0-9._-] as '_', after a 't' when it would
 * not start with a letter or digit (a name starting with '.' or '_' is a
 * hidden file that Spark and Hadoop skip, and ls does not show)
 */
static size_t file_base(const char *id, size_t n, char *out)
{
	size_t i, k = 0;

	if (!n || !alnum(id[0]))
		out[k++] = 't';
	for (i = 0; i < n && i < 200; i++) {
		char c = id[i];
		out[k++] = alnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
	}
	return k;
}

int tk_dataset_has_id(const char *dir, const char *id, size_t n)
{
	char p[4096], base[210];
	DIR *d;
	struct dirent *de;
	size_t k, len, i;
	int found = 0;

	if (!dir || (!id && n))
		return 0;
	k = file_base(id, n, base);
	snprintf(p, sizeof(p), "%s/traces", dir);
	if (!(d = opendir(p)))
		return 0;
	/* BASE-<16 hex digits>.parquet */
	while (!found && (de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len != k + 25 || memcmp(de->d_name, base, k) != 0 ||
		    de->d_name[k] != '-' || strcmp(de->d_name + k + 17, ".parquet") != 0)
			continue;
		for (i = k + 1; i < k + 17 && ((de->d_name[i] >= '0' && de->d_name[i] <= '9') ||
					       (de->d_name[i] >= 'a' && de->d_name[i] <= 'f')); i++)
			;
		found = i == k + 17;
	}
	closedir(d);
	return found;
}

/* the trace column: the file name without directory and extensions, or
 * the id given, whole (malloc'd; NULL: out of memory) */
static char *trace_id(const char *path, const char *id)
{
	const char *b = strrchr(path, '/');
	size_t n;
	char *out;

	if (id) {
		b = id;
		n = strlen(id);
	} else {
		b = b ? b + 1 : path;
		n = strcspn(b, ".");
		if (!n) /* ".hidden": the whole name */
			n = strlen(b);
	}
	if ((out = malloc(n + 1)) != NULL) {
		memcpy(out, b, n);
		out[n] = 0;
	}
	return out;
}

/* the trace column under the UTF-8 rule of every writer (a file name's
 * bytes may be any): refused under --strict, else its bad bytes U+FFFD */
static int id_text(ds_ctx *x, const char *path, int strict, int given,
		   tk_error *err)
{
	const char *s;
	char *copy;
	size_t n;
	int rc;

	/* traces/' path column: a file name not UTF-8 is refused whatever
	 * the id (an --id does not make the input's path UTF-8) */
	if (strict && !tk_utf8_valid(path, strlen(path)))
		return tk_err_set(err, TK_E_UNSUPPORTED, path, 0, 0,
				  "its path is not UTF-8 (the path column of traces/), which strict mode refuses whatever the trace id: rename the file, or add it in lenient mode (its bad bytes U+FFFD)");
	if (tk_utf8_valid(x->id, x->idlen))
		return TK_OK;
	if (strict)
		return tk_err_set(err, TK_E_UNSUPPORTED, path, 0, 0,
				  given ? "the trace id given is not UTF-8"
					: "its trace id (the file name without extensions) is not UTF-8: give it an id that is");
	if ((rc = tk_writer_text(x->w, x->id, x->idlen, &s, &n, err)) < 0)
		return rc;
	if (!(copy = malloc(n + 1)))
		return tk_err_nomem(err, path);
	memcpy(copy, s, n);
	copy[n] = 0;
	free(x->id);
	x->id = copy;
	x->idlen = n;
	return TK_OK;
}

/* the files of the other tables of an input whose traces/ file is not
 * there: left by an add killed while it renamed them into place (traces/
 * last).  They are replaced (the rename over them), with a warning; an
 * error would refuse the input for ever. */
static void leftovers(const tk_dataset_opts *o, const char *path,
		      char *const *paths)
{
	tk_error wn;
	size_t i;

	for (i = 0; i < T_TRACES; i++) {
		if (!o->on_warning || access(paths[i], F_OK) != 0)
			continue;
		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", path);
		snprintf(wn.msg, sizeof(wn.msg),
			 "%s/ has a file of this input but traces/ none (an add that was killed while it renamed its files into place): replaced",
			 table_name[i]);
		o->on_warning(o->warning_ctx, &wn);
		return;
	}
}

/* load/ opened afresh (its temporary file and rows dropped) */
static int load_table_open(ds_ctx *x)
{
	int rc;

	if (x->open[T_LOAD]) {
		tk_sink_abort(&x->sink[T_LOAD]);
		x->open[T_LOAD] = 0;
	}
	tk_coltab_free(x->tab[T_LOAD]);
	x->tab[T_LOAD] = NULL;
	if ((rc = tk_sink_open(&x->sink[T_LOAD], x->path[T_LOAD], x->err)) < 0)
		return rc;
	x->open[T_LOAD] = 1;
	return tk_coltab_open(&x->tab[T_LOAD], &x->sink[T_LOAD], x->path[T_LOAD],
			      table_name[T_LOAD], load_cols, L_NCOLS, 0, x->err);
}

/* the default window given up at event ev, for the reason the warning
 * gives after "load/ has no windows: " (a second time line, or more
 * windows than one input writes): load/ has none (its rows so far are
 * dropped), as `tracekit load` without --window.  A --window given
 * refuses the input instead (tk_load's error). */
static TK_PRINTF(3, 4) int end_windows(ds_ctx *x, const tk_event *ev,
					const char *why, ...)
{
	static const char lead[] = "load/ has no windows: ";
	tk_error wn;
	va_list ap;
	int rc;

	if ((rc = load_table_open(x)) < 0)
		return rc;
	tk_load_end_windows(x->load);
	x->default_window = 0;
	if (x->o->on_warning) {
		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", x->input);
		wn.line = ev->pos;
		memcpy(wn.msg, lead, sizeof(lead));
		va_start(ap, why);
		vsnprintf(wn.msg + sizeof(lead) - 1,
			  sizeof(wn.msg) - (sizeof(lead) - 1), why, ap);
		va_end(ap);
		x->o->on_warning(x->o->warning_ctx, &wn);
	}
	return TK_OK;
}

/* the analyses' share of one event: stats, the instances, the load */
static int take_event(ds_ctx *x, tk_stats *st, const tk_event *ev,
		      const char *path)
{
	int rc;

	/* a time line ends as the trace does: its open instances are
	 * written, and the next numbers its own from 0 */
	if (tk_tlines_next(&x->tlines, ev)) {
		if ((rc = write_instances(x)) < 0)
			return rc;
		tk_imap_free(&x->insts);
		tk_imap_init(&x->insts, sizeof(ds_inst));
		if (x->default_window) {
			/* windows of the time lines laid over one another
			 * would be one table of windows of no one time */
			if ((rc = end_windows(x, ev,
					      "TraceData %lu starts its time again (several time lines; the trace's load is their spans' sum)",
					      (unsigned long)x->tlines.k)) < 0)
				return rc;
		}
	}
	if ((rc = tk_stats_event(st, ev, x->err)) < 0)
		return tk_err_input(x->err, path, rc);
	track(x, ev);
	if (x->rc < 0)
		return x->rc;
	rc = tk_load_event(x->load, ev, x->err);
	if (rc == TK_E_RANGE && x->rc == TK_OK && x->default_window) {
		/* the trace spans more default windows than an input writes
		 * (the event not taken): none, the event taken again */
		if ((rc = end_windows(x, ev,
				      "the trace spans over %u windows of %llu ns (the default load window: use a longer load window for windows)",
				      MAX_WINDOWS, (unsigned long long)x->o->window_ns)) < 0)
			return rc;
		rc = tk_load_event(x->load, ev, x->err);
	}
	if (rc < 0) {
		/* a window callback filled err (tk_load keeps it); else the load's */
		if (x->rc < 0)
			return x->rc;
		return tk_err_input(x->err, path, rc);
	}
	return TK_OK;
}

int tk_dataset_add(const char *dir, const char *path, const char *hex,
		   tk_reader *r, const tk_dataset_opts *o, tk_error *err)
{
	static const tk_colspec *const specs[NTABLES] = {
		NULL, inst_cols, metric_cols, load_cols, trace_cols
	};
	static const size_t nspec[NTABLES] = {
		0, I_NCOLS, M_NCOLS, L_NCOLS, R_NCOLS
	};
	ds_ctx x;
	tk_stats *st = NULL;
	tk_dataset_opts given;
	tk_writer_opts wo;
	const tk_event *ev;
	uint64_t nev = 0, window = 0, first, last;
	char base[320];
	size_t i, n, k, ncommitted = 0;
	int rc;

	rc = TK_OPTS_TAKE(tk_dataset_opts, &given, o, dataset_opts_sizes, err);
	if (rc < 0)
		return rc;
	o = &given;
	memset(&x, 0, sizeof(x));
	tk_imap_init(&x.insts, sizeof(ds_inst));
	x.t = tk_reader_trace(r);
	tk_tlines_init(&x.tlines, x.t);
	x.err = err;
	x.o = o;
	x.input = path;
	if (!(x.id = trace_id(path, o->id))) {
		rc = tk_err_nomem(err, path);
		goto out;
	}
	x.idlen = strlen(x.id);
	if (!x.idlen) {
		rc = tk_err_set(err, TK_E_USAGE, path, 0, 0, "an empty trace id");
		goto out;
	}
	k = file_base(x.id, x.idlen, base);
	snprintf(base + k, sizeof(base) - k, "-%.16s.parquet", hex);
	for (i = 0; i < NTABLES; i++) {
		size_t len = strlen(dir) + strlen(table_name[i]) + strlen(base) + 3;

		if (!(x.path[i] = malloc(len))) {
			rc = tk_err_nomem(err, path);
			goto out;
		}
		snprintf(x.path[i], len, "%s/%s/%s", dir, table_name[i], base);
	}
	/* its traces/ file is the mark of an input added in full */
	if (access(x.path[T_TRACES], F_OK) == 0) {
		rc = tk_err_set(err, TK_E_USAGE, x.path[T_TRACES], 0, 0,
				"already in the dataset");
		goto out;
	}
	leftovers(o, path, x.path);
	x.tb = *tk_trace_timebase(x.t);
	x.ns.unit = TK_UNIT_NS;
	x.ns.num = 1;
	x.ns.den = 1;
	x.ns_ok = tk_trace_cycle_unit(x.t) == NULL &&
		  tk_time_convert(0, &x.tb, &x.ns, TK_ROUND_DOWN, &first) == TK_OK;
	if (x.ns_ok && tk_time_convert(1, &x.tb, &x.ns, TK_ROUND_EXACT,
				       &x.ns_mul) == TK_OK && x.ns_mul)
		x.ns_max = ((uint64_t)1 << 53) / x.ns_mul;
	else
		x.ns_mul = 0;
	if (o->window_ns &&
	    (!x.ns_ok || tk_time_convert(o->window_ns, &x.ns, &x.tb,
					 TK_ROUND_EXACT, &window) < 0 ||
	     !window)) {
		window = 0;
		if (o->window_given) {
			rc = tk_err_set(err, TK_E_USAGE, path, 0, 0,
					"a load window of %llu ns is not a whole number of the trace's ticks",
					(unsigned long long)o->window_ns);
			goto out;
		}
		if (o->on_warning) {
			tk_error wn;

			memset(&wn, 0, sizeof(wn));
			snprintf(wn.input, sizeof(wn.input), "%s", path);
			snprintf(wn.msg, sizeof(wn.msg),
				 "load/ has no windows: %llu ns is not a whole number of the trace's ticks (the load window)",
				 (unsigned long long)o->window_ns);
			o->on_warning(o->warning_ctx, &wn);
		}
	}
	tk_writer_opts_init(&wo);
	wo.format = "parquet";
	wo.strict = o->strict;
	wo.on_warning = o->on_warning;
	wo.warning_ctx = o->warning_ctx;
	wo.input = path;
	if ((rc = tk_writer_open(&x.w, x.path[T_EVENTS], x.t, &wo, err)) < 0 ||
	    (rc = id_text(&x, path, o->strict, o->id != NULL, err)) < 0)
		goto out;
	for (i = 1; i < NTABLES; i++) {
		if ((rc = tk_sink_open(&x.sink[i], x.path[i], err)) < 0)
			goto out;
		x.open[i] = 1;
		if ((rc = tk_coltab_open(&x.tab[i], &x.sink[i], x.path[i],
					 table_name[i], specs[i], nspec[i], 0,
					 err)) < 0)
			goto out;
	}
	if ((rc = tk_stats_new(&st, x.t, err)) < 0 ||
	    (rc = tk_load_new(&x.load, x.t, window, on_window, &x, err)) < 0 ||
	    (window && (rc = tk_load_set_limit(x.load, MAX_WINDOWS, path,
					       &r->opts, err)) < 0))
		goto out;
	x.default_window = window && !o->window_given;
	tk_stats_on_value(st, on_value, &x);
	/* the events a batch at a time: the analyses take each, then the
	 * writer the batch; the first error is the one taking them one by
	 * one gives (the writer's, then the analyses', for each event) */
	while ((rc = tk_reader_next_batch(r, &ev, &n, BATCH, err)) == TK_OK) {
		for (k = 0; k < n; k++)
			if ((rc = take_event(&x, st, &ev[k], path)) < 0)
				break;
		if (rc < 0) {
			tk_error taken = *err;
			int arc = rc;

			if ((rc = tk_writer_write_batch(x.w, ev, k + 1, err)) >= 0) {
				*err = taken;
				rc = arc;
			}
			goto out;
		}
		if ((rc = tk_writer_write_batch(x.w, ev, n, err)) < 0)
			goto out;
		nev += n;
	}
	if (rc < 0)
		goto out;
	if ((rc = tk_stats_finish(st, err)) < 0) {
		tk_err_input(err, path, rc);
		goto out;
	}
	if ((rc = tk_load_finish(x.load, err)) < 0)
		goto load_failed;
	if (x.rc < 0) {
		rc = x.rc;
		goto out;
	}
	load_warnings(o, path, x.load);
	tk_load_span(x.load, &first, &last);
	if ((rc = write_instances(&x)) < 0 || (rc = write_metrics(&x, st)) < 0 ||
	    (rc = write_load(&x)) < 0 ||
	    (rc = write_trace(&x, path, hex, r, nev)) < 0)
		goto out;
	for (i = 1; i < NTABLES; i++)
		if ((rc = tk_coltab_close(x.tab[i], NULL, 0, err)) < 0)
			goto out;
	/* all written: events/ (its close commits it), then the others */
	rc = tk_writer_close(x.w, err);
	x.w = NULL;
	if (rc < 0)
		goto out;
	ncommitted = 1;
	for (i = 1; i < NTABLES; i++) {
		x.open[i] = 0;
		if ((rc = tk_sink_commit(&x.sink[i], err)) < 0)
			goto out;
		ncommitted++;
	}
	goto out;
load_failed:
	/* a window callback filled err (tk_load keeps it); else the load's */
	if (x.rc < 0)
		rc = x.rc;
	else
		tk_err_input(err, path, rc);
out:
	if (rc < 0)
		for (i = 0; i < ncommitted; i++)
			unlink(x.path[i]);
	if (x.w)
		tk_writer_abort(x.w);
	for (i = 1; i < NTABLES; i++) {
		if (x.open[i])
			tk_sink_abort(&x.sink[i]);
		tk_coltab_free(x.tab[i]);
	}
	for (i = 0; i < NTABLES; i++)
		free(x.path[i]);
	tk_stats_free(st);
	tk_load_free(x.load);
	tk_imap_free(&x.insts);
	free(x.id);
	return rc < 0 ? rc : TK_OK;
}
