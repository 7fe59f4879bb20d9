/* tk_test.h - the unit tests' few assertion macros. */
#ifndef TK_TEST_H
#define TK_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int tk_test_failures;
static int tk_test_checks;

#define CHECK(cond)                                                          \
	do {                                                                 \
		tk_test_checks++;                                            \
		if (!(cond)) {                                               \
			tk_test_failures++;                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                            \
		}                                                            \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                   \
	do {                                                                 \
		uint64_t a_ = (a), b_ = (b);                                 \
		tk_test_checks++;                                            \
		if (a_ != b_) {                                              \
			tk_test_failures++;                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%" PRIu64 \
				" != %" PRIu64 ")\n", __FILE__, __LINE__, #a, #b, \
				a_, b_);                                     \
		}                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *a_ = (a), *b_ = (b);                             \
		tk_test_checks++;                                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                     \
			tk_test_failures++;                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s == \"%s\" (got \"%s\")\n", \
				__FILE__, __LINE__, #a, b_ ? b_ : "(null)", \
				a_ ? a_ : "(null)");                         \
		}                                                            \
	} while (0)

/* A fixed sequence of pseudo-random numbers (xorshift64), the same in
 * every run. */
static uint64_t tk_test_rng = 88172645463325252ull;

static inline uint64_t tk_test_next(void)
{
	tk_test_rng ^= tk_test_rng << 13;
	tk_test_rng ^= tk_test_rng >> 7;
	tk_test_rng ^= tk_test_rng << 17;
	return tk_test_rng;
}

#define TEST_DONE()                                                          \
	do {                                                                 \
		printf("%d checks, %d failed\n", tk_test_checks,              \
		       tk_test_failures);                                    \
		return tk_test_failures ? 1 : 0;                             \
	} while (0)

#endif
