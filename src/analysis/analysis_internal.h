/*
 * analysis_internal.h - what check, stats and load share: a hash map from
 * (entity, instance) to a small fixed-size record, and 128-bit helpers.
 */
#ifndef TK_ANALYSIS_INTERNAL_H
#define TK_ANALYSIS_INTERNAL_H

#include "tracekit/tracekit.h"
#include "../core/hashmap.h"
#include "../core/internal.h"

#include <stddef.h>
#include <stdint.h>

typedef __int128 tk_i128;

/*
 * The records in dense arrays (ent[i], inst[i], value i for i < count),
 * indexed by a tk_hashmap from a mix of the key to i; a deletion moves
 * the last record into the hole, so a map whose instances come and go (one
 * per activation) stays as small as the live set.  Values are `vsize`
 * bytes, zeroed on insertion.  Pointers into the map are valid until the
 * next insertion or deletion.
 */
typedef struct tk_imap {
	uint32_t *ent;
	int64_t *inst;
	unsigned char *vals;
	size_t vsize, cap, count;
	tk_hashmap idx;
} tk_imap;

void tk_imap_init(tk_imap *m, size_t vsize);
void *tk_imap_get(const tk_imap *m, uint32_t ent, int64_t inst);
/** The value for the key, inserted (zeroed) when absent; NULL: no memory. */
void *tk_imap_put(tk_imap *m, uint32_t ent, int64_t inst, int *created);
void tk_imap_del(tk_imap *m, uint32_t ent, int64_t inst);
void tk_imap_free(tk_imap *m);

/* tk_grow_zero (a per-entity array that holds index id): src/core/internal.h */

/* tk_fmt_u128, tk_fmt_ratio, tk_unit_factor: src/core/internal.h */

#endif
