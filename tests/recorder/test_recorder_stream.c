/*
 * test_recorder_stream.c - the recorder's streaming mode on the host port
 * (docs/recorder.md, "Streaming"): the stream of a run decodes to the
 * records of the snapshot of the same run; a stream cut at a random byte
 * decodes from its next sync record with no wrong record; overflow counts
 * are exact with a transport that refuses bytes; the library reads the
 * stream (probe, events) as it reads the snapshot.
 * Usage: test_recorder_stream [DIR]  (DIR: where stream.tks and
 * snapshot.bin of the first run are written for the CLI test)
 */
#define _POSIX_C_SOURCE 200809L

#include "FTrace.h"
#include "FTrace_host.h"
#include "tracekit/tracekit.h"
#include "../../src/formats/ftstream/ftstream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned fails;

#define CHECK(cond) do { if (!(cond)) { fails++; \
	fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* a clock that moves by 40 .. 2000 cycles per read */
/* each thread (a core) its own clock */
static __thread uint64_t tsc_now = 1000000;
static __thread uint32_t rnd = 1;

static uint32_t lcg(void)
{
	rnd = rnd * 1103515245u + 12345u;
	return rnd >> 8;
}

uint64_t tkrec_host_tsc(void)
{
	return tsc_now += 40 + lcg() % 1961;
}

/* ---- the snapshot's sink and the stream's transport --------------------- */

static uint8_t snap[1 << 20];
static size_t snap_len;
static uint8_t strm[1 << 20];
static size_t strm_len;
static int refuse;        /* the transport takes nothing */
static size_t take_max;   /* it takes at most this much a call (0: all) */

static void to_snap(void *ctx, const char *name, unsigned index,
		    const void *bytes, size_t n)
{
	(void)ctx;
	(void)name;
	(void)index;
	if (snap_len + n <= sizeof(snap)) {
		memcpy(snap + snap_len, bytes, n);
		snap_len += n;
	}
}

static size_t transport(const void *bytes, size_t len)
{
	if (refuse)
		return 0;
	if (take_max && len > take_max)
		len = take_max;
	if (strm_len + len > sizeof(strm))
		len = sizeof(strm) - strm_len;
	memcpy(strm + strm_len, bytes, len);
	strm_len += len;
	return len;
}

static uint8_t pool[1 << 20];
static uint8_t ring[1 << 16];  /* two cores: room while one drains */

/* the round at which the workload registers a name for pid 6 (-1: none) */
static unsigned late_round = ~0u;

/* a small scheduler's run: 4 named tasks, an ISR, mutexes, user events */
static unsigned workload(unsigned rounds)
{
	unsigned i, t, n = 0;

	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, 72000);
	n++;
	for (t = 0; t < 4; t++) {
		TRACER_LOGEVENT(FTrace_EVT_id, 256 + t, 3 + t);
		n++;
	}
	for (i = 0; i < rounds; i++) {
		t = i % 4;
		if (i == late_round)
			CHECK(tkrec_stream_name(TKREC_NAME_TASK, 6, "late") == 0);
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 256 + t, 0);
		TRACER_LOGEVENT(FTrace_EVT_task_schedule, 256 + t, 256 + t);
		TRACER_LOGEVENT(FTrace_EVT_context_switch, 256 + t, 0);
		n += 3;
		if (i % 3 == 0) {
			TRACER_LOGEVENT(FTrace_EVT_interrupt_start, 11, 0);
			TRACER_LOGEVENT(FTrace_EVT_interrupt_end, 11, 0);
			n += 2;
		}
		if (i % 5 == 0) {
			TRACER_LOGEVENT(FTrace_EVT_set_mutex_lock, 256 + t, 0x20001000u);
			TRACER_LOGEVENT(FTrace_EVT_set_mutex_unlock, 256 + t, 0x20001000u);
			n += 2;
		}
		if (i % 7 == 0) {
			FAST_TRACER_LOGEVENT(FTrace_EVT_user_event_4, i & 0xFFFF, i * 977u);
			n++;
		}
		TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, 256 + t, 0);
		n++;
	}
	TRACER_LOGEVENT(FTrace_EVT_trace_stop, 0, 0);
	return n + 1;
}

static tkrec_stream_write_fn start_out = transport;

static void start(uint32_t sync_every, size_t ring_size, int with_chunk)
{
	int a;

	tsc_now = 1000000;
	rnd = 1;
	snap_len = strm_len = 0;
	refuse = 0;
	take_max = 0;
	tkrec_init(pool, sizeof(pool));
	tkrec_set_sink(to_snap, NULL);
	FTrace_init_disk_writer("stream", 0, NULL, NULL);
	if (with_chunk) {
		a = FTrace_chunk_create(1 << 19, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
		CHECK(a == 0);
		CHECK(FTrace_actual_chunk_select(a) == 0);
	}
	CHECK(tkrec_stream_init(ring, ring_size, start_out, 72000, sync_every) == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 3, "idle") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 4, "control") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 5, "comms") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_ISR, 11, "USART1") == 0);
	CHECK(FTrace_enable() == 0);
}

static void stop(int with_chunk)
{
	FTrace_disable();
	CHECK(tkrec_stream_stop() == 0);
	if (with_chunk)
		CHECK(FTrace_send_chunk(0, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	CHECK(fp != NULL);
	if (fp) {
		CHECK(fwrite(p, 1, n, fp) == n);
		CHECK(fclose(fp) == 0);
	}
}

/* ---- the stream is the snapshot ------------------------------------------ */

/* renames[i][0] is printed as renames[i][1] (NULL ends them) */
static const char *const no_renames[][2] = { { NULL, NULL } };
static const char *const stream_names[][2] = {
	{ "task3", "idle" }, { "task4", "control" }, { "task5", "comms" },
	{ "IRQ11", "USART1" }, { NULL, NULL }
};
static const char *const stream_names_late[][2] = {
	{ "task3", "idle" }, { "task4", "control" }, { "task5", "comms" },
	{ "IRQ11", "USART1" }, { "task6", "late" }, { NULL, NULL }
};

static const char *renamed(const char *const (*ren)[2], const char *n)
{
	for (; ren[0][0]; ren++)
		if (strcmp(ren[0][0], n) == 0)
			return ren[0][1];
	return n;
}

static size_t read_events_opt(const void *p, size_t n, const char *fmt,
			      int strict, const char *const (*ren)[2],
			      char *out, size_t cap, const char **format,
			      size_t *warnings);

/* the events of a trace read by the library: time, name, entity, note */
static size_t read_events(const void *p, size_t n, const char *fmt,
			  const char *const (*ren)[2], char *out, size_t cap,
			  const char **format)
{
	size_t w = 0, k = read_events_opt(p, n, fmt, 1, ren, out, cap, format, &w);

	CHECK(w == 0);
	return k;
}

static size_t read_events_opt(const void *p, size_t n, const char *fmt,
			      int strict, const char *const (*ren)[2],
			      char *out, size_t cap, const char **format,
			      size_t *warnings)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t len = 0, k = 0;
	int rc;

	tk_reader_opts_init(&o);
	o.format = fmt;
	o.strict = strict;
	rc = tk_reader_open_mem(&r, p, n, "mem", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 0;
	}
	*format = tk_trace_format(tk_reader_trace(r));
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		int w = snprintf(out + len, cap - len, "%lld %s %s %s\n",
				 (long long)ev->time, tk_trace_str(t, ev->name, NULL),
				 renamed(ren, tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL)),
				 ev->note ? ev->note : "-");
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
		k++;
	}
	CHECK(rc == TK_END);
	*warnings = tk_reader_warning_count(r);
	tk_reader_close(r);
	return k;
}

static char text_a[1 << 22], text_b[1 << 22];

static void test_same_as_snapshot(const char *dir)
{
	ftstream_dec d;
	const char *fa = "", *fb = "";
	unsigned n;
	size_t ka, kb, i;

	start(1024, sizeof(ring), 1);
	n = workload(400);
	stop(1);
	CHECK(snap_len == (size_t)n * 16);
	CHECK(ftstream_is_sync(strm, strm_len));
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	CHECK(d.nrec == n);
	CHECK(d.nrec * 16 == snap_len && memcmp(d.recs, snap, snap_len) == 0);
	CHECK(d.lost == 0 && d.skipped == 0 && d.resyncs == 0 && d.tail == 0);
	CHECK(d.clk == 72000);
	CHECK(d.syncs >= strm_len / 1100);
	CHECK(d.nnames == 4);
	for (i = 0; i < d.nnames; i++)
		if (d.names[i].kind == 1)
			CHECK(d.names[i].id == 11 && strcmp(d.names[i].name, "USART1") == 0);
	/* the compact records: what they cost, syncs and names included */
	printf("stream: %u events, %zu bytes (%.2f bytes an event, %llu syncs); snapshot %zu bytes (16 an event)\n",
	       n, strm_len, (double)strm_len / n, (unsigned long long)d.syncs, snap_len);
	/* 8-byte records, the long ones (the mutexes' par2, the FAST user
	 * events), a sync with its 4 names and 4 contexts every 1024 bytes */
	CHECK(strm_len <= (size_t)n * 10);
	ftstream_free(&d);
	/* the library: the probe finds the stream, the events are the
	 * snapshot's, with the names registered for task<pid> and IRQ<n> */
	ka = read_events(snap, snap_len, "shark", stream_names, text_a, sizeof(text_a), &fa);
	kb = read_events(strm, strm_len, NULL, no_renames, text_b, sizeof(text_b), &fb);
	CHECK(strcmp(fb, "ftstream") == 0);
	CHECK(ka == kb && ka > 0);
	CHECK(strcmp(text_a, text_b) == 0);
	if (dir) {
		write_file(dir, "stream.tks", strm, strm_len);
		write_file(dir, "snapshot.bin", snap, snap_len);
	}
}

/* ---- the short and the long event records ---------------------------------- */

/* Events at the edges of the 8-byte record (par2 0xFEFF .. 0x10000, a
 * type byte, FAST, deltas of 2^24 - 1 and 2^24, a time that goes back,
 * the time's high word changing) decode to the snapshot's records. */
static void test_edges(void)
{
	static const uint32_t par2s[] = { 0, 0xFEFFu, 0xFF00u, 0xFFFFu, 0x10000u, 0xFFFFFFFFu };
	ftstream_dec d;
	unsigned i, n = 0;

	start(1024, sizeof(ring), 1);
	for (i = 0; i < sizeof(par2s) / sizeof(par2s[0]); i++, n++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, par2s[i]);
	TRACER_LOGEVENT(0x0112u, 1, 2);        /* a type byte */
	FAST_TRACER_LOGEVENT(FTrace_EVT_user_event_2, 3, 4);
	TRACER_LOGEVENT(FTrace_EVT_user_event_2, 0xFFFFu, 5);
	n += 3;
	tsc_now += ((uint64_t)1 << 24) - 41;   /* the next delta 2^24 - 1 .. */
	TRACER_LOGEVENT(FTrace_EVT_user_event_3, 6, 7);
	tsc_now += ((uint64_t)1 << 24);         /* .. more than 2^24 */
	TRACER_LOGEVENT(FTrace_EVT_user_event_3, 8, 9);
	tsc_now -= 100000;                      /* back in time */
	TRACER_LOGEVENT(FTrace_EVT_user_event_3, 10, 11);
	tsc_now = 0xFFFFF000u;                  /* the high word changes */
	for (i = 0; i < 20; i++, n++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_4, i, i);
	n += 3;
	stop(1);
	CHECK(snap_len == (size_t)n * 16);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	CHECK(d.nrec == n && d.resyncs == 0 && d.tail == 0 && d.lost == 0);
	CHECK(d.nrec * 16 == snap_len && memcmp(d.recs, snap, snap_len) == 0);
	ftstream_free(&d);
}

/* Events of code 0 (type & 0xFF == 0: the empty event, a type byte over
 * code 0, a FAST one) have no stream record (00 starts a control record):
 * they are in the snapshot (but type 0, an empty slot there) and dropped
 * and counted in the stream, an
 * overflow record says so, never left out silently. */
static void test_code_zero(void)
{
	ftstream_dec d;
	uint64_t events = 0;
	unsigned i, logged = 0;

	start(1024, sizeof(ring), 1);
	TRACER_LOGEVENT(FTrace_EVT_user_event_1, 1, 1);
	TRACER_LOGEVENT(FTrace_EVT_empty, 2, 2);
	TRACER_LOGEVENT(0x0100u, 3, 3);
	FAST_TRACER_LOGEVENT(FTrace_EVT_empty, 4, 4);
	FAST_TRACER_LOGEVENT(0x0200u, 5, 0x12345u);
	TRACER_LOGEVENT(FTrace_EVT_user_event_1, 6, 6);
	logged = 6;
	CHECK(tkrec_stream_lost() == 4);
	stop(1);
	/* the empty event (type 0) is an empty slot in the chunk: its dump
	 * leaves it out */
	CHECK(snap_len == (size_t)(logged - 1) * 16);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	for (i = 0; i < d.nrec; i++)
		if ((d.recs[i * 16] | d.recs[i * 16 + 1] << 8) != 0x70)
			events++;
	CHECK(events == 2 && d.lost == 4 && events + d.lost == logged);
	CHECK(d.resyncs == 0 && d.tail == 0);
	ftstream_free(&d);
	/* the last event of the stream: reported by tkrec_stream_stop() */
	start(1024, sizeof(ring), 0);
	TRACER_LOGEVENT(FTrace_EVT_user_event_1, 1, 1);
	TRACER_LOGEVENT(0x0300u, 2, 2);
	stop(0);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	CHECK(d.lost == 1 && d.resyncs == 0 && d.tail == 0);
	ftstream_free(&d);
}

/* ---- no transport: the program reads the ring ------------------------------ */

/* A ring started with no transport keeps its bytes until the program
 * takes them with tkrec_stream_read() (tkrec_stream_drain() had nothing
 * to hand them to and the bytes stayed in the ring, unreachable): read in
 * pieces of every size, the stream is the one a transport is given. */
static void test_pull(void)
{
	static uint8_t want[1 << 16];
	size_t want_len, got, piece;
	unsigned n;

	start(1024, sizeof(ring), 0);
	n = workload(400);
	stop(0);
	CHECK(n > 0);
	want_len = strm_len;
	memcpy(want, strm, strm_len);

	start_out = NULL;
	start(1024, sizeof(ring), 0);
	workload(400);
	FTrace_disable();
	CHECK(tkrec_stream_drain() == 0);          /* nothing to hand them to */
	CHECK(tkrec_stream_stop() == 0);           /* the bytes wait: no error */
	CHECK(strm_len == 0);
	CHECK(tkrec_stream_read(strm, 0) == 0);
	for (piece = 1; strm_len < sizeof(strm); piece = piece * 3 + 1) {
		got = tkrec_stream_read(strm + strm_len, piece);
		if (!got)
			break;
		CHECK(got <= piece);
		strm_len += got;
	}
	CHECK(strm_len == want_len && memcmp(strm, want, want_len) == 0);
	CHECK(tkrec_stream_read(strm, 1) == 0);   /* all taken */
	start_out = transport;

	/* beside a transport: bytes read between drains are not sent twice
	 * (the first sync record went to the transport at the start) */
	start(1024, sizeof(ring), 0);
	refuse = 1;
	workload(400);
	{
		static uint8_t head[256];
		size_t pre = strm_len, h = tkrec_stream_read(head, sizeof(head));

		CHECK(h == sizeof(head));
		refuse = 0;
		stop(0);
		CHECK(h + strm_len == want_len);
		CHECK(memcmp(strm, want, pre) == 0);
		CHECK(memcmp(head, want + pre, h) == 0);
		CHECK(memcmp(strm + pre, want + pre + h, strm_len - pre) == 0);
		CHECK(strm_len > pre);
	}
}

/* ---- a stream cut at a random byte --------------------------------------- */

/* record i of d is the id record a context record (00 06) became */
static int from_ctx(const ftstream_dec *d, const uint8_t *p, size_t i)
{
	return p[d->offs[i]] == 0 && p[d->offs[i] + 1] == 0x06;
}

static void test_cut(void)
{
	static uint8_t full[1 << 20];
	ftstream_dec all, cut;
	size_t len, seed, i, j, first, k, s, nctx;

	start(256, sizeof(ring), 0);
	workload(300);
	stop(0);
	len = strm_len;
	memcpy(full, strm, len);
	CHECK(ftstream_decode(&all, full, len) == 0);
	CHECK(all.syncs > 20);
	/* whole, the contexts' records say nothing the id records did not */
	CHECK(all.ctx_recs == 0);
	for (seed = 1; seed <= 16; seed++) {
		rnd = (uint32_t)seed * 2654435761u;
		k = (size_t)(lcg() % len);
		/* the first true sync at or after k */
		for (s = k; s < len && !ftstream_is_sync(full + s, len - s); s++)
			;
		CHECK(ftstream_decode(&cut, full + k, len - k) == 0);
		for (first = 0; first < all.nrec && all.offs[first] < s; first++)
			;
		CHECK(cut.first_sync == s - k);
		CHECK(cut.resyncs == 0);
		/* the records from the sync on, and an id record for each of
		 * the 4 contexts (their id records were before the cut) */
		nctx = 0;
		for (i = j = 0; i < cut.nrec; i++) {
			if (from_ctx(&cut, full + k, i)) {
				nctx++;
				continue;
			}
			CHECK(j < all.nrec - first);
			if (j < all.nrec - first) {
				CHECK(memcmp(cut.recs + i * 16, all.recs + (first + j) * 16, 16) == 0);
				CHECK(cut.offs[i] + k == all.offs[first + j]);
			}
			j++;
		}
		CHECK(j == all.nrec - first);
		CHECK(nctx == cut.ctx_recs);
		if (s < len && k > 200)
			CHECK(nctx == 4);
		if (s < len)
			CHECK(cut.nnames == 4 && cut.clk == 72000);
		ftstream_free(&cut);
	}
	/* a cut end: the last record left as a tail, the others kept */
	CHECK(ftstream_decode(&cut, full, len - 1) == 0);
	CHECK(cut.nrec == all.nrec - 1 && cut.tail > 0);
	ftstream_free(&cut);
	ftstream_free(&all);
}

/* ---- names as entities ----------------------------------------------------- */

/* every entity of the trace read from p[0 .. n): its names, one a line */
static size_t entity_names(const void *p, size_t n, char *out, size_t cap,
			   size_t *warnings)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	const tk_trace *t;
	tk_error err;
	size_t len = 0, i, ne;
	int rc;

	tk_reader_opts_init(&o);
	rc = tk_reader_open_mem(&r, p, n, "mem", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK)
		return 0;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		;
	CHECK(rc == TK_END);
	t = tk_reader_trace(r);
	ne = tk_trace_entity_count(t);
	out[0] = 0;
	for (i = 0; i < ne; i++) {
		int w = snprintf(out + len, cap - len, "%s\n",
				 tk_trace_str(t, tk_trace_entity(t, (uint32_t)i)->name, NULL));
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
	}
	*warnings = tk_reader_warning_count(r);
	tk_reader_close(r);
	return ne;
}

static void test_names(void)
{
	static uint8_t full[1 << 20];
	static char ents[1 << 16];
	const char *fa = "", *fb = "";
	size_t len, k, w, ka, kb;

	/* a name registered in the middle of the run names the task's
	 * events before its record too: the stream is read whole */
	late_round = 200;
	start(1024, sizeof(ring), 1);
	workload(400);
	stop(1);
	late_round = ~0u;
	ka = read_events(snap, snap_len, "shark", stream_names_late, text_a, sizeof(text_a), &fa);
	kb = read_events(strm, strm_len, NULL, no_renames, text_b, sizeof(text_b), &fb);
	CHECK(ka == kb && ka > 0);
	CHECK(strcmp(text_a, text_b) == 0);
	CHECK(strstr(text_b, " late ") != NULL && strstr(text_b, "task6") == NULL);

	/* a stream joined late, after the id records: the contexts' records
	 * after its first sync name the tasks from its first event on */
	start(256, sizeof(ring), 0);
	workload(300);
	stop(0);
	len = strm_len;
	memcpy(full, strm, len);
	for (k = len / 2; k < len && !ftstream_is_sync(full + k, len - k); k++)
		;
	CHECK(k < len);
	entity_names(full + k - 3, len - k + 3, ents, sizeof(ents), &w);
	CHECK(w == 1);  /* the 3 bytes before the sync */
	CHECK(strstr(ents, "\nidle\n") && strstr(ents, "\ncontrol\n") &&
	      strstr(ents, "\ncomms\n") && strstr(ents, "\ntask6\n") &&
	      strstr(ents, "\nUSART1\n"));
	CHECK(strstr(ents, "ctx") == NULL && strstr(ents, "IRQ11") == NULL);

	/* a user event channel; a name two tasks share; names the reader
	 * cannot take (one it gives other entities, one of an ISR's) */
	start(1024, sizeof(ring), 0);
	CHECK(tkrec_stream_name(TKREC_NAME_USER, 4, "telemetry") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 5, "control") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 6, "IRQ11") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_ISR, 11, "ctx256") == 0);
	workload(50);
	stop(0);
	entity_names(strm, strm_len, ents, sizeof(ents), &w);
	CHECK(strstr(ents, "\ntelemetry\n") && strstr(ents, "user_event_4") == NULL);
	CHECK(strstr(ents, "\ncontrol#4\n") && strstr(ents, "\ncontrol#5\n"));
	CHECK(strstr(ents, "\ntask6\n") && strstr(ents, "\nIRQ11\n"));
	CHECK(strstr(ents, "\nidle\n") && strstr(ents, "ctx256") == NULL);
	CHECK(w == 2);
}

/* ---- overflow: a transport that refuses ---------------------------------- */

static void test_overflow(void)
{
	ftstream_dec d;
	unsigned n, i, logged = 0;
	uint64_t events = 0;

	start(1024, 256, 0);
	for (i = 0; i < 2000; i++) {
		refuse = (i / 100) % 2;   /* 100 events refused, 100 taken */
		take_max = i % 3 ? 0 : 7; /* and in small pieces */
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 256 + i % 4, i);
		logged++;
	}
	refuse = 0;
	take_max = 0;
	n = tkrec_stream_lost();
	CHECK(n > 0);
	stop(0);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	for (i = 0; i < d.nrec; i++)
		if ((d.recs[i * 16] | d.recs[i * 16 + 1] << 8) != 0x70)
			events++;
	CHECK(d.lost == n);
	CHECK(events + d.lost == logged);
	CHECK(d.resyncs == 0 && d.tail == 0);
	printf("overflow: %u logged, %llu streamed, %llu lost (counted %u)\n", logged,
	       (unsigned long long)events, (unsigned long long)d.lost, n);
	ftstream_free(&d);
	/* the last drops, reported by tkrec_stream_stop() */
	start(1024, 256, 0);
	refuse = 1;
	for (i = 0; i < 100; i++)
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 256, i);
	n = tkrec_stream_lost();
	refuse = 0;
	stop(0);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	CHECK(n > 0 && d.lost == n);
	ftstream_free(&d);

	/* a stream joined at a sync record written with drops pending: the
	 * sync's count has them, and the overflow record after its names
	 * reports them; the drops before the first sync read are the others
	 * (none here), not these counted twice */
	{
		static uint8_t r2[256], junk[4096], part[4096];
		size_t m;

		CHECK(tkrec_init(pool, sizeof(pool)) == 0);
		CHECK(tkrec_stream_init(r2, sizeof(r2), NULL, 72000, 64) == 0);
		CHECK(tkrec_stream_name(TKREC_NAME_TASK, 3, "idle") == 0);
		CHECK(FTrace_enable() == 0);
		for (i = 0; i < 100; i++)
			TRACER_LOGEVENT(FTrace_EVT_task_activate, 256, i);
		n = tkrec_stream_lost();
		CHECK(n > 0);
		(void)tkrec_stream_read(junk, sizeof(junk));
		/* a sync due at the next event: its count is n, all pending */
		CHECK(tkrec_stream_name(TKREC_NAME_TASK, 4, "control") == 0);
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 256, 100);
		m = tkrec_stream_read(part, sizeof(part));
		CHECK(ftstream_is_sync(part, m));
		CHECK(ftstream_decode(&d, part, m) == 0);
		CHECK(d.lost == n && d.lost_at_sync == 0 && d.nrec == 2);
		ftstream_free(&d);
		FTrace_disable();
		(void)tkrec_stream_stop();
	}
}

/*
 * Names that would make the sync longer than the ring can hold (beside a
 * record) are refused, not kept: before, the sync was never written again
 * and the stream went on without one, and nothing said so.
 */
static void test_names_fit(void)
{
	static uint8_t r3[512];
	static char big[3][256];
	ftstream_dec d;
	unsigned i;

	for (i = 0; i < 3; i++) {
		memset(big[i], 'a' + (int)i, 200);
		big[i][200] = '\0';
	}
	CHECK(tkrec_init(pool, sizeof(pool)) == 0);
	strm_len = 0;
	refuse = 0;
	take_max = 0;
	CHECK(tkrec_stream_init(r3, sizeof(r3), transport, 72000, 64) == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 3, big[0]) == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 4, big[1]) == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 5, big[2]) < 0);   /* no room */
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 4, big[2]) == 0);  /* a replacement of one size */
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 3, "idle") == 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 5, big[0]) == 0);  /* room again */
	CHECK(FTrace_enable() == 0);
	for (i = 0; i < 400; i++)
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 256, i);
	FTrace_disable();
	CHECK(tkrec_stream_stop() == 0);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	/* a sync every 64 bytes of records: many, not only the first ones */
	CHECK(d.syncs > 20 && d.lost == 0 && d.resyncs == 0);
	CHECK(d.nrec == 400);
	ftstream_free(&d);
	/* names registered before the stream that a ring cannot hold: the
	 * stream is refused */
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 6, big[1]) == 0);  /* stream off: kept */
	CHECK(tkrec_stream_init(r3, sizeof(r3), transport, 72000, 64) < 0);
	CHECK(tkrec_stream_name(TKREC_NAME_TASK, 6, NULL) == 0);
	CHECK(tkrec_stream_init(r3, sizeof(r3), transport, 72000, 64) == 0);
	CHECK(tkrec_stream_stop() == 0);
}

/* ---- two cores share the ring ------------------------------------------ */

#define PER_CORE 3000u

static void *core_run(void *arg)
{
	unsigned i;

	tkrec_host_core = (unsigned)(uintptr_t)arg;
	for (i = 0; i < PER_CORE; i++)
		TRACER_LOGEVENT(FTrace_EVT_task_activate, tkrec_host_core, i);
	return NULL;
}

static void test_two_cores(void)
{
	static uint32_t next[3];
	pthread_t th[2];
	ftstream_dec d;
	uint64_t events = 0;
	size_t i;
	unsigned k;

	start(512, sizeof(ring), 0);
	for (k = 0; k < 2; k++)
		CHECK(pthread_create(&th[k], NULL, core_run, (void *)(uintptr_t)(k + 1)) == 0);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	stop(0);
	CHECK(ftstream_decode(&d, strm, strm_len) == 0);
	CHECK(d.resyncs == 0 && d.tail == 0);
	memset(next, 0, sizeof(next));
	for (i = 0; i < d.nrec; i++) {
		const uint8_t *r = d.recs + i * 16;
		unsigned c = r[2] | r[3] << 8;
		uint32_t par2 = r[12] | r[13] << 8 | (uint32_t)r[14] << 16 | (uint32_t)r[15] << 24;

		if ((r[0] | r[1] << 8) == 0x70)
			continue;
		events++;
		/* each core's events whole and in its order */
		CHECK(c >= 1 && c <= 2);
		if (c >= 1 && c <= 2) {
			CHECK(par2 >= next[c]);
			next[c] = par2 + 1;
		}
	}
	CHECK(events + d.lost == 2 * PER_CORE);
	CHECK(d.lost == tkrec_stream_lost());
	ftstream_free(&d);
}

/* each core runs its own task (context 10 + core) and interrupt (20 + core) */
static void *core_sched(void *arg)
{
	unsigned i, c;

	tkrec_host_core = (unsigned)(uintptr_t)arg;
	c = tkrec_host_core;
	for (i = 0; i < 500; i++) {
		TRACER_LOGEVENT(FTrace_EVT_task_activate, 10 + c, 0);
		TRACER_LOGEVENT(FTrace_EVT_context_switch, 10 + c, 0);
		if (i % 2) {
			TRACER_LOGEVENT(FTrace_EVT_interrupt_start, 20 + c, 0);
			TRACER_LOGEVENT(FTrace_EVT_interrupt_end, 20 + c, 0);
		}
		TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, 10 + c, 0);
	}
	return NULL;
}

/* the events of two cores read by the library: each on its core */
static void test_two_cores_read(void)
{
	pthread_t th[2];
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t per[3] = { 0, 0, 0 }, bad = 0, preempt = 0;
	unsigned k;
	int rc;

	start(512, sizeof(ring), 0);
	for (k = 0; k < 2; k++)
		CHECK(pthread_create(&th[k], NULL, core_sched, (void *)(uintptr_t)(k + 1)) == 0);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	stop(0);
	CHECK(tkrec_stream_lost() == 0);
	tk_reader_opts_init(&o);
	rc = tk_reader_open_mem(&r, strm, strm_len, "mem", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK)
		return;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		const char *core = tk_trace_str(t, tk_trace_entity(t, ev->core)->name, NULL);
		const char *tgt = tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL);
		const char *kind = tk_trace_str(t, ev->name, NULL);
		char want[16];
		unsigned c;

		if (sscanf(tgt, "ctx1%u", &c) == 1 || sscanf(tgt, "IRQ2%u", &c) == 1) {
			snprintf(want, sizeof(want), "Core_%u", c);
			if (c >= 1 && c <= 2 && strcmp(core, want) == 0)
				per[c]++;
			else
				bad++;
			/* a task loses its core to its core's interrupt only */
			if (strcmp(kind, "preempt") == 0)
				preempt++;
		}
	}
	CHECK(rc == TK_END);
	CHECK(bad == 0);
	/* activate, start, terminate a job; activate, start, terminate an
	 * interrupt every other job and its task's preempt and resume */
	CHECK(per[1] == 500 * 3 + 250 * 5 && per[2] == per[1]);
	CHECK(preempt == 2 * 250);
	tk_reader_close(r);
}

/* ---- printf events: formats registered, texts made on the host ---------- */

/* the notes of the events named `name`, one a line, into out */
static size_t notes_of(const void *p, size_t n, const char *name, char *out,
		       size_t cap, size_t *warnings)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t len = 0, k = 0;
	int rc;

	tk_reader_opts_init(&o);
	out[0] = 0;
	rc = tk_reader_open_mem(&r, p, n, "mem", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK)
		return 0;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		int w;

		if (strcmp(tk_trace_str(t, ev->name, NULL), name) != 0)
			continue;
		w = snprintf(out + len, cap - len, "%s|%.*s\n",
			     tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL),
			     (int)ev->note_len, ev->note ? ev->note : "");
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
		k++;
	}
	CHECK(rc == TK_END);
	if (warnings)
		*warnings = tk_reader_warning_count(r);
	tk_reader_close(r);
	return k;
}

static void test_printf(const char *dir)
{
	static char got[1 << 16];
	static uint8_t full[1 << 20];
	static const char expect[] =
		"log|x=-42 y=4294967254 h=0000beef c=A 100%\n"
		"log|w=[   17] l=[-3  ] z=[-0012] p=+5\n"
		"log|a=0x1f s= 7 H=BEEF 0\n"
		"log|too few 1 <missing argument>\n"
		"log|bad <bad conversion %q> end 3\n"
		"log|trailing <bad format: % at the end>\n"
		"log|<no format 9> 1 2\n"
		"log|no args\n"
		"log|ctl ? min=-2147483648 max=4294967295\n"
		"user_event_5|on 5: 1 2 3 4\n";
	char buf[16];
	size_t n, w, len, k;
	unsigned i;
	ftstream_dec d;

	start(256, sizeof(ring), 0);
	CHECK(tkrec_stream_name(TKREC_NAME_USER, 2, "log") == 0);
	CHECK(tkrec_stream_format(1, "x=%d y=%u h=%08x c=%c 100%%") == 0);
	CHECK(tkrec_stream_format(2, "w=[%5d] l=[%-4d] z=[%05d] p=%+d") == 0);
	CHECK(tkrec_stream_format(10, "a=%#x s=% d H=%X %#x") == 0);
	CHECK(tkrec_stream_format(3, "too few %d %d") == 0);
	CHECK(tkrec_stream_format(4, "bad %q end %u") == 0);
	CHECK(tkrec_stream_format(5, "trailing %") == 0);
	CHECK(tkrec_stream_format(6, "no args") == 0);
	CHECK(tkrec_stream_format(7, "ctl \n min=%ld max=%lu") == 0);
	CHECK(tkrec_stream_format(8, "on 5: %u %u %u %u") == 0);
	workload(5);
	CHECK(TKREC_PRINTF(2, 1, (uint32_t)-42, (uint32_t)-42, 0xBEEF, 'A', 0) == -1);  /* 5 args */
	CHECK(TKREC_PRINTF(2, 1, (uint32_t)-42, (uint32_t)-42, 0xBEEF, 'A') == 1);
	workload(5);
	CHECK(tkrec_stream_printf(2, 2, 4, (const uint32_t[]){ 17, (uint32_t)-3, (uint32_t)-12, 5 }) == 1);
	CHECK(TKREC_PRINTF(2, 10, 31, 7, 0xBEEF, 0) == 1);
	CHECK(TKREC_PRINTF(2, 3, 1) == 1);
	CHECK(TKREC_PRINTF(2, 4, 3) == 1);
	CHECK(tkrec_stream_printf(2, 5, 0, NULL) == 1);
	CHECK(TKREC_PRINTF(2, 9, 1, 2) == 1);
	CHECK(tkrec_stream_printf(2, 6, 0, NULL) == 1);
	CHECK(TKREC_PRINTF(2, 7, 0x80000000u, 0xFFFFFFFFu) == 1);
	CHECK(TKREC_PRINTF(5, 8, 1, 2, 3, 4) == 1);
	CHECK(TKREC_PRINTF(15, 8, 1) == -1);  /* no channel 15 */
	workload(5);
	stop(0);
	if (dir)
		write_file(dir, "printf.tks", strm, strm_len);
	n = notes_of(strm, strm_len, "user_event_2", got, sizeof(got), &w);
	n += notes_of(strm, strm_len, "user_event_5", got + strlen(got),
		      sizeof(got) - strlen(got), NULL);
	CHECK(n == 10);
	CHECK(strcmp(got, expect) == 0);
	if (strcmp(got, expect) != 0)
		fprintf(stderr, "got:\n%s", got);
	CHECK(w == 1);  /* the format 9 not registered */

	/* the recorder enabled (a chunk) and the stream stopped: not
	 * streamed, 0 (-1 is for bad arguments) */
	k = (size_t)FTrace_chunk_create(1024, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select((int)k) == 0 && FTrace_enable() == 0);
	CHECK(TKREC_PRINTF(2, 1, 1) == 0);
	FTrace_disable();

	/* the formats are re-sent after each sync: a stream cut after their
	 * records decodes every printf event from its next sync on */
	start(128, sizeof(ring), 0);
	CHECK(tkrec_stream_format(300, "round %u of %u, %x") == 0);
	for (i = 0; i < 200; i++) {
		workload(1);
		CHECK(TKREC_PRINTF(0, 300, i, 200, i * 16) == 1);
	}
	stop(0);
	len = strm_len;
	memcpy(full, strm, len);
	for (k = len / 2; k < len && !ftstream_is_sync(full + k, len - k); k++)
		;
	CHECK(k < len);
	CHECK(ftstream_decode(&d, full + k - 5, len - k + 5) == 0);
	CHECK(d.nnotes > 50 && d.nnotes < 200 && d.no_format == 0 && d.nfmts == 1);
	for (i = 0; i < d.nnotes; i++) {
		unsigned r = 200 - (unsigned)d.nnotes + i;
		char want[64];

		snprintf(want, sizeof(want), "round %u of 200, %x", r, r * 16);
		CHECK(strlen(want) == d.notes[i].len &&
		      memcmp(d.text + d.notes[i].off, want, d.notes[i].len) == 0);
	}
	ftstream_free(&d);
	n = notes_of(full + k - 5, len - k + 5, "user_event_0", got, sizeof(got), &w);
	CHECK(n > 50 && strstr(got, "<no format") == NULL && w == 1);

	/* malformed printf records: a bad record sends the decoder to the
	 * next sync (a warning), a cut one is a tail; never a crash */
	{
		static const uint8_t bad[][12] = {
			{ 0, 8, 15, 1, 0, 0 },              /* channel 15 */
			{ 0, 8, 0, 1, 17, 0 },              /* 17 arguments */
			{ 0, 8, 0, 0x84, 0x80, 0x04, 0 },   /* format id 65536 */
			{ 0, 8, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF },
		};
		size_t sl;

		start(1 << 20, sizeof(ring), 0);
		stop(0);
		sl = strm_len;  /* a sync record (and the names) */
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memcpy(full, strm, sl);
			memcpy(full + sl, bad[i], sizeof(bad[i]));
			CHECK(ftstream_decode(&d, full, sl + sizeof(bad[i])) == 0);
			CHECK(i == 3 ? d.resyncs == 0 && d.tail > 0 : d.resyncs == 1);
			CHECK(d.nnotes == 0);
			ftstream_free(&d);
		}
		/* a record with 2 arguments cut in its arguments, then whole */
		{
			static const uint8_t ok[] = { 0, 8, 1, 6, 2, 4, 1, 0, 0, 0, 2, 0, 0, 0 };

			memcpy(full, strm, sl);
			memcpy(full + sl, ok, sizeof(ok));
			for (k = 1; k <= sizeof(ok); k++) {
				CHECK(ftstream_decode(&d, full, sl + k) == 0);
				CHECK(d.resyncs == 0);
				CHECK(k < sizeof(ok) ? d.nnotes == 0 && d.tail == k : d.nnotes == 1);
				ftstream_free(&d);
			}
		}
	}
	/* the formatter alone: its edges */
	CHECK(ftstream_format(buf, sizeof(buf), "%99999999999d|", 14, 0,
			      (const uint32_t[]){ 1 }, 1) == sizeof(buf) - 1);
	CHECK(ftstream_format(buf, 1, "abc", 3, 0, NULL, 0) == 0 && buf[0] == 0);
	CHECK(ftstream_format(buf, sizeof(buf), "%s", 2, 0, NULL, 0) > 0 &&
	      strcmp(buf, "<bad conversion") == 0);
	CHECK(ftstream_format(buf, sizeof(buf), "%0", 2, 0, NULL, 0) > 0 &&
	      strncmp(buf, "<bad format", 11) == 0);
	CHECK(ftstream_format(buf, 0, "x", 1, 0, NULL, 0) == 0);
}

int main(int argc, char **argv)
{
	test_same_as_snapshot(argc > 1 ? argv[1] : NULL);
	test_edges();
	test_code_zero();
	test_pull();
	test_cut();
	test_names();
	test_overflow();
	test_names_fit();
	test_two_cores();
	test_two_cores_read();
	test_printf(argc > 1 ? argv[1] : NULL);
	if (fails)
		fprintf(stderr, "%u failures\n", fails);
	return fails ? 1 : 0;
}
