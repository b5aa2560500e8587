#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_rtt.py: the oracle of qp_rtt.sh, the round trips of QPs
# (kmod/rocetune_rtt.c), from a capture on the QP's own netdev.
#
#   rt_rtt.py check --pcap NETDEV.pcap --peer-pcap PEERDEV.pcap --ip IP
#                   --peer PEER --dev DEV --qpn Q --rqpn R --dump DUMP.json
#                   [--max-lag-us US] [--max-tail-lag-us US]
#
# The capture of the QP's netdev (tcpdump -i NETDEV, both directions,
# nanosecond stamps) holds what the QP Q at IP sent to its peer QP R at
# PEER and what it received; that of the peer's netdev the same packets
# on the other end of the veth pair.  The round trips are measured here the way the RoCE spec's
# requester sees them, one at a time: a request (BTH opcode of a request)
# with the AckReq bit starts one when none is outstanding; the first ACK
# (AETH, ACK syndrome) for Q whose PSN is the request's or later ends it;
# a request again with that PSN or an earlier one (a retransmission) or a
# NAK ends it without a sample.  tshark decodes every field.
#
# Against the module's "qp show" of Q on DEV (DUMP.json):
# - the module measures no more round trips than the capture holds, and
#   misses at most the first few: the ones before the module learned the
#   QP's destination (its first requests count on a pending entry);
# - its window is the capture's last 64: the 50th and 99th percentiles
#   (nearest rank) and those of the jitter (difference of consecutive
#   round trips).  The send end of a round trip is the transmit hook in
#   the module and NETDEV's tap a little later.  The receive end is, where
#   NETDEV's capture has the packets it received on CLOCK_REALTIME (6.1),
#   the same kernel stamp there and in the module (skb->tstamp, taken on
#   the way in because the capture asked for it); where it has them on
#   another clock (6.12: the sender's stamp stays on the packet), PEERDEV's
#   tap as the ACK left it, a little before the module's receive hook.
#   Either way the module's round trip is longer by those lags, never
#   shorter: each percentile must be in [capture, capture + lag].  The lag
#   allowed is --max-lag-us for the medians, and --max-tail-lag-us for the
#   99th percentiles (of 64 samples, the largest: one packet that waited
#   for the emulated CPU between the hook and the tap decides it).  The
#   jitter differs by at most twice the lag.
import argparse
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rt_pcap  # noqa: E402
import rt_qp  # noqa: E402

WIN = 64


def stamps(path):
    """Each frame's time, ns, by frame number (as tshark numbers them)."""
    return {n: t for n, (t, _, _) in enumerate(rt_pcap.frames(path), 1)}


def is_request(op):
    """RC/UC request opcodes (IBTA: not a response, ACK or CNP)."""
    return op < 0x81 and not 0x0d <= (op & 0x1f) <= 0x12


def packets(path):
    """(time ns, tshark's fields) of each RoCEv2 packet of @path."""
    t = stamps(path)
    text = rt_qp.tshark_texts([path])[path]
    out = []
    for line in text.splitlines():
        v = dict(zip(rt_qp.TSHARK_FIELDS, line.split("\t")))
        out.append((t[int(v["frame.number"])], v))
    return out


def requests(pkts, ip, peer, rqpn):
    out = []
    for when, v in pkts:
        op = rt_qp.num(v["infiniband.bth.opcode"])
        if v["ip.src"] == ip and v["ip.dst"] == peer and is_request(op) \
                and rt_qp.num(v["infiniband.bth.destqp"]) == rqpn:
            out.append((when, "req", rt_qp.num(v["infiniband.bth.psn"]),
                        v["infiniband.bth.a"] in ("1", "True")))
    return out


def acks(pkts, ip, peer, qpn):
    out = []
    for when, v in pkts:
        if v["ip.src"] == peer and v["ip.dst"] == ip and \
                rt_qp.num(v["infiniband.bth.destqp"]) == qpn and \
                v["infiniband.aeth.syndrome"]:
            syn = rt_qp.num(v["infiniband.aeth.syndrome"])
            out.append((when, "ack", rt_qp.num(v["infiniband.bth.psn"]),
                        syn & 0x60))
    return out


def round_trips(path, peer_path, ip, peer, qpn, rqpn):
    own = packets(path)
    reqs = requests(own, ip, peer, rqpn)
    ack = acks(own, ip, peer, qpn)
    lo, hi = min(e[0] for e in reqs), max(e[0] for e in reqs)
    # The ACKs the QP received, if the capture has them on its clock.
    if ack and all(lo - 10**9 <= e[0] <= hi + 10**9 for e in ack):
        print("# receive ends: the kernel's stamps on the QP's netdev")
    else:
        ack = acks(packets(peer_path), ip, peer, qpn)
        print("# receive ends: the peer's netdev as the ACKs left it "
              "(the QP's netdev has them on another clock)")
    events = sorted(reqs + ack, key=lambda e: e[0])
    out, probe = [], None
    for when, kind, psn, x in events:
        if kind == "req":
            if probe and not psn_after(psn, probe[0]):
                probe = None
            elif not probe and x:
                probe = (psn, when)
        elif probe:
            if x != 0:
                probe = None
            elif not psn_after(probe[0], psn):
                out.append(when - probe[1])
                probe = None
    return out


def psn_after(a, b):
    d = (a - b) & 0xffffff
    return d != 0 and d < 0x800000


def pct(v, p):
    s = sorted(v)
    return s[-(-len(s) * p // 100) - 1]


def summary(samples):
    w = samples[-WIN:]
    j = [abs(b - a) for a, b in zip(w, w[1:])]
    return {"p50": pct(w, 50), "p99": pct(w, 99),
            "jp50": pct(j, 50), "jp99": pct(j, 99)}


def do_check(a):
    cap = round_trips(a.pcap, a.peer_pcap, a.ip, a.peer, a.qpn, a.rqpn)
    with open(a.dump) as f:
        mod = [d for d in json.load(f)
               if d.get("dev") == a.dev and d.get("qpn") == a.qpn]
    fails = []
    if len(mod) != 1:
        print(f"# QP {a.qpn}: {len(mod)} entries in the dump")
        return 1
    m = mod[0]
    n = m.get("rtt_samples", 0)
    print(f"# QP {a.qpn}: capture {len(cap)} round trips, module {n}")
    if len(cap) < WIN + 1:
        fails.append(f"only {len(cap)} round trips in the capture")
    if not len(cap) - len(cap) // 10 <= n <= len(cap):
        fails.append(f"the module measured {n} of {len(cap)}")
    if fails:
        print("# " + "; ".join(fails))
        return 1
    c = summary(cap)
    got = {"p50": m["rtt_p50_ns"], "p99": m["rtt_p99_ns"],
           "jp50": m["jitter_p50_ns"], "jp99": m["jitter_p99_ns"]}
    lags = {"p50": a.max_lag_us * 1000, "p99": a.max_tail_lag_us * 1000}
    win = sorted(cap[-WIN:])
    for k in ("p50", "p99"):
        d = got[k] - c[k]
        rank = sum(1 for x in win if x <= got[k])
        print(f"# {k}: module {got[k]} ns, capture {c[k]} ns "
              f"(+{d} ns; at rank {rank} of the capture's {len(win)})")
        if not 0 <= d <= lags[k]:
            fails.append(f"{k} {got[k]} ns not in "
                         f"[{c[k]}, {c[k] + lags[k]}]")
    for k in ("jp50", "jp99"):
        d = got[k] - c[k]
        print(f"# jitter {k[1:]}: module {got[k]} ns, capture {c[k]} ns "
              f"({d:+} ns)")
        if abs(d) > 2 * lags[k[1:]]:
            fails.append(f"jitter {k[1:]} {got[k]} ns, capture {c[k]} ns")
    for f in fails:
        print(f"# {f}")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["check"])
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--peer-pcap", required=True)
    ap.add_argument("--ip", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--qpn", type=int, required=True)
    ap.add_argument("--rqpn", type=int, required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--max-lag-us", type=int, default=500)
    ap.add_argument("--max-tail-lag-us", type=int, default=5000)
    a = ap.parse_args()
    socket.inet_aton(a.ip)
    socket.inet_aton(a.peer)
    sys.exit(do_check(a))


if __name__ == "__main__":
    main()
