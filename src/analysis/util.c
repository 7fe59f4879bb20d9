/* util.c - the analysis' instance map and exact number formatting. */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const tk_imap *m, uint32_t ent, int64_t inst)
{
	/* seeded: instance numbers come from the input (internal.h) */
	return (size_t)tk_hash64(((uint64_t)ent << 32) ^ (uint64_t)inst) &
	       (m->cap - 1);
}

void tk_imap_init(tk_imap *m, size_t vsize)
{
	tk_hash_init();
	memset(m, 0, sizeof(*m));
	m->vsize = vsize;
}

void *tk_imap_get(const tk_imap *m, uint32_t ent, int64_t inst)
{
	size_t i;

	if (!m->count)
		return NULL;
	for (i = slot_of(m, ent, inst); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->ent[i] == ent && m->inst[i] == inst)
			return m->vals + i * m->vsize;
	return NULL;
}

static int grow(tk_imap *m)
{
	tk_imap n;
	size_t i, j;

	n = *m;
	n.cap = m->cap ? m->cap * 2 : 64;
	n.count = 0;
	n.ent = calloc(n.cap, sizeof(*n.ent));
	n.inst = calloc(n.cap, sizeof(*n.inst));
	n.used = calloc(n.cap, 1);
	n.vals = calloc(n.cap, m->vsize);
	if (!n.ent || !n.inst || !n.used || !n.vals)
		goto fail;
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		for (j = slot_of(&n, m->ent[i], m->inst[i]); n.used[j];
		     j = (j + 1) & (n.cap - 1))
			;
		n.used[j] = 1;
		n.ent[j] = m->ent[i];
		n.inst[j] = m->inst[i];
		memcpy(n.vals + j * n.vsize, m->vals + i * m->vsize, m->vsize);
		n.count++;
	}
	tk_imap_free(m);
	/* field by field: after `*m = n` the static analyzer took m->used
	 * for the array just freed */
	m->ent = n.ent;
	m->inst = n.inst;
	m->used = n.used;
	m->vals = n.vals;
	m->cap = n.cap;
	m->count = n.count;
	return 0;
fail:
	free(n.ent);
	free(n.inst);
	free(n.used);
	free(n.vals);
	return -1;
}

void *tk_imap_put(tk_imap *m, uint32_t ent, int64_t inst, int *created)
{
	void *v = tk_imap_get(m, ent, inst);
	size_t i;

	if (created)
		*created = 0;
	if (v)
		return v;
	if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return NULL;
	for (i = slot_of(m, ent, inst); m->used[i]; i = (i + 1) & (m->cap - 1))
		;
	m->used[i] = 1;
	m->ent[i] = ent;
	m->inst[i] = inst;
	memset(m->vals + i * m->vsize, 0, m->vsize);
	m->count++;
	if (created)
		*created = 1;
	return m->vals + i * m->vsize;
}

void tk_imap_del(tk_imap *m, uint32_t ent, int64_t inst)
{
	size_t mask = m->cap - 1, i, j, k;

	if (!m->count)
		return;
	for (i = slot_of(m, ent, inst); m->used[i]; i = (i + 1) & mask)
		if (m->ent[i] == ent && m->inst[i] == inst)
			break;
	if (!m->used[i])
		return;
	/* backward-shift deletion (Knuth 6.4 algorithm R) */
	m->used[i] = 0;
	m->count--;
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		k = slot_of(m, m->ent[j], m->inst[j]);
		/* move j to the hole i unless its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->used[i] = 1;
		m->ent[i] = m->ent[j];
		m->inst[i] = m->inst[j];
		memcpy(m->vals + i * m->vsize, m->vals + j * m->vsize, m->vsize);
		m->used[j] = 0;
		i = j;
	}
}

void tk_imap_free(tk_imap *m)
{
	free(m->ent);
	free(m->inst);
	free(m->used);
	free(m->vals);
	m->ent = NULL;
	m->inst = NULL;
	m->used = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
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
