#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# qp_overhead.sh [ROUNDS] - cost of rocetune's per-QP accounting on
# software RoCE: perftest bandwidth and message rate between rxe0 and rxe1
# (the selftests' veth wire) with accounting on and off, alternating, and
# the ratio on/off of the medians.  Needs root and the selftests' setup;
# in the test VM:
#   selftests/vm/run.sh -k 6.1 -x 'bash bench/qp_overhead.sh 5'

ROUNDS=${1:-5}
source "$(dirname "$0")/../selftests/lib.sh"
RT_QP="$RT_SELFTESTS/rt_qp.py"
PORT=18530
DUR=${QP_BENCH_SECS:-5}

cleanup() {
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

# run TOOL ACCT: print "BW_MBps MSGRATE_Mpps" of one run.
run() {
	local tool=$1 acct=$2 spid out

	python3 "$RT_QP" set --dev "$RT_RXE0" --acct "$acct" &&
		python3 "$RT_QP" set --dev "$RT_RXE1" --acct "$acct" || return 1
	$tool -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -D "$DUR" -s 4096 \
		> /dev/null 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT" || return 1
	out=$($tool -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -D "$DUR" -s 4096 \
		"$RT_IP1" 2>&1 | awk '$1 == 4096 { print $4, $5 }')
	wait "$spid"
	# A run that failed (no report, or nothing moved) is left out.
	case $out in
	"" | 0.00*) echo "# $tool acct=$acct: failed run left out" >&2 ;;
	*) echo "$out" ;;
	esac
}

median() {
	sort -g | awk '{ v[NR] = $1 }
		END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}

rt_require_root
trap cleanup EXIT
rt_wire_up || exit 1
rt_kmod_load || exit 1
G0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
G1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")

for tool in ib_write_bw ib_send_bw; do
	: > /tmp/qpb-on; : > /tmp/qpb-off
	for ((i = 0; i < ROUNDS; i++)); do
		run "$tool" 1 >> /tmp/qpb-on
		run "$tool" 0 >> /tmp/qpb-off
	done
	on_bw=$(cut -d' ' -f1 /tmp/qpb-on | median)
	off_bw=$(cut -d' ' -f1 /tmp/qpb-off | median)
	on_mr=$(cut -d' ' -f2 /tmp/qpb-on | median)
	off_mr=$(cut -d' ' -f2 /tmp/qpb-off | median)
	echo "$tool 4096 B, $ROUNDS x ${DUR}s each, medians:"
	echo "  accounting on:  $on_bw MB/s  $on_mr Mpps  (runs: $(cut -d' ' -f1 /tmp/qpb-on | tr '\n' ' '))"
	echo "  accounting off: $off_bw MB/s  $off_mr Mpps  (runs: $(cut -d' ' -f1 /tmp/qpb-off | tr '\n' ' '))"
	awk -v a="$on_bw" -v b="$off_bw" -v c="$on_mr" -v d="$off_mr" \
		'BEGIN { printf "  ratio on/off: bandwidth %.3f, message rate %.3f\n", a / b, c / d }'
done
