#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI explains what is wrong and exits non-zero: a missing
# module says how to load it, bad input is named with a hint (exit 2), an
# unknown device or port is named and the kernel's extended ACK message is
# shown (exit 1), and a rejected value changes nothing.

ALL_TESTS="no_module bad_input unknown_device missing_port kernel_range"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_ERR=$(mktemp)

# cli_fails RC PATTERN ARGS...: rocetune ARGS exits RC and its stderr
# matches the extended regexp PATTERN.
cli_fails() {
	local want=$1 pattern=$2 rc

	shift 2
	"$RT_CLI" "$@" > /dev/null 2> "$RT_ERR"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		check_err 1 "rocetune $* exited $rc, not $want: $(cat "$RT_ERR")"
		return 1
	fi
	if ! grep -Eq "$pattern" "$RT_ERR"; then
		check_err 1 "rocetune $*: \"$(cat "$RT_ERR")\" does not match /$pattern/"
		return 1
	fi
	return 0
}

no_module() {
	RET=0
	rt_kmod_unload
	cli_fails 1 'the rocetune kernel module is not loaded \(modprobe rocetune\)' \
		dev show
	cli_fails 1 'not loaded' -j port show
	cli_fails 1 'not loaded' monitor
	log_test "without the module: says how to load it, exit 1"
}

bad_input() {
	local cli udir

	RET=0
	cli_fails 2 'unknown object "foo"; try "rocetune help"' foo
	cli_fails 2 'unknown command "foo" for object "dev"; try "rocetune dev help"' \
		dev foo
	cli_fails 2 'unknown command "sh" for object "port"' port sh
	cli_fails 2 'unknown option "-x"' -x dev show
	cli_fails 2 'invalid device "rxe0/0"' port show rxe0/0
	cli_fails 2 'unexpected argument "b"' dev show a b
	cli_fails 2 'invalid value "abc" for "interval"' config set interval abc
	cli_fails 2 '"storm-ms" needs a value' config set storm-ms
	cli_fails 2 'nothing to set' config set
	cli_fails 2 'unknown setting "interval-ms"' config set interval-ms 100
	cli_fails 2 'only supported by "port show"' -o prometheus dev show
	cli_fails 2 'exclude each other' -j -o prometheus port show
	cli_fails 2 '"changed" and "since" exclude each other' \
		qp show changed since 5
	# A copy every user can read: the tree may not be.
	cli=${RT_CLI#"$RT_TOP"/}
	if udir=$(rt_unpriv_tree "$cli"); then
		XDG_RUNTIME_DIR='' setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$udir/$cli" qp show changed \
			> /dev/null 2> "$RT_ERR"
		[ $? = 2 ] && grep -qF 'runtime directory XDG_RUNTIME_DIR, which is not set' "$RT_ERR"
		check_err $? "qp show changed without a runtime directory: $(cat "$RT_ERR")"
		rm -rf "$udir"
	else
		check_err 1 "cannot copy $cli for an unprivileged user"
	fi
	log_test "bad input is named with a hint, exit 2"
}

unknown_device() {
	RET=0
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	# "No such device: <the kernel's message>"
	cli_fails 1 'device "rt_nodev": No such device: .+' dev show rt_nodev
	cli_fails 1 'device "rt_nodev": No such device: .+' port show rt_nodev
	cli_fails 1 'port "rt_nodev/1": No such device: .+' port show rt_nodev/1
	cli_fails 1 'dev "rt_nodev": No such device: .+' config show dev rt_nodev
	cli_fails 1 'dev "rt_nodev": No such device: .+' \
		config set dev rt_nodev interval 100
	log_test "an unknown device is named, with the kernel's message, exit 1"
}

missing_port() {
	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	cli_fails 1 "port \"$RT_RXE0/9\": No such device: .+" port show "$RT_RXE0/9"
	log_test "a missing port is named, with the kernel's message, exit 1"
}

kernel_range() {
	local before after

	RET=0
	before=$("$RT_CLI" -j config show | jq -e .interval_ms)
	check_err $? "config show failed"
	cli_fails 1 'config set: .+: .+ \(valid range [0-9]+\.\.[0-9]+\)' \
		config set interval 1
	cli_fails 1 'config set: .+' config set interval 4294967295
	after=$("$RT_CLI" -j config show | jq -e .interval_ms)
	check_same "$after" "$before" \
		"a rejected interval changed the configuration ($before -> $after)"
	log_test "a value the kernel rejects shows its message and range"
}

cleanup() {
	rm -f "$RT_ERR"
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd jq setpriv
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
