/*
 * FTrace_freertos.h - FreeRTOS's trace macros onto the recorder
 * (docs/recorder.md, "FreeRTOS").
 *
 * Include it at the end of FreeRTOSConfig.h, with configUSE_TRACE_FACILITY
 * set to 1 (the task numbers and the queue types are the TCB's and the
 * queue's fields only then):
 *
 *     #define configUSE_TRACE_FACILITY 1
 *     #include "FTrace_freertos.h"
 *
 * The macros expand inside the kernel's tasks.c and queue.c, where
 * pxCurrentTCB, TCB_t and Queue_t are known; nothing here includes a
 * FreeRTOS header.  A macro the configuration defines already is left as
 * it is.  What each logs:
 *
 *   traceTASK_CREATE(tcb)          task_create: context and pid the task's
 *                                  number (uxTCBNumber); with TKREC_STREAM,
 *                                  its name (pcTaskName) registered too
 *   traceMOVED_TASK_TO_READY_STATE(tcb)  task_activate: a job is released
 *   traceTASK_SWITCHED_IN()        context_switch to pxCurrentTCB (the
 *                                  task it replaces is preempted by it)
 *   traceTASK_SWITCHED_OUT()       nothing: the next switch in says it
 *   traceTASK_DELAY(), traceTASK_DELAY_UNTIL(t), traceTASK_SUSPEND(tcb),
 *   traceBLOCKING_ON_QUEUE_RECEIVE(q), traceBLOCKING_ON_QUEUE_SEND(q)
 *                                  task_end_cycle: the job ends when the
 *                                  task sleeps or blocks
 *   traceTASK_DELETE(tcb)          task_end if the task deletes itself
 *                                  (its job ends; another task's ended
 *                                  when it blocked); with TKREC_STREAM,
 *                                  its name forgotten: the TCB is freed
 *   traceQUEUE_RECEIVE(q), traceQUEUE_SEMAPHORE_RECEIVE(q)
 *                                  a mutex: set_mutex_lock; a semaphore:
 *                                  set_mutex_wait (par2 the queue's address)
 *   traceQUEUE_SEND(q)             a mutex: set_mutex_unlock; a semaphore:
 *                                  set_mutex_post
 *   traceQUEUE_RECEIVE_FROM_ISR(q), traceQUEUE_SEND_FROM_ISR(q)
 *                                  the same from an interrupt, par1 the
 *                                  task it interrupted (pxCurrentTCB)
 *   traceQUEUE_SEND_FROM_ISR_FAILED(q), traceQUEUE_RECEIVE_FROM_ISR_FAILED(q),
 *   traceQUEUE_PEEK_FROM_ISR(q), traceQUEUE_PEEK_FROM_ISR_FAILED(q)
 *                                  nothing: nothing changed hands (as
 *                                  FreeRTOS's task-level _FAILED macros)
 *   traceISR_ENTER(), traceISR_EXIT(), traceISR_EXIT_TO_SCHEDULER()
 *                                  interrupt_start / interrupt_end of
 *                                  TKREC_FREERTOS_IRQ() (the ports that
 *                                  call them: most do not)
 *
 * A queue that is neither a mutex nor a semaphore logs nothing.  Options
 * (define them before this file):
 *
 *   TKREC_FREERTOS_ID(tcb)   the number of a task, its context and pid
 *                            (default (tcb)->uxTCBNumber, below 65536)
 *   TKREC_FREERTOS_IRQ()     the number of the running interrupt (default:
 *                            IPSR - 16 on Cortex-M with GCC or clang, a
 *                            system exception 0xFF00 + its number,
 *                            SysTick 0xFF0F; else 0)
 *
 * The recorder must be enabled (tkrec_init(), a chunk or the stream,
 * FTrace_enable()) before the first task is created for its name to be
 * recorded; the macros test nothing else.
 */
#ifndef FTRACE_FREERTOS_H
#define FTRACE_FREERTOS_H

#ifndef __ASSEMBLER__  /* FreeRTOSConfig.h is included by assembly files too */

#include "FTrace.h"

#ifndef TKREC_FREERTOS_ID
#define TKREC_FREERTOS_ID(tcb) ((uint16_t)(tcb)->uxTCBNumber)
#endif

/*
 * An exception number (IPSR) as an interrupt's: an external interrupt
 * (16 and above) its IRQ, a system exception (SysTick 15, whose handler
 * FreeRTOS's Cortex-M ports bracket with traceISR_ENTER / _EXIT, PendSV
 * 14 ...) 0xFF00 + its number, apart from the IRQ of the same number.
 */
static inline uint16_t tkrec_freertos_irq_of(uint32_t ipsr)
{
	ipsr &= 0x1FFu;
	return (uint16_t)(ipsr >= 16u ? ipsr - 16u : 0xFF00u | ipsr);
}

#ifndef TKREC_FREERTOS_IRQ
#if (defined(__GNUC__) || defined(__clang__)) && defined(__ARM_ARCH_PROFILE) && \
	__ARM_ARCH_PROFILE == 'M'
static inline uint16_t tkrec_freertos_irq(void)
{
	uint32_t ipsr;

	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	return tkrec_freertos_irq_of(ipsr);
}
#define TKREC_FREERTOS_IRQ() tkrec_freertos_irq()
#else
#define TKREC_FREERTOS_IRQ() 0u
#endif
#endif

/* the queue types of queue.h (defined there; these if it is not seen) */
#ifndef queueQUEUE_TYPE_MUTEX
#define queueQUEUE_TYPE_MUTEX ((uint8_t)1U)
#endif
#ifndef queueQUEUE_TYPE_COUNTING_SEMAPHORE
#define queueQUEUE_TYPE_COUNTING_SEMAPHORE ((uint8_t)2U)
#endif
#ifndef queueQUEUE_TYPE_BINARY_SEMAPHORE
#define queueQUEUE_TYPE_BINARY_SEMAPHORE ((uint8_t)3U)
#endif
#ifndef queueQUEUE_TYPE_RECURSIVE_MUTEX
#define queueQUEUE_TYPE_RECURSIVE_MUTEX ((uint8_t)4U)
#endif

#define TKREC_FREERTOS_IS_MUTEX(q) \
	((q)->ucQueueType == queueQUEUE_TYPE_MUTEX || \
	 (q)->ucQueueType == queueQUEUE_TYPE_RECURSIVE_MUTEX)
#define TKREC_FREERTOS_IS_SEM(q) \
	((q)->ucQueueType == queueQUEUE_TYPE_COUNTING_SEMAPHORE || \
	 (q)->ucQueueType == queueQUEUE_TYPE_BINARY_SEMAPHORE)
#define TKREC_FREERTOS_ADDR(q) ((uint32_t)(uintptr_t)(q))

/* the job of the running task ends (it sleeps or blocks) */
#define TKREC_FREERTOS_END_JOB() \
	TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, TKREC_FREERTOS_ID(pxCurrentTCB), 0)

#if TKREC_STREAM
#define TKREC_FREERTOS_NAME(tcb) \
	((void)tkrec_stream_name(TKREC_NAME_TASK, TKREC_FREERTOS_ID(tcb), (tcb)->pcTaskName))
#define TKREC_FREERTOS_UNNAME(tcb) \
	((void)tkrec_stream_name(TKREC_NAME_TASK, TKREC_FREERTOS_ID(tcb), NULL))
#else
#define TKREC_FREERTOS_NAME(tcb) ((void)0)
#define TKREC_FREERTOS_UNNAME(tcb) ((void)0)
#endif

#ifndef traceTASK_CREATE
#define traceTASK_CREATE(tcb) do { \
	TKREC_FREERTOS_NAME(tcb); \
	TRACER_LOGEVENT(FTrace_EVT_task_create, TKREC_FREERTOS_ID(tcb), TKREC_FREERTOS_ID(tcb)); \
} while (0)
#endif
#ifndef traceMOVED_TASK_TO_READY_STATE
#define traceMOVED_TASK_TO_READY_STATE(tcb) \
	TRACER_LOGEVENT(FTrace_EVT_task_activate, TKREC_FREERTOS_ID(tcb), 0)
#endif
#ifndef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN() \
	TRACER_LOGEVENT(FTrace_EVT_context_switch, TKREC_FREERTOS_ID(pxCurrentTCB), 0)
#endif
#ifndef traceTASK_SWITCHED_OUT
#define traceTASK_SWITCHED_OUT()
#endif
#ifndef traceTASK_DELAY
#define traceTASK_DELAY() TKREC_FREERTOS_END_JOB()
#endif
#ifndef traceTASK_DELAY_UNTIL
#define traceTASK_DELAY_UNTIL(t) TKREC_FREERTOS_END_JOB()
#endif
#ifndef traceTASK_SUSPEND
#define traceTASK_SUSPEND(tcb) \
	TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, TKREC_FREERTOS_ID(tcb), 0)
#endif
#ifndef traceBLOCKING_ON_QUEUE_RECEIVE
#define traceBLOCKING_ON_QUEUE_RECEIVE(q) TKREC_FREERTOS_END_JOB()
#endif
#ifndef traceBLOCKING_ON_QUEUE_SEND
#define traceBLOCKING_ON_QUEUE_SEND(q) TKREC_FREERTOS_END_JOB()
#endif
#ifndef traceTASK_DELETE
#define traceTASK_DELETE(tcb) do { \
	if ((tcb) == pxCurrentTCB) \
		TRACER_LOGEVENT(FTrace_EVT_task_end, TKREC_FREERTOS_ID(tcb), 0); \
	TKREC_FREERTOS_UNNAME(tcb); \
} while (0)
#endif

/* a take and a give of a mutex or a semaphore, by the running task (from
 * an interrupt: the task it interrupted) */
#define TKREC_FREERTOS_TAKE(q) do { \
	if (TKREC_FREERTOS_IS_MUTEX(q)) \
		TRACER_LOGEVENT(FTrace_EVT_set_mutex_lock, TKREC_FREERTOS_ID(pxCurrentTCB), \
				TKREC_FREERTOS_ADDR(q)); \
	else if (TKREC_FREERTOS_IS_SEM(q)) \
		TRACER_LOGEVENT(FTrace_EVT_set_mutex_wait, TKREC_FREERTOS_ID(pxCurrentTCB), \
				TKREC_FREERTOS_ADDR(q)); \
} while (0)
#define TKREC_FREERTOS_GIVE(q) do { \
	if (TKREC_FREERTOS_IS_MUTEX(q)) \
		TRACER_LOGEVENT(FTrace_EVT_set_mutex_unlock, TKREC_FREERTOS_ID(pxCurrentTCB), \
				TKREC_FREERTOS_ADDR(q)); \
	else if (TKREC_FREERTOS_IS_SEM(q)) \
		TRACER_LOGEVENT(FTrace_EVT_set_mutex_post, TKREC_FREERTOS_ID(pxCurrentTCB), \
				TKREC_FREERTOS_ADDR(q)); \
} while (0)

#ifndef traceQUEUE_RECEIVE
#define traceQUEUE_RECEIVE(q) TKREC_FREERTOS_TAKE(q)
#endif
#ifndef traceQUEUE_SEMAPHORE_RECEIVE
#define traceQUEUE_SEMAPHORE_RECEIVE(q) TKREC_FREERTOS_TAKE(q)
#endif
#ifndef traceQUEUE_SEND
#define traceQUEUE_SEND(q) TKREC_FREERTOS_GIVE(q)
#endif
/* from an interrupt (xQueueSendFromISR, xSemaphoreGiveFromISR,
 * xQueueReceiveFromISR, xSemaphoreTakeFromISR) */
#ifndef traceQUEUE_SEND_FROM_ISR
#define traceQUEUE_SEND_FROM_ISR(q) TKREC_FREERTOS_GIVE(q)
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR
#define traceQUEUE_RECEIVE_FROM_ISR(q) TKREC_FREERTOS_TAKE(q)
#endif
/* a give or take that failed (the queue full or empty), a peek: nothing
 * changed hands, as for a task (traceQUEUE_SEND_FAILED ... log nothing) */
#ifndef traceQUEUE_SEND_FROM_ISR_FAILED
#define traceQUEUE_SEND_FROM_ISR_FAILED(q) ((void)0)
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR_FAILED
#define traceQUEUE_RECEIVE_FROM_ISR_FAILED(q) ((void)0)
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR
#define traceQUEUE_PEEK_FROM_ISR(q) ((void)0)
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR_FAILED
#define traceQUEUE_PEEK_FROM_ISR_FAILED(q) ((void)0)
#endif
#ifndef traceISR_ENTER
#define traceISR_ENTER() \
	TRACER_LOGEVENT(FTrace_EVT_interrupt_start, TKREC_FREERTOS_IRQ(), 0)
#endif
#ifndef traceISR_EXIT
#define traceISR_EXIT() \
	TRACER_LOGEVENT(FTrace_EVT_interrupt_end, TKREC_FREERTOS_IRQ(), 0)
#endif
#ifndef traceISR_EXIT_TO_SCHEDULER
#define traceISR_EXIT_TO_SCHEDULER() traceISR_EXIT()
#endif

#endif /* __ASSEMBLER__ */
#endif
