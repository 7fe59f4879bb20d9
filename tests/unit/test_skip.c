/* test_skip.c - a query's window skipped ahead to (issue 39): the HTF and
 * S.Ha.R.K. readers take the records before the window's start through
 * their state alone (tk_format_ops.reader_skip).  On every trace named on
 * the command line, and on HTF traces made here (several cores, a core in
 * two sections, bursts of equal times, more sections than the sorted
 * heads hold, comment lines, a time that decreases), a window starting at
 * many points (0, each event's time and the next tick at spread
 * positions, inside bursts of equal times, past the end) gives every field
 * of the events of a full read whose times are at or after the start
 * (instances, sources, cores, notes and all), through tk_reader_next()
 * and tk_reader_next_batch() alike, with the same entity table (names,
 * types, parents), header and warnings; and the records before the start
 * are not decoded into events (tk_reader_decoded_count() is the full
 * count less the events before the first at or after the start, for the
 * readers that skip).
 * Usage: test_skip [--div N] [--strict] FILE... (--strict: the files
 * after it are read in strict mode; --div N: the traces made here have N
 * times fewer records a core, as the sanitized and the coverage builds
 * run it, unless TK_TEST_FULL is set) */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rec {
	tk_event ev;
	char *note;
} rec;

typedef struct recs {
	rec *v;
	size_t n, cap;
	uint64_t decoded, warnings;
	int rc;
	/* a window's read compared as it comes with `want`'s events at or
	 * after `start` (none stored): the first that differs, as the
	 * window's k-th event and the trace's i-th */
	const struct recs *want;
	uint64_t start;
	size_t wi, bad_k, bad_i;
	int differs;
	/* the entity table after the read */
	uint32_t nents;
	tk_entity *ents;
	size_t nheader;
	const char *format;
} recs;

static int same_ev(const tk_event *a, const rec *y);

static void push(recs *a, const tk_event *ev)
{
	rec *r;

	if (a->want) {
		const recs *w = a->want;
		while (a->wi < w->n && w->v[a->wi].ev.time < a->start)
			a->wi++;
		if (!a->differs && (a->wi >= w->n || !same_ev(ev, &w->v[a->wi]))) {
			a->differs = 1;
			a->bad_k = a->n;
			a->bad_i = a->wi;
		}
		a->wi++;
		a->n++;
		return;
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			abort();
	}
	r = &a->v[a->n++];
	r->ev = *ev;
	r->note = NULL;
	if (ev->note_len) {
		r->note = malloc(ev->note_len);
		if (!r->note)
			abort();
		memcpy(r->note, ev->note, ev->note_len);
	}
	r->ev.note = NULL;
}

static void recs_free(recs *a)
{
	size_t i;

	for (i = 0; a->v && i < a->n; i++)
		free(a->v[i].note);
	free(a->v);
	free(a->ents);
	memset(a, 0, sizeof(*a));
}

/* every event of path (or len bytes at mem) read with a window from
 * `start` (has_start 0: no query), one by one (batch 0) or in batches */
static recs read_from(const char *path, const char *mem, size_t len,
		      int strict, int has_start, uint64_t start, size_t batch,
		      const recs *want)
{
	recs a;
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t n, i;
	uint32_t k;
	int rc;

	memset(&a, 0, sizeof(a));
	a.want = want;
	a.start = start;
	tk_reader_opts_init(&o);
	o.strict = strict;
	o.has_start = has_start;
	o.start = start;
	rc = mem ? tk_reader_open_mem(&r, mem, len, path, &o, &err)
		 : tk_reader_open(&r, path, &o, &err);
	if (rc < 0) {
		a.rc = rc;
		return a;
	}
	if (!batch) {
		while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
			push(&a, ev);
	} else {
		while ((rc = tk_reader_next_batch(r, &ev, &n, batch, &err)) == TK_OK)
			for (i = 0; i < n; i++)
				push(&a, &ev[i]);
	}
	a.rc = rc == TK_END ? TK_OK : rc;
	a.decoded = tk_reader_decoded_count(r);
	a.warnings = tk_reader_warning_count(r);
	a.format = tk_reader_format(r);
	a.nents = (uint32_t)tk_trace_entity_count(tk_reader_trace(r));
	a.ents = calloc(a.nents + 1, sizeof(*a.ents));
	if (!a.ents)
		abort();
	for (k = 0; k < a.nents; k++)
		a.ents[k] = *tk_trace_entity(tk_reader_trace(r), k);
	a.nheader = tk_trace_header_count(tk_reader_trace(r));
	tk_reader_close(r);
	return a;
}

static int same_ev(const tk_event *a, const rec *y)
{
	const tk_event *b = &y->ev;

	return a->time == b->time && a->pos == b->pos &&
	       a->source == b->source && a->target == b->target &&
	       a->source_inst == b->source_inst &&
	       a->target_inst == b->target_inst && a->type == b->type &&
	       a->type_name == b->type_name && a->kind == b->kind &&
	       a->name == b->name && a->core == b->core &&
	       a->note_len == b->note_len &&
	       (!a->note_len || memcmp(a->note, y->note, a->note_len) == 0);
}

static int same_ent(const tk_entity *a, const tk_entity *b)
{
	return a->name == b->name && a->type == b->type &&
	       a->type_name == b->type_name && a->parent == b->parent;
}

/* the window from `start` on what (full: its unwindowed read) */
static void check_start(const char *what, const char *mem, size_t len,
			int strict, const recs *full, uint64_t start)
{
	static const size_t batches[] = { 0, 1, 7, 4096 };
	size_t b, i, k, before;
	int skips = !strcmp(full->format, "htf") || !strcmp(full->format, "shark");

	/* the events before the first at or after the start: what a reader
	 * that skips takes without making them */
	for (before = 0; before < full->n && full->v[before].ev.time < start;
	     before++)
		;
	for (b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		recs got = read_from(what, mem, len, strict, 1, start,
				     batches[b], full);
		tk_test_checks++;
		int ok = got.rc == full->rc && got.warnings == full->warnings &&
			 got.nents == full->nents &&
			 got.nheader == full->nheader;
		uint32_t e;

		if (ok && got.differs) {
			ok = 0;
			fprintf(stderr, "  event %zu of the window (%zu of the trace) differs\n",
				got.bad_k, got.bad_i);
		}
		for (i = 0, k = 0; i < full->n; i++)
			k += full->v[i].ev.time >= start;
		ok = ok && k == got.n;
		for (e = 0; ok && e < full->nents; e++) {
			ok = same_ent(&got.ents[e], &full->ents[e]);
			if (!ok)
				fprintf(stderr, "  entity %u differs (parent %u, not %u)\n",
					e, got.ents[e].parent,
					full->ents[e].parent);
		}
		if (ok && skips && full->rc == TK_OK)
			ok = got.decoded == full->n - before;
		if (!ok) {
			fprintf(stderr,
				"FAIL %s: start %llu, batch %zu: %zu events (want %zu), rc %d/%d, warnings %llu/%llu, entities %u/%u, decoded %llu (want %zu)\n",
				what, (unsigned long long)start, batches[b],
				got.n, full->n - before, got.rc, full->rc,
				(unsigned long long)got.warnings,
				(unsigned long long)full->warnings, got.nents,
				full->nents, (unsigned long long)got.decoded,
				skips ? full->n - before : (size_t)full->decoded);
			tk_test_failures++;
		}
		recs_free(&got);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* windows from many starts on what (a file, or len bytes at mem) */
static void check_trace(const char *what, const char *mem, size_t len,
			int strict)
{
	recs full = read_from(what, mem, len, strict, 0, 0, 4096, NULL);
	uint64_t starts[64], last = 0;
	size_t ns = 0, i, j;
	const size_t spread = 16;

	if (full.rc < 0 && full.n == 0) {
		fprintf(stderr, "FAIL %s: cannot be read (%d)\n", what, full.rc);
		tk_test_failures++;
		return;
	}
	starts[ns++] = 0;
	starts[ns++] = 1;
	for (i = 0; i < full.n; i++)
		if (full.v[i].ev.time > last)
			last = full.v[i].ev.time;
	starts[ns++] = last;
	if (last < UINT64_MAX) {
		starts[ns++] = last + 1;  /* past the end */
	}
	starts[ns++] = UINT64_MAX;
	/* each event's time and the next tick at spread positions */
	for (j = 1; full.n && j < spread; j++) {
		uint64_t t = full.v[j * full.n / spread].ev.time;
		starts[ns++] = t;
		if (t < UINT64_MAX)
			starts[ns++] = t + 1;
	}
	/* inside bursts of equal times: the time of an event whose
	 * neighbour has it too (a window that starts there keeps the whole
	 * burst) */
	for (i = 1, j = 0; i < full.n && j < 8; i++)
		if (full.v[i].ev.time == full.v[i - 1].ev.time &&
		    (j == 0 || full.v[i].ev.time != starts[ns - 1]) &&
		    i % 3 == 0) {
			starts[ns++] = full.v[i].ev.time;
			j++;
		}
	qsort(starts, ns, sizeof(*starts), cmp_u64);
	for (i = 0; i < ns; i++)
		if (i == 0 || starts[i] != starts[i - 1])
			check_start(what, mem, len, strict, &full, starts[i]);
	recs_free(&full);
}

/* ---- HTF traces made here ----------------------------------------------- */

typedef struct buf {
	char *p;
	size_t n, cap;
} buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < b->cap - b->n)
			break;
		b->cap = 2 * b->cap + (size_t)n + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	b->n += (size_t)n;
}

#define NTASK 6
#define NRUN 6
/* entity ids: tasks 0.., runnables 0x10.., ISR 0x20, signal 0x21 */

/*
 * An HTF trace of `cores` cores, `per` records each: on each core, tasks
 * that activate, start, run a runnable, are preempted and resumed, and
 * terminate (a task may move to another core), an ISR, signal accesses;
 * times advance by 0..3 ticks (many equal, within a section and across
 * them).  split: the first core's records in two sections ("#-0" twice);
 * comments: a comment line every 37 records (the line-at-a-time path,
 * lenient); decrease: one record of the last core whose time goes back
 * (lenient).
 */
static buf make_htf(unsigned cores, unsigned per, int split, int comments,
		    int decrease)
{
	buf b = { NULL, 0, 0 };
	unsigned c, i, k;
	uint32_t x = 12345;

	put(&b, "#Format HTF\n#Version 1.0\n#NumberOfCores %u\n#TimeScale ns\n"
		"#TimestampLength 4\n#EntityLength 2\n#EventLength 1\n\n",
	    cores);
	put(&b, "#TypeTable\n#-00 Task\n#-01 ISR\n#-02 Runnable\n#-04 Signal\n\n"
		"#TaskEventTable\n#-00 activate\n#-01 start\n#-02 resume\n"
		"#-03 preempt\n#-04 terminate\n\n"
		"#ISREventTable\n#-00 start\n#-03 terminate\n\n"
		"#RunnableEventTable\n#-00 start\n#-01 suspend\n#-02 resume\n"
		"#-03 terminate\n\n"
		"#SignalEventTable\n#-00 read\n#-01 write\n\n#EntityTable\n");
	for (k = 0; k < NTASK; k++)
		put(&b, "#-%02X Task_%u\n", k, k);
	for (k = 0; k < NRUN; k++)
		put(&b, "#-%02X Run_%u\n", 0x10 + k, k);
	put(&b, "#-20 Isr_0\n#-21 Sig_0\n\n#EntityTypeTable\n");
	for (k = 0; k < NTASK; k++)
		put(&b, "#-%02X 00\n", k);
	for (k = 0; k < NRUN; k++)
		put(&b, "#-%02X 02\n", 0x10 + k);
	put(&b, "#-20 01\n#-21 04\n\n#TraceData\n");
	for (c = 0; c < cores; c++) {
		uint32_t t = 0;
		/* the cycle of core c: activate, start, runnable start, signal,
		 * preempt, ISR, resume, runnable terminate, terminate */
		static const struct { unsigned ent, ev; } cyc[] = {
			{ 0, 0 }, { 0, 1 }, { 0x10, 0 }, { 0x21, 1 },
			{ 0, 3 }, { 0x20, 0 }, { 0x20, 3 }, { 0, 2 },
			{ 0x21, 0 }, { 0x10, 3 }, { 0, 4 },
		};
		const unsigned ncyc = sizeof(cyc) / sizeof(cyc[0]);
		put(&b, "#-%X\n", c);
		for (i = 0; i < per; i++) {
			unsigned step = i % ncyc, task, ent;
			if (split && c == 0 && i == per / 2)
				put(&b, "#-%X\n#-0\n", cores - 1);
			x = x * 1103515245u + 12345u;
			t += (x >> 16) % 4;
			/* the task of this cycle: moves between cores */
			task = (c + i / ncyc) % NTASK;
			ent = cyc[step].ent == 0 ? task
			      : cyc[step].ent == 0x10 ? 0x10 + task
			      : cyc[step].ent;
			if (comments && i % 37 == 5)
				put(&b, "// a comment line\n");
			if (decrease && c == cores - 1 && i == per / 3)
				put(&b, "%08X%04X%02X\n", t > 50 ? t - 50 : 0,
				    0x21, 0);
			put(&b, "%08X%04X%02X\n", t, ent, cyc[step].ev);
		}
	}
	return b;
}

static void check_made(const char *what, unsigned cores, unsigned per,
		       int split, int comments, int decrease)
{
	buf b = make_htf(cores, per, split, comments, decrease);
	int strict = !comments && !decrease;

	check_trace(what, b.p, b.n, strict);
	if (strict)
		check_trace(what, b.p, b.n, 0);
	free(b.p);
}

int main(int argc, char **argv)
{
	int i = 1, strict = 0;
	unsigned div = 1;
	const char *full = getenv("TK_TEST_FULL");

	if (argc > 2 && !strcmp(argv[1], "--div")) {
		div = (unsigned)strtoul(argv[2], NULL, 10);
		if (div < 1 || (full && *full && strcmp(full, "0")))
			div = 1;
		i = 3;
	}
	check_made("made: 1 core", 1, 500 / div, 0, 0, 0);
	check_made("made: 3 cores, core 0 in two sections", 3, 400 / div, 1, 0, 0);
	check_made("made: 6 cores", 6, 300 / div, 0, 0, 0);
	check_made("made: 11 cores (the heap)", 11, 200 / div, 1, 0, 0);
	check_made("made: 3 cores, comment lines", 3, 400 / div, 0, 1, 0);
	check_made("made: 11 cores, comment lines", 11, 150 / div, 0, 1, 0);
	check_made("made: 4 cores, a time decreases", 4, 300 / div, 0, 0, 1);
	check_made("made: 10 cores, a time decreases", 10, 100 / div, 1, 1, 1);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--strict")) {
			strict = 1;
			continue;
		}
		check_trace(argv[i], NULL, 0, strict);
	}
	TEST_DONE();
}
