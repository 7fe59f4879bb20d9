/*
 * pipe.h - a reader's decoding run ahead of its consumer, in blocks.
 *
 * A reader whose per-event work splits in two (say: decode and merge the
 * records, then fill the events) puts the first half in a fill function
 * that writes whole blocks of items, and hands the items out one by one
 * from the block it holds.  The fill function runs either inline, when the
 * block in hand is used up (one thread), or on a second thread that keeps
 * a few blocks filled ahead of the consumer (tk_pipe_start with threaded
 * set).  Both run the same fill function on the same state, so the two
 * give the same items in the same order.
 *
 * A fill function that meets something only the consumer may do (a record
 * that needs the slow path with its warnings, which must reach the caller
 * after the events before it) ends its block with TK_PIPE_STALL: the
 * worker then waits, touching nothing, until the consumer has used the
 * block, done what was needed on the shared state and called
 * tk_pipe_resume().  TK_END or an error also ends a block; the error is
 * reported after the block's items.
 *
 * A side that finds nothing to do spins for a few tens of microseconds
 * before it sleeps (pipe.c: SPIN_NS), since the other side mostly hands
 * over a block within that (not where the process has one CPU only).
 *
 * Only the fill function touches the producer's state while the worker
 * runs; the consumer may touch it once it holds a block that ended with
 * TK_PIPE_STALL (until it resumes), or after tk_pipe_stop().
 */
#ifndef TK_PIPE_H
#define TK_PIPE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "internal.h"

/* a block's end: more follows, or the producer waits for the consumer
 * (neither is TK_END, which is 1) */
enum { TK_PIPE_MORE = 2, TK_PIPE_STALL = 3 };

/*
 * Fill `block` (room for `cap` items) with n items: returns TK_PIPE_MORE
 * (the block is full, or the fill chose to end it), TK_PIPE_STALL, TK_END
 * (nothing follows) or a negative status with err filled.  n may be 0.
 */
typedef int (*tk_pipe_fill_fn)(void *arg, void *block, size_t cap,
			       size_t *n, tk_error *err);

typedef struct tk_pipe_block {
	void *items;
	size_t n;
	int status;         /* how the block ended (see tk_pipe_fill_fn) */
	tk_error err;       /* status < 0 */
} tk_pipe_block;

typedef struct tk_pipe {
	tk_pipe_fill_fn fill;
	void *arg;
	size_t cap;
	unsigned nblocks;
	tk_pipe_block *blocks;
	void *mem;
	int threaded;
	int spin;              /* the process may run on two CPUs or more */
	/* threaded: blocks [head, head + count) are filled, in order;
	 * count, stalled, quit and done change under mu (atomics: a side
	 * about to wait looks at them without it for a while first) */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;     /* count, stalled or quit changed */
	unsigned head;
	atomic_uint count;
	atomic_int stalled;   /* the worker waits for tk_pipe_resume() */
	atomic_int quit;
	atomic_int done;      /* the worker filled its last block */
	int running;          /* th was created */
	tk_pipe_block *held;  /* the consumer's block */
	tk_pipe_block over;   /* handed out after the last block: TK_END */
} tk_pipe;

/*
 * Set up a pipe of `nblocks` blocks of `cap` items of `size` bytes; with
 * `threaded` (and nblocks >= 2), a worker thread starts filling at once.
 * TK_OK, or TK_E_NOMEM with err filled (`name` names the input).  A
 * zeroed tk_pipe may be given to tk_pipe_stop().
 */
int tk_pipe_start(tk_pipe *p, size_t size, size_t cap, unsigned nblocks,
		  int threaded, tk_pipe_fill_fn fill, void *arg,
		  const char *name, tk_error *err);

/*
 * The next filled block, in order (the one held before is given back
 * first).  The block stays the consumer's until the next call.
 */
const tk_pipe_block *tk_pipe_next(tk_pipe *p);

/* After a block that ended with TK_PIPE_STALL: let the producer go on. */
void tk_pipe_resume(tk_pipe *p);

/* Stop the worker (if any) and free the blocks. */
void tk_pipe_stop(tk_pipe *p);

/*
 * pthread_create() for a reader's helper thread, with every signal but the
 * faults blocked in it (they stay the caller's).  0 or an errno value.
 */
int tk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

/*
 * Whether a reader should decode on a second thread: `opt` is the
 * tk_reader_opts threads field (0 never, 1 always, -1 when `bytes`, the
 * input's size, is large enough to pay for a thread and the process may
 * run on a second CPU: its affinity, as `taskset` sets it).
 */
int tk_pipe_want_thread(int opt, uint64_t bytes);
/*
 * A monotonic clock in nanoseconds (0 if it cannot be read), for a reader
 * with auto threads that times what the thread gains (see shark_reader.c).
 */
uint64_t tk_pipe_now_ns(void);

#endif
