/*
 * sink.c - buffered output that appears all at once: a file is written under
 * a temporary name in its own folder and renamed over the target only on
 * commit, so a failed run leaves no partial output.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SINK_BUF (1u << 20)

int tk_sink_open(tk_sink *s, const char *path, tk_error *err)
{
	size_t n;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->buf = malloc(SINK_BUF);
	if (!s->buf)
		return tk_err_nomem(err, path);
	s->cap = SINK_BUF;
	if (strcmp(path, "-") == 0) {
		s->fd = 1;
		return TK_OK;
	}
	n = strlen(path);
	s->path = malloc(n + 1);
	s->tmp = malloc(n + 16);
	if (!s->path || !s->tmp) {
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	memcpy(s->path, path, n + 1);
	snprintf(s->tmp, n + 16, "%s.tmp-XXXXXX", path);
	s->fd = mkstemp(s->tmp);
	if (s->fd < 0) {
		int e = errno;
		free(s->tmp);
		s->tmp = NULL;
		tk_sink_abort(s);
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot create: %s",
				  strerror(e));
	}
	return TK_OK;
}

int tk_sink_open_dir(tk_sink *s, const char *path, tk_error *err)
{
	struct stat st;
	size_t n;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->is_dir = 1;
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
	s->tmp = malloc(n + 16);
	if (!s->path || !s->tmp) {
		tk_sink_abort(s);
		return tk_err_nomem(err, path);
	}
	memcpy(s->path, path, n);
	s->path[n] = 0;
	snprintf(s->tmp, n + 16, "%s.tmp-XXXXXX", s->path);
	if (!mkdtemp(s->tmp)) {
		int e = errno;
		free(s->tmp);
		s->tmp = NULL;
		tk_sink_abort(s);
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot create: %s",
				  strerror(e));
	}
	return TK_OK;
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

/* Commit of a directory: its mode, then a rename that never replaces. */
static int commit_dir(tk_sink *s, tk_error *err)
{
	mode_t mask = umask(0);

	umask(mask);
	if (chmod(s->tmp, 0777 & ~mask) < 0)
		return tk_err_set(err, TK_E_IO, s->path, 0, 0,
				  "cannot finish: %s", strerror(errno));
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

int tk_sink_flush(tk_sink *s, tk_error *err)
{
	size_t off = 0;

	if (s->failed)
		return TK_E_IO;
	while (off < s->len) {
		ssize_t w = write(s->fd, s->buf + off, s->len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			s->failed = 1;
			return tk_err_set(err, TK_E_IO,
					  s->path ? s->path : "<stdout>", 0, 0,
					  "write failed: %s", strerror(errno));
		}
		off += (size_t)w;
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
	mode_t mask;

	if (rc < 0)
		goto fail;
	if (s->is_dir) {
		if ((rc = commit_dir(s, err)) < 0)
			goto fail;
	} else if (s->path) {
		/* mkstemp made the file 0600; give it the usual mode */
		mask = umask(0);
		umask(mask);
		if (fchmod(s->fd, 0666 & ~mask) < 0 || close(s->fd) < 0) {
			s->fd = -1;
			rc = tk_err_set(err, TK_E_IO, s->path, 0, 0,
					"cannot finish: %s", strerror(errno));
			goto fail;
		}
		s->fd = -1;
		if (rename(s->tmp, s->path) < 0) {
			rc = tk_err_set(err, TK_E_IO, s->path, 0, 0,
					"cannot rename into place: %s",
					strerror(errno));
			goto fail;
		}
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
	if (s->path && s->fd >= 0)
		close(s->fd);
	if (s->tmp && s->is_dir)
		remove_tmp_dir(s->tmp);
	else if (s->tmp)
		unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
