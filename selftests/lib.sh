#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers of the rocetune selftests (sourced, not run).
#
# A test script sets ALL_TESTS to the names of its test functions, sources
# this file and calls rt_run_tests.  Each test function sets RET=0, checks
# with check_err/check_fail and ends with log_test "description", which
# prints one TAP line.  Exit status follows kselftest: 0 pass, 1 fail,
# 4 skip.  Skipping is only for a documented "this kernel lacks the
# feature": a setup that fails (a module that does not load, a wire that
# does not come up, a tool that is missing or does not run) fails.
#
# pipefail: "producer | checker" fails when the producer fails, as jq and
# friends succeed on empty input.  Never end such a pipeline in "grep -q"
# or "head": their early exit kills the producer with SIGPIPE, which then
# fails the pipeline.  An empty output is no result: see rt_json and
# check_same.
set -o pipefail

# jq is gojq, an independent implementation of the same language: under
# TCG emulation jq 1.6 needs 0.6-1.2 s to start (it compiles its builtins
# on every run), gojq about 0.1 s, and the tests run jq hundreds of times.
# gojq also keeps 64-bit counters exact where jq 1.6 rounds them to
# doubles.  Commands run by other programs (timeout, xargs) still run jq.
# gojq always sorts the keys of objects, and has no -S for it.
jq() {
	local a args=()

	for a; do
		case $a in
		-S | --sort-keys) ;;
		*) args+=("$a") ;;
		esac
	done
	gojq "${args[@]}"
}

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

RT_SELFTESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RT_TOP=$(cd "$RT_SELFTESTS/.." && pwd)
# rt_genl.py and what it reads (the family's YNL spec), as paths from the
# tree's top: rt_unpriv_tree "${RT_GENL_FILES[@]}" copies them for a user
# who cannot read the tree.
# shellcheck disable=SC2034 # used by the tests that source this file
RT_GENL_FILES=(selftests/rt_genl.py selftests/rt_ynl.py
	Documentation/netlink/specs/rocetune.yaml)
# Modules built for this kernel by scripts/build-kmod.sh KVER: the tests
# load them from there, never an installed rocetune (see rt_modload).
RT_KVER=${RT_KVER:-$(uname -r)}
RT_BUILD=${RT_BUILD:-$RT_TOP/build/$RT_KVER}

RET=0
RETMSG=
rt_ntests=0
rt_nfail=0
rt_nskip=0

# Address plan of the Soft-RoCE wire (a veth pair in the initial netns).
RT_NETDEV0=va
RT_NETDEV1=vb
RT_IP0=10.0.0.1
RT_IP1=10.0.0.2
RT_RXE0=rxe0
RT_RXE1=rxe1

check_err() {
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -ne 0 ]; then
		RET=$err
		RETMSG=$msg
	fi
}

check_fail() {
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -eq 0 ]; then
		RET=1
		RETMSG=$msg
	fi
}

log_test() {
	local name=$1

	rt_ntests=$((rt_ntests + 1))
	if [ "$RET" -ne 0 ]; then
		echo "not ok $rt_ntests $name # $RETMSG"
		rt_nfail=$((rt_nfail + 1))
	else
		echo "ok $rt_ntests $name"
	fi
	RET=0
	RETMSG=
}

log_skip() {
	rt_ntests=$((rt_ntests + 1))
	rt_nskip=$((rt_nskip + 1))
	echo "ok $rt_ntests $1 # SKIP $2"
	RET=0
	RETMSG=
}

# rt_run_tests: run every function in ALL_TESTS (or in RT_ONLY_TESTS, to
# run a few while working on them: RT_VM_APPEND=RT_ONLY_TESTS=NAME), print
# the plan first, and after each function the time it took (the suite's
# time budget is read from these lines).
rt_run_tests() {
	local t n=0 t0 tests=${RT_ONLY_TESTS:-$ALL_TESTS}

	for t in $tests; do n=$((n + 1)); done
	echo "TAP version 13"
	echo "1..$n"
	for t in $tests; do
		t0=${EPOCHREALTIME/./}
		"$t"
		echo "# time: $t $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms"
	done
	if [ "$rt_nfail" -ne 0 ]; then
		exit $KSFT_FAIL
	fi
	if [ "$rt_nskip" -eq "$rt_ntests" ] && [ "$rt_ntests" -ne 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# check_same GOT WANT MSG: like check_err, fails unless GOT equals WANT
# and is not empty: two reads that both failed are no match.
check_same() {
	if [ -z "$1" ] || [ "$1" != "$2" ]; then
		check_err 1 "$3"
	fi
}

# expect WHAT GOT WANT: like check_err, fails unless GOT equals WANT,
# naming WHAT and both values.
expect() {
	local what=$1 got=$2 want=$3

	[ "$got" = "$want" ]
	check_err $? "$what: got '$got', expected '$want'"
}

# rt_setup_failed MSG: a test script's setup failed: fail the script (never
# a skip).
rt_setup_failed() {
	echo "# setup failed: $1"
	exit $KSFT_FAIL
}

# rt_require_root, rt_require_cmd CMD...: at the start of a script.  Not
# being root, or a missing tool, fails the script: "make deps" installs
# every tool the tests use, so a missing one is a broken setup, not a
# reason to skip.
rt_require_root() {
	[ "$(id -u)" -eq 0 ] || rt_setup_failed "needs root"
}

rt_require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" > /dev/null ||
			rt_setup_failed "$c is not installed (make deps)"
	done
}

# rt_json CMD...: run CMD and print its output, JSON for jq.  Fails, and
# says why on stderr, when CMD fails or prints nothing: jq succeeds on
# empty input, so "$(rt_json rocetune -j port show | jq ...)" cannot pass
# on nothing.
rt_json() {
	local out rc

	out=$("$@")
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "# $*: exit $rc" >&2
		return "$rc"
	fi
	if [ -z "$out" ]; then
		echo "# $*: no output" >&2
		return 1
	fi
	printf '%s\n' "$out"
}

# rt_kernel_has CONFIG_X: the running kernel was built with CONFIG_X (y or
# m), from its config in /boot (the VM sees the host's).  Fails when the
# config cannot be read: "the kernel lacks it" must be known, not guessed.
rt_kernel_has() {
	local cfg

	cfg=/boot/config-$(uname -r)
	if [ ! -r "$cfg" ]; then
		echo "# rt_kernel_has: cannot read $cfg" >&2
		return 2
	fi
	grep -Eq "^$1=[ym]$" "$cfg"
}

# rt_unpriv_tree FILE...: copy FILEs of the tree (paths from its top) to
# a new temporary directory that every user can read, and print its path,
# for the checks that run a tool as an unprivileged user: the tree itself
# may not be readable to them (a clone made with umask 077, or on a host
# a tree under a home directory of mode 0700).  The caller removes it.
rt_unpriv_tree() {
	local dir f

	dir=$(mktemp -d) || return 1
	for f in "$@"; do
		if ! mkdir -p "$dir/$(dirname "$f")" ||
		   ! cp "$RT_TOP/$f" "$dir/$f"; then
			rm -rf "$dir"
			return 1
		fi
	done
	chmod -R a+rX "$dir" || { rm -rf "$dir"; return 1; }
	echo "$dir"
}

# wait_for SECS CMD...: run CMD until it succeeds or SECS have passed.
wait_for() {
	local deadline=$(($(date +%s) + $1))

	shift
	while ! "$@" > /dev/null 2>&1; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# rt_exited PID: process PID (a child of this shell) has ended: it is
# gone or a zombie waiting to be reaped.
rt_exited() {
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2> /dev/null
}

# rt_monitor_start OUT ERR: "rocetune -j monitor" in the background,
# events to OUT, its note to ERR, its pid in RT_MON_PID.  Returns once
# the monitor says it listens, which it prints only after it joined the
# events group, so no event raised after this is missed on a slow
# machine; fails if it has not said so within 10 s or has exited.
rt_monitor_start() {
	"${RT_CLI:-$RT_TOP/build/userspace/rocetune}" -j monitor > "$1" 2> "$2" &
	RT_MON_PID=$!
	wait_for 10 rt_monitor_listens "$2" && return 0
	echo "# rocetune monitor not listening after 10 s: $(cat "$2")"
	return 1
}

rt_monitor_listens() {
	kill -0 "$RT_MON_PID" || return 2
	grep -q "^rocetune: monitor: listening to " "$1"
}

# Kernel modules ------------------------------------------------------

# rt_modload NAME PATH [PARAM...]: load module NAME from this tree's build
# (PATH relative to build/KVER/); never one installed on the host: a
# missing build fails, naming the file.  The RDMA core is loaded first, as
# insmod does not resolve dependencies.
rt_modload() {
	local name=$1 ko=$2

	shift 2
	if [ ! -f "$RT_BUILD/$ko" ]; then
		echo "# rt_modload: $name is not built: no $RT_BUILD/$ko" \
			"(scripts/build-kmod.sh $RT_KVER)" >&2
		return 1
	fi
	modprobe -q ib_core || return 1
	insmod "$RT_BUILD/$ko" "$@"
}

rt_kmod_load() {
	rt_modload rocetune kmod/rocetune.ko
}

# rt_kmod_unload: rocetune.ko unloaded.  While rmmod says it is in use (a
# netlink dump holds a module reference until its socket is released,
# also a socket of a process that was just killed), it is retried for up
# to 10 s; any other refusal fails at once, with rmmod's words.
rt_kmod_unload() {
	local err deadline=$(($(date +%s) + 10))

	[ -d /sys/module/rocetune ] || return 0
	until err=$(rmmod rocetune 2>&1); do
		[ -d /sys/module/rocetune ] || return 0
		case $err in
		*"in use"*) ;;
		*) echo "# rt_kmod_unload: $err" >&2; return 1 ;;
		esac
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "# rt_kmod_unload: rocetune is still in use after 10 s" \
				"(refcnt $(cat /sys/module/rocetune/refcnt 2> /dev/null))" >&2
			return 1
		fi
		sleep 0.2
	done
}

rt_kmod_loaded() {
	[ -d /sys/module/rocetune ]
}

# rt_dcb ARGS...: dcb for a set.  iproute2 before 6.2 (Debian 12 has
# 6.1.0) leaves the ACK of its own GET in the socket and reads it as the
# answer to the SET (fixed upstream by d0e02f35 "dcb: Do not leave ACKs in
# socket receive buffer"): the kernel's answer is never read, so dcb exits
# 0 even when the set is refused, and says "Protocol error" when a second
# boundary changed the sequence number in between, although the set was
# done.  So this takes that error for success, and tests read every set
# back.
rt_dcb() {
	local out rc

	out=$(dcb "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$out" = "Attribute write: Protocol error" ]; then
		rc=0
	fi
	[ -z "$out" ] || echo "# dcb $*: $out"
	return "$rc"
}

# rt_sim_load: load the simulated NIC (rocetune_sim) unless it is loaded
# already; rt_sim_unload unloads it only if rt_sim_load loaded it.
RT_SIM_LOADED_HERE=0

rt_sim_load() {
	[ -d /sys/module/rocetune_sim ] && return 0
	rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko ||
		return 1
	RT_SIM_LOADED_HERE=1
}

rt_sim_unload() {
	if [ "$RT_SIM_LOADED_HERE" = 1 ]; then
		rmmod rocetune_sim
		RT_SIM_LOADED_HERE=0
	fi
}

# dmesg_has PATTERN: the kernel log contains an extended regexp.  The VM
# runner clears the log before each test script.
dmesg_has() {
	dmesg -t | grep -E "$1" > /dev/null
}

# Kernel log lines that fail a reliability test: oopses, WARNs, KASAN,
# UBSAN, lockdep, SLUB's own reports, hung tasks, RCU stalls, leaks.
RT_DMESG_BAD='^(BUG[: ]|WARNING: |Oops|kernel BUG at|general protection fault|Unable to handle kernel|Kernel panic)|KASAN|UBSAN|KFENCE|list_(add|del) corruption|refcount_t: |INFO: task .* blocked for more than|rcu.*detected stall|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|Redzone|Poison overwritten|Object padding overwritten|unreferenced object|unregister_netdevice: waiting for'

# rt_dmesg_pos: the number of kernel log lines so far.
rt_dmesg_pos() {
	dmesg | wc -l
}

# rt_dmesg_bad POS: the bad kernel log lines after line POS.
rt_dmesg_bad() {
	dmesg -t | tail -n +$(($1 + 1)) | grep -E "$RT_DMESG_BAD"
}

# rt_kmalloc_bytes: bytes of all kmalloc caches' objects in use, after each
# cache gave back its per-CPU and empty slabs.
rt_kmalloc_bytes() {
	local f

	for f in /sys/kernel/slab/*kmalloc-*/shrink; do
		echo 1 > "$f" 2> /dev/null
	done
	awk '$1 ~ /kmalloc-/ { s += $2 * $4 } END { print s + 0 }' /proc/slabinfo
}

# The Soft-RoCE wire --------------------------------------------------
#
# rxe works only in the initial network namespace, so both ends live
# there: a veth pair whose two addresses are local, with policy routing
# that sends traffic between them over the wire instead of "lo".

# rt_wire_up: build the wire; every step must succeed (the caller fails
# its test or script when this fails).
rt_wire_up() {
	local v

	modprobe -q veth || return 1
	modprobe -q rdma_rxe || return 1
	ip link add "$RT_NETDEV0" type veth peer name "$RT_NETDEV1" || return 1
	for v in all "$RT_NETDEV0" "$RT_NETDEV1"; do
		sysctl -qw "net.ipv4.conf.$v.accept_local=1" \
			"net.ipv4.conf.$v.rp_filter=0" || return 1
	done
	sysctl -qw "net.ipv6.conf.$RT_NETDEV0.disable_ipv6=1" \
		"net.ipv6.conf.$RT_NETDEV1.disable_ipv6=1" || return 1
	ip addr add "$RT_IP0/32" dev "$RT_NETDEV0" &&
		ip addr add "$RT_IP1/32" dev "$RT_NETDEV1" &&
		ip link set "$RT_NETDEV0" up &&
		ip link set "$RT_NETDEV1" up || return 1
	if ! ip rule show pref 100 | grep lookup > /dev/null; then
		ip rule add pref 100 lookup local || return 1
		ip rule del pref 0 2> /dev/null
	fi
	ip rule add pref 10 iif lo lookup 100 &&
		ip rule add pref 11 oif "$RT_NETDEV0" lookup 100 &&
		ip rule add pref 12 oif "$RT_NETDEV1" lookup 100 &&
		ip route add "$RT_IP1/32" dev "$RT_NETDEV0" src "$RT_IP0" table 100 &&
		ip route add "$RT_IP0/32" dev "$RT_NETDEV1" src "$RT_IP1" table 100 ||
		return 1
	rdma link add "$RT_RXE0" type rxe netdev "$RT_NETDEV0" || return 1
	rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1" || return 1
	wait_for 10 rt_gid_index "$RT_RXE0" "$RT_IP0" &&
		wait_for 10 rt_gid_index "$RT_RXE1" "$RT_IP1"
}

rt_wire_down() {
	local p

	rdma link del "$RT_RXE0" 2> /dev/null
	rdma link del "$RT_RXE1" 2> /dev/null
	ip link del "$RT_NETDEV0" 2> /dev/null
	for p in 10 11 12; do
		ip rule del pref "$p" 2> /dev/null
	done
	ip route flush table 100 2> /dev/null
	if ! ip rule show pref 0 | grep lookup > /dev/null; then
		ip rule add pref 0 lookup local
		ip rule del pref 100 2> /dev/null
	fi
	return 0
}

# rt_gid_index DEV IPV4: print the index of DEV's RoCEv2 GID for IPV4.
rt_gid_index() {
	local ip=$2 d=/sys/class/infiniband/$1/ports/1 f i gid want a b c e

	IFS=. read -r a b c e <<< "$ip"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$a" "$b" "$c" "$e")
	for f in "$d"/gid_attrs/types/*; do
		i=${f##*/}
		[ "$(cat "$f" 2> /dev/null)" = "RoCE v2" ] || continue
		gid=$(cat "$d/gids/$i" 2> /dev/null)
		if [ "$gid" = "$want" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# rt_port_listening PORT: a TCP socket listens on PORT.
rt_port_listening() {
	ss -ltnH "sport = :$1" | grep LISTEN > /dev/null
}
