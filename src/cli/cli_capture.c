/*
 * cli_capture.c - the capture of a recorder stream (docs/recorder.md,
 * "Streaming") into a stream file, fed the bytes of a source as they are
 * read: `tracekit record` and `tracekit live` (cli.h).
 *
 * Only whole records from the first valid sync record on are written, at
 * once (one write(2) per read), so that the file is always a stream cut at
 * a record boundary.  A stretch that is no record sends the capture back
 * to looking for a sync (the stretch is dropped and counted).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "tracekit/ftstream.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

/* A connection to the TCP server of "HOST:PORT": the socket, or -1 (a
 * line on stderr). */
static int tcp_connect(const char *src, const char *hp)
{
	struct addrinfo hints, *res = NULL, *a;
	const char *colon = strrchr(hp, ':');
	char host[256];
	size_t hl;
	int fd = -1, rc, e = 0;

	if (!colon || colon == hp || !colon[1] || (size_t)(colon - hp) >= sizeof(host)) {
		cli_msg("%s: error: expected tcp:HOST:PORT\n", src);
		return -1;
	}
	hl = (size_t)(colon - hp);
	memcpy(host, hp, hl);
	host[hl] = 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0) {
		cli_msg("%s: error: %s\n", src, gai_strerror(rc));
		return -1;
	}
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		cli_msg("%s: error: %s\n", src, strerror(e));
	return fd;
}

/* A tty in raw mode: every byte as it comes, none changed (no echo, no
 * line editing, no signal characters, 8 bits); its speed is kept.  0 or
 * -1 (a line on stderr). */
static int tty_raw(const char *src, int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) != 0)
		goto fail;
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR |
				 ICRNL | IXON | IXOFF);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8 | CREAD | CLOCAL;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t) != 0)
		goto fail;
	return 0;
fail:
	cli_msg("%s: error: cannot set the serial device to raw mode: %s\n", src,
		strerror(errno));
	return -1;
}

int cli_capture_open_source(const char *src)
{
	int fd;

	if (strcmp(src, "-") == 0)
		return STDIN_FILENO;
	if (strncmp(src, "tcp:", 4) == 0)
		return tcp_connect(src, src + 4);
	fd = open(src, O_RDONLY | O_NOCTTY);
	if (fd < 0) {
		cli_msg("%s: error: %s\n", src, strerror(errno));
		return -1;
	}
	if (isatty(fd) && tty_raw(src, fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* write all of p[0..n) to c->out: 0, or -1 after a line on stderr */
static int write_all(const cli_capture *c, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(c->out, p, n);

		if (w < 0 && errno == EINTR) {
			if (c->stop && *c->stop) {
				cli_msg("%s: error: the output takes no more; stopped by a signal\n",
					c->outp);
				return -1;
			}
			continue;
		}
		if (w <= 0) {
			cli_msg("%s: error: %s\n", c->outp,
				w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int cli_capture_init(cli_capture *c, int out, const char *outp)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->outp = outp;
	c->cap = 1u << 16;
	c->buf = malloc(c->cap);
	if (!c->buf) {
		cli_msg("tracekit: out of memory\n");
		return -1;
	}
	return 0;
}

uint8_t *cli_capture_space(cli_capture *c, size_t *n)
{
	*n = c->cap - c->len;
	return c->buf + c->len;
}

int cli_capture_took(cli_capture *c, size_t n)
{
	uint8_t *buf = c->buf;
	size_t pos = 0, keep;

	c->len += n;
	/* the whole records of buf[0..len) go out; a cut one stays */
	for (;;) {
		long l;

		if (!c->insync) {
			size_t at = tk_ftstream_sync_find(buf, c->len, pos);

			if (at == c->len) {
				/* keep what may be the start of a sync */
				keep = c->len - pos < TK_FTSTREAM_SYNC_LEN ? c->len - pos
									   : TK_FTSTREAM_SYNC_LEN - 1;
				c->dropped += c->len - pos - keep;
				memmove(buf, buf + c->len - keep, keep);
				c->len = keep;
				pos = 0;
				break;
			}
			c->dropped += at - pos;
			memmove(buf, buf + at, c->len - at);
			c->len -= at;
			pos = 0;
			c->insync = 1;
		}
		l = tk_ftstream_record_len(buf + pos, c->len - pos);
		if (l > 0) {
			if (buf[pos] == 0 && buf[pos + 1] == 1)
				c->syncs++;
			pos += (size_t)l;
			continue;
		}
		if (pos && write_all(c, buf, pos) < 0)
			return -1;
		c->written += pos;
		memmove(buf, buf + pos, c->len - pos);
		c->len -= pos;
		pos = 0;
		if (l == 0)
			break;
		/* no record: the capture looks for a sync again */
		c->insync = 0;
		c->dropped++;
		memmove(buf, buf + 1, c->len - 1);
		c->len--;
	}
	if (c->len == c->cap) {
		/* a record longer than the buffer cannot be: drop it */
		c->dropped += c->len;
		c->len = 0;
		c->insync = 0;
	}
	return 0;
}

int cli_capture_end(cli_capture *c, unsigned reason)
{
	uint8_t end[3] = { 0, 5, (uint8_t)reason };

	return write_all(c, end, sizeof(end));
}

void cli_capture_free(cli_capture *c)
{
	free(c->buf);
	c->buf = NULL;
}
