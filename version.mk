# SPDX-License-Identifier: GPL-2.0-only
#
# The version of tracerbench, one string everywhere: MODULE_VERSION, hence
# modinfo and /sys/module/tracerbench/version, and dkms.conf. It is the
# VERSION file, plus "-g", the commit and "-dirty" if the tree has
# uncommitted changes, when the tree is a git checkout of its own (a .git
# at its top; a copy inside some other repository does not ask that one).
# A copy without .git, such as a DKMS source tree or a tarball, has VERSION
# alone; "make stage" writes the full string into the copy's VERSION.
#
# Included by Kbuild and Makefile: $(call tb_version,TREE).
tb_version = $(shell cat $(1)/VERSION)$(shell test -e $(1)/.git && \
	git -C $(1) describe --always --dirty --exclude='*' 2>/dev/null | \
	sed 's/^/-g/')
