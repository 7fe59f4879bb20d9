/*
 * test_readahead.c - src/core/readahead.h: every chunk in order, whole
 * and once, over one and two ranges, with a decoder faster and slower than
 * the worker (so that each side sleeps and is woken); a failed read
 * handed over with its error and nothing after it; a stop in the middle.
 * Run under ThreadSanitizer by `make tsan` (its name ends in "threads").
 */
#define _POSIX_C_SOURCE 200809L
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
	return TK_OK;
}

/* Take every chunk of the ranges and check it; returns the units seen. */
static uint64_t take_all(uint64_t chunk, unsigned nbuf, uint64_t a0,
			 uint64_t a1, uint64_t b0, uint64_t b1,
			 unsigned worker_ns, unsigned decoder_ns)
{
	tk_readahead ra;
	src s = { UINT64_MAX, worker_ns, 0 };
	const tk_readahead_buf *b;
	uint64_t want = a0, seen = 0;
	int range = 0;

	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, chunk, nbuf, a0, a1,
				 b0, b1) == TK_OK);
	while ((b = tk_readahead_next(&ra)) != NULL) {
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
	tk_readahead_stop(&ra);
	return seen;
}

int main(void)
{
	tk_readahead ra;
	src s = { 30, 0, 0 };
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

	/* a failed read: handed over with its error, nothing after it */
	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, 10, 4, 0, 100, 0,
				 0) == TK_OK);
	while ((b = tk_readahead_next(&ra)) != NULL && b->rc == TK_OK)
		n += b->to - b->from;
	CHECK_EQ_U64(n, 30);
	CHECK(b != NULL && b->rc == TK_E_IO && b->from == 30);
	CHECK_STR(b ? b->err.msg : NULL, "no unit 30");
	CHECK(tk_readahead_next(&ra) == NULL);
	tk_readahead_stop(&ra);
	CHECK_EQ_U64(s.reads, 4);

	/* stopped in the middle, the worker asleep on full buffers */
	s.fail_at = UINT64_MAX;
	s.reads = 0;
	CHECK(tk_readahead_start(&ra, read_units, &s, UNIT, 10, 4, 0, 100000,
				 0, 0) == TK_OK);
	b = tk_readahead_next(&ra);
	CHECK(b != NULL && b->from == 0);
	pause_ns(20000000);
	CHECK(s.reads <= 4);
	tk_readahead_stop(&ra);
	tk_readahead_stop(&ra);   /* again: nothing to do */
	TEST_DONE();
}
