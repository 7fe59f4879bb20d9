/*
 * readahead.c - a second thread that reads an input's chunks ahead of the
 * thread that decodes them (readahead.h).
 *
 * The counts the two threads share are atomics, so that a chunk passes
 * without a lock.  Each side sleeps only on the mutex and a condition
 * variable, after it set its "waits" flag and looked at the count once
 * more; the other side changes the count first and looks at the flag
 * after (both sequentially consistent), so one of them always sees the
 * other: no wake-up is lost.
 */
#include "readahead.h"
#include "pipe.h"

#include <stdlib.h>
#include <string.h>

/* The worker: every chunk in order, into the buffers the decoder gave
 * back; it ends after the last chunk or after a failed read. */
static void *worker(void *v)
{
	tk_readahead *ra = v;
	unsigned tail = 0;
	int r;

	for (r = 0; r < ra->nranges; r++) {
		uint64_t from = ra->range[r][0], end = ra->range[r][1];
		while (from < end) {
			uint64_t to = end - from > ra->chunk ? from + ra->chunk
							     : end;
			tk_readahead_buf *b;
			if (atomic_load(&ra->filled) == ra->nbuf) {
				/* all read: sleep until half are free */
				pthread_mutex_lock(&ra->mu);
				atomic_store(&ra->worker_waits, 1);
				while (atomic_load(&ra->filled) > ra->nbuf / 2 &&
				       !atomic_load(&ra->quit))
					pthread_cond_wait(&ra->cv_free, &ra->mu);
				atomic_store(&ra->worker_waits, 0);
				pthread_mutex_unlock(&ra->mu);
			}
			if (atomic_load(&ra->quit))
				return NULL;
			b = &ra->bufs[tail];
			b->from = from;
			b->to = to;
			b->rc = ra->read(ra->arg, b->data, from, to, &b->err);
			tail = (tail + 1) % ra->nbuf;
			atomic_fetch_add(&ra->filled, 1);
			if (atomic_load(&ra->decoder_waits)) {
				pthread_mutex_lock(&ra->mu);
				pthread_cond_signal(&ra->cv_filled);
				pthread_mutex_unlock(&ra->mu);
			}
			if (b->rc < 0)
				return NULL;
			from = to;
		}
	}
	return NULL;
}

int tk_readahead_start(tk_readahead *ra, tk_readahead_fn read, void *arg,
		       size_t unit, uint64_t chunk, unsigned nbuf,
		       uint64_t r0_from, uint64_t r0_to, uint64_t r1_from,
		       uint64_t r1_to)
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
	ra->range[0][1] = r0_to;
	ra->range[1][0] = r1_from;
	ra->range[1][1] = r1_to;
	ra->nranges = r1_from < r1_to ? 2 : 1;
	for (i = 0; i < (unsigned)ra->nranges; i++)
		if (ra->range[i][0] < ra->range[i][1])
			ra->total += (ra->range[i][1] - ra->range[i][0] - 1) /
					     chunk + 1;
	bytes = (size_t)chunk * unit;
	ra->bufs = calloc(nbuf, sizeof(*ra->bufs));
	ra->mem = tk_bigbuf_alloc(bytes * nbuf);
	if (!ra->bufs || !ra->mem)
		goto fail;
	for (i = 0; i < nbuf; i++)
		ra->bufs[i].data = (uint8_t *)ra->mem + (size_t)i * bytes;
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
	if (tk_thread_start(&ra->th, worker, ra) != 0) {
		pthread_cond_destroy(&ra->cv_filled);
		pthread_cond_destroy(&ra->cv_free);
		pthread_mutex_destroy(&ra->mu);
		goto fail;
	}
	ra->running = 1;
	return TK_OK;
fail:
	tk_readahead_stop(ra);
	return TK_E_NOMEM;
}

const tk_readahead_buf *tk_readahead_next(tk_readahead *ra)
{
	const tk_readahead_buf *b;

	if (!ra->running)
		return NULL;
	if (ra->held) {
		unsigned left;
		ra->held = 0;
		ra->head = (ra->head + 1) % ra->nbuf;
		left = atomic_fetch_sub(&ra->filled, 1) - 1;
		if (left <= ra->nbuf / 2 && atomic_load(&ra->worker_waits)) {
			pthread_mutex_lock(&ra->mu);
			pthread_cond_signal(&ra->cv_free);
			pthread_mutex_unlock(&ra->mu);
		}
	}
	if (ra->ended || ra->taken == ra->total)
		return NULL;
	if (!atomic_load(&ra->filled)) {
		pthread_mutex_lock(&ra->mu);
		atomic_store(&ra->decoder_waits, 1);
		while (!atomic_load(&ra->filled))
			pthread_cond_wait(&ra->cv_filled, &ra->mu);
		atomic_store(&ra->decoder_waits, 0);
		pthread_mutex_unlock(&ra->mu);
	}
	b = &ra->bufs[ra->head];
	ra->held = 1;
	ra->taken++;
	/* the worker reads nothing after a failure */
	if (b->rc < 0)
		ra->ended = 1;
	return b;
}

void tk_readahead_stop(tk_readahead *ra)
{
	if (ra->running) {
		pthread_mutex_lock(&ra->mu);
		atomic_store(&ra->quit, 1);
		pthread_cond_broadcast(&ra->cv_free);
		pthread_mutex_unlock(&ra->mu);
		pthread_join(ra->th, NULL);
		pthread_cond_destroy(&ra->cv_filled);
		pthread_cond_destroy(&ra->cv_free);
		pthread_mutex_destroy(&ra->mu);
		ra->running = 0;
	}
	tk_bigbuf_free(ra->mem);
	free(ra->bufs);
	ra->mem = NULL;
	ra->bufs = NULL;
}
