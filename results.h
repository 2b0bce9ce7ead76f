/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The result files of each primitive's directory, one figure of the last
 * run each: TB_STAT(ID, name), for the includer to define (interface.c);
 * the tools read this list with tools/cfacts.py.
 */
TB_STAT(MEDIAN, median)
TB_STAT(AVERAGE, average)
TB_STAT(MAX, max)
TB_STAT(MAX_AVG, max_avg)
TB_STAT(PERCENTILE, percentile)
