#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh [KVER] - the demo (scripts/demo.sh, what "make demo" runs) in
# the test VM on KVER, twice in one boot, with selftests/demo/dcb before
# the real dcb in PATH:
#   RT_DCB_FAULT=after    every dcb set is done, then dcb says iproute2
#                         6.1's "Attribute write: Protocol error" and
#                         exits 1: the demo must pass;
#   RT_DCB_FAULT=instead  the same error with no set done: the demo must
#                         fail, at its PFC step, by reading PFC back.
# TAP on stdout; logs in build/demo/KVER/.  The modules and tools must be
# built for KVER (make kmod userspace KVER=...).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/scripts/kver.sh" "${1:-6.1}") || exit 1
out=$top/build/demo/$kver
n=0
failed=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2 # $3"
		failed=1
	fi
}

mkdir -p "$out"
rm -f "$out"/demo-*.log "$out"/demo-*.rc "$out/dcb-faults.log"
# shellcheck disable=SC2016 # expanded in the guest
guest='export PATH="$RT_WORK/selftests/demo:$PATH" RT_DCB_FAULT_LOG="$RT_OUT/dcb-faults.log"
for f in after instead; do
	RT_DCB_FAULT=$f scripts/demo.sh > "$RT_OUT/demo-$f.log" 2>&1
	echo $? > "$RT_OUT/demo-$f.rc"
done'
echo "1..3"
RT_VM_DEADLINE=${RT_VM_DEADLINE:-900} "$top/selftests/vm/run.sh" -k "$kver" -o "$out" \
	-x "$guest" > "$out/run.log" 2>&1
rc=$?
tap "$rc" "the VM ran the demo twice ($kver)" \
	"run.sh exit $rc: $(tail -n 3 "$out/run.log" | tr '\n' ' ')"

after=$out/demo-after.log
nafter=$(grep -c '^after: dcb .* set ' "$out/dcb-faults.log" 2> /dev/null)
if [ "$(cat "$out/demo-after.rc" 2> /dev/null)" != 0 ]; then
	tap 1 "the demo passes when dcb says Protocol error after its set" \
		"the demo failed: $(grep -m 1 'FAILED' "$after")"
elif [ "${nafter:-0}" -lt 1 ]; then
	tap 1 "the demo passes when dcb says Protocol error after its set" \
		"no error was injected (build/demo/$kver/dcb-faults.log)"
elif ! grep -q "Attribute write: Protocol error: iproute2 6.1's spurious error; dcb pfc show reads PFC on" "$after"; then
	tap 1 "the demo passes when dcb says Protocol error after its set" \
		"the demo does not say why it went on past dcb's error"
else
	tap 0 "the demo passes when dcb says Protocol error after its set ($nafter injected)"
fi

instead=$out/demo-instead.log
if [ "$(cat "$out/demo-instead.rc" 2> /dev/null)" = 0 ]; then
	tap 1 "the demo fails when dcb says Protocol error and did not set" \
		"the demo passed although PFC was never set"
elif ! grep -q 'FAILED: dcb pfc set dev rsim7 prio-pfc 3:on did not enable PFC on priority 3' "$instead"; then
	tap 1 "the demo fails when dcb says Protocol error and did not set" \
		"not at its PFC step: $(grep -m 1 'FAILED' "$instead")"
else
	tap 0 "the demo fails when dcb says Protocol error and did not set (PFC read back off)"
fi
grep -h 'Protocol error\|FAILED' "$after" "$instead" 2> /dev/null | sed 's/^ */# /'
exit $failed
