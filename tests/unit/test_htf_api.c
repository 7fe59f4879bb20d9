/*
 * test_htf_api.c - the HTF reader and writer through the public API: the
 * merge of core sections, the synthesised sources and instances, the
 * writer's options, its loss warning (tk_writer_opts.on_warning) and strict
 * refusal.
 */
#define _POSIX_C_SOURCE 200809L
#include "tracekit/tracekit.h"
#include "tk_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char htf[] =
	"#Format HTF\n#Version 1.0\n#TimeScale us\n#TimeScaleNumerator 3\n"
	"#TimeScaleDenominator 2\n#TimestampLength 2\n#EntityLength 1\n"
	"#EventLength 1\n#NumberOfCores 2\n"
	"#TypeTable\n#-00 Task\n#-02 Runnable\n"
	"#TaskEventTable\n#-00 activate\n#-01 start\n#-04 terminate\n"
	"#RunnableEventTable\n#-00 start\n#-03 terminate\n"
	"#EntityTable\n#-01 A\n#-02 RA\n#-03 B\n"
	"#EntityTypeTable\n#-01 00\n#-02 02\n#-03 00\n"
	"#TraceData\n"
	"#-01\n00010100\n00020101\n00030200\n00050203\n00060104\n00070100\n"
	"#-00\n00020300\n00020301\n00090304\n";

static int nwarn;
static char lastwarn[400];

static void on_warn(void *ctx, const tk_error *w)
{
	(void)ctx;
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", w->msg);
}

static const char *name(const tk_trace *t, uint32_t ent)
{
	return tk_trace_str(t, tk_trace_entity(t, ent)->name, NULL);
}

static void test_read(void)
{
	static const struct {
		uint64_t time;
		const char *src, *tgt, *ev;
		int64_t sinst, tinst;
	} want[] = {
		{ 1, "Core_1", "A", "activate", 0, 0 },
		{ 2, "Core_1", "A", "start", 0, 0 },
		{ 2, "Core_0", "B", "activate", 0, 0 }, /* tie: section order */
		{ 2, "Core_0", "B", "start", 0, 0 },
		{ 3, "A", "RA", "start", 0, 0 },
		{ 5, "A", "RA", "terminate", 0, 0 },
		{ 6, "Core_1", "A", "terminate", 0, 0 },
		{ 7, "Core_1", "A", "activate", 0, 1 },
		{ 9, "Core_0", "B", "terminate", 0, 0 },
	};
	tk_reader *r;
	tk_error err;
	const tk_event *ev;
	const tk_trace *t;
	size_t i = 0;
	int rc;

	CHECK(tk_reader_open_mem(&r, htf, sizeof(htf) - 1, "t.htf", NULL, &err) == TK_OK);
	CHECK_STR(tk_reader_format(r), "htf");
	t = tk_reader_trace(r);
	CHECK_EQ_U64(tk_trace_timebase(t)->unit, TK_UNIT_US);
	CHECK_EQ_U64(tk_trace_timebase(t)->num, 3);
	CHECK_EQ_U64(tk_trace_timebase(t)->den, 2);
	CHECK_STR(tk_trace_header_get(t, "numberofcores"), "2");
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (i < sizeof(want) / sizeof(want[0])) {
			CHECK_EQ_U64(ev->time, want[i].time);
			CHECK_STR(name(t, ev->source), want[i].src);
			CHECK_STR(name(t, ev->target), want[i].tgt);
			CHECK_STR(tk_trace_str(t, ev->name, NULL), want[i].ev);
			CHECK_EQ_U64((uint64_t)ev->source_inst, (uint64_t)want[i].sinst);
			CHECK_EQ_U64((uint64_t)ev->target_inst, (uint64_t)want[i].tinst);
			CHECK(ev->core != TK_NONE);
			CHECK(ev->note == NULL);
		}
		i++;
	}
	CHECK(rc == TK_END);
	CHECK_EQ_U64(i, sizeof(want) / sizeof(want[0]));
	CHECK_EQ_U64(tk_reader_warning_count(r), 0);
	tk_reader_close(r);
}

static void test_write(void)
{
	static const char btf[] =
		"#version 2.2.1\n#timescale ns\n"
		"0,S,0,STI,S,0,trigger\n"
		"1,Core_1,0,T,A,0,activate\n"
		"2,Core_1,0,T,A,0,start\n"
		"3,A,0,SIG,X,0,read,17\n"
		"4,Core_1,0,T,A,0,terminate\n";
	char dir[] = "/tmp/tk_htf_XXXXXX", in[64], out[64], out2[64];
	tk_writer_opts wo;
	tk_reader *r;
	tk_writer *w;
	tk_error err;
	const tk_event *ev;
	FILE *f;
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(in, sizeof(in), "%s/in.btf", dir);
	snprintf(out, sizeof(out), "%s/out.htf", dir);
	snprintf(out2, sizeof(out2), "%s/out2.htf", dir);
	f = fopen(in, "w");
	CHECK(f != NULL);
	fputs(btf, f);
	fclose(f);

	/* an unknown option is a usage error */
	CHECK(tk_reader_open(&r, in, NULL, &err) == TK_OK);
	tk_writer_opts_init(&wo);
	wo.options = "colour=blue";
	CHECK(tk_writer_open(&w, out, tk_reader_trace(r), &wo, &err) == TK_E_USAGE);
	tk_reader_close(r);

	/* lenient: one warning with the counts, at close */
	CHECK(tk_reader_open(&r, in, NULL, &err) == TK_OK);
	tk_writer_opts_init(&wo);
	wo.on_warning = on_warn;
	wo.options = "timestamp-length=4,entity-length=2";
	CHECK(tk_writer_open(&w, out, tk_reader_trace(r), &wo, &err) == TK_OK);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		CHECK(tk_writer_write(w, ev, &err) == TK_OK);
	CHECK(rc == TK_END);
	CHECK_EQ_U64(nwarn, 0);
	CHECK(tk_writer_close(w, &err) == TK_OK);
	CHECK_EQ_U64(nwarn, 1);
	CHECK(strstr(lastwarn, "1 note dropped") != NULL);
	CHECK(strstr(lastwarn, "1 event of entity types without an HTF table") != NULL);
	tk_reader_close(r);
	CHECK(access(out, F_OK) == 0);
	CHECK(tk_reader_open(&r, out, NULL, &err) == TK_OK);
	CHECK_STR(tk_trace_header_get(tk_reader_trace(r), "TimestampLength"), "4");
	CHECK_STR(tk_trace_header_get(tk_reader_trace(r), "EntityLength"), "2");
	rc = 0;
	while (tk_reader_next(r, &ev, &err) == TK_OK)
		rc++;
	CHECK_EQ_U64(rc, 4);
	tk_reader_close(r);

	/* strict: the first loss is an error, and no file is left */
	CHECK(tk_reader_open(&r, in, NULL, &err) == TK_OK);
	tk_writer_opts_init(&wo);
	wo.strict = 1;
	CHECK(tk_writer_open(&w, out2, tk_reader_trace(r), &wo, &err) == TK_OK);
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(tk_writer_write(w, ev, &err) == TK_E_UNSUPPORTED);
	tk_writer_abort(w);
	tk_reader_close(r);
	CHECK(access(out2, F_OK) != 0);

	unlink(in);
	unlink(out);
	rmdir(dir);
}

int main(void)
{
	test_read();
	test_write();
	TEST_DONE();
}
