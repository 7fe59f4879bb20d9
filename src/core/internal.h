/*
 * internal.h - what the library's parts share and the public API hides:
 * the string pool, the trace object, byte sources and sinks, and the table
 * of functions a format implements.
 */
#ifndef TK_INTERNAL_H
#define TK_INTERNAL_H

#include "tracekit/tracekit.h"

#include <stdarg.h>
#include <stdbool.h>

#if defined(__GNUC__) || defined(__clang__)
#define TK_LIKELY(x) __builtin_expect(!!(x), 1)
#define TK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TK_LIKELY(x) (x)
#define TK_UNLIKELY(x) (x)
#define TK_PRINTF(a, b)
#endif

/* ---- errors ------------------------------------------------------------- */

/** Fill `err` (may be NULL) and return `code`. */
int tk_err_set(tk_error *err, int code, const char *input, uint64_t line,
	       uint32_t column, const char *fmt, ...) TK_PRINTF(6, 7);
/** As tk_err_set, with a byte offset instead of a line and column. */
int tk_err_set_at(tk_error *err, int code, const char *input,
		  uint64_t offset, const char *fmt, ...) TK_PRINTF(5, 6);
/** Like tk_err_set() for out of memory. */
int tk_err_nomem(tk_error *err, const char *input);

/* ---- small helpers ------------------------------------------------------ */

void *tk_xrealloc_array(void *p, size_t n, size_t size); /* NULL on overflow/OOM */
int tk_ascii_casecmp(const char *a, size_t alen, const char *b);
/** 1 if the n bytes at a and b are equal ignoring ASCII case. */
int tk_ascii_ncaseeq(const char *a, const char *b, size_t n);

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
	tk_strslot *slots;    /* open addressing */
	uint32_t mask;
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

/* ---- trace -------------------------------------------------------------- */

struct tk_trace {
	const char *format;
	tk_timebase tb;
	tk_strpool pool;
	tk_header_entry *hdr;
	size_t nhdr, caphdr;
	tk_entity *ents;
	uint32_t nents, capents;
	uint32_t *ent_of_str;   /* per string id: entity id or TK_NONE */
	uint32_t cap_ent_of_str;
};

tk_trace *tk_trace_new(const char *format);
void tk_trace_free(tk_trace *t);
int tk_trace_add_header(tk_trace *t, tk_hdr_kind kind, const char *key,
			size_t klen, const char *value, size_t vlen,
			int has_value);
/** The entity for interned name `name`, created (type unknown) if absent. */
uint32_t tk_trace_entity_get(tk_trace *t, tk_str name);
/** The entity named `name`, created if absent; TK_NONE on out of memory. */
uint32_t tk_trace_entity_intern(tk_trace *t, const char *name, size_t len);

/* ---- byte sources ------------------------------------------------------- */

/*
 * A source hands out a window of decoded bytes.  Plain files are mapped, so
 * the window is the whole file and never moves; pipes and compressed inputs
 * are read into a buffer that tk_source_fill() extends (it may move the
 * unconsumed bytes to the front, so pointers into the window die at a fill).
 */
typedef struct tk_source tk_source;

int tk_source_open(tk_source **out, const char *path, tk_error *err);
int tk_source_open_mem(tk_source **out, const void *data, size_t len,
		       const char *name, tk_error *err);
void tk_source_close(tk_source *s);
const char *tk_source_name(const tk_source *s);
/** The unconsumed bytes. */
const uint8_t *tk_source_window(const tk_source *s, size_t *avail);
void tk_source_consume(tk_source *s, size_t n);
/** Decoded offset of the window's first byte. */
uint64_t tk_source_offset(const tk_source *s);
/**
 * Read more: returns 1 if bytes were added, 0 at the end of input, or a
 * negative status.  `want` is a hint of how many unconsumed bytes are needed.
 */
int tk_source_fill(tk_source *s, size_t want, tk_error *err);
/** True once the end of input has been reached (window is all there is). */
bool tk_source_eof(const tk_source *s);
/** Name of the transport ("file", "stdin", "gzip", "zstd", "memory"). */
const char *tk_source_transport(const tk_source *s);

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
} tk_sink;

int tk_sink_open(tk_sink *s, const char *path, tk_error *err);
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

/* Decimal formatting, for writers' hot paths.  Return the length. */
size_t tk_fmt_u64(char *out, uint64_t v);
size_t tk_fmt_i64(char *out, int64_t v);

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
};

struct tk_writer {
	const tk_format_ops *fmt;
	const tk_trace *trace;
	tk_writer_opts opts;
	tk_sink sink;
	void *impl;
};

struct tk_format_ops {
	tk_format_info info;
	/** 0: not this format; higher is more certain (100: magic matched). */
	int (*probe)(const uint8_t *buf, size_t len);
	int (*reader_open)(tk_reader *r, tk_error *err);
	int (*reader_next)(tk_reader *r, const tk_event **ev, tk_error *err);
	void (*reader_close)(tk_reader *r);
	int (*writer_open)(tk_writer *w, tk_error *err);
	int (*writer_write)(tk_writer *w, const tk_event *ev, tk_error *err);
	int (*writer_close)(tk_writer *w, tk_error *err);
	void (*writer_free)(tk_writer *w);
};

const tk_format_ops *tk_format_ops_find(const char *name);
const tk_format_ops *tk_format_ops_get(size_t i);

/**
 * Report a warning of kind `kind` (0..63, one per distinct departure from
 * the spec): counted always, passed to the callback the first time.
 */
void tk_reader_warn(tk_reader *r, unsigned kind, uint64_t line,
		    uint32_t column, const char *fmt, ...) TK_PRINTF(5, 6);

/* The formats (one per folder under src/formats/). */
extern const tk_format_ops tk_format_btf;

#endif /* TK_INTERNAL_H */
