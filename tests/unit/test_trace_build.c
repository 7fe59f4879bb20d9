/* test_trace_build.c - a trace built in code through the public API
 * (issue 39): tk_trace_new(), tk_trace_add_header(), tk_trace_intern(),
 * tk_trace_add_entity() refuse what they must, and the events written
 * from such a trace to BTF read back the same.
 * usage: test_trace_build WORKDIR */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const tk_timebase ns = { TK_UNIT_NS, 1, 1 }, bad = { TK_UNIT_NS, 0, 1 };
	const tk_timebase odd = { TK_UNIT_US, 1, 3 };
	tk_trace *t = NULL, *t2 = (tk_trace *)&t;
	tk_writer *w = NULL;
	tk_reader *r = NULL;
	const tk_event *got;
	tk_event ev;
	tk_error err;
	tk_str name, tname;
	uint32_t core, task, again;
	char path[4096];
	int rc;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof path, "%s/built.btf", argv[1]);
	/* refusals */
	CHECK(tk_trace_new(&t2, &bad, &err) == TK_E_USAGE && t2 == NULL);
	CHECK(tk_trace_new(NULL, &ns, &err) == TK_E_USAGE);
	CHECK(tk_trace_new(&t, &odd, &err) == TK_OK && t);
	CHECK(tk_trace_timebase(t)->num == 1 && tk_trace_timebase(t)->den == 3 &&
	      tk_trace_timebase(t)->unit == TK_UNIT_US);
	CHECK(strcmp(tk_trace_format(t), "api") == 0);
	tk_trace_free(t);
	t = NULL;
	CHECK(tk_trace_new(&t, &ns, &err) == TK_OK && t);
	if (!t)
		return 1;
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, "a\nb", 3, "x", 1, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, "k", 1, "x\r", 2, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_PARAM, "", 0, "x", 1, 1) == TK_E_USAGE);
	CHECK(tk_trace_add_header(t, TK_HDR_COMMENT, "", 0, "made in code", 12, 1) == TK_OK);
	CHECK(tk_trace_header_count(t) == 1);
	CHECK(tk_trace_add_entity(t, "", 0, TK_ET_T, TK_NONE, &task) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "Core_0", 6, TK_ET_C, TK_NONE, &core) == TK_OK);
	CHECK(tk_trace_add_entity(t, "A", 1, TK_ET_T, 77, &task) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "A", 1, TK_ET_T, core, &task) == TK_OK);
	CHECK(tk_trace_add_entity(t, "A", 1, TK_ET_UNKNOWN, TK_NONE, &again) == TK_OK &&
	      again == task);
	CHECK(tk_trace_add_entity(t, "A", 1, TK_ET_I, TK_NONE, &again) == TK_E_USAGE);
	CHECK(tk_trace_add_entity(t, "A", 1, TK_ET_T, task, &again) == TK_E_USAGE);
	CHECK(tk_trace_entity(t, task)->parent == core);
	CHECK(tk_trace_entity(t, task)->type == TK_ET_T);
	CHECK(tk_trace_entity_find(t, "A", 1) == task);
	CHECK(tk_trace_intern(t, "start", 5, &name) == TK_OK);
	CHECK(tk_trace_intern(t, "T", 1, &tname) == TK_OK);
	CHECK(tk_trace_intern(t, "start", 5, NULL) == TK_E_USAGE);
	/* written and read back */
	CHECK(tk_writer_open(&w, path, t, NULL, &err) == TK_OK);
	if (!w)
		return 1;
	memset(&ev, 0, sizeof ev);
	ev.time = 7;
	ev.source = core;
	ev.target = task;
	ev.target_inst = 3;
	ev.type = TK_ET_T;
	ev.type_name = tname;
	ev.kind = TK_EV_START;
	ev.name = name;
	ev.core = core;
	CHECK(tk_writer_write(w, &ev, &err) == TK_OK);
	/* a kind outside tk_evkind is no kind (TK_EV_OTHER: BTF has none
	 * for a task, the event is dropped and counted), not an index (the
	 * BTF writer read its table of allowed events with it) */
	{
		tk_event odd_kind = ev;
		odd_kind.time = 8;
		odd_kind.kind = (tk_evkind)0x40000000;
		CHECK(tk_writer_write(w, &odd_kind, &err) == TK_OK);
	}
	CHECK(tk_writer_close(w, &err) == TK_OK);
	CHECK(tk_reader_open(&r, path, NULL, &err) == TK_OK);
	if (r) {
		const tk_trace *rt = tk_reader_trace(r);
		size_t len;
		CHECK(tk_reader_next(r, &got, &err) == TK_OK);
		CHECK(got->time == 7 && got->kind == TK_EV_START && got->type == TK_ET_T &&
		      got->target_inst == 3 && got->source_inst == 0);
		CHECK(strcmp(tk_trace_str(rt, tk_trace_entity(rt, got->target)->name, &len), "A") == 0);
		CHECK(strcmp(tk_trace_str(rt, tk_trace_entity(rt, got->source)->name, &len), "Core_0") == 0);
		rc = tk_reader_next(r, &got, &err);
		CHECK(rc == TK_END);
		tk_reader_close(r);
	}
	tk_trace_free(t);
	tk_trace_free(NULL);
	TEST_DONE();
}
