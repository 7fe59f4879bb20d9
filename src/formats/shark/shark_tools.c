/*
 * shark_tools.c - the records of a dump in file order, their fields as
 * stored (include/tracekit/shark.h): what `tracekit shark list|pwc` makes
 * the text of the S.Ha.R.K. host tools from (src/cli/cmd_shark.c).
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
	if (!out || !in) {
		tk_input_close(in); /* the callee's, also on failure */
		return tk_err_null(err, "tk_shark_records_open", !out ? "out pointer" : "input");
	}
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
