/* fail_calloc.h - make the library's calloc() fail on purpose, for the
 * tests of its out-of-memory paths.  A test program includes this once and
 * is linked with -Wl,--wrap=calloc (tests/CMakeLists.txt): the next
 * `fail_callocs` calls of calloc() return NULL, the later ones allocate. */
#ifndef TK_FAIL_CALLOC_H
#define TK_FAIL_CALLOC_H

#include <stdlib.h>

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static int fail_callocs;

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_callocs > 0) {
		fail_callocs--;
		return NULL;
	}
	return __real_calloc(n, size);
}

#endif
