#define _POSIX_C_SOURCE 200809L
/* test_input.c - tk_input_open(): an input opened once, its format probed
 * from the bytes it keeps, then the event reader or the Tarmac record
 * reader on it; through pipes (read once), files and forced formats. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A BTF trace of n start/terminate pairs, in a malloc'd string. */
static char *btf_text(int n, size_t *len)
{
	size_t cap = 64 + (size_t)n * 80, at;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	at = (size_t)snprintf(s, cap, "#version 2.2\n#timeScale ns\n");
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(s + at, cap - at,
				       "%d,Core_0,0,T,Task_%d,0,start\n%d,Core_0,0,T,Task_%d,0,terminate\n",
				       10 * i, i % 7, 10 * i + 5, i % 7);
	*len = at;
	return s;
}

static const char tarmac_text[] =
	"0 ns E Reset\n"
	"10 ns IT (00000800:00000000) 00000800 2900 T16 CMP r1,#0\n"
	"20 ns R r9 00000001\n"
	"30 ns MNW4___D 20000000 00000001\n"
	"40 ns IT (00000802:00000001) 00000802 4770 T16 BX lr\n";

/* A pipe whose read end is named /dev/fd/N in `path`, fed with `len`
 * bytes by a child process (so that more than the pipe's buffer can go
 * through); the child's pid. */
static pid_t feed_pipe(const char *data, size_t len, char *path, size_t size)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t off = 0;
		close(fd[0]);
		while (off < len) {
			ssize_t w = write(fd[1], data + off, len - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fd[1]);
	snprintf(path, size, "/dev/fd/%d", fd[0]);
	return pid;
}

static void close_pipe(const char *path, pid_t pid)
{
	int st;

	close(atoi(path + 8));
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static uint64_t count_events(tk_reader *r, uint64_t *last_time)
{
	const tk_event *ev;
	tk_error err;
	uint64_t n = 0;

	tk_error_clear(&err);
	while (tk_reader_next(r, &ev, &err) == TK_OK) {
		n++;
		*last_time = ev->time;
	}
	return n;
}

/* More than the probe's window through a pipe: every event is read. */
static void test_btf_pipe(void)
{
	size_t len;
	char *text = btf_text(20000, &len), path[32];
	tk_input *in = NULL;
	tk_reader *r = NULL;
	tk_error err;
	uint64_t last = 0;
	pid_t pid;

	CHECK(text != NULL && len > 65536 * 4);
	pid = feed_pipe(text, len, path, sizeof(path));
	CHECK(pid > 0);
	tk_error_clear(&err);
	CHECK(tk_input_open(&in, path, NULL, &err) == TK_OK);
	CHECK_STR(tk_input_format(in)->name, "btf");
	CHECK(tk_reader_open_input(&r, in, NULL, &err) == TK_OK);
	CHECK_STR(tk_reader_format(r), "btf");
	CHECK_EQ_U64(count_events(r, &last), 40000);
	CHECK_EQ_U64(last, 10 * 19999 + 5);
	tk_reader_close(r);
	close_pipe(path, pid);
	free(text);
}

/* A Tarmac log through a pipe, probed, then read as records. */
static void test_tarmac_pipe(void)
{
	char path[32];
	tk_input *in = NULL;
	tk_tarmac *tr = NULL;
	tk_tarmac_record rec;
	tk_error err;
	int n = 0, first_line = 0;
	pid_t pid;

	pid = feed_pipe(tarmac_text, sizeof(tarmac_text) - 1, path, sizeof(path));
	CHECK(pid > 0);
	tk_error_clear(&err);
	CHECK(tk_input_open(&in, path, NULL, &err) == TK_OK);
	CHECK_STR(tk_input_format(in)->name, "tarmac");
	CHECK(tk_tarmac_open_input(&tr, in, NULL, &err) == TK_OK);
	while (tk_tarmac_next(tr, &rec, &err) == TK_OK) {
		if (!n)
			first_line = (int)rec.line;
		n++;
	}
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(first_line, 1);
	CHECK_STR(tk_tarmac_name(tr), path);
	tk_tarmac_close(tr);
	close_pipe(path, pid);
}

/* A forced format, the errors, and an input closed unread. */
static void test_files(void)
{
	char path[] = "/tmp/tk_test_input_XXXXXX";
	int fd = mkstemp(path);
	size_t len;
	char *text = btf_text(3, &len);
	tk_input *in = NULL;
	tk_reader *r = NULL;
	tk_error err;
	uint64_t last = 0;

	CHECK(fd >= 0 && text != NULL);
	CHECK(write(fd, text, len) == (ssize_t)len);
	close(fd);

	tk_error_clear(&err);
	CHECK(tk_input_open(&in, path, NULL, &err) == TK_OK);
	CHECK_STR(tk_input_format(in)->name, "btf");
	tk_input_close(in);   /* nothing read: no leak, no reader */
	tk_input_close(NULL);

	/* --from: the named format, its reader on the same input */
	CHECK(tk_input_open(&in, path, "btf", &err) == TK_OK);
	CHECK(tk_reader_open_input(&r, in, NULL, &err) == TK_OK);
	CHECK_EQ_U64(count_events(r, &last), 6);
	tk_reader_close(r);
	/* a forced format whose probe finds none of its signs: refused
	 * (it read the BTF as a Tarmac log of warnings), unless insisted on */
	in = NULL;
	CHECK(tk_input_open(&in, path, "tarmac", &err) == TK_E_FORMAT);
	CHECK(in == NULL);
	CHECK(strstr(err.msg, "does not look like tarmac") != NULL);
	CHECK(strstr(err.msg, "tk_reader_opts.force_format") != NULL);
	CHECK(strstr(err.msg, "--") == NULL); /* no flag: a library user has none */
	{
		tk_reader_opts o;
		tk_reader_opts_init(&o);
		o.format = "tarmac";
		o.force_format = 1;
		CHECK(tk_input_open_opts(&in, path, &o, &err) == TK_OK);
		CHECK_STR(tk_input_format(in)->name, "tarmac");
		tk_input_close(in);
		/* tk_reader_open() alike */
		o.format = "shark";
		o.force_format = 0;
		CHECK(tk_reader_open(&r, path, &o, &err) == TK_E_FORMAT);
		CHECK(r == NULL);
		CHECK(strstr(err.msg, "does not look like shark (S.Ha.R.K. FTrace dump)") != NULL);
		o.force_format = 1;
		CHECK(tk_reader_open(&r, path, &o, &err) == TK_OK);
		tk_reader_close(r);
		r = NULL;
	}

	/* the errors of tk_reader_open() */
	in = NULL;
	CHECK(tk_input_open(&in, path, "nosuch", &err) == TK_E_USAGE);
	CHECK(in == NULL);
	CHECK(tk_input_open(&in, path, "perfetto", &err) == TK_E_UNSUPPORTED);
	CHECK(tk_input_open(&in, "/nonexistent/x.btf", NULL, &err) < 0);
	CHECK(in == NULL);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "\x01\x02 not a trace\n", 15) == 15);
	close(fd);
	CHECK(tk_input_open(&in, path, NULL, &err) == TK_E_FORMAT);
	CHECK(strstr(err.msg, "cannot tell the format") != NULL);

	CHECK(tk_input_open(&in, path, "btf", &err) == TK_E_FORMAT);

	/* a reader that fails to open takes the input with it */
	{
		tk_reader_opts o;
		tk_reader_opts_init(&o);
		o.format = "btf";
		o.force_format = 1;
		CHECK(tk_input_open_opts(&in, path, &o, &err) == TK_OK);
		o.strict = 1;
		CHECK(tk_reader_open_input(&r, in, &o, &err) < 0);
		CHECK(r == NULL);
	}
	unlink(path);
	free(text);
}

int main(void)
{
	test_btf_pipe();
	test_tarmac_pipe();
	test_files();
	TEST_DONE();
}
