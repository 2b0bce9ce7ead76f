# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of tracerbench.ko, plus the project's test entry points.
#   make [KDIR=/path/to/kernel/build] [W=1]   build the module
#   make check                                unit tests and in-guest suites
#   make run                                  benchmark in a QEMU guest

KDIR ?= /lib/modules/$(shell uname -r)/build

include $(CURDIR)/version.mk
TB_VERSION := $(call tb_version,$(CURDIR))

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

version:
	@echo $(TB_VERSION)

unit:
	$(MAKE) -C tools/unit

check:
	tools/check.sh

run:
	tools/run.sh

.PHONY: all modules clean version unit check run
