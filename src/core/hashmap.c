/* hashmap.c - the library's one hash map (hashmap.h), and tk_counts
 * (tracekit.h) over it. */
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 64u

void tk_hashmap_init(tk_hashmap *m)
{
	tk_hash_init();
	memset(m, 0, sizeof(*m));
}

void tk_hashmap_free(tk_hashmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* A table of `size` slots (a power of two) with every entry of m moved
 * in.  TK_OK or TK_E_NOMEM (m unchanged). */
static int rehash(tk_hashmap *m, uint32_t size)
{
	tk_hslot *t = calloc(size, sizeof(*t));
	uint32_t i, j, mask = size - 1;

	if (!t)
		return TK_E_NOMEM;
	tk_hash_init();  /* (a map set up by memset) */
	for (i = 0; m->slots && i <= m->mask; i++) {
		if (!m->slots[i].used)
			continue;
		j = (uint32_t)(tk_hash64(m->slots[i].key) >> 32) & mask;
		while (t[j].used)
			j = (j + 1) & mask;
		t[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = t;
	m->mask = mask;
	return TK_OK;
}

/* The size of a table that holds n entries at most half full. */
static int size_for(uint32_t n, uint32_t *size)
{
	uint32_t s = MIN_SLOTS;

	while (s / 2 < n) {
		if (s > UINT32_MAX / 4)
			return TK_E_NOMEM;
		s *= 2;
	}
	*size = s;
	return TK_OK;
}

int tk_hashmap_reset(tk_hashmap *m, uint32_t n)
{
	uint32_t size;

	if (size_for(n, &size) < 0)
		return TK_E_NOMEM;
	m->count = 0;
	if (m->slots && m->mask + 1 >= size) {
		memset(m->slots, 0, ((size_t)m->mask + 1) * sizeof(*m->slots));
		return TK_OK;
	}
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	return rehash(m, size);
}

/* Room for one more entry.  TK_OK or TK_E_NOMEM. */
static int room(tk_hashmap *m)
{
	uint32_t size;

	if (m->slots && (m->count + 1) <= (m->mask + 1) / 2)
		return TK_OK;
	if (m->count == UINT32_MAX || size_for(m->count + 1, &size) < 0)
		return TK_E_NOMEM;
	return rehash(m, size);
}

/* The slot of key, or the empty slot where it would go. */
static uint32_t find(const tk_hashmap *m, uint64_t key)
{
	uint32_t i = tk_hashmap_home(m, key);

	while (m->slots[i].used && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

uint32_t *tk_hashmap_slot(tk_hashmap *m, uint64_t key, int *created)
{
	uint32_t i;

	*created = 0;
	if (m->count) {
		i = find(m, key);
		if (m->slots[i].used)
			return &m->slots[i].val;
	}
	if (room(m) < 0)
		return NULL;
	i = find(m, key);
	m->slots[i].used = 1;
	m->slots[i].key = key;
	m->slots[i].val = 0;
	m->count++;
	*created = 1;
	return &m->slots[i].val;
}

int tk_hashmap_set(tk_hashmap *m, uint64_t key, uint32_t val)
{
	int created;
	uint32_t *v = tk_hashmap_slot(m, key, &created);

	if (!v)
		return TK_E_NOMEM;
	*v = val;
	return TK_OK;
}

int tk_hashmap_add(tk_hashmap *m, uint64_t key, uint32_t val)
{
	uint32_t i;

	if (room(m) < 0)
		return TK_E_NOMEM;
	for (i = tk_hashmap_home(m, key); m->slots[i].used;
	     i = (i + 1) & m->mask)
		;
	m->slots[i].used = 1;
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->count++;
	return TK_OK;
}

void tk_hashmap_del_at(tk_hashmap *m, uint32_t i)
{
	uint32_t j = i, h;

	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].used)
			break;
		h = tk_hashmap_home(m, m->slots[j].key);
		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].used = 0;
	m->count--;
}

int tk_hashmap_del(tk_hashmap *m, uint64_t key)
{
	uint32_t i;

	if (!m->count)
		return 0;
	i = find(m, key);
	if (!m->slots[i].used)
		return 0;
	tk_hashmap_del_at(m, i);
	return 1;
}

/* ---- tk_counts: the map for the API's users -------------------------- */

typedef struct count_row {
	uint64_t key, n;
} count_row;

struct tk_counts {
	tk_hashmap index;     /* key -> row */
	count_row *rows;      /* in the order first added */
	size_t nrows, cap;
};

int tk_counts_new(tk_counts **out, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_counts_new", "out pointer");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return tk_err_nomem(err, NULL);
	tk_hashmap_init(&(*out)->index);
	return TK_OK;
}

int tk_counts_add(tk_counts *c, uint64_t key, uint64_t n)
{
	int created;
	uint32_t *row;

	if (c->nrows >= TK_NONE ||
	    tk_grow_zero((void **)&c->rows, &c->cap, c->nrows,
			 sizeof(*c->rows)) < 0 ||
	    !(row = tk_hashmap_slot(&c->index, key, &created)))
		return TK_E_NOMEM;
	if (created) {
		*row = (uint32_t)c->nrows++;
		c->rows[*row].key = key;
	} else if (c->rows[*row].n > UINT64_MAX - n) {
		return TK_E_RANGE;  /* the counter would wrap: unchanged */
	}
	c->rows[*row].n += n;
	return created;
}

int tk_counts_get(const tk_counts *c, uint64_t key, uint64_t *n)
{
	uint32_t row = tk_hashmap_get(&c->index, key);

	if (row == TK_NONE)
		return 0;
	if (n)
		*n = c->rows[row].n;
	return 1;
}

size_t tk_counts_size(const tk_counts *c)
{
	return c->nrows;
}

uint64_t tk_counts_key(const tk_counts *c, size_t i, uint64_t *n)
{
	if (i >= c->nrows) {
		if (n)
			*n = 0;
		return 0;
	}
	if (n)
		*n = c->rows[i].n;
	return c->rows[i].key;
}

void tk_counts_free(tk_counts *c)
{
	if (!c)
		return;
	tk_hashmap_free(&c->index);
	free(c->rows);
	free(c);
}
