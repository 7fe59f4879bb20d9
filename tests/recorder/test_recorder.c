/*
 * test_recorder.c - the FTrace recorder on the host port: wrap-around, JTN
 * chains, STOP, the emergency area, the lost count, filters, bounds, two
 * threads as two cores, and end to end (events logged -> dump -> tracekit
 * reads back the same events).
 */
#include "FTrace.h"
#include "tracekit/tracekit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the host port's hooks ---------------------------------------------- */

__thread unsigned tkrec_host_core;
static __thread uint64_t fake_tsc;

uint64_t tkrec_host_tsc(void)
{
	return fake_tsc += 10;  /* a cycle count that always grows */
}

/* ---- a sink into memory ------------------------------------------------- */

typedef struct dump {
	uint8_t bytes[1 << 20];
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

static void send(int n)
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
	send(a);
	CHECK(d.len == 4 * 16);
	CHECK(rpar1(3) == 4 && rpar2(3) == 400);
	/* two more wrap over the oldest: buffer order 5 6 3 4 */
	CHECK(FTrace_actual_chunk_select(a) == 0);
	FTrace_enable();
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 5, 0);
	TRACER_LOGEVENT(FTrace_EVT_ipoint, 6, 0);
	FTrace_disable();
	send(a);
	CHECK(d.len == 64);
	CHECK(rpar1(0) == 5 && rpar1(1) == 6 && rpar1(2) == 3 && rpar1(3) == 4);
	CHECK(rtsc(1) > rtsc(3) && rtsc(2) < rtsc(3));
	CHECK(tkrec_lost() == 0);
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
	send(a);
	CHECK(d.len == 32 && rpar1(0) == 1 && rpar1(1) == 2);
	send(b);
	CHECK(d.len == 32 && rpar1(0) == 3 && rpar1(1) == 4);
	send(c);
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
	send(a);
	CHECK(d.len == 5 * 16);
	CHECK(rpar1(0) == 1 && rpar1(1) == 2 && rpar1(2) == 3 && rpar1(3) == 4);
	CHECK(rtype(4) == FTrace_EVT_numevents && rpar1(4) == TKREC_LOST_PAR1 &&
	      rpar2(4) == 3);

	/* no emergency area: the dump appends the lost count */
	reset();
	b = FTrace_chunk_create(2 * 16, 0, FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	CHECK(FTrace_actual_chunk_select(b) == 0);
	FTrace_enable();
	for (i = 1; i <= 5; i++)
		FAST_TRACER_LOGEVENT(FTrace_EVT_ipoint, i, 0);
	send(b);
	CHECK(d.len == 3 * 16);
	CHECK(rtype(0) == (FTrace_EVT_ipoint | TKREC_FAST));
	CHECK(rtype(2) == FTrace_EVT_numevents && rpar2(2) == 3);
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
	send(a);
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
	CHECK(FTrace_OSD_init_udp(1, "127.0.0.1", "127.0.0.1") < 0);
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
	for (k = 0; k < 2; k++) {
		unsigned bad = 0;
		send(ch[k]);
		CHECK(d.len == PER_CORE * 16);
		for (i = 0; i < PER_CORE && i * 16 < d.len; i++)
			bad += rpar1(i) != k || rpar2(i) != i;
		CHECK(bad == 0);
	}
	CHECK(tkrec_lost() == 0);
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
	send(a);
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

int main(int argc, char **argv)
{
	test_wrap();
	test_jtn_chain();
	test_stop_emergency_lost();
	test_filters_and_bounds();
	test_two_cores();
	test_end_to_end(argc > 1 ? argv[1] : NULL);
	if (fails) {
		fprintf(stderr, "recorder: %u checks failed\n", fails);
		return 1;
	}
	printf("recorder: all checks passed\n");
	return 0;
}
