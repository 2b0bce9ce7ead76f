#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make style: the kernel's own checks, all of which must come out clean.
#
#   checkpatch	checkpatch.pl --strict on every C source in the tree: the
#		module, the pure helpers, the host unit tests, tbio.c and
#		the KUnit suites
#   sparse	the module built with sparse (C=2) at W=1 against the
#		headers of each target kernel (TB_KERNELS), a result each
#   kunit	the KUnit module likewise against the debug kernel, when
#		that is built (make check builds it; TB_STYLE_KUNIT=0 skips)
#
# Prints a result per check and, last, "N passed, N failed"; exits non-zero
# on any failure. The logs are in $TB_OUT/style-*/.
set -u
. "$(dirname "$0")/lib.sh"

passed=0
failed=0

# Every C source and header of the tree, build products left out.
c_sources()
{
	if [ -e "$TB_TOP/.git" ]; then
		git -C "$TB_TOP" ls-files --cached --others --exclude-standard \
			-- '*.[ch]'
	else
		(cd "$TB_TOP" && find . -name '*.[ch]' ! -name '*.mod.c' \
			! -path './.out/*' | sed 's|^\./||')
	fi | sort -u | while read -r f; do
		[ -f "$TB_TOP/$f" ] && echo "$TB_TOP/$f"
	done
}

check_checkpatch()
{
	local log=$TB_OUT/style-checkpatch.log files

	files=$(c_sources)
	"$TB_SRC/scripts/checkpatch.pl" --strict --no-tree --quiet -f $files \
		>"$log" 2>&1
	local rc=$?
	sed 's/^/[checkpatch] /' "$log"
	result $rc "checkpatch --strict: $(echo $files | wc -w) files"
}

# A build log with anything from the compiler, sparse or modpost in it.
noisy()
{
	grep -Eqi 'warning|error' "$1"
}

check_sparse()
{
	local k=$1 dir=$TB_OUT/style-$1

	rm -rf "$dir" && mkdir -p "$dir" &&
		make -s -C "$TB_TOP" stage DEST="$dir" &&
		make -C "$(tb_kdir "$k")" M="$dir" W=1 C=2 modules \
			>"$dir/build.log" 2>&1 &&
		! noisy "$dir/build.log"
	local rc=$?
	[ $rc = 0 ] || sed "s/^/[$k sparse] /" "$dir/build.log"
	result $rc "$k: sparse (C=2) and W=1 clean"
}

check_kunit()
{
	local rc

	tb_build_kunit debug
	rc=$?
	[ $rc = 0 ] || sed 's/^/[kunit sparse] /' "$(tb_kunit_log debug)"
	result $rc "debug: KUnit module sparse (C=2) and W=1 clean"
}

mkdir -p "$TB_OUT"
if tb_kernel_source >"$TB_OUT/style-source.log" 2>&1; then
	check_checkpatch
else
	cat "$TB_OUT/style-source.log"
	result 1 "checkpatch --strict (no kernel source)"
fi
for k in $TB_KERNELS; do
	check_sparse "$k"
done
if [ "${TB_STYLE_KUNIT:-1}" != 0 ]; then
	if [ -f "$(tb_kernel_dir debug)/.tb-built" ]; then
		check_kunit
	else
		echo "# the debug kernel is not built: KUnit module not checked"
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
