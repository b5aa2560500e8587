# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune top-level Makefile.
#
#   make deps        install the Debian packages everything below needs
#   make check       deps + every build, static check and test (CI runs this)
#   make demo        deps + boot a VM and show rocetune at work on Soft-RoCE
#   make             build rocetune.ko (for KVER) and the user-space tools
#   make vm-test     run the VM selftests on KVER (TESTS="a.sh b.sh" to pick)
#   make bench       build the benchmarks' helpers (bench/README runs them)
#   make vm-shell    interactive shell in the test VM on KVER
#   make install     install the module for the running kernel and the tools
#   make dkms-install register the module with DKMS (rebuilt for new kernels)
#
# KVER selects a kernel: a full release or a prefix (6.1, 6.12).  The
# default is the running kernel when its headers exist, else the newest
# installed headers; the VM targets default to 6.1.

VERSION := $(shell cat VERSION)
KVER ?=
VM_KVER := $(if $(KVER),$(KVER),6.1)
DESTDIR ?=
PREFIX ?= /usr
DKMS_SRC ?= /usr/src

all: kmod userspace

deps:
	scripts/deps.sh

kmod:
	scripts/build-kmod.sh $(KVER)

userspace:
	$(MAKE) -C userspace

unit:
	$(MAKE) -C userspace test

bench:
	$(MAKE) -C bench
.PHONY: bench

checkpatch:
	scripts/checkpatch.sh

sparse:
	scripts/build-kmod.sh -c $(KVER)

shellcheck:
	scripts/shellcheck.sh

check: deps
	scripts/check.sh

vm-test:
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	selftests/vm/run.sh -k $(VM_KVER) $(TESTS)

vm-shell:
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	selftests/vm/run.sh -k $(VM_KVER) -s

demo: deps
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	selftests/vm/run.sh -k $(VM_KVER) -x scripts/demo.sh

install: all
	$(MAKE) -C kmod KVER=$(KVER) modules_install
	depmod -a $(shell scripts/kver.sh $(KVER))
	install -D -m 0755 build/userspace/rocetune $(DESTDIR)$(PREFIX)/sbin/rocetune

dkms-install:
	scripts/dkms-src.sh $(DESTDIR)$(DKMS_SRC)
	dkms add -m rocetune -v $(VERSION)
	dkms install -m rocetune -v $(VERSION)

clean:
	rm -rf build
	$(MAKE) -C userspace clean

.PHONY: all deps kmod userspace unit checkpatch sparse shellcheck check \
	vm-test vm-shell demo install dkms-install clean
