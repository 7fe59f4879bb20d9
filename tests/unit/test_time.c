/* test_time.c - the exact time base at its edges. */
#include "tk_test.h"
#include "tracekit/tracekit.h"

static tk_timebase tb(tk_unit u, uint64_t num, uint64_t den)
{
	tk_timebase t = { u, num, den };
	return t;
}

static void test_convert(void)
{
	tk_timebase ns = tb(TK_UNIT_NS, 1, 1), ps = tb(TK_UNIT_PS, 1, 1);
	tk_timebase s = tb(TK_UNIT_S, 1, 1), us = tb(TK_UNIT_US, 1, 1);
	tk_timebase third = tb(TK_UNIT_NS, 1, 3);
	uint64_t out = 0;

	/* identity keeps the largest value */
	CHECK(tk_time_convert(UINT64_MAX, &ns, &ns, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, UINT64_MAX);
	/* 2^64-1 ps is 18446744.073709551615 s: not whole */
	CHECK(tk_time_convert(UINT64_MAX, &ps, &s, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	CHECK(tk_time_convert(UINT64_MAX, &ps, &s, TK_ROUND_DOWN, &out) == TK_OK);
	CHECK_EQ_U64(out, 18446744u);
	CHECK(tk_time_convert(UINT64_MAX, &ps, &s, TK_ROUND_UP, &out) == TK_OK);
	CHECK_EQ_U64(out, 18446745u);
	/* ps -> s exact */
	CHECK(tk_time_convert(3000000000000ull, &ps, &s, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, 3);
	CHECK(tk_time_convert(1, &ps, &s, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	/* s -> ps overflows 64 bits for large values, exactly at the edge */
	CHECK(tk_time_convert(18446744ull, &s, &ps, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, 18446744000000000000ull);
	CHECK(tk_time_convert(18446745ull, &s, &ps, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	CHECK(tk_time_convert(UINT64_MAX, &s, &ps, TK_ROUND_DOWN, &out) == TK_E_RANGE);
	/* num/den that do not divide: 1/3 ns ticks */
	CHECK(tk_time_convert(3, &third, &ns, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, 1);
	CHECK(tk_time_convert(4, &third, &ns, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	CHECK(tk_time_convert(4, &third, &ns, TK_ROUND_DOWN, &out) == TK_OK);
	CHECK_EQ_U64(out, 1);
	CHECK(tk_time_convert(4, &third, &ns, TK_ROUND_UP, &out) == TK_OK);
	CHECK_EQ_U64(out, 2);
	CHECK(tk_time_convert(1000, &third, &ps, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	CHECK(tk_time_convert(3000, &third, &ps, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, 1000000);
	/* ns -> 1/3 ns ticks */
	CHECK(tk_time_convert(7, &ns, &third, TK_ROUND_EXACT, &out) == TK_OK);
	CHECK_EQ_U64(out, 21);
	/* huge num and den that cancel: (2^63 / (2^63 - 1)) us */
	{
		tk_timebase odd = tb(TK_UNIT_US, 1ull << 63, (1ull << 63) - 1);
		CHECK(tk_time_convert((1ull << 63) - 1, &odd, &us, TK_ROUND_EXACT, &out) == TK_OK);
		CHECK_EQ_U64(out, 1ull << 63);
		CHECK(tk_time_convert(1, &odd, &us, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	}
	/* a zero num or den is refused, between equal bases too, and so is
	 * a rounding that does not exist */
	{
		tk_timebase z = tb(TK_UNIT_NS, 0, 1);
		CHECK(tk_time_convert(1, &z, &ns, TK_ROUND_EXACT, &out) == TK_E_USAGE);
		CHECK(tk_time_convert(1, &z, &z, TK_ROUND_EXACT, &out) == TK_E_USAGE);
		CHECK(tk_time_convert(1, &ns, &ns, (tk_round)7, &out) == TK_E_USAGE);
	}
	/* value * ratio beyond 128 bits, the result within 64: exact */
	{
		tk_timebase a = tb(TK_UNIT_PS, UINT64_MAX, UINT64_MAX - 2);
		tk_timebase b = tb(TK_UNIT_PS, UINT64_MAX - 2, UINT64_MAX);
		tk_timebase big = tb(TK_UNIT_S, UINT64_MAX, 1);
		tk_timebase tiny = tb(TK_UNIT_PS, 1, UINT64_MAX);
		CHECK(tk_time_convert(1000, &a, &b, TK_ROUND_DOWN, &out) == TK_OK);
		CHECK_EQ_U64(out, 1000);
		CHECK(tk_time_convert(1000, &a, &b, TK_ROUND_UP, &out) == TK_OK);
		CHECK_EQ_U64(out, 1001);
		CHECK(tk_time_convert(1000, &a, &b, TK_ROUND_EXACT, &out) == TK_E_RANGE);
		CHECK(tk_time_convert(UINT64_MAX - 2, &b, &a, TK_ROUND_DOWN, &out) == TK_OK);
		/* (M-2)^3 / M^2 = M - 6 + 12/M - 8/M^2: floor M - 6 */
		CHECK_EQ_U64(out, UINT64_MAX - 6);
		/* factors whose products overflow before they cancel: the
		 * ratio in lowest terms fits (72 / 59 bits) */
		tk_timebase f = tb(TK_UNIT_MS, 1000000000000000000ull, 1834215651067523382ull);
		tk_timebase g = tb(TK_UNIT_US, 1000000000000000000ull, 18446744073709550811ull);
		CHECK(tk_time_convert(460120, &f, &g, TK_ROUND_DOWN, &out) == TK_OK);
		CHECK_EQ_U64(out, 4627436189ull);
		/* a ratio beyond 128 bits: 0 is 0, 1 is out of range */
		CHECK(tk_time_convert(0, &big, &tiny, TK_ROUND_EXACT, &out) == TK_OK);
		CHECK_EQ_U64(out, 0);
		CHECK(tk_time_convert(1, &big, &tiny, TK_ROUND_EXACT, &out) == TK_E_RANGE);
	}
}

static void test_parse(void)
{
	uint64_t v = 0;
	tk_unit u = TK_UNIT_S;

	CHECK(tk_duration_parse("10ms", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, 10);
	CHECK(u == TK_UNIT_MS);
	/* blanks around it; a default unit that does not exist */
	CHECK(tk_duration_parse(" 7ns  ", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, 7);
	CHECK(u == TK_UNIT_NS);
	CHECK(tk_duration_parse("42 ", TK_UNIT_US, &v, &u) == TK_OK);
	CHECK(u == TK_UNIT_US);
	CHECK(tk_duration_parse("42", 99, &v, &u) == TK_E_USAGE);
	CHECK(tk_duration_parse("1.5s", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, 1500);
	CHECK(u == TK_UNIT_MS);
	CHECK(tk_duration_parse("2.5ns", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, 2500);
	CHECK(u == TK_UNIT_PS);
	CHECK(tk_duration_parse("0.0001ps", -1, &v, &u) == TK_E_RANGE);
	CHECK(tk_duration_parse("1.000ps", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, 1);
	CHECK(tk_duration_parse("250 us", -1, &v, &u) == TK_OK);
	CHECK(u == TK_UNIT_US);
	CHECK(tk_duration_parse("42", -1, &v, &u) == TK_E_PARSE);
	CHECK(tk_duration_parse("42", TK_UNIT_NS, &v, &u) == TK_OK);
	CHECK(u == TK_UNIT_NS);
	CHECK(tk_duration_parse("ms", -1, &v, &u) == TK_E_PARSE);
	CHECK(tk_duration_parse("10 parsecs", -1, &v, &u) == TK_E_PARSE);
	CHECK(tk_duration_parse("18446744073709551615ns", -1, &v, &u) == TK_OK);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK(tk_duration_parse("18446744073709551616ns", -1, &v, &u) == TK_E_RANGE);
	CHECK(tk_unit_parse("NS", 2, 0, &u) == TK_E_PARSE);
	CHECK(tk_unit_parse("NS", 2, 1, &u) == TK_OK);
	CHECK(u == TK_UNIT_NS);
}

static void test_format(void)
{
	tk_timebase ps = tb(TK_UNIT_PS, 1, 1), third = tb(TK_UNIT_NS, 1, 3);
	tk_timebase s = tb(TK_UNIT_S, 1, 1), half = tb(TK_UNIT_US, 5, 2);
	char buf[64];

	CHECK(tk_time_format(1500, &ps, TK_UNIT_NS, buf, sizeof(buf)) == 3);
	CHECK_STR(buf, "1.5");
	CHECK(tk_time_format(1, &ps, TK_UNIT_S, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "0.000000000001");
	CHECK(tk_time_format(1, &third, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "1/3");
	CHECK(tk_time_format(6, &third, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "2");
	CHECK(tk_time_format(3, &half, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "7500");
	/* more than 64 bits of picoseconds */
	CHECK(tk_time_format(UINT64_MAX, &s, TK_UNIT_PS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "18446744073709551615000000000000");
	CHECK(tk_time_format(UINT64_MAX, &s, TK_UNIT_PS, buf, 5) == TK_E_RANGE);
}

/* decimals: exact where they end within tk_time_digits places, else rounded
 * half up at the last place */
static void test_format_decimal(void)
{
	tk_timebase ns = tb(TK_UNIT_NS, 1, 1), ps = tb(TK_UNIT_PS, 1, 1);
	tk_timebase third = tb(TK_UNIT_NS, 1, 3), s = tb(TK_UNIT_S, 1, 1);
	tk_timebase half = tb(TK_UNIT_US, 5, 2);
	tk_timebase shark = tb(TK_UNIT_MS, 1, 367483);
	char buf[64];

	CHECK(tk_time_digits(&ns, TK_UNIT_NS) == 3);
	CHECK(tk_time_digits(&ns, TK_UNIT_US) == 6);
	CHECK(tk_time_digits(&ps, TK_UNIT_NS) == 6);
	CHECK(tk_time_digits(&s, TK_UNIT_NS) == 0);
	CHECK(tk_time_digits(&half, TK_UNIT_NS) == 0);
	CHECK(tk_time_digits(&half, TK_UNIT_US) == 3);
	CHECK(tk_time_digits(&third, TK_UNIT_NS) == 4);
	CHECK(tk_time_digits(&shark, TK_UNIT_NS) == 3);
	CHECK(tk_time_digits(&shark, TK_UNIT_MS) == 9);
	/* exact ones are written as tk_time_format writes them */
	CHECK(tk_time_format_decimal(1500, &ps, TK_UNIT_NS, buf, sizeof(buf)) == 3);
	CHECK_STR(buf, "1.5");
	CHECK(tk_time_format_decimal(1, &ps, TK_UNIT_S, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "0.000000000001");
	CHECK(tk_time_format_decimal(3, &half, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "7500");
	CHECK(tk_time_format_decimal(UINT64_MAX, &s, TK_UNIT_PS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "18446744073709551615000000000000");
	/* rounded half up at the last place, trailing zeros dropped */
	CHECK(tk_time_format_decimal(1, &third, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "0.3333");
	CHECK(tk_time_format_decimal(2, &third, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "0.6667");
	CHECK(tk_time_format_decimal(6, &third, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "2");
	CHECK(tk_time_format_decimal(670, &shark, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "1823.214");
	/* 2536 ticks are 6900.999502 ns: the carry reaches the integer */
	CHECK(tk_time_format_decimal(2536, &shark, TK_UNIT_NS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "6901");
	CHECK(tk_time_format_decimal(24305936302ull, &shark, TK_UNIT_MS, buf,
				     sizeof(buf)) > 0);
	CHECK_STR(buf, "66141.6617966");
	CHECK(tk_time_format_decimal(UINT64_MAX, &s, TK_UNIT_PS, buf, 5) == TK_E_RANGE);
}

/* a value that fits, where the product of the ticks and the tick's ratio
 * does not fit 128 bits (it was TK_E_RANGE): computed exactly, as
 * tk_time_convert() computes it */
static void test_format_wide(void)
{
	/* 10^18 / 3^40 s: 3^40 ticks are 10^30 ps (the 3^40 cancels) */
	tk_timebase a = tb(TK_UNIT_S, 1000000000000000000ull, 12157665459056928801ull);
	/* (2^64 - 1) / 2^63 s: a finite decimal of 51 places in ps */
	tk_timebase b = tb(TK_UNIT_S, UINT64_MAX, 1ull << 63);
	/* (2^64 - 1) / (2^64 - 3) s: no finite decimal, a fraction of a
	 * numerator beyond 128 bits */
	tk_timebase c = tb(TK_UNIT_S, UINT64_MAX, UINT64_MAX - 2);
	char buf[256];

	CHECK(tk_time_format(12157665459056928801ull, &a, TK_UNIT_PS, buf,
			     sizeof(buf)) > 0);
	CHECK_STR(buf, "1000000000000000000000000000000");
	CHECK(tk_time_format_decimal(12157665459056928801ull, &a, TK_UNIT_PS,
				     buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "1000000000000000000000000000000");
	CHECK(tk_time_format(UINT64_MAX, &b, TK_UNIT_PS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "36893488147419103228000000000000."
		       "000000108420217248550443400745280086994171142578125");
	CHECK(tk_time_format(UINT64_MAX, &c, TK_UNIT_PS, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "340282366920938463426481119284349108225000000000000"
		       "/18446744073709551613");
	CHECK(tk_time_format_decimal(UINT64_MAX, &c, TK_UNIT_PS, buf,
				     sizeof(buf)) > 0);
	CHECK_STR(buf, "18446744073709551617000000000000");
	/* too small a buffer is still TK_E_RANGE */
	CHECK(tk_time_format(UINT64_MAX, &c, TK_UNIT_PS, buf, 60) == TK_E_RANGE);
}

int main(void)
{
	test_convert();
	test_parse();
	test_format();
	test_format_decimal();
	test_format_wide();
	TEST_DONE();
}
