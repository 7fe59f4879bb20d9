/*
 * fuzz_shark.c - libFuzzer target for the S.Ha.R.K. FTrace reader.  The
 * first byte picks strict or lenient mode and whether the format is forced
 * or probed; the rest is the dump.  Every event is read and
 * its strings looked at, so a bad pointer or length shows up under ASan.
 */
#include "tracekit/tracekit.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t i, n, sum = 0;

	if (size < 1)
		return 0;
	tk_reader_opts_init(&o);
	o.strict = data[0] & 1;
	o.format = (data[0] & 2) ? "shark" : NULL;
	if (tk_reader_open_mem(&r, data + 1, size - 1, "fuzz", &o, &err) < 0)
		return 0;
	while (tk_reader_next(r, &ev, &err) == TK_OK) {
		const tk_trace *t = tk_reader_trace(r);
		const tk_entity *s = tk_trace_entity(t, ev->source);
		const tk_entity *d = tk_trace_entity(t, ev->target);
		if (!s || !d)
			__builtin_trap();
		sum += strlen(tk_trace_str(t, s->name, &n)) + n;
		sum += strlen(tk_trace_str(t, ev->name, &n)) + n;
		for (i = 0; ev->note && i < ev->note_len; i++)
			sum += (unsigned char)ev->note[i];
	}
	tk_reader_close(r);
	return sum == 1 ? 1 : 0;
}
