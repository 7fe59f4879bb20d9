/*
 * tarmac_records.c - Arm Tarmac lines as CPU-level records.
 *
 * One pass per line over the source window: the line comes from core's
 * line scanner (lines.h), then is split into blank-separated tokens on the
 * fly.
 * Nothing is copied and nothing is allocated per record: the record's spans
 * point into the window (the source's buffer, which moves only at a fill,
 * and fills happen only inside tk_tarmac_next()).
 *
 * Which producer wrote a line is told by its kind token and by the shape of
 * the fields after it (docs/tarmac.md lists the forms).  The forms overlap
 * in a few places, resolved as follows:
 *  - "IT (x) a b T ..." (Fast Models: x is a count, a the address, b the
 *    opcode) against "IT (x) b O ..." (x is the address): the token after
 *    the opcode is an instruction-set letter in the first, the second token
 *    after the tag is one in the second.
 *  - a stamp ("3981 tic") against a Text Rev 3t continuation line that
 *    starts with an address made of decimal digits ("00004010  3e000a73"):
 *    a stamp is a number followed by a known unit word.
 *  - register values split by blanks ("R X0 01234567 89abcdef") against a
 *    trailing flags word ("R cpsr 20000000 __C_"): further value words are
 *    at least 8 characters long.
 */
#include "tarmac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/scan.h"

enum { SEEN_M = 1, SEEN_FM = 2, SEEN_REV3T = 4, SEEN_CPU = 8, SEEN_FMONLY = 16 };
enum { W_UNKNOWN_KIND = 0, W_MALFORMED = 1, W_UNIT = 2, W_CR_ONLY = 3 };
enum { SKIP = 2 };   /* internal: the line gave no record */

static const char *const kind_names[TK_TARMAC_KIND_COUNT] = {
	"instruction", "register", "event", "memory", "bus", "branch", "other"
};

const char *tk_tarmac_kind_name(tk_tarmac_kind kind)
{
	return (unsigned)kind < TK_TARMAC_KIND_COUNT ? kind_names[kind] : "?";
}

static const char *const unit_names[TK_TARMAC_UNIT_COUNT] = {
	"", "fs", "ps", "ns", "us", "ms", "s", "clk", "cyc", "tic", "cs"
};

const char *tk_tarmac_unit_name(tk_tarmac_unit unit)
{
	return (unsigned)unit < TK_TARMAC_UNIT_COUNT ? unit_names[unit] : "?";
}

const char *tk_tarmac_variant_name(tk_tarmac_variant v)
{
	switch (v) {
	case TK_TARMAC_VARIANT_CORTEX_M: return "cortex-m-rtl";
	case TK_TARMAC_VARIANT_FAST_MODELS: return "fast-models";
	case TK_TARMAC_VARIANT_GEM5: return "gem5";
	case TK_TARMAC_VARIANT_TEXT_REV3T: return "text-rev3t";
	case TK_TARMAC_VARIANT_MIXED: return "mixed";
	default: return "unknown";
	}
}

void tk_tarmac_opts_init(tk_tarmac_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

/* The sizes tk_tarmac_opts has had, oldest first (TK_OPTS_TAKE()). */
static const size_t tarmac_opts_sizes[] = {
	sizeof(tk_tarmac_opts)
};

int tarmac_opts_take(tk_tarmac_opts *o, const tk_tarmac_opts *opts,
		     tk_error *err)
{
	return TK_OPTS_TAKE(tk_tarmac_opts, o, opts, tarmac_opts_sizes, err);
}

/* ---- small scanners ------------------------------------------------------ */

static inline int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Byte classes, one table look-up per byte on the hot path: the hex value
 * (or -1), and the characters of a value text (value_char()).
 */
#define HEX_(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : \
		 (c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : \
		 (c) >= 'A' && (c) <= 'F' ? (c) - 'A' + 10 : -1)
#define VAL_(c) (HEX_(c) >= 0 || (c) == '_' || (c) == 'x' || (c) == 'X' || \
		 (c) == '-' || (c) == ':')
/* value_of(): the hex value, 16 for a separator, 32 for anything else */
#define DIG_(c) (HEX_(c) >= 0 ? HEX_(c) : \
		 (c) == '_' || (c) == ' ' || (c) == '\t' ? 16 : 32)
#define T4_(M, b) M(b), M(b + 1), M(b + 2), M(b + 3)
#define T16_(M, b) T4_(M, b), T4_(M, b + 4), T4_(M, b + 8), T4_(M, b + 12)
#define T64_(M, b) T16_(M, b), T16_(M, b + 16), T16_(M, b + 32), T16_(M, b + 48)
#define T256_(M) T64_(M, 0), T64_(M, 64), T64_(M, 128), T64_(M, 192)

static const signed char hex_tab[256] = { T256_(HEX_) };
static const unsigned char val_tab[256] = { T256_(VAL_) };
static const unsigned char dig_tab[256] = { T256_(DIG_) };

static inline int hexval(char c)
{
	return hex_tab[(unsigned char)c];
}

static inline const char *skip_blank(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static inline const char *tok_end(const char *p, const char *end)
{
#if TK_SCAN_SIMD
	/* most tokens end within 16 bytes: one compare of 16 at a time */
	while (end - p >= 16) {
		uint32_t m = tk_scan_eq16_2(p, ' ', '\t');
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < end && !is_blank(*p))
		p++;
	return p;
}

static int tok_is(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) == n && memcmp(p, s, n) == 0;
}

/*
 * The value of the 8 hex digits at p, or -1 when one of the 8 bytes is no
 * hex digit: every byte at once in a 64-bit word (little-endian hosts).
 */
static inline int64_t hex8(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t w, l, dig, let, x;

	memcpy(&w, p, 8);
	if (w & high)
		return -1;
	/* per byte b < 0x80: b + (0x80 - lo) has bit 7 set iff b >= lo, and
	 * b + (0x7f - hi) iff b > hi; no carry leaves a byte */
	dig = (w + 0x50 * ones) & ~(w + 0x46 * ones) & high;       /* '0'..'9' */
	l = w | 0x20 * ones;                                         /* to lower case */
	let = (l + 0x1f * ones) & ~(l + 0x19 * ones) & high;       /* 'a'..'f' */
	if ((dig | let) != high)
		return -1;
	/* the digit values: the low nibble, + 9 for a letter (bit 6) */
	x = (w & 0x0f * ones) + ((w >> 6) & ones) * 9;
	/* the first character is the most significant: pack the nibbles */
	x = ((x << 4) | (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = ((x << 8) | (x >> 16)) & 0x0000ffff0000ffffull;
	x = ((x << 16) | (x >> 32)) & 0xffffffffull;
	return (int64_t)x;
#else
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		int d = hex_tab[(unsigned char)p[i]];
		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	return (int64_t)v;
#endif
}

/* All hex digits, 1..16 of them. */
static int parse_hex(const char *p, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (p == e || e - p > 16)
		return -1;
	if (e - p == 8) {
		int64_t h = hex8(p);
		if (h < 0)
			return -1;
		*out = (uint64_t)h;
		return 0;
	}
	for (; p < e; p++) {
		int d = hexval(*p);
		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int all_hex(const char *p, const char *e)
{
	if (p == e)
		return 0;
	for (; p < e; p++)
		if (hexval(*p) < 0)
			return 0;
	return 1;
}

/* memchr() for the short spans of one line: no call per token */
static inline const char *find_byte(const char *p, const char *e, char c)
{
	for (; p < e; p++)
		if (*p == c)
			return p;
	return NULL;
}

/*
 * strchr(set, c) != NULL for a short literal set; like strchr(), the
 * terminating NUL of the set matches c == '\0'.
 */
static inline int in_set(const char *set, char c)
{
	if (c == '\0')
		return 1;
	for (; *set; set++)
		if (*set == c)
			return 1;
	return 0;
}

/*
 * An address "va", "va:pa", "va:pa_NS", "va:pa1,pa2" ...: the value before
 * ':' must be hex; the rest is kept as text.
 */
static int parse_addr(const char *p, const char *e, tk_tarmac_record *rec)
{
	const char *c = p;
	uint64_t v = 0;
	int64_t h;

	/* 8 digits, then the end or ':' (nearly every address) */
	if (e - p >= 8 && (e - p == 8 || p[8] == ':' || hexval(p[8]) < 0) &&
	    (h = hex8(p)) >= 0) {
		v = (uint64_t)h;
		c = p + 8;
	}
	/* one pass: the hex digits up to ':' or the end */
	for (; c < e; c++) {
		int d = hexval(*c);
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	if (c == p || c - p > 16 || (c < e && *c != ':'))
		return -1;
	rec->address = v;
	rec->has_address = 1;
	if (c < e) {
		const char *q;
		if (c + 1 == e)
			return -1;
		for (q = c + 1; q < e; q++)
			if (hexval(*q) < 0 && *q != '_' && *q != ',' &&
			    *q != 'N' && *q != 'S')
				return -1;
		rec->phys.ptr = c + 1;
		rec->phys.len = (size_t)(e - c - 1);
	}
	return 0;
}

/*
 * A value text: hex digits with '_' / ':' / ' ' separators, 'x'/'X' for
 * unknown digits, '-' for unwritten ones.  value_known when it is all hex
 * (separators aside) and fits 64 bits.
 */
static inline int value_char(char c)
{
	return val_tab[(unsigned char)c];
}

static void value_of(const char *p, const char *e, uint64_t *v, int *known)
{
	uint64_t x = 0;
	int n = 0;

	*known = 0;
	if (e - p == 16 || e - p == 8) {
		int64_t hi = hex8(p), lo = e - p == 16 ? hex8(p + 8) : 0;
		if (hi >= 0 && lo >= 0) {
			*v = e - p == 16 ? (uint64_t)hi << 32 | (uint64_t)lo
					 : (uint64_t)hi;
			*known = 1;
			return;
		}
	}
	if (e > p && e - p <= 16) {
		/* the common case, 1..16 hex digits: no test per digit */
		const char *q;
		unsigned any = 0;
		for (q = p; q < e; q++) {
			unsigned d = dig_tab[(unsigned char)*q];
			any |= d;
			x = x << 4 | (d & 15);
		}
		if (any < 16) {
			*v = x;
			*known = 1;
			return;
		}
		x = 0;
	}
	for (; p < e; p++) {
		unsigned d = dig_tab[(unsigned char)*p];
		if (d == 16)
			continue;
		if (d > 16 || ++n > 16)
			return;
		x = x << 4 | d;
	}
	if (n == 0)
		return;
	*v = x;
	*known = 1;
}

/* ---- errors and warnings -------------------------------------------------- */

static void warn(tk_tarmac *tr, unsigned kind, uint32_t col, const char *msg)
{
	tk_error w;
	uint64_t bit = 1ull << kind;

	if (tr->reader) {
		tk_reader_warn(tr->reader, kind, tr->line, col, "%s", msg);
		return;
	}
	tr->nwarn++;
	if ((tr->warned & bit) || !tr->opts.on_warning)
		return;
	tr->warned |= bit;
	memset(&w, 0, sizeof(w));
	snprintf(w.input, sizeof(w.input), "%s", tr->name);
	w.line = tr->line;
	w.column = col;
	snprintf(w.msg, sizeof(w.msg), "%s", msg);
	tr->opts.on_warning(tr->opts.warning_ctx, &w);
}

/* Quote at most 40 bytes of a token for a message. */
static void quote(char *buf, size_t size, const char *p, const char *e)
{
	size_t i, o = 0, n = (size_t)(e - p);

	for (i = 0; i < n && i < 40 && o + 5 < size; i++) {
		unsigned char c = (unsigned char)p[i];
		buf[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	if (i < n && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
}

/*
 * A line that is not one of the known forms: an error in strict mode, a
 * warning and a skipped line in lenient mode.
 */
static int bad(tk_tarmac *tr, tk_error *err, unsigned wkind, const char *line,
	       const char *at, const char *what, const char *tp,
	       const char *te)
{
	char msg[200], q[64];
	uint32_t col = (uint32_t)(at - line) + 1;

	if (tp) {
		quote(q, sizeof(q), tp, te);
		snprintf(msg, sizeof(msg), "%s '%s'", what, q);
	} else {
		snprintf(msg, sizeof(msg), "%s", what);
	}
	if (tr->opts.strict)
		return tk_err_set(err, TK_E_PARSE, tr->name, tr->line, col,
				  "%s", msg);
	tr->nskipped++;
	warn(tr, wkind, col, msg);
	return SKIP;
}

/* ---- CPU prefixes ---------------------------------------------------------- */

/* "cpu0", "cluster0.cpu1", "subcluster2.cpu0" */
static int is_cpu_token(const char *p, const char *e)
{
	const char *d = e, *q;

	while (d > p && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == e || d - p < 3 || memcmp(d - 3, "cpu", 3) != 0)
		return 0;
	if (d - 3 != p && d[-4] != '.')
		return 0;
	for (q = p; q < d - 3; q++)
		if (!(*q == '.' || *q == '_' || (*q >= '0' && *q <= '9') ||
		      ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z')))
			return 0;
	return 1;
}

/*
 * strlen(s) == n && memcmp(s, p, n) == 0, in one short loop that stops at
 * the first difference (p, a CPU token, holds no NUL).
 */
static inline int name_is(const char *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != p[i])
			return 0;
	return s[n] == '\0';
}

/* The index + 1 of the CPU named by the n bytes at p (the bytes up to
 * `limit` may be read), made when new. */
static int cpu_index(tk_tarmac *tr, const char *p, size_t n, const char *limit,
		     uint32_t *out, tk_error *err)
{
	tk_str id;

	/* lines of one CPU come in runs: no hash for the CPU of the last
	 * prefix */
	if (tr->last_cpu && tr->last_cpu_len == n &&
	    name_is(tr->cpus.ptrs[tr->last_cpu - 1], p, n)) {
		*out = tr->last_cpu;
		return TK_OK;
	}
	id = tk_strpool_intern_hot(&tr->cpus, p, n, limit);
	if (id == TK_NONE)
		return tk_err_nomem(err, tr->name);
	tr->last_cpu = (uint32_t)id + 1;
	tr->last_cpu_len = n;
	*out = tr->last_cpu;
	return TK_OK;
}

/* ---- time stamps ------------------------------------------------------------ */

static tk_tarmac_unit unit_of(const char *p, const char *e)
{
	switch (e - p) {
	case 1:
		return *p == 's' ? TK_TARMAC_UNIT_S : TK_TARMAC_UNIT_NONE;
	case 2:
		if (p[1] != 's')
			break;
		switch (p[0]) {
		case 'f': return TK_TARMAC_UNIT_FS;
		case 'p': return TK_TARMAC_UNIT_PS;
		case 'n': return TK_TARMAC_UNIT_NS;
		case 'u': return TK_TARMAC_UNIT_US;
		case 'm': return TK_TARMAC_UNIT_MS;
		case 'c': return TK_TARMAC_UNIT_CS;
		default: break;
		}
		break;
	case 3:
		if (p[0] == 'c' && p[1] == 'l' && p[2] == 'k')
			return TK_TARMAC_UNIT_CLK;
		if (p[0] == 'c' && p[1] == 'y' && p[2] == 'c')
			return TK_TARMAC_UNIT_CYC;
		if (p[0] == 't' && p[1] == 'i' && p[2] == 'c')
			return TK_TARMAC_UNIT_TIC;
		break;
	default:
		break;
	}
	return TK_TARMAC_UNIT_NONE;
}

/* powers of ten from each SI unit down to ps */
static int exp_to_ps(tk_tarmac_unit u)
{
	switch (u) {
	case TK_TARMAC_UNIT_PS: return 0;
	case TK_TARMAC_UNIT_NS: return 3;
	case TK_TARMAC_UNIT_US: return 6;
	case TK_TARMAC_UNIT_MS: return 9;
	case TK_TARMAC_UNIT_S: return 12;
	default: return -1;
	}
}

/*
 * A stamp at p: "315760 ns", "271ns", "10.356000us".  Returns 1 with *pp
 * past it, 0 when p does not start a stamp, or a negative status / SKIP
 * for a stamp that cannot be read.
 */
static int parse_stamp(tk_tarmac *tr, const char *line, const char **pp,
		       const char *end, tk_tarmac_record *rec, tk_error *err)
{
	const char *p = *pp, *num = p, *frac = NULL, *fe = NULL, *u, *ue;
	const char *lim = end - p > 19 ? p + 19 : end;
	uint64_t v = 0, f = 0;
	tk_tarmac_unit unit;
	int nf = 0, x;
	unsigned d0;

	/* 19 digits always fit: the overflow test only from the 20th on */
	while (p < lim && (d0 = (unsigned)(unsigned char)*p - '0') < 10) {
		v = v * 10 + d0;
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return bad(tr, err, W_MALFORMED, line, num,
				   "time stamp too large", num, tok_end(num, end));
		v = v * 10 + d;
		p++;
	}
	if (p < end && *p == '.') {
		frac = ++p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		fe = p;
		nf = (int)(fe - frac);
	}
	u = skip_blank(p, end);
	ue = u;
	while (ue < end && ((*ue | 0x20) >= 'a' && (*ue | 0x20) <= 'z'))
		ue++;
	if (ue == u || (ue < end && !is_blank(*ue)))
		return 0;       /* not a stamp: "00004010  3e000a73" */
	unit = unit_of(u, ue);
	if (unit == TK_TARMAC_UNIT_NONE) {
		if (tr->prev_ldst && !frac)
			return 0;
		return bad(tr, err, W_UNIT, line, u, "unknown time unit", u, ue);
	}
	if (frac) {
		int e = exp_to_ps(unit), k;
		if (e < 0 || nf > e)
			return bad(tr, err, W_MALFORMED, line, num,
				   "fractional time that cannot be scaled exactly",
				   num, ue);
		for (k = 0; k < nf; k++)
			f = f * 10 + (uint64_t)(frac[k] - '0');
		for (x = 0; x < e; x++) {
			if (v > UINT64_MAX / 10)
				goto range;
			v *= 10;
		}
		for (x = nf; x < e; x++)
			f *= 10;
		if (v > UINT64_MAX - f)
			goto range;
		v += f;
		unit = TK_TARMAC_UNIT_PS;
	}
	rec->time = v;
	rec->unit = unit;
	rec->own_time = 1;
	tr->time = v;
	tr->unit = unit;
	*pp = skip_blank(ue, end);
	return 1;
range:
	return bad(tr, err, W_MALFORMED, line, num, "time stamp too large",
		   num, ue);
}

/* ---- the line kinds ------------------------------------------------------------ */

/* The rest of a line, trailing blanks cut. */
static void rest_of(const char *p, const char *end, tk_tarmac_span *s)
{
	while (end > p && is_blank(end[-1]))
		end--;
	s->ptr = p;
	s->len = (size_t)(end - p);
}

static int iset_token(const char *p, const char *e, int *iset, unsigned *bits)
{
	size_t n = (size_t)(e - p);

	*bits = 0;
	if (n == 1 && (*p == 'A' || *p == 'T' || *p == 'O' || *p == 'X')) {
		*iset = *p;
		return 1;
	}
	if (n == 3 && p[0] == 'T' && ((p[1] == '1' && p[2] == '6') ||
				      (p[1] == '3' && p[2] == '2'))) {
		*iset = 'T';
		*bits = p[1] == '1' ? 16 : 32;
		return 2;
	}
	return 0;
}

static int parse_opcode(const char *p, const char *e, tk_tarmac_record *rec)
{
	const char *q;

	if (e - p == 8) {
		for (q = p; q < e && *q == '-'; q++)
			;
		if (q == e)
			return 0; /* fetch failed: not known */
	}
	if (parse_hex(p, e, &rec->opcode) < 0 || e - p > 8)
		return -1;
	rec->opcode_bits = e - p <= 4 ? 16 : 32;
	return 0;
}

/* "mode : disasm", "mode: disasm", ": disasm", "mode:" */
static int mode_and_disasm(const char *p, const char *end,
			   tk_tarmac_record *rec)
{
	const char *e;

	p = skip_blank(p, end);
	if (p < end && *p != ':') {
		e = p;
		while (e < end && !is_blank(*e) && *e != ':')
			e++;
		rec->mode.ptr = p;
		rec->mode.len = (size_t)(e - p);
		p = skip_blank(e, end);
	}
	if (p == end || *p != ':')
		return -1;
	p = skip_blank(p + 1, end);
	if (end - p >= 6 && memcmp(p, "CCFAIL", 6) == 0 &&
	    (end - p == 6 || is_blank(p[6]))) {
		rec->executed = 0;
		p = skip_blank(p + 6, end);
	}
	rest_of(p, end, &rec->disasm);
	return 0;
}

static void set_mnemonic(tk_tarmac_record *rec)
{
	const char *p = rec->disasm.ptr, *e = p + rec->disasm.len;

	if (!p)
		return;
	rec->mnemonic.ptr = p;
	rec->mnemonic.len = (size_t)(tok_end(p, e) - p);
}

/* The count or tag between parentheses: "(12)", "(000007e8:0000247c)". */
static int paren(const char *p, const char *end, const char **in,
		 const char **ine, const char **after)
{
	const char *c;

	if (p == end || *p != '(')
		return -1;
	c = find_byte(p, end, ')');
	if (!c)
		return -1;
	*in = p + 1;
	*ine = c;
	*after = skip_blank(c + 1, end);
	return 0;
}

/* IT IS IF IE IA */
static int instr_i(tk_tarmac *tr, const char *line, const char *p,
		   const char *end, tk_tarmac_record *rec, tk_error *err)
{
	const char *tin = NULL, *tine = NULL, *t1, *t1e, *t2, *t2e, *t3, *t3e;
	int iset = 0, fm = 0;
	unsigned bits = 0;

	rec->kind = TK_TARMAC_INSTRUCTION;
	rec->status = line[rec->column];
	rec->executed = rec->status != 'S' && rec->status != 'E';
	if (rec->status == 'A')
		rec->iset = 'A';
	if (p < end && *p == '(' && paren(p, end, &tin, &tine, &p) < 0)
		goto malformed;
	t1 = p;
	t1e = tok_end(t1, end);
	t2 = skip_blank(t1e, end);
	t2e = tok_end(t2, end);
	if (t1 == t1e || t2 == t2e)
		goto malformed;
	if (tin && iset_token(t2, t2e, &iset, &bits) == 1) {
		/* "IT (address) opcode O mode : disasm" */
		if (parse_addr(tin, tine, rec) < 0 || parse_opcode(t1, t1e, rec) < 0)
			goto malformed;
		rec->iset = iset;
		if (mode_and_disasm(t2e, end, rec) < 0)
			goto malformed;
		tr->seen |= SEEN_FM;
		set_mnemonic(rec);
		return TK_OK;
	}
	if (tin) {
		const char *c = find_byte(tin, tine, ':');
		uint64_t n;
		if (c) {        /* (addr:count) */
			if (parse_hex(c + 1, tine, &rec->count) < 0)
				goto malformed;
		} else {        /* (count) */
			for (n = 0; tin < tine && *tin >= '0' && *tin <= '9'; tin++)
				n = n * 10 + (uint64_t)(*tin - '0');
			if (tin != tine)
				goto malformed;
			rec->count = n;
			fm = 1;
		}
	}
	if (parse_addr(t1, t1e, rec) < 0 || parse_opcode(t2, t2e, rec) < 0)
		goto malformed;
	t3 = skip_blank(t2e, end);
	t3e = tok_end(t3, end);
	switch (iset_token(t3, t3e, &iset, &bits)) {
	case 2: /* T16 / T32: the Cortex-M text */
		rec->iset = 'T';
		rec->opcode_bits = bits;
		rest_of(skip_blank(t3e, end), end, &rec->disasm);
		tr->seen |= SEEN_M;
		break;
	case 1:
		rec->iset = iset;
		if (iset == 'X') { /* unknown encoding: the Cortex-M text */
			if (rec->status == 'A')
				rec->iset = 'A';
			rest_of(skip_blank(t3e, end), end, &rec->disasm);
			tr->seen |= SEEN_M;
			break;
		}
		if (mode_and_disasm(t3e, end, rec) < 0)
			goto malformed;
		tr->seen |= SEEN_FM;
		break;
	default:
		/* Cortex-M0 RTL: no instruction-set field */
		if (fm)
			goto malformed;
		rest_of(t3, end, &rec->disasm);
		tr->seen |= SEEN_M;
	}
	set_mnemonic(rec);
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
		   "malformed instruction line", NULL, NULL);
}

/* EXC [0x00] Reset, EXC Reset */
static int exc(tk_tarmac *tr, const char *line, const char *p, const char *end,
	       tk_tarmac_record *rec, tk_error *err)
{
	rec->kind = TK_TARMAC_EVENT;
	rec->exception_number = -1;
	if (p < end && *p == '[') {
		const char *c = memchr(p, ']', (size_t)(end - p)), *q = p + 1;
		uint64_t n = 0;
		if (!c)
			goto malformed;
		if (c - q > 2 && q[0] == '0' && (q[1] | 0x20) == 'x') {
			if (parse_hex(q + 2, c, &n) < 0)
				goto malformed;
		} else {
			if (q == c)
				goto malformed;
			for (; q < c; q++) {
				if (*q < '0' || *q > '9')
					goto malformed;
				n = n * 10 + (uint64_t)(*q - '0');
				if (n > 0xffff)
					goto malformed;
			}
		}
		if (n > 0xffff)
			goto malformed;
		rec->exception_number = (int)n;
		p = skip_blank(c + 1, end);
	}
	rest_of(p, end, &rec->name);
	rec->text = rec->name;
	if (!rec->name.len)
		goto malformed;
	tr->seen |= SEEN_REV3T;
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
		   "malformed exception line", NULL, NULL);
}

/* ES (addr:opcode) T mode: disasm | ES EXC ... | ES Reset */
static int es(tk_tarmac *tr, const char *line, const char *p, const char *end,
	      tk_tarmac_record *rec, tk_error *err)
{
	const char *in, *ine, *c, *t, *te;
	unsigned bits;
	int iset;

	tr->seen |= SEEN_REV3T;
	if (p < end && *p == '(') {
		rec->kind = TK_TARMAC_INSTRUCTION;
		rec->status = 'T';
		rec->executed = 1;
		if (paren(p, end, &in, &ine, &p) < 0)
			goto malformed;
		c = memchr(in, ':', (size_t)(ine - in));
		if (!c || parse_hex(in, c, &rec->address) < 0 ||
		    parse_opcode(c + 1, ine, rec) < 0)
			goto malformed;
		rec->has_address = 1;
		t = p;
		te = tok_end(t, end);
		if (iset_token(t, te, &iset, &bits) != 1 || iset == 'X')
			goto malformed;
		rec->iset = iset;
		if (mode_and_disasm(te, end, rec) < 0)
			goto malformed;
		if (!rec->opcode_bits) {
			/* "--------": the fetch failed, nothing executed (a
			 * prefetch abort, as an IE line) */
			rec->executed = 0;
			rec->status = 'E';
		} else if (!rec->executed) {
			rec->status = 'S';
		}
		set_mnemonic(rec);
		return TK_OK;
	}
	te = tok_end(p, end);
	if (tok_is(p, te, "EXC")) {
		rec->kind_text.ptr = p;
		rec->kind_text.len = 3;
		return exc(tr, line, skip_blank(te, end), end, rec, err);
	}
	if (p == te)
		goto malformed;
	/* Cortex-A53 RTL: "ES  Reset", an EXC line follows */
	rec->kind = TK_TARMAC_EVENT;
	rec->exception_number = -1;
	rest_of(p, end, &rec->name);
	rec->text = rec->name;
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
		   "malformed ES line", NULL, NULL);
}

/* R name [(qual)] value [words] [(qual) | flags] */
static int reg(tk_tarmac *tr, const char *line, const char *p, const char *end,
	       tk_tarmac_record *rec, tk_error *err)
{
	const char *n = p, *ne = tok_end(p, end), *v, *ve, *q;

	rec->kind = TK_TARMAC_REGISTER;
	if (n == ne)
		goto malformed;
	p = skip_blank(ne, end);
	/* cache and TLB maintenance: "R DC CISW", "R TLBI ALLE3" */
	if ((tok_is(n, ne, "DC") || tok_is(n, ne, "IC") || tok_is(n, ne, "TLBI") ||
	     tok_is(n, ne, "AT")) && p < end) {
		const char *oe = tok_end(p, end);
		if (!all_hex(p, oe)) {
			ne = oe;
			p = skip_blank(oe, end);
		}
	}
	rec->reg.ptr = n;
	rec->reg.len = (size_t)(ne - n);
	if (p < end && *p == '(') {
		q = tok_end(p, end);
		if (q[-1] != ')')
			goto malformed;
		rec->qualifier.ptr = p;
		rec->qualifier.len = (size_t)(q - p);
		p = skip_blank(q, end);
	}
	v = p;
	ve = v;
	while (p < end) {
		const char *te;
		/* a word of value characters (a blank is none) */
		for (te = p; te < end && value_char(*te); te++)
			;
		if ((te < end && !is_blank(*te)) || (p != v && te - p < 8))
			break;
		ve = te;
		p = skip_blank(te, end);
	}
	if (ve == v)
		goto malformed;
	rec->value.ptr = v;
	rec->value.len = (size_t)(ve - v);
	/* a value with ':' is not known: value_of() says so */
	value_of(v, ve, &rec->reg_value, &rec->value_known);
	if (p < end) {
		const char *te = tok_end(p, end);
		if (skip_blank(te, end) != end)
			goto malformed;
		if (!(*p == '(' && te[-1] == ')')) {
			for (q = p; q < te; q++)
				if (!in_set("NZCVQGE_", *q))
					goto malformed;
		}
		rec->qualifier.ptr = p;
		rec->qualifier.len = (size_t)(te - p);
	}
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
		   "malformed register line", NULL, NULL);
}

/* E name [args] | E addr ... CoreEvent_Name */
static int event_e(tk_tarmac *tr, const char *line, const char *p,
		   const char *end, tk_tarmac_record *rec, tk_error *err)
{
	const char *t = p, *te = tok_end(p, end), *last = p, *laste = te, *c;

	rec->kind = TK_TARMAC_EVENT;
	rec->exception_number = -1;
	rest_of(p, end, &rec->text);
	if (t == te)
		return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
			   "event line without a description", NULL, NULL);
	c = find_byte(t, te, ':');
	if (te - t >= 8 && all_hex(t, c ? c : te)) {
		/* Fast Models: "E addr [mode] value CoreEvent_X" */
		parse_addr(t, te, rec);
		for (p = skip_blank(te, end); p < end; p = skip_blank(laste, end)) {
			last = p;
			laste = tok_end(p, end);
		}
		rec->name.ptr = last;
		rec->name.len = (size_t)(laste - last);
		if (laste - last > 10 && memcmp(last, "CoreEvent_", 10) == 0)
			tr->seen |= SEEN_FMONLY;
		return TK_OK;
	}
	rec->name.ptr = t;
	rec->name.len = (size_t)(te - t);
	if (tok_is(t, te, "INT_TAKEN")) {
		uint64_t n;
		const char *a = skip_blank(te, end), *ae = tok_end(a, end);
		if (parse_hex(a, ae, &n) == 0 && n <= 0xffff)
			rec->exception_number = (int)n;
	}
	return TK_OK;
}

/* address and data after a memory or bus kind token */
static int addr_data(const char *p, const char *end, tk_tarmac_record *rec,
		     int allow_transfer)
{
	const char *a = p, *ae = tok_end(p, end), *d, *x;

	if (allow_transfer && a < end && *a == '(') { /* (addr:count) of Cortex-R5 */
		const char *in, *ine;
		if (paren(a, end, &in, &ine, &a) < 0)
			return -1;
		ae = tok_end(a, end);
	}
	if (allow_transfer && tok_is(a, ae, "TRANSFER")) {
		rec->has_address = 0;
	} else if (parse_addr(a, ae, rec) < 0) {
		return -1;
	}
	d = skip_blank(ae, end);
	if (d < end && *d == '(' && tok_is(d, tok_end(d, end), "(ABORTED)")) {
		rec->aborted = 1;
		return skip_blank(tok_end(d, end), end) == end ? 0 : -1;
	}
	if (d == end)
		return -1;
	for (x = d; x < end; x++)
		if (!value_char(*x) && !is_blank(*x))
			return -1;
	rest_of(d, end, &rec->data);
	value_of(rec->data.ptr, rec->data.ptr + rec->data.len, &rec->data_value,
		 &rec->data_known);
	return 0;
}

static int size_digits(const char *p, const char *e, unsigned *size)
{
	if (e - p == 1 && (*p == '1' || *p == '2' || *p == '4' || *p == '8')) {
		*size = (unsigned)(*p - '0');
		return 0;
	}
	if (e - p == 2 && p[0] == '1' && p[1] == '6') {
		*size = 16;
		return 0;
	}
	return -1;
}

/*
 * M and B kind tokens: "MR4", "MW16" (Fast Models), "MR4_I" (Cortex-M0),
 * "MNW1___D", "BNR4O__I" (the spec's seven attribute letters).
 */
static int mem_bus(tk_tarmac *tr, const char *line, const char *t,
		   const char *te, const char *end, tk_tarmac_record *rec,
		   tk_error *err)
{
	size_t n = (size_t)(te - t);
	const char *p = skip_blank(te, end);
	int spec = 0;

	rec->kind = *t == 'B' ? TK_TARMAC_BUS : TK_TARMAC_MEMORY;
	if (n == 8 && in_set("NSC", t[1]) && (t[2] == 'R' || t[2] == 'W') &&
	    size_digits(t + 3, t + 4, &rec->size) == 0 &&
	    (t[4] == 'O' || t[4] == '_') && (t[5] == 'L' || t[5] == '_') &&
	    (t[6] == 'S' || t[6] == '_') &&
	    in_set(*t == 'B' ? "IDS_" : "IDASR_", t[7])) {
		spec = 1;
		rec->seq = t[1];
		rec->write = t[2] == 'W';
		rec->opcode_fetch = t[4] == 'O';
		rec->locked = t[5] == 'L';
		rec->speculative = t[6] == 'S';
		rec->port = t[7];
		tr->seen |= SEEN_M;
	} else if (*t == 'M' && n >= 3 && (t[1] == 'R' || t[1] == 'W')) {
		const char *u = find_byte(t, te, '_');
		rec->write = t[1] == 'W';
		if (size_digits(t + 2, u ? u : te, &rec->size) < 0)
			goto unknown;
		if (u) {        /* MR4_I */
			if (te - u != 2 || !in_set("IDA", u[1]))
				goto unknown;
			rec->port = u[1];
			tr->seen |= SEEN_M;
		} else {
			tr->seen |= SEEN_FM;
		}
	} else {
		goto unknown;
	}
	if (addr_data(p, end, rec, spec && *t == 'M') < 0)
		return bad(tr, err, W_MALFORMED, line, p,
			   rec->kind == TK_TARMAC_BUS ? "malformed bus line"
						      : "malformed memory line",
			   NULL, NULL);
	/* the data-bus lines of the spec's form (Cortex-M4 RTL, "MNW4___D")
	 * write the bytes in memory order, lowest address first: the value
	 * of a little-endian access is them reversed */
	if (spec && *t == 'M' && t[7] == 'D' && rec->data_known &&
	    rec->size >= 2 && rec->size <= 8) {
		uint64_t v = rec->data_value, r = 0;
		unsigned i;
		for (i = 0; i < rec->size; i++, v >>= 8)
			r = r << 8 | (v & 0xff);
		rec->data_value = r;
	}
	return TK_OK;
unknown:
	return bad(tr, err, W_UNKNOWN_KIND, line, t, "unknown line kind", t, te);
}

/*
 * Text Rev 3t LD / ST: "LD addr  lanes... [S:pa] attrs".  Lanes show 16
 * bytes from addr (aligned), highest address first; ".." marks a byte not
 * accessed, "##" one whose value is not shown.  A record is one access:
 * a run of bytes accessed with no ".." between them, its address the
 * run's lowest and its data the run's text.  Lanes with gaps give one
 * record per run, highest address first (as Arm's tools read them); the
 * runs after the first come from tk_tarmac_next() before the next line.
 */
static void ldst_run(tk_tarmac_record *rec, uint64_t base, unsigned shown,
		     const struct tarmac_run *r)
{
	unsigned n = r->lo_at - r->hi_at + 1;

	/* byte k of the lanes (0: the first shown) is at base + shown - 1 - k */
	rec->address = base + shown - 1 - r->lo_at;
	rec->size = n;
	rec->data.ptr = r->p;
	rec->data.len = (size_t)(r->e - r->p);
	rec->data_value = r->v;
	rec->data_known = n <= 8 && !r->unknown;
}

static int ldst(tk_tarmac *tr, const char *line, const char *p,
		const char *end, tk_tarmac_record *rec, tk_error *err)
{
	const char *a = p, *ae = tok_end(p, end), *l, *le = NULL;
	struct tarmac_run *run = tr->split.run, *r = NULL;
	unsigned nlanes = 0, nruns = 0, pos = 0;
	uint64_t base;

	rec->kind = TK_TARMAC_MEMORY;
	if (parse_hex(a, ae, &base) < 0)
		goto malformed;
	rec->address = base;
	rec->has_address = 1;
	for (l = skip_blank(ae, end); l < end; l = skip_blank(le, end)) {
		const char *x;
		le = tok_end(l, end);
		if (le - l != 8 || nlanes == 4)
			break;
		for (x = l; x < le; x++)
			if (hexval(*x) < 0 && *x != '.' && *x != '#')
				break;
		if (x != le)
			break;
		for (x = l; x < le; x += 2) {
			unsigned at = pos + (unsigned)(x - l) / 2;
			if (x[0] == '.' && x[1] == '.') {
				r = NULL;     /* a gap ends the run */
				continue;
			}
			if (x[0] == '.' || x[1] == '.')
				goto malformed;
			if (!r) {
				/* at most 8 runs in 16 bytes */
				r = &run[nruns++];
				r->hi_at = at;
				r->p = x;
				r->unknown = 0;
				r->v = 0;
			}
			r->lo_at = at;
			r->e = x + 2;
			if (x[0] == '#' || x[1] == '#')
				r->unknown = 1;
			else
				r->v = r->v << 8 |
				       (uint64_t)(hexval(x[0]) << 4 | hexval(x[1]));
		}
		nlanes++;
		pos += 4;
	}
	if (!nlanes)
		goto malformed;
	if (nruns) {
		ldst_run(rec, base, pos, &run[0]);
	} else {
		/* nothing accessed: the lanes' base, size 0, the lanes' text */
		rec->data.ptr = skip_blank(ae, end);
		rec->data.len = (size_t)(le - rec->data.ptr);
	}
	if (l < end) {
		le = tok_end(l, end);
		rec->phys.ptr = l;
		rec->phys.len = (size_t)(le - l);
		rest_of(skip_blank(le, end), end, &rec->text);
	}
	if (nruns > 1) {
		tr->split.rec = *rec;
		tr->split.base = base;
		tr->split.shown = pos;
		tr->split.n = nruns;
		tr->split.next = 1;
	}
	tr->seen |= SEEN_REV3T;
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, a, "malformed LD/ST line", NULL,
		   NULL);
}

/* BR (addr) [A|T|O]; FD (n) from to [A|T|O] */
static int branch(tk_tarmac *tr, const char *line, const char *p,
		  const char *end, tk_tarmac_record *rec, int fd, tk_error *err)
{
	const char *in, *ine, *t, *te;
	unsigned bits;

	rec->kind = TK_TARMAC_BRANCH;
	if (paren(p, end, &in, &ine, &p) < 0)
		goto malformed;
	if (fd) {
		uint64_t from;
		t = p;
		te = tok_end(t, end);
		if (parse_hex(t, te, &from) < 0 || parse_hex(in, ine, &rec->count) < 0)
			goto malformed;
		p = skip_blank(te, end);
		te = tok_end(p, end);
		if (parse_hex(p, te, &rec->address) < 0)
			goto malformed;
		rec->has_address = 1;
		p = skip_blank(te, end);
		tr->seen |= SEEN_FMONLY | SEEN_FM;
	} else {
		if (parse_hex(in, ine, &rec->address) < 0)
			goto malformed;
		rec->has_address = 1;
		tr->seen |= SEEN_REV3T;
	}
	if (p < end) {
		te = tok_end(p, end);
		if (iset_token(p, te, &rec->iset, &bits) != 1 ||
		    skip_blank(te, end) != end)
			goto malformed;
	}
	return TK_OK;
malformed:
	return bad(tr, err, W_MALFORMED, line, line + rec->column - 1,
		   "malformed branch line", NULL, NULL);
}

/* "R08 addr data", "W04 X addr data" */
static int mem_short(tk_tarmac *tr, const char *line, const char *t,
		     const char *end, tk_tarmac_record *rec, tk_error *err)
{
	const char *p = skip_blank(t + 3, end), *te = tok_end(p, end);

	rec->kind = TK_TARMAC_MEMORY;
	rec->write = t[0] == 'W';
	rec->size = (unsigned)((t[1] - '0') * 10 + (t[2] - '0'));
	if (te - p == 1 && ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') &&
	    hexval(*p) < 0)
		p = skip_blank(te, end); /* an attribute letter */
	if (addr_data(p, end, rec, 0) < 0)
		return bad(tr, err, W_MALFORMED, line, p, "malformed memory line",
			   NULL, NULL);
	return TK_OK;
}

static inline void clear_record(tk_tarmac_record *rec)
{
	tk_scan_zero(rec, sizeof(*rec));
}

/*
 * The stamp and CPU prefix of the last line that had one, as written
 * ("   250 clk cpu0"), and what they gave: lines of one time step share it
 * (an instruction and its register and memory lines), so the next line that
 * starts with the same bytes and a blank takes the figures without parsing
 * them again.  What a prefix gives depends on its bytes only.
 */
static inline int same_prefix(const tk_tarmac *tr, const char *line,
			      const char *end)
{
	size_t n = tr->pfx_len;

	if (!n || (size_t)(end - line) <= n || !is_blank(line[n]))
		return 0;
#if TK_SCAN_SIMD
	/* 32 bytes compared at once ("4294967000 clk cluster0.cpu1") */
	if (n <= 32 && end - line >= 32) {
		uint32_t m = tk_scan_same16(line, tr->pfx);
		uint32_t want = n == 32 ? 0xffffffffu : (1u << n) - 1;
		m |= tk_scan_same16(line + 16, tr->pfx + 16) << 16;
		return (m & want) == want;
	}
#endif
	return memcmp(line, tr->pfx, n) == 0;
}

static int parse_line(tk_tarmac *tr, const char *line, const char *end,
		      tk_tarmac_record *rec, tk_error *err)
{
	const char *p, *t, *te, *n;
	uint32_t cpu = 0;
	int rc, ldst_prev = tr->prev_ldst;

	if (same_prefix(tr, line, end) &&
	    (p = skip_blank(line + tr->pfx_len, end)) < end) {
		clear_record(rec);
		rec->line = tr->line;
		rec->raw.ptr = line;
		rec->raw.len = (size_t)(end - line);
		rec->time = tr->time = tr->pfx_time;
		rec->unit = tr->unit = tr->pfx_unit;
		rec->own_time = 1;
		tr->prev_ldst = 0;
		t = p;
		te = tok_end(t, end);
		if (tr->pfx_cpu)
			cpu = tr->pfx_cpu;
		else
			goto cpu_token;
		goto kind;
	}
	p = skip_blank(line, end);
	if (p == end || *p == '#')
		return SKIP;
	clear_record(rec);
	rec->line = tr->line;
	rec->raw.ptr = line;
	rec->raw.len = (size_t)(end - line);
	rec->time = tr->time;
	rec->unit = tr->unit;
	if (*p >= '0' && *p <= '9') {
		rc = parse_stamp(tr, line, &p, end, rec, err);
		if (rc < 0 || rc == SKIP)
			return rc;
	}
	tr->prev_ldst = 0;
	t = p;
	te = tok_end(t, end);
	if (rec->own_time) {
		/* remember the stamp (and below the CPU) for the next line */
		const char *pe = p;
		while (pe > line && is_blank(pe[-1]))
			pe--;
		tr->pfx_len = 0;
		if ((size_t)(pe - line) <= sizeof(tr->pfx)) {
			memcpy(tr->pfx, line, (size_t)(pe - line));
			tr->pfx_len = (size_t)(pe - line);
			tr->pfx_time = rec->time;
			tr->pfx_unit = rec->unit;
			tr->pfx_cpu = 0;
		}
	}
cpu_token:
	if (rec->own_time && is_cpu_token(t, te)) {
		n = skip_blank(te, end);
		if (n < end) {
			rc = cpu_index(tr, t, (size_t)(te - t), end, &cpu, err);
			if (rc < 0)
				return rc;
			tr->seen |= SEEN_CPU;
			/* the prefix runs to the end of the CPU token */
			if (tr->pfx_len && line + tr->pfx_len <= t &&
			    (size_t)(te - line) <= sizeof(tr->pfx)) {
				memcpy(tr->pfx, line, (size_t)(te - line));
				tr->pfx_len = (size_t)(te - line);
				tr->pfx_cpu = cpu;
			} else {
				tr->pfx_len = 0;
			}
			t = n;
			te = tok_end(t, end);
		}
	}
kind:
	if (t == te)
		return bad(tr, err, W_UNKNOWN_KIND, line, t,
			   "time stamp without a record", NULL, NULL);
	rec->cpu = cpu;
	rec->column = (uint32_t)(t - line) + 1;
	rec->kind_text.ptr = t;
	rec->kind_text.len = (size_t)(te - t);
	p = skip_blank(te, end);
	switch (te - t) {
	case 1:
		if (*t == 'R')
			return reg(tr, line, p, end, rec, err);
		if (*t == 'E')
			return event_e(tr, line, p, end, rec, err);
		break;
	case 2:
		if (t[0] == 'I' && (t[1] == 'T' || t[1] == 'S' || t[1] == 'F' ||
				    t[1] == 'E' || t[1] == 'A'))
			return instr_i(tr, line, p, end, rec, err);
		if (t[0] == 'E' && t[1] == 'S')
			return es(tr, line, p, end, rec, err);
		if ((t[0] == 'L' && t[1] == 'D') || (t[0] == 'S' && t[1] == 'T')) {
			tr->prev_ldst = t[0];
			rec->write = t[0] == 'S';
			return ldst(tr, line, p, end, rec, err);
		}
		if (t[0] == 'B' && t[1] == 'R')
			return branch(tr, line, p, end, rec, 0, err);
		if (t[0] == 'F' && t[1] == 'D')
			return branch(tr, line, p, end, rec, 1, err);
		break;
	case 3:
		if (tok_is(t, te, "EXC"))
			return exc(tr, line, p, end, rec, err);
		if ((t[0] == 'R' || t[0] == 'W') && t[1] >= '0' && t[1] <= '9' &&
		    t[2] >= '0' && t[2] <= '9')
			return mem_short(tr, line, t, end, rec, err);
		break;
	default:
		break;
	}
	if (*t == 'M' || (*t == 'B' && te - t == 8))
		return mem_bus(tr, line, t, te, end, rec, err);
	if (tok_is(t, te, "CADI") || tok_is(t, te, "SIGNAL:") ||
	    tok_is(t, te, "INFO_EXCEPTION_REASON:")) {
		rec->kind = TK_TARMAC_EVENT;
		rec->exception_number = -1;
		tr->seen |= SEEN_FMONLY | SEEN_FM;
		if (*t == 'C') {
			const char *e = tok_end(p, end);
			if (!tok_is(p, e, "E"))
				goto unknown;
			p = skip_blank(e, end);
			rec->name.ptr = p;
			rec->name.len = (size_t)(tok_end(p, end) - p);
			if (!rec->name.len)
				goto unknown;
		} else {
			rec->name.ptr = t;
			rec->name.len = (size_t)(te - t - 1);
		}
		rest_of(p, end, &rec->text);
		return TK_OK;
	}
	if (tok_is(t, te, "CACHE") || (tok_is(t, te, "Tarmac") && !rec->own_time)) {
		rec->kind = TK_TARMAC_OTHER;
		rest_of(t, end, &rec->text);
		rec->name.ptr = t;
		rec->name.len = (size_t)(te - t);
		if (*t == 'C')
			tr->seen |= SEEN_FMONLY | SEEN_FM;
		else
			tr->seen |= SEEN_REV3T;
		return TK_OK;
	}
	/* an LD/ST continuation line: the address, with no kind token */
	if (ldst_prev && !rec->own_time && all_hex(t, te)) {
		tr->prev_ldst = ldst_prev;
		rec->write = ldst_prev == 'S';
		rec->kind_text.ptr = ldst_prev == 'S' ? "ST" : "LD";
		rec->kind_text.len = 2;
		return ldst(tr, line, t, end, rec, err);
	}
unknown:
	return bad(tr, err, W_UNKNOWN_KIND, line, t, "unknown line kind", t, te);
}

/* ---- the stream ---------------------------------------------------------------- */

/* An error of tk_tarmac_next() (rc < 0; 0: given before): kept, and given
 * again with its message by every later call, which reads no further. */
static TK_NOINLINE int next_failed(tk_tarmac *tr, int rc, tk_error *err)
{
	return tk_err_keep(&tr->failed, &tr->fail_err, rc, err, tr->name,
			   tr->line, "the Tarmac reader stopped at an error");
}

static int tarmac_next(tk_tarmac *tr, tk_tarmac_record *rec, tk_error *err);

int tk_tarmac_next(tk_tarmac *tr, tk_tarmac_record *rec, tk_error *err)
{
	int rc;

	if (TK_UNLIKELY(tr->failed))
		return next_failed(tr, 0, err);
	rc = tarmac_next(tr, rec, err);
	return TK_UNLIKELY(rc < 0) ? next_failed(tr, rc, err) : rc;
}

static int tarmac_next(tk_tarmac *tr, tk_tarmac_record *rec, tk_error *err)
{
	const char *line = NULL;
	size_t len = 0;
	int rc;

	if (TK_UNLIKELY(!tr->lines_ready)) {
		tk_lines_init(&tr->lines, tr->src, tr->cr);
		tr->lines_ready = 1;
	}
	if (tr->split.next < tr->split.n) {
		/* the next run of an LD/ST line with gaps */
		*rec = tr->split.rec;
		ldst_run(rec, tr->split.base, tr->split.shown,
			 &tr->split.run[tr->split.next++]);
		return TK_OK;
	}
	tr->split.n = tr->split.next = 0;
	for (;;) {
		rc = tk_lines_next(&tr->lines, &line, &len, err);
		tr->line = tr->lines.line;
		if (rc != TK_OK)
			return rc;
		rc = parse_line(tr, line, line + len, rec, err);
		if (rc != SKIP)
			return rc;
	}
}

/* ---- the index's hooks (tarmac_index.c) ------------------------------------------ */

int tarmac_seek(tk_tarmac *tr, uint64_t off, uint64_t line, uint64_t time,
		tk_tarmac_unit unit, int prev_ldst, tk_error *err)
{
	int rc;

	if (strcmp(tk_source_transport(tr->src), "file") != 0 ||
	    (tr->lines_ready && !tr->lines.at))
		return tk_err_set(err, TK_E_USAGE, tr->name, 0, 0,
				  "a Tarmac log is read from an index's checkpoint only "
				  "when it is a file, before its first record");
	if (!tr->lines_ready) {
		rc = tk_lines_init_at(&tr->lines, tr->src, off, line, tr->cr, err);
		if (rc < 0) {
			tk_lines_free(&tr->lines);
			return rc;
		}
		tr->lines_ready = 1;
	} else {
		tk_lines_seek(&tr->lines, off, line);
	}
	tr->line = line - 1;
	tr->time = time;
	tr->unit = unit;
	tr->prev_ldst = prev_ldst;
	tr->pfx_len = 0;
	return TK_OK;
}

int tarmac_cpu_add(tk_tarmac *tr, const char *name, size_t len)
{
	return tk_strpool_intern(&tr->cpus, name, len) == TK_NONE ? -1 : 0;
}

void tarmac_where(const tk_tarmac *tr, uint64_t *off, uint64_t *time,
		  tk_tarmac_unit *unit, int *prev_ldst)
{
	*off = tk_lines_offset(&tr->lines);
	*time = tr->time;
	*unit = tr->unit;
	*prev_ldst = tr->prev_ldst;
}

/* ---- open, close, queries ------------------------------------------------------ */

int tarmac_init(tk_tarmac *tr, tk_source *src, int owns_src,
		const tk_tarmac_opts *opts, tk_reader *reader, tk_error *err)
{
	int rc;

	tr->src = src;
	tr->owns_src = owns_src;
	tr->reader = reader;
	if (opts)
		tr->opts = *opts;
	tr->name = tk_source_name(src);
	tk_strpool_init(&tr->cpus);
	/* lines that end with a CR alone are read as lines (the format
	 * does not say how lines end; one line would lose the rest) */
	rc = tk_text_begin(src, err);
	if (rc < 0)
		return rc;
	if (rc) {
		tr->cr = 1;
		warn(tr, W_CR_ONLY, 0, "lines end with a CR alone (read as line ends)");
	}
	return TK_OK;
}

void tarmac_fini(tk_tarmac *tr)
{
	if (tr->lines_ready)
		tk_lines_free(&tr->lines);
	tk_strpool_free(&tr->cpus);
	if (tr->owns_src)
		tk_source_close(tr->src);
}

static int open_on(tk_tarmac **out, tk_source *src, const tk_tarmac_opts *opts,
		   tk_error *err)
{
	tk_tarmac *tr;
	tk_tarmac_opts o;
	int rc;

	if ((rc = tarmac_opts_take(&o, opts, err)) < 0) {
		tk_source_close(src);
		return rc;
	}
	opts = &o;
	tr = calloc(1, sizeof(*tr));
	if (!tr) {
		tk_source_close(src);
		return tk_err_nomem(err, "tarmac");
	}
	rc = tarmac_init(tr, src, 1, opts, NULL, err);
	if (rc < 0) {
		tarmac_fini(tr);
		free(tr);
		return rc;
	}
	*out = tr;
	return TK_OK;
}

int tk_tarmac_open(tk_tarmac **out, const char *path,
		   const tk_tarmac_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_open", "out pointer");
	tk_source *src;
	int rc;

	*out = NULL;
	rc = tk_source_open(&src, path, err);
	if (rc < 0)
		return rc;
	return open_on(out, src, opts, err);
}

#ifdef TK_TEST_HOOKS
int tk_tarmac_open_source(tk_tarmac **out, tk_source *src,
			  const tk_tarmac_opts *opts, tk_error *err)
{
	*out = NULL;
	return open_on(out, src, opts, err);
}
#endif

int tk_tarmac_open_mem(tk_tarmac **out, const void *data, size_t len,
		       const char *name, const tk_tarmac_opts *opts,
		       tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_open_mem", "out pointer");
	tk_source *src;
	int rc;

	*out = NULL;
	rc = tk_source_open_mem(&src, data, len, name, err);
	if (rc < 0)
		return rc;
	return open_on(out, src, opts, err);
}

int tk_tarmac_open_input(tk_tarmac **out, tk_input *in,
			 const tk_tarmac_opts *opts, tk_error *err)
{
	if (!out || !in) {
		tk_input_close(in); /* the callee's, also on failure */
		return tk_err_null(err, "tk_tarmac_open_input", !out ? "out pointer" : "input");
	}
	*out = NULL;
	return open_on(out, tk_input_release(in), opts, err);
}

uint64_t tk_tarmac_skipped_count(const tk_tarmac *tr)
{
	return tr->nskipped;
}

uint64_t tk_tarmac_warning_count(const tk_tarmac *tr)
{
	return tr->reader ? tk_reader_warning_count(tr->reader) : tr->nwarn;
}

tk_tarmac_variant tk_tarmac_variant_get(const tk_tarmac *tr)
{
	unsigned s = tr->seen & (SEEN_M | SEEN_FM | SEEN_REV3T);

	if (s == SEEN_M)
		return TK_TARMAC_VARIANT_CORTEX_M;
	if (s == SEEN_FM)
		return (tr->seen & SEEN_CPU) && !(tr->seen & SEEN_FMONLY)
			       ? TK_TARMAC_VARIANT_GEM5
			       : TK_TARMAC_VARIANT_FAST_MODELS;
	if (s == SEEN_REV3T)
		return TK_TARMAC_VARIANT_TEXT_REV3T;
	return s ? TK_TARMAC_VARIANT_MIXED : TK_TARMAC_VARIANT_UNKNOWN;
}

size_t tk_tarmac_cpu_count(const tk_tarmac *tr)
{
	return tr->cpus.count;
}

const char *tk_tarmac_cpu_name(const tk_tarmac *tr, size_t i)
{
	return i < tr->cpus.count ? tr->cpus.ptrs[i] : NULL;
}

const char *tk_tarmac_name(const tk_tarmac *tr)
{
	return tr->name;
}

void tk_tarmac_close(tk_tarmac *tr)
{
	if (!tr)
		return;
	tarmac_fini(tr);
	free(tr);
}
