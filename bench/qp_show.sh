#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# qp_show.sh [ROUNDS] - what it costs to list every QP of a device with
# rocetune and with iproute2, for 1,000 and 10,000 idle RC QPs (held open
# by build/bench/qp_many, in INIT on rxe0 port 1), side by side in one run:
#   rocetune -j qp show dev rxe0            (one generic netlink dump of the
#                                             module's QP table)
#   rdma -j res show qp link rxe0           (iproute2: the RDMA core's
#   rdma -j res show qp link rxe0/1          restrack dump, with and without
#                                             the port filter)
#   rocetune -V                             (process start alone)
# and the top 10 QPs by a counter: kernel-side (rocetune ... top 10) against
# a full listing sorted with jq.  Every reader runs once untimed, then
# ROUNDS times interleaved (the order alternates each round); the medians
# and their ratios to rdma are printed.  Before a ratio is printed, both
# tools must list exactly the QPs that qp_many holds (selected by its pid:
# rdma also lists the kernel's GSI QP 1, rocetune does not account it);
# otherwise the count is reported as a mismatch and the exit status is 1.
# Needs root, rocetune.ko, rdma_rxe, jq and qp_many ("make bench"): run it
# in the test VM,
#   RT_VM_SMP=1 selftests/vm/run.sh -k 6.1 -x 'bash bench/qp_show.sh 5'
# QP_BENCH_COUNTS overrides the QP counts (default "1000 10000").

ROUNDS=${1:-5}
COUNTS=${QP_BENCH_COUNTS:-1000 10000}
source "$(dirname "$0")/../selftests/lib.sh"
RT=$RT_TOP/build/userspace/rocetune
QPM=$RT_TOP/build/bench/qp_many
TMP=/tmp/qp_show
DEV=$RT_RXE0
TOPK=10
qpm_pid=
status=0

cleanup() {
	if [ -n "$qpm_pid" ]; then
		kill -TERM "$qpm_pid" 2> /dev/null
		wait "$qpm_pid"
	fi
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

mem_avail_kb() {
	local k v _

	while read -r k v _; do
		if [ "$k" = MemAvailable: ]; then
			echo "$v"
			return
		fi
	done < /proc/meminfo
}

# qpm_start N: start qp_many with N QPs on DEV and wait for its "ready".
# Polls with builtins and one sleep a second: every process started under
# emulation takes CPU from qp_many.
qpm_start() {
	local n=$1 line deadline=$((SECONDS + 120 + $1 / 20))

	: > "$TMP/qpm.out"
	"$QPM" "$DEV" "$n" > "$TMP/qpm.out" 2> "$TMP/qpm.err" &
	qpm_pid=$!
	while :; do
		line=
		read -r line < "$TMP/qpm.out"
		[ "$line" != "ready $n" ] || return 0
		if ! kill -0 "$qpm_pid" 2> /dev/null; then
			wait "$qpm_pid"
			qpm_pid=
			echo "qp_many failed:" >&2
			cat "$TMP/qpm.err" >&2
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "qp_many not ready after ${deadline}s" >&2
			return 1
		fi
		sleep 1
	done
}

qpm_stop() {
	local rc

	kill -TERM "$qpm_pid"
	wait "$qpm_pid"
	rc=$?
	qpm_pid=
	sed -n 's/^qp_many: //p' "$TMP/qpm.err" | sed 's/^/# /'
	[ "$rc" -eq 0 ] || { echo "qp_many exited with $rc" >&2; return 1; }
}

# The readers: a name, a function that runs it, and how to check its output.
rd_rt() { "$RT" -j qp show dev "$DEV"; }
rd_rdma() { rdma -j res show qp link "$DEV"; }
rd_rdma_port() { rdma -j res show qp link "$DEV/1"; }
rd_start() { "$RT" -V; }
rd_rt_top() { "$RT" -j qp show dev "$DEV" top "$TOPK" by rx_ecn_ce_pkts; }
rd_rt_jq() {
	"$RT" -j qp show dev "$DEV" |
		jq -c "sort_by(.rx_ecn_ce_pkts) | .[-$TOPK:] | reverse"
}
rd_rdma_jq() {
	rdma -j res show qp link "$DEV" |
		jq -c "sort_by(.\"sq-psn\") | .[-$TOPK:] | reverse"
}
readers=(rd_rt rd_rdma rd_rdma_port rd_start rd_rt_top rd_rt_jq rd_rdma_jq)
declare -A label=(
	[rd_rt]="rocetune -j qp show dev $DEV"
	[rd_rdma]="rdma -j res show qp link $DEV"
	[rd_rdma_port]="rdma -j res show qp link $DEV/1"
	[rd_start]="rocetune -V (process start only)"
	[rd_rt_top]="rocetune ... top $TOPK by rx_ecn_ce_pkts"
	[rd_rt_jq]="rocetune -j qp show | jq sort top $TOPK"
	[rd_rdma_jq]="rdma -j res show qp | jq sort top $TOPK"
)

# owned FILE: how many listed QPs belong to qp_many (both tools say "pid").
owned() {
	jq --argjson p "$qpm_pid" '[.[] | select(.pid == $p)] | length' "$1"
}

# check_lists N: the full listings hold exactly qp_many's N QPs and the
# top-K ones K entries.  Prints one line; returns 1 on a mismatch.
check_lists() {
	local n=$1 r c ok=0 msg=

	for r in rd_rt rd_rdma rd_rdma_port; do
		c=$(owned "$TMP/$r.out")
		msg+=" ${r#rd_}=$c/$(jq length "$TMP/$r.out")"
		[ "$c" = "$n" ] || ok=1
	done
	for r in rd_rt_top rd_rt_jq rd_rdma_jq; do
		c=$(jq length "$TMP/$r.out")
		msg+=" ${r#rd_}=$c"
		[ "$c" = "$TOPK" ] || ok=1
	done
	if [ "$ok" -eq 0 ]; then
		echo "# listed (qp_many's/all):$msg"
	else
		echo "# MISMATCH, expected $n QPs of qp_many (pid $qpm_pid) and top $TOPK:$msg"
	fi
	return $ok
}

# run_one READER: run it once, output to $TMP/READER.out; sets $us to the
# wall time in microseconds ($EPOCHREALTIME: no process start to measure).
run_one() {
	local t0 t1 rc

	t0=$EPOCHREALTIME
	"$1" > "$TMP/$1.out"
	rc=$?
	t1=$EPOCHREALTIME
	us=$((${t1/./} - ${t0/./}))
	return $rc
}

median() {
	tr ' ' '\n' | sed '/^$/d' | sort -n |
		awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2);
			print (NR % 2) ? v[m] : int((v[m] + v[m + 1]) / 2) }'
}

ms() {
	awk -v a="$1" 'BEGIN { printf "%.1f", a / 1000 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# bench N: hold N QPs, time every reader ROUNDS times, print the table.
bench() {
	local n=$1 r i k mem0 mem1 us
	local -A runs med
	local -a order

	mem0=$(mem_avail_kb)
	qpm_start "$n" || return 1
	mem1=$(mem_avail_kb)
	echo "# $n QPs on $DEV: holding them took $(((mem0 - mem1) / 1024)) MiB ($(((mem0 - mem1) * 1024 / n)) bytes per QP), MemAvailable now $((mem1 / 1024)) MiB"
	echo "# rocetune qp stats: $("$RT" -j qp stats dev "$DEV" | jq -c '.[0] | {table_count, table_max, refused}')"

	for r in "${readers[@]}"; do
		run_one "$r" || { echo "$r failed" >&2; return 1; }
	done
	check_lists "$n" || return 1
	for ((i = 0; i < ROUNDS; i++)); do
		order=("${readers[@]}")
		if ((i % 2)); then
			order=()
			for ((k = ${#readers[@]} - 1; k >= 0; k--)); do
				order+=("${readers[$k]}")
			done
		fi
		for r in "${order[@]}"; do
			run_one "$r" || { echo "$r failed" >&2; return 1; }
			runs[$r]+=" $us"
		done
	done
	check_lists "$n" || return 1
	qpm_stop || return 1

	for r in "${readers[@]}"; do
		med[$r]=$(median <<< "${runs[$r]}")
	done
	echo "# $n QPs, $ROUNDS rounds, median wall time per read (ms), x rdma = / rdma -j res show qp link $DEV"
	printf '%-42s %9s %9s %9s %7s\n' "reader" "median" "min" "max" "x rdma"
	for r in "${readers[@]}"; do
		printf '%-42s %9s %9s %9s %7s\n' "${label[$r]}" "$(ms "${med[$r]}")" \
			"$(ms "$(tr ' ' '\n' <<< "${runs[$r]}" | sed '/^$/d' | sort -n | head -n 1)")" \
			"$(ms "$(tr ' ' '\n' <<< "${runs[$r]}" | sort -n | tail -n 1)")" \
			"$(ratio "${med[$r]}" "${med[rd_rdma]}")"
	done
	echo "RESULT qps=$n rocetune/rdma=$(ratio "${med[rd_rt]}" "${med[rd_rdma]}")" \
		"rocetune/rdma_port=$(ratio "${med[rd_rt]}" "${med[rd_rdma_port]}")" \
		"start/rocetune=$(ratio "${med[rd_start]}" "${med[rd_rt]}")" \
		"top_kernel/rocetune_jq=$(ratio "${med[rd_rt_top]}" "${med[rd_rt_jq]}")" \
		"top_kernel/rdma_jq=$(ratio "${med[rd_rt_top]}" "${med[rd_rdma_jq]}")"
}

rt_require_root
rt_require_cmd rdma jq
[ -x "$QPM" ] || { echo "$QPM is missing: run \"make bench\" first"; exit 1; }
trap cleanup EXIT
rm -rf "$TMP"
mkdir -p "$TMP"
rt_wire_up || { echo "cannot set up the rxe wire"; exit 1; }
rt_kmod_load || { echo "cannot load rocetune.ko"; exit 1; }
qp_max=$(cat /sys/module/rocetune/parameters/qp_max)
echo "# kernel $(uname -r), $(nproc) CPU(s), MemTotal $(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024)) MiB, rocetune qp_max $qp_max, $ROUNDS rounds"
for n in $COUNTS; do
	if [ "$n" -gt "$qp_max" ]; then
		echo "# $n QPs: more than rocetune's qp_max $qp_max, skipped"
		status=1
		continue
	fi
	bench "$n" || status=1
done
exit $status
