/*
 * FTrace_cm.h - the recorder's Cortex-M port (Armv6-M, Armv7-M, Armv8-M),
 * chosen with -DFTRACE_PORT_CORTEX_M (FTrace_port.h includes this file).
 * Build recorder/ports/cortex-m/FTrace_cm.c with the firmware.
 *
 *   clock     DWT CYCCNT where the core counts cycles, extended to 64
 *             bits; else SysTick's count plus a count of its wraps
 *             (Cortex-M0/M0+, M23, and QEMU, which models no CYCCNT);
 *             or, with TKREC_CM_USER_COUNT(), any free-running counter
 *             (FTrace_cm_user.h)
 *   section   PRIMASK: mrs / cpsid i ... msr (nests); or, with
 *             TKREC_CM_BASEPRI, BASEPRI (the more urgent interrupts run on)
 *   ISR       tkrec_cm_irq_number(): the running handler's IRQ, from IPSR
 *             (TKREC_CM_ISR_ENTER() / _EXIT() log it)
 *   core      0, or FTRACE_CM_CORE_ID (an expression, e.g. a CPUID
 *             register) on a part with several cores
 *   sinks     semihosting file writes (a debugger or QEMU on the other
 *             end) and a byte stream on a UART
 *
 * docs/recorder.md, "The Cortex-M port", says what to copy and how.
 */
#ifndef FTRACE_CM_H
#define FTRACE_CM_H

#include <stddef.h>
#include <stdint.h>

/* ---- the clock ---------------------------------------------------------- */

#define TKREC_CM_CLOCK_NONE    0
#define TKREC_CM_CLOCK_DWT     1  /* DWT->CYCCNT */
#define TKREC_CM_CLOCK_SYSTICK 2  /* SysTick's count and its wraps */
#define TKREC_CM_CLOCK_USER    3  /* TKREC_CM_USER_COUNT(), FTrace_cm_user.h */

#include "FTrace_cm_user.h"

/**
 * Choose the clock: start the DWT cycle counter (trace enable, unlock,
 * CYCCNTENA) and keep it if it counts; else SysTick, which must already
 * run on the core clock (CLKSOURCE = 1) with its final reload value, and
 * whose handler calls tkrec_cm_systick_tick().  Returns the clock chosen
 * (TKREC_CM_CLOCK_DWT or _SYSTICK), or TKREC_CM_CLOCK_NONE when neither
 * counts.  Call it before the first event.  Without the call the clock is
 * CYCCNT, which the firmware starts itself.  A build with TKREC_CM_USER_COUNT()
 * has the user clock instead, from the call (the time 0) or from the
 * first read; the firmware starts the counter itself.
 */
int tkrec_cm_clock_init(void);
/** Force a clock (tests, cost measurements); returns it, or NONE. */
int tkrec_cm_clock_use(int source);
/** The time in core cycles since tkrec_cm_clock_init() (FTRACE_PORT_TSC). */
uint64_t tkrec_cm_tsc(void);
/**
 * The SysTick clock's wrap count: call it first in SysTick_Handler.  Any
 * read of the clock counts a wrap it sees (COUNTFLAG), so a handler that
 * is late, or preempted, loses none.  Harmless with the DWT clock.
 */
void tkrec_cm_systick_tick(void);
/**
 * The clock at SysTick's last wrap (the tick's own time), in a handler;
 * with the user clock, the time now.
 */
uint64_t tkrec_cm_tick_time(void);
/**
 * Until tkrec_cm_clock_release(), the clock reads `t`: a kernel stamps
 * the releases of one tick with the tick's time.  Only in the handler of
 * the highest priority that logs (nothing that logs may preempt it).
 */
void tkrec_cm_clock_hold(uint64_t t);
void tkrec_cm_clock_release(void);

/* ---- the critical section ----------------------------------------------- */

/*
 * PRIMASK by default: every interrupt is held off.  Define TKREC_CM_BASEPRI
 * (a BASEPRI value, the priority already shifted to the implemented top
 * bits, non-zero) to mask only the interrupts of that priority value and
 * above (less urgent): the more urgent ones keep running, and must not log
 * (nor be SysTick with the SysTick clock).  Armv7-M and Armv8-M Mainline
 * only (Cortex-M3/M4/M7/M33...); raised with BASEPRI_MAX, so a section
 * entered with a higher mask keeps it.
 */
#ifdef TKREC_CM_BASEPRI
#if !defined(__ARM_ARCH_7M__) && !defined(__ARM_ARCH_7EM__) && \
	!defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_ARCH_8_1M_MAIN__)
#error "TKREC_CM_BASEPRI: this core has no BASEPRI (Armv6-M, Armv8-M Baseline): use PRIMASK"
#endif
#if (TKREC_CM_BASEPRI) <= 0 || (TKREC_CM_BASEPRI) > 255
#error "TKREC_CM_BASEPRI: a priority value 1 .. 255 (0 would mask nothing)"
#endif
static inline uint32_t tkrec_cm_irq_save(void)
{
	uint32_t basepri;

	__asm volatile("mrs %0, basepri\n\tmsr basepri_max, %1\n\tisb"
		       : "=&r"(basepri) : "r"((uint32_t)(TKREC_CM_BASEPRI)) : "memory");
	return basepri;
}

static inline void tkrec_cm_irq_restore(uint32_t basepri)
{
	__asm volatile("msr basepri, %0" : : "r"(basepri) : "memory");
}
#else
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
#endif

/* ---- the interrupt's number ---------------------------------------------- */

/**
 * The IRQ number of the external interrupt whose handler runs (IPSR less
 * 16), read from the core: one handler can serve several IRQs, and none
 * needs its number written in.  0xFFFF in thread mode and in the system
 * exceptions (SysTick, PendSV, SVCall, faults), which have no IRQ number.
 */
static inline uint16_t tkrec_cm_irq_number(void)
{
	uint32_t ipsr;

	__asm volatile("mrs %0, ipsr" : "=r"(ipsr));
	ipsr &= 0x1FFu;
	return ipsr >= 16u ? (uint16_t)(ipsr - 16u) : (uint16_t)0xFFFFu;
}

/** interrupt_start / interrupt_end of the running handler's IRQ (FTrace.h's events) */
#define TKREC_CM_ISR_ENTER() TRACER_LOGEVENT(FTrace_EVT_interrupt_start, tkrec_cm_irq_number(), 0)
#define TKREC_CM_ISR_EXIT() TRACER_LOGEVENT(FTrace_EVT_interrupt_end, tkrec_cm_irq_number(), 0)

/* ---- the port's macros (FTrace_port.h) ---------------------------------- */

#define FTRACE_PORT_TSC() tkrec_cm_tsc()
#define FTRACE_PORT_IRQ_SAVE() tkrec_cm_irq_save()
#define FTRACE_PORT_IRQ_RESTORE(s) tkrec_cm_irq_restore(s)
#ifdef FTRACE_CM_CORE_ID
#define FTRACE_PORT_CORE() ((unsigned)(FTRACE_CM_CORE_ID))
#else
#define FTRACE_PORT_CORE() 0u
#endif
#ifndef FTRACE_MAX_CORES
#define FTRACE_MAX_CORES 1
#endif

/* ---- sinks: semihosting ------------------------------------------------- */

/* SYS_OPEN modes */
#define TKREC_CM_SH_RB 1  /* "rb" */
#define TKREC_CM_SH_WB 5  /* "wb" */

/** Open `path` on the host (a handle >= 0, or -1); no debugger: a fault. */
int tkrec_cm_sh_open(const char *path, int mode);
/** Write all n bytes: 0, or -1. */
int tkrec_cm_sh_write(int handle, const void *bytes, size_t n);
/** Read up to n bytes: the number read (0 at the end), or -1. */
long tkrec_cm_sh_read(int handle, void *bytes, size_t n);
int tkrec_cm_sh_close(int handle);
/** Rename a host file: 0, or -1. */
int tkrec_cm_sh_rename(const char *from, const char *to);
/** A line on the debugger's console. */
void tkrec_cm_sh_puts(const char *s);
/** End the session: status 0 is a normal exit, anything else a failure. */
void tkrec_cm_sh_exit(int status) __attribute__((noreturn));

/**
 * A sink for tkrec_set_sink(tkrec_cm_sh_sink, &file): the dump goes to
 * file.path on the host, opened at the first piece.
 */
typedef struct tkrec_cm_sh_file {
	const char *path;
	int handle;   /* -1 until opened: set it to -1 (TKREC_CM_SH_FILE) */
	int err;
} tkrec_cm_sh_file;
#define TKREC_CM_SH_FILE(path) { (path), -1, 0 }
void tkrec_cm_sh_sink(void *ctx, const char *name, unsigned index,
		      const void *bytes, size_t n);
/** Close the file: 0, or -1 if anything failed (open, write, close). */
int tkrec_cm_sh_file_close(tkrec_cm_sh_file *f);

/* ---- sinks: a UART ------------------------------------------------------ */

/*
 * The registers of an Arm CMSDK APB UART (the MPS2 boards' and many
 * parts built on Arm's reference designs): DATA at +0, STATE at +4 (bit 0
 * TX full), CTRL at +8 (bit 0 TX enable), BAUDDIV at +0x10.  Another UART:
 * define these three before including FTrace.h.
 */
#ifndef TKREC_CM_UART_PUT
#define TKREC_CM_UART_REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define TKREC_CM_UART_TXFULL(base) (TKREC_CM_UART_REG(base, 4u) & 1u)
#define TKREC_CM_UART_PUT(base, byte) (TKREC_CM_UART_REG(base, 0u) = (byte))
#define TKREC_CM_UART_ENABLE(base, div) \
	(TKREC_CM_UART_REG(base, 0x10u) = (div), TKREC_CM_UART_REG(base, 8u) |= 1u)
#endif

/** Enable the UART's transmitter at `base` with baud divisor `div`. */
void tkrec_cm_uart_init(uintptr_t base, uint32_t div);
/** Send n bytes, waiting while the transmit buffer is full. */
void tkrec_cm_uart_write(uintptr_t base, const void *bytes, size_t n);
/** A sink: ctx is the UART's base address, cast to a pointer. */
void tkrec_cm_uart_sink(void *ctx, const char *name, unsigned index,
			const void *bytes, size_t n);

#endif
