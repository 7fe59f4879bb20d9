/*
 * shark_tools.c - the text outputs of the S.Ha.R.K. host tools `list` and
 * `pwcet_gen` (demos/newtrace/utils; specs/shark-ftrace-reference.md 1.9),
 * byte for byte, as the writers "shark-list" and "shark-pwc".
 *
 * Both tools are functions of the dump's raw records in file order, not of
 * events: they print the type word with its FAST bit, the stale par2 of a
 * FAST record, empty slots (list), and records that map to no event of the
 * model (id, task_create).  So these writers take the records from the
 * shark reader that the events come from (tk_trace.raw: the whole dump in
 * memory, which a file always is, and a pipe of up to 64 MiB) and ignore
 * the events themselves; the output is written when the reader has read
 * (and so checked) the whole input.  Any other input is refused at open.
 *
 * Number formats are the tools' printf conversions: %d of the 16-bit par1
 * (0..65535) and %d of the 32-bit par2, which prints a value of 2^31 or
 * more as a negative number, as the original did on its 32-bit int.
 */
#include "shark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the longest line of either tool: list's, about 100 bytes */
#define LINE_MAX 160

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* the 32-bit par2 as the tools' "%d" prints it */
static long long as_int32(uint32_t v)
{
	return v >= 0x80000000u ? (long long)v - 0x100000000ll : (long long)v;
}

static int tools_open(tk_writer *w, tk_error *err)
{
	const tk_trace *t = w->trace;

	if (!t || !t->format || strcmp(t->format, "shark") != 0)
		return tk_err_set(err, TK_E_UNSUPPORTED, w->sink.path ? w->sink.path : "-",
				  0, 0,
				  "%s reproduces a S.Ha.R.K. tool from the records of a shark dump: the input must be read as shark",
				  w->fmt->info.name);
	if (!t->raw)
		return tk_err_set(err, TK_E_UNSUPPORTED, w->sink.path ? w->sink.path : "-",
				  0, 0,
				  "%s needs the whole dump in memory: give a file, or a stream of at most 64 MiB",
				  w->fmt->info.name);
	return TK_OK;
}

static int tools_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	(void)w;
	(void)ev;
	(void)err;
	return TK_OK;  /* the records are written at close */
}

/* list: one line per 16-byte record, empty slots included. */
static int list_line(char *out, uint64_t i, const uint8_t *p)
{
	uint32_t hi = le32(p + 4), lo = le32(p + 8);

	return snprintf(out, LINE_MAX,
			"%08llu Type = %02x TSC = %llu (%08lx:%08lx) Par1 = %11u Par2 = %11lld\n",
			(unsigned long long)i, (unsigned)le16(p),
			(unsigned long long)((uint64_t)hi << 32 | lo),
			(unsigned long)hi, (unsigned long)lo, (unsigned)le16(p + 2),
			as_int32(le32(p + 12)));
}

/* pwcet_gen: the significant events only (0 when the record is skipped). */
static int pwc_line(char *out, uint64_t i, const uint8_t *p)
{
	unsigned code = le16(p) & 0xffu, par1 = le16(p + 2);
	unsigned long long tsc = (uint64_t)le32(p + 4) << 32 | le32(p + 8);
	long long par2 = as_int32(le32(p + 12));
	int n;

	(void)i;
	switch (code) {
	case SHARK_IPOINT:
		return snprintf(out, LINE_MAX, "%u %llu \n", par1, tsc);
	case SHARK_TRACE_START:
		return snprintf(out, LINE_MAX, "0 %llu %u %lld \n", tsc, par1, par2);
	case SHARK_TRACE_STOP:
		return snprintf(out, LINE_MAX, "1 %llu \n", tsc);
	case SHARK_INTERRUPT_START:
		return snprintf(out, LINE_MAX, "2 %llu %u \n", tsc, par1);
	case SHARK_TIMER_WAKEUP_START:
		return snprintf(out, LINE_MAX, "2 %llu 0 \n", tsc);
	case SHARK_INTERRUPT_END:
	case SHARK_TIMER_WAKEUP_END:
		return snprintf(out, LINE_MAX, "3 %llu %u \n", tsc, par1);
	case SHARK_CONTEXT_SWITCH:
		return snprintf(out, LINE_MAX, "4 %llu %u \n", tsc, par1);
	case SHARK_TASK_CREATE:
		return snprintf(out, LINE_MAX, "5 %llu %u %lld\n", tsc, par1, par2);
	case SHARK_TASK_ACTIVATE:
		return snprintf(out, LINE_MAX, "6 %llu %u \n", tsc, par1);
	case SHARK_TASK_END:
		return snprintf(out, LINE_MAX, "7 %llu %u \n", tsc, par1);
	case SHARK_TASK_END_CYCLE:
		return snprintf(out, LINE_MAX, "8 %llu %u \n", tsc, par1);
	case SHARK_ID:
		return snprintf(out, LINE_MAX, "9 %llu %u %lld\n", tsc, par1, par2);
	case SHARK_CYCLES_PER_MSEC:
		return snprintf(out, LINE_MAX, "10 %llu %lld \n", tsc, par2);
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
	return snprintf(out, LINE_MAX, "%d %llu %u %lld\n", n, tsc, par1, par2);
}

static int tools_close(tk_writer *w, tk_error *err)
{
	const tk_trace *t = w->trace;
	int (*line)(char *, uint64_t, const uint8_t *) =
		strcmp(w->fmt->info.name, "shark-list") == 0 ? list_line : pwc_line;
	/* as the tools read: whole records, a partial one at the end ignored */
	size_t i, n = t->raw_len / SHARK_REC;

	for (i = 0; i < n; i++) {
		char *out = tk_sink_reserve(&w->sink, LINE_MAX, err);
		int len;
		if (!out)
			return err && err->code ? err->code : TK_E_IO;
		len = line(out, i, t->raw + i * SHARK_REC);
		if (len < 0 || len >= LINE_MAX)
			return tk_err_set(err, TK_E_IO, w->sink.path ? w->sink.path : "-",
					  0, 0, "formatting failed");
		w->sink.len += (size_t)len;
	}
	return TK_OK;
}

const tk_format_ops tk_format_shark_list = {
	.info = {
		.name = "shark-list",
		.extensions = "list",
		.description = "the S.Ha.R.K. `list` tool's text: every record of a shark dump (write only, shark input)",
		.caps = TK_CAP_WRITE | TK_CAP_RAW,
	},
	.writer_open = tools_open,
	.writer_write = tools_write,
	.writer_close = tools_close,
};

const tk_format_ops tk_format_shark_pwc = {
	.info = {
		.name = "shark-pwc",
		.extensions = "pwc",
		.description = "the S.Ha.R.K. `pwcet_gen` tool's significant events (write only, shark input)",
		.caps = TK_CAP_WRITE | TK_CAP_RAW,
	},
	.writer_open = tools_open,
	.writer_write = tools_write,
	.writer_close = tools_close,
};
