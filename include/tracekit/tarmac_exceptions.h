/*
 * tarmac_exceptions.h - the exceptions of an Arm Tarmac log as ISR events.
 *
 * A tk_tarmac_exceptions is fed the records of a log (tracekit/tarmac.h)
 * in order and queues the events of the common model (tk_event) that
 * they give: each exception's entry to its return on its core.  These are
 * the events of the "tarmac" format of tk_reader_open(); a program that
 * reads the records anyway gets them in the same pass (docs/mappings.md,
 * "Tarmac").
 *
 * Included by tracekit.h.
 */
/* tk_error, tk_event, tk_trace and TK_API; first, as tracekit.h includes
 * this header at its end */
#include "tracekit.h"

#ifndef TRACEKIT_TARMAC_EXCEPTIONS_H
#define TRACEKIT_TARMAC_EXCEPTIONS_H

#include <stdint.h>

/* the records and tk_tarmac_opts */
#include "tracekit/tarmac.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The exception events of a log: the intervals from an exception's entry
 * to its return, as ISR events.  Fed with the log's records, exception
 * entry and return (E / EXC / ES records, IPSR and xPSR writes, EXC_RETURN
 * through BX LR, POP / LDM / LDR of pc, ERET) become ISR events per core,
 * named after the exception ("Reset", "HardFault", "SysTick", "IRQ12");
 * docs/mappings.md, "Tarmac", gives the rules.  These are the events of
 * the "tarmac" format of tk_reader_open(); with this API a program that
 * reads the records anyway (a profile, statistics) gets them in the same
 * pass.  The events' entities and time base are those of
 * tk_tarmac_exceptions_trace(): the time base is the unit of the first
 * stamp (cycles are written as 1 ns); stamps of another unit are converted
 * exactly where they can be, else taken as they are with a warning (an
 * error in strict mode).
 */
typedef struct tk_tarmac_exceptions tk_tarmac_exceptions;

/**
 * The exception events of the records of `tr` (borrowed for its CPU names
 * and input name: it must outlive them).  `opts` (NULL: the defaults) gives
 * strict mode and the warning callback.  TK_OK, TK_E_USAGE (an options
 * size no version had) or TK_E_NOMEM, with `err` filled.
 */
TK_API int tk_tarmac_exceptions_new(tk_tarmac_exceptions **out, const tk_tarmac *tr,
				    const tk_tarmac_opts *opts, tk_error *err);

/**
 * Feed the next record of the log (every record, in order).  The events it
 * gives are queued for tk_tarmac_exceptions_next().  Returns the number of
 * events queued (0 for most records: nothing to drain), or a negative
 * status with `err` filled (TK_E_NOMEM; in strict mode TK_E_RANGE for a
 * stamp that cannot be expressed in the time base; TK_E_USAGE after
 * tk_tarmac_exceptions_finish(): the record is not taken).
 */
TK_API int tk_tarmac_exceptions_record(tk_tarmac_exceptions *ex,
				       const tk_tarmac_record *rec, tk_error *err);

/**
 * The next queued event: TK_OK with *ev set (valid until the next call),
 * or TK_END when the queue is empty (feed the next record).
 */
TK_API int tk_tarmac_exceptions_next(tk_tarmac_exceptions *ex, const tk_event **ev);

/**
 * After the last record: exceptions still active stay open (no terminate
 * is made up; one warning says how many).
 */
TK_API void tk_tarmac_exceptions_finish(tk_tarmac_exceptions *ex);

/** The entities (cores, exceptions) and time base of the events. */
TK_API const tk_trace *tk_tarmac_exceptions_trace(const tk_tarmac_exceptions *ex);

/** Warnings so far. */
TK_API uint64_t tk_tarmac_exceptions_warning_count(const tk_tarmac_exceptions *ex);

/** Free; NULL is allowed. */
TK_API void tk_tarmac_exceptions_free(tk_tarmac_exceptions *ex);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_TARMAC_EXCEPTIONS_H */
