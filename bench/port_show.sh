#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# port_show.sh [ITERATIONS] - what it costs to read every port's counters
# with rocetune, against what operators use today, side by side in one run:
#   rocetune -j port show                 (one netlink dump, served from the
#                                           module's last sample)
#   every sysfs hw_counters file           (what node_exporter-style
#                                           collectors read, one file each)
#   rdma -j statistic show                 (iproute2)
# Needs root, rocetune.ko, rdma_rxe and rocetune_sim: run it in the test VM,
#   selftests/vm/run.sh -x 'bench/port_show.sh 50'
# Prints the mean wall time per full read and the ratios against rocetune.

source "$(dirname "$0")/../selftests/lib.sh"

ITER=${1:-50}
NSIM=6
RT=$RT_TOP/build/userspace/rocetune

cleanup() {
	local i

	for i in $(seq 1 "$NSIM"); do
		echo "$((60 + i))" > /sys/bus/rocetune_sim/del_device 2> /dev/null
	done
	[ ! -d /sys/module/rocetune_sim ] || rmmod rocetune_sim
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}
trap cleanup EXIT

rt_wire_up || { echo "cannot set up the rxe wire"; exit 1; }
rt_kmod_load || { echo "cannot load rocetune.ko"; exit 1; }
rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko ||
	{ echo "cannot load rocetune_sim"; exit 1; }
pers=(mlx5 irdma bnxt_re)
for i in $(seq 1 "$NSIM"); do
	echo "$((60 + i)) ${pers[$((i % 3))]}" > /sys/bus/rocetune_sim/new_device
done
wait_for 10 test "$("$RT" -j port show | jq length)" -ge $((NSIM + 2)) ||
	{ echo "rocetune does not see every port"; exit 1; }

files=(/sys/class/infiniband/*/ports/*/hw_counters/*)
nports=$("$RT" -j port show | jq length)
echo "# $nports ports, ${#files[@]} hw_counters files, $ITER reads each, kernel $(uname -r)"

# run_timed NAME CMD...: mean ms per run of CMD over ITER runs.
run_timed() {
	local t0 t1 i

	"$@" > /dev/null || { echo "$1 failed" >&2; exit 1; }
	t0=$(date +%s%N)
	for ((i = 0; i < ITER; i++)); do
		"$@" > /dev/null
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / ITER / 1000))
}

read_sysfs() {
	local f

	for f in "${files[@]}"; do
		read -r _ < "$f"
	done
}

us_rt=$(run_timed "$RT" -j port show)
us_start=$(run_timed "$RT" -V)
us_sysfs=$(run_timed read_sysfs)
us_rdma=$(run_timed rdma -j statistic show)

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}
printf '%-34s %10s %10s\n' "reader" "us/read" "x rocetune"
printf '%-34s %10d %10s\n' "rocetune -j port show" "$us_rt" "1.00"
printf '%-34s %10d %10s\n' "sysfs hw_counters (every file)" "$us_sysfs" "$(ratio "$us_sysfs" "$us_rt")"
printf '%-34s %10d %10s\n' "rdma -j statistic show" "$us_rdma" "$(ratio "$us_rdma" "$us_rt")"
printf '%-34s %10d %10s\n' "rocetune -V (process start only)" "$us_start" "$(ratio "$us_start" "$us_rt")"
echo "# the sysfs reader runs in this shell without starting a process, like a"
echo "# long-running collector; the two tools pay a process start on every read"
