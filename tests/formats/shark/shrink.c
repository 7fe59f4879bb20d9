/*
 * shrink.c - a dump that shrinks while the S.Ha.R.K. reader reads it
 * (tests/formats/shark/threads.sh).
 *
 *   shark_shrink FILE THREADS
 *
 * Opens FILE (a plain file, so read with pread(); --from shark, lenient)
 * with tk_reader_opts threads = THREADS, reads 1000 events, cuts the file
 * to a quarter of its size and reads on.  The reader must report one
 * TK_E_IO error that names the file and the offset of the cut
 * (never a crash: the mapping of a cut file is not to be touched), and
 * then end.  Exit 0 on that, 1 otherwise.  FILE is changed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracekit/tracekit.h"

int main(int argc, char **argv)
{
	tk_reader_opts o;
	tk_reader *r;
	tk_error err;
	const tk_event *ev;
	struct stat st;
	unsigned long long n = 0, errors = 0;
	off_t cut;
	int rc, ok = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: shark_shrink FILE THREADS\n");
		return 2;
	}
	if (stat(argv[1], &st) != 0 || st.st_size < 4 * 1024 * 1024) {
		fprintf(stderr, "shark_shrink: %s: want a dump of 4 MiB or more\n",
			argv[1]);
		return 2;
	}
	cut = (st.st_size / 4) & ~(off_t)15;
	tk_reader_opts_init(&o);
	o.format = "shark";
	o.threads = atoi(argv[2]);
	if (tk_reader_open(&r, argv[1], &o, &err) < 0) {
		fprintf(stderr, "shark_shrink: %s\n", err.msg);
		return 2;
	}
	for (;;) {
		rc = tk_reader_next(r, &ev, &err);
		if (rc == TK_END)
			break;
		if (rc == TK_OK) {
			if (++n == 1000 && truncate(argv[1], cut) != 0) {
				perror("shark_shrink: truncate");
				ok = 0;
				break;
			}
			continue;
		}
		errors++;
		if (errors > 1) {
			fprintf(stderr, "FAIL: shark_shrink: a second error: %s\n",
				err.msg);
			ok = 0;
			break;
		}
		if (err.code != TK_E_IO || !err.has_offset ||
		    err.offset != (uint64_t)cut ||
		    strcmp(err.input, argv[1]) != 0 ||
		    !strstr(err.msg, "shrank")) {
			fprintf(stderr, "FAIL: shark_shrink: not the error wanted: code %d, offset %llu (cut at %lld): %s\n",
				err.code, (unsigned long long)err.offset,
				(long long)cut, err.msg);
			ok = 0;
		}
	}
	tk_reader_close(r);
	if (errors == 0) {
		fprintf(stderr, "FAIL: shark_shrink: no error after %llu events\n", n);
		ok = 0;
	}
	if (ok)
		printf("threads %s: %llu events, then: %s\n", argv[2], n, err.msg);
	return ok ? 0 : 1;
}
