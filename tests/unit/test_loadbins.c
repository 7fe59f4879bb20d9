/*
 * test_loadbins.c - the exports' busy time per lane and window
 * (src/analysis/loadbins.c) against the overlap of every interval with
 * every window, computed here from the intervals kept:
 *   - intervals on a few busy lanes (forward, going back, before the
 *     first time, empty), over spans that double the window many times;
 *   - 65,536 lanes each busy once keep one window each, and a lane never
 *     busy keeps nothing (the memory follows the windows used, not
 *     lanes x TK_LOAD_BINS).
 */
#include <stdint.h>
#include <stdlib.h>

#include "analysis_exports.h"
#include "tk_test.h"

#define NIV 4000
#define NLANE 5

typedef struct iv {
	size_t lane;
	uint64_t s, e;
} iv;

/* busy ticks of lane in window b, from the intervals, clamped as documented */
static uint64_t ref_busy(const iv *v, size_t n, const tk_loadbins *lb,
			 size_t lane, size_t b)
{
	unsigned __int128 ws = (unsigned __int128)lb->first +
			       (unsigned __int128)b * lb->binw;
	unsigned __int128 we = ws + lb->binw;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned __int128 s = v[i].s, e = v[i].e, lo, hi;
		if (v[i].lane != lane)
			continue;
		if (s < lb->first)
			s = lb->first;
		if (e < s)
			e = s;
		lo = s > ws ? s : ws;
		hi = e < we ? e : we;
		if (hi > lo)
			sum += (uint64_t)(hi - lo);
	}
	return sum;
}

static void random_case(void)
{
	static iv v[NIV];
	tk_loadbins lb;
	uint64_t t = 1000;
	size_t i, b, lane, bad = 0;

	tk_loadbins_init(&lb, t);
	for (i = 0; i < NIV; i++) {
		uint64_t r = tk_test_next();
		v[i].lane = (size_t)(r % NLANE);
		/* mostly forward, growing steps; some back, some before first */
		if (r % 13 == 0)
			v[i].s = t > 5000 ? t - 5000 : 0;
		else
			t += (tk_test_next() % 64) << (i / 300);
		if (r % 13)
			v[i].s = t;
		v[i].e = r % 17 == 0 ? v[i].s - (v[i].s > 0) : v[i].s + tk_test_next() % (1u << (i / 300 + 4));
		CHECK(tk_loadbins_add(&lb, v[i].lane, v[i].s, v[i].e) == 0);
	}
	CHECK(lb.binw > 1);
	CHECK(lb.nbins <= TK_LOAD_BINS);
	for (lane = 0; lane < NLANE + 1; lane++)
		for (b = 0; b < TK_LOAD_BINS; b++)
			if (tk_loadbins_busy(&lb, lane, b) != ref_busy(v, NIV, &lb, lane, b))
				bad++;
	CHECK_EQ_U64(bad, 0);
	tk_loadbins_free(&lb);
}

static void many_lanes_case(void)
{
	tk_loadbins lb;
	size_t lane, kept = 0;

	tk_loadbins_init(&lb, 0);
	/* the window first doubles to cover the whole span, then each lane
	 * is busy for 3 ticks once */
	CHECK(tk_loadbins_add(&lb, 0, 0, (uint64_t)1 << 30) == 0);
	for (lane = 1; lane < 65536; lane += 2)
		CHECK(tk_loadbins_add(&lb, lane, (uint64_t)lane << 14,
				      ((uint64_t)lane << 14) + 3) == 0);
	for (lane = 1; lane < 65536; lane++) {
		kept += lb.lane[lane].cap;
		if (lane % 2)
			CHECK_EQ_U64(lb.lane[lane].n, 1);
		else
			CHECK_EQ_U64(lb.lane[lane].n, 0);
	}
	/* about 16 windows kept per busy lane, not 1024 */
	CHECK(kept <= 16 * 32768);
	CHECK_EQ_U64(tk_loadbins_busy(&lb, 65535, (size_t)((65535ull << 14) / lb.binw)), 3);
	CHECK_EQ_U64(tk_loadbins_busy(&lb, 65534, 0), 0);
	CHECK_EQ_U64(tk_loadbins_busy(&lb, 70000, 0), 0);
	tk_loadbins_free(&lb);
}

int main(void)
{
	random_case();
	many_lanes_case();
	TEST_DONE();
}
