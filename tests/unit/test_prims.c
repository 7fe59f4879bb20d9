/*
 * test_prims.c - the shared primitives of src/core:
 *   - tk_hashmap (hashmap.h) against a plain array under random sets,
 *     deletions and index use (several entries of one key);
 *   - the byte-order helpers (bytes.h) on known bytes;
 *   - tk_scan_hex16() (scan.h) against a digit-by-digit reading: every
 *     byte value at every place of every width, and random digit strings;
 *   - tk_grow_zero32() and tk_quote() (internal.h);
 *   - tk_etype_lookup() (model.h): the model's own name of every type is
 *     no dialect (a format that writes it reads it back strictly), a
 *     producer's other spelling ("ISR") is;
 *   - the line scanner (lines.h) on LF, CRLF and CR-only text streamed in
 *     pieces of every size from 1 byte, with a last line without its end,
 *     and a line over TK_LINE_MAX refused with its line number.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bytes.h"
#include "hashmap.h"
#include "internal.h"
#include "lines.h"
#include "model.h"
#include "scan.h"
#include "tk_test.h"

enum { NK = 4096 };

static void map_case(void)
{
	static uint32_t ref[NK];   /* value + 1; 0: absent */
	tk_hashmap m;
	uint32_t n = 0, i, k;
	int created;

	tk_hashmap_init(&m);
	CHECK(tk_hashmap_get(&m, 7) == TK_NONE);
	CHECK(tk_hashmap_del(&m, 7) == 0);
	for (i = 0; i < 200000; i++) {
		/* keys spread over all 64 bits, NK of them */
		uint64_t r = tk_test_next();
		k = (uint32_t)(r % NK);
		uint64_t key = (uint64_t)k * 0x9e3779b97f4a7c15ull;
		switch ((r >> 32) % 4) {
		case 0:
		case 1:
			CHECK(tk_hashmap_set(&m, key, i) == TK_OK);
			n += !ref[k];
			ref[k] = i + 1;
			break;
		case 2: {
			uint32_t *v = tk_hashmap_slot(&m, key, &created);
			CHECK(v != NULL && created == !ref[k]);
			if (v && created)
				CHECK(*v == 0);
			if (v)
				*v = i;
			n += !ref[k];
			ref[k] = i + 1;
			break;
		}
		default:
			CHECK(tk_hashmap_del(&m, key) == (ref[k] != 0));
			n -= ref[k] != 0;
			ref[k] = 0;
		}
		CHECK(m.count == n);
		if (m.slots)
			CHECK(m.count <= (m.mask + 1) / 2);
	}
	for (k = 0; k < NK; k++) {
		uint64_t key = (uint64_t)k * 0x9e3779b97f4a7c15ull;
		CHECK(tk_hashmap_get(&m, key) == (ref[k] ? ref[k] - 1 : TK_NONE));
	}
	CHECK(tk_hashmap_reset(&m, 1000) == TK_OK);
	CHECK(m.count == 0 && m.mask + 1 >= 2000);
	CHECK(tk_hashmap_get(&m, 0) == TK_NONE);
	tk_hashmap_free(&m);
	CHECK(m.slots == NULL && m.count == 0);
}

/* index use: keys 0..9 each given to 300 values; every value found by
 * walking its key, and gone once deleted at its slot */
static void index_case(void)
{
	tk_hashmap m;
	uint32_t v, i, seen[3000] = { 0 }, cnt;

	tk_hashmap_init(&m);
	for (v = 0; v < 3000; v++)
		CHECK(tk_hashmap_add(&m, v % 10, v) == TK_OK);
	CHECK(m.count == 3000);
	for (i = tk_hashmap_first(&m, 3); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(&m, 3, i))
		seen[m.slots[i].val]++;
	for (v = 0, cnt = 0; v < 3000; v++) {
		CHECK(seen[v] == (v % 10 == 3));
		cnt += seen[v];
	}
	CHECK(cnt == 300);
	/* delete the odd values of key 3, walking again after each */
	for (v = 3; v < 3000; v += 20) {
		for (i = tk_hashmap_first(&m, 3); i != TK_HASHMAP_END;
		     i = tk_hashmap_next(&m, 3, i))
			if (m.slots[i].val == v)
				break;
		CHECK(i != TK_HASHMAP_END);
		if (i != TK_HASHMAP_END)
			tk_hashmap_del_at(&m, i);
	}
	CHECK(m.count == 3000 - 150);
	for (cnt = 0, i = tk_hashmap_first(&m, 3); i != TK_HASHMAP_END;
	     i = tk_hashmap_next(&m, 3, i)) {
		CHECK(m.slots[i].val % 20 == 13);
		cnt++;
	}
	CHECK(cnt == 150);
	CHECK(tk_hashmap_first(&m, 10) == TK_HASHMAP_END);
	tk_hashmap_free(&m);
}

static void bytes_case(void)
{
	static const uint8_t b[9] = { 0x00, 0x01, 0x02, 0x03, 0x04,
				      0x05, 0x06, 0x07, 0x08 };
	uint8_t o[9];

	/* at an odd address */
	CHECK(tk_load_le16(b + 1) == 0x0201);
	CHECK(tk_load_le32(b + 1) == 0x04030201u);
	CHECK(tk_load_le64(b + 1) == 0x0807060504030201ull);
	CHECK(tk_load_be16(b + 1) == 0x0102);
	CHECK(tk_load_be32(b + 1) == 0x01020304u);
	CHECK(tk_load_be64(b + 1) == 0x0102030405060708ull);
	memset(o, 0, sizeof(o));
	tk_store_le64(o + 1, 0x0807060504030201ull);
	CHECK(memcmp(o + 1, b + 1, 8) == 0);
	tk_store_le32(o + 1, 0x04030201u);
	tk_store_le16(o + 5, 0x0605);
	CHECK(memcmp(o + 1, b + 1, 6) == 0);
	tk_store_be64(o + 1, 0x0102030405060708ull);
	CHECK(memcmp(o + 1, b + 1, 8) == 0);
	tk_store_be32(o + 1, 0x01020304u);
	tk_store_be16(o + 5, 0x0506);
	CHECK(memcmp(o + 1, b + 1, 6) == 0);
	CHECK(o[0] == 0);
}

/* the n hex digits at p, one at a time: 1 and *v, or 0 */
static int hex_ref(const char *p, unsigned n, uint64_t *v)
{
	unsigned i;

	*v = 0;
	for (i = 0; i < n; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		*v = *v << 4 | (uint64_t)d;
	}
	return 1;
}

static void hex_case(void)
{
	static const char digits[] = "0123456789abcdefABCDEF";
	char buf[32] = { 0 }; /* 16 bytes are read from the place given */
	unsigned n, at, c, i, bad = 0;
	uint64_t v, r;

	memcpy(buf, "0123456789ABCDEF", 16);
	CHECK(tk_scan_hex16(buf, 16, &v) == 1 && v == 0x0123456789abcdefull);
	CHECK(tk_scan_hex16(buf + 10, 2, &v) == 1 && v == 0xab);
	memcpy(buf, "ffffffffffffffff", 16);
	CHECK(tk_scan_hex16(buf, 16, &v) == 1 && v == UINT64_MAX);
	/* every byte at every place: only the first n count */
	for (n = 1; n <= 16; n++)
		for (at = 0; at < 16; at++)
			for (c = 0; c < 256; c++) {
				int got, want;
				memcpy(buf, "9aF07bE3c5D1a8f2", 16);
				buf[at] = (char)c;
				got = tk_scan_hex16(buf, n, &v);
				want = hex_ref(buf, n, &r);
				bad += got != want || (want && v != r);
			}
	srand(7);
	for (i = 0; i < 100000; i++) {
		int got, want;
		for (c = 0; c < 16; c++)
			buf[c] = rand() % 16 ? digits[rand() % 22] : (char)(rand() % 256);
		n = 1 + (unsigned)rand() % 16;
		got = tk_scan_hex16(buf, n, &v);
		want = hex_ref(buf, n, &r);
		bad += got != want || (want && v != r);
	}
	CHECK(bad == 0);
}

static void helpers_case(void)
{
	uint32_t *a = NULL, cap = 0, i;
	char buf[64];
	const char *s = "0123456789012345678901234567890123456789XYZ";
	const char *tab = "a\tb";

	CHECK(tk_grow_zero32((void **)&a, &cap, 0, sizeof(*a)) == TK_OK);
	CHECK(cap >= 1);
	CHECK(tk_grow_zero32((void **)&a, &cap, 1000, sizeof(*a)) == TK_OK);
	CHECK(cap > 1000);
	for (i = 0; i < cap; i++)
		CHECK(a[i] == 0);
	a[5] = 9;
	CHECK(tk_grow_zero32((void **)&a, &cap, 5000, sizeof(*a)) == TK_OK);
	CHECK(a[5] == 9 && a[4999] == 0 && cap > 5000);
	CHECK(tk_grow_zero32((void **)&a, &cap, UINT32_MAX, sizeof(*a)) ==
	      TK_E_NOMEM);
	free(a);

	CHECK_STR(tk_quote(buf, sizeof(buf), tab, tab + 3), "a?b");
	CHECK_STR(tk_quote(buf, sizeof(buf), s, s + strlen(s)),
		  "0123456789012345678901234567890123456789...");
	CHECK_STR(tk_quote(buf, sizeof(buf), s, s + 40),
		  "0123456789012345678901234567890123456789");
	CHECK_STR(tk_quote(buf, 8, s, s + 40), "012...");
}

/* Every line of text as "[line]" joined, read in pieces of `piece`
 * (piece 0: the read_at mode over a memory block, from offset 0). */
static int read_lines(const char *text, size_t n, size_t piece, int cr,
		      char *out, size_t outsz, tk_error *err)
{
	tk_source *s = NULL;
	tk_lines l;
	const char *line;
	size_t len, o = 0;
	int rc;

	if (piece)
		rc = tk_source_open_mem_stream(&s, text, n, "t", piece, 1, err);
	else
		rc = tk_source_open_mem(&s, text, n, "t", err);
	if (rc < 0)
		return rc;
	if (piece)
		tk_lines_init(&l, s, cr);
	else if ((rc = tk_lines_init_at(&l, s, 0, 1, cr, err)) < 0)
		goto out;
	while ((rc = tk_lines_next(&l, &line, &len, err)) == TK_OK) {
		if (o + len + 16 > outsz) {
			rc = TK_E_RANGE;
			break;
		}
		o += (size_t)snprintf(out + o, outsz - o, "%llu[",
				      (unsigned long long)l.line);
		memcpy(out + o, line, len);
		o += len;
		out[o++] = ']';
	}
	out[o] = '\0';
	tk_lines_free(&l);
out:
	tk_source_close(s);
	return rc == TK_END ? TK_OK : rc;
}

static void lines_case(void)
{
	static const struct {
		const char *in;
		int cr;
		const char *want;
	} c[] = {
		{ "a,b\nc\r\n\nd", 0, "1[a,b]2[c]3[]4[d]" },
		{ "a\r\rb\r\n", 0, "1[a\r\rb]" },
		{ "x\n", 0, "1[x]" },
		{ "", 0, "" },
		{ "a\rb\r\nc\nd\r", 1, "1[a]2[b]3[c]4[d]" },
		{ "a\r\r\nb", 1, "1[a]2[]3[b]" },
	};
	char out[256];
	tk_error err;
	size_t i, piece;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (piece = 0; piece <= 12; piece++) {
			memset(&err, 0, sizeof(err));
			CHECK(read_lines(c[i].in, strlen(c[i].in), piece, c[i].cr,
					 out, sizeof(out), &err) == TK_OK);
			CHECK_STR(out, c[i].want);
		}
}

/* a second line one byte over TK_LINE_MAX: refused as line 2, in both
 * modes; one of exactly TK_LINE_MAX (and its CRLF) is read */
static void long_case(void)
{
	size_t n = TK_LINE_MAX + 16, k;
	char *t = malloc(n), *out = malloc(TK_LINE_MAX + 64);
	tk_error err;
	int cr;

	if (!t || !out) {
		CHECK(0);
		free(t);
		free(out);
		return;
	}
	for (cr = 0; cr < 2; cr++) {
		memcpy(t, "a\n", 2);
		memset(t + 2, 'x', TK_LINE_MAX + 1);
		memcpy(t + 3 + TK_LINE_MAX, "\n", 1);
		memset(&err, 0, sizeof(err));
		CHECK(read_lines(t, 4 + TK_LINE_MAX, 65536, cr, out,
				 TK_LINE_MAX + 64, &err) == TK_E_PARSE);
		CHECK(err.line == 2);
		memset(&err, 0, sizeof(err));
		CHECK(read_lines(t, 4 + TK_LINE_MAX, 0, cr, out,
				 TK_LINE_MAX + 64, &err) == TK_E_PARSE);
		CHECK(err.line == 2);
		memcpy(t + 2 + TK_LINE_MAX, "\r\nb", 3);
		k = 5 + TK_LINE_MAX;
		CHECK(read_lines(t, k, 65536, cr, out, TK_LINE_MAX + 64,
				 &err) == TK_OK);
		CHECK(strlen(out) == 4 + TK_LINE_MAX + 3 + 4);
		CHECK(read_lines(t, k, 0, cr, out, TK_LINE_MAX + 64,
				 &err) == TK_OK);
		CHECK(strlen(out) == 4 + TK_LINE_MAX + 3 + 4);
	}
	free(t);
	free(out);
}

/*
 * The read_at mode: tk_lines_offset() after each line is the next line's
 * start (also past the LF of a CRLF whose CR ends a read window, in the
 * CR-only mode), and tk_lines_seek() back to one reads that line again
 * under the number given.
 */
static void at_case(void)
{
	size_t n = 3 * 65536, i, len;
	char *t = malloc(n);
	uint64_t offs[8];
	const char *line;
	tk_source *s = NULL;
	tk_lines l;
	tk_error err;
	int cr, k;

	if (!t) {
		CHECK(0);
		return;
	}
	/* line 1: 65535 bytes and a CRLF across the first 64 KiB window */
	memset(t, 'a', n);
	memcpy(t + 65535, "\r\nbc\r", 5);
	memcpy(t + 65540, "\n#-1\r\n", 7);
	for (cr = 0; cr < 2; cr++) {
		memset(&err, 0, sizeof(err));
		CHECK(tk_source_open_mem(&s, t, n, "t", &err) == TK_OK);
		CHECK(tk_lines_init_at(&l, s, 0, 1, cr, &err) == TK_OK);
		for (k = 0; k < 4 && tk_lines_next(&l, &line, &len, &err) == TK_OK; k++)
			offs[k] = tk_lines_offset(&l);
		CHECK(k == 4);
		CHECK(offs[0] == 65537);
		CHECK(offs[1] == 65541 && offs[2] == 65546 && offs[3] == n);
		tk_lines_seek(&l, offs[1], 3);
		CHECK(tk_lines_next(&l, &line, &len, &err) == TK_OK);
		CHECK(len == 3 && !memcmp(line, "#-1", 3) && l.line == 3);
		tk_lines_seek(&l, 0, 1);
		CHECK(tk_lines_next(&l, &line, &len, &err) == TK_OK);
		CHECK(len == 65535 && l.line == 1);
		for (i = 0; i < len && line[i] == 'a'; i++)
			;
		CHECK(i == 65535);
		CHECK(tk_lines_offset(&l) == 65537);
		tk_lines_free(&l);
		tk_source_close(s);
	}
	free(t);
}

/* UTF-8 sequences and XML escapes (core's util.c) */
static void text_case(void)
{
	static const struct { const char *s; size_t n, len; } u[] = {
		{ "A", 1, 1 },
		{ "\xc3\xa9", 2, 2 },             /* e acute */
		{ "\xe2\x82\xac", 3, 3 },         /* euro sign */
		{ "\xf0\x9f\x98\x80", 4, 4 },     /* U+1F600 */
		{ "\xef\xbf\xbe", 3, 3 },         /* U+FFFE: UTF-8 all the same */
		{ "\xc0\x80", 2, 0 },             /* overlong NUL */
		{ "\xe0\x80\xaf", 3, 0 },         /* overlong '/' */
		{ "\xed\xa0\x80", 3, 0 },         /* a surrogate */
		{ "\xf4\x90\x80\x80", 4, 0 },     /* past U+10FFFF */
		{ "\xe2\x82", 2, 0 },             /* cut short */
		{ "\x80", 1, 0 },                 /* a continuation byte alone */
		{ "\xff", 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		CHECK(tk_utf8_len((const unsigned char *)u[i].s, u[i].n) == u[i].len);
	CHECK(strcmp(tk_xml_escape('&', 0), "&amp;") == 0);
	CHECK(strcmp(tk_xml_escape('<', 0), "&lt;") == 0);
	CHECK(strcmp(tk_xml_escape('>', 1), "&gt;") == 0);
	CHECK(tk_xml_escape('"', 0) == NULL);
	CHECK(strcmp(tk_xml_escape('"', 1), "&quot;") == 0);
	CHECK(tk_xml_escape('\n', 0) == NULL);
	CHECK(strcmp(tk_xml_escape('\n', 1), "&#10;") == 0);
	CHECK(strcmp(tk_xml_escape('\r', 0), "&#13;") == 0);
	CHECK(tk_xml_escape('a', 1) == NULL);
}

/* TK_CAP_STREAM, which `tracekit formats` shows and the tests take their
 * lists of writers from, says what core does with a writer's output */
static void caps_case(void)
{
	size_t i;

	for (i = 0; i < tk_format_count(); i++) {
		const tk_format_ops *f = tk_format_ops_get(i);
		int stream = (f->info.caps & TK_CAP_WRITE) && !f->writes_dir &&
			     !f->writes_file;
		CHECK(!!(f->info.caps & TK_CAP_STREAM) == stream);
		CHECK(!(f->info.caps & TK_CAP_READ) == !f->reader_open);
		CHECK(!(f->info.caps & TK_CAP_WRITE) == !f->writer_open);
	}
}

static void etype_case(void)
{
	tk_etype t, got;
	int dialect;

	for (t = TK_ET_STI; t < TK_ET_OTHER; t++) {
		const char *n = tk_etype_name(t);
		dialect = -1;
		CHECK(tk_etype_lookup(n, strlen(n), &got, &dialect) == 1);
		CHECK(got == t);
		if (dialect != 0)
			fprintf(stderr, "the model's name '%s' is a dialect\n", n);
		CHECK(dialect == 0);
	}
	CHECK(tk_etype_lookup("ISR", 3, &got, &dialect) == 1);
	CHECK(got == TK_ET_I && dialect == 1);
	CHECK(tk_etype_lookup("Processor", 9, &got, &dialect) == 1);
	CHECK(got == TK_ET_P && dialect == 0);
	CHECK(tk_etype_lookup("THREAD", 6, &got, &dialect) == 0);
}

int main(void)
{
	caps_case();
	text_case();
	map_case();
	index_case();
	bytes_case();
	hex_case();
	helpers_case();
	lines_case();
	long_case();
	at_case();
	etype_case();
	TEST_DONE();
}
