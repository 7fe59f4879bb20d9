/*
 * scan.h - byte classes of 16 bytes at a time: the one vectorised scan
 * of the text readers (BTF's fields and lines, Tarmac's tokens and line
 * prefixes), with one dispatch.  Where the target has SSE2 a class is one
 * compare and one move-mask; elsewhere a portable loop gives the same
 * masks.  A reader never includes an intrinsics header itself.
 *
 * Each function reads exactly 16 bytes at p (and at q), which must be
 * readable; bit i of a mask stands for byte i.
 */
#ifndef TK_SCAN_H
#define TK_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define TK_SCAN_SIMD 1

/* bytes equal to c */
static inline uint32_t tk_scan_eq16(const char *p, char c)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

/* bytes equal to a or to b */
static inline uint32_t tk_scan_eq16_2(const char *p, char a, char b)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (uint32_t)_mm_movemask_epi8(_mm_or_si128(
		_mm_cmpeq_epi8(v, _mm_set1_epi8(a)),
		_mm_cmpeq_epi8(v, _mm_set1_epi8(b))));
}

/* bytes of p equal to those of q at the same place */
static inline uint32_t tk_scan_same16(const char *p, const char *q)
{
	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
		_mm_loadu_si128((const __m128i *)(const void *)p),
		_mm_loadu_si128((const __m128i *)(const void *)q)));
}

#else
#define TK_SCAN_SIMD 0

static inline uint32_t tk_scan_eq16(const char *p, char c)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < 16; i++)
		m |= (uint32_t)(p[i] == c) << i;
	return m;
}

static inline uint32_t tk_scan_eq16_2(const char *p, char a, char b)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < 16; i++)
		m |= (uint32_t)(p[i] == a || p[i] == b) << i;
	return m;
}

static inline uint32_t tk_scan_same16(const char *p, const char *q)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < 16; i++)
		m |= (uint32_t)(p[i] == q[i]) << i;
	return m;
}
#endif

#endif /* TK_SCAN_H */
