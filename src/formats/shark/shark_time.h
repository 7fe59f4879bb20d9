/*
 * shark_time.h - TSC cycles to picoseconds, exactly, with no division per
 * record: the time map of the S.Ha.R.K. reader when it reads picoseconds
 * (a dump whose clock rate changes).
 *
 * Within a clock segment (a rate clk in cycles per ms that holds from
 * seg_tsc, at seg_ps, on) a TSC t at or after seg_tsc is at
 *
 *     seg_ps + floor((t - seg_tsc) * 10^9 / clk)  ps,
 *
 * and a TSC before seg_tsc (a decrease read as it came) at
 * seg_ps - ceil((seg_tsc - t) * 10^9 / clk), 0 at the least.
 * shark_clock_ref() computes that with a 128-bit product and quotient, as
 * the reader always did.  shark_clock_ps() gives the same values with one
 * 64 x 64 -> 128 bit multiply: it keeps the quotient q and remainder r of
 * the last TSC read (base), so that the next one, d cycles later, is
 *
 *     q + floor((r + d * 10^9) / clk)
 *
 * where r + d * 10^9 fits 64 bits whenever d is at most dmax (about
 * 1.8 * 10^10 cycles: seconds between two records), and the 64-bit
 * quotient is found from the reciprocal inv = floor((2^64 - 1) / clk):
 * mulhi(x, inv) is at most 2 below floor(x / clk) and never above it, so
 * at most two corrections of the remainder make it exact.  A TSC before
 * the base or further than dmax from it takes the 128-bit path (and
 * becomes the base when it is inside the segment).
 *
 * Header-only (static inline) so that tests/unit/test_shark_time.c checks
 * the very code the reader runs.
 */
#ifndef TK_SHARK_TIME_H
#define TK_SHARK_TIME_H

#include <stdint.h>

#define SHARK_PS_PER_MS 1000000000u

typedef unsigned __int128 shark_u128;

typedef struct shark_clock {
	uint64_t clk;       /* cycles per ms, > 0 */
	uint64_t inv;       /* floor((2^64 - 1) / clk) */
	uint64_t dmax;      /* the largest TSC step taken in 64 bits */
	uint64_t seg_tsc;   /* the segment starts at this TSC ... */
	uint64_t seg_ps;    /* ... and this time */
	uint64_t base_tsc;  /* the last TSC read in the segment (>= seg_tsc) */
	uint64_t base_q;    /* floor((base_tsc - seg_tsc) * 10^9 / clk) */
	uint64_t base_r;    /* ... and the remainder (< clk) */
} shark_clock;

/** Start a segment: rate `clk` (> 0) from `tsc` on, which is at `ps`. */
static inline void shark_clock_set(shark_clock *c, uint64_t clk, uint64_t tsc,
				   uint64_t ps)
{
	c->clk = clk;
	c->inv = UINT64_MAX / clk;
	c->dmax = (UINT64_MAX - (clk - 1)) / SHARK_PS_PER_MS;
	c->seg_tsc = tsc;
	c->seg_ps = ps;
	c->base_tsc = tsc;
	c->base_q = 0;
	c->base_r = 0;
}

/**
 * The reference: the time of `tsc` in the segment (clk, seg_tsc, seg_ps)
 * with 128-bit arithmetic.  0, or -1 when it is past 2^64 - 1 ps.
 */
static inline int shark_clock_ref(uint64_t clk, uint64_t seg_tsc,
				  uint64_t seg_ps, uint64_t tsc, uint64_t *out)
{
	shark_u128 d;

	if (tsc >= seg_tsc) {
		d = (shark_u128)(tsc - seg_tsc) * SHARK_PS_PER_MS / clk + seg_ps;
		if (d > UINT64_MAX)
			return -1;
		*out = (uint64_t)d;
	} else {
		d = ((shark_u128)(seg_tsc - tsc) * SHARK_PS_PER_MS + clk - 1) / clk;
		*out = d >= seg_ps ? 0 : seg_ps - (uint64_t)d;
	}
	return 0;
}

/* The 128-bit path of shark_clock_ps(); moves the base when it can. */
static inline int shark_clock_slow(shark_clock *c, uint64_t tsc, uint64_t *out)
{
	shark_u128 d;
	uint64_t q, ps;

	if (tsc < c->seg_tsc)
		return shark_clock_ref(c->clk, c->seg_tsc, c->seg_ps, tsc, out);
	d = (shark_u128)(tsc - c->seg_tsc) * SHARK_PS_PER_MS;
	if (d / c->clk > UINT64_MAX - c->seg_ps)
		return -1;
	q = (uint64_t)(d / c->clk);
	ps = c->seg_ps + q;
	c->base_tsc = tsc;
	c->base_q = q;
	c->base_r = (uint64_t)(d % c->clk);
	*out = ps;
	return 0;
}

/**
 * The time of `tsc` in ps, exactly shark_clock_ref()'s value.  0, or -1
 * when it is past 2^64 - 1 ps (the state is then left as it was).
 */
static inline int shark_clock_ps(shark_clock *c, uint64_t tsc, uint64_t *out)
{
	uint64_t d = tsc - c->base_tsc, x, q, r;

	if (tsc >= c->base_tsc && d <= c->dmax) {
		x = c->base_r + d * SHARK_PS_PER_MS;
		q = (uint64_t)(((shark_u128)x * c->inv) >> 64);
		r = x - q * c->clk;
		while (r >= c->clk) {
			q++;
			r -= c->clk;
		}
		q += c->base_q;
		/* q <= 2^64 - 1 - seg_ps, or the time is out of range */
		if (q < c->base_q || q > UINT64_MAX - c->seg_ps)
			return -1;
		c->base_tsc = tsc;
		c->base_q = q;
		c->base_r = r;
		*out = c->seg_ps + q;
		return 0;
	}
	return shark_clock_slow(c, tsc, out);
}

#endif
