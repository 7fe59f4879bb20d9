/* util.c - allocation with overflow checks, ASCII helpers, decimal output. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void *tk_xrealloc_array(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (n == 0 || size == 0)
		n = size = 1;
	return realloc(p, n * size);
}

int tk_grow_zero_slow(void **arr, size_t *cap, size_t id, size_t esize)
{
	size_t ncap;
	unsigned char *p;

	if (id < *cap)
		return 0;
	/* the first block: 16 elements, or about 256 bytes of larger ones */
	ncap = *cap ? *cap : esize > 16 ? (256 + esize - 1) / esize : 16;
	while (ncap <= id) {
		if (ncap > SIZE_MAX / 2 / esize)
			return -1;
		ncap *= 2;
	}
	p = realloc(*arr, ncap * esize);
	if (!p)
		return -1;
	memset(p + *cap * esize, 0, (ncap - *cap) * esize);
	*arr = p;
	*cap = ncap;
	return 0;
}

int tk_grow_zero32_slow(void **arr, uint32_t *cap, size_t id, size_t esize)
{
	size_t c = *cap;

	if (id < c)
		return TK_OK;
	if (id >= UINT32_MAX || tk_grow_zero_slow(arr, &c, id, esize) < 0)
		return TK_E_NOMEM;
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return TK_OK;
}

const char *tk_quote(char *buf, size_t size, const char *p, const char *end)
{
	size_t n = (size_t)(end - p), i, o = 0;

	for (i = 0; i < n && o + 5 < size && i < 40; i++) {
		unsigned char c = (unsigned char)p[i];
		buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (i < n && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* Compare alen bytes at a with the NUL-terminated b, ignoring ASCII case. */
int tk_ascii_casecmp(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen; i++) {
		int ca = lower((unsigned char)a[i]);
		int cb = lower((unsigned char)b[i]);
		if (cb == 0 || ca != cb)
			return ca - cb ? ca - cb : 1;
	}
	return b[i] ? -1 : 0;
}

size_t tk_fmt_u64(char *out, uint64_t v)
{
	return (size_t)(tk_put_u64(out, v) - out);
}

size_t tk_fmt_i64(char *out, int64_t v)
{
	return (size_t)(tk_put_i64(out, v) - out);
}

int tk_core_number(const char *s, size_t len, uint64_t *id)
{
	uint64_t v = 0;
	size_t k;

	if (len <= 5 || len > 25 || memcmp(s, "Core_", 5) != 0 ||
	    (s[5] == '0' && len != 6))
		return 0;
	for (k = 5; k < len; k++) {
		if (s[k] < '0' || s[k] > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[k] - '0');
	}
	*id = v;
	return 1;
}

void tk_core_ids(void *base, size_t n, size_t stride)
{
#define CORE(i) ((tk_core_id *)(void *)((char *)base + (i) * stride))
	uint64_t next = 0;
	size_t i, j;

	/* cores are few: each one looks among them all */
	for (i = 0; i < n; i++) {
		for (j = 0; !CORE(i)->named && j < n; j++)
			if (CORE(j)->named && CORE(j)->id == next) {
				next++;
				j = (size_t)-1; /* from the first again */
			}
		if (!CORE(i)->named)
			CORE(i)->id = next++;
	}
#undef CORE
}

int tk_ascii_ncaseeq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	return 1;
}

void tk_once_run(tk_once *o, void (*fn)(void))
{
	pthread_once(&o->once, fn);
}

size_t tk_utf8_len(const unsigned char *s, size_t n)
{
	/* the range of the second byte, by the first; the others 80..BF */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

const char *tk_xml_escape(char c, int attr)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return attr ? "&quot;" : NULL;
	case '\n': return attr ? "&#10;" : NULL;
	case '\r': return "&#13;";
	case '\t': return attr ? "&#9;" : NULL;
	default: return NULL;
	}
}

/* tracekit.h; html: also <, > and & escaped, for a <script> */
void tk_json_write_str(FILE *fp, const char *s, size_t n, int html)
{
	size_t i, len;

	fputc('"', fp);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\r')
			fputs("\\r", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c == 0x7f ||
			 (html && (c == '<' || c == '>' || c == '&')))
			fprintf(fp, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, fp);
		else if ((len = tk_utf8_len((const unsigned char *)s + i, n - i))) {
			/* valid UTF-8 as it is; in a <script>, U+2028 and
			 * U+2029 escaped (JavaScript before ES2019 ends a
			 * string literal at them, JSON does not) */
			if (html && len == 3 && c == 0xe2 &&
			    (unsigned char)s[i + 1] == 0x80 &&
			    ((unsigned char)s[i + 2] == 0xa8 ||
			     (unsigned char)s[i + 2] == 0xa9))
				fprintf(fp, "\\u%04x",
					(unsigned)(0x2000 + (unsigned char)s[i + 2] - 0x80));
			else
				fwrite(s + i, 1, len, fp);
			i += len - 1;
		} else {
			fputs("\\ufffd", fp); /* a stray byte */
		}
	}
	fputc('"', fp);
}
