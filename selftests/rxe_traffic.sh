#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real RDMA traffic crosses the Soft-RoCE wire while rocetune.ko is loaded:
# an RC ping-pong between rxe0 and rxe1 completes, the packets are seen on
# the veth wire and in rxe's own port counters, and the module unloads
# cleanly afterwards.

ALL_TESTS="rc_pingpong counters_grew unload_after_traffic"

source "$(dirname "$0")/lib.sh"

ITERS=100
PORT=18515

rxe_counter() {
	rdma -j statistic show link "$1/1" |
		jq -r ".[0].$2 // empty"
}

rc_pingpong() {
	local g0 g1 spid cpid rc

	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	sent0=$(rxe_counter "$RT_RXE0" sent_pkts)
	rcvd1=$(rxe_counter "$RT_RXE1" rcvd_pkts)
	g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")

	ibv_rc_pingpong -d "$RT_RXE1" -g "$g1" -p "$PORT" -n "$ITERS" \
		-s 64 > /tmp/rc_server.log 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ping-pong server did not listen"
	timeout 60 ibv_rc_pingpong -d "$RT_RXE0" -g "$g0" -p "$PORT" \
		-n "$ITERS" -s 64 "$RT_IP1" > /tmp/rc_client.log 2>&1 &
	cpid=$!
	wait "$cpid"
	rc=$?
	check_err "$rc" "the ping-pong client failed: $(tail -n 1 /tmp/rc_client.log)"
	timeout 10 tail --pid="$spid" -f /dev/null
	wait "$spid"
	check_err $? "the ping-pong server failed: $(tail -n 1 /tmp/rc_server.log)"
	grep -q "$ITERS iters" /tmp/rc_client.log
	check_err $? "the client did not report $ITERS iterations"
	sed 's/^/# /' /tmp/rc_client.log
	log_test "ibv_rc_pingpong: $ITERS round trips from $RT_RXE0 to $RT_RXE1"
}

counters_grew() {
	local sent rcvd

	RET=0
	sent=$(rxe_counter "$RT_RXE0" sent_pkts)
	rcvd=$(rxe_counter "$RT_RXE1" rcvd_pkts)
	# Each round trip is at least one SEND in each direction.
	[ -n "$sent" ] && [ $((sent - sent0)) -ge "$ITERS" ]
	check_err $? "$RT_RXE0 sent_pkts grew by $((sent - sent0)), expected >= $ITERS"
	[ -n "$rcvd" ] && [ $((rcvd - rcvd1)) -ge "$ITERS" ]
	check_err $? "$RT_RXE1 rcvd_pkts grew by $((rcvd - rcvd1)), expected >= $ITERS"
	log_test "rxe port counters show the traffic (sent $((sent - sent0)), received $((rcvd - rcvd1)))"
}

unload_after_traffic() {
	RET=0
	rt_kmod_unload
	check_err $? "rmmod failed after traffic"
	log_test "rocetune.ko unloads after traffic"
}

cleanup() {
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd rdma ip ibv_rc_pingpong jq ss
trap cleanup EXIT
rt_run_tests
