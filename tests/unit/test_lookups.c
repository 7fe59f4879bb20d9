/* test_lookups.c - "not found" is one convention across the API (issue 39,
 * docs/library.md "Conventions"): a lookup that finds nothing is no error
 * and returns the "none" of its type: NULL for a pointer, TK_NONE for an
 * entity id (uint32_t), -1 for an index returned as a long, 0 for a
 * found/not-found answer with the value through an argument.  Each public
 * lookup is called here with a key that is not there, and those that take
 * a name with NULL (which finds nothing; it crashed tk_format_find and
 * tk_trace_header_get). */
#define _POSIX_C_SOURCE 200809L
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char text[] =
	"#version 2.2.0\n#timescale ns\n#creator test\n"
	"0,STI,0,T,A,0,activate\n"
	"10,Core_0,0,T,A,0,start\n"
	"30,Core_0,0,T,A,0,terminate\n";

/* the names of kinds and types as the readers map them: canonical names,
 * producers' spellings, and the none of each for any other name */
static void name_lookups(void)
{
	int k;

	for (k = 1; k < TK_EV_COUNT; k++) {
		const char *n = tk_evkind_name((tk_evkind)k);
		CHECK(tk_evkind_from_name(n, strlen(n)) == (tk_evkind)k);
	}
	for (k = 1; k < TK_ET_COUNT; k++) {
		const char *n = tk_etype_name((tk_etype)k);
		if (k != TK_ET_OTHER)
			CHECK(tk_etype_from_name(n, strlen(n)) == (tk_etype)k);
	}
	CHECK(tk_evkind_from_name("set_frequency", 13) == TK_EV_SET_FREQUENCE);
	CHECK(tk_evkind_from_name("mtalimitexceded", 15) == TK_EV_MTALIMITEXCEEDED);
	CHECK(tk_evkind_from_name("startx", 6) == TK_EV_OTHER);
	CHECK(tk_evkind_from_name("start", 4) == TK_EV_OTHER); /* "star" */
	CHECK(tk_evkind_from_name(NULL, 5) == TK_EV_OTHER);
	CHECK(tk_etype_from_name("ISR", 3) == TK_ET_I);
	CHECK(tk_etype_from_name("Processor", 9) == TK_ET_P);
	CHECK(tk_etype_from_name("TASK", 4) == TK_ET_OTHER);
	CHECK(tk_etype_from_name("", 0) == TK_ET_UNKNOWN);
	CHECK(tk_etype_from_name(NULL, 1) == TK_ET_UNKNOWN);
}

int main(void)
{
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	tk_load *ld = NULL;
	tk_timeline *tl = NULL;
	tk_counts *cn = NULL;
	tk_reqs *q = NULL;
	tk_verify *v = NULL;
	const tk_event *ev;
	const tk_trace *t;
	tk_error err;
	char reqs[] = "/tmp/tk_lookups_XXXXXX";
	uint64_t n = 7;
	uint32_t a, core;
	size_t len = 5;
	FILE *f;
	int fd, rc;

	name_lookups();

	tk_error_clear(&err);
	CHECK(tk_reader_open_mem(&r, text, sizeof(text) - 1, "mem.btf", NULL,
				 &err) == TK_OK);
	if (!r)
		return 1;
	t = tk_reader_trace(r);
	fd = mkstemp(reqs);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return 1;
	fputs("requirements:\n  - name: a-rt\n    entity: A\n    metric: RT\n"
	      "    max: 1ms\n", f);
	fclose(f);
	CHECK(tk_reqs_read(&q, reqs, &err) == TK_OK);
	unlink(reqs);
	CHECK(tk_stats_new(&st, t, &err) == TK_OK);
	CHECK(tk_load_new(&ld, t, 0, NULL, NULL, &err) == TK_OK);
	CHECK(tk_timeline_new(&tl, t, NULL, NULL, NULL, &err) == TK_OK);
	CHECK(q && tk_verify_new(&v, q, t, &err) == TK_OK);
	CHECK(tk_counts_new(&cn, &err) == TK_OK);
	if (!st || !ld || !tl || !v || !cn)
		return 1;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		CHECK(tk_stats_event(st, ev, &err) == TK_OK);
		CHECK(tk_load_event(ld, ev, &err) == TK_OK);
		CHECK(tk_timeline_event(tl, ev, &err) == TK_OK);
		CHECK(tk_verify_event(v, ev, &err) == TK_OK);
	}
	CHECK(rc == TK_END);
	CHECK(tk_stats_finish(st, &err) == TK_OK);
	CHECK(tk_load_finish(ld, &err) == TK_OK);
	CHECK(tk_timeline_finish(tl, &err) == TK_OK);
	CHECK(tk_verify_finish(v, &err) == TK_OK);
	a = tk_trace_entity_find(t, "A", 1);
	core = tk_trace_entity_find(t, "Core_0", 6);
	CHECK(a != TK_NONE && core != TK_NONE);

	/* a NULL key finds nothing */
	CHECK(tk_format_find(NULL) == NULL);
	CHECK(tk_trace_header_get(t, NULL) == NULL);
	CHECK(tk_trace_entity_find(t, NULL, 0) == TK_NONE);
	CHECK(tk_trace_entity_find(t, NULL, 3) == TK_NONE);

	/* pointers: NULL */
	CHECK(tk_format_find("no-such-format") == NULL);
	CHECK(tk_format_get(tk_format_count()) == NULL);
	CHECK(tk_trace_header_get(t, "no-such-key") == NULL);
	CHECK(tk_trace_header(t, 1000) == NULL);
	CHECK(tk_trace_entity(t, (uint32_t)tk_trace_entity_count(t)) == NULL);
	CHECK(tk_trace_entity(t, TK_NONE) == NULL);
	CHECK(tk_stats_get(st, tk_stats_count(st)) == NULL);
	CHECK(tk_stats_row_name(st, tk_stats_count(st), &len) == NULL);
	CHECK(tk_reqs_name(q, tk_reqs_count(q)) == NULL);
	CHECK(tk_verify_get(v, tk_verify_count(v)) == NULL);
	CHECK(tk_symtab_get(NULL, 0) == NULL);

	/* entity ids: TK_NONE */
	CHECK(tk_trace_entity_find(t, "no-such-entity", 14) == TK_NONE);
	CHECK(tk_load_core(ld, tk_load_core_count(ld)) == TK_NONE);
	CHECK(tk_timeline_lane_core(tl, tk_timeline_lane_count(tl)) == TK_NONE);

	/* indexes (long): -1 */
	CHECK(tk_stats_find(st, a, TK_METRIC_RT) >= 0);
	CHECK(tk_stats_find(st, a, TK_METRIC_WAIT) == -1);    /* no wait */
	CHECK(tk_stats_find(st, core, TK_METRIC_RT) == -1);   /* a core */
	CHECK(tk_stats_find(st, 100000, TK_METRIC_RT) == -1); /* no entity */
	CHECK(tk_stats_find(st, TK_NONE, TK_METRIC_RT) == -1);
	CHECK(tk_stats_find(st, a, TK_METRIC_END) == -1);     /* no metric */
	CHECK(tk_timeline_lane_of(tl, core) == 0);
	CHECK(tk_timeline_lane_of(tl, a) == -1);              /* not a core */
	CHECK(tk_timeline_lane_of(tl, TK_NONE) == -1);
	CHECK(tk_symtab_find(NULL, 0x1000) == -1);

	/* found or not: 0, the value untouched */
	CHECK(tk_counts_add(cn, 1, 2) == 1);
	CHECK(tk_counts_get(cn, 42, &n) == 0);
	CHECK_EQ_U64(n, 7);
	CHECK(tk_counts_get(cn, 1, &n) == 1);
	CHECK_EQ_U64(n, 2);

	tk_counts_free(cn);
	tk_verify_free(v);
	tk_reqs_free(q);
	tk_stats_free(st);
	tk_load_free(ld);
	tk_timeline_free(tl);
	tk_reader_close(r);
	TEST_DONE();
}
