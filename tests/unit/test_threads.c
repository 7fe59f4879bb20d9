#define _POSIX_C_SOURCE 200809L
/* test_threads.c - what tracekit.h's paragraph on threads promises: objects
 * of different traces used on different threads at once (a reader, its
 * stats, a writer each) give what they give on one thread; a trace whose
 * reader has ended is read from several threads at once.  In `make tsan`
 * (TSAN_TESTS), where a data race fails it.
 * usage: test_threads WORKDIR TRACE... (2 to 8 traces) */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define MAXT 8

typedef struct job {
	const char *path, *work;
	int id;
	uint64_t events, rows, rt_sum;
	int rc;
} job;

/* one trace: read, stats, written to BTF; the counts and RT maxima */
static void *run(void *arg)
{
	job *j = arg;
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	const tk_event *ev;
	tk_error err;
	char out[4096];
	size_t i;
	int rc;

	j->rc = -1;
	snprintf(out, sizeof out, "%s/thread-%d.btf", j->work, j->id);
	tk_writer_opts_init(&wo);
	wo.format = "btf";
	if (tk_reader_open(&r, j->path, NULL, &err) < 0 ||
	    tk_stats_new(&st, tk_reader_trace(r), &err) < 0 ||
	    tk_writer_open(&w, out, tk_reader_trace(r), &wo, &err) < 0)
		goto out;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		j->events++;
		if (tk_stats_event(st, ev, NULL) < 0 || tk_writer_write(w, ev, &err) < 0)
			goto out;
	}
	if (rc < 0 || tk_stats_finish(st, NULL) < 0)
		goto out;
	rc = tk_writer_close(w, &err);
	w = NULL;
	if (rc < 0)
		goto out;
	j->rows = tk_stats_count(st);
	for (i = 0; i < j->rows; i++) {
		const tk_stat *s = tk_stats_get(st, i);
		if (s->metric == TK_METRIC_RT)
			j->rt_sum += s->max;
	}
	j->rc = 0;
out:
	tk_writer_abort(w);
	tk_stats_free(st);
	tk_reader_close(r);
	return NULL;
}

/* a read-only trace, read from several threads: the names of its entities */
static const tk_trace *shared_trace;
static uint64_t name_bytes(void)
{
	uint64_t n = 0;
	size_t i, len;

	for (i = 0; i < tk_trace_entity_count(shared_trace); i++) {
		const tk_entity *e = tk_trace_entity(shared_trace, (uint32_t)i);
		tk_trace_str(shared_trace, e->name, &len);
		n += len + (uint64_t)e->type;
	}
	return n;
}

static uint64_t got_bytes[MAXT];
static void *read_names(void *arg)
{
	int k = *(int *)arg;

	got_bytes[k] = name_bytes();
	return NULL;
}

int main(int argc, char **argv)
{
	job one[MAXT], many[MAXT];
	pthread_t th[MAXT];
	int idx[MAXT];
	int n = argc - 2, k;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	uint64_t want;

	if (n < 2 || n > MAXT)
		return 2;
	/* each trace on the main thread alone, then all at once */
	for (k = 0; k < n; k++) {
		memset(&one[k], 0, sizeof one[k]);
		one[k].path = argv[k + 2];
		one[k].work = argv[1];
		one[k].id = k;
		run(&one[k]);
		CHECK(one[k].rc == 0);
		many[k] = one[k];
		many[k].events = many[k].rows = many[k].rt_sum = 0;
		many[k].id = k + MAXT;
	}
	for (k = 0; k < n; k++)
		CHECK(pthread_create(&th[k], NULL, run, &many[k]) == 0);
	for (k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < n; k++) {
		CHECK(many[k].rc == 0);
		CHECK_EQ_U64(many[k].events, one[k].events);
		CHECK_EQ_U64(many[k].rows, one[k].rows);
		CHECK_EQ_U64(many[k].rt_sum, one[k].rt_sum);
	}
	/* a trace whose reader has ended, read by every thread at once */
	CHECK(tk_reader_open(&r, argv[2], NULL, &err) == TK_OK);
	if (!r)
		return 1;
	while (tk_reader_next(r, &ev, &err) == TK_OK)
		;
	shared_trace = tk_reader_trace(r);
	want = name_bytes();
	for (k = 0; k < n; k++) {
		idx[k] = k;
		CHECK(pthread_create(&th[k], NULL, read_names, &idx[k]) == 0);
	}
	for (k = 0; k < n; k++) {
		pthread_join(th[k], NULL);
		CHECK_EQ_U64(got_bytes[k], want);
	}
	tk_reader_close(r);
	TEST_DONE();
}
