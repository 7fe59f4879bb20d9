/*
 * tarmac_events.c - the exception events of a Tarmac log
 * (tk_tarmac_exceptions_* of tracekit/tarmac_exceptions.h, fed with the
 * records of tarmac_records.c), and the "tarmac" format of tk_reader_open()
 * on it: exception entry and return become ISR activity per core
 * (docs/mappings.md, "Tarmac").
 *
 * One record can give several events (an entry preempts the running
 * handler; a return to thread mode ends a whole nest), so the events go
 * through a small queue that grows only with the nesting depth.  Feeding
 * the records is the caller's loop: `tracekit stats` feeds the same records
 * to the timeline, the function profile and its counters in one pass.
 */
#include "tarmac.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

typedef struct frame {
	uint32_t ent;
	int64_t inst;
	int num;              /* exception number, -1 if not known */
	uint64_t time;        /* of the entry */
} frame;

typedef struct core {
	uint32_t ent;         /* the core's entity */
	/* grown at an entry: most CPUs of a log of many never take an
	 * exception, and a fresh page costs more than the work of a line */
	frame *stack;
	int depth, cap;
	uint64_t lr;
	int lr_known;
	int pop_pending;      /* a POP/LDM of pc: an EXC_RETURN read returns */
	uint32_t last_reset_ent;
	uint64_t last_reset_time;
	int has_reset;
} core;

struct tk_tarmac_exceptions {
	const tk_tarmac *tr;       /* CPU names, the input name */
	tk_trace *t;               /* entities, time base */
	int owns_trace;
	tk_reader *r;              /* warnings go through it when set */
	int strict;
	tk_warning_fn on_warning;  /* else these (standalone) */
	void *warning_ctx;
	uint64_t warned, nwarn;
	core **cores;              /* per CPU index; NULL until its first record */
	size_t ncores;             /* slots of cores */
	int mprofile;
	tk_tarmac_unit base_unit;  /* the unit the time base was chosen for */
	int base_si, has_base;
	tk_event *q;
	size_t qhead, qlen, qcap;
	int64_t *inst;             /* per entity: instances so far */
	uint32_t ninst;
	tk_str kind_names[TK_EV_COUNT];
	tk_event ev;               /* the event handed out */
	int finished;
};

typedef struct tarmac_reader {
	tk_tarmac tr;
	tk_tarmac_exceptions tl;
	int at_end;
} tarmac_reader;

static void tl_warn(tk_tarmac_exceptions *a, unsigned kind, uint64_t line,
		    uint32_t col, const char *fmt, ...) TK_PRINTF(5, 6);

static void tl_warn(tk_tarmac_exceptions *a, unsigned kind, uint64_t line,
		    uint32_t col, const char *fmt, ...)
{
	uint64_t bit = 1ull << (kind & 63);
	char msg[384];
	tk_error w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->r) {
		tk_reader_warn(a->r, kind, line, col, "%s", msg);
		return;
	}
	a->nwarn++;
	if ((a->warned & bit) || !a->on_warning)
		return;
	a->warned |= bit;
	memset(&w, 0, sizeof(w));
	snprintf(w.input, sizeof(w.input), "%s", a->tr->name);
	w.line = line;
	w.column = col;
	snprintf(w.msg, sizeof(w.msg), "%s", msg);
	a->on_warning(a->warning_ctx, &w);
}

/* ---- probing ------------------------------------------------------------- */

/* The number of records (up to 16) at the start of buf, read strictly or
 * leniently (lines of no known kind skipped): 0 after a bad line. */
static int first_records(const uint8_t *buf, size_t len, int strict)
{
	tk_tarmac_opts o;
	tk_tarmac *tr;
	tk_tarmac_record rec;
	size_t use = len;
	int rc, n = 0;

	/* complete lines only: the probe buffer may cut the last one (a
	 * first line longer than the buffer: its start) */
	if (len >= 4096) {
		while (use && buf[use - 1] != '\n' && buf[use - 1] != '\r')
			use--;
		if (!use)
			use = len;
	}
	if (!use)
		return 0;
	tk_tarmac_opts_init(&o);
	o.strict = strict;
	if (tk_tarmac_open_mem(&tr, buf, use, "probe", &o, NULL) < 0)
		return 0;
	while (n < 16 && (rc = tk_tarmac_next(tr, &rec, NULL)) == TK_OK)
		n++;
	tk_tarmac_close(tr);
	return rc < 0 ? 0 : n;
}

static int tarmac_probe(const uint8_t *buf, size_t len)
{
	return first_records(buf, len, 1) ? 60 : 0;
}

/* A log forced by --from tarmac: a record of the lenient reader (which
 * skips the lines of no known kind) is enough.  A text of none, such as
 * a BTF trace, has no record. */
static int tarmac_sign(const uint8_t *buf, size_t len)
{
	return first_records(buf, len, 0) > 0;
}

/* ---- names of exceptions ---------------------------------------------------- */

static const char *const m_names[16] = {
	NULL, "Reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault",
	"SecureFault", NULL, NULL, NULL, "SVCall", "DebugMonitor", NULL,
	"PendSV", "SysTick"
};

/* The M-profile name of exception number n. */
static size_t name_of_number(int n, char *buf, size_t size)
{
	if (n >= 0 && n < 16 && m_names[n])
		return (size_t)snprintf(buf, size, "%s", m_names[n]);
	if (n >= 16)
		return (size_t)snprintf(buf, size, "IRQ%d", n - 16);
	return (size_t)snprintf(buf, size, "Exception%d", n);
}

/* The M-profile number of a name (any case, "IRQn" too); -1 if none. */
static int number_of_name(const char *p, size_t n)
{
	int i;

	for (i = 0; i < 16; i++)
		if (m_names[i] && tk_ascii_casecmp(p, n, m_names[i]) == 0)
			return i;
	if (tk_ascii_casecmp(p, n, "DebugMon") == 0)
		return 12;
	if (n > 3 && n < 8 && tk_ascii_ncaseeq(p, "IRQ", 3)) {
		int v = 0;
		size_t k;
		for (k = 3; k < n; k++) {
			if (p[k] < '0' || p[k] > '9')
				return -1;
			v = v * 10 + (p[k] - '0');
		}
		return v + 16;
	}
	return -1;
}

static int span_is(const tk_tarmac_span *s, const char *lit)
{
	return tk_ascii_casecmp(s->ptr, s->len, lit) == 0;
}

/* ---- events ------------------------------------------------------------------- */

static int convert_time(tk_tarmac_exceptions *a, const tk_tarmac_record *rec,
			uint64_t *out, tk_error *err)
{
	tk_timebase from;
	int u = rec->unit, rc;

	if (u == TK_TARMAC_UNIT_NONE || u == (int)a->base_unit) {
		*out = rec->time;
		return TK_OK;
	}
	if (a->base_si && tarmac_si_timebase(rec->unit, &from)) {
		if (tk_time_convert(rec->time, &from, tk_trace_timebase(a->t), TK_ROUND_EXACT,
				    out) == TK_OK)
			return TK_OK;
		/* lenient: rounded down; beyond 64 bits: in both modes */
		rc = tk_time_convert(rec->time, &from, tk_trace_timebase(a->t), TK_ROUND_DOWN,
				     out);
		if (rc < 0 || a->strict)
			return tk_err_set(err, TK_E_RANGE, a->tr->name, rec->line, 1,
					  "time %llu %s is %s the trace's %s",
					  (unsigned long long)rec->time,
					  tk_tarmac_unit_name(rec->unit),
					  rc < 0 ? "beyond 64 bits of"
						 : "not a whole number of",
					  tk_tarmac_unit_name(a->base_unit));
		tl_warn(a, 8, rec->line, 1,
			"time %llu %s is not a whole number of the trace's %s: rounded down",
			(unsigned long long)rec->time,
			tk_tarmac_unit_name(rec->unit),
			tk_tarmac_unit_name(a->base_unit));
		return TK_OK;
	}
	if (a->strict)
		return tk_err_set(err, TK_E_RANGE, a->tr->name, rec->line, 1,
				  "time unit '%s' cannot be expressed in the trace's '%s'",
				  tk_tarmac_unit_name(rec->unit),
				  tk_tarmac_unit_name(a->base_unit));
	tl_warn(a, 8, rec->line, 1,
		       "time unit '%s' differs from the trace's '%s': value taken as is",
		       tk_tarmac_unit_name(rec->unit),
		       tk_tarmac_unit_name(a->base_unit));
	*out = rec->time;
	return TK_OK;
}

static int push_event(tk_tarmac_exceptions *a, core *c, uint64_t time, uint64_t line,
		      uint32_t ent, int64_t inst, tk_evkind kind, tk_error *err)
{
	tk_event *ev;

	if (a->qhead + a->qlen == a->qcap) {
		if (a->qhead) {
			memmove(a->q, a->q + a->qhead, a->qlen * sizeof(*a->q));
			a->qhead = 0;
		} else if (tk_grow_zero((void **)&a->q, &a->qcap, a->qcap,
					sizeof(*a->q)) < 0) {
			return tk_err_nomem(err, a->tr->name);
		}
	}
	ev = &a->q[a->qhead + a->qlen++];
	memset(ev, 0, sizeof(*ev));
	ev->time = time;
	ev->source = c->ent;
	ev->source_inst = 0;
	ev->target = ent;
	ev->target_inst = inst;
	ev->type = TK_ET_I;
	ev->kind = kind;
	ev->type_name = TK_NONE;
	ev->name = a->kind_names[kind];
	ev->core = c->ent;
	ev->pos = line;
	/* the exception's core: the first it is taken on (tk_entity.parent) */
	if (tk_trace_ent(a->t, ent)->parent == TK_NONE)
		tk_trace_ent(a->t, ent)->parent = c->ent;
	return TK_OK;
}

/* The core of CPU index `cpu` (0: no CPU prefix), made at its first record. */
static int core_of(tk_tarmac_exceptions *a, uint32_t cpu, core **out, tk_error *err)
{
	core *c;

	/* geometric growth (a log may name a new CPU on every line); the new
	 * slots zeroed: no core yet */
	if (tk_grow_zero((void **)&a->cores, &a->ncores, cpu,
			 sizeof(*a->cores)) < 0)
		return tk_err_nomem(err, a->tr->name);
	c = a->cores[cpu];
	if (!c) {
		/* only the CPUs met get a core */
		const char *name = cpu ? tk_tarmac_cpu_name(a->tr, cpu - 1) : "Core_0";
		c = calloc(1, sizeof(*c));
		if (!c)
			return tk_err_nomem(err, a->tr->name);
		c->ent = tk_trace_entity_intern(a->t, name, strlen(name));
		if (c->ent == TK_NONE) {
			free(c);
			return tk_err_nomem(err, a->tr->name);
		}
		tk_trace_ent(a->t, c->ent)->type = TK_ET_C;
		a->cores[cpu] = c;
	}
	*out = c;
	return TK_OK;
}

static int isr_entity(tk_tarmac_exceptions *a, const char *name, size_t n,
		      uint32_t *ent, int64_t *inst, tk_error *err)
{
	uint32_t e = tk_trace_entity_intern(a->t, name, n);

	if (e == TK_NONE)
		return tk_err_nomem(err, a->tr->name);
	tk_trace_ent(a->t, e)->type = TK_ET_I;
	if (tk_grow_zero32((void **)&a->inst, &a->ninst, e,
			   sizeof(*a->inst)) < 0)
		return tk_err_nomem(err, a->tr->name);
	*ent = e;
	*inst = ++a->inst[e];
	return TK_OK;
}

/* Exception entry: the running handler is preempted, the new one starts. */
static int enter(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
		 uint64_t time, const char *name, size_t n, int num,
		 tk_error *err)
{
	uint32_t ent;
	int64_t inst;
	frame *f;
	int rc;

	if (num < 0)
		num = number_of_name(name, n);
	if (tk_ascii_casecmp(name, n, "Reset") == 0) {
		/* a reset ends nothing and never returns: a mark of no length */
		ent = tk_trace_entity_find(a->t, name, n);
		if (c->has_reset && c->last_reset_time == time && ent == c->last_reset_ent)
			return TK_OK;  /* "ES Reset" + "EXC Reset", E + EXC */
		if ((rc = isr_entity(a, name, n, &ent, &inst, err)) < 0)
			return rc;
		c->depth = 0;
		c->has_reset = 1;
		c->last_reset_time = time;
		c->last_reset_ent = ent;
		if ((rc = push_event(a, c, time, rec->line, ent, inst, TK_EV_ACTIVATE, err)) < 0 ||
		    (rc = push_event(a, c, time, rec->line, ent, inst, TK_EV_START, err)) < 0)
			return rc;
		return push_event(a, c, time, rec->line, ent, inst, TK_EV_TERMINATE, err);
	}
	if (c->depth) {
		f = &c->stack[c->depth - 1];
		ent = tk_trace_entity_find(a->t, name, n);
		if (ent == f->ent && f->time == time)
			return TK_OK;  /* the same entry told twice */
	}
	if (c->depth == MAX_DEPTH) {
		tl_warn(a, 9, rec->line, 1,
			       "exceptions nested deeper than %d: entry ignored",
			       MAX_DEPTH);
		return TK_OK;
	}
	if (c->depth == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 4;
		frame *ns;
		if (ncap > MAX_DEPTH)
			ncap = MAX_DEPTH;
		ns = tk_xrealloc_array(c->stack, (size_t)ncap, sizeof(*ns));
		if (!ns)
			return tk_err_nomem(err, a->tr->name);
		c->stack = ns;
		c->cap = ncap;
	}
	if ((rc = isr_entity(a, name, n, &ent, &inst, err)) < 0)
		return rc;
	if (c->depth) {
		f = &c->stack[c->depth - 1];
		if ((rc = push_event(a, c, time, rec->line, f->ent, f->inst,
				     TK_EV_PREEMPT, err)) < 0)
			return rc;
	}
	f = &c->stack[c->depth++];
	f->ent = ent;
	f->inst = inst;
	f->num = num;
	f->time = time;
	if ((rc = push_event(a, c, time, rec->line, ent, inst, TK_EV_ACTIVATE, err)) < 0)
		return rc;
	return push_event(a, c, time, rec->line, ent, inst, TK_EV_START, err);
}

/* Exception return: the running handler ends, the one below resumes. */
static int leave(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
		 uint64_t time, tk_error *err)
{
	frame *f;
	int rc;

	if (!c->depth)
		return TK_OK;
	f = &c->stack[--c->depth];
	rc = push_event(a, c, time, rec->line, f->ent, f->inst, TK_EV_TERMINATE, err);
	if (rc < 0 || !c->depth)
		return rc;
	f = &c->stack[c->depth - 1];
	return push_event(a, c, time, rec->line, f->ent, f->inst, TK_EV_RESUME, err);
}

static int enter_number(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
			uint64_t time, int num, tk_error *err)
{
	char buf[32];
	size_t n = name_of_number(num, buf, sizeof(buf));

	return enter(a, c, rec, time, buf, n, num, err);
}

/* An E / EXC / ES record: is it an exception entry, and of what? */
static int on_event(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
		    uint64_t time, tk_error *err)
{
	static const struct { const char *fm, *name; } fm_names[] = {
		{ "RESET", "Reset" }, { "HARDFAULT", "HardFault" }, { "NMI", "NMI" },
		{ "MEMMANAGE", "MemManage" }, { "BUSFAULT", "BusFault" },
		{ "USAGEFAULT", "UsageFault" }, { "SECUREFAULT", "SecureFault" },
		{ "SVCALL", "SVCall" }, { "DEBUGMONITOR", "DebugMonitor" },
		{ "PENDSV", "PendSV" }, { "SYSTICK", "SysTick" },
		{ "handleDataAbort", "DataAbort" },
		{ "handlePrefetchAbort", "PrefetchAbort" },
	};
	const char *p = rec->name.ptr;
	size_t n = rec->name.len, i;
	char buf[96];

	if (!n)
		return TK_OK;
	if (rec->kind_text.len == 3 && memcmp(rec->kind_text.ptr, "EXC", 3) == 0) {
		/* "EXC [n] Synchronous Current EL with SP_ELx": blanks to '_' */
		if (rec->exception_number >= 0 && a->mprofile &&
		    number_of_name(p, n) < 0)
			return enter_number(a, c, rec, time, rec->exception_number, err);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		for (i = 0; i < n; i++)
			buf[i] = (p[i] == ' ' || p[i] == '\t' || p[i] == ',') ? '_' : p[i];
		return enter(a, c, rec, time, buf, n,
			     a->mprofile ? rec->exception_number : -1, err);
	}
	if (rec->kind_text.len == 2 && memcmp(rec->kind_text.ptr, "ES", 2) == 0) {
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		for (i = 0; i < n; i++)
			buf[i] = (p[i] == ' ' || p[i] == '\t' || p[i] == ',') ? '_' : p[i];
		return enter(a, c, rec, time, buf, n, -1, err);
	}
	if (!(rec->kind_text.len == 1 && rec->kind_text.ptr[0] == 'E'))
		return TK_OK;   /* CADI E, SIGNAL:, INFO_EXCEPTION_REASON: */
	if (n > 10 && memcmp(p, "CoreEvent_", 10) == 0) {
		p += 10;
		n -= 10;
		if (tk_ascii_casecmp(p, n, "ModeChange") == 0)
			return TK_OK;
		for (i = 0; i < sizeof(fm_names) / sizeof(fm_names[0]); i++)
			if (tk_ascii_casecmp(p, n, fm_names[i].fm) == 0)
				return enter(a, c, rec, time, fm_names[i].name,
					     strlen(fm_names[i].name), -1, err);
		return enter(a, c, rec, time, p, n, -1, err);
	}
	if (rec->exception_number >= 0)   /* INT_TAKEN n */
		return enter_number(a, c, rec, time, rec->exception_number, err);
	if (number_of_name(p, n) >= 0)
		return enter(a, c, rec, time, p, n, -1, err);
	return TK_OK;   /* HRESETn, LOCKUP, DebugEvent_... are not exceptions */
}

int tarmac_event_class(const tk_tarmac_record *rec)
{
	const char *p = rec->name.ptr;
	size_t n = rec->name.len;
	int k;

	if (rec->kind != TK_TARMAC_EVENT || !n)
		return TARMAC_EV_NONE;
	if ((rec->kind_text.len == 3 && memcmp(rec->kind_text.ptr, "EXC", 3) == 0) ||
	    (rec->kind_text.len == 2 && memcmp(rec->kind_text.ptr, "ES", 2) == 0))
		return tk_ascii_casecmp(p, n, "Reset") == 0 ? TARMAC_EV_RESET
							    : TARMAC_EV_ENTRY;
	if (!(rec->kind_text.len == 1 && rec->kind_text.ptr[0] == 'E'))
		return TARMAC_EV_NONE;
	if (n > 10 && memcmp(p, "CoreEvent_", 10) == 0) {
		if (tk_ascii_casecmp(p + 10, n - 10, "ModeChange") == 0)
			return TARMAC_EV_NONE;
		return tk_ascii_casecmp(p + 10, n - 10, "RESET") == 0
			       ? TARMAC_EV_RESET : TARMAC_EV_ENTRY;
	}
	if (rec->exception_number >= 0)
		return TARMAC_EV_ENTRY;
	k = number_of_name(p, n);
	if (k == 1)
		return TARMAC_EV_RESET;
	return k >= 0 ? TARMAC_EV_ENTRY : TARMAC_EV_NONE;
}

int tarmac_reg_class(const tk_tarmac_span *r)
{
	/* every register record comes here twice (timeline, profile): the
	 * length and first letter reject nearly all names before a compare */
	switch (r->len) {
	case 2:
		return span_is(r, "lr") ? TARMAC_REG_LR : TARMAC_REG_OTHER;
	case 3:
		switch (r->ptr[0] | 0x20) {
		case 'r':
			return r->ptr[1] == '1' && r->ptr[2] == '4' ? TARMAC_REG_LR
								    : TARMAC_REG_OTHER;
		case 'p':
			if (span_is(r, "psr"))
				return TARMAC_REG_PSR;
			return span_is(r, "PSP") ? TARMAC_REG_STACK : TARMAC_REG_OTHER;
		case 'm':
			return span_is(r, "MSP") ? TARMAC_REG_STACK : TARMAC_REG_OTHER;
		default:
			return TARMAC_REG_OTHER;
		}
	case 4:
		switch (r->ptr[0] | 0x20) {
		case 'x':
			return span_is(r, "xpsr") ? TARMAC_REG_PSR : TARMAC_REG_OTHER;
		case 'i':
			return span_is(r, "ipsr") ? TARMAC_REG_PSR : TARMAC_REG_OTHER;
		case 'c':
			return span_is(r, "cpsr") ? TARMAC_REG_CPSR : TARMAC_REG_OTHER;
		default:
			return TARMAC_REG_OTHER;
		}
	case 5:
	case 6:
		switch (r->ptr[0] | 0x20) {
		case 'm':
			return span_is(r, "MSP_S") || span_is(r, "MSP_NS")
				       ? TARMAC_REG_STACK : TARMAC_REG_OTHER;
		case 'p':
			return span_is(r, "PSP_S") || span_is(r, "PSP_NS")
				       ? TARMAC_REG_STACK : TARMAC_REG_OTHER;
		default:
			return TARMAC_REG_OTHER;
		}
	default:
		if (r->len >= 8 && memcmp(r->ptr, "r13_main", 8) == 0)
			return TARMAC_REG_STACK;
		return TARMAC_REG_OTHER;
	}
}

static int on_register(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
		       uint64_t time, tk_error *err)
{
	int cls = tarmac_reg_class(&rec->reg);
	int ipsr, k, rc;

	if (cls == TARMAC_REG_OTHER)
		return TK_OK;
	if (!a->mprofile) {
		if (cls == TARMAC_REG_STACK || cls == TARMAC_REG_PSR)
			a->mprofile = 1;
		else
			return TK_OK;
	}
	if (cls == TARMAC_REG_LR) {
		c->lr = rec->reg_value;
		c->lr_known = rec->value_known;
		return TK_OK;
	}
	if (cls == TARMAC_REG_STACK || !rec->value_known)
		return TK_OK;
	/* Fast Models name the M-profile xPSR "cpsr"; an A-profile CPSR has
	 * no T bit at 24 where every valid xPSR has it */
	if (cls == TARMAC_REG_CPSR && !(rec->reg_value & (1u << 24)))
		return TK_OK;
	ipsr = (int)(rec->reg_value & 0x1ff);
	if (ipsr == 0) {
		while (c->depth)
			if ((rc = leave(a, c, rec, time, err)) < 0)
				return rc;
		return TK_OK;
	}
	if (c->depth && c->stack[c->depth - 1].num == ipsr)
		return TK_OK;
	for (k = c->depth - 1; k >= 0; k--)
		if (c->stack[k].num == ipsr)
			break;
	if (k >= 0) {
		while (c->depth > k + 1)
			if ((rc = leave(a, c, rec, time, err)) < 0)
				return rc;
		return TK_OK;
	}
	if (ipsr == 1)
		return TK_OK;   /* the reset handler runs in thread mode */
	return enter_number(a, c, rec, time, ipsr, err);
}

int tarmac_pc_loaded(const tk_tarmac_record *rec)
{
	const char *d = rec->disasm.ptr, *m = rec->mnemonic.ptr;
	size_t n = rec->disasm.len, ml = rec->mnemonic.len, i;

	if (ml < 3 || ((m[0] | 0x20) != 'p' && (m[0] | 0x20) != 'l'))
		return 0;
	if (ml >= 3 && (tk_ascii_ncaseeq(m, "POP", 3) || tk_ascii_ncaseeq(m, "LDM", 3))) {
		for (i = 0; i + 3 <= n; i++)
			if (tk_ascii_ncaseeq(d + i, "pc}", 3))
				return 1;
		return 0;
	}
	if (ml >= 3 && tk_ascii_ncaseeq(m, "LDR", 3)) {
		const char *o = d + ml;
		while (o < d + n && (*o == ' ' || *o == '\t'))
			o++;
		return d + n - o >= 3 && tk_ascii_ncaseeq(o, "pc,", 3);
	}
	return 0;
}

static int on_instruction(tk_tarmac_exceptions *a, core *c, const tk_tarmac_record *rec,
			  uint64_t time, tk_error *err)
{
	const tk_tarmac_span *m = &rec->mnemonic;

	c->pop_pending = 0;
	if (!a->mprofile && rec->mode.len >= 6 &&
	    ((rec->mode.ptr[0] | 0x20) == 't' || (rec->mode.ptr[0] | 0x20) == 'h')) {
		if (span_is(&rec->mode, "thread") || span_is(&rec->mode, "handler") ||
		    span_is(&rec->mode, "thread_s") || span_is(&rec->mode, "handler_s") ||
		    span_is(&rec->mode, "thrd_s") || span_is(&rec->mode, "hndl_s"))
			a->mprofile = 1;
	}
	if (!rec->executed)
		return TK_OK;
	if (!a->mprofile) {
		if (m->len == 4 && (m->ptr[0] | 0x20) == 'e' && span_is(m, "ERET"))
			return leave(a, c, rec, time, err);
		return TK_OK;
	}
	if (m->len == 2 && span_is(m, "BX") && c->lr_known && c->lr >= 0xF0000000u) {
		const char *o = m->ptr + m->len, *e = rec->disasm.ptr + rec->disasm.len;
		while (o < e && (*o == ' ' || *o == '\t'))
			o++;
		if ((e - o >= 2 && tk_ascii_ncaseeq(o, "lr", 2)) ||
		    (e - o >= 3 && tk_ascii_ncaseeq(o, "r14", 3)))
			return leave(a, c, rec, time, err);
	}
	c->pop_pending = tarmac_pc_loaded(rec);
	return TK_OK;
}

/* Turn one record into zero or more queued events. */
static int derive(tk_tarmac_exceptions *a, const tk_tarmac_record *rec, tk_error *err)
{
	uint64_t time = 0;
	core *c = NULL;
	int rc;

	if (rec->kind == TK_TARMAC_OTHER || rec->kind == TK_TARMAC_BUS)
		return TK_OK;
	/* most register writes mean nothing here: done when the time needs
	 * no conversion and the core exists (what the full path would do) */
	if (rec->kind == TK_TARMAC_REGISTER &&
	    (rec->unit == TK_TARMAC_UNIT_NONE || rec->unit == a->base_unit) &&
	    rec->cpu < a->ncores && a->cores[rec->cpu] &&
	    tarmac_reg_class(&rec->reg) == TARMAC_REG_OTHER)
		return TK_OK;
	if ((rc = convert_time(a, rec, &time, err)) < 0 ||
	    (rc = core_of(a, rec->cpu, &c, err)) < 0)
		return rc;
	switch (rec->kind) {
	case TK_TARMAC_EVENT:
		return on_event(a, c, rec, time, err);
	case TK_TARMAC_REGISTER:
		return on_register(a, c, rec, time, err);
	case TK_TARMAC_INSTRUCTION:
		if (!a->mprofile && rec->kind_text.len == 2 &&
		    rec->kind_text.ptr[0] == 'I' &&
		    (rec->iset == 'T' || rec->iset == 0) && rec->mode.len == 0)
			a->mprofile = 1;   /* T16 / T32 / Cortex-M0 lines */
		return on_instruction(a, c, rec, time, err);
	case TK_TARMAC_MEMORY:
		if (a->mprofile && c->pop_pending && !rec->write &&
		    rec->data_known && rec->data_value >= 0xFFFFFF00u) {
			c->pop_pending = 0;
			return leave(a, c, rec, time, err);
		}
		return TK_OK;
	case TK_TARMAC_BRANCH:
		if (a->mprofile && rec->address >= 0xF0000000u &&
		    rec->address <= 0xFFFFFFFFu)
			return leave(a, c, rec, time, err);
		return TK_OK;
	default:
		return TK_OK;
	}
}

/* ---- the time base ---------------------------------------------------------- */

int tarmac_si_timebase(tk_tarmac_unit u, tk_timebase *tb)
{
	static const tk_unit si[] = {
		[TK_TARMAC_UNIT_PS] = TK_UNIT_PS, [TK_TARMAC_UNIT_NS] = TK_UNIT_NS,
		[TK_TARMAC_UNIT_US] = TK_UNIT_US, [TK_TARMAC_UNIT_MS] = TK_UNIT_MS,
		[TK_TARMAC_UNIT_S] = TK_UNIT_S,
	};

	tb->num = tb->den = 1;
	tb->unit = TK_UNIT_NS;
	if (u < TK_TARMAC_UNIT_FS || u > TK_TARMAC_UNIT_S)
		return 0;
	tb->unit = u == TK_TARMAC_UNIT_FS ? TK_UNIT_PS : si[u];
	tb->den = u == TK_TARMAC_UNIT_FS ? 1000 : 1;
	return 1;
}

static void set_timebase(tk_tarmac_exceptions *a, tk_tarmac_unit u)
{
	const char *name = tk_tarmac_unit_name(u);
	tk_timebase tb = *tk_trace_timebase(a->t);

	a->base_unit = u;
	/* cycles have no SI length: one cycle is written as 1 ns */
	a->base_si = tarmac_si_timebase(u, &tb);
	tk_trace_set_timebase(a->t, &tb);
	tk_trace_header_push(a->t, TK_HDR_PARAM, "tarmacTimeUnit", 14, name,
			    strlen(name), 1);
}

/* ---- the timeline ------------------------------------------------------------- */

static int tarmac_exceptions_init(tk_tarmac_exceptions *a, const tk_tarmac *tr,
				  tk_trace *t, tk_reader *r,
				  const tk_tarmac_opts *opts, tk_error *err)
{
	int k;

	a->tr = tr;
	a->t = t;
	a->r = r;
	if (opts) {
		a->strict = opts->strict;
		a->on_warning = opts->on_warning;
		a->warning_ctx = opts->warning_ctx;
	}
	a->base_unit = TK_TARMAC_UNIT_NONE;
	for (k = 0; k < TK_EV_COUNT; k++) {
		const char *s = tk_evkind_name((tk_evkind)k);
		a->kind_names[k] = k ? tk_strpool_intern(&a->t->pool, s, strlen(s))
				     : TK_NONE;
		if (k && a->kind_names[k] == TK_NONE)
			return tk_err_nomem(err, tr->name);
	}
	return TK_OK;
}

static void tarmac_exceptions_fini(tk_tarmac_exceptions *a)
{
	size_t i;

	for (i = 0; i < a->ncores; i++)
		if (a->cores[i]) {
			free(a->cores[i]->stack);
			free(a->cores[i]);
		}
	free(a->cores);
	free(a->q);
	free(a->inst);
	if (a->owns_trace)
		tk_trace_free(a->t);
}

int tk_tarmac_exceptions_new(tk_tarmac_exceptions **out, const tk_tarmac *tr,
			     const tk_tarmac_opts *opts, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_tarmac_exceptions_new", "out pointer");
	tk_tarmac_exceptions *a;
	tk_tarmac_opts o;
	int rc;

	*out = NULL;
	if ((rc = tarmac_opts_take(&o, opts, err)) < 0)
		return rc;
	opts = &o;
	a = calloc(1, sizeof(*a));
	if (!a)
		return tk_err_nomem(err, tr->name);
	a->t = tk_trace_alloc("tarmac");
	if (!a->t) {
		free(a);
		return tk_err_nomem(err, tr->name);
	}
	a->owns_trace = 1;
	if ((rc = tarmac_exceptions_init(a, tr, a->t, NULL, opts, err)) < 0) {
		tk_tarmac_exceptions_free(a);
		return rc;
	}
	*out = a;
	return TK_OK;
}

int tk_tarmac_exceptions_record(tk_tarmac_exceptions *a, const tk_tarmac_record *rec,
				tk_error *err)
{
	if (!a || !rec)
		return tk_err_null(err, "tk_tarmac_exceptions_record", !a ? "object" : "record");
	int rc;

	if (a->finished)
		return tk_err_set(err, TK_E_USAGE, a->tr->name, 0, 0,
				  "tk_tarmac_exceptions_record: a record after tk_tarmac_exceptions_finish (not taken)");
	/* the time base is the first stamp's unit */
	if (!a->has_base && rec->unit != TK_TARMAC_UNIT_NONE) {
		set_timebase(a, rec->unit);
		a->has_base = 1;
	}
	if ((rc = derive(a, rec, err)) < 0)
		return rc;
	return a->qlen > INT_MAX ? INT_MAX : (int)a->qlen;
}

int tk_tarmac_exceptions_next(tk_tarmac_exceptions *a, const tk_event **ev)
{
	if (!a->qlen)
		return TK_END;
	a->ev = a->q[a->qhead++];
	a->qlen--;
	if (!a->qlen)
		a->qhead = 0;
	*ev = &a->ev;
	return TK_OK;
}

/*
 * Exceptions entered and not returned from by the end of the log stay open:
 * no terminate is made up (its time is not in the log), as for an instance
 * of any trace cut at its end; the analyses count complete instances, and
 * `tracekit stats` lists the open ones.  One warning says so.
 */
void tk_tarmac_exceptions_finish(tk_tarmac_exceptions *a)
{
	size_t i, n = 0;

	if (a->finished)
		return;
	a->finished = 1;
	if (!a->has_base) {
		set_timebase(a, TK_TARMAC_UNIT_NS);
		a->has_base = 1;
	}
	for (i = 0; i < a->ncores; i++)
		if (a->cores[i])
			n += (size_t)a->cores[i]->depth;
	if (n)
		tl_warn(a, 10, a->tr->line, 0,
			"%zu exception%s still active at the end of the log: left open (no terminate)",
			n, n == 1 ? "" : "s");
}

const tk_trace *tk_tarmac_exceptions_trace(const tk_tarmac_exceptions *a)
{
	return a->t;
}

uint64_t tk_tarmac_exceptions_warning_count(const tk_tarmac_exceptions *a)
{
	return a->r ? tk_reader_warning_count(a->r) : a->nwarn;
}

void tk_tarmac_exceptions_free(tk_tarmac_exceptions *a)
{
	if (!a)
		return;
	tarmac_exceptions_fini(a);
	free(a);
}

/* ---- the reader ------------------------------------------------------------------ */

static void tarmac_reader_close(tk_reader *r)
{
	tarmac_reader *a = r->impl;

	if (!a)
		return;
	tarmac_fini(&a->tr);
	tarmac_exceptions_fini(&a->tl);
	free(a);
	r->impl = NULL;
}

static int tarmac_reader_open(tk_reader *r, tk_error *err)
{
	tarmac_reader *a = calloc(1, sizeof(*a));
	tk_tarmac_opts o;
	tk_tarmac_record rec;
	int rc;

	if (!a)
		return tk_err_nomem(err, tk_source_name(r->src));
	r->impl = a;
	tk_tarmac_opts_init(&o);
	o.strict = r->opts.strict;
	if ((rc = tarmac_init(&a->tr, r->src, 0, &o, r, err)) < 0)
		goto fail;
	if ((rc = tarmac_exceptions_init(&a->tl, &a->tr, r->trace, r, &o, err)) < 0)
		goto fail;
	/* the time base (a header of the trace) is the first stamp's unit:
	 * read up to it */
	while (!a->tl.has_base) {
		rc = tk_tarmac_next(&a->tr, &rec, err);
		if (rc == TK_END) {
			a->at_end = 1;
			tk_tarmac_exceptions_finish(&a->tl);
			break;
		}
		if (rc < 0 || (rc = tk_tarmac_exceptions_record(&a->tl, &rec, err)) < 0)
			goto fail;
		rc = TK_OK;
	}
	return TK_OK;
fail:
	tarmac_reader_close(r);
	return rc;
}

static int tarmac_reader_next(tk_reader *r, const tk_event **ev, tk_error *err)
{
	tarmac_reader *a = r->impl;
	tk_tarmac_record rec;
	const tk_event *e;
	int rc;

	while (tk_tarmac_exceptions_next(&a->tl, &e) != TK_OK) {
		if (a->at_end)
			return TK_END;
		rc = tk_tarmac_next(&a->tr, &rec, err);
		if (rc == TK_END) {
			a->at_end = 1;
			tk_tarmac_exceptions_finish(&a->tl);
			return TK_END;
		}
		if (rc < 0)
			return rc;
		if ((rc = tk_tarmac_exceptions_record(&a->tl, &rec, err)) < 0)
			return rc;
	}
	r->ev = *e;
	*ev = &r->ev;
	return TK_OK;
}

const tk_format_ops tk_format_tarmac = {
	.info = { "tarmac", "tarmac", "Arm Tarmac CPU log (exceptions as ISR events)",
		  TK_CAP_READ },
	.probe = tarmac_probe,
	.sign = tarmac_sign,
	.reader_open = tarmac_reader_open,
	.reader_next = tarmac_reader_next,
	.reader_close = tarmac_reader_close,
};
