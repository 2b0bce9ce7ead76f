// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of stats.c: selection, median and maximum, table-driven with
 * hand-computed expectations, plus large inputs of a few repeated values,
 * the shape real samples have. The tables' means are checked against the
 * histogram's exact sum, which is where the module takes means from. The
 * tables are shared with the host unit tests: tools/cases/stats_cases.h.
 */
#include <linux/slab.h>

#include "../../hist.h"
#include "tb_kunit.h"
#include "../cases/stats_cases.h"

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

KUNIT_ARRAY_PARAM_DESC(tb_select, tb_select_cases, name);

static void tb_select_test(struct kunit *test)
{
	const struct tb_select_case *c = test->param_value;
	u64 *v = tb_kunit_dup(test, c->v, c->n);

	KUNIT_EXPECT_EQ(test, tb_select(v, c->n, c->k), c->expected);
	tb_kunit_expect_selected(test, v, tb_kunit_sorted(test, c->v, c->n),
				 c->n, c->k);
}

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
