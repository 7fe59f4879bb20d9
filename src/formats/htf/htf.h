/* htf.h - what the HTF reader, writer and vocabulary share. */
#ifndef TK_HTF_H
#define TK_HTF_H

#include "../../core/internal.h"
#include "../../core/synth.h"

/* The six entity types of HTF 1.0, in the order (and with the ids) of the
 * specification's TypeTable example. */
enum { HTF_TASK, HTF_ISR, HTF_RUNNABLE, HTF_CODEBLOCK, HTF_SIGNAL,
       HTF_SEMAPHORE, HTF_NTYPES };

typedef struct htf_event_name {
	const char *htf;      /* as in the spec's event table */
	tk_evkind kind;       /* in the common model */
} htf_event_name;

/** "Task", "ISR", ... */
const char *htf_type_name(int t);
/** The common-model type of HTF type t (T, I, R, IB, SIG, SEM). */
tk_etype htf_type_etype(int t);
/** The HTF type of a common-model type, or -1. */
int htf_type_of_etype(tk_etype et);
/** The HTF type named s (ASCII case ignored), or -1. */
int htf_type_lookup(const char *s, size_t len);
/** The spec's event table of type t; *n receives its length. */
const htf_event_name *htf_events(int t, size_t *n);
/** The spec id of event `kind` in type t's table, or -1 if it has none. */
int htf_event_id(int t, tk_evkind kind);

/* The synthesis rules of HTF (src/core/synth.h; docs/mappings.md). */
extern const tk_synth_rules htf_synth_rules;
/** The synthesis kind (TK_SK_*) of HTF type t (-1: unknown type). */
int htf_synth_kind(int t);

int htf_probe(const uint8_t *buf, size_t len);
int htf_reader_open(tk_reader *r, tk_error *err);
int htf_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			  size_t max, tk_error *err);
int htf_reader_skip(tk_reader *r, uint64_t start, tk_error *err);
void htf_reader_close(tk_reader *r);

#endif
