/*
 * FTrace_port.h - the clock and the critical section, chosen at build time.
 *
 *   FTRACE_PORT_TSC()            a 64-bit cycle count
 *   FTRACE_PORT_IRQ_SAVE()       enter the critical section, returns a state
 *   FTRACE_PORT_IRQ_RESTORE(s)   leave it
 *   FTRACE_PORT_CORE()           the calling core, 0 .. FTRACE_MAX_CORES-1
 *   FTRACE_PORT_UDP_INIT(f,l,t)  optional: open the UDP link, 0 or -1
 *   FTRACE_PORT_UDP_SEND(p, n)   optional: send one datagram, 0 or -1
 *                                (without them FTrace_OSD_init_udp is -1)
 *   FTRACE_PORT_LOCK()           optional: a lock between cores (a
 *   FTRACE_PORT_UNLOCK()         spinlock), taken inside the section by the
 *                                calls that change chunks (select, flags,
 *                                link, create, delete, send) and by
 *                                tkrec_htf_entity; never by the ipoints.
 *                                A port with one core needs none.
 *   FTRACE_PORT_POINT(id)        optional: a test point (TKREC_POINT_*)
 *                                between two steps of a state change; the
 *                                host port runs a test's "interrupt" there
 *                                (or when the section ends, if it is held).
 *                                Empty by default; never on the hot path.
 *
 * Define FTRACE_PORT_CORTEX_M for the Cortex-M port (ports/cortex-m/: DWT
 * cycle counter, SysTick or a user counter, PRIMASK, semihosting and UART sinks), or FTRACE_PORT_HOST (the default) for the host port used by the
 * tests (recorder/host/FTrace_host.c; the program provides the clock).
 * Or define all four macros yourself before including FTrace.h.
 */
#ifndef FTRACE_PORT_H
#define FTRACE_PORT_H

#include <stdint.h>

#if defined(FTRACE_PORT_TSC)
/* the build gives its own port */
#elif defined(FTRACE_PORT_CORTEX_M)

/* the Cortex-M port: its clock and sinks are in ports/cortex-m/FTrace_cm.c */
#include "ports/cortex-m/FTrace_cm.h"

#else /* FTRACE_PORT_HOST */

#include <stddef.h>

/*
 * The host port (recorder/host/FTrace_host.c; the program provides only the
 * clock, tkrec_host_tsc()).  The critical section blocks every signal of
 * the calling thread (pthread_sigmask), as cpsid i would on a target: a
 * signal handler that logs runs before or after the section, never inside
 * it.  Each thread plays a core (tkrec_host_core) and writes only its own
 * chunk, so the ipoints take no lock; the calls that change chunks take
 * a spinlock between threads inside the section.  UDP: a real socket
 * (loopback in tests).
 */
uint64_t tkrec_host_tsc(void);
extern __thread unsigned tkrec_host_core;
unsigned tkrec_host_irq_save(void);
void tkrec_host_irq_restore(unsigned s);
int tkrec_host_udp_init(int flag, const char *l_ip, const char *t_ip);
int tkrec_host_udp_send(const void *pkt, size_t n);

#define FTRACE_PORT_TSC() tkrec_host_tsc()
#define FTRACE_PORT_IRQ_SAVE() tkrec_host_irq_save()
#define FTRACE_PORT_IRQ_RESTORE(s) tkrec_host_irq_restore(s)
#define FTRACE_PORT_CORE() tkrec_host_core
#define FTRACE_PORT_UDP_INIT(flag, l_ip, t_ip) tkrec_host_udp_init(flag, l_ip, t_ip)
#define FTRACE_PORT_UDP_SEND(pkt, n) tkrec_host_udp_send(pkt, n)

/* the cores are threads: a spinlock between them (async-signal-safe) */
void tkrec_host_lock(void);
void tkrec_host_unlock(void);
void tkrec_host_point(unsigned id);
#define FTRACE_PORT_LOCK() tkrec_host_lock()
#define FTRACE_PORT_UNLOCK() tkrec_host_unlock()
#define FTRACE_PORT_POINT(id) tkrec_host_point(id)

#endif

#ifndef FTRACE_PORT_LOCK
#define FTRACE_PORT_LOCK() ((void)0)
#define FTRACE_PORT_UNLOCK() ((void)0)
#endif
#ifndef FTRACE_PORT_POINT
#define FTRACE_PORT_POINT(id) ((void)0)
#endif

/* the test points: where a state change has two steps */
#define TKREC_POINT_SET_FLAGS 1u  /* between a chunk's flags and its limit */
#define TKREC_POINT_SELECT    2u  /* between the FREE test and the claim */
#define TKREC_POINT_ENTITY    3u  /* between the checks and the new entry */
#define TKREC_POINT_SEND      4u  /* before a chunk is read for the dump */

#endif
