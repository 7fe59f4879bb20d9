/* test_load_total.c - tk_load at the top of the tick range through the
 * public API (issue 20 item 2): busy times per core exact up to 2^64 - 1
 * ticks, and an entity's total over all cores that does not fit 64 bits
 * is UINT64_MAX, not the sum wrapped. */
#include "tk_test.h"
#include "tracekit/analysis.h"
#include "tracekit/tracekit.h"

#include <stdint.h>

/* two instances of A at once, on two cores, from 0 to 2^64 - 1; B on a
 * third core from 0 to 2^63 */
static const char text[] =
	"#version 2.2.0\n#timescale ps\n"
	"0,STI,0,T,A,0,activate\n"
	"0,STI,0,T,A,1,activate\n"
	"0,STI,0,T,B,0,activate\n"
	"0,Core_0,0,T,A,0,start\n"
	"0,Core_1,0,T,A,1,start\n"
	"0,Core_2,0,T,B,0,start\n"
	"9223372036854775808,Core_2,0,T,B,0,terminate\n"
	"18446744073709551615,Core_0,0,T,A,0,terminate\n"
	"18446744073709551615,Core_1,0,T,A,1,terminate\n";

int main(void)
{
	tk_reader *r = NULL;
	tk_load *l = NULL;
	const tk_event *ev;
	tk_error err;
	tk_trace *t;
	uint32_t a, b;
	int rc;

	tk_error_clear(&err);
	CHECK(tk_reader_open_mem(&r, text, sizeof(text) - 1, "mem.btf", NULL, &err) == TK_OK);
	if (!r)
		return 1;
	t = tk_reader_trace(r);
	CHECK(tk_load_new(&l, t, 0, NULL, NULL, &err) == TK_OK);
	CHECK(l != NULL);
	while (l && (rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		CHECK(tk_load_event(l, ev, NULL) == TK_OK);
	CHECK(l && tk_load_finish(l, NULL) == TK_OK);
	a = tk_trace_entity_find(t, "A", 1);
	b = tk_trace_entity_find(t, "B", 1);
	CHECK_EQ_U64(tk_load_core_count(l), 3);
	CHECK_EQ_U64(tk_load_core_busy(l, 0), UINT64_MAX);
	CHECK_EQ_U64(tk_load_core_busy(l, 1), UINT64_MAX);
	CHECK_EQ_U64(tk_load_core_busy(l, 2), UINT64_C(9223372036854775808));
	CHECK_EQ_U64(tk_load_entity_busy(l, a, 0), UINT64_MAX);
	CHECK_EQ_U64(tk_load_entity_busy(l, a, 1), UINT64_MAX);
	/* 2 * (2^64 - 1) does not fit: the largest value, not 2^64 - 2 */
	CHECK_EQ_U64(tk_load_entity_busy(l, a, SIZE_MAX), UINT64_MAX);
	CHECK_EQ_U64(tk_load_entity_busy(l, b, SIZE_MAX), UINT64_C(9223372036854775808));
	tk_load_free(l);
	tk_reader_close(r);
	printf("%d checks, %d failures\n", tk_test_checks, tk_test_failures);
	return tk_test_failures != 0;
}
