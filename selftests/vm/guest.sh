#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of the test VM after switch_root (see init).  Prepares the guest,
# then, by RT_MODE:
#   test   run RT_TESTS (kselftest scripts under selftests/), one after the
#          other in this one boot, writing TAP to RT_OUT/results.tap and
#          checking the kernel log after every test;
#   exec   run the command RT_EXEC, its exit status is the VM's;
#   shell  an interactive shell on the serial console, made ready by
#          shell-rc.sh.
# The exit status goes to RT_OUT/status; then the VM powers off.  A kernel
# crash ends the VM without a status file, which the host reports.

. /run/rt.env
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM="${TERM:-linux}" LANG=C.UTF-8
export RT_WORK RT_OUT RT_KVER RT_HOST_TSHARK

# Kernel log lines that fail a test: crashes, warnings, memory corruption,
# lockups and leaked references.  Applied to "dmesg -t".
RT_DMESG_BAD='^(BUG[: ]|WARNING: |Oops|kernel BUG at|general protection fault|Unable to handle kernel|Kernel panic)|KASAN|UBSAN|KFENCE|list_(add|del) corruption|refcount_t: |INFO: task .* blocked for more than|rcu.*detected stall|unregister_netdevice: waiting for|unreferenced object'

poweroff_now() {
	sync
	echo o > /proc/sysrq-trigger
	# PID 1 must not exit, and the 9p root is going away: spin on builtins.
	while :; do :; done
}

setup_guest() {
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t debugfs debugfs /sys/kernel/debug
	modprobe -q configfs
	mount -t configfs configfs /sys/kernel/config
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	ln -sf /proc/self/fd /dev/fd 2>/dev/null
	hostname rt-vm
	ip link set lo up
	# The tests load this tree's modules (rt_modload), never the host's:
	# no autoloading of an installed rocetune (through its genl family
	# alias, say).
	mkdir -p /run/modprobe.d
	for m in rocetune rocetune_sim rt_fault; do
		echo "install $m /bin/false"
	done > /run/modprobe.d/rocetune-vm.conf
	mkdir -p "$RT_OUT/dmesg"
}

# emit LINE: one line of the run's TAP, to the console and the results file.
emit() {
	echo "$1"
	echo "$1" >> "$RT_OUT/results.tap"
}

# check_dmesg NAME: save the kernel log since the last check, clear it and
# print its first bad line, if any.
check_dmesg() {
	dmesg -t > "$RT_OUT/dmesg/$1.log"
	dmesg -C
	grep -E -m 1 "$RT_DMESG_BAD" "$RT_OUT/dmesg/$1.log"
}

run_tests() {
	total=0
	for t in $RT_TESTS; do total=$((total + 1)); done
	: > "$RT_OUT/results.tap"
	emit "TAP version 13"
	emit "1..$total"
	emit "# kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime)s"

	bad=$(check_dmesg 00-boot)
	[ -z "$bad" ] || emit "# kernel log at boot: $bad"

	failed=0
	n=0
	for t in $RT_TESTS; do
		n=$((n + 1))
		name=$(basename "$t")
		echo "$n $t" > "$RT_OUT/current"
		emit "# selftests: rocetune: $t"
		start=$(date +%s)
		: > "$RT_OUT/out"
		{
			cd "$RT_WORK/selftests" &&
				timeout -k 10 "$RT_TIMEOUT" "./$t" < /dev/null
			echo $? > "$RT_OUT/rc"
		} 2>&1 | while IFS= read -r line; do
			emit "# $line"
			echo "$line" >> "$RT_OUT/out"
		done
		rc=$(cat "$RT_OUT/rc")
		secs=$(($(date +%s) - start))
		# A script that passes must have run every sub-test it planned.
		plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$RT_OUT/out" | head -n 1)
		ran=$(grep -cE '^(not )?ok [0-9]+' "$RT_OUT/out")
		bad=$(check_dmesg "$(printf '%02d' "$n")-$name")
		if [ -n "$bad" ]; then
			emit "not ok $n selftests: rocetune: $t # kernel log: $bad"
			failed=$((failed + 1))
		elif [ "$rc" = 0 ] && [ "$ran" != "${plan:-$ran}" ]; then
			emit "not ok $n selftests: rocetune: $t # ran $ran of $plan sub-tests"
			failed=$((failed + 1))
		elif [ "$rc" = 0 ]; then
			emit "ok $n selftests: rocetune: $t # ${secs}s"
		elif [ "$rc" = 4 ]; then
			emit "ok $n selftests: rocetune: $t # SKIP"
		elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			emit "not ok $n selftests: rocetune: $t # TIMEOUT ${RT_TIMEOUT}s"
			failed=$((failed + 1))
		else
			emit "not ok $n selftests: rocetune: $t # exit=$rc"
			failed=$((failed + 1))
		fi
	done
	rm -f "$RT_OUT/current" "$RT_OUT/out"
	[ "$failed" = 0 ]
}

setup_guest
case "$RT_MODE" in
test)
	run_tests
	status=$?
	;;
exec)
	cd "$RT_WORK" && sh -c "$RT_EXEC" < /dev/null
	status=$?
	bad=$(check_dmesg exec)
	if [ -n "$bad" ]; then
		echo "rt-vm: kernel log: $bad"
		[ "$status" != 0 ] || status=1
	fi
	;;
shell)
	# The serial console is the shell's controlling terminal (setsid -c),
	# so Ctrl-C, which QEMU passes on (run.sh), interrupts the command in
	# it.  shell-rc.sh loads the module, brings the wire up, puts the
	# tools and man pages on their paths and says so.
	cd "$RT_WORK" &&
		setsid -c /bin/bash --rcfile "$RT_WORK/selftests/vm/shell-rc.sh" -i \
			< /dev/ttyS0 > /dev/ttyS0 2>&1
	status=0
	;;
*)
	echo "rt-vm: unknown RT_MODE '$RT_MODE'"
	status=2
	;;
esac
echo "$status" > "$RT_OUT/status"
poweroff_now
