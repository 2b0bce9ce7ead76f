// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven tests of ticks.h: a window's ticks from its counter's two
 * reads, for counters 32 and 64 bits wide, across a wrap, and read
 * backwards (timed again); and which counters count as advancing: not
 * one stuck at 0, nor one that went backwards.
 */
#include "ticks.h"
#include "unit.h"

struct ticks_case {
	const char *name;
	u64 t0;
	u64 t1;
	unsigned int bits;
	u64 ticks;		/* TB_WINDOW_AGAIN: timed again */
	bool advanced;
};

static const struct ticks_case ticks_cases[] = {
	{ "64 bits: a plain window", 1000, 1042, 64, 42, true },
	{ "64 bits: across 2^64", U64_MAX - 9, 10, 64, 20, true },
	{ "64 bits: ends before it starts", 1042, 1000, 64, (u64)-42, false },
	{ "64 bits: the largest window", 0, (1ULL << 63) - 1, 64,
	  (1ULL << 63) - 1, true },
	{ "64 bits: 2^63 ticks is none", 0, 1ULL << 63, 64, 1ULL << 63, false },
	{ "32 bits: a plain window", 1000, 1042, 32, 42, true },
	{ "32 bits: across the wrap", 0xfffffff0, 0x10, 32, 0x20, true },
	{ "32 bits, widened to u64 by sign: across the wrap",
	  0xfffffffffffffff0ULL, 0x10, 32, 0x20, true },
	{ "32 bits: ends before it starts", 1042, 1000, 32, TB_WINDOW_AGAIN,
	  false },
	{ "32 bits: 2^31 ticks, a PMU overflow set back",
	  0x10, 0x80000010, 32, TB_WINDOW_AGAIN, false },
	{ "32 bits: the largest window", 0x10, 0x8000000f, 32, 0x7fffffff,
	  true },
	{ "32 bits: bits above the counter's are ignored",
	  0xabcd000000000010ULL, 0x1234000000000052ULL, 32, 0x42, true },
	{ "a counter stuck at 0", 0, 0, 64, 0, false },
	{ "a 32-bit counter stuck at 0", 0, 0, 32, 0, false },
	{ "a counter stuck elsewhere", 12345, 12345, 64, 0, false },
	{ "1 bit: a tick", 0, 1, 1, TB_WINDOW_AGAIN, false },
	{ "2 bits: across the wrap", 3, 0, 2, 1, true },
};

static void run_ticks(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ticks_cases); i++) {
		const struct ticks_case *c = &ticks_cases[i];
		u64 got = tb_window_ticks(c->t0, c->t1, c->bits);

		unit_begin("ticks: %s", c->name);
		unit_expect_u64(c->ticks, got, "ticks");
		unit_expect(tb_window_again(got) == tb_window_again(c->ticks),
			    "timed again: expected %d", tb_window_again(c->ticks));
		unit_expect(tb_counter_advanced(c->t0, c->t1, c->bits) ==
			    c->advanced, "advanced: expected %d", c->advanced);
		unit_end();
	}
}

const struct unit_suite ticks_suite = {
	.name = "ticks",
	.nr_cases = ARRAY_SIZE(ticks_cases),
	.run = run_ticks,
};
