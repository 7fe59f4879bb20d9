/* htf_tables.c - the HTF reader's reference tables read into types,
 * entities and their events' descriptors (htf_reader.h). */
#include "htf_reader.h"

static int row_err(htf_reader *h, tk_error *err, int code, const row *rw,
		   const char *fmt, ...) TK_PRINTF(5, 6);

static int row_err(htf_reader *h, tk_error *err, int code, const row *rw,
		   const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_err_set(err, code, h->name, rw->line, rw->col, "%s", msg);
}

/* row v of a table's value is the key (k, n), ignoring case */
typedef struct row_ctx {
	const tk_trace *t;
	const table *tb;
} row_ctx;

static int row_value_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const row_ctx *rc = ctx;
	size_t tn;
	const char *ts = tk_trace_str(rc->t, rc->tb->rows[v].value, &tn);

	return tn == n && tk_ascii_ncaseeq(ts, k, n);
}

/* Strict mode: an error for an #<X>EventTable whose X is no type of the
 * #TypeTable (by an index of the type names: a walk over the types per
 * table took types x tables). */
static int check_event_tables(htf_reader *h, const table *tt, tk_error *err)
{
	tk_hashmap names = { 0 };
	row_ctx ctx = { h->t, tt };
	uint32_t i;
	int rc = TK_OK;

	for (i = 0; i < tt->n; i++) {
		size_t tn;
		const char *ts = tk_trace_str(h->t, tt->rows[i].value, &tn);
		if (tk_hashmap_add(&names, htf_hash_nocase(ts, tn), i) < 0) {
			rc = tk_err_nomem(err, h->name);
			goto cleanup;
		}
	}
	for (i = 0; i < h->ntabs; i++) {
		const char *nm = h->tabs[i].name;
		size_t n = strlen(nm);
		if (n <= 10 ||
		    tk_ascii_casecmp(nm + n - 10, 10, "EventTable") != 0)
			continue;
		if (htf_kindex_find(&names, htf_hash_nocase(nm, n - 10), row_value_eq,
				&ctx, nm, n - 10) == UINT32_MAX) {
			rc = tk_err_set(err, TK_E_PARSE, h->name,
					h->tabs[i].line, 1,
					"#%s is for a type the #TypeTable does not list",
					nm);
			goto cleanup;
		}
	}
cleanup:
	tk_hashmap_free(&names);
	return rc;
}

/* a type row's key for sharing: what its events' descriptors hold */
static uint64_t type_hash(const htype *ty)
{
	return (uint64_t)ty->type_name << 32 ^ (uint64_t)(uint32_t)ty->std ^
	       (uint64_t)(uintptr_t)ty->etab * 0x9e3779b97f4a7c15ull;
}

static int type_eq(const void *ctx, uint32_t v, const void *k, size_t n)
{
	const htf_reader *h = ctx;
	const htype *a = &h->types[v], *b = k;

	(void)n;
	return a->std == b->std && a->type_name == b->type_name &&
	       a->etab == b->etab;
}

/* The type rows whose first spelling uses event table et (for a
 * message). */
static uint32_t spellings(const htf_reader *h, const table *et)
{
	uint32_t i, n = 0;

	for (i = 0; i < h->ntypes; i++)
		n += h->types[i].etab == et && h->types[i].owner == i;
	return n;
}

/* The events of type ty from its event table et. */
static int type_events(htf_reader *h, htype *ty, const table *et,
		       tk_error *err)
{
	size_t ne;
	const htf_event_name *names = htf_events(ty->std, &ne);
	uint32_t j;
	int64_t dup;
	int nomem;

	ty->evs = calloc(et->n ? et->n : 1, sizeof(*ty->evs));
	if (!ty->evs)
		return tk_err_nomem(err, h->name);
	ty->nevs = et->n;
	for (j = 0; j < et->n; j++) {
		const row *er = &et->rows[j];
		size_t en, k;
		const char *es = tk_trace_str(h->t, er->value, &en);
		evinfo *vi = &ty->evs[j];

		vi->kind = TK_EV_OTHER;
		vi->name = TK_NONE;
		for (k = 0; k < ne; k++) {
			if (tk_ascii_casecmp(es, en, names[k].htf) == 0) {
				const char *bn = tk_evkind_name(names[k].kind);
				vi->kind = names[k].kind;
				vi->name = tk_strpool_intern(&h->t->pool, bn,
							     strlen(bn));
				if (vi->name == TK_NONE)
					return tk_err_nomem(err, h->name);
				break;
			}
		}
		if (vi->name == TK_NONE) {
			int rc = tk_reader_depart(h->r, err, W_UNKNOWN_EVENT,
						  er->line, er->col,
						  "unknown event '%.40s' in #%s",
						  "unknown event '%.40s' in #%s (kept by name)",
						  es, et->name);
			if (rc < 0)
				return rc;
			ty->nunknown++;
			vi->name = er->value;
		}
		if (htf_idmap_add(&ty->evmap, er->id, j, j) < 0)
			return tk_err_nomem(err, h->name);
	}
	dup = htf_idmap_build(&ty->evmap, 1, &nomem);
	if (nomem)
		return tk_err_nomem(err, h->name);
	if (dup >= 0)
		return row_err(h, err, TK_E_PARSE, &et->rows[dup],
			       "event id defined twice in #%s", et->name);
	return TK_OK;
}

/*
 * The types of the #TypeTable and their events.  Rows that name a type
 * alike (see htype.owner) share the first one's events, so that a table
 * that repeats a type costs a row's memory per row, not an event table's.
 */
int htf_build_types(htf_reader *h, tk_error *err)
{
	table *tt = htf_find_table(h, "TypeTable", 9);
	tk_hashmap classes = { 0 };
	uint64_t rows = 0, ndescs = 0, limit;
	uint32_t i, o;
	int64_t dup;
	int nomem, rc = TK_OK;

	if (!tt)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #TypeTable in the header");
	h->types = calloc(tt->n ? tt->n : 1, sizeof(*h->types));
	if (!h->types)
		return tk_err_nomem(err, h->name);
	/* the descriptors (one per type and event) may be many more than
	 * the rows only for types that differ in case only: see below */
	for (i = 0; i < h->ntabs; i++)
		rows += h->tabs[i].n;
	limit = 8 * rows + 65536;
	if (limit > KEY_DESC)
		limit = KEY_DESC;
	for (i = 0; i < tt->n; i++) {
		const row *rw = &tt->rows[i];
		size_t n;
		const char *s = tk_trace_str(h->t, rw->value, &n);
		htype *ty = &h->types[h->ntypes++];
		char key[96];
		table *et;

		ty->std = htf_type_lookup(s, n);
		ty->sk = htf_synth_kind(ty->std);
		ty->htf_name = rw->value;
		/* the id, for a writer that keeps the input's ids */
		snprintf(key, sizeof(key), "TypeTable.%02llX",
			 (unsigned long long)rw->id);
		if (tk_trace_header_push(h->t, TK_HDR_PARAM, key, strlen(key), s,
					n, 1) < 0)
			goto nomem;
		if (ty->std < 0) {
			rc = tk_reader_depart(h->r, err, W_UNKNOWN_TYPE,
					      rw->line, rw->col,
					      "unknown entity type '%.40s' (Task, ISR, Runnable, CodeBlock, Signal, Semaphore)",
					      "unknown entity type '%.40s' (kept by name)",
					      s);
			if (rc < 0)
				goto cleanup;
			ty->et = TK_ET_OTHER;
			ty->type_name = rw->value;
		} else {
			const char *tn = tk_etype_name(htf_type_etype(ty->std));
			ty->et = htf_type_etype(ty->std);
			ty->type_name = tk_strpool_intern(&h->t->pool, tn,
							  strlen(tn));
			if (ty->type_name == TK_NONE)
				goto nomem;
		}
		if (htf_idmap_add(&h->typemap, rw->id, h->ntypes - 1, i) < 0)
			goto nomem;
		/* its event table, by name */
		et = NULL;
		if (n <= 64) {
			snprintf(key, sizeof(key), "%.*sEventTable", (int)n, s);
			et = htf_find_table(h, key, strlen(key));
		}
		ty->etab = et;
		ty->owner = i;
		/* a type named alike before: its events are these */
		o = htf_kindex_find(&classes, type_hash(ty), type_eq, h, ty, 0);
		if (o != UINT32_MAX) {
			const htype *ot = &h->types[o];
			ty->owner = o;
			ty->evs = ot->evs;
			ty->nevs = ot->nevs;
			ty->evmap = ot->evmap;
			/* the warnings its events gave, counted as if they came
			 * again (the first of their kind was shown) */
			h->r->nwarn += ot->nunknown;
			continue;
		}
		if (tk_hashmap_add(&classes, type_hash(ty), i) < 0)
			goto nomem;
		if (!et)
			continue;
		/* Each new type makes a descriptor per row of its event table.
		 * Types of no type of the spec are kept as written, so names
		 * that differ in case only are different types that share one
		 * event table: spellings x rows descriptors. */
		ndescs += et->n;
		if (ndescs > limit) {
			rc = row_err(h, err, TK_E_PARSE, rw,
				     "too many event descriptors (more than %llu): #%s serves %u types whose names differ in case only",
				     (unsigned long long)limit, et->name,
				     spellings(h, et));
			goto cleanup;
		}
		if ((rc = type_events(h, ty, et, err)) < 0)
			goto cleanup;
	}
	dup = htf_idmap_build(&h->typemap, 0, &nomem);
	if (nomem)
		goto nomem;
	if (dup >= 0) {
		rc = row_err(h, err, TK_E_PARSE, &tt->rows[dup],
			     "type id defined twice in #TypeTable");
		goto cleanup;
	}
	/* event tables that belong to no type (strict mode only) */
	if (h->strict)
		rc = check_event_tables(h, tt, err);
	goto cleanup;
nomem:
	rc = tk_err_nomem(err, h->name);
cleanup:
	tk_hashmap_free(&classes);
	return rc;
}

int htf_build_entities(htf_reader *h, tk_error *err)
{
	table *et = htf_find_table(h, "EntityTable", 11);
	table *ett = htf_find_table(h, "EntityTypeTable", 15);
	uint32_t i;
	int64_t dup;
	int nomem;

	if (!et)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #EntityTable in the header");
	if (!ett)
		return tk_err_set(err, TK_E_PARSE, h->name, 0, 0,
				  "no #EntityTypeTable in the header");
	h->ents = calloc(et->n ? et->n : 1, sizeof(*h->ents));
	if (!h->ents)
		return tk_err_nomem(err, h->name);
	for (i = 0; i < et->n; i++) {
		hent *e = &h->ents[h->nents++];
		e->tkid = tk_trace_entity_get(h->t, et->rows[i].value);
		if (e->tkid == TK_NONE)
			return tk_err_nomem(err, h->name);
		e->type = UINT32_MAX;
		if (htf_idmap_add(&h->entmap, et->rows[i].id, i, i) < 0)
			return tk_err_nomem(err, h->name);
		{
			/* the id, for a writer that keeps the input's ids */
			char key[48];
			size_t n;
			const char *s = tk_trace_str(h->t, et->rows[i].value, &n);
			snprintf(key, sizeof(key), "EntityTable.%0*llX",
				 (int)(2 * h->el),
				 (unsigned long long)et->rows[i].id);
			if (tk_trace_header_push(h->t, TK_HDR_PARAM, key,
						strlen(key), s, n, 1) < 0)
				return tk_err_nomem(err, h->name);
		}
	}
	dup = htf_idmap_build(&h->entmap, 0, &nomem);
	if (nomem)
		return tk_err_nomem(err, h->name);
	if (dup >= 0)
		return row_err(h, err, TK_E_PARSE, &et->rows[dup],
			       "entity id defined twice in #EntityTable");
	for (i = 0; i < ett->n; i++) {
		const row *rw = &ett->rows[i];
		size_t n;
		const char *s = tk_trace_str(h->t, rw->value, &n);
		uint32_t ei = idmap_get(&h->entmap, rw->id), ti;
		uint64_t tid;
		size_t k;
		tk_entity *te;

		if (ei == UINT32_MAX) {
			int rc = tk_reader_depart(h->r, err, W_TYPELESS_ROW,
						  rw->line, rw->col,
						  "entity id 0x%llX is not in the #EntityTable",
						  "entity id 0x%llX is not in the #EntityTable (row ignored)",
						  (unsigned long long)rw->id);
			if (rc < 0)
				return rc;
			continue;
		}
		tid = 0;
		for (k = 0; k < n; k++) {
			int d = hexval((unsigned char)s[k]);
			if (d < 0 || k >= 16)
				return row_err(h, err, TK_E_PARSE, rw,
					       "type id '%.40s' is not hexadecimal",
					       s);
			tid = tid << 4 | (uint64_t)d;
		}
		ti = idmap_get(&h->typemap, tid);
		if (ti == UINT32_MAX)
			return row_err(h, err, TK_E_PARSE, rw,
				       "type id '%.40s' is not in the #TypeTable",
				       s);
		if (h->ents[ei].type != UINT32_MAX && h->ents[ei].type != ti)
			return row_err(h, err, TK_E_PARSE, rw,
				       "entity id 0x%llX has two types",
				       (unsigned long long)rw->id);
		h->ents[ei].type = ti;
		te = tk_trace_ent(h->t, h->ents[ei].tkid);
		te->type = h->types[ti].et;
		te->type_name = h->types[ti].type_name;
	}
	return TK_OK;
}

/* The event descriptors of all (type, event) pairs, and per entity a flat
 * table from its event ids to them. */
#define PAIR_MAX ((uint64_t)1 << 20)

/*
 * The flat (entity id, event id) table of the batch decoder, when it fits
 * in PAIR_MAX entries: a row per entity id of as many entries as the
 * largest event id of any table needs (a power of two), so that it stays
 * small enough for the first-level cache in the usual case.
 */
static int build_pairs(htf_reader *h, tk_error *err)
{
	const idmap *em = &h->entmap;
	uint64_t evmax = 0, nev, n;
	unsigned evbits = 0;
	uint32_t i, j;

	if (h->w > 16 || !em->n)
		return TK_OK;
	for (i = 0; i < h->ntypes; i++) {
		const idmap *vm = &h->types[i].evmap;
		if (vm->n && vm->p[vm->n - 1].id > evmax)
			evmax = vm->p[vm->n - 1].id;
	}
	while (evbits < 20 && ((uint64_t)1 << evbits) <= evmax)
		evbits++;
	if (((uint64_t)1 << evbits) <= evmax ||
	    em->p[em->n - 1].id >= (PAIR_MAX >> evbits))
		return TK_OK;
	nev = (uint64_t)1 << evbits;
	n = (em->p[em->n - 1].id + 1) << evbits;
	h->pair = malloc(n * sizeof(*h->pair));
	if (!h->pair)
		return tk_err_nomem(err, h->name);
	memset(h->pair, 0xff, n * sizeof(*h->pair));
	h->npair_ent = em->p[em->n - 1].id + 1;
	h->pair_bits = evbits;
	for (i = 0; i < em->n; i++) {
		const hent *e = &h->ents[em->p[i].val];
		uint64_t *prow = h->pair + (em->p[i].id << evbits);
		const htype *ty;
		if (e->type == UINT32_MAX)
			continue;
		ty = &h->types[e->type];
		for (j = 0; j < ty->evmap.n; j++) {
			uint64_t ev = ty->evmap.p[j].id;
			if (ev >= nev)
				break;
			prow[ev] = (uint64_t)e->tkid << 32 |
				  h->keys[ty->desc0 + ty->evmap.p[j].val];
		}
	}
	return TK_OK;
}

int htf_build_descs(htf_reader *h, tk_error *err)
{
	uint32_t i, j, n = 0;

	/* one set per type named alike (build_types: fewer than KEY_DESC) */
	for (i = 0; i < h->ntypes; i++) {
		htype *ty = &h->types[i];
		if (ty->owner != i) {
			ty->desc0 = h->types[ty->owner].desc0;
			continue;
		}
		ty->desc0 = n;
		n += ty->nevs;
	}
	h->descs = calloc(n ? n : 1, sizeof(*h->descs));
	h->keys = calloc(n ? n : 1, sizeof(*h->keys));
	h->evflat = calloc(h->ntypes ? h->ntypes : 1, sizeof(*h->evflat));
	if (!h->descs || !h->keys || !h->evflat)
		return tk_err_nomem(err, h->name);
	h->ndescs = n;
	for (i = 0; i < h->ntypes; i++) {
		const htype *ty = &h->types[i];
		uint64_t k;
		if (ty->owner != i) {
			h->evflat[i] = h->evflat[ty->owner];
			continue;
		}
		for (j = 0; j < ty->nevs; j++) {
			hdesc *d = &h->descs[ty->desc0 + j];
			d->et = ty->et;
			d->kind = ty->evs[j].kind;
			d->type_name = ty->type_name;
			d->name = ty->evs[j].name;
			d->op = tk_synth_op_make(&htf_synth_rules, ty->sk, d->kind);
			h->keys[ty->desc0 + j] =
				(ty->desc0 + j) |
				(d->op.is_start ? KEY_START : 0) |
				(d->op.is_act ? KEY_ACT : 0) |
				(d->op.sk < TK_SK_OTHER ? KEY_COUNTED : 0);
		}
		if (!ty->evmap.direct)
			continue;
		h->evflat[i] = malloc(ty->evmap.ndirect * sizeof(**h->evflat));
		if (!h->evflat[i])
			return tk_err_nomem(err, h->name);
		for (k = 0; k < ty->evmap.ndirect; k++) {
			uint32_t v = ty->evmap.direct[k];
			h->evflat[i][k] = v == UINT32_MAX ? v : ty->desc0 + v;
		}
	}
	for (i = 0; i < h->nents; i++) {
		hent *e = &h->ents[i];
		if (e->type == UINT32_MAX || !h->evflat[e->type])
			continue;
		e->evd = h->evflat[e->type];
		e->nevd = h->types[e->type].evmap.ndirect;
	}
	return build_pairs(h, err);
}
