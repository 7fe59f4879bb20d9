/* htf_sections.c - the HTF reader's sections ("#-<core>") found in the data,
 * each given a cursor (htf_reader.h). */
#include "htf_reader.h"

/* The LFs in [p, e): 16 byte counters at a time, summed before they can
 * overflow (a loop the compiler may vectorise) */
static uint64_t count_nl(const char *p, const char *e)
{
	uint64_t n = 0;

	while (e - p >= 16) {
		unsigned char acc[16] = { 0 };
		size_t blocks = (size_t)(e - p) / 16, j;
		unsigned k;
		if (blocks > 255)
			blocks = 255;
		for (j = 0; j < blocks; j++, p += 16)
			for (k = 0; k < 16; k++)
				acc[k] = (unsigned char)(acc[k] + (p[k] == '\n'));
		for (k = 0; k < 16; k++)
			n += acc[k];
	}
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

static int core_slot(htf_reader *h, uint64_t id, uint32_t *slot,
		     uint32_t *ent, tk_error *err)
{
	char name[32];
	tk_entity *e;
	uint32_t i;

	snprintf(name, sizeof(name), "Core_%llu", (unsigned long long)id);
	*ent = tk_trace_entity_intern(h->t, name, strlen(name));
	if (*ent == TK_NONE)
		return tk_err_nomem(err, h->name);
	e = tk_trace_ent(h->t, *ent);
	if (e->type == TK_ET_UNKNOWN) {
		e->type = TK_ET_C;
		e->type_name = tk_strpool_intern(&h->t->pool, "C", 1);
	}
	i = tk_hashmap_get(&h->slotidx, id);
	if (i != TK_NONE) {
		*slot = i;
		return TK_OK;
	}
	if (tk_grow_zero32((void **)&h->core_ids, &h->capslots, h->nslots,
			   sizeof(*h->core_ids)) < 0 ||
	    tk_grow_zero32((void **)&h->own, &h->capown, h->nslots,
			   sizeof(*h->own)) < 0)
		return tk_err_nomem(err, h->name);
	h->core_ids[h->nslots] = id;
	h->own[h->nslots] = 0;
	if (tk_hashmap_set(&h->slotidx, id, h->nslots) < 0)
		return tk_err_nomem(err, h->name);
	*slot = h->nslots++;
	return TK_OK;
}

/* Whether [beg, end) holds a line that is not blank and not only a `//`
 * comment (the records before the first section): 1, 0 or an error. */
static int has_content(htf_reader *h, uint64_t beg, uint64_t end,
		       tk_error *err)
{
	char buf[4096];
	/* 0: at a line's start (blanks so far), 1: after a first '/',
	 * 2: in a line that is not content */
	int st = 0, rc;

	while (beg < end) {
		size_t n = end - beg < sizeof(buf) ? (size_t)(end - beg)
						   : sizeof(buf), i;
		if ((rc = htf_src_read(h, beg, buf, n, err)) < 0)
			return rc;
		for (i = 0; i < n; i++) {
			char ch = buf[i];
			if (st == 0) {
				if (ch == '/')
					st = 1;
				else if (ch == '\r')
					st = 2;
				else if (ch != ' ' && ch != '\t' && ch != '\n')
					return 1;
			} else if (st == 1) {
				if (ch != '/')
					return 1;
				st = 2;
			} else if (ch == '\n') {
				st = 0;
			}
		}
		beg += n;
	}
	return st == 1;
}

static int add_cursor(htf_reader *h, uint64_t beg, uint64_t end,
		      uint64_t line, uint64_t core_id, int implicit,
		      tk_error *err)
{
	cursor *c;
	uint32_t slot = 0, core = 0;
	int rc;

	if (implicit && (rc = has_content(h, beg, end, err)) <= 0)
		return rc;
	rc = core_slot(h, core_id, &slot, &core, err);
	if (rc < 0)
		return rc;
	if (!implicit && !h->own[slot]) {
		h->own[slot] = 1;
		h->nown++;
	}
	/* an empty section ("#-1" right before "#-2") has its core and
	 * nothing else: no cursor (a file of such lines would cost a cursor
	 * per 4 bytes) */
	if (beg == end && !implicit)
		return TK_OK;
	if (tk_grow_zero32((void **)&h->cur, &h->capcur, h->ncur,
			   sizeof(*h->cur)) < 0)
		return tk_err_nomem(err, h->name);
	c = &h->cur[h->ncur];
	memset(c, 0, sizeof(*c));
	c->foff = beg;
	c->fend = end;
	c->line = line;
	c->implicit = implicit;
	c->len = end - beg;
	c->slot = slot;
	c->core = core;
	h->ncur++;
	return TK_OK;
}

/*
 * Each cursor's batch and window, once the sections are known: no larger
 * than its section needs, and the windows of many sections share
 * WIN_BUDGET (see there), so that memory follows the input's size, not
 * the number of sections it declares.
 */
int htf_cursors_alloc(htf_reader *h, tk_error *err)
{
	size_t share = h->ncur ? WIN_BUDGET / h->ncur : WIN_SIZE;
	uint32_t i;

	if (share > WIN_SIZE)
		share = WIN_SIZE;
	if (share < WIN_MIN)
		share = WIN_MIN;
	h->nnet = h->ncur <= 4 ? 4 : h->ncur <= NET_MAX ? NET_MAX : 0;
	if (h->nnet && h->ncur &&
	    !(h->block = calloc((size_t)h->ncur * BATCH, sizeof(hrec))))
		return tk_err_nomem(err, h->name);
	for (i = 0; i < h->ncur; i++) {
		cursor *c = &h->cur[i];
		/* a record is at least w + 1 bytes (the last maybe w) */
		uint64_t recs = c->len / (h->w + 1) + 1;
		size_t nb = recs < BATCH ? (size_t)recs : BATCH;
		c->b = h->block ? h->block + (size_t)i * BATCH
				: calloc(nb, sizeof(*c->b));
		if (!c->b)
			return tk_err_nomem(err, h->name);
		c->wcap = c->len < share ? (size_t)c->len : share;
		if (!c->wcap)
			c->wcap = 1;
		c->win = calloc(c->wcap + WIN_SLACK, 1);
		if (!c->win)
			return tk_err_nomem(err, h->name);
		c->p = c->end = c->win;
	}
	return TK_OK;
}

/* A section line "#-<hex id>" at offset ls (its '#' at offset m), on line
 * `line`: the core id, and *next the offset after the line. */
static int section_line(htf_reader *h, uint64_t lso, uint64_t mo,
			uint64_t line, uint64_t *id, uint64_t *next,
			tk_error *err)
{
	const char *ls, *le, *m, *ie, *r;
	char qb[64];
	size_t n;
	int rc;

	*next = lso;
	/* no further than a line may go */
	if (mo - lso > TK_LINE_MAX)
		return tk_err_line_long(err, h->name, line);
	tk_lines_seek(&h->lines, lso, line);
	rc = tk_lines_next(&h->lines, &ls, &n, err);
	if (rc != TK_OK)
		return rc < 0 ? rc : tk_err_line_long(err, h->name, line);
	le = ls + n;
	*next = tk_lines_offset(&h->lines);
	h->line = line;
	m = ls + (mo - lso);
	if (le - m < 2 || m[1] != '-')
		return err_at(h, err, TK_E_PARSE, line, ls, m,
			      "'%s' in the trace data (a core section is '#-<core id>')",
			      tk_quote(qb, sizeof(qb), m, le));
	rc = htf_hex_id(h, ls, m + 2, le, id, &ie, err);
	if (rc < 0)
		return rc;
	r = skip_blanks(ie, le);
	if (r < le && !(le - r >= 2 && r[0] == '/' && r[1] == '/'))
		return err_at(h, err, TK_E_PARSE, line, ls, r,
			      "unexpected text after the core section '%s'",
			      tk_quote(qb, sizeof(qb), m, ie));
	return TK_OK;
}

/*
 * One pass over the trace data from offset `data`, SCAN_CHUNK at a time:
 * the '#'s that begin a line (after blanks) are section lines, the LFs
 * before them are counted for the sections' line numbers.
 */
int htf_find_sections(htf_reader *h, uint64_t data, tk_error *err)
{
	uint64_t off = data, beg = data, line = h->line + 1, beg_line = line;
	uint64_t core_id = 0, ls_start = data;
	/* the bytes since the last LF before the chunk are all blanks,
	 * from a line's start at ls_start */
	int at_ls = 1, implicit = 1, rc = TK_OK;
	/* (the buffer no larger than the data: a small trace allocates
	 * little) */
	size_t cap = h->size > data && h->size - data < SCAN_CHUNK
			     ? (size_t)(h->size - data) : SCAN_CHUNK;
	char *buf = malloc(cap);

	if (!buf)
		return tk_err_nomem(err, h->name);
	while (off < h->size) {
		size_t n = h->size - off < cap ? (size_t)(h->size - off) : cap;
		size_t i = 0, counted = 0, k;
		int next_chunk = 0;
		if ((rc = htf_src_read(h, off, buf, n, err)) < 0)
			goto out;
		while (i < n) {
			const char *m = memchr(buf + i, '#', n - i);
			uint64_t lso, id, next;
			size_t j;
			if (!m)
				break;
			j = (size_t)(m - buf);
			for (k = j; k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\t'); k--)
				;
			if (k > 0 ? buf[k - 1] != '\n' : !at_ls) {
				/* in a comment */
				i = j + 1;
				continue;
			}
			lso = k > 0 ? off + k : ls_start;
			line += count_nl(buf + counted, buf + k);
			counted = k;
			if ((rc = add_cursor(h, beg, lso, beg_line, core_id,
					     implicit, err)) < 0)
				goto out;
			if ((rc = section_line(h, lso, off + j, line, &id, &next,
					       err)) < 0)
				goto out;
			core_id = id;
			implicit = 0;
			beg = next;
			beg_line = ++line;
			if (next >= off + n) {
				/* the line ends past the chunk */
				off = next;
				at_ls = 1;
				ls_start = next;
				next_chunk = 1;
				break;
			}
			i = counted = (size_t)(next - off);
		}
		if (next_chunk)
			continue;
		line += count_nl(buf + counted, buf + n);
		for (k = n; k > counted && (buf[k - 1] == ' ' || buf[k - 1] == '\t'); k--)
			;
		if (k > counted) {
			at_ls = buf[k - 1] == '\n';
			if (at_ls)
				ls_start = off + k;
		} else if (counted > 0) {
			/* blanks after a section line that ended in the chunk */
			at_ls = 1;
			ls_start = off + counted;
		}
		/* else all blanks: at_ls and ls_start go on */
		off += n;
	}
	rc = add_cursor(h, beg, h->size, beg_line, core_id, implicit, err);
	if (rc < 0)
		goto out;
	if (h->have_ncores) {
		/* the cores that have a section of their own */
		uint32_t nc = h->nown;
		if (nc > h->ncores_decl &&
		    (rc = tk_reader_depart(h->r, err, W_CORES, 0, 0,
					   "%u core sections, #NumberOfCores is %llu",
					   "%u core sections, #NumberOfCores is %llu",
					   nc, (unsigned long long)h->ncores_decl)) < 0)
			goto out;
	}
	rc = TK_OK;
out:
	free(buf);
	return rc;
}
