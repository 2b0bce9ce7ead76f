// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracerbench - cycles spent in local_irq_disable/enable(),
 * preempt_disable/enable() and local_irq_save/restore(), per CPU, so that
 * the cost of the preemptirq tracepoints can be measured with them off and on.
 *
 * A run wakes one bound kthread per online CPU. The threads meet at a start
 * barrier, calibrate the cost of reading the cycle counter, time nr_samples
 * pairs of each primitive, and summarise their own samples. Their largest
 * samples go into one shared bounded min-heap per primitive, from which the
 * writer derives max_avg once every CPU is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smpboot.h>
#include <linux/spinlock.h>
#include <linux/timex.h>

/* See Kbuild: the helpers are built into this compilation unit. */
#include "heap.c"
#include "stats.c"

/* Kbuild passes the version; a build outside it still gets one. */
#ifndef TB_VERSION
#define TB_VERSION "unknown"
#endif

#define TB_DEFAULT_SAMPLES	10000
#define TB_DEFAULT_HIGHEST	100
/* kvmalloc() refuses single buffers larger than INT_MAX bytes */
#define TB_MAX_SAMPLES		(INT_MAX / sizeof(u64))
/* samples of the bare counter read taken to find its cost */
#define TB_CALIBRATION_SAMPLES	10000
/* untimed iterations that warm caches and branch predictors first */
#define TB_WARMUP		1000
/* samples between two chances to reschedule or abort, a power of two */
#define TB_RESCHED_INTERVAL	256
/* buffers must never invoke the OOM killer or warn: failure is -ENOMEM */
#define TB_GFP			(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

enum tb_prim {
	TB_IRQ,
	TB_PREEMPT,
	TB_IRQ_SAVE,
	TB_NR_PRIMS,
	/* not a primitive: the empty window used to calibrate the timer */
	TB_CALIBRATION = TB_NR_PRIMS,
};

static const char * const tb_prim_names[TB_NR_PRIMS] = {
	[TB_IRQ]	= "irq",
	[TB_PREEMPT]	= "preempt",
	[TB_IRQ_SAVE]	= "irq_save",
};

/* Configuration, changed through debugfs and snapshotted by each run. */
enum tb_param_id {
	TB_NR_SAMPLES,
	TB_NR_HIGHEST,
	TB_DO_WORK,
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
	[TB_NR_HIGHEST]	= { "nr_highest", TB_DEFAULT_HIGHEST, 1, TB_MAX_SAMPLES },
	[TB_DO_WORK]	= { "do_work", 0, 0, 1 },
};

static DEFINE_MUTEX(tb_params_lock);

struct tb_config {
	size_t nr_samples;
	size_t nr_highest;
	bool do_work;
};

/* Published results, read through debugfs at any time. */
struct tb_result {
	u64 median;
	u64 average;
	u64 max;
	u64 max_avg;
	u64 percentile;
};

static struct tb_result tb_results[TB_NR_PRIMS];
static DEFINE_SPINLOCK(tb_results_lock);

/* Per-CPU state of the thread that measures on that CPU. */
struct tb_cpu {
	bool pending;			/* the current run wants this CPU */
	int err;
	u64 *samples;			/* the run's buffer for this CPU */
	struct tb_summary summary[TB_NR_PRIMS];
	u64 percentile[TB_NR_PRIMS];
};

static DEFINE_PER_CPU(struct tb_cpu, tb_cpu);
static DEFINE_PER_CPU(struct task_struct *, tb_task);
static DEFINE_PER_CPU(unsigned long, tb_work_state);

/* One measurement, on every online CPU or, for a percentile, on one. */
struct tb_run {
	struct tb_config cfg;
	unsigned int percentile;	/* 0 for a benchmark run */
	struct cpumask cpus;		/* CPUs taking part */
	atomic_t unstarted;		/* threads not yet at the start barrier */
	atomic_t unfinished;		/* threads still measuring */
	struct completion start;
	struct completion done;
	bool aborted;			/* the writer was killed */
	struct mutex heap_lock;		/* serialises feeding the heaps */
	struct tb_heap heaps[TB_NR_PRIMS];
	u64 *storage;			/* heaps, then one entry per CPU */
};

/* Runs, benchmark or percentile, happen one at a time. */
static DEFINE_MUTEX(tb_run_lock);
static struct tb_run tb_run;

static struct dentry *tb_root;
static bool tb_threads_registered;

/*
 * A critical section of the kind real code has: a per-CPU read-modify-write,
 * a branch on the data, and a read of current. noinline keeps it one call,
 * identical in the calibration and in the timed pairs.
 */
static noinline void simulate_critical_section(void)
{
	unsigned long state = __this_cpu_read(tb_work_state);

	if (state & 1)
		state += current->pid;
	else
		state ^= current->pid;
	__this_cpu_write(tb_work_state, state + 1);
}

/*
 * Cycles from before prim##_disable() to after prim##_enable(), with @work
 * in between. Includes reading the counter, which the caller subtracts.
 */
#define time_diff(prim, work) ({					\
	cycles_t __start = get_cycles();				\
	prim##_disable();						\
	work;								\
	prim##_enable();						\
	(u64)(get_cycles() - __start);					\
})

/* time_diff() for local_irq_save/restore(), which need the flags. */
#define time_diff_save_restore(work) ({					\
	unsigned long __flags;						\
	cycles_t __start = get_cycles();				\
	local_irq_save(__flags);					\
	work;								\
	local_irq_restore(__flags);					\
	(u64)(get_cycles() - __start);					\
})

/* The same window with no primitive: what the counter and @work cost. */
#define time_diff_empty(work) ({					\
	cycles_t __start = get_cycles();				\
	work;								\
	(u64)(get_cycles() - __start);					\
})

/* barrier() stands for "no work": it emits no instruction. */
static __always_inline u64 tb_time_one(enum tb_prim prim, bool work)
{
	switch (prim) {
	case TB_IRQ:
		return work ? time_diff(local_irq, simulate_critical_section()) :
			      time_diff(local_irq, barrier());
	case TB_PREEMPT:
		return work ? time_diff(preempt, simulate_critical_section()) :
			      time_diff(preempt, barrier());
	case TB_IRQ_SAVE:
		return work ? time_diff_save_restore(simulate_critical_section()) :
			      time_diff_save_restore(barrier());
	default:
		return work ? time_diff_empty(simulate_critical_section()) :
			      time_diff_empty(barrier());
	}
}

/*
 * Fill @samples with @n timings of @prim less @overhead, saturating at 0.
 * Rescheduling and the abort check happen between windows, never in one.
 */
static int tb_sample(enum tb_prim prim, bool work, u64 overhead,
		     u64 *samples, size_t n)
{
	size_t i;

	for (i = 0; i < TB_WARMUP; i++)
		tb_time_one(prim, work);

	for (i = 0; i < n; i++) {
		u64 cycles = tb_time_one(prim, work);

		samples[i] = cycles > overhead ? cycles - overhead : 0;
		if (i % TB_RESCHED_INTERVAL == TB_RESCHED_INTERVAL - 1) {
			if (READ_ONCE(tb_run.aborted))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/* Measure on this CPU; tc->samples holds tb_buffer_len() entries. */
static int tb_measure_cpu(struct tb_run *run, struct tb_cpu *tc)
{
	const struct tb_config *cfg = &run->cfg;
	size_t n = cfg->nr_samples, top = cfg->nr_highest;
	u64 *samples = tc->samples;
	enum tb_prim prim;
	u64 overhead;
	size_t i;
	int err;

	/* a median, so that an interrupt in a window does not skew it */
	err = tb_sample(TB_CALIBRATION, cfg->do_work, 0, samples,
			TB_CALIBRATION_SAMPLES);
	if (err)
		return err;
	overhead = tb_median(samples, TB_CALIBRATION_SAMPLES);

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		err = tb_sample(prim, cfg->do_work, overhead, samples, n);
		if (err)
			return err;

		if (run->percentile) {
			tc->percentile[prim] = tb_percentile(samples, n,
							     run->percentile);
			continue;
		}

		tb_summarize(samples, n, top, &tc->summary[prim]);
		mutex_lock(&run->heap_lock);
		for (i = n - top; i < n; i++)
			tb_heap_offer(&run->heaps[prim], samples[i]);
		mutex_unlock(&run->heap_lock);
	}
	return 0;
}

static int tb_thread_should_run(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&tb_cpu, cpu)->pending);
}

static void tb_thread_fn(unsigned int cpu)
{
	struct tb_cpu *tc = per_cpu_ptr(&tb_cpu, cpu);
	struct tb_run *run = &tb_run;

	WRITE_ONCE(tc->pending, false);

	if (atomic_dec_and_test(&run->unstarted))
		complete_all(&run->start);
	else
		wait_for_completion(&run->start);

	tc->err = tb_measure_cpu(run, tc);
	if (atomic_dec_and_test(&run->unfinished))
		complete(&run->done);
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
	cfg->nr_highest = min_t(u64, tb_params[TB_NR_HIGHEST].value,
				cfg->nr_samples);
	cfg->do_work = tb_params[TB_DO_WORK].value;
	mutex_unlock(&tb_params_lock);
}

/* Calibration shares the sample buffer, so it is at least that long. */
static size_t tb_buffer_len(const struct tb_config *cfg)
{
	return max_t(size_t, cfg->nr_samples, TB_CALIBRATION_SAMPLES);
}

/* Refuse a run whose buffers cannot fit, before asking for any of them. */
static int tb_check_memory(const struct tb_run *run)
{
	size_t bytes;

	if (check_mul_overflow(tb_buffer_len(&run->cfg) * sizeof(u64),
			       (size_t)cpumask_weight(&run->cpus), &bytes))
		return -ENOMEM;
	if (bytes / PAGE_SIZE > (unsigned long)si_mem_available())
		return -ENOMEM;
	return 0;
}

/* Give each CPU in run->cpus that has none a buffer on its own node. */
static int tb_alloc_buffers(const struct tb_run *run)
{
	size_t bytes = array_size(tb_buffer_len(&run->cfg), sizeof(u64));
	unsigned int cpu;

	for_each_cpu(cpu, &run->cpus) {
		struct tb_cpu *tc = per_cpu_ptr(&tb_cpu, cpu);

		if (!tc->samples)
			tc->samples = kvmalloc_node(bytes, TB_GFP,
						    cpu_to_node(cpu));
		if (!tc->samples)
			return -ENOMEM;
	}
	return 0;
}

static bool tb_have_buffers(const struct cpumask *cpus)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpus)
		if (!per_cpu_ptr(&tb_cpu, cpu)->samples)
			return false;
	return true;
}

static void tb_free_buffers(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(&tb_cpu, cpu)->samples);
		per_cpu_ptr(&tb_cpu, cpu)->samples = NULL;
	}
}

static void tb_select_cpus(struct tb_run *run)
{
	if (run->percentile)
		/* the writer's CPU; its bound thread samples, so none migrates */
		cpumask_copy(&run->cpus, cpumask_of(raw_smp_processor_id()));
	else
		cpumask_copy(&run->cpus, cpu_online_mask);
}

/*
 * Take cpus_read_lock() with a buffer ready for every CPU of the run. They
 * are allocated before the lock, so that nothing under it can wait on
 * memory, and again if a CPU came online meanwhile. Returns with the lock
 * held only on success.
 */
static int tb_lock_cpus(struct tb_run *run)
{
	int err;

	for (;;) {
		tb_select_cpus(run);
		err = tb_check_memory(run);
		if (!err)
			err = tb_alloc_buffers(run);
		if (err)
			return err;

		cpus_read_lock();
		tb_select_cpus(run);
		if (tb_have_buffers(&run->cpus))
			return 0;
		cpus_read_unlock();
	}
}

/*
 * Wake the thread of each CPU of the run and wait for all of them. The
 * CPUs stay online throughout: cpus_read_lock() is held from before the
 * first wake-up to after the last thread is done. Neither the threads nor
 * the writer take that lock again, so a hotplug writer that queues behind
 * it cannot wedge the run. The sample buffers live only this long.
 */
static int tb_run_cpus(struct tb_run *run)
{
	unsigned int nr, cpu;
	int err;

	err = tb_lock_cpus(run);
	if (err)
		goto free;

	nr = cpumask_weight(&run->cpus);
	atomic_set(&run->unstarted, nr);
	atomic_set(&run->unfinished, nr);
	reinit_completion(&run->start);
	reinit_completion(&run->done);
	run->aborted = false;

	for_each_cpu(cpu, &run->cpus) {
		per_cpu_ptr(&tb_cpu, cpu)->err = 0;
		WRITE_ONCE(per_cpu_ptr(&tb_cpu, cpu)->pending, true);
		wake_up_process(per_cpu(tb_task, cpu));
	}

	/* killable rather than uninterruptible: a long run is no hung task */
	if (wait_for_completion_killable(&run->done)) {
		WRITE_ONCE(run->aborted, true);
		wait_for_completion(&run->done);
	}
	cpus_read_unlock();

	for_each_cpu(cpu, &run->cpus) {
		err = per_cpu_ptr(&tb_cpu, cpu)->err;
		if (err)
			break;
	}
free:
	tb_free_buffers();
	return err;
}

static int tb_alloc_heaps(struct tb_run *run)
{
	size_t top = run->cfg.nr_highest;
	size_t nr = size_add(array_size(TB_NR_PRIMS, top), nr_cpu_ids);
	enum tb_prim prim;

	run->storage = kvmalloc_array(nr, sizeof(u64), TB_GFP);
	if (!run->storage)
		return -ENOMEM;
	for (prim = 0; prim < TB_NR_PRIMS; prim++)
		tb_heap_init(&run->heaps[prim], run->storage + prim * top, top);
	return 0;
}

/* Combine the per-CPU summaries and publish them. */
static void tb_publish_benchmark(struct tb_run *run)
{
	u64 *per_cpu_values = run->storage + TB_NR_PRIMS * run->cfg.nr_highest;
	struct tb_result res[TB_NR_PRIMS] = {};
	enum tb_prim prim;
	unsigned int cpu;
	size_t nr;

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		const struct tb_heap *heap = &run->heaps[prim];

		nr = 0;
		for_each_cpu(cpu, &run->cpus) {
			const struct tb_summary *s;

			s = &per_cpu_ptr(&tb_cpu, cpu)->summary[prim];
			per_cpu_values[nr++] = s->mean;
			res[prim].max = max(res[prim].max, s->max);
		}
		res[prim].average = tb_mean(per_cpu_values, nr);

		nr = 0;
		for_each_cpu(cpu, &run->cpus)
			per_cpu_values[nr++] =
				per_cpu_ptr(&tb_cpu, cpu)->summary[prim].median;
		res[prim].median = tb_median(per_cpu_values, nr);
		res[prim].max_avg = tb_mean(heap->data, heap->nr);
	}

	spin_lock(&tb_results_lock);
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		res[prim].percentile = tb_results[prim].percentile;
		tb_results[prim] = res[prim];
	}
	spin_unlock(&tb_results_lock);
}

static int tb_benchmark(void)
{
	struct tb_run *run = &tb_run;
	int err;

	if (mutex_lock_interruptible(&tb_run_lock))
		return -EINTR;

	tb_snapshot_config(&run->cfg);
	run->percentile = 0;
	err = tb_alloc_heaps(run);
	if (!err)
		err = tb_run_cpus(run);
	if (!err)
		tb_publish_benchmark(run);
	kvfree(run->storage);
	run->storage = NULL;
	mutex_unlock(&tb_run_lock);
	return err;
}

/* Sample afresh on the writer's CPU and publish the @pct percentile. */
static int tb_percentile_run(unsigned int pct)
{
	struct tb_run *run = &tb_run;
	enum tb_prim prim;
	struct tb_cpu *tc;
	int err;

	if (mutex_lock_interruptible(&tb_run_lock))
		return -EINTR;

	tb_snapshot_config(&run->cfg);
	run->percentile = pct;
	err = tb_run_cpus(run);
	if (!err) {
		tc = per_cpu_ptr(&tb_cpu, cpumask_first(&run->cpus));
		spin_lock(&tb_results_lock);
		for (prim = 0; prim < TB_NR_PRIMS; prim++)
			tb_results[prim].percentile = tc->percentile[prim];
		spin_unlock(&tb_results_lock);
	}
	mutex_unlock(&tb_run_lock);
	return err;
}

/* debugfs: configuration */

static int tb_param_get(void *data, u64 *val)
{
	struct tb_param *param = data;

	mutex_lock(&tb_params_lock);
	*val = param->value;
	mutex_unlock(&tb_params_lock);
	return 0;
}

static int tb_param_set(void *data, u64 val)
{
	struct tb_param *param = data;

	if (val < param->min || val > param->max)
		return -EINVAL;
	mutex_lock(&tb_params_lock);
	param->value = val;
	mutex_unlock(&tb_params_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(tb_param_fops, tb_param_get, tb_param_set, "%llu\n");

/* debugfs: triggers */

static ssize_t tb_benchmark_write(struct file *file, const char __user *buf,
				  size_t len, loff_t *ppos)
{
	int err;

	if (!len)
		return 0;
	err = tb_benchmark();
	return err ? err : len;
}

/* -EACCES, as a read of the percentile trigger gets from simple_attr */
static ssize_t tb_benchmark_read(struct file *file, char __user *buf,
				 size_t len, loff_t *ppos)
{
	return -EACCES;
}

static const struct file_operations tb_benchmark_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tb_benchmark_read,
	.write	= tb_benchmark_write,
	.llseek	= noop_llseek,
};

static int tb_percentile_set(void *data, u64 val)
{
	if (val < 1 || val > 100)
		return -EINVAL;
	return tb_percentile_run(val);
}
DEFINE_DEBUGFS_ATTRIBUTE(tb_percentile_fops, NULL, tb_percentile_set, "%llu\n");

/* debugfs: results */

static int tb_result_get(void *data, u64 *val)
{
	spin_lock(&tb_results_lock);
	*val = *(u64 *)data;
	spin_unlock(&tb_results_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(tb_result_fops, tb_result_get, NULL, "%llu\n");

static const struct {
	const char *name;
	size_t offset;
} tb_result_files[] = {
	{ "median",	offsetof(struct tb_result, median) },
	{ "average",	offsetof(struct tb_result, average) },
	{ "max",	offsetof(struct tb_result, max) },
	{ "max_avg",	offsetof(struct tb_result, max_avg) },
	{ "percentile",	offsetof(struct tb_result, percentile) },
};

/* The whole tree or nothing: it is the module's only interface. */
static int tb_create_files(void)
{
	struct dentry *dir, *file;
	enum tb_prim prim;
	unsigned int i;

	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	tb_root = dir;

	for (i = 0; i < TB_NR_PARAMS; i++) {
		file = debugfs_create_file_unsafe(tb_params[i].name, 0644,
						  tb_root, &tb_params[i],
						  &tb_param_fops);
		if (IS_ERR(file))
			return PTR_ERR(file);
	}

	file = debugfs_create_file("benchmark", 0200, tb_root, NULL,
				   &tb_benchmark_fops);
	if (IS_ERR(file))
		return PTR_ERR(file);
	file = debugfs_create_file_unsafe("percentile", 0200, tb_root, NULL,
					  &tb_percentile_fops);
	if (IS_ERR(file))
		return PTR_ERR(file);

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		dir = debugfs_create_dir(tb_prim_names[prim], tb_root);
		if (IS_ERR(dir))
			return PTR_ERR(dir);
		for (i = 0; i < ARRAY_SIZE(tb_result_files); i++) {
			void *data = (char *)&tb_results[prim] +
				     tb_result_files[i].offset;

			file = debugfs_create_file_unsafe(tb_result_files[i].name,
							  0444, dir, data,
							  &tb_result_fops);
			if (IS_ERR(file))
				return PTR_ERR(file);
		}
	}
	return 0;
}

/* Undo whatever init got to; safe to call at any point, and again. */
static void tb_cleanup(void)
{
	debugfs_remove_recursive(tb_root);
	tb_root = NULL;
	if (tb_threads_registered) {
		smpboot_unregister_percpu_thread(&tb_threads);
		tb_threads_registered = false;
	}
}

static int __init tracerbench_init(void)
{
	int err;

	mutex_init(&tb_run.heap_lock);
	init_completion(&tb_run.start);
	init_completion(&tb_run.done);

	err = smpboot_register_percpu_thread(&tb_threads);
	if (err)
		goto fail;
	tb_threads_registered = true;

	err = tb_create_files();
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
