/*
 * pytk.h - what the files of the Python extension (tracekit._tracekit)
 * share: the exceptions, the opening of a reader from Python arguments, and
 * the trace object's head.
 *
 * Each file of python/src/ owns one area and adds its functions and types
 * to the module in its pytk_<area>_init(), called by module.c.
 */
#ifndef PYTK_H
#define PYTK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <tracekit/tracekit.h>

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * tracekit.Error and its subclasses, one per tk_status: ParseError,
 * FormatError, UsageError (also a ValueError), RangeError (also a
 * ValueError), UnsupportedError, IOError (also an OSError), MemoryError
 * (also Python's MemoryError).  An instance has .code (the tk_status),
 * .file, .line, .column, .offset (None where not known) and .message (the
 * library's message alone); str() is the one line the CLI prints.
 */
extern PyObject *pytk_Error;

/* Raise the exception of status `rc` with what `err` says; returns NULL. */
PyObject *pytk_raise(int rc, const tk_error *err);

/* As pytk_raise() with a message of our own (no position). */
PyObject *pytk_raise_msg(int rc, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* ------------------------------------------------------------------------ */
/* Traces                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * The head of a tracekit.Trace (trace.c owns the rest): what it was opened
 * from, so that the analyses given a Trace read the same input with the
 * same arguments.
 */
typedef struct pytk_trace_head {
	PyObject_HEAD
	PyObject *path;    /* str: the path as given to open() (os.fspath) */
	PyObject *kwargs;  /* dict: the reader's keyword arguments of open() */
	/* bytes: the input read whole by open() when it can be read only
	 * once (standard input, a pipe or FIFO, a device), which every
	 * reading then reads from memory; NULL for a file, read again */
	PyObject *data;
} pytk_trace_head;

/* tracekit.Trace's type, set by pytk_trace_init(). */
extern PyTypeObject *pytk_TraceType;

/* ------------------------------------------------------------------------ */
/* Readers opened from Python arguments                                      */
/* ------------------------------------------------------------------------ */

/*
 * A reader and what its options point to.  Warnings of the reader go to
 * Python's warnings module (category tracekit.TraceWarning) as they come:
 * a warning turned into an error by a filter ends the reading with that
 * exception.
 */
typedef struct pytk_reader {
	tk_reader *r;
	tk_reader_opts opts;
	PyObject *path;         /* str */
	PyObject *keep;         /* list: the bytes objects opts points into */
	const char **names;     /* entities, types, events (one array) */
	int warn_failed;        /* a warning raised: stop */
} pytk_reader;

/* tracekit.TraceWarning */
extern PyObject *pytk_TraceWarning;

/*
 * A tk_warning_fn of the library's readers and writers: the warning goes
 * to Python's warnings (TraceWarning, the command's line); `ctx` is an int
 * set to 1 when a filter made it an exception (the caller then stops, with
 * that exception set), after which warnings are dropped.  It takes the GIL
 * itself (PyGILState_Ensure()): the readings run their loops with the GIL
 * released (Py_BEGIN_ALLOW_THREADS), and the exception a filter makes is
 * set in the calling thread when the loop takes the GIL back.
 */
void pytk_on_warning(void *ctx, const tk_error *w);

/*
 * The keyword arguments every reading function takes, consumed from `kw`
 * (a dict, or NULL) by pytk_reader_open():
 *   format=None     a format name ("btf", ...); None: told by the content
 *   strict=False    the format's specification alone
 *   force_format=False   with format=: read the input as that format even
 *                   when its probe finds none of its signs (tk_reader_opts)
 *                   (strict, force_format, end_closed: True or False, None
 *                   for the default; another value is a TypeError)
 *   entities=, types=, events=   a name or an iterable of names: only the
 *                   events that match (tk_reader_opts)
 *   start=, end=    the window: an int (ticks) or a duration str ("10ms",
 *                   "1500 us"); end_closed=False
 *   window_stop=    "ordered" (default), "always" or "never"
 * Every other key is a format option (hz=1000000, trace=2, time_digits=6:
 * "_" in a key is written "-"), or with `options=` a str "k=v,k=v".
 */
#define PYTK_READER_KEYWORDS "format, strict, force_format, entities, types, events, start, end, end_closed, window_stop, options"

/*
 * Open a reader on `source` (a str, bytes or os.PathLike path, "-" for
 * standard input, or a tracekit.Trace: its path and its open() arguments,
 * those of `kw` taking precedence).  The reader keys of `kw` are removed
 * from it (it must be a dict the caller owns, or NULL) when `rest` is 0;
 * with `rest` non-zero every key left is taken as a format option and the
 * dict is emptied.  Returns 0, or -1 with a Python exception set (and
 * `pr` closed).
 */
int pytk_reader_open(pytk_reader *pr, PyObject *source, PyObject *kw, int rest);

/*
 * The next event: TK_OK with *ev set, TK_END at the end, or -1 with a
 * Python exception set (a read error, or a warning turned into an error).
 */
int pytk_reader_next(pytk_reader *pr, const tk_event **ev);

/* As tk_reader_next_batch(), with the same returns as pytk_reader_next(). */
int pytk_reader_next_batch(pytk_reader *pr, const tk_event **evs, size_t *n,
			   size_t max);

/*
 * Every event of pr's reader given to fn(obj, event, err), without the GIL
 * (the callbacks that call Python take it).  Stops at the end, at fn's
 * error, at a warning made an error, or when *stop (may be NULL) is set
 * by a callback that raised; counts the events in *nevents (may be NULL).
 * 0 when every event was given; a negative status with a Python exception
 * set (a read error, a warning made an error, *stop); or fn's negative
 * status with *err filled and no exception set, for the caller to raise.
 */
typedef int (*pytk_feed_fn)(void *obj, const tk_event *ev, tk_error *err);
int pytk_feed(pytk_reader *pr, pytk_feed_fn fn, void *obj, const int *stop,
	      uint64_t *nevents, tk_error *err);

/* Close; a zeroed or closed pytk_reader is fine. */
void pytk_reader_close(pytk_reader *pr);

/*
 * The path of argument `what` (a str, bytes or os.PathLike path; with
 * `trace_ok` a tracekit.Trace too, its path) as a new str reference, or
 * NULL + error: a TypeError naming `what` for a value of another type.
 */
PyObject *pytk_source_path(PyObject *source, const char *what, int trace_ok);

/* ------------------------------------------------------------------------ */
/* Exact values                                                              */
/* ------------------------------------------------------------------------ */

/* fractions.Fraction(num, den): a new reference, or NULL + error. */
PyObject *pytk_fraction(uint64_t num, uint64_t den);

/* Seconds per tick of `tb` as a Fraction (a new reference). */
PyObject *pytk_timebase_seconds(const tk_timebase *tb);

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * `n` bytes of a trace's name, header or note as a str: well-formed UTF-8
 * as it is, each byte that starts no UTF-8 sequence as U+FFFD (as the
 * CLI's JSON and CSV write them: tk_utf8_len()).  A new reference, or
 * NULL + error.  s NULL: "".  (trace.c)
 */
PyObject *pytk_str(const char *s, size_t n);

/* ------------------------------------------------------------------------ */
/* The areas: each adds its functions and types to the module               */
/* ------------------------------------------------------------------------ */

int pytk_trace_init(PyObject *m);     /* trace.c: open, Trace, events */
int pytk_analysis_init(PyObject *m);  /* analysis.c: stats, load, check */
int pytk_write_init(PyObject *m);     /* write.c: write, convert */
int pytk_tarmac_init(PyObject *m);    /* tarmac.c: tracekit.tarmac's records */

#endif
