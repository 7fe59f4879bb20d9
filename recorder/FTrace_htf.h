/*
 * FTrace_htf.h - the recorder's HTF binary mode: compact records of
 * timestamp / entity / event, each 1, 2, 4 or 8 bytes wide, chosen per
 * core, stored big-endian so a record's bytes written in hex are its HTF
 * line (AMALTHEA HTF 1.0, section 4).  Entities are registered with an id,
 * a name and an HTF type; the host dump (recorder/host/htf_dump.c) writes
 * the `.htf` file.
 *
 * Freestanding like FTrace.c: only <stdint.h>, <stddef.h>, <string.h>; the
 * buffers are the caller's; the clock, the core and the critical section
 * are the port's (FTrace_port.h).  Nothing is cut silently: an event whose
 * entity or event id does not fit its width is not written and is
 * counted, like one that finds the buffer full; the dump writes the count
 * in the file (#LostEvents), and tracekit warns.  Times (since
 * tkrec_htf_reset's origin) are 64-bit: a record holds their low bytes,
 * and when the high part changes a time-base record goes first (entity id
 * all ones, event 0, the time field the number of wraps of the time
 * width it adds), which the dump uses to write whole times.
 */
#ifndef FTRACE_HTF_H
#define FTRACE_HTF_H

#include <stddef.h>
#include <stdint.h>

#include "FTrace.h"

#ifndef TKREC_HTF_MAX_ENTITIES
#define TKREC_HTF_MAX_ENTITIES 64
#endif

/* entity types: the spec's TypeTable */
#define TKREC_HTF_TASK      0
#define TKREC_HTF_ISR       1
#define TKREC_HTF_RUNNABLE  2
#define TKREC_HTF_CODEBLOCK 3
#define TKREC_HTF_SIGNAL    4
#define TKREC_HTF_SEMAPHORE 5
#define TKREC_HTF_NTYPES    6

/* event ids: the spec's event tables (section 3.2), by type */
#define TKREC_HTF_TASK_ACTIVATE  0x00
#define TKREC_HTF_TASK_START     0x01
#define TKREC_HTF_TASK_RESUME    0x02
#define TKREC_HTF_TASK_PREEMPT   0x03
#define TKREC_HTF_TASK_TERMINATE 0x04
#define TKREC_HTF_TASK_WAIT      0x05
#define TKREC_HTF_TASK_RELEASE   0x06
#define TKREC_HTF_TASK_POLL      0x07
#define TKREC_HTF_TASK_RUN_POLLING 0x08
#define TKREC_HTF_TASK_PARK      0x09
#define TKREC_HTF_TASK_POLL_PARKING 0x0A
#define TKREC_HTF_TASK_RELEASE_PARKING 0x0B
#define TKREC_HTF_ISR_START      0x00
#define TKREC_HTF_ISR_RESUME     0x01
#define TKREC_HTF_ISR_PREEMPT    0x02
#define TKREC_HTF_ISR_TERMINATE  0x03
#define TKREC_HTF_RUNNABLE_START 0x00
#define TKREC_HTF_RUNNABLE_SUSPEND 0x01
#define TKREC_HTF_RUNNABLE_RESUME 0x02
#define TKREC_HTF_RUNNABLE_TERMINATE 0x03
#define TKREC_HTF_CODEBLOCK_START 0x00
#define TKREC_HTF_CODEBLOCK_STOP 0x01
#define TKREC_HTF_SIGNAL_READ    0x00
#define TKREC_HTF_SIGNAL_WRITE   0x01
#define TKREC_HTF_SEMAPHORE_LOCK 0x00
#define TKREC_HTF_SEMAPHORE_UNLOCK 0x01

/** One core's buffer (read by the host dump; the caller never writes it). */
typedef struct tkrec_htf_core {
	uint8_t *start, *pos, *end;
	uint64_t ts_max;        /* the largest value of each width */
	uint64_t ent_max;
	uint64_t ev_max;
	uint8_t ts_len, ent_len, ev_len, rec_len;
	uint8_t packed;         /* rec_len <= 8: one 8-byte store per record */
	uint8_t sh_ts, sh_ent;  /* the fields' shifts in the packed word */
	uint8_t sh_rec;         /* 64 - 8 * rec_len */
	uint64_t ts_base;       /* the time's high part (above the width) so far */
	uint32_t ovf_ts;        /* events dropped: the time went back to before
				 * a time-base record already written */
	uint32_t ovf_ent;       /* events dropped: the entity id did not fit */
	uint32_t ovf_ev;        /* events dropped: the event id did not fit */
	uint32_t full;          /* events dropped: the buffer was full */
} tkrec_htf_core;

/** A registered entity (the name is the caller's: it must stay valid). */
typedef struct tkrec_htf_ent {
	uint32_t id;
	const char *name;
	uint8_t type;
} tkrec_htf_ent;

/**
 * Forget every core and entity; times are counted from `t0` (a value of
 * FTRACE_PORT_TSC(), usually the current one).
 */
void tkrec_htf_reset(uint64_t t0);

/**
 * Give core `core` its buffer and its record layout: ts_len, ent_len,
 * ev_len are each 1, 2, 4 or 8 bytes.  0, or -1 (bad core or width, or a
 * buffer smaller than one record).  Reinitialising a core empties it.
 */
int tkrec_htf_core_init(unsigned core, void *buf, size_t size,
			unsigned ts_len, unsigned ent_len, unsigned ev_len);

/**
 * Register entity `id` with its name and HTF type (TKREC_HTF_TASK ...).
 * 0, or -1 (table full, an id registered twice, an empty name, a bad
 * type).
 */
int tkrec_htf_entity(uint32_t id, const char *name, unsigned type);

/**
 * Log `event` of `entity` on the calling core (FTRACE_PORT_CORE()) at
 * FTRACE_PORT_TSC() - t0, after a time-base record if the time's part
 * above the core's time width changed.  0, or -1: not written, for a
 * core with no buffer (not traced: not counted), or dropped and counted
 * (an entity id that does not fit below the width's all-ones id, which
 * marks time-base records, an event id that does not fit, the buffer
 * full, a time back before a time-base record).
 */
int tkrec_htf_log(uint32_t entity, uint32_t event);

/** Core `core`'s state, or NULL (not initialised). */
const tkrec_htf_core *tkrec_htf_core_get(unsigned core);
/** The registered entities: their number and the i-th. */
size_t tkrec_htf_entity_count(void);
const tkrec_htf_ent *tkrec_htf_entity_get(size_t i);
/** Events dropped so far on all cores (all reasons). */
uint32_t tkrec_htf_lost(void);

#define TRACER_HTF_LOGEVENT(entity, event) \
	((void)tkrec_htf_log((uint32_t)(entity), (uint32_t)(event)))

#endif
