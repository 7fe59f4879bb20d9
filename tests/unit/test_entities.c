/* test_entities.c - a tk_trace_entity() pointer stays valid until the
 * trace is closed (tracekit.h), while the entity table grows under it:
 * pointers taken after the first event of a trace of many entities are
 * the same records, with the same contents, at the end (run under ASan
 * too: a moved table is a heap-use-after-free there). */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>

#define NTASKS 20000

static char *make_trace(size_t *len)
{
	size_t cap = 64 + (size_t)NTASKS * 80, n;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "#version 2.3.0\n#timescale ns\n");
	for (i = 0; i < NTASKS; i++)
		n += (size_t)snprintf(s + n, cap - n,
				      "%d,Core_1,0,T,Task_%d,0,start\n"
				      "%d,Core_1,0,T,Task_%d,0,terminate\n",
				      2 * i, i, 2 * i + 1, i);
	*len = n;
	return s;
}

static int is_named(const tk_trace *t, const tk_entity *e, const char *want)
{
	return strcmp(tk_trace_str(t, e->name, NULL), want) == 0;
}

int main(void)
{
	const tk_entity *core = NULL, *task0 = NULL, *mid = NULL;
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	const tk_trace *t;
	tk_error err;
	uint64_t nev = 0;
	size_t len = 0;
	char *text = make_trace(&len);
	int rc;

	CHECK(text != NULL);
	if (!text)
		TEST_DONE();
	tk_reader_opts_init(&o);
	CHECK(tk_reader_open_mem(&r, text, len, "many.btf", &o, &err) == TK_OK);
	if (!r) {
		free(text);
		TEST_DONE();
	}
	t = tk_reader_trace(r);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		if (nev++ == 0) {
			/* after the first event: the core and the first task */
			core = tk_trace_entity(t, ev->source);
			task0 = tk_trace_entity(t, ev->target);
			CHECK(core && task0);
		}
		if (ev->time == NTASKS)
			mid = tk_trace_entity(t, ev->target);
		/* the early records, read while the table grows */
		if (core && task0 && nev % 997 == 0) {
			CHECK(is_named(t, core, "Core_1"));
			CHECK(is_named(t, task0, "Task_0"));
		}
	}
	CHECK(rc == TK_END);
	CHECK_EQ_U64(nev, 2 * NTASKS);
	CHECK_EQ_U64(tk_trace_entity_count(t), NTASKS + 1);
	if (core && task0 && mid) {
		/* the same records: nothing moved */
		CHECK(core == tk_trace_entity(t, 0));
		CHECK(task0 == tk_trace_entity(t, 1));
		CHECK(mid == tk_trace_entity(t, NTASKS / 2 + 1));
		CHECK(is_named(t, core, "Core_1"));
		CHECK(core->type == TK_ET_C);
		CHECK(is_named(t, task0, "Task_0"));
		CHECK(task0->type == TK_ET_T);
		CHECK(is_named(t, mid, "Task_10000"));
		CHECK(tk_trace_entity(t, NTASKS + 1) == NULL);
	}
	tk_reader_close(r);
	free(text);
	TEST_DONE();
}
