/*
 * tracekit/ftstream.h - the records of the recorder's stream
 * (docs/recorder.md, "Streaming"), for a program that captures a stream
 * and keeps it cut at record boundaries (tracekit record).  A stream file
 * is read as any trace (tk_reader_open(), format "ftstream").
 */
#ifndef TRACEKIT_FTSTREAM_H
#define TRACEKIT_FTSTREAM_H

#include "tracekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sync record's length. */
#define TK_FTSTREAM_SYNC_LEN 32u
/* The end record's reasons (00 05 reason, written by tracekit record). */
#define TK_FTSTREAM_END_EOF 0u     /**< the source ended */
#define TK_FTSTREAM_END_SIGNAL 1u  /**< stopped by SIGINT, SIGTERM or SIGHUP */
#define TK_FTSTREAM_END_ERROR 2u   /**< a read error */

/**
 * The length of the stream record at p, n bytes being available: a
 * length > 0, 0 if the record is cut by the end (more bytes are needed),
 * or -1 if p starts no record (look for a sync record again).
 */
TK_API long tk_ftstream_record_len(const uint8_t *p, size_t n);
/**
 * The offset of the first valid sync record (magic, version, CRC-32) in
 * p[from .. n), or n if there is none.
 */
TK_API size_t tk_ftstream_sync_find(const uint8_t *p, size_t n, size_t from);

#ifdef __cplusplus
}
#endif

#endif
