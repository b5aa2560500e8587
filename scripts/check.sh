#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh - everything "make check" runs after "make deps": builds with
# W=1, static checks, host unit tests, DKMS builds, the VM harness'
# self-test, a VM test from a fresh clone in an awkward place and the VM
# selftests on each kernel in KERNELS.  Every step runs even when an
# earlier one failed; the last line is "N passed, N failed", the line
# before it "N skipped (not counted as passed)".
#
# Each step leaves TAP in build/check/ and its full output in
# build/check/logs/.  A step that is one check counts as one test; steps
# that print TAP (unit tests, VM suites) count each of their results, the
# sub-tests of a VM test script one by one, and a script that failed
# without a failed sub-test (it died, timed out, fouled the kernel log)
# as one more failure.
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

# together 'CALL' 'CALL'...: run step calls (step, tap_step) side by side,
# for checks that use one CPU each (checkpatch, shellcheck; one-vCPU VMs),
# then print their output in the order given.  Each keeps its own step
# number.
together() {
	local n0=$nstep i=0 c pids=()

	for c in "$@"; do
		i=$((i + 1))
		(nstep=$((n0 + i - 1)); eval "$c") > "$out/together.$i" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		cat "$out/together.$((i + 1))"
		rm -f "$out/together.$((i + 1))"
	done
	nstep=$((n0 + $#))
}

# newcomer KVER: what a new user does, as root, with a clone in a
# directory of mode 0700 whose path has a space (their home directory, or
# /tmp): build, then run VM tests there, one of which runs the CLI as an
# unprivileged user.  The clone is of the committed HEAD.
newcomer() {
	local kv=$1 base clone rc

	base=$(mktemp -d /tmp/rocetune-newcomer.XXXXXX) || return 1
	chmod 0700 "$base"
	clone="$base/a user's dir/rocetune"
	mkdir -p "${clone%/*}"
	chmod 0700 "${clone%/*}"
	echo "newcomer: cloning into $clone"
	git clone -q "$top" "$clone" &&
		(cd "$clone" &&
		 MODULE_DIRS=kmod scripts/build-kmod.sh "$kv" &&
		 make -s -C userspace &&
		 RT_VM_SMP=1 selftests/vm/run.sh -k "$kv" rocetune_load.sh cli_errors.sh)
	rc=$?
	cat "$clone/build/vm/$kv/results.tap" 2> /dev/null
	rm -rf "$base"
	return $rc
}

# make_help: "make help" has a line for every target of the Makefile (its
# .PHONY list), and "make test" runs what "make check" runs.
make_help() {
	local help t rc=0

	help=$(make -s help) || return 1
	for t in $(make -pq help 2> /dev/null | sed -n 's/^\.PHONY: //p'); do
		if ! grep -Eq "^  make $t( |\$)" <<< "$help"; then
			echo "make help has no line for make $t"
			rc=1
		fi
	done
	if [ "$(make -n test)" != "$(make -n check)" ]; then
		echo "make test is not make check: $(make -n test 2>&1 | head -n 3)"
		rc=1
	fi
	[ "$rc" != 0 ] || echo "make help lists $(grep -c '^  make ' <<< "$help") targets"
	return $rc
}

# tap_count TAPFILE FAILURES: print "passed failed skipped" of TAPFILE, and
# the names of the failures to the file FAILURES.  The results of a step
# are "ok"/"not ok" lines; a VM test script's sub-tests are its lines
# "# ok"/"# not ok" before the script's own line.  Each sub-test counts;
# a failed script counts once more unless one of its sub-tests failed; a
# script without sub-tests counts once.
tap_count() {
	awk -v failures="$2" '
	function name(l) {
		sub(/^(not )?ok [0-9]* */, "", l)
		return l
	}
	# A script that fails before its tests (or between them) says why
	# on a "setup failed" line: the summary shows it.
	/^(# )+setup failed: / {
		why = $0
		sub(/^(# )+/, "", why)
		next
	}
	/^# (not )?ok [0-9]/ {
		l = substr($0, 3)
		if (l ~ /^not ok/)
			fl[++nf] = name(l)
		else if (l ~ / # SKIP/)
			ns++
		else
			np++
		next
	}
	/^(not )?ok / {
		top = name($0)
		sub(/ # .*/, "", top)
		if (np + nf + ns == 0) {
			if ($0 ~ /^not ok/) {
				F++
				print name($0) (why != "" ? " (" why ")" : "") > failures
			} else if ($0 ~ / # SKIP/) {
				S++
			} else {
				P++
			}
		} else {
			P += np
			S += ns
			F += nf
			for (i = 1; i <= nf; i++)
				print top ": " fl[i] > failures
			if ($0 ~ /^not ok/ && nf == 0) {
				F++
				print name($0) (why != "" ? " (" why ")" : "") > failures
			}
		}
		np = nf = ns = 0
		why = ""
	}
	END {
		if (np + nf + ns) {
			F += nf + 1
			P += np
			S += ns
			print "sub-test results without their script'"'"'s verdict" > failures
		}
		print P + 0, F + 0, S + 0
	}' "$1"
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
step "make deps started, enabled or changed no daemon" scripts/deps.sh --services
# scripts/deps.sh in sysroots: the administrator's node_exporter left
# enabled and running, the daemons it installs masked, another apt's locks
# waited for.
tap_step "make deps: the administrator's daemons, apt's locks (sysroot)" - \
	selftests/system/deps.sh
together 'step "checkpatch --strict" scripts/checkpatch.sh' \
	'step "shellcheck" scripts/shellcheck.sh'
step "kernel-doc -none -Wall" scripts/kernel-doc.sh
step "uapi header and YNL spec agree" scripts/spec-check.py
step "Prometheus rules: promtool tests, lint, mutants" make -s monitoring-check
step "Kconfig: rocetune's dependencies, through the kernel's conf" scripts/kconfig-check.sh
step "make help lists every target, make test is make check" make_help
step "userspace build -Werror" make -j"$(nproc)" -C userspace
step "bench helpers build -Werror" make -j"$(nproc)" -C bench
step "selftest helpers build -Werror" make -j"$(nproc)" -C selftests helpers
tap_step "userspace unit tests (ASan, UBSan)" - make -s -j"$(nproc)" -C userspace test
# Installed as a system component (selftests/system/): make install and
# make dkms-install (dkms add, build, install for each kernel) in a sysroot;
# each kernel boots the result with systemd as PID 1 (the DKMS module at
# boot, udev hotplug -> unit -> profile), side by side, one virtual CPU
# each; then the Debian packages.
tap_step "make install, make dkms-install in a sysroot" - selftests/system/install_dkms.sh
pids=()
for kv in "${kvers[@]}"; do
	RT_VM_SMP=1 selftests/system/vm.sh "$kv" > "$out/logs/system-vm-$kv.log" 2>&1 &
	pids+=($!)
done
for i in "${!kvers[@]}"; do
	wait "${pids[$i]}"
	tap_collect "systemd VM: DKMS module, udev hotplug (${kvers[$i]})" \
		"build/system/vm/${kvers[$i]}/results.tap" "$out/logs/system-vm-${kvers[$i]}.log" $?
done
step "make deb, lintian" scripts/deb.sh -l
tap_step "deb: apt install, DKMS, apt purge in a sysroot" - selftests/system/deb.sh
if [ ${#kvers[@]} -gt 0 ]; then
	# One-vCPU guests, side by side.
	# shellcheck disable=SC2016 # together evaluates them
	together 'step "VM harness catches kernel faults (${kvers[0]})" \
			env RT_VM_SMP=1 selftests/harness/check.sh "${kvers[0]}"' \
		'step "a clone in a 0700 directory with a space: VM tests (${kvers[0]})" \
			newcomer "${kvers[0]}"'
fi
if [ ${#kvers[@]} -gt 0 ]; then
	# What make demo runs, with iproute2 6.1's spurious dcb error injected.
	tap_step "make demo passes dcb's spurious error, fails a set not done (${kvers[0]})" - \
		env RT_VM_SMP=1 selftests/demo/check.sh "${kvers[0]}"
	# make vm-shell at a terminal: Ctrl-C reaches the guest's command.
	tap_step "make vm-shell: ready, Ctrl-C interrupts the guest's command (${kvers[0]})" - \
		env RT_VM_SMP=1 selftests/vm/shell_pty.py "${kvers[0]}"
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

cat "$out"/[0-9]*.tap > "$out/all.tap"
read -r passed failed skipped < <(tap_count "$out/all.tap" "$out/failures")
[ -n "${skipped:-}" ] || { echo "check: cannot count the results" >&2; exit 1; }
echo
if [ "$failed" -ne 0 ]; then
	echo "Failed:"
	sed 's/^/  /' "$out/failures"
fi
if [ "$skipped" -ne 0 ]; then
	echo "Skipped:"
	grep -E '^(# )?ok .* # SKIP' "$out/all.tap" | sed 's/^\(# \)\{0,1\}ok [0-9]* /  /'
fi
# The last line is the plain summary CI reads; the skipped checks, each a
# documented "this kernel lacks the feature", are counted on the line
# before it, apart from both.
echo "$skipped skipped (not counted as passed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
