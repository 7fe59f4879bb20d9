/*
 * htf_reader.h - what the parts of the HTF reader share (private): its
 * state, tables and cursors, and the calls between htf_reader.c (probe,
 * bytes, header, open), htf_tables.c, htf_sections.c, htf_cursor.c and
 * htf_merge.c.
 */
#ifndef TK_HTF_READER_H
#define TK_HTF_READER_H

#include "htf.h"
#include "../../core/hashmap.h"
#include "../../core/lines.h"

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
	uint64_t num, den;        /* #TimeScaleNumerator, ...Denominator (0: none) */
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

static inline const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* An error at `at` of line `line`, which starts at ls (0: no column). */
int htf_err_at(htf_reader *h, tk_error *err, int code, uint64_t line,
	       const char *ls, const char *at, const char *fmt, ...)
	TK_PRINTF(7, 8);
#ifdef __clang_analyzer__
/* the static analyzer does not follow variadic functions: err_at() returns
 * its code (internal.h) */
#define err_at(h, err, code, ...) tk_err_code_(htf_err_at(h, err, code, __VA_ARGS__), code)
#else
#define err_at htf_err_at
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

static inline int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
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

/* htf_reader.c: the id maps, the hashed index, the bytes, the header */
int htf_idmap_add(idmap *m, uint64_t id, uint32_t val, uint32_t pos);
int64_t htf_idmap_build(idmap *m, int dense, int *nomem);
uint32_t htf_hash_nocase(const char *p, size_t n);
uint32_t htf_kindex_find(const tk_hashmap *x, uint64_t hash, kindex_eq eq,
			 const void *ctx, const void *k, size_t n);
int htf_src_read(htf_reader *h, uint64_t off, char *buf, size_t n,
		 tk_error *err);
int htf_hex_id(htf_reader *h, const char *ls, const char *p,
	       const char *e, uint64_t *out, const char **idend,
	       tk_error *err);
table *htf_find_table(htf_reader *h, const char *name, size_t n);
/* htf_tables.c: types, entities and their events' descriptors */
int htf_build_types(htf_reader *h, tk_error *err);
int htf_build_entities(htf_reader *h, tk_error *err);
int htf_build_descs(htf_reader *h, tk_error *err);
/* htf_sections.c: the sections of the data and their cursors */
int htf_cursors_alloc(htf_reader *h, tk_error *err);
int htf_find_sections(htf_reader *h, uint64_t data, tk_error *err);
/* htf_cursor.c: the next batch of records of a cursor */
int htf_refill_fast(htf_reader *h, cursor *c, tk_error *err);
int htf_refill(htf_reader *h, cursor *c, tk_error *err);

#endif
