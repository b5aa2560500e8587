#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# rt_qp.py - helper of qp_accounting.sh: read rocetune's per-QP counters
# over generic netlink, and count the same fields from packet captures.
#
#   rt_qp.py dump [--dev NAME] [--top-k K --top-by FIELD [--top-sample GEN]]
#                 [--since GEN] [--qpn-from N]
#   rt_qp.py stats
#   rt_qp.py set [--dev NAME --acct 0|1] [--table-max N] [--linger-ms MS]
#                [--verify-ms MS] [--dev NAME --np 0|1] [--np-gap-us US]
#   rt_qp.py pcap --ip LOCAL_IP [--tx-pcap F] [--python] PCAP...
#   rt_qp.py compare --dev NAME --ip LOCAL_IP [--tx-pcap F] PCAP...
#   rt_qp.py check --name TEST --cap DIR --out DIR --dev0 D --ip0 IP
#                  --dev1 D --ip1 IP [--qpn-min N]
#   rt_qp.py inject --src IP --dst IP --qpn N [--count K] [--opcode OP]
#   rt_qp.py tshark-serve DIR
#
# Attribute and command numbers and types come from the family's YNL spec,
# Documentation/netlink/specs/rocetune.yaml (rt_ynl.py), which
# scripts/spec-check.py keeps equal to the uapi header.
#
# The capture side applies the counting rules of
# Documentation/qp-accounting.rst to packets decoded by tshark's
# InfiniBand (RRoCE) dissector: the independent counter.  A second
# decoder, parse() below, reads the same captures itself; it is only a
# cross-check: the counts of both must agree with each other and with the
# module.  A transmitted RC/UC packet is given to the local QP that
# receives packets of the same UDP source port from the same peer (rxe
# uses one source port per QP pair in both directions).
#
# In the test VM tshark takes many seconds to start: when RT_HOST_TSHARK
# names a directory, the captures are handed to "rt_qp.py tshark-serve"
# running on the host (selftests/vm/run.sh starts it) and its answer is
# read back; elsewhere tshark runs here.

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

FIELDS = ["rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "rx_ecn_ce_pkts",
          "rx_ecn_ect_pkts", "tx_ecn_ect_pkts", "rx_cnp_pkts", "tx_cnp_pkts",
          "rx_nak_seq_err", "rx_rnr_nak", "tx_nak_seq_err", "tx_rnr_nak",
          "tx_retransmit_pkts", "rx_ackreq_pkts"]


def client():
    """A netlink client of the family, by its YNL spec (loaded only here:
    tshark-serve runs without it)."""
    import rt_ynl

    return rt_ynl.Client(bufsize=1 << 20)


def snake(d):
    """@d's attributes (spec names: rx-pkts) as this helper prints them
    (rx_pkts); those the spec does not know (kept by number) are left
    out."""
    def value(v):
        if isinstance(v, dict):
            return snake(v)
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    return {k.replace("-", "_"): value(v)
            for k, v in d.items() if isinstance(k, str)}


def qp_msg(m):
    d = {"dev_index": m["dev-index"], "gen": m["qp-gen"]}
    if "dev-name" in m:
        d["dev"] = m["dev-name"]
    d.update(snake(m["qp"]))
    return d


def dev_attr(args):
    return {"dev-name": args.dev} if args.dev else {}


def do_dump(args):
    c = client()
    at = dev_attr(args)
    if args.top_k:
        at["qp-top-k"] = args.top_k
        at["qp-top-by"] = c.spec.sets["qp"].attrs[
            args.top_by.replace("_", "-")].value
    if args.since is not None:
        at["qp-since-gen"] = args.since
    if args.qpn_from is not None:
        at["qpn-min"] = args.qpn_from
    if args.top_sample is not None:
        at["qp-top-sample"] = args.top_sample
    return [qp_msg(m) for m in c.dump("qp-get", at)]


def do_stats(args):
    return [snake(m) for m in client().dump("qp-stats-get")]


def do_set(args):
    at = dev_attr(args)
    if args.acct is not None:
        at["qp-acct"] = args.acct
    if args.table_max:
        at["qp-table-max"] = args.table_max
    if args.linger_ms is not None:
        at["qp-linger-ms"] = args.linger_ms
    if args.verify_ms is not None:
        at["qp-verify-ms"] = args.verify_ms
    if args.np is not None:
        at["qp-np-enable"] = args.np
    if args.np_gap_us is not None:
        at["qp-np-min-cnp-gap-us"] = args.np_gap_us
    client().do("qp-set", at)
    return []


# Captures ------------------------------------------------------------------

def pcap_packets(path):
    """Yield the IP bytes of each Ethernet (or cooked) frame of a pcap."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        link = struct.unpack(e + "I", hdr[20:24])[0]
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            incl = struct.unpack(e + "IIII", rh)[2]
            frame = f.read(incl)
            if link == 1:
                et, off = struct.unpack(">H", frame[12:14])[0], 14
                if et == 0x8100:
                    et, off = struct.unpack(">H", frame[16:18])[0], 18
            elif link == 113:
                et, off = struct.unpack(">H", frame[14:16])[0], 16
            else:
                continue
            if et == 0x0800:
                yield frame[off:]


def parse(b):
    """The counting rules' view of one packet, or None if not RoCEv2
    (the cross-check's own decoder)."""
    if len(b) < 20 or b[0] >> 4 != 4 or b[9] != 17:
        return None
    ihl = (b[0] & 15) * 4
    if struct.unpack(">H", b[6:8])[0] & 0x3fff:
        return None
    udp = b[ihl:]
    if len(udp) < 20 or struct.unpack(">H", udp[2:4])[0] != 4791:
        return None
    bth = udp[8:]
    op = bth[0]
    p = {"src": b[12:16], "dst": b[16:20], "ecn": b[1] & 3,
         "len": struct.unpack(">H", b[2:4])[0],
         "sport": struct.unpack(">H", udp[0:2])[0], "op": op,
         "dqpn": int.from_bytes(bth[5:8], "big"),
         "ackreq": bool(bth[8] & 0x80),
         "psn": int.from_bytes(bth[9:12], "big"), "syn": None, "sqpn": None}
    if op in (0x0d, 0x0f, 0x10, 0x11, 0x12) and len(bth) >= 16:
        p["syn"] = bth[12]
    if op in (0x64, 0x65) and len(bth) >= 20:
        p["sqpn"] = int.from_bytes(bth[17:20], "big")
    return p


def packets_python(path):
    """The RoCEv2 packets of a pcap, decoded by parse()."""
    return [p for p in map(parse, pcap_packets(path)) if p]


# tshark's fields, in the order of its output, and the packet dict keys.
TSHARK_FIELDS = ["ip.src", "ip.dst", "ip.len", "ip.dsfield.ecn",
                 "ip.flags.mf", "ip.frag_offset", "udp.srcport",
                 "udp.dstport", "infiniband.bth.opcode",
                 "infiniband.bth.destqp", "infiniband.bth.a",
                 "infiniband.bth.psn", "infiniband.aeth.syndrome",
                 "infiniband.deth.srcqp",
                 # rt_np.py's: after those of the counting rules.
                 "frame.number", "infiniband.bth.p_key",
                 "infiniband.reserved"]
TSHARK_WAIT_S = 300


def tshark_cmd(path):
    return ["tshark", "-n", "-r", path, "-d", "udp.port==4791,infiniband",
            "-Y", "udp.dstport == 4791 and not icmp", "-T", "fields",
            "-E", "occurrence=f", "-E", "separator=/t"] + \
        [a for f in TSHARK_FIELDS for a in ("-e", f)]


def tshark_run(path):
    """tshark's field lines for a pcap, run here."""
    r = subprocess.run(tshark_cmd(path), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise RuntimeError(f"tshark -r {path}: exit {r.returncode}: "
                           f"{r.stderr.strip()}")
    return r.stdout


def tshark_relay(paths, d):
    """tshark's field lines for each pcap of @paths, from tshark-serve on
    the host, which dissects them side by side."""
    rids = {}
    for path in paths:
        rid = f"{os.getpid()}-{time.monotonic_ns()}"
        shutil.copyfile(path, os.path.join(d, rid + ".pcap"))
        with open(os.path.join(d, rid + ".tmp"), "w") as f:
            f.write(rid + "\n")
        os.rename(os.path.join(d, rid + ".tmp"), os.path.join(d, rid + ".req"))
        rids[rid] = path
    texts = {}
    deadline = time.monotonic() + TSHARK_WAIT_S
    while rids and time.monotonic() < deadline:
        for rid in list(rids):
            for ext in (".out", ".err"):
                ans = os.path.join(d, rid + ext)
                if os.path.exists(ans):
                    text = open(ans).read()
                    os.unlink(ans)
                    if ext == ".err":
                        raise RuntimeError(f"tshark on the host: {text.strip()}")
                    texts[rids.pop(rid)] = text
                    break
        time.sleep(0.1)
    if rids:
        raise RuntimeError(f"no answer from tshark-serve in {d} after "
                           f"{TSHARK_WAIT_S} s (is selftests/vm/run.sh running?)")
    return texts


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)


def tshark_texts(paths):
    """tshark's field lines for each pcap of @paths."""
    relay = os.environ.get("RT_HOST_TSHARK")
    if relay:
        return tshark_relay(paths, relay)
    return {p: tshark_run(p) for p in paths}


def packets_tshark(path, text=None):
    """The RoCEv2 packets of a pcap, decoded by tshark's dissector (from
    its output @text if given)."""
    if text is None:
        text = tshark_texts([path])[path]
    out = []
    for line in text.splitlines():
        v = dict(zip(TSHARK_FIELDS, line.split("\t")))
        if not v.get("infiniband.bth.opcode"):
            raise RuntimeError(f"{path}: tshark did not decode a packet to "
                               f"UDP port 4791 as RRoCE: {line!r}")
        if v["ip.flags.mf"] in ("1", "True") or \
                v["ip.frag_offset"] not in ("", "0"):
            continue
        op = num(v["infiniband.bth.opcode"])
        syn = v.get("infiniband.aeth.syndrome", "")
        sqpn = v.get("infiniband.deth.srcqp", "")
        out.append({"src": socket.inet_aton(v["ip.src"]),
                    "dst": socket.inet_aton(v["ip.dst"]),
                    "ecn": num(v["ip.dsfield.ecn"]),
                    "len": num(v["ip.len"]),
                    "sport": num(v["udp.srcport"]), "op": op,
                    "dqpn": num(v["infiniband.bth.destqp"]),
                    "ackreq": v["infiniband.bth.a"] in ("1", "True"),
                    "psn": num(v["infiniband.bth.psn"]),
                    "syn": num(syn) if syn else None,
                    "sqpn": num(sqpn) & 0xffffff if sqpn else None})
    return out


def tshark_answer(d, rid):
    """Dissect ID.pcap of @d into ID.out, or say why not in ID.err."""
    try:
        text, ext = tshark_run(os.path.join(d, rid + ".pcap")), ".out"
    except (RuntimeError, OSError) as e:
        text, ext = str(e), ".err"
    with open(os.path.join(d, rid + ".ans"), "w") as f:
        f.write(text)
    os.rename(os.path.join(d, rid + ".ans"), os.path.join(d, rid + ext))
    for f in (rid + ".work", rid + ".pcap"):
        try:
            os.unlink(os.path.join(d, f))
        except FileNotFoundError:
            pass


def tshark_serve(d):
    """Answer the guest's requests in directory @d, each in a thread of its
    own: ID.req names ID.pcap; the answer is ID.out (tshark's field lines)
    or ID.err.  Runs until killed or its parent is gone."""
    parent = os.getppid()
    while os.getppid() == parent:
        try:
            reqs = sorted(f for f in os.listdir(d) if f.endswith(".req"))
        except FileNotFoundError:
            reqs = []
        for req in reqs:
            rid = req[:-len(".req")]
            try:        # claim it
                os.rename(os.path.join(d, req), os.path.join(d, rid + ".work"))
            except FileNotFoundError:
                continue
            threading.Thread(target=tshark_answer, args=(d, rid),
                             daemon=True).start()
        time.sleep(0.1)


def is_request(op):
    t = op & 0xe0
    if t == 0x20:
        return True
    return t == 0 and not 0x0d <= op <= 0x12


def psn_after(a, b):
    d = (a - b) & 0xffffff
    return d != 0 and d < 0x800000


def count_pcaps(ip, pcaps, tx_pcap=None, read=packets_tshark):
    """Per local QP counts of the device with address @ip, and the number
    of RoCEv2 packets seen, from the packets @read decodes.

    Received packets come from @pcaps (dst == ip); sent ones from @tx_pcap
    if given (a capture before any qdisc), else from @pcaps (src == ip)."""
    me = socket.inet_aton(ip)
    rx, tx = [], []
    for f in pcaps:
        for p in read(f):
            if p["dst"] == me:
                rx.append(p)
            elif p["src"] == me and not tx_pcap:
                tx.append(p)
    if tx_pcap:
        tx = [p for p in read(tx_pcap) if p["src"] == me]
    # (peer address, UDP source port) -> local QP, from received packets.
    pair = {}
    for p in rx:
        if p["sqpn"] is None and p["op"] != 0x81:
            pair.setdefault((p["src"], p["sport"]), set()).add(p["dqpn"])
    qps, unattr = {}, 0

    def qp(n):
        return qps.setdefault(n, dict.fromkeys(FIELDS, 0))

    for p in rx:
        c = qp(p["dqpn"])
        c["rx_pkts"] += 1
        c["rx_bytes"] += p["len"]
        if p["ecn"] == 3:
            c["rx_ecn_ce_pkts"] += 1
        elif p["ecn"]:
            c["rx_ecn_ect_pkts"] += 1
        if p["op"] == 0x81:
            c["rx_cnp_pkts"] += 1
        if p["syn"] == 0x60:
            c["rx_nak_seq_err"] += 1
        if p["syn"] is not None and p["syn"] & 0x60 == 0x20:
            c["rx_rnr_nak"] += 1
        if p["ackreq"]:
            c["rx_ackreq_pkts"] += 1
    maxpsn = {}
    for p in tx:
        if p["sqpn"] is not None:
            n = p["sqpn"]
        else:
            cand = pair.get((p["dst"], p["sport"]), set())
            if len(cand) != 1:
                unattr += 1
                continue
            n = next(iter(cand))
        c = qp(n)
        c["tx_pkts"] += 1
        c["tx_bytes"] += p["len"]
        if p["ecn"]:
            c["tx_ecn_ect_pkts"] += 1
        if p["op"] == 0x81:
            c["tx_cnp_pkts"] += 1
        if p["syn"] == 0x60:
            c["tx_nak_seq_err"] += 1
        if p["syn"] is not None and p["syn"] & 0x60 == 0x20:
            c["tx_rnr_nak"] += 1
        if is_request(p["op"]):
            if n not in maxpsn or psn_after(p["psn"], maxpsn[n]):
                maxpsn[n] = p["psn"]
            else:
                c["tx_retransmit_pkts"] += 1
    return qps, unattr, len(rx) + len(tx)


def cached(read, memo=None):
    """@read, reading each capture once (@memo: what is read already)."""
    memo = memo if memo is not None else {}

    def r(path):
        if path not in memo:
            memo[path] = read(path)
        return memo[path]
    return r


def compare(dev, ip, pcaps, tx_pcap, qpn_min, mod_all,
            read=packets_tshark, cross=packets_python):
    """Print and count the QPs of @dev whose counters differ from the
    capture as @read decodes it, and those where the cross-check decoder
    @cross counts otherwise than @read.  A capture without any RoCEv2
    packet is a difference too: it would make every comparison hold."""
    truth, unattr, npkts = count_pcaps(ip, pcaps, tx_pcap, read)
    truth = {n: c for n, c in truth.items() if n >= qpn_min}
    bad = 0
    if npkts == 0:
        print(f"# no RoCEv2 packet of {ip} in the capture")
        bad += 1
    xtruth, xunattr, xnpkts = count_pcaps(ip, pcaps, tx_pcap, cross)
    xtruth = {n: c for n, c in xtruth.items() if n >= qpn_min}
    for n in sorted(set(truth) | set(xtruth)):
        t = truth.get(n, dict.fromkeys(FIELDS, 0))
        x = xtruth.get(n, dict.fromkeys(FIELDS, 0))
        diff = {f: (t[f], x[f]) for f in FIELDS if t[f] != x[f]}
        if diff:
            print(f"# qpn {n}: the decoders disagree (tshark, python): {diff}")
            bad += 1
    if (unattr, npkts) != (xunattr, xnpkts):
        print(f"# the decoders disagree: tshark {npkts} packets, "
              f"{unattr} unattributed; python {xnpkts}, {xunattr}")
        bad += 1
    mod = {d["qpn"]: d for d in mod_all
           if d.get("dev") == dev and d["qpn"] >= qpn_min}
    for n in sorted(set(truth) | set(mod)):
        t = truth.get(n, dict.fromkeys(FIELDS, 0))
        m = mod.get(n)
        if m is None:
            print(f"# qpn {n}: in the capture, not in the module: {t}")
            bad += 1
            continue
        diff = {f: (m.get(f, 0), t[f]) for f in FIELDS
                if m.get(f, 0) != t[f]}
        summary = " ".join(f"{f}={t[f]}" for f in FIELDS if t[f])
        if diff:
            print(f"# qpn {n}: MISMATCH (module, capture): {diff}")
            bad += 1
        else:
            print(f"# qpn {n}: equal: {summary or 'no packets'}")
    if unattr:
        print(f"# {unattr} sent packets of the capture have no local QP")
    print(f"# {npkts} RoCEv2 packets, decoded alike by tshark and python"
          if not bad else f"# {npkts} RoCEv2 packets (tshark)")
    return bad


def do_compare(args):
    """Exit 0 when every counted field of every QP equals the capture."""
    return compare(args.dev, args.ip, args.pcaps, args.tx_pcap,
                   args.qpn_min, do_dump(args))


def do_check(args):
    """Both ends of the selftests' wire against the captures of a test
    (CAP/NAME-vb.pcap: everything on the second netdev; CAP/NAME-tx0.pcap:
    what the first device sent, before any qdisc), in one process; the
    module's state is saved to OUT/NAME-dump.json and -stats.json."""
    args.dev = None
    mod = do_dump(args)
    vb = [f"{args.cap}/{args.name}-vb.pcap"]
    tx0 = f"{args.cap}/{args.name}-tx0.pcap"
    texts = tshark_texts(vb + [tx0])
    read = cached(packets_tshark,
                  {p: packets_tshark(p, t) for p, t in texts.items()})
    cross = cached(packets_python)
    bad = 0
    print(f"# {args.dev0} ({args.ip0}) vs capture:")
    bad += compare(args.dev0, args.ip0, vb, tx0, args.qpn_min, mod,
                   read, cross)
    print(f"# {args.dev1} ({args.ip1}) vs capture:")
    bad += compare(args.dev1, args.ip1, vb, None, args.qpn_min, mod,
                   read, cross)
    with open(f"{args.out}/{args.name}-dump.json", "w") as f:
        json.dump(mod, f, indent=1)
    with open(f"{args.out}/{args.name}-stats.json", "w") as f:
        json.dump(do_stats(args), f, indent=1)
    return bad


def do_inject(args):
    """Send @count valid RoCEv2 packets (rt_forge.py) to QP @qpn from
    @src to @dst, of opcode @opcode (default 0x04, RC SEND only; 0x81 is a
    CNP): software RoCE takes them as if the QP's peer had sent them when
    @src is the peer's address and the QP is connected."""
    import rt_forge
    so = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    so.setsockopt(socket.IPPROTO_IP, rt_forge.IP_MTU_DISCOVER,
                  rt_forge.IP_PMTUDISC_DO)
    so.bind((args.src, 0))
    pkt = rt_forge.datagram(args.src, args.dst, so.getsockname()[1],
                            args.opcode, args.qpn, "valid")
    for _ in range(args.count):
        so.sendto(pkt, (args.dst, 4791))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["dump", "stats", "set", "pcap",
                                    "compare", "check", "inject",
                                    "tshark-serve"])
    ap.add_argument("pcaps", nargs="*")
    ap.add_argument("--dev")
    ap.add_argument("--ip")
    ap.add_argument("--tx-pcap")
    ap.add_argument("--top-k", type=int)
    ap.add_argument("--top-by", default="rx_ecn_ce_pkts")
    ap.add_argument("--since", type=int)
    ap.add_argument("--top-sample", type=int)
    ap.add_argument("--qpn-from", type=int)
    ap.add_argument("--acct", type=int)
    ap.add_argument("--table-max", type=int)
    ap.add_argument("--linger-ms", type=int)
    ap.add_argument("--verify-ms", type=int)
    ap.add_argument("--np", type=int)
    ap.add_argument("--np-gap-us", type=int)
    ap.add_argument("--src")
    ap.add_argument("--dst")
    ap.add_argument("--qpn", type=int)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--opcode", type=lambda v: int(v, 0), default=0x04)
    ap.add_argument("--qpn-min", type=int, default=0)
    ap.add_argument("--python", action="store_true",
                    help="pcap: decode with parse(), not tshark")
    for a in ("name", "cap", "out", "dev0", "ip0", "dev1", "ip1"):
        ap.add_argument("--" + a)
    args = ap.parse_intermixed_args()
    if args.cmd == "compare":
        sys.exit(1 if do_compare(args) else 0)
    if args.cmd == "check":
        sys.exit(1 if do_check(args) else 0)
    if args.cmd == "tshark-serve":
        tshark_serve(args.pcaps[0])
        return
    if args.cmd == "pcap":
        qps, unattr, npkts = count_pcaps(
            args.ip, args.pcaps, args.tx_pcap,
            packets_python if args.python else packets_tshark)
        out = {"qps": qps, "unattributed_tx": unattr, "packets": npkts}
    elif args.cmd == "set":
        do_set(args)
        return
    elif args.cmd == "inject":
        do_inject(args)
        return
    else:
        out = {"dump": do_dump, "stats": do_stats}[args.cmd](args)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
