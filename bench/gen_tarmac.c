/*
 * gen_tarmac.c - write a synthetic Arm Tarmac log for the read benchmark.
 *
 *   gen_tarmac [-b BYTES] [-v fm|m] [-s SEED] OUT
 *
 * -b  approximate size in bytes (default 1e9); the log stops at the first
 *     instruction boundary past it
 * -v  fm: Arm Fast Models AArch64 style with a gem5-like "cpuN" prefix
 *         ("1500 clk cpu0 IT (4) 002109bc a9be7bfd O EL3h_s : STP ...",
 *         "R X0 ...", "MW8 va:pa data", "E ... CoreEvent_...")
 *     m:  Cortex-M RTL style of the spec ("315760 ns IT (000007e8:0000247c)
 *         000007e8 2900 T16 CMP r1,#0", "R r0 ...", "MNW4___D addr data",
 *         "BNR4___I addr data", "E Exception ...")
 * -s  seed of the pseudo-random mix (default 1)
 *
 * Mix per instruction (about): 1 instruction line, 0.9 register lines,
 * 0.3 memory lines, 0.05 bus lines (m), 0.002 event lines; 1 in 50
 * instructions is skipped (IS).  Timestamps advance with every instruction.
 *
 * C11; compiled by bench/tarmac_read.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const mn64[] = {
	"ADD    X0, X1, #0x10", "LDR    X2, [X3, #8]", "STR    W4, [SP, #0x1c]",
	"MOVZ   X0, #16, #16", "B.NE   0x210a00", "BL     0x2109bc",
	"CMP    X5, X6", "STP    X29, X30, [SP, #-0x20]!", "RET", "ORR    W1, W2, W3",
};
static const char *const mn32[] = {
	"CMP r1,#0", "LDR r0,[r7,#4]", "STR r2,[sp,#8]", "ADDS r0,r0,#1",
	"B {pc}+0x604 ; 0x6e6", "BL 0x0000083a", "MOVS r3,#0", "PUSH {r4-r7,lr}",
	"BX lr", "LDM r7,{r0-r4,r6,r7}",
};

int main(int argc, char **argv)
{
	uint64_t target = 1000000000ull, written = 0, t = 0, n = 0, pc = 0x2105d4;
	const char *variant = "fm";
	char buf[1 << 16];
	size_t used = 0;
	FILE *f;
	int i, m;

	for (i = 1; i < argc - 1; i += 2) {
		if (!strcmp(argv[i], "-b"))
			target = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "-v"))
			variant = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			rng ^= strtoull(argv[i + 1], NULL, 10) * 0x9e3779b97f4a7c15ull;
		else
			break;
	}
	if (i != argc - 1 || (strcmp(variant, "fm") && strcmp(variant, "m"))) {
		fprintf(stderr, "usage: gen_tarmac [-b BYTES] [-v fm|m] [-s SEED] OUT\n");
		return 2;
	}
	m = variant[0] == 'm';
	f = fopen(argv[i], "wb");
	if (!f) {
		perror(argv[i]);
		return 1;
	}
	if (m)
		pc = 0x7e8;
	while (written < target) {
		uint64_t r = rnd();
		int k, nreg = (int)(r % 10 < 9) + (int)(r % 7 == 0);
		char *o;

		if (used > sizeof(buf) - 1024) {
			fwrite(buf, 1, used, f);
			written += used;
			used = 0;
		}
		o = buf + used;
		n++;
		if (m) {
			t += 10;
			o += sprintf(o, "%" PRIu64 " ns I%c (%08" PRIx64 ":%08" PRIx64
					") %08" PRIx64 " %04x T16 %s\n",
				     t, (r >> 40) % 50 ? 'T' : 'S', pc, n, pc, (unsigned)(r >> 16) & 0xffff,
				     mn32[(r >> 8) % 10]);
		} else {
			t += 250;
			o += sprintf(o, "%" PRIu64 " clk cpu%d I%c (%" PRIu64 ") %08" PRIx64
					" %08" PRIx32 " O EL%dh_s : %s\n",
				     t, (int)(r >> 60) & 1, (r >> 40) % 50 ? 'T' : 'S', n, pc,
				     (uint32_t)(r >> 20), 1 + (int)((r >> 30) & 1),
				     mn64[(r >> 8) % 10]);
		}
		for (k = 0; k < nreg; k++) {
			uint64_t v = rnd();
			if (m)
				o += sprintf(o, "%" PRIu64 " ns R r%d %08" PRIx32 "\n", t,
					     (int)(v % 13), (uint32_t)(v >> 16));
			else
				o += sprintf(o, "%" PRIu64 " clk cpu%d R X%d %016" PRIx64 "\n",
					     t, (int)(r >> 60) & 1, (int)(v % 31), v >> 3);
		}
		if (r % 10 < 3) {
			uint64_t a = 0x20000000 + ((r >> 12) & 0xfffc);
			if (m)
				o += sprintf(o, "%" PRIu64 " ns MN%c4___D %08" PRIx64 " %08" PRIx32 "\n",
					     t, (r >> 33) & 1 ? 'W' : 'R', a, (uint32_t)(r >> 7));
			else
				o += sprintf(o, "%" PRIu64 " clk cpu%d M%c8 %08" PRIx64 ":%012" PRIx64
						" %016" PRIx64 "\n",
					     t, (int)(r >> 60) & 1, (r >> 33) & 1 ? 'W' : 'R', a, a,
					     r >> 5);
		}
		if (m && (r >> 50) % 20 == 0)
			o += sprintf(o, "%" PRIu64 " ns BNR4___I %08" PRIx64 " %08" PRIx32 "\n",
				     t, pc & ~(uint64_t)3, (uint32_t)(r >> 9));
		if ((r >> 20) % 500 == 0) {
			if (m)
				o += sprintf(o, "%" PRIu64 " ns E Exception %d\n", t,
					     15 + (int)((r >> 3) & 7));
			else
				o += sprintf(o, "%" PRIu64 " clk cpu%d E %08" PRIx64
						" 00000001 CoreEvent_IRQ\n",
					     t, (int)(r >> 60) & 1, pc);
		}
		pc += m ? 2 : 4;
		if ((r >> 44) % 64 == 0)
			pc = (m ? 0x7e8 : 0x2105d4) + ((r >> 24) & 0xfff) * (m ? 2 : 4);
		used = (size_t)(o - buf);
	}
	fwrite(buf, 1, used, f);
	if (fclose(f) != 0) {
		perror(argv[i]);
		return 1;
	}
	return 0;
}
