/*
 * parquet_writer.c - the events of one trace as an Apache Parquet file
 * (docs/exports.md has the schema), written after the Parquet format
 * specification: "PAR1", the column chunks of each row group, the footer
 * (FileMetaData in Thrift's compact protocol), its length, "PAR1".
 *
 * Rows are kept in memory until a row group is full (ROWS rows, or the
 * writer option row-group=N) or the
 * trace ends; then each column is written as one column chunk: for a
 * string column a dictionary page (PLAIN) and a data page of indices
 * (RLE_DICTIONARY), for the times a data page DELTA_BINARY_PACKED, for
 * the instances PLAIN; the definition levels of the optional columns in
 * the RLE/bit-packed hybrid; every page (v1) compressed with zstd.  The
 * statistics (null count, min, max) of each column chunk go in the footer.  The column chunks' places and sizes are kept for the footer,
 * written at close.  Everything goes through the sink, so a failed run
 * leaves no file.
 *
 * Memory: one row record per event of the open row group, its notes, the
 * dictionary of the column being written, and the metadata (statistics
 * included) of each column chunk written.
 */
#include "../../core/bytes.h"
#include "../../core/hashmap.h"
#include "../../core/internal.h"

#include <stdio.h>
#include <zstd.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 1048576u  /* rows per row group (row-group=N: fewer) */
#define NCOLS 10
#define ZLEVEL 3       /* zstd's level for the pages */
#define STAT_MAX 1024  /* the longest string kept as a min or max */

/* Parquet's physical types, repetitions, encodings, page types (parquet.thrift) */
enum { PT_INT64 = 2, PT_BYTE_ARRAY = 6 };
enum { CODEC_ZSTD = 6 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA = 5, ENC_RLE_DICT = 8 };
enum { PAGE_DATA = 0, PAGE_DICT = 2 };
/* Thrift compact protocol's field types */
enum { CT_I32 = 5, CT_I64 = 6, CT_BINARY = 8, CT_LIST = 9, CT_STRUCT = 12 };

/* a column: what it is and where its values come from */
enum { C_TIME, C_NS, C_SOURCE, C_SINST, C_TYPE, C_TARGET, C_TINST, C_EVENT,
       C_NOTE, C_CORE };
static const struct {
	const char *name;
	int type, rep;
} cols[NCOLS] = {
	{ "time", PT_INT64, REP_REQUIRED },
	{ "time_ns", PT_INT64, REP_OPTIONAL },
	{ "source", PT_BYTE_ARRAY, REP_REQUIRED },
	{ "source_instance", PT_INT64, REP_OPTIONAL },
	{ "type", PT_BYTE_ARRAY, REP_REQUIRED },
	{ "target", PT_BYTE_ARRAY, REP_REQUIRED },
	{ "instance", PT_INT64, REP_OPTIONAL },
	{ "event", PT_BYTE_ARRAY, REP_REQUIRED },
	{ "note", PT_BYTE_ARRAY, REP_OPTIONAL },
	{ "core", PT_BYTE_ARRAY, REP_OPTIONAL },
};

/* one event waiting for its row group */
typedef struct pq_row {
	uint64_t time;
	uint64_t ns;
	int64_t sinst, tinst;
	uint32_t source, target, core;
	tk_str type_name, name;
	tk_etype type;
	tk_evkind kind;
	uint64_t note_off;      /* in notes[]; UINT64_MAX: no note */
	uint32_t note_len;
	uint8_t has_ns;
} pq_row;

/* a written column chunk, for the footer */
typedef struct pq_chunk {
	uint64_t offset;        /* of its first page header */
	uint64_t dict_offset;   /* of its dictionary page (has_dict) */
	uint64_t data_offset;   /* of its data page */
	uint64_t size;          /* its pages with their headers, as written */
	uint64_t usize;         /* the same with the pages uncompressed */
	uint64_t nulls;
	int64_t imin, imax;     /* statistics of an INT64 column */
	uint8_t *min, *max;     /* of a string column (NULL: none) */
	size_t nmin, nmax;
	int enc;                /* the data page's encoding */
	int has_dict;
} pq_chunk;

typedef struct pq_buf {
	uint8_t *p;
	size_t len, cap;
	int failed;
} pq_buf;

typedef struct pq_writer {
	const char *name;
	pq_row *rows;
	size_t nrows, rows_cap;
	size_t group_max;       /* rows per row group */
	char *notes;
	size_t notes_len, notes_cap;
	pq_chunk *chunks;       /* NCOLS per row group */
	uint64_t *group_rows;
	size_t ngroups, groups_cap;
	uint64_t total_rows;
	uint64_t off;           /* bytes written so far */
	pq_buf page, zpage, hdr, foot;
	/* the dictionary of the column chunk being written: its values
	 * PLAIN (length, bytes), where each starts, and an index by hash */
	pq_buf dict;
	size_t *doff;
	size_t doff_cap, ndict;
	tk_hashmap dmap;
	ZSTD_CCtx *zc;
	tk_timebase tb, ns_tb;
	int ns_ok;              /* ticks have an SI unit */
} pq_writer;

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

static void buf_le64(pq_buf *b, uint64_t v)
{
	uint8_t x[8];

	tk_store_le64(x, v);
	buf_put(b, x, 8);
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

/* ---- the rows ------------------------------------------------------------ */

static int out_put(tk_writer *w, const pq_buf *b, tk_error *err)
{
	pq_writer *pw = w->impl;

	if (b->failed)
		return tk_err_nomem(err, pw->name);
	if (tk_sink_write(&w->sink, b->p, b->len, err) < 0)
		return TK_E_IO;
	pw->off += b->len;
	return TK_OK;
}

/* definition levels of an optional column: runs of 0 (null) and 1 in the
 * RLE/bit-packed hybrid (bit width 1), after their length in 4 bytes */
static void put_levels(pq_buf *b, const uint8_t *def, size_t n)
{
	size_t at, i = 0, j;

	buf_le32(b, 0);
	at = b->len;
	while (i < n) {
		for (j = i; j < n && def[j] == def[i]; j++)
			;
		buf_varint(b, (uint64_t)(j - i) << 1);
		buf_byte(b, def[i]);
		i = j;
	}
	if (!b->failed)
		tk_store_le32(b->p + at - 4, (uint32_t)(b->len - at));
}

/* the text of column c of row r (a string column), UTF-8 as the writer's
 * rule makes it; *present 0 for a null */
static int row_text(tk_writer *w, const pq_row *r, int c, const char **s,
		    size_t *n, int *present, tk_error *err)
{
	pq_writer *pw = w->impl;
	const tk_entity *e;
	uint32_t id = TK_NONE;

	*present = 1;
	switch (c) {
	case C_SOURCE: id = r->source; break;
	case C_TARGET: id = r->target; break;
	case C_CORE:
		if (r->core == TK_NONE) {
			*present = 0;
			return TK_OK;
		}
		id = r->core;
		break;
	case C_TYPE: /* as written, else the model's name (as cat) */
		if (r->type_name != TK_NONE) {
			*s = tk_trace_str(w->trace, r->type_name, n);
		} else {
			*s = tk_etype_name(r->type);
			*n = strlen(*s);
		}
		break;
	case C_EVENT:
		if (r->name != TK_NONE) {
			*s = tk_trace_str(w->trace, r->name, n);
		} else {
			*s = tk_evkind_name(r->kind);
			*n = strlen(*s);
		}
		break;
	case C_NOTE:
		if (r->note_off == UINT64_MAX) {
			*present = 0;
			return TK_OK;
		}
		*s = pw->notes + r->note_off;
		*n = r->note_len;
		break;
	default:
		break;
	}
	if (id != TK_NONE) {
		e = tk_trace_entity(w->trace, id);
		*s = e ? tk_trace_str(w->trace, e->name, n) : "";
		if (!e)
			*n = 0;
	}
	if (!*s) {
		*s = "";
		*n = 0;
	}
	return tk_writer_text(w, *s, *n, s, n, err);
}

/* values packed LSB first, `width` bits each (0 to 64), `n` of them */
static void put_packed(pq_buf *b, const uint64_t *v, size_t n, unsigned width)
{
	tk_u128 acc = 0;
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		acc |= (tk_u128)v[i] << bits;
		bits += width;
		while (bits >= 8) {
			buf_byte(b, (uint8_t)acc);
			acc >>= 8;
			bits -= 8;
		}
	}
	if (bits)
		buf_byte(b, (uint8_t)acc);
}

static unsigned bit_width(uint64_t v)
{
	unsigned w = 0;

	while (v) {
		w++;
		v >>= 1;
	}
	return w;
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
		/* groups of 8 up to a run of 8 or the end */
		for (j = i; j < n; j += 8) {
			size_t r;

			for (r = j; r < n && v[r] == v[j]; r++)
				;
			if (j > i && r - j >= 8)
				break;
		}
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
static void put_delta(pq_buf *b, const int64_t *v, size_t n)
{
	uint64_t d[128];
	size_t i, k, m;

	buf_varint(b, 128);
	buf_varint(b, 4);
	buf_varint(b, n);
	buf_varint(b, n ? ((uint64_t)v[0] << 1) ^ (uint64_t)(v[0] >> 63) : 0);
	for (i = 1; i < n; i += 128) {
		size_t cnt = n - i < 128 ? n - i : 128;
		int64_t mind = INT64_MAX;
		uint8_t widths[4] = { 0, 0, 0, 0 };

		for (k = 0; k < cnt; k++) {
			int64_t dk = (int64_t)((uint64_t)v[i + k] -
					       (uint64_t)v[i + k - 1]);
			if (dk < mind)
				mind = dk;
		}
		for (k = 0; k < 128; k++)
			d[k] = k < cnt ? (uint64_t)v[i + k] - (uint64_t)v[i + k - 1] -
					 (uint64_t)mind
				       : 0;
		for (m = 0; m < 4; m++)
			for (k = m * 32; k < m * 32 + 32; k++)
				if (bit_width(d[k]) > widths[m])
					widths[m] = (uint8_t)bit_width(d[k]);
		buf_varint(b, ((uint64_t)mind << 1) ^ (uint64_t)(mind >> 63));
		buf_put(b, widths, 4);
		for (m = 0; m < 4 && m * 32 < cnt; m++)
			put_packed(b, d + m * 32, 32, widths[m]);
	}
}

/* a page of pw->page, compressed, with its header; adds to ch's sizes */
static int write_page(tk_writer *w, int dict, size_t nvalues, int enc,
		      pq_chunk *ch, tk_error *err)
{
	pq_writer *pw = w->impl;
	pq_buf *pg = &pw->page;
	th t = { &pw->hdr, { 0 }, 0 };
	size_t zn;
	uint64_t at = pw->off;
	int rc;

	if (pg->failed)
		return tk_err_nomem(err, pw->name);
	if (pg->len > INT32_MAX || nvalues > INT32_MAX)
		return tk_err_set(err, TK_E_RANGE, pw->name, 0, 0,
				  "a Parquet page over 2 GiB");
	pw->hdr.len = 0;
	pw->zpage.len = 0;
	buf_need(&pw->zpage, ZSTD_compressBound(pg->len));
	if (pw->zpage.failed)
		return tk_err_nomem(err, pw->name);
	zn = ZSTD_compressCCtx(pw->zc, pw->zpage.p, pw->zpage.cap, pg->p,
			       pg->len, ZLEVEL);
	if (ZSTD_isError(zn))
		return tk_err_set(err, TK_E_IO, pw->name, 0, 0, "zstd: %s",
				  ZSTD_getErrorName(zn));
	pw->zpage.len = zn;
	/* PageHeader */
	th_i32(&t, 1, dict ? PAGE_DICT : PAGE_DATA);
	th_i32(&t, 2, (int32_t)pg->len);
	th_i32(&t, 3, (int32_t)zn);
	if (dict) {
		th_begin(&t, 7);
		th_i32(&t, 1, (int32_t)nvalues);
		th_i32(&t, 2, ENC_PLAIN);
		th_end(&t);
	} else {
		th_begin(&t, 5);
		th_i32(&t, 1, (int32_t)nvalues);
		th_i32(&t, 2, enc);
		th_i32(&t, 3, ENC_RLE);
		th_i32(&t, 4, ENC_RLE);
		th_end(&t);
	}
	buf_byte(t.b, 0);
	if ((rc = out_put(w, &pw->hdr, err)) < 0 ||
	    (rc = out_put(w, &pw->zpage, err)) < 0)
		return rc;
	ch->size += pw->off - at;
	ch->usize += pw->hdr.len + pg->len;
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

/* a string's slot in the dictionary being built: its index, else a new
 * entry; -1 when out of memory */
static int64_t dict_index(pq_writer *pw, const char *s, size_t n)
{
	uint64_t h = n;
	size_t i;
	uint32_t at;

	for (i = 0; i + 8 <= n; i += 8)
		h = tk_hash64(h ^ tk_load_le64(s + i));
	if (i < n) {
		uint8_t tail[8] = { 0 };
		memcpy(tail, s + i, n - i);
		h = tk_hash64(h ^ tk_load_le64(tail) ^ 0x80);
	}
	for (at = tk_hashmap_first(&pw->dmap, h); at != TK_HASHMAP_END;
	     at = tk_hashmap_next(&pw->dmap, h, at)) {
		uint32_t k = pw->dmap.slots[at].val;
		uint32_t len = tk_load_le32(pw->dict.p + pw->doff[k]);

		if (len == n && memcmp(pw->dict.p + pw->doff[k] + 4, s, n) == 0)
			return k;
	}
	if (tk_grow_zero((void **)&pw->doff, &pw->doff_cap, pw->ndict,
			 sizeof(*pw->doff)) < 0 ||
	    tk_hashmap_add(&pw->dmap, h, (uint32_t)pw->ndict) < 0)
		return -1;
	pw->doff[pw->ndict] = pw->dict.len;
	buf_le32(&pw->dict, (uint32_t)n);
	buf_put(&pw->dict, s, n);
	if (pw->dict.failed)
		return -1;
	return (int64_t)pw->ndict++;
}

/* one column of the open row group: a column chunk of one data page,
 * after its dictionary page for a string column */
static int write_column(tk_writer *w, int c, pq_chunk *ch, tk_error *err)
{
	pq_writer *pw = w->impl;
	pq_buf *pg = &pw->page;
	uint8_t *def = NULL;
	uint64_t *vals = NULL;
	size_t i, nv = 0;
	int rc = TK_OK, str = cols[c].type == PT_BYTE_ARRAY;

	memset(ch, 0, sizeof(*ch));
	ch->offset = pw->off;
	def = calloc(pw->nrows ? pw->nrows : 1, 1);
	vals = malloc((pw->nrows ? pw->nrows : 1) * sizeof(*vals));
	if (!def || !vals) {
		rc = tk_err_nomem(err, pw->name);
		goto out;
	}
	pw->ndict = 0;
	pw->dict.len = 0;
	if (str && tk_hashmap_reset(&pw->dmap, 1024) < 0) {
		rc = tk_err_nomem(err, pw->name);
		goto out;
	}
	/* the values: integers, or a string's index in the dictionary */
	for (i = 0; i < pw->nrows; i++) {
		const pq_row *r = &pw->rows[i];
		const char *sv = NULL;
		size_t n = 0;
		int present = 1;
		int64_t v = 0;

		switch (c) {
		case C_TIME: v = (int64_t)r->time; break;
		case C_NS: present = r->has_ns; v = (int64_t)r->ns; break;
		case C_SINST: present = r->sinst != TK_INST_NONE; v = r->sinst; break;
		case C_TINST: present = r->tinst != TK_INST_NONE; v = r->tinst; break;
		default:
			rc = row_text(w, r, c, &sv, &n, &present, err);
			if (rc < 0)
				goto out;
			if (!present)
				break;
			v = dict_index(pw, sv, n);
			if (v < 0) {
				rc = tk_err_nomem(err, pw->name);
				goto out;
			}
			break;
		}
		def[i] = (uint8_t)present;
		if (!present) {
			ch->nulls++;
			continue;
		}
		vals[nv++] = (uint64_t)v;
		if (!str && (nv == 1 || v < ch->imin))
			ch->imin = v;
		if (!str && (nv == 1 || v > ch->imax))
			ch->imax = v;
	}
	if (str && pw->ndict) {
		/* the dictionary page: its values PLAIN; the statistics from it */
		size_t k;

		for (k = 0; k < pw->ndict; k++) {
			const uint8_t *sv = pw->dict.p + pw->doff[k] + 4;
			size_t n = tk_load_le32(pw->dict.p + pw->doff[k]);

			if ((k == 0 || bytes_cmp(sv, n, ch->min, ch->nmin) < 0) &&
			    keep_stat(ch, 0, sv, n) < 0)
				goto nomem;
			if ((k == 0 || bytes_cmp(sv, n, ch->max, ch->nmax) > 0) &&
			    keep_stat(ch, 1, sv, n) < 0)
				goto nomem;
		}
		pg->len = 0;
		pg->failed = 0;
		buf_put(pg, pw->dict.p, pw->dict.len);
		if (pw->dict.failed)
			goto nomem;
		ch->dict_offset = pw->off;
		ch->has_dict = 1;
		rc = write_page(w, 1, pw->ndict, 0, ch, err);
		if (rc < 0)
			goto out;
	}
	ch->data_offset = pw->off;
	pg->len = 0;
	if (cols[c].rep == REP_OPTIONAL)
		put_levels(pg, def, pw->nrows);
	if (str && pw->ndict) {
		put_indices(pg, vals, nv, bit_width(pw->ndict - 1) ? bit_width(pw->ndict - 1) : 1);
		ch->enc = ENC_RLE_DICT;
	} else if (c == C_TIME || c == C_NS) {
		put_delta(pg, (const int64_t *)vals, nv);
		ch->enc = ENC_DELTA;
	} else {
		for (i = 0; i < nv; i++)
			buf_le64(pg, vals[i]);
		ch->enc = ENC_PLAIN;
	}
	rc = write_page(w, 0, pw->nrows, ch->enc, ch, err);
	goto out;
nomem:
	rc = tk_err_nomem(err, pw->name);
out:
	free(def);
	free(vals);
	return rc;
}

static int flush_group(tk_writer *w, tk_error *err)
{
	pq_writer *pw = w->impl;
	int c, rc;

	if (!pw->nrows)
		return TK_OK;
	if (pw->ngroups >= pw->groups_cap) {
		size_t cap = pw->groups_cap ? pw->groups_cap * 2 : 8;
		pq_chunk *ch = tk_xrealloc_array(pw->chunks, cap,
						 NCOLS * sizeof(*ch));
		uint64_t *gr;

		if (!ch)
			return tk_err_nomem(err, pw->name);
		memset(ch + pw->groups_cap * NCOLS, 0,
		       (cap - pw->groups_cap) * NCOLS * sizeof(*ch));
		pw->chunks = ch;
		gr = tk_xrealloc_array(pw->group_rows, cap, sizeof(*gr));
		if (!gr)
			return tk_err_nomem(err, pw->name);
		pw->group_rows = gr;
		pw->groups_cap = cap;
	}
	for (c = 0; c < NCOLS; c++) {
		rc = write_column(w, c, &pw->chunks[pw->ngroups * NCOLS + (size_t)c],
				  err);
		if (rc < 0)
			return rc;
	}
	pw->group_rows[pw->ngroups++] = pw->nrows;
	pw->total_rows += pw->nrows;
	pw->nrows = 0;
	pw->notes_len = 0;
	return TK_OK;
}

/* ---- writer operations --------------------------------------------------- */

static int pq_writer_open(tk_writer *w, tk_error *err)
{
	pq_writer *pw = calloc(1, sizeof(*pw));
	static const char magic[4] = { 'P', 'A', 'R', '1' };
	pq_buf b = { NULL, 0, 0, 0 };
	int rc;
	uint64_t one;

	if (!pw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = pw;
	pw->name = w->sink.path ? w->sink.path : "<stdout>";
	pw->group_max = ROWS;
	if (w->opts.options && *w->opts.options) {
		const char *o = w->opts.options;
		char *end = NULL;
		unsigned long long n = 0;
		if (strncmp(o, "row-group=", 10) == 0 && o[10] >= '0' && o[10] <= '9')
			n = strtoull(o + 10, &end, 10);
		if (!n || n > ROWS || *end)
			return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
					  "unknown Parquet writer option '%.40s' (row-group=N, N from 1 to %u rows)",
					  o, ROWS);
		pw->group_max = (size_t)n;
	}
	tk_hash_init();
	tk_hashmap_init(&pw->dmap);
	pw->zc = ZSTD_createCCtx();
	if (!pw->zc)
		return tk_err_nomem(err, pw->name);
	pw->tb = *tk_trace_timebase(w->trace);
	pw->ns_tb.unit = TK_UNIT_NS;
	pw->ns_tb.num = 1;
	pw->ns_tb.den = 1;
	/* ticks that are cycles have no time in ns */
	pw->ns_ok = tk_trace_cycle_unit(w->trace) == NULL &&
		    tk_time_convert(0, &pw->tb, &pw->ns_tb, TK_ROUND_DOWN,
				    &one) == TK_OK;
	buf_put(&b, magic, 4);
	rc = out_put(w, &b, err);
	free(b.p);
	return rc;
}

static int pq_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	pq_writer *pw = w->impl;
	pq_row *r;
	int rc;

	if (ev->time > INT64_MAX)
		return tk_err_set(err, TK_E_UNSUPPORTED, pw->name, 0, 0,
				  "a time of %llu ticks is over Parquet's INT64",
				  (unsigned long long)ev->time);
	if (pw->nrows >= pw->group_max && (rc = flush_group(w, err)) < 0)
		return rc;
	if (tk_grow_zero((void **)&pw->rows, &pw->rows_cap, pw->nrows,
			 sizeof(*pw->rows)) < 0)
		return tk_err_nomem(err, pw->name);
	r = &pw->rows[pw->nrows];
	r->time = ev->time;
	r->has_ns = pw->ns_ok &&
		    tk_time_convert(ev->time, &pw->tb, &pw->ns_tb,
				    TK_ROUND_EXACT, &r->ns) == TK_OK &&
		    r->ns <= INT64_MAX;
	r->sinst = ev->source_inst;
	r->tinst = ev->target_inst;
	r->source = ev->source;
	r->target = ev->target;
	r->core = ev->core;
	r->type_name = ev->type_name;
	r->name = ev->name;
	r->type = ev->type;
	r->kind = ev->kind;
	r->note_off = UINT64_MAX;
	r->note_len = 0;
	if (ev->note) {
		if (pw->notes_cap - pw->notes_len < ev->note_len) {
			size_t cap = pw->notes_cap ? pw->notes_cap : 65536;
			char *p;

			while (cap - pw->notes_len < ev->note_len)
				cap *= 2;
			p = realloc(pw->notes, cap);
			if (!p)
				return tk_err_nomem(err, pw->name);
			pw->notes = p;
			pw->notes_cap = cap;
		}
		if (ev->note_len)
			memcpy(pw->notes + pw->notes_len, ev->note, ev->note_len);
		r->note_off = pw->notes_len;
		r->note_len = ev->note_len;
		pw->notes_len += ev->note_len;
	}
	pw->nrows++;
	return TK_OK;
}

/* the header's entries as BTF writes them, one a line, values under the
 * UTF-8 rule of every writer */
static int header_text(tk_writer *w, pq_buf *b, tk_error *err)
{
	size_t i, n = tk_trace_header_count(w->trace), vn;
	const char *v;
	int rc;

	for (i = 0; i < n; i++) {
		const tk_header_entry *h = tk_trace_header(w->trace, i);

		rc = tk_writer_text(w, h->value, strlen(h->value), &v, &vn, err);
		if (rc < 0)
			return rc;
		if (h->kind == TK_HDR_COMMENT) {
			buf_byte(b, '#');
		} else {
			buf_put(b, h->kind == TK_HDR_ROW ? "#-" : "#",
				h->kind == TK_HDR_ROW ? 2 : 1);
			buf_put(b, h->key, strlen(h->key));
			if (h->has_value)
				buf_byte(b, ' ');
		}
		buf_put(b, v, vn);
		buf_byte(b, '\n');
	}
	return TK_OK;
}

static void kv(th *t, const char *key, const void *v, size_t n)
{
	th_begin(t, 0);
	th_str(t, 1, key);
	th_bin(t, 2, v, n);
	th_end(t);
}

static int write_footer(tk_writer *w, tk_error *err)
{
	pq_writer *pw = w->impl;
	pq_buf *b = &pw->foot, hdr = { NULL, 0, 0, 0 };
	th t = { b, { 0 }, 0 };
	char tb[96];
	size_t g;
	int c, n, rc;

	b->len = 0;
	th_i32(&t, 1, 1);
	/* the schema: the root, then the columns */
	th_list(&t, 2, CT_STRUCT, NCOLS + 1);
	th_begin(&t, 0);
	th_str(&t, 4, "events");
	th_i32(&t, 5, NCOLS);
	th_end(&t);
	for (c = 0; c < NCOLS; c++) {
		th_begin(&t, 0);
		th_i32(&t, 1, cols[c].type);
		th_i32(&t, 3, cols[c].rep);
		th_str(&t, 4, cols[c].name);
		if (cols[c].type == PT_BYTE_ARRAY) {
			th_i32(&t, 6, 0); /* ConvertedType UTF8 */
			th_begin(&t, 10); /* LogicalType: STRING */
			th_begin(&t, 1);
			th_end(&t);
			th_end(&t);
		}
		th_end(&t);
	}
	th_i64(&t, 3, (int64_t)pw->total_rows);
	th_list(&t, 4, CT_STRUCT, pw->ngroups);
	for (g = 0; g < pw->ngroups; g++) {
		uint64_t bytes = 0, ubytes = 0;

		for (c = 0; c < NCOLS; c++) {
			bytes += pw->chunks[g * NCOLS + (size_t)c].size;
			ubytes += pw->chunks[g * NCOLS + (size_t)c].usize;
		}
		th_begin(&t, 0);
		th_list(&t, 1, CT_STRUCT, NCOLS);
		for (c = 0; c < NCOLS; c++) {
			const pq_chunk *ch = &pw->chunks[g * NCOLS + (size_t)c];

			th_begin(&t, 0);
			th_i64(&t, 2, (int64_t)ch->offset);
			th_begin(&t, 3);
			th_i32(&t, 1, cols[c].type);
			th_list(&t, 2, CT_I32, ch->has_dict ? 3 : 2);
			if (ch->has_dict)
				th_zigzag(&t, ENC_PLAIN);
			th_zigzag(&t, ENC_RLE);
			th_zigzag(&t, ch->enc);
			th_list(&t, 3, CT_BINARY, 1);
			buf_varint(b, strlen(cols[c].name));
			buf_put(b, cols[c].name, strlen(cols[c].name));
			th_i32(&t, 4, CODEC_ZSTD);
			th_i64(&t, 5, (int64_t)pw->group_rows[g]);
			th_i64(&t, 6, (int64_t)ch->usize);
			th_i64(&t, 7, (int64_t)ch->size);
			th_i64(&t, 9, (int64_t)ch->data_offset);
			if (ch->has_dict)
				th_i64(&t, 11, (int64_t)ch->dict_offset);
			th_begin(&t, 12); /* Statistics */
			th_i64(&t, 3, (int64_t)ch->nulls);
			if (cols[c].type == PT_INT64 && ch->nulls < pw->group_rows[g]) {
				uint8_t x[8];

				tk_store_le64(x, (uint64_t)ch->imax);
				th_bin(&t, 5, x, 8);
				tk_store_le64(x, (uint64_t)ch->imin);
				th_bin(&t, 6, x, 8);
			} else if (ch->min && ch->max && ch->nmin <= STAT_MAX &&
				   ch->nmax <= STAT_MAX) {
				th_bin(&t, 5, ch->max, ch->nmax);
				th_bin(&t, 6, ch->min, ch->nmin);
			}
			th_end(&t);
			th_end(&t);
			th_end(&t);
		}
		th_i64(&t, 2, (int64_t)ubytes);
		th_i64(&t, 3, (int64_t)pw->group_rows[g]);
		th_i64(&t, 5, (int64_t)pw->chunks[g * NCOLS].offset);
		th_i64(&t, 6, (int64_t)bytes);
		th_field(&t, 7, 4); /* i16 ordinal */
		th_zigzag(&t, (int64_t)g);
		th_end(&t);
	}
	/* key-value metadata: the format, the exact time base, the header */
	th_list(&t, 5, CT_STRUCT, 3);
	kv(&t, "tracekit.format", tk_trace_format(w->trace),
	   strlen(tk_trace_format(w->trace)));
	/* ticks that are cycles are said so ("1/1 clk") */
	n = snprintf(tb, sizeof(tb), "%llu/%llu %s",
		     (unsigned long long)pw->tb.num,
		     (unsigned long long)pw->tb.den,
		     tk_trace_cycle_unit(w->trace) ? tk_trace_cycle_unit(w->trace)
						  : tk_unit_name(pw->tb.unit));
	kv(&t, "tracekit.timebase", tb, (size_t)(n > 0 ? n : 0));
	rc = header_text(w, &hdr, err);
	kv(&t, "tracekit.header", hdr.p ? (const char *)hdr.p : "", hdr.len);
	if (rc == TK_OK && hdr.failed)
		rc = tk_err_nomem(err, pw->name);
	free(hdr.p);
	if (rc < 0)
		return rc;
	th_str(&t, 6, "tracekit");
	/* column orders: each column's type's own (min_value, max_value) */
	th_list(&t, 7, CT_STRUCT, NCOLS);
	for (c = 0; c < NCOLS; c++) {
		th_begin(&t, 0);
		th_begin(&t, 1);
		th_end(&t);
		th_end(&t);
	}
	buf_byte(b, 0);
	{
		size_t flen = b->len;
		buf_le32(b, (uint32_t)flen);
		buf_put(b, "PAR1", 4);
	}
	return out_put(w, b, err);
}

static int pq_writer_close(tk_writer *w, tk_error *err)
{
	int rc = flush_group(w, err);

	if (rc < 0)
		return rc;
	return write_footer(w, err);
}

static void pq_writer_free(tk_writer *w)
{
	pq_writer *pw = w->impl;
	size_t i;

	if (!pw)
		return;
	free(pw->rows);
	free(pw->notes);
	for (i = 0; i < pw->groups_cap * NCOLS; i++) {
		free(pw->chunks[i].min);
		free(pw->chunks[i].max);
	}
	free(pw->chunks);
	free(pw->group_rows);
	free(pw->dict.p);
	free(pw->doff);
	tk_hashmap_free(&pw->dmap);
	ZSTD_freeCCtx(pw->zc);
	free(pw->page.p);
	free(pw->zpage.p);
	free(pw->hdr.p);
	free(pw->foot.p);
	free(pw);
	w->impl = NULL;
}

const tk_format_ops tk_format_parquet = {
	.info = {
		.name = "parquet",
		.extensions = "parquet",
		.description = "Apache Parquet: one row per event, for DuckDB, Spark, Polars (export only)",
		.caps = TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.writer_open = pq_writer_open,
	.writer_options = 1,
	.writer_write = pq_writer_write,
	.writer_close = pq_writer_close,
	.writer_free = pq_writer_free,
};
