#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# storm_action.sh [ROUNDS] - how soon the host acts on a pause storm:
# rocetune.ko detects it (StormMs=100, sampling every 10, 50 or 100 ms),
# rocetuned sets the NIC's pfc-prevention-tout (Action=timeout) and reads
# it back.  For each sampling interval, ROUNDS storms (default 5) are
# injected on a simulated mlx5 NIC (the sim's pfc_storm knob) and the
# agent's own numbers are taken from its log:
#   detect   the storm's length when the module sent STORM_START
#            (StormMs= plus up to one sampling interval)
#   action   STORM_START (kernel timestamp) -> the timeout applied and
#            read back, as the agent measured it
#   total    detect + action, against the 200 ms a switch-side PFC
#            watchdog commonly takes to detect a storm
# Needs root, rocetune.ko and rocetune_sim: run it in the test VM,
#   selftests/vm/run.sh -k 6.1 -x 'bench/storm_action.sh 5'
# Medians in ms; under QEMU/TCG on a shared host these are upper bounds.

source "$(dirname "$0")/../selftests/lib.sh"

ROUNDS=${1:-5}
ID=$((RANDOM % 700 + 100))
DEV=rsim$ID
IB=rsim_ib$ID
RT=$RT_TOP/build/userspace/rocetune
AGENT=$RT_TOP/build/userspace/rocetuned
WORK=$(mktemp -d /tmp/rt-storm.XXXXXX)
LOG=$WORK/agent.log
export ROCETUNE_PROFILE_DIR=$WORK/profiles ROCETUNE_RUN_DIR=$WORK/run
AGENT_PID=

cleanup() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2> /dev/null
	[ -z "$AGENT_PID" ] || wait "$AGENT_PID" 2> /dev/null
	echo "$ID" > /sys/bus/rocetune_sim/del_device 2> /dev/null
	rt_kmod_unload
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

tout_is() {
	[ "$(ethtool --get-tunable "$DEV" pfc-prevention-tout |
		sed -n 's/^pfc-prevention-tout: //p')" = "$1" ]
}

lines_at_least() {
	[ "$(grep -c -E "$1" "$LOG")" -ge "$2" ]
}

median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

rt_sim_load || { echo "cannot load rocetune_sim"; exit 1; }
rt_kmod_load || { echo "cannot load rocetune.ko"; exit 1; }
echo "$ID mlx5" > /sys/bus/rocetune_sim/new_device || exit 1
ip link set "$DEV" up || exit 1
echo N > "/sys/kernel/debug/rocetune_sim/$ID/pfc_link_flap"
mkdir -p "$ROCETUNE_PROFILE_DIR"
cat > "$ROCETUNE_PROFILE_DIR/50-bench.conf" << EOF
[Match]
Name=$DEV
[Lossless]
PFC=3
PFCStormTimeoutMs=500
[Watchdog]
Action=timeout
TimeoutMs=200
StormMs=100
RestoreAfterMs=0
EOF
"$AGENT" --foreground 2> "$LOG" &
AGENT_PID=$!
wait_for 60 tout_is 500 || { echo "the agent did not apply"; cat "$LOG"; exit 1; }

act='pause storm on priority 3: pfc-prevention-tout 200 ms in force'
printf '%-12s %8s %8s %8s %12s\n' interval-ms detect action total total/200ms
for ival in 10 50 100; do
	"$RT" config set dev "$IB" interval-ms "$ival" || exit 1
	: > "$WORK/d"
	: > "$WORK/a"
	for r in $(seq 1 "$ROUNDS"); do
		n=$(grep -c -E "$act" "$LOG")
		echo "3 1000 0" > "/sys/kernel/debug/rocetune_sim/$ID/pfc_storm"
		if ! wait_for 60 lines_at_least "$act" $((n + 1)); then
			echo "round $r of $ival ms: no action"
			exit 1
		fi
		grep -E "pause storm on priority 3: [0-9]+ pause frames/s for" "$LOG" |
			tail -n 1 | sed 's/.* for \([0-9]*\) ms.*/\1/' >> "$WORK/d"
		grep -E "$act" "$LOG" | tail -n 1 |
			sed 's/.* in force \([0-9.]*\) ms after.*/\1/' >> "$WORK/a"
		echo "3 0 0" > "/sys/kernel/debug/rocetune_sim/$ID/pfc_storm"
		wait_for 60 tout_is 500 || { echo "not restored"; exit 1; }
	done
	d=$(median < "$WORK/d")
	a=$(median < "$WORK/a")
	t=$(awk -v d="$d" -v a="$a" 'BEGIN { printf "%.1f", d + a }')
	printf '%-12s %8s %8s %8s %12s\n' "$ival" "$d" "$a" "$t" \
		"$(awk -v t="$t" 'BEGIN { printf "%.2f", t / 200 }')"
done
