#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A hardware counter that goes down was either a 32-bit counter wrapping
# at 2^32 or a counter that was reset.  A 64-bit counter reset from 1000 to
# 10 is a reset: the total grows by 10, not by 2^32 - 990, and its rate
# does not cross a CNP rate threshold (no cnp_rate_high event).  The
# wrap of a 32-bit counter is netlink_sim.sh's wrap_32bit.  On the
# simulated NIC (rocetune_sim), whose counters the test sets.

ALL_TESTS="reset_is_not_wrap"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
GENL_PY=$RT_SELFTESTS/rt_genl.py
SIM_BUS=/sys/bus/rocetune_sim
SIM_DFS=/sys/kernel/debug/rocetune_sim
SIM_ID=11
DEV=rsim_ib$SIM_ID
OUT=${RT_OUT:-/tmp}/reset
mon_pid=

tx_cnp() {
	"$RT_CLI" -j port show "$DEV/1" | jq -e '.[0].counters.tx_cnp_pkts'
}

listening() {
	grep -q listening "$OUT/events.json"
}

reset_is_not_wrap() {
	local v1 v2 rate high

	RET=0
	mkdir -p "$OUT"
	"$RT_CLI" config set dev "$DEV" cnp-rate 1000000
	check_err $? "cannot set a CNP rate threshold on $DEV"
	python3 "$GENL_PY" listen 300 > "$OUT/events.json" &
	mon_pid=$!
	wait_for 60 listening
	check_err $? "the listener did not join the events group"
	echo 1000 > "$SIM_DFS/$SIM_ID/counters/np_cnp_sent"
	sleep 1
	v1=$(tx_cnp)
	# The device was reset: np_cnp_sent (64 bits wide) starts again.
	echo 10 > "$SIM_DFS/$SIM_ID/counters/np_cnp_sent"
	sleep 2
	v2=$(tx_cnp)
	rate=$(python3 "$GENL_PY" req port_get "DEV_NAME:str:$DEV" PORT_INDEX:u32:1 |
		jq '.rates[0].tx_cnp_pkts')
	kill "$mon_pid"
	wait "$mon_pid"
	mon_pid=
	high=$(jq -s '[.[] | select(.event == "cnp_rate_high")] | length' \
		"$OUT/events.json")
	echo "# tx_cnp_pkts $v1 before the reset, $v2 after; rate $rate/s; $high cnp_rate_high events"
	[ "$v1" = 1000 ] && [ "$v2" = 1010 ]
	check_err $? "tx_cnp_pkts $v1, then $v2: expected 1000, then 1010"
	[ "$high" = 0 ] && [ "$rate" -lt 1000000 ]
	check_err $? "the reset looked like billions of CNPs: rate $rate/s, $high events"
	log_test "a 64-bit counter reset counts from zero, not as a 32-bit wrap"
}

cleanup() {
	[ -z "$mon_pid" ] || kill "$mon_pid" 2> /dev/null
	rt_kmod_unload 2> /dev/null
	[ -d "$SIM_BUS/devices/rocetune_sim$SIM_ID" ] &&
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	rt_sim_unload
}

setup() {
	rt_sim_load && echo "$SIM_ID mlx5" > "$SIM_BUS/new_device" &&
		ip link set "rsim$SIM_ID" up && rt_kmod_load &&
		wait_for 10 tx_cnp
}

rt_require_root
rt_require_cmd jq python3
trap cleanup EXIT
if ! setup; then
	echo "# cannot set up the simulated NIC $DEV and the module"
	exit "$KSFT_FAIL"
fi
rt_run_tests
