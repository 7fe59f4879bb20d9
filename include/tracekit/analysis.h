/*
 * analysis.h - timing analysis of any trace tracekit reads: validation
 * against the BTF state machines (tk_check), timing metrics per entity
 * (tk_stats) and core load (tk_load).
 *
 * All three are push consumers: create one for a trace (tk_<object>_new(),
 * TK_OK or TK_E_NOMEM), feed it every event the reader yields
 * (tk_<object>_event), then finish it.  They see only
 * tk_event values and the trace's metadata, never a format's internals, so
 * they apply to every format.  Their _event and _finish functions fill the
 * caller's tk_error (NULL allowed) on failure, as the rest of the API does:
 * TK_E_USAGE for a NULL object or event, or an event naming an entity id
 * the trace does not have (an event of another trace), TK_E_NOMEM, and
 * the codes each one names.  Memory grows with the number of entities and
 * of instances alive at the same time, never with the number of events.
 * Times are exact: unsigned 64-bit ticks of the trace's time base, sums in
 * 128-bit integers, no floating point.
 *
 * Included by tracekit.h; it is not meant to be included on its own.
 * docs/analysis.md describes the rules and the metrics.
 */
#ifndef TRACEKIT_ANALYSIS_H
#define TRACEKIT_ANALYSIS_H

#include "tracekit/tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Process, runnable and semaphore states                                    */
/* ------------------------------------------------------------------------ */

/**
 * The states of BTF 2.3.0 (process: table 2-10, runnable §2.3.3, semaphore
 * figure 2-6).  TK_STATE_UNKNOWN is the state of an instance seen for the
 * first time at the start of a trace: any event is accepted from it.
 */
typedef enum tk_state {
	TK_STATE_UNKNOWN = 0,
	/* process (T, I, THR) */
	TK_STATE_TERMINATED = 1, TK_STATE_ACTIVE = 2, TK_STATE_RUNNING = 3,
	TK_STATE_READY = 4, TK_STATE_WAITING = 5, TK_STATE_POLLING = 6,
	TK_STATE_PARKING = 7,
	/* runnable (R, SYSC); also TERMINATED and RUNNING */
	TK_STATE_SUSPENDED = 8,
	/* semaphore / spinlock (SEM) */
	TK_STATE_NOTINITIALIZED = 9, TK_STATE_FREE = 10, TK_STATE_USED = 11,
	TK_STATE_FULL = 12, TK_STATE_OVERFULL = 13,
	TK_STATE_COUNT = 14
} tk_state;

/** "RUNNING", "unknown", ... */
TK_API const char *tk_state_name(tk_state s);

/* ------------------------------------------------------------------------ */
/* check: validation                                                         */
/* ------------------------------------------------------------------------ */

/** The rules tk_check applies; each violation names one. */
typedef enum tk_rule {
	TK_RULE_TIME = 0,        /**< time decreased */
	TK_RULE_PROCESS = 1,         /**< process event not allowed in its state */
	TK_RULE_RUNNABLE = 2,        /**< runnable event not allowed in its state */
	TK_RULE_SEMAPHORE = 3,       /**< semaphore/spinlock event not allowed */
	TK_RULE_CORE_BUSY = 4,       /**< a second process allocated to a core */
	TK_RULE_CORE_MISMATCH = 5,   /**< a process left a core it does not run on */
	TK_RULE_RUNNABLE_OUTSIDE = 6,/**< runnable started/resumed outside its running process */
	TK_RULE_RUNNABLE_OPEN = 7,   /**< process terminated before its runnables */
	TK_RULE_INSTANCE_GAP = 8,    /**< a new instance number skips or repeats */
	TK_RULE_ACTIVATOR = 9,       /**< a process activated by itself or by a process/runnable */
	TK_RULE_COUNT = 10
} tk_rule;

/** A short name of the rule ("time", "process-state", ...). */
TK_API const char *tk_rule_name(tk_rule rule);

/** One violation; valid only during the callback. */
typedef struct tk_violation {
	tk_rule rule;
	uint64_t pos;       /**< the event's tk_event.pos (line or record number) */
	uint64_t time;      /**< the event's time, in ticks */
	const char *msg;    /**< one line, no trailing newline, names entity,
			       instance, state and event */
} tk_violation;

typedef void (*tk_violation_fn)(void *ctx, const tk_violation *v);

typedef struct tk_check tk_check;

/**
 * A validator for events of trace `t` (borrowed: it must outlive the
 * checker).  `fn` is called once for every violation, in event order.
 * Returns TK_OK with *out set, or TK_E_NOMEM with *out NULL and `err`
 * filled.
 */
TK_API int tk_check_new(tk_check **out, const tk_trace *t, tk_violation_fn fn,
			void *ctx, tk_error *err);

/**
 * Check one event (events must be given in the order read).  Returns TK_OK,
 * TK_E_USAGE (see the top of this header: nothing is counted) or
 * TK_E_NOMEM (the checker is then unusable), with `err` filled.
 */
TK_API int tk_check_event(tk_check *c, const tk_event *ev, tk_error *err);

/**
 * Strict checking: the specification only.  By default (0) the dialect of
 * Vector's btf-toolchain is accepted, which numbers successive activations
 * of a task with the same instance number once the previous one has
 * terminated.
 */
TK_API void tk_check_set_strict(tk_check *c, int strict);

/** Violations of `rule` so far; TK_RULE_COUNT gives the total. */
TK_API uint64_t tk_check_count(const tk_check *c, tk_rule rule);

/** Free; NULL is allowed. */
TK_API void tk_check_free(tk_check *c);

/* ------------------------------------------------------------------------ */
/* stats: timing metrics (ATF appendix B)                                    */
/* ------------------------------------------------------------------------ */

/** The metrics, in output order.  docs/analysis.md defines each one. */
typedef enum tk_metric {
	TK_METRIC_IPT = 0,  /**< initial pending time: first start - activate */
	TK_METRIC_CET = 1,      /**< core execution time: time RUNNING */
	TK_METRIC_GET = 2,      /**< gross execution time: terminate - first start */
	TK_METRIC_RT = 3,       /**< response time: terminate - activate */
	TK_METRIC_DT = 4,       /**< delta time: start(k) - start(k-1) */
	TK_METRIC_PER = 5,      /**< period: activate(k) - activate(k-1) */
	TK_METRIC_ST = 6,       /**< slack time: activate/start(k+1) - terminate(k) */
	TK_METRIC_JIT = 7,      /**< jitter: 1 - DT(k)/PER(k), dimensionless */
	TK_METRIC_PRE = 8,      /**< one preemption: preempt/suspend -> resume */
	TK_METRIC_NPRE = 9,     /**< preemptions per complete instance (a count) */
	TK_METRIC_WAIT = 10,     /**< one wait: wait -> release */
	TK_METRIC_POLL = 11,     /**< one polling spell: poll/poll_parking -> run/park */
	TK_METRIC_COUNT = 12,    /**< the number of metrics of entities (above) */
	/* the metrics of a cause-effect chain (tk_stats_add_chain) */
	TK_METRIC_REACTION = TK_METRIC_COUNT, /**< first effect - cause */
	TK_METRIC_AGE = 13,      /**< effect - the cause it leads back to */
	TK_METRIC_LOST = 14,     /**< causes that no effect leads back to (a count) */
	TK_METRIC_END = 15
} tk_metric;

/** "IPT", "CET", ... */
TK_API const char *tk_metric_name(tk_metric m);

/** Non-zero for the metrics that are times (all but JIT, NPRE and LOST). */
TK_API int tk_metric_is_time(tk_metric m);

/**
 * One result row: one metric of one entity, or of one cause-effect chain
 * (REACTION, AGE, LOST; tk_stats_add_chain).
 */
typedef struct tk_stat {
	uint32_t entity;     /**< entity id; TK_NONE for a chain's row */
	tk_etype type;       /**< T, I, R (or THR, SYSC); TK_ET_UNKNOWN for a chain */
	tk_metric metric;
	uint32_t chain;      /**< 0: an entity's row; else 1 + the chain's index */
	uint64_t count;      /**< number of values (LOST: the lost causes) */
	uint64_t min, max;   /**< in ticks (times) or as a count (NPRE); 0 for JIT
				  and LOST (tk_stats_value gives JIT's, and
				  every row's sum and average) */
	int64_t max_inst;    /**< instance that gave the max (the first one);
				  REACTION: the cause's writer's instance,
				  AGE: the effect's writer's instance */
	uint64_t max_time;   /**< time (ticks) of the event that completed it;
				  REACTION: the cause's time */
} tk_stat;

typedef struct tk_stats tk_stats;

/**
 * Metrics of the events of trace `t` (borrowed).  Returns TK_OK with *out
 * set, or TK_E_NOMEM with *out NULL and `err` filled.
 */
TK_API int tk_stats_new(tk_stats **out, const tk_trace *t, tk_error *err);

/**
 * Add the cause-effect chain `name` of the signals signals[0] .. [n - 1]
 * (n >= 2, all different), before the first event: its rows (REACTION,
 * AGE, LOST, in this order) follow the entities' rows, chains in the order
 * they were added.  A link is a process instance (the source entity and
 * instance of SIG read/write events) that reads S(i) and then writes
 * S(i+1); docs/analysis.md defines reaction, age and lost.  TK_OK,
 * TK_E_USAGE (fewer than 2 signals, a signal twice, an empty name or one
 * already added, after the first event) or TK_E_NOMEM.
 */
TK_API int tk_stats_add_chain(tk_stats *s, const char *name,
			      const char *const *signals, size_t n);

/**
 * Have the rows whose metric is a time (tk_metric_is_time) give the
 * percentiles p[0] .. p[n - 1] (1 <= n <= 64), each in millionths of a
 * percent (99.9 % is 99900000; 0 < p <= 100000000), before the first
 * event.  Exact, nearest rank: the smallest value with at least p % of
 * the row's values at or below it (the k-th smallest, k = ceil(p/100 *
 * count)).  The values wait in temporary files (sorted runs), merged at
 * tk_stats_finish: memory stays flat.  TK_OK, TK_E_USAGE (also after the
 * first event) or TK_E_NOMEM.
 */
TK_API int tk_stats_set_percentiles(tk_stats *s, const uint32_t *p, size_t n);

/** The number of percentiles asked (0: none). */
TK_API size_t tk_stats_percentile_count(const tk_stats *s);

/**
 * Percentile j of row i, in ticks, into *v: 1, or 0 when the row has none
 * (not a time, no value, no percentiles asked).  After tk_stats_finish.
 */
TK_API int tk_stats_percentile(const tk_stats *s, size_t i, size_t j, uint64_t *v);

/** Account one event.  TK_OK, TK_E_USAGE (also after tk_stats_finish) or
 *  TK_E_NOMEM, with `err` filled. */
TK_API int tk_stats_event(tk_stats *s, const tk_event *ev, tk_error *err);

/**
 * One value of one instance, as it is computed: `value` in ticks (a count
 * for NPRE) of metric `metric` of instance `inst` of `entity`, completed by
 * the event at `time`.  Every value that goes into the entities' rows is
 * reported, except JIT's (a ratio: its DT and PER are reported); the
 * chains' values are not.
 */
typedef void (*tk_stat_value_fn)(void *ctx, uint32_t entity, tk_metric metric,
				 int64_t inst, uint64_t value, uint64_t time);

/** Have `fn` called for each value (before the first event).  NULL: none. */
TK_API void tk_stats_on_value(tk_stats *s, tk_stat_value_fn fn, void *ctx);

/**
 * End of the events: builds the rows, sorted by entity name, then metric.
 * Instances still open (cut by the end of the trace) contribute only the
 * metrics already complete.  TK_OK, TK_E_USAGE (s NULL), TK_E_NOMEM, or
 * TK_E_IO (a temporary file of the percentiles could not be written or
 * read), with `err` filled.  Once called, no event is taken; called again
 * after it succeeded, it does nothing and returns TK_OK (after a failure,
 * it tries again).
 */
TK_API int tk_stats_finish(tk_stats *s, tk_error *err);

/** Number of rows (after tk_stats_finish) and the i-th row. */
TK_API size_t tk_stats_count(const tk_stats *s);
TK_API const tk_stat *tk_stats_get(const tk_stats *s, size_t i);

/**
 * The name of row i: its entity's or its chain's (*len its length), or
 * NULL when there is none.
 */
TK_API const char *tk_stats_row_name(const tk_stats *s, size_t i, size_t *len);

/**
 * Which value of a row tk_stats_format and tk_stats_value give: min, avg,
 * max, the sum, or the j-th percentile (tk_stats_set_percentiles) as
 * TK_STAT_PCT0 + j.
 */
typedef enum tk_stat_field {
	TK_STAT_MIN = 0,
	TK_STAT_AVG = 1,
	TK_STAT_MAX = 2,
	TK_STAT_SUM = 3,   /**< the sum of the row's values */
	TK_STAT_PCT0 = 16
} tk_stat_field;

/**
 * Write a value of row i as a decimal number.  Times are in `unit`, with
 * at most tk_time_digits(timebase, unit) places: exact where the value
 * ends within them ("21200", "12.5"), else rounded half up at the last
 * place ("21333.667" for 64001/3 ns, "1823.214" for 670000000/367483 ns).
 * NPRE min/max are integers, its average has at most 3 places (rounded
 * half up).  JIT is rounded half away from zero to 6 places (its average
 * is the mean of the per-instance values each rounded to 1e-12).  A row
 * without values (a chain's LOST, a REACTION or AGE of count 0) writes ""
 * (length 0), and so does a percentile of a row whose metric is not a
 * time.  Returns the length or a negative tk_status.
 */
TK_API int tk_stats_format(const tk_stats *s, size_t i, tk_stat_field f,
			   tk_unit unit, char *buf, size_t size);

/**
 * Write a value of row i exactly: an integer, a finite decimal, or the
 * reduced fraction "N/D" where the decimal does not end ("64001/3",
 * "670000/367483").  JIT min/max are the exact 1 - DT/PER ("-1/3"), its
 * average the exact mean of the per-instance values each rounded to
 * 1e-12.  Returns the length or a negative tk_status.
 */
TK_API int tk_stats_format_exact(const tk_stats *s, size_t i, tk_stat_field f,
				 tk_unit unit, char *buf, size_t size);

/**
 * A value of row i as a number, exactly: *num / *den (den >= 1, the
 * fraction reduced) in the row's own terms: ticks of the trace's time base
 * for a time (tk_metric_is_time), a count for NPRE, a pure number for JIT
 * (min and max are the exact 1 - DT/PER, the average and sum those of the
 * per-instance values rounded to 1e-12).  Returns 1 with the value, 0 when
 * the row has none (a chain's LOST: its count is the figure; a percentile
 * of a row that is not a time), TK_E_USAGE for an i or f out of range,
 * TK_E_RANGE when num or den does not fit 64 bits (the sum or average of
 * values whose sum passes 2^63 ticks).  After tk_stats_finish.
 */
TK_API int tk_stats_value(const tk_stats *s, size_t i, tk_stat_field f,
			  int64_t *num, uint64_t *den);

/**
 * The row of entity `entity`'s metric `m` (an entity's row, not a
 * chain's), or -1 when the entity has no value of that metric.  After
 * tk_stats_finish.
 */
TK_API long tk_stats_find(const tk_stats *s, uint32_t entity, tk_metric m);

/** Free; NULL is allowed. */
TK_API void tk_stats_free(tk_stats *s);

/* ------------------------------------------------------------------------ */
/* load: core load                                                           */
/* ------------------------------------------------------------------------ */

typedef struct tk_load tk_load;

/**
 * Called for each window [start, end) (ticks, clipped to the trace's span)
 * once it is complete; `busy[i]` is the time core tk_load_core(i) had a
 * process allocated in it, for the `ncores` cores known so far (a core
 * met later had 0).  Called for every window from the first event's to
 * the last's, those where no core has a process too (all 0): a span of N
 * windows makes N calls, so a caller picks the window for the span (the
 * CLI refuses more than ten million).  Returns TK_OK to go on; anything else
 * (a negative TK_E_* code) stops the windows, and tk_load_event() or
 * tk_load_finish() returns it, with their `err` filled ("the window
 * callback stopped the windows"), unless that tk_error already holds
 * this code: a callback may fill the caller's tk_error itself.
 */
typedef int (*tk_load_window_fn)(void *ctx, uint64_t start, uint64_t end,
				 const uint64_t *busy, size_t ncores);

/**
 * Core load of trace `t` (borrowed).  `window` > 0: windows of that many
 * ticks, aligned to multiples of it, reported through `fn`; 0: none.
 * Returns TK_OK with *out set, or TK_E_NOMEM with *out NULL and `err`
 * filled.
 */
TK_API int tk_load_new(tk_load **out, const tk_trace *t, uint64_t window,
		       tk_load_window_fn fn, void *ctx, tk_error *err);

/**
 * The idle processes: those whose name matches one of the glob `patterns`
 * ('*' any run of characters, '?' one, anything else itself); a
 * FreeRTOS trace logger task's name matches also without its "[c/id]"
 * or "(id)" prefix.  Their time on a core is its idle time
 * (tk_load_core_idle), not its busy time nor a window's.  Replaces the
 * default, tk_load_default_idle(); n == 0: no process is idle.  Call
 * before the first event.  TK_OK, TK_E_USAGE (after the first event, or
 * patterns NULL with n > 0) or TK_E_NOMEM.
 */
TK_API int tk_load_set_idle(tk_load *l, const char *const *patterns, size_t n);

/** The idle pattern a new tk_load of `t` uses: "IDLE*" for the FreeRTOS
 *  trace logger's traces (#creator), else NULL (none). */
TK_API const char *tk_load_default_idle(const tk_trace *t);

/**
 * At most `max` windows (0: no limit), so that a window far too short for
 * the trace is refused before its windows are made.  tk_load_event()
 * counts the windows up to each event (exactly: those the span so far
 * makes) before it makes them, and past `max` returns TK_E_RANGE, with
 * `err` "over MAX load windows: use a longer load window" naming `path`.
 * Where `path` is a regular file, once the windows up to an event would
 * cost more than reading it again (a few thousand windows, more for a
 * large file), its whole span is read ahead, once, with a reader of its
 * own (`opts` without warnings; NULL: the defaults): a trace whose windows
 * are too many is refused there, one whose windows are sensible is read
 * once.  Standard input or a pipe: tk_fd_spool() it first and give its
 * copy's "/dev/fd/N"; otherwise the windows are counted as they come.
 * `path` is copied, `opts` too but what it points to, which must stay
 * valid until the last tk_load_event().  Call before the first event.
 * TK_OK, or TK_E_USAGE (l NULL, after the first event, bad `opts`),
 * TK_E_NOMEM, with `err` filled.
 */
TK_API int tk_load_set_limit(tk_load *l, uint64_t max, const char *path,
			     const tk_reader_opts *opts, tk_error *err);

/** Account one event.  TK_OK, TK_E_USAGE (also after tk_load_finish),
 *  TK_E_NOMEM, TK_E_RANGE (past tk_load_set_limit()), TK_E_UNSUPPORTED
 *  (windows over a second time line: tk_load_length()), or what the window
 *  callback returned to stop, with `err` filled. */
TK_API int tk_load_event(tk_load *l, const tk_event *ev, tk_error *err);

/**
 * End of the events: processes still allocated count until the last event
 * time; the last window is reported.  TK_OK, TK_E_USAGE (l NULL),
 * TK_E_NOMEM, or what the window callback returned to stop, with `err`
 * filled.  Once called, no event is taken; called again after it
 * succeeded, it does nothing and returns TK_OK.
 */
TK_API int tk_load_finish(tk_load *l, tk_error *err);

/**
 * The time span [first, last] of the events (ticks); 0, 0 when none.
 * Over several time lines (an ATF file's TraceData, each a recording whose
 * time starts again) it is the first event's time and the last's, no span:
 * tk_load_length() is the time the load is of.
 */
TK_API void tk_load_span(const tk_load *l, uint64_t *first, uint64_t *last);

/**
 * The time the load is of (ticks): last - first of tk_load_span() for a
 * trace of one time line; over several, the sum of their spans, each from
 * its first event to its last.  Each time line is loaded as a trace of its
 * own (a process allocated at the end of one is not at the start of the
 * next), its busy times added to the others'.  With windows (tk_load_new()
 * with `window` > 0) a second time line is refused: tk_load_event()
 * returns TK_E_UNSUPPORTED at its first event, windows over times that
 * start again having no order.
 */
TK_API uint64_t tk_load_length(const tk_load *l);

/** The number of time lines with events (0 when none): 1 but for an input
 *  of several recordings (an ATF file's TraceData). */
TK_API uint32_t tk_load_time_lines(const tk_load *l);

/** Number of cores seen, core i's entity id and its busy time (ticks). */
TK_API size_t tk_load_core_count(const tk_load *l);
TK_API uint32_t tk_load_core(const tk_load *l, size_t i);
TK_API uint64_t tk_load_core_busy(const tk_load *l, size_t i);
/** Core i's idle time: the time idle processes ran on it (ticks). */
TK_API uint64_t tk_load_core_idle(const tk_load *l, size_t i);
/** 1 when entity `id` is an idle process that ran, else 0 (after
 * tk_load_finish()). */
TK_API int tk_load_entity_is_idle(const tk_load *l, uint32_t id);

/**
 * The process events that named a core other than the one their process
 * ran on (a broken trace, or a dialect): a process runs on one core at a
 * time, so its run there ended at that event.
 */
TK_API uint64_t tk_load_conflicts(const tk_load *l);

/**
 * The process events that allocated a core another process held (a broken
 * trace: check's core-busy): the other's run on it ended at that event.
 */
TK_API uint64_t tk_load_takeovers(const tk_load *l);

/**
 * Allocated time of entity `id` on core i (ticks; an idle one's too); tk_load_entity_busy()
 * with i == SIZE_MAX gives its total over all cores, UINT64_MAX when that
 * total does not fit 64 bits (instances on several cores at once, each
 * longer than 2^63 ticks).
 */
TK_API uint64_t tk_load_entity_busy(const tk_load *l, uint32_t id, size_t i);

/**
 * Number of cores entity `id` was allocated on (after tk_load_finish), and
 * in *cores those core indexes, increasing, with its time on each in
 * *busy (ticks, > 0): arrays valid until tk_load_free().  A listing of
 * every entity's cores costs the pairs that exist, not entities x cores.
 */
TK_API size_t tk_load_entity_cores(const tk_load *l, uint32_t id,
				   const uint32_t **cores, const uint64_t **busy);

/** Free; NULL is allowed. */
TK_API void tk_load_free(tk_load *l);

/**
 * Write the share part/whole as a percentage rounded half up to 2 places
 * ("37.50"); "-" when whole is 0.  Exact integer arithmetic.  Returns
 * its length, or TK_E_RANGE when it does not fit `size` bytes with its NUL.
 */
TK_API int tk_share_format(uint64_t part, uint64_t whole, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* verify: timing requirements (docs/verify.md)                              */
/* ------------------------------------------------------------------------ */

/** Requirements read from a YAML file (libyaml). */
typedef struct tk_reqs tk_reqs;

/**
 * Read the requirements file at `path` ("-" for standard input, named
 * "<stdin>" in the messages; docs/verify.md gives its format).
 * TK_OK with *out set; TK_E_IO (unreadable), TK_E_PARSE (bad YAML, an
 * unknown key or metric, a bad entity, unit or bound, a missing bound,
 * more than 64 distinct percentiles: `err` holds the line and column),
 * TK_E_USAGE (`path` NULL) or TK_E_NOMEM, *out NULL.
 */
TK_API int tk_reqs_read(tk_reqs **out, const char *path, tk_error *err);

/** The number of requirements and the name of the i-th. */
TK_API size_t tk_reqs_count(const tk_reqs *q);
TK_API const char *tk_reqs_name(const tk_reqs *q, size_t i);

/** Free; NULL is allowed. */
TK_API void tk_reqs_free(tk_reqs *q);

/** The verdict of one requirement on one trace. */
typedef struct tk_verdict {
	const char *name;    /**< the requirement's name */
	int ok;              /**< 1: it holds */
	const char *subject; /**< what was measured ("Task_A RT p99", "Core_1 load") */
	const char *text;    /**< one line: value, bound, margin and where, or
				  why there is no value (an absent entity) */
	const char *value;   /**< the worst value with its unit; "" when none */
	const char *bound;   /**< the bound it was held against ("max 2ms"); "" */
	const char *margin;  /**< bound - value for max, value - bound for min,
				  negative when it fails; "" */
	const char *where;   /**< entity (or core, chain) of the worst value; "" */
	int64_t inst;        /**< its instance, or TK_INST_NONE */
	int has_time;        /**< time is set: */
	uint64_t time;       /**< the worst instance's time (the event that
				  completed the value; a reaction's cause), a
				  window's start, in ticks */
} tk_verdict;

typedef struct tk_verify tk_verify;

/**
 * Verify the requirements `q` (borrowed) on the events of trace `t`
 * (borrowed).  Metrics come from one tk_stats (chains and percentiles
 * added as the requirements ask), loads from tk_load.  TK_OK with *out
 * set; TK_E_USAGE (`out`, `q` or `t` NULL) or TK_E_NOMEM, with `err`
 * filled and *out NULL.
 */
TK_API int tk_verify_new(tk_verify **out, const tk_reqs *q, const tk_trace *t,
			 tk_error *err);

/** Account one event.  TK_OK, TK_E_USAGE (also after tk_verify_finish),
 *  TK_E_NOMEM, TK_E_RANGE (a requirement's load window that is not a whole number of the trace's
 *  ticks, or that makes too many windows of the trace) or
 *  TK_E_UNSUPPORTED (a requirement's load windows over several time
 *  lines: an ATF TraceData whose time starts again), with `err` filled. */
TK_API int tk_verify_event(tk_verify *v, const tk_event *ev, tk_error *err);

/**
 * End of the events: one verdict per requirement.  TK_OK, TK_E_USAGE (v
 * NULL), TK_E_NOMEM,
 * TK_E_IO (a temporary file of the percentiles), TK_E_RANGE (a load window
 * that is not a whole number of the trace's ticks, or a comparison beyond
 * 128 bits), with `err` filled.  Once called, no event is taken; called
 * again after it succeeded, it does nothing and returns TK_OK.
 */
TK_API int tk_verify_finish(tk_verify *v, tk_error *err);

/** The verdicts (after tk_verify_finish), in the requirements' order. */
TK_API size_t tk_verify_count(const tk_verify *v);
TK_API const tk_verdict *tk_verify_get(const tk_verify *v, size_t i);
/** The number of requirements that failed. */
TK_API size_t tk_verify_failures(const tk_verify *v);

/** Free; NULL is allowed. */
TK_API void tk_verify_free(tk_verify *v);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_ANALYSIS_H */
