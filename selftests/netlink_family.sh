#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The "rocetune" generic netlink family: it registers with its operations
# and "events" group, the module carries the alias that autoloads it, and
# malformed requests are refused with a precise errno and extack message
# (sent raw by rt_genl.py, as the CLI never builds them).  Config set needs
# CAP_NET_ADMIN; config get/set through the CLI round-trips.

ALL_TESTS="family_registered spec_vs_kernel family_alias malformed_requests config_roundtrip
	config_set_unprivileged qp_set_atomic unload_reload"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
GENL="python3 $RT_SELFTESTS/rt_genl.py"

# Attributes by name (rt_genl.py reads their numbers from the YNL spec).
A_DEV_INDEX=DEV_INDEX
A_DEV_NAME=DEV_NAME
A_PORT_INDEX=PORT_INDEX
A_INTERVAL_MS=INTERVAL_MS
A_STORM_MS=STORM_MS
A_EVENT_TYPE=EVENT_TYPE
A_NOT_IN_ENUM=200
A_QP_TOP_SAMPLE=QP_TOP_SAMPLE
A_QP_VERIFY_MS=QP_VERIFY_MS
A_QP_LINGER_MS=QP_LINGER_MS
A_QP_TABLE_MAX=QP_TABLE_MAX
A_QP_ACCT=QP_ACCT

family_registered() {
	local out

	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	out=$(genl ctrl get name rocetune 2>&1)
	check_err $? "genl ctrl get name rocetune failed: $out"
	printf '# %s\n' "${out//$'\n'/$'\n'# }"
	echo "$out" | grep -qi "name: rocetune"
	check_err $? "the family is not called rocetune"
	echo "$out" | grep -q "events"
	check_err $? "no \"events\" multicast group"
	# DEV_GET, PORT_GET, CONFIG_GET, CONFIG_SET (1..4); others may follow.
	[ "$(echo "$out" | grep -v "name:" | grep -c "ID-0x[1-4] ")" -eq 4 ]
	check_err $? "the family does not have commands 1..4"
	log_test "family rocetune is registered with its ops and group events"
}

# The YNL spec against the kernel's own account of the family: commands
# with do, dump and admin-perm, the group, and each command's policy
# (CTRL_CMD_GETPOLICY: attributes accepted, types, ranges, lengths).
# scripts/spec-check.py holds the spec to the uapi header; this holds it to
# the module.
spec_vs_kernel() {
	local out

	RET=0
	out=$($GENL spec-check)
	check_err $? "the YNL spec and the kernel's family disagree"
	printf '# %s\n' "${out//$'\n'/$'\n'# }"
	log_test "the YNL spec describes the kernel's commands and policies"
}

family_alias() {
	local ko=$RT_BUILD/kmod/rocetune.ko

	RET=0
	modinfo -F alias "$ko" | grep -x "net-pf-16-proto-16-family-rocetune" > /dev/null
	check_err $? "$ko has no genl family alias"
	log_test "module alias net-pf-16-proto-16-family-rocetune"
}

# expect NAME ERRNAME MSG_REGEXP CMD [ARGS...]: queue a raw request that
# must fail with errno ERRNAME and an extack message matching MSG_REGEXP;
# expect_run sends them all at once (one python start: the VM is slow).
exp_names=()
exp_errs=()
exp_msgs=()
exp_reqs=()
expect() {
	exp_names+=("$1")
	exp_errs+=("$2")
	exp_msgs+=("$3")
	shift 3
	exp_reqs+=("$*")
}

expect_run() {
	local i out e m

	mapfile -t out < <(printf '%s\n' "${exp_reqs[@]}" | $GENL batch)
	for i in "${!exp_reqs[@]}"; do
		e=$(echo "${out[$i]}" | jq -r .errname)
		m=$(echo "${out[$i]}" | jq -r .msg)
		echo "# ${exp_names[$i]}: $e: \"$m\""
		[ "$e" = "${exp_errs[$i]}" ]
		check_err $? "${exp_names[$i]}: errno \"$e\", expected \"${exp_errs[$i]}\""
		echo "$m" | grep -Eq "${exp_msgs[$i]}"
		check_err $? "${exp_names[$i]}: extack \"$m\" does not match \"${exp_msgs[$i]}\""
	done
}

malformed_requests() {
	RET=0
	expect "unknown attribute" "Invalid argument" "." \
		dev_get "$A_NOT_IN_ENUM:u32:1" --dump
	expect "attribute not for this command" "Invalid argument" "." \
		dev_get "$A_EVENT_TYPE:u32:1" --dump
	expect "wrong type (u8 for u32)" "Invalid argument" "." \
		dev_get "$A_DEV_INDEX:u8:1" --dump
	expect "missing device" "No such device" "no RDMA device" \
		dev_get "$A_DEV_NAME:str:nosuchdev"
	# Checked in the dump's first pass: the extack comes with NLMSG_DONE.
	expect "missing device in a dump filter" "No such device" \
		"no RDMA device" port_get "$A_DEV_INDEX:u32:12345" --dump
	expect "missing device in a QP dump filter" "No such device" \
		"no RDMA device" qp_get "$A_DEV_NAME:str:nosuchdev" --dump
	expect "top-K sample without top-K" "Invalid argument" \
		"needs TOP_K" qp_get "$A_QP_TOP_SAMPLE:u64:1" --dump
	expect "device index and name disagree" "Invalid argument" \
		"different devices" dev_get "$A_DEV_NAME:str:$RT_RXE0" \
		"$A_DEV_INDEX:u32:12345"
	expect "no device given" "Invalid argument" "index or name required" \
		dev_get
	expect "port 0" "Numerical result out of range" "range" \
		port_get "$A_DEV_INDEX:u32:1" "$A_PORT_INDEX:u32:0"
	expect "port not a RoCE port" "No such device" "not a RoCE port" \
		port_get "$A_DEV_NAME:str:$RT_RXE0" "$A_PORT_INDEX:u32:7"
	expect "port get without port" "Invalid argument" "port index required" \
		port_get "$A_DEV_NAME:str:$RT_RXE0"
	expect "string too long" "Invalid argument" "." \
		dev_get "$A_DEV_NAME:str:$(printf 'x%.0s' $(seq 1 80))"
	expect "interval below 10 ms" "Numerical result out of range" "range" \
		config_set "$A_INTERVAL_MS:u32:5"
	expect "interval above 10 s" "Numerical result out of range" "range" \
		config_set "$A_INTERVAL_MS:u32:10001"
	expect "storm 0 ms" "Numerical result out of range" "range" \
		config_set "$A_STORM_MS:u32:0"
	expect "nothing to set" "Invalid argument" "nothing to set" \
		config_set
	expect "config of a missing device" "No such device" "no RDMA device" \
		config_set "$A_DEV_NAME:str:nosuchdev" "$A_INTERVAL_MS:u32:100"
	expect "QP verification below 10 ms" "Numerical result out of range" \
		"range" qp_set "$A_QP_VERIFY_MS:u32:5"
	expect "QP set of nothing" "Invalid argument" "nothing to set" qp_set
	expect "QP accounting of a missing device" "No such device" \
		"no RDMA device" qp_set "$A_DEV_NAME:str:nosuchdev" \
		"$A_QP_ACCT:u8:0" "$A_QP_TABLE_MAX:u32:7" "$A_QP_LINGER_MS:u32:7"
	expect_run
	log_test "malformed requests get a precise errno and extack message"
}

# A QP_SET that fails changes nothing, not even its valid parts.
qp_set_atomic() {
	local before after

	RET=0
	before=$("$RT_CLI" -j qp stats |
		jq -c '.[0] | [.table_max, .linger_ms] | select(all(type == "number"))')
	$GENL req qp_set "$A_DEV_NAME:str:nosuchdev" "$A_QP_ACCT:u8:0" \
		"$A_QP_TABLE_MAX:u32:7" "$A_QP_LINGER_MS:u32:7" > /dev/null
	after=$("$RT_CLI" -j qp stats | jq -c '.[0] | [.table_max, .linger_ms]')
	[ -n "$before" ] && [ "$before" = "$after" ] && [ "$before" != "[7,7]" ]
	check_err $? "table_max and linger_ms $before before a failed QP_SET, $after after"
	"$RT_CLI" qp set verify-ms 500 linger-ms 20 &&
		[ "$("$RT_CLI" -j qp stats | jq -c '.[0] | [.verify_ms, .linger_ms]')" = "[500,20]" ]
	check_err $? "qp set verify-ms 500 linger-ms 20 did not take"
	"$RT_CLI" qp set verify-ms 1000 linger-ms 0
	log_test "a failed QP_SET changes nothing; verify-ms and linger-ms set at run time"
}

config_roundtrip() {
	local out

	RET=0
	"$RT_CLI" config set interval 250 storm-ms 1000 cnp-rate 5000 ecn-rate 7000
	check_err $? "rocetune config set failed"
	out=$("$RT_CLI" -j config show)
	echo "# $out"
	[ "$(echo "$out" | jq -r .interval_ms)" = 250 ] &&
		[ "$(echo "$out" | jq -r .storm_ms)" = 1000 ] &&
		[ "$(echo "$out" | jq -r .cnp_rate_thresh)" = 5000 ] &&
		[ "$(echo "$out" | jq -r .ecn_rate_thresh)" = 7000 ]
	check_err $? "config show does not return what was set"
	"$RT_CLI" config set interval 5 2> /tmp/rt_cfg_err
	check_fail $? "interval 5 was accepted"
	sed 's/^/# /' /tmp/rt_cfg_err
	grep -q "range" /tmp/rt_cfg_err
	check_err $? "the CLI does not show the kernel's range message"
	"$RT_CLI" config set interval 100 storm-ms 500 cnp-rate 0 ecn-rate 0
	check_err $? "cannot restore the defaults"
	log_test "config set/show round-trips through the CLI"
}

config_set_unprivileged() {
	local out udir

	RET=0
	# A copy every user can read: the tree may not be.
	udir=$(rt_unpriv_tree "${RT_GENL_FILES[@]}")
	check_err $? "cannot copy rt_genl.py for an unprivileged user"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all \
		python3 "$udir/selftests/rt_genl.py" req config_set \
		"$A_INTERVAL_MS:u32:200")
	echo "# $out"
	[ "$(echo "$out" | jq -r .errname)" = "Operation not permitted" ]
	check_err $? "an unprivileged config set did not get EPERM"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all \
		python3 "$udir/selftests/rt_genl.py" req config_get)
	[ "$(echo "$out" | jq -r .errno)" = 0 ]
	check_err $? "an unprivileged config get failed: $out"
	rm -rf "$udir"
	log_test "config set needs CAP_NET_ADMIN (EPERM), config get does not"
}

unload_reload() {
	RET=0
	rt_kmod_unload
	check_err $? "rmmod failed"
	genl ctrl get name rocetune > /dev/null 2>&1 && ! rt_kmod_loaded
	check_fail $? "the family outlived the module"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko again"
	genl ctrl get name rocetune > /dev/null 2>&1
	check_err $? "the family is missing after reload"
	rt_kmod_unload
	log_test "the family goes with the module and comes back with it"
}

cleanup() {
	rt_kmod_unload 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd genl jq python3 modinfo rdma setpriv
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
rt_run_tests
