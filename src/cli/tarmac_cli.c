/*
 * tarmac_cli.c - `info` and `stats` for Arm Tarmac logs, on the CPU-level
 * records of tracekit/tarmac.h, the views of `cat` (the records' lines) and
 * of `convert` (folded stacks, deprecated: `tracekit tarmac folded`): the
 * commands parse their options (these views' among them, through
 * cli_tarmac_opt()), open FILE once and call these when it is a Tarmac
 * log (cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared --------------------------------------------------------------- */

static void print_warning(void *ctx, const tk_error *w)
{
	char buf[1280];

	(void)ctx;
	cli_text_cstr(stderr, cli_error_text(w, "warning", buf, sizeof(buf)));
	fputc('\n', stderr);
}

/* The stamps the profile's times could not take as written: a warning
 * (none with -q), or with --strict an error (-1) before any output. */
static int profile_stamps(const tk_tarmac_profile *p, const char *path,
			  const cli_read_opts *ro)
{
	uint64_t inexact, back;
	tk_tarmac_unit unit = tk_tarmac_profile_stamps(p, &inexact, &back);

	if ((!inexact && !back) || (ro->quiet && !ro->strict))
		return 0;
	cli_msg("%s: %s: the function times are not exact (time stamps:"
		" %" PRIu64 " not whole %s, rounded down or not counted; %" PRIu64
		" earlier than the one before, not counted)\n",
		cli_input_name(path), ro->strict ? "error" : "warning", inexact,
		tk_tarmac_unit_name(unit), back);
	return ro->strict ? -1 : 0;
}

/* The records of the input (which is the reader's from then on). */
static int open_log(tk_tarmac **tr, tk_input *in, int strict, int quiet)
{
	tk_tarmac_opts o;
	tk_error err;

	tk_tarmac_opts_init(&o);
	o.strict = strict;
	o.on_warning = quiet ? NULL : print_warning;
	tk_error_clear(&err);
	if (tk_tarmac_open_input(tr, in, &o, &err) < 0) {
		cli_error(&err);
		return -1;
	}
	return 0;
}

static void summary(const tk_tarmac *tr, int quiet)
{
	uint64_t n = tk_tarmac_skipped_count(tr);

	if (n && !quiet)
		cli_msg(
			"tracekit: %" PRIu64 " line%s skipped (lenient mode; the first of each kind shown)\n",
			n, n == 1 ? "" : "s");
}

/* "0x1000-0x1fff", "1000", "0x1000" (hex with or without 0x); an
 * address beyond 64 bits is refused */
static int parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	char *e;
	const char *dash = strchr(s, '-');

	errno = 0;
	*lo = strtoull(s, &e, 16);
	if (e == s || errno == ERANGE || (dash ? e != dash : *e != '\0'))
		return -1;
	if (!dash) {
		*hi = *lo;
		return 0;
	}
	*hi = strtoull(dash + 1, &e, 16);
	if (e == dash + 1 || errno == ERANGE || *e || *hi < *lo)
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

int cli_input_is_tarmac(const tk_input *in)
{
	return strcmp(tk_input_format(in)->name, "tarmac") == 0;
}

/* ---- the options ---------------------------------------------------------------- */

void cli_tarmac_args_init(cli_tarmac_args *a)
{
	memset(a, 0, sizeof(*a));
	a->top = 10;
	a->weight = "instructions";
}

void cli_tarmac_args_free(cli_tarmac_args *a)
{
	free(a->mnems);
	free(a->regs);
	a->mnems = a->regs = NULL;
	a->nmnems = a->nregs = 0;
}

int cli_tarmac_opt(cli_tarmac_args *a, const char *cmd, int code, const char *arg)
{
	static const char *const names[] = {
		"--pc", "--mnemonic", "--register", "--addr", "--kind", "--cpu",
		"--top", "--elf", "--weight", "--load-offset"
	};
	const char *name = names[code - CLI_O_PC];
	char *e;
	int k;

	switch (code) {
	case CLI_O_PC:
	case CLI_O_ADDR:
		if (code == CLI_O_PC ? parse_range(arg, &a->pclo, &a->pchi) < 0
				     : parse_range(arg, &a->alo, &a->ahi) < 0) {
			cli_usage_error(cmd, "bad %s '%s' (LO[-HI], hexadecimal, at most 64 bits each)", name, arg);
			return -1;
		}
		if (code == CLI_O_PC)
			a->has_pc = 1;
		else
			a->has_addr = 1;
		return 0;
	case CLI_O_MNEMONIC:
	case CLI_O_REGISTER:
		if ((code == CLI_O_MNEMONIC ? cli_filter_add(&a->mnems, &a->nmnems, arg)
					    : cli_filter_add(&a->regs, &a->nregs, arg)) < 0) {
			cli_msg("tracekit: error: out of memory\n");
			return -1;
		}
		return 0;
	case CLI_O_KIND:
		k = kind_of(arg);
		if (k < 0) {
			cli_usage_error(cmd, "bad --kind '%s' (instruction, register, event, "
					"memory, bus, branch or other)", arg);
			return -1;
		}
		a->kinds |= 1u << k;
		return 0;
	case CLI_O_CPU:
		a->cpu = arg;
		return 0;
	case CLI_O_TOP:
		/* digits only, at most 9 (no sign, no wrap) */
		a->top = (size_t)strtoul(arg, &e, 10);
		if (e == arg || *e || *arg < '0' || *arg > '9' || e - arg > 9) {
			cli_usage_error(cmd, "bad --top '%s'", arg);
			return -1;
		}
		return 0;
	case CLI_O_ELF:
		a->elf = arg;
		return 0;
	case CLI_O_LOAD_OFFSET: {
		/* [-]0xHEX or [-]DECIMAL, at most 64 bits; '-' subtracts */
		const char *d = arg + (*arg == '-');
		unsigned long long v;
		errno = 0;
		v = strtoull(d, &e, 0);
		if (e == d || *e || errno || *d < '0' || *d > '9') {
			cli_usage_error(cmd, "bad %s '%s' ([-]0xHEX or [-]DECIMAL)", name, arg);
			return -1;
		}
		a->load_offset = *arg == '-' ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		return 0;
	}
	default:
		if (strcmp(arg, "instructions") != 0 && strcmp(arg, "time") != 0) {
			cli_usage_error(cmd, "unknown --weight '%s' (instructions or time)", arg);
			return -1;
		}
		a->weight = arg;
		return 0;
	}
}

int cli_tarmac_refuse(const char *cmd, const char *opt, const cli_read_opts *ro,
		      const char *path)
{
	if (!opt)
		opt = ro->data_opt;
	if (!opt)
		return 0;
	cli_usage_error(cmd, "%s does not apply to the records of an Arm Tarmac log (%s)",
			opt, path);
	return -1;
}

/* ---- info --------------------------------------------------------------------- */

int cli_tarmac_info(tk_input *in, const char *path, int json,
		    const cli_read_opts *ro)
{
	uint64_t counts[TK_TARMAC_KIND_COUNT] = { 0 }, n = 0;
	uint64_t tmin = UINT64_MAX, tmax = 0;
	tk_tarmac_unit unit = TK_TARMAC_UNIT_NONE;
	int mixed_units = 0, quiet = ro->quiet, rc, k, have_time = 0;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	size_t i;

	if (open_log(&tr, in, ro->strict, quiet) < 0)
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
			/* (a stamp of 2^64 - 1 is a time: no sentinel) */
			have_time = 1;
		}
	}
	if (rc < 0) {
		cli_error(&err);
		tk_tarmac_close(tr);
		return EXIT_BAD;
	}
	if (json) {
		printf("{\n  \"file\": ");
		cli_json_str(stdout, path, strlen(path));
		printf(",\n  \"format\": \"tarmac\",\n  \"variant\": \"%s\",\n",
		       tk_tarmac_variant_name(tk_tarmac_variant_get(tr)));
		printf("  \"unit\": \"%s\",\n", mixed_units ? "mixed" : tk_tarmac_unit_name(unit));
		if (!have_time)
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
		printf("file:      ");
		cli_text_cstr(stdout, path);
		printf("\nformat:    tarmac (%s)\n",
		       tk_tarmac_variant_name(tk_tarmac_variant_get(tr)));
		if (!have_time)
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
		for (i = 0; i < tk_tarmac_cpu_count(tr); i++) {
			fputs(i ? " " : "", stdout);
			cli_text_cstr(stdout, tk_tarmac_cpu_name(tr, i));
		}
		printf("\n");
	}
	summary(tr, quiet);
	tk_tarmac_close(tr);
	return EXIT_OK;
}

/* ---- cat ------------------------------------------------------------------------ */

/* --start / --end of the record view: a time in the log's own unit (a
 * number beyond 2^64 - 1 is refused, not taken as the largest) */
static int parse_time(const char *cmd, const char *name, const char *s, uint64_t *out)
{
	char *e;

	if (!s)
		return 0;
	errno = 0;
	*out = strtoull(s, &e, 10);
	if (*s < '0' || *s > '9' || *e) {
		cli_usage_error(cmd, "bad %s '%s' (for an Arm Tarmac log: a time in the "
				"log's own unit, a whole number)", name, s);
		return -1;
	}
	if (errno == ERANGE) {
		cli_usage_error(cmd, "%s '%s' is beyond the largest time of an Arm Tarmac "
				"log (18446744073709551615)", name, s);
		return -1;
	}
	return 0;
}

/* n bytes at s equal lit, in any case */
static int span_eq_lit(const char *s, size_t n, const char *lit)
{
	tk_tarmac_span sp;

	sp.ptr = s;
	sp.len = n;
	return span_eq(&sp, lit);
}

/* The link register's names: lr, r14, r14_<mode>, LR_<mode>, X30, W30 */
static int is_lr(const char *n, size_t len)
{
	if (len == 3 && ((n[0] | 0x20) == 'x' || (n[0] | 0x20) == 'w'))
		return n[1] == '3' && n[2] == '0';
	if (len >= 2 && (n[0] | 0x20) == 'l' && (n[1] | 0x20) == 'r')
		return len == 2 || n[2] == '_';
	return len >= 3 && (n[0] | 0x20) == 'r' && n[1] == '1' && n[2] == '4' &&
	       (len == 3 || n[3] == '_');
}

/* The stack pointer's: sp, SP_<x> (SP_EL3, SP_SVC), r13, r13_<mode>, MSP,
 * PSP and their _S / _NS */
static int is_sp(const char *n, size_t len)
{
	if (len >= 2 && (n[0] | 0x20) == 's' && (n[1] | 0x20) == 'p')
		return len == 2 || n[2] == '_';
	if (len >= 3 && (n[0] | 0x20) == 'r' && n[1] == '1' && n[2] == '3')
		return len == 3 || n[3] == '_';
	return len >= 3 && ((n[0] | 0x20) == 'm' || (n[0] | 0x20) == 'p') &&
	       (n[1] | 0x20) == 's' && (n[2] | 0x20) == 'p' && (len == 3 || n[3] == '_');
}

/* A general register of AArch64 by number: xN / wN (N 0..30), or -1 */
static int a64_gpr(const char *n, size_t len)
{
	int v = 0;
	size_t i;

	if (len < 2 || len > 3 || ((n[0] | 0x20) != 'x' && (n[0] | 0x20) != 'w'))
		return -1;
	for (i = 1; i < len; i++) {
		if (n[i] < '0' || n[i] > '9')
			return -1;
		v = v * 10 + (n[i] - '0');
	}
	return v <= 30 ? v : -1;
}

/*
 * --register NAME against a register record's name: the same name in any
 * case, wN and xN one register (w1 finds the X1 lines), and the names of
 * the link register (lr, r14) and of the stack pointer (sp, r13) each
 * match every banked or aliased name of theirs (r14_svc, SP_EL3).  A
 * banked name asked for (r14_svc) matches itself only.
 */
int cli_tarmac_reg_match(const tk_tarmac_span *r, const char *want)
{
	size_t n = strlen(want);
	int g;

	if (span_eq(r, want))
		return 1;
	if ((g = a64_gpr(want, n)) >= 0)
		return a64_gpr(r->ptr, r->len) == g;
	if (span_eq_lit(want, n, "lr") || span_eq_lit(want, n, "r14"))
		return is_lr(r->ptr, r->len);
	if (span_eq_lit(want, n, "sp") || span_eq_lit(want, n, "r13"))
		return is_sp(r->ptr, r->len);
	return 0;
}

static int tarmac_cat(tk_input *in, const cli_tarmac_args *a, const char *start_s,
		      const char *end_s, const cli_read_opts *ro)
{
	const char *const *mnems = a->mnems, *const *regs = a->regs, *cpu = a->cpu;
	size_t nmnems = a->nmnems, nregs = a->nregs, i;
	uint64_t start = 0, end = UINT64_MAX;
	uint64_t pclo = a->pclo, pchi = a->pchi, alo = a->alo, ahi = a->ahi;
	int has_pc = a->has_pc, has_addr = a->has_addr, quiet = ro->quiet, rc;
	unsigned kinds = a->kinds;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	uint64_t printed = 0;     /* the line last printed (an LD/ST line with
				     gaps is a record per run) */
	int ret = EXIT_BAD;

	if (parse_time("cat", "--start", start_s, &start) < 0 ||
	    parse_time("cat", "--end", end_s, &end) < 0 ||
	    (start > end && (cli_usage_error("cat", "--start '%s' is after --end '%s'",
					     start_s, end_s), 1))) {
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (open_log(&tr, in, ro->strict, quiet) < 0)
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
		/* the access's bytes (1 when its size is not known) meet LO..HI */
		if (has_addr && ((rec.kind != TK_TARMAC_MEMORY && rec.kind != TK_TARMAC_BUS) ||
				 !rec.has_address || rec.address > ahi ||
				 (rec.address < alo &&
				  alo - rec.address >= (rec.size ? rec.size : 1))))
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
			for (i = 0; i < nregs && !cli_tarmac_reg_match(&rec.reg, regs[i]); i++)
				;
			if (i == nregs)
				continue;
		}
		if (cpu && (!rec.cpu || strcmp(tk_tarmac_cpu_name(tr, rec.cpu - 1), cpu) != 0))
			continue;
		if (rec.line == printed)
			continue;
		printed = rec.line;
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
	return ret;
}

static int view(const cli_view *v, int argc, char **argv, tk_input *in);
enum { O_FORMAT = CLI_O_SKIP + 1 };

static const struct option info_opts[] = {
	{ "format", required_argument, NULL, O_FORMAT },
	CLI_READ_LONGOPTS,
	CLI_END_LONGOPTS
};

const cli_view cli_view_tarmac_info = {
	"info", "tarmac", NULL, NULL, "Arm Tarmac logs",
	"\nFor an Arm Tarmac log (probed, or --from tarmac) info counts its records:\n"
	"the producer, the time span, the records per line kind and the CPUs\n"
	"(--trace and --input-option do not apply; docs/tarmac.md).\n",
	info_opts, view
};

static const struct option stats_opts[] = {
	{ "format", required_argument, NULL, O_FORMAT },
	CLI_READ_LONGOPTS,
	{ "top", required_argument, NULL, CLI_O_TOP },
	{ "elf", required_argument, NULL, CLI_O_ELF },
	{ "load-offset", required_argument, NULL, CLI_O_LOAD_OFFSET },
	CLI_END_LONGOPTS
};

const cli_view cli_view_tarmac_stats = {
	"stats", "tarmac", NULL, NULL, "Arm Tarmac logs",
	"\nFor an Arm Tarmac log (probed, or --from tarmac) stats gives instructions\n"
	"executed and skipped, the mix by mnemonic, the hottest addresses,\n"
	"exceptions (count, duration from entry to return, those still open at the\n"
	"end) and memory / bus traffic per 256 MB address region (--entity, --type,\n"
	"--unit, --trace and --input-option do not apply; docs/tarmac.md):\n"
	"  --format F          table (or text), json, or csv: the function table\n"
	"                      (with --elf) or the instruction mix\n"
	"  --top N             rows of the mix and of the hottest addresses (default 10)\n"
	"  --elf FILE          the program's ELF file: instructions and time per\n"
	"                      function, self and inclusive, and the call tree\n"
	"  --load-offset OFF   the ELF was loaded OFF bytes above its link addresses\n"
	"                      ([-]0xHEX or [-]DECIMAL)\n",
	stats_opts, view
};

static const struct option cat_opts[] = {
	{ "start", required_argument, NULL, CLI_O_START },
	{ "end", required_argument, NULL, CLI_O_END },
	CLI_READ_LONGOPTS,
	{ "pc", required_argument, NULL, CLI_O_PC },
	{ "mnemonic", required_argument, NULL, CLI_O_MNEMONIC },
	{ "register", required_argument, NULL, CLI_O_REGISTER },
	{ "addr", required_argument, NULL, CLI_O_ADDR },
	{ "kind", required_argument, NULL, CLI_O_KIND },
	{ "cpu", required_argument, NULL, CLI_O_CPU },
	CLI_END_LONGOPTS
};

const cli_view cli_view_tarmac_cat = {
	"cat", "tarmac", NULL, NULL, "Arm Tarmac logs",
	"\nFor an Arm Tarmac log (probed, or --from tarmac) cat prints the lines of\n"
	"the records that pass every filter (--entity, --type, --event, --no-header,\n"
	"--trace and --input-option do not apply; docs/tarmac.md):\n"
	"  --start T, --end T  time window, in the log's own unit (inclusive)\n"
	"  --pc LO[-HI]        instructions at these addresses (hex)\n"
	"  --mnemonic NAME     instructions with this mnemonic (any case; repeatable)\n"
	"  --register NAME     writes of this register (any case; w1 is x1, lr and r14\n"
	"                      match r14_svc, sp matches SP_EL3; repeatable)\n"
	"  --addr LO[-HI]      memory and bus accesses whose bytes meet this range (hex)\n"
	"  --kind KIND         instruction, register, event, memory, bus, branch,\n"
	"                      other (repeatable)\n"
	"  --cpu NAME          lines with this CPU prefix\n",
	cat_opts, view
};

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

	printf("  %*s", (int)(2 * x->depth), "");
	cli_text_cstr(stdout, node_name(p, tr, x));
	printf("%s  calls %" PRIu64 "  instr %" PRIu64 " (self %" PRIu64
	       ")  time %" PRIu64 " (self %" PRIu64 ")\n",
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
		const char *name = tk_tarmac_profile_symbol_name(p, tk_tarmac_profile_func(p, i)->symbol);
		size_t l = cli_text_width(name, strlen(name));
		if (l > w)
			w = l;
	}
	printf("\nfunctions (");
	cli_text_cstr(stdout, elf);
	printf("; instructions executed, time in %s; inclusive counts recursion once):\n",
	       *unit ? unit : "the log's unit");
	printf("  %-*s %8s %12s %12s %14s %14s\n", (int)w, "function", "calls",
	       "self instr", "instr", "self time", "time");
	for (i = 0; i < n; i++) {
		const tk_tarmac_func *f = tk_tarmac_profile_func(p, i);
		const char *name = tk_tarmac_profile_symbol_name(p, f->symbol);
		fputs("  ", stdout);
		cli_text_pad(stdout, name, strlen(name), w);
		printf(" %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
		       f->calls,
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
		cli_csv_cstr(stdout, name);
		printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n",
		       f->calls, f->self_instructions, f->instructions, f->self_time,
		       f->time, unit);
	}
}


/* Read the symbols of --elf (moved by --load-offset) and make a profile on
 * them; prints the error. */
static int load_elf(const char *elf, uint64_t offset, tk_symtab **syms,
		    tk_tarmac_profile **prof)
{
	tk_error err;

	tk_error_clear(&err);
	if (tk_symtab_open(syms, elf, &err) < 0 ||
	    tk_tarmac_profile_new(prof, *syms, &err) < 0) {
		cli_error(&err);
		return -1;
	}
	tk_symtab_shift(*syms, offset);
	return 0;
}

/* After finish: a warning (none with -q) when the log executed
 * instructions and the ELF's symbols hold none of them. */
static void elf_coverage(const tk_tarmac_profile *p, const char *elf,
			 const cli_read_opts *ro)
{
	size_t i, n = tk_tarmac_profile_func_count(p);

	if (ro->quiet || !tk_tarmac_profile_instructions(p))
		return;
	for (i = 0; i < n; i++)
		if (tk_tarmac_profile_func(p, i)->symbol >= 0)
			return;
	cli_msg("%s: warning: its symbols cover none of the %" PRIu64
		" executed instructions' addresses (another program, or loaded"
		" elsewhere: --load-offset)\n", elf, tk_tarmac_profile_instructions(p));
}

/* ---- stats ------------------------------------------------------------------------ */

static void mix_out(const tk_tarmac_stats *st, int json, size_t top)
{
	const tk_tarmac_mnemonic_count *m;
	uint64_t executed = tk_tarmac_stats_executed(st);
	size_t n = tk_tarmac_stats_mix(st, &m), i;

	printf(json ? "  \"mix\": [" : "\ninstruction mix (top %zu of %zu mnemonics):\n",
	       top, n);
	for (i = 0; i < n && i < top; i++) {
		if (json) {
			printf("%s{\"mnemonic\": ", i ? ", " : "");
			cli_json_cstr(stdout, m[i].mnemonic);
			printf(", \"count\": %" PRIu64 "}", m[i].count);
		} else {
			fputs("  ", stdout);
			cli_text_pad(stdout, m[i].mnemonic, strlen(m[i].mnemonic), 12);
			printf(" %12" PRIu64 "  %5.1f%%\n", m[i].count,
			       executed ? 100.0 * (double)m[i].count / (double)executed : 0.0);
		}
	}
}

static void hottest_out(const tk_tarmac_stats *st, int json, size_t top)
{
	const tk_tarmac_address_count *h;
	size_t n = tk_tarmac_stats_hottest(st, &h), i;

	printf(json ? "],\n  \"hottest\": [" : "\nhottest addresses (top %zu of %zu):\n", top, n);
	for (i = 0; i < n && i < top; i++) {
		if (json)
			printf("%s{\"address\": \"0x%" PRIx64 "\", \"count\": %" PRIu64 "}",
			       i ? ", " : "", h[i].address, h[i].count);
		else
			printf("  0x%08" PRIx64 "  %12" PRIu64 "\n", h[i].address, h[i].count);
	}
}

static void exceptions_out(const tk_tarmac_stats *st, int json, const char *unit)
{
	const tk_tarmac_exception_stat *x;
	size_t n = tk_tarmac_stats_exceptions(st, &x), i;

	printf(json ? "],\n  \"exceptions\": [" : "\nexceptions (duration from entry to return, in %s):\n",
	       unit);
	if (!json && !n)
		printf("  none\n");
	for (i = 0; i < n; i++) {
		char mn[24] = "-", mx[24] = "-";
		if (x[i].count) {
			snprintf(mn, sizeof(mn), "%" PRIu64, x[i].min);
			snprintf(mx, sizeof(mx), "%" PRIu64, x[i].max);
		}
		if (json) {
			printf("%s{\"name\": ", i ? ", " : "");
			cli_json_cstr(stdout, x[i].name);
			printf(", \"count\": %" PRIu64 ", \"total\": %" PRIu64
			       ", \"min\": %s, \"max\": %s, \"open\": %" PRIu64 "}",
			       x[i].count, x[i].total, x[i].count ? mn : "null",
			       x[i].count ? mx : "null", x[i].open);
		} else {
			fputs("  ", stdout);
			cli_text_pad(stdout, x[i].name, strlen(x[i].name), 24);
			printf(" count %8" PRIu64 "  total %12" PRIu64 "  min %10s"
			       "  max %10s", x[i].count, x[i].total, mn, mx);
			if (x[i].open)
				printf("  open at end %" PRIu64, x[i].open);
			putchar('\n');
		}
	}
}

static void traffic_out(const tk_tarmac_stats *st, int json)
{
	static const char *const dir[4] = { "memory read", "memory write",
					    "bus read", "bus write" };
	const tk_tarmac_traffic *t;
	size_t n = tk_tarmac_stats_traffic(st, &t), i;
	int d, first = 1;

	printf(json ? "],\n  \"traffic\": [" : "\nmemory and bus traffic by 256 MB region:\n");
	if (!json && !n)
		printf("  none\n");
	for (i = 0; i < n; i++)
		for (d = 0; d < 4; d++) {
			if (!t[i].count[d])
				continue;
			if (json)
				printf("%s{\"region\": \"0x%" PRIx64 "\", \"kind\": \"%s\", \"count\": %"
				       PRIu64 ", \"bytes\": %" PRIu64 "}",
				       first ? "" : ", ", t[i].base, dir[d],
				       t[i].count[d], t[i].bytes[d]);
			else
				printf("  0x%08" PRIx64 "-0x%08" PRIx64 "  %-12s %12" PRIu64
				       " accesses %14" PRIu64 " bytes\n",
				       t[i].base, t[i].base + 0xfffffff, dir[d],
				       t[i].count[d], t[i].bytes[d]);
			first = 0;
		}
	if (json)
		printf("]");
}

int cli_tarmac_stats(tk_input *in, const char *path, const cli_tarmac_args *a,
		     const char *outfmt, const cli_read_opts *ro)
{
	int json, csv, rc, ret = EXIT_BAD;
	tk_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	tk_tarmac_stats *st = NULL;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_tarmac_opts o;
	tk_error err;
	const char *unit;
	unsigned what;
	uint64_t nb;

	/* the command checked --format: text (or table), csv or json */
	json = strcmp(outfmt, "json") == 0;
	csv = strcmp(outfmt, "csv") == 0;
	/* CSV is one table: the functions with --elf, else the mix */
	what = !csv ? TK_TARMAC_STATS_ALL : a->elf ? 0 : TK_TARMAC_STATS_MIX;
	if (a->elf && load_elf(a->elf, a->load_offset, &syms, &prof) < 0) {
		tk_input_close(in);
		goto out;
	}
	if (open_log(&tr, in, ro->strict, ro->quiet) < 0)
		goto out;
	/* the exception events's warnings are not shown (the table lists
	 * what is open at the end) */
	tk_tarmac_opts_init(&o);
	o.strict = ro->strict;
	tk_error_clear(&err);
	if (tk_tarmac_stats_new(&st, tr, what, &o, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	/* one pass: the records feed the profile and the statistics */
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
		if ((prof && (rc = tk_tarmac_profile_record(prof, &rec, &err)) < 0) ||
		    (rc = tk_tarmac_stats_record(st, &rec, &err)) < 0)
			break;
	if (rc < 0 || (prof && tk_tarmac_profile_finish(prof, &err) < 0) ||
	    tk_tarmac_stats_finish(st, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	unit = tk_tarmac_unit_name(tk_tarmac_stats_unit(st));
	if (prof)
		elf_coverage(prof, a->elf, ro);
	if (prof && profile_stamps(prof, path, ro) < 0)
		goto out;
	nb = tk_tarmac_stats_backwards(st);
	if (nb && (!ro->quiet || ro->strict)) {
		cli_msg("%s: %s: %" PRIu64 " exception%s at a time stamp"
			" earlier than %s entry (duration 0)\n", cli_input_name(path),
			ro->strict ? "error" : "warning", nb,
			nb == 1 ? " returns" : "s return", nb == 1 ? "its" : "their");
		if (ro->strict)
			goto out;
	}
	if (csv && prof) {
		profile_csv(prof, unit);
	} else if (csv) {
		const tk_tarmac_mnemonic_count *m;
		size_t n = tk_tarmac_stats_mix(st, &m), i;
		printf("mnemonic,count\n");
		for (i = 0; i < n; i++) {
			cli_csv_cstr(stdout, m[i].mnemonic);
			printf(",%" PRIu64 "\n", m[i].count);
		}
	} else {
		if (json) {
			printf("{\n  \"file\": ");
			cli_json_str(stdout, path, strlen(path));
			printf(",\n  \"unit\": \"%s\",\n  \"instructions\": "
			       "{\"executed\": %" PRIu64 ", \"skipped\": %" PRIu64
			       ", \"faulted\": %" PRIu64 "},\n",
			       unit, tk_tarmac_stats_executed(st), tk_tarmac_stats_skipped(st),
			       tk_tarmac_stats_faulted(st));
		} else
			printf("instructions: %" PRIu64 " executed, %" PRIu64 " skipped, %" PRIu64
			       " faulted\n", tk_tarmac_stats_executed(st), tk_tarmac_stats_skipped(st),
			       tk_tarmac_stats_faulted(st));
		mix_out(st, json, a->top);
		hottest_out(st, json, a->top);
		exceptions_out(st, json, unit);
		traffic_out(st, json);
		if (prof)
			profile_out(prof, tr, json, a->elf, unit);
		if (json)
			printf("\n}\n");
	}
	summary(tr, ro->quiet);
	ret = EXIT_OK;
out:
	tk_tarmac_stats_free(st);
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_symtab_free(syms);
	return ret;
}

/* ---- folded stacks ------------------------------------------------------------ */

/* Weights of folded stacks. */
enum { WEIGHT_INSTRUCTIONS = 0, WEIGHT_TIME = 1 };

/* The stacks written so far: the path of the node being written. */
typedef struct folded_out {
	tk_tarmac_profile *p;
	tk_output *o;
	int weight;
	const char *const *cpus;
	size_t ncpus;
	char *path;
	size_t len, cap;
} folded_out;

static int path_add(folded_out *f, const char *s, tk_error *err)
{
	size_t n = strlen(s), i;

	if (cli_grow((void **)&f->path, &f->cap, f->len + n, 1) < 0) {
		if (err) {
			tk_error_clear(err);
			err->code = TK_E_NOMEM;
			snprintf(err->input, sizeof(err->input), "folded");
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		}
		return TK_E_NOMEM;
	}
	if (f->len)
		f->path[f->len++] = ';';
	/* ';' separates frames and ' ' the weight: neither may be in a name */
	for (i = 0; i < n; i++)
		f->path[f->len++] = (s[i] == ';' || s[i] == ' ' || s[i] == '\t' ||
				     s[i] == '\n' || s[i] == '\r') ? '_' : s[i];
	return TK_OK;
}

/* Node i and the nodes under it, children by name. */
static int fold_node(folded_out *f, uint32_t i, tk_error *err)
{
	const tk_tarmac_node *x = tk_tarmac_profile_node(f->p, i);
	const uint32_t *kids;
	size_t save = f->len, n, k;
	uint64_t w = f->weight == WEIGHT_TIME ? x->self_time : x->self_instructions;
	const char *name;
	int rc;

	if (x->symbol == -2)   /* the root of a CPU prefix */
		name = x->cpu && x->cpu - 1 < f->ncpus && f->cpus ? f->cpus[x->cpu - 1] : "cpu?";
	else
		name = tk_tarmac_profile_symbol_name(f->p, x->symbol);
	if ((rc = path_add(f, name, err)) < 0)
		return rc;
	if (w) {
		char num[24];
		int m = snprintf(num, sizeof(num), " %llu\n", (unsigned long long)w);
		if ((rc = tk_output_write(f->o, f->path, f->len, err)) < 0 ||
		    (rc = tk_output_write(f->o, num, (size_t)m, err)) < 0)
			return rc;
	}
	n = tk_tarmac_profile_children(f->p, i, 1, &kids);
	for (k = 0; k < n; k++)
		if ((rc = fold_node(f, kids[k], err)) < 0)
			return rc;
	f->len = save;
	return TK_OK;
}

/*
 * The folded stacks of a finished profile ("main;foo;bar 123\n", one line
 * per distinct stack with a non-zero weight, in name order) on `path`
 * ("-": standard output), the file appearing only when complete.  A stack
 * of a CPU prefix starts with the CPU's name (cpus[cpu - 1]).
 */
static int write_folded(tk_tarmac_profile *p, const char *path, int weight,
			const char *const *cpus, size_t ncpus, tk_error *err)
{
	folded_out f;
	const uint32_t *roots;
	size_t n, k;
	int rc;

	memset(&f, 0, sizeof(f));
	f.p = p;
	f.weight = weight;
	f.cpus = cpus;
	f.ncpus = ncpus;
	if ((rc = tk_output_open(&f.o, path, err)) < 0)
		return rc;
	n = tk_tarmac_profile_children(p, SIZE_MAX, 1, &roots);
	for (k = 0; k < n; k++)
		if ((rc = fold_node(&f, roots[k], err)) < 0)
			goto fail;
	free(f.path);
	return tk_output_close(f.o, err);
fail:
	free(f.path);
	tk_output_abort(f.o);
	return rc;
}

/* The folded stacks of the Tarmac log `in` on `out`. */
static int folded(tk_input *in, const char *path, const char *out,
		  const cli_tarmac_args *a, const cli_read_opts *ro)
{
	const char **cpus = NULL;
	int weight, rc, ret = EXIT_BAD;
	tk_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_error err;
	size_t i;

	/* cli_tarmac_opt() took instructions or time */
	weight = strcmp(a->weight, "time") == 0 ? WEIGHT_TIME : WEIGHT_INSTRUCTIONS;
	if (load_elf(a->elf, a->load_offset, &syms, &prof) < 0) {
		tk_input_close(in);
		goto out;
	}
	if (open_log(&tr, in, ro->strict, ro->quiet) < 0)
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
		cli_msg("tracekit: error: out of memory\n");
		goto out;
	}
	for (i = 0; i < tk_tarmac_cpu_count(tr); i++)
		cpus[i] = tk_tarmac_cpu_name(tr, i);
	if (tk_tarmac_profile_finish(prof, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	elf_coverage(prof, a->elf, ro);
	if (weight == WEIGHT_TIME && profile_stamps(prof, path, ro) < 0)
		goto out;
	if (write_folded(prof, out, weight, cpus, tk_tarmac_cpu_count(tr), &err) < 0) {
		cli_error(&err);
		goto out;
	}
	summary(tr, ro->quiet);
	ret = EXIT_OK;
out:
	free(cpus);
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_symtab_free(syms);
	return ret;
}

int cli_tarmac_folded(const char *cmd, const char *path, const char *out,
		      const cli_tarmac_args *a, const char *ev_only,
		      const cli_read_opts *ro)
{
	tk_input *in = NULL;

	if (!a->elf) {
		cli_usage_error(cmd, "folded stacks need the program's symbols: --elf FILE");
		return EXIT_BAD;
	}
	if (cli_tarmac_refuse(cmd, ev_only, ro, path) < 0)
		return EXIT_BAD;
	/* OUT over the program (`convert LOG X.folded --elf X.folded` too) */
	if (cli_out_is_file(a->elf, "ELF file (--elf)", out))
		return EXIT_BAD;
	/* IN opened once: its probe (or --from) tells a Tarmac log */
	if (cli_input(&in, path, ro) < 0)
		return EXIT_BAD;
	if (!cli_input_is_tarmac(in)) {
		cli_msg("tracekit: error: %s: folded stacks are made from an Arm Tarmac log "
			"(this input is not one%s)\n", path,
			ro->from ? "" : "; --from tarmac forces it");
		tk_input_close(in);
		return EXIT_BAD;
	}
	return folded(in, path, out, a, ro);
}

/* ---- calls ------------------------------------------------------------------ */

static void site_out(const char *what, const tk_tarmac_site *s)
{
	printf("  %s t:%" PRIu64 " l:%" PRIu64 " pc:0x%" PRIx64, what, s->time,
	       s->line, s->pc);
}

int cli_tarmac_calls(const char *path, const cli_tarmac_args *a,
		     const char *function, const cli_read_opts *ro)
{
	static const char *const kinds[] = { "call", "tail call", "exception", "root" };
	tk_symtab *syms = NULL;
	tk_tarmac_profile *prof = NULL;
	const tk_tarmac_call *calls;
	tk_tarmac_record rec;
	tk_tarmac *tr = NULL;
	tk_input *in = NULL;
	tk_error err;
	size_t i, n;
	int rc, ret = EXIT_BAD;

	if (!a->elf) {
		cli_usage_error("tarmac", "calls need the program's symbols: --elf FILE");
		return EXIT_BAD;
	}
	if (cli_tarmac_refuse("tarmac", NULL, ro, path) < 0 || cli_input(&in, path, ro) < 0)
		return EXIT_BAD;
	if (!cli_input_is_tarmac(in)) {
		cli_msg("tracekit: error: %s: calls are read from an Arm Tarmac log "
			"(this input is not one%s)\n", path,
			ro->from ? "" : "; --from tarmac forces it");
		tk_input_close(in);
		return EXIT_BAD;
	}
	if (load_elf(a->elf, a->load_offset, &syms, &prof) < 0) {
		tk_input_close(in);
		goto out;
	}
	/* a name no symbol has (a typo) would list nothing, exit 0 */
	if (function && function[0] != '[') {
		size_t k, nsym = tk_symtab_count(syms);
		for (k = 0; k < nsym && strcmp(tk_symtab_get(syms, k)->name, function) != 0; k++)
			;
		if (k == nsym) {
			cli_msg("%s: error: no function '%s' (--function) among its symbols\n",
				a->elf, function);
			tk_input_close(in);
			goto out;
		}
	}
	tk_tarmac_profile_log_calls(prof);
	if (open_log(&tr, in, ro->strict, ro->quiet) < 0)
		goto out;
	tk_error_clear(&err);
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
		if ((rc = tk_tarmac_profile_record(prof, &rec, &err)) < 0)
			break;
	if (rc < 0 || tk_tarmac_profile_finish(prof, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	elf_coverage(prof, a->elf, ro);
	n = tk_tarmac_profile_calls(prof, &calls);
	for (i = 0; i < n; i++) {
		const tk_tarmac_call *x = &calls[i];
		const char *name = tk_tarmac_profile_symbol_name(prof, x->symbol);
		if (function && strcmp(function, name) != 0)
			continue;
		if (x->cpu) {
			cli_text_cstr(stdout, tk_tarmac_cpu_name(tr, x->cpu - 1));
			fputs(": ", stdout);
		}
		printf("%*s", function ? 0 : (int)(2 * (x->depth < 64 ? x->depth : 64)), "");
		cli_text_cstr(stdout, name);
		printf("  (%s, depth %" PRIu32 ")", kinds[x->kind & 3], x->depth);
		if (x->has_site)
			site_out("from", &x->site);
		site_out("entry", &x->entry);
		site_out(x->returned ? "exit" : "last", &x->ret);
		if (x->has_back)
			site_out("back", &x->back);
		else if (x->returned)
			printf("  (went on in a tail call)");
		else
			printf("  (open at the end)");
		putchar('\n');
	}
	summary(tr, ro->quiet);
	ret = EXIT_OK;
out:
	tk_tarmac_close(tr);
	tk_tarmac_profile_free(prof);
	tk_symtab_free(syms);
	return ret;
}

static const struct option folded_opts[] = {
	CLI_READ_LONGOPTS,
	{ "to", required_argument, NULL, CLI_O_SKIP },
	{ "elf", required_argument, NULL, CLI_O_ELF },
	{ "weight", required_argument, NULL, CLI_O_WEIGHT },
	CLI_END_LONGOPTS
};

/*
 * The views (cli.h): info, stats and cat of a Tarmac log (`in`: the lines
 * of the records that pass cat's filters) and convert --to folded or
 * OUT.folded (for one more release): argv parsed again, the command's
 * options these do not take refused.
 */
static int view(const cli_view *v, int argc, char **argv, tk_input *in)
{
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args a = { { NULL }, 0 };
	cli_tarmac_args ta;
	const char *start = NULL, *end = NULL, *fmt = "table", *name;
	int c, bad = 0, ret = EXIT_BAD;

	cli_tarmac_args_init(&ta);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", v->longopts, &a)) != -1) {
		switch (c) {
		case CLI_O_FROM: case CLI_O_STRICT: case CLI_O_TRACE:
		case CLI_O_INPUT_OPTION: case CLI_O_FORCE_FORMAT:
			bad |= cli_read_opt(&ro, argv[0], c, optarg) < 0;
			break;
		CLI_TARMAC_CASES:
			bad |= cli_tarmac_opt(&ta, argv[0], c, optarg) < 0;
			break;
		case CLI_O_START: start = optarg; break;
		case CLI_O_END: end = optarg; break;
		case O_FORMAT: fmt = optarg; break;
		case 'q': ro.quiet = 1; break;
		default: break;  /* --threads, --to (the command's), CLI_O_VIEW */
		}
	}
	name = cli_input_name(a.v[0]);
	if (in && *v->cmd == 's' && strcmp(fmt, "table") && strcmp(fmt, "text") &&
	    strcmp(fmt, "csv") && strcmp(fmt, "json")) {
		cli_usage_error("stats", "unknown --format '%s' (table, csv or json)", fmt);
		bad = 1;
	}
	if (in && (bad || cli_tarmac_refuse(v->cmd, cli_getopt_other(), &ro, name) < 0))
		tk_input_close(in);
	else if (in && *v->cmd == 'c')
		ret = tarmac_cat(in, &ta, start, end, &ro);
	else if (in && *v->cmd == 'i')
		ret = cli_tarmac_info(in, name, strcmp(fmt, "json") == 0, &ro);
	else if (in)
		ret = cli_tarmac_stats(in, name, &ta, fmt, &ro);
	else if (!bad) {
		if (!ro.quiet)
			cli_msg("tracekit convert: note: --to folded is deprecated: "
				"use 'tracekit tarmac folded IN --elf FILE -o OUT'\n");
		ret = cli_tarmac_folded("convert", a.v[0], a.v[1], &ta, cli_getopt_other(), &ro);
	}
	cli_tarmac_args_free(&ta);
	return ret;
}

const cli_view cli_view_tarmac_folded = {
	"convert", NULL, "folded", "folded", "folded stacks (--to folded or OUT.folded)",
	"An Arm Tarmac log converts to folded stacks for flame graphs with\n"
	"--to folded (or OUT.folded); the filters, --option, --trace and\n"
	"--input-option do not apply to them (docs/tarmac.md):\n"
	"  --elf FILE          the program's ELF file (required for folded stacks)\n"
	"  --weight instructions|time\n"
	"                      what a stack's number counts (default instructions)\n"
	"(--to folded is deprecated: 'tracekit tarmac folded IN --elf FILE -o OUT'\n"
	"makes them)\n",
	folded_opts, view
};
