/*
 * model.h - the rules of the event model that every format shares: the
 * names of the types and event kinds (the model's are BTF's) with the
 * spellings real producers use, which source is a core, and the closest
 * model type of the type names a format keeps by name (ATF's elements).
 * A format looks here instead of keeping a copy.
 */
#ifndef TK_MODEL_H
#define TK_MODEL_H

#include "internal.h"

/** The type named by the len bytes at s: 1 with *type, *dialect 1 for a
 * producer's other spelling ("ISR"; the model's names, THR and SYSC too,
 * are none: a format lacking a type refuses it itself); 0 if unknown. */
int tk_etype_lookup(const char *s, size_t len, tk_etype *type, int *dialect);

/** The kind of an event name (TK_EV_OTHER if unknown); *dialect 1 for a
 * producer's spelling of a known event ("mpalimitexceeded"). */
tk_evkind tk_evkind_lookup(const char *s, size_t len, int *dialect);

/** The type of the source of event `kind` of an entity of `type`, where
 * the model says so: TK_ET_C for a process's state changes (a core
 * causes them), TK_ET_SCHED for interrupt_suspended; else TK_ET_UNKNOWN. */
tk_etype tk_implied_source_type(tk_etype type, tk_evkind kind);

/** Is entity `ent` a core: of type C, or named Core_<n>. */
int tk_entity_is_core(const tk_trace *t, uint32_t ent);

/** Is ev's source its core: a core (tk_entity_is_core()), or an untyped
 * source or a stimulus (a reader that infers types may have taken a core
 * for one) of a state change that only a core causes. */
int tk_event_source_is_core(const tk_trace *t, const tk_event *ev);

/** The closest type the model names for a target of `type` named
 * `type_name`: T for a thread and ATF's process, R for a syscall and
 * ATF's function; else `type`. */
tk_etype tk_etype_closest(const tk_trace *t, tk_etype type, tk_str type_name);

/** Is a target of `type` named `type_name` one of ATF's user elements
 * (TK_ET_OTHER, "user": a named event, not a process). */
int tk_etype_is_user(const tk_trace *t, tk_etype type, tk_str type_name);

/** The events each type accepts, [type][kind]: 1 where the specification
 * defines event `kind` for `type`, 2 where a producer's dialect does (read
 * with a warning, refused by --strict), 0 elsewhere (model_events.c). */
const uint8_t (*tk_model_event_table(void))[TK_EV_COUNT];

#endif
