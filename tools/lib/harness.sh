# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
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
		"$TB_TOP/interface.c"
}

# tb_prims: the primitives' names, in the module's order (prims.h)
tb_prims()
{
	sed -n 's/^TB_PRIM([A-Z_]*, \([a-z_]*\))$/\1/p' "$TB_TOP/prims.h"
}

# tb_elf_tools FILE: the architecture of an ELF object (x86_64, i386 or
# arm64, from its header) in elf_arch, and the binutils that read it in
# objdump, nm and elf_size; 1 for another machine.
# shellcheck disable=SC2034 # the variables are the caller's
tb_elf_tools()
{
	case $(readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
	*X86-64*)	elf_arch=x86_64 objdump=objdump nm=nm elf_size=size ;;
	*80386*)	elf_arch=i386 objdump=objdump nm=nm elf_size=size ;;
	AArch64)	elf_arch=arm64 objdump=aarch64-linux-gnu-objdump
			nm=aarch64-linux-gnu-nm elf_size=aarch64-linux-gnu-size ;;
	*)		return 1 ;;
	esac
}
