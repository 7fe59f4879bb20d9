/*
 * hashmap.h - the library's one hash map: 64-bit keys to 32-bit values.
 *
 * Open addressing with linear probing, at most half full, no tombstones
 * (deletion shifts the following entries back).  The slot of a key comes
 * from tk_hash64(), seeded per process (hash.c), because the keys are the
 * input's: ids, numbers, string ids.
 *
 * Two uses:
 *  - a map: one value per key (tk_hashmap_get / _set / _slot / _del);
 *  - an index of a caller's array by a key that does not fit 64 bits (a
 *    struct, a string, a pair): the key given is the caller's hash of it,
 *    several entries may share it, and the caller compares its own records
 *    while walking them (tk_hashmap_add / _first / _next / _del_at).  A
 *    string-keyed table is the pool of interned strings (internal.h): a
 *    string's id is a 64-bit key here.
 *
 * A zeroed tk_hashmap is empty and valid; free it with tk_hashmap_free().
 */
#ifndef TK_HASHMAP_H
#define TK_HASHMAP_H

#include "internal.h"

#include <stdint.h>

typedef struct tk_hslot {
	uint64_t key;
	uint32_t val;
	uint32_t used;        /* 0: empty */
} tk_hslot;

typedef struct tk_hashmap {
	tk_hslot *slots;      /* NULL until the first insertion */
	uint32_t mask;        /* slots - 1 (a power of two) */
	uint32_t count;
} tk_hashmap;

/* What tk_hashmap_first() and _next() return after the last entry. */
#define TK_HASHMAP_END UINT32_MAX

void tk_hashmap_init(tk_hashmap *m);
void tk_hashmap_free(tk_hashmap *m);
/* Empty the map, keeping room for n entries without growing.  TK_OK or
 * TK_E_NOMEM (the map is then empty and unchanged in size). */
int tk_hashmap_reset(tk_hashmap *m, uint32_t n);

/* The home slot of a key (the map has slots). */
static inline uint32_t tk_hashmap_home(const tk_hashmap *m, uint64_t key)
{
	return (uint32_t)(tk_hash64(key) >> 32) & m->mask;
}

/* Set the value of `key` (added or replaced).  TK_OK or TK_E_NOMEM. */
int tk_hashmap_set(tk_hashmap *m, uint64_t key, uint32_t val);
/* The value of `key`, added as 0 (*created = 1) when absent; NULL: out of
 * memory.  Valid until the next insertion or deletion. */
uint32_t *tk_hashmap_slot(tk_hashmap *m, uint64_t key, int *created);
/* Remove `key`: 1 if it was there, 0 if not. */
int tk_hashmap_del(tk_hashmap *m, uint64_t key);

/* Index use: add an entry whether or not the key is there.  TK_OK or
 * TK_E_NOMEM. */
int tk_hashmap_add(tk_hashmap *m, uint64_t key, uint32_t val);

/* The slot of the first entry of `key`, or TK_HASHMAP_END. */
static inline uint32_t tk_hashmap_first(const tk_hashmap *m, uint64_t key)
{
	uint32_t i;

	if (!m->count)
		return TK_HASHMAP_END;
	TK_ANALYZER_ASSUME(m->slots != NULL); /* an entry has a slot */
	for (i = tk_hashmap_home(m, key); m->slots[i].used;
	     i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return i;
	return TK_HASHMAP_END;
}

/* The slot of the entry of `key` after slot i, or TK_HASHMAP_END. */
static inline uint32_t tk_hashmap_next(const tk_hashmap *m, uint64_t key,
				       uint32_t i)
{
	for (i = (i + 1) & m->mask; m->slots[i].used; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return i;
	return TK_HASHMAP_END;
}

/* The value of `key`, or TK_NONE (UINT32_MAX) if it is absent. */
static inline uint32_t tk_hashmap_get(const tk_hashmap *m, uint64_t key)
{
	uint32_t i = tk_hashmap_first(m, key);

	if (i == TK_HASHMAP_END)
		return TK_NONE;
	TK_ANALYZER_ASSUME(m->slots != NULL); /* i is an entry's slot */
	return m->slots[i].val;
}

/* Remove the entry in slot i (from tk_hashmap_first() or _next()). */
void tk_hashmap_del_at(tk_hashmap *m, uint32_t i);

#endif
