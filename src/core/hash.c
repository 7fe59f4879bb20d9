/*
 * hash.c - the seed of the hash tables keyed by what an input holds.
 *
 * The tables (interned names, instance maps, counters) use open addressing.
 * With a fixed hash an input can be made whose keys all land in one slot,
 * and then every lookup walks all of them: a few MB of trace would take
 * minutes.  So their hashes mix a seed chosen at random once per process
 * (internal.h: tk_hash64(), tk_strpool_hash16()); nothing the library
 * writes depends on where a key lands, only how long it takes to find it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

uint64_t tk_hash_seed[2];

static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

/* splitmix64: spreads the fallback's number to 64 bits */
static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void seed_init(void)
{
	uint64_t s[2] = { 0, 0 }, x;
	int have = 0;

#if defined(__linux__)
	if (getrandom(s, sizeof(s), GRND_NONBLOCK) == (ssize_t)sizeof(s))
		have = 1;
#endif
	if (!have) {
		/* no random source: the time, the process and where the
		 * stack is (address space layout randomization) */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		x ^= (uint64_t)getpid() << 32;
		x ^= (uint64_t)(uintptr_t)&ts;
		s[0] = splitmix(&x);
		s[1] = splitmix(&x);
	}
	tk_hash_seed[0] = s[0];
	tk_hash_seed[1] = s[1];
}

void tk_hash_init(void)
{
	pthread_once(&seed_once, seed_init);
}

#if defined(__GNUC__) || defined(__clang__)
/* before main(), so that no table of the process ever hashes with another
 * seed (the tables' own set-up calls tk_hash_init() too, for compilers
 * without constructors) */
__attribute__((constructor)) static void seed_at_load(void)
{
	tk_hash_init();
}
#endif
