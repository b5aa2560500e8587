#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Devices and ports through the rocetune family, on the Soft-RoCE wire:
# dumps list rxe0/rxe1 with their netdevs; normalized and raw counters
# after real RC traffic agree with "rdma statistic"; a dump of many devices
# over several recv() calls is complete; rdma link del/add while dumps and
# sampling run; rmmod while a monitor is subscribed and traffic runs.

ALL_TESTS="dev_dump port_dump counters_match events_hotplug dump_many
	hotplug_during_dumps rmmod_with_monitor"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
GENL="python3 $RT_SELFTESTS/rt_genl.py"
ITERS=200
PORT=18516
INTERVAL=50
NMANY=12
MON_LOG=/tmp/rt_monitor.log
mon_pid=

rxe_stat() {
	rdma -j statistic show link "$1/1" | jq -r ".[0].$2 // empty"
}

# port_json DEV: the CLI's JSON object of DEV's port 1, with raw counters.
port_json() {
	"$RT_CLI" -j -s port show "$1/1" | jq -c '.[0]'
}

pingpong() {
	local g0 g1 spid

	g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	ibv_rc_pingpong -d "$RT_RXE1" -g "$g1" -p "$PORT" -n "$1" -s 64 \
		> /tmp/rt_srv.log 2>&1 &
	spid=$!
	# A server left behind holds rxe1: "rdma link del" in the cleanup
	# would then block, and the next test find the wire still there.
	if ! wait_for 10 rt_port_listening "$PORT" ||
	   ! timeout 120 ibv_rc_pingpong -d "$RT_RXE0" -g "$g0" -p "$PORT" \
		-n "$1" -s 64 "$RT_IP1" > /tmp/rt_cli.log 2>&1; then
		kill "$spid" 2> /dev/null
		wait "$spid"
		return 1
	fi
	timeout 10 tail --pid="$spid" -f /dev/null
	wait "$spid"
}

dev_dump() {
	local out names

	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	out=$($GENL req dev_get --dump)
	echo "# raw dump: $out"
	names=$(echo "$out" | jq -r '.names | sort | join(" ")')
	[ "$names" = "$RT_RXE0 $RT_RXE1" ]
	check_err $? "raw DEV_GET dump lists \"$names\""
	out=$("$RT_CLI" -j dev show)
	check_err $? "rocetune dev show failed"
	echo "# $out"
	[ "$(echo "$out" | jq -r '[.[] | select(.driver == "rxe" and .num_ports == 1) | .dev] | sort | join(" ")')" = "$RT_RXE0 $RT_RXE1" ]
	check_err $? "rocetune dev show does not list rxe0/rxe1 (driver rxe, 1 port)"
	out=$("$RT_CLI" -j dev show "$RT_RXE1")
	[ "$(echo "$out" | jq -r '.[0].dev')" = "$RT_RXE1" ]
	check_err $? "rocetune dev show rxe1 gave $out"
	log_test "device dump lists $RT_RXE0 and $RT_RXE1"
}

port_dump() {
	local out

	RET=0
	out=$($GENL req port_get --dump)
	[ "$(echo "$out" | jq -r '.names | sort | join(" ")')" = "$RT_RXE0/1 $RT_RXE1/1" ]
	check_err $? "raw PORT_GET dump: $out"
	out=$("$RT_CLI" -j port show)
	check_err $? "rocetune port show failed"
	echo "# $out" | cut -c1-400
	[ "$(echo "$out" | jq -r ".[] | select(.dev == \"$RT_RXE0\") | .netdev")" = "$RT_NETDEV0" ] &&
		[ "$(echo "$out" | jq -r ".[] | select(.dev == \"$RT_RXE1\") | .netdev")" = "$RT_NETDEV1" ]
	check_err $? "ports do not show netdevs $RT_NETDEV0/$RT_NETDEV1"
	check_same "$(echo "$out" | jq -r ".[] | select(.dev == \"$RT_RXE0\") | .netdev_ifindex")" \
		"$(cat "/sys/class/net/$RT_NETDEV0/ifindex")" \
		"wrong netdev_ifindex for $RT_RXE0"
	[ "$(echo "$out" | jq -r ".[] | select(.dev == \"$RT_RXE0\") | .state")" = active ]
	check_err $? "$RT_RXE0/1 is not active"
	# rxe has no ECN/CNP counters: absent, never zero.
	[ "$(echo "$out" | jq -r ".[0].counters | has(\"rx_ecn_ce_pkts\")")" = false ]
	check_err $? "rxe shows an ECN counter it does not have"
	# rxe has no DCB ops: no PFC nest.
	[ "$(echo "$out" | jq -r ".[0] | has(\"pfc\")")" = false ]
	check_err $? "veth shows PFC it does not have"
	log_test "port dump lists $RT_RXE0/1 on $RT_NETDEV0 and $RT_RXE1/1 on $RT_NETDEV1"
}

counters_match() {
	local p0 p1 s0 s1 r0 r1 k ok n

	RET=0
	"$RT_CLI" config set interval "$INTERVAL"
	check_err $? "cannot set interval $INTERVAL ms"
	pingpong "$ITERS"
	check_err $? "ibv_rc_pingpong failed: $(tail -n 1 /tmp/rt_cli.log)"
	# No traffic now: two intervals later the last sample is final.
	sleep 0.$((INTERVAL * 2 / 10))
	s0=$(rxe_stat "$RT_RXE0" sent_pkts)
	r0=$(rxe_stat "$RT_RXE0" rcvd_pkts)
	s1=$(rxe_stat "$RT_RXE1" sent_pkts)
	r1=$(rxe_stat "$RT_RXE1" rcvd_pkts)
	p0=$(port_json "$RT_RXE0")
	p1=$(port_json "$RT_RXE1")
	echo "# rdma: $RT_RXE0 sent $s0 rcvd $r0, $RT_RXE1 sent $s1 rcvd $r1"
	echo "# rocetune $RT_RXE0: $(echo "$p0" | jq -c .counters)"
	echo "# rocetune $RT_RXE1: $(echo "$p1" | jq -c .counters)"
	[ "$s0" -ge "$ITERS" ] && [ "$r1" -ge "$ITERS" ]
	check_err $? "the traffic did not show in rdma statistic"
	check_same "$(echo "$p0" | jq -r .counters.tx_pkts)" "$s0" \
		"$RT_RXE0 tx_pkts differs from sent_pkts $s0"
	check_same "$(echo "$p0" | jq -r .counters.rx_pkts)" "$r0" \
		"$RT_RXE0 rx_pkts differs from rcvd_pkts $r0"
	check_same "$(echo "$p1" | jq -r .counters.tx_pkts)" "$s1" \
		"$RT_RXE1 tx_pkts differs from sent_pkts $s1"
	check_same "$(echo "$p1" | jq -r .counters.rx_pkts)" "$r1" \
		"$RT_RXE1 rx_pkts differs from rcvd_pkts $r1"
	# Every raw counter equals rdma's, side by side (no traffic now).
	ok=1
	n=0
	for k in $(rdma -j statistic show link "$RT_RXE0/1" |
		   jq -r '.[0] | to_entries[] | select(.value | type == "number") | .key'); do
		[ "$k" = port ] && continue
		n=$((n + 1))
		[ "$(echo "$p0" | jq -r ".hw_counters.$k")" = "$(rxe_stat "$RT_RXE0" "$k")" ] || {
			echo "# raw $k: rocetune $(echo "$p0" | jq -r ".hw_counters.$k"), rdma $(rxe_stat "$RT_RXE0" "$k")"
			ok=0
		}
	done
	[ "$ok" = 1 ] && [ "$n" -gt 0 ]
	check_err $? "raw hw_counters differ from rdma statistic ($n compared)"
	echo "$p0" | jq -e '.rates | has("tx_pkts")' > /dev/null
	check_err $? "no rates"
	log_test "counters after $ITERS round trips agree with rdma statistic (sent $s0)"
}

events_hotplug() {
	RET=0
	# stdout holds only the events (its note goes to stderr).
	rt_monitor_start "$MON_LOG" "$MON_LOG.err"
	check_err $? "the monitor did not start"
	mon_pid=$RT_MON_PID
	rdma link del "$RT_RXE1"
	check_err $? "rdma link del $RT_RXE1 failed"
	rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1"
	check_err $? "rdma link add $RT_RXE1 failed"
	wait_for 10 rt_gid_index "$RT_RXE1" "$RT_IP1"
	ip link set "$RT_NETDEV0" down && sleep 1 && ip link set "$RT_NETDEV0" up
	check_err $? "cannot flap $RT_NETDEV0"
	wait_for 10 rt_gid_index "$RT_RXE0" "$RT_IP0"
	rdma dev set "$RT_RXE1" name rt_renamed &&
		rdma dev set rt_renamed name "$RT_RXE1"
	check_err $? "rename failed"
	sleep 1
	kill "$mon_pid" 2> /dev/null
	wait "$mon_pid" 2> /dev/null
	mon_pid=
	sed 's/^/# /' "$MON_LOG" "$MON_LOG.err"
	grep "\"dev_del\"" "$MON_LOG" | grep "\"$RT_RXE1\"" > /dev/null
	check_err $? "no dev_del event for $RT_RXE1"
	grep "\"dev_add\"" "$MON_LOG" | grep "\"$RT_RXE1\"" > /dev/null
	check_err $? "no dev_add event for $RT_RXE1"
	grep "\"dev_rename\"" "$MON_LOG" | grep "rt_renamed" > /dev/null
	check_err $? "no dev_rename event"
	grep "\"port_state\"" "$MON_LOG" | grep "\"$RT_RXE0\"" | grep '"down"' > /dev/null
	check_err $? "no port_state down event for $RT_RXE0"
	grep "\"port_state\"" "$MON_LOG" | grep "\"$RT_RXE0\"" | grep '"active"' > /dev/null
	check_err $? "no port_state active event for $RT_RXE0"
	jq -e -s 'all(.[]; .time_ns > 0)' "$MON_LOG" > /dev/null
	check_err $? "events without a timestamp"
	log_test "dev_del/dev_add/dev_rename/port_state events on rdma link del/add/rename and link flap"
}

dump_many() {
	local i out n err=0

	RET=0
	modprobe -q dummy numdummies=0
	for i in $(seq 1 "$NMANY"); do
		if ! { ip link add "rtd$i" type dummy && ip link set "rtd$i" up &&
		       rdma link add "rtx$i" type rxe netdev "rtd$i"; }; then
			err=1
			break
		fi
	done
	check_err "$err" "cannot create $NMANY rxe devices on dummies"
	out=$($GENL req port_get --dump --bufsize 4096)
	n=$(echo "$out" | jq '.names | length')
	echo "# $n ports in $(echo "$out" | jq .recvs) recv() calls"
	[ "$n" = $((NMANY + 2)) ]
	check_err $? "the dump has $n ports, expected $((NMANY + 2))"
	[ "$(echo "$out" | jq '.names | unique | length')" = "$n" ]
	check_err $? "the dump has duplicates"
	[ "$(echo "$out" | jq .recvs)" -ge 3 ]
	check_err $? "the dump did not span several recv() calls"
	out=$($GENL req dev_get --dump --bufsize 4096)
	[ "$(echo "$out" | jq '.names | unique | length')" = $((NMANY + 2)) ]
	check_err $? "the device dump is incomplete: $out"
	log_test "a dump of $((NMANY + 2)) ports over several recv() calls is complete"
}

hotplug_during_dumps() {
	local i dpid out err=0

	RET=0
	# One python process dumping over and over (starting one is slow).
	for i in $(seq 1 40); do
		echo "port_get --dump"
		echo "dev_get --dump"
	done | $GENL batch > /tmp/rt_dumps.log 2>&1 &
	dpid=$!
	for i in $(seq 1 "$NMANY"); do
		rdma link del "rtx$i" || err=1
		if [ $((i % 4)) = 0 ]; then
			rdma link add "rtx$i" type rxe netdev "rtd$i" || err=1
		fi
	done
	check_err "$err" "rdma link del/add failed"
	wait "$dpid"
	check_err $? "the dumps failed during hotplug: $(tail -n 2 /tmp/rt_dumps.log)"
	echo "# $(grep -c '"errno": 0' /tmp/rt_dumps.log) dumps during hotplug"
	for i in $(seq 1 "$NMANY"); do
		rdma link del "rtx$i" 2> /dev/null
		ip link del "rtd$i" 2> /dev/null
	done
	out=$($GENL req dev_get --dump)
	[ "$(echo "$out" | jq -r '.names | sort | join(" ")')" = "$RT_RXE0 $RT_RXE1" ]
	check_err $? "after hotplug the dump has $out"
	log_test "rdma link del/add while dumps and sampling run"
}

rmmod_with_monitor() {
	local tpid

	RET=0
	"$RT_CLI" -j monitor > "$MON_LOG" 2>&1 &
	mon_pid=$!
	sleep 0.5
	pingpong 500 &
	tpid=$!
	sleep 1
	rt_kmod_unload
	check_err $? "rmmod with a monitor and traffic failed"
	wait "$tpid"
	check_err $? "the traffic failed while the module went away"
	kill "$mon_pid" 2> /dev/null
	wait "$mon_pid" 2> /dev/null
	mon_pid=
	rt_kmod_load
	check_err $? "cannot load the module again"
	log_test "rmmod while a monitor is subscribed and traffic runs"
}

cleanup() {
	local i

	[ -z "$mon_pid" ] || kill "$mon_pid" 2> /dev/null
	for i in $(seq 1 "$NMANY"); do
		rdma link del "rtx$i" 2> /dev/null
		ip link del "rtd$i" 2> /dev/null
	done
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd rdma ip ibv_rc_pingpong jq ss python3
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
