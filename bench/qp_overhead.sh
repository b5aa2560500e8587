#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# qp_overhead.sh [ROUNDS] - what rocetune's per-QP accounting costs the
# software RoCE datapath: the message rate of short perftest runs between
# rxe0 and rxe1 (the selftests' veth wire) in three modes, measured side by
# side in ROUNDS (default 30) short rounds, each round running every mode
# once in an order that rotates through all six orders:
#
#   acct          accounting on for rxe0, rxe1 (and rxe2): the hooks are
#                 registered and count every packet to its QP
#   registered    accounting on for rxe2 only, a third rxe on a veth of
#                 its own that carries no traffic: the hooks are
#                 registered, rxe0/rxe1's packets pass them and are skipped
#                 (no accounting device on their netdev)
#   unregistered  accounting off everywhere: no hooks
#
# With QP_BENCH_UDP=1 (the default) each run is followed, in the same
# mode, by a burst of plain UDP (not RoCE) from the kernel's packet
# generator (pktgen) on va to vb's address, port 9: it enters the IP stack
# at vb and passes the LOCAL_IN hook (pktgen itself sends below
# LOCAL_OUT), so it gives the cost of the registered hooks to the host's
# other traffic, in packets/s.
#
# Prints every run, then per mode the median message rate with its
# quartiles and range, packets per message and per second (from rxe's own
# sent_pkts), and the ratios acct/unregistered and registered/unregistered
# (the ratio of the medians, and the median of the per-round paired ratios
# with their IQR, a bootstrap 95% interval and a sign test), and the extra
# time per packet.  A setup that fails, or a run that fails twice, fails the
# script.  Needs root and the selftests' setup; in the test VM, one vCPU:
#   RT_VM_SMP=1 selftests/vm/run.sh -k 6.1 -x 'bash bench/qp_overhead.sh 30'
#
# Environment: QP_BENCH_TOOL (ib_send_bw), QP_BENCH_SIZE (message bytes,
# 64), QP_BENCH_ITERS (messages per run, 4000), QP_BENCH_OUT (the raw
# table, default /tmp/qp_overhead.tsv), QP_BENCH_SEED (bootstrap, 1),
# QP_BENCH_UDP (1), QP_BENCH_UDP_COUNT (UDP packets per burst, 50000).

ROUNDS=${1:-30}
source "$(dirname "$0")/../selftests/lib.sh"
RT_QP="$RT_SELFTESTS/rt_qp.py"
RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
TOOL=${QP_BENCH_TOOL:-ib_send_bw}
SIZE=${QP_BENCH_SIZE:-64}
ITERS=${QP_BENCH_ITERS:-4000}
OUT=${QP_BENCH_OUT:-/tmp/qp_overhead.tsv}
SEED=${QP_BENCH_SEED:-1}
UDP=${QP_BENCH_UDP:-1}
UDP_COUNT=${QP_BENCH_UDP_COUNT:-50000}
PG=/proc/net/pktgen
PORT=18530
MODES=(acct registered unregistered)
# The six orders of the three modes (indexes into MODES): round r runs
# ORDERS[r % 6], so every mode is first, second and last equally often.
ORDERS=("0 1 2" "1 2 0" "2 0 1" "0 2 1" "2 1 0" "1 0 2")
# The idle third device of "registered".
NETDEV2=vc
NETDEV2_PEER=vd
RXE2=rxe2

fail() {
	echo "# qp_overhead: $*" >&2
	exit 1
}

cleanup() {
	if [ -n "${sink_pid:-}" ]; then
		kill "$sink_pid" 2> /dev/null
		wait "$sink_pid" 2> /dev/null
	fi
	[ ! -w "$PG/pgctrl" ] || echo reset > "$PG/pgctrl"
	rdma link del "$RXE2" 2> /dev/null
	ip link del "$NETDEV2" 2> /dev/null
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

# acct_set DEV 0|1
acct_set() {
	local v=off

	[ "$2" = 1 ] && v=on
	"$RT_CLI" qp set dev "$1" accounting "$v"
}

# mode_set MODE: switch accounting to MODE and check it from the module's
# QP_STATS (rxe0 rxe1 rxe2 as 0/1).  rxe2 is turned on before the others
# are turned off, so switching between registered modes does not
# unregister the hooks in between.
mode_set() {
	local want got a0 a1 a2

	case $1 in
	acct) a0=1 a1=1 a2=1 ;;
	registered) a0=0 a1=0 a2=1 ;;
	unregistered) a0=0 a1=0 a2=0 ;;
	*) return 1 ;;
	esac
	want="$a0 $a1 $a2"
	acct_set "$RXE2" "$a2" || return 1
	acct_set "$RT_RXE0" "$a0" || return 1
	acct_set "$RT_RXE1" "$a1" || return 1
	got=$(rt_json "$RT_CLI" -j qp stats | jq -r --arg a "$RT_RXE0" \
		--arg b "$RT_RXE1" --arg c "$RXE2" '
		def acct($d): [.[] | select(.dev == $d) | .accounting] |
			if length == 1 then (if .[0] then 1 else 0 end)
			else error("\($d): \(length) entries") end;
		"\(acct($a)) \(acct($b)) \(acct($c))"') || return 1
	[ "$got" = "$want" ] || {
		echo "# mode $1: accounting of $RT_RXE0 $RT_RXE1 $RXE2 is $got, not $want" >&2
		return 1
	}
}

# hooks_check MODE: the module says its hooks are registered (acct,
# registered) or not (unregistered).  rt_qp.py (python) is slow to start
# under emulation, so this runs once per mode before the rounds.
hooks_check() {
	local want=1 got

	[ "$1" = unregistered ] && want=0
	got=$(rt_json python3 "$RT_QP" stats |
		jq -r '[.[].qp_hooks] | unique | if length == 1 then .[0]
			else error("hooks: \(.)") end') || return 1
	[ "$got" = "$want" ] || {
		echo "# mode $1: qp_hooks is $got, not $want" >&2
		return 1
	}
}

sent_pkts() {
	local a b

	a=$(< "/sys/class/infiniband/$RT_RXE0/ports/1/hw_counters/sent_pkts") &&
		b=$(< "/sys/class/infiniband/$RT_RXE1/ports/1/hw_counters/sent_pkts") ||
		return 1
	echo $((a + b))
}

# max_tx_pkts DEV: the most packets one QP of DEV sent, by the module
# (destroyed QPs linger, see the setup).
max_tx_pkts() {
	rt_json "$RT_CLI" -j qp show dev "$1" | jq '[.[].tx_pkts] | max // 0'
}

# udp_setup: pktgen on va, one kthread (kpktgend_0: the VM has one CPU
# for this), minimal UDP packets to vb's address and MAC, port 9, one
# new skb each; a socket on port 9 that is never read takes them (a full
# receive buffer drops them quietly, where a closed port would answer
# with ICMP).
udp_setup() {
	local c

	modprobe -q pktgen || return 1
	echo reset > "$PG/pgctrl" &&
		echo "add_device $RT_NETDEV0" > "$PG/kpktgend_0" || return 1
	for c in "count $UDP_COUNT" "clone_skb 0" "pkt_size 60" "delay 0" \
		"dst $RT_IP1" "src_min $RT_IP0" "src_max $RT_IP0" \
		"dst_mac $(< "/sys/class/net/$RT_NETDEV1/address")" \
		"udp_src_min 9" "udp_src_max 9" "udp_dst_min 9" "udp_dst_max 9"; do
		echo "$c" > "$PG/$RT_NETDEV0" || {
			echo "# pktgen: \"$c\" refused" >&2
			return 1
		}
	done
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind((sys.argv[1], 9))
print("bound", flush=True)
time.sleep(1e6)' "$RT_IP1" > /tmp/qpb-sink 2>&1 &
	sink_pid=$!
	wait_for 20 grep -q bound /tmp/qpb-sink
}

# udp_in: UDP datagrams the host took in (delivered, no port, errors).
udp_in() {
	awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 + $3 + $4 }' /proc/net/snmp
}

# udp_run: one pktgen burst; prints its packets/s.  At least 99% of the
# packets must have reached UDP, past the LOCAL_IN hook (with one CPU the
# receive backlog drops a few now and then: 7 of 20000 once).
udp_run() {
	local u0 u1 res pps

	u0=$(udp_in) || return 1
	echo start > "$PG/pgctrl" || return 1
	u1=$(udp_in) || return 1
	res=$(< "$PG/$RT_NETDEV0") || return 1
	pps=$(sed -n 's/^ *\([0-9][0-9]*\)pps .* errors: 0$/\1/p' <<< "$res")
	if [ -z "$pps" ] || [ $(((u1 - u0) * 100)) -lt $((UDP_COUNT * 99)) ]; then
		echo "# pktgen: $((u1 - u0)) of $UDP_COUNT datagrams reached UDP;" \
			"$(grep -E 'Result|pps' <<< "$res" | tr -s ' \n' ' ')" >&2
		return 1
	fi
	echo "$pps"
}

# run_once MODE: one perftest run in MODE; prints "MPPS PKTS UDP_PPS" (the
# client's message rate, the RoCE packets rxe0 and rxe1 sent during the
# run, and the UDP burst's packets/s or 0).
run_once() {
	local mode=$1 p0 p1 out mpps srv_rc cli_rc n spid upps=0

	mode_set "$mode" || return 1
	p0=$(sent_pkts) || return 1
	# A run that hangs is ended (and failed) by timeout.
	timeout 120 "$TOOL" -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -s "$SIZE" \
		-n "$ITERS" > /tmp/qpb-server 2>&1 &
	spid=$!
	if ! wait_for 20 rt_port_listening "$PORT"; then
		echo "# $mode: the $TOOL server does not listen" >&2
		kill "$spid" 2> /dev/null
		wait "$spid"
		return 1
	fi
	out=$(timeout 120 "$TOOL" -F -d "$RT_RXE0" -x "$G0" -p "$PORT" \
		-s "$SIZE" -n "$ITERS" "$RT_IP1" 2>&1)
	cli_rc=$?
	wait "$spid"
	srv_rc=$?
	p1=$(sent_pkts) || return 1
	# "#bytes #iterations BW peak BW average MsgRate[Mpps]"
	mpps=$(awk -v s="$SIZE" -v n="$ITERS" \
		'$1 == s && $2 == n && $5 + 0 > 0 { print $5 }' <<< "$out")
	if [ "$cli_rc" != 0 ] || [ "$srv_rc" != 0 ] || [ -z "$mpps" ]; then
		echo "# $mode: $TOOL failed (client $cli_rc, server $srv_rc):" >&2
		tail -n 5 <<< "$out" | sed 's/^/#   client: /' >&2
		sed 's/^/#   server: /' /tmp/qpb-server | tail -n 5 >&2
		return 1
	fi
	# Accounting must really have counted the run: rxe0's sending QP.
	if [ "$mode" = acct ]; then
		n=$(max_tx_pkts "$RT_RXE0") || return 1
		if [ "$n" -lt "$ITERS" ]; then
			echo "# acct: rxe0's QPs sent at most $n packets by the module, fewer than $ITERS messages" >&2
			return 1
		fi
	fi
	if [ "$UDP" = 1 ]; then
		upps=$(udp_run) || return 1
	fi
	echo "$mpps $((p1 - p0)) $upps"
}

# run_mode ROUND MODE: run_once, retried once; appends a row to OUT.
run_mode() {
	local r mpps pkts upps

	if ! r=$(run_once "$2"); then
		echo "# round $1, $2: failed, retrying once" >&2
		sleep 1
		r=$(run_once "$2") || return 1
	fi
	read -r mpps pkts upps <<< "$r"
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$mpps" "$pkts" "$upps" \
		>> "$OUT" || return 1
	printf '  round %2d  %-12s  %s Mpps  %6s RoCE packets  %s UDP pps\n' \
		"$1" "$2" "$mpps" "$pkts" "$upps"
}

# summarize: the figures, from OUT.
summarize() {
	python3 - "$OUT" "$SEED" "$ITERS" <<'EOF'
import math
import random
import statistics
import sys

path, seed, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rate, ppm, udp = {}, {}, {}
for line in open(path):
    r, mode, mpps, pkts, upps = line.split()
    rate.setdefault(mode, {})[int(r)] = float(mpps)
    ppm.setdefault(mode, {})[int(r)] = int(pkts) / iters
    udp.setdefault(mode, {})[int(r)] = int(upps)
modes = ["acct", "registered", "unregistered"]
rounds = sorted(rate["unregistered"])
for m in modes:
    if sorted(rate.get(m, {})) != rounds or len(rounds) < 2:
        sys.exit("qp_overhead: mode %s lacks rounds" % m)


def quart(v):
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], statistics.median(v), q[2]


print("\n%d rounds; message rate in Mpps (the client's perftest report)"
      % len(rounds))
print("  %-13s %9s %9s %9s %9s %9s  %8s %10s"
      % ("mode", "median", "q1", "q3", "min", "max", "pkts/msg",
         "pkts/s"))
for m in modes:
    v = [rate[m][r] for r in rounds]
    p = statistics.median(ppm[m][r] for r in rounds)
    q1, med, q3 = quart(v)
    print("  %-13s %9.6f %9.6f %9.6f %9.6f %9.6f  %8.3f %10.0f"
          % (m, med, q1, q3, min(v), max(v), p,
             statistics.median(rate[m][r] * ppm[m][r] * 1e6
                               for r in rounds)))

rng = random.Random(seed)


def ratios(what, val):
    """The ratios of each mode's @val to unregistered's: of the medians,
    and the per-round paired ratios' median, IQR, bootstrap 95% interval
    of that median, and a two-sided sign test of "paired ratio < 1"."""
    print("\n%s, ratios to unregistered (1.000 = no cost; below 1 ="
          " slower)" % what)
    print("  %-13s %8s %8s %8s %8s %17s %10s %8s"
          % ("mode", "of-med", "paired", "p-q1", "p-q3", "bootstrap 95%",
             "rounds<1", "sign p"))
    for m in ("acct", "registered"):
        pr = [val[m][r] / val["unregistered"][r] for r in rounds]
        med_ratio = (statistics.median(val[m].values()) /
                     statistics.median(val["unregistered"].values()))
        q1, med, q3 = quart(pr)
        boot = sorted(statistics.median(rng.choices(pr, k=len(pr)))
                      for _ in range(4000))
        lo = boot[int(0.025 * len(boot))]
        hi = boot[int(0.975 * len(boot)) - 1]
        below = sum(x < 1 for x in pr)
        n = sum(x != 1 for x in pr)
        k = min(below, n - below)
        sign_p = min(1.0, 2 * sum(math.comb(n, i)
                                  for i in range(k + 1)) / 2 ** n)
        print("  %-13s %8.3f %8.3f %8.3f %8.3f   [%6.3f, %6.3f] %5d/%-4d"
              " %8.3g" % (m, med_ratio, med, q1, q3, lo, hi, below,
                          len(pr), sign_p))


ratios("RoCE message rate", rate)

# Extra time per packet, per round: the difference of the time per packet
# (1 / packets per second) of the mode and of unregistered in that round.
print("\nextra time per RoCE packet against unregistered (paired by round;"
      " every packet passes two hooks, LOCAL_OUT and LOCAL_IN)")
base = [1 / (rate["unregistered"][r] * ppm["unregistered"][r])
        for r in rounds]
print("  unregistered: %.2f us per packet (median)" % statistics.median(base))
for m in ("acct", "registered"):
    d = [1 / (rate[m][r] * ppm[m][r]) - b for r, b in zip(rounds, base)]
    q1, med, q3 = quart(d)
    print("  %-13s %+.3f us per packet (IQR %+.3f .. %+.3f), %+.1f%% of"
          " the time per packet" % (m, med, q1, q3,
                                    100 * med / statistics.median(base)))

if all(udp[m][r] > 0 for m in modes for r in rounds):
    print("\nUDP (not RoCE), pktgen va -> vb port 9, packets/s, one hook"
          " (LOCAL_IN) per packet")
    print("  %-13s %9s %9s %9s %9s %9s"
          % ("mode", "median", "q1", "q3", "min", "max"))
    for m in modes:
        v = [udp[m][r] for r in rounds]
        q1, med, q3 = quart(v)
        print("  %-13s %9.0f %9.0f %9.0f %9.0f %9.0f"
              % (m, med, q1, q3, min(v), max(v)))
    ratios("UDP packets/s", udp)
    base = [1e9 / udp["unregistered"][r] for r in rounds]
    print("  unregistered: %.0f ns per UDP packet (median)"
          % statistics.median(base))
    for m in ("acct", "registered"):
        d = [1e9 / udp[m][r] - b for r, b in zip(rounds, base)]
        q1, med, q3 = quart(d)
        print("  %-13s %+.0f ns per UDP packet (IQR %+.0f .. %+.0f)"
              % (m, med, q1, q3))
EOF
}

rt_require_root
rt_require_cmd "$TOOL" python3 gojq
[ -x "$RT_CLI" ] || fail "no $RT_CLI (make userspace)"
if ! [[ $ROUNDS =~ ^[0-9]+$ ]] || [ "$ROUNDS" -lt 2 ]; then
	fail "ROUNDS must be 2 or more"
fi
trap cleanup EXIT
rt_wire_up || fail "the wire does not come up"
rt_kmod_load || fail "rocetune.ko does not load"
if ! { ip link add "$NETDEV2" type veth peer name "$NETDEV2_PEER" &&
	sysctl -qw "net.ipv6.conf.$NETDEV2.disable_ipv6=1" \
		"net.ipv6.conf.$NETDEV2_PEER.disable_ipv6=1" &&
	ip link set "$NETDEV2" up && ip link set "$NETDEV2_PEER" up &&
	rdma link add "$RXE2" type rxe netdev "$NETDEV2"; }; then
	fail "no $RXE2 on $NETDEV2"
fi
G0=$(rt_gid_index "$RT_RXE0" "$RT_IP0") || fail "no RoCEv2 GID on $RT_RXE0"
G1=$(rt_gid_index "$RT_RXE1" "$RT_IP1") || fail "no RoCEv2 GID on $RT_RXE1"
# A destroyed QP's entry stays 60 s, so that max_tx_pkts finds the run's.
"$RT_CLI" qp set linger-ms 60000 || fail "qp set linger-ms"
if [ "$UDP" = 1 ]; then
	udp_setup || fail "pktgen or the UDP sink cannot be set up"
fi
for m in "${MODES[@]}"; do
	mode_set "$m" || fail "mode $m cannot be set"
	hooks_check "$m" || fail "mode $m: the hooks are not as expected"
done

echo "# qp_overhead: $(uname -r), $(nproc) CPU(s), $ROUNDS rounds;" \
	"$TOOL -s $SIZE -n $ITERS, rxe0 -> rxe1; mode orders rotate"
: > "$OUT" || fail "cannot write $OUT"
t0=$SECONDS
for ((i = 0; i < ROUNDS; i++)); do
	for m in ${ORDERS[i % 6]}; do
		run_mode "$i" "${MODES[m]}" || fail "round $i, ${MODES[m]}: failed twice"
	done
done
echo "# $ROUNDS rounds in $((SECONDS - t0)) s"
summarize || fail "the summary failed"
