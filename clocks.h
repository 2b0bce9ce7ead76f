/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clocks a window is timed with, in the order of enum tb_clock, each
 * as TB_CLOCK(ID, name), or TB_PMU_CLOCK(ID, name) for a counter of the
 * PMU, which a run must open and which counts the core's events, not
 * time: both for the includer to define. name is what the clock file
 * takes. See tb_clock_read() for how each reads; the tools read this list
 * with tools/cfacts.py.
 */
TB_CLOCK(CYCLES, cycles)
TB_CLOCK(ORDERED, ordered)
TB_CLOCK(NS, ns)
TB_PMU_CLOCK(INSTRUCTIONS, instructions)
TB_PMU_CLOCK(CORE_CYCLES, core_cycles)
