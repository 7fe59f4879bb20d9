/*
 * btf_writer.c - canonical BTF output.
 *
 * A BTF input's header entries are written back as they were read (keys,
 * values, comments, 2.1.x table rows, in order), so a round trip keeps them;
 * a trace from another format gets a 2.2.1-style header.  Data lines are
 * "time,source,sinst,type,target,tinst,event[,note]" with LF line ends.
 * Times are converted exactly into the chosen time scale; what BTF cannot
 * hold (a name with a comma or a line break, a note with a line break, a
 * time base finer than representable) is an error, never an alteration.
 */
#include "btf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct btf_writer {
	tk_timebase out_tb;
	int convert;             /* input ticks != output ticks */
	int rounding;            /* no exact unit: times rounded down to ps */
	uint64_t nrounded, nevents;
	uint8_t *name_ok;        /* per string id: 0 unchecked, 1 ok */
	uint32_t cap_name_ok;
} btf_writer;

/* The coarsest unit in which every tick of `tb` is a whole number. */
static int pick_unit(const tk_timebase *tb, tk_timebase *out)
{
	int u;

	for (u = TK_UNIT_S; u >= TK_UNIT_PS; u--) {
		tk_timebase cand = { (tk_unit)u, 1, 1 };
		uint64_t one;
		if (tk_time_convert(1, tb, &cand, TK_ROUND_EXACT, &one) == TK_OK) {
			*out = cand;
			return TK_OK;
		}
	}
	return TK_E_RANGE;
}

static int put(tk_writer *w, const char *s, size_t n, tk_error *err)
{
	return tk_sink_write(&w->sink, s, n, err);
}

static int puts_(tk_writer *w, const char *s, tk_error *err)
{
	return put(w, s, strlen(s), err);
}

static int write_header(tk_writer *w, btf_writer *bw, tk_error *err)
{
	const tk_trace *t = w->trace;
	size_t i, n = tk_trace_header_count(t);
	int rc = TK_OK;

	if (strcmp(tk_trace_format(t), "btf") == 0) {
		for (i = 0; i < n && rc == TK_OK; i++) {
			const tk_header_entry *h = tk_trace_header(t, i);
			switch (h->kind) {
			case TK_HDR_COMMENT:
				rc = puts_(w, "#", err);
				break;
			case TK_HDR_ROW:
				rc = puts_(w, "#-", err);
				break;
			default:
				rc = puts_(w, "#", err);
			}
			if (rc == TK_OK && h->kind != TK_HDR_COMMENT) {
				rc = puts_(w, h->key, err);
				if (rc == TK_OK && h->has_value)
					rc = puts_(w, " ", err);
			}
			if (rc == TK_OK)
				rc = puts_(w, h->value, err);
			if (rc == TK_OK)
				rc = puts_(w, "\n", err);
		}
		return rc;
	}
	rc = puts_(w, "#version 2.2.1\n#creator tracekit " TK_VERSION_STRING
		      "\n#timescale ", err);
	if (rc == TK_OK)
		rc = puts_(w, tk_unit_name(bw->out_tb.unit), err);
	if (rc == TK_OK)
		rc = puts_(w, "\n", err);
	return rc;
}

int btf_writer_open(tk_writer *w, tk_error *err)
{
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	btf_writer *bw = calloc(1, sizeof(*bw));
	int rc;

	if (!bw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = bw;
	if (tb->num == 1 && tb->den == 1) {
		bw->out_tb = *tb;
	} else if (pick_unit(tb, &bw->out_tb) < 0) {
		/*
		 * No BTF unit holds every tick (a cycle of a 367483 kHz clock):
		 * strict mode refuses; lenient mode writes whole picoseconds,
		 * rounded down, and counts the times that were rounded.
		 */
		if (w->opts.strict)
			return tk_err_set(err, TK_E_RANGE,
					  w->sink.path ? w->sink.path : "<stdout>", 0, 0,
					  "the time base %llu/%llu %s has no exact BTF time scale (lenient mode rounds to ps with a warning)",
					  (unsigned long long)tb->num,
					  (unsigned long long)tb->den,
					  tk_unit_name(tb->unit));
		bw->out_tb.unit = TK_UNIT_PS;
		bw->out_tb.num = 1;
		bw->out_tb.den = 1;
		bw->rounding = 1;
	}
	bw->convert = tb->num != 1 || tb->den != 1 || tb->unit != bw->out_tb.unit;
	if (w->opts.no_header)
		return TK_OK;
	rc = write_header(w, bw, err);
	return rc;
}

/* Names must not hold what would break the CSV line. */
static int check_name(tk_writer *w, btf_writer *bw, tk_str s, int note,
		      tk_error *err)
{
	size_t n;
	const char *p;

	if (s < bw->cap_name_ok && bw->name_ok[s])
		return TK_OK;
	p = tk_trace_str(w->trace, s, &n);
	if (memchr(p, '\n', n) || memchr(p, '\r', n) ||
	    (!note && memchr(p, ',', n)))
		return tk_err_set(err, TK_E_UNSUPPORTED,
				  w->sink.path ? w->sink.path : "<stdout>", 0, 0,
				  "name '%.40s' holds a comma or line break, which BTF cannot hold",
				  p);
	if (tk_grow_zero32((void **)&bw->name_ok, &bw->cap_name_ok, s, 1) < 0)
		return tk_err_nomem(err, w->sink.path);
	bw->name_ok[s] = 1;
	return TK_OK;
}

/* ---- data lines --------------------------------------------------------- */

/* The number of decimal digits of v (1 to 20). */
static inline unsigned dec_len(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull
	};
	/* floor(log10(2^bits)) is bits * 1233 >> 12 for bits <= 64; one
	 * compare corrects it for v (0 counts as 1, like 1) */
	unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
	unsigned n = (bits * 1233u) >> 12;

	return n + ((v | 1) >= pow10[n]);
#else
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
#endif
}

/* v in decimal at o (as tk_fmt_u64() writes it), two digits per step from
 * the end; returns the end. */
static inline char *put_u64(char *o, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"93949596979899";
	char *end = o + dec_len(v), *e = end;

	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, pairs + 2 * v, 2);
	} else {
		e[-1] = (char)('0' + v);
	}
	return end;
}

static inline char *put_i64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		/* negate in unsigned arithmetic: INT64_MIN has no positive twin */
		return put_u64(o, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(o, (uint64_t)v);
}

/*
 * The bytes of string s for a line (tk_trace_str(), without the call):
 * *pad is set when the pool's padding lets them be copied as
 * TK_STRPOOL_PAD bytes whatever their length.
 */
static inline const char *str_of(const tk_trace *t, tk_str s, size_t *n,
				 int *pad)
{
	if (TK_LIKELY(s < t->pool.count)) {
		const char *p = tk_strpool_get(&t->pool, s, n);
		*pad = *n <= TK_STRPOOL_PAD;
		return p;
	}
	*pad = 0;
	return tk_trace_str(t, s, n);
}

/* Copy n bytes to o, which has TK_STRPOOL_PAD bytes of room past them:
 * short pool strings as one fixed-size copy (two words, no call). */
static inline char *put_bytes(char *o, const char *p, size_t n, int pad)
{
	if (TK_LIKELY(pad))
		memcpy(o, p, TK_STRPOOL_PAD);
	else
		memcpy(o, p, n);
	return o + n;
}

/* Whether a note holds a line break (notes are short: a loop beats two
 * memchr() calls; long ones get memchr()). */
static inline int has_line_break(const char *p, size_t n)
{
	size_t i;

	if (n > 32)
		return memchr(p, '\n', n) || memchr(p, '\r', n);
	for (i = 0; i < n; i++)
		if (p[i] == '\n' || p[i] == '\r')
			return 1;
	return 0;
}

int btf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	btf_writer *bw = w->impl;
	const tk_trace *t = w->trace;
	const tk_entity *src, *tgt;
	const char *sn, *tn, *gn, *en;
	size_t need, nsrc, ntgt, ntn, nen;
	int psrc, ptgt, ptn, pen;
	uint64_t time = ev->time;
	char *o, *start;
	int rc;

	if (ev->source >= t->nents || ev->target >= t->nents)
		return tk_err_set(err, TK_E_USAGE, w->sink.path, 0, 0,
				  "event refers to an unknown entity");
	src = &t->ents[ev->source];
	tgt = &t->ents[ev->target];
	if (TK_UNLIKELY(bw->convert)) {
		rc = tk_time_convert(ev->time, tk_trace_timebase(t), &bw->out_tb,
				     TK_ROUND_EXACT, &time);
		bw->nevents++;
		if (rc == TK_E_RANGE && bw->rounding) {
			rc = tk_time_convert(ev->time, tk_trace_timebase(t),
					     &bw->out_tb, TK_ROUND_DOWN, &time);
			bw->nrounded += rc == TK_OK;
		}
		if (rc < 0 && tk_time_convert(ev->time, tk_trace_timebase(t),
					      &bw->out_tb, TK_ROUND_DOWN,
					      &time) < 0)
			return tk_err_set(err, rc, w->sink.path, 0, 0,
					  "time %llu is beyond BTF's 64-bit times in %s",
					  (unsigned long long)ev->time,
					  tk_unit_name(bw->out_tb.unit));
		if (rc < 0)
			return tk_err_set(err, rc, w->sink.path, 0, 0,
					  "time %llu cannot be written exactly in %s",
					  (unsigned long long)ev->time,
					  tk_unit_name(bw->out_tb.unit));
	}
	if (TK_UNLIKELY(
		    (src->name >= bw->cap_name_ok || !bw->name_ok[src->name]) ||
		    (tgt->name >= bw->cap_name_ok || !bw->name_ok[tgt->name]))) {
		if ((rc = check_name(w, bw, src->name, 0, err)) < 0 ||
		    (rc = check_name(w, bw, tgt->name, 0, err)) < 0)
			return rc;
	}
	sn = str_of(t, src->name, &nsrc, &psrc);
	gn = str_of(t, tgt->name, &ntgt, &ptgt);
	if (ev->type_name != TK_NONE) {
		tn = str_of(t, ev->type_name, &ntn, &ptn);
	} else {
		tn = tk_etype_name(ev->type);
		ntn = strlen(tn);
		ptn = 0;
	}
	if (ev->name != TK_NONE) {
		en = str_of(t, ev->name, &nen, &pen);
	} else {
		en = tk_evkind_name(ev->kind);
		nen = strlen(en);
		pen = 0;
	}
	if (TK_UNLIKELY(ev->note && has_line_break(ev->note, ev->note_len)))
		return tk_err_set(err, TK_E_UNSUPPORTED, w->sink.path, 0, 0,
				  "a note holds a line break, which BTF cannot hold");
	need = 20 + 1 + nsrc + 1 + 21 + 1 + ntn + 1 + ntgt + 1 + 21 + 1 +
	       nen + 1 + (ev->note ? ev->note_len : 0) + 1;
	start = o = tk_sink_reserve(&w->sink, need, err);
	if (!o) {
		if (need > w->sink.cap)
			return tk_sink_write(&w->sink, "", 0, err) < 0
				       ? TK_E_IO
				       : tk_err_set(err, TK_E_UNSUPPORTED,
						    w->sink.path, 0, 0,
						    "line too long");
		return TK_E_IO;
	}
	/* a word copy writes up to TK_STRPOOL_PAD bytes past a name: only
	 * with that much room left (the buffer is flushed where it always
	 * was, so output goes out in the same pieces) */
	if (TK_UNLIKELY(w->sink.cap - w->sink.len < need + TK_STRPOOL_PAD))
		psrc = ptgt = ptn = pen = 0;
	o = put_u64(o, time);
	*o++ = ',';
	o = put_bytes(o, sn, nsrc, psrc);
	*o++ = ',';
	if (ev->source_inst != TK_INST_NONE)
		o = put_i64(o, ev->source_inst);
	*o++ = ',';
	o = put_bytes(o, tn, ntn, ptn);
	*o++ = ',';
	o = put_bytes(o, gn, ntgt, ptgt);
	*o++ = ',';
	if (ev->target_inst != TK_INST_NONE)
		o = put_i64(o, ev->target_inst);
	*o++ = ',';
	o = put_bytes(o, en, nen, pen);
	if (ev->note) {
		*o++ = ',';
		memcpy(o, ev->note, ev->note_len);
		o += ev->note_len;
	}
	*o++ = '\n';
	w->sink.len += (size_t)(o - start);
	return TK_OK;
}

int btf_writer_close(tk_writer *w, tk_error *err)
{
	btf_writer *bw = w->impl;
	const tk_timebase *tb = tk_trace_timebase(w->trace);
	tk_error wn;

	(void)err;
	if (!bw->nrounded || !w->opts.on_warning)
		return TK_OK;
	memset(&wn, 0, sizeof(wn));
	snprintf(wn.input, sizeof(wn.input), "%s",
		 w->sink.path ? w->sink.path : "<stdout>");
	snprintf(wn.msg, sizeof(wn.msg),
		 "BTF cannot hold everything: no BTF time scale is exact for ticks of %llu/%llu %s; %llu of %llu times rounded down to whole ps (--strict refuses)",
		 (unsigned long long)tb->num, (unsigned long long)tb->den,
		 tk_unit_name(tb->unit), (unsigned long long)bw->nrounded,
		 (unsigned long long)bw->nevents);
	w->opts.on_warning(w->opts.warning_ctx, &wn);
	return TK_OK;
}

void btf_writer_free(tk_writer *w)
{
	btf_writer *bw = w->impl;

	if (bw) {
		free(bw->name_ok);
		free(bw);
	}
	w->impl = NULL;
}

const tk_format_ops tk_format_btf = {
	.info = {
		.name = "btf",
		.extensions = "btf",
		.description = "Best Trace Format 1.0-2.3 (CSV text; APP4MC, Trace Compass, TA Tool Suite)",
		.caps = TK_CAP_READ | TK_CAP_WRITE,
	},
	.probe = btf_probe,
	.reader_open = btf_reader_open,
	.reader_next = btf_reader_next,
	.reader_close = btf_reader_close,
	.writer_open = btf_writer_open,
	.writer_write = btf_writer_write,
	.writer_close = btf_writer_close,
	.writer_free = btf_writer_free,
};
