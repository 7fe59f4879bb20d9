/* error.c - status names, error filling and the one-line message format. */
#define TK_ERROR_C /* the definitions below, not internal.h's analyzer model */
#include "internal.h"

#include <stdio.h>
#include <string.h>

const char *tk_version(void)
{
	return TK_VERSION_STRING;
}

unsigned tk_version_number(void)
{
	return TK_VERSION_NUMBER;
}

const char *tk_status_str(int code)
{
	switch (code) {
	case TK_OK: return "ok";
	case TK_END: return "end of input";
	case TK_E_IO: return "i/o error";
	case TK_E_PARSE: return "parse error";
	case TK_E_NOMEM: return "out of memory";
	case TK_E_USAGE: return "usage error";
	case TK_E_RANGE: return "value out of range";
	case TK_E_UNSUPPORTED: return "unsupported";
	case TK_E_FORMAT: return "unknown format";
	default: return "unknown status";
	}
}

void tk_error_clear(tk_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

static void set_input(tk_error *err, const char *input)
{
	snprintf(err->input, sizeof(err->input), "%s", input ? input : "");
}

int tk_err_keep(int *failed, tk_error *kept, int rc, tk_error *err,
		const char *input, uint64_t line, const char *msg)
{
	if (*failed) {
		if (err)
			*err = *kept;
		return *failed;
	}
	*failed = rc;
	if (err)
		*kept = *err;
	else
		tk_err_set(kept, rc, input, line, 0, "%s", msg);
	return rc;
}

int tk_err_set(tk_error *err, int code, const char *input, uint64_t line,
	       uint32_t column, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	set_input(err, input);
	err->line = line;
	err->column = column;
	err->has_offset = 0;
	err->offset = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int tk_err_set_at(tk_error *err, int code, const char *input,
		  uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	set_input(err, input);
	err->line = 0;
	err->column = 0;
	err->has_offset = 1;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int tk_err_input(tk_error *err, const char *input, int rc)
{
	if (err && !err->input[0])
		set_input(err, input);
	return rc;
}

int tk_opts_take(void *dst, const void *src, const size_t *sizes,
		 size_t nsizes, const char *what, tk_error *err)
{
	size_t size, i;

	if (!src)
		return TK_OK;
	memcpy(&size, src, sizeof(size));
	for (i = 0; i < nsizes; i++)
		if (size == sizes[i]) {
			memcpy(dst, src, size);
			return TK_OK;
		}
	return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
			  "%s: size %zu is not the size of any version of the struct (%zu in this library): fill it with %s_init() first",
			  what, size, sizes[nsizes - 1], what);
}

int tk_err_nomem(tk_error *err, const char *input)
{
	return tk_err_set(err, TK_E_NOMEM, input, 0, 0, "out of memory");
}

int tk_err_null(tk_error *err, const char *fn, const char *what)
{
	return tk_err_set(err, TK_E_USAGE, NULL, 0, 0, "%s: no %s given", fn, what);
}

const char *tk_error_format(const tk_error *err, const char *severity,
			    char *buf, size_t size)
{
	static const tk_error none = { .code = TK_E_USAGE,
				       .msg = "no error was given" };
	const char *in, *sev = severity ? severity : "error";

	if (!err)
		err = &none;
	in = err->input[0] ? err->input : "tracekit";

	if (err->line && err->column)
		snprintf(buf, size, "%s:%llu:%u: %s: %s", in,
			 (unsigned long long)err->line, err->column, sev,
			 err->msg);
	else if (err->line)
		snprintf(buf, size, "%s:%llu: %s: %s", in,
			 (unsigned long long)err->line, sev, err->msg);
	else if (err->has_offset)
		snprintf(buf, size, "%s: %s: at byte offset %llu: %s", in, sev,
			 (unsigned long long)err->offset, err->msg);
	else
		snprintf(buf, size, "%s: %s: %s", in, sev, err->msg);
	return buf;
}

int tk_err_line_long(tk_error *err, const char *input, uint64_t line)
{
	return tk_err_set(err, TK_E_PARSE, input, line,
			  (uint32_t)TK_LINE_MAX + 1, "line longer than %zu bytes",
			  (size_t)TK_LINE_MAX);
}
