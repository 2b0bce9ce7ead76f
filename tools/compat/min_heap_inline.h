/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For building, against a 6.12 kernel, a module that uses the
 * min_heap_*_inline() names of <linux/min_heap.h> from later kernels,
 * such as the reference module tools/scale.sh --against DIR times. 6.12's
 * min_heap_*() take the same arguments and are inline already.
 * Passed with -include, after which <linux/min_heap.h> is included.
 */
#ifndef TRACERBENCH_COMPAT_MIN_HEAP_INLINE_H
#define TRACERBENCH_COMPAT_MIN_HEAP_INLINE_H

#define min_heap_init_inline		min_heap_init
#define min_heap_full_inline		min_heap_full
#define min_heap_push_inline		min_heap_push
#define min_heap_sift_down_inline	min_heap_sift_down

#endif /* TRACERBENCH_COMPAT_MIN_HEAP_INLINE_H */
