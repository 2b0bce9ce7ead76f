// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selection and median of u64 values, in O(n) expected time and O(1) space:
 * the median of the calibration's samples and medians over CPUs. Every
 * other figure comes from the histograms of hist.c.
 *
 * Samples are dominated by a few distinct values, so selection partitions
 * three ways (a two-way quickselect degrades to O(n^2) on equal keys). A
 * depth budget bounds the worst case: past it, the remaining range is
 * heapsorted, as introselect does.
 */
#include "heap.h"

static inline u64 tb_median_of_three(u64 a, u64 b, u64 c)
{
	if (a > b) {
		u64 t = a;

		a = b;
		b = t;
	}
	/* a <= b */
	if (c <= a)
		return a;
	return c < b ? c : b;
}

static inline void tb_exchange(u64 *v, size_t i, size_t j)
{
	u64 t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/*
 * Return the k-th smallest of @v[0..n-1] (k counts from 0) and reorder @v so
 * that v[i] <= v[k] for i < k and v[i] >= v[k] for i > k. Needs k < n.
 */
u64 tb_select(u64 *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;		/* k is in [lo, hi) */
	unsigned int budget = 2;
	size_t len;

	for (len = n; len; len >>= 1)
		budget += 2;

	while (hi - lo > 1) {
		size_t lt = lo, i = lo, gt = hi, quarter;
		u64 pivot;

		if (!budget--) {
			tb_sort(v + lo, hi - lo);
			break;
		}
		/*
		 * Sample at the quartiles, not the ends: partitioning leaves
		 * the smallest of the upper part last, which would make
		 * sorted input pick near-minimal pivots round after round.
		 */
		quarter = (hi - lo) / 4;
		pivot = tb_median_of_three(v[lo + quarter],
					   v[lo + (hi - lo) / 2],
					   v[hi - 1 - quarter]);
		/* [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot)
				tb_exchange(v, lt++, i++);
			else if (v[i] > pivot)
				tb_exchange(v, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

u64 tb_max(const u64 *v, size_t n)
{
	u64 max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	return max;
}

/*
 * Median, as the midpoint of the two middle values when n is even (rounded
 * down, computed without overflow). Reorders @v; 0 when n is 0.
 */
u64 tb_median(u64 *v, size_t n)
{
	size_t mid = n / 2;
	u64 upper, lower;

	if (!n)
		return 0;
	upper = tb_select(v, n, mid);
	if (n & 1)
		return upper;
	/* v[0..mid-1] hold the lower half, so its maximum is the lower middle */
	lower = tb_max(v, mid);
	return lower + (upper - lower) / 2;
}
