/*
 * atf_window.c - the Start and Stop a TraceData is written with.
 *
 * ATF's times are decimal fractions of the TimeBase (TimeStampType:
 * digits, optionally '.' and digits), and so are the ticks of the model
 * (TimeBase / 10^d).  The writer keeps an ATF input's Start and Stop as
 * they were written, but a lenient reading also takes entries before Start
 * or after Stop and a Start after its Stop, which a strict reading (the
 * writer's own output included) refuses.  The window is widened to hold
 * the entries, compared as decimal text: exact whatever the number of
 * decimals on either side, never rounded, so no entry falls out of it.
 */
#include "atf.h"

#include <string.h>

size_t atf_time_fmt(char *o, uint64_t v, unsigned digits)
{
	uint64_t p = 1, ip, fp;
	unsigned i;
	size_t n;

	for (i = 0; i < digits; i++)
		p *= 10;
	ip = v / p;
	fp = v % p;
	n = tk_fmt_u64(o, ip);
	if (fp) {
		char f[24];
		unsigned k = digits;
		for (i = digits; i-- > 0;) {
			f[i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		while (k > 0 && f[k - 1] == '0')
			k--;
		o[n++] = '.';
		memcpy(o + n, f, k);
		n += k;
	}
	o[n] = '\0';
	return n;
}

/* The integer digits of time stamp s without leading zeros (*ip, *il)
 * and its decimals (*fp, *fl; trailing zeros count, the compare pads). */
static void split(const char *s, const char **ip, size_t *il,
		  const char **fp, size_t *fl)
{
	size_t n = 0;

	while (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		s++;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	*ip = s;
	*il = n;
	s += n;
	n = 0;
	if (*s == '.')
		for (s++; s[n] >= '0' && s[n] <= '9'; n++)
			;
	*fp = s;
	*fl = n;
}

int atf_time_cmp(const char *a, const char *b)
{
	const char *ai, *af, *bi, *bf;
	size_t ail, afl, bil, bfl, i;
	int c;

	split(a, &ai, &ail, &af, &afl);
	split(b, &bi, &bil, &bf, &bfl);
	/* "0" and "" (".5") are both no integer part */
	if (ail == 1 && ai[0] == '0')
		ail = 0;
	if (bil == 1 && bi[0] == '0')
		bil = 0;
	if (ail != bil)
		return ail < bil ? -1 : 1;
	if ((c = memcmp(ai, bi, ail)) != 0)
		return c < 0 ? -1 : 1;
	/* the decimals, the shorter padded with zeros */
	for (i = 0; i < afl || i < bfl; i++) {
		char x = i < afl ? af[i] : '0', y = i < bfl ? bf[i] : '0';
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

void atf_window_fit(atf_window *win, const char *start, const char *stop,
		    unsigned digits, int any, uint64_t lo, uint64_t hi,
		    uint64_t at)
{
	memset(win, 0, sizeof(*win));
	atf_time_fmt(win->lo, any ? lo : at, digits);
	atf_time_fmt(win->hi, hi, digits);
	/* Start: the kept one unless an entry is before it; none kept, the
	 * first time (the earliest entry's: a time that decreases within
	 * the TraceData is still in it) */
	win->start = win->lo;
	if (start) {
		if (any && atf_time_cmp(start, win->lo) > 0)
			win->widened |= ATF_WIDEN_START;
		else
			win->start = start;
	}
	/* Stop (optional): the kept one unless an entry is after it */
	if (stop) {
		win->stop = stop;
		if (any && atf_time_cmp(stop, win->hi) < 0) {
			win->stop = win->hi;
			win->widened |= ATF_WIDEN_STOP;
		}
		/* only an empty TraceData can still end before its start */
		if (atf_time_cmp(win->stop, win->start) < 0) {
			win->stop = win->start;
			win->widened |= ATF_WIDEN_STOP;
		}
	}
}
