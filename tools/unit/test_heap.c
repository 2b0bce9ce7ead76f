// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of heap.c: the bounded min-heap and tb_sort(). Every
 * expected value is written out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

struct heap_case {
	const char *name;
	const u64 *v;		/* offered in this order */
	size_t n;
	size_t size;		/* heap capacity */
	const u64 *kept;	/* the values the heap must retain */
	size_t nr_kept;
	u64 min;		/* tb_heap_min() after the offers */
};

static const struct heap_case heap_cases[] = {
	{
		.name = "size 0 heap ignores offers",
		SAMPLES(5, 6, U64_MAX), .size = 0,
		.kept = NULL, .nr_kept = 0, .min = 0,
	}, {
		.name = "tb_heap_min of an empty heap is 0",
		.v = (const u64[]){ 1 }, .n = 0, .size = 4,
		.kept = NULL, .nr_kept = 0, .min = 0,
	}, {
		.name = "fewer offers than size",
		SAMPLES(5, 1, 3), .size = 4,
		U64_ARRAY(kept, nr_kept, 1, 3, 5), .min = 1,
	}, {
		.name = "as many offers as size",
		SAMPLES(5, 1, 3), .size = 3,
		U64_ARRAY(kept, nr_kept, 1, 3, 5), .min = 1,
	}, {
		.name = "keeps the size largest",
		SAMPLES(5, 1, 9, 3, 7, 2), .size = 3,
		U64_ARRAY(kept, nr_kept, 5, 7, 9), .min = 5,
	}, {
		.name = "size 1 keeps the maximum",
		SAMPLES(4, 8, 2, 8, 6), .size = 1,
		U64_ARRAY(kept, nr_kept, 8), .min = 8,
	}, {
		.name = "ascending offers",
		SAMPLES(1, 2, 3, 4, 5, 6, 7, 8), .size = 3,
		U64_ARRAY(kept, nr_kept, 6, 7, 8), .min = 6,
	}, {
		.name = "descending offers",
		SAMPLES(8, 7, 6, 5, 4, 3, 2, 1), .size = 3,
		U64_ARRAY(kept, nr_kept, 6, 7, 8), .min = 6,
	}, {
		.name = "larger values after the heap is full",
		SAMPLES(10, 20, 30, 5, 25, 15, 35), .size = 3,
		U64_ARRAY(kept, nr_kept, 25, 30, 35), .min = 25,
	}, {
		.name = "duplicates",
		SAMPLES(4, 1, 4, 4, 2, 4), .size = 3,
		U64_ARRAY(kept, nr_kept, 4, 4, 4), .min = 4,
	}, {
		.name = "ties with the minimum",
		SAMPLES(3, 3, 3, 3, 5), .size = 2,
		U64_ARRAY(kept, nr_kept, 3, 5), .min = 3,
	}, {
		.name = "zeros are retained",
		SAMPLES(0, 0, 0), .size = 2,
		U64_ARRAY(kept, nr_kept, 0, 0), .min = 0,
	}, {
		.name = "values near U64_MAX",
		SAMPLES(U64_MAX, 0, U64_MAX - 1, U64_MAX), .size = 2,
		U64_ARRAY(kept, nr_kept, U64_MAX, U64_MAX), .min = U64_MAX,
	}, {
		.name = "heap larger than the offers",
		SAMPLES(U64_MAX - 1, 2), .size = 100,
		U64_ARRAY(kept, nr_kept, 2, U64_MAX - 1), .min = 2,
	},
};

static void run_heap_case(const struct heap_case *c)
{
	u64 *storage = unit_alloc(c->size);
	struct tb_heap heap;
	size_t i;

	for (i = 0; i < c->size; i++)
		storage[i] = 0x5a5a5a5a5a5a5a5aULL;
	tb_heap_init(&heap, storage, c->size);
	unit_expect(heap.data == storage && !heap.nr && heap.size == c->size,
		    "tb_heap_init() fields");
	unit_expect_u64(0, tb_heap_min(&heap), "tb_heap_min() after init");
	for (i = 0; i < c->n; i++) {
		u64 *before = unit_dup(heap.data, heap.size);
		size_t nr = heap.nr;
		bool wants = tb_heap_wants(&heap, c->v[i]), changed;

		tb_heap_offer(&heap, c->v[i]);
		/* tb_heap_wants() says exactly when an offer changes the heap */
		changed = heap.nr != nr ||
			  memcmp(before, heap.data, nr * sizeof(u64));
		unit_expect(wants == changed,
			    "offer %zu (%llu): tb_heap_wants() %d, changed %d",
			    i, (unsigned long long)c->v[i], wants, changed);
		free(before);
	}
	unit_expect_u64(c->nr_kept, heap.nr, "nr");
	unit_expect_u64(c->min, tb_heap_min(&heap), "tb_heap_min()");
	unit_expect(heap.nr == c->nr_kept &&
		    ref_same_multiset(heap.data, c->kept, c->nr_kept),
		    "retained values differ from the expected ones");
	free(storage);
}

struct sort_case {
	const char *name;
	const u64 *v;
	size_t n;
	const u64 *sorted;
	size_t nr_sorted;
};

static const struct sort_case sort_cases[] = {
	{
		.name = "n = 0",
		.v = (const u64[]){ 3 }, .n = 0,
		.sorted = NULL, .nr_sorted = 0,
	}, {
		.name = "n = 1",
		SAMPLES(5), U64_ARRAY(sorted, nr_sorted, 5),
	}, {
		.name = "n = 2",
		SAMPLES(2, 1), U64_ARRAY(sorted, nr_sorted, 1, 2),
	}, {
		.name = "sorted",
		SAMPLES(1, 2, 3, 4, 5),
		U64_ARRAY(sorted, nr_sorted, 1, 2, 3, 4, 5),
	}, {
		.name = "reversed",
		SAMPLES(6, 5, 4, 3, 2, 1),
		U64_ARRAY(sorted, nr_sorted, 1, 2, 3, 4, 5, 6),
	}, {
		.name = "organ pipe",
		SAMPLES(1, 3, 5, 7, 6, 4, 2),
		U64_ARRAY(sorted, nr_sorted, 1, 2, 3, 4, 5, 6, 7),
	}, {
		.name = "many duplicates",
		SAMPLES(3, 1, 3, 1, 2, 3, 3, 1),
		U64_ARRAY(sorted, nr_sorted, 1, 1, 1, 2, 3, 3, 3, 3),
	}, {
		.name = "all equal",
		SAMPLES(7, 7, 7, 7),
		U64_ARRAY(sorted, nr_sorted, 7, 7, 7, 7),
	}, {
		.name = "extremes",
		SAMPLES(U64_MAX, 0, U64_MAX - 1, 1, U64_MAX),
		U64_ARRAY(sorted, nr_sorted, 0, 1, U64_MAX - 1, U64_MAX,
			  U64_MAX),
	},
};

static void run_sort_case(const struct sort_case *c)
{
	size_t i;
	u64 *v;

	if (!unit_expect_u64(c->n, c->nr_sorted, "bad table: lengths differ"))
		return;
	v = unit_dup(c->v, c->n);
	tb_sort(v, c->n);
	for (i = 0; i < c->n; i++)
		unit_expect_u64(c->sorted[i], v[i], "v[%zu]", i);
	free(v);
}

static void run_heap(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(heap_cases); i++) {
		unit_begin("tb_heap: %s", heap_cases[i].name);
		run_heap_case(&heap_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(sort_cases); i++) {
		unit_begin("tb_sort: %s", sort_cases[i].name);
		run_sort_case(&sort_cases[i]);
		unit_end();
	}
}

const struct unit_suite heap_suite = {
	.name = "heap",
	.nr_cases = ARRAY_SIZE(heap_cases) + ARRAY_SIZE(sort_cases),
	.run = run_heap,
};
