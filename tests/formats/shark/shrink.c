/*
 * shrink.c - a dump that shrinks while the S.Ha.R.K. reader reads it
 * (tests/formats/shark/orders.sh).
 *
 *   shark_shrink FILE
 *
 * Opens FILE (a plain file, read where it is; --from shark, lenient),
 * reads 1000 events, cuts the file
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
#include "../../unit/tk_test.h"

int main(int argc, char **argv)
{
	tk_reader_opts o;
	tk_reader *r;
	tk_error err, first;
	const tk_event *ev;
	struct stat st;
	unsigned long long n = 0, errors = 0;
	off_t cut;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: shark_shrink FILE\n");
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
	if (tk_reader_open(&r, argv[1], &o, &err) < 0) {
		fprintf(stderr, "shark_shrink: %s\n", err.msg);
		return 2;
	}
	memset(&first, 0, sizeof(first));
	for (;;) {
		rc = tk_reader_next(r, &ev, &err);
		if (rc == TK_END)
			break;
		if (rc == TK_OK) {
			if (++n == 1000) {
				rc = truncate(argv[1], cut);
				CHECK(rc == 0);
				if (rc != 0)
					break;
			}
			continue;
		}
		if (++errors == 1) {
			first = err;
			continue;
		}
		/* the next call gives the same error again */
		CHECK_EQ_U64((uint64_t)err.code, (uint64_t)first.code);
		CHECK_STR(err.msg, first.msg);
		break;
	}
	tk_reader_close(r);
	/* one error, the file's, at the offset of the cut (or, for a read
	 * that starts past it, where that read starts), given again by the
	 * next call (errors are sticky: never an end after one) */
	CHECK_EQ_U64(errors, 2);
	CHECK_EQ_U64((uint64_t)first.code, (uint64_t)(int64_t)TK_E_IO);
	CHECK(first.has_offset);
	CHECK(first.offset >= (uint64_t)cut &&
	      first.offset < (uint64_t)st.st_size);
	CHECK_STR(first.input, argv[1]);
	CHECK(strstr(first.msg, "shrank") != NULL);
	printf("%llu events, then: %s\n", n, first.msg);
	TEST_DONE();
}
