#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared part of the per-QP accounting selftests (qp_accounting.sh,
# qp_lifecycle.sh; sourced, not run): the Soft-RoCE wire with a capture
# mirror, tcpdump captures, perftest/rdma-core pairs and the comparison of
# the module's per-QP counters with the captures (rt_qp.py: tshark's
# InfiniBand dissector decodes the packets, its own parser cross-checks).
#
# Captures: everything on vb (rxe1's both directions, which are also
# rxe0's received packets), and rxe0's sent packets mirrored from va's
# egress before its root qdisc (netem) to a dummy device, so that packets
# netem drops still count as sent.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RT_QP="$RT_SELFTESTS/rt_qp.py"
RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
OUT=${RT_OUT:-/tmp}/qp
PORT=18520
LINGER_MS=600000

rt_qp() {
	python3 "$RT_QP" "$@"
}

# Load rocetune.ko afresh: no entries from earlier tests.
qp_reload() {
	rt_kmod_unload
	rt_modload rocetune kmod/rocetune.ko "qp_linger_ms=$LINGER_MS"
}

# Captures go to the guest's tmpfs (the 9p share is too slow to keep up)
# with a large buffer; a capture that dropped packets fails the test.
# CAP_FILTER selects what they keep (a test may leave out its own noise).
CAP=/tmp/rt-qp-cap
CAP_FILTER="udp port 4791"

cap_start() {
	local name=$1

	mkdir -p "$CAP"
	cap_name=$name
	tcpdump -i "$RT_NETDEV1" -s 96 -B 65536 -w "$CAP/$name-vb.pcap" \
		"$CAP_FILTER" > "$OUT/$name-vb.log" 2>&1 &
	cap_vb=$!
	tcpdump -i rtmir0 -s 96 -B 65536 -w "$CAP/$name-tx0.pcap" \
		"$CAP_FILTER" > "$OUT/$name-tx0.log" 2>&1 &
	cap_tx0=$!
	# tcpdump takes long to start on a loaded host under emulation.
	wait_for 60 grep -q "listening on" "$OUT/$name-vb.log" &&
		wait_for 60 grep -q "listening on" "$OUT/$name-tx0.log"
}

cap_stop() {
	local f

	# Let the last ACKs cross the wire, then flush the captures.
	sleep 1
	kill -INT "$cap_vb" "$cap_tx0" 2> /dev/null
	wait "$cap_vb" "$cap_tx0" 2> /dev/null
	cp "$CAP/$cap_name-vb.pcap" "$CAP/$cap_name-tx0.pcap" "$OUT/"
	for f in "$OUT/$cap_name-vb.log" "$OUT/$cap_name-tx0.log"; do
		if ! grep -q '^0 packets dropped by kernel' "$f"; then
			echo "# capture incomplete: $(tr '\n' ' ' < "$f")"
			return 1
		fi
	done
	return 0
}

# compare NAME [QPN_MIN]: both devices' counters (of QPs numbered from
# QPN_MIN) against the captures of NAME; saves OUT/NAME-{dump,stats}.json.
compare() {
	local name=$1 min=${2:-0}

	rt_qp check --name "$name" --qpn-min "$min" --cap "$CAP" --out "$OUT" \
		--dev0 "$RT_RXE0" --ip0 "$RT_IP0" --dev1 "$RT_RXE1" --ip1 "$RT_IP1"
}

unattributed() {
	jq '[.[] | .qp_unattr_rx + .qp_unattr_tx] | add' "$OUT/$1-stats.json"
}

# qp_stat DEV FIELD: a field of DEV's QP_STATS_GET reply (rt_qp.py stats).
qp_stat() {
	rt_qp stats | jq -e -r ".[] | select(.dev_name == \"$1\") | .$2"
}

# qp_stat_is DEV FIELD VALUE: the field has that value now.
qp_stat_is() {
	[ "$(qp_stat "$1" "$2")" = "$3" ]
}

# run_pair NAME SERVER_CMD CLIENT_CMD: a server on rxe1, a client on rxe0.
# PAIR_START, when set, is a command run once the captures are running.
PAIR_START=
run_pair() {
	local name=$1 server=$2 client=$3 spid cpid rc src

	cap_start "$name" || return 1
	if [ -n "$PAIR_START" ] && ! $PAIR_START; then
		cap_stop
		return 1
	fi
	# shellcheck disable=SC2086 # the commands are split into words
	$server > "$OUT/$name-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT" || { kill "$spid"; return 1; }
	# shellcheck disable=SC2086
	timeout 120 $client > "$OUT/$name-client.log" 2>&1 &
	cpid=$!
	wait "$cpid"
	rc=$?
	# A server whose client never came would wait for ever: stop it.
	timeout 20 tail --pid="$spid" -f /dev/null || kill "$spid" 2> /dev/null
	wait "$spid"
	src=$?
	[ "$rc" = 0 ] || echo "# client exit $rc: $(tail -n 2 "$OUT/$name-client.log" | tr '\n' ' ')"
	[ "$src" = 0 ] || echo "# server exit $src: $(tail -n 2 "$OUT/$name-server.log" | tr '\n' ' ')"
	cap_stop || rc=1
	[ "$src" = 0 ] || rc=1
	return "$rc"
}

setup() {
	mkdir -p "$OUT"
	rt_wire_up || return 1
	modprobe -q dummy numdummies=0 || return 1
	ip link add rtmir0 type dummy && ip link set rtmir0 up || return 1
	tc qdisc add dev "$RT_NETDEV0" clsact &&
		tc filter add dev "$RT_NETDEV0" egress matchall \
			action mirred egress mirror dev rtmir0 || return 1
	# shellcheck disable=SC2034 # G0 and G1 are used by the tests
	G0=$(rt_gid_index "$RT_RXE0" "$RT_IP0") &&
		G1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
}

# A test script may define qp_test_cleanup, run first at exit.
cleanup() {
	[ "$(type -t qp_test_cleanup)" = function ] && qp_test_cleanup
	rt_kmod_unload 2> /dev/null
	ip link del rtmir0 2> /dev/null
	rt_wire_down
}

# qp_main: the common start of both scripts.
qp_main() {
	rt_require_root
	rt_require_cmd python3 tcpdump tshark jq tc ibv_rc_pingpong \
		ib_send_bw ib_write_bw
	[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
	trap cleanup EXIT
	setup || rt_setup_failed "cannot set up the rxe wire and the capture mirror"
	rt_run_tests
}
