#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_forge.py - RoCEv2 packets from a plain UDP socket, as any process on
# a host (or a peer on the wire) can send them: valid ones, which software
# RoCE takes exactly as if its peer had sent them, and forged ones of each
# kind that it drops.  Needs no privilege: the tests run it as an
# unprivileged user.
#
#   rt_forge.py --src ADDR --dst ADDR {--qpn N[,N...|A-B] | --qpn-file PATH}
#       [--opcode OP] [--kind valid|bare|icrc|pkey|tver] [--count N]
#       [--ecn 0..3] [--sport PORT] [--interval-us US] [--psn N]
#       [--ifname NETDEV]
#
# With --qpn-file, it starts, binds its socket, prints "waiting for PATH"
# and waits for PATH to hold the QP numbers, one line in --qpn's syntax: a test starts its
# forgers before the traffic whose QP numbers they need, so that they
# send as soon as the test knows them, not after a Python start-up on an
# emulated CPU.
# Each packet goes from SRC (bound, port SPORT) to DST port 4791, over
# IPv6 when SRC is an IPv6 address (a link-local one on NETDEV); the
# kernel builds the IP header (IPv4, DF, IP ID 0: path MTU discovery is
# forced on, and an unconnected socket's DF packets carry ID 0), so the
# ICRC is computed here over the header it will send: the InfiniBand
# Architecture Specification's definition (Annex A17), with Python's zlib
# for the CRC-32, the variant fields (TOS, TTL, IP and UDP checksums, the
# BTH's reserved byte) set to ones.  Opcodes: 0x04 RC SEND only (no
# payload; rxe answers it with an RNR NAK when no receive is posted), 0x64
# UD SEND only (DETH with Q_Key 0x11111111, rt_qpair's), 0x11 ACK, 0x81 CNP
# (BECN, 16 reserved bytes).  Kinds: "valid"; "bare": the BTH alone, 12
# bytes, no ICRC; "icrc": full length with a wrong ICRC; "pkey": P_Key
# 0x1234 with a right ICRC; "tver": BTH version 1.  Prints "sent N" when
# done.

import argparse
import socket
import sys
import time
import zlib

OP_RC_SEND_ONLY = 0x04
OP_ACK = 0x11
OP_UD_SEND_ONLY = 0x64
OP_CNP = 0x81
QKEY = 0x11111111
# Linux <netinet/in.h>: IP_MTU_DISCOVER, IP_PMTUDISC_DO.
IP_MTU_DISCOVER = 10
IP_PMTUDISC_DO = 2


def icrc(ip):
    """The ICRC of an IPv4 RoCEv2 packet (@ip: from the IP header to the
    byte before the ICRC), as the 4 bytes that go on the wire."""
    m = bytearray(ip)
    m[1] = 0xff                         # TOS
    m[8] = 0xff                         # TTL
    m[10:12] = b"\xff\xff"              # header checksum
    m[26:28] = b"\xff\xff"              # UDP checksum
    m[32] = 0xff                        # BTH: FECN, BECN, reserved
    return zlib.crc32(b"\xff" * 8 + bytes(m)).to_bytes(4, "little")


def icrc6(ip):
    """The ICRC of an IPv6 RoCEv2 packet (@ip: from the IPv6 header to the
    byte before the ICRC): traffic class, flow label and hop limit are the
    variant fields of the IPv6 header."""
    m = bytearray(ip)
    m[0:4] = bytes([0x6f, 0xff, 0xff, 0xff])    # version 6, TC, flow label
    m[7] = 0xff                                 # hop limit
    m[46:48] = b"\xff\xff"                      # UDP checksum
    m[52] = 0xff                                # BTH: FECN, BECN, reserved
    return zlib.crc32(b"\xff" * 8 + bytes(m)).to_bytes(4, "little")


def payload(opcode, qpn, kind, psn=0, sqpn=0x10):
    """The UDP payload (BTH to ICRC) of one packet, without the ICRC when
    @kind is "bare"; the ICRC is filled in by datagram()."""
    pkey = 0x1234 if kind == "pkey" else 0xffff
    tver = 1 if kind == "tver" else 0
    becn = 0x40 if opcode == OP_CNP else 0
    bth = bytes([opcode, tver, pkey >> 8, pkey & 0xff, becn]) + \
        qpn.to_bytes(3, "big") + bytes(1) + (psn & 0xffffff).to_bytes(3, "big")
    if kind == "bare":
        return bth
    if opcode == OP_CNP:
        ext = bytes(16)
    elif opcode == OP_UD_SEND_ONLY:
        ext = QKEY.to_bytes(4, "big") + bytes(1) + sqpn.to_bytes(3, "big")
    elif opcode == OP_ACK:
        ext = bytes(4)                  # AETH: ACK, MSN 0
    else:
        ext = b""
    return bth + ext + bytes(4)         # ICRC placeholder


def datagram(src, dst, sport, opcode, qpn, kind, psn=0, sqpn=0x10):
    """The UDP payload to send, with its ICRC (@sqpn: a UD packet's DETH
    source QP)."""
    p = payload(opcode, qpn, kind, psn, sqpn)
    if kind == "bare":
        return p
    ulen = 8 + len(p)
    udp = sport.to_bytes(2, "big") + (4791).to_bytes(2, "big") + \
        ulen.to_bytes(2, "big") + bytes(2)
    if ":" in src:
        ip = bytes([0x60, 0, 0, 0]) + ulen.to_bytes(2, "big") + \
            bytes([17, 64]) + socket.inet_pton(socket.AF_INET6, src) + \
            socket.inet_pton(socket.AF_INET6, dst) + udp
        c = icrc6(ip + p[:-4])
    else:
        ip = bytes([0x45, 0]) + (20 + ulen).to_bytes(2, "big") + \
            bytes(2) + b"\x40\x00" + bytes([64, 17]) + bytes(2) + \
            socket.inet_aton(src) + socket.inet_aton(dst) + udp
        c = icrc(ip + p[:-4])
    if kind == "icrc":
        c = bytes(b ^ 0x5a for b in c)
    return p[:-4] + c


def qpns(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a, 0), int(b, 0) + 1))
        else:
            out.append(int(part, 0))
    return out


def wait_qpns(path):
    """The QP numbers of PATH, once it holds a whole line."""
    print(f"waiting for {path}", flush=True)
    while True:
        try:
            with open(path) as f:
                line = f.read()
            if line.endswith("\n"):
                return qpns(line.strip())
        except FileNotFoundError:
            pass
        time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--qpn", type=qpns)
    which.add_argument("--qpn-file")
    ap.add_argument("--opcode", type=lambda v: int(v, 0),
                    default=OP_RC_SEND_ONLY)
    ap.add_argument("--kind", default="valid",
                    choices=["valid", "bare", "icrc", "pkey", "tver"])
    ap.add_argument("--count", type=int, default=1,
                    help="rounds over the QP numbers")
    ap.add_argument("--ecn", type=int, default=0, choices=range(4))
    ap.add_argument("--sport", type=int, default=0)
    ap.add_argument("--interval-us", type=int, default=0)
    ap.add_argument("--psn", type=lambda v: int(v, 0), default=0)
    ap.add_argument("--ifname", help="the interface of a link-local --src")
    args = ap.parse_args()

    if ":" in args.src:
        # IPv6 (a link-local address needs --ifname): no fragmentation of
        # IPv6 by a router, and the ECN bits are the traffic class's low
        # two.
        so = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        so.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, args.ecn)
        scope = socket.if_nametoindex(args.ifname) if args.ifname else 0
        src = (args.src, args.sport, 0, scope)
        dst = (args.dst, 4791, 0, scope)
    else:
        so = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        so.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        so.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.ecn)
        src = (args.src, args.sport)
        dst = (args.dst, 4791)
    # Several senders of one test share the port the captures look for.
    so.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    so.bind(src)
    sport = so.getsockname()[1]
    if args.qpn_file:
        args.qpn = wait_qpns(args.qpn_file)
    pkts = [datagram(args.src, args.dst, sport, args.opcode, q, args.kind,
                     args.psn) for q in args.qpn]
    n = 0
    start = time.monotonic()
    for _ in range(args.count):
        for p in pkts:
            so.sendto(p, dst)
            n += 1
            if args.interval_us:
                delay = start + n * args.interval_us / 1e6 - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
    print(f"sent {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
