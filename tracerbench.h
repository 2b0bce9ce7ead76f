/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What tracerbench's parts share: the configuration (interface.c), a run
 * and its report (run.c), and what each CPU of a run measures with and
 * into (measure.c).
 */
#ifndef TRACERBENCH_H
#define TRACERBENCH_H

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "heap.h"
#include "hist.h"

struct perf_event;
struct seq_file;

/* Kbuild passes the version; a build outside it still gets one. */
#ifndef TB_VERSION
#define TB_VERSION "unknown"
#endif

#include "defaults.h"

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
/* buffers must never invoke the OOM killer or warn: failure is -ENOMEM */
#define TB_GFP			(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* The primitives, from the list in prims.h. */
#define TB_PRIM(id, ...)	TB_##id,
enum tb_prim {
#include "prims.h"
	TB_NR_PRIMS,
};

#undef TB_PRIM

extern const char * const tb_prim_names[TB_NR_PRIMS];

/* The tail levels of the summary, from the merged histogram: num / den. */
struct tb_level {
	const char *name;
	u64 num;
	u64 den;
};

#define TB_NR_LEVELS	5
extern const struct tb_level tb_levels[TB_NR_LEVELS];

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

extern struct tb_param tb_params[TB_NR_PARAMS];

/*
 * What a window is timed with, from the list in clocks.h: get_cycles(), the
 * architecture's serialising read of the same counter,
 * ktime_get_mono_fast_ns(), or a PMU counter of the instructions or the
 * core cycles spent in the kernel (pmu.h). See tb_clock_read().
 */
#define TB_CLOCK(id, ...)	TB_CLOCK_##id,
#define TB_PMU_CLOCK		TB_CLOCK
enum tb_clock {
#include "clocks.h"
	TB_NR_CLOCKS,
};

#undef TB_PMU_CLOCK
#undef TB_CLOCK

extern const char * const tb_clock_names[TB_NR_CLOCKS];

/* The summary's unit of each clock. */
extern const char * const tb_clock_units[TB_NR_CLOCKS];

/* Whether @clock reads a counter of the PMU, which a run must open. */
static __always_inline bool tb_clock_pmu(enum tb_clock clock)
{
	switch (clock) {
#define TB_CLOCK(...)
#define TB_PMU_CLOCK(id, ...)	case TB_CLOCK_##id:
#include "clocks.h"
#undef TB_PMU_CLOCK
#undef TB_CLOCK
		return true;
	default:
		return false;
	}
}

/* The clock and the CPUs (all of them until a list is written) of the next run. */
extern enum tb_clock tb_clock_sel;
extern struct cpumask tb_cpus_wanted;
extern bool tb_cpus_all;

/* Serialises the configuration above. */
extern struct mutex tb_params_lock;

/* What a run measures with, copied from the configuration as it starts. */
struct tb_config {
	enum tb_clock clock;
	u32 batch;		/* u32: one register in i386's window loops */
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
extern struct tb_report *tb_report;
extern u64 tb_percentiles[TB_NR_PRIMS];
extern struct mutex tb_results_lock;

/*
 * A CPU's working memory for a run, on the CPU's node. Its size does not
 * depend on nr_samples: see "Memory use" in doc/interface.md.
 */
#define TB_NR_HISTS	(TB_NR_PRIMS + 1)	/* and the calibration's */
#define TB_MAX_SLABS	DIV_ROUND_UP(TB_NR_HISTS * TB_NR_CHUNKS, TB_SLAB_CHUNKS)

struct tb_cpu_buf {
	struct tb_cpu_hist calibration;	/* one round's empty windows */
	struct tb_cpu_hist hist[TB_NR_PRIMS];
	struct tb_sums sums[TB_NR_PRIMS];
	struct tb_spill spill;		/* a loop's windows past the exact range */
	struct tb_arena arena;		/* the chunks of the histograms */
	struct tb_slab *slab[TB_MAX_SLABS];
	u64 highest[];			/* nr_highest for each primitive */
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
	/* serialise merging into the report, a primitive each */
	struct mutex merge_lock[TB_NR_PRIMS];
	struct tb_heap heaps[TB_NR_PRIMS];
	struct tb_report *report;	/* being filled; benchmark only */
	u64 *scratch;			/* nr_cpu_ids values, for medians */
	struct tb_cpu cpu[];		/* each CPU's part, by CPU number */
};

/* Runs, benchmark or percentile, are set up one at a time. */
extern struct mutex tb_run_lock;

/*
 * Whether a measuring thread goes on: 0, or why the run ends. -EINTR: the
 * writer gave up. -EAGAIN: a CPU of the run is going down; for this one,
 * smpboot waits to park its thread until tb_thread_fn() returns.
 */
static inline int tb_stop_reason(const struct tb_run *run)
{
	int stop = READ_ONCE(run->stop);

	if (!stop && kthread_should_park())
		stop = -EAGAIN;
	return stop;
}

/* run.c */
int tb_benchmark(void);
int tb_percentile_run(unsigned int pct);

/* measure.c */
extern bool tb_force_counter_erratum;
extern int tb_force_counter_move;
int tb_measure_cpu(struct tb_run *run, struct tb_cpu *tc);

/* counters.c */
#define TB_PMC_RETRIES	16	/* times a block is timed again */
int tb_pmc_begin(const struct tb_run *run, u32 *sel, u64 *stamp);
bool tb_pmc_stayed(const struct tb_run *run, u32 sel, u64 stamp);
int tb_open_counters(struct tb_run *run);
int tb_clock_check(enum tb_clock clock);

/* interface.c */
extern bool tb_run_at_load;
int tb_create_files(void);
void tb_remove_files(void);
void tb_emit_summary(struct seq_file *m);

#endif /* TRACERBENCH_H */
