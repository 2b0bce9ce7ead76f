# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# against: no checks: this module against /against.ko, timed by the wall
# clock, for tools/scale.sh --against

AGAINST=/against.ko

# time_module KO N: load KO, time one benchmark of N samples per CPU by the
# wall clock (a module of another version may have no summary), unload;
# prints "# against NAME T0 T1 PRIMITIVES"
time_module()
{
	local t0 t1 prims
	insmod "$1" || return 1
	echo "$2" >"$TB/nr_samples" || return 1
	# shellcheck disable=SC3028 # busybox ash has it, as bash does
	t0=$EPOCHREALTIME
	echo 1 >"$TB/benchmark" || return 1
	# shellcheck disable=SC3028 # busybox ash has it, as bash does
	t1=$EPOCHREALTIME
	# the primitives it measured: its result directories
	# shellcheck disable=SC2012 # counts them, whatever their names
	prims=$(ls -d "$TB"/*/median | wc -l)
	rmmod tracerbench || return 1
	echo "# against $(basename "$1" .ko) $t0 $t1 $prims"
}

# Both modules in turn, rounds times, so that drift hits both alike.
group_against()
{
	local n r
	n=$(cmdline_param speed_samples 1000000)
	r=0
	unload
	while [ $r -lt "$(cmdline_param rounds 3)" ]; do
		run_test "round $r: the other module" time_module $AGAINST "$n"
		run_test "round $r: this module" time_module "$MODULE" "$n"
		r=$((r + 1))
	done
}
