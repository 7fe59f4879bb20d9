/*
 * readahead.h - a second thread that reads an input's chunks ahead of the
 * thread that decodes them.
 *
 * A reader that reads a file with pread() pays the kernel's copy of each
 * chunk on its own thread, between the chunks it decodes.  Here a worker
 * reads the chunks, in an order given at the start, into a ring of
 * buffers, and the decoding thread takes them one after the other: the
 * copy runs beside the decoding instead of before it.  Only the raw
 * chunks cross between the threads (16 bytes a record for S.Ha.R.K.),
 * not the events made of them.
 *
 * The order is one or two ranges of units (records, say) read `chunk`
 * units at a time, each range from its start; the read function (the
 * reader's own, with its own error messages) fills a buffer with units
 * [from, to).  The worker sleeps when every buffer is full and is woken
 * when half of them are free again, and the decoder sleeps only when the
 * next chunk is not read yet, so that the threads rarely make a system
 * call to wake each other.
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
} tk_readahead_buf;

typedef struct tk_readahead {
	tk_readahead_fn read;
	void *arg;
	uint64_t range[2][2];  /* [from, to) of each range, in order */
	int nranges;
	uint64_t chunk;        /* units a chunk (the last of a range: less) */
	unsigned nbuf;
	tk_readahead_buf *bufs;
	void *mem;
	/* buffers [head, head + filled) are read, in order; the decoder
	 * holds bufs[head] from tk_readahead_next() to the next call */
	unsigned head;
	int held;
	uint64_t total, taken;     /* chunks in all, taken by the decoder */
	int ended;                 /* a failed chunk was taken: no more */
	atomic_uint filled;
	atomic_int worker_waits;   /* the worker sleeps on cv_free */
	atomic_int decoder_waits;  /* the decoder sleeps on cv_filled */
	atomic_int quit;
	int running;               /* th was created */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_free, cv_filled;
} tk_readahead;

/*
 * Start reading the ranges [r0_from, r0_to), then [r1_from, r1_to) (none
 * when r1_from == r1_to), `chunk` units of `unit` bytes at a time, into
 * nbuf (>= 2) buffers.  TK_OK, or TK_E_NOMEM (no memory or no thread:
 * the caller reads on its own).  A zeroed tk_readahead may be given to
 * tk_readahead_stop().
 */
int tk_readahead_start(tk_readahead *ra, tk_readahead_fn read, void *arg,
		       size_t unit, uint64_t chunk, unsigned nbuf,
		       uint64_t r0_from, uint64_t r0_to, uint64_t r1_from,
		       uint64_t r1_to);

/*
 * Give back the chunk held, if any, and take the next one in the order
 * (waiting for it to be read): NULL once every chunk was taken.  The
 * chunk stays valid until the next call or tk_readahead_stop().
 */
const tk_readahead_buf *tk_readahead_next(tk_readahead *ra);

/* Stop the worker (it finishes the read it is in) and free the buffers. */
void tk_readahead_stop(tk_readahead *ra);

#endif
