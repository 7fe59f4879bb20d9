/*
 * write.c - tracekit.write() and tracekit.convert(): events from Python
 * into a trace built with the library's API (tk_trace_new,
 * tk_trace_add_header, tk_trace_add_entity) and written by its writers
 * (tk_writer_open/write/close), and a reader piped into a writer as
 * `tracekit convert` does.  A failure aborts the writer: no output file is
 * left (the writers write under a temporary name).
 *
 * python/tracekit/_write.py turns a DataFrame or an iterable of events
 * into the columns _write() takes.
 */
#include "pytk.h"

#include <stdio.h>
#include <string.h>


/* the UTF-8 bytes of str `s` (borrowed pointer, valid while s lives) */
static const char *utf8(PyObject *s, Py_ssize_t *len, const char *what)
{
	const char *p;

	if (!PyUnicode_Check(s)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a str, not %.100s", what,
			     Py_TYPE(s)->tp_name);
		return NULL;
	}
	p = PyUnicode_AsUTF8AndSize(s, len);
	return p;
}

/* the type named `s` as the readers map names (canonical, "ISR",
 * "Processor"); TK_ET_OTHER when the model does not name it */
static tk_etype etype_of(const char *s)
{
	tk_etype e = tk_etype_from_name(s, strlen(s));

	return e == TK_ET_UNKNOWN ? TK_ET_OTHER : e;
}

/* the kind named `s` as the readers map names (canonical, or a
 * producer's spelling: "set_frequency") */
static tk_evkind evkind_of(const char *s)
{
	return tk_evkind_from_name(s, strlen(s));
}

typedef struct wstate {
	tk_trace *t;
	PyObject *ids;     /* dict: name -> entity id */
	PyObject *strs;    /* dict: str -> tk_str */
} wstate;

/* the id of entity `name` (a str), added when new; TK_NONE for None */
static int entity_id(wstate *ws, PyObject *name, tk_etype type, uint32_t *id,
		     const char *what)
{
	PyObject *v;
	const char *s;
	Py_ssize_t n;
	const tk_entity *e;
	uint32_t parent = TK_NONE;
	int rc;

	if (name == Py_None) {
		*id = TK_NONE;
		return 0;
	}
	v = PyDict_GetItemWithError(ws->ids, name);
	if (v) {
		*id = (uint32_t)PyLong_AsUnsignedLong(v);
		goto typed;
	}
	if (PyErr_Occurred())
		return -1;
	if (!(s = utf8(name, &n, what)))
		return -1;
	if (n == 0) {
		pytk_raise_msg(TK_E_USAGE, "%s: an empty entity name", what);
		return -1;
	}
	if ((rc = tk_trace_add_entity(ws->t, s, (size_t)n, TK_ET_UNKNOWN, TK_NONE, id)) < 0) {
		pytk_raise_msg(rc, "%s: entity '%s' cannot be added", what, s);
		return -1;
	}
	v = PyLong_FromUnsignedLong(*id);
	if (!v || PyDict_SetItem(ws->ids, name, v) < 0) {
		Py_XDECREF(v);
		return -1;
	}
	Py_DECREF(v);
typed:
	/* a type learnt from an event where the entity has none */
	if (type != TK_ET_UNKNOWN && (e = tk_trace_entity(ws->t, *id)) &&
	    e->type == TK_ET_UNKNOWN) {
		if (!(s = utf8(name, &n, what)))
			return -1;
		tk_trace_add_entity(ws->t, s, (size_t)n, type, parent, id);
	}
	return 0;
}

static int intern(wstate *ws, PyObject *str, tk_str *out, const char *what)
{
	PyObject *v = PyDict_GetItemWithError(ws->strs, str);
	const char *s;
	Py_ssize_t n;
	int rc;

	if (v) {
		*out = (tk_str)PyLong_AsUnsignedLong(v);
		return 0;
	}
	if (PyErr_Occurred() || !(s = utf8(str, &n, what)))
		return -1;
	if ((rc = tk_trace_intern(ws->t, s, (size_t)n, out)) < 0) {
		pytk_raise_msg(rc, "out of memory");
		return -1;
	}
	v = PyLong_FromUnsignedLong(*out);
	if (!v || PyDict_SetItem(ws->strs, str, v) < 0) {
		Py_XDECREF(v);
		return -1;
	}
	Py_DECREF(v);
	return 0;
}

/* an instance: None or an int */
static int inst_of(PyObject *v, int64_t *out, const char *what)
{
	long long x;

	if (v == Py_None) {
		*out = TK_INST_NONE;
		return 0;
	}
	if (!PyLong_Check(v) || PyBool_Check(v)) {
		PyErr_Format(PyExc_TypeError, "%s: expected an int or None, not %.100s", what,
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	x = PyLong_AsLongLong(v);
	if (x == -1 && PyErr_Occurred())
		return -1;
	if (x == INT64_MIN) {
		pytk_raise_msg(TK_E_RANGE, "%s: %lld is not an instance number", what, x);
		return -1;
	}
	*out = (int64_t)x;
	return 0;
}

/* the header: (kind, key, value) with kind "param", "comment", "row" (or
 * 0, 1, 2) and value None for a key written alone */
static int add_header(tk_trace *t, PyObject *header)
{
	PyObject *seq, *it;
	Py_ssize_t i;
	int ret = -1;

	if (header == Py_None)
		return 0;
	if (!(seq = PySequence_Fast(header, "header: expected a sequence of (kind, key, value)")))
		return -1;
	for (i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		PyObject *kind, *key, *val;
		const char *k, *v = "";
		Py_ssize_t kl, vl = 0;
		long kd;
		int rc;

		it = PySequence_Fast_GET_ITEM(seq, i);
		if (!PyArg_ParseTuple(it, "OOO:header entry", &kind, &key, &val))
			goto out;
		if (PyUnicode_Check(kind)) {
			const char *ks = PyUnicode_AsUTF8(kind);

			if (!ks)
				goto out;
			kd = !strcmp(ks, "param") ? TK_HDR_PARAM : !strcmp(ks, "comment") ? TK_HDR_COMMENT
			     : !strcmp(ks, "row") ? TK_HDR_ROW : -1;
		} else if (PyLong_Check(kind)) {
			kd = PyLong_AsLong(kind);
			if (kd == -1 && PyErr_Occurred())
				goto out;
		} else {
			kd = -1;
		}
		if (kd < 0 || kd > TK_HDR_ROW) {
			pytk_raise_msg(TK_E_USAGE, "header: entry %zd: kind is \"param\", "
				       "\"comment\" or \"row\"", i);
			goto out;
		}
		if (!(k = utf8(key, &kl, "header key")))
			goto out;
		if (val != Py_None && !(v = utf8(val, &vl, "header value")))
			goto out;
		rc = tk_trace_add_header(t, (tk_hdr_kind)kd, k, (size_t)kl, v, (size_t)vl,
					 val != Py_None);
		if (rc < 0) {
			pytk_raise_msg(rc, "header: entry %zd ('%s'): %s", i, k,
				       rc == TK_E_USAGE ? "a line break, or an empty key of a parameter"
				       : "out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	Py_DECREF(seq);
	return ret;
}

/* the entities: dicts (or objects with the keys) name, type, parent; the
 * parents are set once every entity is there */
static int add_entities(wstate *ws, PyObject *ents)
{
	PyObject *seq;
	Py_ssize_t i;
	int pass, ret = -1;

	if (ents == Py_None)
		return 0;
	if (!(seq = PySequence_Fast(ents, "entities: expected a sequence of dicts")))
		return -1;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
			PyObject *e = PySequence_Fast_GET_ITEM(seq, i), *name, *type, *parent;
			tk_etype et = TK_ET_UNKNOWN;
			uint32_t id, pid = TK_NONE;
			const char *s;
			Py_ssize_t n;
			int rc;

			if (!PyDict_Check(e)) {
				PyErr_Format(PyExc_TypeError, "entities: expected dicts with name, "
					     "type, parent, not %.100s", Py_TYPE(e)->tp_name);
				goto out;
			}
			name = PyDict_GetItemString(e, "name");
			type = PyDict_GetItemString(e, "type");
			parent = PyDict_GetItemString(e, "parent");
			if (!name) {
				pytk_raise_msg(TK_E_USAGE, "entities: entry %zd has no name", i);
				goto out;
			}
			if (pass == 0) {
				if (type && type != Py_None) {
					if (!(s = utf8(type, &n, "entity type")))
						goto out;
					et = etype_of(s);
				}
				if (entity_id(ws, name, et, &id, "entities") < 0)
					goto out;
				continue;
			}
			if (!parent || parent == Py_None)
				continue;
			if (entity_id(ws, parent, TK_ET_UNKNOWN, &pid, "entity parent") < 0 ||
			    entity_id(ws, name, TK_ET_UNKNOWN, &id, "entities") < 0 ||
			    !(s = utf8(name, &n, "entities")))
				goto out;
			{
				const tk_entity *te = tk_trace_entity(ws->t, id);

				if (te && te->parent != TK_NONE && te->parent != pid) {
					pytk_raise_msg(TK_E_USAGE, "entities: '%s' has two parents", s);
					goto out;
				}
			}
			if ((rc = tk_trace_add_entity(ws->t, s, (size_t)n, TK_ET_UNKNOWN, pid, &id)) < 0) {
				pytk_raise_msg(rc, "entities: the parent of '%s' cannot be set", s);
				goto out;
			}
		}
	ret = 0;
out:
	Py_DECREF(seq);
	return ret;
}

enum { C_TIME, C_SOURCE, C_SINST, C_TTYPE, C_TARGET, C_TINST, C_EVENT, C_NOTE, C_CORE, C_N };

static const char *const col_names[C_N] = {
	"time", "source", "source_inst", "target_type", "target", "target_inst", "event",
	"note", "core"
};


/*
 * Close the writer (which renames its output into place): 0, or -1 with
 * an exception set, the writer's error, or the warning a filter made an
 * exception while writing or closing (*failed, which the writer's warning
 * callback sets, also during the close), whose output is then removed:
 * no file is left behind either way.
 */
static int close_writer(tk_writer *w, const int *failed, const char *path)
{
	tk_error err;
	int rc;

	tk_error_clear(&err);
	rc = tk_writer_close(w, &err);
	if (*failed) {
		if (rc == TK_OK)
			remove(path);
		return -1;
	}
	if (rc < 0) {
		pytk_raise(rc, &err);
		return -1;
	}
	return 0;
}

/* tk_writer_write() as a pytk_feed() callback */
static int feed_writer(void *w, const tk_event *ev, tk_error *err)
{
	return tk_writer_write(w, ev, err);
}

static PyObject *py_write(PyObject *self, PyObject *args)
{
	PyObject *path, *fmt, *header, *ents, *cols, *pathb = NULL, *fmtb = NULL;
	PyObject *c[C_N], *ret = NULL;
	unsigned long long num, den;
	int unit, rc, k;
	Py_ssize_t n = -1, i;
	tk_timebase tb;
	tk_writer_opts wo;
	tk_writer *w = NULL;
	wstate ws = { NULL, NULL, NULL };
	int failed = 0;   /* a writer's warning made an exception */
	tk_error err;

	(void)self;
	if (!PyArg_ParseTuple(args, "OO(iKK)OOO!:_write", &path, &fmt, &unit, &num, &den, &header,
			      &ents, &PyTuple_Type, &cols))
		return NULL;
	if (PyTuple_GET_SIZE(cols) != C_N) {
		PyErr_SetString(PyExc_TypeError, "_write: 9 columns");
		return NULL;
	}
	for (k = 0; k < C_N; k++) {
		c[k] = PyTuple_GET_ITEM(cols, k);
		if (!PyList_Check(c[k])) {
			PyErr_Format(PyExc_TypeError, "_write: column %s: a list", col_names[k]);
			return NULL;
		}
		if (n >= 0 && PyList_GET_SIZE(c[k]) != n) {
			PyErr_Format(PyExc_ValueError, "column %s: %zd values, not %zd", col_names[k],
				     PyList_GET_SIZE(c[k]), n);
			return NULL;
		}
		n = PyList_GET_SIZE(c[k]);
	}
	if (!(pathb = PyUnicode_EncodeFSDefault(path)))
		goto out;
	tk_writer_opts_init(&wo);
	if (fmt != Py_None) {
		if (!(fmtb = PyUnicode_AsUTF8String(fmt)))
			goto out;
		wo.format = PyBytes_AS_STRING(fmtb);
	} else if (!tk_format_from_path(PyBytes_AS_STRING(pathb))) {
		pytk_raise_msg(TK_E_USAGE, "cannot tell the output format from '%s' (give format=)",
			       PyBytes_AS_STRING(pathb));
		goto out;
	}
	wo.on_warning = pytk_on_warning;
	wo.warning_ctx = &failed;
	tb.unit = (tk_unit)unit;
	tb.num = num;
	tb.den = den;
	tk_error_clear(&err);
	if ((rc = tk_trace_new(&ws.t, &tb, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (!(ws.ids = PyDict_New()) || !(ws.strs = PyDict_New()))
		goto out;
	if (add_header(ws.t, header) < 0 || add_entities(&ws, ents) < 0)
		goto out;
	if ((rc = tk_writer_open(&w, PyBytes_AS_STRING(pathb), ws.t, &wo, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		tk_event ev;
		PyObject *v;
		const char *s;
		Py_ssize_t len;
		char what[64];

		memset(&ev, 0, sizeof ev);
		ev.pos = (uint64_t)i + 1;
		snprintf(what, sizeof what, "event %zd: time", i);
		v = PyList_GET_ITEM(c[C_TIME], i);
		if (!PyLong_Check(v) || PyBool_Check(v)) {
			PyErr_Format(PyExc_TypeError, "%s: expected an int of ticks, not %.100s", what,
				     Py_TYPE(v)->tp_name);
			goto fail;
		}
		ev.time = PyLong_AsUnsignedLongLong(v);
		if (PyErr_Occurred()) {
			PyErr_Clear();
			pytk_raise_msg(TK_E_RANGE, "%s: ticks from 0 to 2**64-1", what);
			goto fail;
		}
		/* the target's type */
		v = PyList_GET_ITEM(c[C_TTYPE], i);
		ev.type = TK_ET_UNKNOWN;
		ev.type_name = TK_NONE;
		if (v != Py_None) {
			snprintf(what, sizeof what, "event %zd: target_type", i);
			if (!(s = utf8(v, &len, what)) || intern(&ws, v, &ev.type_name, what) < 0)
				goto fail;
			ev.type = etype_of(s);
		}
		snprintf(what, sizeof what, "event %zd: source", i);
		if (entity_id(&ws, PyList_GET_ITEM(c[C_SOURCE], i), TK_ET_UNKNOWN, &ev.source, what) < 0)
			goto fail;
		snprintf(what, sizeof what, "event %zd: target", i);
		if (entity_id(&ws, PyList_GET_ITEM(c[C_TARGET], i), ev.type, &ev.target, what) < 0)
			goto fail;
		if (ev.source == TK_NONE || ev.target == TK_NONE) {
			pytk_raise_msg(TK_E_USAGE, "event %zd: no %s", i,
				       ev.source == TK_NONE ? "source" : "target");
			goto fail;
		}
		snprintf(what, sizeof what, "event %zd: core", i);
		if (entity_id(&ws, PyList_GET_ITEM(c[C_CORE], i), TK_ET_C, &ev.core, what) < 0)
			goto fail;
		snprintf(what, sizeof what, "event %zd: source_inst", i);
		if (inst_of(PyList_GET_ITEM(c[C_SINST], i), &ev.source_inst, what) < 0)
			goto fail;
		snprintf(what, sizeof what, "event %zd: target_inst", i);
		if (inst_of(PyList_GET_ITEM(c[C_TINST], i), &ev.target_inst, what) < 0)
			goto fail;
		v = PyList_GET_ITEM(c[C_EVENT], i);
		snprintf(what, sizeof what, "event %zd: event", i);
		if (v == Py_None) {
			pytk_raise_msg(TK_E_USAGE, "%s: no event name", what);
			goto fail;
		}
		if (!(s = utf8(v, &len, what)) || intern(&ws, v, &ev.name, what) < 0)
			goto fail;
		ev.kind = evkind_of(s);
		v = PyList_GET_ITEM(c[C_NOTE], i);
		if (v != Py_None) {
			snprintf(what, sizeof what, "event %zd: note", i);
			if (!(ev.note = utf8(v, &len, what)))
				goto fail;
			if ((size_t)len > UINT32_MAX) {
				pytk_raise_msg(TK_E_RANGE, "%s: too long", what);
				goto fail;
			}
			ev.note_len = (uint32_t)len;
		}
		tk_error_clear(&err);
		rc = tk_writer_write(w, &ev, &err);
		if (failed)
			goto fail;
		if (rc < 0) {
			pytk_raise(rc, &err);
			goto fail;
		}
	}
	rc = close_writer(w, &failed, PyBytes_AS_STRING(pathb));
	w = NULL;
	if (rc < 0)
		goto out;
	ret = PyLong_FromSsize_t(n);
	goto out;
fail:
	tk_writer_abort(w);
	w = NULL;
out:
	Py_XDECREF(pathb);
	Py_XDECREF(fmtb);
	Py_XDECREF(ws.ids);
	Py_XDECREF(ws.strs);
	tk_trace_free(ws.t);
	return ret;
}

/* convert(src, dst, reader_kwargs): as `tracekit convert SRC DST` */
static PyObject *py_convert(PyObject *self, PyObject *args)
{
	PyObject *src, *dst, *kwin, *kw = NULL, *dstp = NULL, *dstb = NULL, *ret = NULL;
	PyObject *inb = NULL;   /* the input's path as bytes (any, not only UTF-8) */
	pytk_reader pr;
	tk_writer_opts wo;
	tk_writer *w = NULL;
	int failed = 0;   /* a writer's warning made an exception */
	tk_error err;
	int rc, opened = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "OOO!:_convert", &src, &dst, &PyDict_Type, &kwin))
		return NULL;
	/* src's type first (the reader opens it below), then dst's */
	if (!(dstp = pytk_source_path(src, "src", 1)))
		goto out;
	Py_CLEAR(dstp);
	if (!(dstp = pytk_source_path(dst, "dst", 0)) || !(dstb = PyUnicode_EncodeFSDefault(dstp)))
		goto out;
	if (!tk_format_from_path(PyBytes_AS_STRING(dstb))) {
		pytk_raise_msg(TK_E_USAGE, "cannot tell the output format from '%s'",
			       PyBytes_AS_STRING(dstb));
		goto out;
	}
	if (!(kw = PyDict_Copy(kwin)))
		goto out;
	if (pytk_reader_open(&pr, src, kw, 1) < 0)
		goto out;
	opened = 1;
	tk_writer_opts_init(&wo);
	wo.strict = pr.opts.strict;
	wo.on_warning = pytk_on_warning;
	wo.warning_ctx = &failed;
	/* an event the output cannot hold is named by its line */
	if (pr.path) {
		if (!(inb = PyUnicode_EncodeFSDefault(pr.path)))
			goto out;
		wo.input = PyBytes_AS_STRING(inb);
	}
	if (wo.input && strcmp(wo.input, "-") == 0)
		wo.input = "<stdin>";
	tk_error_clear(&err);
	if ((rc = tk_writer_open(&w, PyBytes_AS_STRING(dstb), tk_reader_trace(pr.r), &wo, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	/* the copy runs without the GIL (pytk_on_warning() takes it) */
	if ((rc = pytk_feed(&pr, feed_writer, w, &failed, NULL, &err)) < 0) {
		if (!PyErr_Occurred())
			pytk_raise(rc, &err);
		goto fail;
	}
	rc = close_writer(w, &failed, PyBytes_AS_STRING(dstb));
	w = NULL;
	if (rc < 0)
		goto out;
	ret = Py_NewRef(Py_None);
	goto out;
fail:
	tk_writer_abort(w);
	w = NULL;
out:
	Py_XDECREF(kw);
	Py_XDECREF(dstp);
	Py_XDECREF(dstb);
	Py_XDECREF(inb);
	if (opened)
		pytk_reader_close(&pr);
	return ret;
}

static PyMethodDef write_functions[] = {
	{ "_write", py_write, METH_VARARGS,
	  "_write(path, format, (unit, num, den), header, entities, columns) -> int\n\n"
	  "Write the events of `columns` (a tuple of 9 lists: time, source, "
	  "source_inst, target_type, target, target_inst, event, note, core) "
	  "to `path`.  Use tracekit.write()." },
	{ "_convert", py_convert, METH_VARARGS,
	  "_convert(src, dst, reader_kwargs) -> None\n\nUse tracekit.convert()." },
	{ NULL, NULL, 0, NULL }
};

int pytk_write_init(PyObject *m)
{
	return PyModule_AddFunctions(m, write_functions);
}
