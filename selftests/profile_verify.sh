#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune profile apply --verify on a simulated mlx5 NIC with rocetune.ko
# loaded: the [Verify] guards watch the port's counters (the module's
# PORT_GET) after the apply, and a guard that trips rolls the apply back.
# The NIC's PFC is read back by iproute2's dcb, and the pause is made by
# the simulated NIC's pfc_storm knob (rx pause duration grows in real
# time), never by rocetune.
#
# - A watch during which the port is not paused: exit 0, "verified", the
#   new PFC stays.
# - A pause storm on the lossless priority starts during the watch: exit
#   3, "rolled_back_by_verify", the reason names pause-percent, and dcb
#   shows the PFC of before the apply again.

ALL_TESTS="
	verify_holds
	verify_trips_rolls_back
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
SIM_BUS=/sys/bus/rocetune_sim
DFS=/sys/kernel/debug/rocetune_sim
ID=$((RANDOM % 700 + 100))
DEV=rsim$ID
WORK=$(mktemp -d /tmp/rt-verify.XXXXXX)
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"
APPLY_PID=

cleanup() {
	[ -n "$APPLY_PID" ] && kill "$APPLY_PID" 2> /dev/null
	echo "3 0 0" > "$DFS/$ID/pfc_storm" 2> /dev/null
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	rt_kmod_unload
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

# The PFC priorities dcb reads, as a JSON array.
dcb_pfc() {
	dcb -j pfc show dev "$DEV" | jq -c .prio_pfc
}

# pfc_is JSON: dcb reads the PFC priorities JSON.
pfc_is() {
	[ "$(dcb_pfc)" = "$1" ]
}

PFC_OFF="[false,false,false,false,false,false,false,false]"
PFC_3="[false,false,false,true,false,false,false,false]"

write_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-verify.conf" << EOF
[Match]
Name=$DEV

[Lossless]
PFC=3

[Verify]
ForSec=$1
BaselineSec=1
IntervalMs=500
MaxPausePercent=20
EOF
}

setup() {
	rt_sim_load || return 1
	rt_kmod_load || return 1
	echo "$ID mlx5" > "$SIM_BUS/new_device" || return 1
	ip link set "$DEV" up || return 1
	# mlx5 flaps the link on a PFC change; the watch would see it.
	echo N > "$DFS/$ID/pfc_link_flap" || return 1
	wait_for 30 "$RT_CLI" profile show dev "$DEV" || return 1
	rt_dcb pfc set dev "$DEV" prio-pfc all:off
}

verify_holds() {
	local out rc

	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc all:off
	write_profile 3
	out=$("$RT_CLI" -j profile apply dev "$DEV" --verify)
	rc=$?
	expect "exit status of a clean watch" "$rc" 0
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	expect "verified" "$(jq -r '.[0].verified' <<< "$out")" true
	expect "rolled_back_by_verify" \
		"$(jq -r '.[0].rolled_back_by_verify' <<< "$out")" false
	expect "guards watched" "$(jq -c '[.[0].guards[].name]' <<< "$out")" \
		'["pause-percent"]'
	expect "dcb prio-pfc after the watch" "$(dcb_pfc)" "$PFC_3"
	[ "$RET" = 0 ] || echo "# $out"
	log_test "verify: a 3 s watch without pause keeps the apply (exit 0, dcb shows PFC on 3)"
}

verify_trips_rolls_back() {
	local out rc

	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc all:off
	write_profile 30
	"$RT_CLI" -j profile apply dev "$DEV" --verify > "$WORK/apply.json" &
	APPLY_PID=$!
	# The watch begins after the writes and the 1 s baseline: a storm
	# once dcb shows the new PFC and a second has passed falls into it.
	wait_for 30 pfc_is "$PFC_3"
	check_err $? "the apply never set PFC on 3: $(dcb_pfc)"
	sleep 2
	echo "3 1000 60000" > "$DFS/$ID/pfc_storm"
	check_err $? "cannot start the pause storm"
	wait "$APPLY_PID"
	rc=$?
	APPLY_PID=
	echo "3 0 0" > "$DFS/$ID/pfc_storm"
	out=$(cat "$WORK/apply.json")
	expect "exit status of a tripped watch" "$rc" 3
	expect "result" "$(jq -r '.[0].result' <<< "$out")" rolled-back
	expect "rolled_back_by_verify" \
		"$(jq -r '.[0].rolled_back_by_verify' <<< "$out")" true
	jq -r '.[0].reason' <<< "$out" | grep -q pause-percent
	check_err $? "the reason does not name the pause-percent guard: $(jq -r '.[0].reason' <<< "$out")"
	expect "dcb prio-pfc after the rollback" "$(dcb_pfc)" "$PFC_OFF"
	[ "$RET" = 0 ] || echo "# $out"
	echo "# reason: $(jq -r '.[0].reason' <<< "$out")"
	log_test "verify: a pause storm during the watch rolls the apply back (exit 3, dcb shows PFC off again)"
}

rt_require_root
rt_require_cmd dcb jq
setup || rt_setup_failed "simulated NIC or rocetune.ko"
rt_run_tests
