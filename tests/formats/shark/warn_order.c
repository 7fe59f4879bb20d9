/*
 * warn_order.c - where the S.Ha.R.K. reader's warnings come among its
 * events (tests/formats/shark/orders.sh).
 *
 *   shark_warn_order FILE file|stream
 *
 * Reads FILE (--from shark, lenient) as a file, or from a memory stream
 * that hands its bytes out in pieces of 1 to 4096 bytes
 * (tk_source_open_mem_stream()), and prints, for each warning that reaches
 * the callback, how many events had been returned before it and the
 * message; then the number of events and warnings.  The output must not
 * depend on the transport.  It also checks
 * that a warning about the record at "offset N" comes after every event of
 * the records before it: the next event returned is one of that record's
 * when the record makes events (a job end without a job, an unknown code,
 * code 0x43, a lost-events record: always), exit 1 if not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static unsigned long long nev;     /* events returned so far */
static long long want_pos = -1;    /* the next event's record, or -1 */
static int failed;

static void on_warning(void *ctx, const tk_error *w)
{
	const char *p = strstr(w->msg, "offset ");

	(void)ctx;
	printf("%llu: %s\n", nev, w->msg);
	if (p && (strstr(w->msg, "which has no job") ||
		  strstr(w->msg, "unknown event code") ||
		  strstr(w->msg, "code 0x43") || strstr(w->msg, "lost")))
		want_pos = atoll(p + 7) / 16;
}

int main(int argc, char **argv)
{
	tk_reader_opts o;
	tk_reader *r;
	tk_error err;
	const tk_event *ev;
	char *data = NULL;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: shark_warn_order FILE file|stream\n");
		return 2;
	}
	tk_reader_opts_init(&o);
	o.format = "shark";
	o.on_warning = on_warning;
	if (strcmp(argv[2], "stream") == 0) {
		/* the whole file in memory, handed out in pieces */
		FILE *f = fopen(argv[1], "rb");
		tk_source *src;
		long len;

		if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) != 0 ||
		    !(data = malloc((size_t)len + 1)) ||
		    fread(data, 1, (size_t)len, f) != (size_t)len) {
			fprintf(stderr, "shark_warn_order: cannot read %s\n", argv[1]);
			return 2;
		}
		fclose(f);
		rc = tk_source_open_mem_stream(&src, data, (size_t)len, argv[1],
					       4096, 20261126, &err);
		if (rc == TK_OK)
			rc = tk_reader_open_source(&r, src, argv[1], &o, &err);
	} else {
		rc = tk_reader_open(&r, argv[1], &o, &err);
	}
	if (rc < 0) {
		fprintf(stderr, "shark_warn_order: %s\n", err.msg);
		return 2;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (want_pos >= 0 && (long long)ev->pos != want_pos) {
			fprintf(stderr, "FAIL: shark_warn_order: event %llu is of record %llu, not of the record warned about (%lld)\n",
				nev, (unsigned long long)ev->pos, want_pos);
			failed = 1;
		}
		want_pos = -1;
		nev++;
	}
	printf("%llu events, %llu warnings, end %d\n", nev,
	       (unsigned long long)tk_reader_warning_count(r), rc);
	tk_reader_close(r);
	free(data);
	return failed ? 1 : 0;
}
