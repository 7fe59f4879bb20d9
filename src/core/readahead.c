/*
 * readahead.c - an input's chunks read ahead of the thread that decodes
 * them (readahead.h).
 *
 * Chunk k goes to buffer k % nbuf.  A reader claims chunk k by moving
 * `claimed` from k to k + 1, which it may do only while k < released +
 * nbuf (the buffer is free: the decoder gave back chunk k - nbuf); it
 * then fills the buffer and publishes it by setting the buffer's `ready`
 * to k + 1.  The decoder takes chunk `taken` once its buffer says so.
 *
 * The counts are sequentially consistent atomics, so that a chunk passes
 * without a lock.  Each side sleeps only on the mutex and a condition
 * variable, after it set its "waits" flag and looked at the counts once
 * more; the other side changes a count first and looks at the flag after,
 * so one of them always sees the other: no wake-up is lost.
 */
#include "readahead.h"
#include "pipe.h"

#include <stdlib.h>
#include <string.h>

/* units [*from, *to) of chunk k */
static void chunk_units(const tk_readahead *ra, uint64_t k, uint64_t *from,
			uint64_t *to)
{
	int r = k >= ra->n0;
	uint64_t end = ra->range[r][1];

	if (r)
		k -= ra->n0;
	*from = ra->range[r][0] + k * ra->chunk;
	*to = end - *from > ra->chunk ? *from + ra->chunk : end;
}

/* Claim the next chunk if its buffer is free: 1 with *k, or 0. */
static int claim(tk_readahead *ra, uint64_t *k)
{
	uint_fast64_t c = atomic_load(&ra->claimed);

	for (;;) {
		if (c >= ra->total || atomic_load(&ra->failed) ||
		    c >= atomic_load(&ra->released) + ra->nbuf)
			return 0;
		if (atomic_compare_exchange_weak(&ra->claimed, &c, c + 1)) {
			*k = c;
			return 1;
		}
	}
}

/* Read claimed chunk k into its buffer and publish it. */
static void fill(tk_readahead *ra, uint64_t k)
{
	tk_readahead_buf *b = &ra->bufs[k % ra->nbuf];

	chunk_units(ra, k, &b->from, &b->to);
	b->rc = ra->read(ra->arg, b->data, b->from, b->to, &b->err);
	if (b->rc < 0)
		atomic_store(&ra->failed, 1);
	atomic_store(&b->ready, k + 1);
	if (atomic_load(&ra->decoder_waits)) {
		pthread_mutex_lock(&ra->mu);
		pthread_cond_signal(&ra->cv_filled);
		pthread_mutex_unlock(&ra->mu);
	}
}

/* Whether the worker has nothing more to read (it ends). */
static int worker_done(tk_readahead *ra)
{
	return atomic_load(&ra->quit) || atomic_load(&ra->failed) ||
	       atomic_load(&ra->claimed) >= ra->total;
}

/* Whether the worker, asleep, should wake: half the buffers are free
 * (or it ends) and it is not parked. */
static int worker_may_go(tk_readahead *ra)
{
	if (worker_done(ra))
		return 1;
	return !atomic_load(&ra->parked) &&
	       atomic_load(&ra->released) + ra->nbuf >=
		       atomic_load(&ra->claimed) + (ra->nbuf + 1) / 2;
}

/* The worker: every chunk nobody else claimed, while it is not parked. */
static void *worker(void *v)
{
	tk_readahead *ra = v;
	uint64_t k;

	while (!worker_done(ra)) {
		if (!atomic_load(&ra->parked) && claim(ra, &k)) {
			fill(ra, k);
			continue;
		}
		pthread_mutex_lock(&ra->mu);
		atomic_store(&ra->worker_waits, 1);
		while (!worker_may_go(ra))
			pthread_cond_wait(&ra->cv_free, &ra->mu);
		atomic_store(&ra->worker_waits, 0);
		pthread_mutex_unlock(&ra->mu);
	}
	return NULL;
}

static void wake_worker(tk_readahead *ra)
{
	if (ra->running && atomic_load(&ra->worker_waits) && worker_may_go(ra)) {
		pthread_mutex_lock(&ra->mu);
		pthread_cond_signal(&ra->cv_free);
		pthread_mutex_unlock(&ra->mu);
	}
}

int tk_readahead_start(tk_readahead *ra, tk_readahead_fn read, void *arg,
		       size_t unit, uint64_t chunk, unsigned nbuf,
		       uint64_t r0_from, uint64_t r0_to, uint64_t r1_from,
		       uint64_t r1_to, int thread)
{
	size_t bytes;
	unsigned i;

	memset(ra, 0, sizeof(*ra));
	if (nbuf < 2 || !chunk || !unit || chunk > SIZE_MAX / unit / nbuf)
		return TK_E_NOMEM;
	ra->read = read;
	ra->arg = arg;
	ra->chunk = chunk;
	ra->nbuf = nbuf;
	ra->range[0][0] = r0_from;
	ra->range[0][1] = r0_to > r0_from ? r0_to : r0_from;
	ra->range[1][0] = r1_from;
	ra->range[1][1] = r1_to > r1_from ? r1_to : r1_from;
	ra->n0 = (ra->range[0][1] - r0_from + chunk - 1) / chunk;
	ra->total = ra->n0 + (ra->range[1][1] - r1_from + chunk - 1) / chunk;
	bytes = (size_t)chunk * unit;
	ra->bufs = calloc(nbuf, sizeof(*ra->bufs));
	ra->mem = tk_bigbuf_alloc(bytes * nbuf);
	if (!ra->bufs || !ra->mem)
		goto fail;
	for (i = 0; i < nbuf; i++) {
		ra->bufs[i].data = (uint8_t *)ra->mem + (size_t)i * bytes;
		atomic_init(&ra->bufs[i].ready, 0);
	}
	if (pthread_mutex_init(&ra->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&ra->cv_free, NULL) != 0) {
		pthread_mutex_destroy(&ra->mu);
		goto fail;
	}
	if (pthread_cond_init(&ra->cv_filled, NULL) != 0) {
		pthread_cond_destroy(&ra->cv_free);
		pthread_mutex_destroy(&ra->mu);
		goto fail;
	}
	ra->sync = 1;
	if (thread) {
		if (tk_thread_start(&ra->th, worker, ra) != 0)
			goto fail;
		ra->running = 1;
	}
	ra->active = 1;
	return TK_OK;
fail:
	tk_readahead_stop(ra);
	return TK_E_NOMEM;
}

const tk_readahead_buf *tk_readahead_next(tk_readahead *ra)
{
	tk_readahead_buf *b;
	uint64_t k;
	uint_fast64_t c;

	if (!ra->active)
		return NULL;
	if (ra->held) {
		ra->held = 0;
		atomic_fetch_add(&ra->released, 1);
		wake_worker(ra);
	}
	if (ra->ended || ra->taken == ra->total)
		return NULL;
	k = ra->taken;
	b = &ra->bufs[k % ra->nbuf];
	c = k;
	if (atomic_load(&b->ready) == k + 1) {
		/* read ahead */
	} else if (atomic_compare_exchange_strong(&ra->claimed, &c, k + 1)) {
		/* nobody has claimed it: read it here */
		fill(ra, k);
	} else {
		/* another thread is reading it */
		pthread_mutex_lock(&ra->mu);
		atomic_store(&ra->decoder_waits, 1);
		while (atomic_load(&b->ready) != k + 1)
			pthread_cond_wait(&ra->cv_filled, &ra->mu);
		atomic_store(&ra->decoder_waits, 0);
		pthread_mutex_unlock(&ra->mu);
	}
	ra->held = 1;
	ra->taken++;
	/* nothing is taken after a failure */
	if (b->rc < 0)
		ra->ended = 1;
	return b;
}

int tk_readahead_pump(tk_readahead *ra)
{
	uint64_t k;

	if (!ra->active || !claim(ra, &k))
		return 0;
	fill(ra, k);
	return 1;
}

void tk_readahead_park(tk_readahead *ra, int park)
{
	if (!ra->active)
		return;
	atomic_store(&ra->parked, park);
	if (!park)
		wake_worker(ra);
}

void tk_readahead_stop(tk_readahead *ra)
{
	if (ra->running) {
		pthread_mutex_lock(&ra->mu);
		atomic_store(&ra->quit, 1);
		pthread_cond_broadcast(&ra->cv_free);
		pthread_mutex_unlock(&ra->mu);
		pthread_join(ra->th, NULL);
		ra->running = 0;
	}
	if (ra->sync) {
		pthread_cond_destroy(&ra->cv_filled);
		pthread_cond_destroy(&ra->cv_free);
		pthread_mutex_destroy(&ra->mu);
		ra->sync = 0;
	}
	ra->active = 0;
	tk_bigbuf_free(ra->mem);
	free(ra->bufs);
	ra->mem = NULL;
	ra->bufs = NULL;
}
