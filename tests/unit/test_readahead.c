/*
 * test_readahead.c - src/core/readahead.h: every chunk in order, whole
 * and once, over one and two ranges, with a decoder faster and slower than
 * the worker (so that each side sleeps and is woken); without a worker,
 * the decoder reading alone and with two other threads pumping; the worker
 * parked and let go while another thread pumps; a failed read handed over
 * with its error and nothing after it; a stop in the middle.
 * Run under ThreadSanitizer by `make tsan` (its name ends in "threads").
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "readahead.h"
#include "tk_test.h"

#define UNIT 8

/* the units' contents: unit u holds u, so that any buffer can be checked */
typedef struct src {
	uint64_t fail_at;    /* the chunk from here fails (UINT64_MAX: none) */
	unsigned slow_ns;    /* the worker's pause per chunk */
	_Atomic uint64_t reads;
	_Atomic uint64_t units;  /* units read, by all */
} src;

static void pause_ns(unsigned ns)
{
	struct timespec ts = { 0, (long)ns };

	if (ns)
		nanosleep(&ts, NULL);
}

static int read_units(void *arg, uint8_t *buf, uint64_t from, uint64_t to,
		      tk_error *err)
{
	src *s = arg;
	uint64_t u;

	s->reads++;
	pause_ns(s->slow_ns);
	if (from == s->fail_at) {
		err->code = TK_E_IO;
		snprintf(err->msg, sizeof(err->msg), "no unit %llu",
			 (unsigned long long)from);
		return TK_E_IO;
	}
	for (u = from; u < to; u++)
		memcpy(buf + (u - from) * UNIT, &u, UNIT);
	s->units += to - from;
	return TK_OK;
}

/* A thread that reads ahead with tk_readahead_pump() until told to end. */
typedef struct pumper {
	tk_readahead *ra;
	atomic_int stop;
	_Atomic uint64_t pumped;
	pthread_t th;
} pumper;

static void *pump_loop(void *v)
{
	pumper *p = v;

	while (!atomic_load(&p->stop)) {
		if (tk_readahead_pump(p->ra))
			p->pumped++;
		else
			pause_ns(1000);
	}
	return NULL;
}

/* How the chunks are read besides the decoder (take_all()). */
typedef struct how {
	int thread;          /* a worker */
	unsigned pumpers;    /* threads calling tk_readahead_pump() */
	int park_every;      /* park and let go the worker every n chunks */
} how;

/* Take every chunk of the ranges and check it; returns the units seen.
 * Every unit is read once, by whoever read it. */
static uint64_t take_how(how h, uint64_t chunk, unsigned nbuf, uint64_t a0,
			 uint64_t a1, uint64_t b0, uint64_t b1,
			 unsigned worker_ns, unsigned decoder_ns)
{
	tk_readahead ra;
	src s = { UINT64_MAX, worker_ns, 0, 0 };
	const tk_readahead_buf *b;
	uint64_t want = a0, seen = 0, taken = 0, pumped = 0;
	int range = 0;
	pumper p[2];
	unsigned i;

	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, chunk, nbuf, a0, a1,
				 b0, b1, h.thread) == TK_OK);
	for (i = 0; i < h.pumpers && i < 2; i++) {
		p[i].ra = &ra;
		atomic_init(&p[i].stop, 0);
		atomic_init(&p[i].pumped, 0);
		CHECK(pthread_create(&p[i].th, NULL, pump_loop, &p[i]) == 0);
	}
	while ((b = tk_readahead_next(&ra)) != NULL) {
		if (h.park_every && ++taken % (uint64_t)h.park_every == 0)
			tk_readahead_park(&ra, (int)(taken / (uint64_t)h.park_every) & 1);
		uint64_t u, v;
		if (range == 0 && want == a1) {
			range = 1;
			want = b0;
		}
		CHECK(b->rc == TK_OK);
		CHECK_EQ_U64(b->from, want);
		CHECK_EQ_U64(b->to, (range ? b1 : a1) - want > chunk
					    ? want + chunk
					    : (range ? b1 : a1));
		for (u = b->from; u < b->to; u++) {
			memcpy(&v, b->data + (u - b->from) * UNIT, UNIT);
			if (v != u) {
				CHECK_EQ_U64(v, u);
				break;
			}
		}
		seen += b->to - b->from;
		want = b->to;
		pause_ns(decoder_ns);
	}
	CHECK(tk_readahead_next(&ra) == NULL);
	for (i = 0; i < h.pumpers && i < 2; i++) {
		atomic_store(&p[i].stop, 1);
		pthread_join(p[i].th, NULL);
		pumped += p[i].pumped;
	}
	/* nothing read twice, nothing past the end */
	CHECK_EQ_U64(s.units, seen);
	CHECK(pumped <= s.reads);
	tk_readahead_stop(&ra);
	return seen;
}

static uint64_t take_all(uint64_t chunk, unsigned nbuf, uint64_t a0,
			 uint64_t a1, uint64_t b0, uint64_t b1,
			 unsigned worker_ns, unsigned decoder_ns)
{
	how h = { 1, 0, 0 };

	return take_how(h, chunk, nbuf, a0, a1, b0, b1, worker_ns, decoder_ns);
}

int main(void)
{
	tk_readahead ra;
	src s = { 30, 0, 0, 0 };
	how alone = { 0, 0, 0 }, pumped = { 0, 2, 0 }, parked = { 1, 1, 3 };
	const tk_readahead_buf *b;
	uint64_t n = 0;

	/* one range, a last chunk shorter than the others */
	CHECK_EQ_U64(take_all(10, 2, 0, 1005, 0, 0, 0, 0), 1005);
	/* two ranges (a wrapped dump: its end, then its start) */
	CHECK_EQ_U64(take_all(16, 8, 700, 1000, 0, 700, 0, 0), 1000);
	CHECK_EQ_U64(take_all(1000, 3, 5, 6, 0, 5, 0, 0), 6);
	/* the decoder sleeps (slow worker), the worker sleeps (slow decoder) */
	CHECK_EQ_U64(take_all(7, 4, 0, 300, 0, 0, 200000, 0), 300);
	CHECK_EQ_U64(take_all(7, 4, 100, 300, 0, 100, 0, 200000), 300);
	/* empty */
	CHECK_EQ_U64(take_all(8, 2, 0, 0, 0, 0, 0, 0), 0);

	/* no worker: the decoder reads every chunk itself */
	CHECK_EQ_U64(take_how(alone, 10, 2, 0, 1005, 0, 0, 0, 0), 1005);
	CHECK_EQ_U64(take_how(alone, 16, 8, 700, 1000, 0, 700, 0, 0), 1000);
	/* no worker, two threads pumping: with a fast and a slow decoder
	 * (it reads what they have not claimed, waits for what they read) */
	CHECK_EQ_U64(take_how(pumped, 7, 4, 0, 3000, 0, 0, 0, 0), 3000);
	CHECK_EQ_U64(take_how(pumped, 7, 4, 100, 3000, 0, 100, 50000, 0), 3000);
	CHECK_EQ_U64(take_how(pumped, 7, 4, 0, 300, 0, 0, 0, 200000), 300);
	/* a worker parked and let go every 3 chunks, beside a pumper */
	CHECK_EQ_U64(take_how(parked, 7, 4, 0, 3000, 0, 0, 0, 0), 3000);
	CHECK_EQ_U64(take_how(parked, 7, 4, 0, 300, 0, 0, 20000, 100000), 300);

	/* a parked worker reads nothing; the pump reads while a buffer is
	 * free, then the decoder takes what it read */
	s.fail_at = UINT64_MAX;
	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, 10, 4, 0, 100, 0,
				 0, 0) == TK_OK);
	tk_readahead_park(&ra, 1);
	CHECK(tk_readahead_pump(&ra) == 1);
	CHECK(tk_readahead_pump(&ra) == 1);
	CHECK(tk_readahead_pump(&ra) == 1);
	CHECK(tk_readahead_pump(&ra) == 1);
	CHECK(tk_readahead_pump(&ra) == 0);   /* every buffer read */
	CHECK_EQ_U64(s.reads, 4);
	b = tk_readahead_next(&ra);
	CHECK(b != NULL && b->from == 0 && b->to == 10);
	CHECK(tk_readahead_pump(&ra) == 0);   /* chunk 0 still held */
	b = tk_readahead_next(&ra);
	CHECK(b != NULL && b->from == 10);
	CHECK(tk_readahead_pump(&ra) == 1);   /* chunk 4, into chunk 0's */
	CHECK_EQ_U64(s.reads, 5);
	while ((b = tk_readahead_next(&ra)) != NULL)
		n += b->to - b->from;
	CHECK_EQ_U64(n, 80);
	CHECK_EQ_U64(s.reads, 10);
	CHECK(tk_readahead_pump(&ra) == 0);   /* all read */
	tk_readahead_stop(&ra);
	CHECK(tk_readahead_pump(&ra) == 0);   /* stopped */
	n = 0;
	s.reads = 0;
	s.fail_at = 30;

	/* a failed read: handed over with its error, nothing after it */
	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, 10, 4, 0, 100, 0,
				 0, 1) == TK_OK);
	while ((b = tk_readahead_next(&ra)) != NULL && b->rc == TK_OK)
		n += b->to - b->from;
	CHECK_EQ_U64(n, 30);
	CHECK(b != NULL && b->rc == TK_E_IO && b->from == 30);
	CHECK_STR(b ? b->err.msg : NULL, "no unit 30");
	CHECK(tk_readahead_next(&ra) == NULL);
	tk_readahead_stop(&ra);
	/* (the decoder may read chunk 3 itself while the worker reads on:
	 * nothing is claimed once the failure is known, and never more than
	 * the buffers free then, chunks 4-6) */
	CHECK(s.reads >= 4 && s.reads <= 7);

	/* stopped in the middle, the worker asleep on full buffers */
	s.fail_at = UINT64_MAX;
	s.reads = 0;
	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, 10, 4, 0, 100000,
				 0, 0, 1) == TK_OK);
	b = tk_readahead_next(&ra);
	CHECK(b != NULL && b->from == 0);
	pause_ns(20000000);
	CHECK(s.reads <= 4);
	tk_readahead_stop(&ra);
	tk_readahead_stop(&ra);   /* again: nothing to do */
	TEST_DONE();
}
