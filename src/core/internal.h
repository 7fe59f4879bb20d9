/*
 * internal.h - what the library's parts share and the public API hides:
 * the string pool, the trace object, byte sources and sinks, and the table
 * of functions a format implements.
 */
#ifndef TK_INTERNAL_H
#define TK_INTERNAL_H

#include "tracekit/tracekit.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TK_LIKELY(x) __builtin_expect(!!(x), 1)
#define TK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TK_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* for the small functions of hot loops that compilers may not inline on
 * their own when they are called several times */
#define TK_INLINE inline __attribute__((always_inline))
/* for a cold path kept out of a hot function's code */
#define TK_NOINLINE __attribute__((noinline))
/* the cache line of *p wanted soon (a hint; reads nothing) */
#define TK_PREFETCH(p) __builtin_prefetch(p)
#else
#define TK_LIKELY(x) (x)
#define TK_UNLIKELY(x) (x)
#define TK_PRINTF(a, b)
#define TK_INLINE inline
#define TK_NOINLINE
#define TK_PREFETCH(p) ((void)(p))
#endif

/* ---- time lines ----------------------------------------------------------- */

/*
 * The time lines of a trace (tlines.c): the recordings of their own, each
 * with its own time, that one input may hold one after the other (an ATF
 * file's TraceData; every other input is one time line).  A cursor fed
 * the events in the order read tells which time line each is in, from the
 * header entries the reader adds as it comes to each.  The one place that
 * knows where time lines begin: the ATF writer gives the events back to
 * their TraceData, the analyses start afresh at each (docs/analysis.md).
 */
typedef struct tk_tlines {
	const tk_trace *t;
	int on;                 /* the trace may have several */
	int any;                /* an event was given (tk_tlines_next) */
	uint32_t k;             /* the last event's time line (from 1; 0: none) */
	int have_next;          /* the Begin of time line k + 1 is known */
	uint64_t next_line, next_skip;
	size_t hdr_seen;        /* header entries when it was last missed */
	uint64_t pos_last, pos_n;  /* events given with pos pos_last */
} tk_tlines;

void tk_tlines_init(tk_tlines *c, const tk_trace *t);
/* the time line of ev, from 1; 0 when the trace does not say (a trace of
 * one time line) */
uint32_t tk_tlines_of(tk_tlines *c, const tk_event *ev);
/* 1 when ev begins a time line after the one of the event before it (an
 * earlier event was given): what an analysis restarts at; else 0 */
int tk_tlines_next(tk_tlines *c, const tk_event *ev);
/* where time line k (from 1) begins, as the header says now: 0 with the
 * line and the events of that line before it, or -1 (none, none yet) */
int tk_tlines_begin(const tk_trace *t, uint64_t k, uint64_t *line,
		    uint64_t *skip);

/* ---- errors ------------------------------------------------------------- */

/** Fill `err` (may be NULL) and return `code`. */
int tk_err_set(tk_error *err, int code, const char *input, uint64_t line,
	       uint32_t column, const char *fmt, ...) TK_PRINTF(6, 7);
/** As tk_err_set, with a byte offset instead of a line and column. */
int tk_err_set_at(tk_error *err, int code, const char *input,
		  uint64_t offset, const char *fmt, ...) TK_PRINTF(5, 6);
/** Like tk_err_set() for out of memory. */
int tk_err_nomem(tk_error *err, const char *input);
/** A sticky error: the first failure rc (< 0) of an object is kept in
 *  *failed and *kept (its `err`, or, err NULL, "`input`: `msg`" at `line`)
 *  and returned; once kept (or with rc 0), the kept status is returned and
 *  its error copied into `err` by every later call. */
int tk_err_keep(int *failed, tk_error *kept, int rc, tk_error *err,
		const char *input, uint64_t line, const char *msg);
/** A NULL pointer given to a public function: fill `err` with "FN: no WHAT
 *  given" and return TK_E_USAGE (a constructor's NULL out, a NULL object
 *  or event fed to an analysis). */
int tk_err_null(tk_error *err, const char *fn, const char *what);
/** Name `input` in `err` (may be NULL) when it names no input yet (an
 *  analysis's error, which knows no input); returns rc. */
int tk_err_input(tk_error *err, const char *input, int rc);
#if defined(__clang_analyzer__) && !defined(TK_ERROR_C)
/* The static analyzer reads one file at a time and does not see that these
 * return their code: without this it follows `return tk_err_set(...)` as if
 * it could succeed (scripts/analyze.sh). */
static inline int tk_err_code_(int rc, int code) { (void)rc; return code; }
#define tk_err_set(err, code, ...) tk_err_code_(tk_err_set(err, code, __VA_ARGS__), code)
#define tk_err_set_at(err, code, ...) tk_err_code_(tk_err_set_at(err, code, __VA_ARGS__), code)
#define tk_err_nomem(err, input) tk_err_code_(tk_err_nomem(err, input), TK_E_NOMEM)
#define tk_err_null(err, fn, what) tk_err_code_(tk_err_null(err, fn, what), TK_E_USAGE)
#endif
/*
 * The caller's option struct `src` (its first member a size_t `size`, set
 * by the struct's *_opts_init()) into `dst`, which the caller has set to
 * the defaults: the first `size` bytes of src are copied, the rest of dst
 * keeps its defaults.  `sizes` lists the sizes the struct has had, oldest
 * first, the last this header's sizeof: any other size (0, garbage, a
 * struct not initialised) is TK_E_USAGE with a message naming `what`
 * ("tk_reader_opts").  NULL src: dst untouched, TK_OK.
 */
int tk_opts_take(void *dst, const void *src, const size_t *sizes,
		 size_t nsizes, const char *what, tk_error *err);

/*
 * tk_opts_take() of an option struct `type` (tk_reader_opts, ...), the one
 * way every constructor takes its options: *dst set to the defaults by
 * type_init(), then the caller's `src` (a const type *, NULL for the
 * defaults) over it, checked against `sizes` (the static array of the
 * sizes the struct has had); "type" names the struct in the message.
 * TK_OK or TK_E_USAGE.
 */
#define TK_OPTS_TAKE(type, dst, src, sizes, err)                              \
	((void)sizeof((src) == (const type *)0), type##_init(dst),            \
	 tk_opts_take((dst), (src), (sizes), sizeof(sizes) / sizeof((sizes)[0]), \
		      #type, (err)))

/** The caller's reader options (NULL: the defaults) into *o, their size
 *  checked (TK_OPTS_TAKE()): TK_OK or TK_E_USAGE. */
int tk_reader_opts_take(tk_reader_opts *o, const tk_reader_opts *opts,
			tk_error *err);

/* An invariant the static analyzer cannot derive from the one file it
 * reads, given to it only (nothing in a build); each use says why it holds. */
#ifdef __clang_analyzer__
#define TK_ANALYZER_ASSUME(c) do { if (!(c)) __builtin_unreachable(); } while (0)
#else
#define TK_ANALYZER_ASSUME(c) ((void)0)
#endif

/* ---- small helpers ------------------------------------------------------ */

void *tk_xrealloc_array(void *p, size_t n, size_t size); /* NULL on overflow/OOM */
/* Make (*arr)[0 .. *cap) hold index `id` (elements of esize bytes), the
 * new ones zeroed, the capacity doubled; -1 on overflow or out of memory. */
int tk_grow_zero_slow(void **arr, size_t *cap, size_t id, size_t esize);
static inline int tk_grow_zero(void **arr, size_t *cap, size_t id,
			       size_t esize)
{
	return TK_LIKELY(id < *cap) ? 0 : tk_grow_zero_slow(arr, cap, id, esize);
}
/* The same for a capacity kept as a uint32_t (it stays <= UINT32_MAX):
 * TK_OK, or TK_E_NOMEM on overflow or out of memory.  Both check the
 * capacity inline (the appends of hot loops) and call out to grow. */
int tk_grow_zero32_slow(void **arr, uint32_t *cap, size_t id, size_t esize);
static inline int tk_grow_zero32(void **arr, uint32_t *cap, size_t id,
				 size_t esize)
{
	return TK_LIKELY(id < *cap) ? TK_OK
				    : tk_grow_zero32_slow(arr, cap, id, esize);
}
/* At most 40 bytes of [p, end) for a message, NUL-terminated in buf (of
 * `size` bytes): control bytes as '?', "..." when cut.  Returns buf. */
const char *tk_quote(char *buf, size_t size, const char *p, const char *end);
/* The cycle units of a Tarmac log (tarmac_records.c writes them in the
 * header's tarmacTimeUnit): its index in tk_cycle_units of the NUL-
 * terminated s, or -1 (tk_trace_cycle_unit(), verify's bounds). */
#define TK_NCYCLE_UNITS 4
extern const char *const tk_cycle_units[TK_NCYCLE_UNITS];
int tk_cycle_unit_find(const char *s);
/* tk_utf8_len(): tracekit.h */
/* The XML escape of byte c ("&amp;" ...) in an attribute value (attr) or
 * in text, or NULL when c stands for itself. */
const char *tk_xml_escape(char c, int attr);
/* A working buffer of n bytes (64-byte aligned, contents undefined as
 * malloc()'s); one of 256 KB or more in transparent huge pages where the
 * kernel has them (bigbuf.c).  NULL on overflow/OOM.  Free with
 * tk_bigbuf_free() only. */
void *tk_bigbuf_alloc(size_t n);
void tk_bigbuf_free(void *p);
/* The regular file at path mapped read-only and private (bigbuf.c): 0 with
 * *buf, *len and *mapped = 1 (an empty file: no mapping, *len 0, *mapped
 * 0), 1 when it does not exist, -1 when it is not a regular file, is
 * larger than limit bytes or cannot be mapped.  Unmapped by
 * tk_file_unmap(buf, len) when *mapped. */
int tk_file_map(const char *path, uint64_t limit, uint8_t **buf, size_t *len, int *mapped);
void tk_file_unmap(uint8_t *buf, size_t len);
int tk_ascii_casecmp(const char *a, size_t alen, const char *b);
/** 1 if the n bytes at a and b are equal ignoring ASCII case. */
int tk_ascii_ncaseeq(const char *a, const char *b, size_t n);
/** 1 and *id = n if the len bytes at s are "Core_<n>" (n decimal, no
 * leading zero: the core names the HTF and ATF readers give), else 0. */
int tk_core_number(const char *s, size_t len, uint64_t *id);
/** A writer's core: its number, and whether its name gave it. */
typedef struct tk_core_id {
	uint64_t id;
	int named;         /* named Core_<id> (tk_core_number) */
} tk_core_id;
/** The ids of the n cores at base (each a tk_core_id at its start, stride
 * bytes apart) not named Core_<n>: the lowest ones no named core has, in
 * their order; a writer gives them at close, once every core is known. */
void tk_core_ids(void *base, size_t n, size_t stride);

/*
 * Once per process, whichever threads ask first: for the tables a format
 * builds on first use (its vocabulary), so that no format needs a thread
 * primitive of its own.
 */
typedef struct tk_once {
	pthread_once_t once;
} tk_once;
#define TK_ONCE_INIT { PTHREAD_ONCE_INIT }
void tk_once_run(tk_once *o, void (*fn)(void));

/* ---- string pool -------------------------------------------------------- */

/*
 * Interned strings: ids are dense (0, 1, 2 ...) so that per-string
 * side tables (the entity of a name, the event kind of a name) are plain
 * arrays.  The bytes live in large blocks that never move, so a string's
 * pointer stays valid for the pool's life.
 */
typedef struct tk_strslot {
	uint64_t w0, w1;      /* the first 16 bytes, zero-padded */
	uint32_t len1;        /* length + 1; 0 = empty slot */
	uint32_t id;
} tk_strslot;

typedef struct tk_strpool {
	/* a table of its own, not the library's map (hashmap.h): with the
	 * first 16 bytes in the slot a name is found without the map's
	 * second hash and the chase to its bytes, which the BTF reader did
	 * not keep within its speed on the map (the measure: git log) */
	tk_strslot *slots;    /* open addressing, linear probing */
	uint32_t mask;        /* slots - 1 */
	uint32_t shift;       /* 32 - log2(slots): a hash's top bits pick its slot */
	const char **ptrs;    /* per id */
	uint32_t *lens;       /* per id */
	uint32_t count, cap;
	char *block;          /* current block */
	size_t block_used, block_size;
	char **blocks;
	size_t nblocks;
} tk_strpool;

void tk_strpool_init(tk_strpool *p);
void tk_strpool_free(tk_strpool *p);
/** Intern; returns the id, or TK_NONE on out of memory. */
tk_str tk_strpool_intern(tk_strpool *p, const char *s, size_t len);
/**
 * As tk_strpool_intern(), where the bytes up to `limit` (>= s + len) may be
 * read: lets short names be loaded a word at a time.
 */
tk_str tk_strpool_intern_in(tk_strpool *p, const char *s, size_t len,
			    const char *limit);
/** Look up without adding; TK_NONE if absent. */
tk_str tk_strpool_find(const tk_strpool *p, const char *s, size_t len);
/** Copy bytes into the pool's blocks (not interned), NUL-terminated. */
const char *tk_strpool_dup(tk_strpool *p, const char *s, size_t len);

/**
 * The first TK_STRPOOL_PAD bytes at the start of every string in the pool
 * (interned or copied) may be read, whatever its length: the blocks are
 * padded.  Writers copy short names as two words thanks to it.
 */
#define TK_STRPOOL_PAD 16

/* ---- hashing ------------------------------------------------------------ */

/*
 * The seed of the hash tables keyed by what an input holds (hash.c: at
 * random once per process), so that no input can be made whose keys all
 * land in one slot.  tk_hash_init() sets it (once; it is also set before
 * main() where the compiler allows): every table calls it before its first
 * hash, the CLI's tables too.
 */
extern uint64_t tk_hash_seed[2];
void tk_hash_init(void);

/* The 128-bit product of a and b, its halves xored: one multiply, and
 * every bit of either reaches the middle bits of the result. */
static inline uint64_t tk_hash_mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 u128;
	u128 r = (u128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32;
	uint64_t bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
	uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);

	return lo ^ hi;
#endif
}

/* A seeded hash of a 64-bit key: take slots from any of its bits. */
static inline uint64_t tk_hash64(uint64_t key)
{
	return tk_hash_mum(key ^ tk_hash_seed[0],
			   (tk_hash_seed[1] ^ 0x9e3779b97f4a7c15ull) | 1u);
}

/*
 * The hash of a string of up to 16 bytes given as two zero-padded words:
 * one seeded multiply of the two (tk_hash_mum()), so that no change to
 * one word can be undone by a change to the other whatever the seed.  The
 * slot is taken from the top bits (see tk_strpool.shift).  Strings longer
 * than 16 bytes mix a hash of their tail in (strpool.c).
 */
static inline uint32_t tk_strpool_hash16(uint64_t w0, uint64_t w1, size_t len)
{
	return (uint32_t)(tk_hash_mum(w0 ^ tk_hash_seed[0],
				      w1 ^ tk_hash_seed[1] ^ (uint64_t)len) >> 32);
}

/* tk_strpool_mask16[n]: the two words that keep the first n bytes of 16. */
extern const uint64_t tk_strpool_mask16[17][2];

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The id of the len bytes (1 to 16) at s, where the 16 bytes at s may be
 * read, if the pool holds them; TK_NONE if not.  The pool must have its
 * table (hold a string).  Inlined into the readers' hot loops: two word
 * loads, a multiply and a compare, no call.
 */
static TK_INLINE tk_str tk_strpool_lookup16(const tk_strpool *p,
					    const char *s, size_t len)
{
	const tk_strslot *sl;
	uint64_t w0, w1;
	uint32_t j;

	/* bytes past len (the next fields) are loaded, then masked off */
	memcpy(&w0, s, 8);
	memcpy(&w1, s + 8, 8);
	w0 &= tk_strpool_mask16[len][0];
	w1 &= tk_strpool_mask16[len][1];
	j = tk_strpool_hash16(w0, w1, len) >> p->shift;
	sl = &p->slots[j];
	/* most names are in their first slot (load factor below 1/2) */
	if (TK_LIKELY(sl->w0 == w0 && sl->w1 == w1 && sl->len1 == len + 1))
		return sl->id;
	for (; p->slots[j].len1; j = (j + 1) & p->mask) {
		sl = &p->slots[j];
		if (sl->len1 == len + 1 && sl->w0 == w0 && sl->w1 == w1)
			return sl->id;
	}
	return TK_NONE;
}
#endif

/*
 * tk_strpool_intern_in() with the lookup of a name the pool holds already
 * (nearly every name of a trace's data lines) inlined.  Anything else
 * (empty, longer than 16 bytes, near the end of the readable bytes, new)
 * takes the full path.
 */
static inline tk_str tk_strpool_intern_hot(tk_strpool *p, const char *s,
					   size_t len, const char *limit)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (TK_LIKELY(len - 1 < 16 && limit - s >= 16 && p->slots != NULL)) {
		tk_str id = tk_strpool_lookup16(p, s, len);
		if (TK_LIKELY(id != TK_NONE))
			return id;
	}
#endif
	return tk_strpool_intern_in(p, s, len, limit);
}

/** The bytes and length of string `id` (which must exist). */
static inline const char *tk_strpool_get(const tk_strpool *p, tk_str id,
					 size_t *len)
{
	*len = p->lens[id];
	return p->ptrs[id];
}

/* ---- trace -------------------------------------------------------------- */

/*
 * The entity records live in chunks that never move, so that a pointer
 * tk_trace_entity() gave stays valid while the table grows (the API
 * promises it until the trace is closed).  Chunk 0 holds ids
 * [0, TK_ENT_CHUNK0); chunk k >= 1 holds [TK_ENT_CHUNK0 << (k - 1),
 * TK_ENT_CHUNK0 << k): each chunk doubles the table, as a realloc would,
 * and the table of chunks has a fixed size (no id reaches 2^32).
 */
#define TK_ENT_CHUNK0_BITS 6
#define TK_ENT_CHUNK0 (1u << TK_ENT_CHUNK0_BITS)
#define TK_ENT_CHUNKS (32 - TK_ENT_CHUNK0_BITS + 1)

struct tk_trace {
	const char *format;
	tk_timebase tb;
	tk_strpool pool;
	/* the header entries in chunks as the entities' (a pointer
	 * tk_trace_header() gave stays valid while a reader or
	 * tk_trace_add_header() adds more) */
	tk_header_entry *hdr_chunk[TK_ENT_CHUNKS];
	uint32_t nhdr;
	/* per header entry: 1 when its reader departed from the format's
	 * specification in it (tk_trace_header_mark_departure()) */
	uint8_t *hdr_departs;
	size_t cap_hdr_departs;
	tk_entity *ent_chunk[TK_ENT_CHUNKS];
	uint32_t nents;
	uint32_t *ent_of_str;   /* per string id: entity id or TK_NONE */
	uint32_t cap_ent_of_str;
};

/* The index of the highest bit set in x (x != 0). */
static TK_INLINE unsigned tk_high_bit32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return 31u - (unsigned)__builtin_clz(x);
#else
	unsigned h = 0;

	while (x >>= 1)
		h++;
	return h;
#endif
}

/* The chunk of entity id and the id's place in it. */
static TK_INLINE unsigned tk_ent_chunk_of(uint32_t id, uint32_t *off)
{
	unsigned h = tk_high_bit32(id | (TK_ENT_CHUNK0 - 1));

	*off = id - ((1u << h) & ~(TK_ENT_CHUNK0 - 1));
	return h - (TK_ENT_CHUNK0_BITS - 1);
}

/** The record of entity `id` (id < t->nents): for the formats' readers,
 *  which set the types of the entities they make. */
static TK_INLINE tk_entity *tk_trace_ent(const tk_trace *t, uint32_t id)
{
	uint32_t off;
	unsigned k = tk_ent_chunk_of(id, &off);

	return &t->ent_chunk[k][off];
}

/** A trace of format `format` (a static string), time base 1 ns; NULL on
 *  out of memory.  (tk_trace_new() is the public constructor.) */
tk_trace *tk_trace_alloc(const char *format);
/** The time base of t: a tick is tb->num/tb->den of tb->unit (a reader
 *  has checked that num and den are at least 1; 0 is taken as 1). */
void tk_trace_set_timebase(tk_trace *t, const tk_timebase *tb);
/** tk_trace_add_header() for the readers: the entry as read, unchecked. */
int tk_trace_header_push(tk_trace *t, tk_hdr_kind kind, const char *key,
			 size_t klen, const char *value, size_t vlen,
			 int has_value);
/** Marks the last entry pushed as one the format's strict reader refuses
 *  (a malformed table row, mapping or value) and its lenient reader kept
 *  as read with a warning: the format's writer leaves it out, since it
 *  writes what the specification allows.  TK_E_NOMEM, else TK_OK. */
int tk_trace_header_mark_departure(tk_trace *t);
/** Whether header entry i was marked so (0 when i is out of range). */
int tk_trace_header_departs(const tk_trace *t, size_t i);
/** The entity for interned name `name`, created (type unknown) if absent. */
uint32_t tk_trace_entity_get(tk_trace *t, tk_str name);
/** The entity named `name`, created if absent; TK_NONE on out of memory. */
uint32_t tk_trace_entity_intern(tk_trace *t, const char *name, size_t len);

/* ---- byte sources ------------------------------------------------------- */

/*
 * A source hands out a window of decoded bytes.  A memory block is the
 * window, which never moves; files, pipes and compressed inputs are read
 * into a buffer that tk_source_fill() extends, moving it where it likes
 * (a plain file in pieces that stay in the cache; no file is mapped).
 *
 * The contract, which every reader keeps:
 *  - The window is a tk_window (bytes and length), taken from
 *    tk_source_window() or handed back by tk_source_fill().
 *  - tk_source_fill() takes the caller's window and overwrites it with the
 *    new one, whatever it returns (bytes added, the end, a failure).  Every
 *    pointer into the old window is dead from then on, also when nothing
 *    was added: keep offsets from the window's start across a fill, never
 *    pointers, and derive them again from the window handed back.
 *  - tk_source_consume() moves the window's start on; the bytes stay where
 *    they are until the next fill (a line just consumed may still be read).
 *  - Once tk_source_eof() is true the window never moves again.
 * Builds with AddressSanitizer move a streamed window at every fill and
 * poison what it leaves, so a pointer kept across a fill is reported by
 * the first test that streams its input (see also
 * tk_source_open_mem_stream(), which the tests and fuzz targets use).
 */
typedef struct tk_source tk_source;

/** The unconsumed bytes of a source: valid until the next fill. */
typedef struct tk_window {
	const uint8_t *p;
	size_t n;
} tk_window;

int tk_source_open(tk_source **out, const char *path, tk_error *err);
int tk_source_open_mem(tk_source **out, const void *data, size_t len,
		       const char *name, tk_error *err);
#ifdef TK_TEST_HOOKS /* the test build only (tracekit_test) */
/**
 * A memory block read as a pipe is: for the tests and fuzz targets, which
 * have every reader's streamed path run with fills at every position.  The
 * raw bytes (compressed or not) are handed out `piece` bytes at a time
 * (`piece` is taken into 1 .. 256 KiB); with a non-zero `seed`, each piece
 * is instead 1 to `piece` bytes long, the lengths drawn from a generator
 * seeded with it.  Every fill moves the window to a new buffer just large
 * enough for it and one more piece, and frees the old one, in every build,
 * so that a pointer kept across a fill (or a read well past the window's
 * end) is caught by AddressSanitizer.  The transport is "memory-stream"
 * (or the codec's, "gzip" or "zstd").
 */
int tk_source_open_mem_stream(tk_source **out, const void *data, size_t len,
			      const char *name, size_t piece, uint64_t seed,
			      tk_error *err);
#endif
void tk_source_close(tk_source *s);
const char *tk_source_name(const tk_source *s);
/** The unconsumed bytes, valid until the next tk_source_fill(). */
tk_window tk_source_window(const tk_source *s);
void tk_source_consume(tk_source *s, size_t n);
/** Decoded offset of the window's first byte. */
uint64_t tk_source_offset(const tk_source *s);
/**
 * Read more: returns 1 if bytes were added, 0 at the end of input, or a
 * negative status.  `want` is a hint of how many unconsumed bytes are
 * needed.  *win (required) is set to the window after the call in every
 * case: the window it held before, and any pointer into it, is dead.
 */
int tk_source_fill(tk_source *s, size_t want, tk_window *win, tk_error *err);
/** True once the end of input has been reached (window is all there is). */
bool tk_source_eof(const tk_source *s);
/**
 * Random access.  The input's decoded size, making every byte of it from
 * the consumed position on readable with tk_source_read_at(): a plain file
 * or a memory block as it is; a pipe or a compressed input is first decoded
 * to its end into an unlinked temporary file (in TMPDIR, else /tmp; removed
 * by the system whatever the exit).  The window is not used on `s` after it.
 * TK_OK or < 0.
 */
int tk_source_size(tk_source *s, uint64_t *size, tk_error *err);
/**
 * Copy the n decoded bytes at offset `off` into buf (after
 * tk_source_size()).  TK_OK, or TK_E_IO with the offset in `err`: a read
 * error, or the input ends before off + n (a file that shrank).
 */
int tk_source_read_at(tk_source *s, uint64_t off, void *buf, size_t n,
		      tk_error *err);
/** Name of the transport ("file", "pipe" (a named pipe or another
 * stream given by its path), "stdin", "gzip", "zstd", "memory",
 * "memory-stream"). */
const char *tk_source_transport(const tk_source *s);

/* ---- inputs (tk_input_open()) -------------------------------------------- */

/* A source and the format its probe (or the caller) chose; nothing of the
 * source consumed. */
struct tk_input {
	tk_source *src;
	const struct tk_format_ops *fmt;
};

/** Free the input's shell and hand over its source (the caller's now). */
tk_source *tk_input_release(tk_input *in);

/* ---- text lines --------------------------------------------------------- */

/*
 * The longest line a text reader (BTF, HTF, Tarmac) accepts, not counting
 * its line end, and the longest XML token (ATF: a tag with its attributes,
 * a comment, ...): what a reader holds of one line is bounded by it on
 * every transport, so a decompression bomb of one endless line costs no
 * more.  Past it the input is refused with tk_err_line_long().
 */
#define TK_LINE_MAX ((size_t)4 << 20)

/** "input:line:col: line longer than TK_LINE_MAX bytes" (TK_E_PARSE), the
 * column the first byte past the limit. */
int tk_err_line_long(tk_error *err, const char *input, uint64_t line);
#if defined(__clang_analyzer__) && !defined(TK_ERROR_C)
#define tk_err_line_long(err, input, line) \
	tk_err_code_(tk_err_line_long(err, input, line), TK_E_PARSE)
#endif

/**
 * The start of a text on source `s`: a UTF-8 byte-order mark is consumed
 * (so line 1, column 1 is the byte after it), and the result tells
 * whether the text has CR-only line ends: its first line end (looked for
 * in its first TK_LINE_MAX + 2 bytes) is a CR that no LF follows.  Fills
 * the source as needed (the window may move).  1, 0, or a negative status.
 */
int tk_text_begin(tk_source *s, tk_error *err);
/** The length of a UTF-8 byte-order mark at p[0..n): 3 or 0. */
size_t tk_text_bom(const uint8_t *p, size_t n);

/* ---- content hash --------------------------------------------------- */

/** The SHA-256 of the bytes of file `path` as 64 lowercase hex digits. */
int tk_sha256_file(const char *path, char hex[65], tk_error *err);

/* ---- output sinks ------------------------------------------------------- */

/*
 * A buffered output that goes to a temporary file renamed on commit, or to
 * standard output.
 */
typedef struct tk_sink {
	int fd;
	char *path;       /* final path; NULL for stdout */
	char *tmp;        /* temporary path */
	char *buf;
	size_t len, cap;
	int failed;
	char fail_msg[96]; /* what failed: said again by the later calls */
	int direct;       /* path names no regular file (a device such as
			     /dev/null, a FIFO): written to as it is, with
			     no temporary and no rename */
	int is_dir;       /* tk_sink_open_dir(): tmp is a directory */
	/* entries in the table of live temporaries (tk_temp_remove_all()):
	 * tmp itself, then the files tk_sink_track() added; -1 when unused */
	int temps[4];
	/* compression by the name's suffix (TK_SINK_GZIP, TK_SINK_ZSTD):
	 * flush compresses the buffer into zbuf and writes that */
	int zkind;
	void *z;
	unsigned char *zbuf;
	size_t zcap;
} tk_sink;

enum { TK_SINK_PLAIN = 0, TK_SINK_GZIP, TK_SINK_ZSTD };

/** The compression a path's name asks for: ".gz" or ".zst" (any case). */
int tk_sink_compression(const char *path);

/**
 * A file output: "-" is standard output; any other path is written to a
 * temporary file next to it (listed for tk_temp_remove_all()) and renamed
 * by commit.  A name ending in ".gz" is written as a gzip stream, ".zst"
 * as a zstd frame: the bytes of the buffer are compressed as they are
 * flushed.
 */
int tk_sink_open(tk_sink *s, const char *path, tk_error *err);
/**
 * Like tk_sink_open(), but never compressed: the caller (SQLite) writes
 * the temporary file s->tmp by itself.
 */
int tk_sink_open_raw(tk_sink *s, const char *path, tk_error *err);
/**
 * A file the writer is about to create inside a directory output (s->tmp):
 * listed so that tk_temp_remove_all() removes it before the directory.
 * At most 3 per sink; TK_OK, or TK_E_IO when the table is full (the file
 * is then removed by abort but not on a signal).
 */
int tk_sink_track(tk_sink *s, const char *file);
/**
 * The same for the files DIR/<prefix>0 .. DIR/<prefix>(n - 1) of a
 * directory output (any number of them: the count only grows); prefix
 * shorter than 16 bytes.  TK_OK, or TK_E_IO (not a directory output).
 */
int tk_sink_track_series(tk_sink *s, const char *prefix, uint32_t n);
/**
 * A directory output (a CTF trace): `path` must not exist; an empty
 * directory is created at a temporary name next to it (s->tmp), the writer
 * fills it with its own files, and commit renames it to `path` (refusing
 * if `path` appeared meanwhile); abort removes the files in it and it.
 * Nothing goes through the buffer; standard output is refused.
 */
int tk_sink_open_dir(tk_sink *s, const char *path, tk_error *err);
int tk_sink_flush(tk_sink *s, tk_error *err);
int tk_sink_write(tk_sink *s, const void *p, size_t n, tk_error *err);
int tk_sink_commit(tk_sink *s, tk_error *err);
void tk_sink_abort(tk_sink *s);

/** Make sure `n` bytes of room are free in the buffer; returns the write pointer. */
static inline char *tk_sink_reserve(tk_sink *s, size_t n, tk_error *err)
{
	if (TK_UNLIKELY(s->cap - s->len < n)) {
		if (tk_sink_flush(s, err) < 0)
			return NULL;
		if (s->cap < n)
			return NULL;
	}
	return s->buf + s->len;
}

/* Exact 128-bit arithmetic for times and metrics. */
typedef unsigned __int128 tk_u128;
/** v in decimal; returns the length (no NUL). */
size_t tk_fmt_u128(char *out, tk_u128 v);
/** The greatest common divisor of a and b (a when b is 0). */
tk_u128 tk_gcd128(tk_u128 a, tk_u128 b);
/**
 * num/den exactly: an integer, a finite decimal ("1.5"), or where there is
 * none the reduced fraction "N/D".  Returns the length, or TK_E_RANGE.
 */
int tk_fmt_ratio(tk_u128 num, tk_u128 den, char *buf, size_t size);
/**
 * num/den as a decimal of at most `digits` places: exact where the decimal
 * ends within them, else rounded half up at the last place; trailing zeros
 * are dropped ("1823.241", "21133.5", "7").  Returns the length, or
 * TK_E_RANGE (den > 2^128/10, digits > 96, or buf too small).
 */
int tk_fmt_ratio_dec(tk_u128 num, tk_u128 den, int digits, char *buf,
		     size_t size);
/** 1 when the unit name s (len bytes) is written with a micro sign (U+00B5
 * or U+03BC), which tk_unit_parse() takes for us: the commands and the
 * requirements take it; a trace's header is read as us with a warning, or
 * refused in strict mode (the formats name us alone). */
int tk_unit_micro_sign(const char *s, size_t len);

/** One tick of `tb` in `unit` as p/q, reduced.  TK_OK or < 0. */
int tk_unit_factor(const tk_timebase *tb, tk_unit unit, tk_u128 *p,
		   tk_u128 *q);

/* Decimal formatting, for writers' hot paths.  Return the length. */
size_t tk_fmt_u64(char *out, uint64_t v);
size_t tk_fmt_i64(char *out, int64_t v);

/* The number of decimal digits of v (1 to 20). */
static inline unsigned tk_dec_len(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull
	};
	/* floor(log10(2^bits)) is bits * 1233 >> 12 for bits <= 64; one
	 * compare corrects it for v (0 counts as 1, like 1) */
	unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
	unsigned n = (bits * 1233u) >> 12;

	return n + ((v | 1) >= pow10[n]);
#else
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
#endif
}

/* v in decimal at o, two digits a step from the end (its length counted
 * first); returns the end.  The writers' hot paths write into their buffer
 * with it; tk_fmt_u64() is the same. */
static inline char *tk_put_u64(char *o, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"93949596979899";
	char *end = o + tk_dec_len(v), *e = end;

	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, pairs + 2 * v, 2);
	} else {
		e[-1] = (char)('0' + v);
	}
	return end;
}

/* v in decimal at o; returns the end (tk_fmt_i64() is the same). */
static inline char *tk_put_i64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		/* negate in unsigned arithmetic: INT64_MIN has no positive twin */
		return tk_put_u64(o, (uint64_t)0 - (uint64_t)v);
	}
	return tk_put_u64(o, (uint64_t)v);
}

/* ---- formats ------------------------------------------------------------ */

typedef struct tk_format_ops tk_format_ops;

struct tk_reader {
	const tk_format_ops *fmt;
	tk_source *src;
	tk_trace *trace;
	tk_reader_opts opts;
	void *impl;
	uint64_t nwarn;
	uint64_t warned_kinds;  /* bit per warning kind already reported */
	tk_event ev;
	/* core's own: the rest of the batch that tk_reader_next() hands out
	 * one by one (from the format's reader_next_batch) */
	const tk_event *evq, *evq_end;
	/* the format's first error, given again by every later call */
	int failed;
	tk_error fail_err;
	tk_error noerr;           /* the formats' tk_error when the caller gives
				     NULL (they keep what it says) */
	/* set by the format's reader_open: the times it gives never
	 * decrease (tk_reader_opts.window_stop, TK_STOP_ORDERED) */
	int ordered;
	/* the events the format has decoded (tk_reader_decoded_count()) */
	uint64_t ndecoded;
	/* tk_reader_note_parents(): known[id] is 1 once entity id's parent is
	 * known, so that its later events do not look at the entity
	 * (nknown: the ids it covers, grown with the entity table) */
	uint8_t *known;
	size_t nknown;
	/* set by the format's reader_open: an entity's type, once known
	 * (not TK_ET_UNKNOWN), never changes, so that an entity that is no
	 * process is known too (HTF, S.Ha.R.K.) */
	int fixed_types;
	/* the query of the options (query.c), NULL when none is given */
	struct tk_query *q;
};

/** The query of r->opts, made once the header is read (query.c): r->q
 *  stays NULL when the options give none.  TK_OK or a negative status. */
int tk_query_open(tk_reader *r, tk_error *err);
/** Free r->q. */
void tk_query_close(tk_reader *r);
/** tk_reader_next() and tk_reader_next_batch() through the query. */
int tk_query_next(tk_reader *r, const tk_event **ev, tk_error *err);
int tk_query_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			size_t max, tk_error *err);
/** The earliest time among the events the query has looked at (those it
 *  skipped too): 1 with *t set, or 0 when r has no query or it has seen
 *  no event (the report's time since the trace's first event). */
int tk_query_first_time(const tk_reader *r, uint64_t *t);
/** The query decodes and drops the events before its window's start, not
 *  skipping ahead (tk_query_first_time() then sees the trace's first). */
void tk_query_no_skip(tk_reader *r);
/** Skip ahead to tick `start` through the format's reader_skip, when it
 *  has one (a failure is kept as the reader's, as tk_reader_raw_next()'s).
 *  Before the first event only.  TK_OK or < 0. */
int tk_reader_raw_skip(tk_reader *r, uint64_t start, tk_error *err);
/** tk_entity.parent from n events handed out or skipped (reader.c, the
 *  rule of tracekit.h's tk_entity.parent). */
void tk_reader_note_parents(tk_reader *r, const tk_event *ev, size_t n);
/** The reader's own next event or batch (reader.c), without the query. */
int tk_reader_raw_next(tk_reader *r, const tk_event **ev, tk_error *err);
int tk_reader_raw_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			     size_t max, tk_error *err);

struct tk_writer {
	const tk_format_ops *fmt;
	const tk_trace *trace;
	tk_writer_opts opts;
	tk_sink sink;
	void *impl;
	/* the UTF-8 rule (tk_writer_text()): strings with bad bytes, and the
	 * buffer of the last one repaired */
	uint64_t bad_text;
	char *text;
	size_t text_cap;
	const char *text_as;  /* what the warning says bad bytes become
				 (NULL: "U+FFFD"), for a format that writes
				 them otherwise */
	/* tk_writer_cycles(): the trace's ticks are cycles, which this
	 * format writes as ns (its name, for the warning at close) */
	const char *cycles_as_ns;
	/* the first failed write's status and error: every later write and
	 * the close give them again, and the close leaves no file */
	int failed;
	tk_error fail_err;
	/* tk_writer_opts.input ("": none), and the event a format's
	 * writer_write_batch failed on, where its error is about one */
	char input[256];
	const tk_event *bad_ev;
};

/*
 * An error about event ev, which the output cannot hold, already in err
 * (naming the output): when the writer knows its input
 * (tk_writer_opts.input) and the event's position, err names the input
 * and the event's line ("record N: " in the message for a binary input),
 * the output at the end of the message: "in.btf:4: error: MSG (writing
 * OUT)".  Done once (an error naming the input is left as it is); the
 * writer calls it for a failed write, a format for an error it gives
 * later (at close).  Returns rc.
 */
int tk_writer_locate(const tk_writer *w, const tk_event *ev, int rc,
		     tk_error *err);
/** Would tk_writer_locate() name the input and ev's position?  (A format
 *  leaves the position out of its message then.) */
int tk_writer_locates(const tk_writer *w, const tk_event *ev);
/*
 * tk_writer_locate() of an error about a string a format writes at close
 * (an entity's name), at the event that carries it first: pos1 is that
 * event's tk_event.pos + 1, kept by the format as the events come (0: no
 * event carried it, err is left as it is).  Returns rc.
 */
int tk_writer_locate_pos(const tk_writer *w, uint64_t pos1, int rc,
			 tk_error *err);

/* The first event that names each entity, for a format that writes the
 * names at close: pos1[ent] is its tk_event.pos + 1 (0: none), the pos1
 * of tk_writer_locate_pos() for an error about that name. */
typedef struct tk_name_pos {
	uint64_t *pos1;
	uint32_t cap;
} tk_name_pos;

/* the entities ev names (source, target, core) named at ev->pos, unless
 * an earlier event did: TK_OK or TK_E_NOMEM */
int tk_name_pos_event(tk_name_pos *np, const tk_event *ev);
/* pos1 of entity ent (0: no event named it) */
static inline uint64_t tk_name_pos_get(const tk_name_pos *np, uint32_t ent)
{
	return ent < np->cap ? np->pos1[ent] : 0;
}

/*
 * The UTF-8 rule of every writer (docs/exports.md, "Text"): a name, note
 * or header value s[0..n) as an output holds it.  Well-formed UTF-8 comes
 * back as it is (*out = s: no copy, nothing counted).  A string with a
 * byte that is not part of a well-formed UTF-8 sequence is refused under
 * --strict (TK_E_UNSUPPORTED, err filled, naming `what`); else it comes
 * back as a copy in w's buffer (valid until the next call) with each such
 * byte replaced by U+FFFD, and counted: tk_writer_close() gives one
 * warning for all of them.  TK_OK or < 0.
 */
int tk_writer_text(tk_writer *w, const char *s, size_t n, const char **out,
		   size_t *outn, tk_error *err);
/* Whether s[0..n) is well-formed UTF-8 (a quick pass over ASCII). */
int tk_utf8_valid(const char *s, size_t n);
/*
 * For a trace format whose time units are SI only (HTF, ATF): when the
 * trace's ticks are cycles (tk_trace_cycle_unit(), a Tarmac log timed in
 * clk), they are written as ns, one per cycle.  Under --strict that is
 * refused here (TK_E_UNSUPPORTED, err filled, naming `fmt`); else
 * tk_writer_close() says it in one warning.  Call at open; TK_OK or < 0.
 */
int tk_writer_cycles(tk_writer *w, const char *fmt, tk_error *err);
/* For a writer that repairs in its own escaping (writing U+FFFD for each
 * bad byte itself): count one string with bad bytes; under --strict
 * the error (as tk_writer_text()'s), else TK_OK. */
int tk_writer_text_bad(tk_writer *w, size_t n, tk_error *err);

struct tk_format_ops {
	tk_format_info info;
	/** 0: not this format; higher is more certain (100: magic matched). */
	int (*probe)(const uint8_t *buf, size_t len);
	/**
	 * For a format forced by name (tk_reader_opts.format): non-zero when
	 * the content shows a sign of the format as its lenient reader reads
	 * it.  Looser than probe, which must not take another format's input;
	 * NULL: probe decides.
	 */
	int (*sign)(const uint8_t *buf, size_t len);
	int (*reader_open)(tk_reader *r, tk_error *err);
	/*
	 * A reader gives reader_next, reader_next_batch or both; core derives
	 * the one missing.  reader_next: TK_OK with *ev set, TK_END, or < 0.
	 * reader_next_batch: TK_OK with 1 <= *n <= max events at *evs (valid
	 * until the next call on the reader), TK_END, or < 0.
	 */
	int (*reader_next)(tk_reader *r, const tk_event **ev, tk_error *err);
	int (*reader_next_batch)(tk_reader *r, const tk_event **evs, size_t *n,
				 size_t max, tk_error *err);
	/*
	 * Optional, for a query's window (tk_query_skip()): called once before
	 * the first event is read, it takes the events the reader would hand
	 * out first whose times are below `start` (ticks), up to the first
	 * at or after it, without making them: only the state that later
	 * events depend on (instance counters, running tasks, the entities
	 * and strings interned, warnings, tk_entity.parent as
	 * tk_reader_note_parents() would set it) is updated, so that the events
	 * that follow are those of a full read.  TK_OK, or < 0 (the error
	 * the full read would have returned among those events).
	 */
	int (*reader_skip)(tk_reader *r, uint64_t start, tk_error *err);
	void (*reader_close)(tk_reader *r);
	/** Non-zero: the reader reads tk_reader_opts.options (and refuses
	 *  what it does not know); else core refuses any option. */
	int reader_options;
	int (*writer_open)(tk_writer *w, tk_error *err);
	int (*writer_write)(tk_writer *w, const tk_event *ev, tk_error *err);
	/* optional: writer_write of each of evs[0..n) in turn, the same
	 * output and error */
	int (*writer_write_batch)(tk_writer *w, const tk_event *evs, size_t n,
				  tk_error *err);
	int (*writer_close)(tk_writer *w, tk_error *err);
	void (*writer_free)(tk_writer *w);
	/** Non-zero: the output is a directory (tk_sink_open_dir()). */
	int writes_dir;
	/** Non-zero: the reader's tk_event.pos counts records (a binary
	 *  input), not lines. */
	int pos_records;
	/** Non-zero: the writer writes the sink's temporary file by itself
	 *  (tk_sink_open_raw(): no compression). */
	int writes_file;
	/** Non-zero: the writer reads tk_writer_opts.options (and refuses
	 *  what it does not know); else core refuses any option. */
	int writer_options;
};

const tk_format_ops *tk_format_ops_find(const char *name);
const tk_format_ops *tk_format_ops_get(size_t i);

#ifdef TK_TEST_HOOKS /* the test build only (tracekit_test) */
/**
 * tk_reader_open() on a source of the caller's (tk_source_open_mem_stream()
 * for the tests), which the reader owns from then on (closed on failure
 * too); `path` names the input for the probe by name and the messages.
 */
int tk_reader_open_source(tk_reader **out, tk_source *src, const char *path,
			  const tk_reader_opts *opts, tk_error *err);
#endif

/**
 * Report a warning of kind `kind` (0..63, one per distinct departure from
 * the spec): counted always, passed to the callback the first time.
 */
void tk_reader_warn(tk_reader *r, unsigned kind, uint64_t line,
		    uint32_t column, const char *fmt, ...) TK_PRINTF(5, 6);

/**
 * A departure from the format's specification at line:column (0: none),
 * the one rule of every reader: under --strict the error `strict_fmt` in
 * *err and TK_E_PARSE, else the warning of `kind` (tk_reader_warn())
 * `lenient_fmt` and TK_OK.  Both formats take the arguments given (the
 * strict one may use only the first of them: the compilers check the
 * arguments against `lenient_fmt` alone).  A message is cut at 319 bytes.
 */
int tk_reader_depart(tk_reader *r, tk_error *err, unsigned kind,
		     uint64_t line, uint32_t column, const char *strict_fmt,
		     const char *lenient_fmt, ...) TK_PRINTF(6, 0) TK_PRINTF(7, 8);

/**
 * The start of a text reader's open: r->impl = a zeroed block of `size`
 * bytes, then tk_text_begin() on the source; lines that end with a CR
 * alone are a departure of `cr_kind` ("lines end with a CR alone (read as
 * line ends)") that strict mode refuses with `cr_error` (NULL: never
 * refused).  1 for CR-only line ends, 0 else, or < 0 (r->impl may be set:
 * the reader frees it, e.g. by calling its own close, since core calls no
 * reader_close after a reader_open that failed).
 */
int tk_reader_text_open(tk_reader *r, size_t size, unsigned cr_kind,
			const char *cr_error, tk_error *err);

/* The formats and exports themselves are declared and listed in
 * src/registry.c, above src/formats/ and src/exports/. */

#endif /* TK_INTERNAL_H */
