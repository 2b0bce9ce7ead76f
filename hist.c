// SPDX-License-Identifier: GPL-2.0-only
/*
 * Log-linear histogram of u64 samples, and the 128-bit and fixed-point
 * arithmetic its figures are reported in.
 *
 * The 128-bit helpers do without __int128, which 32-bit targets lack, and
 * divide u64 only through <linux/math64.h>: a plain u64 division makes
 * gcc call libgcc's __udivdi3 on i386, which the kernel does not link.
 */
#include <linux/math64.h>
#include <linux/string.h>

#include "heap.h"
#include "hist.h"

void tb_hist_init(struct tb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = U64_MAX;
}

/*
 * log2 of the width of bucket @b, which must be past the exact ones: the
 * power of two it splits, less TB_HIST_SUB_BITS.
 */
static unsigned int tb_hist_shift(unsigned int b)
{
	return (b - TB_HIST_EXACT) / TB_HIST_SUB +
	       TB_HIST_EXACT_BITS - TB_HIST_SUB_BITS;
}

/* Buckets past the last act as the last, so that no shift reaches 64. */
static unsigned int tb_hist_clamp(unsigned int b)
{
	return b < TB_HIST_BUCKETS ? b : TB_HIST_BUCKETS - 1;
}

u64 tb_hist_bucket_low(unsigned int b)
{
	unsigned int sub;

	if (b < TB_HIST_EXACT)
		return b;
	b = tb_hist_clamp(b);
	sub = (b - TB_HIST_EXACT) % TB_HIST_SUB;
	/* the inverse of tb_hist_bucket(): the leading 1, then sub */
	return (u64)(TB_HIST_SUB + sub) << tb_hist_shift(b);
}

void tb_totals_add(struct tb_hist_totals *dst, const struct tb_hist_totals *t)
{
	dst->nr += t->nr;
	tb_u128_add128(&dst->sum, t->sum);
	if (t->min < dst->min)
		dst->min = t->min;
	if (t->max > dst->max)
		dst->max = t->max;
}

void tb_hist_add_totals(struct tb_hist *h, const struct tb_hist_totals *t)
{
	struct tb_hist_totals mine = {
		.nr = h->nr, .min = h->min, .max = h->max, .sum = h->sum,
	};

	tb_totals_add(&mine, t);
	h->nr = mine.nr;
	h->min = mine.min;
	h->max = mine.max;
	h->sum = mine.sum;
}

void tb_hist_merge(struct tb_hist *dst, const struct tb_hist *src)
{
	unsigned int b;

	const struct tb_hist_totals totals = {
		.nr = src->nr, .min = src->min, .max = src->max, .sum = src->sum,
	};

	for (b = 0; b < TB_HIST_BUCKETS; b++)
		dst->count[b] += src->count[b];
	tb_hist_add_totals(dst, &totals);
}

/* @rank clamped to 1..nr, for nr > 0 */
static u64 tb_rank_clamp(u64 rank, u64 nr)
{
	if (rank < 1)
		return 1;
	return rank > nr ? nr : rank;
}

u64 tb_hist_rank(const struct tb_hist *h, u64 rank)
{
	u64 seen = 0;
	unsigned int b;

	if (!h->nr)
		return 0;
	rank = tb_rank_clamp(rank, h->nr);
	/* none below min's: a calibration's median is a few buckets up */
	for (b = tb_hist_bucket(h->min); b < TB_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= rank)
			return tb_hist_bucket_low(b);
	}
	/* only reached if the counts add up to less than nr */
	return tb_hist_bucket_low(tb_hist_bucket(h->max));
}

/*
 * The nearest rank of @num/@den of @nr values, ceil(nr * num / den), as
 * floor((nr * num + den - 1) / den): the sum stays below 2^128, and a
 * quotient past nr, even saturated, is clamped by the rank functions.
 */
static u64 tb_percentile_rank(u64 nr, u64 num, u64 den)
{
	struct tb_u128 n = tb_u128_mul(nr, num);

	tb_u128_add(&n, den - 1);
	return tb_u128_div(n, den, NULL);
}

u64 tb_hist_percentile(const struct tb_hist *h, u64 num, u64 den)
{
	return tb_hist_rank(h, tb_percentile_rank(h->nr, num, den));
}

/* The median of @nr values whose @rank-th smallest is @rank_of(@h, rank). */
static u64 tb_median_of(const void *h, u64 nr,
			u64 (*rank_of)(const void *h, u64 rank))
{
	/* for odd nr, nr / 2 + 1 is (nr + 1) / 2 without overflowing */
	u64 upper = rank_of(h, (nr >> 1) + 1), lower;

	if (nr & 1)
		return upper;
	lower = rank_of(h, nr >> 1);
	return lower + ((upper - lower) >> 1);
}

static u64 tb_hist_rank_of(const void *h, u64 rank)
{
	return tb_hist_rank(h, rank);
}

u64 tb_hist_median(const struct tb_hist *h)
{
	return tb_median_of(h, h->nr, tb_hist_rank_of);
}

void tb_arena_init(struct tb_arena *a, struct tb_slab **slab,
		   unsigned int max_slabs)
{
	*a = (struct tb_arena){ .slab = slab, .max_slabs = max_slabs };
}

bool tb_arena_give(struct tb_arena *a, struct tb_slab *slab)
{
	if (a->nr_slabs == a->max_slabs)
		return false;
	a->slab[a->nr_slabs++] = slab;
	return true;
}

/* Chunk @c of @h, or NULL if it has none. */
static struct tb_chunk *tb_cpu_hist_chunk(const struct tb_cpu_hist *h,
					  unsigned int c)
{
	unsigned int n = h->dir[c];

	if (!n--)
		return NULL;
	return &h->arena->slab[n / TB_SLAB_CHUNKS]->chunk[n % TB_SLAB_CHUNKS];
}

/* Chunk @c of @h, taken from the arena if it has none; needs the room. */
static struct tb_chunk *tb_cpu_hist_take(struct tb_cpu_hist *h, unsigned int c)
{
	if (!h->dir[c]) {
		h->dir[c] = ++h->arena->nr_chunks;
		h->has[c / 64] |= BIT_ULL(c % 64);
	}
	return tb_cpu_hist_chunk(h, c);
}

void tb_cpu_hist_init(struct tb_cpu_hist *h, struct tb_arena *arena)
{
	memset(h, 0, sizeof(*h));
	h->t.min = U64_MAX;
	h->arena = arena;
}

void tb_cpu_hist_reset(struct tb_cpu_hist *h)
{
	unsigned int lo = tb_hist_bucket(h->t.min);
	unsigned int hi = tb_hist_bucket(h->t.max), c, w;
	u64 bits;

	/* min > max: no bucket is in use, whatever nr says */
	if (h->t.nr && lo <= hi) {
		unsigned int top = hi < TB_HIST_EXACT ? hi : TB_HIST_EXACT - 1;

		if (lo <= top)
			memset(&h->dense[lo], 0,
			       (top - lo + 1) * sizeof(h->dense[0]));
		for (w = 0; w < TB_CHUNK_WORDS; w++) {
			for (bits = h->has[w]; bits; bits &= bits - 1) {
				c = w * 64 + __ffs64(bits);
				if (c >= lo / TB_CHUNK && c <= hi / TB_CHUNK)
					memset(tb_cpu_hist_chunk(h, c), 0,
					       sizeof(struct tb_chunk));
			}
		}
	}
	h->t = (struct tb_hist_totals)TB_HIST_TOTALS_INIT;
	h->dense_nr = 0;
}

/*
 * Mark in @seen the chunk of bucket @b, which @h has not got yet; 1 if it
 * was not marked before.
 */
static unsigned int tb_need_chunk(const struct tb_cpu_hist *h, u64 *seen,
				  unsigned int b)
{
	unsigned int c = b / TB_CHUNK;
	u64 bit = BIT_ULL(c % 64);

	if (h->dir[c] || (seen[c / 64] & bit))
		return 0;
	seen[c / 64] |= bit;
	return 1;
}

unsigned int tb_cpu_hist_need(const struct tb_cpu_hist *h,
			      const struct tb_spill *spill, bool flush)
{
	u64 seen[TB_CHUNK_WORDS] = {};
	unsigned int need = 0, i, b;

	for (i = 0; i < spill->nr; i++)
		need += tb_need_chunk(h, seen, tb_hist_bucket(spill->value[i]));
	for (b = 0; flush && b < TB_HIST_EXACT; b++)
		if (h->dense[b])
			need += tb_need_chunk(h, seen, b);
	return need;
}

bool tb_cpu_hist_fold(struct tb_cpu_hist *h, struct tb_spill *spill,
		      bool flush)
{
	unsigned int i, b;

	if (tb_cpu_hist_need(h, spill, flush) > tb_arena_room(h->arena))
		return false;
	for (i = 0; i < spill->nr; i++) {
		b = tb_hist_bucket(spill->value[i]);
		tb_cpu_hist_take(h, b / TB_CHUNK)->count[b % TB_CHUNK]++;
	}
	spill->nr = 0;
	for (b = 0; flush && b < TB_HIST_EXACT; b++) {
		if (!h->dense[b])
			continue;
		tb_cpu_hist_take(h, b / TB_CHUNK)->count[b % TB_CHUNK] +=
			h->dense[b];
		h->dense[b] = 0;
	}
	if (flush)
		h->dense_nr = 0;
	return true;
}

/* Bucket @b's count in @h, given its chunk (or NULL). */
static u64 tb_cpu_hist_count(const struct tb_cpu_hist *h,
			     const struct tb_chunk *chunk, unsigned int b)
{
	u64 n = b < TB_HIST_EXACT ? h->dense[b] : 0;

	return chunk ? n + chunk->count[b % TB_CHUNK] : n;
}

u64 tb_cpu_hist_rank(const struct tb_cpu_hist *h, u64 rank)
{
	const struct tb_chunk *chunk;
	u64 seen = 0;
	unsigned int b;

	if (!h->t.nr)
		return 0;
	rank = tb_rank_clamp(rank, h->t.nr);
	b = tb_hist_bucket(h->t.min);
	chunk = tb_cpu_hist_chunk(h, b / TB_CHUNK);
	for (; b < TB_HIST_BUCKETS; b++) {
		if (b % TB_CHUNK == 0) {
			chunk = tb_cpu_hist_chunk(h, b / TB_CHUNK);
			/* past the exact range, a chunk not had is all 0 */
			if (!chunk && b >= TB_HIST_EXACT) {
				b += TB_CHUNK - 1;
				continue;
			}
		}
		seen += tb_cpu_hist_count(h, chunk, b);
		if (seen >= rank)
			return tb_hist_bucket_low(b);
	}
	/* only reached if the counts add up to less than nr */
	return tb_hist_bucket_low(tb_hist_bucket(h->t.max));
}

u64 tb_cpu_hist_percentile(const struct tb_cpu_hist *h, u64 num, u64 den)
{
	return tb_cpu_hist_rank(h, tb_percentile_rank(h->t.nr, num, den));
}

static u64 tb_cpu_hist_rank_of(const void *h, u64 rank)
{
	return tb_cpu_hist_rank(h, rank);
}

u64 tb_cpu_hist_median(const struct tb_cpu_hist *h)
{
	return tb_median_of(h, h->t.nr, tb_cpu_hist_rank_of);
}

void tb_cpu_hist_merge(struct tb_hist *dst, const struct tb_cpu_hist *src)
{
	const struct tb_chunk *chunk;
	unsigned int b, c;

	for (b = 0; b < TB_HIST_EXACT; b++)
		dst->count[b] += src->dense[b];
	for (c = 0; c < TB_NR_CHUNKS; c++) {
		chunk = tb_cpu_hist_chunk(src, c);
		for (b = 0; chunk && b < TB_CHUNK; b++)
			dst->count[c * TB_CHUNK + b] += chunk->count[b];
	}
	tb_hist_add_totals(dst, &src->t);
}

/* Schoolbook multiplication in 32-bit digits, whose products fit a u64. */
struct tb_u128 tb_u128_mul(u64 a, u64 b)
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	/* the middle digit and its carry: below 3 * 2^32 */
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;
	struct tb_u128 r;

	r.lo = mid << 32 | (u32)p00;
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

void tb_u128_add128(struct tb_u128 *a, struct tb_u128 b)
{
	a->lo += b.lo;
	a->hi += b.hi + (a->lo < b.lo);
}

/*
 * Shift-subtract long division, a quotient bit per step: it runs a few
 * times per run, not per sample. *@rem is n mod d, exact even when the
 * quotient saturates.
 */
u64 tb_u128_div(struct tb_u128 n, u64 d, u64 *rem)
{
	u64 q = 0, r;
	int i;

	if (!n.hi) {
		q = div64_u64_rem(n.lo, d, &r);
	} else {
		/*
		 * Dividing n.hi first leaves r < d; its quotient is the part
		 * of n / d above 64 bits, which only decides saturation.
		 */
		div64_u64_rem(n.hi, d, &r);
		for (i = 63; i >= 0; i--) {
			/* r < d, so 2r + 1 needs 65 bits at most */
			bool carry = r >> 63;

			r = r << 1 | ((n.lo >> i) & 1);
			q <<= 1;
			/* with the 65th bit set the true r is above d */
			if (carry || r >= d) {
				r -= d;
				q |= 1;
			}
		}
		if (n.hi >= d)
			q = U64_MAX;
	}
	if (rem)
		*rem = r;
	return q;
}

/*
 * A quotient above U64_MAX saturates to the largest figure, U64_MAX.999,
 * so that a larger @n never gives a smaller result.
 */
struct tb_fixed tb_fixed_ratio(struct tb_u128 n, u64 d)
{
	return tb_fixed_ratio_shr(n, d, 0);
}

/* @a >> @s, for s < 64 */
static struct tb_u128 tb_u128_shr(struct tb_u128 a, unsigned int s)
{
	struct tb_u128 r = a;

	if (s) {
		r.lo = a.lo >> s | a.hi << (64 - s);
		r.hi = a.hi >> s;
	}
	return r;
}

/*
 * Nested floors, floor(floor(x / a) / b) = floor(x / (a * b)): the whole
 * part is (n >> shift) / d. The remainder of n by d * 2^shift is
 * rem * 2^shift + low, where rem is that of (n >> shift) by d and low the
 * bits shifted out; its thousandths, floor(1000 * rem + 1000 * low /
 * 2^shift) / d again, are below 1000. 1000 * low < 2^(shift + 10) fits a
 * u64.
 */
struct tb_fixed tb_fixed_ratio_shr(struct tb_u128 n, u64 d, unsigned int shift)
{
	struct tb_u128 q = tb_u128_shr(n, shift), milli;
	u64 low = n.lo & (BIT_ULL(shift) - 1), rem;
	struct tb_fixed f;

	if (q.hi >= d)
		return (struct tb_fixed){ U64_MAX, 999 };
	f.whole = tb_u128_div(q, d, &rem);
	/* rem < d, so rem * 1000 / d < 1000, but rem * 1000 needs 128 bits */
	milli = tb_u128_mul(rem, 1000);
	tb_u128_add(&milli, (low * 1000) >> shift);
	f.milli = tb_u128_div(milli, d, NULL);
	return f;
}

/* @a - @b, for a >= b */
static struct tb_u128 tb_u128_sub(struct tb_u128 a, struct tb_u128 b)
{
	struct tb_u128 r;

	r.lo = a.lo - b.lo;
	r.hi = a.hi - b.hi - (a.lo < b.lo);
	return r;
}

struct tb_sfixed tb_fixed_diff_ratio(struct tb_u128 a, struct tb_u128 b, u64 d,
				     unsigned int shift)
{
	bool neg = a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
	struct tb_sfixed f;

	f.mag = tb_fixed_ratio_shr(neg ? tb_u128_sub(b, a) : tb_u128_sub(a, b),
				   d, shift);
	f.neg = neg && (f.mag.whole || f.mag.milli);
	return f;
}

void tb_sums_add(struct tb_sums *s, struct tb_u128 raw, u64 n)
{
	s->nr += n;
	tb_u128_add128(&s->raw, raw);
}

/* n * empty.hi < 2^56 * 2^8, and so is the carry into it */
struct tb_u128 tb_sums_round_less(struct tb_u128 empty, u64 n)
{
	struct tb_u128 less = tb_u128_mul(empty.lo, n);

	less.hi += empty.hi * n;
	return less;
}

void tb_sums_merge(struct tb_sums *dst, const struct tb_sums *src)
{
	dst->nr += src->nr;
	tb_u128_add128(&dst->raw, src->raw);
	tb_u128_add128(&dst->less, src->less);
}

/*
 * nr * batch is the pairs measured, over every CPU of a run: at most
 * 2^40 * 10^4 < 2^54 on one CPU (TB_MAX_SAMPLES, TB_MAX_BATCH), so below
 * 2^64 for up to 1024 CPUs at those limits; beyond, each pair took a
 * nanosecond or more, and 2^64 of them would be 584 CPU-years of running.
 * raw * TB_SUMS_EMPTY stays below 2^125 (see struct tb_sums).
 */
struct tb_sfixed tb_sums_mean(const struct tb_sums *s, u64 batch)
{
	struct tb_u128 scaled = {
		.hi = s->raw.hi << TB_SUMS_EMPTY_BITS |
		      s->raw.lo >> (64 - TB_SUMS_EMPTY_BITS),
		.lo = s->raw.lo << TB_SUMS_EMPTY_BITS,
	};

	if (!s->nr)
		return (struct tb_sfixed){};
	return tb_fixed_diff_ratio(scaled, s->less, s->nr * batch,
				   TB_SUMS_EMPTY_BITS);
}

struct tb_rec_fast tb_rec_slow(struct tb_rec *r, u64 sample)
{
	u64 ticks = sample + r->overhead;

	/*
	 * A window that cost less than the overhead counts as 0; from now
	 * on those that cost as little take the fast path.
	 */
	if (ticks < r->overhead) {
		if (-sample <= TB_HIST_UNDER && -sample > r->under)
			r->under = -sample;
		sample = 0;
	}

	tb_u128_add(&r->slow_ticks, ticks);
	tb_totals_feed(&r->slow, sample);
	if (sample < TB_HIST_EXACT)
		r->hist->dense[sample]++;
	else if (r->spill->nr < TB_SPILL_MAX)
		r->spill->value[r->spill->nr++] = sample;
	if (sample >= tb_heap_floor(r->heap))
		tb_heap_offer(r->heap, sample);
	return tb_rec_bounds(r);
}

void tb_rec_finish(struct tb_rec *r, u64 nr, u64 fast_sum,
		   struct tb_sums *sums)
{
	u64 fast_nr = nr - r->slow.nr, below = 0, zeros = 0, i;
	struct tb_hist_totals t = r->slow;
	struct tb_u128 ticks = r->slow_ticks;

	/*
	 * The fast samples below 0 go to count[0] as 0, which adds to their
	 * sum what it had them below 0 by; under[] is left all 0 again.
	 */
	for (i = 1; i <= r->under; i++) {
		u32 *c = &r->hist->under[TB_HIST_UNDER - i];

		zeros += *c;
		below += *c * i;
		*c = 0;
	}
	r->hist->dense[0] += zeros;
	fast_sum += below;

	t.nr = nr;
	tb_u128_add(&t.sum, fast_sum);
	tb_totals_add(&r->hist->t, &t);
	/* an upper bound: some of them may have gone to the spill */
	r->hist->dense_nr += nr;
	/* a fast window's ticks: its sample plus the overhead */
	tb_u128_add(&ticks, fast_sum);
	tb_u128_add128(&ticks, tb_u128_mul(r->overhead, fast_nr));
	ticks = tb_u128_sub(ticks, (struct tb_u128){ .lo = below });
	tb_sums_add(sums, ticks, nr);
}
