// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracerbench's interface: the debugfs files and module parameters that
 * configure a benchmark and share its checks, the files that start one,
 * and those that show its results, the summary first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "tracerbench.h"

struct tb_param tb_params[TB_NR_PARAMS] = {
	[TB_NR_SAMPLES]	= { "nr_samples", TB_DEFAULT_SAMPLES, 1, TB_MAX_SAMPLES },
	[TB_NR_HIGHEST]	= { "nr_highest", TB_DEFAULT_HIGHEST, 1, TB_MAX_HIGHEST },
	[TB_DO_WORK]	= { "do_work", 0, 0, 1 },
	[TB_BATCH]	= { "batch", 1, 1, TB_MAX_BATCH },
};

#define TB_CLOCK(id, name)						\
	[TB_CLOCK_##id] = #name,
#define TB_PMU_CLOCK		TB_CLOCK
const char * const tb_clock_names[TB_NR_CLOCKS] = {
#include "clocks.h"
};

#undef TB_PMU_CLOCK
#undef TB_CLOCK

/*
 * The summary's unit: ordered reads the counter cycles reads, and a PMU
 * clock's unit is its name, the events it counts (tools/report.py counts
 * on it).
 */
#define TB_CLOCK(...)
#define TB_PMU_CLOCK(id, name)						\
	[TB_CLOCK_##id] = #name,
const char * const tb_clock_units[TB_NR_CLOCKS] = {
	[TB_CLOCK_CYCLES]	= "cycles",
	[TB_CLOCK_ORDERED]	= "cycles",
	[TB_CLOCK_NS]		= "ns",
#include "clocks.h"
};

#undef TB_PMU_CLOCK
#undef TB_CLOCK

enum tb_clock tb_clock_sel = TB_CLOCK_CYCLES;
struct cpumask tb_cpus_wanted;
bool tb_cpus_all = true;
/* Serialises the configuration: tb_params, the clock and the CPUs. */
DEFINE_MUTEX(tb_params_lock);

#define TB_PRIM(id, name, ...)						\
	[TB_##id] = #name,
const char * const tb_prim_names[TB_NR_PRIMS] = {
#include "prims.h"
};

#undef TB_PRIM

static struct dentry *tb_root;

/* Configuration: debugfs files and module parameters share the checks. */

static int tb_param_store(struct tb_param *param, u64 val)
{
	if (val < param->min || val > param->max)
		return -EINVAL;
	mutex_lock(&tb_params_lock);
	param->value = val;
	mutex_unlock(&tb_params_lock);
	return 0;
}

static u64 tb_param_load(const struct tb_param *param)
{
	u64 val;

	mutex_lock(&tb_params_lock);
	val = param->value;
	mutex_unlock(&tb_params_lock);
	return val;
}

/*
 * Parse a cpulist ("0-3,8", or "all" for every CPU that is up when a run
 * starts) and store it. Garbage, an empty list or a CPU that cannot exist
 * is -EINVAL, and nothing changes.
 */
static int tb_cpus_store(const char *str)
{
	cpumask_var_t mask;
	bool all;
	int err;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	all = sysfs_streq(str, "all");
	err = all ? 0 : cpulist_parse(str, mask);
	if (err || (!all && (cpumask_empty(mask) ||
			     !cpumask_subset(mask, cpu_possible_mask)))) {
		err = -EINVAL;
		goto out;
	}
	mutex_lock(&tb_params_lock);
	tb_cpus_all = all;
	cpumask_copy(&tb_cpus_wanted, all ? cpu_possible_mask : mask);
	mutex_unlock(&tb_params_lock);
out:
	free_cpumask_var(mask);
	return err;
}

/*
 * The cpulist as it reads back: "all" shows the CPUs a run would measure
 * now, the active ones (tb_select_cpus()).
 */
static int tb_cpus_print(char *buf, size_t size)
{
	int len;

	mutex_lock(&tb_params_lock);
	len = scnprintf(buf, size, "%*pbl\n",
			cpumask_pr_args(tb_cpus_all ? cpu_active_mask :
					&tb_cpus_wanted));
	mutex_unlock(&tb_params_lock);
	return len;
}

/*
 * One of tb_clock_names, with or without a newline, else -EINVAL; a PMU
 * clock whose counter cannot be had is refused with tb_clock_check()'s
 * errno.
 */
static int tb_clock_store(const char *str)
{
	int clock = sysfs_match_string(tb_clock_names, str);
	int err;

	if (clock < 0)
		return -EINVAL;
	err = tb_clock_check(clock);
	if (err)
		return err;
	mutex_lock(&tb_params_lock);
	tb_clock_sel = clock;
	mutex_unlock(&tb_params_lock);
	return 0;
}

static int tb_clock_print(char *buf, size_t size)
{
	int len;

	mutex_lock(&tb_params_lock);
	len = scnprintf(buf, size, "%s\n", tb_clock_names[tb_clock_sel]);
	mutex_unlock(&tb_params_lock);
	return len;
}

static int tb_param_get(void *data, u64 *val)
{
	*val = tb_param_load(data);
	return 0;
}

static int tb_param_set(void *data, u64 val)
{
	return tb_param_store(data, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(tb_param_fops, tb_param_get, tb_param_set, "%llu\n");

static ssize_t tb_cpus_read(struct file *file, char __user *buf, size_t len,
			    loff_t *ppos)
{
	char *text;
	ssize_t ret;

	text = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	ret = simple_read_from_buffer(buf, len, ppos, text,
				      tb_cpus_print(text, PAGE_SIZE));
	kfree(text);
	return ret;
}

/* One write is one list; a list longer than a page is refused. */
static ssize_t tb_cpus_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	char *text;
	int err;

	if (*ppos || len >= PAGE_SIZE)
		return -EINVAL;
	text = memdup_user_nul(buf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	err = tb_cpus_store(text);
	kfree(text);
	return err ? err : len;
}

static ssize_t tb_clock_read_file(struct file *file, char __user *buf,
				  size_t len, loff_t *ppos)
{
	char text[16];

	return simple_read_from_buffer(buf, len, ppos, text,
				       tb_clock_print(text, sizeof(text)));
}

static ssize_t tb_clock_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	char text[16];
	int err;

	if (*ppos || !len || len >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, len))
		return -EFAULT;
	text[len] = '\0';
	err = tb_clock_store(text);
	return err ? err : len;
}

static const struct file_operations tb_clock_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tb_clock_read_file,
	.write	= tb_clock_write,
	.llseek	= default_llseek,
};

static const struct file_operations tb_cpus_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tb_cpus_read,
	.write	= tb_cpus_write,
	.llseek	= default_llseek,
};

/* Module parameters: the same settings, given at load time (headless). */

static int tb_modparam_set(const char *val, const struct kernel_param *kp)
{
	u64 v;
	int err;

	err = kstrtoull(val, 0, &v);
	return err ? err : tb_param_store(kp->arg, v);
}

static int tb_modparam_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", tb_param_load(kp->arg));
}

static const struct kernel_param_ops tb_modparam_ops = {
	.set	= tb_modparam_set,
	.get	= tb_modparam_get,
};

module_param_cb(nr_samples, &tb_modparam_ops, &tb_params[TB_NR_SAMPLES], 0444);
MODULE_PARM_DESC(nr_samples, "samples per primitive per CPU");
module_param_cb(nr_highest, &tb_modparam_ops, &tb_params[TB_NR_HIGHEST], 0444);
MODULE_PARM_DESC(nr_highest, "largest samples that max_avg averages");
module_param_cb(do_work, &tb_modparam_ops, &tb_params[TB_DO_WORK], 0444);
MODULE_PARM_DESC(do_work, "1: simulated critical section in every window");
module_param_cb(batch, &tb_modparam_ops, &tb_params[TB_BATCH], 0444);
MODULE_PARM_DESC(batch, "pairs timed back to back in one window (1..10000)");

static int tb_cpus_param_set(const char *val, const struct kernel_param *kp)
{
	return tb_cpus_store(val);
}

static int tb_cpus_param_get(char *buf, const struct kernel_param *kp)
{
	return tb_cpus_print(buf, PAGE_SIZE);
}

static const struct kernel_param_ops tb_cpus_param_ops = {
	.set	= tb_cpus_param_set,
	.get	= tb_cpus_param_get,
};

module_param_cb(cpus, &tb_cpus_param_ops, NULL, 0444);
MODULE_PARM_DESC(cpus, "cpulist a benchmark runs on (default: all)");

static int tb_clock_param_set(const char *val, const struct kernel_param *kp)
{
	return tb_clock_store(val);
}

static int tb_clock_param_get(char *buf, const struct kernel_param *kp)
{
	return tb_clock_print(buf, PAGE_SIZE);
}

static const struct kernel_param_ops tb_clock_param_ops = {
	.set	= tb_clock_param_set,
	.get	= tb_clock_param_get,
};

module_param_cb(clock, &tb_clock_param_ops, NULL, 0444);
MODULE_PARM_DESC(clock, "what windows are timed with: cycles, ordered, ns, instructions or core_cycles");

bool tb_run_at_load;
module_param_named(run, tb_run_at_load, bool, 0444);
MODULE_PARM_DESC(run, "run one benchmark at load and log its summary");

/* clock.h: the refusal of a counter with an erratum, where none has one */
module_param_named(force_counter_erratum, tb_force_counter_erratum, bool, 0444);
MODULE_PARM_DESC(force_counter_erratum,
		 "for tests: refuse cycles and ordered, as on a CPU whose counter has an erratum");

/* measure.c: a PMU counter that perf moves in the middle of a block */
module_param_named(force_counter_move, tb_force_counter_move, int, 0444);
MODULE_PARM_DESC(force_counter_move,
		 "for tests: stop and restart a PMU clock's event in the middle of this many blocks");

/* Triggers */

static ssize_t tb_benchmark_write(struct file *file, const char __user *buf,
				  size_t len, loff_t *ppos)
{
	int err;

	if (!len)
		return 0;
	err = tb_benchmark();
	return err ? err : len;
}

static const struct file_operations tb_benchmark_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
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

/* Results */

/* The figures of each primitive's directory, from the list in results.h. */
#define TB_STAT(id, ...)	TB_##id,
enum tb_stat {
#include "results.h"
	TB_NR_STATS,
};

#undef TB_STAT

#define TB_STAT(id, name)						\
	[TB_##id] = #name,
static const char * const tb_stat_names[TB_NR_STATS] = {
#include "results.h"
};

#undef TB_STAT

/* A legacy result file's data: its primitive and statistic, as a number. */
static void *tb_result_data(enum tb_prim prim, unsigned int stat)
{
	return (void *)(uintptr_t)(prim * TB_NR_STATS + stat);
}

/*
 * Whole numbers, as the specification's files always printed: per pair,
 * rounded down. An average below 0 rounds down too, away from 0, so that
 * one of -0.407 reads -1 and never passes for 0.
 */
static int tb_result_get(void *data, u64 *val)
{
	unsigned int slot = (uintptr_t)data;
	enum tb_prim prim = slot / TB_NR_STATS;
	const struct tb_figures *fig;

	u64 batch;

	mutex_lock(&tb_results_lock);
	fig = tb_report ? &tb_report->head.fig[prim] : NULL;
	batch = tb_report ? tb_report->head.batch : 1;
	switch (slot % TB_NR_STATS) {
	case TB_MEDIAN:
		*val = fig ? div64_u64(fig->median, batch) : 0;
		break;
	case TB_AVERAGE:
		/* signed: tb_result_signed_fops prints it */
		*val = fig ? fig->average.mag.whole : 0;
		if (fig && fig->average.neg)
			*val = -(*val + !!fig->average.mag.milli);
		break;
	case TB_MAX:
		*val = fig ? div64_u64(fig->max, batch) : 0;
		break;
	case TB_MAX_AVG:
		*val = fig ? fig->max_avg.whole : 0;
		break;
	default:
		*val = tb_percentiles[prim];
		break;
	}
	mutex_unlock(&tb_results_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(tb_result_fops, tb_result_get, NULL, "%llu\n");
/* The mean can be below 0: see "Reading the statistics" in doc/statistics.md. */
DEFINE_DEBUGFS_ATTRIBUTE(tb_result_signed_fops, tb_result_get, NULL,
			 "%lld\n");

/* Where a summary goes: a debugfs read, or the kernel log when headless. */
static __printf(2, 3) void tb_emit(struct seq_file *m, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	if (m) {
		seq_vprintf(m, fmt, args);
	} else {
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_info("%pV", &vaf);
	}
	va_end(args);
}

/*
 * The preemption model in force; with PREEMPT_DYNAMIC, as chosen at boot
 * or since. PREEMPT_LAZY (mainline from 6.13, backported to Debian's 6.12
 * RT kernel) has its accessor only where it exists. An RT kernel says "rt",
 * and "rt+MODE" where it has a dynamic mode as well.
 */
static const char *tb_preemption(void)
{
	bool rt = preempt_model_rt();

#ifdef CONFIG_PREEMPT_LAZY
	if (preempt_model_lazy())
		return rt ? "rt+lazy" : "lazy";
#endif
	if (IS_ENABLED(CONFIG_PREEMPT_DYNAMIC) && preempt_model_full())
		return rt ? "rt+full" : "full";
	if (rt)
		return "rt";
	if (preempt_model_full())
		return "full";
	if (preempt_model_voluntary())
		return "voluntary";
	return "none";
}

/* A struct tb_fixed prints as its whole part and three decimals. */
#define TB_FIXED_FMT		"%llu.%03u"
/* A struct tb_sfixed as well, after its sign, tb_sign(). */
#define TB_SFIXED_FMT		"%s" TB_FIXED_FMT

static const char *tb_sign(const struct tb_sfixed *f)
{
	return f->neg ? "-" : "";
}

/* Room for U64_MAX and three decimals. */
#define TB_PAIR_LEN		32

/*
 * @v whole windows per pair, in @buf: an integer where the quotient is
 * whole (always with batch 1), else with three decimals rounded down.
 */
static const char *tb_per_pair(char *buf, u64 v, u64 batch)
{
	struct tb_fixed f;

	f = tb_fixed_ratio((struct tb_u128){ .lo = v }, batch ? batch : 1);
	if (f.milli)
		scnprintf(buf, TB_PAIR_LEN, TB_FIXED_FMT, f.whole, f.milli);
	else
		scnprintf(buf, TB_PAIR_LEN, "%llu", f.whole);
	return buf;
}

/* One line per key; the caller holds tb_results_lock. */
void tb_emit_summary(struct seq_file *m)
{
	static const struct tb_report_head none;
	const struct tb_report_head *h = tb_report ? &tb_report->head : &none;
	char buf[TB_PAIR_LEN];
	enum tb_prim prim;
	unsigned int l;

	tb_emit(m, "version %s\n", TB_VERSION);
	tb_emit(m, "run %llu\n", h->run);
	tb_emit(m, "kernel %s\n", init_utsname()->release);
	tb_emit(m, "preemption %s\n", tb_preemption());
	tb_emit(m, "preemptirq_tracepoints %s\n",
		IS_ENABLED(CONFIG_PREEMPTIRQ_TRACEPOINTS) ? "yes" : "no");
	tb_emit(m, "cpus %*pbl\n", cpumask_pr_args(&h->cpus));
	tb_emit(m, "nr_samples %llu\n", h->nr_samples);
	tb_emit(m, "nr_highest %llu\n", h->nr_highest);
	tb_emit(m, "do_work %d\n", h->do_work);
	tb_emit(m, "batch %llu\n", h->batch ? h->batch : 1);
	tb_emit(m, "clock %s\n", tb_clock_names[h->clock]);
	tb_emit(m, "unit %s\n", tb_clock_units[h->clock]);
	tb_emit(m, "counter_hz %llu\n", h->counter_hz);
	tb_emit(m, "overhead %llu\n", h->overhead);
	tb_emit(m, "duration_ns %llu\n", h->duration_ns);
	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		const struct tb_figures *f = &h->fig[prim];
		const char *p = tb_prim_names[prim];

		tb_emit(m, "%s.median %s\n", p,
			tb_per_pair(buf, f->median, h->batch));
		tb_emit(m, "%s.average " TB_SFIXED_FMT "\n", p,
			tb_sign(&f->average), f->average.mag.whole,
			f->average.mag.milli);
		tb_emit(m, "%s.max %s\n", p, tb_per_pair(buf, f->max, h->batch));
		tb_emit(m, "%s.max_avg " TB_FIXED_FMT "\n", p,
			f->max_avg.whole, f->max_avg.milli);
		for (l = 0; l < TB_NR_LEVELS; l++)
			tb_emit(m, "%s.%s %s\n", p, tb_levels[l].name,
				tb_per_pair(buf, f->level[l], h->batch));
		tb_emit(m, "%s.samples %llu\n", p, f->samples);
	}
}

static int tb_summary_show(struct seq_file *m, void *v)
{
	mutex_lock(&tb_results_lock);
	tb_emit_summary(m);
	mutex_unlock(&tb_results_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tb_summary);

/* The file's primitive: debugfs data is the index, as a pointer. */
static enum tb_prim tb_file_prim(struct seq_file *m)
{
	return (uintptr_t)m->private;
}

static int tb_per_cpu_show(struct seq_file *m, void *v)
{
	enum tb_prim prim = tb_file_prim(m);
	char med[TB_PAIR_LEN], max[TB_PAIR_LEN], p99[TB_PAIR_LEN];
	unsigned int i;
	u64 batch;

	seq_puts(m, "cpu median average max p99 samples pmu\n");
	mutex_lock(&tb_results_lock);
	batch = tb_report ? tb_report->head.batch : 1;
	for (i = 0; tb_report && i < tb_report->nr_rows; i++) {
		const struct tb_row *row = &tb_report->rows[i];
		const struct tb_cpu_result *r = &row->res[prim];

		seq_printf(m, "%u %s " TB_SFIXED_FMT " %s %s %llu %s\n",
			   row->cpu, tb_per_pair(med, r->median, batch),
			   tb_sign(&r->mean), r->mean.mag.whole, r->mean.mag.milli,
			   tb_per_pair(max, r->max, batch),
			   tb_per_pair(p99, r->p99, batch), r->samples, row->pmu);
	}
	mutex_unlock(&tb_results_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tb_per_cpu);

static int tb_histogram_show(struct seq_file *m, void *v)
{
	enum tb_prim prim = tb_file_prim(m);
	const struct tb_hist *hist;
	char low[TB_PAIR_LEN];
	unsigned int b;
	u64 batch;

	mutex_lock(&tb_results_lock);
	hist = tb_report ? &tb_report->hist[prim] : NULL;
	batch = tb_report ? tb_report->head.batch : 1;
	for (b = 0; hist && b < TB_HIST_BUCKETS; b++)
		if (hist->count[b])
			seq_printf(m, "%s %llu\n",
				   tb_per_pair(low, tb_hist_bucket_low(b), batch),
				   hist->count[b]);
	mutex_unlock(&tb_results_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tb_histogram);

/*
 * The tree under debugfs. Only the directory's creation is checked, as
 * debugfs asks: without it the module has no interface (debugfs=off,
 * lockdown), which a headless load survives and any other refuses; a
 * file that could not be made is one a reader will miss, nothing more.
 */
int tb_create_files(void)
{
	struct dentry *dir;
	enum tb_prim prim;
	unsigned int i;

	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	tb_root = dir;

	for (i = 0; i < TB_NR_PARAMS; i++)
		debugfs_create_file_unsafe(tb_params[i].name, 0644, tb_root,
					   &tb_params[i], &tb_param_fops);
	debugfs_create_file("cpus", 0644, tb_root, NULL, &tb_cpus_fops);
	debugfs_create_file("clock", 0644, tb_root, NULL, &tb_clock_fops);
	debugfs_create_file("benchmark", 0200, tb_root, NULL,
			    &tb_benchmark_fops);
	debugfs_create_file_unsafe("percentile", 0200, tb_root, NULL,
				   &tb_percentile_fops);
	debugfs_create_file("summary", 0444, tb_root, NULL, &tb_summary_fops);

	for (prim = 0; prim < TB_NR_PRIMS; prim++) {
		void *data = (void *)(uintptr_t)prim;

		dir = debugfs_create_dir(tb_prim_names[prim], tb_root);
		for (i = 0; i < TB_NR_STATS; i++)
			debugfs_create_file_unsafe(tb_stat_names[i], 0444, dir,
						   tb_result_data(prim, i),
						   i == TB_AVERAGE ?
						   &tb_result_signed_fops :
						   &tb_result_fops);
		debugfs_create_file("histogram", 0444, dir, data,
				    &tb_histogram_fops);
		debugfs_create_file("per_cpu", 0444, dir, data,
				    &tb_per_cpu_fops);
	}
	return 0;
}

/* The tree, gone; safe whether or not it was made, and again. */
void tb_remove_files(void)
{
	debugfs_remove_recursive(tb_root);
	tb_root = NULL;
}
