#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP accounting dumps: top-K, the change since a top-K sample and delta
# dumps (QPs changed since a generation).  The QPs are real but idle: RC
# QPs of ibv_rc_pingpong servers on rxe1 waiting for a client.  Their
# packets are injected (rt_qp.py inject: a BTH naming the QP, which rxe
# drops and the module counts), so that each QP gets an exact number.

ALL_TESTS="top_k_and_delta top_k_since_sample"

source "$(dirname "$0")/qp_lib.sh"

IDLE_PIDS=()
IDLE_QPNS=()

# idle_start N: N ibv_rc_pingpong servers on rxe1, each holding an RC QP
# and waiting for its client; their QP numbers go to IDLE_QPNS, ascending.
idle_start() {
	local i p

	for ((i = 0; i < $1; i++)); do
		p=$((PORT + 10 + i))
		ibv_rc_pingpong -d "$RT_RXE1" -g "$G1" -p "$p" > /dev/null 2>&1 &
		IDLE_PIDS+=($!)
		wait_for 10 rt_port_listening "$p" || return 1
	done
	mapfile -t IDLE_QPNS < <(rdma -j res show qp |
		jq -r ".[] | select(.ifname == \"$RT_RXE1\" and .comm == \"ibv_rc_pingpong\") | .lqpn" |
		sort -n)
	[ "${#IDLE_QPNS[@]}" = "$1" ]
}

idle_stop() {
	[ "${#IDLE_PIDS[@]}" = 0 ] && return
	kill "${IDLE_PIDS[@]}" 2> /dev/null
	wait "${IDLE_PIDS[@]}" 2> /dev/null
	IDLE_PIDS=()
	IDLE_QPNS=()
}

# inject QPN COUNT: COUNT packets from rxe0's address to rxe1's QP QPN.
inject() {
	rt_qp inject --src "$RT_IP0" --dst "$RT_IP1" --qpn "$1" --count "$2"
}

# top_qpns JSON: "QPN:DELTA ..." of a top-K dump, in rank order.
top_qpns() {
	jq -r '[.[] | "\(.qpn):\(.top_delta // "-")"] | join(" ")' <<< "$1"
}

top_k_and_delta() {
	local a b c top gen n

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 3
	check_err $? "cannot start 3 idle ibv_rc_pingpong servers (QPs: ${IDLE_QPNS[*]})"
	a=${IDLE_QPNS[0]} b=${IDLE_QPNS[1]} c=${IDLE_QPNS[2]}
	inject "$a" 2 && inject "$b" 7 && inject "$c" 4
	check_err $? "the injection failed"
	top=$(rt_qp dump --dev "$RT_RXE1" --top-k 2 --top-by rx_pkts)
	echo "# top-2 by rx_pkts: $(jq -c '[.[] | [.qpn, .rx_pkts]]' <<< "$top")"
	[ "$(jq -c '[.[] | [.qpn, .rx_pkts]]' <<< "$top")" = "[[$b,7],[$c,4]]" ]
	check_err $? "top-2 is not $b (7 packets) then $c (4)"
	gen=$(jq -e '.[0].gen' <<< "$top")
	check_err $? "no generation in the top-K dump"
	n=$(rt_qp dump --since "$gen" | jq length)
	[ "$n" = 0 ]
	check_err $? "$n QPs changed since generation $gen without traffic"
	inject "$a" 1
	check_err $? "the injection failed"
	n=$(rt_qp dump --since "$gen" | jq -c '[.[].qpn]')
	[ "$n" = "[$a]" ]
	check_err $? "changed since generation $gen: $n, expected [$a]"
	idle_stop
	log_test "top-K and delta dumps: the 2 busiest of 3 QPs, then only the one that changed"
}

top_k_since_sample() {
	local x y s s2 top out rc dir

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 2
	check_err $? "cannot start 2 idle ibv_rc_pingpong servers (QPs: ${IDLE_QPNS[*]})"
	x=${IDLE_QPNS[0]} y=${IDLE_QPNS[1]}
	# X gets 10, then a top-K dump takes sample S; then X gets 3 more
	# and Y 5.  By totals X (13) leads; since S, Y (5) leads X (3).
	inject "$x" 10
	check_err $? "the injection failed"
	s=$(rt_qp dump --top-k 2 --top-by rx_pkts | jq -e '.[0].gen')
	check_err $? "no sample generation from a top-K dump"
	inject "$x" 3 && inject "$y" 5
	check_err $? "the injection failed"
	top=$(rt_qp dump --dev "$RT_RXE1" --qpn-from "$x" --top-k 2 \
		--top-by rx_pkts)
	echo "# totals: $(top_qpns "$top")"
	[ "$(top_qpns "$top")" = "$x:- $y:-" ]
	check_err $? "by totals, expected $x then $y"
	# That dump took a new sample: S is no longer held.
	out=$("$RT_CLI" qp show top 2 by rx_pkts since "$s" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && grep -q "sample not held" <<< "$out"
	check_err $? "a replaced sample: exit $rc, \"$out\""
	# Sample again; the change since it, through the CLI's "changed".
	dir=$(mktemp -d)
	XDG_RUNTIME_DIR=$dir "$RT_CLI" -j qp show dev "$RT_RXE1" top 2 \
		by rx_pkts changed > /dev/null
	s2=$(cat "$dir/rocetune-qp-top-gen")
	check_err $? "\"changed\" kept no sample generation"
	inject "$x" 3 && inject "$y" 5
	check_err $? "the injection failed"
	top=$(XDG_RUNTIME_DIR=$dir "$RT_CLI" -j qp show dev "$RT_RXE1" top 2 \
		by rx_pkts changed)
	echo "# since sample $s2: $(top_qpns "$top")"
	[ "$(top_qpns "$top")" = "$y:5 $x:3" ]
	check_err $? "since the sample, expected $y:5 then $x:3"
	[ "$(cat "$dir/rocetune-qp-top-gen")" -gt "$s2" ]
	check_err $? "\"changed\" did not keep the new sample's generation"
	rm -rf "$dir"
	idle_stop
	log_test "top-K since a sample: ranked by the change (Y 5 over X 3), not the totals"
}

qp_test_cleanup() {
	idle_stop
}

rt_require_cmd rdma
qp_main
