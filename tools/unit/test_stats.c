// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of stats.c with hand-computed expectations, plus inputs
 * built to drive tb_select() into its heapsort fallback. The tables of
 * hand-computed cases are shared with the KUnit suite:
 * tools/cases/stats_cases.h. Their means are the histogram's: stats.c has
 * no mean, tb_hist_mean() replaced it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../cases/stats_cases.h"

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

static void run_summary_case(const struct tb_summary_case *c)
{
	u64 *v = unit_dup(c->v, c->n);

	unit_expect_u64(c->median, tb_median(v, c->n), "tb_median");
	unit_expect(ref_same_multiset(v, c->v, c->n),
		    "tb_median did not permute the input");
	unit_expect_u64(c->max, tb_max(c->v, c->n), "tb_max");
	check_hist_mean(c->v, c->n, c->mean, c->max);
	free(v);
}

static void run_big_case(const struct tb_big_case *c)
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

static void run_select_case(const struct tb_select_case *c)
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

	for (i = 0; i < ARRAY_SIZE(tb_summary_cases); i++) {
		unit_begin("summary: %s", tb_summary_cases[i].name);
		run_summary_case(&tb_summary_cases[i]);
		unit_end();
	}
	unit_srand(1);
	for (i = 0; i < ARRAY_SIZE(tb_big_cases); i++) {
		unit_begin("summary: %s", tb_big_cases[i].name);
		run_big_case(&tb_big_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(tb_select_cases); i++) {
		unit_begin("tb_select: %s", tb_select_cases[i].name);
		run_select_case(&tb_select_cases[i]);
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
	.nr_cases = ARRAY_SIZE(tb_summary_cases) + ARRAY_SIZE(tb_big_cases) +
		    ARRAY_SIZE(tb_select_cases) + ARRAY_SIZE(fallback_cases) +
		    ARRAY_SIZE(ordered_cases),
	.run = run_stats,
};
