/*
 * fuzz_tarmac.c - libFuzzer target for the Tarmac record reader and its ISR
 * adapter.  The first byte picks strict or lenient mode; the rest is the
 * log.  Every span of every record is read, so a bad pointer or length
 * shows up under ASan.
 */
#include "tracekit/tracekit.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a broken promise of the reader: stop with a crash libFuzzer reports */
#define FUZZ_CHECK(cond)                 \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t touch(const tk_tarmac_span *s)
{
	size_t i, sum = 0;

	for (i = 0; i < s->len; i++)
		sum += (unsigned char)s->ptr[i];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_record rec;
	tk_reader_opts ro;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t sum = 0, n;

	if (size < 1)
		return 0;
	tk_tarmac_opts_init(&o);
	o.strict = data[0] & 1;
	if (tk_tarmac_open_mem(&tr, data + 1, size - 1, "fuzz", &o, &err) == TK_OK) {
		while (tk_tarmac_next(tr, &rec, &err) == TK_OK) {
			FUZZ_CHECK((unsigned)rec.kind < TK_TARMAC_KIND_COUNT);
			sum += touch(&rec.raw) + touch(&rec.mnemonic) + touch(&rec.disasm) +
			       touch(&rec.reg) + touch(&rec.value) + touch(&rec.data) +
			       touch(&rec.name) + touch(&rec.text) + touch(&rec.mode) +
			       touch(&rec.phys) + touch(&rec.qualifier) + touch(&rec.kind_text);
			FUZZ_CHECK(!rec.cpu || tk_tarmac_cpu_name(tr, rec.cpu - 1));
		}
		tk_tarmac_close(tr);
	}
	tk_reader_opts_init(&ro);
	ro.strict = data[0] & 1;
	ro.format = "tarmac";
	if (tk_reader_open_mem(&r, data + 1, size - 1, "fuzz", &ro, &err) == TK_OK) {
		while (tk_reader_next(r, &ev, &err) == TK_OK) {
			const tk_trace *t = tk_reader_trace(r);
			const tk_entity *s = tk_trace_entity(t, ev->source);
			const tk_entity *d = tk_trace_entity(t, ev->target);
			FUZZ_CHECK(s && d);
			sum += strlen(tk_trace_str(t, d->name, &n)) + n;
		}
		tk_reader_close(r);
	}
	return sum == 1 ? 1 : 0;
}
