#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rocetune CLI explains what is wrong and exits non-zero: a missing
# module says how to load it, bad input is named with a hint (exit 2), an
# unknown device or port is named (exit 1), a value the kernel rejects is
# named by its keyword with the kernel's range and changes nothing.  Short
# options bundle and objects and commands abbreviate as in iproute2.
# Nothing says OK when nothing happened: an empty "qp show" says why, a
# missing QP is an error naming it, the monitor says what it listens to,
# -p without JSON is refused, one knob has one range in every message, and
# a threshold set where no counter can reach it says so.  A missing
# profile directory is a note (/etc/rocetune) or an error naming it
# (ROCETUNE_PROFILE_DIR), and -j profile check counts the files it read.

ALL_TESTS="no_module bad_input unknown_device missing_port kernel_range one_range qp_none monitor_says pretty_alone thresh_mute profile_dir abbreviations"

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
	# Without the module, no range it does not check.
	cli_fails 2 'invalid value "abc" for "interval-ms": not a number \(milliseconds; rocetune.ko checks the range\)$' \
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

# range_of PATTERN ARGS...: the "MIN..MAX" of the range in rocetune ARGS's
# message, which must fail and match PATTERN.
range_of() {
	local pattern=$1

	shift
	"$RT_CLI" "$@" > /dev/null 2> "$RT_ERR" && return 1
	grep -E "$pattern" "$RT_ERR" > /dev/null || return 1
	grep -oE 'valid range [0-9]+\.\.[0-9]+' "$RT_ERR" | sed 's/valid range //'
}

# one_range: a knob's range is the same whether the CLI refuses a value
# (no number) or the kernel does (out of its range).
one_range() {
	local kw cli kern

	RET=0
	for kw in interval-ms storm-ms; do
		cli=$(range_of "invalid value \"abc\" for \"$kw\": not a number" \
			config set "$kw" abc)
		check_err $? "config set $kw abc: $(cat "$RT_ERR")"
		kern=$(range_of "config set: \"$kw\": " config set "$kw" 1)
		check_err $? "config set $kw 1: $(cat "$RT_ERR")"
		[ -n "$cli" ] && [ "$cli" = "$kern" ]
		check_err $? "$kw: the CLI says \"$cli\", the kernel \"$kern\""
		echo "# $kw: CLI $cli, kernel $kern"
	done
	log_test "one range per knob: config set interval-ms/storm-ms say the kernel's range both ways"
}

# qp_none: an empty "qp show" says so (rc 0); a QP that is not there is an
# error naming it (rc 1), with or without a device.
qp_none() {
	local out

	RET=0
	# No device accounts QPs (the module was loaded afresh, rdma shows
	# none of rxe's either way).
	out=$("$RT_CLI" qp show 2> "$RT_ERR")
	check_err $? "qp show with no QPs failed: $(cat "$RT_ERR")"
	[ -z "$out" ] &&
		grep -q '^rocetune: note: no QP on any device: rocetune shows the QPs of devices with accounting on' "$RT_ERR"
	check_err $? "qp show with no QPs: \"$out\", stderr \"$(cat "$RT_ERR")\""
	out=$("$RT_CLI" qp show dev "$RT_RXE0" 2> "$RT_ERR") && [ -z "$out" ] &&
		grep -q "^rocetune: note: no QP on $RT_RXE0: " "$RT_ERR"
	check_err $? "qp show dev $RT_RXE0 with no QPs: \"$out\", stderr \"$(cat "$RT_ERR")\""
	# JSON says it with its empty array, and nothing else.
	out=$("$RT_CLI" -j qp show 2> "$RT_ERR") && [ "$out" = "[]" ] &&
		[ ! -s "$RT_ERR" ]
	check_err $? "-j qp show with no QPs: \"$out\", stderr \"$(cat "$RT_ERR")\""
	cli_fails 1 '^rocetune: qp show: no QP 999999 on any device' \
		qp show qpn 999999
	cli_fails 1 "^rocetune: qp show: no QP 999999 on $RT_RXE0" \
		qp show dev "$RT_RXE0" qpn 999999
	cli_fails 1 "^rocetune: qp show: no QP 999999 on $RT_RXE0/1" \
		qp show dev "$RT_RXE0/1" qpn 999999
	log_test "qp show: no QPs says so (rc 0), qpn 999999 is an error naming it (rc 1)"
}

# monitor_says: the monitor says what it listens to, on stderr; stdout
# has only events (none here).
monitor_says() {
	local j

	RET=0
	for j in "" -j; do
		# shellcheck disable=SC2086 # "" is no word
		timeout 8 "$RT_CLI" $j monitor > "$RT_ERR.out" 2> "$RT_ERR"
		[ $? = 124 ]
		check_err $? "rocetune $j monitor ended by itself: $(cat "$RT_ERR")"
		[ "$(wc -l < "$RT_ERR")" = 1 ] &&
			grep -q '^rocetune: monitor: listening to rocetune.ko.s "events" group, every device: dev_add, .*storm_start.*; Ctrl-C stops$' "$RT_ERR"
		check_err $? "rocetune $j monitor, stderr: \"$(cat "$RT_ERR")\""
		[ ! -s "$RT_ERR.out" ]
		check_err $? "rocetune $j monitor, stdout: \"$(cat "$RT_ERR.out")\""
	done
	rm -f "$RT_ERR.out"
	log_test "monitor says what it listens to on stderr, stdout only events"
}

pretty_alone() {
	RET=0
	cli_fails 2 '^rocetune: -p indents JSON: it needs -j \(or -o json\)$' \
		-p dev show
	cli_fails 2 'needs -j' --pretty config show
	cli_fails 2 'needs -j' -p -o text dev show
	"$RT_CLI" -p -o json dev show | jq -e 'length == 2' > /dev/null
	check_err $? "-p -o json dev show failed"
	log_test "-p without JSON is refused (exit 2), not ignored"
}

# thresh_mute: a CNP or ECN rate threshold set where no port counter can
# reach it (rxe: rdma statistic shows no such counter) says so; 0 (off)
# says nothing.
thresh_mute() {
	local before kw what

	RET=0
	rdma statistic show link "$RT_RXE0/1" | grep -iE 'cnp|ecn' > /dev/null
	check_fail $? "rxe has a CNP or ECN port counter: $(rdma statistic show link "$RT_RXE0/1")"
	before=$("$RT_CLI" -j config show) ||
		check_err 1 "config show failed"
	for kw in cnp ecn; do
		what=CNP
		[ "$kw" = cnp ] || what=ECN-CE
		"$RT_CLI" config set dev "$RT_RXE0" "$kw-rate-thresh" 100 \
			> /dev/null 2> "$RT_ERR"
		check_err $? "config set dev $RT_RXE0 $kw-rate-thresh 100 failed: $(cat "$RT_ERR")"
		grep -q "^rocetune: note: $kw-rate-thresh never fires on $RT_RXE0/1: no $what port counter" "$RT_ERR"
		check_err $? "$kw-rate-thresh 100 on $RT_RXE0: \"$(cat "$RT_ERR")\""
		"$RT_CLI" config set "$kw-rate-thresh" 100 > /dev/null 2> "$RT_ERR"
		grep -q "never fires on .*$RT_RXE1/1" "$RT_ERR"
		check_err $? "$kw-rate-thresh 100 (all devices): \"$(cat "$RT_ERR")\""
		"$RT_CLI" config set dev "$RT_RXE0" "$kw-rate-thresh" 0 \
			> /dev/null 2> "$RT_ERR" && [ ! -s "$RT_ERR" ]
		check_err $? "$kw-rate-thresh 0 on $RT_RXE0: \"$(cat "$RT_ERR")\""
	done
	# The host's thresholds as they were.
	"$RT_CLI" config set \
		cnp-rate-thresh "$(jq -r .cnp_rate_thresh <<< "$before")" \
		ecn-rate-thresh "$(jq -r .ecn_rate_thresh <<< "$before")" 2> /dev/null
	check_err $? "cannot restore the thresholds of $before"
	log_test "cnp/ecn-rate-thresh on rxe (no such port counter) says it never fires"
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

# profile check without /etc/rocetune: in a mount namespace whose /etc is
# a copy of the guest's without rocetune/ (the guest may ship one).
check_without_etc() {
	local dir=$1

	cp -a /etc "$dir/etc" && rm -rf "$dir/etc/rocetune" || return 1
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --bind "$1/etc" /etc &&
		env -u ROCETUNE_PROFILE_DIR "$2" profile check' sh "$dir" "$RT_CLI"
}

profile_dir() {
	local dir out rc

	RET=0
	dir=$(mktemp -d)
	ROCETUNE_PROFILE_DIR=$dir/missing cli_fails 2 \
		"ROCETUNE_PROFILE_DIR=$dir/missing: no such directory" profile check
	ROCETUNE_PROFILE_DIR=$dir/missing cli_fails 2 \
		"ROCETUNE_PROFILE_DIR=$dir/missing: no such directory" profile diff
	out=$(check_without_etc "$dir" 2> "$RT_ERR")
	rc=$?
	expect "check without /etc/rocetune: exit status" "$rc" 0
	grep -q 'note: there is no profile directory /etc/rocetune: no NIC has a profile' "$RT_ERR"
	check_err $? "check without /etc/rocetune: no note: $(cat "$RT_ERR")"
	[[ $out != *"profiles OK"* ]]
	check_err $? "check without /etc/rocetune says '$out'"
	# 10 errors in 4 files, 1 valid file: "files" is the 5 read.
	mkdir "$dir/p"
	printf '[Match]\n[Lossless]\nTrust=x\nPFC=9\nPFCStormTimeoutMs=x\n' > "$dir/p/10-a.conf"
	printf '[Match]\n[Lossless]\nTrust=y\nPFC=8\nFoo=1\n' > "$dir/p/20-b.conf"
	printf '[Match]\n[DCQCN]\nG=5000\nBar=2\n' > "$dir/p/30-c.conf"
	printf '[Lossless]\nTrust=z\n' > "$dir/p/40-d.conf"
	printf '[Match]\nName=nothing\n' > "$dir/p/50-ok.conf"
	out=$(ROCETUNE_PROFILE_DIR=$dir/p "$RT_CLI" -j profile check)
	expect "-j profile check: exit status" "$?" 2
	expect "-j profile check: files" "$(jq -r .files <<< "$out")" 5
	expect "-j profile check: error_count" "$(jq -r .error_count <<< "$out")" \
		"$(jq -r '.errors | length' <<< "$out")"
	expect "-j profile check: files with errors" \
		"$(jq -r '[.errors[] | split(":")[0]] | unique | length' <<< "$out")" 4
	rm -rf "$dir"
	log_test "profile: a missing directory is a note or an error naming it; -j check counts the files read"
}

cleanup() {
	rm -f "$RT_ERR"
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd jq setpriv unshare
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
