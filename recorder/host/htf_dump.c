/*
 * htf_dump.c - the host side of the recorder's HTF binary mode: write the
 * records of every initialised core as an AMALTHEA HTF 1.0 text file that
 * tracekit reads (src/formats/htf/htf_reader.c).  Host-only (stdio).
 */
#define _POSIX_C_SOURCE 200809L

#include "FTrace_host.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[TKREC_HTF_NTYPES] = {
	"Task", "ISR", "Runnable", "CodeBlock", "Signal", "Semaphore"
};

/* The spec's event tables (section 3.2); the index is the id. */
static const char *const task_ev[] = {
	"activate", "start", "resume", "preempt", "terminate", "wait",
	"release", "poll", "run_polling", "park", "poll_parking",
	"release_parking",
};
static const char *const isr_ev[] = { "start", "resume", "preempt", "terminate" };
static const char *const runnable_ev[] = { "start", "suspend", "resume", "terminate" };
static const char *const codeblock_ev[] = { "start", "stop" };
static const char *const signal_ev[] = { "read", "write" };
static const char *const semaphore_ev[] = { "lock", "unlock" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *const *ev;
	size_t n;
} tables[TKREC_HTF_NTYPES] = {
	{ task_ev, N(task_ev) }, { isr_ev, N(isr_ev) },
	{ runnable_ev, N(runnable_ev) }, { codeblock_ev, N(codeblock_ev) },
	{ signal_ev, N(signal_ev) }, { semaphore_ev, N(semaphore_ev) },
};

static void fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static const tkrec_htf_ent *find_entity(uint64_t id)
{
	size_t i, n = tkrec_htf_entity_count();

	for (i = 0; i < n; i++)
		if (tkrec_htf_entity_get(i)->id == id)
			return tkrec_htf_entity_get(i);
	return NULL;
}

/* A name the reader takes back as written: no line break, no edge blank. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && !strpbrk(s, "\r\n") && s[0] != ' ' && s[0] != '\t' &&
	       s[n - 1] != ' ' && s[n - 1] != '\t';
}

/*
 * A time-base record (FTrace_htf.h): the all-ones entity id, of any
 * width (an entity id is 32-bit: 8 bytes of ones are no entity's); only
 * a core whose times are narrower than 8 bytes has them.
 */
static int is_base(const tkrec_htf_core *c, const uint8_t *p)
{
	return c->ts_len < 8 && get_be(p + c->ts_len, c->ent_len) == c->ent_max;
}

/*
 * The whole time of the record at p of core c; *base is the high part the
 * time-base records before it gave (start it at 0).  NULL for a time-base
 * record (it only moves *base).
 */
static int whole_time(const tkrec_htf_core *c, const uint8_t *p,
		      uint64_t *base, uint64_t *t)
{
	uint64_t low = get_be(p, c->ts_len);

	if (is_base(c, p)) {
		*base += low << (8 * c->ts_len);  /* ts_len < 8 here */
		return 0;
	}
	*t = *base + low;
	return 1;
}

/* The bytes a value needs: 1, 2, 4 or 8. */
static unsigned width_of(uint64_t v)
{
	return v <= 0xFFu ? 1 : v <= 0xFFFFu ? 2 : v <= 0xFFFFFFFFu ? 4 : 8;
}

/* Events dropped by core c, all reasons. */
static uint64_t lost_of(const tkrec_htf_core *c)
{
	return (uint64_t)c->ovf_ts + c->ovf_ent + c->ovf_ev + c->full;
}

/* A header value on one line: a line break would start another line of
 * the header (a #TimeScale of its own, say) */
static int one_line(const char *s)
{
	return !s || !strpbrk(s, "\r\n");
}

/* The time scales the reader takes (NULL: the default, ns). */
static int scale_ok(const char *s)
{
	static const char *const ok[] = { "ps", "ns", "us", "ms", "s" };
	size_t i;

	if (!s)
		return 1;
	for (i = 0; i < N(ok); i++)
		if (!strcmp(s, ok[i]))
			return 1;
	return 0;
}

/* Everything the file needs, checked before a byte is written. */
static int check(const tkrec_htf_meta *m, unsigned *ts, unsigned *ent,
		 unsigned *ev, unsigned *ncores, char *err, size_t errlen)
{
	size_t i, n = tkrec_htf_entity_count();
	unsigned k;

	if (m && (!one_line(m->target_system) || !one_line(m->description))) {
		fail(err, errlen, "the meta's %s has a line break",
		     one_line(m->target_system) ? "description" : "target system");
		return -1;
	}
	if (m && !scale_ok(m->timescale)) {
		fail(err, errlen, "the meta's time scale is none of ps, ns, us, ms, s");
		return -1;
	}

	*ts = *ent = *ev = 1;
	*ncores = 0;
	for (k = 0; k < FTRACE_MAX_CORES; k++) {
		const tkrec_htf_core *c = tkrec_htf_core_get(k);
		const uint8_t *p;
		uint64_t r, base = 0, t;

		if (!c)
			continue;
		(*ncores)++;
		if (c->ts_len > *ts)
			*ts = c->ts_len;
		if (c->ent_len > *ent)
			*ent = c->ent_len;
		if (c->ev_len > *ev)
			*ev = c->ev_len;
		for (p = c->start, r = 0; p < c->pos; p += c->rec_len, r++) {
			uint64_t id = get_be(p + c->ts_len, c->ent_len);
			uint64_t e = get_be(p + c->ts_len + c->ent_len, c->ev_len);
			const tkrec_htf_ent *en;

			if (!whole_time(c, p, &base, &t))
				continue;
			/* whole times wider than the core's: a wider field */
			if (width_of(t) > *ts)
				*ts = width_of(t);
			en = find_entity(id);

			if (!en) {
				fail(err, errlen, "core %u record %" PRIu64
				     ": entity 0x%" PRIX64 " is not registered", k, r, id);
				return -1;
			}
			if (e >= tables[en->type].n) {
				fail(err, errlen, "core %u record %" PRIu64
				     ": event 0x%" PRIX64 " is no event of type %s", k, r, e,
				     type_names[en->type]);
				return -1;
			}
		}
	}
	if (!*ncores) {
		fail(err, errlen, "no core was initialised");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const tkrec_htf_ent *en = tkrec_htf_entity_get(i);

		if (*ent < 8 && en->id > ((uint64_t)1 << (8 * *ent)) - 1) {
			fail(err, errlen, "entity %s: id 0x%" PRIX32 " is wider than %u bytes",
			     en->name, en->id, *ent);
			return -1;
		}
		if (!name_ok(en->name)) {
			fail(err, errlen, "entity 0x%" PRIX32
			     ": a name with a line break or an edge blank", en->id);
			return -1;
		}
	}
	return 0;
}

static void write_file(FILE *f, const tkrec_htf_meta *m, unsigned ts,
		       unsigned ent, unsigned ev, unsigned ncores, long *nrec)
{
	size_t i, j, n = tkrec_htf_entity_count();
	uint64_t lost = 0;
	unsigned k;

	for (k = 0; k < FTRACE_MAX_CORES; k++)
		if (tkrec_htf_core_get(k))
			lost += lost_of(tkrec_htf_core_get(k));
	fprintf(f, "#Format HTF\n#Version 1.0\n");
	if (m && m->target_system)
		fprintf(f, "#TargetSystem %s\n", m->target_system);
	if (m && m->description)
		fprintf(f, "#Description %s\n", m->description);
	/* the drops: not in the spec, a parameter tracekit warns of */
	if (lost)
		fprintf(f, "#LostEvents %" PRIu64 "\n", lost);
	fprintf(f, "#NumberOfCores %u\n", ncores);
	fprintf(f, "#TimeScale %s\n", m && m->timescale ? m->timescale : "ns");
	fprintf(f, "#TimeScaleNumerator %" PRIu32 "\n",
		m && m->numerator ? m->numerator : 1u);
	fprintf(f, "#TimeScaleDenominator %" PRIu32 "\n",
		m && m->denominator ? m->denominator : 1u);
	fprintf(f, "#TimestampLength %u\n#EntityLength %u\n#EventLength %u\n",
		ts, ent, ev);
	fprintf(f, "\n#TypeTable\n");
	for (i = 0; i < TKREC_HTF_NTYPES; i++)
		fprintf(f, "#-%02X %s\n", (unsigned)i, type_names[i]);
	for (i = 0; i < TKREC_HTF_NTYPES; i++) {
		fprintf(f, "\n#%sEventTable\n", type_names[i]);
		for (j = 0; j < tables[i].n; j++)
			fprintf(f, "#-%02X %s\n", (unsigned)j, tables[i].ev[j]);
	}
	fprintf(f, "\n#EntityTable\n");
	for (i = 0; i < n; i++)
		fprintf(f, "#-%0*" PRIX32 " %s\n", (int)(2 * ent),
			tkrec_htf_entity_get(i)->id, tkrec_htf_entity_get(i)->name);
	fprintf(f, "\n#EntityTypeTable\n");
	for (i = 0; i < n; i++)
		fprintf(f, "#-%0*" PRIX32 " %02X\n", (int)(2 * ent),
			tkrec_htf_entity_get(i)->id, tkrec_htf_entity_get(i)->type);
	fprintf(f, "\n#TraceData\n");
	for (k = 0; k < FTRACE_MAX_CORES; k++) {
		const tkrec_htf_core *c = tkrec_htf_core_get(k);
		const uint8_t *p;
		uint64_t base = 0, t;

		if (!c)
			continue;
		fprintf(f, "#-%02X\n", k);
		for (p = c->start; p < c->pos; p += c->rec_len) {
			if (!whole_time(c, p, &base, &t))
				continue;
			fprintf(f, "%0*" PRIX64 "%0*" PRIX64 "%0*" PRIX64 "\n",
				(int)(2 * ts), t,
				(int)(2 * ent), get_be(p + c->ts_len, c->ent_len),
				(int)(2 * ev), get_be(p + c->ts_len + c->ent_len, c->ev_len));
			(*nrec)++;
		}
	}
}

long tkrec_htf_dump(const char *path, const tkrec_htf_meta *meta,
		    char *err, size_t errlen)
{
	char tmp[4096];
	unsigned ts, ent, ev, ncores;
	long nrec = 0;
	FILE *f = NULL;

	if (err && errlen)
		err[0] = 0;
	if (!path || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fail(err, errlen, "bad output path");
		return -1;
	}
	if (check(meta, &ts, &ent, &ev, &ncores, err, errlen) != 0)
		return -1;
	f = fopen(tmp, "w");
	if (!f) {
		fail(err, errlen, "%s: cannot create", tmp);
		return -1;
	}
	write_file(f, meta, ts, ent, ev, ncores, &nrec);
	if (ferror(f) | fclose(f)) {
		fail(err, errlen, "%s: write error", tmp);
		goto fail_rm;
	}
	if (rename(tmp, path) != 0) {
		fail(err, errlen, "%s: cannot rename to %s", tmp, path);
		goto fail_rm;
	}
	return nrec;
fail_rm:
	remove(tmp);
	return -1;
}
