/*
 * count_events.c - the smallest use of libtracekit (docs/library.md): open
 * a trace of any readable format, read its events, print counts, and
 * check the events against the BTF state machines (tk_check).
 *
 * usage: count_events TRACE
 */
#include <stdio.h>
#include <tracekit/tracekit.h>

/* Lenient reading calls this once for the first warning of each kind. */
static void on_warning(void *ctx, const tk_error *w)
{
	char line[800];

	(void)ctx;
	fprintf(stderr, "%s\n", tk_error_format(w, "warning", line, sizeof line));
}

int main(int argc, char **argv)
{
	tk_reader_opts opts;
	tk_reader *r = NULL;
	tk_check *chk = NULL;
	tk_error err;
	const tk_event *ev;
	uint64_t n = 0, first = 0, last = 0, per_type[TK_ET_COUNT] = { 0 };
	char a[64], b[64], line[800];
	const tk_trace *t;
	int rc, i, ret = 2;

	if (argc != 2) {
		fprintf(stderr, "usage: count_events TRACE\n");
		return 2;
	}
	tk_reader_opts_init(&opts);        /* lenient, format probed */
	opts.on_warning = on_warning;
	/* every constructor returns TK_OK or a negative tk_status, with err
	 * filled: tk_<object>_open(&out, ..., &err), tk_<object>_new(...) */
	if (tk_reader_open(&r, argv[1], &opts, &err) < 0)
		goto fail;
	t = tk_reader_trace(r);
	if (tk_check_new(&chk, t, NULL, NULL, &err) < 0)  /* no callback: */
		goto fail;                                 /* counts only */
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (n++ == 0)
			first = ev->time;
		last = ev->time;
		per_type[ev->type]++;
		if ((rc = tk_check_event(chk, ev, &err)) < 0)
			goto fail;             /* the analyses fill err too */
	}
	if (rc < 0)                        /* TK_END (> 0) is the normal end */
		goto fail;
	printf("format:   %s\n", tk_trace_format(t));
	printf("events:   %llu\n", (unsigned long long)n);
	if (n && tk_time_format(first, tk_trace_timebase(t), TK_UNIT_US, a, sizeof a) > 0 &&
	    tk_time_format(last, tk_trace_timebase(t), TK_UNIT_US, b, sizeof b) > 0)
		printf("span:     %s .. %s us\n", a, b);
	printf("entities: %zu\n", tk_trace_entity_count(t));
	for (i = 0; i < TK_ET_COUNT; i++)
		if (per_type[i])
			printf("  %-5s %llu\n", tk_etype_name((tk_etype)i),
			       (unsigned long long)per_type[i]);
	printf("warnings: %llu\n", (unsigned long long)tk_reader_warning_count(r));
	printf("violations: %llu\n",
	       (unsigned long long)tk_check_count(chk, TK_RULE_COUNT));
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "%s\n", tk_error_format(&err, "error", line, sizeof line));
out:
	tk_check_free(chk);
	tk_reader_close(r);
	return ret;
}
