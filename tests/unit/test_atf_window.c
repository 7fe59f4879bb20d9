#define _POSIX_C_SOURCE 200809L
/*
 * test_atf_window.c - the Start and Stop the ATF writer gives a TraceData
 * (src/formats/atf/atf_window.c):
 *   - atf_time_cmp() compares time stamps exactly as decimals, whatever
 *     their leading and trailing zeros and numbers of decimals;
 *   - atf_window_fit() keeps a window that holds the entries as written,
 *     widens one that does not exactly to the earliest and latest entry
 *     (in the entries' decimals, never a rounded value that leaves one
 *     out), and gives an empty TraceData whose Stop is before its Start
 *     Stop = Start;
 *   - through the public API, an ATF input read leniently (entries outside
 *     their window, a Start after its Stop) written as ATF: lenient, the
 *     file reads back in strict mode with the same events; strict, the
 *     writer refuses with one line that names the TraceData.
 */
#include <stdlib.h>
#include <unistd.h>

#include "atf.h"
#include "tk_test.h"

static void cmp_cases(void)
{
	static const struct { const char *a, *b; int want; } c[] = {
		{ "0", "0", 0 },
		{ "0", "0.0", 0 },
		{ "00", "0", 0 },
		{ "2.2", "2.20", 0 },
		{ "007.5", "7.50", 0 },
		{ "2.2", "2.25", -1 },
		{ "2.25", "2.2", 1 },
		{ "1", "0.75", 1 },
		{ "0.75", "1", -1 },
		{ "10", "9.999", 1 },
		{ "9.999", "10", -1 },
		{ "0.000000000000000001", "0", 1 },
		{ "18446744073709551615", "18446744073709551616", -1 },
		{ "123456789012345678901234567890", "123456789012345678901234567890.0", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int got = atf_time_cmp(c[i].a, c[i].b);
		int back = atf_time_cmp(c[i].b, c[i].a);
		if (got != c[i].want || back != -c[i].want)
			fprintf(stderr, "atf_time_cmp(%s, %s) = %d / %d\n",
				c[i].a, c[i].b, got, back);
		CHECK(got == c[i].want);
		CHECK(back == -c[i].want);
	}
}

static void fit_cases(void)
{
	atf_window w;

	/* held: kept as written, trailing zeros and all */
	atf_window_fit(&w, "4.50", "6", 2, 1, 450, 600, 450);
	CHECK_STR(w.start, "4.50");
	CHECK_STR(w.stop, "6");
	CHECK(w.widened == 0);

	/* ticks of 1/100: entries at 0.75 and 2.25 outside "1" .. "2.2" */
	atf_window_fit(&w, "1", "2.2", 2, 1, 75, 225, 75);
	CHECK_STR(w.start, "0.75");
	CHECK_STR(w.stop, "2.25");
	CHECK(w.widened == (ATF_WIDEN_START | ATF_WIDEN_STOP));

	/* one tick past the Stop, at 18 decimals: not rounded back in */
	atf_window_fit(&w, "0", "0.5", 18, 1, 0, 500000000000000001ull, 0);
	CHECK_STR(w.start, "0");
	CHECK_STR(w.stop, "0.500000000000000001");
	CHECK(w.widened == ATF_WIDEN_STOP);

	/* an entry at the Stop exactly, written with other decimals: held */
	atf_window_fit(&w, "1.0", "2.20", 3, 1, 1000, 2200, 1000);
	CHECK_STR(w.start, "1.0");
	CHECK_STR(w.stop, "2.20");
	CHECK(w.widened == 0);

	/* a time that decreases within the TraceData: the earliest entry,
	 * not the first, is what the Start must hold */
	atf_window_fit(&w, NULL, NULL, 0, 1, 4, 6, 6);
	CHECK_STR(w.start, "4");
	CHECK(w.stop == NULL);
	CHECK(w.widened == 0);
	atf_window_fit(&w, "5", NULL, 0, 1, 4, 6, 6);
	CHECK_STR(w.start, "4");
	CHECK(w.stop == NULL);
	CHECK(w.widened == ATF_WIDEN_START);

	/* empty: a Stop before the Start becomes the Start; else kept */
	atf_window_fit(&w, "3.5", "3", 1, 0, 0, 0, 99);
	CHECK_STR(w.start, "3.5");
	CHECK_STR(w.stop, "3.5");
	CHECK(w.widened == ATF_WIDEN_STOP);
	atf_window_fit(&w, "3", "3.5", 1, 0, 0, 0, 99);
	CHECK_STR(w.start, "3");
	CHECK_STR(w.stop, "3.5");
	CHECK(w.widened == 0);
	/* empty with no Start kept: the time it opened at */
	atf_window_fit(&w, NULL, "3", 1, 0, 0, 0, 25);
	CHECK_STR(w.start, "2.5");
	CHECK_STR(w.stop, "3");
	CHECK(w.widened == 0);
	atf_window_fit(&w, NULL, "2", 1, 0, 0, 0, 25);
	CHECK_STR(w.start, "2.5");
	CHECK_STR(w.stop, "2.5");
	CHECK(w.widened == ATF_WIDEN_STOP);

	/* a Start after its Stop with an entry between: both widened to it */
	atf_window_fit(&w, "5", "3", 0, 1, 4, 4, 4);
	CHECK_STR(w.start, "4");
	CHECK_STR(w.stop, "4");
	CHECK(w.widened == (ATF_WIDEN_START | ATF_WIDEN_STOP));
}

static const char input[] =
	"<?xml version=\"1.0\"?>\n"
	"<CommonFormat Version=\"1.0\">\n"
	"  <SystemConfiguration Name=\"s\">\n"
	"    <Resource ID=\"0\" Scheduler=\"OSEK\">\n"
	"      <SystemElement Name=\"T1\" ID=\"1\" Type=\"task\" />\n"
	"    </Resource>\n"
	"    <EventIDMappings>\n"
	"      <EventIDMapping EventID=\"1\" EventType=\"start\" />\n"
	"      <EventIDMapping EventID=\"2\" EventType=\"terminate\" />\n"
	"    </EventIDMappings>\n"
	"    <TimeBase Unit=\"us\">\n"
	"      <Value Numerator=\"1\" Denominator=\"4\" />\n"
	"    </TimeBase>\n"
	"  </SystemConfiguration>\n"
	"  <TraceData Start=\"1\" Stop=\"2.2\">\n"
	"    <TraceEntry Time=\"0.75\" EventID=\"1\" ReferenceID=\"1\" />\n"
	"    <TraceEntry Time=\"1.5\" EventID=\"2\" ReferenceID=\"1\" />\n"
	"    <TraceEntry Time=\"2.25\" EventID=\"1\" ReferenceID=\"1\" />\n"
	"  </TraceData>\n"
	"  <TraceData Start=\"3.5\" Stop=\"3\">\n"
	"  </TraceData>\n"
	"</CommonFormat>\n";

static int warnings;

static void on_warning(void *ctx, const tk_error *w)
{
	(void)ctx;
	(void)w;
	warnings++;
}

/* input read leniently, written as ATF to path (strict or not) */
static int convert(const char *path, int strict, tk_error *err)
{
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_reader_opts ro;
	tk_writer_opts wo;
	const tk_event *ev;
	int rc;

	tk_reader_opts_init(&ro);
	ro.format = "atf";
	ro.on_warning = on_warning;
	if ((rc = tk_reader_open_mem(&r, input, sizeof(input) - 1, "mem.atf",
				     &ro, err)) < 0)
		return rc;
	tk_writer_opts_init(&wo);
	wo.format = "atf";
	wo.strict = strict;
	wo.on_warning = on_warning;
	if ((rc = tk_writer_open(&w, path, tk_reader_trace(r), &wo, err)) < 0) {
		tk_reader_close(r);
		return rc;
	}
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK)
		if ((rc = tk_writer_write(w, ev, err)) < 0)
			break;
	if (rc == TK_END)
		rc = tk_writer_close(w, err);
	else
		tk_writer_abort(w);
	tk_reader_close(r);
	return rc;
}

/* the events of ATF file path read in strict mode (0: refused) */
static size_t read_strict(const char *path, tk_error *err)
{
	tk_reader *r = NULL;
	tk_reader_opts ro;
	const tk_event *ev;
	size_t n = 0;
	int rc;

	tk_reader_opts_init(&ro);
	ro.strict = 1;
	if (tk_reader_open(&r, path, &ro, err) < 0)
		return 0;
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK)
		n++;
	tk_reader_close(r);
	return rc == TK_END ? n : 0;
}

static void writer_cases(void)
{
	char path[] = "/tmp/tk_test_atf_window_XXXXXX";
	tk_error err;
	int fd = mkstemp(path), rc;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);

	/* lenient: the windows widened (one warning of the writer), and the
	 * file reads back in strict mode */
	warnings = 0;
	rc = convert(path, 0, &err);
	CHECK(rc == TK_OK);
	if (rc < 0)
		fprintf(stderr, "lenient: %s\n", err.msg);
	CHECK(warnings == 3);   /* 2 of the reader, 1 of the writer */
	rc = (int)read_strict(path, &err);
	if (rc != 3)
		fprintf(stderr, "read back strictly: %s\n", err.msg);
	CHECK(rc == 3);

	/* strict writer (the reader lenient): refused, one line naming the
	 * first TraceData and its entry */
	rc = convert(path, 1, &err);
	CHECK(rc == TK_E_UNSUPPORTED);
	CHECK(strchr(err.msg, '\n') == NULL);
	CHECK(strstr(err.msg, "TraceData 1") != NULL);
	CHECK(strstr(err.msg, "0.75") != NULL);
	if (rc != TK_E_UNSUPPORTED || !strstr(err.msg, "TraceData 1"))
		fprintf(stderr, "strict: %d %s\n", rc, err.msg);
	remove(path);
}

int main(void)
{
	cmp_cases();
	fit_cases();
	writer_cases();
	TEST_DONE();
}
