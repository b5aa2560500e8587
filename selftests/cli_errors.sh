#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI explains what is wrong and exits non-zero: a missing
# module says how to load it, bad input is named with a hint (exit 2), an
# unknown device or port is named (exit 1), a value the kernel rejects is
# named by its keyword with the kernel's range and changes nothing.  Short
# options bundle and objects and commands abbreviate as in iproute2.

ALL_TESTS="no_module bad_input unknown_device missing_port kernel_range abbreviations"

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
	cli_fails 2 'ambiguous command "s" for object "qp": show, stats, set' qp s
	cli_fails 2 'unknown command "showw" for object "port"' port showw
	cli_fails 2 'unknown option "-x"' -x dev show
	cli_fails 2 'unknown option "-x"' -jx dev show
	cli_fails 2 'unknown option "-json"; did you mean "--json"\?' -json dev show
	cli_fails 2 '"-o" needs a value' -o
	cli_fails 2 'invalid device "rxe0/0": expected DEV or DEV/PORT \(PORT 1\.\.255\)' \
		port show rxe0/0
	cli_fails 2 'unexpected argument "b"' dev show a b
	cli_fails 2 'invalid value "abc" for "interval-ms": not a number \(expected 0\.\.4294967295\)' \
		config set interval-ms abc
	cli_fails 2 'invalid value "abc" for "interval": not a number' config set interval abc
	cli_fails 2 'invalid value "16777216" for "qpn": out of range \(expected 0\.\.16777215\)' \
		qp show qpn 16777216
	cli_fails 2 '"storm-ms" needs a value' config set storm-ms
	cli_fails 2 '"dev" needs a value' qp show dev
	cli_fails 2 '"by" needs a value' qp show top 3 by
	cli_fails 2 'nothing to set' config set
	cli_fails 2 'unknown setting "interval-s"' config set interval-s 100
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
	local d='"rt_nodev" is not an RDMA device$'

	RET=0
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	cli_fails 1 "^rocetune: dev show: $d" dev show rt_nodev
	cli_fails 1 "^rocetune: port show: $d" port show rt_nodev
	cli_fails 1 "^rocetune: port show: $d" port show rt_nodev/1
	cli_fails 1 "^rocetune: config show: $d" config show dev rt_nodev
	cli_fails 1 "^rocetune: config set: $d" \
		config set dev rt_nodev interval-ms 100
	cli_fails 1 '^rocetune: qp show: "rxe99" is not an RDMA device$' \
		qp show dev rxe99
	cli_fails 1 "^rocetune: qp stats: $d" qp stats dev rt_nodev
	log_test "an unknown device is named as not an RDMA device, exit 1"
}

missing_port() {
	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	cli_fails 1 "^rocetune: port show: RDMA device \"$RT_RXE0\" has no port 9\$" \
		port show "$RT_RXE0/9"
	cli_fails 1 "^rocetune: qp show: RDMA device \"$RT_RXE0\" has no port 9\$" \
		qp show dev "$RT_RXE0/9"
	log_test "a missing port is named with its device, exit 1"
}

kernel_range() {
	local before after

	RET=0
	before=$("$RT_CLI" -j config show | jq -e .interval_ms)
	check_err $? "config show failed"
	cli_fails 1 'config set: "interval-ms": .+: .+ \(valid range [0-9]+\.\.[0-9]+\)' \
		config set interval-ms 1
	cli_fails 1 'config set: "interval-ms": .+' config set interval 4294967295
	cli_fails 1 'qp set: "verify-ms": .+ \(valid range [0-9]+\.\.[0-9]+\)' \
		qp set verify-ms 1
	after=$("$RT_CLI" -j config show | jq -e .interval_ms)
	check_same "$after" "$before" \
		"a rejected interval changed the configuration ($before -> $after)"
	log_test "a value the kernel rejects shows its message and range"
}

# same_output WORDS -- WORDS: both command lines print the same.
same_output() {
	local a=() b

	while [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	b=$("$RT_CLI" "$@")
	check_err $? "rocetune $* failed"
	[ -n "$b" ] && [ "$("$RT_CLI" "${a[@]}")" = "$b" ]
	check_err $? "rocetune ${a[*]} differs from rocetune $*"
}

abbreviations() {
	RET=0
	same_output -jp d sh -- --json --pretty dev show
	same_output -js po sh "$RT_RXE0/1" -- -j -s port show "$RT_RXE0/1"
	same_output -soprometheus po sh -- -s -o prometheus port show
	same_output conf sh -- config show
	same_output --js q st -- -j qp stats
	"$RT_CLI" -js port show "$RT_RXE0/1" | jq -e '.[0] | has("hw_counters")' > /dev/null
	check_err $? "-js did not set both -j and -s"
	log_test "bundled options (-jp, -js) and abbreviations (d sh, po sh)"
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
