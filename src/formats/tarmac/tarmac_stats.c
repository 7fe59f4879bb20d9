/*
 * tarmac_stats.c - record statistics of a Tarmac log (tracekit/tarmac.h):
 * the instruction mix, the hottest addresses, the durations of the
 * exceptions (from the exception events, fed in the same pass) and the
 * memory and bus traffic per 256 MB region.
 */
#include "tarmac.h"
#include "../../core/hashmap.h"

#include <stdlib.h>
#include <string.h>

/*
 * A 64-bit key (an address, a region) to its row: the library's map, after
 * a look at the row of the previous key (most accesses of a region follow
 * one another).
 */
typedef struct key_index {
	tk_hashmap map;
	uint64_t last_key;
	uint32_t last;            /* row index + 1 of the previous key, 0 none */
} key_index;

/* The row of `key`; a new key gets row n (*created = 1: the caller makes
 * it).  -1 when out of memory. */
static long index_row(key_index *x, uint64_t key, size_t n, int *created)
{
	uint32_t *v;

	*created = 0;
	if (x->last && x->last_key == key)
		return (long)x->last - 1;
	if (n >= UINT32_MAX - 1 || !(v = tk_hashmap_slot(&x->map, key, created)))
		return -1;
	if (*created)
		*v = (uint32_t)n;
	x->last_key = key;
	x->last = *v + 1;
	return (long)*v;
}

static void index_free(key_index *x)
{
	tk_hashmap_free(&x->map);
	memset(x, 0, sizeof(*x));
}

/* An exception entered and not yet returned from, on one core. */
typedef struct isr_open {
	uint32_t ent;
	uint64_t t;               /* its start */
	uint64_t seq;             /* starts before it, on all cores */
} isr_open;

typedef struct isr_stack {
	isr_open *e;
	size_t n, cap;
} isr_stack;

struct tk_tarmac_stats {
	unsigned what;
	const char *name;         /* the input's, for messages */
	tk_tarmac_unit unit;
	uint64_t backwards;       /* returns stamped before their entry */
	uint64_t executed, skipped, faulted;
	/* the mix: mnemonics interned (upper case), a count per id */
	tk_strpool mnems;
	uint64_t *mcount;
	size_t nmcount;
	tk_tarmac_mnemonic_count *mix;
	size_t nmix;
	/* the hottest addresses, first-seen order until finish sorts them */
	tk_tarmac_address_count *hot;
	size_t nhot, caphot;
	key_index hot_ix;
	/* traffic per region, in first-seen order (base = region << 28) */
	tk_tarmac_traffic *traffic;
	size_t ntraffic, captraffic;
	key_index traffic_ix;
	/* exceptions: the timeline's ISR events; rows in the order of their
	 * first complete instance (then those only open at the end, in the
	 * order they started), found through row_of (per entity: row + 1);
	 * open exceptions on the stack of their own core */
	tk_tarmac_exceptions *tl;
	int tl_rc;                /* the timeline's first error, kept for finish */
	tk_error tl_err;
	tk_tarmac_exception_stat *exc;
	size_t nexc, capexc;
	uint32_t *row_of;
	size_t nrow_of;
	isr_stack *stk;
	size_t nstk;
	uint64_t seq;
};

int tk_tarmac_stats_new(tk_tarmac_stats **out, const tk_tarmac *tr, unsigned what,
			const tk_tarmac_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_stats_new", "out pointer");
	tk_tarmac_stats *s;
	int rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tk_err_nomem(err, tk_tarmac_name(tr));
	tk_hash_init();
	s->what = what;
	s->name = tk_tarmac_name(tr);
	tk_strpool_init(&s->mnems);
	if (what & TK_TARMAC_STATS_EXCEPTIONS) {
		rc = tk_tarmac_exceptions_new(&s->tl, tr, opts, err);
		if (rc < 0) {
			tk_tarmac_stats_free(s);
			return rc;
		}
	}
	*out = s;
	return TK_OK;
}

/* A count per mnemonic: upper case, at most 23 bytes. */
static int mix_add(tk_tarmac_stats *s, const tk_tarmac_span *m)
{
	char key[24];
	size_t n = m->len < sizeof(key) - 1 ? m->len : sizeof(key) - 1, i;
	tk_str id;

	for (i = 0; i < n; i++) {
		char ch = m->ptr[i];
		key[i] = (ch >= 'a' && ch <= 'z') ? (char)(ch - 32) : ch;
	}
	key[n] = '\0';
	id = tk_strpool_intern(&s->mnems, key, n);
	if (id == TK_NONE ||
	    tk_grow_zero((void **)&s->mcount, &s->nmcount, id, sizeof(*s->mcount)) < 0)
		return -1;
	s->mcount[id]++;
	return 0;
}

static int hot_add(tk_tarmac_stats *s, uint64_t address)
{
	int created;
	long r = index_row(&s->hot_ix, address, s->nhot, &created);

	if (r < 0)
		return -1;
	if (created) {
		if (tk_grow_zero((void **)&s->hot, &s->caphot, s->nhot,
				 sizeof(*s->hot)) < 0)
			return -1;
		s->hot[s->nhot++].address = address;
	}
	s->hot[r].count++;
	return 0;
}

static int traffic_add(tk_tarmac_stats *s, const tk_tarmac_record *rec)
{
	uint64_t base = rec->address >> 28 << 28;
	int d = (rec->kind == TK_TARMAC_BUS ? TK_TARMAC_BUS_READ : TK_TARMAC_MEMORY_READ) +
		(rec->write ? 1 : 0);
	int created;
	long r = index_row(&s->traffic_ix, base, s->ntraffic, &created);
	tk_tarmac_traffic *t;

	if (r < 0)
		return -1;
	if (created) {
		if (tk_grow_zero((void **)&s->traffic, &s->captraffic,
				 s->ntraffic, sizeof(*s->traffic)) < 0)
			return -1;
		s->traffic[s->ntraffic++].base = base;
	}
	t = &s->traffic[r];
	t->count[d]++;
	t->bytes[d] += rec->size;
	return 0;
}

/* The row of exception entity `ent`, made when new; NULL when out of memory. */
static tk_tarmac_exception_stat *isr_row(tk_tarmac_stats *s, uint32_t ent)
{
	tk_tarmac_exception_stat *row;

	if (tk_grow_zero((void **)&s->row_of, &s->nrow_of, ent, sizeof(*s->row_of)) < 0)
		return NULL;
	if (s->row_of[ent])
		return &s->exc[s->row_of[ent] - 1];
	if (tk_grow_zero((void **)&s->exc, &s->capexc, s->nexc,
			 sizeof(*s->exc)) < 0)
		return NULL;
	row = &s->exc[s->nexc++];
	memset(row, 0, sizeof(*row));
	row->min = UINT64_MAX;       /* the name is set at finish */
	s->row_of[ent] = (uint32_t)s->nexc;
	return row;
}

/* One event of the timeline; -1 when out of memory. */
static int isr_event(tk_tarmac_stats *s, const tk_event *ev)
{
	tk_tarmac_exception_stat *row;
	isr_stack *st;
	size_t k;
	uint64_t d;

	if (ev->kind == TK_EV_START) {
		if (tk_grow_zero((void **)&s->stk, &s->nstk, ev->core, sizeof(*s->stk)) < 0)
			return -1;
		st = &s->stk[ev->core];
		if (tk_grow_zero((void **)&st->e, &st->cap, st->n,
				 sizeof(*st->e)) < 0)
			return -1;
		st->e[st->n].ent = ev->target;
		st->e[st->n].t = ev->time;
		st->e[st->n++].seq = s->seq++;
		return 0;
	}
	if (ev->kind != TK_EV_TERMINATE || ev->core >= s->nstk)
		return 0;
	st = &s->stk[ev->core];
	/* the timeline returns from its core's last entry: the top (entries
	 * a reset dropped stay below it, open) */
	for (k = st->n; k > 0 && st->e[k - 1].ent != ev->target; k--)
		;
	if (!k)
		return 0;
	d = ev->time >= st->e[k - 1].t ? ev->time - st->e[k - 1].t : 0;
	s->backwards += ev->time < st->e[k - 1].t;
	memmove(&st->e[k - 1], &st->e[k], (st->n - k) * sizeof(*st->e));
	st->n--;
	if (!(row = isr_row(s, ev->target)))
		return -1;
	row->count++;
	row->total += d;
	if (d < row->min)
		row->min = d;
	if (d > row->max)
		row->max = d;
	return 0;
}

static int isr_drain(tk_tarmac_stats *s)
{
	const tk_event *ev;

	while (tk_tarmac_exceptions_next(s->tl, &ev) == TK_OK)
		if (isr_event(s, ev) < 0)
			return -1;
	return 0;
}

int tk_tarmac_stats_record(tk_tarmac_stats *s, const tk_tarmac_record *rec,
			   tk_error *err)
{
	if (!s || !rec)
		return tk_err_null(err, "tk_tarmac_stats_record", !s ? "object" : "record");
	if (s->tl && s->tl_rc == TK_OK) {
		/* an error of the timeline (strict mode: a stamp of another
		 * unit) is kept for finish, after those of the records */
		s->tl_rc = tk_tarmac_exceptions_record(s->tl, rec, &s->tl_err);
		if (s->tl_rc > 0) {
			s->tl_rc = TK_OK;
			if (isr_drain(s) < 0)
				return tk_err_nomem(err, s->name);
		}
	}
	if (rec->own_time && s->unit == TK_TARMAC_UNIT_NONE)
		s->unit = rec->unit;
	if (rec->kind == TK_TARMAC_INSTRUCTION) {
		if (!rec->executed) {
			/* IE and an ES whose fetch failed: a prefetch abort;
			 * IS and CCFAIL: the condition failed */
			if (rec->status == 'E')
				s->faulted++;
			else
				s->skipped++;
			return TK_OK;
		}
		s->executed++;
		if (((s->what & TK_TARMAC_STATS_MIX) && rec->mnemonic.len &&
		     mix_add(s, &rec->mnemonic) < 0) ||
		    ((s->what & TK_TARMAC_STATS_HOT) && hot_add(s, rec->address) < 0))
			return tk_err_nomem(err, s->name);
	} else if ((s->what & TK_TARMAC_STATS_TRAFFIC) &&
		   (rec->kind == TK_TARMAC_MEMORY || rec->kind == TK_TARMAC_BUS) &&
		   rec->has_address && !rec->aborted) {
		if (traffic_add(s, rec) < 0)
			return tk_err_nomem(err, s->name);
	}
	return TK_OK;
}

static int cmp_open_seq(const void *x, const void *y)
{
	const isr_open *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* At the end of the log: entered and not returned is open at the end, like
 * an instance of a cut trace; counted, not given a made-up duration.  New
 * rows come in the order the exceptions started, on all cores. */
static int isr_end(tk_tarmac_stats *s)
{
	isr_open *all = NULL;
	tk_tarmac_exception_stat *row;
	size_t i, n = 0;
	int ret = -1;

	for (i = 0; i < s->nstk; i++)
		n += s->stk[i].n;
	if (!n)
		return 0;
	all = tk_xrealloc_array(NULL, n, sizeof(*all));
	if (!all)
		goto cleanup;
	for (i = 0, n = 0; i < s->nstk; i++) {
		if (s->stk[i].n)
			memcpy(&all[n], s->stk[i].e, s->stk[i].n * sizeof(*all));
		n += s->stk[i].n;
	}
	qsort(all, n, sizeof(*all), cmp_open_seq);
	for (i = 0; i < n; i++) {
		if (!(row = isr_row(s, all[i].ent)))
			goto cleanup;
		row->open++;
	}
	ret = 0;
cleanup:
	free(all);
	return ret;
}

static int cmp_mix(const void *x, const void *y)
{
	const tk_tarmac_mnemonic_count *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->mnemonic, b->mnemonic);
}

static int cmp_hot(const void *x, const void *y)
{
	const tk_tarmac_address_count *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->address < b->address ? -1 : a->address > b->address;
}

int tk_tarmac_stats_finish(tk_tarmac_stats *s, tk_error *err)
{
	size_t i, n, len;

	if (s->tl) {
		if (s->tl_rc < 0) {
			if (err)
				*err = s->tl_err;
			return s->tl_rc;
		}
		tk_tarmac_exceptions_finish(s->tl);
		if (isr_drain(s) < 0 || isr_end(s) < 0)
			return tk_err_nomem(err, s->name);
		for (i = 0; i < s->nrow_of; i++)
			if (s->row_of[i]) {
				const tk_trace *t = tk_tarmac_exceptions_trace(s->tl);
				const tk_entity *en = tk_trace_entity(t, (uint32_t)i);
				tk_tarmac_exception_stat *row = &s->exc[s->row_of[i] - 1];
				row->name = en ? tk_trace_str(t, en->name, NULL) : "?";
				if (!row->count)
					row->min = 0;
			}
	}
	n = s->mnems.count;
	free(s->mix);
	s->mix = tk_xrealloc_array(NULL, n ? n : 1, sizeof(*s->mix));
	if (!s->mix)
		return tk_err_nomem(err, s->name);
	for (i = 0; i < n; i++) {
		s->mix[i].mnemonic = tk_strpool_get(&s->mnems, (tk_str)i, &len);
		s->mix[i].count = s->mcount[i];
	}
	s->nmix = n;
	qsort(s->mix, s->nmix, sizeof(*s->mix), cmp_mix);
	if (s->nhot)
		qsort(s->hot, s->nhot, sizeof(*s->hot), cmp_hot);
	/* the index no longer matches the sorted rows */
	index_free(&s->hot_ix);
	return TK_OK;
}

uint64_t tk_tarmac_stats_executed(const tk_tarmac_stats *s)
{
	return s->executed;
}

uint64_t tk_tarmac_stats_skipped(const tk_tarmac_stats *s)
{
	return s->skipped;
}

uint64_t tk_tarmac_stats_faulted(const tk_tarmac_stats *s)
{
	return s->faulted;
}

uint64_t tk_tarmac_stats_backwards(const tk_tarmac_stats *s)
{
	return s->backwards;
}

tk_tarmac_unit tk_tarmac_stats_unit(const tk_tarmac_stats *s)
{
	return s->unit;
}

size_t tk_tarmac_stats_mix(const tk_tarmac_stats *s,
			   const tk_tarmac_mnemonic_count **rows)
{
	*rows = s->mix;
	return s->nmix;
}

size_t tk_tarmac_stats_hottest(const tk_tarmac_stats *s,
			       const tk_tarmac_address_count **rows)
{
	*rows = s->hot;
	return s->nhot;
}

size_t tk_tarmac_stats_exceptions(const tk_tarmac_stats *s,
				  const tk_tarmac_exception_stat **rows)
{
	*rows = s->exc;
	return s->nexc;
}

size_t tk_tarmac_stats_traffic(const tk_tarmac_stats *s,
			       const tk_tarmac_traffic **rows)
{
	*rows = s->traffic;
	return s->ntraffic;
}

void tk_tarmac_stats_free(tk_tarmac_stats *s)
{
	size_t i;

	if (!s)
		return;
	tk_tarmac_exceptions_free(s->tl);
	tk_strpool_free(&s->mnems);
	free(s->mcount);
	free(s->mix);
	free(s->hot);
	index_free(&s->hot_ix);
	free(s->traffic);
	index_free(&s->traffic_ix);
	free(s->exc);
	free(s->row_of);
	for (i = 0; i < s->nstk; i++)
		free(s->stk[i].e);
	free(s->stk);
	free(s);
}
