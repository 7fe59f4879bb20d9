/*
 * ftstream_decode.c - the recorder's stream to FTrace records.
 *
 * Nothing before the first valid sync record (magic, version and CRC-32)
 * is read: a stream cut at any byte decodes from its next sync.  A record
 * that cannot be (a reserved bit, an unknown control record, a bad sync)
 * sends the decoder back to scanning for a sync; a record cut by the end
 * is left (tail).
 */
#include "ftstream.h"

#include "tracekit/ftstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h> /* crc32(): the sync record's CRC-32 (IEEE 802.3, as the recorder's) */

static const uint8_t magic[6] = { 0x00, 0x01, 'T', 'K', 'S', 'Y' };

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

int ftstream_is_sync(const uint8_t *p, size_t n)
{
	return n >= FTSTREAM_SYNC_LEN && memcmp(p, magic, sizeof(magic)) == 0 &&
	       p[6] == FTSTREAM_VERSION && crc32(0, p, 28) == le32(p + 28);
}

/* A varint of at most 10 bytes at p[*i .. n): 1, 0 cut, -1 too long. */
static int varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	uint64_t r = 0;
	unsigned sh;

	for (sh = 0; sh < 70; sh += 7) {
		uint8_t b;

		if (*i >= n)
			return 0;
		b = p[(*i)++];
		if (sh == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7Fu) << sh;
		if (!(b & 0x80u)) {
			*v = r;
			return 1;
		}
	}
	return -1;
}

static int add_rec(ftstream_dec *d, uint64_t off, uint32_t type, uint32_t par1,
		   uint64_t tsc, uint32_t par2)
{
	uint8_t *q;

	if (d->nrec == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 1024;
		uint8_t *nr = realloc(d->recs, nc * FTSTREAM_REC);
		uint64_t *no;
		uint8_t *nco;

		if (!nr)
			return -1;
		d->recs = nr;
		no = realloc(d->offs, nc * sizeof(*no));
		if (!no)
			return -1;
		d->offs = no;
		nco = realloc(d->cores, nc);
		if (!nco)
			return -1;
		d->cores = nco;
		d->cap = nc;
	}
	q = d->recs + d->nrec * FTSTREAM_REC;
	put32(q, (par1 & 0xFFFFu) << 16 | (type & 0xFFFFu));
	put32(q + 4, (uint32_t)(tsc >> 32));
	put32(q + 8, (uint32_t)tsc);
	put32(q + 12, par2);
	d->cores[d->nrec] = d->core;
	if (!d->core_seen[d->core]) {
		d->core_seen[d->core] = 1;
		d->ncores++;
	}
	d->offs[d->nrec++] = off;
	return 0;
}

static int add_name(ftstream_dec *d, unsigned kind, unsigned id,
		    const uint8_t *s, unsigned len)
{
	ftstream_name *nm, **tab = kind == FTSTREAM_KIND_FORMAT ? &d->fmts : &d->names;
	size_t *cnt = kind == FTSTREAM_KIND_FORMAT ? &d->nfmts : &d->nnames;
	size_t i;

	for (i = 0; i < *cnt; i++)
		if ((*tab)[i].kind == kind && (*tab)[i].id == id)
			break;
	if (i == *cnt) {
		nm = realloc(*tab, (*cnt + 1) * sizeof(*nm));
		if (!nm)
			return -1;
		*tab = nm;
		(*cnt)++;
	}
	nm = &(*tab)[i];
	nm->kind = (uint8_t)kind;
	nm->id = (uint16_t)id;
	nm->len = (uint8_t)len;
	memcpy(nm->name, s, len);
	nm->name[len] = 0;
	return 0;
}

/* ---- printf events ------------------------------------------------------ */

typedef struct outbuf {
	char *p;
	size_t n, max;  /* max - 1 bytes at most, NUL after */
} outbuf;

static void out_c(outbuf *o, char c)
{
	if (o->n + 1 < o->max)
		o->p[o->n++] = c;
}

static void out_s(outbuf *o, const char *s)
{
	while (*s)
		out_c(o, *s++);
}

/* a format's byte as text: a control character or a byte above 0x7E is '?' */
static char printable(unsigned c)
{
	return c < 0x20u || c > 0x7Eu ? '?' : (char)c;
}

/* one conversion: digits (or the char) with the flags and the width */
static void out_conv(outbuf *o, char conv, uint32_t a, int left, int zero,
		     int plus, int space, int alt, unsigned width)
{
	char digits[16], pre[3];
	size_t nd = 0, np = 0, len, k;
	uint32_t u = a;
	unsigned base = 10;
	const char *dig = "0123456789abcdef";

	switch (conv) {
	case 'd': case 'i':
		if ((int32_t)a < 0) {
			pre[np++] = '-';
			u = 0u - a;
		} else if (plus) {
			pre[np++] = '+';
		} else if (space) {
			pre[np++] = ' ';
		}
		break;
	case 'X':
		dig = "0123456789ABCDEF";
		/* fall through */
	case 'x':
		base = 16;
		if (alt && a) {
			pre[np++] = '0';
			pre[np++] = conv;
		}
		break;
	case 'c':
		digits[nd++] = printable(a & 0xFFu);
		zero = 0;
		break;
	default: /* 'u' */
		break;
	}
	if (conv != 'c') {
		do {
			digits[nd++] = dig[u % base];
			u /= base;
		} while (u);
	}
	len = np + nd;
	if (left)
		zero = 0;
	if (!left && !zero)
		for (k = len; k < width; k++)
			out_c(o, ' ');
	for (k = 0; k < np; k++)
		out_c(o, pre[k]);
	if (zero)
		for (k = len; k < width; k++)
			out_c(o, '0');
	if (conv == 'c')
		out_c(o, digits[0]);
	else
		while (nd)
			out_c(o, digits[--nd]);
	if (left)
		for (k = len; k < width; k++)
			out_c(o, ' ');
}

size_t ftstream_format(char *out, size_t max, const char *f, size_t flen,
		       unsigned fmt, const uint32_t *args, unsigned nargs)
{
	outbuf o = { out, 0, max };
	char num[16];
	size_t i = 0;
	unsigned used = 0, k;

	if (!max)
		return 0;
	if (!f) {
		snprintf(num, sizeof(num), "%u", fmt);
		out_s(&o, "<no format ");
		out_s(&o, num);
		out_c(&o, '>');
		for (k = 0; k < nargs; k++) {
			snprintf(num, sizeof(num), " %lu", (unsigned long)args[k]);
			out_s(&o, num);
		}
		goto done;
	}
	while (i < flen) {
		int left = 0, zero = 0, plus = 0, space = 0, alt = 0;
		unsigned width = 0;
		char c = f[i++];

		if (c != '%') {
			out_c(&o, printable((unsigned char)c));
			continue;
		}
		for (; i < flen; i++) {
			if (f[i] == '-')
				left = 1;
			else if (f[i] == '0')
				zero = 1;
			else if (f[i] == '+')
				plus = 1;
			else if (f[i] == ' ')
				space = 1;
			else if (f[i] == '#')
				alt = 1;
			else
				break;
		}
		while (i < flen && f[i] >= '0' && f[i] <= '9') {
			if (width < 1000)
				width = width * 10 + (unsigned)(f[i] - '0');
			i++;
		}
		if (width > 64)
			width = 64;
		if (i < flen && f[i] == 'l')
			i++;
		if (i >= flen) {
			out_s(&o, "<bad format: % at the end>");
			break;
		}
		c = f[i++];
		switch (c) {
		case '%':
			out_c(&o, '%');
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'c':
			if (used >= nargs) {
				out_s(&o, "<missing argument>");
				break;
			}
			out_conv(&o, c, args[used++], left, zero, plus, space,
				 alt, width);
			break;
		default:
			out_s(&o, "<bad conversion %");
			out_c(&o, printable((unsigned char)c));
			out_c(&o, '>');
			break;
		}
	}
done:
	out[o.n] = 0;
	return o.n;
}

static const ftstream_name *find_fmt(const ftstream_dec *d, unsigned id)
{
	size_t i;

	for (i = 0; i < d->nfmts; i++)
		if (d->fmts[i].id == id)
			return &d->fmts[i];
	return NULL;
}

/* the text of note nt, made with the format registered now (if any) */
static int make_text(ftstream_dec *d, ftstream_note *nt, const ftstream_name *f)
{
	char buf[FTSTREAM_TEXT_MAX];
	size_t n = ftstream_format(buf, sizeof(buf), f ? f->name : NULL,
				   f ? f->len : 0, nt->fmt, nt->args, nt->nargs);

	if (d->tcap - d->tlen < n + 1) {
		size_t nc = d->tcap ? d->tcap * 2 : 4096;
		char *t;

		while (nc - d->tlen < n + 1)
			nc *= 2;
		t = realloc(d->text, nc);
		if (!t)
			return -1;
		d->text = t;
		d->tcap = nc;
	}
	memcpy(d->text + d->tlen, buf, n + 1);
	nt->off = (uint32_t)d->tlen;
	nt->len = (uint32_t)n;
	d->tlen += n + 1;
	return 0;
}

/* Context ctx is now pid's (an id or task_create record, or a context
 * record); 1 if that was not known, -1 out of memory. */
static int ctx_set(ftstream_dec *d, uint32_t ctx, uint32_t pid)
{
	uint64_t v = (uint64_t)pid | (uint64_t)1 << 32;

	if (!d->ctx_pid) {
		d->ctx_pid = calloc(65536, sizeof(*d->ctx_pid));
		if (!d->ctx_pid)
			return -1;
	}
	if (d->ctx_pid[ctx & 0xFFFFu] == v)
		return 0;
	d->ctx_pid[ctx & 0xFFFFu] = v;
	return 1;
}

/* An event decoded (d NULL: only its length is wanted): its record, and
 * for id and task_create the context's pid.  0, or -1 out of memory. */
static int event(ftstream_dec *d, uint64_t off, uint32_t type, uint32_t par1,
		 uint64_t tsc, uint32_t par2, uint64_t *prev)
{
	*prev = tsc;
	if (!d)
		return 0;
	if (add_rec(d, off, type, par1, tsc, par2) < 0)
		return -1;
	if (((type & 0x7FFFu) == 0x60u || (type & 0x7FFFu) == 0x02u) &&
	    ctx_set(d, par1, par2) < 0)
		return -1;
	return 0;
}

/* Results of one record: its length, 0 cut by the end, -1 bad, -2 nomem. */
static long record(ftstream_dec *d, const uint8_t *p, size_t n, uint64_t off,
		   uint64_t *prev)
{
	size_t i = 2;
	uint64_t v, tsc;
	uint32_t type, par1 = 0, par2 = 0;
	unsigned l1, l2, k;
	int rc;

	if (n < 2)
		return 0;
	if (p[0] == 0) {
		switch (p[1]) {
		case 0x01: /* sync */
			if (n < FTSTREAM_SYNC_LEN)
				return memcmp(p, magic, n < 6 ? n : 6) == 0 ? 0 : -1;
			if (!ftstream_is_sync(p, n))
				return -1;
			tsc = (uint64_t)le32(p + 16) << 32 | le32(p + 12);
			if (!d) {
				*prev = tsc;
				return FTSTREAM_SYNC_LEN;
			}
			/* the time and the core of the last record, as the
			 * records since the sync before say */
			if (!d->fresh && (tsc != *prev || p[7] != d->core)) {
				if (!d->bad_syncs) {
					d->bad_sync_off = off;
					d->bad_sync_from = d->last_sync;
				}
				d->bad_syncs++;
			}
			d->fresh = 0;
			d->last_sync = off;
			*prev = tsc;
			d->core = p[7];
			if (!d->syncs) {
				d->clk = le32(p + 8);
				d->lost_at_sync = le32(p + 20);
				d->after_first = 1;
			}
			d->last_lost_total = le32(p + 20);
			d->syncs++;
			return FTSTREAM_SYNC_LEN;
		case 0x02: /* overflow: varint count */
			rc = varint(p, n, &i, &v);
			if (rc <= 0)
				return rc;
			if (v == 0 || v > UINT32_MAX)
				return -1;
			if (!d)
				return (long)i;
			if (add_rec(d, off, 0x70, 1, *prev, (uint32_t)v) < 0)
				return -2;
			d->lost += v;
			/* the drops pending when the first sync was written
			 * (the recorder reports them right after its names):
			 * in its count already */
			if (d->after_first)
				d->lost_at_sync -= v < d->lost_at_sync ? (uint32_t)v : d->lost_at_sync;
			d->after_first = 0;
			return (long)i;
		case 0x03: /* name: kind varint(id) len bytes */
			if (n < 3)
				return 0;
			k = p[2];
			i = 3;
			rc = varint(p, n, &i, &v);
			if (rc <= 0)
				return rc;
			if (k > FTSTREAM_KIND_FORMAT || v > 0xFFFFu)
				return -1;
			if (i >= n)
				return 0;
			l1 = p[i++];
			if (n - i < l1)
				return 0;
			if (d && add_name(d, k, (unsigned)v, p + i, l1) < 0)
				return -2;
			return (long)(i + l1);
		case 0x04: /* core: of the records that follow */
			if (n < 3)
				return 0;
			if (d)
				d->core = p[2];
			return 3;
		case 0x06: { /* context: varint(ctx) varint(pid), after a sync */
			uint64_t pid;

			rc = varint(p, n, &i, &v);
			if (rc <= 0)
				return rc;
			rc = varint(p, n, &i, &pid);
			if (rc <= 0)
				return rc;
			if (v > 0xFFFFu || pid > UINT32_MAX)
				return -1;
			if (!d)
				return (long)i;
			/* what the stream's records said already makes nothing */
			rc = ctx_set(d, (uint32_t)v, (uint32_t)pid);
			if (rc < 0)
				return -2;
			if (rc) {
				if (add_rec(d, off, 0x60, (uint32_t)v, *prev, (uint32_t)pid) < 0)
					return -2;
				d->ctx_recs++;
			}
			return (long)i;
		}
		case 0x07: /* an event, the long form: code, header, varint(zigzag
			    * delta), [type bits 8-14], par1, par2 */
			if (n < 4)
				return 0;
			if (p[2] == 0 || (p[3] & 0x40u))
				return -1;
			l1 = p[3] & 3u;
			l2 = p[3] >> 2 & 7u;
			if (l1 > 2 || l2 > 4)
				return -1;
			i = 4;
			rc = varint(p, n, &i, &v);
			if (rc <= 0)
				return rc;
			tsc = *prev + ((v & 1u) ? ~(v >> 1) : v >> 1);
			type = p[2] | ((p[3] & 0x80u) ? 0x8000u : 0u);
			if (p[3] & 0x20u) {
				if (i >= n)
					return 0;
				if (p[i] == 0 || p[i] > 0x7Fu)
					return -1;
				type |= (uint32_t)p[i++] << 8;
			}
			if (n - i < l1 + l2)
				return 0;
			for (k = 0; k < l1; k++)
				par1 |= (uint32_t)p[i + k] << (8 * k);
			i += l1;
			for (k = 0; k < l2; k++)
				par2 |= (uint32_t)p[i + k] << (8 * k);
			i += l2;
			return event(d, off, type, par1, tsc, par2, prev) < 0 ? -2 : (long)i;
		case 0x08: { /* printf: channel varint(fmt) nargs varint(zigzag
			      * delta) args (u32 each) */
			unsigned ch, na;
			uint64_t fid;
			ftstream_note *nt;

			if (n < 3)
				return 0;
			ch = p[2];
			if (ch > 14u)
				return -1;
			i = 3;
			rc = varint(p, n, &i, &fid);
			if (rc <= 0)
				return rc;
			if (fid > 0xFFFFu)
				return -1;
			if (i >= n)
				return 0;
			na = p[i++];
			if (na > FTSTREAM_PRINTF_ARGS)
				return -1;
			rc = varint(p, n, &i, &v);
			if (rc <= 0)
				return rc;
			if (n - i < 4u * na)
				return 0;
			tsc = *prev + ((v & 1u) ? ~(v >> 1) : v >> 1);
			*prev = tsc;
			if (!d)
				return (long)(i + 4u * na);
			if (d->nnotes == d->notes_cap) {
				size_t nc = d->notes_cap ? d->notes_cap * 2 : 64;

				nt = realloc(d->notes, nc * sizeof(*nt));
				if (!nt)
					return -2;
				d->notes = nt;
				d->notes_cap = nc;
			}
			nt = &d->notes[d->nnotes];
			memset(nt, 0, sizeof(*nt));
			nt->rec = d->nrec;
			nt->fmt = (uint16_t)fid;
			nt->nargs = (uint8_t)na;
			nt->off = UINT32_MAX;
			for (k = 0; k < na; k++)
				nt->args[k] = le32(p + i + 4u * k);
			/* a user_event_<ch> record, par1 the format id */
			if (add_rec(d, off, 0x09u | ch << 4, (uint32_t)fid, tsc, 0) < 0)
				return -2;
			d->nnotes++;
			/* made now with the format known now; else at the end */
			{
				const ftstream_name *f = find_fmt(d, (unsigned)fid);

				if (f && make_text(d, nt, f) < 0)
					return -2;
			}
			return (long)(i + 4u * na);
		}
		case 0x05: /* end: written by tracekit record, never by the target */
			if (n < 3)
				return 0;
			if (p[2] > FTSTREAM_END_MAX)
				return -1;
			if (d)
				d->end = (uint8_t)(p[2] + 1u);
			return 3;
		default:
			return -1;
		}
	}
	/* the short event: code, u24 delta, u16 par1, u16 par2 */
	if (n < 8)
		return 0;
	return event(d, off, p[0], (uint32_t)p[4] | (uint32_t)p[5] << 8,
		     *prev + ((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16),
		     (uint32_t)p[6] | (uint32_t)p[7] << 8, prev) < 0 ? -2 : 8;
}

long ftstream_record_len(const uint8_t *p, size_t n)
{
	uint64_t prev = 0;

	return record(NULL, p, n, 0, &prev);
}

/* The offset of the next valid sync at or after `from`, or n. */
size_t ftstream_find_sync(const uint8_t *p, size_t n, size_t from)
{
	size_t i;

	for (i = from; i + FTSTREAM_SYNC_LEN <= n; i++) {
		const uint8_t *q = memchr(p + i, 0, n - i);

		if (!q)
			break;
		i = (size_t)(q - p);
		if (ftstream_is_sync(p + i, n - i))
			return i;
	}
	return n;
}

int ftstream_decode(ftstream_dec *d, const uint8_t *p, size_t n)
{
	size_t pos = 0, at;
	uint64_t prev = 0;
	long len;
	int insync = 0;

	memset(d, 0, sizeof(*d));
	d->first_sync = UINT64_MAX;
	d->bad_off = UINT64_MAX;
	while (pos < n) {
		if (!insync) {
			at = ftstream_find_sync(p, n, pos);
			d->skipped += at - pos;
			if (at == n) {
				/* a sync cut by the end is a tail, the rest skipped */
				break;
			}
			if (d->first_sync == UINT64_MAX)
				d->first_sync = at;
			pos = at;
			insync = 1;
			d->fresh = 1;
		}
		/* what may come between the first sync and the overflow
		 * record of the drops it counted: its names and contexts */
		if (d->after_first && n - pos >= 2 &&
		    !(p[pos] == 0 && (p[pos + 1] == 0x02 || p[pos + 1] == 0x03 ||
				      p[pos + 1] == 0x06)))
			d->after_first = 0;
		len = record(d, p + pos, n - pos, pos, &prev);
		if (len == -2)
			return -1;
		if (len == 0) {
			d->tail = n - pos;
			d->tail_off = pos;
			break;
		}
		if (len < 0) {
			if (d->bad_off == UINT64_MAX)
				d->bad_off = pos;
			d->resyncs++;
			insync = 0;
			pos++;
			continue;
		}
		pos += (size_t)len;
	}
	/* the printf events before their format's record (a format
	 * registered late): the last format of their id, or a marker */
	for (at = 0; at < d->nnotes; at++) {
		const ftstream_name *f;

		if (d->notes[at].off != UINT32_MAX)
			continue;
		f = find_fmt(d, d->notes[at].fmt);
		if (!f)
			d->no_format++;
		if (make_text(d, &d->notes[at], f) < 0)
			return -1;
	}
	return 0;
}

void ftstream_free(ftstream_dec *d)
{
	free(d->recs);
	free(d->offs);
	free(d->cores);
	free(d->names);
	free(d->fmts);
	free(d->notes);
	free(d->text);
	free(d->ctx_pid);
	memset(d, 0, sizeof(*d));
}

/* the public API (tracekit/ftstream.h) */
long tk_ftstream_record_len(const uint8_t *p, size_t n)
{
	return ftstream_record_len(p, n);
}

size_t tk_ftstream_sync_find(const uint8_t *p, size_t n, size_t from)
{
	return ftstream_find_sync(p, n, from);
}
