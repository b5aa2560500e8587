#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune profile apply on simulated mlx5 and bnxt_re NICs and on
# Soft-RoCE, checked by independent readers: iproute2's dcb, ethtool, the
# vendor cc files, and the simulated NIC's own count of the set operations
# that reached it (set_count).  Failures are injected at every write with
# the simulated NIC's fail_set and ignore_set knobs, kernel lockdown with
# cc_lockdown, a crash with SIGKILL, and a NIC that vanishes mid-apply.

ALL_TESTS="
	apply_mlx5
	reapply_zero_writes
	dry_run_and_diff
	apply_bnxt_re
	fail_at_each_write
	ignore_at_each_write
	cc_lockdown
	sigkill_then_recover
	two_appliers
	vanish_mid_apply
	soft_roce_and_no_dcb
	invalid_profile_applies_nothing
	check_corpus
	unprivileged
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
SIM_BUS=/sys/bus/rocetune_sim
ID=$((RANDOM % 700 + 100))
BX=$((ID + 1))
DEV=rsim$ID
BDEV=rsim$BX
DFS=/sys/kernel/debug/rocetune_sim
CC=/sys/kernel/debug/mlx5/rocetune_sim$ID/cc_params
BCC=/sys/kernel/debug/bnxt_re/rocetune_sim$BX/cc_config
WORK=$(mktemp -d /tmp/rt-profile.XXXXXX)
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"

cleanup() {
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$BX" > "$SIM_BUS/del_device" 2> /dev/null
	rt_wire_down
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

# jqv FILTER CMD...: CMD's JSON through FILTER; fails on empty output.
jqv() {
	local filter=$1 out

	shift
	out=$("$@") || return 1
	[ -n "$out" ] || return 1
	jq -c "$filter" <<< "$out"
}

sets() {
	cat "$DFS/$1/set_count"
}

# The whole DCB, tunable and DCQCN state of the mlx5 NIC, as the
# independent tools show it.
mlx5_state() {
	dcb -j ets show dev "$DEV" || return 1
	dcb -j pfc show dev "$DEV" || return 1
	dcb -j app show dev "$DEV" || return 1
	dcb -j maxrate show dev "$DEV" || return 1
	dcb -j buffer show dev "$DEV" || return 1
	ethtool --get-tunable "$DEV" pfc-prevention-tout || return 1
	grep -H . "$CC"/*
}

write_mlx5_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-lossless.conf" << EOF
# lossless RoCE on DSCP 26 / priority 3, CNPs on DSCP 46 / priority 7
[Match]
Name=$DEV

[Lossless]
Trust=dscp
DSCPToPriority=26:3 48:6
PFC=3
PriorityToTC=3:3 6:6
TSA=0:ets 3:ets 6:strict
ETSBandwidth=0:50 3:50
MaxRateMbps=6:1000
BufferSizeBytes=0:131072 1:131072
PriorityToBuffer=3:1
CableLengthMeters=10
PFCStormTimeoutMs=auto

[DCQCN]
CNPDSCP=46
CNPPriority=7
MinRateMbps=10
AIRateMbps=20
G=1000
ClampTargetRate=yes
EOF
}

setup() {
	rt_sim_load || return 1
	echo "$ID mlx5" > "$SIM_BUS/new_device" || return 1
	echo "$BX bnxt_re" > "$SIM_BUS/new_device" || return 1
	ip link set "$DEV" up && ip link set "$BDEV" up || return 1
	wait_for 10 "$RT_CLI" profile show dev "$DEV" || return 1
	[ -d "$CC" ] && [ -d "$BCC" ]
}

apply_mlx5() {
	local before out writes

	RET=0
	write_mlx5_profile
	before=$(sets "$ID")
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "apply failed: $out"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	writes=$(jq -r '.[0].writes' <<< "$out")
	expect "writes reported vs seen by the NIC" "$writes" \
		"$(($(sets "$ID") - before))"
	[ "$writes" -ge 10 ]
	check_err $? "only $writes writes"
	expect "dcb prio-pfc" "$(jqv .prio_pfc dcb -j pfc show dev "$DEV")" \
		"[false,false,false,true,false,false,false,false]"
	expect "dcb delay" "$(jqv .delay dcb -j pfc show dev "$DEV")" 10
	expect "dcb dscp-prio" "$(jqv .dscp_prio dcb -j app show dev "$DEV")" \
		"[[26,3],[48,6]]"
	expect "dcb prio-tc" "$(jqv .prio_tc dcb -j ets show dev "$DEV")" \
		"[0,0,0,3,0,0,6,0]"
	expect "dcb tc-bw" "$(jqv .tc_bw dcb -j ets show dev "$DEV")" \
		"[50,0,0,50,0,0,0,0]"
	expect "dcb tc-tsa" "$(jqv '.tc_tsa[6]' dcb -j ets show dev "$DEV")" \
		'"strict"'
	# dcb -j prints the kernel's number, which is in kbit/s: 1000 Mb/s
	expect "dcb tc-maxrate" \
		"$(jqv '.tc_maxrate[6]' dcb -j maxrate show dev "$DEV")" 1000000
	expect "dcb buffer-size" \
		"$(jqv '.buffer_size[0:2]' dcb -j buffer show dev "$DEV")" \
		"[131072,131072]"
	expect "dcb prio-buffer" \
		"$(jqv '.prio_buffer[3]' dcb -j buffer show dev "$DEV")" 1
	# mlx5 turns "auto" into its 100 ms default, and reads that back
	ethtool --get-tunable "$DEV" pfc-prevention-tout | grep -q ' 100'
	check_err $? "pfc-prevention-tout is not auto (100 ms)"
	expect "np_cnp_dscp" "$(cat "$CC/np_cnp_dscp")" 46
	expect "np_cnp_prio" "$(cat "$CC/np_cnp_prio")" 7
	expect "np_cnp_prio_mode" "$(cat "$CC/np_cnp_prio_mode")" 0
	expect "rp_min_rate" "$(cat "$CC/rp_min_rate")" 10
	expect "rp_ai_rate" "$(cat "$CC/rp_ai_rate")" 20
	expect "rp_dce_tcp_g" "$(cat "$CC/rp_dce_tcp_g")" 1000
	expect "rp_clamp_tgt_rate" "$(cat "$CC/rp_clamp_tgt_rate")" 1
	log_test "apply: a lossless + DCQCN profile on simulated mlx5, read back by dcb, ethtool and cc_params ($writes writes)"
}

reapply_zero_writes() {
	local before out

	RET=0
	before=$(sets "$ID")
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "re-apply failed: $out"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" unchanged
	expect "writes reported" "$(jq -r '.[0].writes' <<< "$out")" 0
	expect "set operations seen by the NIC" "$(($(sets "$ID") - before))" 0
	log_test "re-apply of an unchanged profile performs zero writes"
}

dry_run_and_diff() {
	local before state out

	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc all:off
	echo 3 > "$CC/rp_min_rate"
	state=$(mlx5_state)
	check_err $? "cannot read the state"
	before=$(sets "$ID")
	out=$("$RT_CLI" -j profile apply dev "$DEV" dry-run)
	check_err $? "dry-run failed"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" dry-run
	expect "changes" "$(jq -c '[.[0].changes[].setting] | sort' <<< "$out")" \
		'["dcqcn MinRateMbps","pfc"]'
	expect "writes by dry-run" "$(($(sets "$ID") - before))" 0
	expect "state after dry-run" "$(mlx5_state)" "$state"
	out=$("$RT_CLI" -j profile diff dev "$DEV")
	check_err $? "diff failed"
	expect "diff" "$(jq -c '[.[0].settings[] | select(.differs) | .setting] | sort' <<< "$out")" \
		'["dcqcn MinRateMbps","pfc"]'
	expect "diff old pfc" "$(jq -r '.[0].settings[] | select(.setting == "pfc") | .old' <<< "$out")" \
		"prio-pfc none delay 10"
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "apply failed"
	expect "writes to restore drift" "$(jq -r '.[0].writes' <<< "$out")" 2
	log_test "dry-run and diff show the drift and write nothing; apply writes only it"
}

apply_bnxt_re() {
	local out before

	RET=0
	cat > "$ROCETUNE_PROFILE_DIR/40-bnxt.conf" << EOF
[Match]
Driver=rocetune_sim
Name=$BDEV

[Lossless]
PFC=3 4

[DCQCN]
Enable=yes
CNPDSCP=46
CNPPriority=7
G=8
EOF
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	check_err $? "apply failed: $out"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	expect "dcb prio-pfc" "$(jqv .prio_pfc dcb -j pfc show dev "$BDEV")" \
		"[false,false,false,true,true,false,false,false]"
	expect "alt_vlan_dscp" "$(cat "$BCC/alt_vlan_dscp")" 46
	expect "alt_vlan_pcp" "$(cat "$BCC/alt_vlan_pcp")" 7
	expect "run_avg_weight_g" "$(cat "$BCC/run_avg_weight_g")" 8
	expect "enable_cc" "$(cat "$BCC/enable_cc")" 1

	# bnxt_en has no maxrate op: the kernel would ignore it silently.
	echo "MaxRateMbps=3:1000" >> "$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	sed -i 's/^MaxRateMbps=.*//; /^\[Lossless\]/a MaxRateMbps=3:1000' \
		"$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	before=$(sets "$BX")
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	expect "exit status" "$?" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" invalid
	jq -r '.[0].errors[]' <<< "$out" | grep -q '40-bnxt.conf:[0-9]*: \[Lossless\] MaxRateMbps: .*no per-TC max rate'
	check_err $? "no error naming MaxRateMbps: $out"
	expect "writes" "$(($(sets "$BX") - before))" 0
	sed -i '/^MaxRateMbps=/d' "$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	# An mlx5-only key on bnxt_re.
	echo "AIRateMbps=5" >> "$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	expect "exit status" "$?" 1
	jq -r '.[0].errors[]' <<< "$out" | grep -q 'AIRateMbps: bnxt_re has no equivalent'
	check_err $? "no error naming AIRateMbps: $out"
	sed -i '/^AIRateMbps=/d' "$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	log_test "apply on simulated bnxt_re: cc_config written; maxrate and mlx5-only keys refused before any write"
}

# A baseline profile state of the mlx5 NIC, different from the profile.
mlx5_reset() {
	local f

	rt_dcb pfc set dev "$DEV" prio-pfc all:off delay 7 > /dev/null
	rt_dcb app flush dev "$DEV" > /dev/null 2>&1 ||
		rt_dcb app del dev "$DEV" dscp-prio 26:3 48:6 > /dev/null
	rt_dcb ets set dev "$DEV" tc-tsa all:ets tc-bw all:0 0:100 \
		prio-tc all:0 > /dev/null
	rt_dcb maxrate set dev "$DEV" tc-maxrate all:0 > /dev/null
	ethtool --set-tunable "$DEV" pfc-prevention-tout 500
	for f in np_cnp_dscp rp_min_rate rp_ai_rate; do
		echo 1 > "$CC/$f"
	done
}

# inject_at_each_write KNOB VALUE-FMT WHAT: for every write K of a full
# apply, arm KNOB with printf VALUE-FMT K and check the apply fails,
# names the failure, and leaves the NIC as it was.  INJECTED gets the
# number of writes.
INJECTED=0
inject_at_each_write() {
	local knob=$1 fmt=$2 what=$3 total k state out rc result error

	mlx5_reset
	total=$("$RT_CLI" -j profile apply dev "$DEV" dry-run |
		jq '.[0].changes | length')
	check_err $? "dry-run failed"
	[ "${total:-0}" -ge 8 ]
	check_err $? "only ${total:-0} changes to inject into"
	state=$(mlx5_state)
	check_err $? "cannot read the state"
	for ((k = 0; k < ${total:-0}; k++)); do
		# shellcheck disable=SC2059
		printf "$fmt\n" "$k" > "$DFS/$ID/$knob"
		out=$("$RT_CLI" -j profile apply dev "$DEV")
		rc=$?
		expect "exit status at write $k" "$rc" 1
		IFS=$'\t' read -r result error < <(jq -r '.[0] | [.result, .error] | @tsv' <<< "$out")
		expect "result at write $k" "$result" rolled-back
		[[ $error == *"$what"* ]]
		check_err $? "write $k: error does not say '$what': $error"
		expect "state after failing write $k" "$(mlx5_state)" "$state"
		[ "$RET" -eq 0 ] || break
	done
	[ -z "$(ls "$ROCETUNE_RUN_DIR"/*.journal 2> /dev/null)" ]
	check_err $? "a journal is left"
	INJECTED=$total
}

fail_at_each_write() {
	RET=0
	inject_at_each_write fail_set "%d 22" "EINVAL"
	log_test "a driver refusal (EINVAL) at each of the $INJECTED writes: rolled back, named, NIC as before"
}

ignore_at_each_write() {
	RET=0
	inject_at_each_write ignore_set "%d" "read back"
	log_test "a value silently ignored at each of the $INJECTED writes: caught by read-back, rolled back"
}

cc_lockdown() {
	local before out

	RET=0
	mlx5_reset
	echo 1 > "$DFS/$ID/cc_lockdown"
	before=$(sets "$ID")
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	expect "exit status" "$?" 1
	echo 0 > "$DFS/$ID/cc_lockdown"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" invalid
	jq -r '.[0].errors[]' <<< "$out" | grep -qi 'lockdown'
	check_err $? "the error does not explain lockdown: $out"
	expect "writes" "$(($(sets "$ID") - before))" 0
	log_test "cc files refused as under Secure Boot lockdown: explained, nothing written"
}

sigkill_then_recover() {
	local pid out state

	RET=0
	mlx5_reset
	state=$(mlx5_state)
	ROCETUNE_APPLY_DELAY_MS=400 "$RT_CLI" profile apply dev "$DEV" \
		> /dev/null 2>&1 &
	pid=$!
	sleep 1.6
	kill -9 "$pid"
	wait "$pid" 2> /dev/null
	[ -f "$ROCETUNE_RUN_DIR/$DEV.journal" ]
	check_err $? "no journal after the kill"
	[ "$(mlx5_state)" != "$state" ]
	check_err $? "the killed apply changed nothing"
	out=$("$RT_CLI" -j profile show dev "$DEV")
	expect "show notes the journal" \
		"$(jq -r '.[0].interrupted_apply' <<< "$out")" true
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "apply after the kill failed: $out"
	expect "recovered" "$(jq -r '.[0].recovered' <<< "$out")" true
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	[ ! -e "$ROCETUNE_RUN_DIR/$DEV.journal" ]
	check_err $? "journal left"
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	expect "then unchanged" "$(jq -r '.[0].result' <<< "$out")" unchanged
	log_test "SIGKILL mid-apply: the next apply restores the journal's snapshot, then applies"
}

two_appliers() {
	local before pid out1 out2

	RET=0
	mlx5_reset
	before=$(sets "$ID")
	ROCETUNE_APPLY_DELAY_MS=200 "$RT_CLI" -j profile apply dev "$DEV" \
		> "$WORK/first.json" &
	pid=$!
	sleep 0.5
	out2=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "second apply failed"
	wait "$pid"
	check_err $? "first apply failed"
	out1=$(cat "$WORK/first.json")
	expect "first result" "$(jq -r '.[0].result' <<< "$out1")" applied
	expect "second result" "$(jq -r '.[0].result' <<< "$out2")" unchanged
	expect "writes seen by the NIC" "$(($(sets "$ID") - before))" \
		"$(jq -r '.[0].writes' <<< "$out1")"
	log_test "two appliers on one NIC do not interleave: the second waits and finds nothing to do"
}

vanish_mid_apply() {
	local pid out rc

	RET=0
	mlx5_reset
	ROCETUNE_APPLY_DELAY_MS=400 "$RT_CLI" -j profile apply dev "$DEV" \
		> "$WORK/vanish.json" 2> "$WORK/vanish.err" &
	pid=$!
	sleep 1.2
	echo "$ID" > "$SIM_BUS/del_device"
	wait "$pid"
	rc=$?
	out=$(cat "$WORK/vanish.json")
	expect "exit status" "$rc" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" vanished
	jq -r '.[0].state' <<< "$out" | grep -q "$DEV disappeared"
	check_err $? "no clear message: $out"
	[ ! -e "$ROCETUNE_RUN_DIR/$DEV.journal" ]
	check_err $? "journal left for a vanished NIC"
	# The NIC comes back: the profile applies to it from scratch.
	echo "$ID mlx5" > "$SIM_BUS/new_device"
	wait_for 10 "$RT_CLI" profile show dev "$DEV"
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "apply on the re-added NIC failed: $out"
	log_test "a NIC removed mid-apply: clear error, no journal left, re-added NIC applies"
}

soft_roce_and_no_dcb() {
	local out

	RET=0
	rt_wire_up
	check_err $? "Soft-RoCE wire setup failed"
	cat > "$ROCETUNE_PROFILE_DIR/10-rxe.conf" << EOF
[Match]
Name=$RT_NETDEV0

[DCQCN]
CNPDSCP=48
EOF
	cat > "$ROCETUNE_PROFILE_DIR/11-rxe.conf" << EOF
[Match]
Name=$RT_NETDEV1

[Lossless]
PFC=3
EOF
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	expect "exit status" "$?" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" invalid
	jq -r '.[0].errors[]' <<< "$out" | grep -q "10-rxe.conf:5: \[DCQCN\] CNPDSCP: $RT_NETDEV0: rxe0 is software RoCE, which has no DCQCN interface"
	check_err $? "rxe: $out"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV1")
	expect "exit status" "$?" 1
	jq -r '.[0].errors[]' <<< "$out" | grep -q "11-rxe.conf:5: \[Lossless\] PFC: .*DCB"
	check_err $? "veth without DCB: $out"
	# Every NIC at once: both fail, the simulated ones stay applied.
	"$RT_CLI" -j profile apply > "$WORK/all.json"
	expect "exit status of apply for all" "$?" 1
	expect "results" "$(jq -c '[.[] | .result] | sort' "$WORK/all.json")" \
		'["invalid","invalid","unchanged","unchanged"]'
	rm -f "$ROCETUNE_PROFILE_DIR"/1[01]-rxe.conf
	rt_wire_down
	log_test "Soft-RoCE: 'no DCQCN interface' and 'no DCB' named with file:line, never silence"
}

invalid_profile_applies_nothing() {
	local before out rc

	RET=0
	mlx5_reset
	printf '[Match]\nName=zzz*\n[Lossless]\nPFC=9\n' \
		> "$ROCETUNE_PROFILE_DIR/90-broken.conf"
	before=$(sets "$ID")
	out=$("$RT_CLI" profile apply 2>&1)
	rc=$?
	expect "exit status" "$rc" 2
	grep -q "90-broken.conf:4: \[Lossless\] PFC=9" <<< "$out"
	check_err $? "no file:line error: $out"
	expect "writes" "$(($(sets "$ID") - before))" 0
	rm -f "$ROCETUNE_PROFILE_DIR/90-broken.conf"
	log_test "one invalid profile in the directory: exit 2 with file:line, nothing applied anywhere"
}

check_corpus() {
	local f line sub out l rc found n=0 bad=0
	local files=("$RT_SELFTESTS"/profiles/bad/*.conf)

	RET=0
	# Runs over 20 files at a time (the CLI prints at most 128 errors
	# per run): each file must get its own error.
	out=
	for ((n = 0; n < ${#files[@]}; n += 20)); do
		l=$("$RT_CLI" profile check "${files[@]:n:20}" 2>&1)
		rc=$?
		expect "exit status of the check of files $n.." "$rc" 2
		out+=$l$'\n'
	done
	n=0
	for f in "${files[@]}"; do
		read -r _ _ line sub < "$f"
		found=0
		while IFS= read -r l; do
			case $l in
			"$f:$line:"*"$sub"*) found=1; break ;;
			esac
		done <<< "$out"
		if [ "$found" = 0 ]; then
			bad=$((bad + 1))
			echo "# $f: no error at line $line with '$sub'"
		fi
		n=$((n + 1))
	done
	[ "$n" -ge 50 ]
	check_err $? "only $n malformed profiles"
	expect "profiles not rejected as expected" "$bad" 0
	"$RT_CLI" profile check "$RT_SELFTESTS"/profiles/good/*.conf \
		"$RT_TOP"/profiles/*.conf > /dev/null
	check_err $? "a good profile or a shipped example was rejected"
	log_test "profile check: $n malformed profiles each rejected with file:line (exit 2); the examples pass"
}

unprivileged() {
	local before out rc

	RET=0
	mlx5_reset
	chmod 755 "$WORK"
	before=$(sets "$ID")
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$RT_CLI" profile apply dev "$DEV" 2>&1)
	rc=$?
	expect "exit status" "$rc" 1
	grep -Eq 'Permission denied|needs root|CAP_NET_ADMIN|Operation not permitted' <<< "$out"
	check_err $? "no clear error: $out"
	expect "writes" "$(($(sets "$ID") - before))" 0
	log_test "an unprivileged apply is refused with a clear error and writes nothing"
}

rt_require_root
if ! setup; then
	echo "not ok 1 setup: simulated NICs # setup failed"
	exit "$KSFT_FAIL"
fi
rt_run_tests
