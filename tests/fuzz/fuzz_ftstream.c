/*
 * fuzz_ftstream.c - libFuzzer target of the recorder stream's reader
 * (format ftstream, docs/recorder.md "Streaming"): the decoder's promises
 * on any bytes, then every path of the event reader (fuzz_reader.c, the
 * same first byte).  The decoder must give records in stream order, each
 * from a byte after the first sync record, that sync a valid one; and
 * decoding again from the first sync gives the same records (the bytes
 * before a sync change nothing after it).
 */
#define _GNU_SOURCE
#include "../../src/formats/ftstream/ftstream.h"

#include <stdint.h>
#include <string.h>

#define FUZZ_FORMAT "ftstream"
#define LLVMFuzzerTestOneInput fuzz_reader_one
#include "fuzz_reader.c"
#undef LLVMFuzzerTestOneInput

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ftstream_dec d, e;
	const uint8_t *p = size ? data + 1 : data;
	size_t n = size ? size - 1 : 0, i;

	FUZZ_CHECK(ftstream_decode(&d, p, n) == 0);
	if (d.syncs) {
		FUZZ_CHECK(d.first_sync < n);
		FUZZ_CHECK(ftstream_is_sync(p + d.first_sync, n - d.first_sync));
	} else {
		FUZZ_CHECK(d.nrec == 0);
	}
	for (i = 0; i < d.nrec; i++) {
		FUZZ_CHECK(d.offs[i] >= d.first_sync + FTSTREAM_SYNC_LEN);
		FUZZ_CHECK(d.offs[i] < n);
		FUZZ_CHECK(i == 0 || d.offs[i] >= d.offs[i - 1]);
	}
	/* each printf event's record, its text made, in the text */
	for (i = 0; i < d.nnotes; i++) {
		FUZZ_CHECK(d.notes[i].rec < d.nrec);
		FUZZ_CHECK(i == 0 || d.notes[i].rec > d.notes[i - 1].rec);
		FUZZ_CHECK(d.notes[i].off != UINT32_MAX);
		FUZZ_CHECK((size_t)d.notes[i].off + d.notes[i].len < d.tlen);
		FUZZ_CHECK(d.notes[i].len < FTSTREAM_TEXT_MAX);
	}
	FUZZ_CHECK(d.lost <= (uint64_t)n * UINT32_MAX);
	if (d.syncs) {
		FUZZ_CHECK(ftstream_decode(&e, p + d.first_sync, n - d.first_sync) == 0);
		FUZZ_CHECK(e.nrec == d.nrec && e.first_sync == 0);
		FUZZ_CHECK(d.nrec == 0 || memcmp(e.recs, d.recs, d.nrec * FTSTREAM_REC) == 0);
		ftstream_free(&e);
	}
	ftstream_free(&d);
	return fuzz_reader_one(data, size);
}
