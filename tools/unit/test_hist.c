// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of hist.c: tables of hand-computed expectations for the buckets,
 * the histogram's figures and the 128-bit and fixed-point helpers, then
 * sweeps and random inputs checked against references independent of it:
 * bucket bounds by masking, a sorted copy, and __uint128_t arithmetic.
 * struct tb_hist is about 138 KiB, so every histogram is malloc()ed.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "unit.h"

#define P63		(U64_MAX / 2 + 1)	/* 2^63 */
/* low bound of the last bucket, 511 << 55 */
#define LAST_LOW	18410715276690587648ULL

/* Fail the case unless two struct tb_fixed are equal. */
#define unit_expect_fixed(expected, got, fmt, ...) ({			\
	struct tb_fixed __e = (expected), __g = (got);			\
									\
	unit_expect(__e.whole == __g.whole && __e.milli == __g.milli,	\
		    fmt ": expected %llu.%03u, got %llu.%03u",		\
		    ##__VA_ARGS__, __e.whole, __e.milli, __g.whole,	\
		    __g.milli);						\
})

/*
 * References. Bucket bounds come from masking the bits below the leading
 * 1 and the 8 after it, not from hist.c's index arithmetic.
 */
static u64 ref_width(u64 v)
{
	unsigned int msb = 0;

	if (v < 4096)
		return 1;
	while (v >>= 1)
		msb++;
	return 1ULL << (msb - 8);
}

static u64 ref_low(u64 v)
{
	return v & ~(ref_width(v) - 1);
}

static u64 ref_high(u64 v)
{
	return ref_low(v) + (ref_width(v) - 1);
}

static struct tb_u128 ref_u128(__uint128_t v)
{
	return (struct tb_u128){ .hi = v >> 64, .lo = (u64)v };
}

static __uint128_t ref_wide(struct tb_u128 v)
{
	return (__uint128_t)v.hi << 64 | v.lo;
}

/* n / d with three decimals, for d < 2^118: n % d * 1000 fits */
static struct tb_fixed ref_ratio_wide(__uint128_t n, __uint128_t d)
{
	if (n / d > U64_MAX)
		return (struct tb_fixed){ U64_MAX, 999 };
	return (struct tb_fixed){ n / d, n % d * 1000 / d };
}

static struct tb_fixed ref_ratio(__uint128_t n, u64 d)
{
	return ref_ratio_wide(n, d);
}

/* The @rank-th smallest (clamped to 1..n) as its bucket's low bound. */
static u64 ref_rank(const u64 *sorted, size_t n, __uint128_t rank)
{
	if (!n)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return ref_low(sorted[rank - 1]);
}

static u64 ref_hist_percentile(const u64 *sorted, size_t n, u64 num, u64 den)
{
	return ref_rank(sorted, n, ((__uint128_t)n * num + den - 1) / den);
}

static u64 ref_hist_median(const u64 *sorted, size_t n)
{
	u64 lower, upper;

	if (!n)
		return 0;
	upper = ref_low(sorted[n / 2]);
	if (n & 1)
		return upper;
	lower = ref_low(sorted[n / 2 - 1]);
	return lower + (upper - lower) / 2;
}

struct bucket_case {
	const char *name;
	u64 v;
	unsigned int bucket;
	u64 low, high;
};

static const struct bucket_case bucket_cases[] = {
	{ "0", 0, 0, 0, 0 },
	{ "1", 1, 1, 1, 1 },
	{ "4095, the last exact value", 4095, 4095, 4095, 4095 },
	{ "4096, the first shared bucket", 4096, 4096, 4096, 4111 },
	{ "4111, the end of the first shared bucket", 4111, 4096, 4096, 4111 },
	{ "4112", 4112, 4097, 4112, 4127 },
	{ "5000", 5000, 4152, 4992, 5007 },
	{ "2^13 - 1", 8191, 4351, 8176, 8191 },
	{ "2^13, where the width doubles", 8192, 4352, 8192, 8223 },
	{ "1000000", 1000000, 6120, 999424, 1001471 },
	{ "2^20 - 1", 1048575, 6143, 1046528, 1048575 },
	{ "2^20", 1048576, 6144, 1048576, 1052671 },
	{ "2^32 - 1", 4294967295ULL, 9215, 4286578688ULL, 4294967295ULL },
	{ "2^32", 4294967296ULL, 9216, 4294967296ULL, 4311744511ULL },
	{ "2^32 + 1", 4294967297ULL, 9216, 4294967296ULL, 4311744511ULL },
	{ "2^63 - 1", P63 - 1, 17151, 9205357638345293824ULL, P63 - 1 },
	{ "2^63", P63, 17152, P63, 9259400833873739775ULL },
	{ "U64_MAX - 1", U64_MAX - 1, 17407, LAST_LOW, U64_MAX },
	{ "U64_MAX", U64_MAX, 17407, LAST_LOW, U64_MAX },
};

static void run_bucket_case(const struct bucket_case *c)
{
	unit_expect_u64(c->bucket, tb_hist_bucket(c->v), "tb_hist_bucket");
	unit_expect_u64(c->low, tb_hist_bucket_low(c->bucket),
			"tb_hist_bucket_low");
	unit_expect_u64(c->high, tb_hist_bucket_high(c->bucket),
			"tb_hist_bucket_high");
}

/* Histograms fed @v: their figures, percentiles as num / 100. */
struct figures_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 min, max;
	struct tb_u128 sum;	/* { hi, lo } */
	struct tb_fixed mean;	/* { whole, milli } */
	u64 median, p1, p50, p99;
};

static const struct figures_case figures_cases[] = {
	{ "empty", (const u64[]){ 7 }, 0, U64_MAX, 0, { 0, 0 }, { 0, 0 },
	  0, 0, 0, 0 },
	{ "one 0", TB_SAMPLES(0), 0, 0, { 0, 0 }, { 0, 0 }, 0, 0, 0, 0 },
	{ "one 4095", TB_SAMPLES(4095), 4095, 4095, { 0, 4095 }, { 4095, 0 },
	  4095, 4095, 4095, 4095 },
	{ "one 4096", TB_SAMPLES(4096), 4096, 4096, { 0, 4096 }, { 4096, 0 },
	  4096, 4096, 4096, 4096 },
	{ "one 5000, figures are its bucket's low", TB_SAMPLES(5000),
	  5000, 5000, { 0, 5000 }, { 5000, 0 }, 4992, 4992, 4992, 4992 },
	{ "n = 2, median rounds down", TB_SAMPLES(5, 4), 4, 5, { 0, 9 },
	  { 4, 500 }, 4, 4, 4, 5 },
	{ "even n", TB_SAMPLES(1, 2, 3, 4), 1, 4, { 0, 10 }, { 2, 500 },
	  2, 1, 2, 4 },
	{ "odd n", TB_SAMPLES(9, 1, 5), 1, 9, { 0, 15 }, { 5, 0 }, 5, 1, 5, 9 },
	{ "mean 4/3 rounds down", TB_SAMPLES(1, 1, 2), 1, 2, { 0, 4 },
	  { 1, 333 }, 1, 1, 1, 2 },
	{ "mean 5/3 rounds down", TB_SAMPLES(1, 2, 2), 1, 2, { 0, 5 },
	  { 1, 666 }, 2, 1, 2, 2 },
	{ "0 and 4095", TB_SAMPLES(0, 4095), 0, 4095, { 0, 4095 },
	  { 2047, 500 }, 2047, 0, 0, 4095 },
	{ "4095 and 4096 straddle the exact range", TB_SAMPLES(4096, 4095),
	  4095, 4096, { 0, 8191 }, { 4095, 500 }, 4095, 4095, 4095, 4096 },
	{ "5000 and 9000, two bucket widths", TB_SAMPLES(5000, 9000),
	  5000, 9000, { 0, 14000 }, { 7000, 0 }, 6992, 4992, 4992, 8992 },
	{ "U64_MAX twice: the sum carries, the mean is exact",
	  TB_SAMPLES(U64_MAX, U64_MAX), U64_MAX, U64_MAX, { 1, U64_MAX - 1 },
	  { U64_MAX, 0 }, LAST_LOW, LAST_LOW, LAST_LOW, LAST_LOW },
	{ "U64_MAX - 1 and U64_MAX", TB_SAMPLES(U64_MAX, U64_MAX - 1),
	  U64_MAX - 1, U64_MAX, { 1, U64_MAX - 2 }, { U64_MAX - 1, 500 },
	  LAST_LOW, LAST_LOW, LAST_LOW, LAST_LOW },
	{ "2^63, 2^63 and 1: the sum overflows 64 bits",
	  TB_SAMPLES(P63, 1, P63), 1, P63, { 1, 1 },
	  { 6148914691236517205ULL, 666 }, P63, 1, P63, P63 },
	{ "0 and U64_MAX", TB_SAMPLES(U64_MAX, 0), 0, U64_MAX, { 0, U64_MAX },
	  { 9223372036854775807ULL, 500 }, 9205357638345293824ULL,
	  0, 0, LAST_LOW },
};

static void run_figures_case(const struct figures_case *c)
{
	struct tb_hist *h = unit_hist_of(c->v, c->n);

	unit_expect_u64(c->n, h->nr, "nr");
	unit_expect_u64(c->min, h->min, "min");
	unit_expect_u64(c->max, h->max, "max");
	unit_expect_u128(c->sum, h->sum, "sum");
	unit_expect_fixed(c->mean, tb_hist_mean(h), "tb_hist_mean");
	unit_expect_u64(c->median, tb_hist_median(h), "tb_hist_median");
	unit_expect_u64(c->p1, tb_hist_percentile(h, 1, 100), "p1");
	unit_expect_u64(c->p50, tb_hist_percentile(h, 50, 100), "p50");
	unit_expect_u64(c->p99, tb_hist_percentile(h, 99, 100), "p99");
	free(h);
}

struct percentile_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 num, den;
	u64 expected;
};

/* The examples of the nearest-rank method in Wikipedia's "Percentile". */
#define WIKI5	TB_SAMPLES(40, 15, 50, 35, 20)
#define WIKI10	TB_SAMPLES(16, 8, 3, 20, 10, 6, 15, 8, 13, 7)
#define WIDE	TB_SAMPLES(1000000, 5000, 9000)
/* at both ends of the exact range, so that a wrong rank shows */
#define THREE	TB_SAMPLES(4095, 0, 4094)
#define DUPS	TB_SAMPLES(5, 5, 1, 5, 1, 5)

static const struct percentile_case percentile_cases[] = {
	{ "1/100", WIKI5, 1, 100, 15 },
	{ "5/100", WIKI5, 5, 100, 15 },
	{ "30/100", WIKI5, 30, 100, 20 },
	{ "40/100, exact rank", WIKI5, 40, 100, 20 },
	{ "50/100", WIKI5, 50, 100, 35 },
	{ "100/100", WIKI5, 100, 100, 50 },
	{ "1/1", WIKI5, 1, 1, 50 },
	{ "1/3", WIKI5, 1, 3, 20 },
	{ "2/3", WIKI5, 2, 3, 40 },
	{ "3/5, exact rank", WIKI5, 3, 5, 35 },
	{ "1/10^6", WIKI5, 1, 1000000, 15 },
	{ "999999/10^6", WIKI5, 999999, 1000000, 50 },
	{ "200000/10^6, exact rank", WIKI5, 200000, 1000000, 15 },
	{ "200001/10^6", WIKI5, 200001, 1000000, 20 },
	{ "U64_MAX/U64_MAX", WIKI5, U64_MAX, U64_MAX, 50 },
	{ "1/U64_MAX", WIKI5, 1, U64_MAX, 15 },
	{ "(U64_MAX - 1)/U64_MAX", WIKI5, U64_MAX - 1, U64_MAX, 50 },
	{ "n = 10, 1/100", WIKI10, 1, 100, 3 },
	{ "n = 10, 25/100", WIKI10, 25, 100, 7 },
	{ "n = 10, 50/100", WIKI10, 50, 100, 8 },
	{ "n = 10, 75/100", WIKI10, 75, 100, 15 },
	{ "n = 10, 90/100", WIKI10, 90, 100, 16 },
	{ "n = 10, 91/100", WIKI10, 91, 100, 20 },
	{ "n = 10, 100/100", WIKI10, 100, 100, 20 },
	{ "empty", (const u64[]){ 7 }, 0, 50, 100, 0 },
	{ "n = 1, 100/100", TB_SAMPLES(42), 100, 100, 42 },
	{ "n = 2, 51/100, rank 2", TB_SAMPLES(9, 1), 51, 100, 9 },
	{ "n = 3, 33/100, rank 1", THREE, 33, 100, 0 },
	{ "n = 3, 34/100, rank 2", THREE, 34, 100, 4094 },
	{ "n = 3, 66/100, rank 2", THREE, 66, 100, 4094 },
	{ "n = 3, 67/100, rank 3", THREE, 67, 100, 4095 },
	{ "duplicates, 33/100", DUPS, 33, 100, 1 },
	{ "duplicates, 50/100", DUPS, 50, 100, 5 },
	{ "bucket lows, 1/3", WIDE, 1, 3, 4992 },
	{ "bucket lows, 1/2", WIDE, 1, 2, 8992 },
	{ "bucket lows, 1/1", WIDE, 1, 1, 999424 },
};

static void run_percentile_case(const struct percentile_case *c)
{
	struct tb_hist *h = unit_hist_of(c->v, c->n);

	unit_expect_u64(c->expected, tb_hist_percentile(h, c->num, c->den),
			"tb_hist_percentile(%llu, %llu)", c->num, c->den);
	free(h);
}

struct rank_case {
	const char *name;
	const u64 *v;
	size_t n;
	u64 rank, expected;
};

#define RANKS	TB_SAMPLES(5000, 9, 1, 5)

static const struct rank_case rank_cases[] = {
	{ "0 clamps to 1", RANKS, 0, 1 },
	{ "1", RANKS, 1, 1 },
	{ "2", RANKS, 2, 5 },
	{ "3", RANKS, 3, 9 },
	{ "4, a bucket's low", RANKS, 4, 4992 },
	{ "n + 1 clamps to n", RANKS, 5, 4992 },
	{ "U64_MAX clamps to n", RANKS, U64_MAX, 4992 },
	{ "duplicates", TB_SAMPLES(3, 3, 3, 8), 3, 3 },
	{ "empty", (const u64[]){ 7 }, 0, 1, 0 },
	{ "empty, rank 0", (const u64[]){ 7 }, 0, 0, 0 },
};

static void run_rank_case(const struct rank_case *c)
{
	struct tb_hist *h = unit_hist_of(c->v, c->n);

	unit_expect_u64(c->expected, tb_hist_rank(h, c->rank),
			"tb_hist_rank(%llu)", c->rank);
	free(h);
}

/*
 * Counts no test could feed one by one: @nr values, @nr_two of them 2 and
 * the rest 4. Each pair of rows puts the rank at the last 2 and just past.
 */
struct big_case {
	const char *name;
	u64 nr, nr_two;
	u64 num, den;
	u64 percentile, median;
};

static const struct big_case big_cases[] = {
	{ "nr U64_MAX, 1/2, rank 2^63 the last 2", U64_MAX, P63, 1, 2, 2, 2 },
	{ "nr U64_MAX, 1/2, rank 2^63 the first 4", U64_MAX, P63 - 1, 1, 2,
	  4, 4 },
	{ "nr U64_MAX, 999999/10^6, the last 2", U64_MAX,
	  18446725626965477906ULL, 999999, 1000000, 2, 2 },
	{ "nr U64_MAX, 999999/10^6, the first 4", U64_MAX,
	  18446725626965477905ULL, 999999, 1000000, 4, 2 },
	{ "nr U64_MAX, U64_MAX/U64_MAX, the last 2", U64_MAX, U64_MAX,
	  U64_MAX, U64_MAX, 2, 2 },
	{ "nr U64_MAX, U64_MAX/U64_MAX, the first 4", U64_MAX, U64_MAX - 1,
	  U64_MAX, U64_MAX, 4, 2 },
	{ "nr U64_MAX, (U64_MAX - 1)/U64_MAX, the last 2", U64_MAX,
	  U64_MAX - 1, U64_MAX - 1, U64_MAX, 2, 2 },
	{ "nr U64_MAX, (U64_MAX - 1)/U64_MAX, the first 4", U64_MAX,
	  U64_MAX - 2, U64_MAX - 1, U64_MAX, 4, 2 },
	{ "nr U64_MAX, 1/U64_MAX, the last 2", U64_MAX, 1, 1, U64_MAX, 2, 4 },
	{ "nr U64_MAX, 1/U64_MAX, the first 4", U64_MAX, 0, 1, U64_MAX, 4, 4 },
	{ "nr U64_MAX - 1, middle values 2 and 4", U64_MAX - 1, P63 - 1, 1, 2,
	  2, 3 },
	{ "nr U64_MAX - 1, middle values 2", U64_MAX - 1, P63, 1, 2, 2, 2 },
	{ "nr U64_MAX - 1, middle values 4", U64_MAX - 1, P63 - 2, 1, 2, 4, 4 },
	{ "nr 2^63 + 1, the last 2", P63 + 1, (1ULL << 62) + 1, 1, 2, 2, 2 },
	{ "nr 2^63 + 1, the first 4", P63 + 1, 1ULL << 62, 1, 2, 4, 4 },
};

static void run_big_case(const struct big_case *c)
{
	struct tb_hist *h = unit_hist_alloc();

	h->count[2] = c->nr_two;
	h->count[4] = c->nr - c->nr_two;
	h->nr = c->nr;
	h->min = c->nr_two ? 2 : 4;
	h->max = c->nr_two < c->nr ? 4 : 2;
	unit_expect_u64(c->percentile, tb_hist_percentile(h, c->num, c->den),
			"tb_hist_percentile(%llu, %llu)", c->num, c->den);
	unit_expect_u64(c->median, tb_hist_median(h), "tb_hist_median");
	free(h);
}

struct merge_case {
	const char *name;
	const u64 *a;		/* fed to the destination */
	size_t na;
	const u64 *b;		/* fed to the source */
	size_t nb;
	u64 nr, min, max;
	struct tb_u128 sum;	/* { hi, lo } */
};

#define A(...)	TB_U64S(a, na, __VA_ARGS__)
#define B(...)	TB_U64S(b, nb, __VA_ARGS__)

static const struct merge_case merge_cases[] = {
	{ "both non-empty", A(1, 5000, 7), B(3, 9000), 5, 1, 9000,
	  { 0, 14011 } },
	{ "into an empty one", .a = NULL, .na = 0, B(4, U64_MAX),
	  2, 4, U64_MAX, { 1, 3 } },
	{ "an empty one", A(4, U64_MAX), .b = NULL, .nb = 0,
	  2, 4, U64_MAX, { 1, 3 } },
	{ "both empty", .a = NULL, .na = 0, .b = NULL, .nb = 0,
	  0, U64_MAX, 0, { 0, 0 } },
	{ "min and max from the source", A(100), B(1000, 1), 3, 1, 1000,
	  { 0, 1101 } },
	{ "same buckets", A(5000, 5001), B(5002, 1), 4, 1, 5002,
	  { 0, 15004 } },
	{ "the low sum words carry", A(U64_MAX), B(1), 2, 1, U64_MAX,
	  { 1, 0 } },
	{ "the high sum words add", A(U64_MAX, U64_MAX), B(U64_MAX, U64_MAX, 2),
	  5, 2, U64_MAX, { 3, U64_MAX - 1 } },
};

/* Feed @v[0..n-1] into @h as measure.c's sampling loop does. */
static void feed_hist(struct tb_hist *h, const u64 *v, size_t n)
{
	struct tb_hist_totals totals = TB_HIST_TOTALS_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		tb_hist_feed(h, &totals, v[i]);
	unit_expect_u64(n, totals.nr, "tb_hist_feed() totals nr");
	tb_hist_add_totals(h, &totals);
}

static void run_merge_case(const struct merge_case *c)
{
	u64 *all = unit_alloc(c->na + c->nb);
	struct tb_hist *dst, *src, *src_copy, *whole;

	if (c->na)
		memcpy(all, c->a, c->na * sizeof(*all));
	if (c->nb)
		memcpy(all + c->na, c->b, c->nb * sizeof(*all));
	dst = unit_hist_of(c->a, c->na);
	src = unit_hist_of(c->b, c->nb);
	src_copy = unit_hist_of(c->b, c->nb);
	whole = unit_hist_of(all, c->na + c->nb);

	tb_hist_merge(dst, src);
	unit_expect_u64(c->nr, dst->nr, "nr");
	unit_expect_u64(c->min, dst->min, "min");
	unit_expect_u64(c->max, dst->max, "max");
	unit_expect_u128(c->sum, dst->sum, "sum");
	check_hist_equal(whole, dst, "merged vs fed everything");
	check_hist_equal(src_copy, src, "source after the merge");
	free(whole);

	/* the second part fed as a sampling loop feeds it, totals aside */
	whole = unit_hist_of(c->a, c->na);
	feed_hist(whole, c->b, c->nb);
	check_hist_equal(dst, whole, "tb_hist_feed() and tb_hist_add_totals()");
	free(whole);
	free(src_copy);
	free(src);
	free(dst);
	free(all);
}

struct mul_case {
	const char *name;
	u64 a, b;
	struct tb_u128 product;	/* { hi, lo } */
};

static const struct mul_case mul_cases[] = {
	{ "0 * 0", 0, 0, { 0, 0 } },
	{ "0 * U64_MAX", 0, U64_MAX, { 0, 0 } },
	{ "1 * U64_MAX", 1, U64_MAX, { 0, U64_MAX } },
	{ "(2^32 - 1)^2", 0xffffffffULL, 0xffffffffULL,
	  { 0, 0xfffffffe00000001ULL } },
	{ "2^32 * 2^32", 1ULL << 32, 1ULL << 32, { 1, 0 } },
	{ "2^63 * 2", P63, 2, { 1, 0 } },
	{ "U64_MAX * 2", U64_MAX, 2, { 1, U64_MAX - 1 } },
	{ "U64_MAX * 1000", U64_MAX, 1000, { 999, 0xfffffffffffffc18ULL } },
	{ "U64_MAX * (2^32 + 1)", U64_MAX, 0x100000001ULL,
	  { 0x100000000ULL, 0xfffffffeffffffffULL } },
	{ "(2^33 - 1)^2, the middle digit carries 2", 0x1ffffffffULL,
	  0x1ffffffffULL, { 3, 0xfffffffc00000001ULL } },
	{ "U64_MAX * U64_MAX", U64_MAX, U64_MAX, { U64_MAX - 1, 1 } },
	{ "mixed digits", 0x123456789abcdef0ULL, 0xfedcba9876543210ULL,
	  { 0x121fa00ad77d7422ULL, 0x236d88fe5618cf00ULL } },
};

static void run_mul_case(const struct mul_case *c)
{
	unit_expect_u128(c->product, tb_u128_mul(c->a, c->b), "a * b");
	unit_expect_u128(c->product, tb_u128_mul(c->b, c->a), "b * a");
}

struct add_case {
	const char *name;
	struct tb_u128 a, b, sum;	/* { hi, lo } */
};

static const struct add_case add_cases[] = {
	{ "0 + 0", { 0, 0 }, { 0, 0 }, { 0, 0 } },
	{ "the low word carries", { 0, U64_MAX }, { 0, 1 }, { 1, 0 } },
	{ "the low word just does not carry", { 0, 1 }, { 0, U64_MAX - 1 },
	  { 0, U64_MAX } },
	{ "U64_MAX + U64_MAX", { 0, U64_MAX }, { 0, U64_MAX },
	  { 1, U64_MAX - 1 } },
	{ "a carry into a high word", { 5, 2 }, { 0, U64_MAX }, { 6, 1 } },
	{ "high words and a carry", { 2, U64_MAX }, { 3, U64_MAX },
	  { 6, U64_MAX - 1 } },
	{ "wraps at 2^128", { U64_MAX, U64_MAX }, { 0, 1 }, { 0, 0 } },
};

static void run_add_case(const struct add_case *c)
{
	struct tb_u128 a = c->a;

	tb_u128_add128(&a, c->b);
	unit_expect_u128(c->sum, a, "tb_u128_add128");
	if (c->b.hi)
		return;
	a = c->a;
	tb_u128_add(&a, c->b.lo);
	unit_expect_u128(c->sum, a, "tb_u128_add");
}

struct div_case {
	const char *name;
	struct tb_u128 n;	/* { hi, lo } */
	u64 d, quotient, rem;
};

static const struct div_case div_cases[] = {
	{ "0 / 1", { 0, 0 }, 1, 0, 0 },
	{ "7 / 2", { 0, 7 }, 2, 3, 1 },
	{ "U64_MAX / 1", { 0, U64_MAX }, 1, U64_MAX, 0 },
	{ "U64_MAX / U64_MAX", { 0, U64_MAX }, U64_MAX, 1, 0 },
	{ "2^64 / 2", { 1, 0 }, 2, P63, 0 },
	{ "2^64 / 3", { 1, 0 }, 3, 6148914691236517205ULL, 1 },
	{ "2^64 / U64_MAX", { 1, 0 }, U64_MAX, 1, 1 },
	{ "(2 * 2^64 + 4) / 7", { 2, 4 }, 7, 5270498306774157605ULL, 1 },
	{ "(2^127 - 1) / 2^63, the 65th bit", { P63 - 1, U64_MAX }, P63,
	  U64_MAX, P63 - 1 },
	{ "(2^66 - 1) / 2^62", { 3, U64_MAX }, 1ULL << 62, 15,
	  (1ULL << 62) - 1 },
	{ "(7 * 2^64 - 1) / 7, just fits", { 6, U64_MAX }, 7, U64_MAX, 6 },
	{ "U64_MAX^2 / U64_MAX, just fits", { U64_MAX - 1, 1 }, U64_MAX,
	  U64_MAX, 0 },
	{ "(U64_MAX^2 + 1) / U64_MAX", { U64_MAX - 1, 2 }, U64_MAX,
	  U64_MAX, 1 },
	{ "(U64_MAX^2 - 1) / U64_MAX", { U64_MAX - 1, 0 }, U64_MAX,
	  U64_MAX - 1, U64_MAX - 1 },
	{ "saturates: 2^64 / 1", { 1, 0 }, 1, U64_MAX, 0 },
	{ "saturates: 7 * 2^64 / 7", { 7, 0 }, 7, U64_MAX, 0 },
	{ "saturates: (5 * 2^64 + 17) / 5", { 5, 17 }, 5, U64_MAX, 2 },
	{ "saturates: (2^128 - 1) / 1000", { U64_MAX, U64_MAX }, 1000,
	  U64_MAX, 455 },
	{ "saturates: (2^128 - 1) / (U64_MAX - 1)", { U64_MAX, U64_MAX },
	  U64_MAX - 1, U64_MAX, 3 },
	{ "saturates: (2^128 - 1) / U64_MAX", { U64_MAX, U64_MAX }, U64_MAX,
	  U64_MAX, 0 },
};

static void run_div_case(const struct div_case *c)
{
	u64 rem = 0x5a5a5a5a5a5a5a5aULL;

	unit_expect_u64(c->quotient, tb_u128_div(c->n, c->d, &rem),
			"quotient");
	unit_expect_u64(c->rem, rem, "remainder");
	unit_expect_u64(c->quotient, tb_u128_div(c->n, c->d, NULL),
			"quotient without the remainder");
}

struct ratio_case {
	const char *name;
	struct tb_u128 n;	/* { hi, lo } */
	u64 d;
	struct tb_fixed expected;	/* { whole, milli } */
};

static const struct ratio_case ratio_cases[] = {
	{ "0 / 1", { 0, 0 }, 1, { 0, 0 } },
	{ "1 / 3", { 0, 1 }, 3, { 0, 333 } },
	{ "2 / 3 rounds down", { 0, 2 }, 3, { 0, 666 } },
	{ "1 / 1000", { 0, 1 }, 1000, { 0, 1 } },
	{ "999 / 1000", { 0, 999 }, 1000, { 0, 999 } },
	{ "1 / 1001 rounds down to 0", { 0, 1 }, 1001, { 0, 0 } },
	{ "1000 / 1001", { 0, 1000 }, 1001, { 0, 999 } },
	{ "7 / 2", { 0, 7 }, 2, { 3, 500 } },
	{ "U64_MAX / 1", { 0, U64_MAX }, 1, { U64_MAX, 0 } },
	{ "U64_MAX / U64_MAX", { 0, U64_MAX }, U64_MAX, { 1, 0 } },
	{ "(U64_MAX - 1) / U64_MAX, rem * 1000 needs 128 bits",
	  { 0, U64_MAX - 1 }, U64_MAX, { 0, 999 } },
	{ "2^63 / U64_MAX", { 0, P63 }, U64_MAX, { 0, 500 } },
	{ "2^64 / 2", { 1, 0 }, 2, { P63, 0 } },
	{ "(2^64 + 1) / 2", { 1, 1 }, 2, { P63, 500 } },
	{ "U64_MAX^2 / U64_MAX", { U64_MAX - 1, 1 }, U64_MAX, { U64_MAX, 0 } },
	{ "(2^64 * U64_MAX - 1) / U64_MAX, the largest unsaturated",
	  { U64_MAX - 1, U64_MAX }, U64_MAX, { U64_MAX, 999 } },
	{ "saturates: 2^64 / 1", { 1, 0 }, 1, { U64_MAX, 999 } },
	{ "saturates: (2^128 - 1) / U64_MAX", { U64_MAX, U64_MAX }, U64_MAX,
	  { U64_MAX, 999 } },
};

/* @n / (@d * 2^@shift): a divisor that is never formed */
static const struct ratio_shr_case {
	const char *name;
	struct tb_u128 n;	/* { hi, lo } */
	u64 d;
	unsigned int shift;
	struct tb_fixed expected;	/* { whole, milli } */
} ratio_shr_cases[] = {
	{ "1 / 2^8", { 0, 1 }, 1, 8, { 0, 3 } },
	{ "255 / 2^8: the bits shifted out make the thousandths", { 0, 255 },
	  1, 8, { 0, 996 } },
	{ "1000 / (3 * 2^8): a remainder from both", { 0, 1000 }, 3, 8,
	  { 1, 302 } },
	{ "5120 / (2 * 2^8)", { 0, 5120 }, 2, 8, { 10, 0 } },
	{ "3 * 2^68 / (2^60 * 2^8): the divisor needs 69 bits",
	  { 0x30, 0 }, 1ULL << 60, 8, { 3, 0 } },
	{ "U64_MAX * 2^8 / (U64_MAX * 2^8)", { 0xff, 0xffffffffffffff00ULL },
	  U64_MAX, 8, { 1, 0 } },
	{ "(U64_MAX * 2^8 - 1) / (U64_MAX * 2^8)",
	  { 0xff, 0xfffffffffffffeffULL }, U64_MAX, 8, { 0, 999 } },
	{ "(2^72 - 1) / 2^8, the largest unsaturated", { 0xff, U64_MAX }, 1,
	  8, { U64_MAX, 996 } },
	{ "saturates: 2^72 / 2^8", { 0x100, 0 }, 1, 8, { U64_MAX, 999 } },
	{ "7 / 2^53, the widest shift", { 0, 7 }, 1, 53, { 0, 0 } },
	{ "2^117 / (2^53 * 2^53)", { 1ULL << 53, 0 }, 1ULL << 53, 53,
	  { 2048, 0 } },
};

static void run_ratio_case(const struct ratio_case *c)
{
	unit_expect_fixed(c->expected, tb_fixed_ratio(c->n, c->d),
			  "tb_fixed_ratio");
	unit_expect_fixed(c->expected, tb_fixed_ratio_shr(c->n, c->d, 0),
			  "tb_fixed_ratio_shr, shift 0");
}

static void run_ratio_shr_case(const struct ratio_shr_case *c)
{
	unit_expect_fixed(c->expected, tb_fixed_ratio_shr(c->n, c->d, c->shift),
			  "tb_fixed_ratio_shr");
}

/*
 * (a - b) / (d * 2^shift), signed: the magnitude rounds toward 0, -0.000
 * is 0.000
 */
static const struct diff_case {
	const char *name;
	struct tb_u128 a, b;	/* { hi, lo } */
	u64 d;
	struct tb_sfixed expected;	/* { neg, { whole, milli } } */
	unsigned int shift;
} diff_cases[] = {
	{ "0 - 0", { 0, 0 }, { 0, 0 }, 1, { false, { 0, 0 } }, 0 },
	{ "7 - 3 over 2", { 0, 7 }, { 0, 3 }, 2, { false, { 2, 0 } }, 0 },
	{ "3 - 7 over 2", { 0, 3 }, { 0, 7 }, 2, { true, { 2, 0 } }, 0 },
	{ "1 - 2 over 3 rounds toward 0", { 0, 1 }, { 0, 2 }, 3,
	  { true, { 0, 333 } }, 0 },
	{ "-1 over 1001 is 0.000, not negative", { 0, 0 }, { 0, 1 }, 1001,
	  { false, { 0, 0 } }, 0 },
	{ "borrow across 64 bits: 2^64 - 1", { 1, 0 }, { 0, 1 }, 1,
	  { false, { U64_MAX, 0 } }, 0 },
	{ "borrow across 64 bits: 1 - 2^64", { 0, 1 }, { 1, 0 }, 1,
	  { true, { U64_MAX, 0 } }, 0 },
	{ "hi decides before lo", { 1, 0 }, { 0, U64_MAX }, 1000,
	  { false, { 0, 1 } }, 0 },
	{ "1 - 2 over 2^8", { 0, 1 }, { 0, 2 }, 1, { true, { 0, 3 } }, 8 },
	{ "-1 over 2^8 * 1001 is 0.000", { 0, 0 }, { 0, 1 }, 1001,
	  { false, { 0, 0 } }, 8 },
	{ "2^8 * 10 - 5120 over 2^8: -10", { 0, 2560 }, { 0, 5120 }, 1,
	  { true, { 10, 0 } }, 8 },
	{ "a borrow, over 2^8: (2^64 - 256) / 2^8", { 1, 0 }, { 0, 256 }, 1,
	  { false, { (1ULL << 56) - 1, 0 } }, 8 },
};

static void run_diff_case(const struct diff_case *c)
{
	unit_expect_sfixed(c->expected, tb_fixed_diff_ratio(c->a, c->b, c->d,
							    c->shift),
			   "tb_fixed_diff_ratio");
}

/*
 * `average` from tb_sums, against the figure worked out by hand: the mean
 * of the windows less, for each, the mean of its round's TB_SUMS_EMPTY
 * empty windows, which are @empty but for @spikes of @spike. Rounds are
 * added as the module adds them, each beside its own empty windows.
 * Nothing is clamped, so windows below the mean empty window pull the
 * figure down, below 0 if need be.
 */
static const struct sums_case {
	const char *name;
	u64 batch;
	size_t nr_rounds;
	struct {
		u64 empty, spike, spikes;
		size_t n;
		u64 windows[4];
	} rounds[3];
	struct tb_sfixed expected;	/* { neg, { whole, milli } } */
} sums_cases[] = {
	{ "no windows", 1, 0, {}, { false, { 0, 0 } } },
	{ "all above the empty window", 1, 1, { { 5, 0, 0, 3, { 6, 7, 8 } } },
	  { false, { 2, 0 } } },
	{ "some below: -2 +4 -1 is 1/3, clamping would give 4/3", 1, 1,
	  { { 5, 0, 0, 3, { 3, 9, 4 } } }, { false, { 0, 333 } } },
	{ "all below: a negative mean", 1, 1, { { 6, 0, 0, 2, { 5, 4 } } },
	  { true, { 1, 500 } } },
	{ "the empty window itself: 0", 1, 1,
	  { { 6, 0, 0, 4, { 6, 6, 6, 6 } } }, { false, { 0, 0 } } },
	/* 255 of 10 and one of 2570: the median is 10, the mean 20 */
	{ "the mean empty window, 20, not the median, 10", 1, 1,
	  { { 10, 2570, 1, 3, { 30, 30, 30 } } }, { false, { 10, 0 } } },
	{ "windows like the skewed empty ones: 0, not 10", 1, 1,
	  { { 10, 2570, 1, 4, { 10, 30, 20, 20 } } }, { false, { 0, 0 } } },
	{ "the typical empty window, below their mean: -10", 1, 1,
	  { { 10, 2570, 1, 2, { 10, 10 } } }, { true, { 10, 0 } } },
	{ "a mean empty window of 10 + 1/256: -1/256 rounds toward 0", 1, 1,
	  { { 10, 11, 1, 1, { 10 } } }, { true, { 0, 3 } } },
	{ "a mean empty window of 10 + 255/256: -0.996", 1, 1,
	  { { 11, 10, 1, 1, { 10 } } }, { true, { 0, 996 } } },
	{ "rounds with empty windows of their own", 1, 2,
	  { { 6, 0, 0, 2, { 5, 7 } }, { 10, 0, 0, 2, { 9, 13 } } },
	  { false, { 0, 500 } } },
	{ "rounds of skewed and plain empty windows, 2 and 1 windows", 1, 2,
	  { { 10, 2570, 1, 2, { 21, 21 } }, { 10, 0, 0, 1, { 13 } } },
	  { false, { 1, 666 } } },
	{ "per pair: batch 4", 4, 1, { { 5, 0, 0, 2, { 3, 4 } } },
	  { true, { 0, 375 } } },
	{ "per pair: batch 10000", 10000, 1, { { 100, 0, 0, 1, { 90 } } },
	  { true, { 0, 1 } } },
	{ "per pair, batch 1000: (10 - (10 + 1/256)) / 1000 is 0.000", 1000, 1,
	  { { 10, 11, 1, 1, { 10 } } }, { false, { 0, 0 } } },
};

/* The ticks of a round's empty windows. */
static struct tb_u128 sums_case_empty(u64 empty, u64 spike, u64 spikes)
{
	struct tb_u128 sum = tb_u128_mul(empty, TB_SUMS_EMPTY - spikes);

	tb_u128_add128(&sum, tb_u128_mul(spike, spikes));
	return sum;
}

static void run_sums_case(const struct sums_case *c)
{
	struct tb_sums s = {};
	struct tb_u128 empty;
	size_t r, i;

	for (r = 0; r < c->nr_rounds; r++) {
		struct tb_u128 raw = {};

		for (i = 0; i < c->rounds[r].n; i++)
			tb_u128_add(&raw, c->rounds[r].windows[i]);
		tb_sums_add(&s, raw, c->rounds[r].n);
		empty = sums_case_empty(c->rounds[r].empty, c->rounds[r].spike,
					c->rounds[r].spikes);
		tb_sums_less(&s, tb_sums_round_less(empty, c->rounds[r].n));
	}
	unit_expect_sfixed(c->expected, tb_sums_mean(&s, c->batch),
			   "tb_sums_mean");
}

/* Merging sums is adding them: two halves give the whole's mean. */
static void check_sums_merge(void)
{
	struct tb_sums a = {}, b = {}, all = {};
	const struct tb_sfixed third = { false, { 0, 333 } };
	const struct tb_u128 empty = { 0, 5 * TB_SUMS_EMPTY };

	tb_sums_add(&a, (struct tb_u128){ 0, 3 }, 1);
	tb_sums_less(&a, tb_sums_round_less(empty, 1));
	tb_sums_add(&b, (struct tb_u128){ 0, 13 }, 2);
	tb_sums_less(&b, tb_sums_round_less(empty, 2));
	tb_sums_add(&all, (struct tb_u128){ 0, 16 }, 3);
	tb_sums_less(&all, tb_sums_round_less(empty, 3));
	tb_sums_merge(&a, &b);
	unit_expect_u64(all.nr, a.nr, "nr");
	unit_expect_u128(all.raw, a.raw, "raw");
	unit_expect_u128(all.less, a.less, "less");
	unit_expect_sfixed(third, tb_sums_mean(&a, 1), "merged mean");
}

/*
 * The bounds struct tb_sums documents, at their limits: a CPU's 2^40
 * windows (TB_MAX_SAMPLES) of U64_MAX ticks at batch 10^4, then 8192 such
 * CPUs merged at batch 1, the most nr * batch allows. Every product must
 * fit: the figures come out exact.
 */
static void check_sums_bounds(void)
{
	/* U64_MAX / 10^4 */
	const struct tb_sfixed per_pair = {
		false, { 1844674407370955ULL, 161 }
	};
	const struct tb_sfixed zero = { false, { 0, 0 } };
	const struct tb_sfixed top = { false, { U64_MAX, 0 } };
	const struct tb_sfixed bottom = { true, { U64_MAX, 0 } };
	const u64 nr = 1ULL << 40;
	struct tb_u128 full = tb_u128_mul(U64_MAX, nr);
	struct tb_u128 empty = tb_u128_mul(U64_MAX, TB_SUMS_EMPTY);
	struct tb_sums cpu = {}, none = {}, idle = {};
	struct tb_sums run = {}, run_none = {}, run_idle = {};
	unsigned int i;

	/* windows and empty windows of U64_MAX: 0 */
	tb_sums_add(&cpu, full, nr);
	tb_sums_less(&cpu, tb_sums_round_less(empty, nr));
	unit_expect_sfixed(zero, tb_sums_mean(&cpu, 10000), "one CPU, 0");
	/* of U64_MAX beside empty windows of 0: U64_MAX per window */
	tb_sums_add(&idle, full, nr);
	tb_sums_less(&idle, tb_sums_round_less((struct tb_u128){}, nr));
	unit_expect_sfixed(per_pair, tb_sums_mean(&idle, 10000),
			   "one CPU, U64_MAX per window");
	/* of 0 beside empty windows of U64_MAX: -U64_MAX */
	tb_sums_add(&none, (struct tb_u128){}, nr);
	tb_sums_less(&none, tb_sums_round_less(empty, nr));
	unit_expect_sfixed(bottom, tb_sums_mean(&none, 1),
			   "one CPU, -U64_MAX per window");

	for (i = 0; i < 8192; i++) {
		tb_sums_merge(&run, &cpu);
		tb_sums_merge(&run_idle, &idle);
		tb_sums_merge(&run_none, &none);
	}
	unit_expect_u64(1ULL << 53, run.nr, "8192 CPUs: windows");
	unit_expect_sfixed(zero, tb_sums_mean(&run, 1), "8192 CPUs, 0");
	unit_expect_sfixed(top, tb_sums_mean(&run_idle, 1),
			   "8192 CPUs, U64_MAX");
	unit_expect_sfixed(bottom, tb_sums_mean(&run_none, 1),
			   "8192 CPUs, -U64_MAX");
}

/* Sweeps over every bucket and every magnitude, against the references. */
static void check_every_bucket(void)
{
	u64 prev_high = 0;
	unsigned int b;

	unit_expect_u64(0, tb_hist_bucket_low(0), "first bucket's low");
	unit_expect_u64(U64_MAX, tb_hist_bucket_high(TB_HIST_BUCKETS - 1),
			"last bucket's high");
	for (b = 0; b < TB_HIST_BUCKETS; b++) {
		u64 low = tb_hist_bucket_low(b), high = tb_hist_bucket_high(b);

		unit_expect(low <= high, "bucket %u: low %llu > high %llu",
			    b, low, high);
		unit_expect_u64(b, tb_hist_bucket(low), "bucket of %u's low", b);
		unit_expect_u64(b, tb_hist_bucket(high), "bucket of %u's high",
				b);
		unit_expect_u64(low, ref_low(high), "bucket %u: masked high",
				b);
		unit_expect_u64(high, ref_high(low), "bucket %u: high", b);
		if (b)
			unit_expect_u64(prev_high + 1, low,
					"bucket %u: gap or overlap after %u",
					b, b - 1);
		prev_high = high;
	}
}

static void check_exact_range(void)
{
	u64 v;

	for (v = 0; v < 4096; v++) {
		unsigned int b = tb_hist_bucket(v);

		unit_expect_u64(v, b, "bucket of %llu", v);
		unit_expect_u64(v, tb_hist_bucket_low(b), "low of %llu", v);
		unit_expect_u64(v, tb_hist_bucket_high(b), "high of %llu", v);
	}
}

static void check_powers_of_two(void)
{
	unsigned int k, i;

	for (k = 0; k < 64; k++) {
		u64 p = 1ULL << k;
		const u64 near[] = { p - 1, p, p + 1 };

		for (i = 0; i < ARRAY_SIZE(near); i++) {
			unsigned int b = tb_hist_bucket(near[i]);

			unit_expect_u64(ref_low(near[i]), tb_hist_bucket_low(b),
					"low of %llu", near[i]);
			unit_expect_u64(ref_high(near[i]),
					tb_hist_bucket_high(b),
					"high of %llu", near[i]);
		}
		if (k < 12)
			continue;
		unit_expect_u64(4096 + (k - 12) * 256, tb_hist_bucket(p),
				"bucket of 2^%u", k);
		unit_expect_u64(tb_hist_bucket(p) - 1, tb_hist_bucket(p - 1),
				"bucket of 2^%u - 1", k);
	}
}

/* The bucket's low is never above a value, and within 1/256 below it. */
static void check_error_bound(u64 v)
{
	unsigned int b = tb_hist_bucket(v);
	u64 low = tb_hist_bucket_low(b), high = tb_hist_bucket_high(b);

	unit_expect(low <= v && v <= high, "%llu outside bucket %u [%llu, %llu]",
		    v, b, low, high);
	unit_expect_u64(ref_low(v), low, "low of %llu", v);
	if (v)
		unit_expect((__uint128_t)(v - low) * 256 < v,
			    "low %llu of %llu is 1/256 or more below", low, v);
	else
		unit_expect_u64(0, low, "low of 0");
}

static void check_error_bounds(void)
{
	unsigned int k, i;

	unit_srand(0x68697374);
	for (k = 0; k < 64; k++) {
		u64 top = 1ULL << k;

		check_error_bound(top);
		check_error_bound(top - 1);
		check_error_bound(top | (top - 1));
		check_error_bound(top | (top >> 1));
		for (i = 0; i < 256; i++)
			check_error_bound(top | (unit_rand() & (top - 1)));
	}
	check_error_bound(0);
	check_error_bound(U64_MAX);
}

static void check_past_last_bucket(void)
{
	const unsigned int past[] = { TB_HIST_BUCKETS, TB_HIST_BUCKETS + 1,
				      UINT_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(past); i++) {
		unit_expect_u64(LAST_LOW, tb_hist_bucket_low(past[i]),
				"low of bucket %u", past[i]);
		unit_expect_u64(U64_MAX, tb_hist_bucket_high(past[i]),
				"high of bucket %u", past[i]);
	}
}

static void check_init(void)
{
	struct tb_hist *h = unit_hist_alloc();
	unsigned int b;

	unit_expect_u64(0, h->nr, "nr");
	unit_expect_u64(U64_MAX, h->min, "min");
	unit_expect_u64(0, h->max, "max");
	unit_expect_u128(((struct tb_u128){ 0, 0 }), h->sum, "sum");
	for (b = 0; b < TB_HIST_BUCKETS; b++)
		if (!unit_expect_u64(0, h->count[b], "count[%u]", b))
			break;
	free(h);
}

#define NR_RANDOM	20000

/* All magnitudes, and now and then a value at an edge. */
static u64 random_operand(void)
{
	static const u64 edges[] = {
		0, 1, 2, 3, 999, 1000, 0xffffffffULL, 1ULL << 32, P63 - 1,
		P63, U64_MAX - 1, U64_MAX,
	};
	u64 r = unit_rand();

	if (r % 8 == 0)
		return edges[(r >> 3) % ARRAY_SIZE(edges)];
	return unit_rand() >> (r >> 8) % 64;
}

static void check_random_mul(void)
{
	unsigned int i;

	unit_srand(1);
	for (i = 0; i < NR_RANDOM; i++) {
		u64 a = random_operand(), b = random_operand();

		unit_expect_u128(ref_u128((__uint128_t)a * b),
				 tb_u128_mul(a, b), "%llu * %llu", a, b);
	}
}

static void check_random_add(void)
{
	unsigned int i;

	unit_srand(2);
	for (i = 0; i < NR_RANDOM; i++) {
		struct tb_u128 a = { random_operand(), random_operand() };
		struct tb_u128 b = { random_operand(), random_operand() };
		struct tb_u128 got = a;

		tb_u128_add128(&got, b);
		unit_expect_u128(ref_u128(ref_wide(a) + ref_wide(b)), got,
				 "{ %llu, %llu } + { %llu, %llu }",
				 a.hi, a.lo, b.hi, b.lo);
		got = a;
		tb_u128_add(&got, b.lo);
		unit_expect_u128(ref_u128(ref_wide(a) + b.lo), got,
				 "{ %llu, %llu } + %llu", a.hi, a.lo, b.lo);
	}
}

static void check_random_div(void)
{
	unsigned int i;

	unit_srand(3);
	for (i = 0; i < NR_RANDOM; i++) {
		struct tb_u128 n = { random_operand(), random_operand() };
		u64 d = random_operand() ? : 1, rem = 0, q;
		__uint128_t wide;

		/* a third of them with n.hi < d, where nothing saturates */
		if (i % 3 == 0)
			n.hi = d > 1 ? unit_rand() % d : 0;
		wide = ref_wide(n);
		q = tb_u128_div(n, d, &rem);
		unit_expect_u64(wide / d > U64_MAX ? U64_MAX : (u64)(wide / d),
				q, "{ %llu, %llu } / %llu", n.hi, n.lo, d);
		unit_expect_u64(wide % d, rem, "{ %llu, %llu } %% %llu",
				n.hi, n.lo, d);
	}
}

static void check_random_ratio(void)
{
	unsigned int i;

	unit_srand(4);
	for (i = 0; i < NR_RANDOM; i++) {
		struct tb_u128 n = { random_operand(), random_operand() };
		u64 d = random_operand() ? : 1;

		if (i % 3 == 0)
			n.hi = d > 1 ? unit_rand() % d : 0;
		unit_expect_fixed(ref_ratio(ref_wide(n), d),
				  tb_fixed_ratio(n, d), "{ %llu, %llu } / %llu",
				  n.hi, n.lo, d);
	}
}

/* Divisors past 64 bits, d * 2^shift, which only the reference forms. */
static void check_random_ratio_shr(void)
{
	static const unsigned int shifts[] = { 1, 8, 31, 53 };
	unsigned int i, s;

	unit_srand(5);
	for (i = 0; i < NR_RANDOM; i++) {
		struct tb_u128 n = { random_operand(), random_operand() };
		u64 d = random_operand() ? : 1;
		__uint128_t wide;

		s = shifts[i % ARRAY_SIZE(shifts)];
		/* a third of them surely unsaturated: n < d * 2^64 */
		if (i % 3 == 0)
			n.hi = d > 1 ? unit_rand() % d : 0;
		wide = (__uint128_t)d << s;
		unit_expect_fixed(ref_ratio_wide(ref_wide(n), wide),
				  tb_fixed_ratio_shr(n, d, s),
				  "{ %llu, %llu } / (%llu * 2^%u)", n.hi, n.lo,
				  d, s);
	}
}

static const struct sweep_case {
	const char *name;
	void (*run)(void);
} sweep_cases[] = {
	{ "tb_hist_init clears a poisoned histogram", check_init },
	{ "every bucket round-trips and abuts the next", check_every_bucket },
	{ "every value below 4096 has a bucket of its own",
	  check_exact_range },
	{ "powers of two and their neighbours", check_powers_of_two },
	{ "the low bound is within 1/256, at every magnitude",
	  check_error_bounds },
	{ "buckets past the last act as the last", check_past_last_bucket },
	{ "tb_u128_mul against __uint128_t", check_random_mul },
	{ "tb_u128_add and tb_u128_add128 against __uint128_t",
	  check_random_add },
	{ "tb_u128_div against __uint128_t", check_random_div },
	{ "tb_fixed_ratio against __uint128_t", check_random_ratio },
	{ "tb_fixed_ratio_shr against __uint128_t", check_random_ratio_shr },
};

/* Histograms of random values against a sorted copy. */
static const char *const random_kinds[] = {
	"below 4096", "few distinct, just below 4096", "all magnitudes",
	"cycles with outliers", "near U64_MAX",
};

static u64 random_value(unsigned int kind)
{
	u64 r = unit_rand();

	switch (kind) {
	case 0:
		return r % 4096;
	case 1:
		return 4092 + r % 4;
	case 2:
		return unit_rand() >> r % 64;
	case 3:
		return r & 15 ? 20 + (r >> 60) : r >> (r & 63);
	default:
		return U64_MAX - r % 8;
	}
}

static const size_t random_sizes[] = {
	0, 1, 2, 3, 4, 5, 10, 11, 64, 100, 101, 1000, 4099,
};

static const struct {
	u64 num, den;
} fractions[] = {
	{ 1, 1000 }, { 999, 1000 }, { 1, 1000000 }, { 999999, 1000000 },
	{ 1, 3 }, { 2, 3 }, { 1, 1 }, { 1, U64_MAX }, { U64_MAX - 1, U64_MAX },
	{ U64_MAX, U64_MAX },
};

/* Every bucket in use holds exactly the values masking to its low. */
static void check_counts(const struct tb_hist *h, const u64 *sorted,
			 size_t n, const char *ctx)
{
	unsigned int b, used = 0, groups = 0;
	size_t i = 0, j;

	for (b = 0; b < TB_HIST_BUCKETS; b++)
		used += !!h->count[b];
	while (i < n) {
		u64 low = ref_low(sorted[i]);

		j = i;
		while (j < n && ref_low(sorted[j]) == low)
			j++;
		b = tb_hist_bucket(sorted[i]);
		unit_expect_u64(low, tb_hist_bucket_low(b),
				"%s: low of bucket %u", ctx, b);
		unit_expect_u64(j - i, h->count[b], "%s: count[%u]", ctx, b);
		groups++;
		i = j;
	}
	unit_expect_u64(groups, used, "%s: buckets in use", ctx);
}

static void check_random_hist(const u64 *in, size_t n, const char *ctx)
{
	u64 *sorted = unit_dup(in, n), *v = unit_alloc(n);
	struct tb_hist *h = unit_hist_of(in, n), *dst, *src;
	size_t split = unit_rand() % (n + 1), k;
	struct tb_fixed mean = { 0, 0 };
	__uint128_t sum = 0;
	unsigned int i;

	ref_sort(sorted, n);
	for (k = 0; k < n; k++)
		sum += in[k];

	unit_expect_u64(n, h->nr, "%s: nr", ctx);
	unit_expect_u64(n ? sorted[0] : U64_MAX, h->min, "%s: min", ctx);
	unit_expect_u64(n ? sorted[n - 1] : 0, h->max, "%s: max", ctx);
	unit_expect_u128(ref_u128(sum), h->sum, "%s: sum", ctx);
	if (n)
		mean = ref_ratio(sum, n);
	unit_expect_fixed(mean, tb_hist_mean(h), "%s: tb_hist_mean", ctx);
	check_counts(h, sorted, n, ctx);

	for (k = 0; k <= n + 1; k += n > 64 ? n / 16 : 1)
		unit_expect_u64(ref_rank(sorted, n, k), tb_hist_rank(h, k),
				"%s: tb_hist_rank(%zu)", ctx, k);
	unit_expect_u64(ref_rank(sorted, n, n), tb_hist_rank(h, n),
			"%s: tb_hist_rank(n)", ctx);
	unit_expect_u64(ref_rank(sorted, n, U64_MAX), tb_hist_rank(h, U64_MAX),
			"%s: tb_hist_rank(U64_MAX)", ctx);

	for (i = 1; i <= 100; i++)
		unit_expect_u64(ref_hist_percentile(sorted, n, i, 100),
				tb_hist_percentile(h, i, 100),
				"%s: tb_hist_percentile(%u, 100)", ctx, i);
	for (i = 0; i < ARRAY_SIZE(fractions); i++)
		unit_expect_u64(ref_hist_percentile(sorted, n, fractions[i].num,
						    fractions[i].den),
				tb_hist_percentile(h, fractions[i].num,
						   fractions[i].den),
				"%s: tb_hist_percentile(%llu, %llu)", ctx,
				fractions[i].num, fractions[i].den);
	unit_expect_u64(ref_hist_median(sorted, n), tb_hist_median(h),
			"%s: tb_hist_median", ctx);

	/*
	 * Below 4096 the histogram is exact: its median must agree with
	 * stats.c's. Its percentiles were checked above, ref_low() being the
	 * identity there.
	 */
	if (!n || sorted[n - 1] < 4096) {
		memcpy(v, in, n * sizeof(*v));
		unit_expect_u64(ref_median(sorted, n), tb_hist_median(h),
				"%s: tb_hist_median vs ref_median", ctx);
		unit_expect_u64(tb_median(v, n), tb_hist_median(h),
				"%s: tb_hist_median vs tb_median", ctx);
	}

	dst = unit_hist_of(in, split);
	src = unit_hist_of(in + split, n - split);
	tb_hist_merge(dst, src);
	check_hist_equal(h, dst, ctx);
	unit_expect_u64(n - split, src->nr, "%s: source nr after the merge",
			ctx);

	free(src);
	free(dst);
	free(h);
	free(v);
	free(sorted);
}

static void run_random_kind(unsigned int kind)
{
	unsigned int trial;
	char ctx[64];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(random_sizes); i++) {
		size_t n = random_sizes[i];
		u64 *v = unit_alloc(n);

		for (trial = 0; trial < 2; trial++) {
			for (j = 0; j < n; j++)
				v[j] = random_value(kind);
			snprintf(ctx, sizeof(ctx), "n=%zu, trial %u", n, trial);
			check_random_hist(v, n, ctx);
		}
		free(v);
	}
}

static void run_hist(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bucket_cases); i++) {
		unit_begin("tb_hist_bucket: %s", bucket_cases[i].name);
		run_bucket_case(&bucket_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(figures_cases); i++) {
		unit_begin("tb_hist figures: %s", figures_cases[i].name);
		run_figures_case(&figures_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(percentile_cases); i++) {
		unit_begin("tb_hist_percentile: %s", percentile_cases[i].name);
		run_percentile_case(&percentile_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(rank_cases); i++) {
		unit_begin("tb_hist_rank: %s", rank_cases[i].name);
		run_rank_case(&rank_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(big_cases); i++) {
		unit_begin("tb_hist huge counts: %s", big_cases[i].name);
		run_big_case(&big_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(merge_cases); i++) {
		unit_begin("tb_hist_merge: %s", merge_cases[i].name);
		run_merge_case(&merge_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(mul_cases); i++) {
		unit_begin("tb_u128_mul: %s", mul_cases[i].name);
		run_mul_case(&mul_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(add_cases); i++) {
		unit_begin("tb_u128_add: %s", add_cases[i].name);
		run_add_case(&add_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(div_cases); i++) {
		unit_begin("tb_u128_div: %s", div_cases[i].name);
		run_div_case(&div_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(ratio_cases); i++) {
		unit_begin("tb_fixed_ratio: %s", ratio_cases[i].name);
		run_ratio_case(&ratio_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(ratio_shr_cases); i++) {
		unit_begin("tb_fixed_ratio_shr: %s", ratio_shr_cases[i].name);
		run_ratio_shr_case(&ratio_shr_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(diff_cases); i++) {
		unit_begin("tb_fixed_diff_ratio: %s", diff_cases[i].name);
		run_diff_case(&diff_cases[i]);
		unit_end();
	}
	for (i = 0; i < ARRAY_SIZE(sums_cases); i++) {
		unit_begin("tb_sums_mean: %s", sums_cases[i].name);
		run_sums_case(&sums_cases[i]);
		unit_end();
	}
	unit_begin("tb_sums_merge adds the sums");
	check_sums_merge();
	unit_end();
	unit_begin("tb_sums at the bounds it documents");
	check_sums_bounds();
	unit_end();
	for (i = 0; i < ARRAY_SIZE(sweep_cases); i++) {
		unit_begin("sweep: %s", sweep_cases[i].name);
		sweep_cases[i].run();
		unit_end();
	}
	unit_srand(0x68697374ULL);
	for (i = 0; i < ARRAY_SIZE(random_kinds); i++) {
		unit_begin("random histograms: %s", random_kinds[i]);
		run_random_kind(i);
		unit_end();
	}
}

const struct unit_suite hist_suite = {
	.name = "hist",
	.nr_cases = ARRAY_SIZE(bucket_cases) + ARRAY_SIZE(figures_cases) +
		    ARRAY_SIZE(percentile_cases) + ARRAY_SIZE(rank_cases) +
		    ARRAY_SIZE(big_cases) + ARRAY_SIZE(merge_cases) +
		    ARRAY_SIZE(mul_cases) + ARRAY_SIZE(add_cases) +
		    ARRAY_SIZE(div_cases) + ARRAY_SIZE(ratio_cases) +
		    ARRAY_SIZE(ratio_shr_cases) +
		    ARRAY_SIZE(diff_cases) + ARRAY_SIZE(sums_cases) + 2 +
		    ARRAY_SIZE(sweep_cases) +
		    ARRAY_SIZE(random_kinds),
	.run = run_hist,
};
