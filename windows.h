/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every timed window: each primitive of prims.h by each clock, without and
 * with tb_work() in its pairs, as TB_WINDOW(name, ID, CLOCK, work) for the
 * includer to define. The name is the primitive's, then _ordered, _ns,
 * _instructions or _core_cycles for those clocks, then _work:
 * tools/disasm.sh looks for tb_win_NAME, as tools/cfacts.py lists them.
 */
#define TB_PRIM(id, name, ...)	TB_WINDOW(name, id, CYCLES, 0)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_work, id, CYCLES, 1)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_ordered, id, ORDERED, 0)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_ordered_work, id, ORDERED, 1)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_ns, id, NS, 0)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_ns_work, id, NS, 1)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_instructions, id, INSTRUCTIONS, 0)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_instructions_work, id, INSTRUCTIONS, 1)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_core_cycles, id, CORE_CYCLES, 0)
#include "prims.h"
#undef TB_PRIM
#define TB_PRIM(id, name, ...)	TB_WINDOW(name##_core_cycles_work, id, CORE_CYCLES, 1)
#include "prims.h"
#undef TB_PRIM
