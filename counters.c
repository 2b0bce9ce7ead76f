// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counters the clocks read: a PMU clock's events, which a run opens
 * on each of its CPUs and each block checks, and the probes a clock write
 * makes of every clock (clock.h, pmu.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "tracerbench.h"
#include "ticks.h"
#include "clock.h"
#include "pmu.h"

/*
 * What a window's read selects: the counter perf gave the event. Not
 * static: x86's reads load it by name, which tools/disasm.sh looks for.
 */
DEFINE_PER_CPU(u32, tb_pmc_sel);

/*
 * A PMU clock's counter for the windows of a block, and whether it stayed
 * there. perf may move the event whenever it reschedules this CPU's
 * counters (another user's event coming or going): to another counter,
 * or off, in error, and back. The windows would then read another
 * counter, or none, for a while. So a PMU clock's block is kept aside
 * until its end shows the event in place and never stopped; if not, it
 * is timed again, on the counter the event has then. An event off its
 * counter is waited for; one that stays off, or keeps moving, ends the
 * run with -EBUSY.
 */
#define TB_PMC_WAIT_TRIES	1000	/* of 1 to 2 ms: a second or two */

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

/* Where the event counts now, waiting a second or two for it. */
int tb_pmc_begin(const struct tb_run *run, u32 *sel, u64 *stamp)
{
	const struct tb_cpu *tc = &run->cpu[raw_smp_processor_id()];
	bool cycles = run->cfg.clock == TB_CLOCK_CORE_CYCLES;
	unsigned int waited;
	int err;

	for (waited = 0; ; waited++) {
		if (!tb_pmc_select(tc->pmc, cycles, sel, stamp))
			break;
		err = tb_pmc_moved(run);
		if (err != -EBUSY || waited == TB_PMC_WAIT_TRIES)
			return err;
		usleep_range(1000, 2000);
	}
	raw_cpu_write(tb_pmc_sel, *sel);
	return 0;
}

/* Whether the event stayed where tb_pmc_begin() found it, unstopped. */
bool tb_pmc_stayed(const struct tb_run *run, u32 sel, u64 stamp)
{
	const struct tb_cpu *tc = &run->cpu[raw_smp_processor_id()];
	bool cycles = run->cfg.clock == TB_CLOCK_CORE_CYCLES;
	u64 stamp_now;
	u32 now;

	return !tb_pmc_select(tc->pmc, cycles, &now, &stamp_now) &&
	       now == sel && stamp_now == stamp;
}

/*
 * A PMU clock's counters, one on each CPU of the run, which the run opens
 * as it starts and releases as it ends, on every path: a counter held
 * between runs would deny it to other users for nothing.
 */
int tb_open_counters(struct tb_run *run)
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
 * Whether clock=cycles or ordered can be read on every online CPU, and
 * advances on this one: each CPU of a run checks its own again as the
 * run starts (tb_counter_check()), a CPU that came up since among them.
 */
static int tb_counter_probe(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (!tb_counter_usable(cpu))
			return -ENODEV;
	return tb_counter_check();
}

/*
 * Whether a clock can be used, so that one no run could use is refused
 * when it is written. A PMU clock's counter must be had on every online
 * CPU: one is opened and released on each (pmu.h says with what errno).
 * A run opens its own. Not during a run: its counters would make the
 * probe fail, and the probe's would make perf move them; the next run
 * opens them anyway.
 */
int tb_clock_check(enum tb_clock clock)
{
	struct perf_event *event;
	unsigned int cpu;
	int err = 0;

	if (clock == TB_CLOCK_CYCLES || clock == TB_CLOCK_ORDERED)
		return tb_counter_probe();
	if (!tb_clock_pmu(clock))
		return 0;
	if (!mutex_trylock(&tb_run_lock)) {
		pr_notice("clock %s not checked: a run is under way, the next run checks it\n",
			  tb_clock_names[clock]);
		return 0;
	}
	for_each_online_cpu(cpu) {
		err = tb_pmc_create(cpu, clock == TB_CLOCK_CORE_CYCLES, &event);
		/* perf's refusal of a CPU going down is no missing PMU */
		if (err && !cpu_online(cpu))
			err = -EAGAIN;
		if (err)
			break;
		perf_event_release_kernel(event);
	}
	mutex_unlock(&tb_run_lock);
	return err;
}
