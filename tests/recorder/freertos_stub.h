/*
 * freertos_stub.h - the few FreeRTOS symbols recorder/FTrace_freertos.h
 * uses, written for the test (no FreeRTOS source): the TCB's number and
 * name, the queue's type, pxCurrentTCB, as tasks.c and queue.c have them
 * with configUSE_TRACE_FACILITY 1.
 */
#ifndef FREERTOS_STUB_H
#define FREERTOS_STUB_H

#include <stdint.h>

typedef unsigned long UBaseType_t;
typedef uint32_t TickType_t;

#define configUSE_TRACE_FACILITY 1
#define configMAX_TASK_NAME_LEN 16

typedef struct tskTaskControlBlock {
	volatile uint32_t *pxTopOfStack;
	UBaseType_t uxPriority;
	char pcTaskName[configMAX_TASK_NAME_LEN];
	UBaseType_t uxTCBNumber;
	UBaseType_t uxTaskNumber;
} tskTCB;
typedef tskTCB TCB_t;

typedef struct QueueDefinition {
	int8_t *pcHead;
	UBaseType_t uxMessagesWaiting;
	uint8_t ucQueueType;
} xQUEUE;
typedef xQUEUE Queue_t;

#define queueQUEUE_TYPE_BASE ((uint8_t)0U)
#define queueQUEUE_TYPE_MUTEX ((uint8_t)1U)
#define queueQUEUE_TYPE_COUNTING_SEMAPHORE ((uint8_t)2U)
#define queueQUEUE_TYPE_BINARY_SEMAPHORE ((uint8_t)3U)
#define queueQUEUE_TYPE_RECURSIVE_MUTEX ((uint8_t)4U)

extern TCB_t *volatile pxCurrentTCB;

#endif
