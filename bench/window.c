/*
 * window.c - a late time window read with the library, for
 * bench/window.sh: the events of FILE from tick START on, through a query
 * (tk_reader_opts.has_start: the HTF and S.Ha.R.K. readers skip ahead to
 * the start), or, with --filter, the previous way: every event decoded
 * and those before START dropped by hand.  Folds the kept events' times,
 * sources and instances into a checksum and prints it with their count
 * (the two ways print the same line).  --at P: prints the time of the
 * event at P per mille of the trace (read whole) and exits, for the
 * script to pick the start.
 * Usage: window [--from FORMAT] (--at P | [--filter] START) FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/tracekit.h"

static int fail(const tk_error *err)
{
	fprintf(stderr, "window: %s:%llu: %s\n", err->input,
		(unsigned long long)err->line, err->msg);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, sum = 0, start = 0, at = 0, total = 0, i;
	const char *from = NULL, *path;
	int filter = 0, has_at = 0, a, rc;
	tk_reader_opts o;
	tk_reader *r;
	tk_error err;
	const tk_event *ev;

	for (a = 1; a < argc - 1; a++) {
		if (!strcmp(argv[a], "--from") && a + 2 < argc) {
			from = argv[++a];
		} else if (!strcmp(argv[a], "--at") && a + 2 < argc) {
			at = strtoull(argv[++a], NULL, 10);
			has_at = 1;
		} else if (!strcmp(argv[a], "--filter")) {
			filter = 1;
		} else {
			start = strtoull(argv[a], NULL, 10);
		}
	}
	if (a != argc - 1) {
		fprintf(stderr, "usage: window [--from FORMAT] (--at P | [--filter] START) FILE\n");
		return 2;
	}
	path = argv[a];
	tk_reader_opts_init(&o);
	o.format = from;
	if (has_at) {
		/* the events' count, then the time of event at * count / 1000 */
		for (i = 0; i < 2; i++) {
			unsigned long long k = 0, want = total * at / 1000;
			if (tk_reader_open(&r, path, &o, &err) < 0)
				return fail(&err);
			while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
				if (i == 1 && k == want) {
					printf("%llu\n", (unsigned long long)ev->time);
					tk_reader_close(r);
					return 0;
				}
				k++;
			}
			tk_reader_close(r);
			if (rc < 0)
				return fail(&err);
			total = k;
		}
		return 1;
	}
	if (!filter) {
		o.has_start = 1;
		o.start = start;
	}
	if (tk_reader_open(&r, path, &o, &err) < 0)
		return fail(&err);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (ev->time < start)
			continue;
		n++;
		sum = sum * 31 + ev->time + ev->source +
		      (unsigned long long)ev->target_inst +
		      (unsigned long long)ev->source_inst;
	}
	tk_reader_close(r);
	if (rc < 0)
		return fail(&err);
	printf("%llu events from %llu, checksum %016llx\n", n, start, sum);
	return 0;
}
