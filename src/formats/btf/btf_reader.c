/*
 * btf_reader.c - the BTF reader (Best Trace Format 1.0 to 2.3.0).
 *
 * One pass over the lines of the source.  The header (parameters, comments,
 * 2.1.x tables, 2.2+ mappings) is read when the reader opens; data lines are
 * parsed one at a time into the reader's tk_event (btf_reader_next()) or, a
 * run of the usual lines, into its array of BATCH_EVENTS
 * (btf_reader_next_batch()), so memory does not grow with the trace.  Names are interned; per-string side tables cache
 * what a name means (its event kind) so each line costs a hash and a few
 * array lookups.
 *
 * Strict mode is the specification; lenient mode accepts what real
 * producers write (see specs/btf-2.x-reference.md) and counts a warning for
 * each departure.
 */
#include "btf.h"
#include "../../core/lines.h"

#include "../../core/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numbers and names may be read as little-endian words */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LE_WORDS 1
#else
#define LE_WORDS 0
#endif

/* warning kinds (one report each, then only counted) */
enum {
	W_TYPE_SPELLING,
	W_EVENT_SPELLING,
	W_UNKNOWN_TYPE,
	W_UNKNOWN_EVENT,
	W_EVENT_FOR_TYPE,
	W_DIALECT_EVENT,
	W_TIME_DECREASES,
	W_SPACES,
	W_EMPTY_INSTANCE,
	W_NO_VERSION,
	W_NO_TIMESCALE,
	W_SECOND_VERSION,
	W_ROW_OUTSIDE_TABLE,
	W_TYPE_CONFLICT,
	W_BAD_TABLE_ROW,
	W_UNIT_CASE,
	W_HEADER_AFTER_DATA,
	W_CR_ONLY,
	W_PROCESS_SOURCE,
	W_CREATION_DATE,
	W_CR_MIXED,
};

enum table { TABLE_NONE, TABLE_TYPE, TABLE_ENTITY, TABLE_ENTITYTYPE };

/* reader option encoding= (docs/btf.md) */
enum { ENC_UTF8, ENC_LATIN1, ENC_CP1252 };

/* Windows-1252's 0x80..0x9F (the five it leaves undefined: the C1
 * control of that number, as ISO 8859-1 and the WHATWG decoder read them) */
static const uint16_t cp1252_c1[32] = {
	0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
	0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178
};

/* id -> interned name, for the numeric mode of the tables and mappings */
typedef struct idmap {
	tk_str *names;
	uint32_t cap;
	uint32_t used;
} idmap;

#define IDMAP_MAX (1u << 22)

/*
 * What the scan of a line finds.  A line that ends within the 64 bytes
 * read at its start (nearly every data line) keeps its commas as a bit
 * mask, from which parse_data() takes the fields; any other line has
 * them in commas[] (and an error message counts them: line_commas()).
 */
struct line_scan {
	const char *nl;            /* the newline, NULL if none before limit */
	const char *commas[7 + 7]; /* the first 7 commas (+ slack, see take_commas) */
	int ncommas;               /* -1: not noted yet, see mask */
	int blank;                 /* a blank before the newline */
	uint64_t mask;             /* ncommas == -1: bit i, line[i] is a comma */
};

/* An entry of the target type cache (see target_type()); key 0: empty. */
#define TYPE_SLOTS_LOG2 4
struct type_slot {
	uint64_t key;
	tk_str name;
	uint8_t val;
};

/*
 * The caches of the names of data lines (see name_slot()): a name of 1 to
 * 16 bytes as two zero-padded words and its length (0: an empty entry),
 * mapped to what the line needs of it, so that a name seen before costs
 * no pool lookup, no entity lookup and no event kind lookup (parse_fast()).
 * A name may be in two slots, the one its hash gives and the next; an entry
 * is only ever replaced, so a collision costs a miss, never a search, and
 * the slot hash needs no seed.
 */
#define ENT_SLOTS_LOG2 10
/* the most events one btf_reader_next_batch() hands out */
#define BATCH_EVENTS 128
#define EV_SLOTS_LOG2 6
struct ent_slot {              /* sources and targets */
	uint64_t w0, w1;
	tk_entity *e;
	uint32_t ent;
	uint32_t len;
};
struct ev_slot {               /* events */
	uint64_t w0, w1;
	tk_str name;
	uint32_t len;
	uint8_t kv;                /* kind_of_name() */
};

typedef struct btf_reader {
	tk_reader *r;
	tk_trace *t;
	const char *name;
	/* the first data line, read while reading the header */
	const char *pend;
	size_t pend_len;
	/* the lines of the source; lines.limit is also how far a field may
	 * be read a word at a time */
	tk_lines lines;
	struct line_scan ls;      /* of the last line read */
	int cr_only;              /* the first line ended with a CR alone */
	/* reader option encoding: ENC_UTF8, or the 8-bit code page the
	 * names, notes and header values are converted from */
	int enc;
	char *rbuf[2];            /* their UTF-8: [0] names, [1] notes */
	size_t rcap[2];
	uint64_t bare_cr;         /* lines.bare_cr when last looked at */
	int have_pend;
	int data_started;
	int plain;                /* names are plain text (no encoding, no
				   * id tables) and the pool has its table */
	uint64_t last_time;
	int timescale_seen;
	int version_seen;
	enum table table;
	/* per string id: event kind + 1 (0: not looked up yet) */
	uint8_t *kind_of;
	uint32_t cap_kind;
	/* per string id: entity type + 1, dialect bit 0x80 (0: not yet) */
	uint8_t *type_of;
	uint32_t cap_type;
	struct type_slot types[1 << TYPE_SLOTS_LOG2];
	const uint8_t (*allowed)[TK_EV_COUNT];
	/* per entity id: type was given explicitly (not inferred) */
	uint8_t *explicit_type;
	uint32_t cap_explicit;
	/* per entity id: core + 1 of the last event that had a core and
	 * this entity as its target (0: none yet); the core of a process
	 * is where it runs or last ran */
	uint32_t *core_of;
	uint32_t cap_core;
	/* the first core seen as an event's core, + 1 (0: none yet), and
	 * whether a second one was seen */
	uint32_t core1;
	int many_cores;
	idmap entity_ids, type_ids;
	/* tk_implied_source_type() of every type and kind */
	uint8_t implied[TK_ET_COUNT][TK_EV_COUNT];
	struct ent_slot ent_cache[1 << ENT_SLOTS_LOG2];
	struct ev_slot ev_cache[1 << EV_SLOTS_LOG2];
	/* the events of btf_reader_next_batch() */
	tk_event batch[BATCH_EVENTS];
} btf_reader;

/* ---- probing ------------------------------------------------------------ */

/* The field of a data line from p up to its comma (or the line's end),
 * blanks around it left out; *next past the comma (NULL: no comma). */
static const uint8_t *probe_field(const uint8_t *p, const uint8_t *end,
				  const uint8_t **fe, const uint8_t **next)
{
	const uint8_t *c = memchr(p, ',', (size_t)(end - p));

	*next = c ? c + 1 : NULL;
	*fe = c ? c : end;
	while (p < *fe && *p == ' ')
		p++;
	while (*fe > p && (*fe)[-1] == ' ')
		(*fe)--;
	return p;
}

/* Is [p, e) empty or an integer (an instance, -1 for none)? */
static int probe_int(const uint8_t *p, const uint8_t *e, int sign)
{
	if (sign && p < e && *p == '-')
		p++;
	for (; p < e; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/*
 * Is the line [p, end) a BTF data line: a time, a source, its instance,
 * one of BTF's target types, a target, its instance and an event (a
 * CSV of seven columns has no type letter in the fourth)?
 */
static int looks_like_data(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *f[7], *fe[7], *next = p;
	tk_etype type;
	int i, dialect;

	for (i = 0; i < 7; i++) {
		if (!next)
			return 0;
		f[i] = probe_field(next, end, &fe[i], &next);
	}
	return f[0] < fe[0] && probe_int(f[0], fe[0], 0) &&
	       f[1] < fe[1] && probe_int(f[2], fe[2], 1) &&
	       tk_etype_lookup((const char *)f[3], (size_t)(fe[3] - f[3]),
			       &type, &dialect) &&
	       probe_int(f[5], fe[5], 1) && f[6] < fe[6];
}

/*
 * What is BTF's own: a first line #version (90), a #timeScale or #creator
 * header line (80), or a first data line of BTF's shape (50).  Comment
 * lines alone, or lines of commas, are not.
 */
int btf_probe(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len;
	int lines = 0;

	if (len >= 8 && tk_ascii_ncaseeq((const char *)buf, "#version", 8))
		return 90;
	/* header lines then a data line; or data lines only */
	while (p < end && lines < 64) {
		const uint8_t *nl = p, *le;
		/* a line ends at LF, CRLF or (CR-only files) CR */
		while (nl < end && *nl != '\n' && *nl != '\r')
			nl++;
		if (nl == end)
			nl = NULL;
		le = nl ? nl : end;
		if (le > p && *p == '#') {
			if (le - p > 10 &&
			    (tk_ascii_ncaseeq((const char *)p, "#timescale", 10) ||
			     tk_ascii_ncaseeq((const char *)p, "#creator", 8)))
				return 80;
		} else if (le > p && !(le - p == 1 && *p == '\r')) {
			return looks_like_data(p, le) ? 50 : 0;
		}
		lines++;
		if (!nl)
			break;
		p = nl + 1;
		if (*nl == '\r' && p < end && *p == '\n')
			p++;
	}
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

static int idmap_set(idmap *m, uint64_t id, tk_str name)
{
	if (id >= IDMAP_MAX)
		return TK_E_RANGE;
	if (id >= m->cap) {
		uint32_t old = m->cap;
		if (tk_grow_zero32((void **)&m->names, &m->cap, id,
				   sizeof(*m->names)) < 0)
			return TK_E_NOMEM;
		/* the new ones TK_NONE */
		memset(m->names + old, 0xff, (m->cap - old) * sizeof(*m->names));
	}
	if (m->names[id] != TK_NONE && m->names[id] != name)
		return TK_E_PARSE; /* an id defined twice */
	m->names[id] = name;
	m->used = 1;
	return TK_OK;
}

static tk_str idmap_get(const idmap *m, uint64_t id)
{
	return id < m->cap ? m->names[id] : TK_NONE;
}

#if LE_WORDS
/*
 * The value of the 8 ASCII digits in w (the first in the lowest byte), or
 * -1 (as UINT64_MAX) if one is not a digit.  A digit has the high nibble 3,
 * and still 3 after adding 6 (a byte 0x3a-0x3f gets 4); both nibbles are
 * tested in one compare.  Adding 6 carries into the next byte only from a
 * byte >= 0xfa, which fails the test itself.
 */
static inline uint64_t digits8(uint64_t w)
{
	uint64_t hi = w & 0xf0f0f0f0f0f0f0f0ull;
	uint64_t hi6 = (w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull;

	if ((hi | (hi6 >> 4)) != 0x3333333333333333ull)
		return UINT64_MAX;
	w -= 0x3030303030303030ull;
	w = w * 10 + (w >> 8);
	return (((w & 0x000000ff000000ffull) * 0x000f424000000064ull) +
		(((w >> 16) & 0x000000ff000000ffull) * 0x0000271000000001ull)) >>
	       32;
}

/* The first n (1..8) bytes of w moved up, with '0's in front of them: the
 * same number as 8 digits. */
static inline uint64_t pad_digits(uint64_t w, size_t n)
{
	unsigned sh = (unsigned)(8 * (8 - n)); /* 0..56 */

	return (w << sh) | (0x3030303030303030ull & ((1ull << sh) - 1));
}
#endif

/*
 * Parse all of [p, end) as a non-negative decimal: 0, -1 if it is not one,
 * -2 if it does not fit 64 bits.  Up to 19 digits cannot overflow, so the
 * check is made only past that.
 */
static inline int parse_u64(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *safe;

	if (p == end)
		return -1;
	safe = end - p > 19 ? p + 19 : end;
#if LE_WORDS
	/* eight digits at a time (long timestamps) */
	while (safe - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w = digits8(w);
		if (w == UINT64_MAX)
			return -1;
		v = v * 100000000u + w;
		p += 8;
	}
#endif
	for (; p < safe; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';
		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	for (; p < end; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';
		if (d > 9)
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

#if LE_WORDS
/*
 * The n (1 to 16) bytes at p as a decimal, where the 16 bytes at p may be
 * read: two words, with no loop whose length depends on the number (up to
 * 16 digits cannot overflow).  0, or -1 if they are not all digits.
 */
static inline int dec16(const char *p, size_t n, uint64_t *out)
{
	static const uint64_t pow10[9] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
	};
	uint64_t lo, hi, a, b;

	memcpy(&lo, p, 8);
	if (n <= 8) {
		a = digits8(pad_digits(lo, n));
		if (a == UINT64_MAX)
			return -1;
		*out = a;
		return 0;
	}
	memcpy(&hi, p + 8, 8);
	a = digits8(lo);
	b = digits8(pad_digits(hi, n - 8));
	if (a == UINT64_MAX || b == UINT64_MAX)
		return -1;
	*out = a * pow10[n - 8] + b;
	return 0;
}
#endif

/*
 * parse_u64() for the numbers of data lines: dec16() when the number has 1
 * to 16 bytes and the 16 bytes at p may be read (hot, see parse_data()).
 * Same results as parse_u64().
 */
static inline int parse_dec(const char *p, const char *end, int hot,
			    uint64_t *out)
{
#if LE_WORDS
	if (TK_LIKELY(hot))
		return dec16(p, (size_t)(end - p), out);
#else
	(void)hot;
#endif
	return parse_u64(p, end, out);
}

static void trim(const char **p, const char **end)
{
	while (*p < *end && **p == ' ')
		(*p)++;
	while (*end > *p && (*end)[-1] == ' ')
		(*end)--;
}

/* Lenient mode: blanks around fields 1-7 trimmed, with a warning (1).  A blank
 * to trim is at an end of a field: look only there (the ends of an empty
 * field are not its bytes). */
static TK_NOINLINE int trim_fields(btf_reader *b, const char **f,
				   const char **fe)
{
	const char *line = f[0], *at = NULL; /* field 1 starts the line */
	int i;

	for (i = 0; i < 7 && !at; i++)
		if (f[i] < fe[i] && (*f[i] == ' ' || fe[i][-1] == ' '))
			at = *f[i] == ' ' ? f[i] : fe[i] - 1;
	if (!at)
		return 0;
	for (i = 0; i < 7; i++)
		trim(&f[i], &fe[i]);
	/* the column of the first blank trimmed */
	tk_reader_warn(b->r, W_SPACES, b->lines.line, (uint32_t)(at - line) + 1,
		       "blanks around fields (trimmed)");
	return 1;
}

static int err_at(btf_reader *b, tk_error *err, int code, const char *line,
		  const char *at, const char *fmt, ...) TK_PRINTF(6, 7);

static int err_at(btf_reader *b, tk_error *err, int code, const char *line,
		  const char *at, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_err_set(err, code, b->name, b->lines.line,
			  at ? (uint32_t)(at - line) + 1 : 0, "%s", msg);
}

/* A warning at `at` in the current line (tk_reader_warn()). */
#define warn(b, kind, line, at, ...)                                       \
	tk_reader_warn((b)->r, kind, (b)->lines.line,                       \
		       (uint32_t)((at) - (line)) + 1, __VA_ARGS__)

/* A departure at `at` in the current line: strict's error `sfmt`, or
 * lenient's warning (tk_reader_depart()). */
#define depart(b, err, kind, line, at, sfmt, ...)                          \
	tk_reader_depart((b)->r, err, kind, (b)->lines.line,                \
			 (uint32_t)((at) - (line)) + 1, sfmt, __VA_ARGS__)

/* The entity named [n, ne) used as `type` after `had` (cold, out of the
 * per-event path): strict's error, or lenient's warning (keeps `had`). */
static TK_NOINLINE int type_conflict(btf_reader *b, const char *line,
				     const char *at, const char *n,
				     const char *ne, tk_etype type,
				     tk_etype had, tk_error *err)
{
	char qb[64];

	tk_quote(qb, sizeof(qb), n, ne);
	return depart(b, err, W_TYPE_CONFLICT, line, at,
		      "entity '%s' used as %s after %s",
		      "entity '%s' used as %s after %s (keeps %s)", qb,
		      tk_etype_name(type), tk_etype_name(had), tk_etype_name(had));
}

/* ---- lines -------------------------------------------------------------- */

#if TK_SCAN_SIMD
/* Population count without a call: unless the compiler may use the popcnt
 * instruction (-mpopcnt), __builtin_popcountll is a libgcc call. */
static inline int popcount64(uint64_t x)
{
#if defined(__POPCNT__)
	return __builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/*
 * Note the commas of mask m (bit i: p[i] is a comma, for the `size` bytes
 * at p: 16 or 64) after the n already noted, keeping the first 7; returns
 * the new count.  Branch-free, as the number of commas per block varies from
 * line to line: seven slots are always written (commas[] has room past the
 * 7th; slots past the count are never read) and the count comes from the
 * mask.  Once m runs out, the block's last bit (a comma or not) keeps ctz
 * defined and the unused slots inside the bytes read.
 */
static inline int take_commas(const char *p, uint64_t m, unsigned size,
			      const char **commas, int n)
{
	const uint64_t stop = 1ull << (size - 1);
	int k, cnt = popcount64(m);

	for (k = 0; k < 7; k++) {
		commas[n + k] = p + __builtin_ctzll(m | stop);
		m &= m - 1;
	}
	n += cnt;
	return n < 7 ? n : 7;
}

/* The commas, newlines and blanks of 16 bytes at p, as bit masks. */
static inline void classify16(const char *p, uint64_t *mc, uint64_t *mn,
			      uint64_t *ms)
{
	*mc = tk_scan_eq16(p, ',');
	*mn = tk_scan_eq16_2(p, '\n', '\r'); /* every line end starts with one */
	*ms = tk_scan_eq16(p, ' ');
}

/* The same for 64 bytes at p. */
static inline void classify64(const char *p, uint64_t *mc, uint64_t *mn,
			      uint64_t *ms)
{
	uint64_t c, n, s;
	int k;

	*mc = *mn = *ms = 0;
	for (k = 0; k < 4; k++) {
		classify16(p + 16 * k, &c, &n, &s);
		*mc |= c << (16 * k);
		*mn |= n << (16 * k);
		*ms |= s << (16 * k);
	}
}

/* The part of scan_line() for one block of `size` (64 or 16) bytes at p
 * with the masks of its commas, newlines and blanks: 1 if the line ends in
 * it. */
static inline int scan_block(const char *p, unsigned size, uint64_t mc,
			     uint64_t mn, uint64_t ms, struct line_scan *ls)
{
	if (mn) {
		uint64_t before = (mn & (0 - mn)) - 1; /* bytes before the newline */
		mc &= before;
		ms &= before;
	}
	ls->blank |= ms != 0;
	if (mc && ls->ncommas < 7)
		ls->ncommas = take_commas(p, mc, size, ls->commas, ls->ncommas);
	if (mn) {
		ls->nl = p + __builtin_ctzll(mn);
		return 1;
	}
	return 0;
}
#endif

/*
 * Find the end of a line, scanning from p (its start, or where an earlier
 * scan of it stopped: ls holds what that one found), noting the first 7
 * commas on the way and whether the line has a blank: one pass over the
 * bytes serves the line split, the field split and (in lenient mode) the
 * check for blanks to trim.  Sets ls->nl to the newline, or NULL if there
 * is none before limit.  The bytes go 64 at a time; only the last ones
 * before limit, which must not be read past, go 16 and then one at a time.
 */
static void scan_line(const char *p, const char *limit, struct line_scan *ls)
{
#if TK_SCAN_SIMD
	while (limit - p >= 64) {
		uint64_t mc, mn, ms;
		classify64(p, &mc, &mn, &ms);
		if (scan_block(p, 64, mc, mn, ms, ls))
			return;
		p += 64;
	}
	while (limit - p >= 16) {
		uint64_t mc, mn, ms;
		classify16(p, &mc, &mn, &ms);
		if (scan_block(p, 16, mc, mn, ms, ls))
			return;
		p += 16;
	}
#endif
	for (; p < limit; p++) {
		if (*p == '\n') {
			ls->nl = p;
			return;
		}
		if (*p == ',' && ls->ncommas < 7)
			ls->commas[ls->ncommas++] = p;
		ls->blank |= *p == ' ';
	}
	ls->nl = NULL;
}

/* The commas of the line at `line` in ls->commas[], if they are still a
 * mask; returns their count (at most 7). */
static int line_commas(struct line_scan *ls, const char *line)
{
#if TK_SCAN_SIMD
	if (ls->ncommas < 0)
		ls->ncommas = take_commas(line, ls->mask, 64, ls->commas, 0);
#else
	(void)line;
#endif
	return ls->ncommas;
}

/*
 * A line of a file whose lines end with LF or CRLF ended with a CR alone
 * (the scanner takes every CR, LF and CRLF as a line end: a CR is never
 * part of a line, so that no line vanishes into a note or a name):
 * refused under --strict, a counted warning else.  A file whose first
 * line ends with a CR alone was warned about (or refused) at the start.
 */
static TK_NOINLINE int bare_cr(btf_reader *b, size_t len, tk_error *err)
{
	b->bare_cr = b->lines.bare_cr;
	if (b->cr_only)
		return TK_OK;
	/* at the CR, which follows the line's len bytes */
	return tk_reader_depart(b->r, err, W_CR_MIXED, b->lines.line,
				len < UINT32_MAX ? (uint32_t)len + 1 : 0,
				"the line ends with a CR alone (BTF lines end with LF or CRLF)",
				"a line ends with a CR alone (read as a line end)");
}

#if TK_SCAN_SIMD
/*
 * The usual line, found with two byte classes of the 64 bytes at
 * lines.pos (which must be readable, and the last line not ended at a
 * CR): its first byte up to ',' (blanks, line ends and a few symbols)
 * other than a comma is its LF or the CR of a CRLF, and so it has no
 * blank.  1 and the line taken, its commas in *mask; 0 (nothing done) for
 * any other line.
 */
static TK_INLINE int quick_line(btf_reader *b, const char **line,
				size_t *len, uint64_t *mask)
{
	const char *p = b->lines.pos, *nl;
	uint64_t mc = 0, mx = 0;
	int k, crlf;

	/* most lines end in their first 48 bytes */
	for (k = 0; k < 3; k++) {
		mc |= (uint64_t)tk_scan_eq16(p + 16 * k, ',') << (16 * k);
		mx |= (uint64_t)tk_scan_le16(p + 16 * k, ',') << (16 * k);
	}
	if (TK_UNLIKELY(!(mx & ~mc))) {
		mc |= (uint64_t)tk_scan_eq16(p + 48, ',') << 48;
		mx |= (uint64_t)tk_scan_le16(p + 48, ',') << 48;
	}
	mx &= ~mc;
	if (TK_UNLIKELY(!mx))
		return 0;
	nl = p + __builtin_ctzll(mx);
	crlf = *nl == '\r';
	if (TK_UNLIKELY(*nl != '\n' &&
			!(crlf && nl + 1 < b->lines.limit && nl[1] == '\n')))
		return 0;
	*mask = mc & ((mx & (0 - mx)) - 1);
	/* tk_lines_take(), knowing that no CR is before the LF (it would be
	 * the first) */
	*line = p;
	*len = (size_t)(nl - p);
	b->lines.pos = nl + 1 + crlf;
	if (TK_UNLIKELY((size_t)(b->lines.pos - b->lines.mark) >= TK_LINES_BATCH))
		tk_lines_sync(&b->lines);
	b->lines.line++;
	return 1;
}
#endif

/*
 * The next line without its end-of-line, with its commas and blanks noted
 * in b->ls; TK_END at the end of input.  The usual line, one that ends
 * within the 64 bytes at its start, is found and classified in one pass
 * here; any other goes to the line scanner of core and is classified
 * after.
 */
static TK_INLINE int next_line(btf_reader *b, const char **line,
			       size_t *len, tk_error *err)
{
	int rc;

#if TK_SCAN_SIMD
	const char *p = b->lines.pos;

	if (TK_LIKELY(!b->lines.skip_lf && b->lines.limit - p >= 64)) {
		uint64_t mc, mn, ms;
		if (TK_LIKELY(quick_line(b, line, len, &b->ls.mask))) {
			b->ls.nl = *line + *len;
			b->ls.ncommas = -1;
			b->ls.blank = 0;
			return TK_OK;
		}
		classify64(p, &mc, &mn, &ms);
		if (TK_LIKELY(mn != 0)) {
			uint64_t before = (mn & (0 - mn)) - 1;
			const char *nl = p + __builtin_ctzll(mn);
			/* LF, or the CR of a CRLF; a CR alone (or one whose
			 * next byte is past the window) goes to the scanner */
			int crlf = *nl == '\r';
			if (TK_LIKELY(!crlf || (nl + 1 < b->lines.limit &&
						nl[1] == '\n'))) {
				b->ls.nl = nl;
				b->ls.mask = mc & before;
				b->ls.ncommas = -1;
				b->ls.blank = (ms & before) != 0;
				tk_lines_take(&b->lines, nl, crlf, line, len);
				return TK_OK;
			}
		}
	}
#endif
	rc = tk_lines_next(&b->lines, line, len, err);
	if (rc != TK_OK)
		return rc;
	if (TK_UNLIKELY(b->lines.bare_cr != b->bare_cr) &&
	    (rc = bare_cr(b, *len, err)) < 0)
		return rc;
	b->ls.ncommas = 0;
	b->ls.blank = 0;
	scan_line(*line, *line + *len, &b->ls);
	return TK_OK;
}

/* ---- header ------------------------------------------------------------- */

static int key_is(const char *k, size_t klen, const char *name)
{
	return strlen(name) == klen && tk_ascii_ncaseeq(k, name, klen);
}

/*
 * Text of an input in an 8-bit code page (reader option encoding) as
 * UTF-8: p itself when it is ASCII, else its conversion in b->rbuf[which]
 * (valid until the next call for that buffer); NULL when out of memory.
 */
static TK_NOINLINE const char *recode(btf_reader *b, int which,
				      const char *p, size_t n, size_t *on)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i, k = 0;
	char *o;

	*on = n;
	for (i = 0; i < n && u[i] < 0x80; i++)
		;
	if (i == n)
		return p;
	/* each byte becomes at most 3 */
	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	if (b->rcap[which] < 3 * n + 1) {
		char *nb = realloc(b->rbuf[which], 3 * n + 1);
		if (!nb)
			return NULL;
		b->rbuf[which] = nb;
		b->rcap[which] = 3 * n + 1;
	}
	o = b->rbuf[which];
	for (i = 0; i < n; i++) {
		unsigned c = u[i];
		if (c >= 0x80 && c < 0xa0 && b->enc == ENC_CP1252)
			c = cp1252_c1[c - 0x80];
		if (c < 0x80) {
			o[k++] = (char)c;
		} else if (c < 0x800) {
			o[k++] = (char)(0xc0 | (c >> 6));
			o[k++] = (char)(0x80 | (c & 0x3f));
		} else {
			o[k++] = (char)(0xe0 | (c >> 12));
			o[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
			o[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	o[k] = 0;
	*on = k;
	return o;
}

/* A name interned as UTF-8 (TK_NONE when out of memory). */
static TK_NOINLINE tk_str intern_text(btf_reader *b, const char *p, size_t n)
{
	if (b->enc && !(p = recode(b, 0, p, n, &n)))
		return TK_NONE;
	return tk_strpool_intern(&b->t->pool, p, n);
}

/* rc of a departure (depart()) in the header entry just pushed: in lenient
 * mode the entry is marked, so that the BTF writer leaves it out (it
 * writes what the specification allows; docs/mappings.md). */
static int header_departed(btf_reader *b, int rc, tk_error *err)
{
	if (rc == TK_OK && tk_trace_header_mark_departure(b->t) < 0)
		return tk_err_nomem(err, b->name);
	return rc;
}

/* "#-<key> <value>": a row of the most recent 2.1.x table. */
static int table_row(btf_reader *b, const char *line, const char *k,
		     const char *kend, const char *v, const char *vend,
		     tk_error *err)
{
	tk_trace *t = b->t;
	int strict = b->r->opts.strict;
	uint64_t id = 0;
	tk_str name;
	int rc;

	if (b->table == TABLE_NONE)
		return header_departed(b, depart(b, err, W_ROW_OUTSIDE_TABLE, line, line,
			      "table row outside a table",
			      "table row outside a table (kept as a header entry)"), err);
	trim(&v, &vend);
	if (v == vend || k == kend)
		return header_departed(b, depart(b, err, W_BAD_TABLE_ROW, line, k,
			      "table row needs a key and a value: '#-<key> <value>'",
			      "malformed table row ignored"), err);
	name = intern_text(b, v, (size_t)(vend - v));
	if (name == TK_NONE)
		return tk_err_nomem(err, b->name);
	if (b->table == TABLE_ENTITYTYPE) {
		/* key: a type name, or a numeric type id */
		tk_etype et;
		int dialect;
		tk_str tn;
		uint32_t e;
		tk_entity *ent;
		if (parse_u64(k, kend, &id) == 0 && b->type_ids.used &&
		    idmap_get(&b->type_ids, id) != TK_NONE) {
			size_t n;
			const char *s;
			tn = idmap_get(&b->type_ids, id);
			s = tk_trace_str(t, tn, &n);
			k = s;
			kend = s + n;
		}
		if (!tk_etype_lookup(k, (size_t)(kend - k), &et, &dialect)) {
			char qb[64];
			/* lenient: the entity has that type by name, as an
			 * event's unknown type keeps it (it was silent) */
			if (strict)
				return err_at(b, err, TK_E_PARSE, line, line + 2,
					      "unknown entity type in table row");
			tk_quote(qb, sizeof(qb), k, kend);
			if ((rc = header_departed(b, depart(b, err, W_UNKNOWN_TYPE, line, line + 2,
					"unknown entity type in table row",
					"unknown entity type '%s' in table row (kept)",
					qb), err)) < 0)
				return rc;
			et = TK_ET_OTHER;
		}
		tn = intern_text(b, k, (size_t)(kend - k));
		e = tk_trace_entity_get(t, name);
		if (tn == TK_NONE || e == TK_NONE ||
		    tk_grow_zero32((void **)&b->explicit_type, &b->cap_explicit, e, 1) < 0)
			return tk_err_nomem(err, b->name);
		ent = tk_trace_ent(t, e);
		ent->type = et;
		ent->type_name = tn;
		b->explicit_type[e] = 1;
		return TK_OK;
	}
	rc = parse_u64(k, kend, &id);
	if (rc == 0)
		rc = idmap_set(b->table == TABLE_TYPE ? &b->type_ids
						      : &b->entity_ids, id, name);
	if (rc == TK_E_NOMEM)
		return tk_err_nomem(err, b->name);
	if (rc < 0)
		return header_departed(b, depart(b, err, W_BAD_TABLE_ROW, line, k,
			      "table id must be a non-negative integer defined once",
			      "malformed table row ignored"), err);
	return TK_OK;
}

/* "#entityMapping <id> <name>" and friends (2.2+). */
static int mapping(btf_reader *b, const char *line, const char *v,
		   const char *vend, idmap *m, int type_mapping, tk_error *err)
{
	const char *sp;
	uint64_t id;
	tk_str name;
	int rc;

	trim(&v, &vend);
	for (sp = v; sp < vend && *sp != ' ' && *sp != '\t'; sp++)
		;
	if (sp == vend)
		goto bad;
	name = intern_text(b, sp + 1, (size_t)(vend - sp - 1));
	if (name == TK_NONE)
		return tk_err_nomem(err, b->name);
	if (type_mapping) {
		/* "<type> <name>": the entity's type, by name or numeric id */
		tk_etype et;
		int dialect;
		uint32_t e;
		tk_str tn;
		tk_entity *ent;
		const char *k = v, *kend = sp;
		if (parse_u64(k, kend, &id) == 0 &&
		    idmap_get(&b->type_ids, id) != TK_NONE) {
			size_t n;
			k = tk_trace_str(b->t, idmap_get(&b->type_ids, id), &n);
			kend = k + n;
		}
		if (parse_u64(sp + 1, vend, &id) == 0 &&
		    idmap_get(&b->entity_ids, id) != TK_NONE)
			name = idmap_get(&b->entity_ids, id);
		if (!tk_etype_lookup(k, (size_t)(kend - k), &et, &dialect))
			et = TK_ET_OTHER;
		tn = intern_text(b, k, (size_t)(kend - k));
		e = tk_trace_entity_get(b->t, name);
		if (tn == TK_NONE || e == TK_NONE ||
		    tk_grow_zero32((void **)&b->explicit_type, &b->cap_explicit, e, 1) < 0)
			return tk_err_nomem(err, b->name);
		ent = tk_trace_ent(b->t, e);
		ent->type = et;
		ent->type_name = tn;
		b->explicit_type[e] = 1;
		return TK_OK;
	}
	if (parse_u64(v, sp, &id) < 0)
		goto bad;
	rc = idmap_set(m, id, name);
	if (rc == TK_E_NOMEM)
		return tk_err_nomem(err, b->name);
	if (rc < 0)
		goto bad;
	return TK_OK;
bad:
	return header_departed(b, depart(b, err, W_BAD_TABLE_ROW, line, v,
		      "malformed mapping: expected '<id> <name>' with a unique non-negative id",
		      "malformed mapping ignored"), err);
}

static int timescale(btf_reader *b, const char *line, const char *v,
		     const char *vend, tk_error *err)
{
	tk_unit u;

	trim(&v, &vend);
	if (tk_unit_micro_sign(v, (size_t)(vend - v)) ||
	    tk_unit_parse(v, (size_t)(vend - v), 0, &u) < 0) {
		if (b->r->opts.strict ||
		    tk_unit_parse(v, (size_t)(vend - v), 1, &u) < 0)
			return err_at(b, err, TK_E_PARSE, line, v,
				      "unknown time scale '%.*s' (expected ps, ns, us, ms or s)",
				      (int)(vend - v > 20 ? 20 : vend - v), v);
		warn(b, W_UNIT_CASE, line, v,
		     tk_unit_micro_sign(v, (size_t)(vend - v)) ?
		     "time scale with a micro sign (read as us)" :
		     "time scale in upper case");
	}
	/* a second #timescale may repeat the first (a second header
	 * block does), not contradict it: which one the times are in is
	 * not known then */
	if (b->timescale_seen && !b->data_started &&
	    u != tk_trace_timebase(b->t)->unit)
		return err_at(b, err, TK_E_PARSE, line, v,
			      "time scale %s contradicts the #timescale %s before it",
			      tk_unit_name(u),
			      tk_unit_name(tk_trace_timebase(b->t)->unit));
	if (b->data_started && u != tk_trace_timebase(b->t)->unit)
		return err_at(b, err, TK_E_PARSE, line, v,
			      "time scale changes from %s to %s after the first event",
			      tk_unit_name(tk_trace_timebase(b->t)->unit),
			      tk_unit_name(u));
	tk_trace_set_timebase(b->t, &(tk_timebase){ u, 1, 1 });
	b->timescale_seen = 1;
	return TK_OK;
}

/* Two digits at p as a number in [lo, hi], or -1. */
static int two_digits(const char *p, int lo, int hi)
{
	int v;

	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	v = (p[0] - '0') * 10 + (p[1] - '0');
	return v >= lo && v <= hi ? v : -1;
}

/*
 * Whether [v, vend) is a date and time in ISO 8601's extended form, as
 * BTF gives #creationDate: YYYY-MM-DDTHH:MM:SS, then optionally a decimal
 * fraction of the second, then optionally the zone: Z (UTC, what the
 * specification writes) or +HH:MM / -HH:MM (files without a zone exist;
 * ISO 8601 reads them as local time).
 */
static int iso8601_date_time(const char *v, const char *vend)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *p = v;
	int year, month, day, i;

	if (vend - v < 19)
		return 0;
	for (i = 0, year = 0; i < 4; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		year = year * 10 + (p[i] - '0');
	}
	if (p[4] != '-' || (month = two_digits(p + 5, 1, 12)) < 0 ||
	    p[7] != '-' || (day = two_digits(p + 8, 1, mdays[month - 1])) < 0 ||
	    (month == 2 && day == 29 &&
	     !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))) ||
	    p[10] != 'T' || two_digits(p + 11, 0, 23) < 0 || p[13] != ':' ||
	    two_digits(p + 14, 0, 59) < 0 || p[16] != ':' ||
	    two_digits(p + 17, 0, 60) < 0)
		return 0;
	p += 19;
	if (p < vend && (*p == '.' || *p == ',')) {
		const char *d = ++p;
		while (p < vend && *p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return 0;
	}
	if (p < vend && *p == 'Z')
		p++;
	else if (p < vend && (*p == '+' || *p == '-')) {
		if (vend - p < 6 || two_digits(p + 1, 0, 23) < 0 || p[3] != ':' ||
		    two_digits(p + 4, 0, 59) < 0)
			return 0;
		p += 6;
	}
	return p == vend;
}

/* #creationDate: ISO 8601 (BTF 2.1.5 and 2.3.0 §2.2); another form is
 * refused under --strict, a counted warning else (the value is kept). */
static int creation_date(btf_reader *b, const char *line, const char *v,
			 const char *vend, tk_error *err)
{
	char qb[64];

	trim(&v, &vend);
	if (iso8601_date_time(v, vend))
		return TK_OK;
	tk_quote(qb, sizeof(qb), v, vend);
	return header_departed(b, depart(b, err, W_CREATION_DATE, line, v,
		      "#creationDate '%s' is not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SSZ)",
		      "#creationDate '%s' is not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SSZ): kept as it is",
		      qb), err);
}

static int header_line(btf_reader *b, const char *line, size_t len,
		       tk_error *err)
{
	const char *end = line + len, *k, *kend, *v;
	int strict = b->r->opts.strict, has_value, rc;
	tk_hdr_kind kind;

	b->plain = 0; /* until a data line finds what it changed */
	if (len == 1 || line[1] == ' ' || line[1] == '\t') {
		/* a comment: kept (in the header only) */
		const char *c = line + 1;
		size_t cn = len - 1;
		if (b->data_started)
			return TK_OK;
		if (b->enc && !(c = recode(b, 1, c, cn, &cn)))
			return tk_err_nomem(err, b->name);
		return tk_trace_header_push(b->t, TK_HDR_COMMENT, "", 0, c, cn, 1) < 0
			       ? tk_err_nomem(err, b->name) : TK_OK;
	}
	kind = line[1] == '-' ? TK_HDR_ROW : TK_HDR_PARAM;
	k = line + (kind == TK_HDR_ROW ? 2 : 1);
	/* the key ends at the first blank, a space or a tab (2.1.5 says
	 * whitespace; "#timescale<TAB>us" is the time scale us) */
	for (kend = k; kend < end && *kend != ' ' && *kend != '\t'; kend++)
		;
	has_value = kend < end;
	v = has_value ? kend + 1 : end;

	if (b->data_started) {
		if (strict && kind == TK_HDR_ROW)
			return err_at(b, err, TK_E_PARSE, line, line,
				      "table row after the first event");
		if (!key_is(k, (size_t)(kend - k), "entityMapping") &&
		    !key_is(k, (size_t)(kend - k), "entityTypeMapping") &&
		    !key_is(k, (size_t)(kend - k), "typeMapping") &&
		    !key_is(k, (size_t)(kend - k), "timescale") &&
		    (rc = depart(b, err, W_HEADER_AFTER_DATA, line, line,
				 "header line after the first event",
				 "header line after the first event")) < 0)
			return rc;
	}
	if (b->enc) {
		/* the header keeps the value as UTF-8; it is parsed as read */
		size_t vn;
		const char *vu = recode(b, 1, v, (size_t)(end - v), &vn);
		if (!vu)
			return tk_err_nomem(err, b->name);
		rc = tk_trace_header_push(b->t, kind, k, (size_t)(kend - k), vu,
					 vn, has_value);
	} else {
		rc = tk_trace_header_push(b->t, kind, k, (size_t)(kend - k), v,
					 (size_t)(end - v), has_value);
	}
	if (rc < 0)
		return tk_err_nomem(err, b->name);
	if (kind == TK_HDR_ROW)
		return table_row(b, line, k, kend, v, end, err);

	b->table = TABLE_NONE;
	if (key_is(k, (size_t)(kend - k), "version")) {
		if (b->version_seen) {
			if ((rc = depart(b, err, W_SECOND_VERSION, line, line,
					 "a second #version (a file has exactly one)",
					 "a second header block (#version again)")) < 0)
				return rc;
		} else if (strict && b->lines.line != 1) {
			return err_at(b, err, TK_E_PARSE, line, line,
				      "#version must be the first line");
		}
		b->version_seen = 1;
	} else if (key_is(k, (size_t)(kend - k), "timescale")) {
		return timescale(b, line, v, end, err);
	} else if (key_is(k, (size_t)(kend - k), "creationDate")) {
		return creation_date(b, line, v, end, err);
	} else if (key_is(k, (size_t)(kend - k), "typeTable") ||
		   key_is(k, (size_t)(kend - k), "entityType")) {
		b->table = TABLE_TYPE;
	} else if (key_is(k, (size_t)(kend - k), "entityTable")) {
		b->table = TABLE_ENTITY;
	} else if (key_is(k, (size_t)(kend - k), "entityTypeTable")) {
		b->table = TABLE_ENTITYTYPE;
	} else if (key_is(k, (size_t)(kend - k), "entityMapping")) {
		return mapping(b, line, v, end, &b->entity_ids, 0, err);
	} else if (key_is(k, (size_t)(kend - k), "typeMapping")) {
		return mapping(b, line, v, end, &b->type_ids, 0, err);
	} else if (key_is(k, (size_t)(kend - k), "entityTypeMapping")) {
		return mapping(b, line, v, end, NULL, 1, err);
	}
	return TK_OK;
}

/* ---- data lines --------------------------------------------------------- */

static int parse_inst_slow(btf_reader *b, const char *line, const char *p,
			   const char *end, const char *what, int64_t *out,
			   tk_error *err)
{
	uint64_t mag;
	int neg = 0, rc;

	if (p == end) {
		*out = TK_INST_NONE;
		return TK_OK;
	}
	if (*p == '-') {
		neg = 1;
		p++;
	}
	rc = parse_u64(p, end, &mag);
	if (rc == 0 && mag <= (uint64_t)INT64_MAX + (uint64_t)neg) {
		if (neg && mag == (uint64_t)INT64_MAX + 1)
			goto bad;
		*out = neg ? -(int64_t)mag : (int64_t)mag;
		return TK_OK;
	}
bad:
	{
		char qb[64];
		/* -2^63 stands for "absent" (TK_INST_NONE) */
		return err_at(b, err, rc == -1 ? TK_E_PARSE : TK_E_RANGE, line,
			      p - neg, rc == -1 ? "%s '%s' is not an integer"
			      : "%s '%s' is beyond 64-bit instances (-2^63 stands for none)", what,
			      tk_quote(qb, sizeof(qb), p - neg, end));
	}
}

/* An instance: nearly always a few digits, which are taken inline (hot:
 * parse_dec(); up to 16 digits cannot exceed INT64_MAX); the rest (empty,
 * a sign, errors) is left to parse_inst_slow(). */
static inline int parse_inst(btf_reader *b, const char *line, const char *p,
			     const char *end, int hot, const char *what,
			     int64_t *out, tk_error *err)
{
	uint64_t v;

	if (TK_LIKELY(hot && parse_dec(p, end, hot, &v) == 0)) {
		*out = (int64_t)v;
		return TK_OK;
	}
	return parse_inst_slow(b, line, p, end, what, out, err);
}

/* Resolve a numeric name through an id table (the numeric mode of 2.1
 * tables and 2.2 mappings). */
static tk_str numeric_name(const idmap *m, const char *p, const char *end)
{
	uint64_t id;

	if (!m->used || parse_u64(p, end, &id) < 0)
		return TK_NONE;
	return idmap_get(m, id);
}

/* A name of a data line the general way: through id table m (if any and
 * used), converted from the reader's encoding, interned. */
static TK_NOINLINE tk_str intern_name(btf_reader *b, const idmap *m,
				      const char *p, const char *end)
{
	if (m && m->used) {
		tk_str s = numeric_name(m, p, end);
		if (s != TK_NONE)
			return s;
	}
	if (b->enc)
		return intern_text(b, p, (size_t)(end - p));
	return tk_strpool_intern_in(&b->t->pool, p, (size_t)(end - p),
				    b->lines.limit);
}

/* The event kind + 1 of a name, dialect bit 0x80: from the per-string
 * table, filled on the first look. */
static TK_NOINLINE uint8_t kind_of_slow(btf_reader *b, tk_str name)
{
	size_t n;
	const char *s = tk_trace_str(b->t, name, &n);
	int dialect;
	tk_evkind k = tk_evkind_lookup(s, n, &dialect);
	uint8_t kv = (uint8_t)((k + 1) | (dialect ? 0x80 : 0));

	if (tk_grow_zero32((void **)&b->kind_of, &b->cap_kind, name, 1) == 0)
		b->kind_of[name] = kv;
	return kv;
}

static inline uint8_t kind_of_name(btf_reader *b, tk_str name)
{
	uint8_t kv;

	if (TK_LIKELY(name < b->cap_kind) && TK_LIKELY((kv = b->kind_of[name]) != 0))
		return kv;
	return kind_of_slow(b, name);
}

static uint32_t entity_new(btf_reader *b, tk_str name)
{
	uint32_t e = tk_trace_entity_get(b->t, name);

	if (e != TK_NONE &&
	    tk_grow_zero32((void **)&b->explicit_type, &b->cap_explicit, e, 1) < 0)
		return TK_NONE;
	return e;
}

/* The entity of a name: inline when the name has one already (and the
 * reader's per-entity table has room for it), which is every line but the
 * first few. */
static inline uint32_t entity_of(btf_reader *b, tk_str name)
{
	const tk_trace *t = b->t;

	if (TK_LIKELY(name < t->cap_ent_of_str)) {
		uint32_t e = t->ent_of_str[name];
		if (TK_LIKELY(e < b->cap_explicit)) /* and so not TK_NONE */
			return e;
	}
	return entity_new(b, name);
}

/* tk_etype_lookup(), with Vector's THR and SYSC, types of the model but
 * not of BTF 2.1.5/2.3, as departures (docs/btf.md: strict refuses them). */
static int btf_type_lookup(const char *s, size_t n, tk_etype *type,
			   int *dialect)
{
	if (!tk_etype_lookup(s, n, type, dialect))
		return 0;
	*dialect |= *type == TK_ET_THR || *type == TK_ET_SYSC;
	return 1;
}

/* The name and meaning (type + 1, dialect bit 0x80) of a target type
 * field: through the pool and the per-string table. */
static tk_str target_type_slow(btf_reader *b, const char *p, const char *end,
			       uint8_t *val)
{
	tk_str name = TK_UNLIKELY(b->enc)
			      ? intern_text(b, p, (size_t)(end - p))
			      : tk_strpool_intern_hot(&b->t->pool, p, (size_t)(end - p),
						      b->lines.limit);
	tk_etype type;
	int dialect;

	if (name == TK_NONE)
		return TK_NONE;
	if (name >= b->cap_type || !b->type_of[name]) {
		if (!btf_type_lookup(p, (size_t)(end - p), &type, &dialect)) {
			type = TK_ET_OTHER;
			dialect = 0;
		}
		if (tk_grow_zero32((void **)&b->type_of, &b->cap_type, name, 1) < 0)
			return TK_NONE;
		b->type_of[name] = (uint8_t)((type + 1) | (dialect ? 0x80 : 0));
	}
	*val = b->type_of[name];
	return name;
}

/*
 * target_type_slow() behind a small cache: a trace has a handful of target
 * types, all short, so the field's bytes and length in one word (the
 * length in the top byte, so a type of 1 to 7 bytes; never 0, the key of
 * an empty entry) find its entry with no pool lookup.  Returns TK_NONE on
 * out of memory.
 */
static inline tk_str target_type(btf_reader *b, const char *p, const char *end,
				 uint8_t *val)
{
#if LE_WORDS
	size_t n = (size_t)(end - p);
	uint64_t key = 0;
	struct type_slot *e = NULL;
	tk_str name;

	if (TK_LIKELY(n - 1 < 7 && b->lines.limit - p >= 8)) { /* 1 <= n <= 7 */
		memcpy(&key, p, 8);
		key = (key & tk_strpool_mask16[n][0]) | ((uint64_t)n << 56);
		e = &b->types[(key * 0x9e3779b97f4a7c15ull) >> (64 - TYPE_SLOTS_LOG2)];
		if (TK_LIKELY(e->key == key)) {
			*val = e->val;
			return e->name;
		}
	}
	name = target_type_slow(b, p, end, val);
	if (e && name != TK_NONE) {
		e->key = key;
		e->name = name;
		e->val = *val;
	}
	return name;
#else
	return target_type_slow(b, p, end, val);
#endif
}


/*
 * The FreeRTOS trace logger names a task "[core/id]name" and writes
 * "[core/0000]" (id 0, no name) as the source of a process event when no
 * task ran before; its 2022 version names a task "(id)name" and writes
 * "(tick)", the tick count, as the source of a preemption at a tick.
 * 1: such a "no task" name, 2: a task name of either form, 0: neither.
 */
static int freertos_name(const char *s, size_t n)
{
	size_t i = 1, d;
	int zero = 1;

	if (n >= 3 && s[0] == '(') {
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d || i >= n || s[i] != ')')
			return 0;
		return i + 1 == n ? 1 : 2;
	}
	if (n < 5 || s[0] != '[')
		return 0;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d || i >= n || s[i] != '/')
		return 0;
	for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		zero &= s[i] == '0';
	if (i == d || i >= n || s[i] != ']')
		return 0;
	if (zero)
		return i + 1 == n ? 1 : 0;
	return 2;
}

/*
 * The core of a process state change whose source is not a core (BTF
 * wants one).  The FreeRTOS trace logger writes the task that ran before
 * on that core, or "[c/0000]" when none did.  Strict mode refuses a
 * source given another type (one inferred from another role stays, the
 * event coreless, as before); lenient mode reads the event as on the
 * source task's core (where it last ran), else on the target's last core,
 * else on the trace's only core, and warns.  A source of another type
 * keeps the event coreless.
 */
static int process_core(btf_reader *b, const char *line, const char *at,
			tk_evkind kind, tk_event *ev, tk_error *err)
{
	const tk_trace *t = b->t;
	const tk_entity *se = tk_trace_ent(t, ev->source);
	int task = tk_etype_is_process(se->type);
	uint32_t core = TK_NONE;
	char qs[64], qc[64];
	const char *s, *c = "";
	size_t n, nc = 0;

	s = tk_trace_str(t, se->name, &n);
	/* strict: a type the source was given (as a target or in a table),
	 * not one inferred from another of its roles */
	if (b->r->opts.strict && b->explicit_type[ev->source])
		return err_at(b, err, TK_E_PARSE, line, at,
			      "the source of process event '%s' is %s '%s', not a core (lenient mode reads the FreeRTOS trace logger's dialect)",
			      tk_evkind_name(kind), tk_etype_name(se->type),
			      tk_quote(qs, sizeof(qs), s, s + n));
	if (b->r->opts.strict || (!task && se->type != TK_ET_UNKNOWN))
		return TK_OK;
	if (task && ev->source < b->cap_core && b->core_of[ev->source])
		core = b->core_of[ev->source] - 1;
	if (core == TK_NONE && ev->target < b->cap_core &&
	    b->core_of[ev->target])
		core = b->core_of[ev->target] - 1;
	if (core == TK_NONE && b->core1 && !b->many_cores)
		core = b->core1 - 1;
	if (core != TK_NONE)
		c = tk_trace_str(t, tk_trace_ent(t, core)->name, &nc);
	warn(b, W_PROCESS_SOURCE, line, at,
	     "process event '%s' from %s '%s', not from a core (the FreeRTOS trace logger's dialect): read as on %s%s%s",
	     tk_evkind_name(kind), task ? "the task" : "no task",
	     tk_quote(qs, sizeof(qs), s, s + n),
	     core == TK_NONE ? "no core" : "core '",
	     tk_quote(qc, sizeof(qc), c, c + nc),
	     core == TK_NONE ? "" : "'");
	ev->core = core;
	return TK_OK;
}

/* An event's core was seen: the first, or whether there are several. */
static void note_core(btf_reader *b, uint32_t core)
{
	if (!b->core1)
		b->core1 = core + 1;
	else if (b->core1 != core + 1)
		b->many_cores = 1;
}

#if TK_SCAN_SIMD && LE_WORDS
/* The key of the len (1 to 16) bytes at p (the 16 bytes at p may be read)
 * in w[], and the first of the two slots of a cache of 2^log2 slots where
 * it may be (the second is the next one, see cache_ent()). */
static inline size_t name_slot(const char *p, size_t len, uint64_t *w,
			       unsigned log2)
{
	uint64_t w0, w1;

	memcpy(&w0, p, 8);
	memcpy(&w1, p + 8, 8);
	w[0] = w0 & tk_strpool_mask16[len][0];
	w[1] = w1 & tk_strpool_mask16[len][1];
	return (size_t)(((w[0] ^ w[1]) * 0x9e3779b97f4a7c15ull) >> (64 - log2));
}

/* The entry of the name at p in a cache (ent_cache or ev_cache) of
 * 2^log2 entries, or NULL; in CACHE_SLOT(), the slot to put it in: its
 * first slot if free or its own, else the second (which loses what it
 * held). */
#define CACHE_FIND(cache, log2, p, n, found)                                \
	do {                                                                \
		uint64_t w_[2];                                             \
		size_t j_ = name_slot(p, n, w_, log2);                      \
		(found) = &(cache)[j_];                                     \
		if (((found)->w0 ^ w_[0]) | ((found)->w1 ^ w_[1]) |         \
		    ((found)->len ^ (n))) {                                 \
			(found) = &(cache)[(j_ + 1) & ((1u << (log2)) - 1)]; \
			if (((found)->w0 ^ w_[0]) | ((found)->w1 ^ w_[1]) | \
			    ((found)->len ^ (n)))                           \
				(found) = NULL;                             \
		}                                                           \
	} while (0)
#define CACHE_SLOT(cache, log2, p, n, w, slot)                              \
	do {                                                                \
		size_t j_ = name_slot(p, n, w, log2);                       \
		(slot) = &(cache)[j_];                                      \
		if ((slot)->len &&                                          \
		    (((slot)->w0 ^ (w)[0]) | ((slot)->w1 ^ (w)[1]) |        \
		     ((slot)->len ^ (n))))                                  \
			(slot) = &(cache)[(j_ + 1) & ((1u << (log2)) - 1)];  \
	} while (0)

/* Note the entity of the name of len (1 to 16) bytes at p. */
static void cache_ent(btf_reader *b, const char *p, size_t len, uint32_t ent,
		      tk_entity *e)
{
	struct ent_slot *sl;
	uint64_t w[2];

	CACHE_SLOT(b->ent_cache, ENT_SLOTS_LOG2, p, len, w, sl);
	sl->w0 = w[0];
	sl->w1 = w[1];
	sl->len = (uint32_t)len;
	sl->ent = ent;
	sl->e = e;
}

/* Note the name and kind (kind_of_name()) of the event name at p. */
static void cache_ev(btf_reader *b, const char *p, size_t len, tk_str name,
		     uint8_t kv)
{
	struct ev_slot *sl;
	uint64_t w[2];

	CACHE_SLOT(b->ev_cache, EV_SLOTS_LOG2, p, len, w, sl);
	sl->w0 = w[0];
	sl->w1 = w[1];
	sl->len = (uint32_t)len;
	sl->name = name;
	sl->kv = kv;
}
#endif

#if TK_SCAN_SIMD && LE_WORDS
/*
 * The usual data line, all of it known already: seven or eight fields
 * (the commas noted as a mask), fields 1-7 of 1 to 16 bytes with 16 bytes
 * readable at each, plain numbers, a known type and event allowed for it,
 * each name in its cache (seen before), the target of that type already,
 * a source whose type is settled, time not decreasing.  Then ev is the
 * event parse_data() would make of the line, with the same changes to the
 * reader, and 1 is returned; else 0, with nothing changed (parse_data()
 * takes the line: it warns, refuses or learns).
 */
static TK_INLINE int parse_fast(btf_reader *b, const char *line, size_t len,
				uint64_t m, tk_event *ev)
{
	const uint64_t stop = 1ull << 63;
	uint64_t time, si, ti, key;
	unsigned c0, c1, c2, c3, c4, c5, c6, n;
	const struct type_slot *ty;
	const struct ent_slot *ss, *ts;
	const struct ev_slot *es;
	tk_etype type, st;
	tk_evkind kind;
	uint32_t core, not_core;
	const char *note[2];
	int is_core, to_core;

	/* the fields in order, each checked as it is taken: 1 to 16 bytes
	 * (an empty one wraps to a large length), 16 bytes readable at it
	 * (and at the line's end), the 16 before the line too (the window's
	 * bytes from lines.mark on: the numbers are read as the 16 or 8
	 * bytes before their ends) */
	if (TK_UNLIKELY(b->lines.limit - (line + len) < 16 ||
			line - b->lines.mark < 16 || !b->plain))
		return 0;
	/* 1: time */
	c0 = (unsigned)__builtin_ctzll(m | stop);
	m &= m - 1;
	if (TK_UNLIKELY(c0 - 1 >= 16 || !tk_scan_dec16(line + c0, c0, &time) ||
			time < b->last_time))
		return 0;
	/* 2: source */
	c1 = (unsigned)__builtin_ctzll(m | stop);
	m &= m - 1;
	n = c1 - c0 - 1;
	if (TK_UNLIKELY(n - 1 >= 16))
		return 0;
	CACHE_FIND(b->ent_cache, ENT_SLOTS_LOG2, line + c0 + 1, n, ss);
	if (TK_UNLIKELY(!ss))
		return 0;
	/* 3: its instance (read with the target's) */
	c2 = (unsigned)__builtin_ctzll(m | stop);
	m &= m - 1;
	if (TK_UNLIKELY(c2 - c1 - 2 >= 8))
		return 0;
	/* 4: type, through the cache of target_type() */
	c3 = (unsigned)__builtin_ctzll(m | stop);
	m &= m - 1;
	n = c3 - c2 - 1;
	if (TK_UNLIKELY(n - 1 >= 7))
		return 0;
	memcpy(&key, line + c2 + 1, 8);
	key = (key & tk_strpool_mask16[n][0]) | ((uint64_t)n << 56);
	ty = &b->types[(key * 0x9e3779b97f4a7c15ull) >> (64 - TYPE_SLOTS_LOG2)];
	type = (tk_etype)((ty->val & 0x7f) - 1);
	if (TK_UNLIKELY(ty->key != key || (ty->val & 0x80) || type == TK_ET_OTHER))
		return 0;
	/* 5: target */
	c4 = (unsigned)__builtin_ctzll(m | stop);
	m &= m - 1;
	n = c4 - c3 - 1;
	if (TK_UNLIKELY(n - 1 >= 16 || !m))
		return 0;
	CACHE_FIND(b->ent_cache, ENT_SLOTS_LOG2, line + c3 + 1, n, ts);
	if (TK_UNLIKELY(!ts))
		return 0;
	/* 6: its instance; both instances */
	c5 = (unsigned)__builtin_ctzll(m);
	m &= m - 1;
	if (TK_UNLIKELY(c5 - c4 - 2 >= 8 ||
			!tk_scan_dec8x2(line + c2, c2 - c1 - 1, line + c5,
					c5 - c4 - 1, &si, &ti)))
		return 0;
	/* 7: event */
	c6 = m ? (unsigned)__builtin_ctzll(m) : (unsigned)len;
	n = c6 - c5 - 1;
	if (TK_UNLIKELY(n - 1 >= 16))
		return 0;
	CACHE_FIND(b->ev_cache, EV_SLOTS_LOG2, line + c5 + 1, n, es);
	if (TK_UNLIKELY(!es))
		return 0;
	kind = (tk_evkind)((es->kv & 0x7f) - 1);
	if (TK_UNLIKELY((es->kv & 0x80) || b->allowed[type][kind] != 1 ||
			ts->e->type != type))
		return 0;
	/* the source: a type that an event may still change goes the
	 * general way (an unknown one; any but a core for an event whose
	 * source is a core, a stimulus whose type was inferred among them).
	 * The tests are bits, not branches: the source's type varies from
	 * line to line, and a branch on it would be mispredicted; the one
	 * left is rarely taken. */
	st = ss->e->type;
	is_core = st == TK_ET_C;
	to_core = b->implied[type][kind] == TK_ET_C;
	if (TK_UNLIKELY((st == TK_ET_UNKNOWN) | ((is_core == 0) & to_core) |
			(ts->ent >= b->cap_core)))
		return 0;
	/* all ones unless the source is a core (TK_NONE is all ones) */
	not_core = (uint32_t)is_core - 1u;
	core = ss->ent | not_core;

	b->last_time = time;
	/* the target's core: the source's when it is a core */
	b->core_of[ts->ent] = (b->core_of[ts->ent] & not_core) | ((core + 1) & ~not_core);
	if (TK_UNLIKELY(is_core & (b->many_cores == 0)))
		note_core(b, core);
	ev->time = time;
	ev->source = ss->ent;
	ev->target = ts->ent;
	ev->source_inst = (int64_t)si;
	ev->target_inst = (int64_t)ti;
	ev->type = type;
	ev->kind = kind;
	ev->type_name = ty->name;
	ev->name = es->name;
	ev->core = core;
	/* a note or none, selected, not branched on (lines with and
	 * without one come in no order; with none c6 is len, and the
	 * pointer is the line end's next byte) */
	note[0] = NULL;
	note[1] = line + c6 + 1;
	ev->note = note[m != 0];
	ev->note_len = (uint32_t)(len - c6 - 1) & (0u - (uint32_t)(m != 0));
	ev->pos = b->lines.line;
	return 1;
}
#endif

/*
 * A data line into ev: one pass over its fields, in order, each taken
 * inline in the usual case (plain numbers, names of 1 to 16 bytes the pool
 * holds, a known type and event allowed for it, entities of settled types)
 * and the general way else (blanks, empty or long fields, numeric names,
 * another encoding, new names, dialects, errors), so that errors and
 * warnings come in field order with the line and column of their field.
 */
static TK_NOINLINE int parse_data(btf_reader *b, const char *line, size_t len,
				tk_event *ev, tk_error *err)
{
	const char *end = line + len, *f[8], *fe[8];
	int strict = b->r->opts.strict, nf, dialect = 0, allowed, hot;
	tk_trace *t = b->t;
	uint64_t time;
	tk_etype type;
	tk_evkind kind;
	tk_str tname, sname, ename, ttname;
	size_t n1, n4, n6, lens = 0;
	uint8_t kv;
	tk_entity *se, *te;
	char qb[64];
	int rc, i;

	/* fields 1-7 end at a comma; field 8 is the rest of the line (the
	 * commas are all before the line's end: only a '\r' can be there) */
	f[0] = line;
#if TK_SCAN_SIMD
	if (TK_LIKELY(b->ls.ncommas < 0)) {
		/* from the mask, lowest bit first: a missing comma leaves it
		 * empty, and bit 63 (past the newline, never a comma) keeps
		 * ctz defined */
		uint64_t m = b->ls.mask;
		for (i = 0; i < 6; i++) {
			if (i == 5 && TK_UNLIKELY(!m))
				goto few;
			fe[i] = line + __builtin_ctzll(m | (1ull << 63));
			lens |= (size_t)(fe[i] - f[i]) - 1;
			f[i + 1] = fe[i] + 1;
			m &= m - 1;
		}
		nf = m ? 7 : 6;
		fe[6] = m ? line + __builtin_ctzll(m) : end;
	} else
#endif
	{
		if (b->ls.ncommas < 6)
			goto few;
		for (i = 0; i < 6; i++) {
			fe[i] = b->ls.commas[i];
			lens |= (size_t)(fe[i] - f[i]) - 1;
			f[i + 1] = b->ls.commas[i] + 1;
		}
		nf = b->ls.ncommas;
		fe[6] = nf == 7 ? b->ls.commas[6] : end;
	}
	lens |= (size_t)(fe[6] - f[6]) - 1;
	f[7] = fe[6] + 1;
	fe[7] = end;
	/* the usual line: fields of 1 to 16 bytes, each of which may be read
	 * as two words, names of plain text (b->plain), no blank to trim */
	hot = LE_WORDS & b->plain & (b->lines.limit - end >= 16) & (lens < 16);
	if (!strict && TK_UNLIKELY(b->ls.blank) && trim_fields(b, f, fe))
		hot = 0;
	n1 = (size_t)(fe[1] - f[1]);
	n4 = (size_t)(fe[4] - f[4]);
	n6 = (size_t)(fe[6] - f[6]);

	/* 1: time */
	rc = parse_dec(f[0], fe[0], hot, &time);
	if (TK_UNLIKELY(rc < 0))
		return err_at(b, err, rc == -2 ? TK_E_RANGE : TK_E_PARSE, line,
			      f[0], rc == -2 ? "time '%s' is too large"
					     : "time '%s' is not a non-negative integer",
			      tk_quote(qb, sizeof(qb), f[0], fe[0]));
	if (TK_UNLIKELY(time < b->last_time) &&
	    (rc = depart(b, err, W_TIME_DECREASES, line, f[0],
			 "time decreases (%llu after %llu)",
			 "time decreases (%llu after %llu); kept in file order",
			 (unsigned long long)time,
			 (unsigned long long)b->last_time)) < 0)
		return rc;
	b->last_time = time;

	/* empty names: which one */
	if (TK_UNLIKELY(!hot)) {
		for (i = 1; i < 7; i++) {
			if (i == 2 || i == 5)
				continue;
			if (f[i] == fe[i])
				return err_at(b, err, TK_E_PARSE, line, f[i],
					      "empty %s", i == 1 ? "source"
						      : i == 3 ? "target type"
						      : i == 4 ? "target" : "event");
		}
	}

	/* 3, 6: instances */
	rc = parse_inst(b, line, f[2], fe[2], hot, "source instance",
			&ev->source_inst, err);
	if (rc < 0)
		return rc;
	rc = parse_inst(b, line, f[5], fe[5], hot, "target instance",
			&ev->target_inst, err);
	if (rc < 0)
		return rc;
	if (TK_UNLIKELY(ev->target_inst == TK_INST_NONE) &&
	    (rc = depart(b, err, W_EMPTY_INSTANCE, line, f[5],
			 "empty target instance", "empty target instance")) < 0)
		return rc;

	/* 4: type */
	ttname = TK_NONE;
	if (TK_UNLIKELY(!hot && b->type_ids.used))
		ttname = numeric_name(&b->type_ids, f[3], fe[3]);
	if (ttname != TK_NONE) {
		size_t n;
		const char *s = tk_trace_str(t, ttname, &n);
		if (!tk_etype_lookup(s, n, &type, &dialect))
			type = TK_ET_OTHER;
	} else {
		uint8_t tv;
		ttname = target_type(b, f[3], fe[3], &tv);
		if (ttname == TK_NONE)
			return tk_err_nomem(err, b->name);
		type = (tk_etype)((tv & 0x7f) - 1);
		dialect = tv >> 7;
		rc = TK_OK;
		if (TK_UNLIKELY(type == TK_ET_OTHER))
			rc = depart(b, err, W_UNKNOWN_TYPE, line, f[3],
				    "unknown entity type '%s'",
				    "unknown entity type '%s' (kept)",
				    tk_quote(qb, sizeof(qb), f[3], fe[3]));
		else if (TK_UNLIKELY(dialect))
			rc = depart(b, err, W_TYPE_SPELLING, line, f[3],
				    "entity type '%s' is not BTF 2.1.5/2.3 (lenient mode reads it)",
				    "entity type '%s' read as '%s'",
				    tk_quote(qb, sizeof(qb), f[3], fe[3]),
				    tk_etype_name(type));
		if (rc < 0)
			return rc;
	}

	/* 2, 5, 7: names (interned in field order) */
	sname = tname = ename = TK_NONE;
#if LE_WORDS
	if (TK_LIKELY(hot)) {
		sname = tk_strpool_lookup16(&t->pool, f[1], n1);
		tname = tk_strpool_lookup16(&t->pool, f[4], n4);
		ename = tk_strpool_lookup16(&t->pool, f[6], n6);
	}
#endif
	if (TK_UNLIKELY(sname == TK_NONE || tname == TK_NONE || ename == TK_NONE)) {
		if (sname == TK_NONE)
			sname = intern_name(b, &b->entity_ids, f[1], fe[1]);
		if (tname == TK_NONE)
			tname = intern_name(b, &b->entity_ids, f[4], fe[4]);
		if (ename == TK_NONE)
			ename = intern_name(b, NULL, f[6], fe[6]);
		if (sname == TK_NONE || tname == TK_NONE || ename == TK_NONE)
			return tk_err_nomem(err, b->name);
	}
	kv = kind_of_name(b, ename);
	kind = (tk_evkind)((kv & 0x7f) - 1);
	dialect = kv >> 7;
	allowed = b->allowed[type][kind];
	if (TK_UNLIKELY(allowed != 1 || dialect)) {
		tk_quote(qb, sizeof(qb), f[6], fe[6]);
		rc = TK_OK;
		if (kind == TK_EV_OTHER || !allowed) {
			/* an unknown type's events: no word */
			if (strict || type != TK_ET_OTHER)
				rc = depart(b, err, kind == TK_EV_OTHER ? W_UNKNOWN_EVENT
									: W_EVENT_FOR_TYPE,
					    line, f[6], "unknown event '%s' for type %s",
					    "unknown event '%s' for type %s (kept)",
					    qb, tk_etype_name(type));
		} else if (dialect) {
			rc = depart(b, err, W_EVENT_SPELLING, line, f[6],
				    "event '%s' is not BTF 2.1.5/2.3 spelling (it means '%s')",
				    "event '%s' read as '%s'", qb,
				    tk_evkind_name(kind));
		} else {
			rc = depart(b, err, W_DIALECT_EVENT, line, f[6],
				    "event '%s' for type %s is a tool dialect, not BTF 2.1.5/2.3",
				    "event '%s' for type %s is a tool dialect (kept)",
				    qb, tk_etype_name(type));
		}
		if (rc < 0)
			return rc;
	}

	/* entities: a type seen as a target wins over one inferred */
	ev->source = entity_of(b, sname);
	ev->target = entity_of(b, tname);
	if (ev->source == TK_NONE || ev->target == TK_NONE)
		return tk_err_nomem(err, b->name);
	te = tk_trace_ent(t, ev->target);
	se = tk_trace_ent(t, ev->source);
	{
		tk_etype st;
		if (TK_UNLIKELY(te->type != type)) {
			if (te->type == TK_ET_UNKNOWN ||
			    !b->explicit_type[ev->target]) {
				te->type = type;
				te->type_name = ttname;
				b->explicit_type[ev->target] = 1;
			} else if ((rc = type_conflict(b, line, f[3], f[4], fe[4],
						       type, te->type, err)) < 0) {
				return rc;
			}
		}
		if (TK_UNLIKELY(se->type == TK_ET_STI) &&
		    !b->explicit_type[ev->source] &&
		    b->implied[type][kind] == TK_ET_C)
			/* a core that activated a process before it ran one
			 * was taken for a stimulus: it is a core */
			se->type = TK_ET_UNKNOWN;
		if (TK_UNLIKELY(se->type == TK_ET_UNKNOWN)) {
			st = tk_implied_source_type(type, kind);
			if (st == TK_ET_UNKNOWN && kind == TK_EV_ACTIVATE &&
			    tk_etype_is_process(type))
				st = TK_ET_STI;
			if (st == TK_ET_C && !strict) {
				/* the FreeRTOS logger's "no task" is no
				 * core, its task names are tasks */
				size_t n;
				const char *s = tk_trace_str(t, sname, &n);
				int fr = freertos_name(s, n);
				if (fr)
					st = fr == 1 ? TK_ET_UNKNOWN : TK_ET_T;
			}
			se->type = st;
		}
		/* the source is the core, or TK_NONE (all ones), without a
		 * branch: sources are cores or not in no pattern */
		ev->core = ev->source | ((uint32_t)(se->type == TK_ET_C) - 1u);
		if (TK_UNLIKELY(ev->core == TK_NONE) &&
		    b->implied[type][kind] == TK_ET_C) {
			rc = process_core(b, line, f[1], kind, ev, err);
			if (rc < 0)
				return rc;
		}
		/* every target gets its slot */
		if (tk_grow_zero32((void **)&b->core_of, &b->cap_core,
				   ev->target, sizeof(uint32_t)) < 0)
			return tk_err_nomem(err, b->name);
		if (ev->core != TK_NONE) {
			b->core_of[ev->target] = ev->core + 1;
			if (!b->many_cores)
				note_core(b, ev->core);
		}
	}

	ev->time = time;
	ev->type = type;
	ev->kind = kind;
	ev->type_name = ttname;
	ev->name = ename;
	if (nf == 7) {
		ev->note = f[7];
		ev->note_len = (uint32_t)((size_t)(end - f[7]) > UINT32_MAX
						  ? UINT32_MAX
						  : (size_t)(end - f[7]));
	} else {
		ev->note = NULL;
		ev->note_len = 0;
	}
	ev->pos = b->lines.line;
#if TK_SCAN_SIMD && LE_WORDS
	if (hot) {
		/* what parse_fast() needs to take the next line of these names */
		cache_ent(b, f[1], n1, ev->source, se);
		cache_ent(b, f[4], n4, ev->target, te);
		cache_ev(b, f[6], n6, ename, kv);
	}
#endif
	if (TK_UNLIKELY(!hot)) {
		/* the pool has its table now: lines of plain names may be hot */
		b->data_started = 1;
		b->plain = !(b->enc | b->entity_ids.used | b->type_ids.used);
	}
	return TK_OK;
few:
	return err_at(b, err, TK_E_PARSE, line, end,
		      "expected at least 7 comma-separated fields, found %d",
		      line_commas(&b->ls, line) + 1);
}

/* ---- reader ops --------------------------------------------------------- */

/* The version's major.minor as 100 * major + minor; 0 if unknown. */
static int version_number(const tk_trace *t)
{
	const char *v = tk_trace_header_get(t, "version");
	unsigned maj = 0, min = 0;

	if (!v)
		return 0;
	while (*v == ' ')
		v++;
	for (; *v >= '0' && *v <= '9' && maj < 1000; v++)
		maj = maj * 10 + (unsigned)(*v - '0');
	if (*v++ != '.')
		return 0;
	for (; *v >= '0' && *v <= '9' && min < 1000; v++)
		min = min * 10 + (unsigned)(*v - '0');
	return (int)(maj * 100 + min);
}

static int check_header(btf_reader *b, tk_error *err)
{
	int strict = b->r->opts.strict;

	if (!b->version_seen) {
		if (strict)
			return tk_err_set(err, TK_E_PARSE, b->name, 1, 1,
					  "no #version line (BTF requires it first)");
		tk_reader_warn(b->r, W_NO_VERSION, 0, 0,
			       "no #version in the header");
	}
	if (!b->timescale_seen) {
		/* 2.1.x defaults to ns; 2.2+ requires the parameter */
		int v = version_number(b->t);
		if (v && v < 202)
			return TK_OK;
		return tk_reader_depart(b->r, err, W_NO_TIMESCALE, 0, 0,
					"no #timescale before the first event (required since BTF 2.2)",
			       "no #timescale in the header: ns assumed (the BTF 2.1 default)");
	}
	return TK_OK;
}

/* The reader's options: encoding=utf-8|latin1|cp1252 (docs/btf.md). */
static int parse_options(btf_reader *b, tk_error *err)
{
	static const struct { const char *name; int enc; } encs[] = {
		{ "utf-8", ENC_UTF8 }, { "utf8", ENC_UTF8 },
		{ "latin1", ENC_LATIN1 }, { "latin-1", ENC_LATIN1 },
		{ "iso-8859-1", ENC_LATIN1 }, { "cp1252", ENC_CP1252 },
		{ "windows-1252", ENC_CP1252 },
	};
	const char *p = b->r->opts.options;

	while (p && *p) {
		size_t n = strcspn(p, ","), i;
		const char *eq = memchr(p, '=', n);
		int ok = 0;

		if (eq && tk_ascii_casecmp(p, (size_t)(eq - p), "encoding") == 0)
			for (i = 0; i < sizeof(encs) / sizeof(encs[0]) && !ok; i++)
				if (tk_ascii_casecmp(eq + 1, n - (size_t)(eq + 1 - p),
						     encs[i].name) == 0) {
					b->enc = encs[i].enc;
					ok = 1;
				}
		if (!ok)
			return tk_err_set(err, TK_E_USAGE, b->name, 0, 0,
					  "bad BTF reader option '%.*s' (encoding=utf-8, latin1 or cp1252)",
					  (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	return TK_OK;
}

int btf_reader_open(tk_reader *r, tk_error *err)
{
	btf_reader *b;
	const char *line;
	size_t len;
	/* CR-only line ends are not in the specification (LF or CRLF), but
	 * read: a file read as one line would lose every line but the first */
	int rc = tk_reader_text_open(r, sizeof(*b), W_CR_ONLY,
				     "lines end with a CR alone (BTF lines end with LF or CRLF)",
				     err);

	if (!(b = r->impl))
		return rc;
	b->r = r;
	b->t = r->trace;
	b->name = tk_source_name(r->src);
	b->allowed = tk_model_event_table();
	{
		int ty, k;
		for (ty = 0; ty < TK_ET_COUNT; ty++)
			for (k = 0; k < TK_EV_COUNT; k++)
				b->implied[ty][k] = (uint8_t)tk_implied_source_type(
					(tk_etype)ty, (tk_evkind)k);
	}
	/* a time that decreases is an error in strict mode only */
	r->ordered = r->opts.strict;
	b->cr_only = rc;
	if (rc < 0 || (rc = parse_options(b, err)) < 0)
		goto fail;
	/* every CR, LF and CRLF ends a line (lines.h) */
	tk_lines_init(&b->lines, r->src, 1);
	for (;;) {
		rc = next_line(b, &line, &len, err);
		if (rc == TK_END)
			break;
		if (rc < 0)
			goto fail;
		if (len == 0)
			continue;
		if (line[0] != '#') {
			b->pend = line;
			b->pend_len = len;
			b->have_pend = 1;
			break;
		}
		rc = header_line(b, line, len, err);
		if (rc < 0)
			goto fail;
	}
	rc = check_header(b, err);
	if (rc < 0)
		goto fail;
	return TK_OK;
fail:
	btf_reader_close(r);
	return rc;
}

int btf_reader_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	btf_reader *b = r->impl;
	const char *line;
	size_t len;
	int rc;

	for (;;) {
		if (b->have_pend) {
			b->have_pend = 0;
			line = b->pend;
			len = b->pend_len;
		} else {
#if TK_SCAN_SIMD && LE_WORDS
			uint64_t mask;
			if (TK_LIKELY(!b->lines.skip_lf &&
				      b->lines.limit - b->lines.pos >= 64) &&
			    TK_LIKELY(quick_line(b, &line, &len, &mask))) {
				if (TK_LIKELY(len != 0 && line[0] != '#') &&
				    TK_LIKELY(parse_fast(b, line, len, mask, &r->ev))) {
					*ev = &r->ev;
					return TK_OK;
				}
				b->ls.nl = line + len;
				b->ls.mask = mask;
				b->ls.ncommas = -1;
				b->ls.blank = 0;
			} else
#endif
			if ((rc = next_line(b, &line, &len, err)) != TK_OK)
				return rc;
		}
		if (TK_UNLIKELY(len == 0))
			continue;
		if (TK_UNLIKELY(line[0] == '#')) {
			rc = header_line(b, line, len, err);
			if (rc < 0)
				return rc;
			continue;
		}
		rc = parse_data(b, line, len, &r->ev, err);
		if (rc < 0)
			return rc;
		if (TK_UNLIKELY(b->enc) && r->ev.note) {
			size_t nn;
			const char *nu = recode(b, 1, r->ev.note, r->ev.note_len, &nn);
			if (!nu)
				return tk_err_nomem(err, b->name);
			r->ev.note = nu;
			r->ev.note_len = (uint32_t)(nn > UINT32_MAX ? UINT32_MAX : nn);
		}
		*ev = &r->ev;
		return TK_OK;
	}
}

/*
 * The usual data lines (those of parse_fast()) in a row, into b->batch;
 * the first other line ends the batch and is kept for the next call
 * (have_pend: the window does not move before then, as no line is read
 * past it), which takes it the way btf_reader_next() does, one event a
 * call.  A batch's events make no entity, string or warning, and their
 * notes point into the window, which only a fill moves: the lines of a
 * batch are those whose 64 bytes were in the window already.
 */
int btf_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			  size_t max, tk_error *err)
{
	btf_reader *b = r->impl;
	const tk_event *ev;
	size_t k = 0;
	int rc;

#if TK_SCAN_SIMD && LE_WORDS
	/* neither a pending line nor a CR to skip comes up in the loop (it
	 * ends where one would), and the window's end stays where it is
	 * (quick_line() moves pos, tk_lines_sync() the mark): tested once */
	const char *limit = b->lines.limit;

	if (max > BATCH_EVENTS)
		max = BATCH_EVENTS;
	if (b->have_pend || TK_UNLIKELY(b->lines.skip_lf))
		max = 0;
	while (k < max && TK_LIKELY(limit - b->lines.pos >= 64)) {
		const char *line;
		size_t len;
		uint64_t mask;

		if (TK_UNLIKELY(!quick_line(b, &line, &len, &mask)))
			break;
		if (TK_LIKELY(len != 0 && line[0] != '#') &&
		    TK_LIKELY(parse_fast(b, line, len, mask, &b->batch[k]))) {
			k++;
			continue;
		}
		/* as btf_reader_next() leaves a line that parse_fast() did
		 * not take, kept for the next call */
		b->ls.nl = line + len;
		b->ls.mask = mask;
		b->ls.ncommas = -1;
		b->ls.blank = 0;
		b->pend = line;
		b->pend_len = len;
		b->have_pend = 1;
		break;
	}
	if (k) {
		*evs = b->batch;
		*n = k;
		return TK_OK;
	}
#else
	(void)max;
#endif
	if ((rc = btf_reader_next(r, &ev, err)) == TK_OK) {
		*evs = ev;
		*n = 1;
	}
	return rc;
}

void btf_reader_close(tk_reader *r)
{
	btf_reader *b = r->impl;

	if (!b)
		return;
	free(b->kind_of);
	free(b->type_of);
	free(b->explicit_type);
	free(b->core_of);
	free(b->entity_ids.names);
	free(b->type_ids.names);
	free(b->rbuf[0]);
	free(b->rbuf[1]);
	free(b);
	r->impl = NULL;
}
