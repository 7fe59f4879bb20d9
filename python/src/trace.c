/*
 * trace.c - tracekit.open(), tracekit.Trace, tracekit.Event and the
 * columnar reading behind Trace.to_numpy() and Trace.to_pandas().
 *
 * A Trace keeps what open() was given (pytk_trace_head) and the metadata
 * the open read (format, time base, header); every reading (events(),
 * info, entities, to_numpy(), to_pandas()) opens the path again with the
 * open()'s arguments, those of the call taking precedence; an input that
 * can be read only once (standard input, a pipe or FIFO) is read whole by
 * open() and each reading reads those bytes (read_once()).
 */
#include "pytk.h"

#include <stdlib.h>
#include <string.h>
#include <structmember.h>
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

typedef struct pytk_trace {
	pytk_trace_head head;
	PyObject *format;     /* str */
	PyObject *timebase;   /* Fraction: seconds per tick */
	PyObject *header;     /* list of (kind, key, value) */
	PyObject *cycle_unit; /* str: the cycles the ticks count ("clk"), or None */
	PyObject *info;       /* dict, made by the first .info or .entities */
	PyObject *entities;   /* list of dicts, likewise */
} pytk_trace;

static PyTypeObject *event_type, *iter_type, *buffer_type;

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

PyObject *pytk_str(const char *s, size_t n)
{
	char *buf;
	size_t i, len, at = 0;
	PyObject *r;

	if (!s)
		return PyUnicode_FromStringAndSize("", 0);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			break;
	if (i == n)
		return PyUnicode_DecodeASCII(s, (Py_ssize_t)n, NULL);
	for (; i < n; i += len)
		if (!(len = (unsigned char)s[i] < 0x80 ? 1
			    : tk_utf8_len((const unsigned char *)s + i, n - i)))
			break;
	if (i == n)
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, NULL);
	/* stray bytes: each becomes U+FFFD (3 bytes), at most 3n in all */
	if (n > SIZE_MAX / 3 || !(buf = PyMem_Malloc(3 * n))) {
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < n; i += len) {
		if ((unsigned char)s[i] < 0x80) {
			len = 1;
			buf[at++] = s[i];
		} else if ((len = tk_utf8_len((const unsigned char *)s + i, n - i))) {
			memcpy(buf + at, s + i, len);
			at += len;
		} else {
			len = 1;
			memcpy(buf + at, "\xef\xbf\xbd", 3);
			at += 3;
		}
	}
	r = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)at, NULL);
	PyMem_Free(buf);
	return r;
}

/* interned string `s` of `t` as a str */
static PyObject *trace_str(const tk_trace *t, tk_str s)
{
	size_t n = 0;
	const char *p = tk_trace_str(t, s, &n);

	return pytk_str(p, p ? n : 0);
}

/* the target type of an event as written (its canonical name if not kept) */
static PyObject *event_type_name(const tk_trace *t, const tk_event *ev)
{
	if (ev->type_name != TK_NONE)
		return trace_str(t, ev->type_name);
	return PyUnicode_FromString(tk_etype_name(ev->type));
}

static PyObject *event_name(const tk_trace *t, const tk_event *ev)
{
	if (ev->name != TK_NONE)
		return trace_str(t, ev->name);
	return PyUnicode_FromString(tk_evkind_name(ev->kind));
}

static const char *hdr_kind(tk_hdr_kind k)
{
	return k == TK_HDR_PARAM ? "param" : k == TK_HDR_ROW ? "row" : "comment";
}

/* [(kind, key, value), ...] of the trace's header */
static PyObject *header_list(const tk_trace *t)
{
	size_t i, n = tk_trace_header_count(t);
	PyObject *l = PyList_New((Py_ssize_t)n);

	for (i = 0; l && i < n; i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		PyObject *k = pytk_str(h->key, strlen(h->key));
		/* None for a key written alone ("#entityType"), so that
		 * write() gives the line back as it was */
		PyObject *v = h->has_value ? pytk_str(h->value, strlen(h->value))
					   : Py_NewRef(Py_None);
		PyObject *tup = k && v ? Py_BuildValue("(sOO)", hdr_kind(h->kind), k, v) : NULL;

		Py_XDECREF(k);
		Py_XDECREF(v);
		if (!tup) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, tup);
	}
	return l;
}

/* an entity's type as a str: the canonical name, the name as written for a
 * type tracekit does not know, None while not known */
static PyObject *entity_type(const tk_trace *t, const tk_entity *e)
{
	if (e->type == TK_ET_UNKNOWN)
		Py_RETURN_NONE;
	if (e->type == TK_ET_OTHER && e->type_name != TK_NONE)
		return trace_str(t, e->type_name);
	return PyUnicode_FromString(tk_etype_name(e->type));
}

/* [{"name", "type", "parent"}, ...] in entity id order */
static PyObject *entity_list(const tk_trace *t)
{
	size_t i, n = tk_trace_entity_count(t);
	PyObject *l = PyList_New((Py_ssize_t)n), *names = PyList_New((Py_ssize_t)n);

	if (!l || !names)
		goto fail;
	for (i = 0; i < n; i++) {
		PyObject *s = trace_str(t, tk_trace_entity(t, (uint32_t)i)->name);

		if (!s)
			goto fail;
		PyList_SET_ITEM(names, (Py_ssize_t)i, s);
	}
	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		PyObject *ty = entity_type(t, e), *d;
		PyObject *parent = e->parent < n ? PyList_GET_ITEM(names, (Py_ssize_t)e->parent)
						 : Py_None;

		if (!ty)
			goto fail;
		d = Py_BuildValue("{sOsNsO}", "name", PyList_GET_ITEM(names, (Py_ssize_t)i),
				  "type", ty, "parent", parent);
		if (!d)
			goto fail;
		PyList_SET_ITEM(l, (Py_ssize_t)i, d);
	}
	Py_DECREF(names);
	return l;
fail:
	Py_XDECREF(l);
	Py_XDECREF(names);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Small hash tables (no per-event allocation)                               */
/* ------------------------------------------------------------------------ */

/* u64 key -> u64 count; count 0 is an empty slot */
typedef struct u64map {
	uint64_t *key, *val;
	size_t cap, n;    /* cap: 0 or a power of two */
} u64map;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static int u64map_grow(u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *key = PyMem_RawCalloc(cap, sizeof *key), *val = PyMem_RawCalloc(cap, sizeof *val);

	if (!key || !val) {
		PyMem_RawFree(key);
		PyMem_RawFree(val);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->val[i])
			continue;
		for (j = mix64(m->key[i]) & (cap - 1); val[j]; j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	PyMem_RawFree(m->key);
	PyMem_RawFree(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

static int u64map_add(u64map *m, uint64_t key, uint64_t n)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && u64map_grow(m) < 0)
		return -1;
	for (j = mix64(key) & (m->cap - 1); m->val[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == key) {
			m->val[j] += n;
			return 0;
		}
	m->key[j] = key;
	m->val[j] = n;
	m->n++;
	return 0;
}

static void u64map_free(u64map *m)
{
	PyMem_RawFree(m->key);
	PyMem_RawFree(m->val);
	memset(m, 0, sizeof *m);
}

/*
 * Distinct byte strings -> dense codes 0, 1, ... in order of first sight
 * (the notes: tens of thousands of distinct ones in a large trace, met in
 * no order, so that a lookup is a cache miss).  A slot holds what settles
 * a lookup alone for a string of up to 16 bytes (its bytes as two zero-
 * padded words and its length), so that a lookup touches one slot, not a
 * slot, an entry and the bytes; a longer string is compared in `bytes`.
 * The slots are looked up (prefetched) before they are needed: see
 * strmap_key() and columns_add().
 */
typedef struct strent {
	size_t off, len;     /* where its bytes are in `bytes` */
} strent;

/* a string's key: its bytes (up to 16) or 0, 0 (longer), its hash */
typedef struct strkey {
	uint64_t w0, w1, hash;
} strkey;

/* a slot of the table: the key, the length and the code + 1 (0: empty);
 * 32 bytes, so that no slot spans two cache lines */
typedef struct strslot {
	uint64_t w0, w1, hash;
	uint32_t len;
	int32_t code;
} strslot;

typedef struct strmap {
	strslot *slot;       /* cap long (mem_resize()) */
	size_t cap;
	strent *ent;         /* per code */
	size_t n, ncap;
	char *bytes;
	size_t nbytes, bcap;
} strmap;

/*
 * The failures of the parts that run without the GIL (the reading loops):
 * no exception is set there, fill_raise() sets it once the GIL is back.
 */
enum { FILL_NOMEM = -1, FILL_NOTES = -2 };

static PyObject *fill_raise(int rc)
{
	if (rc == FILL_NOTES)
		return pytk_raise_msg(TK_E_RANGE, "more than 2**31 distinct notes");
	return PyErr_NoMemory();
}

/* *pp grown to `need` elements of `elem` bytes at least (doubling); -1 on
 * out of memory, no exception set (PyMem_Raw*: no GIL needed) */
static int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	size_t c = *cap ? *cap : 16;
	void *q;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return 0;
	if (c > SIZE_MAX / elem || !(q = PyMem_RawRealloc(*p, c * elem)))
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static char *mem_resize(char *p, size_t old, size_t size);
static void mem_free(char *p, size_t size);

/* a hash of n bytes, 8 at a time */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = mix64(h ^ w);
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = mix64(h ^ w ^ 0xff51afd7ed558ccdull);
	}
	return h;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* the n (0 to 8) bytes at s as a little-endian word, zero-padded, reading
 * no byte past them (overlapping loads: a byte read twice is the same
 * byte at the same place) */
static inline uint64_t load_upto8(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t a, b;

	if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		return (uint64_t)a | (uint64_t)b << (8 * (n - 4));
	}
	if (!n)
		return 0;
	return (uint64_t)u[0] | (uint64_t)u[n >> 1] << (8 * (n >> 1)) |
	       (uint64_t)u[n - 1] << (8 * (n - 1));
}
#endif

/* the key of the n bytes at s */
static inline strkey strmap_key(const char *s, size_t n)
{
	strkey k;

	if (n > 16) {
		k.w0 = k.w1 = 0;
		k.hash = str_hash(s, n);
		return k;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n > 8) {
		memcpy(&k.w0, s, 8);
		k.w1 = load_upto8(s + 8, n - 8);
	} else {
		k.w0 = load_upto8(s, n);
		k.w1 = 0;
	}
#else
	{
		uint64_t w[2] = { 0, 0 };

		memcpy(w, s, n);
		k.w0 = w[0];
		k.w1 = w[1];
	}
#endif
	k.hash = mix64(k.w0 ^ (k.w1 * 0x9e3779b97f4a7c15ull) ^ n);
	return k;
}

/* the slot where the string of key k is, or would be put */
static inline const strslot *strmap_where(const strmap *m, const strkey *k)
{
	return m->cap ? &m->slot[k->hash & (m->cap - 1)] : NULL;
}

/* the table grown to twice its size: 0, or -1 out of memory */
static int strmap_grow(strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, j;
	strslot *slot;

	if (cap > SIZE_MAX / sizeof *slot ||
	    !(slot = (strslot *)(void *)mem_resize(NULL, 0, cap * sizeof *slot)))
		return -1;
#if !defined(__linux__)
	memset(slot, 0, cap * sizeof *slot);
#endif
	/* every slot empty (fresh pages are zeros) */
	for (i = 0; i < m->cap; i++) {
		const strslot *o = &m->slot[i];

		if (!o->code)
			continue;
		for (j = o->hash & (cap - 1); slot[j].code; j = (j + 1) & (cap - 1))
			;
		slot[j] = *o;
	}
	mem_free((char *)m->slot, m->cap * sizeof *slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

/* the code of `s` (n bytes, key k), added when new; FILL_NOMEM or
 * FILL_NOTES (no exception set: called without the GIL) */
static int32_t strmap_code(strmap *m, const char *s, size_t n, const strkey *k)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && strmap_grow(m) < 0)
		return FILL_NOMEM;
	for (j = k->hash & (m->cap - 1); m->slot[j].code; j = (j + 1) & (m->cap - 1)) {
		const strslot *sl = &m->slot[j];
		const strent *e;

		if (((sl->w0 ^ k->w0) | (sl->w1 ^ k->w1) | (sl->hash ^ k->hash)) || sl->len != n)
			continue;
		if (n <= 16)
			return sl->code - 1;
		e = &m->ent[sl->code - 1];
		if (e->len == n && !memcmp(m->bytes + e->off, s, n))
			return sl->code - 1;
	}
	if (m->n >= INT32_MAX - 1 || n > UINT32_MAX)
		return FILL_NOTES;
	if (grow(&m->ent, &m->ncap, m->n + 1, sizeof *m->ent) < 0 ||
	    grow(&m->bytes, &m->bcap, m->nbytes + n + 1, 1) < 0)
		return FILL_NOMEM;
	memcpy(m->bytes + m->nbytes, s, n);
	m->ent[m->n].off = m->nbytes;
	m->ent[m->n].len = n;
	m->nbytes += n;
	m->slot[j].w0 = k->w0;
	m->slot[j].w1 = k->w1;
	m->slot[j].hash = k->hash;
	m->slot[j].len = (uint32_t)n;
	m->slot[j].code = (int32_t)m->n + 1;
	return (int32_t)m->n++;
}

static void strmap_free(strmap *m)
{
	mem_free((char *)m->slot, m->cap * sizeof *m->slot);
	PyMem_RawFree(m->ent);
	PyMem_RawFree(m->bytes);
	memset(m, 0, sizeof *m);
}

/* [str, ...] of the strings of `m` in code order */
static PyObject *strmap_list(const strmap *m)
{
	PyObject *l = PyList_New((Py_ssize_t)m->n);
	size_t i;

	for (i = 0; l && i < m->n; i++) {
		PyObject *s = pytk_str(m->bytes + m->ent[i].off, m->ent[i].len);

		if (!s) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, s);
	}
	return l;
}

/*
 * Interned string id -> dense code, for the target types and event names:
 * an array indexed by the id (ids are dense in a trace's pool), and one of
 * TK_ET_COUNT / TK_EV_COUNT slots for the events whose name was not kept
 * (TK_NONE: the canonical name).  The codes' names are made at the end.
 */
typedef struct idmap {
	int32_t *code;       /* per id: code + 1, 0 not seen */
	size_t cap;
	int32_t canon[64];        /* >= TK_EV_COUNT and TK_ET_COUNT */
	uint64_t *ids;       /* per code: id, or 1 << 32 | canonical index */
	size_t n, ncap;
} idmap;

static int32_t idmap_add(idmap *m, uint64_t key)
{
	if (grow(&m->ids, &m->ncap, m->n + 1, sizeof *m->ids) < 0)
		return -1;
	m->ids[m->n] = key;
	return (int32_t)m->n++;
}

static inline int32_t idmap_code(idmap *m, tk_str id, unsigned canon)
{
	int32_t c;

	if (id < m->cap && m->code[id])
		return m->code[id] - 1;
	if (id == TK_NONE) {
		if (canon >= sizeof m->canon / sizeof m->canon[0])
			canon = 0;
		if (m->canon[canon])
			return m->canon[canon] - 1;
		if ((c = idmap_add(m, (uint64_t)1 << 32 | canon)) < 0)
			return -1;
		m->canon[canon] = c + 1;
		return c;
	}
	if (id >= m->cap) {
		size_t old = m->cap;

		if (grow(&m->code, &m->cap, (size_t)id + 1, sizeof *m->code) < 0)
			return -1;
		memset(m->code + old, 0, (m->cap - old) * sizeof *m->code);
	}
	if ((c = idmap_add(m, id)) < 0)
		return -1;
	m->code[id] = c + 1;
	return c;
}

static void idmap_free(idmap *m)
{
	PyMem_RawFree(m->code);
	PyMem_RawFree(m->ids);
	memset(m, 0, sizeof *m);
}

/* the names of the codes of `m`: `types` says which canonical names */
static PyObject *idmap_list(const idmap *m, const tk_trace *t, int types)
{
	PyObject *l = PyList_New((Py_ssize_t)m->n);
	size_t i;

	for (i = 0; l && i < m->n; i++) {
		uint64_t k = m->ids[i];
		PyObject *s;

		if (k >> 32)
			s = PyUnicode_FromString(types ? tk_etype_name((tk_etype)(k & 0xffffffffu))
						 : tk_evkind_name((tk_evkind)(k & 0xffffffffu)));
		else
			s = trace_str(t, (tk_str)k);
		if (!s) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, s);
	}
	return l;
}

/* Large columns in huge pages where the system gives them on request: a
 * page fault per 2 MiB, not per 4 KiB, as the columns are first written.
 * The whole mapping is advised (a part would split it, and mremap() moves
 * one mapping only). */
static void huge_pages(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (size >= (2u << 20))
		(void)madvise(p, size, MADV_HUGEPAGE);
#else
	(void)p;
	(void)size;
#endif
}

/*
 * The memory of the columns: on Linux anonymous pages of their own, grown
 * by mremap() (the page tables move, the bytes are not copied: no second
 * copy while growing) in huge pages; elsewhere PyMem_RawRealloc().
 */
#if defined(__linux__)
static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return n > SIZE_MAX - pg ? SIZE_MAX : (n + pg - 1) / pg * pg;
}
#endif

/* `p` of `old` bytes (NULL, 0: none yet) resized to `size` > 0 bytes, or
 * NULL (p unchanged) */
static char *mem_resize(char *p, size_t old, size_t size)
{
#if defined(__linux__)
	size_t o = page_round(old), n = page_round(size);
	void *q;

	if (p && o == n)
		return p;
	q = p ? mremap(p, o, n, MREMAP_MAYMOVE)
	      : mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	huge_pages(q, n);
	return q;
#else
	(void)old;
	return PyMem_RawRealloc(p, size);
#endif
}

static void mem_free(char *p, size_t size)
{
	if (!p)
		return;
#if defined(__linux__)
	munmap(p, page_round(size));
#else
	(void)size;
	PyMem_RawFree(p);
#endif
}

/* ------------------------------------------------------------------------ */
/* A buffer of bytes (np.frombuffer() takes it without a copy)               */
/* ------------------------------------------------------------------------ */

/*
 * The tp_new of the types made here alone (tracekit.open(), Trace.events(),
 * the readings): made from Python they had no path, no reader, no memory,
 * and their first use crashed.
 */
static PyObject *no_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	(void)args;
	(void)kwargs;
	PyErr_Format(PyExc_TypeError, "cannot create '%s' objects%s", type->tp_name,
		     strcmp(type->tp_name, "tracekit.Trace") == 0 ?
		     ": tracekit.open(path) opens a trace" : "");
	return NULL;
}

typedef struct pytk_buffer {
	PyObject_HEAD
	char *data;
	Py_ssize_t size;
	Py_ssize_t exports;
} pytk_buffer;

static void buffer_dealloc(PyObject *self)
{
	pytk_buffer *b = (pytk_buffer *)self;
	PyTypeObject *tp = Py_TYPE(self);

	mem_free(b->data, (size_t)b->size);
	tp->tp_free(self);
	Py_DECREF(tp);
}

static int buffer_get(PyObject *self, Py_buffer *view, int flags)
{
	pytk_buffer *b = (pytk_buffer *)self;

	if (PyBuffer_FillInfo(view, self, b->data ? b->data : (char *)"", b->size, 0, flags) < 0)
		return -1;
	b->exports++;
	return 0;
}

static void buffer_release(PyObject *self, Py_buffer *view)
{
	(void)view;
	((pytk_buffer *)self)->exports--;
}

static PyType_Slot buffer_slots[] = {
	{ Py_tp_dealloc, (void *)buffer_dealloc },
	{ Py_tp_new, (void *)no_new },
	{ Py_bf_getbuffer, (void *)buffer_get },
	{ Py_bf_releasebuffer, (void *)buffer_release },
	{ Py_tp_doc, (void *)"Memory filled by the reading of a trace: the bytes behind the "
				"arrays of Trace.to_numpy() and Trace.to_pandas()." },
	{ 0, NULL }
};

static PyType_Spec buffer_spec = {
	"tracekit._tracekit.Buffer", sizeof(pytk_buffer), 0, Py_TPFLAGS_DEFAULT, buffer_slots
};

/* a Buffer owning `data` (mem_resize()) of `size` bytes; frees it on failure */
static PyObject *buffer_new(char *data, size_t size)
{
	pytk_buffer *b = PyObject_New(pytk_buffer, buffer_type);

	if (!b) {
		mem_free(data, size);
		return NULL;
	}
	b->data = data;
	b->size = (Py_ssize_t)size;
	b->exports = 0;
	return (PyObject *)b;
}

/* ------------------------------------------------------------------------ */
/* The columns                                                               */
/* ------------------------------------------------------------------------ */

/*
 * The fields of an event record, in the order of tracekit.Event, with the
 * offset of each in the structured array's record (RECORD_SIZE bytes:
 * 8-byte fields first, every field aligned).
 */
enum { F_TIME, F_SOURCE, F_SOURCE_INST, F_TARGET_TYPE, F_TARGET, F_TARGET_INST, F_EVENT,
       F_NOTE, F_CORE, NFIELDS };
#define RECORD_SIZE 48
static const struct field {
	const char *name, *dtype;
	size_t size, offset;
} fields[NFIELDS] = {
	{ "time", "<u8", 8, 0 },
	{ "source", "<i4", 4, 24 },
	{ "source_inst", "<i8", 8, 8 },
	{ "target_type", "<i4", 4, 28 },
	{ "target", "<i4", 4, 32 },
	{ "target_inst", "<i8", 8, 16 },
	{ "event", "<i4", 4, 36 },
	{ "note", "<i4", 4, 40 },
	{ "core", "<i4", 4, 44 },
};

typedef struct columns {
	int records;             /* one buffer of records, or one per field */
	char *buf[NFIELDS];      /* records: buf[0] only */
	size_t n, cap;           /* events */
} columns;

static int columns_grow(columns *c, size_t need)
{
	size_t cap = c->cap ? c->cap : 4096, k;

	while (cap < need)
		cap *= 2;
	for (k = 0; k < (c->records ? 1u : (size_t)NFIELDS); k++) {
		size_t each = c->records ? RECORD_SIZE : fields[k].size;
		char *p;

		if (cap > SIZE_MAX / each ||
		    !(p = mem_resize(c->buf[k], c->cap * each, cap * each)))
			return FILL_NOMEM;
		c->buf[k] = p;
	}
	c->cap = cap;
	return 0;
}

static void columns_free(columns *c)
{
	size_t k;

	for (k = 0; k < NFIELDS; k++)
		mem_free(c->buf[k], c->cap * (c->records ? RECORD_SIZE : fields[k].size));
	memset(c, 0, sizeof *c);
}

static inline void put64(char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline void put32(char *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* the codes of the names of event `e`: 0, or FILL_NOMEM */
static inline int event_codes(const tk_event *e, idmap *types, idmap *names, int32_t *ty,
			      int32_t *na)
{
	if ((*ty = idmap_code(types, e->type_name, (unsigned)e->type)) < 0 ||
	    (*na = idmap_code(names, e->name, (unsigned)e->kind)) < 0)
		return FILL_NOMEM;
	return 0;
}

/* the events columns_add() takes at a time (their notes listed first) */
#define ADD_PART 1024
/* how many notes ahead of the one coded a slot is prefetched (a power of
 * two): a lookup is a cache miss, and a miss takes longer than coding a
 * note whose slot is there */
#define NOTES_AHEAD 16

/* the key of note `i` of the events at ev (listed in at[]) into ring[],
 * its slot prefetched */
static inline void note_ahead(const tk_event *ev, const uint32_t *at, size_t i, const strmap *notes,
			      strkey *ring)
{
	const tk_event *e = &ev[at[i]];
	strkey *k = &ring[i & (NOTES_AHEAD - 1)];

	*k = strmap_key(e->note, e->note_len);
#if defined(__GNUC__)
	if (notes->cap)
		__builtin_prefetch(strmap_where(notes, k));
#else
	(void)notes;
#endif
}

/*
 * The events of a batch into the columns: 0, or FILL_NOMEM / FILL_NOTES
 * with no exception set (called without the GIL).  Records are written
 * whole at the fields' fixed offsets (fields[] folds to constants), the
 * note -1; then the events with a note (listed on the way, without a
 * branch an event) get their notes' codes, each note's slot prefetched
 * NOTES_AHEAD notes before (the first ones before the records).
 */
static int columns_add(columns *c, const tk_event *ev, size_t n, idmap *types, idmap *names,
		       strmap *notes)
{
	uint32_t at[ADD_PART];
	strkey ring[NOTES_AHEAD];
	size_t i, j, k, first, part;
	int32_t ty, na, no;
	int rc;

	if (c->n + n > c->cap && (rc = columns_grow(c, c->n + n)) < 0)
		return rc;
	for (; n; n -= part, ev += part) {
		part = n < ADD_PART ? n : ADD_PART;
		first = c->n;
		for (i = k = 0; i < part; i++) {
			at[k] = (uint32_t)i;
			k += ev[i].note != NULL;
		}
		for (j = 0; j < k && j < NOTES_AHEAD; j++)
			note_ahead(ev, at, j, notes, ring);
		if (c->records) {
			char *p = c->buf[0] + first * RECORD_SIZE;

			for (i = 0; i < part; i++, p += RECORD_SIZE) {
				const tk_event *e = ev + i;

				if ((rc = event_codes(e, types, names, &ty, &na)) < 0)
					return rc;
				put64(p + fields[F_TIME].offset, e->time);
				put64(p + fields[F_SOURCE_INST].offset, (uint64_t)e->source_inst);
				put64(p + fields[F_TARGET_INST].offset, (uint64_t)e->target_inst);
				put32(p + fields[F_SOURCE].offset, (int32_t)e->source);
				put32(p + fields[F_TARGET_TYPE].offset, ty);
				put32(p + fields[F_TARGET].offset, (int32_t)e->target);
				put32(p + fields[F_EVENT].offset, na);
				put32(p + fields[F_NOTE].offset, -1);
				put32(p + fields[F_CORE].offset,
				      e->core == TK_NONE ? -1 : (int32_t)e->core);
			}
		} else {
			for (i = 0; i < part; i++) {
				const tk_event *e = ev + i;
				size_t r = first + i;

				if ((rc = event_codes(e, types, names, &ty, &na)) < 0)
					return rc;
				put64(c->buf[F_TIME] + r * 8, e->time);
				put32(c->buf[F_SOURCE] + r * 4, (int32_t)e->source);
				put64(c->buf[F_SOURCE_INST] + r * 8, (uint64_t)e->source_inst);
				put32(c->buf[F_TARGET_TYPE] + r * 4, ty);
				put32(c->buf[F_TARGET] + r * 4, (int32_t)e->target);
				put64(c->buf[F_TARGET_INST] + r * 8, (uint64_t)e->target_inst);
				put32(c->buf[F_EVENT] + r * 4, na);
				put32(c->buf[F_NOTE] + r * 4, -1);
				put32(c->buf[F_CORE] + r * 4,
				      e->core == TK_NONE ? -1 : (int32_t)e->core);
			}
		}
		for (j = 0; j < k; j++) {
			const tk_event *e = &ev[at[j]];
			strkey key = ring[j & (NOTES_AHEAD - 1)];
			size_t r = first + at[j];

			if (j + NOTES_AHEAD < k)
				note_ahead(ev, at, j + NOTES_AHEAD, notes, ring);
			if ((no = strmap_code(notes, e->note, e->note_len, &key)) < 0)
				return no;
			if (c->records)
				put32(c->buf[0] + r * RECORD_SIZE + fields[F_NOTE].offset, no);
			else
				put32(c->buf[F_NOTE] + r * 4, no);
		}
		c->n = first + part;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* tracekit.Event                                                            */
/* ------------------------------------------------------------------------ */

static PyStructSequence_Field event_fields[] = {
	{ "time", "time in ticks of the trace's time base (int)" },
	{ "source", "the source entity's name" },
	{ "source_inst", "the source's instance (int), or None" },
	{ "target_type", "the target's type as written (\"T\", \"R\", \"SIG\", ...)" },
	{ "target", "the target entity's name" },
	{ "target_inst", "the target's instance (int), or None" },
	{ "event", "the event's name as written (\"start\", \"activate\", ...)" },
	{ "note", "the note field (str), or None when the event has none" },
	{ "core", "the name of the core the event happened on, or None" },
	{ NULL, NULL }
};

static PyStructSequence_Desc event_desc = {
	"tracekit.Event",
	"One event of a trace, a named tuple: (time, source, source_inst, target_type, "
	"target, target_inst, event, note, core).",
	event_fields, 9
};

/* ------------------------------------------------------------------------ */
/* The events iterator                                                       */
/* ------------------------------------------------------------------------ */

/*
 * The events are read ITER_BATCH at a time with the GIL released
 * (iter_fill()), copied (a reader's event lives until its next call; the
 * notes' bytes go to `notes`), and handed out one a next(); what ended
 * the batch (the end, a read error, a warning made an exception) comes
 * after its events, as when they were read one by one.
 */
#define ITER_BATCH 256

typedef struct pytk_iter {
	PyObject_HEAD
	pytk_reader pr;
	int open;
	int busy;            /* iter_fill() runs (without the GIL) */
	tk_event evs[ITER_BATCH];
	size_t noff[ITER_BATCH];   /* where the note of evs[i] is in `notes` */
	size_t n, i;
	char *notes;
	size_t nnotes, notes_cap;
	int stop;            /* after the batch: 0 more, TK_END, or an error */
	tk_error err;        /* stop < 0: the reader's error */
	PyObject *exc_type, *exc_value, *exc_tb;  /* a warning made an error */
	PyObject **ents;     /* per entity id: its name, or NULL */
	size_t nents;
	PyObject **strs;     /* per string id: its text, or NULL */
	size_t nstrs;
} pytk_iter;

static void iter_clear(pytk_iter *it)
{
	size_t i;

	if (it->open)
		pytk_reader_close(&it->pr);
	it->open = 0;
	it->n = it->i = 0;
	it->stop = 0;
	PyMem_RawFree(it->notes);
	it->notes = NULL;
	it->nnotes = it->notes_cap = 0;
	Py_CLEAR(it->exc_type);
	Py_CLEAR(it->exc_value);
	Py_CLEAR(it->exc_tb);
	for (i = 0; i < it->nents; i++)
		Py_XDECREF(it->ents[i]);
	for (i = 0; i < it->nstrs; i++)
		Py_XDECREF(it->strs[i]);
	PyMem_RawFree(it->ents);
	PyMem_RawFree(it->strs);
	it->ents = it->strs = NULL;
	it->nents = it->nstrs = 0;
}

static void iter_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	iter_clear((pytk_iter *)self);
	tp->tp_free(self);
	Py_DECREF(tp);
}

/* a cached str in `*tab` (per id); a new reference */
static PyObject *cached(PyObject ***tab, size_t *cap, size_t id, PyObject *(*make)(const tk_trace *, uint32_t),
			const tk_trace *t)
{
	PyObject *s;

	if (id >= *cap) {
		size_t old = *cap;

		if (id > 1u << 26)  /* ids are dense: a huge one is not cached */
			return make(t, (uint32_t)id);
		if (grow(tab, cap, id + 1, sizeof **tab) < 0)
			return PyErr_NoMemory();
		memset(*tab + old, 0, (*cap - old) * sizeof **tab);
	}
	if (!(*tab)[id] && !((*tab)[id] = make(t, (uint32_t)id)))
		return NULL;
	s = (*tab)[id];
	Py_INCREF(s);
	return s;
}

static PyObject *entity_name(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = tk_trace_entity(t, id);

	if (!e)
		Py_RETURN_NONE;
	return trace_str(t, e->name);
}

static PyObject *inst(int64_t v)
{
	if (v == TK_INST_NONE)
		Py_RETURN_NONE;
	return PyLong_FromLongLong(v);
}

/*
 * Up to ITER_BATCH events into it->evs; run without the GIL.  Sets
 * it->stop to TK_END, a reader's error (it->err), ITER_NOMEM, or
 * ITER_WARNED when a warning was made an exception (set in the
 * thread by pytk_on_warning()); the events of the call that warned are
 * not kept, as pytk_reader_next_batch() drops them.
 */
#define ITER_WARNED (-1000)
#define ITER_NOMEM (-1001)

static void iter_fill(pytk_iter *it)
{
	const tk_event *evs;
	size_t n, k;
	int rc = TK_OK;

	it->n = it->i = 0;
	it->nnotes = 0;
	tk_error_clear(&it->err);
	while (it->n < ITER_BATCH) {
		rc = tk_reader_next_batch(it->pr.r, &evs, &n, ITER_BATCH - it->n, &it->err);
		if (it->pr.warn_failed) {
			rc = ITER_WARNED;
			break;
		}
		if (rc != TK_OK)
			break;
		for (k = 0; k < n && it->n < ITER_BATCH; k++) {
			tk_event *e = &it->evs[it->n];

			*e = evs[k];
			if (e->note) {
				if (grow(&it->notes, &it->notes_cap, it->nnotes + e->note_len + 1, 1) < 0) {
					rc = ITER_NOMEM;
					break;
				}
				memcpy(it->notes + it->nnotes, e->note, e->note_len);
				it->noff[it->n] = it->nnotes;
				it->nnotes += e->note_len;
			}
			it->n++;
		}
		if (rc != TK_OK)
			break;
	}
	it->stop = rc == TK_OK ? 0 : rc;
}

/* what ended the batch, as the exception of next() (NULL, or NULL at the end) */
static PyObject *iter_stop(pytk_iter *it)
{
	int stop = it->stop;

	if (stop == ITER_WARNED) {
		/* the exception set by the warning, kept while the batch went out */
		PyErr_Restore(it->exc_type, it->exc_value, it->exc_tb);
		it->exc_type = it->exc_value = it->exc_tb = NULL;
	} else if (stop == ITER_NOMEM) {
		PyErr_NoMemory();
	} else if (stop < 0) {
		pytk_raise(stop, &it->err);
	}
	/* the end, or an error (set): the reader is done either way */
	iter_clear(it);
	return NULL;
}

static PyObject *iter_next(PyObject *self)
{
	pytk_iter *it = (pytk_iter *)self;
	const tk_event *e;
	const tk_trace *t;
	PyObject *o, *v[9];
	size_t at;
	int k;

	if (it->busy) {
		PyErr_SetString(PyExc_RuntimeError, "the events iterator is already reading "
				"(in another thread)");
		return NULL;
	}
	if (!it->open)
		return NULL;
	if (it->i == it->n) {
		if (it->stop)
			return iter_stop(it);
		it->busy = 1;
		Py_BEGIN_ALLOW_THREADS
		iter_fill(it);
		Py_END_ALLOW_THREADS
		it->busy = 0;
		if (it->stop == ITER_WARNED)
			PyErr_Fetch(&it->exc_type, &it->exc_value, &it->exc_tb);
		if (it->i == it->n)
			return iter_stop(it);
	}
	at = it->i++;
	e = &it->evs[at];
	t = tk_reader_trace(it->pr.r);
	v[0] = PyLong_FromUnsignedLongLong(e->time);
	v[1] = cached(&it->ents, &it->nents, e->source, entity_name, t);
	v[2] = inst(e->source_inst);
	v[3] = e->type_name != TK_NONE ? cached(&it->strs, &it->nstrs, e->type_name, trace_str, t)
				       : event_type_name(t, e);
	v[4] = cached(&it->ents, &it->nents, e->target, entity_name, t);
	v[5] = inst(e->target_inst);
	v[6] = e->name != TK_NONE ? cached(&it->strs, &it->nstrs, e->name, trace_str, t)
				  : event_name(t, e);
	v[7] = e->note ? pytk_str(it->notes + it->noff[at], e->note_len) : Py_NewRef(Py_None);
	v[8] = e->core == TK_NONE ? Py_NewRef(Py_None)
				  : cached(&it->ents, &it->nents, e->core, entity_name, t);
	o = PyStructSequence_New(event_type);
	for (k = 0; k < 9; k++)
		if (!v[k])
			Py_CLEAR(o);
	for (k = 0; k < 9; k++) {
		if (o)
			PyStructSequence_SET_ITEM(o, k, v[k]);
		else
			Py_XDECREF(v[k]);
	}
	return o;
}

static PyObject *iter_close(PyObject *self, PyObject *args)
{
	(void)args;
	if (((pytk_iter *)self)->busy) {
		PyErr_SetString(PyExc_RuntimeError, "the events iterator is reading "
				"(in another thread): it cannot be closed now");
		return NULL;
	}
	iter_clear((pytk_iter *)self);
	Py_RETURN_NONE;
}

static PyMethodDef iter_methods[] = {
	{ "close", iter_close, METH_NOARGS,
	  "close() -> None\n\nStop reading: close the file (iteration then ends)." },
	{ NULL, NULL, 0, NULL }
};

static PyType_Slot iter_slots[] = {
	{ Py_tp_dealloc, (void *)iter_dealloc },
	{ Py_tp_new, (void *)no_new },
	{ Py_tp_iter, (void *)PyObject_SelfIter },
	{ Py_tp_iternext, (void *)iter_next },
	{ Py_tp_methods, iter_methods },
	{ Py_tp_doc, (void *)"The events of a trace, read as they are iterated: "
			     "tracekit.Event named tuples (Trace.events())." },
	{ 0, NULL }
};

static PyType_Spec iter_spec = {
	"tracekit.EventIterator", sizeof(pytk_iter), 0, Py_TPFLAGS_DEFAULT, iter_slots
};

/* ------------------------------------------------------------------------ */
/* tracekit.Trace                                                            */
/* ------------------------------------------------------------------------ */

static void trace_dealloc(PyObject *self)
{
	pytk_trace *t = (pytk_trace *)self;
	PyTypeObject *tp = Py_TYPE(self);

	Py_CLEAR(t->head.path);
	Py_CLEAR(t->head.kwargs);
	Py_CLEAR(t->head.data);
	Py_CLEAR(t->format);
	Py_CLEAR(t->timebase);
	Py_CLEAR(t->header);
	Py_CLEAR(t->cycle_unit);
	Py_CLEAR(t->info);
	Py_CLEAR(t->entities);
	tp->tp_free(self);
	Py_DECREF(tp);
}

/* a reader on the trace with the call's keywords (a new dict is made) */
static int trace_reader(pytk_reader *pr, PyObject *self, PyObject *kwargs)
{
	PyObject *kw = kwargs ? PyDict_Copy(kwargs) : NULL;
	int rc;

	if (kwargs && !kw)
		return -1;
	rc = pytk_reader_open(pr, self, kw, 1);
	Py_XDECREF(kw);
	return rc;
}

static PyObject *trace_events(PyObject *self, PyObject *args, PyObject *kwargs)
{
	pytk_iter *it;

	if (args && PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError, "events() takes keyword arguments only");
		return NULL;
	}
	if (!(it = PyObject_New(pytk_iter, iter_type)))
		return NULL;
	memset((char *)it + sizeof(PyObject), 0, sizeof *it - sizeof(PyObject));
	if (trace_reader(&it->pr, self, kwargs) < 0) {
		Py_DECREF(it);
		return NULL;
	}
	it->open = 1;
	return (PyObject *)it;
}

static PyObject *trace_iter(PyObject *self)
{
	return trace_events(self, NULL, NULL);
}

/* A decimal time of the info (as `info --format json`): the number json
 * reads (an int, or a float of the decimal text), and its exact N/D where
 * that differs. */
static int info_time(PyObject *d, const char *name, uint64_t nevents, uint64_t ticks,
		     const tk_timebase *tb)
{
	char dec[200], ex[200], key[64];
	PyObject *v;
	int rc;

	if (!nevents || tk_time_format_decimal(ticks, tb, tb->unit, dec, sizeof dec) < 0)
		return PyDict_SetItemString(d, name, Py_None);
	if (strchr(dec, '.')) {
		PyObject *s = PyUnicode_FromString(dec);

		v = s ? PyFloat_FromString(s) : NULL;
		Py_XDECREF(s);
	} else {
		v = PyLong_FromString(dec, NULL, 10);
	}
	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, name, v);
	Py_DECREF(v);
	if (rc < 0)
		return -1;
	if (tk_time_format(ticks, tb, tb->unit, ex, sizeof ex) >= 0 && strcmp(ex, dec)) {
		snprintf(key, sizeof key, "%s_exact", name);
		if (!(v = PyUnicode_FromString(ex)))
			return -1;
		rc = PyDict_SetItemString(d, key, v);
		Py_DECREF(v);
	}
	return rc;
}

typedef struct count_row {
	const char *type, *event;
	size_t ntype, nevent;
	uint64_t count, key;
} count_row;

static int cmp_rows(const void *a, const void *b)
{
	const count_row *x = a, *y = b;
	size_t n = x->ntype < y->ntype ? x->ntype : y->ntype;
	int c = memcmp(x->type, y->type, n);

	if (c || x->ntype != y->ntype)
		return c ? c : (x->ntype < y->ntype ? -1 : 1);
	n = x->nevent < y->nevent ? x->nevent : y->nevent;
	c = memcmp(x->event, y->event, n);
	if (c || x->nevent != y->nevent)
		return c ? c : (x->nevent < y->nevent ? -1 : 1);
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * The id an info row counts a type or event name by: the name as written,
 * or for an event that keeps none (a Tarmac log's) its canonical name's
 * (as the events have it), an id above every string's.
 */
#define INFO_CANON ((tk_str)TK_NONE - 128u)

static inline tk_str info_id(tk_str written, unsigned canon)
{
	return written != TK_NONE ? written : INFO_CANON + (canon & 127u);
}

/* the text of info_id() `id`, a type's (`type`) or an event's */
static const char *info_name(const tk_trace *t, tk_str id, int type, size_t *n)
{
	const char *s;

	if (id < INFO_CANON && (s = tk_trace_str(t, id, n)))
		return s;
	s = "";
	if (id >= INFO_CANON && id != TK_NONE)
		s = type ? tk_etype_name((tk_etype)(id - INFO_CANON))
			 : tk_evkind_name((tk_evkind)(id - INFO_CANON));
	s = s ? s : "";
	*n = strlen(s);
	return s;
}

/* set d[key] = v (stolen); 0 or -1 */
static int set_item(PyObject *d, const char *key, PyObject *v)
{
	int rc;

	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return rc;
}

/* The figures of `tracekit info --format json` of the trace, read in one
 * pass; the entity table of the same pass into *entities (a new list). */
static PyObject *trace_compute_info(pytk_trace *self, PyObject **entities)
{
	pytk_reader pr;
	const tk_event *evs;
	const tk_trace *t;
	const tk_timebase *tb;
	uint64_t nevents = 0, tmin = UINT64_MAX, tmax = 0, per_type[TK_ET_COUNT] = { 0 };
	uint64_t span = 0;
	uint32_t nlines = 0;
	tk_load *load = NULL;
	u64map pairs = { NULL, NULL, 0, 0 };
	count_row *rows = NULL;
	PyObject *d = NULL, *l = NULL, *types = NULL, *ret = NULL, *pathb = NULL, *fname;
	size_t n, i, nrows = 0, nents;
	tk_error err;
	int rc, nomem = 0;

	*entities = NULL;
	if (trace_reader(&pr, (PyObject *)self, NULL) < 0)
		return NULL;
	t = tk_reader_trace(pr.r);
	tb = tk_trace_timebase(t);
	/* the reading runs without the GIL (pytk_on_warning() takes it) */
	tk_error_clear(&err);
	/* an ATF file may hold several TraceData, time lines whose time
	 * starts again: their spans are the load's, as `tracekit info` has */
	if (strcmp(tk_reader_format(pr.r), "atf") == 0 &&
	    (rc = tk_load_new(&load, t, 0, NULL, NULL, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	while ((rc = tk_reader_next_batch(pr.r, &evs, &n, 256, &err)) == TK_OK && !pr.warn_failed) {
		uint64_t last = UINT64_MAX, run = 0;

		nevents += n;
		for (i = 0; i < n; i++) {
			uint64_t key = (uint64_t)info_id(evs[i].type_name, evs[i].type) << 32 |
				       info_id(evs[i].name, evs[i].kind);

			tmin = evs[i].time < tmin ? evs[i].time : tmin;
			tmax = evs[i].time > tmax ? evs[i].time : tmax;
			if (key == last && run) {
				run++;
				continue;
			}
			if (run && (nomem = u64map_add(&pairs, last, run)) < 0)
				break;
			last = key;
			run = 1;
		}
		if (nomem < 0 || (run && (nomem = u64map_add(&pairs, last, run)) < 0))
			break;
		for (i = 0; load && i < n && rc == TK_OK; i++)
			rc = tk_load_event(load, &evs[i], &err);
		if (rc < 0)
			break;
	}
	if (rc >= 0 && nomem >= 0 && load)
		rc = tk_load_finish(load, &err);
	Py_END_ALLOW_THREADS
	if (pr.warn_failed)
		goto out;
	if (nomem < 0) {
		PyErr_NoMemory();
		goto out;
	}
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}

	if (!(rows = PyMem_Calloc(pairs.n + 1, sizeof *rows))) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < pairs.cap; i++) {
		if (!pairs.val[i])
			continue;
		rows[nrows].key = pairs.key[i];
		rows[nrows].count = pairs.val[i];
		rows[nrows].type = info_name(t, (tk_str)(pairs.key[i] >> 32), 1,
					     &rows[nrows].ntype);
		rows[nrows].event = info_name(t, (tk_str)(pairs.key[i] & 0xffffffffu), 0,
					      &rows[nrows].nevent);
		nrows++;
	}
	qsort(rows, nrows, sizeof *rows, cmp_rows);

	nlines = nevents ? 1 : 0;
	span = nevents ? tmax - tmin : 0;
	if (load && tk_load_time_lines(load) > 1) {
		/* the first event's time, the last's, the spans added */
		nlines = tk_load_time_lines(load);
		tk_load_span(load, &tmin, &tmax);
		span = tk_load_length(load);
	}
	nents = tk_trace_entity_count(t);
	if (!(d = PyDict_New()))
		goto out;
	/* the path's bytes, a byte that starts no UTF-8 sequence as U+FFFD
	 * (as the command's JSON) */
	if (!(pathb = PyUnicode_EncodeFSDefault(pr.path)))
		goto out;
	if (strcmp(PyBytes_AS_STRING(pathb), "-") == 0)
		fname = pytk_str("<stdin>", 7);
	else
		fname = pytk_str(PyBytes_AS_STRING(pathb), (size_t)PyBytes_GET_SIZE(pathb));
	if (set_item(d, "file", fname) ||
	    set_item(d, "format", PyUnicode_FromString(tk_reader_format(pr.r))))
		goto out;
	if (!(l = PyList_New(0)))
		goto out;
	for (i = 0; i < tk_trace_header_count(t); i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		PyObject *k = pytk_str(h->key, strlen(h->key)), *v = pytk_str(h->value, strlen(h->value));
		PyObject *e = k && v ? Py_BuildValue("{sssOsO}", "kind", hdr_kind(h->kind), "key", k,
						     "value", v) : NULL;

		Py_XDECREF(k);
		Py_XDECREF(v);
		if (!e || PyList_Append(l, e) < 0) {
			Py_XDECREF(e);
			goto out;
		}
		Py_DECREF(e);
	}
	if (set_item(d, "header", Py_NewRef(l)) ||
	    set_item(d, "time_unit", PyUnicode_FromString(tk_trace_cycle_unit(t) ?
							  tk_trace_cycle_unit(t) :
							  tk_unit_name(tb->unit))) ||
	    set_item(d, "timebase", Py_BuildValue("{sssKsK}", "unit", tk_unit_name(tb->unit),
						  "num", (unsigned long long)tb->num,
						  "den", (unsigned long long)tb->den)) ||
	    info_time(d, "start", nevents, tmin, tb) < 0 ||
	    info_time(d, "end", nevents, tmax, tb) < 0 ||
	    info_time(d, "duration", nevents, span, tb) < 0 ||
	    set_item(d, "time_lines", PyLong_FromUnsignedLong(nlines)) ||
	    set_item(d, "events", PyLong_FromUnsignedLongLong(nevents)) ||
	    set_item(d, "entities", PyLong_FromSize_t(nents)))
		goto out;
	Py_CLEAR(l);
	if (!(types = PyDict_New()) || !(l = PyList_New(0)))
		goto out;
	for (i = 0; i < nents; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);

		per_type[e->type]++;
		if (e->type == TK_ET_C) {
			PyObject *s = trace_str(t, e->name);

			if (!s || PyList_Append(l, s) < 0) {
				Py_XDECREF(s);
				goto out;
			}
			Py_DECREF(s);
		}
	}
	for (i = 0; i < TK_ET_COUNT; i++)
		if (per_type[i] && set_item(types, tk_etype_name((tk_etype)i),
					    PyLong_FromUnsignedLongLong(per_type[i])))
			goto out;
	if (set_item(d, "entity_types", Py_NewRef(types)) || set_item(d, "cores", Py_NewRef(l)))
		goto out;
	Py_CLEAR(l);
	if (!(l = PyList_New((Py_ssize_t)nrows)))
		goto out;
	for (i = 0; i < nrows; i++) {
		PyObject *ty = pytk_str(rows[i].type, rows[i].ntype);
		PyObject *ev = pytk_str(rows[i].event, rows[i].nevent);
		PyObject *e = ty && ev ? Py_BuildValue("{sOsOsK}", "type", ty, "event", ev, "count",
						       (unsigned long long)rows[i].count) : NULL;

		Py_XDECREF(ty);
		Py_XDECREF(ev);
		if (!e)
			goto out;
		PyList_SET_ITEM(l, (Py_ssize_t)i, e);
	}
	if (set_item(d, "event_counts", Py_NewRef(l)) ||
	    set_item(d, "warnings", PyLong_FromUnsignedLongLong(tk_reader_warning_count(pr.r))))
		goto out;
	if (!(*entities = entity_list(t)))
		goto out;
	ret = Py_NewRef(d);
out:
	tk_load_free(load);
	pytk_reader_close(&pr);
	u64map_free(&pairs);
	PyMem_Free(rows);
	Py_XDECREF(d);
	Py_XDECREF(l);
	Py_XDECREF(types);
	Py_XDECREF(pathb);
	return ret;
}

/*
 * t->info and t->entities made by the first reading that ends: the reading
 * runs without the GIL, so that two threads asking at once both read; the
 * second to end drops its result and keeps the first's.  0, or -1 with an
 * exception set.
 */
static int trace_cache_info(pytk_trace *t)
{
	PyObject *info, *ents = NULL;

	if (t->info)
		return 0;
	if (!(info = trace_compute_info(t, &ents))) {
		Py_XDECREF(ents);
		return -1;
	}
	if (t->info) {  /* another thread's reading ended first */
		Py_DECREF(info);
		Py_DECREF(ents);
		return 0;
	}
	t->info = info;
	t->entities = ents;
	return 0;
}

static PyObject *trace_get_info(PyObject *self, void *closure)
{
	pytk_trace *t = (pytk_trace *)self;
	PyObject *copy, *r;

	(void)closure;

	if (trace_cache_info(t) < 0)
		return NULL;
	/* a deep copy: the caller may change it, its lists and dicts too */
	if (!(copy = PyImport_ImportModule("copy")))
		return NULL;
	r = PyObject_CallMethod(copy, "deepcopy", "O", t->info);
	Py_DECREF(copy);
	return r;
}

/* a new list of copies of the dicts of `l` (the caller may change them) */
static PyObject *entities_copy(PyObject *l)
{
	Py_ssize_t i, n = PyList_GET_SIZE(l);
	PyObject *r = PyList_New(n);

	for (i = 0; r && i < n; i++) {
		PyObject *d = PyDict_Copy(PyList_GET_ITEM(l, i));

		if (!d) {
			Py_CLEAR(r);
			break;
		}
		PyList_SET_ITEM(r, i, d);
	}
	return r;
}

static PyObject *trace_get_entities(PyObject *self, void *closure)
{
	pytk_trace *t = (pytk_trace *)self;

	(void)closure;
	if (trace_cache_info(t) < 0)
		return NULL;
	return entities_copy(t->entities);
}

static PyObject *trace_get(PyObject *self, void *closure)
{
	PyObject *v = *(PyObject **)((char *)self + (size_t)closure);

	return Py_NewRef(v ? v : Py_None);
}

static PyObject *trace_get_header(PyObject *self, void *closure)
{
	(void)closure;
	return PySequence_List(((pytk_trace *)self)->header);
}

static PyGetSetDef trace_getset[] = {
	{ "info", trace_get_info, NULL,
	  "A dict of the figures `tracekit info --format json` prints for the trace "
	  "(the same keys and values as json.loads of its output): file, format, header, "
	  "time_unit, timebase, start, end, duration (+ *_exact; over several time lines, an ATF file's TraceData, the sum of their spans), time_lines, events, entities, "
	  "entity_types, cores, event_counts, warnings.  Read once, on first use.", NULL },
	{ "entities", trace_get_entities, NULL,
	  "The entity table after a whole read: a list of dicts {\"name\": str, \"type\": "
	  "str or None, \"parent\": str or None}, in the library's id order (the codes of "
	  "to_numpy()'s source, target and core).  type is the canonical name (\"T\", \"I\", "
	  "\"SEM\"; a type tracekit does not know: as written; None: never seen); parent "
	  "the name of the entity that holds it (a task's core, a runnable's task).", NULL },
	{ "format", trace_get, NULL, "The format's name (\"btf\", \"htf\", ...).",
	  (void *)offsetof(pytk_trace, format) },
	{ "timebase", trace_get, NULL,
	  "What one tick is: a fractions.Fraction of seconds (exact).",
	  (void *)offsetof(pytk_trace, timebase) },
	{ "cycle_unit", trace_get, NULL,
	  "The cycles the ticks count (\"clk\", \"cyc\", \"tic\", \"cs\": a Tarmac log timed in "
	  "cycles, or a trace written from one), whose timebase then says 1 ns for a "
	  "cycle that has no length; None when the ticks are what timebase says.",
	  (void *)offsetof(pytk_trace, cycle_unit) },
	{ "header", trace_get_header, NULL,
	  "The header entries in input order: a list of (kind, key, value) tuples of str, "
	  "kind \"param\" (#key value), \"comment\" (# text: key \"\") or \"row\" (#-key value); "
	  "value None for a key written alone (#key).",
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

/* ------------------------------------------------------------------------ */
/* Trace._read(): the columns                                                */
/* ------------------------------------------------------------------------ */

/*
 * The input's size in bytes (a file's, or the bytes read once; 0 when not
 * known), for the room made at first: one event per 32 bytes, so that the
 * columns rarely grow, from 4096 to 2**24 rows (the rest grows by
 * doubling, mem_resize() moving no bytes); unused room costs address
 * space only (the pages are made as they are first written, the slack is
 * given back at the end).
 */
static size_t input_size(PyObject *self)
{
	const pytk_trace_head *h = (const pytk_trace_head *)self;
	size_t size = 0;

	if (h->data) {
		size = (size_t)PyBytes_GET_SIZE(h->data);
	} else {
		PyObject *b = PyUnicode_EncodeFSDefault(h->path);
		struct stat st;

		if (!b) {
			PyErr_Clear();
			return 0;
		}
		if (stat(PyBytes_AS_STRING(b), &st) == 0 && S_ISREG(st.st_mode))
			size = (size_t)st.st_size;
		Py_DECREF(b);
	}
	return size;
}

static PyObject *trace_read(PyObject *self, PyObject *args, PyObject *kwargs)
{
	int records;
	pytk_reader pr;
	columns c;
	idmap types, names;
	strmap notes;
	const tk_event *evs;
	const tk_trace *t;
	size_t n, k, insize, rows;
	tk_error err;
	PyObject *bufs = NULL, *ret = NULL, *ents = NULL, *tl = NULL, *nl = NULL, *ol = NULL,
		 *tb = NULL, *hdr = NULL;
	int rc, add;

	if (!PyArg_ParseTuple(args, "p:_read", &records))
		return NULL;
	memset(&c, 0, sizeof c);
	memset(&types, 0, sizeof types);
	memset(&names, 0, sizeof names);
	memset(&notes, 0, sizeof notes);
	c.records = records;
	if (trace_reader(&pr, self, kwargs) < 0)
		return NULL;
	t = tk_reader_trace(pr.r);
	insize = input_size(self);
	rows = insize / 32;
	rows = rows < 4096 ? 4096 : rows > ((size_t)1 << 24) ? (size_t)1 << 24 : rows;
	if ((add = columns_grow(&c, rows)) < 0) {
		fill_raise(add);
		goto out;
	}
	/* pytk_reader_next_batch() without its error cleared per call (most
	 * readers give one event a batch): the library fills `err` only on
	 * an error, a warning turned into an exception stops the loop.  The
	 * loop runs without the GIL (pytk_on_warning() takes it). */
	tk_error_clear(&err);
	add = 0;
	Py_BEGIN_ALLOW_THREADS
	while ((rc = tk_reader_next_batch(pr.r, &evs, &n, 1024, &err)) == TK_OK && !pr.warn_failed)
		if ((add = columns_add(&c, evs, n, &types, &names, &notes)) < 0)
			break;
	Py_END_ALLOW_THREADS
	if (pr.warn_failed)
		goto out;
	if (add < 0) {
		fill_raise(add);
		goto out;
	}
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (!(bufs = PyList_New(0)))
		goto out;
	for (k = 0; k < (records ? 1u : (size_t)NFIELDS); k++) {
		size_t each = records ? RECORD_SIZE : fields[k].size;
		/* the slack given back (the pages shrink in place) */
		char *p = c.n ? mem_resize(c.buf[k], c.cap * each, c.n * each) : NULL;
		PyObject *b;

		if (!p) {
			/* nothing kept (or kept as it was) */
			mem_free(c.buf[k], c.cap * each);
			c.buf[k] = NULL;
			if (c.n) {
				PyErr_NoMemory();
				goto out;
			}
		}
		b = buffer_new(p, c.n * each);
		c.buf[k] = NULL;
		if (!b || PyList_Append(bufs, b) < 0) {
			Py_XDECREF(b);
			goto out;
		}
		Py_DECREF(b);
	}
	if (!(ents = entity_list(t)) || !(tl = idmap_list(&types, t, 1)) ||
	    !(nl = idmap_list(&names, t, 0)) || !(ol = strmap_list(&notes)) ||
	    !(tb = pytk_timebase_seconds(tk_trace_timebase(t))) || !(hdr = header_list(t)))
		goto out;
	ret = Py_BuildValue("{sOsnsOsOsOsOsssOsOsKsz}", "buffers", bufs, "n", (Py_ssize_t)c.n,
			    "entities", ents, "target_type", tl, "event", nl, "note", ol,
			    "format", tk_reader_format(pr.r), "timebase", tb, "header", hdr,
			    "warnings", (unsigned long long)tk_reader_warning_count(pr.r),
			    "cycle_unit", tk_trace_cycle_unit(t));
out:
	pytk_reader_close(&pr);
	columns_free(&c);
	idmap_free(&types);
	idmap_free(&names);
	strmap_free(&notes);
	Py_XDECREF(bufs);
	Py_XDECREF(ents);
	Py_XDECREF(tl);
	Py_XDECREF(nl);
	Py_XDECREF(ol);
	Py_XDECREF(tb);
	Py_XDECREF(hdr);
	return ret;
}

/* to_numpy() and to_pandas(): the columns read here, the arrays made by
 * tracekit._frames */
static PyObject *call_frames(PyObject *self, PyObject *kwargs, int records, const char *fn)
{
	PyObject *args = Py_BuildValue("(i)", records), *raw, *mod, *r = NULL;

	if (!args)
		return NULL;
	raw = trace_read(self, args, kwargs);
	Py_DECREF(args);
	if (!raw)
		return NULL;
	if ((mod = PyImport_ImportModule("tracekit._frames"))) {
		r = PyObject_CallMethod(mod, fn, "O", raw);
		Py_DECREF(mod);
	}
	Py_DECREF(raw);
	return r;
}

static PyObject *trace_to_numpy(PyObject *self, PyObject *args, PyObject *kwargs)
{
	if (PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError, "to_numpy() takes keyword arguments only");
		return NULL;
	}
	return call_frames(self, kwargs, 1, "numpy_events");
}

static PyObject *trace_to_pandas(PyObject *self, PyObject *args, PyObject *kwargs)
{
	if (PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError, "to_pandas() takes keyword arguments only");
		return NULL;
	}
	return call_frames(self, kwargs, 0, "pandas_events");
}

static PyObject *trace_repr(PyObject *self)
{
	pytk_trace *t = (pytk_trace *)self;

	return PyUnicode_FromFormat("<tracekit.Trace %R (%U)>", t->head.path, t->format);
}

static PyMethodDef trace_methods[] = {
	{ "events", (PyCFunction)(void (*)(void))trace_events, METH_VARARGS | METH_KEYWORDS,
	  "events(**reader_options) -> iterator of tracekit.Event\n\n"
	  "The events in file order, read as they are iterated (`for ev in trace` is "
	  "trace.events()).  The keywords are open()'s (filters entities=, types=, "
	  "events=, window start=, end=, ...), taking precedence over those given to "
	  "open().  A reading error raises its tracekit.Error; a warning goes through "
	  "the warnings module (tracekit.TraceWarning), and one made an error by a "
	  "warnings filter ends the iteration with that exception." },
	{ "to_numpy", (PyCFunction)(void (*)(void))trace_to_numpy, METH_VARARGS | METH_KEYWORDS,
	  "to_numpy(**reader_options) -> (array, names)\n\n"
	  "The events as a numpy structured array, read in C (no Python object per "
	  "event), and the name tables of its codes.  Fields: time (uint64 ticks), "
	  "source, target, core (int32: index into names[\"entities\"], the entity "
	  "table in id order; core -1: no core), source_inst, target_inst (int64; "
	  "tracekit.INST_NONE, -2**63, where the input had none), target_type, event "
	  "(int32: index into names[\"target_type\"], names[\"event\"]), note (int32: "
	  "index into names[\"note\"], -1: no note).  names is a dict of numpy object "
	  "arrays keyed by field (\"source\", \"target\", \"core\" are the entity table, "
	  "also as \"entities\"), so that names[f][array[f]] gives the names of field f "
	  "(mask the -1 first).  The keywords are open()'s (filters, window), applied "
	  "in C." },
	{ "to_pandas", (PyCFunction)(void (*)(void))trace_to_pandas, METH_VARARGS | METH_KEYWORDS,
	  "to_pandas(**reader_options) -> pandas.DataFrame\n\n"
	  "The events as a DataFrame: time (uint64 ticks), time_ns (uint64 nanoseconds "
	  "where every event's time is a whole number of nanoseconds that fits; "
	  "otherwise an object column of exact ints and fractions.Fraction: never "
	  "rounded), source, source_inst, target_type, target, target_inst, event, "
	  "note, core (source, target_type, target, event, note, core categorical; the "
	  "instances nullable Int64; a missing core or note is NaN).  df.attrs holds "
	  "\"timebase\" (Fraction seconds per tick), \"format\", \"header\" (list of "
	  "(kind, key, value)), \"entities\" (as Trace.entities) and \"cycle_unit\" (as "
	  "Trace.cycle_unit; time_ns is then <NA>: a cycle has no length).  The keywords "
	  "are open()'s (filters, window), applied in C." },
	{ "_read", (PyCFunction)(void (*)(void))trace_read, METH_VARARGS | METH_KEYWORDS,
	  "_read(records, **reader_options) -> dict\n\n"
	  "The columns behind to_numpy() (records true: one buffer of records) and "
	  "to_pandas() (one buffer per field), with the name tables." },
	{ NULL, NULL, 0, NULL }
};

static PyMemberDef trace_members[] = {
	{ "path", T_OBJECT, offsetof(pytk_trace_head, path), READONLY,
	  "The path the trace was opened from (str)." },
	{ NULL, 0, 0, 0, NULL }
};

static PyType_Slot trace_slots[] = {
	{ Py_tp_dealloc, (void *)trace_dealloc },
	{ Py_tp_new, (void *)no_new },
	{ Py_tp_members, trace_members },
	{ Py_tp_methods, trace_methods },
	{ Py_tp_getset, trace_getset },
	{ Py_tp_iter, (void *)trace_iter },
	{ Py_tp_repr, (void *)trace_repr },
	{ Py_tp_doc, (void *)
	  "A trace opened by tracekit.open(): its metadata (format, timebase, header) "
	  "read at the open; info, entities, events(), iteration, to_numpy() and "
	  "to_pandas() read the file again with the open()'s arguments." },
	{ 0, NULL }
};

static PyType_Spec trace_spec = {
	"tracekit.Trace", sizeof(pytk_trace), 0, Py_TPFLAGS_DEFAULT, trace_slots
};

/*
 * The bytes of `path` when it can be read only once (standard input "-",
 * a pipe or FIFO, a character device: anything but a file or a folder),
 * read whole now so that every reading of the trace reads them again
 * (reopening a FIFO waited for a writer that never came); NULL with no
 * error for a file, NULL with an exception on a read error.
 */
static PyObject *read_once(PyObject *path, int *once)
{
	PyObject *pathb = PyUnicode_EncodeFSDefault(path), *b = NULL;
	const char *p;
	struct stat st;
	size_t len = 0, cap = 1 << 16;
	ssize_t n;
	int fd = -1, e = 0;

	*once = 0;
	if (!pathb)
		return NULL;
	p = PyBytes_AS_STRING(pathb);
	if (strcmp(p, "-") != 0 && (stat(p, &st) != 0 || S_ISREG(st.st_mode) ||
				    S_ISDIR(st.st_mode)))
		goto out;   /* a file: read again each time (or the open's error) */
	*once = 1;
	if (!(b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap)))
		goto out;
	Py_BEGIN_ALLOW_THREADS
	fd = strcmp(p, "-") ? open(p, O_RDONLY) : 0;
	Py_END_ALLOW_THREADS
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	for (;;) {
		if (len == cap) {
			cap *= 2;
			if (_PyBytes_Resize(&b, (Py_ssize_t)cap) < 0)
				goto out;
		}
		Py_BEGIN_ALLOW_THREADS
		n = read(fd, PyBytes_AS_STRING(b) + len, cap - len);
		Py_END_ALLOW_THREADS
		if (n < 0 && errno == EINTR) {
			if (PyErr_CheckSignals() < 0)
				goto fail_quiet;
			continue;
		}
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (_PyBytes_Resize(&b, (Py_ssize_t)len) < 0)
		goto out;
	goto out;
fail:
	pytk_raise_msg(TK_E_IO, "%s: cannot read: %s", strcmp(p, "-") ? p : "<stdin>",
		       strerror(e));
fail_quiet:
	Py_CLEAR(b);
out:
	if (fd > 0)
		close(fd);
	Py_DECREF(pathb);
	return b;
}

static PyObject *py_open(PyObject *self, PyObject *args, PyObject *kwargs)
{
	PyObject *source, *kw = NULL, *ret = NULL;
	pytk_trace *t;
	pytk_reader pr;
	const tk_trace *tr;
	int once;

	(void)self;
	if (!PyArg_ParseTuple(args, "O:open", &source))
		return NULL;
	if (!(kw = kwargs ? PyDict_Copy(kwargs) : PyDict_New()))
		return NULL;
	if (!(t = PyObject_New(pytk_trace, pytk_TraceType)))
		goto out;
	memset((char *)t + sizeof(PyObject), 0, sizeof *t - sizeof(PyObject));
	t->head.path = pytk_source_path(source, "path", 1);
	t->head.kwargs = kwargs ? PyDict_Copy(kwargs) : PyDict_New();
	if (!t->head.path || !t->head.kwargs) {
		Py_DECREF(t);
		goto out;
	}
	t->head.data = read_once(t->head.path, &once);
	if (once && !t->head.data) {
		Py_DECREF(t);
		goto out;
	}
	/* the arguments are checked, and the metadata read, by opening once */
	if (pytk_reader_open(&pr, (PyObject *)t, kw, 1) < 0) {
		Py_DECREF(t);
		goto out;
	}
	tr = tk_reader_trace(pr.r);
	t->format = PyUnicode_FromString(tk_reader_format(pr.r));
	t->timebase = pytk_timebase_seconds(tk_trace_timebase(tr));
	t->header = header_list(tr);
	t->cycle_unit = tk_trace_cycle_unit(tr) ? PyUnicode_FromString(tk_trace_cycle_unit(tr))
		: Py_NewRef(Py_None);
	pytk_reader_close(&pr);
	if (!t->head.path || !t->head.kwargs || !t->format || !t->timebase || !t->header ||
	    !t->cycle_unit) {
		Py_DECREF(t);
		goto out;
	}
	ret = (PyObject *)t;
out:
	Py_XDECREF(kw);
	return ret;
}

static PyObject *py_record_fields(PyObject *self, PyObject *args)
{
	PyObject *l = PyList_New(NFIELDS);
	size_t k;

	(void)self;
	(void)args;
	for (k = 0; l && k < NFIELDS; k++) {
		PyObject *f = Py_BuildValue("(ssn)", fields[k].name, fields[k].dtype,
					    (Py_ssize_t)fields[k].offset);

		if (!f) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)k, f);
	}
	return l;
}

static PyMethodDef trace_functions[] = {
	{ "open", (PyCFunction)(void (*)(void))py_open, METH_VARARGS | METH_KEYWORDS,
	  "open(path, format=None, strict=False, **reader_options) -> Trace\n\n"
	  "Open a trace: a path (str, bytes, os.PathLike).  The header is read at once "
	  "(errors raise tracekit.Error subclasses); the events are read by the Trace's "
	  "methods.  reader_options: entities=, types=, events= (a name or names: the "
	  "events that match), start=, end= (the window: int ticks or a duration str "
	  "such as \"10ms\"), end_closed=False, window_stop=\"ordered\"|\"always\"|"
	  "\"never\", options=\"k=v,...\" and any other key a format option (hz=1000000, "
	  "trace=2, time_digits=6)." },
	{ "_record_fields", py_record_fields, METH_NOARGS,
	  "_record_fields() -> [(name, dtype, offset), ...]\n\n"
	  "The fields of the records of Trace._read(True), in order." },
	{ NULL, NULL, 0, NULL }
};

int pytk_trace_init(PyObject *m)
{
	pytk_TraceType = (PyTypeObject *)PyType_FromSpec(&trace_spec);
	if (!pytk_TraceType)
		return -1;
	if (PyModule_AddObjectRef(m, "Trace", (PyObject *)pytk_TraceType) < 0)
		return -1;
	if (!(iter_type = (PyTypeObject *)PyType_FromSpec(&iter_spec)) ||
	    PyModule_AddObjectRef(m, "EventIterator", (PyObject *)iter_type) < 0)
		return -1;
	if (!(buffer_type = (PyTypeObject *)PyType_FromSpec(&buffer_spec)) ||
	    PyModule_AddObjectRef(m, "Buffer", (PyObject *)buffer_type) < 0)
		return -1;
	if (!(event_type = PyStructSequence_NewType(&event_desc)) ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)event_type) < 0)
		return -1;
	if (PyModule_AddObject(m, "INST_NONE", PyLong_FromLongLong(TK_INST_NONE)) < 0)
		return -1;
	return PyModule_AddFunctions(m, trace_functions);
}
