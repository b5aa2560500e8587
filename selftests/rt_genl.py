#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Minimal raw generic netlink client for the rocetune selftests.

It sends requests the CLI would never build (unknown attributes, wrong
types, out-of-range values) and reports the kernel's errno and extack
message, and it dumps with a small receive buffer to check that a dump
split over several recv() calls is complete.

  rt_genl.py req CMD [ATTR:TYPE:VALUE ...] [--dump]
      ATTR is a name of enum rocetune_attr without ROCETUNE_A_ (DEV_NAME)
      or a number; TYPE is u8, u16, u32, u64 or str; prints one JSON object:
      {"errno": N, "msg": "...", "replies": R, "recvs": K, "names": [...]}
  rt_genl.py batch < REQUESTS
      one "CMD [ATTR:TYPE:VALUE ...] [--dump]" per line, one JSON per line;
      port replies add "rates": [{"rx_ecn_ce_pkts": N, ...}, ...]
  rt_genl.py repeat SECS CMD [ATTR:TYPE:VALUE ...] [--dump]
      the request every 20 ms for SECS seconds, one JSON per line with
      "t_ms", the CLOCK_BOOTTIME of the reply in ms
  rt_genl.py listen SECS
      join the "events" group for SECS seconds; one JSON per event:
      {"event": TYPE, "dev": NAME, "port": N, "attrs": [NAMES]}

With --attrs, "attrs" lists the attribute names of each reply (and
"QP.NAME" for those nested in ROCETUNE_A_QP).  A dump's result has "intr":
true when a message of it carried NLM_F_DUMP_INTR (the dumped objects
changed between two parts of it); with --pause-cmd CMD, the shell command
CMD runs after the request is sent, before the first recv() of the reply
(the kernel fills a dump's first part when the request is sent, its next
ones as they are read).
"""

import json
import os
import re
import socket
import struct
import subprocess
import sys
import time

NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
NETLINK_CAP_ACK = 10
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLM_F_DUMP = 0x300
NLM_F_DUMP_INTR = 0x10
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLM_F_ACK_TLVS = 0x200

UAPI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kmod",
                    "include", "uapi", "linux", "rocetune.h")


def uapi_enum(name, prefix):
    """{NAME: value} of enum NAME in the uapi header (no explicit values)."""
    text = open(UAPI).read()
    body = re.search(r"enum %s \{(.*?)\};" % name, text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    values = {}
    for i, ident in enumerate(re.findall(r"(\w+)\s*[,=]", body)):
        if ident.startswith("__"):
            break
        values[ident[len(prefix):]] = i
    return values


CMDS = {k.lower(): v for k, v in uapi_enum("rocetune_cmd", "ROCETUNE_CMD_").items()}
ATTRS = uapi_enum("rocetune_attr", "ROCETUNE_A_")
ROCETUNE_A_DEV_NAME = ATTRS["DEV_NAME"]
ROCETUNE_A_PORT_INDEX = ATTRS["PORT_INDEX"]
ROCETUNE_A_RATES = ATTRS["RATES"]
CNT_NAMES = {v: k.lower() for k, v in
             uapi_enum("rocetune_a_cnt", "ROCETUNE_A_CNT_").items()}
ATTR_NAMES = {v: k for k, v in ATTRS.items()}
QP_ATTR_NAMES = {v: k for k, v in
                 uapi_enum("rocetune_a_qp", "ROCETUNE_A_QP_").items()}
EVENT_NAMES = {v: k.lower() for k, v in
               uapi_enum("rocetune_event", "ROCETUNE_EVENT_").items()}


def attr_names(r):
    """The attribute names of one reply, with QP.NAME for a QP's."""
    names = [ATTR_NAMES.get(t, str(t)) for t in sorted(r)]
    if ATTRS["QP"] in r:
        names += ["QP." + QP_ATTR_NAMES.get(t, str(t))
                  for t in sorted(parse_attrs(r[ATTRS["QP"]]))]
    return names


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    pad = (4 - len(payload) % 4) % 4
    return hdr + payload + b"\0" * pad


def parse_attrs(data):
    attrs = {}
    off = 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        attrs.setdefault(atype & 0x3FFF, data[off + 4:off + alen])
        off += (alen + 3) & ~3
    return attrs


class Genl:
    def __init__(self, bufsize=32768):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(270, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(270, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.sock.settimeout(20)
        self.bufsize = bufsize
        self.seq = 1

    def send(self, ftype, flags, cmd, payload):
        self.seq += 1
        msg = struct.pack("=BBH", cmd, 1, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(msg), ftype, flags, self.seq, 0)
        self.sock.send(hdr + msg)

    def recv_all(self, pause_cmd=None):
        """Returns (errno, extack message, [reply attrs], recv calls);
        self.intr tells whether a message carried NLM_F_DUMP_INTR."""
        replies, recvs = [], 0
        self.intr = False
        if pause_cmd:
            subprocess.run(pause_cmd, shell=True, check=True)
        while True:
            data = self.sock.recv(self.bufsize)
            recvs += 1
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII",
                                                               data, off)
                if mflags & NLM_F_DUMP_INTR and mtype != NLMSG_ERROR:
                    self.intr = True
                body = data[off + 16:off + mlen]
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", body)[0]
                    msg = ""
                    if mflags & NLM_F_ACK_TLVS:
                        tlvs = parse_attrs(body[4 + 16:])
                        if NLMSGERR_ATTR_MSG in tlvs:
                            msg = tlvs[NLMSGERR_ATTR_MSG].rstrip(b"\0")
                            msg = msg.decode()
                    return err, msg, replies, recvs
                if mtype == NLMSG_DONE:
                    err = -struct.unpack_from("=i", body)[0] if body else 0
                    msg = ""
                    tlvs = parse_attrs(body[4:]) if mflags & NLM_F_ACK_TLVS else {}
                    if NLMSGERR_ATTR_MSG in tlvs:
                        msg = tlvs[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode()
                    return err, msg, replies, recvs
                replies.append(parse_attrs(body[4:]))
                off += (mlen + 3) & ~3

    def family(self, name, group=None):
        """The family's id, or with @group, the id of that group."""
        self.send(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY,
                  nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        err, msg, replies, _ = self.recv_all()
        if err or not replies:
            raise OSError(err, msg or "no family " + name)
        if group is None:
            return struct.unpack("=H", replies[0][CTRL_ATTR_FAMILY_ID][:2])[0]
        groups = replies[0].get(CTRL_ATTR_MCAST_GROUPS, b"")
        for g in parse_attrs(groups).values():
            ga = parse_attrs(g)
            if ga.get(CTRL_ATTR_MCAST_GRP_NAME, b"").rstrip(b"\0") == \
                    group.encode():
                return struct.unpack("=I", ga[CTRL_ATTR_MCAST_GRP_ID][:4])[0]
        raise OSError(2, "no group " + group)


def encode(spec):
    atype, typ, value = spec.split(":", 2)
    atype = ATTRS[atype] if atype in ATTRS else int(atype)
    if typ == "str":
        return nla(atype, value.encode() + b"\0")
    fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[typ]
    return nla(atype, struct.pack(fmt, int(value, 0)))


def request(g, fam, argv):
    """argv: CMD [ATTR:TYPE:VALUE ...] [--dump] [--attrs]; returns the
    result dict."""
    dump = "--dump" in argv
    with_attrs = "--attrs" in argv
    pause_cmd = None
    if "--pause-cmd" in argv:
        i = argv.index("--pause-cmd")
        pause_cmd = argv[i + 1]
        del argv[i:i + 2]
    argv = [a for a in argv if a not in ("--dump", "--attrs")]
    payload = b"".join(encode(s) for s in argv[1:])
    flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
    g.send(fam, flags, CMDS[argv[0]], payload)
    err, msg, replies, recvs = g.recv_all(pause_cmd)
    names = []
    for r in replies:
        if ROCETUNE_A_DEV_NAME in r:
            name = r[ROCETUNE_A_DEV_NAME].rstrip(b"\0").decode()
            if ROCETUNE_A_PORT_INDEX in r:
                port = struct.unpack("=I", r[ROCETUNE_A_PORT_INDEX][:4])[0]
                name += "/%d" % port
            names.append(name)
    res = {"errno": err, "errname": os.strerror(err) if err else "",
           "msg": msg, "replies": len(replies), "recvs": recvs,
           "names": names, "intr": g.intr}
    # Port rates, decoded here independently of the CLI.
    rates = [{CNT_NAMES.get(t, str(t)): struct.unpack("=Q", v[:8])[0]
              for t, v in parse_attrs(r[ROCETUNE_A_RATES]).items()
              if len(v) >= 8}
             for r in replies if ROCETUNE_A_RATES in r]
    if rates:
        res["rates"] = rates
    if with_attrs:
        res["attrs"] = [attr_names(r) for r in replies]
    return res


def listen(secs):
    """Print the events of the "events" group for @secs seconds."""
    g = Genl()
    grp = g.family("rocetune", "events")
    g.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp)
    print(json.dumps({"listening": grp}), flush=True)
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return 0
        g.sock.settimeout(left)
        try:
            data = g.sock.recv(65536)
        except socket.timeout:
            return 0
        off = 0
        while off + 16 <= len(data):
            mlen = struct.unpack_from("=I", data, off)[0]
            r = parse_attrs(data[off + 20:off + mlen])
            ev = {"attrs": attr_names(r)}
            if ATTRS["EVENT_TYPE"] in r:
                t = struct.unpack("=I", r[ATTRS["EVENT_TYPE"]][:4])[0]
                ev["event"] = EVENT_NAMES.get(t, t)
            if ATTRS["DEV_NAME"] in r:
                ev["dev"] = r[ATTRS["DEV_NAME"]].rstrip(b"\0").decode()
            if ATTRS["PORT_INDEX"] in r:
                ev["port"] = struct.unpack("=I", r[ATTRS["PORT_INDEX"]][:4])[0]
            print(json.dumps(ev), flush=True)
            off += (mlen + 3) & ~3


def main(argv):
    if argv[:1] == ["listen"] and len(argv) == 2:
        return listen(float(argv[1]))
    if argv[:1] == ["repeat"] and len(argv) > 2:
        # The same request over and over for SECS seconds, 20 ms apart;
        # one JSON result per line with its CLOCK_BOOTTIME in ms ("t_ms",
        # the clock of /proc/uptime).
        g = Genl()
        fam = g.family("rocetune")
        end = time.monotonic() + float(argv[1])
        while time.monotonic() < end:
            res = request(g, fam, argv[2:])
            res["t_ms"] = int(time.clock_gettime(time.CLOCK_BOOTTIME) * 1000)
            print(json.dumps(res), flush=True)
            time.sleep(0.02)
        return 0
    if argv[:1] == ["batch"]:
        # One request per line of stdin, one JSON result per line.
        g = Genl()
        fam = g.family("rocetune")
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(request(g, fam, line.split())))
        return 0
    bufsize = 32768
    if "--bufsize" in argv:
        i = argv.index("--bufsize")
        bufsize = int(argv[i + 1])
        del argv[i:i + 2]
    if len([a for a in argv if a not in ("--dump", "--attrs")]) < 2 or \
            argv[0] != "req":
        sys.stderr.write(__doc__)
        return 2
    g = Genl(bufsize)
    fam = g.family("rocetune")
    print(json.dumps(request(g, fam, argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
