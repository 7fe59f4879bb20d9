/* lines.c - the text readers' one line scanner (lines.h). */
#include "lines.h"
#include "scan.h"

#include <stdlib.h>
#include <string.h>

/* read_at mode: the bytes one read asks for (more for a longer line) */
#define AT_CHUNK ((size_t)64 << 10)

/* Take the source's window (the one a fill handed back: pointers into the
 * one before are dead). */
static void set_window(tk_lines *l, tk_window w)
{
	l->pos = (const char *)w.p;
	l->mark = l->pos;
	l->limit = l->pos + w.n;
}

void tk_lines_init(tk_lines *l, tk_source *s, int cr)
{
	memset(l, 0, sizeof(*l));
	l->src = s;
	l->name = tk_source_name(s);
	l->cr = cr;
	set_window(l, tk_source_window(s));
}

void tk_lines_sync(tk_lines *l)
{
	if (!l->at)
		tk_source_consume(l->src, (size_t)(l->pos - l->mark));
	l->mark = l->pos;
}

uint64_t tk_lines_offset(const tk_lines *l)
{
	uint64_t off = l->at ? l->off + (size_t)(l->pos - l->buf)
			     : tk_source_offset(l->src) +
				       (size_t)(l->pos - l->mark);

	/* the LF of a CRLF whose CR ended the last line */
	return off + (l->skip_lf && l->pos < l->limit && *l->pos == '\n');
}

int tk_lines_init_at(tk_lines *l, tk_source *s, uint64_t off, uint64_t line,
		     int cr, tk_error *err)
{
	int rc;

	memset(l, 0, sizeof(*l));
	l->src = s;
	l->name = tk_source_name(s);
	l->cr = cr;
	l->at = 1;
	if ((rc = tk_source_size(s, &l->size, err)) < 0)
		return rc;
	if (!(l->buf = malloc(AT_CHUNK)))
		return tk_err_nomem(err, l->name);
	l->cap = AT_CHUNK;
	l->off = off;
	l->pos = l->mark = l->limit = l->buf;
	tk_lines_seek(l, off, line);
	return TK_OK;
}

void tk_lines_seek(tk_lines *l, uint64_t off, uint64_t line)
{
	size_t have = (size_t)(l->limit - l->buf);

	if (off >= l->off && off - l->off <= have) {
		l->pos = l->buf + (off - l->off);
	} else {
		l->off = off;
		l->pos = l->limit = l->buf;
	}
	l->mark = l->pos;
	l->skip_lf = 0;
	l->line = line - 1;
}

void tk_lines_free(tk_lines *l)
{
	if (l->at)
		free(l->buf);
	l->buf = NULL;
	l->pos = l->mark = l->limit = NULL;
}

/* Whether the input has no bytes past the window. */
static int at_end(const tk_lines *l)
{
	return l->at ? l->off + (size_t)(l->limit - l->buf) >= l->size
		     : tk_source_eof(l->src);
}

/* read_at mode: the unread bytes moved to the buffer's front, and more
 * read after them (want: the bytes wanted in all).  The bytes read (0 at
 * the end of the input) or < 0. */
static int fill_at(tk_lines *l, size_t want, tk_error *err)
{
	size_t keep = (size_t)(l->limit - l->pos), get;
	uint64_t left;
	int rc;

	l->off += (size_t)(l->pos - l->buf);
	memmove(l->buf, l->pos, keep);
	if (want < keep + AT_CHUNK)
		want = keep + AT_CHUNK;
	if (want > l->cap) {
		char *nb = realloc(l->buf, want);
		if (!nb)
			return tk_err_nomem(err, l->name);
		l->buf = nb;
		l->cap = want;
	}
	left = l->size - l->off - keep;
	get = l->cap - keep;
	if (get > left)
		get = (size_t)left;
	rc = tk_source_read_at(l->src, l->off + keep, l->buf + keep, get, err);
	l->pos = l->mark = l->buf;
	l->limit = l->buf + keep + (rc < 0 ? 0 : get);
	return rc < 0 ? rc : get > 0;
}

/* The first CR or LF in [p, end), or NULL. */
static const char *find_cr_lf(const char *p, const char *end)
{
	for (; end - p >= 16; p += 16) {
		uint32_t m = tk_scan_eq16_2(p, '\r', '\n');
		if (m)
			return p + __builtin_ctz(m);
	}
	for (; p < end; p++)
		if (*p == '\r' || *p == '\n')
			return p;
	return NULL;
}

int tk_lines_next(tk_lines *l, const char **line, size_t *len, tk_error *err)
{
	const char *p, *e, *stop;
	size_t done = 0, want; /* done: bytes of the line scanned before a fill */
	tk_window w;
	int rc;

	for (;;) {
		p = l->pos;
		if (l->skip_lf && p < l->limit) {
			/* the LF of a CRLF ends the line before */
			l->skip_lf = 0;
			if (*p == '\n')
				p = ++l->pos;
		}
		/* no further than a line may go: its bytes, a CR and the LF */
		stop = (size_t)(l->limit - p) > TK_LINE_MAX + 2
			       ? p + TK_LINE_MAX + 2 : l->limit;
		if (p + done == stop)
			e = NULL; /* (an empty window's p may be NULL) */
		else if (l->cr)
			e = find_cr_lf(p + done, stop);
		else
			e = memchr(p + done, '\n', (size_t)(stop - (p + done)));
		if (e && !(l->cr && *e == '\r' && e + 1 == l->limit &&
			   !at_end(l)))
			break;
		if (e) {
			/* a CR at the window's end: whether a LF follows it
			 * shows once more is read */
			done = (size_t)(e - p);
		} else {
			if ((size_t)(l->limit - p) >= TK_LINE_MAX + 2)
				return tk_err_line_long(err, l->name, l->line + 1);
			if (at_end(l)) {
				if (p == l->limit)
					return TK_END;
				e = l->limit; /* a last line with no line end */
				break;
			}
			done = (size_t)(l->limit - p);
		}
		/* the line goes on past the window: read more, which may move
		 * the window; the scan goes on where it stopped */
		want = (size_t)(l->limit - p) + 1;
		if (l->at) {
			rc = fill_at(l, want, err);
		} else {
			tk_lines_sync(l);
			rc = tk_source_fill(l->src, want, &w, err);
			set_window(l, w);
		}
		if (rc < 0)
			return rc;
		if (rc == 0 && !at_end(l))
			return tk_err_set(err, TK_E_IO, l->name, l->line + 1, 0,
					  "input ended unexpectedly");
	}
	/* p is in the window: pos is NULL in an empty one only (TK_END) */
	TK_ANALYZER_ASSUME(p != NULL);
	*line = p;
	*len = (size_t)(e - p);
	if (e < l->limit) {
		l->skip_lf = l->cr && *e == '\r';
		/* (a CR at the window's end is taken at the input's end only) */
		if (l->skip_lf && (e + 1 == l->limit || e[1] != '\n'))
			l->bare_cr++;
		l->pos = e + 1;
	} else {
		l->pos = e;
	}
	if ((size_t)(l->pos - l->mark) >= TK_LINES_BATCH)
		tk_lines_sync(l);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	if (*len > TK_LINE_MAX)
		return tk_err_line_long(err, l->name, l->line + 1);
	l->line++;
	return TK_OK;
}

size_t tk_text_bom(const uint8_t *p, size_t n)
{
	return n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf ? 3 : 0;
}

int tk_text_begin(tk_source *s, tk_error *err)
{
	tk_window w = tk_source_window(s);
	const uint8_t *p;
	size_t avail, i = 0;
	int rc, bom = 1;  /* still to look for */

	for (;;) {
		if (bom && (w.n >= 3 || tk_source_eof(s))) {
			bom = 0;
			if (tk_text_bom(w.p, w.n)) {
				tk_source_consume(s, 3);
				w = tk_source_window(s);
				i = 0;
			}
		}
		p = w.p;
		avail = w.n;
		for (; i < avail && i < TK_LINE_MAX + 2; i++)
			if (p[i] == '\n' || p[i] == '\r')
				break;
		if (i < avail && p[i] == '\n')
			return 0;
		/* a CR: which end it is shows in the byte after it */
		if (i + 1 < avail)
			return p[i] == '\r' && p[i + 1] != '\n';
		if (i >= TK_LINE_MAX + 2)
			return 0; /* no line end: the readers refuse the line */
		if (tk_source_eof(s))
			return i < avail; /* a CR as the last byte: CR-only */
		rc = tk_source_fill(s, avail + 1, &w, err);
		if (rc < 0)
			return rc;
		if (rc == 0 && !tk_source_eof(s))
			return 0;
	}
}
