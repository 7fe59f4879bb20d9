/*
 * tarmac_state.c - the CPU's state at any moment of a Tarmac log
 * (tracekit/tarmac_state.h): the registers the log wrote, the PC per CPU,
 * the bytes of a watched memory range, and where to stop (tk_tarmac_at).
 */
#include "tracekit/tarmac_state.h"

#include "tarmac.h"

#include <stdlib.h>
#include <string.h>

#define WATCH_MAX ((uint64_t)1 << 24)

typedef struct reg_slot {
	tk_tarmac_reg pub;
	char *name;
	char *value;
	size_t cap;               /* of value */
	size_t name_len;
} reg_slot;

struct tk_tarmac_state {
	reg_slot *regs;
	size_t nregs, capregs;
	uint32_t *table;          /* open addressing: index + 1, 0 empty */
	size_t mask;              /* table size - 1 (0: no table yet) */
	size_t changed;           /* the register the last record changed */
	char *old;                /* its value before, when old_known */
	size_t oldcap;
	int old_known;
	char *tmp;                /* the normalised value of a record */
	size_t tmpcap;
	uint64_t *pcs;            /* per cpu: PC + has it (bit in pc_known) */
	uint8_t *pc_known;
	size_t cappcs;
	/* the watched bytes and their copy before the last record */
	uint64_t lo, len;
	uint8_t *bytes, *known, *obytes, *oknown;
	uint64_t *dirty;          /* offsets the last record changed */
	size_t ndirty, capdirty;
	int order;                /* TK_TARMAC_ORDER_* of the data side */
};

int tk_tarmac_state_new(tk_tarmac_state **out, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_state_new", "out pointer");
	*out = calloc(1, sizeof(**out));
	return *out ? TK_OK : tk_err_nomem(err, NULL);
}

void tk_tarmac_state_set_order(tk_tarmac_state *st, int order)
{
	if (st && order >= TK_TARMAC_ORDER_AUTO && order <= TK_TARMAC_ORDER_BE)
		st->order = order;
}

int tk_tarmac_state_watch(tk_tarmac_state *st, uint64_t address, uint64_t len,
			  tk_error *err)
{
	uint8_t *b;

	if (len == 0 || len > WATCH_MAX)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "a watched memory range holds 1 to %llu bytes",
				  (unsigned long long)WATCH_MAX);
	b = calloc(4, (size_t)len);
	if (!b)
		return tk_err_nomem(err, NULL);
	free(st->bytes);
	st->bytes = b;
	st->known = b + len;
	st->obytes = b + 2 * len;
	st->oknown = b + 3 * len;
	st->lo = address;
	st->len = len;
	return TK_OK;
}

void tk_tarmac_state_free(tk_tarmac_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nregs; i++) {
		free(st->regs[i].name);
		free(st->regs[i].value);
	}
	free(st->regs);
	free(st->table);
	free(st->old);
	free(st->tmp);
	free(st->pcs);
	free(st->pc_known);
	free(st->bytes);
	free(st->dirty);
	free(st);
}

size_t tk_tarmac_state_reg_count(const tk_tarmac_state *st)
{
	return st->nregs;
}

const tk_tarmac_reg *tk_tarmac_state_reg(const tk_tarmac_state *st, size_t i)
{
	return i < st->nregs ? &st->regs[i].pub : NULL;
}

size_t tk_tarmac_state_changed_reg(const tk_tarmac_state *st, const char **old)
{
	if (old)
		*old = st->old_known ? st->old : NULL;
	return st->changed;
}

size_t tk_tarmac_state_bytes(const tk_tarmac_state *st, int before,
			     const uint8_t **value, const uint8_t **known)
{
	*value = before ? st->obytes : st->bytes;
	*known = before ? st->oknown : st->known;
	return (size_t)st->len;
}

int tk_tarmac_state_pc(const tk_tarmac_state *st, uint32_t cpu, uint64_t *pc)
{
	if (cpu >= st->cappcs || !st->pc_known[cpu])
		return 0;
	*pc = st->pcs[cpu];
	return 1;
}

/* ---- registers ------------------------------------------------------------------ */

static uint64_t reg_hash(uint32_t cpu, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ cpu;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h ^ h >> 29;
}

static int table_grow(tk_tarmac_state *st)
{
	size_t size = st->mask ? 2 * (st->mask + 1) : 64, i;
	uint32_t *t = calloc(size, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < st->nregs; i++) {
		const reg_slot *r = &st->regs[i];
		size_t j = (size_t)reg_hash(r->pub.cpu, r->name, r->name_len) & (size - 1);
		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = (uint32_t)(i + 1);
	}
	free(st->table);
	st->table = t;
	st->mask = size - 1;
	return 0;
}

/* The register `name` of `cpu`, made when new; NULL when out of memory. */
static reg_slot *reg_get(tk_tarmac_state *st, uint32_t cpu, const char *name,
			 size_t n, int *fresh)
{
	size_t j;
	reg_slot *r;

	*fresh = 0;
	if ((st->nregs + 1) * 2 > st->mask + 1 || !st->table) {
		if (st->nregs >= UINT32_MAX - 1 || table_grow(st) < 0)
			return NULL;
	}
	for (j = (size_t)reg_hash(cpu, name, n) & st->mask; st->table[j];
	     j = (j + 1) & st->mask) {
		r = &st->regs[st->table[j] - 1];
		if (r->pub.cpu == cpu && r->name_len == n && memcmp(r->name, name, n) == 0)
			return r;
	}
	if (st->nregs == st->capregs) {
		size_t cap = st->capregs ? 2 * st->capregs : 32;
		reg_slot *nr = tk_xrealloc_array(st->regs, cap, sizeof(*nr));
		if (!nr)
			return NULL;
		st->regs = nr;
		st->capregs = cap;
	}
	r = &st->regs[st->nregs];
	memset(r, 0, sizeof(*r));
	r->name = malloc(n + 1);
	if (!r->name)
		return NULL;
	memcpy(r->name, name, n);
	r->name[n] = '\0';
	r->name_len = n;
	r->pub.name = r->name;
	r->pub.cpu = cpu;
	st->table[j] = (uint32_t)(st->nregs + 1);
	st->nregs++;
	*fresh = 1;
	return r;
}

static int reserve(char **buf, size_t *cap, size_t n)
{
	char *b;

	if (n <= *cap)
		return 0;
	b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

/*
 * The value of a register record in st->tmp: hex digits in lower case and
 * '-' (separators dropped), *hex 1; else the text as written, *hex 0.
 */
static int normalise(tk_tarmac_state *st, const tk_tarmac_span *v, size_t *n, int *hex)
{
	size_t i, k = 0;

	if (reserve(&st->tmp, &st->tmpcap, v->len + 1) < 0)
		return -1;
	*hex = 1;
	for (i = 0; i < v->len; i++) {
		char c = v->ptr[i];
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-')
			st->tmp[k++] = c;
		else if (c >= 'A' && c <= 'F')
			st->tmp[k++] = (char)(c - 'A' + 'a');
		else if (c != '_' && c != ':' && c != ' ' && c != '\t')
			*hex = 0;
	}
	if (!*hex || k == 0) {
		memcpy(st->tmp, v->ptr, v->len);
		k = v->len;
		*hex = 0;
	}
	st->tmp[k] = '\0';
	*n = k;
	return 0;
}

/* W0 .. W30 (either case) */
static int a64_w(const char *n, size_t len)
{
	if ((n[0] != 'W' && n[0] != 'w') || len < 2 || len > 3 || n[1] < '0' || n[1] > '9')
		return 0;
	if (len == 2)
		return 1;
	return n[2] >= '0' && n[2] <= '9' && (n[1] - '0') * 10 + (n[2] - '0') <= 30;
}

static int reg_record(tk_tarmac_state *st, const tk_tarmac_record *rec)
{
	reg_slot *r;
	size_t n, i, old_len;
	int hex, fresh;

	const char *name = rec->reg.ptr;
	size_t name_len = rec->reg.len;
	char xname[4];

	if (!rec->reg.len)
		return 0;
	if (normalise(st, &rec->value, &n, &hex) < 0)
		return -1;
	/* Wn (AArch64, 32 bits: gem5 writes them) is Xn zero-extended */
	if (hex && n == 8 && a64_w(name, name_len)) {
		if (reserve(&st->tmp, &st->tmpcap, 17) < 0)
			return -1;
		memmove(st->tmp + 8, st->tmp, 9);
		memset(st->tmp, '0', 8);
		n = 16;
		xname[0] = name[0] == 'w' ? 'x' : 'X';
		memcpy(xname + 1, name + 1, name_len - 1);
		name = xname;
	}
	r = reg_get(st, rec->cpu, name, name_len, &fresh);
	if (!r)
		return -1;
	old_len = fresh ? 0 : strlen(r->value);
	/* '-' digits keep what was known at the same width */
	if (hex && r->pub.hex && old_len == n)
		for (i = 0; i < n; i++)
			if (st->tmp[i] == '-')
				st->tmp[i] = r->value[i];
	if (!fresh && r->pub.hex == hex && old_len == n && memcmp(r->value, st->tmp, n) == 0) {
		r->pub.line = rec->line;
		return 0;
	}
	st->old_known = !fresh;
	if (!fresh) {
		if (reserve(&st->old, &st->oldcap, old_len + 1) < 0)
			return -1;
		memcpy(st->old, r->value, old_len + 1);
	}
	if (reserve(&r->value, &r->cap, n + 1) < 0)
		return -1;
	memcpy(r->value, st->tmp, n + 1);
	r->pub.value = r->value;
	r->pub.hex = hex;
	r->pub.line = rec->line;
	st->changed = (size_t)(r - st->regs);
	return TK_TARMAC_CHANGED_REG;
}

/* ---- a checkpoint's state (tarmac_index.c) -------------------------------------- */

void tarmac_state_reset(tk_tarmac_state *st)
{
	size_t i;

	for (i = 0; i < st->nregs; i++) {
		free(st->regs[i].name);
		free(st->regs[i].value);
	}
	st->nregs = 0;
	if (st->table)
		memset(st->table, 0, (st->mask + 1) * sizeof(*st->table));
	st->changed = 0;
	st->old_known = 0;
	if (st->pc_known)
		memset(st->pc_known, 0, st->cappcs);
}

int tarmac_state_put_reg(tk_tarmac_state *st, uint32_t cpu, const char *name,
			 size_t nlen, const char *value, size_t vlen, int hex,
			 uint64_t line)
{
	reg_slot *r;
	int fresh;

	r = reg_get(st, cpu, name, nlen, &fresh);
	if (!r || reserve(&r->value, &r->cap, vlen + 1) < 0)
		return -1;
	memcpy(r->value, value, vlen);
	r->value[vlen] = '\0';
	r->pub.value = r->value;
	r->pub.hex = hex;
	r->pub.line = line;
	return 0;
}

static int pc_set(tk_tarmac_state *st, uint32_t cpu, uint64_t pc)
{
	if (cpu >= st->cappcs) {
		size_t cap = st->cappcs;
		void *pk = st->pc_known;
		if (tk_grow_zero((void **)&st->pcs, &cap, cpu, sizeof(*st->pcs)) < 0)
			return -1;
		cap = st->cappcs;
		if (tk_grow_zero(&pk, &cap, cpu, 1) < 0)
			return -1;
		st->pc_known = pk;
		st->cappcs = cap;
	}
	st->pcs[cpu] = pc;
	st->pc_known[cpu] = 1;
	return 0;
}

int tarmac_state_put_pc(tk_tarmac_state *st, uint32_t cpu, uint64_t pc)
{
	return pc_set(st, cpu, pc);
}

/* ---- memory --------------------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Byte `addr` is `v` (-1: not known, no change); *changed set when it is
 * new, and its offset kept so that the copy before can be made equal
 * again at the next record; -1 when out of memory. */
static int put(tk_tarmac_state *st, uint64_t addr, int v, int *changed)
{
	uint64_t off = addr - st->lo;   /* modulo 2^64: a range may wrap */

	if (off >= st->len || v < 0 || (st->known[off] && st->bytes[off] == (uint8_t)v))
		return 0;
	if (st->ndirty == st->capdirty) {
		size_t cap = st->capdirty ? 2 * st->capdirty : 64;
		uint64_t *d = tk_xrealloc_array(st->dirty, cap, sizeof(*d));
		if (!d)
			return -1;
		st->dirty = d;
		st->capdirty = cap;
	}
	st->dirty[st->ndirty++] = off;
	st->bytes[off] = (uint8_t)v;
	st->known[off] = 1;
	*changed = 1;
	return 0;
}

/* 1 when `rec`'s bytes may meet the watched range */
static int meets(const tk_tarmac_state *st, uint64_t addr, uint64_t size)
{
	uint64_t off = addr - st->lo;

	/* the access starts in the range, or the range starts in the access */
	return off < st->len || st->lo - addr < size;
}

/* The E bit (9, data big-endian) of the CPSR that `cpu` last wrote, in
 * AArch32 state (M[4], bit 4, set: in AArch64 the register holds PSTATE,
 * whose bit 9 is D): 1, or 0 (clear, AArch64, or no CPSR known) */
static int cpsr_e(const tk_tarmac_state *st, uint32_t cpu)
{
	static const char *const names[] = { "cpsr", "CPSR" };
	size_t i, j;

	if (!st->table)
		return 0;
	for (i = 0; i < 2; i++)
		for (j = (size_t)reg_hash(cpu, names[i], 4) & st->mask; st->table[j];
		     j = (j + 1) & st->mask) {
			const reg_slot *r = &st->regs[st->table[j] - 1];
			size_t n;
			if (r->pub.cpu != cpu || r->name_len != 4 || memcmp(r->name, names[i], 4))
				continue;
			n = r->value ? strlen(r->value) : 0;
			return r->pub.hex && n >= 3 && (hexval(r->value[n - 3]) & 2) &&
			       (hexval(r->value[n - 2]) & 1);
		}
	return 0;
}

static int mem_record(tk_tarmac_state *st, const tk_tarmac_record *rec)
{
	const char *d = rec->data.ptr, *e;
	int changed = 0;
	uint64_t i;

	if (!st->len || !rec->has_address || rec->aborted || !rec->size || !d ||
	    !meets(st, rec->address, rec->size))
		return 0;
	e = d + rec->data.len;
	if (rec->kind_text.len == 2 && (rec->kind_text.ptr[0] == 'L' ||
					 rec->kind_text.ptr[0] == 'S') &&
	    rec->kind_text.ptr[1] == (rec->kind_text.ptr[0] == 'L' ? 'D' : 'T')) {
		/* LD/ST lanes, highest address first, the last pair shown at
		 * the lowest address: walk back from it; the first pair that
		 * is not ".." is the record's address */
		uint64_t a = rec->address;
		int started = 0;
		const char *p = e;
		while (p - d >= 2) {
			const char *x = p - 2;
			if (x[1] == ' ' || x[1] == '\t') {
				p--;
				continue;
			}
			if (x[0] == '.' && x[1] == '.') {
				if (started)
					a++;
			} else {
				int hi = hexval(x[0]), lo = hexval(x[1]);
				started = 1;
				if (put(st, a, hi < 0 || lo < 0 ? -1 : hi << 4 | lo, &changed) < 0)
					return -1;
				a++;
			}
			p = x;
		}
	} else if (rec->data_known && rec->size <= 8) {
		/* big-endian: the value's most significant byte at the lowest
		 * address, but for the data-port lines of the spec's form
		 * ("MNW4___D"), whose bytes are in memory order as written
		 * (the record's value is them reversed, tk_tarmac_record) */
		int be = (st->order == TK_TARMAC_ORDER_BE ||
			  (st->order == TK_TARMAC_ORDER_AUTO && cpsr_e(st, rec->cpu))) &&
			 !(rec->kind_text.len == 8 && rec->kind_text.ptr[0] == 'M' &&
			   rec->kind_text.ptr[7] == 'D');
		for (i = 0; i < rec->size; i++)
			if (put(st, rec->address + (be ? rec->size - 1 - i : i),
				(int)(rec->data_value >> (8 * i) & 0xff), &changed) < 0)
				return -1;
	} else {
		/* a value wider than 64 bits: 2 * size digits, the last
		 * pair at the lowest address */
		uint64_t ndig = 0;
		int be;
		const char *p;
		for (p = d; p < e; p++)
			if (hexval(*p) >= 0)
				ndig++;
			else if (*p != '_')
				return 0;
		if (ndig != 2 * (uint64_t)rec->size)
			return 0;
		i = 0;
		be = st->order == TK_TARMAC_ORDER_BE ||
		     (st->order == TK_TARMAC_ORDER_AUTO && cpsr_e(st, rec->cpu));
		for (p = e; p > d && i < rec->size;) {
			int lo, hi;
			while (p > d && p[-1] == '_')
				p--;
			lo = p > d ? hexval(*--p) : -1;
			while (p > d && p[-1] == '_')
				p--;
			hi = p > d ? hexval(*--p) : -1;
			if (lo < 0 || hi < 0)
				return 0;
			if (put(st, rec->address + (be ? rec->size - 1 - i : i),
				hi << 4 | lo, &changed) < 0)
				return -1;
			i++;
		}
	}
	return changed ? TK_TARMAC_CHANGED_MEM : 0;
}

/* ---- the records ---------------------------------------------------------------- */

int tk_tarmac_state_record(tk_tarmac_state *st, const tk_tarmac_record *rec,
			   tk_error *err)
{
	if (!st || !rec)
		return tk_err_null(err, "tk_tarmac_state_record", !st ? "object" : "record");
	int rc = 0;

	/* the copy before the last record: as the bytes are now */
	for (; st->ndirty; st->ndirty--) {
		uint64_t off = st->dirty[st->ndirty - 1];
		st->obytes[off] = st->bytes[off];
		st->oknown[off] = st->known[off];
	}
	switch (rec->kind) {
	case TK_TARMAC_INSTRUCTION:
		if (rec->has_address && pc_set(st, rec->cpu, rec->address) < 0)
			rc = -1;
		break;
	case TK_TARMAC_REGISTER:
		rc = reg_record(st, rec);
		break;
	case TK_TARMAC_MEMORY:
		rc = mem_record(st, rec);
		break;
	default:
		break;
	}
	return rc >= 0 ? rc : tk_err_nomem(err, NULL);
}

/* ---- moments -------------------------------------------------------------------- */

void tk_tarmac_at_init(tk_tarmac_at *at)
{
	memset(at, 0, sizeof(*at));
	at->kind = TK_TARMAC_AT_END;
	at->cpu = UINT32_MAX;
}

/* Femtoseconds per tick of an SI unit, 0 for the others. */
static uint64_t fs_per(tk_tarmac_unit u)
{
	switch (u) {
	case TK_TARMAC_UNIT_FS: return 1;
	case TK_TARMAC_UNIT_PS: return 1000;
	case TK_TARMAC_UNIT_NS: return 1000000;
	case TK_TARMAC_UNIT_US: return 1000000000;
	case TK_TARMAC_UNIT_MS: return 1000000000000ull;
	case TK_TARMAC_UNIT_S: return 1000000000000000ull;
	default: return 0;
	}
}

/* 1 when t (in unit tu) is later than v (in unit vu), -1 incomparable */
int tarmac_later(uint64_t t, tk_tarmac_unit tu, uint64_t v, tk_tarmac_unit vu)
{
	uint64_t ft, fv;

	if (vu == TK_TARMAC_UNIT_NONE || tu == vu || tu == TK_TARMAC_UNIT_NONE)
		return t > v;
	ft = fs_per(tu);
	fv = fs_per(vu);
	if (!ft || !fv)
		return -1;
	/* both powers of 1000: t * ft > v * fv, exactly */
	if (ft >= fv)
		return t > v / (ft / fv);
	/* t * (fv / ft) ... v: t > v * k  <=>  t / k > v (t / k rounded down,
	 * with a remainder the strict inequality holds at equality) */
	{
		uint64_t k = fv / ft, q = t / k;
		return q > v || (q == v && t % k != 0);
	}
}

int tk_tarmac_at_passed(tk_tarmac_at *at, const tk_tarmac_record *rec)
{
	switch (at->kind) {
	case TK_TARMAC_AT_LINE:
		return rec->line > at->value;
	case TK_TARMAC_AT_TIME: {
		int l = tarmac_later(rec->time, rec->unit, at->value, at->unit);
		return l < 0 ? TK_E_RANGE : l;
	}
	case TK_TARMAC_AT_INSTR:
		if (rec->kind != TK_TARMAC_INSTRUCTION ||
		    (at->cpu != UINT32_MAX && rec->cpu != at->cpu))
			return 0;
		if (at->executed >= at->value)
			return 1;
		if (rec->executed)
			at->executed++;
		return 0;
	default:
		return 0;
	}
}
