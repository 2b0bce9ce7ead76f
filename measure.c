// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a CPU does in a run: the timed windows, each a function of its own,
 * the sampling loops that call them, the calibration of the empty window,
 * and the figures of the CPU's samples; and the clocks they read, which a
 * clock write and a run check first (clock.h, pmu.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <linux/string.h>

#include "tracerbench.h"
#include "pace.h"
#include "ticks.h"
#include "clock.h"
#include "pmu.h"

/*
 * Empty windows timed per round to find the cost of the clock reads: the
 * mean's subtrahend is kept times their number (struct tb_sums).
 */
#define TB_CALIBRATION_SAMPLES	TB_SUMS_EMPTY
/* untimed windows before each block, for caches and branch predictors */
#define TB_WARMUP		32
/*
 * Windows of each primitive per round. A round is a calibration, then a
 * block of each primitive in turn, so that drift in frequency or
 * temperature lands on all of them alike.
 */
#define TB_BLOCK		1000
static_assert(TB_BLOCK <= TB_SPILL_MAX && TB_CALIBRATION_SAMPLES <= TB_SPILL_MAX);

static DEFINE_PER_CPU(unsigned long, tb_work_state);

/*
 * Test-only: act as on a CPU whose counter has an erratum, so that the
 * refusal of clock.h is tested where no CPU has one.
 */
bool tb_force_counter_erratum;

/*
 * Test-only: stop and restart a CPU's PMU event in the middle of a block,
 * as perf does to move it, in this many blocks in all: each must be timed
 * again, and the run go on. See tb_pmc_force_move().
 */
int tb_force_counter_move;

/*
 * A critical section of the kind real code has: a per-CPU read-modify-write,
 * a branch on the data, and a read of current. noinline keeps it one call,
 * identical in the calibration and in the timed pairs. raw_cpu_*() rather
 * than __this_cpu_*(): with CONFIG_DEBUG_PREEMPT the latter check their
 * context, which differs with irqs or preemption off, so calibration and
 * windows would run different code. The thread is bound to its CPU.
 * notrace: it runs inside the windows, where no ftrace call may be.
 */
static noinline notrace void simulate_critical_section(void)
{
	unsigned long state = raw_cpu_read(tb_work_state);

	if (state & 1)
		state += current->pid;
	else
		state ^= current->pid;
	raw_cpu_write(tb_work_state, state + 1);
}

/*
 * @clock is a constant in every window, so this folds to one read. @sel:
 * the PMU counter that perf gave this CPU's event (tb_pmc_sel). @open:
 * the read opens a window, which the ordered reads keep what follows
 * from entering early. clock=ns: ktime_get_mono_fast_ns(), notrace, with
 * no retry on the timekeeper's seqcount, as refscale times with it.
 */
static __always_inline u64 tb_clock_read(enum tb_clock clock, u32 sel,
					 bool open)
{
	switch (clock) {
	case TB_CLOCK_ORDERED:
		return tb_counter_read_ordered(open);
	case TB_CLOCK_NS:
		return ktime_get_mono_fast_ns();
	case TB_CLOCK_INSTRUCTIONS:
		return tb_pmc_read(false, sel, open);
	case TB_CLOCK_CORE_CYCLES:
		return tb_pmc_read(true, sel, open);
	default:
		return tb_counter_read();
	}
}

/* How wide a counter @clock reads, for tb_window_ticks(). */
static __always_inline unsigned int tb_clock_bits(enum tb_clock clock)
{
	switch (clock) {
	case TB_CLOCK_NS:
		return 64;
	case TB_CLOCK_INSTRUCTIONS:
	case TB_CLOCK_CORE_CYCLES:
		return TB_PMC_BITS;
	default:
		return TB_COUNTER_BITS;
	}
}

#ifdef TB_DISASM_SELFTEST
/*
 * tools/check.sh builds this to see tools/disasm.sh catch a store in the
 * windows: in all of them, or with TB_DISASM_SELFTEST_CLOCK in those of
 * that clock alone.
 */
static u64 tb_selftest_sink;
#endif

static __always_inline void tb_selftest_store(enum tb_clock clock, u64 v)
{
#ifdef TB_DISASM_SELFTEST
#ifdef TB_DISASM_SELFTEST_CLOCK
	if (clock != TB_DISASM_SELFTEST_CLOCK)
		return;
#endif
	WRITE_ONCE(tb_selftest_sink, v);
#endif
}

/* barrier() stands for no work: it emits no instruction */
static __always_inline void tb_work(bool work)
{
	if (work)
		simulate_critical_section();
	else
		barrier();
}

/* One pair of @prim; for TB_NONE, only what a pair holds besides it. */
static __always_inline void tb_pair(enum tb_prim prim, bool work)
{
	unsigned long flags;

	switch (prim) {
	case TB_IRQ:
		local_irq_disable();
		tb_work(work);
		local_irq_enable();
		break;
	case TB_PREEMPT:
		preempt_disable();
		tb_work(work);
		preempt_enable();
		break;
	case TB_IRQ_SAVE:
		local_irq_save(flags);
		tb_work(work);
		local_irq_restore(flags);
		break;
	case TB_RAW_IRQ:
		raw_local_irq_disable();
		tb_work(work);
		raw_local_irq_enable();
		break;
	case TB_RAW_IRQ_SAVE:
		raw_local_irq_save(flags);
		tb_work(work);
		raw_local_irq_restore(flags);
		break;
	case TB_PREEMPT_NOTRACE:
		preempt_disable_notrace();
		tb_work(work);
		preempt_enable_notrace();
		break;
	default:	/* TB_NONE */
		tb_work(work);
		break;
	}
}

/*
 * Each timed window is a function of its own (tb_win_*, below), called
 * directly by a sampling loop of its own (tb_sample_*, further below):
 * the compiler cannot blend its code with the sample store, the histogram
 * update or the loop around it, and tools/disasm.sh finds every window in
 * the built module by name and checks what lies between its two clock
 * reads.
 *
 * Clock reads are volatile asm (or a call, for ktime), which the compiler
 * keeps in order with other volatile asm, but not with ordinary code or
 * with non-volatile asm such as the preempt-count increment: barrier()
 * after the first read and before the second keeps the primitive inside
 * the window, and everything else out of it. The PMU counter to read is
 * loaded before the window opens. A window to be timed again (ticks.h)
 * is returned as such: the sampling loop retries it, where a retry loop in
 * the window itself would keep batch live across it, which gcc spilled to
 * the stack and reloaded inside the window on arm64 with KASAN.
 */
static __always_inline u64 tb_window(enum tb_prim prim, bool work,
				     enum tb_clock clock, u32 batch)
{
	u32 sel = tb_clock_pmu(clock) ? raw_cpu_read(tb_pmc_sel) : 0;
	u64 t0, t1;

	t0 = tb_clock_read(clock, sel, true);
	barrier();
	tb_selftest_store(clock, t0);
	/* batch >= 1: no test before the first pair */
	do {
		tb_pair(prim, work);
	} while (--batch);
	barrier();
	t1 = tb_clock_read(clock, sel, false);
	return tb_window_ticks(t0, t1, tb_clock_bits(clock));
}

/*
 * Where windows of the same code (irq and raw_irq on a kernel without the
 * tracepoints) are called only directly, gcc's identical code folding
 * would merge them, or their sampling loops and drop the windows left
 * without a caller, and tools/disasm.sh would miss their names.
 */
#if __has_attribute(__no_icf__)
#define __tb_own	__attribute__((__no_icf__))
#else
#define __tb_own
#endif

/*
 * When a measuring thread gives way and checks for a stop (pace.h): after
 * any window that ends with a reschedule pending, and when the countdown
 * of windows runs out. Each primitive has its own interval.
 */
struct tb_pacing {
	const struct tb_run *run;
	bool moved;			/* tb_force_counter_move, this block */
	u64 retimed;			/* blocks timed again: the counter moved */
	struct tb_pace pace;
	u64 every[TB_NR_PRIMS];		/* windows between two checks */
};

static void tb_pacing_init(struct tb_pacing *pacing, const struct tb_run *run)
{
	enum tb_prim prim;

	pacing->run = run;
	tb_pace_init(&pacing->pace);
	pacing->retimed = 0;
	/* one window first: nothing is known of what a window costs */
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		pacing->every[prim] = 1;
}

/* At a checkpoint: the first of a block takes one of the moves to force. */
static void tb_pmc_force_move(struct tb_pacing *pacing)
{
	int left = READ_ONCE(tb_force_counter_move);

	if (likely(!left) || pacing->moved ||
	    !tb_clock_pmu(pacing->run->cfg.clock))
		return;
	while (left > 0 &&
	       !try_cmpxchg(&tb_force_counter_move, &left, left - 1))
		;
	if (left > 0) {
		tb_pmc_bump(pacing->run->cpu[raw_smp_processor_id()].pmc);
		pacing->moved = true;
	}
}

/* A block of windows of @prim starts now. */
static void tb_pacing_start(struct tb_pacing *pacing, enum tb_prim prim)
{
	pacing->moved = false;
	tb_pace_start(&pacing->pace, pacing->every[prim], ktime_get_ns());
}

/*
 * After a window, never inside one: whether a check is due. A count and a
 * flag test: a reschedule that came up during a window is acted on
 * before the next one, so that no window is timed with one pending (on a
 * kernel without full preemption nothing else acts on it, and meanwhile
 * every preempt_enable() takes its slower path).
 */
static __always_inline bool tb_check_due(struct tb_pacing *pacing)
{
	return unlikely(tb_pace_tick(&pacing->pace) || need_resched());
}

/*
 * Give way, and return tb_stop_reason(). The interval of @prim is set
 * from the time its windows since the last check took, not counting the
 * time given away.
 */
static int tb_checkpoint(struct tb_pacing *pacing, enum tb_prim prim)
{
	u64 *every = &pacing->every[prim];

	*every = tb_pace_adapt(&pacing->pace, *every, ktime_get_ns());
	tb_pmc_force_move(pacing);
	cond_resched();
	tb_pace_restart(&pacing->pace, *every, ktime_get_ns());
	return tb_stop_reason(pacing->run);
}

/*
 * A window to be timed again, at most TB_RETIME_MAX times: the first that
 * reads right, or one that still reads negative. Rare, so a call through
 * a pointer will do.
 */
static noinline u64 tb_retime(u64 (*window)(u32 n), u32 batch)
{
	u64 sample = TB_WINDOW_AGAIN;
	unsigned int i;

	for (i = 0; i < TB_RETIME_MAX && tb_window_again(sample); i++)
		sample = window(batch);
	return sample;
}

/* Untimed windows, paced as the timed ones are. */
static __always_inline int tb_warm_up(struct tb_pacing *pacing,
				      enum tb_prim prim, u64 (*window)(u32 n),
				      u32 batch)
{
	unsigned int i;
	int err;

	tb_pacing_start(pacing, prim);
	for (i = 0; i < TB_WARMUP; i++) {
		window(batch);
		if (tb_check_due(pacing)) {
			err = tb_checkpoint(pacing, prim);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * The loop of tb_sample(), for one window function: inlined into a
 * function of its own for each (tb_sample_*, below), it calls its window
 * directly, where a pointer would cost an indirect call (a retpoline on
 * many CPUs) per window. A window goes to its bucket by the fast path of
 * struct tb_rec, whose range and sum stay in locals: through pointers,
 * every window call and bucket store could have changed them.
 */
static __always_inline int tb_sample_loop(u64 (*window)(u32 n),
					  bool deferred,
					  struct tb_pacing *pacing,
					  enum tb_prim prim, struct tb_rec *rec,
					  u64 n, struct tb_sums *sums)
{
	u64 *pending = rec->spill->value;
	u32 batch = pacing->run->cfg.batch;
	u32 *counts = tb_rec_counts(rec->hist);
	struct tb_rec_fast fast = tb_rec_bounds(rec);
	u64 overhead = rec->overhead;
	u64 left, fast_sum = 0;
	int err;

	err = tb_warm_up(pacing, prim, window, batch);
	/* a stop during the warm-up records no window */
	for (left = n; !err && left;) {
		u64 sample = window(batch);

		if (unlikely(tb_window_again(sample))) {
			/* a counter that keeps reading wrong is no clock */
			sample = tb_retime(window, batch);
			if (tb_window_again(sample)) {
				err = -EIO;
				break;
			}
		}
		if (deferred) {
			pending[n - left] = sample;
		} else {
			sample -= overhead;
			if (unlikely(!tb_rec_fast_add(counts, fast, sample,
						      &fast_sum)))
				fast = tb_rec_slow(rec, sample);
		}
		left--;
		if (tb_check_due(pacing)) {
			err = tb_checkpoint(pacing, prim);
			if (err)
				break;
		}
	}
	/* a deferred block is recorded, by tb_replay(), once it is kept */
	if (!deferred)
		tb_rec_finish(rec, n - left, fast_sum, sums);
	return err;
}

/*
 * Each window of windows.h: tb_win_NAME(), timing primitive TB_ID by
 * TB_CLOCK_CLOCK, with tb_work() in each pair if @work, and its sampling
 * loop tb_sample_NAME(). notrace: a window must not start with a call
 * into ftrace either. A PMU clock's loop only keeps its windows, for
 * tb_sample() to record once it knows the counter stayed in place.
 */
#define TB_WINDOW(name, id, clock, work)				\
static noinline notrace __tb_own u64 tb_win_##name(u32 n)		\
{									\
	return tb_window(TB_##id, work, TB_CLOCK_##clock, n);		\
}									\
									\
static noinline __tb_own int						\
tb_sample_##name(struct tb_pacing *pacing, enum tb_prim prim,		\
		 struct tb_rec *rec, u64 n, struct tb_sums *sums)	\
{									\
	return tb_sample_loop(tb_win_##name,				\
			      tb_clock_pmu(TB_CLOCK_##clock), pacing,	\
			      prim, rec, n, sums);			\
}

#include "windows.h"
#undef TB_WINDOW

typedef int (*tb_sample_fn)(struct tb_pacing *pacing, enum tb_prim prim,
			    struct tb_rec *rec, u64 n, struct tb_sums *sums);

#define TB_WINDOW(name, id, clock, work)				\
	[TB_CLOCK_##clock][work][TB_##id] = tb_sample_##name,
static const tb_sample_fn tb_samplers[TB_NR_CLOCKS][2][TB_NR_PRIMS] = {
#include "windows.h"
};

#undef TB_WINDOW

/* Record a PMU clock's kept block, as a loop records any other's. */
static void tb_replay(struct tb_rec *rec, u64 n, struct tb_sums *sums)
{
	u32 *counts = tb_rec_counts(rec->hist);
	struct tb_rec_fast fast = tb_rec_bounds(rec);
	/*
	 * The windows are where the spill goes: the i-th window is read
	 * before anything is spilled, and at most i are spilled before it.
	 */
	const u64 *pending = rec->spill->value;
	u64 i, fast_sum = 0;

	rec->spill->nr = 0;
	for (i = 0; i < n; i++) {
		u64 sample = pending[i] - rec->overhead;

		if (!tb_rec_fast_add(counts, fast, sample, &fast_sum))
			fast = tb_rec_slow(rec, sample);
	}
	tb_rec_finish(rec, n, fast_sum, sums);
}

/*
 * Fold the spill into @hist, and with @flush its dense counts, once the
 * arena has the chunks that takes: between loops, where the thread may
 * sleep. The arena's array holds every chunk the histograms can have, so
 * only an allocation can fail. vmalloc, as the buffer is: a run's memory
 * is all in VmallocUsed, to the page (see "Memory use" in
 * doc/interface.md).
 */
static int tb_fold(struct tb_cpu_buf *buf, struct tb_cpu_hist *hist,
		   bool flush)
{
	unsigned int need = tb_cpu_hist_need(hist, &buf->spill, flush);
	struct tb_slab *slab;

	while (tb_arena_room(&buf->arena) < need) {
		slab = __vmalloc(sizeof(*slab), TB_GFP | __GFP_ZERO);
		if (!slab)
			return -ENOMEM;
		if (!tb_arena_give(&buf->arena, slab)) {
			vfree(slab);
			return -ENOSPC;
		}
	}
	return tb_cpu_hist_fold(hist, &buf->spill, flush) ? 0 : -ENOSPC;
}

/*
 * Record @n timings of @prim: less @overhead, saturating at 0, in the
 * histogram and heap; their ticks exactly in @sums, for the mean.
 */
static int tb_sample(struct tb_pacing *pacing, struct tb_cpu_buf *buf,
		     enum tb_prim prim, u64 overhead, u64 n,
		     struct tb_cpu_hist *hist, struct tb_heap *heap,
		     struct tb_sums *sums)
{
	const struct tb_run *run = pacing->run;
	tb_sample_fn sampler = tb_samplers[run->cfg.clock][run->cfg.do_work][prim];
	unsigned int tries;
	struct tb_rec rec;
	u64 stamp = 0;
	u32 sel = 0;
	int err;

	tb_rec_init(&rec, hist, &buf->spill, heap, overhead);
	if (!tb_clock_pmu(run->cfg.clock)) {
		err = sampler(pacing, prim, &rec, n, sums);
	} else {
		for (tries = 0; ; tries++) {
			if (tries == TB_PMC_RETRIES)
				return -EBUSY;
			err = tb_pmc_begin(run, &sel, &stamp);
			if (err)
				return err;
			err = sampler(pacing, prim, &rec, n, sums);
			if (err)
				return err;
			if (tb_pmc_stayed(run, sel, stamp))
				break;
			pacing->retimed++;
		}
		tb_replay(&rec, n, sums);
	}
	/* most loops spill nothing */
	return err || !buf->spill.nr ? err : tb_fold(buf, hist, false);
}

/*
 * The cost of an empty window, timed by the loop that times every
 * primitive, bookkeeping included, so that both run the same code around
 * their windows. The median of TB_CALIBRATION_SAMPLES, which an interrupt
 * cannot skew, is the overhead that every sample of the round is less;
 * their exact sum, in @empty, is what the mean of the round's windows is
 * less (struct tb_sums). The windows are recorded less @pilot, somewhat
 * below what they cost (tb_pilot()), so that they land where the
 * histogram is exact, below TB_HIST_EXACT, whatever a window costs; the
 * calibration's histogram is left empty for the next round.
 */
static int tb_calibrate(struct tb_pacing *pacing, struct tb_cpu_buf *buf,
			u64 pilot, u64 *overhead, struct tb_u128 *empty)
{
	struct tb_cpu_hist *hist = &buf->calibration;
	struct tb_sums sums = {};
	struct tb_heap none;
	int err;

	tb_heap_init(&none, NULL, 0);
	err = tb_sample(pacing, buf, TB_NONE, pilot, TB_CALIBRATION_SAMPLES,
			hist, &none, &sums);
	*overhead = pilot + tb_cpu_hist_median(hist);
	*empty = sums.raw;
	tb_cpu_hist_reset(hist);
	return err;
}

/*
 * Where to record a calibration from, given an earlier @overhead: half the
 * histogram's exact range below it, so that the windows stay in that range
 * while their cost drifts by less than TB_HIST_EXACT / 2 either way. An
 * overhead read off the inexact range is low, never high, by 1/256 at most.
 */
static u64 tb_pilot(u64 overhead)
{
	return overhead > TB_HIST_EXACT / 2 ? overhead - TB_HIST_EXACT / 2 : 0;
}

/* Histogram figures stay in whole windows; only means are per pair. */
static void tb_describe(const struct tb_cpu_hist *hist,
			const struct tb_sums *sums, u64 batch,
			struct tb_cpu_result *res)
{
	res->median = tb_cpu_hist_median(hist);
	res->mean = tb_sums_mean(sums, batch);
	res->max = hist->t.max;
	res->p99 = tb_cpu_hist_percentile(hist, 99, 100);
	res->samples = hist->t.nr;
}

/*
 * Counter ticks per second over a span that ktime also measured; 0 when
 * it cannot be told (a counter that went backwards wraps to ~2^64, and
 * x86's mul_u64_u64_div_u64() traps on a quotient past 64 bits).
 */
static u64 tb_counter_hz(u64 cycles, u64 ns)
{
	u64 whole, rest;

	if (!ns)
		return 0;
	whole = div64_u64_rem(cycles, ns, &rest);
	if (whole > U64_MAX / NSEC_PER_SEC)
		return 0;
	/* rest < ns, so this quotient is below NSEC_PER_SEC */
	return whole * NSEC_PER_SEC + mul_u64_u64_div_u64(rest, NSEC_PER_SEC, ns);
}

/* brackets read per end of a span; the narrowest counts */
#define TB_SPAN_TRIES		5

/*
 * A reading for counter_hz, at the start and end of a run on a CPU: the
 * clock itself and the ktime it was read at. Instructions count no time
 * (0), and core cycles' whole 64-bit count may sleep, so they are read
 * beside ktime as they come; ns is its own ktime. Cycles and ordered
 * are read between two ktime reads with interrupts off, and the
 * narrowest of a few such brackets dates the reading: a run can last a
 * few ms, and an interrupt or a host's preemption of a guest's CPU
 * between the two reads moved counter_hz by 0.1% and more in plain QEMU.
 */
static void tb_span_read(const struct tb_config *cfg, struct tb_cpu *tc,
			 u64 *count, u64 *ns)
{
	u64 before, reading, after, narrowest = U64_MAX;
	unsigned long flags;
	unsigned int i;

	switch (cfg->clock) {
	case TB_CLOCK_INSTRUCTIONS:
		*count = 0;
		*ns = ktime_get_ns();
		return;
	case TB_CLOCK_CORE_CYCLES:
		*count = tb_pmc_count(tc->pmc);
		*ns = ktime_get_ns();
		return;
	case TB_CLOCK_NS:
		/* the same read: its counter_hz is exactly 10^9 */
		*count = *ns = tb_clock_read(cfg->clock, 0, false);
		return;
	default:
		break;
	}
	for (i = 0; i < TB_SPAN_TRIES; i++) {
		local_irq_save(flags);
		before = ktime_get_ns();
		reading = tb_clock_read(cfg->clock, 0, false);
		after = ktime_get_ns();
		local_irq_restore(flags);
		if (!i || after - before < narrowest) {
			narrowest = after - before;
			*count = reading;
			*ns = before + narrowest / 2;
		}
	}
}

/*
 * Hand this CPU's histograms and largest samples on to the run: a
 * primitive at a time, under its own lock, each CPU starting at a
 * primitive of its own, so that up to TB_NR_PRIMS CPUs merge at once.
 */
static void tb_merge_cpu(struct tb_run *run, struct tb_cpu_buf *buf,
			 const struct tb_heap *heaps)
{
	unsigned int i, first = raw_smp_processor_id() % TB_NR_PRIMS;
	enum tb_prim prim;
	size_t j;

	for (i = 0; i < TB_NR_PRIMS; i++) {
		prim = (first + i) % TB_NR_PRIMS;
		mutex_lock(&run->merge_lock[prim]);
		tb_cpu_hist_merge(&run->report->hist[prim], &buf->hist[prim]);
		tb_sums_merge(&run->report->sums[prim], &buf->sums[prim]);
		for (j = 0; j < heaps[prim].nr; j++)
			tb_heap_offer(&run->heaps[prim], heaps[prim].data[j]);
		mutex_unlock(&run->merge_lock[prim]);
	}
}

/* Measure on this CPU into tc->buf. */
int tb_measure_cpu(struct tb_run *run, struct tb_cpu *tc)
{
	const struct tb_config *cfg = &run->cfg;
	/* a percentile run needs no heap: size 0 keeps nothing */
	size_t highest = run->percentile ? 0 : cfg->nr_highest;
	struct tb_heap heaps[TB_NR_PRIMS];
	struct tb_cpu_buf *buf = tc->buf;
	u64 cycles0, ns0, cycles1, ns1, overhead, overhead_sum = 0;
	u64 done, n, rounds = 0;
	struct tb_u128 empty, less;
	struct tb_pacing pacing;
	enum tb_prim prim;
	bool flush;
	int err;

	if (cfg->clock == TB_CLOCK_CYCLES || cfg->clock == TB_CLOCK_ORDERED) {
		err = tb_counter_check();
		if (err)
			return err;
	}
	tb_pacing_init(&pacing, run);
	tb_cpu_hist_init(&buf->calibration, &buf->arena);
	buf->spill.nr = 0;
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		tb_cpu_hist_init(&buf->hist[prim], &buf->arena);
		buf->sums[prim] = (struct tb_sums){};
		tb_heap_init(&heaps[prim], buf->highest + prim * highest,
			     highest);
	}

	tb_span_read(cfg, tc, &cycles0, &ns0);
	/* a first, rough calibration: where the rounds' ones record from */
	err = tb_calibrate(&pacing, buf, 0, &overhead, &empty);
	if (err)
		return err;
	/*
	 * Rounds: a fresh calibration, then a block of each primitive, whose
	 * windows are less the calibration's median in the histogram and
	 * less its mean in the sums.
	 */
	for (done = 0; done < cfg->nr_samples; done += n) {
		n = min_t(u64, cfg->nr_samples - done, TB_BLOCK);
		err = tb_calibrate(&pacing, buf, tb_pilot(overhead), &overhead,
				   &empty);
		if (err)
			return err;
		overhead_sum += overhead;
		rounds++;
		less = tb_sums_round_less(empty, n);
		/* every primitive has had as many windows: due for all or none */
		flush = tb_cpu_hist_flush_due(&buf->hist[0], n);
		for (prim = 0; flush && prim < TB_NR_PRIMS; prim++) {
			err = tb_fold(buf, &buf->hist[prim], true);
			if (err)
				return err;
		}
		for (prim = 0; prim < TB_NR_PRIMS; prim++) {
			err = tb_sample(&pacing, buf, prim, overhead, n,
					&buf->hist[prim], &heaps[prim],
					&buf->sums[prim]);
			if (err)
				return err;
			tb_sums_less(&buf->sums[prim], less);
		}
	}
	tb_span_read(cfg, tc, &cycles1, &ns1);
	tc->counter_hz = tb_counter_hz(cycles1 - cycles0, ns1 - ns0);
	/* once a run, not once a block: a busy perf can move it often */
	if (pacing.retimed)
		pr_info("CPU %u: %llu blocks timed again: the %s counter moved\n",
			raw_smp_processor_id(), pacing.retimed,
			tb_clock_names[cfg->clock]);
	/* below U64_MAX: at most 2^30 rounds of a window's cost */
	tc->overhead = div64_u64(overhead_sum, rounds);

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		if (run->percentile)
			tc->percentile[prim] =
				tb_cpu_hist_percentile(&buf->hist[prim],
						       run->percentile, 100);
		else
			tb_describe(&buf->hist[prim], &buf->sums[prim],
				    cfg->batch, &tc->res[prim]);
	}
	if (!run->percentile)
		tb_merge_cpu(run, buf, heaps);
	return 0;
}
