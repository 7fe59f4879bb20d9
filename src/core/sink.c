/*
 * sink.c - buffered output that appears all at once: a file is written under
 * a temporary name in its own folder and renamed over the target only on
 * commit, so a failed run leaves no partial output.  The temporaries alive
 * are listed in a table (any number, from any thread) that a signal
 * handler can empty (tk_temp_remove_all()), and a name ending in .gz or
 * .zst is compressed as the buffer is flushed.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define SINK_BUF (1u << 20)

/* mkstemp() and mkdtemp() make 0600 and 0700, and learning the umask to
 * widen them takes umask(0), which another thread's file would see: the
 * temporary is made here with the usual 0666 and 0777 instead, the kernel
 * applying the umask.  The template ends in six X. */
/*
 * The temporary name of an output `path`: ".NAME.tmp-XXXXXX" in the same
 * folder, hidden, so that a file left by a crash (SIGKILL: nothing can
 * remove it) is skipped by the engines that read a folder of files
 * (Spark and Hadoop skip a name that starts with '.') and by globs.
 * `tmp` holds strlen(path) + TEMP_EXTRA bytes.
 */
#define TEMP_EXTRA 17
static void temp_name(char *tmp, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t dir = base ? (size_t)(base - path) + 1 : 0;

	memcpy(tmp, path, dir);
	snprintf(tmp + dir, strlen(path) - dir + TEMP_EXTRA, ".%s.tmp-XXXXXX", path + dir);
}

static int make_temp(char *tmpl, int is_dir)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic unsigned long counter;
	char *x = tmpl + strlen(tmpl) - 6;
	struct timespec ts;
	unsigned long v;
	int tries, i, fd;

	for (tries = 0; tries < 1000; tries++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (unsigned long)ts.tv_nsec * 2654435761u ^
		    (unsigned long)getpid() << 16 ^ atomic_fetch_add(&counter, 1);
		for (i = 0; i < 6; i++, v /= 62)
			x[i] = set[v % 62];
		if (is_dir)
			fd = mkdir(tmpl, 0777);
		else
			fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* ---- the table of live temporaries --------------------------------------
 *
 * A signal handler may read it at any moment, so it holds copies of the
 * paths in fixed arrays (no pointer to memory that free() may take back),
 * and an entry is used only once its path is complete.  The signals the
 * handler is meant for are blocked while an entry changes and while the
 * file it names is created, renamed or removed: a handler on that thread
 * never sees a half-made entry, nor a file that exists without its entry.
 *
 * Writers may be opened and closed on several threads at once: a mutex
 * orders the changes (the handler takes no lock: it reads `used` with
 * acquire order, and an entry's path is written before `used` is set with
 * release order).  The table has no limit: it is a list of blocks that
 * are added as needed and never freed or moved, so that the handler can
 * walk it at any moment.  A handler that runs on another thread while one
 * creates a file may still come between the file and its entry (two
 * system calls): that file is left.
 */
#define TEMP_BLOCK 16

typedef struct temp_entry {
	atomic_int used;
	int is_dir;
	/* a directory's files <prefix>0 .. <prefix>(series - 1) */
	atomic_int series;
	const void *owner;  /* the sink whose entry it is */
	char prefix[16];
	char path[PATH_MAX];
} temp_entry;

typedef struct temp_block {
	temp_entry e[TEMP_BLOCK];
	struct temp_block *_Atomic next;
} temp_block;

#if ATOMIC_INT_LOCK_FREE != 2 || ATOMIC_POINTER_LOCK_FREE != 2
#error "the table of temporaries needs lock-free atomics (async-signal-safe)"
#endif

static temp_block temps;
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Entry i of the table, or NULL past its blocks. */
static temp_entry *temp_at(int i)
{
	temp_block *b = &temps;

	if (i < 0)
		return NULL;
	for (; b && i >= TEMP_BLOCK; i -= TEMP_BLOCK)
		b = atomic_load_explicit(&b->next, memory_order_acquire);
	return b ? &b->e[i] : NULL;
}

/* With the signals blocked: an entry of sink `owner` for `path`, or -1
 * (out of memory, or a path longer than PATH_MAX: left to abort, not to a
 * signal). */
static int temp_add(const void *owner, const char *path, int is_dir)
{
	size_t n = strlen(path);
	temp_block *b = &temps, *nb;
	int i, base = 0, slot = -1;

	if (n >= PATH_MAX)
		return -1;
	pthread_mutex_lock(&temps_lock);
	for (;;) {
		for (i = 0; i < TEMP_BLOCK; i++) {
			temp_entry *e = &b->e[i];
			if (atomic_load_explicit(&e->used, memory_order_relaxed))
				continue;
			memcpy(e->path, path, n + 1);
			e->is_dir = is_dir;
			e->owner = owner;
			atomic_store_explicit(&e->series, 0, memory_order_relaxed);
			atomic_store_explicit(&e->used, 1, memory_order_release);
			slot = base + i;
			goto out;
		}
		nb = atomic_load_explicit(&b->next, memory_order_relaxed);
		if (!nb) {
			if (base > INT_MAX - 2 * TEMP_BLOCK ||
			    !(nb = calloc(1, sizeof(*nb))))
				goto out;
			atomic_store_explicit(&b->next, nb, memory_order_release);
		}
		b = nb;
		base += TEMP_BLOCK;
	}
out:
	pthread_mutex_unlock(&temps_lock);
	return slot;
}

/* With the signals blocked: forget the entry, unless tk_temp_remove_all()
 * emptied it and another sink has it now. */
static void temp_forget(const void *owner, int *slot)
{
	temp_entry *e;

	if (*slot < 0)
		return;
	pthread_mutex_lock(&temps_lock);
	e = temp_at(*slot);
	if (e && e->owner == owner)
		atomic_store_explicit(&e->used, 0, memory_order_release);
	pthread_mutex_unlock(&temps_lock);
	*slot = -1;
}

/* the files of directory entry e's series (async-signal-safe) */
static void remove_series(const temp_entry *e)
{
	char p[PATH_MAX + 32], d[12];
	size_t n = strlen(e->path), m = strlen(e->prefix), k, nd;
	int j, series = atomic_load_explicit(&e->series, memory_order_acquire);

	memcpy(p, e->path, n);
	p[n++] = '/';
	memcpy(p + n, e->prefix, m);
	n += m;
	for (j = 0; j < series; j++) {
		unsigned v = (unsigned)j;
		nd = 0;
		do
			d[nd++] = (char)('0' + v % 10);
		while ((v /= 10) > 0);
		for (k = 0; k < nd; k++)
			p[n + k] = d[nd - 1 - k];
		p[n + nd] = '\0';
		unlink(p);
	}
}

void tk_temp_remove_all(void)
{
	temp_block *b;
	int pass, i, saved = errno;

	/* files first, then the directories that held them */
	for (pass = 0; pass < 2; pass++)
		for (b = &temps; b;
		     b = atomic_load_explicit(&b->next, memory_order_acquire))
			for (i = 0; i < TEMP_BLOCK; i++) {
				temp_entry *e = &b->e[i];
				if (!atomic_load_explicit(&e->used,
							  memory_order_acquire) ||
				    e->is_dir != pass)
					continue;
				if (pass)
					remove_series(e);
				if (pass)
					rmdir(e->path);
				else
					unlink(e->path);
				atomic_store_explicit(&e->used, 0,
						      memory_order_release);
			}
	errno = saved;
}

static void sink_init(tk_sink *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	for (i = 0; i < sizeof(s->temps) / sizeof(s->temps[0]); i++)
		s->temps[i] = -1;
}

int tk_sink_compression(const char *path)
{
	size_t n = strlen(path);

	if (n > 3 && tk_ascii_casecmp(path + n - 3, 3, ".gz") == 0)
		return TK_SINK_GZIP;
	if (n > 4 && tk_ascii_casecmp(path + n - 4, 4, ".zst") == 0)
		return TK_SINK_ZSTD;
	return TK_SINK_PLAIN;
}

static int z_start(tk_sink *s, tk_error *err)
{
	if (s->zkind == TK_SINK_GZIP) {
		z_stream *z = calloc(1, sizeof(*z));
		if (!z)
			return tk_err_nomem(err, s->path);
		/* 15 + 16: a gzip stream (header and CRC), not a zlib one */
		if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16,
				 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			return tk_err_nomem(err, s->path);
		}
		s->z = z;
		s->zcap = SINK_BUF;
	} else {
		ZSTD_CCtx *c = ZSTD_createCCtx();
		if (!c)
			return tk_err_nomem(err, s->path);
		s->z = c;
		if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel,
							 ZSTD_CLEVEL_DEFAULT)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)))
			return tk_err_set(err, TK_E_IO, s->path, 0, 0,
					  "cannot set up the zstd compressor");
		s->zcap = ZSTD_CStreamOutSize();
	}
	s->zbuf = malloc(s->zcap);
	if (!s->zbuf)
		return tk_err_nomem(err, s->path);
	return TK_OK;
}

static void z_free(tk_sink *s)
{
	if (s->z && s->zkind == TK_SINK_GZIP) {
		deflateEnd(s->z);
		free(s->z);
	} else if (s->z) {
		ZSTD_freeCCtx(s->z);
	}
	s->z = NULL;
	free(s->zbuf);
	s->zbuf = NULL;
}

/* make the temporary file (or directory) s->tmp and list it, signals
 * blocked between the two; on failure the sink is given up */
static int make_listed(tk_sink *s, const char *path, int is_dir, tk_error *err)
{
	sigset_t old;
	int rc;

	block_signals(&old);
	rc = make_temp(s->tmp, is_dir);
	if (rc >= 0) {
		if (!is_dir)
			s->fd = rc;
		s->temps[0] = temp_add(s, s->tmp, is_dir);
	}
	restore_signals(&old);
	if (rc < 0) {
		int e = errno;
		free(s->tmp);
		s->tmp = NULL;
		tk_sink_abort(s);
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot create: %s",
				  strerror(e));
	}
	if (s->temps[0] < 0) {
		/* not listed for tk_temp_remove_all(): no such file is made */
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	return TK_OK;
}

/* a path to an open file of this process (/dev/stdout, /dev/fd/3,
 * /proc/self/fd/1) */
static int fd_link(const char *path)
{
	return strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0 ||
	       strncmp(path, "/dev/fd/", 8) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/*
 * A path that names no regular file (a device such as /dev/null or
 * /dev/stdout, a FIFO), or a path to an open file of this process
 * (fd_link(): /dev/stdout when it leads to a regular file): written to as
 * it is, like standard output; a temporary
 * renamed over it would put a file in place of the device or the link.  A
 * format that writes its file itself (compress 0: SQLite) cannot.
 */
static int open_direct(tk_sink *s, const char *path, int compress,
		       tk_error *err)
{
	int rc;

	if (!compress) {
		tk_sink_abort(s);
		return tk_err_set(err, TK_E_USAGE, path, 0, 0,
				  "names no regular file (a device, a pipe): this format writes a file of its own");
	}
	s->direct = 1;
	s->path = strdup(path);
	if (!s->path) {
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	if ((s->zkind = tk_sink_compression(path)) != TK_SINK_PLAIN &&
	    (rc = z_start(s, err)) < 0) {
		tk_sink_abort(s);
		return rc;
	}
	/* appending: a regular file behind /dev/stdout is reopened at its
	 * start (a new open file description), where `>>` wants its end */
	s->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (s->fd < 0) {
		int e = errno;
		tk_sink_abort(s);
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open: %s",
				  strerror(e));
	}
	return TK_OK;
}

/* The name a symbolic link leads to in the end, when that name does not
 * exist yet (realpath() fails there): each link's target, relative ones
 * read from the link's directory, until a name that is no link; NULL when
 * that is not found (a loop, an error). */
static char *dangling_target(const char *path)
{
	char *cur = strdup(path), *next = NULL;
	char buf[PATH_MAX];
	struct stat st;
	int hops;

	for (hops = 0; cur && hops < 40; hops++) {
		ssize_t k = readlink(cur, buf, sizeof(buf) - 1);
		const char *slash = strrchr(cur, '/');
		size_t dir;

		if (k <= 0)
			break;
		buf[k] = '\0';
		dir = (buf[0] == '/' || !slash) ? 0 : (size_t)(slash - cur) + 1;
		next = malloc(dir + (size_t)k + 1);
		if (!next)
			break;
		memcpy(next, cur, dir);
		memcpy(next + dir, buf, (size_t)k + 1);
		free(cur);
		cur = next;
		next = NULL;
		if (lstat(cur, &st) != 0)
			return cur;     /* the name to create */
		if (!S_ISLNK(st.st_mode))
			break;          /* exists: realpath() had its say */
	}
	free(cur);
	return NULL;
}

static int sink_open_file(tk_sink *s, const char *path, int compress,
			  tk_error *err)
{
	struct stat st;
	size_t n = strlen(path);
	char *real = NULL;
	int rc;

	sink_init(s);
	if (!*path)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "the output's name is empty");
	/* found now, not at the rename once all is written */
	if (strcmp(path, "-") != 0 && n &&
	    (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))))
		return tk_err_set(err, TK_E_IO, path, 0, 0,
				  "names a directory (this format writes a file)");
	s->buf = malloc(SINK_BUF);
	if (!s->buf)
		return tk_err_nomem(err, path);
	s->cap = SINK_BUF;
	if (strcmp(path, "-") == 0) {
		s->fd = 1;
		return TK_OK;
	}
	if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || fd_link(path)))
		return open_direct(s, path, compress, err);
	/* a symbolic link to a regular file: the file it leads to is
	 * replaced, the link kept (a temporary renamed over the link would
	 * put a file in its place); messages name `path` as given */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    ((real = realpath(path, NULL)) != NULL ||
	     (real = dangling_target(path)) != NULL))
		n = strlen(real);
	s->path = malloc(n + 1);
	s->tmp = malloc(n + TEMP_EXTRA);
	if (!s->path || !s->tmp) {
		free(real);
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	memcpy(s->path, real ? real : path, n + 1);
	free(real);
	if (compress && (s->zkind = tk_sink_compression(path)) != TK_SINK_PLAIN &&
	    (rc = z_start(s, err)) < 0) {
		tk_sink_abort(s);
		return rc;
	}
	temp_name(s->tmp, s->path);
	return make_listed(s, path, 0, err);
}

int tk_sink_open(tk_sink *s, const char *path, tk_error *err)
{
	return sink_open_file(s, path, 1, err);
}

int tk_sink_open_raw(tk_sink *s, const char *path, tk_error *err)
{
	return sink_open_file(s, path, 0, err);
}

int tk_sink_open_dir(tk_sink *s, const char *path, tk_error *err)
{
	struct stat st;
	size_t n;

	sink_init(s);
	s->is_dir = 1;
	if (!*path)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "the output's name is empty");
	if (strcmp(path, "-") == 0)
		return tk_err_set(err, TK_E_USAGE, "<stdout>", 0, 0,
				  "this format writes a directory: give its path, not standard output");
	if (lstat(path, &st) == 0)
		return tk_err_set(err, TK_E_IO, path, 0, 0,
				  "already exists (a directory output is never written over)");
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--; /* "out/" names "out" */
	s->path = malloc(n + 1);
	s->tmp = malloc(n + TEMP_EXTRA);
	if (!s->path || !s->tmp) {
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	memcpy(s->path, path, n);
	s->path[n] = 0;
	temp_name(s->tmp, s->path);
	return make_listed(s, path, 1, err);
}

int tk_sink_track(tk_sink *s, const char *file)
{
	sigset_t old;
	size_t i;
	int rc = TK_E_IO;

	block_signals(&old);
	for (i = 1; i < sizeof(s->temps) / sizeof(s->temps[0]); i++)
		if (s->temps[i] < 0) {
			s->temps[i] = temp_add(s, file, 0);
			rc = s->temps[i] >= 0 ? TK_OK : TK_E_IO;
			break;
		}
	restore_signals(&old);
	return rc;
}

int tk_sink_track_series(tk_sink *s, const char *prefix, uint32_t n)
{
	size_t m = strlen(prefix);
	temp_entry *e;
	sigset_t old;
	int rc = TK_E_IO;

	if (!s->is_dir || m >= sizeof(e->prefix))
		return TK_E_IO;
	block_signals(&old);
	pthread_mutex_lock(&temps_lock);
	e = temp_at(s->temps[0]);
	if (e && e->owner == s &&
	    atomic_load_explicit(&e->used, memory_order_relaxed)) {
		/* the prefix before the count that makes it read */
		memcpy(e->prefix, prefix, m + 1);
		if (n > (uint32_t)atomic_load_explicit(&e->series,
						       memory_order_relaxed))
			atomic_store_explicit(&e->series,
					      n > INT_MAX ? INT_MAX : (int)n,
					      memory_order_release);
		rc = TK_OK;
	}
	pthread_mutex_unlock(&temps_lock);
	restore_signals(&old);
	return rc;
}

static void forget_temps(tk_sink *s)
{
	size_t i;

	for (i = 0; i < sizeof(s->temps) / sizeof(s->temps[0]); i++)
		temp_forget(s, &s->temps[i]);
}

/* Remove the files of the temporary directory, then it. */
static void remove_tmp_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int dfd;

	if (d) {
		dfd = dirfd(d);
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dfd, de->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* Commit of a directory: a rename that never replaces. */
static int commit_dir(tk_sink *s, tk_error *err)
{
	if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->path,
		      RENAME_NOREPLACE) < 0) {
		struct stat st;
		if (errno != EINVAL && errno != ENOSYS)
			return tk_err_set(err, TK_E_IO, s->path, 0, 0,
					  "cannot rename into place: %s",
					  strerror(errno));
		/* a file system without RENAME_NOREPLACE */
		if (lstat(s->path, &st) == 0)
			return tk_err_set(err, TK_E_IO, s->path, 0, 0,
					  "cannot rename into place: %s",
					  strerror(EEXIST));
		if (rename(s->tmp, s->path) < 0)
			return tk_err_set(err, TK_E_IO, s->path, 0, 0,
					  "cannot rename into place: %s",
					  strerror(errno));
	}
	free(s->tmp);
	s->tmp = NULL;
	return TK_OK;
}

/* The output has failed (msg says how): every later write, flush and the
 * commit give TK_E_IO with msg again. */
static int sink_failed(tk_sink *s, tk_error *err, const char *msg)
{
	s->failed = 1;
	snprintf(s->fail_msg, sizeof(s->fail_msg), "%s", msg);
	return tk_err_set(err, TK_E_IO, s->path ? s->path : "<stdout>", 0, 0,
			  "%s", s->fail_msg);
}

static int write_out(tk_sink *s, const void *p, size_t n, tk_error *err)
{
	char msg[96];

	const char *b = p;
	size_t off = 0;

	while (off < n) {
		ssize_t w = write(s->fd, b + off, n - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(msg, sizeof(msg), "write failed: %s",
				 strerror(errno));
			return sink_failed(s, err, msg);
		}
		off += (size_t)w;
	}
	return TK_OK;
}

/* Compress n bytes at p (and end the stream if `end`), writing what comes
 * out of the compressor. */
static int z_feed(tk_sink *s, const void *p, size_t n, int end, tk_error *err)
{
	int rc;

	if (s->zkind == TK_SINK_GZIP) {
		z_stream *z = s->z;
		int zr;
		/* avail_in is 32 bits: the buffer (1 MiB) always fits */
		z->next_in = (Bytef *)(uintptr_t)p;
		z->avail_in = (uInt)n;
		do {
			z->next_out = s->zbuf;
			z->avail_out = (uInt)s->zcap;
			zr = deflate(z, end ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR) {
				return sink_failed(s, err,
						   "gzip compression failed");
			}
			if ((rc = write_out(s, s->zbuf, s->zcap - z->avail_out,
					    err)) < 0)
				return rc;
		} while (z->avail_in || z->avail_out == 0 ||
			 (end && zr != Z_STREAM_END));
	} else {
		ZSTD_inBuffer in = { p, n, 0 };
		size_t left;
		do {
			ZSTD_outBuffer out = { s->zbuf, s->zcap, 0 };
			left = ZSTD_compressStream2(s->z, &out, &in,
						    end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left)) {
				char msg[96];
				snprintf(msg, sizeof(msg),
					 "zstd compression failed: %s",
					 ZSTD_getErrorName(left));
				return sink_failed(s, err, msg);
			}
			if ((rc = write_out(s, s->zbuf, out.pos, err)) < 0)
				return rc;
		} while (in.pos < in.size || (end && left));
	}
	return TK_OK;
}

int tk_sink_flush(tk_sink *s, tk_error *err)
{
	int rc;

	if (s->failed)
		return tk_err_set(err, TK_E_IO, s->path ? s->path : "<stdout>",
				  0, 0, "%s", s->fail_msg);
	if (s->len) {
		rc = s->zkind ? z_feed(s, s->buf, s->len, 0, err)
			      : write_out(s, s->buf, s->len, err);
		if (rc < 0)
			return rc;
	}
	s->len = 0;
	return TK_OK;
}

int tk_sink_write(tk_sink *s, const void *p, size_t n, tk_error *err)
{
	const char *src = p;

	if (s->is_dir && n)
		return tk_err_set(err, TK_E_IO, s->path, 0, 0,
				  "internal error: bytes written to a directory output");
	while (n) {
		size_t room = s->cap - s->len, k;
		if (!room) {
			int rc = tk_sink_flush(s, err);
			if (rc < 0)
				return rc;
			room = s->cap;
		}
		k = n < room ? n : room;
		memcpy(s->buf + s->len, src, k);
		s->len += k;
		src += k;
		n -= k;
	}
	return TK_OK;
}

int tk_sink_commit(tk_sink *s, tk_error *err)
{
	int rc = tk_sink_flush(s, err);
	sigset_t old;

	if (rc < 0)
		goto fail;
	if (s->zkind && (rc = z_feed(s, NULL, 0, 1, err)) < 0)
		goto fail;
	if (s->is_dir) {
		block_signals(&old);
		rc = commit_dir(s, err);
		if (rc >= 0)
			forget_temps(s);
		restore_signals(&old);
		if (rc < 0)
			goto fail;
	} else if (s->direct) {
		int e = close(s->fd) < 0 ? errno : 0;
		s->fd = -1;
		if (e) {
			rc = tk_err_set(err, TK_E_IO, s->path, 0, 0,
					"cannot finish: %s", strerror(e));
			goto fail;
		}
	} else if (s->path) {
		/* made with the usual mode (make_temp()); a file it replaces
		 * gives it its own permission bits */
		struct stat st;
		int bad = stat(s->path, &st) == 0 && S_ISREG(st.st_mode) &&
			  fchmod(s->fd, st.st_mode & 0777) < 0;
		int e = errno;
		if (close(s->fd) < 0 && !bad) {
			bad = 1;
			e = errno;
		}
		s->fd = -1;
		if (bad) {
			rc = tk_err_set(err, TK_E_IO, s->path, 0, 0,
					"cannot finish: %s", strerror(e));
			goto fail;
		}
		block_signals(&old);
		if (rename(s->tmp, s->path) < 0) {
			e = errno;
			restore_signals(&old);
			rc = tk_err_set(err, TK_E_IO, s->path, 0, 0,
					"cannot rename into place: %s",
					strerror(e));
			goto fail;
		}
		forget_temps(s);
		restore_signals(&old);
		free(s->tmp);
		s->tmp = NULL;
	}
	tk_sink_abort(s);
	return TK_OK;
fail:
	tk_sink_abort(s);
	return rc;
}

void tk_sink_abort(tk_sink *s)
{
	sigset_t old;

	if (s->path && s->fd >= 0)
		close(s->fd);
	block_signals(&old);
	if (s->tmp && s->is_dir)
		remove_tmp_dir(s->tmp);
	else if (s->tmp)
		unlink(s->tmp);
	forget_temps(s);
	restore_signals(&old);
	z_free(s);
	free(s->tmp);
	free(s->path);
	free(s->buf);
	sink_init(s);
}
