/*
 * test_recorder.c - the FTrace recorder on the host port: wrap-around, JTN
 * chains, STOP, the emergency area, the lost count, filters, bounds, two
 * threads as two cores, the UDP sender on loopback (byte for byte),
 * re-entrancy from a signal handler, and end to end (events logged -> dump -> tracekit
 * reads back the same events).
 */
#define _POSIX_C_SOURCE 200809L

#include "FTrace.h"
#include "FTrace_host.h"
#include "tracekit/tracekit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- the host port's clock ---------------------------------------------- */

static __thread uint64_t fake_tsc;

uint64_t tkrec_host_tsc(void)
{
	return fake_tsc += 10;  /* a cycle count that always grows */
}

/* ---- a sink into memory ------------------------------------------------- */

typedef struct dump {
	uint8_t bytes[1 << 22];  /* 262144 records */
	size_t len;
} dump;

static void to_mem(void *ctx, const char *name, unsigned index,
		   const void *bytes, size_t n)
{
	dump *d = ctx;

	(void)name;
	(void)index;
	if (d->len + n <= sizeof(d->bytes)) {
		memcpy(d->bytes + d->len, bytes, n);
		d->len += n;
	}
}

static unsigned fails;

#define CHECK(cond) do { if (!(cond)) { fails++; \
	fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static uint8_t pool[1 << 21];
static dump d;

static unsigned u16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
/* record i of the dump: type, par1, par2 */
static unsigned rtype(size_t i) { return u16(d.bytes + i * 16); }
static unsigned rpar1(size_t i) { return u16(d.bytes + i * 16 + 2); }
static uint32_t rpar2(size_t i) { return u32(d.bytes + i * 16 + 12); }
static uint64_t rtsc(size_t i)
{
	return (uint64_t)u32(d.bytes + i * 16 + 4) << 32 | u32(d.bytes + i * 16 + 8);
}

static void reset(void)
{
	tkrec_init(pool, sizeof(pool));
	d.len = 0;
	tkrec_set_sink(to_mem, &d);
	tkrec_host_core = 0;
	fake_tsc = 0;
}

static void send_chunk(int n)
{
	d.len = 0;
	CHECK(FTrace_send_chunk(n, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
}

static void test_wrap(void)
{
	int a;
	unsigned i;

	reset();
	a = FTrace_chunk_create(4 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(a >= 0);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	CHECK(FTrace_enable() == 0);
	/* four events fill the four slots: the last slot is usable */
	for (i = 1; i <= 4; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, i * 100);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 4 * 16);
	CHECK(rpar1(3) == 4 && rpar2(3) == 400);
	/* two more wrap over the oldest: buffer order 5 6 3 4 */
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 5, 0);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 6, 0);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 64);
	CHECK(rpar1(0) == 5 && rpar1(1) == 6 && rpar1(2) == 3 && rpar1(3) == 4);
	CHECK(rtsc(1) > rtsc(3) && rtsc(2) < rtsc(3));
	CHECK(tkrec_lost() == 0);
}

/*
 * A cyclic chunk that wraps over its clock and naming records: the dump
 * gives them again, before the oldest record kept and at its time (only
 * those overwritten), and tracekit reads the dump with the clock rate and
 * the task names (without them: 1 GHz assumed and ctxN names).
 */
static void test_wrap_meta(void)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	const tk_timebase *tb;
	tk_trace *t;
	tk_error err;
	const char *clk;
	int a, rc;
	unsigned i, n = 0;

	reset();
	a = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, 1000);  /* slot 0 */
	TRACER_LOGEVENT(FTrace_EVT_task_create, 264, 3);   /* slot 1 */
	TRACER_LOGEVENT(FTrace_EVT_task_create, 272, 4);   /* slot 2 */
	for (i = 0; i < 6; i++)                           /* slots 3-7, 0 */
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	/* one lap and one slot: only trace_start was overwritten */
	send_chunk(a);
	CHECK(d.len == 9 * 16);
	CHECK(rtype(0) == FTrace_EVT_trace_start && rpar2(0) == 1000);
	/* at the time of the oldest record kept: slot 1, task_create */
	CHECK(rtype(2) == FTrace_EVT_task_create && rtsc(0) == rtsc(2));
	CHECK(rtype(1) == FTrace_EVT_user_event_1);

	/* many laps of jobs of both tasks: every metadata record is gone */
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 0; i < 40; i++) {
		unsigned ctx = i % 2 ? 272 : 264;
		TRACER_LOGEVENT(FTrace_EVT_task_activate, ctx, 0);
		TRACER_LOGEVENT(FTrace_EVT_context_switch, ctx, 0);
		TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, ctx, 0);
	}
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 11 * 16);
	CHECK(rtype(0) == FTrace_EVT_trace_start && rpar2(0) == 1000);
	CHECK(rtype(1) == FTrace_EVT_task_create && rtype(2) == FTrace_EVT_task_create);
	CHECK(rtsc(0) == rtsc(1) && rtsc(1) == rtsc(2));
	CHECK(tkrec_meta_lost() == 0);

	tk_reader_opts_init(&o);
	o.format = "shark";
	CHECK(tk_reader_open_mem(&r, d.bytes, d.len, "wrapped", &o, &err) == TK_OK);
	if (!r)
		return;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		n++;
	CHECK(rc == TK_END && n > 8);
	t = tk_reader_trace(r);
	clk = tk_trace_header_get(t, "clk_per_msec");
	CHECK(clk && strcmp(clk, "1000") == 0);
	tb = tk_trace_timebase(t);
	CHECK(tb->unit == TK_UNIT_MS && tb->num == 1 && tb->den == 1000);
	CHECK(tk_trace_entity_find(t, "task3", 5) != TK_NONE);
	CHECK(tk_trace_entity_find(t, "task4", 5) != TK_NONE);
	CHECK(tk_trace_entity_find(t, "ctx264", 6) == TK_NONE);
	/* the one warning: a wrapped ring is read in TSC order */
	CHECK(tk_reader_warning_count(r) == 1);
	tk_reader_close(r);

	/* a chunk deleted and made again forgets the metadata of the old one */
	CHECK(FTrace_chunk_delete(a) == 0);
	a = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 0; i < 20; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 8 * 16 && rtype(0) == FTrace_EVT_user_event_1);

	/* a full table: the metadata record is logged, and counted */
	reset();
	a = FTrace_chunk_create(64 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 0; i < TKREC_META_MAX + 2; i++)
		TRACER_LOGEVENT(FTrace_EVT_task_create, 256 + i, i);
	FTrace_disable();
	CHECK(tkrec_meta_lost() == 2);
}

/* A chunk numbered 256 or more (FTRACE_MAX_CHUNK above 256, as this test
 * is built) has its own metadata: deleting chunk 256 forgets none of
 * chunk 0's, and chunk 256's own clock record comes back in its dump. */
static void test_meta_chunk_256(void)
{
	int a, b = -1;
	unsigned i;

	reset();
	a = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(a == 0 && FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, 1000);
	for (i = 0; i < 10; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	FTrace_disable();
	for (i = 1; i <= 256; i++)
		b = FTrace_chunk_create(16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(b == 256);
	CHECK(FTrace_chunk_delete(256) == 0);
	send_chunk(a);
	CHECK(d.len == 9 * 16 && rtype(0) == FTrace_EVT_trace_start && rpar2(0) == 1000);

	/* chunk 256's metadata is its own, not chunk 0's */
	b = FTrace_chunk_create(4 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(b == 256 && FTrace_actual_chunk_select(b) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_cycles_per_msec, 0, 2000);
	TRACER_LOGEVENT(FTrace_EVT_cycles_per_msec, 0, 3000);  /* replaces it */
	for (i = 0; i < 6; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	FTrace_disable();
	CHECK(tkrec_meta_lost() == 0);
	send_chunk(b);
	CHECK(d.len == 5 * 16 && rtype(0) == FTrace_EVT_cycles_per_msec && rpar2(0) == 3000);
}

static void test_jtn_chain(void)
{
	int a, b, c;
	unsigned i;

	reset();
	a = FTrace_chunk_create(2 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_JTN);
	b = FTrace_chunk_create(2 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_JTN);
	c = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_chunk_link(a, b) == 0 && FTrace_chunk_link(b, c) == 0);
	CHECK(FTrace_chunk_link(a, c) < 0);  /* c is no longer FREE */
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 1; i <= 6; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	FTrace_disable();
	/* no event lost at the jumps: 1 2 | 3 4 | 5 6 */
	send_chunk(a);
	CHECK(d.len == 32 && rpar1(0) == 1 && rpar1(1) == 2);
	send_chunk(b);
	CHECK(d.len == 32 && rpar1(0) == 3 && rpar1(1) == 4);
	send_chunk(c);
	CHECK(d.len == 32 && rpar1(0) == 5 && rpar1(1) == 6);
	CHECK(tkrec_lost() == 0);
}

static void test_stop_emergency_lost(void)
{
	int a, b;
	FTrace_flags f = 0;
	unsigned i;

	reset();
	/* 2 slots + 3 emergency slots, the last of them for the lost count */
	a = FTrace_chunk_create(2 * 16, 3 * 16, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 1; i <= 7; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, 0);
	FTrace_disable();
	CHECK(FTrace_get_chunk_flags(a, &f) == 0);
	CHECK(f & FTRACE_CHUNK_FLAG_FULL);  /* FULL stays visible */
	CHECK(tkrec_lost() == 3);
	send_chunk(a);
	CHECK(d.len == 5 * 16);
	CHECK(rpar1(0) == 1 && rpar1(1) == 2 && rpar1(2) == 3 && rpar1(3) == 4);
	CHECK(rtype(4) == FTrace_EVT_numevents && rpar1(4) == TKREC_LOST_PAR1 &&
	      rpar2(4) == 3);
	CHECK(rtsc(4) == 70);  /* the last drop's time (a clock read per event) */

	/* no emergency area: the dump appends the lost count */
	reset();
	b = FTrace_chunk_create(2 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(b) == 0);
	FTrace_enable();
	for (i = 1; i <= 5; i++)
		FAST_TRACER_LOGEVENT(FTrace_EVT_ipoint, i, 0);
	/* dumped long after: the lost record keeps the last drop's time (at
	 * the dump's, the trace would last until the dump) */
	fake_tsc += 1000000;
	send_chunk(b);
	CHECK(d.len == 3 * 16);
	CHECK(rtype(0) == (FTrace_EVT_ipoint | TKREC_FAST));
	CHECK(rtype(2) == FTrace_EVT_numevents && rpar2(2) == 3);
	CHECK(rtsc(2) == 50);
}

static void test_filters_and_bounds(void)
{
	int a;
	FTrace_flags f;

	reset();
	CHECK(FTrace_enable() < 0);  /* no chunk selected */
	a = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	CHECK(FTrace_actual_chunk_select(a) < 0);  /* no longer FREE */
	FTrace_enable();
	FTrace_set_filter(FTrace_filter_timer, 1);
	TRACER_LOGEVENT(FTrace_EVT_timer_post, 0, 0);     /* filtered */
	TRACER_LOGEVENT(FTrace_EVT_task_activate, 8, 0);
	FTrace_set_filter(FTrace_filter_timer, 0);
	TRACER_LOGEVENT(FTrace_EVT_timer_post, 0, 0);
	/* a jump with no linked chunk is ignored, logging goes on */
	TRACER_LOGEVENT(FTrace_EVT_next_chunk, 0, 0);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 9, 0);
	FTrace_disable();
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 10, 0);        /* disabled */
	send_chunk(a);
	CHECK(d.len == 5 * 16);
	CHECK(rtype(0) == FTrace_filter_timer && rpar1(0) == 1);
	CHECK(rtype(1) == FTrace_EVT_task_activate);
	CHECK(rtype(2) == FTrace_filter_timer && rpar1(2) == 0);
	CHECK(rtype(3) == FTrace_EVT_timer_post);
	CHECK(rtype(4) == FTrace_EVT_ipoint && rpar1(4) == 9);
	CHECK(tkrec_lost() == 0);
	/* chunk numbers are checked */
	CHECK(FTrace_chunk_delete(-1) < 0 && FTrace_chunk_delete(FTRACE_MAX_CHUNK) < 0);
	CHECK(FTrace_get_chunk_flags(999, &f) < 0);
	CHECK(FTrace_set_chunk_flags(-5, 0) < 0);
	CHECK(FTrace_actual_chunk_select(77) < 0);
	CHECK(FTrace_chunk_link(a, 1000) < 0);
	CHECK(FTrace_get_first_chunk(FTRACE_CHUNK_FLAG_BUSY) < 0);
	CHECK(FTrace_send_chunk(3, 0, 0) < 0);
	CHECK(FTrace_compress_chunk(a, 0) == 0);
	CHECK(FTrace_set_chunk_flags(a, FTRACE_CHUNK_FLAG_NODEL) == 0);
	CHECK(FTrace_chunk_delete(a) < 0);
	CHECK(FTrace_OSD_init_udp(1, "127.0.0.1", "not-an-address") < 0);

	/* a family given bare (2, not FTrace_filter_task) logs its filter
	 * event 0xF2 all the same, not an event of code 2 (a task_create that
	 * would name context 0) or 3 (an interrupt_start); family 15, whose
	 * event would be next_chunk, logs none */
	reset();
	a = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	FTrace_set_filter(FTrace_filter_task & FTrace_family_mask, 1);
	FTrace_set_filter(FTrace_filter_task & FTrace_family_mask, 0);
	FTrace_set_filter(FTrace_filter_interrupt & FTrace_family_mask, 0);
	FTrace_set_filter(0x0F, 1);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 11, 0);
	FTrace_set_filter(0xFF, 0);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 12, 0);  /* no jump: still chunk a */
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 5 * 16);
	CHECK(rtype(0) == FTrace_filter_task && rpar1(0) == 1);
	CHECK(rtype(1) == FTrace_filter_task && rpar1(1) == 0);
	CHECK(rtype(2) == FTrace_filter_interrupt && rpar1(2) == 0);
	CHECK(rtype(3) == FTrace_EVT_ipoint && rpar1(3) == 11);
	CHECK(rtype(4) == FTrace_EVT_ipoint && rpar1(4) == 12);

	/* a core the build has no room for (FTRACE_PORT_CORE() of a port
	 * with more cores than FTRACE_MAX_CORES): its events are not
	 * recorded, its chunk pointer not read past the table, and it
	 * selects nothing */
	reset();
	a = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	tkrec_host_core = FTRACE_MAX_CORES;
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 1, 0);
	FAST_TRACER_LOGEVENT(FTrace_EVT_ipoint, 2, 0);
	TRACER_LOGEVENT(FTrace_EVT_task_create, 3, 3);
	TRACER_LOGEVENT(FTrace_EVT_next_chunk, 0, 0);
	CHECK(FTrace_actual_chunk_select(a) < 0);
	tkrec_host_core = 0;
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 4, 0);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 16 && rpar1(0) == 4);

	/* no sink and no UDP: the dump would go nowhere; refused, flags kept */
	reset();
	tkrec_set_sink(NULL, NULL);
	a = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_send_chunk(a, 0, 0) < 0);
	CHECK(FTrace_get_chunk_flags(a, &f) == 0 &&
	      f == (FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP));
	tkrec_set_sink(to_mem, &d);
	send_chunk(a);
}

/* ---- two threads as two cores -------------------------------------------- */

#define PER_CORE 20000

static void *core_main(void *arg)
{
	unsigned i;

	tkrec_host_core = (unsigned)(uintptr_t)arg;
	fake_tsc = 0;
	for (i = 0; i < PER_CORE; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, tkrec_host_core, i);
	return NULL;
}

static void test_two_cores(void)
{
	pthread_t th[2];
	int ch[2];
	unsigned k, i;

	reset();
	for (k = 0; k < 2; k++) {
		ch[k] = FTrace_chunk_create(PER_CORE * 16, 0, FTRACE_CHUNK_FLAG_FREE);
		tkrec_host_core = k;
		CHECK(FTrace_actual_chunk_select(ch[k]) == 0);
	}
	tkrec_host_core = 0;
	FTrace_enable();
	for (k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, core_main, (void *)(uintptr_t)k);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	FTrace_disable();
	/* a core's chunk is sent by that core, not by another one */
	tkrec_host_core = 0;
	CHECK(FTrace_send_chunk(ch[1], 0, FTRACE_CHUNK_FLAG_FREE) < 0);
	for (k = 0; k < 2; k++) {
		unsigned bad = 0;
		tkrec_host_core = k;
		send_chunk(ch[k]);
		CHECK(d.len == PER_CORE * 16);
		for (i = 0; i < PER_CORE && i * 16 < d.len; i++)
			bad += rpar1(i) != k || rpar2(i) != i;
		CHECK(bad == 0);
	}
	tkrec_host_core = 0;
	CHECK(tkrec_lost() == 0);
}

/* ---- what would corrupt another chunk is refused ------------------------- */

/*
 * The host port's test points (tkrec_host_set_point_hook) play an
 * interrupt between two steps of a state change: at once outside the
 * section, when the section ends inside it.  The hook runs one armed
 * action, once.
 */
static volatile unsigned armed_point;
static void (*armed_action)(void);

static void point_hook(unsigned id)
{
	if (id != armed_point || !armed_action)
		return;
	armed_point = 0;
	armed_action();
}

static void arm(unsigned id, void (*action)(void))
{
	armed_action = action;
	armed_point = id;
	tkrec_host_set_point_hook(point_hook);
}

static void disarm(void)
{
	armed_point = 0;
	tkrec_host_set_point_hook(NULL);
}

typedef struct writer_arg {
	unsigned core, n, par1;
	int chunk;              /* selected by the thread when >= 0 */
	atomic_int ready;       /* set by the thread once its chunk is chosen */
} writer_arg;

static void *writer(void *p)
{
	writer_arg *w = p;
	unsigned i;

	tkrec_host_core = w->core;
	fake_tsc = 0;
	if (w->chunk >= 0 && FTrace_actual_chunk_select(w->chunk) != 0)
		fails++;
	atomic_store(&w->ready, 1);
	for (i = 0; i < w->n; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, w->par1, i);
	return NULL;
}

/* every record of the dump in d is (par1, 0, 1, 2, ...) */
static int dump_is(unsigned par1, size_t n)
{
	size_t i;

	if (d.len != n * 16)
		return 0;
	for (i = 0; i < n; i++)
		if (rpar1(i) != par1 || rpar2(i) != i)
			return 0;
	return 1;
}

/*
 * A JTN successor cannot be deleted: a new chunk would take its slot, and
 * core 0's jump would land in core 1's cyclic chunk.  Two writer threads.
 */
static void test_delete_successor(void)
{
	writer_arg w0 = { 0, 40, 0, -1, 0 }, w1 = { 1, 30, 1, -1, 0 };
	pthread_t t0, t1;
	int a, b, c;

	reset();
	a = FTrace_chunk_create(4 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_JTN);
	b = FTrace_chunk_create(64 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_chunk_link(a, b) == 0);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	CHECK(FTrace_chunk_delete(b) < 0);  /* a links to it */
	CHECK(FTrace_chunk_delete(a) < 0);  /* core 0 writes into it */
	/* nor made FREE, for another core to take */
	CHECK(FTrace_set_chunk_flags(b, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC) < 0);
	c = FTrace_chunk_create(64 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(c >= 0 && c != b);
	w1.chunk = c;
	FTrace_enable();
	pthread_create(&t0, NULL, writer, &w0);
	pthread_create(&t1, NULL, writer, &w1);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	FTrace_disable();
	tkrec_host_core = 1;
	send_chunk(c);
	CHECK(dump_is(1, 30));  /* core 1's records only */
	tkrec_host_core = 0;
	send_chunk(a);
	CHECK(d.len == 4 * 16 && rpar1(0) == 0 && rpar2(3) == 3);
	send_chunk(b);  /* core 0's jump: records 4 .. 39 */
	CHECK(d.len == 36 * 16 && rpar1(0) == 0 && rpar2(0) == 4 && rpar2(35) == 39);
	/* once a no longer links to it, b can go */
	CHECK(FTrace_chunk_delete(a) == 0 && FTrace_chunk_delete(b) == 0);
	CHECK(tkrec_lost() == 0);
}

/*
 * FREE is refused on a chunk a core writes into: core 0 cannot take
 * core 1's chunk while core 1 logs.  Two writer threads.
 */
static void test_free_active(void)
{
	writer_arg w1 = { 1, 20000, 1, -1, 0 };
	pthread_t t1;
	int a, x;
	unsigned i;

	reset();
	a = FTrace_chunk_create(1000 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	x = FTrace_chunk_create(20000 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	w1.chunk = x;
	tkrec_host_core = 0;
	CHECK(FTrace_actual_chunk_select(a) == 0);
	CHECK(FTrace_enable() == 0);
	pthread_create(&t1, NULL, writer, &w1);
	while (!atomic_load(&w1.ready))
		sched_yield();
	CHECK(FTrace_set_chunk_flags(x, FTRACE_CHUNK_FLAG_FREE) < 0);
	CHECK(FTrace_actual_chunk_select(x) < 0);
	for (i = 0; i < 1000; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, 0, i);
	pthread_join(t1, NULL);
	FTrace_disable();
	tkrec_host_core = 1;
	send_chunk(x);
	CHECK(dump_is(1, 20000));
	tkrec_host_core = 0;
	send_chunk(a);
	CHECK(dump_is(0, 1000));
	/* other flags on an active chunk are taken (NODEL, a mode) */
	CHECK(FTrace_actual_chunk_select(a) == 0);
	CHECK(FTrace_set_chunk_flags(a, FTRACE_CHUNK_FLAG_NODEL) == 0);
	CHECK(tkrec_lost() == 0);
}

/*
 * Two cores select one FREE chunk at once: core 0 is "interrupted"
 * between the FREE test and the claim, and core 1 tries meanwhile.  One
 * of them gets it.
 */
static atomic_int sel_waiting, sel_done, sel_rc1;
static int sel_chunk;

static void sleep_1ms(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

static void select_stall(void)
{
	int i;

	sel_waiting = 1;
	for (i = 0; i < 2000 && !sel_done; i++)  /* at most 2 s */
		sleep_1ms();
}

static void *select_other(void *arg)
{
	int i;

	(void)arg;
	tkrec_host_core = 1;
	for (i = 0; i < 2000 && !sel_waiting; i++)
		sleep_1ms();
	sel_rc1 = FTrace_actual_chunk_select(sel_chunk);
	sel_done = 1;
	return NULL;
}

static void test_select_race(void)
{
	pthread_t t1;
	int rc0;

	reset();
	sel_chunk = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	sel_waiting = sel_done = 0;
	sel_rc1 = -2;
	pthread_create(&t1, NULL, select_other, NULL);
	tkrec_host_core = 0;
	arm(TKREC_POINT_SELECT, select_stall);
	rc0 = FTrace_actual_chunk_select(sel_chunk);
	disarm();
	pthread_join(t1, NULL);
	CHECK(sel_waiting && sel_done);  /* the point was reached */
	CHECK(rc0 == 0 && sel_rc1 < 0);  /* one owner */
}

/*
 * Flags and limit change in one section: an interrupt that logs while a
 * frozen cyclic chunk is thawed writes after the last record, never over
 * the first (with FULL gone and the limit still at the start, the
 * chunk would wrap).
 */
static void log_99(void)
{
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 99, 0);
}

static void test_set_flags_interrupt(void)
{
	int a;
	unsigned i;

	reset();
	a = FTrace_chunk_create(8 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 1; i <= 3; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, 0);
	CHECK(FTrace_set_chunk_flags(a, FTRACE_CHUNK_FLAG_CYC | FTRACE_CHUNK_FLAG_FULL) == 0);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 4, 0);  /* frozen: dropped */
	arm(TKREC_POINT_SET_FLAGS, log_99);
	CHECK(FTrace_set_chunk_flags(a, FTRACE_CHUNK_FLAG_CYC) == 0);
	disarm();
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 5, 0);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 6 * 16);  /* 1 2 3 99 5 and the lost count */
	CHECK(rpar1(0) == 1 && rpar1(1) == 2 && rpar1(2) == 3);
	CHECK(rpar1(3) == 99 && rpar1(4) == 5);
	CHECK(rtype(5) == FTrace_EVT_numevents && rpar2(5) == 1);
}

/*
 * A chunk being sent is not written, taken, freed or deleted: the sink
 * plays an interrupt in the middle of the dump.
 */
static int send_a, send_b;
static volatile int in_sink_rc[5];
static volatile int sink_calls;

static void isr_sink(void *ctx, const char *name, unsigned index,
		     const void *bytes, size_t n)
{
	if (sink_calls++ == 2) {
		TRACER_LOGEVENT(FTrace_EVT_ipoint, 77, 0);
		in_sink_rc[0] = FTrace_actual_chunk_select(send_a);
		in_sink_rc[1] = FTrace_set_chunk_flags(send_a, FTRACE_CHUNK_FLAG_FREE);
		in_sink_rc[2] = FTrace_chunk_delete(send_a);
		in_sink_rc[3] = FTrace_send_chunk(send_b, 0, 0);
		in_sink_rc[4] = FTrace_chunk_link(send_b, send_a);
	}
	to_mem(ctx, name, index, bytes, n);
}

static void test_send_busy(void)
{
	writer_arg w1 = { 1, 10, 1, -1, 0 };
	pthread_t t1;
	int x;
	unsigned i;

	reset();
	send_a = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	send_b = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	x = FTrace_chunk_create(16 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(send_a) == 0);
	FTrace_enable();
	for (i = 0; i < 5; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, 0, i);
	/* tracing on: the sink's "interrupt" logs during the dump */
	tkrec_set_sink(isr_sink, &d);
	sink_calls = 0;
	send_chunk(send_a);
	tkrec_set_sink(to_mem, &d);
	CHECK(dump_is(0, 5));
	CHECK(in_sink_rc[0] < 0 && in_sink_rc[1] < 0 && in_sink_rc[2] < 0 &&
	      in_sink_rc[3] < 0 && in_sink_rc[4] < 0);
	/* the chunk was taken from core 0: selected again, it goes on at 5 */
	CHECK(FTrace_actual_chunk_select(send_a) == 0);
	TRACER_LOGEVENT(FTrace_EVT_user_event_0, 0, 5);
	send_chunk(send_a);
	CHECK(dump_is(0, 6));
	/* another core's chunk, or one on its JTN chain, is not sent */
	CHECK(FTrace_chunk_link(x, send_b) == 0);
	w1.chunk = x;
	pthread_create(&t1, NULL, writer, &w1);
	pthread_join(t1, NULL);
	FTrace_disable();
	tkrec_host_core = 0;
	CHECK(FTrace_send_chunk(x, 0, 0) < 0);
	CHECK(FTrace_send_chunk(send_b, 0, 0) < 0);
	tkrec_host_core = 1;
	send_chunk(x);
	CHECK(dump_is(1, 10));
	tkrec_host_core = 0;
}

/* ---- end to end: the dump read back by tracekit -------------------------- */

static void test_end_to_end(const char *path)
{
	static const char *want[] = {
		"set_frequence", "start", "activate", "schedule", "start",
		"lock", "unlock", "terminate", "user_event_4", "stop",
	};
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t n = 0;
	int a, rc;

	reset();
	a = FTrace_chunk_create(64 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 256, 1000);
	TRACER_LOGEVENT(FTrace_EVT_id, 264, 3);
	TRACER_LOGEVENT(FTrace_EVT_task_activate, 264, 0);
	TRACER_LOGEVENT(FTrace_EVT_task_schedule, 264, 264);
	TRACER_LOGEVENT(FTrace_EVT_context_switch, 264, 0);
	TRACER_LOGEVENT(FTrace_EVT_set_mutex_lock, 264, 0x1000);
	TRACER_LOGEVENT(FTrace_EVT_set_mutex_unlock, 264, 0x1000);
	TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, 264, 0);
	TRACER_LOGEVENT(FTrace_EVT_user_event_4, 1, 2);
	TRACER_LOGEVENT(FTrace_EVT_trace_stop, 0, 0);
	FTrace_disable();
	send_chunk(a);
	CHECK(d.len == 10 * 16);
	if (path) {
		FILE *fp = fopen(path, "wb");
		if (fp) {
			fwrite(d.bytes, 1, d.len, fp);
			fclose(fp);
		}
	}
	tk_reader_opts_init(&o);
	o.format = "shark";
	o.strict = 1;
	CHECK(tk_reader_open_mem(&r, d.bytes, d.len, "dump", &o, &err) == TK_OK);
	if (!r)
		return;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const char *name = tk_trace_str(tk_reader_trace(r), ev->name, NULL);
		if (n < sizeof(want) / sizeof(want[0]) && strcmp(name, want[n]) != 0) {
			fprintf(stderr, "event %zu: %s, expected %s\n", n, name, want[n]);
			fails++;
		}
		/* 1000 cycles/ms, 10 cycles apart: a tick is a cycle (1 us) */
		if (n == 1)
			CHECK(ev->time == 10);
		n++;
	}
	CHECK(rc == TK_END);
	CHECK(n == sizeof(want) / sizeof(want[0]));
	CHECK(tk_trace_entity_find(tk_reader_trace(r), "task3", 5) != TK_NONE);
	CHECK(tk_reader_warning_count(r) == 0);
	tk_reader_close(r);
}

/* ---- the UDP sender on loopback ------------------------------------------ */

static int udp_receiver(unsigned *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	struct timeval tv = { 5, 0 };
	int big = 1 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	*port = ntohs(a.sin_port);
	return fd;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Receive one datagram and check it byte for byte: header and records. */
static void expect_packet(int fd, uint32_t number, const uint8_t *recs,
			  uint32_t nev)
{
	static uint8_t got[2048], want[2048];
	uint32_t total = 24 + 16 * nev;
	ssize_t n = recv(fd, got, sizeof(got), 0);

	memset(want, 0, 24);
	memcpy(want, "TRACER-V1.0", 12);
	le32(want + 12, number);
	le32(want + 16, nev);
	le32(want + 20, total);
	memcpy(want + 24, recs, 16 * (size_t)nev);
	CHECK(n == (ssize_t)total);
	CHECK(n == (ssize_t)total && memcmp(got, want, total) == 0);
}

static void test_udp(void)
{
	static uint8_t ref[150 * 16];
	unsigned port = 0, i;
	uint8_t junk[2048];
	int fd, a, b;

	reset();
	fd = udp_receiver(&port);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	tkrec_host_udp_config(0, port, 0);
	a = FTrace_chunk_create(150 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	b = FTrace_chunk_create(16 * 16, 2 * 16, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 0; i < 150; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_2, i, i * 7 + 1);
	FTrace_disable();
	/* the disk dump is the reference for the datagrams' records */
	FTrace_init_disk_writer("ref", 0, NULL, NULL);
	send_chunk(a);
	CHECK(d.len == sizeof(ref));
	memcpy(ref, d.bytes, sizeof(ref));
	d.len = 0;
	CHECK(FTrace_OSD_init_udp(1, "127.0.0.1", "127.0.0.1") == 0);
	CHECK(FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
	CHECK(d.len == 0);  /* nothing went to the disk sink */
	/* 150 records: 60 + 60 + 30, numbered from 1 */
	expect_packet(fd, 1, ref, 60);
	expect_packet(fd, 2, ref + 60 * 16, 60);
	expect_packet(fd, 3, ref + 120 * 16, 30);
	/* a STOP chunk that drops 3: 16 + 1 emergency + the lost record */
	CHECK(FTrace_actual_chunk_select(b) == 0);
	FTrace_enable();
	for (i = 0; i < 20; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, i);
	FTrace_disable();
	FTrace_init_disk_writer("ref", 0, NULL, NULL);
	send_chunk(b);
	CHECK(d.len == 18 * 16);
	CHECK(rtype(17) == FTrace_EVT_numevents && rpar2(17) == 3);
	/* "" for the target is the loopback; a new init keeps the numbering */
	CHECK(FTrace_OSD_init_udp(0, "127.0.0.1", "") == 0);
	CHECK(FTrace_send_chunk(b, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
	expect_packet(fd, 4, d.bytes, 18);  /* the count goes on across chunks */
	CHECK(recv(fd, junk, sizeof(junk), MSG_DONTWAIT) < 0);  /* no more */
	/* a closed link: the send fails and the flags stay */
	tkrec_host_udp_close();
	CHECK(FTrace_set_chunk_flags(b, FTRACE_CHUNK_FLAG_STOP) == 0);
	CHECK(FTrace_send_chunk(b, 0, FTRACE_CHUNK_FLAG_FREE) < 0);
	{
		FTrace_flags f = 0;
		CHECK(FTrace_get_chunk_flags(b, &f) == 0 && f == FTRACE_CHUNK_FLAG_STOP);
	}
	close(fd);
}

/* ---- the host disk writer: 0trace.dat, 1trace.dat ------------------------ */

static long read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (!fp)
		return -1;
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	return (long)n;
}

static void test_disk_writer(void)
{
	static uint8_t want[2][160], got[512];
	char dir[] = "/tmp/tkrec_disk_XXXXXX", path[256];
	int a, b, k;
	unsigned i;

	reset();
	a = FTrace_chunk_create(10 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	b = FTrace_chunk_create(10 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	for (i = 0; i < 10; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, i);
	CHECK(FTrace_actual_chunk_select(b) == 0);
	for (i = 0; i < 5; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_1, i, 0);
	FTrace_disable();
	send_chunk(a);
	memcpy(want[0], d.bytes, 160);
	send_chunk(b);
	memcpy(want[1], d.bytes, 80);
	CHECK(mkdtemp(dir) != NULL);
	tkrec_set_sink(tkrec_host_disk_sink, dir);
	FTrace_init_disk_writer("trace.dat", 0, NULL, NULL);
	CHECK(FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
	CHECK(FTrace_send_chunk(b, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
	CHECK(tkrec_host_disk_close() == 0);
	for (k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%d%s", dir, k + 2, "trace.dat");
		CHECK(read_file(path, got, sizeof(got)) == (k ? 80 : 160));
		CHECK(memcmp(got, want[k], k ? 80 : 160) == 0);
		remove(path);
	}
	/* a directory that does not exist: reported at close */
	tkrec_set_sink(tkrec_host_disk_sink, "/nonexistent/tkrec");
	CHECK(FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) == 0);
	CHECK(tkrec_host_disk_close() < 0);
	CHECK(rmdir(dir) == 0);
	tkrec_set_sink(to_mem, &d);
}

/* ---- re-entrancy: a signal handler logs while the main flow logs ---------- */

static volatile uint32_t h_seq;

static void on_alarm(int sig)
{
	(void)sig;
	/* par1 repeats the sequence number's low half: a torn record shows */
	TRACER_LOGEVENT(FTrace_EVT_user_event_7, h_seq ^ 0xBEEFu, h_seq);
	h_seq = h_seq + 1;
}

/*
 * Log at least n events from the main flow while SIGALRM logs too, more
 * (up to 100000) until 20 signals came: a loaded machine may be slow.
 */
static uint32_t run_with_timer(uint32_t n, long period_us)
{
	struct itimerval it, off;
	struct sigaction sa;
	uint32_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	memset(&off, 0, sizeof(off));
	it.it_interval.tv_usec = period_us;
	it.it_value.tv_usec = period_us;
	h_seq = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n || (h_seq < 20 && i < 100000u); i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, i & 0xffffu, i);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	return i;
}

/*
 * Every record of the dump: well formed, each main and handler event at
 * most once, TSCs strictly increasing in buffer order (each section was
 * whole).  Returns the number of records checked; *lost_rec gets the
 * lost-count record's par2 (or stays).
 */
static size_t check_interleaved(uint32_t nmain, uint32_t nsig, uint8_t *seen_m,
				uint8_t *seen_s, uint32_t *lost_rec)
{
	size_t i, n = d.len / 16, bad = 0, dup = 0;

	for (i = 0; i < n; i++) {
		unsigned t = rtype(i);
		uint32_t p2 = rpar2(i);

		if (i && rtsc(i) <= rtsc(i - 1))
			bad++;
		if (t == FTrace_EVT_user_event_0 && p2 < nmain &&
		    rpar1(i) == (p2 & 0xffffu))
			dup += seen_m[p2]++ != 0;
		else if (t == FTrace_EVT_user_event_7 && p2 < nsig &&
			 rpar1(i) == ((p2 ^ 0xBEEFu) & 0xffffu))
			dup += seen_s[p2]++ != 0;
		else if (t == FTrace_EVT_numevents && i == n - 1)
			*lost_rec = p2;
		else
			bad++;
	}
	CHECK(bad == 0);
	CHECK(dup == 0);
	return n;
}

static void test_signal_reentry(void)
{
	static uint8_t seen_m[1 << 17], seen_s[1 << 17];
	uint32_t nmain, nsig, i, missing = 0, lost_rec = 0;
	int a;

	/* room for all: every event exactly once */
	reset();
	a = FTrace_chunk_create(120000 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	nmain = run_with_timer(60000, 100);
	nsig = h_seq;
	FTrace_disable();
	CHECK(nsig >= 20);
	CHECK(nmain + nsig <= 120000);
	CHECK((nmain + nsig) * 16u <= sizeof(d.bytes));
	send_chunk(a);
	memset(seen_m, 0, sizeof(seen_m));
	memset(seen_s, 0, sizeof(seen_s));
	CHECK(check_interleaved(nmain, nsig, seen_m, seen_s, &lost_rec) == nmain + nsig);
	for (i = 0; i < nmain; i++)
		missing += !seen_m[i];
	for (i = 0; i < nsig; i++)
		missing += !seen_s[i];
	CHECK(missing == 0);
	CHECK(tkrec_lost() == 0);
	fprintf(stderr, "signal re-entry: %u main + %u handler events, none lost\n",
		(unsigned)nmain, (unsigned)nsig);

	/* too little room: what is kept is whole and the lost count is right */
	reset();
	a = FTrace_chunk_create(1000 * 16, 2 * 16, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	nmain = run_with_timer(20000, 50);
	nsig = h_seq;
	FTrace_disable();
	CHECK(nsig >= 20);
	send_chunk(a);
	memset(seen_m, 0, sizeof(seen_m));
	memset(seen_s, 0, sizeof(seen_s));
	CHECK(check_interleaved(nmain, nsig, seen_m, seen_s, &lost_rec) == 1002);
	CHECK(tkrec_lost() == nmain + nsig - 1001);
	CHECK(lost_rec == tkrec_lost());
	fprintf(stderr, "signal re-entry: %u main + %u handler events, %u lost\n",
		(unsigned)nmain, (unsigned)nsig, (unsigned)tkrec_lost());
}

/*
 * --udp-send PORT REF: for tests/recorder/udp_interop.sh, send two chunks
 * (150 records, then 18 with a lost record) to 127.0.0.1:PORT and write
 * their disk dump to REF: the receiver's file must equal it.
 */
static int udp_send_mode(const char *port, const char *ref)
{
	static uint8_t all[168 * 16];
	size_t len = 0;
	unsigned i;
	int a, b, k;
	FILE *fp;

	reset();
	a = FTrace_chunk_create(150 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	b = FTrace_chunk_create(16 * 16, 2 * 16, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	FTrace_actual_chunk_select(a);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 256, 1000);
	for (i = 1; i < 150; i++)
		TRACER_LOGEVENT(FTrace_EVT_user_event_2, i, i * 7 + 1);
	FTrace_disable();
	FTrace_set_chunk_flags(a, FTRACE_CHUNK_FLAG_FREE);
	FTrace_actual_chunk_select(b);
	FTrace_enable();
	for (i = 0; i < 20; i++)
		TRACER_LOGEVENT(FTrace_EVT_ipoint, i, i);
	FTrace_disable();
	for (k = 0; k < 2; k++) {
		send_chunk(k ? b : a);
		memcpy(all + len, d.bytes, d.len);
		len += d.len;
	}
	fp = fopen(ref, "wb");
	if (!fp || fwrite(all, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(stderr, "%s: cannot write\n", ref);
		return 1;
	}
	tkrec_host_udp_config(0, (unsigned)atoi(port), 1000);
	if (FTrace_OSD_init_udp(1, "127.0.0.1", "127.0.0.1") != 0 ||
	    FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) != 0 ||
	    FTrace_send_chunk(b, 0, FTRACE_CHUNK_FLAG_FREE) != 0) {
		fprintf(stderr, "udp send failed\n");
		return 1;
	}
	tkrec_host_udp_close();
	return len == sizeof(all) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--udp-send"))
		return udp_send_mode(argv[2], argv[3]);
	test_wrap();
	test_wrap_meta();
	test_meta_chunk_256();
	test_jtn_chain();
	test_stop_emergency_lost();
	test_filters_and_bounds();
	test_two_cores();
	test_delete_successor();
	test_free_active();
	test_select_race();
	test_set_flags_interrupt();
	test_send_busy();
	test_udp();
	test_disk_writer();
	test_signal_reentry();
	test_end_to_end(argc > 1 ? argv[1] : NULL);
	if (fails) {
		fprintf(stderr, "recorder: %u checks failed\n", fails);
		return 1;
	}
	printf("recorder: all checks passed\n");
	return 0;
}
