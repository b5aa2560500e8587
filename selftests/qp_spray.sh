#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Remote peers must not make the module allocate memory.  A spray of
# RoCEv2 packets with random QP numbers, sent to UDP port 4791 of rxe1's
# address from the other end of the wire as any host of the network could,
# must leave the QP table as it was, use at most the device's fixed pending
# entries and be counted as unattributed; real QPs must still be counted
# exactly while it goes on; and packets that only pass by (for an address
# that is not the host's) must not be counted at all.

ALL_TESTS="spray_bounded spray_real_qps_exact foreign_not_counted"

source "$(dirname "$0")/qp_lib.sh"

SPRAY_N=${SPRAY_N:-10000}
# The spray's UDP source port: the captures of real traffic leave it out.
SPRAY_SPORT=4790
# Pending entries per device (RT_QP_PEND_MAX).
PEND_MAX=32
# Slab growth allowed while 10000 numbers are sprayed: one table entry
# each would take more than 5 MB.
SLAB_SLACK_KB=2048
FOREIGN_IP=10.0.0.3

# spray N [DST [PPS]]: N packets (0: until killed) to UDP port 4791 of DST
# (default rxe1's address), at most PPS a second (default: at once), half of them RC SEND_ONLY to a random QP number, half UD
# SEND_ONLY with random destination and DETH source QP numbers.  They leave
# through rxe0's netdev from a process's socket: not rxe0's packets, not
# counted as sent by it (rxe sends from kernel sockets).  Valid RoCE
# (rt_forge.py: P_Key, length and ICRC right), so that they reach the
# pending entries as packets of a real peer would; rxe drops them as for
# no QP.  Run in the background with SPRAY_EXEC=exec, the python process
# is the job itself.
spray() {
	${SPRAY_EXEC:-} python3 - "$RT_IP0" "${2:-$RT_IP1}" "$1" "$SPRAY_SPORT" \
		"${3:-0}" "$RT_SELFTESTS" <<'EOF'
import random
import socket
import sys
import time

src, dst, n, sport, pps = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
sys.path.insert(0, sys.argv[6])
import rt_forge  # noqa: E402

rnd = random.Random(4791)
start = time.monotonic()
so = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
so.setsockopt(socket.IPPROTO_IP, rt_forge.IP_MTU_DISCOVER,
              rt_forge.IP_PMTUDISC_DO)
so.bind((src, sport))
i = 0
while n == 0 or i < n:
    i += 1
    dqpn = rnd.randrange(0x1000, 1 << 24)
    if i % 2:
        pkt = rt_forge.datagram(src, dst, sport, rt_forge.OP_RC_SEND_ONLY,
                                dqpn, "valid")
    else:
        pkt = rt_forge.datagram(src, dst, sport, rt_forge.OP_UD_SEND_ONLY,
                                dqpn, "valid",
                                sqpn=rnd.randrange(0x1000, 1 << 24))
    so.sendto(pkt, (dst, 4791))
    if pps and i % 10 == 0:
        time.sleep(max(0, start + i / pps - time.monotonic()))
EOF
}

slab_kb() {
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

# link_stat DEV PATH: a stats64 field of a netdev (rx.packets, tx.dropped).
link_stat() {
	ip -s -j link show "$1" | jq ".[0].stats64.$2"
}

# stats_max FIELD: FIELD of QP_STATS_GET, the maximum over the devices.
stats_max() {
	rt_qp stats | jq "[.[].$1 // 0] | max"
}

pending_zero() {
	[ "$(stats_max qp_pending)" = 0 ]
}

spray_bounded() {
	local t0 urx0 utx0 drop0 slab0 spid s t p slab urx utx drop
	local peak_t=0 peak_p=0 peak_slab=0 n=$SPRAY_N

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	t0=$(stats_max qp_table_count)
	urx0=$(qp_stat "$RT_RXE1" qp_unattr_rx)
	utx0=$(qp_stat "$RT_RXE0" qp_unattr_tx)
	drop0=$(link_stat "$RT_NETDEV0" tx.dropped)
	slab0=$(slab_kb)
	SPRAY_EXEC="exec" spray "$n" &
	spid=$!
	while kill -0 "$spid" 2> /dev/null; do
		s=$(rt_qp stats)
		t=$(jq '[.[].qp_table_count] | max' <<< "$s")
		p=$(jq '[.[].qp_pending // 0] | max' <<< "$s")
		slab=$(slab_kb)
		[ "$t" -gt "$peak_t" ] && peak_t=$t
		[ "$p" -gt "$peak_p" ] && peak_p=$p
		[ "$slab" -gt "$peak_slab" ] && peak_slab=$slab
		sleep 1
	done
	wait "$spid"
	check_err $? "the spray failed"
	wait_for 10 pending_zero
	check_err $? "pending QP numbers left 10 s after the spray: $(stats_max qp_pending)"
	t=$(stats_max qp_table_count)
	urx=$(($(qp_stat "$RT_RXE1" qp_unattr_rx) - urx0))
	utx=$(($(qp_stat "$RT_RXE0" qp_unattr_tx) - utx0))
	drop=$(($(link_stat "$RT_NETDEV0" tx.dropped) - drop0))
	echo "# $n packets for random QP numbers: table entries $t0, at most $peak_t during the spray, $t after;" \
		"pending at most $peak_p; slab at most +$((peak_slab - slab0)) kB;" \
		"unattributed: $urx received (veth dropped $drop), $utx sent"
	[ "$peak_t" = "$t0" ] && [ "$t" = "$t0" ]
	check_err $? "the table grew: $t0 entries, $peak_t during the spray, $t after"
	[ "$peak_p" -le "$PEND_MAX" ]
	check_err $? "$peak_p pending QP numbers, more than $PEND_MAX"
	[ $((peak_slab - slab0)) -lt "$SLAB_SLACK_KB" ]
	check_err $? "slab grew by $((peak_slab - slab0)) kB during the spray"
	[ "$utx" = 0 ]
	check_err $? "$utx of $n packets that a process sent were counted as sent by $RT_RXE0"
	[ "$urx" = $((n - drop)) ]
	check_err $? "$urx of $((n - drop)) sprayed packets that arrived counted as received unattributed by $RT_RXE1"
	log_test "a spray of $n random QP numbers allocates nothing: counted as unattributed"
}

# spray_start: an endless spray in the background (SPRAY_PID), slow
# enough that the emulated guest keeps CPU for the rest; returns once the
# module sees it (its packets are counted as unattributed: the pending
# entries they take are settled within milliseconds).
SPRAY_PID=
SPRAY_URX0=
spray_start() {
	SPRAY_URX0=$(qp_stat "$RT_RXE1" qp_unattr_rx) || return 1
	SPRAY_EXEC="exec" spray 0 "$RT_IP1" 200 &
	SPRAY_PID=$!
	wait_for 20 spray_seen
}

spray_seen() {
	[ "$(qp_stat "$RT_RXE1" qp_unattr_rx)" -gt "$SPRAY_URX0" ]
}

spray_real_qps_exact() {
	local rc

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	# The captures leave the spray out; it starts after them.
	CAP_FILTER="udp port 4791 and not udp src port $SPRAY_SPORT"
	PAIR_START=spray_start
	run_pair spray \
		"ibv_rc_pingpong -d $RT_RXE1 -g $G1 -p $PORT -n 50 -s 64" \
		"ibv_rc_pingpong -d $RT_RXE0 -g $G0 -p $PORT -n 50 -s 64 $RT_IP1"
	rc=$?
	PAIR_START=
	CAP_FILTER="udp port 4791"
	[ -n "$SPRAY_PID" ] && kill "$SPRAY_PID"
	check_err $? "the spray ended before the real traffic did"
	wait "$SPRAY_PID"
	SPRAY_PID=
	[ "$rc" = 0 ]
	check_err $? "ibv_rc_pingpong failed during the spray"
	compare spray
	check_err $? "per-QP counters differ from the capture during the spray"
	log_test "ibv_rc_pingpong during a spray: every QP counter equals the capture"
}

foreign_not_counted() {
	local rx0 urx0 t0 rx urx t n=200

	RET=0
	# A host route to an address of nobody through the wire: rxe1's
	# netdev receives the packets and the host drops them, as it does
	# not forward.
	ip route add "$FOREIGN_IP/32" dev "$RT_NETDEV0" src "$RT_IP0" table 100 &&
		ip neigh replace "$FOREIGN_IP" dev "$RT_NETDEV0" nud permanent \
			lladdr "$(cat "/sys/class/net/$RT_NETDEV1/address")"
	check_err $? "cannot route $FOREIGN_IP through the wire"
	rx0=$(link_stat "$RT_NETDEV1" rx.packets)
	urx0=$(qp_stat "$RT_RXE1" qp_unattr_rx)
	t0=$(stats_max qp_table_count)
	spray "$n" "$FOREIGN_IP"
	check_err $? "the spray failed"
	sleep 1
	rx=$(($(link_stat "$RT_NETDEV1" rx.packets) - rx0))
	urx=$(($(qp_stat "$RT_RXE1" qp_unattr_rx) - urx0))
	t=$(stats_max qp_table_count)
	echo "# $n packets for $FOREIGN_IP: $rx arrived on $RT_NETDEV1, $urx counted, pending $(stats_max qp_pending), table $t0 -> $t"
	[ "$rx" -ge "$n" ]
	check_err $? "only $rx of $n packets arrived on $RT_NETDEV1"
	[ "$urx" = 0 ] && pending_zero && [ "$t" = "$t0" ]
	check_err $? "packets for another host were counted"
	ip neigh del "$FOREIGN_IP" dev "$RT_NETDEV0"
	ip route del "$FOREIGN_IP/32" table 100
	log_test "packets for another address that reach $RT_NETDEV1 are not counted"
}

qp_test_cleanup() {
	[ -z "$SPRAY_PID" ] || kill "$SPRAY_PID" 2> /dev/null
}

qp_main
