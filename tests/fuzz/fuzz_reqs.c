/*
 * fuzz_reqs.c - the libFuzzer target of the requirements reader
 * (tk_reqs_read, docs/verify.md): any bytes are read as a requirements
 * file; a file that is read is then verified on two traces (the demo's
 * tasks and cores, and tests/cli/stats_chain.btf's signal chain, run.sh
 * runs from the project's root), and every verdict must have its text.
 * An error must say where (a message, and for a parse error its line).
 */
#define _GNU_SOURCE
#include "tracekit/analysis.h"
#include "tracekit/tracekit.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_CHECK(cond)                 \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a trace's bytes, read once */
typedef struct trace_bytes {
	const char *path;
	char *data;
	size_t len;
} trace_bytes;

static void load(trace_bytes *b)
{
	FILE *f;
	long n;

	if (b->data)
		return;
	f = fopen(b->path, "rb");
	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0);
	rewind(f);
	b->data = malloc((size_t)n);
	FUZZ_CHECK(b->data && fread(b->data, 1, (size_t)n, f) == (size_t)n);
	b->len = (size_t)n;
	fclose(f);
}

static void verify_on(const tk_reqs *q, trace_bytes *trace)
{
	tk_reader *r = NULL;
	tk_verify *v = NULL;
	const tk_event *ev;
	tk_error err;
	size_t i;
	int rc;

	memset(&err, 0, sizeof err);
	load(trace);
	if (tk_reader_open_mem(&r, trace->data, trace->len, trace->path, NULL, &err) != TK_OK)
		__builtin_trap(); /* the traces are the project's own */
	if (tk_verify_new(&v, q, tk_reader_trace(r), &err) != TK_OK)
		goto out;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		if (tk_verify_event(v, ev, &err) != TK_OK)
			goto out;
	FUZZ_CHECK(rc == TK_END);
	if (tk_verify_finish(v, &err) != TK_OK) {
		FUZZ_CHECK(err.msg[0] != '\0');
		goto out;
	}
	FUZZ_CHECK(tk_verify_count(v) == tk_reqs_count(q));
	FUZZ_CHECK(tk_verify_failures(v) <= tk_verify_count(v));
	for (i = 0; i < tk_verify_count(v); i++) {
		const tk_verdict *d = tk_verify_get(v, i);

		FUZZ_CHECK(d && d->name && d->subject && d->text && d->value &&
			   d->bound && d->margin && d->where);
		FUZZ_CHECK(strcmp(d->name, tk_reqs_name(q, i)) == 0);
		FUZZ_CHECK(strlen(d->text) > 0 && !strchr(d->text, '\n'));
	}
out:
	tk_verify_free(v);
	tk_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static trace_bytes demo = { "examples/demo.btf", NULL, 0 };
	static trace_bytes chain = { "tests/cli/stats_chain.btf", NULL, 0 };
	static char path[64];
	static int fd = -1;
	tk_reqs *q = NULL;
	tk_error err;

	if (fd < 0) {
		snprintf(path, sizeof path, "/tmp/fuzz_reqs_%ld.yaml", (long)getpid());
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		FUZZ_CHECK(fd >= 0);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	memset(&err, 0, sizeof err);
	if (tk_reqs_read(&q, path, &err) != TK_OK) {
		FUZZ_CHECK(q == NULL && err.msg[0] != '\0');
		FUZZ_CHECK(err.code != TK_E_PARSE || err.line > 0 || err.has_offset ||
			   strstr(err.msg, "at byte offset"));
		return 0;
	}
	FUZZ_CHECK(q && tk_reqs_count(q) > 0);
	verify_on(q, &demo);
	verify_on(q, &chain);
	tk_reqs_free(q);
	return 0;
}
