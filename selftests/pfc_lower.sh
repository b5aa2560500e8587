#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# PFC of RoCE ports whose netdev is a bond, and pause durations, against the simulated DCB-capable NIC (rocetune_sim):
#  - pause durations (mlx5's ethtool rx/tx_prioN_pause_duration) in
#    "rocetune -j port show" equal what ethtool -S reads;
#  - rxe on a bond of two simulated NICs: pause frames and durations are
#    the sums over the members, and a priority is PFC-enabled only if it
#    is enabled on both.

ALL_TESTS="pause_duration bond_members"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
SIM_BUS=/sys/bus/rocetune_sim
SIM_DFS=/sys/kernel/debug/rocetune_sim
ID_A=$((RANDOM % 300 + 100))
ID_B=$((ID_A + 300))
ID_C=$((ID_A + 600))
BOND=rtbond0

# port_pfc IBDEV JQ: JQ applied to the PFC object of IBDEV's port 1.
port_pfc() {
	"$RT_CLI" -j port show "$1/1" | jq -c ".[0].pfc | $2"
}

# ethtool_stat NETDEV NAME: one ethtool statistic.
ethtool_stat() {
	ethtool -S "$1" | awk -v n="$2:" '$1 == n { print $2 }'
}

# pfc_on NETDEV PRIO...: PFC on exactly these priorities, read back.
pfc_on() {
	local dev=$1 p want

	shift
	dcb pfc set dev "$dev" prio-pfc all:off "${@/%/:on}" 2> /dev/null
	want=$(for p in 0 1 2 3 4 5 6 7; do
		[[ " $* " = *" $p "* ]] && echo true || echo false
	done | jq -s -c .)
	[ "$(dcb -j pfc show dev "$dev" | jq -c .prio_pfc)" = "$want" ]
}

rxe_add() {
	rdma link add "$1" type rxe netdev "$2" &&
		wait_for 10 rdma_port_known "$1"
}

# pfc_is IBDEV JQ VALUE: JQ of IBDEV's PFC is VALUE.
pfc_is() {
	[ "$(port_pfc "$1" "$2")" = "$3" ]
}

rdma_port_known() {
	"$RT_CLI" -j port show "$1/1" > /dev/null 2>&1
}

# durations NETDEV rx|tx: the ethtool pause durations of prios 0..7 as a
# JSON array, null where the driver has none (mlx5 lists only
# PFC-enabled priorities).
durations() {
	local p v

	for p in 0 1 2 3 4 5 6 7; do
		v=$(ethtool_stat "$1" "${2}_prio${p}_pause_duration")
		echo "${v:-null}"
	done | jq -s -c .
}

pause_duration() {
	local dev=rsim$ID_A ib=rsim_ib$ID_A ours theirs

	RET=0
	echo 123456 > "$SIM_DFS/$ID_A/counters/rx_prio3_pause_duration"
	echo 789 > "$SIM_DFS/$ID_A/counters/tx_prio5_pause_duration"
	# The module reads durations at most once a second.
	wait_for 5 pfc_is "$ib" ".prio[3].rx_pause_duration_us" 123456
	ours=$(port_pfc "$ib" '[.prio[] | .rx_pause_duration_us]')
	theirs=$(durations "$dev" rx)
	echo "# rx durations: rocetune $ours, ethtool $theirs"
	[ "$ours" = "$theirs" ] &&
		[ "$ours" = "[null,null,null,123456,null,0,null,null]" ]
	check_err $? "rx_pause_duration_us $ours, ethtool $theirs"
	ours=$(port_pfc "$ib" '[.prio[] | .tx_pause_duration_us]')
	theirs=$(durations "$dev" tx)
	echo "# tx durations: rocetune $ours, ethtool $theirs"
	[ "$ours" = "$theirs" ] && [ "$(jq -c '.[5]' <<< "$ours")" = 789 ]
	check_err $? "tx_pause_duration_us $ours, ethtool $theirs"
	# mlx5 lists the durations of PFC-enabled priorities only: enabling
	# one more makes its durations appear.
	pfc_on "$dev" 3 5 6 && echo 4242 > "$SIM_DFS/$ID_A/counters/rx_prio6_pause_duration"
	check_err $? "cannot enable PFC on priority 6 of $dev"
	wait_for 10 pfc_is "$ib" ".prio[6].rx_pause_duration_us" 4242
	check_err $? "prio 6 duration after enabling PFC on it: $(port_pfc "$ib" '.prio[6]')"
	# A netdev without them (veth under rxe0): absent, not zero.
	ours=$(port_pfc "$RT_RXE0" '[.prio[]? | has("rx_pause_duration_us")] | any')
	[ "$ours" = false ]
	check_err $? "$RT_RXE0 reports pause durations its netdev does not have ($ours)"
	log_test "pause durations of the PFC priorities equal ethtool -S's, absent elsewhere"
}

bond_members() {
	local b=rsim$ID_B c=rsim$ID_C ours want

	RET=0
	pfc_on "$b" 3 4 && pfc_on "$c" 3 6
	check_err $? "cannot set PFC on $b and $c"
	ip link add "$BOND" type bond mode active-backup miimon 100 &&
		ip link set "$b" down && ip link set "$b" master "$BOND" &&
		ip link set "$c" down && ip link set "$c" master "$BOND" &&
		ip link set "$BOND" up
	check_err $? "cannot make $BOND of $b and $c"
	rxe_add rtrxeb "$BOND"
	check_err $? "cannot add rxe on $BOND"
	echo 100 > "$SIM_DFS/$ID_B/counters/rx_prio3_pause"
	echo 23 > "$SIM_DFS/$ID_C/counters/rx_prio3_pause"
	echo 7 > "$SIM_DFS/$ID_B/counters/tx_prio4_pause"
	echo 1000 > "$SIM_DFS/$ID_B/counters/rx_prio3_pause_duration"
	echo 234 > "$SIM_DFS/$ID_C/counters/rx_prio3_pause_duration"
	wait_for 5 pfc_is rtrxeb ".prio[3].rx_pause_duration_us" 1234
	ours=$(port_pfc rtrxeb '[.prio[3].rx_pause, .prio[4].tx_pause,
		.prio[3].rx_pause_duration_us, .enabled]')
	want="[$((100 + 23)),7,1234,[3]]"
	echo "# rtrxeb/1 on $BOND: [rx_pause 3, tx_pause 4, rx_duration 3, enabled] $ours"
	[ "$ours" = "$want" ]
	check_err $? "expected $want (sums over $b and $c, enabled on both)"
	rdma link del rtrxeb
	ip link del "$BOND"
	log_test "rxe on a bond: PFC summed over its members, enabled where all have it"
}

setup() {
	local id

	rt_sim_load || rt_setup_failed "cannot load rocetune_sim"
	modprobe -q bonding max_bonds=0 || rt_setup_failed "cannot load bonding"
	rt_wire_up || rt_setup_failed "cannot set up the rxe wire"
	for id in "$ID_A" "$ID_B" "$ID_C"; do
		{ echo "$id mlx5" > "$SIM_BUS"/new_device &&
			ip link set "rsim$id" up; } ||
			rt_setup_failed "cannot create sim device $id"
	done
	rt_kmod_load || rt_setup_failed "cannot load rocetune.ko"
	# PFC goes on after the module has seen the NIC without any enabled
	# priority, so without duration statistics (mlx5 lists them for
	# enabled priorities only): they must still be found later.
	sleep 1.5
	pfc_on "rsim$ID_A" 3 5 || rt_setup_failed "cannot enable PFC on rsim$ID_A"
}

cleanup() {
	local id

	rdma link del rtrxeb 2> /dev/null
	ip link del "$BOND" 2> /dev/null
	rt_kmod_unload 2> /dev/null
	for id in "$ID_A" "$ID_B" "$ID_C"; do
		echo "$id" > "$SIM_BUS"/del_device 2> /dev/null
	done
	rt_sim_unload
	rt_wire_down
}

rt_require_root
rt_require_cmd dcb ethtool rdma jq ip
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
setup
rt_run_tests
