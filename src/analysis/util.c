/* util.c - the analysis' instance map and exact number formatting. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The index's key of (ent, inst), which the map walks comparing records:
 * the entity times an odd number of the seed (internal.h), so that no
 * input can give the instances of its entities one key. */
static inline uint64_t key_of(uint32_t ent, int64_t inst)
{
	return ((uint64_t)ent * (tk_hash_seed[1] | 1u)) ^ (uint64_t)inst;
}

void tk_imap_init(tk_imap *m, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	tk_hashmap_init(&m->idx);
	m->vsize = vsize;
}

/* The index slot of the record (ent, inst), or TK_HASHMAP_END. */
static TK_INLINE uint32_t find(const tk_imap *m, uint32_t ent, int64_t inst)
{
	uint64_t key = key_of(ent, inst);
	uint32_t i;

	for (i = tk_hashmap_first(&m->idx, key); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(&m->idx, key, i)) {
		uint32_t r = m->idx.slots[i].val;
		if (m->ent[r] == ent && m->inst[r] == inst)
			return i;
	}
	return TK_HASHMAP_END;
}

void *tk_imap_get(const tk_imap *m, uint32_t ent, int64_t inst)
{
	uint32_t i = find(m, ent, inst);

	return i == TK_HASHMAP_END ? NULL
				   : m->vals + m->idx.slots[i].val * m->vsize;
}

/* Room in the arrays for one more record.  0, or -1 out of memory. */
static int room(tk_imap *m)
{
	size_t cap = m->cap;

	if (m->count >= TK_NONE ||
	    tk_grow_zero((void **)&m->ent, &cap, m->count, sizeof(*m->ent)) < 0)
		return -1;
	cap = m->cap;
	if (tk_grow_zero((void **)&m->inst, &cap, m->count, sizeof(*m->inst)) < 0)
		return -1;
	cap = m->cap;
	if (tk_grow_zero((void **)&m->vals, &cap, m->count, m->vsize) < 0)
		return -1;
	m->cap = cap;
	return 0;
}

void *tk_imap_put(tk_imap *m, uint32_t ent, int64_t inst, int *created)
{
	void *v = tk_imap_get(m, ent, inst);
	size_t r = m->count;

	if (created)
		*created = 0;
	if (v)
		return v;
	if (room(m) < 0 ||
	    tk_hashmap_add(&m->idx, key_of(ent, inst), (uint32_t)r) < 0)
		return NULL;
	m->ent[r] = ent;
	m->inst[r] = inst;
	memset(m->vals + r * m->vsize, 0, m->vsize);
	m->count++;
	if (created)
		*created = 1;
	return m->vals + r * m->vsize;
}

void tk_imap_del(tk_imap *m, uint32_t ent, int64_t inst)
{
	uint32_t i = find(m, ent, inst), r, last;

	if (i == TK_HASHMAP_END)
		return;
	r = m->idx.slots[i].val;
	tk_hashmap_del_at(&m->idx, i);
	last = (uint32_t)--m->count;
	if (r == last)
		return;
	/* the last record fills the hole */
	i = find(m, m->ent[last], m->inst[last]);
	m->idx.slots[i].val = r;
	m->ent[r] = m->ent[last];
	m->inst[r] = m->inst[last];
	memcpy(m->vals + (size_t)r * m->vsize, m->vals + (size_t)last * m->vsize,
	       m->vsize);
}

void tk_imap_free(tk_imap *m)
{
	free(m->ent);
	free(m->inst);
	free(m->vals);
	tk_hashmap_free(&m->idx);
	m->ent = NULL;
	m->inst = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
}

void tk_slab_init(tk_slab *s, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
}

/* TK_SLAB_BLOCK bytes, zero, aligned to a huge page where the system has
 * them (and marked for them); NULL: no memory */
static unsigned char *slab_block(void)
{
#ifdef MADV_HUGEPAGE
	const size_t huge = (size_t)2 << 20;
	unsigned char *p = mmap(NULL, TK_SLAB_BLOCK + huge, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t lead;

	if (p == MAP_FAILED)
		return NULL;
	lead = (huge - (uintptr_t)p % huge) % huge;
	if (lead)
		munmap(p, lead);
	if (huge - lead)
		munmap(p + lead + TK_SLAB_BLOCK, huge - lead);
	p += lead;
	madvise(p, TK_SLAB_BLOCK, MADV_HUGEPAGE);
	return p;
#else
	unsigned char *p = mmap(NULL, TK_SLAB_BLOCK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#endif
}

/* a chunk of zeroed records out of the current block (a new one when it
 * has no room left); NULL: no memory */
static unsigned char *slab_block_chunk(tk_slab *s)
{
	size_t bytes = (size_t)TK_SLAB_CHUNK * s->size;
	unsigned char *p;

	if (bytes > TK_SLAB_BLOCK)
		return NULL; /* records of over 8 KiB: none is that big */
	if (s->bleft < bytes) {
		if (tk_grow_zero((void **)&s->blocks, &s->capblocks, s->nblocks,
				 sizeof(*s->blocks)) < 0)
			return NULL;
		p = slab_block();
		if (!p)
			return NULL;
		s->blocks[s->nblocks++] = p;
		s->bnext = p;
		s->bleft = TK_SLAB_BLOCK;
	}
	p = s->bnext;
	s->bnext += bytes;
	s->bleft -= bytes;
	return p;
}

void *tk_slab_new(tk_slab *s, uint32_t *idx)
{
	uint32_t i = s->count;
	unsigned char *p;

	if (i == UINT32_MAX)
		return NULL;
	if ((i & (TK_SLAB_CHUNK - 1)) == 0) {
		size_t c = i >> TK_SLAB_SHIFT;
		if (tk_grow_zero((void **)&s->chunk, &s->capchunks, c,
				 sizeof(*s->chunk)) < 0)
			return NULL;
		s->chunk[c] = c < TK_SLAB_SMALL ? calloc(TK_SLAB_CHUNK, s->size)
						 : slab_block_chunk(s);
		if (!s->chunk[c])
			return NULL;
		s->nchunks = c + 1;
	}
	p = tk_slab_at(s, i); /* zero: chunks are calloc'ed, records never reused */
	s->count = i + 1;
	*idx = i;
	return p;
}

void tk_slab_free(tk_slab *s)
{
	size_t i;

	for (i = 0; i < s->nchunks && i < TK_SLAB_SMALL; i++)
		free(s->chunk[i]);
	for (i = 0; i < s->nblocks; i++)
		munmap(s->blocks[i], TK_SLAB_BLOCK);
	free(s->chunk);
	free(s->blocks);
	s->chunk = NULL;
	s->blocks = NULL;
	s->nchunks = s->capchunks = 0;
	s->nblocks = s->capblocks = 0;
	s->bnext = NULL;
	s->bleft = 0;
	s->count = 0;
}

int tk_share_format(uint64_t part, uint64_t whole, char *buf, size_t size)
{
	tk_u128 v;
	char tmp[64];
	size_t len;

	if (!whole) {
		if (size < 2)
			return TK_E_RANGE;
		buf[0] = '-';
		buf[1] = '\0';
		return 1;
	}
	/* hundredths of a percent, rounded half up */
	v = ((tk_u128)part * 10000 * 2 + whole) / ((tk_u128)whole * 2);
	len = tk_fmt_u128(tmp, v / 100);
	tmp[len++] = '.';
	tmp[len++] = (char)('0' + (unsigned)(v / 10 % 10));
	tmp[len++] = (char)('0' + (unsigned)(v % 10));
	if (len + 1 > size)
		return TK_E_RANGE;
	memcpy(buf, tmp, len);
	buf[len] = '\0';
	return (int)len;
}

int tk_trace_is_freertos(const tk_trace *t)
{
	const char *c = tk_trace_header_get(t, "creator");

	if (!c)
		return 0;
	while (*c == ' ')
		c++;
	return strncmp(c, "FreeRTOS trace logger", 21) == 0;
}

int tk_glob_match(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, back = 0;

	/* '*' any run of bytes, '?' one byte, anything else itself; on a
	 * mismatch the last '*' takes one byte more */
	while (i < n) {
		if (*pat == '*') {
			star = ++pat;
			back = i;
		} else if (*pat && (*pat == '?' || *pat == s[i])) {
			pat++;
			i++;
		} else if (star) {
			pat = star;
			i = ++back;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

int tk_an_finished(tk_error *err, const char *fn, const char *finish)
{
	return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
			  "%s: after %s (its results are made; a new analysis takes more events)",
			  fn, finish);
}

void tk_an_no_input(const void *obj, const char *fn, tk_error *err)
{
	tk_err_set(err, TK_E_USAGE, NULL, 0, 0, "%s: no %s given", fn,
		   obj ? "event" : "analysis");
}

int tk_an_check_ids(const tk_trace *t, const tk_event *ev, const char *fn,
		    tk_error *err)
{
	size_t n = tk_trace_entity_count(t);

	if ((ev->target != TK_NONE && ev->target >= n) ||
	    (ev->source != TK_NONE && ev->source >= n) ||
	    (ev->core != TK_NONE && ev->core >= n))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "%s: the event at position %llu names entity %lu, the trace has %zu entities (an event of another trace?)",
				  fn, (unsigned long long)ev->pos, (unsigned long)(ev->target != TK_NONE && ev->target >= n ?
						      ev->target :
						      ev->source != TK_NONE && ev->source >= n ?
						      ev->source : ev->core),
				  n);
	return TK_OK;
}

int tk_an_fail(tk_error *err, int rc, const char *fn)
{
	if (rc >= 0)
		return rc;
	switch (rc) {
	case TK_E_NOMEM:
		return tk_err_nomem(err, NULL);
	case TK_E_IO:
		return tk_err_set(err, rc, NULL, 0, 0,
				  "%s: cannot write or read back a temporary file", fn);
	default:
		return tk_err_set(err, rc, NULL, 0, 0, "%s: stopped (%s)", fn,
				  tk_status_str(rc));
	}
}
