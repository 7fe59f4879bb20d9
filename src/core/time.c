/*
 * time.c - the exact time base.
 *
 * A tick lasts num/den of a unit.  Converting between two time bases is a
 * multiplication by a rational number that is reduced factor by factor
 * (gcd first) so that it fits 128-bit intermediates; what still does not fit
 * or does not divide is reported, never rounded, unless the caller asks for
 * a rounding direction.
 */
#include "internal.h"

#include <string.h>

typedef tk_u128 u128;

static const uint64_t unit_ps[] = {
	1ull, 1000ull, 1000000ull, 1000000000ull, 1000000000000ull
};
static const char *const unit_names[] = { "ps", "ns", "us", "ms", "s" };

const char *tk_unit_name(tk_unit unit)
{
	if ((unsigned)unit > TK_UNIT_S)
		return "?";
	return unit_names[unit];
}

int tk_unit_micro_sign(const char *s, size_t len)
{
	return len >= 2 && ((s[0] == '\xc2' && s[1] == '\xb5') ||
			    (s[0] == '\xce' && s[1] == '\xbc'));
}

int tk_unit_parse(const char *s, size_t len, int ignore_case, tk_unit *out)
{
	int u;

	/* us also with a micro sign (U+00B5) or a Greek mu (U+03BC) */
	if (len == 3 && tk_unit_micro_sign(s, len) &&
	    (s[2] == 's' || (ignore_case && s[2] == 'S'))) {
		*out = TK_UNIT_US;
		return TK_OK;
	}
	for (u = TK_UNIT_PS; u <= TK_UNIT_S; u++) {
		size_t n = strlen(unit_names[u]);
		if (len != n)
			continue;
		if (ignore_case ? tk_ascii_casecmp(s, len, unit_names[u]) == 0
				: memcmp(s, unit_names[u], n) == 0) {
			*out = (tk_unit)u;
			return TK_OK;
		}
	}
	return TK_E_PARSE;
}

u128 tk_gcd128(u128 a, u128 b)
{
	while (b) {
		u128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

#define U128_MAX (~(u128)0)

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* a[0] * a[1] * a[2] into *out: -1 if it overflows 128 bits */
static int product3(const uint64_t a[3], u128 *out)
{
	u128 p = a[0];
	int k;

	for (k = 1; k < 3; k++) {
		if (p > U128_MAX / a[k])
			return -1;
		p *= a[k];
	}
	*out = p;
	return 0;
}

/* A time base tk_time_convert() can take: num and den not 0, a unit */
static int tb_valid(const tk_timebase *tb)
{
	return tb->num && tb->den && (unsigned)tb->unit <= TK_UNIT_S;
}

/* The ratio P/Q, in lowest terms, of one `from` tick in `to` ticks: every
 * factor of the numerator cancelled against every one of the denominator
 * before any product (a product first could overflow where the lowest
 * terms fit).  One pass: a prime in both products divides a factor of
 * each, and a pair once made coprime stays so as factors shrink. */
static int ratio(const tk_timebase *from, const tk_timebase *to, u128 *P,
		 u128 *Q)
{
	uint64_t a[3], b[3], g;
	int i;

	if (!tb_valid(from) || !tb_valid(to))
		return TK_E_USAGE;
	a[0] = from->num, a[1] = unit_ps[from->unit], a[2] = to->den;
	b[0] = from->den, b[1] = unit_ps[to->unit], b[2] = to->num;
	for (i = 0; i < 9; i++)
		if ((g = gcd64(a[i / 3], b[i % 3])) > 1) {
			a[i / 3] /= g;
			b[i % 3] /= g;
		}
	if (product3(a, P) < 0 || product3(b, Q) < 0)
		return TK_E_RANGE;
	return TK_OK;
}

int tk_unit_factor(const tk_timebase *tb, tk_unit unit, tk_u128 *p,
		   tk_u128 *q)
{
	tk_timebase to = { unit, 1, 1 };

	return ratio(tb, &to, p, q);
}

/* floor(v * b / q) and its remainder, for b < q, without 192 bits: v's
 * bits from the top, doubling and adding b modulo q (the quotient stays
 * below v) */
static uint64_t muldiv_small(uint64_t v, u128 b, u128 q, u128 *rem)
{
	uint64_t quo = 0;
	u128 r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		quo <<= 1;
		if (r >= q - r) {
			r -= q - r;
			quo |= 1;
		} else {
			r += r;
		}
		if (v >> i & 1) {
			if (r >= q - b) {
				r -= q - b;
				quo++;
			} else {
				r += b;
			}
		}
	}
	*rem = r;
	return quo;
}

int tk_time_convert(uint64_t value, const tk_timebase *from,
		    const tk_timebase *to, tk_round round, uint64_t *out)
{
	u128 p, q, quo, rem;
	int rc;

	if ((unsigned)round > TK_ROUND_UP)
		return TK_E_USAGE;
	if (from->unit == to->unit && from->num == to->num &&
	    from->den == to->den && tb_valid(from)) {
		*out = value;
		return TK_OK;
	}
	rc = ratio(from, to, &p, &q);
	if (rc == TK_E_RANGE && !value) {
		/* a ratio beyond 128 bits: 0 is still 0 */
		*out = 0;
		return TK_OK;
	}
	if (rc < 0)
		return rc;
	/* ratio() makes q from 1 by factors that are not 0, without overflow */
	TK_ANALYZER_ASSUME(q != 0);
	if (!value || p <= U128_MAX / value) {
		quo = (u128)value * p / q;
		rem = (u128)value * p % q;
	} else {
		/* value * (p / q) + value * (p % q) / q */
		if (p / q > UINT64_MAX / value)
			return TK_E_RANGE;
		quo = muldiv_small(value, p % q, q, &rem);
		quo += (u128)value * (p / q);
	}
	if (rem) {
		if (round == TK_ROUND_EXACT)
			return TK_E_RANGE;
		if (round == TK_ROUND_UP)
			quo++;
	}
	if (quo > UINT64_MAX)
		return TK_E_RANGE;
	*out = (uint64_t)quo;
	return TK_OK;
}

int tk_duration_parse(const char *s, int default_unit, uint64_t *value,
		      tk_unit *unit)
{
	u128 v = 0;
	int frac_digits = 0, any = 0, u;
	const char *p = s;
	size_t n;
	tk_unit parsed;

	while (*p == ' ')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, any = 1) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > UINT64_MAX)
			return TK_E_RANGE;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, any = 1) {
			v = v * 10 + (unsigned)(*p - '0');
			frac_digits++;
			if (v > UINT64_MAX)
				return TK_E_RANGE;
		}
	}
	if (!any)
		return TK_E_PARSE;
	while (*p == ' ')
		p++;
	n = strlen(p);
	while (n && p[n - 1] == ' ')
		n--;
	if (!n) {
		if (default_unit > TK_UNIT_S)
			return TK_E_USAGE;
		if (default_unit < 0 || frac_digits)
			return TK_E_PARSE;
		parsed = (tk_unit)default_unit;
	} else if (tk_unit_parse(p, n, 0, &parsed) < 0) {
		return TK_E_PARSE;
	}
	/* a decimal fraction moves to a finer unit, three digits at a time */
	u = (int)parsed;
	while (frac_digits > 0) {
		if (u == TK_UNIT_PS) {
			/* finer than a picosecond: only exact if the tail is 0s */
			while (frac_digits > 0 && v % 10 == 0) {
				v /= 10;
				frac_digits--;
			}
			if (frac_digits)
				return TK_E_RANGE;
			break;
		}
		u--;
		if (frac_digits >= 3) {
			frac_digits -= 3;
		} else {
			int k;
			for (k = frac_digits; k < 3; k++) {
				v *= 10;
				if (v > UINT64_MAX)
					return TK_E_RANGE;
			}
			frac_digits = 0;
		}
	}
	*value = (uint64_t)v;
	*unit = (tk_unit)u;
	return TK_OK;
}

size_t tk_fmt_u128(char *out, tk_u128 v)
{
	char tmp[48];
	size_t n = 0, i;

	/* in 64 bits while the value fits: a 128-bit division is a call */
	while (v > UINT64_MAX) {
		tmp[n++] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	}
	{
		uint64_t w = (uint64_t)v;
		do {
			tmp[n++] = (char)('0' + (unsigned)(w % 10));
			w /= 10;
		} while (w);
	}
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* The decimal digits of the 256-bit number hi * 2^128 + lo into out
 * (at least 78 bytes); returns their count. */
static size_t fmt_u256(char *out, u128 hi, u128 lo)
{
	static const uint64_t chunk = 10000000000000000000ull; /* 10^19 */
	uint64_t w[4] = { (uint64_t)lo, (uint64_t)(lo >> 64), (uint64_t)hi,
			  (uint64_t)(hi >> 64) };
	char tmp[96];
	size_t n = 0, i;
	int k, any;

	do {
		u128 r = 0;
		for (k = 3; k >= 0; k--) {
			u128 cur = r << 64 | w[k];
			w[k] = (uint64_t)(cur / chunk);
			r = cur % chunk;
		}
		any = (w[0] | w[1] | w[2] | w[3]) != 0;
		/* 19 digits of the chunk, fewer for the leading one */
		for (k = 0; k < 19 && (any || r || k == 0); k++) {
			tmp[n++] = (char)('0' + (unsigned)(r % 10));
			r /= 10;
		}
	} while (any);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* a * b as 256 bits: *hi * 2^128 + *lo */
static void mul_u128(u128 a, u128 b, u128 *hi, u128 *lo)
{
	u128 a0 = (uint64_t)a, a1 = a >> 64, b0 = (uint64_t)b, b1 = b >> 64;
	u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;

	*lo = (mid << 64) | (uint64_t)p00;
	*hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

/*
 * ip + rem / den (rem < den, the fraction in lowest terms) exactly: a
 * whole number, a finite decimal, or else the fraction "num/den" (num
 * ip * den + rem, up to 256 bits).
 */
static int fmt_exact(u128 ip, u128 rem, u128 den, char *buf, size_t size)
{
	char tmp[200];
	tk_u128 d;
	size_t len;

	len = tk_fmt_u128(tmp, ip);
	if (rem) {
		/* a finite decimal exists only if den has no prime but 2 and 5 */
		for (d = den; d % 2 == 0; d /= 2)
			;
		for (; d % 5 == 0; d /= 5)
			;
		if (d != 1 || den > ~(tk_u128)0 / 10) {
			u128 hi, lo;
			mul_u128(ip, den, &hi, &lo);
			lo += rem;
			hi += lo < rem; /* the carry */
			len = fmt_u256(tmp, hi, lo);
			tmp[len++] = '/';
			len += tk_fmt_u128(tmp + len, den);
		} else {
			tmp[len++] = '.';
			while (rem && len < sizeof(tmp) - 1) {
				rem *= 10;
				tmp[len++] = (char)('0' + (unsigned)(rem / den));
				rem %= den;
			}
		}
	}
	if (len + 1 > size)
		return TK_E_RANGE;
	memcpy(buf, tmp, len);
	buf[len] = '\0';
	return (int)len;
}

int tk_fmt_ratio(tk_u128 num, tk_u128 den, char *buf, size_t size)
{
	tk_u128 g;

	if (!den)
		return TK_E_RANGE;
	g = tk_gcd128(num, den);
	if (g > 1) {
		num /= g;
		den /= g;
	}
	return fmt_exact(num / den, num % den, den, buf, size);
}

/* ip + rem / den (rem < den) with at most `digits` decimals, rounded half
 * up */
static int fmt_decimal(u128 ip, u128 rem, u128 den, int digits, char *buf,
		       size_t size)
{
	char tmp[200], dig[96];
	size_t len;
	int nd = 0, i;

	if (!den || digits < 0 || digits > (int)sizeof(dig))
		return TK_E_RANGE;
	if (den > ~(tk_u128)0 / 10)
		return TK_E_RANGE;
	if (rem <= UINT64_MAX && den <= UINT64_MAX / 10) {
		/* the usual case in 64 bits (a 128-bit division is a call) */
		uint64_t r64 = (uint64_t)rem, d64 = (uint64_t)den;
		while (r64 && nd < digits) {
			r64 *= 10;
			dig[nd++] = (char)('0' + (unsigned)(r64 / d64));
			r64 %= d64;
		}
		rem = r64;
	}
	while (rem && nd < digits) {
		rem *= 10;
		dig[nd++] = (char)('0' + (unsigned)(rem / den));
		rem %= den;
	}
	/* what is left is rounded half up: the digits end in a carry */
	if (rem && rem >= den - rem) {
		for (i = nd - 1; i >= 0 && dig[i] == '9'; i--)
			dig[i] = '0';
		if (i >= 0) {
			dig[i]++;
		} else {
			if (ip == ~(tk_u128)0)
				return TK_E_RANGE;
			ip++;
		}
	}
	while (nd > 0 && dig[nd - 1] == '0')
		nd--;
	len = tk_fmt_u128(tmp, ip);
	if (nd) {
		tmp[len++] = '.';
		memcpy(tmp + len, dig, (size_t)nd);
		len += (size_t)nd;
	}
	if (len + 1 > size)
		return TK_E_RANGE;
	memcpy(buf, tmp, len);
	buf[len] = '\0';
	return (int)len;
}

int tk_fmt_ratio_dec(tk_u128 num, tk_u128 den, int digits, char *buf,
		     size_t size)
{
	tk_u128 g;

	if (!den)
		return TK_E_RANGE;
	if (num <= UINT64_MAX && den <= UINT64_MAX / 10)
		/* the digits do not need the fraction reduced */
		return fmt_decimal((uint64_t)num / (uint64_t)den,
				   (uint64_t)num % (uint64_t)den, den, digits,
				   buf, size);
	g = tk_gcd128(num, den);
	if (g > 1) {
		num /= g;
		den /= g;
	}
	return fmt_decimal(num / den, num % den, den, digits, buf, size);
}

int tk_time_digits(const tk_timebase *tb, tk_unit unit)
{
	tk_u128 p, q, d, t;
	int two = 0, five = 0, dtick = 0, dres = 0;

	if (tk_unit_factor(tb, unit, &p, &q) < 0 || !p)
		return 3;
	/* the decimals of one tick, where it has a finite decimal */
	for (d = q; d % 2 == 0; d /= 2)
		two++;
	for (; d % 5 == 0; d /= 5)
		five++;
	if (d == 1)
		dtick = two > five ? two : five;
	/* a thousandth of a tick: the smallest D with 10^D * p >= 1000 * q */
	if (q > ~(tk_u128)0 / 10000)
		return 40;
	for (t = p; t < q * 1000 && dres < 40; t *= 10)
		dres++;
	return dtick > dres ? dtick : dres;
}

/*
 * `ticks` of `tb` in `unit` exactly, as *ip + *rem / *den (rem < den, the
 * fraction in lowest terms).  The tick count's common factors with the
 * ratio's denominator cancel first, and a product beyond 128 bits is split
 * as tk_time_convert() splits it: only an integer part beyond 128 bits is
 * TK_E_RANGE, never an intermediate product.
 */
static int ticks_in(uint64_t ticks, const tk_timebase *tb, tk_unit unit,
		    u128 *ip, u128 *rem, u128 *den)
{
	tk_timebase to = { unit, 1, 1 };
	u128 p, q, g, lo;
	uint64_t t;
	int rc;

	rc = ratio(tb, &to, &p, &q);
	if (rc == TK_E_RANGE && !ticks) {
		/* a ratio beyond 128 bits: 0 is still 0 */
		*ip = *rem = 0;
		*den = 1;
		return TK_OK;
	}
	if (rc < 0)
		return rc;
	TK_ANALYZER_ASSUME(q != 0); /* ratio() gives q >= 1 */
	/* p and q are coprime: what ticks shares with q cancels (gcd(0, q)
	 * is q: 0 becomes 0/1) */
	g = tk_gcd128(ticks, q);
	t = (uint64_t)(ticks / g);
	q /= g;
	if (!t || p <= U128_MAX / t) {
		*ip = (u128)t * p / q;
		*rem = (u128)t * p % q;
	} else {
		/* t * (p / q) + t * (p % q) / q */
		if (p / q > U128_MAX / t)
			return TK_E_RANGE;
		*ip = (u128)t * (p / q);
		lo = muldiv_small(t, p % q, q, rem);
		if (*ip > U128_MAX - lo)
			return TK_E_RANGE;
		*ip += lo;
	}
	*den = q;
	return TK_OK;
}

int tk_time_format_decimal(uint64_t ticks, const tk_timebase *tb,
			   tk_unit unit, char *buf, size_t size)
{
	u128 ip, rem, den;
	int rc = ticks_in(ticks, tb, unit, &ip, &rem, &den);

	if (rc < 0)
		return rc;
	return fmt_decimal(ip, rem, den, tk_time_digits(tb, unit), buf, size);
}

int tk_time_format(uint64_t ticks, const tk_timebase *tb, tk_unit unit,
		   char *buf, size_t size)
{
	u128 ip, rem, den;
	int rc = ticks_in(ticks, tb, unit, &ip, &rem, &den);

	if (rc < 0)
		return rc;
	return fmt_exact(ip, rem, den, buf, size);
}
