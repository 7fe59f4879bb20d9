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
 * digit (*out is then of no use).  tk_scan_dec16() reads the n (1..16)
 * bytes before end as decimal digits the same way (the 16 bytes before
 * end must be readable); tk_scan_dec8x2() two numbers of n1 and n2 (1..8)
 * digits before end1 and end2 (the 8 bytes before each readable).
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

/* bytes at most c (unsigned) */
static inline uint32_t tk_scan_le16(const char *p, unsigned char c)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8((char)c)), v));
}

/* The last n of the 16 bytes of v, less '0', as two numbers of 8 digits
 * (the first the most significant, the bytes before the n set to 0): 0
 * if one of the n is not a digit. */
static inline int tk_scan_dec_vec(__m128i v, __m128i keep, uint32_t *hi,
				  uint32_t *lo)
{
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	__m128i ok = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);

	if (_mm_movemask_epi8(_mm_andnot_si128(ok, keep)))
		return 0;
	d = _mm_and_si128(d, keep);
	/* pairs of digits, then groups of 4, then of 8 */
	d = _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(d, _mm_set1_epi16(0xff)),
					  _mm_set1_epi16(10)),
			  _mm_srli_epi16(d, 8));
	d = _mm_madd_epi16(d, _mm_set_epi16(1, 100, 1, 100, 1, 100, 1, 100));
	d = _mm_packs_epi32(d, d);
	d = _mm_madd_epi16(d, _mm_set_epi16(1, 10000, 1, 10000, 1, 10000, 1, 10000));
	*hi = (uint32_t)_mm_cvtsi128_si32(d);
	*lo = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(d, 4));
	return 1;
}

/* 0x00 16 times, then 0xff 16 times: at +k, the last 16 - k bytes set */
static inline __m128i tk_scan_tail(unsigned k)
{
	static const unsigned char tail[32] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		255, 255, 255, 255, 255, 255, 255, 255,
		255, 255, 255, 255, 255, 255, 255, 255
	};

	return _mm_loadu_si128((const __m128i *)(const void *)(tail + k));
}

static inline int tk_scan_dec16(const char *end, unsigned n, uint64_t *out)
{
	uint32_t hi, lo;

	if (!tk_scan_dec_vec(_mm_loadu_si128((const __m128i *)(const void *)(end - 16)),
			     tk_scan_tail(n), &hi, &lo))
		return 0;
	*out = (uint64_t)hi * 100000000u + lo;
	return 1;
}

static inline int tk_scan_dec8x2(const char *end1, unsigned n1,
				 const char *end2, unsigned n2, uint64_t *out1,
				 uint64_t *out2)
{
	uint32_t a, b;

	if (!tk_scan_dec_vec(
		    _mm_unpacklo_epi64(
			    _mm_loadl_epi64((const __m128i *)(const void *)(end1 - 8)),
			    _mm_loadl_epi64((const __m128i *)(const void *)(end2 - 8))),
		    _mm_unpacklo_epi64(tk_scan_tail(8 + n1), tk_scan_tail(8 + n2)),
		    &a, &b))
		return 0;
	*out1 = a;
	*out2 = b;
	return 1;
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

static inline uint32_t tk_scan_le16(const char *p, unsigned char c)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < 16; i++)
		m |= (uint32_t)((unsigned char)p[i] <= c) << i;
	return m;
}

static inline int tk_scan_dec16(const char *end, unsigned n, uint64_t *out)
{
	const char *p = end - n;
	uint64_t v = 0;

	for (; p < end; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';
		if (d > 9)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

static inline int tk_scan_dec8x2(const char *end1, unsigned n1,
				 const char *end2, unsigned n2, uint64_t *out1,
				 uint64_t *out2)
{
	return tk_scan_dec16(end1, n1, out1) && tk_scan_dec16(end2, n2, out2);
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
