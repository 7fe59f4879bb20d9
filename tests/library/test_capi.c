/* test_capi.c - promises of the public headers and docs/library.md that
 * the other tests leave out, through the library users get (public
 * headers only):
 *  - every *_opts_init() fills every field with its documented default
 *    (whatever the struct held) and its size;
 *  - tk_error_format() in each of its forms, cut to its size, and a size
 *    of 0 writes nothing;
 *  - a reader's error names the input, line and column, and comes again,
 *    the same, from every later call;
 *  - a header entry of tk_trace_header() never moves while entries are
 *    added (a later BTF header block read, tk_trace_add_header());
 *  - every writable format refuses an event of another trace (a source,
 *    target or core that is no entity of the writer's trace) with
 *    TK_E_USAGE, one by one and in a batch, and leaves no file: the file
 *    that was there is kept as it was (the Parquet writer wrote such an
 *    event with empty names; BTF wrote an unknown core);
 *  - statuses the Reference names: tk_verify_finish(NULL),
 *    tk_dataset_hash() of a device, the NULL frees not called elsewhere;
 *  - tk_tarmac_index_open() of "-" (standard input) is TK_E_USAGE;
 *  - tk_format_detect() of standard input or a FIFO is TK_E_USAGE, and
 *    their bytes are still there to read.
 * usage: test_capi WORKDIR */
#define _POSIX_C_SOURCE 200809L
#include "../unit/tk_test.h"
#include "tracekit/tracekit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void opts_defaults(void)
{
	tk_reader_opts ro;
	tk_writer_opts wo;
	tk_report_opts po;
	tk_dataset_opts dso;
	tk_tarmac_opts to;

	memset(&ro, 0x5a, sizeof ro);
	tk_reader_opts_init(&ro);
	CHECK_EQ_U64(ro.size, sizeof ro);
	CHECK(ro.format == NULL && ro.strict == 0 && ro.on_warning == NULL);
	CHECK(ro.warning_ctx == NULL && ro.options == NULL && ro.force_format == 0);
	CHECK(ro.has_start == 0 && ro.has_end == 0 && ro.end_closed == 0);
	CHECK(ro.start_unit == TK_TICKS && ro.end_unit == TK_TICKS);
	CHECK(ro.window_stop == TK_STOP_ORDERED);
	CHECK(ro.entities == NULL && ro.nentities == 0 && ro.types == NULL &&
	      ro.ntypes == 0 && ro.events == NULL && ro.nevents == 0);

	memset(&wo, 0x5a, sizeof wo);
	tk_writer_opts_init(&wo);
	CHECK_EQ_U64(wo.size, sizeof wo);
	CHECK(wo.format == NULL && wo.strict == 0 && wo.no_header == 0);
	CHECK(wo.on_warning == NULL && wo.warning_ctx == NULL && wo.options == NULL);
	CHECK(wo.idle == NULL && wo.nidle == 0 && wo.input == NULL);

	memset(&po, 0x5a, sizeof po);
	tk_report_opts_init(&po);
	CHECK_EQ_U64(po.size, sizeof po);
	CHECK(po.reader == NULL && po.idle == NULL && po.nidle == 0);
	CHECK(po.on_open == NULL && po.ctx == NULL && po.warnings == NULL);
	CHECK(po.chains == NULL && po.nchains == 0 && po.reqs == NULL);
	CHECK(po.req_failures == NULL && po.on_read == NULL);

	memset(&dso, 0x5a, sizeof dso);
	tk_dataset_opts_init(&dso);
	CHECK_EQ_U64(dso.size, sizeof dso);
	CHECK(dso.id == NULL && dso.window_ns == 0 && dso.window_given == 0);
	CHECK(dso.strict == 0 && dso.on_warning == NULL && dso.warning_ctx == NULL);

	memset(&to, 0x5a, sizeof to);
	tk_tarmac_opts_init(&to);
	CHECK_EQ_U64(to.size, sizeof to);
	CHECK(to.strict == 0 && to.on_warning == NULL && to.warning_ctx == NULL);
}

static void error_format(void)
{
	tk_error e;
	char buf[256], small[10];

	tk_error_clear(&e);
	e.code = TK_E_PARSE;
	snprintf(e.input, sizeof e.input, "in.btf");
	snprintf(e.msg, sizeof e.msg, "bad");
	e.line = 12;
	e.column = 3;
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf), "in.btf:12:3: error: bad");
	CHECK_STR(tk_error_format(&e, "warning", buf, sizeof buf),
		  "in.btf:12:3: warning: bad");
	/* cut to its size, NUL-terminated */
	CHECK(tk_error_format(&e, NULL, small, sizeof small) == small);
	CHECK_STR(small, "in.btf:12");
	/* size 0: nothing written */
	small[0] = 'X';
	tk_error_format(&e, NULL, small, 0);
	CHECK(small[0] == 'X');
	e.column = 0;
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf), "in.btf:12: error: bad");
	e.line = 0;
	e.has_offset = 1;
	e.offset = 77;
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf),
		  "in.btf: error: at byte offset 77: bad");
	e.has_offset = 0;
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf), "in.btf: error: bad");
	e.input[0] = 0;
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf), "tracekit: error: bad");
	CHECK_STR(tk_status_str(TK_OK), "ok");
	CHECK_STR(tk_status_str(TK_END), "end of input");
	CHECK_STR(tk_status_str(TK_E_PARSE), "parse error");
}

/* the same error: code, place and message */
static int same_error(const tk_error *a, const tk_error *b)
{
	return a->code == b->code && !strcmp(a->input, b->input) && a->line == b->line &&
	       a->column == b->column && a->has_offset == b->has_offset &&
	       a->offset == b->offset && !strcmp(a->msg, b->msg);
}

/* a strict reader's error: where, what, and again from every later call */
static void reader_error(void)
{
	static const char text[] = "#version 2.2.0\n#timeScale ns\n"
				   "0,T1,0,T,T2,0,start\n"
				   "5,T1,0,T,T2,0,bogus\n"
				   "6,T1,0,T,T2,0,terminate\n";
	tk_reader_opts o;
	tk_reader *r = (tk_reader *)&o;
	const tk_event *ev, *evs;
	tk_error e, again;
	size_t n = 7;
	char buf[512];
	int rc, k = 0;

	tk_reader_opts_init(&o);
	o.strict = 1;
	/* a failed open: out NULL, and closing it is safe */
	o.format = "no-such-format";
	CHECK(tk_reader_open_mem(&r, text, sizeof text - 1, "t.btf", &o, &e) == TK_E_USAGE);
	CHECK(r == NULL && e.code == TK_E_USAGE);
	tk_reader_close(r);
	o.format = NULL;
	CHECK(tk_reader_open_mem(&r, text, sizeof text - 1, NULL, &o, &e) == TK_OK && r);
	if (!r)
		return;
	while ((rc = tk_reader_next(r, &ev, &e)) == TK_OK)
		k++;
	CHECK(k == 1 && rc == TK_E_PARSE && e.code == TK_E_PARSE);
	CHECK_STR(e.input, "<memory>");
	CHECK(e.line == 4 && e.column == 15 && !e.has_offset);
	CHECK(strstr(e.msg, "bogus") != NULL);
	CHECK_STR(tk_error_format(&e, NULL, buf, sizeof buf),
		  "<memory>:4:15: error: unknown event 'bogus' for type T");
	memset(&again, 0, sizeof again);
	CHECK(tk_reader_next(r, &ev, &again) == TK_E_PARSE);
	CHECK(same_error(&again, &e));
	memset(&again, 0, sizeof again);
	CHECK(tk_reader_next_batch(r, &evs, &n, 4, &again) == TK_E_PARSE && n == 0);
	CHECK(same_error(&again, &e));
	CHECK(tk_reader_next(r, &ev, NULL) == TK_E_PARSE);
	tk_reader_close(r);
}

/* A header entry of tk_trace_header() stays where it is until the trace
 * is freed, as every getter's pointer: while a reader adds a later header
 * block's entries, and while tk_trace_add_header() adds more (the entries
 * were one array, moved as it grew: the pointers given out dangled). */
static void header_entries_stay(void)
{
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 };
	size_t cap = 64 * 1024, k = 0;
	char *text = malloc(cap);
	const tk_header_entry *h0, *h1;
	const tk_event *ev;
	tk_reader *r = NULL;
	tk_trace *t = NULL;
	tk_error e;
	int i;

	CHECK(text != NULL);
	if (!text)
		return;
	k += (size_t)snprintf(text + k, cap - k, "#version 2.2.0\n#creator a\n#timeScale ns\n"
			      "0,T1,0,T,T2,0,start\n");
	/* a second header block, as Trace Compass writes one, of many lines */
	for (i = 0; i < 300; i++)
		k += (size_t)snprintf(text + k, cap - k, "#creator b%d\n", i);
	k += (size_t)snprintf(text + k, cap - k, "5,T1,0,T,T2,0,terminate\n");
	CHECK(tk_reader_open_mem(&r, text, k, "two.btf", NULL, &e) == TK_OK && r);
	if (r) {
		h0 = tk_trace_header(tk_reader_trace(r), 0);
		h1 = tk_trace_header(tk_reader_trace(r), 1);
		CHECK(h0 && h1);
		while (tk_reader_next(r, &ev, &e) == TK_OK)
			;
		CHECK(tk_trace_header_count(tk_reader_trace(r)) == 303);
		CHECK(tk_trace_header(tk_reader_trace(r), 0) == h0);
		CHECK(tk_trace_header(tk_reader_trace(r), 1) == h1);
		CHECK(h1 && !strcmp(h1->key, "creator") && !strcmp(h1->value, "a"));
		CHECK_STR(tk_trace_header(tk_reader_trace(r), 302)->value, "b299");
		CHECK_STR(tk_trace_header_get(tk_reader_trace(r), "creator"), "a");
		CHECK(tk_trace_header(tk_reader_trace(r), 303) == NULL);
		tk_reader_close(r);
	}
	free(text);
	CHECK(tk_trace_new(&t, &ns, NULL) == TK_OK && t);
	if (!t)
		return;
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, "k", 1, "v", 1, 1) == TK_OK);
	h0 = tk_trace_header(t, 0);
	for (i = 0; i < 10000; i++)
		CHECK(tk_trace_add_header(t, TK_HDR_COMMENT, NULL, 0, "c", 1, 1) == TK_OK);
	CHECK(tk_trace_header(t, 0) == h0);
	CHECK(h0 && !strcmp(h0->key, "k") && !strcmp(h0->value, "v"));
	CHECK(tk_trace_header_count(t) == 10001);
	CHECK_STR(tk_trace_header(t, 10000)->value, "c");
	tk_trace_free(t);
}

/* tk_format_detect() of what can be read once (standard input, a FIFO)
 * is refused before a byte is read (it read standard input to tell its
 * format, and the reader opened next found nothing) */
static void detect_read_once(const char *work)
{
	static const char text[] = "#version 2.2.0\n#timeScale ns\n0,T1,0,T,T2,0,start\n";
	char fifo[1024], got[sizeof text];
	const tk_format_info *f;
	tk_error e;
	int p[2], saved, fd;

	/* standard input: a pipe holding a trace */
	saved = dup(0);
	CHECK(saved >= 0 && pipe(p) == 0);
	CHECK(write(p[1], text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	close(p[1]);
	CHECK(dup2(p[0], 0) == 0);
	close(p[0]);
	memset(&e, 0, sizeof e);
	f = tk_format_detect("-", &e);
	CHECK(f == NULL && e.code == TK_E_USAGE);
	CHECK_STR(e.input, "<stdin>");
	CHECK(read(0, got, sizeof got) == (ssize_t)(sizeof text - 1));
	CHECK(dup2(saved, 0) == 0);
	close(saved);
	/* a FIFO holding a trace, its writer gone, read here after */
	snprintf(fifo, sizeof fifo, "%s/capi-fifo-%ld", work, (long)getpid());
	unlink(fifo);
	CHECK(mkfifo(fifo, 0600) == 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	p[1] = open(fifo, O_WRONLY | O_NONBLOCK);
	CHECK(fd >= 0 && p[1] >= 0);
	CHECK(write(p[1], text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	if (p[1] >= 0)
		close(p[1]);
	memset(&e, 0, sizeof e);
	f = tk_format_detect(fifo, &e);
	CHECK(f == NULL && e.code == TK_E_USAGE);
	CHECK(fd >= 0 && read(fd, got, sizeof got) == (ssize_t)(sizeof text - 1));
	if (fd >= 0)
		close(fd);
	unlink(fifo);
	/* a file is told as ever */
	snprintf(fifo, sizeof fifo, "%s/capi-detect-%ld.txt", work, (long)getpid());
	fd = open(fifo, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	if (fd >= 0)
		close(fd);
	f = tk_format_detect(fifo, &e);
	CHECK(f && !strcmp(f->name, "btf"));
	unlink(fifo);
}

/* the files of dir but "keep" */
static int others_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strncmp(de->d_name, "keep.", 5))
			n++;
	closedir(d);
	return n;
}

static int file_is(const char *path, const char *want)
{
	char got[64];
	FILE *f = fopen(path, "rb");
	size_t k;

	if (!f)
		return 0;
	k = fread(got, 1, sizeof got, f);
	fclose(f);
	return k == strlen(want) && memcmp(got, want, k) == 0;
}

/* An event of another trace: refused by every writer, nothing written. */
static void writers_other_trace(const char *work)
{
	static const char *const fmts[] = { "btf", "htf", "atf", "perfetto", "vcd",
					    "sqlite", "parquet", "ctf" };
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 };
	char dir[1024], path[1100], cmd[2200];
	size_t f;
	int how, which;

	snprintf(dir, sizeof dir, "%s/capi-writers-%ld", work, (long)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	CHECK(system(cmd) == 0);
	for (f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
		for (which = 0; which < 3; which++)
			for (how = 0; how < 2; how++) {
				tk_trace *t = NULL;
				tk_writer *w = NULL;
				tk_writer_opts wo;
				tk_event ev[3];
				tk_error e;
				uint32_t core = 0, task = 0;
				tk_str start = 0, tn = 0;
				int rc, i;
				FILE *fp;

				snprintf(path, sizeof path, "%s/keep.%s", dir, fmts[f]);
				/* what the path held before: kept as it was */
				if (strcmp(fmts[f], "ctf") != 0) {
					fp = fopen(path, "wb");
					CHECK(fp != NULL);
					if (fp) {
						fputs("OLD", fp);
						fclose(fp);
					}
				}
				CHECK(tk_trace_new(&t, &ns, NULL) == TK_OK);
				if (!t)
					continue;
				CHECK(tk_trace_add_entity(t, "Core_1", 6, TK_ET_C, TK_NONE, &core) == TK_OK);
				CHECK(tk_trace_add_entity(t, "T1", 2, TK_ET_T, core, &task) == TK_OK);
				CHECK(tk_trace_intern(t, "start", 5, &start) == TK_OK);
				CHECK(tk_trace_intern(t, "T", 1, &tn) == TK_OK);
				memset(ev, 0, sizeof ev);
				for (i = 0; i < 3; i++) {
					ev[i].time = (uint64_t)i * 10;
					ev[i].source = core;
					ev[i].target = task;
					ev[i].source_inst = 0;
					ev[i].target_inst = i;
					ev[i].type = TK_ET_T;
					ev[i].kind = TK_EV_START;
					ev[i].type_name = tn;
					ev[i].name = start;
					ev[i].core = core;
					ev[i].pos = (uint64_t)i + 1;
				}
				/* the second event names entity 7 of a trace of 2 */
				if (which == 0)
					ev[1].source = 7;
				else if (which == 1)
					ev[1].target = 7;
				else
					ev[1].core = 7;
				tk_writer_opts_init(&wo);
				wo.format = fmts[f];
				CHECK(tk_writer_open(&w, path, t, &wo, &e) == TK_OK && w);
				if (!w) {
					tk_trace_free(t);
					continue;
				}
				memset(&e, 0, sizeof e);
				if (how == 0) {
					for (i = 0, rc = TK_OK; i < 3 && rc == TK_OK; i++)
						rc = tk_writer_write(w, &ev[i], &e);
					CHECK(i == 2);
				} else {
					rc = tk_writer_write_batch(w, ev, 3, &e);
				}
				if (rc != TK_E_USAGE)
					fprintf(stderr, "%s, entity 7 as %s: status %d\n", fmts[f],
						which == 0 ? "source" : which == 1 ? "target" : "core", rc);
				CHECK(rc == TK_E_USAGE && e.code == TK_E_USAGE);
				CHECK(strstr(e.msg, "names entity 7") != NULL);
				CHECK(strstr(e.msg, "another trace") != NULL);
				/* given up: the close says it again, no file */
				memset(&e, 0, sizeof e);
				CHECK(tk_writer_close(w, &e) == TK_E_USAGE && e.code == TK_E_USAGE);
				CHECK(strstr(e.msg, "names entity 7") != NULL);
				if (strcmp(fmts[f], "ctf") != 0)
					CHECK(file_is(path, "OLD"));
				else
					CHECK(access(path, F_OK) != 0);
				CHECK(others_in(dir) == 0);
				tk_trace_free(t);
			}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void reference_statuses(void)
{
	tk_error e;
	char hex[65];

	memset(&e, 0, sizeof e);
	CHECK(tk_verify_finish(NULL, &e) == TK_E_USAGE && e.code == TK_E_USAGE);
	memset(&e, 0, sizeof e);
	CHECK(tk_dataset_hash("/dev/null", hex, &e) == TK_E_USAGE && e.code == TK_E_USAGE);
	tk_tarmac_state_free(NULL);
	tk_tarmac_index_free(NULL);
}

/* The index of a Tarmac log is kept for a file: "-", standard input as
 * everywhere in the API, is TK_E_USAGE (it opened a file named "-": an
 * I/O error, or the index of that file while tk_tarmac_open("-") read
 * standard input).  A file named "-" in the folder does not change it. */
static void tarmac_index_stdin(const char *work)
{
	char cwd[4096], dir[1024], ipath[1100];
	tk_tarmac_index *ix = (tk_tarmac_index *)&cwd;
	tk_error e;
	FILE *f;
	int how = 7;

	snprintf(dir, sizeof dir, "%s/capi-index-%ld", work, (long)getpid());
	snprintf(ipath, sizeof ipath, "%s/log.tkidx", dir);
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(mkdir(dir, 0777) == 0 && chdir(dir) == 0);
	f = fopen("-", "w");
	CHECK(f != NULL);
	if (f) {
		fputs("0 clk IT (1) 00000000 e3a00000 A svc_s : MOV      r0,#0\n", f);
		fclose(f);
	}
	memset(&e, 0, sizeof e);
	CHECK(tk_tarmac_index_open(&ix, "-", ipath, 0, 1, &how, &e) == TK_E_USAGE);
	CHECK(ix == NULL && how == 7 && e.code == TK_E_USAGE);
	CHECK_STR(e.input, "<stdin>");
	CHECK(strstr(e.msg, "standard input") != NULL);
	CHECK(access(ipath, F_OK) != 0);
	tk_tarmac_index_free(ix);
	unlink("-");
	CHECK(chdir(cwd) == 0);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	opts_defaults();
	error_format();
	reader_error();
	header_entries_stay();
	detect_read_once(argv[1]);
	writers_other_trace(argv[1]);
	reference_statuses();
	tarmac_index_stdin(argv[1]);
	TEST_DONE();
}
