#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP accounting of software RoCE (rxe) under more traffic patterns:
# RC QPs set up by the RDMA CM (rping, librdmacm), and CE marks applied by
# a RED qdisc with ECN at a rate-limited egress.  As in qp_accounting.sh,
# every counter of every QP of both devices must equal what the captures
# count for that QP (see qp_lib.sh for the captures).
#
# The RDMA CM connects through MADs (REQ, REP, RTU, DREQ, DREP) that rxe
# sends and receives on QP1, the GSI QP: UD packets to UDP port 4791 with
# BTH destination QP 1 and DETH source QP 1.  Both sides treat them like
# any UD traffic: the module counts them on an entry of its own (qpn 1,
# type IB_QPT_GSI, learned from the packets and verified as the special
# QP "1 | port << 24"), rt_qp.py counts them for QP 1 from the BTH and the
# DETH.  So QP1 is compared exactly like the data QPs, and the test
# checks that it carried the CM's handshake on both devices.

ALL_TESTS="rping_cm red_ecn rping_tos_red"

source "$(dirname "$0")/qp_lib.sh"

RPING_N=20
RPING_SIZE=4000
IB_QPT_RC=2
IB_QPT_GSI=1
CFS=/sys/kernel/config/rdma_cm

# rping_listening: the rping server's CM ID listens on rxe1's address.
# rping listens through the RDMA CM (its own port space), not TCP, so the
# RDMA core's resource tracking is asked.
rping_listening() {
	rdma res show cm_id 2> /dev/null | grep -E \
		"state LISTEN .*src-addr ${RT_IP1//./\\.}:$PORT( |$)" > /dev/null
}

# run_rping NAME SIZE COUNT: an rping server on rxe1's address, a client
# bound to rxe0's address, captured.  rping's server reports an error when
# the client disconnects, so it passes when it printed every ping.
run_rping() {
	local name=$1 size=$2 count=$3 spid cpid rc n

	cap_start "$name" || return 1
	rping -s -a "$RT_IP1" -p "$PORT" -C "$count" -S "$size" -v \
		> "$OUT/$name-server.log" 2>&1 &
	spid=$!
	if ! wait_for 20 rping_listening; then
		rdma res show cm_id > "$OUT/$name-cm_id.txt" 2>&1
		echo "# the rping server does not listen"
		kill "$spid"
		wait "$spid"
		cap_stop
		return 1
	fi
	timeout 120 rping -c -I "$RT_IP0" -a "$RT_IP1" -p "$PORT" -C "$count" \
		-S "$size" -V -v > "$OUT/$name-client.log" 2>&1 &
	cpid=$!
	wait "$cpid"
	rc=$?
	timeout 20 tail --pid="$spid" -f /dev/null
	kill "$spid" 2> /dev/null
	wait "$spid"
	echo "# rping server exit $?, client exit $rc"
	[ "$rc" = 0 ] ||
		echo "# client: $(tail -n 2 "$OUT/$name-client.log" | tr '\n' ' ')"
	n=$(grep -c 'ping data' "$OUT/$name-server.log")
	if [ "$n" -ne "$count" ]; then
		echo "# the server printed $n of $count pings: $(tail -n 2 \
			"$OUT/$name-server.log" | tr '\n' ' ')"
		rc=1
	fi
	cap_stop || rc=1
	return "$rc"
}

# qp_of NAME DEV TYPE: the QP numbers of DEV's entries of TYPE in NAME's
# dump that received packets.
qp_of() {
	jq -r --arg d "$2" --argjson t "$3" \
		'[.[] | select(.dev == $d and .type == $t and .rx_pkts > 0) |
		  .qpn] | map(tostring) | join(" ")' "$OUT/$1-dump.json"
}

# check_rping NAME: the checks common to the rping tests, after compare.
check_rping() {
	local name=$1 d q n

	[ "$(unattributed "$name")" = 0 ]
	check_err $? "$(unattributed "$name") packets were not attributed"
	for d in "$RT_RXE0" "$RT_RXE1"; do
		q=$(qp_of "$name" "$d" "$IB_QPT_RC")
		echo "# $d: RC QP(s) of rping: ${q:-none}"
		[ -n "$q" ] && [ "${q// /}" = "$q" ]
		check_err $? "$d: expected one RC QP with traffic, got '${q}'"
		jq -e --arg d "$d" --argjson q "${q:-0}" \
			'[.[] | select(.dev == $d and .qpn == $q and
			  .comm == "rping")] | length == 1' \
			"$OUT/$name-dump.json" > /dev/null
		check_err $? "$d: QP ${q:-?} is not rping's"
		# The CM's MADs on QP1: at least REQ/REP/RTU and a disconnect.
		n=$(jq --arg d "$d" '[.[] | select(.dev == $d and .qpn == 1) |
			.rx_pkts + .tx_pkts] | add // 0' "$OUT/$name-dump.json")
		echo "# $d: QP1 (GSI, CM MADs): $n packets," \
			"type $(jq --arg d "$d" '[.[] | select(.dev == $d and
			.qpn == 1)][0].type' "$OUT/$name-dump.json")"
		[ "$n" -ge 2 ]
		check_err $? "$d: QP1 carried $n MADs"
	done
	q=$(qp_of "$name" "$RT_RXE0" "$IB_QPT_GSI")
	[ "$q" = 1 ]
	check_err $? "rxe0's GSI entry is '$q', not QP 1"
	# The CM's connection as the module learned it: each RC QP names
	# the other as its remote QP, and what one sent the other received.
	n=$(jq --arg d0 "$RT_RXE0" --arg d1 "$RT_RXE1" --argjson t "$IB_QPT_RC" \
		'. as $all | [$all[] | select(.dev == $d0 and .type == $t and
		  .rx_pkts > 0) as $a | $all[] | select(.dev == $d1 and
		  .qpn == $a.remote_qpn and .remote_qpn == $a.qpn and
		  .rx_pkts == $a.tx_pkts and .tx_pkts == $a.rx_pkts)] | length' \
		"$OUT/$name-dump.json")
	[ "${n:-0}" -eq 1 ]
	check_err $? "rping's two QPs do not name each other as remote QP"
}

rping_cm() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	run_rping rping "$RPING_SIZE" "$RPING_N"
	check_err $? "rping failed"
	compare rping
	check_err $? "per-QP counters differ from the capture"
	check_rping rping
	log_test "rping (RDMA CM) $RPING_N x $RPING_SIZE B: every QP counter, QP1's MADs included, equals the capture"
}

# red_on RATE MIN MAX: a rate-limited egress on va whose queue is RED with
# ECN marking (no hard drop: ECT packets above max are marked).
red_on() {
	tc qdisc add dev "$RT_NETDEV0" root handle 1: htb default 1 &&
		tc class add dev "$RT_NETDEV0" parent 1: classid 1:1 htb \
			rate "$1" &&
		tc qdisc add dev "$RT_NETDEV0" parent 1:1 handle 10: red \
			limit 1000000 min "$2" max "$3" avpkt 1000 \
			bandwidth "$1" probability 1 ecn
}

# red_marked NAME: packets the RED qdisc marked, from its statistics.
red_marked() {
	tc -s qdisc show dev "$RT_NETDEV0" > "$OUT/$1-qdisc.txt"
	sed -n 's/.*marked \([0-9]*\).*/\1/p' "$OUT/$1-qdisc.txt" | head -n 1
}

# check_ce NAME: CE marks were counted, as many as RED made.
check_ce() {
	local name=$1 marked=$2 ce ect

	ce=$(jq --arg d "$RT_RXE1" '[.[] | select(.dev == $d) |
		.rx_ecn_ce_pkts] | add' "$OUT/$name-dump.json")
	ect=$(jq --arg d "$RT_RXE0" '[.[] | select(.dev == $d) |
		.tx_ecn_ect_pkts] | add' "$OUT/$name-dump.json")
	echo "# rxe0 sent $ect ECN-capable packets, RED marked $marked," \
		"rxe1 received $ce CE"
	[ "${ce:-0}" -gt 0 ]
	check_err $? "no CE marks were counted"
	[ "${ce:-0}" = "${marked:-x}" ]
	check_err $? "rxe1 counted $ce CE packets, RED marked $marked"
}

red_ecn() {
	local marked

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# 5 mbit/s: well below what rxe reaches under emulation (~20), so a
	# queue of up to 16 x 4 KiB builds; an ACK timeout of ~1 s (-u 18)
	# outlasts it.
	red_on 5mbit 10000 30000
	check_err $? "cannot set up htb and red"
	run_pair red \
		"ib_write_bw -F -d $RT_RXE1 -x $G1 -p $PORT -s 4096 -n 200 -t 16 -u 18 --tclass=106" \
		"ib_write_bw -F -d $RT_RXE0 -x $G0 -p $PORT -s 4096 -n 200 -t 16 -u 18 --tclass=106 $RT_IP1"
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/red-client.log")"
	marked=$(red_marked red)
	tc qdisc del dev "$RT_NETDEV0" root
	compare red
	check_err $? "per-QP counters differ from the capture"
	[ "$(unattributed red)" = 0 ]
	check_err $? "$(unattributed red) packets were not attributed"
	check_ce red "$marked"
	log_test "ib_write_bw ECT(0) through htb 5mbit + red ecn: CE marks counted, every counter equals the capture"
}

rping_tos_red() {
	local marked

	RET=0
	# The only skip: a kernel built without the RDMA CM's configfs.
	rt_kernel_has CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS
	if [ $? = 1 ]; then
		log_skip "rping with ToS through red ecn" \
			"the kernel has no rdma_cm configfs (INFINIBAND_ADDR_TRANS_CONFIGFS)"
		return
	fi
	if ! { modprobe -q rdma_cm && [ -d "$CFS" ] && mkdir -p "$CFS/$RT_RXE0"; }; then
		check_err 1 "cannot make $CFS/$RT_RXE0"
		log_test "rping with ToS 106: the RDMA CM's default ToS"
		return
	fi
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# rping has no ToS option: the RDMA CM's default ToS of rxe0 makes
	# the client's route (and so the REQ, and the server's QP) ECT(0).
	echo 106 > "$CFS/$RT_RXE0/ports/1/default_roce_tos"
	check_err $? "cannot set default_roce_tos"
	red_on 5mbit 2000 8000
	check_err $? "cannot set up htb and red"
	run_rping rpingred 16384 "$RPING_N"
	check_err $? "rping failed"
	marked=$(red_marked rpingred)
	tc qdisc del dev "$RT_NETDEV0" root
	echo 0 > "$CFS/$RT_RXE0/ports/1/default_roce_tos"
	rmdir "$CFS/$RT_RXE0"
	compare rpingred
	check_err $? "per-QP counters differ from the capture"
	check_rping rpingred
	check_ce rpingred "$marked"
	log_test "rping with ToS 106 through htb 5mbit + red ecn: CE marks counted, every counter equals the capture"
}

rt_require_cmd rping rdma
qp_main
