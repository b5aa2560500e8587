#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_rp.py: the oracle of qp_rp.sh, the DCQCN reaction point (RP) of
# software RoCE (kmod/rocetune_rp.c).
#
#   rt_rp.py check --pcap VB.pcap --ip0 IP0 --ip1 IP1 --dev0 DEV0
#                  --dump DUMP.json [--expect-none]
#   rt_rp.py rate --pcap VB.pcap --ip0 IP0 --ip1 IP1
#
# rate prints the rate (Mb/s, IP bytes, as the RP paces them) of the RoCEv2
# packets other than CNPs from IP0 to IP1 in the capture, over the time
# from vb's first to its last packet to IP0 (perftest's own figure in -D
# mode was 0.00 at low rates).
#
# The capture on vb holds every CNP the second device's notification point
# sent to the first (they cross the veth pair to va unchanged).  Each CNP
# is found twice, by the raw bytes and by tshark's InfiniBand dissector,
# and the two must agree.  For each QP of DEV0 in the dump ("rocetune -j
# qp show"), the CNPs addressed to it (BTH destination QP) must equal the
# CNPs its reaction point handled (rp_cnps) and the CNPs its counters saw
# (rx_cnp_pkts).  With --expect-none the capture has CNPs but no QP
# reports reaction point state (the RP is off: nothing changes).
import argparse
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rt_np  # noqa: E402
import rt_qp  # noqa: E402


def cnps_to(pcap, ip0, ip1):
    """CNPs from @ip1 to @ip0 by destination QP: raw bytes, tshark."""
    raw, ts = {}, {}
    frames = rt_np.frames(pcap)
    lines = rt_np.tshark_lines(pcap)
    for n, (_, ip, _) in enumerate(frames, 1):
        r = rt_np.roce(ip)
        if not r or ip[12:16] != ip1 or ip[16:20] != ip0 or \
                ip[r[1]] != rt_np.OP_CNP:
            continue
        qpn = int.from_bytes(ip[r[1] + 5:r[1] + 8], "big")
        raw[qpn] = raw.get(qpn, 0) + 1
    for v in lines.values():
        if v["ip.src"] != socket.inet_ntoa(ip1) or \
                v["ip.dst"] != socket.inet_ntoa(ip0) or \
                rt_qp.num(v["infiniband.bth.opcode"]) != rt_np.OP_CNP:
            continue
        qpn = rt_qp.num(v["infiniband.bth.destqp"])
        ts[qpn] = ts.get(qpn, 0) + 1
    return raw, ts


def do_check(a):
    ip0, ip1 = socket.inet_aton(a.ip0), socket.inet_aton(a.ip1)
    raw, ts = cnps_to(a.pcap, ip0, ip1)
    with open(a.dump) as f:
        dump = [d for d in json.load(f) if d.get("dev") == a.dev0]
    fails = []
    if raw != ts:
        fails.append(f"CNPs by QP: {raw} by the raw bytes, {ts} by tshark")
    total = sum(raw.values())
    print(f"# capture: {total} CNPs to {a.ip0}, by QP {raw}")
    if not total:
        fails.append("no CNP in the capture: the marking or the NP failed")
    with_rp = [d for d in dump if "rp_cnps" in d]
    if a.expect_none:
        if with_rp:
            fails.append(f"RP off, yet QPs with RP state: {with_rp}")
    else:
        for d in dump:
            want = raw.get(d["qpn"], 0)
            got = d.get("rp_cnps", 0)
            print(f"# QP {d['qpn']}: capture {want} CNPs, rp_cnps {got}, "
                  f"rx_cnp_pkts {d.get('rx_cnp_pkts')}, "
                  f"rp_rate_kbps {d.get('rp_rate_kbps')}, "
                  f"rp_cuts {d.get('rp_cuts')}, "
                  f"rp_releases {d.get('rp_releases')}")
            if got != want or d.get("rx_cnp_pkts") != want:
                fails.append(f"QP {d['qpn']}: {want} CNPs captured, "
                             f"rp_cnps {got}, rx_cnp_pkts "
                             f"{d.get('rx_cnp_pkts')}")
        extra = set(raw) - {d["qpn"] for d in dump}
        if extra:
            fails.append(f"CNPs for QPs not in the dump: {sorted(extra)}")
    for f in fails:
        print(f"# FAIL: {f}")
    return 1 if fails else 0


def do_rate(a):
    ip0, ip1 = socket.inet_aton(a.ip0), socket.inet_aton(a.ip1)
    first = last = None
    total = 0
    for us, ip, _ in rt_np.frames(a.pcap):
        r = rt_np.roce(ip)
        if not r:
            continue
        if ip[12:16] == ip0 and ip[16:20] == ip1 and \
                ip[r[1]] != rt_np.OP_CNP:
            total += int.from_bytes(ip[2:4], "big")
        elif ip[12:16] == ip1 and ip[16:20] == ip0:
            # Time from vb's own packets (ACKs, CNPs): on 6.12 a received
            # packet keeps its sender's timestamp, on another clock.
            first = us if first is None else first
            last = us
    if first is None or last <= first or not total:
        print("no traffic", file=sys.stderr)
        return 1
    print(f"{total * 8 / (last - first):.2f}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["check", "rate"])
    for o in ("pcap", "ip0", "ip1"):
        ap.add_argument("--" + o, required=True)
    for o in ("dev0", "dump"):
        ap.add_argument("--" + o)
    ap.add_argument("--expect-none", action="store_true")
    a = ap.parse_args()
    if a.cmd == "rate":
        return do_rate(a)
    if not a.dev0 or not a.dump:
        ap.error("check needs --dev0 and --dump")
    return do_check(a)


if __name__ == "__main__":
    sys.exit(main())
