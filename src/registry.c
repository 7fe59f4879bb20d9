/*
 * registry.c - the one list of formats: the event formats of src/formats/
 * and the exports of src/exports/, in the order `tracekit formats` shows
 * them and probes break ties.  It sits above both layers (neither includes
 * the other, and core knows none of them): to add a format, write
 * src/formats/<name>/ (or src/exports/<name>/), declare its tk_format_ops
 * below and add it to formats[].
 */
#include "core/internal.h"

#include <string.h>

/* src/formats/ */
extern const tk_format_ops tk_format_btf;
extern const tk_format_ops tk_format_tarmac;
extern const tk_format_ops tk_format_htf;
extern const tk_format_ops tk_format_shark;
extern const tk_format_ops tk_format_ftstream;
extern const tk_format_ops tk_format_atf;
extern const tk_format_ops tk_format_ctf;
/* src/exports/ */
extern const tk_format_ops tk_format_perfetto;
extern const tk_format_ops tk_format_vcd;
extern const tk_format_ops tk_format_sqlite;
extern const tk_format_ops tk_format_parquet;

static const tk_format_ops *const formats[] = {
	&tk_format_btf,
	&tk_format_tarmac,
	&tk_format_htf,
	&tk_format_shark,
	&tk_format_ftstream,
	&tk_format_atf,
	&tk_format_perfetto,
	&tk_format_vcd,
	&tk_format_sqlite,
	&tk_format_parquet,
	&tk_format_ctf,
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

size_t tk_format_count(void)
{
	return NFORMATS;
}

const tk_format_ops *tk_format_ops_get(size_t i)
{
	return i < NFORMATS ? formats[i] : NULL;
}

const tk_format_info *tk_format_get(size_t i)
{
	return i < NFORMATS ? &formats[i]->info : NULL;
}

const tk_format_ops *tk_format_ops_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < NFORMATS; i++)
		if (tk_ascii_casecmp(name, strlen(name), formats[i]->info.name) == 0)
			return formats[i];
	return NULL;
}

const tk_format_info *tk_format_find(const char *name)
{
	const tk_format_ops *f = name ? tk_format_ops_find(name) : NULL;

	return f ? &f->info : NULL;
}

/* Does the space-separated list `exts` contain the `len` bytes at `ext`? */
static int ext_listed(const char *exts, const char *ext, size_t len)
{
	const char *p = exts;

	while (*p) {
		size_t n = strcspn(p, " ");
		if (n == len && tk_ascii_ncaseeq(ext, p, n))
			return 1;
		p += n;
		while (*p == ' ')
			p++;
	}
	return 0;
}

const tk_format_info *tk_format_from_path(const char *path)
{
	const char *base, *end, *dot;
	size_t i, n;

	if (!path)
		return NULL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	end = base + strlen(base);
	/* look through a compression suffix */
	n = (size_t)(end - base);
	if (n > 3 && tk_ascii_casecmp(end - 3, 3, ".gz") == 0)
		end -= 3;
	else if (n > 4 && tk_ascii_casecmp(end - 4, 4, ".zst") == 0)
		end -= 4;
	for (dot = end; dot > base && dot[-1] != '.'; dot--)
		;
	if (dot == base)
		return NULL;
	for (i = 0; i < NFORMATS; i++)
		if (ext_listed(formats[i]->info.extensions, dot,
			       (size_t)(end - dot)))
			return &formats[i]->info;
	return NULL;
}
