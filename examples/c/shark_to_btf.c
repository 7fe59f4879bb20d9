/*
 * shark_to_btf.c - a filtered conversion (docs/library.md): the events whose
 * source or target is one of the ENTITY names, from a S.Ha.R.K. FTrace dump
 * (or any readable trace) to BTF, as `tracekit convert IN OUT.btf --entity
 * ENTITY...` writes them.  The output file appears only when the whole
 * conversion succeeded.
 *
 * usage: shark_to_btf IN OUT.btf ENTITY...
 * prints the number of events written
 */
#include <stdio.h>
#include <string.h>
#include <tracekit/tracekit.h>

/* entity `id` is named one of names[0 .. n - 1] */
static int named(const tk_trace *t, uint32_t id, char **names, int n)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(t, id);
	const char *name;
	size_t len;
	int i;

	if (!e || !(name = tk_trace_str(t, e->name, &len)))
		return 0;
	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return 1;
	return 0;
}

/* the trace's warnings (the reader's, and the writer's count of what BTF
 * could not hold) go to standard error */
static void on_warning(void *ctx, const tk_error *w)
{
	char line[800];

	(void)ctx;
	fprintf(stderr, "%s\n", tk_error_format(w, "warning", line, sizeof line));
}

int main(int argc, char **argv)
{
	tk_reader_opts ropts;
	tk_writer_opts wopts;
	tk_reader *r = NULL;
	tk_writer *w = NULL;
	tk_error err;
	const tk_event *ev;
	const tk_trace *t;
	unsigned long long n = 0;
	char line[800];
	int rc, ret = 2;

	if (argc < 4) {
		fprintf(stderr, "usage: shark_to_btf IN OUT.btf ENTITY...\n");
		return 2;
	}
	tk_reader_opts_init(&ropts);
	tk_writer_opts_init(&wopts);
	ropts.on_warning = wopts.on_warning = on_warning;
	wopts.format = "btf";
	if (tk_reader_open(&r, argv[1], &ropts, &err) < 0)
		goto fail;
	t = tk_reader_trace(r);
	if (tk_writer_open(&w, argv[2], t, &wopts, &err) < 0)
		goto fail;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (!named(t, ev->source, argv + 3, argc - 3) &&
		    !named(t, ev->target, argv + 3, argc - 3))
			continue;
		if (tk_writer_write(w, ev, &err) < 0)
			goto fail;
		n++;
	}
	if (rc < 0)
		goto fail;
	rc = tk_writer_close(w, &err);
	w = NULL;
	if (rc < 0)
		goto fail;
	printf("%llu\n", n);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "%s\n", tk_error_format(&err, "error", line, sizeof line));
out:
	tk_writer_abort(w);
	tk_reader_close(r);
	return ret;
}
