/*
 * parquet_writer.c - the events of one trace as an Apache Parquet file
 * (docs/exports.md has the schema), one row per event, through the column
 * table of coltab.c (the one Parquet encoder): strings dictionary-encoded,
 * time and time_ns DELTA_BINARY_PACKED, pages zstd-compressed (level 5,
 * writer option zstd=N), min/max statistics; a row group per 1,048,576
 * rows (writer option row-group=N: fewer), a data page per 131,072 rows
 * (page=N); the format, the exact time base and the header in the footer's
 * key-value metadata.  Everything goes through the sink, so a failed run
 * leaves no file.
 *
 * Memory: the values of the open page, the compressed pages of the open
 * row group (coltab.h) and the dictionary of each of its string columns.
 */
#include "coltab.h"

#include "../../core/bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_TIME, C_NS, C_SOURCE, C_SINST, C_TYPE, C_TARGET, C_TINST, C_EVENT,
       C_NOTE, C_CORE, NCOLS };
static const tk_colspec cols[NCOLS] = {
	/* never null, declared nullable as time_ns is: at 1 ns a tick their
	 * pages are then the same, and compressed once */
	{ "time", TK_COL_I64, 1, 1 },
	{ "time_ns", TK_COL_I64, 1, 1 },
	{ "source", TK_COL_STR, 0, 0 },
	{ "source_instance", TK_COL_I64, 1, 0 },
	{ "type", TK_COL_STR, 0, 0 },
	{ "target", TK_COL_STR, 0, 0 },
	{ "instance", TK_COL_I64, 1, 0 },
	{ "event", TK_COL_STR, 0, 0 },
	{ "note", TK_COL_STR, 1, 0 },
	{ "core", TK_COL_STR, 1, 0 },
};

typedef struct pq_writer {
	const char *name;
	tk_coltab *tab;
	tk_colvals *cv[NCOLS];  /* the table's columns, filled in line */
	tk_timebase tb, ns_tb;
	int ns_ok;              /* ticks have an SI unit */
	uint64_t ns_mul;        /* ns per tick when a whole number, else 0 */
	uint64_t ns_max;        /* the most ticks ns_mul turns into INT64 ns */
	/* per string of the trace (tk_str): 0 not seen, 1 UTF-8, 2 not */
	uint8_t *utf8;
	size_t utf8_cap;
} pq_writer;

typedef struct pq_buf {
	char *p;
	size_t len, cap;
	int failed;
} pq_buf;

static void buf_put(pq_buf *b, const void *p, size_t n)
{
	if (b->failed || !n)
		return;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 1024;
		char *q;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->failed = 1;
				return;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->failed = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void buf_byte(pq_buf *b, char c)
{
	buf_put(b, &c, 1);
}

/* a string column's value under the UTF-8 rule of every writer */
static int put_text(tk_writer *w, size_t c, const char *s, size_t n,
		    tk_error *err)
{
	pq_writer *pw = w->impl;
	int rc;

	if (!s) {
		s = "";
		n = 0;
	}
	if ((rc = tk_writer_text(w, s, n, &s, &n, err)) < 0)
		return rc;
	tk_coltab_str(pw->tab, c, s, n);
	return TK_OK;
}

/* whether s[0..n) is ASCII, so UTF-8 that put_text() takes as it is */
static inline int ascii(const char *s, size_t n)
{
	unsigned char any = 0;
	size_t i;

	for (i = 0; i < n; i++)
		any |= (unsigned char)s[i];
	return any < 0x80;
}

/* put_text() for the trace's string `id`, whose values the column keys by
 * `key` (the same key always the same string): checked once, then (when
 * it is UTF-8) taken by its key, with no check and no lookup */
static TK_NOINLINE int put_str_slow(tk_writer *w, size_t c, uint32_t key,
				    tk_str id, tk_error *err)
{
	pq_writer *pw = w->impl;
	size_t n;
	const char *s;

	/* only a string found UTF-8 is given by its key */
	if (id < pw->utf8_cap && pw->utf8[id] == 1) {
		s = tk_trace_str(w->trace, id, &n);
		tk_coltab_str_id(pw->tab, c, key, s, n);
		return TK_OK;
	}
	s = tk_trace_str(w->trace, id, &n);
	if (tk_grow_zero((void **)&pw->utf8, &pw->utf8_cap, id, 1) < 0)
		return tk_err_nomem(err, pw->name);
	pw->utf8[id] = tk_utf8_valid(s, n) ? 1 : 2;
	if (pw->utf8[id] == 1) {
		tk_coltab_str_id(pw->tab, c, key, s, n);
		return TK_OK;
	}
	return put_text(w, c, s, n, err); /* counted as every time */
}

/* the trace's string `id` in a column keyed by string */
static inline int put_str(tk_writer *w, size_t c, tk_str id, tk_error *err)
{
	pq_writer *pw = w->impl;

	if (TK_LIKELY(tk_colvals_str_hit(pw->cv[c], id)))
		return TK_OK;
	return put_str_slow(w, c, id, id, err);
}

static TK_NOINLINE int put_entity_slow(tk_writer *w, size_t c, uint32_t id,
				       tk_error *err)
{
	const tk_entity *e = id != TK_NONE ? tk_trace_entity(w->trace, id) : NULL;

	if (!e || e->name == TK_NONE)
		return put_text(w, c, NULL, 0, err);
	return put_str_slow(w, c, id, e->name, err);
}

/* an entity's name in a column that names one, keyed by the entity (whose
 * name is fixed) */
static inline int put_entity(tk_writer *w, size_t c, uint32_t id,
			     tk_error *err)
{
	pq_writer *pw = w->impl;

	if (TK_LIKELY(tk_colvals_str_hit(pw->cv[c], id)))
		return TK_OK;
	return put_entity_slow(w, c, id, err);
}

static inline void put_inst(tk_colvals *v, int64_t k)
{
	if (k == TK_INST_NONE)
		tk_colvals_null(v);
	else
		tk_colvals_i64(v, k);
}

/* ---- writer operations --------------------------------------------------- */

static int pq_writer_open(tk_writer *w, tk_error *err)
{
	pq_writer *pw = calloc(1, sizeof(*pw));
	size_t rows = TK_COLTAB_ROWS, page = TK_COLTAB_PAGE_ROWS;
	int level = TK_COLTAB_ZSTD, rc;
	uint64_t one;
	const char *o;

	if (!pw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = pw;
	pw->name = w->sink.path ? w->sink.path : "<stdout>";
	/* the options, separated by commas: row-group=N, page=N, zstd=N */
	for (o = w->opts.options; o && *o; o += *o == ',') {
		const char *v = NULL;
		char *end = NULL;
		unsigned long long n = 0, max = 0;

		if (strncmp(o, "row-group=", 10) == 0) {
			v = o + 10;
			max = TK_COLTAB_ROWS;
		} else if (strncmp(o, "page=", 5) == 0) {
			v = o + 5;
			max = TK_COLTAB_ROWS;
		} else if (strncmp(o, "zstd=", 5) == 0) {
			v = o + 5;
			max = TK_COLTAB_ZSTD_MAX;
		}
		if (v && *v >= '0' && *v <= '9')
			n = strtoull(v, &end, 10);
		if (!n || n > max || (*end && *end != ','))
			return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
					  "unknown Parquet writer option '%.40s' (row-group=N, page=N: N from 1 to %u rows; zstd=N, the level from 1 to %d)",
					  o, TK_COLTAB_ROWS, TK_COLTAB_ZSTD_MAX);
		if (*o == 'r')
			rows = (size_t)n;
		else if (*o == 'p')
			page = (size_t)n;
		else
			level = (int)n;
		o = end;
	}
	pw->tb = *tk_trace_timebase(w->trace);
	pw->ns_tb.unit = TK_UNIT_NS;
	pw->ns_tb.num = 1;
	pw->ns_tb.den = 1;
	/* ticks that are cycles have no time in ns */
	pw->ns_ok = tk_trace_cycle_unit(w->trace) == NULL &&
		    tk_time_convert(0, &pw->tb, &pw->ns_tb, TK_ROUND_DOWN,
				    &one) == TK_OK;
	if (pw->ns_ok && tk_time_convert(1, &pw->tb, &pw->ns_tb, TK_ROUND_EXACT,
					 &pw->ns_mul) == TK_OK && pw->ns_mul)
		pw->ns_max = (uint64_t)INT64_MAX / pw->ns_mul;
	else
		pw->ns_mul = 0;
	rc = tk_coltab_open(&pw->tab, &w->sink, pw->name, "events", cols,
			    NCOLS, rows, err);
	if (rc == TK_OK) {
		size_t c;

		tk_coltab_set_zstd(pw->tab, level);
		tk_coltab_set_page(pw->tab, page);
		for (c = 0; c < NCOLS; c++)
			pw->cv[c] = tk_coltab_vals(pw->tab, c);
	}
	return rc;
}

/* a time the format cannot hold: TK_E_RANGE, as every writer says it
 * (TK_E_UNSUPPORTED is what strict mode refuses) */
static int time_error(const pq_writer *pw, uint64_t t, tk_error *err)
{
	return tk_err_set(err, TK_E_RANGE, pw->name, 0, 0,
			  "a time of %llu ticks is over Parquet's INT64",
			  (unsigned long long)t);
}

/* an event's time in ns (time at most INT64_MAX) */
static inline void put_ns(pq_writer *pw, uint64_t time)
{
	uint64_t ns;

	/* a whole number of ns per tick: no division */
	if (TK_LIKELY(pw->ns_mul && time <= pw->ns_max))
		tk_colvals_i64(pw->cv[C_NS], (int64_t)(time * pw->ns_mul));
	else if (pw->ns_ok && tk_time_convert(time, &pw->tb, &pw->ns_tb,
					      TK_ROUND_EXACT, &ns) == TK_OK &&
		 ns <= INT64_MAX)
		tk_colvals_i64(pw->cv[C_NS], (int64_t)ns);
	else
		tk_colvals_null(pw->cv[C_NS]);
}

/* a name as written (the trace's string id), else the model's (as cat) */
static inline int put_named(tk_writer *w, size_t c, tk_str id,
			    const char *model, tk_error *err)
{
	if (id != TK_NONE)
		return put_str(w, c, id, err);
	return put_text(w, c, model, strlen(model), err);
}

static inline int put_type(tk_writer *w, const tk_event *ev, tk_error *err)
{
	return put_named(w, C_TYPE, ev->type_name,
			 ev->type_name != TK_NONE ? NULL : tk_etype_name(ev->type), err);
}

static inline int put_event(tk_writer *w, const tk_event *ev, tk_error *err)
{
	return put_named(w, C_EVENT, ev->name,
			 ev->name != TK_NONE ? NULL : tk_evkind_name(ev->kind), err);
}

static inline int put_note(tk_writer *w, const tk_event *ev, tk_error *err)
{
	pq_writer *pw = w->impl;

	if (!ev->note)
		tk_colvals_null(pw->cv[C_NOTE]);
	else if (ev->note_len <= 16 && ascii(ev->note, ev->note_len))
		tk_coltab_str(pw->tab, C_NOTE, ev->note, ev->note_len);
	else
		return put_text(w, C_NOTE, ev->note, ev->note_len, err);
	return TK_OK;
}

static inline int put_core(tk_writer *w, uint32_t core, tk_error *err)
{
	pq_writer *pw = w->impl;

	if (core == TK_NONE) {
		tk_colvals_null(pw->cv[C_CORE]);
		return TK_OK;
	}
	return put_entity(w, C_CORE, core, err);
}

static int pq_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	pq_writer *pw = w->impl;
	tk_colvals *const *cv = pw->cv;
	int rc;

	if (ev->time > INT64_MAX)
		return time_error(pw, ev->time, err);
	tk_colvals_i64(cv[C_TIME], (int64_t)ev->time);
	put_ns(pw, ev->time);
	if ((rc = put_entity(w, C_SOURCE, ev->source, err)) < 0)
		return rc;
	put_inst(cv[C_SINST], ev->source_inst);
	if ((rc = put_type(w, ev, err)) < 0 ||
	    (rc = put_entity(w, C_TARGET, ev->target, err)) < 0)
		return rc;
	put_inst(cv[C_TINST], ev->target_inst);
	if ((rc = put_event(w, ev, err)) < 0 || (rc = put_note(w, ev, err)) < 0 ||
	    (rc = put_core(w, ev->core, err)) < 0)
		return rc;
	return tk_coltab_row(pw->tab, err);
}

/* what a column keyed by an id of the event holds */
enum { K_ENTITY, K_CORE, K_TYPE, K_EVENT };

/* column c of ev[0..n), keyed by the id at byte `off` of the event (an
 * entity for K_ENTITY and K_CORE, a string for K_TYPE and K_EVENT): the
 * run of ids the column has met in this row group with its state in
 * locals, the others one by one */
static int col_keys(tk_writer *w, size_t c, const tk_event *ev, size_t n,
		    size_t off, int kind, tk_error *err)
{
	tk_colvals *v = ((pq_writer *)w->impl)->cv[c];
	size_t i = 0;
	int rc;

	while (i < n) {
		const uint32_t *idk = v->idk;
		size_t cap = v->idk_cap, r = v->nrows, k = v->nv;
		uint64_t *vals = v->vals;
		uint8_t *def = v->def;
		uint32_t id = 0, x;

		for (; i < n; i++) {
			memcpy(&id, (const char *)&ev[i] + off, sizeof(id));
			if (id >= cap || (x = idk[id]) == 0)
				break;
			vals[k++] = x - 1;
			if (def)
				def[r] = 1;
			r++;
		}
		v->nrows = r;
		v->nv = k;
		if (i == n)
			break;
		if (kind == K_TYPE)
			rc = put_type(w, &ev[i], err);
		else if (kind == K_EVENT)
			rc = put_event(w, &ev[i], err);
		else if (kind == K_CORE)
			rc = put_core(w, id, err); /* a core, or none */
		else
			rc = put_entity_slow(w, c, id, err);
		if (rc < 0)
			return rc;
		i++;
	}
	return TK_OK;
}

/* the instances of ev[0..n) at byte `off` of the event in column c */
static void col_insts(tk_colvals *v, const tk_event *ev, size_t n, size_t off)
{
	size_t i, r = v->nrows, k = v->nv;
	uint64_t *vals = v->vals, nulls;
	uint8_t *def = v->def;
	int64_t x;

	/* with no branch: each value stored, kept (k moved on) when there */
	for (i = 0; i < n; i++) {
		memcpy(&x, (const char *)&ev[i] + off, sizeof(x));
		def[r + i] = x != TK_INST_NONE;
		vals[k] = (uint64_t)x;
		k += x != TK_INST_NONE;
	}
	nulls = n - (k - v->nv);
	v->nrows = r + n;
	v->nv = k;
	v->nulls += nulls;
}

/* ev[0..n) (n at most the room of the open page, times at most
 * INT64_MAX) column by column */
static int write_rows(tk_writer *w, const tk_event *ev, size_t n, tk_error *err)
{
	pq_writer *pw = w->impl;
	tk_colvals *const *cv = pw->cv;
	uint64_t *vals, *ns, top = 0;
	size_t i;
	int rc;

	if (!n)  /* (the arrays may not be there yet) */
		return TK_OK;
	if (tk_coltab_reserve(pw->tab, n) < 0)
		return tk_coltab_rows_end(pw->tab, 0, err);
	vals = cv[C_TIME]->vals + cv[C_TIME]->nv;
	ns = cv[C_NS]->vals + cv[C_NS]->nv;
	if (pw->ns_mul) {
		/* the times in ns as well, in the same pass (kept when none
		 * is over INT64 in ns) */
		for (i = 0; i < n; i++) {
			vals[i] = ev[i].time;
			ns[i] = ev[i].time * pw->ns_mul;
			top = ev[i].time > top ? ev[i].time : top;
		}
	} else {
		for (i = 0; i < n; i++) {
			vals[i] = ev[i].time;
			top = ev[i].time > top ? ev[i].time : top;
		}
	}
	memset(cv[C_TIME]->def + cv[C_TIME]->nrows, 1, n);
	cv[C_TIME]->nv += n;
	cv[C_TIME]->nrows += n;
	if (pw->ns_mul && top <= pw->ns_max) {
		/* each time a whole number of ns */
		tk_colvals *v = cv[C_NS];

		memset(v->def + v->nrows, 1, n);
		v->nv += n;
		v->nrows += n;
	} else {
		for (i = 0; i < n; i++)
			put_ns(pw, ev[i].time);
	}
	if ((rc = col_keys(w, C_SOURCE, ev, n, offsetof(tk_event, source),
			   K_ENTITY, err)) < 0)
		return rc;
	col_insts(cv[C_SINST], ev, n, offsetof(tk_event, source_inst));
	if ((rc = col_keys(w, C_TYPE, ev, n, offsetof(tk_event, type_name),
			   K_TYPE, err)) < 0 ||
	    (rc = col_keys(w, C_TARGET, ev, n, offsetof(tk_event, target),
			   K_ENTITY, err)) < 0)
		return rc;
	col_insts(cv[C_TINST], ev, n, offsetof(tk_event, target_inst));
	if ((rc = col_keys(w, C_EVENT, ev, n, offsetof(tk_event, name),
			   K_EVENT, err)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = put_note(w, &ev[i], err)) < 0)
			return rc;
	if ((rc = col_keys(w, C_CORE, ev, n, offsetof(tk_event, core),
			   K_CORE, err)) < 0)
		return rc;
	return tk_coltab_rows_end(pw->tab, n, err);
}

/* pq_writer_write of each of ev[0..n) in turn: the rows column by column,
 * a page at a time.  The only errors that name an event (a time over
 * INT64, a name or note not UTF-8 under --strict) come as they would
 * event by event: a time at its event, and --strict event by event. */
static int pq_writer_write_batch(tk_writer *w, const tk_event *ev, size_t n,
				 tk_error *err)
{
	pq_writer *pw = w->impl;
	size_t i, m;
	int rc;

	if (w->opts.strict) {
		for (i = 0; i < n; i++)
			if ((rc = pq_writer_write(w, &ev[i], err)) < 0) {
				w->bad_ev = &ev[i];
				return rc;
			}
		return TK_OK;
	}
	while (n) {
		m = tk_coltab_room(pw->tab);
		if (m > n)
			m = n;
		for (i = 0; i < m && ev[i].time <= INT64_MAX; i++)
			;
		if (i < m) {  /* the rows before it, then its error */
			if ((rc = write_rows(w, ev, i, err)) < 0)
				return rc;
			w->bad_ev = &ev[i];
			return time_error(pw, ev[i].time, err);
		}
		if ((rc = write_rows(w, ev, m, err)) < 0)
			return rc;
		ev += m;
		n -= m;
	}
	return TK_OK;
}

/* the header's entries as BTF writes them, one a line, keys and values
 * under the UTF-8 rule of every writer (the metadata and traces/' header
 * are strings) */
static int header_text(tk_writer *w, pq_buf *b, tk_error *err)
{
	size_t i, n = tk_trace_header_count(w->trace), vn;
	const char *v;
	int rc;

	for (i = 0; i < n; i++) {
		const tk_header_entry *h = tk_trace_header(w->trace, i);

		if (h->kind == TK_HDR_COMMENT) {
			buf_byte(b, '#');
		} else {
			buf_put(b, h->kind == TK_HDR_ROW ? "#-" : "#",
				h->kind == TK_HDR_ROW ? 2 : 1);
			/* the key put before the value is made (one buffer) */
			rc = tk_writer_text(w, h->key, strlen(h->key), &v, &vn,
					    err);
			if (rc < 0)
				return rc;
			buf_put(b, v, vn);
			if (h->has_value)
				buf_byte(b, ' ');
		}
		rc = tk_writer_text(w, h->value, strlen(h->value), &v, &vn, err);
		if (rc < 0)
			return rc;
		buf_put(b, v, vn);
		buf_byte(b, '\n');
	}
	return TK_OK;
}

/* the time base as "NUM/DEN UNIT"; ticks that are cycles are said so
 * ("1/1 clk": the header's unit, of any length and bytes) */
static int timebase_text(tk_writer *w, pq_buf *b, tk_error *err)
{
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	const char *cyc = tk_trace_cycle_unit(w->trace), *u;
	char num[48];
	size_t un;
	int n, rc;

	n = snprintf(num, sizeof(num), "%llu/%llu ", (unsigned long long)tb->num,
		     (unsigned long long)tb->den);
	buf_put(b, num, (size_t)(n > 0 ? n : 0));
	if (!cyc)
		cyc = tk_unit_name(tb->unit);
	if ((rc = tk_writer_text(w, cyc, strlen(cyc), &u, &un, err)) < 0)
		return rc;
	buf_put(b, u, un);
	return TK_OK;
}

/* text of header_text() or timebase_text() into *out, malloc'ed */
static int text_of(tk_writer *w, int (*fn)(tk_writer *, pq_buf *, tk_error *),
		   char **out, size_t *len, tk_error *err)
{
	pq_buf b = { NULL, 0, 0, 0 };
	int rc = fn(w, &b, err);

	if (rc == TK_OK && b.failed)
		rc = tk_err_nomem(err, w->sink.path);
	if (rc < 0) {
		free(b.p);
		b.p = NULL;
		b.len = 0;
	}
	*out = b.p;
	*len = b.len;
	return rc;
}

int tk_parquet_header_text(tk_writer *w, char **out, size_t *len,
			   tk_error *err)
{
	return text_of(w, header_text, out, len, err);
}

int tk_parquet_timebase_text(tk_writer *w, char **out, size_t *len,
			     tk_error *err)
{
	return text_of(w, timebase_text, out, len, err);
}

static int pq_writer_close(tk_writer *w, tk_error *err)
{
	pq_writer *pw = w->impl;
	char *hdr = NULL, *tb = NULL;
	size_t hlen = 0, tblen = 0;
	tk_colkv kv[3];
	int rc;

	/* key-value metadata: the format, the exact time base, the header */
	kv[0].key = "tracekit.format";
	kv[0].val = tk_trace_format(w->trace);
	kv[0].len = strlen(tk_trace_format(w->trace));
	rc = tk_parquet_timebase_text(w, &tb, &tblen, err);
	kv[1].key = "tracekit.timebase";
	kv[1].val = tb;
	kv[1].len = tblen;
	if (rc == TK_OK)
		rc = tk_parquet_header_text(w, &hdr, &hlen, err);
	kv[2].key = "tracekit.header";
	kv[2].val = hdr;
	kv[2].len = hlen;
	if (rc == TK_OK)
		rc = tk_coltab_close(pw->tab, kv, 3, err);
	free(tb);
	free(hdr);
	return rc;
}

static void pq_writer_free(tk_writer *w)
{
	pq_writer *pw = w->impl;

	if (!pw)
		return;
	tk_coltab_free(pw->tab);
	free(pw->utf8);
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
	.writer_write_batch = pq_writer_write_batch,
	.writer_close = pq_writer_close,
	.writer_free = pq_writer_free,
};
