/*
 * strpool.c - interned strings.
 *
 * Every name in a trace (entities, event names, type names) is interned
 * once; events then carry small integer ids.  This runs for several fields
 * of every line, so a slot keeps the first 16 bytes of its string: names of
 * up to 16 bytes (most of them) are found with two word compares, no
 * pointer chase and no memcmp call.  The probe for those is inlined into
 * the readers (tk_strpool_intern_hot() in internal.h); this file has the
 * full path and the insertion.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The strings are copied into blocks: the first of BLOCK_FIRST bytes, each
 * next one twice the last up to BLOCK_MAX (or one string's size), so that a
 * small trace's names cost a few KB to keep. */
#define BLOCK_FIRST (4u * 1024u)
#define BLOCK_MAX (64u * 1024u)

void tk_strpool_init(tk_strpool *p)
{
	tk_hash_init();
	memset(p, 0, sizeof(*p));
}

void tk_strpool_free(tk_strpool *p)
{
	size_t i;

	for (i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->slots);
	free(p->ptrs);
	free(p->lens);
	memset(p, 0, sizeof(*p));
}

#define M(n) (~0ull >> (64 - 8 * (n)))
const uint64_t tk_strpool_mask16[17][2] = {
	{ 0, 0 },       { M(1), 0 },    { M(2), 0 },    { M(3), 0 },
	{ M(4), 0 },    { M(5), 0 },    { M(6), 0 },    { M(7), 0 },
	{ M(8), 0 },    { M(8), M(1) }, { M(8), M(2) }, { M(8), M(3) },
	{ M(8), M(4) }, { M(8), M(5) }, { M(8), M(6) }, { M(8), M(7) },
	{ M(8), M(8) },
};
#undef M

/* The first 16 bytes of s as two zero-padded words. */
static inline void load16(const char *s, size_t len, const char *limit,
			  uint64_t *w0, uint64_t *w1)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (limit - s >= 16) {
		memcpy(w0, s, 8);
		memcpy(w1, s + 8, 8);
		*w0 &= tk_strpool_mask16[len < 16 ? len : 16][0];
		*w1 &= tk_strpool_mask16[len < 16 ? len : 16][1];
		return;
	}
#endif
	(void)limit;
	{
		unsigned char b[16] = { 0 };
		memcpy(b, s, len < 16 ? len : 16);
		memcpy(w0, b, 8);
		memcpy(w1, b + 8, 8);
	}
}

static uint32_t hash_tail(const char *s, size_t len)
{
	uint64_t h = 0x27d4eb2f165667c5ull ^ tk_hash_seed[1], w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 29));
}

static inline uint32_t hash_of(const char *s, size_t len, uint64_t w0,
			       uint64_t w1)
{
	uint32_t h = tk_strpool_hash16(w0, w1, len);

	if (TK_UNLIKELY(len > 16))
		h ^= hash_tail(s + 16, len - 16);
	return h;
}

/* Copy bytes into a block that never moves; NUL-terminated. */
const char *tk_strpool_dup(tk_strpool *p, const char *s, size_t len)
{
	char *dst;

	if (len > SIZE_MAX / 2)
		return NULL;
	if (!p->block || p->block_size - p->block_used < len + 1) {
		size_t size = !p->block ? BLOCK_FIRST
			      : p->block_size < BLOCK_MAX / 2
				? p->block_size * 2 : BLOCK_MAX;
		if (size < len + 1)
			size = len + 1;
		char **nb = tk_xrealloc_array(p->blocks, p->nblocks + 1,
					      sizeof(*nb));
		if (!nb)
			return NULL;
		p->blocks = nb;
		/* zeroed, with TK_STRPOOL_PAD readable bytes past the end */
		p->block = calloc(1, size + TK_STRPOOL_PAD);
		if (!p->block)
			return NULL;
		p->blocks[p->nblocks++] = p->block;
		p->block_size = size;
		p->block_used = 0;
	}
	dst = p->block + p->block_used;
	if (len)
		memcpy(dst, s, len);
	dst[len] = '\0';
	p->block_used += len + 1;
	return dst;
}

static int grow_table(tk_strpool *p)
{
	uint32_t nsize = p->mask ? (p->mask + 1) * 2 : 256;
	uint32_t nshift = p->mask ? p->shift - 1 : 32 - 8;
	tk_strslot *slots;
	uint32_t i;

	if (p->mask >= (1u << 29)) /* nsize would pass 1 << 30 */
		return -1;
	slots = calloc(nsize, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i <= p->mask && p->slots; i++) {
		const tk_strslot *o = &p->slots[i];
		uint32_t j, len;
		if (!o->len1)
			continue;
		len = o->len1 - 1;
		j = hash_of(p->ptrs[o->id], len, o->w0, o->w1) >> nshift;
		while (slots[j].len1)
			j = (j + 1) & (nsize - 1);
		slots[j] = *o;
	}
	free(p->slots);
	p->slots = slots;
	p->mask = nsize - 1;
	p->shift = nshift;
	return 0;
}

static inline int slot_is(const tk_strpool *p, const tk_strslot *sl,
			  const char *s, size_t len, uint64_t w0, uint64_t w1)
{
	return sl->len1 == len + 1 && sl->w0 == w0 && sl->w1 == w1 &&
	       (len <= 16 ||
		memcmp(p->ptrs[sl->id] + 16, s + 16, len - 16) == 0);
}

tk_str tk_strpool_find(const tk_strpool *p, const char *s, size_t len)
{
	uint64_t w0, w1;
	uint32_t j;

	if (!p->slots || len > UINT32_MAX - 1)
		return TK_NONE;
	load16(s, len, s + len, &w0, &w1);
	for (j = hash_of(s, len, w0, w1) >> p->shift; p->slots[j].len1;
	     j = (j + 1) & p->mask)
		if (slot_is(p, &p->slots[j], s, len, w0, w1))
			return p->slots[j].id;
	return TK_NONE;
}

tk_str tk_strpool_intern_in(tk_strpool *p, const char *s, size_t len,
			    const char *limit)
{
	uint64_t w0, w1;
	uint32_t j, id, h, cap;
	const char *copy;

	if (TK_UNLIKELY(len > UINT32_MAX - 1))
		return TK_NONE;
	if (TK_UNLIKELY(!p->slots))
		tk_hash_init();  /* (a pool set up by memset) */
	load16(s, len, limit, &w0, &w1);
	h = hash_of(s, len, w0, w1);
	if (TK_LIKELY(p->slots != NULL)) {
		for (j = h >> p->shift; p->slots[j].len1; j = (j + 1) & p->mask)
			if (slot_is(p, &p->slots[j], s, len, w0, w1))
				return p->slots[j].id;
	}
	/* ptrs and lens grow alike from the same capacity */
	cap = p->cap;
	if (p->count >= (1u << 29) ||
	    tk_grow_zero32((void **)&p->ptrs, &cap, p->count,
			   sizeof(*p->ptrs)) < 0 ||
	    tk_grow_zero32((void **)&p->lens, &p->cap, p->count,
			   sizeof(*p->lens)) < 0)
		return TK_NONE;
	/* keep the load factor under 1/2 */
	if (!p->slots || (p->count + 1) * 2 > p->mask + 1) {
		if (grow_table(p) < 0)
			return TK_NONE;
	}
	copy = tk_strpool_dup(p, s, len);
	if (!copy)
		return TK_NONE;
	id = p->count++;
	p->ptrs[id] = copy;
	p->lens[id] = (uint32_t)len;
	for (j = h >> p->shift; p->slots[j].len1; j = (j + 1) & p->mask)
		;
	p->slots[j].w0 = w0;
	p->slots[j].w1 = w1;
	p->slots[j].len1 = (uint32_t)len + 1;
	p->slots[j].id = id;
	return id;
}

tk_str tk_strpool_intern(tk_strpool *p, const char *s, size_t len)
{
	return tk_strpool_intern_in(p, s, len, s + len);
}
