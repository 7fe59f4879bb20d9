/*
 * analysis.c - the analyses of tracekit.stats(), tracekit.load(),
 * tracekit.check() and tracekit.verify(): the rows `tracekit
 * stats|load|check|verify` print, from the same library calls (tk_stats_*,
 * tk_load_*, tk_check_*, tk_verify_*; analysis.h).
 *
 * Each C function returns (columns, rows): a list of column names and a
 * list of tuples, one per row in the command's order, with the values as
 * the command writes them turned into numbers (int where the text is a
 * whole number, float where it has a decimal point, None where the cell is
 * empty) and, in the columns named "<column>_exact", the exact values as
 * fractions.Fraction (what --exact writes).  python/tracekit/_analysis.py
 * makes them DataFrames or lists of dicts.
 */
#include "pytk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the analyses' event calls as pytk_feed() callbacks */
static int feed_stats(void *st, const tk_event *ev, tk_error *err)
{
	return tk_stats_event(st, ev, err);
}

static int feed_load(void *l, const tk_event *ev, tk_error *err)
{
	return tk_load_event(l, ev, err);
}

static int feed_check(void *chk, const tk_event *ev, tk_error *err)
{
	return tk_check_event(chk, ev, err);
}

static int feed_verify(void *v, const tk_event *ev, tk_error *err)
{
	return tk_verify_event(v, ev, err);
}

static PyObject *fraction_of_str;   /* fractions.Fraction */

/* the command's text of a value as a number: None for "" (no value) or
 * "?" (could not be written), int for a whole number, float for a
 * decimal */
static PyObject *num_of(const char *s)
{
	if (!s[0] || !strcmp(s, "?"))
		Py_RETURN_NONE;
	if (strchr(s, '.') || strchr(s, '/')) {
		PyObject *str = PyUnicode_FromString(s), *f;

		if (!str)
			return NULL;
		f = PyFloat_FromString(str);
		Py_DECREF(str);
		return f;
	}
	return PyLong_FromString(s, NULL, 10);
}

/* the exact text of a value ("12.5", "64001/3", "-1/3") as a Fraction;
 * None for "" or "?" */
static PyObject *frac_of(const char *s)
{
	if (!s[0] || !strcmp(s, "?"))
		Py_RETURN_NONE;
	return PyObject_CallFunction(fraction_of_str, "s", s);
}

static PyObject *name_of(const char *s, size_t n)
{
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "surrogateescape");
}

/* append `row` (a new reference, stolen) to list `rows`: 0 or -1 */
static int add_row(PyObject *rows, PyObject *row)
{
	int rc;

	if (!row)
		return -1;
	rc = PyList_Append(rows, row);
	Py_DECREF(row);
	return rc;
}

/* a list of str from a tuple of C strings */
static PyObject *str_list(const char *const *names, size_t n, PyObject *more)
{
	PyObject *l = PyList_New(0), *s;
	size_t i;

	if (!l)
		return NULL;
	for (i = 0; i < n; i++) {
		s = PyUnicode_FromString(names[i]);
		if (!s || PyList_Append(l, s) < 0) {
			Py_XDECREF(s);
			Py_DECREF(l);
			return NULL;
		}
		Py_DECREF(s);
	}
	if (more) {
		Py_ssize_t k;

		for (k = 0; k < PyList_GET_SIZE(more); k++)
			if (PyList_Append(l, PyList_GET_ITEM(more, k)) < 0) {
				Py_DECREF(l);
				return NULL;
			}
	}
	return l;
}

/* a dict of reader keywords, copied (pytk_reader_open() empties it) */
static PyObject *reader_kwargs(PyObject *kw)
{
	if (!kw || kw == Py_None)
		return PyDict_New();
	if (!PyDict_Check(kw)) {
		PyErr_SetString(PyExc_TypeError, "reader keywords: expected a dict");
		return NULL;
	}
	return PyDict_Copy(kw);
}

/* ------------------------------------------------------------------------ */
/* stats                                                                     */
/* ------------------------------------------------------------------------ */

#define PCT_MAX 64

static const char *const stats_cols[] = {
	"entity", "type", "metric", "count", "min", "avg", "max", "unit",
	"max_instance", "max_at"
};

static PyObject *py_stats(PyObject *self, PyObject *args)
{
	PyObject *source, *pcts = Py_None, *kwin = NULL, *kw = NULL, *ret = NULL;
	PyObject *cols = NULL, *rows = NULL, *pnames = NULL, *row = NULL;
	pytk_reader pr;
	tk_stats *st = NULL;
	const tk_trace *t;
	const char *cyc;      /* the trace's ticks are cycles: its unit */
	tk_error err;
	uint32_t p[PCT_MAX];
	size_t np = 0, i, j;
	int rc, opened = 0;
	char v[4][256], x[4][256];
	char (*pbuf)[2][256] = NULL;

	(void)self;
	if (!PyArg_ParseTuple(args, "OOO:_stats", &source, &pcts, &kwin))
		return NULL;
	/* percentiles: a sequence of (millionths of a percent, column name) */
	if (!(pnames = PyList_New(0)))
		goto out;
	if (pcts != Py_None) {
		PyObject *seq = PySequence_Fast(pcts, "percentiles: expected a sequence");
		Py_ssize_t k;

		if (!seq)
			goto out;
		if (PySequence_Fast_GET_SIZE(seq) > PCT_MAX) {
			Py_DECREF(seq);
			pytk_raise_msg(TK_E_USAGE, "percentiles: at most %d of them", PCT_MAX);
			goto out;
		}
		for (k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
			PyObject *it = PySequence_Fast_GET_ITEM(seq, k), *name;
			unsigned long m;

			if (!PyArg_ParseTuple(it, "kU:percentile", &m, &name)) {
				Py_DECREF(seq);
				goto out;
			}
			if (m == 0 || m > 100000000ul) {
				Py_DECREF(seq);
				pytk_raise_msg(TK_E_USAGE, "percentiles: above 0 and at most 100");
				goto out;
			}
			p[np++] = (uint32_t)m;
			if (PyList_Append(pnames, name) < 0) {
				Py_DECREF(seq);
				goto out;
			}
		}
		Py_DECREF(seq);
	}
	if (np && !(pbuf = PyMem_Calloc(np, sizeof *pbuf))) {
		PyErr_NoMemory();
		goto out;
	}
	if (!(kw = reader_kwargs(kwin)))
		goto out;
	if (pytk_reader_open(&pr, source, kw, 1) < 0)
		goto out;
	opened = 1;
	t = tk_reader_trace(pr.r);
	cyc = tk_trace_cycle_unit(t);
	tk_error_clear(&err);
	if ((rc = tk_stats_new(&st, t, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (np && (rc = tk_stats_set_percentiles(st, p, np)) < 0) {
		pytk_raise_msg(rc, "percentiles: cannot be set");
		goto out;
	}
	/* the reading and the figures run without the GIL (pytk_on_warning()
	 * takes it for a warning) */
	if ((rc = pytk_feed(&pr, feed_stats, st, NULL, NULL, &err)) < 0) {
		if (!PyErr_Occurred())
			pytk_raise(rc, &err);
		goto out;
	}
	if ((rc = tk_stats_finish(st, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}

	/* columns: the command's, then the percentiles, then the exact ones */
	if (!(cols = str_list(stats_cols, sizeof stats_cols / sizeof *stats_cols, pnames)))
		goto out;
	{
		static const char *const ex[] = { "min_exact", "avg_exact", "max_exact",
						   "max_at_exact" };
		PyObject *more = str_list(ex, 4, NULL);

		if (!more)
			goto out;
		for (j = 0; j < np; j++) {
			PyObject *n = PyUnicode_FromFormat("%U_exact", PyList_GET_ITEM(pnames, (Py_ssize_t)j));

			if (!n || PyList_Append(more, n) < 0) {
				Py_XDECREF(n);
				Py_DECREF(more);
				goto out;
			}
			Py_DECREF(n);
		}
		for (j = 0; j < (size_t)PyList_GET_SIZE(more); j++)
			if (PyList_Append(cols, PyList_GET_ITEM(more, (Py_ssize_t)j)) < 0) {
				Py_DECREF(more);
				goto out;
			}
		Py_DECREF(more);
	}
	if (!(rows = PyList_New(0)))
		goto out;
	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *s = tk_stats_get(st, i);
		const char *name, *ty = s->chain ? "CHAIN" : tk_etype_name(s->type);
		size_t nlen = 0, col = 0;
		static const tk_stat_field fields[3] = { TK_STAT_MIN, TK_STAT_AVG, TK_STAT_MAX };
		const tk_timebase *tb = tk_trace_timebase(t);

		name = tk_stats_row_name(st, i, &nlen);
		if (!name) {
			name = "";
			nlen = 0;
		}
		for (j = 0; j < 3; j++) {
			if (tk_stats_format(st, i, fields[j], TK_UNIT_NS, v[j], sizeof v[j]) < 0)
				strcpy(v[j], "?");
			if (tk_stats_format_exact(st, i, fields[j], TK_UNIT_NS, x[j], sizeof x[j]) < 0)
				strcpy(x[j], "?");
		}
		for (j = 0; j < np; j++) {
			tk_stat_field f = (tk_stat_field)(TK_STAT_PCT0 + j);

			if (tk_stats_format(st, i, f, TK_UNIT_NS, pbuf[j][0], sizeof pbuf[j][0]) < 0)
				strcpy(pbuf[j][0], "?");
			if (tk_stats_format_exact(st, i, f, TK_UNIT_NS, pbuf[j][1], sizeof pbuf[j][1]) < 0)
				strcpy(pbuf[j][1], "?");
		}
		/* max_at: the time of the max's event, when there is a max */
		if (!v[2][0]) {
			v[3][0] = x[3][0] = '\0';
		} else {
			if (tk_time_format_decimal(s->max_time, tb, TK_UNIT_NS, v[3], sizeof v[3]) < 0)
				strcpy(v[3], "?");
			if (tk_time_format(s->max_time, tb, TK_UNIT_NS, x[3], sizeof x[3]) < 0)
				strcpy(x[3], "?");
		}
		if (!(row = PyTuple_New((Py_ssize_t)(10 + 4 + 2 * np))))
			goto out;
#define SET(val) do { PyObject *o_ = (val); if (!o_) goto out; \
		PyTuple_SET_ITEM(row, (Py_ssize_t)col, o_); col++; } while (0)
		SET(name_of(name, nlen));
		SET(PyUnicode_FromString(ty));
		SET(PyUnicode_FromString(tk_metric_name(s->metric)));
		SET(PyLong_FromUnsignedLongLong(s->count));
		SET(num_of(v[0]));
		SET(num_of(v[1]));
		SET(num_of(v[2]));
		SET(PyUnicode_FromString(!tk_metric_is_time(s->metric) ? "1" : cyc ? cyc
					 : tk_unit_name(TK_UNIT_NS)));
		if (s->max_inst == TK_INST_NONE || !v[2][0])
			SET(Py_NewRef(Py_None));
		else
			SET(PyLong_FromLongLong(s->max_inst));
		SET(num_of(v[3]));
		for (j = 0; j < np; j++)
			SET(num_of(pbuf[j][0]));
		SET(frac_of(x[0]));
		SET(frac_of(x[1]));
		SET(frac_of(x[2]));
		SET(frac_of(x[3]));
		for (j = 0; j < np; j++)
			SET(frac_of(pbuf[j][1]));
#undef SET
		rc = add_row(rows, row);
		row = NULL;
		if (rc < 0)
			goto out;
	}
	ret = PyTuple_Pack(2, cols, rows);
out:
	Py_XDECREF(row);
	Py_XDECREF(cols);
	Py_XDECREF(rows);
	Py_XDECREF(pnames);
	Py_XDECREF(kw);
	PyMem_Free(pbuf);
	tk_stats_free(st);
	if (opened)
		pytk_reader_close(&pr);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* load                                                                      */
/* ------------------------------------------------------------------------ */

/* at most this many windows, as the command (cmd_load.c) */
#define LOAD_MAX_WINDOWS 10000000u

typedef struct load_ctx {
	const tk_trace *t;
	const tk_timebase *tb;
	tk_load *l;
	FILE *win;          /* the windows: start, end, ncores, busy[ncores], ... */
	int win_err;
	uint64_t nwindows;
	PyObject *rows;
} load_ctx;

/* the windows wait in a temporary file until every core is known, as the
 * command's (memory stays flat however many there are) */
static int on_window(void *ctx, uint64_t start, uint64_t end, const uint64_t *busy,
		     size_t ncores)
{
	load_ctx *x = ctx;
	uint64_t h[3];

	if (++x->nwindows > LOAD_MAX_WINDOWS)
		return TK_E_RANGE;
	if (x->win_err)
		return TK_OK;
	if (!x->win && !(x->win = tmpfile())) {
		x->win_err = 1;
		return TK_OK;
	}
	h[0] = start;
	h[1] = end;
	h[2] = ncores;
	if (fwrite(h, sizeof h, 1, x->win) != 1 ||
	    (ncores && fwrite(busy, sizeof *busy, ncores, x->win) != ncores))
		x->win_err = 1;
	return TK_OK;
}

/* tk_load_set_limit() at LOAD_MAX_WINDOWS, the span read ahead from the
 * file of `source`; a Trace read whole into memory (read once: standard
 * input, a pipe) or "-" has its windows counted as they come */
static int load_limit(tk_load *l, const pytk_reader *pr, PyObject *source,
		      tk_error *err)
{
	PyObject *pathb = NULL;
	const char *path = NULL;
	int rc;

	if (!(pytk_TraceType && PyObject_TypeCheck(source, pytk_TraceType) &&
	      ((pytk_trace_head *)source)->data)) {
		if (!(pathb = PyUnicode_EncodeFSDefault(pr->path)))
			return TK_E_NOMEM; /* the Python exception set */
		if (strcmp(PyBytes_AS_STRING(pathb), "-") != 0)
			path = PyBytes_AS_STRING(pathb);
	}
	rc = tk_load_set_limit(l, LOAD_MAX_WINDOWS, path, &pr->opts, err);
	Py_XDECREF(pathb);
	return rc;
}

static PyObject *entity_name(const tk_trace *t, uint32_t id)
{
	const tk_entity *e;
	const char *s;
	size_t n = 1;

	if (id == TK_NONE)
		Py_RETURN_NONE;
	e = tk_trace_entity(t, id);
	s = e ? tk_trace_str(t, e->name, &n) : "?";
	return name_of(s, n);
}

/* a time in ns: as written (a number), and exact (a Fraction) */
static int put_time(const load_ctx *x, PyObject *row, Py_ssize_t at, Py_ssize_t at_exact,
		    uint64_t ticks)
{
	char buf[256];
	PyObject *o;

	if (tk_time_format_decimal(ticks, x->tb, TK_UNIT_NS, buf, sizeof buf) < 0)
		strcpy(buf, "?");
	if (!(o = num_of(buf)))
		return -1;
	PyTuple_SET_ITEM(row, at, o);
	if (tk_time_format(ticks, x->tb, TK_UNIT_NS, buf, sizeof buf) < 0)
		strcpy(buf, "?");
	if (!(o = frac_of(buf)))
		return -1;
	PyTuple_SET_ITEM(row, at_exact, o);
	return 0;
}

static const char *const load_cols[] = {
	"kind", "start", "end", "core", "entity", "busy", "length", "percent",
	"start_exact", "end_exact", "busy_exact", "length_exact", "percent_exact"
};

/* one row: kind,start,end,core,entity,busy,length,percent (csv_row) */
static int load_row(const load_ctx *x, const char *kind, uint64_t start, uint64_t end,
		    uint64_t len, uint32_t core, uint32_t ent, uint64_t busy)
{
	PyObject *row = PyTuple_New(13), *o;
	char buf[64];

	if (!row)
		return -1;
	if (!(o = PyUnicode_FromString(kind)))
		goto fail;
	PyTuple_SET_ITEM(row, 0, o);
	if (put_time(x, row, 1, 8, start) < 0 || put_time(x, row, 2, 9, end) < 0)
		goto fail;
	if (!(o = entity_name(x->t, core)))
		goto fail;
	PyTuple_SET_ITEM(row, 3, o);
	if (!(o = entity_name(x->t, ent)))
		goto fail;
	PyTuple_SET_ITEM(row, 4, o);
	if (put_time(x, row, 5, 10, busy) < 0 || put_time(x, row, 6, 11, len) < 0)
		goto fail;
	/* the share: none where the span is empty */
	if (len) {
		PyObject *b, *l, *h, *bh;

		tk_share_format(busy, len, buf, sizeof buf);
		if (!(o = num_of(buf)))
			goto fail;
		PyTuple_SET_ITEM(row, 7, o);
		b = PyLong_FromUnsignedLongLong(busy);
		l = PyLong_FromUnsignedLongLong(len);
		h = PyLong_FromLong(100);
		bh = b && h ? PyNumber_Multiply(b, h) : NULL;
		o = bh && l ? PyObject_CallFunctionObjArgs(fraction_of_str, bh, l, NULL) : NULL;
		Py_XDECREF(b);
		Py_XDECREF(l);
		Py_XDECREF(h);
		Py_XDECREF(bh);
		if (!o)
			goto fail;
		PyTuple_SET_ITEM(row, 12, o);
	} else {
		PyTuple_SET_ITEM(row, 7, Py_NewRef(Py_None));
		PyTuple_SET_ITEM(row, 12, Py_NewRef(Py_None));
	}
	return add_row(x->rows, row);
fail:
	Py_DECREF(row);
	return -1;
}

/* the window argument: an int of ticks, or a duration str ("10ms") or a
 * str of a whole number of ticks, as the command's --window */
static int parse_window(PyObject *w, const tk_timebase *tb, uint64_t *out)
{
	tk_timebase from = { TK_UNIT_NS, 1, 1 };
	const char *s;
	uint64_t v;
	tk_unit u;

	if (PyBool_Check(w))
		goto bad;
	if (PyLong_Check(w)) {
		*out = PyLong_AsUnsignedLongLong(w);
		if (PyErr_Occurred()) {
			PyErr_Clear();
			goto bad;
		}
		if (*out)
			return 0;
		goto bad;
	}
	if (!PyUnicode_Check(w)) {
		PyErr_Format(PyExc_TypeError, "window: expected a str (\"10ms\") or an int of "
			     "ticks, not %.100s", Py_TYPE(w)->tp_name);
		return -1;
	}
	if (!(s = PyUnicode_AsUTF8(w)))
		return -1;
	if (tk_duration_parse(s, -1, &v, &u) == TK_OK) {
		from.unit = u;
		if (tk_time_convert(v, &from, tb, TK_ROUND_EXACT, out) < 0)
			goto bad;
	} else {
		/* a bare number: ticks */
		unsigned long long n;
		char *end;

		if (*s < '0' || *s > '9')
			goto bad;
		errno = 0;
		n = strtoull(s, &end, 10);
		if (*end || errno == ERANGE)
			goto bad;
		*out = (uint64_t)n;
	}
	if (*out)
		return 0;
bad:
	{
		PyObject *r = PyObject_Repr(w);

		pytk_raise_msg(TK_E_USAGE, "bad window %s (a positive whole number of the "
			       "trace's ticks, such as \"10ms\" or an int of ticks)",
			       r ? PyUnicode_AsUTF8(r) : "?");
		Py_XDECREF(r);
		return -1;
	}
}

static PyObject *py_load(PyObject *self, PyObject *args)
{
	PyObject *source, *window = Py_None, *idle = Py_None, *kwin = NULL, *kw = NULL;
	PyObject *ret = NULL, *cols = NULL, *idle_l = NULL;
	const char **pat = NULL;
	size_t npat = 0, i, j, n, q, cap = 0;
	uint64_t *busy = NULL;
	pytk_reader pr;
	load_ctx x;
	tk_load *l = NULL;
	const uint32_t *ecores;
	const uint64_t *ebusy;
	tk_error err;
	uint64_t win = 0, first, last, length, idle_all = 0;
	int rc, opened = 0;

	(void)self;
	memset(&x, 0, sizeof x);
	if (!PyArg_ParseTuple(args, "OOOO:_load", &source, &window, &idle, &kwin))
		return NULL;
	if (idle != Py_None) {
		if (PyUnicode_Check(idle))
			idle_l = PyTuple_Pack(1, idle);
		else
			idle_l = PySequence_Tuple(idle);
		if (!idle_l) {
			if (PyErr_ExceptionMatches(PyExc_TypeError)) {
				PyErr_Clear();
				PyErr_Format(PyExc_TypeError, "idle: expected a str or an iterable "
					     "of str (glob patterns), not %.100s",
					     Py_TYPE(idle)->tp_name);
			}
			goto out;
		}
		npat = (size_t)PyTuple_GET_SIZE(idle_l);
		if (npat && !(pat = PyMem_Calloc(npat, sizeof *pat))) {
			PyErr_NoMemory();
			goto out;
		}
		for (i = 0; i < npat; i++) {
			PyObject *s = PyTuple_GET_ITEM(idle_l, (Py_ssize_t)i);

			if (!PyUnicode_Check(s)) {
				PyErr_Format(PyExc_TypeError, "idle: expected patterns (str), "
					     "found %.100s", Py_TYPE(s)->tp_name);
				goto out;
			}
			if (!(pat[i] = PyUnicode_AsUTF8(s)))
				goto out;
		}
	}
	if (!(kw = reader_kwargs(kwin)))
		goto out;
	if (pytk_reader_open(&pr, source, kw, 1) < 0)
		goto out;
	opened = 1;
	x.t = tk_reader_trace(pr.r);
	x.tb = tk_trace_timebase(x.t);
	if (window != Py_None && parse_window(window, x.tb, &win) < 0)
		goto out;
	tk_error_clear(&err);
	if ((rc = tk_load_new(&l, x.t, win, on_window, &x, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (idle != Py_None && (rc = tk_load_set_idle(l, pat, npat)) < 0) {
		pytk_raise_msg(rc, "idle: cannot be set");
		goto out;
	}
	/* a window far too short for the trace: refused before its windows
	 * are made (the span of a file read ahead), as the command does, not
	 * after ten million of them were written out */
	tk_error_clear(&err);
	if (win && (rc = load_limit(l, &pr, source, &err)) < 0) {
		if (!PyErr_Occurred())
			pytk_raise(rc, &err);
		goto out;
	}
	x.l = l;
	/* without the GIL: on_window() calls no Python, pytk_on_warning()
	 * takes the GIL itself */
	rc = pytk_feed(&pr, feed_load, l, NULL, NULL, &err);
	if (rc == TK_OK)
		rc = tk_load_finish(l, &err);
	if (rc < 0) {
		if (PyErr_Occurred())
			goto out;
		if (rc == TK_E_RANGE && win) { /* load_limit(), on_window() */
			PyObject *r = PyObject_Repr(window);

			pytk_raise_msg(TK_E_RANGE, "load: window %s makes more than %u windows "
				       "of this trace: give a longer window",
				       r ? PyUnicode_AsUTF8(r) : "?", LOAD_MAX_WINDOWS);
			Py_XDECREF(r);
		} else {
			pytk_raise(rc, &err);
		}
		goto out;
	}
	tk_load_span(l, &first, &last);
	length = tk_load_length(l); /* over several time lines, their sum */
	n = tk_load_core_count(l);
	for (i = 0; i < n; i++)
		idle_all |= tk_load_core_idle(l, i);
	if (tk_load_conflicts(l)) {
		uint64_t c = tk_load_conflicts(l);

		if (PyErr_WarnFormat(pytk_TraceWarning, 1, "%llu process event%s named a core "
				     "other than the one %s process ran on: it runs on one core "
				     "at a time, its run there ended", (unsigned long long)c,
				     c == 1 ? "" : "s", c == 1 ? "its" : "their") < 0)
			goto out;
	}
	if (tk_load_takeovers(l)) {
		uint64_t c = tk_load_takeovers(l);

		if (PyErr_WarnFormat(pytk_TraceWarning, 1, "%llu process event%s allocated a core "
				     "another process held (no preempt of it first): its run there "
				     "ended", (unsigned long long)c, c == 1 ? "" : "s") < 0)
			goto out;
	}
	if (!(x.rows = PyList_New(0)) ||
	    !(cols = str_list(load_cols, sizeof load_cols / sizeof *load_cols, NULL)))
		goto out;
	/* the windows, every core known at the end (a core met later had 0) */
	if (x.win_err) {
		pytk_raise_msg(TK_E_IO, "load: cannot keep the windows in a temporary file");
		goto out;
	}
	if (x.win) {
		uint64_t h[3];

		rewind(x.win);
		while (fread(h, sizeof h, 1, x.win) == 1) {
			if (h[2] > cap) {
				uint64_t *nb = PyMem_Realloc(busy, (size_t)h[2] * sizeof *busy);

				if (!nb) {
					PyErr_NoMemory();
					goto out;
				}
				busy = nb;
				cap = (size_t)h[2];
			}
			if (h[2] && fread(busy, sizeof *busy, (size_t)h[2], x.win) != h[2])
				break;
			for (i = 0; i < n; i++)
				if (load_row(&x, "window", h[0], h[1], h[1] - h[0],
					     tk_load_core(l, i), TK_NONE,
					     i < h[2] ? busy[i] : 0) < 0)
					goto out;
		}
		if (ferror(x.win) || !feof(x.win)) {
			pytk_raise_msg(TK_E_IO, "load: cannot read back the windows");
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		if (load_row(&x, "core", first, last, length, tk_load_core(l, i), TK_NONE,
			     tk_load_core_busy(l, i)) < 0)
			goto out;
	for (i = 0; idle_all && i < n; i++)
		if (load_row(&x, "idle", first, last, length, tk_load_core(l, i), TK_NONE,
			     tk_load_core_idle(l, i)) < 0)
			goto out;
	for (j = 0; j < tk_trace_entity_count(x.t); j++) {
		size_t k = tk_load_entity_cores(l, (uint32_t)j, &ecores, &ebusy);

		for (q = 0; q < k; q++)
			if (load_row(&x, "entity", first, last, length, tk_load_core(l, ecores[q]),
				     (uint32_t)j, ebusy[q]) < 0)
				goto out;
	}
	ret = PyTuple_Pack(2, cols, x.rows);
out:
	Py_XDECREF(cols);
	Py_XDECREF(x.rows);
	Py_XDECREF(idle_l);
	Py_XDECREF(kw);
	PyMem_Free(pat);
	if (x.win)
		fclose(x.win);
	PyMem_Free(busy);
	tk_load_free(l);
	if (opened)
		pytk_reader_close(&pr);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* check                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct check_ctx {
	PyObject *rows;
	int failed;
} check_ctx;

static void on_violation(void *ctx, const tk_violation *v)
{
	check_ctx *c = ctx;
	PyObject *row;
	PyGILState_STATE g;

	if (c->failed)
		return;
	/* the check runs with the GIL released: take it for the row */
	g = PyGILState_Ensure();
	row = Py_BuildValue("(KKss)", (unsigned long long)v->pos, (unsigned long long)v->time,
			    tk_rule_name(v->rule), v->msg);
	if (add_row(c->rows, row) < 0)
		c->failed = 1;
	PyGILState_Release(g);
}

static const char *const check_cols[] = { "pos", "time", "rule", "message" };

static PyObject *py_check(PyObject *self, PyObject *args)
{
	PyObject *source, *kwin = NULL, *kw = NULL, *ret = NULL, *cols = NULL, *counts = NULL;
	pytk_reader pr;
	check_ctx cx = { NULL, 0 };
	tk_check *chk = NULL;
	tk_error err;
	uint64_t nevents = 0;
	int rc, opened = 0, k;

	(void)self;
	if (!PyArg_ParseTuple(args, "OO:_check", &source, &kwin))
		return NULL;
	if (!(kw = reader_kwargs(kwin)) || !(cx.rows = PyList_New(0)))
		goto out;
	if (pytk_reader_open(&pr, source, kw, 1) < 0)
		goto out;
	opened = 1;
	tk_error_clear(&err);
	if ((rc = tk_check_new(&chk, tk_reader_trace(pr.r), on_violation, &cx, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	tk_check_set_strict(chk, pr.opts.strict);
	/* without the GIL: on_violation() and pytk_on_warning() take it */
	if ((rc = pytk_feed(&pr, feed_check, chk, &cx.failed, &nevents, &err)) < 0) {
		if (!PyErr_Occurred())
			pytk_raise(rc, &err);
		goto out;
	}
	if (!(counts = PyDict_New()))
		goto out;
	for (k = 0; k < TK_RULE_COUNT; k++) {
		uint64_t c = tk_check_count(chk, (tk_rule)k);
		PyObject *o;

		if (!c)
			continue;
		o = PyLong_FromUnsignedLongLong(c);
		if (!o || PyDict_SetItemString(counts, tk_rule_name((tk_rule)k), o) < 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	if (!(cols = str_list(check_cols, 4, NULL)))
		goto out;
	ret = Py_BuildValue("(OOKO)", cols, cx.rows, (unsigned long long)nevents, counts);
out:
	Py_XDECREF(cols);
	Py_XDECREF(counts);
	Py_XDECREF(cx.rows);
	Py_XDECREF(kw);
	tk_check_free(chk);
	if (opened)
		pytk_reader_close(&pr);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* verify                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const verify_cols[] = {
	"name", "ok", "subject", "value", "bound", "margin", "where", "instance", "time",
	"message"
};

/* a verdict's text field: None where `verify --format json` writes null */
static PyObject *opt_str(const char *s)
{
	if (!s || !*s)
		Py_RETURN_NONE;
	return pytk_str(s, strlen(s));
}

static PyObject *verdict_row(const tk_verdict *d)
{
	PyObject *inst = NULL, *time = NULL, *row = NULL;

	if (d->inst != TK_INST_NONE)
		inst = PyLong_FromLongLong((long long)d->inst);
	else
		inst = Py_NewRef(Py_None);
	if (d->has_time)
		time = PyLong_FromUnsignedLongLong((unsigned long long)d->time);
	else
		time = Py_NewRef(Py_None);
	if (inst && time)
		row = Py_BuildValue("(NONNNNNOON)", pytk_str(d->name, strlen(d->name)),
				    d->ok ? Py_True : Py_False, opt_str(d->subject),
				    opt_str(d->value), opt_str(d->bound), opt_str(d->margin),
				    d->where && *d->where ? name_of(d->where, strlen(d->where))
							    : Py_NewRef(Py_None), inst, time,
				    pytk_str(d->text, strlen(d->text)));
	Py_XDECREF(inst);
	Py_XDECREF(time);
	return row;
}

static PyObject *py_verify(PyObject *self, PyObject *args)
{
	PyObject *source, *reqarg, *kwin = NULL, *kw = NULL, *reqpath = NULL, *rows = NULL;
	PyObject *cols = NULL, *ret = NULL;
	pytk_reader pr;
	tk_reqs *q = NULL;
	tk_verify *v = NULL;
	tk_error err;
	int rc, opened = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "OOO:_verify", &source, &reqarg, &kwin))
		return NULL;
	if (!PyUnicode_FSConverter(reqarg, &reqpath)) {
		if (PyErr_ExceptionMatches(PyExc_TypeError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError, "requirements: expected str, bytes or "
				     "os.PathLike, not %.100s", Py_TYPE(reqarg)->tp_name);
		}
		return NULL;
	}
	if (!(kw = reader_kwargs(kwin)) || !(rows = PyList_New(0)))
		goto out;
	tk_error_clear(&err);
	Py_BEGIN_ALLOW_THREADS
	rc = tk_reqs_read(&q, PyBytes_AS_STRING(reqpath), &err);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (pytk_reader_open(&pr, source, kw, 1) < 0)
		goto out;
	opened = 1;
	if ((rc = tk_verify_new(&v, q, tk_reader_trace(pr.r), &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	/* without the GIL: pytk_on_warning() takes it */
	if ((rc = pytk_feed(&pr, feed_verify, v, NULL, NULL, &err)) < 0) {
		if (!PyErr_Occurred())
			pytk_raise(rc, &err);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = tk_verify_finish(v, &err);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	for (size_t i = 0; i < tk_verify_count(v); i++)
		if (add_row(rows, verdict_row(tk_verify_get(v, i))) < 0)
			goto out;
	if (!(cols = str_list(verify_cols, sizeof verify_cols / sizeof *verify_cols, NULL)))
		goto out;
	ret = Py_BuildValue("(OOn)", cols, rows, (Py_ssize_t)tk_verify_failures(v));
out:
	Py_XDECREF(cols);
	Py_XDECREF(rows);
	Py_XDECREF(kw);
	Py_XDECREF(reqpath);
	tk_verify_free(v);
	tk_reqs_free(q);
	if (opened)
		pytk_reader_close(&pr);
	return ret;
}

static PyObject *py_raise(PyObject *self, PyObject *args)
{
	int code;
	const char *msg;

	(void)self;
	if (!PyArg_ParseTuple(args, "is:_raise", &code, &msg))
		return NULL;
	return pytk_raise_msg(code, "%s", msg);
}

static PyMethodDef analysis_functions[] = {
	{ "_raise", py_raise, METH_VARARGS,
	  "_raise(code, message): raise the tracekit.Error subclass of tk_status "
	  "`code` with `message` (for the module's Python parts)." },
	{ "_stats", py_stats, METH_VARARGS,
	  "_stats(source, percentiles, reader_kwargs) -> (columns, rows)\n\n"
	  "The rows of `tracekit stats` (times in ns); percentiles is None or a "
	  "sequence of (millionths of a percent, column name).  Use tracekit.stats()." },
	{ "_load", py_load, METH_VARARGS,
	  "_load(source, window, idle, reader_kwargs) -> (columns, rows)\n\n"
	  "The rows of `tracekit load --format csv` (times in ns).  Use tracekit.load()." },
	{ "_check", py_check, METH_VARARGS,
	  "_check(source, reader_kwargs) -> (columns, rows, events, counts)\n\n"
	  "The violations `tracekit check` reports.  Use tracekit.check()." },
	{ "_verify", py_verify, METH_VARARGS,
	  "_verify(source, requirements, reader_kwargs) -> (columns, rows, failures)\n\n"
	  "The verdicts of `tracekit verify --format json`.  Use tracekit.verify()." },
	{ NULL, NULL, 0, NULL }
};

int pytk_analysis_init(PyObject *m)
{
	PyObject *fractions = PyImport_ImportModule("fractions");

	if (!fractions)
		return -1;
	fraction_of_str = PyObject_GetAttrString(fractions, "Fraction");
	Py_DECREF(fractions);
	if (!fraction_of_str)
		return -1;
	return PyModule_AddFunctions(m, analysis_functions);
}
