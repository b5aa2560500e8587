#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI against rocetune.ko and two Soft-RoCE devices: devices,
# ports, raw counters (compared with "rdma statistic"), the Prometheus
# output, configuration round trips (config show pasted into config set),
# one JSON key per thing and text keywords equal to the JSON keys, QPs of a
# process whose name is not UTF-8 (valid JSON, lint-clean and bounded
# Prometheus) and events in "rocetune -j monitor".

ALL_TESTS="dev_show port_show hw_counters_vs_rdma prometheus config_roundtrip config_paste keys_agree qp_any_comm_bounded monitor_events"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_MON=$(mktemp)
rt_mon_pid=
rt_perf_pid=
# A process name that is not UTF-8 (as any name may be): exec'd through a
# symlink of that name, it becomes the comm of the process and its QPs.
RT_ODD_COMM=rt$'\xff\xfe'qp
RT_ODD_EXE=/tmp/$RT_ODD_COMM

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
	check_same "$(rt -j dev show "$RT_RXE0" | jq '.[0].dev_index')" "$idx" \
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
	# device and port: the labels of node_exporter's infiniband collector.
	grep "^rocetune_port_tx_pkts_total{device=\"$RT_RXE0\",port=\"1\",netdev=\"$RT_NETDEV0\"} [0-9]*$" \
		<<< "$out" > /dev/null
	check_err $? "no tx_pkts sample for $RT_RXE0"
	! grep -E '[{,]dev=|_us_total|hw_counter' <<< "$out" > /dev/null
	check_err $? "old label or metric names: $(grep -E '[{,]dev=|_us_total|hw_counter' <<< "$out")"
	msg=$(rt -s -o prometheus port show | promtool check metrics 2>&1)
	check_err $? "promtool on -s: $msg"
	! echo "$out" | grep -v '^# \(HELP\|TYPE\) ' |
		grep -Ev '^rocetune_[a-z_]+\{([a-z_]+="[^"]*",?)+\} [0-9]+(\.[0-9]+)?$' > /dev/null
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

# config show's text, given back to config set, sets the same.
config_paste() {
	local shown dshown

	RET=0
	rt config set interval-ms 150 storm-ms 250 cnp-rate-thresh 10 ecn-rate-thresh 20
	check_err $? "config set with the names config show prints failed"
	shown=$(rt config show)
	check_err $? "config show failed"
	[ "$shown" = "interval-ms 150 storm-ms 250 cnp-rate-thresh 10 ecn-rate-thresh 20" ]
	check_err $? "config show printed \"$shown\""
	dshown=$(rt config show dev "$RT_RXE0")
	rt config set interval-ms 300 storm-ms 400 cnp-rate-thresh 0 ecn-rate-thresh 0
	rt config set dev "$RT_RXE0" interval-ms 500
	# shellcheck disable=SC2086 # the words of config show, as a user pastes them
	rt config set $shown && rt config set $dshown
	check_err $? "config set refused the output of config show: $shown / $dshown"
	check_same "$(rt config show)" "$shown" "global configuration after pasting"
	check_same "$(rt config show dev "$RT_RXE0")" "$dshown" \
		"configuration of $RT_RXE0 after pasting"
	rt config set interval-ms 100 storm-ms 500 cnp-rate-thresh 0 ecn-rate-thresh 0
	log_test "config show pasted into config set sets the same (global, per device)"
}

# text_keys_in_json TEXT JSON: every "keyword value" pair of TEXT (after
# its leading positional words, given as $3) is a key of the JSON object
# in snake_case.
text_keys_in_json() {
	local -a w
	local i key

	read -r -a w <<< "$1"
	for ((i = $3; i < ${#w[@]}; i += 2)); do
		key=${w[i]//-/_}
		jq -e --arg k "$key" 'has($k)' <<< "$2" > /dev/null ||
			{ echo "$key"; return 1; }
	done
}

keys_agree() {
	local devs ports bad

	RET=0
	devs=$(rt -j dev show)
	ports=$(rt -j port show)
	# One key for one thing: a port's device is named as dev show names it.
	bad=$(jq -n --argjson d "$devs" --argjson p "$ports" -r '$p[] |
		. as $q | select([$d[] | select(.dev == $q.dev and
		.dev_index == $q.dev_index)] | length != 1) | .dev')
	[ -n "$devs" ] && [ -n "$ports" ] && [ -z "$bad" ]
	check_err $? "ports whose dev/dev_index dev show does not list: $bad"
	bad=$(text_keys_in_json "$(rt dev show "$RT_RXE0")" \
		"$(rt -j dev show "$RT_RXE0" | jq '.[0]')" 2)
	check_err $? "dev show: text keyword \"$bad\" is no JSON key"
	bad=$(text_keys_in_json "$(rt port show "$RT_RXE0/1" | sed -n 1p)" \
		"$(rt -j port show "$RT_RXE0/1" | jq '.[0]')" 1)
	check_err $? "port show: text keyword \"$bad\" is no JSON key"
	bad=$(text_keys_in_json "$(rt config show dev "$RT_RXE0")" \
		"$(rt -j config show dev "$RT_RXE0")" 0)
	check_err $? "config show: text keyword \"$bad\" is no JSON key"
	bad=$(text_keys_in_json "$(rt qp stats dev "$RT_RXE0")" \
		"$(rt -j qp stats dev "$RT_RXE0" | jq '.[0]')" 1)
	check_err $? "qp stats: text keyword \"$bad\" is no JSON key"
	log_test "one key per thing (dev show = port show); text keywords = JSON keys"
}

# qps_of_rxe1 N: rxe1 has at least N accounted QPs.
qps_of_rxe1() {
	[ "$(rt -j qp show dev "$RT_RXE1" | jq length)" -ge "$1" ]
}

qp_any_comm_bounded() {
	local g1 json prom n msg

	RET=0
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	ln -sf "$(command -v ibv_srq_pingpong)" "$RT_ODD_EXE"
	# The server creates its 30 QPs, then waits for a client.
	"$RT_ODD_EXE" -d "$RT_RXE1" -g "$g1" -p 18611 -q 30 > /dev/null 2>&1 &
	rt_perf_pid=$!
	wait_for 30 qps_of_rxe1 30
	check_err $? "the perftest server's 30 QPs are not listed"
	json=$(rt -j qp show dev "$RT_RXE1")
	# Strict: the bytes must be UTF-8 and the text JSON (jq would repair).
	python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' \
		<<< "$json"
	check_err $? "qp show -j is not valid UTF-8 JSON"
	n=$(jq '[.[] | select(.comm == "rt\ufffd\ufffdqp")] | length' <<< "$json")
	[ "$n" -ge 30 ]
	check_err $? "$n QPs with the comm rt<U+FFFD><U+FFFD>qp"
	rt qp show dev "$RT_RXE1" | grep -F 'comm rt\xff\xfeqp' > /dev/null
	check_err $? "text qp show does not show the comm's bytes as \\xNN"
	prom=$(rt -o prometheus qp show)
	check_err $? "qp show -o prometheus failed"
	msg=$(promtool check metrics <<< "$prom" 2>&1)
	check_err $? "promtool: $msg"
	grep -F "comm=\"rt"$'\xef\xbf\xbd\xef\xbf\xbd'"qp\"" <<< "$prom" > /dev/null
	check_err $? "no comm label with U+FFFD"
	# Bounded: the top 20 QPs, or the top K asked for.
	n=$(grep -c '^rocetune_qp_rx_pkts_total{' <<< "$prom")
	[ "$n" = 20 ]
	check_err $? "$n series of rocetune_qp_rx_pkts_total without top K, not 20"
	n=$(rt -o prometheus qp show top 25 | grep -c '^rocetune_qp_rx_pkts_total{')
	[ "$n" = 25 ]
	check_err $? "$n series of rocetune_qp_rx_pkts_total with top 25"
	grep -E "^rocetune_qp_rx_pkts_total\{device=\"$RT_RXE1\",port=\"1\",qpn=" <<< "$prom" > /dev/null
	check_err $? "QP series without device and port labels"
	kill "$rt_perf_pid"
	wait "$rt_perf_pid" 2> /dev/null
	rt_perf_pid=
	rm -f "$RT_ODD_EXE"
	log_test "a non-UTF-8 process name: valid JSON, lint-clean Prometheus, top 20 series"
}

# mon_has JQ-FILTER: a line of the monitor output matches.
mon_has() {
	# Not "jq -e ... | grep": jq 1.6 -e exits 4 when the last line does not
	# match, which pipefail turns into a failure.
	[ -n "$(jq -c "select($1)" "$RT_MON" 2> /dev/null)" ]
}

monitor_events() {
	RET=0
	rt_monitor_start "$RT_MON" "$RT_MON.err"
	check_err $? "the monitor did not start"
	rt_mon_pid=$RT_MON_PID
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
	[ -z "$rt_perf_pid" ] || kill "$rt_perf_pid" 2> /dev/null
	rm -f "$RT_ODD_EXE"
	rm -f "$RT_MON" "$RT_MON.err"
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd jq rdma promtool
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
