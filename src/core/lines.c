/* lines.c - the text readers' one line scanner (lines.h). */
#include "lines.h"

#include <string.h>

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
	tk_source_consume(l->src, (size_t)(l->pos - l->mark));
	l->mark = l->pos;
}

/* The first CR or LF in [p, end), or NULL. */
static const char *find_cr_lf(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p == '\r' || *p == '\n')
			return p;
	return NULL;
}

int tk_lines_next(tk_lines *l, const char **line, size_t *len, tk_error *err)
{
	const char *p, *e, *stop;
	size_t done = 0; /* bytes of the line scanned before a fill */
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
		if (e)
			break;
		if ((size_t)(l->limit - p) >= TK_LINE_MAX + 2)
			return tk_err_line_long(err, l->name, l->line + 1);
		if (tk_source_eof(l->src)) {
			if (p == l->limit)
				return TK_END;
			e = l->limit; /* a last line with no line end */
			break;
		}
		/* the line goes on past the window: read more, which may move
		 * the window; the scan goes on where it stopped */
		done = (size_t)(l->limit - p);
		tk_lines_sync(l);
		rc = tk_source_fill(l->src, done + 1, &w, err);
		set_window(l, w);
		if (rc < 0)
			return rc;
		if (rc == 0 && !tk_source_eof(l->src))
			return tk_err_set(err, TK_E_IO, l->name, l->line + 1, 0,
					  "input ended unexpectedly");
	}
	/* p is in the window: pos is NULL in an empty one only (TK_END) */
	TK_ANALYZER_ASSUME(p != NULL);
	*line = p;
	*len = (size_t)(e - p);
	if (e < l->limit) {
		l->skip_lf = l->cr && *e == '\r';
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

int tk_text_cr_only(tk_source *s, tk_error *err)
{
	tk_window w = tk_source_window(s);
	const uint8_t *p;
	size_t avail, i = 0;
	int rc;

	for (;;) {
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
