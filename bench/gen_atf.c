/*
 * gen_atf.c - writes a synthetic ATF (AMALTHEA Trace Format, XML) trace for
 * bench/atf_read.sh: CORES Resources, each with TASKS tasks of RUNS
 * runnables, and N TraceEntry elements of tasks and runnables running in
 * cycles on their cores (activate, start, the runnables' start and
 * terminate, terminate), times in microseconds with one decimal place.
 * Usage: gen_atf -n N -c CORES OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASKS 8
#define RUNS 4

int main(int argc, char **argv)
{
	unsigned long long n = 1000000, i = 0, t10 = 0;
	unsigned cores = 2, c, t, r;
	const char *out = NULL;
	FILE *f;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-c") && a + 1 < argc)
			cores = (unsigned)strtoul(argv[++a], NULL, 10);
		else
			out = argv[a];
	}
	if (!out || !cores || cores > 64) {
		fprintf(stderr, "usage: gen_atf -n N -c CORES OUT\n");
		return 2;
	}
	f = fopen(out, "w");
	if (!f)
		return 1;
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		   "<CommonFormat Version=\"1.0\">\n"
		   "  <SystemConfiguration Name=\"gen_atf\">\n");
	for (c = 0; c < cores; c++) {
		fprintf(f, "    <Resource ID=\"%u\" Scheduler=\"OSEK\">\n", c);
		for (t = 0; t < TASKS; t++) {
			unsigned id = 1000 * (c + 1) + 10 * t;
			fprintf(f, "      <SystemElement Name=\"Task_%u_%u\" ID=\"%u\" Type=\"task\">\n",
				c, t, id);
			for (r = 0; r < RUNS; r++)
				fprintf(f, "        <SystemElement Name=\"Run_%u_%u_%u\" ID=\"%u\" Type=\"runnable\" />\n",
					c, t, r, id + 1 + r);
			fprintf(f, "      </SystemElement>\n");
		}
		fprintf(f, "    </Resource>\n");
	}
	fprintf(f, "    <EventIDMappings>\n"
		   "      <EventIDMapping EventID=\"1\" EventType=\"activation\" />\n"
		   "      <EventIDMapping EventID=\"2\" EventType=\"start\" />\n"
		   "      <EventIDMapping EventID=\"3\" EventType=\"terminate\" />\n"
		   "    </EventIDMappings>\n"
		   "    <TimeBase Unit=\"us\">\n"
		   "      <Value Numerator=\"1\" Denominator=\"1\" />\n"
		   "    </TimeBase>\n"
		   "  </SystemConfiguration>\n"
		   "  <TraceData Start=\"0\">\n");
	/* one task cycle per core in turn: 4 + 2 * RUNS entries */
	while (i < n) {
		for (c = 0; c < cores && i < n; c++) {
			unsigned id = 1000 * (c + 1) + 10 * (unsigned)((i / cores) % TASKS);
#define E(ev, ref) do { if (i < n) { \
	fprintf(f, "    <TraceEntry Time=\"%llu.%llu\" EventID=\"%u\" ReferenceID=\"%u\" />\n", \
		t10 / 10, t10 % 10, (ev), (ref)); i++; t10 += 3; } } while (0)
			E(1, id);
			E(2, id);
			for (r = 0; r < RUNS; r++) {
				E(2, id + 1 + r);
				E(3, id + 1 + r);
			}
			E(3, id);
#undef E
		}
	}
	fprintf(f, "  </TraceData>\n</CommonFormat>\n");
	if (fclose(f) != 0)
		return 1;
	return 0;
}
