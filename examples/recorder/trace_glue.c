/*
 * trace_glue.c - the recorder's calls behind the kernel hooks of
 * trace_glue.h.  Freestanding: it builds with the recorder for the target
 * (-DFTRACE_PORT_CORTEX_M) and for the host (the host port, in the test).
 */
#include "trace_glue.h"

#include "FTrace.h"

/* Chunks are carved from this: one chunk of 12 KB (768 records) and
 * 1 KB of emergency slots (64 records). */
static uint8_t trace_mem[16 * 1024];
static int trace_chunk = -1;

/* FTrace_send_chunk() hands the dump over in pieces, here to the board. */
static void dump_sink(void *ctx, const char *name, unsigned index,
		      const void *bytes, size_t n)
{
	(void)ctx;
	(void)name;
	(void)index;
	board_dump_write(bytes, n);
}

int trace_start(uint32_t cpu_hz)
{
	board_cycle_counter_start();
	if (tkrec_init(trace_mem, sizeof trace_mem) < 0)
		return -1;
	tkrec_set_sink(dump_sink, NULL);
	/* STOP: a full chunk keeps its first events; later ones go to the
	 * emergency area, then are counted in the lost-events record */
	trace_chunk = FTrace_chunk_create(12 * 1024, 1024,
					  FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_STOP);
	if (trace_chunk < 0 || FTrace_actual_chunk_select(trace_chunk) < 0)
		return -1;
	FTrace_enable();
	/* par2 = cycles per millisecond: the reader's time base */
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, cpu_hz / 1000u);
	return 0;
}

/* FTrace records carry numbers only: context `ctx` becomes task<pid> */
void trace_task_created(uint16_t ctx, uint32_t pid)
{
	TRACER_LOGEVENT(FTrace_EVT_task_create, ctx, pid);
}

void trace_task_released(uint16_t ctx)
{
	TRACER_LOGEVENT(FTrace_EVT_task_activate, ctx, 0);
}

void trace_switch_to(uint16_t ctx)
{
	TRACER_LOGEVENT(FTrace_EVT_context_switch, ctx, 0);
}

void trace_job_done(uint16_t ctx)
{
	TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, ctx, 0);
}

void trace_isr_enter(uint16_t irq)
{
	TRACER_LOGEVENT(FTrace_EVT_interrupt_start, irq, 0);
}

void trace_isr_exit(uint16_t irq)
{
	TRACER_LOGEVENT(FTrace_EVT_interrupt_end, irq, 0);
}

void trace_mutex_lock(uint16_t ctx, uint32_t mutex_addr)
{
	TRACER_LOGEVENT(FTrace_EVT_set_mutex_lock, ctx, mutex_addr);
}

void trace_mutex_unlock(uint16_t ctx, uint32_t mutex_addr)
{
	TRACER_LOGEVENT(FTrace_EVT_set_mutex_unlock, ctx, mutex_addr);
}

/* Stop, then write the chunk through the sink: 16-byte records, no
 * header, the format `tracekit --from shark` reads. */
int trace_stop_and_dump(void)
{
	TRACER_LOGEVENT(FTrace_EVT_trace_stop, 0, 0);
	FTrace_disable();
	FTrace_init_disk_writer("trace.bin", 0, NULL, NULL);
	return FTrace_send_chunk(trace_chunk, 0, FTRACE_CHUNK_FLAG_FREE);
}
