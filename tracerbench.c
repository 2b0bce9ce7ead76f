// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracerbench - cycles spent in local_irq_disable/enable(),
 * preempt_disable/enable() and local_irq_save/restore(), per CPU, so that
 * the cost of the preemptirq tracepoints can be measured with them off and on.
 *
 * A run wakes one bound kthread on each CPU it measures. The threads meet at
 * a start barrier, then time nr_samples windows of each primitive in rounds:
 * each round calibrates the cost of an empty window afresh, then times a
 * block of each primitive in turn. Between windows, every sample goes
 * into a per-CPU histogram and, when it is among the CPU's nr_highest
 * largest, into a per-CPU bounded min-heap. Memory therefore does not grow
 * with nr_samples. Each thread then merges its histogram and heap into the
 * run's, and the writer publishes one report that every file reads from.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smpboot.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/wait.h>

/* See Kbuild: the helpers are built into this compilation unit. */
#include "heap.c"
#include "pace.h"
#include "stats.c"
#include "hist.c"
#include "ticks.h"
#include "clock.h"
#include "pmu.h"

/* Kbuild passes the version; a build outside it still gets one. */
#ifndef TB_VERSION
#define TB_VERSION "unknown"
#endif

#define TB_DEFAULT_SAMPLES	10000
#define TB_DEFAULT_HIGHEST	100
/*
 * Samples are counted in u64 and summed in 128 bits, so any count would do;
 * 2^40 keeps every total within u64 for any number of CPUs. A run that
 * long takes about a day of windows at 25 ns.
 */
#define TB_MAX_SAMPLES		BIT_ULL(40)
/*
 * Pairs per window. 10^4 pairs of the dearest primitive, with tracing on,
 * keep a window well under a millisecond on real hardware, and a window
 * times batch fits u64 with room to spare.
 */
#define TB_MAX_BATCH		10000
/* per-CPU heaps are allocated at this size, so any setting fits them */
#define TB_MAX_HIGHEST		1024
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
/* buffers must never invoke the OOM killer or warn: failure is -ENOMEM */
#define TB_GFP			(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* The primitives, from the list in prims.h. */
#define TB_PRIM(id, ...)	TB_##id,
enum tb_prim {
#include "prims.h"
	TB_NR_PRIMS,
};

#undef TB_PRIM
#define TB_PRIM(id, name)						\
	[TB_##id] = #name,
static const char * const tb_prim_names[TB_NR_PRIMS] = {
#include "prims.h"
};

#undef TB_PRIM

/* The tail levels of the summary, from the merged histogram: num / den. */
static const struct {
	const char *name;
	u64 num;
	u64 den;
} tb_levels[] = {
	{ "p50",	50,	100 },
	{ "p90",	90,	100 },
	{ "p99",	99,	100 },
	{ "p99.9",	999,	1000 },
	{ "p99.99",	9999,	10000 },
};

#define TB_NR_LEVELS	ARRAY_SIZE(tb_levels)

/* Configuration, changed through debugfs or module parameters. */
enum tb_param_id {
	TB_NR_SAMPLES,
	TB_NR_HIGHEST,
	TB_DO_WORK,
	TB_BATCH,
	TB_NR_PARAMS,
};

struct tb_param {
	const char *name;
	u64 value;
	u64 min;
	u64 max;
};

static struct tb_param tb_params[TB_NR_PARAMS] = {
	[TB_NR_SAMPLES]	= { "nr_samples", TB_DEFAULT_SAMPLES, 1, TB_MAX_SAMPLES },
	[TB_NR_HIGHEST]	= { "nr_highest", TB_DEFAULT_HIGHEST, 1, TB_MAX_HIGHEST },
	[TB_DO_WORK]	= { "do_work", 0, 0, 1 },
	[TB_BATCH]	= { "batch", 1, 1, TB_MAX_BATCH },
};

/*
 * What a window is timed with: get_cycles(), the architecture's serialising
 * read of the same counter, ktime_get_mono_fast_ns(), or a PMU counter of the
 * instructions or the core cycles spent in the kernel (pmu.h). See
 * tb_clock_read().
 */
enum tb_clock {
	TB_CLOCK_CYCLES,
	TB_CLOCK_ORDERED,
	TB_CLOCK_NS,
	TB_CLOCK_INSTRUCTIONS,
	TB_CLOCK_CORE_CYCLES,
	TB_NR_CLOCKS,
};

static const char * const tb_clock_names[TB_NR_CLOCKS] = {
	[TB_CLOCK_CYCLES]	= "cycles",
	[TB_CLOCK_ORDERED]	= "ordered",
	[TB_CLOCK_NS]		= "ns",
	[TB_CLOCK_INSTRUCTIONS]	= "instructions",
	[TB_CLOCK_CORE_CYCLES]	= "core_cycles",
};

/* The summary's unit: both counter reads tick the same counter. */
static const char * const tb_clock_units[TB_NR_CLOCKS] = {
	[TB_CLOCK_CYCLES]	= "cycles",
	[TB_CLOCK_ORDERED]	= "cycles",
	[TB_CLOCK_NS]		= "ns",
	[TB_CLOCK_INSTRUCTIONS]	= "instructions",
	[TB_CLOCK_CORE_CYCLES]	= "core_cycles",
};

/* Whether @clock reads a counter of the PMU, which a run must open. */
static __always_inline bool tb_clock_pmu(enum tb_clock clock)
{
	return clock == TB_CLOCK_INSTRUCTIONS || clock == TB_CLOCK_CORE_CYCLES;
}

static enum tb_clock tb_clock_sel = TB_CLOCK_CYCLES;

/* CPUs a benchmark may use; all of them until a list is written. */
static struct cpumask tb_cpus_wanted;
static bool tb_cpus_all = true;

/* Serialises the configuration above. */
static DEFINE_MUTEX(tb_params_lock);

/* What a run measures with, copied from the configuration as it starts. */
struct tb_config {
	enum tb_clock clock;
	u64 batch;
	u64 nr_samples;
	size_t nr_highest;	/* clamped to nr_samples */
	bool do_work;
	bool all_cpus;
	struct cpumask cpus;
};

/* Room for a PMU's name in per_cpu: "-" for the other clocks. */
#define TB_PMU_NAME_LEN		32

/* One CPU's figures for one primitive, from its histogram. */
struct tb_cpu_result {
	u64 median;			/* in whole windows, as is p99 and max */
	struct tb_sfixed mean;		/* per pair: E[window] - E[empty] */
	u64 max;
	u64 p99;
	u64 samples;
};

/* A run's figures for one primitive, over all of its CPUs. */
struct tb_figures {
	/* whole windows, divided by batch when shown, except the means */
	u64 median;			/* median of the per-CPU medians */
	struct tb_sfixed average;	/* mean of the per-CPU means, per pair */
	u64 max;
	struct tb_fixed max_avg;	/* mean of the nr_highest largest, per pair */
	u64 level[TB_NR_LEVELS];	/* tb_levels, from the merged histogram */
	u64 samples;
};

/* What every result file reads: the last completed benchmark. */
struct tb_report_head {
	u64 run;			/* completed benchmarks since load */
	struct cpumask cpus;
	u64 nr_samples;
	u64 nr_highest;
	bool do_work;
	enum tb_clock clock;
	u64 batch;			/* pairs per window */
	u64 counter_hz;			/* median over CPUs */
	u64 overhead;			/* median over CPUs */
	u64 duration_ns;
	struct tb_figures fig[TB_NR_PRIMS];
};

struct tb_row {
	unsigned int cpu;
	char pmu[TB_PMU_NAME_LEN];	/* whose counter it read */
	struct tb_cpu_result res[TB_NR_PRIMS];
};

struct tb_report {
	struct tb_report_head head;
	u64 highest[TB_NR_PRIMS][TB_MAX_HIGHEST];	/* the run's heaps */
	struct tb_hist hist[TB_NR_PRIMS];		/* all CPUs merged */
	struct tb_sums sums[TB_NR_PRIMS];		/* all CPUs merged */
	unsigned int nr_rows;
	struct tb_row rows[];				/* one per CPU */
};

/* Published results; tb_report is NULL until the first benchmark ends. */
static struct tb_report *tb_report;
static u64 tb_percentiles[TB_NR_PRIMS];
static u64 tb_nr_runs;
static DEFINE_MUTEX(tb_results_lock);

/*
 * A CPU's working memory for a run, on the CPU's node. Its size does not
 * depend on nr_samples: see "Memory use" in doc/interface.md.
 */
struct tb_cpu_buf {
	struct tb_hist calibration;	/* one round's empty windows */
	u64 highest[TB_NR_PRIMS][TB_MAX_HIGHEST];
	struct tb_hist hist[TB_NR_PRIMS];
	struct tb_sums sums[TB_NR_PRIMS];
};

/* A run's part on one CPU: what its thread measures with, and into. */
struct tb_cpu {
	struct tb_cpu_buf *buf;		/* the run's memory for this CPU */
	struct perf_event *pmc;		/* the run's counter, PMU clocks only */
	char pmu[TB_PMU_NAME_LEN];
	u64 overhead;			/* mean over the rounds */
	u64 counter_hz;
	struct tb_cpu_result res[TB_NR_PRIMS];
	u64 percentile[TB_NR_PRIMS];
};

static DEFINE_PER_CPU(struct task_struct *, tb_task);
static DEFINE_PER_CPU(unsigned long, tb_work_state);

/*
 * One measurement: a benchmark, or a percentile on the writer's CPU.
 *
 * Each CPU of the run has a part, offered through that CPU's tb_pending
 * and taken exactly once, with xchg() or cmpxchg(): by its thread, by
 * tb_cpu_down() as the CPU goes down, or by tb_take_back() as the run
 * stops. Whoever takes a part counts it off unstarted (the start
 * barrier) and unfinished (done), so both reach 0 however the parts
 * went, and drops the part's reference. The writer holds one more: the
 * last reference dropped frees the run, its buffers and its counters,
 * so that a writer that a signal ends returns at once, whatever its
 * threads are doing, and they finish with the run on their own.
 */
struct tb_run {
	refcount_t refs;		/* the writer's, and one per part out */
	struct tb_config cfg;
	unsigned int percentile;	/* 0 for a benchmark run */
	struct cpumask cpus;		/* CPUs taking part */
	atomic_t unstarted;		/* threads not yet at the start barrier */
	atomic_t unfinished;		/* threads still measuring */
	wait_queue_head_t start;	/* woken as unstarted reaches 0 */
	struct completion done;
	int stop;			/* why the run ends early, or 0 */
	struct mutex merge_lock;	/* serialises merging into the report */
	struct tb_heap heaps[TB_NR_PRIMS];
	struct tb_report *report;	/* being filled; benchmark only */
	u64 *scratch;			/* nr_cpu_ids values, for medians */
	struct tb_cpu cpu[];		/* each CPU's part, by CPU number */
};

/* Runs, benchmark or percentile, are set up one at a time. */
static DEFINE_MUTEX(tb_run_lock);
/* The run whose part on the CPU is offered, not yet taken. */
static DEFINE_PER_CPU(struct tb_run *, tb_pending);

/*
 * Whether a measuring thread goes on: 0, or why the run ends. -EINTR: the
 * writer gave up. -EAGAIN: a CPU of the run is going down; for this one,
 * smpboot waits to park its thread until tb_thread_fn() returns.
 */
static int tb_stop_reason(const struct tb_run *run)
{
	int stop = READ_ONCE(run->stop);

	if (!stop && kthread_should_park())
		stop = -EAGAIN;
	return stop;
}

static struct dentry *tb_root;
static bool tb_threads_registered;
static int tb_cpuhp_state;		/* 0 until registered */

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
/* tools/check.sh builds this once, to see tools/disasm.sh catch a store */
static u64 tb_selftest_sink;
#endif

static __always_inline void tb_selftest_store(u64 v)
{
#ifdef TB_DISASM_SELFTEST
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
				     enum tb_clock clock, u64 batch)
{
	u32 sel = tb_clock_pmu(clock) ? raw_cpu_read(tb_pmc_sel) : 0;
	u64 t0, t1;

	t0 = tb_clock_read(clock, sel, true);
	barrier();
	tb_selftest_store(t0);
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
	struct tb_pace pace;
	u64 every[TB_NR_PRIMS];		/* windows between two checks */
};

static void tb_pacing_init(struct tb_pacing *pacing, const struct tb_run *run)
{
	enum tb_prim prim;

	pacing->run = run;
	tb_pace_init(&pacing->pace);
	/* one window first: nothing is known of what a window costs */
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		pacing->every[prim] = 1;
}

/* A block of windows of @prim starts now. */
static void tb_pacing_start(struct tb_pacing *pacing, enum tb_prim prim)
{
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
	cond_resched();
	tb_pace_restart(&pacing->pace, *every, ktime_get_ns());
	return tb_stop_reason(pacing->run);
}

/*
 * A window to be timed again, at most TB_RETIME_MAX times: the first that
 * reads right, or one that still reads negative. Rare, so a call through
 * a pointer will do.
 */
static noinline u64 tb_retime(u64 (*window)(u64 n), u64 batch)
{
	u64 sample = TB_WINDOW_AGAIN;
	unsigned int i;

	for (i = 0; i < TB_RETIME_MAX && tb_window_again(sample); i++)
		sample = window(batch);
	return sample;
}

/* Untimed windows, paced as the timed ones are. */
static __always_inline int tb_warm_up(struct tb_pacing *pacing,
				      enum tb_prim prim, u64 (*window)(u64 n),
				      u64 batch)
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
static __always_inline int tb_sample_loop(u64 (*window)(u64 n),
					  struct tb_pacing *pacing,
					  enum tb_prim prim, u64 overhead,
					  u64 n, struct tb_hist *hist,
					  struct tb_heap *heap,
					  struct tb_sums *sums)
{
	u64 batch = pacing->run->cfg.batch;
	u64 *counts = tb_rec_counts(hist);
	struct tb_rec_fast fast;
	u64 left, fast_sum = 0;
	struct tb_rec rec;
	int err;

	fast = tb_rec_init(&rec, hist, heap, overhead);
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
		sample -= overhead;

		if (unlikely(!tb_rec_fast_add(counts, fast, sample, &fast_sum)))
			fast = tb_rec_slow(&rec, sample);
		left--;
		if (tb_check_due(pacing)) {
			err = tb_checkpoint(pacing, prim);
			if (err)
				break;
		}
	}
	tb_rec_finish(&rec, n - left, fast_sum, sums);
	return err;
}

/*
 * Each window of windows.h: tb_win_NAME(), timing primitive TB_ID by
 * TB_CLOCK_CLOCK, with tb_work() in each pair if @work, and its sampling
 * loop tb_sample_NAME(). notrace: a window must not start with a call
 * into ftrace either.
 */
#define TB_WINDOW(name, id, clock, work)				\
static noinline notrace __tb_own u64 tb_win_##name(u64 n)		\
{									\
	return tb_window(TB_##id, work, TB_CLOCK_##clock, n);		\
}									\
									\
static noinline __tb_own int						\
tb_sample_##name(struct tb_pacing *pacing, enum tb_prim prim,		\
		 u64 overhead, u64 n, struct tb_hist *hist,		\
		 struct tb_heap *heap, struct tb_sums *sums)		\
{									\
	return tb_sample_loop(tb_win_##name, pacing, prim, overhead, n,	\
			      hist, heap, sums);			\
}

#include "windows.h"
#undef TB_WINDOW

typedef int (*tb_sample_fn)(struct tb_pacing *pacing, enum tb_prim prim,
			    u64 overhead, u64 n, struct tb_hist *hist,
			    struct tb_heap *heap, struct tb_sums *sums);

#define TB_WINDOW(name, id, clock, work)				\
	[TB_CLOCK_##clock][work][TB_##id] = tb_sample_##name,
static const tb_sample_fn tb_samplers[TB_NR_CLOCKS][2][TB_NR_PRIMS] = {
#include "windows.h"
};

#undef TB_WINDOW

/*
 * A PMU clock's counter for the windows of a block, and whether it stayed
 * there. perf may move the event whenever it reschedules this CPU's
 * counters (another user's event coming or going): to another counter,
 * or off, in error. The windows would then read another counter, or none,
 * so a block whose event moved, as its end finds, ends the run with
 * -EBUSY, and nothing of it is published.
 */
/*
 * Why the event moved: perf turns a CPU's events off as it goes down,
 * after it has left cpu_active_mask and before its thread parks, and
 * that ends the run with -EAGAIN, as any CPU going down does.
 */
static int tb_pmc_moved(const struct tb_run *run)
{
	int stop = tb_stop_reason(run);

	if (stop)
		return stop;
	return cpu_active(raw_smp_processor_id()) ? -EBUSY : -EAGAIN;
}

static int tb_pmc_begin(const struct tb_run *run, u32 *sel)
{
	const struct tb_cpu *tc = &run->cpu[raw_smp_processor_id()];
	bool cycles = run->cfg.clock == TB_CLOCK_CORE_CYCLES;

	if (!tb_clock_pmu(run->cfg.clock))
		return 0;
	if (tb_pmc_select(tc->pmc, cycles, sel))
		return tb_pmc_moved(run);
	raw_cpu_write(tb_pmc_sel, *sel);
	return 0;
}

static int tb_pmc_end(const struct tb_run *run, u32 sel)
{
	const struct tb_cpu *tc = &run->cpu[raw_smp_processor_id()];
	bool cycles = run->cfg.clock == TB_CLOCK_CORE_CYCLES;
	u32 now;

	if (!tb_clock_pmu(run->cfg.clock))
		return 0;
	if (tb_pmc_select(tc->pmc, cycles, &now) || now != sel)
		return tb_pmc_moved(run);
	return 0;
}

/*
 * Record @n timings of @prim: less @overhead, saturating at 0, in the
 * histogram and heap; their ticks exactly in @sums, for the mean.
 */
static int tb_sample(struct tb_pacing *pacing, enum tb_prim prim, u64 overhead,
		     u64 n, struct tb_hist *hist, struct tb_heap *heap,
		     struct tb_sums *sums)
{
	const struct tb_config *cfg = &pacing->run->cfg;
	u32 sel = 0;
	int err;

	err = tb_pmc_begin(pacing->run, &sel);
	if (err)
		return err;
	err = tb_samplers[cfg->clock][cfg->do_work][prim](pacing, prim, overhead,
							  n, hist, heap, sums);
	return err ? err : tb_pmc_end(pacing->run, sel);
}

/*
 * The cost of an empty window, timed by the loop that times every
 * primitive, bookkeeping included, so that both run the same code around
 * their windows. The median of TB_CALIBRATION_SAMPLES, which an interrupt
 * cannot skew, is the overhead that every sample of the round is less;
 * their exact sum, in @empty, is what the mean of the round's windows is
 * less (struct tb_sums). The windows are recorded less @pilot, somewhat
 * below what they cost (tb_pilot()), so that they land where the
 * histogram is exact, below TB_HIST_EXACT, whatever a window costs; @hist
 * is left empty for the next round.
 */
static int tb_calibrate(struct tb_pacing *pacing, struct tb_hist *hist,
			u64 pilot, u64 *overhead, struct tb_u128 *empty)
{
	struct tb_sums sums = {};
	struct tb_heap none;
	int err;

	tb_heap_init(&none, NULL, 0);
	err = tb_sample(pacing, TB_NONE, pilot, TB_CALIBRATION_SAMPLES, hist,
			&none, &sums);
	*overhead = pilot + tb_hist_median(hist);
	*empty = sums.raw;
	tb_hist_reset(hist);
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

/*
 * @sum / (@nr * @batch): a mean per pair from whole windows, with three
 * decimals. nr * batch fits u64: at most 2^40 windows of 10^4 pairs.
 */
static struct tb_fixed tb_mean_per_pair(struct tb_u128 sum, u64 nr, u64 batch)
{
	if (!nr)
		return (struct tb_fixed){};
	return tb_fixed_ratio(sum, nr * batch);
}

/* Histogram figures stay in whole windows; only means are per pair. */
static void tb_describe(const struct tb_hist *hist, const struct tb_sums *sums,
			u64 batch, struct tb_cpu_result *res)
{
	res->median = tb_hist_median(hist);
	res->mean = tb_sums_mean(sums, batch);
	res->max = hist->max;
	res->p99 = tb_hist_percentile(hist, 99, 100);
	res->samples = hist->nr;
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

/*
 * A reading for counter_hz, at the start and end of a run on a CPU: the
 * clock itself, but the whole 64-bit count of core cycles, and none of
 * instructions, whose rate says nothing of a clock.
 */
static u64 tb_span_read(const struct tb_config *cfg, struct tb_cpu *tc)
{
	switch (cfg->clock) {
	case TB_CLOCK_INSTRUCTIONS:
		return 0;
	case TB_CLOCK_CORE_CYCLES:
		return tb_pmc_count(tc->pmc);
	default:
		return tb_clock_read(cfg->clock, 0, false);
	}
}

/* Hand this CPU's histograms and largest samples on to the run. */
static void tb_merge_cpu(struct tb_run *run, struct tb_cpu_buf *buf,
			 const struct tb_heap *heaps)
{
	enum tb_prim prim;
	size_t i;

	mutex_lock(&run->merge_lock);
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		tb_hist_merge(&run->report->hist[prim], &buf->hist[prim]);
		tb_sums_merge(&run->report->sums[prim], &buf->sums[prim]);
		for (i = 0; i < heaps[prim].nr; i++)
			tb_heap_offer(&run->heaps[prim], heaps[prim].data[i]);
	}
	mutex_unlock(&run->merge_lock);
}

/* Measure on this CPU into tc->buf. */
static int tb_measure_cpu(struct tb_run *run, struct tb_cpu *tc)
{
	const struct tb_config *cfg = &run->cfg;
	struct tb_heap heaps[TB_NR_PRIMS];
	struct tb_cpu_buf *buf = tc->buf;
	u64 cycles0, ns0, cycles1, ns1, overhead, overhead_sum = 0;
	u64 done, n, rounds = 0;
	struct tb_u128 empty, less;
	struct tb_pacing pacing;
	enum tb_prim prim;
	int err;

	if (cfg->clock == TB_CLOCK_CYCLES || cfg->clock == TB_CLOCK_ORDERED) {
		err = tb_counter_check();
		if (err)
			return err;
	}
	tb_pacing_init(&pacing, run);
	tb_hist_init(&buf->calibration);
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		tb_hist_init(&buf->hist[prim]);
		buf->sums[prim] = (struct tb_sums){};
		/* a percentile run needs no heap: size 0 keeps nothing */
		tb_heap_init(&heaps[prim], buf->highest[prim],
			     run->percentile ? 0 : cfg->nr_highest);
	}

	cycles0 = tb_span_read(cfg, tc);
	/* the same read for clock=ns: its counter_hz is exactly 10^9 */
	ns0 = cfg->clock == TB_CLOCK_NS ? cycles0 : ktime_get_ns();
	/* a first, rough calibration: where the rounds' ones record from */
	err = tb_calibrate(&pacing, &buf->calibration, 0, &overhead, &empty);
	if (err)
		return err;
	/*
	 * Rounds: a fresh calibration, then a block of each primitive, whose
	 * windows are less the calibration's median in the histogram and
	 * less its mean in the sums.
	 */
	for (done = 0; done < cfg->nr_samples; done += n) {
		n = min_t(u64, cfg->nr_samples - done, TB_BLOCK);
		err = tb_calibrate(&pacing, &buf->calibration,
				   tb_pilot(overhead), &overhead, &empty);
		if (err)
			return err;
		overhead_sum += overhead;
		rounds++;
		less = tb_sums_round_less(empty, n);
		for (prim = 0; prim < TB_NR_PRIMS; prim++) {
			err = tb_sample(&pacing, prim, overhead, n,
					&buf->hist[prim], &heaps[prim],
					&buf->sums[prim]);
			if (err)
				return err;
			tb_sums_less(&buf->sums[prim], less);
		}
	}
	cycles1 = tb_span_read(cfg, tc);
	ns1 = cfg->clock == TB_CLOCK_NS ? cycles1 : ktime_get_ns();
	tc->counter_hz = tb_counter_hz(cycles1 - cycles0, ns1 - ns0);
	/* below U64_MAX: at most 2^30 rounds of a window's cost */
	tc->overhead = div64_u64(overhead_sum, rounds);

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		if (run->percentile)
			tc->percentile[prim] = tb_hist_percentile(&buf->hist[prim],
								  run->percentile,
								  100);
		else
			tb_describe(&buf->hist[prim], &buf->sums[prim],
				    cfg->batch, &tc->res[prim]);
	}
	if (!run->percentile)
		tb_merge_cpu(run, buf, heaps);
	return 0;
}

static int tb_thread_should_run(unsigned int cpu)
{
	return !!READ_ONCE(per_cpu(tb_pending, cpu));
}

/*
 * A thread reached the start barrier, or someone stands in for it: true
 * for the last, who must then tb_open_barrier(). Apart, because the
 * wake-up takes the wait queue's spinlock_t, which sleeps on PREEMPT_RT:
 * a thread arrives with preemption off, and wakes the others after.
 */
static bool tb_arrive(struct tb_run *run)
{
	return atomic_dec_and_test(&run->unstarted);
}

static void tb_open_barrier(struct tb_run *run)
{
	wake_up_all(&run->start);
}

static void tb_run_put(struct tb_run *run);

/*
 * A part is done with: after the last one the writer may publish. The
 * part's reference goes last: the run may be freed then.
 */
static void tb_finish(struct tb_run *run)
{
	if (atomic_dec_and_test(&run->unfinished))
		complete(&run->done);
	tb_run_put(run);
}

/*
 * Take back every part of the run that no thread has taken: each CPU's
 * part is taken exactly once, by its thread, by tb_cpu_down() or here,
 * and whoever takes it arrives and finishes for it. The caller still
 * holds a reference, as a part unfinished or as the writer, so the run
 * outlives this.
 */
static void tb_take_back(struct tb_run *run)
{
	unsigned int cpu;

	for_each_cpu(cpu, &run->cpus) {
		if (cmpxchg(per_cpu_ptr(&tb_pending, cpu), run, NULL) != run)
			continue;
		if (tb_arrive(run))
			tb_open_barrier(run);
		tb_finish(run);
	}
}

/*
 * End the run early for @err (the first reason given wins): threads that
 * measure stop at their next checkpoint, those at the barrier are let go,
 * and the parts not yet taken are taken back. So the run ends even when a
 * CPU is gone, or held by a real-time task, before its thread took part.
 */
static void tb_stop(struct tb_run *run, int err)
{
	cmpxchg(&run->stop, 0, err);
	tb_take_back(run);
}

/*
 * CPU hotplug, on @cpu as it goes down: after it has left cpu_active_mask
 * and before smpboot parks its thread. A part of the run that this thread
 * has not taken, it never will: the run ends with -EAGAIN. A thread that
 * took its part sees kthread_should_park() at the barrier or at its next
 * checkpoint, and the park waits for tb_thread_fn() to return.
 */
static int tb_cpu_down(unsigned int cpu)
{
	struct tb_run *run = xchg(per_cpu_ptr(&tb_pending, cpu), NULL);

	if (run) {
		tb_stop(run, -EAGAIN);
		if (tb_arrive(run))
			tb_open_barrier(run);
		tb_finish(run);
	}
	return 0;
}

static void tb_thread_fn(unsigned int cpu)
{
	struct tb_run *run;
	bool last = false;
	int err;

	/*
	 * NULL: the part was taken back before this thread ran. Taking it
	 * and arriving happen without a break, so that the threads at the
	 * barrier never wait for one that took its part and then lost its
	 * CPU before arriving. The wake-up, which may sleep, comes after.
	 */
	preempt_disable();
	run = xchg(per_cpu_ptr(&tb_pending, cpu), NULL);
	if (run)
		last = tb_arrive(run);
	preempt_enable();
	if (!run)
		return;
	if (last)
		tb_open_barrier(run);

	/* TASK_IDLE: a barrier that a busy CPU holds up is no hung task */
	wait_event_idle(run->start, !atomic_read(&run->unstarted) ||
			kthread_should_park());
	err = tb_stop_reason(run);
	if (!err)
		err = tb_measure_cpu(run, &run->cpu[cpu]);
	if (err)
		tb_stop(run, err);
	tb_finish(run);
}

static struct smp_hotplug_thread tb_threads = {
	.store			= &tb_task,
	.thread_should_run	= tb_thread_should_run,
	.thread_fn		= tb_thread_fn,
	.thread_comm		= "tracerbench/%u",
};

static void tb_snapshot_config(struct tb_config *cfg)
{
	mutex_lock(&tb_params_lock);
	cfg->nr_samples = tb_params[TB_NR_SAMPLES].value;
	cfg->nr_highest = min(tb_params[TB_NR_HIGHEST].value, cfg->nr_samples);
	cfg->do_work = tb_params[TB_DO_WORK].value;
	cfg->batch = tb_params[TB_BATCH].value;
	cfg->all_cpus = tb_cpus_all;
	cfg->clock = tb_clock_sel;
	cpumask_copy(&cfg->cpus, &tb_cpus_wanted);
	mutex_unlock(&tb_params_lock);
}

/*
 * The CPUs of a run: for a percentile, the writer's; for a benchmark, the
 * wanted ones. Only active ones: a CPU joins cpu_active_mask after its
 * smpboot threads are unparked, and leaves it before tb_cpu_down().
 */
static void tb_select_cpus(struct tb_run *run)
{
	if (run->percentile)
		cpumask_copy(&run->cpus, cpumask_of(raw_smp_processor_id()));
	else if (run->cfg.all_cpus)
		cpumask_copy(&run->cpus, cpu_active_mask);
	else
		cpumask_copy(&run->cpus, &run->cfg.cpus);
	cpumask_and(&run->cpus, &run->cpus, cpu_active_mask);
}

/* Refuse a run whose buffers cannot fit, before asking for any of them. */
static int tb_check_memory(const struct tb_run *run)
{
	size_t bytes;

	if (check_mul_overflow(sizeof(struct tb_cpu_buf),
			       (size_t)cpumask_weight(&run->cpus), &bytes))
		return -ENOMEM;
	if (bytes / PAGE_SIZE > (unsigned long)si_mem_available())
		return -ENOMEM;
	return 0;
}

/* Give each CPU in run->cpus a buffer on its own node. */
static int tb_alloc_buffers(struct tb_run *run)
{
	unsigned int cpu;

	for_each_cpu(cpu, &run->cpus) {
		struct tb_cpu *tc = &run->cpu[cpu];

		tc->buf = kvmalloc_node(sizeof(*tc->buf), TB_GFP,
					cpu_to_node(cpu));
		if (!tc->buf)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A PMU clock's counters, one on each CPU of the run, which the run opens
 * as it starts and releases as it ends, on every path: a counter held
 * between runs would deny it to other users for nothing.
 */
static int tb_open_counters(struct tb_run *run)
{
	bool cycles = run->cfg.clock == TB_CLOCK_CORE_CYCLES;
	unsigned int cpu;
	int err;

	for_each_cpu(cpu, &run->cpus) {
		struct tb_cpu *tc = &run->cpu[cpu];

		strscpy(tc->pmu, "-", sizeof(tc->pmu));
		if (!tb_clock_pmu(run->cfg.clock))
			continue;
		err = tb_pmc_create(cpu, cycles, &tc->pmc);
		/* perf's refusal of a CPU going down is no missing PMU */
		if (err)
			return cpu_active(cpu) ? err : -EAGAIN;
		strscpy(tc->pmu, tb_pmc_name(tc->pmc), sizeof(tc->pmu));
	}
	return 0;
}

/*
 * A new run, for @percentile (0 for a benchmark), with one reference, the
 * writer's; or NULL. The configuration is the caller's to copy in.
 */
static struct tb_run *tb_run_alloc(unsigned int percentile)
{
	struct tb_run *run;

	run = kvzalloc(struct_size(run, cpu, nr_cpu_ids), TB_GFP);
	if (!run)
		return NULL;
	refcount_set(&run->refs, 1);
	run->percentile = percentile;
	mutex_init(&run->merge_lock);
	init_waitqueue_head(&run->start);
	init_completion(&run->done);
	return run;
}

/*
 * Drop a reference; the last frees the run with everything it holds:
 * the counters, the buffers and the report not published. It may sleep.
 */
static void tb_run_put(struct tb_run *run)
{
	enum tb_prim prim;
	unsigned int cpu;

	if (!refcount_dec_and_test(&run->refs))
		return;
	for_each_possible_cpu(cpu) {
		struct tb_cpu *tc = &run->cpu[cpu];

		if (tc->pmc)
			perf_event_release_kernel(tc->pmc);
		kvfree(tc->buf);
	}
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		tb_heap_init(&run->heaps[prim], NULL, 0);
	kvfree(run->report);
	kvfree(run->scratch);
	mutex_destroy(&run->merge_lock);
	kvfree(run);
}

/*
 * Wake the thread of each CPU of the run and wait for all of them. No
 * CPU-hotplug lock is held, so a hotplug, and every cpus_read_lock() that
 * queues behind one (static_key_enable(): the event toggle), never waits
 * for a run. A CPU of the run that goes down ends it with -EAGAIN (see
 * tb_cpu_down() and tb_stop_reason()); a CPU that comes up takes no part.
 * A signal ends the run and this wait at once: a thread that a real-time
 * task keeps off its CPU while it measures finishes with the run when it
 * runs again, and the last reference frees what the run holds.
 */
static int tb_run_cpus(struct tb_run *run, u64 *duration_ns)
{
	unsigned int nr, cpu;
	u64 start;
	int err;

	tb_select_cpus(run);
	/* a percentile's CPU is the writer's, which is going down */
	err = run->percentile ? -EAGAIN : -ENODEV;
	if (!cpumask_empty(&run->cpus))
		err = tb_check_memory(run);
	if (!err)
		err = tb_alloc_buffers(run);
	if (!err)
		err = tb_open_counters(run);
	if (err)
		return err;

	nr = cpumask_weight(&run->cpus);
	atomic_set(&run->unstarted, nr);
	atomic_set(&run->unfinished, nr);

	start = ktime_get_ns();
	for_each_cpu(cpu, &run->cpus) {
		refcount_inc(&run->refs);
		/*
		 * Release: a thread still looping from the last run may see
		 * its part without the wake-up's barrier, and must then see
		 * the run set up above as well. A parked thread is not woken.
		 */
		smp_store_release(per_cpu_ptr(&tb_pending, cpu), run);
		wake_up_process(per_cpu(tb_task, cpu));
		/*
		 * The part, then cpu_active(): the mirror of tb_cpu_down(),
		 * whose xchg() of the part follows the CPU's leaving the
		 * mask. Either it sees the part, or this sees the CPU gone.
		 */
		smp_mb();
		if (!cpu_active(cpu))
			tb_stop(run, -EAGAIN);
	}
	/* parts given after a stop during the wake-ups are still out */
	if (READ_ONCE(run->stop))
		tb_take_back(run);

	/* interruptible: any signal ends the run, Ctrl-C as well as a kill */
	if (wait_for_completion_interruptible(&run->done))
		tb_stop(run, -EINTR);
	*duration_ns = ktime_get_ns() - start;
	return READ_ONCE(run->stop);
}

static int tb_alloc_report(struct tb_run *run)
{
	enum tb_prim prim;

	run->report = kvzalloc(struct_size(run->report, rows, nr_cpu_ids),
			       TB_GFP);
	run->scratch = kvmalloc_array(nr_cpu_ids, sizeof(u64), TB_GFP);
	if (!run->report || !run->scratch)
		return -ENOMEM;
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		tb_hist_init(&run->report->hist[prim]);
		tb_heap_init(&run->heaps[prim], run->report->highest[prim],
			     run->cfg.nr_highest);
	}
	return 0;
}

static u64 tb_cpu_counter_hz(const struct tb_cpu *tc, enum tb_prim prim)
{
	return tc->counter_hz;
}

static u64 tb_cpu_overhead(const struct tb_cpu *tc, enum tb_prim prim)
{
	return tc->overhead;
}

static u64 tb_cpu_median(const struct tb_cpu *tc, enum tb_prim prim)
{
	return tc->res[prim].median;
}

/* Median over the run's CPUs of what @get reads from each. */
static u64 tb_median_over_cpus(struct tb_run *run,
			       u64 (*get)(const struct tb_cpu *tc,
					  enum tb_prim prim),
			       enum tb_prim prim)
{
	u64 *values = run->scratch;
	unsigned int cpu;
	size_t nr = 0;

	for_each_cpu(cpu, &run->cpus)
		values[nr++] = get(&run->cpu[cpu], prim);
	return tb_median(values, nr);
}

static void tb_sum_figures(struct tb_run *run, enum tb_prim prim,
			   struct tb_figures *fig)
{
	const struct tb_hist *hist = &run->report->hist[prim];
	const struct tb_heap *heap = &run->heaps[prim];
	struct tb_u128 top = {};
	unsigned int l;
	size_t i;

	/*
	 * The mean of the per-CPU means, as every CPU takes as many samples:
	 * from the exact sums of them all, so it is rounded only once.
	 */
	fig->average = tb_sums_mean(&run->report->sums[prim], run->cfg.batch);
	fig->median = tb_median_over_cpus(run, tb_cpu_median, prim);
	fig->max = hist->max;
	for (i = 0; i < heap->nr; i++)
		tb_u128_add(&top, heap->data[i]);
	fig->max_avg = tb_mean_per_pair(top, heap->nr, run->cfg.batch);
	for (l = 0; l < TB_NR_LEVELS; l++)
		fig->level[l] = tb_hist_percentile(hist, tb_levels[l].num,
						   tb_levels[l].den);
	fig->samples = hist->nr;
}

/* Fill the run's report from the per-CPU results and publish it. */
static void tb_publish_benchmark(struct tb_run *run, u64 duration_ns)
{
	struct tb_report *rep = run->report, *old;
	struct tb_report_head *head = &rep->head;
	enum tb_prim prim;
	unsigned int cpu;

	cpumask_copy(&head->cpus, &run->cpus);
	head->nr_samples = run->cfg.nr_samples;
	head->nr_highest = run->cfg.nr_highest;
	head->do_work = run->cfg.do_work;
	head->batch = run->cfg.batch;
	head->clock = run->cfg.clock;
	head->duration_ns = duration_ns;
	head->counter_hz = tb_median_over_cpus(run, tb_cpu_counter_hz, 0);
	head->overhead = tb_median_over_cpus(run, tb_cpu_overhead, 0);
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		tb_sum_figures(run, prim, &head->fig[prim]);

	rep->nr_rows = 0;
	for_each_cpu(cpu, &run->cpus) {
		struct tb_row *row = &rep->rows[rep->nr_rows++];

		row->cpu = cpu;
		strscpy(row->pmu, run->cpu[cpu].pmu, sizeof(row->pmu));
		memcpy(row->res, run->cpu[cpu].res, sizeof(row->res));
	}

	mutex_lock(&tb_results_lock);
	head->run = ++tb_nr_runs;
	old = tb_report;
	tb_report = rep;
	mutex_unlock(&tb_results_lock);

	run->report = NULL;
	kvfree(old);
}

static int tb_benchmark(void)
{
	struct tb_run *run;
	u64 duration_ns;
	int err;

	if (mutex_lock_interruptible(&tb_run_lock))
		return -EINTR;

	run = tb_run_alloc(0);
	err = -ENOMEM;
	if (run) {
		tb_snapshot_config(&run->cfg);
		err = tb_alloc_report(run);
	}
	if (!err)
		err = tb_run_cpus(run, &duration_ns);
	if (!err)
		tb_publish_benchmark(run, duration_ns);
	if (run)
		tb_run_put(run);
	mutex_unlock(&tb_run_lock);
	return err;
}

/* Sample afresh on the writer's CPU and publish the @pct percentile. */
static int tb_percentile_run(unsigned int pct)
{
	struct tb_run *run;
	enum tb_prim prim;
	struct tb_cpu *tc;
	u64 duration_ns;
	int err;

	if (mutex_lock_interruptible(&tb_run_lock))
		return -EINTR;

	run = tb_run_alloc(pct);
	if (!run) {
		mutex_unlock(&tb_run_lock);
		return -ENOMEM;
	}
	tb_snapshot_config(&run->cfg);
	err = tb_run_cpus(run, &duration_ns);
	if (!err) {
		tc = &run->cpu[cpumask_first(&run->cpus)];
		mutex_lock(&tb_results_lock);
		for (prim = 0; prim < TB_NR_PRIMS; prim++)
			tb_percentiles[prim] = div64_u64(tc->percentile[prim],
							 run->cfg.batch);
		mutex_unlock(&tb_results_lock);
	}
	tb_run_put(run);
	mutex_unlock(&tb_run_lock);
	return err;
}

/* The interface: debugfs, module parameters, the summary. */
#include "interface.c"

/* Undo whatever init got to; safe to call at any point, and again. */
static void tb_cleanup(void)
{
	debugfs_remove_recursive(tb_root);
	tb_root = NULL;
	if (tb_cpuhp_state > 0) {
		cpuhp_remove_state_nocalls(tb_cpuhp_state);
		tb_cpuhp_state = 0;
	}
	if (tb_threads_registered) {
		smpboot_unregister_percpu_thread(&tb_threads);
		tb_threads_registered = false;
	}
	kvfree(tb_report);
	tb_report = NULL;
}

/* Headless: one benchmark at load, its summary in the kernel log. */
static int tb_run_headless(void)
{
	int err;

	err = tb_benchmark();
	if (err) {
		pr_err("benchmark at load failed: %d\n", err);
		return err;
	}
	mutex_lock(&tb_results_lock);
	tb_emit_summary(NULL);
	mutex_unlock(&tb_results_lock);
	return 0;
}

static int __init tracerbench_init(void)
{
	int err;

	if (tb_cpus_all)
		cpumask_copy(&tb_cpus_wanted, cpu_possible_mask);

	err = smpboot_register_percpu_thread(&tb_threads);
	if (err)
		goto fail;
	tb_threads_registered = true;
	/* after the threads: a CPU's teardown runs before they park */
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					KBUILD_MODNAME ":cpu", NULL, tb_cpu_down);
	if (err < 0)
		goto fail;
	tb_cpuhp_state = err;

	/*
	 * The headless run comes before the files: init may still fail then,
	 * and files that someone opened during a long run would outlive the
	 * module that a failed init frees.
	 */
	if (tb_run_at_load) {
		err = tb_run_headless();
		if (err)
			goto fail;
	}

	err = tb_create_files();
	if (err && tb_run_at_load) {
		/* e.g. debugfs=off or lockdown: the log was the interface */
		pr_notice("no debugfs files (%d): headless only\n", err);
		debugfs_remove_recursive(tb_root);
		tb_root = NULL;
		err = 0;
	}
	if (err)
		goto fail;
	return 0;

fail:
	pr_err("initialisation failed: %d\n", err);
	tb_cleanup();
	return err;
}

static void __exit tracerbench_exit(void)
{
	tb_cleanup();
}

module_init(tracerbench_init);
module_exit(tracerbench_exit);

MODULE_DESCRIPTION("Cycle cost of irq, preempt and irq_save disable/enable pairs");
MODULE_AUTHOR("The tracerbench authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(TB_VERSION);
