// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bounded min-heap that retains the @size largest values offered to it.
 *
 * The root is the smallest retained value, so deciding whether a new value
 * belongs among the largest is one comparison, and keeping it costs
 * O(log size). <linux/min_heap.h> is not used because its API differs
 * between the kernels this module supports.
 */
#include "heap.h"

static inline void tb_swap(u64 *a, u64 *b)
{
	u64 t = *a;

	*a = *b;
	*b = t;
}

static void tb_heap_sift_down(struct tb_heap *heap, size_t i)
{
	u64 *d = heap->data;
	size_t nr = heap->nr;

	for (;;) {
		size_t left = 2 * i + 1;
		size_t smallest = i;

		if (left >= nr)
			break;
		if (d[left] < d[smallest])
			smallest = left;
		if (left + 1 < nr && d[left + 1] < d[smallest])
			smallest = left + 1;
		if (smallest == i)
			break;
		tb_swap(&d[i], &d[smallest]);
		i = smallest;
	}
}

static void tb_heap_sift_up(struct tb_heap *heap, size_t i)
{
	u64 *d = heap->data;

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (d[parent] <= d[i])
			break;
		tb_swap(&d[parent], &d[i]);
		i = parent;
	}
}

void tb_heap_init(struct tb_heap *heap, u64 *storage, size_t size)
{
	heap->data = storage;
	heap->nr = 0;
	heap->size = size;
}

/* Keep @value if it is among the @size largest values offered so far. */
void tb_heap_offer(struct tb_heap *heap, u64 value)
{
	if (heap->nr < heap->size) {
		heap->data[heap->nr] = value;
		tb_heap_sift_up(heap, heap->nr++);
	} else if (heap->size && value > heap->data[0]) {
		heap->data[0] = value;
		tb_heap_sift_down(heap, 0);
	}
}

/*
 * Sort @v ascending in O(n log n) even on inputs that defeat quickselect:
 * heapsort with the min-heap above leaves @v descending, so reverse it.
 */
void tb_sort(u64 *v, size_t n)
{
	struct tb_heap heap = { .data = v, .nr = n, .size = n };
	size_t i;

	for (i = n / 2; i-- > 0; )
		tb_heap_sift_down(&heap, i);
	while (heap.nr > 1) {
		tb_swap(&v[0], &v[--heap.nr]);
		tb_heap_sift_down(&heap, 0);
	}
	for (i = 0; i < n / 2; i++)
		tb_swap(&v[i], &v[n - 1 - i]);
}
