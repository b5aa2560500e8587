#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI against rocetune.ko and two Soft-RoCE devices: devices,
# ports, raw counters (compared with "rdma statistic"), the Prometheus
# output, configuration round trips and events in "rocetune -j monitor".

ALL_TESTS="dev_show port_show hw_counters_vs_rdma prometheus config_roundtrip monitor_events"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_MON=$(mktemp)
rt_mon_pid=

rt() {
	"$RT_CLI" "$@"
}

dev_show() {
	local n idx

	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	n=$(rt -j dev show | jq '[.[] | select(.driver == "rxe" and .num_ports == 1)] | length')
	[ "$n" = 2 ]
	check_err $? "expected 2 rxe devices with 1 port, got $n"
	idx=$(rdma -j dev show "$RT_RXE0" | jq '.[0].ifindex')
	check_same "$(rt -j dev show "$RT_RXE0" | jq '.[0].index')" "$idx" \
		"index of $RT_RXE0 differs from rdma's ($idx)"
	rt dev show | grep -E "^$idx: $RT_RXE0: driver rxe num-ports 1$" > /dev/null
	check_err $? "text output of dev show"
	log_test "dev show lists the rxe devices (JSON and text)"
}

port_show() {
	local j ifindex

	RET=0
	j=$(rt -j port show "$RT_RXE0/1")
	check_err $? "port show $RT_RXE0/1 failed"
	ifindex=$(cat "/sys/class/net/$RT_NETDEV0/ifindex")
	echo "$j" | jq -e --arg nd "$RT_NETDEV0" --argjson ifi "$ifindex" \
		'length == 1 and .[0].port == 1 and .[0].state == "active" and
		 .[0].netdev == $nd and .[0].netdev_ifindex == $ifi and
		 (.[0].counters | type) == "object" and
		 (.[0].counters | to_entries | all(.value | type == "number"))' > /dev/null
	check_err $? "unexpected port JSON: $j"
	[ "$(rt -j port show "$RT_RXE1" | jq 'length')" = 1 ]
	check_err $? "port show DEV does not filter by device"
	[ "$(rt -j port show | jq 'length')" -ge 2 ]
	check_err $? "port show does not list both ports"
	rt port show "$RT_RXE0/1" |
		grep "^$RT_RXE0/1: state active netdev $RT_NETDEV0" > /dev/null
	check_err $? "text output of port show"
	echo "$j" | jq -e '.[0] | has("hw_counters") | not' > /dev/null
	check_err $? "raw counters shown without -s"
	log_test "port show: identity, state, netdev, numeric counters"
}

hw_counters_vs_rdma() {
	local ours theirs

	RET=0
	ours=$(rt -j -s port show "$RT_RXE0/1" | jq -c '.[0].hw_counters | keys')
	theirs=$(rdma -j statistic show link "$RT_RXE0/1" |
		 jq -c '.[0] | del(.ifname, .port) | keys')
	[ -n "$ours" ] && [ "$ours" = "$theirs" ]
	check_err $? "raw counter names differ: $ours vs $theirs"
	log_test "-s port show has the driver's counters, as rdma statistic names them"
}

prometheus() {
	local out msg

	RET=0
	out=$(rt -o prometheus port show)
	check_err $? "port show -o prometheus failed"
	echo "$out" | grep -q '^# TYPE rocetune_port_tx_pkts_total counter$'
	check_err $? "no TYPE line for tx_pkts"
	echo "$out" | grep -q "^rocetune_port_tx_pkts_total{dev=\"$RT_RXE0\",port=\"1\",netdev=\"$RT_NETDEV0\"} [0-9]*$"
	check_err $? "no tx_pkts sample for $RT_RXE0"
	! echo "$out" | grep -v '^# \(HELP\|TYPE\) ' |
		grep -Ev '^rocetune_[a-z_]+\{([a-z_]+="[^"]*",?)+\} [0-9]+$' > /dev/null
	check_err $? "lines not in the text exposition format"
	msg=$(promtool check metrics <<< "$out" 2>&1)
	check_err $? "promtool: $msg"
	log_test "-o prometheus: text exposition format (promtool check metrics)"
}

config_roundtrip() {
	local j

	RET=0
	rt config set interval 200 storm-ms 300
	check_err $? "config set failed"
	j=$(rt -j config show)
	echo "$j" | jq -e '.interval_ms == 200 and .storm_ms == 300 and (has("dev") | not)' > /dev/null
	check_err $? "global configuration not applied: $j"
	rt config set dev "$RT_RXE0" cnp-rate 5000
	check_err $? "per-device config set failed"
	j=$(rt -j config show dev "$RT_RXE0")
	echo "$j" | jq -e --arg d "$RT_RXE0" \
		'.dev == $d and .cnp_rate_thresh == 5000 and .interval_ms == 200' > /dev/null
	check_err $? "per-device configuration not applied: $j"
	[ "$(rt -j config show | jq .cnp_rate_thresh)" = 0 ]
	check_err $? "per-device setting leaked into the global configuration"
	rt config set interval 100
	log_test "config set/show, global and per device"
}

# mon_has JQ-FILTER: a line of the monitor output matches.
mon_has() {
	# Not "jq -e ... | grep": jq 1.6 -e exits 4 when the last line does not
	# match, which pipefail turns into a failure.
	[ -n "$(jq -c "select($1)" "$RT_MON" 2> /dev/null)" ]
}

monitor_events() {
	RET=0
	# Not through rt(): $! must be rocetune itself, not a subshell.
	"$RT_CLI" -j monitor > "$RT_MON" &
	rt_mon_pid=$!
	sleep 1
	rdma link del "$RT_RXE1"
	check_err $? "cannot delete $RT_RXE1"
	rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1"
	check_err $? "cannot add $RT_RXE1 back"
	rdma dev set "$RT_RXE0" name rt_renamed
	check_err $? "cannot rename $RT_RXE0"
	wait_for 10 mon_has '.event == "dev_rename"'
	rdma dev set rt_renamed name "$RT_RXE0"
	kill "$rt_mon_pid"
	wait "$rt_mon_pid" 2> /dev/null
	rt_mon_pid=
	jq -c . "$RT_MON" > /dev/null
	check_err $? "monitor output is not JSON lines: $(cat "$RT_MON")"
	mon_has ".event == \"dev_del\" and .dev == \"$RT_RXE1\""
	check_err $? "no dev_del event: $(cat "$RT_MON")"
	mon_has ".event == \"dev_add\" and .dev == \"$RT_RXE1\" and (.dev_index | type) == \"number\""
	check_err $? "no dev_add event: $(cat "$RT_MON")"
	mon_has ".event == \"dev_rename\" and .dev == \"rt_renamed\" and .old_name == \"$RT_RXE0\""
	check_err $? "no dev_rename event: $(cat "$RT_MON")"
	log_test "monitor -j: dev_del, dev_add, dev_rename as JSON lines"
}

cleanup() {
	[ -z "$rt_mon_pid" ] || kill "$rt_mon_pid" 2> /dev/null
	rm -f "$RT_MON"
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd jq rdma promtool
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
