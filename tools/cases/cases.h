/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the case tables in this directory. Each NAME_cases.h holds the
 * hand-computed tables of ../../NAME.c once, for both harnesses that run
 * them: the host unit tests (tools/unit/, through its kernel shim) and the
 * KUnit suites (tools/kunit/). Each harness keeps only its runner code.
 * hist.c has none: its host and KUnit tables hold different rows.
 */
#ifndef TB_CASES_H
#define TB_CASES_H

#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/types.h>

/*
 * Designated initializers of a u64 array member and its length member, so
 * that a table row names its values once.
 */
#define TB_U64S(ptr, len, ...)					\
	.ptr = (const u64[]){ __VA_ARGS__ },			\
	.len = sizeof((const u64[]){ __VA_ARGS__ }) / sizeof(u64)
#define TB_SAMPLES(...)		TB_U64S(v, n, __VA_ARGS__)

#endif /* TB_CASES_H */
