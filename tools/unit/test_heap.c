// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of heap.c: the bounded min-heap and tb_sort(). The
 * tables, every expected value written out by hand, are shared with the
 * KUnit suite: tools/cases/heap_cases.h.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../cases/heap_cases.h"

static void run_heap_case(const struct tb_heap_case *c)
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
		u64 floor = tb_heap_floor(&heap);

		/* the floor is exact but for the top value */
		unit_expect(wants == (c->v[i] >= floor) ||
			    (!wants && c->v[i] == U64_MAX && floor == U64_MAX),
			    "offer %zu (%llu): tb_heap_wants() %d, floor %llu",
			    i, (unsigned long long)c->v[i], wants,
			    (unsigned long long)floor);

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

static void run_sort_case(const struct tb_sort_case *c)
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

	for (i = 0; i < ARRAY_SIZE(tb_heap_cases); i++) {
		unit_begin("tb_heap: %s", tb_heap_cases[i].name);
		run_heap_case(&tb_heap_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(tb_sort_cases); i++) {
		unit_begin("tb_sort: %s", tb_sort_cases[i].name);
		run_sort_case(&tb_sort_cases[i]);
		unit_end();
	}
}

const struct unit_suite heap_suite = {
	.name = "heap",
	.nr_cases = ARRAY_SIZE(tb_heap_cases) + ARRAY_SIZE(tb_sort_cases),
	.run = run_heap,
};
