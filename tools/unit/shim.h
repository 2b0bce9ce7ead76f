/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few kernel definitions heap.c and stats.c use, for building them
 * unchanged in user space. include/linux/{types,math64,overflow}.h forward
 * here.
 */
#ifndef TB_UNIT_SHIM_H
#define TB_UNIT_SHIM_H

#include <stdbool.h>
#include <stddef.h>

typedef unsigned long long u64;
typedef unsigned int u32;

#define U64_MAX ((u64)~0ULL)

#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#endif /* TB_UNIT_SHIM_H */
