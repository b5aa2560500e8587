#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_pcap.py: the frames of a pcap file (Ethernet), read here, for the
# oracles of the selftests and the benchmarks: microsecond or nanosecond
# stamps, either byte order.
import struct


def frames(path):
    """Each frame of @path as (time in ns, IPv4 bytes or b"", whole)."""
    out = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise RuntimeError(f"{path}: no pcap header")
        magic = struct.unpack("<I", hdr[:4])[0]
        e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        magic = struct.unpack(e + "I", hdr[:4])[0]
        if magic not in (0xa1b2c3d4, 0xa1b23c4d):
            raise RuntimeError(f"{path}: not a pcap file")
        scale = 1 if magic == 0xa1b23c4d else 1000
        if struct.unpack(e + "I", hdr[20:24])[0] != 1:
            raise RuntimeError(f"{path}: not an Ethernet capture")
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return out
            sec, frac, incl, orig = struct.unpack(e + "IIII", rh)
            frame = f.read(incl)
            ip = frame[14:] if frame[12:14] == b"\x08\x00" else b""
            out.append((sec * 1000000000 + frac * scale, ip, incl == orig))
