/*
 * host_sim.c - runs trace_glue.c on the host (the recorder's host port):
 * a simulated kernel calls the hooks of a 48 MHz target that runs two
 * periodic tasks, an interrupt and a mutex for 3 ms, and the dump goes to
 * the file given.  The test reads it back with tracekit (docs/recorder.md).
 *
 * usage: host_sim DUMP
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace_glue.h"

static uint64_t now;          /* the simulated cycle counter */
static FILE *dump;

uint64_t tkrec_host_tsc(void);
uint64_t tkrec_host_tsc(void)
{
	return now;
}

void board_cycle_counter_start(void)
{
	now = 0;
}

void board_dump_write(const void *bytes, size_t n)
{
	if (fwrite(bytes, 1, n, dump) != n) {
		perror("host_sim: write");
		exit(2);
	}
}

enum { IDLE = 9, CTRL = 1, LOG = 2, IRQ_CAN = 5 };
#define MUTEX 0x20001000u
#define MS 48000u             /* cycles per millisecond at 48 MHz */

int main(int argc, char **argv)
{
	unsigned k;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: host_sim DUMP\n");
		return 2;
	}
	dump = fopen(argv[1], "wb");
	if (!dump) {
		perror(argv[1]);
		return 2;
	}
	if (trace_start(48000000u) < 0) {
		fprintf(stderr, "host_sim: trace_start failed\n");
		return 2;
	}
	now = 10;
	trace_task_created(IDLE, 0);
	trace_task_created(CTRL, 1);
	trace_task_created(LOG, 2);
	trace_switch_to(IDLE);
	for (k = 0; k < 3; k++) {
		uint64_t t0 = (uint64_t)k * MS + 100;

		now = t0;                    /* both tasks are released */
		trace_task_released(CTRL);
		trace_task_released(LOG);
		trace_switch_to(CTRL);
		now = t0 + 1000;
		trace_mutex_lock(CTRL, MUTEX);
		now = t0 + 4800;             /* the CAN interrupt */
		trace_isr_enter(IRQ_CAN);
		now = t0 + 5280;
		trace_isr_exit(IRQ_CAN);
		now = t0 + 6000;
		trace_mutex_unlock(CTRL, MUTEX);
		now = t0 + 9600;
		trace_job_done(CTRL);
		trace_switch_to(LOG);
		now = t0 + 24000;
		trace_job_done(LOG);
		trace_switch_to(IDLE);
	}
	now = 3 * MS;
	rc = trace_stop_and_dump();
	if (fclose(dump) != 0 || rc < 0) {
		fprintf(stderr, "host_sim: dump failed\n");
		return 2;
	}
	return 0;
}
