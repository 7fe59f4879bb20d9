/* cmd_verify.c - `tracekit verify`: timing requirements as a CI gate. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit verify [options] TRACE... -r REQUIREMENTS.yaml\n\n"
		"Hold every trace against the timing requirements of a YAML file\n"
		"(docs/verify.md): bounds max:/min: on a metric of stats of an entity,\n"
		"of several, of every one of a type (entity:, entities:, type: T|I|R,\n"
		"metric:, percentile:), on a cause-effect chain (chain: [S0, S1, ...],\n"
		"metric: REACTION|AGE|LOST) or on a core's load (load: CORE, window:).\n"
		"Each line says the worst value, the bound, the margin and where: the\n"
		"instance and its time, or a window's start, for `tracekit cat --start`.\n"
		"Exit 0 when every requirement holds on every trace, 1 when one fails,\n"
		"2 for an unreadable trace or requirements file.\n\n"
		"options:\n"
		"  -r, --requirements FILE  the requirements (YAML; required; '-' reads standard input)\n"
		"  --format text|json|junit  output format (default text); junit: a\n"
		"                      testsuite per trace, a testcase per requirement\n"
		"  -o, --output OUT    write the output to OUT (default: standard output)\n"
		"  --from FORMAT       read the traces as FORMAT instead of probing them\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_FORMAT = 256 };
enum { OUT_TEXT, OUT_JSON, OUT_JUNIT };
#define MAX_TRACES 16

/* s as XML character data or an attribute value: markup characters as
 * entities, a character XML 1.0 does not allow (a control character, a
 * byte that is not well-formed UTF-8, the non-characters U+FFFE and
 * U+FFFF: well-formed UTF-8 that XML's Char excludes, a name of a trace
 * may hold them) as U+FFFD.  Surrogates are not well-formed UTF-8
 * (tk_utf8_len) and every other character above U+FFFF is allowed. */
static void xml_str(FILE *fp, const char *s)
{
	size_t i, n = strlen(s), len;

	for (i = 0; i < n; i += len) {
		unsigned char c = (unsigned char)s[i];
		len = 1;
		if (c == '&')
			fputs("&amp;", fp);
		else if (c == '<')
			fputs("&lt;", fp);
		else if (c == '>')
			fputs("&gt;", fp);
		else if (c == '"')
			fputs("&quot;", fp);
		else if (c == '\'')
			fputs("&apos;", fp);
		else if (c == '\n')
			fputs("&#10;", fp);
		else if (c == '\t')
			fputs("&#9;", fp);
		else if (c < 0x20 || c == 0x7f)
			fputs("\xef\xbf\xbd", fp);
		else if (c < 0x80)
			fputc(c, fp);
		else if ((len = tk_utf8_len((const unsigned char *)s + i, n - i)) == 3 &&
			 c == 0xef && (unsigned char)s[i + 1] == 0xbf &&
			 (unsigned char)s[i + 2] >= 0xbe)
			fputs("\xef\xbf\xbd", fp); /* U+FFFE, U+FFFF */
		else if (len)
			fwrite(s + i, 1, len, fp);
		else {
			fputs("\xef\xbf\xbd", fp);
			len = 1;
		}
	}
}

/* one trace's verdicts */
typedef struct tres {
	const char *path;
	tk_verify *v;
} tres;

static void put_text(FILE *fp, const tres *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < tk_verify_count(res[i].v); j++) {
			const tk_verdict *d = tk_verify_get(res[i].v, j);
			/* the file and the names by the rule of text output */
			cli_text_cstr(fp, res[i].path);
			fprintf(fp, ": %s ", d->ok ? "PASS" : "FAIL");
			cli_text_cstr(fp, d->name);
			fputs(": ", fp);
			cli_text_cstr(fp, d->text);
			fputc('\n', fp);
		}
}

static void json_or_null(FILE *fp, const char *s)
{
	if (s[0])
		cli_json_cstr(fp, s);
	else
		fputs("null", fp);
}

static void put_json(FILE *fp, const tres *res, size_t n, size_t nfail)
{
	fprintf(fp, "{\n  \"ok\": %s,\n  \"failures\": %zu,\n  \"traces\": [",
		nfail ? "false" : "true", nfail);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "%s\n    {\"file\": ", i ? "," : "");
		cli_json_cstr(fp, res[i].path);
		fprintf(fp, ", \"failures\": %zu, \"requirements\": [",
			tk_verify_failures(res[i].v));
		for (size_t j = 0; j < tk_verify_count(res[i].v); j++) {
			const tk_verdict *d = tk_verify_get(res[i].v, j);
			fprintf(fp, "%s\n      {\"name\": ", j ? "," : "");
			cli_json_cstr(fp, d->name);
			fprintf(fp, ", \"ok\": %s, \"subject\": ", d->ok ? "true" : "false");
			cli_json_cstr(fp, d->subject);
			fputs(", \"value\": ", fp);
			json_or_null(fp, d->value);
			fputs(", \"bound\": ", fp);
			json_or_null(fp, d->bound);
			fputs(", \"margin\": ", fp);
			json_or_null(fp, d->margin);
			fputs(", \"where\": ", fp);
			json_or_null(fp, d->where);
			fputs(", \"instance\": ", fp);
			if (d->inst != TK_INST_NONE)
				fprintf(fp, "%lld", (long long)d->inst);
			else
				fputs("null", fp);
			fputs(", \"time\": ", fp);
			if (d->has_time)
				fprintf(fp, "%llu", (unsigned long long)d->time);
			else
				fputs("null", fp);
			fputs(", \"message\": ", fp);
			cli_json_cstr(fp, d->text);
			fputc('}', fp);
		}
		fprintf(fp, "%s]}", tk_verify_count(res[i].v) ? "\n    " : "");
	}
	fprintf(fp, "\n  ]\n}\n");
}

static void put_junit(FILE *fp, const tres *res, size_t n, size_t nfail)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += tk_verify_count(res[i].v);
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"tracekit verify\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		total, nfail);
	for (size_t i = 0; i < n; i++) {
		fputs("  <testsuite name=\"", fp);
		xml_str(fp, res[i].path);
		fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
			tk_verify_count(res[i].v), tk_verify_failures(res[i].v));
		for (size_t j = 0; j < tk_verify_count(res[i].v); j++) {
			const tk_verdict *d = tk_verify_get(res[i].v, j);
			fputs("    <testcase name=\"", fp);
			xml_str(fp, d->name);
			fputs("\" classname=\"", fp);
			xml_str(fp, res[i].path);
			if (d->ok) {
				fputs("\">\n      <system-out>", fp);
				xml_str(fp, d->text);
				fputs("</system-out>\n    </testcase>\n", fp);
				continue;
			}
			fputs("\">\n      <failure message=\"", fp);
			xml_str(fp, d->text);
			fputs("\" type=\"requirement\">", fp);
			xml_str(fp, d->text);
			fputs("</failure>\n    </testcase>\n", fp);
		}
		fputs("  </testsuite>\n", fp);
	}
	fputs("</testsuites>\n", fp);
}

/* read the trace at path through v; 0, or -1 after a message */
static int verify_trace(const char *path, const tk_reqs *q, const cli_read_opts *ro,
			tk_verify **out)
{
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	int rc, ret = -1;

	*out = NULL;
	if (cli_open(&r, path, ro) < 0)
		return -1;
	tk_error_clear(&err);
	if (tk_verify_new(out, q, tk_reader_trace(r), &err) < 0) {
		snprintf(err.input, sizeof(err.input), "%s", cli_input_name(path));
		cli_error(&err);
		goto out;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK)
		if ((rc = tk_verify_event(*out, ev, &err)) < 0) {
			/* the library's error names no input: this one */
			snprintf(err.input, sizeof(err.input), "%s", cli_input_name(path));
			break;
		}
	if (rc < 0) {
		cli_error(&err);
		goto out;
	}
	if ((rc = tk_verify_finish(*out, &err)) < 0) {
		snprintf(err.input, sizeof(err.input), "%s", cli_input_name(path));
		cli_error(&err);
		goto out;
	}
	cli_warning_summary(r, ro);
	ret = 0;
out:
	tk_reader_close(r);
	return ret;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "requirements", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	const char *reqpath = NULL, *outfmt = "text", *outpath = NULL;
	tres res[MAX_TRACES];
	size_t n = 0, nfail = 0;
	tk_reqs *q = NULL;
	tk_error err;
	FILE *fp = NULL;
	tk_output *o = NULL;
	char *buf = NULL;
	size_t buflen = 0;
	int c, rc, out, ret = EXIT_BAD;

	memset(res, 0, sizeof(res));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "r:o:qh", longopts, &args)) != -1) {
		switch (c) {
		case 'r': reqpath = optarg; break;
		case 'o': outpath = optarg; break;
		case O_FORMAT: outfmt = optarg; break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "verify", c, optarg) < 0)
				goto out;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	out = !strcmp(outfmt, "text") ? OUT_TEXT : !strcmp(outfmt, "json") ? OUT_JSON
	      : !strcmp(outfmt, "junit") ? OUT_JUNIT : -1;
	if (out < 0) {
		cli_usage_error("verify", "unknown --format '%s' (text, json or junit)", outfmt);
		goto out;
	}
	if (!reqpath) {
		cli_usage_error("verify", "no requirements file (-r FILE)");
		goto out;
	}
	if (args.n < 1 || args.n > MAX_TRACES) {
		cli_usage_error("verify", "expected one TRACE or more (at most %d)", MAX_TRACES);
		goto out;
	}
	for (int i = 0, stdin_seen = !strcmp(reqpath, "-"); i < args.n; i++)
		if (!strcmp(args.v[i], "-") && stdin_seen++) {
			/* the second read of it would find it empty */
			cli_usage_error("verify", "standard input (-) given twice");
			goto out;
		}
	/* OUT, renamed over its name, would replace a trace or -r's file */
	if (cli_out_is_in(reqpath, outpath))
		goto out;
	for (int i = 0; i < args.n; i++)
		if (cli_out_is_in(args.v[i], outpath))
			goto out;
	tk_error_clear(&err);
	if (tk_reqs_read(&q, reqpath, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	for (n = 0; n < (size_t)args.n; n++) {
		res[n].path = cli_input_name(args.v[n]);
		if (verify_trace(args.v[n], q, &ro, &res[n].v) < 0) {
			n++;
			goto out;
		}
		nfail += tk_verify_failures(res[n].v);
	}
	/* OUT is written whole or not at all: the text gathered, then handed
	 * to an output (a device, a FIFO or a symbolic link's file written
	 * as it is, a file under a temporary name renamed) */
	if (outpath && strcmp(outpath, "-") && !(fp = open_memstream(&buf, &buflen))) {
		cli_msg("tracekit: error: out of memory\n");
		goto out;
	}
	if (out == OUT_TEXT)
		put_text(fp ? fp : stdout, res, n);
	else if (out == OUT_JSON)
		put_json(fp ? fp : stdout, res, n, nfail);
	else
		put_junit(fp ? fp : stdout, res, n, nfail);
	if (fp) {
		int bad = ferror(fp);
		bad |= fclose(fp) != 0;
		fp = NULL;
		if (bad) {
			cli_msg("tracekit: error: out of memory\n");
			goto out;
		}
		tk_error_clear(&err);
		rc = tk_output_open(&o, outpath, &err);
		if (rc == TK_OK && (rc = tk_output_write(o, buf, buflen, &err)) == TK_OK) {
			rc = tk_output_close(o, &err);
			o = NULL;
		}
		if (rc < 0) {
			cli_error(&err);
			goto out;
		}
	}
	ret = nfail ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (fp)
		fclose(fp);
	tk_output_abort(o);
	free(buf);
	for (size_t i = 0; i < n && i < MAX_TRACES; i++)
		tk_verify_free(res[i].v);
	tk_reqs_free(q);
	return ret;
}
