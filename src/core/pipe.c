/*
 * pipe.c - a reader's decoding run ahead of its consumer (pipe.h).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe.h"

/* inputs smaller than this are read on one thread */
#define THREAD_MIN_BYTES ((uint64_t)8 << 20)

static int fill_block(tk_pipe *p, tk_pipe_block *b)
{
	b->n = 0;
	b->status = p->fill(p->arg, b->items, p->cap, &b->n, &b->err);
	return b->status;
}

static void *worker(void *v)
{
	tk_pipe *p = v;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		tk_pipe_block *b;
		int st;
		while (!p->quit && (p->stalled || p->count == p->nblocks))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit)
			break;
		b = &p->blocks[(p->head + p->count) % p->nblocks];
		pthread_mutex_unlock(&p->mu);
		st = fill_block(p, b);
		pthread_mutex_lock(&p->mu);
		p->count++;
		if (st == TK_PIPE_STALL)
			p->stalled = 1;
		else if (st != TK_PIPE_MORE)
			p->done = 1;
		pthread_cond_broadcast(&p->cv);
		if (p->done)
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int tk_pipe_start(tk_pipe *p, size_t size, size_t cap, unsigned nblocks,
		  int threaded, tk_pipe_fill_fn fill, void *arg,
		  const char *name, tk_error *err)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	if (!threaded || nblocks < 2)
		nblocks = 1;
	p->fill = fill;
	p->arg = arg;
	p->cap = cap;
	p->nblocks = nblocks;
	p->blocks = calloc(nblocks, sizeof(*p->blocks));
	p->mem = size && cap > SIZE_MAX / size / nblocks
		 ? NULL : tk_bigbuf_alloc(size * cap * nblocks);
	if (!p->blocks || !p->mem) {
		tk_pipe_stop(p);
		return tk_err_nomem(err, name);
	}
	for (i = 0; i < nblocks; i++)
		p->blocks[i].items = (char *)p->mem + (size_t)i * size * cap;
	if (nblocks < 2)
		return TK_OK;
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		return TK_OK;       /* one thread, then */
	if (pthread_cond_init(&p->cv, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		return TK_OK;
	}
	p->threaded = 1;
	if (tk_thread_start(&p->th, worker, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		p->threaded = 0;
		return TK_OK;
	}
	p->running = 1;
	return TK_OK;
}

const tk_pipe_block *tk_pipe_next(tk_pipe *p)
{
	if (!p->threaded) {
		p->held = &p->blocks[0];
		fill_block(p, p->held);
		return p->held;
	}
	pthread_mutex_lock(&p->mu);
	if (p->held) {
		p->held = NULL;
		p->head = (p->head + 1) % p->nblocks;
		p->count--;
		pthread_cond_broadcast(&p->cv);
	}
	while (!p->count && !p->done)
		pthread_cond_wait(&p->cv, &p->mu);
	if (!p->count) {
		/* called again after the last block */
		pthread_mutex_unlock(&p->mu);
		p->over.status = TK_END;
		return &p->over;
	}
	p->held = &p->blocks[p->head];
	pthread_mutex_unlock(&p->mu);
	return p->held;
}

void tk_pipe_resume(tk_pipe *p)
{
	if (!p->threaded)
		return;
	pthread_mutex_lock(&p->mu);
	p->stalled = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void tk_pipe_stop(tk_pipe *p)
{
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->quit = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
		p->running = 0;
	}
	if (p->threaded) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		p->threaded = 0;
	}
	tk_bigbuf_free(p->mem);
	free(p->blocks);
	p->mem = NULL;
	p->blocks = NULL;
	p->held = NULL;
}

int tk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	/* signals are the caller's threads' (a handler never runs on a
	 * helper, in the middle of its work), but for the faults, which
	 * cannot be held back */
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int tk_pipe_want_thread(int opt, uint64_t bytes)
{
	if (opt >= 0)
		return opt > 0;
	return bytes >= THREAD_MIN_BYTES && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

uint64_t tk_pipe_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
