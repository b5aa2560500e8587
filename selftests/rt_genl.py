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
  rt_genl.py loop STOPFILE CMD [ATTR:TYPE:VALUE ...] [--dump]
      the request back to back until the file STOPFILE exists; prints
      {"ready": true} after the first answer, then at the end one JSON
      object: {"sent": S, "answered": A, "results": [{"errno": N,
      "errname": "...", "msg": "...", "bad_attr": "...", "count": C},
      ...]} (each distinct answer and how often it came); a request left
      unanswered for 20 s ends the loop (then A is S - 1)
  rt_genl.py listen SECS
      join the "events" group for SECS seconds; one JSON per event:
      {"event": TYPE, "dev": NAME, "port": N, "attrs": [NAMES]}
  rt_genl.py spec-check
      compare the YNL spec with the kernel's family: version, commands
      (do, dump, admin-perm), groups, and each command's policy
      (CTRL_CMD_GETPOLICY: attributes accepted, types, ranges); one line
      per difference, exit 1 when there is one

Command and attribute numbers, names and types come from the family's
YNL spec, Documentation/netlink/specs/rocetune.yaml (rt_ynl.py), which
scripts/spec-check.py keeps equal to the uapi header.

An error whose extack names an attribute of the request adds "bad_attr",
its name (DEV_NAME).  With --attrs, "attrs" lists the attribute names of each reply (and
"QP.NAME" for those nested in ROCETUNE_A_QP).  A dump's result has "intr":
true when a message of it carried NLM_F_DUMP_INTR (the dumped objects
changed between two parts of it); with --pause-cmd CMD, the shell command
CMD runs after the request is sent, before the first recv() of the reply
(the kernel fills a dump's first part when the request is sent, its next
ones as they are read).
"""

import json
import os
import socket
import struct
import sys
import time

from rt_ynl import (NETLINK_ADD_MEMBERSHIP, NLM_F_ACK, NLM_F_DUMP,
                    NLM_F_REQUEST, SOL_NETLINK, Genl, kernel_problems, load,
                    nla, parse_attrs)

# Numbers and names from the YNL spec (Documentation/netlink/specs/
# rocetune.yaml, which scripts/spec-check.py keeps equal to the uapi
# header), in the header's spelling: DEV_NAME, dev_get.
SPEC = load()
TOP_SET = SPEC.sets["rocetune"]


def c_names(aset):
    """{NAME: value} of an attribute set, NAME as in the header without
    the set's prefix."""
    return {a.name.upper().replace("-", "_"): a.value
            for a in aset.attrs.values()}


CMDS = {"unspec": 0}
CMDS.update({o.name.replace("-", "_"): o.value for o in SPEC.ops.values()})
ATTRS = c_names(TOP_SET)
ATTR_NAMES = {v: k for k, v in ATTRS.items()}
QP_ATTR_NAMES = {v: k for k, v in c_names(SPEC.sets["qp"]).items()}
EVENT_NAMES = {v: k.replace("-", "_")
               for k, v in SPEC.enums["event"].items()}


def attr_names(r):
    """The attribute names of one reply, with QP.NAME for a QP's."""
    names = [ATTR_NAMES.get(t, str(t)) for t in sorted(r)]
    if ATTRS["QP"] in r:
        names += ["QP." + QP_ATTR_NAMES.get(t, str(t))
                  for t in sorted(parse_attrs(r[ATTRS["QP"]]))]
    return names


def encode(arg):
    """One ATTR:TYPE:VALUE argument as an attribute, of the TYPE given
    (not the spec's: requests may be wrong on purpose)."""
    atype, typ, value = arg.split(":", 2)
    atype = ATTRS[atype] if atype in ATTRS else int(atype)
    if typ == "str":
        return nla(atype, value.encode() + b"\0")
    fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[typ]
    return nla(atype, struct.pack(fmt, int(value, 0)))


def reply_name(d):
    """DEV or DEV/PORT of a decoded reply or event, or None."""
    if "dev-name" not in d:
        return None
    if "port-index" in d:
        return "%s/%d" % (d["dev-name"], d["port-index"])
    return d["dev-name"]


def bad_attr(payload, offs):
    """The name of the attribute at offset @offs of the request whose
    attributes are @payload (after the netlink and genetlink headers)."""
    off = 0
    while off + 4 <= len(payload):
        alen, atype = struct.unpack_from("=HH", payload, off)
        if off + 20 == offs:
            return ATTR_NAMES.get(atype, str(atype))
        if alen < 4:
            break
        off += (alen + 3) & ~3
    return "offset %d" % offs


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
    g.send(fam, flags, CMDS[argv[0]], payload, SPEC.version)
    err, msg, replies, recvs = g.recv_all(pause_cmd)
    decoded = [SPEC.decode(TOP_SET.name, r) for r in replies]
    names = [n for n in map(reply_name, decoded) if n is not None]
    res = {"errno": err, "errname": os.strerror(err) if err else "",
           "msg": msg, "replies": len(replies), "recvs": recvs,
           "names": names, "intr": g.intr}
    if g.bad_offs is not None:
        res["bad_attr"] = bad_attr(payload, g.bad_offs)
    # Port rates, decoded here (by the spec) independently of the CLI.
    rates = [{str(k).replace("-", "_"): v for k, v in d["rates"].items()}
             for d in decoded if "rates" in d]
    if rates:
        res["rates"] = rates
    if with_attrs:
        res["attrs"] = [attr_names(parse_attrs(r)) for r in replies]
    return res


def listen(secs):
    """Print the events of the "events" group for @secs seconds."""
    g = Genl()
    grp = g.family(SPEC.name, SPEC.ops["event"].mcgrp)
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
            body = data[off + 20:off + mlen]
            d = SPEC.decode(TOP_SET.name, body)
            ev = {"attrs": attr_names(parse_attrs(body))}
            if "event-type" in d:
                ev["event"] = EVENT_NAMES.get(d["event-type"],
                                              d["event-type"])
            if "dev-name" in d:
                ev["dev"] = d["dev-name"]
            if "port-index" in d:
                ev["port"] = d["port-index"]
            print(json.dumps(ev), flush=True)
            off += (mlen + 3) & ~3


def loop(stopfile, argv):
    """The request @argv back to back until @stopfile exists, for races
    with something the caller does meanwhile; prints the count of each
    distinct answer (errno and extack message)."""
    g = Genl()
    fam = g.family(SPEC.name)
    sent = answered = 0
    counts = {}
    while not os.path.exists(stopfile):
        sent += 1
        try:
            res = request(g, fam, list(argv))
        except socket.timeout:
            break
        answered += 1
        key = (res["errno"], res["errname"], res["msg"],
               res.get("bad_attr", ""))
        counts[key] = counts.get(key, 0) + 1
        if answered == 1:
            print(json.dumps({"ready": True}), flush=True)
    print(json.dumps({"sent": sent, "answered": answered,
                      "results": [{"errno": k[0], "errname": k[1],
                                   "msg": k[2], "bad_attr": k[3],
                                   "count": c}
                                  for k, c in sorted(counts.items())]}),
          flush=True)
    return 0


def main(argv):
    if argv == ["spec-check"]:
        problems = kernel_problems(SPEC, Genl())
        for p in problems:
            print("spec-check: " + p)
        print("spec-check: %d commands, %d problems"
              % (len(SPEC.ops), len(problems)))
        return 1 if problems else 0
    if argv[:1] == ["listen"] and len(argv) == 2:
        return listen(float(argv[1]))
    if argv[:1] == ["repeat"] and len(argv) > 2:
        # The same request over and over for SECS seconds, 20 ms apart;
        # one JSON result per line with its CLOCK_BOOTTIME in ms ("t_ms",
        # the clock of /proc/uptime).
        g = Genl()
        fam = g.family(SPEC.name)
        end = time.monotonic() + float(argv[1])
        while time.monotonic() < end:
            res = request(g, fam, argv[2:])
            res["t_ms"] = int(time.clock_gettime(time.CLOCK_BOOTTIME) * 1000)
            print(json.dumps(res), flush=True)
            time.sleep(0.02)
        return 0
    if argv[:1] == ["loop"] and len(argv) > 2:
        return loop(argv[1], argv[2:])
    if argv[:1] == ["batch"]:
        # One request per line of stdin, one JSON result per line.
        g = Genl()
        fam = g.family(SPEC.name)
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
    fam = g.family(SPEC.name)
    print(json.dumps(request(g, fam, argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
