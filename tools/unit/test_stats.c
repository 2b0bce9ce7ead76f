// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of stats.c with hand-computed expectations, plus inputs
 * built to drive tb_select() into its heapsort fallback. The tables' means
 * are the histogram's: stats.c has no mean, tb_hist_mean() replaced it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define HALF	(U64_MAX / 2 + 1)

/*
 * @median and @max are checked against tb_median() and tb_max(), @mean and
 * @max again against a histogram of @v (see check_hist_mean()).
 */
struct summary_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 median, mean, max;
};

static const struct summary_case summary_cases[] = {
	{ "n = 0", (const u64[]){ 9 }, 0, 0, 0, 0 },
	{ "n = 1", TB_SAMPLES(7), 7, 7, 7 },
	{ "n = 1, U64_MAX", TB_SAMPLES(U64_MAX), U64_MAX, U64_MAX, U64_MAX },
	{ "n = 2", TB_SAMPLES(3, 8), 5, 5, 8 },
	{ "n = 2, reversed", TB_SAMPLES(8, 3), 5, 5, 8 },
	{ "n = 2, midpoint rounds down", TB_SAMPLES(5, 4), 4, 4, 5 },
	{ "odd n", TB_SAMPLES(5, 1, 9, 3, 12), 5, 6, 12 },
	{ "even n", TB_SAMPLES(10, 2, 40, 6), 8, 14, 40 },
	{ "all equal", TB_SAMPLES(4, 4, 4, 4, 4, 4), 4, 4, 4 },
	{ "all equal, odd n", TB_SAMPLES(9, 9, 9), 9, 9, 9 },
	{ "all zero", TB_SAMPLES(0, 0, 0, 0), 0, 0, 0 },
	{ "duplicates", TB_SAMPLES(3, 1, 3, 3, 2, 1, 3), 3, 2, 3 },
	{ "duplicates straddling the middle", TB_SAMPLES(2, 2, 7, 7, 7, 2),
	  4, 4, 7 },
	{ "sorted", TB_SAMPLES(1, 2, 3, 5, 8, 13, 21, 34), 6, 10, 34 },
	{ "reversed", TB_SAMPLES(34, 21, 13, 8, 5, 3, 2, 1), 6, 10, 34 },
	{ "U64_MAX, U64_MAX, U64_MAX - 1",
	  TB_SAMPLES(U64_MAX, U64_MAX, U64_MAX - 1),
	  U64_MAX, U64_MAX - 1, U64_MAX },
	{ "U64_MAX and U64_MAX - 1", TB_SAMPLES(U64_MAX, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX - 1, U64_MAX },
	{ "U64_MAX and 0", TB_SAMPLES(U64_MAX, 0),
	  HALF - 1, HALF - 1, U64_MAX },
	{ "U64_MAX and 1", TB_SAMPLES(1, U64_MAX), HALF, HALF, U64_MAX },
	{ "sum of two just overflows", TB_SAMPLES(HALF, HALF),
	  HALF, HALF, HALF },
	{ "3 x U64_MAX - 1, the sum needs 66 bits",
	  TB_SAMPLES(U64_MAX - 1, U64_MAX - 1, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX - 1, U64_MAX - 1 },
	{ "mean of U64_MAX, U64_MAX, 2", TB_SAMPLES(U64_MAX, 2, U64_MAX),
	  U64_MAX, 12297829382473034410ULL, U64_MAX },
	{ "one outlier near U64_MAX", TB_SAMPLES(3, U64_MAX, 1, 2),
	  2, 4611686018427387905ULL, U64_MAX },
};

/*
 * The histogram's sum is exact, so the whole part of its mean is the mean
 * rounded down, as stats.c's tb_mean() computed it.
 */
static void check_hist_mean(const u64 *v, size_t n, u64 mean, u64 max)
{
	struct tb_hist *h = unit_hist_of(v, n);

	unit_expect_u64(mean, tb_hist_mean(h).whole, "tb_hist_mean");
	unit_expect_u64(max, h->max, "histogram max");
	free(h);
}

static void run_summary_case(const struct summary_case *c)
{
	u64 *v = unit_dup(c->v, c->n);

	unit_expect_u64(c->median, tb_median(v, c->n), "tb_median");
	unit_expect(ref_same_multiset(v, c->v, c->n),
		    "tb_median did not permute the input");
	unit_expect_u64(c->max, tb_max(c->v, c->n), "tb_max");
	check_hist_mean(c->v, c->n, c->mean, c->max);
	free(v);
}

/* @nr_a copies of @a and n - nr_a copies of @b, shuffled. */
struct big_case {
	const char *name;
	size_t n, nr_a;
	u64 a, b;
	u64 median, mean, max;
};

static const struct big_case big_cases[] = {
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
};

static void run_big_case(const struct big_case *c)
{
	u64 *in = unit_alloc(c->n), *v = unit_alloc(c->n);
	size_t i;

	for (i = 0; i < c->n; i++)
		in[i] = i < c->nr_a ? c->a : c->b;
	for (i = c->n - 1; i > 0; i--) {
		size_t j = unit_rand() % (i + 1);
		u64 t = in[i];

		in[i] = in[j];
		in[j] = t;
	}
	memcpy(v, in, c->n * sizeof(*v));
	unit_expect_u64(c->median, tb_median(v, c->n), "tb_median");
	unit_expect_u64(c->max, tb_max(in, c->n), "tb_max");
	check_hist_mean(in, c->n, c->mean, c->max);
	free(v);
	free(in);
}

struct select_case {
	const char *name;
	const u64 *v;
	size_t n, k;
	u64 expected;
};

static const struct select_case select_cases[] = {
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

static void run_select_case(const struct select_case *c)
{
	u64 *sorted = unit_dup(c->v, c->n), *v = unit_dup(c->v, c->n);

	unit_expect_u64(c->expected, tb_select(v, c->n, c->k),
			"tb_select(k=%zu)", c->k);
	ref_sort(sorted, c->n);
	check_select(c->v, sorted, c->n, c->k, "postcondition");
	free(v);
	free(sorted);
}

/*
 * McIlroy's adversary ("A Killer Adversary for Quicksort", 1999) against a
 * model of tb_select(). Values are fixed lazily: a comparison of two
 * unfixed ("gas") elements fixes one of them below all gas, so every
 * median-of-three picks a pivot from the bottom of the range and each
 * partition peels off only a few elements. Fed the values so fixed, the
 * real tb_select() must take the same path into its heapsort fallback.
 */
struct adversary {
	u64 *val;		/* per element; gas until fixed */
	u64 gas, nr_solid;
	size_t candidate;
};

static int adv_cmp(struct adversary *a, size_t x, size_t y)
{
	if (a->val[x] == a->gas && a->val[y] == a->gas)
		a->val[x == a->candidate ? x : y] = a->nr_solid++;
	if (a->val[x] == a->gas)
		a->candidate = x;
	else if (a->val[y] == a->gas)
		a->candidate = y;
	return (a->val[x] > a->val[y]) - (a->val[x] < a->val[y]);
}

static void adv_swap(size_t *p, size_t i, size_t j)
{
	size_t t = p[i];

	p[i] = p[j];
	p[j] = t;
}

/* tb_select() on element indices; true if it would fall back to tb_sort(). */
static bool adv_select(struct adversary *a, size_t *p, size_t n, size_t k)
{
	size_t lo = 0, hi = n, len;
	unsigned int budget = 2;

	for (len = n; len; len >>= 1)
		budget += 2;
	while (hi - lo > 1) {
		size_t lt = lo, i = lo, gt = hi, x, y, z, pivot;

		if (!budget--)
			return true;
		x = p[lo + (hi - lo) / 4];
		y = p[lo + (hi - lo) / 2];
		z = p[hi - 1 - (hi - lo) / 4];
		if (adv_cmp(a, x, y) > 0) {
			size_t t = x;

			x = y;
			y = t;
		}
		if (adv_cmp(a, z, x) <= 0)
			pivot = x;
		else
			pivot = adv_cmp(a, z, y) < 0 ? z : y;
		while (i < gt) {
			if (adv_cmp(a, p[i], pivot) < 0)
				adv_swap(p, lt++, i++);
			else if (adv_cmp(a, p[i], pivot) > 0)
				adv_swap(p, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return false;
	}
	return false;
}

/* An input of @n values on which tb_select(v, n, k) falls back, or NULL. */
static u64 *adv_input(size_t n, size_t k)
{
	struct adversary a = { .gas = U64_MAX, .candidate = SIZE_MAX };
	size_t *p = malloc(n * sizeof(*p)), i;
	bool fallback;

	a.val = unit_alloc(n);
	if (!p)
		abort();
	for (i = 0; i < n; i++) {
		a.val[i] = a.gas;
		p[i] = i;
	}
	fallback = adv_select(&a, p, n, k);
	free(p);
	if (!fallback) {
		free(a.val);
		return NULL;
	}
	/* never compared with each other, so any values above the solid do */
	for (i = 0; i < n; i++)
		if (a.val[i] == a.gas)
			a.val[i] = n + unit_rand() % n;
	return a.val;
}

struct fallback_case {
	size_t n, k;
};

static const struct fallback_case fallback_cases[] = {
	{ 64, 32 }, { 64, 63 }, { 100, 75 }, { 1000, 500 },
	{ 1001, 500 }, { 1000, 999 }, { 4096, 2048 }, { 4097, 3000 },
};

static void run_fallback_case(const struct fallback_case *c)
{
	u64 *in = adv_input(c->n, c->k), *sorted, *v;
	size_t i;

	if (!unit_expect(in, "the adversary found no fallback input"))
		return;
	sorted = unit_dup(in, c->n);
	ref_sort(sorted, c->n);

	tb_sort_calls = 0;
	check_select(in, sorted, c->n, c->k, "adversary");
	unit_expect_u64(1, tb_sort_calls, "tb_select fallbacks to tb_sort");

	if (c->k == c->n / 2) {
		v = unit_dup(in, c->n);
		tb_sort_calls = 0;
		unit_expect_u64(ref_median(sorted, c->n), tb_median(v, c->n),
				"adversary: tb_median");
		unit_expect_u64(1, tb_sort_calls, "tb_median fallbacks");
		free(v);
		check_all(in, c->n, "adversary");
	}

	/* the control: random input stays within the depth budget */
	for (i = 0; i < c->n; i++)
		in[i] = unit_rand();
	memcpy(sorted, in, c->n * sizeof(*sorted));
	ref_sort(sorted, c->n);
	tb_sort_calls = 0;
	check_select(in, sorted, c->n, c->k, "random");
	unit_expect_u64(0, tb_sort_calls, "random: tb_select fallbacks");

	free(sorted);
	free(in);
}

/*
 * Ordered inputs must stay on the O(n) path: a pivot sampled at the ends
 * degrades on them until the depth budget runs out.
 */
enum ordered_kind { ORDERED_UP, ORDERED_DOWN, ORGAN_PIPE, ALL_EQUAL };

static const struct ordered_case {
	const char *name;
	enum ordered_kind kind;
} ordered_cases[] = {
	{ "sorted",	ORDERED_UP },
	{ "reversed",	ORDERED_DOWN },
	{ "organ pipe",	ORGAN_PIPE },
	{ "all equal",	ALL_EQUAL },
};

#define ORDERED_N	100000

static void fill_ordered(u64 *v, size_t n, enum ordered_kind kind)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case ORDERED_UP:
			v[i] = i;
			break;
		case ORDERED_DOWN:
			v[i] = n - i;
			break;
		case ORGAN_PIPE:
			v[i] = i < n / 2 ? i : n - i;
			break;
		case ALL_EQUAL:
			v[i] = 7;
			break;
		}
	}
}

static void run_ordered_case(const struct ordered_case *c)
{
	const size_t ks[] = { 0, ORDERED_N / 4, ORDERED_N / 2,
			      3 * ORDERED_N / 4, ORDERED_N - 1 };
	u64 *in = unit_alloc(ORDERED_N), *sorted = unit_alloc(ORDERED_N);
	size_t i;

	fill_ordered(sorted, ORDERED_N, c->kind);
	ref_sort(sorted, ORDERED_N);
	tb_sort_calls = 0;
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		fill_ordered(in, ORDERED_N, c->kind);
		check_select(in, sorted, ORDERED_N, ks[i], c->name);
	}
	fill_ordered(in, ORDERED_N, c->kind);
	unit_expect_u64(ref_median(sorted, ORDERED_N), tb_median(in, ORDERED_N),
			"%s: tb_median", c->name);
	unit_expect_u64(0, tb_sort_calls, "heapsort fallbacks");
	free(sorted);
	free(in);
}

static void run_stats(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(summary_cases); i++) {
		unit_begin("summary: %s", summary_cases[i].name);
		run_summary_case(&summary_cases[i]);
		unit_end();
	}
	unit_srand(1);
	for (i = 0; i < ARRAY_SIZE(big_cases); i++) {
		unit_begin("summary: %s", big_cases[i].name);
		run_big_case(&big_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(select_cases); i++) {
		unit_begin("tb_select: %s", select_cases[i].name);
		run_select_case(&select_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(fallback_cases); i++) {
		unit_begin("tb_select heapsort fallback: n = %zu, k = %zu",
			   fallback_cases[i].n, fallback_cases[i].k);
		run_fallback_case(&fallback_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(ordered_cases); i++) {
		unit_begin("tb_select stays linear: %s, n = %d",
			   ordered_cases[i].name, ORDERED_N);
		run_ordered_case(&ordered_cases[i]);
		unit_end();
	}
}

const struct unit_suite stats_suite = {
	.name = "stats",
	.nr_cases = ARRAY_SIZE(summary_cases) + ARRAY_SIZE(big_cases) +
		    ARRAY_SIZE(select_cases) + ARRAY_SIZE(fallback_cases) +
		    ARRAY_SIZE(ordered_cases),
	.run = run_stats,
};
