# SPDX-License-Identifier: GPL-2.0-only
# Results: the counting harness of the checks, and the list of primitives. Sourced by tools/lib.sh.

# result STATUS NAME: print one result, "ok - NAME" for a status of 0, and
# count it in the caller's passed and failed.
result()
{
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}

# tb_clocks: the module's clocks, as its clock file takes them
tb_clocks()
{
	sed -n '/tb_clock_names\[/,/^};/s/^\t\[TB_CLOCK_[A-Z_]*\]\t*= "\([a-z_]*\)",$/\1/p' \
		"$TB_TOP/tracerbench.c"
}

# tb_prims: the primitives' names, in the module's order (prims.h)
tb_prims()
{
	sed -n 's/^TB_PRIM([A-Z_]*, \([a-z_]*\))$/\1/p' "$TB_TOP/prims.h"
}
