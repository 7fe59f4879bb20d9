/* btf.h - what the BTF reader, writer and vocabulary share. */
#ifndef TK_BTF_H
#define TK_BTF_H

#include "../../core/internal.h"

/** The type named by a TargetType string; 0 if unknown. */
int btf_type_lookup(const char *s, size_t len, tk_etype *type, int *dialect);

/** The kind of an event name (TK_EV_OTHER if unknown). */
tk_evkind btf_event_lookup(const char *s, size_t len, int *dialect);
/* The type BTF wants as the source of event `kind` of an entity of `type`
 * (TK_ET_C for a process's state changes), or TK_ET_UNKNOWN. */
tk_etype btf_implied_source_type(tk_etype type, tk_evkind kind);

/** A table [type][kind]: 1 where the spec defines event `kind` for
 * `type`, 2 where a dialect does, 0 elsewhere. */
const uint8_t (*btf_event_table(void))[TK_EV_COUNT];

int btf_probe(const uint8_t *buf, size_t len);
int btf_reader_open(tk_reader *r, tk_error *err);
int btf_reader_next(tk_reader *r, const tk_event **ev, tk_error *err);
void btf_reader_close(tk_reader *r);

#endif
