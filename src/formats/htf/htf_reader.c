/*
 * htf_reader.c - the HTF reader (AMALTHEA Hardware Trace Format 1.0).
 *
 * One single-threaded decoder: the header and the reference tables are
 * read line by line from the byte source's stream (core's line scanner,
 * lines.h) when the reader opens (here, and htf_tables.c); then, over its
 * random access (tk_source_size(), tk_source_read_at()), one pass over the
 * trace data finds the sections ("#-<core>", each in time order) and
 * counts their lines (htf_sections.c); then each section has a cursor that
 * reads its bytes into a small window of its own and decodes up to BATCH
 * plain records at a time into (time, entity, event descriptor)
 * (htf_cursor.c), and a k-way merge (heads kept sorted up to 8 sections, a
 * binary heap beyond) hands the records out in (time, section) order, as
 * events, in blocks (htf_merge.c).  Memory holds the tables and k cursors,
 * whatever the trace size.  htf_reader.h: what the parts share.
 *
 * Strict mode is the specification; lenient mode reads the errors of the
 * spec's own examples where their meaning is clear (a letter O in a hex id,
 * "#Format HFT", a record longer than due whose extra leading digits are
 * zeros) and counts a warning for each.
 */
#define _GNU_SOURCE
#include "htf_reader.h"

/* ---- probing ------------------------------------------------------------ */


int htf_probe(const uint8_t *buf, size_t len)
{
	const char *p = (const char *)buf, *end = p + len;

	p = skip_blanks(p, end);
	if (end - p >= 7 && tk_ascii_ncaseeq(p, "#Format", 7)) {
		const char *v = skip_blanks(p + 7, end);
		if (end - v >= 3 && (tk_ascii_ncaseeq(v, "HTF", 3) ||
				     tk_ascii_ncaseeq(v, "HFT", 3)))
			return 95;
		return 40;
	}
	/* a header without #Format: the reference tables give it away */
	if (len && buf[0] == '#' &&
	    (memmem(buf, len, "#TypeTable", 10) ||
	     memmem(buf, len, "#EntityTypeTable", 16)))
		return 85;
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */


int htf_err_at(htf_reader *h, tk_error *err, int code, uint64_t line,
	       const char *ls, const char *at, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_err_set(err, code, h->name, line,
			  at && ls ? (uint32_t)(at - ls) + 1 : 0, "%s", msg);
}

int htf_idmap_add(idmap *m, uint64_t id, uint32_t val, uint32_t pos)
{
	if (tk_grow_zero32((void **)&m->p, &m->cap, m->n, sizeof(*m->p)) < 0)
		return TK_E_NOMEM;
	m->p[m->n].id = id;
	m->p[m->n].val = val;
	m->p[m->n].pos = pos;
	m->n++;
	return TK_OK;
}

static int cmp_pair(const void *a, const void *b)
{
	const idpair *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* a direct array of a type's event ids only when the ids are dense enough
 * (one array per event table: its memory must follow the table's rows,
 * not its largest id) */
#define DENSE(n) (8 * (uint64_t)(n) + 64)

/*
 * Sort; returns the index of the second row of a duplicated id, or -1.
 * The direct array is made when the ids are below DIRECT_MAX and, if
 * `dense`, fewer than DENSE(n).
 */
int64_t htf_idmap_build(idmap *m, int dense, int *nomem)
{
	uint32_t i;

	*nomem = 0;
	if (m->n)
		qsort(m->p, m->n, sizeof(*m->p), cmp_pair);
	for (i = 1; i < m->n; i++)
		if (m->p[i].id == m->p[i - 1].id)
			return (int64_t)m->p[i].pos;
	if (m->n && m->p[m->n - 1].id < DIRECT_MAX &&
	    (!dense || m->p[m->n - 1].id < DENSE(m->n))) {
		m->ndirect = m->p[m->n - 1].id + 1;
		m->direct = malloc(m->ndirect * sizeof(*m->direct));
		if (!m->direct) {
			*nomem = 1;
			return -1;
		}
		memset(m->direct, 0xff, m->ndirect * sizeof(*m->direct));
		for (i = 0; i < m->n; i++)
			m->direct[m->p[i].id] = m->p[i].val;
	}
	return -1;
}


static void idmap_free(idmap *m)
{
	free(m->p);
	free(m->direct);
	memset(m, 0, sizeof(*m));
}

uint32_t htf_hash_nocase(const char *p, size_t n)
{
	uint32_t x = 2166136261u; /* FNV-1a over the lower-case bytes */
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned c = (unsigned char)p[i];
		x ^= c - 'A' < 26u ? c + 32 : c;
		x *= 16777619u;
	}
	return x;
}

/* The value of the first entry of x under `hash` whose key is (k, n), or
 * UINT32_MAX. */
uint32_t htf_kindex_find(const tk_hashmap *x, uint64_t hash, kindex_eq eq,
			 const void *ctx, const void *k, size_t n)
{
	uint32_t i;

	for (i = tk_hashmap_first(x, hash); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(x, hash, i)) {
		TK_ANALYZER_ASSUME(x->slots != NULL); /* i is an entry's slot */
		if (eq(ctx, x->slots[i].val, k, n))
			return x->slots[i].val;
	}
	return UINT32_MAX;
}

/* ---- the bytes ---------------------------------------------------------- */

/*
 * The n bytes at offset off into buf.  With CR-only line ends a CR that no
 * LF follows is read as a LF (a CR LF stays a CRLF line end): the lines,
 * their numbers and their columns are those of the text with each line
 * end made a LF.
 */
int htf_src_read(htf_reader *h, uint64_t off, char *buf, size_t n,
		 tk_error *err)
{
	char next = 0, *p, *e;
	int rc;

	if (!n)
		return TK_OK;
	rc = tk_source_read_at(h->r->src, off, buf, n, err);
	if (rc < 0 || !h->cr)
		return rc;
	if (off + n < h->size &&
	    (rc = tk_source_read_at(h->r->src, off + n, &next, 1, err)) < 0)
		return rc;
	for (p = buf, e = buf + n; (p = memchr(p, '\r', (size_t)(e - p)));
	     p++)
		if ((p + 1 < e ? p[1] : next) != '\n')
			*p = '\n';
	return TK_OK;
}

/*
 * A pipe or a compressed input is decoded whole by tk_source_size() before
 * the first read: the first lines of its trace data (the header is read
 * from the stream) are looked at before that, through the window, so that
 * an endless line near its start (a decompression bomb) is refused (`line
 * longer than ...`, on its line) before it costs the disk what it decodes
 * to.  TK_OK or that error.
 */
#define PRECHECK ((size_t)TK_LINE_MAX + 2 + ((size_t)1 << 20))

static int precheck_lines(htf_reader *h, tk_error *err)
{
	tk_source *src = h->r->src;
	const char *t = tk_source_transport(src), *p, *e, *nl;
	tk_window w = tk_source_window(src);
	uint64_t line = h->line + 1;
	int rc;

	if (!strcmp(t, "file") || !strcmp(t, "memory"))
		return TK_OK;
	while (w.n < PRECHECK && !tk_source_eof(src)) {
		if ((rc = tk_source_fill(src, PRECHECK, &w, err)) < 0)
			return rc;
		if (rc == 0)
			break;
	}
	if (!w.n)
		return TK_OK;
	p = (const char *)w.p;
	e = p + w.n;
	for (;; line++) {
		size_t len;
		nl = memchr(p, h->cr ? '\r' : '\n', (size_t)(e - p));
		if (!nl)
			return (size_t)(e - p) >= TK_LINE_MAX + 2
				       ? tk_err_line_long(err, h->name, line) : TK_OK;
		len = (size_t)(nl - p);
		if (len && nl[-1] == '\r')
			len--;
		if (len > TK_LINE_MAX)
			return tk_err_line_long(err, h->name, line);
		p = nl + 1;
	}
}

/* ---- header ------------------------------------------------------------- */

/* The next header line without its end: 1, 0 at the end, or an error. */
static int next_line(htf_reader *h, tk_lines *l, const char **ls,
		     const char **le, tk_error *err)
{
	size_t n;
	int rc = tk_lines_next(l, ls, &n, err);

	if (rc == TK_END)
		return 0;
	if (rc < 0)
		return rc;
	*le = *ls + n;
	h->line = l->line;
	return 1;
}

static const char *trim_end(const char *p, const char *e)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/*
 * A hex id at p (up to a blank or the end): strict mode takes hex digits
 * only; lenient mode reads a letter O as the digit zero (the spec's
 * "#-0OFF").  Sets *idend to the end of the id; TK_OK or an error.
 */
int htf_hex_id(htf_reader *h, const char *ls, const char *p,
	       const char *e, uint64_t *out, const char **idend,
	       tk_error *err)
{
	uint64_t v = 0;
	const char *s = p;
	int n = 0, sig = 0;  /* digits, and digits after the leading zeros */
	char qb[64];

	for (; p < e && *p != ' ' && *p != '\t'; p++) {
		int d = hexval((unsigned char)*p);
		if (d < 0 && (*p == 'O' || *p == 'o')) {
			const char *z = s;
			while (z < e && *z != ' ' && *z != '\t')
				z++;
			int rc = depart(h, err, W_LETTER_O, h->line, ls, p,
					"letter '%c' in the hex id '%s' (a zero?)",
					"letter '%c' in the hex id '%s' read as the digit 0",
					*p, tk_quote(qb, sizeof(qb), s, z));
			if (rc < 0)
				return rc;
			d = 0;
		}
		if (d < 0) {
			return err_at(h, err, TK_E_PARSE, h->line, ls, p,
				      "'%s' in a hex id",
				      tk_quote(qb, sizeof(qb), p, p + 1));
		}
		n++;
		if ((sig || d) && ++sig > 16) {
			return err_at(h, err, TK_E_RANGE, h->line, ls, s,
				      "hex id over 64 bits (more than 16 digits after its leading zeros)");
		}
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return err_at(h, err, TK_E_PARSE, h->line, ls, p,
			      "expected a hex id");
	*out = v;
	*idend = p;
	return TK_OK;
}

static int key_is(const char *k, size_t n, const char *name)
{
	return tk_ascii_casecmp(k, n, name) == 0;
}

static int parse_dec(const char *p, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (p == e)
		return -1;
	for (; p < e; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A parameter given again with another value: which one the records
 * follow is not known, so it is an error in both modes. */
static int contradicts(htf_reader *h, const char *ls, const char *v,
		       const char *what, uint64_t now, uint64_t before,
		       tk_error *err)
{
	return err_at(h, err, TK_E_PARSE, h->line, ls, v,
		      "#%s %llu contradicts the #%s %llu before it", what,
		      (unsigned long long)now, what,
		      (unsigned long long)before);
}

static int length_param(htf_reader *h, const char *ls, const char *v,
			const char *ve, const char *what, unsigned *out,
			tk_error *err)
{
	uint64_t n;
	char qb[64];

	if (parse_dec(v, ve, &n) < 0 || n < 1 || n > 8)
		return err_at(h, err, TK_E_PARSE, h->line, ls, v,
			      "%s '%s' is not a number of bytes 1, 2, 4 or 8",
			      what, tk_quote(qb, sizeof(qb), v, ve));
	if (*out && *out != n)
		return contradicts(h, ls, v, what, n, *out, err);
	*out = (unsigned)n;
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return depart(h, err, W_LENGTH, h->line, ls, v,
			      "%s %llu is not 1, 2, 4 or 8",
			      "%s %llu is not 1, 2, 4 or 8 (read as %llu bytes)",
			      what, (unsigned long long)n, (unsigned long long)n);
	return TK_OK;
}

static int param(htf_reader *h, const char *ls, const char *k, size_t kn,
		 const char *v, const char *ve, int *seen_fmt, int *seen_ts,
		 tk_error *err)
{
	char qb[64];
	uint64_t n;
	int rc;

	if (key_is(k, kn, "Format")) {
		*seen_fmt = 1;
		if (((size_t)(ve - v) != 3 || !tk_ascii_ncaseeq(v, "HTF", 3)) &&
		    (rc = depart(h, err, W_FORMAT, h->line, ls, v,
				 "#Format is '%s', not HTF",
				 "#Format is '%s', not HTF (read as HTF)",
				 tk_quote(qb, sizeof(qb), v, ve))) < 0)
			return rc;
	} else if (key_is(k, kn, "TimeScale")) {
		tk_unit u;
		if (tk_unit_micro_sign(v, (size_t)(ve - v)) ||
		    tk_unit_parse(v, (size_t)(ve - v), 0, &u) < 0) {
			if (h->strict ||
			    tk_unit_parse(v, (size_t)(ve - v), 1, &u) < 0)
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unknown time scale '%s' (ps, ns, us, ms or s)",
					      tk_quote(qb, sizeof(qb), v, ve));
			warn(h, W_UNIT_CASE, h->line, ls, v,
			     tk_unit_micro_sign(v, (size_t)(ve - v)) ?
			     "time scale '%s' with a micro sign (read as us)" :
			     "time scale '%s' in upper case",
			     tk_quote(qb, sizeof(qb), v, ve));
		}
		if (*seen_ts && u != tk_trace_timebase(h->t)->unit)
			return err_at(h, err, TK_E_PARSE, h->line, ls, v,
				      "#TimeScale %s contradicts the #TimeScale %s before it",
				      tk_unit_name(u),
				      tk_unit_name(tk_trace_timebase(h->t)->unit));
		*seen_ts = 1;
		tk_trace_set_timebase(h->t, &(tk_timebase){
			u, tk_trace_timebase(h->t)->num,
			tk_trace_timebase(h->t)->den });
	} else if (key_is(k, kn, "TimeScaleNumerator") ||
		   key_is(k, kn, "TimeScaleDenominator")) {
		int num = key_is(k, kn, "TimeScaleNumerator");
		tk_timebase tb;

		if (parse_dec(v, ve, &n) < 0 || n == 0)
			return err_at(h, err, TK_E_PARSE, h->line, ls, v,
				      "%s '%s' is not a positive integer",
				      num ? "TimeScaleNumerator"
					  : "TimeScaleDenominator",
				      tk_quote(qb, sizeof(qb), v, ve));
		tb = *tk_trace_timebase(h->t);
		if (*(num ? &h->num : &h->den) &&
		    n != *(num ? &h->num : &h->den))
			return contradicts(h, ls, v, num ? "TimeScaleNumerator"
						  : "TimeScaleDenominator",
					   n, *(num ? &h->num : &h->den), err);
		*(num ? &h->num : &h->den) = n;
		*(num ? &tb.num : &tb.den) = n;
		tk_trace_set_timebase(h->t, &tb);
	} else if (key_is(k, kn, "TimestampLength")) {
		if ((rc = length_param(h, ls, v, ve, "TimestampLength", &h->tl,
				       err)) < 0)
			return rc;
	} else if (key_is(k, kn, "EntityLength")) {
		if ((rc = length_param(h, ls, v, ve, "EntityLength", &h->el,
				       err)) < 0)
			return rc;
	} else if (key_is(k, kn, "EventLength")) {
		if ((rc = length_param(h, ls, v, ve, "EventLength", &h->vl,
				       err)) < 0)
			return rc;
	} else if (key_is(k, kn, "NumberOfCores")) {
		if (parse_dec(v, ve, &n) < 0)
			return err_at(h, err, TK_E_PARSE, h->line, ls, v,
				      "NumberOfCores '%s' is not an integer",
				      tk_quote(qb, sizeof(qb), v, ve));
		if (h->have_ncores && n != h->ncores_decl)
			return contradicts(h, ls, v, "NumberOfCores", n,
					   h->ncores_decl, err);
		h->ncores_decl = n;
		h->have_ncores = 1;
	} else if (key_is(k, kn, "LostEvents") && parse_dec(v, ve, &n) == 0 &&
		   n) {
		/* tracekit's recorder (recorder/host/htf_dump.c): its drops */
		warn(h, W_LOST, h->line, ls, v,
		     "the target lost %llu events (#LostEvents): the trace is incomplete",
		     (unsigned long long)n);
	}
	return TK_OK;
}

static int is_table_key(const char *k, size_t kn)
{
	return kn >= 5 && tk_ascii_ncaseeq(k + kn - 5, "Table", 5);
}

static int add_row(htf_reader *h, table *tb, uint64_t id, const char *ls,
		   const char *v, const char *ve, tk_error *err)
{
	row *rw;

	if (tk_grow_zero32((void **)&tb->rows, &tb->cap, tb->n, sizeof(*tb->rows)) < 0)
		return tk_err_nomem(err, h->name);
	rw = &tb->rows[tb->n];
	rw->id = id;
	rw->line = h->line;
	rw->col = (uint32_t)(v - ls) + 1;
	rw->value = tk_strpool_intern(&h->t->pool, v, (size_t)(ve - v));
	if (rw->value == TK_NONE)
		return tk_err_nomem(err, h->name);
	tb->n++;
	return TK_OK;
}

static int table_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const htf_reader *h = ctx;

	return tk_ascii_casecmp(k, n, h->tabs[v].name) == 0;
}

table *htf_find_table(htf_reader *h, const char *name, size_t n)
{
	uint32_t i = htf_kindex_find(&h->tabidx, htf_hash_nocase(name, n), table_eq, h,
				 name, n);

	return i == UINT32_MAX ? NULL : &h->tabs[i];
}

/* Read the header up to #TraceData from the source's stream (l);
 * *data receives the first data byte's offset. */
static int read_header(htf_reader *h, tk_lines *l, uint64_t *data,
		       tk_error *err)
{
	const char *ls, *le, *p, *k, *ke, *v;
	table *cur = NULL;
	int seen_fmt = 0, seen_ts = 0, rc;
	uint32_t hash;
	char qb[64];

	while ((rc = next_line(h, l, &ls, &le, err)) != 0) {
		if (rc < 0)
			return rc;
		p = skip_blanks(ls, le);
		if (p == le)
			continue;
		if (*p != '#')
			return err_at(h, err, TK_E_PARSE, h->line, ls, p,
				      "expected a header line or #TraceData before '%s'",
				      tk_quote(qb, sizeof(qb), p, le));
		if (p + 1 < le && p[1] == '-') {
			uint64_t id;
			const char *ie;
			rc = htf_hex_id(h, ls, p + 2, le, &id, &ie, err);
			if (rc < 0)
				return rc;
			v = skip_blanks(ie, le);
			ke = trim_end(v, le);
			if (!cur) {
				if ((rc = depart(h, err, W_ROW_OUTSIDE, h->line,
						 ls, p, "table row outside a table",
						 "table row outside a table (ignored)")) < 0)
					return rc;
				continue;
			}
			if (v == ke)
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "table row without a value");
			rc = add_row(h, cur, id, ls, v, ke, err);
			if (rc < 0)
				return rc;
			continue;
		}
		k = p + 1;
		for (ke = k; ke < le && *ke != ' ' && *ke != '\t'; ke++)
			;
		if (ke == k)
			return err_at(h, err, TK_E_PARSE, h->line, ls, p,
				      "'#' without a key");
		v = skip_blanks(ke, le);
		if (key_is(k, (size_t)(ke - k), "TraceData")) {
			/* the rest of the line may only be a comment */
			if (v < le && !(le - v >= 2 && v[0] == '/' && v[1] == '/'))
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unexpected text after #TraceData");
			*data = tk_lines_offset(l);
			goto done;
		}
		if (is_table_key(k, (size_t)(ke - k))) {
			if (v != trim_end(v, le))
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unexpected text after #%s",
					      tk_quote(qb, sizeof(qb), k, ke));
			if ((size_t)(ke - k) >= sizeof(cur->name))
				return err_at(h, err, TK_E_PARSE, h->line, ls, k,
					      "table name too long");
			if (htf_find_table(h, k, (size_t)(ke - k)))
				return err_at(h, err, TK_E_PARSE, h->line, ls, k,
					      "#%s appears twice",
					      tk_quote(qb, sizeof(qb), k, ke));
			if (tk_grow_zero32((void **)&h->tabs, &h->captabs,
					   h->ntabs, sizeof(*h->tabs)) < 0)
				return tk_err_nomem(err, h->name);
			/* ntabs < captabs: the array is allocated */
			TK_ANALYZER_ASSUME(h->tabs != NULL);
			cur = &h->tabs[h->ntabs];
			memset(cur, 0, sizeof(*cur));
			memcpy(cur->name, k, (size_t)(ke - k));
			cur->line = h->line;
			/* by the name as kept (a NUL in the key ends it) */
			hash = htf_hash_nocase(cur->name, strlen(cur->name));
			if (tk_hashmap_add(&h->tabidx, hash, h->ntabs) < 0)
				return tk_err_nomem(err, h->name);
			h->ntabs++;
			continue;
		}
		cur = NULL;
		le = trim_end(v, le);
		rc = tk_trace_header_push(h->t, TK_HDR_PARAM, k, (size_t)(ke - k),
					 v, (size_t)(le - v), v > ke);
		if (rc < 0)
			return tk_err_nomem(err, h->name);
		rc = param(h, ls, k, (size_t)(ke - k), v, le, &seen_fmt,
			   &seen_ts, err);
		if (rc < 0)
			return rc;
	}
	return tk_err_set(err, TK_E_PARSE, h->name, h->line, 0,
			  "no #TraceData: the input ends in the header");
done:
	if (!seen_fmt) {
		if (h->strict)
			return tk_err_set(err, TK_E_PARSE, h->name, 1, 1,
					  "no #Format HTF in the header");
		tk_reader_warn(h->r, W_NO_FORMAT, 0, 0, "no #Format in the header");
	}
	if (!seen_ts &&
	    (rc = tk_reader_depart(h->r, err, W_NO_TIMESCALE, 0, 0,
				   "no #TimeScale in the header",
				   "no #TimeScale in the header: ns assumed")) < 0)
		return rc;
	if (!h->tl || !h->el || !h->vl)
		/* at the #TraceData line's first byte */
		return tk_err_set(err, TK_E_PARSE, h->name, h->line, 1,
				  "#TraceData before #%s (the record layout is not known)",
				  !h->tl ? "TimestampLength"
				  : !h->el ? "EntityLength" : "EventLength");
	h->w = 2 * (h->tl + h->el + h->vl);
	return TK_OK;
}

/* ---- open / close ------------------------------------------------------- */

int htf_reader_open(tk_reader *r, tk_error *err)
{
	htf_reader *h;
	uint64_t data = 0;
	tk_lines hl;
	/* lines that end with a CR alone are read as lines (the
	 * specification does not say how lines end) */
	int rc = tk_reader_text_open(r, sizeof(*h), W_CR_ONLY, NULL, err);

	if (!(h = r->impl))
		return rc;
	h->r = r;
	h->t = r->trace;
	h->name = tk_source_name(r->src);
	h->strict = r->opts.strict;
	/* the merge of sections is in time order where each section is: a
	 * time that decreases in one is an error in strict mode only */
	r->ordered = r->opts.strict;
	/* the tables give every entity's type before the first event */
	r->fixed_types = 1;
	if (rc < 0)
		goto fail;
	h->cr = rc;
	/* the header from the stream, consumed up to the trace data */
	tk_lines_init(&hl, r->src, h->cr);
	rc = read_header(h, &hl, &data, err);
	tk_lines_sync(&hl);
	if (rc < 0)
		goto fail;
	tk_source_consume(r->src, (size_t)(data - tk_source_offset(r->src)));
	if ((rc = precheck_lines(h, err)) < 0)
		goto fail;
	if ((rc = tk_source_size(r->src, &h->size, err)) < 0)
		goto fail;
	if ((rc = tk_lines_init_at(&h->lines, r->src, data, h->line + 1, h->cr,
				   err)) < 0)
		goto fail;
	if ((rc = htf_build_types(h, err)) < 0)
		goto fail;
	if ((rc = htf_build_entities(h, err)) < 0)
		goto fail;
	if ((rc = htf_build_descs(h, err)) < 0)
		goto fail;
	if ((rc = htf_find_sections(h, data, err)) < 0)
		goto fail;
	/* the line reader's buffer is not needed past the sections */
	tk_lines_free(&h->lines);
	if ((rc = htf_cursors_alloc(h, err)) < 0)
		goto fail;
	if ((h->ncur > NET_MAX &&
	     !(h->heap = calloc(h->ncur, sizeof(*h->heap)))) ||
	    tk_synth_init(&h->synth, &htf_synth_rules, h->nslots) < 0) {
		rc = tk_err_nomem(err, h->name);
		goto fail;
	}
	return TK_OK;
fail:
	htf_reader_close(r);
	return rc;
}

void htf_reader_close(tk_reader *r)
{
	htf_reader *h = r->impl;
	uint32_t i;

	if (!h)
		return;
	for (i = 0; i < h->ntabs; i++)
		free(h->tabs[i].rows);
	free(h->tabs);
	tk_hashmap_free(&h->tabidx);
	for (i = 0; i < h->ntypes; i++) {
		if (h->types[i].owner != i) /* shared with its owner */
			continue;
		free(h->types[i].evs);
		idmap_free(&h->types[i].evmap);
		if (h->evflat)
			free(h->evflat[i]);
	}
	free(h->evflat);
	free(h->types);
	idmap_free(&h->typemap);
	free(h->ents);
	idmap_free(&h->entmap);
	free(h->descs);
	free(h->keys);
	free(h->pair);
	for (i = 0; i < h->ncur; i++) {
		free(h->cur[i].win);
		if (!h->block)
			free(h->cur[i].b);
	}
	free(h->cur);
	tk_lines_free(&h->lines);
	free(h->heap);
	free(h->block);
	free(h->core_ids);
	free(h->own);
	tk_hashmap_free(&h->slotidx);
	tk_synth_free(&h->synth);
	free(h);
	r->impl = NULL;
}
