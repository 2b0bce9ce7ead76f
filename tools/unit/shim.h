/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few kernel definitions heap.c, stats.c, hist.c, pace.h, ticks.h and the case
 * tables in ../cases/ use, for building them unchanged in user space.
 * include/linux/{types,limits,stddef,math64,bitops,string}.h forward here.
 */
#ifndef TB_UNIT_SHIM_H
#define TB_UNIT_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int u32;
typedef unsigned short u16;

/* __always_inline: glibc's <sys/cdefs.h>, through <string.h>, has it */

#define U64_MAX ((u64)~0ULL)
#define U32_MAX ((u32)~0U)

#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))

/* 1-based index of the most significant set bit, 0 if none, as the kernel's */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* 0-based index of the least significant set bit; undefined for 0 */
static inline unsigned int __ffs64(u64 x)
{
	return __builtin_ctzll(x);
}

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
