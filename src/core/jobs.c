/* jobs.c - independent tasks on a few threads (tracekit/jobs.h). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "tracekit/jobs.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct jobs {
	pthread_mutex_t mu;
	pthread_cond_t finished;  /* a task returned */
	size_t n, next;           /* tasks; the next one to take */
	int *rc;                  /* each task's return */
	unsigned char *over;      /* each task returned */
	tk_job_fn run;
	void *ctx;
} jobs;

static void *worker(void *arg)
{
	jobs *j = arg;
	size_t i;
	int rc;

	for (;;) {
		pthread_mutex_lock(&j->mu);
		i = j->next < j->n ? j->next++ : j->n;
		pthread_mutex_unlock(&j->mu);
		if (i == j->n)
			break;
		rc = j->run(j->ctx, i);
		pthread_mutex_lock(&j->mu);
		j->rc[i] = rc;
		j->over[i] = 1;
		pthread_cond_signal(&j->finished);
		pthread_mutex_unlock(&j->mu);
	}
	return NULL;
}

/* every task on the caller's thread, in order */
static void run_here(size_t from, size_t n, tk_job_fn run, tk_job_done_fn done,
		     void *ctx)
{
	size_t i;
	int rc;

	for (i = from; i < n; i++) {
		rc = run(ctx, i);
		if (done)
			done(ctx, i, rc);
	}
}

int tk_jobs_run(size_t n, unsigned threads, tk_job_fn run, tk_job_done_fn done,
		void *ctx, tk_error *err)
{
	jobs j;
	pthread_t *th = NULL;
	unsigned started = 0, k;
	size_t i;
	int rc;

	if (!run)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_jobs_run: run is NULL");
	if (threads > n)
		threads = (unsigned)n;
	if (threads <= 1) {
		run_here(0, n, run, done, ctx);
		return TK_OK;
	}
	j.n = n;
	j.next = 0;
	j.run = run;
	j.ctx = ctx;
	j.rc = calloc(n, sizeof(*j.rc));
	j.over = calloc(n, 1);
	th = calloc(threads, sizeof(*th));
	if (!j.rc || !j.over || !th ||
	    pthread_mutex_init(&j.mu, NULL) != 0) {
		free(j.rc);
		free(j.over);
		free(th);
		run_here(0, n, run, done, ctx);
		return TK_OK;
	}
	if (pthread_cond_init(&j.finished, NULL) != 0)
		goto no_threads;
	for (k = 0; k < threads; k++)
		if (pthread_create(&th[started], NULL, worker, &j) == 0)
			started++;
	if (!started) {
		pthread_cond_destroy(&j.finished);
		goto no_threads;
	}
	/* the tasks' ends, in order, as they come */
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&j.mu);
		while (!j.over[i])
			pthread_cond_wait(&j.finished, &j.mu);
		rc = j.rc[i];
		pthread_mutex_unlock(&j.mu);
		if (done)
			done(ctx, i, rc);
	}
	for (k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	pthread_cond_destroy(&j.finished);
	pthread_mutex_destroy(&j.mu);
	free(j.rc);
	free(j.over);
	free(th);
	return TK_OK;
no_threads:
	pthread_mutex_destroy(&j.mu);
	free(j.rc);
	free(j.over);
	free(th);
	run_here(0, n, run, done, ctx);
	return TK_OK;
}
