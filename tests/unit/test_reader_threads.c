/*
 * test_reader_threads - a reader gives the same with and without its
 * second thread (tk_reader_opts.threads 0 and 1), and through
 * tk_reader_next_batch(): every field of every event, each warning at the
 * same place among the events (the number of events handed out before
 * it), the warning count, and how the reading ends (the end, or the same
 * error with the same position).
 *
 * Usage: test_reader_threads [--from FORMAT] [--strict] FILE...
 * Prints one line per file; exit status 1 on the first difference.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/tracekit.h"

typedef struct run {
	tk_event *evs;
	size_t n, cap;
	char **warn;          /* "<events before> <line>:<col> <message>" */
	size_t nwarn;
	uint64_t warn_count;
	int rc;
	tk_error err;
	int opened;
} run;

static void on_warning(void *ctx, const tk_error *w)
{
	run *r = ctx;
	char buf[600];
	char **nw;

	snprintf(buf, sizeof(buf), "%zu %llu:%llu %s", r->n,
		 (unsigned long long)w->line, (unsigned long long)w->column,
		 w->msg);
	nw = realloc(r->warn, (r->nwarn + 1) * sizeof(*nw));
	if (!nw || !(nw[r->nwarn] = strdup(buf))) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	r->warn = nw;
	r->nwarn++;
}

static void add_event(run *r, const tk_event *ev)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? 2 * r->cap : 1024;
		tk_event *ne = realloc(r->evs, ncap * sizeof(*ne));
		if (!ne) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
		r->evs = ne;
		r->cap = ncap;
	}
	r->evs[r->n++] = *ev;
}

/* batch: 0 one by one, else tk_reader_next_batch() with that maximum */
static void read_all(run *r, const char *path, const char *from, int strict,
		     int threads, size_t batch)
{
	tk_reader_opts o;
	tk_reader *rd;
	const tk_event *ev;
	size_t nb, i;

	memset(r, 0, sizeof(*r));
	tk_reader_opts_init(&o);
	o.format = from;
	o.strict = strict;
	o.threads = threads;
	o.on_warning = on_warning;
	o.warning_ctx = r;
	r->rc = tk_reader_open(&rd, path, &o, &r->err);
	if (r->rc < 0)
		return;
	r->opened = 1;
	if (!batch) {
		while ((r->rc = tk_reader_next(rd, &ev, &r->err)) == TK_OK)
			add_event(r, ev);
	} else {
		while ((r->rc = tk_reader_next_batch(rd, &ev, &nb, batch,
						     &r->err)) == TK_OK) {
			if (nb < 1 || nb > batch) {
				printf("FAIL %s: a batch of %zu events, 1 to %zu asked\n",
				       path, nb, batch);
				exit(1);
			}
			for (i = 0; i < nb; i++)
				add_event(r, &ev[i]);
		}
	}
	r->warn_count = tk_reader_warning_count(rd);
	tk_reader_close(rd);
}

static void run_free(run *r)
{
	size_t i;

	for (i = 0; i < r->nwarn; i++)
		free(r->warn[i]);
	free(r->warn);
	free(r->evs);
}

static int same_event(const tk_event *a, const tk_event *b)
{
	return a->time == b->time && a->source == b->source &&
	       a->target == b->target && a->source_inst == b->source_inst &&
	       a->target_inst == b->target_inst && a->type == b->type &&
	       a->kind == b->kind && a->type_name == b->type_name &&
	       a->name == b->name && a->core == b->core &&
	       a->note_len == b->note_len && a->pos == b->pos &&
	       (a->note_len == 0 || memcmp(a->note, b->note, a->note_len) == 0);
}

/* 0 when the two runs agree, else 1 with a message */
static int compare(const char *path, const run *a, const run *b)
{
	size_t i;

	if (a->opened != b->opened || a->n != b->n) {
		printf("FAIL %s: %zu events without the thread, %zu with it\n",
		       path, a->n, b->n);
		return 1;
	}
	for (i = 0; i < a->n; i++) {
		if (!same_event(&a->evs[i], &b->evs[i])) {
			printf("FAIL %s: event %zu differs (time %llu / %llu, pos %llu / %llu)\n",
			       path, i, (unsigned long long)a->evs[i].time,
			       (unsigned long long)b->evs[i].time,
			       (unsigned long long)a->evs[i].pos,
			       (unsigned long long)b->evs[i].pos);
			return 1;
		}
	}
	if (a->nwarn != b->nwarn || a->warn_count != b->warn_count) {
		printf("FAIL %s: %zu warnings reported (%llu counted) without the thread, %zu (%llu) with it\n",
		       path, a->nwarn, (unsigned long long)a->warn_count,
		       b->nwarn, (unsigned long long)b->warn_count);
		return 1;
	}
	for (i = 0; i < a->nwarn; i++) {
		if (strcmp(a->warn[i], b->warn[i]) != 0) {
			printf("FAIL %s: warning %zu\n  without: %s\n  with:    %s\n",
			       path, i, a->warn[i], b->warn[i]);
			return 1;
		}
	}
	if (a->rc != b->rc ||
	    (a->rc < 0 && (a->err.line != b->err.line ||
			   a->err.column != b->err.column ||
			   a->err.offset != b->err.offset ||
			   strcmp(a->err.msg, b->err.msg) != 0))) {
		printf("FAIL %s: the end differs\n  without: %d %llu:%llu %s\n  with:    %d %llu:%llu %s\n",
		       path, a->rc, (unsigned long long)a->err.line,
		       (unsigned long long)a->err.column,
		       a->rc < 0 ? a->err.msg : "", b->rc,
		       (unsigned long long)b->err.line,
		       (unsigned long long)b->err.column,
		       b->rc < 0 ? b->err.msg : "");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *from = NULL;
	int strict = 0, i, failed = 0, files = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
			from = argv[++i];
		else if (strcmp(argv[i], "--strict") == 0)
			strict = 1;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: test_reader_threads [--from FORMAT] [--strict] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		run a, b, c;
		read_all(&a, argv[i], from, strict, 0, 0);
		read_all(&b, argv[i], from, strict, 1, 0);
		read_all(&c, argv[i], from, strict, 1, 100);
		if (compare(argv[i], &a, &b) || compare(argv[i], &a, &c))
			failed = 1;
		else
			printf("ok %s: %zu events, %zu warnings, %s\n", argv[i],
			       a.n, a.nwarn,
			       a.rc == TK_END ? "end" : a.err.msg);
		files++;
		run_free(&a);
		run_free(&b);
		run_free(&c);
	}
	if (!failed)
		printf("%d files read alike with and without the thread, and in batches\n", files);
	return failed;
}
