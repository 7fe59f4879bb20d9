/*
 * tarmac_index.c - the index of an Arm Tarmac log (tracekit/tarmac_state.h,
 * docs/tarmac.md "The index"): checkpoints of the state every `span` bytes,
 * and per span the memory granules and register names it touches.
 *
 * The file, every field little-endian:
 *
 *   header (136 bytes): "TKTARIDX", u32 version (3), u32 header length
 *     (136), u64 log size, u64 log mtime seconds, u64 its nanoseconds,
 *     u64 hash of the log's first 64 KiB, u64 of its last 64 KiB, u64
 *     span, u64 checkpoints (the start included), u64 register names,
 *     u64 CPU names, u64 flags (bit 0: the read warned or skipped a line),
 *     u64 body length, u64 hash of the names and the table, u64 offset of
 *     the first line (after a byte order mark), u64 length of the names
 *     and the table, u64 hash of the 128 bytes before it.
 *   body: the CPU names and the register names (u32 length, bytes each);
 *     the table of checkpoints (104 bytes each: u64 offset of the next
 *     line, its line number, the line of the last record before, u64 time
 *     and u32 unit of the last stamped line, u32 LD/ST state, u64 CPU
 *     names known, u64 hash of the log's bytes around the offset (32
 *     either side), u64 offset and length of the state, of the span's
 *     summary, u64 hash of the state, of the summary); then the
 *     states (u64 executed instructions; u32 n, n u64 executed per record
 *     cpu; u32 mask of the units seen, a u64 latest time per unit of the
 *     mask; u32 PCs, (u32 cpu, u64 pc) each; u32 registers, (u32 cpu, u8
 *     hex, u16 name length, u32 value length, u64 line, name, value) each)
 *     and the summaries (u32 g, the granule's bits: 8-byte granules, or
 *     coarser where a span touches too many of them to list; u32 n, n
 *     u64 granules (address >> g) ascending; u32 n, n u32 register name
 *     ids ascending).
 *
 * Loaded (mapped), the header, the names and the table are checked
 * (magic, version, their hashes, every offset, length, count and order);
 * a checkpoint's state and summary are checked (hash, lengths, counts,
 * order) when a query first uses them, so that a query reads a few of
 * them, not the whole index.  A damaged part is never used nor read out
 * of bounds: the query says so (tk_tarmac_index_damaged()) and the index
 * is built again.  A built index is checked whole, from its bytes.
 */
#define _GNU_SOURCE
#include "tracekit/tarmac_state.h"

#include "tarmac.h"
#include "../../core/bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IX_MAGIC "TKTARIDX"
#define IX_VERSION 3u
#define IX_HEAD 136u
#define IX_ENTRY 104u
#define IX_EDGE ((size_t)64 << 10)    /* bytes hashed at each end of the log */
#define IX_SEAM 32u                   /* bytes hashed either side of a checkpoint */
#define IX_GRAIN 3u                   /* a summary's finest granule: 8 bytes */
#define IX_GRAIN_MAX 63u
/* the granules a summary lists at most: span / IX_GRAINS_PER, or
 * IX_GRAINS_MIN for short spans (more: coarser granules) */
#define IX_GRAINS_PER 128u
#define IX_GRAINS_MIN 256u

typedef struct ix_ckpt {
	uint64_t off, line, last_line, time, ncpus, seam;
	uint32_t unit, prev_ldst;
	/* the state's and the summary's place and hash; checked: 0 not yet,
	 * 1 good, -1 damaged */
	uint64_t so, sl, po, pl, sh, ph;
	int state_ok, span_ok;
	uint64_t total;           /* executed instructions before */
	const uint8_t *exec;      /* nexec u64: per record cpu */
	uint32_t nexec;
	uint32_t umask;
	uint64_t umax[TK_TARMAC_UNIT_COUNT];
	const uint8_t *pcs, *regs;
	uint32_t npcs, nregs;
	const uint8_t *blocks, *ids;
	uint32_t nblocks, nids;
	uint32_t grain;           /* the summary's granule bits */
} ix_ckpt;

typedef struct ix_name {
	const char *p;
	size_t len;
} ix_name;

struct tk_tarmac_index {
	uint8_t *buf;
	size_t len;
	int mapped;               /* buf is a mapping of the file */
	int bad;                  /* a part found damaged */
	uint64_t log_size, span, start;
	int warned;
	ix_name *cpus, *names;
	size_t ncpus, nnames, n;
	ix_ckpt *ck;
};

/* ---- bytes ---------------------------------------------------------------------- */

static uint64_t ix_rotl(uint64_t x, unsigned r)
{
	return x << r | x >> (64 - r);
}

/* 32 bytes a round in four lanes (no multiply waits for the one before),
 * then the 8-byte words and the bytes left in one */
static uint64_t ix_hash(const uint8_t *p, size_t n, uint64_t h)
{
	const uint64_t m = 0xff51afd7ed558ccdull;
	uint64_t w = 0, a, b, c, d;
	size_t i;

	h ^= 0x9e3779b97f4a7c15ull * ((uint64_t)n + 1);
	a = h;
	b = h ^ 0x243f6a8885a308d3ull;
	c = h ^ 0x13198a2e03707344ull;
	d = h ^ 0xa4093822299f31d0ull;
	for (; n >= 32; p += 32, n -= 32) {
		a = (a ^ tk_load_le64(p)) * m;
		b = (b ^ tk_load_le64(p + 8)) * m;
		c = (c ^ tk_load_le64(p + 16)) * m;
		d = (d ^ tk_load_le64(p + 24)) * m;
		a ^= a >> 32;
		b ^= b >> 32;
		c ^= c >> 32;
		d ^= d >> 32;
	}
	h = a ^ ix_rotl(b, 16) ^ ix_rotl(c, 32) ^ ix_rotl(d, 48);
	for (; n >= 8; p += 8, n -= 8) {
		h = (h ^ tk_load_le64(p)) * m;
		h ^= h >> 32;
	}
	for (i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	h = (h ^ w ^ ((uint64_t)n << 56)) * m;
	return h ^ h >> 29;
}

typedef struct obuf {
	uint8_t *p;
	size_t n, cap;
	int fail;
} obuf;

static uint8_t *ob_room(obuf *b, size_t n)
{
	if (b->fail)
		return NULL;
	if (n > b->cap - b->n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *q;
		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2) {
				b->fail = 1;
				return NULL;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->fail = 1;
			return NULL;
		}
		b->p = q;
		b->cap = cap;
	}
	b->n += n;
	return b->p + b->n - n;
}

static void ob_u8(obuf *b, uint8_t v)
{
	uint8_t *q = ob_room(b, 1);
	if (q)
		*q = v;
}

static void ob_u16(obuf *b, uint16_t v)
{
	uint8_t *q = ob_room(b, 2);
	if (q)
		tk_store_le16(q, v);
}

static void ob_u32(obuf *b, uint32_t v)
{
	uint8_t *q = ob_room(b, 4);
	if (q)
		tk_store_le32(q, v);
}

static void ob_u64(obuf *b, uint64_t v)
{
	uint8_t *q = ob_room(b, 8);
	if (q)
		tk_store_le64(q, v);
}

static void ob_bytes(obuf *b, const void *p, size_t n)
{
	uint8_t *q = ob_room(b, n);
	if (q && n)
		memcpy(q, p, n);
}

/* a cursor over [p, end): every read checked */
typedef struct cur {
	const uint8_t *p, *end;
	int bad;
} cur;

static const uint8_t *cu_take(cur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t cu_u32(cur *c)
{
	const uint8_t *p = cu_take(c, 4);
	return p ? tk_load_le32(p) : 0;
}

static uint64_t cu_u64(cur *c)
{
	const uint8_t *p = cu_take(c, 8);
	return p ? tk_load_le64(p) : 0;
}

/* ---- the log's identity --------------------------------------------------------- */

typedef struct ident {
	uint64_t size, sec, nsec, head, tail;
} ident;

static int read_range(int fd, uint64_t off, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int log_ident(const char *path, ident *id, uint64_t *start, tk_error *err)
{
	struct stat sb;
	uint8_t *buf = NULL;
	size_t n;
	int fd, rc = TK_OK;

	/* "-" is standard input, as everywhere in the API: no file (it was
	 * opened as a file named "-") */
	if (strcmp(path, "-") == 0)
		return tk_err_set(err, TK_E_USAGE, "<stdin>", 0, 0,
				  "an index is kept for a file (standard input is not one)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		rc = tk_err_set(err, TK_E_USAGE, path, 0, 0,
				"an index is kept for a file (this input is not one)");
		goto out;
	}
	id->size = (uint64_t)sb.st_size;
	id->sec = (uint64_t)sb.st_mtim.tv_sec;
	id->nsec = (uint64_t)sb.st_mtim.tv_nsec;
	n = id->size < IX_EDGE ? (size_t)id->size : IX_EDGE;
	buf = malloc(n ? n : 1);
	if (!buf) {
		rc = tk_err_nomem(err, path);
		goto out;
	}
	if (read_range(fd, 0, buf, n) < 0)
		goto io;
	id->head = ix_hash(buf, n, 1);
	if (start)
		*start = tk_text_bom(buf, n) ? 3 : 0;
	if (read_range(fd, id->size - n, buf, n) < 0)
		goto io;
	id->tail = ix_hash(buf, n, 2);
	goto out;
io:
	rc = tk_err_set(err, TK_E_IO, path, 0, 0, "cannot read: %s",
			errno ? strerror(errno) : "the file shrank");
out:
	free(buf);
	close(fd);
	return rc;
}

/* ---- parse (and check) ---------------------------------------------------------- */

static int parse_names(cur *c, ix_name **out, size_t n)
{
	size_t i;

	if (n > (uint64_t)(c->end - c->p) / 4)
		return -1;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -2;
	for (i = 0; i < n; i++) {
		uint32_t len = cu_u32(c);
		(*out)[i].p = (const char *)cu_take(c, len);
		(*out)[i].len = len;
	}
	return c->bad ? -1 : 0;
}

static int parse_state(tk_tarmac_index *ix, ix_ckpt *k, const uint8_t *p, uint64_t len)
{
	cur c = { p, p + len, 0 };
	uint32_t i, u;

	k->total = cu_u64(&c);
	k->nexec = cu_u32(&c);
	if (k->nexec != k->ncpus + 1)
		return -1;
	k->exec = cu_take(&c, 8 * (uint64_t)k->nexec);
	k->umask = cu_u32(&c);
	if (k->umask >> TK_TARMAC_UNIT_COUNT)
		return -1;
	for (u = 0; u < TK_TARMAC_UNIT_COUNT; u++)
		k->umax[u] = k->umask >> u & 1 ? cu_u64(&c) : 0;
	k->npcs = cu_u32(&c);
	k->pcs = c.p;
	for (i = 0; i < k->npcs && !c.bad; i++) {
		if (cu_u32(&c) > k->ncpus)
			return -1;
		cu_u64(&c);
	}
	k->nregs = cu_u32(&c);
	k->regs = c.p;
	for (i = 0; i < k->nregs && !c.bad; i++) {
		const uint8_t *h = cu_take(&c, 19);
		if (!h || tk_load_le32(h) > k->ncpus || h[4] > 1 ||
		    tk_load_le16(h + 5) == 0)
			return -1;
		cu_take(&c, (uint64_t)tk_load_le16(h + 5) + tk_load_le32(h + 7));
	}
	(void)ix;
	return c.bad || c.p != c.end ? -1 : 0;
}

static int parse_span(tk_tarmac_index *ix, ix_ckpt *k, const uint8_t *p, uint64_t len)
{
	cur c = { p, p + len, 0 };
	uint32_t i;

	k->grain = cu_u32(&c);
	if (k->grain < IX_GRAIN || k->grain > IX_GRAIN_MAX)
		return -1;
	k->nblocks = cu_u32(&c);
	k->blocks = cu_take(&c, 8 * (uint64_t)k->nblocks);
	for (i = 0; !c.bad && i < k->nblocks; i++)
		if ((i && tk_load_le64(k->blocks + 8 * i) <= tk_load_le64(k->blocks + 8 * (i - 1))) ||
		    tk_load_le64(k->blocks + 8 * i) > UINT64_MAX >> k->grain)
			return -1;
	k->nids = cu_u32(&c);
	k->ids = cu_take(&c, 4 * (uint64_t)k->nids);
	for (i = 0; !c.bad && i < k->nids; i++)
		if (tk_load_le32(k->ids + 4 * i) >= ix->nnames ||
		    (i && tk_load_le32(k->ids + 4 * i) <= tk_load_le32(k->ids + 4 * (i - 1))))
			return -1;
	return c.bad || c.p != c.end ? -1 : 0;
}

/* ix->buf, ix->len set: check and read its header, names and table (the
 * states and summaries: ck_state(), ck_span()).  0, -1 (not valid), -2
 * (out of memory).  `id` (may be NULL): the log it must be of; `span` 0:
 * any. */
static int ix_parse(tk_tarmac_index *ix, const ident *id, uint64_t span)
{
	const uint8_t *h = ix->buf;
	cur c;
	uint64_t nnames, ncpus, n, i, body, head;
	int rc;

	if (ix->len < IX_HEAD || memcmp(h, IX_MAGIC, 8) != 0 ||
	    tk_load_le32(h + 8) != IX_VERSION || tk_load_le32(h + 12) != IX_HEAD ||
	    tk_load_le64(h + 128) != ix_hash(h, 128, 3))
		return -1;
	if (id && (tk_load_le64(h + 16) != id->size || tk_load_le64(h + 24) != id->sec ||
		   tk_load_le64(h + 32) != id->nsec || tk_load_le64(h + 40) != id->head ||
		   tk_load_le64(h + 48) != id->tail))
		return -1;
	ix->log_size = tk_load_le64(h + 16);
	ix->span = tk_load_le64(h + 56);
	if (ix->span == 0 || (span && ix->span != span))
		return -1;
	n = tk_load_le64(h + 64);
	nnames = tk_load_le64(h + 72);
	ncpus = tk_load_le64(h + 80);
	ix->warned = (int)(tk_load_le64(h + 88) & 1);
	body = tk_load_le64(h + 96);
	ix->start = tk_load_le64(h + 112);
	head = tk_load_le64(h + 120);
	if (body != ix->len - IX_HEAD || head > body ||
	    tk_load_le64(h + 104) != ix_hash(h + IX_HEAD, head, 4) ||
	    n == 0 || ix->start > ix->log_size)
		return -1;
	c.p = h + IX_HEAD;
	c.end = h + IX_HEAD + head;
	c.bad = 0;
	if ((rc = parse_names(&c, &ix->cpus, ncpus)) < 0)
		return rc;
	ix->ncpus = (size_t)ncpus;
	if ((rc = parse_names(&c, &ix->names, nnames)) < 0)
		return rc;
	ix->nnames = (size_t)nnames;
	if (n != (uint64_t)(c.end - c.p) / IX_ENTRY || (uint64_t)(c.end - c.p) % IX_ENTRY)
		return -1;
	ix->ck = calloc((size_t)n, sizeof(*ix->ck));
	if (!ix->ck)
		return -2;
	ix->n = (size_t)n;
	for (i = 0; i < n; i++) {
		ix_ckpt *k = &ix->ck[i];
		k->off = cu_u64(&c);
		k->line = cu_u64(&c);
		k->last_line = cu_u64(&c);
		k->time = cu_u64(&c);
		k->unit = cu_u32(&c);
		k->prev_ldst = cu_u32(&c);
		k->ncpus = cu_u64(&c);
		k->seam = cu_u64(&c);
		k->so = cu_u64(&c);
		k->sl = cu_u64(&c);
		k->po = cu_u64(&c);
		k->pl = cu_u64(&c);
		k->sh = cu_u64(&c);
		k->ph = cu_u64(&c);
		/* the states and summaries lie after the table */
		if (c.bad || k->so < head || k->so > body || k->sl > body - k->so ||
		    k->po < head || k->po > body || k->pl > body - k->po ||
		    k->off > ix->log_size || k->unit >= TK_TARMAC_UNIT_COUNT ||
		    (k->prev_ldst != 0 && k->prev_ldst != 'L' && k->prev_ldst != 'S') ||
		    k->ncpus > ix->ncpus || k->last_line >= k->line)
			return -1;
		if (i == 0 ? (k->off != ix->start || k->line != 1 || k->ncpus != 0)
			   : (k->off <= ix->ck[i - 1].off || k->line <= ix->ck[i - 1].line ||
			      k->last_line < ix->ck[i - 1].line || k->ncpus < ix->ck[i - 1].ncpus))
			return -1;
	}
	return 0;
}

/* Checkpoint k's state, its summary: checked at their first use (0), or
 * damaged (-1, and the index marked so).  The marks are the index's own
 * memory (the object is never a const one: tk_tarmac_index_open()'s). */
static int ck_state(const tk_tarmac_index *cix, size_t k)
{
	tk_tarmac_index *ix = (tk_tarmac_index *)cix;
	ix_ckpt *c = &ix->ck[k];

	if (!c->state_ok) {
		const uint8_t *p = ix->buf + IX_HEAD + c->so;
		c->state_ok = ix_hash(p, (size_t)c->sl, 6) == c->sh &&
			      parse_state(ix, c, p, c->sl) == 0 ? 1 : -1;
	}
	if (c->state_ok < 0)
		ix->bad = 1;
	return c->state_ok > 0 ? 0 : -1;
}

static int ck_span(const tk_tarmac_index *cix, size_t k)
{
	tk_tarmac_index *ix = (tk_tarmac_index *)cix;
	ix_ckpt *c = &ix->ck[k];

	if (!c->span_ok) {
		const uint8_t *p = ix->buf + IX_HEAD + c->po;
		c->span_ok = ix_hash(p, (size_t)c->pl, 7) == c->ph &&
			     parse_span(ix, c, p, c->pl) == 0 ? 1 : -1;
	}
	if (c->span_ok < 0)
		ix->bad = 1;
	return c->span_ok > 0 ? 0 : -1;
}

static void ix_clear(tk_tarmac_index *ix)
{
	free(ix->cpus);
	free(ix->names);
	free(ix->ck);
	ix->cpus = ix->names = NULL;
	ix->ck = NULL;
	ix->n = ix->ncpus = ix->nnames = 0;
}

static void ix_release(tk_tarmac_index *ix)
{
	if (ix->mapped)
		tk_file_unmap(ix->buf, ix->len);
	else
		free(ix->buf);
	ix->buf = NULL;
	ix->len = 0;
	ix->mapped = 0;
}

void tk_tarmac_index_free(tk_tarmac_index *ix)
{
	if (!ix)
		return;
	ix_clear(ix);
	ix_release(ix);
	free(ix);
}

/* ---- build ---------------------------------------------------------------------- */

typedef struct builder {
	obuf table, blobs, names;
	tk_strpool regs;          /* the register names met: ids */
	uint32_t *mark;           /* per name id: the span + 1 that named it */
	size_t capmark;
	uint32_t *ids;
	size_t nids, capids;
	uint64_t *blocks;         /* the span's granules (of IX_GRAIN bits) */
	size_t nblocks, capblocks;
	size_t maxgrains;         /* a summary's granules at most */
	uint64_t *exec;           /* per record cpu */
	size_t capexec;
	uint64_t total;
	uint32_t umask;
	uint64_t umax[TK_TARMAC_UNIT_COUNT];
	uint64_t nck;
} builder;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the state blob of a checkpoint (before the next record) */
static void put_state(builder *b, const tk_tarmac_state *st, size_t ncpus)
{
	size_t i, n = tk_tarmac_state_reg_count(st);
	uint32_t npcs = 0, u;
	uint64_t pc;
	size_t at;

	ob_u64(&b->blobs, b->total);
	ob_u32(&b->blobs, (uint32_t)(ncpus + 1));
	for (i = 0; i <= ncpus; i++)
		ob_u64(&b->blobs, i < b->capexec ? b->exec[i] : 0);
	ob_u32(&b->blobs, b->umask);
	for (u = 0; u < TK_TARMAC_UNIT_COUNT; u++)
		if (b->umask >> u & 1)
			ob_u64(&b->blobs, b->umax[u]);
	at = b->blobs.n;
	ob_u32(&b->blobs, 0);
	for (i = 0; i <= ncpus; i++)
		if (tk_tarmac_state_pc(st, (uint32_t)i, &pc)) {
			ob_u32(&b->blobs, (uint32_t)i);
			ob_u64(&b->blobs, pc);
			npcs++;
		}
	if (!b->blobs.fail)
		tk_store_le32(b->blobs.p + at, npcs);
	ob_u32(&b->blobs, (uint32_t)n);
	for (i = 0; i < n; i++) {
		const tk_tarmac_reg *g = tk_tarmac_state_reg(st, i);
		size_t nl = strlen(g->name), vl = strlen(g->value);
		if (nl > UINT16_MAX || vl > UINT32_MAX) {
			b->blobs.fail = 1;
			return;
		}
		ob_u32(&b->blobs, g->cpu);
		ob_u8(&b->blobs, (uint8_t)(g->hex != 0));
		ob_u16(&b->blobs, (uint16_t)nl);
		ob_u32(&b->blobs, (uint32_t)vl);
		ob_u64(&b->blobs, g->line);
		ob_bytes(&b->blobs, g->name, nl);
		ob_bytes(&b->blobs, g->value, vl);
	}
}

/* the summary of the span that ends here; its place in *off, *len */
static void put_span(builder *b, uint64_t *off, uint64_t *len)
{
	size_t i, k = 0;
	uint32_t grain = IX_GRAIN;

	*off = b->blobs.n;
	if (b->nblocks > 1)
		qsort(b->blocks, b->nblocks, sizeof(*b->blocks), cmp_u64);
	for (i = 0; i < b->nblocks; i++)
		if (!k || b->blocks[i] != b->blocks[k - 1])
			b->blocks[k++] = b->blocks[i];
	/* too many to list: granules twice as large until they fit (still
	 * ascending, the equal neighbours merged) */
	while (k > b->maxgrains && grain < IX_GRAIN_MAX) {
		size_t j = 0;
		grain++;
		for (i = 0; i < k; i++) {
			uint64_t g = b->blocks[i] >> 1;
			if (!j || g != b->blocks[j - 1])
				b->blocks[j++] = g;
		}
		k = j;
	}
	ob_u32(&b->blobs, grain);
	ob_u32(&b->blobs, (uint32_t)k);
	for (i = 0; i < k; i++)
		ob_u64(&b->blobs, b->blocks[i]);
	if (b->nids > 1)
		qsort(b->ids, b->nids, sizeof(*b->ids), cmp_u32);
	ob_u32(&b->blobs, (uint32_t)b->nids);
	for (i = 0; i < b->nids; i++)
		ob_u32(&b->blobs, b->ids[i]);
	*len = b->blobs.n - *off;
	b->nblocks = b->nids = 0;
}

static int add_block(builder *b, uint64_t blk)
{
	if (b->nblocks && b->blocks[b->nblocks - 1] == blk)
		return 0;
	if (b->nblocks == b->capblocks) {
		size_t cap = b->capblocks ? 2 * b->capblocks : 1024;
		uint64_t *nb = tk_xrealloc_array(b->blocks, cap, sizeof(*nb));
		if (!nb)
			return -1;
		b->blocks = nb;
		b->capblocks = cap;
	}
	b->blocks[b->nblocks++] = blk;
	return 0;
}

static int note_record(builder *b, const tk_tarmac_record *rec)
{
	if (rec->unit < TK_TARMAC_UNIT_COUNT) {
		if (!(b->umask >> rec->unit & 1) || rec->time > b->umax[rec->unit])
			b->umax[rec->unit] = rec->time;
		b->umask |= 1u << rec->unit;
	}
	if (rec->kind == TK_TARMAC_INSTRUCTION && rec->executed) {
		if (tk_grow_zero((void **)&b->exec, &b->capexec, rec->cpu, sizeof(*b->exec)) < 0)
			return -1;
		b->exec[rec->cpu]++;
		b->total++;
	} else if (rec->kind == TK_TARMAC_REGISTER && rec->reg.len) {
		tk_str id = tk_strpool_intern(&b->regs, rec->reg.ptr, rec->reg.len);
		if (id == TK_NONE ||
		    tk_grow_zero((void **)&b->mark, &b->capmark, id, sizeof(*b->mark)) < 0)
			return -1;
		if (b->mark[id] != b->nck + 1) {
			b->mark[id] = (uint32_t)(b->nck + 1);
			if (b->nids == b->capids) {
				size_t cap = b->capids ? 2 * b->capids : 64;
				uint32_t *ni = tk_xrealloc_array(b->ids, cap, sizeof(*ni));
				if (!ni)
					return -1;
				b->ids = ni;
				b->capids = cap;
			}
			b->ids[b->nids++] = (uint32_t)id;
		}
	} else if (rec->kind == TK_TARMAC_MEMORY && rec->has_address) {
		/* every byte the record may show (tarmac_state.c's
		 * mem_record()): its size, or for the lanes of LD/ST, one
		 * per pair of their characters */
		uint64_t n = rec->size, i, nb;
		const char *kt = rec->kind_text.ptr;
		if (rec->kind_text.len == 2 && ((kt[0] == 'L' && kt[1] == 'D') ||
						(kt[0] == 'S' && kt[1] == 'T')) &&
		    rec->data.len / 2 + 1 > n)
			n = rec->data.len / 2 + 1;
		if (n == 0)
			n = 1;
		nb = (((rec->address & ((1u << IX_GRAIN) - 1)) + n - 1) >> IX_GRAIN) + 1;
		for (i = 0; i < nb; i++)
			if (add_block(b, ((rec->address >> IX_GRAIN) + i) & (UINT64_MAX >> IX_GRAIN)) < 0)
				return -1;
	}
	return 0;
}

static void put_entry(builder *b, uint64_t off, uint64_t line, uint64_t last_line,
		      uint64_t time, tk_tarmac_unit unit, int prev_ldst, size_t ncpus,
		      uint64_t seam, uint64_t so, uint64_t sl)
{
	ob_u64(&b->table, off);
	ob_u64(&b->table, line);
	ob_u64(&b->table, last_line);
	ob_u64(&b->table, time);
	ob_u32(&b->table, (uint32_t)unit);
	ob_u32(&b->table, (uint32_t)prev_ldst);
	ob_u64(&b->table, ncpus);
	ob_u64(&b->table, seam);
	ob_u64(&b->table, so);
	ob_u64(&b->table, sl);
	ob_u64(&b->table, 0);     /* the span's summary: set when it ends */
	ob_u64(&b->table, 0);
	ob_u64(&b->table, 0);     /* the hashes: set at the end */
	ob_u64(&b->table, 0);
	b->nck++;
}

/* the hash of the log's bytes around offset off */
static int seam_hash(tk_source *src, uint64_t size, uint64_t off, uint64_t *h, tk_error *err)
{
	uint8_t buf[2 * IX_SEAM];
	uint64_t lo = off < IX_SEAM ? 0 : off - IX_SEAM;
	uint64_t hi = size - off < IX_SEAM ? size : off + IX_SEAM;
	int rc = tk_source_read_at(src, lo, buf, (size_t)(hi - lo), err);

	if (rc < 0)
		return rc;
	*h = ix_hash(buf, (size_t)(hi - lo), off);
	return TK_OK;
}

static int build(const char *path, uint64_t span, const ident *id, uint64_t start,
		 obuf *out, tk_error *err)
{
	builder b;
	tk_tarmac *tr = NULL;
	tk_tarmac *seam_tr = NULL;
	tk_tarmac_state *st = NULL;
	tk_tarmac_opts o;
	tk_tarmac_record rec;
	uint64_t next = start + span, last_line = 0, so, sl, off, time, body_hash, seam;
	tk_tarmac_unit unit;
	int rc, prev_ldst;
	size_t i, ncpus;
	uint8_t *h;

	memset(&b, 0, sizeof(b));
	b.maxgrains = span / IX_GRAINS_PER > IX_GRAINS_MIN ? (size_t)(span / IX_GRAINS_PER)
							   : IX_GRAINS_MIN;
	tk_strpool_init(&b.regs);
	tk_tarmac_opts_init(&o);
	rc = tk_tarmac_open(&tr, path, &o, err);
	if (rc < 0)
		goto out;
	if (strcmp(tk_source_transport(tr->src), "file") != 0) {
		rc = tk_err_set(err, TK_E_USAGE, path, 0, 0, "an index is kept for an "
				"uncompressed file (this input is %s)",
				tk_source_transport(tr->src));
		goto out;
	}
	/* a second reader on the file for the checkpoints' bytes */
	if ((rc = tk_tarmac_open(&seam_tr, path, &o, err)) < 0 ||
	    (rc = tarmac_seek(seam_tr, start, 1, 0, TK_TARMAC_UNIT_NONE, 0, err)) < 0 ||
	    (rc = tk_tarmac_state_new(&st, err)) < 0)
		goto out;
	put_state(&b, st, 0);
	put_entry(&b, start, 1, 0, 0, TK_TARMAC_UNIT_NONE, 0, 0, 0, 0, b.blobs.n);
	while ((rc = tk_tarmac_next(tr, &rec, err)) == TK_OK) {
		if (note_record(&b, &rec) < 0 || tk_tarmac_state_record(st, &rec, err) < 0)
			goto nomem;
		last_line = rec.line;
		if (rec.kind != TK_TARMAC_INSTRUCTION)
			continue;
		tarmac_where(tr, &off, &time, &unit, &prev_ldst);
		if (off < next || off >= id->size)
			continue;
		next = off + span;
		/* the span that ends here, then the checkpoint */
		put_span(&b, &so, &sl);
		if (!b.table.fail) {
			tk_store_le64(b.table.p + b.table.n - 32, so);
			tk_store_le64(b.table.p + b.table.n - 24, sl);
		}
		if ((rc = seam_hash(seam_tr->src, id->size, off, &seam, err)) < 0)
			goto out;
		ncpus = tk_tarmac_cpu_count(tr);
		so = b.blobs.n;
		put_state(&b, st, ncpus);
		put_entry(&b, off, rec.line + 1, last_line, time, unit, prev_ldst, ncpus,
			  seam, so, b.blobs.n - so);
		if (b.table.fail || b.blobs.fail)
			goto nomem;
	}
	if (rc != TK_END)
		goto out;
	put_span(&b, &so, &sl);
	if (!b.table.fail) {
		tk_store_le64(b.table.p + b.table.n - 32, so);
		tk_store_le64(b.table.p + b.table.n - 24, sl);
	}
	/* the names, then the table and the blobs after them */
	ncpus = tk_tarmac_cpu_count(tr);
	for (i = 0; i < ncpus; i++) {
		const char *nm = tk_tarmac_cpu_name(tr, i);
		ob_u32(&b.names, (uint32_t)strlen(nm));
		ob_bytes(&b.names, nm, strlen(nm));
	}
	for (i = 0; i < b.regs.count; i++) {
		const char *nm = b.regs.ptrs[i];
		ob_u32(&b.names, (uint32_t)strlen(nm));
		ob_bytes(&b.names, nm, strlen(nm));
	}
	if (b.names.fail || b.table.fail || b.blobs.fail)
		goto nomem;
	/* the blobs' hashes, and their offsets from the body's start */
	for (i = 0; i < b.nck; i++) {
		uint8_t *e = b.table.p + i * IX_ENTRY;
		uint64_t shift = b.names.n + b.table.n;
		tk_store_le64(e + 88, ix_hash(b.blobs.p + tk_load_le64(e + 56),
					      (size_t)tk_load_le64(e + 64), 6));
		tk_store_le64(e + 96, ix_hash(b.blobs.p + tk_load_le64(e + 72),
					      (size_t)tk_load_le64(e + 80), 7));
		tk_store_le64(e + 56, tk_load_le64(e + 56) + shift);
		tk_store_le64(e + 72, tk_load_le64(e + 72) + shift);
	}
	h = ob_room(out, IX_HEAD);
	ob_bytes(out, b.names.p, b.names.n);
	ob_bytes(out, b.table.p, b.table.n);
	ob_bytes(out, b.blobs.p, b.blobs.n);
	if (out->fail)
		goto nomem;
	h = out->p;
	memset(h, 0, IX_HEAD);
	memcpy(h, IX_MAGIC, 8);
	tk_store_le32(h + 8, IX_VERSION);
	tk_store_le32(h + 12, IX_HEAD);
	tk_store_le64(h + 16, id->size);
	tk_store_le64(h + 24, id->sec);
	tk_store_le64(h + 32, id->nsec);
	tk_store_le64(h + 40, id->head);
	tk_store_le64(h + 48, id->tail);
	tk_store_le64(h + 56, span);
	tk_store_le64(h + 64, b.nck);
	tk_store_le64(h + 72, b.regs.count);
	tk_store_le64(h + 80, ncpus);
	tk_store_le64(h + 88, tk_tarmac_warning_count(tr) || tk_tarmac_skipped_count(tr) ? 1 : 0);
	tk_store_le64(h + 96, out->n - IX_HEAD);
	body_hash = ix_hash(h + IX_HEAD, b.names.n + b.table.n, 4);
	tk_store_le64(h + 104, body_hash);
	tk_store_le64(h + 112, start);
	tk_store_le64(h + 120, b.names.n + b.table.n);
	tk_store_le64(h + 128, ix_hash(h, 128, 3));
	rc = TK_OK;
	goto out;
nomem:
	rc = tk_err_nomem(err, path);
out:
	tk_tarmac_close(tr);
	tk_tarmac_close(seam_tr);
	tk_tarmac_state_free(st);
	tk_strpool_free(&b.regs);
	free(b.table.p);
	free(b.blobs.p);
	free(b.names.p);
	free(b.mark);
	free(b.ids);
	free(b.blocks);
	free(b.exec);
	return rc;
}

/* ---- open ----------------------------------------------------------------------- */

/* Every state and summary of a built index checked (0), or -1 */
static int ix_check_all(tk_tarmac_index *ix)
{
	size_t k;

	for (k = 0; k < ix->n; k++)
		if (ck_state(ix, k) < 0 || ck_span(ix, k) < 0 ||
		    (k && ix->ck[k].total < ix->ck[k - 1].total))
			return -1;
	return 0;
}

static int write_file(const char *path, const uint8_t *p, size_t n, tk_error *err)
{
	char tmp[4096];
	size_t done = 0;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= sizeof(tmp))
		return tk_err_set(err, TK_E_IO, path, 0, 0, "the index's path is too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot write the index: %s",
				  strerror(errno));
	while (done < n) {
		ssize_t w = write(fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < n || close(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		if (done < n)
			close(fd);
		unlink(tmp);
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot write the index: %s",
				  strerror(e ? e : EIO));
	}
	return TK_OK;
}

int tk_tarmac_index_open(tk_tarmac_index **out, const char *path, const char *index_path,
			 uint64_t span, int write, int *how, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_index_open", "out pointer");
	tk_tarmac_index *ix;
	ident id, again;
	obuf ob = { NULL, 0, 0, 0 };
	uint64_t start = 0;
	int rc, r, had = 0, h = TK_TARMAC_INDEX_BUILT;

	*out = NULL;
	if (span == 0)
		span = TK_TARMAC_INDEX_SPAN;
	if ((rc = log_ident(path, &id, &start, err)) < 0)
		return rc;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return tk_err_nomem(err, path);
	/* an index as large as the log and more is not one of ours */
	/* (read-only and private: the index is replaced by a rename, never
	 * written in place) */
	r = tk_file_map(index_path, id.size + ((uint64_t)64 << 20), &ix->buf, &ix->len,
			&ix->mapped);
	if (r <= 0) {
		had = 1;
		if (r == 0 && ix->len >= 64 && tk_load_le64(ix->buf + 56) != span &&
		    memcmp(ix->buf, IX_MAGIC, 8) == 0)
			had = 0;     /* of another span: not damaged */
		if (r == 0 && (rc = ix_parse(ix, &id, span)) == 0) {
			h = TK_TARMAC_INDEX_LOADED;
			goto done;
		}
		if (r == 0 && rc == -2)
			goto nomem;
		ix_clear(ix);
		ix_release(ix);
	}
	if ((rc = build(path, span, &id, start, &ob, err)) < 0)
		goto fail;
	if ((rc = log_ident(path, &again, NULL, err)) < 0)
		goto fail;
	if (memcmp(&id, &again, sizeof(id)) != 0) {
		rc = tk_err_set(err, TK_E_IO, path, 0, 0, "the log changed while it was indexed");
		goto fail;
	}
	ix->buf = ob.p;
	ix->len = ob.n;
	ob.p = NULL;
	if ((rc = ix_parse(ix, &id, span)) != 0 || (rc = ix_check_all(ix)) != 0) {
		if (rc == -2)
			goto nomem;
		rc = tk_err_set(err, TK_E_FORMAT, path, 0, 0, "the index built does not read back");
		goto fail;
	}
	if (write) {
		if ((rc = write_file(index_path, ix->buf, ix->len, err)) < 0)
			goto fail;
		h = had ? TK_TARMAC_INDEX_REBUILT : TK_TARMAC_INDEX_BUILT;
	} else {
		h = TK_TARMAC_INDEX_MEMORY;
	}
done:
	if (how)
		*how = h;
	*out = ix;
	return TK_OK;
nomem:
	rc = tk_err_nomem(err, path);
fail:
	free(ob.p);
	tk_tarmac_index_free(ix);
	return rc;
}

size_t tk_tarmac_index_path(const char *path, const char *dir, char *buf, size_t size)
{
	char *abs;
	const char *base;
	int n;

	if (!dir) {
		n = snprintf(buf, size, "%s.tkidx", path);
		return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
	}
	abs = realpath(path, NULL);
	if (!abs)
		return 0;
	base = strrchr(abs, '/');
	base = base ? base + 1 : abs;
	n = snprintf(buf, size, "%s/%s-%016llx.tkidx", dir, base,
		     (unsigned long long)ix_hash((const uint8_t *)abs, strlen(abs), 5));
	free(abs);
	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

/* ---- queries -------------------------------------------------------------------- */

size_t tk_tarmac_index_count(const tk_tarmac_index *ix)
{
	return ix->n;
}

static size_t cpu_id(const tk_tarmac_index *ix, const char *cpu)
{
	size_t i, n = strlen(cpu);

	for (i = 0; i < ix->ncpus; i++)
		if (ix->cpus[i].len == n && memcmp(ix->cpus[i].p, cpu, n) == 0)
			return i;
	return SIZE_MAX;
}

uint64_t tk_tarmac_index_executed(const tk_tarmac_index *ix, size_t k, const char *cpu)
{
	const ix_ckpt *c;
	size_t i;

	if (k >= ix->n)
		return 0;
	if (ck_state(ix, k) < 0)
		return 0;
	c = &ix->ck[k];
	if (!cpu)
		return c->total;
	i = cpu_id(ix, cpu);
	if (i == SIZE_MAX || i + 1 >= c->nexec)
		return 0;
	return tk_load_le64(c->exec + 8 * (i + 1));
}

int tk_tarmac_index_has_cpu(const tk_tarmac_index *ix, size_t k, const char *cpu)
{
	size_t i = cpu_id(ix, cpu);

	return i != SIZE_MAX && (k >= ix->n || i < ix->ck[k].ncpus);
}

static int usable(const tk_tarmac_index *ix, size_t k, const tk_tarmac_at *at,
		  const char *cpu)
{
	const ix_ckpt *c = &ix->ck[k];
	uint32_t u;

	switch (at->kind) {
	case TK_TARMAC_AT_LINE:
		return c->last_line <= at->value;
	case TK_TARMAC_AT_TIME:
		if (ck_state(ix, k) < 0)
			return 0;
		for (u = 0; u < TK_TARMAC_UNIT_COUNT; u++)
			if ((c->umask >> u & 1) &&
			    tarmac_later(c->umax[u], (tk_tarmac_unit)u, at->value, at->unit) != 0)
				return 0;
		return 1;
	case TK_TARMAC_AT_INSTR:
		return tk_tarmac_index_executed(ix, k, cpu) < at->value;
	default:
		return 1;
	}
}

size_t tk_tarmac_index_find(const tk_tarmac_index *ix, const tk_tarmac_at *at,
			    const char *cpu)
{
	size_t lo = 0, hi = ix->n;

	/* usable() holds for a prefix of the checkpoints: the last one */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (usable(ix, mid, at, cpu))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t tk_tarmac_index_line(const tk_tarmac_index *ix, size_t k)
{
	return k < ix->n ? ix->ck[k].last_line : UINT64_MAX;
}

int tk_tarmac_index_seek(const tk_tarmac_index *ix, size_t k, tk_tarmac *tr,
			 tk_tarmac_state *st, tk_error *err)
{
	const ix_ckpt *c;
	cur q;
	size_t i;
	uint64_t seam;
	int rc;

	if (k >= ix->n)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0, "no checkpoint %zu", k);
	if (ix->bad || ck_state(ix, k) < 0)
		return tk_err_set(err, TK_E_FORMAT, tr->name, 0, 0, "its index is damaged");
	c = &ix->ck[k];
	rc = tarmac_seek(tr, c->off, c->line, c->time, (tk_tarmac_unit)c->unit,
			 (int)c->prev_ldst, err);
	if (rc < 0)
		return rc;
	if (tr->lines.size != ix->log_size)
		return tk_err_set(err, TK_E_FORMAT, tr->name, 0, 0,
				  "the log changed since it was indexed");
	if (k && ((rc = seam_hash(tr->src, ix->log_size, c->off, &seam, err)) < 0 ||
		  seam != c->seam))
		return rc < 0 ? rc : tk_err_set(err, TK_E_FORMAT, tr->name, 0, 0,
						"the log changed since it was indexed");
	for (i = 0; i < ix->ncpus; i++) {
		const char *nm = tk_tarmac_cpu_name(tr, i);
		if (nm) {
			if (strlen(nm) != ix->cpus[i].len || memcmp(nm, ix->cpus[i].p, ix->cpus[i].len))
				return tk_err_set(err, TK_E_USAGE, tr->name, 0, 0,
						  "the reader's CPUs are not the index's");
		} else if (tarmac_cpu_add(tr, ix->cpus[i].p, ix->cpus[i].len) < 0) {
			return tk_err_nomem(err, tr->name);
		}
	}
	if (!st)
		return TK_OK;
	tarmac_state_reset(st);
	q.p = c->pcs;
	q.end = ix->buf + ix->len;
	q.bad = 0;
	for (i = 0; i < c->npcs; i++) {
		uint32_t cpu = cu_u32(&q);
		if (tarmac_state_put_pc(st, cpu, cu_u64(&q)) < 0)
			return tk_err_nomem(err, tr->name);
	}
	q.p = c->regs;
	for (i = 0; i < c->nregs; i++) {
		const uint8_t *h = cu_take(&q, 19);
		size_t nl = tk_load_le16(h + 5), vl = tk_load_le32(h + 7);
		const char *nm = (const char *)cu_take(&q, nl);
		const char *v = (const char *)cu_take(&q, vl);
		if (tarmac_state_put_reg(st, tk_load_le32(h), nm, nl, v, vl, h[4],
					 tk_load_le64(h + 11)) < 0)
			return tk_err_nomem(err, tr->name);
	}
	return TK_OK;
}

/* 1 when the ascending a[0..n) holds a value in [lo, hi] */
static int any_u64(const uint8_t *a, uint32_t n, uint64_t lo, uint64_t hi)
{
	uint32_t l = 0, h = n;

	while (l < h) {
		uint32_t mid = l + (h - l) / 2;
		if (tk_load_le64(a + 8 * (size_t)mid) < lo)
			l = mid + 1;
		else
			h = mid;
	}
	return l < n && tk_load_le64(a + 8 * (size_t)l) <= hi;
}

int tk_tarmac_index_mem(const tk_tarmac_index *ix, size_t k, uint64_t address, uint64_t len)
{
	const ix_ckpt *c;
	uint64_t first, last;

	if (k >= ix->n || len == 0)
		return 0;
	if (ck_span(ix, k) < 0)
		return 1;         /* the seek that follows fails */
	c = &ix->ck[k];
	first = address >> c->grain;
	last = (address + (len - 1)) >> c->grain;
	/* a range past the top of the address space goes on at 0 */
	if (len - 1 > UINT64_MAX - address)
		return any_u64(c->blocks, c->nblocks, first, UINT64_MAX) ||
		       any_u64(c->blocks, c->nblocks, 0, last);
	return any_u64(c->blocks, c->nblocks, first, last);
}

size_t tk_tarmac_index_reg_count(const tk_tarmac_index *ix)
{
	return ix->nnames;
}

const char *tk_tarmac_index_reg_name(const tk_tarmac_index *ix, size_t i, size_t *len)
{
	if (i >= ix->nnames)
		return NULL;
	*len = ix->names[i].len;
	return ix->names[i].p;
}

int tk_tarmac_index_reg_in(const tk_tarmac_index *ix, size_t k, size_t i)
{
	const ix_ckpt *c;
	uint32_t lo = 0, hi;

	if (k >= ix->n)
		return 0;
	if (ck_span(ix, k) < 0)
		return 1;         /* the seek that follows fails */
	c = &ix->ck[k];
	hi = c->nids;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t x = tk_load_le32(c->ids + 4 * (size_t)mid);
		if (x == i)
			return 1;
		if (x < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int tk_tarmac_index_warned(const tk_tarmac_index *ix)
{
	return ix->warned;
}

int tk_tarmac_index_check(const tk_tarmac_index *ix, size_t k)
{
	if (k >= ix->n)
		return !ix->bad;
	return ck_state(ix, k) == 0 && ck_span(ix, k) == 0 && !ix->bad;
}

int tk_tarmac_index_damaged(const tk_tarmac_index *ix)
{
	return ix->bad;
}
