/*
 * fuzz_tarmac.c - libFuzzer target for the Tarmac record reader, the
 * exception events fed with its records (as `tracekit stats` does) and the
 * ISR adapter of tk_reader_open() on the same timeline.  The first byte
 * picks strict or lenient mode (bit 0); with bit
 * 2 set, the next two bytes (little-endian) are the length of an ELF image
 * that follows, read as the symbols of a function profile of the log (so
 * the ELF reader and the profile are fuzzed too).  With bit 4 set, the
 * log is read from a memory stream that hands it out in pieces of 1 to N
 * bytes (bits 5-7 pick N), so that the fills of a streamed source, and the
 * moves of its window at each, fall at every position of a line
 * (src/core/internal.h, tk_source_open_mem_stream()).  The rest is the
 * log.  Every span of every record is read, so a bad pointer or length
 * shows up under ASan.
 */
#include "tracekit/tracekit.h"
/* the memory stream, tk_reader_open_source(), tk_tarmac_open_source():
 * not public */
#include "../../src/core/internal.h"
#include "../../src/formats/tarmac/tarmac.h"

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

/* The longest piece of a memory stream, by bits 5-7 of the mode byte. */
static const size_t pieces[8] = { 1, 2, 3, 7, 16, 61, 509, 4096 };

/* A source of the log: the memory block as it is, or (mode bit 4) a
 * memory stream of pieces of varying lengths. */
static int open_log(tk_source **src, unsigned mode, const uint8_t *log,
		    size_t len, tk_error *err)
{
	if (mode & 16)
		return tk_source_open_mem_stream(src, log, len, "fuzz",
						 pieces[mode >> 5],
						 (uint64_t)len * 0x9e3779b97f4a7c15ull | 1,
						 err);
	return tk_source_open_mem(src, log, len, "fuzz", err);
}

/* The queued events of the timeline: entities that exist. */
static size_t drain(tk_tarmac_exceptions *tl)
{
	const tk_trace *t = tk_tarmac_exceptions_trace(tl);
	const tk_event *ev;
	size_t sum = 0, n;

	while (tk_tarmac_exceptions_next(tl, &ev) == TK_OK) {
		const tk_entity *s = tk_trace_entity(t, ev->source);
		const tk_entity *d = tk_trace_entity(t, ev->target);
		FUZZ_CHECK(s && d && (unsigned)ev->kind < TK_EV_COUNT);
		sum += strlen(tk_trace_str(t, d->name, &n)) + n;
	}
	return sum;
}

static size_t touch(const tk_tarmac_span *s)
{
	size_t i, sum = 0;

	for (i = 0; i < s->len; i++)
		sum += (unsigned char)s->ptr[i];
	return sum;
}

/* The record statistics after the last record: every row of every table. */
static size_t stats(tk_tarmac_stats *st)
{
	const tk_tarmac_mnemonic_count *m;
	const tk_tarmac_address_count *h;
	const tk_tarmac_exception_stat *x;
	const tk_tarmac_traffic *t;
	tk_error err;
	uint64_t total = 0;
	size_t sum = 0, i, n;

	if (tk_tarmac_stats_finish(st, &err) != TK_OK)
		return 0;
	n = tk_tarmac_stats_mix(st, &m);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(m[i].count && (!i || m[i].count <= m[i - 1].count));
		sum += strlen(m[i].mnemonic);
	}
	n = tk_tarmac_stats_hottest(st, &h);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(h[i].count && (!i || h[i].count <= h[i - 1].count));
		total += h[i].count;
	}
	FUZZ_CHECK(total == tk_tarmac_stats_executed(st));
	n = tk_tarmac_stats_exceptions(st, &x);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(x[i].name && (x[i].count || x[i].open));
		FUZZ_CHECK(x[i].count ? x[i].min <= x[i].max : !x[i].min && !x[i].max);
		sum += strlen(x[i].name);
	}
	n = tk_tarmac_stats_traffic(st, &t);
	for (i = 0; i < n; i++)
		FUZZ_CHECK((t[i].base & 0xfffffff) == 0 &&
			   t[i].count[0] + t[i].count[1] + t[i].count[2] + t[i].count[3]);
	return sum;
}

/* The profile of the log against the symbols: every node and function. */
static size_t profile(const uint8_t *elf, size_t elflen, const uint8_t *log,
		      size_t len, unsigned mode)
{
	int strict = mode & 1;
	tk_source *src;
	tk_symtab *st = NULL;
	tk_tarmac_profile *p = NULL;
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_record rec;
	tk_error err;
	const uint32_t *kids;
	size_t sum = 0, i, n, k;

	if (tk_symtab_open_mem(&st, elf, elflen, "fuzz.elf", &err) != TK_OK)
		return 0;
	for (i = 0; i < tk_symtab_count(st); i++) {
		const tk_symbol *y = tk_symtab_get(st, i);
		FUZZ_CHECK(y && y->name);
		FUZZ_CHECK(tk_symtab_find(st, y->address) >= 0 || y->size == 0);
		sum += strlen(y->name);
	}
	tk_tarmac_opts_init(&o);
	o.strict = strict;
	if (tk_tarmac_profile_new(&p, st, &err) == TK_OK && open_log(&src, mode, log, len, &err) == TK_OK &&
	    tk_tarmac_open_source(&tr, src, &o, &err) == TK_OK) {
		while (tk_tarmac_next(tr, &rec, &err) == TK_OK)
			if (tk_tarmac_profile_record(p, &rec, &err) != TK_OK)
				break;
		if (tk_tarmac_profile_finish(p, &err) == TK_OK) {
			n = tk_tarmac_profile_node_count(p);
			for (i = 0; i < n; i++) {
				const tk_tarmac_node *x = tk_tarmac_profile_node(p, i);
				FUZZ_CHECK(x && x->parent <= i && x->instructions >= x->self_instructions);
				sum += strlen(tk_tarmac_profile_symbol_name(p, x->symbol < 0 ? -1 : x->symbol));
				k = tk_tarmac_profile_children(p, i, (int)(i & 1), &kids);
				while (k--)
					FUZZ_CHECK(kids[k] > i && kids[k] < n);
			}
			for (i = 0; i < tk_tarmac_profile_func_count(p); i++)
				sum += (size_t)tk_tarmac_profile_func(p, i)->calls;
		}
		tk_tarmac_close(tr);
	}
	tk_tarmac_profile_free(p);
	tk_symtab_free(st);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_exceptions *tl = NULL;
	tk_tarmac_stats *st = NULL;
	tk_tarmac_state *cs = NULL;
	tk_tarmac_at at;
	tk_tarmac_record rec;
	tk_reader_opts ro;
	tk_reader *r = NULL;
	tk_source *src;
	const tk_event *ev;
	tk_error err;
	size_t sum = 0, n;

	if (size < 1)
		return 0;
	if ((data[0] & 4) && size >= 3) {
		size_t elflen = (size_t)data[1] | (size_t)data[2] << 8;
		if (elflen > size - 3)
			elflen = size - 3;
		sum += profile(data + 3, elflen, data + 3 + elflen, size - 3 - elflen,
			       data[0]);
		return sum == 1 ? 1 : 0;
	}
	tk_tarmac_opts_init(&o);
	o.strict = data[0] & 1;
	if (open_log(&src, data[0], data + 1, size - 1, &err) == TK_OK &&
	    tk_tarmac_open_source(&tr, src, &o, &err) == TK_OK) {
		if (tk_tarmac_exceptions_new(&tl, tr, &o, &err) != TK_OK)
			tl = NULL;
		if (tk_tarmac_stats_new(&st, tr, TK_TARMAC_STATS_ALL, &o, &err) != TK_OK)
			st = NULL;
		/* the state, watching 64 bytes at an address of the first byte */
		if (tk_tarmac_state_new(&cs, &err) != TK_OK ||
		    tk_tarmac_state_watch(cs, (uint64_t)data[0] << 8, 64, &err) != TK_OK) {
			tk_tarmac_state_free(cs);
			cs = NULL;
		}
		tk_tarmac_at_init(&at);
		at.kind = data[0] >> 6;
		at.value = (uint64_t)(data[0] & 0x38);
		while (tk_tarmac_next(tr, &rec, &err) == TK_OK) {
			FUZZ_CHECK((unsigned)rec.kind < TK_TARMAC_KIND_COUNT);
			sum += touch(&rec.raw) + touch(&rec.mnemonic) + touch(&rec.disasm) +
			       touch(&rec.reg) + touch(&rec.value) + touch(&rec.data) +
			       touch(&rec.name) + touch(&rec.text) + touch(&rec.mode) +
			       touch(&rec.phys) + touch(&rec.qualifier) + touch(&rec.kind_text);
			FUZZ_CHECK(!rec.cpu || tk_tarmac_cpu_name(tr, rec.cpu - 1));
			if (st && tk_tarmac_stats_record(st, &rec, &err) != TK_OK) {
				tk_tarmac_stats_free(st);
				st = NULL;
			}
			sum += (size_t)(tk_tarmac_at_passed(&at, &rec) == 1);
			if (cs) {
				int rc = tk_tarmac_state_record(cs, &rec, &err);
				const uint8_t *v, *k;
				FUZZ_CHECK(rc >= 0 && rc <= 3);
				if (rc & TK_TARMAC_CHANGED_REG) {
					const char *old;
					size_t i = tk_tarmac_state_changed_reg(cs, &old);
					const tk_tarmac_reg *g = tk_tarmac_state_reg(cs, i);
					FUZZ_CHECK(g && g->value);
					sum += strlen(g->value) + (old ? strlen(old) : 0);
				}
				FUZZ_CHECK(tk_tarmac_state_bytes(cs, 1, &v, &k) == 64);
				sum += (size_t)(v[0] + k[63]);
			}
			if (tl) {
				int rc = tk_tarmac_exceptions_record(tl, &rec, &err);
				FUZZ_CHECK(rc <= 0 || rc < 64);
				if (rc < 0) {
					tk_tarmac_exceptions_free(tl);
					tl = NULL;
				} else {
					sum += drain(tl);
				}
			}
		}
		if (tl) {
			tk_tarmac_exceptions_finish(tl);
			sum += drain(tl);
		}
		tk_tarmac_exceptions_free(tl);
		if (st)
			sum += stats(st);
		tk_tarmac_stats_free(st);
		tk_tarmac_state_free(cs);
		tk_tarmac_close(tr);
	}
	tk_reader_opts_init(&ro);
	ro.strict = data[0] & 1;
	ro.format = "tarmac";
	if (open_log(&src, data[0], data + 1, size - 1, &err) == TK_OK &&
	    tk_reader_open_source(&r, src, "fuzz", &ro, &err) == TK_OK) {
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
