/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cases of stats.c: selection, median and maximum, with hand-computed
 * expectations. Run by tools/unit/test_stats.c and tools/kunit/stats_kunit.c,
 * which #include this once each. stats.c has no mean, tb_hist_mean()
 * replaced it: the tables' means are checked against a histogram fed the
 * same values, which is where the module takes its means from.
 */
#ifndef TB_STATS_CASES_H
#define TB_STATS_CASES_H

#include "cases.h"

#define TB_HALF		(U64_MAX / 2 + 1)

/*
 * @median and @max are checked against tb_median() and tb_max(), @mean and
 * @max again against a histogram of @v.
 */
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
	  TB_HALF - 1, TB_HALF - 1, U64_MAX },
	{ "U64_MAX and 1", TB_SAMPLES(1, U64_MAX), TB_HALF, TB_HALF, U64_MAX },
	{ "sum of two just overflows", TB_SAMPLES(TB_HALF, TB_HALF),
	  TB_HALF, TB_HALF, TB_HALF },
	{ "3 x U64_MAX - 1, the sum needs 66 bits",
	  TB_SAMPLES(U64_MAX - 1, U64_MAX - 1, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX - 1, U64_MAX - 1 },
	{ "mean of U64_MAX, U64_MAX, 2", TB_SAMPLES(U64_MAX, 2, U64_MAX),
	  U64_MAX, 12297829382473034410ULL, U64_MAX },
	{ "one outlier near U64_MAX", TB_SAMPLES(3, U64_MAX, 1, 2),
	  2, 4611686018427387905ULL, U64_MAX },
};

/* tb_select(v, n, k) must return @expected. */
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

/*
 * Large inputs of a few repeated values, the shape real samples have:
 * @nr_a copies of @a and n - nr_a copies of @b, which the runner shuffles.
 */
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

#endif /* TB_STATS_CASES_H */
