/*
 * analysis_exports.h - what the analysis layer offers the exports
 * (src/exports/) beyond its public headers (include/tracekit/analysis.h,
 * timeline.h): the maps and windows the exports keep per instance and per
 * core, which are no part of the public API.  The exports include this
 * header and never analysis_internal.h (tests/docs/layering.sh).
 */
#ifndef TK_ANALYSIS_EXPORTS_H
#define TK_ANALYSIS_EXPORTS_H

#include "../core/hashmap.h"
#include "tracekit/analysis.h"

#include <stddef.h>
#include <stdint.h>

/*
 * A map from (entity, instance) to a small fixed-size record: the records
 * in dense arrays (ent[i], inst[i], value i for i < count),
 * indexed by a tk_hashmap from a mix of the key to i; a deletion moves
 * the last record into the hole, so a map whose instances come and go (one
 * per activation) stays as small as the live set.  Values are `vsize`
 * bytes, zeroed on insertion.  Pointers into the map are valid until the
 * next insertion or deletion.
 */
typedef struct tk_imap {
	uint32_t *ent;
	int64_t *inst;
	unsigned char *vals;
	size_t vsize, cap, count;
	tk_hashmap idx;
} tk_imap;

void tk_imap_init(tk_imap *m, size_t vsize);
void *tk_imap_get(const tk_imap *m, uint32_t ent, int64_t inst);
/** The value for the key, inserted (zeroed) when absent; NULL: no memory. */
void *tk_imap_put(tk_imap *m, uint32_t ent, int64_t inst, int *created);
void tk_imap_del(tk_imap *m, uint32_t ent, int64_t inst);
void tk_imap_free(tk_imap *m);

/*
 * Busy time per lane (core) in at most TK_LOAD_BINS windows of
 * equal width, for the exports that draw core load over the whole trace
 * (perfetto's counter tracks, VCD's load variables).
 *
 * The window starts at one tick and doubles (neighbouring windows merged)
 * whenever the trace outgrows TK_LOAD_BINS windows, so the memory is bounded
 * and the counts stay exact: window b covers [first + b*binw,
 * first + (b+1)*binw) and holds the busy ticks of the lane in it.
 *
 * A lane keeps only its windows with busy time, as sorted (window, ticks)
 * pairs: a lane never busy costs nothing beyond its slot, one busy in k
 * windows about 10 bytes per window, so thousands of cores that each ran
 * briefly do not cost TK_LOAD_BINS counters each.
 */
#define TK_LOAD_BINS 1024u

/* a lane's windows with busy time: bin[i] (increasing) has busy[i] ticks */
typedef struct tk_loadlane {
	uint16_t *bin;
	uint64_t *busy;
	uint32_t n, cap;
} tk_loadlane;

typedef struct tk_loadbins {
	uint64_t first;        /* start of window 0 (the trace's first time) */
	uint64_t binw;         /* ticks per window, a power of two */
	size_t nbins;          /* windows in use */
	tk_loadlane *lane;     /* per lane (all zero until it is busy) */
	size_t nlanes;         /* lanes 0..nlanes-1 may have windows */
	size_t caplanes;
} tk_loadbins;

/** Empty windows of one tick starting at `first`. */
void tk_loadbins_init(tk_loadbins *lb, uint64_t first);
/**
 * Add the busy interval [start, end) of `lane`.  Times before `first` (a
 * trace read leniently may go back) are clamped to it; end < start counts
 * nothing.  0, or -1 when memory runs out.
 */
int tk_loadbins_add(tk_loadbins *lb, size_t lane, uint64_t start, uint64_t end);
/** Busy ticks of `lane` in window b (0 for a lane or window not used). */
uint64_t tk_loadbins_busy(const tk_loadbins *lb, size_t lane, size_t b);
void tk_loadbins_free(tk_loadbins *lb);

/*
 * No more windows from the next event on (the dataset's default window
 * over a trace of several time lines): its window callback is not called
 * again, and a new time line is taken as without a window.
 */
void tk_load_end_windows(tk_load *l);

/*
 * Exact nearest-rank percentiles p[0..np) (millionths of a percent,
 * np <= TK_PCTL_MAX) of rows of values, the values in a temporary file
 * (pctl.c); the report marks its histograms with them.  put: TK_OK, TK_E_NOMEM or TK_E_IO (then every later call
 * fails alike).  finish (once): out[row * np + j] = percentile j of each
 * row < nrows that had values, count(ctx, row) giving the number of values
 * row had (exactly: the rows are gathered by their counts).
 */
#define TK_PCTL_MAX 64
typedef struct tk_pctl tk_pctl;
tk_pctl *tk_pctl_new(const uint32_t *p, size_t np);
int tk_pctl_put(tk_pctl *pc, uint32_t row, uint64_t v);
int tk_pctl_finish(tk_pctl *pc, uint32_t nrows,
		   uint64_t (*count)(void *, uint32_t), void *ctx, uint64_t *out);
void tk_pctl_free(tk_pctl *pc);

#endif
