/*
 * pctl.c - exact nearest-rank percentiles of many rows of values, with
 * flat memory (stats --percentiles).
 *
 * Each value comes as (row, value) into a buffer of PCT_BUF records; a
 * full buffer is sorted by (row, value) (a radix sort, digits that are
 * the same in every record skipped) and appended to one temporary file
 * (core's spill) as a run.  At the end the last buffer is a run too; more
 * than PCT_FAN runs are first merged PCT_FAN at a time (a heap over their
 * heads) into longer runs of a second file.  Then the rows are taken in
 * order, as many at a time as the buffer holds (each row's count is
 * known): their stretch of every run (a run is sorted by row, so each is
 * read once, PCT_RBUF records at a time, from its place in the file) is
 * gathered into the buffer and sorted there, and each row's k-th smallest
 * values (k = ceil(p/100 * count)) are picked; a row bigger than the
 * buffer is merged alone, by a heap over the runs' stretches of it.
 * Memory: the buffer and its sort's other half, and PCT_RBUF records per
 * run, whatever the number of values.
 */
#include "analysis_internal.h"
#include "../core/spill.h"

#include <stdlib.h>
#include <string.h>

typedef struct prec {
	uint64_t v;
	uint32_t row, pad;
} prec;

#ifndef PCT_BUF /* (smaller in tests/unit/test_pctl.c) */
#define PCT_BUF ((size_t)1 << 16)  /* values sorted in memory at a time */
#define PCT_FAN 256u                /* runs merged at a time */
#endif
#define PCT_RBUF 256u               /* records read at a time per run */
#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define NDIGITS 9                   /* 6 of the value (66 bits), 3 of the row */

struct tk_pctl {
	uint32_t *p;        /* millionths of a percent */
	size_t np;
	prec *buf, *tmp;    /* values not yet in a run; the sort's other half */
	size_t n;
	tk_spill spill;     /* the runs, one after the other */
	uint64_t *run_at;   /* run i is records [run_at[i], run_at[i + 1]) */
	size_t nruns, caprun;
	int failed;         /* TK_E_NOMEM or TK_E_IO once a put failed */
	int finished;
	uint32_t cnt[NDIGITS][RADIX]; /* the radix sort's counts */
};

tk_pctl *tk_pctl_new(const uint32_t *p, size_t np)
{
	tk_pctl *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->p = malloc(np * sizeof(*pc->p));
	pc->buf = malloc(PCT_BUF * sizeof(*pc->buf));
	pc->tmp = malloc(PCT_BUF * sizeof(*pc->tmp));
	if (!pc->p || !pc->buf || !pc->tmp) {
		tk_pctl_free(pc);
		return NULL;
	}
	memcpy(pc->p, p, np * sizeof(*pc->p));
	pc->np = np;
	return pc;
}

static unsigned digit(const prec *r, unsigned d)
{
	return d < 6 ? (unsigned)(r->v >> (d * RADIX_BITS)) & (RADIX - 1)
		     : (r->row >> ((d - 6) * RADIX_BITS)) & (RADIX - 1);
}

/* buf[0..n) sorted by (row, value), least significant digit first */
static void radix_sort(tk_pctl *pc)
{
	uint32_t (*cnt)[RADIX] = pc->cnt;
	prec *a = pc->buf, *b = pc->tmp, *t;
	size_t i, n = pc->n;
	unsigned d, k;

	if (!n)
		return;
	memset(pc->cnt, 0, sizeof(pc->cnt));
	for (i = 0; i < n; i++)
		for (d = 0; d < NDIGITS; d++)
			cnt[d][digit(&a[i], d)]++;
	for (d = 0; d < NDIGITS; d++) {
		uint32_t sum = 0, c;
		if (cnt[d][digit(&a[0], d)] == n)
			continue; /* the same digit in every record */
		for (k = 0; k < RADIX; k++) {
			c = cnt[d][k];
			cnt[d][k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[d][digit(&a[i], d)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	pc->buf = a;
	pc->tmp = b;
}

/* the buffer sorted and appended as a run */
static int flush(tk_pctl *pc)
{
	if (!pc->spill.f && tk_spill_open(&pc->spill, sizeof(prec)) < 0)
		return TK_E_IO;
	if (pc->nruns + 2 > pc->caprun) {
		size_t cap = pc->caprun ? 2 * pc->caprun : 64;
		uint64_t *r = realloc(pc->run_at, cap * sizeof(*r));
		if (!r)
			return TK_E_NOMEM;
		pc->run_at = r;
		pc->caprun = cap;
	}
	radix_sort(pc);
	pc->run_at[pc->nruns] = pc->spill.n;
	if (tk_spill_put_n(&pc->spill, pc->buf, pc->n) < 0)
		return TK_E_IO;
	pc->nruns++;
	pc->run_at[pc->nruns] = pc->spill.n;
	pc->n = 0;
	return TK_OK;
}

int tk_pctl_put(tk_pctl *pc, uint32_t row, uint64_t v)
{
	if (pc->failed)
		return pc->failed;
	if (pc->n == PCT_BUF && (pc->failed = flush(pc)) < 0)
		return pc->failed;
	pc->buf[pc->n].v = v;
	pc->buf[pc->n].row = row;
	pc->buf[pc->n++].pad = 0;
	return TK_OK;
}

/* a source of a merge: a run of a file, or the buffer */
typedef struct msrc {
	const prec *cur;    /* its head; NULL: done */
	prec *rb;           /* read buffer (a run) */
	size_t n, i;        /* records in rb, the next one */
	uint64_t at, end;   /* the run's next record in the file, its end */
	int failed;
} msrc;

static void msrc_next(tk_spill *in, msrc *m)
{
	size_t got;

	if (m->i == m->n) {
		m->cur = NULL;
		if (!m->rb || m->at == m->end)
			return;
		got = tk_spill_read_at(in, m->at, m->rb,
				       m->end - m->at < PCT_RBUF ? (size_t)(m->end - m->at)
								 : PCT_RBUF);
		if (!got || got == (size_t)-1) {
			m->failed = 1;
			return;
		}
		m->at += got;
		m->n = got;
		m->i = 0;
	}
	m->cur = &m->rb[m->i++];
}

/* a heap node: the head's key (row, value) and its source */
typedef struct hnode {
	tk_u128 key;
	msrc *src;
} hnode;

static inline tk_u128 key_of(const prec *r)
{
	return (tk_u128)r->row << 64 | r->v;
}

static void heap_down(hnode *h, size_t n, size_t i)
{
	hnode x = h[i];

	for (;;) {
		size_t l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = l + 1 < n && h[l + 1].key < h[l].key ? l + 1 : l;
		if (!(h[m].key < x.key))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

/* what picks the percentiles as the sorted values pass */
typedef struct picker {
	tk_pctl *pc;
	uint64_t (*count)(void *, uint32_t);
	void *ctx;
	uint64_t *out;
	uint32_t row;
	int started;
	uint64_t j, k[TK_PCTL_MAX];
} picker;

static void pick(picker *pk, const prec *r)
{
	size_t q, np = pk->pc->np;

	if (!pk->started || r->row != pk->row) {
		uint64_t n = pk->count(pk->ctx, r->row);
		pk->started = 1;
		pk->row = r->row;
		pk->j = 0;
		/* nearest rank: k = ceil(p/100 * n), p in millionths of a percent */
		for (q = 0; q < np; q++)
			pk->k[q] = (uint64_t)(((tk_u128)pk->pc->p[q] * n + 99999999u) /
					      100000000u);
	}
	pk->j++;
	for (q = 0; q < np; q++)
		if (pk->k[q] == pk->j)
			pk->out[(size_t)r->row * np + q] = r->v;
}

/* runs [from, to) of `in` (bounds `at`) merged by a heap into one new run
 * at the end of `out` */
static int merge(tk_spill *in, const uint64_t *at, size_t from, size_t to,
		 tk_spill *out)
{
	size_t n = to - from, i, nh = 0, no = 0;
	msrc *m = calloc(n ? n : 1, sizeof(*m));
	hnode *h = calloc(n ? n : 1, sizeof(*h));
	prec *rb = malloc((n + 1) * PCT_RBUF * sizeof(*rb)); /* + out's */
	prec *ob = rb ? rb + n * PCT_RBUF : NULL;
	int rc = TK_E_NOMEM;

	if (!m || !h || !rb)
		goto out;
	rc = TK_E_IO;
	for (i = 0; i < n; i++) {
		m[i].rb = rb + i * PCT_RBUF;
		m[i].at = at[from + i];
		m[i].end = at[from + i + 1];
		msrc_next(in, &m[i]);
		if (m[i].failed)
			goto out;
		if (m[i].cur) {
			h[nh].key = key_of(m[i].cur);
			h[nh++].src = &m[i];
		}
	}
	for (i = nh / 2; i-- > 0;)
		heap_down(h, nh, i);
	while (nh) {
		msrc *t = h[0].src;
		ob[no++] = *t->cur;
		if (no == PCT_RBUF) {
			if (tk_spill_put_n(out, ob, no) < 0)
				goto out;
			no = 0;
		}
		msrc_next(in, t);
		if (t->failed)
			goto out;
		if (!t->cur && !--nh)
			break;
		if (!t->cur)
			h[0] = h[nh];
		else
			h[0].key = key_of(t->cur);
		heap_down(h, nh, 0);
	}
	if (tk_spill_put_n(out, ob, no) < 0)
		goto out;
	rc = TK_OK;
out:
	free(rb);
	free(h);
	free(m);
	return rc;
}

/*
 * The big row `row` (more values than the buffer holds): the sources'
 * stretches of it merged by a heap into pk.
 */
static int merge_row(tk_pctl *pc, msrc *m, size_t n, uint32_t row, picker *pk)
{
	hnode *h = calloc(n ? n : 1, sizeof(*h));
	size_t i, nh = 0;

	if (!h)
		return TK_E_NOMEM;
	for (i = 0; i < n; i++)
		if (m[i].cur && m[i].cur->row == row) {
			h[nh].key = m[i].cur->v;
			h[nh++].src = &m[i];
		}
	for (i = nh / 2; i-- > 0;)
		heap_down(h, nh, i);
	while (nh) {
		msrc *t = h[0].src;
		pick(pk, t->cur);
		msrc_next(&pc->spill, t);
		if (t->failed) {
			free(h);
			return TK_E_IO;
		}
		if (!t->cur || t->cur->row != row) {
			if (!--nh)
				break;
			h[0] = h[nh];
		} else {
			h[0].key = t->cur->v;
		}
		heap_down(h, nh, 0);
	}
	free(h);
	return TK_OK;
}

/*
 * The final pass over the runs (at most PCT_FAN), each read PCT_RBUF values
 * at a time: rows taken in order, as many at a time as the buffer holds
 * (their counts are known), their stretches of every run gathered into the
 * buffer and sorted there (a radix sort, no heap); a row bigger than the
 * buffer merged alone by a heap.
 */
static int gather(tk_pctl *pc, uint32_t nrows, picker *pk)
{
	size_t nr = pc->nruns, i;
	msrc *m = calloc(nr ? nr : 1, sizeof(*m));
	prec *rb = malloc((nr ? nr : 1) * PCT_RBUF * sizeof(*rb));
	uint32_t a = 0, b;
	int rc = TK_E_NOMEM;

	if (!m || !rb)
		goto out;
	rc = TK_E_IO;
	for (i = 0; i < nr; i++) {
		m[i].rb = rb + i * PCT_RBUF;
		m[i].at = pc->run_at[i];
		m[i].end = pc->run_at[i + 1];
		msrc_next(&pc->spill, &m[i]);
		if (m[i].failed)
			goto out;
	}
	while (a < nrows) {
		uint64_t sum = pk->count(pk->ctx, a);
		if (sum > PCT_BUF) {
			if ((rc = merge_row(pc, m, nr, a, pk)) < 0)
				goto out;
			rc = TK_E_IO;
			a++;
			continue;
		}
		for (b = a + 1; b < nrows; b++) {
			uint64_t c = pk->count(pk->ctx, b);
			if (sum + c > PCT_BUF)
				break;
			sum += c;
		}
		/* rows [a, b): their values into the buffer */
		pc->n = 0;
		for (i = 0; i < nr; i++)
			while (m[i].cur && m[i].cur->row < b) {
				if (pc->n == PCT_BUF)
					goto out; /* more values than counted */
				pc->buf[pc->n++] = *m[i].cur;
				msrc_next(&pc->spill, &m[i]);
				if (m[i].failed)
					goto out;
			}
		radix_sort(pc);
		for (i = 0; i < pc->n; i++)
			pick(pk, &pc->buf[i]);
		a = b;
	}
	rc = TK_OK;
out:
	pc->n = 0;
	free(rb);
	free(m);
	return rc;
}

int tk_pctl_finish(tk_pctl *pc, uint32_t nrows,
		   uint64_t (*count)(void *, uint32_t), void *ctx, uint64_t *out)
{
	picker pk;
	int rc;

	if (pc->failed)
		return pc->failed;
	if (pc->finished)
		return TK_E_USAGE;
	pc->finished = 1;
	memset(&pk, 0, sizeof(pk));
	pk.pc = pc;
	pk.count = count;
	pk.ctx = ctx;
	pk.out = out;
	/* the last values as a run too: the buffer gathers from now on */
	if (pc->n && (rc = flush(pc)) < 0)
		return rc;
	/* rounds of PCT_FAN runs into one while there are too many */
	while (pc->nruns > PCT_FAN) {
		size_t ng = (pc->nruns + PCT_FAN - 1) / PCT_FAN, g;
		uint64_t *nat = malloc((ng + 1) * sizeof(*nat));
		tk_spill next;
		memset(&next, 0, sizeof(next));
		if (!nat)
			return TK_E_NOMEM;
		if (tk_spill_open(&next, sizeof(prec)) < 0) {
			free(nat);
			return TK_E_IO;
		}
		for (g = 0; g < ng; g++) {
			size_t from = g * PCT_FAN;
			size_t to = from + PCT_FAN < pc->nruns ? from + PCT_FAN : pc->nruns;
			nat[g] = next.n;
			if ((rc = merge(&pc->spill, pc->run_at, from, to, &next)) < 0) {
				tk_spill_close(&next);
				free(nat);
				return rc;
			}
		}
		nat[ng] = next.n;
		tk_spill_close(&pc->spill);
		pc->spill = next;
		free(pc->run_at);
		pc->run_at = nat;
		pc->nruns = pc->caprun = ng;
	}
	return gather(pc, nrows, &pk);
}

void tk_pctl_free(tk_pctl *pc)
{
	if (!pc)
		return;
	tk_spill_close(&pc->spill);
	free(pc->run_at);
	free(pc->p);
	free(pc->buf);
	free(pc->tmp);
	free(pc);
}
