/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A window's ticks from the two reads of its counter, for a counter of any
 * width, and whether a counter advances at all.
 *
 * The difference is taken modulo 2^bits, so that a narrow counter (a PMU
 * counter read on 32 bits, a 32-bit cycles_t) reads right across its wrap.
 * A difference of 2^(bits - 1) or more is no window's: its end read before
 * its start (a counter erratum), or it spans a PMU counter's overflow,
 * which perf sets back (pmu.h). Such a sample reads as negative, and the
 * sampling loop times that window again, a bounded number of times.
 *
 * Like pace.h, this is pure: no allocation, no locking, no clock of its
 * own; it builds in the kernel and in user space (tools/unit/).
 */
#ifndef TRACERBENCH_TICKS_H
#define TRACERBENCH_TICKS_H

#include <linux/types.h>

/* What a window returns to be timed again; any negative sample is. */
#define TB_WINDOW_AGAIN		U64_MAX

/*
 * Windows timed again in a row before the run ends with -EIO: a PMU
 * overflow comes once in 2^31 events, and a counter read that goes
 * backwards now and then is an erratum; one that does it this often is
 * no clock.
 */
#define TB_RETIME_MAX		16

/* Whether the window that gave @sample is to be timed again. */
static __always_inline bool tb_window_again(u64 sample)
{
	return (s64)sample < 0;
}

/*
 * The ticks from @t0 to @t1 of a counter @bits wide, 1 to 64 (a constant
 * where it matters: this then folds to a subtraction, and for narrow
 * counters a mask and a test). Negative where tb_window_again() says so.
 */
static __always_inline u64 tb_window_ticks(u64 t0, u64 t1, unsigned int bits)
{
	u64 d = (t1 - t0) & (~0ULL >> (64 - bits));

	if (bits < 64 && d >> (bits - 1))
		return TB_WINDOW_AGAIN;
	return d;
}

/*
 * Whether a counter @bits wide that read @first, then @second a while
 * later, advanced: not for one that stands still (get_cycles() is 0 on
 * architectures without a counter) or went backwards.
 */
static inline bool tb_counter_advanced(u64 first, u64 second,
				       unsigned int bits)
{
	u64 d = tb_window_ticks(first, second, bits);

	return d && !tb_window_again(d);
}

#endif /* TRACERBENCH_TICKS_H */
