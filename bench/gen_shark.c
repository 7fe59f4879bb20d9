/*
 * gen_shark.c - writes a large valid S.Ha.R.K. FTrace dump for the reader
 * benchmark: 16-byte little-endian records (u16 type, u16 par1, u32 tsc_hi,
 * u32 tsc_lo, u32 par2), TSC increasing, the event mix of the real demo
 * dump (timer posts and deletes, the scheduler's task_schedule, context
 * switches, timer wakeups, job ends and activations of a few tasks).
 *
 *   gen_shark -n RECORDS OUT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char buf[1 << 20];
static size_t used;
static FILE *out;
static uint64_t tsc = 24305936302ull;

static void put(unsigned type, unsigned par1, uint32_t par2)
{
	unsigned char *p;
	uint32_t hi = (uint32_t)(tsc >> 32), lo = (uint32_t)tsc;

	if (used == sizeof(buf)) {
		if (fwrite(buf, 1, used, out) != used) {
			perror("write");
			exit(1);
		}
		used = 0;
	}
	p = buf + used;
	p[0] = (unsigned char)type; p[1] = (unsigned char)(type >> 8);
	p[2] = (unsigned char)par1; p[3] = (unsigned char)(par1 >> 8);
	memcpy(p + 4, (unsigned char[4]){ (unsigned char)hi, (unsigned char)(hi >> 8),
		(unsigned char)(hi >> 16), (unsigned char)(hi >> 24) }, 4);
	memcpy(p + 8, (unsigned char[4]){ (unsigned char)lo, (unsigned char)(lo >> 8),
		(unsigned char)(lo >> 16), (unsigned char)(lo >> 24) }, 4);
	memcpy(p + 12, (unsigned char[4]){ (unsigned char)par2, (unsigned char)(par2 >> 8),
		(unsigned char)(par2 >> 16), (unsigned char)(par2 >> 24) }, 4);
	used += 16;
	tsc += 37 + (tsc % 7) * 11;
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, i = 0;
	unsigned k;

	if (argc != 4 || strcmp(argv[1], "-n") != 0 ||
	    (n = strtoull(argv[2], NULL, 10)) < 16) {
		fprintf(stderr, "usage: gen_shark -n RECORDS OUT\n");
		return 2;
	}
	out = fopen(argv[3], "wb");
	if (!out) {
		perror(argv[3]);
		return 1;
	}
	put(0x20, 256, 367483);           /* trace_start, clk_per_msec */
	i++;
	for (k = 0; k < 5; k++, i++)
		put(0x60, 256 + 8 * k, k);   /* id: ctx -> pid */
	while (i + 12 <= n - 1) {
		unsigned ctx = 264 + 8 * (unsigned)(i % 4);
		put(0x2B, 0, 0);              /* timer_wakeup_start */
		put(0x0B, 0, 0);              /* timer_post */
		put(0x92, ctx, 1);            /* task_timer */
		put(0x3B, ctx, 0);            /* timer_wakeup_end */
		put(0x82, ctx, ctx);          /* task_schedule */
		put(0x15, ctx, 0);            /* context_switch */
		put(0x0B, 0, 0);
		put(0x1B, 0, 0);              /* timer_delete */
		put(0x62, ctx, 1);            /* task_end_cycle */
		put(0x82, 256, 256);
		put(0x15, 256, 0);
		put(0x1B, 0, 0);
		i += 12;
	}
	while (i < n - 1) {
		put(0x0B, 0, 0);
		i++;
	}
	put(0x30, 0, 0);                  /* trace_stop */
	if (fwrite(buf, 1, used, out) != used || fclose(out) != 0) {
		perror("write");
		return 1;
	}
	return 0;
}
