/*
 * test_report.c CLI TRACE WTRACE TMPDIR - the HTML report as a library
 * function (tk_report_write(), include/tracekit/report.h):
 *   - with the defaults, the page is byte for byte the page of `tracekit
 *     report -q TRACE -o OUT` (the CLI calls the same function);
 *   - idle patterns and the reader's query (a window, an entity) give the
 *     page of `--idle`, `--start`/`--end` and `--entity`, whose times since
 *     the trace's first event count from the file's first event, before
 *     the window; on_open is called once per pass, 1 then 2;
 *   - the page names no command-line flag (a library user has none);
 *   - the warnings of WTRACE (a trace read with warnings) are counted, and
 *     the on_warning callback sees them on one pass only;
 *   - a note longer than the page keeps is cut between two characters;
 *   - "-" and a FIFO are refused (TK_E_USAGE), a missing trace is the
 *     reader's error with its input, an on_open that fails ends the report:
 *     no page is left in any of these cases.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracekit/tracekit.h"
#include "tk_test.h"

static const char *cli, *tmp;

/* the whole file at path (NUL-terminated, its size in *n), or NULL */
static char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long len;

	*n = 0;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
	    fread(buf, 1, (size_t)len, fp) == (size_t)len) {
		buf[len] = '\0';
		*n = (size_t)len;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

/* the page of `tracekit report -q ARGS TRACE -o OUT`, compared with the
 * page at lib */
static void same_as_cli(const char *lib, const char *args, const char *trace)
{
	char cmd[4096], out[1024];
	char *a, *b;
	size_t na, nb;

	snprintf(out, sizeof(out), "%s/cli.html", tmp);
	snprintf(cmd, sizeof(cmd), "'%s' report -q %s '%s' -o '%s'", cli, args,
		 trace, out);
	CHECK(system(cmd) == 0);
	a = slurp(lib, &na);
	b = slurp(out, &nb);
	CHECK(a != NULL && b != NULL);
	if (a && b) {
		CHECK_EQ_U64(na, nb);
		CHECK(na == nb && memcmp(a, b, na) == 0);
		CHECK(na > 1000 && strstr(a, "const D={") != NULL);
	}
	free(a);
	free(b);
	unlink(out);
}

static int exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

typedef struct ctx {
	int passes[3];
	int npass;
	int fail_open;
} ctx;

static int on_open(void *p, tk_reader *r, int pass)
{
	ctx *c = p;

	CHECK(tk_reader_trace(r) != NULL);
	if (c->npass < 3)
		c->passes[c->npass] = pass;
	c->npass++;
	return c->fail_open ? TK_E_USAGE : TK_OK;
}

/* the number after "key": in the page at path, or -1 */
static long long page_number(const char *path, const char *key)
{
	size_t n;
	char *page = slurp(path, &n);
	const char *p = page ? strstr(page, key) : NULL;
	long long v = p ? strtoll(p + strlen(key), NULL, 10) : -1;

	free(page);
	return v;
}

/* the first "--x" (a long option: "--" after neither a word character
 * nor '-', before a lower-case letter) in the page at path, or NULL when
 * it names none; the page's text only, the trace's data aside (demo.btf
 * names no such thing) */
static char *page_flag(const char *path, char *buf, size_t size)
{
	size_t n, i;
	char *page = slurp(path, &n);
	char *found = NULL;

	CHECK(page != NULL);
	for (i = 0; page && i + 2 < n && !found; i++) {
		char b = i ? page[i - 1] : ' ';
		if (page[i] == '-' && page[i + 1] == '-' &&
		    page[i + 2] >= 'a' && page[i + 2] <= 'z' && b != '-' &&
		    b != '_' && !(b >= 'a' && b <= 'z') &&
		    !(b >= 'A' && b <= 'Z') && !(b >= '0' && b <= '9')) {
			snprintf(buf, size, "%.40s", page + i);
			found = buf;
		}
	}
	free(page);
	return found;
}

static void count_warning(void *p, const tk_error *w)
{
	(void)w;
	(*(uint64_t *)p)++;
}

int main(int argc, char **argv)
{
	const char *trace, *wtrace;
	const char *idle[1] = { "Task_Log*" };
	const char *ent[1] = { "Task_Sensor" };
	char out[1024], fifo[1024], flag[64];
	tk_report_opts o;
	tk_reader_opts rdo;
	tk_error err;
	ctx c;
	uint64_t warnings, shown;

	if (argc != 5) {
		fprintf(stderr, "usage: test_report CLI TRACE WTRACE TMPDIR\n");
		return 2;
	}
	cli = argv[1];
	trace = argv[2];
	wtrace = argv[3];
	tmp = argv[4];
	mkdir(tmp, 0777);
	snprintf(out, sizeof(out), "%s/lib.html", tmp);

	/* the defaults: the CLI's page */
	CHECK(tk_report_write(trace, out, NULL, &err) == TK_OK);
	CHECK_EQ_U64(err.code, 0);
	same_as_cli(out, "", trace);
	CHECK_EQ_U64(page_number(out, "\"sinceFirst\":"), 0);
	/* the hints of a dense page and the idle note are in every page */
	if (page_flag(out, flag, sizeof(flag))) {
		fprintf(stderr, "the page names a flag: %s\n", flag);
		CHECK(0);
	}

	/* idle patterns and a window in the reader's query: the page of
	 * --idle, --start and --end (demo.btf's tick is 1 ns; its first
	 * event is at 0, its first in the window at 1 ms) */
	memset(&c, 0, sizeof(c));
	tk_report_opts_init(&o);
	tk_reader_opts_init(&rdo);
	rdo.has_start = 1;
	rdo.start = 500;
	rdo.start_unit = TK_UNIT_US;
	rdo.has_end = 1;
	rdo.end = 1500000;
	rdo.end_closed = 1;
	o.reader = &rdo;
	o.idle = idle;
	o.nidle = 1;
	o.on_open = on_open;
	o.ctx = &c;
	CHECK(tk_report_write(trace, out, &o, &err) == TK_OK);
	CHECK_EQ_U64(c.npass, 2);
	CHECK_EQ_U64(c.passes[0], 1);
	CHECK_EQ_U64(c.passes[1], 2);
	CHECK_EQ_U64(page_number(out, "\"sinceFirst\":"), 1000000);
	same_as_cli(out, "--idle 'Task_Log*' --start 500000 --end 1500000", trace);

	/* an entity filter: the page of --entity */
	tk_reader_opts_init(&rdo);
	rdo.entities = ent;
	rdo.nentities = 1;
	tk_report_opts_init(&o);
	o.reader = &rdo;
	CHECK(tk_report_write(trace, out, &o, &err) == TK_OK);
	same_as_cli(out, "--entity Task_Sensor", trace);

	/* warnings: counted, shown on the first pass only */
	warnings = 0;
	shown = 0;
	tk_report_opts_init(&o);
	tk_reader_opts_init(&rdo);
	o.reader = &rdo;
	rdo.on_warning = count_warning;
	rdo.warning_ctx = &shown;
	o.warnings = &warnings;
	CHECK(tk_report_write(wtrace, out, &o, &err) == TK_OK);
	CHECK(warnings > 0);
	CHECK(shown > 0 && shown <= warnings);
	{
		uint64_t again = 0;
		rdo.warning_ctx = &again;
		CHECK(tk_report_write(wtrace, out, &o, &err) == TK_OK);
		CHECK_EQ_U64(again, shown);
	}
	unlink(out);

	/* a long note is cut at 200 bytes between two characters: a UTF-8
	 * character across the cut is left out, not split into a stray byte
	 * (which the page held as U+FFFD) */
	{
		char note_trace[1024], want[256], *page;
		size_t n;
		FILE *fp;
		snprintf(note_trace, sizeof(note_trace), "%s/note.btf", tmp);
		CHECK((fp = fopen(note_trace, "w")) != NULL);
		if (fp) {
			fputs("#version 2.1\n#timeScale ns\n0,C0,0,T,T1,0,activate\n"
			      "10,C0,0,T,T1,0,start\n20,T1,0,SIG,S1,0,write,", fp);
			for (n = 0; n < 199; n++)
				fputc('a', fp);
			fputs("\xc3\xa9" "bbbbbbbbbb\n50,C0,0,T,T1,0,terminate\n", fp);
			fclose(fp);
		}
		CHECK(tk_report_write(note_trace, out, NULL, &err) == TK_OK);
		page = slurp(out, &n);
		CHECK(page != NULL);
		memset(want, 'a', 199);
		strcpy(want + 199, "\"]");
		CHECK(page && strstr(page, want) != NULL);
		CHECK(page && strstr(page, "\\ufffd") == NULL);
		free(page);
		unlink(note_trace);
		unlink(out);
	}

	/* refused inputs, failures: an error and no page */
	CHECK(tk_report_write("-", out, NULL, &err) == TK_E_USAGE);
	CHECK(strstr(err.msg, "standard input") != NULL);
	CHECK(!exists(out));
	snprintf(fifo, sizeof(fifo), "%s/fifo.btf", tmp);
	unlink(fifo);
	CHECK(mkfifo(fifo, 0666) == 0);
	CHECK(tk_report_write(fifo, out, NULL, &err) == TK_E_USAGE);
	CHECK(strstr(err.msg, "pipe") != NULL);
	CHECK(!exists(out));
	unlink(fifo);
	snprintf(fifo, sizeof(fifo), "%s/missing.btf", tmp);
	CHECK(tk_report_write(fifo, out, NULL, &err) < 0);
	CHECK_STR(err.input, fifo);
	CHECK(!exists(out));
	memset(&c, 0, sizeof(c));
	c.fail_open = 1;
	tk_report_opts_init(&o);
	o.on_open = on_open;
	o.ctx = &c;
	CHECK(tk_report_write(trace, out, &o, &err) == TK_E_USAGE);
	CHECK_EQ_U64(c.npass, 1);
	CHECK(!exists(out));

	TEST_DONE();
}
