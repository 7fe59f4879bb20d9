/*
 * tracekit/elf.h - the symbol table of an ELF file: its functions by
 * address, looked up by address.
 *
 * Not tied to a trace format: the function profile of a Tarmac log
 * (tarmac_profile.h, tk_tarmac_profile_new()) names its frames with one,
 * and any program that maps program counters of a trace to functions can
 * use it.
 * The names are those of the file (an ELF symbol's bytes, up to its NUL).
 *
 * Included by tracekit.h.
 */
/* tk_error and TK_API; first, as tracekit.h includes this header at its
 * end and tarmac_profile.h after it */
#include "tracekit.h"

#ifndef TRACEKIT_ELF_H
#define TRACEKIT_ELF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A symbol table: the function symbols of an ELF file (32 or 64 bit, any
 * byte order), read with libelf: STT_FUNC symbols of .symtab (.dynsym when
 * there is none) that are defined in a section.  For EM_ARM the Thumb bit (bit 0) of the
 * address is cleared.  A symbol of size 0 extends to the next function
 * symbol's address, or to the end of its section when it is the last one.
 * Symbols at the same address are one function (the global one, else the
 * first by name, is kept).  Mapping symbols ($x, $a, $t, $d) are not
 * functions.  Where no function covers code, an STT_NOTYPE symbol (an
 * assembler label) of an executable section names it, up to the next
 * symbol (function, label or `$d` data mapping symbol) or its section's
 * end: a *label* (`label` set).
 */
typedef struct tk_symtab tk_symtab;

/** One function (or label) of a symbol table. */
typedef struct tk_symbol {
	uint64_t address;         /**< start, Thumb bit cleared */
	uint64_t size;            /**< bytes (after the rule for size 0) */
	const char *name;         /**< NUL-terminated, owned by the table */
	int label;                /**< an STT_NOTYPE label, not an STT_FUNC */
} tk_symbol;

/**
 * Read the symbols of the ELF file at `path`.  Returns TK_OK, or a negative
 * status with `err` filled: TK_E_IO (cannot open), TK_E_FORMAT (not an ELF
 * file, or no symbol table), TK_E_PARSE (a damaged ELF file), TK_E_NOMEM.
 */
TK_API int tk_symtab_open(tk_symtab **out, const char *path, tk_error *err);

/**
 * As tk_symtab_open(), on `len` bytes at `data` (copied), with the same
 * return values; `name` is the input's name in messages.
 */
TK_API int tk_symtab_open_mem(tk_symtab **out, const void *data, size_t len,
			      const char *name, tk_error *err);

/** Number of functions, and the i-th in address order. */
TK_API size_t tk_symtab_count(const tk_symtab *st);
TK_API const tk_symbol *tk_symtab_get(const tk_symtab *st, size_t i);

/**
 * Move every symbol by `offset` (modulo 2^64): the image was loaded
 * `offset` bytes above the addresses it was linked at.
 */
TK_API void tk_symtab_shift(tk_symtab *st, uint64_t offset);

/** Index of the function holding `address`, or -1; of symbols whose
 * ranges overlap, the one that starts last (the innermost). */
TK_API long tk_symtab_find(const tk_symtab *st, uint64_t address);

/** Free; NULL is allowed. */
TK_API void tk_symtab_free(tk_symtab *st);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_ELF_H */
