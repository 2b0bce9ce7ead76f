// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of heap.c: the bounded min-heap and tb_sort(), table-driven,
 * every expected value written out by hand.
 */
#include <linux/slab.h>

#include "tb_kunit.h"

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

KUNIT_ARRAY_PARAM_DESC(tb_heap, tb_heap_cases, name);

/* Every parent is at most either child: the min-heap property. */
static void tb_expect_heap_order(struct kunit *test, const struct tb_heap *heap)
{
	size_t i;

	for (i = 1; i < heap->nr; i++)
		KUNIT_EXPECT_LE_MSG(test, heap->data[(i - 1) / 2], heap->data[i],
				    "parent of entry %zu", i);
}

static void tb_heap_offer_test(struct kunit *test)
{
	const struct tb_heap_case *c = test->param_value;
	u64 *storage;
	struct tb_heap heap;
	size_t i;

	/* exactly c->size entries: KASAN catches a write past the capacity */
	storage = kunit_kmalloc_array(test, c->size, sizeof(*storage),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, storage);
	for (i = 0; i < c->size; i++)
		storage[i] = 0x5a5a5a5a5a5a5a5aULL;

	tb_heap_init(&heap, storage, c->size);
	KUNIT_EXPECT_PTR_EQ(test, heap.data, storage);
	KUNIT_EXPECT_EQ(test, heap.nr, 0);
	KUNIT_EXPECT_EQ(test, heap.size, c->size);
	KUNIT_EXPECT_EQ(test, tb_heap_min(&heap), 0);

	for (i = 0; i < c->n; i++) {
		tb_heap_offer(&heap, c->v[i]);
		tb_expect_heap_order(test, &heap);
	}
	KUNIT_ASSERT_EQ(test, heap.nr, c->nr_kept);
	KUNIT_EXPECT_EQ(test, tb_heap_min(&heap), c->min);
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, heap.data,
							 c->kept, c->nr_kept),
			      "the retained values are not the expected ones");
}

struct tb_sort_case {
	const char *name;
	const u64 *v;
	size_t n;
	const u64 *sorted;
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

KUNIT_ARRAY_PARAM_DESC(tb_sort, tb_sort_cases, name);

static void tb_sort_test(struct kunit *test)
{
	const struct tb_sort_case *c = test->param_value;
	u64 *v;
	size_t i;

	KUNIT_ASSERT_EQ_MSG(test, c->n, c->nr_sorted, "bad table row");
	v = tb_kunit_dup(test, c->v, c->n);
	tb_sort(v, c->n);
	for (i = 0; i < c->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], c->sorted[i], "v[%zu]", i);
}

static struct kunit_case tb_heap_test_cases[] = {
	KUNIT_CASE_PARAM(tb_heap_offer_test, tb_heap_gen_params),
	KUNIT_CASE_PARAM(tb_sort_test, tb_sort_gen_params),
	{}
};

static struct kunit_suite tb_heap_test_suite = {
	.name = "tracerbench_heap",
	.test_cases = tb_heap_test_cases,
};

kunit_test_suites(&tb_heap_test_suite);
