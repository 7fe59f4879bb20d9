/*
 * trace_glue.h - the FTrace recorder wired into a small RTOS: one call per
 * kernel hook (docs/recorder.md, "Getting the recorder into a firmware").
 */
#ifndef TRACE_GLUE_H
#define TRACE_GLUE_H

#include <stddef.h>
#include <stdint.h>

/* Given by the board (board_cortex_m.c on a Cortex-M target). */
void board_cycle_counter_start(void);
void board_dump_write(const void *bytes, size_t n);

/* Called by the kernel. */
int trace_start(uint32_t cpu_hz);
void trace_task_created(uint16_t ctx, uint32_t pid);
void trace_task_released(uint16_t ctx);
void trace_switch_to(uint16_t ctx);
void trace_job_done(uint16_t ctx);
void trace_isr_enter(uint16_t irq);
void trace_isr_exit(uint16_t irq);
void trace_mutex_lock(uint16_t ctx, uint32_t mutex_addr);
void trace_mutex_unlock(uint16_t ctx, uint32_t mutex_addr);
int trace_stop_and_dump(void);

#endif
