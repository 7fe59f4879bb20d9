/*
 * verify.c - timing requirements (docs/verify.md): a YAML file read with
 * libyaml, held against a trace's metrics.
 *
 * The values come from the metric engine: one tk_stats per trace (with the
 * chains and percentiles the requirements name) and one tk_load per load
 * requirement.  What stats does not keep is taken from its value callback:
 * the instance of an entity's minimum, and for a percentile the first
 * value beyond the bound.
 *
 * Bounds and values are exact rationals: times in picoseconds (a tick of
 * p/q ps times the ticks), loads in percent, counts and JIT as they are.
 * Two rationals are compared by cross multiplication in 128 bits; a
 * product beyond that is an error, never a rounded verdict.
 */
#define _POSIX_C_SOURCE 200809L
#include "analysis_internal.h"

#include <yaml.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_ENTITY, S_TYPE, S_CHAIN, S_LOAD };
enum { U_NONE = -1, U_PCT = 16, U_CYC = 17 }; /* else a tk_unit */

/* the cycle units of a trace timed in cycles (tk_trace_cycle_unit()), a
 * bound's units U_CYC + i of tk_cycle_units; a cycle is the 1 ns its time
 * base says */
#define IS_CYC(u) ((u) >= U_CYC && (u) < U_CYC + TK_NCYCLE_UNITS)
#define PS_PER_CYCLE 1000

/* a signed rational, d > 0 */
typedef struct rat {
	tk_i128 n, d;
} rat;

typedef struct bound {
	int has;
	rat v;          /* in ps for a time (a cycle: 1000), in percent for a
			   load, else as is */
	int unit;       /* U_NONE, U_PCT, U_CYC + i or the tk_unit written */
	char *text;     /* as written */
} bound;

typedef struct req {
	char *name;
	int subj;
	char **names;   /* entities, chain signals, or the core */
	size_t nnames;
	tk_etype type;
	tk_metric metric;
	uint32_t pct;   /* millionths of a percent; 0: none */
	char *pct_text;
	char *window;   /* load: as written, or NULL */
	char *chain;    /* the chain's row name: the signals joined by "->" */
	bound max, min;
	uint64_t line;  /* of the requirement in its file, from 1 */
	uint32_t col;
} req;

struct tk_reqs {
	req *r;
	size_t n;
	char *path;     /* the requirements file, for the errors that a
			   trace gives */
};

/* ------------------------------------------------------------------------ */
/* rationals                                                                 */
/* ------------------------------------------------------------------------ */

static tk_i128 iabs128(tk_i128 v)
{
	return v < 0 ? -v : v;
}

static rat rat_norm(rat a)
{
	tk_u128 g = tk_gcd128((tk_u128)iabs128(a.n), (tk_u128)a.d);

	if (g > 1) {
		a.n /= (tk_i128)g;
		a.d /= (tk_i128)g;
	}
	return a;
}

/* a <=> b into *c; -1 beyond 128 bits */
static int rat_cmp(rat a, rat b, int *c)
{
	tk_i128 x, y;

	if (__builtin_mul_overflow(a.n, b.d, &x) ||
	    __builtin_mul_overflow(b.n, a.d, &y))
		return -1;
	*c = x < y ? -1 : x > y;
	return 0;
}

/* a - b into *o; -1 beyond 128 bits */
static int rat_sub(rat a, rat b, rat *o)
{
	tk_i128 x, y, d;

	if (__builtin_mul_overflow(a.n, b.d, &x) ||
	    __builtin_mul_overflow(b.n, a.d, &y) ||
	    __builtin_sub_overflow(x, y, &x) ||
	    __builtin_mul_overflow(a.d, b.d, &d))
		return -1;
	o->n = x;
	o->d = d;
	*o = rat_norm(*o);
	return 0;
}

static const tk_i128 ps_per_unit[5] = {
	1, 1000, 1000000, 1000000000, 1000000000000
};

/* a as a decimal or N/D, with its sign */
static int rat_fmt(rat a, char *buf, size_t size)
{
	int rc;

	if (size < 2)
		return TK_E_RANGE;
	if (a.n < 0) {
		buf[0] = '-';
		rc = tk_fmt_ratio((tk_u128)-a.n, (tk_u128)a.d, buf + 1, size - 1);
		return rc < 0 ? rc : rc + 1;
	}
	return tk_fmt_ratio((tk_u128)a.n, (tk_u128)a.d, buf, size);
}

/* a in the unit u (a value in ps for a time unit) with the unit's name */
static void rat_fmt_unit(rat a, int u, char *buf, size_t size)
{
	size_t n;

	if ((u >= TK_UNIT_PS && u <= TK_UNIT_S) || IS_CYC(u)) {
		tk_i128 per = IS_CYC(u) ? PS_PER_CYCLE : ps_per_unit[u];
		tk_i128 g = (tk_i128)tk_gcd128((tk_u128)iabs128(a.n), (tk_u128)per);
		if (!g)
			g = 1;
		a.n /= g;
		if (__builtin_mul_overflow(a.d, per / g, &a.d)) {
			snprintf(buf, size, "?");
			return;
		}
	}
	a = rat_norm(a);
	if (rat_fmt(a, buf, size) < 0) {
		snprintf(buf, size, "?");
		return;
	}
	n = strlen(buf);
	if (u == U_PCT)
		snprintf(buf + n, size - n, "%%");
	else if (u >= TK_UNIT_PS && u <= TK_UNIT_S)
		snprintf(buf + n, size - n, "%s", tk_unit_name((tk_unit)u));
	else if (IS_CYC(u))
		snprintf(buf + n, size - n, "%s", tk_cycle_units[u - U_CYC]);
}

/*
 * A bound as written: [-]DIGITS[.DIGITS] then a unit (ps ns us ms s, a
 * cycle unit clk cyc tic cs, %) or none.  Into *v (ps for a time unit) and *unit; -1 when malformed,
 * -2 when well-formed but beyond what is held (more than 30 digits before
 * the point or 19 after, or beyond 2^127 in ps).
 */
static int parse_number(const char *s, rat *v, int *unit)
{
	tk_i128 n = 0, d = 1;
	int neg = 0, digits = 0, frac = 0, big = 0;
	const char *p = s;
	tk_unit u;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (!big && (digits > 30 || __builtin_mul_overflow(n, 10, &n) ||
			     __builtin_add_overflow(n, *p - '0', &n)))
			big = 1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, frac++)
			if (!big && (frac > 18 || __builtin_mul_overflow(n, 10, &n) ||
				     __builtin_add_overflow(n, *p - '0', &n)))
				big = 1;
		d = 1;
		for (int i = 0; i < frac && i < 19; i++)
			d *= 10;
		if (!frac)
			return -1;
	}
	if (!digits)
		return -1;
	while (*p == ' ')
		p++;
	if (!*p) {
		*unit = U_NONE;
	} else if (!strcmp(p, "%")) {
		*unit = U_PCT;
	} else if (tk_cycle_unit_find(p) >= 0) {
		*unit = U_CYC + tk_cycle_unit_find(p);
		if (!big && __builtin_mul_overflow(n, PS_PER_CYCLE, &n))
			big = 1;
	} else if (tk_unit_parse(p, strlen(p), 0, &u) == TK_OK) {
		*unit = (int)u;
		if (!big && __builtin_mul_overflow(n, ps_per_unit[u], &n))
			big = 1;
	} else {
		return -1;
	}
	if (big)
		return -2;
	v->n = neg ? -n : n;
	v->d = d;
	*v = rat_norm(*v);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* the file                                                                  */
/* ------------------------------------------------------------------------ */

/* a name and its place, sorted to find one given twice */
typedef struct named {
	const char *name;
	size_t i;
} named;

static int named_cmp(const void *a, const void *b)
{
	const named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

typedef struct rdctx {
	yaml_document_t *doc;
	const char *path;
	tk_error *err;
	/* names that the requirements may still hold: the file's length in
	 * bytes, which a file without aliases never reaches (each name takes
	 * a byte or more); an alias repeats a list without its bytes: 200
	 * aliases of a list of 3000 names were 600000 copies out of 29 KB */
	size_t names_left;
} rdctx;

static int node_err(rdctx *x, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int node_err(rdctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_err_set(x->err, TK_E_PARSE, x->path, (uint64_t)n->start_mark.line + 1,
			  (uint32_t)n->start_mark.column + 1, "%s", msg);
}

/* a scalar's text (NUL-terminated by libyaml), or NULL */
static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* "a list" or "a mapping" for a node that is one (where a scalar is
 * expected, said as such: its text would be empty), else NULL */
static const char *collection(const yaml_node_t *n)
{
	if (n && n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n && n->type == YAML_MAPPING_NODE)
		return "a mapping";
	return NULL;
}

/* does s hold a control character?  A name is one line of the text
 * output: "a\nb.btf: PASS x" in a name would forge a verdict */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static char *dup_or_null(const char *s, int *nomem)
{
	char *d = strdup(s);

	if (!d)
		*nomem = 1;
	return d;
}

/*
 * The chain's name: its signals joined by "->", a signal whose name has
 * "->" or begins with '"' in double quotes (its '"' and '\' escaped by a
 * '\'), so that two chains of different signals never read alike.  The
 * name keys the chain's rows in the tk_stats.  out holds 2 * len + 4 per
 * signal.
 */
static void chain_name(char *out, const char *const *sig, size_t n)
{
	char *p = out;

	for (size_t i = 0; i < n; i++) {
		const char *s = sig[i];
		int quote = s[0] == '"' || strstr(s, "->");
		if (i) {
			*p++ = '-';
			*p++ = '>';
		}
		if (quote)
			*p++ = '"';
		for (; *s; s++) {
			if (quote && (*s == '"' || *s == '\\'))
				*p++ = '\\';
			*p++ = *s;
		}
		if (quote)
			*p++ = '"';
	}
	*p = '\0';
}

/* metric named s of a subject (entity metrics, or a chain's) */
static int parse_metric(const char *s, int chain, tk_metric *m)
{
	int i, lo = chain ? TK_METRIC_REACTION : 0, hi = chain ? TK_METRIC_END : TK_METRIC_COUNT;

	for (i = lo; i < hi; i++)
		if (!strcmp(s, tk_metric_name((tk_metric)i))) {
			*m = (tk_metric)i;
			return 0;
		}
	return -1;
}

/* a name given twice in the list n (r->names): the error at its second
 * place; by a sort (comparing each with every earlier one took minutes
 * for a list of 100000) */
static int same_in_list(rdctx *x, const yaml_node_t *n, const req *r, const char *key)
{
	named *a = malloc(r->nnames * sizeof(*a));
	size_t k, first = SIZE_MAX;
	int rc = TK_OK;

	if (!a)
		return tk_err_nomem(x->err, x->path);
	for (k = 0; k < r->nnames; k++) {
		a[k].name = r->names[k];
		a[k].i = k;
	}
	qsort(a, r->nnames, sizeof(*a), named_cmp);
	for (k = 1; k < r->nnames; k++)
		if (!strcmp(a[k].name, a[k - 1].name) && a[k].i < first)
			first = a[k].i;
	if (first != SIZE_MAX)
		rc = node_err(x, yaml_document_get_node(x->doc,
							n->data.sequence.items.start[first]),
			      "%s: '%s' twice", key, r->names[first]);
	free(a);
	return rc;
}

/* a list of names (a sequence of scalars, or one scalar when one is
 * allowed) into r->names */
static int parse_names(rdctx *x, const yaml_node_t *n, req *r, int one,
		       const char *key)
{
	yaml_node_item_t *it;
	size_t k = 0;
	int nomem = 0;

	if (one) {
		const char *s = scalar(n);
		if (!s || !s[0])
			return node_err(x, n, "%s: expected a name", key);
		if (has_control(s))
			return node_err(x, n, "%s: a name with a control character", key);
		r->names = calloc(1, sizeof(*r->names));
		if (!r->names || !(r->names[0] = dup_or_null(s, &nomem)))
			return tk_err_nomem(x->err, x->path);
		r->nnames = 1;
		x->names_left--;
		return TK_OK;
	}
	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.top == n->data.sequence.items.start)
		return node_err(x, n, "%s: expected a list of names ([A, B])", key);
	r->nnames = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	x->names_left -= r->nnames;
	r->names = calloc(r->nnames, sizeof(*r->names));
	if (!r->names) {
		r->nnames = 0;
		return tk_err_nomem(x->err, x->path);
	}
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, k++) {
		const yaml_node_t *e = yaml_document_get_node(x->doc, *it);
		const char *s = scalar(e);
		if (!s || !s[0])
			return node_err(x, e ? e : n, "%s: expected a name", key);
		if (has_control(s))
			return node_err(x, e, "%s: a name with a control character", key);
		if (!(r->names[k] = dup_or_null(s, &nomem)))
			return tk_err_nomem(x->err, x->path);
	}
	return same_in_list(x, n, r, key);
}

static int parse_bound(rdctx *x, const yaml_node_t *n, bound *b, const char *key)
{
	const char *s = scalar(n);
	int nomem = 0, rc = s ? parse_number(s, &b->v, &b->unit) : -1;

	if (collection(n))
		return node_err(x, n, "%s: expected a number with a unit (2ms, 500us, 80%%, 3), "
				"not %s", key, collection(n));
	if (rc == -2)
		return node_err(x, n, "%s: '%s' has too many digits (at most 30 before the "
				"point, 19 after, 2^127 ps)", key, s);
	if (rc < 0)
		return node_err(x, n, "%s: '%s' is not a number with a unit (2ms, 500us, 80%%, 3)",
				key, s ? s : "");
	b->has = 1;
	if (!(b->text = dup_or_null(s, &nomem)))
		return tk_err_nomem(x->err, x->path);
	return TK_OK;
}

/* the unit a bound of requirement r must have: U_NONE (a count or JIT),
 * U_PCT (load), else any time unit (TK_UNIT_PS) */
static int bound_kind(const req *r)
{
	if (r->subj == S_LOAD)
		return U_PCT;
	return tk_metric_is_time(r->metric) ? TK_UNIT_PS : U_NONE;
}

static int check_bound(rdctx *x, const yaml_node_t *n, const req *r,
		       const bound *b, const char *key)
{
	int k = bound_kind(r);

	if (k == U_PCT && b->unit != U_PCT)
		return node_err(x, n, "%s: a load is a percentage (80%%)", key);
	if (k == U_NONE && b->unit != U_NONE)
		return node_err(x, n, "%s: %s is a plain number (no unit)", key,
				tk_metric_name(r->metric));
	if (k == TK_UNIT_PS && (b->unit == U_NONE || b->unit == U_PCT))
		return node_err(x, n, "%s: %s is a time: give a unit (ps, ns, us, ms, s; clk, cyc, tic, cs: cycles)",
				key, tk_metric_name(r->metric));
	if (b->v.n < 0 && !(r->subj != S_LOAD && r->metric == TK_METRIC_JIT))
		return node_err(x, n, "%s: a negative bound", key);
	return TK_OK;
}

/* percentile "99", "99.9" into millionths of a percent; -1 when bad */
static int parse_pct(const char *s, uint32_t *out)
{
	rat v;
	int unit;
	tk_i128 m;

	if (!s || parse_number(s, &v, &unit) < 0 || (unit != U_NONE && unit != U_PCT) ||
	    v.n <= 0 || __builtin_mul_overflow(v.n, 1000000, &m) || m % v.d)
		return -1;
	m /= v.d;
	if (m > 100000000)
		return -1;
	*out = (uint32_t)m;
	return 0;
}

/* The deepest nesting of a requirements file (its own is 4: the mapping of
 * requirements:, the list, a requirement, a list of names); libyaml's
 * scanner costs the depth at every token, so a file of a million '['
 * would take hours to load.  Merges (req_pairs) are bound by it too. */
#define REQS_MAX_DEPTH 16

/* the keys and values of a requirement: at most REQ_PAIRS (twice the
 * keys there are: more is an error of its own) */
#define REQ_PAIRS 24
/* the mappings merged into one requirement, at most */
#define REQ_MERGES 256
typedef struct req_kv {
	const yaml_node_t *k, *v;
} req_kv;

static int req_has_key(const req_kv *kv, size_t n, const char *ks)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (scalar(kv[i].k) && !strcmp(scalar(kv[i].k), ks))
			return 1;
	return 0;
}

/*
 * Mapping n's pairs appended to kv[*n_kv..]: its own in their order (a key
 * given twice kept twice, for parse_req to name), then those of the
 * mappings its merge key "<<" names (YAML 1.1's merge, as PyYAML, GitLab
 * CI and Compose read it: an alias of a mapping, or a list of them, the
 * first of the list winning) whose key is not there yet; `merged` when n
 * is itself merged (its keys then never repeat one there).  `depth` bounds a
 * merge of a merge (an anchor's mapping merging itself loops), *visits
 * the mappings met (lists of aliases of lists of aliases: a merge bomb).
 */
static int req_pairs(rdctx *x, const yaml_node_t *n, req_kv *kv, size_t *n_kv,
		     int merged, int depth, size_t *visits)
{
	yaml_node_pair_t *p;
	const yaml_node_t *merge = NULL;
	int rc;

	if (depth > REQS_MAX_DEPTH)
		return node_err(x, n, "<<: merges nested deeper than %d levels", REQS_MAX_DEPTH);
	if (++*visits > REQ_MERGES)
		return node_err(x, n, "<<: more than %d mappings merged into one requirement "
				"(an alias repeated too often)", REQ_MERGES);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *ks = scalar(k);

		if (ks && !strcmp(ks, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			if (merge)
				return node_err(x, k, "<< given twice");
			merge = v;
			continue;
		}
		if (merged && ks && req_has_key(kv, *n_kv, ks))
			continue;
		if (*n_kv == REQ_PAIRS)
			return node_err(x, k ? k : n, "a requirement of more than %d keys", REQ_PAIRS);
		kv[*n_kv].k = k;
		kv[(*n_kv)++].v = v;
	}
	if (!merge)
		return TK_OK;
	if (merge->type == YAML_MAPPING_NODE)
		return req_pairs(x, merge, kv, n_kv, 1, depth + 1, visits);
	if (merge->type != YAML_SEQUENCE_NODE)
		return node_err(x, merge, "<<: expected a mapping or a list of mappings (an alias: <<: *defaults)");
	for (yaml_node_item_t *it = merge->data.sequence.items.start;
	     it < merge->data.sequence.items.top; it++) {
		const yaml_node_t *m = yaml_document_get_node(x->doc, *it);

		if (!m || m->type != YAML_MAPPING_NODE)
			return node_err(x, m ? m : merge, "<<: expected a mapping or a list of mappings (an alias: <<: *defaults)");
		if ((rc = req_pairs(x, m, kv, n_kv, 1, depth + 1, visits)) < 0)
			return rc;
	}
	return TK_OK;
}

static int parse_req(rdctx *x, const yaml_node_t *n, req *r)
{
	req_kv kv[REQ_PAIRS];
	size_t n_kv = 0, ki, visits = 0;
	const yaml_node_t *subj = NULL, *metric = NULL, *pct = NULL, *win = NULL;
	const yaml_node_t *maxn = NULL, *minn = NULL;
	const char *subjkey = NULL;
	int rc, nomem = 0;

	r->pct = 0;
	if (n->type != YAML_MAPPING_NODE)
		return node_err(x, n, "a requirement is a mapping (name:, a subject, bounds)");
	if ((rc = req_pairs(x, n, kv, &n_kv, 0, 0, &visits)) < 0)
		return rc;
	for (ki = 0; ki < n_kv; ki++) {
		const yaml_node_t *k = kv[ki].k;
		const yaml_node_t *v = kv[ki].v;
		const char *ks = scalar(k);
		if (!ks)
			return node_err(x, k ? k : n, "a key is a plain name");
		if (!strcmp(ks, "name")) {
			const char *s = scalar(v);
			if (!s || !s[0])
				return node_err(x, v, "name: expected a name");
			if (has_control(s))
				return node_err(x, v, "name: a name with a control character");
			if (r->name)
				return node_err(x, k, "name given twice");
			if (!(r->name = dup_or_null(s, &nomem)))
				return tk_err_nomem(x->err, x->path);
		} else if (!strcmp(ks, "entity") || !strcmp(ks, "entities") ||
			   !strcmp(ks, "type") || !strcmp(ks, "chain") ||
			   !strcmp(ks, "load")) {
			if (subj)
				return node_err(x, k, "%s: a requirement has one subject (%s given)",
						ks, subjkey);
			subj = v;
			subjkey = ks;
		} else if (!strcmp(ks, "metric") && !metric) {
			metric = v;
		} else if (!strcmp(ks, "percentile") && !pct) {
			pct = v;
		} else if (!strcmp(ks, "window") && !win) {
			win = v;
		} else if (!strcmp(ks, "max") && !maxn) {
			maxn = v;
		} else if (!strcmp(ks, "min") && !minn) {
			minn = v;
		} else if (!strcmp(ks, "metric") || !strcmp(ks, "percentile") ||
			   !strcmp(ks, "window") || !strcmp(ks, "max") || !strcmp(ks, "min")) {
			return node_err(x, k, "%s given twice", ks);
		} else {
			return node_err(x, k, "unknown key '%s' (name, entity, entities, type, "
					"chain, load, metric, percentile, window, max, min)", ks);
		}
	}
	if (!r->name)
		return node_err(x, n, "a requirement without a name");
	if (!subj)
		return node_err(x, n, "requirement '%s': no subject (entity, entities, type, "
				"chain or load)", r->name);
	if (subj->type == YAML_SEQUENCE_NODE &&
	    x->names_left < (size_t)(subj->data.sequence.items.top - subj->data.sequence.items.start))
		return node_err(x, n, "requirement '%s': more names than the file has bytes "
				"(an alias repeated too often)", r->name);
	if (!x->names_left)
		return node_err(x, n, "requirement '%s': more names than the file has bytes",
				r->name);
	if (!strcmp(subjkey, "entity") || !strcmp(subjkey, "entities")) {
		r->subj = S_ENTITY;
		if ((rc = parse_names(x, subj, r, subjkey[6] == '\0', subjkey)) < 0)
			return rc;
	} else if (!strcmp(subjkey, "type")) {
		const char *s = scalar(subj);
		r->subj = S_TYPE;
		if (!s || (strcmp(s, "T") && strcmp(s, "I") && strcmp(s, "R")))
			return node_err(x, subj, "type: expected T, I or R");
		r->type = s[0] == 'T' ? TK_ET_T : s[0] == 'I' ? TK_ET_I : TK_ET_R;
	} else if (!strcmp(subjkey, "chain")) {
		size_t len = 0;
		r->subj = S_CHAIN;
		if ((rc = parse_names(x, subj, r, 0, "chain")) < 0)
			return rc;
		if (r->nnames < 2)
			return node_err(x, subj, "chain: two signals or more");
		for (size_t i = 0; i < r->nnames; i++) {
			if (!r->names[i])
				return node_err(x, subj, "chain: a signal without a name");
			/* quoted, each byte escaped at worst */
			len += 2 * strlen(r->names[i]) + 4;
		}
		if (!(r->chain = calloc(len + 1, 1)))
			return tk_err_nomem(x->err, x->path);
		chain_name(r->chain, (const char *const *)r->names, r->nnames);
	} else {
		r->subj = S_LOAD;
		if ((rc = parse_names(x, subj, r, 1, "load")) < 0)
			return rc;
	}
	if (r->subj == S_LOAD) {
		if (metric)
			return node_err(x, metric, "metric: a load requirement has none");
		if (pct)
			return node_err(x, pct, "percentile: a load requirement has none");
		if (win) {
			const char *s = scalar(win);
			uint64_t v;
			tk_unit u;
			if (!s || tk_duration_parse(s, -1, &v, &u) < 0 || !v)
				return node_err(x, win, "window: expected a time (10ms, 500us)");
			if (!(r->window = dup_or_null(s, &nomem)))
				return tk_err_nomem(x->err, x->path);
		}
	} else {
		const char *s = scalar(metric);
		if (win)
			return node_err(x, win, "window: only a load requirement has one");
		if (!metric)
			return node_err(x, n, "requirement '%s': no metric", r->name);
		if (collection(metric))
			return node_err(x, metric, "metric: expected one metric, not %s",
					collection(metric));
		if (!s || parse_metric(s, r->subj == S_CHAIN, &r->metric) < 0)
			return node_err(x, metric, r->subj == S_CHAIN ?
					"metric: unknown metric '%s' of a chain (REACTION, AGE, LOST)" :
					"metric: unknown metric '%s' (IPT, CET, GET, RT, DT, PER, ST, "
					"JIT, PRE, NPRE, WAIT, POLL)", s ? s : "");
		if (pct) {
			if (parse_pct(scalar(pct), &r->pct) < 0)
				return node_err(x, pct, "percentile: expected a number above 0 and at "
						"most 100, with at most 6 decimals");
			if (!tk_metric_is_time(r->metric))
				return node_err(x, pct, "percentile: %s is not a time: it has none",
						tk_metric_name(r->metric));
			if (!(r->pct_text = dup_or_null(scalar(pct), &nomem)))
				return tk_err_nomem(x->err, x->path);
		}
	}
	if (!maxn && !minn)
		return node_err(x, n, "requirement '%s': no bound (max:, min:)", r->name);
	if (maxn && ((rc = parse_bound(x, maxn, &r->max, "max")) < 0 ||
		     (rc = check_bound(x, maxn, r, &r->max, "max")) < 0))
		return rc;
	if (minn && ((rc = parse_bound(x, minn, &r->min, "min")) < 0 ||
		     (rc = check_bound(x, minn, r, &r->min, "min")) < 0))
		return rc;
	return TK_OK;
}

static void req_clear(req *r)
{
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->name);
	free(r->pct_text);
	free(r->window);
	free(r->chain);
	free(r->max.text);
	free(r->min.text);
}

void tk_reqs_free(tk_reqs *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		req_clear(&q->r[i]);
	free(q->r);
	free(q->path);
	free(q);
}

/*
 * Two requirements of one name: the error at the first (in the file) that
 * has the name of an earlier one.  By a sort, not by comparing each with
 * every earlier one (a file of 100000 requirements took a minute).
 */
static int same_names(rdctx *x, const tk_reqs *q, const yaml_node_t *list)
{
	named *a = malloc((q->n ? q->n : 1) * sizeof(*a));
	size_t k, first = SIZE_MAX;
	int rc = TK_OK;

	if (!a)
		return tk_err_nomem(x->err, x->path);
	for (k = 0; k < q->n; k++) {
		a[k].name = q->r[k].name;
		a[k].i = k;
	}
	qsort(a, q->n, sizeof(*a), named_cmp);
	for (k = 1; k < q->n; k++)
		if (!strcmp(a[k].name, a[k - 1].name) && a[k].i < first)
			first = a[k].i;
	if (first != SIZE_MAX)
		rc = node_err(x, yaml_document_get_node(x->doc,
							list->data.sequence.items.start[first]),
			      "requirement '%s' named twice", q->r[first].name);
	free(a);
	return rc;
}

/*
 * A first pass over the file's events (its text: a pipe cannot be read
 * twice), before it is loaded: TK_OK, or an
 * error at the collection nested too deep or at the start of a second
 * document (yaml_parser_load() reads the first alone: the others' would
 * be requirements never checked).  A file that is not YAML is TK_OK here:
 * the load says where.
 */
static int reqs_shape(const unsigned char *text, size_t len, const char *path, tk_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, docs = 0, done = 0, rc = TK_OK;

	if (!yaml_parser_initialize(&parser))
		return tk_err_nomem(err, path);
	yaml_parser_set_input_string(&parser, text, len);
	while (!done && rc == TK_OK && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
			rc = tk_err_set(err, TK_E_PARSE, path, (uint64_t)ev.start_mark.line + 1,
					(uint32_t)ev.start_mark.column + 1,
					"a second YAML document (the file holds one list of requirements)");
		else if ((ev.type == YAML_SEQUENCE_START_EVENT ||
			  ev.type == YAML_MAPPING_START_EVENT) && ++depth > REQS_MAX_DEPTH)
			rc = tk_err_set(err, TK_E_PARSE, path, (uint64_t)ev.start_mark.line + 1,
					(uint32_t)ev.start_mark.column + 1,
					"nested deeper than %d levels", REQS_MAX_DEPTH);
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	if (!done && rc == TK_OK && parser.error == YAML_MEMORY_ERROR)
		rc = tk_err_nomem(err, path);
	yaml_parser_delete(&parser);
	return rc;
}

int tk_reqs_read(tk_reqs **out, const char *path, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_reqs_read", "out pointer");
	if (!path) {
		*out = NULL;
		return tk_err_null(err, "tk_reqs_read", "path");
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	int have_parser = 0, have_doc = 0, rc, npct = 0;
	uint32_t pcts[TK_PCTL_MAX];
	FILE *fp = NULL;
	unsigned char *text = NULL;
	size_t len = 0, cap = 0, got;
	tk_reqs *q = NULL;
	yaml_node_t *root, *list;
	rdctx x;

	*out = NULL;
	if (!strcmp(path, "-")) {
		/* standard input, named as tk_reader_open() names it */
		path = "<stdin>";
		fp = stdin;
	} else {
		fp = fopen(path, "rb");
	}
	if (!fp) {
		rc = tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open the requirements file: %s",
				strerror(errno));
		goto out;
	}
	/* the whole text, read twice (reqs_shape(), the load) */
	for (;;) {
		if (len == cap) {
			unsigned char *t;
			if (cap > SIZE_MAX / 2 || !(t = realloc(text, cap ? cap * 2 : 65536))) {
				rc = tk_err_nomem(err, path);
				goto out;
			}
			text = t;
			cap = cap ? cap * 2 : 65536;
		}
		got = fread(text + len, 1, cap - len, fp);
		len += got;
		if (!got)
			break;
	}
	if (ferror(fp)) {
		rc = tk_err_set(err, TK_E_IO, path, 0, 0, "cannot read the requirements file: %s",
				strerror(errno));
		goto out;
	}
	if ((rc = reqs_shape(text, len, path, err)) < 0)
		goto out;
	if (!yaml_parser_initialize(&parser)) {
		rc = tk_err_nomem(err, path);
		goto out;
	}
	have_parser = 1;
	yaml_parser_set_input_string(&parser, text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.error == YAML_READER_ERROR)
			/* bytes that are not UTF-8 (or UTF-16): libyaml
			 * knows their offset, not their line */
			rc = tk_err_set_at(err, TK_E_PARSE, path, (uint64_t)parser.problem_offset,
					   parser.problem_value >= 0 ? "%s (0x%02X)" : "%s",
					   parser.problem ? parser.problem : "bad YAML",
					   parser.problem_value);
		else
			rc = tk_err_set(err, parser.error == YAML_MEMORY_ERROR ? TK_E_NOMEM
					: TK_E_PARSE, path, (uint64_t)parser.problem_mark.line + 1,
					(uint32_t)parser.problem_mark.column + 1, "%s%s%s",
					parser.problem ? parser.problem : "bad YAML",
					parser.context ? " " : "", parser.context ? parser.context : "");
		goto out;
	}
	have_doc = 1;
	x.doc = &doc;
	x.path = path;
	x.err = err;
	x.names_left = len;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = tk_err_set(err, TK_E_PARSE, path, 1, 1, "no requirements (an empty file)");
		goto out;
	}
	/* a list of requirements, or a mapping with the one key requirements */
	list = root;
	if (root->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;
		list = NULL;
		for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			const char *ks = scalar(k);
			if (ks && !strcmp(ks, "requirements") && list) {
				rc = node_err(&x, k, "requirements given twice");
				goto out;
			}
			if (!ks || strcmp(ks, "requirements")) {
				rc = node_err(&x, k, "unknown key '%s' (the file holds requirements:)",
					      ks ? ks : "");
				goto out;
			}
			list = yaml_document_get_node(&doc, p->value);
		}
		if (!list) {
			rc = node_err(&x, root, "no requirements: key");
			goto out;
		}
	}
	if (list->type != YAML_SEQUENCE_NODE) {
		rc = node_err(&x, list, "requirements: expected a list of requirements");
		goto out;
	}
	if (list->data.sequence.items.top == list->data.sequence.items.start) {
		/* a gate of no requirement would hold on any trace */
		rc = node_err(&x, list, "requirements: an empty list (no requirement to hold)");
		goto out;
	}
	q = calloc(1, sizeof(*q));
	if (q && !(q->path = strdup(path))) {
		free(q);
		q = NULL;
	}
	if (!q) {
		rc = tk_err_nomem(err, path);
		goto out;
	}
	q->r = calloc((size_t)(list->data.sequence.items.top - list->data.sequence.items.start),
		      sizeof(*q->r));
	if (!q->r) {
		rc = tk_err_nomem(err, path);
		goto out;
	}
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(&doc, *it);
		req *r = &q->r[q->n++];
		int j;
		r->line = (uint64_t)n->start_mark.line + 1;
		r->col = (uint32_t)n->start_mark.column + 1;
		if ((rc = parse_req(&x, n, r)) < 0)
			goto out;
		for (j = 0; r->pct && j < npct && pcts[j] != r->pct; j++)
			;
		if (r->pct && j == npct && npct == TK_PCTL_MAX) {
			/* one tk_stats holds them all (tk_stats_set_percentiles) */
			rc = node_err(&x, n, "requirement '%s': more than %d distinct "
				      "percentiles in the file", r->name, TK_PCTL_MAX);
			goto out;
		}
		if (r->pct && j == npct)
			pcts[npct++] = r->pct;
	}
	if ((rc = same_names(&x, q, list)) < 0)
		goto out;
	*out = q;
	q = NULL;
	rc = TK_OK;
out:
	tk_reqs_free(q);
	if (have_doc)
		yaml_document_delete(&doc);
	if (have_parser)
		yaml_parser_delete(&parser);
	if (fp && fp != stdin)
		fclose(fp);
	free(text);
	return rc;
}

size_t tk_reqs_count(const tk_reqs *q)
{
	return q->n;
}

const char *tk_reqs_name(const tk_reqs *q, size_t i)
{
	return i < q->n ? q->r[i].name : NULL;
}

/* ------------------------------------------------------------------------ */
/* verification                                                              */
/* ------------------------------------------------------------------------ */

/* what the value callback keeps for (requirement, entity) */
typedef struct track {
	int has_min;
	uint64_t min, min_time;
	int64_t min_inst;
	/* the first value beyond the max / min bound (percentiles) */
	int has_hi, has_lo;
	uint64_t hi_time, lo_time, nhi, nlo;
	uint64_t hi_seq, lo_seq; /* their places among the values */
	int64_t hi_inst, lo_inst;
} track;

/* a load requirement's loads */
typedef struct lreq {
	tk_load *l;
	size_t core;        /* the core's index, SIZE_MAX: not yet met */
	size_t checked;     /* cores compared with the name */
	uint64_t window;    /* ticks; 0: the whole trace */
	int has;            /* worst windows found */
	uint64_t hi_b, hi_len, hi_start, lo_b, lo_len, lo_start;
	uint64_t nwin;
	const req *r;
	tk_verify *v;
} lreq;

/* a verdict's words, grown as they are written (names of any length) */
typedef struct vstr {
	char *p;
	size_t len, cap;
} vstr;

typedef struct verdict_buf {
	tk_verdict pub;
	vstr subject, text, bound, where;
	char value[96], margin[96];
	int nomem;          /* a vstr could not grow */
} verdict_buf;

struct tk_verify {
	const tk_reqs *q;
	const tk_trace *t;
	tk_stats *st;
	track **tr;         /* per requirement: by entity id */
	size_t *ntr;
	signed char *interest; /* by entity id: 0 unseen, 1 none, 2 some */
	size_t ninterest;
	lreq *loads;        /* per requirement (S_LOAD ones used) */
	verdict_buf *out;
	size_t nout, nfail;
	size_t nout_alloc;  /* verdicts allocated (their words freed) */
	int nomem, range;
	int finished;       /* tk_verify_finish: 1 called (no more events), 2 done */
	tk_u128 tick_p, tick_q; /* a tick is p/q ps */
	uint32_t pct[TK_PCTL_MAX]; /* the percentiles given to stats, in order */
	int started;        /* the first event was seen */
	uint64_t seq;       /* values seen (the order of the first beyond) */
	size_t load_failed; /* the load requirement that refused an event
			       (its load's message in lerr), else SIZE_MAX */
	tk_error lerr;
};

/* does requirement r name entity id (by name or type)? */
static int names_entity(const tk_verify *v, const req *r, uint32_t id)
{
	const tk_entity *e = tk_trace_entity(v->t, id);
	const char *s;
	size_t len;

	if (!e)
		return 0;
	if (r->subj == S_TYPE)
		return e->type == r->type;
	if (r->subj != S_ENTITY)
		return 0;
	s = tk_trace_str(v->t, e->name, &len);
	for (size_t i = 0; s && i < r->nnames; i++)
		if (strlen(r->names[i]) == len && !memcmp(r->names[i], s, len))
			return 1;
	return 0;
}

/* ticks of a time metric in ps */
static rat ticks_ps(const tk_verify *v, uint64_t ticks)
{
	rat r;

	r.n = (tk_i128)((tk_u128)ticks * v->tick_p);
	r.d = (tk_i128)v->tick_q;
	return r;
}

/* value (ticks) vs bound b: <0, 0, >0; 0 too on overflow (flagged) */
static int cmp_ticks(tk_verify *v, uint64_t ticks, const bound *b)
{
	int c;

	if (rat_cmp(ticks_ps(v, ticks), b->v, &c) < 0) {
		v->range = 1;
		return 0;
	}
	return c;
}

static void on_value(void *ctx, uint32_t entity, tk_metric metric, int64_t inst,
		     uint64_t value, uint64_t time)
{
	tk_verify *v = ctx;
	const tk_reqs *q = v->q;

	v->seq++;
	if (tk_grow_zero((void **)&v->interest, &v->ninterest, entity, 1) < 0) {
		v->nomem = 1;
		return;
	}
	if (v->interest[entity] == 0) {
		v->interest[entity] = 1;
		for (size_t i = 0; i < q->n; i++)
			if (names_entity(v, &q->r[i], entity))
				v->interest[entity] = 2;
	}
	if (v->interest[entity] != 2)
		return;
	for (size_t i = 0; i < q->n; i++) {
		const req *r = &q->r[i];
		track *k;
		if ((r->subj != S_ENTITY && r->subj != S_TYPE) || r->metric != metric ||
		    !names_entity(v, r, entity))
			continue;
		if (tk_grow_zero((void **)&v->tr[i], &v->ntr[i], entity, sizeof(track)) < 0) {
			v->nomem = 1;
			return;
		}
		k = &v->tr[i][entity];
		if (!k->has_min || value < k->min) {
			k->has_min = 1;
			k->min = value;
			k->min_inst = inst;
			k->min_time = time;
		}
		if (!r->pct)
			continue;
		if (r->max.has && (metric == TK_METRIC_NPRE
				   ? (tk_i128)value * r->max.v.d > r->max.v.n
				   : cmp_ticks(v, value, &r->max) > 0)) {
			if (!k->has_hi) {
				k->has_hi = 1;
				k->hi_inst = inst;
				k->hi_time = time;
				k->hi_seq = v->seq;
			}
			k->nhi++;
		}
		if (r->min.has && (metric == TK_METRIC_NPRE
				   ? (tk_i128)value * r->min.v.d < r->min.v.n
				   : cmp_ticks(v, value, &r->min) < 0)) {
			if (!k->has_lo) {
				k->has_lo = 1;
				k->lo_inst = inst;
				k->lo_time = time;
				k->lo_seq = v->seq;
			}
			k->nlo++;
		}
	}
}

/* a core's load window */
static int on_window(void *ctx, uint64_t start, uint64_t end, const uint64_t *busy,
		     size_t ncores)
{
	lreq *L = ctx;
	uint64_t b, len = end - start;

	for (; L->core == SIZE_MAX && L->checked < ncores; L->checked++) {
		const tk_entity *e = tk_trace_entity(L->v->t, tk_load_core(L->l, L->checked));
		size_t n;
		const char *s = e ? tk_trace_str(L->v->t, e->name, &n) : NULL;
		if (s && n == strlen(L->r->names[0]) && !memcmp(s, L->r->names[0], n))
			L->core = L->checked;
	}
	if (!len)
		return TK_OK;
	b = L->core < ncores ? busy[L->core] : 0;
	L->nwin++;
	/* b/len against the worst so far */
	if (!L->has || (tk_u128)b * L->hi_len > (tk_u128)L->hi_b * len) {
		L->hi_b = b;
		L->hi_len = len;
		L->hi_start = start;
	}
	if (!L->has || (tk_u128)b * L->lo_len < (tk_u128)L->lo_b * len) {
		L->lo_b = b;
		L->lo_len = len;
		L->lo_start = start;
	}
	L->has = 1;
	return TK_OK;
}

/* "FILE:LINE:COLUMN: " of requirement r, for an error the trace gives */
static const char *req_at(const tk_reqs *q, const req *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%llu:%u: ", q->path ? q->path : "",
		 (unsigned long long)r->line, (unsigned)r->col);
	return buf;
}

/* A time is held against a bound of its kind: a trace timed in cycles
 * (tk_trace_cycle_unit()) against cycles of its unit, any other against
 * a unit of time; a load's window is a time, which cycles have not. */
static int bound_unit_check(const tk_reqs *q, const req *r, const bound *b,
			    const char *cyc, tk_error *err)
{
	char at[160];

	if (!b->has || (!IS_CYC(b->unit) && !(b->unit >= TK_UNIT_PS && b->unit <= TK_UNIT_S)))
		return TK_OK;
	if (cyc && (!IS_CYC(b->unit) || strcmp(tk_cycle_units[b->unit - U_CYC], cyc)))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "%srequirement '%s': the bound %s is not in %s: the trace's times are %s cycles, which have no length",
				  req_at(q, r, at, sizeof(at)), r->name, b->text, cyc, cyc);
	if (!cyc && IS_CYC(b->unit))
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "%srequirement '%s': the bound %s is in cycles: the trace's times are not",
				  req_at(q, r, at, sizeof(at)), r->name, b->text);
	return TK_OK;
}

static int time_units_check(const tk_reqs *q, const tk_trace *t, tk_error *err)
{
	const char *cyc = tk_trace_cycle_unit(t);
	char at[160];

	for (size_t i = 0; i < q->n; i++) {
		const req *r = &q->r[i];
		int rc;
		if ((rc = bound_unit_check(q, r, &r->max, cyc, err)) < 0 ||
		    (rc = bound_unit_check(q, r, &r->min, cyc, err)) < 0)
			return rc;
		if (cyc && r->window)
			return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
					  "%srequirement '%s': a window of %s: the trace's times are %s cycles, which have no length (no window: the whole trace)",
					  req_at(q, r, at, sizeof(at)), r->name, r->window, cyc);
	}
	return TK_OK;
}

int tk_verify_new(tk_verify **out, const tk_reqs *q, const tk_trace *t, tk_error *err)
{
	tk_verify *v;
	uint32_t *pct;
	size_t npct = 0;

	if (!out || !q || !t) {
		if (out)
			*out = NULL;
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_verify_new: no %s given",
				  !out ? "out pointer" : !q ? "requirements" : "trace");
	}
	*out = NULL;
	if (time_units_check(q, t, err) < 0)
		return TK_E_USAGE;
	if (!(v = calloc(1, sizeof(*v))))
		return tk_err_nomem(err, NULL);
	v->q = q;
	v->t = t;
	v->load_failed = SIZE_MAX;
	pct = v->pct;
	v->tr = calloc(q->n ? q->n : 1, sizeof(*v->tr));
	v->ntr = calloc(q->n ? q->n : 1, sizeof(*v->ntr));
	v->loads = calloc(q->n ? q->n : 1, sizeof(*v->loads));
	if (!v->tr || !v->ntr || !v->loads || tk_stats_new(&v->st, t, err) < 0)
		goto fail;
	tk_stats_on_value(v->st, on_value, v);
	for (size_t i = 0; i < q->n; i++) {
		const req *r = &q->r[i];
		size_t j;
		if (r->subj == S_CHAIN &&
		    tk_stats_add_chain(v->st, r->chain, (const char *const *)r->names,
				       r->nnames) == TK_E_NOMEM)
			goto fail;
		/* TK_E_USAGE: the same chain as an earlier requirement's */
		if (r->pct) {
			for (j = 0; j < npct && pct[j] != r->pct; j++)
				;
			/* tk_reqs_read() refused more than TK_PCTL_MAX */
			if (j == npct && npct < TK_PCTL_MAX)
				pct[npct++] = r->pct;
		}
		if (r->subj == S_LOAD) {
			v->loads[i].core = SIZE_MAX;
			v->loads[i].r = r;
			v->loads[i].v = v;
		}
	}
	/* 1..TK_PCTL_MAX valid percentiles on a new tk_stats: only
	 * TK_E_NOMEM can fail */
	if (npct && tk_stats_set_percentiles(v->st, pct, npct) < 0)
		goto fail;
	*out = v;
	return TK_OK;
fail:
	tk_verify_free(v);
	return tk_err_nomem(err, NULL);
}

/* the windows of one windowed load requirement, at most (as `tracekit
 * load --window`) */
#define VERIFY_MAX_WINDOWS 10000000u

/* the load objects, made at the first event (the time base is known) */
static int loads_start(tk_verify *v)
{
	const tk_reqs *q = v->q;
	int rc;

	if (!v->started) {
		if ((rc = tk_unit_factor(tk_trace_timebase(v->t), TK_UNIT_PS, &v->tick_p,
					 &v->tick_q)) < 0)
			return rc;
		v->started = 1;
	}

	for (size_t i = 0; i < q->n; i++) {
		lreq *L = &v->loads[i];
		if (q->r[i].subj != S_LOAD || L->l)
			continue;
		if (q->r[i].window) {
			tk_timebase from = { TK_UNIT_NS, 1, 1 };
			uint64_t d;
			tk_unit u;
			if (tk_duration_parse(q->r[i].window, -1, &d, &u) < 0)
				return TK_E_RANGE;
			from.unit = u;
			if (tk_time_convert(d, &from, tk_trace_timebase(v->t), TK_ROUND_EXACT,
					    &L->window) < 0 || !L->window) {
				v->range = 2 + (int)i;
				return TK_E_RANGE;
			}
		}
		if (tk_load_new(&L->l, v->t, L->window, L->window ? on_window : NULL,
				L, NULL) < 0)
			return TK_E_NOMEM;
		/* as `tracekit load --window`: a window far too short for the
		 * trace's span (a time far ahead) is refused at the event that
		 * passes the limit, not worked through for hours */
		if (L->window && tk_load_set_limit(L->l, VERIFY_MAX_WINDOWS, NULL, NULL,
						   NULL) < 0)
			return TK_E_NOMEM;
	}
	return TK_OK;
}

static int verify_event(tk_verify *v, const tk_event *ev)
{
	int rc;

	if ((rc = loads_start(v)) < 0)
		return rc;
	if ((rc = tk_stats_event(v->st, ev, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < v->q->n; i++)
		if (v->loads[i].l && (rc = tk_load_event(v->loads[i].l, ev, &v->lerr)) < 0) {
			if (rc == TK_E_RANGE || rc == TK_E_UNSUPPORTED)
				v->load_failed = i;
			return rc;
		}
	return v->nomem ? TK_E_NOMEM : TK_OK;
}

/* a windowed load requirement that refused an event (v->load_failed): too
 * many windows, or windows over a second time line; the load's message,
 * at its line of the input, named by the requirement */
static int load_refused(const tk_verify *v, int rc, tk_error *err)
{
	const req *r = &v->q->r[v->load_failed];
	char at[160];

	if (rc == TK_E_RANGE)
		return tk_err_set(err, rc, NULL, 0, 0,
				  "%srequirement '%s': window %s makes more than %u windows of this trace: give a longer window",
				  req_at(v->q, r, at, sizeof(at)), r->name, r->window ? r->window : "",
				  VERIFY_MAX_WINDOWS);
	return tk_err_set(err, rc, NULL, v->lerr.line, v->lerr.column, "%srequirement '%s': %s",
			  req_at(v->q, r, at, sizeof(at)), r->name, v->lerr.msg);
}

/* a requirement's window that is not a whole number of ticks (v->range > 1) */
static int window_range(const tk_verify *v, tk_error *err)
{
	const req *r = &v->q->r[v->range - 2];
	char at[160];

	return tk_err_set(err, TK_E_RANGE, NULL, 0, 0,
			  "%srequirement '%s': window %s is not a whole number of the trace's ticks (below 2^64)",
			  req_at(v->q, r, at, sizeof(at)), r->name, r->window);
}

int tk_verify_event(tk_verify *v, const tk_event *ev, tk_error *err)
{
	int rc = tk_an_check_event(v ? v->t : NULL, v, ev, "tk_verify_event", err);

	if (rc < 0)
		return rc;
	if (v->finished)
		return tk_an_finished(err, "tk_verify_event", "tk_verify_finish");
	rc = verify_event(v, ev);
	if (rc < 0 && v->range > 1)
		return window_range(v, err);
	if (rc < 0 && v->load_failed != SIZE_MAX)
		return load_refused(v, rc, err);
	return tk_an_fail(err, rc, "tk_verify_event");
}

static void vstr_vadd(verdict_buf *o, vstr *s, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vstr_vadd(verdict_buf *o, vstr *s, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		o->nomem = 1;
		return;
	}
	if (s->cap - s->len <= (size_t)n) {
		size_t cap = s->len + (size_t)n + 64;
		char *p = realloc(s->p, cap);

		if (!p) {
			o->nomem = 1;
			return;
		}
		s->p = p;
		s->cap = cap;
	}
	vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
	s->len += (size_t)n;
}

static void vstr_set(verdict_buf *o, vstr *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* s made the text of fmt */
static void vstr_set(verdict_buf *o, vstr *s, const char *fmt, ...)
{
	va_list ap;

	s->len = 0;
	va_start(ap, fmt);
	vstr_vadd(o, s, fmt, ap);
	va_end(ap);
}

static void put_text(verdict_buf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* fmt's text added to the verdict's */
static void put_text(verdict_buf *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vstr_vadd(o, &o->text, fmt, ap);
	va_end(ap);
}

/* a name of nlen bytes as printf's precision */
static int prec(size_t nlen)
{
	return nlen < INT_MAX ? (int)nlen : INT_MAX;
}

/* the instance and time as text */
static void fmt_where(const tk_verify *v, verdict_buf *o, const char *prefix,
		      const char *name, size_t nlen, int64_t inst, int has_time,
		      uint64_t time, int window)
{
	const tk_timebase *tb = tk_trace_timebase(v->t);
	char at[64], ib[32] = "";

	vstr_set(o, &o->where, "%.*s", prec(nlen), name);
	o->pub.inst = inst;
	o->pub.has_time = has_time;
	o->pub.time = time;
	if (!has_time)
		return;
	if (tk_trace_cycle_unit(v->t))
		/* a trace timed in cycles: its ticks, in its unit */
		snprintf(at, sizeof(at), "%llu%s", (unsigned long long)time,
			 tk_trace_cycle_unit(v->t));
	else if (tk_time_format(time, tb, tb->unit, at, sizeof(at)) < 0 || strchr(at, '/'))
		snprintf(at, sizeof(at), "%llu", (unsigned long long)time); /* ticks */
	else
		strncat(at, tk_unit_name(tb->unit), sizeof(at) - strlen(at) - 1);
	if (inst != TK_INST_NONE)
		snprintf(ib, sizeof(ib), " instance %lld", (long long)inst);
	put_text(o, "%s%s%.*s%s %s %s", prefix, window ? "window of " : "",
		 prec(nlen), name, ib, window ? "from" : "at", at);
}

/* one row's values against the bounds: hi against max, lo against min */
typedef struct cand {
	const char *name;
	size_t nlen;
	rat hi, lo;
	int64_t hi_inst, lo_inst;
	int hi_t, lo_t;
	uint64_t hi_time, lo_time, nhi, nlo;
	uint64_t hi_seq, lo_seq;
} cand;

/* JIT's exact value of row i (max or min) */
static int jit_value(tk_verify *v, size_t i, int want_max, rat *out)
{
	char buf[128], *sl;
	int unit;

	if (tk_stats_format_exact(v->st, i, want_max ? TK_STAT_MAX : TK_STAT_MIN,
				  TK_UNIT_NS, buf, sizeof(buf)) < 0)
		return -1;
	sl = strchr(buf, '/');
	if (sl) {
		rat den;
		*sl = '\0';
		if (parse_number(buf, out, &unit) < 0 ||
		    parse_number(sl + 1, &den, &unit) < 0 || den.n <= 0 || den.d != 1)
			return -1;
		out->d = den.n;
		*out = rat_norm(*out);
		return 0;
	}
	return parse_number(buf, out, &unit);
}

/* row i of requirement ri as a candidate; 0, or -1 (no value) */
static int row_cand(tk_verify *v, size_t ri, size_t i, cand *c)
{
	const req *r = &v->q->r[ri];
	const tk_stat *s = tk_stats_get(v->st, i);
	const track *k = NULL;

	memset(c, 0, sizeof(*c));
	c->name = tk_stats_row_name(v->st, i, &c->nlen);
	if (!c->name)
		c->name = "", c->nlen = 0;
	c->hi_inst = c->lo_inst = TK_INST_NONE;
	if (r->metric == TK_METRIC_LOST) {
		c->hi.n = c->lo.n = (tk_i128)s->count;
		c->hi.d = c->lo.d = 1;
		return 0;
	}
	if (!s->count)
		return -1;
	if (!s->chain && s->entity < v->ntr[ri] && v->tr[ri][s->entity].has_min)
		k = &v->tr[ri][s->entity];
	if (r->metric == TK_METRIC_JIT) {
		if (jit_value(v, i, 1, &c->hi) < 0 || jit_value(v, i, 0, &c->lo) < 0)
			return -1;
		c->hi_inst = s->max_inst;
		c->hi_time = s->max_time;
		c->hi_t = 1;
		return 0;
	}
	if (r->pct) {
		size_t j, np = tk_stats_percentile_count(v->st);
		uint64_t pv = 0;
		for (j = 0; j < np && v->pct[j] != r->pct; j++)
			;
		if (j == np || !tk_stats_percentile(v->st, i, j, &pv))
			return -1;
		c->hi = c->lo = ticks_ps(v, pv);
		if (k && k->has_hi) {
			c->hi_inst = k->hi_inst;
			c->hi_time = k->hi_time;
			c->hi_t = 1;
			c->nhi = k->nhi;
			c->hi_seq = k->hi_seq;
		}
		if (k && k->has_lo) {
			c->lo_inst = k->lo_inst;
			c->lo_time = k->lo_time;
			c->lo_t = 1;
			c->nlo = k->nlo;
			c->lo_seq = k->lo_seq;
		}
	} else {
		if (r->metric == TK_METRIC_NPRE) {
			c->hi.n = (tk_i128)s->max;
			c->lo.n = (tk_i128)s->min;
			c->hi.d = c->lo.d = 1;
		} else {
			c->hi = ticks_ps(v, s->max);
			c->lo = ticks_ps(v, s->min);
		}
		c->hi_inst = s->max_inst;
		c->hi_time = s->max_time;
		c->hi_t = 1;
		if (k) {
			c->lo_inst = k->min_inst;
			c->lo_time = k->min_time;
			c->lo_t = 1;
		}
	}
	c->hi = rat_norm(c->hi);
	c->lo = rat_norm(c->lo);
	return 0;
}

/* the subject's words */
static void subject(const req *r, verdict_buf *o)
{
	char pb[48] = "";

	if (r->pct)
		snprintf(pb, sizeof(pb), " p%s", r->pct_text);
	switch (r->subj) {
	case S_ENTITY:
		vstr_set(o, &o->subject, "%s%s %s%s", r->names[0],
			 r->nnames > 1 ? " ..." : "", tk_metric_name(r->metric), pb);
		break;
	case S_TYPE:
		vstr_set(o, &o->subject, "every %s %s%s",
			 tk_etype_name(r->type), tk_metric_name(r->metric), pb);
		break;
	case S_CHAIN:
		vstr_set(o, &o->subject, "chain %s %s%s", r->chain,
			 tk_metric_name(r->metric), pb);
		break;
	default:
		vstr_set(o, &o->subject, "%s load%s%s", r->names[0],
			 r->window ? " per window of " : "", r->window ? r->window : "");
		break;
	}
}

/* one bound against the worst candidate: 1 holds, 0 fails, -1 range */
static int judge(tk_verify *v, const req *r, const bound *b, int is_max, const cand *w,
		 verdict_buf *o, int report, int window)
{
	rat val = is_max ? w->hi : w->lo, m;
	int c, u = b->unit;

	if (rat_cmp(val, b->v, &c) < 0 || rat_sub(is_max ? b->v : val, is_max ? val : b->v, &m) < 0)
		return -1;
	if (report) {
		rat_fmt_unit(val, u, o->value, sizeof(o->value));
		vstr_set(o, &o->bound, "%s %s", is_max ? "max" : "min", b->text);
		rat_fmt_unit(m, u, o->margin, sizeof(o->margin));
		o->pub.ok = is_max ? c <= 0 : c >= 0;
		put_text(o, "%s: %s %s, bound %s, margin %s", o->subject.p,
			 r->pct || r->metric == TK_METRIC_LOST ? "is" : r->subj == S_LOAD && window ? (is_max ? "highest" : "lowest")
			 : r->subj == S_LOAD ? "is" : is_max ? "max" : "min",
			 o->value, o->bound.p, o->margin);
		uint64_t nb = is_max ? w->nhi : w->nlo;
		if (r->pct && nb)
			put_text(o, "; %llu value%s %s %s, the first", (unsigned long long)nb,
				 nb == 1 ? "" : "s", is_max ? "above" : "below", b->text);
		if (r->subj == S_CHAIN && (is_max ? w->hi_t : w->lo_t)) {
			/* REACTION: the cause's time and writer, AGE: the effect's */
			fmt_where(v, o, r->metric == TK_METRIC_REACTION ?
				  "; worst: the cause's " : "; worst: the effect's ",
				  "writer", 6, is_max ? w->hi_inst : w->lo_inst, 1,
				  is_max ? w->hi_time : w->lo_time, 0);
			vstr_set(o, &o->where, "%s", r->chain);
			return is_max ? c <= 0 : c >= 0;
		}
		fmt_where(v, o, r->pct && nb ? ": " : "; worst: ", w->name, w->nlen, is_max ? w->hi_inst : w->lo_inst,
			  is_max ? w->hi_t : w->lo_t, is_max ? w->hi_time : w->lo_time, window);
	}
	(void)v;
	return is_max ? c <= 0 : c >= 0;
}

/* is metric m one that every complete instance has? */
static int per_instance(tk_metric m)
{
	return m == TK_METRIC_IPT || m == TK_METRIC_CET || m == TK_METRIC_GET ||
	       m == TK_METRIC_RT || m == TK_METRIC_NPRE;
}

static int eval_req(tk_verify *v, size_t ri, verdict_buf *o)
{
	const req *r = &v->q->r[ri];
	cand c, whi, wlo, fhi, flo;
	uint64_t nhi = 0, nlo = 0;
	int have = 0, win = 0, ok_max = 1, ok_min = 1, rc;
	char *found = NULL;
	size_t nent = 0;

	memset(o, 0, sizeof(*o));
	o->pub.name = r->name;
	o->pub.inst = TK_INST_NONE;
	subject(r, o);
	if (o->nomem)
		return TK_E_NOMEM;
	memset(&whi, 0, sizeof(whi));
	memset(&wlo, 0, sizeof(wlo));
	memset(&fhi, 0, sizeof(fhi));
	memset(&flo, 0, sizeof(flo));
	if (r->subj == S_LOAD) {
		lreq *L = &v->loads[ri];
		size_t nc = L->l ? tk_load_core_count(L->l) : 0, i;
		uint64_t first, last;
		for (i = 0; i < nc; i++) {
			const tk_entity *e = tk_trace_entity(v->t, tk_load_core(L->l, i));
			size_t n;
			const char *s = e ? tk_trace_str(v->t, e->name, &n) : NULL;
			if (s && n == strlen(r->names[0]) && !memcmp(s, r->names[0], n))
				break;
		}
		if (i == nc) {
			put_text(o, "%s: core %s is not in the trace", o->subject.p, r->names[0]);
			goto fail;
		}
		memset(&c, 0, sizeof(c));
		c.name = r->names[0];
		c.nlen = strlen(c.name);
		c.hi_inst = c.lo_inst = TK_INST_NONE;
		c.hi_t = c.lo_t = 1;
		if (L->window) {
			if (!L->has) {
				put_text(o, "%s: no window (no events)", o->subject.p);
				goto fail;
			}
			c.hi.n = (tk_i128)L->hi_b * 100;
			c.hi.d = (tk_i128)L->hi_len;
			c.lo.n = (tk_i128)L->lo_b * 100;
			c.lo.d = (tk_i128)L->lo_len;
			c.hi_time = L->hi_start;
			c.lo_time = L->lo_start;
			win = 1;
		} else {
			tk_load_span(L->l, &first, &last);
			/* over several time lines, the sum of their spans */
			if (!tk_load_length(L->l)) {
				put_text(o, "%s: the trace spans no time", o->subject.p);
				goto fail;
			}
			c.hi.n = c.lo.n = (tk_i128)tk_load_core_busy(L->l, i) * 100;
			c.hi.d = c.lo.d = (tk_i128)tk_load_length(L->l);
			c.hi_time = c.lo_time = first;
			c.hi_t = c.lo_t = 0;
		}
		c.hi = rat_norm(c.hi);
		c.lo = rat_norm(c.lo);
		whi = wlo = c;
		have = 1;
	} else {
		/* a chain of a signal the trace lacks has no value, and a LOST
		 * of 0: absent, not a pass */
		for (size_t j = 0; r->subj == S_CHAIN && j < r->nnames; j++)
			if (tk_trace_entity_find(v->t, r->names[j], strlen(r->names[j])) == TK_NONE) {
				put_text(o, "%s: signal %s is not in the trace", o->subject.p, r->names[j]);
				vstr_set(o, &o->where, "%s", r->names[j]);
				goto fail;
			}
		/* by name (entities:), else by entity id (type:) */
		nent = r->subj == S_TYPE ? tk_trace_entity_count(v->t) : r->nnames;
		found = calloc(nent ? nent : 1, 1);
		if (!found)
			return TK_E_NOMEM;
		for (size_t i = 0; i < tk_stats_count(v->st); i++) {
			const tk_stat *s = tk_stats_get(v->st, i);
			size_t j = 0;
			int cmp;
			if (s->metric != r->metric)
				continue;
			if (r->subj == S_CHAIN) {
				size_t n;
				const char *nm = tk_stats_row_name(v->st, i, &n);
				if (!s->chain || !nm || n != strlen(r->chain) || memcmp(nm, r->chain, n))
					continue;
			} else if (s->chain) {
				continue;
			} else if (r->subj == S_TYPE) {
				if (s->type != r->type)
					continue;
			} else {
				size_t n;
				const char *nm = tk_stats_row_name(v->st, i, &n);
				for (j = 0; j < r->nnames; j++)
					if (nm && strlen(r->names[j]) == n && !memcmp(r->names[j], nm, n))
						break;
				if (j == r->nnames)
					continue;
			}
			if (row_cand(v, ri, i, &c) < 0)
				continue;
			/* a percentile: the values beyond the bound over every
			 * entity of the subject, the first of them in the
			 * trace's order */
			if (c.nhi && (!nhi || c.hi_seq < fhi.hi_seq))
				fhi = c;
			if (c.nlo && (!nlo || c.lo_seq < flo.lo_seq))
				flo = c;
			nhi += c.nhi;
			nlo += c.nlo;
			if (r->subj == S_ENTITY)
				found[j] = 1;
			else if (r->subj == S_TYPE && s->entity < nent)
				found[s->entity] = 1;
			if (!have) {
				whi = wlo = c;
				have = 1;
				continue;
			}
			if (rat_cmp(c.hi, whi.hi, &cmp) < 0)
				goto range;
			if (cmp > 0)
				whi = c;
			if (rat_cmp(c.lo, wlo.lo, &cmp) < 0)
				goto range;
			if (cmp < 0)
				wlo = c;
		}
		for (size_t j = 0; r->subj == S_ENTITY && j < r->nnames; j++)
			if (!found[j]) {
				int there = tk_trace_entity_find(v->t, r->names[j],
								 strlen(r->names[j])) != TK_NONE;
				put_text(o, there ? "%s: %s has no %s value in the trace"
					 : "%s: %s is not in the trace", o->subject.p, r->names[j],
					 tk_metric_name(r->metric));
				vstr_set(o, &o->where, "%s", r->names[j]);
				goto fail;
			}
		/* every entity of the type, for a metric that each instance
		 * run to its end has: one without a value (a task that never
		 * completed an instance) is no silent pass either.  PRE, WAIT,
		 * POLL come with the events they measure, DT, PER, ST, JIT
		 * with a second instance: none is not a failure. */
		for (size_t id = 0; r->subj == S_TYPE && have && per_instance(r->metric) &&
		     id < nent; id++) {
			const tk_entity *e = tk_trace_entity(v->t, (uint32_t)id);
			size_t len;
			const char *nm;
			if (found[id] || !e || e->type != r->type)
				continue;
			nm = tk_trace_str(v->t, e->name, &len);
			if (!nm)
				nm = "", len = 0;
			put_text(o, "%s: %.*s has no %s value in the trace", o->subject.p,
				 prec(len), nm, tk_metric_name(r->metric));
			vstr_set(o, &o->where, "%.*s", prec(len), nm);
			goto fail;
		}
		if (!have) {
			if (r->subj == S_TYPE)
				put_text(o, "%s: no %s of type %s in the trace", o->subject.p,
					 tk_metric_name(r->metric), tk_etype_name(r->type));
			else
				put_text(o, "%s: %s is not in the trace (no %s value)", o->subject.p,
					 r->chain, tk_metric_name(r->metric));
			goto fail;
		}
	}
	if (nhi) {
		whi.name = fhi.name;
		whi.nlen = fhi.nlen;
		whi.hi_inst = fhi.hi_inst;
		whi.hi_time = fhi.hi_time;
		whi.hi_t = fhi.hi_t;
		whi.nhi = nhi;
	}
	if (nlo) {
		wlo.name = flo.name;
		wlo.nlen = flo.nlen;
		wlo.lo_inst = flo.lo_inst;
		wlo.lo_time = flo.lo_time;
		wlo.lo_t = flo.lo_t;
		wlo.nlo = nlo;
	}
	/* the max first; the reported bound is the first that fails, else
	 * the first given */
	if (r->max.has && (ok_max = judge(v, r, &r->max, 1, &whi, o, 0, win)) < 0)
		goto range;
	if (r->min.has && (ok_min = judge(v, r, &r->min, 0, &wlo, o, 0, win)) < 0)
		goto range;
	if (r->max.has && (!ok_max || ok_min))
		rc = judge(v, r, &r->max, 1, &whi, o, 1, win);
	else
		rc = judge(v, r, &r->min, 0, &wlo, o, 1, win);
	if (rc < 0)
		goto range;
	if (ok_max && ok_min && r->max.has && r->min.has) {
		char val[96], mar[96];
		rat m;
		if (rat_sub(wlo.lo, r->min.v, &m) < 0)
			goto range;
		rat_fmt_unit(wlo.lo, r->min.unit, val, sizeof(val));
		rat_fmt_unit(m, r->min.unit, mar, sizeof(mar));
		put_text(o, "; %s%s, bound min %s, margin %s",
			 r->subj == S_LOAD ? (win ? "lowest " : "is ") :
			 r->pct || r->metric == TK_METRIC_LOST ? "is " : "min ",
			 val, r->min.text, mar);
	}
	o->pub.ok = ok_max && ok_min;
	free(found);
	goto done;
fail:
	o->pub.ok = 0;
	free(found);
done:
	if (o->nomem)
		return TK_E_NOMEM;
	o->pub.subject = o->subject.p ? o->subject.p : "";
	o->pub.text = o->text.p ? o->text.p : "";
	o->pub.value = o->value;
	o->pub.bound = o->bound.p ? o->bound.p : "";
	o->pub.margin = o->margin;
	o->pub.where = o->where.p ? o->where.p : "";
	return TK_OK;
range:
	free(found);
	return TK_E_RANGE;
}

/* the verdicts and their words */
static void verdicts_free(tk_verify *v)
{
	for (size_t i = 0; v->out && i < v->nout_alloc; i++) {
		free(v->out[i].subject.p);
		free(v->out[i].text.p);
		free(v->out[i].bound.p);
		free(v->out[i].where.p);
	}
	free(v->out);
	v->out = NULL;
	v->nout = v->nfail = v->nout_alloc = 0;
}

/* tk_verify_finish's work, once */
static int verify_finish(tk_verify *v, tk_error *err)
{
	int rc;
	size_t n = v->q->n;

	if (v->range > 1)
		return window_range(v, err);
	if ((rc = loads_start(v)) < 0)
		goto failed;
	if ((rc = tk_stats_finish(v->st, NULL)) < 0)
		goto failed;
	for (size_t i = 0; i < n; i++)
		if (v->loads[i].l && (rc = tk_load_finish(v->loads[i].l, NULL)) < 0)
			goto failed;
	verdicts_free(v);
	v->out = calloc(n ? n : 1, sizeof(*v->out));
	if (!v->out)
		return tk_err_nomem(err, NULL);
	v->nout_alloc = n;
	for (size_t i = 0; i < n; i++) {
		if ((rc = eval_req(v, i, &v->out[i])) < 0)
			goto failed;
		v->nout++;
		v->nfail += !v->out[i].pub.ok;
	}
	if (v->range)
		return tk_err_set(err, TK_E_RANGE, NULL, 0, 0,
				  "a comparison needs more than 128 bits");
	return TK_OK;
failed:
	if (rc == TK_E_NOMEM)
		return tk_err_nomem(err, NULL);
	if (v->range > 1)
		return window_range(v, err);
	return tk_err_set(err, rc, NULL, 0, 0, rc == TK_E_RANGE ?
			  "a value of the requirements needs more than 128 bits" :
			  "cannot write or read back a temporary file");
}

int tk_verify_finish(tk_verify *v, tk_error *err)
{
	int rc;

	if (!v)
		return tk_err_set(err, TK_E_USAGE, NULL, 0, 0,
				  "tk_verify_finish: no verification given");
	if (v->finished == 2)
		return TK_OK;
	v->finished = 1;
	rc = verify_finish(v, err);
	if (rc == TK_OK)
		v->finished = 2;
	return rc;
}

size_t tk_verify_count(const tk_verify *v)
{
	return v->nout;
}

const tk_verdict *tk_verify_get(const tk_verify *v, size_t i)
{
	return i < v->nout ? &v->out[i].pub : NULL;
}

size_t tk_verify_failures(const tk_verify *v)
{
	return v->nfail;
}

void tk_verify_free(tk_verify *v)
{
	if (!v)
		return;
	tk_stats_free(v->st);
	for (size_t i = 0; v->tr && i < v->q->n; i++)
		free(v->tr[i]);
	for (size_t i = 0; v->loads && i < v->q->n; i++)
		tk_load_free(v->loads[i].l);
	free(v->tr);
	free(v->ntr);
	free(v->loads);
	free(v->interest);
	verdicts_free(v);
	free(v);
}
