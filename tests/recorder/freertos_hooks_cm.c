/*
 * freertos_hooks_cm.c - recorder/FTrace_freertos.h as a firmware's kernel
 * files expand it (each macro once), compiled freestanding with the
 * Cortex-M port, with and without TKREC_STREAM (recorder.freertos_cortex_m,
 * recorder.freertos_cortex_m_arm); freertos_cm.sh checks the object: the
 * hooks log through the recorder's ipoint, register the task's name when
 * streaming, and read IPSR on Arm (TKREC_FREERTOS_IRQ()).
 */
#include "freertos_stub.h"
#include "FTrace_freertos.h"

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
