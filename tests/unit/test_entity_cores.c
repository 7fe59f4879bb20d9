/* test_entity_cores.c - tk_entity.parent, the core of a process
 * (tracekit.h), per format: read each trace and check
 *  - the rule, event by event: a process (T, I, THR) has no parent until
 *    the first event handed out that names a core with it as target, and
 *    from that event on the parent is that core (ATF: declared before the
 *    first event, so only "from then on");
 *  - the cores the file says: named processes and their cores (BTF, HTF,
 *    ATF, S.Ha.R.K., Tarmac), every task of a FreeRTOS trace logger file
 *    on the core of its "[c/id]" prefix.
 * usage: test_entity_cores DEMO_BTF MIGRATION_BTF MULTICORE_HTF ATF
 *        SHARK_DUMP TARMAC_LOG FREERTOS_BTF (a missing corpus file: skipped) */
#include "tk_test.h"
#include "tracekit/tracekit.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct want {
	const char *entity, *core;   /* core NULL: no parent */
} want;

static const char *name_of(const tk_trace *t, uint32_t id)
{
	const tk_entity *e = id == TK_NONE ? NULL : tk_trace_entity(t, id);

	return e ? tk_trace_str(t, e->name, NULL) : "(none)";
}

/* Read `path` (format probed; -1 when it cannot be opened) and check the
 * rule on every event and `w` (n rows) at the end; with `freertos`, every
 * task named "[c/..." has core "Core_c".  Returns the processes with a
 * parent. */
static long check_file(const char *path, int declared, const want *w, size_t n,
		       int freertos)
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

		if (!e || !tk_etype_is_process(e->type))
			continue;
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
		if (first[ev->target] == TK_NONE && ev->core != TK_NONE)
			first[ev->target] = ev->core;
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
	for (i = 0; i < tk_trace_entity_count(t); i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		const char *nm = tk_trace_str(t, e->name, NULL);

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
	};
	/* started on Core1, migrated to Core2: the first core stays */
	static const want migration[] = { { "Task1", "Core1" } };
	/* the core sections of the records */
	static const want htf[] = {
		{ "Task_1_0", "Core_1" }, { "Task_2_0", "Core_2" }, { "Task_3_0", "Core_3" },
	};
	static const want atf[] = { { "Task1", "Core_1" } };
	/* one core */
	static const want shark[] = {
		{ "task1", "Core_0" }, { "task5", "Core_0" }, { "IRQ0", "Core_0" },
	};
	static const want tarmac[] = {
		{ "Reset", "Core_0" }, { "HardFault", "Core_0" }, { "SVCall", "Core_0" },
	};
	long n;

	if (argc != 8) {
		fprintf(stderr, "usage: test_entity_cores DEMO_BTF MIGRATION_BTF HTF ATF SHARK TARMAC FREERTOS_BTF\n");
		return 2;
	}
	CHECK(check_file(argv[1], 0, demo, sizeof(demo) / sizeof(demo[0]), 0) == 4);
	if (here(argv[2]))
		CHECK(check_file(argv[2], 0, migration, 1, 0) == 1);
	CHECK(check_file(argv[3], 0, htf, sizeof(htf) / sizeof(htf[0]), 0) >= 3);
	CHECK(check_file(argv[4], 1, atf, sizeof(atf) / sizeof(atf[0]), 0) >= 1);
	if (here(argv[5]))
		CHECK(check_file(argv[5], 0, shark, sizeof(shark) / sizeof(shark[0]), 0) >= 3);
	if (here(argv[6]))
		CHECK(check_file(argv[6], 0, tarmac, sizeof(tarmac) / sizeof(tarmac[0]), 0) == 3);
	n = check_file(argv[7], 0, NULL, 0, 1);
	CHECK(n >= 4);
	TEST_DONE();
}
