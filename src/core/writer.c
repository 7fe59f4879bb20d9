/* writer.c - opening a writer on a format and its all-or-nothing output. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void tk_writer_opts_init(tk_writer_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

int tk_writer_open(tk_writer **out, const char *path, const tk_trace *t,
		   const tk_writer_opts *opts, tk_error *err)
{
	const tk_format_ops *fmt;
	tk_writer_opts defaults;
	tk_writer *w;
	int rc;

	*out = NULL;
	if (!opts) {
		tk_writer_opts_init(&defaults);
		opts = &defaults;
	}
	if (opts->format) {
		fmt = tk_format_ops_find(opts->format);
		if (!fmt)
			return tk_err_set(err, TK_E_USAGE, path, 0, 0,
					  "unknown format '%s' (see 'tracekit formats')",
					  opts->format);
	} else {
		const tk_format_info *fi = tk_format_from_path(path);
		if (!fi)
			return tk_err_set(err, TK_E_USAGE, path, 0, 0,
					  "cannot tell the output format from the name (use --to FORMAT)");
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

int tk_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	return w->fmt->writer_write(w, ev, err);
}

int tk_writer_close(tk_writer *w, tk_error *err)
{
	int rc = TK_OK;

	if (w->fmt->writer_close)
		rc = w->fmt->writer_close(w, err);
	if (rc >= 0)
		rc = tk_sink_commit(&w->sink, err);
	else
		tk_sink_abort(&w->sink);
	if (w->fmt->writer_free)
		w->fmt->writer_free(w);
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
	free(w);
}

struct tk_output {
	tk_sink sink;
};

int tk_output_open(tk_output **out, const char *path, tk_error *err)
{
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
	int rc = tk_sink_commit(&o->sink, err);

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
