#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune_sim behaves like a DCB-capable RoCE NIC to the real tools:
# iproute2's dcb reads back what dcb set, a forced failure fails the set,
# ethtool -S and rdma statistic show the personality's counter names with
# the values injected through debugfs, 32-bit counters wrap, a pause storm
# grows the PFC counters at the requested rate, and the congestion control
# files behave like mlx5's cc_params and bnxt_re's cc_config.

ALL_TESTS="
	dcb_pfc
	dcb_ets
	dcb_app
	dcb_buffer
	dcb_maxrate
	dcb_dcbx
	dcb_apptrust
	fail_next_set
	pfc_link_flap
	ethtool_stats
	ethtool_tunable
	rdma_hw_stats
	counter_wrap
	pfc_storm
	cc_params
	bus_errors
"

source "$(dirname "$0")/lib.sh"

SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
SIM_ID1=$((SIM_ID + 1))
SIM_ID2=$((SIM_ID + 2))
DEV=rsim$SIM_ID
IBDEV=rsim_ib$SIM_ID
DFS=/sys/kernel/debug/rocetune_sim/$SIM_ID

# sim_json JQ CMD...: run CMD (a tool with -j) and filter with JQ.
sim_json() {
	local filter=$1

	shift
	"$@" | jq -c "$filter"
}

sim_expect() {
	local what=$1 got=$2 want=$3

	[ "$got" = "$want" ]
	check_err $? "$what: got '$got', expected '$want'"
}

# ethtool -S DEV value of STAT, or "absent".
sim_ethtool_stat() {
	ethtool -S "$1" | awk -v s="$2:" '$1 == s { print $2; f = 1 } END { if (!f) print "absent" }'
}

# sim_dcbnl MODE DEV ARGS...: DCB over raw rtnetlink, for what Debian 12's
# dcb cannot do: print the errno of a set (0 on success) or read the
# apptrust table.  Modes: "pfc DEV PFC_EN DELAY", "trust-set DEV SEL...",
# "trust-get DEV" (prints the selectors).
sim_dcbnl() {
	python3 - "$@" << 'EOF'
import socket, struct, sys
RTM_GETDCB, RTM_SETDCB = 78, 79
DCB_CMD_IEEE_SET, DCB_CMD_IEEE_GET = 20, 21
DCB_ATTR_IFNAME, DCB_ATTR_IEEE = 1, 13
DCB_ATTR_IEEE_PFC, DCB_ATTR_DCB_APP_TRUST_TABLE = 2, 11
DCB_ATTR_IEEE_APP, DCB_ATTR_DCB_APP = 1, 2


def attr(t, payload):
    a = struct.pack("=HH", 4 + len(payload), t) + payload
    return a + b"\0" * (-len(a) % 4)


def attrs(buf):
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        yield atype & 0x3fff, buf[off + 4:off + alen]
        off += (alen + 3) & ~3


def talk(msgtype, cmd, dev, payload=b""):
    body = struct.pack("=BBH", 0, cmd, 0)
    body += attr(DCB_ATTR_IFNAME, dev.encode() + b"\0") + payload
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.send(struct.pack("=IHHII", 16 + len(body), msgtype, 1, 1, 0) + body)
    msg = s.recv(65536)
    mlen, mtype = struct.unpack_from("=IH", msg)
    if mtype == 2:
        sys.exit("netlink error %d" % -struct.unpack_from("=i", msg, 16)[0])
    return dict(attrs(msg[20:mlen]))


def ieee_set(dev, nested):
    reply = talk(RTM_SETDCB, DCB_CMD_IEEE_SET, dev,
                 attr(DCB_ATTR_IEEE | 0x8000, nested))
    print((256 - reply[DCB_ATTR_IEEE][0]) % 256)


mode, dev, args = sys.argv[1], sys.argv[2], [int(a, 0) for a in sys.argv[3:]]
if mode == "pfc":
    pfc = struct.pack("=BBBxH2x16Q", 8, args[0], 0, args[1], *([0] * 16))
    ieee_set(dev, attr(DCB_ATTR_IEEE_PFC, pfc))
elif mode == "trust-set":
    table = b"".join(attr(DCB_ATTR_DCB_APP if s == 255 else DCB_ATTR_IEEE_APP,
                          bytes([s])) for s in args)
    ieee_set(dev, attr(DCB_ATTR_DCB_APP_TRUST_TABLE | 0x8000, table))
elif mode == "trust-get":
    ieee = dict(attrs(talk(RTM_GETDCB, DCB_CMD_IEEE_GET, dev)[DCB_ATTR_IEEE]))
    table = ieee.get(DCB_ATTR_DCB_APP_TRUST_TABLE, b"")
    print(" ".join(str(v[0]) for _, v in attrs(table)))
EOF
}

sim_rdma_stat() {
	sim_json ".[0].$2" rdma -j statistic show link "$1/1"
}

dcb_pfc() {
	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc all:off 3:on 4:on delay 100
	check_err $? "dcb pfc set failed"
	sim_expect "prio-pfc" "$(sim_json .prio_pfc dcb -j pfc show dev "$DEV")" \
		"[false,false,false,true,true,false,false,false]"
	sim_expect "pfc-cap" "$(sim_json .pfc_cap dcb -j pfc show dev "$DEV")" 8
	sim_expect "delay" "$(sim_json .delay dcb -j pfc show dev "$DEV")" 100
	sim_expect "errno of delay 1001" "$(sim_dcbnl pfc "$DEV" 0x18 1001)" 22
	rt_dcb pfc set dev "$DEV" delay 1001 > /dev/null
	sim_expect "delay after an invalid set" \
		"$(sim_json .delay dcb -j pfc show dev "$DEV")" 100
	log_test "dcb pfc: prio-pfc and delay read back, invalid delay rejected"
}

dcb_ets() {
	RET=0
	rt_dcb ets set dev "$DEV" tc-tsa all:ets 7:strict \
		tc-bw all:0 0:10 1:20 2:70 prio-tc all:0 3:1 5:2 6:7
	check_err $? "dcb ets set failed"
	sim_expect "tc-bw" "$(sim_json .tc_bw dcb -j ets show dev "$DEV")" \
		"[10,20,70,0,0,0,0,0]"
	sim_expect "prio-tc" "$(sim_json .prio_tc dcb -j ets show dev "$DEV")" \
		"[0,0,0,1,0,2,7,0]"
	sim_expect "tc-tsa" "$(sim_json .tc_tsa dcb -j ets show dev "$DEV")" \
		'["ets","ets","ets","ets","ets","ets","ets","strict"]'
	rt_dcb ets set dev "$DEV" tc-tsa 1:cbs tc-bw 0:100 1:0 2:0 > /dev/null
	sim_expect "tc-tsa after a refused set" \
		"$(sim_json .tc_tsa[1] dcb -j ets show dev "$DEV")" '"ets"'
	sim_expect "tc-bw after a refused set" \
		"$(sim_json .tc_bw dcb -j ets show dev "$DEV")" "[10,20,70,0,0,0,0,0]"
	log_test "dcb ets: tsa, bandwidth and prio-tc read back, CBS rejected"
}

dcb_app() {
	RET=0
	rt_dcb app add dev "$DEV" dscp-prio 26:3 48:6
	check_err $? "dcb app add failed"
	sim_expect "dscp-prio" "$(sim_json .dscp_prio dcb -j app show dev "$DEV")" \
		"[[26,3],[48,6]]"
	rt_dcb app replace dev "$DEV" dscp-prio 26:5
	check_err $? "dcb app replace failed"
	sim_expect "dscp-prio after replace" \
		"$(sim_json .dscp_prio dcb -j app show dev "$DEV")" "[[26,5],[48,6]]"
	rt_dcb app add dev "$DEV" ethtype-prio 0x8906:3 > /dev/null
	sim_expect "ethtype-prio after a refused add" \
		"$(sim_json '.ethtype_prio // []' dcb -j app show dev "$DEV")" "[]"
	rt_dcb app del dev "$DEV" dscp-prio 26:5 48:6
	check_err $? "dcb app del failed"
	sim_expect "dscp-prio after del" \
		"$(sim_json '.dscp_prio // []' dcb -j app show dev "$DEV")" "[]"
	log_test "dcb app: DSCP entries added, replaced and deleted"
}

dcb_buffer() {
	RET=0
	rt_dcb buffer set dev "$DEV" prio-buffer all:0 3:1 4:1 \
		buffer-size all:0 0:100K 1:200K
	check_err $? "dcb buffer set failed"
	sim_expect "prio-buffer" \
		"$(sim_json .prio_buffer dcb -j buffer show dev "$DEV")" \
		"[0,0,0,1,1,0,0,0]"
	sim_expect "buffer-size" \
		"$(sim_json .buffer_size dcb -j buffer show dev "$DEV")" \
		"[102400,204800,0,0,0,0,0,0]"
	sim_expect "total-size" \
		"$(sim_json .total_size dcb -j buffer show dev "$DEV")" 524288
	rt_dcb buffer set dev "$DEV" buffer-size 2:600K > /dev/null
	sim_expect "buffer-size after a refused set" \
		"$(sim_json .buffer_size dcb -j buffer show dev "$DEV")" \
		"[102400,204800,0,0,0,0,0,0]"
	log_test "dcb buffer: prio-buffer and sizes read back, oversize rejected"
}

dcb_maxrate() {
	RET=0
	rt_dcb maxrate set dev "$DEV" tc-maxrate all:0 3:10Gbit 5:400Mbit
	check_err $? "dcb maxrate set failed"
	# dcb shows bytes per second
	sim_expect "tc-maxrate" \
		"$(sim_json .tc_maxrate dcb -j maxrate show dev "$DEV")" \
		"[0,0,0,1250000000,0,50000000,0,0]"
	log_test "dcb maxrate: per-TC rates read back"
}

dcb_dcbx() {
	RET=0
	sim_expect "default mode" "$(dcb dcbx show dev "$DEV" | xargs)" "host ieee"
	rt_dcb dcbx set dev "$DEV" host cee
	check_err $? "dcbx host cee refused"
	sim_expect "mode" "$(dcb dcbx show dev "$DEV" | xargs)" "host cee"
	rt_dcb dcbx set dev "$DEV" host ieee cee > /dev/null
	sim_expect "mode after a refused set" "$(dcb dcbx show dev "$DEV" | xargs)" \
		"host cee"
	rt_dcb dcbx set dev "$DEV" host ieee
	check_err $? "dcbx host ieee refused"
	log_test "dcb dcbx: mode read back, invalid mode rejected"
}

dcb_apptrust() {
	local maj min

	IFS=. read -r maj min _ <<< "$(uname -r)"
	if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 2 ]; }; then
		log_skip "dcb apptrust" "dcbnl has no apptrust before 6.2"
		return
	fi
	RET=0
	sim_expect "default trust" "$(sim_dcbnl trust-get "$DEV")" 255
	sim_expect "errno of dscp pcp" "$(sim_dcbnl trust-set "$DEV" 5 255)" 0
	sim_expect "trust after set" "$(sim_dcbnl trust-get "$DEV")" "5 255"
	sim_expect "errno of ethertype" "$(sim_dcbnl trust-set "$DEV" 1)" 95
	sim_expect "trust after a refused set" "$(sim_dcbnl trust-get "$DEV")" "5 255"
	echo 5 > "$DFS/fail_next_set"
	sim_expect "errno with fail_next_set" "$(sim_dcbnl trust-set "$DEV" 255)" 5
	sim_expect "trust after a failed set" "$(sim_dcbnl trust-get "$DEV")" "5 255"
	log_test "dcb apptrust (raw dcbnl, Debian 12's dcb has none): set, read back, refused"
}

fail_next_set() {
	RET=0
	echo 16 > "$DFS/fail_next_set"
	sim_expect "armed knob" "$(cat "$DFS/fail_next_set")" 16
	sim_expect "errno of the set" "$(sim_dcbnl pfc "$DEV" 0x58 0)" 16
	sim_expect "knob after the failure" "$(cat "$DFS/fail_next_set")" 0
	sim_expect "prio-pfc after the failure" \
		"$(sim_json .prio_pfc[6] dcb -j pfc show dev "$DEV")" false
	echo -110 > "$DFS/fail_next_set"
	rt_dcb pfc set dev "$DEV" prio-pfc 6:on > /dev/null
	sim_expect "knob after dcb" "$(cat "$DFS/fail_next_set")" 0
	sim_expect "prio-pfc after a failed dcb set" \
		"$(sim_json .prio_pfc[6] dcb -j pfc show dev "$DEV")" false
	echo 22 > "$DFS/fail_next_set"
	ethtool --set-tunable "$DEV" pfc-prevention-tout 200 2> /dev/null
	check_fail $? "set-tunable succeeded with fail_next_set armed"
	rt_dcb pfc set dev "$DEV" prio-pfc 6:on
	sim_expect "prio-pfc after the next set" \
		"$(sim_json .prio_pfc[6] dcb -j pfc show dev "$DEV")" true
	rt_dcb pfc set dev "$DEV" prio-pfc 6:off
	log_test "fail_next_set: the next set fails with the chosen errno, once"
}

pfc_link_flap() {
	local before

	RET=0
	sim_expect "default (mlx5)" "$(cat "$DFS/pfc_link_flap")" Y
	before=$(cat "$DFS/link_flaps")
	rt_dcb pfc set dev "$DEV" prio-pfc 2:on
	sim_expect "flaps after a PFC change" "$(cat "$DFS/link_flaps")" \
		$((before + 1))
	wait_for 5 grep -qx 1 "/sys/class/net/$DEV/carrier"
	check_err $? "carrier did not come back"
	wait_for 5 sh -c "rdma link show $IBDEV/1 | grep -q 'state ACTIVE'"
	check_err $? "RDMA port did not come back to ACTIVE"
	rt_dcb pfc set dev "$DEV" prio-pfc 2:on
	sim_expect "flaps after a no-op set" "$(cat "$DFS/link_flaps")" \
		$((before + 1))
	echo N > "$DFS/pfc_link_flap"
	rt_dcb pfc set dev "$DEV" prio-pfc 2:off
	sim_expect "flaps with the knob off" "$(cat "$DFS/link_flaps")" \
		$((before + 1))
	echo Y > "$DFS/pfc_link_flap"
	wait_for 5 grep -qx 1 "/sys/class/net/$DEV/carrier"
	log_test "pfc_link_flap: a PFC change flaps the link once"
}

ethtool_stats() {
	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc all:off 3:on
	echo 77 > "$DFS/counters/rx_prio3_pause"
	echo 1500 > "$DFS/counters/tx_prio3_pause_duration"
	echo 9 > "$DFS/counters/tx_pause_storm_warning_events"
	echo 5 > "$DFS/counters/rx_prio5_pause"
	sim_expect "rx_prio3_pause" "$(sim_ethtool_stat "$DEV" rx_prio3_pause)" 77
	sim_expect "tx_prio3_pause_duration" \
		"$(sim_ethtool_stat "$DEV" tx_prio3_pause_duration)" 1500
	sim_expect "tx_pause_storm_warning_events" \
		"$(sim_ethtool_stat "$DEV" tx_pause_storm_warning_events)" 9
	sim_expect "rx_prio5_pause (PFC off)" \
		"$(sim_ethtool_stat "$DEV" rx_prio5_pause)" absent
	sim_expect "dcb indications" \
		"$(sim_json .indications dcb -j -s pfc show dev "$DEV")" \
		"[0,0,0,77,0,5,0,0]"
	echo 11 > "/sys/kernel/debug/rocetune_sim/$SIM_ID1/counters/tx_prio2_pause"
	sim_expect "irdma tx_priority_2_xoff.nic" \
		"$(sim_ethtool_stat "rsim$SIM_ID1" tx_priority_2_xoff.nic)" 11
	echo 12 > "/sys/kernel/debug/rocetune_sim/$SIM_ID2/counters/rx_prio4_pause"
	sim_expect "bnxt_re rx_pfc_ena_frames_pri4" \
		"$(sim_ethtool_stat "rsim$SIM_ID2" rx_pfc_ena_frames_pri4)" 12
	log_test "ethtool -S: personality names and injected values"
}

ethtool_tunable() {
	local t=pfc-prevention-tout

	RET=0
	sim_expect "default" "$(ethtool --get-tunable "$DEV" "$t" | awk '{print $2}')" 0
	ethtool --set-tunable "$DEV" "$t" 500
	check_err $? "set 500 failed"
	sim_expect "500" "$(ethtool --get-tunable "$DEV" "$t" | awk '{print $2}')" 500
	ethtool --set-tunable "$DEV" "$t" 50 2> /dev/null
	check_fail $? "50 ms (below 80) was accepted"
	ethtool --set-tunable "$DEV" "$t" 8001 2> /dev/null
	check_fail $? "8001 ms (above 8000) was accepted"
	ethtool --set-tunable "$DEV" "$t" 65535
	check_err $? "auto failed"
	sim_expect "auto" "$(ethtool --get-tunable "$DEV" "$t" | awk '{print $2}')" 100
	ethtool --set-tunable "$DEV" "$t" 0
	check_err $? "disable failed"
	ethtool --get-tunable "rsim$SIM_ID1" "$t" > /dev/null 2>&1
	check_fail $? "irdma personality has the mlx5 tunable"
	log_test "ethtool pfc-prevention-tout: 80..8000, auto and 0 like mlx5"
}

rdma_hw_stats() {
	RET=0
	echo 1234 > "$DFS/counters/np_cnp_sent"
	echo 55 > "$DFS/counters/rp_cnp_handled"
	echo 66 > "$DFS/counters/np_ecn_marked_roce_packets"
	echo 7 > "$DFS/counters/out_of_sequence"
	sim_expect "np_cnp_sent" "$(sim_rdma_stat "$IBDEV" np_cnp_sent)" 1234
	sim_expect "rp_cnp_handled" "$(sim_rdma_stat "$IBDEV" rp_cnp_handled)" 55
	sim_expect "np_ecn_marked_roce_packets" \
		"$(sim_rdma_stat "$IBDEV" np_ecn_marked_roce_packets)" 66
	sim_expect "out_of_sequence" "$(sim_rdma_stat "$IBDEV" out_of_sequence)" 7
	sim_expect "sysfs hw_counters" \
		"$(cat "/sys/class/infiniband/$IBDEV/ports/1/hw_counters/np_cnp_sent")" 1234
	echo 3 > "/sys/kernel/debug/rocetune_sim/$SIM_ID1/counters/cnpSent"
	sim_expect "irdma cnpSent" "$(sim_rdma_stat "rsim_ib$SIM_ID1" cnpSent)" 3
	sim_expect "irdma RxECNMrkd" \
		"$(sim_rdma_stat "rsim_ib$SIM_ID1" RxECNMrkd)" 0
	echo 4 > "/sys/kernel/debug/rocetune_sim/$SIM_ID2/counters/tx_cnp_pkts"
	sim_expect "bnxt_re tx_cnp_pkts" \
		"$(sim_rdma_stat "rsim_ib$SIM_ID2" tx_cnp_pkts)" 4
	sim_expect "bnxt_re oos_drop_count" \
		"$(sim_rdma_stat "rsim_ib$SIM_ID2" oos_drop_count)" 0
	sim_expect "RoCE netdev" \
		"$(sim_json '.[0].netdev' rdma -j link show "$IBDEV/1")" "\"$DEV\""
	# the kernel's MAD layer uses it as a kernel verbs provider: QP1
	sim_expect "GSI QP of the MAD layer" \
		"$(sim_json '[.[] | select(.lqpn == 1) | .type]' rdma -j res show qp link "$IBDEV/1")" \
		'["GSI"]'
	log_test "rdma statistic: personality hw counters and injected values"
}

counter_wrap() {
	RET=0
	echo 4294967295 > "$DFS/counters/out_of_sequence"
	echo +3 > "$DFS/counters/out_of_sequence"
	sim_expect "32-bit out_of_sequence" \
		"$(sim_rdma_stat "$IBDEV" out_of_sequence)" 2
	echo 4294967296 > "$DFS/counters/packet_seq_err"
	sim_expect "32-bit set above 2^32" \
		"$(sim_rdma_stat "$IBDEV" packet_seq_err)" 0
	echo 4294967295 > "$DFS/counters/np_cnp_sent"
	echo +3 > "$DFS/counters/np_cnp_sent"
	sim_expect "64-bit np_cnp_sent" \
		"$(sim_rdma_stat "$IBDEV" np_cnp_sent)" 4294967298
	# a 32-bit counter growing through the wrap: 4294967000 + 1000
	echo 4294967000 > "$DFS/counters/duplicate_request"
	echo "duplicate_request 10000 100" > "$DFS/grow"
	sleep 0.5
	sim_expect "grown through the wrap" \
		"$(sim_rdma_stat "$IBDEV" duplicate_request)" 704
	log_test "counters: 32-bit ones wrap at 2^32, 64-bit ones do not"
}

pfc_storm() {
	local line

	RET=0
	echo 0 > "$DFS/counters/rx_prio3_pause"
	echo 0 > "$DFS/counters/rx_prio3_pause_duration"
	echo "3 1000 1000" > "$DFS/pfc_storm"
	check_err $? "pfc_storm write failed"
	# builtins only: the storm must still be running
	read -r line < "$DFS/grow"
	[[ "$line" == "rx_prio3_pause 1000 "* ]]
	check_err $? "storm not listed in grow: '$line'"
	sleep 1.5
	sim_expect "rx_prio3_pause" "$(cat "$DFS/counters/rx_prio3_pause")" 1000
	sim_expect "rx_prio3_pause_duration" \
		"$(cat "$DFS/counters/rx_prio3_pause_duration")" 1000000
	sim_expect "ethtool rx_prio3_pause" \
		"$(sim_ethtool_stat "$DEV" rx_prio3_pause)" 1000
	sim_expect "dcb indications[3]" \
		"$(sim_json '.indications[3]' dcb -j -s pfc show dev "$DEV")" 1000
	sim_expect "grow after the storm" "$(cat "$DFS/grow")" ""
	echo "9 1000 500" > "$DFS/pfc_storm" 2> /dev/null
	check_fail $? "priority 9 accepted"
	echo "nosuch 1 1" > "$DFS/grow" 2> /dev/null
	check_fail $? "unknown counter accepted by grow"
	log_test "pfc_storm: 1000 frames/s for 1 s on prio 3 gives 1000 frames"
}

cc_params() {
	local cc=$DFS/cc_params

	RET=0
	sim_expect "np_cnp_dscp default" "$(cat "$cc/np_cnp_dscp")" 48
	sim_expect "rp_dce_tcp_g default" "$(cat "$cc/rp_dce_tcp_g")" 1019
	echo 0x1a > "$cc/np_cnp_dscp"
	check_err $? "hex write failed"
	sim_expect "np_cnp_dscp 0x1a" "$(cat "$cc/np_cnp_dscp")" 26
	echo 64 > "$cc/np_cnp_dscp"
	sim_expect "np_cnp_dscp 64 (6 bits)" "$(cat "$cc/np_cnp_dscp")" 0
	sim_expect "np_cnp_prio_mode before" "$(cat "$cc/np_cnp_prio_mode")" 1
	echo 11 > "$cc/np_cnp_prio"
	sim_expect "np_cnp_prio 11 (3 bits)" "$(cat "$cc/np_cnp_prio")" 3
	sim_expect "np_cnp_prio_mode after" "$(cat "$cc/np_cnp_prio_mode")" 0
	echo 4000000000 > "$cc/rp_max_rate"
	sim_expect "rp_max_rate 32 bits" "$(cat "$cc/rp_max_rate")" 4000000000
	echo abc > "$cc/rp_ai_rate" 2> /dev/null
	check_fail $? "non-number accepted"
	[ ! -e "/sys/kernel/debug/rocetune_sim/$SIM_ID1/cc_params" ]
	check_err $? "irdma personality has mlx5 cc_params"
	cc=/sys/kernel/debug/rocetune_sim/$SIM_ID2/cc_config
	sim_expect "bnxt_re enable_cc default" "$(cat "$cc/enable_cc")" 1
	echo 0x1a > "$cc/tos_dscp"
	sim_expect "bnxt_re tos_dscp 0x1a" "$(cat "$cc/tos_dscp")" 26
	echo 2 > "$cc/cc_mode"
	sim_expect "bnxt_re cc_mode 2 (1 bit)" "$(cat "$cc/cc_mode")" 0
	cat "$cc/tx_queue" > /dev/null 2>&1
	check_fail $? "bnxt_re tx_queue readable"
	echo 1 > "$cc/tx_queue" 2> /dev/null
	check_fail $? "bnxt_re tx_queue writable"
	log_test "cc_params/cc_config: mlx5 and bnxt_re names, input, field widths"
}

bus_errors() {
	RET=0
	echo "$SIM_ID mlx5" > "$SIM_BUS"/new_device 2> /dev/null
	check_fail $? "duplicate ID accepted"
	echo "$((SIM_ID + 3)) cx9" > "$SIM_BUS"/new_device 2> /dev/null
	check_fail $? "unknown personality accepted"
	echo "$((SIM_ID + 3))" > "$SIM_BUS"/del_device 2> /dev/null
	check_fail $? "deleting a missing device succeeded"
	sim_expect "sysfs personality" \
		"$(cat "$SIM_BUS/devices/rocetune_sim$SIM_ID2/personality")" bnxt_re
	log_test "bus: duplicate ID, unknown personality and missing ID refused"
}

setup() {
	rt_sim_load || rt_setup_failed "cannot load rocetune_sim"
	{ echo "$SIM_ID mlx5" > "$SIM_BUS"/new_device &&
		echo "$SIM_ID1 irdma" > "$SIM_BUS"/new_device &&
		echo "$SIM_ID2 bnxt_re" > "$SIM_BUS"/new_device; } ||
		rt_setup_failed "cannot create the sim devices"
	{ ip link set "$DEV" up && ip link set "rsim$SIM_ID1" up &&
		ip link set "rsim$SIM_ID2" up &&
		wait_for 5 grep -qx 1 "/sys/class/net/$DEV/carrier"; } ||
		rt_setup_failed "the sim netdevs do not come up"
}

cleanup() {
	local id

	for id in "$SIM_ID" "$SIM_ID1" "$SIM_ID2"; do
		echo "$id" > "$SIM_BUS"/del_device 2> /dev/null
	done
	rt_sim_unload
}

rt_require_root
rt_require_cmd dcb ethtool rdma jq
trap cleanup EXIT
setup
rt_run_tests
