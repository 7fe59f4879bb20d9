/*
 * test_tarmac.c - the Tarmac record API on the spec's examples and one line
 * of each other variant: every field a line carries; the values and
 * addresses of the fast paths, the stamp prefix shared by the lines of one
 * time step, the exception events fed with records, and the record
 * statistics (tk_tarmac_stats_*); and what the index's span summaries
 * say of a memory range (tk_tarmac_index_mem()).
 */
#define _POSIX_C_SOURCE 200809L
#include "tracekit/tracekit.h"
#include "../unit/tk_test.h"

#include <stdlib.h>
#include <unistd.h>

static tk_tarmac_record rec;

/* Read the first record of `text` (strict). */
static int one(const char *text)
{
	tk_tarmac_opts o;
	tk_tarmac *tr;
	tk_error err;
	int rc;

	tk_tarmac_opts_init(&o);
	o.strict = 1;
	if (tk_tarmac_open_mem(&tr, text, strlen(text), "t", &o, &err) < 0)
		return -100;
	rc = tk_tarmac_next(tr, &rec, &err);
	if (rc < 0)
		fprintf(stderr, "  (%s: %s)\n", text, err.msg);
	tk_tarmac_close(tr);
	return rc;
}

static int span(const tk_tarmac_span *s, const char *lit)
{
	return s->len == strlen(lit) && memcmp(s->ptr, lit, s->len) == 0;
}

static void spec_examples(void)
{
	CHECK(one("315760 ns IT (000007e8:0000247c) 000007e8 2900 T16 CMP r1,#0\n") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_INSTRUCTION && rec.time == 315760 &&
	      rec.unit == TK_TARMAC_UNIT_NS && rec.address == 0x7e8 &&
	      rec.opcode == 0x2900 && rec.opcode_bits == 16 && rec.iset == 'T' &&
	      rec.executed && rec.count == 0x247c);
	CHECK(span(&rec.mnemonic, "CMP") && span(&rec.disasm, "CMP r1,#0"));
	CHECK(one("12 ns R r9 0000000a") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_REGISTER && span(&rec.reg, "r9") &&
	      rec.value_known && rec.reg_value == 10);
	CHECK(one("5000 ns E HardFault\n") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_EVENT && span(&rec.name, "HardFault"));
	CHECK(one("140 ns BNR4O__I 00000838 f0018800\n") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_BUS && rec.seq == 'N' && !rec.write &&
	      rec.size == 4 && rec.opcode_fetch && rec.port == 'I' &&
	      rec.address == 0x838 && rec.data_known && rec.data_value == 0xf0018800);
	CHECK(one("830 ns MNW1___D 00400000 74\n") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_MEMORY && rec.write && rec.size == 1 &&
	      rec.port == 'D' && rec.data_value == 0x74);
	CHECK(one("  315760   ns   IS   (000007e8:0000247c)  000007e8  2900  T16  CMP r1,#0\n") == TK_OK);
	CHECK(!rec.executed && rec.status == 'S');
}

static void variants(void)
{
	CHECK(one("12 clk IS (12) 0000802c 1afb T svc_s : SUBNE    r3,r7,r3") == TK_OK);
	CHECK(!rec.executed && rec.count == 12 && rec.unit == TK_TARMAC_UNIT_CLK &&
	      span(&rec.mode, "svc_s") && span(&rec.mnemonic, "SUBNE"));
	CHECK(one("1500 clk cpu0 IT (4) 002109bc a9be7bfd O EL3h_s : STP        ") == TK_OK);
	CHECK(rec.cpu == 1 && rec.iset == 'O' && rec.opcode_bits == 32 &&
	      span(&rec.disasm, "STP"));
	CHECK(one("    6000000 cs IT (00000000004d6eb8) 54fffea1 O  ---_- :        b.ne\t0x4d6e8c") == TK_OK);
	CHECK(rec.address == 0x4d6eb8 && rec.opcode == 0x54fffea1 && span(&rec.mnemonic, "b.ne"));
	CHECK(one("     800000 ns  ES  (000001a4:03a06a01) A svc:     CCFAIL MOVEQ    r6,#0x1000") == TK_OK);
	CHECK(!rec.executed && span(&rec.mnemonic, "MOVEQ") && span(&rec.mode, "svc"));
	CHECK(one("      15000 ps  ES  EXC [1] Reset") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_EVENT && rec.exception_number == 1 && span(&rec.name, "Reset"));
	CHECK(one("                    LD 000000007ff80fe0 ........ ........ ........ ......11    S:007ff80fe0    nGnRnE OSH") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_MEMORY && !rec.own_time && rec.size == 1 &&
	      rec.data_known && rec.data_value == 0x11 && span(&rec.phys, "S:007ff80fe0"));
	/* the address and size of the bytes accessed (they were the lanes'
	 * base and the count of bytes) */
	CHECK(rec.address == 0x7ff80fe0);
	CHECK(one("                    LD 00010120 ........ 3a...... ........ ........    S:0000010120    nGnRnE OSH") == TK_OK);
	CHECK(rec.address == 0x1012b && rec.size == 1 && rec.data_value == 0x3a);
	CHECK(one("                    ST 000ffba0 0001012b ........ ........ ........    S:00000ffba0    nGnRnE OSH") == TK_OK);
	CHECK(rec.address == 0xffbac && rec.size == 4 && rec.data_known && rec.data_value == 0x1012b);
	CHECK(one("                    ST 000ffff0 0002015c 00000000 00000000 00000000    S:00000ffff0    nGnRnE OSH") == TK_OK);
	CHECK(rec.address == 0xffff0 && rec.size == 16 && !rec.data_known);
	CHECK(one("                    ST 000ffff0 ....015c ........ ......00 ........    S:00000ffff0    nGnRnE OSH") == TK_OK);
	CHECK(rec.address == 0xffffc && rec.size == 2 && rec.data_known &&
	      rec.data_value == 0x015c && span(&rec.data, "015c"));
	/* Cortex-M4 RTL data-bus lines give the bytes in memory order (the
	 * value was read as written) */
	CHECK(one("      3039 cyc MNW4___D 2002fa00 efbeefbe") == TK_OK);
	CHECK(rec.write && rec.size == 4 && rec.port == 'D' && rec.data_value == 0xbeefbeef);
	CHECK(one("      3040 cyc MNR4___D 20001ff8 f9ffffff") == TK_OK);
	CHECK(rec.data_value == 0xfffffff9);
	CHECK(one("      3040 cyc MNR2___D 20001ff8 3412") == TK_OK);
	CHECK(rec.data_value == 0x1234);
	CHECK(one("      3037 cyc MNR4O__I 00022ae4 f7ffffcb") == TK_OK);
	CHECK(rec.data_value == 0xf7ffffcb);
	CHECK(one("                    BR (00000080) A") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_BRANCH && rec.address == 0x80 && rec.iset == 'A');
	CHECK(one("0 clk R X30 0000000000008004") == TK_OK);
	CHECK(rec.value_known && rec.reg_value == 0x8004);
	CHECK(one("608 clk R Q0 93c467e3 7db0c7a4 d1be3f81 0152cb56") == TK_OK);
	CHECK(!rec.value_known && span(&rec.value, "93c467e3 7db0c7a4 d1be3f81 0152cb56"));
	CHECK(one("6000017 cs R cpsr 20000000 __C_") == TK_OK);
	CHECK(rec.reg_value == 0x20000000 && span(&rec.qualifier, "__C_"));
	CHECK(one("271ns R r13 20001fff (MSP)") == TK_OK);
	CHECK(rec.time == 271 && span(&rec.qualifier, "(MSP)"));
	CHECK(one("         10.356000us R CONTROL 00000000") == TK_OK);
	CHECK(rec.time == 10356000 && rec.unit == TK_TARMAC_UNIT_PS);
	CHECK(one("28491 clk MR4 dfdfdfcf (ABORTED)") == TK_OK);
	CHECK(rec.aborted && rec.address == 0xdfdfdfcf);
	CHECK(one("1 clk MR8 0000c7c8:00000000c7c8 00000000_0000ca68") == TK_OK);
	CHECK(rec.size == 8 && rec.data_value == 0xca68 && span(&rec.phys, "00000000c7c8"));
	CHECK(one("0 clk cpu0 E 00000000:000000000000 00000001 CoreEvent_Reset") == TK_OK);
	CHECK(span(&rec.name, "CoreEvent_Reset") && rec.has_address);
	CHECK(one("       1234 ns E INT_TAKEN 0f") == TK_OK);
	CHECK(rec.exception_number == 15);
	CHECK(one("       1234 ns IT 00000350 490d        LDR      r1,[pc,#52]  ; [0x388]") == TK_OK);
	CHECK(rec.address == 0x350 && rec.iset == 0 && span(&rec.mnemonic, "LDR"));
	CHECK(one("1359353 ns MCW4___R (01000250:000000bb) TRANSFER 00000000") == TK_OK);
	CHECK(rec.kind == TK_TARMAC_MEMORY && !rec.has_address);
	CHECK(one("Tarmac Text Rev 3t\n") == TK_OK && rec.kind == TK_TARMAC_OTHER);
	CHECK(one("# a comment\n\n   \n") == TK_END);
}

static void errors(void)
{
	tk_tarmac_opts o;
	tk_tarmac *tr;
	tk_error err;
	const char *text = "10 ns R r0 00000001\n20 ns QQ 1\n30 ns R r1 2\n";
	int n = 0;

	CHECK(one("10 ns QQ 1") == TK_E_PARSE);
	CHECK(one("10 furlongs R r0 1") == TK_E_PARSE);
	CHECK(one("10 ns IT (zz) 1 2 T16 X") == TK_E_PARSE);
	CHECK(one("10 ns R r0") == TK_E_PARSE);
	CHECK(one("10 ns MNW4___D 00400000") == TK_E_PARSE);
	CHECK(one("99999999999999999999999 ns R r0 1") == TK_E_PARSE);
	tk_tarmac_opts_init(&o);
	o.strict = 1;
	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "x.log", &o, &err) == TK_OK);
	CHECK(tk_tarmac_next(tr, &rec, &err) == TK_OK);
	CHECK(tk_tarmac_next(tr, &rec, &err) == TK_E_PARSE);
	CHECK(err.line == 2 && err.column == 7 && strcmp(err.input, "x.log") == 0);
	tk_tarmac_close(tr);
	o.strict = 0;
	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "x.log", &o, &err) == TK_OK);
	while (tk_tarmac_next(tr, &rec, &err) == TK_OK)
		n++;
	CHECK(n == 2 && tk_tarmac_skipped_count(tr) == 1 && tk_tarmac_warning_count(tr) == 1);
	tk_tarmac_close(tr);
}

/* Hex values and addresses: 8 and 16 digits (read 8 at a time), others. */
static void values(void)
{
	CHECK(one("0 clk R X0 0123456789ABCDEF") == TK_OK);
	CHECK(rec.value_known && rec.reg_value == 0x0123456789abcdefull);
	CHECK(one("0 clk R X0 fedcba9876543210") == TK_OK);
	CHECK(rec.value_known && rec.reg_value == 0xfedcba9876543210ull);
	CHECK(one("0 ns R r0 DEADbeef") == TK_OK);
	CHECK(rec.value_known && rec.reg_value == 0xdeadbeef);
	CHECK(one("0 ns R r0 0000_0001") == TK_OK);
	CHECK(rec.value_known && rec.reg_value == 1);
	CHECK(one("0 ns R r0 01234567xxxxxxxx") == TK_OK);
	CHECK(!rec.value_known && span(&rec.value, "01234567xxxxxxxx"));
	CHECK(one("0 ns R r0 0123456-") == TK_OK);
	CHECK(!rec.value_known);
	CHECK(one("0 ns R r0 01234567:89abcdef") == TK_OK);
	CHECK(!rec.value_known && rec.reg_value == 0);
	CHECK(one("0 ns R r0 00000000000000001") == TK_OK);   /* 17 digits */
	CHECK(!rec.value_known);
	CHECK(one("0 ns R r0 0x1/") == TK_E_PARSE);
	CHECK(one("0 clk MR4 00001000:00001000 1234abcd") == TK_OK);
	CHECK(rec.address == 0x1000 && rec.data_known && rec.data_value == 0x1234abcd &&
	      span(&rec.phys, "00001000"));
	CHECK(one("0 clk MR8 0000000100001000 0") == TK_OK);
	CHECK(rec.address == 0x100001000ull && rec.data_known && rec.data_value == 0);
	CHECK(one("0 clk MR8 123456789abcdef01 0") == TK_E_PARSE); /* 17 digits */
	CHECK(one("0 clk MR4 0000100g 1") == TK_E_PARSE);
	CHECK(one("0 clk MR4 0000100F 1") == TK_OK && rec.address == 0x100f);
	CHECK(one("0 clk IT (1) 0000ABCD d503201F O EL1h_s : NOP") == TK_OK);
	CHECK(rec.address == 0xabcd && rec.opcode == 0xd503201f);
	CHECK(one("0 clk IT (1) 0000ABCD d503201@ O EL1h_s : NOP") == TK_E_PARSE);
}

/*
 * The lines of one time step share their stamp and CPU prefix: each line
 * must still give its own CPU and time.
 */
static void prefixes(void)
{
	static const char text[] =
		"250 clk cpu0 IT (1) 00001000 d503201f O EL1h_s : NOP\n"
		"250 clk cpu0 R X0 0000000000000001\n"
		"250 clk cpu1 R X1 2\n"
		"250 clk R X2 3\n"
		"250 clk cpu1 R X3 4\n"
		"250 clk cpu1 R X4 5\n"
		"2500 clk cpu1 R X5 6\n"
		"  250 clk cpu0 R X6 7\n"
		"  250 clk cpu0\n"
		"  250 clk cpu0x R X7 8\n"
		"250 ns cpu0 R X8 9\n"
		"250clk cpu0 R X9 a\n"
		"250 clk\tcpu0 R X10 b\n";
	static const struct { uint32_t cpu; uint64_t time; int unit; uint64_t line; } want[] = {
		{ 1, 250, TK_TARMAC_UNIT_CLK, 1 }, { 1, 250, TK_TARMAC_UNIT_CLK, 2 },
		{ 2, 250, TK_TARMAC_UNIT_CLK, 3 }, { 0, 250, TK_TARMAC_UNIT_CLK, 4 },
		{ 2, 250, TK_TARMAC_UNIT_CLK, 5 }, { 2, 250, TK_TARMAC_UNIT_CLK, 6 },
		{ 2, 2500, TK_TARMAC_UNIT_CLK, 7 }, { 1, 250, TK_TARMAC_UNIT_CLK, 8 },
		{ 1, 250, TK_TARMAC_UNIT_NS, 11 }, { 1, 250, TK_TARMAC_UNIT_CLK, 12 },
		{ 1, 250, TK_TARMAC_UNIT_CLK, 13 },
	};
	tk_tarmac_opts o;
	tk_tarmac *tr;
	tk_error err;
	size_t n = 0;
	int ok = 1;

	tk_tarmac_opts_init(&o);
	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "p", &o, &err) == TK_OK);
	while (tk_tarmac_next(tr, &rec, &err) == TK_OK) {
		if (n < sizeof(want) / sizeof(want[0]) &&
		    (rec.cpu != want[n].cpu || rec.time != want[n].time ||
		     (int)rec.unit != want[n].unit || rec.line != want[n].line ||
		     !rec.own_time || rec.kind == TK_TARMAC_OTHER)) {
			fprintf(stderr, "  record %zu: line %llu cpu %u time %llu\n", n,
				(unsigned long long)rec.line, rec.cpu,
				(unsigned long long)rec.time);
			ok = 0;
		}
		n++;
	}
	CHECK(ok && n == sizeof(want) / sizeof(want[0]));
	/* the lines "  250 clk cpu0" (no record) and "cpu0x" (no CPU) */
	CHECK(tk_tarmac_skipped_count(tr) == 2 && tk_tarmac_cpu_count(tr) == 2);
	tk_tarmac_close(tr);
}

static int nwarn;
static char lastwarn[400];

static void on_warn(void *ctx, const tk_error *w)
{
	(void)ctx;
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", w->msg);
}

/* The exception events fed with the records of a Cortex-M log. */
static void timeline(void)
{
	static const char text[] =
		"0 ns E Reset\n"
		"10 ns IT (00000800:00000001) 00000800 2900 T16 CMP r1,#0\n"
		"20 ns E SysTick\n"
		"20 ns R psr 6100000f\n"
		"30 ns R lr fffffff9\n"
		"40 ns IT (00001000:00000002) 00001000 4770 T16 BX lr\n"
		"50 ns IT (00000802:00000003) 00000802 2900 T16 CMP r1,#0\n"
		"60 ns E SVCall\n";
	static const struct { tk_evkind kind; const char *name; uint64_t time; } want[] = {
		{ TK_EV_ACTIVATE, "Reset", 0 }, { TK_EV_START, "Reset", 0 },
		{ TK_EV_TERMINATE, "Reset", 0 },
		{ TK_EV_ACTIVATE, "SysTick", 20 }, { TK_EV_START, "SysTick", 20 },
		{ TK_EV_TERMINATE, "SysTick", 40 },
		{ TK_EV_ACTIVATE, "SVCall", 60 }, { TK_EV_START, "SVCall", 60 },
	};
	tk_tarmac_opts o;
	tk_tarmac *tr;
	tk_tarmac_exceptions *tl = NULL;
	const tk_event *ev;
	const tk_trace *t;
	tk_error err;
	size_t n = 0;
	int ok = 1, rc;

	tk_tarmac_opts_init(&o);
	o.strict = 1;
	o.on_warning = on_warn;
	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "tl", &o, &err) == TK_OK);
	CHECK(tk_tarmac_exceptions_new(&tl, tr, &o, &err) == TK_OK);
	if (!tl) {
		tk_tarmac_close(tr);
		return;
	}
	t = tk_tarmac_exceptions_trace(tl);
	while (tk_tarmac_next(tr, &rec, &err) == TK_OK) {
		rc = tk_tarmac_exceptions_record(tl, &rec, &err);
		CHECK(rc >= 0);
		if (rc > 0)
			CHECK(tk_tarmac_exceptions_next(tl, &ev) == TK_OK && rc > 0);
		else
			CHECK(tk_tarmac_exceptions_next(tl, &ev) == TK_END);
		while (rc > 0) {
			const tk_entity *e = tk_trace_entity(t, ev->target);
			const tk_entity *core = tk_trace_entity(t, ev->core);
			const char *name = e ? tk_trace_str(t, e->name, NULL) : "?";
			if (n >= sizeof(want) / sizeof(want[0]) || ev->kind != want[n].kind ||
			    strcmp(name, want[n].name) != 0 || ev->time != want[n].time ||
			    !core || strcmp(tk_trace_str(t, core->name, NULL), "Core_0") != 0) {
				fprintf(stderr, "  event %zu: %s %s at %llu\n", n,
					tk_evkind_name(ev->kind), name,
					(unsigned long long)ev->time);
				ok = 0;
			}
			n++;
			if (tk_tarmac_exceptions_next(tl, &ev) != TK_OK)
				break;
		}
	}
	CHECK(ok && n == sizeof(want) / sizeof(want[0]));
	CHECK(strcmp(tk_trace_header_get(t, "tarmacTimeUnit"), "ns") == 0);
	CHECK(tk_trace_timebase(t)->unit == TK_UNIT_NS);
	CHECK(nwarn == 0);
	tk_tarmac_exceptions_finish(tl);
	CHECK(tk_tarmac_exceptions_next(tl, &ev) == TK_END);
	CHECK(nwarn == 1 && tk_tarmac_exceptions_warning_count(tl) == 1 &&
	      strstr(lastwarn, "1 exception still active") != NULL);
	tk_tarmac_exceptions_free(tl);
	tk_tarmac_close(tr);
}

/* The record statistics of a Cortex-M log, every figure counted by hand. */
static void stats(void)
{
	static const char text[] =
		"0 ns E Reset\n"
		"10 ns IT (00000800:00000001) 00000800 2900 T16 CMP r1,#0\n"
		"12 ns IT (00000802:00000002) 00000802 2900 T16 cmp r1,#0\n"
		"14 ns IS (00000804:00000003) 00000804 d000 T16 BEQ 0x808\n"
		"16 ns IT (00000800:00000004) 00000800 2900 T16 CMP r1,#0\n"
		"18 ns IT (00000806:00000005) 00000806 4770 T16 MOV r0,r1\n"
		"20 ns E SysTick\n"
		"20 ns R psr 6100000f\n"
		"30 ns R lr fffffff9\n"
		"35 ns MNW4___D 20000010 00000001\n"
		"36 ns MNR1___D 20000014 01\n"
		"37 ns MNW4___D 40001000 00000002\n"
		"38 ns BNR4O__I 00000838 f0018800\n"
		"40 ns IT (00001000:00000006) 00001000 4770 T16 BX lr\n"
		"50 ns IT (00000808:00000007) 00000808 2900 T16 CMP r1,#0\n"
		"60 ns E SysTick\n"
		"61 ns R psr 6100000f\n"
		"62 ns R lr fffffff9\n"
		"65 ns IT (00001000:00000008) 00001000 4770 T16 BX lr\n"
		"70 ns E SVCall\n";
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_stats *st = NULL;
	const tk_tarmac_mnemonic_count *mix;
	const tk_tarmac_address_count *hot;
	const tk_tarmac_exception_stat *exc;
	const tk_tarmac_traffic *tf;
	tk_error err;
	size_t n;
	int rc;

	tk_tarmac_opts_init(&o);
	o.strict = 1;
	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "st", &o, &err) == TK_OK);
	CHECK(tk_tarmac_stats_new(&st, tr, TK_TARMAC_STATS_ALL, &o, &err) == TK_OK);
	if (!st) {
		tk_tarmac_close(tr);
		return;
	}
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
		CHECK(tk_tarmac_stats_record(st, &rec, &err) == TK_OK);
	CHECK(rc == TK_END);
	CHECK(tk_tarmac_stats_finish(st, &err) == TK_OK);
	CHECK(tk_tarmac_stats_executed(st) == 7 && tk_tarmac_stats_skipped(st) == 1);
	CHECK(tk_tarmac_stats_unit(st) == TK_TARMAC_UNIT_NS);
	/* mnemonics in upper case, by count, then name */
	n = tk_tarmac_stats_mix(st, &mix);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(strcmp(mix[0].mnemonic, "CMP") == 0 && mix[0].count == 4);
		CHECK(strcmp(mix[1].mnemonic, "BX") == 0 && mix[1].count == 2);
		CHECK(strcmp(mix[2].mnemonic, "MOV") == 0 && mix[2].count == 1);
	}
	/* executed instructions per PC, by count, then address */
	n = tk_tarmac_stats_hottest(st, &hot);
	CHECK(n == 5);
	if (n == 5) {
		CHECK(hot[0].address == 0x800 && hot[0].count == 2);
		CHECK(hot[1].address == 0x1000 && hot[1].count == 2);
		CHECK(hot[2].address == 0x802 && hot[2].count == 1);
		CHECK(hot[3].address == 0x806 && hot[3].count == 1);
		CHECK(hot[4].address == 0x808 && hot[4].count == 1);
	}
	/* Reset (0 ns), SysTick twice (20..40, 60..65), SVCall open at the end */
	n = tk_tarmac_stats_exceptions(st, &exc);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(strcmp(exc[0].name, "Reset") == 0 && exc[0].count == 1 &&
		      exc[0].total == 0 && exc[0].open == 0);
		CHECK(strcmp(exc[1].name, "SysTick") == 0 && exc[1].count == 2 &&
		      exc[1].total == 25 && exc[1].min == 5 && exc[1].max == 20 &&
		      exc[1].open == 0);
		CHECK(strcmp(exc[2].name, "SVCall") == 0 && exc[2].count == 0 &&
		      exc[2].min == 0 && exc[2].max == 0 && exc[2].open == 1);
	}
	/* traffic per 256 MB region, in first-seen order */
	n = tk_tarmac_stats_traffic(st, &tf);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(tf[0].base == 0x20000000 &&
		      tf[0].count[TK_TARMAC_MEMORY_WRITE] == 1 && tf[0].bytes[TK_TARMAC_MEMORY_WRITE] == 4 &&
		      tf[0].count[TK_TARMAC_MEMORY_READ] == 1 && tf[0].bytes[TK_TARMAC_MEMORY_READ] == 1 &&
		      tf[0].count[TK_TARMAC_BUS_READ] == 0 && tf[0].count[TK_TARMAC_BUS_WRITE] == 0);
		CHECK(tf[1].base == 0x40000000 && tf[1].count[TK_TARMAC_MEMORY_WRITE] == 1 &&
		      tf[1].count[TK_TARMAC_MEMORY_READ] == 0);
		CHECK(tf[2].base == 0 && tf[2].count[TK_TARMAC_BUS_READ] == 1 &&
		      tf[2].bytes[TK_TARMAC_BUS_READ] == 4);
	}
	tk_tarmac_stats_free(st);
	tk_tarmac_close(tr);
}

/* Only what was asked for is gathered; a timeline error comes at finish. */
static void stats_parts(void)
{
	/* a cycle stamp after ns: the timeline cannot convert it (strict) */
	static const char text[] =
		"0 ns E Reset\n"
		"10 ns IT (00000800:00000001) 00000800 2900 T16 CMP r1,#0\n"
		"20 cyc IT (00000802:00000002) 00000802 2900 T16 CMP r1,#0\n"
		"30 ns MNW4___D 20000010 00000001\n";
	tk_tarmac_opts o;
	tk_tarmac *tr = NULL;
	tk_tarmac_stats *st = NULL;
	const tk_tarmac_mnemonic_count *mix;
	const tk_tarmac_address_count *hot;
	const tk_tarmac_exception_stat *exc;
	const tk_tarmac_traffic *tf;
	tk_error err;
	int rc, what;

	for (what = 0; what < 2; what++) {
		tk_tarmac_opts_init(&o);
		o.strict = 1;
		CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "sp", &o, &err) == TK_OK);
		CHECK(tk_tarmac_stats_new(&st, tr, what ? TK_TARMAC_STATS_ALL : TK_TARMAC_STATS_MIX,
					  &o, &err) == TK_OK);
		if (!st) {
			tk_tarmac_close(tr);
			return;
		}
		while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
			CHECK(tk_tarmac_stats_record(st, &rec, &err) == TK_OK);
		CHECK(rc == TK_END);
		rc = tk_tarmac_stats_finish(st, &err);
		if (what) {
			CHECK(rc == TK_E_RANGE && strstr(err.msg, "cyc") != NULL);
		} else {
			CHECK(rc == TK_OK);
			CHECK(tk_tarmac_stats_mix(st, &mix) == 1 && mix[0].count == 2);
			CHECK(tk_tarmac_stats_hottest(st, &hot) == 0);
			CHECK(tk_tarmac_stats_exceptions(st, &exc) == 0);
			CHECK(tk_tarmac_stats_traffic(st, &tf) == 0);
		}
		tk_tarmac_stats_free(st);
		tk_tarmac_close(tr);
	}
}

/*
 * The statistics of a corpus log, calculator-aarch32-fastmodel.tarmac, in
 * `dir`; the figures were counted from its lines by a separate script (IT
 * and IS lines, the first word after ':' in upper case, MR/MW lines by
 * address >> 28 and size), not by tracekit.
 */
static void stats_corpus(const char *dir)
{
	char path[4096];
	tk_tarmac *tr = NULL;
	tk_tarmac_stats *st = NULL;
	const tk_tarmac_mnemonic_count *mix;
	const tk_tarmac_address_count *hot;
	const tk_tarmac_exception_stat *exc;
	const tk_tarmac_traffic *tf;
	tk_error err;
	int rc;

	snprintf(path, sizeof(path), "%s/calculator-aarch32-fastmodel.tarmac", dir);
	if (tk_tarmac_open(&tr, path, NULL, &err) < 0) {
		printf("stats_corpus: skipped (%s)\n", err.msg);
		return;
	}
	CHECK(tk_tarmac_stats_new(&st, tr, TK_TARMAC_STATS_ALL, NULL, &err) == TK_OK);
	if (!st) {
		tk_tarmac_close(tr);
		return;
	}
	while ((rc = tk_tarmac_next(tr, &rec, &err)) == TK_OK)
		CHECK(tk_tarmac_stats_record(st, &rec, &err) == TK_OK);
	CHECK(rc == TK_END);
	CHECK(tk_tarmac_stats_finish(st, &err) == TK_OK);
	CHECK(tk_tarmac_stats_executed(st) == 4869 && tk_tarmac_stats_skipped(st) == 235);
	CHECK(tk_tarmac_stats_unit(st) == TK_TARMAC_UNIT_CLK);
	CHECK(tk_tarmac_stats_mix(st, &mix) == 32);
	CHECK(strcmp(mix[0].mnemonic, "LDR") == 0 && mix[0].count == 1459);
	CHECK(strcmp(mix[1].mnemonic, "STR") == 0 && mix[1].count == 597);
	CHECK(strcmp(mix[2].mnemonic, "MOV") == 0 && mix[2].count == 502);
	CHECK(tk_tarmac_stats_hottest(st, &hot) == 621);
	CHECK(hot[0].address == 0x20b4c && hot[0].count == 30);
	CHECK(hot[1].address == 0x20b50 && hot[1].count == 30);
	CHECK(tk_tarmac_stats_exceptions(st, &exc) == 1 &&
	      strcmp(exc[0].name, "Reset") == 0 && exc[0].count == 1 && exc[0].open == 0);
	CHECK(tk_tarmac_stats_traffic(st, &tf) == 1 && tf[0].base == 0 &&
	      tf[0].count[TK_TARMAC_MEMORY_READ] == 1845 && tf[0].bytes[TK_TARMAC_MEMORY_READ] == 7080 &&
	      tf[0].count[TK_TARMAC_MEMORY_WRITE] == 984 && tf[0].bytes[TK_TARMAC_MEMORY_WRITE] == 3669 &&
	      tf[0].count[TK_TARMAC_BUS_READ] == 0 && tf[0].count[TK_TARMAC_BUS_WRITE] == 0);
	tk_tarmac_stats_free(st);
	tk_tarmac_close(tr);
}

/*
 * An LD/ST line whose lanes have gaps is one access per run of bytes,
 * highest address first, all on the line (as Arm's parser test reads
 * the same lines); the next line's record follows.
 */
static void lanes_split(void)
{
	static const char text[] =
		"1234567 cs E dummy\n"
		"                    LD 000000007ff80fe0 ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH\n"
		"                    ST 000000009ffdb810 ....0000 ........ 88888888 88888888    S:009ffdb810    NM NSH IWTNA OWTNA\n"
		"                    ST 000000009ffdb810 ........ ........ ........ ....##..    S:009ffdb810    NM NSH IWTNA OWTNA\n"
		"1234568 cs E end\n";
	static const struct {
		int write;
		uint64_t addr;
		unsigned size;
		int known;
		uint64_t value;
		uint64_t line;
	} want[] = {
		{ 0, 0x7ff80fe8, 4, 1, 0x44444444, 2 },
		{ 0, 0x7ff80fe2, 2, 1, 0x2222, 2 },
		{ 0, 0x7ff80fe0, 1, 1, 0x11, 2 },
		{ 1, 0x9ffdb81c, 2, 1, 0, 3 },
		{ 1, 0x9ffdb810, 8, 1, 0x8888888888888888ull, 3 },
		{ 1, 0x9ffdb811, 1, 0, 0, 4 },
	};
	tk_tarmac_record r;
	tk_tarmac *tr;
	tk_error err;
	size_t i;

	CHECK(tk_tarmac_open_mem(&tr, text, strlen(text), "t", NULL, &err) == TK_OK);
	CHECK(tk_tarmac_next(tr, &r, &err) == TK_OK && r.kind == TK_TARMAC_EVENT);
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		CHECK(tk_tarmac_next(tr, &r, &err) == TK_OK);
		CHECK(r.kind == TK_TARMAC_MEMORY && r.write == want[i].write &&
		      r.address == want[i].addr && r.size == want[i].size &&
		      r.data_known == want[i].known && r.line == want[i].line &&
		      r.time == 1234567);
		if (want[i].known)
			CHECK(r.data_value == want[i].value);
		CHECK(span(&r.phys, i < 3 ? "S:007ff80fe0" : "S:009ffdb810"));
	}
	CHECK(tk_tarmac_next(tr, &r, &err) == TK_OK && r.kind == TK_TARMAC_EVENT &&
	      r.time == 1234568 && span(&r.name, "end"));
	CHECK(tk_tarmac_next(tr, &r, &err) == TK_END);
	tk_tarmac_close(tr);
}

/*
 * tk_tarmac_index_mem(): a span's summary meets a range when one of its
 * memory records may show a byte of it (8-byte granules: a neighbour in
 * the same granule may say yes, one past it says no), a range past the
 * top of the address space going on at 0.
 */
static void index_mem(void)
{
	char path[] = "/tmp/tk_test_tarmac_ixXXXXXX";
	tk_tarmac_index *ix = NULL;
	tk_error err;
	FILE *f;
	size_t k, n, kd = SIZE_MAX, kw = SIZE_MAX;
	int fd, how = -1, i;

	tk_error_clear(&err);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	CHECK(f != NULL);
	if (!f) {
		close(fd);
		unlink(path);
		return;
	}
	for (i = 1; i <= 200; i++) {
		fprintf(f, "%d clk IT (%d) 00001000 e3a00601 A svc_s : MOV      r0,#1\n", i, i);
		if (i == 20)
			fprintf(f, "%d clk MW8 00002000:000000002000 0011223344556677\n", i);
		if (i == 150)
			fprintf(f, "%d clk MW4 fffffffffffffffe:00000000fffe 11223344\n", i);
	}
	CHECK(fclose(f) == 0);
	CHECK(tk_tarmac_index_open(&ix, path, "/nonexistent/ix", 256, 0, &how, &err) == TK_OK);
	CHECK(how == TK_TARMAC_INDEX_MEMORY);
	if (!ix) {
		unlink(path);
		return;
	}
	n = tk_tarmac_index_count(ix);
	CHECK(n > 16);
	for (k = 0; k < n; k++) {
		if (tk_tarmac_index_mem(ix, k, 0x2000, 8)) {
			CHECK(kd == SIZE_MAX);
			kd = k;
		}
		if (tk_tarmac_index_mem(ix, k, UINT64_MAX, 1)) {
			CHECK(kw == SIZE_MAX);
			kw = k;
		}
	}
	CHECK(kd != SIZE_MAX && kw != SIZE_MAX && kd < kw);
	if (kd != SIZE_MAX && kw != SIZE_MAX) {
		CHECK(tk_tarmac_index_mem(ix, kd, 0x2007, 1) == 1);
		CHECK(tk_tarmac_index_mem(ix, kd, 0x1ff9, 8) == 1);
		CHECK(tk_tarmac_index_mem(ix, kd, 0x1ff8, 8) == 0);
		CHECK(tk_tarmac_index_mem(ix, kd, 0x2008, 8) == 0);
		CHECK(tk_tarmac_index_mem(ix, kd, 0x2000, 0) == 0);
		CHECK(tk_tarmac_index_mem(ix, kd, 0, 0x2001) == 1);
		CHECK(tk_tarmac_index_mem(ix, kd, UINT64_MAX - 0xf, 0x20) == 0);
		CHECK(tk_tarmac_index_mem(ix, kd, UINT64_MAX - 0xf, 0x2011) == 1);
		CHECK(tk_tarmac_index_mem(ix, kd, 0x2004, UINT64_MAX) == 1);
		/* the write at ...fe wraps to bytes 0 and 1 */
		CHECK(tk_tarmac_index_mem(ix, kw, 0, 1) == 1);
		CHECK(tk_tarmac_index_mem(ix, kw, UINT64_MAX - 0xf, 0x11) == 1);
		CHECK(tk_tarmac_index_mem(ix, kw, UINT64_MAX - 0xf, 8) == 0);
		CHECK(tk_tarmac_index_mem(ix, kw, 8, 8) == 0);
		CHECK(tk_tarmac_index_mem(ix, kw, 0x2000, 8) == 0);
	}
	CHECK(!tk_tarmac_index_damaged(ix));
	tk_tarmac_index_free(ix);
	unlink(path);
}

int main(int argc, char **argv)
{
	spec_examples();
	variants();
	lanes_split();
	errors();
	values();
	prefixes();
	timeline();
	stats();
	stats_parts();
	index_mem();
	if (argc > 1)
		stats_corpus(argv[1]);
	printf("%d checks, %d failures\n", tk_test_checks, tk_test_failures);
	return tk_test_failures ? 1 : 0;
}
