// SPDX-License-Identifier: GPL-2.0-only
/*
 * The code under test and the helpers its KUnit suites share.
 *
 * heap.c and stats.c are #included rather than linked from tracerbench.ko:
 * this object is their only copy in tracerbench_kunit.ko, built with the
 * kernel's own flags.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "../../heap.c"
#include "../../stats.c"

#include "tb_kunit.h"

u64 *tb_kunit_dup(struct kunit *test, const u64 *v, size_t n)
{
	u64 *copy = kunit_kmalloc_array(test, n, sizeof(*copy), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);
	if (n)
		memcpy(copy, v, n * sizeof(*copy));
	return copy;
}

static int tb_kunit_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

u64 *tb_kunit_sorted(struct kunit *test, const u64 *v, size_t n)
{
	u64 *sorted = tb_kunit_dup(test, v, n);

	sort(sorted, n, sizeof(*sorted), tb_kunit_cmp, NULL);
	return sorted;
}

bool tb_kunit_same_values(struct kunit *test, const u64 *a, const u64 *b,
			  size_t n)
{
	u64 *sa = tb_kunit_sorted(test, a, n);
	u64 *sb = tb_kunit_sorted(test, b, n);

	return !n || !memcmp(sa, sb, n * sizeof(*sa));
}

void tb_kunit_expect_selected(struct kunit *test, const u64 *v,
			      const u64 *sorted, size_t n, size_t k)
{
	size_t i;

	KUNIT_EXPECT_EQ_MSG(test, v[k], sorted[k], "v[k], k = %zu", k);
	for (i = 0; i < n; i++) {
		if (i < k ? v[i] <= v[k] : v[i] >= v[k])
			continue;
		KUNIT_FAIL(test, "v[%zu] = %llu is on the wrong side of v[%zu] = %llu",
			   i, v[i], k, v[k]);
		break;
	}
	KUNIT_EXPECT_TRUE_MSG(test, tb_kunit_same_values(test, v, sorted, n),
			      "the values are not those of the input");
}

MODULE_DESCRIPTION("KUnit suites of tracerbench's pure helpers");
MODULE_AUTHOR("The tracerbench authors");
MODULE_LICENSE("GPL");
