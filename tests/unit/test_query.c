/* test_query.c - the query of tk_reader_opts (a time window, entity, type
 * and event filters): on every trace named on the command line (inputs of
 * every readable format), reading with a query gives exactly the events
 * that reading without one and filtering by hand gives, through
 * tk_reader_next() and tk_reader_next_batch() alike; and reading stops at
 * the window's end where the options say so (tk_reader_decoded_count()
 * shows what was not decoded), and nowhere else. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>

typedef struct rec {
	uint64_t time, pos;
	uint32_t source, target;
	tk_etype type;
	tk_evkind kind;
	tk_str name, type_name;
} rec;

typedef struct recs {
	rec *v;
	size_t n, cap;
	uint64_t decoded;
	int rc;
} recs;

static void push(recs *a, const tk_event *ev)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			abort();
	}
	a->v[a->n].time = ev->time;
	a->v[a->n].pos = ev->pos;
	a->v[a->n].source = ev->source;
	a->v[a->n].target = ev->target;
	a->v[a->n].type = ev->type;
	a->v[a->n].kind = ev->kind;
	a->v[a->n].name = ev->name;
	a->v[a->n].type_name = ev->type_name;
	a->n++;
}

/* every event of src (a path, or len bytes at mem) read with o; batch 0:
 * tk_reader_next(), else tk_reader_next_batch() of at most `batch`.  The
 * reader is handed back open in *keep when keep is not NULL. */
static recs read_with(const char *path, const char *mem, size_t len,
		      const tk_reader_opts *o, size_t batch, tk_reader **keep)
{
	recs a = { NULL, 0, 0, 0, 0 };
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t n, i;
	int rc;

	rc = mem ? tk_reader_open_mem(&r, mem, len, path, o, &err)
		 : tk_reader_open(&r, path, o, &err);
	if (rc < 0) {
		a.rc = rc;
		return a;
	}
	if (!batch) {
		while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
			push(&a, ev);
	} else {
		while ((rc = tk_reader_next_batch(r, &ev, &n, batch, &err)) == TK_OK) {
			CHECK(n >= 1 && n <= batch);
			for (i = 0; i < n; i++)
				push(&a, &ev[i]);
		}
		CHECK(rc != TK_END || n == 0);
	}
	a.rc = rc == TK_END ? TK_OK : rc;
	a.decoded = tk_reader_decoded_count(r);
	if (keep)
		*keep = r;
	else
		tk_reader_close(r);
	return a;
}

/* what a query keeps, by hand */
typedef struct want {
	int has_start, has_end;
	uint64_t start, end;        /* ticks, [start, end) */
	uint32_t entity;            /* TK_NONE: none; else the id */
	int has_entity;
	const char *type, *event;   /* NULL: none */
} want;

static int str_is(const tk_trace *t, tk_str s, const char *w)
{
	size_t n;
	const char *p;

	if (s == TK_NONE)
		return 0;
	p = tk_trace_str(t, s, &n);
	return strlen(w) == n && memcmp(p, w, n) == 0;
}

static int keeps(const want *w, const tk_trace *t, const rec *e)
{
	if (w->has_start && e->time < w->start)
		return 0;
	if (w->has_end && e->time >= w->end)
		return 0;
	if (w->has_entity && (w->entity == TK_NONE ||
			      (e->source != w->entity && e->target != w->entity)))
		return 0;
	if (w->type && strcmp(w->type, tk_etype_name(e->type)) != 0 &&
	    !str_is(t, e->type_name, w->type))
		return 0;
	if (w->event && !(e->kind != TK_EV_OTHER &&
			  strcmp(w->event, tk_evkind_name(e->kind)) == 0) &&
	    !str_is(t, e->name, w->event))
		return 0;
	return 1;
}

static int same(const rec *a, const rec *b)
{
	return a->time == b->time && a->pos == b->pos &&
	       a->source == b->source && a->target == b->target &&
	       a->type == b->type && a->kind == b->kind &&
	       a->name == b->name && a->type_name == b->type_name;
}

/* the query o (which w describes) on path: the same events as all[]
 * filtered by w, one by one and in batches */
static void compare(const char *path, const char *what, const recs *all,
		    const tk_trace *t, const tk_reader_opts *o, const want *w)
{
	static const size_t batches[] = { 0, 1, 7, 4096 };
	size_t b, i, k;

	for (b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		recs got = read_with(path, NULL, 0, o, batches[b], NULL);
		int ok = got.rc == TK_OK;

		for (i = 0, k = 0; ok && i < all->n; i++) {
			if (!keeps(w, t, &all->v[i]))
				continue;
			ok = k < got.n && same(&got.v[k], &all->v[i]);
			k++;
		}
		ok = ok && k == got.n;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  %s: query %s, batch %zu: %zu events (rc %d), %zu wanted\n",
				path, what, batches[b], got.n, got.rc, k);
		free(got.v);
	}
}

static void one_trace(const char *path)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_trace *t;
	recs all;
	want w;
	const rec *mid;
	const char *ent_names[2], *type_names[1], *event_names[2];
	uint64_t lo, hi;
	size_t i, n;
	int ordered = 1;

	tk_reader_opts_init(&o);
	all = read_with(path, NULL, 0, &o, 0, &r);
	CHECK(all.rc == TK_OK);
	if (all.rc != TK_OK || !all.n) {
		fprintf(stderr, "  %s: %zu events, rc %d\n", path, all.n, all.rc);
		tk_reader_close(r);
		free(all.v);
		return;
	}
	CHECK_EQ_U64(all.decoded, all.n);
	t = tk_reader_trace(r);
	n = all.n;
	for (i = 1; i < n; i++)
		ordered &= all.v[i].time >= all.v[i - 1].time;
	lo = all.v[n / 3].time;
	hi = all.v[2 * n / 3].time;
	mid = &all.v[n / 2];

	/* a window in ticks: half-open, then closed */
	memset(&w, 0, sizeof(w));
	w.has_start = w.has_end = 1;
	w.start = lo;
	w.end = hi;
	o.has_start = o.has_end = 1;
	o.start = lo;
	o.end = hi;
	compare(path, "[lo, hi)", &all, t, &o, &w);
	o.end_closed = 1;
	w.end = hi + 1;
	compare(path, "[lo, hi]", &all, t, &o, &w);
	/* the start alone, the end alone */
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	o.has_start = w.has_start = 1;
	o.start = w.start = hi;
	compare(path, "[hi, ...)", &all, t, &o, &w);
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	o.has_end = w.has_end = 1;
	o.end = w.end = lo;
	compare(path, "[..., lo)", &all, t, &o, &w);
	/* the times stop reading where the file's are ordered: the same
	 * events */
	if (ordered) {
		o.window_stop = TK_STOP_ALWAYS;
		compare(path, "[..., lo) stopping", &all, t, &o, &w);
	}
	/* an empty window */
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	o.has_start = o.has_end = w.has_start = w.has_end = 1;
	o.start = o.end = w.start = w.end = lo;
	compare(path, "[lo, lo)", &all, t, &o, &w);

	/* an entity (the target of the middle event), and one no event names */
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	ent_names[0] = tk_trace_str(t, tk_trace_entity(t, mid->target)->name, NULL);
	ent_names[1] = "no such entity \x01";
	o.entities = ent_names;
	o.nentities = 1;
	w.has_entity = 1;
	w.entity = mid->target;
	compare(path, "entity", &all, t, &o, &w);
	o.entities = ent_names + 1;
	w.entity = TK_NONE;
	compare(path, "unknown entity", &all, t, &o, &w);

	/* a type by its canonical name, an event by its name as written */
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	type_names[0] = tk_etype_name(mid->type);
	o.types = type_names;
	o.ntypes = 1;
	w.type = type_names[0];
	compare(path, "type", &all, t, &o, &w);
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	event_names[0] = mid->name != TK_NONE ? tk_trace_str(t, mid->name, NULL)
					      : tk_evkind_name(mid->kind);
	o.events = event_names;
	o.nevents = 1;
	w.event = event_names[0];
	compare(path, "event", &all, t, &o, &w);
	/* which event names named an event, whatever the entity filter
	 * (here one no event names): the first yes, a misspelt one no */
	{
		const char *names2[2] = { event_names[0], "no such event \x01" };
		tk_reader *r2 = NULL;
		recs got;

		o.events = names2;
		o.nevents = 2;
		o.entities = ent_names + 1;
		o.nentities = 1;
		got = read_with(path, NULL, 0, &o, 0, &r2);
		CHECK(got.rc == TK_OK && got.n == 0);
		CHECK(tk_reader_event_name_seen(r2, 0) == 1);
		CHECK(tk_reader_event_name_seen(r2, 1) == 0);
		CHECK(tk_reader_event_name_seen(r2, 2) == -1);
		CHECK(tk_reader_event_name_seen(r, 0) == -1);
		CHECK(tk_reader_event_name_seen(NULL, 0) == -1);
		tk_reader_close(r2);
		free(got.v);
	}

	/* all at once: window, entity, type, event kind's canonical name */
	tk_reader_opts_init(&o);
	memset(&w, 0, sizeof(w));
	o.has_start = o.has_end = w.has_start = w.has_end = 1;
	o.start = w.start = lo;
	o.end = w.end = hi + 1;
	o.entities = ent_names;
	o.nentities = 1;
	w.has_entity = 1;
	w.entity = mid->target;
	o.types = type_names;
	o.ntypes = 1;
	w.type = type_names[0];
	event_names[1] = tk_evkind_name(mid->kind);
	o.events = event_names;
	o.nevents = 2;
	w.event = NULL; /* either name: checked below by hand */
	{
		recs got = read_with(path, NULL, 0, &o, 3, NULL);
		size_t k = 0;
		int ok = got.rc == TK_OK;
		for (i = 0; ok && i < n; i++) {
			const rec *e = &all.v[i];
			if (!keeps(&w, t, e))
				continue;
			if (!str_is(t, e->name, event_names[0]) &&
			    !(e->kind != TK_EV_OTHER &&
			      strcmp(tk_evkind_name(e->kind), event_names[1]) == 0))
				continue;
			ok = k < got.n && same(&got.v[k], e);
			k++;
		}
		CHECK(ok && k == got.n);
		/* the middle event itself, where the times are ordered */
		CHECK(!ordered || got.n >= 1);
		free(got.v);
	}
	tk_reader_close(r);
	free(all.v);
}

/* a BTF trace of n events, one per ns, times in order */
static char *make_btf(size_t n, size_t *len)
{
	size_t cap = 128 + n * 48, k;
	char *s = malloc(cap);
	size_t i;

	if (!s)
		abort();
	k = (size_t)snprintf(s, cap, "#version 2.3.0\n#creator test_query\n#timescale ns\n");
	for (i = 0; i < n; i += 2)
		k += (size_t)snprintf(s + k, cap - k,
				      "%zu,Core_1,0,T,Task_%zu,0,start\n"
				      "%zu,Core_1,0,T,Task_%zu,0,terminate\n",
				      i, i % 64, i + 1, i % 64);
	*len = k;
	return s;
}

/* reading stops at the window's end where the options say so */
static void stops(const char *shark)
{
	const size_t n = 200000;
	size_t len, i;
	char *btf = make_btf(n, &len);
	tk_reader_opts o;
	recs a;

	/* [100, 200) of a BTF trace whose times are ordered */
	tk_reader_opts_init(&o);
	o.has_start = o.has_end = 1;
	o.start = 100;
	o.end = 200;
	/* lenient: a later time may decrease (kept in file order), so the
	 * whole input is read */
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK(a.rc == TK_OK);
	CHECK_EQ_U64(a.n, 100);
	CHECK_EQ_U64(a.decoded, n);
	for (i = 0; i < a.n; i++)
		CHECK_EQ_U64(a.v[i].time, 100 + i);
	free(a.v);
	/* strict: a decrease would be an error, so reading stops */
	o.strict = 1;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK(a.rc == TK_OK);
	CHECK_EQ_U64(a.n, 100);
	CHECK(a.decoded > 200 - 1 && a.decoded < n / 10);
	free(a.v);
	a = read_with("gen.btf", btf, len, &o, 64, NULL);
	CHECK(a.rc == TK_OK);
	CHECK_EQ_U64(a.n, 100);
	CHECK(a.decoded < n / 10);
	free(a.v);
	/* TK_STOP_NEVER reads it all, TK_STOP_ALWAYS stops in lenient mode */
	o.window_stop = TK_STOP_NEVER;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, 100);
	CHECK_EQ_U64(a.decoded, n);
	free(a.v);
	o.strict = 0;
	o.window_stop = TK_STOP_ALWAYS;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, 100);
	CHECK(a.decoded < n / 10);
	free(a.v);
	/* an empty window where reading stops: nothing is decoded */
	o.end = 100;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, 0);
	CHECK_EQ_U64(a.decoded, 0);
	free(a.v);

	/* exact times: [2 us, 3500 ns) and a start of 1500 ps, rounded up
	 * to the tick after it, closed end 2 ns */
	tk_reader_opts_init(&o);
	o.has_start = o.has_end = 1;
	o.start = 2;
	o.start_unit = TK_UNIT_US;
	o.end = 3500;
	o.end_unit = TK_UNIT_NS;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, 1500);
	CHECK(a.n && a.v[0].time == 2000 && a.v[a.n - 1].time == 3499);
	free(a.v);
	o.start = 1500;
	o.start_unit = TK_UNIT_PS;
	o.end = 2;
	o.end_unit = TK_UNIT_NS;
	o.end_closed = 1;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, 1);
	CHECK(a.n && a.v[0].time == 2);
	free(a.v);
	/* a start beyond the last tick keeps nothing; an end beyond it is
	 * no end */
	tk_reader_opts_init(&o);
	o.has_start = 1;
	o.start = UINT64_MAX;
	o.start_unit = TK_UNIT_S;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK(a.rc == TK_OK);
	CHECK_EQ_U64(a.n, 0);
	free(a.v);
	tk_reader_opts_init(&o);
	o.has_end = 1;
	o.end = UINT64_MAX;
	o.end_unit = TK_UNIT_S;
	a = read_with("gen.btf", btf, len, &o, 0, NULL);
	CHECK_EQ_U64(a.n, n);
	free(a.v);
	/* bad queries */
	{
		tk_reader *r = NULL;
		tk_error err;
		tk_reader_opts_init(&o);
		o.has_start = 1;
		o.start_unit = 9;
		CHECK(tk_reader_open_mem(&r, btf, len, "gen.btf", &o, &err) == TK_E_USAGE);
		CHECK(r == NULL);
		tk_reader_opts_init(&o);
		o.nentities = 1;
		CHECK(tk_reader_open_mem(&r, btf, len, "gen.btf", &o, &err) == TK_E_USAGE);
		tk_reader_opts_init(&o);
		o.has_end = 1;
		o.window_stop = 3;
		CHECK(tk_reader_open_mem(&r, btf, len, "gen.btf", &o, &err) == TK_E_USAGE);
	}
	free(btf);

	/* S.Ha.R.K. dumps are read in time order: a window at the start
	 * stops reading early by default */
	if (shark) {
		tk_reader_opts_init(&o);
		a = read_with(shark, NULL, 0, &o, 0, NULL);
		CHECK(a.rc == TK_OK && a.n > 100);
		if (a.rc == TK_OK && a.n > 100) {
			uint64_t total = a.n, end = a.v[a.n / 20].time + 1;
			size_t nwant = 0;
			for (i = 0; i < a.n; i++)
				nwant += a.v[i].time < end;
			free(a.v);
			o.has_end = 1;
			o.end = end;
			a = read_with(shark, NULL, 0, &o, 0, NULL);
			CHECK(a.rc == TK_OK);
			CHECK_EQ_U64(a.n, nwant);
			CHECK(a.decoded < total);
			fprintf(stderr, "  %s: %zu of %llu events, %llu decoded\n",
				shark, a.n, (unsigned long long)total,
				(unsigned long long)a.decoded);
			o.window_stop = TK_STOP_NEVER;
			free(a.v);
			a = read_with(shark, NULL, 0, &o, 0, NULL);
			CHECK_EQ_U64(a.n, nwant);
			CHECK_EQ_U64(a.decoded, total);
		}
		free(a.v);
	}
}

int main(int argc, char **argv)
{
	const char *shark = NULL;
	int i;

	/* test_query [--shark DUMP] TRACE... */
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--shark") == 0 && i + 1 < argc) {
			shark = argv[++i];
			continue;
		}
		one_trace(argv[i]);
	}
	stops(shark);
	TEST_DONE();
}
