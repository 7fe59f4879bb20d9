/*
 * test_source_random.c - random access to a byte source
 * (tk_source_size(), tk_source_read_at()) on every transport: a plain
 * file, a memory block, a memory stream in pieces (read as a pipe is), and
 * each of them gzip- and zstd-compressed.  Some bytes are consumed through
 * the window first, as a reader consumes a header; then every read at a
 * random offset and length must give the input's own bytes, reads past
 * the end and (on a spooled stream) before the consumed position must fail
 * with TK_E_IO and the offset, and the size must be the decoded size.
 * Standard input on a file at an offset is read from there, also at random.
 * A file cut to a quarter while it is streamed (plain or compressed) ends
 * with one TK_E_IO error, at the cut or after it: never a crash, never a
 * short input taken for the whole; a plain file cut before
 * tk_source_size() makes that the error.  A file whose size says 0 but
 * holds bytes (/proc/self/cmdline) gives them, at random too.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define LEN ((size_t)3 << 20 | 12345)
#define HEAD 1000

static int failures;

#define CHECK(c, ...) do { if (!(c)) { failures++; \
	printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); \
	printf("\n"); } } while (0)

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint8_t *gzip_of(const uint8_t *in, size_t len, size_t *outlen)
{
	z_stream z;
	uint8_t *out;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	out = malloc(deflateBound(&z, len));
	if (!out)
		return NULL;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)deflateBound(&z, len);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

static uint8_t *zstd_of(const uint8_t *in, size_t len, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(len);
	uint8_t *out = malloc(cap);

	if (!out)
		return NULL;
	*outlen = ZSTD_compress(out, cap, in, len, 1);
	if (ZSTD_isError(*outlen)) {
		free(out);
		return NULL;
	}
	return out;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* Consume HEAD bytes through the window, then check random access. */
static void check(tk_source *s, const uint8_t *data, const char *what)
{
	tk_error err;
	tk_window w = tk_source_window(s);
	uint64_t size = 0;
	uint8_t *buf = malloc(1 << 20);
	int i, rc;

	if (!buf)
		abort();
	while (w.n < HEAD) {
		rc = tk_source_fill(s, HEAD, &w, &err);
		CHECK(rc > 0, "%s: fill: %d", what, rc);
		if (rc <= 0)
			goto out;
	}
	CHECK(memcmp(w.p, data, HEAD) == 0, "%s: window bytes", what);
	tk_source_consume(s, HEAD);
	rc = tk_source_size(s, &size, &err);
	CHECK(rc == TK_OK, "%s: size: %s", what, err.msg);
	CHECK(size == LEN, "%s: size %llu, not %zu", what,
	      (unsigned long long)size, LEN);
	rc = tk_source_size(s, &size, &err);
	CHECK(rc == TK_OK && size == LEN, "%s: size again", what);
	for (i = 0; i < 200; i++) {
		size_t n = (size_t)(next() % ((i & 7) == 0 ? (1u << 20) : 300));
		uint64_t off = HEAD + next() % (LEN - HEAD - n + 1);
		rc = tk_source_read_at(s, off, buf, n, &err);
		CHECK(rc == TK_OK, "%s: read_at(%llu, %zu): %s", what,
		      (unsigned long long)off, n, err.msg);
		CHECK(rc != TK_OK || memcmp(buf, data + off, n) == 0,
		      "%s: bytes at %llu differ", what, (unsigned long long)off);
	}
	/* the last byte, and nothing at the very end */
	rc = tk_source_read_at(s, LEN - 1, buf, 1, &err);
	CHECK(rc == TK_OK && buf[0] == data[LEN - 1], "%s: last byte", what);
	CHECK(tk_source_read_at(s, LEN, buf, 0, &err) == TK_OK,
	      "%s: empty read at the end", what);
	tk_error_clear(&err);
	rc = tk_source_read_at(s, LEN - 10, buf, 11, &err);
	CHECK(rc == TK_E_IO && err.offset == LEN - 10 && err.has_offset,
	      "%s: a read past the end gives %d at %llu", what, rc,
	      (unsigned long long)err.offset);
	rc = tk_source_read_at(s, UINT64_MAX, buf, 2, &err);
	CHECK(rc == TK_E_IO, "%s: a read at 2^64-1 gives %d", what, rc);
out:
	free(buf);
}

/* Stream the file at `path` (inlen bytes): a window, then the file is cut
 * to a quarter, then fills to the end. */
static void check_cut(const char *path, size_t inlen, const char *what)
{
	tk_source *s;
	tk_error err;
	tk_window w;
	uint64_t cut = inlen / 4;
	int rc;

	if (tk_source_open(&s, path, &err) != TK_OK) {
		CHECK(0, "%s: open: %s", what, err.msg);
		return;
	}
	w = tk_source_window(s);
	rc = tk_source_fill(s, HEAD, &w, &err);
	CHECK(rc > 0 && w.n >= HEAD, "%s: the first fill", what);
	CHECK(truncate(path, (off_t)cut) == 0, "%s: truncate", what);
	do {
		tk_source_consume(s, w.n);
		rc = tk_source_fill(s, 1, &w, &err);
	} while (rc > 0);
	CHECK(rc == TK_E_IO && err.has_offset && err.offset >= cut &&
	      err.offset < inlen && strstr(err.msg, "shrank"),
	      "%s: cut at %llu gives %d at %llu: %s", what,
	      (unsigned long long)cut, rc, (unsigned long long)err.offset,
	      rc < 0 ? err.msg : "no error");
	tk_source_close(s);
}

/* A plain file cut after its first window, before tk_source_size(). */
static void check_cut_random(const char *path, size_t inlen)
{
	tk_source *s;
	tk_error err;
	tk_window w;
	uint64_t size = 0, cut = inlen / 4;
	int rc;

	if (tk_source_open(&s, path, &err) != TK_OK) {
		CHECK(0, "cut at random: open: %s", err.msg);
		return;
	}
	w = tk_source_window(s);
	rc = tk_source_fill(s, HEAD, &w, &err);
	CHECK(rc > 0 && w.n >= HEAD, "cut at random: the first fill");
	tk_source_consume(s, HEAD);
	CHECK(truncate(path, (off_t)cut) == 0, "cut at random: truncate");
	rc = tk_source_size(s, &size, &err);
	CHECK(rc == TK_E_IO && err.has_offset && err.offset == cut &&
	      strstr(err.msg, "shrank"), "cut at random gives %d at %llu: %s",
	      rc, (unsigned long long)err.offset, rc < 0 ? err.msg : "no error");
	tk_source_close(s);
}

/* /proc/self/cmdline: its size says 0, it holds argv[0] and a NUL. */
static void check_pseudo_file(const char *argv0)
{
	tk_source *s;
	tk_error err;
	tk_window w;
	uint64_t size = 0;
	size_t n = strlen(argv0) + 1;
	char b[4];
	int rc;

	if (tk_source_open(&s, "/proc/self/cmdline", &err) != TK_OK)
		return; /* no /proc here */
	w = tk_source_window(s);
	rc = tk_source_fill(s, 1, &w, &err);
	CHECK(rc > 0 && w.n == n && memcmp(w.p, argv0, n) == 0,
	      "/proc/self/cmdline: %zu bytes streamed, not %zu", w.n, n);
	rc = tk_source_size(s, &size, &err);
	CHECK(rc == TK_OK && size == n, "/proc/self/cmdline: size %llu",
	      (unsigned long long)size);
	rc = tk_source_read_at(s, 0, b, 3, &err);
	CHECK(rc == TK_OK && memcmp(b, argv0, 3) == 0,
	      "/proc/self/cmdline: read_at");
	tk_source_close(s);
}

/* Standard input on the file at `path` from byte `at` on. */
static void check_stdin_at(const char *path, const uint8_t *data, size_t at)
{
	tk_source *s;
	tk_error err;
	tk_window w;
	uint64_t size = 0;
	uint8_t b[16];
	int fd = open(path, O_RDONLY), keep = dup(0), rc;

	if (fd < 0 || keep < 0 || lseek(fd, (off_t)at, SEEK_SET) < 0 ||
	    dup2(fd, 0) < 0) {
		CHECK(0, "stdin at %zu: set-up", at);
		return;
	}
	close(fd);
	if (tk_source_open(&s, "-", &err) == TK_OK) {
		w = tk_source_window(s);
		rc = tk_source_fill(s, HEAD, &w, &err);
		CHECK(rc > 0 && w.n >= HEAD && memcmp(w.p, data + at, HEAD) == 0,
		      "stdin at %zu: the window", at);
		rc = tk_source_size(s, &size, &err);
		CHECK(rc == TK_OK && size == LEN - at, "stdin at %zu: size %llu",
		      at, (unsigned long long)size);
		rc = tk_source_read_at(s, 5, b, sizeof(b), &err);
		CHECK(rc == TK_OK && memcmp(b, data + at + 5, sizeof(b)) == 0,
		      "stdin at %zu: read_at", at);
		tk_source_close(s);
	} else {
		CHECK(0, "stdin at %zu: open: %s", at, err.msg);
	}
	dup2(keep, 0);
	close(keep);
}

int main(int argc, char **argv)
{
	uint8_t *data = malloc(LEN), *gz, *zs;
	size_t gzlen = 0, zslen = 0, i;
	char dir[] = "/tmp/tk-random-XXXXXX", path[64];
	tk_source *s;
	tk_error err;
	int c, k;

	if (!data || !mkdtemp(dir) || argc < 1 || strlen(argv[0]) < 3)
		return 2;
	check_pseudo_file(argv[0]);
	/* compressible but not constant */
	for (i = 0; i < LEN; i++)
		data[i] = (uint8_t)((next() & 0x0f) + 'a');
	gz = gzip_of(data, LEN, &gzlen);
	zs = zstd_of(data, LEN, &zslen);
	if (!gz || !zs)
		return 2;
	for (c = 0; c < 3; c++) {
		const uint8_t *in = c == 0 ? data : c == 1 ? gz : zs;
		size_t inlen = c == 0 ? LEN : c == 1 ? gzlen : zslen;
		const char *codec = c == 0 ? "plain" : c == 1 ? "gzip" : "zstd";
		char what[96];

		snprintf(path, sizeof(path), "%s/in%d", dir, c);
		if (write_file(path, in, inlen) < 0)
			return 2;
		snprintf(what, sizeof(what), "file %s", codec);
		CHECK(tk_source_open(&s, path, &err) == TK_OK, "%s", what);
		check(s, data, what);
		tk_source_close(s);
		snprintf(what, sizeof(what), "memory %s", codec);
		CHECK(tk_source_open_mem(&s, in, inlen, "m", &err) == TK_OK, "%s", what);
		check(s, data, what);
		tk_source_close(s);
		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof(what), "memory stream %s %s", codec,
				 k ? "random pieces" : "pieces of 7");
			CHECK(tk_source_open_mem_stream(&s, in, inlen, "ms",
							k ? 4096 : 7, (uint64_t)k * 99,
							&err) == TK_OK, "%s", what);
			check(s, data, what);
			{
				/* a spooled stream keeps no bytes before the
				 * consumed position */
				uint8_t b[4];
				int rc = tk_source_read_at(s, 10, b, 4, &err);
				CHECK(rc == TK_E_IO,
				      "%s: a read before the spool gives %d",
				      what, rc);
			}
			tk_source_close(s);
		}
		if (c == 0) {
			check_stdin_at(path, data, 4099);
			check_cut_random(path, inlen);
			if (write_file(path, in, inlen) < 0)
				return 2;
		}
		snprintf(what, sizeof(what), "file %s cut", codec);
		check_cut(path, inlen, what);
		unlink(path);
	}
	rmdir(dir);
	free(data);
	free(gz);
	free(zs);
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok: random access on 9 transports, standard input at an "
	       "offset, 4 files cut while read, a pseudo-file\n");
	return 0;
}
