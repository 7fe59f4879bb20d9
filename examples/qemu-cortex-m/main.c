/*
 * main.c - a bare-metal firmware for QEMU's mps2-an385 (Cortex-M3) that
 * records its own schedule with the FTrace recorder (the Cortex-M port).
 *
 * A fixed-priority preemptive scheduler: SysTick (1 ms, the highest
 * priority) releases three periodic tasks, PendSV (the lowest) switches
 * between their stacks.  Rate-monotonic priorities:
 *
 *   task1  1 ms  budget 200 us      task3  5 ms  budget 1000 us
 *   task2  2 ms  budget 400 us      IRQ8   CMSDK timer 0 every 700 us
 *                                          from 350 us after the first
 *                                          tick, 24 us of work
 *
 * main goes on as the idle thread (task0 in the trace: the reader must
 * see the core go idle).  Releases carry the tick's time (the clock is
 * held while SysTick logs them); every other event, the time it is
 * logged.  Before the run, the cost of one event is measured.
 *
 * A budget is a loop of 2-instruction iterations; with QEMU's -icount
 * shift=5 an instruction takes 32 ns, so 1 us is 15.625 iterations.  The
 * run lasts RUN_MS ticks (100; the stream build's, the Makefile's
 * STREAM_MS: 3000 by default), then the idle thread stops the recorder and
 * writes the dump by semihosting (trace.bin, or trace.htf) and sends it
 * on UART0, prints a summary on the semihosting console and exits.
 *
 * Built twice (examples/qemu-cortex-m/Makefile): TRACER_LOGEVENT into a
 * cyclic chunk (the FTrace dump), or with -DTRACE_HTF the HTF binary mode
 * (written as an .htf file by recorder/host/htf_dump.c through the C
 * library's semihosting stdio).  With -DTRACE_USER_CLOCK (fw-user.elf)
 * the FTrace build's clock is the port's user clock on another timer:
 * the board's CMSDK dual timer 1, free-running, 16 bits, counting down at
 * 25 MHz (TKREC_CM_USER_*, given by the Makefile), dumped to
 * trace-user.bin.
 */
#include <stdint.h>
#include <string.h>

#include "FTrace.h"
#include "firmware.h"
#ifdef TRACE_HTF
#include "FTrace_htf.h"
#include "FTrace_host.h"
#endif

#define CPU_HZ      25000000u            /* the MPS2 system clock */
#define TICK_CYCLES (CPU_HZ / 1000u)
#ifndef RUN_MS
#define RUN_MS      100u                 /* ticks (the stream build: STREAM_MS) */
#endif
#define TIMER_CYCLES (CPU_HZ / 1000000u * 700u)  /* the period: reload + 1 */
#define ITER_PER_8US 125u                /* 8 us = 250 instructions of 32 ns */
#define IRQ_TIMER   8u
#define COST_N      1000u

#define REG(a) (*(volatile uint32_t *)(a))
#define ICSR       REG(0xE000ED04u)
#define ICSR_PENDSVSET (1u << 28)
#define SHPR3      REG(0xE000ED20u)      /* PendSV 23:16, SysTick 31:24 */
#define NVIC_ISER0 REG(0xE000E100u)
#define NVIC_IPR8  (*(volatile uint8_t *)(0xE000E400u + IRQ_TIMER))
#define SYST_CSR   REG(0xE000E010u)
#define SYST_RVR   REG(0xE000E014u)
#define SYST_CVR   REG(0xE000E018u)
#define UART0      0x40004000u
#define TIMER0     0x40000000u
#define TIMER_CTRL    REG(TIMER0 + 0x0u)
#define TIMER_RELOAD  REG(TIMER0 + 0x8u)
#define TIMER_VALUE   REG(TIMER0 + 0x4u)
/* the CMSDK dual timer's timer 1: the user clock of fw-user.elf */
#define DUALTIMER1_LOAD REG(0x40002000u)
#define DUALTIMER1_CTRL REG(0x40002008u)
#define TIMER_INTCLR  REG(TIMER0 + 0xCu)

/* ---- tasks -------------------------------------------------------------- */

struct task {
	uint32_t *sp;               /* saved stack pointer (r4-r11 on top) */
	uint16_t ctx;               /* the FTrace context, the HTF entity */
	uint32_t period_ms;
	uint32_t budget_us;
	volatile uint8_t ready;     /* a job is released and not finished */
	uint8_t started;            /* ... and has run */
	uint32_t jobs, misses;
};

#define NTASKS 3
static struct task tasks[NTASKS + 1] = {
	{ 0, 1, 1, 200, 0, 0, 0, 0 },
	{ 0, 2, 2, 400, 0, 0, 0, 0 },
	{ 0, 3, 5, 1000, 0, 0, 0, 0 },
	{ 0, 0, 0, 0, 1, 0, 0, 0 },          /* idle: main, always ready */
};
#define IDLE (&tasks[NTASKS])
static struct task *volatile cur = IDLE;
static uint64_t task_stacks[NTASKS][256];
static volatile uint32_t ticks, irq_count;
static volatile int done;

static inline int is_task(const struct task *t)
{
	return t != IDLE;
}

/* n iterations of two instructions */
static void spin(uint32_t n)
{
	__asm volatile("1: subs %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

static void spin_us(uint32_t us)
{
	spin(us / 8u * ITER_PER_8US);
}

/* ---- console ------------------------------------------------------------ */

static char line[160];
static size_t line_n;

static void out_s(const char *s)
{
	while (*s && line_n + 1 < sizeof(line))
		line[line_n++] = *s++;
	line[line_n] = 0;
}

static void out_u(uint32_t v)
{
	char b[11];
	int i = 10;

	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	out_s(b + i);
}

static void out_end(void)
{
	out_s("\n");
	tkrec_cm_sh_puts(line);
	line_n = 0;
}

void fw_fail(const char *why)
{
	out_s("fw: FAILED: ");
	out_s(why);
	out_end();
	tkrec_cm_sh_exit(1);
}

/* ---- the recorder's calls ----------------------------------------------- */

#ifndef TRACE_HTF
#ifdef TRACE_STREAM
/* the snapshot beside the stream holds the whole run, however long
 * (RUN_MS: the Makefile's STREAM_MS): the run logs 9 records a tick and a
 * few more at its start (902 in 100 ticks); the board's 2 MB of RAM hold
 * 3 s of it */
#define SNAP_BYTES ((RUN_MS * 10u + 1024u) * TKREC_REC)
#else
#define SNAP_BYTES (32u * 1024u)
#endif
/* the measures of the cost first take the first COST_MEM bytes */
#define COST_MEM   (40u * 1024u)
static uint8_t trace_mem[SNAP_BYTES + 8u * 1024u > COST_MEM ? SNAP_BYTES + 8u * 1024u : COST_MEM];
static int trace_chunk = -1;
#ifdef TRACE_STREAM
/* the stream (TKREC_STREAM 1): its ring drained on UART0 as the run goes
 * by the idle thread (no transport: the ipoints never drain, so the
 * tasks' and the interrupt's times are the snapshot build's), the
 * snapshot beside it by semihosting at the end */
#define TRACE_MODE "stream"
#define TRACE_BIN "snapshot.bin"
static uint8_t stream_ring[1024];

/* the ring's bytes to UART0, a few at a time: the read keeps interrupts
 * masked while it copies */
static void stream_idle(void)
{
	uint8_t buf[32];
	size_t n;

	while ((n = tkrec_stream_read(buf, sizeof buf)) != 0)
		tkrec_cm_uart_write(UART0, buf, n);
}

/* a debugger's mark, called once by the idle thread at the first chance
 * after tick RUN_MS / 2: tests/live/live_page.py halts the firmware there (one
 * breakpoint, hit once) to read the live page while the firmware runs */
__attribute__((noinline, used)) static void fw_halfway(void)
{
	__asm volatile("" : : : "memory");
}
#elif defined(TRACE_USER_CLOCK)
#define TRACE_MODE "ftrace"
#define TRACE_BIN "trace-user.bin"
#else
#define TRACE_MODE "ftrace"
#define TRACE_BIN "trace.bin"
#endif

static void trace_init(void)
{
	unsigned i;

	if (tkrec_init(trace_mem, sizeof trace_mem) < 0)
		fw_fail("tkrec_init");
#ifdef TRACE_STREAM
	if (tkrec_stream_init(stream_ring, sizeof stream_ring, NULL, CPU_HZ / 1000u, 1024) < 0)
		fw_fail("tkrec_stream_init");
#endif
	/* cyclic: keeps the last SNAP_BYTES / 16 records (the run makes fewer) */
	trace_chunk = FTrace_chunk_create((int)SNAP_BYTES, 0,
					  FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
	if (trace_chunk < 0 || FTrace_actual_chunk_select(trace_chunk) < 0 ||
	    FTrace_enable() < 0)
		fw_fail("chunk");
#ifdef TRACE_USER_CLOCK
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, TKREC_CM_USER_PER_MS);
#else
	TRACER_LOGEVENT(FTrace_EVT_trace_start, 0, CPU_HZ / 1000u);
#endif
	/* context n is task<n>; the idle thread (context 0) is task0 */
	for (i = 0; i <= NTASKS; i++)
		TRACER_LOGEVENT(FTrace_EVT_task_create, tasks[i].ctx, tasks[i].ctx);
}

static void trace_release(struct task *t)
{
	TRACER_LOGEVENT(FTrace_EVT_task_activate, t->ctx, 0);
}

/* the idle thread too: else the reader would take the core for the last
 * task's, and a return from an interrupt for a new job of it */
static void trace_switch(struct task *from, struct task *to)
{
	(void)from;
	TRACER_LOGEVENT(FTrace_EVT_context_switch, to->ctx, 0);
}

static void trace_done(struct task *t)
{
	TRACER_LOGEVENT(FTrace_EVT_task_end_cycle, t->ctx, 0);
}

/* the IRQ number read from IPSR (the port's tkrec_cm_irq_number()) */
static void trace_isr_enter(void)
{
	TKREC_CM_ISR_ENTER();
}

static void trace_isr_exit(void)
{
	TKREC_CM_ISR_EXIT();
}

static uint32_t trace_lost(void)
{
#ifdef TRACE_STREAM
	return tkrec_lost() + tkrec_stream_lost();
#else
	return tkrec_lost();
#endif
}

#ifdef TRACE_STREAM
/* the stream build also counts the event with the stream on: 0 a chunk
 * alone, 1 the stream alone, 2 both (a ring of its own that holds the
 * COST_N events, no transport: the syncs every 1024 bytes counted) */
static int cost_mode;
#define COST_POOL (20u * 1024u)
#else
#define cost_mode 0
#define COST_POOL COST_MEM
#endif

/* the cost of one TRACER_LOGEVENT, measured in a chunk of its own */
static void cost_setup(void)
{
	int c;

	if (tkrec_init(trace_mem, COST_POOL) < 0)
		fw_fail("tkrec_init");
#ifdef TRACE_STREAM
	if (cost_mode && tkrec_stream_init(trace_mem + COST_POOL, COST_MEM - COST_POOL,
					   NULL, CPU_HZ / 1000u, 1024) < 0)
		fw_fail("cost stream");
#endif
	if (cost_mode != 1) {
		c = FTrace_chunk_create(COST_N * TKREC_REC, 0,
					FTRACE_CHUNK_FLAG_FREE | FTRACE_CHUNK_FLAG_CYC);
		if (c < 0 || FTrace_actual_chunk_select(c) < 0)
			fw_fail("cost chunk");
	}
	if (FTrace_enable() < 0)
		fw_fail("cost enable");
}

static void cost_event(uint32_t i)
{
	TRACER_LOGEVENT(FTrace_EVT_user_event_0, i, i);
}

/* stop, then the chunk twice: by semihosting, then on the UART (the
 * stream build: the stream's last bytes on the UART, the chunk by
 * semihosting only) */
static void trace_dump(void)
{
	tkrec_cm_sh_file f = TKREC_CM_SH_FILE(TRACE_BIN);

	TRACER_LOGEVENT(FTrace_EVT_trace_stop, 0, 0);
	FTrace_disable();
#ifdef TRACE_STREAM
	if (tkrec_stream_stop() < 0)
		fw_fail("tkrec_stream_stop");
	stream_idle();  /* what is left, the last overflow record too */
#endif
	FTrace_init_disk_writer(TRACE_BIN, 0, NULL, NULL);
	tkrec_set_sink(tkrec_cm_sh_sink, &f);
	if (FTrace_send_chunk(trace_chunk, 0, FTRACE_CHUNK_FLAG_FREE) < 0 ||
	    tkrec_cm_sh_file_close(&f) < 0)
		fw_fail("semihosting dump");
#ifdef TRACE_STREAM
	return;
#endif
	tkrec_set_sink(tkrec_cm_uart_sink, (void *)UART0);
	if (FTrace_send_chunk(trace_chunk, 0, FTRACE_CHUNK_FLAG_FREE) < 0)
		fw_fail("UART dump");
}

#else /* TRACE_HTF */
static uint8_t htf_buf[16 * 1024];
#define TRACE_MODE "htf"

static void trace_init(void)
{
	/* the FTrace reader's names: task<pid>, IRQ<n> */
	static const char *const names[NTASKS + 1] = { "task1", "task2", "task3", "task0" };
	unsigned i;

	/* times from the clock's start, as the FTrace build's TSCs */
	tkrec_htf_reset(0);
	/* 4-byte times (cycles: 171 s at 25 MHz), 1-byte entity and event */
	if (tkrec_htf_core_init(0, htf_buf, sizeof htf_buf, 4, 1, 1) < 0)
		fw_fail("htf core");
	for (i = 0; i <= NTASKS; i++)
		if (tkrec_htf_entity(tasks[i].ctx, names[i], TKREC_HTF_TASK) < 0)
			fw_fail("htf entity");
	if (tkrec_htf_entity(IRQ_TIMER, "IRQ8", TKREC_HTF_ISR) < 0)
		fw_fail("htf entity");
}

static void trace_release(struct task *t)
{
	TRACER_HTF_LOGEVENT(t->ctx, TKREC_HTF_TASK_ACTIVATE);
}

/*
 * What the FTrace reader derives from a context switch, said explicitly:
 * the job that runs is preempted, the next starts or resumes; the idle
 * thread is a job that never ends, activated when it first runs.
 */
static void trace_switch(struct task *from, struct task *to)
{
	if (from->ready && from->started)
		TRACER_HTF_LOGEVENT(from->ctx, TKREC_HTF_TASK_PREEMPT);
	if (!is_task(to) && !to->started)
		TRACER_HTF_LOGEVENT(to->ctx, TKREC_HTF_TASK_ACTIVATE);
	TRACER_HTF_LOGEVENT(to->ctx, to->started ? TKREC_HTF_TASK_RESUME :
			    TKREC_HTF_TASK_START);
}

static void trace_done(struct task *t)
{
	TRACER_HTF_LOGEVENT(t->ctx, TKREC_HTF_TASK_TERMINATE);
}

/* a job holds the core (the idle thread's too, once it has run) */
static int task_running(void)
{
	struct task *t = cur;

	return t->ready && t->started;
}

static void trace_isr_enter(void)
{
	if (task_running())
		TRACER_HTF_LOGEVENT(cur->ctx, TKREC_HTF_TASK_PREEMPT);
	TRACER_HTF_LOGEVENT(IRQ_TIMER, TKREC_HTF_ISR_START);
}

static void trace_isr_exit(void)
{
	TRACER_HTF_LOGEVENT(IRQ_TIMER, TKREC_HTF_ISR_TERMINATE);
	if (task_running())
		TRACER_HTF_LOGEVENT(cur->ctx, TKREC_HTF_TASK_RESUME);
}

static uint32_t trace_lost(void)
{
	return tkrec_htf_lost();
}

static void cost_setup(void)
{
	tkrec_htf_reset(0);
	if (tkrec_htf_core_init(0, htf_buf, sizeof htf_buf, 4, 1, 1) < 0)
		fw_fail("htf core");
}

static void cost_event(uint32_t i)
{
	TRACER_HTF_LOGEVENT(i & 0x7fu, TKREC_HTF_TASK_START);
}

void initialise_monitor_handles(void);
int rename(const char *from, const char *to);

/* the C library's rename() is a link and an unlink, which semihosting
 * lacks: the host's rename instead */
int rename(const char *from, const char *to)
{
	return tkrec_cm_sh_rename(from, to);
}

/* the .htf file by semihosting, then the same bytes on the UART */
static void trace_dump(void)
{
	static char err[160];
	static uint8_t buf[512];
	tkrec_htf_meta meta;
	long n;
	int h;

	memset(&meta, 0, sizeof(meta));
	meta.target_system = "QEMU mps2-an385 (Cortex-M3)";
	meta.description = "examples/qemu-cortex-m";
	meta.timescale = "ns";
	meta.numerator = 1000000000u / CPU_HZ;  /* a tick is one 25 MHz cycle */
	meta.denominator = 1;
	initialise_monitor_handles();
	if (tkrec_htf_dump("trace.htf", &meta, err, sizeof err) < 0)
		fw_fail(err);
	h = tkrec_cm_sh_open("trace.htf", TKREC_CM_SH_RB);
	if (h < 0)
		fw_fail("trace.htf: cannot read it back");
	while ((n = tkrec_cm_sh_read(h, buf, sizeof buf)) > 0)
		tkrec_cm_uart_write(UART0, buf, (size_t)n);
	if (n < 0 || tkrec_cm_sh_close(h) < 0)
		fw_fail("trace.htf: read error");
}
#endif

/* ---- the scheduler ------------------------------------------------------ */

/* the most urgent ready task (the idle thread is always ready) */
static struct task *pick(void)
{
	unsigned i;

	for (i = 0; i < NTASKS; i++)
		if (tasks[i].ready)
			return &tasks[i];
	return IDLE;
}

static void pend_switch(void)
{
	ICSR = ICSR_PENDSVSET;
}

/* PendSV: save the running thread's sp, choose, trace, return the next's */
uint32_t *sched_switch(uint32_t *sp);
uint32_t *sched_switch(uint32_t *sp)
{
	struct task *next;
	uint32_t s = tkrec_cm_irq_save();

	cur->sp = sp;
	next = pick();
	if (next != cur) {
		trace_switch(cur, next);
		next->started = 1;
		cur = next;
	}
	tkrec_cm_irq_restore(s);
	return cur->sp;
}

__attribute__((naked)) void PendSV_Handler(void)
{
	__asm volatile(
		"mrs r0, psp\n\t"
		"stmdb r0!, {r4-r11}\n\t"
		"push {r1, lr}\n\t"          /* lr: EXC_RETURN; r1 keeps 8-byte alignment */
		"bl sched_switch\n\t"
		"pop {r1, lr}\n\t"
		"ldmia r0!, {r4-r11}\n\t"
		"msr psp, r0\n\t"
		"bx lr\n\t");
}

void SysTick_Handler(void)
{
	uint32_t k;
	unsigned i;

	tkrec_cm_systick_tick();
	k = ticks++;
	if (k == 0) {
		/* the interrupt half a period off the ticks, from the first
		 * one: the same phase in both builds */
		TIMER_RELOAD = TIMER_CYCLES - 1u;
		TIMER_VALUE = TIMER_CYCLES / 2u;
		TIMER_CTRL = 1u | 8u;        /* enable, interrupt */
	}
	if (k < RUN_MS) {
		/* the releases carry the tick's time, whatever their order */
#ifdef TRACE_USER_CLOCK
		/* the user clock knows no SysTick: the dual timer counts
		 * the core's 25 MHz too, so the tick's time is now less
		 * SysTick's cycles since its wrap (as the port's DWT path) */
		{
			uint32_t v = SYST_CVR;

			tkrec_cm_clock_hold(tkrec_cm_tsc() - (SYST_RVR - v));
		}
#else
		tkrec_cm_clock_hold(tkrec_cm_tick_time());
#endif
		for (i = 0; i < NTASKS; i++) {
			struct task *t = &tasks[i];

			if (k % t->period_ms)
				continue;
			if (t->ready) {
				t->misses++;  /* the last job is not done */
				continue;
			}
			t->ready = 1;
			t->started = 0;
			t->jobs++;
			trace_release(t);
		}
		tkrec_cm_clock_release();
		if (pick() != cur)
			pend_switch();
	} else if (k == RUN_MS) {
		TIMER_CTRL = 0;       /* the interrupt stops with the releases */
		done = 1;
	}
}

void Timer0_Handler(void)
{
	TIMER_INTCLR = 1u;
	trace_isr_enter();
	irq_count++;
	spin_us(24);
	trace_isr_exit();
}

/* a job is done: the task waits for its next release */
static void job_done(struct task *t)
{
	uint32_t s = tkrec_cm_irq_save();

	trace_done(t);
	t->ready = 0;
	pend_switch();
	tkrec_cm_irq_restore(s);  /* PendSV comes here */
}

static void task_entry(void)
{
	struct task *t = cur;

	for (;;) {
		spin_us(t->budget_us);
		job_done(t);
	}
}

static void task_exit(void)
{
	fw_fail("a task returned");
}

/* a stack that PendSV's return starts at task_entry */
static void task_stack(struct task *t, uint64_t *stack, size_t words64)
{
	uint32_t *sp = (uint32_t *)(stack + words64);

	*--sp = 0x01000000u;                                 /* xPSR: Thumb */
	*--sp = (uint32_t)(uintptr_t)task_entry & ~1u;       /* PC */
	*--sp = (uint32_t)(uintptr_t)task_exit;              /* LR */
	sp -= 5;                                             /* r12, r3-r0 */
	sp -= 8;                                             /* r4-r11 */
	memset(sp, 0, 13 * sizeof(*sp));
	t->sp = sp;
}

/* ---- the cost of one event ---------------------------------------------- */

/*
 * SysTick counts 25 MHz cycles (40 ns) and an instruction takes 32 ns:
 * instructions = cycles * 5 / 4.  The loop with the event less the same
 * loop empty, over COST_N events, in tenths of an instruction.
 */
static uint32_t cost_tenths(int clock)
{
	uint32_t a, b, c, d, i;

	/* the clock first: the stream starts at a time of the clock it is
	 * measured with (else its first delta is one of another clock) */
	if (tkrec_cm_clock_use(clock) != clock)
		fw_fail("cost clock");
	cost_setup();
	a = SYST_CVR;
	for (i = 0; i < COST_N; i++)
		cost_event(i);
	b = SYST_CVR;
	c = SYST_CVR;
	for (i = 0; i < COST_N; i++)
		__asm volatile("" : : "r"(i) : "memory");
	d = SYST_CVR;
	/* the counter counts down */
	return (uint32_t)(((uint64_t)(a - b) - (c - d)) * 50u / (4u * COST_N));
}

static void out_tenths(uint32_t v)
{
	out_u(v / 10u);
	out_s(".");
	out_u(v % 10u);
}

/* not on main's stack: main goes on as the idle thread on another one */
static uint32_t cost_st, cost_dwt;
#ifdef TRACE_USER_CLOCK
static uint32_t cost_user;
#endif
#ifdef TRACE_STREAM
static uint32_t cost_stream_st[2], cost_stream_dwt[2];
#endif
static int clock;

int main(void)
{

	/* the cost first, SysTick free-running over 671 ms, no interrupt */
	SYST_RVR = 0x00FFFFFFu;
	SYST_CVR = 0;
	SYST_CSR = 5u;  /* core clock, enabled */
	cost_st = cost_tenths(TKREC_CM_CLOCK_SYSTICK);
	/* the DWT path reads a CYCCNT that QEMU does not count: the same
	 * instructions as on a core that has it, meaningless times */
	cost_dwt = cost_tenths(TKREC_CM_CLOCK_DWT);
#ifdef TRACE_USER_CLOCK
	/* dual timer 1: free-running (wraps to its top), 16 bits, no
	 * prescaler, no interrupt, enabled */
	DUALTIMER1_LOAD = 0xFFFFu;
	DUALTIMER1_CTRL = 0x80u;
	cost_user = cost_tenths(TKREC_CM_CLOCK_USER);
#endif
#ifdef TRACE_STREAM
	for (cost_mode = 1; cost_mode <= 2; cost_mode++) {
		cost_stream_st[cost_mode - 1] = cost_tenths(TKREC_CM_CLOCK_SYSTICK);
		cost_stream_dwt[cost_mode - 1] = cost_tenths(TKREC_CM_CLOCK_DWT);
		if (tkrec_stream_lost())
			fw_fail("cost stream lost events");
	}
#endif

	/* the 1 ms tick, then the recorder's clock on it (or on CYCCNT) */
	SYST_CSR = 0;
	SYST_RVR = TICK_CYCLES - 1u;
	SYST_CVR = 0;
	SYST_CSR = 5u;
	clock = tkrec_cm_clock_init();
	if (clock == TKREC_CM_CLOCK_NONE)
		fw_fail("no clock");
	tkrec_cm_uart_init(UART0, 16u);
	trace_init();
	task_stack(&tasks[0], task_stacks[0], 256);
	task_stack(&tasks[1], task_stacks[1], 256);
	task_stack(&tasks[2], task_stacks[2], 256);

	/* main goes on as the idle thread, on its own stack */
	__asm volatile("ldr r0, =_idle_stack_top\n\t"
		       "msr psp, r0\n\t"
		       "movs r0, #2\n\t"
		       "msr control, r0\n\t"
		       "isb\n\t" : : : "r0", "memory");
	SHPR3 = (0x00u << 24) | (0xFFu << 16);  /* SysTick first, PendSV last */
	NVIC_IPR8 = 0x40u;
	NVIC_ISER0 = 1u << IRQ_TIMER;
	SYST_CSR = 7u;                           /* and the tick's interrupt */
	/* no wfi: QEMU 7.2 with -icount sleep=off now and then skips a timer
	 * interrupt that comes while the core sleeps */
#ifdef TRACE_STREAM
	int halfway = 0;
#endif
	while (!done) {
#ifdef TRACE_STREAM
		stream_idle();
		if (!halfway && ticks >= RUN_MS / 2u) {
			halfway = 1;
			fw_halfway();
		}
#endif
	}

	trace_dump();
	out_s("fw: mode=" TRACE_MODE " clock=");
	out_s(clock == TKREC_CM_CLOCK_DWT ? "dwt" : clock == TKREC_CM_CLOCK_USER ? "user" : "systick");
	out_s(" jobs=");
	out_u(tasks[0].jobs);
	out_s(",");
	out_u(tasks[1].jobs);
	out_s(",");
	out_u(tasks[2].jobs);
	out_s(" misses=");
	out_u(tasks[0].misses + tasks[1].misses + tasks[2].misses);
	out_s(" irq=");
	out_u(irq_count);
	out_s(" lost=");
	out_u(trace_lost());
	out_end();
	out_s("fw: cost of one " TRACE_MODE " event: ");
	out_tenths(cost_st);
	out_s(" instructions (SysTick clock), ");
	out_tenths(cost_dwt);
	out_s(" (DWT clock)");
#ifdef TRACE_USER_CLOCK
	out_s(", ");
	out_tenths(cost_user);
	out_s(" (user clock)");
#endif
	out_end();
#ifdef TRACE_STREAM
	out_s("fw: cost of one stream-only event: ");
	out_tenths(cost_stream_st[0]);
	out_s(" instructions (SysTick clock), ");
	out_tenths(cost_stream_dwt[0]);
	out_s(" (DWT clock)");
	out_end();
	out_s("fw: cost of one chunk+stream event: ");
	out_tenths(cost_stream_st[1]);
	out_s(" instructions (SysTick clock), ");
	out_tenths(cost_stream_dwt[1]);
	out_s(" (DWT clock)");
	out_end();
#endif
	if (tasks[0].misses + tasks[1].misses + tasks[2].misses || trace_lost())
		fw_fail("deadline misses or lost events");
	tkrec_cm_sh_exit(0);
	return 0;
}
