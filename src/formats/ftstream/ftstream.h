/*
 * ftstream.h - the recorder's stream (docs/recorder.md, "Streaming"):
 * the decoder that turns a captured stream into the 16-byte FTrace records
 * of a snapshot dump, which the shark reader then reads.
 */
#ifndef TK_FTSTREAM_H
#define TK_FTSTREAM_H

#include <stddef.h>
#include <stdint.h>

#define FTSTREAM_SYNC_LEN 32u
#define FTSTREAM_VERSION 2u
#define FTSTREAM_REC 16u
#define FTSTREAM_NAME_KINDS 3u
#define FTSTREAM_KIND_FORMAT 3u  /* a name record of a printf format string */

/** A name record: a task (kind 0, its pid), an ISR (kind 1, its IRQ) or
 * a user event channel (kind 2, n of user_event_n). */
typedef struct ftstream_name {
	uint8_t kind;
	uint16_t id;
	uint8_t len;
	char name[256];
} ftstream_name;

/* A printf event (00 08): its record, format id and arguments, and its
 * text in the decoder's text (off, len; off UINT32_MAX: not made yet). */
#define FTSTREAM_PRINTF_ARGS 16u
#define FTSTREAM_TEXT_MAX 1024u
typedef struct ftstream_note {
	uint64_t rec;            /* its record's number */
	uint32_t off, len;
	uint16_t fmt;
	uint8_t nargs;
	uint32_t args[FTSTREAM_PRINTF_ARGS];
} ftstream_note;

typedef struct ftstream_dec {
	uint8_t *recs;           /* nrec records of 16 bytes (shark dump layout) */
	uint64_t *offs;          /* the stream offset of each record's start */
	uint8_t *cores;          /* the core of each record (sync, core records) */
	uint8_t core;            /* the core of the records being decoded */
	unsigned ncores;         /* the cores the records have */
	uint8_t core_seen[256];  /* 1 for each of them */
	size_t nrec, cap;
	uint64_t lost;           /* the sum of the overflow records decoded */
	uint64_t syncs;          /* sync records decoded */
	uint64_t first_sync;     /* offset of the first sync (UINT64_MAX: none) */
	uint64_t skipped;        /* bytes before the first sync, and resyncs */
	uint64_t resyncs;        /* bad records after a sync (scan again) */
	uint64_t bad_off;        /* offset of the first of them */
	uint64_t tail;           /* bytes of a record cut by the end */
	uint64_t tail_off;       /* its offset */
	/* a sync record read on from the one before (no scan between) must
	 * carry the time and the core its records give: a record corrupted
	 * in a way no check sees (a delta's byte) shows there */
	uint64_t bad_syncs;      /* sync records that did not */
	uint64_t bad_sync_off;   /* the first of them */
	uint64_t bad_sync_from;  /* the sync record before it */
	uint64_t last_sync;      /* the offset of the last sync decoded */
	uint8_t fresh;           /* the next sync follows a scan: nothing to compare */
	/* after the first sync, its names and contexts: an overflow record
	 * there reports drops its count (lost_at_sync) has already */
	uint8_t after_first;
	uint32_t clk;            /* cycles per ms of the first sync (0: none) */
	uint32_t lost_at_sync;   /* the first sync's count of drops before it */
	uint32_t last_lost_total;/* the last sync's count */
	uint8_t end;             /* an end record: its reason + 1 (0: none) */
	ftstream_name *names;
	size_t nnames;
	ftstream_name *fmts;     /* the format strings (name records of kind 3) */
	size_t nfmts;
	ftstream_note *notes;    /* the printf events, in record order */
	size_t nnotes, notes_cap;
	char *text;              /* their texts, back to back */
	size_t tlen, tcap;
	uint64_t no_format;      /* printf events whose format never came */
	/* each context's pid as the records decoded so far say (pid | 1 << 32;
	 * 0: not known), by context: a context record (00 06) that tells
	 * what is not known yet becomes an id record */
	uint64_t *ctx_pid;
	uint64_t ctx_recs;       /* context records that became id records */
} ftstream_dec;

/* The end record's reasons (tracekit record writes it, 00 05 reason). */
#define FTSTREAM_END_EOF 0u     /* the source ended */
#define FTSTREAM_END_SIGNAL 1u  /* stopped by SIGINT, SIGTERM or SIGHUP */
#define FTSTREAM_END_ERROR 2u   /* a read error */
#define FTSTREAM_END_MAX 2u

/**
 * The length of the record at p (n bytes available): > 0, 0 if it is cut
 * by the end, -1 if it is no record (look for a sync again).
 */
long ftstream_record_len(const uint8_t *p, size_t n);
/** The offset of the first valid sync record at or after `from`, or n. */
size_t ftstream_find_sync(const uint8_t *p, size_t n, size_t from);
/** Does a valid sync record start at p (n bytes available)? */
int ftstream_is_sync(const uint8_t *p, size_t n);
/** The text of a printf event: format string `f` (flen bytes; NULL: not
 * registered, id `fmt`) with its arguments, into out (at most max - 1
 * bytes, NUL-terminated); its length.  Never reads past what it is given. */
size_t ftstream_format(char *out, size_t max, const char *f, size_t flen,
		       unsigned fmt, const uint32_t *args, unsigned nargs);
/** Decode a whole stream into d (zeroed first).  0, or -1: out of memory. */
int ftstream_decode(ftstream_dec *d, const uint8_t *p, size_t n);
void ftstream_free(ftstream_dec *d);

#endif
