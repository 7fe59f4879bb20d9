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

#include <stdlib.h>
#include <string.h>

typedef struct btf_writer {
	tk_timebase out_tb;
	int convert;             /* input ticks != output ticks */
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
		return tk_err_set(err, TK_E_RANGE,
				  w->sink.path ? w->sink.path : "<stdout>", 0, 0,
				  "the time base %llu/%llu %s has no exact BTF time scale",
				  (unsigned long long)tb->num,
				  (unsigned long long)tb->den, tk_unit_name(tb->unit));
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
	if (s >= bw->cap_name_ok) {
		uint32_t ncap = bw->cap_name_ok ? bw->cap_name_ok : 256;
		uint8_t *nn;
		while (ncap <= s)
			ncap *= 2;
		nn = realloc(bw->name_ok, ncap);
		if (!nn)
			return tk_err_nomem(err, w->sink.path);
		memset(nn + bw->cap_name_ok, 0, ncap - bw->cap_name_ok);
		bw->name_ok = nn;
		bw->cap_name_ok = ncap;
	}
	bw->name_ok[s] = 1;
	return TK_OK;
}

static char *put_str(char *o, const tk_trace *t, tk_str s)
{
	size_t n;
	const char *p = tk_trace_str(t, s, &n);

	memcpy(o, p, n);
	return o + n;
}

int btf_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	btf_writer *bw = w->impl;
	const tk_trace *t = w->trace;
	const tk_entity *src = tk_trace_entity(t, ev->source);
	const tk_entity *tgt = tk_trace_entity(t, ev->target);
	const char *tn, *en;
	size_t need, nsrc, ntgt, ntn, nen;
	uint64_t time = ev->time;
	char *o, *start;
	int rc;

	if (!src || !tgt)
		return tk_err_set(err, TK_E_USAGE, w->sink.path, 0, 0,
				  "event refers to an unknown entity");
	if (TK_UNLIKELY(bw->convert)) {
		rc = tk_time_convert(ev->time, tk_trace_timebase(t), &bw->out_tb,
				     TK_ROUND_EXACT, &time);
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
	tk_trace_str(t, src->name, &nsrc);
	tk_trace_str(t, tgt->name, &ntgt);
	if (ev->type_name != TK_NONE) {
		tn = tk_trace_str(t, ev->type_name, &ntn);
	} else {
		tn = tk_etype_name(ev->type);
		ntn = strlen(tn);
	}
	if (ev->name != TK_NONE) {
		en = tk_trace_str(t, ev->name, &nen);
	} else {
		en = tk_evkind_name(ev->kind);
		nen = strlen(en);
	}
	if (TK_UNLIKELY(ev->note && (memchr(ev->note, '\n', ev->note_len) ||
				     memchr(ev->note, '\r', ev->note_len))))
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
	o += tk_fmt_u64(o, time);
	*o++ = ',';
	o = put_str(o, t, src->name);
	*o++ = ',';
	if (ev->source_inst != TK_INST_NONE)
		o += tk_fmt_i64(o, ev->source_inst);
	*o++ = ',';
	memcpy(o, tn, ntn);
	o += ntn;
	*o++ = ',';
	o = put_str(o, t, tgt->name);
	*o++ = ',';
	if (ev->target_inst != TK_INST_NONE)
		o += tk_fmt_i64(o, ev->target_inst);
	*o++ = ',';
	memcpy(o, en, nen);
	o += nen;
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
	(void)w;
	(void)err;
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
