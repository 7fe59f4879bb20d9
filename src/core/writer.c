/* writer.c - opening a writer on a format and its all-or-nothing output. */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tk_writer_opts_init(tk_writer_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

/* The sizes tk_writer_opts has had, oldest first (TK_OPTS_TAKE()). */
static const size_t writer_opts_sizes[] = {
	offsetof(tk_writer_opts, input),
	sizeof(tk_writer_opts)
};

int tk_writer_open(tk_writer **out, const char *path, const tk_trace *t,
		   const tk_writer_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_writer_open", "out pointer");
	const tk_format_ops *fmt;
	tk_writer_opts given;
	tk_writer *w;
	int rc;

	*out = NULL;
	rc = TK_OPTS_TAKE(tk_writer_opts, &given, opts, writer_opts_sizes, err);
	if (rc < 0)
		return rc;
	opts = &given;
	if (opts->format) {
		fmt = tk_format_ops_find(opts->format);
		if (!fmt)
			return tk_err_set(err, TK_E_USAGE, path, 0, 0,
					  "unknown format '%s' (tk_format_get() lists the formats)",
					  opts->format);
	} else {
		const tk_format_info *fi = tk_format_from_path(path);
		if (!fi)
			return tk_err_set(err, TK_E_USAGE, path, 0, 0,
					  "cannot tell the output format from the name (set tk_writer_opts.format)");
		fmt = tk_format_ops_find(fi->name);
	}
	if (!(fmt->info.caps & TK_CAP_WRITE) || !fmt->writer_open)
		return tk_err_set(err, TK_E_UNSUPPORTED, path, 0, 0,
				  "format '%s' cannot be written",
				  fmt->info.name);
	if ((fmt->writes_dir || fmt->writes_file) &&
	    tk_sink_compression(path) != TK_SINK_PLAIN)
		return tk_err_set(err, TK_E_USAGE, path, 0, 0,
				  "%s cannot be compressed (%s): drop the .gz/.zst suffix",
				  fmt->info.name,
				  fmt->writes_dir ? "the output is a directory"
						  : "the output is a database file");
	if (!fmt->writer_options && opts->options && *opts->options)
		return tk_err_set(err, TK_E_USAGE,
				  strcmp(path, "-") ? path : "<stdout>", 0, 0,
				  "the %s writer takes no options ('%.40s')",
				  fmt->info.name, opts->options);
	w = calloc(1, sizeof(*w));
	if (!w)
		return tk_err_nomem(err, path);
	w->fmt = fmt;
	w->trace = t;
	w->opts = *opts;
	if (opts->input)
		snprintf(w->input, sizeof(w->input), "%s", opts->input);
	w->opts.input = NULL;  /* w->input: the caller's may not outlive w */
	rc = fmt->writes_dir ? tk_sink_open_dir(&w->sink, path, err)
	   : fmt->writes_file ? tk_sink_open_raw(&w->sink, path, err)
			      : tk_sink_open(&w->sink, path, err);
	if (rc < 0) {
		free(w);
		return rc;
	}
	rc = fmt->writer_open(w, err);
	if (rc < 0) {
		tk_writer_abort(w);
		return rc;
	}
	*out = w;
	return TK_OK;
}

int tk_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		/* ASCII, 8 bytes a step */
		while (n - i >= 8) {
			uint64_t v;
			memcpy(&v, u + i, 8);
			if (v & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i == n)
			break;
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (!(len = tk_utf8_len(u + i, n - i)))
			return 0;
		i += len;
	}
	return 1;
}

/* The output's name in messages. */
static const char *out_name(const tk_writer *w)
{
	return w->sink.path ? w->sink.path : "<stdout>";
}

int tk_writer_text_bad(tk_writer *w, size_t n, tk_error *err)
{
	w->bad_text++;
	if (w->opts.strict)
		return tk_err_set(err, TK_E_UNSUPPORTED,
				  out_name(w), 0, 0,
				  "a name or note of %zu bytes is not UTF-8 (outside strict mode its bad bytes become U+FFFD with a warning)",
				  n);
	return TK_OK;
}

int tk_writer_text(tk_writer *w, const char *s, size_t n, const char **out,
		   size_t *outn, tk_error *err)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, len, k = 0;
	int rc;

	*out = s;
	*outn = n;
	if (TK_LIKELY(tk_utf8_valid(s, n)))
		return TK_OK;
	if ((rc = tk_writer_text_bad(w, n, err)) < 0)
		return rc;
	/* each bad byte becomes 3 */
	if (n > (SIZE_MAX - 1) / 3)
		return tk_err_nomem(err, out_name(w));
	if (w->text_cap < 3 * n + 1) {
		char *nb = realloc(w->text, 3 * n + 1);
		if (!nb)
			return tk_err_nomem(err, out_name(w));
		w->text = nb;
		w->text_cap = 3 * n + 1;
	}
	for (i = 0; i < n; i += len) {
		len = tk_utf8_len(u + i, n - i);
		if (len) {
			memcpy(w->text + k, s + i, len);
			k += len;
		} else {
			memcpy(w->text + k, "\xef\xbf\xbd", 3);
			k += 3;
			len = 1;
		}
	}
	w->text[k] = 0;
	*out = w->text;
	*outn = k;
	return TK_OK;
}

/* After a writer's close: the one warning of the UTF-8 rule; a writer
 * that counted without refusing is refused here under --strict. */
static int text_close(tk_writer *w, tk_error *err)
{
	const char *name = out_name(w);
	tk_error wn;

	if (!w->bad_text)
		return TK_OK;
	if (w->opts.strict)
		return tk_err_set(err, TK_E_UNSUPPORTED, name, 0, 0,
				  "%llu strings are not UTF-8 (outside strict mode their bad bytes become U+FFFD with a warning)",
				  (unsigned long long)w->bad_text);
	if (w->opts.on_warning) {
		memset(&wn, 0, sizeof(wn));
		snprintf(wn.input, sizeof(wn.input), "%s", name);
		snprintf(wn.msg, sizeof(wn.msg),
			 "%llu strings are not UTF-8: their bad bytes are written as %s (strict mode refuses)",
			 (unsigned long long)w->bad_text,
			 w->text_as ? w->text_as : "U+FFFD");
		w->opts.on_warning(w->opts.warning_ctx, &wn);
	}
	return TK_OK;
}

int tk_writer_cycles(tk_writer *w, const char *fmt, tk_error *err)
{
	const char *cyc = tk_trace_cycle_unit(w->trace);

	if (!cyc)
		return TK_OK;
	if (w->opts.strict)
		return tk_err_set(err, TK_E_UNSUPPORTED, out_name(w), 0, 0,
				  "%s has no time unit in cycles: the trace's times are '%.16s' cycles; outside strict mode they are written as ns, one per cycle, with a warning",
				  fmt, cyc);
	w->cycles_as_ns = fmt;
	return TK_OK;
}

/* After a writer's close: the warning of tk_writer_cycles() */
static void cycles_close(tk_writer *w)
{
	tk_error wn;

	if (!w->cycles_as_ns || !w->opts.on_warning)
		return;
	memset(&wn, 0, sizeof(wn));
	snprintf(wn.input, sizeof(wn.input), "%s", out_name(w));
	snprintf(wn.msg, sizeof(wn.msg),
		 "%s has no time unit in cycles: the times are '%.16s' cycles, written as ns, one per cycle (strict mode refuses)",
		 w->cycles_as_ns, tk_trace_cycle_unit(w->trace));
	w->opts.on_warning(w->opts.warning_ctx, &wn);
}

/* A write failed with rc (or, rc 0, had failed before): the writer is
 * given up, and rc and its error are given again by every later write and
 * by the close (cold: out of the writes' path). */
static TK_NOINLINE int write_failed(tk_writer *w, int rc, tk_error *err)
{
	return tk_err_keep(&w->failed, &w->fail_err, rc, err, out_name(w), 0,
			   "an earlier write failed");
}

/* does the input give its events' positions in records (binary)? */
static int pos_records(const tk_writer *w)
{
	const tk_format_ops *in = tk_format_ops_find(w->trace ? w->trace->format
							    : NULL);

	return in && in->pos_records;
}

int tk_writer_locates(const tk_writer *w, const tk_event *ev)
{
	/* a line is from 1 on (0: not known), a record from 0 */
	return w->input[0] && ev && (ev->pos || pos_records(w));
}

int tk_writer_locate(const tk_writer *w, const tk_event *ev, int rc,
		     tk_error *err)
{
	char msg[sizeof(err->msg)];

	if (!err || !tk_writer_locates(w, ev) || err->line || err->has_offset ||
	    strcmp(err->input, w->input) == 0)
		return rc;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	if (pos_records(w))
		return tk_err_set(err, rc, w->input, 0, 0,
				  "record %llu: %s (writing %s)",
				  (unsigned long long)ev->pos, msg, out_name(w));
	return tk_err_set(err, rc, w->input, ev->pos, 0, "%s (writing %s)",
			  msg, out_name(w));
}

int tk_writer_locate_pos(const tk_writer *w, uint64_t pos1, int rc,
			 tk_error *err)
{
	tk_event ev;

	if (!pos1)
		return rc;
	memset(&ev, 0, sizeof(ev));
	ev.pos = pos1 - 1;
	return tk_writer_locate(w, &ev, rc, err);
}

/* entity ent (or TK_NONE) named at position pos, unless before */
static int name_pos(tk_name_pos *np, uint32_t ent, uint64_t pos)
{
	if (ent == TK_NONE)
		return TK_OK;
	if (tk_grow_zero32((void **)&np->pos1, &np->cap, ent,
			   sizeof(*np->pos1)) < 0)
		return TK_E_NOMEM;
	if (!np->pos1[ent])
		np->pos1[ent] = pos + 1;
	return TK_OK;
}

int tk_name_pos_event(tk_name_pos *np, const tk_event *ev)
{
	if (name_pos(np, ev->source, ev->pos) < 0 ||
	    name_pos(np, ev->target, ev->pos) < 0 ||
	    name_pos(np, ev->core, ev->pos) < 0)
		return TK_E_NOMEM;
	return TK_OK;
}

/* write_failed() of event ev's write: an error about the event, one the
 * output cannot hold, located (tk_writer_locate()) */
static TK_NOINLINE int event_failed(tk_writer *w, const tk_event *ev, int rc,
				    tk_error *err)
{
	if (rc == TK_E_RANGE || rc == TK_E_UNSUPPORTED)
		tk_writer_locate(w, ev, rc, err);
	return write_failed(w, rc, err);
}

/* does ev name an entity id (other than TK_NONE) the writer's trace does
 * not have: an event of another trace? */
static inline int names_unknown(const tk_writer *w, const tk_event *ev)
{
	const uint32_t n = w->trace->nents;

	return (ev->source >= n && ev->source != TK_NONE) ||
	       (ev->target >= n && ev->target != TK_NONE) ||
	       (ev->core >= n && ev->core != TK_NONE);
}

/* the error of an event names_unknown() finds: TK_E_USAGE, whatever the
 * format (cold) */
static TK_NOINLINE int unknown_entity(tk_writer *w, const tk_event *ev,
				      tk_error *err)
{
	const uint32_t n = w->trace->nents;
	uint32_t id = ev->source >= n && ev->source != TK_NONE ? ev->source :
		      ev->target >= n && ev->target != TK_NONE ? ev->target : ev->core;

	tk_err_set(err, TK_E_USAGE, out_name(w), 0, 0,
		   "tk_writer_write: the event at position %llu names entity %lu, the trace has %lu entities (an event of another trace?)",
		   (unsigned long long)ev->pos, (unsigned long)id, (unsigned long)n);
	return write_failed(w, TK_E_USAGE, err);
}

int tk_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	int rc;

	if (TK_UNLIKELY(w->failed))
		return write_failed(w, 0, err);
	if (TK_UNLIKELY(names_unknown(w, ev)))
		return unknown_entity(w, ev, err);
	rc = w->fmt->writer_write(w, ev, err);
	return TK_UNLIKELY(rc < 0) ? event_failed(w, ev, rc, err) : rc;
}

int tk_writer_write_batch(tk_writer *w, const tk_event *evs, size_t n,
			  tk_error *err)
{
	size_t i, k;
	int rc = TK_OK;

	if (TK_UNLIKELY(w->failed))
		return write_failed(w, 0, err);
	/* the events before one of another trace are written first: the
	 * error is the one tk_writer_write() of each in turn gives */
	for (k = 0; k < n && !names_unknown(w, &evs[k]); k++)
		;
	w->bad_ev = NULL;
	if (w->fmt->writer_write_batch) {
		rc = k ? w->fmt->writer_write_batch(w, evs, k, err) : TK_OK;
	} else {
		for (i = 0; i < k && rc >= 0; i++)
			rc = w->fmt->writer_write(w, &evs[i], err);
		w->bad_ev = rc < 0 ? &evs[i - 1] : NULL;
	}
	if (TK_UNLIKELY(rc < 0))
		return event_failed(w, w->bad_ev, rc, err);
	return TK_UNLIKELY(k < n) ? unknown_entity(w, &evs[k], err) : TK_OK;
}

int tk_writer_close(tk_writer *w, tk_error *err)
{
	int rc = TK_OK;

	if (!w)
		return TK_OK;
	if (w->failed) {
		/* a write failed: the writer was given up, no file is made */
		rc = write_failed(w, 0, err);
		tk_writer_abort(w);
		return rc;
	}
	if (w->fmt->writer_close)
		rc = w->fmt->writer_close(w, err);
	if (rc >= 0)
		rc = text_close(w, err);
	if (rc >= 0)
		cycles_close(w);
	if (rc >= 0)
		rc = tk_sink_commit(&w->sink, err);
	else
		tk_sink_abort(&w->sink);
	if (w->fmt->writer_free)
		w->fmt->writer_free(w);
	free(w->text);
	free(w);
	return rc;
}

void tk_writer_abort(tk_writer *w)
{
	if (!w)
		return;
	tk_sink_abort(&w->sink);
	if (w->fmt->writer_free)
		w->fmt->writer_free(w);
	free(w->text);
	free(w);
}

struct tk_output {
	tk_sink sink;
};

int tk_output_open(tk_output **out, const char *path, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_output_open", "out pointer");
	tk_output *o;
	int rc;

	*out = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return tk_err_nomem(err, path);
	rc = tk_sink_open(&o->sink, path, err);
	if (rc < 0) {
		free(o);
		return rc;
	}
	*out = o;
	return TK_OK;
}

int tk_output_write(tk_output *o, const void *p, size_t n, tk_error *err)
{
	return tk_sink_write(&o->sink, p, n, err);
}

int tk_output_close(tk_output *o, tk_error *err)
{
	int rc;

	if (!o)
		return TK_OK;
	rc = tk_sink_commit(&o->sink, err);
	free(o);
	return rc;
}

void tk_output_abort(tk_output *o)
{
	if (!o)
		return;
	tk_sink_abort(&o->sink);
	free(o);
}
