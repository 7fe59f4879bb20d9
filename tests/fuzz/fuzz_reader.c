/*
 * fuzz_reader.c - the libFuzzer target of every event reader, built once
 * per format with -DFUZZ_FORMAT='"btf"' (see run.sh).  The first byte picks
 * strict or lenient mode, whether the format is forced or probed, and
 * whether a reader that can decode on a second thread does (threads 1 or
 * 0: the pipe's hand-over, stalls and errors under ASan), and whether the
 * trace is read from memory or from a file (a memfd, by its /proc path:
 * the readers' pread() paths); the rest is the trace.  Every event is read and its strings and note looked
 * at, so a bad pointer or length shows up under ASan, and the invariants a
 * reader promises are checked.
 */
#define _GNU_SOURCE
#include "tracekit/tracekit.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT='\"btf\"' (or another format)"
#endif

/* a broken promise of the reader: stop with a crash libFuzzer reports */
#define FUZZ_CHECK(cond)                 \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t i, n, sum = 0;
	int rc, fd = -1;

	if (size < 1)
		return 0;
	tk_reader_opts_init(&o);
	o.strict = data[0] & 1;
	o.format = (data[0] & 2) ? NULL : FUZZ_FORMAT;
	o.threads = (data[0] & 4) ? 1 : 0;
	if (data[0] & 8) {
		char path[64];
		fd = memfd_create("fuzz", 0);
		FUZZ_CHECK(fd >= 0);
		FUZZ_CHECK(write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		rc = tk_reader_open(&r, path, &o, &err);
	} else {
		rc = tk_reader_open_mem(&r, data + 1, size - 1, "fuzz", &o, &err);
	}
	if (rc < 0) {
		FUZZ_CHECK(err.code < 0 && err.msg[0]);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		const tk_entity *s = tk_trace_entity(t, ev->source);
		const tk_entity *d = tk_trace_entity(t, ev->target);
		FUZZ_CHECK(s && d);
		FUZZ_CHECK((unsigned)ev->type < TK_ET_COUNT);
		FUZZ_CHECK((unsigned)ev->kind < TK_EV_COUNT);
		FUZZ_CHECK(ev->core == TK_NONE || tk_trace_entity(t, ev->core));
		sum += strlen(tk_trace_str(t, s->name, &n)) + n;
		sum += strlen(tk_trace_str(t, ev->name, &n)) + n;
		for (i = 0; ev->note && i < ev->note_len; i++)
			sum += (unsigned char)ev->note[i];
	}
	FUZZ_CHECK(rc == TK_END || (rc < 0 && err.msg[0]));
	tk_reader_close(r);
	if (fd >= 0)
		close(fd);
	return sum == 1 ? 1 : 0;
}
