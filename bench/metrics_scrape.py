#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Helper of bench/metrics_scrape.sh (run in the test VM, as root).

metrics_scrape.py view SYSDIR
    Give node_exporter's infiniband collector (1.5.0, procfs 0.8.0) the
    files it needs, for every RDMA device not yet in SYSDIR (node_exporter
    --path.sysfs=SYSDIR).  That collector fails as a whole unless every
    device has board_id and every port a counters/ directory (the IB PMA
    counters, which only drivers with a MAD interface have: mlx4, mlx5,
    qib, hfi1; not rxe, not rocetune_sim).  The view holds, per device,
    fw_ver (a symlink to the device's), board_id and hca_type (plain
    files: on mlx5 they are static strings too) and per port state,
    phys_state and rate (symlinks), and counters/ with the 22 PMA names
    procfs 0.8.0 knows, each one bind-mounted from one of the port's real
    hw_counters files: every file node_exporter reads there is a sysfs
    read that reaches the driver's get_hw_stats, as a counters/ read
    reaches the PMA on mlx5, and it exports the series it would on mlx5.

metrics_scrape.py scrape ROUNDS MAX_SEC PORTS NAME=URL...
    One process, one kept-alive HTTP connection per URL: an untimed
    scrape of each, then up to ROUNDS rounds (fewer when they take more
    than MAX_SEC seconds) in which every URL is scraped once, the order
    reversed every other round.  Every scrape must answer 200 with a body;
    the first and the last of each URL must name PORTS ports.  Prints one
    line per URL: name, rounds, median, p90, mean and min in ms, bytes,
    samples (non-comment lines), port series (samples labelled with a
    device), reconnects.
"""

import ctypes
import http.client
import os
import re
import sys
import time
import urllib.parse

IB = "/sys/class/infiniband"
PMA_NAMES = (
    "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
    "local_link_integrity_errors", "multicast_rcv_packets",
    "multicast_xmit_packets", "port_rcv_constraint_errors", "port_rcv_data",
    "port_rcv_discards", "port_rcv_errors", "port_rcv_packets",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards",
    "port_xmit_packets", "port_xmit_wait", "symbol_error",
    "unicast_rcv_packets", "unicast_xmit_packets", "VL15_dropped",
)
MS_BIND = 4096


def die(msg):
    print("metrics_scrape.py: " + msg, file=sys.stderr)
    sys.exit(1)


def bind(libc, src, dst):
    with open(dst, "w"):
        pass
    if libc.mount(src.encode(), dst.encode(), None, MS_BIND, None) != 0:
        err = ctypes.get_errno()
        die("mount --bind %s %s: %s" % (src, dst, os.strerror(err)))


def view(sysdir):
    libc = ctypes.CDLL(None, use_errno=True)
    top = os.path.join(sysdir, "class", "infiniband")
    os.makedirs(top, exist_ok=True)
    mounted = 0
    for dev in sorted(os.listdir(IB)):
        vdev = os.path.join(top, dev)
        if os.path.exists(vdev):
            continue
        real = os.path.join(IB, dev)
        os.makedirs(vdev)
        os.symlink(os.path.join(real, "fw_ver"), os.path.join(vdev, "fw_ver"))
        for name, text in (("board_id", "RSIM0001"), ("hca_type", "RSIM")):
            with open(os.path.join(vdev, name), "w") as f:
                f.write(text + "\n")
        for port in sorted(os.listdir(os.path.join(real, "ports"))):
            rport = os.path.join(real, "ports", port)
            vport = os.path.join(vdev, "ports", port)
            os.makedirs(os.path.join(vport, "counters"))
            for name in ("state", "phys_state", "rate"):
                os.symlink(os.path.join(rport, name),
                           os.path.join(vport, name))
            hw = sorted(os.listdir(os.path.join(rport, "hw_counters")))
            hw = [h for h in hw if h != "lifespan"]
            if len(hw) < len(PMA_NAMES):
                die("%s port %s: %d hw_counters, %d wanted" %
                    (dev, port, len(hw), len(PMA_NAMES)))
            for name, src in zip(PMA_NAMES, hw):
                bind(libc, os.path.join(rport, "hw_counters", src),
                     os.path.join(vport, "counters", name))
                mounted += 1
    print("view: %d counter files bind-mounted" % mounted)


DEV_RE = re.compile(r'[{,]device="([^"]*)"')


def count(body):
    samples = 0
    port_series = 0
    devices = set()
    for line in body.decode().splitlines():
        if not line or line.startswith("#"):
            continue
        samples += 1
        m = DEV_RE.search(line)
        if m:
            port_series += 1
            devices.add(m.group(1))
    return samples, port_series, len(devices)


class Target:
    def __init__(self, spec):
        self.name, url = spec.split("=", 1)
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = u.hostname, u.port, u.path
        self.conn = None
        self.reconnects = -1
        self.times = []
        self.body = b""

    def get(self):
        """One scrape; returns its wall time in ns (reconnecting included)."""
        t0 = time.perf_counter_ns()
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port,
                                                       timeout=60)
                self.reconnects += 1
            try:
                self.conn.request("GET", self.path, headers={
                    "Accept": "text/plain;version=0.0.4"})
                r = self.conn.getresponse()
                body = r.read()
                break
            except (http.client.HTTPException, OSError) as e:
                self.conn.close()
                self.conn = None
                if attempt:
                    die("%s: %s" % (self.name, e))
        t1 = time.perf_counter_ns()
        if r.status != 200 or not body:
            die("%s: HTTP %d, %d bytes" % (self.name, r.status, len(body)))
        if r.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        self.body = body
        return t1 - t0


def pct(v, p):
    s = sorted(v)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def check_ports(t, ports):
    samples, series, devices = count(t.body)
    if devices != ports:
        die("%s: a scrape names %d devices, not %d" % (t.name, devices, ports))
    return samples, series


def scrape(rounds, max_sec, ports, specs):
    targets = [Target(s) for s in specs]
    for t in targets:
        t.get()
        check_ports(t, ports)
    t_end = time.monotonic() + max_sec
    for r in range(rounds):
        order = targets if r % 2 == 0 else targets[::-1]
        for t in order:
            t.times.append(t.get())
        if time.monotonic() > t_end:
            break
    for t in targets:
        samples, series = check_ports(t, ports)
        ms = [x / 1e6 for x in t.times]
        print("%s rounds=%d median_ms=%.2f p90_ms=%.2f mean_ms=%.2f "
              "min_ms=%.2f bytes=%d samples=%d port_series=%d "
              "reconnects=%d" %
              (t.name, len(ms), median(ms), pct(ms, 90), sum(ms) / len(ms),
               min(ms), len(t.body), samples, series, t.reconnects))


def main(argv):
    if len(argv) == 3 and argv[1] == "view":
        view(argv[2])
    elif len(argv) >= 6 and argv[1] == "scrape":
        scrape(int(argv[2]), float(argv[3]), int(argv[4]), argv[5:])
    else:
        die("usage: see the top of this file")


if __name__ == "__main__":
    main(sys.argv)
