/*
 * timeline.h - a trace as nested slices per core: what the exporters
 * (perfetto, vcd) and `tracekit report` draw.
 *
 * Each core is a lane.  On a lane, slices nest properly (a stack):
 *  - a process slice (T, I, THR) covers a process instance from the time it
 *    is first allocated to the core (start, resume, run, poll_parking) to the
 *    time it leaves it for good (terminate, or an allocation on another
 *    core: a migration).  A process that preempts another is pushed on top
 *    of it, so ISRs and higher-priority tasks appear nested inside the
 *    slice of the instance they preempted.
 *  - a runnable slice (R, SYSC) covers start to terminate, on the lane of
 *    its source process (or runnable) instance, nested inside it.
 * When a slice that is not the innermost one ends (a waiting task resumed
 * above one that started meanwhile, a migration), the slices above it are
 * cut at that time and continued in new slices (TK_SLICE_CUT_END /
 * TK_SLICE_CUT_START), so nesting always holds.
 *
 * Separately, the run intervals (a process allocated to a core, as
 * tk_load counts them) are reported in time order per lane.  Push consumer
 * like the analyses of analysis.h: new, event..., finish, free.  Memory
 * grows with the cores, the nesting depth and the live instances.
 *
 * Included by tracekit.h; not meant to be included on its own.
 */
#ifndef TRACEKIT_TIMELINE_H
#define TRACEKIT_TIMELINE_H

#include "tracekit/tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	TK_SLICE_CUT_START = 1u << 0,  /**< continues a slice cut by nesting */
	TK_SLICE_CUT_END = 1u << 1,    /**< cut here, continued in a new slice */
	TK_SLICE_OPEN = 1u << 2,       /**< still open at the end of the trace */
	TK_SLICE_BEFORE = 1u << 3,     /**< began before the trace: start is the first event */
	TK_SLICE_MIGRATED = 1u << 4,   /**< ended because the process moved to another core */
	TK_SLICE_TERMINATED = 1u << 5  /**< ended by the instance's terminate */
};

/** One slice, valid only during the callback. */
typedef struct tk_slice {
	uint32_t lane;        /**< lane index (tk_timeline_lane_core gives the core) */
	uint32_t depth;       /**< 0 outermost */
	uint32_t entity;      /**< entity id */
	int64_t inst;         /**< instance or TK_INST_NONE */
	tk_etype type;        /**< T, I, THR, R, SYSC */
	uint64_t start, end;  /**< ticks, start <= end */
	unsigned flags;       /**< TK_SLICE_* */
	/** process slices with TK_SLICE_TERMINATED: the instance's activate
	 * time (UINT64_MAX if not seen) and its time RUNNING (CET) on all
	 * cores; 0 otherwise */
	uint64_t activated;
	uint64_t cet;
} tk_slice;

typedef void (*tk_slice_fn)(void *ctx, const tk_slice *s);
/** Process `entity` instance `inst` allocated on `lane` over [start, end). */
typedef void (*tk_run_fn)(void *ctx, uint32_t lane, uint32_t entity,
			  int64_t inst, uint64_t start, uint64_t end);

typedef struct tk_timeline tk_timeline;

/**
 * A timeline of trace `t` (borrowed).  `on_slice` is called when a slice
 * ends (innermost first), `on_run` when a run interval ends; either may be
 * NULL.  Returns TK_OK with *out set, or TK_E_NOMEM with *out NULL and
 * `err` filled.
 */
TK_API int tk_timeline_new(tk_timeline **out, const tk_trace *t, tk_slice_fn on_slice,
			   tk_run_fn on_run, void *ctx, tk_error *err);

/** Account one event (in the order read).  TK_OK, TK_E_USAGE (tl or ev
 *  NULL, an event naming an entity id the trace does not have, or after
 *  tk_timeline_finish) or TK_E_NOMEM, with `err` filled (NULL allowed). */
TK_API int tk_timeline_event(tk_timeline *tl, const tk_event *ev, tk_error *err);

/**
 * End: the open run intervals and slices end at the last event's time
 * (slices with TK_SLICE_OPEN).  TK_OK, or TK_E_USAGE for tl NULL with
 * `err` filled (NULL allowed).  Called again, it does nothing.
 */
TK_API int tk_timeline_finish(tk_timeline *tl, tk_error *err);

/**
 * Idle processes: those whose name matches one of the glob `patterns` ('*'
 * any run of characters, '?' one; a FreeRTOS trace logger task's name also
 * without its "[c/id]" or "(id)" prefix).  By default "IDLE*" for the
 * FreeRTOS trace logger's traces (#creator), else none; n == 0: none.
 * Their runs are reported as any other; tk_load, the exports' load
 * counters and the report's load leave them out (idle time, not load).
 * Before the first event: TK_OK, TK_E_USAGE (after it, or patterns NULL
 * with n > 0) or TK_E_NOMEM.
 */
TK_API int tk_timeline_set_idle(tk_timeline *tl, const char *const *patterns, size_t n);
/** Whether process `entity` is idle: 1, 0 (also for an id that is no
 *  entity of the trace), or -1 when memory runs out. */
TK_API int tk_timeline_is_idle(tk_timeline *tl, uint32_t entity);

/** The lanes so far, in order of first appearance, and core entity of each. */
TK_API size_t tk_timeline_lane_count(const tk_timeline *tl);
TK_API uint32_t tk_timeline_lane_core(const tk_timeline *tl, size_t lane);

/**
 * The lane of core entity `core`, or -1 when that core has no lane (yet).
 */
TK_API long tk_timeline_lane_of(const tk_timeline *tl, uint32_t core);

/**
 * The lane an event belongs to: its core, else the lane on which its
 * source instance (a process or runnable) has an open slice; -1 if none.
 */
TK_API long tk_timeline_event_lane(const tk_timeline *tl, const tk_event *ev);

/**
 * The process allocated to `lane` now: returns 1 and sets *entity, *inst,
 * or 0 when the core is idle.
 */
TK_API int tk_timeline_running(const tk_timeline *tl, size_t lane, uint32_t *entity,
			       int64_t *inst);

/**
 * The only lane whose running process (tk_timeline_running) the last
 * tk_timeline_event may have changed, or -1 when it changed none: a user
 * that follows the running processes looks at this lane (and at lanes
 * new since, which start idle) rather than at every lane.
 */
TK_API long tk_timeline_touched_lane(const tk_timeline *tl);

/**
 * The start of the outermost slice open on `lane` (every slice that will
 * end later starts at or after it), or UINT64_MAX when none is open: a
 * closed slice that starts before it can be written out in start order.
 */
TK_API uint64_t tk_timeline_lane_floor(const tk_timeline *tl, size_t lane);

/** The time span [first, last] of the events so far (0, 0 when none). */
TK_API void tk_timeline_span(const tk_timeline *tl, uint64_t *first, uint64_t *last);

/** Free; NULL is allowed. */
TK_API void tk_timeline_free(tk_timeline *tl);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_TIMELINE_H */
