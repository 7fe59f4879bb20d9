/*
 * FTrace.h - a freestanding re-implementation of the S.Ha.R.K. "new tracer"
 * (FTrace) for any target: the manual's API and event codes, the wire
 * format of real S.Ha.R.K. dumps, with the original's defects fixed
 * (docs/recorder.md).
 *
 * C99, only <stdint.h>, <stddef.h>, <string.h>; no malloc: chunks are carved
 * from the memory given to tkrec_init().  The clock read and the critical
 * section come from the port chosen at build time (FTrace_port.h).
 *
 * A record is 16 bytes, little-endian: u16 type | u16 par1 | u32 tsc_hi |
 * u32 tsc_lo | u32 par2.  A dump is records back to back, no header.
 */
#ifndef FTRACE_H
#define FTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "FTrace_port.h"

#ifndef FTRACE_MAX_CHUNK
#define FTRACE_MAX_CHUNK 16     /* the original has 256; chunk numbers are checked */
#endif
#ifndef FTRACE_MAX_CORES
#define FTRACE_MAX_CORES 4      /* one active chunk per core */
#endif
#ifndef TKREC_META_MAX
#define TKREC_META_MAX 16       /* metadata kept out of the ring (below) */
#endif

typedef uint8_t FTrace_flags;

/* chunk flags (FTrace_types.h); the mode is the 2-bit field flags & 0x0C */
#define FTRACE_CHUNK_FLAG_FREE  0x01
#define FTRACE_CHUNK_FLAG_FULL  0x02
#define FTRACE_CHUNK_FLAG_CYC   0x00
#define FTRACE_CHUNK_FLAG_JTN   0x04
#define FTRACE_CHUNK_FLAG_STOP  0x08
#define FTRACE_CHUNK_FLAG_BUSY  0x10
#define FTRACE_CHUNK_FLAG_NODEL 0x20
#define FTRACE_CHUNK_FLAG_COMPR 0x40
#define FTRACE_CHUNK_MODE_MASK  0x0C

/* event codes (the S.Ha.R.K. source's FTrace.h) */
#define FTrace_EVT_empty               0x00
#define FTrace_EVT_cycles_per_msec     0x10
#define FTrace_EVT_trace_start         0x20
#define FTrace_EVT_trace_stop          0x30
#define FTrace_EVT_blackout_start      0x40
#define FTrace_EVT_blackout_end        0x50
#define FTrace_EVT_id                  0x60
#define FTrace_EVT_numevents           0x70
#define FTrace_EVT_ipoint              0x01
#define FTrace_EVT_task_create         0x02
#define FTrace_EVT_task_activate       0x12
#define FTrace_EVT_task_dispatch       0x22
#define FTrace_EVT_task_epilogue       0x32
#define FTrace_EVT_task_end            0x42
#define FTrace_EVT_task_begin_cycle    0x52
#define FTrace_EVT_task_end_cycle      0x62
#define FTrace_EVT_task_sleep          0x72
#define FTrace_EVT_task_schedule       0x82
#define FTrace_EVT_task_timer          0x92
#define FTrace_EVT_task_disable        0xA2
#define FTrace_EVT_task_deadline_miss  0xB2
#define FTrace_EVT_task_wcet_violation 0xC2
#define FTrace_EVT_interrupt_start     0x03
#define FTrace_EVT_interrupt_end       0x13
#define FTrace_EVT_interrupt_hit       0x23
#define FTrace_EVT_interrupt_count     0x33
#define FTrace_EVT_to_real_mode        0x04
#define FTrace_EVT_to_protected_mode   0x14
#define FTrace_EVT_CLI                 0x24
#define FTrace_EVT_STI                 0x34
#define FTrace_EVT_set_priority        0x05
#define FTrace_EVT_context_switch      0x15
#define FTrace_EVT_inheritance         0x25
#define FTrace_EVT_set_mutex_create    0x06
#define FTrace_EVT_set_mutex_lock      0x16
#define FTrace_EVT_set_mutex_inherit   0x26
#define FTrace_EVT_set_mutex_unlock    0x36  /* the manual says 0x43: wrong */
#define FTrace_EVT_set_mutex_wait      0x46
#define FTrace_EVT_set_mutex_post      0x56
#define FTrace_EVT_signal              0x07
#define FTrace_EVT_server_create       0x08
#define FTrace_EVT_server_replenish    0x18
#define FTrace_EVT_server_exhaust      0x28
#define FTrace_EVT_server_reclaiming   0x38
#define FTrace_EVT_server_remove       0x48
#define FTrace_EVT_server_active       0x58
#define FTrace_EVT_server_using_rec    0x68
#define FTrace_EVT_user_event_0        0x09
#define FTrace_EVT_user_event_1        0x19
#define FTrace_EVT_user_event_2        0x29
#define FTrace_EVT_user_event_3        0x39
#define FTrace_EVT_user_event_4        0x49
#define FTrace_EVT_user_event_5        0x59
#define FTrace_EVT_user_event_6        0x69
#define FTrace_EVT_user_event_7        0x79
#define FTrace_EVT_user_event_8        0x89
#define FTrace_EVT_user_event_9        0x99
#define FTrace_EVT_user_event_10       0xA9
#define FTrace_EVT_user_event_11       0xB9
#define FTrace_EVT_user_event_12       0xC9
#define FTrace_EVT_user_event_13       0xD9
#define FTrace_EVT_user_event_14       0xE9
#define FTrace_EVT_timer_post          0x0B
#define FTrace_EVT_timer_delete        0x1B
#define FTrace_EVT_timer_wakeup_start  0x2B
#define FTrace_EVT_timer_wakeup_end    0x3B
#define FTrace_EVT_data_pointer        0x1A
#define FTrace_EVT_next_chunk          0xFF

#define FTrace_filter_trace_Events     0xF0
#define FTrace_filter_ipoint           0xF1
#define FTrace_filter_task             0xF2
#define FTrace_filter_interrupt        0xF3
#define FTrace_filter_CPU              0xF4
#define FTrace_filter_priority         0xF5
#define FTrace_filter_mutex            0xF6
#define FTrace_filter_signal           0xF7
#define FTrace_filter_server           0xF8
#define FTrace_filter_user             0xF9
#define FTrace_filter_data             0xFA
#define FTrace_filter_timer            0xFB
#define FTrace_family_mask             0x0F

/* The lost-events record: numevents with par1 1, par2 the count. */
#define TKREC_LOST_PAR1 1u
#define TKREC_REC 16u
#define TKREC_FAST 0x8000u

/* A chunk (the caller never touches the fields). */
typedef struct FTrace_Chunk {
	uint8_t *start;         /* normal area */
	uint8_t *end;           /* end of the normal area */
	uint8_t *em_end;        /* end of the emergency area */
	uint8_t *pos;           /* next write */
	uint8_t *limit;         /* end, or start when FULL: one test on the hot path */
	struct FTrace_Chunk *next;
	uint64_t lost_tsc;      /* the time of the last drop (the lost record's) */
	uint32_t lost;          /* events dropped by this chunk */
	uint32_t number;
	uint32_t laps;          /* times a cyclic chunk went back to its start */
	uint8_t flags;          /* one copy of the flags: FULL stays visible */
	uint8_t linked;         /* some chunk links to this one */
} FTrace_Chunk;

typedef FTrace_Chunk *FTrace_Chunk_Ptr;

/**
 * Give the recorder `size` bytes at `mem` to carve chunks from (aligned
 * to 8).  Resets everything, outside the critical section: call it
 * before tracing can happen (before FTrace_enable(), and before an
 * interrupt or another core can log), or again only once every core has
 * stopped logging (FTrace_disable() and no ipoint under way).  Returns
 * 0, or -1 if mem is NULL.
 */
int tkrec_init(void *mem, size_t size);

/**
 * Where FTrace_send_chunk() puts a chunk's bytes: `fn(ctx, name, index,
 * bytes, n)` is called with pieces of the dump of chunk `index` (the n-th
 * chunk sent); `name` is what FTrace_init_disk_writer() was given.
 */
typedef void (*tkrec_sink_fn)(void *ctx, const char *name, unsigned index,
			      const void *bytes, size_t n);
void tkrec_set_sink(tkrec_sink_fn fn, void *ctx);

/*
 * The calls below that change chunks do it in one critical section with
 * the port's lock between cores (docs/recorder.md), and return -1,
 * changing nothing, for what would let two writers share a chunk.
 */
int FTrace_enable(void);
int FTrace_disable(void);
/** A chunk of `normal` + `emergency` bytes (rounded down to records). */
int FTrace_chunk_create(int normal, int emergency, FTrace_flags flags);
/** -1 for a chunk a core writes into, another's JTN successor, NODEL or BUSY. */
int FTrace_chunk_delete(int number);
/** FREE is refused (-1) on a chunk a core writes into, a JTN successor, a BUSY one. */
int FTrace_set_chunk_flags(int number, FTrace_flags flags);
int FTrace_get_chunk_flags(int number, FTrace_flags *flags);
/** Select the active chunk of the calling core (FTRACE_PORT_CORE()); it must be FREE. */
int FTrace_actual_chunk_select(int number);
int FTrace_chunk_link(int chunk_a, int chunk_b);
int FTrace_get_first_chunk(FTrace_flags flags);
FTrace_Chunk_Ptr *FTrace_get_chunk_table(void);
/** Compression is a documented no-op: returns 0, the chunk is untouched. */
int FTrace_compress_chunk(int number, FTrace_flags new_flags);
/**
 * Dump the chunk (by UDP after FTrace_OSD_init_udp(), else through the
 * disk writer's sink), then set its flags to new_flags.  -1 if a datagram
 * could not be sent, or, sending nothing, if another core writes into the
 * chunk or may jump into it, another send is under way, or there is no
 * sender (no sink, no UDP link).  The calling
 * core's own chunk is taken from it first (select a chunk to log again).
 */
int FTrace_send_chunk(int number, int osd_flags, FTrace_flags new_flags);
int FTrace_init_disk_writer(char *fname, int flag, char *l_ip, char *t_ip);
void FTrace_disk_writer(FTrace_Chunk_Ptr c);
/**
 * Open the port's UDP link (FTRACE_PORT_UDP_INIT) and make it the chunk
 * sender: TRACER-V1.0 datagrams of at most 60 records (docs/recorder.md).
 * -1 if the port has no UDP or the link cannot be opened.
 */
int FTrace_OSD_init_udp(int flag, char *l_ip, char *t_ip);
void FTrace_set_filter(uint8_t family, int status);

void FTrace_safe_ipoint(uint16_t type, uint16_t par1, uint32_t par2);
void FTrace_unsafe_ipoint(uint16_t type, uint16_t par1, uint32_t par2);

/** Events dropped so far by all chunks (they are also in the stream). */
uint32_t tkrec_lost(void);

/*
 * Metadata kept out of the ring: the last clock record (trace_start,
 * cycles_per_msec) and the last naming record (task_create, id) of each
 * context are also kept in a table of TKREC_META_MAX entries (chunk, slot,
 * lap).  The dump of a cyclic chunk that wrapped over one of them writes
 * it again before its records, with the time of the oldest record the
 * ring kept, so that a wrapped ring still gives its clock rate and names.
 */
/** Metadata records that found the table full (not kept out of the ring). */
uint32_t tkrec_meta_lost(void);

/** The ipoints of the metadata: logged and kept out of the ring. */
void tkrec_meta_ipoint(uint16_t type, uint16_t par1, uint32_t par2, int fast);

/* The codes kept out of the ring: clock and naming records. */
#define TKREC_IS_META(code) \
	((code) == FTrace_EVT_task_create || (code) == FTrace_EVT_trace_start || \
	 (code) == FTrace_EVT_cycles_per_msec || (code) == FTrace_EVT_id)

/*
 * Streaming (docs/recorder.md, "Streaming"), built with TKREC_STREAM 1
 * (0 by default: the ipoints are then the snapshot's alone, unchanged): every event logged also goes,
 * as a compact record (delta time, short code), into a ring of the
 * caller's memory that `out` drains: out(bytes, len) returns how many
 * bytes it took (0 .. len; fewer: it is called again later).  It is
 * called after an event that finds a quarter of the ring used or
 * TKREC_STREAM_DRAIN_MS (10) of the stream's clock gone by since the last
 * drain (not after every event: the ipoint stays cheap), outside the
 * critical section, by one caller at a time; a program that wants its
 * bytes sooner calls tkrec_stream_drain() (from its idle hook).  `out`
 * NULL: the program takes the bytes itself with tkrec_stream_read() (into
 * its own buffer: a USB stack's, a debugger's RTT-style block), which
 * also works beside a transport.  An event
 * that finds no room is dropped and counted, and an overflow record with
 * the count goes into the stream before the next event that fits (or at
 * tkrec_stream_stop()).  An event of code 0 (type & 0xFF) has no stream
 * record: it is dropped and counted the same way.  A sync record (a magic and a CRC-32, the clock
 * rate, the full time) starts the stream and comes again after every
 * `sync_every` bytes (0: TKREC_STREAM_SYNC_EVERY), followed by every name
 * registered and the pid of every context named by an id or task_create
 * record while streaming (TKREC_STREAM_CONTEXTS of them; more are counted
 * by tkrec_meta_lost()), so that a stream cut anywhere decodes from its
 * next sync with its names.  Snapshot chunks go on working beside it; FTrace_enable() needs a chunk
 * or the stream.  With several cores the ring is shared under the port's
 * lock (FTRACE_PORT_LOCK), taken by the ipoints while streaming.
 */
#ifndef TKREC_STREAM
#define TKREC_STREAM 0
#endif
#if TKREC_STREAM
#ifndef TKREC_STREAM_NAMES
#define TKREC_STREAM_NAMES 32   /* names kept for re-sending */
#endif
#define TKREC_STREAM_SYNC_EVERY 1024u
#ifndef TKREC_STREAM_DRAIN_MS
#define TKREC_STREAM_DRAIN_MS 10u  /* the longest the ipoints leave bytes unsent */
#endif
#define TKREC_STREAM_VERSION 2u
#define TKREC_STREAM_SYNC_LEN 32u
/* control records: 00, then the kind */
#define TKREC_STREAM_SYNC 0x01u
#define TKREC_STREAM_OVERFLOW 0x02u
#define TKREC_STREAM_NAME 0x03u
#define TKREC_STREAM_CORE 0x04u
#define TKREC_STREAM_CONTEXT 0x06u  /* a context's pid, re-sent after a sync */
#define TKREC_STREAM_EVENT 0x07u    /* an event in the long form */
/* kinds of names */
#define TKREC_NAME_TASK 0u      /* id: the pid of task_create / id records */
#define TKREC_NAME_ISR 1u       /* id: the IRQ of interrupt_start */
#define TKREC_NAME_USER 2u      /* id: n of user_event_n (0 .. 14) */
#define TKREC_NAME_FORMAT 3u    /* id: a printf event's format id */
#define TKREC_STREAM_PRINTF 0x08u   /* a printf event: format id and arguments */
#ifndef TKREC_PRINTF_ARGS
#define TKREC_PRINTF_ARGS 4u    /* the most arguments of a printf event */
#endif
#ifndef TKREC_STREAM_CONTEXTS
#define TKREC_STREAM_CONTEXTS 32  /* contexts whose pid is re-sent */
#endif

typedef size_t (*tkrec_stream_write_fn)(const void *bytes, size_t len);

/**
 * Start streaming into ring[0 .. size) (size at least 64 bytes, below
 * 2^31), drained by `out`; `cycles_per_msec` is the clock rate the sync
 * records carry.  Writes the first sync record.  0, or -1 (ring NULL or
 * too small, or too small for a sync with the names registered already).
 */
int tkrec_stream_init(void *ring, size_t size, tkrec_stream_write_fn out,
		      uint32_t cycles_per_msec, uint32_t sync_every);
/**
 * Register the name of a task (pid), an ISR (IRQ) or a user event channel
 * (n of user_event_n) once: sent at once (after a sync record) and after
 * every sync; registered again, the new name replaces it; name NULL
 * forgets it (no longer sent: a string about to be freed).  The string is not copied
 * (it must live on until forgotten); at most 255 bytes of it are sent.
 * 0, or -1 (bad kind, TKREC_STREAM_NAMES names already, NULL for a name
 * not registered, or a sync record with every name would not fit the
 * ring beside a record: the name is not kept, and the stream goes on
 * with its syncs).
 */
int tkrec_stream_name(unsigned kind, uint16_t id, const char *name);
/** Hand the ring's bytes to `out` until it takes fewer; the bytes taken
 *  (0 with no transport: see tkrec_stream_read()). */
size_t tkrec_stream_drain(void);
/**
 * Register format string `fmt` as format `id` (a name of kind
 * TKREC_NAME_FORMAT: not copied, sent now and after every sync; NULL
 * forgets it).  0, or -1 as tkrec_stream_name().
 */
int tkrec_stream_format(uint16_t id, const char *fmt);
/**
 * A printf event on user event channel `channel` (0 .. 14, the n of
 * user_event_n): format `fmt` and `nargs` (0 .. TKREC_PRINTF_ARGS) 32-bit
 * arguments, formatted by the host, never here.  1 streamed, 0 not (the
 * recorder disabled, the user event family filtered, the stream off, or
 * no room: dropped and counted), -1 bad arguments.
 */
int tkrec_stream_printf(unsigned channel, uint16_t fmt, unsigned nargs,
			const uint32_t *args);
/** tkrec_stream_printf() with its arguments listed (1 .. TKREC_PRINTF_ARGS). */
#define TKREC_PRINTF(channel, fmt, ...) \
	tkrec_stream_printf((channel), (fmt), \
			    (unsigned)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), \
			    (const uint32_t[]){ __VA_ARGS__ })
/**
 * Take up to `max` of the ring's bytes, oldest first, into `buf`: the
 * stream read by the program itself (a ring started with `out` NULL; or
 * beside a transport, between its drains).  Copied in the critical
 * section, so short reads keep interrupts masked briefly.  The bytes
 * taken (0: the ring is empty, or a drain is under way).
 */
size_t tkrec_stream_read(void *buf, size_t max);
/**
 * Stop streaming: the pending overflow record is written and the ring
 * drained.  0, or -1 if bytes are left in the ring (the transport refused
 * them; with no transport they are left for tkrec_stream_read()) or the
 * overflow record found no room.
 */
int tkrec_stream_stop(void);
/** Events the stream dropped (no room in the ring) since tkrec_stream_init(). */
uint32_t tkrec_stream_lost(void);
#endif

/*
 * The macros choose the ipoint: with a constant code (the usual call) the
 * choice is made by the compiler and the hot path has no test; a direct
 * call of FTrace_safe_ipoint() does not keep metadata out of the ring.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void tkrec_logevent(uint16_t type, uint16_t par1, uint32_t par2,
				  int fast)
{
	if (TKREC_IS_META(type))
		tkrec_meta_ipoint(type, par1, par2, fast);
	else if (fast)
		FTrace_unsafe_ipoint(type, par1, par2);
	else
		FTrace_safe_ipoint(type, par1, par2);
}

#define TRACER_LOGEVENT(type, par1, par2) \
	tkrec_logevent((uint16_t)(type), (uint16_t)(par1), (uint32_t)(par2), 0)
#define FAST_TRACER_LOGEVENT(type, par1, par2) \
	tkrec_logevent((uint16_t)(type), (uint16_t)(par1), (uint32_t)(par2), 1)

#endif
