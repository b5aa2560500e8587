#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# dcqcn_bottleneck.py: the figures of dcqcn_bottleneck.sh.
#
#   dcqcn_bottleneck.py run --dir D --tag T --round N --mode off|on ...
#   dcqcn_bottleneck.py summary --table RUNS.jsonl
#
# run reads one run's files in D (T-ifb.pcap: every RoCEv2 packet that left
# the bottleneck; T-cnp.pcap: the CNPs leaving vb; T-qdisc.json: tc -s -j
# qdisc show dev ifb0 after the run; T-samples.txt: the sampler's lines;
# T-qp0.json: rocetune -j qp show dev rxe0; T-stats1.json: rocetune -j qp
# stats dev rxe1), prints one block and appends one JSON line to the table.
#
# Throughput is from the ifb0 capture only: a flow is a BTH destination QP
# (the receiving QP of rxe1; two QPs may share a UDP source port); the
# window is the time all flows were sending (the latest first packet to
# the earliest last packet); a flow's rate is its bytes in the window (Ethernet frames, as
# htb counts them) over the window.  The capture's timestamps are taken
# when ifb0's qdisc hands a packet on (a fresh wall-clock stamp).
# Utilisation is the sum of the flows' rates over the bottleneck's rate.
import argparse
import json
import os
import statistics
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
import rt_pcap  # noqa: E402

ETH = 14
OP_CNP = 0x81


def frames(path):
    """(time in s, IP header and what follows) of each IPv4 frame."""
    return [(ns / 1e9, ip) for ns, ip, _ in rt_pcap.frames(path) if ip]


def roce(ip):
    """(UDP source port, IP length, ECN, BTH opcode, dest QP) or None."""
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 17:
        return None
    ihl = (ip[0] & 15) * 4
    if len(ip) < ihl + 16:
        return None
    sport, dport = struct.unpack(">HH", ip[ihl:ihl + 4])
    if dport != 4791:
        return None
    bth = ihl + 8
    return (sport, struct.unpack(">H", ip[2:4])[0], ip[1] & 3, ip[bth],
            int.from_bytes(ip[bth + 5:bth + 8], "big"))


def jain(x):
    s2 = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * s2) if s2 else 0.0


def qdiscs(j):
    """The htb root and the red leaf of a tc -s -j qdisc show."""
    htb = next(q for q in j if q["kind"] == "htb")
    red = next(q for q in j if q["kind"] == "red")
    return htb, red


def do_run(a):
    d = f"{a.dir}/{a.tag}"
    flows = {}
    for t, ip in frames(d + "-ifb.pcap"):
        r = roce(ip)
        if not r or r[3] == OP_CNP:
            continue
        f = flows.setdefault(r[4], {"t": [], "b": [], "ce": 0})
        f["t"].append(t)
        f["b"].append(ETH + r[1])
        f["ce"] += r[2] == 3
    fails = []
    if len(flows) != a.flows:
        fails.append(f"{len(flows)} flows in the ifb0 capture, not {a.flows}")
    if not flows:
        print("# FAIL: no flows", file=sys.stderr)
        return 1
    lo = max(f["t"][0] for f in flows.values())
    hi = min(f["t"][-1] for f in flows.values())
    win = hi - lo
    if win < a.secs / 2:
        fails.append(f"the flows overlapped {win:.2f} s only")
    order = sorted(flows, key=lambda p: flows[p]["t"][0])
    mbps = []
    for p in order:
        f = flows[p]
        mbps.append(sum(b for t, b in zip(f["t"], f["b"])
                        if lo <= t <= hi) * 8 / max(win, 1e-9) / 1e6)
    util = sum(mbps) / a.rate_mbit
    cap_bytes = sum(sum(f["b"]) for f in flows.values())
    cap_ce = sum(f["ce"] for f in flows.values())

    with open(d + "-qdisc.json") as fh:
        htb, red = qdiscs(json.load(fh))
    # CNPs: the capture on vb by UDP port and by BTH destination QP.
    cnp_port, cnp_qp = {}, {}
    for _, ip in frames(d + "-cnp.pcap"):
        r = roce(ip)
        if r and r[3] == OP_CNP:
            cnp_port[r[0]] = cnp_port.get(r[0], 0) + 1
            cnp_qp[r[4]] = cnp_qp.get(r[4], 0) + 1
    cnps = sum(cnp_port.values())
    with open(d + "-stats1.json") as fh:
        np_sent = json.load(fh)[0]["np_cnp_sent"]
    with open(d + "-qp0.json") as fh:
        qps = json.load(fh)
    rx_cnp = {q["qpn"]: q.get("rx_cnp_pkts", 0) for q in qps}
    rp_cnps = {q["qpn"]: q["rp_cnps"] for q in qps if "rp_cnps" in q}
    if cnps != np_sent:
        fails.append(f"CNPs: capture {cnps}, np_cnp_sent {np_sent}")
    for qpn in set(cnp_qp) | {q for q, n in rx_cnp.items() if n}:
        if rx_cnp.get(qpn, 0) != cnp_qp.get(qpn, 0):
            fails.append(f"QP {qpn}: {cnp_qp.get(qpn, 0)} CNPs captured, "
                         f"rx_cnp_pkts {rx_cnp.get(qpn)}")
        if a.mode == "on" and rp_cnps.get(qpn, 0) != cnp_qp.get(qpn, 0):
            fails.append(f"QP {qpn}: {cnp_qp.get(qpn, 0)} CNPs captured, "
                         f"rp_cnps {rp_cnps.get(qpn)}")
    if a.mode != "on" and (cnps or rp_cnps):
        fails.append(f"{a.mode}: {cnps} CNPs, RP state {rp_cnps}")
    # Nothing CE-marked: the flows never filled the bottleneck, so no CNP
    # could be sent and the RP had nothing to act on; say that, not what
    # follows from it.
    unbound = a.mode != "free" and not cap_ce and not red.get("marked", 0)
    if unbound:
        fails.append(f"{a.mode}: the bottleneck did not bind: the flows sent"
                     f" {sum(mbps):.1f} Mb/s through its {a.rate_mbit:g}"
                     f" Mb/s ({100 * util:.0f}%), nothing was CE-marked"
                     + (f" (free run: {a.free_mbps:.1f} Mb/s, the"
                        f" bottleneck {a.rate_mbit / a.free_mbps:.2g} x that)"
                        if a.free_mbps else ""))
    elif a.mode == "on" and not cnps:
        fails.append("on: no CNP")

    # The samples: backlog of the bottleneck, rates of the RP.
    backlog, rates, paced = [], [], 0
    t = None
    with open(d + "-samples.txt") as fh:
        for line in fh:
            k, _, v = line.rstrip("\n").partition(" ")
            try:
                if k == "T":
                    t = float(v)
                elif k == "Q" and t is not None and lo <= t <= hi:
                    backlog.append(qdiscs(json.loads(v))[0]["backlog"])
                elif k == "R":
                    for q in json.loads(v):
                        if "rp_rate_kbps" in q:
                            rates.append(q["rp_rate_kbps"])
                            paced += bool(q.get("rp_paced"))
            except (ValueError, StopIteration):
                continue    # a sample cut short at the end of the run
    rates += [q["rp_rate_kbps"] for q in qps if "rp_rate_kbps" in q]
    if rates and not (a.min_mbps * 1000 <= min(rates) and
                      max(rates) <= a.max_mbps * 1000):
        fails.append(f"RP rates {min(rates)}..{max(rates)} kb/s outside "
                     f"[{a.min_mbps * 1000}, {a.max_mbps * 1000}]")
    if a.mode == "on" and not rates and not unbound:
        fails.append("on: no RP rate")

    row = {
        "round": a.round, "mode": a.mode, "mbps": mbps, "jain": jain(mbps),
        "util": util, "window": win, "rate_mbit": a.rate_mbit,
        "bound": not unbound,
        "cap_ce": cap_ce, "red_marked": red.get("marked", 0),
        "red_early": red.get("early", 0), "red_pdrop": red.get("pdrop", 0),
        "htb_drops": htb["drops"], "htb_bytes": htb["bytes"],
        "cap_bytes": cap_bytes, "cap_pkts": sum(len(f["t"])
                                                for f in flows.values()),
        "backlog_mean": statistics.mean(backlog) if backlog else 0,
        "backlog_max": max(backlog) if backlog else 0,
        "samples": len(backlog),
        "cnp_cap": cnps, "np_cnp_sent": np_sent,
        "rx_cnp_pkts": sum(rx_cnp.values()), "rp_cnps": sum(rp_cnps.values()),
        "rp_min_kbps": min(rates) if rates else None,
        "rp_max_kbps": max(rates) if rates else None,
        "rp_paced_samples": paced, "seq_err": a.seq_err,
        "fails": fails,
    }
    print(f"  round {a.round} {a.mode:4s}  Mb/s "
          + " ".join(f"{m:5.1f}" for m in mbps)
          + f"  sum {sum(mbps):5.1f}  Jain {row['jain']:.3f}"
          f"  util {100 * util:5.1f}%  ({win:.1f} s)")
    print(f"      CE capture {cap_ce} red marked {row['red_marked']}"
          f" early {row['red_early']} pdrop {row['red_pdrop']}"
          f" htb drops {row['htb_drops']}; backlog mean"
          f" {row['backlog_mean'] / 1000:.1f} kB max"
          f" {row['backlog_max'] / 1000:.1f} kB ({len(backlog)} samples);"
          f" rxe1 seq errors {a.seq_err}")
    print(f"      CNPs capture {cnps} np_cnp_sent {np_sent} rx_cnp_pkts"
          f" {row['rx_cnp_pkts']} rp_cnps {row['rp_cnps']}; RP rate"
          + (f" {min(rates)}..{max(rates)} kb/s, paced in {paced} of"
             f" {len(rates)} samples" if rates else " none")
          + f"; capture {cap_bytes} B, htb sent {htb['bytes']} B")
    for f in fails:
        print(f"      FAIL: {f}")
    with open(a.table, "a") as fh:
        fh.write(json.dumps(row) + "\n")
    # A failed check is recorded (the summary fails); the run is not
    # repeated.
    return 0


def do_summary(a):
    rows = [json.loads(x) for x in open(a.table)]
    modes = [m for m in ("free", "off", "on")
             if any(r["mode"] == m for r in rows)]
    by = {m: {r["round"]: r for r in rows if r["mode"] == m} for m in modes}
    keys = [("jain", "Jain's index", "%.3f", 1),
            ("util", "utilisation %", "%.1f", 100),
            ("sum", "sum of flows Mb/s", "%.1f", 1),
            ("minflow", "slowest flow Mb/s", "%.1f", 1),
            ("cap_ce", "CE marks (capture)", "%.0f", 1),
            ("red_marked", "red marked", "%.0f", 1),
            ("drops", "queue drops", "%.0f", 1),
            ("backlog_mean", "backlog mean kB", "%.1f", 1e-3),
            ("backlog_max", "backlog max kB", "%.1f", 1e-3),
            ("seq_err", "rxe1 seq errors", "%.0f", 1),
            ("cnp_cap", "CNPs (capture)", "%.0f", 1)]
    for r in rows:
        r["sum"] = sum(r["mbps"])
        r["minflow"] = min(r["mbps"])
        r["drops"] = r["htb_drops"]
    print(f"\nsummary: {len(rows)} runs; per mode the median and the range"
          " (min..max) over its rounds")
    print("  %-20s" % "" + "".join("  %-24s" % m for m in modes))
    for k, name, fmt, mul in keys:
        line = "  %-20s" % name
        for m in modes:
            v = [by[m][i][k] * mul for i in sorted(by[m])]
            cell = (fmt % statistics.median(v)) + " (" + (fmt % min(v)) + \
                ".." + (fmt % max(v)) + ")"
            line += "  %-24s" % cell
        print(line)
    if "free" in by:
        # The bottleneck's rate of a round: that of its off or on run.
        rate = {i: r["rate_mbit"] for m in ("off", "on") if m in by
                for i, r in by[m].items()}
        bind = {i for i, r in by["free"].items()
                if i in rate and r["sum"] >= 1.1 * rate[i]}
        print("\nfree (no bottleneck): the flows sent "
              + ", ".join(f"{by['free'][i]['sum']:.1f}"
                          for i in sorted(by["free"]))
              + " Mb/s; the bottleneck ("
              + ", ".join(f"{rate[i]:g}" for i in sorted(rate))
              + f" Mb/s) could bind (free >= 1.1 x rate) in {len(bind)} of"
              f" {len(by['free'])} rounds")
    else:
        bind = None
    for m in ("off", "on"):
        if m in by:
            nb = sorted(i for i, r in by[m].items() if not r["bound"])
            if nb:
                print(f"  {m}: the bottleneck did not bind (nothing"
                      f" CE-marked) in rounds {nb}")
    if "off" in by and "on" in by:
        rounds = sorted(set(by["off"]) & set(by["on"]))
        print(f"\npaired by round ({len(rounds)} rounds): rounds where on"
              " is ... than off")
        for k, name, better in (("jain", "Jain higher", 1),
                                ("util", "utilisation higher", 1),
                                ("cap_ce", "CE marks fewer", -1),
                                ("drops", "drops fewer", -1),
                                ("backlog_mean", "backlog mean lower", -1)):
            n = sum((by["on"][i][k] - by["off"][i][k]) * better > 0
                    for i in rounds)
            eq = sum(by["on"][i][k] == by["off"][i][k] for i in rounds)
            print(f"  {name:22s} {n}/{len(rounds)} (equal in {eq})")
        for m in ("off", "on"):
            v = [by[m][i] for i in sorted(by[m])]
            fair = sum(r["jain"] >= 0.9 for r in v)
            full = sum(r["util"] >= 0.9 for r in v)
            line = (f"  {m}: Jain >= 0.9 in {fair}/{len(v)} rounds,"
                    f" utilisation >= 90% in {full}/{len(v)}")
            if bind is not None:
                vb = [by[m][i] for i in sorted(by[m]) if i in bind]
                line += (f"; in the rounds where it could bind:"
                         f" {sum(r['jain'] >= 0.9 for r in vb)}/{len(vb)}"
                         f" and {sum(r['util'] >= 0.9 for r in vb)}"
                         f"/{len(vb)}")
            print(line)
    failed = [r for r in rows if r["fails"]]
    for r in failed:
        print(f"  round {r['round']} {r['mode']}: FAIL {r['fails']}")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run", "summary"])
    ap.add_argument("--table", required=True)
    for o in ("dir", "tag", "mode", "ip0", "ip1"):
        ap.add_argument("--" + o)
    for o in ("round", "flows", "seq-err", "min-mbps", "max-mbps"):
        ap.add_argument("--" + o, type=int)
    ap.add_argument("--free-mbps", type=float)
    for o in ("rate-mbit", "secs"):
        ap.add_argument("--" + o, type=float)
    a = ap.parse_args()
    return do_run(a) if a.cmd == "run" else do_summary(a)


if __name__ == "__main__":
    sys.exit(main())
