#define _POSIX_C_SOURCE 200809L
/* test_jobs.c - tk_jobs_run() (jobs.h): every task runs once, its return
 * reaches its done call, the done calls come on the caller's thread in the
 * tasks' order whatever order the tasks end in, and with 0 or 1 thread the
 * tasks run on the caller's thread, run and done alternating.  In `make
 * tsan` (TSAN_TESTS): the tasks write their own slots, done reads them. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define N 64

typedef struct ctx {
	pthread_t caller;
	int ran[N];        /* written by task i alone */
	int other_thread;  /* a task ran off the caller's thread (per task) */
	int off[N];
	size_t ndone, done_order[N];
	int done_rc[N], done_here, seen_ran;
	char log[4 * N];   /* 'r' and 'd' in the order they came (1 thread) */
	size_t nlog;
} ctx;

static int task(void *arg, size_t i)
{
	ctx *c = arg;
	struct timespec ts = { 0, (long)((N - i) % 7) * 200000L };

	/* later tasks end sooner: the done calls must still be in order */
	nanosleep(&ts, NULL);
	c->ran[i]++;
	c->off[i] = !pthread_equal(pthread_self(), c->caller);
	return i % 5 == 3 ? -(int)i : (int)i * 2;
}

static int task_logged(void *arg, size_t i)
{
	ctx *c = arg;

	c->log[c->nlog++] = 'r';
	return task(arg, i);
}

static void done(void *arg, size_t i, int rc)
{
	ctx *c = arg;

	c->done_here += pthread_equal(pthread_self(), c->caller) != 0;
	c->seen_ran += c->ran[i] == 1; /* the task's writes are visible */
	c->done_order[c->ndone++] = i;
	c->done_rc[i] = rc;
	if (c->nlog < sizeof(c->log))
		c->log[c->nlog++] = 'd';
}

static void check_run(unsigned threads, size_t n, int logged)
{
	ctx c;
	tk_error err;
	size_t i;
	int off = 0, rc;

	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	tk_error_clear(&err);
	rc = tk_jobs_run(n, threads, logged ? task_logged : task, done, &c, &err);
	CHECK(rc == TK_OK);
	CHECK_EQ_U64(c.ndone, n);
	CHECK_EQ_U64((uint64_t)c.done_here, n);
	CHECK_EQ_U64((uint64_t)c.seen_ran, n);
	for (i = 0; i < n; i++) {
		CHECK_EQ_U64((uint64_t)c.ran[i], 1);
		CHECK_EQ_U64(c.done_order[i], i);
		CHECK(c.done_rc[i] == (i % 5 == 3 ? -(int)i : (int)i * 2));
		off += c.off[i];
	}
	if (threads <= 1 || n <= 1) {
		/* on the caller's thread, run and done alternating */
		CHECK(off == 0);
		if (logged) {
			for (i = 0; i < n; i++)
				CHECK(c.log[2 * i] == 'r' && c.log[2 * i + 1] == 'd');
		}
	} else {
		/* the tasks ran on threads started for them */
		CHECK(off == (int)n);
	}
}

int main(void)
{
	tk_error err;

	check_run(0, N, 1);
	check_run(1, N, 1);
	check_run(2, N, 0);
	check_run(4, N, 0);
	check_run(16, 5, 0);  /* more threads than tasks */
	check_run(4, 1, 1);   /* one task: on the caller's thread */
	check_run(4, 0, 0);   /* no task */
	/* done may be NULL */
	CHECK(tk_jobs_run(3, 2, task, NULL, &(ctx){ .caller = pthread_self() }, NULL) == TK_OK);
	/* no run: TK_E_USAGE, nothing run */
	tk_error_clear(&err);
	CHECK(tk_jobs_run(3, 2, NULL, done, NULL, &err) == TK_E_USAGE);
	CHECK(strstr(err.msg, "run is NULL") != NULL);
	TEST_DONE();
}
