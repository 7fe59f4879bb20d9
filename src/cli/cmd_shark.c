/*
 * cmd_shark.c - `tracekit shark list|pwc IN [-o OUT]`: the text of the
 * S.Ha.R.K. host tools `list` and `pwcet_gen` from a dump's records
 * (include/tracekit/shark.h), byte for byte; and their old spellings,
 * `convert --to shark-list|shark-pwc` or OUT named .list / .pwc (a view of
 * convert, cli.h).
 */
#include "cli.h"
#include "tracekit/shark.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/*
 * The text of the host tools (demos/newtrace/utils;
 * specs/shark-ftrace-reference.md 1.9), byte for byte, from the records of
 * tracekit/shark.h.  Number formats are the tools' printf conversions: %d
 * of the 16-bit par1 (0..65535) and %d of the 32-bit par2, which prints a
 * value of 2^31 or more as a negative number, as the original did on its
 * 32-bit int.
 */

/* the room a line of either tool needs, with its NUL */
#define TOOL_LINE_MAX 160

/* the event codes pwcet_gen knows (the low byte of the type word) */
enum {
	EV_IPOINT = 0x01, EV_TASK_CREATE = 0x02, EV_INTERRUPT_START = 0x03,
	EV_CYCLES_PER_MSEC = 0x10, EV_TASK_ACTIVATE = 0x12, EV_INTERRUPT_END = 0x13,
	EV_CONTEXT_SWITCH = 0x15, EV_TRACE_START = 0x20, EV_TIMER_WAKEUP_START = 0x2B,
	EV_TRACE_STOP = 0x30, EV_TIMER_WAKEUP_END = 0x3B, EV_TASK_END = 0x42,
	EV_SERVER_ACTIVE = 0x58, EV_ID = 0x60, EV_TASK_END_CYCLE = 0x62,
	EV_TASK_DEADLINE_MISS = 0xB2, EV_TASK_WCET_VIOLATION = 0xC2
};

/* the 32-bit par2 as the tools' "%d" prints it */
static long long as_int32(uint32_t v)
{
	return v >= 0x80000000u ? (long long)v - 0x100000000ll : (long long)v;
}

/* list: one line per 16-byte record, empty slots included. */
static int list_line(char *out, const tk_shark_record *x)
{
	return snprintf(out, TOOL_LINE_MAX,
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
	case EV_IPOINT:
		return snprintf(out, TOOL_LINE_MAX, "%u %llu \n", par1, tsc);
	case EV_TRACE_START:
		return snprintf(out, TOOL_LINE_MAX, "0 %llu %u %lld \n", tsc,
				par1, par2);
	case EV_TRACE_STOP:
		return snprintf(out, TOOL_LINE_MAX, "1 %llu \n", tsc);
	case EV_INTERRUPT_START:
		return snprintf(out, TOOL_LINE_MAX, "2 %llu %u \n", tsc, par1);
	case EV_TIMER_WAKEUP_START:
		return snprintf(out, TOOL_LINE_MAX, "2 %llu 0 \n", tsc);
	case EV_INTERRUPT_END:
	case EV_TIMER_WAKEUP_END:
		return snprintf(out, TOOL_LINE_MAX, "3 %llu %u \n", tsc, par1);
	case EV_CONTEXT_SWITCH:
		return snprintf(out, TOOL_LINE_MAX, "4 %llu %u \n", tsc, par1);
	case EV_TASK_CREATE:
		return snprintf(out, TOOL_LINE_MAX, "5 %llu %u %lld\n", tsc,
				par1, par2);
	case EV_TASK_ACTIVATE:
		return snprintf(out, TOOL_LINE_MAX, "6 %llu %u \n", tsc, par1);
	case EV_TASK_END:
		return snprintf(out, TOOL_LINE_MAX, "7 %llu %u \n", tsc, par1);
	case EV_TASK_END_CYCLE:
		return snprintf(out, TOOL_LINE_MAX, "8 %llu %u \n", tsc, par1);
	case EV_ID:
		return snprintf(out, TOOL_LINE_MAX, "9 %llu %u %lld\n", tsc,
				par1, par2);
	case EV_CYCLES_PER_MSEC:
		return snprintf(out, TOOL_LINE_MAX, "10 %llu %lld \n", tsc, par2);
	case EV_SERVER_ACTIVE:
		n = 16;
		break;
	case EV_TASK_DEADLINE_MISS:
		n = 20;
		break;
	case EV_TASK_WCET_VIOLATION:
		n = 21;
		break;
	default:
		return 0;
	}
	return snprintf(out, TOOL_LINE_MAX, "%d %llu %u %lld\n", n, tsc,
			par1, par2);
}

static size_t tool_line(int list, const tk_shark_record *rec, char *buf)
{
	int n = list ? list_line(buf, rec) : pwc_line(buf, rec);

	/* every line fits: the longest is list's, about 100 bytes */
	return n > 0 && n < TOOL_LINE_MAX ? (size_t)n : 0;
}

/* The tool's whole output (list, else pwcet_gen) for the records of `in`
 * (closed by this call) on `out` ("-": standard output), which appears
 * only when complete.  TK_OK or < 0 with `err` filled. */
static int tool_write(tk_input *in, int list, const char *out, tk_error *err)
{
	tk_shark_records *it = NULL;
	tk_shark_record x;
	tk_output *o = NULL;
	/* lines gathered into writes of about 64 KB */
	char buf[65536];
	size_t len = 0;
	int rc;

	rc = tk_shark_records_open(&it, in, err);
	if (rc < 0)
		return rc;
	rc = tk_output_open(&o, out, err);
	if (rc < 0)
		goto out;
	while ((rc = tk_shark_records_next(it, &x, err)) == TK_OK) {
		if (sizeof(buf) - len < TOOL_LINE_MAX) {
			if ((rc = tk_output_write(o, buf, len, err)) < 0)
				goto out;
			len = 0;
		}
		len += tool_line(list, &x, buf + len);
	}
	if (rc == TK_END && (rc = tk_output_write(o, buf, len, err)) == TK_OK) {
		rc = tk_output_close(o, err);
		o = NULL;
	}
out:
	tk_output_abort(o);
	tk_shark_records_close(it);
	return rc;
}

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit shark list|pwc [options] IN\n\n"
		"The text of a S.Ha.R.K. host tool, made from the 16-byte records of the\n"
		"FTrace dump IN in file order, byte for byte:\n"
		"  list   the `list` tool: every record, empty slots included\n"
		"  pwc    the `pwcet_gen` tool: the significant events\n"
		"IN is read as a dump whatever its content ('-' is standard input; gzip\n"
		"and zstd are decoded); bytes after the last whole record are ignored.\n\n"
		"options:\n"
		"  -o, --output OUT    write OUT instead of standard output (under a\n"
		"                      temporary name, renamed once complete; an OUT\n"
		"                      named .gz or .zst is compressed)\n"
		"  -h, --help          this help\n");
}

/* the host tool's text ("list" or "pwc") from the records of `in` (closed) */
static int shark_tool(const char *tool, tk_input *in, const char *out)
{
	tk_error err;

	tk_error_clear(&err);
	if (tool_write(in, strcmp(tool, "list") == 0, out, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	return EXIT_OK;
}

/* `convert IN OUT --to shark-pwc` (or OUT.pwc), the old way */
static int convert_view(const cli_view *v, int argc, char **argv, tk_input *in)
{
	static const struct option longopts[] = {
		CLI_READ_LONGOPTS,
		CLI_FILTER_LONGOPTS,
		{ "to", required_argument, NULL, CLI_O_SKIP },
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args a = { { NULL }, 0 };
	const char *tool = v->ext;
	int c, filter = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &a)) != -1) {
		if (c == CLI_O_FROM || c == CLI_O_STRICT || c == CLI_O_TRACE ||
		    c == CLI_O_INPUT_OPTION || c == CLI_O_FORCE_FORMAT)
			cli_read_opt(&ro, "convert", c, optarg);
		else if (c == 'q')
			ro.quiet = 1;
		else if (c >= CLI_O_START && c <= CLI_O_EVENT)
			filter = 1;
	}
	if (filter) {
		cli_usage_error("convert",
				"shark-%s writes every record of the dump, as the S.Ha.R.K. tool does: --start/--end/--entity/--type/--event do not apply",
				tool);
		return EXIT_BAD;
	}
	if (cli_getopt_other()) {
		cli_usage_error("convert", "shark-%s takes no %s", tool, cli_getopt_other());
		return EXIT_BAD;
	}
	if (cli_input(&in, a.v[0], &ro) < 0)
		return EXIT_BAD;
	if (strcmp(tk_input_format(in)->name, "shark") != 0) {
		cli_msg("%s: error: shark-%s reproduces a S.Ha.R.K. tool from the records of a shark dump: the input must be read as shark\n",
			a.v[1], tool);
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (!ro.quiet)
		cli_msg("tracekit convert: note: --to shark-%s is deprecated: use 'tracekit shark %s IN -o OUT'\n",
			tool, tool);
	return shark_tool(tool, in, a.v[1]);
}

const cli_view cli_view_shark_list = {
	"convert", NULL, "shark-list", "list", NULL, NULL, NULL, convert_view
};
const cli_view cli_view_shark_pwc = {
	"convert", NULL, "shark-pwc", "pwc", NULL, NULL, NULL, convert_view
};

int cmd_shark(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cli_args args = { { NULL }, 0 };
	const char *out = "-";
	tk_input *in = NULL;
	tk_reader_opts ro;
	tk_error err;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:h", longopts, &args)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 2) {
		cli_usage_error("shark", "expected a tool (list or pwc) and IN");
		return EXIT_BAD;
	}
	if (strcmp(args.v[0], "list") != 0 && strcmp(args.v[0], "pwc") != 0) {
		cli_usage_error("shark", "unknown tool '%s' (list or pwc)", args.v[0]);
		return EXIT_BAD;
	}
	if (cli_out_is_in(args.v[1], out))
		return EXIT_BAD;
	/* whatever its content, as the S.Ha.R.K. tools read it */
	tk_reader_opts_init(&ro);
	ro.format = "shark";
	ro.force_format = 1;
	tk_error_clear(&err);
	if (tk_input_open_opts(&in, args.v[1], &ro, &err) < 0) {
		cli_error(&err);
		return EXIT_BAD;
	}
	return shark_tool(args.v[0], in, out);
}
