#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# port_read.sh [ITER] [PROC_ITER] [MAX_SEC] - what it costs to read every RoCE
# port's counters, measured like with like, for 1, 8 and 64 simulated
# NICs (rocetune_sim, mlx5 personality, one port each; no other RDMA
# device):
#
# 1. In-process, one long-running reader per way (build/bench/port_read,
#    the socket or files opened once, ITER timed reads after one untimed,
#    fewer if they take more than MAX_SEC seconds (default 20)):
#      lib          rocetune's library: one PORT_GET dump, every message
#                   parsed (normalized counters, rates, raw counters, PFC)
#      sysfs        every hw_counters file: open, read, close
#      sysfs-pread  the same files kept open, pread() at 0
#      rdma         rdma statistic's netlink: one STAT_GET request per port
#    printed per read and per port, with the growth from 8 to 64 ports
#    (the slope: what each more port costs) and the fixed part.
# 2. Whole processes (one start + one read each), PROC_ITER runs:
#      rocetune -j -s port show, rdma -j statistic show, port_read sysfs 0
#      (a process that reads the files once), and rocetune -V (the start
#      alone).
#
# Needs root, rocetune.ko, rocetune_sim, rdma and build/bench/port_read
# ("make -C bench"): run it in the test VM, alone, e.g.
#   selftests/vm/run.sh -k 6.1 -x 'bench/port_read.sh 200 20'
# Method and results: bench/README.

ITER=${1:-200}
PROC_ITER=${2:-20}
MAX_SEC=${3:-20}
COUNTS=${PORT_READ_COUNTS:-1 8 64}
source "$(dirname "$0")/lib.sh"
RT=$RT_TOP/build/userspace/rocetune
PR=$RT_TOP/build/bench/port_read
SIM_BUS=/sys/bus/rocetune_sim
ID0=400
nsim=0
declare -A mean med per

fail() {
	echo "port_read.sh: $*" >&2
	exit 1
}

# sysfs-pread keeps every hw_counters file open: 28 per port, 1792 at 64.
ulimit -n "$(ulimit -Hn)" || fail "cannot raise the open-file limit"

sim_add_to() {
	while [ "$nsim" -lt "$1" ]; do
		echo "$((ID0 + nsim)) mlx5" > "$SIM_BUS/new_device" ||
			fail "cannot create sim device $((ID0 + nsim))"
		nsim=$((nsim + 1))
	done
}

cleanup() {
	local i

	for ((i = 0; i < nsim; i++)); do
		echo "$((ID0 + i))" > "$SIM_BUS/del_device" 2> /dev/null
	done
	rt_sim_unload
	rt_kmod_unload 2> /dev/null
}
trap cleanup EXIT

rocetune_ports() {
	"$RT" -j port show | jq length
}

# proc_ms CMD...: mean wall time of a whole run of CMD, in ms.
proc_ms() {
	local t0 t1 i

	"$@" > /dev/null || fail "$* failed"
	t0=$(date +%s%N)
	for ((i = 0; i < PROC_ITER; i++)); do
		"$@" > /dev/null
	done
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) -v n="$PROC_ITER" 'BEGIN { printf "%.1f", d / n / 1e6 }'
}

[ -x "$PR" ] || fail "$PR is missing (make -C bench)"
[ -x "$RT" ] || fail "$RT is missing (make -C userspace)"
[ -z "$(ls /sys/class/infiniband 2> /dev/null)" ] ||
	fail "RDMA devices exist already: $(ls /sys/class/infiniband)"
rt_kmod_load || fail "cannot load rocetune.ko"
rt_sim_load || fail "cannot load rocetune_sim"

echo "# kernel $(uname -r), $(nproc) CPU(s); $ITER reads in-process, $PROC_ITER process runs"
printf '%-6s %-12s %8s %6s %10s %10s %10s %10s\n' ports way values reads \
	"mean_us" "median_us" "min_us" "median/port"
for n in $COUNTS; do
	sim_add_to "$n"
	wait_for 60 test "$(rocetune_ports)" = "$n" ||
		fail "rocetune does not see $n ports: $(rocetune_ports)"
	for way in lib sysfs sysfs-pread rdma; do
		line=$("$PR" "$way" "$ITER" "$MAX_SEC") || fail "port_read $way failed"
		[ "$(field ports "$line")" = "$n" ] ||
			fail "port_read $way read $(field ports "$line") ports, not $n"
		mean[$n,$way]=$(field mean_us "$line")
		med[$n,$way]=$(field median_us "$line")
		per[$n,$way]=$(awk -v m="${med[$n,$way]}" -v n="$n" \
			'BEGIN { printf "%.1f", m / n }')
		printf '%-6s %-12s %8s %6s %10s %10s %10s %10s\n' "$n" "$way" \
			"$(field values "$line")" "$(field iter "$line")" \
			"${mean[$n,$way]}" "${med[$n,$way]}" \
			"$(field min_us "$line")" "${per[$n,$way]}"
	done
done

# shellcheck disable=SC2086 # the counts, as words
set -- $COUNTS
if [ $# -ge 2 ]; then
	a=${*: -2:1}
	b=${*: -1}
	echo "# growth of the median from $a to $b ports: us per more port (slope), fixed part"
	for way in lib sysfs sysfs-pread rdma; do
		awk -v way="$way" -v a="$a" -v b="$b" -v ta="${med[$a,$way]}" \
			-v tb="${med[$b,$way]}" 'BEGIN {
			s = (tb - ta) / (b - a)
			printf "%-12s %8.1f us/port %8.1f us fixed\n", way, s, ta - s * a }'
	done
fi

echo "# whole processes, $nsim ports: ms per run (start + one full read)"
printf '%-36s %8s\n' "process" "ms/run"
printf '%-36s %8s\n' "rocetune -j -s port show" "$(proc_ms "$RT" -j -s port show)"
printf '%-36s %8s\n' "rdma -j statistic show" "$(proc_ms rdma -j statistic show)"
printf '%-36s %8s\n' "port_read sysfs 0 (reads the files)" "$(proc_ms "$PR" sysfs 0)"
printf '%-36s %8s\n' "rocetune -V (process start only)" "$(proc_ms "$RT" -V)"
