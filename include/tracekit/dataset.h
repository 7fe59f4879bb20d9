/*
 * dataset.h - a Parquet dataset of many traces (docs/fleet.md): a folder
 * with one table per level (events/, instances/, metrics/, load/,
 * traces/), each a folder of Parquet files, one file per input per table.
 */
#ifndef TRACEKIT_DATASET_H
#define TRACEKIT_DATASET_H

#include "tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_dataset_opts {
	/** sizeof(tk_dataset_opts), set by tk_dataset_opts_init(): see
	 *  "Option structs" in tracekit.h. */
	size_t size;
	/** The trace column and the files' name: NULL for the input's file
	 *  name without its extension(s). */
	const char *id;
	/** load/: windows of this many ns (0: none, only the whole trace). */
	uint64_t window_ns;
	/** 0: a trace whose ticks do not divide window_ns, an ATF file of
	 *  several time lines and a trace of over 10,000,000 windows get no
	 *  windows (a warning); 1: each is an error. */
	int window_given;
	/** Refuse what the Parquet files cannot hold as is (tk_writer_opts). */
	int strict;
	/** Warnings of the writers (tk_writer_opts.on_warning). */
	tk_warning_fn on_warning;
	void *warning_ctx;
} tk_dataset_opts;

/** Options not given: the defaults (all zero), and the size. */
TK_API void tk_dataset_opts_init(tk_dataset_opts *o);

/**
 * Make DIR a dataset: create it and its table folders.  Without `append`
 * DIR must not exist or be empty; with it, an existing dataset is kept.
 * TK_OK, TK_E_USAGE (DIR not empty) or TK_E_IO.
 */
TK_API int tk_dataset_prepare(const char *dir, int append, tk_error *err);

/** The content hash of file `path`: SHA-256, 64 hex digits and a NUL in
 *  hex.  TK_OK, TK_E_USAGE when it is not a regular file (a pipe, a FIFO,
 *  a device: tk_dataset_add() would read it again), or TK_E_IO when it
 *  cannot be read. */
TK_API int tk_dataset_hash(const char *path, char hex[65], tk_error *err);

/** 1 when DIR's traces/ holds an input of content hash `hex`, else 0. */
TK_API int tk_dataset_has(const char *dir, const char *hex);

/** 1 when DIR's traces/ holds a file named after trace id id[0..n) (the
 *  names of tk_dataset_add(): two ids whose first 200 bytes differ only
 *  outside [A-Za-z0-9._-] share one), else 0: an input added with that
 *  id would share the trace column of the rows already there. */
TK_API int tk_dataset_has_id(const char *dir, const char *id, size_t n);

/**
 * Read the trace of reader `r` (opened on `path`, whose content hash is
 * `hex`) to its end and add it to DIR: one file per table, named
 * TRACE-HASH.parquet (HASH the first 16 digits of `hex`).  The files are
 * written under temporary names and appear only when the whole input was
 * read: a bad input leaves none.  Its traces/ file, renamed into place
 * last, marks it added: with it there, TK_E_USAGE ("already in the
 * dataset"); without it, the files of the other tables (left by an add
 * killed while it renamed them) are replaced, with a warning.  NULL `o`: the defaults of
 * tk_dataset_opts_init().  TK_OK or a negative tk_status (`err`): the
 * reader's, TK_E_USAGE (above; an empty trace id, a given window that is
 * no whole number of ticks), TK_E_RANGE (a given window that makes too
 * many windows of the trace), TK_E_UNSUPPORTED (strict mode: a path or a
 * string that is not UTF-8), TK_E_IO, TK_E_NOMEM.
 */
TK_API int tk_dataset_add(const char *dir, const char *path, const char *hex,
			  tk_reader *r, const tk_dataset_opts *o, tk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_DATASET_H */
