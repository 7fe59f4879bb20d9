/*
 * stats.c - timing metrics per task, ISR and runnable (ATF appendix B),
 * from one pass over the events.
 *
 * An instance's record lives from its first event to its terminate; the
 * metrics that span instances (DT, PER, ST) need only the previous
 * instance's activate, start and terminate times, kept per entity.  So
 * memory follows the entities and the instances alive at one time.
 *
 * Per entity: that state and the index of each metric's record (sent, in
 * a slab), plus one record per metric that got a value (acc, or jacc for
 * JIT, in slabs): count, min, max, the worst instance and the sum, no
 * values.  A row is 4 bytes: its record's index (and which slab).
 *
 * A metric is taken only from events that were all seen: an instance cut
 * by the start of the trace (first seen after its start) gives no CET,
 * GET or RT; one cut by the end gives what it completed.  Durations are
 * never negative: a pair of events whose times decrease (lenient reading
 * of a broken trace) gives no value rather than a wrapped one.
 *
 * Cause-effect chains (chain.c) give their values to records of their
 * own, three per chain (REACTION, AGE, LOST) in the same slab, whose rows
 * follow the entities'.
 *
 * Percentiles (tk_stats_set_percentiles) need the values: each value of a
 * time row goes, as (record, value), to pctl.c, which keeps them in a
 * temporary file as sorted runs and merges them at the end.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
	F_ACT = 1 << 0,    /* the activate was seen: t_act valid */
	F_START = 1 << 1,  /* the first start was seen: the whole run is known */
	F_RUN = 1 << 2,    /* RUNNING now, since t_run */
	F_PRE = 1 << 3,    /* preempted (or suspended) at t_mark */
	F_WAIT = 1 << 4,   /* waiting since t_mark */
	F_POLL = 1 << 5,   /* polling since t_mark */
	F_PER = 1 << 6,    /* per valid: PER of this instance */
	F_REFUSED = 1 << 7, /* an activation refused by the limit (mtalimitexceeded) */
	F_BACK = 1 << 8    /* a run ended before it began (time went back): no CET */
};

typedef struct sinst {
	uint32_t flags, npre;
	uint64_t t_act, t_start, t_run, t_mark, cet, per;
} sinst;

/* a metric of an entity: its row (count, min, max, the worst instance)
 * and the sum (two halves: no 16-byte alignment); exists once it has a
 * value */
typedef struct acc {
	tk_stat pub;
	uint64_t sum_lo, sum_hi;
} acc;

/* JIT = 1 - DT/PER: its min is the max of DT/PER and the other way round
 * (pub.min and pub.max stay 0) */
typedef struct jacc {
	tk_stat pub;
	uint64_t lo_dt, lo_per, hi_dt, hi_per; /* the smallest / largest DT/PER */
	uint64_t sum_lo, sum_hi; /* sum of the values in units of 1e-12 (signed) */
	int overflow;
} jacc;

enum { HAS_ACT = 1, HAS_START = 2, HAS_TERM = 4 };

/* a row's record is in jaccs; records are fewer than ROW_JIT in each slab */
#define ROW_JIT 0x80000000u

typedef struct sent {
	int64_t act_inst, start_inst, term_inst;
	uint64_t act_time, start_time, term_time;
	/* 1 + metric m's record in accs (jaccs for JIT); 0: no value yet */
	uint32_t rec[TK_METRIC_COUNT];
	uint32_t id;
	uint32_t nrefused;  /* records of refused activations in insts */
	uint32_t row0;      /* its first row (tk_stats_finish) */
	uint8_t type;       /* tk_etype */
	uint8_t has;        /* HAS_* */
	uint8_t nrec;       /* metrics with a value */
} sent;

struct tk_stats {
	const tk_trace *t;
	int started;        /* an event was given: no more setup */
	int finished;       /* tk_stats_finish: 1 called (no more events), 2 done */
	uint32_t *slot;     /* entity id -> 1 + its sent in ents; 0: none */
	uint32_t nslot;
	tk_slab ents, accs, jaccs;
	tk_imap insts;
	tk_tlines tlines;   /* where a time line begins: all starts afresh */
	uint32_t *rows;     /* after finish: a record in accs, or in jaccs | ROW_JIT */
	size_t nrows;
	int nomem;
	int freertos;       /* the FreeRTOS trace logger's dialect */
	tk_stat_value_fn on_value;
	void *value_ctx;
	tk_chains *chains;  /* NULL: no chain */
	uint32_t *chain_rec; /* per chain: its REACTION, AGE, LOST records in accs */
	/* percentiles */
	uint32_t *pct_p;    /* the percentiles asked, in millionths of a percent */
	size_t npct;
	tk_pctl *pctl;      /* the values, by record in accs */
	uint64_t *pct;      /* after finish: record r's j-th percentile at
			       [r * npct + j] */
	int ioerr;
};

static const char *const metric_names[TK_METRIC_END] = {
	"IPT", "CET", "GET", "RT", "DT", "PER", "ST", "JIT", "PRE", "NPRE",
	"WAIT", "POLL", "REACTION", "AGE", "LOST"
};

const char *tk_metric_name(tk_metric m)
{
	return (unsigned)m < TK_METRIC_END ? metric_names[m] : "?";
}

int tk_metric_is_time(tk_metric m)
{
	return (unsigned)m < TK_METRIC_END && m != TK_METRIC_JIT &&
	       m != TK_METRIC_NPRE && m != TK_METRIC_LOST;
}

/* the record of metric m of e in slab sl, made at its first value; NULL:
 * no memory */
static tk_stat *rec_of(tk_stats *s, tk_slab *sl, sent *e, tk_metric m)
{
	tk_stat *p;
	uint32_t i;

	if (e->rec[m])
		return tk_slab_at(sl, e->rec[m] - 1);
	p = sl->count < ROW_JIT ? tk_slab_new(sl, &i) : NULL;
	if (!p) {
		s->nomem = 1;
		return NULL;
	}
	p->entity = e->id;
	p->type = (tk_etype)e->type;
	p->metric = m;
	e->rec[m] = i + 1;
	e->nrec++;
	return p;
}

/* value v into record a */
static void add_to(acc *a, uint64_t v, int64_t inst, uint64_t time)
{
	if (!a->pub.count || v < a->pub.min)
		a->pub.min = v;
	if (!a->pub.count || v > a->pub.max) {
		a->pub.max = v;
		a->pub.max_inst = inst;
		a->pub.max_time = time;
	}
	a->pub.count++;
	a->sum_lo += v;
	a->sum_hi += a->sum_lo < v; /* the carry */
}

/* value v of record rec, kept for the percentiles */
static void pct_put(tk_stats *s, uint32_t rec, uint64_t v)
{
	int rc;

	if (s->pctl && (rc = tk_pctl_put(s->pctl, rec, v)) < 0) {
		if (rc == TK_E_NOMEM)
			s->nomem = 1;
		else
			s->ioerr = 1;
	}
}

static void add(tk_stats *s, sent *e, tk_metric m, uint64_t v, int64_t inst,
		uint64_t time)
{
	acc *a = (acc *)rec_of(s, &s->accs, e, m); /* pub first */

	if (!a)
		return;
	if (s->on_value)
		s->on_value(s->value_ctx, e->id, m, inst, v, time);
	add_to(a, v, inst, time);
	if (s->pctl && m != TK_METRIC_NPRE)
		pct_put(s, e->rec[m] - 1, v);
}

/* a chain's reaction (age = 0) or age */
static void on_chain_value(void *ctx, uint32_t chain, int age, uint64_t v,
			   int64_t inst, uint64_t time)
{
	tk_stats *s = ctx;
	uint32_t r = s->chain_rec[chain * 3 + (age ? 1 : 0)];

	add_to(tk_slab_at(&s->accs, r), v, inst, time);
	pct_put(s, r, v);
}

int tk_stats_set_percentiles(tk_stats *s, const uint32_t *p, size_t n)
{
	size_t i;
	uint32_t *q;

	tk_pctl *pc;

	if (!p || !n || n > TK_PCTL_MAX || s->pctl || s->started)
		return TK_E_USAGE;
	for (i = 0; i < n; i++)
		if (!p[i] || p[i] > 100000000u)
			return TK_E_USAGE;
	q = malloc(n * sizeof(*q));
	pc = tk_pctl_new(p, n);
	if (!q || !pc) {
		free(q);
		tk_pctl_free(pc);
		return TK_E_NOMEM;
	}
	memcpy(q, p, n * sizeof(*q));
	s->pct_p = q;
	s->npct = n;
	s->pctl = pc;
	return TK_OK;
}

size_t tk_stats_percentile_count(const tk_stats *s)
{
	return s->npct;
}

/* the number of values of record r in accs */
static uint64_t rec_count(void *ctx, uint32_t r)
{
	const tk_stats *s = ctx;

	return ((const acc *)tk_slab_at(&s->accs, r))->pub.count;
}

/* the percentiles of every row */
static int pct_finish(tk_stats *s)
{
	free(s->pct);
	s->pct = calloc(s->accs.count ? s->accs.count * s->npct : 1, sizeof(*s->pct));
	if (!s->pct)
		return TK_E_NOMEM;
	return tk_pctl_finish(s->pctl, (uint32_t)s->accs.count, rec_count, s, s->pct);
}

int tk_stats_percentile(const tk_stats *s, size_t i, size_t j, uint64_t *v)
{
	const tk_stat *r;

	if (i >= s->nrows || j >= s->npct || !s->pct ||
	    (s->rows[i] & ROW_JIT))
		return 0;
	r = tk_stats_get(s, i);
	if (!r->count || !tk_metric_is_time(r->metric))
		return 0;
	*v = s->pct[(size_t)s->rows[i] * s->npct + j];
	return 1;
}

int tk_stats_add_chain(tk_stats *s, const char *name,
		       const char *const *signals, size_t n)
{
	size_t *len = NULL, i;
	uint32_t *rec = NULL, nc;
	int rc = TK_E_NOMEM;

	if (!name || !signals || n < 2 || s->started)
		return TK_E_USAGE;
	for (i = 0; i < n; i++)
		if (!signals[i])
			return TK_E_USAGE;
	if (!s->chains && !(s->chains = tk_chains_new(s->t, on_chain_value, s)))
		return TK_E_NOMEM;
	nc = tk_chains_count(s->chains);
	rec = realloc(s->chain_rec, ((size_t)nc + 1) * 3 * sizeof(*rec));
	if (!rec)
		goto out;
	s->chain_rec = rec; /* (the old block is gone: keep the new one) */
	len = calloc(n, sizeof(*len));
	if (!len)
		goto out;
	for (i = 0; i < n; i++)
		len[i] = strlen(signals[i]);
	if ((rc = tk_chains_add(s->chains, name, strlen(name), signals, len, n)) < 0)
		goto out;
	for (i = 0; i < 3; i++) {
		acc *a = tk_slab_new(&s->accs, &rec[nc * 3 + i]);
		if (!a || rec[nc * 3 + i] >= ROW_JIT) {
			rc = TK_E_NOMEM; /* the chain stays, without rows */
			goto out;
		}
		a->pub.entity = TK_NONE;
		a->pub.type = TK_ET_UNKNOWN;
		a->pub.metric = (tk_metric)(TK_METRIC_REACTION + i);
		a->pub.chain = nc + 1;
		a->pub.max_inst = TK_INST_NONE;
	}
	rc = TK_OK;
out:
	if (rc == TK_E_NOMEM)
		s->nomem = 1;
	free(len);
	return rc;
}
/* b - a into *d when time did not go back */
static int span(uint64_t a, uint64_t b, uint64_t *d)
{
	if (b < a)
		return 0;
	*d = b - a;
	return 1;
}

static void add_span(tk_stats *s, sent *e, tk_metric m, uint64_t from,
		     uint64_t to, int64_t inst)
{
	uint64_t d;

	if (span(from, to, &d))
		add(s, e, m, d, inst, to);
}

static tk_i128 jsum(const jacc *j)
{
	return (tk_i128)(((tk_u128)j->sum_hi << 64) | j->sum_lo);
}

static void add_jit(tk_stats *s, sent *e, uint64_t dt, uint64_t per,
		    int64_t inst, uint64_t time)
{
	tk_i128 fx, sum, num = (tk_i128)per - (tk_i128)dt;
	jacc *j = (jacc *)rec_of(s, &s->jaccs, e, TK_METRIC_JIT); /* pub first */

	if (!j)
		return;
	/* dt/per < lo_dt/lo_per, both products < 2^128 */
	if (!j->pub.count || (tk_u128)dt * j->lo_per < (tk_u128)j->lo_dt * per) {
		j->lo_dt = dt;
		j->lo_per = per;
		j->pub.max_inst = inst; /* the smallest DT/PER is the largest JIT */
		j->pub.max_time = time;
	}
	if (!j->pub.count || (tk_u128)dt * j->hi_per > (tk_u128)j->hi_dt * per) {
		j->hi_dt = dt;
		j->hi_per = per;
	}
	j->pub.count++;
	/* round half away from zero to 1e-12 */
	fx = num * 1000000000000ll;
	fx = fx >= 0 ? (fx + (tk_i128)(per / 2)) / (tk_i128)per
		     : (fx - (tk_i128)(per / 2)) / (tk_i128)per;
	if (__builtin_add_overflow(jsum(j), fx, &sum))
		j->overflow = 1;
	j->sum_lo = (uint64_t)sum;
	j->sum_hi = (uint64_t)((tk_u128)sum >> 64);
}

static sent *entity(tk_stats *s, uint32_t id, tk_etype type)
{
	sent *e;
	uint32_t i;

	if (tk_grow_zero32((void **)&s->slot, &s->nslot, id, sizeof(*s->slot)) < 0)
		return NULL;
	if (s->slot[id])
		return tk_slab_at(&s->ents, s->slot[id] - 1);
	e = tk_slab_new(&s->ents, &i);
	if (!e)
		return NULL;
	e->type = (uint8_t)type;
	e->id = id;
	s->slot[id] = i + 1;
	return e;
}

static int prev_of(int64_t have, int64_t prev, int64_t k)
{
	return have && k != TK_INST_NONE && k != INT64_MIN && prev == k - 1;
}

static void stop_run(sinst *r, uint64_t t)
{
	uint64_t d;

	if (r->flags & F_RUN) {
		if (span(r->t_run, t, &d))
			r->cet += d;
		else
			r->flags |= F_BACK;
	}
	r->flags &= ~(uint32_t)F_RUN;
}

static void start_run(sinst *r, uint64_t t)
{
	r->flags |= F_RUN;
	r->t_run = t;
}

static void on_terminate(tk_stats *s, sent *e, sinst *r, int64_t k, uint64_t t)
{
	if (r) {
		stop_run(r, t);
		if (r->flags & F_START) {
			if (!(r->flags & F_BACK))
				add(s, e, TK_METRIC_CET, r->cet, k, t);
			add_span(s, e, TK_METRIC_GET, r->t_start, t, k);
			add(s, e, TK_METRIC_NPRE, r->npre, k, t);
		}
		if (r->flags & F_ACT)
			add_span(s, e, TK_METRIC_RT, r->t_act, t, k);
	}
	e->has |= HAS_TERM;
	e->term_inst = k;
	e->term_time = t;
}

/* the first start of instance k: IPT, DT, JIT, and ST where it ends at a start */
static void on_start(tk_stats *s, sent *e, sinst *r, int64_t k, uint64_t t,
		     int st_at_start)
{
	uint64_t dt;
	int64_t p = k;

	if (e->nrefused && (e->has & HAS_START) && k != TK_INST_NONE &&
	    k != INT64_MIN) {
		/* the activations refused since the previous start: DT
		 * spans them (their records are dropped here) */
		const sinst *q;
		while (p - 1 > e->start_inst &&
		       (q = tk_imap_get(&s->insts, e->id, p - 1)) &&
		       (q->flags & F_REFUSED)) {
			tk_imap_del(&s->insts, e->id, p - 1);
			e->nrefused--;
			p--;
		}
		r = tk_imap_get(&s->insts, e->id, k);
	}
	if (r->flags & F_ACT)
		add_span(s, e, TK_METRIC_IPT, r->t_act, t, k);
	if (prev_of(e->has & HAS_START, e->start_inst, p) &&
	    span(e->start_time, t, &dt)) {
		add(s, e, TK_METRIC_DT, dt, k, t);
		/* JIT: DT and PER from the same previous instance */
		if (p == k && (r->flags & F_PER) && r->per)
			add_jit(s, e, dt, r->per, k, t);
	}
	if (st_at_start && prev_of(e->has & HAS_TERM, e->term_inst, k))
		add_span(s, e, TK_METRIC_ST, e->term_time, t, k);
	e->has |= HAS_START;
	e->start_inst = k;
	e->start_time = t;
	r->flags |= F_START;
	r->t_start = t;
	start_run(r, t);
}

static int on_process(tk_stats *s, const tk_event *ev)
{
	int64_t k = ev->target_inst;
	uint64_t t = ev->time, d;
	sent *e = entity(s, ev->target, ev->type);
	sinst *r;
	int created;

	if (!e)
		return TK_E_NOMEM;
	switch (ev->kind) {
	case TK_EV_ACTIVATE:
		r = tk_imap_put(&s->insts, ev->target, k, &created);
		if (!r)
			return TK_E_NOMEM;
		memset(r, 0, sizeof(*r));
		r->flags = F_ACT;
		r->t_act = t;
		if (prev_of(e->has & HAS_ACT, e->act_inst, k) && span(e->act_time, t, &d)) {
			add(s, e, TK_METRIC_PER, d, k, t);
			r->per = d;
			r->flags |= F_PER;
		}
		e->has |= HAS_ACT;
		e->act_inst = k;
		e->act_time = t;
		/* tasks: slack from the previous terminate to this activation */
		if (ev->type != TK_ET_I && prev_of(e->has & HAS_TERM, e->term_inst, k))
			add_span(s, e, TK_METRIC_ST, e->term_time, t, k);
		return TK_OK;
	case TK_EV_MTALIMITEXCEEDED:
		/* an activation refused by the activation limit: it is one
		 * for PER (activation to activation), and DT (start to start)
		 * spans it; no instance runs */
		if (prev_of(e->has & HAS_ACT, e->act_inst, k) && span(e->act_time, t, &d))
			add(s, e, TK_METRIC_PER, d, k, t);
		e->has |= HAS_ACT;
		e->act_inst = k;
		e->act_time = t;
		if ((e->has & HAS_START) && k != TK_INST_NONE && k > e->start_inst) {
			r = tk_imap_put(&s->insts, ev->target, k, &created);
			if (!r)
				return TK_E_NOMEM;
			if (created) {
				r->flags = F_REFUSED;
				e->nrefused++;
			}
		}
		return TK_OK;
	case TK_EV_TERMINATE:
		r = tk_imap_get(&s->insts, ev->target, k);
		on_terminate(s, e, r, k, t);
		tk_imap_del(&s->insts, ev->target, k);
		return TK_OK;
	case TK_EV_START: case TK_EV_PREEMPT: case TK_EV_RESUME:
	case TK_EV_WAIT: case TK_EV_RELEASE: case TK_EV_POLL: case TK_EV_RUN:
	case TK_EV_PARK: case TK_EV_POLL_PARKING: case TK_EV_RELEASE_PARKING:
		break;
	default:
		return TK_OK;
	}
	r = tk_imap_put(&s->insts, ev->target, k, &created);
	if (!r)
		return TK_E_NOMEM;
	switch (ev->kind) {
	case TK_EV_START:
		on_start(s, e, r, k, t, ev->type == TK_ET_I);
		break;
	case TK_EV_PREEMPT:
		stop_run(r, t);
		if (tk_event_is_creation(s->freertos, ev)) {
			/* created: READY, but not a preemption */
			r->flags &= ~(uint32_t)(F_PRE | F_WAIT | F_POLL);
			break;
		}
		r->flags |= F_PRE;
		r->t_mark = t;
		break;
	case TK_EV_RESUME:
		if (r->flags & F_PRE) {
			add_span(s, e, TK_METRIC_PRE, r->t_mark, t, k);
			r->npre++;
		}
		r->flags &= ~(uint32_t)(F_PRE | F_WAIT | F_POLL);
		start_run(r, t);
		break;
	case TK_EV_WAIT:
		stop_run(r, t);
		r->flags |= F_WAIT;
		r->t_mark = t;
		break;
	case TK_EV_RELEASE:
		if (r->flags & F_WAIT)
			add_span(s, e, TK_METRIC_WAIT, r->t_mark, t, k);
		r->flags &= ~(uint32_t)(F_WAIT | F_PRE);
		break;
	case TK_EV_POLL:
	case TK_EV_POLL_PARKING:
		stop_run(r, t);
		r->flags |= F_POLL;
		r->t_mark = t;
		break;
	case TK_EV_RUN:
		if (r->flags & F_POLL)
			add_span(s, e, TK_METRIC_POLL, r->t_mark, t, k);
		r->flags &= ~(uint32_t)F_POLL;
		start_run(r, t);
		break;
	case TK_EV_PARK:
		if (r->flags & F_POLL)
			add_span(s, e, TK_METRIC_POLL, r->t_mark, t, k);
		r->flags &= ~(uint32_t)F_POLL;
		break;
	default: /* release_parking: READY, but not a preemption */
		r->flags &= ~(uint32_t)(F_POLL | F_PRE);
		break;
	}
	return TK_OK;
}

static int on_runnable(tk_stats *s, const tk_event *ev)
{
	int64_t k = ev->target_inst;
	uint64_t t = ev->time;
	sent *e = entity(s, ev->target, ev->type);
	sinst *r;
	int created;

	if (!e)
		return TK_E_NOMEM;
	switch (ev->kind) {
	case TK_EV_START:
		r = tk_imap_put(&s->insts, ev->target, k, &created);
		if (!r)
			return TK_E_NOMEM;
		memset(r, 0, sizeof(*r));
		on_start(s, e, r, k, t, 1);
		return TK_OK;
	case TK_EV_TERMINATE:
		r = tk_imap_get(&s->insts, ev->target, k);
		on_terminate(s, e, r, k, t);
		tk_imap_del(&s->insts, ev->target, k);
		return TK_OK;
	case TK_EV_SUSPEND:
	case TK_EV_RESUME:
		break;
	default:
		return TK_OK;
	}
	r = tk_imap_put(&s->insts, ev->target, k, &created);
	if (!r)
		return TK_E_NOMEM;
	if (ev->kind == TK_EV_SUSPEND) {
		stop_run(r, t);
		r->flags |= F_PRE;
		r->t_mark = t;
	} else {
		if (r->flags & F_PRE) {
			add_span(s, e, TK_METRIC_PRE, r->t_mark, t, k);
			r->npre++;
		}
		r->flags &= ~(uint32_t)F_PRE;
		start_run(r, t);
	}
	return TK_OK;
}

int tk_stats_new(tk_stats **out, const tk_trace *t, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_stats_new", "out pointer");
	tk_stats *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return tk_err_nomem(err, NULL);
	s->t = t;
	s->freertos = tk_trace_is_freertos(t);
	tk_tlines_init(&s->tlines, t);
	tk_imap_init(&s->insts, sizeof(sinst));
	tk_slab_init(&s->ents, sizeof(sent));
	tk_slab_init(&s->accs, sizeof(acc));
	tk_slab_init(&s->jaccs, sizeof(jacc));
	*out = s;
	return TK_OK;
}

void tk_stats_on_value(tk_stats *s, tk_stat_value_fn fn, void *ctx)
{
	s->on_value = fn;
	s->value_ctx = ctx;
}

/*
 * A time line ends (tk_tlines): its open instances are cut as by the end of
 * the trace (what they completed is counted already), and nothing of it
 * goes on into the next, which starts as a trace does.
 */
static int new_time_line(tk_stats *s)
{
	uint32_t i;

	tk_imap_free(&s->insts);
	tk_imap_init(&s->insts, sizeof(sinst));
	for (i = 0; i < s->ents.count; i++) {
		sent *e = tk_slab_at(&s->ents, i);
		e->has = 0;
		e->nrefused = 0;
	}
	return s->chains ? tk_chains_restart(s->chains) : TK_OK;
}

static int stats_event(tk_stats *s, const tk_event *ev)
{
	int rc;

	if (tk_tlines_next(&s->tlines, ev) && (rc = new_time_line(s)) < 0)
		return rc;
	if (s->chains && (rc = tk_chains_event(s->chains, ev)) < 0)
		return rc;
	switch (ev->type) {
	case TK_ET_T:
	case TK_ET_I:
	case TK_ET_THR:
		rc = on_process(s, ev);
		break;
	case TK_ET_R:
	case TK_ET_SYSC:
		rc = on_runnable(s, ev);
		break;
	default:
		return TK_OK;
	}
	return s->nomem ? TK_E_NOMEM : rc;
}

int tk_stats_event(tk_stats *s, const tk_event *ev, tk_error *err)
{
	int rc = tk_an_check_event(s ? s->t : NULL, s, ev, "tk_stats_event", err);

	if (rc < 0)
		return rc;
	if (s->finished)
		return tk_an_finished(err, "tk_stats_event", "tk_stats_finish");
	s->started = 1;
	return tk_an_fail(err, stats_event(s, ev), "tk_stats_event");
}

/* an entity with metrics, for sorting by name */
typedef struct sname {
	const char *name;
	size_t nlen;
	uint32_t id;
} sname;

static int cmp_names(const void *a, const void *b)
{
	const sname *x = a, *y = b;
	size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->nlen != y->nlen)
		return x->nlen < y->nlen ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The rows by (name, entity, metric): the entities are sorted (one key
 * each), then each gives its metrics in order, so the sort moves one small
 * key per entity rather than a row per metric.
 */
static int stats_finish(tk_stats *s)
{
	size_t i, n = 0, ne = s->ents.count;
	sname *names = NULL;
	int m;

	size_t nc = tk_chains_count(s->chains);

	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
	if (s->nomem)
		return TK_E_NOMEM;
	if (s->ioerr)
		return TK_E_IO;
	if (s->pctl && !s->pct) {
		int rc = pct_finish(s);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < ne; i++)
		n += ((const sent *)tk_slab_at(&s->ents, (uint32_t)i))->nrec;
	n += nc * 3;
	if (!n)
		return TK_OK;
	s->rows = calloc(n, sizeof(*s->rows));
	names = calloc(ne, sizeof(*names));
	if (!s->rows || !names) {
		free(names);
		free(s->rows);
		s->rows = NULL;
		return TK_E_NOMEM;
	}
	for (i = 0; i < ne; i++) {
		const sent *e = tk_slab_at(&s->ents, (uint32_t)i);
		const tk_entity *te = tk_trace_entity(s->t, e->id);
		names[i].id = e->id; /* ties (equal names) by entity id */
		names[i].name = te ? tk_trace_str(s->t, te->name, &names[i].nlen) : NULL;
		if (!names[i].name) {
			names[i].name = "";
			names[i].nlen = 0;
		}
	}
	qsort(names, ne, sizeof(*names), cmp_names);
	for (i = 0; i < ne; i++) {
		sent *e = tk_slab_at(&s->ents, s->slot[names[i].id] - 1);
		e->row0 = (uint32_t)s->nrows;
		for (m = 0; m < TK_METRIC_COUNT; m++)
			if (e->rec[m])
				s->rows[s->nrows++] = (e->rec[m] - 1) |
						      (m == TK_METRIC_JIT ? ROW_JIT : 0);
	}
	free(names);
	for (i = 0; i < nc; i++) {
		acc *lost = tk_slab_at(&s->accs, s->chain_rec[i * 3 + 2]);
		lost->pub.count = tk_chains_lost(s->chains, (uint32_t)i);
		for (m = 0; m < 3; m++)
			s->rows[s->nrows++] = s->chain_rec[i * 3 + (size_t)m];
	}
	return TK_OK;
}

int tk_stats_finish(tk_stats *s, tk_error *err)
{
	int rc;

	if (!s)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_stats_finish: no analysis given");
	if (s->finished == 2)
		return TK_OK;
	s->finished = 1;
	rc = tk_an_fail(err, stats_finish(s), "tk_stats_finish");
	if (rc == TK_OK)
		s->finished = 2;
	return rc;
}

size_t tk_stats_count(const tk_stats *s)
{
	return s->nrows;
}

/* row i (< nrows) */
static const tk_stat *row_at(const tk_stats *s, size_t i)
{
	uint32_t r = s->rows[i];

	return r & ROW_JIT ? tk_slab_at(&s->jaccs, r & ~ROW_JIT)
			   : tk_slab_at(&s->accs, r);
}

const tk_stat *tk_stats_get(const tk_stats *s, size_t i)
{
	return i < s->nrows ? row_at(s, i) : NULL;
}

const char *tk_stats_row_name(const tk_stats *s, size_t i, size_t *len)
{
	const tk_stat *r = tk_stats_get(s, i);
	const tk_entity *e;

	if (!r)
		return NULL;
	if (r->chain)
		return tk_chains_name(s->chains, r->chain - 1, len);
	e = tk_trace_entity(s->t, r->entity);
	return e ? tk_trace_str(s->t, e->name, len) : NULL;
}

/* a value in units of 1e-6, rounded already, as a trimmed decimal */
static int fmt_micro(tk_i128 v, char *buf, size_t size)
{
	char tmp[64];
	tk_u128 a = v < 0 ? (tk_u128)(-(v + 1)) + 1 : (tk_u128)v;
	size_t len = 0;
	int i;
	char frac[7];

	if (v < 0)
		tmp[len++] = '-';
	len += tk_fmt_u128(tmp + len, a / 1000000);
	for (i = 5; i >= 0; i--) {
		frac[i] = (char)('0' + (unsigned)(a % 10));
		a /= 10;
	}
	frac[6] = '\0';
	for (i = 5; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	if (frac[0]) {
		tmp[len++] = '.';
		for (i = 0; frac[i]; i++)
			tmp[len++] = frac[i];
	}
	if (len == 2 && tmp[0] == '-' && tmp[1] == '0')
		len = 1, tmp[0] = '0'; /* no "-0" */
	if (len + 1 > size)
		return TK_E_RANGE;
	memcpy(buf, tmp, len);
	buf[len] = '\0';
	return (int)len;
}

/* (per - dt)/per to 1e-6, rounded half away from zero */
static int fmt_jit(uint64_t dt, uint64_t per, char *buf, size_t size)
{
	tk_i128 num = ((tk_i128)per - (tk_i128)dt) * 1000000;
	tk_i128 h = (tk_i128)(per / 2);

	num = num >= 0 ? (num + h) / (tk_i128)per : (num - h) / (tk_i128)per;
	return fmt_micro(num, buf, size);
}

/* a signed ratio n/d (d > 0) exactly, as tk_fmt_ratio writes it */
static int fmt_signed_ratio(tk_i128 n, tk_u128 d, char *buf, size_t size)
{
	tk_u128 a = n < 0 ? (tk_u128)(-(n + 1)) + 1 : (tk_u128)n;
	int rc;

	if (n < 0) {
		if (size < 2)
			return TK_E_RANGE;
		buf[0] = '-';
		rc = tk_fmt_ratio(a, d, buf + 1, size - 1);
		return rc < 0 ? rc : rc + 1;
	}
	return tk_fmt_ratio(a, d, buf, size);
}

static int stats_format(const tk_stats *s, size_t i, tk_stat_field f,
			tk_unit unit, int exact, char *buf, size_t size)
{
	const tk_stat *row;
	const acc *a;
	tk_u128 p, q, num, den;
	int digits = 3;

	uint64_t pv = 0;

	if (i >= s->nrows || !size || (f > TK_STAT_SUM && f < TK_STAT_PCT0))
		return TK_E_USAGE;
	row = row_at(s, i);
	if (f >= TK_STAT_PCT0) {
		if ((size_t)f - TK_STAT_PCT0 >= s->npct)
			return TK_E_USAGE;
		if (!tk_stats_percentile(s, i, (size_t)f - TK_STAT_PCT0, &pv)) {
			buf[0] = '\0'; /* not a time, or no value */
			return 0;
		}
	}
	if (row->metric == TK_METRIC_JIT) {
		const jacc *j = (const jacc *)row; /* pub first */
		tk_i128 v, h, cnt = (tk_i128)j->pub.count * 1000000;
		if (exact) {
			switch (f) {
			case TK_STAT_MIN:
				return fmt_signed_ratio((tk_i128)j->hi_per -
							(tk_i128)j->hi_dt,
							j->hi_per, buf, size);
			case TK_STAT_MAX:
				return fmt_signed_ratio((tk_i128)j->lo_per -
							(tk_i128)j->lo_dt,
							j->lo_per, buf, size);
			case TK_STAT_SUM:
				if (j->overflow)
					return TK_E_RANGE;
				return fmt_signed_ratio(jsum(j), 1000000000000u, buf, size);
			default:
				if (j->overflow)
					return TK_E_RANGE;
				return fmt_signed_ratio(jsum(j), (tk_u128)cnt *
							1000000, buf, size);
			}
		}
		switch (f) {
		case TK_STAT_MIN:
			return fmt_jit(j->hi_dt, j->hi_per, buf, size);
		case TK_STAT_MAX:
			return fmt_jit(j->lo_dt, j->lo_per, buf, size);
		default:
			if (j->overflow)
				return TK_E_RANGE;
			if (f == TK_STAT_SUM)
				cnt = 1000000;
			h = cnt / 2;
			v = jsum(j);
			v = v >= 0 ? (v + h) / cnt : (v - h) / cnt;
			return fmt_micro(v, buf, size);
		}
	}
	a = (const acc *)row; /* pub first */
	if (!a->pub.count || row->metric == TK_METRIC_LOST) {
		buf[0] = '\0'; /* no value */
		return 0;
	}
	if (row->metric == TK_METRIC_NPRE) {
		p = q = 1;
	} else {
		/* the factor and the places of (time base, unit), kept from the
		 * last call of this thread: a table asks three values a row,
		 * 900,000 rows for 100,000 tasks, all with the same */
		static _Thread_local struct {
			tk_timebase tb;
			tk_unit unit;
			int have, rc, digits;
			tk_u128 p, q;
		} fc;
		const tk_timebase *tb = tk_trace_timebase(s->t);
		if (!fc.have || fc.unit != unit || fc.tb.unit != tb->unit ||
		    fc.tb.num != tb->num || fc.tb.den != tb->den) {
			fc.tb = *tb;
			fc.unit = unit;
			fc.rc = tk_unit_factor(tb, unit, &fc.p, &fc.q);
			fc.digits = fc.rc < 0 ? 3 : tk_time_digits(tb, unit);
			fc.have = 1;
		}
		if (fc.rc < 0)
			return fc.rc;
		p = fc.p;
		q = fc.q;
		digits = fc.digits;
	}
	switch (f) {
	case TK_STAT_MIN:
		num = a->pub.min;
		den = 1;
		break;
	case TK_STAT_MAX:
		num = a->pub.max;
		den = 1;
		break;
	case TK_STAT_AVG:
		num = ((tk_u128)a->sum_hi << 64) | a->sum_lo;
		den = a->pub.count;
		break;
	case TK_STAT_SUM:
		num = ((tk_u128)a->sum_hi << 64) | a->sum_lo;
		den = 1;
		break;
	default:
		num = pv;
		den = 1;
		break;
	}
	if (__builtin_mul_overflow(num, p, &num) ||
	    __builtin_mul_overflow(den, q, &den))
		return TK_E_RANGE;
	if (exact)
		return tk_fmt_ratio(num, den, buf, size);
	return tk_fmt_ratio_dec(num, den, digits, buf, size);
}

int tk_stats_format(const tk_stats *s, size_t i, tk_stat_field f,
		    tk_unit unit, char *buf, size_t size)
{
	return stats_format(s, i, f, unit, 0, buf, size);
}

int tk_stats_format_exact(const tk_stats *s, size_t i, tk_stat_field f,
			  tk_unit unit, char *buf, size_t size)
{
	return stats_format(s, i, f, unit, 1, buf, size);
}

long tk_stats_find(const tk_stats *s, uint32_t entity, tk_metric m)
{
	const sent *e;
	long k = 0;
	int j;

	if (!s || !s->rows || entity >= s->nslot || !s->slot[entity] ||
	    (unsigned)m >= TK_METRIC_COUNT)
		return -1;
	e = tk_slab_at(&s->ents, s->slot[entity] - 1);
	if (!e->rec[m])
		return -1;
	for (j = 0; j < (int)m; j++)
		k += e->rec[j] != 0;
	return (long)e->row0 + k;
}

/* n/d (d > 0) reduced into *num / *den, or TK_E_RANGE */
static int put_value(tk_i128 n, tk_u128 d, int64_t *num, uint64_t *den)
{
	tk_u128 a = n < 0 ? (tk_u128)(-(n + 1)) + 1 : (tk_u128)n;
	tk_u128 g = tk_gcd128(a, d);

	if (g > 1) {
		a /= g;
		d /= g;
	}
	if (a > (tk_u128)INT64_MAX || d > UINT64_MAX)
		return TK_E_RANGE;
	*num = n < 0 ? -(int64_t)a : (int64_t)a;
	*den = (uint64_t)d;
	return 1;
}

int tk_stats_value(const tk_stats *s, size_t i, tk_stat_field f,
		   int64_t *num, uint64_t *den)
{
	const tk_stat *row;
	const acc *a;
	uint64_t pv;

	if (!s || i >= s->nrows || !num || !den ||
	    (f > TK_STAT_SUM && f < TK_STAT_PCT0) ||
	    (f >= TK_STAT_PCT0 && (size_t)f - TK_STAT_PCT0 >= s->npct))
		return TK_E_USAGE;
	row = row_at(s, i);
	if (f >= TK_STAT_PCT0) {
		if (!tk_stats_percentile(s, i, (size_t)f - TK_STAT_PCT0, &pv))
			return 0;
		return put_value(pv, 1, num, den);
	}
	if (row->metric == TK_METRIC_JIT) {
		const jacc *j = (const jacc *)row; /* pub first */
		if (!j->pub.count)
			return 0;
		switch (f) {
		case TK_STAT_MIN:
			return put_value((tk_i128)j->hi_per - (tk_i128)j->hi_dt,
					 j->hi_per, num, den);
		case TK_STAT_MAX:
			return put_value((tk_i128)j->lo_per - (tk_i128)j->lo_dt,
					 j->lo_per, num, den);
		case TK_STAT_AVG:
			if (j->overflow)
				return TK_E_RANGE;
			return put_value(jsum(j), (tk_u128)j->pub.count *
					 1000000000000u, num, den);
		default:
			if (j->overflow)
				return TK_E_RANGE;
			return put_value(jsum(j), 1000000000000u, num, den);
		}
	}
	a = (const acc *)row; /* pub first */
	if (!a->pub.count || row->metric == TK_METRIC_LOST)
		return 0;
	switch (f) {
	case TK_STAT_MIN:
		return put_value(a->pub.min, 1, num, den);
	case TK_STAT_MAX:
		return put_value(a->pub.max, 1, num, den);
	case TK_STAT_AVG:
	case TK_STAT_SUM: {
		tk_u128 sum = ((tk_u128)a->sum_hi << 64) | a->sum_lo;
		if (sum > (tk_u128)INT64_MAX * a->pub.count)
			return TK_E_RANGE;
		return put_value((tk_i128)sum, f == TK_STAT_SUM ? 1 : a->pub.count,
				 num, den);
	}
	default:
		return TK_E_USAGE;
	}
}

void tk_stats_free(tk_stats *s)
{
	if (!s)
		return;
	tk_slab_free(&s->ents);
	tk_slab_free(&s->accs);
	tk_slab_free(&s->jaccs);
	tk_chains_free(s->chains);
	free(s->chain_rec);
	free(s->pct_p);
	free(s->pct);
	tk_pctl_free(s->pctl);
	free(s->slot);
	free(s->rows);
	tk_imap_free(&s->insts);
	free(s);
}
