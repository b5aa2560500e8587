#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh KVER - prove that the VM harness fails on kernel faults rather
# than passing or hanging: a test that WARNs must fail from the kernel log,
# a test that oopses must end the VM and be reported as a crash, and the
# runner must exit non-zero.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=$("$top/scripts/kver.sh" "${1:-6.1}") || exit 1
out=$top/build/vm/harness-$kver

"$top/selftests/vm/run.sh" -k "$kver" -o "$out" -T 60 \
	harness/fault_warn.sh harness/fault_null.sh
rc=$?
status=0
expect() {
	if grep -Eq "$1" "$out/results.tap"; then
		echo "ok: $2"
	else
		echo "FAIL: $2"
		status=1
	fi
}
echo "--- results.tap:"
cat "$out/results.tap"
echo "---"
if [ "$rc" = 2 ]; then
	echo "ok: the runner exits 2 when the VM dies"
else
	echo "FAIL: the runner exited $rc, not 2"
	status=1
fi
expect '^not ok 1 .*fault_warn.sh # kernel log: WARNING' "a WARN fails its test"
expect '^not ok 2 .*fault_null.sh # VM died: kernel crashed' "an oops ends the VM and fails its test"
exit $status
