/*
 * chain.c - cause-effect chains S0, S1, ..., Sn from signal accesses, in
 * one pass (docs/analysis.md, "Cause-effect chains").
 *
 * A value's origin is the write of S0 (the cause) its links lead back to,
 * or none.  Per chain: the origin of the latest write of each of S0 ..
 * S(n-1), and per process instance (the source entity and instance of the
 * SIG read/write events) the origin of the write its latest read of each
 * of S0 .. S(n-1) saw: one entry per signal per process instance, dropped
 * when the instance terminates.  A write of S(i+1) takes the origin its
 * instance read from S(i); a write of Sn with an origin is an effect:
 * its age is its time minus the cause's, and the first effect of a cause
 * gives the cause's reaction.  The causes are counted in records that live
 * while an origin refers to them (a reference count), so memory follows
 * the values in flight, never the trace.  Each event costs a few lookups.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

/* a cause (a write of S0) while an origin refers to it */
typedef struct cause {
	uint64_t time;
	int64_t inst;      /* the writer's instance */
	uint32_t refs;
	uint32_t reacted;
} cause;

typedef struct chain {
	char *name;        /* NAME, then the signals' names, NUL-separated */
	size_t nlen;
	const char **sig;  /* S0 .. Sn (into name) */
	size_t *slen;
	uint32_t *sig_id;  /* their entity ids, TK_NONE until seen */
	uint32_t nsig;     /* n + 1 */
	uint64_t *last;    /* origin of the latest write of S0 .. S(n-1); 0: none */
	tk_imap procs;     /* (source, instance) -> origins seen, S0 .. S(n-1) */
	tk_imap causes;    /* (0, cause number) -> cause */
	uint64_t ncauses, nreacted;
} chain;

/* class of an entity id, by bits */
enum { C_SEEN = 1, C_SIG = 2, C_READER = 4 };

struct tk_chains {
	const tk_trace *t;
	chain *c;
	uint32_t n;
	uint8_t *cls;       /* per entity id: C_* */
	uint32_t ncls;
	tk_chain_value_fn fn;
	void *ctx;
};

tk_chains *tk_chains_new(const tk_trace *t, tk_chain_value_fn fn, void *ctx)
{
	tk_chains *cs = calloc(1, sizeof(*cs));

	if (cs) {
		cs->t = t;
		cs->fn = fn;
		cs->ctx = ctx;
	}
	return cs;
}

int tk_chains_add(tk_chains *cs, const char *name, size_t nlen,
		  const char *const *sig, const size_t *slen, size_t nsig)
{
	chain *c, *nc;
	size_t i, j, total = nlen + 1;
	char *p;

	if (nsig < 2 || nsig > UINT32_MAX / 8 || !nlen)
		return TK_E_USAGE;
	for (i = 0; i < nsig; i++) {
		if (!slen[i])
			return TK_E_USAGE;
		for (j = 0; j < i; j++)
			if (slen[i] == slen[j] && !memcmp(sig[i], sig[j], slen[i]))
				return TK_E_USAGE; /* a signal twice */
		total += slen[i] + 1;
	}
	for (i = 0; i < cs->n; i++)
		if (cs->c[i].nlen == nlen && !memcmp(cs->c[i].name, name, nlen))
			return TK_E_USAGE; /* a name twice */
	nc = realloc(cs->c, (cs->n + 1) * sizeof(*nc));
	if (!nc)
		return TK_E_NOMEM;
	cs->c = nc;
	c = &nc[cs->n];
	memset(c, 0, sizeof(*c));
	c->name = malloc(total);
	c->sig = calloc(nsig, sizeof(*c->sig));
	c->slen = calloc(nsig, sizeof(*c->slen));
	c->sig_id = calloc(nsig, sizeof(*c->sig_id));
	c->last = calloc(nsig, sizeof(*c->last));
	if (!c->name || !c->sig || !c->slen || !c->sig_id || !c->last) {
		free(c->name);
		free(c->sig);
		free(c->slen);
		free(c->sig_id);
		free(c->last);
		return TK_E_NOMEM;
	}
	memcpy(c->name, name, nlen);
	c->name[nlen] = '\0';
	c->nlen = nlen;
	p = c->name + nlen + 1;
	for (i = 0; i < nsig; i++) {
		memcpy(p, sig[i], slen[i]);
		p[slen[i]] = '\0';
		c->sig[i] = p;
		c->slen[i] = slen[i];
		c->sig_id[i] = TK_NONE;
		p += slen[i] + 1;
	}
	c->nsig = (uint32_t)nsig;
	tk_imap_init(&c->procs, (nsig - 1) * sizeof(uint64_t));
	tk_imap_init(&c->causes, sizeof(cause));
	cs->n++;
	return TK_OK;
}

uint32_t tk_chains_count(const tk_chains *cs)
{
	return cs ? cs->n : 0;
}

const char *tk_chains_name(const tk_chains *cs, uint32_t i, size_t *len)
{
	if (!cs || i >= cs->n)
		return NULL;
	if (len)
		*len = cs->c[i].nlen;
	return cs->c[i].name;
}

uint64_t tk_chains_lost(const tk_chains *cs, uint32_t i)
{
	return cs && i < cs->n ? cs->c[i].ncauses - cs->c[i].nreacted : 0;
}

static void hold(chain *c, uint64_t id)
{
	cause *k;

	if (id && (k = tk_imap_get(&c->causes, 0, (int64_t)id)))
		k->refs++;
}

static void drop(chain *c, uint64_t id)
{
	cause *k;

	if (id && (k = tk_imap_get(&c->causes, 0, (int64_t)id)) && !--k->refs)
		tk_imap_del(&c->causes, 0, (int64_t)id);
}

/* *slot = id, the references counted */
static void set_origin(chain *c, uint64_t *slot, uint64_t id)
{
	uint64_t old = *slot;

	hold(c, id);
	*slot = id;
	drop(c, old);
}

/* the class of entity id, its name compared with the chains' signals at
 * its first access */
static int classify(tk_chains *cs, uint32_t id, uint8_t *out)
{
	const tk_entity *e;
	const char *nm;
	size_t len, i, j;
	uint8_t k = C_SEEN;

	if (tk_grow_zero32((void **)&cs->cls, &cs->ncls, id, 1) < 0)
		return TK_E_NOMEM;
	if (cs->cls[id] & C_SEEN) {
		*out = cs->cls[id];
		return TK_OK;
	}
	e = tk_trace_entity(cs->t, id);
	nm = e ? tk_trace_str(cs->t, e->name, &len) : NULL;
	for (i = 0; nm && i < cs->n; i++)
		for (j = 0; j < cs->c[i].nsig; j++)
			if (cs->c[i].slen[j] == len &&
			    !memcmp(cs->c[i].sig[j], nm, len)) {
				cs->c[i].sig_id[j] = id;
				k |= C_SIG;
			}
	cs->cls[id] |= k;
	*out = cs->cls[id];
	return TK_OK;
}

static int on_access(tk_chains *cs, chain *c, uint32_t pos, const tk_event *ev)
{
	uint32_t n = c->nsig - 1;
	uint64_t *seen, origin = 0;
	cause *k;
	int created;

	if (ev->kind == TK_EV_READ) {
		if (pos == n)
			return TK_OK;
		if (ev->source != TK_NONE &&
		    tk_grow_zero32((void **)&cs->cls, &cs->ncls, ev->source, 1) < 0)
			return TK_E_NOMEM;
		seen = tk_imap_put(&c->procs, ev->source, ev->source_inst, &created);
		if (!seen)
			return TK_E_NOMEM;
		if (ev->source != TK_NONE)
			cs->cls[ev->source] |= C_READER;
		set_origin(c, &seen[pos], c->last[pos]);
		return TK_OK;
	}
	if (pos == 0) {
		/* a cause */
		origin = ++c->ncauses;
		k = tk_imap_put(&c->causes, 0, (int64_t)origin, &created);
		if (!k)
			return TK_E_NOMEM;
		k->time = ev->time;
		k->inst = ev->source_inst;
	} else {
		seen = tk_imap_get(&c->procs, ev->source, ev->source_inst);
		if (seen)
			origin = seen[pos - 1];
	}
	if (pos < n) {
		set_origin(c, &c->last[pos], origin);
		return TK_OK;
	}
	/* an effect */
	k = origin ? tk_imap_get(&c->causes, 0, (int64_t)origin) : NULL;
	if (!k)
		return TK_OK;
	if (!k->reacted) {
		k->reacted = 1;
		c->nreacted++;
		if (ev->time >= k->time && cs->fn)
			cs->fn(cs->ctx, (uint32_t)(c - cs->c), 0, ev->time - k->time,
			       k->inst, k->time);
	}
	if (ev->time >= k->time && cs->fn)
		cs->fn(cs->ctx, (uint32_t)(c - cs->c), 1, ev->time - k->time,
		       ev->source_inst, ev->time);
	return TK_OK;
}

/* the instance's entries dropped when it terminates */
static void terminate(tk_chains *cs, const tk_event *ev)
{
	uint32_t i, j;

	for (i = 0; i < cs->n; i++) {
		chain *c = &cs->c[i];
		uint64_t *seen = tk_imap_get(&c->procs, ev->target, ev->target_inst);
		if (!seen)
			continue;
		for (j = 0; j + 1 < c->nsig; j++)
			drop(c, seen[j]);
		tk_imap_del(&c->procs, ev->target, ev->target_inst);
	}
}

int tk_chains_event(tk_chains *cs, const tk_event *ev)
{
	uint32_t i, j;
	uint8_t k;
	int rc;

	if (!cs || !cs->n)
		return TK_OK;
	if (ev->kind == TK_EV_TERMINATE) {
		if (ev->target < cs->ncls && (cs->cls[ev->target] & C_READER))
			terminate(cs, ev);
		return TK_OK;
	}
	if (ev->type != TK_ET_SIG ||
	    (ev->kind != TK_EV_READ && ev->kind != TK_EV_WRITE))
		return TK_OK;
	if ((rc = classify(cs, ev->target, &k)) < 0)
		return rc;
	if (!(k & C_SIG))
		return TK_OK;
	for (i = 0; i < cs->n; i++)
		for (j = 0; j < cs->c[i].nsig; j++)
			if (cs->c[i].sig_id[j] == ev->target) {
				if ((rc = on_access(cs, &cs->c[i], j, ev)) < 0)
					return rc;
				break;
			}
	return TK_OK;
}

int tk_chains_restart(tk_chains *cs)
{
	uint32_t i;

	for (i = 0; cs && i < cs->n; i++) {
		chain *c = &cs->c[i];
		tk_imap_free(&c->procs);
		tk_imap_free(&c->causes);
		tk_imap_init(&c->procs, (c->nsig - 1) * sizeof(uint64_t));
		tk_imap_init(&c->causes, sizeof(cause));
		memset(c->last, 0, c->nsig * sizeof(*c->last));
	}
	return TK_OK;
}

void tk_chains_free(tk_chains *cs)
{
	uint32_t i;

	if (!cs)
		return;
	for (i = 0; i < cs->n; i++) {
		chain *c = &cs->c[i];
		free(c->name);
		free(c->sig);
		free(c->slen);
		free(c->sig_id);
		free(c->last);
		tk_imap_free(&c->procs);
		tk_imap_free(&c->causes);
	}
	free(cs->c);
	free(cs->cls);
	free(cs);
}
