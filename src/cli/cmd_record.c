/*
 * cmd_record.c - `tracekit record SOURCE -o OUT`: a recorder stream
 * (docs/recorder.md, "Streaming") captured as it comes from standard
 * input ('-'), a TCP server ('tcp:HOST:PORT', as QEMU's -serial
 * tcp:HOST:PORT,server), a serial device (a tty: put in raw mode), a FIFO
 * or a file (with --follow, a file that grows), into OUT, a stream file
 * the ftstream reader reads at any moment.
 *
 * Only whole records from the first valid sync record on are written, at
 * once (one write(2) per read), so that OUT is always a stream cut at a
 * record boundary: a crash or a kill loses only the record being received.
 * A stretch that is no record sends the capture back to looking for a
 * sync (the stretch is dropped and counted).  At the end (the source ends,
 * or SIGINT/SIGTERM/SIGHUP) an end record says why (00 05 reason), which
 * `tracekit info OUT` shows as stream_end; a file without one was still
 * being written or was killed.  OUT is written in place (not through a
 * temporary name): it is meant to be read while it grows.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "tracekit/ftstream.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <sys/socket.h>
#include <termios.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { O_FOLLOW = 256 };

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit record [options] SOURCE -o OUT\n\n"
		"Captures a stream of the recorder (recorder/ built with TKREC_STREAM)\n"
		"from SOURCE: '-' (standard input), 'tcp:HOST:PORT' (a TCP server, such\n"
		"as QEMU's -serial tcp:127.0.0.1:PORT,server), a serial device (a tty:\n"
		"put in raw mode, its speed left as set), a FIFO, or a file.  Whole\n"
		"records from the first sync record on are written to OUT as they\n"
		"come, so OUT can be read (tracekit info, cat, stats) at any moment.\n"
		"The capture ends when SOURCE ends (a TCP server closes), or on\n"
		"SIGINT/SIGTERM/SIGHUP; an end record then says why ('tracekit info\n"
		"OUT' shows stream_end).  A stretch that is no record is dropped up to\n"
		"the next sync record and counted on stderr.\n\n"
		"options:\n"
		"  -o OUT          the stream file (created or truncated)\n"
		"  --follow        at the end of a file, wait for more (as tail -f)\n"
		"                  until a signal\n"
		"  -q, --quiet     no report on stderr\n"
		"  -h, --help      this help\n");
}

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
		fprintf(stderr, "%s: error: expected tcp:HOST:PORT\n", src);
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
		fprintf(stderr, "%s: error: %s\n", src, gai_strerror(rc));
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
		fprintf(stderr, "%s: error: %s\n", src, strerror(e));
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
	fprintf(stderr, "%s: error: cannot set the serial device to raw mode: %s\n", src,
		strerror(errno));
	return -1;
}

/* The source's descriptor, or -1 (a line on stderr). */
static int open_source(const char *src)
{
	int fd;

	if (strcmp(src, "-") == 0)
		return STDIN_FILENO;
	if (strncmp(src, "tcp:", 4) == 0)
		return tcp_connect(src, src + 4);
	fd = open(src, O_RDONLY | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "%s: error: %s\n", src, strerror(errno));
		return -1;
	}
	if (isatty(fd) && tty_raw(src, fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* write all of p[0..n) to fd: 0 or -1 */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, O_FOLLOW },
		CLI_END_LONGOPTS
	};
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	cli_args args = { { NULL }, 0 };
	const char *src = NULL, *outp = NULL;
	int c, follow = 0, quiet = 0, in = -1, out = -1, insync = 0, ret = EXIT_BAD;
	uint8_t *buf = NULL, end[3] = { 0, 5, TK_FTSTREAM_END_EOF };
	size_t cap = 1u << 16, len = 0, pos, keep;
	uint64_t written = 0, dropped = 0, syncs_seen = 0;
	struct sigaction sa;
	size_t i;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:qh", longopts, &args)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case O_FOLLOW: follow = 1; break;
		case 'q': quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 1 || !outp) {
		cli_usage_error("record", "expected SOURCE and -o OUT");
		return EXIT_BAD;
	}
	src = args.v[0];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &sa, NULL);
	in = open_source(src);
	if (in < 0)
		goto done;
	out = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "%s: error: %s\n", outp, strerror(errno));
		goto done;
	}
	buf = malloc(cap);
	if (!buf) {
		fprintf(stderr, "record: out of memory\n");
		goto done;
	}
	ret = EXIT_OK;
	while (!stop_signal) {
		ssize_t r = read(in, buf + len, cap - len);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: error: %s\n", src, strerror(errno));
			end[2] = TK_FTSTREAM_END_ERROR;
			ret = EXIT_BAD;
			break;
		}
		if (r == 0) {
			if (!follow)
				break;
			nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
			continue;
		}
		len += (size_t)r;
		/* the whole records of buf[0..len) go out; a cut one stays */
		pos = 0;
		for (;;) {
			long l;

			if (!insync) {
				size_t at = tk_ftstream_sync_find(buf, len, pos);

				if (at == len) {
					/* keep what may be the start of a sync */
					keep = len - pos < TK_FTSTREAM_SYNC_LEN ? len - pos
									   : TK_FTSTREAM_SYNC_LEN - 1;
					dropped += len - pos - keep;
					memmove(buf, buf + len - keep, keep);
					len = keep;
					pos = 0;
					break;
				}
				dropped += at - pos;
				memmove(buf, buf + at, len - at);
				len -= at;
				pos = 0;
				insync = 1;
			}
			l = tk_ftstream_record_len(buf + pos, len - pos);
			if (l > 0) {
				if (buf[pos] == 0 && buf[pos + 1] == 1)
					syncs_seen++;
				pos += (size_t)l;
				continue;
			}
			if (pos && write_all(out, buf, pos) < 0) {
				fprintf(stderr, "%s: error: %s\n", outp, strerror(errno));
				ret = EXIT_BAD;
				goto done;
			}
			written += pos;
			memmove(buf, buf + pos, len - pos);
			len -= pos;
			pos = 0;
			if (l == 0)
				break;
			/* no record: the capture looks for a sync again */
			insync = 0;
			dropped++;
			memmove(buf, buf + 1, len - 1);
			len--;
		}
		if (len == cap) {
			/* a record longer than the buffer cannot be: drop it */
			dropped += len;
			len = 0;
			insync = 0;
		}
	}
	if (stop_signal)
		end[2] = TK_FTSTREAM_END_SIGNAL;
	if (write_all(out, end, sizeof(end)) < 0) {
		fprintf(stderr, "%s: error: %s\n", outp, strerror(errno));
		ret = EXIT_BAD;
	}
	if (!quiet)
		fprintf(stderr,
			"record: %s: %llu bytes of records (%llu sync records), %llu bytes dropped, %zu bytes of a cut record left; %s\n",
			outp, (unsigned long long)written, (unsigned long long)syncs_seen,
			(unsigned long long)dropped, len,
			end[2] == TK_FTSTREAM_END_SIGNAL ? "stopped by a signal"
			: end[2] == TK_FTSTREAM_END_ERROR ? "a read error" : "the source ended");
done:
	if (out >= 0 && close(out) != 0 && ret == EXIT_OK) {
		fprintf(stderr, "%s: error: %s\n", outp, strerror(errno));
		ret = EXIT_BAD;
	}
	if (in > STDIN_FILENO)
		close(in);
	free(buf);
	return ret;
}
