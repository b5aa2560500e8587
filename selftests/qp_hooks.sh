#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The netfilter hooks of per-QP accounting cost every packet of the host,
# so they are registered only while some device accounts: not at load, not
# for a hardware device, not after accounting was turned off on the last
# software RoCE device or the last one went away.  QP_STATS_GET says
# whether they are (qp_hooks), and the function tracer counts the calls of
# the IPv4 hook while UDP packets cross the loopback device.  Also: the
# module learns QPs without any kprobe (none registered): an idle QP that
# never sent a packet is listed with its owner within a verification
# period, and marked destroyed when its process ends.

ALL_TESTS="qps_learned_without_probes hooks_follow_accounting"

source "$(dirname "$0")/lib.sh"

RT_QP="$RT_SELFTESTS/rt_qp.py"
SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=9
TRACE=/sys/kernel/tracing

rt_qp() {
	python3 "$RT_QP" "$@"
}

# hooks: qp_hooks of QP_STATS_GET (the same for every device).
hooks() {
	rt_qp stats | jq -e -r '[.[].qp_hooks] | unique | if length == 1 then .[0] else "differ" end'
}

# hook_calls: calls of the IPv4 hook while 20 UDP packets to port 4791
# cross the loopback device (each passes LOCAL_OUT and LOCAL_IN).
hook_calls() {
	local n

	echo rt_nf_ipv4 > "$TRACE/set_ftrace_filter" &&
		echo function > "$TRACE/current_tracer" || return 1
	echo > "$TRACE/trace"
	echo 1 > "$TRACE/tracing_on"
	python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20):
    s.sendto(bytes(48), ("127.0.0.1", 4791))'
	echo 0 > "$TRACE/tracing_on"
	# Read before the tracer changes: that empties the buffer.
	n=$(grep -c rt_nf_ipv4 "$TRACE/trace")
	echo nop > "$TRACE/current_tracer"
	echo "${n:-0}"
}

# expect_hooks STATE CALLS WHAT: qp_hooks is STATE and the hook was called
# CALLS ("0" or "some") times.
expect_hooks() {
	local h c

	h=$(hooks)
	c=$(hook_calls)
	echo "# $3: qp_hooks $h, $c hook calls for 20 packets"
	if [ "$2" = some ]; then
		[ "$h" = "$1" ] && [ "$c" -gt 0 ]
	else
		[ "$h" = "$1" ] && [ "$c" = "$2" ]
	fi
	check_err $? "$3: qp_hooks $h, $c calls"
}

# idle_qp FILTER: jq FILTER of the ibv_rc_pingpong QP of rxe1 (fails if none).
idle_qp() {
	rt_qp dump --dev "$RT_RXE1" |
		jq -e -r "[.[] | select(.comm == \"ibv_rc_pingpong\")] | if length == 1 then .[0] | $1 else error(\"none\") end"
}

idle_qp_destroyed() {
	[ "$(idle_qp .destroyed_ns)" -gt 0 ]
}

qps_learned_without_probes() {
	local kp g1 srv qpn pkts

	RET=0
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	rt_qp set --linger-ms 600000
	check_err $? "QP_SET linger-ms failed"
	kp=$(grep -c rocetune /sys/kernel/debug/kprobes/list 2> /dev/null)
	echo "# kprobes of rocetune: ${kp:-0}"
	[ "${kp:-0}" = 0 ]
	check_err $? "rocetune registered ${kp} kprobes"
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	check_err $? "no RoCEv2 GID of $RT_IP1"
	# A server waits for a client that never comes: its QP sends nothing.
	ibv_rc_pingpong -d "$RT_RXE1" -g "$g1" -p 18530 > /dev/null 2>&1 &
	srv=$!
	wait_for 10 idle_qp .qpn
	check_err $? "the idle QP of ibv_rc_pingpong (pid $srv) is not listed"
	qpn=$(idle_qp .qpn)
	pkts=$(idle_qp '((.rx_pkts // 0) + (.tx_pkts // 0))')
	echo "# idle QP $qpn of pid $(idle_qp .pid): $pkts packets"
	[ "$pkts" = 0 ] && [ "$(idle_qp .pid)" = "$srv" ]
	check_err $? "idle QP $qpn: $pkts packets, pid $(idle_qp .pid), expected 0 and $srv"
	kill "$srv" && wait "$srv"
	wait_for 10 idle_qp_destroyed
	check_err $? "QP $qpn not marked destroyed after its process ended"
	rt_wire_down
	rt_kmod_unload
	check_err $? "rmmod failed"
	log_test "no kprobes: an idle QP is listed with its owner, and destroyed with its process"
}

hooks_follow_accounting() {
	RET=0
	# Loaded with a hardware device only: nothing registered.
	rt_sim_load && echo "$SIM_ID mlx5" > "$SIM_BUS/new_device"
	check_err $? "cannot add a simulated hardware device"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	expect_hooks 0 0 "a hardware device only"
	[ "$(rt_qp stats | jq -c '[.[].qp_degraded] | unique')" = "[0]" ]
	check_err $? "QP attribution degraded: $(rt_qp stats | jq -c '[.[].qp_degraded]')"
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	expect_hooks 1 some "$RT_RXE0 and $RT_RXE1 accounting"
	rt_qp set --dev "$RT_RXE0" --acct 0 && rt_qp set --dev "$RT_RXE1" --acct 0
	check_err $? "QP_SET accounting off failed"
	expect_hooks 0 0 "accounting off on both"
	rt_qp set --dev "$RT_RXE1" --acct 1
	check_err $? "QP_SET accounting on failed"
	expect_hooks 1 some "accounting on $RT_RXE1 again"
	rdma link del "$RT_RXE1"
	check_err $? "rdma link del $RT_RXE1 failed"
	expect_hooks 0 0 "$RT_RXE1 removed"
	rt_kmod_unload
	check_err $? "rmmod failed"
	log_test "netfilter hooks registered only while a device accounts"
}

cleanup() {
	echo nop > "$TRACE/current_tracer" 2> /dev/null
	echo 1 > "$TRACE/tracing_on" 2> /dev/null
	echo > "$TRACE/set_ftrace_filter" 2> /dev/null
	rt_kmod_unload 2> /dev/null
	rt_wire_down
	[ -d "$SIM_BUS/devices/rocetune_sim$SIM_ID" ] &&
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	rt_sim_unload
}

rt_require_root
rt_require_cmd jq python3 rdma
trap cleanup EXIT
rt_run_tests
