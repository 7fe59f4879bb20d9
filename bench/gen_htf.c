/*
 * gen_htf.c - writes a synthetic HTF trace for bench/htf_read.sh: CORES
 * core sections of N/CORES records each (4-byte timestamps, 2-byte entity
 * ids, 1-byte event ids), tasks with runnables running in cycles.
 * With -k K, every record has a trailing "// comment" and every K-th line
 * of the trace data is a comment line (the line-at-a-time path of the
 * reader for every record).
 * Usage: gen_htf -n N -c CORES [-k K] OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASKS 8
#define RUNS 4

/* stdio's buffer: glibc ignores the size of setvbuf() without a buffer
 * (it writes 4 KB at a time, and the page cache then holds the file in
 * 4 KB pages, which every reader copies at half the speed of a file
 * written in large blocks, as gen_btf writes) */
static char obuf[1 << 20];

int main(int argc, char **argv)
{
	unsigned long long n = 1000000, per, i;
	unsigned cores = 4, c, t, r, k_comments = 0;
	const char *out = NULL;
	FILE *f;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-c") && a + 1 < argc)
			cores = (unsigned)strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-k") && a + 1 < argc)
			k_comments = (unsigned)strtoul(argv[++a], NULL, 10);
		else
			out = argv[a];
	}
	if (!out || !cores || cores > 64) {
		fprintf(stderr, "usage: gen_htf -n N -c CORES [-k K] OUT\n");
		return 2;
	}
	f = fopen(out, "w");
	if (!f)
		return 1;
	setvbuf(f, obuf, _IOFBF, sizeof(obuf));
	fprintf(f, "#Format HTF\n#Version 1.0\n#NumberOfCores %u\n#TimeScale ns\n"
		   "#TimeScaleNumerator 10\n#TimeScaleDenominator 1\n"
		   "#TimestampLength 4\n#EntityLength 2\n#EventLength 1\n\n"
		   "#TypeTable\n#-00 Task\n#-02 Runnable\n\n#TaskEventTable\n"
		   "#-00 activate\n#-01 start\n#-04 terminate\n\n"
		   "#RunnableEventTable\n#-00 start\n#-03 terminate\n\n#EntityTable\n",
		cores);
	for (c = 0; c < cores; c++)
		for (t = 0; t < TASKS; t++) {
			fprintf(f, "#-%04X Task_%u_%u\n", (c * TASKS + t) * (RUNS + 1), c, t);
			for (r = 0; r < RUNS; r++)
				fprintf(f, "#-%04X Run_%u_%u_%u\n",
					(c * TASKS + t) * (RUNS + 1) + r + 1, c, t, r);
		}
	fprintf(f, "\n#EntityTypeTable\n");
	for (c = 0; c < cores * TASKS * (RUNS + 1); c++)
		fprintf(f, "#-%04X %s\n", c, c % (RUNS + 1) ? "02" : "00");
	fprintf(f, "\n#TraceData\n");
	per = n / cores;
	for (c = 0; c < cores; c++) {
		unsigned long long time = c;
		fprintf(f, "#-%02X\n", c);
		for (i = 0; i < per;) {
			unsigned task = (unsigned)(i / 11) % TASKS;
			unsigned id = (c * TASKS + task) * (RUNS + 1);
			unsigned k;
			/* activate, start, 4 x (runnable start, terminate), terminate */
			for (k = 0; k < 11 && i < per; k++, i++) {
				unsigned ent = id, ev;
				if (k == 0)
					ev = 0;
				else if (k == 1)
					ev = 1;
				else if (k == 10)
					ev = 4;
				else {
					ent = id + 1 + (k - 2) / 2;
					ev = (k - 2) % 2 ? 3 : 0;
				}
				time += 7 + (((i * 2654435761u) & 0xffffffffu) >> 28);
				fprintf(f, "%08llX%04X%02X%s\n", time & 0xffffffffull, ent, ev,
					k_comments ? " // a comment" : "");
				if (k_comments && i % k_comments == 0)
					fprintf(f, "// a comment line\n");
			}
		}
	}
	return fclose(f) ? 1 : 0;
}
