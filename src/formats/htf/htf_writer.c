/*
 * htf_writer.c - HTF output from any trace.
 *
 * HTF puts its reference tables (types, events, entities) before the data
 * and groups the data by core, so nothing can be written before the last
 * event: each event is appended as a fixed-size binary record to a
 * temporary file of its core (memory stays flat), and tk_writer_close()
 * writes the header, the tables of what was used, and the sections.
 *
 * What HTF cannot hold is counted and reported in one warning per kind at
 * close (lenient) or refused at the first occurrence (strict): notes, event
 * types without an HTF table, events missing from HTF's tables, and
 * sources or instances other than those the HTF reader synthesises (the
 * writer runs the reader's rules to know).  A value that does not fit a
 * width forced by the options is an error.
 */
#include "htf.h"
#include "../../core/hashmap.h"
#include "../../core/loss.h"
#include "../../core/model.h"
#include "../../core/spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hrec {
	uint64_t time;
	uint32_t ent;      /* HTF entity id */
	uint8_t type;      /* HTF type */
	uint8_t ev;        /* spec event id */
	uint16_t pad;
} hrec;

typedef struct wcore {
	tk_core_id cid;    /* given at close (tk_core_ids()) unless named */
	uint32_t ent;      /* core entity, or TK_NONE */
	tk_spill spill;         /* its records (hrec) */
	uint64_t last;          /* the time of its last record */
} wcore;

enum { L_NOTE, L_TYPE, L_EVENT, L_SYNTH, L_TIME, L_CORE, L_TIES, L_COUNT };

typedef struct htf_writer {
	const char *name;
	unsigned opt_tl, opt_el, opt_vl;
	uint32_t *hid;          /* per entity id: HTF id + 1, 0 = none */
	uint32_t cap_hid;
	uint32_t *lastslot;     /* per entity id: core slot + 1 */
	uint32_t cap_last;
	uint32_t *ents;         /* per HTF id: entity id */
	uint8_t *etype;         /* per HTF id: HTF type */
	uint32_t nents, cap_ents, cap_etype, cap_ent_core;
	unsigned used_ev[HTF_NTYPES];
	unsigned used_types;
	wcore *cores;
	uint32_t ncores;
	tk_spill unassigned;    /* events whose core is not known yet */
	uint64_t unassigned_last;
	uint64_t *ent_core;     /* per HTF id: slot of the first core + 1 */
	uint64_t max_time;
	tk_losses lost;
	tk_synth synth;
	/* at close: the ids written, the input's where it is HTF */
	uint64_t *outid;        /* per HTF index */
	uint32_t *order;        /* HTF indexes by ascending outid */
	unsigned tyid[HTF_NTYPES];
	/* reading merges equal times in section order: the order of two
	 * cores' simultaneous events, as pairs (slot a, slot b: a's event
	 * came first), each pair once, for the order of the sections */
	tk_hashmap tie_seen;    /* key a << 32 | b: the pair's index */
	uint32_t *ties;         /* a, b, a, b ... */
	uint64_t *tie_n;        /* per pair (by index): its events */
	size_t nties, cap_ties; /* pairs */
	uint64_t tie_time;      /* the time of the last record of a core */
	uint32_t tie_slot;      /* its slot + 1 (0: none yet) */
	tk_name_pos npos;       /* where a name refused at close is reported */
} htf_writer;

static int parse_options(tk_writer *w, htf_writer *hw, tk_error *err)
{
	const char *p = w->opts.options;

	while (p && *p) {
		size_t n = strcspn(p, ","), kn;
		const char *eq = memchr(p, '=', n);
		unsigned *dst = NULL;
		unsigned long v = 0;
		size_t i;

		kn = eq ? (size_t)(eq - p) : n;
		if (tk_ascii_casecmp(p, kn, "timestamp-length") == 0)
			dst = &hw->opt_tl;
		else if (tk_ascii_casecmp(p, kn, "entity-length") == 0)
			dst = &hw->opt_el;
		else if (tk_ascii_casecmp(p, kn, "event-length") == 0)
			dst = &hw->opt_vl;
		if (!dst)
			return tk_err_set(err, TK_E_USAGE, hw->name, 0, 0,
					  "unknown HTF writer option '%.*s' (timestamp-length, entity-length, event-length)",
					  (int)kn, p);
		for (i = kn + 1; eq && i < n && v < 100; i++) {
			if (p[i] < '0' || p[i] > '9')
				break;
			v = v * 10 + (unsigned long)(p[i] - '0');
		}
		if (!eq || i != n || (v != 1 && v != 2 && v != 4 && v != 8))
			return tk_err_set(err, TK_E_USAGE, hw->name, 0, 0,
					  "HTF writer option '%.*s' needs a length of 1, 2, 4 or 8 bytes",
					  (int)n, p);
		*dst = (unsigned)v;
		p += n;
		if (*p == ',')
			p++;
	}
	return TK_OK;
}

static const char *const loss_what[L_COUNT] = {
	"notes",
	"events of entity types HTF has no table for",
	"events that HTF's event tables do not define",
	"sources or instances other than those HTF reading synthesises",
	"times that decrease in a core's section",
	"core names other than Core_<n>",
	"simultaneous events of cores in an order that no order of sections keeps (reading orders them by section)",
};

static const char *const loss_short[L_COUNT] = {
	"notes dropped",
	"events of entity types without an HTF table dropped",
	"events not in HTF's event tables dropped",
	"events whose source or instances HTF reading synthesises differently",
	"decreasing times in a section raised to the section's previous time",
	"cores renamed Core_<n>",
	"simultaneous events in an order no order of sections keeps, read back in section order",
};

static int htf_writer_open(tk_writer *w, tk_error *err)
{
	htf_writer *hw = calloc(1, sizeof(*hw));
	int rc;

	if (!hw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = hw;
	hw->name = w->sink.path ? w->sink.path : "<stdout>";
	hw->lost.format = "HTF";
	hw->lost.what = loss_what;
	hw->lost.brief = loss_short;
	hw->lost.nkinds = L_COUNT;
	if (tk_synth_init(&hw->synth, &htf_synth_rules, 1) < 0)
		return tk_err_nomem(err, hw->name);
	if ((rc = tk_writer_cycles(w, "HTF", err)) < 0)
		return rc;
	return parse_options(w, hw, err);
}

/* Count a loss; in strict mode it is an error. */
static int lose(tk_writer *w, htf_writer *hw, int kind, const tk_event *ev,
		tk_error *err)
{
	return tk_loss_add(&hw->lost, w, hw->name, kind, ev, err);
}

/*
 * The slot of core entity `ent` (TK_NONE: the section of events that no
 * core claims).  A core named Core_<n> is section n; the others are
 * renamed, the first time an event `ev` is theirs (a loss: in strict mode
 * the error), and get their ids at close, so that a Core_<n> seen later
 * still gets n.
 */
static int core_slot(tk_writer *w, htf_writer *hw, uint32_t ent,
		     const tk_event *ev, uint32_t *slot, tk_error *err)
{
	const tk_trace *t = w->trace;
	uint32_t i;
	wcore *n;
	int rc;

	for (i = 0; i < hw->ncores; i++)
		if (hw->cores[i].ent == ent) {
			*slot = i;
			return TK_OK;
		}
	n = tk_xrealloc_array(hw->cores, hw->ncores + 1, sizeof(*n));
	if (!n)
		return tk_err_nomem(err, hw->name);
	hw->cores = n;
	n += hw->ncores;
	memset(n, 0, sizeof(*n));
	n->ent = ent;
	if (ent != TK_NONE) {
		size_t len;
		const char *s = tk_trace_str(t, tk_trace_entity(t, ent)->name, &len);
		n->cid.named = tk_core_number(s, len, &n->cid.id);
		if (!n->cid.named && (rc = lose(w, hw, L_CORE, ev, err)) < 0)
			return rc;
	}
	if (tk_spill_open(&n->spill, sizeof(hrec)) < 0)
		return tk_err_set(err, TK_E_IO, hw->name, 0, 0,
				  "cannot create a temporary file");
	hw->ncores++;
	if (tk_synth_cores(&hw->synth, hw->ncores + 1) < 0)
		return tk_err_nomem(err, hw->name);
	*slot = hw->ncores - 1;
	return TK_OK;
}

static int check_name(htf_writer *hw, const tk_trace *t, uint32_t ent,
		      tk_error *err)
{
	size_t n;
	const char *s = tk_trace_str(t, tk_trace_entity(t, ent)->name, &n);

	if (!n || memchr(s, '\n', n) || memchr(s, '\r', n) || s[0] == ' ' ||
	    s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
		return tk_err_set(err, TK_E_UNSUPPORTED, hw->name, 0, 0,
				  "entity name '%.40s' is empty, holds a line break or starts or ends with a blank, which an HTF table cannot hold",
				  s);
	return TK_OK;
}

/* Simultaneous events of slot a, then of slot b: a's section goes first.
 * 1 when b's went first before (no section order keeps both). */
static int add_tie(htf_writer *hw, uint32_t a, uint32_t b, tk_error *err)
{
	int created;
	uint32_t *idx;

	if (tk_hashmap_first(&hw->tie_seen, (uint64_t)b << 32 | a) !=
	    TK_HASHMAP_END)
		return 1;
	if (hw->nties == hw->cap_ties) {
		size_t cap = hw->cap_ties ? 2 * hw->cap_ties : 16;
		uint32_t *n = tk_xrealloc_array(hw->ties, cap, 2 * sizeof(*n));
		uint64_t *c;

		if (!n)
			return tk_err_nomem(err, hw->name);
		hw->ties = n;
		if (!(c = tk_xrealloc_array(hw->tie_n, cap, sizeof(*c))))
			return tk_err_nomem(err, hw->name);
		hw->tie_n = c;
		hw->cap_ties = cap;
	}
	if (!(idx = tk_hashmap_slot(&hw->tie_seen, (uint64_t)a << 32 | b, &created)))
		return tk_err_nomem(err, hw->name);
	if (!created) {
		hw->tie_n[*idx]++;
		return TK_OK;
	}
	*idx = (uint32_t)hw->nties;
	hw->tie_n[hw->nties] = 1;
	hw->ties[2 * hw->nties] = a;
	hw->ties[2 * hw->nties + 1] = b;
	hw->nties++;
	return TK_OK;
}

static int fits(uint64_t v, unsigned bytes)
{
	return bytes >= 8 || v < (1ull << (8 * bytes));
}

static int htf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	htf_writer *hw = w->impl;
	const tk_trace *t = w->trace;
	uint32_t slot, h, src, core_ent;
	int64_t sinst, tinst;
	int type, id, rc;
	hrec rec;

	if (!tk_trace_entity(t, ev->target) || !tk_trace_entity(t, ev->source))
		return tk_err_set(err, TK_E_USAGE, hw->name, 0, 0,
				  "event refers to an unknown entity");
	/* where a name written at close is reported (the event may still be
	 * dropped: it names the entity all the same) */
	if (tk_name_pos_event(&hw->npos, ev) < 0)
		return tk_err_nomem(err, hw->name);
	type = htf_type_of_etype(tk_etype_closest(t, ev->type, ev->type_name));
	if (type < 0)
		return lose(w, hw, L_TYPE, ev, err);
	id = htf_event_id(type, ev->kind);
	if (id < 0 && ev->kind == TK_EV_STOP)
		id = htf_event_id(type, TK_EV_TERMINATE); /* ATF's stop */
	if (id < 0)
		return lose(w, hw, L_EVENT, ev, err);
	if (ev->note && (rc = lose(w, hw, L_NOTE, ev, err)) < 0)
		return rc;

	/* the section: the event's core, else where its source or target
	 * last ran, else the first section */
	if (tk_grow_zero32((void **)&hw->lastslot, &hw->cap_last,
			   ev->source > ev->target ? ev->source : ev->target,
			   sizeof(*hw->lastslot)) < 0)
		return tk_err_nomem(err, hw->name);
	core_ent = ev->core;
	if (core_ent == TK_NONE && tk_event_source_is_core(t, ev))
		core_ent = ev->source;
	if (core_ent != TK_NONE && tk_trace_entity(t, core_ent)) {
		if ((rc = core_slot(w, hw, core_ent, ev, &slot, err)) < 0)
			return rc;
	} else if (hw->lastslot[ev->source]) {
		slot = hw->lastslot[ev->source] - 1;
		rc = TK_OK;
	} else if (hw->lastslot[ev->target]) {
		slot = hw->lastslot[ev->target] - 1;
		rc = TK_OK;
	} else {
		/* not known yet: kept apart, and merged at close into the
		 * section where the target is first seen */
		slot = UINT32_MAX;
		rc = TK_OK;
		if (!hw->unassigned.f &&
		    tk_spill_open(&hw->unassigned, sizeof(hrec)) < 0)
			return tk_err_set(err, TK_E_IO, hw->name, 0, 0,
					  "cannot create a temporary file");
	}
	if (slot != UINT32_MAX)
		hw->lastslot[ev->target] = slot + 1;

	/* the entity's HTF id */
	if (tk_grow_zero32((void **)&hw->hid, &hw->cap_hid, ev->target,
			   sizeof(*hw->hid)) < 0)
		return tk_err_nomem(err, hw->name);
	h = hw->hid[ev->target];
	if (!h) {
		if ((rc = check_name(hw, t, ev->target, err)) < 0)
			return rc;
		if (tk_grow_zero32((void **)&hw->ents, &hw->cap_ents, hw->nents,
				   sizeof(*hw->ents)) < 0 ||
		    tk_grow_zero32((void **)&hw->etype, &hw->cap_etype, hw->nents,
				   sizeof(*hw->etype)) < 0 ||
		    tk_grow_zero32((void **)&hw->ent_core, &hw->cap_ent_core,
				   hw->nents, sizeof(*hw->ent_core)) < 0)
			return tk_err_nomem(err, hw->name);
		hw->ents[hw->nents] = ev->target;
		hw->etype[hw->nents] = (uint8_t)type;
		h = hw->hid[ev->target] = ++hw->nents;
	} else if (hw->etype[h - 1] != type) {
		return tk_err_set(err, TK_E_UNSUPPORTED, hw->name, 0, 0,
				  "entity '%.40s' is used as %s and as %s; an HTF entity has one type",
				  tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL),
				  htf_type_name(hw->etype[h - 1]), htf_type_name(type));
	}
	hw->used_types |= 1u << type;
	hw->used_ev[type] |= 1u << id;

	/* what reading it back would give */
	if (slot != UINT32_MAX && !hw->ent_core[h - 1])
		hw->ent_core[h - 1] = (uint64_t)slot + 1;
	if (tk_synth_event(&hw->synth, slot == UINT32_MAX ? 0 : slot + 1,
			    slot == UINT32_MAX ? TK_NONE : hw->cores[slot].ent,
			    TK_NONE, htf_synth_kind(type),
			    ev->kind == TK_EV_STOP ? TK_EV_TERMINATE : ev->kind,
			    ev->target, &src, &sinst, &tinst) < 0)
		return tk_err_nomem(err, hw->name);
	if (src != ev->source || sinst != ev->source_inst ||
	    tinst != ev->target_inst) {
		if ((rc = lose(w, hw, L_SYNTH, ev, err)) < 0)
			return rc;
	}

	/* a time past the TimestampLength an option forces is refused at
	 * its event, which the error names (an input's own length or the
	 * smallest that holds the times is chosen at close, and fits) */
	if (hw->opt_tl && !fits(ev->time, hw->opt_tl))
		return tk_err_set(err, TK_E_RANGE, hw->name, 0, 0,
				  "time %llu does not fit TimestampLength %u",
				  (unsigned long long)ev->time, hw->opt_tl);
	/* a section's times do not decrease (HTF 1.0): a time below the
	 * section's last one is raised to it, and counted */
	rec.time = ev->time;
	{
		uint64_t *last = slot == UINT32_MAX ? &hw->unassigned_last
						    : &hw->cores[slot].last;
		if (rec.time < *last) {
			if ((rc = lose(w, hw, L_TIME, ev, err)) < 0)
				return rc;
			rec.time = *last;
		}
		*last = rec.time;
	}
	if (slot != UINT32_MAX) {
		if (hw->tie_slot && hw->tie_slot - 1 != slot &&
		    hw->tie_time == rec.time &&
		    ((rc = add_tie(hw, hw->tie_slot - 1, slot, err)) < 0 ||
		     (rc == 1 && (rc = lose(w, hw, L_TIES, ev, err)) < 0)))
			return rc;
		hw->tie_slot = slot + 1;
		hw->tie_time = rec.time;
	}
	rec.ent = h - 1;
	rec.type = (uint8_t)type;
	rec.ev = (uint8_t)id;
	rec.pad = 0;
	if (tk_spill_put(slot == UINT32_MAX ? &hw->unassigned
					    : &hw->cores[slot].spill, &rec) < 0)
		return tk_err_set(err, TK_E_IO, hw->name, 0, 0,
				  "cannot write a temporary file");
	if (ev->time > hw->max_time)
		hw->max_time = ev->time;
	return TK_OK;
}

/* ---- close: header, tables, sections ------------------------------------ */

static unsigned smallest(uint64_t v)
{
	return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffull ? 4 : 8;
}

static int out(tk_writer *w, tk_error *err, const char *fmt, ...)
	TK_PRINTF(3, 4);

static int out(tk_writer *w, tk_error *err, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return tk_err_set(err, TK_E_IO, w->sink.path, 0, 0, "format error");
	if ((size_t)n >= sizeof(buf)) {
		/* long values (entity names): write them in two steps */
		char *big = malloc((size_t)n + 1);
		int rc;
		if (!big)
			return tk_err_nomem(err, w->sink.path);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		rc = tk_sink_write(&w->sink, big, (size_t)n, err);
		free(big);
		return rc;
	}
	return tk_sink_write(&w->sink, buf, (size_t)n, err);
}

static int structural(const char *key)
{
	static const char *const keys[] = {
		"Format", "NumberOfCores", "TimeScale", "TimeScaleNumerator",
		"TimeScaleDenominator", "TimestampLength", "EntityLength",
		"EventLength",
	};
	size_t i;

	if (!strncmp(key, "EntityTable.", 12) || !strncmp(key, "TypeTable.", 10))
		return 1; /* the input's ids (htf_reader.c): kept as ids */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (tk_ascii_casecmp(key, strlen(key), keys[i]) == 0)
			return 1;
	return 0;
}

/* "1f" -> 0x1f; -1 if not hex (or too long) */
static int parse_hex(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; *p; p++, n++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0 || n >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return -1;
	*out = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * The ids to write: an HTF input's own entity and type ids (kept by its
 * reader as header entries EntityTable.<id> / TypeTable.<id>), so that an
 * HTF round trip gives back the same records; otherwise (and for entities
 * the input did not list) the next free ids in order of appearance.
 */
static int assign_ids(tk_writer *w, htf_writer *hw, uint64_t *max_id,
		      tk_error *err)
{
	const tk_trace *t = w->trace;
	int from_htf = strcmp(tk_trace_format(t), "htf") == 0;
	size_t i, nh = tk_trace_header_count(t);
	uint64_t next = 0, *key = NULL;
	uint32_t k;
	int rc = TK_OK;

	for (k = 0; k < HTF_NTYPES; k++)
		hw->tyid[k] = k;
	hw->outid = calloc(hw->nents ? hw->nents : 1, sizeof(*hw->outid));
	hw->order = calloc(hw->nents ? hw->nents : 1, sizeof(*hw->order));
	key = calloc(hw->nents ? 2 * (size_t)hw->nents : 1, sizeof(*key));
	if (!hw->outid || !hw->order || !key) {
		rc = tk_err_nomem(err, hw->name);
		goto out;
	}
	for (k = 0; k < hw->nents; k++)
		hw->outid[k] = UINT64_MAX;
	for (i = 0; from_htf && i < nh; i++) {
		const tk_header_entry *e = tk_trace_header(t, i);
		uint64_t id;
		uint32_t ent, h;
		if (e->kind != TK_HDR_PARAM)
			continue;
		if (!strncmp(e->key, "TypeTable.", 10)) {
			int ty = htf_type_lookup(e->value, strlen(e->value));
			if (ty >= 0 && !parse_hex(e->key + 10, &id) && id <= 0xff)
				hw->tyid[ty] = (unsigned)id;
			continue;
		}
		if (strncmp(e->key, "EntityTable.", 12) ||
		    parse_hex(e->key + 12, &id) < 0)
			continue;
		ent = tk_trace_entity_find(t, e->value, strlen(e->value));
		if (ent == TK_NONE || ent >= hw->cap_hid || !(h = hw->hid[ent]))
			continue;
		hw->outid[h - 1] = id;
		if (id >= next)
			next = id + 1;
	}
	/* every type is listed: one unused whose id a used one has (an HTF
	 * input's reordered table) takes the lowest free id */
	for (k = 0; k < HTF_NTYPES; k++) {
		uint32_t j, id = 0;
		int clash = 0;
		if (hw->used_types >> k & 1)
			continue;
		for (j = 0; j < HTF_NTYPES; j++)
			clash |= j != k && hw->tyid[j] == hw->tyid[k] &&
				 ((hw->used_types >> j & 1) || j < k);
		while (clash) {
			clash = 0;
			for (j = 0; j < HTF_NTYPES; j++)
				clash |= j != k && hw->tyid[j] == id &&
					 ((hw->used_types >> j & 1) || j < k);
			if (clash)
				id++;
			else
				hw->tyid[k] = id;
		}
	}
	for (k = 0; k < hw->nents; k++) {
		if (hw->outid[k] == UINT64_MAX)
			hw->outid[k] = next++;
		key[2 * k] = hw->outid[k];
		key[2 * k + 1] = k;
	}
	/* by id: pairs (id, index) sorted on the id */
	qsort(key, hw->nents, 2 * sizeof(*key), cmp_u64);
	for (k = 0; k < hw->nents; k++)
		hw->order[k] = (uint32_t)key[2 * k + 1];
	*max_id = next ? next - 1 : 0;
out:
	free(key);
	return rc;
}

/* the width of header parameter `name` of an HTF input, if it holds v */
static unsigned input_width(const tk_trace *t, const char *name, uint64_t v)
{
	const char *s;
	unsigned long n;

	if (strcmp(tk_trace_format(t), "htf") != 0 ||
	    !(s = tk_trace_header_get(t, name)))
		return 0;
	n = strtoul(s, NULL, 10);
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return 0;
	return fits(v, (unsigned)n) ? (unsigned)n : 0;
}

static int write_head(tk_writer *w, htf_writer *hw, unsigned tl, unsigned el,
		      unsigned vl, tk_error *err)
{
	const tk_trace *t = w->trace;
	const tk_timebase *tb = tk_trace_timebase(t);
	int from_htf = strcmp(tk_trace_format(t), "htf") == 0, rc;
	size_t i, nh = tk_trace_header_count(t);
	int ty;

	if ((rc = out(w, err, "#Format HTF\n")) < 0)
		return rc;
	if (!from_htf || !tk_trace_header_get(t, "Version"))
		if ((rc = out(w, err, "#Version 1.0\n")) < 0)
			return rc;
	for (i = 0; from_htf && i < nh; i++) {
		const tk_header_entry *e = tk_trace_header(t, i);
		if (e->kind != TK_HDR_PARAM || structural(e->key))
			continue;
		if ((rc = out(w, err, "#%s%s%s\n", e->key,
			      e->has_value ? " " : "", e->value)) < 0)
			return rc;
	}
	if ((rc = out(w, err,
		      "#NumberOfCores %u\n#TimeScale %s\n#TimeScaleNumerator %llu\n"
		      "#TimeScaleDenominator %llu\n#TimestampLength %u\n"
		      "#EntityLength %u\n#EventLength %u\n\n#TypeTable\n",
		      hw->ncores, tk_unit_name(tb->unit),
		      (unsigned long long)tb->num, (unsigned long long)tb->den,
		      tl, el, vl)) < 0)
		return rc;
	/* every type and every event table, each event with the spec's id:
	 * APP4MC's reader splits the file at each table's keyword in the
	 * spec's order and fails at a missing one */
	for (ty = 0; ty < HTF_NTYPES; ty++)
		if ((rc = out(w, err, "#-%02X %s\n", hw->tyid[ty],
			      htf_type_name(ty))) < 0)
			return rc;
	for (ty = 0; ty < HTF_NTYPES; ty++) {
		size_t n, e;
		const htf_event_name *names = htf_events(ty, &n);
		if ((rc = out(w, err, "\n#%sEventTable\n", htf_type_name(ty))) < 0)
			return rc;
		for (e = 0; e < n; e++)
			if ((rc = out(w, err, "#-%0*X %s\n", (int)(2 * vl),
				      (unsigned)e, names[e].htf)) < 0)
				return rc;
	}
	if ((rc = out(w, err, "\n#EntityTable\n")) < 0)
		return rc;
	for (i = 0; i < hw->nents; i++) {
		size_t n;
		uint32_t k = hw->order[i];
		const char *s = tk_trace_str(t, tk_trace_entity(t, hw->ents[k])->name, &n);
		/* the UTF-8 rule of every writer; a name refused (--strict)
		 * is reported at the first event that carries it, as the
		 * writers that write names with the events do (an error
		 * out of memory is not the input's) */
		if ((rc = tk_writer_text(w, s, n, &s, &n, err)) < 0)
			return rc != TK_E_UNSUPPORTED ? rc
			       : tk_writer_locate_pos(w, tk_name_pos_get(&hw->npos, hw->ents[k]),
						      rc, err);
		if ((rc = out(w, err, "#-%0*llX %.*s\n", (int)(2 * el),
			      (unsigned long long)hw->outid[k], (int)n, s)) < 0)
			return rc;
	}
	if ((rc = out(w, err, "\n#EntityTypeTable\n")) < 0)
		return rc;
	for (i = 0; i < hw->nents; i++) {
		uint32_t k = hw->order[i];
		if ((rc = out(w, err, "#-%0*llX %02X\n", (int)(2 * el),
			      (unsigned long long)hw->outid[k],
			      hw->tyid[hw->etype[k]])) < 0)
			return rc;
	}
	/* the spec's example spells it so, and APP4MC's reader looks for it
	 * in this case only */
	return out(w, err, "\n#Tracedata\n");
}

static const char hexd[] = "0123456789ABCDEF";

static inline char *put_hex(char *o, uint64_t v, unsigned digits)
{
	unsigned i;

	for (i = digits; i-- > 0;) {
		o[i] = hexd[v & 15];
		v >>= 4;
	}
	return o + digits;
}

/* (rank, slot) pairs by rank, then slot */
static int by_rank(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ties a -> b by a */
static int by_first(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* heap of ranks (the smallest on top) */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
	uint32_t i = (*n)++;

	while (i && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n)
{
	uint32_t top = h[0], v = h[--*n], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

/*
 * ord[0 .. ncores): the slots in the order their sections are written.
 * Reading merges equal times in section order, so a section goes before
 * every one whose core had an event at the same time after one of its
 * own (the ties); else the cores come in the order they were first seen,
 * and from an HTF input in its own order (its reader made the core
 * entities as it found the sections), which its ties keep.  Ties in a
 * circle (a, b at one time, b, a at another) cannot all be kept: the
 * first core of the circle goes first.
 */
static int section_order(const tk_writer *w, htf_writer *hw, uint32_t *ord,
			 tk_error *err)
{
	uint32_t n = hw->ncores, i, k, nh = 0, *rank, *slot_of, *indeg, *start,
		 *heap, *done;
	int htf = strcmp(tk_trace_format(w->trace), "htf") == 0;
	size_t t;

	rank = tk_xrealloc_array(NULL, n ? 2 * (size_t)n : 1, sizeof(*rank));
	indeg = calloc(n + 1, sizeof(*indeg));
	start = calloc(n + 1, sizeof(*start));
	heap = tk_xrealloc_array(NULL, n ? n : 1, sizeof(*heap));
	done = calloc(n + 1, sizeof(*done));
	if (!rank || !indeg || !start || !heap || !done) {
		free(rank);
		free(indeg);
		free(start);
		free(heap);
		free(done);
		return tk_err_nomem(err, hw->name);
	}
	for (i = 0; i < n; i++) {
		rank[2 * i] = htf ? hw->cores[i].ent : i;
		rank[2 * i + 1] = i;
	}
	if (n)
		qsort(rank, n, 2 * sizeof(*rank), by_rank);
	/* rank[k]: the slot of rank k; slot_of[slot]: its rank (reusing
	 * the second half, read after the first is compacted) */
	for (k = 0; k < n; k++)
		rank[k] = rank[2 * k + 1];
	slot_of = rank + n;
	for (k = 0; k < n; k++)
		slot_of[rank[k]] = k;
	if (hw->nties)
		qsort(hw->ties, hw->nties, 2 * sizeof(*hw->ties), by_first);
	for (t = 0; t < hw->nties; t++) {
		start[hw->ties[2 * t] + 1]++;
		indeg[hw->ties[2 * t + 1]]++;
	}
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++)
		if (!indeg[i])
			heap_push(heap, &nh, slot_of[i]);
	for (k = 0; k < n; k++) {
		uint32_t s;
		if (!nh) {
			/* a circle: its first core in the base order */
			uint32_t r;
			for (r = 0; done[rank[r]]; r++)
				;
			heap_push(heap, &nh, r);
		}
		s = rank[heap_pop(heap, &nh)];
		done[s] = 1;
		ord[k] = s;
		for (t = start[s]; t < start[s + 1]; t++) {
			uint32_t b = hw->ties[2 * t + 1];
			if (indeg[b] && !--indeg[b] && !done[b])
				heap_push(heap, &nh, slot_of[b]);
		}
	}
	free(rank);
	free(indeg);
	free(start);
	free(heap);
	free(done);
	return TK_OK;
}

/*
 * The simultaneous events that read back in another order: those of the
 * ties the section order ord goes against (a circle of three cores or
 * more; a circle of two was counted as it came), a loss each.
 */
static int ties_broken(tk_writer *w, htf_writer *hw, const uint32_t *ord,
		       tk_error *err)
{
	uint32_t *pos, k;
	uint64_t n = 0;
	size_t t;
	int rc = TK_OK;

	if (!hw->nties)
		return TK_OK;
	if (!(pos = tk_xrealloc_array(NULL, hw->ncores, sizeof(*pos))))
		return tk_err_nomem(err, hw->name);
	for (k = 0; k < hw->ncores; k++)
		pos[ord[k]] = k;
	for (t = 0; t < hw->nties; t++) {
		uint32_t a = hw->ties[2 * t], b = hw->ties[2 * t + 1];

		if (pos[a] > pos[b])
			n += hw->tie_n[tk_hashmap_get(&hw->tie_seen,
						      (uint64_t)a << 32 | b)];
	}
	free(pos);
	if (n && (rc = lose(w, hw, L_TIES, NULL, err)) == TK_OK)
		hw->lost.n[L_TIES] += n - 1;
	return rc;
}

static int write_sections(tk_writer *w, htf_writer *hw, unsigned tl,
			  unsigned el, unsigned vl, tk_error *err)
{
	unsigned width = 2 * (tl + el + vl) + 1;
	uint32_t i, k, *ord;
	int rc;

	ord = tk_xrealloc_array(NULL, hw->ncores ? hw->ncores : 1, sizeof(*ord));
	if (!ord)
		return tk_err_nomem(err, hw->name);
	if ((rc = section_order(w, hw, ord, err)) < 0 ||
	    (rc = ties_broken(w, hw, ord, err)) < 0)
		goto out;
	for (k = 0; k < hw->ncores; k++) {
		wcore *c;
		i = ord[k];
		c = &hw->cores[i];
		tk_spill_cursor a, u;
		const hrec *x, *y;

		if ((rc = out(w, err, "#-%02llX\n", (unsigned long long)c->cid.id)) < 0)
			goto out;
		if (tk_spill_rewind(&a, &c->spill) < 0 ||
		    tk_spill_rewind(&u, &hw->unassigned) < 0) {
			rc = tk_err_set(err, TK_E_IO, hw->name, 0, 0,
					"cannot read a temporary file back");
			goto out;
		}
		for (;;) {
			char *o;
			x = tk_spill_peek(&a);
			/* the unassigned records of this core: those whose
			 * entity was first seen here (or anywhere, for the
			 * first section written) */
			while ((y = tk_spill_peek(&u)) != NULL &&
			       !(hw->ent_core[y->ent] == (uint64_t)i + 1 ||
				 (k == 0 && !hw->ent_core[y->ent])))
				tk_spill_skip(&u);
			if (!x && !y)
				break;
			if (!x || (y && y->time <= x->time)) {
				x = y;
				tk_spill_skip(&u);
			} else {
				tk_spill_skip(&a);
			}
			o = tk_sink_reserve(&w->sink, width, err);
			if (!o) {
				rc = TK_E_IO;
				goto out;
			}
			o = put_hex(o, x->time, 2 * tl);
			o = put_hex(o, hw->outid[x->ent], 2 * el);
			o = put_hex(o, x->ev, 2 * vl);
			*o = '\n';
			w->sink.len += width;
		}
		if (a.failed || u.failed) {
			rc = tk_err_set(err, TK_E_IO, hw->name, 0, 0,
					"cannot read a temporary file back");
			goto out;
		}
	}
out:
	free(ord);
	return rc;
}

static int htf_writer_close(tk_writer *w, tk_error *err)
{
	htf_writer *hw = w->impl;
	uint64_t max_ent = hw->nents ? hw->nents - 1 : 0;
	unsigned tl, el, vl = hw->opt_vl ? hw->opt_vl : 1, k;
	int rc;

	if (hw->unassigned.n && !hw->ncores) {
		uint32_t slot;
		if ((rc = core_slot(w, hw, TK_NONE, NULL, &slot, err)) < 0)
			return rc;
	}
	tk_core_ids(hw->cores, hw->ncores, sizeof(*hw->cores));
	if ((rc = assign_ids(w, hw, &max_ent, err)) < 0)
		return rc;
	/* widths: the options, else an HTF input's own, else the smallest */
	tl = hw->opt_tl ? hw->opt_tl
	     : (k = input_width(w->trace, "TimestampLength", hw->max_time))
		     ? k : smallest(hw->max_time);
	el = hw->opt_el ? hw->opt_el
	     : (k = input_width(w->trace, "EntityLength", max_ent))
		     ? k : smallest(max_ent);
	if (!hw->opt_vl && (k = input_width(w->trace, "EventLength", 0xf)))
		vl = k;
	if (!fits(hw->max_time, tl))
		return tk_err_set(err, TK_E_RANGE, hw->name, 0, 0,
				  "time %llu does not fit TimestampLength %u",
				  (unsigned long long)hw->max_time, tl);
	if (!fits(max_ent, el))
		return tk_err_set(err, TK_E_RANGE, hw->name, 0, 0,
				  "%llu entities do not fit EntityLength %u",
				  (unsigned long long)max_ent + 1, el);
	if ((rc = write_head(w, hw, tl, el, vl, err)) < 0)
		return rc;
	if ((rc = write_sections(w, hw, tl, el, vl, err)) < 0)
		return rc;
	/* one warning that counts everything dropped */
	tk_loss_report(&hw->lost, w, hw->name);
	return TK_OK;
}

static void htf_writer_free(tk_writer *w)
{
	htf_writer *hw = w->impl;
	uint32_t i;

	if (!hw)
		return;
	for (i = 0; i < hw->ncores; i++)
		tk_spill_close(&hw->cores[i].spill);
	tk_spill_close(&hw->unassigned);
	free(hw->cores);
	free(hw->ent_core);
	free(hw->hid);
	free(hw->lastslot);
	free(hw->npos.pos1);
	free(hw->ents);
	free(hw->etype);
	free(hw->outid);
	free(hw->order);
	free(hw->ties);
	free(hw->tie_n);
	tk_hashmap_free(&hw->tie_seen);
	tk_synth_free(&hw->synth);
	free(hw);
	w->impl = NULL;
}

const tk_format_ops tk_format_htf = {
	.info = {
		.name = "htf",
		.extensions = "htf",
		.description = "AMALTHEA Hardware Trace Format 1.0 (hex records, one section per core)",
		.caps = TK_CAP_READ | TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.probe = htf_probe,
	.reader_open = htf_reader_open,
	.reader_next_batch = htf_reader_next_batch,
	.reader_skip = htf_reader_skip,
	.reader_close = htf_reader_close,
	.writer_open = htf_writer_open,
	.writer_options = 1,
	.writer_write = htf_writer_write,
	.writer_close = htf_writer_close,
	.writer_free = htf_writer_free,
};
