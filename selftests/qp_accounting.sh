#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP congestion accounting of software RoCE (rxe), exactness: real
# traffic from rdma-core and perftest crosses the veth wire, captured with
# tcpdump; every counter of every QP must equal what the capture counts for
# that QP.  See qp_lib.sh for the captures.

ALL_TESTS="rc_pingpong send_bw_4qp_ce write_bw_loss ud_pingpong qps_kept_apart qp_prometheus qp_port_filter qpn_fresh"

source "$(dirname "$0")/qp_lib.sh"

rc_pingpong() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	run_pair rc \
		"ibv_rc_pingpong -d $RT_RXE1 -g $G1 -p $PORT -n 100 -s 64" \
		"ibv_rc_pingpong -d $RT_RXE0 -g $G0 -p $PORT -n 100 -s 64 $RT_IP1"
	check_err $? "ibv_rc_pingpong failed: $(tail -n 1 "$OUT/rc-client.log")"
	compare rc
	check_err $? "per-QP counters differ from the capture"
	[ "$(unattributed rc)" = 0 ]
	check_err $? "$(unattributed rc) packets were not attributed"
	log_test "ibv_rc_pingpong 100 x 64 B: every QP counter equals the capture"
}

send_bw_4qp_ce() {
	local n

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	tc qdisc add dev "$RT_NETDEV0" root netem loss 30% ecn
	check_err $? "cannot add netem"
	run_pair send4 \
		"ib_send_bw -F -d $RT_RXE1 -x $G1 -p $PORT -q 4 -s 4096 -n 100 --tclass=106" \
		"ib_send_bw -F -d $RT_RXE0 -x $G0 -p $PORT -q 4 -s 4096 -n 100 --tclass=106 $RT_IP1"
	check_err $? "ib_send_bw -q 4 failed: $(tail -n 1 "$OUT/send4-client.log")"
	tc qdisc del dev "$RT_NETDEV0" root
	compare send4
	check_err $? "per-QP counters differ from the capture"
	n=$(jq '[.[] | select(.dev == "rxe1") | .rx_ecn_ce_pkts] | add' \
		"$OUT/send4-dump.json")
	echo "# rxe1 received $n CE-marked packets"
	[ "${n:-0}" -gt 0 ]
	check_err $? "no CE marks were counted"
	log_test "ib_send_bw -q 4, ECT(0), netem CE marking: counters equal the capture"
}

write_bw_loss() {
	local n

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# Not ECN-capable: netem drops, rxe retransmits and NAKs.
	tc qdisc add dev "$RT_NETDEV0" root netem loss 3%
	check_err $? "cannot add netem"
	run_pair wloss \
		"ib_write_bw -F -d $RT_RXE1 -x $G1 -p $PORT -s 4096 -n 150 -u 10" \
		"ib_write_bw -F -d $RT_RXE0 -x $G0 -p $PORT -s 4096 -n 150 -u 10 $RT_IP1"
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/wloss-client.log")"
	tc qdisc del dev "$RT_NETDEV0" root
	compare wloss
	check_err $? "per-QP counters differ from the capture"
	n=$(jq '[.[] | .tx_retransmit_pkts] | add' "$OUT/wloss-dump.json")
	echo "# $n retransmitted packets, NAK(seq) received:" \
		"$(jq '[.[] | .rx_nak_seq_err] | add' "$OUT/wloss-dump.json")"
	[ "${n:-0}" -gt 0 ]
	check_err $? "no retransmission was counted"
	log_test "ib_write_bw with 3% loss: retransmits and NAKs equal the capture"
}

ud_pingpong() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	run_pair ud \
		"ibv_ud_pingpong -d $RT_RXE1 -g $G1 -p $PORT -n 50 -s 64" \
		"ibv_ud_pingpong -d $RT_RXE0 -g $G0 -p $PORT -n 50 -s 64 $RT_IP1"
	check_err $? "ibv_ud_pingpong failed: $(tail -n 1 "$OUT/ud-client.log")"
	compare ud
	check_err $? "per-QP counters differ from the capture"
	log_test "ibv_ud_pingpong: UD QPs counted exactly (sender from the DETH)"
}

qps_kept_apart() {
	local n

	RET=0
	# The 4-QP run: 4 QPs on each device, each with packets of its own,
	# and what each rxe0 QP sent is exactly what its peer on rxe1 got.
	n=$(jq '[.[] | select(.tx_pkts > 0)] | length' "$OUT/send4-dump.json")
	[ "$n" -eq 8 ]
	check_err $? "$n QPs sent packets in the 4-QP run, expected 8"
	n=$(jq '. as $all | [$all[] | select(.dev == "rxe0") as $a | $all[] |
		select(.dev == "rxe1" and .qpn == $a.remote_qpn and
		       .remote_qpn == $a.qpn and .rx_pkts == $a.tx_pkts and
		       .tx_pkts == $a.rx_pkts)] | length' "$OUT/send4-dump.json" \
		2> /dev/null)
	[ "${n:-0}" -eq 4 ]
	check_err $? "only ${n:-0} of 4 QP pairs agree between the two ends"
	log_test "ib_send_bw -q 4: 4 QP pairs kept apart, each pair consistent"
}

qp_prometheus() {
	local prom json n bad

	RET=0
	prom=$("$RT_CLI" -o prometheus qp show)
	check_err $? "qp show -o prometheus failed"
	if command -v promtool > /dev/null; then
		promtool check metrics <<< "$prom" > "$OUT/promtool.log" 2>&1
		check_err $? "promtool: $(tr '\n' ' ' < "$OUT/promtool.log")"
	fi
	# Every QP's rx_pkts and rx_ecn_ce_pkts as in the JSON output (these
	# few QPs are all within the top 20 that -o prometheus writes).
	json=$("$RT_CLI" -j qp show)
	n=$(jq length <<< "$json")
	bad=$(jq -r '.[] | "rocetune_qp_rx_pkts_total{device=\"\(.dev)\",\(
		if .port then "port=\"\(.port)\"," else "" end)qpn=\"\(.qpn)\",\(
		if .type then "type=\"\(.type)\"," else "" end)\(
		if .comm then "comm=\"\(.comm)\"," else "" end)} \(.rx_pkts)"' \
		<<< "$json" | sed 's/,}/}/' | grep -vxF -f <(grep '^rocetune_qp_rx_pkts_total' <<< "$prom"))
	[ "$n" -gt 0 ] && [ "$n" -le 20 ] && [ -z "$bad" ]
	check_err $? "$n QPs; not in the Prometheus output: $bad"
	[ "$(grep -c '^rocetune_qp_rx_ecn_ce_pkts_total' <<< "$prom")" = "$n" ]
	check_err $? "not one rx_ecn_ce_pkts sample per QP"
	log_test "qp show -o prometheus: one sample per QP and counter, equal to -j's ($n QPs)"
}

qp_port_filter() {
	local all p1 out rc

	RET=0
	all=$("$RT_CLI" -j qp show dev "$RT_RXE1")
	p1=$("$RT_CLI" -j qp show dev "$RT_RXE1/1")
	[ "$(jq length <<< "$all")" -gt 0 ] &&
		[ "$(jq -c '[.[].qpn]' <<< "$all")" = "$(jq -c '[.[].qpn]' <<< "$p1")" ] &&
		jq -e 'all(.port == 1)' <<< "$p1" > /dev/null
	check_err $? "dev $RT_RXE1/1 lists other QPs than dev $RT_RXE1, or other ports"
	out=$("$RT_CLI" qp show dev "$RT_RXE1/2" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && grep -q "RDMA device \"$RT_RXE1\" has no port 2" <<< "$out"
	check_err $? "port 2 of $RT_RXE1: exit $rc, \"$out\""
	log_test "qp show dev DEV/PORT: the port's QPs; a missing port is named"
}

qpn_fresh() {
	local q1 n u0 pend nent

	RET=0
	# A second run on the same device: the new QP starts from zero, even
	# while the old one lingers, and even if packets for its number came
	# before it existed (rxe numbers QPs in sequence: predict the next).
	# Such packets never make a table entry: they wait in one of the
	# device's pending entries until the verification, a tenth of a period
	# later, finds no QP of that number and counts them as unattributed.
	q1=$(jq -e -r '[.[] | select(.dev == "rxe1" and .rx_pkts > 0)][0].qpn' \
		"$OUT/ud-dump.json")
	check_err $? "no rxe1 QP with packets in the first ibv_ud_pingpong run"
	n=$((q1 + 1))
	u0=$(qp_stat "$RT_RXE1" qp_unattr_rx)
	check_err $? "no QP stats of $RT_RXE1"
	rt_qp inject --src "$RT_IP0" --dst "$RT_IP1" --qpn "$n" --count 7
	check_err $? "the injection failed"
	wait_for 10 qp_stat_is "$RT_RXE1" qp_unattr_rx $((u0 + 7))
	check_err $? "unattributed packets of $RT_RXE1: $(qp_stat "$RT_RXE1" qp_unattr_rx), expected $u0 + 7"
	pend=$(qp_stat "$RT_RXE1" qp_pending)
	nent=$(rt_qp dump --dev "$RT_RXE1" | jq "[.[] | select(.qpn == $n)] | length")
	echo "# qpn $n before it exists: $pend pending, $nent table entries"
	[ "$pend" = 0 ] && [ "$nent" = 0 ]
	check_err $? "packets for a QP number that does not exist: $pend pending, $nent entries"
	# 50 exchanges, as in ud_pingpong: a QP that lives shorter than the
	# verification takes to see it has no entry (qp-accounting.rst,
	# "Lifetime and limits"), and 10 were that short once on a loaded
	# host.
	run_pair ud2 \
		"ibv_ud_pingpong -d $RT_RXE1 -g $G1 -p $PORT -n 50 -s 64" \
		"ibv_ud_pingpong -d $RT_RXE0 -g $G0 -p $PORT -n 50 -s 64 $RT_IP1"
	check_err $? "second ibv_ud_pingpong failed"
	compare ud2 "$n"
	check_err $? "the new QPs' counters differ from the capture"
	jq -e "[.[] | select(.dev == \"rxe1\" and .qpn == $n and .comm == \"ibv_ud_pingpong\")] | length == 1" \
		"$OUT/ud2-dump.json" > /dev/null
	check_err $? "rxe1 qpn $n is not the new ibv_ud_pingpong QP"
	jq -e "[.[] | select(.qpn == $q1 and .dev == \"rxe1\")][0].destroyed_ns > 0" \
		"$OUT/ud2-dump.json" > /dev/null
	check_err $? "the first QP is not marked destroyed"
	log_test "a new QP (qpn $n) starts at zero; the 7 packets before it existed are unattributed; qpn $q1 lingers destroyed"
}

qp_main
