# SPDX-License-Identifier: GPL-2.0-only
#
# leaks: kmemleak finds nothing once the module is gone

test_kmemleak()
{
	[ -w $KMEMLEAK ] || { diag "no kmemleak"; return 1; }
	unload || return 1
	# kmemleak reports only objects older than 5 s
	sleep 6
	echo scan >$KMEMLEAK
	echo scan >$KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] && return 0
	echo "$leaks" | head -n 60 | while read -r line; do diag "$line"; done
	return 1
}

group_leaks()
{
	run_test "kmemleak: nothing unreferenced" test_kmemleak
}
