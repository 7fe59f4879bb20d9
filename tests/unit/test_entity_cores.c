/* test_entity_cores.c - tk_entity.parent, the core of a process and the
 * process of a runnable (tracekit.h), per format: read each trace and check
 *  - the rule, event by event: a process (T, I, THR) has no parent until
 *    the first event handed out that names a core with it as target, and
 *    from that event on the parent is that core; a runnable (R) has none
 *    until the first event handed out with it as target and a process as
 *    source, and from then on that process (ATF: declared before the
 *    first event, so only "from then on");
 *  - the cores the file says: named processes and their cores (BTF, HTF,
 *    ATF, S.Ha.R.K., Tarmac), every task of a FreeRTOS trace logger file
 *    on the core of its "[c/id]" prefix; named runnables and the tasks
 *    that run them (BTF, HTF).
 * usage: test_entity_cores DEMO_BTF MIGRATION_BTF MULTICORE_HTF ATF
 *        SHARK_DUMP TARMAC_LOG FREERTOS_BTF (a missing corpus file: skipped) */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct want {
	const char *entity, *core;   /* core (or process) NULL: no parent */
} want;

static const char *name_of(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(t, id);

	return e ? tk_trace_str(t, e->name, NULL) : "(none)";
}

/* The parent the rule gives `ev`'s target from that event on, or TK_NONE:
 * the core for a process, the source if it is a process for a runnable. */
static uint32_t parent_of_event(const tk_trace *t, const tk_event *ev,
				const tk_entity *e)
{
	const tk_entity *src = tk_trace_entity(t, ev->source);

	if (tk_etype_is_process(e->type))
		return ev->core;
	if (e->type == TK_ET_R && src && ev->source != ev->target &&
	    tk_etype_is_process(src->type))
		return ev->source;
	return TK_NONE;
}

/* Read `path` (format probed; -1 when it cannot be opened) and check the
 * rule on every event and `w` (n rows) at the end; with `freertos`, every
 * task named "[c/..." has core "Core_c".  Returns the processes with a
 * parent; *runs (unless NULL) the runnables with one. */
static long check_file(const char *path, int declared, const want *w, size_t n,
		       int freertos, long *runs)
{
	tk_reader *r = NULL;
	tk_error err;
	const tk_event *ev;
	const tk_trace *t;
	uint32_t *first = NULL;
	size_t cap = 0, i;
	long parents = 0;
	int rc;

	if (tk_reader_open(&r, path, NULL, &err) < 0) {
		char buf[512];
		fprintf(stderr, "%s\n", tk_error_format(&err, "error", buf, sizeof(buf)));
		CHECK(0);
		return -1;
	}
	t = tk_reader_trace(r);
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		const tk_entity *e = tk_trace_entity(t, ev->target);
		uint32_t by_event;

		if (!e || (!tk_etype_is_process(e->type) && e->type != TK_ET_R))
			continue;
		by_event = parent_of_event(t, ev, e);
		if (ev->target >= cap) {
			size_t nc = cap ? cap : 64, k;
			uint32_t *p;
			while (nc <= ev->target)
				nc *= 2;
			p = realloc(first, nc * sizeof(*p));
			if (!p)
				abort();
			for (k = cap; k < nc; k++)
				p[k] = TK_NONE;
			first = p;
			cap = nc;
		}
		if (first[ev->target] == TK_NONE && by_event != TK_NONE)
			first[ev->target] = by_event;
		if (first[ev->target] != TK_NONE) {
			if (e->parent != first[ev->target])
				fprintf(stderr, "%s: event %" PRIu64 ": %s on %s, parent %s\n", path,
					ev->pos, name_of(t, ev->target),
					name_of(t, first[ev->target]), name_of(t, e->parent));
			CHECK_EQ_U64(e->parent, first[ev->target]);
		} else if (!declared) {
			CHECK_EQ_U64(e->parent, TK_NONE);
		}
	}
	CHECK_EQ_U64(rc, TK_END);
	if (runs)
		*runs = 0;
	for (i = 0; i < tk_trace_entity_count(t); i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		const char *nm = tk_trace_str(t, e->name, NULL);

		if (e->type == TK_ET_R) {
			if (e->parent != TK_NONE) {
				if (runs)
					++*runs;
				/* a process */
				CHECK(tk_etype_is_process(tk_trace_entity(t, e->parent)->type));
			}
			if (!declared)
				CHECK_EQ_U64(e->parent, i < cap ? first[i] : TK_NONE);
			continue;
		}
		if (!tk_etype_is_process(e->type))
			continue;
		if (e->parent != TK_NONE) {
			parents++;
			/* a core */
			CHECK_EQ_U64(tk_trace_entity(t, e->parent)->type, TK_ET_C);
		}
		if (!declared)
			CHECK_EQ_U64(e->parent, i < cap ? first[i] : TK_NONE);
		if (freertos && nm[0] == '[' && nm[1] >= '0' && nm[1] <= '9' &&
		    e->parent != TK_NONE) {
			char core[32];
			snprintf(core, sizeof(core), "Core_%d", atoi(nm + 1));
			CHECK_STR(name_of(t, e->parent), core);
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t id = tk_trace_entity_find(t, w[i].entity, strlen(w[i].entity));
		const tk_entity *e = tk_trace_entity(t, id);

		CHECK(e != NULL);
		if (!e)
			continue;
		if (w[i].core)
			CHECK_STR(name_of(t, e->parent), w[i].core);
		else
			CHECK_EQ_U64(e->parent, TK_NONE);
	}
	free(first);
	tk_reader_close(r);
	return parents;
}

/* A corpus file of ../shared may be absent: skip it, said. */
static int here(const char *path)
{
	if (access(path, R_OK) == 0)
		return 1;
	fprintf(stderr, "note: %s absent, skipped\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	static const want demo[] = {
		{ "Task_Control", "Core_1" }, { "Task_Logger", "Core_1" },
		{ "Task_Sensor", "Core_2" }, { "Isr_CAN", "Core_2" },
		{ "Stim_1ms", NULL },   /* a stimulus: no core */
		/* runnables: the task that is the source of their events */
		{ "Run_ReadInputs", "Task_Control" }, { "Run_Control", "Task_Control" },
		{ "Run_Log", "Task_Logger" }, { "Run_Sample", "Task_Sensor" },
	};
	/* started on Core1, migrated to Core2: the first core stays */
	static const want migration[] = { { "Task1", "Core1" } };
	/* the core sections of the records */
	static const want htf[] = {
		{ "Task_1_0", "Core_1" }, { "Task_2_0", "Core_2" }, { "Task_3_0", "Core_3" },
		/* runnables: the task running on the core of their records */
		{ "Run_1_0_0", "Task_1_0" }, { "Run_2_0_0", "Task_2_0" },
		{ "Run_2_0_1", "Task_2_0" }, { "Run_3_0_0", "Task_3_0" },
	};
	static const want atf[] = { { "Task1", "Core_1" } };
	/* one core */
	static const want shark[] = {
		{ "task1", "Core_0" }, { "task5", "Core_0" }, { "IRQ0", "Core_0" },
	};
	static const want tarmac[] = {
		{ "Reset", "Core_0" }, { "HardFault", "Core_0" }, { "SVCall", "Core_0" },
	};
	long n, runs = -1;

	if (argc != 8) {
		fprintf(stderr, "usage: test_entity_cores DEMO_BTF MIGRATION_BTF HTF ATF SHARK TARMAC FREERTOS_BTF\n");
		return 2;
	}
	CHECK(check_file(argv[1], 0, demo, sizeof(demo) / sizeof(demo[0]), 0, &runs) == 4);
	CHECK_EQ_U64(runs, 4);
	if (here(argv[2]))
		CHECK(check_file(argv[2], 0, migration, 1, 0, NULL) == 1);
	runs = -1;
	CHECK(check_file(argv[3], 0, htf, sizeof(htf) / sizeof(htf[0]), 0, &runs) >= 3);
	CHECK(runs >= 4);
	CHECK(check_file(argv[4], 1, atf, sizeof(atf) / sizeof(atf[0]), 0, NULL) >= 1);
	if (here(argv[5]))
		CHECK(check_file(argv[5], 0, shark, sizeof(shark) / sizeof(shark[0]), 0,
				 NULL) >= 3);
	if (here(argv[6]))
		CHECK(check_file(argv[6], 0, tarmac, sizeof(tarmac) / sizeof(tarmac[0]), 0,
				 NULL) == 3);
	n = check_file(argv[7], 0, NULL, 0, 1, NULL);
	CHECK(n >= 4);
	TEST_DONE();
}
