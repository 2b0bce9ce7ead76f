/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear histogram of u64 samples, with an exact count, sum and range,
 * and the fixed-point arithmetic its figures are reported in.
 *
 * Every value below TB_HIST_EXACT has a bucket of its own, so figures
 * taken from the histogram are exact there. Above, each power of two is
 * split into 2^TB_HIST_SUB_BITS buckets: a bucket's low bound is within
 * 1/256 of every value in it, and never above one. The buckets cover the
 * whole u64 range, so no sample is ever out of range.
 *
 * Like heap.c and stats.c, hist.c is pure: no allocation, no locking, no
 * sleeping; it builds in the kernel and in user space (tools/unit/).
 */
#ifndef TRACERBENCH_HIST_H
#define TRACERBENCH_HIST_H

#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/types.h>

#include "heap.h"

#define TB_HIST_EXACT_BITS	12
#define TB_HIST_EXACT		BIT(TB_HIST_EXACT_BITS)
#define TB_HIST_SUB_BITS	8
#define TB_HIST_SUB		BIT(TB_HIST_SUB_BITS)
/* exact buckets, then TB_HIST_SUB for each power of two from 2^12 to 2^63 */
#define TB_HIST_BUCKETS		(TB_HIST_EXACT + \
				 (64 - TB_HIST_EXACT_BITS) * TB_HIST_SUB)
/* how far below 0 a sampling loop counts samples as it goes (struct tb_rec) */
#define TB_HIST_UNDER		256
/*
 * Buckets per chunk, the unit a CPU's histogram takes past its dense part
 * (struct tb_cpu_hist), and chunks per slab, the unit its owner gives.
 */
#define TB_CHUNK_BITS		5
#define TB_CHUNK		BIT(TB_CHUNK_BITS)
#define TB_NR_CHUNKS		(TB_HIST_BUCKETS / TB_CHUNK)
#define TB_SLAB_CHUNKS		64
#define TB_CHUNK_WORDS		((TB_NR_CHUNKS + 63) / 64)
/* windows a sampling loop may record between two tb_cpu_hist_fold()s */
#define TB_SPILL_MAX		1024

/* An unsigned 128-bit integer, without relying on the compiler's __int128. */
struct tb_u128 {
	u64 hi;
	u64 lo;
};

/* A non-negative figure with three decimals: whole + milli / 1000. */
struct tb_fixed {
	u64 whole;
	u32 milli;	/* 0..999 */
};

/* A figure with a sign: -(mag) when neg, which 0.000 never is. */
struct tb_sfixed {
	bool neg;
	struct tb_fixed mag;
};

struct tb_hist {
	u64 nr;			/* values recorded */
	u64 min;		/* exact; U64_MAX while nr == 0 */
	u64 max;		/* exact; 0 while nr == 0 */
	struct tb_u128 sum;	/* exact sum of the values */
	u64 count[TB_HIST_BUCKETS];
};

/* Bucket of @v: its index in count[]. */
static inline unsigned int tb_hist_bucket(u64 v)
{
	unsigned int msb;

	if (v < TB_HIST_EXACT)
		return v;
	msb = fls64(v) - 1;
	return TB_HIST_EXACT + (msb - TB_HIST_EXACT_BITS) * TB_HIST_SUB +
	       ((v >> (msb - TB_HIST_SUB_BITS)) & (TB_HIST_SUB - 1));
}

static inline void tb_u128_add(struct tb_u128 *a, u64 v)
{
	a->lo += v;
	a->hi += a->lo < v;
}

/* What a histogram records beside the buckets; see tb_hist_feed(). */
struct tb_hist_totals {
	u64 nr;
	u64 min;
	u64 max;
	struct tb_u128 sum;
};

#define TB_HIST_TOTALS_INIT	{ .min = U64_MAX }

static inline void tb_totals_feed(struct tb_hist_totals *t, u64 v)
{
	t->nr++;
	tb_u128_add(&t->sum, v);
	if (v < t->min)
		t->min = v;
	if (v > t->max)
		t->max = v;
}

/*
 * Record @v in its bucket, for a tight loop: the totals go to @t, a local
 * variable of the caller that the compiler can keep in registers, where
 * through @h every bucket store could have changed them. The loop ends
 * with tb_hist_add_totals(h, t).
 */
static inline void tb_hist_feed(struct tb_hist *h, struct tb_hist_totals *t,
				u64 v)
{
	h->count[tb_hist_bucket(v)]++;
	tb_totals_feed(t, v);
}

void tb_totals_add(struct tb_hist_totals *dst, const struct tb_hist_totals *t);
void tb_hist_add_totals(struct tb_hist *h, const struct tb_hist_totals *t);

/* Record @v; a loop over many values is better off with tb_hist_feed(). */
static inline void tb_hist_add(struct tb_hist *h, u64 v)
{
	struct tb_hist_totals t = TB_HIST_TOTALS_INIT;

	tb_hist_feed(h, &t, v);
	tb_hist_add_totals(h, &t);
}

void tb_hist_init(struct tb_hist *h);
/* Smallest value that falls into bucket @b. */
u64 tb_hist_bucket_low(unsigned int b);
/* Add everything recorded in @src to @dst. */
void tb_hist_merge(struct tb_hist *dst, const struct tb_hist *src);
/*
 * The @rank-th smallest value recorded (1-based, clamped to 1..nr), as the
 * low bound of its bucket; 0 for an empty histogram.
 */
u64 tb_hist_rank(const struct tb_hist *h, u64 rank);
/*
 * Nearest rank: the smallest value with at least @num/@den of the values
 * at or below it (rank ceil(nr * num / den), computed without overflow),
 * as a bucket's low bound. Needs 0 < num <= den; 0 for an empty histogram.
 */
u64 tb_hist_percentile(const struct tb_hist *h, u64 num, u64 den);
/*
 * Median as tb_median() defines it: the middle value, or for an even nr
 * the midpoint of the two middle values rounded down.
 */
u64 tb_hist_median(const struct tb_hist *h);

/* Full product of two u64. */
struct tb_u128 tb_u128_mul(u64 a, u64 b);
void tb_u128_add128(struct tb_u128 *a, struct tb_u128 b);
/*
 * @n / @d rounded down, and the remainder in *@rem if @rem is not NULL.
 * Needs d > 0. A quotient above U64_MAX saturates to U64_MAX.
 */
u64 tb_u128_div(struct tb_u128 n, u64 d, u64 *rem);
/* @n / @d with three decimals, each rounded down. Needs d > 0. */
struct tb_fixed tb_fixed_ratio(struct tb_u128 n, u64 d);
/*
 * @n / (@d * 2^@shift) as tb_fixed_ratio() gives it, for a divisor that
 * may not fit a u64: it is never formed. Needs d > 0 and shift < 54.
 */
struct tb_fixed tb_fixed_ratio_shr(struct tb_u128 n, u64 d,
				   unsigned int shift);
/*
 * (@a - @b) / (@d * 2^@shift), signed, with three decimals: the magnitude
 * as tb_fixed_ratio_shr() gives it, so rounded toward 0. Needs d > 0 and
 * shift < 54.
 */
struct tb_sfixed tb_fixed_diff_ratio(struct tb_u128 a, struct tb_u128 b, u64 d,
				     unsigned int shift);

/*
 * One CPU's histogram of one primitive, or of a round's empty windows, as
 * its sampling loops record it: what a struct tb_hist holds, in a fraction
 * of the memory. The exact range, where windows mostly fall and where the
 * fast path of struct tb_rec counts them, is dense, in u32. The buckets
 * above it, which only the slow path reaches, and counts of the exact
 * range that a u32 might no longer hold, go to chunks of TB_CHUNK u64
 * buckets, each taken from an arena when first needed. A loop's slow
 * path cannot take one (the arena may be out of room, and only its owner
 * can give more): it leaves values past the exact range in a spill, which
 * tb_cpu_hist_fold() moves into chunks once the owner has made room.
 */
struct tb_chunk {
	u64 count[TB_CHUNK];
};

struct tb_slab {
	struct tb_chunk chunk[TB_SLAB_CHUNKS];
};

/* Chunks for a CPU's histograms, from slabs its owner gives, zeroed. */
struct tb_arena {
	struct tb_slab **slab;		/* the owner's array of max_slabs */
	unsigned int max_slabs;
	unsigned int nr_slabs;		/* given */
	unsigned int nr_chunks;		/* taken by histograms */
};

/* What a sampling loop leaves past the exact range, as it is. */
struct tb_spill {
	unsigned int nr;
	u64 value[TB_SPILL_MAX];
};

struct tb_cpu_hist {
	struct tb_hist_totals t;
	/* values counted in dense[] since it was last emptied, at most */
	u64 dense_nr;
	struct tb_arena *arena;
	/* the chunks it has, a bit each: a reset clears them alone */
	u64 has[TB_CHUNK_WORDS];
	/* 1 + the arena's number of each chunk of buckets, 0 for none */
	u16 dir[TB_NR_CHUNKS];
	union {
		/* what a sampling loop indexes, from -TB_HIST_UNDER */
		u32 slot[TB_HIST_UNDER + TB_HIST_EXACT];
		struct {
			/* as in struct tb_rec: all 0 between loops */
			u32 under[TB_HIST_UNDER];
			u32 dense[TB_HIST_EXACT];
		};
	};
};

void tb_arena_init(struct tb_arena *a, struct tb_slab **slab,
		   unsigned int max_slabs);

/* Chunks the arena can still hand out. */
static inline unsigned int tb_arena_room(const struct tb_arena *a)
{
	return a->nr_slabs * TB_SLAB_CHUNKS - a->nr_chunks;
}

/* Add a zeroed @slab; false, and nothing kept, when the array is full. */
bool tb_arena_give(struct tb_arena *a, struct tb_slab *slab);

void tb_cpu_hist_init(struct tb_cpu_hist *h, struct tb_arena *arena);
/*
 * Empty @h, keeping its chunks: only the buckets from min's to max's are
 * cleared, the only ones that can be in use.
 */
void tb_cpu_hist_reset(struct tb_cpu_hist *h);
/*
 * Whether dense[] could overflow in a loop of @n more windows: then the
 * next tb_cpu_hist_fold() must empty it.
 */
static inline bool tb_cpu_hist_flush_due(const struct tb_cpu_hist *h, u64 n)
{
	return h->dense_nr + n > U32_MAX;
}

/*
 * Chunks that tb_cpu_hist_fold(@h, @spill, @flush) would take from the
 * arena: those of the spill's values, and with @flush those of dense[]'s
 * buckets in use, that @h has not got yet.
 */
unsigned int tb_cpu_hist_need(const struct tb_cpu_hist *h,
			      const struct tb_spill *spill, bool flush);
/*
 * Move @spill's values into their buckets' chunks, and with @flush also
 * dense[]'s counts; false, and nothing changed, when the arena has not
 * room for tb_cpu_hist_need()'s chunks.
 */
bool tb_cpu_hist_fold(struct tb_cpu_hist *h, struct tb_spill *spill,
		      bool flush);
/* As tb_hist_rank(), _percentile() and _median(), with nothing spilled. */
u64 tb_cpu_hist_rank(const struct tb_cpu_hist *h, u64 rank);
u64 tb_cpu_hist_percentile(const struct tb_cpu_hist *h, u64 num, u64 den);
u64 tb_cpu_hist_median(const struct tb_cpu_hist *h);
/* Add everything recorded in @src, nothing spilled, to @dst. */
void tb_cpu_hist_merge(struct tb_hist *dst, const struct tb_cpu_hist *src);

/*
 * What `average` comes from: the mean of the windows less the mean of the
 * empty windows of their round, E[window] - E[empty window], exactly. A
 * round's empty windows are the TB_SUMS_EMPTY of its calibration, so
 * their mean is kept times TB_SUMS_EMPTY, as their sum, and nothing is
 * rounded before tb_sums_mean()'s division: for each window,
 *
 *	TB_SUMS_EMPTY * window - (the ticks of its round's empty windows)
 *
 * Nor is anything clamped at 0, as the histogram's samples are.
 *
 * Bounds, in 128 bits: a window is below 2^64 ticks, so a round's empty
 * windows add up to less than 2^72, and a CPU's 2^40 windows at most
 * (TB_MAX_SAMPLES) to less than 2^104, 2^112 once scaled; the subtrahend
 * too is below 2^40 * 2^72. Over a run's CPUs, at most 8192 (the largest
 * CONFIG_NR_CPUS of any architecture), both stay below 2^125.
 */
#define TB_SUMS_EMPTY_BITS	8
#define TB_SUMS_EMPTY		BIT(TB_SUMS_EMPTY_BITS)

struct tb_sums {
	u64 nr;			/* windows */
	struct tb_u128 raw;	/* their ticks */
	/* for each window, the ticks of its round's empty windows */
	struct tb_u128 less;
};

/* @n windows whose ticks add up to @raw. */
void tb_sums_add(struct tb_sums *s, struct tb_u128 raw, u64 n);
/*
 * What @n windows of a round whose TB_SUMS_EMPTY empty windows' ticks add
 * up to @empty (below 2^72) are less: n * empty, for n below 2^56. Every
 * block of a round has the same, worked out once.
 */
struct tb_u128 tb_sums_round_less(struct tb_u128 empty, u64 n);

/* The windows last added are less @less, from tb_sums_round_less(). */
static inline void tb_sums_less(struct tb_sums *s, struct tb_u128 less)
{
	tb_u128_add(&s->less, less.lo);
	s->less.hi += less.hi;
}

void tb_sums_merge(struct tb_sums *dst, const struct tb_sums *src);
/*
 * (TB_SUMS_EMPTY * raw - less) / (TB_SUMS_EMPTY * nr * batch), per pair,
 * with its sign; 0 for no windows. nr * batch must fit a u64; the
 * product with TB_SUMS_EMPTY is never formed.
 */
struct tb_sfixed tb_sums_mean(const struct tb_sums *s, u64 batch);

struct tb_heap;

/*
 * A sampling loop's recording of its windows: each window's ticks less the
 * overhead, saturating at 0, into a CPU's histogram (those past its exact
 * range into a spill, at most TB_SPILL_MAX) and a heap of the largest,
 * and its ticks, exactly, into a struct tb_sums.
 *
 * Most windows take the fast path, tb_rec_fast_add(): a sample in
 * [lo, lo + span) is below TB_HIST_EXACT, within the range the histogram
 * has seen, and below what the heap takes, so it changes only its bucket
 * and the count and sum, which the loop keeps in registers. The others
 * go through tb_rec_slow(), which widens the range. A window that cost
 * less than the overhead, whose sample wraps below 0, is recorded as 0
 * and still adds its true ticks to the sums. The first of them takes the
 * slow path, and so does each that reaches further below 0 than any
 * before it, up to TB_HIST_UNDER: the others take the fast one, into the
 * histogram's under[] by how far below 0 they are, with their sample
 * below 0 in the sum, until tb_rec_finish() counts them as 0. So a block
 * whose windows cost about the overhead (the empty window's) records its
 * windows as the calibration records its own: the fast path's code.
 */
struct tb_rec_fast {
	u64 lo;		/* below 0, wrapped, where it takes samples below 0 */
	u64 span;
};

struct tb_rec {
	struct tb_cpu_hist *hist;
	struct tb_spill *spill;
	struct tb_heap *heap;
	u64 overhead;
	u64 under;			/* how far below 0 the fast path goes */
	struct tb_hist_totals slow;	/* the slow path's samples */
	struct tb_u128 slow_ticks;	/* and their windows' ticks */
};

/*
 * The fast range: what lies in the histogram's range so far, below the
 * heap's floor and below TB_HIST_EXACT, where a value is its own bucket;
 * and, where the range starts at 0 and the heap takes no 0, the samples
 * below 0 down to the lowest one yet, which count as 0.
 */
static inline struct tb_rec_fast tb_rec_bounds(const struct tb_rec *r)
{
	u64 lo = r->hist->t.min < r->slow.min ? r->hist->t.min : r->slow.min;
	u64 max = r->hist->t.max > r->slow.max ? r->hist->t.max : r->slow.max;
	u64 hi = tb_heap_floor(r->heap), span;

	if (max < hi)
		hi = max + 1;
	if (hi > TB_HIST_EXACT)
		hi = TB_HIST_EXACT;
	span = hi > lo ? hi - lo : 0;
	if (!lo && hi) {
		lo -= r->under;
		span += r->under;
	}
	return (struct tb_rec_fast){ .lo = lo, .span = span };
}

static inline struct tb_rec_fast tb_rec_init(struct tb_rec *r,
					     struct tb_cpu_hist *h,
					     struct tb_spill *spill,
					     struct tb_heap *heap,
					     u64 overhead)
{
	*r = (struct tb_rec){
		.hist = h, .spill = spill, .heap = heap, .overhead = overhead,
		.slow = TB_HIST_TOTALS_INIT,
	};
	return tb_rec_bounds(r);
}

/* What tb_rec_fast_add() indexes: dense[], under[] below it. */
static inline u32 *tb_rec_counts(struct tb_cpu_hist *h)
{
	return &h->slot[TB_HIST_UNDER];
}

/*
 * @sample is a window's ticks less the overhead, as u64 arithmetic wraps;
 * @counts is tb_rec_counts() of the histogram.
 */
static inline bool tb_rec_fast_add(u32 *counts, struct tb_rec_fast fast,
				   u64 sample, u64 *sum)
{
	if (sample - fast.lo >= fast.span)
		return false;
	/* signed: a sample below 0 counts in under[] */
	counts[(s64)sample]++;
	*sum += sample;
	return true;
}

/*
 * Record the whole way a window whose ticks less the overhead, wrapping,
 * are @sample; returns the new fast range.
 */
struct tb_rec_fast tb_rec_slow(struct tb_rec *r, u64 sample);
/*
 * The loop's end: @nr windows in all, whose fast ones' samples add up to
 * @fast_sum, as u64 arithmetic wraps: the sum lies between
 * -@nr * TB_HIST_UNDER and @nr * TB_HIST_EXACT, which a u64 tells apart.
 * The histogram's figures hold once its spill is folded.
 */
void tb_rec_finish(struct tb_rec *r, u64 nr, u64 fast_sum,
		   struct tb_sums *sums);

/*
 * For the tests alone, which hold the histogram to them: inline, so that
 * the module, which needs neither, carries neither.
 */

/* Largest value that falls into bucket @b: the next one's smallest less 1. */
static inline u64 tb_hist_bucket_high(unsigned int b)
{
	if (b >= TB_HIST_BUCKETS - 1)
		return U64_MAX;
	return tb_hist_bucket_low(b + 1) - 1;
}

/* sum / nr with three decimals, both rounded down; 0 for an empty one. */
static inline struct tb_fixed tb_hist_mean(const struct tb_hist *h)
{
	if (!h->nr)
		return (struct tb_fixed){ 0, 0 };
	return tb_fixed_ratio(h->sum, h->nr);
}

#endif /* TRACERBENCH_HIST_H */
