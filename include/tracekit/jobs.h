/*
 * jobs.h - independent tasks on a few threads: the library's one facility
 * for parallel work (no format, export or analysis starts a thread of its
 * own).  The library starts threads only inside tk_jobs_run(), when asked
 * for more than one, and has joined them all when it returns.
 */
#ifndef TRACEKIT_JOBS_H
#define TRACEKIT_JOBS_H

#include "tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A task: the work of task `i` (0 ... n - 1) of tk_jobs_run(); its
 *  return (a tk_status, or anything the caller gives a meaning) is handed
 *  to the tk_job_done_fn of the task.  Called on any of the threads. */
typedef int (*tk_job_fn)(void *ctx, size_t i);
/** After task `i` returned `rc`: called on the caller's thread, in the
 *  order of i, each as soon as task i and every task before it have
 *  returned (the place to print a task's messages in input order). */
typedef void (*tk_job_done_fn)(void *ctx, size_t i, int rc);

/**
 * Run the `n` tasks run(ctx, 0) ... run(ctx, n - 1) on up to `threads`
 * threads, each task once, in any order and at once: tasks must share
 * nothing that is not safe across threads (see "Threads" in tracekit.h:
 * objects of different traces are).  done(ctx, i, rc) (NULL: none) is
 * called on the caller's thread in the order of i.  With `threads` 0 or 1,
 * or n 1, no thread is started: run(ctx, i) and done(ctx, i, rc) alternate
 * on the caller's thread, in order.  When fewer threads can be started
 * than asked (none: the caller's thread runs every task), the tasks run on
 * those that were; every task is run and done either way.  Returns when
 * every task is done and every thread started is joined.  TK_OK, or
 * TK_E_USAGE when run is NULL (nothing is run).
 */
TK_API int tk_jobs_run(size_t n, unsigned threads, tk_job_fn run,
		       tk_job_done_fn done, void *ctx, tk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_JOBS_H */
