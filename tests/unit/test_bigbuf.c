/*
 * test_bigbuf.c - tk_bigbuf_alloc(): 64-byte aligned, every byte writable
 * and kept, for sizes on both sides of the threshold of a mapping of its
 * own (256 KB) and of a huge page (2 MB); NULL for a size that overflows;
 * tk_bigbuf_free(NULL) does nothing.  A mapped buffer starts on a huge
 * page (its header is before it), so that one of whole huge pages takes
 * no page more.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"
#include "tk_test.h"

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int main(void)
{
	static const size_t sizes[] = {
		0, 1, 64, 4096, (256u << 10) - 1, 256u << 10, (2u << 20) - 64,
		2u << 20, (2u << 20) + 1, 9u << 20
	};
	size_t i, k;

	for (k = 0; k < 2; k++) {  /* twice: memory given back is reused */
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			unsigned char *p = tk_bigbuf_alloc(n);
			CHECK(p != NULL);
			if (!p)
				continue;
			CHECK(((uintptr_t)p & 63) == 0);
			memset(p, 0, n);
			CHECK(all_zero(p, n));
			if (n) {
				memset(p, 0xa5, n);
				CHECK(p[0] == 0xa5 && p[n - 1] == 0xa5);
			}
			tk_bigbuf_free(p);
		}
	}
	/* mapped: the start on a huge page (not under ASan, whose buffers
	 * are the heap's) */
#if !defined(__SANITIZE_ADDRESS__) && defined(MADV_HUGEPAGE) && \
	defined(MAP_ANONYMOUS)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define WANT_HUGE 1
#endif
#else
#define WANT_HUGE 1
#endif
#endif
#ifdef WANT_HUGE
	{
		unsigned char *p = tk_bigbuf_alloc(4u << 20);
		CHECK(p != NULL && ((uintptr_t)p & ((2u << 20) - 1)) == 0);
		tk_bigbuf_free(p);
	}
#endif
	CHECK(tk_bigbuf_alloc(SIZE_MAX) == NULL);
	CHECK(tk_bigbuf_alloc(SIZE_MAX - 100) == NULL);
	tk_bigbuf_free(NULL);
	TEST_DONE();
}
