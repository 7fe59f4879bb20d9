/*
 * rec_send.c - the recorder end of the end-to-end test (e2e.sh): logs a
 * small S.Ha.R.K.-like run with the host port of recorder/, writes the
 * chunk through the disk writer to REF, then sends the same chunk by UDP
 * (TRACER-V1.0 datagrams) to 127.0.0.1:PORT.  Prints the record count.
 *
 *   rec_send PORT REF
 */
#include "FTrace.h"
#include "FTrace_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t tsc = 1000000;

uint64_t tkrec_host_tsc(void)
{
	return tsc += 137;
}

static uint8_t pool[1 << 20];

/* a failing step fails the end-to-end test (e2e.sh checks the status) */
static void fail(const char *what)
{
	fprintf(stderr, "rec_send: FAIL: %s\n", what);
	exit(1);
}
static FILE *ref;
static size_t nbytes;

static void to_file(void *ctx, const char *name, unsigned index,
		    const void *bytes, size_t n)
{
	(void)ctx;
	(void)name;
	(void)index;
	if (fwrite(bytes, 1, n, ref) != n)
		fail("cannot write the reference dump");
	nbytes += n;
}

int main(int argc, char **argv)
{
	int a, i;

	if (argc != 3) {
		fprintf(stderr, "usage: rec_send PORT REF\n");
		return 2;
	}
	ref = fopen(argv[2], "wb");
	if (!ref)
		fail("cannot create the reference dump");
	tkrec_init(pool, sizeof(pool));
	tkrec_set_sink(to_file, NULL);
	a = FTrace_chunk_create(400 * 16, 0, FTRACE_CHUNK_FLAG_FREE);
	if (a < 0 || FTrace_actual_chunk_select(a) != 0 || FTrace_enable() != 0)
		fail("cannot set up the chunk");
	TRACER_LOGEVENT(0x20, 256, 367483);      /* trace_start, clk_per_msec */
	TRACER_LOGEVENT(0x60, 256, 0);           /* id: ctx 256 is pid 0 */
	TRACER_LOGEVENT(0x60, 264, 1);
	TRACER_LOGEVENT(0x60, 272, 2);
	for (i = 0; i < 40; i++) {
		unsigned ctx = i % 2 ? 272 : 264;
		TRACER_LOGEVENT(0x2B, 0, 0);         /* timer_wakeup_start */
		TRACER_LOGEVENT(0x12, ctx, 0);       /* task_activate */
		TRACER_LOGEVENT(0x3B, ctx, 0);       /* timer_wakeup_end */
		TRACER_LOGEVENT(0x82, ctx, ctx);     /* task_schedule */
		TRACER_LOGEVENT(0x15, ctx, 0);       /* context_switch */
		TRACER_LOGEVENT(0x62, ctx, 1);       /* task_end_cycle */
		TRACER_LOGEVENT(0x15, 256, 0);
	}
	TRACER_LOGEVENT(0x30, 0, 0);             /* trace_stop */
	FTrace_disable();
	FTrace_init_disk_writer("ref", 0, NULL, NULL);
	if (FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) != 0 || fclose(ref) != 0)
		fail("the disk writer did not write the chunk");
	tkrec_host_udp_config(0, (unsigned)atoi(argv[1]), 0);
	if (FTrace_OSD_init_udp(1, "127.0.0.1", "127.0.0.1") != 0 ||
	    FTrace_send_chunk(a, 0, FTRACE_CHUNK_FLAG_FREE) != 0)
		fail("the UDP sender did not send the chunk");
	tkrec_host_udp_close();
	printf("%zu\n", nbytes / 16);
	return 0;
}
