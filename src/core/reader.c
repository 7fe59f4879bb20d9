/*
 * reader.c - opening a trace: the byte source, the format (forced, probed
 * from the content, or taken from the name), then the format's reader;
 * or the first two steps alone (tk_input_open()), for a caller that picks
 * the reader by the format.
 */
#define _GNU_SOURCE /* S_ISSOCK */
#include "internal.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROBE_BYTES 4096

void tk_reader_opts_init(tk_reader_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->start_unit = TK_TICKS;
	opts->end_unit = TK_TICKS;
}

/* The sizes tk_reader_opts has had, oldest first (TK_OPTS_TAKE()): before
 * the query, with it. */
static const size_t reader_opts_sizes[] = {
	offsetof(tk_reader_opts, start),
	sizeof(tk_reader_opts)
};

/* A unit field of the query: TK_TICKS or a tk_unit. */
static int bad_unit(int unit)
{
	return unit != TK_TICKS &&
	       (unit < (int)TK_UNIT_PS || unit > (int)TK_UNIT_S);
}

int tk_reader_opts_take(tk_reader_opts *o, const tk_reader_opts *opts,
		     tk_error *err)
{
	int rc = TK_OPTS_TAKE(tk_reader_opts, o, opts, reader_opts_sizes, err);

	if (rc < 0)
		return rc;
	/* the query's fields, whether a window or filter is given or not:
	 * refused before anything is opened */
	if ((o->nentities && !o->entities) || (o->ntypes && !o->types) ||
	    (o->nevents && !o->events))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_reader_opts: a list of names is NULL with a count above 0");
	if ((unsigned)o->window_stop > (unsigned)TK_STOP_NEVER)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_reader_opts: window_stop %d is not a tk_stop",
				  o->window_stop);
	if (bad_unit(o->start_unit) || bad_unit(o->end_unit))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_reader_opts: %s %d is neither TK_TICKS nor a tk_unit",
				  bad_unit(o->start_unit) ? "start_unit" : "end_unit",
				  bad_unit(o->start_unit) ? o->start_unit : o->end_unit);
	return TK_OK;
}

/* The first PROBE_BYTES of `src` (fewer at its end) into *w, consuming
 * nothing. */
static int probe_window(tk_source *src, tk_window *w, tk_error *err)
{
	int rc;

	*w = tk_source_window(src);
	while (w->n < PROBE_BYTES && !tk_source_eof(src)) {
		rc = tk_source_fill(src, PROBE_BYTES, w, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
	}
	return TK_OK;
}

/* Format f's probe (or, `sign`, its sign for a forced format) of the
 * window: 0 when the content is not f's. */
static int probe_one(const tk_format_ops *f, const tk_window *w, int sign)
{
	size_t n = w->n < PROBE_BYTES ? w->n : PROBE_BYTES,
	       bom = tk_text_bom(w->p, n); /* a text's byte-order mark */

	if (sign && f->sign)
		return f->sign(w->p + bom, n - bom);
	return f->probe(w->p + bom, n - bom);
}

/*
 * A forced format is checked by its probe (or its looser sign): an input
 * in which it finds none of the format's signs is refused (TK_E_FORMAT),
 * unless the caller insists (force_format); an empty input has nothing to
 * judge and goes to the reader.
 */
static int check_forced(tk_source *src, const tk_format_ops *f,
			const tk_reader_opts *o, tk_error *err)
{
	const char *d = f->info.description, *paren = strstr(d, " (");
	tk_window w;
	int rc;

	if (o->force_format || !f->probe)
		return TK_OK;
	rc = probe_window(src, &w, err);
	if (rc < 0)
		return rc;
	if (w.n == 0 || probe_one(f, &w, 1) > 0)
		return TK_OK;
	return tk_err_set(err, TK_E_FORMAT, tk_source_name(src), 0, 0,
			  "does not look like %s (%.*s): its probe finds none of the format's signs in the first %zu bytes; tk_reader_opts.force_format reads it as %s anyway",
			  f->info.name,
			  (int)(paren ? (size_t)(paren - d) : strlen(d)), d,
			  w.n < PROBE_BYTES ? w.n : (size_t)PROBE_BYTES,
			  f->info.name);
}

static int pick_format(tk_source *src, const char *path,
		       const tk_reader_opts *o, const tk_format_ops **out,
		       tk_error *err)
{
	const tk_format_ops *best = NULL;
	const tk_format_info *byname;
	tk_window w;
	size_t i;
	int best_score = 0, rc;

	if (o->format) {
		best = tk_format_ops_find(o->format);
		if (!best)
			return tk_err_set(err, TK_E_USAGE, path, 0, 0,
					  "unknown format '%s' (tk_format_get() lists the formats)",
					  o->format);
		if (!(best->info.caps & TK_CAP_READ) || !best->reader_open)
			return tk_err_set(err, TK_E_UNSUPPORTED, path, 0, 0,
					  "format '%s' cannot be read",
					  best->info.name);
		rc = check_forced(src, best, o, err);
		if (rc < 0)
			return rc;
		*out = best;
		return TK_OK;
	}
	rc = probe_window(src, &w, err);
	if (rc < 0)
		return rc;
	for (i = 0; tk_format_ops_get(i); i++) {
		const tk_format_ops *f = tk_format_ops_get(i);
		int score;
		if (!f->probe || !f->reader_open)
			continue;
		score = probe_one(f, &w, 0);
		if (score > best_score) {
			best_score = score;
			best = f;
		}
	}
	if (!best) {
		byname = tk_format_from_path(path);
		if (byname)
			best = tk_format_ops_find(byname->name);
	}
	if (!best || !best->reader_open)
		return tk_err_set(err, TK_E_FORMAT, tk_source_name(src), 0, 0,
				  "cannot tell the format of this input (set tk_reader_opts.format; tk_format_get() lists the formats)");
	*out = best;
	return TK_OK;
}

/* A reader of format `fmt` on `src` (closed on failure), with options
 * checked by tk_reader_opts_take(). */
static int open_on(tk_reader **out, tk_source *src, const tk_format_ops *fmt,
		   const tk_reader_opts *opts, tk_error *err)
{
	tk_reader *r = NULL;
	const char *name = tk_source_name(src);
	int rc;

	if (!fmt->reader_options && opts->options && *opts->options) {
		rc = tk_err_set(err, TK_E_USAGE, name, 0, 0,
				"the %s reader takes no options ('%.40s')",
				fmt->info.name, opts->options);
		goto fail_source;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = tk_err_nomem(err, name);
		goto fail_source;
	}
	r->fmt = fmt;
	r->src = src;
	r->opts = *opts;
	r->trace = tk_trace_alloc(fmt->info.name);
	if (!r->trace) {
		rc = tk_err_nomem(err, name);
		goto fail_reader;
	}
	rc = fmt->reader_open(r, err);
	if (rc < 0)
		goto fail_reader;
	rc = tk_query_open(r, err);
	if (rc < 0) {
		tk_reader_close(r);
		return rc;
	}
	*out = r;
	return TK_OK;

fail_reader:
	tk_trace_free(r->trace);
	free(r);
fail_source:
	tk_source_close(src);
	return rc;
}

/* The format of `src` (see pick_format()), then a reader on it; `o`
 * taken by tk_reader_opts_take(). */
static int pick_and_open(tk_reader **out, tk_source *src, const char *path,
			 const tk_reader_opts *o, tk_error *err)
{
	const tk_format_ops *fmt = NULL;
	tk_error local;           /* the formats always get one */
	int rc;

	if (!err)
		err = &local;
	rc = pick_format(src, path, o, &fmt, err);
	if (rc >= 0 && !fmt)
		rc = tk_err_set(err, TK_E_FORMAT, tk_source_name(src), 0, 0,
				"no format chosen");
	if (rc < 0) {
		tk_source_close(src);
		return rc;
	}
	return open_on(out, src, fmt, o, err);
}

const tk_format_info *tk_format_detect(const char *path, tk_error *err)
{
	tk_reader_opts o;
	const tk_format_ops *fmt = NULL;
	tk_source *src;
	struct stat sb;

	tk_reader_opts_init(&o);
	/* what can be read once (standard input, a pipe, a socket, a
	 * device) is refused before a byte of it is read: the probe would
	 * consume what the reader opened next needs */
	if (path && (strcmp(path, "-") == 0 ||
		     (stat(path, &sb) == 0 && (S_ISFIFO(sb.st_mode) ||
					       S_ISSOCK(sb.st_mode) ||
					       S_ISCHR(sb.st_mode))))) {
		tk_err_set(err, TK_E_USAGE, strcmp(path, "-") ? path : "<stdin>", 0, 0,
			   "%s can be read only once: its format is told by tk_reader_open() or tk_input_open(), which read it from the same bytes",
			   strcmp(path, "-") ? "a pipe or device" : "standard input");
		return NULL;
	}
	if (tk_source_open(&src, path, err) < 0)
		return NULL;
	if (pick_format(src, path, &o, &fmt, err) < 0)
		fmt = NULL;
	tk_source_close(src);
	return fmt ? &fmt->info : NULL;
}

int tk_reader_open(tk_reader **out, const char *path,
		   const tk_reader_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_reader_open", "out pointer");
	tk_reader_opts o;
	tk_source *src;
	int rc;

	*out = NULL;
	rc = tk_reader_opts_take(&o, opts, err);
	if (rc < 0)
		return rc;
	rc = tk_source_open(&src, path, err);
	if (rc < 0)
		return rc;
	return pick_and_open(out, src, path, &o, err);
}

#ifdef TK_TEST_HOOKS
int tk_reader_open_source(tk_reader **out, tk_source *src, const char *path,
			  const tk_reader_opts *opts, tk_error *err)
{
	tk_reader_opts o;
	int rc;

	*out = NULL;
	rc = tk_reader_opts_take(&o, opts, err);
	if (rc < 0) {
		tk_source_close(src);
		return rc;
	}
	return pick_and_open(out, src, path, &o, err);
}
#endif

int tk_reader_open_mem(tk_reader **out, const void *data, size_t len,
		       const char *name, const tk_reader_opts *opts,
		       tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_reader_open_mem", "out pointer");
	tk_reader_opts o;
	tk_source *src;
	int rc;

	*out = NULL;
	rc = tk_reader_opts_take(&o, opts, err);
	if (rc < 0)
		return rc;
	rc = tk_source_open_mem(&src, data, len, name, err);
	if (rc < 0)
		return rc;
	return pick_and_open(out, src, name ? name : "<memory>", &o, err);
}

/* ---- an input opened before its reader is chosen --------------------------- */

int tk_input_open(tk_input **out, const char *path, const char *format,
		  tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_input_open", "out pointer");
	tk_reader_opts o;

	tk_reader_opts_init(&o);
	o.format = format;
	return tk_input_open_opts(out, path, &o, err);
}

int tk_input_open_opts(tk_input **out, const char *path,
		       const tk_reader_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_input_open_opts", "out pointer");
	tk_reader_opts o, given;
	tk_input *in = NULL;
	tk_source *src = NULL;
	int rc;

	*out = NULL;
	rc = tk_reader_opts_take(&given, opts, err);
	if (rc < 0)
		return rc;
	rc = tk_source_open(&src, path, err);
	if (rc < 0)
		return rc;
	in = calloc(1, sizeof(*in));
	if (!in) {
		rc = tk_err_nomem(err, path);
		goto fail;
	}
	tk_reader_opts_init(&o);
	o.format = given.format;
	o.force_format = given.force_format;
	/* the probe fills the window and consumes nothing: whichever reader
	 * is opened on the source next starts at its first byte */
	rc = pick_format(src, path, &o, &in->fmt, err);
	if (rc < 0)
		goto fail;
	in->src = src;
	*out = in;
	return TK_OK;

fail:
	free(in);
	tk_source_close(src);
	return rc;
}

const tk_format_info *tk_input_format(const tk_input *in)
{
	return &in->fmt->info;
}

tk_source *tk_input_release(tk_input *in)
{
	tk_source *src = in->src;

	free(in);
	return src;
}

void tk_input_close(tk_input *in)
{
	if (in)
		tk_source_close(tk_input_release(in));
}

int tk_reader_open_input(tk_reader **out, tk_input *in,
			 const tk_reader_opts *opts, tk_error *err)
{
	if (!out || !in) {
		tk_input_close(in); /* the callee's, also on failure */
		return tk_err_null(err, "tk_reader_open_input", !out ? "out pointer" : "input");
	}
	const tk_format_ops *fmt = in->fmt;
	tk_reader_opts o;
	int rc;

	*out = NULL;
	rc = tk_reader_opts_take(&o, opts, err);
	if (rc < 0) {
		tk_input_close(in);
		return rc;
	}
	return open_on(out, tk_input_release(in), fmt, &o, err);
}

tk_trace *tk_reader_trace(tk_reader *r)
{
	return r->trace;
}

const char *tk_reader_format(const tk_reader *r)
{
	return r->fmt->info.name;
}

/* The largest batch tk_reader_next() asks a batching reader for. */
#define NEXT_BATCH 4096

/* rc from the format: an error is kept and given by every later call
 * (cold: out of the calls' paths) */
static TK_NOINLINE int failed(tk_reader *r, int rc, tk_error *err)
{
	return tk_err_keep(&r->failed, &r->fail_err, rc, err,
			   tk_source_name(r->src), 0, "the reader stopped at an error");
}

/*
 * The parents the events say (tk_entity.parent, tracekit.h): a process (T,
 * I, THR) without a parent takes the core of the first event handed out
 * that names one with the process as its target; a runnable (R) without a
 * parent takes the source of the first event handed out with the runnable
 * as its target whose source is a process (the process that runs it).
 * Once an entity's parent is known, or it is known to take none (a type
 * known where types do not change, r->fixed_types, that is neither a
 * process nor a runnable), r->known spares its later events the look.
 */
static TK_NOINLINE void note_parent(tk_reader *r, const tk_event *ev)
{
	tk_trace *t = r->trace;
	const uint32_t target = ev->target;
	tk_entity *e;

	if (target >= r->nknown) {
		/* out of memory: the entity is looked at every time */
		size_t cap = r->nknown;
		if (tk_grow_zero((void **)&r->known, &cap, t->nents - 1, 1) == 0)
			r->nknown = cap;
	}
	e = tk_trace_ent(t, target);
	if (e->parent == TK_NONE) {
		if (e->type == TK_ET_R) {
			if (ev->source >= t->nents || ev->source == target ||
			    !tk_etype_is_process(tk_trace_ent(t, ev->source)->type))
				return;
			e->parent = ev->source;
		} else if (tk_etype_is_process(e->type)) {
			if (ev->core == TK_NONE || ev->core >= t->nents ||
			    ev->core == target)
				return;
			e->parent = ev->core;
		} else if (!r->fixed_types || e->type == TK_ET_UNKNOWN) {
			return;
		}
	}
	if (target < r->nknown)
		r->known[target] = 1;
}

void tk_reader_note_parents(tk_reader *r, const tk_event *ev, size_t n)
{
	const uint32_t nents = r->trace->nents;
	const uint8_t *known = r->known;
	size_t nknown = r->nknown;

	for (; n--; ev++) {
		const uint32_t target = ev->target;
		/* the tests as bits, not as branches: whether an event has a
		 * core varies from event to event, and a branch on it is
		 * mispredicted; the one branch left is rarely taken */
		int skip = ((ev->core == TK_NONE) & (ev->type != TK_ET_R)) | (target >= nents);

		if (target < nknown)
			skip |= known[target] != 0;
		if (TK_LIKELY(skip))
			continue;
		note_parent(r, ev);
		known = r->known;
		nknown = r->nknown;
	}
}

int tk_reader_raw_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	size_t n;
	int rc;

	if (TK_LIKELY(r->evq != r->evq_end)) {
		*ev = r->evq++;
		return TK_OK;
	}
	if (TK_UNLIKELY(r->failed))
		return failed(r, 0, err);
	if (!err)
		err = &r->noerr;
	if (r->fmt->reader_next) {
		if ((rc = r->fmt->reader_next(r, ev, err)) == TK_OK) {
			tk_reader_note_parents(r, *ev, 1);
			r->ndecoded++;
		}
	} else if ((rc = r->fmt->reader_next_batch(r, ev, &n, NEXT_BATCH, err)) == TK_OK) {
		tk_reader_note_parents(r, *ev, n);
		r->evq = *ev + 1;
		r->evq_end = *ev + n;
		r->ndecoded += n;
	}
	return TK_UNLIKELY(rc < 0) ? failed(r, rc, err) : rc;
}

int tk_reader_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	if (TK_UNLIKELY(r->q != NULL))
		return tk_query_next(r, ev, err);
	return tk_reader_raw_next(r, ev, err);
}

int tk_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			 size_t max, tk_error *err)
{
	if (!max) {
		*n = 0;
		return tk_err_set(err, TK_E_USAGE, tk_source_name(r->src), 0, 0,
				  "tk_reader_next_batch: max is 0 (at least 1 event)");
	}
	if (TK_UNLIKELY(r->q != NULL))
		return tk_query_next_batch(r, evs, n, max, err);
	return tk_reader_raw_next_batch(r, evs, n, max, err);
}

int tk_reader_raw_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			     size_t max, tk_error *err)
{
	size_t k;
	int rc;

	if (r->evq != r->evq_end) {
		/* the rest of a batch that tk_reader_next() began */
		k = (size_t)(r->evq_end - r->evq);
		if (k > max)
			k = max;
		*evs = r->evq;
		r->evq += k;
		*n = k;
		return TK_OK;
	}
	*n = 0;
	if (TK_UNLIKELY(r->failed))
		return failed(r, 0, err);
	if (!err)
		err = &r->noerr;
	if (!r->fmt->reader_next_batch) {
		rc = r->fmt->reader_next(r, evs, err);
		*n = rc == TK_OK ? 1 : 0;
	} else if ((rc = r->fmt->reader_next_batch(r, evs, n, max, err)) != TK_OK) {
		*n = 0;
	}
	if (rc == TK_OK)
		tk_reader_note_parents(r, *evs, *n);
	r->ndecoded += *n;
	return TK_UNLIKELY(rc < 0) ? failed(r, rc, err) : rc;
}

int tk_reader_raw_skip(tk_reader *r, uint64_t start, tk_error *err)
{
	int rc;

	if (!r->fmt->reader_skip || r->evq != r->evq_end || r->failed)
		return TK_OK;
	rc = r->fmt->reader_skip(r, start, err);
	return TK_UNLIKELY(rc < 0) ? failed(r, rc, err) : TK_OK;
}

uint64_t tk_reader_decoded_count(const tk_reader *r)
{
	return r->ndecoded;
}

uint64_t tk_reader_warning_count(const tk_reader *r)
{
	return r->nwarn;
}

void tk_reader_close(tk_reader *r)
{
	if (!r)
		return;
	tk_query_close(r);
	free(r->known);
	if (r->fmt->reader_close)
		r->fmt->reader_close(r);
	tk_source_close(r->src);
	tk_trace_free(r->trace);
	free(r);
}

void tk_reader_warn(tk_reader *r, unsigned kind, uint64_t line,
		    uint32_t column, const char *fmt, ...)
{
	uint64_t bit = 1ull << (kind & 63);
	tk_error w;
	va_list ap;

	r->nwarn++;
	if ((r->warned_kinds & bit) || !r->opts.on_warning)
		return;
	r->warned_kinds |= bit;
	memset(&w, 0, sizeof(w));
	w.code = 0;
	snprintf(w.input, sizeof(w.input), "%s", tk_source_name(r->src));
	w.line = line;
	w.column = column;
	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	r->opts.on_warning(r->opts.warning_ctx, &w);
}

int tk_reader_depart(tk_reader *r, tk_error *err, unsigned kind,
		     uint64_t line, uint32_t column, const char *strict_fmt,
		     const char *lenient_fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, lenient_fmt);
	vsnprintf(msg, sizeof(msg), r->opts.strict ? strict_fmt : lenient_fmt,
		  ap);
	va_end(ap);
	if (!r->opts.strict) {
		tk_reader_warn(r, kind, line, column, "%s", msg);
		return TK_OK;
	}
	return tk_err_set(err, TK_E_PARSE, tk_source_name(r->src), line,
			  column, "%s", msg);
}

int tk_reader_text_open(tk_reader *r, size_t size, unsigned cr_kind,
			const char *cr_error, tk_error *err)
{
	int rc;

	if (!(r->impl = calloc(1, size)))
		return tk_err_nomem(err, tk_source_name(r->src));
	rc = tk_text_begin(r->src, err);
	if (rc <= 0)
		return rc;
	if (!cr_error || !r->opts.strict) {
		tk_reader_warn(r, cr_kind, 1, 0,
			       "lines end with a CR alone (read as line ends)");
		return 1;
	}
	return tk_err_set(err, TK_E_PARSE, tk_source_name(r->src), 1, 0, "%s",
			  cr_error);
}
