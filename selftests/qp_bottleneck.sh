#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Software DCQCN through a shared bottleneck: one round of
# bench/dcqcn_bottleneck.sh (two ib_write_bw flows from rxe0 to rxe1
# through htb + red ecn on ifb0, vb's ingress; fq on va): without the
# bottleneck (free), which calibrates it (half of what the flows sent, so
# that it binds on a busy host as on a quiet one), then DCQCN off and on,
# and the parts of its result that hold on every run: the
# capture of what leaves the bottleneck against red's counters, the CNPs
# in the capture against the module's (np_cnp_sent of rxe1, rx_cnp_pkts
# and rp_cnps of each rxe0 QP), the RP's rates within [min, max], no CNP
# and no RP state with DCQCN off, a clean kernel log, and with DCQCN on
# Jain's index of the two flows at least 0.9 (it held in every run of the
# bench on both kernels, off as well: two equal flows share a FIFO fairly,
# so it is no evidence for DCQCN).  The utilisation and the comparisons
# of off and on (CE marks, backlog) are the bench's to report (see
# bench/README): under emulation they depend on the host's load.  When
# the bottleneck did not bind even so (nothing CE-marked: the load grew
# between the free run and the others), the failure says that.

ALL_TESTS="bn_run bn_bind bn_off bn_on"

source "$(dirname "$0")/lib.sh"

OUT=${RT_OUT:-/tmp}/qp_bottleneck
BENCH=$RT_TOP/bench/dcqcn_bottleneck.sh
ROWS=$OUT/runs.jsonl

# row MODE FILTER: the jq FILTER holds for MODE's run.
row() {
	jq -e -s --arg m "$1" "[.[] | select(.mode == \$m)] |
		length == 1 and (.[0] | $2)" "$ROWS" > /dev/null
}

row_show() {
	jq -c -s --arg m "$1" '.[] | select(.mode == $m) |
		del(.mbps, .window, .samples)' "$ROWS" 2> /dev/null
}

bn_run() {
	local rc

	RET=0
	mkdir -p "$OUT" && rm -f "$ROWS"
	BN_OUT=$OUT BN_SECS=10 BN_MODES="free off on" bash "$BENCH" 1 \
		> "$OUT/bench.log" 2>&1
	rc=$?
	grep -E '^  +(round|CE capture|CNPs capture|FAIL)|^# (round|bottleneck)|kernel log|failed|cannot' \
		"$OUT/bench.log" | sed 's/^/# /'
	check_err "$rc" "the bench failed (exit $rc): $(grep -E 'FAIL|failed|dcqcn_bottleneck:' "$OUT/bench.log" | tail -n 2 | tr '\n' ' ')"
	log_test "bottleneck: free, DCQCN off and on, every check of the bench passed, kernel log clean"
}

# bn_bind: the calibrated bottleneck bound in both runs (CE marks), at
# half the free run's rate; what failed otherwise is the bench's "did not
# bind" line, not its consequences (no CNP).
bn_bind() {
	local free

	RET=0
	free=$(jq -e -s '[.[] | select(.mode == "free")] |
		if length == 1 and .[0].fails == [] then .[0].mbps | add
		else false end' "$ROWS")
	check_err $? "no free run: $(row_show free)"
	for m in off on; do
		row "$m" ".bound and .cap_ce > 0 and
			(.rate_mbit - ${free:-0} / 2 | fabs) <= 0.01"
		check_err $? "$m: $(row_show "$m" | jq -r '.fails[0] // .')"
	done
	log_test "bottleneck: calibrated at half the free run's ${free:-?} Mb/s, it bound (CE marks) with DCQCN off and on"
}

bn_off() {
	RET=0
	row off '.fails == [] and .cnp_cap == 0 and .np_cnp_sent == 0 and
		.rx_cnp_pkts == 0 and .rp_cnps == 0 and .rp_min_kbps == null and
		.cap_ce == .red_marked and .cap_ce > 0'
	check_err $? "off: $(row_show off)"
	log_test "bottleneck, DCQCN off: CE marks (capture = red), no CNP, no RP state"
}

bn_on() {
	RET=0
	row on '.fails == [] and .cnp_cap > 0 and
		.cnp_cap == .np_cnp_sent and .cnp_cap == .rx_cnp_pkts and
		.cnp_cap == .rp_cnps and .cap_ce == .red_marked and
		.rp_min_kbps >= 12000 and .rp_max_kbps <= 400000 and
		.jain >= 0.9'
	check_err $? "on: $(row_show on)"
	log_test "bottleneck, DCQCN on: CNPs captured = sent = received = handled, RP rates in [12, 400] Mb/s, Jain >= 0.9"
}

rt_require_root
rt_require_cmd python3 gojq tcpdump tc ib_write_bw
[ -r "$BENCH" ] || rt_setup_failed "no $BENCH"
rt_run_tests
