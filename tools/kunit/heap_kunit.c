// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of heap.c: the bounded min-heap and tb_sort(), table-driven,
 * every expected value written out by hand. The tables are shared with the
 * host unit tests: tools/cases/heap_cases.h.
 */
#include <linux/slab.h>

#include "tb_kunit.h"
#include "../cases/heap_cases.h"

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
