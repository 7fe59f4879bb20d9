/*
 * readahead_switch.c - linked into a bench program with
 * -Wl,--wrap=pthread_create, so that every thread the library starts goes
 * through __wrap_pthread_create() below; for bench/source_readahead.sh.
 *
 * Built without TK_NO_READAHEAD, it starts the thread (and counts it).
 * Built with -DTK_NO_READAHEAD, it refuses it with EAGAIN, as a host out of
 * threads would: the byte source then reads its file with a plain read()
 * per fill, the fallback it has for that case.  Of the threads the library
 * may start, the BTF, ATF and Tarmac readers start only the source's
 * read-ahead, so this build reads them with the thread off, and nothing
 * else changes: the library, its readers and its environment are the same.
 * At exit the counts go to stderr ("threads: N started, M refused"), so
 * that the script can check that the switch took.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);

static unsigned long started, refused;

static void report(void)
{
	fprintf(stderr, "threads: %lu started, %lu refused\n", started, refused);
}

__attribute__((constructor)) static void report_at_exit(void)
{
	atexit(report);
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
#ifdef TK_NO_READAHEAD
	(void)th;
	(void)attr;
	(void)fn;
	(void)arg;
	refused++;
	return EAGAIN;
#else
	started++;
	return __real_pthread_create(th, attr, fn, arg);
#endif
}
