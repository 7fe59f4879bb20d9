/*
 * shark_to_btf.c - a filtered conversion (docs/library.md): the events whose
 * source or target is one of the ENTITY names, from a S.Ha.R.K. FTrace dump
 * (or any readable trace) to BTF, as `tracekit convert IN OUT.btf --entity
 * ENTITY...` writes them: the reader's query (tk_reader_opts.entities)
 * hands out those events alone.  The output file appears only when the
 * whole conversion succeeded.
 *
 * usage: shark_to_btf IN OUT.btf ENTITY...
 * prints the number of events written
 */
#include <stdio.h>
#include <string.h>
#include <tracekit/tracekit.h>

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
	/* the events whose source or target is one of the names */
	ropts.entities = (const char *const *)(argv + 3);
	ropts.nentities = (size_t)(argc - 3);
	if (tk_reader_open(&r, argv[1], &ropts, &err) < 0)
		goto fail;
	if (tk_writer_open(&w, argv[2], tk_reader_trace(r), &wopts, &err) < 0)
		goto fail;
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
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
