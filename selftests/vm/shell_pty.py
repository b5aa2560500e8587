#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# shell_pty.py [KVER]: make vm-shell as a user at a terminal meets it.
# Runs "run.sh -k KVER -s" on a pseudo-terminal of its own (the terminal's
# Ctrl-C then raises SIGINT as a user's would) and types into it: waits for
# the shell's banner and prompt, runs "sleep 120", presses Ctrl-C, and
# expects the prompt back within 30 s, $? = 130 and QEMU still running;
# then "rocetune -V" and "exit", after which QEMU must end with status 0.
# The shell must not name a console log that is not written.  Exit 0 when
# all of that held, 1 otherwise (each failure named), as TAP.  What the
# terminal showed is in build/vm/shell-KVER/terminal.log.
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROMPT = re.compile(rb"rt-vm:[^\r\n]*# $")


class Term:
    def __init__(self, argv, log):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(TOP)
            os.execvp(argv[0], argv)
        self.buf = b""
        self.status = None
        self.log = open(log, "wb")

    def read(self, secs):
        """Read what comes in SECS seconds; False once the child closed."""
        end = time.time() + secs
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], end - time.time())
            if not r:
                break
            try:
                b = os.read(self.fd, 4096)
            except OSError:
                return False
            if not b:
                return False
            self.buf += b
            self.log.write(b)
            self.log.flush()
        return True

    def expect(self, pat, secs):
        """Wait up to SECS for PAT in what came since the last expect."""
        end = time.time() + secs
        while True:
            m = re.search(pat, self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            if time.time() >= end or not self.read(min(1, end - time.time())):
                m = re.search(pat, self.buf)
                if m:
                    self.buf = self.buf[m.end():]
                return m

    def send(self, s):
        os.write(self.fd, s)

    def reap(self):
        """The child's exit code once it ended (kept), else None."""
        if self.status is None:
            p, st = os.waitpid(self.pid, os.WNOHANG)
            if p:
                self.status = os.waitstatus_to_exitcode(st)
        return self.status

    def alive(self):
        return self.reap() is None

    def wait(self, secs):
        end = time.time() + secs
        while time.time() < end and self.reap() is None:
            self.read(0.5)
        return self.status


def main():
    kver = sys.argv[1] if len(sys.argv) > 1 else "6.1"
    out = os.path.join(TOP, "build", "vm", f"shell-{kver}")
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(out, "console.log")):
        os.unlink(os.path.join(out, "console.log"))
    fails = []
    t = Term([os.path.join(TOP, "selftests", "vm", "run.sh"), "-k", kver,
              "-o", out, "-s"], os.path.join(out, "terminal.log"))
    print("TAP version 13\n1..4")
    n = 0

    def ok(cond, name, why):
        nonlocal n
        n += 1
        print(("ok" if cond else "not ok") + f" {n} vm shell: {name}"
              + ("" if cond else f" # {why}"), flush=True)
        if not cond:
            fails.append(name)

    # Lines end in \r\r\n here: the guest's tty and this pty both map NL.
    banner = t.expect(rb"(?s)rt-vm: kernel [^\r\n]*[\r\n]+(.*?)"
                      + PROMPT.pattern, 600)
    text = banner.group(0).decode(errors="replace") if banner else ""
    ok(banner and "Ctrl-C interrupts" in text and "not ready" not in text
       and "FAILED" not in text, "the banner says what is there, no step failed",
       "no banner and prompt in 600 s" if not banner else
       "banner: " + " | ".join(text.splitlines()[:12]))
    if banner:
        t.send(b"sleep 120\r")
        t.expect(rb"sleep 120[\r\n]+", 30)
        t.read(3)
        t.send(b"\x03")
        back = t.expect(PROMPT, 30)
        alive = t.alive()
        t.send(b"echo rc=$?\r")
        rc = t.expect(rb"rc=(\d+)", 30)
        ok(back and alive and rc and rc.group(1) == b"130",
           "Ctrl-C interrupts sleep 120 (exit 130), the VM runs on",
           f"prompt back: {bool(back)}, QEMU running: {alive}, $? "
           + (rc.group(1).decode() if rc else "not echoed"))
        t.send(b"rocetune -V\r")
        v = t.expect(rb"[\r\n]rocetune \d+\.\d+", 30)
        ok(v, "rocetune on PATH after it", "no \"rocetune X.Y\" answer")
        t.send(b"exit\r")
    else:
        ok(False, "Ctrl-C interrupts sleep 120, the VM runs on", "no shell")
        ok(False, "rocetune on PATH after it", "no shell")
    st = t.wait(120)
    if st is None:
        # run.sh, QEMU and its helper: the child's process group.
        os.killpg(t.pid, signal.SIGKILL)
        t.wait(10)
    log = os.path.join(out, "console.log")
    named = b"console.log" in open(t.log.name, "rb").read()
    ok(st == 0 and (not named or os.path.exists(log)),
       "exit powers off (run.sh exit 0), no console log named unwritten",
       f"run.sh exit {st}; console.log named {named},"
       f" written {os.path.exists(log)}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
