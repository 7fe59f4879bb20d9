/*
 * tracekit/shark.h - the records of a S.Ha.R.K. FTrace dump, in file order
 * and with their fields as stored (specs/shark-ftrace-reference.md 1.7).
 *
 * The records carry what the common events of tk_reader_open() do not: the
 * type word with its FAST bit, the stale par2 of a FAST record, empty
 * slots, records that make no event, file order where the reader gives
 * time order.  `tracekit shark list|pwc` makes the text of the S.Ha.R.K.
 * host tools `list` and `pwcet_gen` from them (docs/shark.md).
 */
#ifndef TRACEKIT_SHARK_H
#define TRACEKIT_SHARK_H

#include "tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One 16-byte record, its fields as stored. */
typedef struct tk_shark_record {
	uint64_t index;  /**< its slot in the file: its byte offset / 16 */
	uint16_t type;   /**< the type word: the event code in the low byte,
			  *   FAST in bit 15; 0 for an empty slot */
	uint16_t par1;
	uint32_t par2;   /**< as stored (a FAST record's is stale) */
	uint64_t tsc;
} tk_shark_record;

typedef struct tk_shark_records tk_shark_records;

/**
 * The records of an input of tk_input_open(), in file order, whatever
 * format it was told to have; bytes after the last whole record are not
 * one (the tools ignore them too).  The input is the iterator's from then
 * on and is closed with it, and on failure too.  TK_OK or < 0.
 */
TK_API int tk_shark_records_open(tk_shark_records **out, tk_input *in,
				 tk_error *err);
/** The next record: TK_OK, TK_END, or < 0 (a read error). */
TK_API int tk_shark_records_next(tk_shark_records *it, tk_shark_record *rec,
				 tk_error *err);
/** Close and free; NULL is allowed. */
TK_API void tk_shark_records_close(tk_shark_records *it);

#ifdef __cplusplus
}
#endif

#endif
