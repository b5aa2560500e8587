#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# profile_apply.sh [ROUNDS] - what applying a lossless + DCQCN profile to a
# NIC costs with rocetune, against the sequence of dcb, ethtool and shell
# writes an operator runs today, side by side in one run, on a simulated
# mlx5 NIC (rocetune_sim counts the set operations that reach it):
#
#   rocetune profile apply         from a different state: the diff's writes,
#                                  each read back
#   rocetune profile apply again   unchanged: reads only, zero writes
#   shell sequence                 dcb ets/maxrate/buffer/pfc/app, ethtool
#                                  --set-tunable, echo into cc_params: every
#                                  write every time, nothing read back
#   shell sequence + read-back     the same followed by dcb show / cat of
#                                  every value, to see what it did
#
# Needs root and rocetune_sim: run it in the test VM,
#   selftests/vm/run.sh -x 'bench/profile_apply.sh 5'
# Prints the median wall time and writes per run and the ratios against
# rocetune, over ROUNDS interleaved rounds.

source "$(dirname "$0")/../selftests/lib.sh"
set -o pipefail

ROUNDS=${1:-5}
ID=77
DEV=rsim$ID
RT=$RT_TOP/build/userspace/rocetune
CC=/sys/kernel/debug/mlx5/rocetune_sim$ID/cc_params
SETS=/sys/kernel/debug/rocetune_sim/$ID/set_count
WORK=$(mktemp -d /tmp/rt-bench.XXXXXX)
export ROCETUNE_PROFILE_DIR=$WORK/profiles ROCETUNE_RUN_DIR=$WORK/run

cleanup() {
	echo "$ID" > /sys/bus/rocetune_sim/del_device 2> /dev/null
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

rt_sim_load || { echo "cannot load rocetune_sim"; exit 1; }
echo "$ID mlx5" > /sys/bus/rocetune_sim/new_device ||
	{ echo "cannot create $DEV"; exit 1; }
echo 0 > "/sys/kernel/debug/rocetune_sim/$ID/pfc_link_flap"
mkdir -p "$ROCETUNE_PROFILE_DIR"
cat > "$ROCETUNE_PROFILE_DIR/50-lossless.conf" << EOF
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

# A state that differs from the profile in every setting it names.
baseline() {
	local f

	dcb pfc set dev "$DEV" prio-pfc all:off delay 7 > /dev/null 2>&1
	dcb app del dev "$DEV" dscp-prio 26:3 48:6 > /dev/null 2>&1
	dcb ets set dev "$DEV" tc-tsa all:ets tc-bw all:0 0:100 prio-tc all:0 \
		> /dev/null 2>&1
	dcb maxrate set dev "$DEV" tc-maxrate all:0 > /dev/null 2>&1
	dcb buffer set dev "$DEV" prio-buffer all:0 buffer-size all:0 \
		> /dev/null 2>&1
	ethtool --set-tunable "$DEV" pfc-prevention-tout 500
	for f in np_cnp_dscp np_cnp_prio rp_min_rate rp_ai_rate rp_dce_tcp_g \
		 rp_clamp_tgt_rate; do
		echo 0 > "$CC/$f"
	done
}

shell_sequence() {
	dcb ets set dev "$DEV" prio-tc all:0 3:3 6:6 tc-tsa all:ets 6:strict \
		tc-bw all:0 0:50 3:50 &&
	dcb maxrate set dev "$DEV" tc-maxrate all:0 6:1000mbit &&
	dcb buffer set dev "$DEV" prio-buffer all:0 3:1 \
		buffer-size all:0 0:128K 1:128K &&
	dcb pfc set dev "$DEV" prio-pfc all:off 3:on delay 10 &&
	ethtool --set-tunable "$DEV" pfc-prevention-tout 65535 &&
	dcb app replace dev "$DEV" dscp-prio 26:3 48:6 &&
	echo 46 > "$CC/np_cnp_dscp" && echo 7 > "$CC/np_cnp_prio" &&
	echo 10 > "$CC/rp_min_rate" && echo 20 > "$CC/rp_ai_rate" &&
	echo 1000 > "$CC/rp_dce_tcp_g" && echo 1 > "$CC/rp_clamp_tgt_rate"
}

shell_readback() {
	local f

	shell_sequence || return 1
	for f in ets maxrate buffer pfc app; do
		dcb -j "$f" show dev "$DEV" > /dev/null || return 1
	done
	ethtool --get-tunable "$DEV" pfc-prevention-tout > /dev/null &&
	cat "$CC"/np_cnp_dscp "$CC"/np_cnp_prio "$CC"/rp_min_rate \
		"$CC"/rp_ai_rate "$CC"/rp_dce_tcp_g "$CC"/rp_clamp_tgt_rate \
		> /dev/null
}

rt_apply() {
	"$RT" profile apply dev "$DEV" > /dev/null
}

# timed NAME PREP CMD...: run PREP, then CMD; append "ms writes" to NAME's file.
timed() {
	local name=$1 prep=$2 t0 t1 s0 s1

	shift 2
	$prep
	s0=$(cat "$SETS")
	t0=$(date +%s%N)
	"$@" || { echo "$name failed" >&2; exit 1; }
	t1=$(date +%s%N)
	s1=$(cat "$SETS")
	echo "$(((t1 - t0) / 1000000)) $((s1 - s0))" >> "$WORK/$name"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

nothing() { :; }

for ((r = 0; r < ROUNDS; r++)); do
	timed rt_full baseline rt_apply
	timed rt_again nothing rt_apply
	timed shell baseline shell_sequence
	timed shell_rb baseline shell_readback
done

ms() { cut -d' ' -f1 "$WORK/$1" | median; }
writes() { cut -d' ' -f2 "$WORK/$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

base=$(ms rt_full)
echo "# $ROUNDS interleaved rounds, kernel $(uname -r), medians"
printf '%-36s %8s %8s %12s\n' "how" "ms" "writes" "ms x rocetune"
for n in rt_full rt_again shell shell_rb; do
	case $n in
	rt_full) label="rocetune profile apply" ;;
	rt_again) label="rocetune profile apply (unchanged)" ;;
	shell) label="dcb/ethtool/echo sequence" ;;
	shell_rb) label="... plus reading it back" ;;
	esac
	printf '%-36s %8d %8d %12s\n' "$label" "$(ms $n)" "$(writes $n)" \
		"$(ratio "$(ms $n)" "$base")"
done
