// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of struct tb_rec (hist.c), the sampling loop's recording: driven
 * as measure.c's loop drives it, in blocks into one CPU histogram, folding
 * its spill after each, and one heap, it must leave them and the sums
 * exactly as the plain way does:
 * each window's ticks less the overhead, saturating at 0, through
 * tb_hist_add() and tb_heap_offer(), and the ticks added up in 128 bits.
 * Each case also bounds how many windows took the slow path.
 */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "unit.h"

#define NR_WINDOWS	5000
#define MAX_HEAP	128

struct rec_case {
	const char *name;
	u64 (*ticks)(size_t i);	/* window i's ticks */
	u64 overhead;
	size_t heap_size;	/* 0: a percentile run's heap, which keeps none */
	size_t block;		/* windows per loop, as TB_BLOCK */
	size_t max_slow;	/* windows the slow path may take */
};

static u64 ticks_constant(size_t i)
{
	(void)i;
	return 10;
}

/* mostly 10, now and then an interrupt's worth */
static u64 ticks_spikes(size_t i)
{
	return i % 97 ? 10 : 5000 + i;
}

static u64 ticks_ascending(size_t i)
{
	return i;
}

static u64 ticks_descending(size_t i)
{
	return NR_WINDOWS - i;
}

/* across TB_HIST_EXACT, where a value stops being its own bucket */
static u64 ticks_across_exact(size_t i)
{
	return TB_HIST_EXACT - 50 + i % 100;
}

static u64 ticks_small_random(size_t i)
{
	(void)i;
	return 6 + unit_rand() % 64;
}

static u64 ticks_any_random(size_t i)
{
	(void)i;
	return unit_rand() >> (unit_rand() % 64);
}

/* either side of 70, the overhead of the cases below */
static u64 ticks_around(size_t i)
{
	(void)i;
	return 40 + unit_rand() % 64;
}

/* 0 to 256 below 1000 from each block's start, each a new low there */
static u64 ticks_deeper(size_t i)
{
	return 1000 - i % 1000 % (TB_HIST_UNDER + 1);
}

/* now and then one more below than the fast path goes */
static u64 ticks_past_under(size_t i)
{
	return i % 10 ? 1000 - i % 100 : 1000 - TB_HIST_UNDER - 1;
}

static u64 ticks_extremes(size_t i)
{
	static const u64 v[] = { 0, 1, U64_MAX, U64_MAX - 1, 7, 4095, 4096 };

	return v[i % ARRAY_SIZE(v)];
}

static const struct rec_case rec_cases[] = {
	{ "constant: the slow path fills the heap, then never again",
	  ticks_constant, 6, 100, 1000, 101 },
	{ "constant, no heap: one slow window", ticks_constant, 6, 0, 1000, 1 },
	{ "constant, in blocks of 7: one slow window",
	  ticks_constant, 6, 0, 7, 1 },
	/*
	 * The sums need its true ticks, which its sample of 0 has lost, and
	 * the fast path keeps them, once one has taken the slow path.
	 */
	{ "below the overhead: 0, the first of each loop by the slow path",
	  ticks_constant, 20, 0, 1000, 5 },
	{ "below the overhead, a heap that wants 0 too: slow until it is full",
	  ticks_constant, 20, 100, 1000, 100 + 4 },
	{ "below the overhead, in blocks of 7: the first of each slow",
	  ticks_constant, 20, 0, 7, (NR_WINDOWS + 6) / 7 },
	{ "either side of the overhead", ticks_around, 70, 16, 1000, 100 },
	{ "either side of the overhead, no heap", ticks_around, 70, 0, 1000,
	  50 },
	{ "down to TB_HIST_UNDER below: each new low slow once a loop",
	  ticks_deeper, 1000, 0, 1000, 5 * (TB_HIST_UNDER + 1) },
	{ "past TB_HIST_UNDER below: those slow, the others not",
	  ticks_past_under, 1000, 0, 1000, NR_WINDOWS / 10 + 5 * 90 },
	{ "far below the overhead: each by the slow path", ticks_constant,
	  10 + TB_HIST_UNDER + 1, 0, 1000, NR_WINDOWS },
	{ "overhead equal to the window", ticks_constant, 10, 16, 1000, 17 },
	{ "spikes past the exact range", ticks_spikes, 6, 16, 1000, 69 },
	{ "ascending: each window a new maximum", ticks_ascending, 6, 100,
	  1000, NR_WINDOWS },
	{ "descending: each window a new minimum", ticks_descending, 6, 1,
	  1000, NR_WINDOWS },
	{ "across TB_HIST_EXACT", ticks_across_exact, 0, 0, 1000, NR_WINDOWS },
	{ "small random values", ticks_small_random, 6, 100, 1000, NR_WINDOWS },
	{ "small random values, no heap", ticks_small_random, 6, 0, 1000,
	  NR_WINDOWS },
	{ "random over the whole u64 range", ticks_any_random, 6, 100, 333,
	  NR_WINDOWS },
	{ "0, U64_MAX and the exact range's ends", ticks_extremes, 3, 4, 1000,
	  NR_WINDOWS },
	{ "an overhead of U64_MAX", ticks_extremes, U64_MAX, 4, 1000,
	  NR_WINDOWS },
};

/* The plain way: what tb_sample() recorded before struct tb_rec. */
static void record_plain(const u64 *ticks, size_t n, u64 overhead,
			 struct tb_hist *h, struct tb_heap *heap,
			 struct tb_sums *sums)
{
	struct tb_u128 raw = {};
	size_t i;

	for (i = 0; i < n; i++) {
		u64 sample = ticks[i] > overhead ? ticks[i] - overhead : 0;

		tb_hist_add(h, sample);
		if (tb_heap_wants(heap, sample))
			tb_heap_offer(heap, sample);
		tb_u128_add(&raw, ticks[i]);
	}
	tb_sums_add(sums, raw, n);
}

/*
 * As tb_sample() records, the spill folded at the end; returns the windows
 * of the slow path.
 */
static u64 record_fast(const u64 *ticks, size_t n, u64 overhead,
		       struct tb_cpu_hist *h, struct tb_heap *heap,
		       struct tb_sums *sums)
{
	static struct tb_spill spill;
	u64 fast_sum = 0, slow;
	struct tb_rec_fast fast;
	struct tb_rec rec;
	size_t i;

	if (tb_cpu_hist_flush_due(h, n))
		unit_fold(h, &spill, true);
	fast = tb_rec_init(&rec, h, &spill, heap, overhead);
	for (i = 0; i < n; i++) {
		u64 sample = ticks[i] - overhead;

		if (!tb_rec_fast_add(tb_rec_counts(h), fast, sample, &fast_sum))
			fast = tb_rec_slow(&rec, sample);
	}
	slow = rec.slow.nr;
	tb_rec_finish(&rec, n, fast_sum, sums);
	unit_fold(h, &spill, false);
	return slow;
}

static void check_heaps_equal(const struct tb_heap *exp,
			      const struct tb_heap *got)
{
	u64 *e = unit_dup(exp->data, exp->nr), *g = unit_dup(got->data, got->nr);
	size_t i;

	if (unit_expect_u64(exp->nr, got->nr, "heap entries")) {
		ref_sort(e, exp->nr);
		ref_sort(g, got->nr);
		for (i = 0; i < exp->nr; i++)
			if (!unit_expect_u64(e[i], g[i], "heap, %zu-th smallest",
					     i))
				break;
	}
	free(e);
	free(g);
}

static void run_rec_case(const struct rec_case *c)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_hist *plain = unit_hist_alloc();
	struct tb_cpu_hist *fast = unit_cpu_hist_alloc(arena);
	u64 plain_data[MAX_HEAP], fast_data[MAX_HEAP], slow = 0;
	struct tb_sums plain_sums = {}, fast_sums = {};
	struct tb_heap plain_heap, fast_heap;
	u64 *ticks = unit_alloc(NR_WINDOWS);
	size_t i, n;

	tb_heap_init(&plain_heap, plain_data, c->heap_size);
	tb_heap_init(&fast_heap, fast_data, c->heap_size);
	for (i = 0; i < NR_WINDOWS; i++)
		ticks[i] = c->ticks(i);
	for (i = 0; i < NR_WINDOWS; i += n) {
		n = NR_WINDOWS - i < c->block ? NR_WINDOWS - i : c->block;
		record_plain(ticks + i, n, c->overhead, plain, &plain_heap,
			     &plain_sums);
		slow += record_fast(ticks + i, n, c->overhead, fast,
				    &fast_heap, &fast_sums);
	}
	check_cpu_hist_equal(plain, fast, "histogram");
	check_heaps_equal(&plain_heap, &fast_heap);
	unit_expect_u64(plain_sums.nr, fast_sums.nr, "sums: windows");
	unit_expect_u128(plain_sums.raw, fast_sums.raw, "sums: ticks");
	unit_expect(slow <= c->max_slow,
		    "%llu windows by the slow path, at most %zu expected",
		    slow, c->max_slow);
	free(ticks);
	free(plain);
	free(fast);
	unit_arena_free(arena);
}

/*
 * A loop that records no window, as one stopped during its warm-up: the
 * histogram, heap and sums are left as they were, and the histogram still
 * resets (tb_calibrate() resets it next).
 */
static void check_no_window(void)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
	struct tb_hist *exp = unit_hist_alloc();
	struct tb_sums sums = {}, empty = {};
	u64 data[4], seven = 7;
	struct tb_heap heap;

	tb_heap_init(&heap, data, ARRAY_SIZE(data));
	tb_hist_add(exp, 7);
	record_fast(&seven, 1, 0, h, &heap, &sums);
	sums = empty;
	heap.nr = 0;
	record_fast(NULL, 0, 6, h, &heap, &sums);
	check_cpu_hist_equal(exp, h, "histogram");
	unit_expect_u64(0, heap.nr, "heap entries");
	unit_expect_u64(empty.nr, sums.nr, "sums: windows");
	unit_expect_u128(empty.raw, sums.raw, "sums: ticks");
	tb_cpu_hist_reset(h);
	unit_expect_u64(0, h->t.nr, "after the reset: nr");
	unit_expect_u64(0, h->dense[7], "after the reset: dense[7]");
	free(h);
	free(exp);
	unit_arena_free(arena);
}

/*
 * A round as tb_measure_cpu() runs it, recorded as tb_sample_loop()
 * records, with an empty window of skewed cost: 255 of 10 ticks and one
 * of 10 + 2560, median 10, mean 20. The none block, empty windows of the
 * same cost, must average exactly 0, and a pair that costs 4 more, 4:
 * less the median, as `average` was before, both would be 10 too high.
 * The histograms are less the median, as they always were.
 */
#define SKEWED_BLOCK	1024

static u64 skewed(size_t i, u64 cost)
{
	return (i % TB_SUMS_EMPTY == 100 ? 2570 : 10) + cost;
}

static void check_skewed_round(u64 cost, u64 batch,
			       const struct tb_sfixed *expected,
			       const struct tb_sfixed *by_median)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *cal = unit_cpu_hist_alloc(arena);
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
	u64 *ticks = unit_alloc(SKEWED_BLOCK), data[4], median;
	struct tb_sums cal_sums = {}, sums = {};
	struct tb_heap cal_heap, heap;
	struct tb_u128 less;
	size_t i;

	tb_heap_init(&cal_heap, NULL, 0);
	tb_heap_init(&heap, data, ARRAY_SIZE(data));
	/* the calibration: TB_SUMS_EMPTY windows, less a pilot of 0 */
	for (i = 0; i < TB_SUMS_EMPTY; i++)
		ticks[i] = skewed(i, 0) * batch;
	record_fast(ticks, TB_SUMS_EMPTY, 0, cal, &cal_heap, &cal_sums);
	median = tb_cpu_hist_median(cal);
	unit_expect_u64(10 * batch, median, "the calibration's median");
	unit_expect_u64(TB_SUMS_EMPTY, cal_sums.nr, "empty windows");
	unit_expect_u128(((struct tb_u128){ 0, 20 * TB_SUMS_EMPTY * batch }),
			 cal_sums.raw, "their ticks");

	/* a block less the median, then beside the empty windows' mean */
	for (i = 0; i < SKEWED_BLOCK; i++)
		ticks[i] = skewed(i, cost) * batch;
	record_fast(ticks, SKEWED_BLOCK, median, h, &heap, &sums);
	tb_sums_less(&sums, tb_sums_round_less(cal_sums.raw, SKEWED_BLOCK));
	unit_expect_sfixed(*expected, tb_sums_mean(&sums, batch), "average");
	less = tb_u128_mul(median, SKEWED_BLOCK);
	unit_expect_sfixed(*by_median,
			   tb_fixed_diff_ratio(sums.raw, less,
					       SKEWED_BLOCK * batch, 0),
			   "less the median instead");
	unit_expect_u64(cost * batch, tb_cpu_hist_median(h), "the block's median");
	unit_expect_u64((2560 + cost) * batch, h->t.max, "the block's max");
	free(ticks);
	free(h);
	free(cal);
	unit_arena_free(arena);
}

static void check_skewed(void)
{
	const struct tb_sfixed zero = { false, { 0, 0 } };
	const struct tb_sfixed four = { false, { 4, 0 } };
	const struct tb_sfixed ten = { false, { 10, 0 } };
	const struct tb_sfixed fourteen = { false, { 14, 0 } };

	check_skewed_round(0, 1, &zero, &ten);
	check_skewed_round(4, 1, &four, &fourteen);
	check_skewed_round(4, 3, &four, &fourteen);
}

/*
 * A histogram whose count says windows but whose range is empty (min above
 * max) has no bucket in use: the reset must not touch the buckets.
 */
static void check_reset_empty_range(void)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);

	h->t.nr = 256;
	tb_cpu_hist_reset(h);
	unit_expect_u64(0, h->t.nr, "nr");
	unit_expect_u64(U64_MAX, h->t.min, "min");
	free(h);
	unit_arena_free(arena);
}

static void run_rec(void)
{
	size_t i;

	unit_srand(0x72656364ULL);
	for (i = 0; i < ARRAY_SIZE(rec_cases); i++) {
		unit_begin("tb_rec: %s", rec_cases[i].name);
		run_rec_case(&rec_cases[i]);
		unit_end();
	}
	unit_begin("tb_rec: a loop stopped before its first window records nothing");
	check_no_window();
	unit_end();
	unit_begin("tb_rec: an empty window of median 10, mean 20: average less 20");
	check_skewed();
	unit_end();
	unit_begin("tb_cpu_hist_reset: nr without a range touches no bucket");
	check_reset_empty_range();
	unit_end();
}

const struct unit_suite rec_suite = {
	.name = "rec",
	.nr_cases = ARRAY_SIZE(rec_cases) + 3,
	.run = run_rec,
};
