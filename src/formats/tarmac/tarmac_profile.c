/*
 * tarmac_profile.c - a function profile and call tree of a Tarmac log
 * against the symbols of an ELF file (tracekit/tarmac_profile.h has the
 * rules), and its folded stacks for flame graphs.
 *
 * Per CPU a shadow stack of frames; each frame points at its call-tree
 * node, so an instruction costs a range check of the current function and
 * two additions while the PC stays in it.  The stack is changed only when
 * the PC leaves the function or an exception record said so: that is where
 * the symbol search and the node look-up (a hash of parent and symbol) run.
 *
 * Why the rules are what they are (real logs):
 *  - a BL whose target is in the same function (a Thumb-1 long branch, a
 *    local helper) is no call unless it lands on a function entry, so that
 *    recursion is seen and local branches are not;
 *  - returns are matched against the return addresses on the stack, not
 *    decoded from BX LR / POP {pc} / RET / LDR pc / MOV pc,lr alone: any of
 *    them works, and a return that skips frames (longjmp, an unwinder) pops
 *    them all;  when no address matches, reaching a function lower on the
 *    stack is a return to it (a call the log did not show as a BL);
 *  - a call that never comes back to its return address, made no call that
 *    stayed one, and is left by a return further down the stack was a BL
 *    used as a branch (its link register junk: calltest32's `bl
 *    internal_bl_label`): it is no call, its instructions and time are
 *    its caller's (Arm's tools count a call only when it returns);
 *  - an exception is known from the records, not from the PC: a handler
 *    starts at a function entry like a tail call would.  The handler's
 *    frame is a child of the interrupted one; returns pop to below it.
 */
#include "tarmac.h"
#include "../../core/hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256
#define NO_RET UINT64_MAX
#define NONE32 UINT32_MAX
#define SYM_CPU (-2L)   /* a CPU's root node */
#define CALL_UNDONE (-1)   /* a tk_tarmac_call's kind: undone, dropped at the finish */

typedef struct pframe {
	uint32_t node;
	long sym;
	uint64_t ret;             /* return address; NO_RET for exceptions */
	int exc;                  /* entered by an exception */
	int num;                  /* its IPSR number, -1 if not known */
	/* cache: the child last pushed on this frame (NONE32: none), so
	 * that a call made again skips the node hash (a cache miss each in
	 * a big tree) */
	uint32_t kid_node;
	long kid_sym;
	uint32_t call;            /* its tk_tarmac_call, NONE32: none kept */
	int kind;                 /* TK_TARMAC_CALL_* */
	uint32_t kids;            /* frames pushed on it that stay calls */
	/* its own instructions and time since it was pushed (undo()) */
	uint64_t own_instr, own_time;
} pframe;

typedef struct pcore {
	/* grown at a push (8, 16 .. MAX_DEPTH frames): a log may name many
	 * CPUs that run a few instructions each, and a fresh page costs more
	 * than the work of a line */
	pframe *stack;
	uint32_t depth, cap;
	uint32_t root;            /* the CPU's root node (cpu > 0), or NONE32 */
	uint32_t root_kid_node;   /* cache: the last frame pushed on an empty stack */
	long root_kid_sym;
	uint32_t last_node;       /* the node of the last instruction */
	int has_last;
	uint64_t last_time;
	int has_time;
	/* the current function's range, a cache of the symbol search */
	uint64_t lo, hi;
	long cur_sym;
	/* the previous executed instruction */
	uint64_t prev_pc, prev_size;
	int prev_call;
	int prev_direct;          /* a direct branch (B, Bcc, CBZ): not a return */
	/* the link register: its last value, and whether the last executed
	 * instruction (lr_w1) or the one before it (lr_w2) wrote it; lr_new:
	 * written by a record since the last executed instruction */
	uint64_t lr_val;
	int lr_new, lr_w1, lr_w2;
	/* the instruction being fed, and the last one fed (for the calls) */
	tk_tarmac_site cur_site, prev_site;
	/* what the records since then said */
	int pend_entry, pend_return, pend_return_all, pend_reset, pend_to_num;
	int pend_num;
	uint64_t lr;
	int lr_known;
	int pop_pending;
	int ipsr;
} pcore;

struct tk_tarmac_profile {
	const tk_symtab *st;
	tk_tarmac_node *nodes;
	size_t nnodes, capnodes;
	tk_hashmap node_ix;       /* node_key() -> node index */
	pcore **cores;
	size_t ncores;
	int mprofile;
	uint64_t ninstr, overflows;
	tk_tarmac_func *funcs;
	size_t nfuncs;
	uint32_t *kids, *kidoff;  /* children, grouped by parent (after finish) */
	uint32_t *scratch;
	size_t nscratch;
	int finished;
	/* times are in the unit of the log's first stamp; stamps of another unit
	 * not a whole number of it (rounded down) or with no SI length (no
	 * time), and stamps earlier than their CPU's last (no time) */
	tk_tarmac_unit unit;
	uint64_t inexact, backwards;
	/* tk_tarmac_profile_log_calls() */
	int log_calls;
	int started;              /* a record was given: no more setup */
	tk_tarmac_call *calls;
	size_t ncalls, capcalls;
};

/* ---- nodes ----------------------------------------------------------------- */

/* The key of (parent, sym) in the index of nodes (the roots of a symbol,
 * one per CPU, differ by their CPU); the map mixes every bit of it, and
 * records that share a key are told apart by their fields. */
static uint64_t node_key(uint32_t parent, long sym, uint32_t cpu)
{
	uint64_t k = (uint64_t)parent << 32 ^ (uint64_t)(sym + 3);

	if (parent == NONE32)
		k ^= (uint64_t)cpu * 0x9e3779b97f4a7c15ull;
	return k;
}

static uint32_t key_parent(const tk_tarmac_profile *p, uint32_t i)
{
	return p->nodes[i].parent == i ? NONE32 : p->nodes[i].parent;
}

/* The node of `sym` under `parent` (NONE32: a root), made when new. */
static int node_get(tk_tarmac_profile *p, uint32_t parent, long sym,
		    uint32_t cpu, uint32_t *out)
{
	tk_tarmac_node *n;
	uint64_t key = node_key(parent, sym, cpu);
	uint32_t h;

	for (h = tk_hashmap_first(&p->node_ix, key); h != TK_HASHMAP_END;
	     h = tk_hashmap_next(&p->node_ix, key, h)) {
		uint32_t i = p->node_ix.slots[h].val;
		if (p->nodes[i].symbol == sym && key_parent(p, i) == parent &&
		    (parent != NONE32 || p->nodes[i].cpu == cpu)) {
			*out = i;
			return 0;
		}
	}
	if (p->nnodes >= NONE32 - 1)
		return -1;
	if (p->nnodes == p->capnodes) {
		size_t ncap = p->capnodes ? p->capnodes * 2 : 256;
		tk_tarmac_node *nn = tk_xrealloc_array(p->nodes, ncap, sizeof(*nn));
		if (!nn)
			return -1;
		p->nodes = nn;
		p->capnodes = ncap;
	}
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent == NONE32 ? (uint32_t)p->nnodes : parent;
	n->depth = parent == NONE32 ? 0 : p->nodes[parent].depth + 1;
	n->symbol = sym;
	n->cpu = cpu;
	if (tk_hashmap_add(&p->node_ix, key, (uint32_t)p->nnodes) < 0)
		return -1;
	*out = (uint32_t)p->nnodes++;
	return 0;
}

/* ---- the shadow stack ------------------------------------------------------- */

static int core_get(tk_tarmac_profile *p, uint32_t cpu, pcore **out)
{
	pcore *c;

	/* geometric growth (a log may name a new CPU on every line); the new
	 * slots zeroed: no core yet */
	if (tk_grow_zero((void **)&p->cores, &p->ncores, cpu,
			 sizeof(*p->cores)) < 0)
		return -1;
	if (!p->cores[cpu]) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -1;
		c->root = NONE32;
		c->root_kid_node = NONE32;
		c->cur_sym = -1;
		c->ipsr = 0;
		if (cpu && node_get(p, NONE32, SYM_CPU, cpu, &c->root) < 0) {
			free(c);
			return -1;
		}
		p->cores[cpu] = c;
	}
	*out = p->cores[cpu];
	return 0;
}

/* Close the calls of the frames from `depth` up: they ended at the last
 * instruction fed, and the current one is where the caller went on. */
static void close_calls(tk_tarmac_profile *p, pcore *c, uint32_t depth)
{
	uint32_t k;

	for (k = depth; k < c->depth; k++) {
		tk_tarmac_call *x;
		if (c->stack[k].call == NONE32)
			continue;
		x = &p->calls[c->stack[k].call];
		x->returned = 1;
		x->ret = c->prev_site;
		x->back = c->cur_site;
		x->has_back = 1;
	}
}

/* The stack cut to `depth` frames (a return, a pop, a reset). */
static void cut(tk_tarmac_profile *p, pcore *c, uint32_t depth)
{
	if (depth >= c->depth)
		return;
	if (p->log_calls)
		close_calls(p, c, depth);
	c->depth = depth;
}

/* A new call of `kind` for the frame pushed at depth `d`, or NONE32. */
static uint32_t call_new(tk_tarmac_profile *p, pcore *c, uint32_t cpu, long sym,
			 uint32_t d, int kind)
{
	tk_tarmac_call *x;

	if (!p->log_calls || p->ncalls >= NONE32 - 1)
		return NONE32;
	if (tk_grow_zero((void **)&p->calls, &p->capcalls, p->ncalls,
			 sizeof(*p->calls)) < 0)
		return NONE32 - 1;
	x = &p->calls[p->ncalls];
	memset(x, 0, sizeof(*x));
	x->symbol = sym;
	x->cpu = cpu;
	x->depth = d;
	x->kind = kind;
	x->has_site = kind == TK_TARMAC_CALL || kind == TK_TARMAC_CALL_TAIL;
	if (x->has_site)
		x->site = c->prev_site;
	x->entry = c->cur_site;
	return (uint32_t)p->ncalls++;
}

static int push(tk_tarmac_profile *p, pcore *c, uint32_t cpu, long sym,
		uint64_t ret, int exc, int num, int kind)
{
	uint32_t parent, *kn;
	long *ks;
	pframe *f;

	if (c->depth == c->cap && c->cap < MAX_DEPTH) {
		uint32_t ncap = c->cap ? c->cap * 2 : 8;
		pframe *ns;
		if (ncap > MAX_DEPTH)
			ncap = MAX_DEPTH;
		ns = tk_xrealloc_array(c->stack, ncap, sizeof(*ns));
		if (!ns)
			return -1;
		c->stack = ns;
		c->cap = ncap;
	}
	/* after the growth: these point into the stack */
	parent = c->depth ? c->stack[c->depth - 1].node : c->root;
	kn = c->depth ? &c->stack[c->depth - 1].kid_node : &c->root_kid_node;
	ks = c->depth ? &c->stack[c->depth - 1].kid_sym : &c->root_kid_sym;
	if (c->depth == MAX_DEPTH) {
		/* deeper than any real program: the frame is replaced */
		p->overflows++;
		parent = p->nodes[c->stack[c->depth - 1].node].parent;
		if (parent == c->stack[c->depth - 1].node)
			parent = NONE32;
		cut(p, c, c->depth - 1);
		kn = NULL;
		ks = NULL;
	}
	f = &c->stack[c->depth];
	if (kn && *kn != NONE32 && *ks == sym) {
		f->node = *kn;    /* the node of (parent, sym): nodes never move */
	} else {
		if (node_get(p, parent, sym, cpu, &f->node) < 0)
			return -1;
		if (kn) {
			*kn = f->node;
			*ks = sym;
		}
	}
	f->kid_node = NONE32;
	f->kind = kind;
	f->kids = 0;
	f->own_instr = f->own_time = 0;
	if (c->depth)
		c->stack[c->depth - 1].kids++;
	f->call = call_new(p, c, cpu, sym, c->depth, kind);
	if (f->call == NONE32 - 1)
		return -1;
	p->nodes[f->node].calls++;
	if (exc)
		p->nodes[f->node].exception = 1;
	f->sym = sym;
	f->ret = ret;
	f->exc = exc;
	f->num = num;
	c->depth++;
	return 0;
}

/* The top frame becomes `sym` (a tail call or a jump): same parent. */
static int replace(tk_tarmac_profile *p, pcore *c, uint32_t cpu, long sym)
{
	pframe f = c->stack[c->depth - 1];

	cut(p, c, c->depth - 1);
	if (f.call != NONE32)
		p->calls[f.call].has_back = 0;   /* it went on in the tail call */
	if (push(p, c, cpu, sym, f.ret, f.exc, f.num, TK_TARMAC_CALL_TAIL) < 0)
		return -1;
	return 0;
}

/* Pop the topmost exception frame and all above it. */
static void pop_exception(tk_tarmac_profile *p, pcore *c, int all)
{
	uint32_t k = c->depth, found = NONE32;

	while (k-- > 0) {
		if (c->stack[k].exc) {
			found = k;
			if (!all)
				break;
		}
	}
	if (found != NONE32)
		cut(p, c, found);
}

/* IPSR back to an active handler: pop the frames above its frame. */
static void return_to_num(tk_tarmac_profile *p, pcore *c, int num)
{
	uint32_t k = c->depth;

	while (k-- > 0)
		if (c->stack[k].exc && c->stack[k].num == num) {
			cut(p, c, k + 1);
			return;
		}
}

static int has_exc_num(const pcore *c, int num)
{
	uint32_t k;

	for (k = 0; k < c->depth; k++)
		if (c->stack[k].exc && c->stack[k].num == num)
			return 1;
	return 0;
}

static int up_eq(const tk_tarmac_span *s, const char *lit)
{
	return tk_ascii_casecmp(s->ptr, s->len, lit) == 0;
}

/* BL, BLX, BLR, BLRAA..., BL<cond>, BL.W: a branch with link */
static int is_call(const tk_tarmac_record *rec)
{
	static const char conds[] = "EQNECSHSCCLOMIPLVSVCHILSGELTGTLEAL";
	const char *m = rec->mnemonic.ptr;
	size_t n = rec->mnemonic.len, i;

	if (n < 2 || (m[0] | 0x20) != 'b' || (m[1] | 0x20) != 'l')
		return 0;
	if (n == 2)
		return 1;
	if ((m[2] | 0x20) == 'x' || (m[2] | 0x20) == 'r' || m[2] == '.')
		return 1;
	if (n == 4)
		for (i = 0; i + 1 < sizeof(conds); i += 2)
			if ((m[2] & ~0x20) == conds[i] && (m[3] & ~0x20) == conds[i + 1])
				return 1;
	return 0;
}

/* B, B<cond>, B.W, CBZ, CBNZ, TBZ, TBNZ: a branch to a fixed address */
static int is_direct_branch(const tk_tarmac_record *rec)
{
	const char *m = rec->mnemonic.ptr;
	size_t n = rec->mnemonic.len;

	if (n >= 3 && ((m[0] | 0x20) == 'c' || (m[0] | 0x20) == 't') &&
	    (m[1] | 0x20) == 'b' && ((m[2] | 0x20) == 'z' || (m[2] | 0x20) == 'n'))
		return 1;
	if (n < 1 || (m[0] | 0x20) != 'b' || is_call(rec))
		return 0;
	if (n >= 2 && ((m[1] | 0x20) == 'x' || ((m[1] | 0x20) == 'r' && n <= 3 &&
						 (n == 2 || (m[2] | 0x20) != 'k'))))
		return 0;   /* BX, BXJ, BR, BRAA...: through a register */
	return 1;
}

static uint64_t instr_size(const tk_tarmac_record *rec)
{
	if (rec->opcode_bits)
		return rec->opcode_bits / 8;
	return 4;
}

/* Where the PC is: the current function, else a search. */
static long func_of(tk_tarmac_profile *p, pcore *c, uint64_t pc)
{
	long s;

	if (pc - c->lo < c->hi - c->lo)
		return c->cur_sym;
	/* the range cached is where the answer stays the same: with nested
	 * symbols, not the whole of the outer one */
	s = tk_symtab_find_span(p->st, pc, &c->lo, &c->hi);
	c->cur_sym = s;
	if (s < 0)
		c->lo = c->hi = 0;
	return s;
}

static int is_entry(const tk_tarmac_profile *p, long sym, uint64_t pc)
{
	return sym >= 0 && tk_symtab_get(p->st, (size_t)sym)->address == pc;
}

/* The stack for an executed instruction at pc in function sym. */
static int is_label(const tk_tarmac_profile *p, long sym)
{
	return sym >= 0 && tk_symtab_get(p->st, (size_t)sym)->label;
}

/* A call by the link-register convention: a jump (not a call, not the
 * next instruction) just after the link register was set (by the jump or
 * the instruction before it: MOV lr,pc; BX r1 or LDR lr,=ret; B fn) to an
 * address other than the target and than the return addresses on the
 * stack (POP {..lr}; B fn is a tail call).  The caller (step()) checks
 * that it leaves the function or lands on an entry. */
static int lr_call(const pcore *c, uint64_t pc)
{
	uint32_t k;

	if (!(c->lr_w1 || c->lr_w2) || c->prev_call ||
	    pc == c->prev_pc + c->prev_size || c->lr_val == pc)
		return 0;
	for (k = 0; k < c->depth; k++)
		if (c->stack[k].ret == c->lr_val)
			return 0;
	return 1;
}

/*
 * A return to frame k's return address leaves the frames above it: each,
 * from the top, that was entered by a call, made no call that stayed one
 * and never came back to its own return address, was a BL used as a
 * branch: its instructions and time go to its caller, and its call is
 * undone (the node keeps no call, and the call is dropped from the list).
 */
static void undo_calls(tk_tarmac_profile *p, pcore *c, uint32_t k)
{
	uint32_t j;

	for (j = c->depth - 1; j > k; j--) {
		pframe *f = &c->stack[j], *up = &c->stack[j - 1];
		tk_tarmac_node *n = &p->nodes[f->node], *un = &p->nodes[up->node];
		if (f->kind != TK_TARMAC_CALL || f->exc || f->kids)
			break;
		n->calls--;
		n->self_instructions -= f->own_instr;
		n->self_time -= f->own_time;
		un->self_instructions += f->own_instr;
		un->self_time += f->own_time;
		up->own_instr += f->own_instr;
		up->own_time += f->own_time;
		up->kids--;
		/* the call logged last is dropped; one logged before others
		 * (of another CPU) is marked, and dropped at the finish */
		if (f->call != NONE32 && f->call + 1 == p->ncalls)
			p->ncalls--;
		else if (f->call != NONE32)
			p->calls[f->call].kind = CALL_UNDONE;
		f->call = NONE32;
		if (c->last_node == f->node)
			c->last_node = up->node;
	}
}

/* A node left with no call, instruction or time (undo_calls()) */
static int undone(const tk_tarmac_node *x)
{
	return !x->calls && !x->self_instructions && !x->self_time &&
	       x->symbol != SYM_CPU;
}

static int step(tk_tarmac_profile *p, pcore *c, uint32_t cpu, uint64_t pc,
		long sym)
{
	uint32_t k;
	int returned = 0;

	if (c->pend_reset) {
		cut(p, c, 0);
		c->pend_reset = 0;
	}
	if (c->pend_return || c->pend_return_all)
		pop_exception(p, c, c->pend_return_all);
	if (c->pend_to_num)
		return_to_num(p, c, c->pend_num);
	c->pend_return = c->pend_return_all = c->pend_to_num = 0;
	if (c->pend_entry) {
		c->pend_entry = 0;
		return push(p, c, cpu, sym, NO_RET, 1, c->ipsr ? c->ipsr : -1,
			    TK_TARMAC_CALL_EXCEPTION);
	}
	if (!c->depth)
		return push(p, c, cpu, sym, NO_RET, 0, -1, TK_TARMAC_CALL_ROOT);
	if (c->prev_call && (sym != c->stack[c->depth - 1].sym || is_entry(p, sym, pc)))
		return push(p, c, cpu, sym, c->prev_pc + c->prev_size, 0, -1,
			    TK_TARMAC_CALL);
	if (lr_call(c, pc) && (sym != c->stack[c->depth - 1].sym || is_entry(p, sym, pc)))
		return push(p, c, cpu, sym, c->lr_val, 0, -1, TK_TARMAC_CALL);
	if (sym == c->stack[c->depth - 1].sym) {
		/* a recursive call returning (not a branch that happens to
		 * reach the instruction after the call) */
		if (pc == c->stack[c->depth - 1].ret && !c->prev_direct &&
		    c->depth > 1 && c->stack[c->depth - 2].sym == sym)
			cut(p, c, c->depth - 1);
		return 0;
	}
	/* a return to an address on the stack */
	for (k = c->depth; k-- > 0;)
		if (c->stack[k].ret == pc) {
			undo_calls(p, c, k);
			cut(p, c, k);
			returned = 1;
			break;
		}
	if (!c->depth)
		return push(p, c, cpu, sym, NO_RET, 0, -1, TK_TARMAC_CALL_ROOT);
	/* (into a label: the caller's code) */
	if (sym == c->stack[c->depth - 1].sym || (returned && is_label(p, sym)))
		return 0;
	/* an assembler label reached by falling through or by a direct
	 * branch is a place in the function that got there */
	if (is_label(p, sym) && (c->prev_direct || pc == c->prev_pc + c->prev_size))
		return 0;
	if (is_entry(p, sym, pc))
		return replace(p, c, cpu, sym);     /* a tail call */
	for (k = c->depth - 1; k-- > 0;)
		if (c->stack[k].sym == sym) {
			cut(p, c, k + 1);           /* a return to a caller */
			return 0;
		}
	return replace(p, c, cpu, sym);             /* a jump elsewhere */
}

/* rec's stamp in the profile's unit: 1, or 0 (counted) when it has none
 * there */
static int stamp(tk_tarmac_profile *p, const tk_tarmac_record *rec,
		 uint64_t *t)
{
	tk_timebase from, to;

	*t = rec->time;
	if (rec->unit == p->unit)
		return 1;
	p->inexact++;
	if (!tarmac_si_timebase(rec->unit, &from) ||
	    !tarmac_si_timebase(p->unit, &to) ||
	    tk_time_convert(rec->time, &from, &to, TK_ROUND_DOWN, t) < 0)
		return 0;
	p->inexact -= tk_time_convert(rec->time, &from, &to, TK_ROUND_EXACT,
				      t) == TK_OK;
	return 1;
}

static int on_instruction(tk_tarmac_profile *p, pcore *c, uint32_t cpu,
			  const tk_tarmac_record *rec)
{
	uint64_t pc = rec->address, t = 0;
	uint32_t node;
	long sym;
	int stamped = 0;

	if (rec->unit != TK_TARMAC_UNIT_NONE && (stamped = stamp(p, rec, &t)) != 0) {
		/* a stamp earlier than the CPU's latest: no time counted, and
		 * the latest stays, so that the next span does not count the
		 * time gone back twice (the sum never exceeds the log's span) */
		if (c->has_time && t < c->last_time) {
			p->backwards++;
		} else {
			if (c->has_last && c->has_time) {
				p->nodes[c->last_node].self_time += t - c->last_time;
				if (c->depth && c->stack[c->depth - 1].node == c->last_node)
					c->stack[c->depth - 1].own_time += t - c->last_time;
			}
			c->last_time = t;
		}
		c->has_time = 1;
	}
	if (!rec->has_address) {
		c->prev_call = 0;
		return 0;
	}
	/* the link register written by the previous instruction, and by the
	 * one before it */
	c->lr_w2 = c->lr_w1;
	c->lr_w1 = c->lr_new;
	c->lr_new = 0;
	c->cur_site.time = stamped ? t : c->has_time ? c->last_time : 0;
	c->cur_site.line = rec->line;
	c->cur_site.pc = pc;
	sym = func_of(p, c, pc);
	if (c->depth && sym == c->stack[c->depth - 1].sym && !c->prev_call &&
	    pc != c->stack[c->depth - 1].ret && !lr_call(c, pc) &&
	    !(c->pend_entry | c->pend_return | c->pend_return_all |
	      c->pend_reset | c->pend_to_num)) {
		node = c->stack[c->depth - 1].node;  /* the common case */
	} else {
		/* a skipped instruction too: where it is says whose it is
		 * (one just after a return belongs to the caller) */
		if (step(p, c, cpu, pc, sym) < 0)
			return -1;
		node = c->stack[c->depth - 1].node;
	}
	c->last_node = node;
	c->has_last = 1;
	c->prev_site = c->cur_site;
	c->prev_pc = pc;
	c->prev_size = instr_size(rec);
	if (!rec->executed) {
		/* not taken: it falls through */
		c->prev_call = c->prev_direct = 0;
		return 0;
	}
	p->nodes[node].self_instructions++;
	c->stack[c->depth - 1].own_instr++;
	p->ninstr++;
	c->prev_call = is_call(rec);
	c->prev_direct = !c->prev_call && is_direct_branch(rec);
	c->pop_pending = 0;
	/* exception returns the adapter knows too */
	if (!p->mprofile) {
		if (rec->mode.len >= 6 && ((rec->mode.ptr[0] | 0x20) == 't' ||
					   (rec->mode.ptr[0] | 0x20) == 'h') && (up_eq(&rec->mode, "thread") || up_eq(&rec->mode, "handler") ||
				      up_eq(&rec->mode, "thread_s") || up_eq(&rec->mode, "handler_s")))
			p->mprofile = 1;
		else if (rec->kind_text.len == 2 && rec->kind_text.ptr[0] == 'I' &&
			 (rec->iset == 'T' || rec->iset == 0) && rec->mode.len == 0)
			p->mprofile = 1;
	}
	if (p->mprofile) {
		if (rec->mnemonic.len == 2 && up_eq(&rec->mnemonic, "BX") && c->lr_known &&
		    c->lr >= 0xF0000000u) {
			const char *o = rec->mnemonic.ptr + 2, *e = rec->disasm.ptr + rec->disasm.len;
			while (o < e && (*o == ' ' || *o == '\t'))
				o++;
			if ((e - o >= 2 && tk_ascii_ncaseeq(o, "lr", 2)) ||
			    (e - o >= 3 && tk_ascii_ncaseeq(o, "r14", 3)))
				c->pend_return = 1;
		}
		c->pop_pending = tarmac_pc_loaded(rec);
	} else if (rec->mnemonic.len == 4 && (rec->mnemonic.ptr[0] | 0x20) == 'e' &&
		   up_eq(&rec->mnemonic, "ERET")) {
		c->pend_return = 1;
	}
	return 0;
}

/* lr, r14, r14_<mode>, LR_<mode>, X30, W30: the link register */
static int is_lr_name(const tk_tarmac_span *r)
{
	const char *n = r->ptr;

	if (r->len < 2)
		return 0;
	if (r->len == 3 && ((n[0] | 0x20) == 'x' || (n[0] | 0x20) == 'w'))
		return n[1] == '3' && n[2] == '0';
	if ((n[0] | 0x20) == 'l' && (n[1] | 0x20) == 'r')
		return r->len == 2 || n[2] == '_';
	return r->len >= 3 && (n[0] | 0x20) == 'r' && n[1] == '1' && n[2] == '4' &&
	       (r->len == 3 || n[3] == '_');
}

static void on_register(tk_tarmac_profile *p, pcore *c, const tk_tarmac_record *rec)
{
	int cls, v;

	if (rec->reg.len <= 4 || rec->reg.ptr[2] == '_' || rec->reg.ptr[3] == '_') {
		if (is_lr_name(&rec->reg) && rec->value_known) {
			c->lr_val = rec->reg_value;
			c->lr_new = 1;
		}
	}
	cls = tarmac_reg_class(&rec->reg);
	if (cls == TARMAC_REG_OTHER)
		return;
	if (!p->mprofile) {
		if (cls == TARMAC_REG_STACK || cls == TARMAC_REG_PSR)
			p->mprofile = 1;
		else
			return;
	}
	if (cls == TARMAC_REG_LR) {
		c->lr = rec->reg_value;
		c->lr_known = rec->value_known;
		return;
	}
	if (cls == TARMAC_REG_STACK || !rec->value_known)
		return;
	if (cls == TARMAC_REG_CPSR && !(rec->reg_value & (1u << 24)))
		return;
	v = (int)(rec->reg_value & 0x1ff);
	if (v == c->ipsr)
		return;
	if (v == 0) {
		c->pend_return_all = 1;
	} else if (has_exc_num(c, v)) {
		c->pend_to_num = 1;
		c->pend_num = v;
	} else if (v != 1) {
		c->pend_entry = 1;
	}
	c->ipsr = v;
}

tk_tarmac_unit tk_tarmac_profile_stamps(const tk_tarmac_profile *p,
					uint64_t *inexact, uint64_t *backwards)
{
	*inexact = p->inexact;
	*backwards = p->backwards;
	return p->unit;
}

int tk_tarmac_profile_record(tk_tarmac_profile *p, const tk_tarmac_record *rec,
			     tk_error *err)
{
	if (!p || !rec)
		return tk_err_null(err, "tk_tarmac_profile_record", !p ? "object" : "record");
	pcore *c;

	if (p->finished)
		return TK_OK;
	p->started = 1;
	/* the log's unit: its first stamp's, as tk_tarmac_stats_unit() */
	if (rec->own_time && p->unit == TK_TARMAC_UNIT_NONE)
		p->unit = rec->unit;
	if (rec->kind == TK_TARMAC_OTHER || rec->kind == TK_TARMAC_BUS)
		return TK_OK;
	if (core_get(p, rec->cpu, &c) < 0)
		return tk_err_nomem(err, "profile");
	switch (rec->kind) {
	case TK_TARMAC_INSTRUCTION:
		if (on_instruction(p, c, rec->cpu, rec) < 0)
			return tk_err_nomem(err, "profile");
		break;
	case TK_TARMAC_EVENT:
		switch (tarmac_event_class(rec)) {
		case TARMAC_EV_ENTRY: c->pend_entry = 1; break;
		case TARMAC_EV_RESET:
			c->pend_reset = 1;
			c->pend_entry = c->pend_return = c->pend_return_all = 0;
			c->pend_to_num = 0;
			c->ipsr = 0;
			break;
		default: break;
		}
		break;
	case TK_TARMAC_REGISTER:
		on_register(p, c, rec);
		break;
	case TK_TARMAC_MEMORY:
		if (c->pop_pending && !rec->write && rec->data_known &&
		    rec->data_value >= 0xFFFFFF00u && rec->data_value <= 0xFFFFFFFFu) {
			c->pop_pending = 0;
			c->pend_return = 1;
		}
		break;
	case TK_TARMAC_BRANCH:
		if (p->mprofile && rec->address >= 0xF0000000u && rec->address <= 0xFFFFFFFFu)
			c->pend_return = 1;
		break;
	default:
		break;
	}
	return TK_OK;
}

/* ---- results ---------------------------------------------------------------- */

int tk_tarmac_profile_new(tk_tarmac_profile **out, const tk_symtab *st,
			  tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_profile_new", "out pointer");
	tk_tarmac_profile *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return tk_err_nomem(err, "profile");
	p->st = st;
	return TK_OK;
}

static const char *name_of(const tk_tarmac_profile *p, long sym)
{
	const tk_symbol *y = sym >= 0 ? tk_symtab_get(p->st, (size_t)sym) : NULL;

	return y ? y->name : "[unknown]";
}

const char *tk_tarmac_profile_symbol_name(const tk_tarmac_profile *p, long symbol)
{
	return name_of(p, symbol);
}

/* order of rows: by inclusive instructions, largest first, then name */
static int func_before(const tk_tarmac_profile *p, const tk_tarmac_func *a,
		       const tk_tarmac_func *b)
{
	int c;

	if (a->instructions != b->instructions)
		return a->instructions > b->instructions;
	c = strcmp(name_of(p, a->symbol), name_of(p, b->symbol));
	return c ? c < 0 : a->symbol < b->symbol;
}

static int node_before(const tk_tarmac_profile *p, uint32_t a, uint32_t b, int by_name)
{
	const tk_tarmac_node *x = &p->nodes[a], *y = &p->nodes[b];
	int c;

	if (!by_name && x->instructions != y->instructions)
		return x->instructions > y->instructions;
	if (x->symbol == SYM_CPU || y->symbol == SYM_CPU) {
		if (x->symbol != y->symbol)
			return x->symbol != SYM_CPU;
		return x->cpu < y->cpu;
	}
	c = strcmp(name_of(p, x->symbol), name_of(p, y->symbol));
	return c ? c < 0 : a < b;
}

/* A stable merge sort of node indices (qsort has no context). */
static void sort_nodes(const tk_tarmac_profile *p, uint32_t *v, uint32_t *tmp,
		       size_t n, int by_name)
{
	size_t w, i;

	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t a = i, am = i + w < n ? i + w : n, b = am;
			size_t bm = i + 2 * w < n ? i + 2 * w : n, o = i;
			while (a < am && b < bm)
				tmp[o++] = node_before(p, v[b], v[a], by_name) ? v[b++] : v[a++];
			while (a < am)
				tmp[o++] = v[a++];
			while (b < bm)
				tmp[o++] = v[b++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

int tk_tarmac_profile_finish(tk_tarmac_profile *p, tk_error *err)
{
	size_t n = p->nnodes, nsym = tk_symtab_count(p->st), i, k;
	tk_tarmac_func *all = NULL;
	uint32_t *fill = NULL;

	if (p->finished)
		return TK_OK;
	p->finished = 1;
	/* calls still open: they end at their CPU's last instruction */
	for (i = 0; p->log_calls && i < p->ncores; i++) {
		pcore *c = p->cores[i];
		uint32_t d;
		for (d = 0; c && d < c->depth; d++)
			if (c->stack[d].call != NONE32)
				p->calls[c->stack[d].call].ret = c->prev_site;
	}
	/* the calls undone (undo_calls()) out, the others kept in order */
	for (i = 0, k = 0; i < p->ncalls; i++)
		if (p->calls[i].kind != CALL_UNDONE)
			p->calls[k++] = p->calls[i];
	p->ncalls = k;
	for (i = 0; i < n; i++) {
		p->nodes[i].instructions = p->nodes[i].self_instructions;
		p->nodes[i].time = p->nodes[i].self_time;
	}
	for (i = n; i-- > 0;) {
		uint32_t up = p->nodes[i].parent;
		if (up != i) {
			p->nodes[up].instructions += p->nodes[i].instructions;
			p->nodes[up].time += p->nodes[i].time;
		}
	}
	/* children grouped by parent; slot n holds the roots */
	p->kidoff = calloc(n + 2, sizeof(*p->kidoff));
	p->kids = tk_xrealloc_array(NULL, n ? n : 1, sizeof(*p->kids));
	p->scratch = tk_xrealloc_array(NULL, n ? n : 1, sizeof(*p->scratch));
	fill = calloc(n + 1, sizeof(*fill));
	all = calloc(nsym + 1, sizeof(*all));
	if (!p->kidoff || !p->kids || !p->scratch || !fill || !all)
		goto nomem;
	/* (a node whose every call was undone, undo_calls(), is in no list) */
	for (i = 0; i < n; i++) {
		uint32_t up = p->nodes[i].parent;
		if (!undone(&p->nodes[i]))
			p->kidoff[(up == i ? n : up) + 1]++;
	}
	for (i = 0; i <= n; i++)
		p->kidoff[i + 1] += p->kidoff[i];
	for (i = 0; i < n; i++) {
		uint32_t up = p->nodes[i].parent;
		size_t slot = up == i ? n : up;
		if (!undone(&p->nodes[i]))
			p->kids[p->kidoff[slot] + fill[slot]++] = (uint32_t)i;
	}
	/* per function; inclusive figures once per outermost occurrence */
	for (i = 0; i < n; i++) {
		const tk_tarmac_node *x = &p->nodes[i];
		tk_tarmac_func *f;
		uint32_t up = x->parent, at = (uint32_t)i;
		int nested = 0;
		if (x->symbol == SYM_CPU)
			continue;
		f = &all[x->symbol + 1];
		f->symbol = x->symbol;
		f->calls += x->calls;
		f->self_instructions += x->self_instructions;
		f->self_time += x->self_time;
		while (up != at) {
			if (p->nodes[up].symbol == x->symbol) {
				nested = 1;
				break;
			}
			at = up;
			up = p->nodes[up].parent;
		}
		if (!nested) {
			f->instructions += x->instructions;
			f->time += x->time;
		}
	}
	for (i = 0, k = 0; i <= nsym; i++)
		if (all[i].calls)
			all[k++] = all[i];
	/* insertion sort: the functions are few next to the instructions */
	for (i = 1; i < k; i++) {
		tk_tarmac_func v = all[i];
		size_t j = i;
		while (j > 0 && func_before(p, &v, &all[j - 1])) {
			all[j] = all[j - 1];
			j--;
		}
		all[j] = v;
	}
	p->funcs = all;
	p->nfuncs = k;
	free(fill);
	return TK_OK;
nomem:
	free(fill);
	free(all);
	return tk_err_nomem(err, "profile");
}

size_t tk_tarmac_profile_node_count(const tk_tarmac_profile *p)
{
	return p->nnodes;
}

const tk_tarmac_node *tk_tarmac_profile_node(const tk_tarmac_profile *p, size_t i)
{
	return i < p->nnodes ? &p->nodes[i] : NULL;
}

size_t tk_tarmac_profile_func_count(const tk_tarmac_profile *p)
{
	return p->nfuncs;
}

const tk_tarmac_func *tk_tarmac_profile_func(const tk_tarmac_profile *p, size_t i)
{
	return i < p->nfuncs ? &p->funcs[i] : NULL;
}

size_t tk_tarmac_profile_children(tk_tarmac_profile *p, size_t i, int by_name,
				  const uint32_t **out)
{
	size_t slot = i == SIZE_MAX ? p->nnodes : i, n;
	uint32_t *v;

	*out = NULL;
	if (!p->finished || !p->kidoff || (i != SIZE_MAX && i >= p->nnodes))
		return 0;
	v = p->kids + p->kidoff[slot];
	n = p->kidoff[slot + 1] - p->kidoff[slot];
	sort_nodes(p, v, p->scratch, n, by_name);
	*out = v;
	return n;
}

int tk_tarmac_profile_log_calls(tk_tarmac_profile *p)
{
	if (p->started)
		return TK_E_USAGE;
	p->log_calls = 1;
	return TK_OK;
}

size_t tk_tarmac_profile_calls(const tk_tarmac_profile *p,
			       const tk_tarmac_call **out)
{
	*out = p->calls;
	return p->finished ? p->ncalls : 0;
}

uint64_t tk_tarmac_profile_instructions(const tk_tarmac_profile *p)
{
	return p->ninstr;
}

uint64_t tk_tarmac_profile_depth_overflows(const tk_tarmac_profile *p)
{
	return p->overflows;
}

void tk_tarmac_profile_free(tk_tarmac_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->ncores; i++)
		if (p->cores[i]) {
			free(p->cores[i]->stack);
			free(p->cores[i]);
		}
	free(p->cores);
	free(p->nodes);
	tk_hashmap_free(&p->node_ix);
	free(p->funcs);
	free(p->calls);
	free(p->kids);
	free(p->kidoff);
	free(p->scratch);
	free(p);
}
