/* test_stats_value.c - tk_stats_value() and tk_stats_find() through the
 * public API (issue 39, numeric statistics): on traces timed in ns, every
 * value of every row as a fraction equals what tk_stats_format_exact()
 * writes (JIT's min and max too, which tk_stat leaves 0), the sum is the
 * average times the count, and tk_stats_find() finds each entity's row.
 * usage: test_stats_value TRACE... (each timed in ns, one with JIT rows) */
#include "tk_test.h"
#include "tracekit/analysis.h"
#include "tracekit/tracekit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

/* "N", "-N", "N.F", "N/D" into n/d; 0 when it is none of them */
static int parse(const char *s, i128 *n, i128 *d)
{
	int neg = *s == '-';
	const char *p = s + neg;
	char *end;

	*n = (i128)strtoull(p, &end, 10);
	*d = 1;
	if (end == p)
		return 0;
	if (*end == '/') {
		p = end + 1;
		*d = (i128)strtoull(p, &end, 10);
	} else if (*end == '.') {
		for (p = end + 1; *p >= '0' && *p <= '9'; p++) {
			*n = *n * 10 + (*p - '0');
			*d *= 10;
		}
		end = (char *)p;
	}
	if (*end || !*d)
		return 0;
	if (neg)
		*n = -*n;
	return 1;
}

static void check_trace(const char *path, unsigned *njit_nonzero, unsigned *nrows)
{
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	const tk_event *ev;
	tk_error err;
	size_t i;
	int rc, f;

	CHECK(tk_reader_open(&r, path, NULL, &err) == TK_OK);
	if (!r)
		return;
	CHECK(tk_trace_timebase(tk_reader_trace(r))->unit == TK_UNIT_NS);
	CHECK(tk_stats_new(&st, tk_reader_trace(r), &err) == TK_OK);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		CHECK(tk_stats_event(st, ev, NULL) == TK_OK);
	CHECK(rc == TK_END);
	CHECK(tk_stats_finish(st, NULL) == TK_OK);
	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *row = tk_stats_get(st, i);
		i128 avg_n = 0, avg_d = 1;
		int have_avg = 0;

		(*nrows)++;
		for (f = TK_STAT_MIN; f <= TK_STAT_SUM; f++) {
			char buf[128];
			int64_t num = 0;
			uint64_t den = 0;
			i128 n, d;
			int got = tk_stats_value(st, i, (tk_stat_field)f, &num, &den);
			int len = tk_stats_format_exact(st, i, (tk_stat_field)f, TK_UNIT_NS,
							buf, sizeof buf);

			CHECK(len >= 0);
			if (len < 0)
				continue;
			if (got == 0) {
				CHECK(len == 0);
				continue;
			}
			CHECK(got == 1 && den >= 1);
			CHECK(parse(buf, &n, &d));
			if (got != 1 || !den || !parse(buf, &n, &d))
				continue;
			if ((i128)num * d != n * (i128)den)
				fprintf(stderr, "%s row %zu field %d: value %lld/%llu, format '%s'\n",
					path, i, f, (long long)num, (unsigned long long)den, buf);
			CHECK((i128)num * d == n * (i128)den);
			if (f == TK_STAT_AVG) {
				avg_n = num;
				avg_d = (i128)den;
				have_avg = 1;
			}
			if (f == TK_STAT_SUM && have_avg && row->metric != TK_METRIC_JIT)
				CHECK((i128)num * avg_d == avg_n * (i128)row->count * (i128)den);
			if (row->metric == TK_METRIC_JIT && f != TK_STAT_AVG && f != TK_STAT_SUM &&
			    num != 0)
				(*njit_nonzero)++;
		}
		if (!row->chain)
			CHECK(tk_stats_find(st, row->entity, row->metric) == (long)i);
	}
	/* out of range */
	{
		int64_t num;
		uint64_t den;
		CHECK(tk_stats_value(st, tk_stats_count(st), TK_STAT_MIN, &num, &den) == TK_E_USAGE);
		CHECK(tk_stats_value(st, 0, (tk_stat_field)4, &num, &den) == TK_E_USAGE);
		CHECK(tk_stats_value(st, 0, TK_STAT_PCT0, &num, &den) == TK_E_USAGE);
		CHECK(tk_stats_find(st, TK_NONE, TK_METRIC_RT) == -1);
		CHECK(tk_stats_find(st, 0, TK_METRIC_COUNT) == -1);
	}
	tk_stats_free(st);
	tk_reader_close(r);
}

int main(int argc, char **argv)
{
	unsigned njit = 0, nrows = 0;
	int i;

	for (i = 1; i < argc; i++)
		check_trace(argv[i], &njit, &nrows);
	CHECK(nrows >= 20);
	CHECK(njit >= 1); /* a JIT min or max that is not 0 */
	TEST_DONE();
}
