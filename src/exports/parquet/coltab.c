/*
 * coltab.c - a table of typed columns as one Apache Parquet file (coltab.h),
 * written after the Parquet format specification: "PAR1", the column
 * chunks of each row group, the footer (FileMetaData in Thrift's compact
 * protocol), its length, "PAR1".
 *
 * Values are kept column by column until a page is full (page_max rows):
 * an INT64 or DOUBLE as its 64 bits, a string as its index in the column's
 * dictionary (built as the values come, reset per row group), with a
 * definition level per row.  Then each column's values become a data page
 * (v1), compressed with zstd (zlevel()) and kept with the column's other
 * pages of the row group: for a string the indices (RLE_DICTIONARY), the
 * bit width that of the dictionary so far; for a delta INT64
 * DELTA_BINARY_PACKED; for another INT64 indices in a dictionary as a
 * string's while the chunk's values repeat in a narrow span (i64_dict()),
 * else PLAIN; the definition levels of an optional column in the
 * RLE/bit-packed hybrid.  When the row group is full, each column is
 * written as one column chunk: its dictionary page (PLAIN), then its data
 * pages.  The statistics (null count, min, max) of each column chunk go in
 * the footer, written at close with the chunks' places and sizes.
 *
 * Memory: 9 bytes per value of the open page, the compressed pages and
 * the dictionaries of the open row group, 4 bytes per value of the widest
 * span an INT64 dictionary took, the encoded values of one delta-encoded
 * column's page (when the next is delta-encoded too), and the metadata
 * (statistics included) of each column chunk written.
 */
#include "coltab.h"

#include "../../core/bytes.h"
#include "../../core/hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* for ZSTD_c_literalCompressionMode, used only with the very version of
 * the library built against (struct tk_coltab's lit_only) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#define STAT_MAX 1024  /* the longest string kept as a min or max */

/* Parquet's physical types, repetitions, encodings, page types (parquet.thrift) */
enum { PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { CODEC_ZSTD = 6 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA = 5, ENC_RLE_DICT = 8 };
enum { PAGE_DATA = 0, PAGE_DICT = 2 };
/* Thrift compact protocol's field types */
enum { CT_I32 = 5, CT_I64 = 6, CT_BINARY = 8, CT_LIST = 9, CT_STRUCT = 12 };

typedef struct pq_buf {
	uint8_t *p;
	size_t len, cap;
	int failed;
} pq_buf;

/* a written column chunk, for the footer */
typedef struct pq_chunk {
	uint64_t offset;        /* of its first page header */
	uint64_t dict_offset;   /* of its dictionary page (has_dict) */
	uint64_t data_offset;   /* of its data page */
	uint64_t size;          /* its pages with their headers, as written */
	uint64_t usize;         /* the same with the pages uncompressed */
	uint64_t nulls;
	uint64_t vmin, vmax;    /* statistics of an INT64 or DOUBLE (bits) */
	int has_stat;           /* vmin, vmax set */
	uint8_t *min, *max;     /* of a string column (NULL: none) */
	size_t nmin, nmax;
	unsigned encs;          /* its data pages' encodings (ENC_BIT) */
	int has_dict;
} pq_chunk;

/* an encoding's bit in pq_chunk.encs */
#define ENC_BIT(e) (1u << (e))

/* a column of the open row group */
typedef struct pq_col {
	tk_colvals v;           /* first: the values, filled in line */
	uint64_t vmin, vmax;
	int has_stat, nan;
	/* a string column's dictionary: its values PLAIN (length, bytes),
	 * where each starts, and an index by hash of those of SHORT_KEY or
	 * more bytes; those under SHORT_KEY are keys of dshort themselves
	 * (short_key()), so that finding one reads no entry's bytes */
	pq_buf dict;
	size_t *doff;
	size_t doff_cap, ndict;
	tk_hashmap dmap, dshort;
	/* values of tk_coltab_str() under SHORT_KEY bytes not yet looked up:
	 * their short_key() | DEFERRED, looked up when the group is written
	 * (resolve_short()), all at once, the index then in the cache */
	size_t ndefer;
	/* an INT64 column's dictionary: 1 + the index of value ibase + k,
	 * for k up to ispan; imode: 0 not yet tried in the open chunk, 1 its
	 * pages so far are indices, 2 PLAIN from here on */
	uint32_t *imap;
	size_t imap_cap;
	uint64_t ibase, ispan;
	int imode;
	/* the open column chunk: its data pages as written (headers and
	 * zstd frames), their size uncompressed, its values and nulls so far */
	pq_buf pages;
	pq_chunk ch;
	uint64_t cvals;
} pq_col;

struct tk_coltab {
	tk_sink *sink;
	const char *name, *schema;
	const tk_colspec *spec;
	size_t ncols;
	pq_col *cols;
	size_t nrows;           /* of the open row group */
	size_t group_max;
	size_t prows;           /* of the open page */
	size_t page_max;
	int failed;             /* out of memory since the last row */
	pq_chunk *chunks;       /* ncols per row group */
	uint64_t *group_rows;
	size_t ngroups, groups_cap;
	uint64_t total_rows;
	uint64_t off;           /* bytes written so far */
	pq_buf page, zpage, hdr, foot;
	pq_buf dout;            /* a dictionary page as written */
	/* the last delta-encoded column's page, as encoded (its values from
	 * dprev_at on) and compressed, kept when the next column is
	 * delta-encoded too: a time in ns that is the time in ticks is
	 * encoded once, and compressed once when the two pages are the same */
	pq_buf dpage, dzpage;
	size_t dprev_at;
	size_t dprev_col;       /* the column that may take them, + 1 (0: none) */
	ZSTD_CCtx *zc;
	int level;              /* zstd's level for the pages */
	/* the delta pages' frames with hardly a match looked for at all and
	 * their literals Huffman-coded (zstd's literalCompressionMode, of its
	 * experimental API, whose number is fixed for a version: used only
	 * when the library loaded is the one built against) */
	int lit_only;
};

/* ---- byte buffers and Thrift's compact protocol -------------------------- */

static void buf_need(pq_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed || b->cap - b->len >= n)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->failed = 1;
			return;
		}
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void buf_put(pq_buf *b, const void *p, size_t n)
{
	buf_need(b, n);
	if (b->failed || !n)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void buf_byte(pq_buf *b, uint8_t v)
{
	buf_put(b, &v, 1);
}

static void buf_le32(pq_buf *b, uint32_t v)
{
	uint8_t x[4];

	tk_store_le32(x, v);
	buf_put(b, x, 4);
}

static void buf_varint(pq_buf *b, uint64_t v)
{
	while (v >= 0x80) {
		buf_byte(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	buf_byte(b, (uint8_t)v);
}

/* a compact-protocol writer: the last field id of each open struct */
typedef struct th {
	pq_buf *b;
	int16_t last[8];
	int depth;
} th;

static void th_field(th *t, int id, int type)
{
	int delta = id - t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		buf_byte(t->b, (uint8_t)(delta << 4 | type));
	} else {
		buf_byte(t->b, (uint8_t)type);
		buf_varint(t->b, (uint64_t)(((uint32_t)id << 1) ^ (uint32_t)(id >> 15)));
	}
	t->last[t->depth] = (int16_t)id;
}

static void th_zigzag(th *t, int64_t v)
{
	buf_varint(t->b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void th_i32(th *t, int id, int32_t v)
{
	th_field(t, id, CT_I32);
	th_zigzag(t, v);
}

static void th_i64(th *t, int id, int64_t v)
{
	th_field(t, id, CT_I64);
	th_zigzag(t, v);
}

static void th_bin(th *t, int id, const void *p, size_t n)
{
	th_field(t, id, CT_BINARY);
	buf_varint(t->b, n);
	buf_put(t->b, p, n);
}

static void th_str(th *t, int id, const char *s)
{
	th_bin(t, id, s, strlen(s));
}

static void th_list(th *t, int id, int elem, size_t n)
{
	th_field(t, id, CT_LIST);
	if (n < 15) {
		buf_byte(t->b, (uint8_t)(n << 4 | (size_t)elem));
	} else {
		buf_byte(t->b, (uint8_t)(0xf0 | elem));
		buf_varint(t->b, n);
	}
}

/* a struct as a field (id > 0) or as a list element (id == 0) */
static void th_begin(th *t, int id)
{
	if (id)
		th_field(t, id, CT_STRUCT);
	t->last[++t->depth] = 0;
}

static void th_end(th *t)
{
	buf_byte(t->b, 0);
	t->depth--;
}

/* ---- the values ---------------------------------------------------------- */

static int out_put(tk_coltab *t, const pq_buf *b, tk_error *err)
{
	if (b->failed)
		return tk_err_nomem(err, t->name);
	if (tk_sink_write(t->sink, b->p, b->len, err) < 0)
		return TK_E_IO;
	t->off += b->len;
	return TK_OK;
}

/* rows a column holds on the heap (where a table after it reuses the
 * memory); past them (pages of more rows) its arrays take the page's
 * whole size at once
 * in huge pages (tk_bigbuf_alloc()), of which only the part written
 * becomes resident: fresh memory costs a fault a page, and each move to
 * a larger array would touch it all again */
#define HEAP_ROWS 65536u

/* the arrays of c moved to `cap` rows in huge pages: 0, or -1 */
static int colvals_big(tk_colvals *c, size_t cap)
{
	uint8_t *d = NULL;
	uint64_t *v = NULL;

	if (cap <= SIZE_MAX / sizeof(*v)) {
		d = c->optional ? tk_bigbuf_alloc(cap) : NULL;
		v = tk_bigbuf_alloc(cap * sizeof(*v));
	}
	if ((c->optional && !d) || !v) {
		tk_bigbuf_free(d);
		tk_bigbuf_free(v);
		return -1;
	}
	if (d && c->nrows)
		memcpy(d, c->def, c->nrows);
	if (c->nv)
		memcpy(v, c->vals, c->nv * sizeof(*v));
	if (c->big) {
		tk_bigbuf_free(c->def);
		tk_bigbuf_free(c->vals);
	} else {
		free(c->def);
		free(c->vals);
	}
	c->def = d;
	c->vals = v;
	c->big = 1;
	return 0;
}

/* the arrays of c `cap` rows long (the page's rows at once past
 * HEAP_ROWS): 0, or -1 (*failed set) */
static int colvals_resize(tk_colvals *c, size_t cap)
{
	uint8_t *d;
	uint64_t *v;

	if (cap > HEAP_ROWS || c->big) {
		if (cap < c->max_rows)
			cap = c->max_rows;
		if (colvals_big(c, cap) < 0)
			goto fail;
	} else {
		/* (a required column keeps no definition levels) */
		if (c->optional) {
			d = realloc(c->def, cap);
			if (!d)
				goto fail;
			c->def = d;
		}
		v = tk_xrealloc_array(c->vals, cap, sizeof(*v));
		if (!v)
			goto fail;
		c->vals = v;
	}
	c->cap = cap;
	return 0;
fail:
	*c->failed = 1;
	return -1;
}

/* the arrays of c twice as long: 0, or -1 (*failed set) */
static int colvals_double(tk_colvals *c)
{
	if (c->cap > SIZE_MAX / 16) {
		*c->failed = 1;
		return -1;
	}
	return colvals_resize(c, c->cap ? c->cap * 2 : 1024);
}

int tk_colvals_grow(tk_colvals *c)
{
	return c->nrows < c->cap ? 0 : colvals_double(c);
}

tk_colvals *tk_coltab_vals(tk_coltab *t, size_t ci)
{
	return &t->cols[ci].v;
}

static void put_value(tk_coltab *t, size_t ci, uint64_t bits)
{
	tk_colvals_i64(&t->cols[ci].v, (int64_t)bits);
}

/* an INT64's statistics are taken when its column is written */
void tk_coltab_i64(tk_coltab *t, size_t ci, int64_t v)
{
	put_value(t, ci, (uint64_t)v);
}

/* the min and max of the values of an INT64 column's open page (nv > 0)
 * in *lo and *hi, and in the chunk's statistics */
static void i64_stat(pq_col *c, int64_t *lo_out, int64_t *hi_out)
{
	const uint64_t *vals = c->v.vals;
	int64_t lo = (int64_t)vals[0], hi = lo, lo2 = lo, hi2 = lo;
	size_t i, n = c->v.nv;

	/* two chains of compares, each half as long */
	for (i = 1; i + 2 <= n; i += 2) {
		int64_t v = (int64_t)vals[i], w = (int64_t)vals[i + 1];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		lo2 = w < lo2 ? w : lo2;
		hi2 = w > hi2 ? w : hi2;
	}
	if (i < n) {
		int64_t v = (int64_t)vals[i];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	lo = lo2 < lo ? lo2 : lo;
	hi = hi2 > hi ? hi2 : hi;
	*lo_out = lo;
	*hi_out = hi;
	if (c->has_stat) {
		lo = (int64_t)c->vmin < lo ? (int64_t)c->vmin : lo;
		hi = (int64_t)c->vmax > hi ? (int64_t)c->vmax : hi;
	}
	c->vmin = (uint64_t)lo;
	c->vmax = (uint64_t)hi;
	c->has_stat = 1;
}

static uint64_t f64_bits(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return b;
}

static double bits_f64(uint64_t b)
{
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

void tk_coltab_f64(tk_coltab *t, size_t ci, double v)
{
	pq_col *c = &t->cols[ci];

	if (v != v) {
		c->nan = 1; /* no min or max then */
	} else {
		if (v == 0)
			v = 0.0; /* -0.0 as 0.0: one zero in the statistics */
		if (!c->has_stat || v < bits_f64(c->vmin))
			c->vmin = f64_bits(v);
		if (!c->has_stat || v > bits_f64(c->vmax))
			c->vmax = f64_bits(v);
		c->has_stat = 1;
	}
	put_value(t, ci, f64_bits(v));
}

void tk_coltab_null(tk_coltab *t, size_t ci)
{
	tk_colvals_null(&t->cols[ci].v);
}

/* the strings of under SHORT_KEY bytes are their own keys in a column's
 * dshort: the bytes and the length in one word, distinct for distinct
 * strings */
#define SHORT_KEY 8

static inline uint64_t short_key(const char *s, size_t n)
{
	const uint8_t *u = (const uint8_t *)s;
	uint64_t k = 0;

	/* the n bytes (n < 8) in the low bytes, little-endian: loaded
	 * whole (two words that overlap for 4 to 7; first, middle and last
	 * for 1 to 3), not copied to a buffer and loaded again */
	if (n >= 4)
		k = tk_load_le32(s) |
		    (uint64_t)tk_load_le32(s + n - 4) << (8 * (n - 4));
	else if (n)
		k = u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) |
		    (uint64_t)u[n - 1] << (8 * (n - 1));
	return k | ((uint64_t)n << 56);
}

/* a new entry of column c's dictionary (its index), the string s of n
 * bytes; -1 when out of memory */
static int64_t dict_add(pq_col *c, const char *s, size_t n)
{
	if (n > UINT32_MAX || c->ndict >= UINT32_MAX ||
	    tk_grow_zero((void **)&c->doff, &c->doff_cap, c->ndict,
			 sizeof(*c->doff)) < 0)
		return -1;
	/* the entry: its length in 4 bytes, then its bytes */
	buf_need(&c->dict, 4 + n);
	if (c->dict.failed)
		return -1;
	c->doff[c->ndict] = c->dict.len;
	tk_store_le32(c->dict.p + c->dict.len, (uint32_t)n);
	if (n)
		memcpy(c->dict.p + c->dict.len + 4, s, n);
	c->dict.len += 4 + n;
	return (int64_t)c->ndict++;
}

/* the index of the string of under SHORT_KEY bytes whose short_key() is
 * key in column c's dictionary, else a new entry; -1 when out of memory */
static int64_t dict_short(pq_col *c, uint64_t key)
{
	uint8_t b[8];
	int created;
	uint32_t *v = tk_hashmap_slot(&c->dshort, key, &created);
	int64_t k;

	if (!v)
		return -1;
	if (!created)
		return *v;
	tk_store_le64(b, key);
	if ((k = dict_add(c, (const char *)b, (size_t)(key >> 56))) < 0) {
		tk_hashmap_del(&c->dshort, key);
		return -1;
	}
	*v = (uint32_t)k; /* (dshort has had no insertion since) */
	return k;
}

/* a string's slot in column c's dictionary: its index, else a new entry;
 * -1 when out of memory */
static int64_t dict_index(pq_col *c, const char *s, size_t n)
{
	uint64_t h = n;
	size_t i;
	uint32_t at;

	if (n < SHORT_KEY)
		return dict_short(c, short_key(s, n));
	for (i = 0; i + 8 <= n; i += 8)
		h = tk_hash64(h ^ tk_load_le64(s + i));
	if (i < n) {
		uint8_t tail[8] = { 0 };
		memcpy(tail, s + i, n - i);
		h = tk_hash64(h ^ tk_load_le64(tail) ^ 0x80);
	}
	for (at = tk_hashmap_first(&c->dmap, h); at != TK_HASHMAP_END;
	     at = tk_hashmap_next(&c->dmap, h, at)) {
		uint32_t k = c->dmap.slots[at].val;
		uint32_t len = tk_load_le32(c->dict.p + c->doff[k]);

		if (len == n && memcmp(c->dict.p + c->doff[k] + 4, s, n) == 0)
			return k;
	}
	if (c->ndict >= UINT32_MAX ||
	    tk_hashmap_add(&c->dmap, h, (uint32_t)c->ndict) < 0)
		return -1;
	return dict_add(c, s, n);
}

/* a value of tk_coltab_str() not yet looked up (a dictionary index is
 * under 2^32, a short key under 2^59) */
#define DEFERRED ((uint64_t)1 << 63)

/* the deferred values of column c as their dictionary indices: 0, or -1
 * when out of memory */
static int resolve_short(pq_col *c)
{
	/* the slot of the value RESOLVE_AHEAD on asked of the cache while
	 * this one is looked up (a dictionary of many strings, the notes of
	 * signals, is larger than the cache, and the keys are in no order) */
	enum { RESOLVE_AHEAD = 16 };
	uint64_t *vals = c->v.vals;
	const tk_hashmap *m = &c->dshort;
	size_t i, nv = c->v.nv;

	for (i = 0; i < nv; i++) {
		uint64_t x = vals[i];
		uint32_t k;

		if (i + RESOLVE_AHEAD < nv && m->slots &&
		    (vals[i + RESOLVE_AHEAD] & DEFERRED))
			TK_PREFETCH(&m->slots[tk_hashmap_home(m, vals[i + RESOLVE_AHEAD] & ~DEFERRED)]);
		if (!(x & DEFERRED))
			continue;
		k = tk_hashmap_get(m, x & ~DEFERRED);
		if (k == TK_NONE) {
			int64_t nk = dict_short(c, x & ~DEFERRED);

			if (nk < 0)
				return -1;
			k = (uint32_t)nk;
		}
		vals[i] = k;
	}
	c->ndefer = 0;
	return 0;
}

void tk_coltab_str(tk_coltab *t, size_t ci, const char *s, size_t n)
{
	int64_t k;

	if (n < SHORT_KEY) {
		t->cols[ci].ndefer++;
		put_value(t, ci, short_key(s, n) | DEFERRED);
		return;
	}
	k = dict_index(&t->cols[ci], s, n);

	if (k < 0) {
		t->failed = 1;
		return;
	}
	put_value(t, ci, (uint64_t)k);
}

int tk_coltab_str_hit(tk_coltab *t, size_t ci, uint32_t id)
{
	return tk_colvals_str_hit(&t->cols[ci].v, id);
}

void tk_coltab_str_id(tk_coltab *t, size_t ci, uint32_t id, const char *s,
		      size_t n)
{
	pq_col *c = &t->cols[ci];
	int64_t k;

	if (tk_colvals_str_hit(&c->v, id))
		return;
	k = dict_index(c, s, n);
	if (k < 0 || k >= UINT32_MAX ||
	    tk_grow_zero((void **)&c->v.idk, &c->v.idk_cap, id,
			 sizeof(*c->v.idk)) < 0) {
		t->failed = 1;
		return;
	}
	c->v.idk[id] = (uint32_t)k + 1;
	put_value(t, ci, (uint64_t)k);
}

/* values packed LSB first, `width` bits each (0 to 64, every value
 * below 2^width), `n` of them: 64 bits stored at a time */
static void put_packed(pq_buf *b, const uint64_t *v, size_t n, unsigned width)
{
	tk_u128 acc = 0;
	unsigned bits = 0;
	size_t i, nbytes = (n * width + 7) / 8;
	uint8_t *o;

	buf_need(b, nbytes + 8);
	if (b->failed)
		return;
	o = b->p + b->len;
	if (width == 8 || width == 16 || width == 24 || width == 32) {
		/* whole bytes: each value's low bytes as they are */
		size_t w = width / 8;

		for (i = 0; i < n; i++, o += w)
			tk_store_le32(o, (uint32_t)v[i]);
		b->len += nbytes;
		return;
	}
	if (width == 1 || width == 2 || width == 4) {
		/* 8 / width values a byte, the first in the low bits */
		unsigned per = 8 / width, k;

		for (i = 0; i + per <= n; i += per) {
			unsigned byte = 0;

			for (k = 0; k < per; k++)
				byte |= (unsigned)v[i + k] << (k * width);
			*o++ = (uint8_t)byte;
		}
		if (i < n) {
			unsigned byte = 0;

			for (k = 0; i + k < n; k++)
				byte |= (unsigned)v[i + k] << (k * width);
			*o = (uint8_t)byte;
		}
		b->len += nbytes;
		return;
	}
	if (width)
		for (i = 0; i < n; i++) {
			acc |= (tk_u128)v[i] << bits;
			bits += width;
			if (bits >= 64) {
				tk_store_le64(o, (uint64_t)acc);
				o += 8;
				acc >>= 64;
				bits -= 64;
			}
		}
	if (bits)  /* the last bytes: 8 stored, the buffer has room */
		tk_store_le64(o, (uint64_t)acc);
	b->len += nbytes;
}

static unsigned bit_width(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* the bit width of the indices of a dictionary of n entries (n > 0): 1,
 * 2, 4 or whole bytes, so that a value never straddles a byte in a way
 * that changes from one value to the next (zstd matches such bytes far
 * better than odd widths) */
static unsigned index_width(size_t n)
{
	unsigned w = bit_width(n - 1);

	return w <= 1 ? 1 : w <= 2 ? 2 : w <= 4 ? 4 : (w + 7) / 8 * 8;
}

/* dictionary indices in the RLE/bit-packed hybrid, after their bit width:
 * a run of 8 or more equal values as a run, the rest bit-packed by 8 (the
 * last group padded with zeros) */
static void put_indices(pq_buf *b, const uint64_t *v, size_t n, unsigned width)
{
	size_t i = 0, j, k;
	uint64_t pad[8];

	buf_byte(b, (uint8_t)width);
	while (i < n) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i >= 8) {
			buf_varint(b, (uint64_t)(j - i) << 1);
			for (k = 0; k < (width + 7) / 8; k++)
				buf_byte(b, (uint8_t)(v[i] >> (8 * k)));
			i = j;
			continue;
		}
		/* groups of 8 up to a run of 8 or the end (a group's 8 values
		 * compared at once: one branch a group, taken only at a run) */
		for (j = i + 8; j + 8 <= n; j += 8) {
			uint64_t x = 0;

			for (k = 1; k < 8; k++)
				x |= v[j + k] ^ v[j];
			if (x == 0)
				break;
		}
		if (j < n && j + 8 > n)
			j += 8;  /* the last group, short */
		buf_varint(b, (uint64_t)((j - i + 7) / 8) << 1 | 1);
		if (j <= n) {
			put_packed(b, v + i, j - i, width);
		} else {
			put_packed(b, v + i, (n - i) / 8 * 8, width);
			memset(pad, 0, sizeof(pad));
			memcpy(pad, v + i + (n - i) / 8 * 8,
			       (n - i) % 8 * sizeof(*pad));
			put_packed(b, pad, 8, width);
		}
		i = j;
	}
}

/* DELTA_BINARY_PACKED: blocks of 128 values in 4 miniblocks of 32 */
static void put_delta(pq_buf *b, const uint64_t *v, size_t n)
{
	uint64_t d[128];
	size_t i, k, m;

	buf_varint(b, 128);
	buf_varint(b, 4);
	buf_varint(b, n);
	buf_varint(b, n ? (v[0] << 1) ^ (uint64_t)((int64_t)v[0] >> 63) : 0);
	for (i = 1; i < n; i += 128) {
		size_t cnt = n - i < 128 ? n - i : 128;
		int64_t mind = INT64_MAX;
		uint64_t any[4] = { 0, 0, 0, 0 };
		uint8_t widths[4];

		/* the deltas (modulo 2^64, as the readers add them) */
		for (k = 0; k < cnt; k++) {
			d[k] = v[i + k] - v[i + k - 1];
			if ((int64_t)d[k] < mind)
				mind = (int64_t)d[k];
		}
		for (k = 0; k < cnt; k++)
			d[k] -= (uint64_t)mind;
		for (; k < 128; k++)
			d[k] = 0;
		/* a miniblock's width: that of the OR of its values */
		for (m = 0; m < 4; m++)
			for (k = m * 32; k < m * 32 + 32; k++)
				any[m] |= d[k];
		for (m = 0; m < 4; m++)
			widths[m] = (uint8_t)bit_width(any[m]);
		buf_varint(b, ((uint64_t)mind << 1) ^ (uint64_t)(mind >> 63));
		buf_put(b, widths, 4);
		for (m = 0; m < 4 && m * 32 < cnt; m++)
			put_packed(b, d + m * 32, 32, widths[m]);
	}
}

/* zstd's level for a page: the table's; under level 10, 1 for the
 * delta-encoded times' pages (bit-packed deltas, which the levels up to
 * 9 do not shrink more than 1 does, only slower), 2 below the table's
 * (at least 1) for the pages of DOUBLE values PLAIN (the levels above
 * shrink them little for their time) and 3 below (at least 1) for the
 * dictionary pages (which levels 3 to 5 shrink less than 2 does) and
 * the pages of dictionary indices (level 3 shrinks them by a thirteenth
 * more than 2, for an eighth more time) */
static int zlevel(const tk_coltab *t, int dict, int enc, int f64)
{
	if (t->level >= 10)
		return t->level;
	if (dict || enc == ENC_RLE_DICT)
		return t->level > 4 ? t->level - 3 : 1;
	if (enc == ENC_DELTA)
		return 1;
	if (f64)
		return t->level > 3 ? t->level - 2 : 1;
	return t->level;
}

/* a page compressed into t->zpage at `level`; a delta page under level
 * 10 with level 1's parameters but for a matcher that hardly looks for
 * matches (a 64-entry table, 7 bytes or more; with lit_only, a step of
 * about 1,000 bytes between the positions tried, the literals still
 * Huffman-coded, which zstd's fast
 * matcher otherwise turns off when it skips positions): bit-packed deltas
 * repeat little, zstd shrinks them by their bytes' entropy, and its
 * search only costs time (the same size or smaller, faster) */
static int compress_page(tk_coltab *t, const pq_buf *pg, int level,
			 int delta, tk_error *err)
{
	size_t zn;

	t->zpage.len = 0;
	buf_need(&t->zpage, ZSTD_compressBound(pg->len));
	if (t->zpage.failed)
		return tk_err_nomem(err, t->name);
	if (delta && level == 1) {
		ZSTD_CCtx_reset(t->zc, ZSTD_reset_session_and_parameters);
		if (ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_compressionLevel, 1)) ||
		    ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_windowLog, 17)) ||
		    ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_hashLog, 6)) ||
		    ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_chainLog, 6)) ||
		    ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_minMatch, 7)) ||
		    ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_strategy, ZSTD_fast)))
			goto fail;
		if (t->lit_only &&
		    (ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_targetLength, 1024)) ||
		     ZSTD_isError(zn = ZSTD_CCtx_setParameter(t->zc, ZSTD_c_literalCompressionMode, ZSTD_ps_enable))))
			goto fail;
		zn = ZSTD_compress2(t->zc, t->zpage.p, t->zpage.cap, pg->p, pg->len);
		ZSTD_CCtx_reset(t->zc, ZSTD_reset_session_and_parameters);
	} else {
		zn = ZSTD_compressCCtx(t->zc, t->zpage.p, t->zpage.cap, pg->p,
				       pg->len, level);
	}
	if (ZSTD_isError(zn))
		goto fail;
	t->zpage.len = zn;
	return TK_OK;
fail:
	return tk_err_set(err, TK_E_IO, t->name, 0, 0, "zstd: %s",
			  ZSTD_getErrorName(zn));
}

/* the page of t->page, compressed (unless `same`: then t->zpage holds it
 * compressed already), after its header, appended to `out`; adds to ch's
 * sizes */
static int write_page(tk_coltab *t, int dict, size_t nvalues, int enc,
		      int f64, int same, pq_buf *out, pq_chunk *ch,
		      tk_error *err)
{
	pq_buf *pg = &t->page;
	th h = { &t->hdr, { 0 }, 0 };
	size_t zn;
	int rc;

	if (pg->failed)
		return tk_err_nomem(err, t->name);
	if (pg->len > INT32_MAX || nvalues > INT32_MAX)
		return tk_err_set(err, TK_E_RANGE, t->name, 0, 0,
				  "a Parquet page over 2 GiB");
	t->hdr.len = 0;
	if (!same &&
	    (rc = compress_page(t, pg, zlevel(t, dict, enc, f64),
				!dict && enc == ENC_DELTA, err)) < 0)
		return rc;
	zn = t->zpage.len;
	/* PageHeader */
	th_i32(&h, 1, dict ? PAGE_DICT : PAGE_DATA);
	th_i32(&h, 2, (int32_t)pg->len);
	th_i32(&h, 3, (int32_t)zn);
	if (dict) {
		th_begin(&h, 7);
		th_i32(&h, 1, (int32_t)nvalues);
		th_i32(&h, 2, ENC_PLAIN);
		th_end(&h);
	} else {
		th_begin(&h, 5);
		th_i32(&h, 1, (int32_t)nvalues);
		th_i32(&h, 2, enc);
		th_i32(&h, 3, ENC_RLE);
		th_i32(&h, 4, ENC_RLE);
		th_end(&h);
	}
	buf_byte(h.b, 0);
	buf_put(out, t->hdr.p, t->hdr.len);
	buf_put(out, t->zpage.p, zn);
	if (t->hdr.failed || out->failed)
		return tk_err_nomem(err, t->name);
	ch->size += t->hdr.len + zn;
	ch->usize += t->hdr.len + pg->len;
	return TK_OK;
}

/* keep a min or max of a column chunk */
static int keep_stat(pq_chunk *ch, int max, const void *p, size_t n)
{
	uint8_t **dst = max ? &ch->max : &ch->min;
	uint8_t *c = malloc(n ? n : 1);

	if (!c)
		return -1;
	if (n)
		memcpy(c, p, n);
	free(*dst);
	*dst = c;
	if (max)
		ch->nmax = n;
	else
		ch->nmin = n;
	return 0;
}

static int bytes_cmp(const void *a, size_t na, const void *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : (na > nb) - (na < nb);
}

/* the length of the run of equal levels at def[i] (i < n), up to n */
static size_t level_run(const uint8_t *def, size_t i, size_t n)
{
	uint64_t pat = def[i] * 0x0101010101010101ull, x;
	size_t j = i + 1;

	/* 8 levels at a time: the first that differs is the lowest byte of
	 * x that is not 0 */
	for (; j + 8 <= n; j += 8)
		if ((x = tk_load_le64(def + j) ^ pat) != 0)
			return j + (size_t)(__builtin_ctzll(x) / 8) - i;
	while (j < n && def[j] == def[i])
		j++;
	return j - i;
}

/* definition levels of an optional column (0 null, 1 a value) in the
 * RLE/bit-packed hybrid (bit width 1), after their length in 4 bytes: a
 * run of LEVEL_RUN or more equal levels as a run, the rest bit-packed by
 * 8 (the last group padded with zeros) */
#define LEVEL_RUN 32
static void put_levels(pq_buf *b, const uint8_t *def, size_t n)
{
	size_t at, i = 0, j, k;

	buf_le32(b, 0);
	at = b->len;
	while (i < n) {
		size_t run = level_run(def, i, n);

		if (run >= LEVEL_RUN) {
			buf_varint(b, (uint64_t)run << 1);
			buf_byte(b, def[i]);
			i += run;
			continue;
		}
		/* groups of 8 up to a run of LEVEL_RUN at a group's start */
		for (j = i + 8; j < n && level_run(def, j, n) < LEVEL_RUN; j += 8)
			;
		if (j > n)
			j = n;
		buf_varint(b, (uint64_t)((j - i + 7) / 8) << 1 | 1);
		for (; i < j; i += 8) {
			uint8_t v = 0;

			for (k = 0; k < 8 && i + k < j; k++)
				v |= (uint8_t)(def[i + k] << k);
			buf_byte(b, v);
		}
		i = j;
	}
	if (!b->failed)
		tk_store_le32(b->p + at - 4, (uint32_t)(b->len - at));
}

/* the values of an INT64 column's open page (nv > 0, from lo to hi) as
 * indices in the column chunk's dictionary, while the chunk's values so
 * far span under I64_DICT_SPAN (and at most 4 per value, plus 4096) and
 * repeat (fewer distinct values than half the values): 1 (c->v.vals the
 * indices, c->dict the distinct values PLAIN in their first row's order,
 * c->ndict their count), 0 (left as they are; the chunk's later pages
 * PLAIN too), -1 (out of memory) */
#define I64_DICT_SPAN ((uint64_t)1 << 20)
static int i64_dict(pq_col *c, int64_t lo, int64_t hi)
{
	uint64_t base = (uint64_t)lo, top = (uint64_t)hi, span, k, shift = 0;
	size_t i, n = c->ndict;
	uint32_t *map;
	uint8_t *d;

	if (c->imode == 2)
		return 0;
	if (c->imode == 1) {
		if (lo > (int64_t)c->ibase)
			base = c->ibase;
		if (hi < (int64_t)(c->ibase + c->ispan))
			top = c->ibase + c->ispan;
	}
	span = top - base;
	if (span >= I64_DICT_SPAN ||
	    span > 4 * (c->cvals + (uint64_t)c->v.nv) + 4096) {
		c->imode = 2;
		return 0;
	}
	if (c->imap_cap <= span) {
		map = tk_xrealloc_array(c->imap, (size_t)span + 1, sizeof(*map));
		if (!map)
			return -1;
		c->imap = map;
		c->imap_cap = (size_t)span + 1;
	}
	map = c->imap;
	if (c->imode == 0) {
		memset(map, 0, ((size_t)span + 1) * sizeof(*map));
	} else {
		/* the span so far moved up by `shift`, zeros around it */
		shift = c->ibase - base;
		if (shift) {
			memmove(map + shift, map, ((size_t)c->ispan + 1) * sizeof(*map));
			memset(map, 0, (size_t)shift * sizeof(*map));
		}
		memset(map + shift + c->ispan + 1, 0,
		       (size_t)(span - shift - c->ispan) * sizeof(*map));
	}
	c->ibase = base;
	c->ispan = span;
	c->imode = 1;
	buf_need(&c->dict, 8 * (span + 1 < c->v.nv ? (size_t)span + 1 : c->v.nv));
	if (c->dict.failed)
		return -1;
	d = c->dict.p;
	for (i = 0; i < c->v.nv; i++) {
		k = c->v.vals[i] - base;
		if (!map[k]) {
			tk_store_le64(d + 8 * n, c->v.vals[i]);
			map[k] = (uint32_t)++n;
		}
		c->v.vals[i] = map[k] - 1;
	}
	if ((uint64_t)n * 2 > c->cvals + c->v.nv) {
		/* mostly distinct: this page and the next ones PLAIN (the
		 * map keeps this page's values, never read again in this
		 * chunk) */
		for (i = 0; i < c->v.nv; i++)
			c->v.vals[i] = tk_load_le64(d + 8 * c->v.vals[i]);
		c->imode = 2;
		return 0;
	}
	c->dict.len = 8 * n;
	c->ndict = n;
	return 1;
}

/* the rows of column ci's open page as a data page of its chunk (in
 * c->pages); the page emptied */
static int write_data_page(tk_coltab *t, size_t ci, tk_error *err)
{
	const tk_colspec *sp = &t->spec[ci];
	pq_col *c = &t->cols[ci];
	pq_buf *pg = &t->page;
	int64_t lo, hi;
	int enc, rc, same = 0, keep = 0;
	size_t i;

	/* every column has had one value a row (checked here, not per row) */
	if (c->v.nrows != t->prows)
		return tk_err_set(err, TK_E_USAGE, t->name, 0, 0,
				  "rows %llu to %llu: %llu values in column %s",
				  (unsigned long long)(t->total_rows + t->nrows - t->prows) + 1,
				  (unsigned long long)(t->total_rows + t->nrows),
				  (unsigned long long)c->v.nrows, sp->name);
	pg->len = 0;
	pg->failed = 0;
	if (sp->optional)
		put_levels(pg, c->v.def, c->v.nrows);
	if (sp->type == TK_COL_STR && c->ndefer && resolve_short(c) < 0)
		return tk_err_nomem(err, t->name);
	rc = 0;
	if (sp->type == TK_COL_I64 && c->v.nv) {
		i64_stat(c, &lo, &hi);
		if (!sp->delta && (rc = i64_dict(c, lo, hi)) < 0)
			return tk_err_nomem(err, t->name);
	}
	if (c->v.nv && (sp->type == TK_COL_STR || rc > 0)) {
		put_indices(pg, c->v.vals, c->v.nv, index_width(c->ndict));
		enc = ENC_RLE_DICT;
	} else if (sp->type == TK_COL_I64 && sp->delta) {
		const pq_col *pc = ci ? &t->cols[ci - 1] : NULL;
		size_t at = pg->len;

		if (t->dprev_col == ci + 1 && pc && c->v.nv &&
		    memcmp(pc->v.vals, c->v.vals, c->v.nv * sizeof(*c->v.vals)) == 0) {
			/* the previous column's values, encoded as they were */
			buf_put(pg, t->dpage.p + t->dprev_at,
				t->dpage.len - t->dprev_at);
			/* and the same page: compressed as it was */
			same = !pg->failed && pg->len == t->dpage.len &&
			       memcmp(pg->p, t->dpage.p, at) == 0;
		} else {
			put_delta(pg, c->v.vals, c->v.nv);
		}
		keep = ci + 1 < t->ncols && t->spec[ci + 1].type == TK_COL_I64 &&
		       t->spec[ci + 1].delta && t->cols[ci + 1].v.nv == c->v.nv;
		t->dprev_at = at;
		enc = ENC_DELTA;
	} else {
		buf_need(pg, c->v.nv * 8);
		if (!pg->failed) {
			for (i = 0; i < c->v.nv; i++)
				tk_store_le64(pg->p + pg->len + 8 * i, c->v.vals[i]);
			pg->len += c->v.nv * 8;
		}
		enc = ENC_PLAIN;
	}
	if (same) {
		pq_buf z = t->zpage;

		t->zpage = t->dzpage;
		t->dzpage = z;
	}
	rc = write_page(t, 0, c->v.nrows, enc, sp->type == TK_COL_F64, same,
			&c->pages, &c->ch, err);
	t->dprev_col = 0;
	if (rc == TK_OK && keep) {
		/* the page and its frame kept for the next column (the
		 * buffers swapped, not copied) */
		pq_buf b = t->page;

		t->page = t->dpage;
		t->dpage = b;
		b = t->zpage;
		t->zpage = t->dzpage;
		t->dzpage = b;
		t->dprev_col = ci + 2;
	}
	c->ch.encs |= ENC_BIT(enc);
	c->ch.nulls += c->v.nulls;
	c->cvals += c->v.nv;
	c->v.nrows = c->v.nv = 0;
	c->v.nulls = 0;
	return rc;
}

/* the open page of every column */
static int cut_page(tk_coltab *t, tk_error *err)
{
	size_t c;
	int rc;

	for (c = 0; c < t->ncols; c++)
		if ((rc = write_data_page(t, c, err)) < 0)
			return rc;
	t->prows = 0;
	return TK_OK;
}

/* column ci of the row group as its column chunk: its dictionary page,
 * when it has one, then its data pages; the column's chunk emptied */
static int write_chunk(tk_coltab *t, size_t ci, pq_chunk *ch, tk_error *err)
{
	const tk_colspec *sp = &t->spec[ci];
	pq_col *c = &t->cols[ci];
	pq_buf *pg = &t->page;
	int rc = TK_OK;

	*ch = c->ch;
	ch->offset = t->off;
	ch->vmin = c->vmin;
	ch->vmax = c->vmax;
	ch->has_stat = c->has_stat && !c->nan;
	if (sp->type == TK_COL_STR && c->ndict) {
		/* the statistics from the dictionary */
		size_t k;

		for (k = 0; k < c->ndict; k++) {
			const uint8_t *sv = c->dict.p + c->doff[k] + 4;
			size_t n = tk_load_le32(c->dict.p + c->doff[k]);

			if ((k == 0 || bytes_cmp(sv, n, ch->min, ch->nmin) < 0) &&
			    keep_stat(ch, 0, sv, n) < 0)
				return tk_err_nomem(err, t->name);
			if ((k == 0 || bytes_cmp(sv, n, ch->max, ch->nmax) > 0) &&
			    keep_stat(ch, 1, sv, n) < 0)
				return tk_err_nomem(err, t->name);
		}
	}
	if (c->ndict) {
		/* the dictionary page: its values PLAIN */
		pg->len = 0;
		pg->failed = 0;
		buf_put(pg, c->dict.p, c->dict.len);
		t->dout.len = 0;
		t->dout.failed = 0;
		ch->dict_offset = t->off;
		ch->has_dict = 1;
		if ((rc = write_page(t, 1, c->ndict, 0, 0, 0, &t->dout, ch, err)) < 0 ||
		    (rc = out_put(t, &t->dout, err)) < 0)
			return rc;
	}
	ch->data_offset = t->off;
	rc = out_put(t, &c->pages, err);
	c->pages.len = 0;
	memset(&c->ch, 0, sizeof(c->ch));
	c->cvals = 0;
	c->imode = 0;
	c->has_stat = c->nan = 0;
	c->ndict = 0;
	c->dict.len = 0;
	if (c->v.idk)  /* the next group's dictionary starts empty */
		memset(c->v.idk, 0, c->v.idk_cap * sizeof(*c->v.idk));
	if (rc == TK_OK && sp->type == TK_COL_STR &&
	    (tk_hashmap_reset(&c->dmap, 1024) < 0 ||
	     tk_hashmap_reset(&c->dshort, 1024) < 0))
		rc = tk_err_nomem(err, t->name);
	return rc;
}

static int flush_group(tk_coltab *t, tk_error *err)
{
	size_t c;
	int rc;

	if (t->prows && (rc = cut_page(t, err)) < 0)
		return rc;
	if (!t->nrows)
		return TK_OK;
	if (t->ngroups >= t->groups_cap) {
		size_t cap = t->groups_cap ? t->groups_cap * 2 : 8;
		pq_chunk *ch = tk_xrealloc_array(t->chunks, cap,
						 t->ncols * sizeof(*ch));
		uint64_t *gr;

		if (!ch)
			return tk_err_nomem(err, t->name);
		memset(ch + t->groups_cap * t->ncols, 0,
		       (cap - t->groups_cap) * t->ncols * sizeof(*ch));
		t->chunks = ch;
		gr = tk_xrealloc_array(t->group_rows, cap, sizeof(*gr));
		if (!gr)
			return tk_err_nomem(err, t->name);
		t->group_rows = gr;
		t->groups_cap = cap;
	}
	for (c = 0; c < t->ncols; c++) {
		rc = write_chunk(t, c, &t->chunks[t->ngroups * t->ncols + c],
				 err);
		if (rc < 0)
			return rc;
	}
	t->group_rows[t->ngroups++] = t->nrows;
	t->total_rows += t->nrows;
	t->nrows = 0;
	return TK_OK;
}

/* ---- the table ----------------------------------------------------------- */

int tk_coltab_open(tk_coltab **out, tk_sink *sink, const char *name,
		   const char *schema, const tk_colspec *cols, size_t ncols,
		   size_t group_rows, tk_error *err)
{
	static const char magic[4] = { 'P', 'A', 'R', '1' };
	tk_coltab *t = calloc(1, sizeof(*t));
	pq_buf b = { NULL, 0, 0, 0 };
	size_t c;
	int rc;

	*out = t;
	if (!t)
		return tk_err_nomem(err, name);
	t->sink = sink;
	t->name = name;
	t->schema = schema;
	t->spec = cols;
	t->ncols = ncols;
	t->group_max = group_rows ? group_rows : TK_COLTAB_ROWS;
	t->page_max = TK_COLTAB_PAGE_ROWS;
	t->level = TK_COLTAB_ZSTD;
	t->cols = calloc(ncols ? ncols : 1, sizeof(*t->cols));
	t->zc = ZSTD_createCCtx();
	t->lit_only = ZSTD_versionNumber() == ZSTD_VERSION_NUMBER;
	if (!t->cols || !t->zc)
		return tk_err_nomem(err, name);
	tk_hash_init();
	for (c = 0; c < ncols; c++) {
		tk_hashmap_init(&t->cols[c].dmap);
		tk_hashmap_init(&t->cols[c].dshort);
		t->cols[c].v.failed = &t->failed;
		t->cols[c].v.max_rows = t->page_max;
		t->cols[c].v.optional = cols[c].optional;
		if (cols[c].type == TK_COL_STR &&
		    (tk_hashmap_reset(&t->cols[c].dmap, 1024) < 0 ||
		     tk_hashmap_reset(&t->cols[c].dshort, 1024) < 0))
			return tk_err_nomem(err, name);
	}
	buf_put(&b, magic, 4);
	rc = out_put(t, &b, err);
	free(b.p);
	return rc;
}

size_t tk_coltab_room(const tk_coltab *t)
{
	size_t p = t->page_max - t->prows, g = t->group_max - t->nrows;

	return p < g ? p : g;
}

int tk_coltab_reserve(tk_coltab *t, size_t n)
{
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		tk_colvals *v = &t->cols[c].v;

		/* a caller by batches fills the page: room for all its rows
		 * at once (no array copied as it doubles) */
		if (v->cap - v->nrows < n &&
		    colvals_resize(v, v->nrows + n > v->max_rows ?
					 v->nrows + n : v->max_rows) < 0)
			return -1;
	}
	return 0;
}

int tk_coltab_rows_end(tk_coltab *t, size_t n, tk_error *err)
{
	if (t->failed)
		return tk_err_nomem(err, t->name);
	t->nrows += n;
	t->prows += n;
	if (t->nrows >= t->group_max)
		return flush_group(t, err);
	if (t->prows >= t->page_max)
		return cut_page(t, err);
	return TK_OK;
}

int tk_coltab_row(tk_coltab *t, tk_error *err)
{
	if (t->failed)
		return tk_err_nomem(err, t->name);
	t->nrows++;
	t->prows++;
	if (t->nrows >= t->group_max)
		return flush_group(t, err);
	if (t->prows >= t->page_max)
		return cut_page(t, err);
	return TK_OK;
}

void tk_coltab_set_page(tk_coltab *t, size_t rows)
{
	size_t c;

	t->page_max = rows ? rows : TK_COLTAB_PAGE_ROWS;
	for (c = 0; c < t->ncols; c++)
		t->cols[c].v.max_rows = t->page_max;
}

void tk_coltab_set_zstd(tk_coltab *t, int level)
{
	t->level = level;
}

uint64_t tk_coltab_rows(const tk_coltab *t)
{
	return t->total_rows + t->nrows;
}

/* the encodings of column chunk ch in encs[], in the order written (the
 * dictionary's, the levels', the data pages'): their count */
static int chunk_encodings(const pq_chunk *ch, int encs[4])
{
	static const int data[3] = { ENC_PLAIN, ENC_DELTA, ENC_RLE_DICT };
	int n = 0, k;

	if (ch->has_dict)
		encs[n++] = ENC_PLAIN;
	encs[n++] = ENC_RLE;
	for (k = 0; k < 3; k++)
		if ((ch->encs & ENC_BIT(data[k])) &&
		    !(ch->has_dict && data[k] == ENC_PLAIN))
			encs[n++] = data[k];
	return n;
}

static int ptype(tk_coltype ty)
{
	return ty == TK_COL_STR ? PT_BYTE_ARRAY : ty == TK_COL_F64 ? PT_DOUBLE
								   : PT_INT64;
}

int tk_coltab_close(tk_coltab *t, const tk_colkv *kv, size_t nkv,
		    tk_error *err)
{
	pq_buf *b = &t->foot;
	th h = { b, { 0 }, 0 };
	size_t g, c, i;
	int rc, encs[4];

	if (t->failed)
		return tk_err_nomem(err, t->name);
	if ((rc = flush_group(t, err)) < 0)
		return rc;
	b->len = 0;
	th_i32(&h, 1, 1);
	/* the schema: the root, then the columns */
	th_list(&h, 2, CT_STRUCT, t->ncols + 1);
	th_begin(&h, 0);
	th_str(&h, 4, t->schema);
	th_i32(&h, 5, (int32_t)t->ncols);
	th_end(&h);
	for (c = 0; c < t->ncols; c++) {
		th_begin(&h, 0);
		th_i32(&h, 1, ptype(t->spec[c].type));
		th_i32(&h, 3, t->spec[c].optional ? REP_OPTIONAL : REP_REQUIRED);
		th_str(&h, 4, t->spec[c].name);
		if (t->spec[c].type == TK_COL_STR) {
			th_i32(&h, 6, 0); /* ConvertedType UTF8 */
			th_begin(&h, 10); /* LogicalType: STRING */
			th_begin(&h, 1);
			th_end(&h);
			th_end(&h);
		}
		th_end(&h);
	}
	th_i64(&h, 3, (int64_t)t->total_rows);
	th_list(&h, 4, CT_STRUCT, t->ngroups);
	for (g = 0; g < t->ngroups; g++) {
		uint64_t bytes = 0, ubytes = 0;

		for (c = 0; c < t->ncols; c++) {
			bytes += t->chunks[g * t->ncols + c].size;
			ubytes += t->chunks[g * t->ncols + c].usize;
		}
		th_begin(&h, 0);
		th_list(&h, 1, CT_STRUCT, t->ncols);
		for (c = 0; c < t->ncols; c++) {
			const pq_chunk *ch = &t->chunks[g * t->ncols + c];
			const char *nm = t->spec[c].name;

			th_begin(&h, 0);
			th_i64(&h, 2, (int64_t)ch->offset);
			th_begin(&h, 3);
			th_i32(&h, 1, ptype(t->spec[c].type));
			th_list(&h, 2, CT_I32, (size_t)chunk_encodings(ch, encs));
			for (i = 0; i < (size_t)chunk_encodings(ch, encs); i++)
				th_zigzag(&h, encs[i]);
			th_list(&h, 3, CT_BINARY, 1);
			buf_varint(b, strlen(nm));
			buf_put(b, nm, strlen(nm));
			th_i32(&h, 4, CODEC_ZSTD);
			th_i64(&h, 5, (int64_t)t->group_rows[g]);
			th_i64(&h, 6, (int64_t)ch->usize);
			th_i64(&h, 7, (int64_t)ch->size);
			th_i64(&h, 9, (int64_t)ch->data_offset);
			if (ch->has_dict)
				th_i64(&h, 11, (int64_t)ch->dict_offset);
			th_begin(&h, 12); /* Statistics */
			th_i64(&h, 3, (int64_t)ch->nulls);
			if (t->spec[c].type != TK_COL_STR && ch->has_stat) {
				uint8_t x[8];

				tk_store_le64(x, ch->vmax);
				th_bin(&h, 5, x, 8);
				tk_store_le64(x, ch->vmin);
				th_bin(&h, 6, x, 8);
			} else if (ch->min && ch->max && ch->nmin <= STAT_MAX &&
				   ch->nmax <= STAT_MAX) {
				th_bin(&h, 5, ch->max, ch->nmax);
				th_bin(&h, 6, ch->min, ch->nmin);
			}
			th_end(&h);
			th_end(&h);
			th_end(&h);
		}
		th_i64(&h, 2, (int64_t)ubytes);
		th_i64(&h, 3, (int64_t)t->group_rows[g]);
		th_i64(&h, 5, (int64_t)t->chunks[g * t->ncols].offset);
		th_i64(&h, 6, (int64_t)bytes);
		th_field(&h, 7, 4); /* i16 ordinal */
		th_zigzag(&h, (int64_t)g);
		th_end(&h);
	}
	if (nkv) {
		th_list(&h, 5, CT_STRUCT, nkv);
		for (i = 0; i < nkv; i++) {
			th_begin(&h, 0);
			th_str(&h, 1, kv[i].key);
			th_bin(&h, 2, kv[i].val ? kv[i].val : "", kv[i].len);
			th_end(&h);
		}
	}
	th_str(&h, 6, "tracekit");
	/* column orders: each column's type's own (min_value, max_value) */
	th_list(&h, 7, CT_STRUCT, t->ncols);
	for (c = 0; c < t->ncols; c++) {
		th_begin(&h, 0);
		th_begin(&h, 1);
		th_end(&h);
		th_end(&h);
	}
	buf_byte(b, 0);
	{
		size_t flen = b->len;
		buf_le32(b, (uint32_t)flen);
		buf_put(b, "PAR1", 4);
	}
	return out_put(t, b, err);
}

void tk_coltab_free(tk_coltab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->chunks && i < t->groups_cap * t->ncols; i++) {
		free(t->chunks[i].min);
		free(t->chunks[i].max);
	}
	for (i = 0; t->cols && i < t->ncols; i++) {
		if (t->cols[i].v.big) {
			tk_bigbuf_free(t->cols[i].v.def);
			tk_bigbuf_free(t->cols[i].v.vals);
		} else {
			free(t->cols[i].v.def);
			free(t->cols[i].v.vals);
		}
		free(t->cols[i].dict.p);
		free(t->cols[i].doff);
		tk_hashmap_free(&t->cols[i].dmap);
		tk_hashmap_free(&t->cols[i].dshort);
		free(t->cols[i].v.idk);
		free(t->cols[i].imap);
		free(t->cols[i].pages.p);
	}
	free(t->cols);
	free(t->chunks);
	free(t->group_rows);
	ZSTD_freeCCtx(t->zc);
	free(t->page.p);
	free(t->zpage.p);
	free(t->hdr.p);
	free(t->foot.p);
	free(t->dout.p);
	free(t->dpage.p);
	free(t->dzpage.p);
	free(t);
}
