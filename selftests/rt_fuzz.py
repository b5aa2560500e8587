#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Seeded fuzzer of the "rocetune" generic netlink family (netlink_fuzz.sh).

  rt_fuzz.py SEED N [--dump-rounds R] [--abandon A] [--sockets S]

Sends N malformed and random messages to the family, one at a time, each
with NLM_F_ACK so that every one is answered; then R rounds of S dumps
read side by side from S sockets with small receive buffers, and A dumps
abandoned half-read (the socket closed after 0, 1 or 2 reads).  The same
SEED and N send the same messages.

Every message is built from the YNL spec's description of the protocol
(the command and attribute numbers and types, which
scripts/spec-check.py holds equal to the uapi header), never from the
module's policies.  Mutations: attributes of the wrong type or length, truncated
(nla_len past the end, below 4, the message cut inside an attribute),
oversized (strings past any name length, 16 KiB payloads, messages of up
to 60 KiB), nesting abuse (the NESTED flag on scalars, nests of random
attributes, 64 levels deep), random attribute numbers, unknown commands
(0, EVENT, past the last), NLM_F_DUMP on do-commands and the reverse,
partial dump flags, a genl header cut short, a missing NLM_F_REQUEST,
odd version/reserved bytes.

Per message it records the answer: success, an error with an extack
message (NLMSGERR_ATTR_MSG), or an error without one.  An error without
one is either the genetlink core's own refusal before the family sees the
message (a command or a do/dump handler the family does not have, a
missing CAP_NET_ADMIN, a header shorter than struct genlmsghdr), which is
predicted from the command, the flags and the caller alone and listed as
such, or a finding.  Prints "# " lines and, last, one JSON object:
{"seed", "n", "secs", "answers": {...}, "core_no_extack": {KEY: count},
 "missing_extack": [{"key", "count", "examples": [...]}],
 "state_changes": [...] (unprivileged caller only: a set accepted or
 refused with anything but EPERM), "hangs": [...], "dumps": {...}}.
"""

import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rt_genl as G  # noqa: E402
from rt_ynl import (NETLINK_CAP_ACK, NETLINK_EXT_ACK,  # noqa: E402
                    NETLINK_GENERIC, SOL_NETLINK, parse_attrs)

NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_ECHO = 0x8
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_MISS_TYPE = 5
EXTACK_TLVS = {2: "OFFS", 3: "COOKIE", 4: "POLICY", 5: "MISS_TYPE",
               6: "MISS_NEST"}
EPERM = 1
EOPNOTSUPP = 95
EINVAL = 22
ANSWER_TIMEOUT = 15


def spec_types():
    """{attr number: its type in the YNL spec} ("u32", "string", "nest")."""
    return {a.value: a.type for a in G.TOP_SET.attrs.values()
            if a.type not in ("unused", "pad")}


CMDS = dict(G.CMDS)
CMD_NAMES = {v: k for k, v in CMDS.items()}
CMD_MAX = max(CMDS.values())
ATTRS = G.ATTRS
A_MAX = max(ATTRS.values())
A_NAMES = {v: k for k, v in ATTRS.items()}
TYPES = spec_types()
QP_QPN = {v: k for k, v in G.QP_ATTR_NAMES.items()}["QPN"]
# The commands that change state (the uapi says CAP_NET_ADMIN).
SET_CMDS = {CMDS["config_set"], CMDS["qp_set"]}
# The attributes requests carry (Documentation/netlink.rst), chosen more
# often so that many messages get past the policies into the handlers.
REQ_ATTRS = [ATTRS[a] for a in (
    "DEV_INDEX", "DEV_NAME", "PORT_INDEX", "INTERVAL_MS", "STORM_MS",
    "CNP_RATE_THRESH", "ECN_RATE_THRESH", "QPN", "QPN_MIN", "QPN_MAX",
    "QP_TOP_K", "QP_TOP_BY", "QP_SINCE_GEN", "QP_TOP_SAMPLE", "QP_ACCT",
    "QP_TABLE_MAX", "QP_LINGER_MS", "QP_VERIFY_MS")]
INT_SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}


def nla_raw(atype, payload, alen=None):
    """An attribute; alen overrides nla_len (the padding stays right for
    the real payload)."""
    if alen is None:
        alen = 4 + len(payload)
    hdr = struct.pack("=HH", alen & 0xFFFF, atype & 0xFFFF)
    return hdr + payload + b"\0" * ((4 - len(payload) % 4) % 4)


class Gen:
    """Builds one random request; self.desc says what it holds."""

    def __init__(self, rng, devs, qpns):
        self.rng = rng
        self.devs = devs        # [(index, name)]
        self.qpns = qpns
        self.desc = []

    def name(self):
        r = self.rng
        c = r.random()
        if c < 0.5 and self.devs:
            return r.choice(self.devs)[1].encode()
        if c < 0.6:
            return b""
        if c < 0.75:
            return bytes(r.choice(b"abcxyz_019") for _ in range(r.choice(
                [1, 5, 63, 64, 65, 200])))
        return bytes(r.randrange(1, 256) for _ in range(r.randrange(1, 80)))

    def int_value(self, size, aname):
        r = self.rng
        top = (1 << (8 * size)) - 1
        cands = [0, 1, 2, 3, 4, 7, 8, 63, 64, 100, 999, 1000, 1001, 5000,
                 65535, 65536, 1 << 20, (1 << 24) - 1, 1 << 24, 1 << 31,
                 top - 1, top, r.randrange(0, top + 1)]
        if aname == "DEV_INDEX" and self.devs:
            cands += [d[0] for d in self.devs] * 4
        if aname.startswith("QPN") and self.qpns:
            cands += self.qpns * 2
        if aname in ("QP_TOP_BY", "PORT_INDEX", "QP_ACCT"):
            cands += list(range(0, 36))
        return r.choice(cands) & top

    def scalar(self, atype, typ):
        """A payload of the spec's type for atype."""
        aname = A_NAMES.get(atype, str(atype))
        if typ in INT_SIZES:
            size = INT_SIZES[typ]
            v = self.int_value(size, aname)
            self.desc.append("%s:%s=%d" % (aname, typ, v))
            return struct.pack("=" + "BHIQ"[[1, 2, 4, 8].index(size)], v)
        if typ == "string":
            s = self.name()
            nul = self.rng.random() < 0.85
            self.desc.append("%s:str%s=%r" % (aname, "" if nul else "(no NUL)",
                                              s[:40]))
            return s + (b"\0" if nul else b"")
        # A nest: random attributes inside.
        self.desc.append("%s:nest[" % aname)
        p = self.nest_body(self.rng.randrange(0, 4), 1)
        self.desc.append("]")
        return p

    def nest_body(self, n, depth):
        out = b""
        for _ in range(n):
            t = self.rng.randrange(0, 40)
            if depth < 64 and self.rng.random() < 0.2:
                inner = self.nest_body(1, depth + 1)
                out += nla_raw(t | NLA_F_NESTED, inner)
            else:
                out += nla_raw(t, self.rand_bytes(12))
        return out

    def rand_bytes(self, maxlen):
        return bytes(self.rng.randrange(256)
                     for _ in range(self.rng.randrange(0, maxlen + 1)))

    def attr(self):
        """One attribute, valid or mutated."""
        r = self.rng
        c = r.random()
        known = [a for a in TYPES if a > 1]
        if c < 0.55:
            # Right number, right type (values at the edges).
            a = r.choice(REQ_ATTRS if r.random() < 0.8 else known)
            return nla_raw(a, self.scalar(a, TYPES[a]))
        if c < 0.70:
            # Right number, wrong type or length.
            a = r.choice(known)
            typ = r.choice(["u8", "u16", "u32", "u64", "string", "nest",
                            "len"])
            if typ == "len":
                p = self.rand_bytes(r.choice([0, 1, 3, 5, 7, 9, 17]))
                self.desc.append("%s:len%d" % (A_NAMES[a], len(p)))
                return nla_raw(a, p)
            return nla_raw(a, self.scalar(a, typ))
        if c < 0.78:
            # Random attribute number (past the last, or anything).
            a = r.choice([0, A_MAX + 1, A_MAX + 2, 255, 0x3FFF,
                          r.randrange(0, 0x4000)])
            p = self.rand_bytes(16)
            self.desc.append("attr%d:len%d" % (a, len(p)))
            return nla_raw(a, p)
        if c < 0.86:
            # Nesting abuse: a scalar flagged NESTED, a nest of garbage, or
            # a deep chain of nests.
            a = r.choice(known)
            k = r.random()
            if k < 0.4:
                p = self.scalar(a, TYPES[a])
                self.desc.append("(flagged NESTED)")
                return nla_raw(a | NLA_F_NESTED, p)
            if k < 0.7:
                depth = r.choice([2, 8, 64])
                p = nla_raw(r.randrange(0, 40), self.rand_bytes(8))
                for _ in range(depth):
                    p = nla_raw(r.randrange(0, 40) | NLA_F_NESTED, p)
                self.desc.append("%s:nest depth %d" % (A_NAMES[a], depth))
                return nla_raw(a | NLA_F_NESTED, p)
            self.desc.append("%s:nest[" % A_NAMES[a])
            p = self.nest_body(r.randrange(1, 6), 1)
            self.desc.append("]")
            return nla_raw(a | (NLA_F_NESTED if r.random() < 0.5 else 0), p)
        if c < 0.90:
            a = r.choice(known)
            p = self.scalar(a, TYPES[a])
            self.desc.append("(flagged NET_BYTEORDER)")
            return nla_raw(a | NLA_F_NET_BYTEORDER, p)
        if c < 0.95:
            # Oversized payload.
            a = r.choice(known)
            size = r.choice([64, 65, 256, 4096, 16384])
            self.desc.append("%s:oversized %d" % (A_NAMES[a], size))
            return nla_raw(a, self.rand_bytes(64)[:1] * size)
        # A lying nla_len: past the end of its payload, or below 4.
        a = r.choice(known)
        p = self.rand_bytes(8)
        alen = r.choice([0, 1, 2, 3, 4 + len(p) + r.choice([1, 4, 100,
                                                             60000])])
        self.desc.append("%s:nla_len %d for %d bytes" % (A_NAMES[a], alen,
                                                         len(p)))
        return nla_raw(a, p, alen)

    def message(self, family, seq):
        """(bytes, cmd, flags, genl header complete)."""
        r = self.rng
        self.desc = []
        c = r.random()
        if c < 0.85:
            cmd = r.choice(sorted(CMDS.values()))
        else:
            cmd = r.choice([0, CMD_MAX + 1, CMD_MAX + 2, 100, 255])
        flags = NLM_F_REQUEST | NLM_F_ACK
        c = r.random()
        if c < 0.45:
            flags |= NLM_F_DUMP
        elif c < 0.50:
            flags |= NLM_F_ROOT
        elif c < 0.55:
            flags |= NLM_F_MATCH
        if r.random() < 0.05:
            flags |= r.choice([NLM_F_ECHO, 0x10, 0x20, 0x400, 0x800, 0x1000])
        if r.random() < 0.02:
            flags &= ~NLM_F_REQUEST
        version = 1 if r.random() < 0.95 else r.randrange(256)
        reserved = 0 if r.random() < 0.95 else r.randrange(65536)
        body = struct.pack("=BBH", cmd, version, reserved)
        n = r.choice([0, 1, 1, 1, 2, 2, 2, 3, 4, 6, 10])
        if r.random() < 0.02:
            n = r.choice([50, 200])
        attrs = b"".join(self.attr() for _ in range(n))
        if r.random() < 0.03:
            # Duplicates of the same attribute.
            a = r.choice([a for a in TYPES if a > 1])
            one = nla_raw(a, self.scalar(a, TYPES[a]))
            attrs += one * r.choice([2, 3, 30])
            self.desc.append("(duplicated)")
        c = r.random()
        if c < 0.06 and attrs:
            cut = r.randrange(1, min(len(attrs), 8) + 1)
            attrs = attrs[:-cut]
            self.desc.append("(cut %d bytes)" % cut)
        elif c < 0.09:
            attrs += self.rand_bytes(3)[:max(1, r.randrange(1, 4))]
            self.desc.append("(trailing garbage)")
        body += attrs
        if len(body) > 60000:
            body = body[:60000]
            self.desc.append("(cut to 60000)")
        complete = True
        if r.random() < 0.02:
            body = body[:r.randrange(0, 4)]
            complete = False
            self.desc.append("(genl header %d bytes)" % len(body))
        hdr = struct.pack("=IHHII", 16 + len(body), family, flags, seq, 0)
        # The genetlink core's header check refuses (EINVAL, with its
        # extack) a nonzero reserved field and flags other than these
        # before it looks at the caller's capabilities.
        plain = complete and reserved == 0 and \
            flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO) == 0
        return hdr + body, cmd, flags, complete, plain


def sock(rcvbuf=None):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((0, 0))
    s.settimeout(ANSWER_TIMEOUT)
    return s


def parse_final(mtype, mflags, body):
    """(errno, extack message or None, [other extack TLV names]) of an
    NLMSG_ERROR/NLMSG_DONE."""
    err = -struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
    msg = None
    other = []
    if mflags & NLM_F_ACK_TLVS:
        off = 4
        if mtype == NLMSG_ERROR:
            # The original request's header (CAP_ACK: header only).
            off = 4 + 16
            if not mflags & NLM_F_CAPPED:
                off = 4 + struct.unpack_from("=I", body, 4)[0]
                off = (off + 3) & ~3
        tlvs = G.parse_attrs(body[off:])
        if NLMSGERR_ATTR_MSG in tlvs:
            msg = tlvs[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode(
                errors="replace")
        for t, v in sorted(tlvs.items()):
            if t == NLMSGERR_ATTR_MISS_TYPE and len(v) >= 4:
                a = struct.unpack_from("=I", v)[0]
                other.append("MISS_TYPE=%s" % A_NAMES.get(a, a))
            elif t != NLMSGERR_ATTR_MSG:
                other.append(EXTACK_TLVS.get(t, "tlv%d" % t))
    return err, msg, other


class Reader:
    """Reads the answer to one request on a socket, a datagram at a time."""

    def __init__(self, s, seq):
        self.s, self.seq = s, seq
        self.replies = 0
        self.done = False
        self.err = None
        self.msg = None
        self.other = []
        self.final = None

    def step(self):
        data = self.s.recv(1 << 17)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, mflags, mseq, _ = struct.unpack_from("=IHHII",
                                                              data, off)
            if mlen < 16:
                break
            if mseq == self.seq:
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    self.err, self.msg, self.other = parse_final(
                        mtype, mflags, data[off + 16:off + mlen])
                    self.final = "error" if mtype == NLMSG_ERROR else "done"
                    self.done = True
                else:
                    self.replies += 1
            off += (mlen + 3) & ~3
        return self.done


def ask(s, data, seq):
    rd = Reader(s, seq)
    s.send(data)
    while not rd.step():
        pass
    return rd


def family_id():
    g = G.Genl()
    fam = g.family("rocetune")
    g.sock.close()
    return fam


def dump(fam, cmd):
    """(errno, [parsed replies]) of a plain dump of CMD."""
    g = G.Genl()
    g.send(fam, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, CMDS[cmd], b"")
    err, _, replies, _ = g.recv_all()
    g.sock.close()
    return err, [parse_attrs(r) for r in replies]


def devices(fam):
    """[(index, name)] of DEV_GET's dump."""
    err, replies = dump(fam, "dev_get")
    if err:
        raise OSError(err, "DEV_GET dump failed")
    out = []
    for rep in replies:
        if ATTRS["DEV_INDEX"] in rep and ATTRS["DEV_NAME"] in rep:
            out.append((struct.unpack("=I", rep[ATTRS["DEV_INDEX"]][:4])[0],
                        rep[ATTRS["DEV_NAME"]].rstrip(b"\0").decode()))
    return out


def qpns(fam):
    """The QP numbers of QP_GET's dump."""
    err, replies = dump(fam, "qp_get")
    out = set()
    for rep in replies if not err else []:
        qp = parse_attrs(rep.get(ATTRS["QP"], b""))
        if QP_QPN in qp:
            out.add(struct.unpack("=I", qp[QP_QPN][:4])[0])
    return sorted(out)


def is_dump(flags):
    return flags & NLM_F_DUMP == NLM_F_DUMP


def probe(s, fam, cmd, dump, seq):
    """The answer to CMD with no attributes: (errno, extack)."""
    flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
    hdr = struct.pack("=IHHII", 20, fam, flags, seq, 0)
    rd = ask(s, hdr + struct.pack("=BBH", cmd, 1, 0), seq)
    return rd.err, rd.msg


def core_refusal(probes, cmd, flags, complete, err):
    """Why the genetlink core, not the family, refuses this message without
    an extack message, or None when it is not the core's refusal."""
    if not complete:
        return "genl header shorter than 4 bytes" if err == EINVAL else None
    known = (cmd, is_dump(flags))
    p = probes.get(known)
    if p and p[1] is None and p[0] in (EOPNOTSUPP, EPERM) and err == p[0]:
        if err == EPERM:
            return "no CAP_NET_ADMIN"
        return "no %s handler" % ("dump" if known[1] else "do")
    return None


def key_of(cmd, flags, err):
    return "%s %s %s" % (CMD_NAMES.get(cmd, "cmd%d" % cmd),
                         "dump" if is_dump(flags) else "do",
                         os.strerror(err) if err else "ok")


def fuzz(rng, fam, devs, qps, n, unpriv, out):
    s = sock()
    seq = 1000
    probes = {}
    for cmd in sorted(set(CMDS.values()) | {0, CMD_MAX + 1, CMD_MAX + 2,
                                              100, 255}):
        for dump in (False, True):
            seq += 1
            probes[(cmd, dump)] = probe(s, fam, cmd, dump, seq)
    out["probes"] = {key_of(c, NLM_F_DUMP if d else 0, v[0]):
                     v[1] for (c, d), v in probes.items()}
    answers = {"ok": 0, "sets_done": 0, "error_extack": 0, "error_core": 0,
               "error_no_extack": 0, "replies": 0}
    errnos = {}
    core = {}
    missing = {}
    state = []
    hangs = []
    gen = Gen(rng, devs, qps)
    for i in range(n):
        seq += 1
        data, cmd, flags, complete, plain = gen.message(fam, seq)
        try:
            rd = ask(s, data, seq)
        except socket.timeout:
            hangs.append({"i": i, "desc": " ".join(gen.desc),
                          "hex": data.hex()})
            s.close()
            s = sock()
            continue
        except OSError as e:
            # A message the socket refuses to send: not the family's.
            errnos["send " + os.strerror(e.errno)] = \
                errnos.get("send " + os.strerror(e.errno), 0) + 1
            continue
        answers["replies"] += rd.replies
        err = rd.err or 0
        k = key_of(cmd, flags, err)
        errnos[os.strerror(err) if err else "ok"] = \
            errnos.get(os.strerror(err) if err else "ok", 0) + 1
        ex = {"flags": "0x%x" % flags, "attrs": " ".join(gen.desc),
              "final": rd.final, "msg": rd.msg, "extack": rd.other,
              "hex": data.hex()[:400]}
        # As user 65534: a set is never done, and a request that passes the
        # core's header check is refused with EPERM.
        if unpriv and cmd in SET_CMDS and flags & NLM_F_REQUEST and \
                not is_dump(flags) and complete and \
                (err == 0 or (plain and err != EPERM)):
            state.append(dict(ex, key=k))
        if err == 0:
            answers["ok"] += 1
            if cmd in SET_CMDS and complete and flags & NLM_F_REQUEST:
                answers["sets_done"] += 1
        elif rd.msg:
            answers["error_extack"] += 1
        else:
            why = core_refusal(probes, cmd, flags, complete, err)
            if why:
                answers["error_core"] += 1
                ck = "%s: %s" % (k, why)
                core[ck] = core.get(ck, 0) + 1
            else:
                answers["error_no_extack"] += 1
                if rd.other:
                    k += " (extack: %s)" % ", ".join(rd.other)
                m = missing.setdefault(k, {"key": k, "count": 0,
                                           "examples": []})
                m["count"] += 1
                if len(m["examples"]) < 3:
                    m["examples"].append(ex)
    s.close()
    out.update(answers=answers, errnos=errnos, core_no_extack=core,
               missing_extack=sorted(missing.values(),
                                     key=lambda m: -m["count"]),
               state_changes=state[:20], n_state_changes=len(state),
               hangs=hangs[:20], n_hangs=len(hangs))


def dump_request(rng, fam, devs, seq):
    cmd = rng.choice([CMDS["dev_get"], CMDS["port_get"], CMDS["qp_get"],
                      CMDS["qp_stats_get"]])
    attrs = b""
    if devs and rng.random() < 0.3:
        attrs += nla_raw(ATTRS["DEV_NAME"], rng.choice(devs)[1].encode() +
                         b"\0")
    if cmd == CMDS["qp_get"] and rng.random() < 0.3:
        attrs += nla_raw(ATTRS["QP_TOP_K"], struct.pack("=I",
                                                        rng.choice([1, 5])))
    body = struct.pack("=BBH", cmd, 1, 0) + attrs
    return struct.pack("=IHHII", 16 + len(body), fam,
                       NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, seq,
                       0) + body, cmd


def dumps(rng, fam, devs, rounds, nsock, abandon, out):
    """Dumps read side by side, and dumps abandoned half-read."""
    res = {"rounds": rounds, "sockets": nsock, "completed": 0,
           "failed": [], "n_failed": 0, "n_failed_no_extack": 0,
           "abandoned": 0, "hangs": 0, "max_recvs": 0}
    seq = 50000
    for _ in range(rounds):
        readers = []
        for _ in range(nsock):
            seq += 1
            s = sock(rcvbuf=rng.choice([2048, 4096, 8192]))
            data, cmd = dump_request(rng, fam, devs, seq)
            s.send(data)
            rd = Reader(s, seq)
            rd.cmd = cmd
            rd.recvs = 0
            readers.append(rd)
        live = list(readers)
        while live:
            for rd in list(live):
                try:
                    rd.recvs += 1
                    if rd.step():
                        live.remove(rd)
                except socket.timeout:
                    res["hangs"] += 1
                    live.remove(rd)
        for rd in readers:
            rd.s.close()
            res["max_recvs"] = max(res["max_recvs"], rd.recvs)
            if rd.done and (rd.err or 0) == 0:
                res["completed"] += 1
            elif rd.done:
                res["n_failed"] += 1
                res["n_failed_no_extack"] += rd.msg is None
                if len(res["failed"]) < 10:
                    res["failed"].append({"cmd": CMD_NAMES[rd.cmd],
                                          "errno": rd.err, "msg": rd.msg})
    for _ in range(abandon):
        seq += 1
        s = sock(rcvbuf=2048)
        data, _ = dump_request(rng, fam, devs, seq)
        s.send(data)
        rd = Reader(s, seq)
        for _ in range(rng.choice([0, 1, 2])):
            if rd.step():
                break
        s.close()
        res["abandoned"] += 1
    out["dumps"] = res


def main(argv):
    opts = {"--dump-rounds": 3, "--abandon": 200, "--sockets": 16}
    args = []
    i = 0
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = int(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    seed, n = int(args[0]), int(args[1])
    rng = random.Random(seed)
    unpriv = os.geteuid() != 0
    t0 = time.monotonic()
    fam = family_id()
    devs = devices(fam)
    qps = qpns(fam)
    out = {"seed": seed, "n": n, "uid": os.geteuid(), "devices": devs,
           "qpns": qps}
    fuzz(rng, fam, devs, qps, n, unpriv, out)
    out["fuzz_secs"] = round(time.monotonic() - t0, 1)
    dumps(rng, fam, devs, opts["--dump-rounds"], opts["--sockets"],
          opts["--abandon"], out)
    out["secs"] = round(time.monotonic() - t0, 1)
    for m in out["missing_extack"]:
        print("# missing extack message: %s: %d messages, e.g. flags %s %s" %
              (m["key"], m["count"], m["examples"][0]["flags"],
               m["examples"][0]["attrs"]))
    for k, v in sorted(out["core_no_extack"].items()):
        print("# genetlink core refusal without extack: %s: %d" % (k, v))
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
