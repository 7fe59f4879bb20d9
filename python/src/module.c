/*
 * module.c - tracekit._tracekit: the module, its exceptions and warnings,
 * and the opening of readers from Python arguments (pytk.h).
 */
#include "pytk.h"

#include <stdarg.h>
#include <string.h>

PyObject *pytk_Error;
PyObject *pytk_TraceWarning;
PyTypeObject *pytk_TraceType;

static PyObject *exc_parse, *exc_format, *exc_usage, *exc_range,
	*exc_unsupported, *exc_io, *exc_nomem;
static PyObject *fraction_type;

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *exc_of(int rc)
{
	switch (rc) {
	case TK_E_PARSE: return exc_parse;
	case TK_E_FORMAT: return exc_format;
	case TK_E_USAGE: return exc_usage;
	case TK_E_RANGE: return exc_range;
	case TK_E_UNSUPPORTED: return exc_unsupported;
	case TK_E_IO: return exc_io;
	case TK_E_NOMEM: return exc_nomem;
	default: return pytk_Error;
	}
}

/* obj.name = value (a new reference, stolen); 0 or -1 */
static int set_attr(PyObject *obj, const char *name, PyObject *value)
{
	int rc;

	if (!value)
		return -1;
	rc = PyObject_SetAttrString(obj, name, value);
	Py_DECREF(value);
	return rc;
}

/*
 * The library's messages speak of its API (a library user's words): each
 * phrase of it (left) is said in the keywords of the Python functions
 * (right), as the command says it in its flags'.
 */
static const struct py_words {
	const char *lib, *py;
} py_words[] = {
	{ "(set tk_reader_opts.format; tk_format_get() lists the formats)",
	  "(give format=NAME; 'tracekit formats' lists the formats)" },
	{ "(tk_format_get() lists the formats)", "('tracekit formats' lists the formats)" },
	{ "(set tk_writer_opts.format)", "(give format=NAME)" },
	{ "tk_reader_opts.force_format reads it", "force_format=True reads it" },
	{ "outside strict mode", "without strict=True" },
	{ "strict mode refuses", "strict=True refuses" },
	{ "use a longer load window", "use a longer window=" },
	{ "(read one with the reader option trace=N)", "(read one with trace=N)" },
	{ "ticks (the load window)", "ticks (window=)" },
	{ "with the reader option hz=N", "with hz=N" },
};

/* `in` with the library's phrases in Python's words, as a str (U+FFFD
 * for a byte that starts no UTF-8 sequence: a path, a name); a new
 * reference, or NULL + error */
static PyObject *py_text(const char *in)
{
	char buf[2048];
	size_t o = 0, i, n, nw = sizeof py_words / sizeof py_words[0];

	while (*in && o + 1 < sizeof buf) {
		for (i = 0; i < nw; i++)
			if (!strncmp(in, py_words[i].lib, strlen(py_words[i].lib)))
				break;
		if (i == nw) {
			buf[o++] = *in++;
			continue;
		}
		n = strlen(py_words[i].py);
		if (n > sizeof buf - 1 - o)
			n = sizeof buf - 1 - o;
		memcpy(buf + o, py_words[i].py, n);
		o += n;
		in += strlen(py_words[i].lib);
	}
	buf[o] = '\0';
	return PyUnicode_DecodeUTF8(buf, (Py_ssize_t)o, "replace");
}

static PyObject *u64_or_none(int known, uint64_t v)
{
	if (!known)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

PyObject *pytk_raise(int rc, const tk_error *err)
{
	char line[1024];
	tk_error none;
	PyObject *type, *exc = NULL;

	if (!err || err->code == 0) {
		tk_error_clear(&none);
		none.code = rc;
		snprintf(none.msg, sizeof none.msg, "%s", tk_status_str(rc));
		err = &none;
	}
	if (rc >= 0)
		rc = err->code < 0 ? err->code : TK_E_USAGE;
	type = exc_of(rc);
	tk_error_format(err, "error", line, sizeof line);
	/* the line may quote a path or a name that is no UTF-8: U+FFFD
	 * there, as .message has it (.file keeps the path's bytes) */
	exc = PyObject_CallFunction(type, "N", py_text(line));
	if (!exc)
		return NULL;
	if (set_attr(exc, "code", PyLong_FromLong(rc)) ||
	    set_attr(exc, "file", err->input[0] ? PyUnicode_DecodeFSDefault(err->input)
			    : Py_NewRef(Py_None)) ||
	    set_attr(exc, "line", u64_or_none(err->line != 0, err->line)) ||
	    set_attr(exc, "column", u64_or_none(err->column != 0, err->column)) ||
	    set_attr(exc, "offset", u64_or_none(err->has_offset, err->offset)) ||
	    set_attr(exc, "message", py_text(err->msg)))
		goto out;
	PyErr_SetObject(type, exc);
out:
	Py_DECREF(exc);
	return NULL;
}

PyObject *pytk_raise_msg(int rc, const char *fmt, ...)
{
	tk_error err;
	va_list ap;

	tk_error_clear(&err);
	err.code = rc;
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof err.msg, fmt, ap);
	va_end(ap);
	return pytk_raise(rc, &err);
}

/* ------------------------------------------------------------------------ */
/* Exact values                                                              */
/* ------------------------------------------------------------------------ */

PyObject *pytk_fraction(uint64_t num, uint64_t den)
{
	return PyObject_CallFunction(fraction_type, "KK", (unsigned long long)num,
				     (unsigned long long)den);
}

PyObject *pytk_timebase_seconds(const tk_timebase *tb)
{
	static const uint64_t per_s[] = {
		1000000000000ull, 1000000000ull, 1000000ull, 1000ull, 1ull
	};
	PyObject *f, *d, *r;

	if ((unsigned)tb->unit > TK_UNIT_S)
		return pytk_raise_msg(TK_E_USAGE, "time base of unknown unit %d", (int)tb->unit);
	/* num / (den * per_s): the product may pass 64 bits, Python's ints do not */
	f = pytk_fraction(tb->num, tb->den);
	if (!f)
		return NULL;
	d = PyLong_FromUnsignedLongLong(per_s[tb->unit]);
	if (!d) {
		Py_DECREF(f);
		return NULL;
	}
	r = PyNumber_TrueDivide(f, d);
	Py_DECREF(f);
	Py_DECREF(d);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Readers                                                                   */
/* ------------------------------------------------------------------------ */

void pytk_on_warning(void *ctx, const tk_error *w)
{
	int *failed = ctx;
	char line[1024];
	PyGILState_STATE g;
	PyObject *s;
	const char *u;

	if (*failed)
		return;
	tk_error_format(w, "warning", line, sizeof line);
	/* the reading may run with the GIL released: take it for the call */
	g = PyGILState_Ensure();
	/* a path or a name that is no UTF-8: U+FFFD there, as in errors */
	s = py_text(line);
	u = s ? PyUnicode_AsUTF8(s) : NULL;
	if (!u || PyErr_WarnEx(pytk_TraceWarning, u, 1) < 0)
		*failed = 1;
	Py_XDECREF(s);
	PyGILState_Release(g);
}

PyObject *pytk_source_path(PyObject *source, const char *what, int trace_ok)
{
	PyObject *p, *s;
	int trace = pytk_TraceType && PyObject_TypeCheck(source, pytk_TraceType);

	if (trace && trace_ok)
		return Py_NewRef(((pytk_trace_head *)source)->path);
	p = trace ? NULL : PyOS_FSPath(source);
	if (!p) {
		if (trace || PyErr_ExceptionMatches(PyExc_TypeError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError, "%s: expected str, bytes%s, not %.100s", what,
				     trace_ok ? ", os.PathLike or a tracekit.Trace" : " or os.PathLike",
				     Py_TYPE(source)->tp_name);
		}
		return NULL;
	}
	if (PyBytes_Check(p)) {
		s = PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(p), PyBytes_GET_SIZE(p));
		Py_DECREF(p);
		return s;
	}
	return p;
}

/* the C string of str `s`, its bytes kept alive in pr->keep */
static const char *keep_str(pytk_reader *pr, PyObject *s, const char *what)
{
	PyObject *b;

	if (!PyUnicode_Check(s)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a str, not %.100s", what,
			     Py_TYPE(s)->tp_name);
		return NULL;
	}
	b = PyUnicode_AsUTF8String(s);
	if (!b)
		return NULL;
	if (strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
		Py_DECREF(b);
		PyErr_Format(PyExc_ValueError, "%s: embedded NUL character", what);
		return NULL;
	}
	if (PyList_Append(pr->keep, b) < 0) {
		Py_DECREF(b);
		return NULL;
	}
	Py_DECREF(b);
	return PyBytes_AS_STRING(b);
}

/* a name or an iterable of names: a new list of str */
static PyObject *name_list(PyObject *v, const char *what)
{
	PyObject *l;
	Py_ssize_t i;

	if (PyUnicode_Check(v))
		{
		l = PyList_New(1);
		if (l)
			PyList_SET_ITEM(l, 0, Py_NewRef(v));
		return l;
	}
	l = PySequence_List(v);
	if (!l) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s: expected a str or an iterable of str, not %.100s",
			     what, Py_TYPE(v)->tp_name);
		return NULL;
	}
	for (i = 0; i < PyList_GET_SIZE(l); i++)
		if (!PyUnicode_Check(PyList_GET_ITEM(l, i))) {
			PyErr_Format(PyExc_TypeError, "%s: expected names (str), found %.100s", what,
				     Py_TYPE(PyList_GET_ITEM(l, i))->tp_name);
			Py_DECREF(l);
			return NULL;
		}
	return l;
}

/* a window bound: int ticks or a duration str */
static int window_bound(pytk_reader *pr, PyObject *v, const char *what, uint64_t *value,
			int *unit)
{
	const char *s;
	tk_unit u;
	int rc;

	if (PyBool_Check(v) || (!PyLong_Check(v) && !PyUnicode_Check(v))) {
		PyErr_Format(PyExc_TypeError, "%s: expected an int (ticks) or a str (\"10ms\"), not %.100s",
			     what, Py_TYPE(v)->tp_name);
		return -1;
	}
	if (PyLong_Check(v)) {
		*value = PyLong_AsUnsignedLongLong(v);
		if (*value == (uint64_t)-1 && PyErr_Occurred()) {
			PyErr_Clear();
			PyErr_Format(PyExc_ValueError, "%s: a tick count from 0 to 2**64-1", what);
			return -1;
		}
		*unit = TK_TICKS;
		return 0;
	}
	if (!(s = keep_str(pr, v, what)))
		return -1;
	rc = tk_duration_parse(s, -1, value, &u);
	if (rc < 0) {
		pytk_raise_msg(TK_E_USAGE, "%s: '%s' is not a duration such as \"10ms\" "
			       "(an int is a tick count)", what, s);
		return -1;
	}
	*unit = (int)u;
	return 0;
}

/* a flag keyword: True or False (None: not given, the default); any other
 * value, a truthy "no" among them, is a TypeError */
static int flag(PyObject *v, const char *what, int *out)
{
	if (v == Py_None)
		return 0;
	if (!PyBool_Check(v)) {
		PyErr_Format(PyExc_TypeError, "%s: expected True or False, not %.100s", what,
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	*out = v == Py_True;
	return 0;
}

/* pop `key` from dict `kw` (a new reference, or NULL when absent) */
static PyObject *pop(PyObject *kw, const char *key)
{
	PyObject *v;

	if (!kw)
		return NULL;
	v = PyDict_GetItemString(kw, key);
	if (!v)
		return NULL;
	Py_INCREF(v);
	if (PyDict_DelItemString(kw, key) < 0) {
		Py_DECREF(v);
		return NULL;
	}
	return v;
}

/* the format options of the keys left in `kw` and of options=: "k=v,..." */
static int format_options(pytk_reader *pr, PyObject *kw, PyObject *given)
{
	PyObject *parts = NULL, *key, *val, *joined = NULL, *sep = NULL, *item;
	Py_ssize_t pos = 0;
	int rc = -1;

	if (!(parts = PyList_New(0)))
		goto out;
	if (given && given != Py_None) {
		if (!PyUnicode_Check(given)) {
			PyErr_SetString(PyExc_TypeError, "options: expected a str \"key=value,...\"");
			goto out;
		}
		if (PyUnicode_GET_LENGTH(given) && PyList_Append(parts, given) < 0)
			goto out;
	}
	while (kw && PyDict_Next(kw, &pos, &key, &val)) {
		PyObject *k, *v;

		if (!(k = PyObject_CallMethod(key, "replace", "ss", "_", "-")))
			goto out;
		/* an int or a str; a ',' would start another option */
		if (PyBool_Check(val))
			v = PyUnicode_FromString(val == Py_True ? "1" : "0");
		else if (PyLong_Check(val) || PyUnicode_Check(val))
			v = PyObject_Str(val);
		else {
			PyErr_Format(PyExc_TypeError,
				     "%U: expected an int or a str (a format option), not %.100s",
				     key, Py_TYPE(val)->tp_name);
			v = NULL;
		}
		if (v && PyUnicode_FindChar(v, ',', 0, PyUnicode_GET_LENGTH(v), 1) >= 0) {
			PyErr_Format(PyExc_ValueError,
				     "%U: a format option's value holds no ',' (%R)", key, val);
			Py_CLEAR(v);
		}
		if (!v) {
			Py_DECREF(k);
			goto out;
		}
		item = PyUnicode_FromFormat("%U=%U", k, v);
		Py_DECREF(k);
		Py_DECREF(v);
		if (!item || PyList_Append(parts, item) < 0) {
			Py_XDECREF(item);
			goto out;
		}
		Py_DECREF(item);
	}
	if (kw)
		PyDict_Clear(kw);
	if (PyList_GET_SIZE(parts) == 0) {
		rc = 0;
		goto out;
	}
	if (!(sep = PyUnicode_FromString(",")) || !(joined = PyUnicode_Join(sep, parts)))
		goto out;
	if (!(pr->opts.options = keep_str(pr, joined, "options")))
		goto out;
	rc = 0;
out:
	Py_XDECREF(parts);
	Py_XDECREF(sep);
	Py_XDECREF(joined);
	return rc;
}

static const char *const filter_keys[3] = { "entities", "types", "events" };

int pytk_reader_open(pytk_reader *pr, PyObject *source, PyObject *kw, int rest)
{
	PyObject *merged = NULL, *v = NULL, *lists[3] = { NULL, NULL, NULL }, *pathb = NULL;
	PyObject *data = NULL;  /* borrowed: the Trace's */
	size_t total = 0, k, i, at = 0;
	tk_error err;
	int rc, ret = -1;

	memset(pr, 0, sizeof *pr);
	tk_reader_opts_init(&pr->opts);
	if (!(pr->keep = PyList_New(0)) || !(merged = PyDict_New()))
		goto out;
	if (pytk_TraceType && PyObject_TypeCheck(source, pytk_TraceType)) {
		pytk_trace_head *t = (pytk_trace_head *)source;

		if (t->kwargs && PyDict_Update(merged, t->kwargs) < 0)
			goto out;
		data = t->data;
	}
	if (kw && PyDict_Update(merged, kw) < 0)
		goto out;
	if (!(pr->path = pytk_source_path(source, "source", 1)))
		goto out;

	if ((v = pop(merged, "format")) && v != Py_None &&
	    !(pr->opts.format = keep_str(pr, v, "format")))
		goto out;
	Py_CLEAR(v);
	if ((v = pop(merged, "strict")) && flag(v, "strict", &pr->opts.strict) < 0)
		goto out;
	Py_CLEAR(v);
	if ((v = pop(merged, "force_format")) && flag(v, "force_format", &pr->opts.force_format) < 0)
		goto out;
	Py_CLEAR(v);
	if ((v = pop(merged, "end_closed")) && flag(v, "end_closed", &pr->opts.end_closed) < 0)
		goto out;
	Py_CLEAR(v);
	if ((v = pop(merged, "start")) && v != Py_None) {
		if (window_bound(pr, v, "start", &pr->opts.start, &pr->opts.start_unit) < 0)
			goto out;
		pr->opts.has_start = 1;
	}
	Py_CLEAR(v);
	if ((v = pop(merged, "end")) && v != Py_None) {
		if (window_bound(pr, v, "end", &pr->opts.end, &pr->opts.end_unit) < 0)
			goto out;
		pr->opts.has_end = 1;
	}
	Py_CLEAR(v);
	if ((v = pop(merged, "window_stop")) && v != Py_None) {
		const char *s = keep_str(pr, v, "window_stop");

		if (!s)
			goto out;
		if (!strcmp(s, "ordered"))
			pr->opts.window_stop = TK_STOP_ORDERED;
		else if (!strcmp(s, "always"))
			pr->opts.window_stop = TK_STOP_ALWAYS;
		else if (!strcmp(s, "never"))
			pr->opts.window_stop = TK_STOP_NEVER;
		else {
			pytk_raise_msg(TK_E_USAGE, "window_stop: '%s' (ordered, always or never)", s);
			goto out;
		}
	}
	Py_CLEAR(v);
	for (k = 0; k < 3; k++) {
		if ((v = pop(merged, filter_keys[k])) && v != Py_None) {
			if (!(lists[k] = name_list(v, filter_keys[k])))
				goto out;
			total += (size_t)PyList_GET_SIZE(lists[k]);
		}
		Py_CLEAR(v);
	}
	if (PyErr_Occurred())
		goto out;
	if (total) {
		if (!(pr->names = PyMem_Calloc(total, sizeof *pr->names))) {
			PyErr_NoMemory();
			goto out;
		}
		for (k = 0; k < 3; k++) {
			size_t n = lists[k] ? (size_t)PyList_GET_SIZE(lists[k]) : 0, first = at;

			for (i = 0; i < n; i++)
				if (!(pr->names[at++] = keep_str(pr, PyList_GET_ITEM(lists[k], (Py_ssize_t)i),
								 filter_keys[k])))
					goto out;
			if (!n)
				continue;
			if (k == 0) {
				pr->opts.entities = pr->names + first;
				pr->opts.nentities = n;
			} else if (k == 1) {
				pr->opts.types = pr->names + first;
				pr->opts.ntypes = n;
			} else {
				pr->opts.events = pr->names + first;
				pr->opts.nevents = n;
			}
		}
	}
	v = pop(merged, "options");
	if (PyErr_Occurred())
		goto out;
	if (!rest && PyDict_Size(merged) > 0) {
		PyObject *key = NULL, *val;
		Py_ssize_t pos = 0;

		PyDict_Next(merged, &pos, &key, &val);
		PyErr_Format(PyExc_TypeError, "unexpected keyword argument '%U'", key);
		goto out;
	}
	if (format_options(pr, merged, v) < 0)
		goto out;
	Py_CLEAR(v);
	if (kw)
		PyDict_Clear(kw);

	pr->opts.on_warning = pytk_on_warning;
	pr->opts.warning_ctx = &pr->warn_failed;
	if (!(pathb = PyUnicode_EncodeFSDefault(pr->path)))
		goto out;
	tk_error_clear(&err);
	/* the open reads the header and may warn: the GIL stays held */
	if (data) {
		/* an input that can be read once, read whole by open() */
		if (PyList_Append(pr->keep, data) < 0)
			goto out;
		rc = tk_reader_open_mem(&pr->r, PyBytes_AS_STRING(data),
					(size_t)PyBytes_GET_SIZE(data),
					strcmp(PyBytes_AS_STRING(pathb), "-") ? PyBytes_AS_STRING(pathb)
					: "<stdin>", &pr->opts, &err);
	} else {
		rc = tk_reader_open(&pr->r, PyBytes_AS_STRING(pathb), &pr->opts, &err);
	}
	if (pr->warn_failed)
		goto out;
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	ret = 0;
out:
	Py_XDECREF(v);
	Py_XDECREF(merged);
	Py_XDECREF(pathb);
	for (k = 0; k < 3; k++)
		Py_XDECREF(lists[k]);
	if (ret < 0)
		pytk_reader_close(pr);
	return ret;
}

int pytk_reader_next(pytk_reader *pr, const tk_event **ev)
{
	tk_error err;
	int rc;

	tk_error_clear(&err);
	rc = tk_reader_next(pr->r, ev, &err);
	if (pr->warn_failed)
		return -1;
	if (rc < 0) {
		pytk_raise(rc, &err);
		return -1;
	}
	return rc;
}

int pytk_reader_next_batch(pytk_reader *pr, const tk_event **evs, size_t *n, size_t max)
{
	tk_error err;
	int rc;

	tk_error_clear(&err);
	rc = tk_reader_next_batch(pr->r, evs, n, max, &err);
	if (pr->warn_failed)
		return -1;
	if (rc < 0) {
		pytk_raise(rc, &err);
		return -1;
	}
	return rc;
}

int pytk_feed(pytk_reader *pr, pytk_feed_fn fn, void *obj, const int *stop,
	      uint64_t *nevents, tk_error *err)
{
	const tk_event *ev;
	tk_error rerr;
	uint64_t n = 0;
	int rc, frc = TK_OK;

	tk_error_clear(&rerr);
	tk_error_clear(err);
	Py_BEGIN_ALLOW_THREADS
	while ((rc = tk_reader_next(pr->r, &ev, &rerr)) == TK_OK && !pr->warn_failed) {
		n++;
		if ((frc = fn(obj, ev, err)) < 0 || (stop && *stop))
			break;
	}
	Py_END_ALLOW_THREADS
	if (nevents)
		*nevents = n;
	if (pr->warn_failed || (stop && *stop))
		return TK_E_USAGE;
	if (frc < 0) {
		/* an analysis's error at an event names the input, as the
		 * command's does */
		PyObject *b = pr->path ? PyUnicode_EncodeFSDefault(pr->path) : NULL;
		const char *in = b ? PyBytes_AS_STRING(b) : NULL;

		if (!b)
			PyErr_Clear();
		if (err && !err->input[0] && in)
			snprintf(err->input, sizeof(err->input), "%s",
				 strcmp(in, "-") ? in : "<stdin>");
		Py_XDECREF(b);
		return frc;
	}
	if (rc < 0) {
		pytk_raise(rc, &rerr);
		return rc;
	}
	return TK_OK;
}

void pytk_reader_close(pytk_reader *pr)
{
	tk_reader_close(pr->r);
	pr->r = NULL;
	PyMem_Free(pr->names);
	pr->names = NULL;
	Py_CLEAR(pr->keep);
	Py_CLEAR(pr->path);
}

/* ------------------------------------------------------------------------ */
/* The module                                                                */
/* ------------------------------------------------------------------------ */

static PyObject *py_version(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	return PyUnicode_FromString(tk_version());
}

static PyMethodDef module_methods[] = {
	{ "version", py_version, METH_NOARGS,
	  "version() -> str\n\nThe version of the tracekit library the module runs with." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "tracekit._tracekit",
	"The C extension of the tracekit package: use `import tracekit`.", -1,
	module_methods, NULL, NULL, NULL, NULL
};

/* a new exception class tracekit.NAME added to the module */
static PyObject *add_exc(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
	char full[64];
	PyObject *e;

	snprintf(full, sizeof full, "tracekit.%s", name);
	e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
	Py_XDECREF(bases);
	if (!e)
		return NULL;
	if (PyModule_AddObjectRef(m, name, e) < 0) {
		Py_DECREF(e);
		return NULL;
	}
	return e;
}

PyMODINIT_FUNC PyInit__tracekit(void);
PyMODINIT_FUNC PyInit__tracekit(void)
{
	PyObject *m, *fractions;

	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	fractions = PyImport_ImportModule("fractions");
	if (!fractions)
		goto fail;
	fraction_type = PyObject_GetAttrString(fractions, "Fraction");
	Py_DECREF(fractions);
	if (!fraction_type)
		goto fail;
	if (!(pytk_Error = add_exc(m, "Error", Py_NewRef(PyExc_Exception),
				   "A tracekit error: .code, .file, .line, .column, .offset "
				   "(None where not known) and .message; str() is the "
				   "one-line error the command prints.")) ||
	    !(exc_parse = add_exc(m, "ParseError", Py_NewRef(pytk_Error),
				  "The input is malformed (tk_status TK_E_PARSE).")) ||
	    !(exc_format = add_exc(m, "FormatError", Py_NewRef(pytk_Error),
				   "The input's format is not recognised (TK_E_FORMAT).")) ||
	    !(exc_usage = add_exc(m, "UsageError", PyTuple_Pack(2, pytk_Error, PyExc_ValueError),
				  "A bad argument or option (TK_E_USAGE).")) ||
	    !(exc_range = add_exc(m, "RangeError", PyTuple_Pack(2, pytk_Error, PyExc_ValueError),
				  "A value cannot be represented exactly (TK_E_RANGE).")) ||
	    !(exc_unsupported = add_exc(m, "UnsupportedError", Py_NewRef(pytk_Error),
					"The format cannot do what was asked (TK_E_UNSUPPORTED).")) ||
	    !(exc_io = add_exc(m, "IOError", PyTuple_Pack(2, pytk_Error, PyExc_OSError),
			       "A file could not be opened, read or written (TK_E_IO).")) ||
	    !(exc_nomem = add_exc(m, "MemoryError", PyTuple_Pack(2, pytk_Error, PyExc_MemoryError),
				  "Out of memory (TK_E_NOMEM).")) ||
	    !(pytk_TraceWarning = add_exc(m, "TraceWarning", Py_NewRef(PyExc_UserWarning),
					  "A departure of the input from its format's "
					  "specification that lenient reading accepts; "
					  "the message is the command's warning line.")))
		goto fail;
	if (pytk_trace_init(m) < 0)
		goto fail;
	if (pytk_analysis_init(m) < 0)
		goto fail;
	if (pytk_write_init(m) < 0)
		goto fail;
	if (pytk_tarmac_init(m) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
