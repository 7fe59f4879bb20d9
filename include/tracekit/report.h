/*
 * report.h - the HTML report of a trace: one self-contained page (no
 * network, no other files) with a timeline per core, the metrics of
 * tk_stats with the worst instances, histograms of RT and CET, core load
 * over time and the problems tk_check finds (docs/exports.md).  What
 * `tracekit report` writes, callable from C.
 *
 * The trace file is read twice (pass 1: stats, check, the span and the
 * counts of bars; pass 2: the bars), so it must be a file (compressed or
 * not), not standard input or a pipe.  Memory stays flat and the page
 * bounded (about 10 MB): where a pixel would hold many bars the page
 * holds a summary per window.
 *
 * Included by tracekit.h; not meant to be included on its own.
 */
#ifndef TRACEKIT_REPORT_H
#define TRACEKIT_REPORT_H

#include "tracekit/tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* timing requirements (analysis.h; declared here too: analysis.h may be
 * the header that includes this one through tracekit.h) */
typedef struct tk_reqs tk_reqs;

/** The options of tk_report_write(); tk_report_opts_init() sets the defaults. */
typedef struct tk_report_opts {
	/** sizeof(tk_report_opts), set by tk_report_opts_init(): see
	 *  "Option structs" in tracekit.h. */
	size_t size;
	/**
	 * How the trace is read (format, strict, format options; a
	 * tk_reader_opts filled by tk_reader_opts_init(), borrowed for the
	 * call), NULL for the defaults.  Its query (a time window, entity,
	 * type and event filters) chooses the events that go into the
	 * report, on both passes alike; the page's times since the trace's
	 * first event still count from the first event the reader decoded,
	 * one the query skipped too.  Its on_warning callback sees the
	 * warnings of the first pass only (the second pass reads the same
	 * file again and gives the same ones).  A pointer, not a member, so
	 * that either struct can grow on its own.
	 */
	const tk_reader_opts *reader;
	/**
	 * Processes whose names match one of these glob patterns ('*', '?')
	 * are idle: drawn, but their time is the core's idle time, not load
	 * (tk_timeline_set_idle()).  NULL (nidle 0): the default of
	 * tk_load_default_idle() (IDLE* in the FreeRTOS trace logger's
	 * traces, else none).  The array is borrowed for the call.
	 */
	const char *const *idle;
	size_t nidle;
	/**
	 * Called once on each pass (1, then 2) when the trace is open, before
	 * its first event: the caller may look at the trace (its time base,
	 * its header) or tell the user something about it.  A negative return
	 * ends the report with that status, and err holds that code with no
	 * input and no message (the callback reports its own error).
	 * NULL: nothing to do.
	 */
	int (*on_open)(void *ctx, tk_reader *r, int pass);
	void *ctx;          /**< passed to on_open */
	/**
	 * Where to store the number of warnings of reading the trace
	 * (tk_reader_warning_count() of a pass, and one when the time lines
	 * after the first were left out) when the report is written.
	 * NULL: not wanted.
	 */
	uint64_t *warnings;
	/**
	 * Cause-effect chains whose rows (REACTION, AGE, LOST) go into the
	 * metric table, each "NAME=S0,S1,...,Sn" (tk_stats_add_chain()); the
	 * array is borrowed for the call.  NULL (nchains 0): none.
	 */
	const char *const *chains;
	size_t nchains;
	/**
	 * Timing requirements (tk_reqs_read(), docs/verify.md) held against
	 * the events of the report (those the reader's query passes): the
	 * page lists each with pass or fail and its message, a failure with a
	 * link to its worst instance (or window) on the timeline.  Borrowed
	 * for the call.
	 * NULL: none.
	 */
	const tk_reqs *reqs;
	/** Where to store the number of requirements that failed; NULL: not
	 *  wanted. */
	size_t *req_failures;
	/**
	 * Called once after the first pass's last event, before the page is
	 * written, with that pass's reader (its trace complete; ctx as for
	 * on_open): the caller may say something of what was read (a filter
	 * name that matched nothing: tk_reader_event_name_seen()).  A
	 * negative return ends the report as on_open's does.  NULL: nothing.
	 */
	int (*on_read)(void *ctx, tk_reader *r);
} tk_report_opts;

/** The defaults and the size: the reader's defaults (reader NULL: no
 *  query, every event), no idle pattern, no callback. */
TK_API void tk_report_opts_init(tk_report_opts *opts);

/**
 * Write the report of the trace file `path` to `out`: "-" is standard
 * output, any other path is written under a temporary name and renamed
 * when the page is complete, compressed when it ends in ".gz" or ".zst"
 * (tk_output_open()).  `opts` may be NULL (the defaults).  The page names
 * the trace by `path` as given.
 *
 * Returns TK_OK, or a negative status with `err` filled, and no output
 * file left: TK_E_USAGE when `path` is "-" or a pipe, a socket or a device
 * (it is read twice), the reader's error when the trace is unreadable,
 * TK_E_IO when the page cannot be written, TK_E_NOMEM.  Errors that are
 * not about one input (out of memory, the temporary file of the bars)
 * have an empty err->input.
 */
TK_API int tk_report_write(const char *path, const char *out,
			   const tk_report_opts *opts, tk_error *err);

/**
 * The report's page around its data: `*head` is the page up to its data
 * object (it ends in "const D="), `*tail` the rest (it starts with the
 * ";" after the object); a page tk_report_write() writes is head, the
 * data object (JSON), tail.  For a program that serves the report's data
 * itself, as `tracekit live` does.  Static strings (either pointer may be
 * NULL: not wanted).
 */
TK_API void tk_report_page(const char **head, const char **tail);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_REPORT_H */
