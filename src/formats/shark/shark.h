/* shark.h - what the S.Ha.R.K. FTrace reader and its tables share. */
#ifndef TK_SHARK_H
#define TK_SHARK_H

#include "../../core/internal.h"

/* One record: 16 bytes, little-endian (specs/shark-ftrace-reference.md 1.7). */
#define SHARK_REC 16
/* Bit 15 of the type word: written by the unchecked FAST ipoint. */
#define SHARK_FAST 0x8000u

/* Event codes of FTrace.h (the source values; 0x43 is the manual's). */
enum {
	SHARK_CYCLES_PER_MSEC = 0x10,
	SHARK_TRACE_START = 0x20,
	SHARK_TRACE_STOP = 0x30,
	SHARK_ID = 0x60,
	SHARK_IPOINT = 0x01,
	SHARK_TASK_CREATE = 0x02,
	SHARK_TASK_ACTIVATE = 0x12,
	SHARK_TASK_END = 0x42,
	SHARK_TASK_END_CYCLE = 0x62,
	SHARK_TASK_SCHEDULE = 0x82,
	SHARK_TASK_TIMER = 0x92,
	SHARK_TASK_DEADLINE_MISS = 0xB2,
	SHARK_TASK_WCET_VIOLATION = 0xC2,
	SHARK_SERVER_ACTIVE = 0x58,
	SHARK_INTERRUPT_START = 0x03,
	SHARK_INTERRUPT_END = 0x13,
	SHARK_CONTEXT_SWITCH = 0x15,
	SHARK_MUTEX_LOCK = 0x16,
	SHARK_MUTEX_UNLOCK = 0x36,
	SHARK_MUTEX_UNLOCK_MANUAL = 0x43,
	SHARK_MUTEX_WAIT = 0x46,
	SHARK_MUTEX_POST = 0x56,
	SHARK_TIMER_WAKEUP_START = 0x2B,
	SHARK_TIMER_WAKEUP_END = 0x3B,
	SHARK_NEXT_CHUNK = 0xFF
};

/** The FTrace name of an event code ("task_activate"), or NULL if unknown. */
const char *shark_code_name(unsigned code);

int shark_probe(const uint8_t *buf, size_t len);
int shark_reader_open(tk_reader *r, tk_error *err);
int shark_reader_next(tk_reader *r, const tk_event **ev, tk_error *err);
void shark_reader_close(tk_reader *r);

#endif
