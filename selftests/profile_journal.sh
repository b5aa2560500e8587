#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The apply engine's journals and the NIC's identity, on simulated mlx5
# NICs (rocetune_sim): a damaged journal and one of another ifindex block
# applies with a clear message and are kept until "rocetune profile
# journal discard"; the agent reports them in its status and on /metrics
# and applies once they are discarded; a NIC renamed mid-apply, its name
# taken by another NIC, gets no write meant for it.  Nothing is taken
# from rocetune itself as the truth: the NIC's state is read with dcb, the
# writes reaching each NIC are the simulated driver's own set_count.

ALL_TESTS="
	journal_damaged
	journal_foreign_ifindex
	journal_agent_stuck
	rename_mid_apply
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_AGENT=${RT_AGENT:-$RT_TOP/build/userspace/rocetuned}
SIM_BUS=/sys/bus/rocetune_sim
ID=$((RANDOM % 700 + 100))
ID2=$((ID + 1))
DEV=rsim$ID
DEV2=rsim$ID2
TMPNAME=rsimren$ID
DFS=/sys/kernel/debug/rocetune_sim
PORT=$((RANDOM % 2000 + 19000))
WORK=$(mktemp -d /tmp/rt-journal.XXXXXX)
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
JOURNAL=$ROCETUNE_RUN_DIR/$DEV.journal
AGENT_PID=
mkdir -p "$ROCETUNE_PROFILE_DIR"

cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2> /dev/null &&
		wait "$AGENT_PID" 2> /dev/null
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$ID2" > "$SIM_BUS/del_device" 2> /dev/null
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

sets() {
	cat "$DFS/$1/set_count"
}

# wrote ID N: NIC ID has taken more than N set operations.
wrote() {
	[ "$(sets "$1")" -gt "$2" ]
}

# The DCB state of NIC $1 as iproute2's dcb reads it.
dcb_state() {
	dcb -j ets show dev "$1" && dcb -j pfc show dev "$1" &&
		dcb -j app show dev "$1"
}

new_nic() {
	echo "$1 mlx5" > "$SIM_BUS/new_device" || return 1
	ip link set "rsim$1" up || return 1
	wait_for 10 "$RT_CLI" profile show dev "rsim$1" || return 1
	# a PFC change flaps mlx5's link: not here, the renames need it down
	echo N > "$DFS/$1/pfc_link_flap"
}

# The profile follows the first NIC by its bus-info, whatever its name.
write_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-lossless.conf" << EOF
[Match]
PciAddress=$BUS

[Lossless]
Trust=dscp
DSCPToPriority=26:3 48:6
PFC=3
PriorityToTC=3:3 6:6
TSA=0:ets 3:ets 6:strict
ETSBandwidth=0:50 3:50
EOF
}

reset_nic() {
	rt_dcb pfc set dev "$1" prio-pfc all:off delay 7 > /dev/null
	rt_dcb app flush dev "$1" > /dev/null 2>&1 ||
		rt_dcb app del dev "$1" dscp-prio 26:3 48:6 > /dev/null
	rt_dcb ets set dev "$1" tc-tsa all:ets tc-bw all:0 0:100 \
		prio-tc all:0 > /dev/null
}

setup() {
	rt_sim_load || return 1
	new_nic "$ID" || return 1
	new_nic "$ID2" || return 1
	BUS=$(ethtool -i "$DEV" | awk '$1 == "bus-info:" { print $2 }')
	[ -n "$BUS" ] || return 1
	write_profile
	"$RT_CLI" profile check > /dev/null
}

# journal_file NAME IFINDEX LINES...: a journal of NAME with LINES after
# its header, as an apply of this version writes one.
journal_file() {
	local name=$1 ifindex=$2 l

	shift 2
	{
		printf 'rocetune-journal 1\nnetdev %s\nifindex %s\npid 1\n' \
			"$name" "$ifindex"
		printf 'time %s\ndriver mlx5_core\n' "$(date +%s)"
		for l; do printf '%s\n' "$l"; done
	} > "$ROCETUNE_RUN_DIR/$name.journal"
}

# blocked WHY...: an apply of $DEV fails, naming the journal and each WHY,
# writes nothing, and leaves the journal; show says it is stuck.
blocked() {
	local before out rc w

	before=$(sets "$ID")
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	rc=$?
	expect "apply exit status" "$rc" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" error
	for w in "$JOURNAL" "journal discard dev $DEV" "$@"; do
		jq -r '.[0].error' <<< "$out" | grep -qF -- "$w"
		check_err $? "the error does not say \"$w\": $out"
	done
	expect "writes reaching $DEV" "$(($(sets "$ID") - before))" 0
	[ -f "$JOURNAL" ]
	check_err $? "the journal was removed"
	out=$("$RT_CLI" -j profile journal show dev "$DEV")
	expect "journal show: state" "$(jq -r '.[0].state' <<< "$out")" stuck
	out=$("$RT_CLI" -j profile show dev "$DEV")
	expect "profile show: journal" "$(jq -r '.[0].journal' <<< "$out")" stuck
}

# discard_then_apply: discard recovers, the next apply applies.
discard_then_apply() {
	local out

	out=$("$RT_CLI" -j profile journal discard dev "$DEV")
	check_err $? "discard failed: $out"
	expect "discarded" "$(jq -r '.[0].file' <<< "$out")" "$JOURNAL"
	[ ! -e "$JOURNAL" ]
	check_err $? "the journal is still there"
	"$RT_CLI" profile journal discard dev "$DEV" > /dev/null 2>&1
	expect "a second discard (none left)" "$?" 1
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "apply after the discard failed: $out"
	expect "result after the discard" "$(jq -r '.[0].result' <<< "$out")" applied
	dcb -j pfc show dev "$DEV" | jq -e '.prio_pfc[3] == true' > /dev/null
	check_err $? "dcb: PFC not on priority 3 after the apply"
}

journal_damaged() {
	local ifx

	RET=0
	reset_nic "$DEV"
	ifx=$(cat "/sys/class/net/$DEV/ifindex")
	mkdir -p "$ROCETUNE_RUN_DIR"
	# 256 would reach the driver as pfc_en 0: PFC off on every priority
	journal_file "$DEV" "$ifx" "s 1 0 0 4 256 7 0 8"
	blocked "is damaged" "line 7: pfc value 0 is 256, above 255"
	discard_then_apply
	reset_nic "$DEV"
	journal_file "$DEV" "$ifx" "s 1 0 0 4 8 7 0"
	blocked "is damaged" "fewer values than N"
	discard_then_apply
	log_test "a damaged or out-of-range journal: named with its line, nothing written, kept; discard recovers"
}

journal_foreign_ifindex() {
	local pid old new before n0

	RET=0
	reset_nic "$DEV"
	old=$(cat "/sys/class/net/$DEV/ifindex")
	n0=$(sets "$ID")
	ROCETUNE_APPLY_DELAY_MS=1000 "$RT_CLI" profile apply dev "$DEV" \
		> /dev/null 2>&1 &
	pid=$!
	wait_for 10 wrote "$ID" "$n0"
	check_err $? "the apply wrote nothing"
	kill -9 "$pid"
	wait "$pid" 2> /dev/null
	[ -f "$JOURNAL" ]
	check_err $? "no journal after the kill"
	# The NIC is removed and re-created: same name, another ifindex.
	echo "$ID" > "$SIM_BUS/del_device"
	new_nic "$ID"
	check_err $? "cannot re-create $DEV"
	new=$(cat "/sys/class/net/$DEV/ifindex")
	[ "$new" != "$old" ]
	check_err $? "the re-created NIC has the old ifindex $old"
	before=$(dcb_state "$DEV")
	blocked "when it was ifindex $old" "now ifindex $new"
	expect "state of the new $DEV" "$(dcb_state "$DEV")" "$before"
	discard_then_apply
	log_test "a journal of another ifindex (NIC re-created after a kill): refused, kept, not restored; discard recovers"
}

journal_agent_stuck() {
	local ifx m st

	RET=0
	reset_nic "$DEV"
	ifx=$(cat "/sys/class/net/$DEV/ifindex")
	journal_file "$DEV" "$ifx" "garbage"
	"$RT_AGENT" --foreground --poll-interval 1 \
		--metrics-listen "127.0.0.1:$PORT" 2> "$WORK/agent.log" &
	AGENT_PID=$!
	wait_for 30 grep -q "$DEV.*journal.*is damaged" "$WORK/agent.log"
	check_err $? "the agent logs no stuck journal: $(tail -3 "$WORK/agent.log")"
	st=$("$RT_CLI" -j agent status)
	expect "agent status: journal state" \
		"$(jq -r --arg d "$DEV" '.nics[] | select(.netdev == $d) | .journal.state' <<< "$st")" stuck
	jq -r --arg d "$DEV" '.nics[] | select(.netdev == $d) | .journal.reason' <<< "$st" |
		grep -qF "line 7"
	check_err $? "agent status does not say what is damaged: $st"
	m=$(curl -sf "http://127.0.0.1:$PORT/metrics")
	check_err $? "no /metrics"
	grep -qx "rocetune_agent_journal_stuck{netdev=\"$DEV\"} 1" <<< "$m"
	check_err $? "/metrics: $DEV not stuck: $(grep journal_stuck <<< "$m")"
	grep -qx "rocetune_agent_journal_stuck{netdev=\"$DEV2\"} 0" <<< "$m"
	check_err $? "/metrics: $DEV2 not 0"
	promtool check metrics <<< "$m" > /dev/null 2>&1
	check_err $? "promtool: $(promtool check metrics <<< "$m" 2>&1 | head -3)"
	# Discarded: the agent applies by itself at its next check.
	"$RT_CLI" profile journal discard dev "$DEV" > /dev/null
	check_err $? "discard failed"
	wait_for 15 grep -q "$DEV: profile 50-lossless.conf applied (journal gone)" \
		"$WORK/agent.log"
	check_err $? "the agent did not apply after the discard: $(tail -3 "$WORK/agent.log")"
	m=$(curl -sf "http://127.0.0.1:$PORT/metrics")
	grep -qx "rocetune_agent_journal_stuck{netdev=\"$DEV\"} 0" <<< "$m"
	check_err $? "/metrics: $DEV still stuck"
	dcb -j pfc show dev "$DEV" | jq -e '.prio_pfc[3] == true' > /dev/null
	check_err $? "dcb: PFC not on priority 3 after the agent's apply"
	kill "$AGENT_PID"
	wait "$AGENT_PID" 2> /dev/null
	AGENT_PID=
	log_test "agent: a stuck journal in status and rocetune_agent_journal_stuck; applied once discarded"
}

# $DEV is renamed mid-apply and $DEV2 takes its name: not one write of
# the apply may reach $DEV2; the journal stays for $DEV's new name.
rename_mid_apply() {
	local pid out rc before2 state n0

	RET=0
	reset_nic "$DEV"
	reset_nic "$DEV2"
	state=$(dcb_state "$DEV")
	before2=$(sets "$ID2")
	n0=$(sets "$ID")
	ROCETUNE_APPLY_DELAY_MS=1000 "$RT_CLI" -j profile apply dev "$DEV" \
		> "$WORK/rename.json" 2> /dev/null &
	pid=$!
	wait_for 10 wrote "$ID" "$n0"
	check_err $? "the apply wrote nothing"
	ip -batch - << EOF
link set dev $DEV down
link set dev $DEV name $TMPNAME
link set dev $DEV2 down
link set dev $DEV2 name $DEV
EOF
	check_err $? "the renames failed"
	wait "$pid"
	rc=$?
	out=$(cat "$WORK/rename.json")
	expect "writes reaching $DEV2 (now named $DEV)" \
		"$(($(sets "$ID2") - before2))" 0
	expect "exit status" "$rc" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" vanished
	jq -r '.[0].error' <<< "$out" | grep -qF "renamed to $TMPNAME"
	check_err $? "the error does not name the new name: $out"
	[ -f "$JOURNAL" ]
	check_err $? "the journal was not kept"
	out=$("$RT_CLI" -j profile journal show dev "$TMPNAME")
	expect "journal of $TMPNAME" "$(jq -r '.[0].state' <<< "$out")" pending
	# Under its new name the NIC restores the journal, then applies.
	ip link set "$TMPNAME" up
	out=$("$RT_CLI" -j profile apply dev "$TMPNAME")
	check_err $? "apply to $TMPNAME failed: $out"
	expect "recovered" "$(jq -r '.[0].recovered' <<< "$out")" true
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	[ ! -e "$JOURNAL" ]
	check_err $? "the journal is left"
	expect "writes reaching $DEV2 in all" "$(($(sets "$ID2") - before2))" 0
	[ "$(dcb_state "$TMPNAME")" != "$state" ]
	check_err $? "$TMPNAME is not tuned"
	# Names back, for the tests after this one.
	ip -batch - << EOF
link set dev $DEV name $DEV2
link set dev $TMPNAME down
link set dev $TMPNAME name $DEV
link set dev $DEV up
link set dev $DEV2 up
EOF
	log_test "a NIC renamed mid-apply, its name taken: no write to the other NIC, journal restored under the new name"
}

rt_require_root
rt_require_cmd dcb ethtool jq curl promtool
if ! setup; then
	echo "not ok 1 setup: simulated NICs # setup failed"
	exit "$KSFT_FAIL"
fi
rt_run_tests
