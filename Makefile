# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of tracerbench.ko, plus the project's test entry points.
#   make [KDIR=/path/to/kernel/build] [W=1]   build the module
#   make check                                unit tests and in-guest suites
#   make run                                  benchmark in a QEMU guest

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

include $(CURDIR)/version.mk
TB_VERSION := $(call tb_version,$(CURDIR))

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

version:
	@echo $(TB_VERSION)

unit:
	$(MAKE) -C tools/unit

check:
	tools/check.sh

run:
	tools/run.sh

.PHONY: all modules clean kdir version unit check run
