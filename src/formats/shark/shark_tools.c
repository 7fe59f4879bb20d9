/*
 * shark_tools.c - the records of a dump in file order, and the text
 * outputs of the S.Ha.R.K. host tools `list` and `pwcet_gen`
 * (demos/newtrace/utils; specs/shark-ftrace-reference.md 1.9), byte for
 * byte: include/tracekit/shark.h, `tracekit shark list|pwc`.
 *
 * Number formats are the tools' printf conversions: %d of the 16-bit par1
 * (0..65535) and %d of the 32-bit par2, which prints a value of 2^31 or
 * more as a negative number, as the original did on its 32-bit int.
 */
#include "shark.h"
#include "tracekit/shark.h"

#include <stdio.h>
#include <stdlib.h>

/* the records read at a time (256 KB) */
#define CHUNK ((size_t)16384)

struct tk_shark_records {
	tk_source *src;
	uint64_t nslots, next;   /* whole records, and the next one's slot */
	uint64_t wfrom, wto;     /* slots [wfrom, wto) are in buf */
	uint8_t *buf;
};

int tk_shark_records_open(tk_shark_records **out, tk_input *in,
			  tk_error *err)
{
	tk_shark_records *it = calloc(1, sizeof(*it));
	uint64_t size;
	int rc;

	*out = NULL;
	if (!it) {
		rc = tk_err_nomem(err, tk_source_name(in->src));
		tk_input_close(in);
		return rc;
	}
	it->src = tk_input_release(in);
	rc = tk_source_size(it->src, &size, err);
	if (rc < 0)
		goto fail;
	it->nslots = size / SHARK_REC;
	it->buf = tk_bigbuf_alloc(CHUNK * SHARK_REC);
	if (!it->buf) {
		rc = tk_err_nomem(err, tk_source_name(it->src));
		goto fail;
	}
	*out = it;
	return TK_OK;
fail:
	tk_shark_records_close(it);
	return rc;
}

int tk_shark_records_next(tk_shark_records *it, tk_shark_record *rec,
			  tk_error *err)
{
	const uint8_t *p;

	if (it->next == it->nslots)
		return TK_END;
	if (it->next >= it->wto) {
		uint64_t to = it->nslots - it->next > CHUNK ? it->next + CHUNK
							    : it->nslots;
		int rc = tk_source_read_at(it->src, it->next * SHARK_REC, it->buf,
					   (size_t)(to - it->next) * SHARK_REC, err);
		if (rc < 0)
			return rc;
		it->wfrom = it->next;
		it->wto = to;
	}
	p = it->buf + (it->next - it->wfrom) * SHARK_REC;
	rec->index = it->next++;
	rec->type = tk_load_le16(p);
	rec->par1 = tk_load_le16(p + 2);
	rec->tsc = shark_tsc(p);
	rec->par2 = tk_load_le32(p + 12);
	return TK_OK;
}

void tk_shark_records_close(tk_shark_records *it)
{
	if (!it)
		return;
	tk_source_close(it->src);
	tk_bigbuf_free(it->buf);
	free(it);
}

/* the 32-bit par2 as the tools' "%d" prints it */
static long long as_int32(uint32_t v)
{
	return v >= 0x80000000u ? (long long)v - 0x100000000ll : (long long)v;
}

/* list: one line per 16-byte record, empty slots included. */
static int list_line(char *out, const tk_shark_record *x)
{
	return snprintf(out, TK_SHARK_LINE_MAX,
			"%08llu Type = %02x TSC = %llu (%08lx:%08lx) Par1 = %11u Par2 = %11lld\n",
			(unsigned long long)x->index, (unsigned)x->type,
			(unsigned long long)x->tsc, (unsigned long)(x->tsc >> 32),
			(unsigned long)(x->tsc & 0xffffffffu), (unsigned)x->par1,
			as_int32(x->par2));
}

/* pwcet_gen: the significant events only (0 when the record is skipped). */
static int pwc_line(char *out, const tk_shark_record *x)
{
	unsigned par1 = x->par1;
	unsigned long long tsc = x->tsc;
	long long par2 = as_int32(x->par2);
	int n;

	switch (x->type & 0xffu) {
	case SHARK_IPOINT:
		return snprintf(out, TK_SHARK_LINE_MAX, "%u %llu \n", par1, tsc);
	case SHARK_TRACE_START:
		return snprintf(out, TK_SHARK_LINE_MAX, "0 %llu %u %lld \n", tsc,
				par1, par2);
	case SHARK_TRACE_STOP:
		return snprintf(out, TK_SHARK_LINE_MAX, "1 %llu \n", tsc);
	case SHARK_INTERRUPT_START:
		return snprintf(out, TK_SHARK_LINE_MAX, "2 %llu %u \n", tsc, par1);
	case SHARK_TIMER_WAKEUP_START:
		return snprintf(out, TK_SHARK_LINE_MAX, "2 %llu 0 \n", tsc);
	case SHARK_INTERRUPT_END:
	case SHARK_TIMER_WAKEUP_END:
		return snprintf(out, TK_SHARK_LINE_MAX, "3 %llu %u \n", tsc, par1);
	case SHARK_CONTEXT_SWITCH:
		return snprintf(out, TK_SHARK_LINE_MAX, "4 %llu %u \n", tsc, par1);
	case SHARK_TASK_CREATE:
		return snprintf(out, TK_SHARK_LINE_MAX, "5 %llu %u %lld\n", tsc,
				par1, par2);
	case SHARK_TASK_ACTIVATE:
		return snprintf(out, TK_SHARK_LINE_MAX, "6 %llu %u \n", tsc, par1);
	case SHARK_TASK_END:
		return snprintf(out, TK_SHARK_LINE_MAX, "7 %llu %u \n", tsc, par1);
	case SHARK_TASK_END_CYCLE:
		return snprintf(out, TK_SHARK_LINE_MAX, "8 %llu %u \n", tsc, par1);
	case SHARK_ID:
		return snprintf(out, TK_SHARK_LINE_MAX, "9 %llu %u %lld\n", tsc,
				par1, par2);
	case SHARK_CYCLES_PER_MSEC:
		return snprintf(out, TK_SHARK_LINE_MAX, "10 %llu %lld \n", tsc, par2);
	case SHARK_SERVER_ACTIVE:
		n = 16;
		break;
	case SHARK_TASK_DEADLINE_MISS:
		n = 20;
		break;
	case SHARK_TASK_WCET_VIOLATION:
		n = 21;
		break;
	default:
		return 0;
	}
	return snprintf(out, TK_SHARK_LINE_MAX, "%d %llu %u %lld\n", n, tsc,
			par1, par2);
}

size_t tk_shark_tool_line(tk_shark_tool tool, const tk_shark_record *rec,
			  char *buf)
{
	int n = tool == TK_SHARK_LIST ? list_line(buf, rec) : pwc_line(buf, rec);

	/* every line fits: the longest is list's, about 100 bytes */
	return n > 0 && n < TK_SHARK_LINE_MAX ? (size_t)n : 0;
}

int tk_shark_tool_write(tk_input *in, tk_shark_tool tool, const char *out,
			tk_error *err)
{
	tk_shark_records *it = NULL;
	tk_shark_record x;
	tk_sink sink;
	int rc, open = 0;

	rc = tk_shark_records_open(&it, in, err);
	if (rc < 0)
		return rc;
	rc = tk_sink_open(&sink, out, err);
	if (rc < 0)
		goto out;
	open = 1;
	while ((rc = tk_shark_records_next(it, &x, err)) == TK_OK) {
		char *p = tk_sink_reserve(&sink, TK_SHARK_LINE_MAX, err);
		if (!p) {
			rc = err && err->code ? err->code : TK_E_IO;
			goto out;
		}
		sink.len += tk_shark_tool_line(tool, &x, p);
	}
	if (rc == TK_END) {
		rc = tk_sink_commit(&sink, err);
		open = 0;
	}
out:
	if (open)
		tk_sink_abort(&sink);
	tk_shark_records_close(it);
	return rc;
}
