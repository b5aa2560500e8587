#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Round trips of QPs (rocetune_rtt.c): ibv_rc_pingpong between rxe0
# (client) and rxe1 (server), 3000 messages each way, one packet each, so
# that every message is a request with AckReq and its ACK.  Each end's
# netdev is captured in both directions with nanosecond stamps; rt_rtt.py
# measures the round trips of each side's QP in the captures and checks
# the module's count and window (p50, p99 and the jitter's) against them.
# A QP that sent no request with AckReq reports no round trip at all.

ALL_TESTS="rtt_pingpong rtt_none_without_ackreq"

source "$(dirname "$0")/qp_lib.sh"

RT_RTT="$RT_SELFTESTS/rt_rtt.py"
# Enough that the first ones, before the module knows where the QPs send
# (they are not measured), are few.
ITERS=3000

rt_rtt() {
	python3 "$RT_RTT" "$@"
}

qp_test_cleanup() {
	[ -z "${RTT_CAPS[*]}" ] || kill "${RTT_CAPS[@]}" 2> /dev/null
}

RTT_CAPS=()

# rtt_cap_start NETDEV: capture NETDEV's RoCEv2 packets, both directions,
# with nanosecond stamps, to CAP/rtt-NETDEV.pcap.
rtt_cap_start() {
	tcpdump -i "$1" --time-stamp-precision=nano -s 96 -B 65536 \
		-w "$CAP/rtt-$1.pcap" "$CAP_FILTER" > "$OUT/rtt-$1.log" 2>&1 &
	RTT_CAPS+=($!)
	wait_for 60 grep -q "listening on" "$OUT/rtt-$1.log"
}

rtt_cap_stop() {
	local f rc=0

	sleep 1
	kill -INT "${RTT_CAPS[@]}" 2> /dev/null
	wait "${RTT_CAPS[@]}" 2> /dev/null
	RTT_CAPS=()
	cp "$CAP/rtt-$RT_NETDEV0.pcap" "$CAP/rtt-$RT_NETDEV1.pcap" "$OUT/"
	for f in "$OUT/rtt-$RT_NETDEV0.log" "$OUT/rtt-$RT_NETDEV1.log"; do
		grep -q '^0 packets dropped by kernel' "$f" ||
			{ echo "# capture incomplete: $(tr '\n' ' ' < "$f")"; rc=1; }
	done
	return "$rc"
}

# rtt_qpn LOG: the local and remote QP numbers of an ibv_rc_pingpong, as
# it printed them ("  local address:  LID 0x0000, QPN 0x000011, ...").
rtt_qpn() {
	local l r

	l=$(sed -n 's/.*local address: .*QPN \(0x[0-9a-f]*\),.*/\1/p' "$1")
	r=$(sed -n 's/.*remote address: .*QPN \(0x[0-9a-f]*\),.*/\1/p' "$1")
	[ -n "$l" ] && [ -n "$r" ] && echo "$((l)) $((r))"
}

rtt_pingpong() {
	local spid cpid q0 q1 r0 r1

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	mkdir -p "$CAP"
	rtt_cap_start "$RT_NETDEV0" && rtt_cap_start "$RT_NETDEV1"
	check_err $? "cannot start the captures"
	ibv_rc_pingpong -d "$RT_RXE1" -g "$G1" -p "$PORT" -s 64 -n "$ITERS" \
		> "$OUT/rtt-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ibv_rc_pingpong server does not listen"
	ibv_rc_pingpong -d "$RT_RXE0" -g "$G0" -p "$PORT" -s 64 -n "$ITERS" \
		"$RT_IP1" > "$OUT/rtt-client.log" 2>&1 &
	cpid=$!
	wait "$cpid"
	check_err $? "the client failed: $(tail -n 1 "$OUT/rtt-client.log")"
	wait "$spid"
	check_err $? "the server failed: $(tail -n 1 "$OUT/rtt-server.log")"
	rtt_cap_stop
	check_err $? "the captures are incomplete"
	# The entries of the destroyed QPs linger (LINGER_MS).
	"$RT_CLI" -j qp show > "$OUT/rtt-dump.json"
	check_err $? "qp show failed"
	read -r q0 r0 < <(rtt_qpn "$OUT/rtt-client.log")
	read -r q1 r1 < <(rtt_qpn "$OUT/rtt-server.log")
	[ -n "$q0" ] && [ -n "$q1" ] && [ "$q0" = "$r1" ] && [ "$q1" = "$r0" ]
	check_err $? "the QP numbers ibv_rc_pingpong printed do not pair up"
	echo "# rxe0 QP $q0 (peer $r0), rxe1 QP $q1 (peer $r1)"
	rt_rtt check --pcap "$CAP/rtt-$RT_NETDEV0.pcap" \
		--peer-pcap "$CAP/rtt-$RT_NETDEV1.pcap" --ip "$RT_IP0" \
		--peer "$RT_IP1" --dev "$RT_RXE0" --qpn "$q0" --rqpn "$r0" \
		--dump "$OUT/rtt-dump.json"
	check_err $? "rxe0's round trips differ from the capture on $RT_NETDEV0"
	rt_rtt check --pcap "$CAP/rtt-$RT_NETDEV1.pcap" \
		--peer-pcap "$CAP/rtt-$RT_NETDEV0.pcap" --ip "$RT_IP1" \
		--peer "$RT_IP0" --dev "$RT_RXE1" --qpn "$q1" --rqpn "$r1" \
		--dump "$OUT/rtt-dump.json"
	check_err $? "rxe1's round trips differ from the capture on $RT_NETDEV1"
	log_test "ibv_rc_pingpong: each QP's round trips and jitter (p50, p99 of the last 64) equal the capture's"
}

rtt_known() {
	"$RT_CLI" -j qp show dev "$RT_RXE1" qpn "$1" |
		jq -e 'length == 1' > /dev/null
}

# An idle QP sends nothing: no round trip, no RTT attribute.
rtt_none_without_ackreq() {
	local pid q out

	RET=0
	ibv_rc_pingpong -d "$RT_RXE1" -g "$G1" -p $((PORT + 1)) \
		> /dev/null 2>&1 &
	pid=$!
	wait_for 10 rt_port_listening $((PORT + 1))
	check_err $? "the idle server does not listen"
	q=$(rdma -j res show qp link "$RT_RXE1" |
		jq -e ".[] | select(.pid == $pid) | .lqpn")
	check_err $? "rdma does not show the idle QP"
	wait_for 10 rtt_known "$q"
	check_err $? "the module has no entry for the idle QP"
	out=$("$RT_CLI" -j qp show dev "$RT_RXE1" qpn "$q")
	jq -e '.[0] | has("rtt_samples") | not' <<< "$out" > /dev/null
	check_err $? "an idle QP reports round trips: $out"
	kill "$pid"
	wait "$pid" 2> /dev/null
	log_test "an idle QP reports no round trip"
}

qp_main
