/*
 * FTrace_port.h - the clock and the critical section, chosen at build time.
 *
 *   FTRACE_PORT_TSC()            a 64-bit cycle count
 *   FTRACE_PORT_IRQ_SAVE()       enter the critical section, returns a state
 *   FTRACE_PORT_IRQ_RESTORE(s)   leave it
 *   FTRACE_PORT_CORE()           the calling core, 0 .. FTRACE_MAX_CORES-1
 *
 * Define FTRACE_PORT_CORTEX_M for the Cortex-M template (DWT cycle counter,
 * PRIMASK), or FTRACE_PORT_HOST (the default) for the host port used by the
 * tests, whose hooks the program provides (tests/recorder/host_port.c).
 * Or define all four macros yourself before including FTrace.h.
 */
#ifndef FTRACE_PORT_H
#define FTRACE_PORT_H

#include <stdint.h>

#if defined(FTRACE_PORT_TSC)
/* the build gives its own port */
#elif defined(FTRACE_PORT_CORTEX_M)

/* DWT->CYCCNT, 32 bits: extended to 64 in software (see FTrace.c) */
#define FTRACE_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
uint64_t tkrec_cm_tsc(void);
#define FTRACE_PORT_TSC() tkrec_cm_tsc()

static inline uint32_t tkrec_cm_irq_save(void)
{
	uint32_t primask;

	__asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
	return primask;
}

static inline void tkrec_cm_irq_restore(uint32_t primask)
{
	__asm volatile("msr primask, %0" : : "r"(primask) : "memory");
}

#define FTRACE_PORT_IRQ_SAVE() tkrec_cm_irq_save()
#define FTRACE_PORT_IRQ_RESTORE(s) tkrec_cm_irq_restore(s)
#define FTRACE_PORT_CORE() 0u
#ifndef FTRACE_MAX_CORES
#define FTRACE_MAX_CORES 1
#endif

#else /* FTRACE_PORT_HOST */

/* the program's hooks: a clock, and the core the calling thread plays */
uint64_t tkrec_host_tsc(void);
extern __thread unsigned tkrec_host_core;
#define FTRACE_PORT_TSC() tkrec_host_tsc()
/*
 * Each core writes only its own chunk, so threads playing cores need no
 * lock; a compiler barrier keeps the record stores inside the section.
 */
static inline unsigned tkrec_host_irq_save(void)
{
	__asm volatile("" ::: "memory");
	return 0;
}

static inline void tkrec_host_irq_restore(unsigned s)
{
	(void)s;
	__asm volatile("" ::: "memory");
}

#define FTRACE_PORT_IRQ_SAVE() tkrec_host_irq_save()
#define FTRACE_PORT_IRQ_RESTORE(s) tkrec_host_irq_restore(s)
#define FTRACE_PORT_CORE() tkrec_host_core

#endif

#endif
