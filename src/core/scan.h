/*
 * scan.h - byte classes of 16 bytes at a time: the one vectorised scan
 * of the text readers (BTF's fields and lines, Tarmac's tokens and line
 * prefixes, HTF's hex records), with one dispatch.  Where the target has SSE2 a class is one
 * compare and one move-mask; elsewhere a portable loop gives the same
 * masks.  A reader never includes an intrinsics header itself.
 *
 * Each function reads exactly 16 bytes at p (and at q), which must be
 * readable; bit i of a mask stands for byte i.  tk_scan_hex16() reads
 * the n (1..16) bytes at p as hex digits (0-9, A-F, a-f), the first the
 * most significant: 1 and the value in *out, or 0 when one is not a hex
 * digit (*out is then of no use).
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

/* the n bytes at p set to 0, 16 at a time (a fixed-size memset or struct
 * copy of a few hundred bytes becomes "rep stos" or "rep movs", whose
 * start costs more than the stores) */
static inline void tk_scan_zero(void *p, size_t n)
{
	const __m128i z = _mm_setzero_si128();
	char *c = p;
	size_t i;

	/* 32 bytes a step: a loop of one store would be made a memset */
	for (i = 0; i + 32 <= n; i += 32) {
		_mm_storeu_si128((__m128i *)(void *)(c + i), z);
		_mm_storeu_si128((__m128i *)(void *)(c + i + 16), z);
	}
	memset(c + i, 0, n - i);
}

static inline int tk_scan_hex16(const char *p, unsigned n, uint64_t *out)
{
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p),
		      lc = _mm_or_si128(x, _mm_set1_epi8(0x20));
	/* signed compares: a byte above 0x7f is neither */
	const __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1))),
		      let = _mm_and_si128(_mm_cmpgt_epi8(lc, _mm_set1_epi8('a' - 1)),
					  _mm_cmplt_epi8(lc, _mm_set1_epi8('f' + 1)));
	const uint32_t want = (1u << n) - 1;
	uint64_t q;
	/* the digits' values, a pair's in each 16-bit lane, packed to bytes */
	__m128i v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
				 _mm_and_si128(let, _mm_set1_epi8(9)));

	v = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)),
			  _mm_set1_epi16(0xff));
	_mm_storel_epi64((__m128i *)(void *)&q, _mm_packus_epi16(v, v));
	*out = __builtin_bswap64(q) >> (64 - 4 * n);
	return ((uint32_t)_mm_movemask_epi8(_mm_or_si128(dig, let)) & want) == want;
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

static inline void tk_scan_zero(void *p, size_t n)
{
	memset(p, 0, n);
}

static inline int tk_scan_hex16(const char *p, unsigned n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned i, bad = 0;

	for (i = 0; i < n; i++) {
		unsigned c = (unsigned char)p[i], d = c - '0', l = (c | 0x20) - 'a';
		bad |= d > 9 && l > 5;
		v = v << 4 | (d <= 9 ? d : l + 10);
	}
	*out = v;
	return !bad;
}
#endif

#endif /* TK_SCAN_H */
