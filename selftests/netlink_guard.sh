#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Who may do what through the "rocetune" family.  Every state change
# (CONFIG_SET, QP_SET) changes host-wide state and needs CAP_NET_ADMIN in
# the initial user namespace: neither an unprivileged user nor root of a
# user namespace (unshare -Urn) changes anything.  A reader in another
# network namespace sees the RDMA devices (shared mode, as the RDMA core's
# own netlink shows them) but no netdev of the initial namespace, neither
# in replies nor in events.  The values a request may carry are bounded,
# every refusal with its extack message.  (The QP owners are in
# qp_dumps.sh, which has QPs.)

ALL_TESTS="state_changes_refused netdevs_per_netns events_per_netns bounds"

source "$(dirname "$0")/lib.sh"

GENL_PY=$RT_SELFTESTS/rt_genl.py
RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
OUT=${RT_OUT:-/tmp}/guard
SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=7
SIM_DEV=rsim_ib$SIM_ID
# A copy of rt_genl.py and the YNL spec that user 65534 can read.
UDIR=

as_root() {
	python3 "$GENL_PY" "$@"
}

# as_nobody ARGS...: rt_genl.py as user 65534, without capabilities.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all python3 "$UDIR/selftests/rt_genl.py" "$@"
}

# as_userns ARGS...: rt_genl.py as root of new user and network namespaces.
as_userns() {
	unshare -Urn python3 "$GENL_PY" "$@"
}

# State that a refused request must leave as it was.
state() {
	"$RT_CLI" -j config show && "$RT_CLI" -j config show dev "$RT_RXE0" &&
		"$RT_CLI" -j qp stats
}

state_changes_refused() {
	local before after who out n reqs

	RET=0
	reqs=("config_set INTERVAL_MS:u32:200"
	      "config_set DEV_NAME:str:$RT_RXE0 STORM_MS:u32:1000"
	      "config_set ECN_RATE_THRESH:u64:5"
	      "qp_set DEV_NAME:str:$RT_RXE0 QP_ACCT:u8:0"
	      "qp_set QP_TABLE_MAX:u32:5"
	      "qp_set QP_LINGER_MS:u32:5"
	      "qp_set QP_VERIFY_MS:u32:5000")
	before=$(state)
	check_err $? "cannot read the state through the CLI"
	for who in as_nobody as_userns; do
		out=$(printf '%s\n' "${reqs[@]}" | "$who" batch)
		check_err $? "$who: rt_genl.py failed"
		n=$(jq -s '[.[] | select(.errname == "Operation not permitted")] | length' <<< "$out")
		echo "# $who: $n of ${#reqs[@]} state changes refused with EPERM"
		[ "$n" = "${#reqs[@]}" ]
		check_err $? "$who: only $n of ${#reqs[@]} refused: $(jq -c -s 'map(.errname)' <<< "$out")"
		# Reading is allowed to anyone.
		out=$("$who" req dev_get --dump)
		[ "$(jq .errno <<< "$out")" = 0 ] && [ "$(jq .replies <<< "$out")" -ge 2 ]
		check_err $? "$who: DEV_GET dump failed: $out"
	done
	after=$(state)
	[ -n "$before" ] && [ "$before" = "$after" ]
	check_err $? "the state changed: before $before, after $after"
	log_test "CONFIG_SET and QP_SET refused to user 65534 and to user-namespace root; state unchanged"
}

# netdev_attrs JSON: how many replies (of rxe ports) carry a netdev attribute.
netdev_attrs() {
	jq '[.attrs[] | select(any(.[]; test("^PORT_(NETDEV|LOWER)_")))] | length' <<< "$1"
}

netdevs_per_netns() {
	local root ns nob

	RET=0
	root=$(as_root req port_get --dump --attrs)
	ns=$(as_userns req port_get --dump --attrs)
	nob=$(as_nobody req port_get --dump --attrs)
	echo "# replies with a netdev: initial namespace root $(netdev_attrs "$root") of $(jq .replies <<< "$root")," \
		"user 65534 $(netdev_attrs "$nob") of $(jq .replies <<< "$nob")," \
		"another namespace $(netdev_attrs "$ns") of $(jq .replies <<< "$ns")"
	[ "$(jq .replies <<< "$root")" -ge 2 ] &&
		[ "$(netdev_attrs "$root")" = "$(jq .replies <<< "$root")" ] &&
		[ "$(netdev_attrs "$nob")" = "$(jq .replies <<< "$nob")" ]
	check_err $? "a port in the netdev's own namespace lacks its netdev"
	[ "$(jq .replies <<< "$ns")" = "$(jq .replies <<< "$root")" ] &&
		[ "$(netdev_attrs "$ns")" = 0 ]
	check_err $? "another namespace: $(jq -c .attrs <<< "$ns")"
	log_test "PORT_GET names a port's netdev only in the netdev's network namespace"
}

listening() {
	grep -q listening "$1"
}

events_per_netns() {
	local rpid npid nroot nns bad

	RET=0
	mkdir -p "$OUT"
	# Not through the functions: $! must be python (unshare execs it).
	python3 "$GENL_PY" listen 120 > "$OUT/ev-root.json" &
	rpid=$!
	unshare -Urn python3 "$GENL_PY" listen 120 > "$OUT/ev-ns.json" &
	npid=$!
	# Starting python takes long under emulation.
	wait_for 60 listening "$OUT/ev-root.json" &&
		wait_for 60 listening "$OUT/ev-ns.json"
	check_err $? "the listeners did not join the events group"
	# The wire goes down and up: both ports change state twice.
	ip link set "$RT_NETDEV0" down
	sleep 2
	ip link set "$RT_NETDEV0" up
	sleep 2
	kill "$rpid" "$npid"
	wait "$rpid" "$npid"
	nroot=$(jq -s "[.[] | select(.event == \"port_state\" and .dev == \"$RT_RXE0\")] | length" "$OUT/ev-root.json")
	nns=$(jq -s "[.[] | select(.event == \"port_state\" and .dev == \"$RT_RXE0\")] | length" "$OUT/ev-ns.json")
	echo "# port_state events of $RT_RXE0: $nroot in the initial namespace, $nns in another"
	[ "$nroot" -ge 2 ] && [ "$nroot" = "$nns" ]
	check_err $? "$nroot events in the initial namespace, $nns in the other"
	jq -e -s "all(.[] | select(.event == \"port_state\"); .attrs | index(\"PORT_NETDEV_NAME\"))" \
		"$OUT/ev-root.json" > /dev/null
	check_err $? "an event in the initial namespace lacks the netdev"
	bad=$(jq -c -s '[.[] | .attrs // [] | map(select(test("^PORT_(NETDEV|LOWER)_")))] | add' \
		"$OUT/ev-ns.json")
	[ "$bad" = "[]" ]
	check_err $? "events in another namespace name netdevs: $bad"
	wait_for 10 rt_gid_index "$RT_RXE0" "$RT_IP0"
	log_test "port events name the netdev only to listeners in its network namespace"
}

# expect ERRNAME MSG_REGEXP REQUEST: one refused request and its extack.
expect() {
	local out e m

	out=$(as_root req "${@:3}")
	e=$(jq -r .errname <<< "$out")
	m=$(jq -r .msg <<< "$out")
	echo "# ${*:3}: $e: \"$m\""
	[ "$e" = "$1" ] && grep -Eq "$2" <<< "$m"
	check_err $? "${*:3}: \"$e\" \"$m\", expected \"$1\" \"$2\""
}

bounds() {
	local out

	RET=0
	expect "Numerical result out of range" "range" \
		qp_set QP_TABLE_MAX:u32:4000000000
	expect "Numerical result out of range" "range" \
		qp_set QP_TABLE_MAX:u32:0
	expect "Numerical result out of range" "range" \
		qp_get QP_TOP_K:u32:100000 --dump
	expect "Invalid argument" "QPN_MIN is above QPN_MAX" \
		qp_get QPN_MIN:u32:100 QPN_MAX:u32:10 --dump
	# Accounting is for software RoCE only.
	if rt_sim_load && echo "$SIM_ID mlx5" > "$SIM_BUS/new_device" &&
	   wait_for 10 test -d "/sys/class/infiniband/$SIM_DEV"; then
		expect "Operation not supported" "software RoCE" \
			qp_set "DEV_NAME:str:$SIM_DEV" QP_ACCT:u8:1
		out=$(as_root req qp_set "DEV_NAME:str:$SIM_DEV" QP_ACCT:u8:0)
		[ "$(jq .errno <<< "$out")" = 0 ]
		check_err $? "accounting off on $SIM_DEV was refused: $out"
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	else
		check_err 1 "cannot add the simulated hardware device $SIM_DEV"
	fi
	rt_sim_unload
	# A module parameter out of range is clamped, and said so.
	rt_kmod_unload && rt_modload rocetune kmod/rocetune.ko qp_max=4000000000
	check_err $? "cannot load rocetune.ko with qp_max=4000000000"
	out=$("$RT_CLI" -j qp stats | jq '.[0].table_max')
	[ "$out" = 1048576 ] && dmesg_has "qp_max=4000000000 out of range"
	check_err $? "qp_max=4000000000: table max $out"
	log_test "TABLE_MAX, TOP_K and the QP range bounded; accounting refused on hardware; qp_max clamped"
}

cleanup() {
	rt_sim_unload 2> /dev/null
	rt_kmod_unload 2> /dev/null
	rt_wire_down
	[ -z "$UDIR" ] || rm -rf "$UDIR"
}

setup() {
	UDIR=$(rt_unpriv_tree "${RT_GENL_FILES[@]}") || return 1
	rt_wire_up && rt_kmod_load
}

rt_require_root
rt_require_cmd jq python3 setpriv unshare
trap cleanup EXIT
if ! setup; then
	echo "# cannot set up the rxe wire, the module or a readable rt_genl.py"
	exit "$KSFT_FAIL"
fi
rt_run_tests
