#define _POSIX_C_SOURCE 200809L
/* test_temps.c - tk_temp_remove_all() removes every temporary output of
 * the process (tracekit.h): outputs and writers opened on several threads
 * at once, more of them than a fixed table once held, are all listed, and
 * none survives.  In `make tsan` too (TSAN_TESTS): the table is shared by
 * the threads. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NTHREADS 4
#define PER_THREAD 10 /* outputs; and one writer, one CTF directory */

static char dir[64];
static const tk_trace *trace;
static pthread_barrier_t go;

typedef struct job {
	int id, opened;
	tk_output *out[PER_THREAD];
	tk_writer *w, *ctf;
} job;

static void *open_many(void *arg)
{
	job *j = arg;
	char path[128];
	int k;

	pthread_barrier_wait(&go);
	for (k = 0; k < PER_THREAD; k++) {
		snprintf(path, sizeof(path), "%s/out%d_%d.txt", dir, j->id, k);
		if (tk_output_open(&j->out[k], path, NULL) == TK_OK &&
		    tk_output_write(j->out[k], "x", 1, NULL) == TK_OK)
			j->opened++;
	}
	snprintf(path, sizeof(path), "%s/w%d.btf", dir, j->id);
	if (tk_writer_open(&j->w, path, trace, NULL, NULL) == TK_OK)
		j->opened++;
	snprintf(path, sizeof(path), "%s/c%d.ctf", dir, j->id);
	if (tk_writer_open(&j->ctf, path, trace, NULL, NULL) == TK_OK)
		j->opened++;
	return NULL;
}

/* the entries of dir, "." and ".." aside */
static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

int main(void)
{
	static const char text[] = "#version 2.3.0\n#timescale ns\n"
				   "0,Core_1,0,T,A,0,start\n";
	pthread_t th[NTHREADS];
	job jobs[NTHREADS];
	tk_reader *r = NULL;
	const tk_event *ev;
	int i, k, opened = 0;

	snprintf(dir, sizeof(dir), "/tmp/tk_temps_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	CHECK(tk_reader_open_mem(&r, text, strlen(text), "t.btf", NULL, NULL) == TK_OK);
	if (!r)
		TEST_DONE();
	CHECK(tk_reader_next(r, &ev, NULL) == TK_OK);
	trace = tk_reader_trace(r);

	memset(jobs, 0, sizeof(jobs));
	pthread_barrier_init(&go, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++) {
		jobs[i].id = i;
		CHECK(pthread_create(&th[i], NULL, open_many, &jobs[i]) == 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		opened += jobs[i].opened;
	}
	pthread_barrier_destroy(&go);
	CHECK_EQ_U64(opened, NTHREADS * (PER_THREAD + 2));
	/* every one is a temporary file (or directory) beside its OUT */
	CHECK_EQ_U64(count_files(), NTHREADS * (PER_THREAD + 2));

	tk_temp_remove_all();
	CHECK_EQ_U64(count_files(), 0);

	/* given up afterwards: nothing to remove, no other entry touched */
	for (i = 0; i < NTHREADS; i++) {
		for (k = 0; k < PER_THREAD; k++)
			tk_output_abort(jobs[i].out[k]);
		tk_writer_abort(jobs[i].w);
		tk_writer_abort(jobs[i].ctf);
	}
	CHECK_EQ_U64(count_files(), 0);

	/* and the table still works: one more output, committed */
	{
		char path[128];
		tk_output *o = NULL;
		snprintf(path, sizeof(path), "%s/last.txt", dir);
		CHECK(tk_output_open(&o, path, NULL) == TK_OK);
		if (o)
			CHECK(tk_output_close(o, NULL) == TK_OK);
		CHECK(access(path, F_OK) == 0);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
	tk_reader_close(r);
	TEST_DONE();
}
