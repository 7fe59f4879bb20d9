/*
 * tarmac_cli.c - `info`, `cat` and `stats` for Arm Tarmac logs, on the
 * CPU-level records of tracekit/tarmac.h (the commands call these when
 * their input is a Tarmac log; see cli_tarmac_wants()).
 */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- shared --------------------------------------------------------------- */

static void print_warning(void *ctx, const tk_error *w)
{
	char buf[1024];

	(void)ctx;
	fprintf(stderr, "%s\n", tk_error_format(w, "warning", buf, sizeof(buf)));
}

static int open_log(tk_tarmac **tr, const char *path, int strict, int quiet)
{
	tk_tarmac_opts o;
	tk_error err;

	tk_tarmac_opts_init(&o);
	o.strict = strict;
	o.on_warning = quiet ? NULL : print_warning;
	tk_error_clear(&err);
	if (tk_tarmac_open(tr, path, &o, &err) < 0) {
		cli_error(&err);
		return -1;
	}
	return 0;
}

static void summary(const tk_tarmac *tr, int quiet)
{
	uint64_t n = tk_tarmac_skipped_count(tr);

	if (n && !quiet)
		fprintf(stderr,
			"tracekit: %" PRIu64 " line%s skipped (lenient mode; the first of each kind shown)\n",
			n, n == 1 ? "" : "s");
}

int cli_tarmac_wants(int argc, char **argv)
{
	const char *path, *from = NULL;
	const tk_format_info *fi;
	struct stat st;
	int i;

	if (argc < 2)
		return 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
			from = argv[++i];
		else if (strncmp(argv[i], "--from=", 7) == 0)
			from = argv[i] + 7;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 0;
	}
	if (from)
		return strcmp(from, "tarmac") == 0;
	path = argv[argc - 1];
	if (strcmp(path, "-") == 0 || path[0] == '-')
		return 0;   /* standard input cannot be probed twice */
	/* nor can a FIFO or a pipe by name (/dev/fd/N): the probe would eat
	 * its bytes, and opening it again would wait for a writer forever */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return 0;
	fi = tk_format_detect(path, NULL);
	return fi && strcmp(fi->name, "tarmac") == 0;
}

/* "0x1000-0x1fff", "1000", "0x1000" (hex with or without 0x) */
static int parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	char *e;
	const char *dash = strchr(s, '-');

	*lo = strtoull(s, &e, 16);
	if (e == s || (dash ? e != dash : *e != '\0'))
		return -1;
	if (!dash) {
		*hi = *lo;
		return 0;
	}
	*hi = strtoull(dash + 1, &e, 16);
	if (e == dash + 1 || *e || *hi < *lo)
		return -1;
	return 0;
}

static int span_eq(const tk_tarmac_span *s, const char *lit)
{
	size_t n = strlen(lit), i;

	if (s->len != n)
		return 0;
	for (i = 0; i < n; i++) {
		char a = s->ptr[i], b = lit[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a + 32);
		if (b >= 'A' && b <= 'Z')
			b = (char)(b + 32);
		if (a != b)
			return 0;
	}
	return 1;
}

static int kind_of(const char *s)
{
	int k;

	for (k = 0; k < TK_TARMAC_KIND_COUNT; k++)
		if (strcmp(s, tk_tarmac_kind_name((tk_tarmac_kind)k)) == 0)
			return k;
	return -1;
}

/* ---- info --------------------------------------------------------------------- */

int cli_tarmac_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "from", required_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t counts[TK_TARMAC_KIND_COUNT] = { 0 }, n = 0;
	uint64_t tmin = UINT64_MAX, tmax = 0;
	tk_tarmac_unit unit = TK_TARMAC_UNIT_NONE;
	int mixed_units = 0, strict = 0, quiet = 0, json = 0, c, rc, k;
	const char *outfmt = "text";
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': outfmt = optarg; break;
		case 'F': break;
		case 's': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("usage: tracekit info [--format text|json] [--strict] [-q] LOG\n\n"
			       "For an Arm Tarmac log: the producer, time span, counts per line kind and\n"
			       "the CPUs.\n");
			return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	json = strcmp(outfmt, "json") == 0;
	if (!json && strcmp(outfmt, "text") != 0) {
		cli_usage_error("info", "unknown --format '%s'", outfmt);
		return EXIT_BAD;
	}
	if (optind != argc - 1) {
		cli_usage_error("info", "expected one FILE");
		return EXIT_BAD;
	}
	if (open_log(&tr, argv[optind], strict, quiet) < 0)
		return EXIT_BAD;
	tk_error_clear(&err);
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK) {
		counts[rec.kind]++;
		n++;
		if (rec.own_time) {
			if (unit == TK_TARMAC_UNIT_NONE)
				unit = rec.unit;
			else if (rec.unit != unit)
				mixed_units = 1;
			if (rec.time < tmin)
				tmin = rec.time;
			if (rec.time > tmax)
				tmax = rec.time;
		}
	}
	if (rc < 0) {
		cli_error(&err);
		tk_tarmac_close(tr);
		return EXIT_BAD;
	}
	if (json) {
		printf("{\n  \"file\": ");
		cli_json_str(stdout, argv[optind], strlen(argv[optind]));
		printf(",\n  \"format\": \"tarmac\",\n  \"variant\": \"%s\",\n",
		       tk_tarmac_variant_name(tk_tarmac_variant_get(tr)));
		printf("  \"unit\": \"%s\",\n", mixed_units ? "mixed" : tk_tarmac_unit_name(unit));
		if (tmin == UINT64_MAX)
			printf("  \"start\": null,\n  \"end\": null,\n");
		else
			printf("  \"start\": %" PRIu64 ",\n  \"end\": %" PRIu64 ",\n", tmin, tmax);
		printf("  \"records\": %" PRIu64 ",\n  \"kinds\": {", n);
		for (k = 0; k < TK_TARMAC_KIND_COUNT; k++)
			printf("%s\"%s\": %" PRIu64, k ? ", " : "",
			       tk_tarmac_kind_name((tk_tarmac_kind)k), counts[k]);
		printf("},\n  \"skipped\": %" PRIu64 ",\n  \"cpus\": [",
		       tk_tarmac_skipped_count(tr));
		for (i = 0; i < tk_tarmac_cpu_count(tr); i++) {
			const char *s = tk_tarmac_cpu_name(tr, i);
			if (i)
				printf(", ");
			cli_json_str(stdout, s, strlen(s));
		}
		printf("]\n}\n");
	} else {
		printf("file:      %s\nformat:    tarmac (%s)\n", argv[optind],
		       tk_tarmac_variant_name(tk_tarmac_variant_get(tr)));
		if (tmin == UINT64_MAX)
			printf("time span: none\n");
		else
			printf("time span: %" PRIu64 " .. %" PRIu64 " %s\n", tmin, tmax,
			       mixed_units ? "(mixed units)" : tk_tarmac_unit_name(unit));
		printf("records:   %" PRIu64 "\n", n);
		for (k = 0; k < TK_TARMAC_KIND_COUNT; k++)
			printf("  %-12s %" PRIu64 "\n",
			       tk_tarmac_kind_name((tk_tarmac_kind)k), counts[k]);
		printf("skipped:   %" PRIu64 "\n", tk_tarmac_skipped_count(tr));
		printf("cpus:      ");
		if (!tk_tarmac_cpu_count(tr))
			printf("(no CPU prefix)");
		for (i = 0; i < tk_tarmac_cpu_count(tr); i++)
			printf("%s%s", i ? " " : "", tk_tarmac_cpu_name(tr, i));
		printf("\n");
	}
	summary(tr, quiet);
	tk_tarmac_close(tr);
	return EXIT_OK;
}

/* ---- cat ------------------------------------------------------------------------ */

enum { O_START = 256, O_END, O_PC, O_MNEM, O_REG, O_ADDR, O_KIND, O_CPU,
       O_FROM, O_STRICT };

int cli_tarmac_cat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "start", required_argument, NULL, O_START },
		{ "end", required_argument, NULL, O_END },
		{ "pc", required_argument, NULL, O_PC },
		{ "mnemonic", required_argument, NULL, O_MNEM },
		{ "register", required_argument, NULL, O_REG },
		{ "addr", required_argument, NULL, O_ADDR },
		{ "kind", required_argument, NULL, O_KIND },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "from", required_argument, NULL, O_FROM },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char **mnems = NULL, **regs = NULL, *cpu = NULL;
	size_t nmnems = 0, nregs = 0, i;
	uint64_t start = 0, end = UINT64_MAX, pclo = 0, pchi = 0, alo = 0, ahi = 0;
	int has_pc = 0, has_addr = 0, strict = 0, quiet = 0, c, rc, bad = 0;
	unsigned kinds = 0;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	char *e;
	int ret = EXIT_BAD;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case O_START:
			start = strtoull(optarg, &e, 10);
			bad |= (e == optarg || *e) ? -1 : 0;
			break;
		case O_END:
			end = strtoull(optarg, &e, 10);
			bad |= (e == optarg || *e) ? -1 : 0;
			break;
		case O_PC: bad |= parse_range(optarg, &pclo, &pchi); has_pc = 1; break;
		case O_ADDR: bad |= parse_range(optarg, &alo, &ahi); has_addr = 1; break;
		case O_MNEM: bad |= cli_filter_add(&mnems, &nmnems, optarg); break;
		case O_REG: bad |= cli_filter_add(&regs, &nregs, optarg); break;
		case O_KIND:
			if (kind_of(optarg) < 0)
				bad = -1;
			else
				kinds |= 1u << kind_of(optarg);
			break;
		case O_CPU: cpu = optarg; break;
		case O_FROM: break;
		case O_STRICT: strict = 1; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("usage: tracekit cat [filters] [--strict] [-q] LOG\n\n"
			       "For an Arm Tarmac log: the lines of the records that pass every filter.\n\n"
			       "  --start T, --end T   time window, in the log's own unit (inclusive)\n"
			       "  --pc LO[-HI]         instructions at these addresses (hex)\n"
			       "  --mnemonic NAME      instructions with this mnemonic (any case; repeatable)\n"
			       "  --register NAME      writes of this register (any case; repeatable)\n"
			       "  --addr LO[-HI]       memory and bus accesses in this range (hex)\n"
			       "  --kind KIND          instruction, register, event, memory, bus, branch,\n"
			       "                       other (repeatable)\n"
			       "  --cpu NAME           lines with this CPU prefix\n");
			free(mnems);
			free(regs);
			return EXIT_OK;
		default:
			free(mnems);
			free(regs);
			return EXIT_BAD;
		}
	}
	if (bad) {
		cli_usage_error("cat", "bad filter value");
		goto out;
	}
	if (optind != argc - 1) {
		cli_usage_error("cat", "expected one FILE");
		goto out;
	}
	if (open_log(&tr, argv[optind], strict, quiet) < 0)
		goto out;
	tk_error_clear(&err);
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK) {
		if (rec.time < start || rec.time > end)
			continue;
		if (kinds && !(kinds & (1u << rec.kind)))
			continue;
		if (has_pc && (rec.kind != TK_TARMAC_INSTRUCTION ||
			       rec.address < pclo || rec.address > pchi))
			continue;
		if (has_addr && ((rec.kind != TK_TARMAC_MEMORY && rec.kind != TK_TARMAC_BUS) ||
				 !rec.has_address || rec.address < alo || rec.address > ahi))
			continue;
		if (nmnems) {
			if (rec.kind != TK_TARMAC_INSTRUCTION)
				continue;
			for (i = 0; i < nmnems && !span_eq(&rec.mnemonic, mnems[i]); i++)
				;
			if (i == nmnems)
				continue;
		}
		if (nregs) {
			if (rec.kind != TK_TARMAC_REGISTER)
				continue;
			for (i = 0; i < nregs && !span_eq(&rec.reg, regs[i]); i++)
				;
			if (i == nregs)
				continue;
		}
		if (cpu && (!rec.cpu || strcmp(tk_tarmac_cpu_name(tr, rec.cpu - 1), cpu) != 0))
			continue;
		fwrite(rec.raw.ptr, 1, rec.raw.len, stdout);
		putchar('\n');
	}
	if (rc < 0) {
		fflush(stdout);
		cli_error(&err);
		goto out;
	}
	summary(tr, quiet);
	ret = fflush(stdout) == 0 ? EXIT_OK : EXIT_BAD;
out:
	tk_tarmac_close(tr);
	free(mnems);
	free(regs);
	return ret;
}

/* ---- stats ------------------------------------------------------------------------ */

/* mnemonics counted by name: a small open-addressing table */
typedef struct mnem_tab {
	char (*names)[24];
	uint64_t *counts;
	size_t cap, count;
} mnem_tab;

static int mnem_add(mnem_tab *m, const char *p, size_t n)
{
	char key[24];
	uint64_t h = 1469598103934665603ull;
	size_t i;

	if (n >= sizeof(key))
		n = sizeof(key) - 1;
	for (i = 0; i < n; i++) {
		char ch = p[i];
		key[i] = (ch >= 'a' && ch <= 'z') ? (char)(ch - 32) : ch;
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	}
	key[n] = '\0';
	if ((m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256, j;
		char (*nn)[24] = calloc(ncap, sizeof(*nn));
		uint64_t *nc = calloc(ncap, sizeof(*nc));
		if (!nn || !nc) {
			free(nn);
			free(nc);
			return -1;
		}
		for (j = 0; j < m->cap; j++) {
			uint64_t hh = 1469598103934665603ull;
			const char *s = m->names[j];
			if (!m->counts[j])
				continue;
			for (; *s; s++)
				hh = (hh ^ (unsigned char)*s) * 1099511628211ull;
			for (i = hh & (ncap - 1); nc[i]; i = (i + 1) & (ncap - 1))
				;
			memcpy(nn[i], m->names[j], sizeof(nn[i]));
			nc[i] = m->counts[j];
		}
		free(m->names);
		free(m->counts);
		m->names = nn;
		m->counts = nc;
		m->cap = ncap;
	}
	for (i = h & (m->cap - 1); m->counts[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->names[i], key) == 0) {
			m->counts[i]++;
			return 0;
		}
	memcpy(m->names[i], key, sizeof(key));
	m->counts[i] = 1;
	m->count++;
	return 0;
}

typedef struct kv {
	uint64_t key, val;
	const char *name;
} kv;

static int cmp_kv(const void *a, const void *b)
{
	const kv *x = a, *y = b;

	if (x->val != y->val)
		return x->val < y->val ? 1 : -1;
	if (x->name && y->name)
		return strcmp(x->name, y->name);
	return x->key < y->key ? -1 : x->key > y->key;
}

typedef struct isr_stat {
	uint32_t ent;
	uint64_t count, total, min, max;
	uint64_t open;            /* entered, not returned by the end of the log */
} isr_stat;

/* An exception entered and not yet returned from, on one core. */
typedef struct isr_open {
	uint32_t ent;
	uint64_t t;               /* its start */
	uint64_t seq;             /* starts before it, on all cores */
} isr_open;

typedef struct isr_stack {
	isr_open *e;
	size_t n, cap;
} isr_stack;

/*
 * Exceptions: count and durations per exception, from the ISR events of the
 * exception timeline (tk_tarmac_timeline_*), fed in the same pass as the
 * other figures.  Rows are in the order of their first complete instance
 * (then those only open at the end, in the order they started); a row is
 * found by its entity through row_of, and an open exception on the stack of
 * its own core, so that neither costs a walk over every exception or core
 * (a log may have any number of both).
 */
typedef struct isr_acc {
	isr_stat *s;
	size_t ns, caps;
	uint32_t *row_of;         /* per entity id: row index + 1, 0 none */
	size_t nrow_of;
	isr_stack *stk;           /* per core entity id */
	size_t nstk;
	uint64_t seq;
} isr_acc;

/* Make a[0 .. *n) hold at least `need` elements of `size` bytes, the new
 * ones zeroed, doubling; -1 when out of memory. */
static int grow_zeroed(void **a, size_t *n, size_t need, size_t size)
{
	size_t ncap = *n ? *n : 16;
	void *na;

	if (need <= *n)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / size || !(na = realloc(*a, ncap * size)))
		return -1;
	memset((char *)na + *n * size, 0, (ncap - *n) * size);
	*a = na;
	*n = ncap;
	return 0;
}

/* The row of entity `ent`, made when new; NULL when out of memory. */
static isr_stat *isr_row(isr_acc *a, uint32_t ent)
{
	isr_stat *row;

	if (grow_zeroed((void **)&a->row_of, &a->nrow_of, (size_t)ent + 1,
			sizeof(*a->row_of)) < 0)
		return NULL;
	if (a->row_of[ent])
		return &a->s[a->row_of[ent] - 1];
	if (a->ns == a->caps) {
		size_t ncap = a->caps ? a->caps * 2 : 16;
		isr_stat *ns = realloc(a->s, ncap * sizeof(*ns));
		if (!ns)
			return NULL;
		a->s = ns;
		a->caps = ncap;
	}
	row = &a->s[a->ns++];
	memset(row, 0, sizeof(*row));
	row->ent = ent;
	row->min = UINT64_MAX;
	a->row_of[ent] = (uint32_t)a->ns;
	return row;
}

/* One event of the timeline; -1 when out of memory. */
static int isr_event(isr_acc *a, const tk_event *ev)
{
	isr_stat *row;
	isr_stack *st;

	if (ev->kind == TK_EV_START) {
		if (grow_zeroed((void **)&a->stk, &a->nstk, (size_t)ev->core + 1,
				sizeof(*a->stk)) < 0)
			return -1;
		st = &a->stk[ev->core];
		if (st->n == st->cap) {
			size_t ncap = st->cap ? st->cap * 2 : 4;
			isr_open *ne = realloc(st->e, ncap * sizeof(*ne));
			if (!ne)
				return -1;
			st->e = ne;
			st->cap = ncap;
		}
		st->e[st->n].ent = ev->target;
		st->e[st->n].t = ev->time;
		st->e[st->n++].seq = a->seq++;
	} else if (ev->kind == TK_EV_TERMINATE) {
		size_t k;
		uint64_t d;
		if (ev->core >= a->nstk)
			return 0;
		st = &a->stk[ev->core];
		/* the timeline returns from its core's last entry: the top
		 * (entries a reset dropped stay below it, open) */
		for (k = st->n; k > 0 && st->e[k - 1].ent != ev->target; k--)
			;
		if (!k)
			return 0;
		d = ev->time >= st->e[k - 1].t ? ev->time - st->e[k - 1].t : 0;
		memmove(&st->e[k - 1], &st->e[k], (st->n - k) * sizeof(*st->e));
		st->n--;
		if (!(row = isr_row(a, ev->target)))
			return -1;
		row->count++;
		row->total += d;
		if (d < row->min)
			row->min = d;
		if (d > row->max)
			row->max = d;
	}
	return 0;
}

/* The queued events of the timeline; -1 when out of memory. */
static int isr_drain(isr_acc *a, tk_tarmac_timeline *tl)
{
	const tk_event *ev;

	while (tk_tarmac_timeline_next(tl, &ev) == TK_OK)
		if (isr_event(a, ev) < 0)
			return -1;
	return 0;
}

static int cmp_open_seq(const void *x, const void *y)
{
	const isr_open *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* At the end of the log: entered and not returned is open at the end, like
 * an instance of a cut trace; counted, not given a made-up duration.  New
 * rows come in the order the exceptions started, on all cores. */
static int isr_end(isr_acc *a)
{
	isr_open *all = NULL;
	isr_stat *row;
	size_t i, n = 0;
	int ret = -1;

	for (i = 0; i < a->nstk; i++)
		n += a->stk[i].n;
	if (!n)
		return 0;
	all = malloc(n * sizeof(*all));
	if (!all)
		goto cleanup;
	for (i = 0, n = 0; i < a->nstk; i++) {
		if (a->stk[i].n)
			memcpy(&all[n], a->stk[i].e, a->stk[i].n * sizeof(*all));
		n += a->stk[i].n;
	}
	qsort(all, n, sizeof(*all), cmp_open_seq);
	for (i = 0; i < n; i++) {
		if (!(row = isr_row(a, all[i].ent)))
			goto cleanup;
		row->open++;
	}
	ret = 0;
cleanup:
	free(all);
	return ret;
}

static void isr_free(isr_acc *a)
{
	size_t i;

	for (i = 0; i < a->nstk; i++)
		free(a->stk[i].e);
	free(a->stk);
	free(a->row_of);
	free(a->s);
}

typedef struct region_stat {
	uint64_t region;
	uint64_t n[4], bytes[4];   /* memory read, memory write, bus read, bus write */
} region_stat;

/*
 * Traffic per 256 MB region, the rows in first-seen order.  A 64-bit
 * address space has 2^36 regions, so a row is found through a hash, after
 * a look at the row of the previous access (most accesses).
 */
typedef struct region_tab {
	region_stat *r;
	size_t n, cap;
	uint32_t *slot;            /* open addressing: row index + 1, 0 empty */
	size_t nslot;
	size_t last;               /* the row of the previous access */
} region_tab;

static size_t region_hash(uint64_t region, size_t nslot)
{
	return (size_t)((region * 0x9e3779b97f4a7c15ull) >> 32) & (nslot - 1);
}

static int region_rehash(region_tab *t)
{
	size_t ncap = t->nslot ? t->nslot * 2 : 64, i, h;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < t->n; i++) {
		for (h = region_hash(t->r[i].region, ncap); ns[h]; h = (h + 1) & (ncap - 1))
			;
		ns[h] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = ns;
	t->nslot = ncap;
	return 0;
}

/* The row of `region`, made when new; NULL when out of memory. */
static region_stat *region_get(region_tab *t, uint64_t region)
{
	size_t h;

	if (t->n && t->r[t->last].region == region)
		return &t->r[t->last];
	if ((t->n + 1) * 2 > t->nslot && region_rehash(t) < 0)
		return NULL;
	for (h = region_hash(region, t->nslot); t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (t->r[t->slot[h] - 1].region == region) {
			t->last = t->slot[h] - 1;
			return &t->r[t->last];
		}
	if (t->n >= UINT32_MAX - 1)
		return NULL;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		region_stat *nr = realloc(t->r, ncap * sizeof(*nr));
		if (!nr)
			return NULL;
		t->r = nr;
		t->cap = ncap;
	}
	memset(&t->r[t->n], 0, sizeof(*t->r));
	t->r[t->n].region = region;
	t->slot[h] = (uint32_t)++t->n;
	t->last = t->n - 1;
	return &t->r[t->last];
}

/* ---- the function profile (--elf) ------------------------------------------ */

static const char *node_name(tk_tarmac_profile *p, const tk_tarmac *tr,
			     const tk_tarmac_node *x)
{
	if (x->symbol == -2) {
		const char *n = tk_tarmac_cpu_name(tr, x->cpu - 1);
		return n ? n : "cpu?";
	}
	return tk_tarmac_profile_symbol_name(p, x->symbol);
}

static void tree_text(tk_tarmac_profile *p, const tk_tarmac *tr, size_t i)
{
	const tk_tarmac_node *x = tk_tarmac_profile_node(p, i);
	const uint32_t *kids;
	size_t n, k;

	printf("  %*s%s%s  calls %" PRIu64 "  instr %" PRIu64 " (self %" PRIu64
	       ")  time %" PRIu64 " (self %" PRIu64 ")\n",
	       (int)(2 * x->depth), "", node_name(p, tr, x),
	       x->exception ? " [exception]" : "", x->calls, x->instructions,
	       x->self_instructions, x->time, x->self_time);
	n = tk_tarmac_profile_children(p, i, 0, &kids);
	for (k = 0; k < n; k++)
		tree_text(p, tr, kids[k]);
}

static void tree_json(tk_tarmac_profile *p, const tk_tarmac *tr, size_t i)
{
	const tk_tarmac_node *x = tk_tarmac_profile_node(p, i);
	const char *name = node_name(p, tr, x);
	const uint32_t *kids;
	size_t n, k;

	printf("{\"name\": ");
	cli_json_str(stdout, name, strlen(name));
	printf(", \"exception\": %s, \"calls\": %" PRIu64 ", \"self_instructions\": %" PRIu64
	       ", \"instructions\": %" PRIu64 ", \"self_time\": %" PRIu64 ", \"time\": %" PRIu64
	       ", \"children\": [",
	       x->exception ? "true" : "false", x->calls, x->self_instructions,
	       x->instructions, x->self_time, x->time);
	n = tk_tarmac_profile_children(p, i, 0, &kids);
	for (k = 0; k < n; k++) {
		if (k)
			printf(", ");
		tree_json(p, tr, kids[k]);
	}
	printf("]}");
}

/* The functions and the call tree, after the other figures. */
static void profile_out(tk_tarmac_profile *p, const tk_tarmac *tr, int json,
			const char *elf, const char *unit)
{
	size_t i, n = tk_tarmac_profile_func_count(p), w = 8, nr;
	const uint32_t *roots;

	if (json) {
		printf(",\n  \"elf\": ");
		cli_json_str(stdout, elf, strlen(elf));
		printf(",\n  \"functions\": [");
		for (i = 0; i < n; i++) {
			const tk_tarmac_func *f = tk_tarmac_profile_func(p, i);
			const char *name = tk_tarmac_profile_symbol_name(p, f->symbol);
			printf("%s\n    {\"name\": ", i ? "," : "");
			cli_json_str(stdout, name, strlen(name));
			printf(", \"calls\": %" PRIu64 ", \"self_instructions\": %" PRIu64
			       ", \"instructions\": %" PRIu64 ", \"self_time\": %" PRIu64
			       ", \"time\": %" PRIu64 "}",
			       f->calls, f->self_instructions, f->instructions,
			       f->self_time, f->time);
		}
		printf("%s],\n  \"call_tree\": [", n ? "\n  " : "");
		nr = tk_tarmac_profile_children(p, SIZE_MAX, 0, &roots);
		for (i = 0; i < nr; i++) {
			printf("%s\n    ", i ? "," : "");
			tree_json(p, tr, roots[i]);
		}
		printf("%s]", nr ? "\n  " : "");
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(tk_tarmac_profile_symbol_name(p, tk_tarmac_profile_func(p, i)->symbol));
		if (l > w)
			w = l;
	}
	printf("\nfunctions (%s; instructions executed, time in %s; inclusive counts recursion once):\n",
	       elf, *unit ? unit : "the log's unit");
	printf("  %-*s %8s %12s %12s %14s %14s\n", (int)w, "function", "calls",
	       "self instr", "instr", "self time", "time");
	for (i = 0; i < n; i++) {
		const tk_tarmac_func *f = tk_tarmac_profile_func(p, i);
		printf("  %-*s %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
		       (int)w, tk_tarmac_profile_symbol_name(p, f->symbol), f->calls,
		       f->self_instructions, f->instructions, f->self_time, f->time);
	}
	if (!n)
		printf("  none\n");
	printf("\ncall tree (calls, instructions and time inclusive with self in parentheses):\n");
	nr = tk_tarmac_profile_children(p, SIZE_MAX, 0, &roots);
	for (i = 0; i < nr; i++)
		tree_text(p, tr, roots[i]);
	if (!nr)
		printf("  none\n");
	if (tk_tarmac_profile_depth_overflows(p))
		printf("  (%" PRIu64 " calls past a depth of 256 replaced the deepest frame)\n",
		       tk_tarmac_profile_depth_overflows(p));
}

static void profile_csv(tk_tarmac_profile *p, const char *unit)
{
	size_t i, n = tk_tarmac_profile_func_count(p);

	printf("function,calls,self_instructions,instructions,self_time,time,unit\n");
	for (i = 0; i < n; i++) {
		const tk_tarmac_func *f = tk_tarmac_profile_func(p, i);
		const char *name = tk_tarmac_profile_symbol_name(p, f->symbol);
		if (strpbrk(name, ",\""))
			printf("\"%s\"", name);  /* ELF names hold no '"' in practice */
		else
			printf("%s", name);
		printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n",
		       f->calls, f->self_instructions, f->instructions, f->self_time,
		       f->time, unit);
	}
}

/* Read the symbols of --elf; prints the error. */
static int load_elf(const char *elf, tk_tarmac_symtab **syms,
		    tk_tarmac_profile **prof)
{
	tk_error err;

	tk_error_clear(&err);
	if (tk_tarmac_symtab_open(syms, elf, &err) < 0) {
		cli_error(&err);
		return -1;
	}
	*prof = tk_tarmac_profile_new(*syms);
	if (!*prof) {
		fprintf(stderr, "tracekit: error: out of memory\n");
		return -1;
	}
	return 0;
}

int cli_tarmac_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 't' },
		{ "elf", required_argument, NULL, 'e' },
		{ "from", required_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *outfmt = "text", *elf = NULL;
	int strict = 0, quiet = 0, json, csv, c, rc, ret = EXIT_BAD;
	size_t top = 10, i, nk;
	tk_tarmac_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	uint64_t executed = 0, skipped = 0;
	mnem_tab mt = { 0 };
	cli_map hot = { 0 };
	region_tab rt = { 0 };
	isr_acc acc = { 0 };
	kv *rows = NULL;
	tk_tarmac_timeline *tl = NULL;
	const tk_trace *t = NULL;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err, tl_err;
	int tl_rc = TK_OK;
	char *e;
	const char *unit = "";
	int first = 1;
	static const char *const dir[4] = { "memory read", "memory write",
					    "bus read", "bus write" };

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': outfmt = optarg; break;
		case 't':
			top = (size_t)strtoul(optarg, &e, 10);
			if (e == optarg || *e) {
				cli_usage_error("stats", "bad --top '%s'", optarg);
				return EXIT_BAD;
			}
			break;
		case 'e': elf = optarg; break;
		case 'F': break;
		case 's': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("usage: tracekit stats [--format table|csv|json] [--top N] [--elf FILE]\n"
			       "                      [--strict] [-q] LOG\n\n"
			       "For an Arm Tarmac log: instructions executed and skipped, the mix by\n"
			       "mnemonic, the hottest addresses, exceptions (count, duration from entry to\n"
			       "return, those still open at the end) and memory / bus traffic per 256 MB\n"
			       "address region.  With --elf FILE (the program's ELF file): instructions\n"
			       "and time per function, self and inclusive, and the call tree\n"
			       "(docs/tarmac.md).  --format csv writes the function table (with --elf)\n"
			       "or the instruction mix.\n");
			return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	json = strcmp(outfmt, "json") == 0;
	csv = strcmp(outfmt, "csv") == 0;
	if (!json && !csv && strcmp(outfmt, "text") != 0 && strcmp(outfmt, "table") != 0) {
		cli_usage_error("stats", "unknown --format '%s' (table, csv or json)", outfmt);
		return EXIT_BAD;
	}
	if (optind != argc - 1) {
		cli_usage_error("stats", "expected one FILE");
		return EXIT_BAD;
	}
	if (elf && load_elf(elf, &syms, &prof) < 0)
		goto out;
	if (open_log(&tr, argv[optind], strict, quiet) < 0)
		goto out;
	tk_error_clear(&err);
	tk_error_clear(&tl_err);
	if (!csv) {
		/* the exception timeline, fed in this same pass; its warnings
		 * are not shown (the table lists what is open at the end) */
		tk_tarmac_opts o;
		tk_tarmac_opts_init(&o);
		o.strict = strict;
		if (tk_tarmac_timeline_new(&tl, tr, &o, &err) < 0) {
			cli_error(&err);
			goto out;
		}
	}
	/* one pass: the records feed the profile, the exception timeline and
	 * the counters below */
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK) {
		if (prof && (rc = tk_tarmac_profile_record(prof, &rec, &err)) < 0)
			break;
		if (tl && tl_rc == TK_OK) {
			/* an error of the timeline (strict mode: a stamp of
			 * another unit) is reported after those of the records */
			tl_rc = tk_tarmac_timeline_record(tl, &rec, &tl_err);
			if (tl_rc > 0) {
				if (isr_drain(&acc, tl) < 0)
					goto nomem;
				tl_rc = TK_OK;
			}
		}
		if (rec.own_time && !*unit)
			unit = tk_tarmac_unit_name(rec.unit);
		if (rec.kind == TK_TARMAC_INSTRUCTION) {
			if (!rec.executed) {
				skipped++;
				continue;
			}
			executed++;
			if ((rec.mnemonic.len && mnem_add(&mt, rec.mnemonic.ptr, rec.mnemonic.len) < 0) ||
			    cli_map_add(&hot, rec.address, 1) < 0)
				goto nomem;
		} else if ((rec.kind == TK_TARMAC_MEMORY || rec.kind == TK_TARMAC_BUS) &&
			   rec.has_address && !rec.aborted) {
			uint64_t region = rec.address >> 28;
			int d = (rec.kind == TK_TARMAC_BUS ? 2 : 0) + (rec.write ? 1 : 0);
			region_stat *rs = region_get(&rt, region);
			if (!rs)
				goto nomem;
			rs->n[d]++;
			rs->bytes[d] += rec.size;
		}
	}
	if (rc < 0) {
		cli_error(&err);
		goto out;
	}
	if (prof && tk_tarmac_profile_finish(prof, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	if (csv) {
		if (prof) {
			profile_csv(prof, unit);
		} else {
			rows = calloc(mt.count ? mt.count : 1, sizeof(*rows));
			if (!rows)
				goto nomem;
			for (i = 0, nk = 0; i < mt.cap; i++)
				if (mt.counts[i]) {
					rows[nk].name = mt.names[i];
					rows[nk++].val = mt.counts[i];
				}
			qsort(rows, nk, sizeof(*rows), cmp_kv);
			printf("mnemonic,count\n");
			for (i = 0; i < nk; i++)
				printf("%s,%" PRIu64 "\n", rows[i].name, rows[i].val);
		}
		summary(tr, quiet);
		ret = EXIT_OK;
		goto out;
	}
	if (tl_rc < 0) {
		cli_error(&tl_err);
		goto out;
	}
	tk_tarmac_timeline_finish(tl);
	if (isr_drain(&acc, tl) < 0 || isr_end(&acc) < 0)
		goto nomem;
	t = tk_tarmac_timeline_trace(tl);

	/* the tables, sorted by count */
	nk = mt.count > hot.count ? mt.count : hot.count;
	rows = calloc(nk ? nk : 1, sizeof(*rows));
	if (!rows)
		goto nomem;
	if (json) {
		printf("{\n  \"file\": ");
		cli_json_str(stdout, argv[optind], strlen(argv[optind]));
		printf(",\n  \"unit\": \"%s\",\n  \"instructions\": "
		       "{\"executed\": %" PRIu64 ", \"skipped\": %" PRIu64 "},\n",
		       unit, executed, skipped);
	} else
		printf("instructions: %" PRIu64 " executed, %" PRIu64 " skipped\n",
		       executed, skipped);
	for (i = 0, nk = 0; i < mt.cap; i++)
		if (mt.counts[i]) {
			rows[nk].name = mt.names[i];
			rows[nk++].val = mt.counts[i];
		}
	qsort(rows, nk, sizeof(*rows), cmp_kv);
	printf(json ? "  \"mix\": [" : "\ninstruction mix (top %zu of %zu mnemonics):\n",
	       top, nk);
	for (i = 0; i < nk && i < top; i++) {
		if (json)
			printf("%s{\"mnemonic\": \"%s\", \"count\": %" PRIu64 "}",
			       i ? ", " : "", rows[i].name, rows[i].val);
		else
			printf("  %-12s %12" PRIu64 "  %5.1f%%\n", rows[i].name, rows[i].val,
			       executed ? 100.0 * (double)rows[i].val / (double)executed : 0.0);
	}
	for (i = 0, nk = 0; i < hot.cap; i++)
		if (hot.used[i]) {
			rows[nk].name = NULL;
			rows[nk].key = hot.keys[i];
			rows[nk++].val = hot.vals[i];
		}
	qsort(rows, nk, sizeof(*rows), cmp_kv);
	printf(json ? "],\n  \"hottest\": [" : "\nhottest addresses (top %zu of %zu):\n", top, nk);
	for (i = 0; i < nk && i < top; i++) {
		if (json)
			printf("%s{\"address\": \"0x%" PRIx64 "\", \"count\": %" PRIu64 "}",
			       i ? ", " : "", rows[i].key, rows[i].val);
		else
			printf("  0x%08" PRIx64 "  %12" PRIu64 "\n", rows[i].key, rows[i].val);
	}
	printf(json ? "],\n  \"exceptions\": [" : "\nexceptions (duration from entry to return, in %s):\n",
	       unit);
	if (!json && !acc.ns)
		printf("  none\n");
	for (i = 0; i < acc.ns; i++) {
		const isr_stat *x = &acc.s[i];
		const tk_entity *en = tk_trace_entity(t, x->ent);
		const char *name = en ? tk_trace_str(t, en->name, NULL) : "?";
		char mn[24] = "-", mx[24] = "-";
		if (x->count) {
			snprintf(mn, sizeof(mn), "%" PRIu64, x->min);
			snprintf(mx, sizeof(mx), "%" PRIu64, x->max);
		}
		if (json)
			printf("%s{\"name\": \"%s\", \"count\": %" PRIu64 ", \"total\": %" PRIu64
			       ", \"min\": %s, \"max\": %s, \"open\": %" PRIu64 "}",
			       i ? ", " : "", name, x->count, x->total,
			       x->count ? mn : "null", x->count ? mx : "null",
			       x->open);
		else if (x->open)
			printf("  %-24s count %8" PRIu64 "  total %12" PRIu64 "  min %10s"
			       "  max %10s  open at end %" PRIu64 "\n",
			       name, x->count, x->total, mn, mx, x->open);
		else
			printf("  %-24s count %8" PRIu64 "  total %12" PRIu64 "  min %10s"
			       "  max %10s\n",
			       name, x->count, x->total, mn, mx);
	}
	printf(json ? "],\n  \"traffic\": [" : "\nmemory and bus traffic by 256 MB region:\n");
	if (!json && !rt.n)
		printf("  none\n");
	for (i = 0; i < rt.n; i++) {
		const region_stat *rs = &rt.r[i];
		int d;
		for (d = 0; d < 4; d++) {
			if (!rs->n[d])
				continue;
			if (json)
				printf("%s{\"region\": \"0x%" PRIx64 "\", \"kind\": \"%s\", \"count\": %"
				       PRIu64 ", \"bytes\": %" PRIu64 "}",
				       first ? "" : ", ", rs->region << 28, dir[d],
				       rs->n[d], rs->bytes[d]);
			else
				printf("  0x%08" PRIx64 "-0x%08" PRIx64 "  %-12s %12" PRIu64
				       " accesses %14" PRIu64 " bytes\n",
				       rs->region << 28, (rs->region << 28) + 0xfffffff,
				       dir[d], rs->n[d], rs->bytes[d]);
			first = 0;
		}
	}
	if (json)
		printf("]");
	if (prof)
		profile_out(prof, tr, json, elf, unit);
	if (json)
		printf("\n}\n");
	summary(tr, quiet);
	ret = EXIT_OK;
	goto out;
nomem:
	fprintf(stderr, "tracekit: error: out of memory\n");
out:
	free(rows);
	isr_free(&acc);
	free(rt.r);
	free(rt.slot);
	free(mt.names);
	free(mt.counts);
	cli_map_free(&hot);
	tk_tarmac_timeline_free(tl);
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_tarmac_symtab_free(syms);
	return ret;
}

/* ---- convert to folded stacks ------------------------------------------------ */

int cli_tarmac_folded_wants(int argc, char **argv)
{
	static const char *const with_arg[] = {
		"--from", "--to", "--start", "--end", "--entity", "--type", "--event",
		"--option", "--elf", "--weight", NULL
	};
	const char *to = NULL, *pos[3] = { NULL, NULL, NULL };
	size_t n, k;
	int i, np = 0, elf = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 0;
		if (strncmp(a, "--to=", 5) == 0)
			to = a + 5;
		if (strncmp(a, "--elf", 5) == 0 || strncmp(a, "--weight", 8) == 0)
			elf = 1;
		for (k = 0; with_arg[k] && strcmp(a, with_arg[k]) != 0; k++)
			;
		if (with_arg[k] && i + 1 < argc) {
			if (k == 1)
				to = argv[i + 1];
			i++;
			continue;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (np < 3)
				pos[np] = a;
			np++;
		}
	}
	if (to)
		return strcmp(to, "folded") == 0;
	if (elf)
		return 1;   /* --elf is an option of folded output only */
	n = pos[1] ? strlen(pos[1]) : 0;
	return n > 7 && strcmp(pos[1] + n - 7, ".folded") == 0;
}

int cli_tarmac_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "weight", required_argument, NULL, 'w' },
		{ "to", required_argument, NULL, 'T' },
		{ "from", required_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *elf = NULL, *weight_s = "instructions", *from = NULL, *in;
	const char **cpus = NULL;
	int strict = 0, quiet = 0, weight, c, rc, ret = EXIT_BAD, to_folded = 0;
	tk_tarmac_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': elf = optarg; break;
		case 'w': weight_s = optarg; break;
		case 'T': to_folded = strcmp(optarg, "folded") == 0; break;
		case 'F': from = optarg; break;
		case 's': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'h': return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (strcmp(weight_s, "instructions") == 0) {
		weight = TK_TARMAC_WEIGHT_INSTRUCTIONS;
	} else if (strcmp(weight_s, "time") == 0) {
		weight = TK_TARMAC_WEIGHT_TIME;
	} else {
		cli_usage_error("convert", "unknown --weight '%s' (instructions or time)", weight_s);
		return EXIT_BAD;
	}
	if (optind != argc - 2) {
		cli_usage_error("convert", "expected IN and OUT");
		return EXIT_BAD;
	}
	in = argv[optind];
	{
		const tk_format_info *fi = tk_format_from_path(argv[optind + 1]);
		if (!to_folded && (!fi || strcmp(fi->name, "folded") != 0)) {
			cli_usage_error("convert", "--elf and --weight are for folded stacks "
					"(--to folded or OUT.folded)");
			return EXIT_BAD;
		}
	}
	if (!elf) {
		cli_usage_error("convert", "folded stacks need the program's symbols: --elf FILE");
		return EXIT_BAD;
	}
	if (from ? strcmp(from, "tarmac") != 0
		 : (strcmp(in, "-") != 0 && !cli_tarmac_wants(2, argv + optind - 1))) {
		fprintf(stderr, "tracekit: error: %s: folded stacks are made from an Arm Tarmac log "
			"(this input is not one%s)\n", in, from ? "" : "; --from tarmac forces it");
		return EXIT_BAD;
	}
	if (load_elf(elf, &syms, &prof) < 0)
		goto out;
	if (open_log(&tr, in, strict, quiet) < 0)
		goto out;
	tk_error_clear(&err);
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
		if ((rc = tk_tarmac_profile_record(prof, &rec, &err)) < 0)
			break;
	if (rc < 0) {
		cli_error(&err);
		goto out;
	}
	cpus = calloc(tk_tarmac_cpu_count(tr) + 1, sizeof(*cpus));
	if (!cpus) {
		fprintf(stderr, "tracekit: error: out of memory\n");
		goto out;
	}
	for (i = 0; i < tk_tarmac_cpu_count(tr); i++)
		cpus[i] = tk_tarmac_cpu_name(tr, i);
	if (tk_tarmac_profile_finish(prof, &err) < 0 ||
	    tk_tarmac_profile_write_folded(prof, argv[optind + 1], weight, cpus,
					   tk_tarmac_cpu_count(tr), &err) < 0) {
		cli_error(&err);
		goto out;
	}
	summary(tr, quiet);
	ret = EXIT_OK;
out:
	free(cpus);
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_tarmac_symtab_free(syms);
	return ret;
}
