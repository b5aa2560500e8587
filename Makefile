# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune top-level Makefile ("make help" prints this comment).
#
#   make deps        install the Debian packages everything below needs
#   make check       deps + every build, static check and test (CI runs this)
#   make test        the same as make check
#   make check-long  the long reliability runs in the VM on each kernel:
#                    netlink fuzzing (RT_FUZZ_N messages, RT_FUZZ_SEED) and
#                    RT_MOD_CYCLES load/unload cycles
#   make demo        deps + boot a VM and show rocetune at work on Soft-RoCE
#   make all         (or just make) build rocetune.ko (for KVER) and the
#                    user-space tools
#   make kmod        rocetune.ko alone (for KVER)
#   make userspace   the CLI rocetune and the agent rocetuned alone
#   make unit        the user-space unit tests (cmocka, ASan, UBSan)
#   make checkpatch  checkpatch.pl --strict on the kernel sources
#   make sparse      the module (for KVER) through sparse, C=2
#   make shellcheck  shellcheck on every shell script
#   make spec-check  the uapi header and the YNL spec agree
#   make monitoring-check the Prometheus rules: promtool check and test
#                    rules, their lint and mutation check (monitoring/)
#   make vm-test     run the VM selftests on KVER (TESTS="a.sh b.sh" to pick)
#   make vm-shell    interactive shell in the test VM on KVER
#   make bench       build the benchmarks' helpers (bench/README runs them)
#   make install     install the module for the running kernel and the tools
#                    (install-kmod + install-tools; DESTDIR, PREFIX)
#   make install-kmod  the module alone, into /lib/modules/KVER/updates
#   make install-tools everything of make install but the module
#   make uninstall   remove what make install installed
#   make dkms-install register the module with DKMS (rebuilt for new kernels)
#   make dkms-remove unregister it and remove its source from /usr/src
#   make deb         Debian packages rocetune and rocetune-dkms in build/deb/
#   make clean       remove build/, where everything above builds
#   make help        this list
#
# KVER selects a kernel: a full release or a prefix (6.1, 6.12).  The
# default is the running kernel when its headers exist, else the newest
# installed headers; the VM targets default to 6.1.

VERSION := $(shell cat VERSION)
KVER ?=
VM_KVER := $(if $(KVER),$(KVER),6.1)
DESTDIR ?=
PREFIX ?= /usr
SYSCONFDIR ?= /etc
SBINDIR = $(PREFIX)/sbin
UDEVDIR ?= $(PREFIX)/lib/udev
UNITDIR ?= $(PREFIX)/lib/systemd/system
MODLOADDIR ?= $(PREFIX)/lib/modules-load.d
DOCDIR ?= $(PREFIX)/share/doc/rocetune
EXAMPLEDIR ?= $(DOCDIR)/examples
MONITORINGDIR ?= $(PREFIX)/share/rocetune/monitoring
DKMS_SRC ?= /usr/src
# Kernels that make dkms-install builds for: KVER, else every kernel with
# headers (dkms skips those outside BUILD_EXCLUSIVE_KERNEL).
DKMS_KVERS = $(if $(KVER),$(shell scripts/kver.sh $(KVER)),$(patsubst \
	/lib/modules/%/build,%,$(wildcard /lib/modules/*/build)))
# Paths written into the udev rules and the units.
SUBST := sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@UDEVLIBDIR@|$(UDEVDIR)|g'

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

spec-check:
	scripts/spec-check.py

monitoring-check:
	promtool check rules monitoring/rocetune.rules.yml
	promtool test rules monitoring/tests/*.test.yml
	monitoring/tests/lint.py
	monitoring/tests/mutate.py
.PHONY: monitoring-check

check: deps
	scripts/check.sh

test: check

# The long variants of netlink_fuzz.sh and mod_cycles.sh, on each kernel
# of KERNELS (or KVER); results in build/vm/KVER/results.tap.
KERNELS ?= 6.1 6.12
RT_FUZZ_N ?= 100000
RT_MOD_CYCLES ?= 200
RT_FUZZ_SEED ?=
check-long:
	for k in $(or $(KVER),$(KERNELS)); do scripts/build-kmod.sh $$k || exit 1; done
	$(MAKE) -C userspace
	rc=0; for k in $(or $(KVER),$(KERNELS)); do \
		RT_VM_APPEND="RT_FUZZ_N=$(RT_FUZZ_N) RT_MOD_CYCLES=$(RT_MOD_CYCLES) \
		$(if $(RT_FUZZ_SEED),RT_FUZZ_SEED=$(RT_FUZZ_SEED))" \
		selftests/vm/run.sh -k $$k -T 3600 netlink_fuzz.sh mod_cycles.sh || rc=1; \
	done; exit $$rc

vm-test:
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	$(MAKE) -C selftests helpers
	selftests/vm/run.sh -k $(VM_KVER) $(TESTS)

vm-shell:
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	selftests/vm/run.sh -k $(VM_KVER) -s

demo: deps
	scripts/build-kmod.sh $(VM_KVER)
	$(MAKE) -C userspace
	selftests/vm/run.sh -k $(VM_KVER) -x scripts/demo.sh

install: install-kmod install-tools

# The module for KVER into /lib/modules/KVER/updates (under DESTDIR; depmod
# only without DESTDIR: a packager runs it on the target).  Built and
# installed by scripts that work from a tree whose path has a space.
install-kmod:
	MODULE_DIRS=kmod scripts/build-kmod.sh $(KVER)
	scripts/install-kmod.sh '$(KVER)' '$(DESTDIR)'
	$(if $(DESTDIR),,depmod -a $(shell scripts/kver.sh $(KVER)))

# The CLI, man pages, completion, udev rules and helper, the units,
# modules-load.d, and the example profiles as documentation (EXAMPLEDIR):
# a profile in /etc/rocetune is live configuration, applied to every NIC it
# matches, so the profile directory is created empty and only ever written
# by the administrator.
install-tools: userspace
	$(MAKE) -C userspace install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	install -d $(DESTDIR)$(UDEVDIR)/rules.d $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(MODLOADDIR) $(DESTDIR)$(SYSCONFDIR)/rocetune \
		$(DESTDIR)$(EXAMPLEDIR)
	$(SUBST) udev/90-rocetune.rules > $(DESTDIR)$(UDEVDIR)/rules.d/90-rocetune.rules
	install -m 0755 udev/rocetune-udev-wants $(DESTDIR)$(UDEVDIR)/rocetune-udev-wants
	$(SUBST) udev/rocetune-apply@.service > '$(DESTDIR)$(UNITDIR)/rocetune-apply@.service'
	$(SUBST) userspace/agent/rocetuned.service > $(DESTDIR)$(UNITDIR)/rocetuned.service
	install -m 0644 udev/rocetune.conf $(DESTDIR)$(MODLOADDIR)/rocetune.conf
	install -m 0644 $(wildcard profiles/*.conf) $(DESTDIR)$(EXAMPLEDIR)/
	@for f in $(wildcard profiles/*.conf); do \
		t=$(DESTDIR)$(SYSCONFDIR)/rocetune/$${f##*/}; \
		if cmp -s "$$f" "$$t"; then echo "install: warning: $$t is the" \
			"example as shipped (an older make install put it there); it is" \
			"applied to every NIC it matches: remove it unless that is meant"; fi; \
	done
	install -d $(DESTDIR)$(MONITORINGDIR)/grafana
	install -m 0644 monitoring/rocetune.rules.yml $(DESTDIR)$(MONITORINGDIR)/
	install -m 0644 monitoring/grafana/rocetune.json monitoring/grafana/provisioning.yml \
		$(DESTDIR)$(MONITORINGDIR)/grafana/
	$(if $(DESTDIR),,if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi)

# /etc/rocetune is the administrator's: removed only when empty.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/rocetune $(DESTDIR)$(SBINDIR)/rocetuned \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(notdir $(wildcard userspace/man/*.8))) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/rocetune \
		$(DESTDIR)$(UDEVDIR)/rules.d/90-rocetune.rules \
		$(DESTDIR)$(UDEVDIR)/rocetune-udev-wants \
		'$(DESTDIR)$(UNITDIR)/rocetune-apply@.service' \
		$(DESTDIR)$(UNITDIR)/rocetuned.service \
		$(DESTDIR)$(MODLOADDIR)/rocetune.conf \
		$(addprefix $(DESTDIR)$(EXAMPLEDIR)/,$(notdir $(wildcard profiles/*.conf)))
	-rmdir $(DESTDIR)$(EXAMPLEDIR) $(DESTDIR)$(DOCDIR) 2> /dev/null
	-rmdir $(DESTDIR)$(SYSCONFDIR)/rocetune 2> /dev/null
	rm -f $(DESTDIR)$(MONITORINGDIR)/rocetune.rules.yml \
		$(DESTDIR)$(MONITORINGDIR)/grafana/rocetune.json \
		$(DESTDIR)$(MONITORINGDIR)/grafana/provisioning.yml
	-rmdir $(DESTDIR)$(MONITORINGDIR)/grafana $(DESTDIR)$(MONITORINGDIR) \
		$(DESTDIR)$(PREFIX)/share/rocetune 2> /dev/null
	rm -f $(DESTDIR)/lib/modules/$(shell scripts/kver.sh $(KVER))/updates/rocetune.ko*
	$(if $(DESTDIR),,depmod -a $(shell scripts/kver.sh $(KVER)))
	$(if $(DESTDIR),,if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi)

# DKMS: the source in /usr/src/rocetune-VERSION, built and installed for
# DKMS_KVERS (and by dkms for every kernel installed later).  A version
# already registered is replaced, so the current source is built.
dkms-install:
	scripts/dkms-src.sh $(DKMS_SRC) > /dev/null
	if dkms status -m rocetune -v $(VERSION) | grep -q .; then \
		dkms remove -m rocetune -v $(VERSION) --all; fi
	dkms add -m rocetune -v $(VERSION)
	for k in $(DKMS_KVERS); do \
		dkms install -m rocetune -v $(VERSION) -k $$k || \
		[ $$? = 77 ] || exit 1; \
	done

dkms-remove:
	if dkms status -m rocetune -v $(VERSION) | grep -q .; then \
		dkms remove -m rocetune -v $(VERSION) --all; fi
	rm -rf $(DKMS_SRC)/rocetune-$(VERSION)

deb:
	scripts/deb.sh

clean:
	rm -rf build
	$(MAKE) -C userspace clean

# The comment at the top of this file, from its list of targets on.
help:
	@sed -n '3,/^[^#]/s/^#\( \{0,1\}\)//p' $(firstword $(MAKEFILE_LIST))

.PHONY: all deps kmod userspace unit checkpatch sparse shellcheck spec-check check test check-long \
	vm-test vm-shell demo install install-kmod install-tools uninstall \
	dkms-install dkms-remove deb clean help
