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
