/* spill.c - a temporary file of fixed-size records (see spill.h). */
#define _GNU_SOURCE /* pread */
#include "spill.h"

#include "internal.h"

#include <string.h>
#include <unistd.h>

int tk_spill_open(tk_spill *s, size_t size)
{
	s->size = size;
	s->n = 0;
	s->f = tmpfile();
	return s->f ? TK_OK : TK_E_IO;
}

int tk_spill_put(tk_spill *s, const void *rec)
{
	if (fwrite(rec, s->size, 1, s->f) != 1)
		return TK_E_IO;
	s->n++;
	return TK_OK;
}

int tk_spill_put_n(tk_spill *s, const void *recs, size_t n)
{
	if (n && fwrite(recs, s->size, n, s->f) != n)
		return TK_E_IO;
	s->n += n;
	return TK_OK;
}

size_t tk_spill_read_at(tk_spill *s, uint64_t at, void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t want, got = 0;
	ssize_t r;

	if (!s->f || at >= s->n)
		return 0;
	if (n > s->n - at)
		n = (size_t)(s->n - at);
	if (fflush(s->f) != 0)
		return (size_t)-1;
	want = n * s->size;
	while (got < want) {
		r = pread(fileno(s->f), p + got, want - got,
			  (off_t)(at * s->size + got));
		if (r <= 0)
			return (size_t)-1; /* the records were written: no end */
		got += (size_t)r;
	}
	return n;
}

void tk_spill_close(tk_spill *s)
{
	if (s->f)
		fclose(s->f);
	s->f = NULL;
}

int tk_spill_rewind(tk_spill_cursor *c, tk_spill *s)
{
	c->s = s && s->f ? s : NULL;
	c->n = c->i = 0;
	c->failed = 0;
	c->eof = !c->s;
	if (c->s && (fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET) != 0)) {
		c->failed = c->eof = 1;
		return TK_E_IO;
	}
	return TK_OK;
}

const void *tk_spill_peek(tk_spill_cursor *c)
{
	if (c->i == c->n) {
		if (c->eof)
			return NULL;
		c->n = fread(c->buf, c->s->size, sizeof(c->buf) / c->s->size,
			     c->s->f);
		c->i = 0;
		if (c->n < sizeof(c->buf) / c->s->size) {
			c->eof = 1;
			if (ferror(c->s->f))
				c->failed = 1;
		}
		if (!c->n)
			return NULL;
	}
	return c->buf + c->i * c->s->size;
}
