/*
 * source.c - byte sources: a file, a memory block, a pipe (standard
 * input), each optionally gzip- or zstd-compressed (recognised by magic
 * bytes, not by name).
 *
 * Readers see a window of decoded bytes.  A memory block is the window
 * itself; the other transports are read with read() on the caller's
 * thread (a plain file in pieces small enough to stay in the cache, one per
 * fill) and decoded into a buffer that grows only to the longest record a
 * reader asks for.  No file is mapped: a mapped file that shrinks while it
 * is read kills the process (SIGBUS), where read() and pread() see its end
 * and the reader reports it.
 *
 * A reader that needs random access reads through tk_source_size() and
 * tk_source_read_at(): pread() on a plain file, the block itself in
 * memory, and an unlinked temporary file (the spool) that a pipe or a
 * compressed input is first decoded into.
 *
 * A fill hands the caller the new window (internal.h: the contract).  So
 * that a pointer kept across a fill cannot go unnoticed, a streamed window
 * moves at every fill where AddressSanitizer can see it: always for a
 * memory stream (tk_source_open_mem_stream(), a new buffer of just the
 * window's size), and in builds with AddressSanitizer for every streamed
 * source (a new buffer, the old one freed).
 */
#define _GNU_SOURCE
#include "internal.h"

#include "bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TK_ASAN 1
#endif
#endif
#ifdef TK_ASAN
#define MOVE_ON_FILL true
#else
#define MOVE_ON_FILL false
#endif

#define CHUNK (256u * 1024u)
#define MAX_WINDOW ((size_t)1 << 30)
/* plain files: the bytes one read() asks for, small enough that they are
 * still in the cache when the reader gets to them */
#define STREAM_READ ((size_t)128 << 10)
enum codec { CODEC_NONE, CODEC_GZIP, CODEC_ZSTD };

struct tk_source {
	char name[256];
	const char *transport;
	enum codec codec;
	/* raw input held in memory (the caller's block) */
	const uint8_t *raw;
	size_t raw_len, raw_pos;
	size_t read_max;      /* 0, or the most bytes one fill reads (a file) */
	/* a plain file: random access reads it with pread(), offsets from
	 * file_base (where the descriptor stood at open); file_size bytes
	 * from there at open, fd_read read so far */
	bool file;
	uint64_t file_base, file_size, fd_read;
	/* raw input of a memory stream (tk_source_open_mem_stream), handed
	 * out as a descriptor's would be, a piece per read */
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	size_t piece;         /* the most bytes one read hands out */
	uint64_t rng;         /* 0: pieces of `piece` bytes; else xorshift state */
	/* raw input read from a descriptor (or a memory stream) */
	int fd;
	int own_fd;
	uint8_t *rbuf;
	size_t rcap, rlen, rpos;
	uint64_t raw_off;     /* raw bytes consumed before rbuf[0] */
	bool raw_eof;
	/* decoded window */
	uint8_t *buf;
	size_t cap, start, end;
	bool move;            /* every fill moves the window to a new buffer */
	uint64_t base;        /* decoded offset of buf[0] */
	bool eof;
	/* decoders */
	z_stream z;
	bool z_init;
	ZSTD_DStream *zs;
	size_t zs_last;       /* last ZSTD_decompressStream result */
	bool gz_member_done;
	bool gz_padding;      /* zero bytes came after the last member */
	/* random access (tk_source_size()): the decoded bytes from spool_base
	 * on, in an unlinked temporary file, for the inputs that are neither
	 * in memory nor a plain file */
	bool random;
	int spool_fd;
	uint64_t spool_base, size;
};

static bool direct(const tk_source *s)
{
	return s->raw && s->codec == CODEC_NONE;
}

static enum codec sniff(const uint8_t *p, size_t n)
{
	uint32_t magic;

	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return CODEC_GZIP;
	if (n < 4)
		return CODEC_NONE;
	magic = tk_load_le32(p);
	/* a frame, or a skippable frame before it (as pzstd writes), which
	 * zstd's decoder skips */
	if (magic == 0xfd2fb528u || (magic & 0xfffffff0u) == 0x184d2a50u)
		return CODEC_ZSTD;
	return CODEC_NONE;
}

/* The length of a memory stream's next piece. */
static size_t next_piece(tk_source *s)
{
	uint64_t x = s->rng;

	if (!x)
		return s->piece;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return 1 + (size_t)(x % s->piece);
}

/* The size of plain file s now, from where it was opened; 0 if unknown. */
static uint64_t file_now(const tk_source *s)
{
	struct stat st;

	return fstat(s->fd, &st) == 0 && (uint64_t)st.st_size > s->file_base
		       ? (uint64_t)st.st_size - s->file_base : 0;
}

#define shrank(s, at, err) tk_err_set_at(err, TK_E_IO, (s)->name, at, \
	"the file ends here: it shrank while being read")

/* Up to n raw bytes from the descriptor (or the memory stream); *got 0 at
 * the end.  A file that ends before the size it had at open, and whose
 * size now says less, shrank (a pseudo-file may just say more than it
 * holds). */
static int read_fd(tk_source *s, uint8_t *dst, size_t n, size_t *got,
		   tk_error *err)
{
	ssize_t r;

	if (s->mem) {
		size_t k = next_piece(s);
		if (k > n)
			k = n;
		if (k > s->mem_len - s->mem_pos)
			k = s->mem_len - s->mem_pos;
		if (k)
			memcpy(dst, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		*got = k;
		return TK_OK;
	}
	for (;;) {
		r = read(s->fd, dst, n);
		if (r >= 0)
			break;
		if (errno != EINTR)
			return tk_err_set(err, TK_E_IO, s->name, 0, 0,
					  "read failed: %s", strerror(errno));
	}
	*got = (size_t)r;
	s->fd_read += (uint64_t)r;
	if (!r && n && s->fd_read < s->file_size && file_now(s) < s->file_size)
		return shrank(s, s->fd_read, err);
	return TK_OK;
}

/* Raw (still compressed) input available to a decoder. */
static int raw_avail(tk_source *s, const uint8_t **p, size_t *n, tk_error *err)
{
	if (s->raw) {
		*p = s->raw + s->raw_pos;
		*n = s->raw_len - s->raw_pos;
		return TK_OK;
	}
	if (s->rpos == s->rlen && !s->raw_eof) {
		size_t got = 0;
		int rc;
		s->raw_off += s->rlen;
		s->rpos = s->rlen = 0;
		rc = read_fd(s, s->rbuf, s->rcap, &got, err);
		if (rc < 0)
			return rc;
		s->rlen = got;
		if (!got)
			s->raw_eof = true;
	}
	*p = s->rbuf + s->rpos;
	*n = s->rlen - s->rpos;
	return TK_OK;
}

static void raw_consume(tk_source *s, size_t n)
{
	if (s->raw)
		s->raw_pos += n;
	else
		s->rpos += n;
}

static uint64_t raw_offset(const tk_source *s)
{
	return s->raw ? s->raw_pos : s->raw_off + s->rpos;
}

static int init_codec(tk_source *s, tk_error *err)
{
	if (s->codec == CODEC_GZIP) {
		memset(&s->z, 0, sizeof(s->z));
		/* 15 + 32: zlib or gzip header, detected automatically */
		if (inflateInit2(&s->z, 15 + 32) != Z_OK)
			return tk_err_nomem(err, s->name);
		s->z_init = true;
		s->transport = "gzip";
	} else if (s->codec == CODEC_ZSTD) {
		s->zs = ZSTD_createDStream();
		if (!s->zs)
			return tk_err_nomem(err, s->name);
		ZSTD_initDStream(s->zs);
		s->zs_last = 1;
		s->transport = "zstd";
	}
	return TK_OK;
}

static tk_source *source_new(const char *name)
{
	tk_source *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->fd = -1;
	s->spool_fd = -1;
	s->move = MOVE_ON_FILL;
	return s;
}

/* A pipe (or a memory stream): read the first bytes to see whether they
 * are compressed. */
static int open_stream(tk_source *s, tk_error *err)
{
	size_t got = 0;
	int rc;

	s->rcap = CHUNK;
	s->rbuf = malloc(s->rcap);
	if (!s->rbuf)
		return tk_err_nomem(err, s->name);
	memset(s->rbuf, 0, 4); /* the magic's bytes, defined for GCC's eye */
	TK_ANALYZER_ASSUME(s->rlen == 0); /* source_new() zeroes s */
	while (s->rlen < 4) {
		rc = read_fd(s, s->rbuf + s->rlen, s->rcap - s->rlen, &got,
			     err);
		if (rc < 0)
			return rc;
		if (!got) {
			s->raw_eof = true;
			break;
		}
		s->rlen += got;
	}
	s->codec = sniff(s->rbuf, s->rlen);
	return TK_OK;
}

int tk_source_open_mem(tk_source **out, const void *data, size_t len,
		       const char *name, tk_error *err)
{
	tk_source *s = source_new(name ? name : "<memory>");
	int rc;

	*out = NULL;
	if (!s)
		return tk_err_nomem(err, name);
	s->raw = data ? data : (const uint8_t *)"";
	s->raw_len = data ? len : 0;
	s->transport = "memory";
	s->codec = sniff(s->raw, s->raw_len);
	rc = init_codec(s, err);
	if (rc < 0) {
		tk_source_close(s);
		return rc;
	}
	*out = s;
	return TK_OK;
}

#ifdef TK_TEST_HOOKS
int tk_source_open_mem_stream(tk_source **out, const void *data, size_t len,
			      const char *name, size_t piece, uint64_t seed,
			      tk_error *err)
{
	tk_source *s = source_new(name ? name : "<memory>");
	int rc;

	*out = NULL;
	if (!s)
		return tk_err_nomem(err, name);
	s->mem = data ? data : (const uint8_t *)"";
	s->mem_len = data ? len : 0;
	s->piece = piece < 1 ? 1 : piece > CHUNK ? CHUNK : piece;
	s->rng = seed;
	s->move = true;
	s->transport = "memory-stream";
	rc = open_stream(s, err);
	if (rc == TK_OK)
		rc = init_codec(s, err);
	if (rc < 0) {
		tk_source_close(s);
		return rc;
	}
	*out = s;
	return TK_OK;
}
#endif

int tk_source_open(tk_source **out, const char *path, tk_error *err)
{
	tk_source *s;
	struct stat st;
	off_t at;
	int rc;

	*out = NULL;
	s = source_new(strcmp(path, "-") == 0 ? "<stdin>" : path);
	if (!s)
		return tk_err_nomem(err, path);
	if (strcmp(path, "-") == 0) {
		s->fd = 0;
		s->transport = "stdin";
	} else {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			rc = tk_err_set(err, TK_E_IO, path, 0, 0,
					"cannot open: %s", strerror(errno));
			goto fail;
		}
		s->own_fd = 1;
		s->transport = "file";
	}
	if (fstat(s->fd, &st) < 0) {
		rc = tk_err_set(err, TK_E_IO, s->name, 0, 0,
				"cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = tk_err_set(err, TK_E_IO, s->name, 0, 0, "is a directory");
		goto fail;
	}
	if (S_ISREG(st.st_mode) && (at = lseek(s->fd, 0, SEEK_CUR)) >= 0) {
		uint8_t magic[4];
		ssize_t got;
		s->file = true;
		s->file_base = (uint64_t)at;
		s->file_size = (uint64_t)st.st_size > s->file_base
				       ? (uint64_t)st.st_size - s->file_base : 0;
		s->read_max = STREAM_READ;
		/* a plain file is read straight into the window */
		while ((got = pread(s->fd, magic, sizeof(magic), at)) < 0 &&
		       errno == EINTR)
			;
		s->codec = got > 0 ? sniff(magic, (size_t)got) : CODEC_NONE;
	} else if (s->own_fd) {
		s->transport = "pipe"; /* a named pipe, a device */
	}
	rc = s->file && s->codec == CODEC_NONE ? TK_OK : open_stream(s, err);
	if (rc < 0)
		goto fail;
	rc = init_codec(s, err);
	if (rc < 0)
		goto fail;
	*out = s;
	return TK_OK;
fail:
	tk_source_close(s);
	return rc;
}

void tk_source_close(tk_source *s)
{
	if (!s)
		return;
	if (s->z_init)
		inflateEnd(&s->z);
	if (s->zs)
		ZSTD_freeDStream(s->zs);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	free(s->rbuf);
	free(s->buf);
	free(s);
}

const char *tk_source_name(const tk_source *s)
{
	return s->name;
}

const char *tk_source_transport(const tk_source *s)
{
	return s->transport;
}

tk_window tk_source_window(const tk_source *s)
{
	tk_window w;

	if (direct(s)) {
		w.n = s->raw_len - s->raw_pos;
		w.p = s->raw + s->raw_pos;
	} else {
		w.n = s->end - s->start;
		w.p = s->buf ? s->buf + s->start : (const uint8_t *)"";
	}
	return w;
}

void tk_source_consume(tk_source *s, size_t n)
{
	if (direct(s)) {
		s->raw_pos += n;
	} else {
		s->start += n;
	}
}

uint64_t tk_source_offset(const tk_source *s)
{
	if (direct(s))
		return s->raw_pos;
	return s->base + s->start;
}

bool tk_source_eof(const tk_source *s)
{
	return direct(s) || s->eof;
}

/*
 * Make room for at least `want` unconsumed bytes plus a chunk (a memory
 * stream: for the unconsumed bytes and one piece, whatever `want`).  The
 * unconsumed bytes go to the front, or, where the window moves at every
 * fill, to a new buffer (the old one is freed).
 */
static int make_room(tk_source *s, size_t want, tk_error *err)
{
	size_t keep = s->end - s->start, need, ncap;
	uint8_t *nb;

	need = want > keep ? want : keep;
	/* (a plain file has no limit, as a memory block has none) */
	if (need > MAX_WINDOW && !s->read_max)
		return tk_err_set_at(err, TK_E_RANGE, s->name, s->base + s->end,
				     "record longer than %zu bytes",
				     (size_t)MAX_WINDOW);
	if (s->mem) {
		ncap = keep + s->piece; /* both bounded: no overflow */
	} else if (!s->cap && s->file && s->codec == CODEC_NONE &&
		   s->file_size && s->file_size < CHUNK && need < CHUNK) {
		/* the first window of a small plain file: the file and a byte
		 * to see its end (it grows by chunks if the file does; a
		 * size of 0 may be a /proc file's, whose bytes are unknown) */
		ncap = need + (size_t)s->file_size + 1;
	} else {
		need += CHUNK;
		ncap = s->cap ? s->cap : CHUNK * 4;
		while (ncap < need) {
			if (ncap > SIZE_MAX / 2)
				return tk_err_nomem(err, s->name);
			ncap *= 2;
		}
	}
	if (s->move) {
		nb = malloc(ncap);
		if (!nb)
			return tk_err_nomem(err, s->name);
		if (keep)
			memcpy(nb, s->buf + s->start, keep);
		free(s->buf);
	} else {
		if (s->start)
			memmove(s->buf, s->buf + s->start, keep);
		s->base += s->start;
		s->start = 0;
		s->end = keep;
		nb = s->buf;
		if (ncap != s->cap) {
			nb = realloc(s->buf, ncap);
			if (!nb)
				return tk_err_nomem(err, s->name);
		}
	}
	s->base += s->start;
	s->start = 0;
	s->end = keep;
	s->buf = nb;
	s->cap = ncap;
	return TK_OK;
}

static int fill_plain_fd(tk_source *s, tk_error *err)
{
	size_t got = 0, n;
	int rc;

	/* bytes read ahead while sniffing come first */
	if (s->rpos < s->rlen) {
		n = s->rlen - s->rpos;
		if (n > s->cap - s->end)
			n = s->cap - s->end;
		memcpy(s->buf + s->end, s->rbuf + s->rpos, n);
		s->rpos += n;
		s->end += n;
		return 1;
	}
	if (s->raw_eof) {
		s->eof = true;
		return 0;
	}
	n = s->cap - s->end;
	if (s->read_max && n > s->read_max)
		n = s->read_max;
	rc = read_fd(s, s->buf + s->end, n, &got, err);
	if (rc < 0)
		return rc;
	if (!got) {
		s->eof = true;
		return 0;
	}
	s->end += got;
	return 1;
}

static int fill_gzip(tk_source *s, tk_error *err)
{
	const uint8_t *in;
	size_t n, before = s->end;
	int rc, zr;

	while (s->end == before) {
		rc = raw_avail(s, &in, &n, err);
		if (rc < 0)
			return rc;
		if (s->gz_member_done) {
			size_t z = 0;

			if (n == 0) {
				s->eof = true;
				return 0;
			}
			/* zero bytes after the last member (a tape's or a
			 * block device's padding): read as the end, as gzip
			 * reads them */
			while (z < n && in[z] == 0)
				z++;
			if (z) {
				raw_consume(s, z);
				s->gz_padding = true;
				continue;
			}
			if (s->gz_padding || sniff(in, n) != CODEC_GZIP)
				return tk_err_set_at(err, TK_E_PARSE, s->name,
						     raw_offset(s),
						     "trailing data after the gzip stream");
			inflateReset(&s->z);
			s->gz_member_done = false;
		}
		if (n == 0)
			return tk_err_set_at(err, TK_E_PARSE, s->name,
					     raw_offset(s),
					     "truncated gzip stream (unexpected end of compressed data)");
		s->z.next_in = (Bytef *)(uintptr_t)in;
		s->z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
		s->z.next_out = s->buf + s->end;
		s->z.avail_out = (uInt)(s->cap - s->end > UINT32_MAX
						? UINT32_MAX : s->cap - s->end);
		zr = inflate(&s->z, Z_NO_FLUSH);
		raw_consume(s, (size_t)(s->z.next_in - in));
		s->end = (size_t)(s->z.next_out - s->buf);
		if (zr == Z_STREAM_END) {
			s->gz_member_done = true;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return tk_err_set_at(err, TK_E_PARSE, s->name,
					     raw_offset(s),
					     "corrupt gzip stream: %s",
					     s->z.msg ? s->z.msg : "inflate failed");
		}
	}
	return 1;
}

static int fill_zstd(tk_source *s, tk_error *err)
{
	const uint8_t *in;
	size_t n, before = s->end, r;
	int rc;

	while (s->end == before) {
		ZSTD_inBuffer ib;
		ZSTD_outBuffer ob;
		rc = raw_avail(s, &in, &n, err);
		if (rc < 0)
			return rc;
		if (n == 0) {
			if (s->zs_last != 0)
				return tk_err_set_at(err, TK_E_PARSE, s->name,
						     raw_offset(s),
						     "truncated zstd stream (unexpected end of compressed data)");
			s->eof = true;
			return 0;
		}
		ib.src = in;
		ib.size = n;
		ib.pos = 0;
		ob.dst = s->buf + s->end;
		ob.size = s->cap - s->end;
		ob.pos = 0;
		r = ZSTD_decompressStream(s->zs, &ob, &ib);
		if (ZSTD_isError(r))
			return tk_err_set_at(err, TK_E_PARSE, s->name,
					     raw_offset(s),
					     "corrupt zstd stream: %s",
					     ZSTD_getErrorName(r));
		s->zs_last = r;
		raw_consume(s, ib.pos);
		s->end += ob.pos;
	}
	return 1;
}

static int fill(tk_source *s, size_t want, tk_error *err)
{
	int rc;

	if (direct(s) || s->eof)
		return 0;
	rc = make_room(s, want, err);
	if (rc < 0)
		return rc;
	switch (s->codec) {
	case CODEC_GZIP:
		return fill_gzip(s, err);
	case CODEC_ZSTD:
		return fill_zstd(s, err);
	default:
		return fill_plain_fd(s, err);
	}
}

int tk_source_fill(tk_source *s, size_t want, tk_window *win, tk_error *err)
{
	int rc = fill(s, want, err);

	*win = tk_source_window(s);
	return rc;
}

/* ---- random access ------------------------------------------------------ */

/* Write all n bytes to fd (again after EINTR and short writes). */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* An unlinked temporary file in TMPDIR (else /tmp) for the bytes of input
 * `name` (nothing to remove later, on any exit): its descriptor, or a
 * negative status with `err` filled; *dir: the directory, for the
 * messages of its writes (spool_write()). */
static int spool_create(const char *name, const char **dir, tk_error *err)
{
	char path[4096];
	int fd;

	*dir = getenv("TMPDIR");
	if (!*dir || !**dir)
		*dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/tracekit-spool-XXXXXX",
			     *dir) >= sizeof(path))
		return tk_err_set(err, TK_E_IO, name, 0, 0,
				  "TMPDIR too long for a temporary file");
	fd = mkstemp(path);
	if (fd < 0)
		return tk_err_set(err, TK_E_IO, name, 0, 0,
				  "cannot create a temporary file in %s: %s",
				  *dir, strerror(errno));
	unlink(path);
	return fd;
}

/* n bytes of input `name` appended to its temporary file fd in dir */
static int spool_write(int fd, const void *p, size_t n, const char *name,
		       const char *dir, tk_error *err)
{
	if (write_all(fd, p, n) < 0)
		return tk_err_set(err, TK_E_IO, name, 0, 0,
				  "cannot write a temporary file in %s: %s",
				  dir, strerror(errno));
	return TK_OK;
}

/* Decode the rest of a streamed or compressed input into an unlinked
 * temporary file: from the consumed position on, which becomes
 * spool_base. */
static int spool(tk_source *s, tk_error *err)
{
	const char *dir;
	tk_window w;
	uint64_t total = 0;
	int fd, rc;

	if ((fd = spool_create(s->name, &dir, err)) < 0)
		return fd;
	s->spool_base = tk_source_offset(s);
	w = tk_source_window(s);
	for (;;) {
		if (w.n) {
			if ((rc = spool_write(fd, w.p, w.n, s->name, dir, err)) < 0)
				goto fail;
			total += w.n;
			tk_source_consume(s, w.n);
		}
		rc = tk_source_fill(s, CHUNK, &w, err);
		if (rc < 0)
			goto fail;
		if (rc == 0 && !w.n)
			break;
	}
	s->spool_fd = fd;
	s->size = s->spool_base + total;
	return TK_OK;
fail:
	close(fd);
	return rc;
}

int tk_fd_spool(int fd, const char *name, int *copy, tk_error *err)
{
	const char *dir;
	uint8_t *buf = NULL;
	ssize_t n;
	int c = -1, rc;

	if (!copy)
		return tk_err_null(err, "tk_fd_spool", "copy pointer");
	*copy = -1;
	if (!name)
		name = fd == STDIN_FILENO ? "<stdin>" : "<input>";
	if (!(buf = malloc(CHUNK)))
		return tk_err_nomem(err, name);
	if ((rc = c = spool_create(name, &dir, err)) < 0)
		goto cleanup;
	for (;;) {
		n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = tk_err_set(err, TK_E_IO, name, 0, 0,
					"read failed: %s", strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		if ((rc = spool_write(c, buf, (size_t)n, name, dir, err)) < 0)
			goto cleanup;
	}
	if (lseek(c, 0, SEEK_SET) != 0 || dup2(c, fd) < 0) {
		rc = tk_err_set(err, TK_E_IO, name, 0, 0,
				"cannot read back a temporary file in %s: %s",
				dir, strerror(errno));
		goto cleanup;
	}
	*copy = c;
	c = -1;
	rc = TK_OK;
cleanup:
	if (c >= 0)
		close(c);
	free(buf);
	return rc;
}

int tk_source_size(tk_source *s, uint64_t *size, tk_error *err)
{
	int rc;

	if (!s->random) {
		uint64_t now = s->file ? file_now(s) : 0;
		if (direct(s)) {
			s->size = s->raw_len;
		} else if (s->file && s->codec == CODEC_NONE &&
			   now < s->file_size) {
			return shrank(s, now, err);
		} else if (s->file && s->codec == CODEC_NONE &&
			   now >= s->fd_read) {
			/* read where it is (a file whose size says less than
			 * was read, as a pseudo-file's may, is spooled); the
			 * window's buffer is not used again */
			s->size = now;
			free(s->buf);
			s->buf = NULL;
			s->base += s->start;
			s->cap = s->start = s->end = 0;
		} else {
			rc = spool(s, err);
			if (rc < 0)
				return rc;
		}
		s->random = true;
	}
	*size = s->size;
	return TK_OK;
}

int tk_source_read_at(tk_source *s, uint64_t off, void *buf, size_t n,
		      tk_error *err)
{
	uint8_t *dst = buf;
	uint64_t at;  /* in the descriptor's file */
	int fd;

	if (!s->random || off > s->size || n > s->size - off)
		return tk_err_set_at(err, TK_E_IO, s->name, off,
				     "input ends before byte %llu",
				     (unsigned long long)(off + n));
	if (!n)
		return TK_OK;
	if (s->spool_fd < 0 && !s->file) {
		/* a memory block */
		memcpy(dst, s->raw + off, n);
		return TK_OK;
	}
	fd = s->spool_fd >= 0 ? s->spool_fd : s->fd;
	if (s->spool_fd < 0) {
		at = s->file_base + off;
	} else {
		if (off < s->spool_base)
			return tk_err_set_at(err, TK_E_IO, s->name, off,
					     "bytes before %llu were consumed",
					     (unsigned long long)s->spool_base);
		at = off - s->spool_base;
	}
	while (n) {
		ssize_t r = pread(fd, dst, n, (off_t)at);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return tk_err_set_at(err, TK_E_IO, s->name, off,
					     "read failed: %s", strerror(errno));
		}
		if (r == 0)
			return shrank(s, off, err);
		dst += r;
		off += (uint64_t)r;
		at += (uint64_t)r;
		n -= (size_t)r;
	}
	return TK_OK;
}
