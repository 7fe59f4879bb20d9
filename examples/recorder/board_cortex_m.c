/*
 * board_cortex_m.c - the board's part on an Armv7-M / Armv8-M core: the
 * DWT cycle counter (the clock of -DFTRACE_PORT_CORTEX_M) and a UART to
 * get the dump off the target.  Register addresses are the architecture's;
 * the UART is a placeholder for the part's own driver.
 */
#include <stddef.h>
#include <stdint.h>

#include "trace_glue.h"

#define DEMCR      (*(volatile uint32_t *)0xE000EDFCu)  /* CoreDebug->DEMCR */
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL   (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define DWT_LAR    (*(volatile uint32_t *)0xE0001FB0u)  /* Cortex-M7: unlock */

void board_cycle_counter_start(void)
{
	DEMCR |= DEMCR_TRCENA;   /* the DWT needs the trace enable */
	DWT_LAR = 0xC5ACCE55u;   /* harmless where there is no lock */
	DWT_CYCCNT = 0;
	DWT_CTRL |= 1u;          /* CYCCNTENA */
}

/* Replace with the part's UART (or an RTT buffer, or a memory the
 * debugger reads: the dump is plain bytes). */
#define UART_DR (*(volatile uint32_t *)0x4000C000u)
#define UART_FR (*(volatile uint32_t *)0x4000C018u)
#define UART_FR_TXFF (1u << 5)

void board_dump_write(const void *bytes, size_t n)
{
	const uint8_t *p = bytes;

	while (n--) {
		while (UART_FR & UART_FR_TXFF)
			;
		UART_DR = *p++;
	}
}
