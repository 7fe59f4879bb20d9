/*
 * gen_background.c - a BTF trace whose every core runs one background task
 * that never terminates (started at time 0, preempted and resumed around
 * everything else) under many short task instances, each with one runnable:
 * the slice of the background task stays open the whole trace, so an
 * export that keeps the slices nested in an open one (perfetto) holds them
 * all until the end.  For the export benchmark (bench/exports.sh) and the
 * test that the exports stay linear (tests/exports/linear.py).
 *
 *   gen_background [-n EVENTS] [-c CORES] [OUT]
 *
 *   -n EVENTS  about this many event lines (default 1000000; suffixes k, M)
 *   -c CORES   cores, 1..65536 (default 1)
 *   OUT        output file; "-" or none writes to stdout
 *
 * Per core: Bg_<c> activated and started at 0; then every 10 ns an
 * instance of Job_<c>: activate, Bg preempted, Job start, runnable
 * Run_<c> start and terminate, Job terminate, Bg resume (7 lines).  The
 * cores run in step, one line of each core after the other.
 * Standalone: C11 and libc only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long parse_count(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	if (*end == 'k' || *end == 'K')
		v *= 1000ull, end++;
	else if (*end == 'M')
		v *= 1000000ull, end++;
	return *end ? 0 : v;
}

int main(int argc, char **argv)
{
	unsigned long long n = 1000000, k, t;
	unsigned cores = 1, c, line;
	const char *path = NULL;
	FILE *out = stdout;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			n = parse_count(argv[++i]);
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			cores = (unsigned)atoi(argv[++i]);
		} else if (!path) {
			path = argv[i];
		} else {
			n = 0;
			break;
		}
	}
	if (!n || cores < 1 || cores > 65536) {
		fprintf(stderr, "usage: gen_background [-n EVENTS] [-c CORES 1..65536] [OUT]\n");
		return 2;
	}
	if (path && strcmp(path, "-") != 0 && !(out = fopen(path, "w"))) {
		perror(path);
		return 1;
	}
	fputs("#version 2.2.0\n#creator gen_background\n#timescale ns\n", out);
	for (c = 0; c < cores; c++)
		fprintf(out, "0,STI_Bg_%u,0,T,Bg_%u,0,activate\n"
			"0,Core_%u,0,T,Bg_%u,0,start\n", c, c, c, c);
	for (k = 0, t = 10; (k * 7 + 2) * cores < n; k++, t += 10) {
		for (line = 0; line < 7; line++)
			for (c = 0; c < cores; c++) {
				switch (line) {
				case 0:
					fprintf(out, "%llu,STI_Job_%u,%llu,T,Job_%u,%llu,activate\n",
						t, c, k, c, k);
					break;
				case 1:
					fprintf(out, "%llu,Core_%u,0,T,Bg_%u,0,preempt\n",
						t + 1, c, c);
					break;
				case 2:
					fprintf(out, "%llu,Core_%u,0,T,Job_%u,%llu,start\n",
						t + 1, c, c, k);
					break;
				case 3:
					fprintf(out, "%llu,Job_%u,%llu,R,Run_%u,%llu,start\n",
						t + 2, c, k, c, k);
					break;
				case 4:
					fprintf(out, "%llu,Job_%u,%llu,R,Run_%u,%llu,terminate\n",
						t + 5, c, k, c, k);
					break;
				case 5:
					fprintf(out, "%llu,Core_%u,0,T,Job_%u,%llu,terminate\n",
						t + 6, c, c, k);
					break;
				default:
					fprintf(out, "%llu,Core_%u,0,T,Bg_%u,0,resume\n",
						t + 6, c, c);
					break;
				}
			}
	}
	if (ferror(out) || (out != stdout && fclose(out) != 0)) {
		perror(path ? path : "stdout");
		return 1;
	}
	return 0;
}
