/*
 * pipe.c - a reader's decoding run ahead of its consumer (pipe.h).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe.h"

/* inputs smaller than this are read on one thread */
#define THREAD_MIN_BYTES ((uint64_t)8 << 20)
/*
 * A side that finds nothing to do (no block filled, or no block free)
 * looks again for SPIN_NS, a CPU pause apart, before it sleeps on the
 * condition variable: the other side mostly hands over a block within
 * that (a block of the shark reader takes some 50-100 us to fill), and a
 * sleep costs a system call on each side and, on a VM, the wake-up of an
 * idle virtual CPU.  On a 1 GiB S.Ha.R.K. dump (2 CPUs, a VM) the pipe's
 * 4789 handovers slept 650-3770 times without it, 30-735 times with
 * it; the loop's median went 0.438 -> 0.413 s (auto threads, 31
 * interleaved rounds) and 0.432 -> 0.410 s (--threads 1, 21), and in an
 * earlier series 0.403 -> 0.335 s and 0.416 -> 0.332 s (21).
 */
#define SPIN_NS 50000

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* worker: whether it must wait (the lock held, or not: a first look) */
static int worker_waits(tk_pipe *p)
{
	return !atomic_load(&p->quit) &&
	       (atomic_load(&p->stalled) || atomic_load(&p->count) == p->nblocks);
}

/* consumer: whether it must wait */
static int consumer_waits(tk_pipe *p)
{
	return !atomic_load(&p->count) && !atomic_load(&p->done);
}

/* Look at `waits` without the lock for up to SPIN_NS: 0 once it says
 * go, 1 if it still says wait. */
static int spin(tk_pipe *p, int (*waits)(tk_pipe *))
{
	uint64_t t0, now;
	unsigned i;

	if (!p->spin)
		return 1;
	t0 = tk_pipe_now_ns();
	for (i = 1;; i++) {
		if (!waits(p))
			return 0;
		cpu_pause();
		if (i % 32 == 0) {
			now = tk_pipe_now_ns();
			if (!now || now - t0 >= SPIN_NS || i >= (1u << 20))
				return 1;
		}
	}
}

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
		if (worker_waits(p) && !atomic_load(&p->stalled)) {
			/* every block full: the consumer frees one soon */
			pthread_mutex_unlock(&p->mu);
			spin(p, worker_waits);
			pthread_mutex_lock(&p->mu);
		}
		while (worker_waits(p))
			pthread_cond_wait(&p->cv, &p->mu);
		if (atomic_load(&p->quit))
			break;
		b = &p->blocks[(p->head + atomic_load(&p->count)) % p->nblocks];
		pthread_mutex_unlock(&p->mu);
		st = fill_block(p, b);
		pthread_mutex_lock(&p->mu);
		atomic_fetch_add(&p->count, 1);
		if (st == TK_PIPE_STALL)
			atomic_store(&p->stalled, 1);
		else if (st != TK_PIPE_MORE)
			atomic_store(&p->done, 1);
		pthread_cond_broadcast(&p->cv);
		if (atomic_load(&p->done))
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* the CPUs this process may run on */
static int cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
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
	p->spin = cpus() > 1;
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
		atomic_fetch_sub(&p->count, 1);
		pthread_cond_broadcast(&p->cv);
	}
	if (consumer_waits(p) && !atomic_load(&p->stalled)) {
		/* the worker is filling the next block */
		pthread_mutex_unlock(&p->mu);
		spin(p, consumer_waits);
		pthread_mutex_lock(&p->mu);
	}
	while (consumer_waits(p))
		pthread_cond_wait(&p->cv, &p->mu);
	if (!atomic_load(&p->count)) {
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
	atomic_store(&p->stalled, 0);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void tk_pipe_stop(tk_pipe *p)
{
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		atomic_store(&p->quit, 1);
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
	return bytes >= THREAD_MIN_BYTES && cpus() > 1;
}

uint64_t tk_pipe_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
