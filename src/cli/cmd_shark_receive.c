/*
 * cmd_shark_receive.c - `tracekit shark-receive [--port N] FILE`: the
 * S.Ha.R.K. host tool `udpdump` (specs/shark-ftrace-reference.md 1.8, 1.9).
 *
 * The target's UDP sender puts at most 60 records of 16 bytes after a
 * 24-byte header, all little-endian (the i386 host order):
 *   char id[12] "TRACER-V1.0\0" | u32 pkt_number | u32 number_of_events |
 *   u32 total_size (header included)
 * pkt_number starts at 1 and goes on across chunks.  Datagrams whose id
 * does not start with "TRACER" are ignored, as udpdump does; a TRACER
 * datagram whose sizes disagree with its length is ignored and counted.
 *
 * Unlike udpdump, which appends in arrival order, the records are kept in
 * memory and written in packet-number order when the reception ends, so a
 * packet that arrives late lands where the target sent it and the file is
 * the chunk's buffer order, like the disk writer's.  A packet number seen
 * again is dropped as it arrives (a set of the numbers kept), so repeats
 * cost neither memory nor output, and are counted.  The temporary output
 * is created before the socket is opened, so an output that cannot be
 * written is refused before any datagram is taken; it is renamed at the
 * end.  A datagram with more records than the sender puts in one (60) is
 * refused and counted.  What is kept is bounded (--max-memory): each
 * packet counts its records' bytes and PKT_COST bytes of index, and a
 * datagram that would pass the bound is refused and counted; the data
 * buffer never grows past it.
 *
 * The protocol has no end marker (the sender's last packet is merely
 * short), so the reception ends on SIGINT, SIGTERM or SIGHUP (udpdump's
 * way; what came is written), after --count distinct records, after --idle
 * seconds without a datagram once one has come, or after --timeout
 * seconds in all.  The signals are blocked but while the loop waits in
 * ppoll(), so one that comes between two datagrams is never missed.
 *
 * Missing packets (numbers from 1 to the highest received that never came)
 * are listed on stderr; the exit status is then 1, with the file written
 * from what did come.  2: usage, socket or file errors.
 */
#define _GNU_SOURCE  /* ppoll */
#include "cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HEAD 24u
#define REC 16u
#define DGRAM_MAX 65536u
#define SPEC_MAX_EVENTS 60u  /* records of one datagram: 24 + 60 * 16 < 1000 */
#define REPORT_MAX 10       /* lines per kind of bad datagram */
/* the index of a kept packet at its most: its pkt (24 bytes in an array
 * that doubles), its entry in the set of numbers (tk_counts: a row of 16
 * bytes that doubles, a slot of 16 bytes at most half full, doubling) */
#define PKT_COST 144u
#define MAX_MEMORY_DEFAULT (64u << 20)

typedef struct pkt {
	uint32_t number;
	uint32_t nrec;
	size_t off;          /* of its records in the data buffer */
	uint64_t arrival;
} pkt;

typedef struct recv_state {
	pkt *pkts;
	size_t npkts, cappkts;
	uint8_t *data;
	size_t len, cap;
	tk_counts *seen;     /* the numbers kept (no counters) */
	uint64_t records;    /* distinct records (repeats not counted) */
	uint64_t ignored, bad, dups, late, oversize;
	uint64_t used, max;  /* bytes kept (records + PKT_COST a packet), bound */
	uint64_t full, full_records;  /* refused: the bound was reached */
	uint32_t max_number;
} recv_state;

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit shark-receive [options] FILE\n\n"
		"Receives a S.Ha.R.K. FTrace dump sent by UDP (the target's\n"
		"FTrace_OSD_init_udp sender; the host tool udpdump) and writes its\n"
		"16-byte records to FILE, in packet-number order, when the reception\n"
		"ends: on SIGINT/SIGTERM/SIGHUP, or by the options below.  Missing packets\n"
		"are listed on stderr and make the exit status 1 (the file holds\n"
		"what came).  The records are kept in memory until the end, up to\n"
		"--max-memory; a datagram of more than 60 records (the sender's most)\n"
		"is refused.  What is refused is counted in the report.\n\n"
		"options:\n"
		"  --port N        UDP port to listen on (default 20000, the target's;\n"
		"                  0: any free port, printed on stderr)\n"
		"  --bind ADDR     local IPv4 address (default 127.0.0.1: this host\n"
		"                  only; 0.0.0.0 takes datagrams from anywhere)\n"
		"  --count N       end once N distinct records have come\n"
		"  --idle S        end S seconds after the last datagram (once one came)\n"
		"  --timeout S     end S seconds after the start in any case\n"
		"  --max-memory SIZE  keep at most SIZE bytes (K, M, G: x 1024...;\n"
		"                  default 64M): the records, and 144 bytes a packet\n"
		"                  for its index; later datagrams are refused and\n"
		"                  counted (exit status 1)\n"
		"  -v, --verbose   a line per datagram, as udpdump prints\n"
		"  -q, --quiet     no report but errors and missing packets\n"
		"  -h, --help      this help\n");
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* SIZE: bytes, or with K, M, G (x 1024, 1024^2, 1024^3); > 0, < 2^50. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned sh = 0;

	errno = 0;
	if (!*s || *s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		sh = 10;
	else if (*end == 'M' || *end == 'm')
		sh = 20;
	else if (*end == 'G' || *end == 'g')
		sh = 30;
	if (sh)
		end++;
	if (*end || !v || v >= (1ull << (50 - sh)))
		return -1;
	*out = (uint64_t)v << sh;
	return 0;
}

static int parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* the 32-bit little-endian number at p */
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* One datagram: 1 if kept, 0 if ignored or a repeat, -1 out of memory. */
static int take(recv_state *st, const uint8_t *b, size_t n, int verbose)
{
	uint32_t number, nev, total;
	pkt *k;
	int rc;

	if (n < 6 || memcmp(b, "TRACER", 6) != 0) {
		st->ignored++;
		return 0;
	}
	if (n < HEAD) {
		st->bad++;
		return 0;
	}
	number = le32(b + 12);
	nev = le32(b + 16);
	total = le32(b + 20);
	if (verbose)
		cli_msg("Received %lu, length %zu(%lu), %lu tracer events.\n",
			(unsigned long)number, n, (unsigned long)total,
			(unsigned long)nev);
	if (total != n || (n - HEAD) % REC || (n - HEAD) / REC != nev ||
	    number == 0) {
		if (st->bad++ < REPORT_MAX)
			cli_msg(number ? "shark-receive: packet %lu ignored: %zu bytes, header says %lu bytes and %lu events\n"
				: "shark-receive: packet %lu ignored: packet numbers start at 1 (%zu bytes, header says %lu bytes and %lu events)\n",
				(unsigned long)number, n, (unsigned long)total,
				(unsigned long)nev);
		return 0;
	}
	/* more than the sender ever puts in a datagram: refused */
	if (nev > SPEC_MAX_EVENTS) {
		if (st->oversize++ < REPORT_MAX)
			cli_msg(
				"shark-receive: packet %lu refused: it holds %lu records, more than the %u of the sender's datagrams\n",
				(unsigned long)number, (unsigned long)nev, SPEC_MAX_EVENTS);
		return 0;
	}
	if (tk_counts_get(st->seen, number, NULL)) {
		st->dups++;
		return 0;
	}
	/* the bound: refused, counted, reported once; and every later
	 * datagram too (a short one would fit, and leave gaps) */
	if (st->full || st->used + (uint64_t)nev * REC + PKT_COST > st->max) {
		if (!st->full++)
			cli_msg(
				"shark-receive: packet %lu refused: %llu bytes kept, --max-memory %llu reached (later datagrams are refused too)\n",
				(unsigned long)number, (unsigned long long)st->used,
				(unsigned long long)st->max);
		st->full_records += nev;
		return 0;
	}
	/* grow first: a number is in the set only if its records are kept;
	 * the records' buffer doubles, but never past the bound (which the
	 * test above keeps them within) */
	if (cli_grow((void **)&st->pkts, &st->cappkts, st->npkts, sizeof(*st->pkts)) < 0 ||
	    (n > HEAD && cli_grow_to((void **)&st->data, &st->cap,
				     st->len + (n - HEAD) - 1, 1,
				     (size_t)st->max) < 0))
		return -1;
	/* the set of numbers kept (tk_counts: a sender cannot pile its
	 * numbers into one slot) */
	rc = tk_counts_add(st->seen, number, 0);
	if (rc <= 0)
		return rc < 0 ? -1 : 0;
	st->used += (uint64_t)nev * REC + PKT_COST;
	if (number > st->max_number)
		st->max_number = number;
	k = &st->pkts[st->npkts++];
	k->number = number;
	k->nrec = nev;
	k->off = st->len;
	k->arrival = st->npkts;
	if (n > HEAD) /* data is still NULL after packets of no record */
		memcpy(st->data + st->len, b + HEAD, n - HEAD);
	st->len += n - HEAD;
	st->records += nev;
	return 1;
}

static int cmp_arrival(const void *a, const void *b)
{
	const pkt *x = a, *y = b;

	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

static int cmp_pkt(const void *a, const void *b)
{
	const pkt *x = a, *y = b;

	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

/*
 * Sort by number and write the records into the output `o` (opened at the
 * start: a temporary file, compressed after FILE's suffix), then move it
 * into place.  The numbers are distinct (take() drops repeats).  `o` is
 * closed or aborted whatever the result.  Returns the number of missing
 * packets, or -1 with a message printed.
 */
static long long finish(recv_state *st, tk_output *o, const char *path,
			int quiet)
{
	size_t i;
	tk_error err;
	uint64_t expect = 1;  /* 64 bits: number 2^32-1 is followed by 2^32 */
	long long missing = 0;
	uint64_t written = 0;
	size_t kept = 0;
	uint32_t high = 0;

	tk_error_clear(&err);
	qsort(st->pkts, st->npkts, sizeof(*st->pkts), cmp_pkt);
	for (i = 0; i < st->npkts; i++) {
		const pkt *k = &st->pkts[i];
		if (k->number > expect) {
			uint64_t gap = k->number - expect;
			missing += (long long)gap;
			if (gap == 1)
				cli_msg("shark-receive: missing packet %llu\n",
					(unsigned long long)expect);
			else
				cli_msg("shark-receive: missing packets %llu-%lu (%llu)\n",
					(unsigned long long)expect,
					(unsigned long)(k->number - 1),
					(unsigned long long)gap);
		}
		if (tk_output_write(o, st->data + k->off, (size_t)k->nrec * REC,
				    &err) < 0)
			goto fail;
		written += k->nrec;
		expect = k->number + 1;
		st->pkts[kept++] = *k;
	}
	/* late: kept packets that came after one with a higher number */
	qsort(st->pkts, kept, sizeof(*st->pkts), cmp_arrival);
	for (i = 0; i < kept; i++) {
		if (st->pkts[i].number < high)
			st->late++;
		else
			high = st->pkts[i].number;
	}
	if (tk_output_close(o, &err) < 0) {
		o = NULL;
		goto fail;
	}
	if (!quiet) {
		cli_msg(
			"shark-receive: %s: %llu records (%llu bytes) from %zu packets, numbers 1-%lu\n",
			path, (unsigned long long)written,
			(unsigned long long)written * REC, kept,
			(unsigned long)st->max_number);
		if (st->late)
			cli_msg("shark-receive: %llu packets came out of order (written in number order)\n",
				(unsigned long long)st->late);
		if (st->dups)
			cli_msg("shark-receive: %llu repeated packets dropped\n",
				(unsigned long long)st->dups);
		if (st->ignored || st->bad)
			cli_msg("shark-receive: %llu datagrams ignored (%llu not TRACER, %llu malformed)\n",
				(unsigned long long)(st->ignored + st->bad),
				(unsigned long long)st->ignored,
				(unsigned long long)st->bad);
	}
	/* (even with -q: the file lacks them) */
	if (st->oversize)
		cli_msg("shark-receive: %llu packets refused: more than %u records\n",
			(unsigned long long)st->oversize, SPEC_MAX_EVENTS);
	if (st->full)
		cli_msg("shark-receive: %llu packets refused (%llu records): --max-memory %llu reached\n",
			(unsigned long long)st->full,
			(unsigned long long)st->full_records,
			(unsigned long long)st->max);
	if (missing)
		cli_msg("shark-receive: %lld packets missing\n", missing);
	return missing;
fail:
	cli_error(&err);
	tk_output_abort(o);
	return -1;
}

enum { O_PORT = 256, O_BIND, O_COUNT, O_IDLE, O_TIMEOUT, O_MAX_MEMORY };

int cmd_shark_receive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, O_PORT },
		{ "bind", required_argument, NULL, O_BIND },
		{ "count", required_argument, NULL, O_COUNT },
		{ "idle", required_argument, NULL, O_IDLE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "max-memory", required_argument, NULL, O_MAX_MEMORY },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_END_LONGOPTS
	};
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	cli_args args = { { NULL }, 0 };
	unsigned long port = 20000, count = 0, idle = 0, timeout = 0;
	const char *bind_addr = "127.0.0.1", *path;
	int verbose = 0, quiet = 0, c, fd = -1, ret = EXIT_BAD, rc, timeout_hit = 0;
	struct sockaddr_in me;
	socklen_t melen = sizeof(me);
	struct sigaction sa, old_act[3], old_alrm;
	sigset_t stopset, waitmask, oldmask;
	recv_state st;
	uint8_t *buf = NULL;
	tk_output *out = NULL;
	tk_error err;
	uint64_t start, last = 0;
	long long missing;
	size_t i;

	memset(&st, 0, sizeof(st));
	st.max = MAX_MEMORY_DEFAULT;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "vqh", longopts, &args)) != -1) {
		switch (c) {
		case O_PORT:
			if (parse_num(optarg, 65535, &port) < 0) {
				cli_usage_error("shark-receive", "bad --port '%s'", optarg);
				return EXIT_BAD;
			}
			break;
		case O_BIND: bind_addr = optarg; break;
		case O_COUNT:
			if (parse_num(optarg, ULONG_MAX / 2, &count) < 0 || !count) {
				cli_usage_error("shark-receive", "bad --count '%s'", optarg);
				return EXIT_BAD;
			}
			break;
		case O_IDLE:
		case O_TIMEOUT:
			if (parse_num(optarg, 86400 * 365, c == O_IDLE ? &idle : &timeout) < 0 ||
			    !(c == O_IDLE ? idle : timeout)) {
				cli_usage_error("shark-receive", "bad --%s '%s' (whole seconds, > 0)",
						c == O_IDLE ? "idle" : "timeout", optarg);
				return EXIT_BAD;
			}
			break;
		case O_MAX_MEMORY:
			if (parse_size(optarg, &st.max) < 0) {
				cli_usage_error("shark-receive", "bad --max-memory '%s' (bytes, or a number with K, M or G)",
						optarg);
				return EXIT_BAD;
			}
			break;
		case 'v': verbose = 1; break;
		case 'q': quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 1) {
		cli_usage_error("shark-receive", "expected FILE");
		return EXIT_BAD;
	}
	path = args.v[0];
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, bind_addr, &me.sin_addr) != 1) {
		cli_usage_error("shark-receive", "bad --bind '%s' (an IPv4 address)", bind_addr);
		return EXIT_BAD;
	}
	/*
	 * The stop signals are blocked but in ppoll(): one that comes while a
	 * datagram is handled is seen at the next wait, never lost, and one
	 * that comes before the wait ends the run with the output cleaned.
	 */
	sigemptyset(&stopset);
	for (i = 0; i < 3; i++)
		sigaddset(&stopset, stop_sigs[i]);
	sigprocmask(SIG_SETMASK, NULL, &oldmask);
	waitmask = oldmask;
	for (i = 0; i < 3; i++)
		sigdelset(&waitmask, stop_sigs[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;  /* no SA_RESTART: a blocking open() is interrupted */
	stop_signal = 0;
	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &sa, &old_act[i]);
	buf = malloc(DGRAM_MAX);
	if (!buf || tk_counts_new(&st.seen, NULL) < 0) {
		cli_msg("tracekit shark-receive: out of memory\n");
		goto out_sig;
	}
	/* the output first: a path that cannot be written loses nothing.
	 * The stop signals are not blocked yet: opening a FIFO waits for a
	 * reader, and a signal must end that wait */
	tk_error_clear(&err);
	sigaction(SIGALRM, &sa, &old_alrm);
	if (timeout)
		alarm((unsigned)timeout);
	rc = tk_output_open(&out, path, &err);
	alarm(0);
	sigaction(SIGALRM, &old_alrm, NULL);
	if (rc < 0) {
		if (stop_signal == SIGALRM)
			cli_msg("%s: error: --timeout %lu reached while opening it (no reader of a FIFO?)\n",
				path, timeout);
		else if (stop_signal)
			cli_msg("%s: error: stopped by signal %d while opening it (no reader of a FIFO?)\n",
				path, (int)stop_signal);
		else
			cli_error(&err);
		goto out_sig;
	}
	if (stop_signal == SIGALRM)  /* --timeout as the open ended: ends below */
		stop_signal = 0, timeout_hit = 1;
	sigprocmask(SIG_BLOCK, &stopset, NULL);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &melen) != 0) {
		cli_msg("tracekit shark-receive: cannot listen on %s:%lu: %s\n",
			bind_addr, port, strerror(errno));
		goto out_file;
	}
	/* with --port 0 the port is the one thing a sender needs: even with -q */
	if (!quiet || port == 0)
		cli_msg("shark-receive: listening on %s:%u\n", bind_addr,
			(unsigned)ntohs(me.sin_port));
	start = now_ms();
	while (!stop_signal && !timeout_hit && !(count && st.records >= count)) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		uint64_t now = now_ms(), wait = UINT64_MAX;
		struct timespec ts;
		ssize_t n;

		if (timeout) {
			uint64_t end = start + (uint64_t)timeout * 1000u;
			if (now >= end)
				break;
			wait = end - now;
		}
		if (idle && st.npkts) {
			uint64_t end = last + (uint64_t)idle * 1000u;
			if (now >= end)
				break;
			if (end - now < wait)
				wait = end - now;
		}
		if (wait > 60000)
			wait = 60000;
		ts.tv_sec = (time_t)(wait / 1000u);
		ts.tv_nsec = (long)(wait % 1000u) * 1000000L;
		rc = ppoll(&pfd, 1, &ts, &waitmask);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			cli_msg("tracekit shark-receive: poll: %s\n", strerror(errno));
			goto out_file;
		}
		if (rc == 0)
			continue;
		n = recv(fd, buf, DGRAM_MAX, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			cli_msg("tracekit shark-receive: recv: %s\n", strerror(errno));
			goto out_file;
		}
		rc = take(&st, buf, (size_t)n, verbose);
		if (rc < 0) {
			cli_msg("tracekit shark-receive: out of memory\n");
			goto out_file;
		}
		if (rc > 0)
			last = now_ms();
	}
	if (stop_signal && !quiet)
		cli_msg("shark-receive: stopped by signal %d\n", (int)stop_signal);
	if (!st.npkts) {
		cli_msg("shark-receive: no TRACER packet received%s: %s not written\n",
			st.full || st.oversize ? " but refused ones" : "", path);
		ret = EXIT_PROBLEMS;
		goto out_file;
	}
	missing = finish(&st, out, path, quiet);
	out = NULL;  /* finish() closed or aborted it */
	ret = missing < 0 ? EXIT_BAD
	      : missing || st.full || st.oversize ? EXIT_PROBLEMS : EXIT_OK;
out_file:
	if (fd >= 0)
		close(fd);
	/* nothing came, or the reception failed: no file */
	tk_output_abort(out);
out_sig:
	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &old_act[i], NULL);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	free(buf);
	free(st.pkts);
	free(st.data);
	tk_counts_free(st.seen);
	return ret;
}
