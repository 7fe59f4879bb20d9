/*
 * test_shark_time.c - the S.Ha.R.K. reader's TSC -> ps map without a
 * division per record (src/formats/shark/shark_time.h) against its 128-bit
 * reference, at the edges: clock rates from 1 to beyond 2^32 cycles/ms,
 * steps at and around the 64-bit limit (dmax), huge steps, a TSC that goes
 * down (below the last one, below the segment start), clock changes, and
 * times at the 2^64 ps limit.
 */
#include "tk_test.h"
#include "shark_time.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	/* xorshift64*: the same sequence at every run */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static int mismatches;

/* One TSC through both: the same status and, when 0, the same time. */
static void one(shark_clock *c, uint64_t tsc)
{
	uint64_t want = 0, got = 0;
	int rw = shark_clock_ref(c->clk, c->seg_tsc, c->seg_ps, tsc, &want);
	int rg = shark_clock_ps(c, tsc, &got);

	tk_test_checks++;
	if (rw != rg || (rw == 0 && want != got)) {
		tk_test_failures++;
		if (++mismatches <= 10)
			fprintf(stderr,
				"clk %" PRIu64 " seg %" PRIu64 "@%" PRIu64 " tsc %" PRIu64
				": ref %d %" PRIu64 ", fast %d %" PRIu64 "\n",
				c->clk, c->seg_tsc, c->seg_ps, tsc, rw, want, rg, got);
	}
}

static const uint64_t clocks[] = {
	1, 2, 3, 7, 999, 1000, 367483, 999999, 1000000, 1000001,
	999999999, 1000000000, 1000000007, 2147483647, 2147483648u,
	4294967295u, 4294967296ull, 1099511627776ull, 9223372036854775807ull,
	UINT64_MAX
};
#define NCLOCKS (sizeof(clocks) / sizeof(clocks[0]))

/* A step of one of the interesting sizes around `dmax`. */
static uint64_t step(const shark_clock *c)
{
	switch (next_rand() % 10) {
	case 0: return 0;
	case 1: return 1;
	case 2: return c->dmax;
	case 3: return c->dmax + 1;
	case 4: return c->dmax - 1;
	case 5: return next_rand();               /* huge */
	case 6: return next_rand() % (c->dmax + 2);
	default: return next_rand() % 100000;    /* a usual gap */
	}
}

static void test_walks(void)
{
	size_t k;
	int i, w;

	for (k = 0; k < NCLOCKS; k++) {
		for (w = 0; w < 50; w++) {
			shark_clock c;
			uint64_t seg = w % 5 == 0 ? 0 : next_rand() >> (next_rand() % 64);
			uint64_t ps = w % 7 == 0 ? UINT64_MAX - next_rand() % 1000000
				      : next_rand() >> (next_rand() % 64);
			uint64_t tsc = seg;
			shark_clock_set(&c, clocks[k], seg, ps);
			for (i = 0; i < 2000; i++) {
				uint64_t r = next_rand() % 16, t2;
				if (r == 0) {
					/* down: below the last TSC, maybe below
					 * the segment start */
					tsc -= tsc == UINT64_MAX ? next_rand()
							   : next_rand() % (tsc + 1);
				} else if (r == 1 && tsc < seg + 5) {
					tsc = seg ? seg - 1 - next_rand() % seg : 0;
				} else if (r == 2) {
					/* a new clock rate from here on, at the
					 * time of this TSC (as the reader does) */
					uint64_t now;
					if (shark_clock_ps(&c, tsc, &now) == 0) {
						shark_clock_set(&c, clocks[next_rand() % NCLOCKS],
								tsc, now);
						seg = tsc;
					}
				} else {
					t2 = tsc + step(&c);
					tsc = t2 < tsc ? UINT64_MAX : t2;
				}
				one(&c, tsc);
			}
		}
	}
}

/* Fixed cases whose values are known. */
static void test_values(void)
{
	shark_clock c;
	uint64_t t = 0;

	/* 367483 cycles/ms (the demo dump): 1 cycle is 2721.21... ps */
	shark_clock_set(&c, 367483, 1000, 0);
	CHECK(shark_clock_ps(&c, 1000, &t) == 0);
	CHECK_EQ_U64(t, 0);
	CHECK(shark_clock_ps(&c, 1001, &t) == 0);
	CHECK_EQ_U64(t, 2721);
	CHECK(shark_clock_ps(&c, 1000 + 367483, &t) == 0);
	CHECK_EQ_U64(t, 1000000000u);  /* one ms */
	/* before the segment: rounded toward it, 0 at the least */
	CHECK(shark_clock_ps(&c, 999, &t) == 0);
	CHECK_EQ_U64(t, 0);
	shark_clock_set(&c, 367483, 1000, 5000);
	CHECK(shark_clock_ps(&c, 999, &t) == 0);
	CHECK_EQ_U64(t, 5000 - 2722);
	/* 1 cycle/ms: 10^9 ps per cycle; the last whole time and one past */
	shark_clock_set(&c, 1, 0, 0);
	CHECK(shark_clock_ps(&c, UINT64_MAX / 1000000000u, &t) == 0);
	CHECK_EQ_U64(t, UINT64_MAX / 1000000000u * 1000000000u);
	CHECK(shark_clock_ps(&c, UINT64_MAX / 1000000000u + 1, &t) == -1);
	/* a failure leaves the state: the next TSC reads as before */
	CHECK(shark_clock_ps(&c, 3, &t) == 0);
	CHECK_EQ_U64(t, 3000000000u);
	/* at 2^64 - 1 ps exactly */
	shark_clock_set(&c, 1000000000u, 0, UINT64_MAX - 5);
	CHECK(shark_clock_ps(&c, 5, &t) == 0);
	CHECK_EQ_U64(t, UINT64_MAX);
	CHECK(shark_clock_ps(&c, 6, &t) == -1);
	/* a step over dmax (the 128-bit path), then back to small steps */
	shark_clock_set(&c, 4294967295u, 0, 0);
	CHECK(shark_clock_ps(&c, c.dmax + 12345, &t) == 0);
	CHECK(shark_clock_ps(&c, c.dmax + 12346, &t) == 0);
	CHECK_EQ_U64(t, (uint64_t)((shark_u128)(c.dmax + 12346) * 1000000000u /
				   4294967295u));
}

int main(void)
{
	test_values();
	test_walks();
	TEST_DONE();
}
