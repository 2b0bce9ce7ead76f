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
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smpboot.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "tracerbench.h"

/* The tail levels of the summary, from the merged histogram: num / den. */
const struct tb_level tb_levels[TB_NR_LEVELS] = {
	{ "p50",	50,	100 },
	{ "p90",	90,	100 },
	{ "p99",	99,	100 },
	{ "p99.9",	999,	1000 },
	{ "p99.99",	9999,	10000 },
};

/* Published results; tb_report is NULL until the first benchmark ends. */
struct tb_report *tb_report;
u64 tb_percentiles[TB_NR_PRIMS];
static u64 tb_nr_runs;
/* Serialises publishing the results above and reading them. */
DEFINE_MUTEX(tb_results_lock);

/* Runs, benchmark or percentile, are set up one at a time. */
DEFINE_MUTEX(tb_run_lock);
/* The run whose part on the CPU is offered, not yet taken. */
static DEFINE_PER_CPU(struct tb_run *, tb_pending);
static DEFINE_PER_CPU(struct task_struct *, tb_task);

static bool tb_threads_registered;
static int tb_cpuhp_state;		/* 0 until registered */

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

	/*
	 * TASK_IDLE: a barrier that a busy CPU holds up is no hung task.
	 * The tests know this wait as the thread's one TASK_IDLE sleep
	 * (wait_held, tools/guest/tests/running.sh).
	 */
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

/*
 * A CPU's buffer: its histograms, and its heaps at the run's nr_highest
 * (none for a percentile).
 */
static size_t tb_buf_size(const struct tb_run *run)
{
	size_t highest = run->percentile ? 0 : run->cfg.nr_highest;
	struct tb_cpu_buf *buf;

	return struct_size(buf, highest, TB_NR_PRIMS * highest);
}

/* Refuse a run whose buffers cannot fit, before asking for any of them. */
static int tb_check_memory(const struct tb_run *run)
{
	size_t bytes;

	if (check_mul_overflow(tb_buf_size(run),
			       (size_t)cpumask_weight(&run->cpus), &bytes))
		return -ENOMEM;
	if (bytes / PAGE_SIZE > (unsigned long)si_mem_available())
		return -ENOMEM;
	return 0;
}

/*
 * Give each CPU in run->cpus a buffer. vmalloc, not kvmalloc: a kmalloc
 * of it would take the next power of two of pages, half again as much.
 * Its chunks come later, from the CPU's thread, as it needs them
 * (tb_fold()).
 */
static int tb_alloc_buffers(struct tb_run *run)
{
	size_t size = tb_buf_size(run);
	unsigned int cpu;

	for_each_cpu(cpu, &run->cpus) {
		struct tb_cpu *tc = &run->cpu[cpu];

		tc->buf = __vmalloc(size, TB_GFP);
		if (!tc->buf)
			return -ENOMEM;
		tb_arena_init(&tc->buf->arena, tc->buf->slab, TB_MAX_SLABS);
	}
	return 0;
}

/* A CPU's buffer and the chunks its thread gave it; NULL is none. */
static void tb_free_buffer(struct tb_cpu_buf *buf)
{
	unsigned int i;

	if (!buf)
		return;
	for (i = 0; i < buf->arena.nr_slabs; i++)
		vfree(buf->slab[i]);
	vfree(buf);
}

/*
 * A new run, for @percentile (0 for a benchmark), with one reference, the
 * writer's; or NULL. The configuration is the caller's to copy in.
 */
static struct tb_run *tb_run_alloc(unsigned int percentile)
{
	struct tb_run *run;
	enum tb_prim prim;

	run = kvzalloc(struct_size(run, cpu, nr_cpu_ids), TB_GFP);
	if (!run)
		return NULL;
	refcount_set(&run->refs, 1);
	run->percentile = percentile;
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		mutex_init(&run->merge_lock[prim]);
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

	if (!refcount_dec_and_test(&run->refs)) {
		/*
		 * The writer may be waiting for this (tb_run_release()); no
		 * more of the run is touched, which it may free at once.
		 */
		wake_up_var(&run->refs);
		return;
	}
	/* only the run's CPUs have buffers and counters, if any */
	for_each_cpu(cpu, &run->cpus) {
		struct tb_cpu *tc = &run->cpu[cpu];

		if (tc->pmc)
			perf_event_release_kernel(tc->pmc);
		tb_free_buffer(tc->buf);
	}
	vfree(run->report);
	kvfree(run->scratch);
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		mutex_destroy(&run->merge_lock[prim]);
	kvfree(run);
}

/*
 * The writer's end of its run: wait for the threads to drop their parts,
 * so that the write returns with the run's memory and counters given
 * back (a PMU clock's next run finds its counters free), then drop its
 * own reference, the last. A signal ends the wait: the last thread to
 * drop its part frees the run then.
 */
static void tb_run_release(struct tb_run *run)
{
	wait_var_event_interruptible(&run->refs,
				     refcount_read(&run->refs) == 1);
	tb_run_put(run);
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

	/* vmalloc: a kmalloc would take the next power of two of pages */
	run->report = __vmalloc(struct_size(run->report, rows, nr_cpu_ids),
				TB_GFP | __GFP_ZERO);
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
	vfree(old);
}

int tb_benchmark(void)
{
	struct tb_run *run;
	u64 duration_ns;
	int err;

	/* nothing has happened yet: a handler with SA_RESTART restarts the call */
	if (mutex_lock_interruptible(&tb_run_lock))
		return -ERESTARTSYS;

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
		tb_run_release(run);
	mutex_unlock(&tb_run_lock);
	return err;
}

/* Sample afresh on the writer's CPU and publish the @pct percentile. */
int tb_percentile_run(unsigned int pct)
{
	struct tb_run *run;
	enum tb_prim prim;
	struct tb_cpu *tc;
	u64 duration_ns;
	int err;

	/* nothing has happened yet: a handler with SA_RESTART restarts the call */
	if (mutex_lock_interruptible(&tb_run_lock))
		return -ERESTARTSYS;

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
	tb_run_release(run);
	mutex_unlock(&tb_run_lock);
	return err;
}

/* Undo whatever init got to; safe to call at any point, and again. */
static void tb_cleanup(void)
{
	tb_remove_files();
	if (tb_cpuhp_state > 0) {
		cpuhp_remove_state_nocalls(tb_cpuhp_state);
		tb_cpuhp_state = 0;
	}
	if (tb_threads_registered) {
		smpboot_unregister_percpu_thread(&tb_threads);
		tb_threads_registered = false;
	}
	vfree(tb_report);
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
		tb_remove_files();
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
