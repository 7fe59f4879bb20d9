/*
 * coltab.h - a table of typed columns written as one Apache Parquet file
 * through a sink (coltab.c): the one Parquet encoder, which the events
 * writer (parquet_writer.c) and the tables of a dataset (dataset.c) share.
 *
 * A table has columns of INT64, DOUBLE or STRING (UTF-8, dictionary-
 * encoded), each required or optional (null allowed).  The caller gives
 * each column of a row one value (tk_coltab_i64, _f64, _str or _null),
 * then ends the row (tk_coltab_row); rows are kept column by column until
 * a page is full, then encoded and compressed; when a row group is full,
 * each column's pages are written as its column chunk (data pages, after
 * a dictionary page for a string or an INT64 of values that repeat in a
 * narrow span; INT64 columns marked delta
 * DELTA_BINARY_PACKED, the others PLAIN; every page zstd-compressed, at
 * TK_COLTAB_ZSTD or tk_coltab_set_zstd's level, below level 10 the delta
 * pages at 1 (with hardly a search for matches; a delta page the same as
 * the previous column's compressed once), the DOUBLE values 2 below, the dictionary indices and the dictionaries 3 below;
 * min/max statistics in the footer).  tk_coltab_close() writes the footer
 * with the key-value metadata given; committing the sink is the caller's.
 */
#ifndef TK_COLTAB_H
#define TK_COLTAB_H

#include "../../core/internal.h"

#include <stddef.h>
#include <stdint.h>

typedef enum tk_coltype { TK_COL_I64, TK_COL_F64, TK_COL_STR } tk_coltype;

typedef struct tk_colspec {
	const char *name;
	tk_coltype type;
	int optional;      /* nulls allowed */
	int delta;         /* INT64: DELTA_BINARY_PACKED (times) */
} tk_colspec;

/* a key-value pair of the footer's metadata */
typedef struct tk_colkv {
	const char *key;
	const void *val;
	size_t len;
} tk_colkv;

typedef struct tk_coltab tk_coltab;

/* the values of one column of the open row group, which the per-row
 * calls below fill in line (tk_coltab_vals() gives a column's; the
 * table keeps the rest of the column's state) */
typedef struct tk_colvals {
	uint8_t *def;           /* per row: 1 a value, 0 null (an optional
				 * column's; NULL for a required one) */
	uint64_t *vals;         /* the values (nv of them) */
	size_t nrows, nv, cap;
	size_t max_rows;        /* the page's */
	int big;                /* def and vals from tk_bigbuf_alloc() */
	int optional;           /* def kept */
	uint64_t nulls;
	/* tk_coltab_str_id: 1 + the dictionary index of the caller's string
	 * id in this row group, 0 for an id not met in it */
	uint32_t *idk;
	size_t idk_cap;
	int *failed;            /* the table's: out of memory since the last row */
} tk_colvals;

/** The row group's size of a table when group_rows is 0. */
#define TK_COLTAB_ROWS 1048576u
/** The rows of a data page unless tk_coltab_set_page says. */
#define TK_COLTAB_PAGE_ROWS 131072u
/** zstd's level for the pages of a table unless tk_coltab_set_zstd says */
#define TK_COLTAB_ZSTD 5
/** The highest level tk_coltab_set_zstd takes (the lowest is 1). */
#define TK_COLTAB_ZSTD_MAX 19

/**
 * A table named `schema` (the Parquet schema's root) of `ncols` columns
 * (`cols` borrowed until free), written to `sink` (borrowed, open);
 * `name` is the file's name in errors.  Writes the leading magic.
 */
int tk_coltab_open(tk_coltab **out, tk_sink *sink, const char *name,
		   const char *schema, const tk_colspec *cols, size_t ncols,
		   size_t group_rows, tk_error *err);
/* one value of column c of the open row (memory errors: at tk_coltab_row) */
void tk_coltab_i64(tk_coltab *t, size_t c, int64_t v);
void tk_coltab_f64(tk_coltab *t, size_t c, double v);
void tk_coltab_str(tk_coltab *t, size_t c, const char *s, size_t n);
/* tk_coltab_str for a string the caller names by `id` (a trace's tk_str,
 * never TK_NONE): an id met before in this row group takes no lookup, so
 * the same id must always name the same bytes */
void tk_coltab_str_id(tk_coltab *t, size_t c, uint32_t id, const char *s,
		      size_t n);
/* tk_coltab_str_id without the string, for an id met before in this row
 * group: 1 (the value given), else 0 (nothing given: call
 * tk_coltab_str_id) */
int tk_coltab_str_hit(tk_coltab *t, size_t c, uint32_t id);
void tk_coltab_null(tk_coltab *t, size_t c);

/* column c's values, for the calls in line below (valid until free) */
tk_colvals *tk_coltab_vals(tk_coltab *t, size_t c);
/* room for one more row in a full column: 0, or -1 (*failed set) */
int tk_colvals_grow(tk_colvals *v);

/* tk_coltab_i64 in line (every field read before the stores, which
 * may alias them) */
static inline void tk_colvals_i64(tk_colvals *v, int64_t x)
{
	size_t r = v->nrows, k = v->nv;
	uint8_t *def;
	uint64_t *vals;

	if (TK_UNLIKELY(r >= v->cap) && tk_colvals_grow(v) < 0)
		return;
	def = v->def;
	vals = v->vals;
	v->nrows = r + 1;
	v->nv = k + 1;
	vals[k] = (uint64_t)x;
	if (def)
		def[r] = 1;
}

/* tk_coltab_null in line */
static inline void tk_colvals_null(tk_colvals *v)
{
	size_t r = v->nrows;
	uint8_t *def;

	if (TK_UNLIKELY(r >= v->cap) && tk_colvals_grow(v) < 0)
		return;
	def = v->def;
	v->nrows = r + 1;
	v->nulls++;
	if (def)
		def[r] = 0;
}

/* tk_coltab_str_hit in line */
static inline int tk_colvals_str_hit(tk_colvals *v, uint32_t id)
{
	uint32_t k;

	if (TK_LIKELY(id < v->idk_cap && (k = v->idk[id]) != 0)) {
		tk_colvals_i64(v, (int64_t)(k - 1));
		return 1;
	}
	return 0;
}
/** End the row: every column has had one value (checked when the row
 * group is written).  Writes a full row group. */
int tk_coltab_row(tk_coltab *t, tk_error *err);

/* Rows the open page takes before it is full (at least 1): the rows a
 * caller may give column by column, each column's values in turn, before
 * ending them with tk_coltab_rows_end(). */
size_t tk_coltab_room(const tk_coltab *t);
/* room for n more rows in every column (n at most tk_coltab_room()):
 * 0, or -1 when out of memory (then reported by tk_coltab_rows_end) */
int tk_coltab_reserve(tk_coltab *t, size_t n);
/** End n rows (n at most tk_coltab_room()), as tk_coltab_row() n times. */
int tk_coltab_rows_end(tk_coltab *t, size_t n, tk_error *err);
/** The last row group and the footer (its key-value metadata kv[0..nkv)). */
int tk_coltab_close(tk_coltab *t, const tk_colkv *kv, size_t nkv,
		    tk_error *err);
/** The rows of each data page from here on (0: TK_COLTAB_PAGE_ROWS);
 * before the first row. */
void tk_coltab_set_page(tk_coltab *t, size_t rows);
/** zstd's level (1 to TK_COLTAB_ZSTD_MAX) for the pages written next. */
void tk_coltab_set_zstd(tk_coltab *t, int level);
/** Rows ended so far. */
uint64_t tk_coltab_rows(const tk_coltab *t);
void tk_coltab_free(tk_coltab *t);

/**
 * The header of writer w's trace as BTF writes it, one entry a line, under
 * the UTF-8 rule of every writer (parquet_writer.c): *out malloc'ed (NULL
 * when empty), *len its length.
 */
int tk_parquet_header_text(tk_writer *w, char **out, size_t *len,
			   tk_error *err);

/**
 * One tick of writer w's trace exactly, "NUM/DEN UNIT" ("1/4 us"; ticks
 * that are cycles in their unit, "1/1 clk", under the UTF-8 rule): *out
 * malloc'ed, *len its length.
 */
int tk_parquet_timebase_text(tk_writer *w, char **out, size_t *len,
			     tk_error *err);

#endif
