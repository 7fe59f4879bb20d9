/* htf_cursor.c - the HTF reader's cursors: a section's records, a batch at
 * a time or through the line-at-a-time path (htf_reader.h). */
#include "htf_reader.h"
#include "../../core/scan.h"

/* Resolve the head record's ids; report what is wrong with them. */
static inline int resolve(htf_reader *h, cursor *c, const char *ls,
			  const char *rec, uint64_t ent_id, uint64_t ev_id,
			  tk_error *err)
{
	uint32_t ei = idmap_get(&h->entmap, ent_id), vi;
	const htype *ty;

	if (TK_UNLIKELY(ei == UINT32_MAX))
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * h->tl,
			      "entity id 0x%0*llX is not in the #EntityTable",
			      (int)(2 * h->el), (unsigned long long)ent_id);
	if (TK_UNLIKELY(h->ents[ei].type == UINT32_MAX)) {
		size_t n;
		const char *s = tk_trace_str(h->t,
					     tk_trace_ent(h->t, h->ents[ei].tkid)->name,
					     &n);
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * h->tl,
			      "entity '%.40s' has no type in the #EntityTypeTable",
			      s);
	}
	ty = &h->types[h->ents[ei].type];
	vi = idmap_get(&ty->evmap, ev_id);
	if (TK_UNLIKELY(vi == UINT32_MAX)) {
		size_t n;
		const char *s = tk_trace_str(h->t, ty->htf_name, &n);
		return err_at(h, err, TK_E_PARSE, c->rline, ls,
			      rec + 2 * (h->tl + h->el),
			      "event id 0x%0*llX is not in the #%.40sEventTable",
			      (int)(2 * h->vl), (unsigned long long)ev_id, s);
	}
	c->tkid = h->ents[ei].tkid;
	c->ty = ty;
	c->vi = &ty->evs[vi];
	return TK_OK;
}

static int check_time(htf_reader *h, cursor *c, const char *ls,
		      const char *rec, tk_error *err)
{
	if (c->have_time && c->time < c->last_time) {
		int rc = depart(h, err, W_TIME_DECREASES, c->rline, ls, rec,
				"time decreases in the section of Core_%llu (0x%llX after 0x%llX)",
				"time decreases in the section of Core_%llu (0x%llX after 0x%llX); merged as it is",
				(unsigned long long)h->core_ids[c->slot],
				(unsigned long long)c->time,
				(unsigned long long)c->last_time);
		if (rc < 0)
			return rc;
	}
	c->last_time = c->time;
	c->have_time = 1;
	return TK_OK;
}

/*
 * Move what is left of the window to its front and read on, until a line
 * ends in it or the section is all read (a line longer than the window
 * makes it grow, up to what a line may be).
 */
static int win_fill(htf_reader *h, cursor *c, tk_error *err)
{
	size_t keep = (size_t)(c->end - c->p);
	int rc;

	memmove(c->win, c->p, keep);
	c->p = c->win;
	c->end = c->win + keep;
	while (c->foff < c->fend) {
		uint64_t left = c->fend - c->foff;
		size_t want = c->wcap - keep;
		if (!want) {
			/* the bytes with their slack, doubled */
			size_t size = c->wcap + WIN_SLACK;
			if (keep > TK_LINE_MAX + 1)
				return tk_err_line_long(err, h->name, c->line);
			if (tk_grow_zero((void **)&c->win, &size, size, 1) < 0)
				return tk_err_nomem(err, h->name);
			c->wcap = size - WIN_SLACK;
			c->p = c->win;
			c->end = c->win + keep;
			continue;
		}
		if (want > left)
			want = (size_t)left;
		if ((rc = htf_src_read(h, c->foff, c->win + keep, want, err)) < 0)
			return rc;
		c->foff += want;
		keep += want;
		c->end = c->win + keep;
		if (memchr(c->win, '\n', keep))
			break;
	}
	return TK_OK;
}

/* The record at the head of cursor c, one line at a time: TK_OK, TK_END or
 * an error. */
static int cur_next(htf_reader *h, cursor *c, tk_error *err)
{
	const unsigned w = h->w, tl2 = 2 * h->tl, el2 = 2 * h->el,
		       vl2 = 2 * h->vl;
	uint64_t ent_id, ev_id;
	char qb[64];
	int rc;

	for (;;) {
		const char *p, *s, *e, *ls;
		unsigned n;

		if (c->foff < c->fend &&
		    !memchr(c->p, '\n', (size_t)(c->end - c->p))) {
			rc = win_fill(h, c, err);
			if (rc < 0)
				return rc;
		}
		p = ls = c->p;
		if (p >= c->end)
			return TK_END;
		/* anything else, one line at a time */
		s = skip_blanks(p, c->end);
		/* no further than a line may go: its bytes, a CR and the LF */
		if ((size_t)(c->end - p) > TK_LINE_MAX + 2)
			e = memchr(s, '\n', (size_t)(p + TK_LINE_MAX + 2 - s));
		else
			e = memchr(s, '\n', (size_t)(c->end - s));
		if (!e && (size_t)(c->end - p) > TK_LINE_MAX + 1)
			return tk_err_line_long(err, h->name, c->line);
		if (!e)
			e = c->end;
		if ((size_t)(e - p) - (e > p && e[-1] == '\r') > TK_LINE_MAX)
			return tk_err_line_long(err, h->name, c->line);
		c->p = e < c->end ? e + 1 : c->end;
		c->rline = c->line++;
		if (e > s && e[-1] == '\r')
			e--;
		if (s == e)
			continue;
		if (e - s >= 2 && s[0] == '/' && s[1] == '/') {
			if ((rc = depart(h, err, W_COMMENT_LINE, c->rline, ls, s,
					 "a comment without a record",
					 "a comment without a record (skipped)")) < 0)
				return rc;
			continue;
		}
		for (n = 0; s + n < e && hexval((unsigned char)s[n]) >= 0; n++)
			;
		{
			const char *r = skip_blanks(s + n, e);
			if (r < e && !(e - r >= 2 && r[0] == '/' && r[1] == '/'))
				return err_at(h, err, TK_E_PARSE, c->rline, ls, r,
					      "'%s' in a record (a record is %u hex digits, then an optional // comment)",
					      tk_quote(qb, sizeof(qb), r, r + 1), w);
			if (r == s + n && r < e)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, r,
					      "a blank is needed between the record and its comment");
		}
		if (n != w) {
			unsigned extra = n > w ? n - w : 0, i;
			int zeros = extra > 0;
			for (i = 0; i < extra; i++)
				zeros &= s[i] == '0';
			if (h->strict || !zeros)
				return err_at(h, err, TK_E_PARSE, c->rline, ls, s,
					      "record '%s' has %u hex digits, %u are due (TimestampLength %u + EntityLength %u + EventLength %u)",
					      tk_quote(qb, sizeof(qb), s, s + n), n, w,
					      h->tl, h->el, h->vl);
			warn(h, W_LONG_RECORD, c->rline, ls, s,
			     "record '%s' has %u hex digits, %u are due: the extra leading zeros are ignored",
			     tk_quote(qb, sizeof(qb), s, s + n), n, w);
			s += extra;
		}
		if (c->implicit) {
			if ((rc = depart(h, err, W_NO_SECTION, c->rline, ls, s,
					 "a record before the first core section '#-<core id>'",
					 "records before the first core section: read as Core_0")) < 0)
				return rc;
			c->implicit = 0;
		}
		/* the digits are checked above */
		(void)tk_scan_hex16(s, tl2, &c->time);
		(void)tk_scan_hex16(s + tl2, el2, &ent_id);
		(void)tk_scan_hex16(s + tl2 + el2, vl2, &ev_id);
		if ((rc = check_time(h, c, ls, s, err)) < 0)
			return rc;
		return resolve(h, c, ls, s, ent_id, ev_id, err);
	}
}

/* ---- batches ------------------------------------------------------------ */

/* The descriptor of event id ev of entity e, or UINT32_MAX. */
static inline uint32_t ev_desc(const htf_reader *h, const hent *e, uint64_t ev)
{
	const htype *ty;
	uint32_t vi;

	if (TK_LIKELY(ev < e->nevd))
		return e->evd[ev];
	if (e->type == UINT32_MAX)
		return UINT32_MAX;
	ty = &h->types[e->type];
	vi = idmap_get(&ty->evmap, ev);
	return vi == UINT32_MAX ? UINT32_MAX : ty->desc0 + vi;
}

/* The key (tkid << 32 | descriptor key) of (entity id, event id), or
 * UINT64_MAX when the tables do not have it. */
static inline uint64_t rec_key(const htf_reader *h, uint64_t ent_id,
			       uint64_t ev_id)
{
	uint32_t ei = idmap_get(&h->entmap, ent_id), d;

	if (TK_UNLIKELY(ei == UINT32_MAX))
		return UINT64_MAX;
	d = ev_desc(h, &h->ents[ei], ev_id);
	if (TK_UNLIKELY(d == UINT32_MAX))
		return UINT64_MAX;
	return (uint64_t)h->ents[ei].tkid << 32 | h->keys[d];
}

/*
 * Decode the plain records at the cursor into its batch: records alone on
 * their line, ids known, time not decreasing.  Stops before anything else
 * (which the line-at-a-time path then reads, with its warnings and
 * errors).  Returns the number of records.  A record of at most 16 digits
 * is converted as one number (two words of digits) and split by shifts;
 * wider ones field by field.
 */
static TK_INLINE uint32_t batch_w(htf_reader *h, cursor *c,
				  const unsigned w, const unsigned tl,
				  const unsigned vl)
{
	const unsigned tl2 = 2 * tl, vl2 = 2 * vl, el2 = w - tl2 - vl2,
		       sh_time = 4 * (w - tl2), sh_ent = 4 * vl2;
	/* w <= 16: the fields of the record read as one number */
	const uint64_t m_ent = w <= 16 ? (1ull << (4 * el2)) - 1 : 0,
		       m_ev = w <= 16 ? (1ull << (4 * vl2)) - 1 : 0,
		       *pair = h->pair,
		       npair_ent = h->npair_ent;
	const unsigned pbits = h->pair_bits;
	const uint64_t pev = ((uint64_t)1 << pbits) - 1;
	const char *p = c->p;
	uint64_t last = c->have_time ? c->last_time : 0;
	hrec *b = c->b;
	uint32_t n = 0, m;

	/* a record at p needs its newline before end */
	if ((size_t)(c->end - p) <= w)
		return 0;
	m = (uint32_t)((size_t)(c->end - p) / (w + 1));
	if (m > BATCH)
		m = BATCH;
	if (w <= 16) {
		for (; n < m && p[w] == '\n'; n++, p += w + 1) {
			uint64_t v, t, ent, ev, x;
			if (!tk_scan_hex16(p, w, &v))
				break;
			t = v >> sh_time;
			if (TK_UNLIKELY(t < last))
				break;
			ent = (v >> sh_ent) & m_ent;
			ev = v & m_ev;
			if (TK_LIKELY(ent < npair_ent && ev <= pev))
				x = pair[ent << pbits | ev];
			else
				x = rec_key(h, ent, ev);
			if (TK_UNLIKELY(x == UINT64_MAX))
				break;
			b[n].time = t;
			b[n].id = x;
			last = t;
		}
	} else {
		for (; n < m && p[w] == '\n'; n++, p += w + 1) {
			uint64_t t, ent_id, ev_id, x;
			if (!tk_scan_hex16(p, tl2, &t) ||
			    !tk_scan_hex16(p + tl2, el2, &ent_id) ||
			    !tk_scan_hex16(p + tl2 + el2, vl2, &ev_id))
				break;
			if (TK_UNLIKELY(t < last))
				break;
			x = rec_key(h, ent_id, ev_id);
			if (TK_UNLIKELY(x == UINT64_MAX))
				break;
			b[n].time = t;
			b[n].id = x;
			last = t;
		}
	}
	if (n) {
		c->p = p;
		c->line += n;
		c->last_time = last;
		c->have_time = 1;
	}
	return n;
}

/* batch_w() with the usual record layouts as constants */
static uint32_t batch(htf_reader *h, cursor *c)
{
	const unsigned tl = h->tl, vl = h->vl;

	if (tl == 4 && vl == 1 && h->w == 14)
		return batch_w(h, c, 14, 4, 1);
	switch (h->w) {
	case 14:
		return batch_w(h, c, 14, tl, vl);
	case 16:
		return batch_w(h, c, 16, tl, vl);
	case 12:
		return batch_w(h, c, 12, tl, vl);
	default:
		return batch_w(h, c, h->w, tl, vl);
	}
}

/*
 * The next batch of cursor c from the batch decoder alone: the number of
 * records (c->b), 0 when the next record needs the line-at-a-time path
 * (or the section is over), or an error (a read).
 */
int htf_refill_fast(htf_reader *h, cursor *c, tk_error *err)
{
	uint32_t n = 0;
	int rc;

	/* read on when the window runs low */
	if ((size_t)(c->end - c->p) < WIN_LOW && c->foff < c->fend &&
	    (rc = win_fill(h, c, err)) < 0)
		return rc;
	c->bline = c->line;
	if (!c->implicit)
		n = batch(h, c);
	c->bn = n;
	return (int)n;
}

/* The next batch of cursor c, by the line-at-a-time path where the batch
 * decoder stops: TK_OK, TK_END or an error. */
int htf_refill(htf_reader *h, cursor *c, tk_error *err)
{
	int rc = htf_refill_fast(h, c, err);

	if (TK_LIKELY(rc > 0))
		return TK_OK;
	if (rc < 0)
		return rc;
	rc = cur_next(h, c, err);
	if (rc != TK_OK)
		return rc;
	c->b[0].time = c->time;
	c->b[0].id = (uint64_t)c->tkid << 32 |
		     h->keys[c->ty->desc0 + (uint32_t)(c->vi - c->ty->evs)];
	c->bline = c->rline;
	c->bn = 1;
	return TK_OK;
}
