// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of pace.h: a run's rounds of blocks are played on a
 * simulated clock, a cost per window for each kind, as tb_measure_cpu()
 * runs them (a calibration block of the empty window, then a block of
 * each primitive, each after its warm-up). Whatever the costs, checks
 * must come at most TB_CHECK_MAX windows apart and within about
 * TB_CHECK_NS, or within one window where a window alone is longer; and
 * once the intervals are learnt, not much more often than that.
 */
#include "unit.h"
#include "pace.h"

#define KINDS		7	/* the primitives, the empty window last */
#define WARMUP		32
#define CALIBRATION	256
#define BLOCK		1000
#define ROUNDS		20

struct pace_case {
	const char *name;
	u64 cost[KINDS];	/* ns per window */
};

static const struct pace_case pace_cases[] = {
	{ "cheap windows, 25 ns", { 25, 25, 25, 25, 25, 25, 25 } },
	{ "events on: traced 1300 ns, raw 25 ns",
	  { 1300, 1300, 1300, 25, 25, 25, 20 } },
	{ "1 ns windows: TB_CHECK_MAX bounds the count", { 1, 1, 1, 1, 1, 1, 1 } },
	{ "batch 10000, events on: 13 ms windows, raw 250 us",
	  { 13000000, 13000000, 13000000, 250000, 250000, 250000, 200000 } },
	{ "one kind dearer than TB_CHECK_NS, the rest cheap",
	  { 30, 2000000, 30, 30, 30, 30, 30 } },
	{ "every kind its own cost", { 7, 70, 700, 7000, 70000, 700, 3 } },
};

struct pace_sim {
	const struct pace_case *c;
	struct tb_pace pace;
	u64 every[KINDS];
	u64 now, last_check, windows_since;
	u64 max_gap, max_windows, checks;
};

/* The stretch since the last check ends: at a check, or at the run's end. */
static void sim_stretch(struct pace_sim *s)
{
	u64 gap = s->now - s->last_check;

	if (gap > s->max_gap)
		s->max_gap = gap;
	if (s->windows_since > s->max_windows)
		s->max_windows = s->windows_since;
}

static void sim_check(struct pace_sim *s, unsigned int kind)
{
	sim_stretch(s);
	s->checks++;
	s->every[kind] = tb_pace_adapt(&s->pace, s->every[kind], s->now);
	/* the time given away at a check is not counted */
	s->now += 12345;
	tb_pace_restart(&s->pace, s->every[kind], s->now);
	s->last_check = s->now;
	s->windows_since = 0;
}

static void sim_block(struct pace_sim *s, unsigned int kind, unsigned int n)
{
	unsigned int i;

	tb_pace_start(&s->pace, s->every[kind], s->now);
	for (i = 0; i < n; i++) {
		s->now += s->c->cost[kind];
		s->windows_since++;
		if (tb_pace_tick(&s->pace))
			sim_check(s, kind);
	}
}

static void run_pace_case(const struct pace_case *c)
{
	struct pace_sim s = { .c = c };
	u64 maxcost = 0, bound, total, learnt;
	unsigned int k, r;

	tb_pace_init(&s.pace);
	for (k = 0; k < KINDS; k++) {
		s.every[k] = 1;
		if (c->cost[k] > maxcost)
			maxcost = c->cost[k];
	}
	for (r = 0; r < ROUNDS; r++) {
		sim_block(&s, KINDS - 1, WARMUP + CALIBRATION);
		for (k = 0; k < KINDS; k++)
			sim_block(&s, k, WARMUP + BLOCK);
	}
	sim_stretch(&s);
	/*
	 * the windows since the last check of one kind, then up to a check's
	 * worth of the next
	 */
	bound = TB_CHECK_NS + (maxcost > TB_CHECK_NS ? maxcost : TB_CHECK_NS);
	unit_expect(s.max_gap <= bound, "longest gap %llu ns, over %llu",
		    s.max_gap, bound);
	unit_expect(s.max_windows <= TB_CHECK_MAX,
		    "%llu windows between two checks", s.max_windows);
	/*
	 * Not much more often than needed: a quarter of TB_CHECK_NS (or of
	 * TB_CHECK_MAX windows) between checks on average, once each kind's
	 * interval has doubled up from 1 (13 checks a kind at most).
	 */
	total = s.now - 12345 * s.checks;
	learnt = KINDS * 13 + total / (TB_CHECK_NS / 4) +
		 (u64)ROUNDS * (KINDS * (WARMUP + BLOCK) + WARMUP + CALIBRATION) /
		 (TB_CHECK_MAX / 4);
	unit_expect(s.checks <= learnt, "%llu checks, over %llu", s.checks,
		    learnt);
}

static void run_pace(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pace_cases); i++) {
		unit_begin("pace: %s", pace_cases[i].name);
		run_pace_case(&pace_cases[i]);
		unit_end();
	}
}

const struct unit_suite pace_suite = {
	.name = "pace",
	.nr_cases = ARRAY_SIZE(pace_cases),
	.run = run_pace,
};
