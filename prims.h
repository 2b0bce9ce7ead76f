/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The primitives, in the order of enum tb_prim and of every table and
 * output: TB_PRIM(ID, name) each, for the includer to define. The module
 * makes the enum (tracerbench.h), the names (interface.c) and the windows
 * (measure.c) from this list; the tools read the names from it.
 *
 * The three specified primitives, then their untraced forms: with these
 * measured in the same run, traced - raw is what the preemptirq hooks cost
 * in the running kernel, with the events off or on. Last, none: the empty
 * window, which each round calibrates with, then measures like the others,
 * so that its figures show what the calibration leaves over.
 */
TB_PRIM(IRQ, irq)
TB_PRIM(PREEMPT, preempt)
TB_PRIM(IRQ_SAVE, irq_save)
TB_PRIM(RAW_IRQ, raw_irq)
TB_PRIM(RAW_IRQ_SAVE, raw_irq_save)
TB_PRIM(PREEMPT_NOTRACE, preempt_notrace)
TB_PRIM(NONE, none)
