#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make style: the kernel's own checks and the scripts' linters, all of
# which must come out clean.
#
#   checkpatch	checkpatch.pl --strict on every C source in the tree: the
#		module, the pure helpers, the host unit tests, tbio.c and
#		the KUnit suites
#   sparse	the module built with sparse (C=2) at W=1 against the
#		headers of each target kernel (TB_KERNELS), a result each
#   kunit	the KUnit module likewise against the debug kernel, when
#		that is built (make check builds it; TB_STYLE_KUNIT=0 skips)
#   scripts	shellcheck (its default level, following what each script
#		sources) on every shell script: *.sh, tools/arch/*.conf, and
#		the files that start with a shell's #!; pyflakes3 on every
#		Python file; a result each, named shellcheck and pyflakes
#
# Prints a result per check and, last, "N passed, N failed"; exits non-zero
# on any failure. The logs are in $TB_OUT/style-*/. --checks LIST runs
# those alone: shellcheck and pyflakes need no kernel.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

all_checks="checkpatch sparse kunit shellcheck pyflakes"

usage()
{
	cat <<EOF
usage: tools/style.sh [--checks LIST]
make style: the kernel's checks on the C sources and the module, and the
linters on the scripts; a result per check, then "N passed, N failed".
options (--opt VALUE or --opt=VALUE):
  --checks LIST    among ${all_checks// /,} (default all; the
                   last two need no kernel source nor build)
  -h, --help       print this and exit
TB_KERNELS picks sparse's kernels, TB_STYLE_KUNIT=0 skips kunit: doc/cli.md.
EOF
}

tb_cli_name=style.sh
tb_cli_values="--checks"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
checks=$all_checks
while [ "$1" != -- ]; do
	case $1 in
	--checks)	checks=$(tb_list "$2") ;;
	esac
	shift 2
done
shift
[ $# = 0 ] || tb_usage_error "unexpected operand '$1'"
for c in $checks; do
	tb_cli_has "$all_checks" "$c" ||
		tb_usage_error "--checks: no check '$c' (${all_checks// /,})"
done
[ -n "$checks" ] || tb_usage_error "--checks names no check"

passed=0
failed=0

# The tree's files, build products left out: those git knows of (the
# untracked ones too), or all in a copy without .git.
tree_files()
{
	if [ -e "$TB_TOP/.git" ]; then
		git -C "$TB_TOP" ls-files --cached --others --exclude-standard
	else
		(cd "$TB_TOP" && find . -type f ! -path './.out/*' | sed 's|^\./||')
	fi | sort -u | while read -r f; do
		[ -f "$TB_TOP/$f" ] && echo "$f"
	done
}

# Every C source and header of the tree, by its full path.
c_sources()
{
	tree_files | grep -E '\.[ch]$' | grep -v '\.mod\.c$' | sed "s|^|$TB_TOP/|"
}

# Every shell script of the tree, from the top: by its name, or by a
# first line that runs a shell.
shell_sources()
{
	local f

	tree_files | while read -r f; do
		case $f in
		*.sh | tools/arch/*.conf)	echo "$f"; continue ;;
		*.py | *.[ch] | *.md)		continue ;;
		esac
		head -n 1 "$TB_TOP/$f" 2>/dev/null |
			grep -qE '^#! ?/bin/(ba|busybox )?sh( |$)' && echo "$f"
	done
}

# Every Python file of the tree, from the top.
python_sources()
{
	tree_files | grep -E '\.py$'
}

# check_checkpatch SRC: the kernel's checkpatch.pl, of the source SRC
check_checkpatch()
{
	local log=$TB_OUT/style-checkpatch.log files rc

	mapfile -t files < <(c_sources)
	"$1/scripts/checkpatch.pl" --strict --no-tree --quiet -f \
		"${files[@]}" >"$log" 2>&1
	rc=$?
	sed 's/^/[checkpatch] /' "$log"
	result $rc "checkpatch --strict: ${#files[@]} files"
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

# check_lint NAME FILES COMMAND...: a linter, the Debian package NAME, on
# the files (a line each, from the top of the tree) as one result; a
# linter not installed is a failure that says what to install (make check
# installs both)
check_lint()
{
	local name=$1 log=$TB_OUT/style-$1.log rc files

	mapfile -t files <<<"$2"
	shift 2
	if ! command -v "$1" >/dev/null; then
		result 1 "$name: $1 is not installed (apt-get install $name)"
		return
	fi
	(cd "$TB_TOP" && "$@" "${files[@]}") >"$log" 2>&1
	rc=$?
	sed "s/^/[$name] /" "$log"
	result $rc "$name: ${#files[@]} files clean"
}

mkdir -p "$TB_OUT"
if tb_cli_has "$checks" checkpatch; then
	# the script and its data alone, where the source is not unpacked
	if src=$(tb_source_files scripts/checkpatch.pl scripts/spelling.txt \
		 scripts/const_structs.checkpatch 2>"$TB_OUT/style-source.log"); then
		check_checkpatch "$src"
	else
		cat "$TB_OUT/style-source.log"
		result 1 "checkpatch --strict (no kernel source)"
	fi
fi
if tb_cli_has "$checks" sparse; then
	for k in $TB_KERNELS; do
		check_sparse "$k"
	done
fi
if tb_cli_has "$checks" kunit && [ "${TB_STYLE_KUNIT:-1}" != 0 ]; then
	if tb_kernel_cached debug; then
		check_kunit
	else
		echo "# the debug kernel is not built: KUnit module not checked"
	fi
fi
if tb_cli_has "$checks" shellcheck; then
	# -x: each script as it runs, with what it sources
	check_lint shellcheck "$(shell_sources)" shellcheck -x
fi
if tb_cli_has "$checks" pyflakes; then
	check_lint pyflakes "$(python_sources)" pyflakes3
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
