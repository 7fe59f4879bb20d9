/*
 * rusage.c - run a command, report its wall time and peak RSS.
 *
 *   rusage RESULT_FILE COMMAND [ARG...]
 *
 * Runs COMMAND (searched in PATH, no shell) with the inherited stdin, stdout
 * and stderr, waits for it with wait4() and writes one line to RESULT_FILE:
 *
 *   <wall seconds> <peak RSS in KiB> <status> <CPU seconds>
 *
 * wall seconds: CLOCK_MONOTONIC from just before fork() to wait4() return
 * (ns resolution; GNU time's %e only has 10 ms).  Peak RSS: ru_maxrss of the
 * child as returned by wait4() (the same number GNU time prints for %M; it
 * covers the child and the descendants it waited for).  status: the exit
 * code, or 128+signal.  CPU seconds: the child's user plus system time
 * (ru_utime + ru_stime): what a test compares against another job's to see
 * that a cost is linear, since it grows far less than the wall time when
 * the machine is shared.  rusage itself exits with that status.
 *
 * C11 + POSIX; compiled by bench/btf_read.sh.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rusage RESULT_FILE COMMAND [ARG...]\n");
		return 2;
	}
	FILE *res = fopen(argv[1], "w");
	if (!res) {
		fprintf(stderr, "rusage: cannot open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		fclose(res);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rusage: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}

	int st;
	struct rusage ru;
	pid_t w;
	do {
		w = wait4(pid, &st, 0, &ru);
	} while (w < 0 && errno == EINTR);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (w < 0) {
		fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
		return 2;
	}

	int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	fprintf(res, "%.6f %ld %d %.6f\n", wall, (long)ru.ru_maxrss, code, cpu);
	if (fclose(res) != 0) {
		fprintf(stderr, "rusage: cannot write %s\n", argv[1]);
		return 2;
	}
	return code;
}
