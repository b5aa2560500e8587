#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP congestion accounting of software RoCE (rxe), life cycle: the
# table limit, accounting off per device, module unload and device removal
# during traffic and dumps.

ALL_TESTS="table_limit acct_off unload_during_traffic hot_remove_during_traffic"

source "$(dirname "$0")/qp_lib.sh"

table_limit() {
	local st

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	rt_qp set --table-max 3
	check_err $? "QP_SET table-max failed"
	run_pair lim \
		"ib_send_bw -F -d $RT_RXE1 -x $G1 -p $PORT -q 4 -s 1024 -n 50" \
		"ib_send_bw -F -d $RT_RXE0 -x $G0 -p $PORT -q 4 -s 1024 -n 50 $RT_IP1"
	check_err $? "ib_send_bw failed"
	rt_qp stats > "$OUT/lim-stats.json"
	st=$(jq '.[0]' "$OUT/lim-stats.json")
	echo "# $(jq -c . <<< "$st")"
	[ "$(jq .qp_table_count <<< "$st")" -le 3 ]
	check_err $? "more than 3 entries"
	[ "$(jq .qp_refused <<< "$st")" -gt 0 ]
	check_err $? "no entry was refused"
	[ "$(unattributed lim)" -gt 0 ]
	check_err $? "no packet was reported unattributed"
	log_test "table limit 3: enforced, refusals and unattributed packets reported"
}

acct_off() {
	local n

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	rt_qp set --dev "$RT_RXE0" --acct 0
	check_err $? "QP_SET acct 0 failed"
	run_pair off \
		"ibv_rc_pingpong -d $RT_RXE1 -g $G1 -p $PORT -n 20 -s 64" \
		"ibv_rc_pingpong -d $RT_RXE0 -g $G0 -p $PORT -n 20 -s 64 $RT_IP1"
	check_err $? "ibv_rc_pingpong failed"
	n=$(rt_qp dump --dev "$RT_RXE0" | jq length)
	[ "$n" -eq 0 ]
	check_err $? "$n QPs of $RT_RXE0 with accounting off"
	n=$(rt_qp dump --dev "$RT_RXE1" | jq '[.[] | select(.rx_pkts > 0)] | length')
	[ "$n" -ge 1 ]
	check_err $? "$RT_RXE1 stopped counting too"
	log_test "accounting off on $RT_RXE0 only: no entries there, $RT_RXE1 counts"
}

unload_during_traffic() {
	local spid cpid i

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -D 5 -s 4096 \
		> "$OUT/unl-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -D 5 -s 4096 "$RT_IP1" \
		> "$OUT/unl-client.log" 2>&1 &
	cpid=$!
	for i in 1 2; do
		sleep 1
		rt_qp dump > /dev/null 2>&1 &
		rt_kmod_unload
		check_err $? "rmmod during traffic failed"
		rt_modload rocetune kmod/rocetune.ko
		check_err $? "insmod during traffic failed"
		wait $!
	done
	wait "$cpid"
	check_err $? "traffic failed while the module came and went"
	wait "$spid"
	rt_kmod_unload
	check_err $? "final rmmod failed"
	! dmesg_has 'WARNING|BUG|Oops|leak'
	check_err $? "kernel warnings: $(dmesg -t | grep -E -m1 'WARNING|BUG|Oops|leak')"
	log_test "rmmod/insmod twice during ib_write_bw and dumps: clean"
}

hot_remove_during_traffic() {
	local spid cpid dpid i

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	ib_write_bw -F -d "$RT_RXE1" -x "$G1" -p "$PORT" -D 5 -s 4096 \
		> "$OUT/hot-server.log" 2>&1 &
	spid=$!
	wait_for 10 rt_port_listening "$PORT"
	check_err $? "the ib_write_bw server does not listen"
	ib_write_bw -F -d "$RT_RXE0" -x "$G0" -p "$PORT" -D 5 -s 4096 "$RT_IP1" \
		> "$OUT/hot-client.log" 2>&1 &
	cpid=$!
	( for i in 1 2 3 4; do rt_qp dump; rt_qp stats; done ) \
		> /dev/null 2>&1 &
	dpid=$!
	sleep 3
	rdma link del "$RT_RXE1"
	check_err $? "rdma link del $RT_RXE1 failed"
	# The traffic fails with its device gone: only the kernel matters.
	wait "$cpid" "$spid"
	wait "$dpid"
	rt_qp stats | jq -e 'map(.dev_name) | index("rxe1") == null' > /dev/null
	check_err $? "$RT_RXE1 is still reported after its removal"
	rdma link add "$RT_RXE1" type rxe netdev "$RT_NETDEV1"
	check_err $? "cannot add $RT_RXE1 back"
	wait_for 10 rt_gid_index "$RT_RXE1" "$RT_IP1"
	rt_kmod_unload
	check_err $? "rmmod after the hot removal failed"
	! dmesg_has 'WARNING|BUG|Oops|leak'
	check_err $? "kernel warnings: $(dmesg -t | grep -E -m1 'WARNING|BUG|Oops|leak')"
	log_test "rdma link del $RT_RXE1 during ib_write_bw and dumps: clean"
}

qp_main
