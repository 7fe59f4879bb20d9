/*
 * trace.c - tracekit.open() and tracekit.Trace.
 */
#include "pytk.h"

#include <structmember.h>

typedef struct pytk_trace {
	pytk_trace_head head;
} pytk_trace;

static void trace_dealloc(PyObject *self)
{
	pytk_trace *t = (pytk_trace *)self;

	Py_CLEAR(t->head.path);
	Py_CLEAR(t->head.kwargs);
	Py_TYPE(self)->tp_free(self);
}

static PyMemberDef trace_members[] = {
	{ "path", T_OBJECT, offsetof(pytk_trace_head, path), READONLY,
	  "The path the trace was opened from." },
	{ NULL, 0, 0, 0, NULL }
};

static PyType_Slot trace_slots[] = {
	{ Py_tp_dealloc, (void *)trace_dealloc },
	{ Py_tp_members, trace_members },
	{ Py_tp_doc, (void *)"A trace opened by tracekit.open()." },
	{ 0, NULL }
};

static PyType_Spec trace_spec = {
	"tracekit.Trace", sizeof(pytk_trace), 0, Py_TPFLAGS_DEFAULT, trace_slots
};

static PyObject *py_open(PyObject *self, PyObject *args, PyObject *kwargs)
{
	PyObject *source, *kw = NULL, *ret = NULL;
	pytk_trace *t;
	pytk_reader pr;

	(void)self;
	if (!PyArg_ParseTuple(args, "O:open", &source))
		return NULL;
	if (!(kw = kwargs ? PyDict_Copy(kwargs) : PyDict_New()))
		return NULL;
	/* the arguments are checked by opening once */
	if (pytk_reader_open(&pr, source, kw, 1) < 0)
		goto out;
	pytk_reader_close(&pr);
	if (!(t = PyObject_New(pytk_trace, pytk_TraceType)))
		goto out;
	t->head.path = pytk_source_path(source);
	t->head.kwargs = kwargs ? PyDict_Copy(kwargs) : PyDict_New();
	if (!t->head.path || !t->head.kwargs) {
		Py_DECREF(t);
		goto out;
	}
	ret = (PyObject *)t;
out:
	Py_XDECREF(kw);
	return ret;
}

static PyMethodDef trace_functions[] = {
	{ "open", (PyCFunction)(void (*)(void))py_open, METH_VARARGS | METH_KEYWORDS,
	  "open(path, format=None, strict=False, **reader_options) -> Trace" },
	{ NULL, NULL, 0, NULL }
};

int pytk_trace_init(PyObject *m)
{
	pytk_TraceType = (PyTypeObject *)PyType_FromSpec(&trace_spec);
	if (!pytk_TraceType)
		return -1;
	if (PyModule_AddObjectRef(m, "Trace", (PyObject *)pytk_TraceType) < 0)
		return -1;
	return PyModule_AddFunctions(m, trace_functions);
}
