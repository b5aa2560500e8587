#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP accounting dumps: top-K, the change since a top-K sample and delta
# dumps (QPs changed since a generation).  The QPs are real but idle: RC
# QPs of ibv_rc_pingpong servers on rxe1 waiting for a client.  Their
# packets are injected (rt_qp.py inject: a BTH naming the QP, which rxe
# drops and the module counts), so that each QP gets an exact number.
# Also who is told a QP's owner: only callers with CAP_NET_ADMIN, as their
# PID namespace sees it.

ALL_TESTS="top_k_and_delta top_k_since_sample owners_per_reader"

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

# genl_as WHO ARGS...: rt_genl.py as root (root), user 65534 (nobody), root
# of new user and network namespaces (userns) or of a new PID namespace
# (pidns).
genl_as() {
	local who=$1 udir

	shift
	case $who in
	root) python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	userns) unshare -Urn python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	pidns) unshare -pf python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	nobody)
		# A copy that the user can read: the tree may not be.
		udir=$(mktemp -d)
		mkdir -p "$udir/selftests" "$udir/kmod/include/uapi/linux"
		cp "$RT_SELFTESTS/rt_genl.py" "$udir/selftests/"
		cp "$RT_TOP/kmod/include/uapi/linux/rocetune.h" \
			"$udir/kmod/include/uapi/linux/"
		chmod -R a+rX "$udir"
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all \
			python3 "$udir/selftests/rt_genl.py" "$@"
		rm -rf "$udir"
		;;
	esac
}

owners_per_reader() {
	local q pid got who out

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 1
	check_err $? "cannot start an idle ibv_rc_pingpong server"
	q=${IDLE_QPNS[0]} pid=${IDLE_PIDS[0]}
	got=$(rt_qp dump --dev "$RT_RXE1" |
		jq -c ".[] | select(.qpn == $q) | [.pid, .comm]")
	[ "$got" = "[$pid,\"ibv_rc_pingpong\"]" ]
	check_err $? "owner of qpn $q for root: $got, expected [$pid,\"ibv_rc_pingpong\"]"
	for who in nobody userns pidns; do
		out=$(genl_as "$who" req qp_get "DEV_NAME:str:$RT_RXE1" \
			"QPN:u32:$q" --attrs)
		echo "# $who: $(jq -c '.attrs[0] // [] | map(select(startswith("QP.P") or startswith("QP.C")))' <<< "$out")"
		jq -e '.errno == 0 and (.attrs[0] | index("QP.QPN")) and
			(.attrs[0] | index("QP.PID") | not) and
			(.attrs[0] | index("QP.COMM") | not)' <<< "$out" > /dev/null
		check_err $? "$who: $out"
	done
	idle_stop
	log_test "a QP's owner: to root its PID and command, to user 65534, user-namespace root and a PID namespace that cannot see it nothing"
}

qp_test_cleanup() {
	idle_stop
}

rt_require_cmd rdma
qp_main
