/*
 * fuzz_reader.c - the libFuzzer target of every event reader, built once
 * per format with -DFUZZ_FORMAT='"btf"' (see run.sh).  The first byte picks
 * strict or lenient mode, whether the format is forced or probed (bit 2
 * is unused), and whether the trace is read from memory or from a file (a
 * memfd, by its /proc path: the source's pread() path), or (bit 4) from a memory stream that hands
 * the bytes out in pieces of 1 to N bytes (bits 5-7 pick N), so that the
 * fills of a streamed source, and the moves of its window at each, fall at
 * every position (src/core/internal.h, tk_source_open_mem_stream()); the
 * rest is the trace.  Every event is read and its strings and note looked
 * at, so a bad pointer or length shows up under ASan, and the invariants a
 * reader promises are checked.
 */
#define _GNU_SOURCE
#include "tracekit/tracekit.h"
/* the memory stream and tk_reader_open_source(): not public */
#include "../../src/core/internal.h"

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

/* The longest piece of a memory stream, by bits 5-7 of the mode byte. */
static const size_t pieces[8] = { 1, 2, 3, 7, 16, 61, 509, 4096 };

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
	if (data[0] & 16) {
		tk_source *src;
		/* pieces of 1 to N bytes, their lengths seeded by the input */
		rc = tk_source_open_mem_stream(&src, data + 1, size - 1, "fuzz",
					       pieces[data[0] >> 5],
					       (uint64_t)size * 0x9e3779b97f4a7c15ull | 1,
					       &err);
		if (rc == TK_OK)
			rc = tk_reader_open_source(&r, src, "fuzz", &o, &err);
	} else if (data[0] & 8) {
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
