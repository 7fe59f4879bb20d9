/*
 * htf_reader.c - the HTF reader (AMALTHEA Hardware Trace Format 1.0).
 *
 * One single-threaded decoder: the header and the reference tables are
 * read line by line from the byte source's stream (core's line scanner,
 * lines.h) when the reader opens; then, over its random access
 * (tk_source_size(), tk_source_read_at()), one pass over the
 * trace data finds the sections ("#-<core>", each in time order) and
 * counts their lines; then each section has a cursor that reads its bytes
 * into a small window of its own and decodes up to BATCH plain records at
 * a time into (time, entity, event descriptor), and a k-way merge (heads
 * kept sorted up to 8 sections, a binary heap beyond) hands the records
 * out in (time, section) order, as events, in blocks
 * (htf_reader_next_batch).  Memory holds the tables and k cursors,
 * whatever the trace size.
 *
 * Strict mode is the specification; lenient mode reads the errors of the
 * spec's own examples where their meaning is clear (a letter O in a hex id,
 * "#Format HFT", a record longer than due whose extra leading digits are
 * zeros) and counts a warning for each.
 */
#define _GNU_SOURCE
#include "htf.h"
#include "../../core/hashmap.h"
#include "../../core/lines.h"
#include "../../core/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	W_FORMAT,
	W_LETTER_O,
	W_LONG_RECORD,
	W_COMMENT_LINE,
	W_NO_SECTION,
	W_TIME_DECREASES,
	W_UNKNOWN_TYPE,
	W_UNKNOWN_EVENT,
	W_ROW_OUTSIDE,
	W_LENGTH,
	W_NO_TIMESCALE,
	W_CORES,
	W_UNIT_CASE,
	W_TYPELESS_ROW,
	W_NO_FORMAT,
	W_CR_ONLY,
	W_LOST,
};

/* id -> value, sorted, with a direct array when the ids are small */
typedef struct idpair {
	uint64_t id;
	uint32_t val;
	uint32_t pos; /* row index, for messages */
} idpair;

typedef struct idmap {
	idpair *p;
	uint32_t n, cap;
	uint32_t *direct;
	uint64_t ndirect;
} idmap;

#define DIRECT_MAX (1u << 20)

/*
 * Tables, type rows and event table names are found through core's hash
 * map used as an index by a hash of their key (kindex_find), so that a
 * header of many is read in linear time (a walk over all of them per
 * lookup made it quadratic).  kindex_eq: 1 if value v's key is the key at
 * k (of n bytes).
 */
typedef int (*kindex_eq)(const void *ctx, uint32_t v, const void *k, size_t n);

typedef struct evinfo {
	tk_evkind kind;
	tk_str name;
} evinfo;

/* a rows of one reference table as read */
typedef struct row {
	uint64_t id;
	uint64_t line;
	uint32_t col;      /* of the value */
	tk_str value;      /* interned */
} row;

typedef struct table {
	char name[64];     /* "TypeTable", "TaskEventTable", ... as written */
	row *rows;
	uint32_t n, cap;
	uint64_t line;
} table;

typedef struct htype {
	int std;           /* HTF_TASK.. or -1 */
	int sk;            /* its synthesis kind */
	tk_etype et;
	tk_str type_name;  /* "T", "I", ... or the name as written */
	tk_str htf_name;   /* as in the #TypeTable */
	evinfo *evs;
	uint32_t nevs;
	uint32_t desc0;    /* its events' first index in descs[] */
	idmap evmap;
	/* Rows that name the same type alike (std, type_name and event table
	 * equal) share the first one's evs, evmap, descriptors and flat
	 * table: owner is that row's index (its own for the first) */
	uint32_t owner;
	const struct table *etab; /* its event table, or NULL */
	uint32_t nunknown; /* unknown event names in it (warnings) */
} htype;

/* What an event of one (type, event) pair puts in a tk_event: all of it is
 * known once the tables are read. */
typedef struct hdesc {
	tk_etype et;
	tk_evkind kind;
	tk_str type_name;
	tk_str name;
	tk_synth_op op;    /* what it does to the synthesis (its kind: op.sk) */
} hdesc;

typedef struct hent {
	uint32_t tkid;
	uint32_t type;     /* index in types[], or UINT32_MAX */
	/* event id -> index in descs[] (UINT32_MAX: none), flat for ids
	 * below nevd; beyond, the type's evmap */
	const uint32_t *evd;
	uint64_t nevd;
} hent;

/* a decoded record waiting in its cursor's batch */
typedef struct hrec {
	uint64_t time;
	uint64_t id;       /* tkid << 32 | the descriptor's key (rec_key) */
} hrec;

/*
 * A record's descriptor as the merge carries it: the index in descs[] in
 * the low bits, and what the instance counters need above
 * (tk_synth_count_), so the merge has them without a table.
 */
#define KEY_DESC 0x1fffffffu
#define KEY_START (1u << 29)
#define KEY_ACT (1u << 30)
#define KEY_COUNTED (1u << 31)

/* records decoded per section at a time; one batch is all plain records
 * (one line each) or one record that went through the line-at-a-time
 * path (so warnings and errors come exactly where they did one record at
 * a time).  A power of two: the merge finds the cursor of a record in its
 * block by a shift. */
#define BATCH 128

/* a cursor's window: its section's bytes read with tk_source_read_at() */
#define WIN_SIZE ((size_t)64 << 10)
#define WIN_LOW 4096    /* fewer bytes than this ahead: read more */
#define WIN_SLACK 16    /* after the window: tk_scan_hex16() reads 16 bytes */
/* the windows of all sections together: past 64 sections each gets less
 * than WIN_SIZE, down to WIN_MIN (a file of many sections would otherwise
 * hold 64 KB per section); a section smaller than its share gets its
 * own size */
#define WIN_BUDGET ((size_t)4 << 20)
#define WIN_MIN ((size_t)16 << 10)
/* the scan for the sections looks at this much at a time */
#define SCAN_CHUNK ((size_t)256 << 10)

typedef struct cursor {
	/* in the window: the next byte, the end of what is read */
	const char *p, *end;
	char *win;
	size_t wcap;
	uint64_t foff, fend; /* offsets: next to read, the section's end */
	uint64_t line;     /* of p */
	uint32_t slot;     /* core slot */
	uint32_t core;     /* core entity */
	int implicit;      /* records before the first "#-" */
	int have_time;
	uint64_t last_time;
	/* the record at the head, resolved (line-at-a-time path) */
	uint64_t time;
	uint32_t tkid;
	const struct htype *ty;
	const struct evinfo *vi;
	uint64_t rline;
	/* the batch: b[0..bn), record i on line bline + i; the merge's
	 * node of the cursor points at its head */
	uint32_t bn;
	uint64_t bline;
	hrec *b;           /* BATCH records, or fewer for a section too
			    * short to hold BATCH */
	uint64_t len;      /* the section's bytes */
} cursor;

/* a node of the heap (merge_heap): the head record of a cursor, its time
 * and the end of its batch */
typedef struct hnode {
	uint64_t time;
	const struct hrec *rec, *bend;
	uint64_t line;     /* of rec */
	uint32_t slot, core;
	uint64_t idx;      /* the cursor; also the tie-break */
} hnode;

/* events handed out per block */
#define EV_BATCH 256
/* sections merged by sorted heads (merge_net); more go through a heap */
#define NET_MAX 8

typedef struct htf_reader {
	tk_reader *r;
	tk_trace *t;
	const char *name;
	int strict;
	/* the bytes */
	uint64_t size;            /* the input's, decoded */
	int cr;                   /* CR-only line ends: read as LFs */
	tk_lines lines;           /* the section lines (read_at mode) */
	/* header */
	uint64_t line;
	unsigned tl, el, vl, w;   /* lengths in bytes; w: record width in digits */
	uint64_t ncores_decl;
	int have_ncores;
	/* tables */
	table *tabs;
	uint32_t ntabs, captabs;
	tk_hashmap tabidx;        /* tabs[] by name, ignoring case */
	htype *types;
	uint32_t ntypes;
	idmap typemap;
	hent *ents;
	uint32_t nents;
	idmap entmap;
	hdesc *descs;
	uint32_t *keys;           /* descs[i]'s key (KEY_*) */
	uint32_t ndescs;
	uint32_t **evflat;        /* per type: event id -> descs[] index */
	/* data */
	cursor *cur;
	uint32_t ncur, capcur;
	hnode *heap;
	uint32_t nheap;
	/* the merge: the sorted heads of up to NET_MAX sections (nnet: 4 or
	 * NET_MAX places; their batches in one block), or a heap */
	unsigned nnet;
	uint64_t nt[NET_MAX];
	uintptr_t nr[NET_MAX];
	hrec *block;
	int started;
	int stalled;              /* cur[stall]'s next record goes through
				   * the line-at-a-time path */
	uint32_t stall;
	int done, done_rc;        /* the end or an error was returned */
	tk_error done_err;
	tk_event evs[EV_BATCH];   /* the block handed out */
	/* per event of the block: its core slot << 32 | its key (KEY_*),
	 * for the synthesis after the merge (synth_block) */
	uint64_t evkey[EV_BATCH];
	/* (entity id, event id), the record's low bits, -> tkid << 32 |
	 * descs[] index (UINT64_MAX: not in the tables), when the ids are
	 * small enough for a flat table: one load per record */
	uint64_t *pair;
	uint64_t npair_ent;       /* entity ids below this have a row */
	unsigned pair_bits;       /* a row has 1 << pair_bits entries */
	uint64_t *core_ids;   /* per slot */
	uint8_t *own;         /* per slot: 1 if it has a section "#-<id>" */
	uint32_t nslots, capslots, capown;
	uint32_t nown;        /* slots with own[] set (for #NumberOfCores) */
	tk_hashmap slotidx;   /* core id -> slot */
	tk_synth synth;
} htf_reader;

/* ---- probing ------------------------------------------------------------ */

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

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

static int err_at(htf_reader *h, tk_error *err, int code, uint64_t line,
		  const char *ls, const char *at, const char *fmt, ...)
	TK_PRINTF(7, 8);

static int err_at(htf_reader *h, tk_error *err, int code, uint64_t line,
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
#ifdef __clang_analyzer__
/* the static analyzer does not follow variadic functions: err_at() returns
 * its code (internal.h) */
#define err_at(h, err, code, ...) tk_err_code_(err_at(h, err, code, __VA_ARGS__), code)
#endif

/* A warning at `at` of line `line`, which starts at ls (tk_reader_warn()). */
#define warn(h, kind, line, ls, at, ...)                                    \
	tk_reader_warn((h)->r, kind, line, (uint32_t)((at) - (ls)) + 1,      \
		       __VA_ARGS__)

/* A departure at `at` of line `line`, which starts at ls: strict's error
 * `sfmt`, or lenient's warning (tk_reader_depart()). */
#define depart(h, err, kind, line, ls, at, sfmt, ...)                       \
	tk_reader_depart((h)->r, err, kind, line,                           \
			 (uint32_t)((at) - (ls)) + 1, sfmt, __VA_ARGS__)

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int idmap_add(idmap *m, uint64_t id, uint32_t val, uint32_t pos)
{
	if (m->n == m->cap) {
		uint32_t ncap = m->cap ? m->cap * 2 : 4;
		idpair *n = tk_xrealloc_array(m->p, ncap, sizeof(*n));
		if (!n)
			return TK_E_NOMEM;
		m->p = n;
		m->cap = ncap;
	}
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
static int64_t idmap_build(idmap *m, int dense, int *nomem)
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

static inline uint32_t idmap_get(const idmap *m, uint64_t id)
{
	uint32_t lo = 0, hi = m->n;

	if (TK_LIKELY(id < m->ndirect))
		return m->direct[id];
	if (m->direct)
		return UINT32_MAX;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->p[lo].id == id ? m->p[lo].val : UINT32_MAX;
}

static void idmap_free(idmap *m)
{
	free(m->p);
	free(m->direct);
	memset(m, 0, sizeof(*m));
}

static uint32_t hash_nocase(const char *p, size_t n)
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
static uint32_t kindex_find(const tk_hashmap *x, uint64_t hash, kindex_eq eq,
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
static int src_read(htf_reader *h, uint64_t off, char *buf, size_t n,
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
static int hex_id(htf_reader *h, const char *ls, const char *p,
		  const char *e, uint64_t *out, const char **idend,
		  tk_error *err)
{
	uint64_t v = 0;
	const char *s = p;
	int n = 0;
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
		if (++n > 16) {
			return err_at(h, err, TK_E_RANGE, h->line, ls, s,
				      "hex id longer than 16 digits");
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
		*seen_ts = 1;
		if (tk_unit_parse(v, (size_t)(ve - v), 0, &u) < 0) {
			if (h->strict ||
			    tk_unit_parse(v, (size_t)(ve - v), 1, &u) < 0)
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unknown time scale '%s' (ps, ns, us, ms or s)",
					      tk_quote(qb, sizeof(qb), v, ve));
			warn(h, W_UNIT_CASE, h->line, ls, v,
			     "time scale '%s' in upper case",
			     tk_quote(qb, sizeof(qb), v, ve));
		}
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

	if (tb->n == tb->cap) {
		uint32_t ncap = tb->cap ? tb->cap * 2 : 4;
		row *n = tk_xrealloc_array(tb->rows, ncap, sizeof(*n));
		if (!n)
			return tk_err_nomem(err, h->name);
		tb->rows = n;
		tb->cap = ncap;
	}
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

static table *find_table(htf_reader *h, const char *name, size_t n)
{
	uint32_t i = kindex_find(&h->tabidx, hash_nocase(name, n), table_eq, h,
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
			rc = hex_id(h, ls, p + 2, le, &id, &ie, err);
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
			if (find_table(h, k, (size_t)(ke - k)))
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
			hash = hash_nocase(cur->name, strlen(cur->name));
			if (tk_hashmap_add(&h->tabidx, hash, h->ntabs) < 0)
				return tk_err_nomem(err, h->name);
			h->ntabs++;
			continue;
		}
		cur = NULL;
		le = trim_end(v, le);
		rc = tk_trace_add_header(h->t, TK_HDR_PARAM, k, (size_t)(ke - k),
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
		return tk_err_set(err, TK_E_PARSE, h->name, h->line, 0,
				  "#TraceData before #%s (the record layout is not known)",
				  !h->tl ? "TimestampLength"
				  : !h->el ? "EntityLength" : "EventLength");
	h->w = 2 * (h->tl + h->el + h->vl);
	return TK_OK;
}

/* ---- the tables --------------------------------------------------------- */

static int row_err(htf_reader *h, tk_error *err, int code, const row *rw,
		   const char *fmt, ...) TK_PRINTF(5, 6);

static int row_err(htf_reader *h, tk_error *err, int code, const row *rw,
		   const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_err_set(err, code, h->name, rw->line, rw->col, "%s", msg);
}

/* row v of a table's value is the key (k, n), ignoring case */
typedef struct row_ctx {
	const tk_trace *t;
	const table *tb;
} row_ctx;

static int row_value_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const row_ctx *rc = ctx;
	size_t tn;
	const char *ts = tk_trace_str(rc->t, rc->tb->rows[v].value, &tn);

	return tn == n && tk_ascii_ncaseeq(ts, k, n);
}

/* Strict mode: an error for an #<X>EventTable whose X is no type of the
 * #TypeTable (by an index of the type names: a walk over the types per
 * table took types x tables). */
static int check_event_tables(htf_reader *h, const table *tt, tk_error *err)
{
	tk_hashmap names = { 0 };
	row_ctx ctx = { h->t, tt };
	uint32_t i;
	int rc = TK_OK;

	for (i = 0; i < tt->n; i++) {
		size_t tn;
		const char *ts = tk_trace_str(h->t, tt->rows[i].value, &tn);
		if (tk_hashmap_add(&names, hash_nocase(ts, tn), i) < 0) {
			rc = tk_err_nomem(err, h->name);
			goto cleanup;
		}
	}
	for (i = 0; i < h->ntabs; i++) {
		const char *nm = h->tabs[i].name;
		size_t n = strlen(nm);
		if (n <= 10 ||
		    tk_ascii_casecmp(nm + n - 10, 10, "EventTable") != 0)
			continue;
		if (kindex_find(&names, hash_nocase(nm, n - 10), row_value_eq,
				&ctx, nm, n - 10) == UINT32_MAX) {
			rc = tk_err_set(err, TK_E_PARSE, h->name,
					h->tabs[i].line, 1,
					"#%s is for a type the #TypeTable does not list",
					nm);
			goto cleanup;
		}
	}
cleanup:
	tk_hashmap_free(&names);
	return rc;
}

/* a type row's key for sharing: what its events' descriptors hold */
static uint64_t type_hash(const htype *ty)
{
	return (uint64_t)ty->type_name << 32 ^ (uint64_t)(uint32_t)ty->std ^
	       (uint64_t)(uintptr_t)ty->etab * 0x9e3779b97f4a7c15ull;
}

static int type_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const htf_reader *h = ctx;
	const htype *a = &h->types[v], *b = k;

	(void)n;
	return a->std == b->std && a->type_name == b->type_name &&
	       a->etab == b->etab;
}

/* The type rows whose first spelling uses event table et (for a
 * message). */
static uint32_t spellings(const htf_reader *h, const table *et)
{
	uint32_t i, n = 0;

	for (i = 0; i < h->ntypes; i++)
		n += h->types[i].etab == et && h->types[i].owner == i;
	return n;
}

/* The events of type ty from its event table et. */
static int type_events(htf_reader *h, htype *ty, const table *et,
		       tk_error *err)
{
	size_t ne;
	const htf_event_name *names = htf_events(ty->std, &ne);
	uint32_t j;
	int64_t dup;
	int nomem;

	ty->evs = calloc(et->n ? et->n : 1, sizeof(*ty->evs));
	if (!ty->evs)
		return tk_err_nomem(err, h->name);
	ty->nevs = et->n;
	for (j = 0; j < et->n; j++) {
		const row *er = &et->rows[j];
		size_t en, k;
		const char *es = tk_trace_str(h->t, er->value, &en);
		evinfo *vi = &ty->evs[j];

		vi->kind = TK_EV_OTHER;
		vi->name = TK_NONE;
		for (k = 0; k < ne; k++) {
			if (tk_ascii_casecmp(es, en, names[k].htf) == 0) {
				const char *bn = tk_evkind_name(names[k].kind);
				vi->kind = names[k].kind;
				vi->name = tk_strpool_intern(&h->t->pool, bn,
							     strlen(bn));
				if (vi->name == TK_NONE)
					return tk_err_nomem(err, h->name);
				break;
			}
		}
		if (vi->name == TK_NONE) {
			int rc = tk_reader_depart(h->r, err, W_UNKNOWN_EVENT,
						  er->line, er->col,
						  "unknown event '%.40s' in #%s",
						  "unknown event '%.40s' in #%s (kept by name)",
						  es, et->name);
			if (rc < 0)
				return rc;
			ty->nunknown++;
			vi->name = er->value;
		}
		if (idmap_add(&ty->evmap, er->id, j, j) < 0)
			return tk_err_nomem(err, h->name);
	}
	dup = idmap_build(&ty->evmap, 1, &nomem);
	if (nomem)
		return tk_err_nomem(err, h->name);
	if (dup >= 0)
		return row_err(h, err, TK_E_PARSE, &et->rows[dup],
			       "event id defined twice in #%s", et->name);
	return TK_OK;
}

/*
 * The types of the #TypeTable and their events.  Rows that name a type
 * alike (see htype.owner) share the first one's events, so that a table
 * that repeats a type costs a row's memory per row, not an event table's.
 */
static int build_types(htf_reader *h, tk_error *err)
{
	table *tt = find_table(h, "TypeTable", 9);
	tk_hashmap classes = { 0 };
	uint64_t rows = 0, ndescs = 0, limit;
	uint32_t i, o;
	int64_t dup;
	int nomem, rc = TK_OK;

	if (!tt)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #TypeTable in the header");
	h->types = calloc(tt->n ? tt->n : 1, sizeof(*h->types));
	if (!h->types)
		return tk_err_nomem(err, h->name);
	/* the descriptors (one per type and event) may be many more than
	 * the rows only for types that differ in case only: see below */
	for (i = 0; i < h->ntabs; i++)
		rows += h->tabs[i].n;
	limit = 8 * rows + 65536;
	if (limit > KEY_DESC)
		limit = KEY_DESC;
	for (i = 0; i < tt->n; i++) {
		const row *rw = &tt->rows[i];
		size_t n;
		const char *s = tk_trace_str(h->t, rw->value, &n);
		htype *ty = &h->types[h->ntypes++];
		char key[96];
		table *et;

		ty->std = htf_type_lookup(s, n);
		ty->sk = htf_synth_kind(ty->std);
		ty->htf_name = rw->value;
		/* the id, for a writer that keeps the input's ids */
		snprintf(key, sizeof(key), "TypeTable.%02llX",
			 (unsigned long long)rw->id);
		if (tk_trace_add_header(h->t, TK_HDR_PARAM, key, strlen(key), s,
					n, 1) < 0)
			goto nomem;
		if (ty->std < 0) {
			rc = tk_reader_depart(h->r, err, W_UNKNOWN_TYPE,
					      rw->line, rw->col,
					      "unknown entity type '%.40s' (Task, ISR, Runnable, CodeBlock, Signal, Semaphore)",
					      "unknown entity type '%.40s' (kept by name)",
					      s);
			if (rc < 0)
				goto cleanup;
			ty->et = TK_ET_OTHER;
			ty->type_name = rw->value;
		} else {
			const char *tn = tk_etype_name(htf_type_etype(ty->std));
			ty->et = htf_type_etype(ty->std);
			ty->type_name = tk_strpool_intern(&h->t->pool, tn,
							  strlen(tn));
			if (ty->type_name == TK_NONE)
				goto nomem;
		}
		if (idmap_add(&h->typemap, rw->id, h->ntypes - 1, i) < 0)
			goto nomem;
		/* its event table, by name */
		et = NULL;
		if (n <= 64) {
			snprintf(key, sizeof(key), "%.*sEventTable", (int)n, s);
			et = find_table(h, key, strlen(key));
		}
		ty->etab = et;
		ty->owner = i;
		/* a type named alike before: its events are these */
		o = kindex_find(&classes, type_hash(ty), type_eq, h, ty, 0);
		if (o != UINT32_MAX) {
			const htype *ot = &h->types[o];
			ty->owner = o;
			ty->evs = ot->evs;
			ty->nevs = ot->nevs;
			ty->evmap = ot->evmap;
			/* the warnings its events gave, counted as if they came
			 * again (the first of their kind was shown) */
			h->r->nwarn += ot->nunknown;
			continue;
		}
		if (tk_hashmap_add(&classes, type_hash(ty), i) < 0)
			goto nomem;
		if (!et)
			continue;
		/* Each new type makes a descriptor per row of its event table.
		 * Types of no type of the spec are kept as written, so names
		 * that differ in case only are different types that share one
		 * event table: spellings x rows descriptors. */
		ndescs += et->n;
		if (ndescs > limit) {
			rc = row_err(h, err, TK_E_PARSE, rw,
				     "too many event descriptors (more than %llu): #%s serves %u types whose names differ in case only",
				     (unsigned long long)limit, et->name,
				     spellings(h, et));
			goto cleanup;
		}
		if ((rc = type_events(h, ty, et, err)) < 0)
			goto cleanup;
	}
	dup = idmap_build(&h->typemap, 0, &nomem);
	if (nomem)
		goto nomem;
	if (dup >= 0) {
		rc = row_err(h, err, TK_E_PARSE, &tt->rows[dup],
			     "type id defined twice in #TypeTable");
		goto cleanup;
	}
	/* event tables that belong to no type (strict mode only) */
	if (h->strict)
		rc = check_event_tables(h, tt, err);
	goto cleanup;
nomem:
	rc = tk_err_nomem(err, h->name);
cleanup:
	tk_hashmap_free(&classes);
	return rc;
}

static int build_entities(htf_reader *h, tk_error *err)
{
	table *et = find_table(h, "EntityTable", 11);
	table *ett = find_table(h, "EntityTypeTable", 15);
	uint32_t i;
	int64_t dup;
	int nomem;

	if (!et)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #EntityTable in the header");
	if (!ett)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #EntityTypeTable in the header");
	h->ents = calloc(et->n ? et->n : 1, sizeof(*h->ents));
	if (!h->ents)
		return tk_err_nomem(err, h->name);
	for (i = 0; i < et->n; i++) {
		hent *e = &h->ents[h->nents++];
		e->tkid = tk_trace_entity_get(h->t, et->rows[i].value);
		if (e->tkid == TK_NONE)
			return tk_err_nomem(err, h->name);
		e->type = UINT32_MAX;
		if (idmap_add(&h->entmap, et->rows[i].id, i, i) < 0)
			return tk_err_nomem(err, h->name);
		{
			/* the id, for a writer that keeps the input's ids */
			char key[48];
			size_t n;
			const char *s = tk_trace_str(h->t, et->rows[i].value, &n);
			snprintf(key, sizeof(key), "EntityTable.%0*llX",
				 (int)(2 * h->el),
				 (unsigned long long)et->rows[i].id);
			if (tk_trace_add_header(h->t, TK_HDR_PARAM, key,
						strlen(key), s, n, 1) < 0)
				return tk_err_nomem(err, h->name);
		}
	}
	dup = idmap_build(&h->entmap, 0, &nomem);
	if (nomem)
		return tk_err_nomem(err, h->name);
	if (dup >= 0)
		return row_err(h, err, TK_E_PARSE, &et->rows[dup],
			       "entity id defined twice in #EntityTable");
	for (i = 0; i < ett->n; i++) {
		const row *rw = &ett->rows[i];
		size_t n;
		const char *s = tk_trace_str(h->t, rw->value, &n);
		uint32_t ei = idmap_get(&h->entmap, rw->id), ti;
		uint64_t tid;
		size_t k;
		tk_entity *te;

		if (ei == UINT32_MAX) {
			int rc = tk_reader_depart(h->r, err, W_TYPELESS_ROW,
						  rw->line, rw->col,
						  "entity id 0x%llX is not in the #EntityTable",
						  "entity id 0x%llX is not in the #EntityTable (row ignored)",
						  (unsigned long long)rw->id);
			if (rc < 0)
				return rc;
			continue;
		}
		tid = 0;
		for (k = 0; k < n; k++) {
			int d = hexval((unsigned char)s[k]);
			if (d < 0 || k >= 16)
				return row_err(h, err, TK_E_PARSE, rw,
					       "type id '%.40s' is not hexadecimal",
					       s);
			tid = tid << 4 | (uint64_t)d;
		}
		ti = idmap_get(&h->typemap, tid);
		if (ti == UINT32_MAX)
			return row_err(h, err, TK_E_PARSE, rw,
				       "type id '%.40s' is not in the #TypeTable",
				       s);
		if (h->ents[ei].type != UINT32_MAX && h->ents[ei].type != ti)
			return row_err(h, err, TK_E_PARSE, rw,
				       "entity id 0x%llX has two types",
				       (unsigned long long)rw->id);
		h->ents[ei].type = ti;
		te = tk_trace_ent(h->t, h->ents[ei].tkid);
		te->type = h->types[ti].et;
		te->type_name = h->types[ti].type_name;
	}
	return TK_OK;
}

/* The event descriptors of all (type, event) pairs, and per entity a flat
 * table from its event ids to them. */
#define PAIR_MAX ((uint64_t)1 << 20)

/*
 * The flat (entity id, event id) table of the batch decoder, when it fits
 * in PAIR_MAX entries: a row per entity id of as many entries as the
 * largest event id of any table needs (a power of two), so that it stays
 * small enough for the first-level cache in the usual case.
 */
static int build_pairs(htf_reader *h, tk_error *err)
{
	const idmap *em = &h->entmap;
	uint64_t evmax = 0, nev, n;
	unsigned evbits = 0;
	uint32_t i, j;

	if (h->w > 16 || !em->n)
		return TK_OK;
	for (i = 0; i < h->ntypes; i++) {
		const idmap *vm = &h->types[i].evmap;
		if (vm->n && vm->p[vm->n - 1].id > evmax)
			evmax = vm->p[vm->n - 1].id;
	}
	while (evbits < 20 && ((uint64_t)1 << evbits) <= evmax)
		evbits++;
	if (((uint64_t)1 << evbits) <= evmax ||
	    em->p[em->n - 1].id >= (PAIR_MAX >> evbits))
		return TK_OK;
	nev = (uint64_t)1 << evbits;
	n = (em->p[em->n - 1].id + 1) << evbits;
	h->pair = malloc(n * sizeof(*h->pair));
	if (!h->pair)
		return tk_err_nomem(err, h->name);
	memset(h->pair, 0xff, n * sizeof(*h->pair));
	h->npair_ent = em->p[em->n - 1].id + 1;
	h->pair_bits = evbits;
	for (i = 0; i < em->n; i++) {
		const hent *e = &h->ents[em->p[i].val];
		uint64_t *prow = h->pair + (em->p[i].id << evbits);
		const htype *ty;
		if (e->type == UINT32_MAX)
			continue;
		ty = &h->types[e->type];
		for (j = 0; j < ty->evmap.n; j++) {
			uint64_t ev = ty->evmap.p[j].id;
			if (ev >= nev)
				break;
			prow[ev] = (uint64_t)e->tkid << 32 |
				  h->keys[ty->desc0 + ty->evmap.p[j].val];
		}
	}
	return TK_OK;
}

static int build_descs(htf_reader *h, tk_error *err)
{
	uint32_t i, j, n = 0;

	/* one set per type named alike (build_types: fewer than KEY_DESC) */
	for (i = 0; i < h->ntypes; i++) {
		htype *ty = &h->types[i];
		if (ty->owner != i) {
			ty->desc0 = h->types[ty->owner].desc0;
			continue;
		}
		ty->desc0 = n;
		n += ty->nevs;
	}
	h->descs = calloc(n ? n : 1, sizeof(*h->descs));
	h->keys = calloc(n ? n : 1, sizeof(*h->keys));
	h->evflat = calloc(h->ntypes ? h->ntypes : 1, sizeof(*h->evflat));
	if (!h->descs || !h->keys || !h->evflat)
		return tk_err_nomem(err, h->name);
	h->ndescs = n;
	for (i = 0; i < h->ntypes; i++) {
		const htype *ty = &h->types[i];
		uint64_t k;
		if (ty->owner != i) {
			h->evflat[i] = h->evflat[ty->owner];
			continue;
		}
		for (j = 0; j < ty->nevs; j++) {
			hdesc *d = &h->descs[ty->desc0 + j];
			d->et = ty->et;
			d->kind = ty->evs[j].kind;
			d->type_name = ty->type_name;
			d->name = ty->evs[j].name;
			d->op = tk_synth_op_make(&htf_synth_rules, ty->sk, d->kind);
			h->keys[ty->desc0 + j] =
				(ty->desc0 + j) |
				(d->op.is_start ? KEY_START : 0) |
				(d->op.is_act ? KEY_ACT : 0) |
				(d->op.sk < TK_SK_OTHER ? KEY_COUNTED : 0);
		}
		if (!ty->evmap.direct)
			continue;
		h->evflat[i] = malloc(ty->evmap.ndirect * sizeof(**h->evflat));
		if (!h->evflat[i])
			return tk_err_nomem(err, h->name);
		for (k = 0; k < ty->evmap.ndirect; k++) {
			uint32_t v = ty->evmap.direct[k];
			h->evflat[i][k] = v == UINT32_MAX ? v : ty->desc0 + v;
		}
	}
	for (i = 0; i < h->nents; i++) {
		hent *e = &h->ents[i];
		if (e->type == UINT32_MAX || !h->evflat[e->type])
			continue;
		e->evd = h->evflat[e->type];
		e->nevd = h->types[e->type].evmap.ndirect;
	}
	return build_pairs(h, err);
}

/* ---- sections ----------------------------------------------------------- */

/* The LFs in [p, e): 16 byte counters at a time, summed before they can
 * overflow (a loop the compiler may vectorise) */
static uint64_t count_nl(const char *p, const char *e)
{
	uint64_t n = 0;

	while (e - p >= 16) {
		unsigned char acc[16] = { 0 };
		size_t blocks = (size_t)(e - p) / 16, j;
		unsigned k;
		if (blocks > 255)
			blocks = 255;
		for (j = 0; j < blocks; j++, p += 16)
			for (k = 0; k < 16; k++)
				acc[k] = (unsigned char)(acc[k] + (p[k] == '\n'));
		for (k = 0; k < 16; k++)
			n += acc[k];
	}
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

static int core_slot(htf_reader *h, uint64_t id, uint32_t *slot,
		     uint32_t *ent, tk_error *err)
{
	char name[32];
	tk_entity *e;
	uint32_t i;

	snprintf(name, sizeof(name), "Core_%llu", (unsigned long long)id);
	*ent = tk_trace_entity_intern(h->t, name, strlen(name));
	if (*ent == TK_NONE)
		return tk_err_nomem(err, h->name);
	e = tk_trace_ent(h->t, *ent);
	if (e->type == TK_ET_UNKNOWN) {
		e->type = TK_ET_C;
		e->type_name = tk_strpool_intern(&h->t->pool, "C", 1);
	}
	i = tk_hashmap_get(&h->slotidx, id);
	if (i != TK_NONE) {
		*slot = i;
		return TK_OK;
	}
	if (tk_grow_zero32((void **)&h->core_ids, &h->capslots, h->nslots,
			   sizeof(*h->core_ids)) < 0 ||
	    tk_grow_zero32((void **)&h->own, &h->capown, h->nslots,
			   sizeof(*h->own)) < 0)
		return tk_err_nomem(err, h->name);
	h->core_ids[h->nslots] = id;
	h->own[h->nslots] = 0;
	if (tk_hashmap_set(&h->slotidx, id, h->nslots) < 0)
		return tk_err_nomem(err, h->name);
	*slot = h->nslots++;
	return TK_OK;
}

/* Whether [beg, end) holds a line that is not blank and not only a `//`
 * comment (the records before the first section): 1, 0 or an error. */
static int has_content(htf_reader *h, uint64_t beg, uint64_t end,
		       tk_error *err)
{
	char buf[4096];
	/* 0: at a line's start (blanks so far), 1: after a first '/',
	 * 2: in a line that is not content */
	int st = 0, rc;

	while (beg < end) {
		size_t n = end - beg < sizeof(buf) ? (size_t)(end - beg)
						   : sizeof(buf), i;
		if ((rc = src_read(h, beg, buf, n, err)) < 0)
			return rc;
		for (i = 0; i < n; i++) {
			char ch = buf[i];
			if (st == 0) {
				if (ch == '/')
					st = 1;
				else if (ch == '\r')
					st = 2;
				else if (ch != ' ' && ch != '\t' && ch != '\n')
					return 1;
			} else if (st == 1) {
				if (ch != '/')
					return 1;
				st = 2;
			} else if (ch == '\n') {
				st = 0;
			}
		}
		beg += n;
	}
	return st == 1;
}

static int add_cursor(htf_reader *h, uint64_t beg, uint64_t end,
		      uint64_t line, uint64_t core_id, int implicit,
		      tk_error *err)
{
	cursor *c;
	uint32_t slot = 0, core = 0;
	int rc;

	if (implicit && (rc = has_content(h, beg, end, err)) <= 0)
		return rc;
	rc = core_slot(h, core_id, &slot, &core, err);
	if (rc < 0)
		return rc;
	if (!implicit && !h->own[slot]) {
		h->own[slot] = 1;
		h->nown++;
	}
	/* an empty section ("#-1" right before "#-2") has its core and
	 * nothing else: no cursor (a file of such lines would cost a cursor
	 * per 4 bytes) */
	if (beg == end && !implicit)
		return TK_OK;
	if (tk_grow_zero32((void **)&h->cur, &h->capcur, h->ncur,
			   sizeof(*h->cur)) < 0)
		return tk_err_nomem(err, h->name);
	c = &h->cur[h->ncur];
	memset(c, 0, sizeof(*c));
	c->foff = beg;
	c->fend = end;
	c->line = line;
	c->implicit = implicit;
	c->len = end - beg;
	c->slot = slot;
	c->core = core;
	h->ncur++;
	return TK_OK;
}

/*
 * Each cursor's batch and window, once the sections are known: no larger
 * than its section needs, and the windows of many sections share
 * WIN_BUDGET (see there), so that memory follows the input's size, not
 * the number of sections it declares.
 */
static int cursors_alloc(htf_reader *h, tk_error *err)
{
	size_t share = h->ncur ? WIN_BUDGET / h->ncur : WIN_SIZE;
	uint32_t i;

	if (share > WIN_SIZE)
		share = WIN_SIZE;
	if (share < WIN_MIN)
		share = WIN_MIN;
	h->nnet = h->ncur <= 4 ? 4 : h->ncur <= NET_MAX ? NET_MAX : 0;
	if (h->nnet && h->ncur &&
	    !(h->block = calloc((size_t)h->ncur * BATCH, sizeof(hrec))))
		return tk_err_nomem(err, h->name);
	for (i = 0; i < h->ncur; i++) {
		cursor *c = &h->cur[i];
		/* a record is at least w + 1 bytes (the last maybe w) */
		uint64_t recs = c->len / (h->w + 1) + 1;
		size_t nb = recs < BATCH ? (size_t)recs : BATCH;
		c->b = h->block ? h->block + (size_t)i * BATCH
				: calloc(nb, sizeof(*c->b));
		if (!c->b)
			return tk_err_nomem(err, h->name);
		c->wcap = c->len < share ? (size_t)c->len : share;
		if (!c->wcap)
			c->wcap = 1;
		c->win = calloc(c->wcap + WIN_SLACK, 1);
		if (!c->win)
			return tk_err_nomem(err, h->name);
		c->p = c->end = c->win;
	}
	return TK_OK;
}

/* A section line "#-<hex id>" at offset ls (its '#' at offset m), on line
 * `line`: the core id, and *next the offset after the line. */
static int section_line(htf_reader *h, uint64_t lso, uint64_t mo,
			uint64_t line, uint64_t *id, uint64_t *next,
			tk_error *err)
{
	const char *ls, *le, *m, *ie, *r;
	char qb[64];
	size_t n;
	int rc;

	*next = lso;
	/* no further than a line may go */
	if (mo - lso > TK_LINE_MAX)
		return tk_err_line_long(err, h->name, line);
	tk_lines_seek(&h->lines, lso, line);
	rc = tk_lines_next(&h->lines, &ls, &n, err);
	if (rc != TK_OK)
		return rc < 0 ? rc : tk_err_line_long(err, h->name, line);
	le = ls + n;
	*next = tk_lines_offset(&h->lines);
	h->line = line;
	m = ls + (mo - lso);
	if (le - m < 2 || m[1] != '-')
		return err_at(h, err, TK_E_PARSE, line, ls, m,
			      "'%s' in the trace data (a core section is '#-<core id>')",
			      tk_quote(qb, sizeof(qb), m, le));
	rc = hex_id(h, ls, m + 2, le, id, &ie, err);
	if (rc < 0)
		return rc;
	r = skip_blanks(ie, le);
	if (r < le && !(le - r >= 2 && r[0] == '/' && r[1] == '/'))
		return err_at(h, err, TK_E_PARSE, line, ls, r,
			      "unexpected text after the core section '%s'",
			      tk_quote(qb, sizeof(qb), m, ie));
	return TK_OK;
}

/*
 * One pass over the trace data from offset `data`, SCAN_CHUNK at a time:
 * the '#'s that begin a line (after blanks) are section lines, the LFs
 * before them are counted for the sections' line numbers.
 */
static int find_sections(htf_reader *h, uint64_t data, tk_error *err)
{
	uint64_t off = data, beg = data, line = h->line + 1, beg_line = line;
	uint64_t core_id = 0, ls_start = data;
	/* the bytes since the last LF before the chunk are all blanks,
	 * from a line's start at ls_start */
	int at_ls = 1, implicit = 1, rc = TK_OK;
	char *buf = malloc(SCAN_CHUNK);

	if (!buf)
		return tk_err_nomem(err, h->name);
	while (off < h->size) {
		size_t n = h->size - off < SCAN_CHUNK ? (size_t)(h->size - off)
						      : SCAN_CHUNK;
		size_t i = 0, counted = 0, k;
		int next_chunk = 0;
		if ((rc = src_read(h, off, buf, n, err)) < 0)
			goto out;
		while (i < n) {
			const char *m = memchr(buf + i, '#', n - i);
			uint64_t lso, id, next;
			size_t j;
			if (!m)
				break;
			j = (size_t)(m - buf);
			for (k = j; k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\t'); k--)
				;
			if (k > 0 ? buf[k - 1] != '\n' : !at_ls) {
				/* in a comment */
				i = j + 1;
				continue;
			}
			lso = k > 0 ? off + k : ls_start;
			line += count_nl(buf + counted, buf + k);
			counted = k;
			if ((rc = add_cursor(h, beg, lso, beg_line, core_id,
					     implicit, err)) < 0)
				goto out;
			if ((rc = section_line(h, lso, off + j, line, &id, &next,
					       err)) < 0)
				goto out;
			core_id = id;
			implicit = 0;
			beg = next;
			beg_line = ++line;
			if (next >= off + n) {
				/* the line ends past the chunk */
				off = next;
				at_ls = 1;
				ls_start = next;
				next_chunk = 1;
				break;
			}
			i = counted = (size_t)(next - off);
		}
		if (next_chunk)
			continue;
		line += count_nl(buf + counted, buf + n);
		for (k = n; k > counted && (buf[k - 1] == ' ' || buf[k - 1] == '\t'); k--)
			;
		if (k > counted) {
			at_ls = buf[k - 1] == '\n';
			if (at_ls)
				ls_start = off + k;
		} else if (counted > 0) {
			/* blanks after a section line that ended in the chunk */
			at_ls = 1;
			ls_start = off + counted;
		}
		/* else all blanks: at_ls and ls_start go on */
		off += n;
	}
	rc = add_cursor(h, beg, h->size, beg_line, core_id, implicit, err);
	if (rc < 0)
		goto out;
	if (h->have_ncores) {
		/* the cores that have a section of their own */
		uint32_t nc = h->nown;
		if (nc > h->ncores_decl &&
		    (rc = tk_reader_depart(h->r, err, W_CORES, 0, 0,
					   "%u core sections, #NumberOfCores is %llu",
					   "%u core sections, #NumberOfCores is %llu",
					   nc, (unsigned long long)h->ncores_decl)) < 0)
			goto out;
	}
	rc = TK_OK;
out:
	free(buf);
	return rc;
}

/* ---- records ------------------------------------------------------------ */

/* Resolve the head record's ids; report what is wrong with them. */
static inline int resolve(htf_reader *h, cursor *c, const char *ls,
			  const char *rec, uint64_t ent_id, uint64_t ev_id,
			  tk_error *err)
{
	uint32_t ei = idmap_get(&h->entmap, ent_id), vi;
	const htype *ty;

	if (TK_UNLIKELY(ei == UINT32_MAX))
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * h->tl,
			      "entity id 0x%0*llX is not in the #EntityTable",
			      (int)(2 * h->el), (unsigned long long)ent_id);
	if (TK_UNLIKELY(h->ents[ei].type == UINT32_MAX)) {
		size_t n;
		const char *s = tk_trace_str(h->t,
					     tk_trace_ent(h->t, h->ents[ei].tkid)->name,
					     &n);
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * h->tl,
			      "entity '%.40s' has no type in the #EntityTypeTable",
			      s);
	}
	ty = &h->types[h->ents[ei].type];
	vi = idmap_get(&ty->evmap, ev_id);
	if (TK_UNLIKELY(vi == UINT32_MAX)) {
		size_t n;
		const char *s = tk_trace_str(h->t, ty->htf_name, &n);
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * (h->tl + h->el),
			      "event id 0x%0*llX is not in the #%.40sEventTable",
			      (int)(2 * h->vl), (unsigned long long)ev_id, s);
	}
	c->tkid = h->ents[ei].tkid;
	c->ty = ty;
	c->vi = &ty->evs[vi];
	return TK_OK;
}

static int check_time(htf_reader *h, cursor *c, const char *ls,
		      const char *rec, tk_error *err)
{
	if (c->have_time && c->time < c->last_time) {
		int rc = depart(h, err, W_TIME_DECREASES, c->rline, ls, rec,
				"time decreases in the section of Core_%llu (0x%llX after 0x%llX)",
				"time decreases in the section of Core_%llu (0x%llX after 0x%llX); merged as it is",
				(unsigned long long)h->core_ids[c->slot],
				(unsigned long long)c->time,
				(unsigned long long)c->last_time);
		if (rc < 0)
			return rc;
	}
	c->last_time = c->time;
	c->have_time = 1;
	return TK_OK;
}

/*
 * Move what is left of the window to its front and read on, until a line
 * ends in it or the section is all read (a line longer than the window
 * makes it grow, up to what a line may be).
 */
static int win_fill(htf_reader *h, cursor *c, tk_error *err)
{
	size_t keep = (size_t)(c->end - c->p);
	int rc;

	memmove(c->win, c->p, keep);
	c->p = c->win;
	c->end = c->win + keep;
	while (c->foff < c->fend) {
		uint64_t left = c->fend - c->foff;
		size_t want = c->wcap - keep;
		if (!want) {
			size_t ncap = c->wcap * 2;
			char *nw;
			if (keep > TK_LINE_MAX + 1)
				return tk_err_line_long(err, h->name, c->line);
			if (!(nw = realloc(c->win, ncap + WIN_SLACK)))
				return tk_err_nomem(err, h->name);
			memset(nw + c->wcap + WIN_SLACK, 0, ncap - c->wcap);
			c->win = nw;
			c->wcap = ncap;
			c->p = nw;
			c->end = nw + keep;
			continue;
		}
		if (want > left)
			want = (size_t)left;
		if ((rc = src_read(h, c->foff, c->win + keep, want, err)) < 0)
			return rc;
		c->foff += want;
		keep += want;
		c->end = c->win + keep;
		if (memchr(c->win, '\n', keep))
			break;
	}
	return TK_OK;
}

/* The record at the head of cursor c, one line at a time: TK_OK, TK_END or
 * an error. */
static int cur_next(htf_reader *h, cursor *c, tk_error *err)
{
	const unsigned w = h->w, tl2 = 2 * h->tl, el2 = 2 * h->el,
		       vl2 = 2 * h->vl;
	uint64_t ent_id, ev_id;
	char qb[64];
	int rc;

	for (;;) {
		const char *p, *s, *e, *ls;
		unsigned n;

		if (c->foff < c->fend &&
		    !memchr(c->p, '\n', (size_t)(c->end - c->p))) {
			rc = win_fill(h, c, err);
			if (rc < 0)
				return rc;
		}
		p = ls = c->p;
		if (p >= c->end)
			return TK_END;
		/* anything else, one line at a time */
		s = skip_blanks(p, c->end);
		/* no further than a line may go: its bytes, a CR and the LF */
		if ((size_t)(c->end - p) > TK_LINE_MAX + 2)
			e = memchr(s, '\n', (size_t)(p + TK_LINE_MAX + 2 - s));
		else
			e = memchr(s, '\n', (size_t)(c->end - s));
		if (!e && (size_t)(c->end - p) > TK_LINE_MAX + 1)
			return tk_err_line_long(err, h->name, c->line);
		if (!e)
			e = c->end;
		if ((size_t)(e - p) - (e > p && e[-1] == '\r') > TK_LINE_MAX)
			return tk_err_line_long(err, h->name, c->line);
		c->p = e < c->end ? e + 1 : c->end;
		c->rline = c->line++;
		if (e > s && e[-1] == '\r')
			e--;
		if (s == e)
			continue;
		if (e - s >= 2 && s[0] == '/' && s[1] == '/') {
			if ((rc = depart(h, err, W_COMMENT_LINE, c->rline, ls, s,
					 "a comment without a record",
					 "a comment without a record (skipped)")) < 0)
				return rc;
			continue;
		}
		for (n = 0; s + n < e && hexval((unsigned char)s[n]) >= 0; n++)
			;
		{
			const char *r = skip_blanks(s + n, e);
			if (r < e && !(e - r >= 2 && r[0] == '/' && r[1] == '/'))
				return err_at(h, err, TK_E_PARSE, c->rline, ls, r,
					      "'%s' in a record (a record is %u hex digits, then an optional // comment)",
					      tk_quote(qb, sizeof(qb), r, r + 1), w);
			if (r == s + n && r < e)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, r,
					      "a blank is needed between the record and its comment");
		}
		if (n != w) {
			unsigned extra = n > w ? n - w : 0, i;
			int zeros = extra > 0;
			for (i = 0; i < extra; i++)
				zeros &= s[i] == '0';
			if (h->strict || !zeros)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, s,
					      "record '%s' has %u hex digits, %u are due (TimestampLength %u + EntityLength %u + EventLength %u)",
					      tk_quote(qb, sizeof(qb), s, s + n), n, w,
					      h->tl, h->el, h->vl);
			warn(h, W_LONG_RECORD, c->rline, ls, s,
			     "record '%s' has %u hex digits, %u are due: the extra leading zeros are ignored",
			     tk_quote(qb, sizeof(qb), s, s + n), n, w);
			s += extra;
		}
		if (c->implicit) {
			if ((rc = depart(h, err, W_NO_SECTION, c->rline, ls, s,
					 "a record before the first core section '#-<core id>'",
					 "records before the first core section: read as Core_0")) < 0)
				return rc;
			c->implicit = 0;
		}
		/* the digits are checked above */
		(void)tk_scan_hex16(s, tl2, &c->time);
		(void)tk_scan_hex16(s + tl2, el2, &ent_id);
		(void)tk_scan_hex16(s + tl2 + el2, vl2, &ev_id);
		if ((rc = check_time(h, c, ls, s, err)) < 0)
			return rc;
		return resolve(h, c, ls, s, ent_id, ev_id, err);
	}
}

/* ---- batches ------------------------------------------------------------ */

/* The descriptor of event id ev of entity e, or UINT32_MAX. */
static inline uint32_t ev_desc(const htf_reader *h, const hent *e, uint64_t ev)
{
	const htype *ty;
	uint32_t vi;

	if (TK_LIKELY(ev < e->nevd))
		return e->evd[ev];
	if (e->type == UINT32_MAX)
		return UINT32_MAX;
	ty = &h->types[e->type];
	vi = idmap_get(&ty->evmap, ev);
	return vi == UINT32_MAX ? UINT32_MAX : ty->desc0 + vi;
}

/* The key (tkid << 32 | descriptor key) of (entity id, event id), or
 * UINT64_MAX when the tables do not have it. */
static inline uint64_t rec_key(const htf_reader *h, uint64_t ent_id,
			       uint64_t ev_id)
{
	uint32_t ei = idmap_get(&h->entmap, ent_id), d;

	if (TK_UNLIKELY(ei == UINT32_MAX))
		return UINT64_MAX;
	d = ev_desc(h, &h->ents[ei], ev_id);
	if (TK_UNLIKELY(d == UINT32_MAX))
		return UINT64_MAX;
	return (uint64_t)h->ents[ei].tkid << 32 | h->keys[d];
}

/*
 * Decode the plain records at the cursor into its batch: records alone on
 * their line, ids known, time not decreasing.  Stops before anything else
 * (which the line-at-a-time path then reads, with its warnings and
 * errors).  Returns the number of records.  A record of at most 16 digits
 * is converted as one number (two words of digits) and split by shifts;
 * wider ones field by field.
 */
static TK_INLINE uint32_t batch_w(htf_reader *h, cursor *c,
				  const unsigned w, const unsigned tl,
				  const unsigned vl)
{
	const unsigned tl2 = 2 * tl, vl2 = 2 * vl, el2 = w - tl2 - vl2,
		       sh_time = 4 * (w - tl2), sh_ent = 4 * vl2;
	/* w <= 16: the fields of the record read as one number */
	const uint64_t m_ent = w <= 16 ? (1ull << (4 * el2)) - 1 : 0,
		       m_ev = w <= 16 ? (1ull << (4 * vl2)) - 1 : 0,
		       *pair = h->pair,
		       npair_ent = h->npair_ent;
	const unsigned pbits = h->pair_bits;
	const uint64_t pev = ((uint64_t)1 << pbits) - 1;
	const char *p = c->p;
	uint64_t last = c->have_time ? c->last_time : 0;
	hrec *b = c->b;
	uint32_t n = 0, m;

	/* a record at p needs its newline before end */
	if ((size_t)(c->end - p) <= w)
		return 0;
	m = (uint32_t)((size_t)(c->end - p) / (w + 1));
	if (m > BATCH)
		m = BATCH;
	if (w <= 16) {
		for (; n < m && p[w] == '\n'; n++, p += w + 1) {
			uint64_t v, t, ent, ev, x;
			if (!tk_scan_hex16(p, w, &v))
				break;
			t = v >> sh_time;
			if (TK_UNLIKELY(t < last))
				break;
			ent = (v >> sh_ent) & m_ent;
			ev = v & m_ev;
			if (TK_LIKELY(ent < npair_ent && ev <= pev))
				x = pair[ent << pbits | ev];
			else
				x = rec_key(h, ent, ev);
			if (TK_UNLIKELY(x == UINT64_MAX))
				break;
			b[n].time = t;
			b[n].id = x;
			last = t;
		}
	} else {
		for (; n < m && p[w] == '\n'; n++, p += w + 1) {
			uint64_t t, ent_id, ev_id, x;
			if (!tk_scan_hex16(p, tl2, &t) ||
			    !tk_scan_hex16(p + tl2, el2, &ent_id) ||
			    !tk_scan_hex16(p + tl2 + el2, vl2, &ev_id))
				break;
			if (TK_UNLIKELY(t < last))
				break;
			x = rec_key(h, ent_id, ev_id);
			if (TK_UNLIKELY(x == UINT64_MAX))
				break;
			b[n].time = t;
			b[n].id = x;
			last = t;
		}
	}
	if (n) {
		c->p = p;
		c->line += n;
		c->last_time = last;
		c->have_time = 1;
	}
	return n;
}

/* batch_w() with the usual record layouts as constants */
static uint32_t batch(htf_reader *h, cursor *c)
{
	const unsigned tl = h->tl, vl = h->vl;

	if (tl == 4 && vl == 1 && h->w == 14)
		return batch_w(h, c, 14, 4, 1);
	switch (h->w) {
	case 14:
		return batch_w(h, c, 14, tl, vl);
	case 16:
		return batch_w(h, c, 16, tl, vl);
	case 12:
		return batch_w(h, c, 12, tl, vl);
	default:
		return batch_w(h, c, h->w, tl, vl);
	}
}

/*
 * The next batch of cursor c from the batch decoder alone: the number of
 * records (c->b), 0 when the next record needs the line-at-a-time path
 * (or the section is over), or an error (a read).
 */
static int refill_fast(htf_reader *h, cursor *c, tk_error *err)
{
	uint32_t n = 0;
	int rc;

	/* read on when the window runs low */
	if ((size_t)(c->end - c->p) < WIN_LOW && c->foff < c->fend &&
	    (rc = win_fill(h, c, err)) < 0)
		return rc;
	c->bline = c->line;
	if (!c->implicit)
		n = batch(h, c);
	c->bn = n;
	return (int)n;
}

/* The next batch of cursor c, by the line-at-a-time path where the batch
 * decoder stops: TK_OK, TK_END or an error. */
static int refill(htf_reader *h, cursor *c, tk_error *err)
{
	int rc = refill_fast(h, c, err);

	if (TK_LIKELY(rc > 0))
		return TK_OK;
	if (rc < 0)
		return rc;
	rc = cur_next(h, c, err);
	if (rc != TK_OK)
		return rc;
	c->b[0].time = c->time;
	c->b[0].id = (uint64_t)c->tkid << 32 |
		     h->keys[c->ty->desc0 + (uint32_t)(c->vi - c->ty->evs)];
	c->bline = c->rline;
	c->bn = 1;
	return TK_OK;
}

/* ---- the merge ---------------------------------------------------------- */

/*
 * Up to NET_MAX sections, the heads are kept sorted in h->nt[] (times)
 * and h->nr[] (record addresses): the batches lie in one block in
 * section order, so the address breaks a tie in favour of the earlier
 * section.  An event takes the first head, and its section's next record
 * goes in its place among the others, by compares and selects alone:
 * which section comes next follows no pattern a branch predictor could
 * learn when the cores' events interleave.  Free places hold UINT64_MAX
 * and UINTPTR_MAX, after every live head.  More sections go through a
 * binary heap of nodes.
 */
/* Place 0 of t/r[0..nn) is free, the rest sorted: (xt, xr) goes in. */
static TK_INLINE void net_insert(uint64_t *t, uintptr_t *r, unsigned nn,
				 uint64_t xt, uintptr_t xr)
{
	unsigned k;

	for (k = 1; k < nn; k++) {
		const uint64_t tk = t[k];
		const uintptr_t rk = r[k];
		/* (xt, xr) comes first */
		const uint32_t b = (uint32_t)(xt < tk) |
				   ((uint32_t)(xt == tk) & (uint32_t)(xr < rk));
		t[k - 1] = b ? xt : tk;
		r[k - 1] = b ? xr : rk;
		xt = b ? tk : xt;
		xr = b ? rk : xr;
	}
	t[nn - 1] = xt;
	r[nn - 1] = xr;
}

/* Cursor c's fresh batch into the sorted heads: the last place is free,
 * and moves down past the heads that come after the new one. */
static void net_add(htf_reader *h, const cursor *c)
{
	const uint64_t xt = c->b[0].time;
	const uintptr_t xr = (uintptr_t)c->b;
	unsigned k = h->nnet - 1;

	for (; k > 0 && (h->nt[k - 1] > xt ||
			 (h->nt[k - 1] == xt && h->nr[k - 1] > xr)); k--) {
		h->nt[k] = h->nt[k - 1];
		h->nr[k] = h->nr[k - 1];
	}
	h->nt[k] = xt;
	h->nr[k] = xr;
}

/*
 * The event of record `rec` into ev, and its core slot and key into
 * *evkey, for the synthesis after the merge (synth_block).  (The callers
 * keep h's fields in locals: the stores to the events could alias them.)
 */
static TK_INLINE void event_out(const hdesc *descs, tk_event *ev,
				uint64_t *evkey, const hrec *rec,
				uint64_t line, uint32_t slot, uint32_t core)
{
	const uint64_t id = rec->id;
	const uint32_t key = (uint32_t)id;
	const hdesc *d = &descs[key & KEY_DESC];

	ev->time = rec->time;
	ev->pos = line;
	ev->target = (uint32_t)(id >> 32);
	ev->type = d->et;
	ev->type_name = d->type_name;
	ev->kind = d->kind;
	ev->name = d->name;
	ev->core = core;
	/* (no record has a note: h->evs[] holds NULL and 0 from the start) */
	*evkey = (uint64_t)slot << 32 | key;
}

/*
 * The merge of up to nn (4 or NET_MAX) sections: up to cap events in
 * (time, section) order into h->evs.  A cursor whose batch runs out is
 * refilled by the batch decoder; when its next record needs the
 * line-at-a-time path (its warnings and errors must come after the events
 * before it), the block ends there with h->stalled set, and the next call
 * reads that record first.  Returns the number of events; *rc an error
 * met after them.
 */
static TK_INLINE size_t merge_net(htf_reader *h, size_t cap,
				  const unsigned nn, int *rc, tk_error *err)
{
	const hrec *block = h->block;
	const hdesc *descs = h->descs;
	cursor *cur = h->cur;
	tk_event *evs = h->evs;
	uint64_t *evkey = h->evkey;
	uint64_t t[NET_MAX];
	uintptr_t r[NET_MAX];
	size_t n = 0;

	memcpy(t, h->nt, nn * sizeof(*t));
	memcpy(r, h->nr, nn * sizeof(*r));
	while (n < cap) {
		const hrec *rec = (const hrec *)r[0];
		cursor *c = &cur[(size_t)(rec - block) / BATCH];

		event_out(descs, &evs[n], &evkey[n], rec,
			  c->bline + (uint64_t)(rec - c->b), c->slot, c->core);
		n++;
		if (TK_UNLIKELY(++rec == c->b + c->bn)) {
			int got = refill_fast(h, c, err);
			if (got <= 0) {
				if (got < 0)
					*rc = got;
				/* its head stays first until it is read */
				h->stalled = 1;
				h->stall = (uint32_t)(c - cur);
				break;
			}
			rec = c->b;
		}
		net_insert(t, r, nn, rec->time, (uintptr_t)rec);
	}
	memcpy(h->nt, t, nn * sizeof(*t));
	memcpy(h->nr, r, nn * sizeof(*r));
	return n;
}

static inline int before(const hnode *x, const hnode *y)
{
	return x->time < y->time || (x->time == y->time && x->idx < y->idx);
}

static void sift_down(htf_reader *h, uint32_t i)
{
	uint32_t n = h->nheap;
	hnode *hp = h->heap;

	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		hnode tmp;
		if (l < n && before(&hp[l], &hp[m]))
			m = l;
		if (l + 1 < n && before(&hp[l + 1], &hp[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = hp[i];
		hp[i] = hp[m];
		hp[m] = tmp;
		i = m;
	}
}

static void sift_up(htf_reader *h, uint32_t i)
{
	hnode *hp = h->heap;

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		hnode tmp;
		if (!before(&hp[i], &hp[parent]))
			return;
		tmp = hp[i];
		hp[i] = hp[parent];
		hp[parent] = tmp;
		i = parent;
	}
}

/* A node for cursor i's fresh batch. */
static inline void node_set(hnode *t, const cursor *c, uint32_t i)
{
	t->rec = c->b;
	t->bend = c->b + c->bn;
	t->time = c->b[0].time;
	t->line = c->bline;
	t->slot = c->slot;
	t->core = c->core;
	t->idx = i;
}

/* The first records of all sections, and the merge set up. */
static int merge_start(htf_reader *h, tk_error *err)
{
	uint32_t i;
	int rc;

	for (i = 0; i < h->nnet; i++) {
		h->nt[i] = UINT64_MAX;
		h->nr[i] = UINTPTR_MAX;
	}
	for (i = 0; i < h->ncur; i++) {
		rc = refill(h, &h->cur[i], err);
		if (rc < 0)
			return rc;
		if (rc != TK_OK)
			continue;
		if (h->nnet) {
			net_add(h, &h->cur[i]);
		} else {
			node_set(&h->heap[h->nheap], &h->cur[i], i);
			sift_up(h, h->nheap);
		}
		h->nheap++;
	}
	/* the instance counters of every entity (the trace's entities are
	 * all known by now), made before the merge counts on them */
	if (h->t->nents > h->synth.cap_ent &&
	    tk_synth_grow(&h->synth, h->t->nents - 1) < 0)
		return tk_err_nomem(err, h->name);
	return TK_OK;
}

/* The merge of many sections through the heap: as merge_net() does. */
static size_t merge_heap(htf_reader *h, size_t cap, int *rc, tk_error *err)
{
	hnode *t = &h->heap[0];
	const hdesc *descs = h->descs;
	tk_event *evs = h->evs;
	uint64_t *evkey = h->evkey;
	size_t n = 0;

	while (n < cap) {
		event_out(descs, &evs[n], &evkey[n], t->rec, t->line++, t->slot,
			  t->core);
		n++;
		if (TK_UNLIKELY(++t->rec == t->bend)) {
			cursor *c = &h->cur[t->idx];
			int got = refill_fast(h, c, err);
			if (got <= 0) {
				/* its node stays at the root */
				if (got < 0)
					*rc = got;
				h->stalled = 1;
				h->stall = (uint32_t)t->idx;
				break;
			}
			node_set(t, c, (uint32_t)t->idx);
		}
		t->time = t->rec->time;
		if (h->nheap > 1)
			sift_down(h, 0);
	}
	return n;
}

/*
 * The synthesis of the block's n events, in their order, after the merge:
 * each target's instance (the counters need only the global order) and
 * the source from the running stacks of its core.  Returns the number of
 * events done: n, or fewer with *rc an error (no memory for a stack).
 */
static size_t synth_block(htf_reader *h, size_t n, int *rc, tk_error *err)
{
	/* in locals: the stores to the events could alias the fields of h */
	int64_t *acts = h->synth.acts, *starts = h->synth.starts;
	tk_synth_stack *procs = h->synth.procs, *runs = h->synth.runs;
	const hdesc *descs = h->descs;
	const uint64_t *evkey = h->evkey;
	tk_event *ev = h->evs;
	size_t i;

	for (i = 0; i < n; i++, ev++) {
		const uint32_t key = (uint32_t)evkey[i],
			       slot = (uint32_t)(evkey[i] >> 32),
			       target = ev->target, core = ev->core;
		/* every target has its counters (merge_start) */
		const int64_t inst = tk_synth_count_(
			acts, starts, (key & KEY_ACT) != 0,
			(key & KEY_START) != 0, (key & KEY_COUNTED) != 0,
			target);

		ev->target_inst = inst;
		if (TK_UNLIKELY(tk_synth_stack_inline(
			    &procs[slot], &runs[slot], core, core,
			    descs[key & KEY_DESC].op, target, inst,
			    &ev->source, &ev->source_inst) < 0)) {
			*rc = tk_err_nomem(err, h->name);
			return i;
		}
	}
	return n;
}

/* The record the merge stopped at, through the line-at-a-time path
 * (warnings and all); its section goes on or ends. */
static int settle_stall(htf_reader *h, tk_error *err)
{
	uint32_t i = h->stall;
	int rc = refill(h, &h->cur[i], err);

	h->stalled = 0;
	if (rc < 0)
		return rc;
	if (h->nnet) {
		/* its head, the first, is replaced (by a free place at the end) */
		if (rc == TK_OK)
			net_insert(h->nt, h->nr, h->nnet, h->cur[i].b[0].time,
				   (uintptr_t)h->cur[i].b);
		else
			net_insert(h->nt, h->nr, h->nnet, UINT64_MAX, UINTPTR_MAX);
		h->nheap -= rc != TK_OK;
		return TK_OK;
	}
	if (rc == TK_OK)
		node_set(&h->heap[0], &h->cur[i], i);
	else
		h->heap[0] = h->heap[--h->nheap];
	if (h->nheap > 1)
		sift_down(h, 0);
	return TK_OK;
}

/*
 * The next block of events: TK_OK with 1 <= *n <= max events at *evs
 * (valid until the next call), TK_END, or an error (the same on every
 * later call).
 */
int htf_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			  size_t max, tk_error *err)
{
	htf_reader *h = r->impl;
	size_t cap = max < EV_BATCH ? max : EV_BATCH, got;
	int rc = TK_OK;

	*n = 0;
	if (TK_UNLIKELY(h->done))
		return h->done_rc == TK_END ? TK_END
					    : (*err = h->done_err, h->done_rc);
	if (!h->started) {
		h->started = 1;
		if ((rc = merge_start(h, err)) < 0)
			goto fail;
	} else if (h->stalled && (rc = settle_stall(h, err)) < 0) {
		goto fail;
	}
	if (!h->nheap || !cap) {
		rc = h->nheap ? TK_OK : TK_END;
		if (rc == TK_END)
			goto fail;
		return rc;
	}
	if (h->nnet == 4)
		got = merge_net(h, cap, 4, &rc, err);
	else if (h->nnet)
		got = merge_net(h, cap, NET_MAX, &rc, err);
	else
		got = merge_heap(h, cap, &rc, err);
	got = synth_block(h, got, &rc, err);
	if (rc < 0) {
		/* the events before the error go out first */
		h->done = 1;
		h->done_rc = rc;
		h->done_err = *err;
		if (!got)
			return rc;
	}
	*evs = h->evs;
	*n = got;
	return TK_OK;
fail:
	/* the end or an error: the same on every later call */
	h->done = 1;
	h->done_rc = rc;
	if (rc < 0)
		h->done_err = *err;
	return rc;
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
	if ((rc = build_types(h, err)) < 0)
		goto fail;
	if ((rc = build_entities(h, err)) < 0)
		goto fail;
	if ((rc = build_descs(h, err)) < 0)
		goto fail;
	if ((rc = find_sections(h, data, err)) < 0)
		goto fail;
	/* the line reader's buffer is not needed past the sections */
	tk_lines_free(&h->lines);
	if ((rc = cursors_alloc(h, err)) < 0)
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
