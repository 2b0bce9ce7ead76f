# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of tracerbench.ko, plus the project's test entry points.
#   make [KDIR=/path/to/kernel/build] [W=1]   build the module
#   make dkms-install [KVER=release]          install through DKMS
#   make dkms-remove                          uninstall that version
#   make check                                unit tests and in-guest suites
#   make check-long                           10^8 samples per CPU per model
#   make style                                checkpatch, sparse, W=1, shellcheck, pyflakes
#   make run                                  benchmark in a QEMU guest
#   make disasm-check [KDIR=...]              build, then check the windows

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

include $(CURDIR)/version.mk
TB_VERSION := $(call tb_version,$(CURDIR))

# What building the module takes, all of which DKMS installs;
# tools/lib/module.sh builds its test modules from a copy of the same list
# ("make stage"), so those builds fail if a file is missing here.
TB_SOURCES := Kbuild Makefile version.mk VERSION dkms.conf \
	      tracerbench.h run.c measure.c counters.c heap.c heap.h stats.c hist.c \
	      hist.h pace.h prims.h clocks.h results.h defaults.h windows.h \
	      interface.c pmu.h clock.h ticks.h

DKMS_SRC := /usr/src/tracerbench-$(TB_VERSION)

all: modules

modules: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

# Without the target kernel's build tree, make -C would fail with a bare
# "No such file or directory": name the package that provides it instead,
# for KVER unless only KDIR was given, which says nothing of the release.
TB_HEADERS_FOR = $(if $(filter file,$(origin KDIR))$(filter-out file,$(origin KVER)),$(KVER),RELEASE)
kdir:
	@test -f $(KDIR)/Makefile || { \
		echo "tracerbench: no kernel build tree in $(KDIR)"; \
		echo "tracerbench: install the headers of the kernel to build for:"; \
		echo "  Debian, Ubuntu:  apt install linux-headers-$(TB_HEADERS_FOR)"; \
		echo "  Fedora-like:     dnf install kernel-devel-$(TB_HEADERS_FOR)"; \
		echo "tracerbench: or name a kernel's build tree with KDIR="; \
		exit 1; } >&2

dkms-tool:
	@command -v dkms >/dev/null || { \
		echo "tracerbench: dkms is not installed:"; \
		echo "  Debian, Ubuntu:  apt install dkms"; \
		echo "  Fedora-like:     dnf install dkms"; \
		exit 1; } >&2

version:
	@echo $(TB_VERSION)

sources:
	@echo $(wildcard $(TB_SOURCES))

# make stage DEST=DIR: a tree to build from, as DKMS installs it: the
# sources, and VERSION and dkms.conf holding the full version string.
stage:
	@test -n "$(DEST)" || { echo "usage: make stage DEST=DIR" >&2; exit 1; }
	mkdir -p $(DEST)
	cp $(wildcard $(TB_SOURCES)) $(DEST)/
	echo $(TB_VERSION) >$(DEST)/VERSION
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(TB_VERSION)"/' \
		$(DEST)/dkms.conf

# Install this version under /usr/src and have DKMS build and install it
# for KVER (the running kernel by default), and for every kernel installed
# later; a version DKMS already has is replaced.
dkms-install: dkms-tool dkms-remove
	$(MAKE) stage DEST=$(DKMS_SRC)
	dkms add tracerbench/$(TB_VERSION)
	dkms build tracerbench/$(TB_VERSION) -k $(KVER)
	dkms install tracerbench/$(TB_VERSION) -k $(KVER)

dkms-remove: dkms-tool
	if dkms status tracerbench/$(TB_VERSION) | grep -q .; then \
		dkms remove tracerbench/$(TB_VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)

unit:
	$(MAKE) -C tools/unit

check:
	tools/check.sh

# issue 6's count: 10^8 samples per CPU on each preemption model
check-long:
	TB_ARCHS=x86_64 TB_PARTS=long TB_LONG_SAMPLES=100000000 tools/check.sh

style:
	tools/style.sh

run:
	@tools/run.sh $(if $(TB_ARCH),--arch $(TB_ARCH))

disasm-check: modules
	tools/disasm.sh tracerbench.ko

.PHONY: all modules clean kdir dkms-tool version sources stage \
	dkms-install dkms-remove unit check check-long style run disasm-check
