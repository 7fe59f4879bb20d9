/* loadbins.c - busy time per lane in a bounded number of windows. */
#include "analysis_exports.h"

#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>

void tk_loadbins_init(tk_loadbins *lb, uint64_t first)
{
	memset(lb, 0, sizeof(*lb));
	lb->first = first;
	lb->binw = 1;
}

/* where window b is or goes in l: the first i with bin[i] >= b */
static uint32_t find(const tk_loadlane *l, uint64_t b)
{
	uint32_t lo = 0, hi = l->n;

	if (hi && l->bin[hi - 1] < b)
		return hi; /* the usual case: time goes forward */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->bin[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the counter of window b (< TK_LOAD_BINS) of lane, made when missing;
 * NULL: no memory */
static uint64_t *counter(tk_loadbins *lb, size_t lane, uint64_t b)
{
	tk_loadlane *l;
	uint32_t i, cap;

	if (tk_grow_zero((void **)&lb->lane, &lb->caplanes, lane,
			 sizeof(*lb->lane)) < 0)
		return NULL;
	if (lane >= lb->nlanes)
		lb->nlanes = lane + 1;
	l = &lb->lane[lane];
	i = find(l, b);
	if (i < l->n && l->bin[i] == b)
		return &l->busy[i];
	cap = l->cap;
	if (tk_grow_zero32((void **)&l->bin, &cap, l->n, sizeof(*l->bin)) < 0)
		return NULL;
	cap = l->cap;
	if (tk_grow_zero32((void **)&l->busy, &cap, l->n, sizeof(*l->busy)) < 0)
		return NULL;
	l->cap = cap;
	memmove(&l->bin[i + 1], &l->bin[i], (l->n - i) * sizeof(*l->bin));
	memmove(&l->busy[i + 1], &l->busy[i], (l->n - i) * sizeof(*l->busy));
	l->bin[i] = (uint16_t)b;
	l->busy[i] = 0;
	l->n++;
	return &l->busy[i];
}

/* windows twice as wide: window b goes into b/2, in place (still sorted) */
static void halve(tk_loadlane *l)
{
	uint32_t i, out = 0;

	for (i = 0; i < l->n; i++) {
		uint16_t b = (uint16_t)(l->bin[i] / 2);
		if (out && l->bin[out - 1] == b) {
			l->busy[out - 1] += l->busy[i];
		} else {
			l->bin[out] = b;
			l->busy[out] = l->busy[i];
			out++;
		}
	}
	l->n = out;
}

/* double the window until t (ticks since first) fits */
static void fit(tk_loadbins *lb, uint64_t t)
{
	size_t i;

	while (t / lb->binw >= TK_LOAD_BINS) {
		for (i = 0; i < lb->nlanes; i++)
			halve(&lb->lane[i]);
		lb->binw *= 2;
	}
	if (t / lb->binw + 1 > lb->nbins)
		lb->nbins = (size_t)(t / lb->binw) + 1;
}

int tk_loadbins_add(tk_loadbins *lb, size_t lane, uint64_t start, uint64_t end)
{
	uint64_t s, e;

	if (start < lb->first)
		start = lb->first;
	if (end < start)
		end = start;
	s = start - lb->first;
	e = end - lb->first;
	fit(lb, e);
	while (s < e) {
		/* the last window may end at 2^64: its end is computed in 128 bits */
		uint64_t b = s / lb->binw, *c;
		tk_u128 bend = ((tk_u128)b + 1) * lb->binw;
		uint64_t to = (tk_u128)e < bend ? e : (uint64_t)bend;
		c = counter(lb, lane, b);
		if (!c)
			return -1;
		*c += to - s;
		s = to;
	}
	return 0;
}

uint64_t tk_loadbins_busy(const tk_loadbins *lb, size_t lane, size_t b)
{
	const tk_loadlane *l;
	uint32_t i;

	if (lane >= lb->nlanes || b >= TK_LOAD_BINS)
		return 0;
	l = &lb->lane[lane];
	i = find(l, b);
	return i < l->n && l->bin[i] == b ? l->busy[i] : 0;
}

void tk_loadbins_free(tk_loadbins *lb)
{
	size_t i;

	for (i = 0; i < lb->nlanes; i++) {
		free(lb->lane[i].bin);
		free(lb->lane[i].busy);
	}
	free(lb->lane);
	memset(lb, 0, sizeof(*lb));
}
