#define _POSIX_C_SOURCE 200809L
/* test_write_batch.c - tk_writer_write_batch() through the public API: the
 * same file as tk_writer_write() of each event in turn, for a writer that
 * takes a batch column by column (Parquet, with batches across its pages
 * and row groups) and for one that takes the events one by one (BTF); the
 * same error for a time Parquet cannot hold after rows already written,
 * and under strict mode for a note not UTF-8 before such a time; nothing
 * to do for no events. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>
#include <unistd.h>

/* a BTF of n events: tasks on cores, runnables, signals with notes short,
 * long, empty and absent; the note of event `bad` not UTF-8 (12 bytes;
 * none: n), and the signal of event bad + 1 (3 bytes); the last event's
 * time over 2^63 - 1 when `big` */
static char *make_btf(size_t n, size_t bad, int big, size_t *len)
{
	size_t cap = 256 + n * 128, k, i;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	k = (size_t)snprintf(s, cap, "#version 2.3.0\n#creator test\n#timescale ns\n");
	for (i = 0; i < n; i++) {
		unsigned long long t = big && i == n - 1 ? 18446744073709551000ull
							 : (unsigned long long)i * 7;
		const char *note;
		char nb[64];

		switch (i % 6) {
		case 0:
			k += (size_t)snprintf(s + k, cap - k, "%llu,Core_%zu,0,T,T%zu,%zu,start\n",
					      t, i % 3, i % 17, i / 40);
			continue;
		case 1:
			k += (size_t)snprintf(s + k, cap - k, "%llu,T%zu,%zu,R,R%zu,%zu,start\n",
					      t, i % 17, i / 40, i % 29, i / 10);
			continue;
		case 2:
			k += (size_t)snprintf(s + k, cap - k, "%llu,TMR%zu,0,STI,TMR%zu,0,trigger\n",
					      t, i % 5, i % 5);
			continue;
		}
		if (i == bad)
			note = "\xff\xfe not UTF-8";
		else if (i % 4 == 0)
			note = (snprintf(nb, sizeof(nb), "v%zu", i % 50), nb);
		else if (i % 4 == 1)
			note = (snprintf(nb, sizeof(nb), "a longer note, number %zu", i % 300), nb);
		else if (i % 4 == 2)
			note = NULL;
		else
			note = "";
		if (i == bad + 1)
			k += (size_t)snprintf(s + k, cap - k, "%llu,T%zu,0,SIG,S\xfe\xfd,0,write\n",
					      t, i % 17);
		else
			k += (size_t)snprintf(s + k, cap - k, "%llu,T%zu,0,SIG,S%zu,0,write%s%s\n",
					      t, i % 17, i % 11, note ? "," : "", note ? note : "");
	}
	*len = k;
	return s;
}

typedef struct result {
	int rc;
	char msg[512];
	char *data;        /* the file written (rc == TK_OK) */
	size_t len;
} result;

/* the events of text (read from r), their notes copied to *notes */
static tk_event *read_all(tk_reader *r, size_t *count, char **notes)
{
	const tk_event *ev;
	tk_event *all = NULL;
	size_t *off = NULL; /* the notes' offsets: the arena moves as it grows */
	size_t n = 0, cap = 0, nl = 0, ncap = 0;
	tk_error err;

	*notes = NULL;
	while (tk_reader_next(r, &ev, &err) == TK_OK) {
		if (n == cap) {
			tk_event *na = realloc(all, (cap ? 2 * cap : 1024) * sizeof(*all));
			size_t *no;

			if (!na)
				break;
			all = na;
			if (!(no = realloc(off, (cap ? 2 * cap : 1024) * sizeof(*off))))
				break;
			off = no;
			cap = cap ? 2 * cap : 1024;
		}
		all[n] = *ev;
		off[n] = nl;
		if (ev->note) {
			if (!*notes || nl + ev->note_len > ncap) {
				char *nn = realloc(*notes, ncap = 2 * (nl + ev->note_len) + 64);
				if (!nn)
					break;
				*notes = nn;
			}
			if (ev->note_len)
				memcpy(*notes + nl, ev->note, ev->note_len);
			nl += ev->note_len;
		}
		n++;
	}
	for (cap = 0; cap < n; cap++)
		if (all[cap].note)
			all[cap].note = *notes + off[cap];
	free(off);
	*count = n;
	return all;
}

/* text written as `format` with writer options `options` (strict when
 * asked), in batches of `batch` events given to tk_writer_write_batch()
 * (each = 0) or event by event */
static result write_with(const char *text, size_t len, const char *format,
			 const char *options, int strict, size_t batch, int each)
{
	result res = { TK_OK, "", NULL, 0 };
	char path[] = "/tmp/tk_test_batch_XXXXXX";
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_writer_opts wo;
	tk_event *ev;
	tk_error err;
	size_t n, i;
	char *notes;
	FILE *fp;
	long sz;
	int fd = mkstemp(path), rc;

	CHECK(fd >= 0);
	if (fd < 0)
		return res;
	close(fd);
	CHECK(tk_reader_open_mem(&r, text, len, "mem.btf", NULL, &err) == TK_OK);
	ev = read_all(r, &n, &notes);
	CHECK(n > 0);
	tk_writer_opts_init(&wo);
	wo.format = format;
	wo.options = options;
	wo.strict = strict;
	wo.input = "mem.btf";
	CHECK(tk_writer_open(&w, path, tk_reader_trace(r), &wo, &err) == TK_OK);
	rc = TK_OK;
	for (i = 0; i < n && rc == TK_OK; i += batch) {
		size_t k, m = n - i < batch ? n - i : batch;

		if (each) {
			for (k = 0; k < m && rc == TK_OK; k++)
				rc = tk_writer_write(w, &ev[i + k], &err);
		} else {
			rc = tk_writer_write_batch(w, ev + i, m, &err);
		}
	}
	free(ev);
	free(notes);
	if (rc == TK_OK)
		rc = tk_writer_close(w, &err);
	else
		tk_writer_abort(w);
	res.rc = rc;
	if (rc < 0) {
		/* the message with the temporary file's name as OUT */
		char m[512], *c;
		size_t pl = strlen(path);

		tk_error_format(&err, "error", m, sizeof(m));
		if ((c = strstr(m, path)) != NULL) {
			memmove(c + 3, c + pl, strlen(c + pl) + 1);
			memcpy(c, "OUT", 3);
		}
		snprintf(res.msg, sizeof(res.msg), "%s", m);
	} else if ((fp = fopen(path, "rb")) != NULL) {
		if (fseek(fp, 0, SEEK_END) == 0 && (sz = ftell(fp)) > 0 &&
		    fseek(fp, 0, SEEK_SET) == 0 && (res.data = malloc((size_t)sz)) &&
		    fread(res.data, 1, (size_t)sz, fp) == (size_t)sz)
			res.len = (size_t)sz;
		fclose(fp);
	}
	tk_reader_close(r);
	remove(path);
	return res;
}

/* event by event, then batches of several sizes: the same result */
static void same(const char *what, const char *text, size_t len,
		 const char *format, const char *options, int strict, int want_rc)
{
	static const size_t sizes[] = { 1, 7, 1000, 100000 };
	result a = write_with(text, len, format, options, strict, 4096, 1);
	size_t i;

	CHECK_EQ_U64((uint64_t)(int64_t)a.rc, (uint64_t)(int64_t)want_rc);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		result b = write_with(text, len, format, options, strict, sizes[i], 0);

		CHECK_EQ_U64((uint64_t)(int64_t)b.rc, (uint64_t)(int64_t)a.rc);
		CHECK_STR(b.msg, a.msg);
		CHECK_EQ_U64(b.len, a.len);
		CHECK(a.rc < 0 || (a.len > 0 && b.data && a.data &&
				   memcmp(a.data, b.data, a.len) == 0));
		if (b.len != a.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
			fprintf(stderr, "%s: batches of %zu differ\n", what, sizes[i]);
		free(b.data);
	}
	free(a.data);
}

int main(void)
{
	size_t len;
	char *ok = make_btf(20000, 20000, 0, &len), *t;
	tk_writer *w = NULL;
	tk_reader *r = NULL;
	tk_error err;

	CHECK(ok != NULL);
	if (!ok)
		TEST_DONE();
	/* pages of 1,000 rows in groups of 3,000: batches across both */
	same("parquet", ok, len, "parquet", "row-group=3000,page=1000", 0, TK_OK);
	same("parquet default", ok, len, "parquet", NULL, 0, TK_OK);
	same("btf", ok, len, "btf", NULL, 0, TK_OK);
	free(ok);
	/* a note not UTF-8 (U+FFFD, counted) */
	t = make_btf(5000, 1005, 0, &len);
	same("parquet, a bad note and name", t, len, "parquet", "page=1000", 0, TK_OK);
	free(t);
	/* the last time over INT64: the rows before it written, its error,
	 * TK_E_RANGE as every writer's time it cannot hold (it was
	 * TK_E_UNSUPPORTED, which is for what strict mode refuses) */
	t = make_btf(5000, 5000, 1, &len);
	same("parquet, a big time", t, len, "parquet", "page=1000", 0, TK_E_RANGE);
	{
		/* named by the input's line (3 header lines, the 5,000th
		 * event), the output in the message */
		result s = write_with(t, len, "parquet", "page=1000", 0, 1000, 0);
		CHECK(strncmp(s.msg, "mem.btf:5003: error: ", 21) == 0);
		CHECK(strstr(s.msg, " (writing OUT)") != NULL);
		free(s.data);
	}
	free(t);
	/* strict: the bad note (event 1,005) comes before the bad name of a
	 * later event in an earlier column, and before the big time */
	t = make_btf(5000, 1005, 1, &len);
	same("parquet strict", t, len, "parquet", "page=1000", 1, TK_E_UNSUPPORTED);
	{
		result s = write_with(t, len, "parquet", "page=1000", 1, 100000, 0);
		CHECK(strstr(s.msg, "of 12 bytes is not UTF-8") != NULL);
		CHECK(strncmp(s.msg, "mem.btf:1009: error: ", 21) == 0);
		free(s.data);
	}
	/* no events: nothing to do, even with no events to point at */
	CHECK(tk_reader_open_mem(&r, t, len, "mem.btf", NULL, &err) == TK_OK);
	CHECK(tk_writer_open(&w, "/tmp/tk_test_batch_none.parquet", tk_reader_trace(r),
			     NULL, &err) == TK_OK);
	CHECK(tk_writer_write_batch(w, NULL, 0, &err) == TK_OK);
	tk_writer_abort(w);
	tk_reader_close(r);
	free(t);
	TEST_DONE();
}
