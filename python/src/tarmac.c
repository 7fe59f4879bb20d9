/*
 * tarmac.c - the C half of tracekit.tarmac: the instruction records of an
 * Arm Tarmac log read in one pass into columns (tk_tarmac_next), and with
 * an ELF file the function profile of the same pass (tk_tarmac_profile,
 * the rows `tracekit stats LOG --elf ELF --format csv` prints).
 *
 * The columns are bytes objects of native-endian fixed-width integers,
 * which python/tracekit/tarmac.py views as numpy arrays without a copy.
 */
#include "pytk.h"

#include <string.h>

/* a growing buffer of fixed-width values */
typedef struct col {
	unsigned char *p;
	size_t len, cap;   /* bytes */
} col;

static int col_put(col *c, const void *v, size_t size)
{
	if (c->len + size > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		unsigned char *np;

		while (cap < c->len + size)
			cap *= 2;
		np = PyMem_Realloc(c->p, cap);
		if (!np) {
			PyErr_NoMemory();
			return -1;
		}
		c->p = np;
		c->cap = cap;
	}
	memcpy(c->p + c->len, v, size);
	c->len += size;
	return 0;
}

enum { K_PC, K_OPCODE, K_BITS, K_MNEM, K_TIME, K_UNIT, K_CPU, K_LINE, K_EXEC, K_ISET, K_N };

static const char *const col_names[K_N] = {
	"pc", "opcode", "opcode_bits", "mnemonic", "time", "unit", "cpu", "line",
	"executed", "iset"
};


/* the profile's functions: (function, calls, self_instructions,
 * instructions, self_time, time, unit) */
static PyObject *profile_rows(tk_tarmac_profile *p)
{
	PyObject *rows = PyList_New(0), *row;
	size_t i, n = tk_tarmac_profile_func_count(p);
	uint64_t inexact, back;
	const char *unit = tk_tarmac_unit_name(tk_tarmac_profile_stamps(p, &inexact, &back));

	if (!rows)
		return NULL;
	for (i = 0; i < n; i++) {
		const tk_tarmac_func *f = tk_tarmac_profile_func(p, i);
		const char *name = tk_tarmac_profile_symbol_name(p, f->symbol);

		row = Py_BuildValue("(NKKKKKs)",
				    PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "surrogateescape"),
				    (unsigned long long)f->calls,
				    (unsigned long long)f->self_instructions,
				    (unsigned long long)f->instructions,
				    (unsigned long long)f->self_time, (unsigned long long)f->time, unit);
		if (!row || PyList_Append(rows, row) < 0) {
			Py_XDECREF(row);
			Py_DECREF(rows);
			return NULL;
		}
		Py_DECREF(row);
	}
	return rows;
}

/*
 * _tarmac_read(path, strict, elf, load_offset) -> dict: the columns (bytes),
 * "mnemonics" (list of str, the codes' table), "units" (the unit names by
 * code), "cpus" (CPU names by cpu index: "" for no prefix), "count",
 * "variant", and with an ELF "profile" (rows).
 */
static PyObject *py_tarmac_read(PyObject *self, PyObject *args)
{
	PyObject *path, *elf = Py_None, *pathb = NULL, *elfb = NULL, *ret = NULL;
	PyObject *mnems = NULL, *table = NULL, *d = NULL, *o;
	unsigned long long offset = 0;
	int strict = 0, rc;
	col c[K_N];
	tk_tarmac *tr = NULL;
	tk_tarmac_opts opts;
	tk_tarmac_record rec;
	tk_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	tk_error err;
	int failed = 0;   /* a warning made an exception */
	uint64_t count = 0;
	size_t i, k;

	(void)self;
	memset(c, 0, sizeof c);
	if (!PyArg_ParseTuple(args, "OpOK:_tarmac_read", &path, &strict, &elf, &offset))
		return NULL;
	if (!(pathb = PyUnicode_EncodeFSDefault(path)))
		goto out;
	if (!(mnems = PyDict_New()) || !(table = PyList_New(0)))
		goto out;
	tk_error_clear(&err);
	if (elf != Py_None) {
		if (!(elfb = PyUnicode_EncodeFSDefault(elf)))
			goto out;
		if ((rc = tk_symtab_open(&syms, PyBytes_AS_STRING(elfb), &err)) < 0 ||
		    (rc = tk_tarmac_profile_new(&prof, syms, &err)) < 0) {
			pytk_raise(rc, &err);
			goto out;
		}
		tk_symtab_shift(syms, (uint64_t)offset);
	}
	tk_tarmac_opts_init(&opts);
	opts.strict = strict;
	opts.on_warning = pytk_on_warning;
	opts.warning_ctx = &failed;
	rc = tk_tarmac_open(&tr, PyBytes_AS_STRING(pathb), &opts, &err);
	if (failed)
		goto out;
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK) {
		uint32_t code;
		uint8_t b;

		if (failed)
			goto out;
		if (prof && (rc = tk_tarmac_profile_record(prof, &rec, &err)) < 0)
			break;
		if (rec.kind != TK_TARMAC_INSTRUCTION)
			continue;
		/* the mnemonic's code in the table */
		o = PyUnicode_DecodeUTF8(rec.mnemonic.ptr, (Py_ssize_t)rec.mnemonic.len,
					 "surrogateescape");
		if (!o)
			goto out;
		{
			PyObject *v = PyDict_GetItemWithError(mnems, o);

			if (v) {
				code = (uint32_t)PyLong_AsUnsignedLong(v);
			} else if (PyErr_Occurred()) {
				Py_DECREF(o);
				goto out;
			} else {
				code = (uint32_t)PyList_GET_SIZE(table);
				v = PyLong_FromUnsignedLong(code);
				if (!v || PyDict_SetItem(mnems, o, v) < 0 || PyList_Append(table, o) < 0) {
					Py_XDECREF(v);
					Py_DECREF(o);
					goto out;
				}
				Py_DECREF(v);
			}
		}
		Py_DECREF(o);
		b = (uint8_t)rec.opcode_bits;
		if (col_put(&c[K_PC], &rec.address, 8) < 0 ||
		    col_put(&c[K_OPCODE], &rec.opcode, 8) < 0 ||
		    col_put(&c[K_BITS], &b, 1) < 0 ||
		    col_put(&c[K_MNEM], &code, 4) < 0 ||
		    col_put(&c[K_TIME], &rec.time, 8) < 0)
			goto out;
		b = (uint8_t)rec.unit;
		if (col_put(&c[K_UNIT], &b, 1) < 0 || col_put(&c[K_CPU], &rec.cpu, 4) < 0 ||
		    col_put(&c[K_LINE], &rec.line, 8) < 0)
			goto out;
		b = (uint8_t)(rec.executed != 0);
		if (col_put(&c[K_EXEC], &b, 1) < 0)
			goto out;
		b = (uint8_t)rec.iset;
		if (col_put(&c[K_ISET], &b, 1) < 0)
			goto out;
		count++;
	}
	if (failed)
		goto out;
	if (rc < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (prof && (rc = tk_tarmac_profile_finish(prof, &err)) < 0) {
		pytk_raise(rc, &err);
		goto out;
	}
	if (!(d = PyDict_New()))
		goto out;
	for (k = 0; k < K_N; k++) {
		o = PyBytes_FromStringAndSize((const char *)c[k].p, (Py_ssize_t)c[k].len);
		if (!o || PyDict_SetItemString(d, col_names[k], o) < 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	if (PyDict_SetItemString(d, "mnemonics", table) < 0)
		goto out;
	if (!(o = PyList_New(0)) || PyDict_SetItemString(d, "units", o) < 0) {
		Py_XDECREF(o);
		goto out;
	}
	Py_DECREF(o);
	for (k = 0; k < TK_TARMAC_UNIT_COUNT; k++) {
		PyObject *s = PyUnicode_FromString(tk_tarmac_unit_name((tk_tarmac_unit)k));

		if (!s || PyList_Append(o, s) < 0) {
			Py_XDECREF(s);
			goto out;
		}
		Py_DECREF(s);
	}
	if (!(o = PyList_New(0)) || PyDict_SetItemString(d, "cpus", o) < 0) {
		Py_XDECREF(o);
		goto out;
	}
	Py_DECREF(o);
	for (i = 0; i <= tk_tarmac_cpu_count(tr); i++) {
		const char *nm = i ? tk_tarmac_cpu_name(tr, i - 1) : "";
		PyObject *s = PyUnicode_FromString(nm ? nm : "");

		if (!s || PyList_Append(o, s) < 0) {
			Py_XDECREF(s);
			goto out;
		}
		Py_DECREF(s);
	}
	if (!(o = PyLong_FromUnsignedLongLong(count)) || PyDict_SetItemString(d, "count", o) < 0) {
		Py_XDECREF(o);
		goto out;
	}
	Py_DECREF(o);
	if (!(o = PyUnicode_FromString(tk_tarmac_variant_name(tk_tarmac_variant_get(tr)))) ||
	    PyDict_SetItemString(d, "variant", o) < 0) {
		Py_XDECREF(o);
		goto out;
	}
	Py_DECREF(o);
	if (prof) {
		uint64_t inexact, back;
		tk_tarmac_unit u = tk_tarmac_profile_stamps(prof, &inexact, &back);

		if ((inexact || back) && strict) {
			pytk_raise_msg(TK_E_RANGE, "%s: the function times are not exact (time "
				       "stamps: %llu not whole %s, rounded down or not counted; %llu "
				       "earlier than the one before, not counted)",
				       PyBytes_AS_STRING(pathb), (unsigned long long)inexact,
				       tk_tarmac_unit_name(u), (unsigned long long)back);
			goto out;
		}
		if ((inexact || back) &&
		    PyErr_WarnFormat(pytk_TraceWarning, 1, "%s: warning: the function times are not "
				     "exact (time stamps: %llu not whole %s, rounded down or not "
				     "counted; %llu earlier than the one before, not counted)",
				     PyBytes_AS_STRING(pathb), (unsigned long long)inexact,
				     tk_tarmac_unit_name(u), (unsigned long long)back) < 0)
			goto out;
		if (!(o = profile_rows(prof)) || PyDict_SetItemString(d, "profile", o) < 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	ret = d;
	d = NULL;
out:
	for (k = 0; k < K_N; k++)
		PyMem_Free(c[k].p);
	Py_XDECREF(d);
	Py_XDECREF(mnems);
	Py_XDECREF(table);
	Py_XDECREF(pathb);
	Py_XDECREF(elfb);
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_symtab_free(syms);
	return ret;
}

static PyMethodDef tarmac_functions[] = {
	{ "_tarmac_read", py_tarmac_read, METH_VARARGS,
	  "_tarmac_read(path, strict, elf, load_offset) -> dict\n\n"
	  "The instruction records of a Tarmac log as columns of bytes, and with "
	  "an ELF the function profile's rows.  Use tracekit.tarmac.open()." },
	{ NULL, NULL, 0, NULL }
};

int pytk_tarmac_init(PyObject *m)
{
	return PyModule_AddFunctions(m, tarmac_functions);
}
