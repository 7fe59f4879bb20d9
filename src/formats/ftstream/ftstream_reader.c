/*
 * ftstream_reader.c - the reader of the recorder's stream (format
 * "ftstream", docs/recorder.md "Streaming"): the stream is decoded whole
 * (ftstream_decode.c) into the 16-byte records of a snapshot dump, which
 * the shark reader reads from memory; the sync record's clock rate is
 * given to it as hz=N.  The names registered name the tasks, ISRs and
 * user event channels, and each record has the core the stream gives it
 * (shark_reader_open_ext()); the names are header parameters too.
 */
#include "ftstream.h"

#include "../../core/internal.h"
#include "../../core/hashmap.h"
#include "../shark/shark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const tk_format_ops tk_format_shark;

/* warning kinds: above the shark reader's (0 .. 11), which shares r */
enum { W_SKIPPED = 50, W_RESYNC, W_TAIL, W_LOST_BEFORE, W_NO_FORMAT, W_BAD_SYNC };

typedef struct ftstream_reader {
	tk_source *orig;         /* the stream's source, back in r->src at close */
	ftstream_dec d;
	tk_source *mem;          /* the records, read by the shark reader */
	void *shark;             /* the shark reader's state */
	char opts[48];
	/* the names as entities: (kind << 16 | id) -> index in shown */
	tk_hashmap nmap;
	struct shown {
		const char *s;
		size_t len;
		char *own;       /* name#id of a name given twice */
	} *shown;
	size_t note_cur;         /* the printf event expected next */
} ftstream_reader;

/*
 * A valid sync record in the first bytes: at offset 0 (a stream captured
 * from its start) or further on (a stream joined later).
 */
static int ftstream_probe(const uint8_t *buf, size_t len)
{
	size_t i;

	if (ftstream_is_sync(buf, len))
		return 90;
	for (i = 1; i + FTSTREAM_SYNC_LEN <= len; i++)
		if (buf[i] == 0 && ftstream_is_sync(buf + i, len - i))
			return 60;
	return 0;
}

static void free_names(ftstream_reader *f)
{
	size_t i;

	if (f->shown)
		for (i = 0; i < f->d.nnames; i++)
			free(f->shown[i].own);
	free(f->shown);
	f->shown = NULL;
	tk_hashmap_free(&f->nmap);
}

/* FNV-1a of a name: names given twice are found by it */
static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The names the entities get: a stream's name records hold for the whole
 * stream (it is decoded whole before it is read), the events before the
 * record included; the last record of a (kind, id) is its name.  A name
 * that two of them share (two tasks called "worker") is name#id for each.
 */
static int make_names(ftstream_reader *f)
{
	tk_hashmap count = { 0 };
	size_t i;
	int rc = -1;

	if (!f->d.nnames)
		return 0;
	f->shown = calloc(f->d.nnames, sizeof(*f->shown));
	if (!f->shown)
		goto out;
	for (i = 0; i < f->d.nnames; i++) {
		const ftstream_name *nm = &f->d.names[i];
		uint64_t h = name_hash(nm->name, nm->len);
		uint32_t c = tk_hashmap_get(&count, h);

		if (tk_hashmap_set(&count, h, c == TK_NONE ? 1 : c + 1) < 0 ||
		    tk_hashmap_set(&f->nmap, (uint64_t)nm->kind << 16 | nm->id,
				   (uint32_t)i) < 0)
			goto out;
	}
	for (i = 0; i < f->d.nnames; i++) {
		const ftstream_name *nm = &f->d.names[i];
		struct shown *sh = &f->shown[i];

		sh->s = nm->name;
		sh->len = nm->len;
		if (nm->len && tk_hashmap_get(&count, name_hash(nm->name, nm->len)) > 1) {
			sh->own = malloc((size_t)nm->len + 8);
			if (!sh->own)
				goto out;
			memcpy(sh->own, nm->name, nm->len);
			sh->len = nm->len + (size_t)snprintf(sh->own + nm->len, 8, "#%u",
							     (unsigned)nm->id);
			sh->s = sh->own;
		}
	}
	rc = 0;
out:
	tk_hashmap_free(&count);
	return rc;
}

/* shark_name_fn: a task's, an ISR's or a user event's name, or NULL */
static const char *stream_name(void *ctx, unsigned kind, uint32_t id, size_t *len)
{
	ftstream_reader *f = ctx;
	uint32_t i = tk_hashmap_get(&f->nmap, (uint64_t)kind << 16 | id);

	if (i == TK_NONE || !f->shown)
		return NULL;
	*len = f->shown[i].len;
	return f->shown[i].s;
}

static void ftstream_reader_close(tk_reader *r)
{
	ftstream_reader *f = r->impl;

	if (!f)
		return;
	r->impl = f->shark;
	tk_format_shark.reader_close(r);
	tk_source_close(f->mem);
	r->src = f->orig;
	free_names(f);
	ftstream_free(&f->d);
	free(f);
	r->impl = NULL;
}

/*
 * The printf events' texts as their notes: the event of a printf record
 * (by its record number, pos) gets the text the decoder made.  The events
 * come in record order but for a dump the shark reader sorts: a binary
 * search, from the last one found when it is next.
 */
static void printf_notes(ftstream_reader *f, tk_event *ev, size_t n)
{
	const ftstream_note *nt = f->d.notes;
	size_t i, lo, hi, c = f->note_cur;

	for (i = 0; i < n; i++) {
		uint64_t pos = ev[i].pos;

		if (c < f->d.nnotes && nt[c].rec == pos) {
			/* the next one in order */
		} else {
			lo = 0;
			hi = f->d.nnotes;
			while (lo < hi) {
				size_t m = lo + (hi - lo) / 2;

				if (nt[m].rec < pos)
					lo = m + 1;
				else
					hi = m;
			}
			c = lo;
			if (c == f->d.nnotes || nt[c].rec != pos ||
			    ev[i].type != TK_ET_EVENT)
				continue;
		}
		ev[i].note = f->d.text + nt[c].off;
		ev[i].note_len = nt[c].len;
		c++;
	}
	f->note_cur = c;
}

/* The shark reader's batches, its state in r->impl while it runs. */
static int ftstream_reader_next_batch(tk_reader *r, const tk_event **evs,
				      size_t *n, size_t max, tk_error *err)
{
	ftstream_reader *f = r->impl;
	int rc;

	r->impl = f->shark;
	rc = tk_format_shark.reader_next_batch(r, evs, n, max, err);
	r->impl = f;
	if (rc == TK_OK && f->d.nnotes)
		printf_notes(f, (tk_event *)(uintptr_t)*evs, *n);
	return rc;
}

static int add_header(tk_reader *r, const char *key, const char *val, size_t vlen)
{
	return tk_trace_add_header(r->trace, TK_HDR_PARAM, key, strlen(key), val,
				   vlen, 1);
}

static int ftstream_reader_open(tk_reader *r, tk_error *err)
{
	ftstream_reader *f = calloc(1, sizeof(*f));
	const char *name = tk_source_name(r->src);
	tk_source *mem = NULL;
	uint8_t *buf = NULL;
	uint64_t size;
	char key[64], val[32];
	size_t i;
	int rc;

	if (!f)
		return tk_err_nomem(err, name);
	f->orig = r->src;
	rc = tk_source_size(r->src, &size, err);
	if (rc < 0)
		goto fail;
	if (size > SIZE_MAX - 1) {
		rc = tk_err_nomem(err, name);
		goto fail;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf) {
		rc = tk_err_nomem(err, name);
		goto fail;
	}
	rc = tk_source_read_at(r->src, 0, buf, (size_t)size, err);
	if (rc < 0)
		goto fail;
	if (ftstream_decode(&f->d, buf, (size_t)size) < 0) {
		rc = tk_err_nomem(err, name);
		goto fail;
	}
	free(buf);
	buf = NULL;
	if (!f->d.syncs) {
		rc = tk_err_set_at(err, TK_E_PARSE, name, 0,
				   "no sync record in the stream (nothing can be decoded)");
		goto fail;
	}
	if (f->d.first_sync) {
		if (r->opts.strict) {
			rc = tk_err_set_at(err, TK_E_PARSE, name, 0,
					   "the stream does not start with a sync record (the first is at offset %llu)",
					   (unsigned long long)f->d.first_sync);
			goto fail;
		}
		tk_reader_warn(r, W_SKIPPED, 0, 0,
			       "the stream starts %llu bytes before its first sync record (skipped: a stream joined late)",
			       (unsigned long long)f->d.first_sync);
	}
	if (f->d.resyncs) {
		if (r->opts.strict) {
			rc = tk_err_set_at(err, TK_E_PARSE, name, f->d.bad_off,
					   "bad stream record");
			goto fail;
		}
		tk_reader_warn(r, W_RESYNC, 0, 0,
			       "offset %llu: bad stream record (%llu in all): skipped to the next sync record",
			       (unsigned long long)f->d.bad_off,
			       (unsigned long long)f->d.resyncs);
	}
	if (f->d.bad_syncs) {
		if (r->opts.strict) {
			rc = tk_err_set_at(err, TK_E_PARSE, name, f->d.bad_sync_off,
					   "the sync record's time or core is not the one the records since the sync record at offset %llu give (records lost or corrupt between them)",
					   (unsigned long long)f->d.bad_sync_from);
			goto fail;
		}
		tk_reader_warn(r, W_BAD_SYNC, 0, 0,
			       "offset %llu: the sync record's time or core is not the one the records since the sync record at offset %llu give (records lost or corrupt between them: the times there may be wrong; %llu such sync records in all)",
			       (unsigned long long)f->d.bad_sync_off,
			       (unsigned long long)f->d.bad_sync_from,
			       (unsigned long long)f->d.bad_syncs);
	}
	if (f->d.tail) {
		if (r->opts.strict) {
			rc = tk_err_set_at(err, TK_E_PARSE, name, f->d.tail_off,
					   "the stream ends in a record cut after %llu bytes",
					   (unsigned long long)f->d.tail);
			goto fail;
		}
		tk_reader_warn(r, W_TAIL, 0, 0,
			       "offset %llu: the stream ends in a record cut after %llu bytes (ignored)",
			       (unsigned long long)f->d.tail_off,
			       (unsigned long long)f->d.tail);
	}
	if (f->d.lost_at_sync)
		tk_reader_warn(r, W_LOST_BEFORE, 0, 0,
			       "the target lost %lu events before the first sync record read",
			       (unsigned long)f->d.lost_at_sync);
	if (f->d.no_format)
		tk_reader_warn(r, W_NO_FORMAT, 0, 0,
			       "%llu printf events of a format not registered in the stream (shown as <no format N>)",
			       (unsigned long long)f->d.no_format);
	/* the sync record's rate, unless the user gives one */
	if (f->d.clk && !(r->opts.options && *r->opts.options)) {
		snprintf(f->opts, sizeof(f->opts), "hz=%llu",
			 (unsigned long long)f->d.clk * 1000u);
		r->opts.options = f->opts;
	}
	if (make_names(f) < 0) {
		rc = tk_err_nomem(err, name);
		goto fail;
	}
	rc = tk_source_open_mem(&mem, f->d.recs, f->d.nrec * FTSTREAM_REC, name, err);
	if (rc < 0)
		goto fail;
	r->src = mem;
	r->impl = NULL;
	{
		shark_ext x = { stream_name, f, f->d.cores, f->d.nrec, f->d.offs, f->d.nrec };

		rc = shark_reader_open_ext(r, &x, err);
	}
	if (rc < 0) {
		/* the shark reader freed its own state */
		r->src = f->orig;
		tk_source_close(mem);
		goto fail;
	}
	f->mem = mem;
	f->shark = r->impl;
	r->impl = f;
	if (add_header(r, "stream_bytes", val,
		       (size_t)snprintf(val, sizeof(val), "%llu", (unsigned long long)size)) < 0 ||
	    add_header(r, "stream_syncs", val,
		       (size_t)snprintf(val, sizeof(val), "%llu", (unsigned long long)f->d.syncs)) < 0 ||
	    add_header(r, "stream_lost", val,
		       (size_t)snprintf(val, sizeof(val), "%llu", (unsigned long long)f->d.lost)) < 0)
		goto nomem_open;
	{
		static const char *const ends[] = {
			"cut (no end record: recorded from the target, or a recording still going or killed)",
			"the source ended", "stopped by a signal", "a read error"
		};
		const char *e = ends[f->d.end];

		if (add_header(r, "stream_end", e, strlen(e)) < 0)
			goto nomem_open;
	}
	for (i = 0; i < f->d.nfmts; i++) {
		const ftstream_name *nm = &f->d.fmts[i];

		char txt[256];
		size_t k;

		for (k = 0; k < nm->len; k++)
			txt[k] = nm->name[k] < 0x20 || nm->name[k] > 0x7E ? '?' : nm->name[k];
		snprintf(key, sizeof(key), "format.%u", (unsigned)nm->id);
		if (add_header(r, key, txt, nm->len) < 0)
			goto nomem_open;
	}
	for (i = 0; i < f->d.nnames; i++) {
		const ftstream_name *nm = &f->d.names[i];

		static const char *const kinds[FTSTREAM_NAME_KINDS] = {
			"task", "IRQ", "user_event_"
		};

		snprintf(key, sizeof(key), "name.%s%u", kinds[nm->kind],
			 (unsigned)nm->id);
		if (add_header(r, key, nm->name, nm->len) < 0)
			goto nomem_open;
	}
	return TK_OK;
nomem_open:
	rc = tk_err_nomem(err, name);
	ftstream_reader_close(r);
	return rc;
fail:
	free(buf);
	free_names(f);
	ftstream_free(&f->d);
	free(f);
	r->impl = NULL;
	return rc;
}

const tk_format_ops tk_format_ftstream = {
	.info = {
		.name = "ftstream",
		.extensions = "tks",
		.description = "tracekit recorder stream (compact records with sync records; read only)",
		.caps = TK_CAP_READ,
	},
	.probe = ftstream_probe,
	.reader_open = ftstream_reader_open,
	.reader_next_batch = ftstream_reader_next_batch,
	.reader_close = ftstream_reader_close,
	.reader_options = 1,
	.pos_records = 1,
};
