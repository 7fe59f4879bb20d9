/*
 * FTrace.c - the recorder: chunks, the ipoints, the dump.
 *
 * The algorithm is the S.Ha.R.K. one (specs/shark-ftrace-reference.md 1.6)
 * with its defects fixed; docs/recorder.md lists each fix.  The hot path
 * (TRACER_LOGEVENT) is: enabled? filtered? (both before the critical
 * section, so a filtered event never leaves interrupts off), then in the
 * section: room? write 16 bytes, advance.
 *
 * The calls that change chunks (select, flags, link, create, delete, send)
 * do their tests and their changes in one section, with the port's lock
 * between cores inside it (ENTER/LEAVE), and refuse (-1) what would let
 * two writers share a chunk or a dump read a chunk that may be written.
 */
#include "FTrace.h"

#include <string.h>

static FTrace_Chunk chunks[FTRACE_MAX_CHUNK];
static FTrace_Chunk_Ptr table[FTRACE_MAX_CHUNK];
static uint8_t *pool, *pool_end, *pool_top;
static volatile int enabled;
static volatile uint16_t filter_mask;
static tkrec_sink_fn sink;
static void *sink_ctx;
static const char *disk_name = "";
static unsigned sent;
static int out_udp;  /* FTrace_OSD_init_udp succeeded: chunks go by UDP */
static int sending;  /* a FTrace_send_chunk() is dumping: the packet is in use */

/*
 * Metadata kept out of the ring (FTrace.h): a copy of the last clock
 * record and of the last naming record of each context, with where it
 * was written (chunk, slot offset, the chunk's lap then), so that the
 * dump knows exactly whether the ring wrapped over it.  type 0: free.
 */
typedef struct meta {
	uint16_t type, par1;
	uint32_t par2;
	uint32_t lap;
	uint32_t off;
	uint32_t chunk;   /* a chunk's number, whole: FTRACE_MAX_CHUNK may pass 256 */
} meta;
static meta metas[TKREC_META_MAX];
static uint32_t meta_lost;

#if TKREC_STREAM
/*
 * The stream: records encoded into a ring of the caller's memory, drained
 * by the caller's transport (stream.write).  The ring and its counters
 * change in the section with the port's lock (the cores share the ring);
 * the transport is called outside it, by one drainer at a time.
 */
typedef struct stream_state {
	/* the hot path's fields: an event of a core whose write pointer is
	 * below its limit, with a short delta, before the deadline, is
	 * encoded in place (stream_event); anything else goes to
	 * stream_cold().  The limit folds the room left, the ring's end, the
	 * next sync, the drain threshold, a pending overflow record or sync,
	 * the core of the last record and the stream being off. */
	uint8_t *wp;                    /* next write (head, with the bytes of the hot path) */
	uint8_t *lim[FTRACE_MAX_CORES];
	uint32_t prev_lo, prev_hi;      /* the time of the last record */
	uint32_t tend_lo;               /* the low word of the time the hot path
					 * stops at: the drain's deadline (with a
					 * transport), STREAM_HOT_DELTA after
					 * the last record at most */
	uint8_t *ring;
	uint32_t size, head, used;      /* next write at head; used bytes */
	tkrec_stream_write_fn write;
	uint32_t cycles_per_msec;
	uint32_t sync_every;            /* bytes between sync records */
	uint32_t since_sync;            /* bytes written since the last one */
	uint32_t pending_lost;          /* dropped since the last overflow record */
	uint32_t lost;                  /* dropped in all */
	uint32_t seq;                   /* sync records written */
	uint8_t core;                   /* the core of the last record */
	uint8_t need_sync;
	uint8_t draining;
	uint8_t want_drain;             /* the ipoint drains after its event */
	uint32_t drain_at;              /* bytes that make it drain: size / 4 */
	uint64_t drained_at;            /* the time of the last drain */
	uint64_t drain_cycles;          /* or this long after it: TKREC_STREAM_DRAIN_MS */
	uint32_t crc_pre;               /* the CRC-32 register after a sync's first 12 bytes */
	uint32_t crc_core;              /* for this core (the other bytes are constant) */
} stream_state;
/* the record the hot path writes: the short event record */
#define STREAM_HOT_MAX 8u
/* the deltas it holds: 24 bits */
#define STREAM_HOT_DELTA ((uint64_t)1 << 24)
static volatile int stream_on;
#define STREAM_PREV() ((uint64_t)stream.prev_hi << 32 | stream.prev_lo)
#define STREAM_SET_PREV(t) \
	(stream.prev_lo = (uint32_t)(t), stream.prev_hi = (uint32_t)((t) >> 32))

typedef struct stream_name {
	const char *name;
	uint16_t id;
	uint8_t kind;
	uint8_t len;
} stream_name;
static stream_name names[TKREC_STREAM_NAMES];
static unsigned nnames;

/* the pid of each context named while streaming (id, task_create) */
typedef struct stream_ctx {
	uint32_t pid;
	uint16_t ctx;
} stream_ctx;
static stream_ctx ctxs[TKREC_STREAM_CONTEXTS];
static unsigned nctxs;
#else
#define stream_on 0
#endif

/*
 * The ipoints' state: each core's chunk and, with the stream, the
 * stream's, in one object: one base address serves both on the stream's
 * path (a firmware built with -fdata-sections gives each object its own).
 */
static struct {
	FTrace_Chunk *volatile current[FTRACE_MAX_CORES];
#if TKREC_STREAM
	stream_state stream;
#endif
} hot;
#define current hot.current
#define stream hot.stream

/* this core's interrupts off, then the other cores out (the port's lock) */
#define ENTER(s) do { (s) = FTRACE_PORT_IRQ_SAVE(); FTRACE_PORT_LOCK(); } while (0)
#define LEAVE(s) do { FTRACE_PORT_UNLOCK(); FTRACE_PORT_IRQ_RESTORE(s); } while (0)

/* ---- little-endian stores ----------------------------------------------- */

/*
 * -ffreestanding (a firmware's usual flag) turns memcpy into a call; the
 * builtin stays one store (on Armv7-M: 4 calls of ~20 instructions each
 * per record otherwise).
 */
#if defined(__GNUC__)
#define TKREC_STORE(p, v, n) __builtin_memcpy(p, v, n)
#else
#define TKREC_STORE(p, v, n) memcpy(p, v, n)
#endif

static inline void put32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	TKREC_STORE(p, &v, 4);  /* one store on a little-endian target */
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* DWORD0 = par1 << 16 | type, then TSC high, TSC low, par2. */
static inline void put_record(uint8_t *p, uint32_t type, uint32_t par1,
			      uint64_t tsc, uint32_t par2)
{
	put32(p, par1 << 16 | type);
	put32(p + 4, (uint32_t)(tsc >> 32));
	put32(p + 8, (uint32_t)tsc);
	put32(p + 12, par2);
}

/* ---- UDP packets (reference 1.8) ---------------------------------------- */

/*
 * struct FTrace_udp_header { char id[12]; u32 pkt_number; u32
 * number_of_events; u32 total_size; }: "TRACER-V1.0" and its NUL, then
 * three little-endian words (the original's host order, i386).  total_size
 * counts the 24-byte header.  An event is appended while size + 16 < 1000,
 * so a datagram holds at most 60 events (984 bytes).  pkt_number starts at
 * 1 at tkrec_init() and goes on across chunks.
 */
#define TKREC_UDP_MAX 1000u
#define TKREC_UDP_HEAD 24u
static uint32_t pkt_number = 1;
static int pkt_error;
#if defined(FTRACE_PORT_UDP_SEND)
static uint8_t pkt[TKREC_UDP_MAX];
static uint32_t pkt_events, pkt_size = TKREC_UDP_HEAD;

static void pkt_flush(void)
{
	if (!pkt_events)
		return;
	memcpy(pkt, "TRACER-V1.0", 12);  /* with its NUL */
	put32(pkt + 12, pkt_number);
	put32(pkt + 16, pkt_events);
	put32(pkt + 20, pkt_size);
	if (FTRACE_PORT_UDP_SEND(pkt, pkt_size) != 0)
		pkt_error = 1;
	pkt_number++;
	pkt_events = 0;
	pkt_size = TKREC_UDP_HEAD;
}

static void pkt_add(const uint8_t *rec)
{
	if (pkt_size + TKREC_REC >= TKREC_UDP_MAX)
		pkt_flush();
	memcpy(pkt + pkt_size, rec, TKREC_REC);
	pkt_size += TKREC_REC;
	pkt_events++;
}
#else
/* a port without UDP: no packet buffer (out_udp is never set) */
static void pkt_flush(void)
{
	pkt_error = 1;
}

static void pkt_add(const uint8_t *rec)
{
	(void)rec;
	pkt_error = 1;
}
#endif

/* ---- chunks ------------------------------------------------------------- */

int tkrec_init(void *mem, size_t size)
{
	uintptr_t a;
	unsigned i;

	if (!mem)
		return -1;
	enabled = 0;
	filter_mask = 0;
	memset(chunks, 0, sizeof(chunks));
	memset(table, 0, sizeof(table));
	for (i = 0; i < FTRACE_MAX_CORES; i++)
		current[i] = NULL;
	a = ((uintptr_t)mem + 7u) & ~(uintptr_t)7u;
	pool = (uint8_t *)a;
	pool_end = (uint8_t *)mem + size;
	if (pool > pool_end)
		pool = pool_end;
	pool_top = pool;
	sent = 0;
	out_udp = 0;
	sending = 0;
	pkt_number = 1;
	memset(metas, 0, sizeof(metas));
	meta_lost = 0;
#if TKREC_STREAM
	stream_on = 0;
	memset(&stream, 0, sizeof(stream));
	nnames = 0;
	nctxs = 0;
#endif
	return 0;
}

void tkrec_set_sink(tkrec_sink_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

/*
 * Flags and the hot path's limit change together, in the section.  The
 * order keeps the state between the two stores harmless for a writer
 * that looks at it: FULL with the limit at the end (the event goes where
 * it would have gone), never no FULL with the limit at the start (a
 * cyclic chunk would wrap over its first record).
 */
static void set_flags(FTrace_Chunk *c, uint8_t flags)
{
	if (flags & FTRACE_CHUNK_FLAG_FULL) {
		c->flags = flags;
		FTRACE_PORT_POINT(TKREC_POINT_SET_FLAGS);
		c->limit = c->start;
	} else {
		c->limit = c->end;
		FTRACE_PORT_POINT(TKREC_POINT_SET_FLAGS);
		c->flags = flags;
	}
}

static void set_full(FTrace_Chunk *c)
{
	set_flags(c, (uint8_t)(c->flags | FTRACE_CHUNK_FLAG_FULL));
}

/* Forget the metadata of chunk n (deleted, or a new chunk in its slot). */
static void meta_forget(int n)
{
	unsigned i;

	for (i = 0; i < TKREC_META_MAX; i++)
		if (metas[i].type && metas[i].chunk == (uint32_t)n)
			metas[i].type = 0;
}

/* The chunk numbered n, or NULL: every number is checked (fix 7). */
static FTrace_Chunk *chunk(int n)
{
	if (n < 0 || n >= FTRACE_MAX_CHUNK)
		return NULL;
	return table[n];
}

/* Some core writes into c now (in the section). */
static int is_current(const FTrace_Chunk *c)
{
	unsigned i;

	for (i = 0; i < FTRACE_MAX_CORES; i++)
		if (current[i] == c)
			return 1;
	return 0;
}

/* The chunk whose JTN successor c is, or NULL (in the section). */
static FTrace_Chunk *linked_from(const FTrace_Chunk *c)
{
	int i;

	for (i = 0; i < FTRACE_MAX_CHUNK; i++)
		if (table[i] && table[i] != c && table[i]->next == c)
			return table[i];
	return NULL;
}

int FTrace_chunk_create(int normal, int emergency, FTrace_flags flags)
{
	size_t ns, es;
	int i;
	FTrace_Chunk *c;
	uint32_t s;

	if (!pool || normal < (int)TKREC_REC || emergency < 0)
		return -1;
	ns = (size_t)normal / TKREC_REC * TKREC_REC;
	es = (size_t)emergency / TKREC_REC * TKREC_REC;
	ENTER(s);
	for (i = 0; i < FTRACE_MAX_CHUNK && table[i]; i++)
		;
	if (i == FTRACE_MAX_CHUNK || (size_t)(pool_end - pool_top) < ns + es) {
		LEAVE(s);
		return -1;
	}
	c = &chunks[i];
	memset(c, 0, sizeof(*c));
	c->start = c->pos = pool_top;
	c->end = c->start + ns;
	c->em_end = c->end + es;
	c->number = (uint32_t)i;
	/* BUSY while its memory is cleared: not selected, linked or deleted */
	set_flags(c, FTRACE_CHUNK_FLAG_BUSY);
	pool_top += ns + es;
	table[i] = c;
	meta_forget(i);
	LEAVE(s);
	/* empty slots are type 0: the dump skips what was never written */
	memset(c->start, 0, ns + es);
	ENTER(s);
	set_flags(c, flags);
	LEAVE(s);
	return i;
}

/*
 * Refused: a chunk a core writes into, one a chunk links to (a jump
 * would land in it, or in the chunk that reuses its slot), one being
 * created or sent.
 */
int FTrace_chunk_delete(int n)
{
	FTrace_Chunk *c;
	uint32_t s;
	int rc = -1;

	ENTER(s);
	c = chunk(n);
	if (!c || (c->flags & (FTRACE_CHUNK_FLAG_NODEL | FTRACE_CHUNK_FLAG_BUSY)) ||
	    is_current(c) || linked_from(c))
		goto out;
	/* memory comes back only from the top of the pool */
	if (c->em_end == pool_top)
		pool_top = c->start;
	if (c->next)
		c->next->linked = 0;  /* nobody else can link to it */
	c->next = NULL;
	table[n] = NULL;
	meta_forget(n);
	rc = 0;
out:
	LEAVE(s);
	return rc;
}

/*
 * FREE is refused on a chunk a core writes into, one a chunk links to,
 * and one being created or sent: another core could select it.
 */
int FTrace_set_chunk_flags(int n, FTrace_flags flags)
{
	FTrace_Chunk *c;
	uint32_t s;
	int rc = -1;

	ENTER(s);
	c = chunk(n);
	if (!c)
		goto out;
	if ((flags & FTRACE_CHUNK_FLAG_FREE) &&
	    ((c->flags & FTRACE_CHUNK_FLAG_BUSY) || is_current(c) || linked_from(c)))
		goto out;
	set_flags(c, flags);
	rc = 0;
out:
	LEAVE(s);
	return rc;
}

int FTrace_get_chunk_flags(int n, FTrace_flags *flags)
{
	FTrace_Chunk *c = chunk(n);

	if (!c || !flags)
		return -1;
	*flags = c->flags;  /* one copy only: FULL is not erased (fix 6) */
	return 0;
}

/* The FREE test and the claim in one section: one core gets a chunk. */
int FTrace_actual_chunk_select(int n)
{
	FTrace_Chunk *c;
	unsigned core = FTRACE_PORT_CORE();
	uint32_t s;
	int rc = -1;

	if (core >= FTRACE_MAX_CORES)
		return -1;
	ENTER(s);
	c = chunk(n);
	if (!c || !(c->flags & FTRACE_CHUNK_FLAG_FREE))
		goto out;
	FTRACE_PORT_POINT(TKREC_POINT_SELECT);
	set_flags(c, (uint8_t)(c->flags & ~FTRACE_CHUNK_FLAG_FREE));
	current[core] = c;
	rc = 0;
out:
	LEAVE(s);
	return rc;
}

int FTrace_chunk_link(int a, int b)
{
	FTrace_Chunk *ca, *cb;
	uint32_t s;
	int rc = -1;

	ENTER(s);
	ca = chunk(a);
	cb = chunk(b);
	if (!ca || !cb || ca == cb || !(cb->flags & FTRACE_CHUNK_FLAG_FREE))
		goto out;
	set_flags(cb, (uint8_t)(cb->flags & ~FTRACE_CHUNK_FLAG_FREE));
	if (ca->next)
		ca->next->linked = 0;
	cb->linked = 1;
	ca->next = cb;
	rc = 0;
out:
	LEAVE(s);
	return rc;
}

int FTrace_get_first_chunk(FTrace_flags flags)
{
	int i;

	for (i = 0; i < FTRACE_MAX_CHUNK; i++)
		if (table[i] && (table[i]->flags & flags))  /* fix 7: no NULL */
			return i;
	return -1;
}

FTrace_Chunk_Ptr *FTrace_get_chunk_table(void)
{
	return table;
}

int FTrace_compress_chunk(int n, FTrace_flags new_flags)
{
	(void)new_flags;
	return chunk(n) ? 0 : -1;
}

int FTrace_enable(void)
{
	unsigned i;

	for (i = 0; i < FTRACE_MAX_CORES; i++)
		if (current[i] || stream_on) {
			enabled = 1;
			return 0;
		}
	return -1;
}

int FTrace_disable(void)
{
	enabled = 0;
	return 0;
}

/*
 * The change is logged as the family's filter event, 0xF0 | family,
 * whether the caller gave FTrace_filter_task or a bare 2 (logged as it
 * came, that would be a task_create naming context `status`); family 15
 * has none (0xFF is next_chunk, a jump).
 */
void FTrace_set_filter(uint8_t family, int status)
{
	unsigned f = family & FTrace_family_mask;
	uint16_t bit = (uint16_t)(1u << f);

	if (status)
		filter_mask = (uint16_t)(filter_mask | bit);
	else
		filter_mask = (uint16_t)(filter_mask & ~bit);
	if (f != FTrace_family_mask)
		FTrace_safe_ipoint((uint16_t)(FTrace_filter_trace_Events | f),
				   (uint16_t)status, 0);
}

uint32_t tkrec_meta_lost(void)
{
	return meta_lost;
}

uint32_t tkrec_lost(void)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < FTRACE_MAX_CHUNK; i++)
		if (table[i])
			n += table[i]->lost;
	return n;
}

/* ---- streaming (docs/recorder.md, "Streaming") -------------------------- */

#if TKREC_STREAM
static inline uint32_t ring_free(void)
{
	return stream.size - stream.used;
}

/* n bytes at the head (the caller checked the room): one or two copies */
static void ring_put(const uint8_t *b, uint32_t n)
{
	uint32_t first = stream.size - stream.head;

	if (n < first) {
		memcpy(stream.ring + stream.head, b, n);
		stream.head += n;
	} else {
		memcpy(stream.ring + stream.head, b, first);
		memcpy(stream.ring, b + first, n - first);
		stream.head = n - first;
	}
	stream.used += n;
	stream.since_sync += n;
	stream.wp = stream.ring + stream.head;
}

/* The bytes the hot path wrote since the counters were last brought up
 * to date (in the section): it never wraps, its limit is below the end. */
static void stream_catch_up(void)
{
	uint32_t n = (uint32_t)(stream.wp - (stream.ring + stream.head));

	stream.head += n;
	stream.used += n;
	stream.since_sync += n;
}

static inline uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* tend_lo from the time of the last record (in the section) */
static void stream_deadline(void)
{
	uint64_t prev = STREAM_PREV(), end = prev + STREAM_HOT_DELTA;

	if (stream.write && stream.drained_at + stream.drain_cycles < end)
		end = stream.drained_at + stream.drain_cycles;
	if (end < prev)
		end = prev;   /* past the deadline: every event goes the cold way */
	stream.tend_lo = (uint32_t)end;
}

/*
 * The hot path's limit (in the section, the counters up to date): the
 * bytes an event may find written before it goes the cold way.  Only
 * the core of the last record has one (another needs a core record).
 */
static void stream_relimit(void)
{
	uint32_t room, fr, i;

	stream_catch_up();
	for (i = 0; i < FTRACE_MAX_CORES; i++)
		stream.lim[i] = NULL;
	stream_deadline();
	if (!stream_on || stream.pending_lost || stream.need_sync ||
	    (stream.write && stream.want_drain) || stream.core >= FTRACE_MAX_CORES ||
	    stream.since_sync >= stream.sync_every)
		return;
	/* the bytes to the ring's end, free, to the next sync, to the drain */
	room = stream.size - stream.head;
	fr = stream.size - stream.used;
	room = min32(room, fr);
	room = min32(room, stream.sync_every - stream.since_sync + STREAM_HOT_MAX);
	if (stream.write) {
		if (stream.used >= stream.drain_at)
			return;
		room = min32(room, stream.drain_at - stream.used + STREAM_HOT_MAX);
	}
	if (room > STREAM_HOT_MAX)
		stream.lim[stream.core] = stream.ring + stream.head + room - STREAM_HOT_MAX;
}

static inline unsigned put_varint(uint8_t *p, uint64_t v)
{
	unsigned n = 0;

	while (v >= 0x80u) {
		p[n++] = (uint8_t)(v | 0x80u);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * CRC-32 (IEEE 802.3, reflected, as zlib's crc32()) four bits a step, a
 * 64-byte table, a 32-bit word at a time (its bytes little-endian): the
 * sync record is words, and its first three are the same from one sync to
 * the next (crc_pre), so a sync costs the CRC of four words.
 */
static const uint32_t crc_nib[16] = {
	0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu,
	0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
	0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
	0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu
};
#define CRC_NIB(c) ((c) >> 4 ^ crc_nib[(c) & 15u])

/* the register c after the n words at p (little-endian) */
static uint32_t crc32_words(uint32_t c, const uint8_t *p, unsigned n)
{
	for (; n; n--, p += 4) {
		c ^= get32(p);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
		c = CRC_NIB(c);
	}
	return c;
}

/* The overflow record: 00 02 varint(count). */
static unsigned enc_overflow(uint8_t *b, uint32_t count)
{
	b[0] = 0;
	b[1] = TKREC_STREAM_OVERFLOW;
	return 2u + put_varint(b + 2, count);
}

/* The name record: 00 03 kind varint(id) len bytes. */
static unsigned enc_name(uint8_t *b, const stream_name *nm)
{
	unsigned n = 3;

	b[0] = 0;
	b[1] = TKREC_STREAM_NAME;
	b[2] = nm->kind;
	n += put_varint(b + n, nm->id);
	b[n++] = nm->len;
	memcpy(b + n, nm->name, nm->len);
	return n + nm->len;
}

/* The context record: 00 06 varint(ctx) varint(pid). */
static unsigned enc_ctx(uint8_t *b, const stream_ctx *c)
{
	unsigned n = 2;

	b[0] = 0;
	b[1] = TKREC_STREAM_CONTEXT;
	n += put_varint(b + n, c->ctx);
	return n + put_varint(b + n, c->pid);
}

static unsigned varint_len(uint32_t v)
{
	unsigned n = 1;

	while (v >= 0x80u) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * The sync record (TKREC_STREAM_SYNC_LEN bytes) at the time of the last
 * record: the magic 00 01 "TKSY", the version and the core, the clock
 * rate, then the words that change; the CRC of the first three words is
 * kept for the core it was computed for.
 */
static void enc_sync(uint8_t *b)
{
	put32(b, 0x4B540100u);  /* 00 01 'T' 'K' */
	put32(b + 4, 0x5953u | TKREC_STREAM_VERSION << 16 | (uint32_t)stream.core << 24);
	put32(b + 8, stream.cycles_per_msec);
	put32(b + 12, stream.prev_lo);
	put32(b + 16, stream.prev_hi);
	put32(b + 20, stream.lost);
	put32(b + 24, stream.seq);
	if (stream.crc_core != stream.core) {
		stream.crc_pre = crc32_words(0xFFFFFFFFu, b, 3);
		stream.crc_core = stream.core;
	}
	put32(b + 28, ~crc32_words(stream.crc_pre, b + 12, 4));
}

/* n bytes were written at the head in place (n to the end at most) */
#if defined(__GNUC__)
__attribute__((always_inline))  /* in the cold path too */
#endif
static inline void ring_wrote(uint32_t n)
{
	stream.head += n;
	if (stream.head == stream.size)
		stream.head = 0;
	stream.used += n;
	stream.since_sync += n;
	stream.wp = stream.ring + stream.head;
}

/*
 * A sync record, every name and every context's pid after it, if the ring
 * has room for them and `reserve` more bytes; else it is tried again at
 * the next record.  The sync is encoded in the ring where it fits before
 * the end.
 */
static uint32_t sync_len(void)
{
	uint32_t need = TKREC_STREAM_SYNC_LEN;
	unsigned i;

	for (i = 0; i < nnames; i++)
		need += 3u + varint_len(names[i].id) + 1u + names[i].len;
	for (i = 0; i < nctxs; i++)
		need += 2u + varint_len(ctxs[i].ctx) + varint_len(ctxs[i].pid);
	return need;
}

/*
 * The most bytes a record can need beside a sync: the overflow record,
 * the core record and the longest record (a printf event's).
 */
#define STREAM_PRINTF_MAX (3u + 3u + 1u + 10u + 4u * TKREC_PRINTF_ARGS)
#define STREAM_RESERVE_MAX (2u + 5u + 3u + STREAM_PRINTF_MAX)

/* The sync and its names fit a ring of `size` bytes beside any record:
 * else no sync could ever be written (the stream would go on without
 * one), so a name that would make it too long is refused. */
static int sync_fits(uint32_t size)
{
	return sync_len() + STREAM_RESERVE_MAX <= size;
}

static void try_sync(uint32_t reserve)
{
	uint8_t b[3 + 3 + 1 + 255];
	uint32_t need = sync_len() + reserve;
	unsigned i;

	if (ring_free() < need)
		return;
	if (stream.size - stream.head >= TKREC_STREAM_SYNC_LEN) {
		enc_sync(stream.ring + stream.head);
		ring_wrote(TKREC_STREAM_SYNC_LEN);
	} else {
		enc_sync(b);
		ring_put(b, TKREC_STREAM_SYNC_LEN);
	}
	for (i = 0; i < nnames; i++)
		ring_put(b, enc_name(b, &names[i]));
	for (i = 0; i < nctxs; i++)
		ring_put(b, enc_ctx(b, &ctxs[i]));
	stream.seq++;
	stream.since_sync = 0;
	stream.need_sync = 0;
}

/*
 * An event record: the short one (8 bytes: code, 24-bit delta, par1, par2
 * below 2^16) when it fits, else the long one (00 07, code, header, zigzag
 * varint delta, type byte, par1 and par2 in their low bytes): a FAST
 * event, a type above 255, a par2 of 2^16 or more, a delta below 0 or of
 * 2^24 or more.  Its length (at most STREAM_EVENT_MAX).
 */
#define STREAM_EVENT_MAX (4u + 10u + 1u + 2u + 4u)
static unsigned enc_event(uint8_t *w, uint32_t type, uint32_t par1, uint64_t d,
			  uint32_t par2)
{
	uint64_t zz;
	unsigned n, l1, l2;

	if (type - 1u < 0xFFu && par2 <= 0xFFFFu && d < STREAM_HOT_DELTA) {
		put32(w, type | (uint32_t)d << 8);
		put32(w + 4, par1 | par2 << 16);
		return STREAM_HOT_MAX;
	}
	zz = (int64_t)d < 0 ? ~(d << 1) : d << 1;
	l1 = par1 > 0xFFu ? 2u : par1 ? 1u : 0u;
	l2 = par2 > 0xFFFFu ? (par2 > 0xFFFFFFu ? 4u : 3u) : par2 > 0xFFu ? 2u : par2 ? 1u : 0u;
	w[0] = 0;
	w[1] = TKREC_STREAM_EVENT;
	w[2] = (uint8_t)type;
	w[3] = (uint8_t)(l1 | l2 << 2 | ((type & 0x7F00u) ? 0x20u : 0u) |
			 ((type & TKREC_FAST) ? 0x80u : 0u));
	n = 4 + put_varint(w + 4, zz);
	if (type & 0x7F00u)
		w[n++] = (uint8_t)(type >> 8 & 0x7Fu);
	if (l1) {
		w[n++] = (uint8_t)par1;
		if (l1 > 1)
			w[n++] = (uint8_t)(par1 >> 8);
	}
	for (l1 = 0; l1 < l2; l1++)
		w[n++] = (uint8_t)(par2 >> 8 * l1);
	return n;
}

/*
 * Record b (n bytes, at tsc, from core) into the stream, in the section:
 * the pending overflow record first, a sync if one is due, the core
 * record when the core changes, then the record; no room for all: the
 * record is dropped and counted.  1 if written, 0 if dropped.
 */
#if defined(__GNUC__)
__attribute__((always_inline))  /* the cold path's cost as it was written out */
#endif
static inline int stream_put_record(const uint8_t *b, unsigned n, unsigned core,
			     uint64_t tsc)
{
	uint8_t o[2 + 5], k[3];
	unsigned no = 0, nk = 0;

	if (core != stream.core) {
		k[0] = 0;
		k[1] = TKREC_STREAM_CORE;
		k[2] = (uint8_t)core;
		nk = 3;
	}
	if (stream.pending_lost)
		no = enc_overflow(o, stream.pending_lost);
	if (stream.need_sync || stream.since_sync >= stream.sync_every)
		try_sync(no + nk + n);
	if (ring_free() < no + nk + n) {
		stream.pending_lost++;
		stream.lost++;
		return 0;
	}
	if (no)
		ring_put(o, no);
	stream.pending_lost = 0;
	if (nk) {
		ring_put(k, nk);
		stream.core = (uint8_t)core;
	}
	if (n == STREAM_HOT_MAX && stream.size - stream.head > STREAM_HOT_MAX) {
		/* the short record: two words, no copy loop */
		TKREC_STORE(stream.ring + stream.head, b, STREAM_HOT_MAX);
		ring_wrote(n);
	} else {
		ring_put(b, n);
	}
	STREAM_SET_PREV(tsc);
	return 1;
}

/* after a record (written or dropped) at tsc, in the section: the
 * transport is called when a quarter of the ring is used or
 * TKREC_STREAM_DRAIN_MS went by since it last was, not per record.  1 if
 * it is to be called after the section. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int stream_after(uint64_t tsc)
{
	if (stream.used >= stream.drain_at || tsc - stream.drained_at >= stream.drain_cycles)
		stream.want_drain = 1;
	stream_relimit();
	return stream.want_drain && stream.write;
}

/*
 * One event into the stream the cold way (in the section, with the
 * lock): stream_put_record() of the event.  tp: type | par1 << 16 (three
 * arguments in registers).  1 if the transport is to be called after
 * the section.
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int stream_cold(uint32_t tp, uint32_t par2, uint64_t tsc)
{
	uint8_t b[STREAM_EVENT_MAX];
	unsigned n;
	uint32_t type = tp & 0xFFFFu;

	if (!stream_on)
		return 0;
	stream_catch_up();
	if (!(type & 0xFFu)) {
		/* code 0 has no record (00 starts a control record): the event
		 * is dropped and counted, an overflow record reports it */
		stream.pending_lost++;
		stream.lost++;
		return stream_after(tsc);
	}
	n = enc_event(b, type, tp >> 16, tsc - STREAM_PREV(), par2);
	stream_put_record(b, n, FTRACE_PORT_CORE(), tsc);
	return stream_after(tsc);
}

/*
 * One event into the stream (in the section): the hot path.  Below its
 * limit, at a time from the last record's to below tend (2^24 cycles
 * after it at most; the time's high word the last record's: a 32-bit
 * test, and one word of it stored), with a code of 1 .. 255 (no FAST bit,
 * no type byte) and a par2 below 0xFF00 (the cold path takes the rest of
 * the short record's range), the record is the short one, two words
 * stored in place: code | delta << 8, par1 | par2 << 16.  Anything else
 * goes to stream_cold().  1 if the transport is to be called after the
 * section.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int stream_event(unsigned core, uint32_t type, uint32_t par1,
			       uint64_t tsc, uint32_t par2)
{
	uint8_t *w;
	uint32_t lo = (uint32_t)tsc, d;
	int rc = 0;

	FTRACE_PORT_LOCK();
	w = stream.wp;  /* read under the lock: another core may write */
	d = lo - stream.prev_lo;
	if (w < stream.lim[core] && (uint32_t)(tsc >> 32) == stream.prev_hi &&
	    d < stream.tend_lo - stream.prev_lo && ((type - 1u) | par2 >> 8) < 0xFFu) {
		put32(w, type | d << 8);
		put32(w + 4, par1 | par2 << 16);
		stream.wp = w + STREAM_HOT_MAX;
		stream.prev_lo = lo;
	} else if (stream_on) {
		/* the stream off: its limits are NULL, one more test, no call */
		rc = stream_cold(type | par1 << 16, par2, tsc);
	}
	FTRACE_PORT_UNLOCK();
	return rc;
}

int tkrec_stream_init(void *ring, size_t size, tkrec_stream_write_fn out,
		      uint32_t cycles_per_msec, uint32_t sync_every)
{
	uint32_t s;

	if (!ring || size < TKREC_STREAM_SYNC_LEN * 2u || size > 0x7FFFFFFFu)
		return -1;
	ENTER(s);
	stream_on = 0;
	if (!sync_fits((uint32_t)size)) {
		/* the names registered already would not fit */
		LEAVE(s);
		return -1;
	}
	memset(&stream, 0, sizeof(stream));
	stream.ring = ring;
	stream.wp = stream.ring;
	stream.size = (uint32_t)size;
	stream.write = out;
	stream.cycles_per_msec = cycles_per_msec;
	stream.sync_every = sync_every ? sync_every : TKREC_STREAM_SYNC_EVERY;
	stream.drain_at = stream.size / 4u;
	stream.drain_cycles = (uint64_t)cycles_per_msec * TKREC_STREAM_DRAIN_MS;
	stream.drained_at = FTRACE_PORT_TSC();
	STREAM_SET_PREV(stream.drained_at);
	stream.core = (uint8_t)FTRACE_PORT_CORE();
	stream.crc_core = 0xFFFFFFFFu;  /* no core: crc_pre is not computed yet */
	stream.need_sync = 1;
	try_sync(0);
	stream_on = 1;
	stream_relimit();
	LEAVE(s);
	if (out)
		tkrec_stream_drain();
	return 0;
}

int tkrec_stream_name(unsigned kind, uint16_t id, const char *name)
{
	stream_name was;
	size_t len;
	unsigned i;
	uint32_t s;
	int rc = -1, added;

	if (kind > TKREC_NAME_FORMAT)
		return -1;
	len = name ? strlen(name) : 0;
	if (len > 255)
		len = 255;
	ENTER(s);
	for (i = 0; i < nnames; i++)
		if (names[i].kind == kind && names[i].id == id)
			break;
	if (!name) {
		/* forgotten: no longer sent (its string may be freed) */
		if (i == nnames)
			goto out;
		names[i] = names[--nnames];
		rc = 0;
		goto out;
	}
	if (i == TKREC_STREAM_NAMES)
		goto out;
	was = names[i];
	added = i == nnames;
	names[i].name = name;
	names[i].id = id;
	names[i].kind = (uint8_t)kind;
	names[i].len = (uint8_t)len;
	if (added)
		nnames++;
	if (stream_on && !sync_fits(stream.size)) {
		/* the sync with this name would not fit the ring: refused,
		 * the names as they were */
		if (added)
			nnames--;
		else
			names[i] = was;
		goto out;
	}
	/* sent now (with a sync, so that the name record is whole), and after each sync */
	if (stream_on) {
		stream.need_sync = 1;
		stream_relimit();
	}
	rc = 0;
out:
	LEAVE(s);
	return rc;
}

int tkrec_stream_format(uint16_t id, const char *fmt)
{
	return tkrec_stream_name(TKREC_NAME_FORMAT, id, fmt);
}

/*
 * A printf event: 00 08, the channel, varint(format id), the number of
 * arguments, varint(zigzag delta), the arguments (u32 each).  Written the
 * cold way (the lock, the section), as stream_cold() writes an event;
 * the text is made on the host.
 */
int tkrec_stream_printf(unsigned channel, uint16_t fmt, unsigned nargs,
			const uint32_t *args)
{
	uint8_t b[STREAM_PRINTF_MAX];
	unsigned core, n, i;
	uint64_t tsc, d, zz;
	uint32_t s;
	int rc = -1, drain = 0;

	if (channel > 14u || nargs > TKREC_PRINTF_ARGS || (nargs && !args))
		return -1;
	if (!enabled || (filter_mask & (1u << (FTrace_EVT_user_event_0 & FTrace_family_mask))))
		return 0;
	ENTER(s);
	if (!stream_on) {
		rc = 0;  /* not streamed, as with the recorder disabled */
		goto out;
	}
	core = FTRACE_PORT_CORE();
	tsc = FTRACE_PORT_TSC();
	stream_catch_up();
	d = tsc - STREAM_PREV();
	zz = (int64_t)d < 0 ? ~(d << 1) : d << 1;
	b[0] = 0;
	b[1] = TKREC_STREAM_PRINTF;
	b[2] = (uint8_t)channel;
	n = 3 + put_varint(b + 3, fmt);
	b[n++] = (uint8_t)nargs;
	n += put_varint(b + n, zz);
	for (i = 0; i < nargs; i++) {
		put32(b + n, args[i]);
		n += 4;
	}
	rc = stream_put_record(b, n, core, tsc);
	drain = stream_after(tsc);
out:
	LEAVE(s);
	if (drain)
		tkrec_stream_drain();
	return rc;
}

size_t tkrec_stream_drain(void)
{
	size_t total = 0;
	uint32_t s, off, len, took;

	for (;;) {
		ENTER(s);
		if (stream.ring)
			stream_catch_up();
		if (!stream.ring || !stream.write || stream.draining || !stream.used) {
			LEAVE(s);
			break;
		}
		off = stream.head >= stream.used ? stream.head - stream.used
						 : stream.head + stream.size - stream.used;
		len = stream.size - off < stream.used ? stream.size - off : stream.used;
		stream.draining = 1;
		stream.want_drain = 0;
		stream.drained_at = STREAM_PREV();
		stream_relimit();
		LEAVE(s);
		took = (uint32_t)stream.write(stream.ring + off, len);
		if (took > len)
			took = len;
		ENTER(s);
		stream_catch_up();
		stream.used -= took;
		stream.draining = 0;
		stream_relimit();
		LEAVE(s);
		total += took;
		if (took < len)
			break;
	}
	return total;
}

size_t tkrec_stream_read(void *buf, size_t max)
{
	uint8_t *dst = buf;
	size_t total = 0;
	uint32_t s, off, len;

	while (total < max) {
		ENTER(s);
		if (stream.ring)
			stream_catch_up();
		if (!stream.ring || stream.draining || !stream.used) {
			LEAVE(s);
			break;
		}
		off = stream.head >= stream.used ? stream.head - stream.used
						 : stream.head + stream.size - stream.used;
		len = stream.size - off < stream.used ? stream.size - off : stream.used;
		if (len > max - total)
			len = (uint32_t)(max - total);
		/* copied in the section: an ipoint that interrupts it must
		 * not reuse these bytes before they are out */
		memcpy(dst + total, stream.ring + off, len);
		stream.used -= len;
		stream.want_drain = 0;
		stream.drained_at = STREAM_PREV();
		stream_relimit();
		LEAVE(s);
		total += len;
	}
	return total;
}

int tkrec_stream_stop(void)
{
	uint8_t o[2 + 5];
	uint32_t s;
	unsigned no;
	int rc = 0;

	tkrec_stream_drain();
	ENTER(s);
	stream_on = 0;
	if (stream.ring)
		stream_relimit();
	if (stream.pending_lost) {
		no = enc_overflow(o, stream.pending_lost);
		if (ring_free() >= no) {
			ring_put(o, no);
			stream.pending_lost = 0;
		} else {
			rc = -1;
		}
	}
	LEAVE(s);
	tkrec_stream_drain();
	ENTER(s);
	if (stream.ring)
		stream_catch_up();
	/* with no transport the bytes left are tkrec_stream_read()'s */
	if (stream.used && stream.write)
		rc = -1;
	LEAVE(s);
	return rc;
}

uint32_t tkrec_stream_lost(void)
{
	return stream.lost;
}

/*
 * A naming record (id, task_create) while streaming: its context's pid,
 * re-sent after every sync (in the section, with the lock).  A context
 * named again takes its new pid; one that finds the table full is
 * counted with the metadata that could not be kept.
 */
static void stream_keep(uint32_t type, uint32_t par1, uint32_t par2)
{
	uint32_t code = type & 0xFFu;
	unsigned i;

	if (code != FTrace_EVT_id && code != FTrace_EVT_task_create)
		return;
	FTRACE_PORT_LOCK();
	for (i = 0; i < nctxs && ctxs[i].ctx != par1; i++)
		;
	if (i == TKREC_STREAM_CONTEXTS) {
		meta_lost++;
	} else {
		ctxs[i].ctx = (uint16_t)par1;
		ctxs[i].pid = par2;
		if (i == nctxs)
			nctxs++;
	}
	FTRACE_PORT_UNLOCK();
}

/* the ipoints' part: with the lock, in the section; the drain after it */
#define STREAM_PUT(core, type, par1, tsc, par2) \
	(drain = stream_event(core, type, par1, tsc, par2))
#define STREAM_DRAIN() \
	do { if (drain) tkrec_stream_drain(); } while (0)
#define STREAM_KEEP(type, par1, par2) \
	do { if (stream_on) stream_keep(type, par1, par2); } while (0)
#else
/* without streaming the ipoints are the snapshot's alone */
#define STREAM_PUT(core, type, par1, tsc, par2) ((void)drain)
#define STREAM_DRAIN() ((void)drain)
#define STREAM_KEEP(type, par1, par2) ((void)0)
#endif

/* ---- logging ------------------------------------------------------------ */

/*
 * No room in the normal area: where does this event go?  Returns the slot,
 * or NULL if it is dropped (and counted).  Called in the section.
 */
static uint8_t *overflow(unsigned core, FTrace_Chunk *c)
{
	switch (c->flags & FTRACE_CHUNK_MODE_MASK) {
	case FTRACE_CHUNK_FLAG_CYC:
		c->laps++;
		return c->start;
	case FTRACE_CHUNK_FLAG_JTN:
		if (c->next && !(c->next->flags &
				 (FTRACE_CHUNK_FLAG_FULL | FTRACE_CHUNK_FLAG_BUSY))) {
			set_full(c);
			current[core] = c->next;
			/* the event that triggered the jump is kept (fix 3) */
			return c->next->pos < c->next->end ? c->next->pos : NULL;
		}
		/* the end of the chain acts as STOP */
		/* fall through */
	default:
		set_full(c);
		/* the emergency area, less its last slot (the lost count) */
		if (c->pos >= c->end && c->pos + TKREC_REC < c->em_end)
			return c->pos;
		return NULL;
	}
}

/* The slot for an event when the fast test failed, or NULL. */
static uint8_t *slow_slot(unsigned core, FTrace_Chunk *c)
{
	if (!(c->flags & FTRACE_CHUNK_FLAG_FULL))
		return overflow(core, c);
	/* frozen (STOP, or the end of a JTN chain): the emergency area */
	if (c->pos >= c->end && c->pos + TKREC_REC < c->em_end)
		return c->pos;
	return NULL;
}

/* Count a drop; the count lives in the last emergency slot, if any. */
static void drop(FTrace_Chunk *c, uint64_t tsc)
{
	c->lost++;
	c->lost_tsc = tsc;
	if (c->em_end - c->end >= (ptrdiff_t)TKREC_REC)
		put_record(c->em_end - TKREC_REC, FTrace_EVT_numevents,
			   TKREC_LOST_PAR1, tsc, c->lost);
}

static int is_clock(uint32_t code)
{
	return code == FTrace_EVT_trace_start || code == FTrace_EVT_cycles_per_msec;
}

/*
 * Keep a copy of the metadata record just written at p in c (in the
 * section): it replaces the entry of the same chunk and key (the clock;
 * a context's name), else takes a free entry, else is counted.
 */
static void keep_meta(const FTrace_Chunk *c, const uint8_t *p, uint32_t type,
		      uint32_t par1, uint32_t par2)
{
	uint32_t code = type & ~(uint32_t)TKREC_FAST;
	meta *m, *fr = NULL;
	unsigned i;

	for (i = 0; i < TKREC_META_MAX; i++) {
		m = &metas[i];
		if (!m->type) {
			if (!fr)
				fr = m;
			continue;
		}
		if (m->chunk == c->number &&
		    (is_clock(code) ? is_clock(m->type & ~(uint32_t)TKREC_FAST)
				    : !is_clock(m->type & ~(uint32_t)TKREC_FAST) &&
					      m->par1 == par1))
			break;
	}
	if (i == TKREC_META_MAX) {
		if (!fr) {
			meta_lost++;
			return;
		}
		m = fr;
	}
	m->type = (uint16_t)type;
	m->par1 = (uint16_t)par1;
	m->par2 = par2;
	m->lap = c->laps;
	m->off = (uint32_t)(p - c->start);
	m->chunk = c->number;
}

/*
 * The hot path: the core's chunk has room below its limit.  keep: the
 * record is metadata (a constant at each call: the hot path has no test).
 */
#if TKREC_STREAM && defined(__GNUC__)
__attribute__((always_inline))  /* the stream's part made it look big */
#endif
static inline void log_event(uint32_t type, uint32_t par1, uint32_t par2,
			     int keep)
{
	unsigned core = FTRACE_PORT_CORE();
	FTrace_Chunk *c;
	uint8_t *p;
	uint32_t s;
	uint64_t tsc;
	int drain = 0;

	/* a core beyond the table has no chunk nor stream limit (a port's
	 * constant core folds the test away) */
	if (core >= FTRACE_MAX_CORES)
		return;
	s = FTRACE_PORT_IRQ_SAVE();
	/* before the record: a sync its record brings carries it already */
	if (keep)
		STREAM_KEEP(type, par1, par2);
	c = current[core];
	if (!c) {
		STREAM_PUT(core, type, par1, FTRACE_PORT_TSC(), par2);
		goto out;
	}
	p = c->pos;
	/* the last slot is usable: pos == end means full (fix 2) */
	if (p >= c->limit) {
		p = slow_slot(core, c);
		if (!p) {
			tsc = FTRACE_PORT_TSC();
			drop(c, tsc);
			STREAM_PUT(core, type, par1, tsc, par2);
			goto out;
		}
		c = current[core];
	}
	tsc = FTRACE_PORT_TSC();
	put_record(p, type, par1, tsc, par2);
	c->pos = p + TKREC_REC;
	if (keep)
		keep_meta(c, p, type, par1, par2);
	STREAM_PUT(core, type, par1, tsc, par2);
out:
	FTRACE_PORT_IRQ_RESTORE(s);
	STREAM_DRAIN();
}

/* A metadata record: logged and kept (one copy of the path: it is rare). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void log_meta(uint32_t type, uint32_t par1, uint32_t par2)
{
	log_event(type, par1, par2, 1);
}

/* next_chunk: a jump; without a linked chunk it is ignored (fix 4). */
static void jump(void)
{
	unsigned core = FTRACE_PORT_CORE();
	FTrace_Chunk *c;
	uint32_t s;

	if (core >= FTRACE_MAX_CORES)
		return;
	s = FTRACE_PORT_IRQ_SAVE();
	c = current[core];
	if (c && c->next && !(c->next->flags & FTRACE_CHUNK_FLAG_BUSY)) {
		set_full(c);
		current[core] = c->next;
	}
	FTRACE_PORT_IRQ_RESTORE(s);
}

void FTrace_safe_ipoint(uint16_t type, uint16_t par1, uint32_t par2)
{
	/* filters are tested before the section: nothing to restore (fix 1) */
	if (!enabled)
		return;
	if ((type & 0xF0u) == 0xF0u) {
		/* filter changes and next_chunk are never filtered */
		if (type == FTrace_EVT_next_chunk) {
			jump();
			return;
		}
	} else if (filter_mask & (1u << (type & FTrace_family_mask))) {
		return;
	}
	log_event(type, par1, par2, 0);
}

void FTrace_unsafe_ipoint(uint16_t type, uint16_t par1, uint32_t par2)
{
	/*
	 * The FAST ipoint: no enable or filter test, as in the original, but
	 * with the same bounds (fix 5); par2 is written too.
	 */
	log_event((uint32_t)type | TKREC_FAST, par1, par2, 0);
}

/*
 * The ipoints of the metadata (TRACER_LOGEVENT chooses them): the same
 * tests, then logged and kept out of the ring.
 */
void tkrec_meta_ipoint(uint16_t type, uint16_t par1, uint32_t par2, int fast)
{
	if (fast) {
		log_meta((uint32_t)type | TKREC_FAST, par1, par2);
		return;
	}
	if (!enabled || (filter_mask & (1u << (type & FTrace_family_mask))))
		return;
	log_meta(type, par1, par2);
}

/* ---- output ------------------------------------------------------------- */

/* One record of a chunk's dump, to the disk sink or into a packet. */
static void emit(int udp, const uint8_t *rec)
{
	if (udp)
		pkt_add(rec);
	else if (sink)
		sink(sink_ctx, disk_name, sent, rec, TKREC_REC);
}

/* The ring wrapped over metadata record m of chunk c. */
static int meta_overwritten(const meta *m, const FTrace_Chunk *c)
{
	if (c->laps > m->lap + 1u)
		return 1;
	return c->laps == m->lap + 1u && (uint32_t)(c->pos - c->start) > m->off;
}

/*
 * The metadata the ring of c wrapped over, again (the clock first), at
 * the time of the oldest record the ring kept: the dump starts with what
 * its records need, and no earlier.
 */
static void write_meta(FTrace_Chunk *c, int udp)
{
	uint8_t rec[TKREC_REC];
	const uint8_t *old;
	uint64_t tsc;
	unsigned i, pass;

	if (!c->laps)
		return;
	old = c->pos < c->end ? c->pos : c->start;
	tsc = (uint64_t)get32(old + 4) << 32 | get32(old + 8);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < TKREC_META_MAX; i++) {
			meta m;
			uint32_t s;

			/* each entry read whole: another core may fill a free one */
			ENTER(s);
			m = metas[i];
			LEAVE(s);
			if (!m.type || m.chunk != c->number ||
			    is_clock(m.type & ~(uint32_t)TKREC_FAST) != !pass ||
			    !meta_overwritten(&m, c))
				continue;
			put_record(rec, m.type, m.par1, tsc, m.par2);
			emit(udp, rec);
		}
}

/*
 * The dump: the metadata a cyclic chunk wrapped over (write_meta), then
 * every non-empty slot of the normal then the emergency area in buffer
 * order (as the original writers; the host reorders a wrapped chunk by
 * TSC), and a lost-count record, at the time of the last drop, if drops
 * happened with no emergency slot to hold it.
 */
static void write_chunk(FTrace_Chunk *c, int udp)
{
	uint8_t lost[TKREC_REC];
	const uint8_t *p;

	write_meta(c, udp);
	for (p = c->start; p < c->em_end; p += TKREC_REC)
		if (get32(p) & 0xffffu)
			emit(udp, p);
	if (c->lost && c->em_end - c->end < (ptrdiff_t)TKREC_REC) {
		put_record(lost, FTrace_EVT_numevents, TKREC_LOST_PAR1,
			   c->lost_tsc, c->lost);
		emit(udp, lost);
	}
	if (udp)
		pkt_flush();
	sent++;
}

void FTrace_disk_writer(FTrace_Chunk_Ptr c)
{
	if (!c || !sink)
		return;
	write_chunk(c, 0);
}

int FTrace_init_disk_writer(char *fname, int flag, char *l_ip, char *t_ip)
{
	(void)flag;
	(void)l_ip;
	(void)t_ip;
	disk_name = fname ? fname : "";
	out_udp = 0;
	return 0;
}

/*
 * The chunk goes to the sender chosen last: the UDP link of
 * FTrace_OSD_init_udp(), or else the disk writer's sink.  Returns -1 (the
 * flags untouched) if a datagram could not be sent.
 *
 * Refused (-1): a chunk another core writes into or may jump into (on its
 * JTN chain), and any chunk while another send is under way (one packet
 * buffer).  The calling core's own
 * chunk is taken from it (it logs nothing until it selects a chunk
 * again): an interrupt would write into the chunk being read.  The dump
 * runs outside the section (interrupts go on) with the chunk BUSY and not
 * FREE: no core selects it, no jump enters it, it is not deleted.
 */
int FTrace_send_chunk(int n, int osd_flags, FTrace_flags new_flags)
{
	FTrace_Chunk *c, *p;
	unsigned core = FTRACE_PORT_CORE(), i, k;
	uint8_t old;
	uint32_t s;
	int rc = -1;

	(void)osd_flags;
	ENTER(s);
	c = chunk(n);
	/* no sender: the dump would go nowhere, and new_flags free it */
	if (!c || sending || (c->flags & FTRACE_CHUNK_FLAG_BUSY) || (!out_udp && !sink)) {
		LEAVE(s);
		return -1;
	}
	/* this core's own chain: no jump enters a BUSY chunk */
	for (i = 0; i < FTRACE_MAX_CORES; i++)
		for (p = i == core ? NULL : current[i], k = 0;
		     p && k < FTRACE_MAX_CHUNK; p = p->next, k++)
			if (p == c) {
				LEAVE(s);
				return -1;
			}
	if (core < FTRACE_MAX_CORES && current[core] == c)
		current[core] = NULL;
	sending = 1;
	old = c->flags;
	set_flags(c, (uint8_t)((old | FTRACE_CHUNK_FLAG_BUSY) & ~FTRACE_CHUNK_FLAG_FREE));
	LEAVE(s);
	FTRACE_PORT_POINT(TKREC_POINT_SEND);
	if (out_udp) {
		pkt_error = 0;
		write_chunk(c, 1);
		rc = pkt_error ? -1 : 0;
	} else {
		FTrace_disk_writer(c);
		rc = 0;
	}
	ENTER(s);
	set_flags(c, rc == 0 ? new_flags : old);
	sending = 0;
	LEAVE(s);
	return rc;
}

/*
 * The UDP sender: the port opens the link (FTRACE_PORT_UDP_INIT; the host
 * port binds l_ip:20000 and sends to t_ip:20000 by default), and the
 * following FTrace_send_chunk() calls send TRACER-V1.0 datagrams.
 */
int FTrace_OSD_init_udp(int flag, char *l_ip, char *t_ip)
{
#if defined(FTRACE_PORT_UDP_INIT)
	if (FTRACE_PORT_UDP_INIT(flag, l_ip, t_ip) != 0)
		return -1;
	out_udp = 1;
	return 0;
#else
	(void)flag;
	(void)l_ip;
	(void)t_ip;
	return -1;
#endif
}

#undef current
#undef stream
