#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh - everything "make check" runs after "make deps": builds with
# W=1, static checks, host unit tests, DKMS builds, the VM harness'
# self-test and the VM selftests on each kernel in KERNELS.  Every step runs
# even when an earlier one failed; the last line is "N passed, N failed".
#
# Each step leaves TAP in build/check/ and its full output in
# build/check/logs/.  A step that is one check counts as one test; steps
# that print TAP (unit tests, VM suites) count each of their results.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
KERNELS=${KERNELS:-6.1 6.12}
out=$top/build/check
rm -rf "$out"
mkdir -p "$out/logs"
nstep=0

# step NAME CMD...: one check, ok when CMD exits 0.
step() {
	local name=$1 log rc start
	shift
	nstep=$((nstep + 1))
	log=$out/logs/$(printf '%02d' $nstep)-${name// /_}.log
	start=$(date +%s)
	echo "== $name"
	"$@" > "$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok 1 $name" > "$out/$(printf '%02d' $nstep).tap"
		echo "   ok ($(($(date +%s) - start))s)"
	else
		echo "not ok 1 $name # exit $rc, see ${log#"$top"/}" > "$out/$(printf '%02d' $nstep).tap"
		tail -n 30 "$log" | sed 's/^/   | /'
		echo "   FAILED ($(($(date +%s) - start))s)"
	fi
	return $rc
}

# tap_verdict NAME DST RC SUFFIX: a step's TAP file DST fails when it has
# no result, or when the step exited RC != 0 without a failed test; print
# the step's verdict (with SUFFIX).
tap_verdict() {
	local name=$1 dst=$2 rc=$3 suffix=$4

	if ! grep -Eq '^(not )?ok ' "$dst"; then
		echo "not ok 1 $name # no results (exit $rc)" >> "$dst"
	elif [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$dst"; then
		echo "not ok $name # exit $rc" >> "$dst"
	fi
	if [ "$rc" -eq 0 ]; then
		echo "   ok$suffix"
	else
		echo "   FAILED$suffix"
	fi
}

# tap_step NAME TAPFILE CMD...: CMD writes TAP to TAPFILE (or stdout when
# TAPFILE is -); its results count one by one.  A run that leaves no result
# counts as one failure.
tap_step() {
	local name=$1 tap=$2 rc start dst
	shift 2
	nstep=$((nstep + 1))
	dst=$out/$(printf '%02d' $nstep).tap
	start=$(date +%s)
	echo "== $name"
	if [ "$tap" = - ]; then
		"$@" 2>&1 | tee "$dst" | sed 's/^/   | /'
		rc=${PIPESTATUS[0]}
	else
		rm -f "$tap"
		"$@" 2>&1 | sed 's/^/   | /'
		rc=${PIPESTATUS[0]}
		cp "$tap" "$dst" 2> /dev/null || : > "$dst"
	fi
	tap_verdict "$name" "$dst" "$rc" " ($(($(date +%s) - start))s)"
}

# tap_collect NAME TAPFILE LOG RC: like tap_step, for a command that has
# already run (in the background) with its output in LOG and status RC.
tap_collect() {
	local name=$1 tap=$2 log=$3 rc=$4 dst
	nstep=$((nstep + 1))
	dst=$out/$(printf '%02d' $nstep).tap
	echo "== $name"
	sed 's/^/   | /' "$log"
	cp "$tap" "$dst" 2> /dev/null || : > "$dst"
	tap_verdict "$name" "$dst" "$rc" ""
}

kvers=()
for k in $KERNELS; do
	if kv=$(scripts/kver.sh "$k"); then
		kvers+=("$kv")
	else
		step "kernel $k installed" false
	fi
done

for kv in "${kvers[@]}"; do
	step "kmod build W=1 ($kv)" scripts/build-kmod.sh "$kv"
	step "kmod sparse C=2 ($kv)" scripts/build-kmod.sh -c "$kv"
done
step "checkpatch --strict" scripts/checkpatch.sh
step "shellcheck" scripts/shellcheck.sh
step "userspace build -Werror" make -C userspace
step "bench helpers build -Werror" make -C bench
tap_step "userspace unit tests (ASan, UBSan)" - make -s -C userspace test
for kv in "${kvers[@]}"; do
	step "dkms build ($kv)" scripts/dkms-build.sh "$kv"
done
if [ ${#kvers[@]} -gt 0 ]; then
	step "VM harness catches kernel faults (${kvers[0]})" \
		selftests/harness/check.sh "${kvers[0]}"
fi
# The VM suites of the kernels run side by side, one virtual CPU each:
# much of a suite's time is spent waiting (sampling intervals, storms,
# hotplug), so two guests on two host cores finish far sooner than one
# after the other.  Their output is shown when both are done.
pids=()
for kv in "${kvers[@]}"; do
	RT_VM_SMP=1 selftests/vm/run.sh -k "$kv" > "$out/logs/vm-$kv.log" 2>&1 &
	pids+=($!)
done
i=0
for kv in "${kvers[@]}"; do
	wait "${pids[$i]}"
	echo "$?" > "$out/logs/vm-$kv.rc"
	i=$((i + 1))
done
for kv in "${kvers[@]}"; do
	tap_collect "VM selftests ($kv)" "build/vm/$kv/results.tap" \
		"$out/logs/vm-$kv.log" "$(cat "$out/logs/vm-$kv.rc")"
done

# Count top-level results: nested TAP lines are prefixed with "# ".
cat "$out"/[0-9]*.tap > "$out/all.tap"
passed=$(grep -Ec '^ok ' "$out/all.tap" | head -n 1)
skipped=$(grep -Ec '^ok .*# SKIP' "$out/all.tap" | head -n 1)
failed=$(grep -Ec '^not ok ' "$out/all.tap" | head -n 1)
passed=$((passed - skipped))
echo
if [ "$failed" -ne 0 ]; then
	echo "Failed:"
	grep -E '^not ok ' "$out/all.tap" | sed 's/^not ok [0-9]* /  /'
fi
if [ "$skipped" -ne 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
