/*
 * htf_reader.c - the HTF reader (AMALTHEA Hardware Trace Format 1.0).
 *
 * The header and the reference tables are read when the reader opens.  The
 * trace data is one section per core ("#-<core>"), each in time order; the
 * reader finds the sections with one pass for '#', then runs a streaming
 * k-way merge over them: one cursor per section, which decodes up to BATCH
 * plain records at a time into (time, entity, event descriptor); a
 * branch-free tournament (up to 8 sections) or a binary heap chooses the
 * next one by (time, section).  Memory holds the tables and k cursors,
 * whatever the trace size.
 *
 * A plain file is read with pread(): the scan in chunks, each cursor
 * through its own small window (the mapping is touched only around '#'s).
 * A memory block is used in place; a pipe or a compressed input is first
 * decoded into an unlinked temporary file, which is mapped and used in
 * place (the pages behind the cursors are given back).
 *
 * Strict mode is the specification; lenient mode reads the errors of the
 * spec's own examples where their meaning is clear (a letter O in a hex id,
 * "#Format HFT", a record longer than due whose extra leading digits are
 * zeros) and counts a warning for each.
 */
#define _GNU_SOURCE
#include "htf.h"
#include "../../core/pipe.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#define TK_HTF_SSE 1
#else
#define TK_HTF_SSE 0
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

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
 * Values (uint32) found by a key the caller compares: an open-addressing
 * table of (hash, value), so that a header of many tables, types or core
 * sections is read in linear time (a walk over all of them per lookup made
 * it quadratic).
 */
typedef struct kslot {
	uint32_t hash;
	uint32_t val1;     /* value + 1; 0: empty */
} kslot;

typedef struct kindex {
	kslot *s;
	uint32_t mask;     /* slots - 1 */
	uint32_t n;
} kindex;

/* 1 if value v's key is the key at k (of n bytes) */
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
 * a time) */
#define BATCH 128

/* a cursor's window on a plain file: bytes read with pread(), WIN_HEAD
 * bytes of room before them (the 16-byte record decoder reads before the
 * record) and WIN_TAIL after (the word-at-a-time one reads past it) */
#define WIN_SIZE ((size_t)256 << 10)
#define WIN_HEAD 16
#define WIN_TAIL 16
#define WIN_LOW 4096    /* fewer bytes than this ahead: read more */
/* the windows of all sections together: past 64 sections each gets less
 * than WIN_SIZE, down to WIN_MIN (a file of many sections would otherwise
 * hold 256 KB per section); a section smaller than its share gets its
 * own size */
#define WIN_BUDGET ((size_t)16 << 20)
#define WIN_MIN ((size_t)16 << 10)
#define SCAN_CHUNK ((size_t)1 << 20)

typedef struct cursor {
	/* p: the next byte; end: the end of the section's bytes in memory
	 * (the section's end, or in a window the end of what is read) */
	const char *p, *end;
	const char *rlim;  /* bytes up to here may be read (past end) */
	const char *safe;  /* records from here on have 16 bytes before their end */
	char *win;         /* the window, or NULL: the section is all in memory */
	size_t wcap;
	uint64_t foff, fend; /* file offsets: next to read, the section's end */
	const char *ls;    /* start of the current line */
	uint64_t line;     /* of p */
	uint32_t slot;     /* core slot */
	uint32_t core;     /* core entity */
	int implicit;      /* records before the first "#-" */
	const char *released; /* pages before this were given back */
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
	hrec *b;           /* BATCH + 1 records, or fewer for a section too
			    * short to hold BATCH; b[bn]: read (not used) by
			    * node_out */
	uint64_t len;      /* the section's bytes */
} cursor;

/* a heap node: the head record of a cursor, its time and the end of its
 * batch kept here so that the merge's next choice waits on few loads */
typedef struct hnode {
	uint64_t time;
	uint64_t next;     /* the time of rec[1], loaded ahead: the merge's
			    * chain from one choice to the next is then one
			    * load shorter */
	const struct hrec *rec, *bend;
	uint64_t line;     /* of rec */
	uint64_t sc;       /* core slot | core entity << 32 */
	uint64_t idx;      /* 64 bits: the node is 64 bytes, so that the
			    * chosen one's address is one shift away */
} hnode;

/* a record as the merge gives it out, in (time, section) order */
typedef struct mrec {
	uint64_t time;
	uint64_t line;
	int64_t inst;      /* the target's instance */
	uint64_t id;       /* as in hrec */
	uint64_t sc;       /* core slot | core entity << 32 */
} mrec;

/* merged records per block, blocks run ahead on the merge's thread */
#define MERGE_BLOCK 32768
#define MERGE_BLOCKS 3
/* events made at a time from them */
#define EV_BATCH 64

typedef struct htf_reader {
	tk_reader *r;
	tk_trace *t;
	const char *name;
	int strict;
	/* the bytes */
	const char *buf, *lim;
	void *map;
	size_t map_len;
	int may_release;          /* the bytes are a file mapping */
	size_t page;
	int fd;                   /* a plain file: read with pread(), or -1 */
	uint64_t foff0;           /* the file offset of buf[0] */
	char *chunk;              /* the scan's buffer (fd >= 0) */
	/* header */
	uint64_t line;
	unsigned tl, el, vl, w;   /* lengths in bytes; w: record width in digits */
	uint64_t ncores_decl;
	int have_ncores;
	/* tables */
	table *tabs;
	uint32_t ntabs, captabs;
	kindex tabidx;            /* tabs[] by name, ignoring case */
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
	uint32_t stall;           /* heap[stall]: the node the merge waits on */
	const char *safe16;       /* records from here on have 16 bytes before their end */
	int linear;               /* few cursors: heap[] in index order, scanned */
	uint32_t nsel;            /* heap[] entries scanned: 2, 4 or 8 (padded) */
	int started;
	/* the merged records, run ahead of the events (pipe.h) */
	tk_pipe pipe;
	const tk_pipe_block *blk; /* the block in hand */
	const mrec *q;
	size_t qi, qn;
	int done, done_rc;        /* the end or an error was returned */
	tk_event evs[EV_BATCH];   /* the events made from them */
	tk_error done_err;
#if TK_HTF_SSE
	/* records of at most 16 digits: decoded from the 16 bytes that end
	 * with the record, the bytes before it masked */
	__m128i pad;              /* 0xff on the bytes before the record */
	int fast16;
	unsigned sh_ent, sh_time; /* bit shifts of the fields */
	uint64_t m_ent, m_ev;     /* their masks */
#endif
	/* (entity id, event id), the record's low bits, -> tkid << 32 |
	 * descs[] index (UINT64_MAX: not in the tables), when the ids are
	 * small enough for a flat table: one load per record */
	uint64_t *pair;
	uint64_t npair;
	uint64_t *core_ids;   /* per slot */
	uint8_t *own;         /* per slot: 1 if it has a section "#-<id>" */
	uint32_t nslots, capslots;
	uint32_t nown;        /* slots with own[] set (for #NumberOfCores) */
	kindex slotidx;       /* core_ids[] by id */
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

static void warn(htf_reader *h, unsigned kind, uint64_t line, const char *ls,
		 const char *at, const char *fmt, ...) TK_PRINTF(6, 7);

static void warn(htf_reader *h, unsigned kind, uint64_t line, const char *ls,
		 const char *at, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tk_reader_warn(h->r, kind, line,
		       at && ls ? (uint32_t)(at - ls) + 1 : 0, "%s", msg);
}

/* Quote at most 40 bytes for a message. */
static const char *q(char *b, size_t size, const char *p, const char *end)
{
	size_t n = (size_t)(end - p), i, o = 0;

	for (i = 0; i < n && o + 5 < size && i < 40; i++) {
		unsigned char c = (unsigned char)p[i];
		b[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (i < n && o + 4 < size) {
		memcpy(b + o, "...", 3);
		o += 3;
	}
	b[o] = '\0';
	return b;
}

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

static uint32_t hash_u64(uint64_t v)
{
	v ^= v >> 33; /* the finaliser of MurmurHash3 */
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	v ^= v >> 33;
	return (uint32_t)v;
}

/* The value whose key is (k, n), or UINT32_MAX. */
static uint32_t kindex_find(const kindex *x, uint32_t hash, kindex_eq eq,
			    const void *ctx, const void *k, size_t n)
{
	uint32_t i;

	if (!x->s)
		return UINT32_MAX;
	for (i = hash & x->mask; x->s[i].val1; i = (i + 1) & x->mask)
		if (x->s[i].hash == hash && eq(ctx, x->s[i].val1 - 1, k, n))
			return x->s[i].val1 - 1;
	return UINT32_MAX;
}

/* Add value v (its key not in yet); TK_OK or TK_E_NOMEM. */
static int kindex_add(kindex *x, uint32_t hash, uint32_t v)
{
	uint32_t i;

	if (2 * (x->n + 1) > (x->s ? x->mask + 1 : 0)) {
		/* at most half full: short probes */
		uint32_t ncap = x->s ? 2 * (x->mask + 1) : 64, j;
		kslot *ns;
		if (!ncap || !(ns = calloc(ncap, sizeof(*ns))))
			return TK_E_NOMEM;
		for (j = 0; x->s && j <= x->mask; j++) {
			if (!x->s[j].val1)
				continue;
			for (i = x->s[j].hash & (ncap - 1); ns[i].val1;
			     i = (i + 1) & (ncap - 1))
				;
			ns[i] = x->s[j];
		}
		free(x->s);
		x->s = ns;
		x->mask = ncap - 1;
	}
	/* allocated above when empty (n stays far below 2^31: 2 * (n + 1) > 0) */
	TK_ANALYZER_ASSUME(x->s != NULL);
	for (i = hash & x->mask; x->s[i].val1; i = (i + 1) & x->mask)
		;
	x->s[i].hash = hash;
	x->s[i].val1 = v + 1;
	x->n++;
	return TK_OK;
}

static void kindex_free(kindex *x)
{
	free(x->s);
	memset(x, 0, sizeof(*x));
}

/* ---- the bytes ---------------------------------------------------------- */

static uint64_t count_nl(const char *p, const char *e);

/* What the copy into the temporary file has seen of the lines. */
typedef struct copy_state {
	int cr;            /* CR-only line ends: each CR is written as a LF */
	int prev_cr;       /* cr: the byte before was a CR (a LF after it goes) */
	char last;         /* the last byte written */
	size_t run;        /* bytes written since the last LF */
	uint64_t lines;    /* LFs written */
} copy_state;

/* Write n bytes (at most COPY_PIECE) to f, checking the line lengths. */
static int copy_piece(htf_reader *h, FILE *f, const char *p, size_t n,
		      copy_state *cs, uint64_t *total, tk_error *err)
{
	const char *nl, *lastnl;
	size_t len;

	if (!n)
		return TK_OK;
	nl = memchr(p, '\n', n);
	if (!nl) {
		cs->run += n;
		if (cs->run > TK_LINE_MAX + 1)
			return tk_err_line_long(err, h->name, cs->lines + 1);
	} else {
		/* the line that goes on from the pieces before: its bytes, a
		 * CR, the LF */
		char before = nl > p ? nl[-1] : cs->last;
		len = cs->run + (size_t)(nl - p);
		if (len > TK_LINE_MAX + 1 ||
		    (len == TK_LINE_MAX + 1 && before != '\r'))
			return tk_err_line_long(err, h->name, cs->lines + 1);
		lastnl = memrchr(nl, '\n', n - (size_t)(nl - p));
		cs->run = n - (size_t)(lastnl + 1 - p);
		cs->lines += count_nl(p, p + n);
	}
	cs->last = p[n - 1];
	if (fwrite(p, 1, n, f) != n)
		return tk_err_set(err, TK_E_IO, h->name, 0, 0,
				  "cannot write a temporary file");
	*total += n;
	return TK_OK;
}

#define COPY_PIECE ((size_t)64 << 10)

/* Write the n bytes at p to f, in pieces (CRs made LFs first in cr mode). */
static int copy_bytes(htf_reader *h, FILE *f, const char *p, size_t n,
		      copy_state *cs, uint64_t *total, tk_error *err)
{
	char buf[4096];
	size_t i, o, step;
	int rc;

	while (n) {
		if (!cs->cr) {
			step = n < COPY_PIECE ? n : COPY_PIECE;
			rc = copy_piece(h, f, p, step, cs, total, err);
		} else {
			step = n < sizeof(buf) ? n : sizeof(buf);
			for (i = o = 0; i < step; i++) {
				if (p[i] == '\r') {
					buf[o++] = '\n';
					cs->prev_cr = 1;
				} else {
					if (!(p[i] == '\n' && cs->prev_cr))
						buf[o++] = p[i];
					cs->prev_cr = 0;
				}
			}
			rc = copy_piece(h, f, buf, o, cs, total, err);
		}
		if (rc < 0)
			return rc;
		p += step;
		n -= step;
	}
	return TK_OK;
}

/* A mapped file or a memory block is used in place; anything else, and
 * text with CR-only line ends (cr), is copied into an unlinked temporary
 * file that is mapped.  The copy checks the line lengths as it goes, so
 * that no more than TK_LINE_MAX bytes of one line reach the file. */
static int acquire(htf_reader *h, int cr, tk_error *err)
{
	tk_source *src = h->r->src;
	tk_window w;
	uint64_t total = 0;
	copy_state cs;
	FILE *f;
	int rc;

	if (tk_source_eof(src) && !cr) {
		/* the window is all of the input and never moves; the cursors
		 * run over it, the source's own release is kept off */
		tk_source_keep_consumed(src, true);
		w = tk_source_window(src);
		h->buf = (const char *)w.p;
		h->lim = h->buf + w.n;
		h->may_release = strcmp(tk_source_transport(src), "file") == 0;
		h->fd = h->may_release ? tk_source_file_fd(src, &h->foff0) : -1;
		return TK_OK;
	}
	memset(&cs, 0, sizeof(cs));
	cs.cr = cr;
	f = tmpfile();
	if (!f)
		return tk_err_set(err, TK_E_IO, h->name, 0, 0,
				  "cannot create a temporary file");
	w = tk_source_window(src);
	for (;;) {
		rc = copy_bytes(h, f, (const char *)w.p, w.n, &cs, &total, err);
		if (rc < 0)
			goto fail;
		tk_source_consume(src, w.n);
		rc = tk_source_fill(src, 1u << 18, &w, err);
		if (rc < 0)
			goto fail;
		/* the end: after what a last fill may have left */
		if (rc == 0 && !w.n)
			break;
	}
	if (cs.run > TK_LINE_MAX + (cs.last == '\r')) {
		rc = tk_err_line_long(err, h->name, cs.lines + 1);
		goto fail;
	}
	if (fflush(f) != 0) {
		rc = tk_err_set(err, TK_E_IO, h->name, 0, 0,
				"cannot write a temporary file");
		goto fail;
	}
	if (total > SIZE_MAX) {
		rc = tk_err_nomem(err, h->name);
		goto fail;
	}
	if (total) {
		h->map = mmap(NULL, (size_t)total, PROT_READ, MAP_PRIVATE,
			      fileno(f), 0);
		if (h->map == MAP_FAILED) {
			h->map = NULL;
			rc = tk_err_set(err, TK_E_IO, h->name, 0, 0,
					"cannot map a temporary file");
			goto fail;
		}
		h->map_len = (size_t)total;
		h->buf = h->map;
		h->may_release = 1;
	} else {
		h->buf = "";
	}
	h->lim = h->buf + total;
	fclose(f); /* the mapping stays valid */
	return TK_OK;
fail:
	fclose(f);
	return rc;
}

/* ---- header ------------------------------------------------------------- */

/* The line at *pp without its end; advances *pp past it.  1, 0 at the
 * end, -1 for a line longer than TK_LINE_MAX. */
static int next_line(htf_reader *h, const char **pp, const char **ls,
		     const char **le)
{
	const char *p = *pp, *nl;
	size_t n = (size_t)(h->lim - p);

	if (p >= h->lim)
		return 0;
	/* no further than a line may go: its bytes, a CR and the LF */
	nl = memchr(p, '\n', n > TK_LINE_MAX + 2 ? TK_LINE_MAX + 2 : n);
	if ((!nl && n > TK_LINE_MAX + 1) ||
	    (size_t)((nl ? nl : h->lim) - p) > TK_LINE_MAX + 1)
		return -1;
	*ls = p;
	*le = nl ? nl : h->lim;
	*pp = nl ? nl + 1 : h->lim;
	if (*le > p && (*le)[-1] == '\r')
		(*le)--;
	if ((size_t)(*le - p) > TK_LINE_MAX)
		return -1;
	h->line++;
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
			if (h->strict) {
				return err_at(h, err, TK_E_PARSE, h->line, ls, p,
					      "letter '%c' in the hex id '%s' (a zero?)",
					      *p, q(qb, sizeof(qb), s, z));
			}
			warn(h, W_LETTER_O, h->line, ls, p,
			     "letter '%c' in the hex id '%s' read as the digit 0",
			     *p, q(qb, sizeof(qb), s, z));
			d = 0;
		}
		if (d < 0) {
			return err_at(h, err, TK_E_PARSE, h->line, ls, p,
				      "'%c' in a hex id", *p);
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
			      what, q(qb, sizeof(qb), v, ve));
	if (n != 1 && n != 2 && n != 4 && n != 8) {
		if (h->strict)
			return err_at(h, err, TK_E_PARSE, h->line, ls, v,
				      "%s %llu is not 1, 2, 4 or 8", what,
				      (unsigned long long)n);
		warn(h, W_LENGTH, h->line, ls, v,
		     "%s %llu is not 1, 2, 4 or 8 (read as %llu bytes)", what,
		     (unsigned long long)n, (unsigned long long)n);
	}
	*out = (unsigned)n;
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
		if ((size_t)(ve - v) != 3 || !tk_ascii_ncaseeq(v, "HTF", 3)) {
			if (h->strict)
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "#Format is '%s', not HTF",
					      q(qb, sizeof(qb), v, ve));
			warn(h, W_FORMAT, h->line, ls, v,
			     "#Format is '%s', not HTF (read as HTF)",
			     q(qb, sizeof(qb), v, ve));
		}
	} else if (key_is(k, kn, "TimeScale")) {
		tk_unit u;
		*seen_ts = 1;
		if (tk_unit_parse(v, (size_t)(ve - v), 0, &u) < 0) {
			if (h->strict ||
			    tk_unit_parse(v, (size_t)(ve - v), 1, &u) < 0)
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unknown time scale '%s' (ps, ns, us, ms or s)",
					      q(qb, sizeof(qb), v, ve));
			warn(h, W_UNIT_CASE, h->line, ls, v,
			     "time scale '%s' in upper case",
			     q(qb, sizeof(qb), v, ve));
		}
		h->t->tb.unit = u;
	} else if (key_is(k, kn, "TimeScaleNumerator") ||
		   key_is(k, kn, "TimeScaleDenominator")) {
		int num = key_is(k, kn, "TimeScaleNumerator");
		if (parse_dec(v, ve, &n) < 0 || n == 0)
			return err_at(h, err, TK_E_PARSE, h->line, ls, v,
				      "%s '%s' is not a positive integer",
				      num ? "TimeScaleNumerator"
					  : "TimeScaleDenominator",
				      q(qb, sizeof(qb), v, ve));
		if (num)
			h->t->tb.num = n;
		else
			h->t->tb.den = n;
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
				      q(qb, sizeof(qb), v, ve));
		h->ncores_decl = n;
		h->have_ncores = 1;
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

/* Read the header up to #TraceData; *data receives the first data byte. */
static int read_header(htf_reader *h, const char **data, tk_error *err)
{
	const char *pp = h->buf, *ls, *le, *p, *k, *ke, *v;
	table *cur = NULL;
	int seen_fmt = 0, seen_ts = 0, rc;
	uint32_t hash;
	char qb[64];

	while ((rc = next_line(h, &pp, &ls, &le)) != 0) {
		if (rc < 0)
			return tk_err_line_long(err, h->name, h->line + 1);
		p = skip_blanks(ls, le);
		if (p == le)
			continue;
		if (*p != '#')
			return err_at(h, err, TK_E_PARSE, h->line, ls, p,
				      "expected a header line or #TraceData before '%s'",
				      q(qb, sizeof(qb), p, le));
		if (p + 1 < le && p[1] == '-') {
			uint64_t id;
			const char *ie;
			rc = hex_id(h, ls, p + 2, le, &id, &ie, err);
			if (rc < 0)
				return rc;
			v = skip_blanks(ie, le);
			ke = trim_end(v, le);
			if (!cur) {
				if (h->strict)
					return err_at(h, err, TK_E_PARSE, h->line,
						      ls, p,
						      "table row outside a table");
				warn(h, W_ROW_OUTSIDE, h->line, ls, p,
				     "table row outside a table (ignored)");
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
			*data = pp;
			goto done;
		}
		if (is_table_key(k, (size_t)(ke - k))) {
			if (v != trim_end(v, le))
				return err_at(h, err, TK_E_PARSE, h->line, ls, v,
					      "unexpected text after #%s",
					      q(qb, sizeof(qb), k, ke));
			if ((size_t)(ke - k) >= sizeof(cur->name))
				return err_at(h, err, TK_E_PARSE, h->line, ls, k,
					      "table name too long");
			if (find_table(h, k, (size_t)(ke - k)))
				return err_at(h, err, TK_E_PARSE, h->line, ls, k,
					      "#%s appears twice",
					      q(qb, sizeof(qb), k, ke));
			if (h->ntabs == h->captabs) {
				uint32_t ncap = h->captabs ? h->captabs * 2 : 16;
				table *n = tk_xrealloc_array(h->tabs, ncap,
							     sizeof(*n));
				if (!n)
					return tk_err_nomem(err, h->name);
				h->tabs = n;
				h->captabs = ncap;
			}
			cur = &h->tabs[h->ntabs];
			memset(cur, 0, sizeof(*cur));
			memcpy(cur->name, k, (size_t)(ke - k));
			cur->line = h->line;
			/* by the name as kept (a NUL in the key ends it) */
			hash = hash_nocase(cur->name, strlen(cur->name));
			if (kindex_add(&h->tabidx, hash, h->ntabs) < 0)
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
		warn(h, W_NO_FORMAT, 0, NULL, NULL, "no #Format in the header");
	}
	if (!seen_ts) {
		if (h->strict)
			return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
					  "no #TimeScale in the header");
		warn(h, W_NO_TIMESCALE, 0, NULL, NULL,
		     "no #TimeScale in the header: ns assumed");
	}
	if (!h->tl || !h->el || !h->vl)
		return tk_err_set(err, TK_E_PARSE, h->name, h->line, 0,
				  "#TraceData before #%s (the record layout is not known)",
				  !h->tl ? "TimestampLength"
				  : !h->el ? "EntityLength" : "EventLength");
	h->w = 2 * (h->tl + h->el + h->vl);
#if TK_HTF_SSE
	if (h->w <= 16) {
		uint8_t pad[16];
		memset(pad, 0xff, sizeof(pad));
		memset(pad + 16 - h->w, 0, h->w);
		h->pad = _mm_loadu_si128((const __m128i *)(const void *)pad);
		h->sh_ent = 8 * h->vl;
		h->sh_time = 8 * (h->el + h->vl);
		h->m_ent = (1ull << (8 * h->el)) - 1;
		h->m_ev = (1ull << (8 * h->vl)) - 1;
		h->fast16 = 1;
	}
#endif
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
	kindex names = { 0 };
	row_ctx ctx = { h->t, tt };
	uint32_t i;
	int rc = TK_OK;

	for (i = 0; i < tt->n; i++) {
		size_t tn;
		const char *ts = tk_trace_str(h->t, tt->rows[i].value, &tn);
		if (kindex_add(&names, hash_nocase(ts, tn), i) < 0) {
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
	kindex_free(&names);
	return rc;
}

/* a type row's key for sharing: what its events' descriptors hold */
static uint32_t type_hash(const htype *ty)
{
	return hash_u64((uint64_t)ty->type_name << 32 ^
			(uint64_t)(uint32_t)ty->std ^
			(uint64_t)(uintptr_t)ty->etab * 0x9e3779b97f4a7c15ull);
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
			if (h->strict)
				return row_err(h, err, TK_E_PARSE, er,
					       "unknown event '%.40s' in #%s",
					       es, et->name);
			tk_reader_warn(h->r, W_UNKNOWN_EVENT, er->line, er->col,
				       "unknown event '%.40s' in #%s (kept by name)",
				       es, et->name);
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
	kindex classes = { 0 };
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
			if (h->strict) {
				rc = row_err(h, err, TK_E_PARSE, rw,
					     "unknown entity type '%.40s' (Task, ISR, Runnable, CodeBlock, Signal, Semaphore)",
					     s);
				goto cleanup;
			}
			tk_reader_warn(h->r, W_UNKNOWN_TYPE, rw->line, rw->col,
				       "unknown entity type '%.40s' (kept by name)",
				       s);
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
		if (kindex_add(&classes, type_hash(ty), i) < 0)
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
	kindex_free(&classes);
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
			if (h->strict)
				return row_err(h, err, TK_E_PARSE, rw,
					       "entity id 0x%llX is not in the #EntityTable",
					       (unsigned long long)rw->id);
			tk_reader_warn(h->r, W_TYPELESS_ROW, rw->line, rw->col,
				       "entity id 0x%llX is not in the #EntityTable (row ignored)",
				       (unsigned long long)rw->id);
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
		te = &h->t->ents[h->ents[ei].tkid];
		te->type = h->types[ti].et;
		te->type_name = h->types[ti].type_name;
	}
	return TK_OK;
}

/* The event descriptors of all (type, event) pairs, and per entity a flat
 * table from its event ids to them. */
#define PAIR_MAX ((uint64_t)1 << 20)

/* The flat (entity id, event id) table of the 16-digit decoder, when it
 * fits in PAIR_MAX entries. */
static int build_pairs(htf_reader *h, tk_error *err)
{
	const idmap *em = &h->entmap;
	unsigned evbits = 8 * h->vl;
	uint64_t nev, n;
	uint32_t i, j;

	if (h->w > 16 || !em->n || evbits > 20 ||
	    em->p[em->n - 1].id >= (PAIR_MAX >> evbits))
		return TK_OK;
	nev = (uint64_t)1 << evbits;
	n = (em->p[em->n - 1].id + 1) << evbits;
	h->pair = malloc(n * sizeof(*h->pair));
	if (!h->pair)
		return tk_err_nomem(err, h->name);
	memset(h->pair, 0xff, n * sizeof(*h->pair));
	h->npair = n;
	for (i = 0; i < em->n; i++) {
		const hent *e = &h->ents[em->p[i].val];
		uint64_t *prow = h->pair + (em->p[i].id << evbits);
		const htype *ty;
		if (e->type == UINT32_MAX)
			continue;
		ty = &h->types[e->type];
		/* the ids in order: those past the row are not met again
		 * for the next entity (a table of many large ids) */
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

static uint64_t count_nl(const char *p, const char *e)
{
	uint64_t n = 0;

#if defined(__SSE2__)
	const __m128i vn = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (e - p >= 16) {
		/* byte counters, summed before they can overflow */
		size_t blocks = (size_t)(e - p) / 16, i;
		__m128i acc = zero, v;
		uint64_t sums[2];
		if (blocks > 255)
			blocks = 255;
		for (i = 0; i < blocks; i++, p += 16) {
			v = _mm_loadu_si128((const __m128i *)(const void *)p);
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, vn));
		}
		_mm_storeu_si128((__m128i *)(void *)sums, _mm_sad_epu8(acc, zero));
		n += sums[0] + sums[1];
	}
#endif
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

static int core_id_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const htf_reader *h = ctx;

	(void)n;
	return h->core_ids[v] == *(const uint64_t *)k;
}

static int core_slot(htf_reader *h, uint64_t id, uint32_t *slot,
		     uint32_t *ent, tk_error *err)
{
	char name[32];
	uint32_t i, hash = hash_u64(id);

	snprintf(name, sizeof(name), "Core_%llu", (unsigned long long)id);
	*ent = tk_trace_entity_intern(h->t, name, strlen(name));
	if (*ent == TK_NONE)
		return tk_err_nomem(err, h->name);
	if (h->t->ents[*ent].type == TK_ET_UNKNOWN) {
		h->t->ents[*ent].type = TK_ET_C;
		h->t->ents[*ent].type_name = tk_strpool_intern(&h->t->pool, "C", 1);
	}
	i = kindex_find(&h->slotidx, hash, core_id_eq, h, &id, sizeof(id));
	if (i != UINT32_MAX) {
		*slot = i;
		return TK_OK;
	}
	if (h->nslots == h->capslots) {
		uint32_t ncap = h->capslots ? 2 * h->capslots : 8;
		uint64_t *n;
		uint8_t *o;
		if (!ncap)
			return tk_err_nomem(err, h->name);
		if (!(n = tk_xrealloc_array(h->core_ids, ncap, sizeof(*n))))
			return tk_err_nomem(err, h->name);
		h->core_ids = n;
		if (!(o = realloc(h->own, ncap)))
			return tk_err_nomem(err, h->name);
		h->own = o;
		h->capslots = ncap;
	}
	h->core_ids[h->nslots] = id;
	h->own[h->nslots] = 0;
	if (kindex_add(&h->slotidx, hash, h->nslots) < 0)
		return tk_err_nomem(err, h->name);
	*slot = h->nslots++;
	return TK_OK;
}

static int add_cursor(htf_reader *h, const char *beg, const char *end,
		      uint64_t line, uint64_t core_id, int implicit,
		      tk_error *err)
{
	cursor *c, *n;
	uint32_t slot = 0, core = 0;
	int rc;

	if (implicit) {
		const char *p = beg, *e;
		int content = 0;
		while (p < end && !content) {
			p = skip_blanks(p, end);
			e = memchr(p, '\n', (size_t)(end - p));
			if (!e)
				e = end;
			content = p < e && *p != '\r' &&
				  !(e - p >= 2 && p[0] == '/' && p[1] == '/');
			p = e + (e < end);
		}
		if (!content)
			return TK_OK;
	}
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
	if (h->ncur == h->capcur) {
		uint32_t ncap = h->capcur ? 2 * h->capcur : 8;
		n = tk_xrealloc_array(h->cur, ncap, sizeof(*n));
		if (!ncap || !n)
			return tk_err_nomem(err, h->name);
		h->cur = n;
		h->capcur = ncap;
	}
	c = &h->cur[h->ncur];
	memset(c, 0, sizeof(*c));
	c->p = c->ls = beg;
	c->released = beg;
	c->end = end;
	c->rlim = h->lim;
	c->safe = h->safe16;
	c->line = line;
	c->implicit = implicit;
	c->len = (uint64_t)(end - beg);
	if (h->fd >= 0) {
		/* read through a window (cursors_alloc): the mapping is not
		 * touched */
		c->foff = h->foff0 + (uint64_t)(beg - h->buf);
		c->fend = h->foff0 + (uint64_t)(end - h->buf);
	}
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
	for (i = 0; i < h->ncur; i++) {
		cursor *c = &h->cur[i];
		/* a record is at least w + 1 bytes (the last maybe w) */
		uint64_t recs = c->len / (h->w + 1) + 1;
		size_t nb = (recs < BATCH ? (size_t)recs : BATCH) + 1;
		c->b = calloc(nb, sizeof(*c->b));
		if (!c->b)
			return tk_err_nomem(err, h->name);
		if (h->fd < 0)
			continue;
		c->wcap = c->len < share ? (size_t)c->len : share;
		if (!c->wcap)
			c->wcap = 1;
		c->win = calloc(1, WIN_HEAD + c->wcap + WIN_TAIL);
		if (!c->win)
			return tk_err_nomem(err, h->name);
		c->p = c->end = c->ls = c->win + WIN_HEAD;
		c->rlim = c->win + WIN_HEAD + c->wcap + WIN_TAIL;
		c->safe = c->win;
	}
	return TK_OK;
}

/*
 * Give back the mapped pages a cursor (or the scan for the sections) has
 * left behind (a section's bytes are read by no one else), so that the
 * resident size stays flat in the trace size.  Only for file mappings,
 * never for a caller's memory block; the mapping is private and read-only,
 * so a page touched again is only read back from the file (the scan's
 * pages are touched again by the cursors: about 20% of the read time,
 * against a resident size that would otherwise be the file's).
 */
#define RELEASE_STEP ((size_t)2 << 20)

static void release_range(htf_reader *h, const char *a, const char *b)
{
	uintptr_t from = (uintptr_t)a, to = (uintptr_t)b;

	from = (from + h->page - 1) & ~(uintptr_t)(h->page - 1);
	to &= ~(uintptr_t)(h->page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

static void release_behind(htf_reader *h, cursor *c)
{
	release_range(h, c->released, c->p);
	c->released = c->p;
}

/* Read bytes [p, p + n) of the mapped file into h->chunk with pread(). */
static int scan_read(htf_reader *h, const char *p, size_t n, tk_error *err)
{
	int rc = tk_pread_all(h->fd, h->chunk, n,
			   h->foff0 + (uint64_t)(p - h->buf));

	if (rc < 0)
		return tk_err_set(err, TK_E_IO, h->name, 0, 0,
				  "cannot read: %s", strerror(errno));
	if (rc > 0)
		return tk_err_set(err, TK_E_IO, h->name, 0, 0,
				  "the file shrank while being read");
	return TK_OK;
}

/* Newlines in [a, b) of the mapping; from the scan's chunk (which holds
 * [cp, cp + cn)) where it has them. */
static uint64_t count_nl_at(const htf_reader *h, const char *a, const char *b,
			    const char *cp, size_t cn)
{
	if (h->fd >= 0 && a >= cp && b <= cp + cn)
		return count_nl(h->chunk + (a - cp), h->chunk + (b - cp));
	return count_nl(a, b);
}

/*
 * The second half of the scan, run on a thread while the first half is
 * scanned: per SCAN_CHUNK from `from`, its newlines and whether it holds a
 * '#'.  find_sections() then passes over the chunks without a '#' at the
 * cost of an addition, and reads the others as usual.
 */
typedef struct scan_half {
	htf_reader *h;
	const char *from;     /* at h->buf + ... , chunks of SCAN_CHUNK */
	size_t n;             /* chunks */
	uint64_t *nl;
	uint8_t *hash;
	char *buf;            /* its pread() buffer */
	int failed;           /* a read failed: find_sections reads for itself */
	int joined;
	pthread_t th;
} scan_half;

static void *scan_half_run(void *arg)
{
	scan_half *sh = arg;
	const htf_reader *h = sh->h;
	size_t k;

	for (k = 0; k < sh->n; k++) {
		const char *a = sh->from + k * SCAN_CHUNK, *q = a;
		size_t len = (size_t)(h->lim - a) < SCAN_CHUNK
				     ? (size_t)(h->lim - a) : SCAN_CHUNK;
		if (h->fd >= 0) {
			if (tk_pread_all(h->fd, sh->buf, len,
				      h->foff0 + (uint64_t)(a - h->buf)) != 0) {
				sh->failed = 1;
				return NULL;
			}
			q = sh->buf;
		}
		sh->hash[k] = memchr(q, '#', len) != NULL;
		sh->nl[k] = count_nl(q, q + len);
		/* a mapping's pages are given back behind, as the other half
		 * does (a chunk with a '#' is read again from the file) */
		if (h->fd < 0 && h->may_release)
			release_range((htf_reader *)h, a, a + len);
	}
	return NULL;
}

/* Start the second half's scan on a thread if the input is large: 1, or
 * 0 (the scan is all find_sections'). */
static int scan_half_start(htf_reader *h, const char *data, scan_half *sh)
{
	size_t len = (size_t)(h->lim - data), first;

	memset(sh, 0, sizeof(*sh));
	if (!tk_pipe_want_thread(h->r->opts.threads, len) ||
	    len < 4 * SCAN_CHUNK)
		return 0;
	first = (len / 2 / SCAN_CHUNK) * SCAN_CHUNK;
	sh->h = h;
	sh->from = data + first;
	sh->n = (len - first + SCAN_CHUNK - 1) / SCAN_CHUNK;
	sh->nl = malloc(sh->n * sizeof(*sh->nl));
	sh->hash = malloc(sh->n);
	sh->buf = h->fd >= 0 ? tk_bigbuf_alloc(SCAN_CHUNK) : NULL;
	if (!sh->nl || !sh->hash || (h->fd >= 0 && !sh->buf) ||
	    tk_thread_start(&sh->th, scan_half_run, sh) != 0) {
		free(sh->nl);
		free(sh->hash);
		tk_bigbuf_free(sh->buf);
		memset(sh, 0, sizeof(*sh));
		return 0;
	}
	return 1;
}

/* Wait for the second half's scan; 1 if its summary may be used. */
static int scan_half_join(scan_half *sh)
{
	pthread_join(sh->th, NULL);
	tk_bigbuf_free(sh->buf);
	sh->buf = NULL;
	return !sh->failed;
}

static void scan_half_free(scan_half *sh)
{
	free(sh->nl);
	free(sh->hash);
	tk_bigbuf_free(sh->buf);
}

static int find_sections_in(htf_reader *h, const char *data, scan_half *sh,
			    tk_error *err);

static int find_sections(htf_reader *h, const char *data, tk_error *err)
{
	scan_half sh;
	int rc, threaded = scan_half_start(h, data, &sh);

	rc = find_sections_in(h, data, threaded ? &sh : NULL, err);
	if (threaded) {
		if (!sh.joined) /* find_sections_in stopped before its half */
			scan_half_join(&sh);
		scan_half_free(&sh);
	}
	return rc;
}

static int find_sections_in(htf_reader *h, const char *data, scan_half *sh,
			    tk_error *err)
{
	const char *p = data, *counted = data, *beg = data, *rel = data, *m;
	const char *cp = data; /* the scan's chunk holds [cp, cp + cn) */
	size_t cn = 0;
	uint64_t line = h->line + 1, beg_line = line;
	uint64_t core_id = 0;
	int implicit = 1, rc;
	char qb[64];

	/* read_header() leaves data in the input, which h->lim ends */
	TK_ANALYZER_ASSUME(data != NULL || h->lim == NULL);
	/*
	 * One pass in steps: find the '#'s, count the lines.  A plain file is
	 * read in chunks with pread() (its mapping is touched only around a
	 * '#'); otherwise the mapping is scanned and its pages given back
	 * behind.
	 */
	if (h->fd >= 0 && !(h->chunk = tk_bigbuf_alloc(SCAN_CHUNK)))
		return tk_err_nomem(err, h->name);
	while (p < h->lim) {
		const char *ls, *le, *nl, *ie, *r;
		size_t step = (size_t)(h->lim - p), most = SIZE_MAX;
		uint64_t id;
		if (sh) {
			/* up to the second half, then chunk by chunk: a chunk
			 * without a '#' is passed over with its count */
			size_t bound;
			if (p < sh->from) {
				bound = (size_t)(sh->from - p);
			} else {
				size_t k = (size_t)(p - sh->from) / SCAN_CHUNK;
				if (!sh->joined) {
					sh->joined = 1;
					if (!scan_half_join(sh))
						sh->n = 0;
				}
				if (p == sh->from + k * SCAN_CHUNK && p == counted &&
				    k < sh->n && !sh->hash[k]) {
					const char *e = h->lim - p < (ptrdiff_t)SCAN_CHUNK
							? h->lim : p + SCAN_CHUNK;
					line += sh->nl[k];
					p = counted = e;
					if (h->may_release &&
					    (size_t)(p - rel) > 2 * RELEASE_STEP) {
						release_range(h, rel, p - RELEASE_STEP);
						rel = p - RELEASE_STEP;
					}
					continue;
				}
				bound = (size_t)(sh->from + (k + 1) * SCAN_CHUNK - p);
			}
			most = bound;
			if (step > most)
				step = most;
		}
		if (h->fd >= 0) {
			if (p < cp || p >= cp + cn) {
				if (step > SCAN_CHUNK)
					step = SCAN_CHUNK;
				if ((rc = scan_read(h, p, step, err)) < 0)
					return rc;
				cp = p;
				cn = step;
			}
			step = (size_t)(cp + cn - p);
			if (step > most)
				step = most;
			m = memchr(h->chunk + (p - cp), '#', step);
			if (m)
				m = cp + (m - h->chunk);
		} else {
			if (step > RELEASE_STEP)
				step = RELEASE_STEP;
			m = memchr(p, '#', step);
		}
		if (!m) {
			line += count_nl_at(h, counted, p + step, cp, cn);
			p += step;
			counted = p;
			if (h->may_release && (size_t)(p - rel) > 2 * RELEASE_STEP) {
				release_range(h, rel, p - RELEASE_STEP);
				rel = p - RELEASE_STEP;
			}
			continue;
		}
		ls = m;
		while (ls > data && (ls[-1] == ' ' || ls[-1] == '\t'))
			ls--;
		if (ls > data && ls[-1] != '\n') {
			/* in a comment */
			line += count_nl_at(h, counted, m + 1, cp, cn);
			counted = p = m + 1;
			if (h->may_release && (size_t)(p - rel) > 2 * RELEASE_STEP) {
				release_range(h, rel, p - RELEASE_STEP);
				rel = p - RELEASE_STEP;
			}
			continue;
		}
		line += count_nl_at(h, counted, ls, cp, cn);
		counted = ls;
		rc = add_cursor(h, beg, ls, beg_line, core_id, implicit, err);
		if (rc < 0)
			return rc;
		/* no further than a line may go */
		if ((size_t)(m - ls) > TK_LINE_MAX)
			return tk_err_line_long(err, h->name, line);
		step = (size_t)(h->lim - ls);
		nl = memchr(m, '\n', (size_t)(ls + (step > TK_LINE_MAX + 2
						       ? TK_LINE_MAX + 2 : step) - m));
		le = nl ? nl : h->lim;
		if (le > m && le[-1] == '\r')
			le--;
		h->line = line;
		if ((!nl && step > TK_LINE_MAX + 1) ||
		    (size_t)(le - ls) > TK_LINE_MAX)
			return tk_err_line_long(err, h->name, line);
		if (le - m < 2 || m[1] != '-')
			return err_at(h, err, TK_E_PARSE, line, ls, m,
				      "'%s' in the trace data (a core section is '#-<core id>')",
				      q(qb, sizeof(qb), m, le));
		rc = hex_id(h, ls, m + 2, le, &id, &ie, err);
		if (rc < 0)
			return rc;
		r = skip_blanks(ie, le);
		if (r < le && !(le - r >= 2 && r[0] == '/' && r[1] == '/'))
			return err_at(h, err, TK_E_PARSE, line, ls, r,
				      "unexpected text after the core section '%s'",
				      q(qb, sizeof(qb), m, ie));
		core_id = id;
		implicit = 0;
		p = beg = nl ? nl + 1 : h->lim;
		counted = beg;
		line++;
		beg_line = line;
	}
	if (h->may_release) /* the header too: its text is not read again */
		release_range(h, h->buf, h->lim);
	rc = add_cursor(h, beg, h->lim, beg_line, core_id, implicit, err);
	if (rc < 0)
		return rc;
	if (h->have_ncores) {
		/* the cores that have a section of their own */
		uint32_t n = h->nown;
		if (n > h->ncores_decl) {
			if (h->strict)
				return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
						  "%u core sections, #NumberOfCores is %llu",
						  n, (unsigned long long)h->ncores_decl);
			warn(h, W_CORES, 0, NULL, NULL,
			     "%u core sections, #NumberOfCores is %llu", n,
			     (unsigned long long)h->ncores_decl);
		}
	}
	return TK_OK;
}

/* ---- records ------------------------------------------------------------ */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_SWAR 1
/*
 * n (1..8) hex digits at p, with 8 bytes readable at p: validated and
 * converted a word at a time.  Returns 0 if a byte is not a hex digit.
 */
static inline int hex8(const char *p, unsigned n, uint64_t *out)
{
	const uint64_t H = 0x8080808080808080ull;
	uint64_t w, x, v, ok;

	memcpy(&w, p, 8);
	if (n < 8) {
		uint64_t keep = ~0ull >> (8 * (8 - n));
		w = (w & keep) | (0x3030303030303030ull & ~keep);
	}
	if (w & H)
		return 0;
	x = w | 0x2020202020202020ull;
	ok = (((w + 0x5050505050505050ull) & ~(w + 0x4646464646464646ull)) |
	      ((x + 0x1f1f1f1f1f1f1f1full) & ~(x + 0x1919191919191919ull))) &
	     H;
	if (ok != H)
		return 0;
	v = (w & 0x0f0f0f0f0f0f0f0full) + ((w >> 6) & 0x0101010101010101ull) * 9;
	v = ((v & 0x000f000f000f000full) << 4) | ((v >> 8) & 0x000f000f000f000full);
	v = ((v & 0x000000ff000000ffull) << 8) | ((v >> 16) & 0x000000ff000000ffull);
	v = ((v & 0xffffull) << 16) | ((v >> 32) & 0xffffull);
	*out = n < 8 ? v >> (4 * (8 - n)) : v;
	return 1;
}

static inline int hex_field(const char *p, unsigned n, uint64_t *out)
{
	uint64_t hi, lo;

	if (n <= 8)
		return hex8(p, n, out);
	if (!hex8(p, n - 8, &hi) || !hex8(p + n - 8, 8, &lo))
		return 0;
	*out = hi << 32 | lo;
	return 1;
}
#endif

static uint64_t hex_slow(const char *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = v << 4 | (uint64_t)hexval((unsigned char)p[i]);
	return v;
}

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
					     h->t->ents[h->ents[ei].tkid].name,
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
		if (h->strict)
			return err_at(h, err, TK_E_PARSE, c->rline, ls, rec,
				      "time decreases in the section of Core_%llu (0x%llX after 0x%llX)",
				      (unsigned long long)h->core_ids[c->slot],
				      (unsigned long long)c->time,
				      (unsigned long long)c->last_time);
		warn(h, W_TIME_DECREASES, c->rline, ls, rec,
		     "time decreases in the section of Core_%llu (0x%llX after 0x%llX); merged as it is",
		     (unsigned long long)h->core_ids[c->slot],
		     (unsigned long long)c->time,
		     (unsigned long long)c->last_time);
	}
	c->last_time = c->time;
	c->have_time = 1;
	return TK_OK;
}

#if TK_HTF_SSE
/*
 * The record of w <= 16 digits that ends at e (16 bytes readable before
 * e): all digits validated and converted at once, the bytes before the
 * record masked by h->pad.  Returns 0 if a digit is not a hex digit.
 */
static inline int hex16(const htf_reader *h, const char *e, uint64_t *out)
{
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(e - 16));
	__m128i digit, alpha, n, r;
	uint64_t x;

	/* (uint8)(v - '0') < 10, (uint8)((v | 0x20) - 'a') < 6 */
	digit = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(0x50)),
			       _mm_set1_epi8(-118));
	alpha = _mm_cmplt_epi8(
		_mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
			     _mm_set1_epi8(0x1f)),
		_mm_set1_epi8(-122));
	if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, alpha),
					   h->pad)) != 0xffff)
		return 0;
	n = _mm_andnot_si128(h->pad,
			     _mm_add_epi8(_mm_and_si128(v, _mm_set1_epi8(0x0f)),
					  _mm_and_si128(alpha, _mm_set1_epi8(9))));
	/* nibble pairs to bytes, bytes to a big-endian word */
	r = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(n, 4),
				       _mm_srli_epi16(n, 8)),
			  _mm_set1_epi16(0xff));
	x = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(r, r));
	*out = __builtin_bswap64(x);
	return 1;
}
#endif

/*
 * A window (c->win) that has no whole line ahead of the cursor: move what
 * is left to its front and read on, until a line ends in it or the section
 * is all read (a line longer than the window makes it grow).
 */
static int win_fill(htf_reader *h, cursor *c, tk_error *err)
{
	size_t keep = (size_t)(c->end - c->p);
	char *base = c->win + WIN_HEAD;

	memmove(base, c->p, keep);
	c->p = base;
	c->end = base + keep;
	while (c->foff < c->fend) {
		uint64_t left = c->fend - c->foff;
		size_t want = c->wcap - keep;
		ssize_t n;
		if (!want) {
			size_t ncap = c->wcap * 2;
			/* no line end in it: the window grows for a long
			 * line, up to what a line may be */
			if (keep > TK_LINE_MAX + 1)
				return tk_err_line_long(err, h->name, c->line);
			char *nw = realloc(c->win, WIN_HEAD + ncap + WIN_TAIL);
			if (!nw)
				return tk_err_nomem(err, h->name);
			memset(nw + WIN_HEAD + c->wcap, 0, ncap - c->wcap + WIN_TAIL);
			c->win = nw;
			c->wcap = ncap;
			base = nw + WIN_HEAD;
			c->p = base;
			c->end = base + keep;
			c->rlim = base + ncap + WIN_TAIL;
			c->safe = nw;
			continue;
		}
		if (want > left)
			want = (size_t)left;
		n = pread(h->fd, base + keep, want, (off_t)c->foff);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tk_err_set(err, TK_E_IO, h->name, 0, 0,
					  "cannot read: %s", strerror(errno));
		if (n == 0)
			return tk_err_set(err, TK_E_IO, h->name, 0, 0,
					  "the file shrank while being read");
		keep += (size_t)n;
		c->foff += (uint64_t)n;
		c->end = base + keep;
		if (memchr(base, '\n', keep))
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

	for (;;) {
		const char *p, *s, *e, *ls;
		unsigned n;

		if (c->win && c->foff < c->fend &&
		    !memchr(c->p, '\n', (size_t)(c->end - c->p))) {
			int rc = win_fill(h, c, err);
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
			if (h->strict)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, s,
					      "a comment without a record");
			warn(h, W_COMMENT_LINE, c->rline, ls, s,
			     "a comment without a record (skipped)");
			continue;
		}
		for (n = 0; s + n < e && hexval((unsigned char)s[n]) >= 0; n++)
			;
		{
			const char *r = skip_blanks(s + n, e);
			if (r < e && !(e - r >= 2 && r[0] == '/' && r[1] == '/'))
				return err_at(h, err, TK_E_PARSE, c->rline, ls, r,
					      "'%c' in a record (a record is %u hex digits, then an optional // comment)",
					      *r, w);
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
					      q(qb, sizeof(qb), s, s + n), n, w,
					      h->tl, h->el, h->vl);
			warn(h, W_LONG_RECORD, c->rline, ls, s,
			     "record '%s' has %u hex digits, %u are due: the extra leading zeros are ignored",
			     q(qb, sizeof(qb), s, s + n), n, w);
			s += extra;
		}
		if (c->implicit) {
			if (h->strict)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, s,
					      "a record before the first core section '#-<core id>'");
			warn(h, W_NO_SECTION, c->rline, ls, s,
			     "records before the first core section: read as Core_0");
			c->implicit = 0;
		}
		c->time = hex_slow(s, tl2);
		ent_id = hex_slow(s + tl2, el2);
		ev_id = hex_slow(s + tl2 + el2, vl2);
		{
			int rc = check_time(h, c, ls, s, err);
			if (rc < 0)
				return rc;
		}
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

/*
 * Decode the plain records at the cursor into its batch: records alone on
 * their line, ids known, time not decreasing.  Stops before anything else
 * (which the line-at-a-time path then reads, with its warnings and
 * errors).  Returns the number of records.
 */
#if TK_HTF_SSE
static uint32_t batch16(htf_reader *h, cursor *c)
{
	const unsigned w = h->w, sh_time = h->sh_time, sh_ent = h->sh_ent;
	const uint64_t m_ent = h->m_ent, m_ev = h->m_ev;
	const uint64_t *pair = h->pair, m_key = ((uint64_t)1 << sh_time) - 1,
		       npair = h->npair;
	const char *p = c->p;
	uint64_t last = c->have_time ? c->last_time : 0;
	hrec *b = c->b;
	uint32_t n = 0, m;

	/* a record at p needs its newline before end, and 16 bytes
	 * readable before that */
	if (p < c->safe || (size_t)(c->end - p) <= w)
		return 0;
	m = (uint32_t)((size_t)(c->end - p) / (w + 1));
	if (m > BATCH)
		m = BATCH;
	for (; n < m && p[w] == '\n'; n++, p += w + 1) {
		uint64_t v, t, key, x;
		if (!hex16(h, p + w, &v))
			break;
		t = v >> sh_time;
		if (TK_UNLIKELY(t < last))
			break;
		key = v & m_key;
		if (TK_LIKELY(key < npair)) {
			x = pair[key];
			if (TK_UNLIKELY(x == UINT64_MAX))
				break;
		} else {
			uint32_t ei = idmap_get(&h->entmap, (v >> sh_ent) & m_ent), d;
			if (TK_UNLIKELY(ei == UINT32_MAX))
				break;
			d = ev_desc(h, &h->ents[ei], v & m_ev);
			if (TK_UNLIKELY(d == UINT32_MAX))
				break;
			x = (uint64_t)h->ents[ei].tkid << 32 | h->keys[d];
		}
		b[n].time = t;
		b[n].id = x;
		last = t;
	}
	if (n) {
		c->p = p;
		c->line += n;
		c->last_time = last;
		c->have_time = 1;
	}
	return n;
}
#endif

#ifdef HAVE_SWAR
static uint32_t batchw(htf_reader *h, cursor *c)
{
	const unsigned w = h->w, tl2 = 2 * h->tl, el2 = 2 * h->el,
		       vl2 = 2 * h->vl;
	const char *p = c->p, *stop;
	uint64_t last = c->have_time ? c->last_time : 0;
	hrec *b = c->b;
	uint32_t n = 0;

	/* a record at p needs its newline before end, and 8 bytes readable
	 * after that */
	if ((size_t)(c->end - p) <= w || (size_t)(c->rlim - p) < (size_t)w + 8)
		return 0;
	stop = c->end - w;
	if (c->rlim - (w + 7) < stop)
		stop = c->rlim - (w + 7);
	while (n < BATCH && p < stop && p[w] == '\n') {
		uint64_t t, ent_id, ev_id;
		uint32_t ei, d;
		if (!hex_field(p, tl2, &t) || !hex_field(p + tl2, el2, &ent_id) ||
		    !hex_field(p + tl2 + el2, vl2, &ev_id))
			break;
		if (TK_UNLIKELY(t < last))
			break;
		ei = idmap_get(&h->entmap, ent_id);
		if (TK_UNLIKELY(ei == UINT32_MAX))
			break;
		d = ev_desc(h, &h->ents[ei], ev_id);
		if (TK_UNLIKELY(d == UINT32_MAX))
			break;
		b[n].time = t;
		b[n].id = (uint64_t)h->ents[ei].tkid << 32 | h->keys[d];
		last = t;
		p += w + 1;
		n++;
	}
	if (n) {
		c->p = p;
		c->line += n;
		c->last_time = last;
		c->have_time = 1;
	}
	return n;
}
#endif

/*
 * The next batch of cursor c from the batch decoders alone: the number of
 * records (c->b), 0 when the next record needs the line-at-a-time path
 * (or the section is over), or an error (a read).  What it touches is the
 * cursor's own, so the merge may run it on its thread.
 */
static int refill_fast(htf_reader *h, cursor *c, tk_error *err)
{
	uint32_t n = 0;
	int rc;

	if (c->win) {
		/* read on when the window runs low */
		if ((size_t)(c->end - c->p) < WIN_LOW && c->foff < c->fend &&
		    (rc = win_fill(h, c, err)) < 0)
			return rc;
	} else if (TK_UNLIKELY((size_t)(c->p - c->released) >= RELEASE_STEP) &&
		   h->may_release) {
		release_behind(h, c);
	}
	c->bline = c->line;
	if (!c->implicit) {
#if TK_HTF_SSE
		if (h->fast16)
			n = batch16(h, c);
		else
#endif
#ifdef HAVE_SWAR
			n = batchw(h, c);
#endif
	}
	c->bn = n;
	return (int)n;
}

/* The next batch of cursor c, by the line-at-a-time path where the batch
 * decoders stop: TK_OK, TK_END or an error. */
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
 * The first of the smallest times of hp[0..3] (a tournament that prefers
 * the left side on ties, without a branch to mispredict).  Unused entries
 * after the live cursors hold UINT64_MAX: they never win, since a later
 * entry wins only with a smaller time.
 */
static inline uint32_t first_min4(const hnode *hp)
{
	uint64_t t0 = hp[0].time, t1 = hp[1].time, t2 = hp[2].time,
		 t3 = hp[3].time, ta, tb;
	uint32_t a = (uint32_t)(t1 < t0), b = 2u + (uint32_t)(t3 < t2);

	ta = t1 < t0 ? t1 : t0;
	tb = t3 < t2 ? t3 : t2;
	return tb < ta ? b : a;
}

static inline uint32_t first_min(const hnode *hp, uint32_t nsel)
{
	uint32_t a, b;

	if (nsel == 4)
		return first_min4(hp);
	if (nsel == 2)
		return (uint32_t)(hp[1].time < hp[0].time);
	a = first_min4(hp);
	b = first_min4(hp + 4) + 4;
	return hp[b].time < hp[a].time ? b : a;
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
	t->next = c->b[1].time;
	t->line = c->bline;
	t->sc = c->slot | (uint64_t)c->core << 32;
	t->idx = i;
}

/* Take node t (the one whose record went out) out of the merge. */
static void node_drop(htf_reader *h, uint32_t top)
{
	if (h->linear) {
		h->nheap--;
		memmove(&h->heap[top], &h->heap[top + 1],
			(h->nheap - top) * sizeof(h->heap[0]));
		memset(&h->heap[h->nheap], 0, sizeof(h->heap[0]));
		h->heap[h->nheap].time = UINT64_MAX;
	} else {
		h->heap[0] = h->heap[--h->nheap];
		if (h->nheap > 1)
			sift_down(h, 0);
	}
}

/*
 * The merge, run ahead of the events (the pipe's fill function): records
 * of all sections in (time, section) order into `block`.  A cursor whose
 * batch runs out is refilled by the batch decoders; when the next record
 * needs the line-at-a-time path (its warnings and errors must come after
 * the events before it), the block ends with TK_PIPE_STALL and the
 * cursor's node in h->stall: next_block() reads that record and lets the
 * merge go on.
 */
/* the target's instance of a record (id as in hrec) */
static inline int64_t count(int64_t *acts, int64_t *starts, uint64_t id)
{
	uint32_t k = (uint32_t)id;

	return tk_synth_count_(acts, starts, (k & KEY_ACT) != 0,
			       (k & KEY_START) != 0, (k & KEY_COUNTED) != 0,
			       (uint32_t)(id >> 32));
}

/* Put node t's head record out and step past it: 0, or 1 when its batch
 * is used up. */
static inline int node_out(hnode *t, mrec *o)
{
	const hrec *rec = t->rec;

	o->time = t->time;
	o->line = t->line++;
	o->id = rec->id;
	o->sc = t->sc;
	if (TK_LIKELY(rec + 1 < t->bend)) {
		t->rec = rec + 1;
		t->time = t->next;
		t->next = rec[2].time; /* at most b[bn] */
		return 0;
	}
	return 1;
}

/* A node whose batch is used up: the next batch from the batch decoders
 * (1), or 0 with h->stall set, or an error. */
static int node_refill(htf_reader *h, uint32_t top, tk_error *err)
{
	hnode *t = &h->heap[top];
	cursor *c = &h->cur[t->idx];
	int k = refill_fast(h, c, err);

	if (TK_UNLIKELY(k <= 0)) {
		h->stall = top;
		return k;
	}
	node_set(t, c, t->idx);
	return 1;
}

/* the merge of a few sections: heap[] holds them in section order, padded
 * to nsel (2, 4, 8) with UINT64_MAX times; the first of the smallest
 * times goes out */
static inline int merge_linear(htf_reader *h, mrec *out, size_t cap,
			       size_t *np, tk_error *err, uint32_t nsel)
{
	hnode *heap = h->heap;
	int64_t *acts = h->synth.acts, *starts = h->synth.starts;
	size_t n = 0;

	while (n < cap) {
		uint32_t top = first_min(heap, nsel);
		mrec *o = &out[n++];
		int used = node_out(&heap[top], o);
		/* every target has its counters (merge_start) */
		o->inst = count(acts, starts, o->id);
		if (TK_UNLIKELY(used)) {
			int k = node_refill(h, top, err);
			if (TK_UNLIKELY(k <= 0)) {
				*np = n;
				return k < 0 ? k : TK_PIPE_STALL;
			}
		}
	}
	*np = n;
	return TK_PIPE_MORE;
}

/* the merge of many sections: a binary heap */
static int merge_heap(htf_reader *h, mrec *out, size_t cap, size_t *np,
		      tk_error *err)
{
	int64_t *acts = h->synth.acts, *starts = h->synth.starts;
	size_t n = 0;

	while (n < cap) {
		mrec *o = &out[n++];
		int used = node_out(&h->heap[0], o);
		/* every target has its counters (merge_start) */
		o->inst = count(acts, starts, o->id);
		if (TK_UNLIKELY(used)) {
			int k = node_refill(h, 0, err);
			if (TK_UNLIKELY(k <= 0)) {
				*np = n;
				return k < 0 ? k : TK_PIPE_STALL;
			}
		}
		if (h->nheap > 1)
			sift_down(h, 0);
	}
	*np = n;
	return TK_PIPE_MORE;
}

/*
 * The merge, run ahead of the events (the pipe's fill function): records
 * of all sections in (time, section) order into `block`.  A cursor whose
 * batch runs out is refilled by the batch decoders; when the next record
 * needs the line-at-a-time path (its warnings and errors must come after
 * the events before it), the block ends with TK_PIPE_STALL and the
 * cursor's node in h->stall: next_block() reads that record and lets the
 * merge go on.  Only the line-at-a-time path ends a section, so the set of
 * live sections does not change in here.
 */
static int merge_fill(void *arg, void *block, size_t cap, size_t *np,
		      tk_error *err)
{
	htf_reader *h = arg;

	*np = 0;
	if (!h->nheap)
		return TK_END;
	if (!h->linear)
		return merge_heap(h, block, cap, np, err);
	switch (h->nsel) {
	case 2:
		return merge_linear(h, block, cap, np, err, 2);
	case 4:
		return merge_linear(h, block, cap, np, err, 4);
	default:
		return merge_linear(h, block, cap, np, err, 8);
	}
}

/* The first records of all sections, and the merge set up. */
static int merge_start(htf_reader *h, tk_error *err)
{
	uint64_t bytes = 0;
	uint32_t i;
	int rc;

	for (i = 0; i < h->ncur; i++) {
		cursor *c = &h->cur[i];
		rc = refill(h, c, err);
		if (rc < 0)
			return rc;
		if (rc == TK_OK) {
			node_set(&h->heap[h->nheap], c, i);
			if (!h->linear)
				sift_up(h, h->nheap);
			h->nheap++;
		}
		bytes += (uint64_t)(c->end - c->p) + (c->fend - c->foff);
	}
	/* the instance counters of every entity (the trace's entities are
	 * all known by now), made before the merge counts on them */
	if (h->t->nents > h->synth.cap_ent &&
	    tk_synth_grow(&h->synth, h->t->nents - 1) < 0)
		return tk_err_nomem(err, h->name);
	for (i = h->nheap; h->linear && i < h->nsel; i++) {
		memset(&h->heap[i], 0, sizeof(h->heap[i]));
		h->heap[i].time = UINT64_MAX;
	}
	return tk_pipe_start(&h->pipe, sizeof(mrec), MERGE_BLOCK, MERGE_BLOCKS,
			     tk_pipe_want_thread(h->r->opts.threads, bytes),
			     merge_fill, h, h->name, err);
}

/*
 * The block in hand is used up: settle how it ended (a record for the
 * line-at-a-time path, the end, an error) and take the next one.  TK_OK
 * with h->q .. h->qn holding records, TK_END or an error.
 */
static int next_block(htf_reader *h, tk_error *err)
{
	const tk_pipe_block *b;
	int rc;

	for (;;) {
		if (TK_UNLIKELY(h->done))
			return h->done_rc == TK_END ? TK_END
						    : (*err = h->done_err, h->done_rc);
		if (!h->started) {
			h->started = 1;
			rc = merge_start(h, err);
			if (rc < 0)
				goto fail;
		} else if (h->blk) {
			rc = h->blk->status;
			if (rc == TK_PIPE_STALL) {
				/* the merge waits: read the record of the
				 * cursor it stopped at here, warnings and all */
				uint32_t top = h->stall;
				hnode *t = &h->heap[top];
				rc = refill(h, &h->cur[t->idx], err);
				if (rc < 0)
					goto fail;
				if (rc == TK_OK) {
					node_set(t, &h->cur[t->idx], t->idx);
					if (!h->linear && h->nheap > 1)
						sift_down(h, 0);
				} else {
					node_drop(h, top);
				}
				tk_pipe_resume(&h->pipe);
			} else if (rc != TK_PIPE_MORE) {
				if (rc < 0)
					*err = h->blk->err;
				goto fail;
			}
		}
		b = tk_pipe_next(&h->pipe);
		h->blk = b;
		h->q = b->items;
		h->qi = 0;
		h->qn = b->n;
		if (h->qn)
			return TK_OK;
	}
fail:
	/* the end or an error: the same on every later call */
	h->done = 1;
	h->done_rc = rc;
	if (rc < 0)
		h->done_err = *err;
	return rc;
}

/*
 * Events from the merged records in hand, up to EV_BATCH at a time: the
 * descriptor's fields, the instance the merge gave, and the source from
 * the running stacks (tk_reader_next hands out the rest of the batch).
 */
int htf_reader_next(tk_reader *r, const tk_event **evp, tk_error *err)
{
	htf_reader *h = r->impl;
	tk_event *ev = h->evs;
	/* in locals: the stores into the events could alias them */
	const hdesc *descs = h->descs;
	tk_synth_stack *procs = h->synth.procs, *runs = h->synth.runs;
	const mrec *m;
	size_t n, k;
	int rc;

	if (TK_UNLIKELY(h->qi == h->qn) && (rc = next_block(h, err)) != TK_OK)
		return rc;
	n = h->qn - h->qi < EV_BATCH ? h->qn - h->qi : EV_BATCH;
	m = h->q + h->qi;
	for (k = 0; k < n; k++, m++, ev++) {
		const hdesc *d = &descs[(uint32_t)m->id & KEY_DESC];
		uint32_t tkid = (uint32_t)(m->id >> 32),
			 slot = (uint32_t)m->sc, core = (uint32_t)(m->sc >> 32);
		ev->time = m->time;
		ev->target = tkid;
		ev->type = d->et;
		ev->type_name = d->type_name;
		ev->kind = d->kind;
		ev->name = d->name;
		ev->core = core;
		ev->note = NULL;
		ev->note_len = 0;
		ev->pos = m->line;
		ev->target_inst = m->inst;
		if (TK_UNLIKELY(tk_synth_stack_inline(
			    &procs[slot], &runs[slot], core, core, d->op, tkid,
			    m->inst, &ev->source, &ev->source_inst) < 0))
			break;
	}
	if (TK_UNLIKELY(!k))
		return tk_err_nomem(err, h->name);
	h->qi += k;
	r->evq = h->evs + 1;
	r->evq_end = h->evs + k;
	*evp = h->evs;
	return TK_OK;
}

/* ---- open / close ------------------------------------------------------- */

int htf_reader_open(tk_reader *r, tk_error *err)
{
	htf_reader *h = calloc(1, sizeof(*h));
	const char *data = NULL;
	int rc;

	if (!h)
		return tk_err_nomem(err, tk_source_name(r->src));
	r->impl = h;
	h->r = r;
	h->t = r->trace;
	h->name = tk_source_name(r->src);
	h->strict = r->opts.strict;
	h->fd = -1;
	h->page = (size_t)sysconf(_SC_PAGESIZE);
	if (h->page == 0 || (h->page & (h->page - 1)))
		h->page = 4096;
	/* lines that end with a CR alone are read as lines (the
	 * specification does not say how lines end) */
	if ((rc = tk_text_cr_only(r->src, err)) < 0)
		goto fail;
	if (rc)
		warn(h, W_CR_ONLY, 1, NULL, NULL,
		     "lines end with a CR alone (read as line ends)");
	if ((rc = acquire(h, rc, err)) < 0)
		goto fail;
	if ((rc = read_header(h, &data, err)) < 0)
		goto fail;
	if ((rc = build_types(h, err)) < 0)
		goto fail;
	if ((rc = build_entities(h, err)) < 0)
		goto fail;
	if ((rc = build_descs(h, err)) < 0)
		goto fail;
	h->safe16 = h->lim - h->buf >= 16 && h->w <= 16
			    ? h->buf + (16 - h->w) : h->lim;
	if ((rc = find_sections(h, data, err)) < 0)
		goto fail;
	if ((rc = cursors_alloc(h, err)) < 0)
		goto fail;
	h->heap = calloc(h->ncur > 8 ? h->ncur : 8, sizeof(*h->heap));
	h->linear = h->ncur <= 8;
	h->nsel = h->ncur <= 2 ? 2 : h->ncur <= 4 ? 4 : 8;
	if (!h->heap || tk_synth_init(&h->synth, &htf_synth_rules, h->nslots) < 0) {
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
	/* the merge's thread first: it reads the tables and the cursors */
	tk_pipe_stop(&h->pipe);
	for (i = 0; i < h->ntabs; i++)
		free(h->tabs[i].rows);
	free(h->tabs);
	kindex_free(&h->tabidx);
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
		free(h->cur[i].b);
	}
	free(h->cur);
	tk_bigbuf_free(h->chunk);
	free(h->heap);
	free(h->core_ids);
	free(h->own);
	kindex_free(&h->slotidx);
	tk_synth_free(&h->synth);
	if (h->map)
		munmap(h->map, h->map_len);
	free(h);
	r->impl = NULL;
}
