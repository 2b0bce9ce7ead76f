// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of hist.c: bucket bounds, the figures taken from a
 * histogram, merging, and the 128-bit and fixed-point arithmetic behind
 * them. Table-driven; the expected values were worked out by hand from
 * hist.h's definitions, not by running hist.c.
 *
 * hist.c is #included here, its only copy in the module; heap.c and
 * stats.c are in tb_kunit.c.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "../../hist.c"

#include "tb_kunit.h"

/* A histogram freed with the test, of exactly its size for KASAN. */
static struct tb_hist *tb_kunit_hist(struct kunit *test)
{
	struct tb_hist *h = kunit_kmalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	tb_hist_init(h);
	return h;
}

struct tb_bucket_case {
	const char *name;
	u64 v;
	unsigned int bucket;
	u64 low, high;		/* of that bucket */
};

static const struct tb_bucket_case tb_bucket_cases[] = {
	{ "0", 0, 0, 0, 0 },
	{ "1", 1, 1, 1, 1 },
	{ "4095, the last exact bucket", 4095, 4095, 4095, 4095 },
	{ "4096, the first split one", 4096, 4096, 4096, 4111 },
	{ "4111, its last value", 4111, 4096, 4096, 4111 },
	{ "4112, the next bucket", 4112, 4097, 4112, 4127 },
	{ "5000", 5000, 4152, 4992, 5007 },
	{ "8191, the top of 2^12", 8191, 4351, 8176, 8191 },
	{ "8192, twice as wide from 2^13", 8192, 4352, 8192, 8223 },
	{ "10^6", 1000000, 6120, 999424, 1001471 },
	{ "2^63", 1ULL << 63, 17152, 1ULL << 63, 0x807fffffffffffffULL },
	{ "U64_MAX, the last bucket", U64_MAX, TB_HIST_BUCKETS - 1,
	  0xff80000000000000ULL, U64_MAX },
};

KUNIT_ARRAY_PARAM_DESC(tb_bucket, tb_bucket_cases, name);

static void tb_hist_bucket_test(struct kunit *test)
{
	const struct tb_bucket_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, tb_hist_bucket(c->v), c->bucket);
	KUNIT_EXPECT_EQ(test, tb_hist_bucket_low(c->bucket), c->low);
	KUNIT_EXPECT_EQ(test, tb_hist_bucket_high(c->bucket), c->high);
}

/*
 * The buckets tile 0..U64_MAX in order, each holds its bounds, and a low
 * bound is within 1/256 of every value in its bucket.
 */
static void tb_hist_buckets_tile_test(struct kunit *test)
{
	unsigned int b;

	KUNIT_EXPECT_EQ(test, tb_hist_bucket_low(0), 0);
	KUNIT_EXPECT_EQ(test, tb_hist_bucket_high(TB_HIST_BUCKETS - 1), U64_MAX);
	for (b = 0; b < TB_HIST_BUCKETS; b++) {
		u64 low = tb_hist_bucket_low(b), high = tb_hist_bucket_high(b);

		KUNIT_ASSERT_LE_MSG(test, low, high, "bucket %u", b);
		KUNIT_ASSERT_EQ_MSG(test, tb_hist_bucket(low), b, "bucket %u", b);
		KUNIT_ASSERT_EQ_MSG(test, tb_hist_bucket(high), b, "bucket %u", b);
		KUNIT_ASSERT_LE_MSG(test, high - low, low >> TB_HIST_SUB_BITS,
				    "bucket %u", b);
		if (b + 1 < TB_HIST_BUCKETS)
			KUNIT_ASSERT_EQ_MSG(test, tb_hist_bucket_low(b + 1),
					    high + 1, "after bucket %u", b);
	}
	/* past the last bucket, the bounds are the last one's */
	KUNIT_EXPECT_EQ(test, tb_hist_bucket_low(TB_HIST_BUCKETS + 7),
			tb_hist_bucket_low(TB_HIST_BUCKETS - 1));
	KUNIT_EXPECT_EQ(test, tb_hist_bucket_high(TB_HIST_BUCKETS + 7), U64_MAX);
}

struct tb_hist_case {
	const char *name;
	const u64 *v;		/* recorded after the fill */
	size_t n;
	u64 fill;		/* recorded nr_fill times first */
	size_t nr_fill;
	u64 min, max, median;
	u64 p50, p99, p100;	/* tb_hist_percentile() */
	u64 mean_whole;
	u32 mean_milli;
};

#define LAST_LOW	0xff80000000000000ULL	/* the last bucket's low bound */

static const struct tb_hist_case tb_hist_cases[] = {
	{
		.name = "empty",
		.v = NULL, .n = 0, .min = U64_MAX, .max = 0, .median = 0,
		.p50 = 0, .p99 = 0, .p100 = 0, .mean_whole = 0, .mean_milli = 0,
	}, {
		.name = "one value",
		TB_SAMPLES(7), .min = 7, .max = 7, .median = 7,
		.p50 = 7, .p99 = 7, .p100 = 7, .mean_whole = 7, .mean_milli = 0,
	}, {
		.name = "two values, the midpoint rounds down",
		TB_SAMPLES(5, 4), .min = 4, .max = 5, .median = 4,
		.p50 = 4, .p99 = 5, .p100 = 5, .mean_whole = 4, .mean_milli = 500,
	}, {
		.name = "odd n",
		TB_SAMPLES(5, 1, 9, 3, 12), .min = 1, .max = 12, .median = 5,
		.p50 = 5, .p99 = 12, .p100 = 12, .mean_whole = 6, .mean_milli = 0,
	}, {
		.name = "mean rounds down to three decimals",
		TB_SAMPLES(1, 2, 2), .min = 1, .max = 2, .median = 2,
		.p50 = 2, .p99 = 2, .p100 = 2, .mean_whole = 1, .mean_milli = 666,
	}, {
		.name = "values sharing a bucket read as its low bound",
		TB_SAMPLES(5002, 5000, 5001), .min = 5000, .max = 5002,
		.median = 4992, .p50 = 4992, .p99 = 4992, .p100 = 4992,
		.mean_whole = 5001, .mean_milli = 0,
	}, {
		.name = "either side of bucket edges",
		TB_SAMPLES(8192, 4095, 4112, 8191, 4096, 4111),
		.min = 4095, .max = 8192, .median = 4104,
		.p50 = 4096, .p99 = 8192, .p100 = 8192,
		.mean_whole = 5466, .mean_milli = 166,
	}, {
		.name = "U64_MAX twice: the sum needs 65 bits",
		TB_SAMPLES(U64_MAX, U64_MAX), .min = U64_MAX, .max = U64_MAX,
		.median = LAST_LOW, .p50 = LAST_LOW, .p99 = LAST_LOW,
		.p100 = LAST_LOW, .mean_whole = U64_MAX, .mean_milli = 0,
	}, {
		.name = "U64_MAX and 0",
		TB_SAMPLES(U64_MAX, 0), .min = 0, .max = U64_MAX,
		.median = LAST_LOW / 2, .p50 = 0, .p99 = LAST_LOW,
		.p100 = LAST_LOW, .mean_whole = U64_MAX / 2, .mean_milli = 500,
	}, {
		.name = "4096 x 40 and one 10^6",
		TB_SAMPLES(1000000), .fill = 40, .nr_fill = 4096,
		.min = 40, .max = 1000000, .median = 40,
		.p50 = 40, .p99 = 40, .p100 = 999424,
		.mean_whole = 284, .mean_milli = 71,
	},
};

KUNIT_ARRAY_PARAM_DESC(tb_hist, tb_hist_cases, name);

/*
 * Record the values in one histogram, and alternately in two more: merged,
 * those two must be the first, bucket for bucket.
 */
static void tb_hist_figures_test(struct kunit *test)
{
	const struct tb_hist_case *c = test->param_value;
	struct tb_hist *h = tb_kunit_hist(test);
	struct tb_hist *a = tb_kunit_hist(test), *b = tb_kunit_hist(test);
	size_t nr = c->nr_fill + c->n, i;
	struct tb_fixed mean;

	for (i = 0; i < nr; i++) {
		u64 v = i < c->nr_fill ? c->fill : c->v[i - c->nr_fill];

		tb_hist_add(h, v);
		tb_hist_add(i & 1 ? b : a, v);
	}
	KUNIT_EXPECT_EQ(test, h->nr, nr);
	KUNIT_EXPECT_EQ(test, h->min, c->min);
	KUNIT_EXPECT_EQ(test, h->max, c->max);
	KUNIT_EXPECT_EQ(test, tb_hist_median(h), c->median);
	KUNIT_EXPECT_EQ(test, tb_hist_percentile(h, 50, 100), c->p50);
	KUNIT_EXPECT_EQ(test, tb_hist_percentile(h, 99, 100), c->p99);
	KUNIT_EXPECT_EQ(test, tb_hist_percentile(h, 1, 1), c->p100);
	mean = tb_hist_mean(h);
	KUNIT_EXPECT_EQ(test, mean.whole, c->mean_whole);
	KUNIT_EXPECT_EQ(test, mean.milli, c->mean_milli);

	tb_hist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->nr, h->nr);
	KUNIT_EXPECT_EQ(test, a->min, h->min);
	KUNIT_EXPECT_EQ(test, a->max, h->max);
	KUNIT_EXPECT_EQ(test, a->sum.hi, h->sum.hi);
	KUNIT_EXPECT_EQ(test, a->sum.lo, h->sum.lo);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(a->count, h->count,
					    sizeof(h->count)),
			      "merged bucket counts differ");
}

struct tb_mul_case {
	const char *name;
	u64 a, b;
	struct tb_u128 product;
};

static const struct tb_mul_case tb_mul_cases[] = {
	{ "0 x 5", 0, 5, { 0, 0 } },
	{ "2^32 x 2^32", 1ULL << 32, 1ULL << 32, { 1, 0 } },
	{ "(2^32 - 1)^2", 0xffffffff, 0xffffffff, { 0, 0xfffffffe00000001ULL } },
	{ "U64_MAX x 2", U64_MAX, 2, { 1, U64_MAX - 1 } },
	{ "U64_MAX x U64_MAX", U64_MAX, U64_MAX, { U64_MAX - 1, 1 } },
	{ "a shift by 4", 0x123456789abcdef0ULL, 0x10,
	  { 1, 0x23456789abcdef00ULL } },
};

KUNIT_ARRAY_PARAM_DESC(tb_mul, tb_mul_cases, name);

static void tb_u128_mul_test(struct kunit *test)
{
	const struct tb_mul_case *c = test->param_value;
	struct tb_u128 p = tb_u128_mul(c->a, c->b);

	KUNIT_EXPECT_EQ(test, p.hi, c->product.hi);
	KUNIT_EXPECT_EQ(test, p.lo, c->product.lo);
}

struct tb_div_case {
	const char *name;
	struct tb_u128 n;
	u64 d;
	u64 quotient, rem;
};

static const struct tb_div_case tb_div_cases[] = {
	{ "64-bit 10 / 3", { 0, 10 }, 3, 3, 1 },
	{ "U64_MAX / 1", { 0, U64_MAX }, 1, U64_MAX, 0 },
	{ "2^64 / 2", { 1, 0 }, 2, 1ULL << 63, 0 },
	{ "2^64 / 1 saturates", { 1, 0 }, 1, U64_MAX, 0 },
	{ "U64_MAX^2 / U64_MAX", { U64_MAX - 1, 1 }, U64_MAX, U64_MAX, 0 },
	{ "(5 * 2^64 + 7) / 10", { 5, 7 }, 10, 1ULL << 63, 7 },
	{ "(2^127 - 1) / 2^63, the 65th bit", { (1ULL << 63) - 1, U64_MAX },
	  1ULL << 63, U64_MAX, (1ULL << 63) - 1 },
	{ "saturated, the remainder still exact", { 3, 1 }, 2, U64_MAX, 1 },
};

KUNIT_ARRAY_PARAM_DESC(tb_div, tb_div_cases, name);

static void tb_u128_div_test(struct kunit *test)
{
	const struct tb_div_case *c = test->param_value;
	u64 rem = 0x5a5a5a5a5a5a5a5aULL;

	KUNIT_EXPECT_EQ(test, tb_u128_div(c->n, c->d, &rem), c->quotient);
	KUNIT_EXPECT_EQ(test, rem, c->rem);
	KUNIT_EXPECT_EQ(test, tb_u128_div(c->n, c->d, NULL), c->quotient);
}

struct tb_ratio_case {
	const char *name;
	struct tb_u128 n;
	u64 d;
	struct tb_fixed expected;
};

static const struct tb_ratio_case tb_ratio_cases[] = {
	{ "0 / 7", { 0, 0 }, 7, { 0, 0 } },
	{ "10 / 4", { 0, 10 }, 4, { 2, 500 } },
	{ "1 / 3 rounds down", { 0, 1 }, 3, { 0, 333 } },
	{ "2 / 3 rounds down", { 0, 2 }, 3, { 0, 666 } },
	{ "U64_MAX / U64_MAX", { 0, U64_MAX }, U64_MAX, { 1, 0 } },
	{ "U64_MAX / 2", { 0, U64_MAX }, 2, { U64_MAX / 2, 500 } },
	{ "2^64 / 3", { 1, 0 }, 3, { 6148914691236517205ULL, 333 } },
	{ "2^64 / 1 saturates", { 1, 0 }, 1, { U64_MAX, 999 } },
};

KUNIT_ARRAY_PARAM_DESC(tb_ratio, tb_ratio_cases, name);

static void tb_fixed_ratio_test(struct kunit *test)
{
	const struct tb_ratio_case *c = test->param_value;
	struct tb_fixed f = tb_fixed_ratio(c->n, c->d);

	KUNIT_EXPECT_EQ(test, f.whole, c->expected.whole);
	KUNIT_EXPECT_EQ(test, f.milli, c->expected.milli);
}

static struct kunit_case tb_hist_test_cases[] = {
	KUNIT_CASE_PARAM(tb_hist_bucket_test, tb_bucket_gen_params),
	KUNIT_CASE(tb_hist_buckets_tile_test),
	KUNIT_CASE_PARAM(tb_hist_figures_test, tb_hist_gen_params),
	KUNIT_CASE_PARAM(tb_u128_mul_test, tb_mul_gen_params),
	KUNIT_CASE_PARAM(tb_u128_div_test, tb_div_gen_params),
	KUNIT_CASE_PARAM(tb_fixed_ratio_test, tb_ratio_gen_params),
	{}
};

static struct kunit_suite tb_hist_test_suite = {
	.name = "tracerbench_hist",
	.test_cases = tb_hist_test_cases,
};

kunit_test_suites(&tb_hist_test_suite);
