/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When a measuring thread stops between windows to give way and to check
 * whether its run must end: a countdown of windows, so that no window
 * pays for a clock read, whose length each kind of window (a primitive)
 * adapts from what its windows took, so that checks come about every
 * TB_CHECK_NS whatever a window costs, and at most TB_CHECK_MAX windows
 * apart.
 *
 * The countdown goes on across blocks of different kinds, cut short to
 * the new kind's interval where that is shorter: restarted at each block,
 * it would never run out in a block shorter than the interval.
 *
 * Like heap.c and hist.c, this is pure: no allocation, no locking, no
 * clock of its own (the caller passes the time); it builds in the kernel
 * and in user space (tools/unit/).
 */
#ifndef TRACERBENCH_PACE_H
#define TRACERBENCH_PACE_H

#include <linux/math64.h>
#include <linux/types.h>

#define TB_CHECK_NS		500000ULL
#define TB_CHECK_MAX		4096ULL

struct tb_pace {
	u64 left;		/* windows to the next check */
	u64 counted;		/* of them, those since since_ns */
	u64 since_ns;
};

/* A run starts with one window to the first check: no cost is known. */
static inline void tb_pace_init(struct tb_pace *pace)
{
	pace->left = 1;
	pace->counted = 1;
	pace->since_ns = 0;
}

/* A block of windows of a kind whose interval is @every starts at @now. */
static inline void tb_pace_start(struct tb_pace *pace, u64 every, u64 now)
{
	if (pace->left > every)
		pace->left = every;
	pace->counted = pace->left;
	pace->since_ns = now;
}

/* After a window: whether the countdown ran out. */
static inline bool tb_pace_tick(struct tb_pace *pace)
{
	return !--pace->left;
}

/*
 * At a check at @now, in a block of a kind whose interval was @every: the
 * kind's next interval, from the time its windows since the last check
 * took. It shrinks at once when windows got dearer, and grows at most
 * twofold a check.
 */
static inline u64 tb_pace_adapt(const struct tb_pace *pace, u64 every,
				u64 now)
{
	u64 done = pace->counted - pace->left;
	u64 spent = now - pace->since_ns;
	u64 next;

	if (!done)
		return every;
	/* done <= TB_CHECK_MAX: the product is below 2^32 */
	next = div64_u64(done * TB_CHECK_NS, spent ? spent : 1);
	if (next > 2 * every)
		next = 2 * every;
	if (next > TB_CHECK_MAX)
		next = TB_CHECK_MAX;
	return next ? next : 1;
}

/* Count @every windows from @now, after a check. */
static inline void tb_pace_restart(struct tb_pace *pace, u64 every, u64 now)
{
	pace->left = every;
	pace->counted = every;
	pace->since_ns = now;
}

#endif /* TRACERBENCH_PACE_H */
