/* cmd_diff.c - `tracekit diff`: what changed in the metrics between two runs. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit diff [options] BASE NEW\n\n"
		"Compares every (entity, metric) row of `tracekit stats` of two traces of\n"
		"any formats: count, min, avg, max (and the percentiles asked) of BASE and\n"
		"NEW side by side, with the change, absolute and relative.  Lists the rows\n"
		"whose min, avg, max or a percentile changed by more than the threshold,\n"
		"worst first: by the largest relative worsening (growth) of max or avg,\n"
		"then the other changes by their largest relative change; then the\n"
		"entities and chains present in one trace only.  For each worsened row,\n"
		"the instance that holds NEW's max, with its time.  Every metric counts\n"
		"a growth as a worsening, and a row of BASE that NEW has not (a task\n"
		"that no longer ran or completed, a trace cut short) as one too.\n"
		"Exit 0 when no max or avg grew by more than the threshold and NEW has\n"
		"every row of BASE, 1 when one grew or went, 2 for unreadable input.\n\n"
		"options:\n"
		"  --threshold PCT     a change counts when it is more than PCT %% of\n"
		"                      BASE's value (default 0: any change; a value that\n"
		"                      was 0 changes by more than any threshold)\n"
		"  --metric M,...      only these metrics (RT, CET, ..., REACTION, AGE, LOST)\n"
		"  --all               list every row, changed or not\n"
		"  --allow-missing     a row of BASE that NEW has not is listed, not a\n"
		"                      worsening (exit 0 for it)\n"
		"  --format text|csv|json  output format (default text)\n"
		"  --unit UNIT         unit of the times: ps, ns, us, ms, s (default ns;\n"
		"                      traces timed in cycles, Tarmac logs in clk, are\n"
		"                      compared in cycles, with cycles only, no --unit)\n"
		"  --chain NAME=S0,...,Sn  a cause-effect chain, in both (as stats)\n"
		"  --percentiles P,... percentiles of the times, in both (as stats)\n"
		"  --from FORMAT       read both traces as FORMAT instead of probing them\n"
		CLI_READ_HELP
		"  --strict            read by the specification only\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
}

enum { O_FORMAT = 256, O_UNIT, O_CHAIN, O_PERCENTILES, O_THRESHOLD, O_METRIC, O_ALL,
       O_ALLOW_MISSING };
enum { OUT_TEXT, OUT_CSV, OUT_JSON };
enum { ST_SAME, ST_CHANGED, ST_WORSE, ST_BASE_ONLY, ST_NEW_ONLY };
static const char *const status_names[] = { "same", "changed", "worse", "base-only", "new-only" };

typedef __int128 i128;
typedef unsigned __int128 u128;

/* a/den rounded half up to `places` decimals, trailing zeros dropped;
 * -1 when it does not fit.  By long division, digit by digit: a time in
 * a unit far finer than its tick asks up to 40 places (tk_time_digits),
 * and 10^40 is beyond 128 bits. */
static int fmt_dec(u128 a, u128 den, int places, char *buf, size_t size)
{
	char dig[48], tmp[48];
	u128 ip, rem;
	int nd = 0, n = 0, i;
	size_t o = 0;

	if (!den || places < 0 || places > (int)sizeof(dig) || den > ~(u128)0 / 10)
		return -1;
	ip = a / den;
	rem = a % den;
	while (nd < places) {
		rem *= 10;
		dig[nd++] = (char)('0' + (int)(rem / den));
		rem %= den;
	}
	/* what is left is rounded half up: the digits end in a carry */
	if (rem && rem >= den - rem) {
		for (i = nd - 1; i >= 0 && dig[i] == '9'; i--)
			dig[i] = '0';
		if (i >= 0)
			dig[i]++;
		else if (ip == ~(u128)0)
			return -1;
		else
			ip++;
	}
	while (nd > 0 && dig[nd - 1] == '0')
		nd--;
	do {
		tmp[n++] = (char)('0' + (int)(ip % 10));
		ip /= 10;
	} while (ip);
	/* tmp holds the integer's digits backwards */
	if ((size_t)n + (nd ? 1 + (size_t)nd : 0) + 1 > size)
		return -1;
	while (n > 0)
		buf[o++] = tmp[--n];
	if (nd) {
		buf[o++] = '.';
		memcpy(buf + o, dig, (size_t)nd);
		o += (size_t)nd;
	}
	buf[o] = '\0';
	return 0;
}

/* a signed rational, d > 0 */
typedef struct rq {
	i128 n, d;
} rq;

/* one trace's stats */
typedef struct side {
	const char *path;
	tk_reader *r;
	tk_stats *st;
	size_t *order;      /* rows by (name, type, metric) */
	size_t n;
} side;

/* a value of a row: min, avg, max, then the percentiles */
#define MAX_FIELDS (3 + CLI_MAX_PCT)

/* one output row */
typedef struct drow {
	size_t b, n;        /* row in base / new, SIZE_MAX: none */
	int status;
	/* the largest relative growth of max or avg, and the largest relative
	 * change of any value, in millionths of a percent (saturated); a value
	 * from 0 counts as the largest */
	i128 worsen, change;
} drow;

static size_t nfields;
static const side *cmp_side;

static const char *row_key(const tk_stats *st, size_t i, size_t *len, const char **type,
			   tk_metric *m)
{
	const tk_stat *s = tk_stats_get(st, i);
	const char *name = tk_stats_row_name(st, i, len);

	*type = s->chain ? "CHAIN" : tk_etype_name(s->type);
	*m = s->metric;
	if (!name) {
		*len = 0;
		name = "";
	}
	return name;
}

static int key_cmp(const tk_stats *a, size_t i, const tk_stats *b, size_t j)
{
	size_t la, lb;
	const char *ta, *tb;
	tk_metric ma, mb;
	const char *na = row_key(a, i, &la, &ta, &ma), *nb = row_key(b, j, &lb, &tb, &mb);
	int c = memcmp(na, nb, la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	if ((c = strcmp(ta, tb)))
		return c;
	return ma < mb ? -1 : ma > mb;
}

static int order_cmp(const void *x, const void *y)
{
	return key_cmp(cmp_side->st, *(const size_t *)x, cmp_side->st, *(const size_t *)y);
}

/* "[-]N[.D]" or "[-]N[.D]/M" into *q; -1 when not */
static int parse_rq(const char *s, rq *q)
{
	i128 n = 0, d = 1, m = 0;
	int neg = *s == '-';

	if (neg)
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *s - '0', &n))
			return -1;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (__builtin_mul_overflow(n, 10, &n) ||
			    __builtin_add_overflow(n, *s - '0', &n) ||
			    __builtin_mul_overflow(d, 10, &d))
				return -1;
	if (*s == '/') {
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (__builtin_mul_overflow(m, 10, &m) || __builtin_add_overflow(m, *s - '0', &m))
				return -1;
		if (!m || __builtin_mul_overflow(d, m, &d))
			return -1;
	}
	if (*s)
		return -1;
	q->n = neg ? -n : n;
	q->d = d;
	return 0;
}

/* field f of row i exactly (times in ps), or -1 (no value) */
static int field_value(const tk_stats *st, size_t i, size_t f, rq *q)
{
	char buf[160];
	tk_stat_field sf = f < 3 ? (tk_stat_field)f : (tk_stat_field)(TK_STAT_PCT0 + f - 3);
	const tk_stat *s = tk_stats_get(st, i);

	if (s->metric == TK_METRIC_LOST && f == 2) {
		q->n = (i128)s->count; /* LOST: its count is its value */
		q->d = 1;
		return 0;
	}
	if (tk_stats_format_exact(st, i, sf, TK_UNIT_PS, buf, sizeof(buf)) <= 0)
		return -1;
	return parse_rq(buf, q);
}

/* does row i have a value at all?  A row can be there without one (a
 * chain that no cause went through: REACTION and AGE of count 0) */
static int row_has_value(const tk_stats *st, size_t i)
{
	rq q;

	for (size_t f = 0; f < nfields; f++)
		if (field_value(st, i, f, &q) == 0)
			return 1;
	return 0;
}

/* (new - base) / base in millionths of a percent, saturated, rounded away
 * from zero (a change beyond a threshold of whole millionths stays beyond
 * it: 5.0000005 % is more than 5 %); base 0: the largest (unless both
 * are 0) */
static i128 rel_change(rq b, rq n)
{
	i128 x, y, diff, r;
	const i128 big = (i128)1 << 100;

	if (__builtin_mul_overflow(n.n, b.d, &x) || __builtin_mul_overflow(b.n, n.d, &y) ||
	    __builtin_sub_overflow(x, y, &diff))
		return big;
	if (!diff)
		return 0;
	if (!y)
		return diff > 0 ? big : -big;
	if (__builtin_mul_overflow(diff, (i128)100000000, &r))
		return diff > 0 ? big : -big;
	if (y < 0)
		y = -y;
	if (r % y)
		return r / y + (r > 0 ? 1 : -1);
	return r / y;
}

/* value of field f of row i in the unit, as stats writes it */
static void put_field(const tk_stats *st, size_t i, size_t f, tk_unit unit, char *buf,
		      size_t size)
{
	tk_stat_field sf = f < 3 ? (tk_stat_field)f : (tk_stat_field)(TK_STAT_PCT0 + f - 3);
	const tk_stat *s = tk_stats_get(st, i);

	if (s->metric == TK_METRIC_LOST && f == 2) {
		snprintf(buf, size, "%llu", (unsigned long long)s->count);
		return;
	}
	if (tk_stats_format(st, i, sf, unit, buf, size) < 0)
		snprintf(buf, size, "?");
}

/* the places of a value of metric m, as stats writes it: a time at most
 * tk_time_digits() of its trace's time base in the unit (of either trace,
 * the finer, when their bases differ), JIT in millionths, a count's
 * average 3 */
static int change_places(const side *B, const side *N, tk_metric m, tk_unit unit)
{
	if (tk_metric_is_time(m)) {
		int pb = tk_time_digits(tk_trace_timebase(tk_reader_trace(B->r)), unit);
		int pn = tk_time_digits(tk_trace_timebase(tk_reader_trace(N->r)), unit);
		return pb > pn ? pb : pn;
	}
	return m == TK_METRIC_JIT ? 6 : 3;
}

/* the change new - base of field f in the unit (with the places of
 * stats' values of the metric), and relative (2 places, with a sign); ""
 * where either lacks a value */
static void put_change(const side *B, size_t bi, const side *N, size_t ni, size_t f,
		       tk_unit unit, int is_time, char *abs, char *rel, size_t size)
{
	rq b, n;
	i128 x, y, diff;
	u128 den, a;
	int places = change_places(B, N, tk_stats_get(B->st, bi)->metric, unit);

	abs[0] = rel[0] = '\0';
	if (field_value(B->st, bi, f, &b) < 0 || field_value(N->st, ni, f, &n) < 0)
		return;
	if (__builtin_mul_overflow(n.n, b.d, &x) || __builtin_mul_overflow(b.n, n.d, &y) ||
	    __builtin_sub_overflow(x, y, &diff) || __builtin_mul_overflow(b.d, n.d, &x))
		return;
	den = (u128)x;
	if (is_time) {
		static const unsigned long long per[5] = { 1, 1000, 1000000, 1000000000,
							   1000000000000ull };
		if (__builtin_mul_overflow(den, (u128)per[unit], &den))
			return;
	}
	a = (u128)(diff < 0 ? -diff : diff);
	abs[0] = diff < 0 ? '-' : '+';
	if (fmt_dec(a, den, places, abs + 1, size - 1) < 0)
		snprintf(abs, size, "?");
	if (!b.n) {
		snprintf(rel, size, "%s", diff ? "new" : "+0");
		return;
	}
	/* |diff| / |y| in percent */
	a = (u128)(diff < 0 ? -diff : diff) * 100;
	den = (u128)(y < 0 ? -y : y);
	rel[0] = diff < 0 ? '-' : '+';
	if (fmt_dec(a, den, 2, rel + 1, size - 1) < 0)
		snprintf(rel, size, "?");
}

static int metric_wanted(const char *list, tk_metric m)
{
	const char *name = tk_metric_name(m), *p = list;
	size_t n = strlen(name);

	if (!list)
		return 1;
	while (*p) {
		size_t k = strcspn(p, ",");
		if (k == n && !memcmp(p, name, n))
			return 1;
		p += k;
		if (*p)
			p++;
	}
	return 0;
}

static int drow_cmp(const void *x, const void *y)
{
	const drow *a = x, *b = y;
	int ka = a->status == ST_WORSE ? 0 : a->status == ST_CHANGED ? 1 :
		 a->status == ST_SAME ? 2 : 3;
	int kb = b->status == ST_WORSE ? 0 : b->status == ST_CHANGED ? 1 :
		 b->status == ST_SAME ? 2 : 3;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka == 0 && a->worsen != b->worsen)
		return a->worsen > b->worsen ? -1 : 1;
	if (a->change != b->change)
		return a->change > b->change ? -1 : 1;
	/* ties: the rows' order (name, type, metric) */
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* read one trace into s; 0, or -1 after a message */
static int read_side(side *s, const char *path, const cli_read_opts *ro, char **chains,
		     size_t nchain, const uint32_t *pct, size_t npct)
{
	const tk_event *ev;
	tk_error err;
	int rc;

	s->path = cli_input_name(path);
	if (cli_open(&s->r, path, ro) < 0)
		return -1;
	if (tk_stats_new(&s->st, tk_reader_trace(s->r), NULL) < 0)
		goto nomem;
	for (size_t i = 0; i < nchain; i++)
		if (cli_stats_chain(s->st, "diff", chains[i]) < 0)
			return -1;
	if (npct && tk_stats_set_percentiles(s->st, pct, npct) < 0)
		goto nomem;
	tk_error_clear(&err);
	while ((rc = tk_reader_next(s->r, &ev, &err)) == TK_OK)
		if ((rc = tk_stats_event(s->st, ev, &err)) < 0)
			break;
	if (rc < 0 || tk_stats_finish(s->st, &err) < 0) {
		cli_error(&err);
		return -1;
	}
	cli_warning_summary(s->r, ro);
	s->n = tk_stats_count(s->st);
	s->order = calloc(s->n ? s->n : 1, sizeof(*s->order));
	if (!s->order)
		goto nomem;
	for (size_t i = 0; i < s->n; i++)
		s->order[i] = i;
	cmp_side = s;
	qsort(s->order, s->n, sizeof(*s->order), order_cmp);
	return 0;
nomem:
	cli_msg("tracekit: out of memory\n");
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "unit", required_argument, NULL, O_UNIT },
		{ "chain", required_argument, NULL, O_CHAIN },
		{ "percentiles", required_argument, NULL, O_PERCENTILES },
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "metric", required_argument, NULL, O_METRIC },
		{ "all", no_argument, NULL, O_ALL },
		{ "allow-missing", no_argument, NULL, O_ALLOW_MISSING },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	const char *outfmt = "text", *unit_s = NULL, *metrics = NULL, *thr_s = "0";
	const char *uname;
	side S[2];
	char thr_txt[64];
	char **chains = NULL, **nc;
	size_t nchain = 0, npct = 0, nd = 0, i, j, f, nworse = 0;
	size_t ngone = 0; /* rows of BASE that NEW has not */
	uint32_t pct[CLI_MAX_PCT];
	char pname[CLI_MAX_PCT][16];
	drow *d = NULL;
	i128 thr;
	tk_unit unit;
	int c, rc, out, all = 0, allow_missing = 0, ret = EXIT_BAD;

	memset(S, 0, sizeof(S));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		case O_FORMAT: outfmt = optarg; break;
		case O_UNIT: unit_s = optarg; break;
		case O_THRESHOLD: thr_s = optarg; break;
		case O_METRIC: metrics = optarg; break;
		case O_ALL: all = 1; break;
		case O_ALLOW_MISSING: allow_missing = 1; break;
		case O_CHAIN:
			nc = realloc(chains, (nchain + 1) * sizeof(*chains));
			if (!nc)
				goto nomem;
			chains = nc;
			chains[nchain++] = optarg;
			break;
		case O_PERCENTILES:
			if ((rc = cli_stats_percentiles("diff", optarg, pct, pname)) < 0)
				goto out;
			npct = (size_t)rc;
			break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "diff", c, optarg) < 0)
				goto out;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); ret = EXIT_OK; goto out;
		default: goto out;
		}
	}
	out = !strcmp(outfmt, "text") ? OUT_TEXT : !strcmp(outfmt, "csv") ? OUT_CSV
	      : !strcmp(outfmt, "json") ? OUT_JSON : -1;
	if (out < 0) {
		cli_usage_error("diff", "unknown --format '%s' (text, csv or json)", outfmt);
		goto out;
	}
	if (tk_unit_parse(unit_s ? unit_s : "ns", unit_s ? strlen(unit_s) : 2,
			  0, &unit) < 0) {
		cli_usage_error("diff", "unknown --unit '%s' (ps, ns, us, ms or s)", unit_s);
		goto out;
	}
	{
		rq t;
		if (parse_rq(thr_s, &t) < 0 || t.n < 0 || strchr(thr_s, '/') ||
		    __builtin_mul_overflow(t.n, (i128)1000000, &thr) || thr % t.d) {
			cli_usage_error("diff", "--threshold '%s': expected a percentage >= 0 "
					"with at most 6 decimals", thr_s);
			goto out;
		}
		thr /= t.d;
		/* whole percent, then the millionths (a huge threshold too: it
		 * is a number in the JSON) */
		if (fmt_dec((u128)thr / 1000000, 1, 0, thr_txt, sizeof(thr_txt)) == 0 &&
		    thr % 1000000) {
			size_t k = strlen(thr_txt);
			snprintf(thr_txt + k, sizeof(thr_txt) - k, ".%06u",
				 (unsigned)(thr % 1000000));
			for (k = strlen(thr_txt); thr_txt[k - 1] == '0'; k--)
				thr_txt[k - 1] = '\0';
		}
	}
	if (metrics && !*metrics) {
		/* no metric would compare nothing: a gate that always holds */
		cli_usage_error("diff", "--metric '': expected metrics (RT,CET,...)");
		goto out;
	}
	if (metrics) {
		const char *p = metrics;
		while (*p) {
			size_t k = strcspn(p, ",");
			int m, ok = 0;
			for (m = 0; m < TK_METRIC_END && !ok; m++)
				ok = strlen(tk_metric_name((tk_metric)m)) == k &&
				     !memcmp(p, tk_metric_name((tk_metric)m), k);
			if (!ok) {
				cli_usage_error("diff", "--metric '%s': unknown metric '%.*s'", metrics,
						(int)k, p);
				goto out;
			}
			p += k;
			if (*p)
				p++;
		}
	}
	if (args.n != 2) {
		cli_usage_error("diff", "expected BASE and NEW");
		goto out;
	}
	if (!strcmp(args.v[0], "-") && !strcmp(args.v[1], "-")) {
		/* the second read of it would find it empty */
		cli_usage_error("diff", "standard input (-) given twice");
		goto out;
	}
	if (read_side(&S[0], args.v[0], &ro, chains, nchain, pct, npct) < 0 ||
	    read_side(&S[1], args.v[1], &ro, chains, nchain, pct, npct) < 0)
		goto out;
	uname = tk_unit_name(unit);
	{
		/* ticks that count cycles (a Tarmac log in clk) are compared
		 * as cycles, with cycles of the same unit only */
		const tk_trace *t0 = tk_reader_trace(S[0].r), *t1 = tk_reader_trace(S[1].r);
		const char *c0 = tk_trace_cycle_unit(t0), *c1 = tk_trace_cycle_unit(t1);
		if (c0 || c1) {
			if (!c0 || !c1 || strcmp(c0, c1) != 0 ||
			    tk_trace_timebase(t0)->unit != tk_trace_timebase(t1)->unit) {
				cli_msg("tracekit diff: the times of BASE are %s%s and those of NEW %s%s: they do not compare\n",
					c0 ? c0 : "in ", c0 ? " cycles" : tk_unit_name(tk_trace_timebase(t0)->unit),
					c1 ? c1 : "in ", c1 ? " cycles" : tk_unit_name(tk_trace_timebase(t1)->unit));
				goto out;
			}
			if (cli_cycle_unit_check("diff", t0, unit_s) < 0)
				goto out;
			unit = tk_trace_timebase(t0)->unit;
			uname = c0;
		}
	}
	nfields = 3 + npct;
	d = calloc(S[0].n + S[1].n + 1, sizeof(*d));
	if (!d)
		goto nomem;
	/* merge the two sorted lists of rows */
	for (i = j = 0; i < S[0].n || j < S[1].n;) {
		drow *o = &d[nd];
		int k = i == S[0].n ? 1 : j == S[1].n ? -1 :
			key_cmp(S[0].st, S[0].order[i], S[1].st, S[1].order[j]);
		const tk_stat *s;
		memset(o, 0, sizeof(*o));
		o->b = k <= 0 ? S[0].order[i++] : SIZE_MAX;
		o->n = k >= 0 ? S[1].order[j++] : SIZE_MAX;
		s = tk_stats_get(o->b != SIZE_MAX ? S[0].st : S[1].st,
				 o->b != SIZE_MAX ? o->b : o->n);
		if (!metric_wanted(metrics, s->metric))
			continue;
		nd++;
		/* a row without a value on one side is of the other only, as a
		 * row that side has not: no change computed against nothing */
		if (o->b != SIZE_MAX && o->n != SIZE_MAX) {
			int hb = row_has_value(S[0].st, o->b), hn = row_has_value(S[1].st, o->n);
			if (hb != hn)
				o->status = hb ? ST_BASE_ONLY : ST_NEW_ONLY;
		}
		if (o->b == SIZE_MAX || o->n == SIZE_MAX || o->status != ST_SAME) {
			if (o->status == ST_SAME)
				o->status = o->b == SIZE_MAX ? ST_NEW_ONLY : ST_BASE_ONLY;
			ngone += o->status == ST_BASE_ONLY;
			continue;
		}
		o->status = ST_SAME;
		for (f = 0; f < nfields; f++) {
			rq b, n;
			int hb = field_value(S[0].st, o->b, f, &b) == 0;
			int hn = field_value(S[1].st, o->n, f, &n) == 0;
			i128 r, ar;
			if (!hb && !hn)
				continue;
			/* a value that appeared or went (in a row with values on
			 * both sides) changed, but it is no growth: there is
			 * nothing to grow from or to */
			r = hb != hn ? (i128)1 << 100 : rel_change(b, n);
			ar = r < 0 ? -r : r;
			if (ar > o->change)
				o->change = ar;
			if (ar > thr && o->status == ST_SAME)
				o->status = ST_CHANGED;
			if ((f == 1 || f == 2) && hb == hn && r > o->worsen)
				o->worsen = r;
		}
		if (o->worsen > thr) {
			o->status = ST_WORSE;
			nworse++;
		}
	}
	qsort(d, nd, sizeof(*d), drow_cmp);

	if (out == OUT_CSV) {
		printf("entity,type,metric,status,unit,count_base,count_new");
		for (f = 0; f < nfields; f++) {
			const char *fn = f == 0 ? "min" : f == 1 ? "avg" : f == 2 ? "max" : pname[f - 3];
			printf(",%s_base,%s_new,%s_change,%s_change_pct", fn, fn, fn, fn);
		}
		printf(",max_instance,max_at\n");
	} else if (out == OUT_JSON) {
		printf("{\n  \"base\": ");
		cli_json_cstr(stdout, S[0].path);
		printf(",\n  \"new\": ");
		cli_json_cstr(stdout, S[1].path);
		printf(",\n  \"threshold_pct\": ");
		fputs(thr_txt, stdout);
		printf(",\n  \"unit\": \"%s\",\n  \"worsened\": %zu,\n  \"base_only\": %zu,\n"
		       "  \"missing_allowed\": %s,\n  \"rows\": [", uname,
		       nworse, ngone, allow_missing ? "true" : "false");
	} else {
		printf("base: ");
		cli_text_cstr(stdout, S[0].path);
		printf("\nnew:  ");
		cli_text_cstr(stdout, S[1].path);
		putchar('\n');
		printf("threshold: %s %%; times in %s; %zu row%s worsened", thr_txt,
		       uname, nworse, nworse == 1 ? "" : "s");
		if (ngone)
			printf("; %zu row%s of BASE not in NEW%s", ngone, ngone == 1 ? "" : "s",
			       allow_missing ? " (allowed)" : " (--allow-missing to accept)");
		putchar('\n');
	}
	{
		size_t shown = 0;
		for (i = 0; i < nd; i++) {
			const drow *o = &d[i];
			const side *P = o->b != SIZE_MAX ? &S[0] : &S[1];
			size_t ri = o->b != SIZE_MAX ? o->b : o->n;
			const tk_stat *s = tk_stats_get(P->st, ri);
			const tk_stat *sn = o->n != SIZE_MAX ? tk_stats_get(S[1].st, o->n) : NULL;
			size_t len;
			const char *type, *name = row_key(P->st, ri, &len, &type, &(tk_metric){ 0 });
			int is_time = tk_metric_is_time(s->metric);
			char inst[32] = "", at[64] = "";
			if (!all && o->status == ST_SAME)
				continue;
			if (sn && o->status == ST_WORSE && sn->max_inst != TK_INST_NONE && sn->count)
				snprintf(inst, sizeof(inst), "%lld", (long long)sn->max_inst);
			if (sn && o->status == ST_WORSE && sn->count && s->metric != TK_METRIC_LOST &&
			    tk_time_format_decimal(sn->max_time, tk_trace_timebase(tk_reader_trace(S[1].r)),
						   unit, at, sizeof(at)) < 0)
				snprintf(at, sizeof(at), "?");
			if (out == OUT_CSV) {
				cli_csv_field(stdout, name, len);
				printf(",%s,%s,%s,%s,", type, tk_metric_name(s->metric),
				       status_names[o->status], is_time ? uname : "1");
				if (o->b != SIZE_MAX)
					printf("%llu", (unsigned long long)tk_stats_get(S[0].st, o->b)->count);
				putchar(',');
				if (sn)
					printf("%llu", (unsigned long long)sn->count);
				for (f = 0; f < nfields; f++) {
					char vb[160] = "", vn[160] = "", ab[160] = "", rb[160] = "";
					if (o->b != SIZE_MAX)
						put_field(S[0].st, o->b, f, unit, vb, sizeof(vb));
					if (sn)
						put_field(S[1].st, o->n, f, unit, vn, sizeof(vn));
					if (o->b != SIZE_MAX && sn)
						put_change(&S[0], o->b, &S[1], o->n, f, unit, is_time,
							   ab, rb, sizeof(ab));
					printf(",%s,%s,%s,%s", vb, vn, ab, rb);
				}
				printf(",%s,%s\n", inst, at);
			} else if (out == OUT_JSON) {
				printf("%s\n    {\"entity\": ", shown ? "," : "");
				cli_json_str(stdout, name, len);
				printf(", \"type\": \"%s\", \"metric\": \"%s\", \"status\": \"%s\", "
				       "\"unit\": \"%s\"", type, tk_metric_name(s->metric),
				       status_names[o->status], is_time ? uname : "1");
				printf(", \"count_base\": ");
				if (o->b != SIZE_MAX)
					printf("%llu", (unsigned long long)tk_stats_get(S[0].st, o->b)->count);
				else
					printf("null");
				printf(", \"count_new\": ");
				if (sn)
					printf("%llu", (unsigned long long)sn->count);
				else
					printf("null");
				for (f = 0; f < nfields; f++) {
					const char *fn = f == 0 ? "min" : f == 1 ? "avg" : f == 2 ? "max"
							 : pname[f - 3];
					char v[4][160] = { "", "", "", "" };
					static const char *const sfx[4] = { "base", "new", "change",
									    "change_pct" };
					if (o->b != SIZE_MAX)
						put_field(S[0].st, o->b, f, unit, v[0], sizeof(v[0]));
					if (sn)
						put_field(S[1].st, o->n, f, unit, v[1], sizeof(v[1]));
					if (o->b != SIZE_MAX && sn)
						put_change(&S[0], o->b, &S[1], o->n, f, unit, is_time,
							   v[2], v[3], sizeof(v[2]));
					for (int k = 0; k < 4; k++) {
						printf(", \"%s_%s\": ", fn, sfx[k]);
						if (!v[k][0] || !strcmp(v[k], "?") || !strcmp(v[k], "new"))
							printf(v[k][0] ? "\"%s\"" : "null", v[k]);
						else
							printf("%s", v[k][0] == '+' ? v[k] + 1 : v[k]);
					}
				}
				printf(", \"max_instance\": %s, \"max_at\": %s}", inst[0] ? inst : "null",
				       at[0] ? at : "null");
			} else {
				if (o->status == ST_BASE_ONLY || o->status == ST_NEW_ONLY || !sn) {
					printf("%-9s ", o->status == ST_BASE_ONLY ? "only-base" : "only-new");
					cli_text(stdout, name, len);
					printf(" %s %s\n", type, tk_metric_name(s->metric));
					shown++;
					continue;
				}
				printf("%-9s ", status_names[o->status]);
				cli_text(stdout, name, len);
				printf(" %s %s: count %llu -> %llu", type, tk_metric_name(s->metric),
				       (unsigned long long)tk_stats_get(S[0].st, o->b)->count,
				       (unsigned long long)sn->count);
				for (f = 0; f < nfields; f++) {
					const char *fn = f == 0 ? "min" : f == 1 ? "avg" : f == 2 ? "max"
							 : pname[f - 3];
					char vb[160], vn[160], ab[160], rb[160];
					put_field(S[0].st, o->b, f, unit, vb, sizeof(vb));
					put_field(S[1].st, o->n, f, unit, vn, sizeof(vn));
					put_change(&S[0], o->b, &S[1], o->n, f, unit, is_time, ab, rb,
						   sizeof(ab));
					if (!vb[0] && !vn[0])
						continue;
					printf(", %s %s -> %s", fn, vb[0] ? vb : "-", vn[0] ? vn : "-");
					if (ab[0])
						printf(" (%s, %s%s)", ab, rb, strcmp(rb, "new") ? " %" : "");
				}
				if (is_time)
					printf(" %s", uname);
				if (inst[0] || at[0])
					printf("; new max: instance %s at %s %s", inst[0] ? inst : "-",
					       at, uname);
				putchar('\n');
			}
			shown++;
		}
		if (out == OUT_JSON)
			printf("%s]\n}\n", shown ? "\n  " : "");
		else if (out == OUT_TEXT && !shown)
			printf("(no change beyond the threshold)\n");
	}
	ret = nworse || (ngone && !allow_missing) ? EXIT_PROBLEMS : EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: out of memory\n");
out:
	for (i = 0; i < 2; i++) {
		free(S[i].order);
		tk_stats_free(S[i].st);
		tk_reader_close(S[i].r);
	}
	free(d);
	free(chains);
	return ret;
}
