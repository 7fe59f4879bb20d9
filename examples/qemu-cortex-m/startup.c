/*
 * startup.c - the vector table and the reset handler of the QEMU firmware
 * (mps2-an385: Cortex-M3; mps2-an386: Cortex-M4).
 */
#include <stdint.h>
#include <string.h>

#include "firmware.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];

/* the handlers' stack (MSP): out of .bss, which the reset clears while
 * it runs on this stack */
__attribute__((section(".msp_stack")))
static uint64_t msp_stack[1024];

void Reset_Handler(void);
void Fault_Handler(void);
void Default_Handler(void);

void Reset_Handler(void)
{
	size_t n = (size_t)((uint8_t *)_edata - (uint8_t *)_sdata);

	memcpy(_sdata, _sidata, n);
	memset(_sbss, 0, (size_t)((uint8_t *)_ebss - (uint8_t *)_sbss));
	main();
	fw_fail("main returned");
}

void Fault_Handler(void)
{
	fw_fail("fault");
}

void Default_Handler(void)
{
	fw_fail("unexpected interrupt");
}

typedef void (*vector)(void);

__attribute__((section(".vectors"), used))
static const vector vectors[16 + 32] = {
	(vector)(uintptr_t)(msp_stack + sizeof(msp_stack) / sizeof(msp_stack[0])),
	Reset_Handler,
	Fault_Handler,          /* NMI */
	Fault_Handler,          /* HardFault */
	Fault_Handler,          /* MemManage */
	Fault_Handler,          /* BusFault */
	Fault_Handler,          /* UsageFault */
	0, 0, 0, 0,
	Default_Handler,        /* SVCall */
	Default_Handler,        /* DebugMonitor */
	0,
	PendSV_Handler,
	SysTick_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Timer0_Handler,         /* IRQ 8: CMSDK timer 0 */
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, Default_Handler,
};
