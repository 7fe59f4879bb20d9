/*
 * reader_next.c - a reader alone, for the bench scripts (htf_read.sh,
 * shark_read.sh): opens FILE with the library, loops tk_reader_next() and
 * folds the events' times, sources and instances into a checksum (so that
 * nothing is optimised away), and prints the event count and the checksum.
 * No per-event work of its own beyond that: next to `tracekit info` (which
 * also counts events per type and name) it shows what the reader costs.
 * Usage: reader_next [--from FORMAT] FILE [REPEAT]
 * (REPEAT > 1 reads the file again; for profiling; --threads X, which the
 * library no longer has, is taken and ignored, so that the bench scripts
 * can give it to an older build's reader_next and this one alike)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/tracekit.h"

int main(int argc, char **argv)
{
	unsigned long long n = 0, sum = 0;
	const char *from = NULL;
	int rep, reps;

	for (;;) {
		if (argc > 2 && strcmp(argv[1], "--from") == 0) {
			from = argv[2];
		} else if (argc > 2 && strcmp(argv[1], "--threads") == 0) {
			/* ignored (see above) */
		} else {
			break;
		}
		argc -= 2;
		argv += 2;
	}
	reps = argc > 2 ? atoi(argv[2]) : 1;
	if (argc < 2 || argc > 3 || reps < 1) {
		fprintf(stderr, "usage: reader_next [--from FORMAT] FILE [REPEAT]\n");
		return 2;
	}
	for (rep = 0; rep < reps; rep++) {
		tk_reader_opts o;
		tk_reader *r;
		tk_error err;
		const tk_event *ev;
		int rc;

		tk_reader_opts_init(&o);
		o.format = from;
		if (tk_reader_open(&r, argv[1], &o, &err) < 0) {
			fprintf(stderr, "reader_next: %s:%llu: %s\n", err.input,
				(unsigned long long)err.line, err.msg);
			return 1;
		}
		while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
			n++;
			sum = sum * 31 + ev->time + ev->source +
			      (unsigned long long)ev->target_inst;
		}
		tk_reader_close(r);
		if (rc < 0) {
			fprintf(stderr, "reader_next: %s:%llu: %s\n", err.input,
				(unsigned long long)err.line, err.msg);
			return 1;
		}
	}
	printf("%llu events, checksum %016llx\n", n, sum);
	return 0;
}
