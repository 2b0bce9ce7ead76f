/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the KUnit suites of tracerbench's pure helpers: checks that do
 * not rely on the code under test. The case tables the suites share with
 * the host unit tests are in ../cases/.
 */
#ifndef TB_KUNIT_H
#define TB_KUNIT_H

#include <kunit/test.h>
#include <linux/types.h>

#include "../../heap.h"
#include "../cases/cases.h"		/* TB_U64S(), TB_SAMPLES() */

/*
 * A copy of @v[0..n-1] in a buffer of exactly n entries, freed with the
 * test, so that KASAN reports any access beyond either end.
 */
u64 *tb_kunit_dup(struct kunit *test, const u64 *v, size_t n);

/* @v[0..n-1] sorted ascending by lib/sort.c, also freed with the test. */
u64 *tb_kunit_sorted(struct kunit *test, const u64 *v, size_t n);

/* Whether @a and @b hold the same n values, in any order. */
bool tb_kunit_same_values(struct kunit *test, const u64 *a, const u64 *b,
			  size_t n);

/*
 * Expect @v[0..n-1], once @sorted reordered by tb_select(v, n, k): v[k] is
 * sorted[k], nothing before it is larger and nothing after it smaller.
 */
void tb_kunit_expect_selected(struct kunit *test, const u64 *v,
			      const u64 *sorted, size_t n, size_t k);

#endif /* TB_KUNIT_H */
