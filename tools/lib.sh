# SPDX-License-Identifier: GPL-2.0-only
# Shared by the scripts in tools/: source it. It sets the paths below,
# sources the helpers of tools/lib/, one file per job, and loads x86-64,
# the default architecture: a script for another takes it as an argument
# (--arch) and loads it itself (tb_arch_load). It runs nothing else.

TB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_OUT=${TB_OUT:-$TB_TOP/.out}

# The Debian kernel source, unpacked once into a cache that outlives the
# work tree, as are the kernels built from it.
TB_CACHE=${TB_CACHE:-/var/cache/tracerbench}
TB_SRC=$TB_CACHE/linux-source-6.12

# busybox and bash for a guest of another Debian architecture, unpacked
# from Debian's own packages (tb_guest_debs).
TB_DEBS=$TB_CACHE/debs

for f in harness arch pkg module kernel tree boot; do
	. "$TB_TOP/tools/lib/$f.sh" || return 1
done
unset f

tb_arch_load x86_64 || return 1
