#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune profile apply on simulated mlx5, bnxt_re and irdma NICs and on
# Soft-RoCE, checked by independent readers: iproute2's dcb, ethtool, the
# vendor cc files, the simulated NIC's own count of the set operations
# that reached it (set_count), and for rxe (rocetune.ko's DCQCN) the
# module's QP_STATS_GET read by the YNL client rt_qp.py.  Failures are injected at every write with
# the simulated NIC's fail_set and ignore_set knobs, kernel lockdown with
# cc_lockdown, a crash with SIGKILL, and a NIC that vanishes mid-apply.

ALL_TESTS="
	apply_mlx5
	reapply_zero_writes
	dry_run_and_diff
	apply_bnxt_re
	driver_rules
	dscp_remap_bnxt
	dscp_remap_ice
	pfc_headroom_order
	driver_prechecks
	fail_at_each_write
	ignore_at_each_write
	cc_lockdown
	sigkill_then_recover
	two_appliers
	vanish_mid_apply
	soft_roce_and_no_dcb
	rxe_no_module
	rxe_apply
	rxe_refused_before_writing
	rxe_module_refusal_rolls_back
	rxe_vanish_mid_apply
	invalid_profile_applies_nothing
	check_corpus
	check_not_a_profile
	unprivileged
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_KMOD_HERE=0
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
	[ "$RT_KMOD_HERE" = 1 ] && rt_kmod_unload
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$BX" > "$SIM_BUS/del_device" 2> /dev/null
	echo $((ID + 3)) > "$SIM_BUS/del_device" 2> /dev/null
	echo $((ID + 4)) > "$SIM_BUS/del_device" 2> /dev/null
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
	expect "diff exit status (1: differs, like diff(1))" "$?" 1
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
Driver=bnxt_en
Name=$BDEV

[Lossless]
PFC=3 4

[DCQCN]
Enable=yes
CNPDSCP=46
CNPPriority=7
G=8
EOF
	# bnxt_en refuses PFC until ETS is set once, and reads an empty ETS
	# until then: refused before any write, naming the rule
	expect "dcb ets of a fresh bnxt_re" \
		"$(jqv .tc_bw dcb -j ets show dev "$BDEV")" "[0,0,0,0,0,0,0,0]"
	before=$(sets "$BX")
	out=$("$RT_CLI" -j profile apply dev "$BDEV" dry-run)
	expect "exit status of a dry-run, PFC without ETS" "$?" 1
	jq -r '.[0].errors[]' <<< "$out" | grep -q '40-bnxt.conf:[0-9]*: \[Lossless\] PFC: bnxt_en refuses PFC until ETS has been set once'
	check_err $? "the dry-run does not name bnxt_en's ETS-before-PFC rule: $out"
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	expect "exit status of apply, PFC without ETS" "$?" 1
	expect "result, PFC without ETS" "$(jq -r '.[0].result' <<< "$out")" invalid
	out=$("$RT_CLI" -j profile check)
	expect "exit status of profile check, PFC without ETS" "$?" 2
	jq -r '.errors[]' <<< "$out" | grep -q "40-bnxt.conf:[0-9]*: \[Lossless\] PFC: bnxt_en refuses PFC until ETS has been set once.* \[on $BDEV\]$"
	check_err $? "profile check does not name bnxt_en's ETS-before-PFC rule: $out"
	expect "writes, PFC without ETS" "$(($(sets "$BX") - before))" 0
	# with ETS in the profile it applies: ETS first, then PFC
	sed -i '/^PFC=/a PriorityToTC=3:1 4:2\nTSA=3:strict 4:strict 5:strict 6:strict 7:strict\nETSBandwidth=0:50 1:25 2:25' \
		"$ROCETUNE_PROFILE_DIR/40-bnxt.conf"
	out=$("$RT_CLI" profile check 2>&1)
	check_err $? "profile check refuses PFC with ETS on a fresh bnxt_re: $out"
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	check_err $? "apply failed: $out"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	expect "dcb prio-pfc" "$(jqv .prio_pfc dcb -j pfc show dev "$BDEV")" \
		"[false,false,false,true,true,false,false,false]"
	expect "dcb prio-tc" "$(jqv .prio_tc dcb -j ets show dev "$BDEV")" \
		"[0,0,0,1,2,0,0,0]"
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
	log_test "apply on simulated bnxt_re: PFC without ETS refused by check, dry-run and apply naming bnxt_en's rule, with ETS applied; cc_config written; maxrate and mlx5-only keys refused before any write"
}

# The simulated NICs are their drivers to rocetune (ethtool -i): a
# Driver= match of the simulator matches nothing, the real driver names
# match, and the driver-specific rules run: mlx5's max rate units, its
# link flap on a PFC change, irdma's missing DCQCN interface.
driver_rules() {
	local dir=$WORK/drivers ix=$((ID + 3)) out

	RET=0
	mkdir -p "$dir"
	printf '[Match]\nDriver=rocetune_sim\n\n[Lossless]\nPFC=3\n' \
		> "$dir/10-sim.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$BDEV" dry-run)
	expect "Driver=rocetune_sim on bnxt_re" \
		"$(jq -r '.[0].result' <<< "$out")" no-profile
	printf '[Match]\nDriver=mlx5_core\n\n[Lossless]\nMaxRateMbps=6:1050\n' \
		> "$dir/10-sim.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$DEV")
	expect "exit status of 1050 Mb/s on mlx5" "$?" 1
	jq -r '.[0].errors[]' <<< "$out" | grep -q 'MaxRateMbps: TC 6: 1050 Mb/s: mlx5 keeps multiples of 100 Mb/s'
	check_err $? "mlx5's max rate rule did not run: $out"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$BDEV" dry-run)
	expect "Driver=mlx5_core on bnxt_re" \
		"$(jq -r '.[0].result' <<< "$out")" no-profile
	printf '[Match]\nDriver=mlx5_core\n\n[Lossless]\nPFC=2\n' \
		> "$dir/10-sim.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$DEV" dry-run)
	check_err $? "dry-run of PFC=2 failed: $out"
	jq -r '.[0].warning' <<< "$out" | grep -q 'mlx5 take its link down and up'
	check_err $? "no mlx5 link flap warning: $out"
	echo "$ix irdma" > "$SIM_BUS/new_device"
	check_err $? "cannot create an irdma device"
	wait_for 10 "$RT_CLI" profile show dev "rsim$ix"
	printf '[Match]\nDriver=ice\n\n[DCQCN]\nCNPDSCP=46\n' > "$dir/10-sim.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "rsim$ix")
	expect "exit status of DCQCN on irdma" "$?" 1
	jq -r '.[0].errors[]' <<< "$out" | grep -q 'irdma has no DCQCN interface upstream'
	check_err $? "irdma's reason did not show: $out"
	echo "$ix" > "$SIM_BUS/del_device"
	log_test "driver identity: Driver= matches mlx5_core/bnxt_en/ice, not the simulator; mlx5 and irdma rules run"
}

# dscp_table DEV: DEV's DSCP APP entries as dcb shows them, sorted.
dscp_table() {
	jqv '.dscp_prio // [] | sort' dcb -j app show dev "$1"
}

# dscp_remap DEV PERSONALITY: DSCP 26 of DEV moves from priority 3 to 5 by
# a profile change, then a failure injected at each write of a move to
# priority 1 rolls back; every time dcb shows exactly one entry per DSCP.
dscp_remap() {
	local dev=$1 id=${1#rsim} dir=$WORK/remap-$2 out total k

	mkdir -p "$dir"
	printf '[Match]\nName=%s\n\n[Lossless]\nTrust=dscp\nDSCPToPriority=26:3 48:6\n' \
		"$dev" > "$dir/10-remap.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$dev")
	check_err $? "first apply failed: $out"
	expect "entries after the first apply" "$(dscp_table "$dev")" \
		"[[26,3],[48,6]]"
	sed -i 's/26:3/26:5/' "$dir/10-remap.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$dev")
	check_err $? "remap apply failed: $out"
	expect "result of the remap" "$(jq -r '.[0].result' <<< "$out")" applied
	expect "entries after the remap" "$(dscp_table "$dev")" "[[26,5],[48,6]]"
	total=$(jq -r '.[0].writes' <<< "$out")
	sed -i 's/26:5/26:1/' "$dir/10-remap.conf"
	for ((k = 0; k < ${total:-0}; k++)); do
		echo "$k 22" > "$DFS/$id/fail_set"
		out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$dev")
		expect "exit status, failure at write $k" "$?" 1
		expect "result, failure at write $k" \
			"$(jq -r '.[0].result' <<< "$out")" rolled-back
		expect "entries after the rollback of write $k" \
			"$(dscp_table "$dev")" "[[26,5],[48,6]]"
	done
	echo "0 0" > "$DFS/$id/fail_set"
	expect "writes of a remap" "${total:-0}" 2
	# a second entry for DSCP 48 (added beside the old one where the
	# driver keeps both) is drift, which apply removes
	sed -i 's/26:1/26:5/' "$dir/10-remap.conf"
	rt_dcb app del dev "$dev" dscp-prio 48:6
	rt_dcb app add dev "$dev" dscp-prio 48:2
	rt_dcb app add dev "$dev" dscp-prio 48:6
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$dev")
	check_err $? "apply over the extra entry failed: $out"
	expect "entries after fixing the drift" "$(dscp_table "$dev")" \
		"[[26,5],[48,6]]"
	rt_dcb app del dev "$dev" dscp-prio 26:5 48:6
}

dscp_remap_bnxt() {
	RET=0
	dscp_remap "$BDEV" bnxt_re
	log_test "DSCP remap on bnxt_re (adds append): delete then add, one entry per DSCP, also after a failure at each write"
}

dscp_remap_ice() {
	local ix=$((ID + 4))

	RET=0
	echo "$ix irdma" > "$SIM_BUS/new_device"
	check_err $? "cannot create an irdma device"
	wait_for 10 "$RT_CLI" profile show dev "rsim$ix"
	dscp_remap "rsim$ix" irdma
	echo "$ix" > "$SIM_BUS/del_device"
	log_test "DSCP remap on irdma/ice (a remap is EINVAL): delete then add, one entry per DSCP, also after a failure at each write"
}

# PFC off and its buffer down to 0 in one apply: mlx5 refuses a lossless
# buffer of size 0, so PFC must go off first; and back, the buffer must
# grow before PFC goes on again.
pfc_headroom_order() {
	local dir=$WORK/headroom out

	RET=0
	mkdir -p "$dir"
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "the main profile does not apply: $out"
	expect "start: prio-pfc 3" \
		"$(jqv '.prio_pfc[3]' dcb -j pfc show dev "$DEV")" true
	expect "start: prio 3 in buffer 1" \
		"$(jqv '.prio_buffer[3]' dcb -j buffer show dev "$DEV")" 1
	printf '[Match]\nName=%s\n\n[Lossless]\nPFC=none\nPriorityToBuffer=3:1\nBufferSizeBytes=0:262144 1:0\n' \
		"$DEV" > "$dir/10-off.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "PFC off with buffer 1 of 0 bytes failed: $out"
	expect "result of PFC off and the buffer down" \
		"$(jq -r '.[0].result' <<< "$out")" applied
	expect "dcb prio-pfc" "$(jqv .prio_pfc dcb -j pfc show dev "$DEV")" \
		"[false,false,false,false,false,false,false,false]"
	expect "dcb buffer-size" \
		"$(jqv '.buffer_size[0:2]' dcb -j buffer show dev "$DEV")" \
		"[262144,0]"
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "PFC on with buffer 1 back failed: $out"
	expect "result of the buffer up and PFC on" \
		"$(jq -r '.[0].result' <<< "$out")" applied
	expect "dcb prio-pfc 3 again" \
		"$(jqv '.prio_pfc[3]' dcb -j pfc show dev "$DEV")" true
	expect "dcb buffer-size again" \
		"$(jqv '.buffer_size[0:2]' dcb -j buffer show dev "$DEV")" \
		"[131072,131072]"
	log_test "PFC off before its buffer shrinks to 0 (mlx5 refuses a lossless one), the buffer back before PFC on"
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

# refused_before_writing DEV DIR WHAT PATTERN: apply of DIR's profiles on
# DEV exits 1 with result "invalid", an error matching PATTERN, and no
# set operation reaching the NIC; profile diff names the same rule.
refused_before_writing() {
	local dev=$1 dir=$2 what=$3 pat=$4 before out

	before=$(sets "${dev#rsim}")
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$dev")
	expect "exit status, $what" "$?" 1
	expect "result, $what" "$(jq -r '.[0].result' <<< "$out")" invalid
	jq -r '.[0].errors[]' <<< "$out" | grep -q -- "$pat"
	check_err $? "$what: the error does not name the rule: $out"
	expect "writes, $what" "$(($(sets "${dev#rsim}") - before))" 0
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" profile diff dev "$dev" 2>&1)
	grep -q -- "$pat" <<< "$out"
	check_err $? "$what: profile diff does not name the rule: $out"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile check)
	expect "exit status of profile check, $what" "$?" 2
	jq -r '.errors[]' <<< "$out" | grep -- "$pat" | grep -qF "[on $dev]"
	check_err $? "$what: profile check does not name the rule and the NIC: $out"
}

# What the driver would refuse part-way through an apply (or keep other
# than asked) is refused before any write, naming the driver's rule:
# mlx5's lossless headroom and shared pool, bnxt_en's lossless TC limit (max_lltc, counted in TCs, not
# priorities), its starved ETS TC and its TC count.  The same sets done
# with dcb leave the NIC as it was (dcb reads it back).
driver_prechecks() {
	local dir=$WORK/prechecks out ix=$((ID + 3))

	RET=0
	mkdir -p "$dir"
	rm -f "$dir"/*.conf
	# mlx5, after apply_mlx5: PFC on 3, prio 3 in buffer 1 of 131072
	printf '[Match]\nName=%s\n\n[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:131072 1:40000\n' \
		"$DEV" > "$dir/10-p.conf"
	refused_before_writing "$DEV" "$dir" "mlx5 buffer under the headroom" \
		'BufferSizeBytes: mlx5_core needs at least [0-9]* bytes in lossless buffer 1'
	rt_dcb buffer set dev "$DEV" buffer-size 0:131072 1:40000 > /dev/null 2>&1
	expect "dcb buffer-size after dcb's set under the headroom" \
		"$(jqv '.buffer_size[0:2]' dcb -j buffer show dev "$DEV")" \
		"[131072,131072]"
	printf '[Match]\nName=%s\n\n[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:392832 1:131072\n' \
		"$DEV" > "$dir/10-p.conf"
	refused_before_writing "$DEV" "$dir" "mlx5 shared pool under 4 cells" \
		'BufferSizeBytes: .*mlx5_core keeps at least 4 cells'
	sed -i 's/0:392832/0:392704/' "$dir/10-p.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "a shared pool of 4 cells does not apply: $out"
	expect "dcb buffer-size of 4 cells left" \
		"$(jqv '.buffer_size[0:2]' dcb -j buffer show dev "$DEV")" \
		"[392704,131072]"
	# bnxt_re, after apply_bnxt_re: prio 3 on TC 1, 4 on TC 2, PFC on both
	printf '[Match]\nName=%s\n\n[Lossless]\nPFC=3 4 5\nPriorityToTC=3:1 4:2 5:3\nTSA=0:ets 1:ets 2:ets 3:ets\nETSBandwidth=0:40 1:20 2:20 3:20\n' \
		"$BDEV" > "$dir/10-p.conf"
	refused_before_writing "$BDEV" "$dir" "bnxt_en 3 lossless TCs" \
		'PFC: bnxt_en allows PFC in at most 2 traffic classes'
	rt_dcb pfc set dev "$BDEV" prio-pfc all:off 3:on 4:on 5:on > /dev/null 2>&1
	expect "dcb prio-pfc after dcb's set of 3 lossless TCs" \
		"$(jqv .prio_pfc dcb -j pfc show dev "$BDEV")" \
		"[false,false,false,true,true,false,false,false]"
	# three priorities in two TCs: bnxt_en counts TCs
	sed -i 's/5:3/5:2/' "$dir/10-p.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "$BDEV")
	check_err $? "3 PFC priorities in 2 TCs do not apply on bnxt_re: $out"
	expect "dcb prio-pfc of 3 priorities in 2 TCs" \
		"$(jqv .prio_pfc dcb -j pfc show dev "$BDEV")" \
		"[false,false,false,true,true,true,false,false]"
	printf '[Match]\nName=%s\n\n[Lossless]\nPriorityToTC=3:1 4:2 5:2 6:3\nTSA=0:ets 1:ets 2:ets 3:strict\nETSBandwidth=0:60 1:40 2:0\n' \
		"$BDEV" > "$dir/10-p.conf"
	refused_before_writing "$BDEV" "$dir" "bnxt_en ETS TC of 0%" \
		'ETSBandwidth: bnxt_en refuses ETS TC 2 with 0% bandwidth'
	echo 4 > "$DFS/$BX/max_tc"
	printf '[Match]\nName=%s\n\n[Lossless]\nPriorityToTC=3:1 4:2 5:5\n' \
		"$BDEV" > "$dir/10-p.conf"
	refused_before_writing "$BDEV" "$dir" "bnxt_en TC above its 4" \
		'PriorityToTC: bnxt_en refuses priority 5 on TC 5: rsim[0-9]* has 4 TCs'
	echo 8 > "$DFS/$BX/max_tc"
	# bnxt_en's DCB sets need host IEEE DCBX mode
	rt_dcb dcbx set dev "$BDEV" ieee > /dev/null 2>&1
	expect "dcbx mode of bnxt_re" "$(dcb dcbx show dev "$BDEV" | xargs)" ieee
	printf '[Match]\nName=%s\n\n[Lossless]\nPFC=3\n' "$BDEV" > "$dir/10-p.conf"
	refused_before_writing "$BDEV" "$dir" "bnxt_en outside host IEEE mode" \
		'PFC: bnxt_en takes ETS, PFC and DSCP APP settings only in host IEEE DCBX mode, and rsim[0-9]* is in mode ieee'
	rt_dcb pfc set dev "$BDEV" prio-pfc all:off 3:on > /dev/null 2>&1
	expect "dcb prio-pfc after dcb's set outside host mode" \
		"$(jqv .prio_pfc dcb -j pfc show dev "$BDEV")" \
		"[false,false,false,true,true,true,false,false]"
	rt_dcb dcbx set dev "$BDEV" host ieee > /dev/null 2>&1
	expect "dcbx mode of bnxt_re again" "$(dcb dcbx show dev "$BDEV" | xargs)" "host ieee"
	# ice takes no PFC delay: a cable length is refused, PFC applies
	echo "$ix irdma" > "$SIM_BUS/new_device"
	check_err $? "cannot create an irdma device"
	wait_for 10 "$RT_CLI" profile show dev "rsim$ix"
	printf '[Match]\nName=rsim%s\n\n[Lossless]\nPFC=3\nCableLengthMeters=20\n' \
		"$ix" > "$dir/10-p.conf"
	refused_before_writing "rsim$ix" "$dir" "ice PFC delay" \
		'CableLengthMeters: ice takes no PFC delay (cable length): that of rsim[0-9]* stays 7'
	sed -i '/^CableLengthMeters=/d' "$dir/10-p.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir "$RT_CLI" -j profile apply dev "rsim$ix")
	check_err $? "PFC=3 does not apply on irdma: $out"
	expect "dcb prio-pfc on irdma" "$(jqv '.prio_pfc[3]' dcb -j pfc show dev "rsim$ix")" true
	expect "dcb delay on irdma" "$(jqv .delay dcb -j pfc show dev "rsim$ix")" 7
	echo "$ix" > "$SIM_BUS/del_device"
	check_err $? "cannot delete the irdma device"
	# the main profiles again, for the tests that follow
	out=$("$RT_CLI" -j profile apply dev "$DEV")
	check_err $? "the main profile does not apply again: $out"
	out=$("$RT_CLI" -j profile apply dev "$BDEV")
	check_err $? "the bnxt_re profile does not apply again: $out"
	log_test "driver pre-checks: mlx5 headroom and shared pool, bnxt_en lossless TCs, starved TC and TC count and DCBX mode, ice's PFC delay refused by apply, diff and check before any write, naming the rule"
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
MinRateMbps=5
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
	jq -r '.[0].errors[]' <<< "$out" | grep -q "10-rxe.conf:5: \[DCQCN\] MinRateMbps: 5 is out of range for $RT_RXE0"
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
	log_test "Soft-RoCE: a value rocetune.ko refuses, and 'no DCB', named with file:line, never silence"
}

# The rxe DCQCN state as the module reports it, read by the YNL client
# rt_qp.py (not the CLI under test), in a fixed order: accounting, NP,
# RP, the NP's gap, then the RP's parameters.
RXE_KEYS="qp_acct qp_np_enable qp_rp_enable qp_np_min_cnp_gap_us
	qp_rp_min_rate_mbps qp_rp_max_rate_mbps qp_rp_ai_rate_mbps
	qp_rp_hai_rate_mbps qp_rp_time_reset_us qp_rp_byte_reset_bytes
	qp_rp_threshold qp_rp_initial_alpha qp_rp_g qp_rp_alpha_period_us
	qp_rp_rrmp_us qp_rp_rate_first_cnp_mbps qp_rp_gd qp_rp_min_dec_fac_pct
	qp_rp_clamp_tgt qp_rp_clamp_tgt_ati qp_np_cnp_dscp qp_np_cnp_prio"

rxe_state() {
	local k filter=

	for k in $RXE_KEYS; do
		filter+="${filter:+, }(.$k // \"missing\")"
	done
	python3 "$RT_SELFTESTS/rt_qp.py" stats |
		jq -r ".[] | select(.dev_name == \"$RT_RXE0\") | [$filter] | map(tostring) | join(\" \")"
}

# A known state of rxe0, not the module's defaults, set by the YNL client:
# accounting on, NP and RP off.
rxe_baseline() {
	python3 - "$RT_SELFTESTS" "$RT_RXE0" << 'PY'
import sys
sys.path.insert(0, sys.argv[1])
import rt_ynl
rt_ynl.Client().do("qp-set", {
    "dev-name": sys.argv[2], "qp-acct": 1, "qp-np-enable": 0,
    "qp-rp-enable": 0, "qp-np-min-cnp-gap-us": 4,
    "qp-rp-min-rate-mbps": 12, "qp-rp-max-rate-mbps": 100,
    "qp-rp-ai-rate-mbps": 5, "qp-rp-hai-rate-mbps": 50,
    "qp-rp-time-reset-us": 300, "qp-rp-byte-reset-bytes": 1000000,
    "qp-rp-threshold": 5, "qp-rp-initial-alpha": 1023, "qp-rp-g": 4,
    "qp-rp-alpha-period-us": 55, "qp-rp-rrmp-us": 4,
    "qp-rp-rate-first-cnp-mbps": 0, "qp-rp-gd": 11,
    "qp-rp-min-dec-fac-pct": 50, "qp-rp-clamp-tgt": 1,
    "qp-rp-clamp-tgt-ati": 1, "qp-np-cnp-dscp": 48, "qp-np-cnp-prio": 6})
PY
}

RXE_BASELINE="1 0 0 4 12 100 5 50 300 1000000 5 1023 4 55 4 0 11 50 1 1 48 6"

rxe_setup() {
	rt_wire_up || return 1
	if ! rt_kmod_loaded; then
		rt_kmod_load || return 1
		RT_KMOD_HERE=1
	fi
	wait_for 10 "$RT_CLI" qp stats dev "$RT_RXE0" > /dev/null || return 1
	rxe_baseline || return 1
	[ "$(rxe_state)" = "$RXE_BASELINE" ]
}

rxe_teardown() {
	rm -f "$ROCETUNE_PROFILE_DIR"/20-rxe.conf
	rt_wire_down
	if [ "$RT_KMOD_HERE" = 1 ]; then
		rt_kmod_unload
		RT_KMOD_HERE=0
	fi
}

# write_rxe_profile LINES: a profile for rxe0's netdev, LINES in [DCQCN]
# (from line 5).
write_rxe_profile() {
	printf '[Match]\nName=%s\n\n[DCQCN]\n%s\n' "$RT_NETDEV0" "$1" \
		> "$ROCETUNE_PROFILE_DIR/20-rxe.conf"
}

rxe_no_module() {
	local out

	RET=0
	rt_wire_up
	check_err $? "Soft-RoCE wire setup failed"
	if rt_kmod_loaded; then
		rmmod rocetune
		check_err $? "cannot unload rocetune"
	fi
	write_rxe_profile "MinRateMbps=40"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	expect "exit status" "$?" 1
	expect "result" "$(jq -r '.[0].result' <<< "$out")" invalid
	jq -r '.[0].errors[]' <<< "$out" | grep -q "20-rxe.conf:5: \[DCQCN\] MinRateMbps: rocetune.ko is not loaded"
	check_err $? "no 'not loaded' error: $out"
	rxe_teardown
	log_test "rxe: [DCQCN] without rocetune.ko: 'not loaded', with file:line and key"
}

rxe_apply() {
	local out want

	RET=0
	rxe_setup
	check_err $? "rxe setup failed"
	write_rxe_profile "Enable=yes
MinTimeBetweenCNPsUs=16
MinRateMbps=40
MaxRateMbps=400
AIRateMbps=7
HAIRateMbps=70
TimeResetUs=2000
ByteResetBytes=300000
Threshold=3
InitialAlpha=512
G=16
DceTcpRttUs=200
RateReduceMonitorPeriodUs=50
RateOnFirstCNPMbps=100
GD=12
MinDecreaseFactorPercent=60
ClampTargetRate=no
ClampTargetRateAfterTimeInc=no
CNPDSCP=46
CNPPriority=5"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	check_err $? "apply failed: $out"
	expect "result" "$(jq -r '.[0].result' <<< "$out")" applied
	expect "writes" "$(jq -r '.[0].writes' <<< "$out")" 20
	want="1 1 1 16 40 400 7 70 2000 300000 3 512 16 200 50 100 12 60 0 0 46 5"
	expect "module state (YNL)" "$(rxe_state)" "$want"
	# The CLI's own view agrees.
	out=$("$RT_CLI" -j qp stats dev "$RT_RXE0")
	expect "qp stats rp_g" "$(jq -r '.[0].rp_g' <<< "$out")" 16
	expect "qp stats np" "$(jq -r '.[0].np' <<< "$out")" true
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	expect "re-apply result" "$(jq -r '.[0].result' <<< "$out")" unchanged
	expect "re-apply writes" "$(jq -r '.[0].writes' <<< "$out")" 0
	# Drift made by hand: dry run and diff show it and write nothing.
	"$RT_CLI" qp set dev "$RT_RXE0" rp-g 20 rp off
	check_err $? "qp set failed"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0" dry-run)
	expect "dry-run result" "$(jq -r '.[0].result' <<< "$out")" dry-run
	expect "dry-run changes" \
		"$(jq -r '[.[0].changes[].setting] | sort | join(",")' <<< "$out")" \
		"dcqcn Enable,dcqcn G"
	expect "state after the dry run" "$(rxe_state)" \
		"1 1 0 16 40 400 7 70 2000 300000 3 512 20 200 50 100 12 60 0 0 46 5"
	out=$("$RT_CLI" profile diff dev "$RT_NETDEV0")
	expect "diff exit status with the drift (1: differs)" "$?" 1
	grep -q "dcqcn G" <<< "$out" && grep -q "rp off" <<< "$out"
	check_err $? "diff does not show the drift: $out"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	expect "writes of the drift" "$(jq -r '.[0].writes' <<< "$out")" 2
	expect "module state after the drift" "$(rxe_state)" "$want"
	# In sync: exit 0 and a line saying so.
	out=$("$RT_CLI" profile diff dev "$RT_NETDEV0")
	expect "diff exit status in sync" "$?" 0
	grep -qF "$RT_NETDEV0: in sync with 20-rxe.conf" <<< "$out"
	check_err $? "diff says nothing of an in-sync NIC: '$out'"
	# The RDMA device's name: the netdev its profile applies to.
	out=$("$RT_CLI" profile diff dev "$RT_RXE0" 2>&1)
	expect "diff dev $RT_RXE0: exit status" "$?" 2
	grep -qF "$RT_RXE0 is an RDMA device, not a network interface: its netdev is $RT_NETDEV0" <<< "$out"
	check_err $? "diff dev $RT_RXE0 does not name its netdev: '$out'"
	# Enable=no: NP and RP off, the accounting stays on.
	write_rxe_profile "Enable=no"
	out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
	check_err $? "Enable=no failed: $out"
	expect "after Enable=no" "$(rxe_state)" \
		"1 0 0 16 40 400 7 70 2000 300000 3 512 16 200 50 100 12 60 0 0 46 5"
	rxe_teardown
	log_test "rxe: every mapped [DCQCN] key applied through rocetune.ko, read back by YNL; re-apply, dry run, diff (exit 1, then 0 in sync), Enable=no"
}

rxe_refused_before_writing() {
	local out key

	RET=0
	rxe_setup
	check_err $? "rxe setup failed"
	for key in "MinRateMbps=5:5 is out of range for $RT_RXE0" \
		"MinRateMbps=10:10 is out of range for $RT_RXE0" \
		"MaxRateMbps=0:0 (line rate) is out of range for $RT_RXE0" \
		"TimeResetUs=1000001:1000001 is out of range for $RT_RXE0" \
		"DceTcpRttUs=1000000:" \
		"MinTimeBetweenCNPsUs=2000000:2000000 is out of range for $RT_RXE0" \
		"RateOnFirstCNPMbps=1000001:1000001 is out of range for $RT_RXE0" \
		"MinRateMbps=500:$RT_RXE0 would get a minimum rate of 500 Mb/s above its maximum of 100 Mb/s"; do
		[ -n "${key#*:}" ] || continue	# in range for the module
		write_rxe_profile "AIRateMbps=9
${key%%:*}"
		out=$("$RT_CLI" -j profile apply dev "$RT_NETDEV0")
		expect "${key%%:*}: exit status" "$?" 1
		jq -r '.[0].errors[]' <<< "$out" |
			grep -qF "20-rxe.conf:6: [DCQCN] ${key%%=*}: ${key#*:}"
		check_err $? "${key%%:*}: no error naming key, value and device: $out"
		# check knows the NIC's range too, with the same message.
		[[ ${key#*:} == *"out of range"* ]] || continue
		out=$("$RT_CLI" -j profile check)
		expect "check ${key%%:*}: exit status" "$?" 2
		jq -r '.errors[]' <<< "$out" |
			grep -qF "20-rxe.conf:6: [DCQCN] ${key%%=*}: ${key#*:}"
		check_err $? "${key%%:*}: check passes what apply refuses: $out"
	done
	expect "module state" "$(rxe_state)" "$RXE_BASELINE"
	rxe_teardown
	log_test "rxe: values rocetune.ko refuses: named before any write (and by check), nothing changed"
}

# rxe_wait_ai V: until rxe0's AI rate is V (an apply made its first
# write).  Only a trigger, read with the CLI: Python starts too slowly
# under emulation for the time between two writes.
rxe_wait_ai() {
	local i

	for ((i = 0; i < 200; i++)); do
		[ "$("$RT_CLI" -j qp stats dev "$RT_RXE0" |
			jq -r '.[0].rp_ai_rate_mbps')" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# A refusal by the module itself after earlier writes: the maximum rate is
# lowered behind the apply's back (ROCETUNE_APPLY_DELAY_MS between writes)
# so that the higher minimum, written last, is refused.
rxe_module_refusal_rolls_back() {
	local out pid rc

	RET=0
	rxe_setup
	check_err $? "rxe setup failed"
	write_rxe_profile "AIRateMbps=77
HAIRateMbps=333
MinRateMbps=90"
	ROCETUNE_APPLY_DELAY_MS=4000 "$RT_CLI" -j profile apply \
		dev "$RT_NETDEV0" > "$WORK/rxe.json" &
	pid=$!
	rxe_wait_ai 77
	check_err $? "the first write was not seen"
	"$RT_CLI" qp set dev "$RT_RXE0" rp-max-rate-mbps 50
	check_err $? "qp set failed"
	wait "$pid"
	rc=$?
	expect "exit status" "$rc" 1
	out=$(cat "$WORK/rxe.json")
	expect "result" "$(jq -r '.[0].result' <<< "$out")" rolled-back
	expect "writes" "$(jq -r '.[0].writes' <<< "$out")" 3
	jq -r '.[0].error' <<< "$out" |
		grep -qF "dcqcn MinRateMbps: rocetune.ko refused QP_SET of $RT_RXE0 rp-min-rate-mbps 90: the reaction point's minimum rate is above its maximum (EINVAL)"
	check_err $? "no extack in the error: $out"
	# As read before the apply, but for the maximum changed behind its back.
	expect "module state after the rollback" "$(rxe_state)" \
		"1 0 0 4 12 50 5 50 300 1000000 5 1023 4 55 4 0 11 50 1 1 48 6"
	rxe_teardown
	log_test "rxe: a QP_SET refused mid-apply: extack reported, rolled back to the values read before"
}

rxe_vanish_mid_apply() {
	local out pid rc

	RET=0
	rxe_setup
	check_err $? "rxe setup failed"
	write_rxe_profile "AIRateMbps=77
HAIRateMbps=333"
	ROCETUNE_APPLY_DELAY_MS=4000 "$RT_CLI" -j profile apply \
		dev "$RT_NETDEV0" > "$WORK/rxe.json" &
	pid=$!
	rxe_wait_ai 77
	check_err $? "the first write was not seen"
	rdma link del "$RT_RXE0"
	check_err $? "rdma link del failed"
	wait "$pid"
	rc=$?
	expect "exit status" "$rc" 1
	out=$(cat "$WORK/rxe.json")
	expect "result" "$(jq -r '.[0].result' <<< "$out")" vanished
	jq -r '.[0].state' <<< "$out" | grep -q "disappeared"
	check_err $? "no 'disappeared': $out"
	[ ! -e "$ROCETUNE_RUN_DIR/$RT_NETDEV0.journal" ]
	check_err $? "a journal was left"
	rxe_teardown
	log_test "rxe: the RDMA device removed mid-apply: vanished, named, no journal left"
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
	local f line sub out l rc found n=0 bad=0 files

	RET=0
	# Copies owned by root: the tree may be a user's, whose files root
	# refuses as profiles.
	if ! { mkdir -p "$WORK/corpus/examples" &&
		cp -r "$RT_SELFTESTS/profiles/bad" "$RT_SELFTESTS/profiles/good" \
			"$WORK/corpus/" &&
		cp "$RT_TOP"/profiles/*.conf "$WORK/corpus/examples/"; }; then
		check_err 1 "cannot copy the profile corpora"
	fi
	files=("$WORK"/corpus/bad/*.conf)
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
	"$RT_CLI" profile check "$WORK"/corpus/good/*.conf \
		"$WORK"/corpus/examples/*.conf > /dev/null
	check_err $? "a good profile or a shipped example was rejected"
	log_test "profile check: $n malformed profiles each rejected with file:line (exit 2); the examples pass"
}

# check_refused WHAT TEXT FILE: "profile check FILE" exits 2 within 20 s
# and says TEXT.
check_refused() {
	local out rc

	out=$(timeout 20 "$RT_CLI" profile check "$3" 2>&1)
	rc=$?
	expect "$1: exit status" "$rc" 2
	grep -F -- "$2" <<< "$out" > /dev/null
	check_err $? "$1: no clear error: $out"
}

# What is no profile a root agent may take: /dev/zero (it was read for
# ever), a file anyone may write, a file of another user.
check_not_a_profile() {
	local f=$WORK/not-a-profile.conf

	RET=0
	check_refused /dev/zero "/dev/zero: not a regular file: refused" \
		/dev/zero
	printf '[Match]\nName=%s\n' "$DEV" > "$f"
	chmod 0666 "$f"
	check_refused "world-writable" \
		"$f: writable by everyone (mode 0666): refused (chmod o-w $f)" "$f"
	chmod 0644 "$f"
	chown 65534 "$f"
	check_refused "owned by nobody" \
		"$f: owned by uid 65534, not by root: refused (chown root $f)" "$f"
	chown 0 "$f"
	"$RT_CLI" profile check "$f" > /dev/null
	check_err $? "the same file, root's and 0644, is refused"
	log_test "profile check: /dev/zero, a world-writable and a foreign file refused (exit 2)"
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
