# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Shared by the scripts in tools/: source it. It sets the paths below,
# sources the helpers of tools/lib/, one file per job, and loads x86-64,
# the default architecture: a script for another takes it as an argument
# (--arch) and loads it itself (tb_arch_load). It runs nothing else.

TB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_OUT=${TB_OUT:-$TB_TOP/.out}

# The Debian kernel source, unpacked once into a cache that outlives the
# work tree, as are the kernels built from it; every process of the rig
# on the machine shares it, through the locks of tools/lib/cache.sh.
TB_CACHE=${TB_CACHE:-/var/cache/tracerbench}
TB_SRC=$TB_CACHE/linux-source-6.12

# busybox and bash for a guest of another Debian architecture, unpacked
# from Debian's own packages (tb_guest_debs).
TB_DEBS=$TB_CACHE/debs

# shellcheck source=tools/lib/cli.sh
. "$TB_TOP/tools/lib/cli.sh" || return 1
# shellcheck source=tools/lib/harness.sh
. "$TB_TOP/tools/lib/harness.sh" || return 1
# shellcheck source=tools/lib/cache.sh
. "$TB_TOP/tools/lib/cache.sh" || return 1
# shellcheck source=tools/lib/arch.sh
. "$TB_TOP/tools/lib/arch.sh" || return 1
# shellcheck source=tools/lib/pkg.sh
. "$TB_TOP/tools/lib/pkg.sh" || return 1
# shellcheck source=tools/lib/module.sh
. "$TB_TOP/tools/lib/module.sh" || return 1
# shellcheck source=tools/lib/kernel.sh
. "$TB_TOP/tools/lib/kernel.sh" || return 1
# shellcheck source=tools/lib/tree.sh
. "$TB_TOP/tools/lib/tree.sh" || return 1
# shellcheck source=tools/lib/spec.sh
. "$TB_TOP/tools/lib/spec.sh" || return 1
# shellcheck source=tools/lib/qemu.sh
. "$TB_TOP/tools/lib/qemu.sh" || return 1
# shellcheck source=tools/lib/progress.sh
. "$TB_TOP/tools/lib/progress.sh" || return 1
# shellcheck source=tools/lib/target.sh
. "$TB_TOP/tools/lib/target.sh" || return 1
# shellcheck source=tools/lib/box.sh
. "$TB_TOP/tools/lib/box.sh" || return 1
# shellcheck source=tools/lib/lava.sh
. "$TB_TOP/tools/lib/lava.sh" || return 1
# shellcheck source=tools/lib/lavalab.sh
. "$TB_TOP/tools/lib/lavalab.sh" || return 1

tb_arch_load x86_64 || return 1
