#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# ExecStart of rt-test.service in the systemd-as-PID-1 VM (run.sh -S): run
# RT_EXEC in the project tree, fail it on a bad kernel log line, save the
# journal, and leave the exit status in RT_OUT/status.  The unit's
# SuccessAction powers the VM off.

. /etc/rt.env
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
export RT_WORK RT_OUT RT_KVER

# The kernel log lines that fail a run, as in guest.sh.
bad_re='^(BUG[: ]|WARNING: |Oops|kernel BUG at|general protection fault|Unable to handle kernel|Kernel panic)|KASAN|UBSAN|KFENCE|list_(add|del) corruption|refcount_t: |INFO: task .* blocked for more than|rcu.*detected stall|unregister_netdevice: waiting for|unreferenced object'

echo "rt-vm: systemd $(systemctl --version | sed -n '1s/^systemd //p') is PID 1, kernel $(uname -r), up $(cut -d' ' -f1 /proc/uptime)s"
cd "$RT_WORK" && sh -c "$RT_EXEC" < /dev/null
status=$?
dmesg -t > "$RT_OUT/dmesg.log"
bad=$(grep -E -m 1 "$bad_re" "$RT_OUT/dmesg.log")
if [ -n "$bad" ]; then
	echo "rt-vm: kernel log: $bad"
	[ "$status" != 0 ] || status=1
fi
journalctl -b --no-pager -o short-monotonic > "$RT_OUT/journal.log" 2>&1
echo "$status" > "$RT_OUT/status"
exit 0
