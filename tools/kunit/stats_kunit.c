// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of stats.c: selection, median and maximum, table-driven with
 * hand-computed expectations, plus large inputs of a few repeated values,
 * the shape real samples have. The tables' means are checked against the
 * histogram's exact sum, which is where the module takes means from.
 */
#include <linux/limits.h>
#include <linux/slab.h>

#include "../../hist.h"
#include "tb_kunit.h"

#define HALF	(U64_MAX / 2 + 1)

struct tb_summary_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 median, mean, max;
};

static const struct tb_summary_case tb_summary_cases[] = {
	{ "n = 0", NULL, 0, 0, 0, 0 },
	{ "n = 1", TB_SAMPLES(7), 7, 7, 7 },
	{ "n = 1, U64_MAX", TB_SAMPLES(U64_MAX), U64_MAX, U64_MAX, U64_MAX },
	{ "n = 2", TB_SAMPLES(3, 8), 5, 5, 8 },
	{ "n = 2, reversed", TB_SAMPLES(8, 3), 5, 5, 8 },
	{ "n = 2, midpoint rounds down", TB_SAMPLES(5, 4), 4, 4, 5 },
	{ "odd n", TB_SAMPLES(5, 1, 9, 3, 12), 5, 6, 12 },
	{ "even n", TB_SAMPLES(10, 2, 40, 6), 8, 14, 40 },
	{ "all equal", TB_SAMPLES(4, 4, 4, 4, 4, 4), 4, 4, 4 },
	{ "all zero", TB_SAMPLES(0, 0, 0, 0), 0, 0, 0 },
	{ "duplicates", TB_SAMPLES(3, 1, 3, 3, 2, 1, 3), 3, 2, 3 },
	{ "duplicates straddling the middle", TB_SAMPLES(2, 2, 7, 7, 7, 2),
	  4, 4, 7 },
	{ "sorted", TB_SAMPLES(1, 2, 3, 5, 8, 13, 21, 34), 6, 10, 34 },
	{ "reversed", TB_SAMPLES(34, 21, 13, 8, 5, 3, 2, 1), 6, 10, 34 },
	{ "U64_MAX and U64_MAX - 1", TB_SAMPLES(U64_MAX, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX - 1, U64_MAX },
	{ "U64_MAX and 0", TB_SAMPLES(U64_MAX, 0), HALF - 1, HALF - 1, U64_MAX },
	{ "U64_MAX and 1", TB_SAMPLES(1, U64_MAX), HALF, HALF, U64_MAX },
	{ "sum of two just overflows", TB_SAMPLES(HALF, HALF),
	  HALF, HALF, HALF },
	{ "mean remainders carry",
	  TB_SAMPLES(U64_MAX - 1, U64_MAX - 1, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX - 1, U64_MAX - 1 },
	{ "mean of U64_MAX, U64_MAX, 2", TB_SAMPLES(U64_MAX, 2, U64_MAX),
	  U64_MAX, 12297829382473034410ULL, U64_MAX },
	{ "one outlier near U64_MAX", TB_SAMPLES(3, U64_MAX, 1, 2),
	  2, 4611686018427387905ULL, U64_MAX },
};

KUNIT_ARRAY_PARAM_DESC(tb_summary, tb_summary_cases, name);

/* The mean of @v, as the module takes it: from a histogram's exact sum. */
static void tb_expect_hist_mean(struct kunit *test, const u64 *v, size_t n,
				u64 mean, u64 max)
{
	struct tb_hist *h = kunit_kmalloc(test, sizeof(*h), GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	tb_hist_init(h);
	for (i = 0; i < n; i++)
		tb_hist_add(h, v[i]);
	KUNIT_EXPECT_EQ(test, tb_hist_mean(h).whole, mean);
	KUNIT_EXPECT_EQ(test, h->max, max);
}

static void tb_median_mean_max_test(struct kunit *test)
{
	const struct tb_summary_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);

	KUNIT_EXPECT_EQ(test, tb_median(v, c->n), c->median);
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, v, c->v, c->n),
			      "tb_median() lost or changed values");
	KUNIT_EXPECT_EQ(test, tb_max(c->v, c->n), c->max);
	tb_expect_hist_mean(test, c->v, c->n, c->mean, c->max);
}

struct tb_select_case {
	const char *name;
	const u64 *v;
	size_t n, k;
	u64 expected;
};

static const struct tb_select_case tb_select_cases[] = {
	{ "n = 1", TB_SAMPLES(5), 0, 5 },
	{ "minimum", TB_SAMPLES(5, 1, 9, 3, 7), 0, 1 },
	{ "maximum", TB_SAMPLES(5, 1, 9, 3, 7), 4, 9 },
	{ "middle", TB_SAMPLES(5, 1, 9, 3, 7), 2, 5 },
	{ "duplicates, k in the upper run",
	  TB_SAMPLES(2, 1, 2, 1, 2, 1, 2), 3, 2 },
	{ "duplicates, k in the lower run",
	  TB_SAMPLES(2, 1, 2, 1, 2, 1, 2), 2, 1 },
	{ "all equal", TB_SAMPLES(6, 6, 6, 6), 1, 6 },
	{ "sorted", TB_SAMPLES(1, 2, 3, 4, 5, 6, 7, 8), 5, 6 },
	{ "reversed", TB_SAMPLES(8, 7, 6, 5, 4, 3, 2, 1), 5, 6 },
	{ "organ pipe", TB_SAMPLES(1, 3, 5, 7, 6, 4, 2), 3, 4 },
	{ "extremes, k = 2", TB_SAMPLES(U64_MAX, 0, U64_MAX, 1), 2, U64_MAX },
	{ "extremes, k = 1", TB_SAMPLES(U64_MAX, 0, U64_MAX, 1), 1, 1 },
};

KUNIT_ARRAY_PARAM_DESC(tb_select, tb_select_cases, name);

static void tb_select_test(struct kunit *test)
{
	const struct tb_select_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);

	KUNIT_EXPECT_EQ(test, tb_select(v, c->n, c->k), c->expected);
	tb_kunit_expect_selected(test, v, tb_kunit_sorted(test, c->v, c->n),
				 c->n, c->k);
}

struct tb_big_case {
	const char *name;
	size_t n, nr_a;
	u64 a, b;
	u64 median, mean, max;
};

static const struct tb_big_case tb_big_cases[] = {
	{ "4096 x U64_MAX", 4096, 4096, U64_MAX, 0,
	  U64_MAX, U64_MAX, U64_MAX },
	{ "4095 x U64_MAX, 1 x U64_MAX - 1", 4096, 4095, U64_MAX, U64_MAX - 1,
	  U64_MAX, U64_MAX - 1, U64_MAX },
	{ "2048 x U64_MAX, 2048 x U64_MAX - 1", 4096, 2048,
	  U64_MAX, U64_MAX - 1, U64_MAX - 1, U64_MAX - 1, U64_MAX },
	{ "3001 x U64_MAX - 1", 3001, 3001, U64_MAX - 1, 0,
	  U64_MAX - 1, U64_MAX - 1, U64_MAX - 1 },
	{ "501 x U64_MAX, 500 x 0", 1001, 501, U64_MAX, 0,
	  U64_MAX, 9232586194733751607ULL, U64_MAX },
	{ "9000 x 40, 1000 x 41", 10000, 9000, 40, 41, 40, 40, 41 },
};

KUNIT_ARRAY_PARAM_DESC(tb_big, tb_big_cases, name);

static void tb_big_test(struct kunit *test)
{
	const struct tb_big_case *c = test->param_value;
	u64 *in, *v, *sorted, state = 0x9e3779b97f4a7c15ULL;
	size_t i;

	in = kunit_kmalloc_array(test, c->n, sizeof(*in), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in);
	for (i = 0; i < c->n; i++)
		in[i] = i < c->nr_a ? c->a : c->b;
	/* Fisher-Yates with an LCG: the same order on every run */
	for (i = c->n - 1; i > 0; i--) {
		size_t j;
		u64 t;

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (state >> 33) % (i + 1);
		t = in[i];
		in[i] = in[j];
		in[j] = t;
	}

	v = tb_kunit_dup(test, in, c->n);
	KUNIT_EXPECT_EQ(test, tb_median(v, c->n), c->median);
	KUNIT_EXPECT_EQ(test, tb_max(in, c->n), c->max);
	tb_expect_hist_mean(test, in, c->n, c->mean, c->max);
	v = tb_kunit_dup(test, in, c->n);
	sorted = tb_kunit_sorted(test, in, c->n);
	KUNIT_EXPECT_EQ(test, tb_select(v, c->n, c->n / 3), sorted[c->n / 3]);
	tb_kunit_expect_selected(test, v, sorted, c->n, c->n / 3);
}

static struct kunit_case tb_stats_test_cases[] = {
	KUNIT_CASE_PARAM(tb_median_mean_max_test, tb_summary_gen_params),
	KUNIT_CASE_PARAM(tb_select_test, tb_select_gen_params),
	KUNIT_CASE_PARAM(tb_big_test, tb_big_gen_params),
	{}
};

static struct kunit_suite tb_stats_test_suite = {
	.name = "tracerbench_stats",
	.test_cases = tb_stats_test_cases,
};

kunit_test_suites(&tb_stats_test_suite);
