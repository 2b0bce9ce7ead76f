/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixed-rate counter that clock=cycles and clock=ordered read: the one
 * place that knows each architecture's, how to read it inline, how wide it
 * is, and whether a CPU's can be trusted. pmu.h is the PMU clocks' such
 * place; measure.c includes both.
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/timex.h>

/* The counter's width, for tb_window_ticks() (ticks.h). */
#if defined(CONFIG_X86) || defined(CONFIG_ARM64)
#define TB_COUNTER_BITS		64
#else
#define TB_COUNTER_BITS		(8 * sizeof(cycles_t))
#endif

/*
 * The counter that get_cycles() reads, read as get_cycles() reads it but
 * always inline, so that a window holds no call. x86: get_cycles() is only
 * inline, and a kernel built for size (-Os) calls an out-of-line copy;
 * take rdtsc(), which is what it returns. arm64: get_cycles() calls through
 * the arch_timer_read_counter pointer, whose target on parts without a
 * counter erratum (QEMU's virt board among them) is
 * __arch_counter_get_cntvct(), an isb and an mrs of CNTVCT: take that, so
 * on arm64 cycles and ordered read alike. Parts with an erratum are
 * refused (tb_counter_usable()).
 */
static __always_inline u64 tb_counter_read(void)
{
#if defined(CONFIG_X86)
	return rdtsc();
#elif defined(CONFIG_ARM64)
	return __arch_counter_get_cntvct();
#else
	return get_cycles();
#endif
}

/*
 * The architecture's serialising read of the counter: the instructions
 * before it complete first, and where it opens a window (@open), those
 * after it wait for it, as Intel's guidance for timing code has it.
 * x86: rdtsc_ordered() (lfence;rdtsc or rdtscp, by alternatives), then
 * for an opening read barrier_nospec(), the kernel's lfence where lfence
 * orders. arm64: CNTVCT between an isb and the load that makes what
 * follows depend on it, as the vDSO reads it. Others: full barriers around
 * get_cycles(), the nearest thing portable code has.
 */
static __always_inline u64 tb_counter_read_ordered(bool open)
{
	u64 t;

#if defined(CONFIG_X86)
	t = rdtsc_ordered();
	if (open)
		barrier_nospec();
#elif defined(CONFIG_ARM64)
	t = __arch_counter_get_cntvct();
#else
	mb();	/* earlier instructions complete before the read */
	t = get_cycles();
	mb();	/* and later ones wait for it */
#endif
	return t;
}

/*
 * Whether @cpu's counter may be read as above: x86 needs a TSC; arm64
 * refuses a CPU for which the kernel works around a counter erratum
 * (Freescale A-008585, HiSilicon 161010101, Cortex-A73 858921, Allwinner
 * A64), whose raw reads can be off by 32 ticks, by 2^32, or be garbage:
 * clock=ns reads through the kernel's workaround.
 */
static inline bool tb_counter_usable(unsigned int cpu)
{
	/* test-only: module parameter force_counter_erratum */
	if (READ_ONCE(tb_force_counter_erratum))
		return false;
#if defined(CONFIG_X86)
	return boot_cpu_has(X86_FEATURE_TSC);
#elif defined(CONFIG_ARM64) && defined(CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND)
	{
		const struct arch_timer_erratum_workaround *wa =
			per_cpu(timer_unstable_counter_workaround, cpu);

		return !(wa && wa->read_cntvct_el0);
	}
#else
	return true;
#endif
}

/* How long a counter may stand still before it counts as stuck. */
#define TB_COUNTER_STILL_NS	(NSEC_PER_MSEC)

/*
 * Whether this CPU's counter is usable and advances, for a run with
 * clock=cycles or ordered on it: -ENODEV if not. A counter that stands
 * still (get_cycles() is 0 on architectures without one) would give a
 * table of zeros. The wait is on ktime, which rests on another counter
 * where this one is no clocksource, and ends as soon as it ticks.
 */
static inline int tb_counter_check(void)
{
	u64 start = ktime_get_mono_fast_ns(), first, now;

	if (!tb_counter_usable(raw_smp_processor_id()))
		return -ENODEV;
	first = tb_counter_read();
	do {
		cpu_relax();
		now = tb_counter_read();
		if (tb_counter_advanced(first, now, TB_COUNTER_BITS))
			return 0;
	} while (ktime_get_mono_fast_ns() - start < TB_COUNTER_STILL_NS);
	return -ENODEV;
}
