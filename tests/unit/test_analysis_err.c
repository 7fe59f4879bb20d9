/* test_analysis_err.c - the analyses' _event and _finish fill the caller's
 * tk_error on failure, as the rest of the API does (issue 39): tk_check_event,
 * tk_stats_event, tk_stats_finish, tk_load_event, tk_load_finish,
 * tk_timeline_event, tk_timeline_finish, tk_verify_event.  Each is made to
 * fail (an event of another trace: an entity id the trace does not have;
 * a NULL object; out of memory, by wrapping calloc as test_api_new does; a
 * window callback that stops; a requirement's window that is not a whole
 * number of ticks) and must return the code with err's code and message
 * set; a NULL err is allowed.  Once an analysis's _finish was called,
 * its _event refuses events (TK_E_USAGE), and a _finish that succeeded
 * does nothing more. */
#define _POSIX_C_SOURCE 200809L
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail_calloc.h"

static const char text[] =
	"#version 2.2.0\n#timescale ns\n"
	"0,STI,0,T,A,0,activate\n"
	"10,Core_0,0,T,A,0,start\n"
	"30,Core_0,0,T,A,0,terminate\n"
	"35,STI,0,T,B,0,activate\n"
	"40,Core_0,0,T,B,0,start\n"
	"50,Core_0,0,T,B,0,terminate\n";

/* err holds `code` and a message containing `part` */
#define CHECK_ERR(e, rc_, want, part)                                        \
	do {                                                                 \
		CHECK((rc_) == (want));                                      \
		CHECK((e).code == (want));                                   \
		CHECK(strstr((e).msg, (part)) != NULL);                      \
		if (!strstr((e).msg, (part)))                                \
			fprintf(stderr, "  message: %s\n", (e).msg);         \
	} while (0)

static int stop_window(void *ctx, uint64_t start, uint64_t end,
		       const uint64_t *busy, size_t ncores)
{
	(void)ctx; (void)start; (void)end; (void)busy; (void)ncores;
	return TK_E_IO;
}

int main(void)
{
	tk_reader *r = NULL;
	tk_check *chk = NULL;
	tk_stats *st = NULL;
	tk_load *ld = NULL, *lw = NULL, *lf = NULL, *lk = NULL;
	tk_timeline *tl = NULL;
	tk_reqs *q = NULL;
	tk_verify *v = NULL;
	const tk_event *ev;
	tk_event bad;
	const tk_trace *t;
	tk_error err, e;
	char reqs[] = "/tmp/tk_analysis_err_XXXXXX";
	FILE *f;
	int fd, rc, first = 1;

	tk_error_clear(&err);
	CHECK(tk_reader_open_mem(&r, text, sizeof(text) - 1, "mem.btf", NULL,
				 &err) == TK_OK);
	if (!r)
		return 1;
	t = tk_reader_trace(r);
	fd = mkstemp(reqs);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL);
	if (!f)
		return 1;
	fputs("requirements:\n  - name: core-load\n    load: Core_0\n"
	      "    window: 1ps\n    max: 100%\n", f);
	fclose(f);
	CHECK(tk_reqs_read(&q, reqs, &err) == TK_OK);
	unlink(reqs);
	CHECK(tk_check_new(&chk, t, NULL, NULL, &err) == TK_OK);
	CHECK(tk_stats_new(&st, t, &err) == TK_OK);
	CHECK(tk_load_new(&ld, t, 0, NULL, NULL, &err) == TK_OK);
	CHECK(tk_load_new(&lw, t, 5, stop_window, NULL, &err) == TK_OK);
	/* windows longer than the trace: the first ends at finish */
	CHECK(tk_load_new(&lf, t, 1000, stop_window, NULL, &err) == TK_OK);
	CHECK(tk_load_new(&lk, t, 1000, stop_window, NULL, &err) == TK_OK);
	CHECK(tk_timeline_new(&tl, t, NULL, NULL, NULL, &err) == TK_OK);
	CHECK(q && tk_verify_new(&v, q, t, &err) == TK_OK);
	if (!chk || !st || !ld || !lw || !lf || !lk || !tl || !v)
		return 1;

	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (first) {
			/* an event of another trace: an entity id this one
			 * does not have, refused before anything is counted */
			bad = *ev;
			bad.target = (uint32_t)tk_trace_entity_count(t) + 7;
			tk_error_clear(&e);
			CHECK_ERR(e, tk_check_event(chk, &bad, &e), TK_E_USAGE,
				  "tk_check_event: the event at position");
			tk_error_clear(&e);
			CHECK_ERR(e, tk_stats_event(st, &bad, &e), TK_E_USAGE,
				  "tk_stats_event: the event at position");
			tk_error_clear(&e);
			CHECK_ERR(e, tk_load_event(ld, &bad, &e), TK_E_USAGE,
				  "tk_load_event: the event at position");
			tk_error_clear(&e);
			CHECK_ERR(e, tk_timeline_event(tl, &bad, &e), TK_E_USAGE,
				  "tk_timeline_event: the event at position");
			tk_error_clear(&e);
			CHECK_ERR(e, tk_verify_event(v, &bad, &e), TK_E_USAGE,
				  "tk_verify_event: the event at position");
			bad = *ev;
			bad.core = 1000;
			tk_error_clear(&e);
			CHECK_ERR(e, tk_timeline_event(tl, &bad, &e), TK_E_USAGE,
				  "names entity 1000");
			CHECK(tk_stats_event(st, &bad, NULL) == TK_E_USAGE);
			/* no object, no event */
			tk_error_clear(&e);
			CHECK_ERR(e, tk_check_event(NULL, ev, &e), TK_E_USAGE,
				  "no analysis given");
			tk_error_clear(&e);
			CHECK_ERR(e, tk_stats_event(st, NULL, &e), TK_E_USAGE,
				  "no event given");
			/* a requirement's load window that is not a whole
			 * number of the trace's ticks (1ps of ns ticks) */
			tk_error_clear(&e);
			CHECK_ERR(e, tk_verify_event(v, ev, &e), TK_E_RANGE,
				  "requirement 'core-load': window 1ps");
			first = 0;
		}
		CHECK(tk_check_event(chk, ev, &err) == TK_OK);
		CHECK(tk_stats_event(st, ev, &err) == TK_OK);
		CHECK(tk_load_event(ld, ev, &err) == TK_OK);
		CHECK(tk_timeline_event(tl, ev, &err) == TK_OK);
		CHECK(tk_load_event(lf, ev, &err) == TK_OK);
		CHECK(tk_load_event(lk, ev, &err) == TK_OK);
		rc = tk_load_event(lw, ev, &err);
		if (rc < 0)
			break;
	}
	/* the window callback stopped the windows at the first window */
	CHECK_ERR(err, rc, TK_E_IO, "tk_load_event: the window callback stopped");
	/* a callback that filled the same tk_error keeps its message */
	tk_error_clear(&e);
	e.code = TK_E_IO;
	snprintf(e.msg, sizeof(e.msg), "the callback's own words");
	CHECK_ERR(e, tk_load_finish(lk, &e), TK_E_IO, "the callback's own words");
	tk_error_clear(&e);
	CHECK_ERR(e, tk_load_finish(lf, &e), TK_E_IO,
		  "tk_load_finish: the window callback stopped");

	/* out of memory: the rows of tk_stats_finish */
	tk_error_clear(&e);
	fail_callocs = 1;
	CHECK_ERR(e, tk_stats_finish(st, &e), TK_E_NOMEM, "out of memory");
	fail_callocs = 1;
	CHECK(tk_stats_finish(st, NULL) == TK_E_NOMEM);
	fail_callocs = 0;
	CHECK(tk_stats_finish(st, &e) == TK_OK);
	CHECK(tk_stats_count(st) > 0);
	/* out of memory: the pairs of tk_load_finish */
	tk_error_clear(&e);
	fail_callocs = 1;
	CHECK_ERR(e, tk_load_finish(ld, &e), TK_E_NOMEM, "out of memory");
	fail_callocs = 0;

	/* no object */
	tk_error_clear(&e);
	CHECK_ERR(e, tk_stats_finish(NULL, &e), TK_E_USAGE, "tk_stats_finish");
	tk_error_clear(&e);
	CHECK_ERR(e, tk_load_finish(NULL, &e), TK_E_USAGE, "tk_load_finish");
	tk_error_clear(&e);
	CHECK_ERR(e, tk_timeline_finish(NULL, &e), TK_E_USAGE, "tk_timeline_finish");
	CHECK(tk_timeline_finish(NULL, NULL) == TK_E_USAGE);
	tk_error_clear(&e);
	CHECK_ERR(e, tk_verify_finish(NULL, &e), TK_E_USAGE, "tk_verify_finish");
	CHECK(tk_timeline_finish(tl, &e) == TK_OK);

	/* after _finish: an event is refused; a _finish that succeeded, called
	 * again, changes nothing (ev: the event the window callback stopped
	 * at, still the reader's) */
	if (rc == TK_E_IO) {
		size_t nrows = tk_stats_count(st);
		uint64_t first_t, last_t;

		tk_error_clear(&e);
		CHECK_ERR(e, tk_stats_event(st, ev, &e), TK_E_USAGE,
			  "tk_stats_event: after tk_stats_finish");
		CHECK(tk_stats_finish(st, &e) == TK_OK);
		CHECK(tk_stats_count(st) == nrows);
		tk_load_span(ld, &first_t, &last_t);
		CHECK(tk_load_finish(ld, &e) == TK_OK);
		tk_error_clear(&e);
		CHECK_ERR(e, tk_load_event(ld, ev, &e), TK_E_USAGE,
			  "tk_load_event: after tk_load_finish");
		CHECK(tk_load_finish(ld, &e) == TK_OK);
		{
			uint64_t f2, l2;

			tk_load_span(ld, &f2, &l2);
			CHECK(f2 == first_t && l2 == last_t);
		}
		/* a load whose finish failed (the callback stopped) refuses
		 * events too */
		tk_error_clear(&e);
		CHECK_ERR(e, tk_load_event(lf, ev, &e), TK_E_USAGE,
			  "tk_load_event: after tk_load_finish");
		tk_error_clear(&e);
		CHECK_ERR(e, tk_timeline_event(tl, ev, &e), TK_E_USAGE,
			  "tk_timeline_event: after tk_timeline_finish");
		CHECK(tk_timeline_finish(tl, &e) == TK_OK);
		/* the verification's finish fails (its window), and then it
		 * refuses events */
		tk_error_clear(&e);
		CHECK(tk_verify_finish(v, &e) == TK_E_RANGE);
		tk_error_clear(&e);
		CHECK_ERR(e, tk_verify_event(v, ev, &e), TK_E_USAGE,
			  "tk_verify_event: after tk_verify_finish");
	}

	tk_verify_free(v);
	tk_reqs_free(q);
	tk_check_free(chk);
	tk_stats_free(st);
	tk_load_free(ld);
	tk_load_free(lw);
	tk_load_free(lf);
	tk_load_free(lk);
	tk_timeline_free(tl);
	tk_reader_close(r);
	TEST_DONE();
}
