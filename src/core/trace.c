/* trace.c - trace metadata: header entries, time base, entity table. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

tk_trace *tk_trace_alloc(const char *format)
{
	tk_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->format = format;
	t->tb.unit = TK_UNIT_NS;
	t->tb.num = 1;
	t->tb.den = 1;
	tk_strpool_init(&t->pool);
	return t;
}

void tk_trace_free(tk_trace *t)
{
	unsigned k;

	if (!t)
		return;
	tk_strpool_free(&t->pool);
	free(t->hdr_departs);
	for (k = 0; k < TK_ENT_CHUNKS; k++) {
		free(t->hdr_chunk[k]);
		free(t->ent_chunk[k]);
	}
	free(t->ent_of_str);
	free(t);
}

void tk_trace_set_timebase(tk_trace *t, const tk_timebase *tb)
{
	t->tb.unit = tb->unit;
	t->tb.num = tb->num ? tb->num : 1;
	t->tb.den = tb->den ? tb->den : 1;
}

const char *tk_trace_format(const tk_trace *t)
{
	return t->format;
}

const tk_timebase *tk_trace_timebase(const tk_trace *t)
{
	return &t->tb;
}

size_t tk_trace_header_count(const tk_trace *t)
{
	return t->nhdr;
}

/* chunk k of a table in chunks (internal.h) of elements of `size` bytes:
 * as large as the table before it, so that the elements already given
 * out stay where they are (the entities, the header entries); NULL when
 * out of memory */
static void *chunk_new(unsigned k, size_t size)
{
	size_t n = k ? (size_t)TK_ENT_CHUNK0 << (k - 1) : TK_ENT_CHUNK0;

	return malloc(n * size);
}

const tk_header_entry *tk_trace_header(const tk_trace *t, size_t i)
{
	uint32_t off;
	unsigned k;

	if (i >= t->nhdr)
		return NULL;
	k = tk_ent_chunk_of((uint32_t)i, &off);
	return &t->hdr_chunk[k][off];
}

const char *tk_trace_header_get(const tk_trace *t, const char *key)
{
	size_t i;

	if (!key)
		return NULL; /* a NULL key finds nothing */
	/* the first: a later header block's repetition (Trace Compass's
	 * second #creator) is the one every writer drops (docs/mappings.md) */
	for (i = 0; i < t->nhdr; i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		if (h->kind == TK_HDR_PARAM &&
		    tk_ascii_casecmp(h->key, strlen(h->key), key) == 0)
			return h->value;
	}
	return NULL;
}

const char *const tk_cycle_units[TK_NCYCLE_UNITS] = { "clk", "cyc", "tic", "cs" };

int tk_cycle_unit_find(const char *s)
{
	int i;

	for (i = 0; i < TK_NCYCLE_UNITS; i++)
		if (strcmp(s, tk_cycle_units[i]) == 0)
			return i;
	return -1;
}

const char *tk_trace_cycle_unit(const tk_trace *t)
{
	/* the cycle units of the Tarmac reader, which writes the header
	 * line; any other value (a line written by hand) says nothing of
	 * the ticks, and labels no time in a table */
	const char *u = tk_trace_header_get(t, "tarmacTimeUnit");
	int i = u ? tk_cycle_unit_find(u) : -1;

	return i < 0 ? NULL : tk_cycle_units[i];
}

int tk_trace_header_push(tk_trace *t, tk_hdr_kind kind, const char *key,
			 size_t klen, const char *value, size_t vlen,
			 int has_value)
{
	tk_header_entry *h;
	uint32_t off;
	unsigned k;

	if (t->nhdr == UINT32_MAX)
		return TK_E_NOMEM;
	k = tk_ent_chunk_of(t->nhdr, &off);
	if (!t->hdr_chunk[k] &&
	    !(t->hdr_chunk[k] = chunk_new(k, sizeof(tk_header_entry))))
		return TK_E_NOMEM;
	h = &t->hdr_chunk[k][off];
	h->kind = kind;
	h->key = tk_strpool_dup(&t->pool, key, klen);
	h->value = tk_strpool_dup(&t->pool, value, vlen);
	h->has_value = has_value;
	if (!h->key || !h->value)
		return TK_E_NOMEM;
	t->nhdr++;
	return TK_OK;
}

int tk_trace_header_mark_departure(tk_trace *t)
{
	size_t i;

	if (!t->nhdr)
		return TK_OK;
	i = t->nhdr - 1;
	if (tk_grow_zero((void **)&t->hdr_departs, &t->cap_hdr_departs, i,
			 sizeof(*t->hdr_departs)) < 0)
		return TK_E_NOMEM;
	t->hdr_departs[i] = 1;
	return TK_OK;
}

int tk_trace_header_departs(const tk_trace *t, size_t i)
{
	return i < t->nhdr && i < t->cap_hdr_departs && t->hdr_departs[i];
}

/* ---- traces built in code ---------------------------------------------- */

int tk_trace_new(tk_trace **out, const tk_timebase *tb, tk_error *err)
{
	if (!out)
		return tk_err_set(err, TK_E_USAGE, "tk_trace_new", 0, 0, "no place for the trace");
	*out = NULL;
	if (!tb || !tb->num || !tb->den || (unsigned)tb->unit > TK_UNIT_S)
		return tk_err_set(err, TK_E_USAGE, "tk_trace_new", 0, 0,
				  "a time base needs a unit from ps to s and num, den >= 1");
	if (!(*out = tk_trace_alloc("api")))
		return tk_err_nomem(err, "tk_trace_new");
	tk_trace_set_timebase(*out, tb);
	return TK_OK;
}

static int has_break(const char *s, size_t n)
{
	return n && (memchr(s, '\n', n) || memchr(s, '\r', n));
}

int tk_trace_add_header(tk_trace *t, tk_hdr_kind kind, const char *key,
			size_t klen, const char *value, size_t vlen,
			int has_value)
{
	if (!t || (klen && !key) || (vlen && !value) || (unsigned)kind > TK_HDR_ROW ||
	    has_break(key, klen) || has_break(value, vlen) ||
	    (kind != TK_HDR_COMMENT && !klen))
		return TK_E_USAGE;
	return tk_trace_header_push(t, kind, key ? key : "", klen, value ? value : "",
				    vlen, has_value);
}

int tk_trace_intern(tk_trace *t, const char *s, size_t len, tk_str *out)
{
	tk_str id;

	if (!t || !out || (len && !s))
		return TK_E_USAGE;
	id = tk_strpool_intern(&t->pool, s ? s : "", len);
	if (id == TK_NONE)
		return TK_E_NOMEM;
	*out = id;
	return TK_OK;
}

int tk_trace_add_entity(tk_trace *t, const char *name, size_t len,
			tk_etype type, uint32_t parent, uint32_t *id)
{
	tk_entity *e;
	uint32_t i;

	if (!t || !id || !name || !len || (unsigned)type >= TK_ET_COUNT ||
	    (parent != TK_NONE && parent >= t->nents))
		return TK_E_USAGE;
	i = tk_trace_entity_intern(t, name, len);
	if (i == TK_NONE)
		return TK_E_NOMEM;
	e = tk_trace_ent(t, i);
	if (type != TK_ET_UNKNOWN) {
		if (e->type != TK_ET_UNKNOWN && e->type != type)
			return TK_E_USAGE;
		e->type = type;
	}
	if (parent != TK_NONE) {
		if (parent == i || (e->parent != TK_NONE && e->parent != parent))
			return TK_E_USAGE;
		e->parent = parent;
	}
	*id = i;
	return TK_OK;
}

const char *tk_trace_str(const tk_trace *t, tk_str s, size_t *len)
{
	if (s >= t->pool.count) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = t->pool.lens[s];
	return t->pool.ptrs[s];
}

size_t tk_trace_entity_count(const tk_trace *t)
{
	return t->nents;
}

const tk_entity *tk_trace_entity(const tk_trace *t, uint32_t id)
{
	return id < t->nents ? tk_trace_ent(t, id) : NULL;
}

uint32_t tk_trace_entity_find(const tk_trace *t, const char *name, size_t len)
{
	tk_str s = name ? tk_strpool_find(&t->pool, name, len) : TK_NONE;

	if (s == TK_NONE || s >= t->cap_ent_of_str)
		return TK_NONE;
	return t->ent_of_str[s];
}

uint32_t tk_trace_entity_get(tk_trace *t, tk_str name)
{
	tk_entity *e;
	uint32_t id, off;
	unsigned k;

	if (name == TK_NONE)
		return TK_NONE;
	if (name >= t->cap_ent_of_str) {
		uint32_t old = t->cap_ent_of_str;
		if (tk_grow_zero32((void **)&t->ent_of_str, &t->cap_ent_of_str,
				   name, sizeof(*t->ent_of_str)) < 0)
			return TK_NONE;
		/* the new ones TK_NONE */
		memset(t->ent_of_str + old, 0xff,
		       (t->cap_ent_of_str - old) * sizeof(*t->ent_of_str));
	}
	id = t->ent_of_str[name];
	if (TK_LIKELY(id != TK_NONE))
		return id;
	if (t->nents == TK_NONE)
		return TK_NONE; /* TK_NONE itself is no id */
	id = t->nents;
	k = tk_ent_chunk_of(id, &off);
	if (!t->ent_chunk[k] &&
	    !(t->ent_chunk[k] = chunk_new(k, sizeof(tk_entity))))
		return TK_NONE;
	e = &t->ent_chunk[k][off];
	e->name = name;
	e->type = TK_ET_UNKNOWN;
	e->type_name = TK_NONE;
	e->parent = TK_NONE;
	t->nents++;
	t->ent_of_str[name] = id;
	return id;
}

uint32_t tk_trace_entity_intern(tk_trace *t, const char *name, size_t len)
{
	return tk_trace_entity_get(t, tk_strpool_intern(&t->pool, name, len));
}
