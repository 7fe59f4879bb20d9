/*
 * tarmac_state_cli.c - `tracekit tarmac regs`, `mem` and `history`: the
 * CPU's state at a moment of an Arm Tarmac log and the changes of a
 * register or of memory, on the state of tracekit/tarmac_state.h (this
 * file only parses the options and formats what the library keeps).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static void print_warning(void *ctx, const tk_error *w)
{
	char buf[1024];

	(void)ctx;
	cli_msg("%s\n", tk_error_format(w, "warning", buf, sizeof(buf)));
}

void cli_state_args_init(cli_state_args *s)
{
	memset(s, 0, sizeof(*s));
	s->format = "table";
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	unsigned long long v;
	char *e;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &e, base);
	if (*e || errno)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* An address: hexadecimal, with or without 0x, at most 64 bits */
static int parse_addr(const char *s, uint64_t *out)
{
	size_t n;

	if (!s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n > 16 || strspn(s, "0123456789abcdefABCDEF") != n)
		return -1;
	*out = (uint64_t)strtoull(s, NULL, 16);
	return 0;
}

/* A length: decimal, or 0xHEX */
static int parse_len(const char *s, uint64_t *out)
{
	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_addr(s, out);
	return parse_u64(s, 10, out);
}

/* TIME[UNIT]: a whole number, in the log's unit or in the unit named */
static int parse_at_time(const char *s, tk_tarmac_at *at)
{
	size_t n = strspn(s, "0123456789");
	char digits[32];
	int u;

	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (parse_u64(digits, 10, &at->value) < 0)
		return -1;
	at->unit = TK_TARMAC_UNIT_NONE;
	if (!s[n])
		return 0;
	for (u = 1; u < TK_TARMAC_UNIT_COUNT; u++)
		if (strcmp(s + n, tk_tarmac_unit_name((tk_tarmac_unit)u)) == 0) {
			at->unit = (tk_tarmac_unit)u;
			return 0;
		}
	return -1;
}

void cli_state_args_free(cli_state_args *s)
{
	free(s->ats);
	s->ats = NULL;
	s->nats = 0;
}

/* One more moment: --line N, --time T or --instr K.  0, or -1 after a
 * usage error */
static int add_moment(cli_state_args *s, int code, const char *arg)
{
	const char *opt = code == CLI_O_AT_LINE ? "--line" :
			  code == CLI_O_AT_TIME ? "--time" : "--instr";
	cli_state_at *a, m;

	tk_tarmac_at_init(&m.at);
	m.opt = opt;
	m.arg = arg;
	if (code == CLI_O_AT_TIME) {
		m.at.kind = TK_TARMAC_AT_TIME;
		if (parse_at_time(arg, &m.at) < 0) {
			cli_usage_error("tarmac", "bad --time '%s' (a whole number in the "
					"log's unit, or with a unit: 2500ns, 40clk)", arg);
			return -1;
		}
	} else {
		m.at.kind = code == CLI_O_AT_LINE ? TK_TARMAC_AT_LINE : TK_TARMAC_AT_INSTR;
		if (parse_u64(arg, 10, &m.at.value) < 0 ||
		    (code == CLI_O_AT_LINE && m.at.value == 0)) {
			cli_usage_error("tarmac", "bad %s '%s' (a whole number%s)", opt,
					arg, code == CLI_O_AT_LINE ? " from 1" : "");
			return -1;
		}
	}
	if (s->nats >= SIZE_MAX / sizeof(*a) - 1 ||
	    !(a = realloc(s->ats, (s->nats + 1) * sizeof(*a)))) {
		cli_msg("tracekit: error: out of memory\n");
		return -1;
	}
	a[s->nats++] = m;
	s->ats = a;
	s->at = a[0].at;
	s->at_opt = a[0].opt;
	return 0;
}

int cli_state_opt(cli_state_args *s, int code, const char *arg)
{
	switch (code) {
	case CLI_O_AT_LINE:
	case CLI_O_AT_TIME:
	case CLI_O_AT_INSTR:
		return add_moment(s, code, arg);
	case CLI_O_REG:
		s->reg = arg;
		return 0;
	case CLI_O_HADDR:
		if (parse_addr(arg, &s->addr) < 0) {
			cli_usage_error("tarmac", "bad --addr '%s' (hexadecimal, at most 64 bits)", arg);
			return -1;
		}
		s->has_addr = 1;
		return 0;
	case CLI_O_INDEX_DIR:
		s->index_dir = arg;
		return 0;
	case CLI_O_NO_INDEX:
		s->no_index = 1;
		return 0;
	case CLI_O_BIG_ENDIAN:
	case CLI_O_LITTLE_ENDIAN:
		if (s->order) {
			cli_usage_error("tarmac", "--big-endian and --little-endian: one of them");
			return -1;
		}
		s->order = code == CLI_O_BIG_ENDIAN ? TK_TARMAC_ORDER_BE : TK_TARMAC_ORDER_LE;
		return 0;
	case CLI_O_INDEX_SPAN:
		if (parse_len(arg, &s->index_span) < 0 || s->index_span < 256 ||
		    s->index_span > ((uint64_t)1 << 40)) {
			cli_usage_error("tarmac", "bad --index-span '%s' (256 to 2^40 bytes)", arg);
			return -1;
		}
		return 0;
	case CLI_O_LEN:
		if (parse_len(arg, &s->len) < 0 || s->len == 0 || s->len > CLI_STATE_LEN_MAX) {
			cli_usage_error("tarmac", "bad --len '%s' (1 to %u bytes)", arg,
					(unsigned)CLI_STATE_LEN_MAX);
			return -1;
		}
		return 0;
	default:
		if (strcmp(arg, "table") != 0 && strcmp(arg, "json") != 0) {
			cli_usage_error("tarmac", "unknown --format '%s' (table or json)", arg);
			return -1;
		}
		s->format = arg;
		return 0;
	}
}

/* ---- the replay ------------------------------------------------------------------ */

typedef struct replay {
	const char *path;
	const cli_state_args *sa;
	const cli_tarmac_args *ta;
	const cli_read_opts *ro;
	tk_tarmac *tr;
	tk_tarmac_state *st;
	uint32_t cpu;             /* the --cpu's record cpu, 0 while not seen */
	const tk_tarmac_index *ix; /* NULL: read from the start */
	char ipath[4096];         /* the index's path */
	int xdigits;              /* of the addresses printed */
	FILE *out;                /* where regs and mem write their answer */
	const cli_state_at *heading; /* several moments: the one answered */
	uint64_t shown;           /* the lines of history written */
} replay;

static void site(const replay *r, const tk_tarmac_record *rec)
{
	uint64_t pc;

	if (rec->cpu && !r->ta->cpu)
	{
		cli_text_cstr(stdout, tk_tarmac_cpu_name(r->tr, rec->cpu - 1));
		fputs(": ", stdout);
	}
	printf("t:%" PRIu64 " l:%" PRIu64, rec->time, rec->line);
	if (tk_tarmac_state_pc(r->st, rec->cpu, &pc))
		printf(" pc:0x%" PRIx64, pc);
	else
		printf(" pc:unknown");
}

static void reg_value(FILE *out, const char *v, int hex)
{
	fputs(hex ? "0x" : "", out);
	cli_text_cstr(out, v);
}

/* The watched bytes in address order: "e0 05 21 .." */
static void bytes_out(const uint8_t *v, const uint8_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (k[i])
			printf("%s%02x", i ? " " : "", v[i]);
		else
			printf("%s..", i ? " " : "");
}

/* The line of a change that history shows */
static void history_line(replay *r, const tk_tarmac_record *rec, int changed)
{
	const tk_tarmac_state *st = r->st;

	if ((changed & TK_TARMAC_CHANGED_REG) && r->sa->reg &&
	    cli_tarmac_reg_match(&rec->reg, r->sa->reg)) {
		const char *old;
		const tk_tarmac_reg *g = tk_tarmac_state_reg(st, tk_tarmac_state_changed_reg(st, &old));
		r->shown++;
		site(r, rec);
		fputs("  ", stdout);
		cli_text_cstr(stdout, g->name);
		putchar(' ');
		if (old)
			reg_value(stdout, old, g->hex && strspn(old, "0123456789abcdef-") == strlen(old));
		else
			printf("unknown");
		printf(" -> ");
		reg_value(stdout, g->value, g->hex);
		putchar('\n');
	}
	if ((changed & TK_TARMAC_CHANGED_MEM) && r->sa->has_addr) {
		const uint8_t *v, *k;
		size_t n;
		r->shown++;
		site(r, rec);
		printf("  %s 0x%0*" PRIx64 ": ", rec->write ? "write" : "read", r->xdigits,
		       rec->address);
		n = tk_tarmac_state_bytes(st, 1, &v, &k);
		bytes_out(v, k, n);
		printf(" -> ");
		n = tk_tarmac_state_bytes(st, 0, &v, &k);
		bytes_out(v, k, n);
		putchar('\n');
	}
}

/* history that found no change to show: a line on stderr that says what
 * the log never changes (a register's name mistyped shows the same), and
 * exit status 1, as a search that found nothing */
static int history_none(const replay *r)
{
	const char *cpu = r->ta->cpu;

	if (r->sa->reg)
		cli_msg("tracekit: history: %s: register '%s' is never written%s%s\n",
			cli_input_name(r->path), r->sa->reg, cpu ? " on " : "", cpu ? cpu : "");
	else
		cli_msg("tracekit: history: %s: no read or write changes the bytes 0x%0*"
			PRIx64 "..0x%0*" PRIx64 "%s%s\n", cli_input_name(r->path),
			r->xdigits, r->sa->addr, r->xdigits, r->sa->addr + (r->sa->len - 1),
			cpu ? " on " : "", cpu ? cpu : "");
	return EXIT_PROBLEMS;
}

/* A CPSR record that chooses the byte order of the memory that follows
 * (the order automatic: its E bit) */
static int is_cpsr(const cli_state_args *sa, const tk_tarmac_record *rec)
{
	return sa->order == TK_TARMAC_ORDER_AUTO && rec->kind == TK_TARMAC_REGISTER &&
	       rec->reg.len == 4 && (memcmp(rec->reg.ptr, "cpsr", 4) == 0 ||
				     memcmp(rec->reg.ptr, "CPSR", 4) == 0);
}

/*
 * Feed r->st the records from where r->tr is, up to the moment `at` (then
 * *passed is 1) or the end, or (stop) the last record on a line up to
 * `stop`; *last_line the line of the last record fed.  0, or -1 after an
 * error message.
 */
static int replay_loop(replay *r, tk_tarmac_at *at, int history, uint64_t stop,
		       int *passed, uint64_t *last_line)
{
	const char *want = r->ta->cpu;
	tk_tarmac_record rec;
	tk_error err;
	int rc;

	tk_error_clear(&err);
	while ((rc = tk_tarmac_next(r->tr, &rec, &err)) == TK_OK) {
		int changed;
		if (rec.line > stop)
			return 0;
		if (want && !r->cpu && rec.cpu &&
		    strcmp(tk_tarmac_cpu_name(r->tr, rec.cpu - 1), want) == 0) {
			r->cpu = rec.cpu;
			if (at->kind == TK_TARMAC_AT_INSTR)
				at->cpu = rec.cpu;
		}
		rc = tk_tarmac_at_passed(at, &rec);
		if (rc < 0) {
			cli_msg("%s:%" PRIu64 ": error: its time stamp (%s) cannot be "
				"compared with --time %" PRIu64 "%s\n", tk_tarmac_name(r->tr),
				rec.line, tk_tarmac_unit_name(rec.unit), at->value,
				tk_tarmac_unit_name(at->unit));
			return -1;
		}
		if (rc) {
			*passed = 1;
			return 0;
		}
		*last_line = rec.line;
		/* another CPU's records: its memory accesses (memory is
		 * shared) and, where the CPSR's E bit chooses the byte order,
		 * its CPSR (each access in the order of the CPU that made it) */
		if (want && rec.cpu != r->cpu && rec.kind != TK_TARMAC_MEMORY &&
		    rec.kind != TK_TARMAC_BUS && !(r->sa->has_addr && is_cpsr(r->sa, &rec)))
			continue;
		changed = tk_tarmac_state_record(r->st, &rec, &err);
		if (changed < 0) {
			rc = changed;
			break;
		}
		if (history && changed)
			history_line(r, &rec, changed);
	}
	if (rc < 0) {
		cli_error(&err);
		return -1;
	}
	return 0;
}

/* r->cpu: the record cpu of --cpu when the index says the log named it
 * before checkpoint k (the reader knows every name of the log) */
static void index_cpu(replay *r, size_t k)
{
	size_t i;

	if (!r->ta->cpu || r->cpu || !tk_tarmac_index_has_cpu(r->ix, k, r->ta->cpu))
		return;
	for (i = 0; i < tk_tarmac_cpu_count(r->tr); i++)
		if (strcmp(tk_tarmac_cpu_name(r->tr, i), r->ta->cpu) == 0)
			r->cpu = (uint32_t)i + 1;
}

/* The state at the moment: from the start, or with the index from the
 * checkpoint k the reader was set to */
static int replay_run(replay *r, int history, size_t k)
{
	const cli_state_args *sa = r->sa;
	const char *want = r->ta->cpu;
	tk_tarmac_at at = sa->at;
	uint64_t last_line = 0;
	int passed = 0;

	if (!sa->at_opt)
		tk_tarmac_at_init(&at);
	if (want && at.kind == TK_TARMAC_AT_INSTR)
		at.cpu = UINT32_MAX - 1;     /* none until the CPU is seen */
	if (r->ix) {
		last_line = tk_tarmac_index_line(r->ix, k);
		index_cpu(r, k);
		if (want && r->cpu && at.kind == TK_TARMAC_AT_INSTR)
			at.cpu = r->cpu;
		if (at.cpu != UINT32_MAX - 1)
			at.executed = tk_tarmac_index_executed(r->ix, k, want);
	}
	if (replay_loop(r, &at, history, UINT64_MAX, &passed, &last_line) < 0)
		return -1;
	if (!passed && at.kind == TK_TARMAC_AT_LINE && at.value > last_line) {
		cli_msg("tracekit: error: %s: --line %" PRIu64 " is past the log's "
			"last record (line %" PRIu64 ")\n", cli_input_name(r->path), at.value, last_line);
		return -1;
	}
	if (!passed && at.kind == TK_TARMAC_AT_INSTR && at.executed < at.value) {
		cli_msg("tracekit: error: %s: --instr %" PRIu64 ": the log has %" PRIu64
			" executed instructions%s%s\n", cli_input_name(r->path), at.value, at.executed,
			want ? " on " : "", want ? want : "");
		return -1;
	}
	if (want && !r->cpu) {
		cli_msg("tracekit: error: %s: no CPU named '%s'%s\n", cli_input_name(r->path), want,
			passed ? " before that moment" : "");
		return -1;
	}
	return 0;
}

/* A seek that failed: -2 (nothing said) when the index was found damaged
 * (the caller builds it again and asks once more), else -1; when the
 * log's bytes are not those the index was made of (an edit that kept its
 * size, mtime, head and tail), the index is removed, so that the next
 * query builds it again */
static int seek_error(const replay *r, const tk_error *err)
{
	if (r->ix && tk_tarmac_index_damaged(r->ix))
		return -2;
	cli_error(err);
	if (err->code == TK_E_FORMAT && remove(r->ipath) == 0)
		cli_msg("tracekit: note: %s: its index %s is removed (it is "
			"built again by the next query)\n", r->path, r->ipath);
	return -1;
}

/* history with the index: the spans that may change what it follows,
 * each from its checkpoint (the registers and PCs there; the watched
 * bytes carried from the span before, which the spans skipped do not
 * change).  0, -1, or -2 (the index found damaged, nothing written) */
static int index_history(replay *r)
{
	const tk_tarmac_index *ix = r->ix;
	size_t n = tk_tarmac_index_count(ix), k, i, nr = tk_tarmac_index_reg_count(ix);
	unsigned char *match = NULL, *want = NULL;
	tk_tarmac_at at;
	tk_error err;
	int ret = -1;

	if (r->sa->reg) {
		match = calloc(nr ? nr : 1, 1);
		if (!match) {
			cli_msg("tracekit: error: out of memory\n");
			return -1;
		}
		for (i = 0; i < nr; i++) {
			tk_tarmac_span sp;
			sp.ptr = tk_tarmac_index_reg_name(ix, i, &sp.len);
			match[i] = (unsigned char)cli_tarmac_reg_match(&sp, r->sa->reg);
		}
	}
	tk_tarmac_at_init(&at);
	tk_error_clear(&err);
	/* the spans wanted, their parts of the index checked before the
	 * first line is written (a damaged one: -2, nothing written) */
	want = calloc(n ? n : 1, 1);
	if (!want) {
		cli_msg("tracekit: error: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++) {
		if (match) {
			for (i = 0; i < nr && !want[k]; i++)
				want[k] = (unsigned char)(match[i] && tk_tarmac_index_reg_in(ix, k, i));
		} else {
			want[k] = (unsigned char)tk_tarmac_index_mem(ix, k, r->sa->addr, r->sa->len);
		}
		if (want[k] && !tk_tarmac_index_check(ix, k)) {
			ret = -2;
			goto out;
		}
	}
	for (k = 0; k < n; k++) {
		int passed = 0;
		uint64_t last = 0;
		if (!want[k])
			continue;
		if (tk_tarmac_index_seek(ix, k, r->tr, r->st, &err) < 0) {
			ret = seek_error(r, &err);
			goto out;
		}
		index_cpu(r, k);
		if (replay_loop(r, &at, 1, tk_tarmac_index_line(ix, k + 1), &passed, &last) < 0)
			goto out;
	}
	ret = 0;
out:
	free(match);
	free(want);
	return ret;
}

/* The runs of the bytes not known yet (at most MEM_RUNS; more: one run
 * from the first to the last): their count */
#define MEM_RUNS 64
static size_t missing_runs(const uint8_t *known, size_t n, size_t *at, size_t *len)
{
	size_t i = 0, nr = 0, first = SIZE_MAX, last = 0;

	while (i < n) {
		size_t j;
		if (known[i]) {
			i++;
			continue;
		}
		for (j = i; j < n && !known[j]; j++)
			;
		if (first == SIZE_MAX)
			first = i;
		last = j;
		if (nr < MEM_RUNS) {
			at[nr] = i;
			len[nr] = j - i;
		}
		nr++;
		i = j;
	}
	if (nr > MEM_RUNS) {
		at[0] = first;
		len[0] = last - first;
		nr = 1;
	}
	return nr;
}

/* mem with the index: the bytes at the moment from its checkpoint, then
 * those still not known from the spans before that may show one of them
 * (the index's summaries), latest first; *value and *known the caller's
 * (sa->len bytes).  0, -1, or -2 (the index found damaged, nothing said) */
static int index_mem(replay *r, size_t k, uint8_t *value, uint8_t *known)
{
	const tk_tarmac_index *ix = r->ix;
	const uint8_t *v, *kn;
	size_t n, i, missing = 0, nr, at[MEM_RUNS], len[MEM_RUNS];
	tk_tarmac_state *st = NULL;
	tk_tarmac_record rec;
	tk_error err;
	int rc, ret = -1;

	tk_error_clear(&err);
	if (replay_run(r, 0, k) < 0)
		return -1;
	n = tk_tarmac_state_bytes(r->st, 0, &v, &kn);
	memcpy(value, v, n);
	memcpy(known, kn, n);
	for (i = 0; i < n; i++)
		missing += !known[i];
	nr = missing_runs(known, n, at, len);
	while (missing && k-- > 0) {
		uint64_t stop = tk_tarmac_index_line(ix, k + 1);
		for (i = 0; i < nr; i++)
			if (tk_tarmac_index_mem(ix, k, r->sa->addr + at[i], len[i]))
				break;
		if (i == nr)
			continue;
		tk_tarmac_state_free(st);
		st = NULL;
		if (tk_tarmac_state_new(&st, &err) < 0 ||
		    tk_tarmac_state_watch(st, r->sa->addr, r->sa->len, &err) < 0)
			goto fail;
		tk_tarmac_state_set_order(st, r->sa->order);
		/* the registers too: the CPSR's E bit chooses the byte order */
		if (tk_tarmac_index_seek(ix, k, r->tr, r->sa->order ? NULL : st, &err) < 0) {
			ret = seek_error(r, &err);
			goto out;
		}
		/* the memory records alone change the bytes (and the CPSR
		 * the order, by default): the other records are not fed */
		while ((rc = tk_tarmac_next(r->tr, &rec, &err)) == TK_OK && rec.line <= stop)
			if ((rec.kind == TK_TARMAC_MEMORY || is_cpsr(r->sa, &rec)) &&
			    tk_tarmac_state_record(st, &rec, &err) < 0)
				goto fail;
		if (rc < 0)
			goto fail;
		tk_tarmac_state_bytes(st, 0, &v, &kn);
		for (i = 0; i < n; i++)
			if (!known[i] && kn[i]) {
				value[i] = v[i];
				known[i] = 1;
				missing--;
			}
		nr = missing_runs(known, n, at, len);
	}
	ret = 0;
	goto out;
fail:
	cli_error(&err);
out:
	tk_tarmac_state_free(st);
	return ret;
}

/* ---- the tools ----------------------------------------------------------------- */

static int regs_out(replay *r)
{
	const tk_tarmac_state *st = r->st;
	FILE *out = r->out;
	size_t i, n = tk_tarmac_state_reg_count(st);
	uint32_t cpu = r->cpu;
	int json = strcmp(r->sa->format, "json") == 0, first = 1;

	if (!r->ta->cpu) {
		for (i = 0; i < n; i++)
			if (tk_tarmac_state_reg(st, i)->cpu != tk_tarmac_state_reg(st, 0)->cpu) {
				cli_msg("tracekit: error: %s: registers of several CPUs: "
					"choose one with --cpu (%s, %s)\n", cli_input_name(r->path),
					tk_tarmac_state_reg(st, 0)->cpu ? tk_tarmac_cpu_name(r->tr, tk_tarmac_state_reg(st, 0)->cpu - 1) : "no prefix",
					tk_tarmac_state_reg(st, i)->cpu ? tk_tarmac_cpu_name(r->tr, tk_tarmac_state_reg(st, i)->cpu - 1) : "no prefix");
				return -1;
			}
		cpu = n ? tk_tarmac_state_reg(st, 0)->cpu : 0;
	}
	if (json) {
		fprintf(out, "{\n  \"file\": ");
		cli_json_cstr(out, r->path);
		fprintf(out, ",\n  \"cpu\": ");
		if (cpu)
			cli_json_cstr(out, tk_tarmac_cpu_name(r->tr, cpu - 1));
		else
			fprintf(out, "null");
		fprintf(out, ",\n  \"registers\": [");
	}
	for (i = 0; i < n; i++) {
		const tk_tarmac_reg *g = tk_tarmac_state_reg(st, i);
		if (g->cpu != cpu)
			continue;
		if (json) {
			fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
			cli_json_cstr(out, g->name);
			fprintf(out, ", \"value\": ");
			if (g->hex) {
				fprintf(out, "\"0x%s\"", g->value);
			} else {
				cli_json_cstr(out, g->value);
			}
			fprintf(out, ", \"line\": %" PRIu64 "}", g->line);
		} else {
			cli_text_cstr(out, g->name);
			fputc(' ', out);
			reg_value(out, g->value, g->hex);
			fputc('\n', out);
		}
		first = 0;
	}
	if (json)
		fprintf(out, "%s]\n}\n", first ? "" : "\n  ");
	return 0;
}

static void mem_out(const replay *r, const uint8_t *v, const uint8_t *k, size_t n)
{
	FILE *out = r->out;
	size_t i;

	for (i = 0; i < n; i += 16) {
		fprintf(out, "%0*" PRIx64 " ", r->xdigits, r->sa->addr + (uint64_t)i);
		for (size_t j = i; j < n && j < i + 16; j++) {
			if (k[j])
				fprintf(out, " %02x", v[j]);
			else
				fprintf(out, " ..");
		}
		fputc('\n', out);
	}
}

/* The index of the log at `path` for the query, or NULL: read it from its
 * start (--no-index, not a file, shorter than 16 spans, the index cannot
 * be had (a warning), or --strict on a log the index's lenient read
 * warned about) */
static tk_tarmac_index *index_get(const char *path, const cli_state_args *sa,
				  const cli_read_opts *ro, char *ipath, size_t size)
{
	uint64_t span = sa->index_span ? sa->index_span : TK_TARMAC_INDEX_SPAN;
	tk_tarmac_index *ix = NULL;
	struct stat sb;
	tk_error err;

	if (sa->no_index || strcmp(path, "-") == 0 || stat(path, &sb) < 0 ||
	    !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size / 16 < span)
		return NULL;
	tk_error_clear(&err);
	if (!tk_tarmac_index_path(path, sa->index_dir, ipath, size)) {
		if (!ro->quiet)
			cli_msg("tracekit: warning: %s: no path for its index (read "
				"from its start)\n", path);
		return NULL;
	}
	if (tk_tarmac_index_open(&ix, path, ipath, span, 1, NULL, &err) < 0) {
		char buf[1024];
		/* not a plain file (compressed): no index, nothing to say */
		if (err.code != TK_E_USAGE && !ro->quiet)
			cli_msg("%s (the log is read from its start)\n",
				tk_error_format(&err, "warning", buf, sizeof(buf)));
		return NULL;
	}
	if (ro->strict && tk_tarmac_index_warned(ix)) {
		tk_tarmac_index_free(ix);
		return NULL;
	}
	return ix;
}

/* Several moments: the line before each answer, "@ --line 120" */
static void heading(const replay *r)
{
	if (r->heading)
	{
		fprintf(r->out, "@ %s ", r->heading->opt);
		cli_text_cstr(r->out, r->heading->arg);
		fputc('\n', r->out);
	}
}

/* The answer of regs or mem at the moment sa->at (with the index ix when
 * not NULL, r->tr then a reader of the log; else from the start of the
 * input *in, which it takes), written to r->out.  0, -1 after an error
 * message, or -2: the index found damaged, nothing written */
static int answer(replay *r, const char *tool, tk_tarmac_index *ix, tk_input **in,
		  const tk_tarmac_opts *o)
{
	const cli_state_args *sa = r->sa;
	uint8_t *mv = NULL;
	size_t k = 0;
	tk_error err;
	int ret = -1, rc;

	tk_error_clear(&err);
	tk_tarmac_state_free(r->st);
	r->st = NULL;
	r->cpu = 0;
	if (tk_tarmac_state_new(&r->st, &err) < 0 ||
	    (sa->has_addr && tk_tarmac_state_watch(r->st, sa->addr, sa->len, &err) < 0)) {
		cli_error(&err);
		goto out;
	}
	tk_tarmac_state_set_order(r->st, sa->order);
	if (ix) {
		/* mem: the registers too when the CPSR's E bit chooses the
		 * byte order */
		int regs = strcmp(tool, "regs") == 0 || sa->order == TK_TARMAC_ORDER_AUTO;
		k = tk_tarmac_index_find(ix, &sa->at, r->ta->cpu);
		if (tk_tarmac_index_seek(ix, k, r->tr, regs ? r->st : NULL, &err) < 0) {
			ret = seek_error(r, &err);
			goto out;
		}
	} else {
		tk_tarmac_close(r->tr);
		r->tr = NULL;
		rc = tk_tarmac_open_input(&r->tr, *in, o, &err);
		*in = NULL;
		if (rc < 0) {
			cli_error(&err);
			goto out;
		}
	}
	if (strcmp(tool, "mem") == 0) {
		const uint8_t *v, *kn;
		size_t n = tk_tarmac_state_bytes(r->st, 0, &v, &kn);
		mv = malloc(2 * n);
		if (!mv) {
			cli_msg("tracekit: error: out of memory\n");
			goto out;
		}
		if (ix) {
			if ((rc = index_mem(r, k, mv, mv + n)) < 0) {
				ret = rc;
				goto out;
			}
		} else {
			if (replay_run(r, 0, 0) < 0)
				goto out;
			n = tk_tarmac_state_bytes(r->st, 0, &v, &kn);
			memcpy(mv, v, n);
			memcpy(mv + n, kn, n);
		}
		heading(r);
		mem_out(r, mv, mv + n, n);
	} else {
		if (replay_run(r, 0, k) < 0)
			goto out;
		heading(r);
		if (regs_out(r) < 0)
			goto out;
	}
	ret = 0;
out:
	free(mv);
	return ret;
}

int cli_tarmac_state(const char *tool, const char *path, const char *const *ops,
		     size_t nops, const cli_state_args *sa0, const cli_tarmac_args *ta,
		     const cli_read_opts *ro)
{
	cli_state_args sa = *sa0;
	tk_tarmac_opts o;
	tk_tarmac_index *ix = NULL;
	tk_input *in = NULL;
	tk_error err;
	replay r;
	char *buf = NULL;
	size_t buflen = 0, i = 0, nats = sa0->nats ? sa0->nats : 1;
	int ret = EXIT_BAD, history = strcmp(tool, "history") == 0, rc, retried = 0;
	struct stat sb;

	memset(&r, 0, sizeof(r));
	r.out = stdout;
	if (strcmp(tool, "mem") == 0) {
		if (nops < 1 || nops > 2) {
			cli_usage_error("tarmac", "mem: expected IN ADDR [LEN]");
			return EXIT_BAD;
		}
		if (parse_addr(ops[0], &sa.addr) < 0) {
			cli_usage_error("tarmac", "mem: bad ADDR '%s' (hexadecimal, at most 64 bits)",
					ops[0]);
			return EXIT_BAD;
		}
		sa.has_addr = 1;
		sa.len = 1;
		if (nops == 2 && (parse_len(ops[1], &sa.len) < 0 || sa.len == 0 ||
				  sa.len > CLI_STATE_LEN_MAX)) {
			cli_usage_error("tarmac", "mem: bad LEN '%s' (1 to %u bytes)", ops[1],
					(unsigned)CLI_STATE_LEN_MAX);
			return EXIT_BAD;
		}
	} else if (nops) {
		cli_usage_error("tarmac", "%s: expected one IN", tool);
		return EXIT_BAD;
	}
	if (history) {
		if (!sa.reg == !sa.has_addr) {
			cli_usage_error("tarmac", "history: give --reg NAME or --addr ADDR");
			return EXIT_BAD;
		}
		if (sa.at_opt) {
			cli_usage_error("tarmac", "history: %s does not apply (every change is shown)",
					sa.at_opt);
			return EXIT_BAD;
		}
		if (!sa.len)
			sa.len = 1;
	} else if (sa0->reg || sa0->has_addr || sa0->len) {
		cli_usage_error("tarmac", "%s: --reg, --addr and --len are options of history",
				tool);
		return EXIT_BAD;
	}
	if (strcmp(sa.format, "table") != 0 && strcmp(tool, "regs") != 0) {
		cli_usage_error("tarmac", "%s: --format does not apply", tool);
		return EXIT_BAD;
	}
	/* several moments: the log read for each (a file), the answers kept
	 * until the last is had (an error: none written) */
	if (nats > 1 && (strcmp(path, "-") == 0 || stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))) {
		cli_usage_error("tarmac", "%s: several moments need IN to be a file", tool);
		return EXIT_BAD;
	}
	r.path = path;
	r.sa = &sa;
	r.ta = ta;
	r.ro = ro;
	r.xdigits = sa.has_addr && (sa.addr > 0xffffffffu || sa.len - 1 > 0xffffffffu - sa.addr)
		    ? 16 : 8;
	if (cli_tarmac_refuse("tarmac", NULL, ro, path) < 0 || cli_input(&in, path, ro) < 0)
		return EXIT_BAD;
	if (!cli_input_is_tarmac(in)) {
		cli_msg("tracekit: error: %s: %s reads an Arm Tarmac log (this input is "
			"not one%s)\n", path, tool, ro->from ? "" : "; --from tarmac forces it");
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (nats > 1 && !(r.out = open_memstream(&buf, &buflen))) {
		cli_msg("tracekit: error: out of memory\n");
		tk_input_close(in);
		return EXIT_BAD;
	}
	tk_tarmac_opts_init(&o);
	o.strict = ro->strict;
	o.on_warning = ro->quiet ? NULL : print_warning;
again:
	tk_error_clear(&err);
	ix = index_get(path, &sa, ro, r.ipath, sizeof(r.ipath));
	/* history --cpu of a CPU the log never names reads it all (the
	 * changes of the records without a prefix, then the error) */
	if (ix && history && ta->cpu &&
	    !tk_tarmac_index_has_cpu(ix, tk_tarmac_index_count(ix), ta->cpu)) {
		tk_tarmac_index_free(ix);
		ix = NULL;
	}
	r.ix = ix;
	if (ix) {
		tk_input_close(in);
		in = NULL;
		if (tk_tarmac_open(&r.tr, path, &o, &err) < 0) {
			cli_error(&err);
			goto out;
		}
	}
	if (history) {
		if (tk_tarmac_state_new(&r.st, &err) < 0 ||
		    (sa.has_addr && tk_tarmac_state_watch(r.st, sa.addr, sa.len, &err) < 0)) {
			cli_error(&err);
			goto out;
		}
		tk_tarmac_state_set_order(r.st, sa.order);
		if (ix) {
			if ((rc = index_history(&r)) == -2)
				goto damaged;
			if (rc < 0)
				goto out;
		} else {
			if ((rc = tk_tarmac_open_input(&r.tr, in, &o, &err)) < 0)
				cli_error(&err);
			in = NULL;
			if (rc < 0 || replay_run(&r, 1, 0) < 0)
				goto out;
		}
		ret = r.shown ? EXIT_OK : history_none(&r);
		goto out;
	}
	/* regs, mem: each moment in the order given, headed by a line that
	 * names it when there are several */
	for (; i < nats; i++) {
		if (sa0->nats) {
			sa.at = sa0->ats[i].at;
			sa.at_opt = sa0->ats[i].opt;
		}
		if (!ix && !in && cli_input(&in, path, ro) < 0)
			goto out;
		r.heading = nats > 1 ? &sa0->ats[i] : NULL;
		if ((rc = answer(&r, tool, ix, &in, &o)) == -2)
			goto damaged;
		if (rc < 0)
			goto out;
	}
	if (nats > 1) {
		if (fclose(r.out) != 0) {
			r.out = NULL;
			cli_msg("tracekit: error: out of memory\n");
			goto out;
		}
		r.out = NULL;
		if (buflen && fwrite(buf, 1, buflen, stdout) != buflen)
			goto out;
	}
	ret = EXIT_OK;
	goto out;
damaged:
	/* a part of the index found damaged (nothing of this moment written
	 * yet): it is built again, and the moment asked once more */
	tk_tarmac_close(r.tr);
	tk_tarmac_state_free(r.st);
	tk_tarmac_index_free(ix);
	r.tr = NULL;
	r.st = NULL;
	r.ix = ix = NULL;
	r.cpu = 0;
	if (remove(r.ipath) != 0 || retried++ || cli_input(&in, path, ro) < 0) {
		cli_msg("tracekit: error: %s: its index %s is damaged and cannot be "
			"built again\n", path, r.ipath);
		goto out;
	}
	goto again;
out:
	if (r.out && r.out != stdout)
		fclose(r.out);
	free(buf);
	tk_input_close(in);
	tk_tarmac_close(r.tr);
	tk_tarmac_state_free(r.st);
	tk_tarmac_index_free(ix);
	return ret;
}

/* ---- vcd ----------------------------------------------------------------------- */

typedef struct vcd_var {
	uint32_t width;           /* bits; UINT32_MAX: left out (not hex) */
	uint32_t cpu;
	char name[64];
} vcd_var;

/* The VCD identifier of variable i: base 94 of printable characters */
static void vcd_id(size_t i, char *buf)
{
	size_t k = 0;

	do {
		buf[k++] = (char)('!' + i % 94);
		i /= 94;
	} while (i);
	buf[k] = '\0';
}

/* vars[self].name: a VCD reference for the register name `name`,
 * [A-Za-z0-9_] only, unique among the variables before it of its CPU */
static void vcd_name(vcd_var *vars, size_t self, const char *name)
{
	char *out = vars[self].name;
	size_t i, n = 0, cap = sizeof(vars[self].name);
	int dup;

	for (i = 0; name[i] && n + 12 < cap; i++) {
		char c = name[i];
		out[n++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '_') ? c : '_';
	}
	out[n] = '\0';
	if (strcmp(out, "pc") == 0)
		snprintf(out + n, cap - n, "_r");
	n = strlen(out);
	for (dup = 2; ; dup++) {
		for (i = 0; i < self; i++)
			if (vars[i].cpu == vars[self].cpu && strcmp(vars[i].name, out) == 0)
				break;
		if (i == self)
			return;
		snprintf(out + n, cap - n, "_%d", dup);
	}
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static int vcd_put(tk_output *o, const char *s, tk_error *err)
{
	return tk_output_write(o, s, strlen(s), err);
}

/* "b0101... ID\n" of hex digits (x for '-'), widened with 0 to `width` bits */
static int vcd_value(tk_output *o, const char *v, uint32_t width, const char *id,
		     tk_error *err)
{
	char buf[8 + 4 * 64 + 16];
	size_t n = strlen(v), k = 0, i;
	uint32_t bits = (uint32_t)(4 * n), b;

	if (n > 64)
		return TK_OK;
	buf[k++] = 'b';
	for (b = bits; b < width; b++)
		buf[k++] = '0';
	for (i = 0; i < n; i++) {
		int d = v[i] == '-' ? -1 : (v[i] <= '9' ? v[i] - '0' : v[i] - 'a' + 10);
		for (b = 4; b-- > 0;)
			buf[k++] = d < 0 ? 'x' : (char)('0' + ((d >> b) & 1));
	}
	buf[k++] = ' ';
	buf[k] = '\0';
	if (tk_output_write(o, buf, k, err) < 0)
		return TK_E_IO;
	if (vcd_put(o, id, err) < 0 || vcd_put(o, "\n", err) < 0)
		return TK_E_IO;
	return TK_OK;
}

/* "s<name> ID\n": a GTKWave string change, blanks and the bytes that
 * are not printable written as \ooo (as GTKWave reads them) */
static int vcd_string(tk_output *o, const char *v, const char *id, tk_error *err)
{
	char buf[4 * 256 + 16];
	size_t k = 0;

	buf[k++] = 's';
	for (; *v && k < sizeof(buf) - 8; v++) {
		unsigned char c = (unsigned char)*v;
		if (c <= ' ' || c >= 0x7f || c == '\\')
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "\\%03o", c);
		else
			buf[k++] = (char)c;
	}
	buf[k++] = ' ';
	if (tk_output_write(o, buf, k, err) < 0 || vcd_put(o, id, err) < 0 ||
	    vcd_put(o, "\n", err) < 0)
		return TK_E_IO;
	return TK_OK;
}

static const char *vcd_scale(tk_tarmac_unit u)
{
	switch (u) {
	case TK_TARMAC_UNIT_FS: return "1 fs";
	case TK_TARMAC_UNIT_PS: return "1 ps";
	case TK_TARMAC_UNIT_US: return "1 us";
	case TK_TARMAC_UNIT_MS: return "1 ms";
	case TK_TARMAC_UNIT_S: return "1 s";
	default: return "1 ns";
	}
}

int cli_tarmac_vcd(const char *path, const char *outpath, const cli_tarmac_args *ta,
		   const cli_read_opts *ro)
{
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_state *st = NULL;
	tk_tarmac_record rec;
	tk_output *out = NULL;
	tk_error err;
	tk_symtab *syms = NULL;   /* --elf: a "func" string per CPU */
	long *fsym = NULL;        /* per CPU, the symbol last written (-2: none yet) */
	vcd_var *vars = NULL;
	size_t nvars = 0, capvars = 0, i, ncpus = 0;
	uint64_t maxpc = 0, last = 0, back = 0;
	tk_tarmac_unit unit = TK_TARMAC_UNIT_NONE;
	uint8_t *cpus = NULL;     /* per record cpu: 1 it has instructions, 2 registers */
	char **names = NULL;      /* per record cpu, from pass 0 */
	int pass, rc, ret = EXIT_BAD, started = 0;
	char id[8], line[256];

	if (strcmp(path, "-") == 0) {
		cli_usage_error("tarmac", "vcd: IN is read twice: a file, not standard input");
		return EXIT_BAD;
	}
	tk_tarmac_opts_init(&o);
	o.strict = ro->strict;
	tk_error_clear(&err);
	if (ta->elf) {
		if (tk_symtab_open(&syms, ta->elf, &err) < 0)
			goto fail;
		tk_symtab_shift(syms, ta->load_offset);
	}
	for (pass = 0; pass < 2; pass++) {
		o.on_warning = ro->quiet || pass ? NULL : print_warning;
		if (pass == 1) {
			for (i = 0; i < nvars; i++) {
				vars[i].cpu = tk_tarmac_state_reg(st, i)->cpu;
				vcd_name(vars, i, tk_tarmac_state_reg(st, i)->name);
				if (vars[i].width != UINT32_MAX)
					cpus[vars[i].cpu] |= 2;
			}
			names = calloc(ncpus ? ncpus : 1, sizeof(*names));
			fsym = malloc((ncpus ? ncpus : 1) * sizeof(*fsym));
			if (!names || !fsym)
				goto nomem;
			for (i = 0; i < ncpus; i++)
				fsym[i] = -2;
			for (i = 1; i < ncpus; i++)
				if (!(names[i] = dup_str(tk_tarmac_cpu_name(tr, i - 1))))
					goto nomem;
		}
		tk_tarmac_close(tr);
		tr = NULL;
		tk_tarmac_state_free(st);
		st = NULL;
		if (tk_tarmac_open(&tr, path, &o, &err) < 0 || tk_tarmac_state_new(&st, &err) < 0)
			goto fail;
		if (pass == 1) {
			size_t nregs = nvars;
			uint32_t pcw = maxpc > 0xffffffffu ? 64 : 32;
			if (tk_output_open(&out, outpath, &err) < 0)
				goto fail;
			snprintf(line, sizeof(line), "$comment tracekit tarmac vcd: the registers "
				 "of an Arm Tarmac log%s $end\n$timescale %s $end\n",
				 unit == TK_TARMAC_UNIT_CLK || unit == TK_TARMAC_UNIT_CYC ||
				 unit == TK_TARMAC_UNIT_TIC || unit == TK_TARMAC_UNIT_CS
				 ? " (one tick of its stamps written as 1 ns)" : "", vcd_scale(unit));
			if (vcd_put(out, line, &err) < 0)
				goto fail;
			for (size_t c = 0; c < ncpus; c++) {
				if (!cpus[c])
					continue;
				snprintf(line, sizeof(line), "$scope module %s $end\n",
					 c ? names[c] : "cpu");
				/* a CPU name as a reference: no blanks in Tarmac prefixes */
				if (vcd_put(out, line, &err) < 0)
					goto fail;
				if (cpus[c] & 1) {
					vcd_id(nregs + c, id);
					snprintf(line, sizeof(line), "$var wire %u %s pc $end\n",
						 (unsigned)pcw, id);
					if (vcd_put(out, line, &err) < 0)
						goto fail;
				}
				if ((cpus[c] & 1) && syms) {
					/* the function of the PC (GTKWave's string
					 * variable, as GHDL and Verilator write it) */
					vcd_id(nregs + ncpus + c, id);
					snprintf(line, sizeof(line), "$var string 0 %s func $end\n", id);
					if (vcd_put(out, line, &err) < 0)
						goto fail;
				}
				for (i = 0; i < nregs; i++) {
					if (vars[i].cpu != c || vars[i].width == UINT32_MAX)
						continue;
					vcd_id(i, id);
					snprintf(line, sizeof(line), "$var wire %u %s %s $end\n",
						 (unsigned)vars[i].width, id, vars[i].name);
					if (vcd_put(out, line, &err) < 0)
						goto fail;
				}
				if (vcd_put(out, "$upscope $end\n", &err) < 0)
					goto fail;
			}
			if (vcd_put(out, "$enddefinitions $end\n", &err) < 0)
				goto fail;
		}
		while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK) {
			int ch = tk_tarmac_state_record(st, &rec, &err);
			if (ch < 0)
				goto fail;
			if (rec.unit != TK_TARMAC_UNIT_NONE && unit == TK_TARMAC_UNIT_NONE && !pass)
				unit = rec.unit;
			if (rec.unit != TK_TARMAC_UNIT_NONE && rec.unit != unit) {
				cli_msg("%s:%" PRIu64 ": error: a stamp in %s in a log in %s: "
					"vcd writes one unit\n", path, rec.line,
					tk_tarmac_unit_name(rec.unit), tk_tarmac_unit_name(unit));
				goto out;
			}
			if (pass == 0) {
				if (rec.kind == TK_TARMAC_INSTRUCTION && rec.has_address) {
					if (rec.address > maxpc)
						maxpc = rec.address;
					if (rec.cpu >= ncpus) {
						uint8_t *nc = realloc(cpus, (size_t)rec.cpu + 1);
						if (!nc)
							goto nomem;
						memset(nc + ncpus, 0, (size_t)rec.cpu + 1 - ncpus);
						cpus = nc;
						ncpus = (size_t)rec.cpu + 1;
					}
					cpus[rec.cpu] = 1;
				}
				if (ch & TK_TARMAC_CHANGED_REG) {
					size_t r = tk_tarmac_state_changed_reg(st, NULL);
					const tk_tarmac_reg *g = tk_tarmac_state_reg(st, r);
					size_t w = 4 * strlen(g->value);
					if (r >= capvars) {
						size_t cap = capvars ? 2 * capvars : 64;
						while (cap <= r)
							cap *= 2;
						vcd_var *nv = realloc(vars, cap * sizeof(*nv));
						if (!nv)
							goto nomem;
						memset(nv + capvars, 0, (cap - capvars) * sizeof(*nv));
						vars = nv;
						capvars = cap;
					}
					if (r >= nvars)
						nvars = r + 1;
					if (!g->hex || w > 256)
						vars[r].width = UINT32_MAX;     /* left out */
					else if (vars[r].width != UINT32_MAX && w > vars[r].width)
						vars[r].width = (uint32_t)w;
					if (g->cpu >= ncpus) {
						uint8_t *nc = realloc(cpus, (size_t)g->cpu + 1);
						if (!nc)
							goto nomem;
						memset(nc + ncpus, 0, (size_t)g->cpu + 1 - ncpus);
						cpus = nc;
						ncpus = (size_t)g->cpu + 1;
					}
				}
				continue;
			}
			/* pass 1: the changes at their time (of the variables
			 * declared: a log that grew since pass 0 has more) */
			if (rec.kind == TK_TARMAC_INSTRUCTION && rec.has_address) {
				if (rec.cpu >= ncpus || !(cpus[rec.cpu] & 1))
					continue;
			} else if (!(ch & TK_TARMAC_CHANGED_REG) ||
				   tk_tarmac_state_changed_reg(st, NULL) >= nvars ||
				   vars[tk_tarmac_state_changed_reg(st, NULL)].width == UINT32_MAX) {
				continue;
			}
			if (!started || rec.time > last) {
				snprintf(line, sizeof(line), "#%" PRIu64 "\n", rec.time);
				if (vcd_put(out, line, &err) < 0)
					goto fail;
				last = rec.time;
				started = 1;
			} else if (rec.time < last) {
				back++;      /* written at the later time */
			}
			if (rec.kind == TK_TARMAC_INSTRUCTION) {
				char hex[17];
				snprintf(hex, sizeof(hex), maxpc > 0xffffffffu ? "%016" PRIx64 : "%08" PRIx64,
					 rec.address);
				vcd_id(nvars + rec.cpu, id);
				if (vcd_value(out, hex, 0, id, &err) < 0)
					goto fail;
				if (syms) {
					long f = tk_symtab_find(syms, rec.address);
					if (f != fsym[rec.cpu]) {
						fsym[rec.cpu] = f;
						vcd_id(nvars + ncpus + rec.cpu, id);
						if (vcd_string(out, f < 0 ? "[unknown]"
							       : tk_symtab_get(syms, (size_t)f)->name,
							       id, &err) < 0)
							goto fail;
					}
				}
			} else {
				size_t r = tk_tarmac_state_changed_reg(st, NULL);
				vcd_id(r, id);
				if (vcd_value(out, tk_tarmac_state_reg(st, r)->value, vars[r].width,
					      id, &err) < 0)
					goto fail;
			}
		}
		if (rc < 0)
			goto fail;
	}
	if (back && !ro->quiet)
		cli_msg("%s: warning: %" PRIu64 " time stamps earlier than the one before: "
			"their changes are written at the later time\n", path, back);
	if (tk_output_close(out, &err) < 0) {
		out = NULL;
		goto fail;
	}
	out = NULL;
	ret = EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: error: out of memory\n");
	goto out;
fail:
	cli_error(&err);
out:
	tk_output_abort(out);
	tk_tarmac_close(tr);
	tk_tarmac_state_free(st);
	if (names)
		for (i = 0; i < ncpus; i++)
			free(names[i]);
	free(names);
	free(fsym);
	tk_symtab_free(syms);
	free(vars);
	free(cpus);
	return ret;
}
