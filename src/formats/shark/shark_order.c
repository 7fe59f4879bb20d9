/*
 * shark_order.c - the order the S.Ha.R.K. reader reads a dump in.
 *
 * The target writes records in buffer order, which after a cyclic chunk
 * wrapped is not time order.  One pass at open reads the whole dump (a
 * megabyte at a time through tk_source_read_at()) and finds its clock
 * rates, whether a type word has bits 8-14 set, and where the TSC goes
 * down (empty slots, type word 0, are skipped).  Then:
 *
 *  - no descent: the file as it is;
 *  - one descent and the last TSC at most the first: a single wrap, read
 *    as a rotation from the oldest record (the one after the descent);
 *  - fewer than SHARK_MERGE_MAX descents: the ascending runs merged, the
 *    earliest run first on a tie;
 *  - otherwise the whole dump in memory and an index sorted by TSC, then
 *    position.
 *
 * The last two give the same order: by TSC, then by position in the file.
 * The file and the runs are read in stretches into buffers that stay in
 * the cache; shark_order_peek() hands out consecutive records of one
 * stretch, and the reader takes as many of them as it maps.
 */
#include "shark.h"

#include <stdlib.h>

/* the slots read at a time: 256 KB while reading, 1 MB for the scan,
 * 64 KB for each merged run */
#define CHUNK ((uint64_t)16384)
#define SCAN_CHUNK (4 * CHUNK)
#define RUN_CHUNK ((uint64_t)4096)

typedef struct keyed {
	uint64_t tsc;
	uint32_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* slots [from, to) into buf */
static int read_slots(shark_order *o, uint8_t *buf, uint64_t from,
		      uint64_t to, tk_error *err)
{
	return tk_source_read_at(o->src, from * SHARK_REC, buf,
				 (size_t)(to - from) * SHARK_REC, err);
}

/* a buffer of `max` slots, or of the whole dump if smaller */
static uint8_t *slot_buf(const shark_order *o, uint64_t max)
{
	uint64_t n = o->nslots < max ? (o->nslots ? o->nslots : 1) : max;

	return tk_bigbuf_alloc((size_t)n * SHARK_REC);
}

/* What the scan keeps besides the fields of shark_order. */
typedef struct scan_state {
	int any;
	uint64_t first, prev;  /* the TSC of the first and the last record */
	uint64_t starts[SHARK_MERGE_MAX];  /* where the runs start */
	size_t nstarts;
	uint64_t after;      /* the first rate at or after the first descent */
	uint64_t min_tsc, min_clk;  /* the earliest clock record (TSC, file) */
	int min_found;
} scan_state;

/* The codes the scan looks at one by one: 0 (an empty slot's, type word
 * 0) and the clock codes 0x10 and 0x20. */
static const uint8_t scan_one[256] = {
	[0x00] = 1, [SHARK_CYCLES_PER_MSEC] = 1, [SHARK_TRACE_START] = 1,
};

/* One record of the scan, with every check. */
static void scan_rec(shark_order *o, scan_state *st, const uint8_t *p,
		     uint64_t slot)
{
	uint32_t w = tk_load_le32(p), par2;
	uint64_t tsc;

	if ((w & 0xffffu) == 0)
		return;
	o->high |= (w & 0x7f00u) != 0;
	tsc = shark_tsc(p);
	if (!st->any) {
		st->any = 1;
		st->first = st->prev = tsc;
	}
	if (tsc < st->prev) {
		if (!o->descents++)
			o->at = slot;
		if (st->nstarts < SHARK_MERGE_MAX)
			st->starts[st->nstarts++] = slot;
	}
	st->prev = tsc;
	if (shark_is_clock(p)) {
		par2 = tk_load_le32(p + 12);
		if (!o->clk)
			o->clk = par2;
		else if (par2 != o->clk)
			o->clk_differ = 1;
		if (o->descents && !st->after)
			st->after = par2;
		if (!st->min_found || tsc < st->min_tsc) {
			st->min_found = 1;
			st->min_tsc = tsc;
			st->min_clk = par2;
		}
	}
}

/* Whether one of the four records at p is an empty slot or has a clock
 * code, or their TSCs (after prev) go down; their type words or-ed into
 * *h. */
static TK_INLINE unsigned odd4(const uint8_t *p, uint64_t prev, uint32_t *h)
{
	uint32_t w0 = tk_load_le32(p), w1 = tk_load_le32(p + 16),
		 w2 = tk_load_le32(p + 32), w3 = tk_load_le32(p + 48);
	uint64_t t0 = shark_tsc(p), t1 = shark_tsc(p + 16),
		 t2 = shark_tsc(p + 32), t3 = shark_tsc(p + 48);

	*h |= w0 | w1 | w2 | w3;
	return scan_one[w0 & 0xffu] | scan_one[w1 & 0xffu] |
	       scan_one[w2 & 0xffu] | scan_one[w3 & 0xffu] | (t0 < prev) |
	       (t1 < t0) | (t2 < t1) | (t3 < t2);
}

/* The n slots at b, slot i0 first: eight at a time while none of them is
 * an empty slot or a clock code and the TSC does not go down, one by one
 * with every check where one of the eight is. */
static void scan_slots(shark_order *o, scan_state *st, const uint8_t *b,
		       uint64_t n, uint64_t i0)
{
	uint64_t i = 0, prev = st->prev;
	uint32_t high = 0;

	while (i < n) {
		if (TK_LIKELY(st->any && n - i >= 8)) {
			const uint8_t *p = b + i * SHARK_REC;
			uint32_t h = 0;

			if (TK_LIKELY(!(odd4(p, prev, &h) |
					odd4(p + 64, shark_tsc(p + 48), &h)))) {
				high |= h;
				prev = shark_tsc(p + 112);
				i += 8;
				continue;
			}
		}
		st->prev = prev;
		scan_rec(o, st, b + i * SHARK_REC, i0 + i);
		prev = st->prev;
		i++;
	}
	st->prev = prev;
	o->high |= (high & 0x7f00u) != 0;
}

/* The whole dump in memory and its records' index sorted by TSC. */
static int sort_all(shark_order *o, tk_error *err)
{
	uint64_t i, n = 0;
	keyed *k = NULL;
	int rc;

	if (o->nslots > UINT32_MAX)
		return tk_err_set_at(err, TK_E_RANGE, o->name, 0,
				     "too many records to sort");
	o->base = slot_buf(o, o->nslots);
	if (!o->base)
		return tk_err_nomem(err, o->name);
	rc = read_slots(o, o->base, 0, o->nslots, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < o->nslots; i++)
		n += tk_load_le16(o->base + i * SHARK_REC) != 0;
	k = tk_xrealloc_array(NULL, (size_t)n, sizeof(*k));
	o->sorted = tk_xrealloc_array(NULL, (size_t)n, sizeof(*o->sorted));
	if (!k || !o->sorted) {
		free(k);
		return tk_err_nomem(err, o->name);
	}
	for (i = 0, n = 0; i < o->nslots; i++) {
		const uint8_t *p = o->base + i * SHARK_REC;
		if (tk_load_le16(p) == 0)
			continue;
		k[n].tsc = shark_tsc(p);
		k[n++].idx = (uint32_t)i;
	}
	qsort(k, (size_t)n, sizeof(*k), cmp_keyed);
	for (i = 0; i < n; i++)
		o->sorted[i] = k[i].idx;
	o->nsorted = n;
	free(k);
	return TK_OK;
}

/* The runs of a dump of at most SHARK_MERGE_MAX of them. */
static int set_runs(shark_order *o, const scan_state *st, tk_error *err)
{
	uint64_t per = o->nslots < RUN_CHUNK ? (o->nslots ? o->nslots : 1)
					      : RUN_CHUNK;
	size_t r, nr = st->nstarts + 1;

	o->runs = calloc(nr, sizeof(*o->runs));
	o->buf = tk_bigbuf_alloc((size_t)(nr * per) * SHARK_REC);
	if (!o->runs || !o->buf)
		return tk_err_nomem(err, o->name);
	for (r = 0; r < nr; r++) {
		o->runs[r].cur = r ? st->starts[r - 1] : 0;
		o->runs[r].end = r + 1 < nr ? st->starts[r] : o->nslots;
		o->runs[r].buf = o->buf + r * per * SHARK_REC;
	}
	o->nruns = nr;
	return TK_OK;
}

int shark_order_open(shark_order *o, tk_source *src, tk_error *err)
{
	scan_state st;
	uint64_t size, a, b;
	uint8_t *buf = NULL;
	int rc;

	memset(o, 0, sizeof(*o));
	memset(&st, 0, sizeof(st));
	o->src = src;
	o->name = tk_source_name(src);
	rc = tk_source_size(src, &size, err);
	if (rc < 0)
		return rc;
	o->nslots = size / SHARK_REC;
	o->tail = (size_t)(size % SHARK_REC);
	buf = slot_buf(o, SCAN_CHUNK);
	if (!buf)
		return tk_err_nomem(err, o->name);
	for (a = 0; a < o->nslots; a = b) {
		b = o->nslots - a > SCAN_CHUNK ? a + SCAN_CHUNK : o->nslots;
		rc = read_slots(o, buf, a, b, err);
		if (rc < 0)
			goto out;
		scan_slots(o, &st, buf, b - a, a);
	}
	if (!o->descents) {
		o->clk_read = o->clk;
	} else if (o->descents == 1 && st.prev <= st.first) {
		/* one wrap: the oldest record follows the descent */
		o->rot = o->at;
		o->clk_read = st.after ? st.after : o->clk;
	} else {
		o->clk_read = st.min_clk;
		rc = o->descents < SHARK_MERGE_MAX ? set_runs(o, &st, err)
						   : sort_all(o, err);
		if (rc < 0)
			goto out;
	}
	o->cur = o->rot;
	o->lim = o->nslots;
	if (!o->runs) {
		o->buf = buf;
		buf = NULL;
	}
out:
	tk_bigbuf_free(buf);
	return rc;
}

/* Make a run's head ready: its next record read into its buffer (empty
 * slots skipped), or cur == end. */
static int run_head(shark_order *o, shark_run *u, tk_error *err)
{
	for (;;) {
		const uint8_t *q;
		if (u->cur == u->end) {
			u->ready = 1;
			return TK_OK;
		}
		if (u->cur >= u->wto) {
			uint64_t to = u->end - u->cur > RUN_CHUNK
				      ? u->cur + RUN_CHUNK : u->end;
			int rc = read_slots(o, u->buf, u->cur, to, err);
			if (rc < 0)
				return rc;
			u->wfrom = u->cur;
			u->wto = to;
		}
		q = u->buf + (u->cur - u->wfrom) * SHARK_REC;
		if (tk_load_le16(q) != 0) {
			u->head = shark_tsc(q);
			u->ready = 1;
			return TK_OK;
		}
		u->cur++;
	}
}

/*
 * The merged runs: the run with the smallest TSC at its head (the earliest
 * on a tie), and of it the records that come before the next smallest head
 * (the stretch ends at a record of that TSC unless the run is the earlier
 * one), up to the end of its buffer.  When the reader took only the first
 * records of the last stretch, the rest of it is the next stretch: the
 * other runs' heads are as they were and each record left came before
 * them, so it is handed out again without a second look at each record.
 */
static int peek_merged(shark_order *o, const uint8_t **pp, size_t *n,
		       uint64_t *slot, tk_error *err)
{
	shark_run *best = NULL, *next = NULL;
	const uint8_t *p;
	uint64_t k, lim;
	size_t r;

	best = o->peeked;
	if (best && best->cur < o->stop) {
		if (!best->ready) {
			int rc = run_head(o, best, err);
			if (rc < 0)
				return rc;
		}
		if (best->cur < o->stop) {
			*pp = best->buf + (best->cur - best->wfrom) * SHARK_REC;
			*n = (size_t)(o->stop - best->cur);
			*slot = best->cur;
			return TK_OK;
		}
	}
	best = NULL;
	for (r = 0; r < o->nruns; r++) {
		shark_run *u = &o->runs[r];
		if (!u->ready) {
			int rc = run_head(o, u, err);
			if (rc < 0)
				return rc;
		}
		if (u->cur == u->end)
			continue;
		if (!best || u->head < best->head) {
			next = best;
			best = u;
		} else if (!next || u->head < next->head) {
			next = u;
		}
	}
	if (!best)
		return TK_END;
	p = best->buf + (best->cur - best->wfrom) * SHARK_REC;
	lim = (best->wto < best->end ? best->wto : best->end) - best->cur;
	for (k = next ? 1 : lim; k < lim; k++) {
		const uint8_t *q = p + k * SHARK_REC;
		uint64_t t;
		if (tk_load_le16(q) == 0)
			continue;
		t = shark_tsc(q);
		if (t > next->head || (t == next->head && best > next))
			break;
	}
	o->peeked = best;
	o->stop = best->cur + k;
	*pp = p;
	*n = (size_t)k;
	*slot = best->cur;
	return TK_OK;
}

int shark_order_peek(shark_order *o, const uint8_t **p, size_t *n,
		     uint64_t *slot, tk_error *err)
{
	if (o->runs)
		return peek_merged(o, p, n, slot, err);
	if (o->sorted) {
		if (o->next >= o->nsorted)
			return TK_END;
		*slot = o->sorted[o->next];
		*p = o->base + *slot * SHARK_REC;
		*n = 1;
		return TK_OK;
	}
	/* the file from rot on: [rot, nslots), then [0, rot) */
	if (o->cur == o->lim) {
		if (o->part || !o->rot)
			return TK_END;
		o->part = 1;
		o->cur = 0;
		o->lim = o->rot;
	}
	if (o->cur < o->wfrom || o->cur >= o->wto) {
		uint64_t to = o->lim - o->cur > CHUNK ? o->cur + CHUNK : o->lim;
		int rc = read_slots(o, o->buf, o->cur, to, err);
		if (rc < 0)
			return rc;
		o->wfrom = o->cur;
		o->wto = to;
	}
	*n = (size_t)((o->wto < o->lim ? o->wto : o->lim) - o->cur);
	*p = o->buf + (o->cur - o->wfrom) * SHARK_REC;
	*slot = o->cur;
	return TK_OK;
}

void shark_order_take(shark_order *o, size_t k)
{
	if (!k)
		return;
	if (o->runs) {
		o->peeked->cur += k;
		o->peeked->ready = 0;
	} else if (o->sorted) {
		o->next += k;
	} else {
		o->cur += k;
	}
}

void shark_order_close(shark_order *o)
{
	tk_bigbuf_free(o->buf);
	tk_bigbuf_free(o->base);
	free(o->runs);
	free(o->sorted);
	memset(o, 0, sizeof(*o));
}
