/*
 * worst_rt.c - the worst response time of every task and ISR of a trace of
 * any readable format, as `tracekit stats` gives it (docs/library.md).
 *
 * usage: worst_rt TRACE
 * prints one line per entity with a response time: NAME RT_MAX_NS COUNT
 */
#include <stdio.h>
#include <tracekit/tracekit.h>

int main(int argc, char **argv)
{
	tk_reader_opts opts;
	tk_reader *r = NULL;
	tk_stats *st = NULL;
	tk_error err;
	const tk_event *ev;
	char line[800], max[64];
	size_t i, len;
	int rc, ret = 2;

	if (argc != 2) {
		fprintf(stderr, "usage: worst_rt TRACE\n");
		return 2;
	}
	tk_reader_opts_init(&opts);
	if (tk_reader_open(&r, argv[1], &opts, &err) < 0)
		goto fail;
	if (tk_stats_new(&st, tk_reader_trace(r), &err) < 0)
		goto fail;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		if ((rc = tk_stats_event(st, ev, &err)) < 0)
			break;
	if (rc < 0)
		goto fail;
	if ((rc = tk_stats_finish(st, &err)) < 0)
		goto fail;
	for (i = 0; i < tk_stats_count(st); i++) {
		const tk_stat *s = tk_stats_get(st, i);
		const char *name = tk_stats_row_name(st, i, &len);

		if (s->metric != TK_METRIC_RT || s->chain || !name)
			continue;
		if ((rc = tk_stats_format(st, i, TK_STAT_MAX, TK_UNIT_NS, max, sizeof max)) < 0)
			goto status;
		printf("%.*s %s %llu\n", (int)len, name, max, (unsigned long long)s->count);
	}
	ret = 0;
	goto out;
status:
	fprintf(stderr, "error: %s\n", tk_status_str(rc));
	goto out;
fail:
	fprintf(stderr, "%s\n", tk_error_format(&err, "error", line, sizeof line));
out:
	tk_stats_free(st);
	tk_reader_close(r);
	return ret;
}
