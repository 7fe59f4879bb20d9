/*
 * lines.h - the text readers' one line scanner: the next line of a byte
 * source, without its line end.
 *
 * A line ends at LF or CRLF, or (cr set: a file whose first line end is a
 * CR alone, see tk_text_begin(), or a reader that takes every line end)
 * at CR, LF or CRLF; in that mode the lines that end with a CR alone are
 * counted (`bare_cr`), so that a reader can tell a mix from a CR-only file.  A last line with no
 * line end is a line.  A line longer than TK_LINE_MAX bytes is refused
 * (tk_err_line_long()) on every transport, scanning no further than
 * TK_LINE_MAX + 2 bytes.  Lines are numbered from 1 (`line`: the number of
 * the last line read).
 *
 * The scanner holds the source's window as last fetched: [pos, limit) is
 * unread, [mark, pos) read but not yet reported consumed to the source (it
 * is reported in batches: the report releases pages behind a mapped file).
 * A line is valid until the next call; the bytes up to `limit` may be read
 * past its end (a word at a time).
 *
 * A reader with a faster scan of its own for the usual line (e.g. one that
 * notes the field separators on the way) looks at [pos, limit) itself and
 * takes a line it found with tk_lines_take(); anything else goes to
 * tk_lines_next().
 *
 * A second mode reads the lines at any offset of a random-access source
 * (tk_lines_init_at(), after tk_source_size()): the scanner then reads
 * windows of the input with tk_source_read_at() into a buffer of its own,
 * consumes nothing, and tk_lines_seek() moves it to another line start.
 * Everything else (line ends, the line limit, numbering) is the same.
 */
#ifndef TK_LINES_H
#define TK_LINES_H

#include "internal.h"

typedef struct tk_lines {
	const char *pos, *mark, *limit;
	tk_source *src;
	const char *name;     /* the input's, for messages */
	uint64_t line;        /* lines read */
	int cr;               /* CR-only line ends */
	int skip_lf;          /* cr: the last line ended with a CR */
	uint64_t bare_cr;     /* cr: lines ended by a CR with no LF after it */
	/* read_at mode: buf holds the input's bytes [off, off + (limit - buf))
	 * of its `size` */
	int at;
	char *buf;
	size_t cap;
	uint64_t off, size;
} tk_lines;

/* Bytes read before they are reported consumed to the source. */
#define TK_LINES_BATCH ((size_t)64 << 10)

/* Set up over source s from its current window. */
void tk_lines_init(tk_lines *l, tk_source *s, int cr);
/* The next line without its line end: TK_OK, TK_END at the end of input,
 * or a negative status (err filled). */
int tk_lines_next(tk_lines *l, const char **line, size_t *len, tk_error *err);
/* Report the bytes read so far as consumed to the source. */
void tk_lines_sync(tk_lines *l);
/* The offset in the input of the next line's start. */
uint64_t tk_lines_offset(const tk_lines *l);

/* Set up over the random-access source s (tk_source_size() called) at
 * offset off, the start of line number `line`: TK_OK or TK_E_NOMEM. */
int tk_lines_init_at(tk_lines *l, tk_source *s, uint64_t off, uint64_t line,
		     int cr, tk_error *err);
/* Move a scanner of tk_lines_init_at() to offset off, the start of line
 * number `line` (the bytes it holds are kept where they can serve). */
void tk_lines_seek(tk_lines *l, uint64_t off, uint64_t line);
/* Free what tk_lines_init_at() allocated (nothing for the stream mode). */
void tk_lines_free(tk_lines *l);

/*
 * Take the line from pos to its line end at nl (pos <= nl < limit), found
 * by the caller's own scan, shorter than TK_LINE_MAX: a LF (a CR before it
 * is not part of the line), or (crlf set) the CR of a CRLF.  Not after a
 * line that tk_lines_next() ended at a CR (skip_lf set).
 */
static TK_INLINE void tk_lines_take(tk_lines *l, const char *nl, int crlf,
				    const char **line, size_t *len)
{
	const char *p = l->pos;

	*line = p;
	*len = (size_t)(nl - p) - (!crlf && nl > p && nl[-1] == '\r');
	l->pos = nl + 1 + crlf;
	if (TK_UNLIKELY((size_t)(l->pos - l->mark) >= TK_LINES_BATCH))
		tk_lines_sync(l);
	l->line++;
}

#endif
