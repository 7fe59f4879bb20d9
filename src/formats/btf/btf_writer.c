/*
 * btf_writer.c - canonical BTF output.
 *
 * A BTF input's header entries are written back as they were read (keys,
 * values, comments, 2.1.x table rows, in order), so a round trip keeps them;
 * a trace from another format gets a 2.2.1-style header.  Data lines are
 * "time,source,sinst,type,target,tinst,event[,note]" with LF line ends.
 * Times are converted exactly into the chosen time scale; what BTF cannot
 * hold (a name with a comma or a line break, a note with a line break, a
 * time base finer than representable) is an error, never an alteration.
 *
 * The output is what the specification allows (docs/mappings.md, "What
 * the writers change"): dialect spellings are written as the spec's, a
 * type BTF lacks becomes the closest one it has, a second header block is
 * merged into the first; what has no BTF form is dropped and counted in
 * one warning at close (--strict: an error at the first one).
 */
#include "btf.h"
#include "../../core/loss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L_TYPE, L_EVENT, L_NOTE, L_TIME, L_INST, L_HEADER, L_SOURCE, L_BADHDR,
       L_TWO_TYPES, L_COUNT };

static const char *const loss_what[L_COUNT] = {
	"events of entity types BTF does not have",
	"events that BTF does not define for their entity type",
	"a note on an event whose name moves into its note",
	"times that decrease",
	"events without a target instance",
	"a second header block whose entries differ from the first's",
	"a process's state change from a task on no known core",
	"a header entry the specification does not allow",
	"events whose target has another entity type",
};

static const char *const loss_short[L_COUNT] = {
	"events of entity types BTF does not have dropped",
	"events BTF does not define for their type dropped",
	"notes of events whose name became the note dropped",
	"decreasing times raised to the previous event's",
	"empty target instances written as 0",
	"header entries of a second header block dropped",
	"state changes of processes from a task on no known core written from the placeholder core",
	"malformed header entries dropped",
	"events of an entity as a second type dropped",
};

#define SF_NAME_OK 1u      /* name_ok: checked, a name BTF can hold */
#define SF_FIXED 2u        /* name_ok: not UTF-8, written as fixed[] holds it */

typedef struct btf_writer {
	tk_timebase out_tb;
	int convert;             /* input ticks != output ticks */
	int rounding;            /* no exact unit: times rounded down to ps */
	uint64_t nrounded, nevents;
	uint8_t *name_ok;        /* per string id: SF_NAME_OK, SF_FIXED */
	uint32_t cap_name_ok;
	/* per string id with SF_FIXED: the name with its bytes that are
	 * not UTF-8 as U+FFFD (tk_writer_text()) */
	struct fixed_str { size_t n; char p[]; } **fixed;
	uint32_t cap_fixed;
	int any_fixed;           /* a name may be written otherwise than
				  * the trace holds it: fixed[], or the
				  * placeholder core */
	/* per string id: 0 unchecked, 1 not a spec spelling, 2 + n the
	 * spec's spelling of type / event n */
	uint8_t *ty_spell, *ev_spell;
	uint32_t cap_ty, cap_ev;
	const uint8_t (*allowed)[TK_EV_COUNT];
	uint64_t last_time;      /* the last time written */
	uint64_t nlines;         /* lines written so far (header included) */
	const char *cycles;      /* tk_trace_cycle_unit(): ticks are cycles */
	int as_read;             /* option as-read=1: names as read (cat) */
	/* the placeholder core of a process's state change from a task on
	 * no known core: "Core_unknown" unless the trace names another
	 * entity so ("Core_unknown_2" ...); made at its first use */
	char unk_core[32];
	size_t n_unk_core;
	/* so that the output reads back to itself: a reader takes the
	 * placeholder for a core, and a process's state change from a
	 * source of no known type ("[c/0000]") on no known core for one on
	 * its target's last core, else on the trace's only core; such a
	 * change is written from the placeholder where the output read back
	 * would put it there (unk_tgt[id]: target id's state changed from the
	 * placeholder; real_core: an event was written from a core) */
	uint8_t *unk_tgt;
	uint32_t cap_unk_tgt;
	int real_core;
	tk_losses lost;
} btf_writer;

/* The coarsest unit in which every tick of `tb` is a whole number. */
static int pick_unit(const tk_timebase *tb, tk_timebase *out)
{
	int u;

	for (u = TK_UNIT_S; u >= TK_UNIT_PS; u--) {
		tk_timebase cand = { (tk_unit)u, 1, 1 };
		uint64_t one;
		if (tk_time_convert(1, tb, &cand, TK_ROUND_EXACT, &one) == TK_OK) {
			*out = cand;
			return TK_OK;
		}
	}
	return TK_E_RANGE;
}

static int put(tk_writer *w, const char *s, size_t n, tk_error *err)
{
	btf_writer *bw = w->impl;
	const char *p = s, *e = s + n;

	while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		bw->nlines++;
		p++;
	}
	return tk_sink_write(&w->sink, s, n, err);
}

static int puts_(tk_writer *w, const char *s, tk_error *err)
{
	return put(w, s, strlen(s), err);
}

static const char *out_name(const tk_writer *w)
{
	return w->sink.path ? w->sink.path : "<stdout>";
}

static int key_is(const tk_header_entry *h, const char *key)
{
	return h->kind == TK_HDR_PARAM &&
	       tk_ascii_casecmp(h->key, strlen(h->key), key) == 0;
}

/* a, b, c, d and a line end */
static int put_line(tk_writer *w, const char *a, const char *b,
		    const char *c, const char *d, tk_error *err)
{
	int rc = puts_(w, a, err);

	if (rc == TK_OK)
		rc = puts_(w, b, err);
	if (rc == TK_OK)
		rc = puts_(w, c, err);
	if (rc == TK_OK)
		rc = puts_(w, d, err);
	if (rc == TK_OK)
		rc = puts_(w, "\n", err);
	return rc;
}

static int write_entry(tk_writer *w, const tk_header_entry *h,
		       const char *value, tk_error *err)
{
	const char *v;
	size_t n;
	int rc;

	/* the UTF-8 rule of every writer (keys are read up to a blank:
	 * only the value can be anything) */
	if ((rc = tk_writer_text(w, value, strlen(value), &v, &n, err)) < 0)
		return rc;
	if (h->kind == TK_HDR_COMMENT)
		return put_line(w, "#", "", "", v, err);
	return put_line(w, h->kind == TK_HDR_ROW ? "#-" : "#", h->key,
			h->has_value ? " " : "", v, err);
}

/* Whether a #version value is below 2.2 (the 2.1 default of ns holds). */
static int version_before_22(const char *v)
{
	while (*v == ' ')
		v++;
	return v[0] == '1' || (v[0] == '2' && v[1] == '.' &&
			       (v[2] == '0' || v[2] == '1') &&
			       (v[3] < '0' || v[3] > '9'));
}

/*
 * A BTF input's header, as the specification allows it: #version first
 * and once; a second header block (a #version again, as Trace Compass
 * writes) merged into the first: its entries whose key the header already
 * has are dropped (counted when their value differs), the others kept;
 * #timescale spelled in lower case, and written when 2.2+ requires it.
 */
static int write_btf_header(tk_writer *w, btf_writer *bw, tk_error *err)
{
	const tk_trace *t = w->trace;
	const char *unit = tk_unit_name(bw->out_tb.unit);
	size_t i, j, n = tk_trace_header_count(t), first_version = n;
	int rc = TK_OK, has_ts = 0, old = 0, block = 0;

	for (i = 0; i < n; i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		if (key_is(h, "version") && first_version == n) {
			first_version = i;
			old = version_before_22(h->value);
		}
		has_ts |= key_is(h, "timescale");
	}
	if (first_version < n)
		rc = write_entry(w, tk_trace_header(t, first_version),
				 tk_trace_header(t, first_version)->value, err);
	else
		rc = puts_(w, "#version 2.2.1\n", err);
	for (i = 0; i < n && rc == TK_OK; i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		int seen = 0, same = 0;
		if (i == first_version)
			continue;
		/* a table row, mapping or #creationDate that only lenient
		 * reading took (the strict reader refuses it) */
		if (tk_trace_header_departs(t, i)) {
			if (w->opts.strict)
				return tk_err_set(err, TK_E_UNSUPPORTED,
						  out_name(w), 0, 0,
						  "BTF cannot hold the header entry '#%s%.40s%s%.40s', which the specification does not allow (outside strict mode it is dropped with a warning)",
						  h->kind == TK_HDR_ROW ? "-" : "",
						  h->key, h->has_value ? " " : "",
						  h->value);
			if (!bw->lost.n[L_BADHDR]++)
				snprintf(bw->lost.first[L_BADHDR],
					 sizeof(bw->lost.first[L_BADHDR]),
					 "'#%s%.24s%s%.24s'",
					 h->kind == TK_HDR_ROW ? "-" : "",
					 h->key, h->has_value ? " " : "",
					 h->value);
			continue;
		}
		if (key_is(h, "version"))
			block = 1;
		if (block && h->kind == TK_HDR_PARAM) {
			for (j = 0; j < i && !seen; j++) {
				const tk_header_entry *g = tk_trace_header(t, j);
				if (g->kind == TK_HDR_PARAM &&
				    tk_ascii_casecmp(g->key, strlen(g->key),
						     h->key) == 0) {
					seen = 1;
					same = strcmp(g->value, h->value) == 0;
				}
			}
		}
		if (seen) {
			if (same)
				continue;
			if (w->opts.strict)
				return tk_err_set(err, TK_E_UNSUPPORTED,
						  out_name(w), 0, 0,
						  "BTF cannot hold a second header block: its '#%.40s %.40s' differs from the first block's (outside strict mode it is dropped with a warning)",
						  h->key, h->value);
			if (!bw->lost.n[L_HEADER]++)
				snprintf(bw->lost.first[L_HEADER],
					 sizeof(bw->lost.first[L_HEADER]),
					 "'#%.24s %.24s'", h->key, h->value);
			continue;
		}
		if (key_is(h, "timescale"))
			rc = put_line(w, "#timescale ", unit, "", "", err);
		else
			rc = write_entry(w, h, h->value, err);
	}
	if (rc == TK_OK && !has_ts && !(old && bw->out_tb.unit == TK_UNIT_NS))
		rc = put_line(w, "#timescale ", unit, "", "", err);
	return rc;
}

static int write_header(tk_writer *w, btf_writer *bw, tk_error *err)
{
	const tk_trace *t = w->trace;
	size_t i, n = tk_trace_header_count(t);
	int rc = TK_OK;

	/* a BTF input's header, or the one a trace built in code was given
	 * (tk_trace_add_header(): a frame read from BTF written back) */
	if ((strcmp(tk_trace_format(t), "btf") == 0 ||
	     (strcmp(tk_trace_format(t), "api") == 0 && n > 0)) && !bw->as_read)
		return write_btf_header(w, bw, err);
	if (strcmp(tk_trace_format(t), "btf") == 0) {
		/* as read: every entry in order */
		for (i = 0; i < n && rc == TK_OK; i++) {
			const tk_header_entry *h = tk_trace_header(t, i);
			rc = write_entry(w, h, h->value, err);
		}
		return rc;
	}
	rc = put_line(w, "#version 2.2.1\n#creator tracekit " TK_VERSION_STRING
		      "\n#timescale ", tk_unit_name(bw->out_tb.unit), "", "",
		      err);
	if (rc == TK_OK && bw->cycles)
		rc = put_line(w, "#tarmacTimeUnit ", bw->cycles, "", "", err);
	return rc;
}

static int btf_writer_open(tk_writer *w, tk_error *err)
{
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	btf_writer *bw = calloc(1, sizeof(*bw));
	int rc;

	if (!bw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = bw;
	bw->allowed = tk_model_event_table();
	bw->lost.format = "BTF";
	bw->lost.what = loss_what;
	bw->lost.brief = loss_short;
	bw->lost.nkinds = L_COUNT;
	if (w->opts.options && *w->opts.options) {
		if (strcmp(w->opts.options, "as-read=1") == 0)
			bw->as_read = 1;
		else if (strcmp(w->opts.options, "as-read=0") != 0)
			return tk_err_set(err, TK_E_USAGE, out_name(w), 0, 0,
					  "unknown BTF writer option '%.40s' (as-read=0|1)",
					  w->opts.options);
	}
	if (tb->num == 1 && tb->den == 1) {
		bw->out_tb = *tb;
	} else if (pick_unit(tb, &bw->out_tb) < 0) {
		/*
		 * No BTF unit holds every tick (a cycle of a 367483 kHz clock):
		 * strict mode refuses; lenient mode writes whole picoseconds,
		 * rounded down, and counts the times that were rounded.
		 */
		if (w->opts.strict)
			return tk_err_set(err, TK_E_RANGE,
					  w->sink.path ? w->sink.path : "<stdout>", 0, 0,
					  "the time base %llu/%llu %s has no exact BTF time scale (lenient mode rounds to ps with a warning)",
					  (unsigned long long)tb->num,
					  (unsigned long long)tb->den,
					  tk_unit_name(tb->unit));
		bw->out_tb.unit = TK_UNIT_PS;
		bw->out_tb.num = 1;
		bw->out_tb.den = 1;
		bw->rounding = 1;
	}
	bw->convert = tb->num != 1 || tb->den != 1 || tb->unit != bw->out_tb.unit;
	/* BTF's time scales are ps to s: cycles are written as the trace's
	 * ticks (1 ns each), and #tarmacTimeUnit says what they are (a BTF
	 * input keeps that line as it was read) */
	if (strcmp(tk_trace_format(w->trace), "btf") != 0)
		bw->cycles = tk_trace_cycle_unit(w->trace);
	if (bw->cycles && w->opts.strict && !bw->as_read)
		return tk_err_set(err, TK_E_UNSUPPORTED, out_name(w), 0, 0,
				  "BTF has no time scale in cycles (ps, ns, us, ms or s): the trace's times are '%.16s' cycles; outside strict mode they are written as ns, one per cycle, with a warning",
				  bw->cycles);
	if (w->opts.no_header)
		return TK_OK;
	rc = write_header(w, bw, err);
	return rc;
}

typedef struct fixed_str fixed_str;

/* Names must not hold what would break the CSV line. */
static int check_name(tk_writer *w, btf_writer *bw, tk_str s, int note,
		      tk_error *err)
{
	size_t n;
	const char *p;

	if (s < bw->cap_name_ok && (bw->name_ok[s] & SF_NAME_OK))
		return TK_OK;
	p = tk_trace_str(w->trace, s, &n);
	if (memchr(p, '\n', n) || memchr(p, '\r', n) ||
	    (!note && memchr(p, ',', n)))
		return tk_err_set(err, TK_E_UNSUPPORTED,
				  w->sink.path ? w->sink.path : "<stdout>", 0, 0,
				  "name '%.40s' holds a comma or line break, which BTF cannot hold",
				  p);
	if (tk_grow_zero32((void **)&bw->name_ok, &bw->cap_name_ok, s, 1) < 0)
		return tk_err_nomem(err, w->sink.path);
	if (TK_UNLIKELY(!tk_utf8_valid(p, n))) {
		/* the UTF-8 rule of every writer: counted once per name */
		const char *f;
		size_t fn;
		int rc = tk_writer_text(w, p, n, &f, &fn, err);
		if (rc < 0)
			return rc;
		if (tk_grow_zero32((void **)&bw->fixed, &bw->cap_fixed, s,
				   sizeof(*bw->fixed)) < 0 ||
		    !(bw->fixed[s] = malloc(sizeof(fixed_str) + fn)))
			return tk_err_nomem(err, w->sink.path);
		bw->fixed[s]->n = fn;
		memcpy(bw->fixed[s]->p, f, fn);
		bw->name_ok[s] |= SF_FIXED;
		bw->any_fixed = 1;
	}
	bw->name_ok[s] |= SF_NAME_OK;
	return TK_OK;
}

/* A name that is not UTF-8: its repaired bytes (check_name()). */
static TK_NOINLINE void fixed_name(const btf_writer *bw, tk_str s,
				   const char **p, size_t *n, int *pad)
{
	if (s < bw->cap_name_ok && (bw->name_ok[s] & SF_FIXED)) {
		*p = bw->fixed[s]->p;
		*n = bw->fixed[s]->n;
		*pad = 0;
	}
}

/* Count a change; in strict mode it is an error. */
static int lose(tk_writer *w, btf_writer *bw, int kind, const tk_event *ev,
		tk_error *err)
{
	return tk_loss_add(&bw->lost, w, out_name(w), kind, ev, err);
}

/* The placeholder core's name: one no entity of another type has. */
static void unknown_core(const tk_trace *t, btf_writer *bw)
{
	unsigned k;

	for (k = 1; bw->n_unk_core == 0; k++) {
		uint32_t id;
		int n = k == 1 ? snprintf(bw->unk_core, sizeof(bw->unk_core),
					  "Core_unknown")
			       : snprintf(bw->unk_core, sizeof(bw->unk_core),
					  "Core_unknown_%u", k);
		id = tk_trace_entity_find(t, bw->unk_core, (size_t)n);
		if (id >= t->nents || tk_trace_ent(t, id)->type == TK_ET_C ||
		    tk_trace_ent(t, id)->type == TK_ET_UNKNOWN)
			bw->n_unk_core = (size_t)n;
	}
}

/*
 * Whether string s is the specification's spelling of type k (what 0) or
 * of event k (what 1): looked up once per string, then read from a table.
 */
static int spec_spelling(tk_writer *w, btf_writer *bw, tk_str s, int what,
			 unsigned k)
{
	uint8_t **arr = what ? &bw->ev_spell : &bw->ty_spell;
	uint32_t *cap = what ? &bw->cap_ev : &bw->cap_ty;

	if (TK_LIKELY(s < *cap && (*arr)[s]))
		return (*arr)[s] == 2 + k;
	if (tk_grow_zero32((void **)arr, cap, s, 1) < 0)
		return 0; /* no memory: the canonical name is as good */
	{
		int dialect = 0;
		unsigned v = 1;
		size_t n;
		const char *p = tk_trace_str(w->trace, s, &n);
		tk_etype t;
		tk_evkind e;
		if (what) {
			e = tk_evkind_lookup(p, n, &dialect);
			if (e != TK_EV_OTHER && !dialect)
				v = 2 + (unsigned)e;
		} else if (tk_etype_lookup(p, n, &t, &dialect) && !dialect) {
			v = 2 + (unsigned)t;
		}
		(*arr)[s] = (uint8_t)v;
		return v == 2 + k;
	}
}

/*
 * An event BTF does not define for its type as it is: the closest type and
 * event BTF has (1), or dropped and counted (0), or an error (strict).
 * *as_note: an ATF user event, written as a stimulus trigger whose note
 * is the event's name.
 */
static int map_event(tk_writer *w, btf_writer *bw, const tk_event *ev,
		     tk_etype *type, tk_evkind *kind, int *as_note,
		     tk_error *err)
{
	tk_etype ty = tk_etype_closest(w->trace, ev->type, ev->type_name);
	/* a kind outside the enum (an event made in code) is no kind */
	tk_evkind k = (unsigned)ev->kind < TK_EV_COUNT ? ev->kind : TK_EV_OTHER;
	int rc;

	if (tk_etype_is_user(w->trace, ty, ev->type_name)) {
		ty = TK_ET_STI;
		k = TK_EV_TRIGGER;
		*as_note = 1;
	}
	if (k == TK_EV_STOP && (tk_etype_is_process(ty) || ty == TK_ET_R ||
				ty == TK_ET_IB))
		k = TK_EV_TERMINATE;
	if ((unsigned)ty >= TK_ET_COUNT || ty == TK_ET_OTHER ||
	    ty == TK_ET_UNKNOWN)
		return (rc = lose(w, bw, L_TYPE, ev, err)) < 0 ? rc : 0;
	if (bw->allowed[ty][k] != 1)
		return (rc = lose(w, bw, L_EVENT, ev, err)) < 0 ? rc : 0;
	*type = ty;
	*kind = k;
	return 1;
}

/* ---- data lines --------------------------------------------------------- */

/*
 * The bytes of string s for a line (tk_trace_str(), without the call):
 * *pad is set when the pool's padding lets them be copied as
 * TK_STRPOOL_PAD bytes whatever their length.
 */
static inline const char *str_of(const tk_trace *t, tk_str s, size_t *n,
				 int *pad)
{
	if (TK_LIKELY(s < t->pool.count)) {
		const char *p = tk_strpool_get(&t->pool, s, n);
		*pad = *n <= TK_STRPOOL_PAD;
		return p;
	}
	*pad = 0;
	return tk_trace_str(t, s, n);
}

/* Copy n bytes to o, which has TK_STRPOOL_PAD bytes of room past them:
 * short pool strings as one fixed-size copy (two words, no call). */
static inline char *put_bytes(char *o, const char *p, size_t n, int pad)
{
	if (TK_LIKELY(pad))
		memcpy(o, p, TK_STRPOOL_PAD);
	else
		memcpy(o, p, n);
	return o + n;
}

/* Whether a note holds a line break (notes are short: a loop beats two
 * memchr() calls; long ones get memchr()). */
static inline int has_line_break(const char *p, size_t n)
{
	size_t i;

	if (n > 32)
		return memchr(p, '\n', n) || memchr(p, '\r', n);
	for (i = 0; i < n; i++)
		if (p[i] == '\n' || p[i] == '\r')
			return 1;
	return 0;
}


/* a time BTF cannot hold (`beyond`: beyond its 64-bit times, else not
 * exact in its unit); the event's input position in the message unless
 * the writer names the input (tk_writer_opts.input) */
static TK_NOINLINE int time_error(tk_writer *w, const tk_event *ev, int rc,
				  int beyond, tk_error *err)
{
	const btf_writer *bw = w->impl;
	char at[48] = "";

	if (!tk_writer_locates(w, ev))
		snprintf(at, sizeof(at), " (input position %llu)",
			 (unsigned long long)ev->pos);
	return tk_err_set(err, rc, out_name(w), 0, 0,
			  beyond ? "a time of %llu ticks%s is beyond BTF's 64-bit times in %s"
				 : "a time of %llu ticks%s cannot be written exactly in %s",
			  (unsigned long long)ev->time, at,
			  tk_unit_name(bw->out_tb.unit));
}
static int btf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	btf_writer *bw = w->impl;
	const tk_trace *t = w->trace;
	const tk_entity *src, *tgt;
	const char *sn, *tn, *gn, *en;
	size_t need, nsrc, ntgt, ntn, nen;
	int psrc, ptgt, ptn, pen;
	uint64_t time = ev->time;
	char *o, *start, *heap = NULL;
	const char *note = ev->note;
	size_t note_len = ev->note_len;
	tk_etype type = ev->type;
	tk_evkind kind = (unsigned)ev->kind < TK_EV_COUNT ? ev->kind
							: TK_EV_OTHER;
	int64_t tinst = ev->target_inst;
	int64_t src_inst = ev->source_inst;
	int rc, as_note = 0, unk_src = 0;

	if (ev->source >= t->nents || ev->target >= t->nents)
		return tk_err_set(err, TK_E_USAGE, w->sink.path, 0, 0,
				  "event refers to an unknown entity");
	src = tk_trace_ent(t, ev->source);
	tgt = tk_trace_ent(t, ev->target);
	/* THR, SYSC and OTHER (the last types) are never written as they are */
	if (TK_UNLIKELY((unsigned)type >= TK_ET_THR ||
			bw->allowed[type][kind] != 1) && !bw->as_read) {
		rc = map_event(w, bw, ev, &type, &kind, &as_note, err);
		if (rc <= 0)
			return rc;
	}
	/* an entity has one type: an event of a BTF input that used its
	 * target as a second one (lenient reading kept the first) would
	 * make a file that --strict refuses */
	if (TK_UNLIKELY(ev->type != tgt->type) && tgt->type != TK_ET_UNKNOWN &&
	    !bw->as_read && strcmp(tk_trace_format(t), "btf") == 0)
		return (rc = lose(w, bw, L_TWO_TYPES, ev, err)) < 0 ? rc : 0;
	if (TK_UNLIKELY(bw->convert)) {
		rc = tk_time_convert(ev->time, tk_trace_timebase(t), &bw->out_tb,
				     TK_ROUND_EXACT, &time);
		bw->nevents++;
		if (rc == TK_E_RANGE && bw->rounding) {
			rc = tk_time_convert(ev->time, tk_trace_timebase(t),
					     &bw->out_tb, TK_ROUND_DOWN, &time);
			bw->nrounded += rc == TK_OK;
		}
		if (rc < 0)
			return time_error(w, ev, rc,
					  tk_time_convert(ev->time, tk_trace_timebase(t),
							  &bw->out_tb, TK_ROUND_DOWN,
							  &time) < 0, err);
	}
	if (TK_UNLIKELY(src->type != TK_ET_C) && !bw->as_read &&
	    tk_implied_source_type(type, kind) == TK_ET_C) {
		/* a process's state change comes from its core (a dialect
		 * writes the task that ran before): written from the core it
		 * was read on; where none is known, a source of no known type
		 * as it is (the core's place: BTF's readers take it as one),
		 * any other from a placeholder core, counted */
		if (ev->core < t->nents) {
			src = tk_trace_ent(t, ev->core);
			src_inst = 0;
		} else if (src->type != TK_ET_UNKNOWN ||
			   (bw->n_unk_core &&
			    ((ev->target < bw->cap_unk_tgt &&
			      bw->unk_tgt[ev->target]) || !bw->real_core))) {
			if (src->type != TK_ET_UNKNOWN &&
			    (rc = lose(w, bw, L_SOURCE, ev, err)) < 0)
				return rc;
			if (!bw->n_unk_core)
				unknown_core(t, bw);
			if (tk_grow_zero32((void **)&bw->unk_tgt,
					   &bw->cap_unk_tgt, ev->target, 1) < 0)
				return tk_err_nomem(err, out_name(w));
			bw->unk_tgt[ev->target] = 1;
			bw->any_fixed = 1; /* the name written is not src's */
			unk_src = 1;
			src_inst = 0;
			src = tgt; /* its name checked, then replaced */
		}
	}
	if (TK_UNLIKELY(!bw->real_core) && src->type == TK_ET_C)
		bw->real_core = 1;
	if (TK_UNLIKELY(time < bw->last_time) && !bw->as_read) {
		/* BTF's times do not decrease */
		if ((rc = lose(w, bw, L_TIME, ev, err)) < 0)
			return rc;
		time = bw->last_time;
	}
	bw->last_time = time;
	if (TK_UNLIKELY(tinst == TK_INST_NONE) && !bw->as_read) {
		if ((rc = lose(w, bw, L_INST, ev, err)) < 0)
			return rc;
		tinst = 0;
	}
	if (TK_UNLIKELY(
		    (src->name >= bw->cap_name_ok ||
		     !(bw->name_ok[src->name] & SF_NAME_OK)) ||
		    (tgt->name >= bw->cap_name_ok ||
		     !(bw->name_ok[tgt->name] & SF_NAME_OK)))) {
		if ((rc = check_name(w, bw, src->name, 0, err)) < 0 ||
		    (rc = check_name(w, bw, tgt->name, 0, err)) < 0)
			return rc;
	}
	sn = str_of(t, src->name, &nsrc, &psrc);
	gn = str_of(t, tgt->name, &ntgt, &ptgt);
	if (TK_UNLIKELY(bw->any_fixed)) {
		fixed_name(bw, src->name, &sn, &nsrc, &psrc);
		fixed_name(bw, tgt->name, &gn, &ntgt, &ptgt);
		if (unk_src) {
			sn = bw->unk_core;
			nsrc = bw->n_unk_core;
			psrc = 0;
		}
	}
	if (ev->type_name != TK_NONE &&
	    (bw->as_read ||
	     spec_spelling(w, bw, ev->type_name, 0, (unsigned)type))) {
		tn = str_of(t, ev->type_name, &ntn, &ptn);
	} else {
		tn = tk_etype_name(type);
		ntn = strlen(tn);
		ptn = 0;
	}
	if (TK_UNLIKELY(as_note)) {
		/* the event's name is the stimulus's note */
		if (note && (rc = lose(w, bw, L_NOTE, ev, err)) < 0)
			return rc;
		note = ev->name != TK_NONE
			       ? tk_trace_str(t, ev->name, &note_len)
			       : tk_evkind_name(ev->kind);
		if (ev->name == TK_NONE)
			note_len = strlen(note);
	}
	if (ev->name != TK_NONE &&
	    (bw->as_read || spec_spelling(w, bw, ev->name, 1, (unsigned)kind))) {
		en = str_of(t, ev->name, &nen, &pen);
	} else {
		en = tk_evkind_name(kind);
		nen = strlen(en);
		pen = 0;
	}
	if (note && TK_UNLIKELY(!tk_utf8_valid(note, note_len)) &&
	    (rc = tk_writer_text(w, note, note_len, &note, &note_len, err)) < 0)
		return rc;
	if (TK_UNLIKELY(note && has_line_break(note, note_len)))
		return tk_err_set(err, TK_E_UNSUPPORTED, w->sink.path, 0, 0,
				  "a note holds a line break, which BTF cannot hold");
	need = 20 + 1 + nsrc + 1 + 21 + 1 + ntn + 1 + ntgt + 1 + 21 + 1 +
	       nen + 1 + (note ? note_len : 0) + 1;
	if (TK_UNLIKELY(need > w->sink.cap)) {
		/* longer than the buffer: made apart, then written in pieces */
		heap = malloc(need);
		if (!heap)
			return tk_err_nomem(err, w->sink.path);
		start = o = heap;
		psrc = ptgt = ptn = pen = 0;
	} else {
		start = o = tk_sink_reserve(&w->sink, need, err);
		if (!o)
			return TK_E_IO;
		/* a word copy writes up to TK_STRPOOL_PAD bytes past a name:
		 * only with that much room left (the buffer is flushed where
		 * it always was, so output goes out in the same pieces) */
		if (TK_UNLIKELY(w->sink.cap - w->sink.len <
				need + TK_STRPOOL_PAD))
			psrc = ptgt = ptn = pen = 0;
	}
	o = tk_put_u64(o, time);
	*o++ = ',';
	o = put_bytes(o, sn, nsrc, psrc);
	*o++ = ',';
	if (src_inst != TK_INST_NONE)
		o = tk_put_i64(o, src_inst);
	*o++ = ',';
	o = put_bytes(o, tn, ntn, ptn);
	*o++ = ',';
	o = put_bytes(o, gn, ntgt, ptgt);
	*o++ = ',';
	if (tinst != TK_INST_NONE)
		o = tk_put_i64(o, tinst);
	*o++ = ',';
	o = put_bytes(o, en, nen, pen);
	if (note) {
		*o++ = ',';
		memcpy(o, note, note_len);
		o += note_len;
	}
	*o++ = '\n';
	bw->nlines++;
	if (TK_LIKELY(!heap)) {
		w->sink.len += (size_t)(o - start);
		return TK_OK;
	}
	/* the readers' limit (TK_LINE_MAX, its line end not counted) is the
	 * writer's: what one writes, the other reads */
	if ((size_t)(o - start) - 1 > TK_LINE_MAX)
		rc = tk_err_set(err, TK_E_UNSUPPORTED, out_name(w), bw->nlines,
				0, "line of %zu bytes, longer than the %zu a BTF reader accepts",
				(size_t)(o - start) - 1, (size_t)TK_LINE_MAX);
	else
		rc = tk_sink_write(&w->sink, start, (size_t)(o - start), err);
	free(heap);
	return rc;
}

static int btf_writer_close(tk_writer *w, tk_error *err)
{
	btf_writer *bw = w->impl;
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	tk_error wn;

	if (bw->n_unk_core) {
		/* an entity of another type named as the placeholder core,
		 * read after the placeholder was first written: BTF's names
		 * are one entity's each */
		uint32_t id = tk_trace_entity_find(w->trace, bw->unk_core,
						   bw->n_unk_core);
		const tk_entity *e = id < w->trace->nents
					     ? tk_trace_ent(w->trace, id)
					     : NULL;
		if (e && e->type != TK_ET_C && e->type != TK_ET_UNKNOWN)
			return tk_err_set(err, TK_E_UNSUPPORTED, out_name(w), 0, 0,
					  "the placeholder core '%s' of a process's state change on no known core is also the %s '%s' of the trace",
					  bw->unk_core, tk_etype_name(e->type),
					  bw->unk_core);
	}
	tk_loss_report(&bw->lost, w, out_name(w));
	if (bw->cycles && w->opts.on_warning) {
		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", out_name(w));
		snprintf(wn.msg, sizeof(wn.msg),
			 "BTF has no time scale in cycles: the times are '%.16s' cycles, written as #timescale ns, one per cycle (#tarmacTimeUnit %.16s says so)%s",
			 bw->cycles, bw->cycles,
			 bw->as_read ? "" : " (strict mode refuses)");
		w->opts.on_warning(w->opts.warning_ctx, &wn);
	}
	if (!bw->nrounded || !w->opts.on_warning)
		return TK_OK;
	memset(&wn, 0, sizeof(wn));
	snprintf(wn.input, sizeof(wn.input), "%s",
		 w->sink.path ? w->sink.path : "<stdout>");
	snprintf(wn.msg, sizeof(wn.msg),
		 "BTF cannot hold everything: no BTF time scale is exact for ticks of %llu/%llu %s; %llu of %llu times rounded down to whole ps%s",
		 (unsigned long long)tb->num, (unsigned long long)tb->den,
		 tk_unit_name(tb->unit), (unsigned long long)bw->nrounded,
		 (unsigned long long)bw->nevents,
		 bw->as_read ? "" : " (strict mode refuses)"); /* cat: as read, never strict */
	w->opts.on_warning(w->opts.warning_ctx, &wn);
	return TK_OK;
}

static void btf_writer_free(tk_writer *w)
{
	btf_writer *bw = w->impl;

	if (bw) {
		uint32_t i;
		for (i = 0; bw->fixed && i < bw->cap_fixed; i++)
			free(bw->fixed[i]);
		free(bw->fixed);
		free(bw->name_ok);
		free(bw->ty_spell);
		free(bw->ev_spell);
		free(bw->unk_tgt);
		free(bw);
	}
	w->impl = NULL;
}

const tk_format_ops tk_format_btf = {
	.info = {
		.name = "btf",
		.extensions = "btf",
		.description = "Best Trace Format 1.0-2.3 (CSV text; APP4MC, Trace Compass, TA Tool Suite)",
		.caps = TK_CAP_READ | TK_CAP_WRITE | TK_CAP_STREAM,
	},
	.probe = btf_probe,
	.reader_open = btf_reader_open,
	.reader_next = btf_reader_next,
	.reader_next_batch = btf_reader_next_batch,
	.reader_close = btf_reader_close,
	.reader_options = 1,
	.writer_open = btf_writer_open,
	.writer_options = 1,
	.writer_write = btf_writer_write,
	.writer_close = btf_writer_close,
	.writer_free = btf_writer_free,
};
