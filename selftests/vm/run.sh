#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh - boot a Debian kernel under QEMU with the host root shared
# read-only over 9p and the project tree read-write, and run the selftests
# (or one command, or a shell) in that single boot.
#
#   run.sh [-k KVER] [-o OUTDIR] [-T SECS] [TEST...]   run selftests (TAP)
#   run.sh [-k KVER] [-S] -x 'COMMAND'   run one command (-S: systemd-stage.sh)
#   run.sh [-k KVER] -s                                  interactive shell
#
# KVER is a release or a prefix ("6.1", "6.12"; default 6.1).  TESTs are
# paths relative to selftests/ (default: TEST_PROGS of selftests/Makefile).
# The modules must have been built for KVER (make kmod KVER=...).
# Exit status: 0 when every test passed, 1 when one failed, 2 when the VM
# died (kernel crash, oops, hang) or could not start.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

kver=6.1
out=
mode="test"
exec_cmd=
systemd=
timeout_override=

usage() {
	sed -n '4,16s/^# \{0,1\}//p' "$0"
	exit 2
}

while getopts "k:o:T:x:sSh" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	o) out=$OPTARG ;;
	T) timeout_override=$OPTARG ;;
	x) mode="exec"; exec_cmd=$OPTARG ;;
	s) mode=shell ;;
	S) systemd=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))

kver=$("$top/scripts/kver.sh" "$kver")
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "run.sh: $kernel is missing (make deps)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run.sh: qemu-system-x86_64 is missing (make deps)" >&2; exit 2; }

tests=("$@")
if [ "$mode" = test ] && [ ${#tests[@]} -eq 0 ]; then
	read -r -a tests <<< "$(make -s -C "$top/selftests" print-tests)"
fi
per_test=$(sed -n 's/^timeout=//p' "$top/selftests/settings")
[ -z "$timeout_override" ] || per_test=$timeout_override

out=${out:-$top/build/vm/$kver}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The guest mounts the tree at a fixed path, whatever its path here (see
# init): RT_WORK and RT_OUT are the guest's paths.
guest_work=/mnt/rocetune
case "$out/" in
"$top"/) guest_out=$guest_work ;;
"$top"/*) guest_out=$guest_work/${out#"$top"/} ;;
*) echo "run.sh: OUTDIR must be inside $top (the only tree the guest can write)" >&2; exit 2 ;;
esac
rm -rf "$out/dmesg" "$out/results.tap" "$out/status" "$out/current" "$out/rc" \
	"$out/tshark"

quote() { printf "%s='%s'\n" "$1" "${2//\'/\'\\\'\'}"; }
envfile=$out/rt.env
{
	quote RT_WORK "$guest_work"
	quote RT_OUT "$guest_out"
	quote RT_HOST_TSHARK "$guest_out/tshark"
	quote RT_KVER "$kver"
	quote RT_MODE "$mode"
	quote RT_TESTS "${tests[*]}"
	quote RT_TIMEOUT "$per_test"
	quote RT_EXEC "$exec_cmd"
} > "$envfile"

"$here/mkinitramfs.sh" "$kver" "$envfile" "$out/initramfs.cpio"
# -S: systemd as PID 1 on an overlay root (systemd-stage.sh, init-systemd).
[ -z "$systemd" ] || "$here/systemd-stage.sh" "$out" >> "$out/initramfs.cpio"

# A hard deadline on the whole VM, so that a hung kernel ends the run.
case $mode in
test) deadline=$((120 + ${#tests[@]} * (per_test + 15))) ;;
exec) deadline=${RT_VM_DEADLINE:-900} ;;
shell) deadline=0 ;;
esac

# no_timer_check: under emulation on a loaded host the IO-APIC timer check
# at boot can miss its ticks and panic ("IO-APIC + timer doesn't work"),
# a failure of the host's speed, not of the kernel under test.
append="console=ttyS0 rdinit=/init panic=-1 oops=panic mitigations=off no_timer_check"
append+=" slub_debug=FZP quiet loglevel=4 ${RT_VM_APPEND:-}"
[ -z "$systemd" ] || append+=" rdinit=/init-systemd"
# The console: QEMU's stdio.  In the shell, Ctrl-C must reach the guest's
# command, not end QEMU (signal=off); Ctrl-A x still ends the VM at once
# (mux=on: QEMU's escape keys, Ctrl-A Ctrl-A for a Ctrl-A).
console=(-serial stdio)
[ "$mode" != shell ] ||
	console=(-chardev "stdio,id=rtcon,signal=off,mux=on" -serial chardev:rtcon)
qemu=(qemu-system-x86_64 -accel "tcg,thread=multi" -cpu max
	-smp "${RT_VM_SMP:-2}" -m "${RT_VM_MEM:-2G}"
	-nographic -no-reboot -nodefaults "${console[@]}" -monitor none -nic none
	-kernel "$kernel" -initrd "$out/initramfs.cpio" -append "$append"
	-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=${top//,/,,},mount_tag=work,security_model=none,multidevs=remap")

# tshark is the per-QP tests' independent packet counter; under emulation
# it takes many seconds to start, so the guest has it run here on its
# captures (rt_qp.py tshark-serve, requests through RT_OUT/tshark).
mkdir -p "$out/tshark"
python3 "$top/selftests/rt_qp.py" tshark-serve "$out/tshark" &
tshark_pid=$!
trap 'kill "$tshark_pid" 2> /dev/null' EXIT

if [ "$mode" = shell ]; then
	# The console is the terminal's: no log is written.
	echo "rt-vm: booting $kver (shell) under QEMU/TCG; Ctrl-C interrupts the guest's command, exit powers off, Ctrl-A x ends the VM at once" >&2
else
	echo "rt-vm: booting $kver ($mode) under QEMU/TCG; log in ${out#"$top"/}/console.log" >&2
fi
started=$(date +%s)
rc=0
if [ "$mode" = shell ]; then
	"${qemu[@]}" || rc=$?
else
	timeout -k 10 "$deadline" "${qemu[@]}" < /dev/null 2>&1 |
		sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' |
		tee "$out/console.log" || true
	rc=${PIPESTATUS[0]}
fi
secs=$(($(date +%s) - started))

if [ ! -f "$out/status" ]; then
	if [ "$rc" = 124 ]; then
		why="no power-off within ${deadline}s (hung)"
	else
		why="kernel crashed (QEMU exit $rc)"
	fi
	echo "rt-vm: the VM died after ${secs}s: $why" >&2
	# The first report of the kernel, whole (its call trace names the
	# code): from its first line to the panic, at most 60 lines.
	sed -n -E '/(BUG|Oops|WARNING|general protection)/,/Kernel panic/p' \
		"$out/console.log" 2>/dev/null | head -n 60 | sed 's/^/rt-vm:   /' >&2 || true
	if [ "$mode" = test ]; then
		# Name the test that was running and count the rest as not run.
		cur=$(cat "$out/current" 2>/dev/null || echo "0 -")
		n=${cur%% *}
		i=0
		for t in "${tests[@]}"; do
			i=$((i + 1))
			[ "$i" -ge "$n" ] || continue
			if [ "$i" = "$n" ]; then
				echo "not ok $i selftests: rocetune: $t # VM died: $why"
			else
				echo "not ok $i selftests: rocetune: $t # not run: VM died"
			fi
		done >> "$out/results.tap"
	fi
	exit 2
fi

status=$(cat "$out/status")
echo "rt-vm: $kver finished in ${secs}s, status $status" >&2
[ "$status" = 0 ] || exit 1
exit 0
