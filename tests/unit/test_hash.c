/*
 * test_hash.c - the seeded hashes of the tables keyed by input
 * (src/core/hash.c, internal.h):
 *   - tk_hash_mum() is the xor of the halves of the 128-bit product;
 *   - the seed is set before main();
 *   - keys made to share one slot under the unseeded hashes used before
 *     (strings whose two words cancel, instance numbers through the
 *     inverse of the old mix) spread over the string pool and the
 *     instance map: no run of occupied slots is long, every key is found
 *     again, and the pool's ids are still in first-seen order.
 */
#include <stdint.h>
#include <stdlib.h>

#include "analysis_internal.h"
#include "internal.h"
#include "tk_test.h"

#define NKEYS 20000

/* the 128-bit product's halves xored, 32 bits at a time */
static uint64_t mum_ref(uint64_t a, uint64_t b)
{
	uint64_t w[4] = { 0, 0, 0, 0 };
	int i, j;

	for (i = 0; i < 2; i++) {
		uint64_t carry = 0;
		for (j = 0; j < 2; j++) {
			uint64_t x = (uint32_t)(a >> (32 * i));
			uint64_t y = (uint32_t)(b >> (32 * j));
			uint64_t t = x * y;
			uint64_t lo = (t & 0xffffffffu) + w[i + j] + carry;
			w[i + j] = lo & 0xffffffffu;
			carry = (t >> 32) + (lo >> 32);
		}
		w[i + 2] += carry;
	}
	return ((w[1] << 32) | w[0]) ^ ((w[3] << 32) | w[2]);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* the longest run of occupied slots of a table of `cap` */
static size_t longest_run(const void *base, size_t stride, size_t cap,
			  int (*used)(const void *))
{
	size_t i, run = 0, best = 0;

	/* twice round, for a run that wraps */
	for (i = 0; i < 2 * cap; i++) {
		run = used((const char *)base + (i % cap) * stride) ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best > cap ? cap : best;
}

static int slot_used(const void *p)
{
	return ((const tk_strslot *)p)->len1 != 0;
}

static int hslot_used(const void *p)
{
	return ((const tk_hslot *)p)->used != 0;
}

static int byte_used(const void *p)
{
	return *(const uint8_t *)p != 0;
}

/* Names of 16 printable bytes that the old hash, w0 ^ rotl(w1, 29) ^ len,
 * gave one value: w0 and w1 changed by d and rotl(d, 29)'s partner. */
static void pool_case(void)
{
	static char names[NKEYS][17];
	tk_strpool p;
	size_t i, run;
	uint64_t w0 = 0x4141414141414141ull, w1 = 0x4242424242424242ull;

	tk_strpool_init(&p);
	for (i = 0; i < NKEYS; i++) {
		/* bits 3-5 of the bytes of w1, cancelled by bits 0-2 of w0's
		 * bytes 29 bits on (so both stay printable) */
		uint64_t d = tk_test_next() & 0x3838383838383838ull;
		uint64_t a = w0 ^ rotl(d, 29), b = w1 ^ d;
		memcpy(names[i], &a, 8);
		memcpy(names[i] + 8, &b, 8);
		names[i][16] = 0;
	}
	for (i = 0; i < NKEYS; i++)
		tk_strpool_intern(&p, names[i], 16);
	/* duplicates (the same d twice) are one string */
	CHECK(p.count > NKEYS - 100 && p.count <= NKEYS);
	for (i = 0; i < NKEYS; i++) {
		tk_str id = tk_strpool_find(&p, names[i], 16);
		CHECK(id != TK_NONE && id < p.count &&
		      memcmp(p.ptrs[id], names[i], 16) == 0);
		if (id == TK_NONE)
			break;
	}
	/* ids in first-seen order */
	CHECK(tk_strpool_find(&p, names[0], 16) == 0);
	run = longest_run(p.slots, sizeof(*p.slots), (size_t)p.mask + 1,
			  slot_used);
	fprintf(stderr, "pool: %u names in %u slots, longest run %zu\n",
		p.count, p.mask + 1, run);
	CHECK(run < 200);
	tk_strpool_free(&p);
}

/* the old instance-map mix, inverted: keys it sent to slot 0 */
static uint64_t unmix_old(uint64_t h)
{
	uint64_t inv = 0xbf58476d1ce4e5b9ull, x;
	int i;

	/* inverse of h ^= h >> 32 (its own inverse) */
	h ^= h >> 32;
	/* the multiplier's inverse mod 2^64 (Newton) */
	for (i = 0; i < 6; i++)
		inv *= 2 - 0xbf58476d1ce4e5b9ull * inv;
	h *= inv;
	/* inverse of h ^= h >> 29 */
	x = h ^ (h >> 29);
	x = h ^ (x >> 29);
	return h ^ (x >> 29);
}

static void imap_case(void)
{
	static uint64_t keys[NKEYS];
	tk_imap m;
	size_t i, run;

	tk_imap_init(&m, sizeof(uint64_t));
	for (i = 0; i < NKEYS; i++) {
		/* the old slot_of() took the low bits: all zero here */
		keys[i] = unmix_old(tk_test_next() << 20);
	}
	for (i = 0; i < NKEYS; i++) {
		uint64_t *v = tk_imap_put(&m, (uint32_t)(keys[i] >> 32),
					  (int64_t)(uint32_t)keys[i], NULL);
		CHECK(v != NULL);
		if (v)
			*v = i;
	}
	for (i = 0; i < NKEYS; i++) {
		const uint64_t *v = tk_imap_get(&m, (uint32_t)(keys[i] >> 32),
						(int64_t)(uint32_t)keys[i]);
		CHECK(v && *v == i);
	}
	run = longest_run(m.idx.slots, sizeof(*m.idx.slots),
			  (size_t)m.idx.mask + 1, hslot_used);
	fprintf(stderr, "imap: %zu keys in %u slots, longest run %zu\n",
		m.count, m.idx.mask + 1, run);
	CHECK(run < 200);
	tk_imap_free(&m);
}

/* the CLI count map's old mix (cli_util.c), and keys it sent to slot 0 */
static uint64_t cli_mix_old(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

static uint64_t cli_unmix_old(uint64_t h)
{
	uint64_t inv = 0xff51afd7ed558ccdull;
	int i;

	for (i = 0; i < 6; i++)
		inv *= 2 - 0xff51afd7ed558ccdull * inv;
	h ^= h >> 33;
	h *= inv;
	return h ^ (h >> 33);
}

/* tk_hash64() (also what the CLI's tables hash with) spreads the keys that
 * the old mix sent to one slot, in a table of the CLI map's kind */
static void cli_case(void)
{
	enum { CAP = 65536 };  /* a power of 2 above NKEYS */
	_Static_assert((CAP & (CAP - 1)) == 0 && CAP > NKEYS, "CAP");
	static uint64_t keys[NKEYS];
	static uint8_t used[CAP];
	size_t i, j, run;

	for (i = 0; i < NKEYS; i++) {
		keys[i] = cli_unmix_old(tk_test_next() << 20);
		CHECK_EQ_U64(cli_mix_old(keys[i]) & (CAP - 1), 0);
	}
	for (i = 0; i < NKEYS; i++) {
		for (j = tk_hash64(keys[i]) & (CAP - 1); used[j];
		     j = (j + 1) & (CAP - 1))
			;
		used[j] = 1;
	}
	run = longest_run(used, 1, CAP, byte_used);
	fprintf(stderr, "tk_hash64: %d keys in %d slots, longest run %zu\n",
		NKEYS, CAP, run);
	CHECK(run < 200);
}

int main(void)
{
	int i;

	/* the seed is set before main() (or by the first table) */
	tk_hash_init();
	CHECK(tk_hash_seed[0] != 0 || tk_hash_seed[1] != 0);
	for (i = 0; i < 1000; i++) {
		uint64_t a = tk_test_next(), b = tk_test_next();
		CHECK_EQ_U64(tk_hash_mum(a, b), mum_ref(a, b));
	}
	CHECK_EQ_U64(tk_hash_mum(~0ull, ~0ull), mum_ref(~0ull, ~0ull));
	pool_case();
	imap_case();
	cli_case();
	TEST_DONE();
}
