/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bounded min-heap of u64 that keeps the largest values offered to it,
 * heapsort, and the selection and median of stats.c (the calibration's
 * median and medians over CPUs; hist.h provides every other figure).
 *
 * heap.c and stats.c are pure: no allocation, no locking, no sleeping. The
 * caller owns the storage. They build in the kernel and, through a small
 * shim, in user space for the unit tests in tools/unit/.
 */
#ifndef TRACERBENCH_HEAP_H
#define TRACERBENCH_HEAP_H

#include <linux/limits.h>
#include <linux/types.h>

struct tb_heap {
	u64 *data;		/* caller-owned storage of @size entries */
	size_t nr;		/* entries in use */
	size_t size;		/* capacity */
};

void tb_heap_init(struct tb_heap *heap, u64 *storage, size_t size);
void tb_heap_offer(struct tb_heap *heap, u64 value);

/*
 * Whether tb_heap_offer() would keep @value: inline, so that the sampling
 * loop makes no call for the many samples the heap does not want.
 */
static inline bool tb_heap_wants(const struct tb_heap *heap, u64 value)
{
	return heap->nr < heap->size || (heap->size && value > heap->data[0]);
}

/*
 * Below this, tb_heap_wants() is false: a loop can keep it in a register
 * and make no other test for most values. At or above it the heap may
 * still refuse, for a value of U64_MAX or a heap of size 0; ask again
 * after each offer.
 */
static inline u64 tb_heap_floor(const struct tb_heap *heap)
{
	if (heap->nr < heap->size)
		return 0;
	if (!heap->size || heap->data[0] == U64_MAX)
		return U64_MAX;
	return heap->data[0] + 1;
}

/* The smallest retained value; 0 for an empty heap. For the tests. */
static inline u64 tb_heap_min(const struct tb_heap *heap)
{
	return heap->nr ? heap->data[0] : 0;
}

void tb_sort(u64 *v, size_t n);

u64 tb_select(u64 *v, size_t n, size_t k);
u64 tb_median(u64 *v, size_t n);
u64 tb_max(const u64 *v, size_t n);

#endif /* TRACERBENCH_HEAP_H */
