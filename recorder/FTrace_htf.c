/*
 * FTrace_htf.c - the HTF binary mode (FTrace_htf.h).  Freestanding.
 */
#include "FTrace_htf.h"

#include <string.h>

static tkrec_htf_core cores[FTRACE_MAX_CORES];
static tkrec_htf_ent entities[TKREC_HTF_MAX_ENTITIES];
static size_t nentities;
static uint64_t origin;

void tkrec_htf_reset(uint64_t t0)
{
	memset(cores, 0, sizeof(cores));
	memset(entities, 0, sizeof(entities));
	nentities = 0;
	origin = t0;
}

static uint64_t width_max(unsigned n)
{
	return n >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * n)) - 1;
}

static int width_ok(unsigned n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

int tkrec_htf_core_init(unsigned core, void *buf, size_t size,
			unsigned ts_len, unsigned ent_len, unsigned ev_len)
{
	tkrec_htf_core *c;
	size_t rec;
	uint32_t s;

	if (core >= FTRACE_MAX_CORES || !buf || !width_ok(ts_len) ||
	    !width_ok(ent_len) || !width_ok(ev_len))
		return -1;
	rec = ts_len + ent_len + ev_len;
	/*
	 * A record of up to 8 bytes is written as one 8-byte store whose
	 * tail the next record overwrites: the buffer keeps 8 - rec bytes of
	 * slack so the last store stays inside.
	 */
	if (rec <= 8) {
		if (size < 8)
			return -1;
		size -= 8 - rec;
	}
	if (size < rec)
		return -1;
	s = FTRACE_PORT_IRQ_SAVE();
	c = &cores[core];
	memset(c, 0, sizeof(*c));
	c->start = c->pos = (uint8_t *)buf;
	c->end = c->start + size / rec * rec;
	c->ts_len = (uint8_t)ts_len;
	c->ent_len = (uint8_t)ent_len;
	c->ev_len = (uint8_t)ev_len;
	c->rec_len = (uint8_t)rec;
	c->ts_max = width_max(ts_len);
	c->ent_max = width_max(ent_len);
	c->ev_max = width_max(ev_len);
	c->packed = rec <= 8;
	c->sh_ent = (uint8_t)(8 * ev_len);
	c->sh_ts = (uint8_t)(8 * (ent_len + ev_len));
	c->sh_rec = (uint8_t)(64 - 8 * rec);
	FTRACE_PORT_IRQ_RESTORE(s);
	return 0;
}

/*
 * The test for a free slot and a known id, and the new entry, in one
 * section (and the port's lock): an interrupt or another core that
 * registers at the same time takes the next slot, never the same one.
 */
int tkrec_htf_entity(uint32_t id, const char *name, unsigned type)
{
	size_t i, n;
	uint32_t s;
	int rc = -1;

	if (!name || !*name || type >= TKREC_HTF_NTYPES)
		return -1;
	s = FTRACE_PORT_IRQ_SAVE();
	FTRACE_PORT_LOCK();
	n = nentities;
	if (n >= TKREC_HTF_MAX_ENTITIES)
		goto out;
	for (i = 0; i < n; i++)
		if (entities[i].id == id)
			goto out;
	FTRACE_PORT_POINT(TKREC_POINT_ENTITY);
	entities[n].id = id;
	entities[n].name = name;
	entities[n].type = (uint8_t)type;
	nentities = n + 1;
	rc = 0;
out:
	FTRACE_PORT_UNLOCK();
	FTRACE_PORT_IRQ_RESTORE(s);
	return rc;
}

/*
 * A big-endian field of 1, 2, 4 or 8 bytes: the HTF line's digit order.
 * The builtin memcpy stays one store under -ffreestanding (a firmware's
 * usual flag), where memcpy would be a call.
 */
static inline void put_be(uint8_t *p, uint64_t v, unsigned n)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t v16;
	uint32_t v32;

	switch (n) {
	case 1:
		p[0] = (uint8_t)v;
		break;
	case 2:
		v16 = __builtin_bswap16((uint16_t)v);
		__builtin_memcpy(p, &v16, 2);
		break;
	case 4:
		v32 = __builtin_bswap32((uint32_t)v);
		__builtin_memcpy(p, &v32, 4);
		break;
	default:
		v = __builtin_bswap64(v);
		__builtin_memcpy(p, &v, 8);
		break;
	}
#else
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
#endif
}

/*
 * One record at p: the time's bits above the width fall out (shifted out
 * of the packed word, or not written by put_be).
 */
static inline void put_rec(const tkrec_htf_core *c, uint8_t *p, uint64_t t,
			   uint64_t entity, uint32_t event)
{
	if (c->packed) {
		/* shifts < 64: ent + ev < 8 bytes when the record fits 8 */
		uint64_t v = (t << c->sh_ts | entity << c->sh_ent | event)
			     << c->sh_rec;

		put_be(p, v, 8);
	} else {
		put_be(p, t, c->ts_len);
		put_be(p + c->ts_len, entity, c->ent_len);
		put_be(p + c->ts_len + c->ent_len, event, c->ev_len);
	}
}

/*
 * Time t is outside the epoch of c->ts_base: time-base records (the
 * all-ones entity, event 0, the time field the number of wraps of the
 * width each adds, at most ts_max) and room for the event after them, or
 * -1 (nothing written: the buffer is full, or the time went back).  Out of
 * line: it is rare, and the hot path keeps its registers.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int new_base(tkrec_htf_core *c, uint64_t t)
{
	uint64_t k, n, hi = t & ~c->ts_max;
	unsigned w = 8u * c->ts_len;  /* < 64: ts_max is not all ones */

	if (hi < c->ts_base) {
		c->ovf_ts++;
		return -1;
	}
	k = (hi - c->ts_base) >> w;
	n = (k + c->ts_max - 1) / c->ts_max;  /* records */
	if ((uint64_t)(c->end - c->pos) / c->rec_len < n + 1) {
		c->full++;
		return -1;
	}
	while (k) {
		uint64_t step = k < c->ts_max ? k : c->ts_max;

		put_rec(c, c->pos, step, c->ent_max, 0);
		c->pos += c->rec_len;
		k -= step;
	}
	c->ts_base = hi;
	return 0;
}

int tkrec_htf_log(uint32_t entity, uint32_t event)
{
	unsigned core = FTRACE_PORT_CORE();
	tkrec_htf_core *c;
	uint64_t t;
	uint8_t *p;
	uint32_t s;
	int rc = -1;

	if (core >= FTRACE_MAX_CORES)
		return -1;
	c = &cores[core];
	s = FTRACE_PORT_IRQ_SAVE();
	if (!c->start)
		goto out;
	t = FTRACE_PORT_TSC() - origin;
	/* the all-ones id marks time-base records */
	if (entity >= c->ent_max) {
		c->ovf_ent++;
		goto out;
	}
	if (event > c->ev_max) {
		c->ovf_ev++;
		goto out;
	}
	/* one test: a time before the epoch wraps past ts_max too */
	if (t - c->ts_base > c->ts_max && new_base(c, t) < 0)
		goto out;
	p = c->pos;
	if (p >= c->end) {
		c->full++;
		goto out;
	}
	put_rec(c, p, t, entity, event);
	c->pos = p + c->rec_len;
	rc = 0;
out:
	FTRACE_PORT_IRQ_RESTORE(s);
	return rc;
}

const tkrec_htf_core *tkrec_htf_core_get(unsigned core)
{
	if (core >= FTRACE_MAX_CORES || !cores[core].start)
		return NULL;
	return &cores[core];
}

size_t tkrec_htf_entity_count(void)
{
	return nentities;
}

const tkrec_htf_ent *tkrec_htf_entity_get(size_t i)
{
	return i < nentities ? &entities[i] : NULL;
}

uint32_t tkrec_htf_lost(void)
{
	uint32_t n = 0;
	unsigned i;

	for (i = 0; i < FTRACE_MAX_CORES; i++)
		n += cores[i].ovf_ts + cores[i].ovf_ent + cores[i].ovf_ev +
		     cores[i].full;
	return n;
}
