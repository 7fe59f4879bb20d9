/*
 * analysis_internal.h - what check, stats and load share: a hash map from
 * (entity, instance) to a small fixed-size record (analysis_exports.h), and
 * 128-bit helpers.
 */
#ifndef TK_ANALYSIS_INTERNAL_H
#define TK_ANALYSIS_INTERNAL_H

#include "tracekit/tracekit.h"
#include "../core/hashmap.h"
#include "../core/internal.h"
#include "analysis_exports.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef __int128 tk_i128;

/* tk_imap, the (entity, instance) map: analysis_exports.h */

/*
 * Fixed-size records taken from chunks of TK_SLAB_CHUNK records each, never
 * freed one by one and never moved: record i stays at the same address
 * until tk_slab_free().  Memory is what the records use plus one chunk,
 * with no allocator overhead per record.  Records are zeroed when taken.
 * The first TK_SLAB_SMALL chunks are calloc'ed; later ones are carved out
 * of blocks of TK_SLAB_BLOCK bytes mapped at once, zero already and marked
 * for huge pages where the system has them: a big slab (the metrics of
 * 100,000 tasks, tens of MB) costs a few page faults instead of one per
 * 4 KiB page and a memset.
 */
#define TK_SLAB_SMALL 16u
#define TK_SLAB_BLOCK ((size_t)8 << 20)
#define TK_SLAB_SHIFT 10u
#define TK_SLAB_CHUNK (1u << TK_SLAB_SHIFT)

typedef struct tk_slab {
	unsigned char **chunk;
	size_t nchunks, capchunks;
	size_t size;        /* bytes per record */
	uint32_t count;     /* records taken */
	/* chunks from TK_SLAB_SMALL on: carved out of blocks mapped at once
	 * (util.c), not calloc'ed one by one */
	unsigned char **blocks;
	size_t nblocks, capblocks;
	unsigned char *bnext;
	size_t bleft;
} tk_slab;

void tk_slab_init(tk_slab *s, size_t size);
/** A new zeroed record, its index in *idx; NULL: no memory (or 2^32 - 1 records). */
void *tk_slab_new(tk_slab *s, uint32_t *idx);
/** Record i (i < count). */
static inline void *tk_slab_at(const tk_slab *s, uint32_t i)
{
	return s->chunk[i >> TK_SLAB_SHIFT] + (size_t)(i & (TK_SLAB_CHUNK - 1)) * s->size;
}
void tk_slab_free(tk_slab *s);

/*
 * The FreeRTOS trace logger's dialect (#creator "FreeRTOS trace logger"),
 * where a process's creation is written as `preempt` with the note
 * "create ..." (docs/btf.md): the process is READY afterwards, and it is
 * no preemption.
 */
int tk_trace_is_freertos(const tk_trace *t);
/* does the glob pat ('*', '?') match s[0..n)? */
int tk_glob_match(const char *pat, const char *s, size_t n);
static inline int tk_event_is_creation(int freertos, const tk_event *ev)
{
	return freertos && ev->kind == TK_EV_PREEMPT && ev->note &&
	       ev->note_len >= 6 && memcmp(ev->note, "create", 6) == 0 &&
	       (ev->note_len == 6 || ev->note[6] == ' ');
}

/* timeline.c: the run intervals that go on at t end there and go on from
 * there (for windows); the events that named a core other than the one
 * their process ran on */
void tk_timeline_cut(tk_timeline *tl, uint64_t t);
uint64_t tk_timeline_conflicts(const tk_timeline *tl);
uint64_t tk_timeline_takeovers(const tk_timeline *tl);

/* tk_grow_zero (a per-entity array that holds index id): src/core/internal.h */

/* tk_fmt_u128, tk_fmt_ratio, tk_unit_factor: src/core/internal.h */

/*
 * Cause-effect chains (chain.c): each reaction (age = 0) or age (age = 1)
 * of chain `chain` goes to fn as it is found, with the instance and time
 * the row's maximum names (the cause's for a reaction, the effect's for an
 * age).
 */
typedef struct tk_chains tk_chains;
typedef void (*tk_chain_value_fn)(void *ctx, uint32_t chain, int age,
				  uint64_t value, int64_t inst, uint64_t time);
tk_chains *tk_chains_new(const tk_trace *t, tk_chain_value_fn fn, void *ctx);
/* TK_OK, TK_E_USAGE (fewer than 2 signals, an empty or repeated name, a
 * signal twice) or TK_E_NOMEM */
int tk_chains_add(tk_chains *cs, const char *name, size_t nlen,
		  const char *const *sig, const size_t *slen, size_t nsig);
uint32_t tk_chains_count(const tk_chains *cs);
const char *tk_chains_name(const tk_chains *cs, uint32_t i, size_t *len);
uint64_t tk_chains_lost(const tk_chains *cs, uint32_t i);
int tk_chains_event(tk_chains *cs, const tk_event *ev);
/* a new time line (tk_tlines): no value goes on from the one before (its
 * causes with no effect stay lost) */
int tk_chains_restart(tk_chains *cs);
void tk_chains_free(tk_chains *cs);

/* tk_pctl, exact percentiles of rows of values: analysis_exports.h */

/*
 * What every analysis's _event and _finish do with their tk_error (util.c).
 * tk_an_check_event: TK_OK, or TK_E_USAGE with `err` filled for a NULL
 * object (`obj`) or event, or an event that names an entity (target,
 * source, core) the trace `t` does not have (an event of another trace).
 * tk_an_fail: fills `err` for the failure `rc` (< 0) of function `fn`
 * ("tk_stats_event") and returns rc; TK_OK and TK_END pass through.
 * tk_an_finished: TK_E_USAGE for `fn` ("tk_stats_event") called after
 * `finish` ("tk_stats_finish").  An analysis's _finish, once called,
 * refuses events; once it succeeded, it does nothing more and returns
 * TK_OK (a failed one, out of memory say, may be called again).
 */
void tk_an_no_input(const void *obj, const char *fn, tk_error *err);
int tk_an_check_ids(const tk_trace *t, const tk_event *ev, const char *fn,
		    tk_error *err);
int tk_an_fail(tk_error *err, int rc, const char *fn);
int tk_an_finished(tk_error *err, const char *fn, const char *finish);

/* inline, so that a caller (and the static analyzer) sees that a NULL
 * object gives TK_E_USAGE before anything is read from it */
static inline int tk_an_check_event(const tk_trace *t, const void *obj,
				    const tk_event *ev, const char *fn,
				    tk_error *err)
{
	if (!obj || !ev) {
		tk_an_no_input(obj, fn, err);
		return TK_E_USAGE;
	}
	return tk_an_check_ids(t, ev, fn, err);
}

#endif
