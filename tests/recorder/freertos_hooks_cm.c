/*
 * freertos_hooks_cm.c - recorder/FTrace_freertos.h as a firmware's kernel
 * files expand it (each macro once), compiled freestanding with the
 * Cortex-M port, with and without TKREC_STREAM (recorder.freertos_cortex_m,
 * recorder.freertos_cortex_m_arm); freertos_cm.sh checks the object: the
 * hooks log through the recorder's ipoint, register the task's name when
 * streaming, and read IPSR on Arm (TKREC_FREERTOS_IRQ()).  The compilation
 * itself fails when the header leaves a hook unmapped.
 */
#include "freertos_stub.h"
#include "FTrace_freertos.h"

/* every hook below is the header's own (FreeRTOS's empty default would
 * compile as well, and log nothing): the compilation fails otherwise */
#ifndef traceTASK_CREATE
#error "FTrace_freertos.h does not map traceTASK_CREATE"
#endif
#ifndef traceMOVED_TASK_TO_READY_STATE
#error "FTrace_freertos.h does not map traceMOVED_TASK_TO_READY_STATE"
#endif
#ifndef traceTASK_SWITCHED_OUT
#error "FTrace_freertos.h does not map traceTASK_SWITCHED_OUT"
#endif
#ifndef traceTASK_SWITCHED_IN
#error "FTrace_freertos.h does not map traceTASK_SWITCHED_IN"
#endif
#ifndef traceQUEUE_RECEIVE
#error "FTrace_freertos.h does not map traceQUEUE_RECEIVE"
#endif
#ifndef traceQUEUE_SEMAPHORE_RECEIVE
#error "FTrace_freertos.h does not map traceQUEUE_SEMAPHORE_RECEIVE"
#endif
#ifndef traceQUEUE_SEND
#error "FTrace_freertos.h does not map traceQUEUE_SEND"
#endif
#ifndef traceQUEUE_SEND_FROM_ISR
#error "FTrace_freertos.h does not map traceQUEUE_SEND_FROM_ISR"
#endif
#ifndef traceQUEUE_SEND_FROM_ISR_FAILED
#error "FTrace_freertos.h does not map traceQUEUE_SEND_FROM_ISR_FAILED"
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR
#error "FTrace_freertos.h does not map traceQUEUE_RECEIVE_FROM_ISR"
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR_FAILED
#error "FTrace_freertos.h does not map traceQUEUE_RECEIVE_FROM_ISR_FAILED"
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR
#error "FTrace_freertos.h does not map traceQUEUE_PEEK_FROM_ISR"
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR_FAILED
#error "FTrace_freertos.h does not map traceQUEUE_PEEK_FROM_ISR_FAILED"
#endif
#ifndef traceBLOCKING_ON_QUEUE_RECEIVE
#error "FTrace_freertos.h does not map traceBLOCKING_ON_QUEUE_RECEIVE"
#endif
#ifndef traceBLOCKING_ON_QUEUE_SEND
#error "FTrace_freertos.h does not map traceBLOCKING_ON_QUEUE_SEND"
#endif
#ifndef traceTASK_DELAY
#error "FTrace_freertos.h does not map traceTASK_DELAY"
#endif
#ifndef traceTASK_DELAY_UNTIL
#error "FTrace_freertos.h does not map traceTASK_DELAY_UNTIL"
#endif
#ifndef traceTASK_SUSPEND
#error "FTrace_freertos.h does not map traceTASK_SUSPEND"
#endif
#ifndef traceISR_ENTER
#error "FTrace_freertos.h does not map traceISR_ENTER"
#endif
#ifndef traceISR_EXIT
#error "FTrace_freertos.h does not map traceISR_EXIT"
#endif
#ifndef traceISR_EXIT_TO_SCHEDULER
#error "FTrace_freertos.h does not map traceISR_EXIT_TO_SCHEDULER"
#endif
#ifndef traceTASK_DELETE
#error "FTrace_freertos.h does not map traceTASK_DELETE"
#endif

TCB_t *volatile pxCurrentTCB;

void kernel_hooks(TCB_t *t, Queue_t *q);

void kernel_hooks(TCB_t *t, Queue_t *q)
{
	traceTASK_CREATE(t);
	traceMOVED_TASK_TO_READY_STATE(t);
	traceTASK_SWITCHED_OUT();
	pxCurrentTCB = t;
	traceTASK_SWITCHED_IN();
	traceQUEUE_RECEIVE(q);
	traceQUEUE_SEMAPHORE_RECEIVE(q);
	traceQUEUE_SEND(q);
	traceQUEUE_SEND_FROM_ISR(q);
	traceQUEUE_SEND_FROM_ISR_FAILED(q);
	traceQUEUE_RECEIVE_FROM_ISR(q);
	traceQUEUE_RECEIVE_FROM_ISR_FAILED(q);
	traceQUEUE_PEEK_FROM_ISR(q);
	traceQUEUE_PEEK_FROM_ISR_FAILED(q);
	traceBLOCKING_ON_QUEUE_RECEIVE(q);
	traceBLOCKING_ON_QUEUE_SEND(q);
	traceTASK_DELAY();
	traceTASK_DELAY_UNTIL(0);
	traceTASK_SUSPEND(t);
	traceISR_ENTER();
	traceISR_EXIT();
	traceISR_EXIT_TO_SCHEDULER();
	traceTASK_DELETE(t);
}
