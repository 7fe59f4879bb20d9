/*
 * atf_writer.c - ATF output from any trace.
 *
 * ATF puts the SystemConfiguration (elements, event mappings) before the
 * trace data, and the element table is complete only after the last event:
 * each event is appended as a small binary record to a temporary file
 * (memory stays flat), and tk_writer_close() writes the configuration and
 * then the TraceData from that file.
 *
 * Elements: every entity of an ATF SystemElement type (T, I, R, IB and the
 * types kept by name: process, function, message, unknown).  Its Resource
 * (core) comes from its parent in the entity table (an ATF input), else
 * from the first of its events that shows a core (the event's core, or a
 * source that is a core; an activation by a stimulus shows none), else the
 * trace's only core or a default one; runnables and blocks with no parent
 * are nested in the element that is the source of their first event.  A
 * task's run on another core while another task holds its Resource goes
 * to an alias: an element of the same name in that core's Resource.
 * Every core is a Resource.  An ATF input's
 * header gives back ids, schedulers, comments, annotations, ToolInfo,
 * TracingOverhead, TraceInformation and Cookies, and its TraceData: each
 * event in the one it came from (td_of()), each with its Start and Stop
 * widened where they do not hold its entries (td_spans(), atf_window.c:
 * lenient reading takes such windows, strict reading refuses them).  For
 * another input a time that decreases starts a new TraceData (the reader
 * concatenates them).
 *
 * What ATF cannot hold is counted and reported in one warning at close
 * (lenient) or refused at the first occurrence (strict), as for HTF.
 */
#include "atf.h"
#include "../../core/loss.h"
#include "../../core/model.h"
#include "../../core/spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wrec {
	uint64_t time;
	uint32_t ent;      /* target entity */
	uint32_t name;     /* event name (tk_str): a user event's is kept */
	uint32_t src;      /* the input's source and instances (replay()) */
	uint32_t evtype;   /* ATF event type */
	uint32_t se;       /* the element written (wse index + 1), 0: ent's */
	int64_t sinst, tinst;
	uint64_t pos;      /* the input position */
	uint32_t td;       /* an ATF input's TraceData (from 1), 0: unknown */
} wrec;

typedef struct wcore {
	tk_core_id cid;    /* given at close (tk_core_ids()) unless named */
	uint32_t ent;      /* core entity or TK_NONE */
} wcore;

typedef struct wse {
	uint32_t ent;
	int atype;
	uint32_t slot;     /* core slot + 1 */
	uint32_t parent;   /* wse index + 1 of the enclosing element, 0: top */
	uint64_t id;
	int placed;
	int off;           /* collides(): its run elsewhere is dropped */
	uint32_t mig;      /* collides(): its run elsewhere is on this
			      element (wse index + 1), an alias */
	uint32_t alias;    /* the next alias of the same entity (index + 1):
			      an element of the same name in another
			      Resource, which ATF reading gives that core */
} wse;

enum { L_NOTE, L_TYPE, L_EVENT, L_SYNTH, L_CORE, L_STATE, L_MIGRATE,
       L_WINDOW, L_COUNT };

static const char *const loss_what[L_COUNT] = {
	"notes",
	"events of entity types ATF has no SystemElement type for",
	"events that ATF has no EventType for",
	"sources or instances other than those ATF reading synthesises",
	"core names other than Core_<n>",
	"process states ATF has no form for (WAITING, POLLING, PARKING)",
	"a process running on a core other than its Resource while another holds it (a migration)",
	"a TraceData whose Start and Stop do not hold its entries",
};

static const char *const loss_short[L_COUNT] = {
	"notes dropped",
	"events of entity types without an ATF SystemElement type dropped",
	"events without an ATF EventType dropped",
	"events whose source or instances ATF reading synthesises differently",
	"cores renamed Core_<n>",
	"state changes of WAITING, POLLING, PARKING written as ATF's (wait, park: preempt; poll_parking: resume) or dropped (release, poll, run, release_parking)",
	"events of processes running elsewhere while another holds their Resource dropped",
	"TraceData windows (Start, Stop) widened to hold the entries",
};

typedef struct atf_writer {
	const char *name;
	int from_atf;
	uint32_t *se_of;        /* per entity: wse index + 1 */
	uint32_t cap_se_of;
	wse *ses;
	uint32_t nses, capses;
	wcore *cores;
	uint32_t ncores;
	uint32_t last_slot;
	tk_spill spill;    /* the events (wrec), read back at close */
	unsigned used_ev;       /* bit per ATF event type */
	tk_losses lost;
	int renamed;            /* a core was renamed Core_<n> */
	tk_synth synth;
	tk_str user_str;
	uint32_t *run;          /* per core slot: the element running (idx + 1) */
	uint32_t caprun;
	/* an ATF input's TraceData of each event (td_of()) */
	uint32_t td;            /* the last event's */
	tk_tlines tlines;
	tk_name_pos npos;       /* where a name refused at close is reported */
} atf_writer;

/* ---- helpers ------------------------------------------------------------ */

static int lose(tk_writer *w, atf_writer *aw, int kind, const tk_event *ev,
		tk_error *err)
{
	return tk_loss_add(&aw->lost, w, aw->name, kind, ev, err);
}

/* A write at close of a name failed with rc: a name refused (not UTF-8
 * under strict, or not text XML can hold) is reported at the first event
 * that carries it, pos1 (tk_writer_locate_pos()); the output's own errors
 * are not the input's. */
static int name_failed(tk_writer *w, uint64_t pos1, int rc, tk_error *err)
{
	return rc == TK_E_UNSUPPORTED ? tk_writer_locate_pos(w, pos1, rc, err)
				      : rc;
}

static int atype_of(const tk_trace *t, const tk_entity *e)
{
	size_t n = 0;
	const char *s = e->type_name != TK_NONE
				? tk_trace_str(t, e->type_name, &n) : NULL;

	/* Vector's thread and syscall: the closest ATF types */
	if (e->type == TK_ET_THR)
		return atf_type_of_entity(TK_ET_T, NULL, 0);
	if (e->type == TK_ET_SYSC)
		return atf_type_of_entity(TK_ET_R, NULL, 0);
	return atf_type_of_entity(e->type, s, n);
}

/* The core slot (index + 1) of core entity `ent` (TK_NONE: a default).
 * A core named Core_<n> gets id n; the others are renamed (a loss: strict
 * refuses it at the next write or at close) and get theirs at close
 * (tk_core_ids()), so that a Core_<n> seen later still gets n. */
static int core_slot(tk_writer *w, atf_writer *aw, uint32_t ent,
		     uint32_t *slot)
{
	const tk_trace *t = w->trace;
	uint32_t i;
	wcore *n;

	for (i = 0; i < aw->ncores; i++)
		if (aw->cores[i].ent == ent) {
			*slot = i + 1;
			return TK_OK;
		}
	n = tk_xrealloc_array(aw->cores, aw->ncores + 1, sizeof(*n));
	if (!n)
		return TK_E_NOMEM;
	aw->cores = n;
	n += aw->ncores++;
	memset(n, 0, sizeof(*n));
	n->ent = ent;
	if (ent != TK_NONE) {
		size_t len;
		const char *s = tk_trace_str(t, tk_trace_entity(t, ent)->name, &len);
		n->cid.named = tk_core_number(s, len, &n->cid.id);
		if (!n->cid.named) {
			aw->renamed = 1;
			(void)lose(w, aw, L_CORE, NULL, NULL);
		}
	}
	if (tk_synth_cores(&aw->synth, aw->ncores + 1) < 0)
		return TK_E_NOMEM;
	*slot = aw->ncores;
	return TK_OK;
}

static int new_se(atf_writer *aw, uint32_t ent, int atype, uint32_t *idx)
{
	wse *n;

	if (tk_grow_zero32((void **)&aw->se_of, &aw->cap_se_of, ent,
			   sizeof(*aw->se_of)) < 0 ||
	    tk_grow_zero32((void **)&aw->ses, &aw->capses, aw->nses,
			   sizeof(*aw->ses)) < 0)
		return TK_E_NOMEM;
	n = &aw->ses[aw->nses];
	memset(n, 0, sizeof(*n));
	n->ent = ent;
	n->atype = atype;
	*idx = aw->nses++;
	aw->se_of[ent] = *idx + 1;
	return TK_OK;
}

/*
 * The alias of element idx (a task) in core slot `slot`: a top-level
 * element of the same name in that Resource (made on first use), which
 * ATF reading gives back as the same entity on that core; its index in
 * *out.
 */
static int alias_se(atf_writer *aw, uint32_t idx, uint32_t slot, uint32_t *out)
{
	uint32_t a, ent = aw->ses[idx].ent, keep = aw->se_of[ent];
	int rc;

	for (a = aw->ses[idx].alias; a; a = aw->ses[a - 1].alias)
		if (aw->ses[a - 1].slot == slot) {
			*out = a - 1;
			return TK_OK;
		}
	if ((rc = new_se(aw, ent, aw->ses[idx].atype, out)) < 0)
		return rc;
	aw->se_of[ent] = keep;
	aw->ses[*out].slot = slot;
	aw->ses[*out].placed = 1;
	aw->ses[*out].alias = aw->ses[idx].alias;
	aw->ses[idx].alias = *out + 1;
	return TK_OK;
}

/* Place element `ent` (an ATF type): by its parent in the entity table,
 * else by the first event `ev` (may be NULL) that shows where it runs (its
 * core, a core as source, or, not a process, its source element); until
 * then unplaced (slot 0), and at close on the only or a default core. */
static int place(tk_writer *w, atf_writer *aw, uint32_t ent,
		 const tk_event *ev, unsigned depth, uint32_t *out)
{
	const tk_trace *t = w->trace;
	const tk_entity *e = tk_trace_entity(t, ent);
	uint32_t idx, pidx, slot = 0;
	int atype = atype_of(t, e), rc;

	if (ent < aw->cap_se_of && aw->se_of[ent]) {
		idx = *out = aw->se_of[ent] - 1;
		if (aw->ses[idx].placed || !ev)
			return TK_OK;
		goto by_event;
	}
	if ((rc = new_se(aw, ent, atype, &idx)) < 0)
		return rc;
	if (e->parent != TK_NONE && depth < 64 && e->parent != ent) {
		const tk_entity *pe = tk_trace_entity(t, e->parent);
		if (pe && tk_entity_is_core(t, e->parent)) {
			if ((rc = core_slot(w, aw, e->parent, &slot)) < 0)
				return rc;
			aw->ses[idx].slot = slot;
			goto done;
		}
		if (pe && atype_of(t, pe) >= 0) {
			if ((rc = place(w, aw, e->parent, NULL, depth + 1, &pidx)) < 0)
				return rc;
			aw->ses[idx].parent = pidx + 1;
			aw->ses[idx].slot = aw->ses[pidx].slot;
			goto done;
		}
	}
by_event:
	if (ev) {
		if (ev->core != TK_NONE && tk_trace_entity(t, ev->core)) {
			rc = core_slot(w, aw, ev->core, &slot);
		} else if (ev->source != ent && tk_entity_is_core(t, ev->source)) {
			rc = core_slot(w, aw, ev->source, &slot);
		} else if (ev->source != ent && atype_of(t, tk_trace_entity(t, ev->source)) >= 0 &&
			   tk_synth_kind(e->type) != TK_SK_PROCESS && depth < 64) {
			rc = place(w, aw, ev->source, NULL, depth + 1, &pidx);
			if (rc == TK_OK) {
				aw->ses[idx].parent = pidx + 1;
				slot = aw->ses[pidx].slot;
			}
		} else {
			*out = idx;
			return TK_OK;
		}
	} else {
		*out = idx;
		return TK_OK;
	}
	if (rc < 0)
		return rc;
	aw->ses[idx].slot = slot;
done:
	aw->ses[idx].placed = 1;
	*out = idx;
	return TK_OK;
}

/* The core slot of element idx: its own, or its outermost parent's. */
static uint32_t slot_of(const atf_writer *aw, uint32_t idx)
{
	unsigned depth = 0;

	while (aw->ses[idx].parent && depth++ < 64)
		idx = aw->ses[idx].parent - 1;
	return aw->ses[idx].slot;
}

/* ---- open / write ------------------------------------------------------- */

static int atf_writer_open(tk_writer *w, tk_error *err)
{
	atf_writer *aw = calloc(1, sizeof(*aw));
	const tk_trace *t = w->trace;
	uint32_t i, slot;
	int rc;

	if (!aw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = aw;
	aw->name = w->sink.path ? w->sink.path : "<stdout>";
	aw->lost.format = "ATF";
	aw->lost.what = loss_what;
	aw->lost.brief = loss_short;
	aw->lost.nkinds = L_COUNT;
	aw->from_atf = strcmp(tk_trace_format(t), "atf") == 0;
	tk_tlines_init(&aw->tlines, t);
	if (tk_synth_init(&aw->synth, &atf_synth_rules, 1) < 0)
		return tk_err_nomem(err, aw->name);
	if ((rc = tk_writer_cycles(w, "ATF", err)) < 0)
		return rc;
	if (tk_spill_open(&aw->spill, sizeof(wrec)) < 0)
		return tk_err_set(err, TK_E_IO, aw->name, 0, 0,
				  "cannot create a temporary file");
	/* the cores known now are the first Resources (an ATF input's, in
	 * their order) */
	for (i = 0; i < tk_trace_entity_count(t); i++)
		if (tk_trace_entity(t, i)->type == TK_ET_C &&
		    core_slot(w, aw, i, &slot) < 0)
			return tk_err_nomem(err, aw->name);
	return TK_OK;
}

/*
 * A process's state that ATF has no form for (WAITING, POLLING, PARKING)
 * as ATF's states: waiting and parking are READY (off the core), polling
 * is RUNNING (busy on it), so a wait or a park is a preempt, a
 * poll_parking a resume, and release, poll, run and release_parking
 * change nothing (-1: dropped).  Every event of the pair goes, so the
 * resume that follows a release finds the process READY.  `kind` if the
 * event is not one of them.
 */
static int process_kind(tk_evkind kind)
{
	switch (kind) {
	case TK_EV_WAIT: case TK_EV_PARK: return TK_EV_PREEMPT;
	case TK_EV_POLL_PARKING: return TK_EV_RESUME;
	case TK_EV_RELEASE: case TK_EV_POLL: case TK_EV_RUN:
	case TK_EV_RELEASE_PARKING: return -1;
	default: return (int)kind;
	}
}

/*
 * 1 when a process's allocation collides on its Resource as ATF has it:
 * ATF binds an element to one Resource, so a process that runs on another
 * core (a migration, or one of several instances on several cores) is on
 * its Resource for ATF.  Its start or resume while another process holds
 * that Resource goes, with everything it does there until it leaves
 * (preempt, terminate), to an alias in the Resource of the core it runs
 * on (`core_slot`, 0: none), *se (wse index + 1); when there is none, or
 * that Resource is held too, it is dropped, so that the ATF trace stays a
 * valid schedule; 0 otherwise, TK_E_NOMEM.  Tasks only: an ISR nests over
 * what runs.
 */
static int collides(atf_writer *aw, uint32_t idx, tk_evkind kind,
		    uint32_t core_slot, uint32_t *se)
{
	wse *e = &aw->ses[idx];
	uint32_t h = slot_of(aw, idx), a;
	int in = kind == TK_EV_START || kind == TK_EV_RESUME;
	int out = kind == TK_EV_PREEMPT || kind == TK_EV_TERMINATE;

	if (!h || (!in && !out))
		return 0;
	if (e->off) {
		e->off = !out;
		return 1;
	}
	if (e->mig) {
		*se = e->mig;
		if (out) {
			if (aw->run[aw->ses[e->mig - 1].slot - 1] == e->mig)
				aw->run[aw->ses[e->mig - 1].slot - 1] = 0;
			e->mig = 0;
		}
		return 0;
	}
	if (tk_grow_zero32((void **)&aw->run, &aw->caprun, h - 1,
			   sizeof(*aw->run)) < 0 ||
	    (core_slot && tk_grow_zero32((void **)&aw->run, &aw->caprun,
					 core_slot - 1, sizeof(*aw->run)) < 0))
		return TK_E_NOMEM;
	if (in) {
		if (aw->run[h - 1] && aw->run[h - 1] != idx + 1) {
			if (!core_slot || core_slot == h)
				goto off;
			if (alias_se(aw, idx, core_slot, &a) < 0)
				return TK_E_NOMEM;
			e = &aw->ses[idx];
			if (aw->run[core_slot - 1] && aw->run[core_slot - 1] != a + 1)
				goto off;
			aw->run[core_slot - 1] = a + 1;
			e->mig = a + 1;
			*se = a + 1;
			return 0;
		}
		aw->run[h - 1] = idx + 1;
	} else if (aw->run[h - 1] == idx + 1) {
		aw->run[h - 1] = 0;
	}
	return 0;
off:
	e->off = 1;
	return 1;
}

/*
 * The TraceData of an ATF input that event ev is from (from 1; 0 when the
 * input does not say): the time lines of the trace (tk_tlines).
 */
static uint32_t td_of(atf_writer *aw, const tk_event *ev)
{
	uint32_t before = aw->td, i;

	if (!aw->from_atf)
		return 0;
	aw->td = tk_tlines_of(&aw->tlines, ev);
	/* a TraceData of its own: nothing runs on from the one before */
	if (before && aw->td != before) {
		if (aw->caprun)
			memset(aw->run, 0, aw->caprun * sizeof(*aw->run));
		for (i = 0; i < aw->nses; i++)
			aw->ses[i].off = aw->ses[i].mig = 0;
	}
	return aw->td;
}

static int atf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	atf_writer *aw = w->impl;
	const tk_trace *t = w->trace;
	const tk_entity *te = tk_trace_entity(t, ev->target);
	uint32_t idx, se = 0;
	int et = ATF_EV_USER, rc;
	wrec rec;
	size_t n;
	const char *en;
	uint32_t td = td_of(aw, ev);

	if (!te || !tk_trace_entity(t, ev->source))
		return tk_err_set(err, TK_E_USAGE, aw->name, 0, 0,
				  "event refers to an unknown entity");
	/* where a name written at close is reported (the event may still be
	 * dropped: it names the entity all the same) */
	if (tk_name_pos_event(&aw->npos, ev) < 0)
		return tk_err_nomem(err, aw->name);
	if (!tk_etype_is_user(t, te->type, te->type_name)) {
		int atype = atype_of(t, te);
		tk_evkind kind = ev->kind;
		if (atype < 0)
			return lose(w, aw, L_TYPE, ev, err);
		en = ev->name != TK_NONE ? tk_trace_str(t, ev->name, &n) : NULL;
		if (!en)
			n = 0;
		if (tk_etype_is_process(te->type) &&
		    process_kind(kind) != (int)kind) {
			int k = process_kind(kind);
			if ((rc = lose(w, aw, L_STATE, ev, err)) < 0 || k < 0)
				return rc;
			kind = (tk_evkind)k;
		}
		et = atf_evtype_of(kind, en, n, atype);
		if (et < 0)
			return lose(w, aw, L_EVENT, ev, err);
		if ((rc = place(w, aw, ev->target, ev, 0, &idx)) < 0)
			return tk_err_nomem(err, aw->name);
		if (te->type == TK_ET_T) {
			/* the core it runs on: the event's, or a core source */
			uint32_t cs = 0, cent = ev->core != TK_NONE &&
					       tk_trace_entity(t, ev->core) ? ev->core
					       : tk_entity_is_core(t, ev->source) ? ev->source
					       : TK_NONE;
			if (cent != TK_NONE && core_slot(w, aw, cent, &cs) < 0)
				return tk_err_nomem(err, aw->name);
			if ((rc = collides(aw, idx, kind, cs, &se)) != 0)
				return rc < 0 ? tk_err_nomem(err, aw->name)
					      : lose(w, aw, L_MIGRATE, ev, err);
		}
	}
	if (w->opts.strict && aw->renamed)
		return lose(w, aw, L_CORE, ev, err);
	if (ev->note && (rc = lose(w, aw, L_NOTE, ev, err)) < 0)
		return rc;
	memset(&rec, 0, sizeof(rec));
	rec.time = ev->time;
	rec.ent = ev->target;
	rec.name = ev->name;
	rec.src = ev->source;
	rec.evtype = (uint32_t)et;
	rec.se = se;
	rec.sinst = ev->source_inst;
	rec.tinst = ev->target_inst;
	rec.pos = ev->pos;
	rec.td = td;
	aw->used_ev |= 1u << et;
	if (tk_spill_put(&aw->spill, &rec) < 0)
		return tk_err_set(err, TK_E_IO, aw->name, 0, 0,
				  "cannot write a temporary file");
	return TK_OK;
}

/*
 * Record r as the ATF reader will read it back, every element where close
 * placed it (an element placed by a later event, or at close, has its
 * events on a core the writer did not know as they came): a source or an
 * instance other than the input's is a loss.  User events are on the core
 * of the last other event, as the reader has them.
 */
static int replay(tk_writer *w, atf_writer *aw, const wrec *r, tk_error *err)
{
	const tk_entity *te = tk_trace_entity(w->trace, r->ent);
	tk_event ev;
	uint32_t src, core;
	int64_t sinst, tinst;
	int sk = TK_SK_OTHER;
	const char *en;

	memset(&ev, 0, sizeof(ev));
	ev.target = r->ent;
	ev.type = te->type;
	ev.type_name = te->type_name;
	ev.name = r->name;
	ev.pos = r->pos;
	ev.kind = TK_EV_OTHER;
	if (r->evtype != ATF_EV_USER) {
		aw->last_slot = slot_of(aw, (r->se ? r->se : aw->se_of[r->ent]) - 1);
		sk = te->type == TK_ET_OTHER ? TK_SK_BLOCK : tk_synth_kind(te->type);
		ev.kind = atf_evtype_kind((int)r->evtype, atype_of(w->trace, te), &en);
	}
	/* the default core is a core the reader names: no input entity */
	core = aw->last_slot ? aw->cores[aw->last_slot - 1].ent : TK_NONE;
	if (tk_synth_event(&aw->synth, aw->last_slot, core,
			   aw->last_slot ? TK_NONE : r->ent, sk, ev.kind, r->ent,
			   &src, &sinst, &tinst) < 0)
		return tk_err_nomem(err, aw->name);
	if (src != r->src || sinst != r->sinst || tinst != r->tinst)
		return lose(w, aw, L_SYNTH, &ev, err);
	return TK_OK;
}

/* ---- close -------------------------------------------------------------- */

static int out(tk_writer *w, tk_error *err, const char *s)
{
	return tk_sink_write(&w->sink, s, strlen(s), err);
}

/* Check that s is UTF-8 that XML 1.0 can hold (bad_ok: a byte that is
 * not UTF-8 counts as the U+FFFD that tk_writer_text() makes of it). */
static int xml_ok(const char *s, size_t n, int bad_ok)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if (u[i] < 0x20 && u[i] != '\t' && u[i] != '\n' && u[i] != '\r')
			return 0;
		len = tk_utf8_len(u + i, n - i);
		if (!len && bad_ok) {
			i++;
			continue;
		}
		if (!len)
			return 0;
		/* U+FFFE and U+FFFF are no XML characters */
		if (len == 3 && u[i] == 0xef && u[i + 1] == 0xbf && u[i + 2] >= 0xbe)
			return 0;
		i += len;
	}
	return 1;
}

/* Write s escaped (attribute value or text). */
static int out_esc(tk_writer *w, atf_writer *aw, const char *s, size_t n,
		   tk_error *err)
{
	size_t i, from = 0;
	int rc = TK_OK;

	/* the UTF-8 rule of every writer first: bad bytes as U+FFFD,
	 * counted, refused under --strict; then what XML cannot hold */
	if ((rc = tk_writer_text(w, s, n, &s, &n, err)) < 0)
		return rc;
	if (!xml_ok(s, n, 0)) {
		char q[64];
		return tk_err_set(err, TK_E_UNSUPPORTED, aw->name, 0, 0,
				  "'%s' is not text that XML can hold",
				  tk_quote(q, sizeof(q), s, s + n));
	}
	for (i = 0; i < n && rc == TK_OK; i++) {
		/* text and attribute values alike: every one escaped */
		const char *rep = tk_xml_escape(s[i], 1);
		if (rep) {
			rc = tk_sink_write(&w->sink, s + from, i - from, err);
			if (rc == TK_OK)
				rc = out(w, err, rep);
			from = i + 1;
		}
	}
	if (rc == TK_OK)
		rc = tk_sink_write(&w->sink, s + from, n - from, err);
	return rc;
}

static int outf(tk_writer *w, tk_error *err, const char *fmt, ...)
	TK_PRINTF(3, 4);

static int outf(tk_writer *w, tk_error *err, const char *fmt, ...)
{
	char b[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b))
		return tk_err_set(err, TK_E_IO, w->sink.path, 0, 0, "format error");
	return tk_sink_write(&w->sink, b, (size_t)n, err);
}

/* The value of header key `key` of an ATF input, or NULL. */
static const char *hget(const tk_writer *w, const atf_writer *aw,
			const char *key)
{
	return aw->from_atf ? tk_trace_header_get(w->trace, key) : NULL;
}

/* Header entries (of an ATF input) whose key is exactly `key`, written
 * as they are (they are canonical XML the reader made). */
static int out_kept_xml(tk_writer *w, atf_writer *aw, const char *key,
			const char *indent, tk_error *err)
{
	size_t i, n = tk_trace_header_count(w->trace);
	int rc;

	if (!aw->from_atf)
		return TK_OK;
	for (i = 0; i < n; i++) {
		const tk_header_entry *e = tk_trace_header(w->trace, i);
		if (e->kind != TK_HDR_PARAM || strcmp(e->key, key) != 0)
			continue;
		if ((rc = out(w, err, indent)) < 0 || (rc = out(w, err, e->value)) < 0 ||
		    (rc = out(w, err, "\n")) < 0)
			return rc;
	}
	return TK_OK;
}

static int out_comment(tk_writer *w, atf_writer *aw, const char *key,
		       const char *indent, tk_error *err)
{
	const char *c = hget(w, aw, key);
	int rc;

	if (!c)
		return TK_OK;
	if ((rc = out(w, err, indent)) < 0 || (rc = out(w, err, "<Comment>")) < 0 ||
	    (rc = out_esc(w, aw, c, strlen(c), err)) < 0)
		return rc;
	return out(w, err, "</Comment>\n");
}

typedef struct outbase {
	tk_timebase tb;          /* the ticks of the events */
	char unit[8];
	uint64_t num, den;
	unsigned digits;
	int kept;                /* an ATF input's TimeBase and decimals: its
				    kept Start and Stop are in these units */
} outbase;

static void pick_base(tk_writer *w, atf_writer *aw, outbase *ob)
{
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	const char *b = hget(w, aw, "TimeBase"), *d = hget(w, aw, "TimeDigits");

	ob->tb = *tb;
	if (b && d) {
		char u[8];
		unsigned long long num, den;
		unsigned dg;
		tk_timebase x;
		if (sscanf(b, "%7s %llu/%llu", u, &num, &den) == 3 &&
		    sscanf(d, "%u", &dg) == 1 && dg <= 18 &&
		    atf_tick(u, strlen(u), num, den, dg, &x) == TK_OK &&
		    x.unit == tb->unit && x.num == tb->num && x.den == tb->den) {
			snprintf(ob->unit, sizeof(ob->unit), "%s", u);
			ob->num = num;
			ob->den = den;
			ob->digits = dg;
			ob->kept = 1;
			return;
		}
	}
	snprintf(ob->unit, sizeof(ob->unit), "%s", tk_unit_name(tb->unit));
	ob->num = tb->num;
	ob->den = tb->den;
	ob->digits = 0;
	ob->kept = 0;
}

/* per SystemElement: header entries keyed "SystemElement.<id>.*" */
typedef struct sekey {
	uint64_t id;
	size_t idx;
} sekey;

static int cmp_sekey(const void *a, const void *b)
{
	const sekey *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct ctx {
	tk_writer *w;
	atf_writer *aw;
	sekey *keys;
	size_t nkeys;
	uint32_t *kids;          /* the children of wse i: kids[first[i] .. */
	uint32_t *first;         /* .. first[i + 1]) (nses + 1 offsets) */
} ctx;

static int out_se(ctx *c, uint32_t i, unsigned depth, tk_error *err)
{
	tk_writer *w = c->w;
	atf_writer *aw = c->aw;
	const tk_trace *t = w->trace;
	const wse *s = &aw->ses[i];
	char ind[80];
	size_t n, lo = 0, hi = c->nkeys, k;
	const char *nm = tk_trace_str(t, tk_trace_entity(t, s->ent)->name, &n);
	int rc;
	uint32_t j;

	if (depth > 30)
		depth = 30;
	memset(ind, ' ', 2 * depth + 6);
	ind[2 * depth + 6] = '\0';
	if ((rc = out(w, err, ind)) < 0 || (rc = out(w, err, "<SystemElement Name=\"")) < 0)
		return rc;
	/* a name refused (--strict) is reported at the first event that
	 * carries it, as the writers that write names with the events do */
	if ((rc = out_esc(w, aw, nm, n, err)) < 0)
		return name_failed(w, tk_name_pos_get(&aw->npos, s->ent), rc, err);
	if ((rc = outf(w, err, "\" ID=\"%llu\" Type=\"", (unsigned long long)s->id)) < 0)
		return rc;
	{
		const tk_entity *e = tk_trace_entity(t, s->ent);
		size_t tn;
		const char *ts = s->atype >= 0 ? atf_type_name(s->atype)
					       : tk_trace_str(t, e->type_name, &tn);
		if ((rc = out_esc(w, aw, ts, strlen(ts), err)) < 0)
			return name_failed(w, tk_name_pos_get(&aw->npos, s->ent), rc, err);
	}
	/* its kept entries */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->keys[mid].id < s->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((lo >= c->nkeys || c->keys[lo].id != s->id) &&
	    c->first[i] == c->first[i + 1])
		return out(w, err, "\" />\n");
	if ((rc = out(w, err, "\">\n")) < 0)
		return rc;
	for (k = lo; k < c->nkeys && c->keys[k].id == s->id; k++) {
		const tk_header_entry *e = tk_trace_header(t, c->keys[k].idx);
		const char *dot = strchr(e->key + 14, '.');
		if (!dot)
			continue;
		if (strcmp(dot, ".Comment") == 0) {
			if ((rc = out(w, err, ind)) < 0 || (rc = out(w, err, "  <Comment>")) < 0 ||
			    (rc = out_esc(w, aw, e->value, strlen(e->value), err)) < 0 ||
			    (rc = out(w, err, "</Comment>\n")) < 0)
				return rc;
		} else if (strcmp(dot, ".Annotation") == 0) {
			if ((rc = out(w, err, ind)) < 0 || (rc = out(w, err, "  ")) < 0 ||
			    (rc = out(w, err, e->value)) < 0 || (rc = out(w, err, "\n")) < 0)
				return rc;
		}
	}
	for (j = c->first[i]; j < c->first[i + 1]; j++)
		if ((rc = out_se(c, c->kids[j], depth + 1, err)) < 0)
			return rc;
	if ((rc = out(w, err, ind)) < 0)
		return rc;
	return out(w, err, "</SystemElement>\n");
}

/* EventIDs of the event types: an ATF input's, else new ones */
typedef struct evids {
	uint64_t id[ATF_NEVTYPES];
	int have[ATF_NEVTYPES];
} evids;

/* user events: per (user entity, name) a ReferenceID */
typedef struct uref {
	uint32_t ent, name;
	uint64_t ref;
	int new_info;
	uint64_t pos1;     /* its first event: tk_event.pos + 1 */
} uref;

static int cmp_uref(const void *a, const void *b)
{
	const uref *x = a, *y = b;

	if (x->ent != y->ent)
		return x->ent < y->ent ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Whether ReferenceID r of EventID eid already has an Info: in the
 * input's UserTable or among the new ones. */
static int ref_taken(tk_writer *w, atf_writer *aw, const uref *refs,
		     size_t nrefs, const uint64_t *user_eid, uint64_t eid,
		     unsigned long long r)
{
	char key[96];
	size_t q;

	snprintf(key, sizeof(key), "EventIDMapping.%llu.Info.%llu",
		 (unsigned long long)eid, r);
	if (aw->from_atf && hget(w, aw, key))
		return 1;
	for (q = 0; q < nrefs; q++)
		if (refs[q].new_info && user_eid[refs[q].ent] - 1 == eid &&
		    refs[q].ref == r)
			return 1;
	return 0;
}

static int close_td(tk_writer *w, atf_writer *aw, uint64_t k, tk_error *err)
{
	char key[64];
	int rc;

	snprintf(key, sizeof(key), "TraceData.%llu.TraceInformation", (unsigned long long)k);
	if ((rc = out_kept_xml(w, aw, key, "    ", err)) < 0)
		return rc;
	return out(w, err, "  </TraceData>\n");
}

/* What the first pass over the records found of TraceData k (spans[k - 1]):
 * its entries' earliest and latest times, and the time it opened at (the
 * Start of one that has none kept and no entries). */
typedef struct tdspan {
	uint64_t lo, hi, at;
	int any;
} tdspan;

/*
 * The walk through the records in the order they are written, which says
 * where each TraceData opens: an ATF input's as it had them (each event in
 * the one it came from, empty ones too, times that decrease within one
 * kept), else a new one where time decreases.  out_trace() writes what it
 * meets, td_spans() measures it first: both walk alike.
 */
enum { TD_END, TD_OPEN, TD_EVENT };

typedef struct tdwalk {
	tk_spill_cursor cur;
	const wrec *r;     /* the record in hand (have), NULL: none left */
	uint64_t ntd;      /* an ATF input's TraceData, 0: by time */
	uint64_t k;        /* the TraceData open (from 1), 0: none yet */
	uint64_t last;     /* the time of the last record */
	uint64_t at;       /* TD_OPEN: the time TraceData k opened at */
	int have, opened;  /* opened: k was opened for the record in hand */
} tdwalk;

static int td_walk_begin(tk_writer *w, atf_writer *aw, tdwalk *tw,
			 tk_error *err)
{
	uint64_t l, n;

	memset(tw, 0, sizeof(*tw));
	/* the TraceData of an ATF input whose events say theirs */
	if (aw->td)
		while (tk_tlines_begin(w->trace, tw->ntd + 1, &l, &n) == 0)
			tw->ntd++;
	if (tk_spill_rewind(&tw->cur, &aw->spill) < 0)
		return tk_err_set(err, TK_E_IO, aw->name, 0, 0,
				  "cannot read a temporary file back");
	return TK_OK;
}

/* The next step: TD_OPEN (TraceData tw->k opens, at tw->at), TD_EVENT
 * (*out is the record to write in it) or TD_END. */
static int td_step(tdwalk *tw, const wrec **out)
{
	static const wrec none;  /* no events: one empty TraceData at 0 */
	const wrec *r;

	if (!tw->have) {
		r = tk_spill_peek(&tw->cur);
		if (r)
			tk_spill_skip(&tw->cur);
		else if (tw->k && tw->k >= tw->ntd)
			return TD_END;
		else if (tw->ntd && tw->k < tw->ntd)
			r = NULL;
		else
			r = &none;
		tw->r = r;
		tw->have = 1;
		tw->opened = 0;
	}
	r = tw->r;
	if (tw->ntd) {
		/* up to the event's own, or every one left at the end */
		uint64_t want = !r ? tw->ntd : r->td > tw->k ? r->td
				: tw->k ? tw->k : 1;
		if (tw->k < want) {
			tw->k++;
			tw->at = r ? r->time : tw->last;
			return TD_OPEN;
		}
		if (!r)
			return TD_END;
	} else if (!tw->opened && (!tw->k || r->time < tw->last)) {
		tw->k++;
		tw->opened = 1;
		tw->at = r->time;
		return TD_OPEN;
	}
	tw->have = 0;
	if (r == &none)
		return TD_END;
	tw->last = r->time;
	*out = r;
	return TD_EVENT;
}

/* The kept Start and Stop of TraceData k of an ATF input, in the units
 * written (else none: ob->kept). */
static void td_kept(tk_writer *w, atf_writer *aw, const outbase *ob,
		    uint64_t k, const char **st, const char **sp)
{
	char key[64];

	*st = *sp = NULL;
	if (!ob->kept)
		return;
	snprintf(key, sizeof(key), "TraceData.%llu.Start", (unsigned long long)k);
	*st = hget(w, aw, key);
	snprintf(key, sizeof(key), "TraceData.%llu.Stop", (unsigned long long)k);
	*sp = hget(w, aw, key);
}

/*
 * The first pass for an ATF input, whose kept Start and Stop may not hold
 * the entries (a lenient reading takes entries outside them, and a Start
 * after its Stop): the span of each TraceData, into *spans.  A window
 * that has to be widened for them is refused in strict mode (before any
 * of the document is written), else counted.
 */
static int td_spans(tk_writer *w, atf_writer *aw, const outbase *ob,
		    tdspan **spans, tk_error *err)
{
	tdwalk tw;
	const wrec *r = NULL;
	size_t cap = 0;
	uint64_t k;
	int rc, s;

	if ((rc = td_walk_begin(w, aw, &tw, err)) < 0)
		return rc;
	while ((s = td_step(&tw, &r)) != TD_END) {
		tdspan *p;
		if (tk_grow_zero((void **)spans, &cap, tw.k - 1, sizeof(**spans)) < 0)
			return tk_err_nomem(err, aw->name);
		p = &(*spans)[tw.k - 1];
		if (s == TD_OPEN) {
			p->at = tw.at;
		} else if (!p->any) {
			p->any = 1;
			p->lo = p->hi = r->time;
		} else {
			if (r->time < p->lo)
				p->lo = r->time;
			if (r->time > p->hi)
				p->hi = r->time;
		}
	}
	if (tw.cur.failed)
		return tk_err_set(err, TK_E_IO, aw->name, 0, 0,
				  "cannot read a temporary file back");
	for (k = 1; k <= tw.k; k++) {
		const tdspan *p = &(*spans)[k - 1];
		const char *st, *sp;
		atf_window win;
		td_kept(w, aw, ob, k, &st, &sp);
		atf_window_fit(&win, st, sp, ob->digits, p->any, p->lo, p->hi, p->at);
		if (!win.widened)
			continue;
		if (w->opts.strict) {
			char what[160];
			if (win.widened & ATF_WIDEN_START)
				snprintf(what, sizeof(what), "an entry at %s is before its Start=\"%.40s\"",
					 win.lo, st);
			else if (p->any)
				snprintf(what, sizeof(what), "an entry at %s is after its Stop=\"%.40s\"",
					 win.hi, sp);
			else
				snprintf(what, sizeof(what), "its Stop=\"%.40s\" is before its Start=\"%.40s\"",
					 sp, win.start);
			return tk_err_set(err, TK_E_UNSUPPORTED, aw->name, 0, 0,
					  "ATF cannot hold TraceData %llu as it was read: %s; outside strict mode its Start and Stop are widened to hold its entries, with a warning",
					  (unsigned long long)k, what);
		}
		if ((rc = lose(w, aw, L_WINDOW, NULL, err)) < 0)
			return rc;
		if (aw->lost.n[L_WINDOW] == 1)
			snprintf(aw->lost.first[L_WINDOW], sizeof(aw->lost.first[L_WINDOW]),
				 "TraceData %u: %s %.12s to %.12s", (unsigned)k,
				 win.widened & ATF_WIDEN_START ? "Start" : "Stop",
				 win.widened & ATF_WIDEN_START ? st : sp,
				 win.widened & ATF_WIDEN_START ? win.start : win.stop);
	}
	return TK_OK;
}

/* The start of TraceData k: its window (a kept Start and Stop, widened
 * to hold its entries: span, else Start `at`), Comment, TracingOverhead
 * and ToolInfo. */
static int open_td(tk_writer *w, atf_writer *aw, const outbase *ob,
		   uint64_t k, const tdspan *span, uint64_t at, tk_error *err)
{
	const char *st, *sp;
	char key[64];
	atf_window win;
	int rc;

	/* read back, each TraceData starts the synthesis again */
	if (k > 1) {
		tk_synth_reset(&aw->synth);
		aw->last_slot = 0;
	}
	td_kept(w, aw, ob, k, &st, &sp);
	if (span)
		atf_window_fit(&win, st, sp, ob->digits, span->any, span->lo,
			       span->hi, span->at);
	else
		atf_window_fit(&win, st, sp, ob->digits, 0, 0, 0, at);
	if ((rc = out(w, err, "  <TraceData Start=\"")) < 0 ||
	    (rc = out_esc(w, aw, win.start, strlen(win.start), err)) < 0)
		return rc;
	if (win.stop && ((rc = out(w, err, "\" Stop=\"")) < 0 ||
			 (rc = out_esc(w, aw, win.stop, strlen(win.stop), err)) < 0))
		return rc;
	if ((rc = out(w, err, "\">\n")) < 0)
		return rc;
	snprintf(key, sizeof(key), "TraceData.%llu.Comment", (unsigned long long)k);
	if ((rc = out_comment(w, aw, key, "    ", err)) < 0)
		return rc;
	snprintf(key, sizeof(key), "TraceData.%llu.TracingOverhead", (unsigned long long)k);
	if ((rc = out_kept_xml(w, aw, key, "    ", err)) < 0)
		return rc;
	snprintf(key, sizeof(key), "TraceData.%llu.ToolInfo", (unsigned long long)k);
	if (hget(w, aw, key))
		return out_kept_xml(w, aw, key, "    ", err);
	return out(w, err, "    <ToolInfo Vendor=\"tracekit\" Tool=\"tracekit\" Version=\"" TK_VERSION_STRING "\" />\n");
}

/*
 * The TraceData (tdwalk), each opened with its window: spans (td_spans())
 * for an ATF input, else the time of its first event (times do not
 * decrease within one then, and no Stop is written).
 */
static int out_trace(tk_writer *w, atf_writer *aw, const outbase *ob,
		     const evids *ids, uref *refs, size_t nrefs,
		     uint64_t *user_eid, const tdspan *spans, tk_error *err)
{
	tdwalk tw;
	const wrec *r = NULL;
	int rc, s;

	if ((rc = td_walk_begin(w, aw, &tw, err)) < 0)
		return rc;
	while ((s = td_step(&tw, &r)) != TD_END) {
		if (s == TD_OPEN) {
			if (tw.k > 1 && (rc = close_td(w, aw, tw.k - 1, err)) < 0)
				return rc;
			if ((rc = open_td(w, aw, ob, tw.k, spans ? &spans[tw.k - 1] : NULL,
					  tw.at, err)) < 0)
				return rc;
			continue;
		}
		if ((rc = replay(w, aw, r, err)) < 0)
			return rc;
		{
			char line[160];
			size_t o;
			uint64_t eid, ref;
			if (r->evtype == ATF_EV_USER) {
				uref x, *f;
				x.ent = r->ent;
				x.name = r->name;
				f = bsearch(&x, refs, nrefs, sizeof(*refs), cmp_uref);
				eid = user_eid[r->ent] - 1;
				ref = f ? f->ref : 0;
			} else {
				eid = ids->id[r->evtype];
				ref = aw->ses[(r->se ? r->se : aw->se_of[r->ent]) - 1].id;
			}
			memcpy(line, "    <TraceEntry Time=\"", 22);
			o = 22;
			o += atf_time_fmt(line + o, r->time, ob->digits);
			o += (size_t)snprintf(line + o, sizeof(line) - o,
					      "\" EventID=\"%llu\" ReferenceID=\"%llu\" />\n",
					      (unsigned long long)eid,
					      (unsigned long long)ref);
			if ((rc = tk_sink_write(&w->sink, line, o, err)) < 0)
				return rc;
		}
	}
	if (tw.cur.failed)
		return tk_err_set(err, TK_E_IO, aw->name, 0, 0,
				  "cannot read a temporary file back");
	return close_td(w, aw, tw.k, err);
}

static int atf_writer_close(tk_writer *w, tk_error *err)
{
	atf_writer *aw = w->impl;
	const tk_trace *t = w->trace;
	size_t nh = tk_trace_header_count(t), i, nrefs = 0, caprefs = 0, capkeys = 0;
	uint32_t j, slot, ne = (uint32_t)tk_trace_entity_count(t);
	uint64_t next_id = 1, *user_eid = NULL, maxref = 0;
	uref *refs = NULL;
	tdspan *spans = NULL;
	ctx c;
	evids ids;
	outbase ob;
	int rc = TK_OK, e;
	const char *v;

	/* every core of the trace is a Resource, in use or not */
	for (j = 0; j < ne; j++)
		if (tk_trace_entity(t, j)->type == TK_ET_C &&
		    core_slot(w, aw, j, &slot) < 0)
			return tk_err_nomem(err, aw->name);
	if (w->opts.strict && aw->renamed)
		return lose(w, aw, L_CORE, NULL, err);
	memset(&c, 0, sizeof(c));
	memset(&ids, 0, sizeof(ids));
	c.w = w;
	c.aw = aw;

	/* every element of the entity table, placed */
	for (j = 0; j < ne; j++) {
		const tk_entity *en = tk_trace_entity(t, j);
		uint32_t idx;
		if (atype_of(t, en) >= 0 && !tk_etype_is_user(t, en->type, en->type_name) &&
		    (rc = place(w, aw, j, NULL, 0, &idx)) < 0)
			goto nomem;
	}
	/* what never showed a core: the only core, else a default one */
	for (j = 0; j < aw->nses; j++) {
		if (aw->ses[j].parent || aw->ses[j].slot)
			continue;
		if (aw->ncores == 1)
			aw->ses[j].slot = 1;
		else if (core_slot(w, aw, TK_NONE, &aw->ses[j].slot) < 0)
			goto nomem;
	}
	/* element ids: an ATF input's, else 1, 2, ... (free ones) */
	{
		uint64_t *used = NULL;
		size_t nused = 0;
		for (i = 0; aw->from_atf && i < nh; i++) {
			const tk_header_entry *he = tk_trace_header(t, i);
			unsigned long long id;
			int pos = 0;
			if (he->kind == TK_HDR_PARAM &&
			    sscanf(he->key, "SystemElement.%llu%n", &id, &pos) == 1 &&
			    he->key[pos] == '\0') {
				uint32_t ent = tk_trace_entity_find(t, he->value, strlen(he->value));
				if (ent != TK_NONE && ent < aw->cap_se_of && aw->se_of[ent] &&
				    !aw->ses[aw->se_of[ent] - 1].id) {
					aw->ses[aw->se_of[ent] - 1].id = id;
				}
			}
		}
		used = calloc(aw->nses + 1, sizeof(*used));
		if (!used)
			goto nomem;
		for (j = 0; j < aw->nses; j++)
			if (aw->ses[j].id)
				used[nused++] = aw->ses[j].id;
		for (j = 0; j < aw->nses; j++) {
			size_t q;
			int clash;
			if (aw->ses[j].id)
				continue;
			do {
				clash = 0;
				for (q = 0; q < nused && !clash; q++)
					clash = used[q] == next_id;
				if (clash)
					next_id++;
			} while (clash);
			aw->ses[j].id = next_id++;
		}
		free(used);
	}
	/* children lists, in one array: counted, then placed in element
	 * order (a list grown by one per child copies it each time under
	 * some allocators: 20,000 runnables of one task took 26 s under
	 * ASan) */
	c.first = calloc((size_t)aw->nses + 2, sizeof(*c.first));
	c.kids = tk_xrealloc_array(NULL, (size_t)aw->nses + 1, sizeof(*c.kids));
	if (!c.first || !c.kids)
		goto nomem;
	/* the children of wse i (parent i + 1) are counted in first[i + 2]:
	 * the sums make first[i + 1] where they start, the place of the next
	 * one as they are placed, and in the end where they stop */
	for (j = 0; j < aw->nses; j++)
		if (aw->ses[j].parent)
			c.first[aw->ses[j].parent + 1]++;
	for (j = 0; j < aw->nses; j++)
		c.first[j + 1] += c.first[j];
	for (j = 0; j < aw->nses; j++) {
		uint32_t p = aw->ses[j].parent;
		if (p)
			c.kids[c.first[p]++] = j;
	}
	/* kept entries per element id */
	for (i = 0; aw->from_atf && i < nh; i++) {
		const tk_header_entry *he = tk_trace_header(t, i);
		unsigned long long id;
		int pos = 0;
		if (he->kind == TK_HDR_PARAM &&
		    sscanf(he->key, "SystemElement.%llu%n", &id, &pos) == 1 &&
		    he->key[pos] == '.') {
			if (tk_grow_zero((void **)&c.keys, &capkeys, c.nkeys,
					   sizeof(*c.keys)) < 0)
				goto nomem;
			c.keys[c.nkeys].id = id;
			c.keys[c.nkeys].idx = i;
			c.nkeys++;
		}
	}
	if (c.nkeys)
		qsort(c.keys, c.nkeys, sizeof(*c.keys), cmp_sekey);

	/* event ids: an ATF input's mapping for each type, else new ones */
	{
		uint64_t maxid = 0;
		int any = 0;
		for (i = 0; aw->from_atf && i < nh; i++) {
			const tk_header_entry *he = tk_trace_header(t, i);
			unsigned long long id;
			int pos = 0;
			if (he->kind != TK_HDR_PARAM ||
			    sscanf(he->key, "EventIDMapping.%llu%n", &id, &pos) != 1)
				continue;
			if (id > maxid || !any)
				maxid = id;
			any = 1;
			if (he->key[pos] != '\0')
				continue;
			e = atf_evtype_lookup(he->value, strlen(he->value));
			if (e == ATF_EV_END)
				e = ATF_EV_TERMINATE;
			if (e == ATF_EV_ACTIVATION_OS || e == ATF_EV_ACTIVATION_CHAINED)
				e = ATF_EV_ACTIVATION;
			if (e >= 0 && e != ATF_EV_USER && !ids.have[e]) {
				ids.have[e] = 1;
				ids.id[e] = id;
			}
		}
		next_id = any ? maxid + 1 : 1;
		for (e = 0; e < ATF_NEVTYPES; e++)
			if (e != ATF_EV_USER && (aw->used_ev >> e & 1) && !ids.have[e]) {
				/* not the id of a user entity User_<n> */
				int clash;
				do {
					clash = 0;
					for (j = 0; j < ne && !clash; j++) {
						const tk_entity *en = tk_trace_entity(t, j);
						size_t ln;
						const char *s = tk_trace_str(t, en->name, &ln);
						unsigned long long uid;
						int pos = 0;
						clash = tk_etype_is_user(t, en->type, en->type_name) &&
							sscanf(s, "User_%llu%n", &uid, &pos) == 1 &&
							(size_t)pos == ln && uid == next_id;
					}
					if (clash)
						next_id++;
				} while (clash);
				ids.have[e] = 2;
				ids.id[e] = next_id++;
			}
	}
	/* user events: EventID per user entity, ReferenceID per name */
	user_eid = calloc(ne + 1, sizeof(*user_eid));
	if (!user_eid)
		goto nomem;
	if (aw->used_ev >> ATF_EV_USER & 1) {
		tk_spill_cursor cur;
		const wrec *rec;
		if (tk_spill_rewind(&cur, &aw->spill) < 0)
			goto ioerr;
		for (; (rec = tk_spill_peek(&cur)) != NULL; tk_spill_skip(&cur)) {
			uref x;
			if (rec->evtype != ATF_EV_USER)
				continue;
			x.ent = rec->ent;
			x.name = rec->name;
			if (nrefs && bsearch(&x, refs, nrefs, sizeof(*refs), cmp_uref))
				continue;
			if (tk_grow_zero((void **)&refs, &caprefs, nrefs,
					   sizeof(*refs)) < 0)
				goto nomem;
			x.ref = 0;
			x.new_info = 0;
			x.pos1 = rec->pos + 1;
			refs[nrefs++] = x;
			qsort(refs, nrefs, sizeof(*refs), cmp_uref);
		}
		if (cur.failed)
			goto ioerr;
		for (i = 0; i < nrefs; i++) {
			uint32_t ent = refs[i].ent;
			if (!user_eid[ent]) {
				size_t ln;
				const char *s = tk_trace_str(t, tk_trace_entity(t, ent)->name, &ln);
				unsigned long long id;
				int pos = 0, ok = 0;
				if (sscanf(s, "User_%llu%n", &id, &pos) == 1 && (size_t)pos == ln) {
					char key[64];
					ok = 1;
					for (e = 0; e < ATF_NEVTYPES && ok; e++)
						ok = !(ids.have[e] && ids.id[e] == id);
					snprintf(key, sizeof(key), "EventIDMapping.%llu", id);
					v = hget(w, aw, key);
					if (v && strcmp(v, "user") != 0)
						ok = 0;
					for (j = 0; j < ne && ok; j++)
						ok = user_eid[j] != id + 1;
				}
				user_eid[ent] = (ok ? id : next_id++) + 1;
			}
		}
		/* references: the input's UserTable, "ref<R>", else new */
		for (i = 0; i < nrefs; i++) {
			uint64_t eid = user_eid[refs[i].ent] - 1;
			const char *nm = tk_trace_str(t, refs[i].name, NULL);
			char pre[64];
			size_t pl, q;
			unsigned long long r;
			int pos = 0, found = 0;
			pl = (size_t)snprintf(pre, sizeof(pre), "EventIDMapping.%llu.Info.",
					      (unsigned long long)eid);
			maxref = 0;
			for (q = 0; aw->from_atf && q < nh; q++) {
				const tk_header_entry *he = tk_trace_header(t, q);
				if (strncmp(he->key, pre, pl) != 0 ||
				    sscanf(he->key + pl, "%llu", &r) != 1)
					continue;
				if (r + 1 > maxref)
					maxref = r + 1;
				if (!found && strcmp(he->value, nm) == 0) {
					refs[i].ref = r;
					found = 1;
				}
			}
			for (q = 0; q < nrefs; q++)
				if (refs[q].new_info && user_eid[refs[q].ent] - 1 == eid &&
				    refs[q].ref + 1 > maxref)
					maxref = refs[q].ref + 1;
			if (found)
				continue;
			if (sscanf(nm, "ref%llu%n", &r, &pos) == 1 && nm[pos] == '\0' &&
			    !ref_taken(w, aw, refs, nrefs, user_eid, eid, r)) {
				/* the name the lenient reader gives a ReferenceID
				 * missing from its UserTable: that ReferenceID,
				 * now with an Info of that name (the spec wants
				 * every ReferenceID in the UserTable) */
				refs[i].ref = r;
				refs[i].new_info = 1;
				continue;
			}
			if (!xml_ok(nm, strlen(nm), 1)) {
				char qn[64];
				rc = tk_err_set(err, TK_E_UNSUPPORTED, aw->name, 0, 0,
						"'%s' is not text that XML can hold",
						tk_quote(qn, sizeof(qn), nm, nm + strlen(nm)));
				rc = name_failed(w, refs[i].pos1, rc, err);
				goto done;
			}
			refs[i].ref = maxref ? maxref : 1;
			refs[i].new_info = 1;
		}
	}
	pick_base(w, aw, &ob);
	/* an ATF input's windows, measured (and refused in strict mode)
	 * before any of the document is written */
	if (aw->from_atf && (rc = td_spans(w, aw, &ob, &spans, err)) < 0)
		goto done;

	/* the document */
	if ((rc = out(w, err, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		      "<CommonFormat xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
		      "xsi:noNamespaceSchemaLocation=\"AlltimesTraceFormat.xsd\" Version=\"1.0\">\n"
		      "  <SystemConfiguration Name=\"")) < 0)
		goto done;
	v = hget(w, aw, "SystemConfiguration.Name");
	if ((rc = out_esc(w, aw, v ? v : "tracekit", strlen(v ? v : "tracekit"), err)) < 0 ||
	    (rc = out(w, err, "\">\n")) < 0 ||
	    (rc = out_comment(w, aw, "SystemConfiguration.Comment", "    ", err)) < 0)
		goto done;
	if (hget(w, aw, "SystemConfiguration.ToolInfo")) {
		if ((rc = out_kept_xml(w, aw, "SystemConfiguration.ToolInfo", "    ", err)) < 0)
			goto done;
	} else if ((rc = out(w, err, "    <ToolInfo Vendor=\"tracekit\" Tool=\"tracekit\" Version=\"" TK_VERSION_STRING "\" />\n")) < 0) {
		goto done;
	}
	tk_core_ids(aw->cores, aw->ncores, sizeof(*aw->cores));
	for (j = 0; j < aw->ncores; j++) {
		char key[80];
		uint32_t q;
		snprintf(key, sizeof(key), "Resource.%llu.Scheduler",
			 (unsigned long long)aw->cores[j].cid.id);
		v = hget(w, aw, key);
		if ((rc = outf(w, err, "    <Resource ID=\"%llu\" Scheduler=\"",
			       (unsigned long long)aw->cores[j].cid.id)) < 0 ||
		    (rc = out_esc(w, aw, v ? v : "unknown", strlen(v ? v : "unknown"), err)) < 0 ||
		    (rc = out(w, err, "\">\n")) < 0)
			goto done;
		for (q = 0; q < aw->nses; q++)
			if (!aw->ses[q].parent && aw->ses[q].slot == j + 1 &&
			    (rc = out_se(&c, q, 0, err)) < 0)
				goto done;
		snprintf(key, sizeof(key), "Resource.%llu.TimeRangeElement",
			 (unsigned long long)aw->cores[j].cid.id);
		if ((rc = out_kept_xml(w, aw, key, "      ", err)) < 0 ||
		    (rc = out(w, err, "    </Resource>\n")) < 0)
			goto done;
	}
	if ((rc = out(w, err, "    <EventIDMappings>\n")) < 0)
		goto done;
	for (i = 0; i < nh + ATF_NEVTYPES + ne; i++) {
		/* the input's mappings in order, then the new ones, then users */
		unsigned long long id;
		const char *ty = NULL;
		int pos = 0, user = 0;
		uint32_t uent = TK_NONE;
		if (i < nh) {
			const tk_header_entry *he = tk_trace_header(t, i);
			if (!aw->from_atf || he->kind != TK_HDR_PARAM ||
			    sscanf(he->key, "EventIDMapping.%llu%n", &id, &pos) != 1 ||
			    he->key[pos] != '\0')
				continue;
			ty = he->value;
			if (strcmp(ty, "end") == 0)
				ty = "terminate";
			/* an EventType lenient reading kept by name: its
			 * events are dropped (counted), and so is the
			 * mapping, which the strict reader refuses */
			else if (atf_evtype_lookup(ty, strlen(ty)) < 0)
				continue;
			user = strcmp(ty, "user") == 0;
			if (user) {
				for (j = 0; j < ne && uent == TK_NONE; j++)
					if (user_eid[j] == id + 1)
						uent = j;
			}
		} else if (i < nh + ATF_NEVTYPES) {
			e = (int)(i - nh);
			if (ids.have[e] != 2)
				continue;
			id = ids.id[e];
			ty = atf_evtype_name(e);
		} else {
			char key[64];
			uent = (uint32_t)(i - nh - ATF_NEVTYPES);
			if (!user_eid[uent])
				continue;
			id = user_eid[uent] - 1;
			snprintf(key, sizeof(key), "EventIDMapping.%llu", id);
			if (hget(w, aw, key))
				continue;
			ty = "user";
			user = 1;
		}
		if ((rc = outf(w, err, "      <EventIDMapping EventID=\"%llu\" EventType=\"", id)) < 0 ||
		    (rc = out_esc(w, aw, ty, strlen(ty), err)) < 0)
			goto done;
		if (!user) {
			if ((rc = out(w, err, "\" />\n")) < 0)
				goto done;
			continue;
		}
		if ((rc = out(w, err, "\">\n        <UserTable>\n")) < 0)
			goto done;
		{
			char pre[64];
			size_t pl = (size_t)snprintf(pre, sizeof(pre), "EventIDMapping.%llu.Info.", id), q;
			for (q = 0; aw->from_atf && q < nh; q++) {
				const tk_header_entry *he = tk_trace_header(t, q);
				if (strncmp(he->key, pre, pl) != 0)
					continue;
				if ((rc = outf(w, err, "          <Info ReferenceID=\"%s\">", he->key + pl)) < 0 ||
				    (rc = out_esc(w, aw, he->value, strlen(he->value), err)) < 0 ||
				    (rc = out(w, err, "</Info>\n")) < 0)
					goto done;
			}
			for (q = 0; q < nrefs; q++) {
				const char *nm;
				if (!refs[q].new_info || refs[q].ent != uent)
					continue;
				nm = tk_trace_str(t, refs[q].name, NULL);
				if ((rc = outf(w, err, "          <Info ReferenceID=\"%llu\">",
					       (unsigned long long)refs[q].ref)) < 0)
					goto done;
				if ((rc = out_esc(w, aw, nm, strlen(nm), err)) < 0) {
					rc = name_failed(w, refs[q].pos1, rc, err);
					goto done;
				}
				if ((rc = out(w, err, "</Info>\n")) < 0)
					goto done;
			}
		}
		if ((rc = out(w, err, "        </UserTable>\n      </EventIDMapping>\n")) < 0)
			goto done;
	}
	if ((rc = out(w, err, "    </EventIDMappings>\n")) < 0 ||
	    (rc = outf(w, err, "    <TimeBase Unit=\"%s\">\n      <Value Numerator=\"%llu\" Denominator=\"%llu\" />\n    </TimeBase>\n  </SystemConfiguration>\n",
		       ob.unit, (unsigned long long)ob.num, (unsigned long long)ob.den)) < 0)
		goto done;
	if ((rc = out_trace(w, aw, &ob, &ids, refs, nrefs, user_eid, spans, err)) < 0)
		goto done;
	if ((rc = out_kept_xml(w, aw, "Cookie", "  ", err)) < 0 ||
	    (rc = out(w, err, "</CommonFormat>\n")) < 0)
		goto done;
	tk_loss_report(&aw->lost, w, aw->name);
	rc = TK_OK;
	goto done;
nomem:
	rc = tk_err_nomem(err, aw->name);
	goto done;
ioerr:
	rc = tk_err_set(err, TK_E_IO, aw->name, 0, 0,
			"cannot read a temporary file back");
done:
	free(spans);
	free(refs);
	free(user_eid);
	free(c.kids);
	free(c.first);
	free(c.keys);
	return rc;
}

static void atf_writer_free(tk_writer *w)
{
	atf_writer *aw = w->impl;

	if (!aw)
		return;
	tk_spill_close(&aw->spill);
	free(aw->se_of);
	free(aw->ses);
	free(aw->cores);
	free(aw->run);
	free(aw->npos.pos1);
	tk_synth_free(&aw->synth);
	free(aw);
	w->impl = NULL;
}

const tk_format_ops tk_format_atf = {
	.info = {
		.name = "atf",
		.extensions = "atf",
		.description = "ALL-TIMES Trace Format 1.0 (XML; SystemConfiguration, TraceData, Cookies)",
		.caps = TK_CAP_READ | TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.probe = atf_probe,
	.reader_open = atf_reader_open,
	.reader_next = atf_reader_next,
	.reader_close = atf_reader_close,
	.reader_options = 1,
	.writer_open = atf_writer_open,
	.writer_write = atf_writer_write,
	.writer_close = atf_writer_close,
	.writer_free = atf_writer_free,
};
