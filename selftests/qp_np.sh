#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The DCQCN notification point (NP) of software RoCE (rocetune_np.c): real
# perftest traffic from rxe0 to rxe1 through netem, which marks 30% of the
# ECN-capable packets CE on va; with the NP of rxe1 on, each CE mark is
# answered with a CNP to the sending QP on rxe0.  The capture on vb is the
# oracle (rt_np.py): every CNP decoded by tshark and by the raw bytes,
# every field and the ICRC checked (computed independently, and checked on
# rxe's own ACKs first), the module's CNP count equal to the capture's,
# every CE mark accounted for, the per-QP counters equal to the capture
# (qp_lib.sh's compare), the minimum gap between two CNPs of a QP kept
# (bounded by the capture: see rt_np.py).
# With the NP off there is no CNP.  Destroying QPs and unloading the module
# under traffic with the NP on leave the kernel log clean.

ALL_TESTS="np_knobs np_off np_on np_gap np_teardown"

source "$(dirname "$0")/qp_lib.sh"

RT_NP="$RT_SELFTESTS/rt_np.py"
# ECN-capable traffic class (ECT(0)): netem marks it CE instead of dropping.
TCLASS=106

rt_np() {
	python3 "$RT_NP" "$@"
}

qp_test_cleanup() {
	tc qdisc del dev "$RT_NETDEV0" root 2> /dev/null
	tc qdisc del dev "$RT_NETDEV1" clsact 2> /dev/null
}

# np_marking: netem on va marks 30% of the ECN-capable RoCEv2 packets CE
# (and would drop 30% of the others); only UDP to port 4791 goes through
# it, so that perftest's TCP connection (whose SYN is never ECN-capable)
# is not dropped.  Everything else takes the first band of a prio qdisc.
np_marking() {
	tc qdisc add dev "$RT_NETDEV0" root handle 1: prio bands 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		tc qdisc add dev "$RT_NETDEV0" parent 1:2 handle 20: \
			netem loss 30% ecn &&
		tc filter add dev "$RT_NETDEV0" parent 1: protocol ip prio 1 \
			u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
			flowid 1:2
}

# np_traffic NAME QPS ITERS: ib_write_bw from rxe0 to rxe1 through the
# CE-marking netem, captured.
np_traffic() {
	local name=$1 q=$2 n=$3 rc

	np_marking || return 1
	run_pair "$name" \
		"ib_write_bw -F -d $RT_RXE1 -x $G1 -p $PORT -q $q -s 4096 -n $n --tclass=$TCLASS" \
		"ib_write_bw -F -d $RT_RXE0 -x $G0 -p $PORT -q $q -s 4096 -n $n --tclass=$TCLASS $RT_IP1"
	rc=$?
	tc qdisc del dev "$RT_NETDEV0" root || rc=1
	return "$rc"
}

# np_check NAME [rt_np.py options]: the capture of NAME against the module.
np_check() {
	local name=$1

	shift
	rt_np check --pcap "$OUT/$name-vb.pcap" --tx0-pcap "$OUT/$name-tx0.pcap" \
		--ip0 "$RT_IP0" --ip1 "$RT_IP1" \
		--dev1 "$RT_RXE1" --stats "$OUT/$name-stats.json" \
		--dump "$OUT/$name-dump.json" "$@"
}

np_knobs() {
	local out

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	out=$("$RT_CLI" -j qp stats dev "$RT_RXE1")
	check_err $? "qp stats failed"
	jq -e '.[0] | .np == false and .np_min_cnp_gap_us == 4 and
		.np_cnp_dscp == 48 and .np_cnp_prio == 6 and
		.np_cnp_sent == 0 and .np_cnp_failed == 0 and
		.np_ce_coalesced == 0 and .np_ce_no_cnp == 0' <<< "$out" > /dev/null
	check_err $? "defaults: $out"
	out=$("$RT_CLI" qp set dev "$RT_RXE1" np-min-cnp-gap-us 1000001 2>&1)
	[ $? = 1 ] && grep -q "valid range 0..1000000" <<< "$out"
	check_err $? "gap above 1 s: \"$out\""
	out=$("$RT_CLI" qp set dev "$RT_RXE1" np-cnp-dscp 64 2>&1)
	[ $? = 1 ] && grep -q "valid range 0..63" <<< "$out"
	check_err $? "DSCP 64: \"$out\""
	out=$("$RT_CLI" qp set dev "$RT_RXE1" np-cnp-prio 8 2>&1)
	[ $? = 1 ] && grep -q "valid range 0..7" <<< "$out"
	check_err $? "priority 8: \"$out\""
	out=$("$RT_CLI" qp set np on 2>&1)
	[ $? = 2 ] && grep -q '"np" needs "dev DEV"' <<< "$out"
	check_err $? "np without a device: \"$out\""
	out=$("$RT_CLI" qp set np-cnp-dscp 46 2>&1)
	[ $? = 2 ] && grep -q '"np-cnp-dscp" needs "dev DEV"' <<< "$out"
	check_err $? "np-cnp-dscp without a device: \"$out\""
	"$RT_CLI" qp set dev "$RT_RXE1" accounting off
	check_err $? "accounting off failed"
	out=$("$RT_CLI" qp set dev "$RT_RXE1" np on 2>&1)
	[ $? = 1 ] && grep -q "needs the device's QP accounting on" <<< "$out"
	check_err $? "np on without accounting: \"$out\""
	"$RT_CLI" qp set dev "$RT_RXE1" accounting on np on np-min-cnp-gap-us 77
	check_err $? "accounting and np on in one request failed"
	out=$("$RT_CLI" qp stats dev "$RT_RXE1")
	grep -q "np yes np-min-cnp-gap-us 77 np-cnp-dscp 48 np-cnp-prio 6 np-cnp-sent 0" <<< "$out"
	check_err $? "text output: \"$out\""
	"$RT_CLI" qp set dev "$RT_RXE1" accounting off
	check_err $? "accounting off failed"
	[ "$(qp_stat "$RT_RXE1" qp_np_enable)" = 0 ]
	check_err $? "accounting off left the NP on"
	log_test "np knobs: default off, gap 4 us; refusals explained; off with accounting"
}

np_off() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	np_traffic off 2 200
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/off-client.log")"
	compare off
	check_err $? "per-QP counters differ from the capture"
	np_check off --expect-none
	check_err $? "CNPs with the NP off"
	log_test "NP off: CE marks, no CNP"
}

np_on() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0
	check_err $? "np on failed"
	np_traffic on 2 300
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/on-client.log")"
	compare on
	check_err $? "per-QP counters (tx_cnp_pkts, rx_cnp_pkts, ...) differ from the capture"
	np_check on
	check_err $? "the CNPs differ from what the capture shows"
	log_test "NP on, gap 0: one CNP per CE mark, every field and ICRC right, counted exactly"
}

# np_prio_count: the packets vb sent with priority 5, by tc's own count (a
# basic meta(priority) filter on vb's egress; its action's "Sent B bytes P
# pkt").  The text output: tc's JSON of an ematch is not valid JSON.
np_prio_count() {
	tc -s filter show dev "$RT_NETDEV1" egress |
		awk '/Sent [0-9]+ bytes [0-9]+ pkt/ { n++; p = $4 }
			END { if (n != 1) exit 1; print p }'
}

# With a gap of 1000 us, and the CNPs' DSCP 46 and priority 5 (not the
# defaults): the capture shows DSCP 46 in every CNP, and tc counts as many
# packets of priority 5 leaving vb as the module sent CNPs.
np_gap() {
	local prio sent

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 1000 \
		np-cnp-dscp 46 np-cnp-prio 5
	check_err $? "np on failed"
	tc qdisc add dev "$RT_NETDEV1" clsact &&
		tc filter add dev "$RT_NETDEV1" egress prio 1 protocol ip \
			basic match 'meta(priority eq 5)' action pass
	check_err $? "cannot count vb's packets of priority 5"
	np_traffic gap 1 2000
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/gap-client.log")"
	prio=$(np_prio_count)
	check_err $? "no count of tc's filter"
	tc qdisc del dev "$RT_NETDEV1" clsact
	compare gap
	check_err $? "per-QP counters differ from the capture"
	np_check gap --gap-us 1000 --cnp-dscp 46
	check_err $? "the CNPs differ from what the capture shows"
	sent=$(jq '.[] | select(.dev_name == "'"$RT_RXE1"'") | .qp_np_cnp_sent' \
		"$OUT/gap-stats.json")
	echo "# packets of priority 5 leaving $RT_NETDEV1 (tc): $prio; CNPs sent: $sent"
	[ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$prio" = "$sent" ]
	check_err $? "tc counted $prio packets of priority 5, the module sent $sent CNPs"
	log_test "NP on, gap 1000 us, DSCP 46, priority 5: no CNP of a QP sooner than 1000 us after the CE mark behind its previous one; every CNP with its DSCP and priority"
}

np_teardown() {
	local spid cpid pos bad

	RET=0
	pos=$(rt_dmesg_pos)
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0 &&
		"$RT_CLI" qp set dev "$RT_RXE0" np on np-min-cnp-gap-us 0
	check_err $? "np on failed"
	np_marking
	check_err $? "cannot add the CE marking"

	# 1: the client's QPs are destroyed under traffic (SIGKILL).
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -q 2 -D 20 -s 4096 \
		--tclass="$TCLASS" > "$OUT/down-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -q 2 -D 20 -s 4096 \
		--tclass="$TCLASS" "$RT_IP1" > "$OUT/down-client.log" 2>&1 &
	cpid=$!
	wait_for 30 np_sent_some
	check_err $? "no CNP sent before the kill"
	# The shell's "Killed" notes are no news here.
	kill -KILL "$cpid"
	wait "$cpid" 2> /dev/null
	kill -KILL "$spid"
	wait "$spid" 2> /dev/null
	echo "# killed under traffic, $RT_RXE1:$("$RT_CLI" qp stats dev "$RT_RXE1" | grep -m1 ' np ')"

	# 2: the module goes away under traffic.
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -q 2 -D 6 -s 4096 \
		--tclass="$TCLASS" > "$OUT/unl-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -q 2 -D 6 -s 4096 \
		--tclass="$TCLASS" "$RT_IP1" > "$OUT/unl-client.log" 2>&1 &
	cpid=$!
	wait_for 30 np_sent_some
	check_err $? "no CNP sent before the rmmod"
	rt_kmod_unload
	check_err $? "rmmod under traffic failed"
	wait "$cpid"
	check_err $? "the traffic failed across the rmmod: $(tail -n 1 "$OUT/unl-client.log")"
	wait "$spid"
	tc qdisc del dev "$RT_NETDEV0" root
	bad=$(rt_dmesg_bad "$pos")
	[ -z "$bad" ]
	check_err $? "kernel log: $(head -n 3 <<< "$bad" | tr '\n' ' ')"
	log_test "NP on: QPs killed and rmmod under traffic, kernel log clean"
}

# np_sent_some: rxe1's NP has sent a CNP since the module was loaded.
np_sent_some() {
	[ "$(qp_stat "$RT_RXE1" qp_np_cnp_sent)" -gt 0 ] 2> /dev/null
}

qp_main
