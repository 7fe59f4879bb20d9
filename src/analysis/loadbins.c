/* loadbins.c - busy time per lane in a bounded number of windows. */
#include "loadbins.h"

#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>

void tk_loadbins_init(tk_loadbins *lb, uint64_t first)
{
	memset(lb, 0, sizeof(*lb));
	lb->first = first;
	lb->binw = 1;
}

/* lanes 0..lane exist */
static int grow_lanes(tk_loadbins *lb, size_t lane)
{
	while (lb->nlanes <= lane) {
		if (tk_grow_zero((void **)&lb->lane, &lb->caplanes, lb->nlanes,
				 sizeof(*lb->lane)) < 0)
			return -1;
		lb->lane[lb->nlanes] = calloc(TK_LOAD_BINS, sizeof(uint64_t));
		if (!lb->lane[lb->nlanes])
			return -1;
		lb->nlanes++;
	}
	return 0;
}

/* double the window until t (ticks since first) fits */
static void fit(tk_loadbins *lb, uint64_t t)
{
	size_t i, j;

	while (t / lb->binw >= TK_LOAD_BINS) {
		for (i = 0; i < lb->nlanes; i++) {
			uint64_t *b = lb->lane[i];
			for (j = 0; j < TK_LOAD_BINS / 2; j++)
				b[j] = b[2 * j] + b[2 * j + 1];
			memset(b + TK_LOAD_BINS / 2, 0, TK_LOAD_BINS / 2 * sizeof(*b));
		}
		lb->binw *= 2;
	}
	if (t / lb->binw + 1 > lb->nbins)
		lb->nbins = (size_t)(t / lb->binw) + 1;
}

int tk_loadbins_add(tk_loadbins *lb, size_t lane, uint64_t start, uint64_t end)
{
	uint64_t s, e;

	if (grow_lanes(lb, lane) < 0)
		return -1;
	if (start < lb->first)
		start = lb->first;
	if (end < start)
		end = start;
	s = start - lb->first;
	e = end - lb->first;
	fit(lb, e);
	while (s < e) {
		/* the last window may end at 2^64: its end is computed in 128 bits */
		uint64_t b = s / lb->binw;
		tk_u128 bend = ((tk_u128)b + 1) * lb->binw;
		uint64_t to = (tk_u128)e < bend ? e : (uint64_t)bend;
		lb->lane[lane][b] += to - s;
		s = to;
	}
	return 0;
}

uint64_t tk_loadbins_busy(const tk_loadbins *lb, size_t lane, size_t b)
{
	if (lane >= lb->nlanes || b >= TK_LOAD_BINS)
		return 0;
	return lb->lane[lane][b];
}

void tk_loadbins_free(tk_loadbins *lb)
{
	size_t i;

	for (i = 0; i < lb->nlanes; i++)
		free(lb->lane[i]);
	free(lb->lane);
	memset(lb, 0, sizeof(*lb));
}
