// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of stats.c: selection, median, mean, maximum, percentile and
 * tb_summarize(), table-driven with hand-computed expectations, plus large
 * inputs of a few repeated values, the shape real samples have.
 */
#include <linux/limits.h>
#include <linux/slab.h>

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

static void tb_median_mean_max_test(struct kunit *test)
{
	const struct tb_summary_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);
	struct tb_summary s;

	KUNIT_EXPECT_EQ(test, tb_median(v, c->n), c->median);
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, v, c->v, c->n),
			      "tb_median() lost or changed values");
	KUNIT_EXPECT_EQ(test, tb_mean(c->v, c->n), c->mean);
	KUNIT_EXPECT_EQ(test, tb_max(c->v, c->n), c->max);

	v = tb_kunit_dup(test, c->v, c->n);
	memset(&s, 0xa5, sizeof(s));
	tb_summarize(v, c->n, 1, &s);
	KUNIT_EXPECT_EQ(test, s.median, c->median);
	KUNIT_EXPECT_EQ(test, s.mean, c->mean);
	KUNIT_EXPECT_EQ(test, s.max, c->max);
	if (c->n)
		KUNIT_EXPECT_EQ_MSG(test, v[c->n - 1], c->max,
				    "tb_summarize(top = 1) leaves the max last");
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

struct tb_percentile_case {
	const char *name;
	const u64 *v;
	size_t n;
	unsigned int pct;
	u64 expected;
};

/* The examples of the nearest-rank method in Wikipedia's "Percentile". */
#define WIKI5	TB_SAMPLES(40, 15, 50, 35, 20)
#define WIKI10	TB_SAMPLES(16, 8, 3, 20, 10, 6, 15, 8, 13, 7)

static const struct tb_percentile_case tb_percentile_cases[] = {
	{ "pct 0 clamps to 1", WIKI5, 0, 15 },
	{ "pct 5", WIKI5, 5, 15 },
	{ "pct 30", WIKI5, 30, 20 },
	{ "pct 40, exact rank", WIKI5, 40, 20 },
	{ "pct 50", WIKI5, 50, 35 },
	{ "pct 100", WIKI5, 100, 50 },
	{ "pct 101 clamps to 100", WIKI5, 101, 50 },
	{ "pct UINT_MAX clamps to 100", WIKI5, UINT_MAX, 50 },
	{ "n = 10, pct 25", WIKI10, 25, 7 },
	{ "n = 10, pct 50", WIKI10, 50, 8 },
	{ "n = 10, pct 75", WIKI10, 75, 15 },
	{ "n = 10, pct 90", WIKI10, 90, 16 },
	{ "n = 10, pct 91", WIKI10, 91, 20 },
	{ "n = 0", NULL, 0, 50, 0 },
	{ "n = 1, pct 1", TB_SAMPLES(42), 1, 42 },
	{ "n = 2, pct 50", TB_SAMPLES(9, 1), 50, 1 },
	{ "n = 2, pct 51", TB_SAMPLES(9, 1), 51, 9 },
	{ "n = 3, pct 33", TB_SAMPLES(U64_MAX, 0, U64_MAX - 1), 33, 0 },
	{ "n = 3, pct 34", TB_SAMPLES(U64_MAX, 0, U64_MAX - 1), 34,
	  U64_MAX - 1 },
	{ "n = 3, pct 67", TB_SAMPLES(U64_MAX, 0, U64_MAX - 1), 67, U64_MAX },
	{ "duplicates, pct 33", TB_SAMPLES(5, 5, 1, 5, 1, 5), 33, 1 },
	{ "duplicates, pct 50", TB_SAMPLES(5, 5, 1, 5, 1, 5), 50, 5 },
};

KUNIT_ARRAY_PARAM_DESC(tb_percentile, tb_percentile_cases, name);

static void tb_percentile_test(struct kunit *test)
{
	const struct tb_percentile_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);

	KUNIT_EXPECT_EQ(test, tb_percentile(v, c->n, c->pct), c->expected);
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, v, c->v, c->n),
			      "tb_percentile() lost or changed values");
}

struct tb_summarize_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 median, mean, max;
	size_t top;
	const u64 *kept;	/* expected in v[n - top..n - 1] */
	size_t nr_kept;
};

static const u64 seven[] = { 5, 1, 9, 3, 7, 2, 15 };
static const u64 six[] = { 10, 2, 40, 6, 40, 1 };

#define SEVEN	.v = seven, .n = ARRAY_SIZE(seven),			\
		.median = 5, .mean = 6, .max = 15
#define SIX	.v = six, .n = ARRAY_SIZE(six),				\
		.median = 8, .mean = 16, .max = 40
#define KEPT(...)	TB_U64S(kept, nr_kept, __VA_ARGS__)

static const struct tb_summarize_case tb_summarize_cases[] = {
	{ "top 0", SEVEN, .top = 0, .kept = NULL, .nr_kept = 0 },
	{ "top 1", SEVEN, .top = 1, KEPT(15) },
	{ "top 2, within the upper half", SEVEN, .top = 2, KEPT(9, 15) },
	{ "top n - n/2, the upper half", SEVEN, .top = 4, KEPT(5, 7, 9, 15) },
	{ "top n - n/2 + 1, beyond the upper half", SEVEN, .top = 5,
	  KEPT(3, 5, 7, 9, 15) },
	{ "top n", SEVEN, .top = 7, KEPT(1, 2, 3, 5, 7, 9, 15) },
	{ "top SIZE_MAX", SEVEN, .top = SIZE_MAX, KEPT(1, 2, 3, 5, 7, 9, 15) },
	{ "even n, top 2, duplicates", SIX, .top = 2, KEPT(40, 40) },
	{ "even n, top n/2", SIX, .top = 3, KEPT(10, 40, 40) },
	{ "even n, top n/2 + 1", SIX, .top = 4, KEPT(6, 10, 40, 40) },
	{ "n = 0", NULL, 0, 0, 0, 0, .top = 3, .kept = NULL, .nr_kept = 0 },
	{ "n = 1, top larger than n", TB_SAMPLES(7), 7, 7, 7, .top = 5,
	  KEPT(7) },
	{ "n = 2, top 1, U64_MAX", TB_SAMPLES(U64_MAX, 1), HALF, HALF, U64_MAX,
	  .top = 1, KEPT(U64_MAX) },
};

KUNIT_ARRAY_PARAM_DESC(tb_summarize, tb_summarize_cases, name);

static void tb_summarize_test(struct kunit *test)
{
	const struct tb_summarize_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);
	struct tb_summary s;

	KUNIT_ASSERT_LE_MSG(test, c->nr_kept, c->n, "bad table row");
	memset(&s, 0xa5, sizeof(s));
	tb_summarize(v, c->n, c->top, &s);
	KUNIT_EXPECT_EQ(test, s.median, c->median);
	KUNIT_EXPECT_EQ(test, s.mean, c->mean);
	KUNIT_EXPECT_EQ(test, s.max, c->max);
	KUNIT_EXPECT_TRUE_MSG(test,
			      tb_kunit_same_values(test, v + c->n - c->nr_kept,
						   c->kept, c->nr_kept),
			      "v[n - %zu..n - 1] are not the largest values",
			      c->nr_kept);
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, v, c->v, c->n),
			      "tb_summarize() lost or changed values");
}

/* @nr_a copies of @a and n - nr_a of @b, in an order of a fixed shuffle. */
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
	struct tb_summary s;
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
	KUNIT_EXPECT_EQ(test, tb_mean(in, c->n), c->mean);
	KUNIT_EXPECT_EQ(test, tb_max(in, c->n), c->max);
	v = tb_kunit_dup(test, in, c->n);
	tb_summarize(v, c->n, 10, &s);
	KUNIT_EXPECT_EQ(test, s.median, c->median);
	KUNIT_EXPECT_EQ(test, s.mean, c->mean);
	KUNIT_EXPECT_EQ(test, s.max, c->max);
	v = tb_kunit_dup(test, in, c->n);
	sorted = tb_kunit_sorted(test, in, c->n);
	KUNIT_EXPECT_EQ(test, tb_select(v, c->n, c->n / 3), sorted[c->n / 3]);
	tb_kunit_expect_selected(test, v, sorted, c->n, c->n / 3);
}

static struct kunit_case tb_stats_test_cases[] = {
	KUNIT_CASE_PARAM(tb_median_mean_max_test, tb_summary_gen_params),
	KUNIT_CASE_PARAM(tb_select_test, tb_select_gen_params),
	KUNIT_CASE_PARAM(tb_percentile_test, tb_percentile_gen_params),
	KUNIT_CASE_PARAM(tb_summarize_test, tb_summarize_gen_params),
	KUNIT_CASE_PARAM(tb_big_test, tb_big_gen_params),
	{}
};

static struct kunit_suite tb_stats_test_suite = {
	.name = "tracerbench_stats",
	.test_cases = tb_stats_test_cases,
};

kunit_test_suites(&tb_stats_test_suite);
