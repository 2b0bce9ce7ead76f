# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of tracerbench.ko, plus the project's test entry points.
#   make [KDIR=/path/to/kernel/build] [W=1]   build the module
#   make check                                unit tests and in-guest suites
#   make run                                  benchmark in a QEMU guest
#   make disasm-check [KDIR=...]              build, then check the windows

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

unit:
	$(MAKE) -C tools/unit

check:
	tools/check.sh

run:
	tools/run.sh

disasm-check: modules
	tools/disasm.sh tracerbench.ko

.PHONY: all modules clean unit check run disasm-check
