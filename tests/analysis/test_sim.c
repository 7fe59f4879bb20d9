/*
 * test_sim.c - a small fixed-priority preemptive multi-core scheduler that
 * writes a BTF trace and, from its own bookkeeping, the metrics tracekit
 * stats must find: tasks with runnables and OS-event waits, ISRs (one
 * without activate events), instances cut by both ends of the trace.
 * The trace is read back through the public API and every row compared.
 *
 *   test_sim [SEED [OUT.btf]]
 */
#include "tracekit/tracekit.h"
#include "../unit/tk_test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NCORES 2
#define MAXR 3
#define NM TK_METRIC_COUNT

typedef struct spec {
	const char *name;
	char type;          /* 'T' or 'I' */
	int core, prio;
	uint64_t period, offset, jitter;
	int nrun;
	uint64_t exec[MAXR];
	int wait_after;     /* runnable index after which it waits, or -1 */
	uint64_t wait_len;
	int no_activate;    /* ISR whose activations are not traced */
} spec;

static const spec specs[] = {
	{ "ISR_Timer", 'I', 0, 100, 1000000, 5000, 0, 0, { 0 }, -1, 0, 0 },
	{ "ISR_Can", 'I', 1, 90, 700000, 3000, 200000, 0, { 0 }, -1, 0, 1 },
	{ "Task_1ms", 'T', 0, 50, 1000000, 0, 30000, 2, { 120000, 80000 }, -1, 0, 0 },
	{ "Task_2ms", 'T', 0, 40, 2000000, 100, 0, 3, { 300000, 100000, 50000 }, 0, 150000, 0 },
	{ "Task_5ms", 'T', 1, 30, 5000000, 50, 0, 3, { 900000, 400000, 200000 }, 1, 60000, 0 },
	{ "Task_10ms", 'T', 1, 20, 10000000, 0, 0, 1, { 1500000 }, -1, 0, 0 },
};
#define NSPEC (sizeof(specs) / sizeof(specs[0]))
#define ISR_EXEC 7000

/* one value list per (entity, metric): count, min, max, sum */
typedef struct exp_acc {
	uint64_t count, min, max;
	unsigned __int128 sum;
	/* JIT: smallest / largest DT/PER and the sum of 1e-12-rounded values */
	uint64_t lo_dt, lo_per, hi_dt, hi_per;
	__int128 jsum;
} exp_acc;

typedef struct job {
	int live;
	int64_t inst;
	uint64_t act, first_start, cet, run_since, mark;
	int act_seen, start_seen, running, started, waiting, ready_after_wait;
	int pre_seen;       /* preempted, and that event is in the trace */
	int wait_seen;      /* the wait event is in the trace */
	int need_rstart;    /* resumes into a new runnable (after a wait) */
	uint32_t npre;
	int ri;             /* current runnable */
	uint64_t rem;       /* remaining time of the current runnable */
	int64_t rinst;      /* its instance */
	uint64_t r_start, r_cet, r_since, r_mark;
	int r_start_seen, r_pre_seen;
	uint32_t r_npre;
	uint64_t release_at;
} job;

static exp_acc want[NSPEC + NSPEC * MAXR][NM];
static char *buf;
static size_t len, cap;
static uint64_t cut_start, cut_end;

/* per entity (tasks/ISRs then runnables): previous instance times */
typedef struct prev {
	int has_act, has_start, has_term;
	uint64_t act, start, term, per;
	int per_ok;
} prev;
static prev prevs[NSPEC + NSPEC * MAXR];
static int64_t rinst_next[NSPEC][MAXR];

static void add(int e, tk_metric m, uint64_t v)
{
	exp_acc *a = &want[e][m];

	if (!a->count || v < a->min)
		a->min = v;
	if (!a->count || v > a->max)
		a->max = v;
	a->count++;
	a->sum += v;
}

static void add_jit(int e, uint64_t dt, uint64_t per)
{
	exp_acc *a = &want[e][TK_METRIC_JIT];
	__int128 fx = ((__int128)per - (__int128)dt) * 1000000000000ll;

	if (!a->count || (unsigned __int128)dt * a->lo_per < (unsigned __int128)a->lo_dt * per)
		a->lo_dt = dt, a->lo_per = per;
	if (!a->count || (unsigned __int128)dt * a->hi_per > (unsigned __int128)a->hi_dt * per)
		a->hi_dt = dt, a->hi_per = per;
	a->count++;
	fx = fx >= 0 ? (fx + per / 2) / per : (fx - (__int128)(per / 2)) / (__int128)per;
	a->jsum += fx;
}

/* an event line; returns 1 when it is inside the traced window */
static int emit(uint64_t t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int emit(uint64_t t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t < cut_start || t >= cut_end)
		return 0;
	if (cap - len < 256) {
		cap = cap ? cap * 2 : 1 << 16;
		buf = realloc(buf, cap);
		if (!buf)
			abort();
	}
	n = snprintf(buf + len, cap - len, "%llu,", (unsigned long long)t);
	len += (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	len += (size_t)n;
	buf[len++] = '\n';
	return 1;
}

static job jobs[NSPEC];
static int64_t inst_next[NSPEC];
static int running[NCORES] = { -1, -1 };

static int rid(int s, int r) { return (int)NSPEC + s * MAXR + r; }

static const char *rname(int s, int r, char *b)
{
	sprintf(b, "R_%s_%d", specs[s].name, r);
	return b;
}

static void run_start(int s, uint64_t t)
{
	job *j = &jobs[s];
	prev *p;
	char b[64];
	int e;

	if (specs[s].type != 'T')
		return;
	e = rid(s, j->ri);
	p = &prevs[e];
	j->rinst = rinst_next[s][j->ri]++;
	j->r_start = j->r_since = t;
	j->r_cet = 0;
	j->r_npre = 0;
	j->r_pre_seen = 0;
	j->r_start_seen = emit(t, "%s,%lld,R,%s,%lld,start", specs[s].name,
			       (long long)j->inst, rname(s, j->ri, b), (long long)j->rinst);
	if (j->r_start_seen) {
		if (p->has_start)
			add(e, TK_METRIC_DT, t - p->start);
		if (p->has_term)
			add(e, TK_METRIC_ST, t - p->term);
		p->has_start = 1;
		p->start = t;
	} else {
		p->has_start = p->has_term = 0;
	}
}

/* the job of spec s gets the core (start or resume) */
static void dispatch(int s, uint64_t t)
{
	job *j = &jobs[s];
	const spec *sp = &specs[s];
	prev *p = &prevs[s];
	char b[64];

	running[sp->core] = s;
	j->running = 1;
	j->run_since = t;
	if (!j->started) {
		j->started = 1;
		j->first_start = t;
		j->start_seen = emit(t, "Core_%d,0,%c,%s,%lld,start", sp->core, sp->type,
				     sp->name, (long long)j->inst);
		if (j->start_seen) {
			if (j->act_seen)
				add(s, TK_METRIC_IPT, t - j->act);
			if (p->has_start) {
				add(s, TK_METRIC_DT, t - p->start);
				if (j->act_seen && p->per_ok)
					add_jit(s, t - p->start, p->per);
			}
			if (sp->type == 'I' && p->has_term)
				add(s, TK_METRIC_ST, t - p->term);
			p->has_start = 1;
			p->start = t;
		} else {
			p->has_start = p->has_term = 0;
		}
		run_start(s, t);
		return;
	}
	if (emit(t, "Core_%d,0,%c,%s,%lld,resume", sp->core, sp->type, sp->name,
		 (long long)j->inst) && j->pre_seen) {
		add(s, TK_METRIC_PRE, t - j->mark);
		j->npre++;
	}
	j->pre_seen = 0;
	if (sp->type == 'T' && j->need_rstart) {
		j->need_rstart = 0;
		run_start(s, t);
	} else if (sp->type == 'T') {
		j->r_since = t;
		if (emit(t, "%s,%lld,R,%s,%lld,resume", sp->name, (long long)j->inst,
			 rname(s, j->ri, b), (long long)j->rinst) && j->r_pre_seen) {
			add(rid(s, j->ri), TK_METRIC_PRE, t - j->r_mark);
			j->r_npre++;
		}
		j->r_pre_seen = 0;
	}
}

static void leave(int s, uint64_t t, const char *how)
{
	job *j = &jobs[s];
	const spec *sp = &specs[s];
	char b[64];

	j->cet += t - j->run_since;
	j->running = 0;
	running[sp->core] = -1;
	if (sp->type == 'T' && !strcmp(how, "preempt")) {
		j->r_cet += t - j->r_since;
		j->r_pre_seen = emit(t, "%s,%lld,R,%s,%lld,suspend", sp->name,
				     (long long)j->inst, rname(s, j->ri, b),
				     (long long)j->rinst);
		j->r_mark = t;
	}
	j->mark = t;
	j->pre_seen = emit(t, "Core_%d,0,%c,%s,%lld,%s", sp->core, sp->type,
			   sp->name, (long long)j->inst, how);
	j->wait_seen = j->pre_seen && !strcmp(how, "wait");
	j->pre_seen = j->pre_seen && !strcmp(how, "preempt");
}

static void run_end(int s, uint64_t t)
{
	job *j = &jobs[s];
	int e = rid(s, j->ri);
	char b[64];

	j->r_cet += t - j->r_since;
	if (emit(t, "%s,%lld,R,%s,%lld,terminate", specs[s].name, (long long)j->inst,
		 rname(s, j->ri, b), (long long)j->rinst)) {
		if (j->r_start_seen) {
			add(e, TK_METRIC_CET, j->r_cet);
			add(e, TK_METRIC_GET, t - j->r_start);
			add(e, TK_METRIC_NPRE, j->r_npre);
		}
		prevs[e].has_term = 1;
		prevs[e].term = t;
	}
}

static void terminate(int s, uint64_t t)
{
	job *j = &jobs[s];
	const spec *sp = &specs[s];
	prev *p = &prevs[s];

	j->cet += t - j->run_since;
	j->running = 0;
	running[sp->core] = -1;
	j->live = 0;
	if (emit(t, "Core_%d,0,%c,%s,%lld,terminate", sp->core, sp->type, sp->name,
		 (long long)j->inst)) {
		if (j->start_seen) {
			add(s, TK_METRIC_CET, j->cet);
			add(s, TK_METRIC_GET, t - j->first_start);
			add(s, TK_METRIC_NPRE, j->npre);
		}
		if (j->act_seen)
			add(s, TK_METRIC_RT, t - j->act);
		p->has_term = 1;
		p->term = t;
	}
}

static void activate(int s, uint64_t t)
{
	job *j = &jobs[s];
	const spec *sp = &specs[s];
	prev *p = &prevs[s];

	if (j->live)
		return; /* the previous instance still runs: the activation is lost */
	memset(j, 0, sizeof(*j));
	j->live = 1;
	j->inst = inst_next[s]++;
	j->act = t;
	j->rem = sp->type == 'T' ? sp->exec[0] : ISR_EXEC;
	p->per_ok = 0;
	if (sp->no_activate)
		return;
	j->act_seen = emit(t, "STI_%s,%lld,%c,%s,%lld,activate", sp->name,
			   (long long)j->inst, sp->type, sp->name, (long long)j->inst);
	if (j->act_seen) {
		if (p->has_act) {
			p->per = t - p->act;
			p->per_ok = 1;
			add(s, TK_METRIC_PER, p->per);
		}
		if (sp->type == 'T' && p->has_term)
			add(s, TK_METRIC_ST, t - p->term);
		p->has_act = 1;
		p->act = t;
	} else {
		p->has_act = p->has_term = 0;
	}
}

static uint64_t rng_state;
static uint64_t rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (rng_state >> 33) % n : 0;
}

static int best(int core)
{
	int s, b = -1;

	for (s = 0; s < (int)NSPEC; s++)
		if (specs[s].core == core && jobs[s].live && !jobs[s].waiting &&
		    (b < 0 || specs[s].prio > specs[b].prio))
			b = s;
	return b;
}

static void simulate(uint64_t end)
{
	uint64_t t = 0, next_act[NSPEC];
	int s, c;

	for (s = 0; s < (int)NSPEC; s++)
		next_act[s] = specs[s].offset;
	while (t < end) {
		uint64_t nt = end;
		/* completions, releases, activations at t, in that order */
		for (c = 0; c < NCORES; c++) {
			s = running[c];
			if (s >= 0 && jobs[s].rem == 0) {
				job *j = &jobs[s];
				const spec *sp = &specs[s];
				if (sp->type == 'T') {
					run_end(s, t);
					if (j->ri == sp->wait_after) {
						j->ri++;
						leave(s, t, "wait");
						j->waiting = 1;
						j->need_rstart = 1;
						j->release_at = t + sp->wait_len;
						continue;
					}
					if (++j->ri < sp->nrun) {
						j->rem = sp->exec[j->ri];
						run_start(s, t);
						continue;
					}
				}
				terminate(s, t);
			}
		}
		for (s = 0; s < (int)NSPEC; s++) {
			job *j = &jobs[s];
			if (j->live && j->waiting && j->release_at == t) {
				j->waiting = 0;
				j->rem = specs[s].exec[j->ri];
				if (emit(t, "Core_%d,0,T,%s,%lld,release", specs[s].core,
					 specs[s].name, (long long)j->inst) && j->wait_seen)
					add(s, TK_METRIC_WAIT, t - j->mark);
			}
		}
		for (s = 0; s < (int)NSPEC; s++)
			if (next_act[s] == t) {
				activate(s, t);
				next_act[s] = t + specs[s].period + rnd(specs[s].jitter);
			}
		for (c = 0; c < NCORES; c++) {
			int b = best(c);
			s = running[c];
			if (b == s)
				continue;
			if (s >= 0)
				leave(s, t, "preempt");
			if (b >= 0)
				dispatch(b, t);
		}
		/* the next point in time */
		for (s = 0; s < (int)NSPEC; s++) {
			if (next_act[s] < nt)
				nt = next_act[s];
			if (jobs[s].live && jobs[s].waiting && jobs[s].release_at < nt)
				nt = jobs[s].release_at;
		}
		for (c = 0; c < NCORES; c++)
			if (running[c] >= 0 && t + jobs[running[c]].rem < nt)
				nt = t + jobs[running[c]].rem;
		for (c = 0; c < NCORES; c++)
			if (running[c] >= 0) {
				jobs[running[c]].rem -= nt - t;
			}
		t = nt;
	}
}

static int run(uint64_t seed, const char *out)
{
	char hdr[] = "#version 2.3.0\n#creator test_sim\n#timescale ns\n";
	tk_reader *r = NULL;
	tk_stats *st;
	tk_reader_opts o;
	tk_error err;
	const tk_event *ev;
	size_t i, e;
	int m, rc, fails0 = tk_test_failures;
	char got[3][160], exp[3][160];

	memset(want, 0, sizeof(want));
	memset(prevs, 0, sizeof(prevs));
	memset(jobs, 0, sizeof(jobs));
	memset(inst_next, 0, sizeof(inst_next));
	memset(rinst_next, 0, sizeof(rinst_next));
	running[0] = running[1] = -1;
	rng_state = seed;
	len = 0;
	cut_start = 1500000 + rnd(1000000);   /* cuts instances at both ends */
	cut_end = 60000000 + rnd(3000000);
	emit(cut_start, "X,0,SIG,S,0,read"); /* make len > 0, realloc */
	len = 0;
	if (cap < sizeof(hdr))
		abort();
	memcpy(buf, hdr, sizeof(hdr) - 1);
	len = sizeof(hdr) - 1;
	simulate(cut_end + 1);
	if (out) {
		FILE *fp = fopen(out, "wb");
		if (fp) {
			fwrite(buf, 1, len, fp);
			fclose(fp);
		}
	}
	tk_reader_opts_init(&o);
	o.strict = 1;
	tk_error_clear(&err);
	rc = tk_reader_open_mem(&r, buf, len, "sim.btf", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK)
		return 1;
	rc = tk_stats_new(&st, tk_reader_trace(r), &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK)
		return 1;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		CHECK(tk_stats_event(st, ev, NULL) == TK_OK);
	CHECK(rc == TK_END);
	CHECK(tk_stats_finish(st, NULL) == TK_OK);

	/* every expected value is in the rows, and every row is expected */
	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *row = tk_stats_get(st, i);
		const char *name = tk_trace_str(tk_reader_trace(r),
			tk_trace_entity(tk_reader_trace(r), row->entity)->name, NULL);
		const exp_acc *a = NULL;
		char b[64];
		int s, k;
		for (s = 0; s < (int)NSPEC && !a; s++) {
			if (!strcmp(name, specs[s].name))
				a = &want[s][row->metric];
			for (k = 0; k < MAXR && !a; k++)
				if (!strcmp(name, rname(s, k, b)))
					a = &want[rid(s, k)][row->metric];
		}
		CHECK(a != NULL);
		if (!a)
			continue;
		CHECK_EQ_U64(row->count, a->count);
		/* the exact values (tk_stats_format_exact), but JIT's, which are
		 * checked as tk_stats_format writes them */
		for (k = 0; k < 3; k++) {
			if (row->metric == TK_METRIC_JIT)
				tk_stats_format(st, i, (tk_stat_field)k, TK_UNIT_NS,
						got[k], sizeof(got[k]));
			else
				tk_stats_format_exact(st, i, (tk_stat_field)k, TK_UNIT_NS,
						      got[k], sizeof(got[k]));
		}
		if (row->metric != TK_METRIC_JIT) {
			/* the decimal: 1 ns ticks in ns give 3 places, the
			 * average rounded half up (min and max are integers) */
			char dec[3][160], want_avg[64];
			unsigned __int128 q = ((unsigned __int128)a->sum * 2000 / a->count + 1) / 2;
			size_t end;
			for (k = 0; k < 3; k++)
				tk_stats_format(st, i, (tk_stat_field)k, TK_UNIT_NS,
						dec[k], sizeof(dec[k]));
			/* three decimals, the trailing zeros (and a bare point)
			 * dropped */
			snprintf(want_avg, sizeof(want_avg), "%llu.%03u",
				 (unsigned long long)(q / 1000), (unsigned)(q % 1000));
			end = strlen(want_avg);
			while (want_avg[end - 1] == '0')
				want_avg[--end] = '\0';
			if (want_avg[end - 1] == '.')
				want_avg[--end] = '\0';
			CHECK_STR(dec[1], want_avg);
			snprintf(b, sizeof(b), "%llu", (unsigned long long)a->min);
			CHECK_STR(dec[0], b);
			snprintf(b, sizeof(b), "%llu", (unsigned long long)a->max);
			CHECK_STR(dec[2], b);
		}
		if (row->metric == TK_METRIC_JIT) {
			__int128 n = a->jsum, d = (__int128)a->count * 1000000;
			n = n >= 0 ? (n + d / 2) / d : (n - d / 2) / d;
			/* independent rendering: ints in micro units */
			snprintf(exp[0], sizeof(exp[0]), "%lld", (long long)(
				((__int128)a->hi_per - a->hi_dt) * 1000000 >= 0
				? ((((__int128)a->hi_per - a->hi_dt) * 1000000) + a->hi_per / 2) / a->hi_per
				: ((((__int128)a->hi_per - a->hi_dt) * 1000000) - (__int128)(a->hi_per / 2)) / (__int128)a->hi_per));
			snprintf(exp[1], sizeof(exp[1]), "%lld", (long long)n);
			snprintf(exp[2], sizeof(exp[2]), "%lld", (long long)(
				((__int128)a->lo_per - a->lo_dt) * 1000000 >= 0
				? ((((__int128)a->lo_per - a->lo_dt) * 1000000) + a->lo_per / 2) / a->lo_per
				: ((((__int128)a->lo_per - a->lo_dt) * 1000000) - (__int128)(a->lo_per / 2)) / (__int128)a->lo_per));
			/* parse got back into micro units */
			for (k = 0; k < 3; k++) {
				long long ip = 0, fr = 0;
				int neg = got[k][0] == '-', digits = 0;
				const char *q = got[k] + neg;
				while (*q >= '0' && *q <= '9')
					ip = ip * 10 + (*q++ - '0');
				if (*q == '.')
					for (q++; *q >= '0' && *q <= '9'; q++, digits++)
						fr = fr * 10 + (*q - '0');
				for (; digits < 6; digits++)
					fr *= 10;
				snprintf(got[k], sizeof(got[k]), "%lld", (neg ? -1 : 1) * (ip * 1000000 + fr));
			}
		} else {
			snprintf(exp[0], sizeof(exp[0]), "%llu", (unsigned long long)a->min);
			snprintf(exp[2], sizeof(exp[2]), "%llu", (unsigned long long)a->max);
			/* avg: sum/count as an integer, a decimal or N/D */
			if (a->sum % a->count == 0) {
				snprintf(exp[1], sizeof(exp[1]), "%llu", (unsigned long long)(a->sum / a->count));
			} else {
				unsigned __int128 x = a->sum, y = a->count, g, u = x, v = y;
				while (v) { g = u % v; u = v; v = g; }
				x /= u; y /= u;
				v = y;
				while (v % 2 == 0) v /= 2;
				while (v % 5 == 0) v /= 5;
				if (v == 1) {
					int nd = 0;
					unsigned __int128 rem = x % y;
					char *p = exp[1] + snprintf(exp[1], sizeof(exp[1]), "%llu.", (unsigned long long)(x / y));
					while (rem && nd++ < 60) {
						rem *= 10;
						*p++ = (char)('0' + (int)(rem / y));
						rem %= y;
					}
					*p = 0;
				} else {
					snprintf(exp[1], sizeof(exp[1]), "%llu/%llu",
						 (unsigned long long)x, (unsigned long long)y);
				}
			}
		}
		for (k = 0; k < 3; k++) {
			CHECK_STR(got[k], exp[k]);
			if (strcmp(got[k], exp[k]))
				fprintf(stderr, "  %s %s field %d\n", name, tk_metric_name(row->metric), k);
		}
	}
	/* and the other way: no expected value is missing */
	for (e = 0; e < NSPEC + NSPEC * MAXR; e++)
		for (m = 0; m < NM; m++) {
			size_t found = 0;
			if (!want[e][m].count)
				continue;
			for (i = 0; i < tk_stats_count(st); i++)
				if (tk_stats_get(st, i)->metric == (tk_metric)m &&
				    tk_stats_get(st, i)->count == want[e][m].count)
					found++;
			CHECK(found > 0);
		}
	tk_stats_free(st);
	tk_reader_close(r);
	return tk_test_failures != fails0;
}

int main(int argc, char **argv)
{
	uint64_t seed;

	if (argc > 1)
		return run(strtoull(argv[1], NULL, 10), argc > 2 ? argv[2] : NULL);
	for (seed = 1; seed <= 20; seed++)
		if (run(seed, NULL))
			fprintf(stderr, "seed %llu failed\n", (unsigned long long)seed);
	TEST_DONE();
}
