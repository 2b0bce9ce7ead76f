// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of struct tb_cpu_hist (hist.c), a CPU's histogram: dense in u32
 * over the exact range, chunks of u64 from an arena past it. Whatever it
 * is fed, in whatever loops, it must hold what a struct tb_hist fed the
 * same values holds, bucket for bucket and figure for figure, and take
 * only the chunks its values need.
 */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "unit.h"

#define NR_VALUES	5000

struct cpu_hist_case {
	const char *name;
	u64 (*value)(size_t i);
	size_t block;		/* windows per loop, as TB_BLOCK */
	unsigned int chunks;	/* the chunks it must end up with */
};

static u64 v_small(size_t i)
{
	return 10 + i % 7;
}

/* all below TB_HIST_EXACT, but spread over every chunk of it */
static u64 v_exact_spread(size_t i)
{
	return i * 37 % TB_HIST_EXACT;
}

/* a body, and an outlier now and then in a few chunks past the exact range */
static u64 v_outliers(size_t i)
{
	return i % 50 ? 20 + i % 3 : TB_HIST_EXACT + (i % 3) * 100000;
}

/* the same outlier each time: one chunk */
static u64 v_one_outlier(size_t i)
{
	return i % 10 ? 20 : 123456789;
}

static u64 v_any(size_t i)
{
	(void)i;
	return unit_rand() >> (unit_rand() % 64);
}

/* every chunk past the exact range, once each and then again */
static u64 v_every_chunk(size_t i)
{
	unsigned int c = TB_HIST_EXACT / TB_CHUNK +
			 i % (TB_NR_CHUNKS - TB_HIST_EXACT / TB_CHUNK);

	return tb_hist_bucket_low(c * TB_CHUNK);
}

static u64 v_extremes(size_t i)
{
	static const u64 v[] = { 0, 1, U64_MAX, 4095, 4096, 4097 };

	return v[i % ARRAY_SIZE(v)];
}

static const struct cpu_hist_case cpu_hist_cases[] = {
	{ "a narrow body: no chunk", v_small, 1000, 0 },
	{ "the whole exact range: dense, no chunk", v_exact_spread, 1000, 0 },
	/* buckets 4096 (chunk 128), 100000's and 200000's */
	{ "outliers in three chunks: three", v_outliers, 1000, 3 },
	{ "one outlier value: one chunk", v_one_outlier, 1000, 1 },
	{ "one outlier value, a loop of 1 each: one chunk", v_one_outlier, 1,
	  1 },
	{ "every chunk past the exact range: each once", v_every_chunk,
	  TB_SPILL_MAX, TB_NR_CHUNKS - TB_HIST_EXACT / TB_CHUNK },
	/* 0..4095 dense; 4096 and 4097, one chunk; U64_MAX's, another */
	{ "0, U64_MAX and the exact range's ends: two chunks", v_extremes,
	  333, 2 },
};

static void run_cpu_hist_case(const struct cpu_hist_case *c)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
	struct tb_hist *exp = unit_hist_alloc();
	u64 *v = unit_alloc(NR_VALUES);
	size_t i;

	for (i = 0; i < NR_VALUES; i++) {
		v[i] = c->value(i);
		tb_hist_add(exp, v[i]);
	}
	unit_cpu_hist_record(h, v, NR_VALUES, c->block);
	check_cpu_hist_equal(exp, h, "histogram");
	unit_expect_u64(c->chunks, arena->nr_chunks, "chunks taken");
	free(v);
	free(exp);
	free(h);
	unit_arena_free(arena);
}

/* Random values, in random loops: every figure as the plain histogram's. */
static void check_random(void)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_hist *exp = unit_hist_alloc();
	u64 *v = unit_alloc(NR_VALUES);
	unsigned int trial;
	size_t i;

	for (trial = 0; trial < 8; trial++) {
		struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);

		tb_hist_init(exp);
		for (i = 0; i < NR_VALUES; i++) {
			v[i] = trial & 1 ? v_any(i) : unit_rand() % 5000;
			tb_hist_add(exp, v[i]);
		}
		unit_cpu_hist_record(h, v, NR_VALUES,
				     1 + unit_rand() % TB_SPILL_MAX);
		check_cpu_hist_equal(exp, h, "random");
		free(h);
		/* a new arena for the next: the old one's chunks are taken */
		unit_arena_free(arena);
		arena = unit_arena_alloc();
	}
	free(v);
	free(exp);
	unit_arena_free(arena);
}

/*
 * A flush moves dense[] into chunks: nothing else changes, and dense[]
 * and its count are 0 again. It is due once a loop could take a count
 * past U32_MAX.
 */
static void check_flush(void)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
	struct tb_hist *exp = unit_hist_alloc();
	struct tb_spill spill = {};
	u64 *v = unit_alloc(NR_VALUES);
	size_t i;

	for (i = 0; i < NR_VALUES; i++) {
		v[i] = v_outliers(i) + i % 64;
		tb_hist_add(exp, v[i]);
	}
	unit_cpu_hist_record(h, v, NR_VALUES, 1000);
	unit_expect_u64(NR_VALUES, h->dense_nr, "dense_nr, before");
	/* dense: 20..85, chunks 0, 1 and 2 */
	unit_expect_u64(3, tb_cpu_hist_need(h, &spill, true),
			"chunks a flush needs");
	unit_fold(h, &spill, true);
	check_cpu_hist_equal(exp, h, "flushed");
	unit_expect_u64(0, h->dense_nr, "dense_nr, after");
	for (i = 0; i < TB_HIST_EXACT; i++)
		if (!unit_expect_u64(0, h->dense[i], "dense[%zu]", i))
			break;
	/* fed again, past the flush: counts add up in chunk and dense[] */
	unit_cpu_hist_record(h, v, NR_VALUES, 1000);
	for (i = 0; i < NR_VALUES; i++)
		tb_hist_add(exp, v[i]);
	check_cpu_hist_equal(exp, h, "flushed, then fed");

	h->dense_nr = U32_MAX - 1000;
	unit_expect(!tb_cpu_hist_flush_due(h, 1000), "a flush due, with room for the loop");
	unit_expect(tb_cpu_hist_flush_due(h, 1001), "no flush due, a loop from past U32_MAX");
	free(v);
	free(exp);
	free(h);
	unit_arena_free(arena);
}

/* A fold the arena has no room for changes nothing, and says so. */
static void check_no_room(void)
{
	struct tb_arena *arena = unit_arena_alloc();
	struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
	struct tb_cpu_hist *before = unit_cpu_hist_alloc(arena);
	struct tb_spill spill = { .nr = 3, .value = { 5000, 5001, 1 << 20 } };
	struct tb_spill spill_before = spill;

	unit_expect_u64(2, tb_cpu_hist_need(h, &spill, false),
			"chunks: 5000 and 5001 share one");
	memcpy(before, h, sizeof(*h));
	unit_expect(!tb_cpu_hist_fold(h, &spill, false),
		    "a fold into an arena with no slab");
	unit_expect(!memcmp(before, h, sizeof(*h)), "the histogram changed");
	unit_expect(!memcmp(&spill_before, &spill, sizeof(spill)),
		    "the spill changed");
	unit_fold(h, &spill, false);
	unit_expect_u64(0, spill.nr, "spill, after a fold with room");
	unit_expect_u64(2, arena->nr_chunks, "chunks taken");
	unit_expect_u64(0, tb_cpu_hist_need(h, &spill_before, false),
			"chunks the same values need again");
	free(h);
	free(before);
	unit_arena_free(arena);
}

/* An arena takes the slabs its array holds, and no more. */
static void check_arena_full(void)
{
	struct tb_slab *slab[2], *extra = calloc(1, sizeof(*extra));
	struct tb_arena a;

	tb_arena_init(&a, slab, ARRAY_SIZE(slab));
	unit_expect_u64(0, tb_arena_room(&a), "room, empty");
	unit_expect(tb_arena_give(&a, extra), "the first slab");
	unit_expect(tb_arena_give(&a, extra), "the second slab");
	unit_expect(!tb_arena_give(&a, extra), "a third slab");
	unit_expect_u64(2 * TB_SLAB_CHUNKS, tb_arena_room(&a), "room, full");
	free(extra);
}

/*
 * A reset histogram is an initialised one, whatever it held, and keeps
 * its chunks, all 0.
 */
static void check_reset(void)
{
	static const u64 v[] = { 0, 7, 4095, 4096, 1ULL << 40, U64_MAX };
	struct tb_hist *clean = unit_hist_alloc();
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		for (j = i; j < ARRAY_SIZE(v); j++) {
			struct tb_arena *arena = unit_arena_alloc();
			struct tb_cpu_hist *h = unit_cpu_hist_alloc(arena);
			unsigned int chunks;

			unit_cpu_hist_record(h, v + i, j - i + 1, 1000);
			chunks = arena->nr_chunks;
			tb_cpu_hist_reset(h);
			check_cpu_hist_equal(clean, h, "reset");
			unit_expect_u64(0, h->dense_nr, "dense_nr");
			unit_expect_u64(chunks, arena->nr_chunks, "chunks");
			free(h);
			unit_arena_free(arena);
		}
	}
	free(clean);
}

static void run_cpu_hist(void)
{
	size_t i;

	unit_srand(0x63707568ULL);
	for (i = 0; i < ARRAY_SIZE(cpu_hist_cases); i++) {
		unit_begin("tb_cpu_hist: %s", cpu_hist_cases[i].name);
		run_cpu_hist_case(&cpu_hist_cases[i]);
		unit_end();
	}
	unit_begin("tb_cpu_hist: random values in random loops");
	check_random();
	unit_end();
	unit_begin("tb_cpu_hist: a flush moves dense counts into chunks");
	check_flush();
	unit_end();
	unit_begin("tb_cpu_hist_fold: no room, no change");
	check_no_room();
	unit_end();
	unit_begin("tb_arena_give: as many slabs as the array holds");
	check_arena_full();
	unit_end();
	unit_begin("tb_cpu_hist_reset clears what was recorded");
	check_reset();
	unit_end();
}

const struct unit_suite cpu_hist_suite = {
	.name = "cpu_hist",
	.nr_cases = ARRAY_SIZE(cpu_hist_cases) + 5,
	.run = run_cpu_hist,
};
