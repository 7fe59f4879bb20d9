#define _POSIX_C_SOURCE 200809L
/* test_btf_api.c - the BTF reader and writer through the public API:
 * fields, dialects, errors with positions, compressed input, many names. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static const char *str(tk_reader *r, tk_str s)
{
	return tk_trace_str(tk_reader_trace(r), s, NULL);
}

static const char *ename(tk_reader *r, uint32_t e)
{
	return str(r, tk_trace_entity(tk_reader_trace(r), e)->name);
}

static int open_text(tk_reader **r, const char *text, int strict, tk_error *err)
{
	tk_reader_opts o;

	tk_reader_opts_init(&o);
	o.strict = strict;
	o.format = "btf";
	return tk_reader_open_mem(r, text, strlen(text), "mem.btf", &o, err);
}

static void test_fields(void)
{
	static const char text[] =
		"#version 2.3.0\r\n"
		"#creator  someone \r\n"
		"# a comment, with a comma\r\n"
		"#timescale us\r\n"
		"5,Core_1,0,T,[0/1]Tmr Svc,3,start\r\n"
		"# a comment in the data\r\n"
		"\r\n"
		"6,SIM,-1,SIM,SIM,-1,tag,SIG_INIT_VALUE,0\r\n"
		"7,Core_0,0,T,Task,0,resume,\r\n"
		"8,Sig,,SIG,S1,0,write,12.5\r\n"
		"9,X,0,T,Task,1,strat";   /* no final newline, unknown event */
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	const tk_trace *t;

	CHECK(open_text(&r, text, 0, &err) == TK_OK);
	if (!r)
		return;
	t = tk_reader_trace(r);
	CHECK_STR(tk_reader_format(r), "btf");
	CHECK(tk_trace_timebase(t)->unit == TK_UNIT_US);
	CHECK_EQ_U64(tk_trace_header_count(t), 4);
	CHECK_STR(tk_trace_header(t, 1)->value, " someone ");
	CHECK(tk_trace_header(t, 2)->kind == TK_HDR_COMMENT);
	CHECK_STR(tk_trace_header(t, 2)->value, " a comment, with a comma");
	CHECK_STR(tk_trace_header_get(t, "TIMESCALE"), "us");

	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK_EQ_U64(ev->time, 5);
	CHECK_STR(ename(r, ev->source), "Core_1");
	CHECK_STR(ename(r, ev->target), "[0/1]Tmr Svc");
	CHECK(ev->type == TK_ET_T);
	CHECK(ev->kind == TK_EV_START);
	CHECK(ev->target_inst == 3);
	CHECK(ev->note == NULL);
	CHECK(ev->core == ev->source);
	CHECK_EQ_U64(ev->pos, 5);

	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(ev->source_inst == -1);
	CHECK(ev->kind == TK_EV_TAG);
	CHECK(ev->note && ev->note_len == 16 && memcmp(ev->note, "SIG_INIT_VALUE,0", 16) == 0);
	CHECK_EQ_U64(ev->pos, 8);

	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(ev->note != NULL && ev->note_len == 0);   /* empty note kept */

	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(ev->source_inst == TK_INST_NONE);         /* empty instance */
	CHECK(ev->kind == TK_EV_WRITE);

	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);   /* unknown event kept */
	CHECK(ev->kind == TK_EV_OTHER);
	CHECK_STR(str(r, ev->name), "strat");
	CHECK(tk_reader_next(r, &ev, &err) == TK_END);
	CHECK(tk_reader_warning_count(r) == 1);
	CHECK(tk_trace_entity_find(t, "Core_1", 6) != TK_NONE);
	CHECK(tk_trace_entity(t, tk_trace_entity_find(t, "Core_1", 6))->type == TK_ET_C);
	tk_reader_close(r);
}

/* Reading `text` must fail at line:col with a message containing `what`. */
static void expect_error(const char *text, int strict, uint64_t line,
			 uint32_t col, const char *what)
{
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	int rc;

	tk_error_clear(&err);
	rc = open_text(&r, text, strict, &err);
	while (rc == TK_OK)
		rc = tk_reader_next(r, &ev, &err);
	CHECK(rc < 0);
	CHECK_EQ_U64(err.line, line);
	CHECK_EQ_U64(err.column, col);
	CHECK(strstr(err.msg, what) != NULL);
	if (!strstr(err.msg, what))
		fprintf(stderr, "  message was: %s\n", err.msg);
	tk_reader_close(r);
}

static void test_errors(void)
{
	expect_error("#version 2.3.0\n#timescale ns\n1,a,0,T,b,0\n", 0, 3, 12, "at least 7");
	expect_error("#version 2.3.0\n#timescale ns\n1x,a,0,T,b,0,start\n", 0, 3, 1, "not a non-negative integer");
	expect_error("#version 2.3.0\n#timescale ns\n1,a,zero,T,b,0,start\n", 0, 3, 5, "not an integer");
	expect_error("#version 2.3.0\n#timescale ns\n5,a,0,T,b,0,start\n4,a,0,T,b,0,start\n", 1, 4, 1, "time decreases");
	expect_error("#version 2.3.0\n#timescale ns\n5,a,0,Q,b,0,start\n", 1, 3, 7, "unknown entity type 'Q'");
	expect_error("#version 2.3.0\n#timescale ns\n5,a,0,T,b,0,strat\n", 1, 3, 13, "unknown event 'strat' for type T");
	expect_error("#version 2.3.0\n#timescale fs\n", 0, 2, 12, "unknown time scale");
	expect_error("#timescale ns\n5,a,0,T,b,0,start\n", 1, 1, 1, "no #version");
	expect_error("#version 2.3.0\n#timescale ns\n99999999999999999999,a,0,T,b,0,start\n", 0, 3, 1, "too large");
	expect_error("#version 2.1.5\n#typeTable\n#-x T\n", 1, 3, 3, "table id");
	expect_error("#version 2.3.0\n#timescale ns\n1,a,0,ISR,b,0,start\n", 1, 3, 7, "not BTF 2.1.5/2.3");
	expect_error("#version 2.3.0\n#timescale ns\n1,,0,T,b,0,start\n", 0, 3, 3, "empty source");
	expect_error("#version 2.3.0\n#timescale ns\n1,a,0,T,b,0,start\n#timescale us\n", 0, 4, 12, "time scale changes");
}

static void test_lenient(void)
{
	static const char text[] =
		"#version 2.1.5\n"
		"1, Core_1 , 0 , ISR , Isr1 , 0 , start\n"
		"0,Stim,0,T,Task,0,mpalimitexceeded\n"
		"2,Core_1,0,C,Core_1,0,set_frequency,100\n";
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;

	CHECK(open_text(&r, text, 0, &err) == TK_OK);
	if (!r)
		return;
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(ev->type == TK_ET_I);
	CHECK_STR(str(r, ev->type_name), "ISR");
	CHECK_STR(ename(r, ev->source), "Core_1");
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);   /* time decreases: kept */
	CHECK(ev->kind == TK_EV_MTALIMITEXCEEDED);
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK(ev->kind == TK_EV_SET_FREQUENCE);
	CHECK(ev->note_len == 3);
	CHECK(tk_reader_next(r, &ev, &err) == TK_END);
	/* spaces, ISR, decreasing time, mpalimitexceeded, set_frequency */
	CHECK_EQ_U64(tk_reader_warning_count(r), 5);
	tk_reader_close(r);
}

static void test_tables(void)
{
	static const char text[] =
		"#version 2.1.5\n"
		"#timeScale ns\n"
		"#typeTable\n#-0 T\n#-1 C\n"
		"#entityTable\n#-0 Task_A\n#-1 Core_1\n"
		"#entityTypeTable\n#-T Task_A\n#-1 Core_1\n"
		"10,1,0,0,0,0,start\n";      /* numeric mode */
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;

	CHECK(open_text(&r, text, 1, &err) == TK_OK);
	if (!r)
		return;
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	CHECK_STR(ename(r, ev->source), "Core_1");
	CHECK_STR(ename(r, ev->target), "Task_A");
	CHECK(ev->type == TK_ET_T);
	CHECK(tk_trace_entity(tk_reader_trace(r), ev->source)->type == TK_ET_C);
	tk_reader_close(r);
}

static char *make_trace(size_t nevents, size_t nnames, size_t *len)
{
	size_t cap = nevents * 64 + 64, i;
	char *buf = malloc(cap), *p = buf;

	p += sprintf(p, "#version 2.3.0\n#timescale ns\n");
	for (i = 0; i < nevents; i++)
		p += sprintf(p, "%zu,Core_%zu,0,T,Task_with_a_long_name_%zu,%zu,start\n",
			     i, i % 4, i % nnames, i);
	*len = (size_t)(p - buf);
	return buf;
}

static uint64_t count_events(const void *data, size_t len, tk_error *err)
{
	tk_reader *r = NULL;
	const tk_event *ev;
	uint64_t n = 0;
	int rc;

	rc = tk_reader_open_mem(&r, data, len, "mem", NULL, err);
	while (rc == TK_OK && (rc = tk_reader_next(r, &ev, err)) == TK_OK)
		n++;
	tk_reader_close(r);
	return rc == TK_END ? n : UINT64_MAX;
}

static void test_many_names(void)
{
	size_t len, i;
	char *text = make_trace(200000, 100000, &len);
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	int ok = 1;

	CHECK(tk_reader_open_mem(&r, text, len, "mem", NULL, &err) == TK_OK);
	for (i = 0; r && tk_reader_next(r, &ev, &err) == TK_OK; i++) {
		char want[64];
		snprintf(want, sizeof(want), "Task_with_a_long_name_%zu", i % 100000);
		ok &= strcmp(ename(r, ev->target), want) == 0;
	}
	CHECK(ok);
	CHECK_EQ_U64(i, 200000);
	CHECK_EQ_U64(tk_trace_entity_count(tk_reader_trace(r)), 100004);
	tk_reader_close(r);
	free(text);
}

static void test_compressed(void)
{
	size_t len, glen, zlen;
	char *text = make_trace(50000, 100, &len);
	unsigned char *gz = malloc(len + 1024), *zs;
	z_stream z;
	tk_error err;

	memset(&z, 0, sizeof(z));
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)text;
	z.avail_in = (unsigned)len;
	z.next_out = gz;
	z.avail_out = (unsigned)(len + 1024);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	glen = z.total_out;
	deflateEnd(&z);
	CHECK_EQ_U64(count_events(gz, glen, &err), 50000);
	/* truncated: an error with a byte offset, not a short trace */
	CHECK_EQ_U64(count_events(gz, glen - 9, &err), UINT64_MAX);
	CHECK(err.has_offset && strstr(err.msg, "truncated gzip") != NULL);
	CHECK_EQ_U64(count_events(gz, glen / 2, &err), UINT64_MAX);

	zs = malloc(ZSTD_compressBound(len));
	zlen = ZSTD_compress(zs, ZSTD_compressBound(len), text, len, 3);
	CHECK(!ZSTD_isError(zlen));
	CHECK_EQ_U64(count_events(zs, zlen, &err), 50000);
	CHECK_EQ_U64(count_events(zs, zlen - 5, &err), UINT64_MAX);
	CHECK(err.has_offset && strstr(err.msg, "zstd") != NULL);
	free(zs);
	free(gz);
	free(text);
}

static void test_writer_roundtrip(void)
{
	static const char text[] =
		"#version 2.2.1\n#creator x\n#timescale ns\n"
		"0,Sim,0,STI,Sti,0,trigger\n"
		"1,SIM,-1,SIM,SIM,-1,tag,a,b,,c\n"
		"2,T1,,SEM,S,0,requestsemaphore,\n";
	char path[] = "/tmp/tk_test_writer_XXXXXX";
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	const tk_event *ev;
	tk_error err;
	char buf[512];
	FILE *fp;
	size_t n;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(open_text(&r, text, 1, &err) == TK_OK);
	tk_writer_opts_init(&wo);
	wo.format = "btf";
	CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_OK);
	if (!w)
		return;
	while (tk_reader_next(r, &ev, &err) == TK_OK)
		CHECK(tk_writer_write(w, ev, &err) == TK_OK);
	CHECK(tk_writer_close(w, &err) == TK_OK);
	fp = fopen(path, "rb");
	n = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
	buf[n] = '\0';
	if (fp)
		fclose(fp);
	CHECK_STR(buf, text);
	tk_reader_close(r);
	remove(path);
	if (fd >= 0)
		close(fd);
}

/* The writer's longest line is the reader's (4 MiB, its line end not
 * counted): a line of exactly that length is written and read back, one
 * byte more is refused with the output's line number. */
static void test_writer_line_limit(void)
{
	static const char text[] =
		"#version 2.2.1\n#creator x\n#timescale ns\n"
		"5,Stim,0,STI,S,0,trigger,n\n";
	static const size_t line_max = (size_t)4 << 20;
	/* "5,Stim,0,STI,S,0,trigger," before the note */
	const size_t head = 25;
	char path[] = "/tmp/tk_test_long_XXXXXX";
	char *note = malloc(line_max + 2);
	tk_reader *r = NULL, *back = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	const tk_event *ev;
	tk_event e;
	tk_error err;
	int fd = mkstemp(path), extra;

	CHECK(fd >= 0 && note != NULL);
	if (fd < 0 || !note)
		return;
	close(fd);
	memset(note, 'x', line_max + 1);
	for (extra = 0; extra < 2; extra++) {
		CHECK(open_text(&r, text, 1, &err) == TK_OK);
		if (!r)
			break;
		CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
		e = *ev;
		e.note = note;
		e.note_len = line_max - head + (size_t)extra;
		tk_writer_opts_init(&wo);
		wo.format = "btf";
		CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_OK);
		if (!w) {
			tk_reader_close(r);
			break;
		}
		memset(&err, 0, sizeof(err));
		if (!extra) {
			CHECK(tk_writer_write(w, &e, &err) == TK_OK);
			CHECK(tk_writer_close(w, &err) == TK_OK);
			CHECK(tk_reader_open(&back, path, NULL, &err) == TK_OK);
			if (back) {
				CHECK(tk_reader_next(back, &ev, &err) == TK_OK);
				CHECK_EQ_U64(ev->note_len, line_max - head);
				CHECK_EQ_U64(ev->time, 5);
				tk_reader_close(back);
			}
		} else {
			CHECK(tk_writer_write(w, &e, &err) == TK_E_UNSUPPORTED);
			CHECK_EQ_U64(err.line, 4);
			CHECK(strstr(err.msg, "4194304") != NULL);
			tk_writer_abort(w);
		}
		tk_reader_close(r);
	}
	remove(path);
	free(note);
}

/* two header blocks (Trace Compass): tk_trace_header_get() gives the
 * first block's value, the one every writer keeps */
static void test_two_header_blocks(void)
{
	static const char text[] =
		"#version 2.2.0\n#creator first\n#timeScale ns\n"
		"#version 2.1.0\n#creator  second \n#timeScale ns\n"
		"0,Core_1,0,T,Task,0,start\n";
	tk_reader *r = NULL;
	tk_error err;

	CHECK(open_text(&r, text, 0, &err) == TK_OK);
	if (!r)
		return;
	CHECK_STR(tk_trace_header_get(tk_reader_trace(r), "creator"), "first");
	CHECK_STR(tk_trace_header_get(tk_reader_trace(r), "VERSION"), "2.2.0");
	tk_reader_close(r);
}

/* an error is given again by every later call, by tk_reader_next() and
 * tk_reader_next_batch() alike (the lines after it were read on, their
 * times in the new scale as ticks of the old one) */
static void test_sticky_error(void)
{
	static const char text[] =
		"#version 2.3.0\n#timescale ns\n0,Stim,0,T,Task,0,activate\n"
		"#timescale us\n1,Core_1,0,T,Task,0,start\n2,Core_1,0,T,Task,0,terminate\n";
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t n = 9;
	int i;

	CHECK(open_text(&r, text, 0, &err) == TK_OK);
	if (!r)
		return;
	CHECK(tk_reader_next(r, &ev, &err) == TK_OK);
	for (i = 0; i < 3; i++) {
		memset(&err, 0, sizeof(err));
		CHECK(tk_reader_next(r, &ev, &err) == TK_E_PARSE);
		CHECK_EQ_U64(err.line, 4);
		CHECK(tk_reader_next_batch(r, &ev, &n, 8, &err) == TK_E_PARSE);
		CHECK_EQ_U64(n, 0);
		CHECK(tk_reader_next(r, &ev, NULL) == TK_E_PARSE);
	}
	tk_reader_close(r);
}

/* max = 0 is a usage error that touches nothing: the events after it are
 * the same as without the call */
static void test_batch_max_zero(void)
{
	const char *text = "#version 2.2.0\n#timeScale ns\n"
			   "0,Core_0,0,T,A,0,activate\n"
			   "5,Core_0,0,T,A,0,start\n";
	tk_reader *r = NULL;
	const tk_event *ev = NULL;
	tk_error err;
	size_t n = 9;

	CHECK(open_text(&r, text, 0, &err) == TK_OK);
	if (!r)
		return;
	memset(&err, 0, sizeof(err));
	CHECK(tk_reader_next_batch(r, &ev, &n, 0, &err) == TK_E_USAGE);
	CHECK_EQ_U64(n, 0);
	CHECK(strstr(err.msg, "max") != NULL);
	CHECK(tk_reader_next_batch(r, &ev, &n, 8, &err) == TK_OK);
	CHECK(n >= 1 && ev->time == 0);
	tk_reader_close(r);
}

/* the most events one tk_reader_next_batch() of read_as_text() gave */
static size_t batch_most;

/* The events of `data` (BTF text, or gzip of it) as text, one line an
 * event, read with tk_reader_next() (batch 0) or tk_reader_next_batch() of
 * at most `batch`; then the status that ended the read and its line. */
static char *read_as_text(const void *data, size_t len, size_t batch, size_t *outlen)
{
	tk_reader *r = NULL;
	tk_reader_opts o;
	tk_error err;
	char *out = NULL;
	size_t cap = 0, n = 0, k, got;
	const tk_event *ev;
	int rc;

	tk_reader_opts_init(&o);
	o.format = "btf";
	memset(&err, 0, sizeof(err));
	if (tk_reader_open_mem(&r, data, len, "mem.btf", &o, &err) != TK_OK)
		return NULL;
	for (;;) {
		if (batch) {
			rc = tk_reader_next_batch(r, &ev, &got, batch, &err);
			CHECK(rc != TK_OK || (got >= 1 && got <= batch));
			if (rc == TK_OK && got > batch_most)
				batch_most = got;
		} else {
			rc = tk_reader_next(r, &ev, &err);
			got = 1;
		}
		if (rc != TK_OK)
			break;
		for (k = 0; k < got; k++, ev++) {
			const tk_entity *core = ev->core == TK_NONE ? NULL
					      : tk_trace_entity(tk_reader_trace(r), ev->core);

			if (cap - n < 512) {
				cap = cap * 2 + 4096;
				out = realloc(out, cap);
			}
			n += (size_t)snprintf(out + n, cap - n,
					      "%llu %s %lld %s %s %lld %s %d %s [%.*s] %s %llu\n",
					      (unsigned long long)ev->time, ename(r, ev->source),
					      (long long)ev->source_inst, str(r, ev->type_name),
					      ename(r, ev->target), (long long)ev->target_inst,
					      str(r, ev->name), (int)ev->kind,
					      ev->note ? "note" : "-", (int)ev->note_len,
					      ev->note ? ev->note : "",
					      core ? str(r, core->name) : "-",
					      (unsigned long long)ev->pos);
		}
	}
	if (cap - n < 512) {
		cap = cap * 2 + 4096;
		out = realloc(out, cap);
	}
	n += (size_t)snprintf(out + n, cap - n, "rc %d line %llu decoded %llu warnings %llu\n", rc,
			      (unsigned long long)err.line,
			      (unsigned long long)tk_reader_decoded_count(r),
			      (unsigned long long)tk_reader_warning_count(r));
	tk_reader_close(r);
	*outlen = n;
	return out;
}

/* tk_reader_next_batch() gives the events of tk_reader_next(), in batches
 * of the usual lines up to the first other one (a new name, a comment, an
 * empty line, a warning, a line past the window, the error that ends the
 * read), plain and streamed (gzip: a window refilled as it is read) */
static void test_batch_is_next(void)
{
	static const char *const names[] = { "Task_A", "Task_B", "IsrLong_16_bytes", "R1" };
	static const char *const notes[] = { "", ",", ",1", ",-823", ",456.25",
					     ",a note of 16 b.", ",a note longer than sixteen" };
	static const size_t batches[] = { 1, 7, 128, 4096 };
	size_t cap = 1 << 22, len = 0, glen, i, b, n0, n1;
	char *text = malloc(cap), *want, *got;
	unsigned char *gz = malloc(cap);
	z_stream z;
	int pass;

	len += (size_t)snprintf(text + len, cap - len, "#version 2.3.0\n#timescale ns\n");
	for (i = 0; i < 30000; i++) {
		const char *name = names[i % 4];

		if (i % 997 == 0)
			len += (size_t)snprintf(text + len, cap - len, "# comment %zu\n", i);
		if (i % 1499 == 0)
			len += (size_t)snprintf(text + len, cap - len, "\n");
		if (i % 2003 == 0) /* a new entity */
			len += (size_t)snprintf(text + len, cap - len,
						"%zu,Core_%zu,0,T,New_%zu,0,activate\n", i * 10,
						i % 3, i);
		if (i % 4001 == 0) /* time decreases: a warning */
			len += (size_t)snprintf(text + len, cap - len,
						"%zu,Core_0,0,T,Task_A,0,start\n", i * 10 - 5);
		len += (size_t)snprintf(text + len, cap - len, "%zu,Core_%zu,%zu,%s,%s,%zu,%s%s%s\n",
					i * 10, i % 3, i % 5, i % 4 == 3 ? "R" : "T", name,
					i / 4, i % 2 ? "start" : "terminate",
					notes[i % 7], i % 11 == 0 ? "\r" : "");
	}
	/* a header line after the data: the error that ends the read */
	len += (size_t)snprintf(text + len, cap - len, "#timescale us\n1,Core_0,0,T,Task_A,0,start\n");
	CHECK(len < cap);

	memset(&z, 0, sizeof(z));
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)text;
	z.avail_in = (unsigned)len;
	z.next_out = gz;
	z.avail_out = (unsigned)cap;
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	glen = z.total_out;
	deflateEnd(&z);

	for (pass = 0; pass < 2; pass++) {
		const void *data = pass ? (const void *)gz : text;
		size_t dlen = pass ? glen : len;

		want = read_as_text(data, dlen, 0, &n0);
		CHECK(want != NULL && strstr(want, "rc -") != NULL);
		CHECK(want != NULL && strstr(want, "note [a note longer than sixteen]") != NULL);
		for (b = 0; b < sizeof batches / sizeof batches[0]; b++) {
			batch_most = 0;
			got = read_as_text(data, dlen, batches[b], &n1);
			/* the usual lines come more than one a call */
			CHECK(batches[b] == 1 || batch_most > 1);
			CHECK(got != NULL && want != NULL && n0 == n1 && !memcmp(want, got, n0));
			free(got);
		}
		free(want);
	}
	free(gz);
	free(text);
}

/* the version macros and tk_version_number() agree with tk_version() */
static void test_version(void)
{
	char want[32];

	snprintf(want, sizeof want, "%d.%d.%d", TK_VERSION_MAJOR, TK_VERSION_MINOR,
		 TK_VERSION_PATCH);
	CHECK(strcmp(tk_version(), want) == 0);
	CHECK(strcmp(TK_VERSION_STRING, want) == 0);
	CHECK_EQ_U64(tk_version_number(), TK_VERSION_NUMBER);
	CHECK_EQ_U64(TK_VERSION_NUMBER, TK_VERSION_MAJOR * 10000 + TK_VERSION_MINOR * 100 +
				       TK_VERSION_PATCH);
}

int main(void)
{
	test_fields();
	test_sticky_error();
	test_errors();
	test_lenient();
	test_tables();
	test_many_names();
	test_compressed();
	test_writer_roundtrip();
	test_writer_line_limit();
	test_two_header_blocks();
	test_batch_max_zero();
	test_batch_is_next();
	test_version();
	TEST_DONE();
}
