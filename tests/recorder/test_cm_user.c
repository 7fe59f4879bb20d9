/*
 * The Cortex-M port's user clock (recorder/ports/cortex-m/FTrace_cm_user.h)
 * against a model: a simulated free-running counter of TKREC_CM_USER_BITS
 * bits, counting up or down (TKREC_CM_USER_DOWN) at TKREC_CM_USER_HZ, read
 * at random gaps of 0 .. one wrap period less one tick (the documented
 * requirement) over many wraps.  Every time read must equal the ticks
 * elapsed since the start times TKREC_CM_USER_SCALE, exactly, and the
 * scale and the rate per millisecond must be the least exact pair.
 * Built once per counter (tests/CMakeLists.txt gives the defines).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define TKREC_CM_USER_COUNT() sim_count()
#include "ports/cortex-m/FTrace_cm_user.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* the counter's true ticks since power-on, and the register's value: the
 * counter's bits, with noise above them where the register is wider */
static uint64_t true_ticks;

static uint32_t sim_count(void)
{
	uint64_t mask = TKREC_CM_USER_MASK;
	uint32_t v = (uint32_t)(true_ticks & mask);
	uint32_t noise = (uint32_t)next_rand() & ~(uint32_t)mask;

	if (TKREC_CM_USER_DOWN)
		v = (uint32_t)(mask - v);
	return v | noise;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int main(void)
{
	tkrec_cm_user_clock c;
	uint64_t period = (uint64_t)TKREC_CM_USER_MASK + 1u, start, t, want, prev = 0;
	uint64_t hz = (uint64_t)(TKREC_CM_USER_HZ), g = gcd(hz, 1000);
	long i, reads = 2000000;
	int fails = 0;

	/* the scale and rate: HZ x SCALE = 1000 x PER_MS, the least such */
	if (TKREC_CM_USER_SCALE != 1000 / g || TKREC_CM_USER_PER_MS != hz / g ||
	    hz * TKREC_CM_USER_SCALE != 1000u * (uint64_t)TKREC_CM_USER_PER_MS) {
		printf("FAIL: scale %u, per ms %u for %" PRIu64 " Hz\n", (unsigned)TKREC_CM_USER_SCALE,
		       (unsigned)TKREC_CM_USER_PER_MS, hz);
		return 1;
	}
	/* start anywhere in the counter's range, a few periods after power-on */
	true_ticks = start = 3 * period + (next_rand() % period);
	tkrec_cm_user_start(&c, TKREC_CM_USER_COUNT());
	for (i = 0; i < reads; i++) {
		uint64_t r = next_rand(), gap;

		/* gaps: 0, 1, the longest allowed (period - 1), random below it */
		switch (r & 7u) {
		case 0: gap = 0; break;
		case 1: gap = 1; break;
		case 2: gap = period - 1; break;
		case 3: gap = (r >> 8) % 16u; break;
		default: gap = (r >> 8) % period; break;
		}
		true_ticks += gap;
		t = tkrec_cm_user_time(&c, TKREC_CM_USER_COUNT());
		want = (true_ticks - start) * TKREC_CM_USER_SCALE;
		if (t != want || t < prev) {
			if (fails++ < 5)
				printf("FAIL: read %ld, gap %" PRIu64 ": time %" PRIu64 ", want %" PRIu64 "\n", i,
				       gap, t, want);
		}
		prev = t;
	}
	printf("%d bits, %s, %" PRIu64 " Hz (scale %u, %u per ms): %ld reads over %" PRIu64
	       " wraps, time %" PRIu64 "%s\n", (int)TKREC_CM_USER_BITS, TKREC_CM_USER_DOWN ? "down" : "up",
	       hz, (unsigned)TKREC_CM_USER_SCALE, (unsigned)TKREC_CM_USER_PER_MS, reads,
	       (true_ticks - start) / period, prev, fails ? "" : ": exact");
	return fails != 0;
}
