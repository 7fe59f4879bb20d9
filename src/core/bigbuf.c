/*
 * bigbuf.c - the readers' large working buffers (event blocks, pread()
 * buffers, the blocks of a pipe) in transparent huge pages where the
 * kernel offers them; and files mapped read-only (tk_file_map(): the
 * Tarmac index), the library's one place for mmap().
 *
 * Each 4 KB page of fresh anonymous memory costs a page fault on its first
 * touch.  On some virtual machines (shadow page tables) that fault costs
 * 7-12 us: the first touch of the four 2.2 MB blocks of the shark reader's
 * pipe took 14 ms, longer than reading a 16 MB dump on one thread.  A
 * buffer of BIG_MIN bytes or more is therefore mapped on its own, aligned
 * to 2 MB and advised MADV_HUGEPAGE: with the kernel's transparent huge
 * pages set to "madvise" or "always", 8 MB then fault in about 1 ms, not
 * 25.  The cost is resident memory: each such buffer is resident in whole
 * 2 MB pages once touched.  Smaller buffers, systems without
 * MADV_HUGEPAGE and AddressSanitizer builds use aligned_alloc().  Either
 * way the memory is 64-byte aligned; like malloc()'s, its contents are
 * not defined (a mapping's are zeros: nothing is written that the caller
 * does not write).
 */
#define _GNU_SOURCE

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Under AddressSanitizer every buffer comes from the heap, where its
 * bounds are checked. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TK_BIGBUF_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || !defined(MADV_HUGEPAGE) || \
	!defined(MAP_ANONYMOUS)
#define TK_BIGBUF_HEAP 1
#endif

/* a buffer this large gets a mapping of its own */
#define BIG_MIN ((size_t)256 << 10)
#define HUGE_PAGE ((size_t)2 << 20)
/* the header before the caller's bytes (a cache line: their alignment) */
#define HEAD ((size_t)64)

typedef struct bighead {
	void *base;          /* what was mapped or allocated */
	size_t len;          /* its length, 0: from aligned_alloc() */
} bighead;

_Static_assert(sizeof(bighead) <= HEAD, "bigbuf header");

void *tk_bigbuf_alloc(size_t n)
{
	bighead h = { NULL, 0 };
	uint8_t *p;

	if (n > SIZE_MAX - HEAD - 2 * HUGE_PAGE)
		return NULL;
#ifndef TK_BIGBUF_HEAP
	if (n >= BIG_MIN) {
		/* the caller's bytes start on a huge page and fill whole ones
		 * (a header of their own would take one more); the header is
		 * in the small page before them */
		size_t want = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		size_t len = want + HUGE_PAGE;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			uintptr_t a = ((uintptr_t)m + HEAD + HUGE_PAGE - 1) &
				      ~(uintptr_t)(HUGE_PAGE - 1);
			/* no huge pages (a kernel without them, or "never"):
			 * the mapping still works, a page at a time */
			(void)madvise((void *)a, want, MADV_HUGEPAGE);
			h.base = m;
			h.len = len;
			p = (uint8_t *)a;
			memcpy(p - HEAD, &h, sizeof(h));
			return p;
		}
	}
#endif
	/* (aligned_alloc() wants a multiple of the alignment) */
	n = (n + HEAD + HEAD - 1) & ~(HEAD - 1);
	p = aligned_alloc(HEAD, n);
	if (!p)
		return NULL;
	h.base = p;
	memcpy(p, &h, sizeof(h));
	return p + HEAD;
}

void tk_bigbuf_free(void *p)
{
	bighead h;

	if (!p)
		return;
	memcpy(&h, (uint8_t *)p - HEAD, sizeof(h));
#ifndef TK_BIGBUF_HEAP
	if (h.len) {
		munmap(h.base, h.len);
		return;
	}
#endif
	free(h.base);
}

int tk_file_map(const char *path, uint64_t limit, uint8_t **buf, size_t *len, int *mapped)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	void *m;

	*buf = NULL;
	*len = 0;
	*mapped = 0;
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > limit ||
	    (uint64_t)sb.st_size > SIZE_MAX)
		goto out;
	rc = 0;
	if (sb.st_size == 0)
		goto out;
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		rc = -1;
		goto out;
	}
	*buf = m;
	*len = (size_t)sb.st_size;
	*mapped = 1;
out:
	close(fd);
	return rc;
}

void tk_file_unmap(uint8_t *buf, size_t len)
{
	if (buf)
		munmap(buf, len);
}
