/*
 * build_trace.c - a trace built in code (docs/library.md): a core, two
 * tasks and a preemption, written to OUT in the format its name says (BTF,
 * HTF, ATF, ...) without printing a text and reading it back.
 *
 *   T1: activated and started at 0, preempted by T2 at 100, resumed at
 *       250, terminated at 400 (response time 400 ns)
 *   T2: activated and started at 100, terminated at 250 (150 ns)
 *
 * usage: build_trace OUT
 */
#include <stdio.h>
#include <string.h>
#include <tracekit/tracekit.h>

static const struct step {
	uint64_t time;
	const char *task;
	tk_evkind kind;
	const char *event;
} steps[] = {
	{ 0, "T1", TK_EV_ACTIVATE, "activate" },
	{ 0, "T1", TK_EV_START, "start" },
	{ 100, "T2", TK_EV_ACTIVATE, "activate" },
	{ 100, "T1", TK_EV_PREEMPT, "preempt" },
	{ 100, "T2", TK_EV_START, "start" },
	{ 250, "T2", TK_EV_TERMINATE, "terminate" },
	{ 250, "T1", TK_EV_RESUME, "resume" },
	{ 400, "T1", TK_EV_TERMINATE, "terminate" },
};

int main(int argc, char **argv)
{
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 };
	tk_trace *t = NULL;
	tk_writer *w = NULL;
	tk_error err;
	tk_event ev;
	tk_str type_t;
	uint32_t core;
	char line[800];
	size_t i;
	int ret = 2;

	if (argc != 2) {
		fprintf(stderr, "usage: build_trace OUT\n");
		return 2;
	}
	if (tk_trace_new(&t, &ns, &err) < 0)
		goto fail;
	if (tk_trace_add_header(t, TK_HDR_PARAM, "creator", 7, "build_trace", 11, 1) < 0 ||
	    tk_trace_add_entity(t, "Core_0", 6, TK_ET_C, TK_NONE, &core) < 0 ||
	    tk_trace_intern(t, "T", 1, &type_t) < 0)
		goto status;
	if (tk_writer_open(&w, argv[1], t, NULL, &err) < 0)
		goto fail;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *s = &steps[i];

		memset(&ev, 0, sizeof ev);
		ev.time = s->time;
		ev.source = core;       /* the core runs the scheduler */
		ev.source_inst = 0;
		if (tk_trace_add_entity(t, s->task, strlen(s->task), TK_ET_T, core,
					&ev.target) < 0 ||
		    tk_trace_intern(t, s->event, strlen(s->event), &ev.name) < 0)
			goto status;
		ev.target_inst = 0;
		ev.type = TK_ET_T;
		ev.type_name = type_t;
		ev.kind = s->kind;
		ev.core = core;
		ev.note = NULL;
		ev.pos = i + 1;
		if (tk_writer_write(w, &ev, &err) < 0)
			goto fail;
	}
	ret = tk_writer_close(w, &err);
	w = NULL;
	if (ret < 0) {
		ret = 2;
		goto fail;
	}
	goto out;
status:
	fprintf(stderr, "error: out of memory or a bad argument\n");
	goto out;
fail:
	fprintf(stderr, "%s\n", tk_error_format(&err, "error", line, sizeof line));
out:
	tk_writer_abort(w);
	tk_trace_free(t);
	return ret;
}
