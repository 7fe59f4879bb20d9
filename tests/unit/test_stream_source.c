/*
 * test_stream_source.c - every input given on the command line is read
 * from its file, then from a memory stream (tk_source_open_mem_stream())
 * that hands the bytes out in pieces of 1, 2, 7, 64, 4096, 65536 bytes,
 * fixed or of varying lengths, as they are and gzip- and zstd-compressed;
 * each read must give exactly what the file read gave: the header, every
 * event with every field, the warnings (with their positions), the error
 * that ends the read if any, the entities.  Both lenient and strict mode.
 *
 * A memory stream moves its window at every fill and frees the old one,
 * so under AddressSanitizer a reader that keeps a pointer into the window
 * across a fill (or reads past the window's end) fails here at once.
 *
 * Usage: test_stream_source FILE...   (exit 0: all the same)
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* the quadratic part of a memory stream (a reader that asks for the whole
 * input, as the ATF prescan does, has the window copied at each fill) is
 * kept under this many bytes copied per read */
#define COPY_BUDGET 300000000.0

static int failures;

static void fail(const char *path, const char *what, const char *a,
		 const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	/* show the lines around the first difference */
	while (i && a[i - 1] != '\n')
		i--;
	fprintf(stderr, "FAIL %s: %s differs from the file read\n"
			"  file:   %.300s\n  stream: %.300s\n",
		path, what, a + i, b + i);
	failures++;
}

static void put_err(FILE *o, const char *what, const tk_error *e)
{
	fprintf(o, "%s code=%d line=%" PRIu64 " col=%u", what, e->code, e->line,
		e->column);
	if (e->has_offset)
		fprintf(o, " off=%" PRIu64, e->offset);
	fprintf(o, " msg=%s\n", e->msg);
}

static void on_warning(void *ctx, const tk_error *w)
{
	put_err(ctx, "warning", w);
}

static void put_str(FILE *o, const tk_trace *t, tk_str s)
{
	size_t n;
	const char *p;

	if (s == TK_NONE) {
		fputs("-", o);
		return;
	}
	p = tk_trace_str(t, s, &n);
	fputc('"', o);
	fwrite(p, 1, n, o);
	fputc('"', o);
}

static void put_entity(FILE *o, const tk_trace *t, uint32_t id)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(t, id);

	if (!e)
		fprintf(o, " #%" PRIu32, id);
	else
		put_str(o, t, e->name);
}

/* Everything a read gives, as text. */
static char *dump(tk_source *src, const char *path, int strict)
{
	tk_reader_opts opts;
	tk_reader *r = NULL;
	const tk_event *ev;
	const tk_trace *t;
	const tk_timebase *tb;
	tk_error err;
	char *text = NULL;
	size_t len = 0, i, n;
	FILE *o = open_memstream(&text, &len);
	int rc;

	if (!o) {
		tk_source_close(src);
		return NULL;
	}
	memset(&err, 0, sizeof(err));
	tk_reader_opts_init(&opts);
	opts.strict = strict;
	opts.on_warning = on_warning;
	opts.warning_ctx = o;
	rc = tk_reader_open_source(&r, src, path, &opts, &err);
	if (rc < 0) {
		put_err(o, "open", &err);
		fclose(o);
		return text;
	}
	t = tk_reader_trace(r);
	fprintf(o, "format %s\n", tk_reader_format(r));
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		fprintf(o, "ev %" PRIu64 " ", ev->time);
		put_entity(o, t, ev->source);
		fprintf(o, " %" PRId64 " ", ev->source_inst);
		put_entity(o, t, ev->target);
		fprintf(o, " %" PRId64 " %d %d ", ev->target_inst,
			(int)ev->type, (int)ev->kind);
		put_str(o, t, ev->type_name);
		fputc(' ', o);
		put_str(o, t, ev->name);
		fputc(' ', o);
		put_entity(o, t, ev->core);
		if (ev->note) {
			fputs(" note=", o);
			fwrite(ev->note, 1, ev->note_len, o);
		}
		fprintf(o, " pos=%" PRIu64 "\n", ev->pos);
	}
	if (rc != TK_END)
		put_err(o, "next", &err);
	/* the header and time base as they are after the read (a reader
	 * may add to them on the way) */
	for (i = 0; i < tk_trace_header_count(t); i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		fprintf(o, "hdr %d %s|%s|%d\n", (int)h->kind, h->key, h->value,
			h->has_value);
	}
	tb = tk_trace_timebase(t);
	fprintf(o, "timebase %d %" PRIu64 "/%" PRIu64 "\n", (int)tb->unit,
		tb->num, tb->den);
	n = tk_trace_entity_count(t);
	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		fputs("entity ", o);
		put_str(o, t, e->name);
		fprintf(o, " %d ", (int)e->type);
		put_str(o, t, e->type_name);
		fprintf(o, " %" PRIu32 "\n", e->parent);
	}
	fprintf(o, "warnings %" PRIu64 "\n", tk_reader_warning_count(r));
	tk_reader_close(r);
	fclose(o);
	return text;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (cap - *len < 65536) {
			uint8_t *nb = realloc(buf, cap + 65536 + cap / 2);
			if (!nb)
				break;
			buf = nb;
			cap += 65536 + cap / 2;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return buf;
}

static uint8_t *gzip_of(const uint8_t *in, size_t len, size_t *outlen)
{
	z_stream z;
	uint8_t *out;
	size_t cap;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, (uLong)len) + 64;
	out = malloc(cap);
	if (out) {
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
			free(out);
			out = NULL;
		} else {
			*outlen = cap - z.avail_out;
		}
	}
	deflateEnd(&z);
	return out;
}

static uint8_t *zstd_of(const uint8_t *in, size_t len, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(len), r;
	uint8_t *out = malloc(cap);

	if (!out)
		return NULL;
	r = ZSTD_compress(out, cap, in, len, 3);
	if (ZSTD_isError(r)) {
		free(out);
		return NULL;
	}
	*outlen = r;
	return out;
}

static const struct {
	size_t piece;
	uint64_t seed;
} modes[] = {
	{ 1, 0 }, { 2, 0 }, { 7, 0 }, { 7, 1 }, { 64, 2 },
	{ 4096, 0 }, { 4096, 3 }, { 65536, 4 },
};

static void check_file(const char *path)
{
	size_t len = 0, zlen = 0, i;
	uint8_t *data = slurp(path, &len), *gz, *zs;
	int strict, c, runs = 0;

	if (!data && len == 0) {
		/* an empty file reads as nothing: slurp gave no buffer */
		data = malloc(1);
	}
	if (!data) {
		fprintf(stderr, "FAIL %s: cannot read\n", path);
		failures++;
		return;
	}
	/* an input compressed already is streamed as it is only */
	gz = zs = NULL;
	if (!(len >= 2 && data[0] == 0x1f && data[1] == 0x8b) &&
	    !(len >= 4 && memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0))
		gz = gzip_of(data, len, &zlen);
	{
		size_t glen = zlen;
		if (gz)
			zs = zstd_of(data, len, &zlen);
		for (strict = 0; strict < 2; strict++) {
			tk_source *src;
			tk_error err;
			char *ref;
			if (tk_source_open(&src, path, &err) < 0) {
				fprintf(stderr, "FAIL %s: %s\n", path, err.msg);
				failures++;
				break;
			}
			ref = dump(src, path, strict);
			if (!ref)
				abort();
			for (c = 0; c < 3; c++) {
				const uint8_t *in = c == 0 ? data : c == 1 ? gz : zs;
				size_t inlen = c == 0 ? len : c == 1 ? glen : zlen;
				if (!in)
					continue;
				for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
					char what[96], *got;
					if ((double)len * (double)len / (double)modes[i].piece > COPY_BUDGET)
						continue;
					if (tk_source_open_mem_stream(&src, in, inlen, path,
								      modes[i].piece,
								      modes[i].seed, &err) < 0) {
						fprintf(stderr, "FAIL %s: %s\n", path, err.msg);
						failures++;
						continue;
					}
					got = dump(src, path, strict);
					if (!got)
						abort();
					snprintf(what, sizeof(what), "%s%s, pieces of %s%zu bytes",
						 strict ? "strict" : "lenient",
						 c == 0 ? "" : c == 1 ? ", gzip" : ", zstd",
						 modes[i].seed ? "1 to " : "", modes[i].piece);
					if (strcmp(ref, got) != 0)
						fail(path, what, ref, got);
					free(got);
					runs++;
				}
			}
			free(ref);
		}
	}
	printf("%s: %zu bytes, %d stream reads\n", path, len, runs);
	free(gz);
	free(zs);
	free(data);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: test_stream_source FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		check_file(argv[i]);
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("all the same\n");
	return 0;
}
