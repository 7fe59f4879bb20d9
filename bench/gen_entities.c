/*
 * gen_entities.c - write a valid BTF 2.3.0 trace with many entities and few
 * events per entity, for the benchmark of costs per entity (bench/entities.sh).
 *
 *   gen_entities [-t TASKS] [-i INSTANCES] [-r RUNNABLES] [-c CORES] [OUT]
 *
 *   -t TASKS      number of tasks (default 100000; suffixes k, M = 1e3, 1e6)
 *   -i INSTANCES  instances per task (default 3)
 *   -r RUNNABLES  runnables per task, each called once per instance (default 0)
 *   -c CORES      number of cores (default 4), tasks spread round robin
 *   OUT           output file; "-" or no argument writes to stdout
 *
 * Standalone: C11 and libc only.  The output is a pure function of the options.
 *
 * Every instance is activated by the timer of its task's core (a stimulus
 * Timer_<c>: trigger, then activate with the stimulus as the source),
 * started on Core_<c> 100 ns later, calls its runnables one after the other and
 * terminates; one instance runs at a time on the whole system, so the time
 * never decreases and every core is idle while another one runs.  Instance
 * round k activates every task once, in task order; the execution times
 * vary with a fixed hash of (task, instance), so that the worst response
 * times differ from task to task.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;

static void die(const char *msg)
{
	fprintf(stderr, "gen_entities: %s\n", msg);
	exit(1);
}

static uint64_t parse_count(const char *s, const char *opt)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-') {
		fprintf(stderr, "gen_entities: bad value for %s: '%s'\n", opt, s);
		exit(2);
	}
	if (*end == 'k' || *end == 'K')
		mul = 1000ull, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1000000ull, end++;
	if (*end || v > UINT32_MAX / mul) {
		fprintf(stderr, "gen_entities: bad value for %s: '%s'\n", opt, s);
		exit(2);
	}
	return (uint64_t)v * mul;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	uint64_t ntasks = 100000, ninst = 3, nrun = 0, ncores = 4, t = 0;
	uint64_t *trig;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] && strchr("tirc", a[1]) && !a[2]) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gen_entities: option %s needs a value\n", a);
				return 2;
			}
			uint64_t v = parse_count(argv[++i], a);
			if (a[1] == 't')
				ntasks = v;
			else if (a[1] == 'i')
				ninst = v;
			else if (a[1] == 'r')
				nrun = v;
			else
				ncores = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "usage: gen_entities [-t TASKS] [-i INSTANCES] "
					"[-r RUNNABLES] [-c CORES] [OUT]\n");
			return 2;
		} else if (!path) {
			path = a;
		} else {
			die("more than one output file");
		}
	}
	if (!ntasks || !ncores)
		die("-t and -c must be at least 1");
	trig = calloc((size_t)ncores, sizeof(*trig));
	if (!trig)
		die("out of memory");
	if (!path || !strcmp(path, "-")) {
		out = stdout;
	} else if (!(out = fopen(path, "wb"))) {
		fprintf(stderr, "gen_entities: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(out, buf, _IOFBF, sizeof buf);
	fprintf(out, "#version 2.3.0\n#creator tracekit-bench-gen\n"
		     "#creationDate 2024-01-01T00:00:00Z\n#timescale ns\n"
		     "# gen_entities tasks=%llu instances=%llu runnables=%llu cores=%llu\n",
		(unsigned long long)ntasks, (unsigned long long)ninst,
		(unsigned long long)nrun, (unsigned long long)ncores);
	for (uint64_t k = 0; k < ninst; k++) {
		for (uint64_t j = 0; j < ntasks; j++) {
			unsigned long long c = (unsigned long long)(j % ncores);
			unsigned long long tj = (unsigned long long)j;
			unsigned long long kk = (unsigned long long)k;
			uint64_t h = mix(j * 0x9E3779B97F4A7C15ull + k + 1);
			unsigned long long si = (unsigned long long)trig[c]++;
			fprintf(out, "%llu,Timer_%llu,%llu,STI,Timer_%llu,%llu,trigger\n",
				(unsigned long long)t, c, si, c, si);
			fprintf(out, "%llu,Timer_%llu,%llu,T,Task_%llu,%llu,activate\n",
				(unsigned long long)t, c, si, tj, kk);
			t += 100 + h % 50;
			fprintf(out, "%llu,Core_%llu,0,T,Task_%llu,%llu,start\n",
				(unsigned long long)t, c, tj, kk);
			for (uint64_t r = 0; r < nrun; r++) {
				unsigned long long rr = (unsigned long long)r;
				t += 10;
				fprintf(out, "%llu,Task_%llu,%llu,R,Run_%llu_%llu,%llu,start\n",
					(unsigned long long)t, tj, kk, tj, rr, kk);
				t += 50 + (h >> (8 + r % 32)) % 100;
				fprintf(out, "%llu,Task_%llu,%llu,R,Run_%llu_%llu,%llu,terminate\n",
					(unsigned long long)t, tj, kk, tj, rr, kk);
			}
			t += 200 + (h >> 20) % 800;
			fprintf(out, "%llu,Core_%llu,0,T,Task_%llu,%llu,terminate\n",
				(unsigned long long)t, c, tj, kk);
			t += 10;
		}
	}
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, "gen_entities: write error: %s\n", strerror(errno));
		return 1;
	}
	free(trig);
	return 0;
}
