/*
 * spill.h - a temporary file of fixed-size records.
 *
 * The HTF and ATF writers must see every event before they write their
 * first byte (the reference tables and the system configuration come
 * first), so they keep the events here instead of in memory and read them
 * back in order at close; stats keeps the values of its percentiles here
 * as sorted runs, read side by side at the end (tk_spill_read_at).  The file is unlinked from the start (tmpfile),
 * so nothing is left behind, even on a crash.
 */
#ifndef TK_SPILL_H
#define TK_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tk_spill {
	FILE *f;
	size_t size;        /* bytes per record */
	uint64_t n;         /* records written */
} tk_spill;

/** Creates the file for records of `size` bytes: TK_OK or TK_E_IO. */
int tk_spill_open(tk_spill *s, size_t size);
/** Appends one record: TK_OK or TK_E_IO. */
int tk_spill_put(tk_spill *s, const void *rec);
/** Appends n records: TK_OK or TK_E_IO. */
int tk_spill_put_n(tk_spill *s, const void *recs, size_t n);
/**
 * Reads at most n records from record `at` on into buf (any time, between
 * puts too; the file's position is not used): the number read, 0 past the
 * end, or (size_t)-1 on a read error.  So one file holds several runs of
 * records that are read side by side.
 */
size_t tk_spill_read_at(tk_spill *s, uint64_t at, void *buf, size_t n);
/** Closes and forgets the file (a zeroed or closed spill is fine). */
void tk_spill_close(tk_spill *s);

/* A buffered reader of the records, from the first one. */
#define TK_SPILL_BUF 16384
typedef struct tk_spill_cursor {
	tk_spill *s;
	size_t n, i;        /* records in buf, the next one */
	int eof, failed;
	_Alignas(16) unsigned char buf[TK_SPILL_BUF];
} tk_spill_cursor;

/**
 * Starts reading `s` (which may be NULL or never opened: no records) from
 * its first record.  TK_OK or TK_E_IO.
 */
int tk_spill_rewind(tk_spill_cursor *c, tk_spill *s);
/** The next record, or NULL at the end or on a read error (see failed). */
const void *tk_spill_peek(tk_spill_cursor *c);
/** Steps past the record tk_spill_peek returned. */
static inline void tk_spill_skip(tk_spill_cursor *c) { c->i++; }

#endif
