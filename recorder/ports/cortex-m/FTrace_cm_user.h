/*
 * FTrace_cm_user.h - the Cortex-M port's user clock: any free-running
 * counter the firmware can read, extended to 64 bits.  FTrace_cm.h
 * includes it; it holds no register access and no instruction, so the
 * host tests compile it alone against a simulated counter.
 *
 * Chosen at build time by defining the read:
 *
 *   TKREC_CM_USER_COUNT()  an expression reading the counter, e.g.
 *                          (*(volatile uint32_t *)0x40000004u), or
 *                          tkrec_cm_user_count() (the firmware defines
 *                          that function; declared below)
 *   TKREC_CM_USER_BITS     its width, 2 .. 32 (default 32); the bits of
 *                          the read above the width are ignored
 *   TKREC_CM_USER_DOWN     1 if it counts down (default 0: up)
 *   TKREC_CM_USER_HZ       its frequency in Hz, 1 .. 2^32 - 1 (required)
 *
 * The time is the ticks counted since the clock started, times
 * TKREC_CM_USER_SCALE: the least factor making the time's rate a whole
 * number of units per millisecond, TKREC_CM_USER_PER_MS (the trace_start
 * event's par2, the stream's cycles_per_msec).  A 1 MHz counter: scale 1,
 * 1000 per ms; a 32768 Hz one: scale 125, 4096 per ms.  Exact: no division
 * on the hot path, no rounding anywhere.
 *
 * The wraps are counted from the difference between two reads, so the
 * clock must be read (an event logged, or tkrec_cm_tsc() called) at least
 * once per wrap period, 2^BITS / HZ seconds; a longer gap loses whole
 * periods.  A 16-bit counter at 1 MHz wraps every 65.536 ms: read it from
 * the kernel's tick or the timer's own overflow interrupt.
 */
#ifndef FTRACE_CM_USER_H
#define FTRACE_CM_USER_H

#include <stdint.h>

#ifdef TKREC_CM_USER_COUNT

#ifndef TKREC_CM_USER_BITS
#define TKREC_CM_USER_BITS 32
#endif
#ifndef TKREC_CM_USER_DOWN
#define TKREC_CM_USER_DOWN 0
#endif
#ifndef TKREC_CM_USER_HZ
#error "TKREC_CM_USER_COUNT: define TKREC_CM_USER_HZ, the counter's frequency in Hz"
#endif
#if (TKREC_CM_USER_BITS) < 2 || (TKREC_CM_USER_BITS) > 32
#error "TKREC_CM_USER_BITS: the counter's width, 2 .. 32"
#endif
#if (TKREC_CM_USER_HZ) < 1 || (TKREC_CM_USER_HZ) > 0xFFFFFFFF
#error "TKREC_CM_USER_HZ: the counter's frequency in Hz, 1 .. 2^32 - 1"
#endif

/** A function the firmware may define and name in TKREC_CM_USER_COUNT(). */
uint32_t tkrec_cm_user_count(void);

#define TKREC_CM_USER_MASK (0xFFFFFFFFu >> (32 - (TKREC_CM_USER_BITS)))
/* gcd(HZ, 1000) = its powers of 2 (up to 8) times its powers of 5 (up to 125) */
#define TKREC_CM_USER_HZ32_ ((uint32_t)(TKREC_CM_USER_HZ))
#define TKREC_CM_USER_GCD_ \
	((TKREC_CM_USER_HZ32_ % 8u == 0 ? 8u : TKREC_CM_USER_HZ32_ % 4u == 0 ? 4u : \
	  TKREC_CM_USER_HZ32_ % 2u == 0 ? 2u : 1u) * \
	 (TKREC_CM_USER_HZ32_ % 125u == 0 ? 125u : TKREC_CM_USER_HZ32_ % 25u == 0 ? 25u : \
	  TKREC_CM_USER_HZ32_ % 5u == 0 ? 5u : 1u))
/** the time's units per counter tick (1 .. 1000) */
#define TKREC_CM_USER_SCALE (1000u / TKREC_CM_USER_GCD_)
/** the time's units per millisecond: HZ x SCALE / 1000, exactly */
#define TKREC_CM_USER_PER_MS (TKREC_CM_USER_HZ32_ / TKREC_CM_USER_GCD_)

/** The extension's state: the count read last and the time so far. */
typedef struct tkrec_cm_user_clock {
	uint32_t last;
	uint64_t time;
} tkrec_cm_user_clock;

/** Start at time 0 from the counter's value `count`. */
static inline void tkrec_cm_user_start(tkrec_cm_user_clock *c, uint32_t count)
{
	c->last = count & TKREC_CM_USER_MASK;
	c->time = 0;
}

/**
 * The time at a read of the counter giving `count`: the ticks since the
 * previous read (modulo 2^BITS, one wrap at most) added.  In the section.
 */
static inline uint64_t tkrec_cm_user_time(tkrec_cm_user_clock *c, uint32_t count)
{
	uint32_t now = count & TKREC_CM_USER_MASK, ticks;

#if TKREC_CM_USER_DOWN
	ticks = (c->last - now) & TKREC_CM_USER_MASK;
#else
	ticks = (now - c->last) & TKREC_CM_USER_MASK;
#endif
	c->last = now;
	c->time += (uint64_t)ticks * TKREC_CM_USER_SCALE;
	return c->time;
}

#endif /* TKREC_CM_USER_COUNT */

#endif
