// SPDX-License-Identifier: GPL-2.0-only
/*
 * Structured and random inputs of many sizes, checked against the naive
 * references of unit.c, which work on a copy sorted by qsort().
 */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

static const char *const patterns[] = {
	"sorted", "reversed", "organ pipe", "valley", "sawtooth", "all equal",
	"alternating 0 and U64_MAX", "sorted, minimum last",
	"sorted, maximum first", "many duplicates", "near U64_MAX, cyclic",
	"powers of two",
};

/* v[i] of pattern @p on @n values */
static u64 pattern_value(unsigned int p, size_t i, size_t n)
{
	switch (p) {
	case 0:
		return i;
	case 1:
		return n - i;
	case 2:
		return i < n / 2 ? i : n - i;
	case 3:
		return i < n / 2 ? n / 2 - i : i - n / 2;
	case 4:
		return i % 8;
	case 5:
		return 42;
	case 6:
		return i & 1 ? U64_MAX : 0;
	case 7:
		return i + 1 < n ? i + 1 : 0;
	case 8:
		return i ? i : U64_MAX;
	case 9:
		return unit_rand() % 3;
	case 10:
		return U64_MAX - i % 5;
	default:
		return 1ULL << (i % 64);
	}
}

static const size_t pattern_sizes[] = {
	1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 65, 100, 127, 128, 1000,
	1001, 4096,
};

static void run_structured(void)
{
	unsigned int p;
	size_t j, k;
	char ctx[64];

	unit_srand(2);
	for (p = 0; p < ARRAY_SIZE(patterns); p++) {
		unit_begin("structured: %s", patterns[p]);
		for (j = 0; j < ARRAY_SIZE(pattern_sizes); j++) {
			size_t n = pattern_sizes[j];
			u64 *v = unit_alloc(n);

			for (k = 0; k < n; k++)
				v[k] = pattern_value(p, k, n);
			snprintf(ctx, sizeof(ctx), "n=%zu", n);
			check_all(v, n, ctx);
			free(v);
		}
		unit_end();
	}
}

const struct unit_suite structured_suite = {
	.name = "structured",
	.nr_cases = ARRAY_SIZE(patterns),
	.run = run_structured,
};

#define NR_SMALL	51	/* n = 0..50 */
#define NR_TRIALS	2

static const size_t random_sizes[] = {
	64, 65, 100, 101, 999, 1000, 1024, 2047, 3001, 4099,
};

static const char *const kinds[] = {
	"full range", "few distinct", "near U64_MAX", "cycles with outliers",
};

static u64 random_value(unsigned int kind)
{
	u64 r = unit_rand();

	switch (kind) {
	case 0:
		return r;
	case 1:
		return r % 4;
	case 2:
		return U64_MAX - r % 8;
	default:
		return r & 15 ? 1000 + (r >> 58) : r >> 1;
	}
}

static void run_random_size(size_t n)
{
	unsigned int kind, trial;
	u64 *v = unit_alloc(n);
	char ctx[64];
	size_t i;

	for (kind = 0; kind < ARRAY_SIZE(kinds); kind++) {
		for (trial = 0; trial < NR_TRIALS; trial++) {
			for (i = 0; i < n; i++)
				v[i] = random_value(kind);
			snprintf(ctx, sizeof(ctx), "%s, trial %u",
				 kinds[kind], trial);
			check_all(v, n, ctx);
		}
	}
	free(v);
}

static void run_random(void)
{
	size_t i;

	unit_srand(0x7462656e6368ULL);
	for (i = 0; i < NR_SMALL + ARRAY_SIZE(random_sizes); i++) {
		size_t n = i < NR_SMALL ? i : random_sizes[i - NR_SMALL];

		unit_begin("random: n = %zu", n);
		run_random_size(n);
		unit_end();
	}
}

const struct unit_suite random_suite = {
	.name = "random",
	.nr_cases = NR_SMALL + ARRAY_SIZE(random_sizes),
	.run = run_random,
};
