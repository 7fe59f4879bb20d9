/*
 * tarmac_profile.h - the function profile of an Arm Tarmac log.
 *
 * A tk_tarmac_profile is fed the records of a log (tracekit/tarmac.h) in
 * order and keeps a shadow call stack per CPU against the function
 * symbols of an ELF file (tracekit/elf.h): the result is a call tree, the
 * totals per function and, on request, every call with its call and
 * return sites.  `tracekit stats LOG --elf PROG`, `tracekit tarmac folded`
 * and `tracekit tarmac calls` are made of it (docs/tarmac.md, "Function
 * profile").
 *
 * Included by tracekit.h.
 */
/* tk_error and TK_API; first, as tracekit.h includes this header at its
 * end */
#include "tracekit.h"

#ifndef TRACEKIT_TARMAC_PROFILE_H
#define TRACEKIT_TARMAC_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* the records (tk_tarmac_record, tk_tarmac_unit) */
#include "tracekit/tarmac.h"
/* the symbol table that names the frames (tk_symtab) */
#include "tracekit/elf.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A function profile of a Tarmac log: per CPU a shadow call stack, driven
 * by the executed instructions and the exception records; the result is a
 * call tree whose nodes are the distinct stacks.  docs/tarmac.md, "Function
 * profile", gives the rules; in short:
 *  - a call is an executed BL/BLX/BLR whose next instruction is in another
 *    function or at a function's entry (recursion); the return address is
 *    the instruction after the call; so is a jump to another function or
 *    an entry just after the link register was set to another address
 *    than the target and the return addresses on the stack (MOV lr,pc;
 *    BX r1), whose return address is the link register's value;
 *  - an assembler label's code (tk_symbol.label) reached by
 *    falling through, a direct branch or a return stays in the frame;
 *  - a return is reaching the return address of a frame on the stack (BX
 *    LR, POP {..,pc}, RET, LDR pc, ...), or reaching a function that is
 *    lower on the stack;
 *  - a branch to a function's entry that is not a call is a tail call (the
 *    frame is replaced); any other jump into another function replaces the
 *    frame too;
 *  - an exception entry (E / EXC / ES records, IPSR writes) makes the
 *    handler a child frame of the interrupted function; an exception
 *    return (EXC_RETURN through BX/POP/LDR, IPSR back to 0, ERET) ends it
 *    and the frames it called;  a reset empties the stack.
 * Instructions are the executed ones (IT/IA/ES, not IS or CCFAIL).  An
 * instruction's time is the time from its stamp to the next instruction's
 * stamp on the same CPU (the last one has 0), in the log's unit; a skipped
 * instruction's time goes to the frame its PC is in; a stamp earlier than
 * the CPU's latest counts no time (the latest stays).
 */
typedef struct tk_tarmac_profile tk_tarmac_profile;

/** A call-tree node: one distinct stack. */
typedef struct tk_tarmac_node {
	uint32_t parent;          /**< node index; the roots are their own parent */
	uint32_t depth;           /**< 0 for a root */
	long symbol;              /**< symtab index; -1: an address in no function;
				       -2: the root of a CPU prefix (cpu > 0) */
	uint32_t cpu;             /**< the record's cpu (see tk_tarmac_record) */
	int exception;            /**< entered by an exception */
	uint64_t calls;           /**< times the stack was entered */
	uint64_t self_instructions, instructions;   /**< self and inclusive */
	uint64_t self_time, time;                   /**< self and inclusive */
} tk_tarmac_node;

/** A function's totals over the call tree. */
typedef struct tk_tarmac_func {
	long symbol;              /**< symtab index; -1: outside every function */
	uint64_t calls;
	uint64_t self_instructions, instructions;
	uint64_t self_time, time; /**< inclusive counts recursion once */
} tk_tarmac_func;

/** A profile on `st` (borrowed: it must outlive the profile).  TK_OK or
 * TK_E_NOMEM. */
TK_API int tk_tarmac_profile_new(tk_tarmac_profile **out, const tk_symtab *st,
				 tk_error *err);

/**
 * Feed the records of a log in order.  Returns TK_OK or TK_E_NOMEM.
 */
TK_API int tk_tarmac_profile_record(tk_tarmac_profile *p, const tk_tarmac_record *rec,
				    tk_error *err);

/**
 * Returns the unit of a profile's times: that of the log's first stamp.
 * *inexact: the stamps in another unit that are not a whole number of it
 * (rounded down) or have no SI length (no time counted); *backwards: the
 * stamps earlier than their CPU's last (no time counted).  Both 0: every
 * time is exact.
 */
TK_API tk_tarmac_unit tk_tarmac_profile_stamps(const tk_tarmac_profile *p,
					       uint64_t *inexact, uint64_t *backwards);

/**
 * After the last record: the inclusive figures and the per-function totals.
 * Frames still open are closed at the last instruction.  TK_OK or
 * TK_E_NOMEM.
 */
TK_API int tk_tarmac_profile_finish(tk_tarmac_profile *p, tk_error *err);

/** The nodes (after finish): children always come after their parent. */
TK_API size_t tk_tarmac_profile_node_count(const tk_tarmac_profile *p);
TK_API const tk_tarmac_node *tk_tarmac_profile_node(const tk_tarmac_profile *p,
						    size_t i);

/** The functions that executed (after finish), by inclusive instructions. */
TK_API size_t tk_tarmac_profile_func_count(const tk_tarmac_profile *p);
TK_API const tk_tarmac_func *tk_tarmac_profile_func(const tk_tarmac_profile *p,
						    size_t i);

/** The name of a symtab index, "[unknown]" for -1. */
TK_API const char *tk_tarmac_profile_symbol_name(const tk_tarmac_profile *p,
						 long symbol);

/**
 * The indices of the children of node `i` (SIZE_MAX: the roots), sorted by
 * name (by_name) or by inclusive instructions, largest first, then name.
 * Returns the count and sets *out to an array owned by the profile, valid
 * until the next call.  0 with *out NULL before tk_tarmac_profile_finish()
 * and for an i that is no node.
 */
TK_API size_t tk_tarmac_profile_children(tk_tarmac_profile *p, size_t i,
					 int by_name, const uint32_t **out);

/** A place in the log: an instruction's stamp, line and address. */
typedef struct tk_tarmac_site {
	uint64_t time;            /**< in the log's unit (tk_tarmac_profile_stamps()) */
	uint64_t line;
	uint64_t pc;
} tk_tarmac_site;

/** How a frame was entered. */
enum { TK_TARMAC_CALL = 0,       /**< BL, BLX, BLR, or the link-register convention */
       TK_TARMAC_CALL_TAIL = 1,  /**< a jump that replaced its caller's frame */
       TK_TARMAC_CALL_EXCEPTION = 2,
       TK_TARMAC_CALL_ROOT = 3   /**< the first frame of an empty stack */ };

/** One call (tk_tarmac_profile_log_calls()). */
typedef struct tk_tarmac_call {
	long symbol;              /**< the callee (symtab index, -1 unknown) */
	uint32_t cpu;             /**< the record's cpu */
	uint32_t depth;           /**< 0: a root frame */
	int kind;                 /**< TK_TARMAC_CALL* */
	int has_site, returned;   /**< a call site (not for roots, exceptions);
				       a return was seen */
	tk_tarmac_site site;      /**< the calling instruction (BL, the jump) */
	tk_tarmac_site entry;     /**< the callee's first instruction */
	tk_tarmac_site ret;       /**< the callee's last instruction (the
				       return, or the one before the pop) */
	tk_tarmac_site back;      /**< the first instruction after the return */
	int has_back;             /**< 0: open at the end, or (returned set)
				       ended by a tail call, which went on */
} tk_tarmac_call;

/**
 * Before the first record: keep every call (one tk_tarmac_call each, in the
 * order they were made), for tk_tarmac_profile_calls().  TK_OK, or
 * TK_E_USAGE after the first record.
 */
TK_API int tk_tarmac_profile_log_calls(tk_tarmac_profile *p);

/** The calls kept (after finish; frames open at the end have returned 0). */
TK_API size_t tk_tarmac_profile_calls(const tk_tarmac_profile *p,
				      const tk_tarmac_call **out);

/** Executed instructions seen, and frames dropped past the depth limit. */
TK_API uint64_t tk_tarmac_profile_instructions(const tk_tarmac_profile *p);
TK_API uint64_t tk_tarmac_profile_depth_overflows(const tk_tarmac_profile *p);

/** Free; NULL is allowed. */
TK_API void tk_tarmac_profile_free(tk_tarmac_profile *p);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_TARMAC_PROFILE_H */
