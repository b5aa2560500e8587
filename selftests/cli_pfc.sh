#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI against the simulated DCB-capable NIC (rocetune_sim):
# per-priority PFC in "rocetune -j port show" agrees with dcb and ethtool,
# raw counters with rdma statistic, a pause storm arrives as
# storm_start/storm_end in "rocetune -j monitor", and "-s -o prometheus"
# with PFC, pause durations and a storm is clean for promtool.

ALL_TESTS="pfc_vs_dcb pfc_vs_ethtool hw_vs_rdma storm_events prometheus_pfc"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
NETDEV=rsim$SIM_ID
IBDEV=rsim_ib$SIM_ID
DFS=/sys/kernel/debug/rocetune_sim/$SIM_ID
RT_MON=$(mktemp)
rt_mon_pid=

# port_pfc JQ: JQ applied to the PFC object of the simulated port.
port_pfc() {
	"$RT_CLI" -j port show "$IBDEV/1" | jq -c ".[0].pfc | $1"
}

pfc_vs_dcb() {
	local ours theirs

	RET=0
	echo 77 > "$DFS/counters/rx_prio3_pause"
	echo 12 > "$DFS/counters/tx_prio3_pause"
	ours=$(port_pfc '[.prio[] | .rx_pause]')
	theirs=$(dcb -j -s pfc show dev "$NETDEV" | jq -c .indications)
	check_same "$ours" "$theirs" "rx_pause $ours, dcb indications $theirs"
	ours=$(port_pfc '[.prio[] | .tx_pause]')
	theirs=$(dcb -j -s pfc show dev "$NETDEV" | jq -c .requests)
	check_same "$ours" "$theirs" "tx_pause $ours, dcb requests $theirs"
	# shellcheck disable=SC2016 # $p is jq's
	ours=$(port_pfc '[range(8) as $p | .enabled | index($p) != null]')
	theirs=$(dcb -j pfc show dev "$NETDEV" | jq -c .prio_pfc)
	check_same "$ours" "$theirs" "enabled $ours, dcb prio-pfc $theirs"
	ours=$(port_pfc .cap)
	theirs=$(dcb -j pfc show dev "$NETDEV" | jq .pfc_cap)
	check_same "$ours" "$theirs" "cap $ours, dcb pfc-cap $theirs"
	log_test "port show PFC: pause frames, enabled and cap as dcb reads them"
}

pfc_vs_ethtool() {
	local ours theirs

	RET=0
	ours=$(port_pfc '.prio[] | select(.prio == 3) | .rx_pause')
	theirs=$(ethtool -S "$NETDEV" | awk '$1 == "rx_prio3_pause:" { print $2 }')
	check_same "$ours" "$theirs" "prio 3 rx_pause $ours, ethtool rx_prio3_pause $theirs"
	log_test "port show PFC: prio 3 as ethtool -S reads it"
}

hw_vs_rdma() {
	local ours theirs

	RET=0
	echo 1234 > "$DFS/counters/np_cnp_sent"
	ours=$("$RT_CLI" -j -s port show "$IBDEV/1" | jq -c '.[0].hw_counters')
	theirs=$(rdma -j statistic show link "$IBDEV/1" | jq -c '.[0] | del(.ifname, .port)')
	check_same "$(echo "$ours" | jq -S -c .)" "$(echo "$theirs" | jq -S -c .)" \
		"raw counters differ: $ours vs $theirs"
	[ "$(echo "$ours" | jq .np_cnp_sent)" = 1234 ]
	check_err $? "np_cnp_sent not 1234: $ours"
	log_test "-s port show: raw counters equal rdma statistic's"
}

# mon_has JQ-FILTER: a line of the monitor output matches.
mon_has() {
	# Not "jq -e ... | grep": jq 1.6 -e exits 4 when the last line does not
	# match, which pipefail turns into a failure.
	[ -n "$(jq -c "select($1)" "$RT_MON" 2> /dev/null)" ]
}

storm_events() {
	local ev=".dev == \"$IBDEV\" and .port == 1 and .prio == 3"

	RET=0
	"$RT_CLI" config set storm-ms 200
	check_err $? "config set storm-ms failed"
	rt_monitor_start "$RT_MON" "$RT_MON.err"
	check_err $? "the monitor did not start"
	rt_mon_pid=$RT_MON_PID
	echo "3 1000 1000" > "$DFS/pfc_storm"
	check_err $? "cannot start a pause storm"
	wait_for 10 mon_has ".event == \"storm_start\" and $ev"
	check_err $? "no storm_start: $(cat "$RT_MON")"
	wait_for 10 mon_has ".event == \"storm_end\" and $ev"
	check_err $? "no storm_end: $(cat "$RT_MON")"
	mon_has ".event == \"storm_end\" and $ev and .duration_ms >= 200"
	check_err $? "storm_end without a duration of at least storm-ms: $(cat "$RT_MON")"
	kill "$rt_mon_pid"
	wait "$rt_mon_pid" 2> /dev/null
	rt_mon_pid=
	log_test "monitor -j: a pause storm on prio 3 starts and ends"
}

storm_is() {
	[ "$(port_pfc '.prio[] | select(.prio == 3) | .storm')" = "$1" ]
}

duration_is() {
	[ "$(port_pfc '.prio[] | select(.prio == 3) | .rx_pause_duration_us')" = "$1" ]
}

# prom_has LINE: the Prometheus output $prom has LINE, whole.
prom_has() {
	grep -Fx "$1" <<< "$prom" > /dev/null
	check_err $? "no line \"$1\" in: $(grep -F "$IBDEV" <<< "$prom")"
}

prometheus_pfc() {
	local l="device=\"$IBDEV\",port=\"1\",netdev=\"$NETDEV\"" prom msg

	RET=0
	echo 123456 > "$DFS/counters/rx_prio3_pause_duration" &&
		echo 2500000 > "$DFS/counters/tx_prio3_pause_duration"
	check_err $? "cannot set the pause durations"
	# The module reads durations at most once a second.
	wait_for 10 duration_is 123456
	check_err $? "rx_pause_duration_us of prio 3 not 123456"
	prom=$("$RT_CLI" -s -o prometheus port show)
	check_err $? "-s -o prometheus port show failed"
	msg=$(promtool check metrics <<< "$prom" 2>&1)
	check_err $? "promtool: $msg"
	prom_has "rocetune_pfc_rx_pause_duration_seconds_total{$l,prio=\"3\"} 0.123456"
	prom_has "rocetune_pfc_tx_pause_duration_seconds_total{$l,prio=\"3\"} 2.5"
	prom_has "rocetune_pfc_storm{$l,prio=\"3\"} 0"
	prom_has "rocetune_port_hw_stat_total{$l,name=\"np_cnp_sent\"} 1234"
	grep -E "^rocetune_pfc_rx_pause_total\{$l,prio=\"3\"\} [0-9]+$" <<< "$prom" > /dev/null
	check_err $? "no rx pause frames of prio 3"
	# mlx5 has durations for PFC-enabled priorities only: absent, not 0.
	! grep -E "^rocetune_pfc_rx_pause_duration_seconds_total\{$l,prio=\"[^3]\"" \
		<<< "$prom" > /dev/null
	check_err $? "durations of priorities without them"
	# During a storm (the simulated one also adds pause time), until it
	# is stopped (rate 0).
	echo "3 1000 60000" > "$DFS/pfc_storm"
	check_err $? "cannot start a pause storm"
	wait_for 10 storm_is true
	check_err $? "no storm on prio 3"
	prom=$("$RT_CLI" -s -o prometheus port show)
	msg=$(promtool check metrics <<< "$prom" 2>&1)
	check_err $? "promtool during a storm: $msg"
	prom_has "rocetune_pfc_storm{$l,prio=\"3\"} 1"
	echo "3 0 0" > "$DFS/pfc_storm"
	wait_for 10 storm_is false
	check_err $? "the storm on prio 3 did not end"
	log_test "-s -o prometheus: PFC frames, durations in seconds, storm, raw stats; promtool clean"
}

setup() {
	rt_sim_load || rt_setup_failed "cannot load rocetune_sim"
	echo "$SIM_ID mlx5" > "$SIM_BUS"/new_device ||
		rt_setup_failed "cannot create sim device $SIM_ID"
	{ ip link set "$NETDEV" up &&
		wait_for 5 grep -qx 1 "/sys/class/net/$NETDEV/carrier"; } ||
		rt_setup_failed "$NETDEV has no carrier"
	# rt_dcb: iproute2 6.1's spurious "Protocol error"; read back instead.
	rt_dcb pfc set dev "$NETDEV" prio-pfc all:off 3:on ||
		rt_setup_failed "dcb pfc set failed"
	[ "$(dcb -j pfc show dev "$NETDEV" | jq -c .prio_pfc)" = \
		"[false,false,false,true,false,false,false,false]" ] ||
		rt_setup_failed "PFC is not on prio 3 alone after dcb pfc set"
	wait_for 5 grep -qx 1 "/sys/class/net/$NETDEV/carrier" ||
		rt_setup_failed "$NETDEV has no carrier after dcb pfc set"
	rt_kmod_load || rt_setup_failed "cannot load rocetune.ko"
}

cleanup() {
	[ -z "$rt_mon_pid" ] || kill "$rt_mon_pid" 2> /dev/null
	rm -f "$RT_MON" "$RT_MON.err"
	rt_kmod_unload 2> /dev/null
	echo "$SIM_ID" > "$SIM_BUS"/del_device 2> /dev/null
	rt_sim_unload
}

rt_require_root
rt_require_cmd dcb ethtool rdma jq
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
setup
rt_run_tests
