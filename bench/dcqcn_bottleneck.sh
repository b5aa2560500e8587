#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dcqcn_bottleneck.sh [ROUNDS]: software DCQCN (rocetune's notification
# point on rxe1, reaction point on rxe0) off and on, side by side in one
# run, for FLOWS perftest flows from rxe0 to rxe1 sharing one bottleneck.
# See README for the method and results.  In the test VM:
#
#   selftests/vm/run.sh -k 6.12 -x 'bash bench/dcqcn_bottleneck.sh 4'
#
# The bottleneck: vb's ingress RoCEv2 packets (UDP to 4791) are redirected
# to ifb0, whose root is htb (one class, rate RATE) with red ... ecn as its
# leaf; fq is va's root qdisc (the RP paces by departure time) in both
# modes.  Each round runs "free", "off" and "on" (see below for the
# order): the module is loaded afresh with accounting on for both
# devices; "on" adds "np on" on rxe1 and "rp on" with RP_PARAMS on rxe0;
# "free" is "off" with the htb class at 1000mbit: what the flows can send
# in that round without the bottleneck (under emulation, rxe's CPU time
# often sets the pace, and the host's load changes it from one minute to
# the next).  The bottleneck's rate is calibrated on it: each round runs
# "free" first, and the htb class of its "off" and "on" runs passes
# RATE_FRAC of what the flows sent in "free", so that it binds however
# fast this machine lets rxe send (a fixed rate bound on a quiet host
# and not at all on a busy one); "off" and "on" rotate after it by round.
# A run: FLOWS ib_write_bw pairs (one QP each, ports PORT0+i) started together for SECS seconds, captured on ifb0 (what
# leaves the bottleneck) and on vb (CNPs), the bottleneck's qdisc and
# rxe0's RP rates sampled as often as tc and rocetune can be run (0.5-2 s
# under TCG); then dcqcn_bottleneck.py reads the captures, tc's counters
# and the module's.
#
# Environment: BN_FLOWS (2), BN_RATE_FRAC (the bottleneck's rate as a
# fraction of the round's free rate, 0.5), BN_RATE_MBIT (a fixed
# bottleneck rate instead; then "free" is not needed), BN_SECS (perftest
# -D, 15), BN_SIZE (message bytes, 4096), BN_TXDEPTH (perftest -t, 8),
# BN_MODES ("free off on"), BN_OUT (results directory,
# $RT_OUT/dcqcn_bottleneck or /tmp/dcqcn_bottleneck).

ROUNDS=${1:-3}
source "$(dirname "$0")/../selftests/lib.sh"
BENCH=$RT_TOP/bench
RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
FLOWS=${BN_FLOWS:-2}
RATE_FIXED=${BN_RATE_MBIT:-}
RATE_FRAC=${BN_RATE_FRAC:-0.5}
# What the flows sent in this round's free run (Mb/s), when calibrated.
FREE_MBPS=0
SECS=${BN_SECS:-15}
SIZE=${BN_SIZE:-4096}
TXDEPTH=${BN_TXDEPTH:-8}
read -r -a MODES <<< "${BN_MODES:-free off on}"
OUT=${BN_OUT:-${RT_OUT:-/tmp}/dcqcn_bottleneck}
# Captures on the guest's tmpfs (the 9p share is too slow to keep up).
CAP=/tmp/bn-cap
IFB=ifb0
PORT0=18540
# ECN-capable traffic class (DSCP 26, ECT(0)).
TCLASS=106
# The RP's parameters of qp_rp.sh (see there and the README); the floor
# is the kernel's 12 Mb/s.
MIN_MBPS=12
MAX_MBPS=400
RP_PARAMS="rp-min-rate-mbps $MIN_MBPS rp-max-rate-mbps $MAX_MBPS rp-time-reset-us 10000 rp-byte-reset-bytes 100000 rp-ai-rate-mbps 2 rp-hai-rate-mbps 10"
# rate_set KBIT: the bottleneck's rate (RATE_KBIT, and RATE in Mb/s for
# the reports) and RED's parameters from it: marking starts at an average
# queue of 5 ms (min), every packet is marked above 15 ms (max), at most
# 10% between; the queue holds 8 x max (tc-red(8)'s advice) before it
# drops.  avpkt: rxe's 1024-byte MTU packets are 1102 bytes on the wire.
# htb's bucket: 10 ms at the rate.  Under TCG its timer fires late, and
# with tc's default (about one MTU) a 40mbit class passed 11 Mb/s.
RED_AVPKT=1102
RED_PROB=0.1
rate_set() {
	local bpms

	RATE_KBIT=$1
	RATE=$(awk -v k="$1" 'BEGIN { printf "%.3f", k / 1000 }')
	bpms=$((RATE_KBIT / 8))
	RED_MIN=$((bpms * 5))
	RED_MAX=$((bpms * 15))
	RED_LIMIT=$((RED_MAX * 8))
	RED_BURST=$(((2 * RED_MIN + RED_MAX) / (3 * RED_AVPKT) + 1))
	HTB_BURST=$((bpms * 10))
	# htb needs a bucket of at least one packet.
	[ "$HTB_BURST" -ge 1600 ] || HTB_BURST=1600
}

# free_mbps ROUND: what the flows of ROUND's free run sent (Mb/s, the sum).
free_mbps() {
	jq -e -s --argjson r "$1" '[.[] | select(.round == $r and
		.mode == "free")] | last | .mbps | add' "$OUT/runs.jsonl"
}

# calibrate ROUND: the bottleneck's rate for ROUND's off and on runs,
# RATE_FRAC of its free run's; says so, and what the RP's floor means
# for it.
calibrate() {
	local free kbit

	free=$(free_mbps "$1") || {
		echo "# round $1: no free run to calibrate the bottleneck on" >&2
		return 1
	}
	kbit=$(awk -v f="$free" -v x="$RATE_FRAC" \
		'BEGIN { printf "%d", f * x * 1000 }')
	# Below 1 Mb/s the flows hardly ran: the host is too loaded for any
	# bottleneck to bind.
	[ "$kbit" -ge 1000 ] || {
		echo "# round $1: the bottleneck cannot bind: the flows sent" \
			"$free Mb/s without it (free run), too little to calibrate" \
			"a bottleneck below it (the host is too loaded)" >&2
		return 1
	}
	rate_set "$kbit"
	FREE_MBPS=$free
	echo "# round $1: bottleneck ${RATE} Mb/s = $RATE_FRAC x the free" \
		"run's $free Mb/s"
	if [ "$kbit" -lt $((FLOWS * MIN_MBPS * 1000)) ]; then
		echo "# round $1: its fair share is below the RP's floor" \
			"($FLOWS QPs at $MIN_MBPS Mb/s = $((FLOWS * MIN_MBPS)) Mb/s):" \
			"DCQCN can mark and cut, but not bring the flows down to it"
	fi
}

fail() {
	echo "# dcqcn_bottleneck: $*" >&2
	exit 1
}

cleanup() {
	stop_bg
	tc qdisc del dev "$RT_NETDEV1" ingress 2> /dev/null
	tc qdisc del dev "$RT_NETDEV0" root 2> /dev/null
	ip link del "$IFB" 2> /dev/null
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

# Background processes of a run (captures, sampler, perftest), ended by PID.
BG_PIDS=()
stop_bg() {
	local p

	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	BG_PIDS=()
}

# bottleneck_up MODE: a fresh htb + red on ifb0 (fresh counters for each
# run) at RATE_KBIT; in "free" at 1000mbit (and RED's thresholds for it).
bottleneck_up() {
	if [ "$1" = free ]; then
		(rate_set 1000000 && bottleneck_tc)
	else
		bottleneck_tc
	fi
}

bottleneck_tc() {
	tc qdisc del dev "$IFB" root 2> /dev/null
	tc qdisc add dev "$IFB" root handle 1: htb default 1 &&
		tc class add dev "$IFB" parent 1: classid 1:1 htb \
			rate "${RATE_KBIT}kbit" ceil "${RATE_KBIT}kbit" \
			burst "$HTB_BURST" cburst "$HTB_BURST" quantum 1600 &&
		tc qdisc add dev "$IFB" parent 1:1 handle 10: red \
			limit "$RED_LIMIT" min "$RED_MIN" max "$RED_MAX" \
			avpkt "$RED_AVPKT" burst "$RED_BURST" \
			bandwidth "${RATE_KBIT}kbit" probability "$RED_PROB" ecn
}

setup() {
	mkdir -p "$OUT" "$CAP" || return 1
	rt_wire_up || return 1
	modprobe -q ifb numifbs=0 && modprobe -q sch_htb && modprobe -q sch_red &&
		modprobe -q sch_fq && modprobe -q act_mirred || return 1
	ip link add "$IFB" type ifb && ip link set "$IFB" up || return 1
	# Only RoCEv2 goes through the bottleneck: perftest's TCP exchange
	# (not ECN-capable, RED would drop it) passes by.
	tc qdisc add dev "$RT_NETDEV1" handle ffff: ingress &&
		tc filter add dev "$RT_NETDEV1" parent ffff: protocol ip prio 1 \
			u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
			action mirred egress redirect dev "$IFB" || return 1
	tc qdisc replace dev "$RT_NETDEV0" root fq || return 1
	G0=$(rt_gid_index "$RT_RXE0" "$RT_IP0") &&
		G1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
}

# mode_set MODE: the module afresh, accounting on both devices (linger, so
# that the QPs' counters can be read after perftest destroyed them); "on"
# adds the NP on rxe1 and the RP on rxe0.
mode_set() {
	local np=off rp=off out

	rt_kmod_unload || return 1
	rt_modload rocetune kmod/rocetune.ko qp_linger_ms=600000 || return 1
	[ "$1" = on ] && np=on && rp=on
	"$RT_CLI" qp set dev "$RT_RXE1" accounting on np "$np" || return 1
	# shellcheck disable=SC2086 # the parameters are split into words
	"$RT_CLI" qp set dev "$RT_RXE0" accounting on rp "$rp" $RP_PARAMS ||
		return 1
	out=$(rt_json "$RT_CLI" -j qp stats) || return 1
	jq -e --arg a "$RT_RXE0" --arg b "$RT_RXE1" --argjson on \
		"$([ "$1" = on ] && echo true || echo false)" '
		[.[] | select(.dev == $a)][0].rp == $on and
		[.[] | select(.dev == $b)][0].np == $on' <<< "$out" > /dev/null || {
		echo "# mode $1: the module reports otherwise: $out" >&2
		return 1
	}
}

# sampler FILE: every ~0.5 s the time, the bottleneck's qdiscs and rxe0's
# QPs, one line each.
sampler() {
	local q r

	while :; do
		q=$(tc -s -j qdisc show dev "$IFB")
		r=$("$RT_CLI" -j qp show dev "$RT_RXE0")
		printf 'T %s\nQ %s\nR %s\n' "$EPOCHREALTIME" "${q//$'\n'/}" \
			"${r//$'\n'/}"
		sleep 0.4
	done > "$1"
}

hw() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# run_once ROUND MODE: one run; prints its line (dcqcn_bottleneck.py).
run_once() {
	local round=$1 mode=$2 tag="r$1-$2" i f p spids=() cpids=() rc=0
	local seq0 seq1 c rate=$RATE

	[ "$mode" = free ] && rate=1000

	rm -f "$CAP/$tag"-* "$OUT/$tag"-*
	mode_set "$mode" || return 1
	bottleneck_up "$mode" || return 1
	tcpdump -i "$IFB" -s 64 -B 65536 -w "$CAP/$tag-ifb.pcap" \
		'udp dst port 4791' > "$OUT/$tag-ifb.log" 2>&1 &
	BG_PIDS+=($!)
	# CNPs leaving vb (BTH opcode 0x81, the first byte after UDP).
	tcpdump -i "$RT_NETDEV1" -Q out -s 96 -B 16384 \
		-w "$CAP/$tag-cnp.pcap" 'udp dst port 4791 and udp[8] == 0x81' \
		> "$OUT/$tag-cnp.log" 2>&1 &
	BG_PIDS+=($!)
	if ! wait_for 60 grep -q "listening on" "$OUT/$tag-ifb.log" ||
	   ! wait_for 60 grep -q "listening on" "$OUT/$tag-cnp.log"; then
		echo "# $tag: the captures do not start" >&2
		stop_bg
		return 1
	fi
	for ((i = 0; i < FLOWS; i++)); do
		ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p $((PORT0 + i)) -q 1 \
			-s "$SIZE" -t "$TXDEPTH" -D "$SECS" --tclass="$TCLASS" \
			> "$OUT/$tag-s$i.log" 2>&1 &
		spids+=($!)
		BG_PIDS+=($!)
	done
	for ((i = 0; i < FLOWS; i++)); do
		wait_for 20 rt_port_listening $((PORT0 + i)) || {
			echo "# $tag: server $i does not listen" >&2
			stop_bg
			return 1
		}
	done
	seq0=$(hw "$RT_RXE1" rcvd_seq_err) || return 1
	sampler "$OUT/$tag-samples.txt" &
	BG_PIDS+=($!)
	for ((i = 0; i < FLOWS; i++)); do
		timeout $((SECS + 60)) ib_write_bw -F -d "$RT_RXE0" -x "$G0" \
			-p $((PORT0 + i)) -q 1 -s "$SIZE" -t "$TXDEPTH" -D "$SECS" \
			--tclass="$TCLASS" "$RT_IP1" > "$OUT/$tag-c$i.log" 2>&1 &
		cpids+=($!)
	done
	for p in "${cpids[@]}"; do
		wait "$p" || rc=1
	done
	for p in "${spids[@]}"; do
		timeout 20 tail --pid="$p" -f /dev/null || rc=1
	done
	seq1=$(hw "$RT_RXE1" rcvd_seq_err) || return 1
	# The last packets leave the bottleneck, then the counters are read.
	sleep 1
	tc -s -j qdisc show dev "$IFB" > "$OUT/$tag-qdisc.json" &&
		"$RT_CLI" -j qp show dev "$RT_RXE0" > "$OUT/$tag-qp0.json" &&
		"$RT_CLI" -j qp stats dev "$RT_RXE1" > "$OUT/$tag-stats1.json" ||
		rc=1
	stop_bg
	for f in ifb cnp; do
		c=$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' \
			"$OUT/$tag-$f.log")
		[ "$c" = 0 ] || {
			echo "# $tag: the $f capture is incomplete: $(tr '\n' ' ' < "$OUT/$tag-$f.log")" >&2
			rc=1
		}
		cp "$CAP/$tag-$f.pcap" "$OUT/" && rm -f "$CAP/$tag-$f.pcap" || rc=1
	done
	if [ "$rc" != 0 ]; then
		for ((i = 0; i < FLOWS; i++)); do
			echo "#   client $i: $(tail -n 2 "$OUT/$tag-c$i.log" | tr '\n' ' ')" >&2
		done
		return 1
	fi
	python3 "$BENCH/dcqcn_bottleneck.py" run --dir "$OUT" --tag "$tag" \
		--round "$round" --mode "$mode" --flows "$FLOWS" \
		--rate-mbit "$rate" --free-mbps "$FREE_MBPS" --secs "$SECS" \
		--min-mbps "$MIN_MBPS" \
		--max-mbps "$MAX_MBPS" --ip0 "$RT_IP0" --ip1 "$RT_IP1" \
		--seq-err $((seq1 - seq0)) --table "$OUT/runs.jsonl"
}

# bottleneck_say: the bottleneck's parameters, one line.
bottleneck_say() {
	echo "# bottleneck: ifb0 on vb's ingress, htb rate ${RATE_KBIT}kbit" \
		"burst $HTB_BURST, red limit $RED_LIMIT min $RED_MIN max" \
		"$RED_MAX avpkt $RED_AVPKT burst $RED_BURST probability" \
		"$RED_PROB ecn; fq on va"
}

# run_retry ROUND MODE: run_once, and once more if it failed.
run_retry() {
	run_once "$1" "$2" && return 0
	echo "# round $1, $2: failed, retrying once" >&2
	run_once "$1" "$2" || fail "round $1, $2: failed twice"
}

rt_require_root
rt_require_cmd python3 gojq tcpdump tc ib_write_bw
[ -x "$RT_CLI" ] || fail "no $RT_CLI (make userspace)"
if ! [[ $ROUNDS =~ ^[0-9]+$ ]] || [ "$ROUNDS" -lt 1 ]; then
	fail "ROUNDS must be 1 or more"
fi
# Calibrated, "free" runs first in each round and the other modes rotate
# after it; with a fixed rate every mode rotates.
free=
rot=()
for m in "${MODES[@]}"; do
	case $m in
	free) free=1 ;;
	off | on) rot+=("$m") ;;
	*) fail "BN_MODES: no mode $m (free, off, on)" ;;
	esac
done
if [ -n "$RATE_FIXED" ]; then
	if ! [[ $RATE_FIXED =~ ^[0-9]+$ ]] || [ "$RATE_FIXED" -lt 1 ]; then
		fail "BN_RATE_MBIT must be a positive number of Mb/s"
	fi
	rate_set $((RATE_FIXED * 1000))
	rot=("${MODES[@]}")
	free=
elif [ -z "$free" ]; then
	fail "BN_MODES has no free run to calibrate the bottleneck on" \
		"(or set BN_RATE_MBIT)"
fi
trap cleanup EXIT
setup || fail "the wire, ifb0 or the qdiscs cannot be set up"
pos=$(rt_dmesg_pos)
: > "$OUT/runs.jsonl" || fail "cannot write $OUT"
echo "# dcqcn_bottleneck: $(uname -r), $(nproc) CPU(s), $ROUNDS rounds;" \
	"$FLOWS x ib_write_bw -q 1 -s $SIZE -t $TXDEPTH -D $SECS" \
	"--tclass=$TCLASS, rxe0 -> rxe1"
if [ -n "$RATE_FIXED" ]; then
	bottleneck_say
else
	echo "# bottleneck: $RATE_FRAC x each round's free rate"
fi
echo "# on: np on (rxe1), rp on (rxe0) $RP_PARAMS"
t0=$SECONDS
for ((r = 0; r < ROUNDS; r++)); do
	if [ -n "$free" ]; then
		run_retry "$r" free
		calibrate "$r" || fail "round $r: no bottleneck that can bind"
		bottleneck_say
	fi
	# The order of the other modes rotates by one each round.
	for ((k = 0; k < ${#rot[@]}; k++)); do
		run_retry "$r" "${rot[(r + k) % ${#rot[@]}]}"
	done
done
echo "# $ROUNDS rounds in $((SECONDS - t0)) s"
python3 "$BENCH/dcqcn_bottleneck.py" summary --table "$OUT/runs.jsonl" ||
	fail "the summary failed"
bad=$(rt_dmesg_bad "$pos")
[ -z "$bad" ] || fail "kernel log: $(head -n 3 <<< "$bad" | tr '\n' ' ')"
echo "# kernel log clean"
