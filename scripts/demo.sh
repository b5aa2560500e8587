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
	[ -z "${agent:-}" ] || kill "$agent" 2> /dev/null
	[ -z "${cap:-}" ] || kill "$cap" 2> /dev/null
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
echo "    rdma statistic show link $RT_RXE0/1: sent_pkts $before before the ping-pong, $after after"
echo "    (each 4 KiB message is several MTU-sized packets, and the ACKs count too)"
[ $((after - before)) -ge 500 ] || die "rxe0 sent only $((after - before)) packets"
ok "rxe0 sent $((after - before)) RoCEv2 packets (rxe's own counter)"

RT=$RT_TOP/build/userspace/rocetune
MON=/tmp/demo_monitor.json
PERF_PORT=18600

say "What rocetune sees, through its CLI: devices and ports (rocetune dev show; port show)."
"$RT" dev show | sed 's/^/    /' || die "rocetune dev show failed"
"$RT" port show "$RT_RXE0/1" > /tmp/demo_port.txt || die "rocetune port show failed"
sed 's/^/    /' /tmp/demo_port.txt
ivl=$("$RT" -j config show dev "$RT_RXE0" | jq -r 'if type == "array" then .[0] else . end | .interval_ms')
[ "$ivl" -gt 0 ] 2> /dev/null || die "rocetune config show gives interval_ms '$ivl'"
echo "    counters: packets since rxe0 appeared; rates: packets/s over the module's last"
echo "    sample ($ivl ms), 0 here because the ping-pong ended before this read."
echo "    duplicate-requests: packets rxe0 received twice, resent by rxe1 when an ACK"
echo "    came late (this VM's CPU is emulated, so a few are normal)."
# The text above is the figure checked: no second read.
tx=$(awk '$1 == "tx-pkts" { print $2; exit }' /tmp/demo_port.txt)
[ "$tx" -ge 500 ] 2> /dev/null || die "rocetune reports tx-pkts=$tx for rxe0"
ok "rocetune's tx-pkts for rxe0/1 is $tx packets, the same counter rdma statistic calls sent_pkts ($after)"

say "Subscribe to rocetune's events in the background (rocetune -j monitor)."
"$RT" -j monitor > "$MON" 2> "$MON.err" &
mon=$!
echo "    \$ rocetune -j monitor > $MON &   # pid $mon"
sleep 1
kill -0 "$mon" 2> /dev/null || die "rocetune monitor exited: $(cat "$MON.err")"
ok "monitor running (pid $mon)"

say "Tune with a profile: DCQCN on both Soft-RoCE NICs (rocetune profile check, diff, apply)."
export ROCETUNE_PROFILE_DIR=/tmp/demo_profiles
PROF=$ROCETUNE_PROFILE_DIR/50-soft-roce.conf
rm -rf "$ROCETUNE_PROFILE_DIR"
mkdir -m 755 "$ROCETUNE_PROFILE_DIR" || die "cannot create $ROCETUNE_PROFILE_DIR"
cat > "$PROF" << EOF
[Match]
Name=$RT_NETDEV0 $RT_NETDEV1

[DCQCN]
Enable=yes
MinRateMbps=40
AIRateMbps=9

[Agent]
PollIntervalSec=1
EOF
echo "    $PROF:"
sed 's/^/      /' "$PROF"
echo "    rxe has no congestion control of its own: on rxe, [DCQCN] drives rocetune.ko's"
echo "    notification point (CNPs for CE-marked packets) and reaction point (rate cuts)."
echo "    \$ rocetune profile check"
out=$("$RT" profile check 2>&1) || die "profile check failed: $out"
printf '%s\n' "$out" | sed 's/^/    /'
[ "$out" = "1 profile OK" ] || die "profile check said '$out', not '1 profile OK'"
echo "    \$ rocetune profile diff"
out=$("$RT" profile diff 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
echo "    (exit status $rc: 1 means the NICs differ from their profile, as diff(1))"
[ "$rc" = 1 ] || die "profile diff exited $rc before the apply, not 1 (differs)"
grep -q 'Enable' <<< "$out" || die "profile diff shows no DCQCN difference before the apply"
echo "    \$ rocetune profile apply"
out=$("$RT" profile apply 2>&1) || die "profile apply failed: $out"
printf '%s\n' "$out" | sed 's/^/    /'
napplied=$(grep -c ' applied ([1-9][0-9]* writes' <<< "$out")
[ "$napplied" = 2 ] || die "profile apply wrote to $napplied NICs, not 2 (va and vb)"
echo "    \$ rocetune profile apply   # again: everything is already as the profile says"
out=$("$RT" profile apply 2>&1) || die "profile re-apply failed: $out"
printf '%s\n' "$out" | sed 's/^/    /'
nsame=$(grep -c ' unchanged (0 writes' <<< "$out")
[ "$nsame" = 2 ] || die "the re-apply left $nsame NICs unchanged with 0 writes, not 2"
state=$("$RT" -j qp stats)
for d in "$RT_RXE0" "$RT_RXE1"; do
	jq -e --arg d "$d" '.[] | select(.dev == $d) | .np == true and .rp == true and
		.rp_min_rate_mbps == 40 and .rp_ai_rate_mbps == 9' <<< "$state" > /dev/null ||
		die "$d's DCQCN is not as the profile says: $(jq -c --arg d "$d" '.[] | select(.dev == $d)' <<< "$state")"
done
jq -r '.[] | "    \(.dev): np \(.np) rp \(.rp), rp_min_rate \(.rp_min_rate_mbps) Mb/s, rp_ai_rate \(.rp_ai_rate_mbps) Mb/s"' <<< "$state"
ok "applied to 2 NICs, re-applied with 0 writes; rocetune qp stats reads NP and RP on, 40 and 9 Mb/s"

say "The agent rocetuned keeps the profile: change a setting behind its back."
AGLOG=/tmp/demo_rocetuned.log
# selftests/demo/check.sh runs the demo once with an agent that only
# alerts on storms (selftests/demo/rocetuned), to see step 12 fail.
ROCETUNED=${RT_DEMO_ROCETUNED:-$RT_TOP/build/userspace/rocetuned}
"$ROCETUNED" --foreground 2> "$AGLOG" &
agent=$!
wait_for 30 grep -q "$RT_NETDEV0: profile 50-soft-roce.conf (start): already in force, 0 writes" "$AGLOG" ||
	die "the agent did not take $RT_NETDEV0: $(tail -n 3 "$AGLOG")"
echo "    \$ rocetune qp set dev $RT_RXE0 rp-ai-rate-mbps 3   # by hand, not in the profile"
"$RT" qp set dev "$RT_RXE0" rp-ai-rate-mbps 3 || die "qp set failed"
ai_is() {
	[ "$("$RT" -j qp stats | jq --arg d "$RT_RXE0" '.[] | select(.dev == $d) | .rp_ai_rate_mbps')" = "$1" ]
}
wait_for 30 grep -q "$RT_NETDEV0: drift (poll): .*AIRateMbps is 3" "$AGLOG" ||
	die "the agent logged no drift: $(tail -n 3 "$AGLOG")"
wait_for 30 ai_is 9 || die "the agent did not restore rp_ai_rate_mbps 9"
ai=$("$RT" -j qp stats | jq --arg d "$RT_RXE0" '.[] | select(.dev == $d) | .rp_ai_rate_mbps')
echo "    the agent's log (at start it found both NICs as the profile says: 0 writes;"
echo "    PollIntervalSec=1: it reads rxe's DCQCN every second):"
sed 's/^/    /' "$AGLOG"
echo "    $RT_RXE0 rp_ai_rate now $ai Mb/s"
[ "$ai" = 9 ] || die "rp_ai_rate_mbps is $ai after the restore, not 9"
kill "$agent"
wait "$agent" 2> /dev/null
ok "drift 9 -> 3 Mb/s found by the agent's poll and written back: rp_ai_rate $ai Mb/s"

say "ECN-marked RoCE traffic under DCQCN: ib_write_bw, 2 QPs, --tclass=106 (DSCP 26 + ECT(0)), 8 s;"
echo "    netem on va marks about 30% of rxe0's packets CE on their way to rxe1;"
echo "    rxe1 (notification point) answers with CNPs, rxe0 (reaction point) cuts its rate."
# CNPs are BTH opcode 0x81 (the first byte of the BTH, right after the
# 8-byte UDP header); rxe1 sends them back to rxe0 over vb -> va.
tcpdump -i "$RT_NETDEV0" -nU -w /tmp/demo_cnp.pcap \
	"udp dst port 4791 and src host $RT_IP1 and udp[8] == 0x81" 2> /tmp/demo_tcpdump.log &
cap=$!
wait_for 10 grep -q 'listening on' /tmp/demo_tcpdump.log || die "tcpdump did not start: $(cat /tmp/demo_tcpdump.log)"
tc qdisc add dev "$RT_NETDEV0" root netem loss 30% ecn || die "cannot add netem"
ib_write_bw -F -d "$RT_RXE1" -x "$g1" -p "$PERF_PORT" -q 2 -s 4096 -D 8 \
	--tclass=106 > /tmp/demo_bw_srv.log 2>&1 &
bw_srv=$!
wait_for 10 rt_port_listening "$PERF_PORT" || die "ib_write_bw server did not start"
ib_write_bw -F -d "$RT_RXE0" -x "$g0" -p "$PERF_PORT" -q 2 -s 4096 -D 8 \
	--tclass=106 "$RT_IP1" > /tmp/demo_bw_cli.log 2>&1 &
bw_cli=$!
cut_and_marked() {
	"$RT" -j qp show > /tmp/demo_qps.json &&
		jq -e '(map(.rx_ecn_ce_pkts) | max) > 100 and (map(.rp_cuts // 0) | max) > 0' \
			/tmp/demo_qps.json > /dev/null
}
wait_for 30 cut_and_marked ||
	die "no QP with both CE marks and rate cuts: $(jq -c '.[] | {dev, qpn, rx_ecn_ce_pkts, rp_cuts}' /tmp/demo_qps.json 2>&1 | head -n 4)"
# One read (/tmp/demo_qps.json, by cut_and_marked), shown and checked.
echo "    rocetune -j qp show, while the traffic runs (one read):"
jq -r '.[] | select(.comm == "ib_write_bw") |
	"    \(.dev) QP \(.qpn) (ib_write_bw pid \(.pid)): rx \(.rx_pkts) pkts, \(.rx_ecn_ce_pkts) of them CE-marked; CNPs sent \(.tx_cnp_pkts), received \(.rx_cnp_pkts)" +
	(if .rp_cuts then "\n        reaction point: rate \(.rp_rate_kbps) kb/s (target \(.rp_target_kbps) kb/s), \(.rp_cuts) rate cuts for \(.rp_cnps) CNPs" else "" end) +
	(if .rtt_samples then "\n        round trip: p50 \(.rtt_p50_ns / 1000 | floor) us, p99 \(.rtt_p99_ns / 1000 | floor) us over \(.rtt_samples) samples" else "" end)' \
	/tmp/demo_qps.json
echo "    rx of one QP is tx of its peer: rxe1's QPs receive the data, rxe0's the ACKs."
echo "    rp rate is the reaction point's rate limit, not the measured rate: it starts at"
echo "    the line rate and each CNP cuts it, but here it stays far above what the"
echo "    emulated CPU achieves (ib_write_bw below), so it shows DCQCN reacting, not"
echo "    slowing the flow (selftests/qp_bottleneck.sh makes it bind)."
echo "    round trip: rocetune.ko's time from a packet to its ACK; the p99 well above"
echo "    the p50 is this VM: the emulated CPU and the retransmits of the packets netem"
echo "    drops make the tail."
top=$(jq 'max_by(.rx_ecn_ce_pkts)' /tmp/demo_qps.json)
qpn=$(jq -r '.qpn' <<< "$top")
dev=$(jq -r '.dev' <<< "$top")
comm=$(jq -r '.comm // "?"' <<< "$top")
ce=$(jq -r '.rx_ecn_ce_pkts' <<< "$top")
[ "$comm" = ib_write_bw ] || die "the most-marked QP's owner is '$comm', not ib_write_bw"
cut=$(jq 'max_by(.rp_cuts // 0)' /tmp/demo_qps.json)
cuts=$(jq -r '.rp_cuts' <<< "$cut")
ok "most ECN-marked QP: $dev QP $qpn, $ce CE-marked packets; $(jq -r '.dev' <<< "$cut") QP $(jq -r '.qpn' <<< "$cut") cut its rate $cuts times, to $(jq -r '.rp_rate_kbps' <<< "$cut") kb/s"
wait "$bw_cli" || die "ib_write_bw client failed: $(tail -n 1 /tmp/demo_bw_cli.log)"
wait "$bw_srv" || die "ib_write_bw server failed: $(tail -n 1 /tmp/demo_bw_srv.log)"
tc qdisc del dev "$RT_NETDEV0" root
kill -INT "$cap"
wait "$cap"
echo "    ib_write_bw (rxe0's side, 4096-byte writes for 8 s):"
grep -m 1 '#bytes' /tmp/demo_bw_cli.log | sed 's/^/    /'
bw=$(grep -E '^ *[0-9]+ +[0-9]+' /tmp/demo_bw_cli.log | tail -n 1)
[ -n "$bw" ] || die "no result line in ib_write_bw's output: $(tail -n 2 /tmp/demo_bw_cli.log)"
echo "    $bw"
awk '{ printf "    BW average %s MB/s: about %.0f Mb/s of RDMA writes\n", $4, $4 * 8 }' <<< "$bw"
echo "    BW peak is 0.00: with -D (a run of fixed duration) perftest does not measure it."
echo "    The average is low: every RoCE packet is built by an emulated CPU, and the"
echo "    retransmits cost time."
wire=$(tcpdump -nr /tmp/demo_cnp.pcap 2> /dev/null | wc -l)
stats=$("$RT" -j qp stats)
sent=$(jq --arg d "$RT_RXE1" '.[] | select(.dev == $d) | .np_cnp_sent' <<< "$stats")
echo "    CNPs: $sent sent by rxe1's notification point (rocetune qp stats np_cnp_sent),"
echo "    $wire captured on va by tcpdump (udp[8] == 0x81: BTH opcode CNP, from $RT_IP1)."
echo "    These count the whole 8 s run; the per-QP figures above were read early in it."
jq -r --arg d "$RT_RXE1" '.[] | select(.dev == $d) |
	"    A QP sends fewer CNPs than it receives CE marks: at most one every \(.np_min_cnp_gap_us) us",
	"    (np_min_cnp_gap_us); rxe1 coalesced \(.np_ce_coalesced) marks so."' <<< "$stats"
if [ "$wire" != "$sent" ]; then
	drops=$(grep -m 1 'dropped by kernel' /tmp/demo_tcpdump.log)
	echo "    tcpdump captured $((sent - wire)) CNPs fewer than were sent; tcpdump says: ${drops:-(no drop count)}"
	echo "    (its buffer overflows when the emulated CPU is busy; the capture is a sample)."
fi
[ "$wire" -gt 0 ] 2> /dev/null || die "tcpdump saw no CNP on the wire"
[ "$sent" -gt 0 ] 2> /dev/null || die "rxe1's np_cnp_sent is '$sent'"
ok "$wire CNPs on the wire, $sent counted sent by rxe1; $cuts rate cuts on $(jq -r '.dev' <<< "$cut")"

say "A simulated DCB-capable NIC (rocetune_sim, mlx5 personality): PFC on priority 3."
rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko || die "cannot load rocetune_sim"
echo "7 mlx5" > /sys/bus/rocetune_sim/new_device || die "cannot create a simulated NIC"
wait_for 10 test -e /sys/class/infiniband/rsim_ib7 || die "no rsim_ib7"
ip link set rsim7 up
pfc3() {
	dcb -j pfc show dev rsim7 | jq -r '.prio_pfc[3]'
}
echo "    \$ dcb pfc show dev rsim7 prio-pfc"
dcb pfc show dev rsim7 prio-pfc | sed 's/^/    /'
[ "$(pfc3)" = false ] || die "PFC on priority 3 of the new NIC is '$(pfc3)', not off"
echo "    \$ dcb pfc set dev rsim7 prio-pfc 3:on"
# dcb of iproute2 6.1 can say "Attribute write: Protocol error" and exit 1
# after a set it did, or exit 0 after one the kernel refused (rt_dcb in
# selftests/lib.sh): the set is what dcb pfc show reads back.
dcb_said=$(rt_dcb pfc set dev rsim7 prio-pfc 3:on) || die "dcb pfc set failed: $dcb_said"
[ "$(pfc3)" = true ] ||
	die "dcb pfc set dev rsim7 prio-pfc 3:on did not enable PFC on priority 3 (dcb pfc show: '$(pfc3)')"
[ -z "$dcb_said" ] ||
	echo "    ${dcb_said#"# "}: iproute2 6.1's spurious error; dcb pfc show reads PFC on"
echo "    \$ dcb pfc show dev rsim7 prio-pfc"
dcb pfc show dev rsim7 prio-pfc | sed 's/^/    /'
echo "    \$ rocetune config set dev rsim_ib7 interval-ms 100 storm-ms 300"
"$RT" config set dev rsim_ib7 interval-ms 100 storm-ms 300 || die "config set failed"
echo "    (the module samples the port every 100 ms; pause in every sample for 300 ms"
echo "    is a storm)"
dbg=/sys/kernel/debug/rocetune_sim/7
# Not a frame sent: a counter value written into the sim, so that the
# port shows tx and rx pause counted apart.
echo 1200 > "$dbg/counters/tx_prio3_pause"
echo "    injected: tx-pause of priority 3 set to 1200 in the sim's debugfs (no frame sent),"
echo "    to show below that pause sent and pause received are counted apart."
ok "PFC enabled on priority 3 with dcb (read back); interval 100 ms, storm after 300 ms of pause"

say "Inject a pause storm: priority 3 receives 1000 pause frames/s for 1.5 s."
echo "3 1000 1500" > "$dbg/pfc_storm" || die "cannot inject a storm"
storm_over() {
	jq -e -s 'map(select(.event == "storm_end" and .dev == "rsim_ib7")) | length >= 1' \
		"$MON" > /dev/null
}
wait_for 10 storm_over || die "no storm_end event"
echo "    events from rocetune monitor:"
jq -c 'select(.dev == "rsim_ib7" and (.event | startswith("storm")))' "$MON" | sed 's/^/    /'
jq -r 'select(.dev == "rsim_ib7" and .event == "storm_start") |
	"    storm_start: value \(.value) pause frames/s received on priority \(.prio), thresh \(.thresh) ms (storm-ms): pause in every sample for \(.duration_ms) ms"' "$MON"
jq -r 'select(.dev == "rsim_ib7" and .event == "storm_end") |
	"    storm_end: the storm lasted \(.duration_ms) ms (value and thresh are 0: no rate, no threshold at an end)"' "$MON"
echo "    The storm is seen at the module's 100 ms samples: it starts once 300 ms of pause"
echo "    have been sampled, and ends a sample or two after the 1.5 s injected."
starts=$(jq -s 'map(select(.event == "storm_start" and .dev == "rsim_ib7" and .prio == 3)) | length' "$MON")
ends=$(jq -s 'map(select(.event == "storm_end" and .dev == "rsim_ib7" and .prio == 3)) | length' "$MON")
if [ "$starts" != 1 ] || [ "$ends" != 1 ]; then
	die "expected one storm start and one end, saw $starts and $ends"
fi
p3=$("$RT" -j port show rsim_ib7 | jq -c '.[0].pfc.prio[] | select(.prio == 3)')
echo "    rocetune port show rsim_ib7, priority 3 (one read):"
jq -r '"      rx-pause \(.rx_pause) frames (1000/s for 1.5 s), lasting \(.rx_pause_duration_us) us in all",
	"      tx-pause \(.tx_pause) frames (the injected value), storm \(.storm)"' <<< "$p3"
rx=$(jq '.rx_pause' <<< "$p3")
[ "$rx" = 1500 ] || die "rx_pause on priority 3 is $rx, not 1500"
ok "one storm_start and one storm_end on priority 3; $rx pause frames counted"

say "The agent acts on a pause storm: [Watchdog] Action=disable-pfc in rsim7's profile."
SIMPROF=$ROCETUNE_PROFILE_DIR/60-sim.conf
cat > "$SIMPROF" << EOF
[Match]
Name=rsim7

[Lossless]
PFC=3

[Agent]
PollIntervalSec=1

[Watchdog]
Action=disable-pfc
StormMs=300
RestoreAfterMs=1000
EOF
echo "    $SIMPROF:"
sed 's/^/      /' "$SIMPROF"
echo "    disable-pfc: on a storm_start the agent turns PFC off on the storming priority,"
echo "    so the NIC stops obeying the pause frames; RestoreAfterMs=1000: 1000 ms after"
echo "    the last storm_end it turns it back on."
SIMLOG=/tmp/demo_rocetuned_storm.log
"$ROCETUNED" --foreground 2> "$SIMLOG" &
agent=$!
wait_for 30 grep -q "rsim7: profile 60-sim.conf (start): already in force, 0 writes" "$SIMLOG" ||
	die "the agent did not take rsim7 (PFC on priority 3 is already as its profile says): $(tail -n 3 "$SIMLOG")"
mon0=$(wc -l < "$MON")
ms() {
	echo $(($(date +%s%N) / 1000000))
}
# pfc_read on|off: one read of rsim7's PFC by dcb, kept to be shown, with
# priority 3 on or off.
pfc_read() {
	dcb pfc show dev rsim7 prio-pfc > /tmp/demo_pfc.txt &&
		grep -Eq "(^| )3:$1( |\$)" /tmp/demo_pfc.txt
}
pfc_read on || die "PFC on priority 3 of rsim7 is not on before the storm: $(cat /tmp/demo_pfc.txt)"
echo "    \$ dcb pfc show dev rsim7 prio-pfc   # before the storm"
sed 's/^/    /' /tmp/demo_pfc.txt
echo "    injected: priority 3 receives 1000 pause frames/s until this script stops it"
t0=$(ms)
echo "3 1000 0" > "$dbg/pfc_storm" || die "cannot inject a storm"
wait_for 15 pfc_read off ||
	die "the agent did not turn PFC off on priority 3 in the storm: $(grep 'rsim7: pause storm on priority 3: [^0-9]' "$SIMLOG" | tail -n 1)"
t_off=$(ms)
echo "    \$ dcb pfc show dev rsim7 prio-pfc   # in the storm, $((t_off - t0)) ms after it began"
sed 's/^/    /' /tmp/demo_pfc.txt
echo "3 0 0" > "$dbg/pfc_storm" || die "cannot stop the storm"
t_stop=$(ms)
echo "    injected: the storm stopped, $((t_stop - t0)) ms after it began"
wait_for 30 pfc_read on || die "the agent did not turn PFC back on after the storm: $(tail -n 2 "$SIMLOG")"
t_on=$(ms)
echo "    \$ dcb pfc show dev rsim7 prio-pfc   # $((t_on - t_stop)) ms after the storm stopped"
sed 's/^/    /' /tmp/demo_pfc.txt
[ $((t_on - t_stop)) -ge 1000 ] ||
	die "PFC was back on $((t_on - t_stop)) ms after the storm stopped: before RestoreAfterMs=1000"
wait_for 10 grep -q "rsim7: profile 60-sim.conf applied (storm restore)" "$SIMLOG" ||
	die "the agent logged no restore: $(tail -n 3 "$SIMLOG")"
echo "    the agent's log about rsim7:"
grep 'rsim7: ' "$SIMLOG" | sed 's/^/    /'
echo "    (1 write each: PFC of priority 3 off, then on again; mlx5 takes its link"
echo "    down and up on any change of its PFC priorities, en_dcbnl.c, and the sim too.)"
act=$(grep -c 'rsim7: pause storm on priority 3: PFC off on it in force' "$SIMLOG")
[ "$act" = 1 ] || die "the agent logged $act storm actions on priority 3, not 1"
echo "    events from rocetune monitor for this storm:"
tail -n +"$((mon0 + 1))" "$MON" > /tmp/demo_monitor2.json
jq -r 'select(.dev == "rsim_ib7" and .prio == 3) |
	if .event == "storm_start" then
		"    storm_start: \(.value) pause frames/s received on priority 3, pause in every sample for \(.duration_ms) ms (storm-ms \(.thresh) ms)"
	elif .event == "storm_end" then
		"    storm_end: the storm lasted \(.duration_ms) ms as the module sampled it"
	else empty end' /tmp/demo_monitor2.json
lat=$(sed -n 's/.*rsim7: pause storm on priority 3: PFC off on it in force \([0-9.]*\) ms after.*/\1/p' "$SIMLOG")
echo "    The agent turned PFC off $lat ms after the module's storm_start (its log); the"
echo "    times of the dcb reads add storm-ms of pause before the storm_start, and this"
echo "    script's reads of dcb, one every 200 ms or so on an emulated CPU."
kill "$agent"
wait "$agent" 2> /dev/null
agent=
ok "storm on priority 3: the agent turned PFC off $lat ms after storm_start, and on $((t_on - t_stop)) ms after the storm stopped (RestoreAfterMs=1000 after storm_end)"
echo 7 > /sys/bus/rocetune_sim/del_device
rmmod rocetune_sim
kill "$mon" 2> /dev/null

say "Delete rxe1 and add it back: rocetune follows hotplug."
rdma link del "$RT_RXE1" || die "cannot delete rxe1"
wait_for 5 dmesg_has "^rocetune: $RT_RXE1: removed" || die "rocetune missed the removal"
rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1" || die "cannot re-add rxe1"
wait_for 5 test "$(dmesg -t | grep -c "^rocetune: $RT_RXE1: tracking")" -ge 2 ||
	die "rocetune missed the re-add"
dmesg -t | grep -E "^rocetune: $RT_RXE1: (removed|tracking)" | tail -n 2 | sed 's/^/    /'
ok "rocetune logged rxe1's removal and its tracking again after the re-add"

say "Unload rocetune.ko: the client lets go of every device."
rt_kmod_unload || die "rmmod failed"
dmesg_has '^rocetune: unloaded' || die "no unload message"
dmesg -t | grep '^rocetune: unloaded' | tail -n 1 | sed 's/^/    /'
[ ! -d /sys/module/rocetune ] || die "/sys/module/rocetune is still there"
ok "rmmod succeeded, the module logged its unload and /sys/module/rocetune is gone"

printf '\nDemo complete: every step did what it said.\n'
