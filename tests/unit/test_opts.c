/* test_opts.c - the option structs grow without an ABI break (tracekit.h,
 * "Option structs"): a struct whose size is that of an older, smaller
 * version is read up to its size, the fields after it defaulted; a size
 * that is no version's (0, garbage: a struct never initialised) is
 * refused with TK_E_USAGE and a message naming the struct. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stddef.h>
#include <stdlib.h>

static const char trace[] =
	"#version 2.3.0\n#timescale ns\n"
	"0,Core_1,0,T,A,0,start\n"
	"10,Core_1,0,T,A,0,preempt\n"
	"20,Core_1,0,T,B,0,start\n"
	"30,Core_1,0,T,B,0,terminate\n"
	"40,Core_1,0,T,A,0,resume\n"
	"50,Core_1,0,T,A,0,terminate\n";

/* open the trace with reader options o: the status, err filled */
static int open_with(const tk_reader_opts *o, tk_error *err, size_t *nev)
{
	tk_reader *r = NULL;
	const tk_event *ev;
	int rc;

	*nev = 0;
	tk_error_clear(err);
	rc = tk_reader_open_mem(&r, trace, sizeof(trace) - 1, "t.btf", o, err);
	if (rc < 0)
		return rc;
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK)
		(*nev)++;
	tk_reader_close(r);
	return rc == TK_END ? TK_OK : rc;
}

static void refused(int rc, const tk_error *err, const char *what)
{
	CHECK(rc == TK_E_USAGE);
	CHECK(strstr(err->msg, what) != NULL);
	CHECK(strstr(err->msg, "_opts_init()") != NULL);
}

int main(void)
{
	tk_reader_opts ro;
	tk_writer_opts wo;
	tk_report_opts po;
	tk_dataset_opts dso;
	tk_tarmac_opts to;
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_tarmac *tr = NULL;
	tk_error err;
	size_t n;
	int rc;

	/* the *_opts_init() set the size */
	tk_reader_opts_init(&ro);
	CHECK_EQ_U64(ro.size, sizeof(ro));
	tk_writer_opts_init(&wo);
	CHECK_EQ_U64(wo.size, sizeof(wo));
	tk_report_opts_init(&po);
	CHECK_EQ_U64(po.size, sizeof(po));
	tk_dataset_opts_init(&dso);
	CHECK_EQ_U64(dso.size, sizeof(dso));
	tk_tarmac_opts_init(&to);
	CHECK_EQ_U64(to.size, sizeof(to));

	/* the full struct and NULL read the trace */
	CHECK(open_with(&ro, &err, &n) == TK_OK);
	CHECK_EQ_U64(n, 6);
	CHECK(open_with(NULL, &err, &n) == TK_OK);
	CHECK_EQ_U64(n, 6);

	/* a struct of the older, smaller size (tk_reader_opts before its
	 * query): read up to its size, the query after it defaulted (no
	 * window, no filter) whatever the bytes there hold */
	tk_reader_opts_init(&ro);
	ro.size = offsetof(tk_reader_opts, start);
	memset((char *)&ro + ro.size, 0xa5, sizeof(ro) - ro.size);
	CHECK(open_with(&ro, &err, &n) == TK_OK);
	CHECK_EQ_U64(n, 6);
	/* ... and the fields inside its size are read */
	ro.format = "htf";
	CHECK(open_with(&ro, &err, &n) == TK_E_FORMAT);
	ro.format = NULL;
	/* the same bytes with the full size: a query, which they make bad */
	ro.size = sizeof(ro);
	CHECK(open_with(&ro, &err, &n) == TK_E_USAGE);
	/* the full size with a window: it is read */
	tk_reader_opts_init(&ro);
	ro.has_start = 1;
	ro.start = 20;
	CHECK(open_with(&ro, &err, &n) == TK_OK);
	CHECK_EQ_U64(n, 4);

	/* tk_writer_opts of the older size (before `input`): taken, the
	 * bytes after it not read (a pointer there would be followed) */
	{
		CHECK(tk_reader_open_mem(&r, trace, sizeof(trace) - 1, "t.btf", NULL,
					 &err) == TK_OK);
		tk_writer_opts_init(&wo);
		wo.size = offsetof(tk_writer_opts, input);
		memset((char *)&wo + wo.size, 0xa5, sizeof(wo) - wo.size);
		wo.format = "btf";
		CHECK(tk_writer_open(&w, "/dev/null", tk_reader_trace(r), &wo, &err) == TK_OK);
		CHECK(tk_writer_close(w, &err) == TK_OK);
		w = NULL;
		tk_reader_close(r);
		r = NULL;
	}

	/* a struct never initialised: size 0, garbage, one byte off */
	memset(&ro, 0, sizeof(ro));
	refused(open_with(&ro, &err, &n), &err, "tk_reader_opts");
	memset(&ro, 0xa5, sizeof(ro));
	refused(open_with(&ro, &err, &n), &err, "tk_reader_opts");
	tk_reader_opts_init(&ro);
	ro.size = sizeof(ro) + 8;
	refused(open_with(&ro, &err, &n), &err, "tk_reader_opts");
	ro.size = sizeof(size_t);
	refused(open_with(&ro, &err, &n), &err, "tk_reader_opts");
	/* refused before anything is opened: a path that cannot be opened
	 * gives the struct's TK_E_USAGE, not TK_E_IO */
	ro.size = 0;
	rc = tk_reader_open(&r, "no-such-dir/no-such-trace.btf", &ro, &err);
	refused(rc, &err, "tk_reader_opts");
	CHECK(r == NULL);
	/* the query's fields are checked whether a window or a filter is
	 * given or not (a window_stop or a unit out of range was taken
	 * without a window) */
	tk_reader_opts_init(&ro);
	ro.window_stop = TK_STOP_NEVER + 1;
	CHECK(open_with(&ro, &err, &n) == TK_E_USAGE);
	CHECK(strstr(err.msg, "window_stop") != NULL);
	tk_reader_opts_init(&ro);
	ro.start_unit = TK_UNIT_S + 1;
	CHECK(open_with(&ro, &err, &n) == TK_E_USAGE);
	CHECK(strstr(err.msg, "start_unit") != NULL);
	tk_reader_opts_init(&ro);
	ro.end_unit = -2;
	CHECK(open_with(&ro, &err, &n) == TK_E_USAGE);
	CHECK(strstr(err.msg, "end_unit") != NULL);
	tk_reader_opts_init(&ro);
	ro.nevents = 1;
	rc = tk_reader_open(&r, "no-such-dir/no-such-trace.btf", &ro, &err);
	CHECK(rc == TK_E_USAGE && r == NULL);
	/* through tk_input_open_opts() and tk_reader_open_input() too */
	ro.size = 0;
	{
		tk_input *in = NULL;
		rc = tk_input_open_opts(&in, "/dev/null", &ro, &err);
		refused(rc, &err, "tk_reader_opts");
		CHECK(in == NULL);
	}

	/* the writer's, the report's, the dataset's, Tarmac's */
	tk_reader_opts_init(&ro);
	rc = tk_reader_open_mem(&r, trace, sizeof(trace) - 1, "t.btf", &ro, &err);
	CHECK(rc == TK_OK);
	memset(&wo, 0, sizeof(wo));
	wo.format = "btf";
	rc = tk_writer_open(&w, "-", tk_reader_trace(r), &wo, &err);
	refused(rc, &err, "tk_writer_opts");
	CHECK(w == NULL);
	tk_writer_opts_init(&wo);
	wo.size = 12345;
	rc = tk_writer_open(&w, "-", tk_reader_trace(r), &wo, &err);
	refused(rc, &err, "tk_writer_opts");
	memset(&dso, 0, sizeof(dso));
	rc = tk_dataset_add("/nonexistent", "t.btf", "00", r, &dso, &err);
	refused(rc, &err, "tk_dataset_opts");
	tk_reader_close(r);

	memset(&po, 0, sizeof(po));
	rc = tk_report_write("t.btf", "/nonexistent/out.html", &po, &err);
	refused(rc, &err, "tk_report_opts");
	tk_report_opts_init(&po);
	memset(&ro, 0, sizeof(ro));
	po.reader = &ro;   /* the reader options inside are checked too */
	rc = tk_report_write("t.btf", "/nonexistent/out.html", &po, &err);
	refused(rc, &err, "tk_reader_opts");

	memset(&to, 0, sizeof(to));
	rc = tk_tarmac_open_mem(&tr, "0 clk IT (0) 00000000 e1a00000 A svc_32 : MOV r0,r0\n",
				52, "t.tarmac", &to, &err);
	refused(rc, &err, "tk_tarmac_opts");
	CHECK(tr == NULL);

	TEST_DONE();
}
