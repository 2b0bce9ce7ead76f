/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The settings' defaults at load, which the tools read too (with
 * tools/cfacts.py): samples per primitive per CPU, and the largest samples
 * that max_avg averages.
 */
#ifndef TB_DEFAULTS_H
#define TB_DEFAULTS_H

#define TB_DEFAULT_SAMPLES	10000
#define TB_DEFAULT_HIGHEST	100

#endif
