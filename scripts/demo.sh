#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh - the main job of rocetune, end to end, narrated.  Runs inside
# the test VM ("make demo" boots it): loads rocetune.ko, brings up a
# Soft-RoCE wire, runs real RDMA traffic and shows what rocetune sees.
# Exits non-zero as soon as a step does not do what it says.

source "$(dirname "$0")/../selftests/lib.sh"

n=0
say() {
	n=$((n + 1))
	printf '\n[%d] %s\n' "$n" "$*"
}

ok() {
	echo "    ok: $*"
}

die() {
	echo "    FAILED: $*"
	exit 1
}

cleanup() {
	[ -z "${mon:-}" ] || kill "$mon" 2> /dev/null
	tc qdisc del dev "$RT_NETDEV0" root 2> /dev/null
	[ ! -d /sys/module/rocetune_sim ] || rmmod rocetune_sim
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}
trap cleanup EXIT

echo "rocetune demo on $(uname -r): no RDMA hardware here, so Soft-RoCE (rxe)"
echo "runs over a veth pair, and every packet is real RoCEv2 on that wire."

say "Load rocetune.ko; it registers with the RDMA core as a client."
rt_kmod_load || die "cannot load rocetune.ko"
dmesg -t | grep '^rocetune: ' | sed 's/^/    /'
dmesg_has '^rocetune: version .* loaded' || die "no load message"
ok "rocetune $(cat /sys/module/rocetune/version) is loaded"

say "Bring up the wire: veth va <-> vb, and Soft-RoCE devices rxe0 on va, rxe1 on vb."
rt_wire_up || die "cannot set up the Soft-RoCE wire"
rdma link show | sed 's/^/    /'
ok "two RoCE devices with active ports"

say "rocetune's RDMA client saw both devices appear."
wait_for 5 dmesg_has "^rocetune: $RT_RXE1: tracking" || die "rocetune did not see $RT_RXE1"
dmesg -t | grep -E '^rocetune: rxe[01]: ' | sed 's/^/    /'
ok "rxe0 and rxe1 are tracked"

say "Run real RDMA traffic: 500 RC ping-pongs of 4 KiB from rxe0 to rxe1."
before=$(rdma -j statistic show link "$RT_RXE0/1" | jq '.[0].sent_pkts')
g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
ibv_rc_pingpong -d "$RT_RXE1" -g "$g1" -n 500 -s 4096 > /tmp/demo_srv.log 2>&1 &
srv=$!
wait_for 10 rt_port_listening 18515 || die "ping-pong server did not start"
timeout 120 ibv_rc_pingpong -d "$RT_RXE0" -g "$g0" -n 500 -s 4096 "$RT_IP1" \
	> /tmp/demo_cli.log 2>&1 || die "ping-pong failed: $(tail -n 1 /tmp/demo_cli.log)"
wait "$srv" || die "ping-pong server failed"
sed 's/^/    /' /tmp/demo_cli.log
after=$(rdma -j statistic show link "$RT_RXE0/1" | jq '.[0].sent_pkts')
[ $((after - before)) -ge 500 ] || die "rxe0 sent only $((after - before)) packets"
ok "rxe0 sent $((after - before)) RoCEv2 packets (rxe's own counter)"

RT=$RT_TOP/build/userspace/rocetune
MON=/tmp/demo_monitor.json
PERF_PORT=18600

say "What rocetune sees, through its CLI: devices and ports (rocetune dev show; port show)."
"$RT" dev show | sed 's/^/    /' || die "rocetune dev show failed"
"$RT" port show "$RT_RXE0/1" | sed 's/^/    /' || die "rocetune port show failed"
tx=$("$RT" -j port show "$RT_RXE0/1" | jq '.[0].counters.tx_pkts')
[ "$tx" -ge 500 ] 2> /dev/null || die "rocetune reports tx_pkts=$tx for rxe0"
ok "rocetune's tx_pkts for rxe0/1 is $tx, the same counter rdma statistic calls sent_pkts"

say "Subscribe to rocetune's events in the background (rocetune -j monitor)."
"$RT" -j monitor > "$MON" 2> "$MON.err" &
mon=$!
sleep 1
ok "monitor running (pid $mon)"

say "ECN-marked RoCE traffic: ib_write_bw with 2 QPs, --tclass=106 (DSCP 26 + ECT(0));"
echo "    netem on va marks about 30% of rxe0's packets CE on their way to rxe1."
tc qdisc add dev "$RT_NETDEV0" root netem loss 30% ecn || die "cannot add netem"
ib_write_bw -F -d "$RT_RXE1" -x "$g1" -p "$PERF_PORT" -q 2 -s 4096 -D 8 \
	--tclass=106 > /tmp/demo_bw_srv.log 2>&1 &
bw_srv=$!
wait_for 10 rt_port_listening "$PERF_PORT" || die "ib_write_bw server did not start"
ib_write_bw -F -d "$RT_RXE0" -x "$g0" -p "$PERF_PORT" -q 2 -s 4096 -D 8 \
	--tclass=106 "$RT_IP1" > /tmp/demo_bw_cli.log 2>&1 &
bw_cli=$!
top_marked() {
	"$RT" -j qp show top 1 by rx_ecn_ce_pkts |
		jq -e '.[0].rx_ecn_ce_pkts > 100' > /dev/null
}
wait_for 30 top_marked || die "no QP has CE marks: $("$RT" qp show 2>&1 | head -n 3)"
echo "    rocetune qp show top 5 by rx_ecn_ce_pkts:"
"$RT" qp show top 5 by rx_ecn_ce_pkts | sed 's/^/    /'
top=$("$RT" -j qp show top 1 by rx_ecn_ce_pkts)
qpn=$(jq -r '.[0].qpn' <<< "$top")
dev=$(jq -r '.[0].dev' <<< "$top")
comm=$(jq -r '.[0].comm // "?"' <<< "$top")
pid=$(jq -r '.[0].pid // "?"' <<< "$top")
ce=$(jq -r '.[0].rx_ecn_ce_pkts' <<< "$top")
[ "$comm" = ib_write_bw ] || die "the most-marked QP's owner is '$comm', not ib_write_bw"
ok "most ECN-marked QP: $dev QP $qpn, $ce CE-marked packets, owned by $comm (pid $pid)"
wait "$bw_cli" || die "ib_write_bw client failed: $(tail -n 1 /tmp/demo_bw_cli.log)"
wait "$bw_srv" || die "ib_write_bw server failed: $(tail -n 1 /tmp/demo_bw_srv.log)"
tc qdisc del dev "$RT_NETDEV0" root
grep -E '^ *[0-9]+ +[0-9]+' /tmp/demo_bw_cli.log | tail -n 1 | sed 's/^/    ib_write_bw: /'

say "A simulated DCB-capable NIC (rocetune_sim, mlx5 personality): PFC on priority 3."
rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko || die "cannot load rocetune_sim"
echo "7 mlx5" > /sys/bus/rocetune_sim/new_device || die "cannot create a simulated NIC"
wait_for 10 test -e /sys/class/infiniband/rsim_ib7 || die "no rsim_ib7"
ip link set rsim7 up
pfc3() {
	dcb -j pfc show dev rsim7 | jq -r '.prio_pfc[3]'
}
[ "$(pfc3)" = false ] || die "PFC on priority 3 of the new NIC is '$(pfc3)', not off"
# dcb of iproute2 6.1 can say "Attribute write: Protocol error" and exit 1
# after a set it did, or exit 0 after one the kernel refused (rt_dcb in
# selftests/lib.sh): the set is what dcb pfc show reads back.
dcb_said=$(rt_dcb pfc set dev rsim7 prio-pfc 3:on) || die "dcb pfc set failed: $dcb_said"
[ "$(pfc3)" = true ] ||
	die "dcb pfc set dev rsim7 prio-pfc 3:on did not enable PFC on priority 3 (dcb pfc show: '$(pfc3)')"
[ -z "$dcb_said" ] ||
	echo "    ${dcb_said#"# "}: iproute2 6.1's spurious error; dcb pfc show reads PFC on"
"$RT" config set dev rsim_ib7 interval-ms 100 storm-ms 300 || die "config set failed"
dbg=/sys/kernel/debug/rocetune_sim/7
echo 1200 > "$dbg/counters/tx_prio3_pause"
ok "PFC enabled on priority 3 with dcb (read back); interval 100 ms, storm after 300 ms of pause"

say "Inject a pause storm: priority 3 receives 1000 pause frames/s for 1.5 s."
echo "3 1000 1500" > "$dbg/pfc_storm" || die "cannot inject a storm"
storm_over() {
	jq -e -s 'map(select(.event == "storm_end" and .dev == "rsim_ib7")) | length >= 1' \
		"$MON" > /dev/null
}
wait_for 10 storm_over || die "no storm_end event"
"$RT" port show rsim_ib7 | sed 's/^/    /'
echo "    events from rocetune monitor:"
jq -c 'select(.dev == "rsim_ib7" and (.event | startswith("storm")))' "$MON" | sed 's/^/    /'
starts=$(jq -s 'map(select(.event == "storm_start" and .dev == "rsim_ib7" and .prio == 3)) | length' "$MON")
ends=$(jq -s 'map(select(.event == "storm_end" and .dev == "rsim_ib7" and .prio == 3)) | length' "$MON")
if [ "$starts" != 1 ] || [ "$ends" != 1 ]; then
	die "expected one storm start and one end, saw $starts and $ends"
fi
rx=$("$RT" -j port show rsim_ib7 | jq '.[0].pfc.prio[] | select(.prio == 3) | .rx_pause')
[ "$rx" = 1500 ] || die "rx_pause on priority 3 is $rx, not 1500"
ok "one storm_start and one storm_end on priority 3; 1500 pause frames counted"
echo 7 > /sys/bus/rocetune_sim/del_device
rmmod rocetune_sim
kill "$mon" 2> /dev/null

say "Delete rxe1 and add it back: rocetune follows hotplug."
rdma link del "$RT_RXE1" || die "cannot delete rxe1"
wait_for 5 dmesg_has "^rocetune: $RT_RXE1: removed" || die "rocetune missed the removal"
rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1" || die "cannot re-add rxe1"
wait_for 5 test "$(dmesg -t | grep -c "^rocetune: $RT_RXE1: tracking")" -ge 2 ||
	die "rocetune missed the re-add"
ok "removal and re-add of rxe1 seen"

say "Unload rocetune.ko: the client lets go of every device."
rt_kmod_unload || die "rmmod failed"
dmesg_has '^rocetune: unloaded' || die "no unload message"
ok "unloaded cleanly"

printf '\nDemo complete: every step did what it said.\n'
