/*
 * test_pctl.c - the percentiles of stats (src/analysis/pctl.c), built here
 * with runs of 64 values merged 4 at a time, so that a few thousand values
 * make many runs and several rounds of merging; against a sort of each
 * row's values (nearest rank: the k-th smallest, k = ceil(p/100 * n)).
 */
#define PCT_BUF ((size_t)64)
#define PCT_FAN 4u
#include "../../src/analysis/pctl.c"

#include "tk_test.h"

#include <stdlib.h>

#define NP 7
static const uint32_t P[NP] = { 1, 50000000, 90000000, 99000000, 99900000,
				100000000, 10000000 };

#define MAXROW 40
static uint64_t *vals[MAXROW];
static size_t nval[MAXROW], capval[MAXROW];

static uint64_t count_of(void *ctx, uint32_t row)
{
	(void)ctx;
	return nval[row];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void put(tk_pctl *pc, uint32_t row, uint64_t v)
{
	if (nval[row] == capval[row]) {
		capval[row] = capval[row] ? 2 * capval[row] : 16;
		vals[row] = realloc(vals[row], capval[row] * sizeof(uint64_t));
	}
	vals[row][nval[row]++] = v;
	CHECK(tk_pctl_put(pc, row, v) == TK_OK);
}

/* n values in nrows rows drawn by kind; every row checked */
static void one_case(unsigned seed, size_t n, uint32_t nrows, int kind)
{
	tk_pctl *pc = tk_pctl_new(P, NP);
	uint64_t out[MAXROW * NP];
	uint32_t r, q;
	size_t i;

	srand(seed);
	memset(nval, 0, sizeof(nval));
	memset(out, 0, sizeof(out));
	CHECK(pc != NULL);
	if (!pc)
		return;
	for (i = 0; i < n; i++) {
		uint32_t row = (uint32_t)rand() % nrows;
		uint64_t v;
		switch (kind) {
		case 0: v = (uint64_t)rand() % 5; break;              /* ties */
		case 1: v = ((uint64_t)rand() << 40) ^ (uint64_t)rand(); break;
		default: v = UINT64_MAX - (uint64_t)rand() % 3; break; /* top bits */
		}
		put(pc, row, v);
	}
	CHECK(tk_pctl_finish(pc, nrows, count_of, NULL, out) == TK_OK);
	for (r = 0; r < nrows; r++) {
		if (!nval[r])
			continue;
		qsort(vals[r], nval[r], sizeof(uint64_t), cmp_u64);
		for (q = 0; q < NP; q++) {
			uint64_t k = ((uint64_t)P[q] * nval[r] + 99999999u) / 100000000u;
			CHECK_EQ_U64(out[r * NP + q], vals[r][k - 1]);
		}
	}
	tk_pctl_free(pc);
}

/* the rank rule at its edges, one row: one value, p = 100, boundaries */
static void rank_case(void)
{
	static const uint32_t p[4] = { 10000000, 10000001, 20000000, 100000000 };
	tk_pctl *pc = tk_pctl_new(p, 4);
	uint64_t out[2 * 4];
	uint32_t i;

	memset(nval, 0, sizeof(nval));
	for (i = 10; i >= 1; i--)
		put(pc, 0, i * 100); /* 100 .. 1000, given in reverse */
	put(pc, 1, 7);
	CHECK(tk_pctl_finish(pc, 2, count_of, NULL, out) == TK_OK);
	CHECK_EQ_U64(out[0], 100);  /* 10 % of 10: the 1st */
	CHECK_EQ_U64(out[1], 200);  /* just above 10 %: the 2nd */
	CHECK_EQ_U64(out[2], 200);  /* 20 %: the 2nd */
	CHECK_EQ_U64(out[3], 1000); /* 100 %: the max */
	for (i = 0; i < 4; i++)
		CHECK_EQ_U64(out[4 + i], 7); /* one value: every percentile */
	tk_pctl_free(pc);
}

int main(void)
{
	uint32_t r;

	rank_case();
	one_case(1, 0, 3, 0);          /* no value at all */
	one_case(2, 50, 3, 0);         /* within one buffer */
	one_case(3, 64, 1, 1);         /* exactly one run, nothing left */
	one_case(4, 3000, 7, 0);       /* 47 runs, rounds of 4 */
	one_case(5, 5000, MAXROW, 1);
	one_case(6, 2000, 5, 2);
	one_case(7, 20000, 2, 1);      /* 313 runs, 4 rounds */
	for (r = 0; r < MAXROW; r++)
		free(vals[r]);
	TEST_DONE();
}
