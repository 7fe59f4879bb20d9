/*
 * readahead.h - an input's chunks read ahead of the thread that decodes
 * them, by a worker thread or by threads that have time to spare.
 *
 * A reader that reads a file with pread() pays the kernel's copy of each
 * chunk on its own thread, between the chunks it decodes.  Here the
 * chunks, in an order given at the start, are read into a ring of
 * buffers, and the decoding thread takes them one after the other: the
 * copy runs beside the decoding instead of before it.  Only the raw
 * chunks cross between the threads (16 bytes a record for S.Ha.R.K.),
 * not the events made of them.
 *
 * Who reads a chunk claims it first (an atomic count of the chunks
 * claimed, in order), so that any thread may read ahead:
 *  - the worker, if one was started, reads while a buffer is free and it
 *    is not parked (tk_readahead_park());
 *  - any other thread may read one chunk with tk_readahead_pump(), say a
 *    consumer of the decoded events between two blocks of them, while
 *    the decoding runs on another thread;
 *  - the decoder reads the next chunk itself when nobody has claimed it
 *    yet, and waits only for a chunk that another thread is reading.
 * So the copy needs no third thread beside a decoding thread and its
 * consumer, and nothing waits for a reader that is not reading.
 *
 * The order is one or two ranges of units (records, say) read `chunk`
 * units at a time, each range from its start; the read function (the
 * reader's own, with its own error messages) fills a buffer with units
 * [from, to), and may be called by several threads at once for different
 * chunks.  After a failed read nothing more is claimed: the decoder takes
 * the chunks before it and then the failure.
 *
 * One thread at a time may take chunks (tk_readahead_next()); a reader
 * whose decoding moves between threads hands it over under its own
 * synchronization (src/core/pipe.h does).
 */
#ifndef TK_READAHEAD_H
#define TK_READAHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Fill buf with units [from, to): TK_OK, or a failure with err filled. */
typedef int (*tk_readahead_fn)(void *arg, uint8_t *buf, uint64_t from,
			       uint64_t to, tk_error *err);

/* A chunk read: units [from, to) at data, or the failure to read them. */
typedef struct tk_readahead_buf {
	uint8_t *data;
	uint64_t from, to;
	int rc;              /* TK_OK or the read function's failure */
	tk_error err;        /* rc < 0 */
	atomic_uint_fast64_t ready;  /* 1 + the chunk read into it, or 0 */
} tk_readahead_buf;

typedef struct tk_readahead {
	tk_readahead_fn read;
	void *arg;
	uint64_t range[2][2];  /* [from, to) of each range, in order */
	uint64_t chunk;        /* units a chunk (the last of a range: less) */
	uint64_t n0;           /* chunks of the first range */
	uint64_t total;        /* chunks in all */
	unsigned nbuf;         /* chunk k is read into bufs[k % nbuf] */
	tk_readahead_buf *bufs;
	void *mem;
	/* the decoder's: chunks taken; the last one is held until the next
	 * call; a failed chunk was taken (no more) */
	uint64_t taken;
	int held;
	int ended;
	int active;            /* started and not stopped */
	/* shared: chunks claimed by readers, given back by the decoder */
	atomic_uint_fast64_t claimed, released;
	atomic_int failed;         /* a read failed: claim no more */
	atomic_int parked;         /* the worker reads nothing */
	atomic_int quit;
	atomic_int worker_waits;   /* the worker sleeps on cv_free */
	atomic_int decoder_waits;  /* the decoder sleeps on cv_filled */
	int sync;                  /* mu and the conditions are set up */
	int running;               /* th was created */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_free, cv_filled;
} tk_readahead;

/*
 * Start reading the ranges [r0_from, r0_to), then [r1_from, r1_to) (none
 * when r1_from == r1_to), `chunk` units of `unit` bytes at a time, into
 * nbuf (>= 2) buffers; with `thread`, a worker starts reading at once
 * (without, the chunks are read by tk_readahead_pump() and by the decoder
 * itself).  TK_OK, or TK_E_NOMEM (no memory or no thread: the caller
 * reads on its own).  A zeroed tk_readahead may be given to
 * tk_readahead_stop().
 */
int tk_readahead_start(tk_readahead *ra, tk_readahead_fn read, void *arg,
		       size_t unit, uint64_t chunk, unsigned nbuf,
		       uint64_t r0_from, uint64_t r0_to, uint64_t r1_from,
		       uint64_t r1_to, int thread);

/*
 * Give back the chunk held, if any, and take the next one in the order
 * (read here when nobody has claimed it, waited for when another thread
 * is reading it): NULL once every chunk was taken.  The chunk stays valid
 * until the next call or tk_readahead_stop().
 */
const tk_readahead_buf *tk_readahead_next(tk_readahead *ra);

/*
 * Read the next chunk nobody has claimed, if a buffer is free for it, on
 * the calling thread (any thread, beside the worker and the decoder):
 * 1 if a chunk was read, 0 if none was to be read now.
 */
int tk_readahead_pump(tk_readahead *ra);

/* Park the worker (it finishes the read it is in, then reads nothing)
 * or let it go on; from any one thread at a time. */
void tk_readahead_park(tk_readahead *ra, int park);

/* Stop the worker (it finishes the read it is in) and free the buffers;
 * nobody may pump or take chunks any more. */
void tk_readahead_stop(tk_readahead *ra);

#endif
