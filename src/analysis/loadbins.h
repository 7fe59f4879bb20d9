/*
 * loadbins.h - busy time per lane (core) in at most TK_LOAD_BINS windows of
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
#ifndef TK_LOADBINS_H
#define TK_LOADBINS_H

#include <stddef.h>
#include <stdint.h>

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

#endif
