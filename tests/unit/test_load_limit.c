/* test_load_limit.c - tk_load_set_limit() and tk_fd_spool() through the
 * public API: a window far too short is refused before any of its windows
 * is made, the span is read ahead only once the windows would cost more
 * than a second reading, and a pipe is copied into a temporary file that
 * is gone once its descriptors are closed. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t nwin;

static int on_window(void *ctx, uint64_t start, uint64_t end,
		     const uint64_t *busy, size_t ncores)
{
	(void)ctx, (void)start, (void)end, (void)busy, (void)ncores;
	nwin++;
	return TK_OK;
}

/* a BTF trace in ns of n periods of `period` ns, A running the first
 * half of each: into buf, its length */
static size_t trace(char *buf, size_t size, int n, uint64_t period)
{
	size_t o = (size_t)snprintf(buf, size, "#version 2.2.0\n#timeScale ns\n");
	int i;

	for (i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o,
				      "%llu,Core_1,0,T,A,0,resume,\n%llu,Core_1,0,T,A,0,preempt,\n",
				      (unsigned long long)(i * period),
				      (unsigned long long)(i * period + period / 2));
	return o;
}

/* the events of `text` into a load of `window` ns limited to `max`
 * windows with `path` to read ahead: the status of the first event that
 * fails, or of the finish; the windows made in nwin */
static int run(const char *text, size_t len, uint64_t window, uint64_t max,
	       const char *path, tk_error *err)
{
	tk_reader *r = NULL;
	tk_load *l = NULL;
	const tk_event *ev;
	int rc;

	nwin = 0;
	tk_error_clear(err);
	if ((rc = tk_reader_open_mem(&r, text, len, "mem.btf", NULL, err)) < 0 ||
	    (rc = tk_load_new(&l, tk_reader_trace(r), window, on_window, NULL, err)) < 0 ||
	    (rc = tk_load_set_limit(l, max, path, NULL, err)) < 0)
		goto out;
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK)
		if ((rc = tk_load_event(l, ev, err)) < 0)
			goto out;
	if (rc == TK_END)
		rc = tk_load_finish(l, err);
out:
	tk_load_free(l);
	tk_reader_close(r);
	return rc;
}

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	static char small[1 << 16], big[1 << 16];
	char dir[] = "/tmp/tk-load-limit-XXXXXX", path[64], again[32], got[64];
	size_t nsmall, nbig;
	tk_error err;
	int fd, p[2], copy = 7, rc;
	ssize_t n;
	FILE *fp;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/big.btf", dir);
	/* 20 ms (the last event at 19.975 ms): 400 periods of 50 us; the
	 * file to read ahead spans 100 s */
	nsmall = trace(small, sizeof(small), 400, 50000);
	nbig = trace(big, sizeof(big), 2, 100000000000ull);
	fp = fopen(path, "w");
	CHECK(fp && fwrite(big, 1, nbig, fp) == nbig && fclose(fp) == 0);

	/* read ahead at once: 1 ns over 100 s is refused before a window */
	rc = run(big, nbig, 1, 10000000, path, &err);
	CHECK(rc == TK_E_RANGE);
	CHECK_EQ_U64(nwin, 0);
	CHECK_STR(err.input, path);
	CHECK_STR(err.msg, "over 10000000 load windows: use a longer load window");
	/* sensible windows (1998 of 10 us): no reading ahead, or the span
	 * of `path` (10 M windows) would refuse them */
	rc = run(small, nsmall, 10000, 1000000, path, &err);
	CHECK(rc == TK_OK);
	CHECK_EQ_U64(nwin, 1998);
	/* 19975 windows of 1 us: read ahead past a few thousand */
	rc = run(small, nsmall, 1000, 1000000, path, &err);
	CHECK(rc == TK_E_RANGE);
	CHECK(nwin > 0 && nwin <= 4096);
	/* the same without the file: all of them */
	rc = run(small, nsmall, 1000, 1000000, NULL, &err);
	CHECK(rc == TK_OK);
	CHECK_EQ_U64(nwin, 19975);
	/* no file to read ahead: counted as they come, refused before
	 * the windows past the limit are made */
	rc = run(small, nsmall, 1000, 19974, NULL, &err);
	CHECK(rc == TK_E_RANGE);
	CHECK(nwin <= 19974);
	CHECK(!strcmp(err.msg, "over 19974 load windows: use a longer load window"));
	/* a limit the windows meet exactly */
	rc = run(small, nsmall, 1000, 19975, NULL, &err);
	CHECK(rc == TK_OK);
	CHECK_EQ_U64(nwin, 19975);
	CHECK(tk_load_set_limit(NULL, 1, NULL, NULL, &err) == TK_E_USAGE);

	/* a pipe copied: the descriptor reads the copy from its start, and
	 * /dev/fd/N of the second descriptor reads it again */
	setenv("TMPDIR", dir, 1);
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], small, 1000) == 1000);
	close(p[1]);
	CHECK(tk_fd_spool(p[0], "the pipe", &copy, &err) == TK_OK);
	CHECK(copy >= 0);
	CHECK_EQ_U64(count_files(dir), 1); /* big.btf: the copy is unlinked */
	n = read(p[0], got, sizeof(got));
	CHECK(n == (ssize_t)sizeof(got) && !memcmp(got, small, sizeof(got)));
	snprintf(again, sizeof(again), "/dev/fd/%d", copy);
	fd = open(again, O_RDONLY);
	CHECK(fd >= 0 && lseek(fd, 0, SEEK_END) == 1000);
	if (fd >= 0)
		close(fd);
	close(copy);
	close(p[0]);
	/* a TMPDIR with no room: the input named, no descriptor */
	snprintf(again, sizeof(again), "%s/none", dir);
	setenv("TMPDIR", again, 1);
	CHECK(pipe(p) == 0);
	close(p[1]);
	copy = 7;
	CHECK(tk_fd_spool(p[0], "the pipe", &copy, &err) == TK_E_IO);
	CHECK(copy == -1);
	CHECK_STR(err.input, "the pipe");
	CHECK(!strncmp(err.msg, "cannot create a temporary file in ", 34));
	close(p[0]);
	CHECK(tk_fd_spool(0, NULL, NULL, &err) == TK_E_USAGE);
	unlink(path);
	CHECK(rmdir(dir) == 0); /* nothing left */
	TEST_DONE();
}
