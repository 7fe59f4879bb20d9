/*
 * FTrace_cm.c - the Cortex-M port's clock and sinks (FTrace_cm.h).
 * Freestanding: only the core's architectural registers (DWT, SysTick)
 * and the semihosting call (bkpt 0xAB); the UART's registers come from
 * FTrace_cm.h's macros.
 */
#include "FTrace.h"

#if !defined(FTRACE_PORT_CORTEX_M)
#error "build FTrace_cm.c with -DFTRACE_PORT_CORTEX_M"
#endif

/* ---- registers ---------------------------------------------------------- */

#define REG(a) (*(volatile uint32_t *)(a))
#define DEMCR      REG(0xE000EDFCu)  /* Debug Exception and Monitor Control */
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL   REG(0xE0001000u)
#define DWT_CTRL_NOCYCCNT (1u << 25)
#define DWT_CYCCNT REG(0xE0001004u)
#define DWT_LAR    REG(0xE0001FB0u)  /* Cortex-M7: the lock */
#define SYST_CSR   REG(0xE000E010u)
#define SYST_CSR_ENABLE    (1u << 0)
#define SYST_CSR_CLKSOURCE (1u << 2)
#define SYST_CSR_COUNTFLAG (1u << 16)
#define SYST_RVR   REG(0xE000E014u)
#define SYST_CVR   REG(0xE000E018u)

/* ---- the clock ---------------------------------------------------------- */

/* DWT until tkrec_cm_clock_init() chooses: a firmware that starts the
 * cycle counter itself needs no call; a build with the user clock has it */
#ifdef TKREC_CM_USER_COUNT
static int source = TKREC_CM_CLOCK_USER;
static tkrec_cm_user_clock user_clock;
#else
static int source = TKREC_CM_CLOCK_DWT;
#endif
static int held;
static uint64_t held_at;
/* DWT: the last count read and the wraps seen */
static uint32_t dwt_last, dwt_high;
/* SysTick: the count at the last wrap counted, the reload, the period */
static uint64_t st_base;
static uint32_t st_reload, st_period;

/* A wrap SysTick made since COUNTFLAG was read last (section held). */
static void st_account(void)
{
	if (SYST_CSR & SYST_CSR_COUNTFLAG)
		st_base += st_period;
}

static uint64_t tsc_locked(void)
{
	uint32_t now;

	if (held)
		return held_at;
	if (source == TKREC_CM_CLOCK_DWT) {
		now = DWT_CYCCNT;
		if (now < dwt_last)
			dwt_high++;
		dwt_last = now;
		return (uint64_t)dwt_high << 32 | now;
	}
	if (source == TKREC_CM_CLOCK_SYSTICK) {
		st_account();
		now = SYST_CVR;
		/* wrapped between the flag and the count: count it, read again */
		if (SYST_CSR & SYST_CSR_COUNTFLAG) {
			st_base += st_period;
			now = SYST_CVR;
		}
		return st_base + (st_reload - now);
	}
#ifdef TKREC_CM_USER_COUNT
	if (source == TKREC_CM_CLOCK_USER)
		return tkrec_cm_user_time(&user_clock, (uint32_t)(TKREC_CM_USER_COUNT()));
#endif
	return 0;
}

uint64_t tkrec_cm_tsc(void)
{
	uint32_t s = tkrec_cm_irq_save();
	uint64_t t = tsc_locked();

	tkrec_cm_irq_restore(s);
	return t;
}

void tkrec_cm_systick_tick(void)
{
	uint32_t s = tkrec_cm_irq_save();

	if (source == TKREC_CM_CLOCK_SYSTICK)
		st_account();
	tkrec_cm_irq_restore(s);
}

uint64_t tkrec_cm_tick_time(void)
{
	uint32_t s = tkrec_cm_irq_save(), v;
	uint64_t t;

	if (source == TKREC_CM_CLOCK_SYSTICK) {
		st_account();
		t = st_base;
#ifdef TKREC_CM_USER_COUNT
	} else if (source == TKREC_CM_CLOCK_USER) {
		/* another timer: no relation to SysTick's count known */
		t = tsc_locked();
#endif
	} else {
		/* both count core cycles: now less the cycles since the wrap */
		v = SYST_CVR;
		t = tsc_locked();
		t -= (uint64_t)(SYST_RVR - v);
	}
	tkrec_cm_irq_restore(s);
	return t;
}

void tkrec_cm_clock_hold(uint64_t t)
{
	held_at = t;
	held = 1;
}

void tkrec_cm_clock_release(void)
{
	held = 0;
}

#ifndef TKREC_CM_USER_COUNT
/* (a build with the user clock keeps it: no probe of the DWT) */
static int dwt_counts(void)
{
	uint32_t a, b;
	volatile unsigned i;

	if (DWT_CTRL & DWT_CTRL_NOCYCCNT)
		return 0;
	DEMCR |= DEMCR_TRCENA;   /* the DWT needs the trace enable */
	DWT_LAR = 0xC5ACCE55u;   /* harmless where there is no lock */
	DWT_CYCCNT = 0;
	DWT_CTRL |= 1u;          /* CYCCNTENA */
	a = DWT_CYCCNT;
	for (i = 0; i < 16; i++)
		;
	b = DWT_CYCCNT;
	return b != a;
}
#endif

static int systick_counts(void)
{
	uint32_t want = SYST_CSR_ENABLE | SYST_CSR_CLKSOURCE;

	return (SYST_CSR & want) == want && SYST_RVR != 0;
}

int tkrec_cm_clock_use(int src)
{
	uint32_t s = tkrec_cm_irq_save();

	held = 0;
	dwt_last = dwt_high = 0;
	st_base = 0;
	source = TKREC_CM_CLOCK_NONE;
	if (src == TKREC_CM_CLOCK_DWT) {
		source = src;
	} else if (src == TKREC_CM_CLOCK_SYSTICK && systick_counts()) {
		st_reload = SYST_RVR & 0x00FFFFFFu;
		st_period = st_reload + 1u;
		(void)SYST_CSR;  /* forget an old wrap: the time starts here */
		st_base = 0;
		source = src;
	}
#ifdef TKREC_CM_USER_COUNT
	if (src == TKREC_CM_CLOCK_USER) {
		tkrec_cm_user_start(&user_clock, (uint32_t)(TKREC_CM_USER_COUNT()));
		source = src;
	}
#endif
	tkrec_cm_irq_restore(s);
	return source;
}

int tkrec_cm_clock_init(void)
{
#ifdef TKREC_CM_USER_COUNT
	return tkrec_cm_clock_use(TKREC_CM_CLOCK_USER);
#else
	if (dwt_counts())
		return tkrec_cm_clock_use(TKREC_CM_CLOCK_DWT);
	return tkrec_cm_clock_use(TKREC_CM_CLOCK_SYSTICK);
#endif
}

/* ---- semihosting -------------------------------------------------------- */

#define SYS_OPEN   0x01
#define SYS_CLOSE  0x02
#define SYS_WRITE0 0x04
#define SYS_WRITE  0x05
#define SYS_READ   0x06
#define SYS_RENAME 0x0F
#define SYS_EXIT   0x18
#define ADP_Stopped_ApplicationExit 0x20026u
#define ADP_Stopped_RunTimeErrorUnknown 0x20023u

/* The call: r0 the operation, r1 the argument block; r0 the result. */
static int sh_call(int op, const void *arg)
{
	register int r0 __asm("r0") = op;
	register const void *r1 __asm("r1") = arg;

	__asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

static size_t sh_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int tkrec_cm_sh_open(const char *path, int mode)
{
	uint32_t a[3];

	a[0] = (uint32_t)(uintptr_t)path;
	a[1] = (uint32_t)mode;
	a[2] = (uint32_t)sh_strlen(path);
	return sh_call(SYS_OPEN, a);
}

int tkrec_cm_sh_write(int handle, const void *bytes, size_t n)
{
	uint32_t a[3];

	a[0] = (uint32_t)handle;
	a[1] = (uint32_t)(uintptr_t)bytes;
	a[2] = (uint32_t)n;
	return sh_call(SYS_WRITE, a) == 0 ? 0 : -1;  /* the bytes not written */
}

long tkrec_cm_sh_read(int handle, void *bytes, size_t n)
{
	uint32_t a[3];
	int left;

	a[0] = (uint32_t)handle;
	a[1] = (uint32_t)(uintptr_t)bytes;
	a[2] = (uint32_t)n;
	left = sh_call(SYS_READ, a);  /* the bytes not read */
	if (left < 0 || (size_t)left > n)
		return -1;
	return (long)(n - (size_t)left);
}

int tkrec_cm_sh_close(int handle)
{
	uint32_t a[1];

	a[0] = (uint32_t)handle;
	return sh_call(SYS_CLOSE, a) == 0 ? 0 : -1;
}

int tkrec_cm_sh_rename(const char *from, const char *to)
{
	uint32_t a[4];

	a[0] = (uint32_t)(uintptr_t)from;
	a[1] = (uint32_t)sh_strlen(from);
	a[2] = (uint32_t)(uintptr_t)to;
	a[3] = (uint32_t)sh_strlen(to);
	return sh_call(SYS_RENAME, a) == 0 ? 0 : -1;
}

void tkrec_cm_sh_puts(const char *s)
{
	(void)sh_call(SYS_WRITE0, s);
}

void tkrec_cm_sh_exit(int status)
{
	/* on AArch32 the argument is the reason itself, not a block */
	(void)sh_call(SYS_EXIT, (const void *)(uintptr_t)(status == 0 ?
		ADP_Stopped_ApplicationExit : ADP_Stopped_RunTimeErrorUnknown));
	for (;;)
		;
}

void tkrec_cm_sh_sink(void *ctx, const char *name, unsigned index,
		      const void *bytes, size_t n)
{
	tkrec_cm_sh_file *f = ctx;

	(void)name;
	(void)index;
	if (!f || f->err)
		return;
	if (f->handle < 0) {
		f->handle = tkrec_cm_sh_open(f->path, TKREC_CM_SH_WB);
		if (f->handle < 0) {
			f->err = 1;
			return;
		}
	}
	if (tkrec_cm_sh_write(f->handle, bytes, n) != 0)
		f->err = 1;
}

int tkrec_cm_sh_file_close(tkrec_cm_sh_file *f)
{
	int err = f->err;

	if (f->handle >= 0 && tkrec_cm_sh_close(f->handle) != 0)
		err = 1;
	f->handle = -1;
	f->err = 0;
	return err ? -1 : 0;
}

/* ---- a UART ------------------------------------------------------------- */

void tkrec_cm_uart_init(uintptr_t base, uint32_t div)
{
	TKREC_CM_UART_ENABLE(base, div);
}

void tkrec_cm_uart_write(uintptr_t base, const void *bytes, size_t n)
{
	const uint8_t *p = bytes;

	while (n--) {
		while (TKREC_CM_UART_TXFULL(base))
			;
		TKREC_CM_UART_PUT(base, *p++);
	}
}

void tkrec_cm_uart_sink(void *ctx, const char *name, unsigned index,
			const void *bytes, size_t n)
{
	(void)name;
	(void)index;
	tkrec_cm_uart_write((uintptr_t)ctx, bytes, n);
}
