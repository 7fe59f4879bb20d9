/*
 * test_freertos_hooks.c - recorder/FTrace_freertos.h compiled against a
 * stub of the FreeRTOS symbols it uses (freertos_stub.h) and run on the
 * host port: the trace macros, called as tasks.c and queue.c call them,
 * give the events docs/recorder.md ("FreeRTOS") says, with the tasks'
 * names (stream) and no name of a deleted task sent after it is freed.
 */
#define _POSIX_C_SOURCE 200809L

#include "freertos_stub.h"
#include "FTrace_freertos.h"
#include "FTrace_host.h"
#include "tracekit/tracekit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned fails;

#define CHECK(cond) do { if (!(cond)) { fails++; \
	fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static uint64_t now = 1000;

uint64_t tkrec_host_tsc(void)
{
	return now += 10;
}

TCB_t *volatile pxCurrentTCB;

static uint8_t pool[1 << 16], ring[1 << 12];
static uint8_t strm[1 << 16];
static size_t strm_len;

static size_t transport(const void *bytes, size_t len)
{
	if (strm_len + len > sizeof(strm))
		len = sizeof(strm) - strm_len;
	memcpy(strm + strm_len, bytes, len);
	strm_len += len;
	return len;
}

/* does s occur in the stream? */
static int in_stream(const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i + n <= strm_len; i++)
		if (memcmp(strm + i, s, n) == 0)
			return 1;
	return 0;
}

static TCB_t *task_create(unsigned number, const char *name)
{
	TCB_t *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->uxTCBNumber = number;
	snprintf(t->pcTaskName, sizeof(t->pcTaskName), "%s", name);
	traceTASK_CREATE(t);
	traceMOVED_TASK_TO_READY_STATE(t);
	return t;
}

static void switch_to(TCB_t *t)
{
	traceTASK_SWITCHED_OUT();
	pxCurrentTCB = t;
	traceTASK_SWITCHED_IN();
}

/* what the library reads: "target event" a line, from the first task event */
static void read_back(char *out, size_t cap)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t len = 0;
	int rc;

	out[0] = 0;
	tk_reader_opts_init(&o);
	o.strict = 1;
	rc = tk_reader_open_mem(&r, strm, strm_len, "mem", &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		int w;

		if (ev->type == TK_ET_SYS || ev->type == TK_ET_C)
			continue;
		w = snprintf(out + len, cap - len, "%s %s\n",
			     tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL),
			     tk_trace_str(t, ev->name, NULL));
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
	}
	CHECK(rc == TK_END);
	CHECK(tk_reader_warning_count(r) == 0);
	tk_reader_close(r);
}

int main(void)
{
	static const char want[] =
		"ctrl activate\n"
		"comm activate\n"
		"ctrl start\n"
		"mutex_MTX lock\n"
		"mutex_MTX unlock\n"
		"semSEM increment\n"
		"ctrl terminate\n"
		"comm start\n"
		"comm preempt\n"
		"IRQ0 activate\n"
		"IRQ0 start\n"
		"semSEM increment\n"
		"semSEM decrement\n"
		"IRQ0 terminate\n"
		"comm resume\n"
		"semSEM decrement\n"
		"comm terminate\n"
		"IDLE activate\n"
		"IDLE start\n"
		"ctrl activate\n"
		"IDLE preempt\n"
		"ctrl start\n"
		"ctrl terminate\n";
	static char got[4096], expect[4096];
	Queue_t mtx = { 0 }, sem = { 0 }, q = { 0 };
	TCB_t *idle, *ctrl, *comm;
	const char *p;
	size_t e = 0;
	unsigned i;

	mtx.ucQueueType = queueQUEUE_TYPE_MUTEX;
	sem.ucQueueType = queueQUEUE_TYPE_BINARY_SEMAPHORE;
	q.ucQueueType = queueQUEUE_TYPE_BASE;
	/* TKREC_FREERTOS_IRQ()'s number of an exception (IPSR): an IRQ's is
	 * the IRQ, a system exception's (SysTick, which FreeRTOS's Cortex-M
	 * ports bracket with traceISR_ENTER) is not the IRQ of its number */
	CHECK(tkrec_freertos_irq_of(16) == 0 && tkrec_freertos_irq_of(16 + 15) == 15);
	CHECK(tkrec_freertos_irq_of(511) == 495);
	CHECK(tkrec_freertos_irq_of(15) == 0xFF0F && tkrec_freertos_irq_of(14) == 0xFF0E);
	CHECK(tkrec_init(pool, sizeof(pool)) == 0);
	CHECK(tkrec_stream_init(ring, sizeof(ring), transport, 1000, 64) == 0);
	CHECK(FTrace_enable() == 0);
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, 1000);
	ctrl = task_create(2, "ctrl");
	comm = task_create(3, "comm");
	switch_to(ctrl);
	traceQUEUE_RECEIVE(&mtx);           /* xSemaphoreTake(mutex) */
	traceQUEUE_SEND(&mtx);              /* xSemaphoreGive(mutex) */
	traceQUEUE_SEND(&sem);              /* xSemaphoreGive(sem) */
	traceQUEUE_SEND(&q);                /* a queue: nothing */
	traceTASK_DELAY();                  /* vTaskDelay: the job ends */
	switch_to(comm);
	traceISR_ENTER();
	traceQUEUE_SEND_FROM_ISR(&sem);     /* xSemaphoreGiveFromISR */
	traceQUEUE_SEND_FROM_ISR(&q);       /* a queue: nothing */
	traceQUEUE_SEND_FROM_ISR_FAILED(&sem); /* failed: nothing */
	traceQUEUE_PEEK_FROM_ISR(&sem);     /* a peek: nothing */
	traceQUEUE_PEEK_FROM_ISR_FAILED(&sem);
	traceQUEUE_RECEIVE_FROM_ISR(&sem);  /* xSemaphoreTakeFromISR */
	traceQUEUE_RECEIVE_FROM_ISR(&q);    /* a queue: nothing */
	traceQUEUE_RECEIVE_FROM_ISR_FAILED(&sem);
	traceISR_EXIT();
	traceQUEUE_SEMAPHORE_RECEIVE(&sem); /* xSemaphoreTake(sem) */
	traceBLOCKING_ON_QUEUE_RECEIVE(&q); /* blocks: the job ends */
	idle = task_create(1, "IDLE");
	switch_to(idle);
	traceTASK_DELETE(comm);             /* by another task: no event */
	/* the kernel frees the TCB: its name must not be sent again */
	memset(comm->pcTaskName, 'X', sizeof(comm->pcTaskName) - 1);
	free(comm);
	for (i = 0; i < 20; i++)            /* syncs (every 64 bytes) */
		TRACER_LOGEVENT(FTrace_EVT_user_event_0, 0, i);
	traceMOVED_TASK_TO_READY_STATE(ctrl); /* the delay ends */
	switch_to(ctrl);
	traceTASK_DELAY_UNTIL(0);
	CHECK(tkrec_stream_stop() == 0);
	CHECK(tkrec_meta_lost() == 0);
	/* the mutex and the semaphore are named by their addresses */
	for (p = want; *p && e + 32 < sizeof(expect); p++) {
		if (strncmp(p, "MTX", 3) == 0) {
			e += (size_t)snprintf(expect + e, sizeof(expect) - e, "%lx",
					      (unsigned long)(uint32_t)(uintptr_t)&mtx);
			p += 2;
		} else if (strncmp(p, "SEM", 3) == 0) {
			e += (size_t)snprintf(expect + e, sizeof(expect) - e, "%lu",
					      (unsigned long)(uint32_t)(uintptr_t)&sem);
			p += 2;
		} else {
			expect[e++] = *p;
		}
	}
	expect[e] = 0;
	read_back(got, sizeof(got));
	/* the user events between, left out */
	{
		char *a = got, *b;
		while ((b = strstr(a, "user_event_0 user_event_0\n")) != NULL)
			memmove(b, b + 26, strlen(b + 26) + 1);
	}
	CHECK(strcmp(got, expect) == 0);
	if (strcmp(got, expect) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s", got, expect);
	CHECK(!in_stream("XXX"));
	CHECK(in_stream("ctrl"));
	free(ctrl);
	free(idle);
	if (fails)
		fprintf(stderr, "%u failures\n", fails);
	return fails ? 1 : 0;
}
