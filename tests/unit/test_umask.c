#define _GNU_SOURCE
/* test_umask.c - outputs get the usual mode under the process's umask
 * (0666 for a file, 0777 for a directory, less the umask), and the library
 * never changes the umask to learn it: umask() is process-wide, so another
 * thread's file made in between would get mode 0666.  This program's own
 * umask() takes the place of the C library's for the library it links. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int umask_calls;

mode_t umask(mode_t mask)
{
	umask_calls++;
	return (mode_t)syscall(SYS_umask, mask);
}

static unsigned mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 0777) : 01000;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/tk_umask_XXXXXX", path[128];
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_output *out = NULL;
	const tk_trace *t;
	const tk_event *ev;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: test_umask TRACE.btf\n");
		return 2;
	}
	CHECK(mkdtemp(dir) != NULL);
	syscall(SYS_umask, 027);

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	CHECK(tk_output_open(&out, path, NULL) == TK_OK);
	CHECK(tk_output_write(out, "x\n", 2, NULL) == TK_OK);
	CHECK(tk_output_close(out, NULL) == TK_OK);
	CHECK(mode_of(path) == 0640);

	/* a file written over keeps its own permission bits */
	CHECK(chmod(path, 0604) == 0);
	CHECK(tk_output_open(&out, path, NULL) == TK_OK);
	CHECK(tk_output_close(out, NULL) == TK_OK);
	CHECK(mode_of(path) == 0604);

	/* a directory output (CTF) */
	rc = tk_reader_open(&r, argv[1], NULL, NULL);
	CHECK(rc == TK_OK);
	t = tk_reader_trace(r);
	snprintf(path, sizeof(path), "%s/c.ctf", dir);
	CHECK(tk_writer_open(&w, path, t, NULL, NULL) == TK_OK);
	while ((rc = tk_reader_next(r, &ev, NULL)) == TK_OK)
		CHECK(tk_writer_write(w, ev, NULL) == TK_OK);
	CHECK(rc == TK_END);
	CHECK(tk_writer_close(w, NULL) == TK_OK);
	CHECK(mode_of(path) == 0750);
	tk_reader_close(r);

	CHECK(umask_calls == 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
	TEST_DONE();
}
