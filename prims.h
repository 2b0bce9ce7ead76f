/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The primitives, in the order of enum tb_prim and of every table and
 * output: TB_PRIM(ID, name, UNTRACED) each, for the includer to define.
 * The module makes the enum (tracerbench.h), the names (interface.c) and
 * the windows (measure.c) from this list; the tools read it with
 * tools/cfacts.py.
 *
 * The three specified primitives, then their untraced forms: with these
 * measured in the same run, traced - raw is what the preemptirq hooks cost
 * in the running kernel, with the events off or on. UNTRACED is the ID of
 * a primitive's untraced form, its own ID for one without hooks. Last,
 * none: the empty window, which each round calibrates with, then measures
 * like the others, so that its figures show what the calibration leaves
 * over.
 */
TB_PRIM(IRQ, irq, RAW_IRQ)
TB_PRIM(PREEMPT, preempt, PREEMPT_NOTRACE)
TB_PRIM(IRQ_SAVE, irq_save, RAW_IRQ_SAVE)
TB_PRIM(RAW_IRQ, raw_irq, RAW_IRQ)
TB_PRIM(RAW_IRQ_SAVE, raw_irq_save, RAW_IRQ_SAVE)
TB_PRIM(PREEMPT_NOTRACE, preempt_notrace, PREEMPT_NOTRACE)
TB_PRIM(NONE, none, NONE)
