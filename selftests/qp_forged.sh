#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Packets that software RoCE would drop change nothing.  Any process can
# send RoCEv2 packets from a plain UDP socket (rt_forge.py, run here as an
# unprivileged user): a bare BTH, a wrong ICRC, P_Key or header version, a
# source that is not the QP's peer, a CNP to QP 1 or to a UD QP.  rocetune
# must count on a QP exactly the packets that rxe takes, count the others
# on the device by why they were dropped, and let none of them cut a rate,
# trigger a CNP or hold a pending entry for long.
#
# The oracle is rxe itself: its port counter rcvd_pkts (rdma statistic)
# counts the packets that pass its header checks and ICRC
# (drivers/infiniband/sw/rxe/rxe_recv.c), and the captures count what
# arrived.  The QPs are rt_qpair's: connected (RTS) and idle, rxe0's QP of
# each pair the peer of rxe1's.

ALL_TESTS="rxe_agrees forged_cnps_cut_nothing ce_junk_no_cnp spoofed_acks_no_rtt"

source "$(dirname "$0")/qp_lib.sh"

QPAIR=$RT_TOP/build/selftests/rt_qpair
# An address of the first netdev that is no QP's peer.
FOREIGN_IP=10.0.0.3
# The forged packets' UDP source port, for the captures.
FORGE_SPORT=47100
UNPRIV=nobody
QPAIR_PIDS=()
QPAIR_LINES=()

qp_test_cleanup() {
	qpair_stop
	[ -z "${FORGE_DIR:-}" ] || pkill -f "$FORGE_DIR/rt_forge.py"
	ip addr del "$FOREIGN_IP/32" dev "$RT_NETDEV0" 2> /dev/null
	[ -z "${FORGE_BASE:-}" ] || rm -rf "$FORGE_BASE"
}

# qpair_start TYPE N: N connected idle QP pairs of TYPE (rc, ud) between
# rxe0 and rxe1; "QPN0 QPN1" lines appended to QPAIR_LINES.  Returns once
# the module has each pair's entries, with the peer of RC QPs.
qpair_start() {
	local out=$OUT/qpair-$1-${#QPAIR_PIDS[@]}.log

	"$QPAIR" -t "$1" -n "$2" -g "$G0" "$RT_RXE0" "$RT_RXE1" > "$out" 2>&1 &
	QPAIR_PIDS+=($!)
	if ! wait_for 60 grep -q '^ready$' "$out"; then
		echo "# rt_qpair -t $1 not ready in 60 s: $(tr '\n' ' ' < "$out")"
		return 1
	fi
	mapfile -t -O "${#QPAIR_LINES[@]}" QPAIR_LINES < <(grep -v '^ready$' "$out")
	if ! wait_for 30 qpair_known "$1" "$out"; then
		echo "# the module has not learned the QPs of rt_qpair -t $1 in 30 s"
		return 1
	fi
}

qpair_stop() {
	[ "${#QPAIR_PIDS[@]}" = 0 ] && return
	kill "${QPAIR_PIDS[@]}" 2> /dev/null
	wait "${QPAIR_PIDS[@]}" 2> /dev/null
	QPAIR_PIDS=()
	QPAIR_LINES=()
}

# qpair_known TYPE LOG: the module has an entry of every QP that the
# rt_qpair of LOG holds, with its remote QP for RC.
qpair_known() {
	local a b want=()

	while read -r a b; do
		[ -n "$b" ] || continue
		want+=("[\"$RT_RXE0\",$a,$b]" "[\"$RT_RXE1\",$b,$a]")
	done < "$2"
	rt_qp dump | jq -e --arg t "$1" --argjson want "[$(IFS=,; echo "${want[*]}")]" '
		[.[] | [.dev, .qpn, (if $t == "rc" then .remote_qpn else null end)]] as $have |
		all($want[]; . as $w | $have | any(. == [$w[0], $w[1],
			(if $t == "rc" then $w[2] else null end)]))' > /dev/null
}

# forge ARGS...: rt_forge.py as the unprivileged user.
forge() {
	setpriv --reuid="$UNPRIV" --regid=nogroup --clear-groups \
		python3 "$FORGE_DIR/rt_forge.py" --sport "$FORGE_SPORT" "$@"
}

# forgers_waiting N PREFIX: N forgers logging to $OUT/PREFIX*.log wait
# for their QP numbers.
forgers_waiting() {
	[ "$(grep -l '^waiting for ' "$OUT/$2"*.log 2> /dev/null | wc -l)" = "$1" ]
}

# qpn_publish NAME QPNS: the QP numbers that forgers started with
# --qpn-file NAME wait for (written whole, so that none reads half).
qpn_publish() {
	echo "$2" > "$FORGE_BASE/$1.tmp" && mv "$FORGE_BASE/$1.tmp" "$FORGE_BASE/$1"
}

# rxe_rcvd DEV: rxe's count of the packets it took (passed its checks).
rxe_rcvd() {
	rdma -j statistic show link "$1/1" |
		jq -e -r '.[0] | (.counters // .)["rcvd_pkts"] // .rcvd_pkts'
}

# qp_field DEV QPN FIELD: a counter of the module's entry (0 if absent).
qp_field() {
	rt_qp dump --dev "$1" | jq -e -r ".[] | select(.qpn == $2) | .$3 // 0"
}

# bad_sum DEV: the device's dropped packets, all reasons, and unattributed.
bad_sum() {
	rt_qp stats | jq -e -r ".[] | select(.dev_name == \"$1\") |
		.qp_rx_bad_hdr + .qp_rx_bad_icrc + .qp_rx_bad_peer + .qp_unattr_rx"
}

# forge_cap_start NAME NETDEV: capture the forged packets arriving at NETDEV.
forge_cap_start() {
	tcpdump -i "$2" -s 96 -B 65536 -w "$CAP/$1.pcap" \
		"udp src port $FORGE_SPORT or udp[8] == 0x81" > "$OUT/$1-cap.log" 2>&1 &
	FCAP_PID=$!
	wait_for 60 grep -q "listening on" "$OUT/$1-cap.log"
}

forge_cap_stop() {
	sleep 1
	kill -INT "$FCAP_PID" 2> /dev/null
	wait "$FCAP_PID" 2> /dev/null
	grep -q '^0 packets dropped by kernel' "$OUT/$1-cap.log"
}

# cap_count NAME FILTER: packets of capture NAME matching FILTER.
cap_count() {
	tcpdump -nr "$CAP/$1.pcap" "$2" 2> /dev/null | wc -l
}

# Each kind of packet, sent to rxe1's QPs from rxe0's side: the module's
# counters move exactly as rxe's and the capture's say.
rxe_agrees() {
	local a b ua ub r0 r1 s0 s1 q0 q1 u0 u1 n got want arrived bad0 bad1 st

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	qpair_start rc 1 && qpair_start ud 1
	check_err $? "cannot start connected QP pairs (rt_qpair)"
	read -r a b <<< "${QPAIR_LINES[0]}"
	read -r ua ub <<< "${QPAIR_LINES[1]}"
	echo "# RC pair $RT_RXE0 $a <-> $RT_RXE1 $b, UD pair $ua <-> $ub"
	forge_cap_start agree "$RT_NETDEV1"
	check_err $? "cannot start the capture"
	r0=$(rxe_rcvd "$RT_RXE1") && s0=$(rt_qp stats) &&
		q0=$(qp_field "$RT_RXE1" "$b" rx_pkts) &&
		u0=$(qp_field "$RT_RXE1" "$ub" rx_pkts)
	check_err $? "cannot read the counters before"
	n=20
	# Taken by rxe: RC SEND from the peer (rxe answers with an RNR NAK:
	# no receive is posted), UD SEND (dropped later: no receive).
	forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$ub" --opcode 0x64 --count "$n" &&
	# Dropped by rxe, each kind.
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --kind bare --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --kind icrc --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --kind pkey --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --kind tver --count "$n" &&
		forge --src "$FOREIGN_IP" --dst "$RT_IP1" --qpn "$b" --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn 1 --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$ub" --opcode 0x81 --count "$n" &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --opcode 0x64 --count "$n"
	check_err $? "rt_forge.py failed"
	# The pending entries of the foreign source settle within a period.
	sleep 2.5
	forge_cap_stop agree
	check_err $? "the capture dropped packets"
	r1=$(rxe_rcvd "$RT_RXE1") && s1=$(rt_qp stats) &&
		q1=$(qp_field "$RT_RXE1" "$b" rx_pkts) &&
		u1=$(qp_field "$RT_RXE1" "$ub" rx_pkts)
	check_err $? "cannot read the counters after"
	arrived=$(cap_count agree "udp src port $FORGE_SPORT and dst host $RT_IP1")
	echo "# sent $((10 * n)), captured $arrived on $RT_NETDEV1"
	[ "$arrived" = $((10 * n)) ]
	check_err $? "$arrived of $((10 * n)) forged packets arrived"
	echo "# rxe took $((r1 - r0)); the module counted $((q1 - q0)) on RC QP $b, $((u1 - u0)) on UD QP $ub"
	# rxe's count includes the RNR NAKs its peer got back: rxe0's, on
	# the other device, so rxe1's count is the forged packets alone.
	[ $((r1 - r0)) = $((2 * n)) ]
	check_err $? "rxe took $((r1 - r0)) packets, expected $((2 * n))"
	[ $((q1 - q0)) = "$n" ] && [ $((u1 - u0)) = "$n" ]
	check_err $? "the module counted $((q1 - q0)) and $((u1 - u0)) packets on the QPs, rxe took $n each"
	for st in hdr:$((6 * n)) icrc:$n peer:$n; do
		want=${st#*:}
		bad0=$(jq -r ".[] | select(.dev_name == \"$RT_RXE1\") | .qp_rx_bad_${st%:*}" <<< "$s0")
		bad1=$(jq -r ".[] | select(.dev_name == \"$RT_RXE1\") | .qp_rx_bad_${st%:*}" <<< "$s1")
		got=$((bad1 - bad0))
		echo "# rx_bad_${st%:*}: $got"
		[ "$got" = "$want" ]
		check_err $? "rx_bad_${st%:*} rose by $got, expected $want"
	done
	qpair_stop
	log_test "rxe and the module agree: $n of each kind, only the valid ones count on a QP"
}

# forged_cnps_cut_nothing: with the RP on at rxe0 and ib_write_bw running
# from rxe0 to rxe1, an unprivileged user sprays CNPs of every forged kind
# at rxe0's QP numbers 17..80: no QP is cut, paced or counts a CNP, and
# ib_write_bw's QP keeps sending in RTS; every forged CNP is dropped or
# unattributed.  The counters are read while ib_write_bw's QP lives, so
# its own first and last packets (a QP the module does not know yet, or
# no longer) are not in the difference.  Then one genuine CNP from the
# peer cuts.
forged_cnps_cut_nothing() {
	local before after arrived spids=() cpid spid q pkts rc kinds k
	local wq tx0 tx1 t0

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	qpair_start ud 1
	check_err $? "cannot start a UD QP pair (rt_qpair)"
	read -r q _ <<< "${QPAIR_LINES[0]}"
	"$RT_CLI" qp set dev "$RT_RXE0" rp on
	check_err $? "rp on failed"
	forge_cap_start spray "$RT_NETDEV0"
	check_err $? "cannot start the capture"
	# The forgers start first and wait for their QP numbers: they send
	# while ib_write_bw runs, not after a Python start-up under its load.
	rm -f "$FORGE_BASE"/spray-*
	kinds=("--src $RT_IP1 --kind bare" "--src $RT_IP1 --kind icrc"
	       "--src $RT_IP1 --kind pkey" "--src $FOREIGN_IP")
	for k in "${kinds[@]}"; do
		# shellcheck disable=SC2086 # the options are split into words
		forge $k --dst "$RT_IP0" --qpn-file "$FORGE_BASE/spray-qpns" \
			--opcode 0x81 --count 10 --interval-us 20 \
			> "$OUT/spray-forge-${#spids[@]}.log" 2>&1 &
		spids+=($!)
	done
	forge --src "$RT_IP1" --dst "$RT_IP0" --qpn-file "$FORGE_BASE/spray-qp1" \
		--opcode 0x81 --count 100 --interval-us 20 > "$OUT/spray-forge-qp1.log" 2>&1 &
	spids+=($!)
	wait_for 60 forgers_waiting 5 spray-forge-
	check_err $? "the forgers did not start: $(cat "$OUT"/spray-forge-*.log | tr '\n' ' ')"
	# Longer than any spray: stopped once the counters are read.
	ib_write_bw -d "$RT_RXE1" -x "$G1" -p "$PORT" -s 4096 -D 120 \
		> "$OUT/spray-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "ib_write_bw server did not listen"
	ib_write_bw -d "$RT_RXE0" -x "$G0" -p "$PORT" -s 4096 -D 120 "$RT_IP1" \
		> "$OUT/spray-client.log" 2>&1 &
	cpid=$!
	wait_for 30 pp_qpn "$RT_RXE0" "$cpid" > /dev/null
	check_err $? "rdma shows no connected QP of ib_write_bw ($cpid)"
	read -r wq _ < <(pp_qpn "$RT_RXE0" "$cpid")
	wait_for 30 test "$(qp_field "$RT_RXE0" "$wq" tx_pkts)" -gt 0
	check_err $? "the module counts no packet sent by ib_write_bw's QP $wq"
	before=$(bad_sum "$RT_RXE0") && tx0=$(qp_field "$RT_RXE0" "$wq" tx_pkts)
	check_err $? "no QP stats of $RT_RXE0"
	t0=$(date +%s%N)
	qpn_publish spray-qpns 17-80 && qpn_publish spray-qp1 "1,$q"
	check_err $? "cannot hand the forgers their QP numbers"
	wait "${spids[@]}"
	rc=$?
	check_err "$rc" "rt_forge.py failed: $(cat "$OUT"/spray-forge-*.log | tr '\n' ' ')"
	# Forged CNPs for QP numbers that no QP has wait on pending entries
	# until the verification finds no such QP.
	wait_for 10 qp_stat_is "$RT_RXE0" qp_pending 0
	check_err $? "$(qp_stat "$RT_RXE0" qp_pending) pending entries left after the spray"
	after=$(bad_sum "$RT_RXE0") && tx1=$(qp_field "$RT_RXE0" "$wq" tx_pkts)
	check_err $? "no QP stats of $RT_RXE0 after the spray"
	echo "# spray and settling: $((($(date +%s%N) - t0) / 1000000)) ms; ib_write_bw's QP $wq sent $((tx1 - tx0)) packets meanwhile"
	kill -0 "$cpid" 2> /dev/null
	check_err $? "ib_write_bw ended during the spray: $(tail -n 2 "$OUT/spray-client.log" | tr '\n' ' ')"
	[ "$tx1" -gt "$tx0" ]
	check_err $? "ib_write_bw's QP $wq sent nothing during the spray"
	rdma -j res show qp link "$RT_RXE0/1" lqpn "$wq" | jq -e '.[0].state == "RTS"' > /dev/null
	check_err $? "ib_write_bw's QP $wq is not in RTS after the spray: $(rdma res show qp link "$RT_RXE0/1" lqpn "$wq")"
	rt_qp dump --dev "$RT_RXE0" |
		jq -e --argjson wq "$wq" '(any(.[]; .qpn == $wq)) and
			([.[] | select((.rp_cuts // 0) > 0 or (.rp_cnps // 0) > 0 or
			(.rx_cnp_pkts // 0) > 0 or (.rp_paced // 0) != 0)] | length == 0)' > /dev/null
	check_err $? "a QP of $RT_RXE0 counted or acted on a forged CNP (or ib_write_bw's QP $wq has no entry): $(rt_qp dump --dev "$RT_RXE0" | jq -c '[.[] | {qpn, rp_cuts, rp_cnps, rx_cnp_pkts}]')"
	kill "$cpid" "$spid" 2> /dev/null
	wait "$cpid" "$spid" 2> /dev/null
	forge_cap_stop spray
	check_err $? "the capture dropped packets"
	pkts=$(cat "$OUT"/spray-forge-*.log | awk '/^sent/ { n += $2 } END { print n + 0 }')
	arrived=$(cap_count spray "udp src port $FORGE_SPORT and dst host $RT_IP0")
	echo "# $pkts forged CNPs sent, $arrived arrived; dropped or unattributed: $((after - before))"
	[ "$arrived" -gt 0 ] && [ $((after - before)) = "$arrived" ]
	check_err $? "$((after - before)) of $arrived forged CNPs dropped or unattributed"
	# A genuine CNP from the peer still cuts: ib_write_bw's QP is gone,
	# so to the rxe0 QP of an idle connected RC pair.
	qpair_start rc 1
	check_err $? "cannot start an RC QP pair"
	read -r q _ <<< "${QPAIR_LINES[1]}"
	rt_qp inject --src "$RT_IP1" --dst "$RT_IP0" --qpn "$q" --count 1 --opcode 0x81
	wait_for 10 test "$(qp_field "$RT_RXE0" "$q" rp_cuts)" = 1
	check_err $? "a genuine CNP from the peer did not cut QP $q: $(qp_field "$RT_RXE0" "$q" rp_cuts) cuts"
	qpair_stop
	log_test "forged CNPs (bare, bad ICRC, bad P_Key, foreign source, QP 1, UD) cut nothing; a genuine one cuts"
}

# ce_junk_no_cnp: with the NP on at rxe1, CE-marked packets that rxe would
# drop, or that do not come from the QP's peer, make no CNP on the wire; a
# spray of CE-marked packets for unknown QPs leaves no pending entry and
# the device recovers from degraded mode by itself; a CE mark from the
# peer is still answered, with one CNP to the peer.
ce_junk_no_cnp() {
	local a b cnps sent0 sent1 pend deg fpid

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	qpair_start rc 1
	check_err $? "cannot start an RC QP pair (rt_qpair)"
	read -r a b <<< "${QPAIR_LINES[0]}"
	"$RT_CLI" qp set dev "$RT_RXE1" np on np-min-cnp-gap-us 0
	check_err $? "np on failed"
	sent0=$(qp_stat "$RT_RXE1" qp_np_cnp_sent)
	forge_cap_start junk "$RT_NETDEV1"
	check_err $? "cannot start the capture"
	forge --src "$FOREIGN_IP" --dst "$RT_IP1" --qpn "$b" --ecn 3 --count 50 &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --ecn 3 --kind icrc --count 50 &&
		forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --ecn 3 --kind pkey --count 50
	check_err $? "rt_forge.py failed"
	# Valid CE-marked packets from the peer's address for 20000 QP
	# numbers that no QP has, at once: far more than the 32 pending
	# entries that the verification settles every 10 ms.
	# QP_DEGRADED is watched while they come.
	forge --src "$RT_IP0" --dst "$RT_IP1" --qpn 100000-119999 --ecn 3 \
		> "$OUT/junk-burst.log" 2>&1 &
	fpid=$!
	deg=0
	while kill -0 "$fpid" 2> /dev/null; do
		[ "$(qp_stat "$RT_RXE1" qp_degraded)" = 1 ] && deg=1
	done
	wait "$fpid"
	check_err $? "rt_forge.py failed: $(cat "$OUT/junk-burst.log")"
	[ "$(qp_stat "$RT_RXE1" qp_degraded)" = 1 ] && deg=1
	echo "# 20000 unknown QP numbers: degraded seen $deg, pending $(qp_stat "$RT_RXE1" qp_pending)"
	[ "$deg" = 1 ]
	check_err $? "20000 unknown QP numbers at once did not exhaust the pending entries"
	wait_for 15 qp_stat_is "$RT_RXE1" qp_degraded 0
	check_err $? "degraded mode did not end by itself: $(qp_stat "$RT_RXE1" qp_degraded)"
	pend=$(qp_stat "$RT_RXE1" qp_pending)
	[ "$pend" = 0 ]
	check_err $? "$pend pending entries left after the junk"
	sleep 1
	forge_cap_stop junk
	check_err $? "the capture dropped packets"
	cnps=$(cap_count junk "udp[8] == 0x81")
	sent1=$(qp_stat "$RT_RXE1" qp_np_cnp_sent)
	echo "# CE-marked junk: $cnps CNPs on the wire, the NP sent $((sent1 - sent0))"
	[ "$cnps" = 0 ] && [ "$sent1" = "$sent0" ]
	check_err $? "CE-marked junk made $cnps CNPs ($((sent1 - sent0)) sent by the NP)"
	# One CE mark from the peer: one CNP, to the peer's address and QP.
	forge_cap_start peer "$RT_NETDEV1"
	check_err $? "cannot start the capture"
	forge --src "$RT_IP0" --dst "$RT_IP1" --qpn "$b" --ecn 3
	check_err $? "rt_forge.py failed"
	forge_cap_stop peer
	cnps=$(cap_count peer "udp[8] == 0x81 and src host $RT_IP1 and dst host $RT_IP0 and udp[13:2] = $((a >> 8)) and udp[15] = $((a & 255))")
	[ "$cnps" = 1 ]
	check_err $? "a CE mark from the peer made $cnps CNPs to $RT_IP0 QP $a: $(tcpdump -nr "$CAP/peer.pcap" 2> /dev/null | tr '\n' ' ')"
	qpair_stop
	log_test "CE-marked junk makes no CNP, pending entries drain, degraded mode ends by itself; the peer's CE mark gets one CNP"
}

# pp_qpn DEV PID: "LOCAL REMOTE", the QP numbers of process PID's RC QP
# on DEV once it is connected (rdma's view: the client's output is
# buffered until it exits).
pp_qpn() {
	rdma -j res show qp link "$1" |
		jq -e -r ".[] | select(.pid == $2 and .state == \"RTS\" and .rqpn != null) |
			\"\\(.lqpn) \\(.rqpn)\"" | head -n 1 | grep .
}

# pp_new_qpn DEV PID: the QP number of process PID's only QP on DEV, one
# that is not connected yet (RESET or INIT); fails, saying what rdma
# lists, unless there is exactly one such QP and no other of PID.
pp_new_qpn() {
	local qps

	qps=$(rdma -j res show qp link "$1" |
		jq -e -c "[.[] | select(.pid == $2 and .lqpn > 1)]") || return 1
	[ "$(jq length <<< "$qps")" != 0 ] || return 1
	if ! jq -e 'length == 1 and (.[0].state == "INIT" or .[0].state == "RESET")' \
		<<< "$qps" > /dev/null; then
		echo "process $2 has not exactly one unconnected QP on $1: rdma lists $qps"
		return 1
	fi
	jq -r '.[0].lqpn' <<< "$qps"
}

# acks_live PCAP QPN T0 T1: "ALL LIVE DURING OFF": in PCAP, the capture on
# the peer's netdev, the ACKs (opcode 0x11) from the peer to QP QPN, those
# of them that left after the first forged ACK to QPN (UDP source port
# FORGE_SPORT), the forged ACKs that left between the first and the last
# of the peer's, and the packets of both kinds stamped outside [T0, T1]
# (seconds of CLOCK_REALTIME).  Both kinds leave by the peer's netdev
# towards the QP's in the order they arrive there, and its tap stamps
# each on CLOCK_REALTIME as it leaves; the QP's netdev is no good for
# this, as on 6.12 the peer's ACKs keep the sender's stamp (another
# clock) there while the forged ones are stamped on arrival.
acks_live() {
	local dq="udp[8] == 0x11 and udp[13:2] = $(($2 >> 8)) and udp[15] = $(($2 & 255))"

	{
		tcpdump -tt -nr "$1" "src host $RT_IP1 and dst host $RT_IP0 and $dq" 2> /dev/null |
			awk '{ print $1, "g" }'
		tcpdump -tt -nr "$1" "udp src port $FORGE_SPORT and dst host $RT_IP0 and $dq" 2> /dev/null |
			awk '{ print $1, "f" }'
	} | sort -n | awk -v t0="$3" -v t1="$4" '
		$1 < t0 || $1 > t1 { off++ }
		$2 == "f" { f++; if (f == 1) seen = 1; if (g) fl++ }
		$2 == "g" { if (seen) live++; g++; during = fl }
		END { print g + 0, live + 0, during + 0, off + 0 }'
}

# spoofed_acks_no_rtt: for the whole life of an ibv_rc_pingpong (every
# request asks for an ACK), an unprivileged user sends ACKs with a valid
# ICRC from an address that is not the QP's peer, at PSNs a quarter of
# the PSN space apart (one of them is always at or after the outstanding
# request's): they end no probe and make no sample.  The traffic waits
# for the forgers: the server is stopped (SIGSTOP) once it listens, so the
# client creates its QP, connects to the server's socket and waits for
# its reply; the forgers get the client's QP number, and only once their
# ACKs arrive does the server go on (SIGCONT).  The forgers run until the
# client has ended, so every round trip was measured while forged ACKs
# came, however slow the host (the capture shows it).  The oracle is the capture: the
# module's window must be the round trips that the genuine ACKs in it
# make (rt_rtt.py, as qp_rtt.sh checks it), and every forged ACK is
# counted on the device as dropped, none on the QP.
spoofed_acks_no_rtt() {
	local spid cpid q0 q1 r0 s1 r1 psn before after arrived fpids=() acks1 all live during
	local off t0 t1
	local d f rtt_caps=() iters=3000

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	t0=$(date +%s.%N)
	before=$(bad_sum "$RT_RXE0")
	check_err $? "no QP stats of $RT_RXE0"
	for d in "$RT_NETDEV0" "$RT_NETDEV1"; do
		tcpdump -i "$d" --time-stamp-precision=nano -s 96 -B 65536 \
			-w "$CAP/ack-$d.pcap" "udp port 4791" > "$OUT/ack-$d.log" 2>&1 &
		rtt_caps+=($!)
		wait_for 60 grep -q "listening on" "$OUT/ack-$d.log"
		check_err $? "cannot start the capture on $d"
	done
	# The forgers start first and wait for the client's QP number.
	rm -f "$FORGE_BASE/ack-qpn"
	for psn in 0 0x400000 0x800000 0xc00000; do
		forge --src "$FOREIGN_IP" --dst "$RT_IP0" --qpn-file "$FORGE_BASE/ack-qpn" \
			--opcode 0x11 --psn "$psn" --count 100000000 --interval-us 4000 \
			> "$OUT/ack-forge-${#fpids[@]}.log" 2>&1 &
		fpids+=($!)
	done
	wait_for 60 forgers_waiting 4 ack-forge-
	check_err $? "the forgers did not start: $(cat "$OUT"/ack-forge-*.log | tr '\n' ' ')"
	ibv_rc_pingpong -d "$RT_RXE1" -g "$G1" -p "$PORT" -s 64 -n "$iters" \
		> "$OUT/ack-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ibv_rc_pingpong server does not listen"
	# Stopped, the server's socket still takes the client's connection
	# (the backlog), the client sends its QP's address and waits.
	kill -STOP "$spid"
	check_err $? "cannot stop the ibv_rc_pingpong server"
	ibv_rc_pingpong -d "$RT_RXE0" -g "$G0" -p "$PORT" -s 64 -n "$iters" \
		"$RT_IP1" > "$OUT/ack-client.log" 2>&1 &
	cpid=$!
	wait_for 30 pp_new_qpn "$RT_RXE0" "$cpid" > /dev/null
	q0=$(pp_new_qpn "$RT_RXE0" "$cpid")
	if ! [[ "$q0" =~ ^[0-9]+$ ]]; then
		check_err 1 "no QP of the client $cpid to aim the forgers at: ${q0:-rdma lists none}"
		kill -CONT "$spid"
		kill "$cpid" "$spid" 2> /dev/null
		pkill -f "$FORGE_DIR/rt_forge.py"
		kill -INT "${rtt_caps[@]}" 2> /dev/null
		wait "$cpid" "$spid" "${fpids[@]}" "${rtt_caps[@]}" 2> /dev/null
		log_test "ACKs from a non-peer end no probe and make no round trip; each is dropped on the device"
		return
	fi
	echo "# the forgers aim at QP $q0, the client's only QP (not connected yet)"
	qpn_publish ack-qpn "$q0"
	check_err $? "cannot hand the forgers the QP number"
	wait_for 30 test "$(bad_sum "$RT_RXE0")" -gt "$before"
	check_err $? "no forged ACK reached $RT_RXE0"
	acks1=$(qp_field "$RT_RXE0" "$q0" rtt_samples)
	check_err $? "no entry of the client's QP $q0"
	kill -CONT "$spid"
	check_err $? "cannot continue the ibv_rc_pingpong server"
	# The QP the forgers aim at is the one connected to the server's.
	wait_for 30 pp_qpn "$RT_RXE0" "$cpid" > /dev/null
	check_err $? "rdma shows no connected QP of the client $cpid"
	read -r q1 r0 < <(pp_qpn "$RT_RXE0" "$cpid")
	wait_for 30 pp_qpn "$RT_RXE1" "$spid" > /dev/null
	check_err $? "rdma shows no connected QP of the server $spid"
	read -r s1 r1 < <(pp_qpn "$RT_RXE1" "$spid")
	[ "$q1" = "$q0" ] && [ "$r1" = "$q0" ] && [ "$s1" = "$r0" ]
	check_err $? "the forgers aim at QP $q0, but the client's connected QP is ${q1:-none} (remote ${r0:-none}) and the server's ${s1:-none} (remote ${r1:-none}): $(rdma res show qp link "$RT_RXE0"; rdma res show qp link "$RT_RXE1")"
	if ! wait_for 100 rt_exited "$cpid"; then
		check_err 1 "ibv_rc_pingpong has not ended in 100 s: QP $q0 $(qp_field "$RT_RXE0" "$q0" rtt_samples) round trips; $(rdma res show qp link "$RT_RXE0/1" lqpn "$q0")"
		kill "$cpid" "$spid" 2> /dev/null
	fi
	wait "$cpid"
	check_err $? "the client failed: $(tail -n 1 "$OUT/ack-client.log")"
	wait "$spid"
	check_err $? "the server failed: $(tail -n 1 "$OUT/ack-server.log")"
	for f in "${fpids[@]}"; do
		kill -0 "$f" 2> /dev/null
		check_err $? "a forger ended before the client did: $(cat "$OUT"/ack-forge-*.log | tr '\n' ' ')"
	done
	# Each forger is a subshell of forge() and its Python: stop the Python.
	pkill -f "$FORGE_DIR/rt_forge.py"
	wait "${fpids[@]}" 2> /dev/null
	echo "# QP $q0: $iters round trips, $acks1 of them measured before forged ACKs came"
	[ "$acks1" = 0 ]
	check_err $? "$acks1 round trips before the server went on: the traffic did not wait for the forged ACKs"
	sleep 2.5
	kill -INT "${rtt_caps[@]}" 2> /dev/null
	wait "${rtt_caps[@]}" 2> /dev/null
	t1=$(date +%s.%N)
	for d in "$RT_NETDEV0" "$RT_NETDEV1"; do
		grep -q '^0 packets dropped by kernel' "$OUT/ack-$d.log"
		check_err $? "the capture on $d dropped packets"
	done
	"$RT_CLI" -j qp show > "$OUT/ack-dump.json"
	check_err $? "qp show failed"
	python3 "$RT_SELFTESTS/rt_rtt.py" check --pcap "$CAP/ack-$RT_NETDEV0.pcap" \
		--peer-pcap "$CAP/ack-$RT_NETDEV1.pcap" --ip "$RT_IP0" \
		--peer "$RT_IP1" --dev "$RT_RXE0" --qpn "$q0" --rqpn "$r0" \
		--dump "$OUT/ack-dump.json"
	check_err $? "QP $q0's round trips are not the genuine ACKs' (forged ACKs made samples)"
	after=$(bad_sum "$RT_RXE0")
	arrived=$(tcpdump -nr "$CAP/ack-$RT_NETDEV0.pcap" \
		"udp src port $FORGE_SPORT and dst host $RT_IP0" 2> /dev/null | wc -l)
	# The capture: the client's round trips (the peer's ACKs to it) after
	# the first forged ACK, and the forged ACKs between its first and last.
	read -r all live during off < <(acks_live "$CAP/ack-$RT_NETDEV1.pcap" "$q0" "$t0" "$t1")
	echo "# capture on $RT_NETDEV1: $live of QP $q0's $all ACKs from its peer left after the first forged ACK to it; $during forged ACKs left between its first and last"
	[ "${off:-1}" = 0 ]
	check_err $? "${off:-all} packets of the capture on $RT_NETDEV1 are stamped outside the test's time on CLOCK_REALTIME: their order cannot be read"
	[ "${all:-0}" -ge 128 ] && [ "$live" = "$all" ] && [ "${during:-0}" -ge 128 ]
	check_err $? "${live:-0} of ${all:-0} ACKs from the peer to QP $q0 after the first forged ACK to it, ${during:-0} forged ACKs among them (all, at least 128 each)"
	echo "# $arrived forged ACKs arrived at $RT_NETDEV0; dropped or unattributed: $((after - before))"
	[ "$arrived" -gt "$iters" ] && [ $((after - before)) = "$arrived" ]
	check_err $? "$((after - before)) of $arrived forged ACKs dropped or unattributed (fewer than one per round trip is too few)"
	log_test "ACKs from a non-peer end no probe and make no round trip; each is dropped on the device"
}

setup_forged() {
	ip addr add "$FOREIGN_IP/32" dev "$RT_NETDEV0" || return 1
	[ -x "$QPAIR" ] || { echo "# $QPAIR is not built (make -C selftests helpers)"; return 1; }
	FORGE_BASE=$(rt_unpriv_tree selftests/rt_forge.py) || return 1
	FORGE_DIR=$FORGE_BASE/selftests
}

rt_require_root
rt_require_cmd python3 tcpdump tshark jq setpriv rdma ib_write_bw ibv_rc_pingpong
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
setup || rt_setup_failed "cannot set up the rxe wire and the capture mirror"
setup_forged || rt_setup_failed "cannot set up the forging user, address or rt_qpair"
mkdir -p "$CAP"
rt_run_tests
