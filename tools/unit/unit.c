// SPDX-License-Identifier: GPL-2.0-only
/*
 * Harness, references and shared checkers for the host unit tests.
 *
 * Output is KTAP-like: a plan line, one "ok N name" or "not ok N name" line
 * per case preceded by "# " diagnostics for its failed expectations, and a
 * last line "P passed, F failed". The exit status is non-zero on failure.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sanitizer/common_interface_defs.h>

#include "unit.h"

#define MAX_DIAGS	8	/* diagnostics printed per case */

char unit_case_name[160];
static unsigned int case_nr, nr_passed, nr_failed, case_diags;
static bool case_failed, in_case;

void unit_start(void)
{
	case_failed = false;
	case_diags = 0;
	in_case = true;
}

void unit_end(void)
{
	in_case = false;
	case_nr++;
	if (case_failed) {
		nr_failed++;
		printf("not ");
	} else {
		nr_passed++;
	}
	printf("ok %u %s\n", case_nr, unit_case_name);
}

bool unit_fail(void)
{
	case_failed = true;
	if (case_diags++ == MAX_DIAGS)
		printf("# further diagnostics of this case suppressed\n");
	return case_diags <= MAX_DIAGS;
}

/* The Makefile links with --wrap=tb_sort to count tb_select()'s fallback. */
unsigned long tb_sort_calls;

void __wrap_tb_sort(u64 *v, size_t n)
{
	tb_sort_calls++;
	__real_tb_sort(v, n);
}

/* splitmix64: a fixed seed gives the same cases on every run. */
static u64 rand_state;

void unit_srand(u64 seed)
{
	rand_state = seed;
}

u64 unit_rand(void)
{
	u64 z = (rand_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Exactly @n entries, so that AddressSanitizer catches any overrun. */
u64 *unit_alloc(size_t n)
{
	u64 *v = malloc(n ? n * sizeof(*v) : 1);

	if (!v) {
		perror("malloc");
		exit(2);
	}
	return v;
}

u64 *unit_dup(const u64 *v, size_t n)
{
	u64 *d = unit_alloc(n);

	if (n)
		memcpy(d, v, n * sizeof(*v));
	return d;
}

/* Poisoned before tb_hist_init(), so that it must clear everything. */
struct tb_hist *unit_hist_alloc(void)
{
	struct tb_hist *h = malloc(sizeof(*h));

	if (!h) {
		perror("malloc");
		exit(2);
	}
	memset(h, 0xa5, sizeof(*h));
	tb_hist_init(h);
	return h;
}

struct tb_hist *unit_hist_of(const u64 *v, size_t n)
{
	struct tb_hist *h = unit_hist_alloc();
	size_t i;

	for (i = 0; i < n; i++)
		tb_hist_add(h, v[i]);
	return h;
}

static int ref_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

void ref_sort(u64 *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), ref_cmp);
}

bool ref_same_multiset(const u64 *a, const u64 *b, size_t n)
{
	u64 *x = unit_dup(a, n), *y = unit_dup(b, n);
	bool same;

	ref_sort(x, n);
	ref_sort(y, n);
	same = !n || !memcmp(x, y, n * sizeof(*x));
	free(x);
	free(y);
	return same;
}

u64 ref_median(const u64 *sorted, size_t n)
{
	if (!n)
		return 0;
	if (n & 1)
		return sorted[n / 2];
	return ((__uint128_t)sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void check_select(const u64 *in, const u64 *sorted, size_t n, size_t k,
		  const char *ctx)
{
	u64 *v = unit_dup(in, n);
	u64 got = tb_select(v, n, k);
	size_t i;

	unit_expect_u64(sorted[k], got, "%s: tb_select(k=%zu)", ctx, k);
	unit_expect_u64(sorted[k], v[k], "%s: tb_select(k=%zu) v[k]", ctx, k);
	for (i = 0; i < n; i++) {
		if (i < k ? v[i] <= v[k] : v[i] >= v[k])
			continue;
		unit_expect(false, "%s: tb_select(k=%zu) left v[%zu]=%llu %s v[k]=%llu",
			    ctx, k, i, v[i], i < k ? ">" : "<", v[k]);
		break;
	}
	unit_expect(ref_same_multiset(v, sorted, n),
		    "%s: tb_select(k=%zu) did not permute the input", ctx, k);
	free(v);
}

void check_sort(const u64 *in, const u64 *sorted, size_t n, const char *ctx)
{
	u64 *v = unit_dup(in, n);
	size_t i;

	tb_sort(v, n);
	for (i = 0; i < n; i++)
		if (!unit_expect_u64(sorted[i], v[i], "%s: tb_sort v[%zu]",
				     ctx, i))
			break;
	free(v);
}

void check_heap(const u64 *in, const u64 *sorted, size_t n, size_t size,
		const char *ctx)
{
	size_t keep = size < n ? size : n, i;
	u64 *storage = unit_alloc(size);
	struct tb_heap heap;

	for (i = 0; i < size; i++)
		storage[i] = 0x5a5a5a5a5a5a5a5aULL;
	tb_heap_init(&heap, storage, size);
	unit_expect(heap.data == storage && heap.nr == 0 && heap.size == size,
		    "%s: tb_heap_init(size=%zu) fields", ctx, size);
	unit_expect_u64(0, tb_heap_min(&heap), "%s: tb_heap_min(size=%zu) empty",
			ctx, size);
	for (i = 0; i < n; i++)
		tb_heap_offer(&heap, in[i]);
	unit_expect_u64(keep, heap.nr, "%s: heap(size=%zu) nr", ctx, size);
	unit_expect_u64(keep ? sorted[n - keep] : 0, tb_heap_min(&heap),
			"%s: tb_heap_min(size=%zu)", ctx, size);
	unit_expect(heap.nr == keep &&
		    ref_same_multiset(heap.data, sorted + n - keep, keep),
		    "%s: heap(size=%zu) does not hold the %zu largest values",
		    ctx, size, keep);
	free(storage);
}

/*
 * The i-th k or heap size to try, up to n - 1 + @extra: all of them for
 * small @n, the interesting ones for large @n. SIZE_MAX ends the list.
 */
static size_t pick(size_t n, size_t extra, unsigned int i)
{
	size_t mid = n / 2, max = n - 1 + extra;
	const size_t picks[] = {
		0, 1, 2, 3, n / 3, mid - 1, mid, mid + 1, n - mid,
		n - mid + 1, n / 4 * 3, n - 2, n - 1, n, n + 1, n + 2,
	};

	if (n <= 64)
		return i <= max ? i : SIZE_MAX;
	if (i >= ARRAY_SIZE(picks))
		return SIZE_MAX;
	return picks[i] < max ? picks[i] : max;
}

void check_all(const u64 *in, size_t n, const char *ctx)
{
	u64 *sorted = unit_dup(in, n), *v = unit_alloc(n);
	unsigned int i;
	size_t x;

	ref_sort(sorted, n);

	memcpy(v, in, n * sizeof(*v));
	unit_expect_u64(ref_median(sorted, n), tb_median(v, n),
			"%s: tb_median", ctx);
	unit_expect(ref_same_multiset(v, sorted, n),
		    "%s: tb_median did not permute the input", ctx);
	unit_expect_u64(n ? sorted[n - 1] : 0, tb_max(in, n), "%s: tb_max",
			ctx);

	check_sort(in, sorted, n, ctx);
	for (i = 0; n && (x = pick(n, 0, i)) != SIZE_MAX; i++)
		check_select(in, sorted, n, x, ctx);
	for (i = 0; (x = pick(n, 3, i)) != SIZE_MAX; i++)
		check_heap(in, sorted, n, x, ctx);

	free(v);
	free(sorted);
}

/*
 * A sanitizer report ends the run: fail the current case and still end with
 * the summary line. AddressSanitizer calls the death callback; the
 * UndefinedBehaviorSanitizer runtime combined with it does not, so have it
 * abort and catch SIGABRT.
 */
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1:abort_on_error=1";
}

static void unit_died(void)
{
	printf("# sanitizer report on stderr, the remaining cases did not run\n");
	if (in_case) {
		case_failed = true;
		unit_end();
	} else {
		nr_failed++;
	}
	printf("%u passed, %u failed\n", nr_passed, nr_failed);
	fflush(stdout);
}

static void unit_aborted(int sig)
{
	unit_died();
	signal(sig, SIG_DFL);
	raise(sig);
}

void check_hist_equal(const struct tb_hist *exp, const struct tb_hist *got,
		      const char *ctx)
{
	unsigned int b;

	unit_expect_u64(exp->nr, got->nr, "%s: nr", ctx);
	unit_expect_u64(exp->min, got->min, "%s: min", ctx);
	unit_expect_u64(exp->max, got->max, "%s: max", ctx);
	unit_expect_u128(exp->sum, got->sum, "%s: sum", ctx);
	for (b = 0; b < TB_HIST_BUCKETS; b++)
		if (!unit_expect_u64(exp->count[b], got->count[b],
				     "%s: count[%u]", ctx, b))
			break;
}

struct unit_arena {
	struct tb_arena arena;
	struct tb_slab *slab[TB_UNIT_HISTS * TB_NR_CHUNKS / TB_SLAB_CHUNKS];
};

struct tb_arena *unit_arena_alloc(void)
{
	struct unit_arena *u = calloc(1, sizeof(*u));

	if (!u) {
		perror("calloc");
		exit(2);
	}
	tb_arena_init(&u->arena, u->slab, ARRAY_SIZE(u->slab));
	return &u->arena;
}

void unit_arena_free(struct tb_arena *a)
{
	unsigned int i;

	for (i = 0; i < a->nr_slabs; i++)
		free(a->slab[i]);
	free(a);	/* the first member of its struct unit_arena */
}

struct tb_cpu_hist *unit_cpu_hist_alloc(struct tb_arena *a)
{
	struct tb_cpu_hist *h = malloc(sizeof(*h));

	if (!h) {
		perror("malloc");
		exit(2);
	}
	memset(h, 0xa5, sizeof(*h));
	tb_cpu_hist_init(h, a);
	return h;
}

void unit_fold(struct tb_cpu_hist *h, struct tb_spill *spill, bool flush)
{
	unsigned int need = tb_cpu_hist_need(h, spill, flush);
	struct tb_slab *slab;

	while (tb_arena_room(h->arena) < need) {
		slab = calloc(1, sizeof(*slab));
		if (!slab) {
			perror("calloc");
			exit(2);
		}
		if (!unit_expect(tb_arena_give(h->arena, slab),
				 "the arena is full at %u slabs",
				 h->arena->nr_slabs)) {
			free(slab);
			return;
		}
	}
	unit_expect(tb_cpu_hist_fold(h, spill, flush),
		    "fold: %u chunks needed, room for %u", need,
		    tb_arena_room(h->arena));
}

void unit_cpu_hist_record(struct tb_cpu_hist *h, const u64 *v, size_t n,
			  size_t block)
{
	static struct tb_spill spill;
	struct tb_sums sums = {};
	struct tb_heap heap;
	size_t i, j, m;

	tb_heap_init(&heap, NULL, 0);
	for (i = 0; i < n; i += m) {
		struct tb_rec_fast fast;
		struct tb_rec rec;
		u64 fast_sum = 0;

		m = n - i < block ? n - i : block;
		if (tb_cpu_hist_flush_due(h, m))
			unit_fold(h, &spill, true);
		fast = tb_rec_init(&rec, h, &spill, &heap, 0);
		for (j = i; j < i + m; j++)
			if (!tb_rec_fast_add(tb_rec_counts(h), fast, v[j],
					     &fast_sum))
				fast = tb_rec_slow(&rec, v[j]);
		tb_rec_finish(&rec, m, fast_sum, &sums);
		unit_fold(h, &spill, false);
	}
}

void check_cpu_hist_equal(const struct tb_hist *exp,
			  const struct tb_cpu_hist *got, const char *ctx)
{
	static const u64 levels[][2] = {
		{ 1, 100 }, { 1, 2 }, { 9, 10 }, { 99, 100 }, { 999, 1000 },
		{ 1, 1 },
	};
	struct tb_hist *merged = unit_hist_alloc();
	unsigned int b;
	size_t i;

	tb_cpu_hist_merge(merged, got);
	check_hist_equal(exp, merged, ctx);
	for (b = 0; b < TB_HIST_UNDER; b++)
		if (!unit_expect_u64(0, got->under[b], "%s: under[%u]", ctx, b))
			break;
	unit_expect_u64(tb_hist_median(exp), tb_cpu_hist_median(got),
			"%s: median", ctx);
	for (i = 0; i < ARRAY_SIZE(levels); i++)
		unit_expect_u64(tb_hist_percentile(exp, levels[i][0],
						   levels[i][1]),
				tb_cpu_hist_percentile(got, levels[i][0],
						       levels[i][1]),
				"%s: percentile %llu/%llu", ctx, levels[i][0],
				levels[i][1]);
	for (i = 0; i <= 8; i++)
		unit_expect_u64(tb_hist_rank(exp, exp->nr * i / 8),
				tb_cpu_hist_rank(got, exp->nr * i / 8),
				"%s: rank %llu", ctx, exp->nr * i / 8);
	free(merged);
}

int main(void)
{
	static const struct unit_suite *const suites[] = {
		&heap_suite, &stats_suite, &structured_suite, &random_suite,
		&hist_suite, &pace_suite, &rec_suite, &cpu_hist_suite, &ticks_suite,
	};
	size_t plan = 0, i;

	/* keep the output up to a crash the sanitizers report */
	setvbuf(stdout, NULL, _IOLBF, 0);
	__sanitizer_set_death_callback(unit_died);
	signal(SIGABRT, unit_aborted);
	for (i = 0; i < ARRAY_SIZE(suites); i++)
		plan += suites[i]->nr_cases;
	printf("KTAP version 1\n1..%zu\n", plan);
	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		unsigned int first = case_nr;

		printf("# suite: %s\n", suites[i]->name);
		suites[i]->run();
		if (case_nr - first != suites[i]->nr_cases) {
			printf("# suite %s ran %u cases, planned %zu\n",
			       suites[i]->name, case_nr - first,
			       suites[i]->nr_cases);
			nr_failed++;
		}
	}
	printf("%u passed, %u failed\n", nr_passed, nr_failed);
	return nr_failed ? 1 : 0;
}
