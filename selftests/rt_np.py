#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_np.py - helper of qp_np.sh: check the CNPs of rocetune's notification
# point in a capture of the selftests' wire, against the module's counters.
#
#   rt_np.py check --pcap F --tx0-pcap F0 --ip0 IP --ip1 IP --stats JSON
#                  --dump JSON --dev1 NAME [--gap-us US] [--expect-none]
#
# The capture is the oracle.  F is a capture on the second netdev (both
# directions of the second device, IP1): data packets from IP0 come in,
# CNPs go out.  Each CNP is decoded twice, by tshark's InfiniBand dissector
# (through rt_qp.py, which relays to the host's tshark in the test VM) and
# by this file's own reader of the raw bytes, and checked field by field:
# IPv4 without options, TOS 0xc0 (DSCP 48, or --cnp-dscp), TTL 64, DF,
# UDP from the flow's source
# port to 4791 with checksum 0 and length 40, BTH opcode 0x81, P_Key
# 0xffff, BECN set (FECN clear), PSN 0, destination QP = the sending QP,
# 16 zero bytes, and the ICRC.
#
# The ICRC is computed here from the InfiniBand Architecture Specification's
# definition (Annex A17, RoCEv2): the CRC-32 of the Ethernet polynomial
# over 64 bits of ones standing for the LRH, then the packet from its IP
# header with the variant fields (IPv4 TOS, TTL and header checksum, UDP
# checksum, the BTH's reserved byte with FECN and BECN) set to ones, up to
# the ICRC.  Python's zlib does the CRC-32.  The same computation is first
# checked on rxe's own ACKs in the capture: if it does not reproduce their
# ICRCs the check of the CNPs means nothing and fails.
#
# The gap: the module takes a QP's CNP slot at a time T (its clock read in
# the receive hook), at most once in each gap.  The capture cannot see T,
# but it brackets it: the CE-marked data packet that caused the CNP was
# captured leaving the first netdev (F0, the mirror of its egress before
# netem) before the hook ran, and the CNP going out of the second netdev
# after it.  So for two CNPs k and k+1 of one QP, the CNP k+1 is captured
# at least the gap after the data packet that caused CNP k (the last CE
# mark of the flow before CNP k: a single CPU handles each packet from the
# wire to the hook without another in between; found in F0 by its UDP
# port, QP and PSN).  That is checked, with 1 µs for the capture's µs
# timestamps; the time between the CNPs themselves, which includes how long
# each took from the hook to the capture, is only printed.  (The capture of
# the second netdev's received packets cannot be the lower end: on 6.12 it
# carries the timestamp rxe gave the packet, on another clock.)
#
# The sending QP of a flow is learned from the capture alone: rxe sends
# both directions of a QP pair from one UDP source port, so the
# destination QP of the second device's other packets (ACKs) to IP0 from
# that port is the QP that sent the data.

import argparse
import json
import os
import socket
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rt_pcap  # noqa: E402
import rt_qp  # noqa: E402  (tshark, through the relay in the VM)

OP_CNP = 0x81
OP_ACK = 0x11
# A CNP is captured this soon after the CE mark that caused it, or the
# two timestamps are not comparable and the gap check would mean nothing.
CAUSE_MAX_US = 100000


def frames(path):
    """Each frame of a pcap (Ethernet) as (time in µs, IP bytes, whole)."""
    return [(ns // 1000, ip, whole) for ns, ip, whole in rt_pcap.frames(path)]


def icrc(ip):
    """The ICRC of a RoCEv2 packet over IPv4 (@ip: IP header to the end,
    ICRC included), as the 4 bytes that go on the wire."""
    ihl = (ip[0] & 15) * 4
    m = bytearray(ip[:-4])
    m[1] = 0xff                         # TOS: DSCP and ECN
    m[8] = 0xff                         # TTL
    m[10:12] = b"\xff\xff"              # header checksum
    m[ihl + 6:ihl + 8] = b"\xff\xff"    # UDP checksum
    m[ihl + 8 + 4] = 0xff               # BTH reserved byte (FECN, BECN)
    crc = zlib.crc32(b"\xff" * 8 + bytes(m))
    return crc.to_bytes(4, "little")


def roce(ip):
    """(IP header length, BTH offset) of a RoCEv2 packet over IPv4, or
    None."""
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 17:
        return None
    ihl = (ip[0] & 15) * 4
    if len(ip) < ihl + 20 or struct.unpack(">H", ip[ihl + 2:ihl + 4])[0] \
            != 4791:
        return None
    return ihl, ihl + 8


def pkt_key(ip, r):
    """(UDP source port, BTH destination QP, PSN) of a RoCEv2 packet."""
    return (struct.unpack(">H", ip[r[0]:r[0] + 2])[0],
            int.from_bytes(ip[r[1] + 5:r[1] + 8], "big"),
            int.from_bytes(ip[r[1] + 9:r[1] + 12], "big"))


def tshark_lines(path):
    """tshark's decode of the RoCEv2 packets of @path, by frame number."""
    text = rt_qp.tshark_texts([path])[path]
    out = {}
    for line in text.splitlines():
        v = dict(zip(rt_qp.TSHARK_FIELDS, line.split("\t")))
        out[int(v["frame.number"])] = v
    return out


def check_cnp(ip, ts, ip0, ip1, flow_qp, bad, dscp=48):
    """Every field of one CNP (raw bytes; @ts: tshark's decode)."""
    def need(cond, what):
        if not cond:
            bad.append(what)

    ihl, bth = roce(ip)
    sport, dport, ulen, ucsum = struct.unpack(">HHHH", ip[ihl:ihl + 8])
    dqpn = int.from_bytes(ip[bth + 5:bth + 8], "big")
    need(ihl == 20, f"IP header length {ihl}")
    need(ip[1] == dscp << 2, f"TOS {ip[1]:#x}, not DSCP {dscp}")
    need(struct.unpack(">H", ip[2:4])[0] == 60, "IP length not 60")
    need(ip[6] & 0x40 and not (struct.unpack(">H", ip[6:8])[0] & 0x3fff),
         "not DF, or fragmented")
    need(ip[8] == 64, f"TTL {ip[8]}")
    need(ip[12:16] == ip1 and ip[16:20] == ip0, "addresses not IP1 -> IP0")
    need(dport == 4791 and ulen == 40 and ucsum == 0,
         f"UDP dport {dport} len {ulen} csum {ucsum:#x}")
    need(len(ip) == 60, f"{len(ip)} bytes captured, not 60")
    need(ip[bth] == OP_CNP and rt_qp.num(ts["infiniband.bth.opcode"])
         == OP_CNP, "opcode")
    need(ip[bth + 2:bth + 4] == b"\xff\xff" and
         rt_qp.num(ts["infiniband.bth.p_key"]) == 0xffff, "P_Key")
    # tshark prints the reserved byte in hex: BECN (0x40), FECN clear.
    need(ip[bth + 4] == 0x40 and int(ts["infiniband.reserved"], 16) == 0x40,
         f"FECN/BECN byte {ip[bth + 4]:#x} / tshark "
         f"{ts['infiniband.reserved']}")
    need(rt_qp.num(ts["infiniband.bth.destqp"]) == dqpn, "tshark destqp")
    need(int.from_bytes(ip[bth + 9:bth + 12], "big") == 0 and
         rt_qp.num(ts["infiniband.bth.psn"]) == 0, "PSN not 0")
    need(ip[bth + 12:bth + 28] == bytes(16), "reserved bytes not zero")
    need(ip[-4:] == icrc(ip), f"ICRC {ip[-4:].hex()}, computed "
         f"{icrc(ip).hex()}")
    want = flow_qp.get(sport)
    need(want is not None and want == {dqpn},
         f"sport {sport} dqpn {dqpn}: the flow's sending QP is {want}")
    return sport, dqpn


def do_check(a):
    ip0, ip1 = socket.inet_aton(a.ip0), socket.inet_aton(a.ip1)
    fr = frames(a.pcap)
    ts = tshark_lines(a.pcap)
    with open(a.stats) as f:
        st = [d for d in json.load(f) if d["dev_name"] == a.dev1][0]
    with open(a.dump) as f:
        dump = [d for d in json.load(f) if d.get("dev") == a.dev1]
    fails = []

    # The ICRC computation on rxe's own (complete) ACKs first.
    acks = [ip for _, ip, whole in fr if whole and roce(ip) and
            ip[12:16] == ip1 and ip[roce(ip)[1]] == OP_ACK]
    acks_ok = sum(ip[-4:] == icrc(ip) for ip in acks)
    print(f"# ICRC computation on rxe's ACKs: {acks_ok}/{len(acks)} agree")
    if not acks or acks_ok != len(acks):
        fails.append("the ICRC computation does not reproduce rxe's ACKs")

    # The sending QP of each flow (UDP source port), from the second
    # device's other packets to IP0.
    flow_qp = {}
    ce = ce_ts = 0
    for n, (_, ip, _) in enumerate(fr, 1):
        r = roce(ip)
        if not r:
            continue
        if ip[12:16] == ip0 and ip[16:20] == ip1 and ip[1] & 3 == 3:
            ce += 1
            ce_ts += n in ts and rt_qp.num(ts[n]["ip.dsfield.ecn"]) == 3
        if ip[12:16] == ip1 and ip[r[1]] != OP_CNP:
            sport = struct.unpack(">H", ip[r[0]:r[0] + 2])[0]
            flow_qp.setdefault(sport, set()).add(
                int.from_bytes(ip[r[1] + 5:r[1] + 8], "big"))
    if ce != ce_ts:
        fails.append(f"CE marks: {ce} by the raw bytes, {ce_ts} by tshark")

    cnps = [n for n, (_, ip, _) in enumerate(fr, 1)
            if roce(ip) and ip[roce(ip)[1]] == OP_CNP]
    cnps_ts = [n for n, v in ts.items()
               if rt_qp.num(v["infiniband.bth.opcode"]) == OP_CNP]
    if sorted(cnps_ts) != cnps:
        fails.append(f"CNPs: {len(cnps)} by the raw bytes, {len(cnps_ts)} "
                     "by tshark")
    # When each data packet left the first netdev, by (port, QP, PSN).
    sent0 = {}
    for us, ip, _ in frames(a.tx0_pcap):
        r = roce(ip)
        if r and ip[12:16] == ip0 and ip[16:20] == ip1:
            sent0.setdefault(pkt_key(ip, r), []).append(us)
    # The last CE mark of each flow (UDP source port) before each CNP, and
    # the last time it left the first netdev before the CNP.
    last_ce, cause = {}, {}
    for n, (us, ip, _) in enumerate(fr, 1):
        r = roce(ip)
        if r and ip[12:16] == ip0 and ip[16:20] == ip1 and ip[1] & 3 == 3:
            last_ce[pkt_key(ip, r)[0]] = pkt_key(ip, r)
        elif r and ip[12:16] == ip1 and ip[r[1]] == OP_CNP:
            k = last_ce.get(pkt_key(ip, r)[0])
            t = [x for x in sent0.get(k, []) if x <= us]
            cause[n] = max(t) if t else None
    bad, times, checked = [], {}, 0
    for n in cnps:
        us, ip, _ = fr[n - 1]
        if n not in ts:
            continue
        why = []
        key = check_cnp(ip, ts[n], ip0, ip1, flow_qp, why, a.cnp_dscp)
        checked += 1
        if cause.get(n) is None:
            why.append("no CE mark of its flow before it")
        elif not 0 <= us - cause[n] <= CAUSE_MAX_US:
            # Both ends of the bracket on one clock, close together.
            why.append(f"{us - cause[n]} us after the CE mark before it")
        if why:
            bad.append(f"frame {n}: " + ", ".join(why))
        times.setdefault(key, []).append((us, cause.get(n) or 0))
    print(f"# {ce} CE marks to {a.dev1}, {len(cnps)} CNPs captured, "
          f"{checked - len(bad)}/{checked} with every field and the ICRC "
          f"right, {len(times)} flows")
    for b in bad[:5]:
        print(f"#   {b}")
    if bad:
        fails.append(f"{len(bad)} CNPs with a wrong field")

    sent, failed = st["qp_np_cnp_sent"], st["qp_np_cnp_failed"]
    coal, nocnp = st["qp_np_ce_coalesced"], st["qp_np_ce_no_cnp"]
    tx_cnp = sum(d.get("tx_cnp_pkts", 0) for d in dump)
    print(f"# module: sent {sent} failed {failed} coalesced {coal} "
          f"no-cnp {nocnp}; tx_cnp_pkts of {a.dev1}'s QPs {tx_cnp}")
    if sent != len(cnps) or tx_cnp != len(cnps) or failed:
        fails.append(f"counted {sent} sent, {tx_cnp} tx_cnp_pkts, {failed} "
                     f"failed; captured {len(cnps)}")
    if not ce:
        fails.append("no CE mark was captured")
    if a.expect_none:
        # The notification point off sees no CE mark at all.
        if cnps or sent or coal or nocnp:
            fails.append("CNPs or NP counts with the notification point off")
    elif sent + failed + coal + nocnp != ce:
        fails.append(f"{sent} + {failed} + {coal} + {nocnp} CE marks "
                     f"handled, {ce} captured")
    elif not cnps:
        fails.append("no CNP was captured")

    if a.gap_us:
        # (CNP k+1 - the CE mark that caused CNP k), and CNP to CNP.
        bound = [b[0] - x[1] for t in times.values()
                 for x, b in zip(t, t[1:])]
        gaps = [b[0] - x[0] for t in times.values()
                for x, b in zip(t, t[1:])]
        low = min(bound) if bound else None
        delay = [b[0] - b[1] for t in times.values() for b in t]
        print(f"# from a CE mark to its CNP: {min(delay)} to {max(delay)} us"
              " (capture timestamps)")
        print(f"# gap {a.gap_us} us: {len(bound)} pairs of consecutive CNPs "
              f"of one QP; from the CE mark that caused the first to the "
              f"second at least {low} us; CNP to CNP at least "
              f"{min(gaps) if gaps else None} us (capture timestamps)")
        if not bound:
            fails.append("no two CNPs of one QP: the gap was not exercised")
        elif low < a.gap_us - 1:
            fails.append(f"a CNP {low} us after the CE mark that caused "
                         "the previous CNP of its QP")
        if not coal:
            fails.append("no CE mark was coalesced within the gap")
    for f in fails:
        print(f"# FAIL: {f}")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["check"])
    for o in ("pcap", "tx0-pcap", "ip0", "ip1", "stats", "dump", "dev1"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--gap-us", type=int, default=0)
    ap.add_argument("--cnp-dscp", type=int, default=48)
    ap.add_argument("--expect-none", action="store_true")
    sys.exit(do_check(ap.parse_args()))


if __name__ == "__main__":
    main()
