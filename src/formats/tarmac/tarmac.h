/* tarmac.h - what the Tarmac record reader and its adapter share. */
#ifndef TK_TARMAC_INT_H
#define TK_TARMAC_INT_H

#include "../../core/internal.h"
#include "../../core/lines.h"

/* A run of the bytes an LD/ST line accessed (ldst()): lane bytes hi_at
 * (the first shown) to lo_at, their text p..e, their value */
struct tarmac_run {
	unsigned hi_at, lo_at;
	int unknown;
	uint64_t v;
	const char *p, *e;
};

struct tk_tarmac {
	/* the first error of tk_tarmac_next(), given again by every later
	 * call (0: none) */
	int failed;
	tk_error fail_err;
	tk_source *src;
	int owns_src;
	tk_reader *reader;        /* warnings go through it when set */
	tk_tarmac_opts opts;
	const char *name;
	uint64_t line;
	int cr;                   /* lines end with a CR alone */
	tk_lines lines;           /* set up at the first record (the source
				   may be streamed after the open) */
	int lines_ready;
	uint64_t time;            /* of the last stamped line */
	tk_tarmac_unit unit;
	int prev_ldst;            /* 'L', 'S' after an LD / ST line, else 0 */
	uint64_t nskipped, nwarn, warned;
	unsigned seen;            /* SEEN_* bits */
	uint32_t last_cpu;        /* cache: index + 1 of the last prefix */
	size_t last_cpu_len;
	/* cache: the stamp (and CPU) prefix of the last stamped line, as
	 * written, and what it gave (parse_line()) */
	char pfx[48];
	size_t pfx_len;           /* 0: none */
	uint64_t pfx_time;
	tk_tarmac_unit pfx_unit;
	uint32_t pfx_cpu;         /* 0: the prefix holds no CPU token */
	/* the CPU names: the pool's ids (dense, in first-seen order) are the
	 * CPU indexes, and its hash finds a name met again in constant time
	 * (a log may name any number of CPUs) */
	tk_strpool cpus;
	/* the runs of the last LD/ST line after the first, handed out one
	 * record each before the next line is read (the line stays in the
	 * buffer until then) */
	struct {
		tk_tarmac_record rec;
		uint64_t base;
		unsigned shown, n, next;
		struct tarmac_run run[8];
	} split;
};

/*
 * Set up `tr` (zeroed by the caller) on a source.  With `reader` set,
 * warnings are reported through it (and counted there).
 */
/* The caller's options (NULL: the defaults) into *o, their size checked
 * (TK_OPTS_TAKE()). */
int tarmac_opts_take(tk_tarmac_opts *o, const tk_tarmac_opts *opts,
		     tk_error *err);
int tarmac_init(tk_tarmac *tr, tk_source *src, int owns_src,
		const tk_tarmac_opts *opts, tk_reader *reader, tk_error *err);
void tarmac_fini(tk_tarmac *tr);
#ifdef TK_TEST_HOOKS /* the test build only (tracekit_test) */
/* tk_tarmac_open() on a source of the caller's (tk_source_open_mem_stream()
 * for the fuzz target), which the record reader owns from then on (closed
 * on failure too). */
int tk_tarmac_open_source(tk_tarmac **out, tk_source *src,
			  const tk_tarmac_opts *opts, tk_error *err);
#endif

/*
 * The index's hooks (tarmac_index.c).  tarmac_seek(): read on from offset
 * `off`, the start of line number `line`, with the time, unit and LD/ST
 * state of the line before (a file only: TK_E_USAGE for another transport
 * or a reader that read records from its start).  tarmac_cpu_add(): intern
 * a CPU name (-1: out of memory).  tarmac_where(): the offset of the next
 * line and the state tarmac_seek() takes.
 */
int tarmac_seek(tk_tarmac *tr, uint64_t off, uint64_t line, uint64_t time,
		tk_tarmac_unit unit, int prev_ldst, tk_error *err);
int tarmac_cpu_add(tk_tarmac *tr, const char *name, size_t len);
void tarmac_where(const tk_tarmac *tr, uint64_t *off, uint64_t *time,
		  tk_tarmac_unit *unit, int *prev_ldst);
/* tarmac_state.c: a state's registers and PCs set from a checkpoint
 * (reset, then put in their order; -1: out of memory), and the time
 * comparison of tk_tarmac_at_passed() (1 t later than v, 0, -1
 * incomparable) */
void tarmac_state_reset(tk_tarmac_state *st);
int tarmac_state_put_reg(tk_tarmac_state *st, uint32_t cpu, const char *name,
			 size_t nlen, const char *value, size_t vlen, int hex,
			 uint64_t line);
int tarmac_state_put_pc(tk_tarmac_state *st, uint32_t cpu, uint64_t pc);
int tarmac_later(uint64_t t, tk_tarmac_unit tu, uint64_t v, tk_tarmac_unit vu);

/* The format of tk_reader_open(): probe and the ISR adapter. */

/*
 * What an event record means to the exception events (the rules of the
 * ISR adapter): an exception entry, a reset, or neither.
 */
enum { TARMAC_EV_NONE = 0, TARMAC_EV_ENTRY = 1, TARMAC_EV_RESET = 2 };
int tarmac_event_class(const tk_tarmac_record *rec);

/* tk_symtab_find(), and in [*from, *to) the addresses with the same
 * answer (when it is not -1): a cache of the search */
long tk_symtab_find_span(const tk_symtab *st, uint64_t address,
			 uint64_t *from, uint64_t *to);

/* Registers the exception rules look at (names in any case). */
enum { TARMAC_REG_OTHER = 0, TARMAC_REG_LR, TARMAC_REG_PSR /* psr xpsr ipsr */,
       TARMAC_REG_CPSR, TARMAC_REG_STACK /* MSP PSP ..., r13_main */ };
int tarmac_reg_class(const tk_tarmac_span *r);

/* 1 and *tb the length of one tick of SI unit u (fs: 1/1000 ps), or 0
 * (cycles, ticks: no SI length; *tb 1 ns). */
int tarmac_si_timebase(tk_tarmac_unit u, tk_timebase *tb);

/* The disassembly loads the pc (POP/LDM {..pc}, LDR pc,...). */
int tarmac_pc_loaded(const tk_tarmac_record *rec);

#endif
