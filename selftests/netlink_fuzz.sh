#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Netlink fuzzing of the "rocetune" family (rt_fuzz.py): RT_FUZZ_N seeded
# malformed and random messages over every command and flag, then dumps
# read side by side from many sockets and dumps abandoned half-read, first
# as user 65534 without capabilities, then as root, with rxe and simulated
# hardware devices present.  Oracles, none of them the module's own:
# - the kernel log gains no oops, WARN, BUG, lockdep, KASAN or slab error;
# - every message is answered (NLM_F_ACK on all of them), no dump hangs;
# - every error carries an extack message (NLMSGERR_ATTR_MSG), except the
#   genetlink core's refusals before the family sees the message, which
#   rt_fuzz.py predicts from the command, flags and caller and lists;
# - as user 65534 every do-request of CONFIG_SET and QP_SET is EPERM, and
#   "rocetune config show" and "qp stats" read the same before and after;
# QP entries (of ib_send_bw's QPs, kept with linger-ms) are there to be
# found by QP_GET.
# - the module answers normal requests afterwards, and kmalloc slab usage
#   ends within SLAB_TOL of where it started.
# The seed is printed; RT_FUZZ_SEED and RT_FUZZ_N repeat a run ("make
# check-long" runs RT_FUZZ_N=100000).

ALL_TESTS="fuzz_unprivileged fuzz_root module_answers slab_baseline"

source "$(dirname "$0")/lib.sh"

FUZZ_PY=$RT_SELFTESTS/rt_fuzz.py
RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
OUT=${RT_OUT:-/tmp}/fuzz
SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
SIM_DEV=rsim_ib$SIM_ID
SEED=${RT_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
N=${RT_FUZZ_N:-2000}
# Dump rounds of 16 sockets, and dumps abandoned, scaled with N.
ROUNDS=$((N / 1000 + 2))
ABANDON=$((N / 10 + 50))
# kmalloc bytes in use may end this far above the start: 512 KiB, plus 16
# bytes a message (a leak of one small object per message exceeds it).
SLAB_TOL=${RT_FUZZ_SLAB_TOL:-$((512 * 1024 + 16 * N))}
UDIR=
SLAB0=

# The generation (gen) is not state: every QP dump, anyone's, moves it on.
state() {
	"$RT_CLI" -j config show && "$RT_CLI" -j config show dev "$RT_RXE0" &&
		"$RT_CLI" -j config show dev "$SIM_DEV" &&
		"$RT_CLI" -j qp stats | jq -c 'map(del(.gen))'
}

# check_run WHO FILE: the common oracles on a rt_fuzz.py result.
check_run() {
	local who=$1 f=$2 n

	jq -e .answers "$f" > /dev/null
	check_err $? "$who: rt_fuzz.py left no result"
	echo "# $who: $(jq -c '{fuzz_secs, secs, qpns: (.qpns | length), answers, errnos}' "$f")"
	echo "# $who: answers to empty requests: $(jq -c .probes "$f")"
	echo "# $who: dumps $(jq -c '.dumps | del(.failed)' "$f")"
	n=$(jq '.n_hangs + .dumps.hangs' "$f")
	expect "$who: messages and dumps without an answer in 15 s" "$n" 0
	n=$(jq '[.missing_extack[].count] | add // 0' "$f")
	if [ "$n" != 0 ]; then
		jq -r '.missing_extack[] | "# \(.key): \(.count) without an extack message, e.g. \(.examples[0] | del(.hex)), message \(.examples[0].hex)"' "$f"
		check_err 1 "$who: $n errors without an extack message: $(jq -c '[.missing_extack[] | {key, count}]' "$f")"
	fi
	n=$(jq .dumps.n_failed_no_extack "$f")
	expect "$who: dumps that failed without an extack message" "$n" 0
	n=$(jq '.answers.ok + .answers.error_extack + .answers.error_core + .answers.error_no_extack' "$f")
	expect "$who: messages answered" "$n" "$N"
}

# fuzz WHO: rt_fuzz.py as WHO (nobody: user 65534 without capabilities).
fuzz() {
	local seed=$1 who=$2 f=$OUT/$2.json

	echo "# $who: rt_fuzz.py $seed $N (RT_FUZZ_SEED=$SEED RT_FUZZ_N=$N repeat this run)"
	if [ "$who" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all \
			python3 "$UDIR/selftests/rt_fuzz.py" "$seed" "$N" \
			--dump-rounds "$ROUNDS" --abandon "$ABANDON"
	else
		python3 "$FUZZ_PY" "$seed" "$N" --dump-rounds "$ROUNDS" \
			--abandon "$ABANDON"
	fi > "$OUT/$who.out"
	check_err $? "$who: rt_fuzz.py failed"
	grep '^#' "$OUT/$who.out"
	tail -n 1 "$OUT/$who.out" > "$f"
}

fuzz_unprivileged() {
	local before after pos bad n

	RET=0
	pos=$(rt_dmesg_pos)
	before=$(state)
	check_err $? "cannot read the state through the CLI"
	fuzz "$SEED" nobody
	check_run nobody "$OUT/nobody.json"
	n=$(jq .n_state_changes "$OUT/nobody.json")
	if [ "$n" != 0 ]; then
		jq -c '.state_changes[]' "$OUT/nobody.json" | sed 's/^/# not EPERM: /'
		check_err 1 "user 65534: $n CONFIG_SET/QP_SET requests done, or refused with other than EPERM"
	fi
	after=$(state)
	[ -n "$before" ] && [ "$before" = "$after" ]
	check_err $? "the state changed: before $before, after $after"
	bad=$(rt_dmesg_bad "$pos")
	[ -z "$bad" ]
	check_err $? "kernel log: $(head -n 1 <<< "$bad")"
	log_test "user 65534: $N fuzzed messages, dumps side by side and abandoned: answered, EPERM for sets, extack, state unchanged"
}

fuzz_root() {
	local pos bad

	RET=0
	pos=$(rt_dmesg_pos)
	fuzz $((SEED + 1)) root
	check_run root "$OUT/root.json"
	bad=$(rt_dmesg_bad "$pos")
	[ -z "$bad" ]
	check_err $? "kernel log: $(head -n 1 <<< "$bad")"
	log_test "root: $N fuzzed messages, dumps side by side and abandoned: answered, extack, kernel log clean"
}

module_answers() {
	local out

	RET=0
	out=$(rt_json "$RT_CLI" -j dev show | jq -r '.[].dev' | sort | tr '\n' ' ')
	check_err $? "rocetune dev show failed"
	expect "devices listed" "$out" \
		"$(printf '%s\n' "$RT_RXE0" "$RT_RXE1" "$SIM_DEV" | sort | tr '\n' ' ')"
	rt_json "$RT_CLI" -j port show "$RT_RXE0" > /dev/null
	check_err $? "rocetune port show $RT_RXE0 failed"
	rt_json "$RT_CLI" -j config show > /dev/null
	check_err $? "rocetune config show failed"
	log_test "the module answers normal requests after the fuzzing"
}

slab_baseline() {
	local now pos bad

	RET=0
	now=$(rt_kmalloc_bytes)
	echo "# kmalloc in use: $SLAB0 bytes before, $now after (tolerance $SLAB_TOL)"
	[ "$now" -le $((SLAB0 + SLAB_TOL)) ]
	check_err $? "kmalloc grew by $((now - SLAB0)) bytes, more than $SLAB_TOL"
	pos=$(rt_dmesg_pos)
	echo "$SIM_ID" > "$SIM_BUS/del_device" && rt_sim_unload && rt_kmod_unload
	check_err $? "cannot remove the simulated device or unload the modules"
	genl ctrl list > "$OUT/families"
	check_err $? "genl ctrl list failed"
	grep -w rocetune "$OUT/families" > /dev/null
	check_fail $? "the rocetune family is still registered after rmmod"
	bad=$(rt_dmesg_bad "$pos")
	[ -z "$bad" ]
	check_err $? "kernel log at unload: $(head -n 1 <<< "$bad")"
	log_test "kmalloc usage back within $SLAB_TOL bytes; unload clean"
}

# qps_lingering: QP entries for the QP requests to find: 4 QP pairs of
# ib_send_bw, whose entries stay after their QPs are gone (linger-ms).
qps_lingering() {
	local g0 g1 spid n

	"$RT_CLI" qp set linger-ms 600000 || return 1
	g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	ib_send_bw -F -d "$RT_RXE1" -x "$g1" -p 18700 -q 4 -s 1024 -n 50 \
		> "$OUT/srv.log" 2>&1 &
	spid=$!
	wait_for 20 rt_port_listening 18700 &&
		timeout 60 ib_send_bw -F -d "$RT_RXE0" -x "$g0" -p 18700 -q 4 \
			-s 1024 -n 50 "$RT_IP1" > "$OUT/cli.log" 2>&1 &&
		wait "$spid" || return 1
	n=$(rt_json "$RT_CLI" -j qp show | jq length) || return 1
	echo "# $n QP entries before the fuzzing"
	[ "$n" -ge 8 ]
}

cleanup() {
	[ ! -d "/sys/class/infiniband/$SIM_DEV" ] ||
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	rt_sim_unload 2> /dev/null
	rt_kmod_unload 2> /dev/null
	rt_wire_down
	[ -z "$UDIR" ] || rm -rf "$UDIR"
}

setup() {
	mkdir -p "$OUT" || return 1
	UDIR=$(rt_unpriv_tree "${RT_GENL_FILES[@]}" selftests/rt_fuzz.py) ||
		return 1
	rt_wire_up && rt_kmod_load && rt_sim_load || return 1
	echo "$SIM_ID mlx5" > "$SIM_BUS/new_device" &&
		wait_for 10 test -d "/sys/class/infiniband/$SIM_DEV" || return 1
	qps_lingering || return 1
	SLAB0=$(rt_kmalloc_bytes)
}

rt_require_root
rt_require_cmd jq python3 setpriv genl ib_send_bw
trap cleanup EXIT
echo "# seed $SEED, $N messages per caller"
setup || rt_setup_failed "cannot set up the rxe wire, the modules or $SIM_DEV"
rt_run_tests
