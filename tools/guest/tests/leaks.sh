# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# leaks: kmemleak finds nothing of the module's once the module is gone

# kmemleak_ours: the reports on stdin whose backtrace has a frame in the
# module area (MODULES, tb.modules=): the module's allocations. Another
# subsystem's object that kmemleak takes, for a scan, as unreferenced is
# not the module's doing, whether it leaked or not.
kmemleak_ours()
{
	awk -v lo="${MODULES_START#0x}" -v hi="${MODULES_END#0x}" '
		function flush() { if (ours) printf "%s", block; block = ""; ours = 0 }
		/^unreferenced object/ { flush() }
		{ block = block $0 "\n" }
		match($0, /\[<[0-9a-f]+>\]/) {
			a = substr($0, RSTART + 2, RLENGTH - 4)
			if (length(a) == length(lo) && a >= lo && a < hi)
				ours = 1
		}
		END { flush() }'
}

test_kmemleak()
{
	local leaks

	[ -w "$KMEMLEAK" ] || { diag "no kmemleak"; return 1; }
	[ -n "$MODULES" ] || { diag "no module area (tb.modules=)"; return 1; }
	unload || return 1
	# kmemleak reports only objects older than 5 s
	sleep 6
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	leaks=$(kmemleak_ours <"$KMEMLEAK")
	[ -z "$leaks" ] && return 0
	echo "$leaks" | head -n 60 | while read -r line; do diag "$line"; done
	return 1
}

group_leaks()
{
	run_test "kmemleak: nothing of the module's unreferenced" test_kmemleak
}
