/* test_contracts.c - a sample of the contracts of docs/library.md's
 * "Reference" (issue 39): every close, free and abort function and the
 * getters documented NULL-safe take NULL; the functions documented to
 * return TK_E_USAGE for a bad argument do so; getters give what the
 * reference says for an index out of range; a NULL tk_error is allowed
 * wherever a call fails (every failing input of tests/formats/, read
 * strict and lenient with NULL errors; a Tarmac exception timeline's
 * strict error at tk_tarmac_stats_finish).
 * usage: test_contracts TRACE WORKDIR FORMATS_DIR (TRACE: examples/demo.btf) */
#define _XOPEN_SOURCE 700
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdio.h>
#include <string.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

/* a two-line Fast Models log: two instructions of one CPU */
static const char tarmac_log[] =
	"0 clk IT (1) 00000000 e3a00000 A svc_s : MOV      r0,#0\n"
	"1 clk IT (2) 00000004 e3a01000 A svc_s : MOV      r1,#0\n";

/* nftw() callback: remove what it visits (depth first) */
static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* the peak resident size so far, in KiB */
static long peak_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

static void null_safe(void)
{
	tk_error err;
	char buf[128];

	/* the void close, free and abort functions */
	tk_error_clear(NULL);
	tk_trace_free(NULL);
	tk_input_close(NULL);
	tk_reader_close(NULL);
	tk_writer_abort(NULL);
	tk_output_abort(NULL);
	tk_counts_free(NULL);
	tk_check_free(NULL);
	tk_stats_free(NULL);
	tk_load_free(NULL);
	tk_reqs_free(NULL);
	tk_verify_free(NULL);
	tk_timeline_free(NULL);
	tk_tarmac_close(NULL);
	tk_tarmac_exceptions_free(NULL);
	tk_tarmac_stats_free(NULL);
	tk_symtab_free(NULL);
	tk_tarmac_profile_free(NULL);
	tk_shark_records_close(NULL);
	/* the int closes: nothing to finish is TK_OK */
	tk_error_clear(&err);
	CHECK(tk_writer_close(NULL, &err) == TK_OK && err.code == 0);
	CHECK(tk_output_close(NULL, &err) == TK_OK && err.code == 0);
	CHECK(tk_writer_close(NULL, NULL) == TK_OK);
	CHECK(tk_output_close(NULL, NULL) == TK_OK);
	/* getters documented NULL-safe */
	CHECK(tk_symtab_count(NULL) == 0);
	CHECK(tk_symtab_get(NULL, 0) == NULL);
	CHECK(tk_symtab_find(NULL, 0) == -1);
	tk_symtab_shift(NULL, 4);
	CHECK(tk_stats_find(NULL, 0, TK_METRIC_RT) == -1);
	{
		int64_t num;
		uint64_t den;
		CHECK(tk_stats_value(NULL, 0, TK_STAT_MIN, &num, &den) == TK_E_USAGE);
	}
	/* severity NULL: "error" */
	tk_error_clear(&err);
	err.code = TK_E_IO;
	snprintf(err.input, sizeof err.input, "in");
	snprintf(err.msg, sizeof err.msg, "m");
	CHECK_STR(tk_error_format(&err, NULL, buf, sizeof buf), "in: error: m");
	/* names out of range */
	CHECK_STR(tk_status_str(42), "unknown status");
	CHECK_STR(tk_unit_name((tk_unit)9), "?");
	CHECK_STR(tk_etype_name(TK_ET_COUNT), "?");
	CHECK_STR(tk_evkind_name(TK_EV_COUNT), "?");
	CHECK_STR(tk_state_name(TK_STATE_COUNT), "?");
	CHECK_STR(tk_rule_name(TK_RULE_COUNT), "?");
	CHECK_STR(tk_metric_name(TK_METRIC_END), "?");
	CHECK(tk_metric_is_time(TK_METRIC_END) == 0);
	CHECK_STR(tk_tarmac_kind_name(TK_TARMAC_KIND_COUNT), "?");
	CHECK_STR(tk_tarmac_unit_name(TK_TARMAC_UNIT_COUNT), "?");
	CHECK_STR(tk_tarmac_variant_name((tk_tarmac_variant)99), "unknown");
	CHECK(tk_format_get(tk_format_count()) == NULL);
	/* NULL names, errors */
	CHECK(tk_format_find(NULL) == NULL);
	CHECK(tk_format_from_path(NULL) == NULL);
	CHECK_STR(tk_error_format(NULL, NULL, buf, sizeof buf),
		  "tracekit: error: no error was given");
}

static void time_usage(void)
{
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 }, zero = { TK_UNIT_NS, 0, 1 };
	const tk_timebase badunit = { (tk_unit)7, 1, 1 };
	uint64_t v = 7;
	tk_unit u = TK_UNIT_S;
	char buf[64];

	CHECK(tk_time_convert(1, &zero, &ns, TK_ROUND_EXACT, &v) == TK_E_USAGE);
	CHECK(tk_time_convert(1, &ns, &badunit, TK_ROUND_EXACT, &v) == TK_E_USAGE);
	CHECK(tk_time_convert(1, &ns, &ns, (tk_round)3, &v) == TK_E_USAGE);
	CHECK(tk_duration_parse("5", TK_UNIT_S + 1, &v, &u) == TK_E_USAGE);
	CHECK(tk_duration_parse("5", -1, &v, &u) == TK_E_PARSE);
	CHECK(tk_unit_parse("xs", 2, 0, &u) == TK_E_PARSE && u == TK_UNIT_S);
	CHECK(tk_time_format(1, &zero, TK_UNIT_NS, buf, sizeof buf) == TK_E_USAGE);
	CHECK(tk_time_format(1, &ns, (tk_unit)9, buf, sizeof buf) == TK_E_USAGE);
	CHECK(tk_time_format(123456, &ns, TK_UNIT_NS, buf, 3) == TK_E_RANGE);
	CHECK(tk_time_format_decimal(1, &zero, TK_UNIT_NS, buf, sizeof buf) == TK_E_USAGE);
	CHECK(tk_share_format(1, 2, buf, 3) == TK_E_RANGE);
	CHECK(tk_time_digits(&zero, TK_UNIT_NS) == 3);
}

static void trace_usage(void)
{
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 };
	tk_trace *t = NULL;
	tk_str s = 0;
	uint32_t id = 0, id2 = 0;
	size_t len = 9;
	tk_error err;

	CHECK(tk_trace_new(NULL, &ns, &err) == TK_E_USAGE && err.code == TK_E_USAGE);
	CHECK(tk_trace_new(&t, NULL, &err) == TK_E_USAGE && t == NULL);
	CHECK(tk_trace_new(&t, &ns, NULL) == TK_OK && t);
	if (!t)
		return;
	CHECK(tk_trace_add_header(NULL, TK_HDR_PARAM, "k", 1, "v", 1, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, "k", 1, "a\nb", 3, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, NULL, 0, NULL, 0, 0) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, (tk_hdr_kind)3, "k", 1, "v", 1, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_COMMENT, NULL, 0, NULL, 0, 0) == TK_OK);
	CHECK(tk_trace_intern(t, "x", 1, NULL) == TK_E_USAGE);
	CHECK(tk_trace_intern(NULL, "x", 1, &s) == TK_E_USAGE);
	CHECK(tk_trace_intern(t, NULL, 1, &s) == TK_E_USAGE);
	CHECK(tk_trace_intern(t, NULL, 0, &s) == TK_OK);
	CHECK(tk_trace_add_entity(t, "", 0, TK_ET_T, TK_NONE, &id) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "T", 1, TK_ET_T, 5, &id) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "T", 1, TK_ET_COUNT, TK_NONE, &id) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "T", 1, TK_ET_T, TK_NONE, NULL) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "T", 1, TK_ET_T, TK_NONE, &id) == TK_OK);
	CHECK(tk_trace_add_entity(t, "T", 1, TK_ET_I, TK_NONE, &id2) == TK_E_USAGE);
	/* out of range */
	CHECK(tk_trace_header(t, tk_trace_header_count(t)) == NULL);
	CHECK(tk_trace_entity(t, 99) == NULL);
	CHECK(tk_trace_entity(t, TK_NONE) == NULL);
	CHECK_STR(tk_trace_str(t, 99999, &len), "");
	CHECK(len == 0);
	CHECK_STR(tk_trace_str(t, TK_NONE, NULL), "");
	CHECK(tk_trace_entity_find(t, "nope", 4) == TK_NONE);
	tk_trace_free(t);
}

static void counts(void)
{
	tk_counts *c = NULL;
	uint64_t n = 7;

	CHECK(tk_counts_new(&c, NULL) == TK_OK && c);
	if (!c)
		return;
	CHECK(tk_counts_add(c, 5, 2) == 1);
	CHECK(tk_counts_add(c, 5, 1) == 0);
	/* a counter never wraps: refused, unchanged */
	CHECK(tk_counts_add(c, 5, UINT64_MAX - 3) == 0);
	CHECK(tk_counts_add(c, 5, 1) == TK_E_RANGE);
	CHECK(tk_counts_add(c, 5, UINT64_MAX) == TK_E_RANGE);
	CHECK(tk_counts_add(c, 5, 0) == 0);
	CHECK(tk_counts_get(c, 5, &n) == 1 && n == UINT64_MAX);
	n = 7;
	CHECK(tk_counts_get(c, 5, NULL) == 1);
	CHECK(tk_counts_get(c, 6, &n) == 0 && n == 7);
	CHECK(tk_counts_key(c, 0, NULL) == 5);
	/* out of range: key 0, count 0 (it read past the rows) */
	CHECK(tk_counts_key(c, 1, &n) == 0 && n == 0);
	CHECK(tk_counts_key(c, SIZE_MAX, &n) == 0 && n == 0);
	tk_counts_free(c);
}

static void reading(const char *trace, const char *work)
{
	tk_reader_opts ro;
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	tk_stats *st = NULL;
	tk_load *l = NULL;
	tk_timeline *tl = NULL;
	tk_check *chk = NULL;
	const tk_event *evs;
	size_t n = 5;
	tk_error err;
	char path[4096], buf[64];
	const char *sig2[] = { "a", "a" }, *sig1[] = { "a" }, *sigbad[] = { "a", NULL };
	const char *idle[] = { "*" };
	uint32_t p0[] = { 0 }, p50[] = { 50000000 }, pbig[] = { 100000001 };
	int64_t num;
	uint64_t den, first = 1, last = 1;
	tk_report_opts rep;
	long rss;

	/* opts NULL: the defaults */
	CHECK(tk_reader_open(&r, trace, NULL, &err) == TK_OK && r);
	if (!r)
		return;
	CHECK(tk_reader_next_batch(r, &evs, &n, 0, &err) == TK_E_USAGE && n == 0);
	CHECK(tk_stats_new(&st, tk_reader_trace(r), NULL) == TK_OK);
	CHECK(tk_load_new(&l, tk_reader_trace(r), 0, NULL, NULL, NULL) == TK_OK);
	CHECK(tk_timeline_new(&tl, tk_reader_trace(r), NULL, NULL, NULL, NULL) == TK_OK);
	CHECK(tk_check_new(&chk, tk_reader_trace(r), NULL, NULL, NULL) == TK_OK);
	if (!st || !l || !tl || !chk)
		goto out;
	CHECK(tk_stats_add_chain(st, "c", sig1, 1) == TK_E_USAGE);
	CHECK(tk_stats_add_chain(st, "c", sig2, 2) == TK_E_USAGE);
	CHECK(tk_stats_add_chain(st, NULL, sig2, 2) == TK_E_USAGE);
	CHECK(tk_stats_add_chain(st, "c", NULL, 2) == TK_E_USAGE);
	CHECK(tk_stats_add_chain(st, "c", sigbad, 2) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, NULL, 1) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, p50, 0) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, p50, 65) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, p0, 1) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, pbig, 1) == TK_E_USAGE);
	CHECK(tk_stats_set_percentiles(st, p50, 1) == TK_OK);
	CHECK(tk_stats_set_percentiles(st, p50, 1) == TK_E_USAGE);
	CHECK(tk_load_set_idle(l, NULL, 1) == TK_E_USAGE);
	CHECK(tk_load_set_idle(l, NULL, 0) == TK_OK);
	CHECK(tk_timeline_set_idle(tl, idle, 1) == TK_OK);
	tk_load_span(l, &first, &last);
	CHECK(first == 0 && last == 0);
	tk_stats *st2 = NULL; /* given one event, then percentiles */
	CHECK(tk_stats_new(&st2, tk_reader_trace(r), &err) == TK_OK && st2);
	while (tk_reader_next_batch(r, &evs, &n, 16, &err) == TK_OK)
		for (size_t i = 0; i < n; i++) {
			if (st2 && tk_stats_count(st2) == 0 && i == 0)
				CHECK(tk_stats_event(st2, &evs[i], &err) == TK_OK);
			CHECK(tk_stats_event(st, &evs[i], &err) == TK_OK);
			CHECK(tk_load_event(l, &evs[i], &err) == TK_OK);
			CHECK(tk_timeline_event(tl, &evs[i], &err) == TK_OK);
			CHECK(tk_check_event(chk, &evs[i], &err) == TK_OK);
		}
	/* the setup calls come before the first event (they were taken after
	 * it, and applied to part of the trace only) */
	{
		const char *sig[] = { "a", "b" };
		CHECK(tk_stats_add_chain(st, "late", sig, 2) == TK_E_USAGE);
		CHECK(st2 && tk_stats_set_percentiles(st2, p50, 1) == TK_E_USAGE);
		tk_stats_free(st2);
		CHECK(tk_load_set_idle(l, idle, 1) == TK_E_USAGE);
		CHECK(tk_timeline_set_idle(tl, idle, 1) == TK_E_USAGE);
	}
	CHECK(tk_stats_finish(st, &err) == TK_OK && tk_stats_count(st) > 0);
	CHECK(tk_load_finish(l, &err) == TK_OK);
	CHECK(tk_timeline_finish(tl, &err) == TK_OK);
	/* an entity id that is no entity: not idle (it made a table of
	 * 2^32 flags: gigabytes written) */
	rss = peak_kib();
	CHECK(tk_timeline_is_idle(tl, TK_NONE) == 0);
	CHECK(peak_kib() - rss < 64 * 1024);
	CHECK(tk_timeline_is_idle(tl, (uint32_t)tk_trace_entity_count(tk_reader_trace(r))) == 0);
	CHECK(tk_load_entity_is_idle(l, TK_NONE) == 0);
	/* rows out of range */
	CHECK(tk_stats_get(st, tk_stats_count(st)) == NULL);
	CHECK(tk_stats_row_name(st, tk_stats_count(st), NULL) == NULL);
	CHECK(tk_stats_format(st, tk_stats_count(st), TK_STAT_MIN, TK_UNIT_NS, buf,
			      sizeof buf) == TK_E_USAGE);
	CHECK(tk_stats_format(st, 0, (tk_stat_field)4, TK_UNIT_NS, buf, sizeof buf) ==
	      TK_E_USAGE);
	CHECK(tk_stats_format(st, 0, TK_STAT_PCT0 + 1, TK_UNIT_NS, buf, sizeof buf) ==
	      TK_E_USAGE);
	CHECK(tk_stats_format(st, 0, TK_STAT_MIN, TK_UNIT_NS, buf, 0) == TK_E_USAGE);
	CHECK(tk_stats_format_exact(st, tk_stats_count(st), TK_STAT_MIN, TK_UNIT_NS,
				    buf, sizeof buf) == TK_E_USAGE);
	CHECK(tk_stats_value(st, 0, TK_STAT_MIN, NULL, &den) == TK_E_USAGE);
	CHECK(tk_stats_value(st, tk_stats_count(st), TK_STAT_MIN, &num, &den) ==
	      TK_E_USAGE);
	CHECK(tk_stats_value(st, 0, (tk_stat_field)5, &num, &den) == TK_E_USAGE);
	CHECK(tk_stats_percentile(st, tk_stats_count(st), 0, &den) == 0);
	CHECK(tk_stats_find(st, TK_NONE, TK_METRIC_RT) == -1);
	CHECK(tk_load_core(l, tk_load_core_count(l)) == TK_NONE);
	CHECK(tk_load_core_busy(l, tk_load_core_count(l)) == 0);
	CHECK(tk_load_core_idle(l, tk_load_core_count(l)) == 0);
	CHECK(tk_load_entity_busy(l, TK_NONE, 0) == 0);
	CHECK(tk_timeline_lane_core(tl, tk_timeline_lane_count(tl)) == TK_NONE);
	CHECK(tk_timeline_lane_of(tl, TK_NONE) == -1);
	CHECK(tk_timeline_lane_floor(tl, tk_timeline_lane_count(tl)) == UINT64_MAX);
	{
		uint32_t e;
		int64_t inst;
		CHECK(tk_timeline_running(tl, tk_timeline_lane_count(tl), &e, &inst) == 0);
	}
	CHECK(tk_check_count(chk, (tk_rule)(TK_RULE_COUNT + 1)) == 0);

	/* tk_verify_new: nothing to verify, or nowhere to put it (the header
	 * named a TK_E_USAGE no argument reached; NULL crashed) */
	{
		tk_reqs *q = NULL;
		tk_verify *v = (tk_verify *)&ro;
		FILE *f;

		snprintf(path, sizeof path, "%s/contracts-%ld.yaml", work, (long)getpid());
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs("requirements:\n  - {name: a, entity: Task_Control, metric: RT, "
			      "percentile: 50, max: 1s}\n", f);
			fclose(f);
		}
		CHECK(tk_reqs_read(&q, path, &err) == TK_OK && q);
		unlink(path);
		memset(&err, 0, sizeof err);
		CHECK(tk_verify_new(&v, NULL, tk_reader_trace(r), &err) == TK_E_USAGE && !v);
		CHECK(err.code == TK_E_USAGE &&
		      strstr(err.msg, "tk_verify_new: no requirements") == err.msg);
		v = (tk_verify *)&ro;
		CHECK(q && tk_verify_new(&v, q, NULL, &err) == TK_E_USAGE && !v);
		CHECK(strstr(err.msg, "tk_verify_new: no trace") == err.msg);
		CHECK(q && tk_verify_new(NULL, q, tk_reader_trace(r), NULL) == TK_E_USAGE);
		CHECK(q && tk_verify_new(&v, q, tk_reader_trace(r), &err) == TK_OK && v);
		tk_verify_free(v);
		tk_reqs_free(q);
	}

	/* writers: an unknown format, options a writer does not take */
	tk_writer_opts_init(&wo);
	snprintf(path, sizeof path, "%s/contracts.btf", work);
	wo.format = "no-such-format";
	CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_E_USAGE && !w);
	wo.format = NULL;
	wo.options = "no-such-option=1";
	CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_E_USAGE && !w);
	snprintf(path, sizeof path, "%s/contracts.no-such-extension", work);
	CHECK(tk_writer_open(&w, path, tk_reader_trace(r), NULL, &err) == TK_E_USAGE && !w);
	/* readers: an unknown format, options a reader does not take */
	tk_reader_opts_init(&ro);
	ro.format = "no-such-format";
	{
		tk_reader *r2 = (tk_reader *)&ro;
		CHECK(tk_reader_open(&r2, trace, &ro, &err) == TK_E_USAGE && !r2);
		ro.format = NULL;
		ro.options = "x=1";
		CHECK(tk_reader_open(&r2, trace, &ro, &err) == TK_E_USAGE && !r2);
	}
	/* the report reads its input twice: "-" is refused */
	tk_report_opts_init(&rep);
	snprintf(path, sizeof path, "%s/contracts.html", work);
	CHECK(tk_report_write("-", path, &rep, &err) == TK_E_USAGE);
	/* a dataset in a folder that is not empty */
	CHECK(tk_dataset_prepare(work, 0, &err) == TK_E_USAGE);
	/* NULL dataset options: the defaults */
	{
		char dir[512], hex[65];
		tk_reader *r3 = NULL;

		snprintf(dir, sizeof dir, "%s/contracts-ds-%ld", work, (long)getpid());
		CHECK(tk_dataset_prepare(dir, 0, &err) == TK_OK);
		CHECK(tk_dataset_hash(trace, hex, &err) == TK_OK);
		CHECK(tk_reader_open(&r3, trace, NULL, &err) == TK_OK);
		CHECK(r3 && tk_dataset_add(dir, trace, hex, r3, NULL, &err) == TK_OK);
		CHECK(tk_dataset_has(dir, hex) == 1);
		tk_reader_close(r3);
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	}
out:
	tk_check_free(chk);
	tk_timeline_free(tl);
	tk_load_free(l);
	tk_stats_free(st);
	tk_reader_close(r);
}

/* A failed write gives the writer up: the later writes and the close give
 * the same status and error, and no file is made (a strict HTF or ATF
 * writer refused an event, then the close wrote the file without it and
 * returned TK_OK).  One by one, in batches, with and without an error. */
static void writer_gives_up(const char *trace, const char *work)
{
	static const char *const fmts[] = { "htf", "atf" };
	tk_reader *r = NULL;
	tk_writer *w;
	tk_writer_opts wo;
	tk_error err, first;
	const tk_event *evs;
	size_t n;
	char path[4096];
	int rc, failed, f, batch;

	for (f = 0; f < 2; f++)
		for (batch = 0; batch < 3; batch++) {
			tk_error *e = batch == 2 ? NULL : &err;

			CHECK(tk_reader_open(&r, trace, NULL, &err) == TK_OK);
			if (!r)
				return;
			tk_writer_opts_init(&wo);
			wo.format = fmts[f];
			wo.strict = 1;
			snprintf(path, sizeof path, "%s/contracts-gives-up-%ld.%s",
				 work, (long)getpid(), fmts[f]);
			w = NULL;
			CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_OK);
			failed = 0;
			memset(&first, 0, sizeof first);
			while (w && tk_reader_next_batch(r, &evs, &n, 4, &err) == TK_OK) {
				rc = batch == 1 ? tk_writer_write_batch(w, evs, n, e)
						: tk_writer_write(w, evs, e);
				if (rc < 0 && !failed) {
					failed = rc;
					if (e)
						first = err;
				} else if (failed) {
					CHECK(rc == failed);
					CHECK(!e || (err.code == first.code &&
						     !strcmp(err.msg, first.msg)));
				}
			}
			CHECK(failed == TK_E_UNSUPPORTED);
			memset(&err, 0, sizeof err);
			CHECK(tk_writer_close(w, e) == failed);
			CHECK(!e || (err.code == first.code && !strcmp(err.msg, first.msg)));
			CHECK(access(path, F_OK) != 0);
			unlink(path);
			tk_reader_close(r);
			r = NULL;
		}
}

/* An output whose write failed (standard output on /dev/full): the later
 * writes and the close give TK_E_IO with the error filled, the first
 * failure's message again (they gave TK_E_IO with err untouched). */
static void output_fails(void)
{
	static char chunk[1 << 20];
	tk_output *o = NULL;
	tk_error err, first;
	int saved, full, i, rc, failed = 0;

	fflush(stdout); /* what the checks printed goes out before the swap */
	saved = dup(1);
	full = open("/dev/full", O_WRONLY);
	if (saved < 0 || full < 0 || dup2(full, 1) < 0) {
		printf("# output_fails: no /dev/full, skipped\n");
		goto out;
	}
	memset(&first, 0, sizeof first);
	CHECK(tk_output_open(&o, "-", &err) == TK_OK && o);
	for (i = 0; o && i < 4; i++) {
		memset(&err, 0, sizeof err);
		rc = tk_output_write(o, chunk, sizeof chunk, &err);
		if (rc < 0 && !failed) {
			failed = rc;
			first = err;
		} else if (failed) {
			CHECK(rc == TK_E_IO && err.code == TK_E_IO);
			CHECK(!strcmp(err.msg, first.msg));
		}
	}
	CHECK(failed == TK_E_IO && strstr(first.msg, "write failed") == first.msg);
	memset(&err, 0, sizeof err);
	CHECK(tk_output_close(o, &err) == TK_E_IO && err.code == TK_E_IO);
	CHECK(!strcmp(err.msg, first.msg));
out:
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
	}
	if (full >= 0)
		close(full);
}

/* A strict Tarmac reader's error is given again by every later call, with
 * its message, and no record follows it (the call after a bad line gave
 * the next line's record, then TK_END). */
static void tarmac_error_kept(void)
{
	static const char log[] =
		"0 clk IT (1) 00000000 e3a00000 A svc_s : MOV      r0,#0\n"
		"1 clk QQ what\n"
		"2 clk IT (2) 00000004 e3a01000 A svc_s : MOV      r1,#0\n";
	tk_tarmac *tr = NULL;
	tk_tarmac_opts o;
	tk_tarmac_record rec;
	tk_error err, first;

	tk_tarmac_opts_init(&o);
	o.strict = 1;
	CHECK(tk_tarmac_open_mem(&tr, log, sizeof log - 1, "bad.tarmac", &o, &err) == TK_OK);
	if (!tr)
		return;
	CHECK(tk_tarmac_next(tr, &rec, &err) == TK_OK && rec.line == 1);
	CHECK(tk_tarmac_next(tr, &rec, &err) == TK_E_PARSE && err.line == 2);
	first = err;
	memset(&err, 0, sizeof err);
	CHECK(tk_tarmac_next(tr, &rec, &err) == TK_E_PARSE);
	CHECK(err.code == TK_E_PARSE && err.line == 2 && !strcmp(err.msg, first.msg));
	CHECK(tk_tarmac_next(tr, &rec, NULL) == TK_E_PARSE);
	tk_tarmac_close(tr);
}

/* A path that names no regular file (a FIFO here; /dev/null alike) is
 * written to as it is: a temporary renamed over it put a regular file in
 * place of the FIFO (of /dev/null, run as root).  An output and a
 * writer; SQLite, which writes its own file, refuses it. */
static void output_to_fifo(const char *trace, const char *work)
{
	char path[4096], got[64];
	struct stat st;
	tk_output *o = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	tk_reader *r = NULL;
	tk_error err;
	ssize_t k;
	int fd;

	snprintf(path, sizeof path, "%s/contracts-fifo-%ld", work, (long)getpid());
	unlink(path);
	if (mkfifo(path, 0600) < 0) {
		printf("# output_to_fifo: no FIFO, skipped\n");
		return;
	}
	/* a reader first, so that the writers' open does not block */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0);
	CHECK(tk_output_open(&o, path, &err) == TK_OK && o);
	CHECK(o && tk_output_write(o, "fifo!", 5, &err) == TK_OK);
	CHECK(tk_output_close(o, &err) == TK_OK);
	k = fd >= 0 ? read(fd, got, sizeof got) : -1;
	CHECK(k == 5 && memcmp(got, "fifo!", 5) == 0);
	CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	/* a writer (its bytes drained as the pipe holds them all) */
	CHECK(tk_reader_open(&r, trace, NULL, &err) == TK_OK && r);
	tk_writer_opts_init(&wo);
	wo.format = "btf";
	CHECK(r && tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_OK && w);
	CHECK(tk_writer_close(w, &err) == TK_OK);
	k = fd >= 0 ? read(fd, got, sizeof got) : -1;
	CHECK(k > 8 && memcmp(got, "#version", 8) == 0);
	CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	wo.format = "sqlite";
	w = NULL;
	CHECK(r && tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_E_USAGE && !w);
	CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	tk_reader_close(r);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* A path through a symbolic link to a regular file: the file it leads to
 * is replaced, the link kept (a temporary renamed over the link put a
 * regular file in its place).  A path to an open file of this process
 * (/dev/fd/N, as /dev/stdout is when standard output is a file) is
 * appended to, as `>>` wants: a temporary could not even be made in
 * /dev/fd. */
static void output_through_links(const char *work)
{
	char link[4096], real[4096], fdpath[64], got[64];
	struct stat st;
	tk_output *o = NULL;
	tk_error err;
	FILE *f;
	size_t k;
	int fd;

	snprintf(real, sizeof real, "%s/contracts-real-%ld", work, (long)getpid());
	snprintf(link, sizeof link, "%s/contracts-link-%ld", work, (long)getpid());
	unlink(link);
	f = fopen(real, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(symlink(real, link) == 0);
	CHECK(tk_output_open(&o, link, &err) == TK_OK && o);
	CHECK(o && tk_output_write(o, "linked", 6, &err) == TK_OK);
	CHECK(tk_output_close(o, &err) == TK_OK);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	f = fopen(real, "r");
	k = f ? fread(got, 1, sizeof got, f) : 0;
	if (f)
		fclose(f);
	CHECK(k == 6 && memcmp(got, "linked", 6) == 0);
	unlink(link);
	/* /dev/fd/N of a file that holds "old," already */
	fd = open(real, O_WRONLY | O_TRUNC | O_APPEND);
	CHECK(fd >= 0 && write(fd, "old,", 4) == 4);
	snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", fd);
	o = NULL;
	CHECK(tk_output_open(&o, fdpath, &err) == TK_OK && o);
	CHECK(o && tk_output_write(o, "new", 3, &err) == TK_OK);
	CHECK(!o || tk_output_close(o, &err) == TK_OK);
	if (fd >= 0)
		close(fd);
	f = fopen(real, "r");
	k = f ? fread(got, 1, sizeof got, f) : 0;
	if (f)
		fclose(f);
	CHECK(k == 7 && memcmp(got, "old,new", 7) == 0);
	unlink(real);
}

static void tarmac(void)
{
	tk_tarmac *tr = NULL;
	tk_tarmac_record rec;
	tk_tarmac_profile *p = NULL;
	tk_tarmac_exceptions *ex = NULL;
	const uint32_t *kids = (const uint32_t *)&p;
	const tk_event *ev;
	tk_error err;
	size_t n;

	CHECK(tk_tarmac_open_mem(&tr, tarmac_log, sizeof tarmac_log - 1, NULL, NULL,
				 NULL) == TK_OK && tr);
	/* no symbol table: every address is unknown */
	CHECK(tk_tarmac_profile_new(&p, NULL, NULL) == TK_OK && p);
	CHECK(tk_tarmac_exceptions_new(&ex, tr, NULL, NULL) == TK_OK && ex);
	if (!tr || !p || !ex)
		goto out;
	CHECK(tk_tarmac_cpu_name(tr, 0) == NULL);
	CHECK(tk_tarmac_profile_children(p, SIZE_MAX, 1, &kids) == 0 && !kids);
	while (tk_tarmac_next(tr, &rec, NULL) == TK_OK) {
		CHECK(tk_tarmac_profile_record(p, &rec, NULL) == TK_OK);
		CHECK(tk_tarmac_exceptions_record(ex, &rec, NULL) >= 0);
	}
	/* a record after the exception events' finish is refused, said (it
	 * was dropped with 0, "no event queued") */
	tk_tarmac_exceptions_finish(ex);
	while (tk_tarmac_exceptions_next(ex, &ev) == TK_OK)
		;
	memset(&err, 0, sizeof err);
	CHECK(tk_tarmac_exceptions_record(ex, &rec, &err) == TK_E_USAGE);
	CHECK(err.code == TK_E_USAGE);
	CHECK(strstr(err.msg, "tk_tarmac_exceptions_record: ") == err.msg);
	CHECK(strstr(err.msg, "after tk_tarmac_exceptions_finish") != NULL);
	CHECK(tk_tarmac_exceptions_record(ex, &rec, NULL) == TK_E_USAGE);
	CHECK(tk_tarmac_exceptions_next(ex, &ev) == TK_END);
	CHECK(tk_tarmac_profile_log_calls(p) == TK_E_USAGE); /* after a record */
	CHECK(tk_tarmac_profile_finish(p, NULL) == TK_OK);
	CHECK(tk_tarmac_profile_finish(p, NULL) == TK_OK);
	n = tk_tarmac_profile_node_count(p);
	CHECK(n > 0);
	CHECK(tk_tarmac_profile_node(p, n) == NULL);
	CHECK(tk_tarmac_profile_func(p, tk_tarmac_profile_func_count(p)) == NULL);
	CHECK_STR(tk_tarmac_profile_symbol_name(p, -1), "[unknown]");
	CHECK_STR(tk_tarmac_profile_symbol_name(p, 12345), "[unknown]");
	CHECK(tk_tarmac_profile_children(p, SIZE_MAX, 1, &kids) >= 1 && kids);
	/* node n does not exist: no children (it gave the roots) */
	kids = (const uint32_t *)&p;
	CHECK(tk_tarmac_profile_children(p, n, 1, &kids) == 0 && !kids);
	CHECK(tk_tarmac_profile_children(p, n + 7, 0, &kids) == 0 && !kids);
out:
	tk_tarmac_exceptions_free(ex);
	tk_tarmac_profile_free(p);
	tk_tarmac_close(tr);
}

/* nftw() callback: read a failing input to its end or error, err NULL */
static int null_err_one(const char *path, const struct stat *st, int flag,
			struct FTW *f)
{
	const char *dot = strrchr(path, '.');
	int strict;

	(void)st, (void)f;
	if (flag != FTW_F || !strstr(path, "/fail/") || !dot ||
	    strcmp(dot, ".err") == 0 || strcmp(dot, ".args") == 0 ||
	    strcmp(dot, ".out") == 0)
		return 0;
	for (strict = 0; strict < 2; strict++) {
		tk_reader_opts o;
		tk_reader *r = NULL;
		const tk_event *evs;
		size_t n;
		int rc;
		tk_reader_opts_init(&o);
		o.strict = strict;
		if (tk_reader_open(&r, path, &o, NULL) < 0) {
			CHECK(r == NULL);
			continue;
		}
		while ((rc = tk_reader_next_batch(r, &evs, &n, 64, NULL)) == TK_OK)
			;
		CHECK(rc == TK_END || rc < 0);
		/* a failed reader says it again */
		if (rc < 0)
			CHECK(tk_reader_next_batch(r, &evs, &n, 64, NULL) == rc);
		tk_reader_close(r);
	}
	return 0;
}

static void null_errors(const char *formats)
{
	static const char log[] =
		"10 ns E SysTick\n"
		"20 ps IT (1) 00000000 e3a00000 A svc_s : MOV      r0,#0\n";
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_stats *st = NULL;
	tk_tarmac_record rec;
	int rc;

	CHECK(nftw(formats, null_err_one, 16, FTW_PHYS) == 0);
	/* strict: the exception timeline refuses a stamp of another unit;
	 * its error comes out at finish */
	tk_tarmac_opts_init(&o);
	o.strict = 1;
	CHECK(tk_tarmac_open_mem(&tr, log, sizeof(log) - 1, "t", &o, NULL) == TK_OK);
	CHECK(tk_tarmac_stats_new(&st, tr, TK_TARMAC_STATS_ALL, &o, NULL) == TK_OK);
	while ((rc = tk_tarmac_next(tr, &rec, NULL)) == TK_OK)
		CHECK(tk_tarmac_stats_record(st, &rec, NULL) == TK_OK);
	CHECK(tk_tarmac_stats_finish(st, NULL) < 0);
	tk_tarmac_stats_free(st);
	tk_tarmac_close(tr);
}

/* a call that must refuse a NULL argument with TK_E_USAGE, said in err */
#define USAGE(call)                                                          \
	do {                                                                 \
		memset(&err, 0, sizeof err);                                 \
		CHECK((call) == TK_E_USAGE);                                 \
		CHECK(err.code == TK_E_USAGE && err.msg[0] != 0);            \
	} while (0)

/* Every constructor refuses a NULL `out` (it wrote through it), and every
 * function fed one event or record at a time refuses a NULL object or a
 * NULL event (they dereferenced it), with TK_E_USAGE and a message. */
static void null_out(const char *trace)
{
	static const char log[] = "0 clk IT (1) 00000000 e3a00000 A svc_s : MOV r0,#0\n";
	tk_timebase tb = { TK_UNIT_NS, 1, 1 };
	tk_trace *t = NULL;
	tk_tarmac *tr = NULL;
	tk_tarmac_record rec;
	tk_input *in = NULL;
	tk_event ev;
	tk_error err;

	memset(&ev, 0, sizeof ev);
	memset(&rec, 0, sizeof rec);
	CHECK(tk_trace_new(&t, &tb, NULL) == TK_OK && t);
	CHECK(tk_tarmac_open_mem(&tr, log, sizeof log - 1, NULL, NULL, NULL) == TK_OK && tr);
	CHECK(tk_input_open(&in, trace, NULL, NULL) == TK_OK && in);
	if (!t || !tr || !in)
		goto out;
	USAGE(tk_trace_new(NULL, &tb, &err));
	USAGE(tk_counts_new(NULL, &err));
	USAGE(tk_check_new(NULL, t, NULL, NULL, &err));
	USAGE(tk_stats_new(NULL, t, &err));
	USAGE(tk_load_new(NULL, t, 0, NULL, NULL, &err));
	USAGE(tk_timeline_new(NULL, t, NULL, NULL, NULL, &err));
	USAGE(tk_verify_new(NULL, NULL, t, &err));
	USAGE(tk_reqs_read(NULL, trace, &err));
	{
		/* a NULL path: TK_E_USAGE (it was fopen's EFAULT, an I/O error) */
		tk_reqs *q = NULL;
		USAGE(tk_reqs_read(&q, NULL, &err));
		CHECK(!q);
	}
	USAGE(tk_reader_open(NULL, trace, NULL, &err));
	USAGE(tk_reader_open_mem(NULL, log, sizeof log - 1, "mem", NULL, &err));
	USAGE(tk_reader_open_input(NULL, in, NULL, &err));
	in = NULL; /* the callee's, also on failure: closed (ASan: no leak) */
	CHECK(tk_input_open(&in, trace, NULL, NULL) == TK_OK && in);
	USAGE(tk_tarmac_open_input(NULL, in, NULL, &err));
	in = NULL;
	CHECK(tk_input_open(&in, trace, NULL, NULL) == TK_OK && in);
	USAGE(tk_shark_records_open(NULL, in, &err));
	in = NULL;
	CHECK(tk_input_open(&in, trace, NULL, NULL) == TK_OK && in);
	USAGE(tk_input_open(NULL, trace, NULL, &err));
	USAGE(tk_input_open_opts(NULL, trace, NULL, &err));
	USAGE(tk_output_open(NULL, "unused.out", &err));
	USAGE(tk_writer_open(NULL, "unused.btf", t, NULL, &err));
	USAGE(tk_symtab_open(NULL, trace, &err));
	USAGE(tk_symtab_open_mem(NULL, log, sizeof log - 1, "mem", &err));
	USAGE(tk_tarmac_open(NULL, trace, NULL, &err));
	USAGE(tk_tarmac_open_mem(NULL, log, sizeof log - 1, "mem", NULL, &err));
	USAGE(tk_tarmac_stats_new(NULL, tr, 0, NULL, &err));
	USAGE(tk_tarmac_exceptions_new(NULL, tr, NULL, &err));
	USAGE(tk_tarmac_profile_new(NULL, NULL, &err));
	USAGE(tk_tarmac_state_new(NULL, &err));
	{
		tk_reader *r = NULL;
		tk_tarmac *tt = NULL;
		tk_shark_records *sr = NULL;

		USAGE(tk_reader_open_input(&r, NULL, NULL, &err));
		USAGE(tk_tarmac_open_input(&tt, NULL, NULL, &err));
		USAGE(tk_shark_records_open(&sr, NULL, &err));
		CHECK(!r && !tt && !sr);
	}
	USAGE(tk_tarmac_index_open(NULL, trace, NULL, 0, 0, NULL, &err));
	/* the feeding functions: a NULL object, a NULL event or record */
	USAGE(tk_check_event(NULL, &ev, &err));
	USAGE(tk_stats_event(NULL, &ev, &err));
	USAGE(tk_load_event(NULL, &ev, &err));
	USAGE(tk_verify_event(NULL, &ev, &err));
	USAGE(tk_timeline_event(NULL, &ev, &err));
	USAGE(tk_tarmac_stats_record(NULL, &rec, &err));
	USAGE(tk_tarmac_exceptions_record(NULL, &rec, &err));
	USAGE(tk_tarmac_profile_record(NULL, &rec, &err));
	USAGE(tk_tarmac_state_record(NULL, &rec, &err));
	{
		tk_check *c = NULL;
		tk_stats *st = NULL;
		tk_load *l = NULL;
		tk_tarmac_stats *ts = NULL;
		tk_tarmac_exceptions *ex = NULL;
		tk_tarmac_profile *p = NULL;
		tk_tarmac_state *ss = NULL;

		if (tk_check_new(&c, t, NULL, NULL, NULL) == TK_OK)
			USAGE(tk_check_event(c, NULL, &err));
		if (tk_stats_new(&st, t, NULL) == TK_OK)
			USAGE(tk_stats_event(st, NULL, &err));
		if (tk_load_new(&l, t, 0, NULL, NULL, NULL) == TK_OK)
			USAGE(tk_load_event(l, NULL, &err));
		if (tk_tarmac_stats_new(&ts, tr, 0, NULL, NULL) == TK_OK)
			USAGE(tk_tarmac_stats_record(ts, NULL, &err));
		if (tk_tarmac_exceptions_new(&ex, tr, NULL, NULL) == TK_OK)
			USAGE(tk_tarmac_exceptions_record(ex, NULL, &err));
		if (tk_tarmac_profile_new(&p, NULL, NULL) == TK_OK)
			USAGE(tk_tarmac_profile_record(p, NULL, &err));
		if (tk_tarmac_state_new(&ss, NULL) == TK_OK)
			USAGE(tk_tarmac_state_record(ss, NULL, &err));
		CHECK(c && st && l && ts && ex && p && ss);
		tk_check_free(c);
		tk_stats_free(st);
		tk_load_free(l);
		tk_tarmac_stats_free(ts);
		tk_tarmac_exceptions_free(ex);
		tk_tarmac_profile_free(p);
		tk_tarmac_state_free(ss);
	}
out:
	tk_input_close(in);
	tk_tarmac_close(tr);
	tk_trace_free(t);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	null_errors(argv[3]);
	null_safe();
	time_usage();
	trace_usage();
	counts();
	reading(argv[1], argv[2]);
	writer_gives_up(argv[1], argv[2]);
	output_fails();
	output_to_fifo(argv[1], argv[2]);
	output_through_links(argv[2]);
	tarmac();
	tarmac_error_kept();
	null_out(argv[1]);
	TEST_DONE();
}
