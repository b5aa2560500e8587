#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The DCQCN reaction point (RP) of software RoCE (rocetune_rp.c): perftest
# traffic from rxe0 to rxe1, one QP.  On va's egress a clsact filter marks
# every 10th RoCEv2 packet CE (tc pedit; deterministic, before the root
# qdisc), fq is va's root qdisc (it honours the departure times the RP
# sets), and rxe1's notification point answers each CE mark with a CNP.
# The capture on vb and the module's counters are the oracle (rt_rp.py):
# the CNPs the capture shows for the sending QP equal the CNPs its RP
# handled and the CNPs its counters saw.  With the RP on, the sending rate
# (from the capture) is lower than with it off under the same marking and
# not below the floor;
# the QP's rate never reported below the floor; after the marking stops,
# the rate rises back to the maximum.  Killing the QPs and unloading the
# module under traffic with the RP on leave the kernel log clean.  CNPs
# sent one at a time to an idle QP check each rule of a rate cut exactly.

ALL_TESTS="rp_knobs rp_cut_rules rp_alpha_periods rp_off rp_on rp_in_order rp_recover rp_teardown"

source "$(dirname "$0")/qp_lib.sh"

RT_RP="$RT_SELFTESTS/rt_rp.py"
# ECN-capable traffic class (ECT(0)); its CE-marked form.
TCLASS=106
TOS_CE=0x6b
# The RP's parameters for emulated rxe (tens of Mb/s): the maximum a few
# times what rxe reaches; a slow rate-increase timer (10 ms), because under
# emulation the CNPs come in bursts with tens of ms between them, in which
# a faster timer's additive increase undoes the cuts (a paper-like 1 ms
# held the rate near 200 Mb/s in the VM); a small byte counter (100 kB) so
# that hyper increase brings the rate back soon after the marking stops.
# The floor (12 Mb/s) is the kernel's.
FLOOR_KBPS=12000
MAX_MBPS=400
RP_PARAMS="rp-max-rate-mbps $MAX_MBPS rp-time-reset-us 10000 rp-byte-reset-bytes 100000 rp-ai-rate-mbps 2 rp-hai-rate-mbps 10"
# The sending rate (IP bytes, from the capture) may not be below 90% of the
# floor: the first and last packets of the capture bound the time, and the
# start and the end of the run are not paced.
FLOOR_MBPS=10.8

rt_rp() {
	python3 "$RT_RP" "$@"
}

qp_test_cleanup() {
	[ "${#RP_IDLE_PIDS[@]}" = 0 ] || kill "${RP_IDLE_PIDS[@]}" 2> /dev/null
	[ -z "${RP_MARK_PID:-}" ] || kill "$RP_MARK_PID" 2> /dev/null
	tc filter del dev "$RT_NETDEV0" egress prio 1 2> /dev/null
	tc qdisc del dev "$RT_NETDEV0" root 2> /dev/null
}

# rp_marking: every 10th RoCEv2 packet leaving va is marked CE (and its
# IP header checksum fixed); the filter runs before the capture mirror of
# qp_lib.sh, which it lets run ("continue").
rp_marking() {
	tc filter add dev "$RT_NETDEV0" egress prio 1 protocol ip \
		u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
		action gact continue random determ pipe 10 \
		action pedit munge ip tos set "$TOS_CE" pipe \
		action csum iph continue
}

rp_unmark() {
	tc filter del dev "$RT_NETDEV0" egress prio 1
}

rp_fq() {
	tc qdisc replace dev "$RT_NETDEV0" root fq
}

# rp_rate NAME: rxe0's sending rate (Mb/s of IP bytes) in NAME's capture.
rp_rate() {
	rt_rp rate --pcap "$OUT/$1-vb.pcap" --ip0 "$RT_IP0" --ip1 "$RT_IP1"
}

# rp_dump NAME: rxe0's QPs now, to OUT/NAME-rp.json.
rp_dump() {
	"$RT_CLI" -j qp show dev "$RT_RXE0" > "$OUT/$1-rp.json" &&
		jq -e 'type == "array"' "$OUT/$1-rp.json" > /dev/null
}

# rp_pair_known: ib_write_bw's QP on each device has an entry that the
# module acts on: verified, live, with its peer (remote_qpn).
rp_pair_known() {
	local d

	for d in "$RT_RXE0" "$RT_RXE1"; do
		"$RT_CLI" -j qp show dev "$d" | jq -e '[.[] | select(.comm == "ib_write_bw" and
			.remote_qpn != null and .destroyed_ns == null)] | length == 1' > /dev/null || return 1
	done
}

# rp_mark_when_known: in the background, start the marking once both QPs
# are known to the module.  Before that, the NP of rxe1 may already answer
# a CE mark while rxe0's QP is not verified or its peer not learned yet:
# rxe0 counts that CNP (rx_cnp_pkts, carried over from its pending entry)
# but its RP does not act on it (rocetune_nf.c, rt_nf_rx(): only a packet
# for a verified, live QP from its peer acts), and the CNPs captured would
# differ from those handled by how late the verification ran.
rp_mark_when_known() {
	(
		if ! wait_for 60 rp_pair_known; then
			echo "ib_write_bw's QPs not known to the module in 60 s: $("$RT_CLI" -j qp show | jq -c '[.[] | {dev, qpn, comm, remote_qpn, destroyed_ns}]')"
			exit 1
		fi
		rp_marking && echo "marking from $(date +%s.%N)"
	) > "$OUT/mark.log" 2>&1 &
	RP_MARK_PID=$!
}

# rp_traffic NAME SECONDS: ib_write_bw, one QP, from rxe0 to rxe1 through
# the marking (from when the module knows both QPs), captured.
rp_traffic() {
	local name=$1 d=$2 rc

	rp_fq || return 1
	PAIR_START=rp_mark_when_known
	run_pair "$name" \
		"ib_write_bw -F -d $RT_RXE1 -x $G1 -p $PORT -q 1 -s 4096 -D $d --tclass=$TCLASS" \
		"ib_write_bw -F -d $RT_RXE0 -x $G0 -p $PORT -q 1 -s 4096 -D $d --tclass=$TCLASS $RT_IP1"
	rc=$?
	PAIR_START=
	if ! wait "$RP_MARK_PID"; then
		echo "# the marking did not start: $(tr '\n' ' ' < "$OUT/mark.log")"
		rc=1
	fi
	rp_unmark || rc=1
	tc qdisc del dev "$RT_NETDEV0" root || rc=1
	return "$rc"
}

rp_check() {
	local name=$1

	shift
	rp_dump "$name" &&
		rt_rp check --pcap "$OUT/$name-vb.pcap" --ip0 "$RT_IP0" \
			--ip1 "$RT_IP1" --dev0 "$RT_RXE0" \
			--dump "$OUT/$name-rp.json" "$@"
}

rp_knobs() {
	local out

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	out=$("$RT_CLI" -j qp stats dev "$RT_RXE0")
	check_err $? "qp stats failed"
	jq -e '.[0] | .rp == false and .rp_min_rate_mbps == 12 and
		.rp_max_rate_mbps == 10000 and .rp_ai_rate_mbps == 40 and
		.rp_hai_rate_mbps == 200 and .rp_time_reset_us == 55 and
		.rp_byte_reset_bytes == 10000000 and .rp_threshold == 5 and
		.rp_initial_alpha == 1023 and .rp_g == 4 and
		.rp_alpha_period_us == 55 and
		.rp_rate_reduce_period_us == 4 and
		.rp_rate_first_cnp_mbps == 0 and .rp_gd == 11 and
		.rp_min_dec_factor_pct == 50 and .rp_clamp_target == 1 and
		.rp_clamp_target_ati == 1' <<< "$out" > /dev/null
	check_err $? "defaults: $out"
	out=$("$RT_CLI" qp set dev "$RT_RXE0" rp-min-rate-mbps 11 2>&1)
	[ $? = 1 ] && grep -q "valid range 12..1000000" <<< "$out"
	check_err $? "a minimum below the floor: \"$out\""
	out=$("$RT_CLI" qp set dev "$RT_RXE0" rp-gd 16 2>&1)
	[ $? = 1 ] && grep -q "valid range 0..15" <<< "$out"
	check_err $? "GD above 15: \"$out\""
	out=$("$RT_CLI" qp set dev "$RT_RXE0" rp-min-dec-factor-pct 101 2>&1)
	[ $? = 1 ] && grep -q "valid range 0..100" <<< "$out"
	check_err $? "a decrease factor above 100 %: \"$out\""
	out=$("$RT_CLI" qp set dev "$RT_RXE0" rp-min-rate-mbps 500 rp-max-rate-mbps 400 2>&1)
	[ $? = 1 ] && grep -q "minimum rate is above its maximum" <<< "$out"
	check_err $? "minimum above maximum: \"$out\""
	out=$("$RT_CLI" qp set rp on 2>&1)
	[ $? = 2 ] && grep -q '"rp" needs "dev DEV"' <<< "$out"
	check_err $? "rp without a device: \"$out\""
	"$RT_CLI" qp set dev "$RT_RXE0" accounting off
	check_err $? "accounting off failed"
	out=$("$RT_CLI" qp set dev "$RT_RXE0" rp on 2>&1)
	[ $? = 1 ] && grep -q "needs the device's QP accounting on" <<< "$out"
	check_err $? "rp on without accounting: \"$out\""
	# shellcheck disable=SC2086 # the parameters are split into words
	"$RT_CLI" qp set dev "$RT_RXE0" accounting on rp on $RP_PARAMS
	check_err $? "accounting, rp and its parameters in one request failed"
	out=$("$RT_CLI" -j qp stats dev "$RT_RXE0")
	jq -e ".[0] | .rp == true and .rp_max_rate_mbps == $MAX_MBPS and
		.rp_time_reset_us == 10000 and
		.rp_byte_reset_bytes == 100000" <<< "$out" > /dev/null
	check_err $? "after set: $out"
	"$RT_CLI" qp set dev "$RT_RXE0" accounting off
	check_err $? "accounting off failed"
	[ "$(qp_stat "$RT_RXE0" qp_rp_enable)" = 0 ]
	check_err $? "accounting off left the RP on"
	log_test "rp knobs: default off, paper/NVIDIA defaults; refusals explained; off with accounting"
}

# rp_idle_qp: an idle RC QP of rxe0 connected to one of rxe1 (rt_qpair,
# its PID added to RP_IDLE_PIDS): only a connected QP takes a CNP, from
# its peer.  Its QP number in RP_QPN once the module has verified the QP
# and knows its peer.  Not in a subshell: RP_IDLE_PIDS must grow.
rp_idle_qp() {
	local log=$OUT/rp-qpair-${#RP_IDLE_PIDS[@]}.log

	RP_QPN=
	"$RT_TOP/build/selftests/rt_qpair" -n 1 -g "$G0" "$RT_RXE0" "$RT_RXE1" \
		> "$log" 2>&1 &
	RP_IDLE_PIDS+=("$!")
	wait_for 30 grep -q '^ready$' "$log" || return 1
	RP_QPN=$(awk 'NF == 2 { print $1; exit }' "$log")
	[ -n "$RP_QPN" ] && wait_for 10 rp_qp_known "$RP_QPN"
}

rp_qp_known() {
	"$RT_CLI" -j qp show dev "$RT_RXE0" qpn "$1" |
		jq -e '.[0].comm == "rt_qpair" and .[0].remote_qpn != null' > /dev/null
}

# rp_qp_rp QPN: the QP's "cnps cuts rate_kbps target_kbps alpha".
rp_qp_rp() {
	"$RT_CLI" -j qp show dev "$RT_RXE0" qpn "$1" |
		jq -e -r '.[0] | "\(.rp_cnps) \(.rp_cuts) \(.rp_rate_kbps) \(.rp_target_kbps) \(.rp_alpha)"'
}

# rp_cnp_step QPN N WANT [PARAM VALUE...]: set the parameters, send QPN
# its Nth CNP from rxe1's address, and check that its reaction point
# handled it and has "N N WANT" (cuts, then "rate_kbps target_kbps
# alpha").
rp_cnp_step() {
	local q=$1 n=$2 want=$3 got

	shift 3
	if [ $# -gt 0 ]; then
		"$RT_CLI" qp set dev "$RT_RXE0" "$@" || return 1
	fi
	rt_qp inject --src "$RT_IP1" --dst "$RT_IP0" --qpn "$q" --count 1 \
		--opcode 0x81 || return 1
	wait_for 10 rp_cnps_are "$q" "$n"
	got=$(rp_qp_rp "$q")
	echo "# CNP $n ($*): cnps cuts rate target alpha = $got"
	[ "$got" = "$n $n $want" ]
}

rp_cnps_are() {
	[ "$(rp_qp_rp "$1" | cut -d' ' -f1)" = "$2" ]
}

# Each rule of a cut, with alpha fixed at 1/2 (InitialAlpha 512, G 0: no
# update, no decay), the rate-increase timer and byte counter off (no
# recovery), a cut on every CNP (no rate reduce period) and a maximum of
# 1000 Mb/s.  The rates are the DCQCN formulas worked by hand:
#  1. GD 11 (alpha/2), min. factor 50 %: 1000 * (1 - 1/4) = 750, Rt 1000
#  2. GD 10 (alpha): 750 * (1 - 1/2) = 375, Rt 750
#  3. min. factor 80 %: 375 / 2 is below 80 %: 300, Rt 375
#  4. ClampTargetRate 0 (no timer increase since): 240, Rt stays 375
#  5. min. factor 100 %: no cut, 240
#  6. min. factor 0, GD 9 (2 alpha = 1): 0, held at the minimum, 12
# and on another QP, RateOnFirstCNPMbps 100: its first CNP sets both
# rates to 100 Mb/s.
RP_IDLE_PIDS=()
RP_QPN=

rp_cut_rules() {
	local q r

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE0" rp on rp-max-rate-mbps 1000 \
		rp-time-reset-us 0 rp-byte-reset-bytes 0 rp-g 0 \
		rp-initial-alpha 512 rp-rate-reduce-period-us 0 \
		rp-alpha-period-us 1000000
	check_err $? "rp on failed"
	rp_idle_qp
	check_err $? "no idle QP on $RT_RXE0 that the module verified"
	q=$RP_QPN
	rp_cnp_step "$q" 1 "750000 1000000 512"
	check_err $? "CNP 1: GD 11, factor 50 %"
	rp_cnp_step "$q" 2 "375000 750000 512" rp-gd 10
	check_err $? "CNP 2: GD 10"
	rp_cnp_step "$q" 3 "300000 375000 512" rp-min-dec-factor-pct 80
	check_err $? "CNP 3: factor 80 %"
	rp_cnp_step "$q" 4 "240000 375000 512" rp-clamp-target 0
	check_err $? "CNP 4: no target clamp"
	rp_cnp_step "$q" 5 "240000 375000 512" rp-min-dec-factor-pct 100
	check_err $? "CNP 5: factor 100 %"
	rp_cnp_step "$q" 6 "12000 375000 512" rp-min-dec-factor-pct 0 rp-gd 9
	check_err $? "CNP 6: GD 9, factor 0"
	rp_idle_qp
	check_err $? "no second idle QP on $RT_RXE0"
	r=$RP_QPN
	rp_cnp_step "$r" 1 "100000 100000 512" rp-rate-first-cnp-mbps 100
	check_err $? "first CNP with RateOnFirstCNPMbps 100"
	kill "${RP_IDLE_PIDS[@]}" 2> /dev/null
	wait "${RP_IDLE_PIDS[@]}" 2> /dev/null
	RP_IDLE_PIDS=()
	log_test "RP cut rules, one CNP at a time: GD, minimum decrease factor, target clamp, rate on first CNP, minimum rate"
}

# now_ms: the guest's clock, in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# rp_alpha_at QPN T0 T1 WANT...: read the QP's alpha; the module took
# the CNP between T0 and T1 (ms), so at the read n alpha periods (1 s)
# have ended, n within what the read's start and end allow: alpha must
# be WANT[n] for one such n.  A read that straddles the end of a period is
# repeated, to check one n exactly where the host is quick enough.
rp_alpha_at() {
	local q=$1 t0=$2 t1=$3 r0 r1 n0 n1 got i n want ok

	shift 3
	want=("$@")
	for i in 1 2 3; do
		r0=$(now_ms)
		got=$(rp_qp_rp "$q" | cut -d' ' -f5)
		r1=$(now_ms)
		n0=$(((r0 - t1) / 1000))
		n1=$(((r1 - t0) / 1000))
		ok=1
		for ((n = n0; n <= n1; n++)); do
			[ "$got" = "${want[$n]:-}" ] && ok=0
		done
		echo "# alpha after $n0..$n1 period(s) ($((r0 - t1))..$((r1 - t0)) ms): $got, want one of ${want[*]:$n0:$((n1 - n0 + 1))}"
		[ "$ok" = 0 ] || return 1
		[ "$n0" = "$n1" ] && return 0
		sleep 0.3
	done
	return 0
}

# DCQCN's alpha, as NVIDIA defines it: updated once per alpha period
# (DceTcpRttUs, here 1 s) by whether a CNP came in it, never at a cut; a
# CNP within the rate reduce monitor period (here 1 s) of the last cut is
# not lost but cuts when the period ends.  Recovery off, G 512 (1/2),
# initial alpha 1000, GD 11; two CNPs back to back, then:
#   right away:	alpha 1000 (a cut leaves it), one cut: 1000 * (1 - 1000 /
#		1024 / 2) = 511.71875 Mb/s, Rt 1000 Mb/s;
#   1 period:	alpha = 1000 / 2 + 512 = 1012 (a CNP came);
#   the QP's next packet after 1 s: the held-back cut, with alpha 1012:
#		511.71875 * (1 - 1012 / 1024 / 2) = 258.857728 Mb/s, Rt
#		511.71875 (in 1/2^20 fixed point: 511718750 * 1036288 >> 21);
#   2 periods:	alpha = 1012 / 2 = 506 (no CNP); 3 periods: 253.
# Alpha after n periods, n = 0..60: 1000, then 1012 halved per period.
read -r -a RP_ALPHAS <<< "1000 1012 506 253 126 63 31 15 7 3 1 $(printf '0 %.0s' {11..60})"
rp_alpha_periods() {
	local q t0 t1 got

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE0" rp on rp-max-rate-mbps 1000 \
		rp-time-reset-us 0 rp-byte-reset-bytes 0 rp-g 512 \
		rp-initial-alpha 1000 rp-rate-reduce-period-us 1000000 \
		rp-alpha-period-us 1000000
	check_err $? "rp on failed"
	rp_idle_qp
	check_err $? "no idle QP on $RT_RXE0 that the module verified"
	q=$RP_QPN
	t0=$(now_ms)
	python3 "$RT_SELFTESTS/rt_forge.py" --src "$RT_IP1" --dst "$RT_IP0" \
		--qpn "$q" --opcode 0x81 --count 2 > /dev/null
	check_err $? "cannot send the CNPs"
	t1=$(now_ms)
	got=$(rp_qp_rp "$q")
	echo "# after 2 CNPs ($(($(now_ms) - t0)) ms): cnps cuts rate target alpha = $got"
	[ "$(cut -d' ' -f1-4 <<< "$got")" = "2 1 511718 1000000" ]
	check_err $? "two CNPs at once: $got, expected one cut: 2 1 511718 1000000"
	# Alpha right away (when this host is quick enough to read it within
	# the first period): unchanged by the cut.
	rp_alpha_at "$q" "$t0" "$t1" "${RP_ALPHAS[@]}"
	check_err $? "alpha after the cut is not as worked out"
	while [ $(($(now_ms) - t1)) -lt 1100 ]; do sleep 0.1; done
	rp_alpha_at "$q" "$t0" "$t1" "${RP_ALPHAS[@]}"
	check_err $? "alpha after the first period is not 1012"
	# The QP's next packet: an RNR NAK to a SEND from its peer.
	rt_qp inject --src "$RT_IP1" --dst "$RT_IP0" --qpn "$q" --count 1
	check_err $? "cannot send a SEND"
	wait_for 10 test "$(rp_qp_rp "$q" | cut -d' ' -f2)" = 2
	got=$(rp_qp_rp "$q")
	echo "# after the RRMP and a packet: $got"
	[ "$(cut -d' ' -f1-4 <<< "$got")" = "2 2 258857 511718" ]
	check_err $? "the CNP held back by the RRMP: $got, expected 2 2 258857 511718 (cut with alpha 1012)"
	while [ $(($(now_ms) - t1)) -lt 2100 ]; do sleep 0.1; done
	rp_alpha_at "$q" "$t0" "$t1" "${RP_ALPHAS[@]}"
	check_err $? "alpha does not decay by G per idle period"
	# However slow the host: 3 periods on, it must have decayed.
	while [ $(($(now_ms) - t1)) -lt 3100 ]; do sleep 0.1; done
	got=$(rp_qp_rp "$q" | cut -d' ' -f5)
	[ "$got" -le 253 ]
	check_err $? "alpha $got three periods after the CNPs, expected 253 or less"
	kill "${RP_IDLE_PIDS[@]}" 2> /dev/null
	wait "${RP_IDLE_PIDS[@]}" 2> /dev/null
	RP_IDLE_PIDS=()
	log_test "RP alpha per period (a CNP in it or not), not per cut; a CNP within the RRMP cuts at its end; alpha read is current"
}

RP_OFF_MBPS=

rp_off() {
	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0
	check_err $? "np on failed"
	rp_traffic off 6
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/off-client.log")"
	RP_OFF_MBPS=$(rp_rate off)
	check_err $? "no traffic in the capture"
	rp_check off --expect-none
	check_err $? "the capture or the QPs differ from RP off"
	echo "# RP off: rxe0 sent $RP_OFF_MBPS Mb/s (capture)"
	log_test "RP off: CNPs come, nothing paced, no RP state"
}

rp_on() {
	local mbps min

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# shellcheck disable=SC2086
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0 &&
		"$RT_CLI" qp set dev "$RT_RXE0" rp on $RP_PARAMS
	check_err $? "np or rp on failed"
	rp_traffic on 6
	check_err $? "ib_write_bw failed: $(tail -n 1 "$OUT/on-client.log")"
	mbps=$(rp_rate on)
	check_err $? "no traffic in the capture"
	rp_check on
	check_err $? "the CNPs the RP handled differ from the capture"
	echo "# RP on: rxe0 sent $mbps Mb/s (capture; RP off: ${RP_OFF_MBPS:-?})"
	[ -n "$RP_OFF_MBPS" ] && awk -v a="$mbps" -v b="$RP_OFF_MBPS" \
		'BEGIN { exit !(a < b) }'
	check_err $? "rate with the RP on ($mbps) not below RP off (${RP_OFF_MBPS:-none})"
	awk -v a="$mbps" -v f="$FLOOR_MBPS" 'BEGIN { exit !(a >= f) }'
	check_err $? "rate $mbps Mb/s below 90% of the floor ($FLOOR_MBPS)"
	min=$(jq '[.[] | select(.rp_cnps) | .rp_rate_kbps] | min' "$OUT/on-rp.json")
	[ "$min" != null ] && [ "$min" -ge "$FLOOR_KBPS" ]
	check_err $? "a QP's rate $min kb/s, below the floor"
	# The pacing binds: the QP's rate is below what it sent with the RP off.
	[ -n "$RP_OFF_MBPS" ] && awk -v r="$min" -v b="$RP_OFF_MBPS" \
		'BEGIN { exit !(r < b * 1000) }'
	check_err $? "the QP's rate $min kb/s is not below its RP-off rate ($RP_OFF_MBPS Mb/s)"
	jq -e '[.[] | select(.rp_cnps > 0 and .rp_cuts > 0)] | length == 1' \
		"$OUT/on-rp.json" > /dev/null
	check_err $? "no QP whose rate was cut: $(cat "$OUT/on-rp.json")"
	log_test "RP on: CNPs handled = captured, paced and sent rate below RP off, not below the floor"
}

# rp_sample NAME: the sending QP's "paced rate_kbps" now.
rp_sample() {
	"$RT_CLI" -j qp show dev "$RT_RXE0" |
		jq -e -r '[.[] | select(.rp_cnps > 0)] |
			if length == 1 then .[0] | "\(.rp_paced) \(.rp_rate_kbps)"
			else error("not one QP with RP state") end' |
		tee "$OUT/$1-sample.txt"
}

# in_order PCAP: rxe0's requests in the capture of the receiving netdev
# never arrive out of order: no request PSN arrives that was not seen
# before (not a retransmission) and comes before the highest one seen.
# Prints the requests, the retransmitted ones and the reordered ones.
in_order() {
	python3 - "$1" "$RT_IP0" "$RT_IP1" "$RT_SELFTESTS" <<'EOF'
import socket
import struct
import sys

sys.path.insert(0, sys.argv[4])
import rt_pcap  # noqa: E402

src, dst = socket.inet_aton(sys.argv[2]), socket.inet_aton(sys.argv[3])
seen, top = {}, {}
n = again = late = 0
for _, ip, _ in rt_pcap.frames(sys.argv[1]):
    if len(ip) < 40 or ip[9] != 17 or ip[12:16] != src or ip[16:20] != dst:
        continue
    ihl = (ip[0] & 15) * 4
    if struct.unpack(">H", ip[ihl + 2:ihl + 4])[0] != 4791:
        continue
    bth = ip[ihl + 8:]
    op = bth[0]
    # RC requests: not the read responses and acknowledgments.
    if op >= 0x20 or 0x0d <= op <= 0x12:
        continue
    qpn = int.from_bytes(bth[5:8], "big")
    psn = int.from_bytes(bth[9:12], "big")
    n += 1
    s = seen.setdefault(qpn, set())
    if psn in s:
        again += 1
        continue
    if qpn in top and 0 < (top[qpn] - psn) % (1 << 24) < (1 << 23):
        late += 1
    s.add(psn)
    if qpn not in top or 0 < (psn - top[qpn]) % (1 << 24) < (1 << 23):
        top[qpn] = psn
print(f"# {n} requests, {again} retransmitted, {late} out of order")
sys.exit(1 if late or not n else 0)
EOF
}

# rp_toggle: three times, the RP goes off for a second while the QP is
# paced, then on again (in the background, from 3 s into the transfer).
rp_toggle() {
	(
		sleep 3
		for _ in 1 2 3; do
			"$RT_CLI" qp set dev "$RT_RXE0" rp off
			sleep 1
			# shellcheck disable=SC2086
			"$RT_CLI" qp set dev "$RT_RXE0" rp on $RP_PARAMS
			sleep 1.5
		done
	) > "$OUT/toggle.log" 2>&1 &
	RP_TOGGLE_PID=$!
}

# Pacing stops (the RP off) while the QP's packets wait in fq for their
# departure: the packets that follow leave after them, never before.  The
# RP's rates are bounded to 12..24 Mb/s and do not recover (no timer, no
# byte counter): once cut, the QP stays paced below what rxe sends, so
# that packets wait in fq (its "throttled" count shows it) when the RP
# goes off.
RP_ORDER_PARAMS="rp-max-rate-mbps 24 rp-min-rate-mbps 12 rp-time-reset-us 0 rp-byte-reset-bytes 0"
rp_in_order() {
	local cuts throttled rc

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# shellcheck disable=SC2086
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0 &&
		"$RT_CLI" qp set dev "$RT_RXE0" rp on $RP_ORDER_PARAMS
	check_err $? "np or rp on failed"
	RP_PARAMS_SAVED=$RP_PARAMS
	RP_PARAMS=$RP_ORDER_PARAMS
	PAIR_START=rp_toggle
	rp_fq && rp_marking
	check_err $? "cannot set up fq and the marking"
	run_pair order \
		"ib_write_bw -F -d $RT_RXE1 -x $G1 -p $PORT -q 1 -s 4096 -D 12 --tclass=$TCLASS" \
		"ib_write_bw -F -d $RT_RXE0 -x $G0 -p $PORT -q 1 -s 4096 -D 12 --tclass=$TCLASS $RT_IP1"
	rc=$?
	PAIR_START=
	RP_PARAMS=$RP_PARAMS_SAVED
	# fq's statistics ("throttled N" twice: the flows throttled now, and
	# the times a flow was held for its departure time): the larger.
	throttled=$(tc -s qdisc show dev "$RT_NETDEV0" root |
		grep -o 'throttled [0-9]*' | awk '$2 > m { m = $2 } END { print m + 0 }')
	rp_unmark
	tc qdisc del dev "$RT_NETDEV0" root
	check_err "$rc" "ib_write_bw failed: $(tail -n 1 "$OUT/order-client.log")"
	wait "$RP_TOGGLE_PID"
	check_err $? "toggling the RP failed: $(cat "$OUT/toggle.log")"
	rp_dump order
	cuts=$(jq '[.[] | .rp_cuts // 0] | add' "$OUT/order-rp.json")
	echo "# the RP cut the rate $cuts times; fq throttled the flow ${throttled:-?} times"
	[ "${cuts:-0}" -gt 0 ] && [ "${throttled:-0}" -gt 0 ]
	check_err $? "the pacing never bound (cuts ${cuts:-none}, throttled ${throttled:-none}): nothing waited when the RP went off"
	in_order "$OUT/order-vb.pcap"
	check_err $? "requests arrived out of order"
	log_test "RP off and on three times while paced: every request arrives in order"
}

rp_recover() {
	local spid cpid s1 s2 r1 r2

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# shellcheck disable=SC2086
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0 &&
		"$RT_CLI" qp set dev "$RT_RXE0" rp on $RP_PARAMS
	check_err $? "np or rp on failed"
	rp_fq && rp_marking
	check_err $? "cannot add fq and the marking"
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -q 1 -D 16 -s 4096 \
		--tclass="$TCLASS" > "$OUT/rec-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -q 1 -D 16 -s 4096 \
		--tclass="$TCLASS" "$RT_IP1" > "$OUT/rec-client.log" 2>&1 &
	cpid=$!
	wait_for 30 rp_paced_some
	check_err $? "no QP paced"
	sleep 2
	s1=$(rp_sample rec1)
	check_err $? "no RP state while marking"
	rp_unmark
	check_err $? "cannot remove the marking"
	sleep 3
	s2=$(rp_sample rec2)
	check_err $? "no RP state after the marking"
	wait "$cpid"
	check_err $? "the client failed: $(tail -n 1 "$OUT/rec-client.log")"
	wait "$spid"
	check_err $? "the server failed: $(tail -n 1 "$OUT/rec-server.log")"
	tc qdisc del dev "$RT_NETDEV0" root
	echo "# while marking: paced, rate (kb/s): $s1; 3 s after: $s2"
	r1=${s1#* }
	r2=${s2#* }
	[ "${s1% *}" = true ] && [ "$r1" -lt $((MAX_MBPS * 1000)) ] &&
		[ "$r1" -ge "$FLOOR_KBPS" ]
	check_err $? "while marking, not paced between the floor and the maximum: $s1"
	[ "$r2" -gt "$r1" ] && [ "$r2" = $((MAX_MBPS * 1000)) ]
	check_err $? "after the marking, the rate did not rise back to the maximum: $s1 -> $s2"
	log_test "RP on: the rate recovers to the maximum once the marking stops"
}

rp_teardown() {
	local spid cpid pos bad t0 t1

	RET=0
	pos=$(rt_dmesg_pos)
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# shellcheck disable=SC2086
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0 &&
		"$RT_CLI" qp set dev "$RT_RXE0" rp on $RP_PARAMS
	check_err $? "np or rp on failed"
	rp_fq && rp_marking
	check_err $? "cannot add fq and the marking"

	# 1: the QPs are destroyed under traffic (SIGKILL), paced.
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -q 2 -D 20 -s 4096 \
		--tclass="$TCLASS" > "$OUT/down-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -q 2 -D 20 -s 4096 \
		--tclass="$TCLASS" "$RT_IP1" > "$OUT/down-client.log" 2>&1 &
	cpid=$!
	wait_for 30 rp_paced_some
	check_err $? "no QP paced before the kill"
	t0=$(date +%s)
	kill -KILL "$spid"
	wait "$spid" 2> /dev/null
	kill -KILL "$cpid"
	wait "$cpid" 2> /dev/null
	t1=$(date +%s)
	echo "# killed under traffic (server first), the QPs were gone in $((t1 - t0)) s"
	[ $((t1 - t0)) -lt 20 ]
	check_err $? "destroying the QPs took $((t1 - t0)) s (rxe waits for packets?)"

	# 2: the module goes away under traffic, paced.
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -q 2 -D 6 -s 4096 \
		--tclass="$TCLASS" > "$OUT/unl-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -q 2 -D 6 -s 4096 \
		--tclass="$TCLASS" "$RT_IP1" > "$OUT/unl-client.log" 2>&1 &
	cpid=$!
	wait_for 30 rp_paced_some
	check_err $? "no QP paced before the rmmod"
	rt_kmod_unload
	check_err $? "rmmod under traffic failed"
	wait "$cpid"
	check_err $? "the traffic failed across the rmmod: $(tail -n 1 "$OUT/unl-client.log")"
	wait "$spid"
	rp_unmark
	tc qdisc del dev "$RT_NETDEV0" root
	bad=$(rt_dmesg_bad "$pos")
	[ -z "$bad" ]
	check_err $? "kernel log: $(head -n 3 <<< "$bad" | tr '\n' ' ')"
	log_test "RP on: QPs killed and rmmod under traffic, kernel log clean"
}

# rp_paced_some: a QP of rxe0 is paced now.
rp_paced_some() {
	"$RT_CLI" -j qp show dev "$RT_RXE0" 2> /dev/null |
		jq -e '[.[] | select(.rp_paced == true)] | length > 0' > /dev/null
}

qp_main
