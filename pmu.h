/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PMU clocks, clock=instructions and clock=core_cycles: a pinned,
 * kernel-mode hardware counter on each CPU of a run, which perf creates
 * and programs, and which the windows read inline with the architecture's
 * own instruction. The one place that knows each architecture's counters
 * and each kernel's numbering of them; measure.c includes it.
 *
 * A window reads only the low TB_PMC_BITS (32) bits and takes their
 * difference modulo 2^32 (ticks.h): right for counters of any width
 * (arm64's are 32 bits without FEAT_PMUv3p5), and no window comes near
 * 2^31 events. perf gives a counting event a period of 2^31 - 1 on arm64
 * (2^47 - 1 on x86): as the counter overflows, its interrupt sets it back
 * by that much, and a window that spans this reads at least 2^31, and is
 * timed again.
 */
#include <linux/cpufeature.h>
#include <linux/perf_event.h>

#define TB_PMC_BITS		32

/*
 * What a window's read selects: the counter perf gave the event. Not
 * static: x86's reads load it by name, which tools/disasm.sh looks for.
 */
DECLARE_PER_CPU(u32, tb_pmc_sel);

#if defined(CONFIG_PERF_EVENTS) && (defined(CONFIG_X86) || defined(CONFIG_ARM64))

#if defined(CONFIG_X86)
/*
 * rdpmc takes perf's own selector for the counter, which marks the fixed
 * counters; at CPL 0 it needs no CR4.PCE. Ordered as rdtsc_ordered() and
 * Intel's guidance for timing code order a read: an lfence before, so
 * that it waits for the instructions before it, and where it opens a
 * window (@open), one after, so that those after wait for it; each the
 * kernel's barrier_nospec(), lfence where lfence orders.
 *
 * The selector is loaded from tb_pmc_sel in the read's own asm, not kept
 * in a register across the window: where the primitive calls its hooks
 * (a kernel without PARAVIRT), the compiler would have to save it, and
 * under register pressure (tinyconfig's -Os) it did so on the stack,
 * inside the window. The empty window loads it alike; @sel goes unused.
 */
static __always_inline u32 tb_pmc_read(bool cycles, u32 sel, bool open)
{
	u32 lo, hi;

	barrier_nospec();
	asm volatile("movl %%" __stringify(__percpu_seg) ":%[sel], %%ecx\n\t"
		     "rdpmc"
		     : "=a" (lo), "=d" (hi)
		     : [sel] "m" (*(u32 __force *)&tb_pmc_sel)
		     : "ecx");
	if (open)
		barrier_nospec();
	return lo;
}

/* where lfence does not order (see above), the reads would not be */
static inline bool tb_pmc_usable(void)
{
	return boot_cpu_has(X86_FEATURE_LFENCE_RDTSC);
}

static inline int tb_pmc_sel_of(const struct perf_event *event, bool cycles,
				u32 *sel)
{
	if (READ_ONCE(event->hw.idx) < 0)
		return -EBUSY;
	*sel = READ_ONCE(event->hw.event_base_rdpmc);
	return 0;
}
#else
/*
 * arm64: core cycles from the cycle counter, PMCCNTR_EL0; instructions
 * from a general counter, selected in PMSELR_EL0 and read through
 * PMXEVCNTR_EL0. Each read selects afresh, as an interrupt may have
 * selected another. The isb makes the read wait for what comes before,
 * and where it opens a window (@open), a second one makes what follows
 * wait for it. One instruction sequence per clock, with no branch on the
 * counter: a window runs the same instructions whichever counter it reads.
 */
static __always_inline u32 tb_pmc_read(bool cycles, u32 sel, bool open)
{
	u32 v;

	if (cycles) {
		isb();
		v = read_sysreg(pmccntr_el0);
	} else {
		write_sysreg(sel, pmselr_el0);
		isb();
		v = read_sysreg(pmxevcntr_el0);
	}
	if (open)
		isb();
	return v;
}

/*
 * The registers above are PMUv3's: ID_AA64DFR0_EL1.PMUVer (bits 11:8) is
 * 1 to 0xe with it, and 0 or 0xf (IMPLEMENTATION DEFINED, as Apple's)
 * where perf drives another PMU, whose events these reads must not touch.
 * The sanitised value, all CPUs' alike: a CPU that differs makes it 0,
 * where this CPU's own register would answer for itself alone.
 */
static inline bool tb_pmc_usable(void)
{
	u64 dfr0 = read_sanitised_ftr_reg(SYS_ID_AA64DFR0_EL1);
	unsigned int pmuver = cpuid_feature_extract_unsigned_field(dfr0, 8);

	return pmuver >= 1 && pmuver <= 0xe;
}

/*
 * perf's index of the counter. Since 6.12 ("perf: arm_pmu: Remove event
 * index to counter remapping"; Kbuild tells), the index is the counter's
 * number, and the cycle counter's is 31, its bit in the PMU's registers;
 * before, the cycle counter was 0, and index n the counter n - 1.
 */
#ifdef TB_PMC_HW_NUMBERING
#define TB_PMC_CYCLE_IDX	31
#define TB_PMC_FIRST_IDX	0
#else
#define TB_PMC_CYCLE_IDX	0
#define TB_PMC_FIRST_IDX	1
#endif
/* PMSELR_EL0 selects general counters 0 to 30 */
#define TB_PMC_GENERAL		31

/*
 * core_cycles needs the cycle counter, and instructions a general one:
 * an event that perf placed elsewhere (another user holds the cycle
 * counter, or the CPU counts instructions in a fixed counter of its own,
 * FEAT_PMUv3_ICNTR) is refused.
 */
static inline int tb_pmc_sel_of(const struct perf_event *event, bool cycles,
				u32 *sel)
{
	int idx = READ_ONCE(event->hw.idx);

	if (cycles) {
		*sel = 0;
		return idx == TB_PMC_CYCLE_IDX ? 0 : -EBUSY;
	}
	if (idx == TB_PMC_CYCLE_IDX || idx < TB_PMC_FIRST_IDX ||
	    idx - TB_PMC_FIRST_IDX >= TB_PMC_GENERAL)
		return -EBUSY;
	*sel = idx - TB_PMC_FIRST_IDX;
	return 0;
}
#endif

/*
 * A counter of @cycles or of instructions on @cpu, counting in the
 * kernel only, pinned: it is never multiplexed, and is either running
 * or in error. -ENODEV where no PMU counts the event on @cpu: none at
 * all, a guest without a virtual PMU, or one that does not count that
 * event (QEMU's arm64 PMU counts instructions only under -icount).
 * -EBUSY where it cannot be had: the counters are taken (the NMI
 * watchdog holds one on x86), or perf placed it where the windows do not
 * read (above).
 */
static inline int tb_pmc_create(unsigned int cpu, bool cycles,
				struct perf_event **out)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_HARDWARE,
		.size		= sizeof(attr),
		.config		= cycles ? PERF_COUNT_HW_CPU_CYCLES :
					   PERF_COUNT_HW_INSTRUCTIONS,
		.pinned		= 1,
		.exclude_user	= 1,
	};
	struct perf_event *event;
	u32 sel;
	int err;

	if (!tb_pmc_usable())
		return -ENODEV;
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		return err == -ENOENT || err == -EOPNOTSUPP ? -ENODEV : err;
	}
	/* installed on @cpu by now: scheduled in, or failed to be */
	err = READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE ?
	      tb_pmc_sel_of(event, cycles, &sel) : -EBUSY;
	if (err) {
		perf_event_release_kernel(event);
		return err;
	}
	*out = event;
	return 0;
}

/*
 * On the event's CPU: where its counter is now, into tb_pmc_sel for the
 * windows, and a stamp of its count. perf moves an event only from an
 * interrupt on its CPU, so with them off the state, the counter and the
 * count are read as one. Whenever perf stops the event, to move it, to
 * take it off or to read it, it adds what the counter counted to
 * event->count: a stamp that differs at a block's end says the event
 * was stopped during the block, even if it came back to the same counter.
 */
static inline int tb_pmc_select(const struct perf_event *event, bool cycles,
				u32 *sel, u64 *stamp)
{
	unsigned long flags;
	int err = -EBUSY;

	local_irq_save(flags);
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE)
		err = tb_pmc_sel_of(event, cycles, sel);
	*stamp = local64_read(&event->count);
	local_irq_restore(flags);
	return err;
}

/*
 * Test-only: stop and restart @event, as perf does to move it: what a
 * mid-run `perf stat -a` may do, forced (tb_force_counter_move). It may
 * sleep.
 */
static inline void tb_pmc_bump(struct perf_event *event)
{
	perf_event_disable(event);
	perf_event_enable(event);
}

/* The whole 64-bit count, for counter_hz; it may sleep. */
static inline u64 tb_pmc_count(struct perf_event *event)
{
	u64 enabled, running;

	return perf_event_read_value(event, &enabled, &running);
}

static inline const char *tb_pmc_name(const struct perf_event *event)
{
	return event->pmu->name;
}
#else
/* Nothing to read: tb_pmc_create() refuses every PMU clock. */
static __always_inline u32 tb_pmc_read(bool cycles, u32 sel, bool open)
{
	return 0;
}

static inline int tb_pmc_create(unsigned int cpu, bool cycles,
				struct perf_event **out)
{
	return -ENODEV;
}

static inline int tb_pmc_select(const struct perf_event *event, bool cycles,
				u32 *sel, u64 *stamp)
{
	return -ENODEV;
}

static inline void tb_pmc_bump(struct perf_event *event)
{
}

static inline u64 tb_pmc_count(struct perf_event *event)
{
	return 0;
}

static inline const char *tb_pmc_name(const struct perf_event *event)
{
	return "-";
}
#endif
