/* test_api_new.c - the one constructor form of the public API (issue 22,
 * point 7): tk_check_new, tk_stats_new, tk_load_new, tk_timeline_new and
 * tk_counts_new
 * return TK_OK with the object, or, when memory runs out, TK_E_NOMEM with
 * *out NULL and the caller's tk_error filled (a NULL tk_error allowed).
 * The allocation failure is made by wrapping calloc (-Wl,--wrap=calloc,
 * tests/CMakeLists.txt): the next calls fail while `fail_callocs` > 0. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdint.h>
#include <stdlib.h>

#include "fail_calloc.h"

/* two tasks run on one core, and one violation (B started twice) */
static const char text[] =
	"#version 2.2.0\n#timescale ns\n"
	"0,STI,0,T,A,0,activate\n"
	"10,Core_0,0,T,A,0,start\n"
	"30,Core_0,0,T,A,0,terminate\n"
	"35,STI,0,T,B,0,activate\n"
	"40,Core_0,0,T,B,0,start\n"
	"45,Core_0,0,T,B,0,start\n"
	"50,Core_0,0,T,B,0,terminate\n";

static uint64_t nslices;

static void on_slice(void *ctx, const tk_slice *s)
{
	(void)ctx;
	(void)s;
	nslices++;
}

/* the failure: TK_E_NOMEM, *out NULL, err filled; then the same with a
 * NULL err */
#define CHECK_NOMEM(call_err, call_null, out)                                \
	do {                                                                 \
		tk_error e_;                                                 \
		tk_error_clear(&e_);                                         \
		(out) = (void *)&e_;  /* not NULL before the call */         \
		fail_callocs = 1;                                            \
		CHECK((call_err) == TK_E_NOMEM);                             \
		CHECK((out) == NULL);                                        \
		CHECK(e_.code == TK_E_NOMEM);                                \
		CHECK_STR(e_.msg, "out of memory");                          \
		fail_callocs = 1;                                            \
		CHECK((call_null) == TK_E_NOMEM);                            \
		CHECK((out) == NULL);                                        \
		fail_callocs = 0;                                            \
	} while (0)

int main(void)
{
	tk_reader *r = NULL;
	tk_check *chk = NULL;
	tk_stats *st = NULL;
	tk_load *ld = NULL;
	tk_timeline *tl = NULL;
	tk_counts *cn = NULL;
	const tk_event *ev;
	uint64_t n, k;
	const tk_trace *t;
	tk_error err;
	int rc;

	tk_error_clear(&err);
	CHECK(tk_reader_open_mem(&r, text, sizeof(text) - 1, "mem.btf", NULL,
				 &err) == TK_OK);
	if (!r)
		return 1;
	t = tk_reader_trace(r);

	CHECK_NOMEM(tk_check_new(&chk, t, NULL, NULL, &e_),
		    tk_check_new(&chk, t, NULL, NULL, NULL), chk);
	CHECK_NOMEM(tk_stats_new(&st, t, &e_), tk_stats_new(&st, t, NULL), st);
	CHECK_NOMEM(tk_load_new(&ld, t, 0, NULL, NULL, &e_),
		    tk_load_new(&ld, t, 0, NULL, NULL, NULL), ld);
	CHECK_NOMEM(tk_timeline_new(&tl, t, on_slice, NULL, NULL, &e_),
		    tk_timeline_new(&tl, t, on_slice, NULL, NULL, NULL), tl);
	CHECK_NOMEM(tk_counts_new(&cn, &e_), tk_counts_new(&cn, NULL), cn);

	/* success: each object made, fed and finished */
	CHECK(tk_check_new(&chk, t, NULL, NULL, &err) == TK_OK && chk);
	CHECK(tk_stats_new(&st, t, &err) == TK_OK && st);
	CHECK(tk_load_new(&ld, t, 0, NULL, NULL, NULL) == TK_OK && ld);
	CHECK(tk_timeline_new(&tl, t, on_slice, NULL, NULL, &err) == TK_OK && tl);
	if (!chk || !st || !ld || !tl)
		return 1;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		CHECK(tk_check_event(chk, ev, NULL) == TK_OK);
		CHECK(tk_stats_event(st, ev, NULL) == TK_OK);
		CHECK(tk_load_event(ld, ev, NULL) == TK_OK);
		CHECK(tk_timeline_event(tl, ev, NULL) == TK_OK);
	}
	CHECK(rc == TK_END);
	CHECK(tk_stats_finish(st, NULL) == TK_OK);
	CHECK(tk_load_finish(ld, NULL) == TK_OK);
	CHECK(tk_timeline_finish(tl, NULL) == TK_OK);
	CHECK_EQ_U64(tk_check_count(chk, TK_RULE_PROCESS), 1); /* B's 2nd start */
	CHECK_EQ_U64(tk_check_count(chk, TK_RULE_COUNT), 1);
	CHECK(tk_stats_count(st) > 0);
	CHECK_EQ_U64(tk_load_core_count(ld), 1);
	CHECK_EQ_U64(tk_load_core_busy(ld, 0), 30);           /* 10..30, 40..50 */
	CHECK_EQ_U64(nslices, 2);

	/* tk_counts: keys in the order first added, each with its sum; more
	 * keys than the first table holds */
	CHECK(tk_counts_new(&cn, &err) == TK_OK && cn);
	if (!cn)
		return 1;
	CHECK(tk_counts_add(cn, UINT64_MAX, 2) == 1);
	CHECK(tk_counts_add(cn, UINT64_MAX, 3) == 0);
	CHECK(tk_counts_add(cn, 0, 0) == 1);
	for (k = 1; k <= 1000; k++)
		CHECK(tk_counts_add(cn, k << 32, k) == 1);
	CHECK_EQ_U64(tk_counts_size(cn), 1002);
	CHECK(tk_counts_get(cn, UINT64_MAX, &n) == 1);
	CHECK_EQ_U64(n, 5);
	CHECK(tk_counts_get(cn, 0, NULL) == 1);
	CHECK(tk_counts_get(cn, 1, &n) == 0);
	CHECK_EQ_U64(tk_counts_key(cn, 0, &n), UINT64_MAX);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(tk_counts_key(cn, 1, NULL), 0);
	CHECK_EQ_U64(tk_counts_key(cn, 501, &n), (uint64_t)500 << 32);
	CHECK_EQ_U64(n, 500);
	tk_counts_free(cn);
	tk_counts_free(NULL);
	tk_check_free(chk);
	tk_stats_free(st);
	tk_load_free(ld);
	tk_timeline_free(tl);
	tk_reader_close(r);
	TEST_DONE();
}
