/*
 * ctf_writer.c - a Common Trace Format 1.8 trace (a directory) that
 * babeltrace2 and Trace Compass read (docs/exports.md).
 *
 * The output directory holds:
 *  - `metadata`: the TSDL text ("/ * CTF 1.8 * /" first), written at close
 *    because the event classes are known only then;
 *  - one binary stream per core, `stream_N` for the core of cpu_id N (the
 *    cores numbered from 0 in order of first appearance), and
 *    `stream_nocore` for the events with no (named) core; little-endian,
 *    every field byte aligned, cut into packets of about PKT_TARGET bytes.
 *    A file is created at its stream's first packet.
 *
 * Packet: header { uint32 magic = 0xC1FC1FC1; uint32 stream_id }, context
 * { timestamp_begin, timestamp_end (clock), content_size, packet_size
 * (bits; equal, no padding), and in the per-core streams (stream class 0)
 * uint32 cpu_id }; the no-core stream is of stream class 1, without
 * cpu_id.  An event with a core is in its core's stream, so its class
 * (which has the `core` field) belongs to stream class 0; the others to 1.
 * Event: header { uint32 id; uint64 timestamp (clock) }, then the fields
 * entity (string), instance (int64), source (string), source_instance
 * (int64), core (string), note (string), each only when it has a value:
 * an empty instance column, no or an empty source, an unknown core and no
 * or an empty note leave their field out.  An event without a core of its
 * own (a runnable's, a signal's) is on the core its source instance runs
 * on (tk_timeline_event_lane(), as the JSON export places it).
 *
 * One event class per (entity type, event name) as written, named
 * "TYPE:event" ("T:start", "SIG:write"), and per set of fields present
 * (so several classes may share a name), in order of first appearance.
 * Why not one class with empty strings: babeltrace2 2.0 prints an empty
 * string field with the value the field had in the previous event of its
 * class (fixed upstream after 2.0.4), so empty strings would show notes
 * that are not there.
 *
 * The clock ("trace_clock") counts in units of which one tick is a whole
 * number: a tick of num/den UNIT lasts num*F/(den*U) cycles of a clock of
 * F Hz (U units per second), so F = den*U/g and a tick is num/g cycles
 * with g = gcd(num, den*U): every time base whose F fits 64 bits (1/3 ns:
 * F = 3 GHz) is exact.  Otherwise strict mode refuses and lenient mode
 * uses a 1 THz (picosecond) clock, rounds times down and counts them.
 * Times are not rebased (offset 0), so cycles = ticks * (num/g).  The
 * clock's last value, 2^64 - 1, is refused: CTF readers take an all-ones
 * clock value for "unknown" (babeltrace2 2.0 stops on a packet ending
 * there), so it cannot stand for a time; so is a time of 2^63 - 1 ns or
 * more (ns_fits()).
 */
#define _POSIX_C_SOURCE 200809L

#include "../../core/internal.h"
#include "../../core/loss.h"
#include "../../core/bytes.h"
#include "../../core/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTF_MAGIC 0xC1FC1FC1u
#define PKT_HDR 40              /* header 8 + context 32 bytes */
#define PKT_CPU_HDR 44          /* the same and cpu_id */
#define PKT_TARGET (256u << 10) /* close a packet past this size */
#define PKT_ALL (32u << 20)     /* flush every stream past this in all */
#define NO_CPU UINT32_MAX       /* the no-core stream's cpu */

enum { L_ROUNDED, L_BACKWARDS, L_NUL, L_NAME, L_COUNT };

static const char *const loss_what[L_COUNT] = {
	"a time that is not a whole number of picoseconds",
	"a time earlier than the previous event's",
	"a string with a NUL byte",
	"an entity type or event name with a control character",
};

static const char *const loss_short[L_COUNT] = {
	"times rounded down to picoseconds",
	"times raised to the previous event's (CTF streams never go back)",
	"strings cut at a NUL byte",
	"class names with control characters written as '_'",
};

enum { F_ENTITY = 1, F_INST = 2, F_SOURCE = 4, F_SINST = 8, F_CORE = 16,
       F_NOTE = 32 };

typedef struct ctf_class {
	tk_str type_name;  /* as written, or TK_NONE */
	tk_str name;       /* as written, or TK_NONE */
	tk_etype type;
	tk_evkind kind;
	unsigned fields;   /* F_*: the fields present */
} ctf_class;

/* a stream and the packet being built for it */
typedef struct ctf_stream {
	unsigned char *pkt;
	size_t plen, pcap, hdr;   /* hdr: PKT_HDR or PKT_CPU_HDR */
	uint64_t pbegin, pend;    /* cycles of its first / last event */
	uint32_t cpu;             /* cpu_id, or NO_CPU */
	uint32_t core;            /* the core entity (TK_NONE: no core) */
	int created;              /* its file exists */
} ctf_stream;

typedef struct ctf_writer {
	const char *name;
	/* the streams: per core (core_stream[entity] = index + 1) */
	ctf_stream *streams;
	uint32_t nstreams, capstreams, ncpus;
	uint32_t *core_stream;
	size_t ncore_stream;
	uint32_t nocore;          /* the no-core stream's index + 1, or 0 */
	ctf_stream *cur;          /* the stream of the event being written */
	size_t buffered;          /* bytes in all streams' packets */
	/* the clock */
	uint64_t freq, mult;      /* Hz; cycles per tick */
	int rounded;              /* lenient fallback: picoseconds, rounded */
	/* classes */
	ctf_class *classes;
	uint32_t nclasses, capclasses;
	tk_hashmap table;         /* class_key() -> class index */
	uint64_t last;            /* cycles of the last event */
	int have_last;
	uint64_t nevents, npackets;
	tk_losses lost;
	/* who runs where: an event without a core of its own is on the core
	 * its source runs on (the JSON export's rule) */
	tk_timeline *tl;
} ctf_writer;

/* ---- helpers ------------------------------------------------------------- */

static int lose(tk_writer *w, ctf_writer *cw, int kind, const tk_event *ev,
		tk_error *err)
{
	return tk_loss_add(&cw->lost, w, cw->name, kind, ev, err);
}

/* Room for n (> 0) more bytes in the current stream's packet. */
static int pkt_reserve(ctf_writer *cw, size_t n)
{
	ctf_stream *st = cw->cur;

	return tk_grow_zero((void **)&st->pkt, &st->pcap, st->plen + n - 1, 1);
}

/* Append a NUL-terminated string: the bytes up to a NUL, if any. */
static int put_str(tk_writer *w, ctf_writer *cw, const char *s, size_t n,
		   const tk_event *ev, tk_error *err)
{
	const char *z;
	int rc;

	/* the UTF-8 rule of every writer (babeltrace2 decodes UTF-8) */
	if ((rc = tk_writer_text(w, s, n, &s, &n, err)) < 0)
		return rc;
	z = n ? memchr(s, 0, n) : NULL;

	if (z) {
		if ((rc = lose(w, cw, L_NUL, ev, err)) < 0)
			return rc;
		n = (size_t)(z - s);
	}
	if (pkt_reserve(cw, n + 1) < 0)
		return tk_err_nomem(err, cw->name);
	if (n)
		memcpy(cw->cur->pkt + cw->cur->plen, s, n);
	cw->cur->pkt[cw->cur->plen + n] = 0;
	cw->cur->plen += n + 1;
	cw->buffered += n + 1;
	return TK_OK;
}

static int put_entity(tk_writer *w, ctf_writer *cw, uint32_t ent,
		      const tk_event *ev, tk_error *err)
{
	const tk_entity *e = ent == TK_NONE ? NULL
					    : tk_trace_entity(w->trace, ent);
	const char *s = "";
	size_t n = 0;

	if (e)
		s = tk_trace_str(w->trace, e->name, &n);
	return put_str(w, cw, s, n, ev, err);
}

/* The length of entity `ent`'s name; 0 for none. */
static size_t name_len(tk_writer *w, uint32_t ent)
{
	const tk_entity *e = ent == TK_NONE ? NULL
					    : tk_trace_entity(w->trace, ent);
	size_t n = 0;

	if (e)
		tk_trace_str(w->trace, e->name, &n);
	return n;
}

static int put_i64(ctf_writer *cw, int64_t v, tk_error *err)
{
	if (pkt_reserve(cw, 8) < 0)
		return tk_err_nomem(err, cw->name);
	tk_store_le64(cw->cur->pkt + cw->cur->plen, (uint64_t)v);
	cw->cur->plen += 8;
	cw->buffered += 8;
	return TK_OK;
}

/* Write the packet being built for st (if it holds an event) to its
 * file, created at its first packet.  The file is opened for each packet
 * (one per PKT_TARGET bytes), so the number of cores is not bounded by
 * the open files. */
static int flush_packet(tk_writer *w, ctf_writer *cw, ctf_stream *st,
			tk_error *err)
{
	unsigned char *p = st->pkt;
	size_t n = strlen(w->sink.tmp) + 32;
	char *path;
	FILE *f;
	int rc = TK_OK;

	if (st->plen <= st->hdr)
		return TK_OK;
	tk_store_le32(p, CTF_MAGIC);
	tk_store_le32(p + 4, st->cpu == NO_CPU ? 1 : 0);
	tk_store_le64(p + 8, st->pbegin);
	tk_store_le64(p + 16, st->pend);
	tk_store_le64(p + 24, (uint64_t)st->plen * 8);
	tk_store_le64(p + 32, (uint64_t)st->plen * 8);
	if (st->cpu != NO_CPU)
		tk_store_le32(p + 40, st->cpu);
	path = malloc(n);
	if (!path)
		return tk_err_nomem(err, cw->name);
	if (st->cpu == NO_CPU)
		snprintf(path, n, "%s/stream_nocore", w->sink.tmp);
	else
		snprintf(path, n, "%s/stream_%u", w->sink.tmp, st->cpu);
	if (!st->created)
		/* listed before it exists: a signal then removes it with the
		 * folder */
		(void)(st->cpu == NO_CPU ? tk_sink_track(&w->sink, path)
		       : tk_sink_track_series(&w->sink, "stream_", st->cpu + 1));
	f = fopen(path, st->created ? "ab" : "wb");
	if (!f || fwrite(p, 1, st->plen, f) != st->plen)
		rc = tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				"cannot write the stream: %s", strerror(errno));
	if (f && fclose(f) != 0 && rc == TK_OK)
		rc = tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				"cannot write the stream: %s", strerror(errno));
	free(path);
	if (rc < 0)
		return rc;
	st->created = 1;
	cw->npackets++;
	cw->buffered -= st->plen - st->hdr;
	st->plen = st->hdr;
	return TK_OK;
}

static int flush_all(tk_writer *w, ctf_writer *cw, tk_error *err)
{
	uint32_t i;
	int rc;

	for (i = 0; i < cw->nstreams; i++) {
		ctf_stream *st = &cw->streams[i];
		if ((rc = flush_packet(w, cw, st, err)) < 0)
			return rc;
		free(st->pkt); /* memory per stream follows its traffic */
		st->pkt = NULL;
		st->pcap = 0;
	}
	return TK_OK;
}

/* The stream of core entity `core` (TK_NONE: the no-core stream), created
 * if new; NULL when out of memory. */
static ctf_stream *stream_of(ctf_writer *cw, uint32_t core)
{
	uint32_t *slot = NULL;
	ctf_stream *st;

	if (core == TK_NONE) {
		slot = &cw->nocore;
	} else {
		if (tk_grow_zero((void **)&cw->core_stream, &cw->ncore_stream,
				 core, sizeof(*cw->core_stream)) < 0)
			return NULL;
		slot = &cw->core_stream[core];
	}
	if (*slot)
		return &cw->streams[*slot - 1];
	if (tk_grow_zero32((void **)&cw->streams, &cw->capstreams, cw->nstreams,
			   sizeof(*cw->streams)) < 0)
		return NULL;
	st = &cw->streams[cw->nstreams];
	memset(st, 0, sizeof(*st));
	st->core = core;
	st->cpu = core == TK_NONE ? NO_CPU : cw->ncpus++;
	st->hdr = st->plen = core == TK_NONE ? PKT_HDR : PKT_CPU_HDR;
	*slot = ++cw->nstreams;
	return st;
}

static uint64_t class_key(const ctf_class *c)
{
	uint64_t key = ((uint64_t)c->type_name << 32) | c->name;

	if (c->type_name == TK_NONE)
		key ^= (uint64_t)c->type << 8; /* canonical name differs */
	if (c->name == TK_NONE)
		key ^= (uint64_t)c->kind;
	return key ^ ((uint64_t)c->fields << 20);
}

static int class_eq(const ctf_class *a, const ctf_class *b)
{
	return a->type_name == b->type_name && a->name == b->name &&
	       a->fields == b->fields &&
	       (a->type_name != TK_NONE || a->type == b->type) &&
	       (a->name != TK_NONE || a->kind == b->kind);
}

/* The class of `want`; created if new.  UINT32_MAX on OOM. */
static uint32_t class_of(ctf_writer *cw, const ctf_class *want)
{
	uint64_t key = class_key(want);
	uint32_t i;

	for (i = tk_hashmap_first(&cw->table, key); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(&cw->table, key, i))
		if (class_eq(&cw->classes[cw->table.slots[i].val], want))
			return cw->table.slots[i].val;
	if (cw->nclasses == UINT32_MAX - 1 ||
	    tk_grow_zero32((void **)&cw->classes, &cw->capclasses,
			   cw->nclasses, sizeof(*cw->classes)) < 0 ||
	    tk_hashmap_add(&cw->table, key, cw->nclasses) < 0)
		return UINT32_MAX;
	cw->classes[cw->nclasses] = *want;
	return cw->nclasses++;
}

/* A TSDL string literal's body: '"' and '\' escaped, control bytes '_';
 * a string that is not UTF-8 is repaired and counted as every writer's
 * (tk_writer_text(); strict mode refuses it at close). */
static int put_lit(tk_writer *w, FILE *f, const char *s, size_t n)
{
	int changed = 0;
	size_t i;
	tk_error ignored;

	if (tk_writer_text(w, s, n, &s, &n, &ignored) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c < 0x20 || c == 0x7f) {
			fputc('_', f);
			changed = 1;
		} else {
			fputc(c, f);
		}
	}
	return changed;
}

/* ---- writer ops ---------------------------------------------------------- */

/* The metadata file, empty until close, is created (and listed for the
 * signal handler) first: the sink's table of files to remove on a signal
 * is short, and the stream files come after it. */
static int create_metadata(tk_writer *w, ctf_writer *cw, tk_error *err)
{
	size_t n = strlen(w->sink.tmp) + 16;
	char *path = malloc(n);
	FILE *f;

	if (!path)
		return tk_err_nomem(err, cw->name);
	snprintf(path, n, "%s/metadata", w->sink.tmp);
	(void)tk_sink_track(&w->sink, path);
	f = fopen(path, "w");
	free(path);
	if (!f || fclose(f) != 0)
		return tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				  "cannot create the metadata file: %s",
				  strerror(errno));
	return TK_OK;
}

static int ctf_writer_open(tk_writer *w, tk_error *err)
{
	static const uint64_t per_s[] = { 1000000000000ull, 1000000000ull,
					  1000000ull, 1000ull, 1ull };
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	ctf_writer *cw = calloc(1, sizeof(*cw));
	tk_u128 dU, g, f;

	if (!cw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = cw;
	cw->name = w->sink.path;
	cw->lost.format = "CTF";
	cw->lost.what = loss_what;
	cw->lost.brief = loss_short;
	cw->lost.nkinds = L_COUNT;
	dU = (tk_u128)tb->den * per_s[tb->unit];
	g = tk_gcd128(tb->num, dU);
	f = dU / g;
	if (f > UINT64_MAX) {
		if (w->opts.strict)
			return tk_err_set(err, TK_E_UNSUPPORTED, cw->name, 0, 0,
					  "CTF's clock frequency is a 64-bit number of Hz: a tick of %llu/%llu %s needs a faster clock; outside strict mode times are rounded down to picoseconds with a warning",
					  (unsigned long long)tb->num,
					  (unsigned long long)tb->den,
					  tk_unit_name(tb->unit));
		cw->rounded = 1;
		cw->freq = per_s[TK_UNIT_PS];
		cw->mult = 0;
	} else {
		cw->freq = (uint64_t)f;
		cw->mult = (uint64_t)(tb->num / g);
	}
	if (tk_timeline_new(&cw->tl, w->trace, NULL, NULL, NULL, err) < 0)
		return TK_E_NOMEM;
	return create_metadata(w, cw, err);
}

static int clock_max(const ctf_writer *cw, const tk_event *ev, tk_error *err)
{
	return tk_err_set(err, TK_E_RANGE, cw->name, 0, 0,
			  "time %llu is the last value of the 64-bit clock of %llu Hz, which CTF readers take for an unknown time",
			  (unsigned long long)ev->time,
			  (unsigned long long)cw->freq);
}

/* Whether CTF readers can place `cyc` in time: babeltrace2 counts
 * nanoseconds from the clock's origin in a signed 64-bit number, computed
 * as the cycles themselves for a 1 GHz clock and otherwise in double
 * (1e9 * cycles / frequency), and refuses the whole stream (not only the
 * event) when that reaches 2^63 - 1. */
static int ns_fits(const ctf_writer *cw, uint64_t cyc)
{
	if (cw->freq == 1000000000ull)
		return cyc < (uint64_t)INT64_MAX;
	return 1e9 * (double)cyc / (double)cw->freq < 0x1p63;
}

static int ctf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	ctf_writer *cw = w->impl;
	ctf_class want;
	uint64_t cyc;
	uint32_t cls, core = ev->core;
	int rc = TK_OK;

	if (cw->rounded) {
		static const tk_timebase ps = { TK_UNIT_PS, 1, 1 };
		if (tk_time_convert(ev->time, tk_trace_timebase(w->trace), &ps,
				    TK_ROUND_EXACT, &cyc) != TK_OK) {
			if (tk_time_convert(ev->time,
					    tk_trace_timebase(w->trace), &ps,
					    TK_ROUND_DOWN, &cyc) != TK_OK)
				return tk_err_set(err, TK_E_RANGE, cw->name, 0, 0,
						  "time %llu does not fit a 64-bit picosecond clock",
						  (unsigned long long)ev->time);
			if (cyc != UINT64_MAX &&
			    (rc = lose(w, cw, L_ROUNDED, ev, err)) < 0)
				return rc;
		}
		if (cyc == UINT64_MAX)
			return clock_max(cw, ev, err);
	} else {
		if ((tk_u128)ev->time * cw->mult > UINT64_MAX)
			return tk_err_set(err, TK_E_RANGE, cw->name, 0, 0,
					  "time %llu is beyond the 64-bit clock of %llu Hz",
					  (unsigned long long)ev->time,
					  (unsigned long long)cw->freq);
		cyc = ev->time * cw->mult;
		if (cyc == UINT64_MAX)
			return clock_max(cw, ev, err);
	}
	if (!ns_fits(cw, cyc))
		return tk_err_set(err, TK_E_RANGE, cw->name, 0, 0,
				  "time %llu is 2^63 - 1 ns or more after the clock's origin, which CTF readers (babeltrace2) cannot place in time",
				  (unsigned long long)ev->time);
	if (cw->have_last && cyc < cw->last) {
		if ((rc = lose(w, cw, L_BACKWARDS, ev, err)) < 0)
			return rc;
		cyc = cw->last;
	}
	if ((rc = tk_timeline_event(cw->tl, ev, err)) < 0)
		return tk_err_input(err, cw->name, rc);
	if (!name_len(w, core)) {
		/* a runnable's or a signal's event: its source's core */
		long lane = tk_timeline_event_lane(cw->tl, ev);
		core = lane >= 0 ? tk_timeline_lane_core(cw->tl, (size_t)lane)
				 : TK_NONE;
	}
	want.type_name = ev->type_name;
	want.name = ev->name;
	want.type = ev->type;
	want.kind = ev->kind;
	want.fields = (name_len(w, ev->target) ? F_ENTITY : 0) |
		      (ev->target_inst != TK_INST_NONE ? F_INST : 0) |
		      (name_len(w, ev->source) ? F_SOURCE : 0) |
		      (ev->source_inst != TK_INST_NONE ? F_SINST : 0) |
		      (name_len(w, core) ? F_CORE : 0) |
		      (ev->note && ev->note_len ? F_NOTE : 0);
	cls = class_of(cw, &want);
	if (cls == UINT32_MAX)
		return tk_err_nomem(err, cw->name);
	/* the core's stream: a class with the core field is of stream class 0
	 * (the per-core streams), one without of stream class 1 */
	cw->cur = stream_of(cw, want.fields & F_CORE ? core : TK_NONE);
	if (!cw->cur)
		return tk_err_nomem(err, cw->name);
	if (cw->cur->plen == cw->cur->hdr)
		cw->cur->pbegin = cyc;
	cw->cur->pend = cw->last = cyc;
	cw->have_last = 1;
	if (pkt_reserve(cw, 12) < 0)
		return tk_err_nomem(err, cw->name);
	tk_store_le32(cw->cur->pkt + cw->cur->plen, cls);
	tk_store_le64(cw->cur->pkt + cw->cur->plen + 4, cyc);
	cw->cur->plen += 12;
	cw->buffered += 12;
	if ((want.fields & F_ENTITY) &&
	    (rc = put_entity(w, cw, ev->target, ev, err)) < 0)
		return rc;
	if ((want.fields & F_INST) &&
	    (rc = put_i64(cw, ev->target_inst, err)) < 0)
		return rc;
	if ((want.fields & F_SOURCE) &&
	    (rc = put_entity(w, cw, ev->source, ev, err)) < 0)
		return rc;
	if ((want.fields & F_SINST) &&
	    (rc = put_i64(cw, ev->source_inst, err)) < 0)
		return rc;
	if ((want.fields & F_CORE) &&
	    (rc = put_entity(w, cw, core, ev, err)) < 0)
		return rc;
	if ((want.fields & F_NOTE) &&
	    (rc = put_str(w, cw, ev->note, ev->note_len, ev, err)) < 0)
		return rc;
	cw->nevents++;
	if (cw->cur->plen >= PKT_TARGET)
		return flush_packet(w, cw, cw->cur, err);
	if (cw->buffered >= PKT_ALL)
		return flush_all(w, cw, err);
	return TK_OK;
}

static void put_class_name(tk_writer *w, ctf_writer *cw, FILE *f,
			   const tk_trace *t, const ctf_class *c)
{
	const char *s;
	size_t n;
	int changed = 0;

	if (c->type_name != TK_NONE) {
		s = tk_trace_str(t, c->type_name, &n);
		changed |= put_lit(w, f, s, n);
	} else {
		fputs(tk_etype_name(c->type), f);
	}
	fputc(':', f);
	if (c->name != TK_NONE) {
		s = tk_trace_str(t, c->name, &n);
		changed |= put_lit(w, f, s, n);
	} else {
		fputs(tk_evkind_name(c->kind), f);
	}
	if (changed)
		cw->lost.n[L_NAME]++;
}

static int write_metadata(tk_writer *w, ctf_writer *cw, tk_error *err)
{
	const tk_trace *t = w->trace;
	const tk_timebase *tb = tk_trace_timebase(t);
	size_t n = strlen(w->sink.tmp);
	char *path = malloc(n + 16);
	static const char *const field_decl[6] = {
		"string entity", "int64_t instance", "string source",
		"int64_t source_instance", "string core", "string note"
	};
	const char *creator, *cycles = tk_trace_cycle_unit(t);
	FILE *f = NULL;
	uint32_t i;
	int k;
	int rc = TK_OK;

	if (!path)
		return tk_err_nomem(err, cw->name);
	snprintf(path, n + 16, "%s/metadata", w->sink.tmp);
	f = fopen(path, "w"); /* created (and listed) at open */
	if (!f) {
		rc = tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				"cannot create the metadata file: %s",
				strerror(errno));
		goto out;
	}
	fputs("/* CTF 1.8 */\n\n"
	      "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	      "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n"
	      "trace {\n"
	      "\tmajor = 1;\n"
	      "\tminor = 8;\n"
	      "\tbyte_order = le;\n"
	      "\tpacket.header := struct {\n"
	      "\t\tuint32_t magic;\n"
	      "\t\tuint32_t stream_id;\n"
	      "\t};\n"
	      "};\n\n", f);
	fprintf(f, "env {\n\ttracer_name = \"tracekit\";\n\ttracer_version = \"%s\";\n"
		   "\tinput_format = \"", tk_version());
	put_lit(w, f, tk_trace_format(t), strlen(tk_trace_format(t)));
	fprintf(f, "\";\n\ttick = \"%llu/%llu %s\";\n",
		(unsigned long long)tb->num, (unsigned long long)tb->den,
		tk_unit_name(tb->unit));
	if (cycles) {
		/* ticks that count cycles (a Tarmac log): the unit, kept */
		fputs("\ttime_unit = \"", f);
		put_lit(w, f, cycles, strlen(cycles));
		fputs("\";\n", f);
	}
	creator = tk_trace_header_get(t, "creator");
	if (creator) {
		/* without the white space (line ends) around it */
		size_t len = strlen(creator);
		while (len && strchr(" \t\r\n\v\f", creator[len - 1]))
			len--;
		while (len && strchr(" \t\r\n\v\f", creator[0])) {
			creator++;
			len--;
		}
		fputs("\tcreator = \"", f);
		put_lit(w, f, creator, len);
		fputs("\";\n", f);
	}
	/* the core of each cpu_id */
	for (i = 0; i < cw->nstreams; i++) {
		const ctf_stream *st = &cw->streams[i];
		const char *cs;
		size_t cn;
		if (st->cpu == NO_CPU)
			continue;
		cs = tk_trace_str(t, tk_trace_entity(t, st->core)->name, &cn);
		fprintf(f, "\tcpu_%u = \"", st->cpu);
		put_lit(w, f, cs, cn);
		fputs("\";\n", f);
	}
	fprintf(f, "};\n\n");
	fputs("clock {\n\tname = trace_clock;\n", f);
	if (cycles) {
		fputs("\tdescription = \"one cycle per tick: the times are '", f);
		put_lit(w, f, cycles, strlen(cycles));
		fputs("' cycles of the traced CPU, whose frequency the trace does not give; freq says one cycle per ns\";\n", f);
	} else {
		fprintf(f, "\tdescription = \"the trace's time base: %llu cycles per tick of %llu/%llu %s%s\";\n",
			(unsigned long long)cw->mult, (unsigned long long)tb->num,
			(unsigned long long)tb->den, tk_unit_name(tb->unit),
			cw->rounded ? " (picoseconds, rounded down)" : "");
	}
	fprintf(f, "\tfreq = %llu;\n"
		   "\toffset_s = 0;\n"
		   "\toffset = 0;\n"
		   "\tprecision = 0;\n"
		   "\tabsolute = false;\n"
		   "};\n\n",
		(unsigned long long)cw->freq);
	fputs("typealias integer { size = 64; align = 8; signed = false; map = clock.trace_clock.value; } := clock_int_t;\n\n"
	      "stream {\n"
	      "\tid = 0;\n"
	      "\tpacket.context := struct {\n"
	      "\t\tclock_int_t timestamp_begin;\n"
	      "\t\tclock_int_t timestamp_end;\n"
	      "\t\tuint64_t content_size;\n"
	      "\t\tuint64_t packet_size;\n"
	      "\t\tuint32_t cpu_id;\n"
	      "\t};\n"
	      "\tevent.header := struct {\n"
	      "\t\tuint32_t id;\n"
	      "\t\tclock_int_t timestamp;\n"
	      "\t};\n"
	      "};\n", f);
	if (cw->nocore)
		fputs("\n/* the events with no core */\n"
		      "stream {\n"
		      "\tid = 1;\n"
		      "\tpacket.context := struct {\n"
		      "\t\tclock_int_t timestamp_begin;\n"
		      "\t\tclock_int_t timestamp_end;\n"
		      "\t\tuint64_t content_size;\n"
		      "\t\tuint64_t packet_size;\n"
		      "\t};\n"
		      "\tevent.header := struct {\n"
		      "\t\tuint32_t id;\n"
		      "\t\tclock_int_t timestamp;\n"
		      "\t};\n"
		      "};\n", f);
	for (i = 0; i < cw->nclasses; i++) {
		fputs("\nevent {\n\tname = \"", f);
		put_class_name(w, cw, f, t, &cw->classes[i]);
		fprintf(f, "\";\n\tid = %u;\n\tstream_id = %d;\n"
			   "\tfields := struct {\n", i,
			cw->classes[i].fields & F_CORE ? 0 : 1);
		for (k = 0; k < 6; k++)
			if (cw->classes[i].fields & (1u << k))
				fprintf(f, "\t\t%s;\n", field_decl[k]);
		fputs("\t};\n};\n", f);
	}
	if (ferror(f))
		rc = tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				"cannot write the metadata file");
out:
	if (f && fclose(f) != 0 && rc == TK_OK)
		rc = tk_err_set(err, TK_E_IO, cw->name, 0, 0,
				"cannot write the metadata file: %s",
				strerror(errno));
	free(path);
	return rc;
}

static int ctf_writer_close(tk_writer *w, tk_error *err)
{
	ctf_writer *cw = w->impl;
	int rc;

	if ((rc = flush_all(w, cw, err)) < 0)
		return rc;
	if ((rc = write_metadata(w, cw, err)) < 0)
		return rc;
	if (w->opts.strict && cw->lost.n[L_NAME])
		return tk_err_set(err, TK_E_UNSUPPORTED, cw->name, 0, 0,
				  "CTF cannot hold %s", loss_what[L_NAME]);
	tk_loss_report(&cw->lost, w, cw->name);
	return TK_OK;
}

static void ctf_writer_free(tk_writer *w)
{
	ctf_writer *cw = w->impl;
	uint32_t i;

	if (!cw)
		return;
	for (i = 0; i < cw->nstreams; i++)
		free(cw->streams[i].pkt);
	free(cw->streams);
	free(cw->core_stream);
	free(cw->classes);
	tk_hashmap_free(&cw->table);
	tk_timeline_free(cw->tl);
	free(cw);
	w->impl = NULL;
}

const tk_format_ops tk_format_ctf = {
	.info = {
		.name = "ctf",
		.extensions = "ctf",
		.description = "Common Trace Format 1.8 directory for babeltrace2 and Trace Compass: one event class per (type, event) (export only)",
		.caps = TK_CAP_WRITE,
	},
	.writer_open = ctf_writer_open,
	.writer_write = ctf_writer_write,
	.writer_close = ctf_writer_close,
	.writer_free = ctf_writer_free,
	.writes_dir = 1,
};
