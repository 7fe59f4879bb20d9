/*
 * cmd_record.c - `tracekit record SOURCE -o OUT`: a recorder stream
 * (docs/recorder.md, "Streaming") captured as it comes from standard
 * input ('-'), a TCP server ('tcp:HOST:PORT', as QEMU's -serial
 * tcp:HOST:PORT,server), a serial device (a tty: put in raw mode), a FIFO
 * or a file (with --follow, a file that grows), into OUT, a stream file
 * the ftstream reader reads at any moment.
 *
 * The capture (cli_capture.c) writes only whole records from the first
 * valid sync record on, at once (one write(2) per read), so that OUT is
 * always a stream cut at a record boundary: a crash or a kill loses only
 * the record being received.  At the end (the source ends,
 * or SIGINT/SIGTERM/SIGHUP) an end record says why (00 05 reason), which
 * `tracekit info OUT` shows as stream_end; a file without one was still
 * being written or was killed.  OUT is written in place (not through a
 * temporary name): it is meant to be read while it grows.
 */
#define _GNU_SOURCE  /* ppoll */
#include "cli.h"
#include "tracekit/ftstream.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, O_FOLLOW },
		CLI_END_LONGOPTS
	};
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	cli_args args = { { NULL }, 0 };
	const char *src = NULL, *outp = NULL;
	int c, follow = 0, quiet = 0, in = -1, out = -1, ret = EXIT_BAD, have_cap = 0;
	unsigned reason = TK_FTSTREAM_END_EOF;
	cli_capture cap;
	struct sigaction sa;
	sigset_t stopset, oldmask, waitmask;
	struct stat sin, sout;
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
	/*
	 * Once SOURCE and OUT are open, the stop signals are blocked but in
	 * ppoll() and while the bytes read are written: one that comes
	 * between the check of stop_signal and the wait for the source ends
	 * the wait at once, and one that comes while OUT does not take the
	 * bytes ends the write (the capture's stop flag).
	 */
	sigemptyset(&stopset);
	for (i = 0; i < 3; i++)
		sigaddset(&stopset, stop_sigs[i]);
	sigprocmask(SIG_BLOCK, NULL, &oldmask);
	waitmask = oldmask;
	for (i = 0; i < 3; i++)
		sigdelset(&waitmask, stop_sigs[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &sa, NULL);
	in = cli_capture_open_source(src);
	if (in < 0)
		goto done;
	/* OUT is truncated: it must not be SOURCE */
	if (fstat(in, &sin) == 0 && stat(outp, &sout) == 0 && sin.st_dev == sout.st_dev &&
	    sin.st_ino == sout.st_ino) {
		cli_msg("%s: error: the output is the source %s\n", outp, src);
		goto done;
	}
	out = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		cli_msg("%s: error: %s\n", outp, strerror(errno));
		goto done;
	}
	if (cli_capture_init(&cap, out, outp) < 0)
		goto done;
	have_cap = 1;
	cap.stop = &stop_signal;
	/* (opening SOURCE and OUT, which may wait for a FIFO's other end,
	 * is left to a signal, which makes open() fail) */
	sigprocmask(SIG_BLOCK, &stopset, NULL);
	ret = EXIT_OK;
	while (!stop_signal) {
		struct pollfd pfd = { in, POLLIN, 0 };
		size_t room;
		uint8_t *at;
		ssize_t r;
		int took;

		/* the one wait for the source (a file is always ready) */
		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			cli_msg("%s: error: poll: %s\n", src, strerror(errno));
			reason = TK_FTSTREAM_END_ERROR;
			ret = EXIT_BAD;
			break;
		}
		at = cli_capture_space(&cap, &room);
		r = read(in, at, room);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			cli_msg("%s: error: %s\n", src, strerror(errno));
			reason = TK_FTSTREAM_END_ERROR;
			ret = EXIT_BAD;
			break;
		}
		if (r == 0) {
			if (!follow)
				break;
			ppoll(NULL, 0, &(struct timespec){ 0, 50000000L }, &waitmask);
			continue;
		}
		sigprocmask(SIG_SETMASK, &waitmask, NULL);
		took = cli_capture_took(&cap, (size_t)r);
		sigprocmask(SIG_BLOCK, &stopset, NULL);
		if (took < 0) {
			ret = EXIT_BAD;
			goto done;
		}
	}
	if (stop_signal)
		reason = TK_FTSTREAM_END_SIGNAL;
	/* a signal ends a write of the end record that OUT does not take */
	sigprocmask(SIG_SETMASK, &waitmask, NULL);
	if (cli_capture_end(&cap, reason) < 0)
		ret = EXIT_BAD;
	/* bytes but no record at all: not a stream (OUT, its end record
	 * alone, would say nothing of them) */
	if (ret == EXIT_OK && cap.written == 0 && cap.dropped + cap.len > 0) {
		cli_msg("%s: error: no sync record in the stream (%llu bytes dropped)\n",
			src, (unsigned long long)(cap.dropped + cap.len));
		if (fstat(out, &sout) == 0 && S_ISREG(sout.st_mode))
			unlink(outp);
		ret = EXIT_BAD;
		goto done;
	}
	if (!quiet)
		cli_msg(
			"record: %s: %llu bytes of records (%llu sync records), %llu bytes dropped, %zu bytes of a cut record left; %s\n",
			outp, (unsigned long long)cap.written, (unsigned long long)cap.syncs,
			(unsigned long long)cap.dropped, cap.len,
			reason == TK_FTSTREAM_END_SIGNAL ? "stopped by a signal"
			: reason == TK_FTSTREAM_END_ERROR ? "a read error" : "the source ended");
done:
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (out >= 0 && close(out) != 0 && ret == EXIT_OK) {
		cli_msg("%s: error: %s\n", outp, strerror(errno));
		ret = EXIT_BAD;
	}
	if (in > STDIN_FILENO)
		close(in);
	if (have_cap)
		cli_capture_free(&cap);
	return ret;
}
