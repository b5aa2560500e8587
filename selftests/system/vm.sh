#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm.sh KVER - boot the test VM on KVER with systemd as PID 1 (run.sh -S) on
# the root that install_dkms.sh installed (build/system/stage/: the tools,
# udev rule, unit and the DKMS-built rocetune.ko) and run hotplug.sh in it.
# TAP in build/system/vm/KVER/results.tap (and on stdout).  A missing stage
# or a VM that dies is a failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/scripts/kver.sh" "${1:-6.1}") || exit 1
stage=$top/build/system/stage
out=$top/build/system/vm/$kver

if [ ! -x "$stage/usr/sbin/rocetune" ]; then
	echo "vm.sh: no installed system in ${stage#"$top"/} (run selftests/system/install_dkms.sh)" >&2
	exit 1
fi
# The simulated NIC comes from this tree's build, like in the selftests.
MODULE_DIRS=selftests/rocetune_sim "$top/scripts/build-kmod.sh" "$kver" || exit 1

mkdir -p "$out"
rm -f "$out/results.tap"
RT_VM_STAGE=$stage RT_VM_DEADLINE=${RT_VM_DEADLINE:-900} \
	"$top/selftests/vm/run.sh" -k "$kver" -S -o "$out" \
	-x "bash -o pipefail -c 'selftests/system/hotplug.sh 2>&1 | tee \"\$RT_OUT/results.tap\"'" \
	> "$out/run.log" 2>&1
rc=$?
cat "$out/results.tap" 2> /dev/null
[ "$rc" = 0 ] || tail -n 20 "$out/run.log" | sed 's/^/# /'
exit $rc
