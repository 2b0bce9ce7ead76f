/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cases of heap.c, the bounded min-heap and tb_sort(), every expected value
 * written out by hand. Run by tools/unit/test_heap.c and
 * tools/kunit/heap_kunit.c, which #include this once each.
 */
#ifndef TB_HEAP_CASES_H
#define TB_HEAP_CASES_H

#include "cases.h"

struct tb_heap_case {
	const char *name;
	const u64 *v;		/* offered in this order */
	size_t n;
	size_t size;		/* heap capacity */
	const u64 *kept;	/* the values the heap must retain */
	size_t nr_kept;
	u64 min;		/* tb_heap_min() after the offers */
};

static const struct tb_heap_case tb_heap_cases[] = {
	{
		.name = "size 0 heap ignores offers",
		TB_SAMPLES(5, 6, U64_MAX), .size = 0,
		.kept = NULL, .nr_kept = 0, .min = 0,
	}, {
		.name = "tb_heap_min of an empty heap is 0",
		.v = NULL, .n = 0, .size = 4,
		.kept = NULL, .nr_kept = 0, .min = 0,
	}, {
		.name = "fewer offers than size",
		TB_SAMPLES(5, 1, 3), .size = 4,
		TB_U64S(kept, nr_kept, 1, 3, 5), .min = 1,
	}, {
		.name = "as many offers as size",
		TB_SAMPLES(5, 1, 3), .size = 3,
		TB_U64S(kept, nr_kept, 1, 3, 5), .min = 1,
	}, {
		.name = "keeps the size largest",
		TB_SAMPLES(5, 1, 9, 3, 7, 2), .size = 3,
		TB_U64S(kept, nr_kept, 5, 7, 9), .min = 5,
	}, {
		.name = "size 1 keeps the maximum",
		TB_SAMPLES(4, 8, 2, 8, 6), .size = 1,
		TB_U64S(kept, nr_kept, 8), .min = 8,
	}, {
		.name = "ascending offers",
		TB_SAMPLES(1, 2, 3, 4, 5, 6, 7, 8), .size = 3,
		TB_U64S(kept, nr_kept, 6, 7, 8), .min = 6,
	}, {
		.name = "descending offers",
		TB_SAMPLES(8, 7, 6, 5, 4, 3, 2, 1), .size = 3,
		TB_U64S(kept, nr_kept, 6, 7, 8), .min = 6,
	}, {
		.name = "larger values after the heap is full",
		TB_SAMPLES(10, 20, 30, 5, 25, 15, 35), .size = 3,
		TB_U64S(kept, nr_kept, 25, 30, 35), .min = 25,
	}, {
		.name = "duplicates",
		TB_SAMPLES(4, 1, 4, 4, 2, 4), .size = 3,
		TB_U64S(kept, nr_kept, 4, 4, 4), .min = 4,
	}, {
		.name = "ties with the minimum",
		TB_SAMPLES(3, 3, 3, 3, 5), .size = 2,
		TB_U64S(kept, nr_kept, 3, 5), .min = 3,
	}, {
		.name = "zeros are retained",
		TB_SAMPLES(0, 0, 0), .size = 2,
		TB_U64S(kept, nr_kept, 0, 0), .min = 0,
	}, {
		.name = "values near U64_MAX",
		TB_SAMPLES(U64_MAX, 0, U64_MAX - 1, U64_MAX), .size = 2,
		TB_U64S(kept, nr_kept, U64_MAX, U64_MAX), .min = U64_MAX,
	}, {
		.name = "heap larger than the offers",
		TB_SAMPLES(U64_MAX - 1, 2), .size = 100,
		TB_U64S(kept, nr_kept, 2, U64_MAX - 1), .min = 2,
	},
};

struct tb_sort_case {
	const char *name;
	const u64 *v;
	size_t n;
	const u64 *sorted;	/* v sorted ascending */
	size_t nr_sorted;
};

static const struct tb_sort_case tb_sort_cases[] = {
	{
		.name = "n = 0",
		.v = NULL, .n = 0, .sorted = NULL, .nr_sorted = 0,
	}, {
		.name = "n = 1",
		TB_SAMPLES(5), TB_U64S(sorted, nr_sorted, 5),
	}, {
		.name = "n = 2",
		TB_SAMPLES(2, 1), TB_U64S(sorted, nr_sorted, 1, 2),
	}, {
		.name = "sorted",
		TB_SAMPLES(1, 2, 3, 4, 5),
		TB_U64S(sorted, nr_sorted, 1, 2, 3, 4, 5),
	}, {
		.name = "reversed",
		TB_SAMPLES(6, 5, 4, 3, 2, 1),
		TB_U64S(sorted, nr_sorted, 1, 2, 3, 4, 5, 6),
	}, {
		.name = "organ pipe",
		TB_SAMPLES(1, 3, 5, 7, 6, 4, 2),
		TB_U64S(sorted, nr_sorted, 1, 2, 3, 4, 5, 6, 7),
	}, {
		.name = "many duplicates",
		TB_SAMPLES(3, 1, 3, 1, 2, 3, 3, 1),
		TB_U64S(sorted, nr_sorted, 1, 1, 1, 2, 3, 3, 3, 3),
	}, {
		.name = "all equal",
		TB_SAMPLES(7, 7, 7, 7),
		TB_U64S(sorted, nr_sorted, 7, 7, 7, 7),
	}, {
		.name = "extremes",
		TB_SAMPLES(U64_MAX, 0, U64_MAX - 1, 1, U64_MAX),
		TB_U64S(sorted, nr_sorted, 0, 1, U64_MAX - 1, U64_MAX, U64_MAX),
	},
};

#endif /* TB_HEAP_CASES_H */
