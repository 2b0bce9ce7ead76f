/* SPDX-License-Identifier: GPL-2.0-only */
/* The system's <linux/limits.h> (glibc's <limits.h> needs it), and U64_MAX. */
#include_next <linux/limits.h>
#include "../../shim.h"
