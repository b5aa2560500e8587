#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune_sim behaves like a DCB-capable RoCE NIC to the real tools:
# iproute2's dcb reads back what dcb set, a forced failure fails the set,
# ethtool -S and rdma statistic show the personality's counter names with
# the values injected through debugfs, 32-bit counters wrap, a pause storm
# grows the PFC counters at the requested rate, and the congestion control
# files behave like mlx5's cc_params and bnxt_re's cc_config, also at the
# real drivers' debugfs paths.  The injection knobs of the apply engine's
# tests work as documented: set_count counts every set that reaches the
# device, fail_set fails the Nth, ignore_set ignores the Nth, cc_lockdown
# refuses the cc files as kernel lockdown does.  Each personality is its
# driver to ethtool (mlx5_core, ice, bnxt_en) and has its op set (irdma
# and bnxt_re have no maxrate and buffer ops, like ice and bnxt_en; none
# has apptrust ops) and APP rules: mlx5 replaces a mapped DSCP's entry,
# bnxt_en appends a second one, ice refuses a remap.  mlx5's max rates are
# rounded down to 100 Mb/s up to 25.5 Gb/s, to 1 Gb/s up to 255 Gb/s, and
# refused above.

ALL_TESTS="
	dcb_pfc
	dcb_ets
	dcb_app
	dcb_buffer
	dcb_maxrate
	mlx5_maxrate_units
	dcb_dcbx
	dcb_apptrust
	driver_identity
	app_mlx5_replaces
	app_bnxt_appends
	app_ice_refuses_remap
	bnxt_ets_before_pfc
	mlx5_buffer_rules
	mlx5_ets_strict_reads_zero
	bnxt_ets_rules
	bnxt_max_lltc
	ice_pfc_delay
	fail_next_set
	pfc_link_flap
	ethtool_stats
	ethtool_tunable
	rdma_hw_stats
	counter_wrap
	pfc_storm
	cc_params
	cc_real_paths
	set_count
	fail_set
	ignore_set
	cc_lockdown
	bnxt_no_maxrate_buffer
	bus_errors
	real_dir_shared
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

# sim_write FILE VALUE: echo VALUE > FILE (one write); errors on stderr.
sim_write() {
	echo "$2" > "$1"
}

# sim_sets CMD...: run CMD quietly and print how many set operations
# reached $DEV meanwhile (its set_count knob).
# sim_cc_write FILE TEXT: write TEXT (with Python's backslash escapes)
# to FILE in one write() and print "ok" or the errno's name.
sim_cc_write() {
	python3 -S - "$@" << 'EOF'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode().decode("unicode_escape").encode())
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
EOF
}

# sim_kver_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or later.
sim_kver_ge() {
	local maj min

	IFS=. read -r maj min _ <<< "$(uname -r)"
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "${min%%[!0-9]*}" -ge "$2" ]; }
}

sim_sets() {
	local before after

	read -r before < "$DFS/set_count" || { echo "no set_count"; return; }
	"$@" > /dev/null 2>&1
	read -r after < "$DFS/set_count" || { echo "no set_count"; return; }
	echo $((after - before))
}

# sim_pfc_delay DEV: the PFC delay (cable length) that dcb shows.
sim_pfc_delay() {
	sim_json .delay dcb -j pfc show dev "$1"
}

# sim_dcbnl MODE DEV ARGS...: DCB over raw rtnetlink, for what Debian 12's
# dcb cannot do: print the errno of a set (0 on success) or read the
# apptrust table.  Modes: "pfc DEV PFC_EN DELAY", "trust-set DEV SEL...",
# "trust-get DEV" (prints the selectors), "app-add DEV DSCP PRIO" and
# "app-del DEV DSCP PRIO" (one DSCP APP entry), "rate-buf DEV RATE0..RATE7
# SIZE0..SIZE7" (maxrate and buffer sizes, every priority in buffer 0, in
# one set), "buf DEV BUF0..BUF7 SIZE0..SIZE7" (a buffer set: the buffer of
# each priority, the sizes), "ets DEV TC0..TC7 TSA0..TSA7 BW0..BW7" (an
# ETS set: the TC of each priority, TSA and bandwidth of each TC),
# "attrs DEV..." (prints the attribute types of an IEEE get, a
# line per DEV).  Python without site (-S) starts faster in the VM.
sim_dcbnl() {
	python3 -S - "$@" << 'EOF'
import socket, struct, sys
RTM_GETDCB, RTM_SETDCB = 78, 79
DCB_CMD_IEEE_SET, DCB_CMD_IEEE_GET, DCB_CMD_IEEE_DEL = 20, 21, 27
DCB_ATTR_IFNAME, DCB_ATTR_IEEE = 1, 13
DCB_ATTR_IEEE_PFC, DCB_ATTR_DCB_APP_TRUST_TABLE = 2, 11
DCB_ATTR_IEEE_APP_TABLE, IEEE_8021QAZ_APP_SEL_DSCP = 3, 5
DCB_ATTR_IEEE_MAXRATE, DCB_ATTR_DCB_BUFFER = 7, 10
DCB_ATTR_IEEE_APP, DCB_ATTR_DCB_APP = 1, 2
DCB_ATTR_IEEE_ETS = 1
DCB_CMD_SDCBX, DCB_ATTR_DCBX = 23, 14


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


def ieee_set(dev, nested, cmd=DCB_CMD_IEEE_SET):
    reply = talk(RTM_SETDCB, cmd, dev, attr(DCB_ATTR_IEEE | 0x8000, nested))
    print((256 - reply[DCB_ATTR_IEEE][0]) % 256)


mode, dev, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
args = [] if mode == "attrs" else [int(a, 0) for a in argv]
if mode == "pfc":
    pfc = struct.pack("=BBBxH2x16Q", 8, args[0], 0, args[1], *([0] * 16))
    ieee_set(dev, attr(DCB_ATTR_IEEE_PFC, pfc))
elif mode == "trust-set":
    table = b"".join(attr(DCB_ATTR_DCB_APP if s == 255 else DCB_ATTR_IEEE_APP,
                          bytes([s])) for s in args)
    ieee_set(dev, attr(DCB_ATTR_DCB_APP_TRUST_TABLE | 0x8000, table))
elif mode in ("app-add", "app-del"):
    app = struct.pack("=BBH", IEEE_8021QAZ_APP_SEL_DSCP, args[1], args[0])
    ieee_set(dev, attr(DCB_ATTR_IEEE_APP_TABLE | 0x8000,
                       attr(DCB_ATTR_IEEE_APP, app)),
             DCB_CMD_IEEE_SET if mode == "app-add" else DCB_CMD_IEEE_DEL)
elif mode == "trust-get":
    ieee = dict(attrs(talk(RTM_GETDCB, DCB_CMD_IEEE_GET, dev)[DCB_ATTR_IEEE]))
    table = ieee.get(DCB_ATTR_DCB_APP_TRUST_TABLE, b"")
    print(" ".join(str(v[0]) for _, v in attrs(table)))
elif mode == "rate-buf":
    rate = struct.pack("=8Q", *args[:8])
    buf = struct.pack("=8B8II", *([0] * 8), *args[8:16], 0)
    ieee_set(dev, attr(DCB_ATTR_IEEE_MAXRATE, rate) +
             attr(DCB_ATTR_DCB_BUFFER, buf))
elif mode == "buf":
    buf = struct.pack("=8B8II", *args[:16], 0)
    ieee_set(dev, attr(DCB_ATTR_DCB_BUFFER, buf))
elif mode == "ets":
    ets = struct.pack("=BBB56B", 0, 0, 0, *args[16:24], *([0] * 8),
                      *args[8:16], *args[:8], *([0] * 24))
    ieee_set(dev, attr(DCB_ATTR_IEEE_ETS, ets))
elif mode == "dcbx":
    reply = talk(RTM_SETDCB, DCB_CMD_SDCBX, dev, attr(DCB_ATTR_DCBX, bytes([args[0]])))
    print(reply[DCB_ATTR_DCBX][0])
elif mode == "attrs":
    for d in [dev] + argv:
        ieee = talk(RTM_GETDCB, DCB_CMD_IEEE_GET, d)[DCB_ATTR_IEEE]
        print(" ".join(str(t) for t, _ in attrs(ieee)))
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
	# mlx5 ignores a cable length of 1000 m or more without an error
	sim_expect "errno of delay 1000" "$(sim_dcbnl pfc "$DEV" 0x18 1000)" 0
	sim_expect "errno of delay 1001" "$(sim_dcbnl pfc "$DEV" 0x18 1001)" 0
	rt_dcb pfc set dev "$DEV" delay 1001 > /dev/null
	sim_expect "delay after an ignored set" \
		"$(sim_json .delay dcb -j pfc show dev "$DEV")" 100
	sim_expect "errno of delay 999" "$(sim_dcbnl pfc "$DEV" 0x18 999)" 0
	sim_expect "delay 999" "$(sim_json .delay dcb -j pfc show dev "$DEV")" 999
	rt_dcb pfc set dev "$DEV" delay 100
	log_test "dcb pfc: prio-pfc and delay read back, mlx5 ignores a delay of 1000 m or more"
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
	# PFC is on for prio 3 and 4 (dcb_pfc): mlx5 checks a new map
	# against the current sizes, so the sizes go first
	rt_dcb buffer set dev "$DEV" buffer-size all:0 0:100K 1:200K
	check_err $? "dcb buffer set of the sizes failed"
	rt_dcb buffer set dev "$DEV" prio-buffer all:0 3:1 4:1
	check_err $? "dcb buffer set of the map failed"
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
	# dcb passes its rate in bytes per second where the kernel (mlx5)
	# reads kbit/s, so the rates are given raw ("bps": bytes, not
	# multiplied): 10 Gb/s and 400 Mb/s in kbit/s
	rt_dcb maxrate set dev "$DEV" tc-maxrate all:0 3:10000000bps 5:400000bps
	check_err $? "dcb maxrate set failed"
	sim_expect "tc-maxrate" \
		"$(sim_json .tc_maxrate dcb -j maxrate show dev "$DEV")" \
		"[0,0,0,10000000,0,400000,0,0]"
	log_test "dcb maxrate: per-TC rates read back"
}

# mlx5 keeps a maxrate as a u8 count of 100 Mb/s up to 25.5 Gb/s, else of
# 1 Gb/s; above 255 Gb/s the whole set is EINVAL (mlx5e_dcbnl_ieee_setmaxrate,
# drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c, Linux 6.1).  The
# expected values are dcb's bytes per second of the rounded rates.
mlx5_maxrate_units() {
	local want

	RET=0
	# raw kbit/s, as in dcb_maxrate: 50M, 1050M, 25.5G, 25.6G, 30.5G, 255G
	rt_dcb maxrate set dev "$DEV" tc-maxrate all:0 1:50000bps 2:1050000bps \
		3:25500000bps 4:25600000bps 5:30500000bps 6:255000000bps
	check_err $? "dcb maxrate set failed"
	# 100M, 1000M, 25.5G, 25G, 30G, 255G
	want="[0,100000,1000000,25500000,25000000,30000000,255000000,0]"
	sim_expect "tc-maxrate rounded to mlx5's units" \
		"$(sim_json .tc_maxrate dcb -j maxrate show dev "$DEV")" "$want"
	# dcb reports the EINVAL as "Protocol error", which rt_dcb forgives:
	# the read-back shows the refusal
	dcb maxrate set dev "$DEV" tc-maxrate 7:256000000bps > /dev/null 2>&1
	sim_expect "tc-maxrate after a refused 256 Gb/s" \
		"$(sim_json .tc_maxrate dcb -j maxrate show dev "$DEV")" "$want"
	rt_dcb maxrate set dev "$DEV" tc-maxrate all:0
	check_err $? "dcb maxrate set all:0 failed"
	log_test "mlx5 maxrate: 50M, 1050M, 25.6G, 30.5G read back as 100M, 1000M, 25G, 30G; 255G kept, 256G refused (EINVAL)"
}

# sim_dcbx DEV MODE: what the driver's setdcbx answers (0 taken, 1
# refused; Debian 12's dcb does not read it) for MODE, a mask of
# DCB_CAP_DCBX_HOST 0x01, _LLD_MANAGED 0x02, _VER_CEE 0x04, _VER_IEEE 0x08.
sim_dcbx() {
	sim_dcbnl dcbx "$1" "$2"
}

sim_dcbx_show() {
	dcb dcbx show dev "$1" | xargs
}

# DCBX modes as each driver takes them (Linux 6.1): mlx5
# mlx5e_dcbnl_setdcbx(), bnxt_en bnxt_dcbnl_setdcbx(), ice
# ice_dcbnl_setdcbx().  Answers from raw rtnetlink, state from dcb.
dcb_dcbx() {
	local ice=rsim$SIM_ID1 bnxt=rsim$SIM_ID2 id=$((SIM_ID + 8)) pfc

	RET=0
	# mlx5: host with both versions; no LLD, no mode without host but
	# 0, which hands DCBX to the firmware (host dropped)
	sim_expect "mlx5 default mode" "$(sim_dcbx_show "$DEV")" "host cee ieee"
	sim_expect "mlx5 host ieee" "$(sim_dcbx "$DEV" 0x09)" 0
	sim_expect "mlx5 mode" "$(sim_dcbx_show "$DEV")" "host ieee"
	sim_expect "mlx5 lld-managed ieee" "$(sim_dcbx "$DEV" 0x0a)" 1
	sim_expect "mlx5 ieee without host" "$(sim_dcbx "$DEV" 0x08)" 1
	sim_expect "mlx5 mode after refusals" "$(sim_dcbx_show "$DEV")" "host ieee"
	sim_expect "mlx5 mode 0 (firmware)" "$(sim_dcbx "$DEV" 0)" 0
	sim_expect "mlx5 firmware mode" "$(sim_dcbx_show "$DEV")" "ieee"
	sim_expect "mlx5 mode 0 again" "$(sim_dcbx "$DEV" 0)" 0
	rt_dcb dcbx set dev "$DEV" host cee ieee
	check_err $? "dcb dcbx set host cee ieee failed"
	sim_expect "mlx5 back in host mode" "$(sim_dcbx_show "$DEV")" "host cee ieee"

	# ice: host with one version, not the current one, not in DSCP
	# mode; DSCP entries need IEEE
	sim_expect "ice default mode" "$(sim_dcbx_show "$ice")" "host ieee"
	sim_expect "ice the current mode" "$(sim_dcbx "$ice" 0x09)" 1
	sim_expect "ice host cee ieee" "$(sim_dcbx "$ice" 0x0d)" 1
	sim_expect "ice cee without host" "$(sim_dcbx "$ice" 0x04)" 1
	sim_expect "ice lld-managed cee" "$(sim_dcbx "$ice" 0x06)" 1
	sim_expect "ice DSCP entry" "$(sim_dcbnl app-add "$ice" 26 3)" 0
	sim_expect "ice host cee in DSCP mode" "$(sim_dcbx "$ice" 0x05)" 1
	sim_expect "ice mode in DSCP mode" "$(sim_dcbx_show "$ice")" "host ieee"
	sim_expect "ice DSCP entry deleted" "$(sim_dcbnl app-del "$ice" 26 3)" 0
	sim_expect "ice host cee" "$(sim_dcbx "$ice" 0x05)" 0
	sim_expect "ice mode" "$(sim_dcbx_show "$ice")" "host cee"
	sim_expect "ice DSCP entry in CEE mode" "$(sim_dcbnl app-add "$ice" 26 3)" 22
	pfc=$(sim_json .prio_pfc dcb -j pfc show dev "$ice")
	sim_expect "ice PFC set in CEE mode" "$(sim_dcbnl pfc "$ice" 0xff 0)" 22
	sim_expect "ice ETS set in CEE mode" \
		"$(sim_dcbnl ets "$ice" 0 0 0 0 0 0 0 0 2 2 2 2 2 2 2 2 100 0 0 0 0 0 0 0)" 22
	sim_expect "ice prio-pfc after a refused set" \
		"$(sim_json .prio_pfc dcb -j pfc show dev "$ice")" "$pfc"
	sim_expect "ice host ieee" "$(sim_dcbx "$ice" 0x09)" 0
	sim_expect "ice mode at the end" "$(sim_dcbx_show "$ice")" "host ieee"

	# bnxt_en: host needs IEEE alone; without host the DCB sets are
	# EINVAL; a mode with LLD_MANAGED is the last one taken
	sim_expect "bnxt default mode" "$(sim_dcbx_show "$bnxt")" "host ieee"
	sim_expect "bnxt host cee" "$(sim_dcbx "$bnxt" 0x05)" 1
	sim_expect "bnxt host alone" "$(sim_dcbx "$bnxt" 0x01)" 1
	sim_expect "bnxt the current mode" "$(sim_dcbx "$bnxt" 0x09)" 0
	sim_expect "bnxt ieee without host" "$(sim_dcbx "$bnxt" 0x08)" 0
	sim_expect "bnxt mode" "$(sim_dcbx_show "$bnxt")" "ieee"
	sim_expect "bnxt ETS set without host" \
		"$(sim_dcbnl ets "$bnxt" 0 0 0 0 0 0 0 0 2 2 2 2 2 2 2 2 100 0 0 0 0 0 0 0)" 22
	sim_expect "bnxt DSCP entry without host" \
		"$(sim_dcbnl app-add "$bnxt" 26 3)" 22
	sim_expect "bnxt host ieee" "$(sim_dcbx "$bnxt" 0x09)" 0
	sim_expect "bnxt mode at the end" "$(sim_dcbx_show "$bnxt")" "host ieee"
	echo "$id bnxt_re" > "$SIM_BUS"/new_device
	check_err $? "cannot create device $id"
	sim_expect "bnxt lld-managed ieee" "$(sim_dcbx "rsim$id" 0x0a)" 0
	sim_expect "bnxt host ieee after lld-managed" "$(sim_dcbx "rsim$id" 0x09)" 1
	sim_expect "bnxt mode after lld-managed" "$(sim_dcbx_show "rsim$id")" \
		"lld-managed ieee"
	echo "$id" > "$SIM_BUS"/del_device
	check_err $? "cannot delete device $id"
	log_test "dcb dcbx: mlx5 host modes and mode 0 (firmware), ice one version and not in DSCP mode, bnxt_en host IEEE only and LLD_MANAGED final"
}

# None of the three drivers has apptrust ops (mlx5: en_dcbnl.c
# mlx5e_dcbnl_ops, ice: ice_dcb_nl.c dcbnl_ops, bnxt_en: bnxt_dcb.c
# dcbnl_ops, 6.1 and 6.12): dcbnl refuses a trust table with EOPNOTSUPP
# and puts none in an IEEE get.
dcb_apptrust() {
	local maj min dev

	IFS=. read -r maj min _ <<< "$(uname -r)"
	if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 2 ]; }; then
		log_skip "dcb apptrust" "dcbnl has no apptrust before 6.2"
		return
	fi
	RET=0
	for dev in "$DEV" "rsim$SIM_ID1" "rsim$SIM_ID2"; do
		sim_expect "$dev trust table" "$(sim_dcbnl trust-get "$dev")" ""
		sim_expect "$dev errno of dscp pcp" \
			"$(sim_dcbnl trust-set "$dev" 5 255)" 95
	done
	log_test "dcb apptrust (raw dcbnl): no personality has apptrust ops"
}

# ethtool -i shows the real Ethernet driver of each personality, so that
# rocetune's driver-specific rules run on the simulated NICs.
driver_identity() {
	local dev want

	RET=0
	for dev in "$DEV:mlx5_core" "rsim$SIM_ID1:ice" "rsim$SIM_ID2:bnxt_en"; do
		want=${dev#*:}
		dev=${dev%%:*}
		sim_expect "$dev driver" \
			"$(ethtool -i "$dev" | awk '$1 == "driver:" { print $2 }')" \
			"$want"
	done
	log_test "ethtool -i: mlx5_core, ice and bnxt_en"
}

# sim_dscp DEV: the DSCP APP entries dcb shows, sorted.
sim_dscp() {
	sim_json '.dscp_prio // [] | sort' dcb -j app show dev "$1"
}

app_mlx5_replaces() {
	RET=0
	sim_expect "errno of 26:3" "$(sim_dcbnl app-add "$DEV" 26 3)" 0
	sim_expect "errno of 26:5 over 26:3" "$(sim_dcbnl app-add "$DEV" 26 5)" 0
	sim_expect "entries after a remap" "$(sim_dscp "$DEV")" "[[26,5]]"
	sim_expect "errno of 26:5 again" "$(sim_dcbnl app-add "$DEV" 26 5)" 0
	sim_expect "errno of deleting 26:3" "$(sim_dcbnl app-del "$DEV" 26 3)" 2
	sim_expect "errno of deleting 26:5" "$(sim_dcbnl app-del "$DEV" 26 5)" 0
	sim_expect "entries after the delete" "$(sim_dscp "$DEV")" "[]"
	log_test "mlx5 APP: an add for a mapped DSCP replaces its entry"
}

app_bnxt_appends() {
	local dev=rsim$SIM_ID2

	RET=0
	sim_expect "errno of 26:3" "$(sim_dcbnl app-add "$dev" 26 3)" 0
	sim_expect "errno of 26:5 beside 26:3" \
		"$(sim_dcbnl app-add "$dev" 26 5)" 0
	sim_expect "entries after a second add" "$(sim_dscp "$dev")" \
		"[[26,3],[26,5]]"
	sim_expect "errno of 26:5 again (identical)" \
		"$(sim_dcbnl app-add "$dev" 26 5)" 17
	sim_expect "errno of deleting 26:3" "$(sim_dcbnl app-del "$dev" 26 3)" 0
	sim_expect "entries after deleting the old one" "$(sim_dscp "$dev")" \
		"[[26,5]]"
	sim_expect "errno of deleting 26:3 again" \
		"$(sim_dcbnl app-del "$dev" 26 3)" 2
	sim_expect "errno of deleting 26:5" "$(sim_dcbnl app-del "$dev" 26 5)" 0
	log_test "bnxt_en APP: a second entry for a DSCP is added beside the old one"
}

app_ice_refuses_remap() {
	local dev=rsim$SIM_ID1

	RET=0
	sim_expect "errno of 26:3" "$(sim_dcbnl app-add "$dev" 26 3)" 0
	sim_expect "errno of 26:5 over 26:3" "$(sim_dcbnl app-add "$dev" 26 5)" 22
	sim_expect "entries after a refused remap" "$(sim_dscp "$dev")" "[[26,3]]"
	sim_expect "errno of 26:3 again (identical)" \
		"$(sim_dcbnl app-add "$dev" 26 3)" 17
	sim_expect "errno of deleting 26:3" "$(sim_dcbnl app-del "$dev" 26 3)" 0
	sim_expect "errno of 26:5 after the delete" \
		"$(sim_dcbnl app-add "$dev" 26 5)" 0
	sim_expect "entries after delete and add" "$(sim_dscp "$dev")" "[[26,5]]"
	sim_expect "errno of deleting 26:5" "$(sim_dcbnl app-del "$dev" 26 5)" 0
	log_test "ice APP: a remap of a mapped DSCP is EINVAL, delete then add works"
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
	# mlx5 cong.c set_param(): over 11 bytes EINVAL, of 11 the 11th lost
	sim_cc_write "$cc/rp_ai_rate" 5 > /dev/null
	sim_expect "mlx5 write of 12 bytes" \
		"$(sim_cc_write "$cc/rp_ai_rate" '00000000007\n')" EINVAL
	sim_expect "rp_ai_rate after 12 bytes" "$(cat "$cc/rp_ai_rate")" 5
	sim_expect "mlx5 write of 11 bytes" \
		"$(sim_cc_write "$cc/rp_max_rate" '4294967295\n')" ok
	sim_expect "rp_max_rate of 11 bytes" "$(cat "$cc/rp_max_rate")" 4294967295
	sim_expect "mlx5 write of 11 digits" \
		"$(sim_cc_write "$cc/rp_max_rate" 12345678901)" ok
	sim_expect "rp_max_rate of 11 digits" "$(cat "$cc/rp_max_rate")" 1234567890
	sim_cc_write "$cc/rp_max_rate" 0 > /dev/null
	# 20 files in 6.1 (cong.c), rtt_resp_dscp_valid and rtt_resp_dscp
	# since 6.3
	if sim_kver_ge 6 3; then
		sim_expect "mlx5 cc_params since 6.3" "$(find "$cc" -type f | wc -l)" 22
		sim_expect "rtt_resp_dscp_valid default" \
			"$(cat "$cc/rtt_resp_dscp_valid")" 0
	else
		sim_expect "mlx5 cc_params before 6.3" "$(find "$cc" -type f | wc -l)" 20
		[ ! -e "$cc/rtt_resp_dscp" ] && [ ! -e "$cc/rtt_resp_dscp_valid" ]
		check_err $? "rtt_resp_* files before 6.3"
	fi
	[ ! -e "/sys/kernel/debug/rocetune_sim/$SIM_ID1/cc_params" ]
	check_err $? "irdma personality has mlx5 cc_params"
	cc=/sys/kernel/debug/rocetune_sim/$SIM_ID2/cc_config
	sim_expect "bnxt_re enable_cc default" "$(cat "$cc/enable_cc")" 1
	echo 0x1a > "$cc/tos_dscp"
	sim_expect "bnxt_re tos_dscp 0x1a" "$(cat "$cc/tos_dscp")" 26
	echo 2 > "$cc/cc_mode"
	sim_expect "bnxt_re cc_mode 2 (1 bit)" "$(cat "$cc/cc_mode")" 0
	# bnxt_re debugfs.c bnxt_re_cc_config_set(): 16 bytes or more EINVAL
	sim_expect "bnxt_re write of 16 bytes" \
		"$(sim_cc_write "$cc/tos_dscp" '000000000000007\n')" EINVAL
	sim_expect "tos_dscp after 16 bytes" "$(cat "$cc/tos_dscp")" 26
	sim_expect "bnxt_re write of 15 bytes" \
		"$(sim_cc_write "$cc/tos_dscp" '00000000000007\n')" ok
	sim_expect "tos_dscp of 15 bytes" "$(cat "$cc/tos_dscp")" 7
	cat "$cc/tx_queue" > /dev/null 2>&1
	check_fail $? "bnxt_re tx_queue readable"
	echo 1 > "$cc/tx_queue" 2> /dev/null
	check_fail $? "bnxt_re tx_queue writable"
	log_test "cc_params/cc_config: mlx5 and bnxt_re names, input, field widths"
}

# The cc files also where the real drivers have them, under the bus-info
# that ethtool -i reports, so that rocetune's mlx5 and bnxt_re backends
# find them unchanged.
cc_real_paths() {
	local bus real sim dbg=/sys/kernel/debug id=$((SIM_ID + 3))

	RET=0
	bus=$(ethtool -i "$DEV" | awk '$1 == "bus-info:" { print $2 }')
	sim_expect "mlx5 bus-info" "$bus" "rocetune_sim$SIM_ID"
	real=$dbg/mlx5/$bus/cc_params
	sim=$DFS/cc_params
	[ -d "$real" ]
	check_err $? "no $real"
	check_same "$(cd "$real" && echo *)" "$(cd "$sim" && echo *)" \
		"mlx5 file names differ"
	check_same "$(cd "$real" && grep -H . -- *)" \
		"$(cd "$sim" && grep -H . -- *)" "mlx5 values differ"
	sim_write "$real/np_cnp_dscp" 17
	check_err $? "write through the real path failed"
	sim_expect "np_cnp_dscp written at the real path" \
		"$(cat "$sim/np_cnp_dscp")" 17
	sim_write "$sim/np_cnp_dscp" 23
	sim_expect "np_cnp_dscp read at the real path" \
		"$(cat "$real/np_cnp_dscp")" 23

	bus=$(ethtool -i "rsim$SIM_ID2" | awk '$1 == "bus-info:" { print $2 }')
	sim_expect "bnxt_re bus-info" "$bus" "rocetune_sim$SIM_ID2"
	real=$dbg/bnxt_re/$bus/cc_config
	sim=/sys/kernel/debug/rocetune_sim/$SIM_ID2/cc_config
	[ -d "$real" ]
	check_err $? "no $real"
	check_same "$(cd "$real" && echo *)" "$(cd "$sim" && echo *)" \
		"bnxt_re file names differ"
	sim_write "$real/tos_dscp" 0x12
	check_err $? "write through the real path failed"
	sim_expect "tos_dscp written at the real path" "$(cat "$sim/tos_dscp")" 18
	check_same "$(cat "$real/rtt")" "$(cat "$sim/rtt")" \
		"bnxt_re rtt differs at the real path"

	[ ! -e "$dbg/mlx5/rocetune_sim$SIM_ID1" ] &&
		[ ! -e "$dbg/bnxt_re/rocetune_sim$SIM_ID1" ]
	check_err $? "irdma personality has a real cc path"
	[ ! -e "$dbg/bnxt_re/rocetune_sim$SIM_ID" ]
	check_err $? "mlx5 personality is under bnxt_re/"

	echo "$id mlx5" > "$SIM_BUS"/new_device
	check_err $? "cannot create device $id"
	[ -d "$dbg/mlx5/rocetune_sim$id/cc_params" ]
	check_err $? "no real path for a new device"
	echo "$id" > "$SIM_BUS"/del_device
	[ ! -e "$dbg/mlx5/rocetune_sim$id" ]
	check_err $? "real path left behind by del_device"
	[ -d "$dbg/mlx5/rocetune_sim$SIM_ID/cc_params" ]
	check_err $? "deleting another device removed this one's real path"
	log_test "cc files at debugfs mlx5/BUS/cc_params and bnxt_re/BUS/cc_config"
}

set_count() {
	local cc=$DFS/cc_params t=pfc-prevention-tout

	RET=0
	echo N > "$DFS/pfc_link_flap"
	sim_expect "reads" "$(sim_sets sim_reads)" 0
	sim_expect "dcb pfc set" \
		"$(sim_sets rt_dcb pfc set dev "$DEV" prio-pfc 1:on)" 1
	sim_expect "the same dcb pfc set again" \
		"$(sim_sets rt_dcb pfc set dev "$DEV" prio-pfc 1:on)" 1
	sim_expect "dcb ets set" "$(sim_sets rt_dcb ets set dev "$DEV" \
		tc-tsa all:ets tc-bw all:0 0:100 prio-tc all:0)" 1
	sim_expect "dcb app add (1 entry)" \
		"$(sim_sets rt_dcb app add dev "$DEV" dscp-prio 10:1)" 1
	sim_expect "dcb app add (2 entries)" \
		"$(sim_sets rt_dcb app add dev "$DEV" dscp-prio 11:1 12:1)" 2
	sim_expect "dcb app del (3 entries)" \
		"$(sim_sets rt_dcb app del dev "$DEV" dscp-prio 10:1 11:1 12:1)" 3
	sim_expect "dcb maxrate set" \
		"$(sim_sets rt_dcb maxrate set dev "$DEV" tc-maxrate all:0)" 1
	sim_expect "dcb buffer set" \
		"$(sim_sets rt_dcb buffer set dev "$DEV" buffer-size 1:8K)" 1
	sim_expect "dcb dcbx set" \
		"$(sim_sets rt_dcb dcbx set dev "$DEV" host ieee)" 1
	sim_expect "ethtool --set-tunable" \
		"$(sim_sets ethtool --set-tunable "$DEV" "$t" 300)" 1
	sim_expect "cc write" "$(sim_sets sim_write "$cc/rp_ai_rate" 6)" 1
	sim_expect "cc write at the real path" \
		"$(sim_sets sim_write "/sys/kernel/debug/mlx5/rocetune_sim$SIM_ID/cc_params/rp_ai_rate" 7)" 1
	# refused ones reached the device too
	sim_expect "refused PFC delay" \
		"$(sim_sets rt_dcb pfc set dev "$DEV" delay 1001)" 1
	sim_expect "refused tunable" \
		"$(sim_sets ethtool --set-tunable "$DEV" "$t" 50)" 1
	sim_expect "refused cc write" "$(sim_sets sim_write "$cc/rp_ai_rate" x)" 1
	echo 5 > "$DFS/fail_next_set"
	sim_expect "failed by fail_next_set" \
		"$(sim_sets rt_dcb pfc set dev "$DEV" delay 7)" 1
	sim_expect "reads again" "$(sim_sets sim_reads)" 0
	sim_expect "rp_ai_rate" "$(cat "$cc/rp_ai_rate")" 7
	echo 0 > "$DFS/set_count" 2> /dev/null
	check_fail $? "set_count is writable"
	rt_dcb pfc set dev "$DEV" prio-pfc 1:off
	ethtool --set-tunable "$DEV" "$t" 0
	echo Y > "$DFS/pfc_link_flap"
	log_test "set_count: one per dcbnl set op, tunable set and cc write; reads none"
}

# Everything a tool reads from $DEV; none of it is a set.
sim_reads() {
	local o

	for o in pfc ets app maxrate buffer dcbx; do
		dcb -j "$o" show dev "$DEV" || return 1
	done
	ethtool --get-tunable "$DEV" pfc-prevention-tout &&
		ethtool -S "$DEV" && ethtool -i "$DEV" &&
		cat "$DFS"/cc_params/* \
			"/sys/kernel/debug/mlx5/rocetune_sim$SIM_ID/cc_params/rp_gd"
}

fail_set() {
	local cc=$DFS/cc_params t=pfc-prevention-tout out

	RET=0
	echo N > "$DFS/pfc_link_flap"
	ethtool --set-tunable "$DEV" "$t" 200
	rt_dcb ets set dev "$DEV" tc-tsa all:ets tc-bw all:0 0:100 prio-tc all:0
	sim_expect "disarmed" "$(cat "$DFS/fail_set")" "0 0"
	echo "2 22" > "$DFS/fail_set"
	check_err $? "arming failed"
	sim_expect "armed" "$(cat "$DFS/fail_set")" "2 22"
	rt_dcb pfc set dev "$DEV" delay 20
	sim_expect "after set 1 (dcb)" "$(cat "$DFS/fail_set")" "1 22"
	sim_write "$cc/rp_ai_rate" 9
	check_err $? "set 2 (cc write) failed"
	sim_expect "after set 2 (cc write)" "$(cat "$DFS/fail_set")" "0 22"
	out=$(ethtool --set-tunable "$DEV" "$t" 300 2>&1)
	check_fail $? "set 3 (tunable) succeeded"
	[[ "$out" == *"Invalid argument"* ]]
	check_err $? "set 3 failed with '$out', not EINVAL"
	sim_expect "tunable after the failed set" \
		"$(ethtool --get-tunable "$DEV" "$t" | awk '{ print $2 }')" 200
	sim_expect "after set 3" "$(cat "$DFS/fail_set")" "0 0"
	ethtool --set-tunable "$DEV" "$t" 300
	check_err $? "set 4 failed"
	sim_expect "values of sets 1, 2, 4" \
		"$(sim_pfc_delay "$DEV") $(cat "$cc/rp_ai_rate") $(ethtool --get-tunable "$DEV" "$t" | awk '{ print $2 }')" \
		"20 9 300"

	echo "1 -16" > "$DFS/fail_set"
	sim_expect "negative errno" "$(cat "$DFS/fail_set")" "1 16"
	rt_dcb pfc set dev "$DEV" delay 30
	sim_expect "errno of dcbnl set 2" "$(sim_dcbnl pfc "$DEV" 0 40)" 16
	sim_expect "delay after the failed set" "$(sim_pfc_delay "$DEV")" 30
	echo "1 5" > "$DFS/fail_set"
	sim_write "$cc/np_cnp_dscp" 10
	out=$(sim_write "$cc/np_cnp_dscp" 20 2>&1)
	check_fail $? "cc write 2 succeeded"
	[[ "$out" == *"Input/output error"* ]]
	check_err $? "cc write 2 failed with '$out', not EIO"
	sim_expect "np_cnp_dscp after the failed write" \
		"$(cat "$cc/np_cnp_dscp")" 10
	# Debian 12's dcb exits 0 although the set failed: read back
	echo "0 22" > "$DFS/fail_set"
	rt_dcb ets set dev "$DEV" tc-bw all:0 0:50 1:50 > /dev/null
	sim_expect "tc-bw after a failed dcb set" \
		"$(sim_json .tc_bw[0] dcb -j ets show dev "$DEV")" 100
	sim_expect "consumed by dcb" "$(cat "$DFS/fail_set")" "0 0"

	echo "3 5" > "$DFS/fail_set"
	echo "0 0" > "$DFS/fail_set"
	sim_expect "disarmed by 0 0" "$(cat "$DFS/fail_set")" "0 0"
	rt_dcb pfc set dev "$DEV" delay 7
	sim_expect "delay set after disarming" "$(sim_pfc_delay "$DEV")" 7
	for out in "x" "1" "-1 5" "1 4096" "1 -4096"; do
		echo "$out" > "$DFS/fail_set" 2> /dev/null
		check_fail $? "'$out' accepted"
	done
	sim_expect "after invalid input" "$(cat "$DFS/fail_set")" "0 0"
	ethtool --set-tunable "$DEV" "$t" 0
	echo Y > "$DFS/pfc_link_flap"
	log_test "fail_set: SKIP sets pass, the next fails with ERRNO, once"
}

ignore_set() {
	local cc=$DFS/cc_params t=pfc-prevention-tout apps

	RET=0
	echo N > "$DFS/pfc_link_flap"
	sim_write "$cc/np_cnp_dscp" 10
	ethtool --set-tunable "$DEV" "$t" 0
	apps=$(sim_json '.dscp_prio // []' dcb -j app show dev "$DEV")
	sim_expect "disarmed" "$(cat "$DFS/ignore_set")" -1
	echo 1 > "$DFS/ignore_set"
	check_err $? "arming failed"
	sim_expect "armed" "$(cat "$DFS/ignore_set")" 1
	rt_dcb pfc set dev "$DEV" delay 50
	sim_expect "after set 1" "$(cat "$DFS/ignore_set")" 0
	sim_expect "errno of the ignored set" "$(sim_dcbnl pfc "$DEV" 0 60)" 0
	sim_expect "delay after the ignored set" "$(sim_pfc_delay "$DEV")" 50
	sim_expect "after the ignored set" "$(cat "$DFS/ignore_set")" -1
	rt_dcb pfc set dev "$DEV" delay 60
	sim_expect "delay after the next set" "$(sim_pfc_delay "$DEV")" 60

	echo 0 > "$DFS/ignore_set"
	sim_write "$cc/np_cnp_dscp" 33
	check_err $? "ignored cc write failed"
	sim_expect "np_cnp_dscp after the ignored write" \
		"$(cat "$cc/np_cnp_dscp")" 10
	echo 0 > "$DFS/ignore_set"
	ethtool --set-tunable "$DEV" "$t" 400
	check_err $? "ignored set-tunable failed"
	sim_expect "tunable after the ignored set" \
		"$(ethtool --get-tunable "$DEV" "$t" | awk '{ print $2 }')" 0
	echo 0 > "$DFS/ignore_set"
	rt_dcb app add dev "$DEV" dscp-prio 10:2
	check_err $? "ignored dcb app add failed"
	check_same "$(sim_json '.dscp_prio // []' dcb -j app show dev "$DEV")" \
		"$apps" "dscp-prio changed by the ignored add"

	echo 0 > "$DFS/ignore_set"
	echo "0 5" > "$DFS/fail_set"
	sim_expect "fail_set wins on the same set" \
		"$(sim_dcbnl pfc "$DEV" 0 70)" 5
	sim_expect "both consumed" \
		"$(cat "$DFS/ignore_set") $(cat "$DFS/fail_set")" "-1 0 0"
	echo 5 > "$DFS/ignore_set"
	echo -1 > "$DFS/ignore_set"
	sim_expect "disarmed by -1" "$(cat "$DFS/ignore_set")" -1
	echo -2 > "$DFS/ignore_set" 2> /dev/null
	check_fail $? "-2 accepted"
	echo Y > "$DFS/pfc_link_flap"
	log_test "ignore_set: after SKIP sets one reports success and changes nothing"
}

# kernel lockdown's line for one refused open, counted in the log
sim_lockdown_lines() {
	dmesg -t | grep -c 'Lockdown: .*: debugfs access is restricted; see man kernel_lockdown.7$'
}

cc_lockdown() {
	local cc=$DFS/cc_params f lines n out
	local real=/sys/kernel/debug/mlx5/rocetune_sim$SIM_ID/cc_params
	local d2=/sys/kernel/debug/rocetune_sim/$SIM_ID2
	local real2=/sys/kernel/debug/bnxt_re/rocetune_sim$SIM_ID2/cc_config

	RET=0
	sim_write "$cc/np_cnp_dscp" 10
	sim_write "$d2/cc_config/tos_dscp" 18
	sim_expect "default" "$(cat "$DFS/cc_lockdown")" N
	echo Y > "$DFS/cc_lockdown"
	check_err $? "cannot turn cc_lockdown on"
	lines=$(sim_lockdown_lines)
	n=$(cat "$DFS/set_count")
	for f in "$cc/np_cnp_dscp" "$real/np_cnp_dscp"; do
		out=$(cat "$f" 2>&1)
		check_fail $? "reading $f succeeded"
		[[ "$out" == *"Operation not permitted"* ]]
		check_err $? "reading $f: '$out', not EPERM"
		out=$(sim_write "$f" 5 2>&1)
		check_fail $? "writing $f succeeded"
		[[ "$out" == *"Operation not permitted"* ]]
		check_err $? "writing $f: '$out', not EPERM"
	done
	sim_expect "log lines (one per refused open)" "$(sim_lockdown_lines)" \
		$((lines + 4))
	dmesg_has 'Lockdown: cat: debugfs access is restricted; see man kernel_lockdown.7'
	check_err $? "no lockdown line naming cat"
	check_same "$(cat "$DFS/set_count")" "$n" \
		"set_count moved, although no write reached the device"
	cat "$DFS/counters/np_cnp_sent" > /dev/null
	check_err $? "counters refused under cc_lockdown"
	echo N > "$DFS/cc_lockdown"
	sim_expect "np_cnp_dscp after lockdown" "$(cat "$real/np_cnp_dscp")" 10

	# bnxt_re's files are 0400: lockdown lets them be read, not written
	echo Y > "$d2/cc_lockdown"
	for f in "$d2/cc_config/tos_dscp" "$real2/tos_dscp"; do
		sim_expect "reading $f" "$(cat "$f")" 18
		out=$(sim_write "$f" 5 2>&1)
		check_fail $? "writing $f succeeded"
		[[ "$out" == *"Operation not permitted"* ]]
		check_err $? "writing $f: '$out', not EPERM"
	done
	echo N > "$d2/cc_lockdown"
	sim_write "$real2/tos_dscp" 5
	check_err $? "bnxt_re write refused after lockdown"
	sim_expect "bnxt_re tos_dscp" "$(cat "$d2/cc_config/tos_dscp")" 5
	log_test "cc_lockdown: cc files refuse to open with EPERM, as under kernel lockdown"
}

# bnxt_en reads an empty ETS until the first ETS set and refuses PFC
# before it (EINVAL): on a fresh bnxt_re device.
bnxt_ets_before_pfc() {
	local id=$((SIM_ID + 5)) dev

	RET=0
	dev=rsim$id
	echo "$id bnxt_re" > "$SIM_BUS"/new_device
	check_err $? "cannot create device $id"
	sim_expect "fresh ETS tc-bw" "$(sim_json .tc_bw dcb -j ets show dev "$dev")" \
		"[0,0,0,0,0,0,0,0]"
	sim_expect "fresh ETS prio-tc" \
		"$(sim_json .prio_tc dcb -j ets show dev "$dev")" "[0,0,0,0,0,0,0,0]"
	sim_expect "errno of PFC before ETS" "$(sim_dcbnl pfc "$dev" 0x08 0)" 22
	sim_expect "prio-pfc after the refused set" \
		"$(sim_json .prio_pfc[3] dcb -j pfc show dev "$dev")" false
	rt_dcb ets set dev "$dev" tc-tsa all:ets tc-bw all:0 0:60 3:40 \
		prio-tc all:0 3:3
	check_err $? "dcb ets set failed"
	sim_expect "ETS after the first set" \
		"$(sim_json .tc_bw dcb -j ets show dev "$dev")" "[60,0,0,40,0,0,0,0]"
	sim_expect "errno of PFC after ETS" "$(sim_dcbnl pfc "$dev" 0x08 0)" 0
	sim_expect "prio-pfc after ETS" \
		"$(sim_json .prio_pfc[3] dcb -j pfc show dev "$dev")" true
	echo "$id" > "$SIM_BUS"/del_device
	check_err $? "cannot delete device $id"
	log_test "bnxt_re: ETS empty and PFC refused (EINVAL) until the first ETS set"
}

# Like bnxt_en and ice, bnxt_re and irdma have no maxrate and no buffer
# ops: dcbnl leaves them out of a get and ignores them in a set, which
# reports success.
bnxt_no_maxrate_buffer() {
	local dev2=rsim$SIM_ID2 d2=/sys/kernel/debug/rocetune_sim/$SIM_ID2
	local n mlx5 irdma bnxt

	RET=0
	{ read -r mlx5; read -r irdma; read -r bnxt; } < \
		<(sim_dcbnl attrs "$DEV" "rsim$SIM_ID1" "$dev2")
	[[ " $mlx5 " == *" 7 "* && " $mlx5 " == *" 10 "* ]]
	check_err $? "mlx5 IEEE get lacks maxrate (7) or buffer (10): $mlx5"
	[[ " $irdma " == *" 1 "* && " $irdma " == *" 2 "* ]]
	check_err $? "irdma IEEE get lacks ETS (1) or PFC (2): $irdma"
	[[ " $irdma " != *" 7 "* && " $irdma " != *" 10 "* ]]
	check_err $? "irdma IEEE get has maxrate (7) or buffer (10): $irdma"
	[[ " $bnxt " == *" 1 "* && " $bnxt " == *" 2 "* ]]
	check_err $? "bnxt_re IEEE get lacks ETS (1) or PFC (2): $bnxt"
	[[ " $bnxt " != *" 7 "* && " $bnxt " != *" 10 "* ]]
	check_err $? "bnxt_re IEEE get has maxrate (7) or buffer (10): $bnxt"
	# the same set is done by mlx5 and ignored for bnxt_re
	# buffer 0 is lossless (PFC is on): it gets mlx5's headroom
	sim_expect "errno of an mlx5 maxrate and buffer set" \
		"$(sim_dcbnl rate-buf "$DEV" 0 0 8000 0 0 0 0 0 131072 2048 0 0 0 0 0 0)" 0
	sim_expect "mlx5 maxrate" \
		"$(sim_json .tc_maxrate[2] dcb -j maxrate show dev "$DEV")" 100000
	sim_expect "mlx5 buffer" \
		"$(sim_json .buffer_size[1] dcb -j buffer show dev "$DEV")" 2048
	n=$(cat "$d2/set_count")
	sim_expect "errno of a bnxt_re maxrate and buffer set" \
		"$(sim_dcbnl rate-buf "$dev2" 0 0 8000 0 0 0 0 0 4096 2048 0 0 0 0 0 0)" 0
	# Debian 12's dcb reads before it writes and stops there
	rt_dcb maxrate set dev "$dev2" tc-maxrate 3:10Gbit > /dev/null
	rt_dcb buffer set dev "$dev2" buffer-size 1:8K > /dev/null
	sim_expect "dcb maxrate show" \
		"$(dcb -j maxrate show dev "$dev2" 2> /dev/null | jq -c '.tc_maxrate // empty')" ""
	sim_expect "dcb buffer show" \
		"$(dcb -j buffer show dev "$dev2" 2> /dev/null | jq -c '.buffer_size // empty')" ""
	check_same "$(cat "$d2/set_count")" "$n" \
		"bnxt_re set_count moved on maxrate and buffer sets"
	rt_dcb pfc set dev "$dev2" delay 9
	sim_expect "bnxt_re set_count after a PFC set" "$(cat "$d2/set_count")" \
		$((n + 1))
	log_test "bnxt_re, irdma: no maxrate or buffer ops; dcbnl ignores them and reports success"
}

# sim_buf DEV: prio-buffer and buffer-size as dcb shows them.
sim_buf() {
	sim_json '[.prio_buffer, .buffer_size]' dcb -j buffer show dev "$1"
}

# mlx5's port buffer rules (en/port_buffer.c, Linux 6.1), read back with
# dcb.  xoff at 100 Gb/s, cable 7 m, MTU 1500: 316 * 100 + 4080 = 35680
# bytes; a lossless buffer needs xoff + 9216 (max MTU) + 128 (cell) =
# 45024 bytes.  The port has 524288 bytes (4096 cells) besides the
# internal buffers.
mlx5_buffer_rules() {
	local id=$((SIM_ID + 6)) dev

	RET=0
	dev=rsim$id
	echo "$id mlx5" > "$SIM_BUS"/new_device
	check_err $? "cannot create device $id"
	sim_expect "total-size (internal buffers excluded)" \
		"$(sim_json .total_size dcb -j buffer show dev "$dev")" 524288
	sim_expect "errno of sizes off the cell size" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 100000 1000 0 0 0 0 0 0)" 0
	sim_expect "sizes floored to 128-byte cells" "$(sim_buf "$dev")" \
		"[[0,0,0,1,0,0,0,0],[99968,896,0,0,0,0,0,0]]"
	sim_expect "errno of lossless buffer 1 of 896 bytes (PFC on prio 3)" \
		"$(sim_dcbnl pfc "$dev" 0x08 0)" 12
	# mlx5 writes PFC before it checks the buffers: PFC stays on
	sim_expect "prio-pfc after the ENOMEM" \
		"$(sim_json .prio_pfc[3] dcb -j pfc show dev "$dev")" true
	sim_expect "errno of PFC off" "$(sim_dcbnl pfc "$dev" 0 0)" 0
	sim_expect "errno of buffer 1 of 131072 bytes" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 262144 131072 0 0 0 0 0 0)" 0
	sim_expect "errno of PFC on prio 3 (buffer 1 lossless)" \
		"$(sim_dcbnl pfc "$dev" 0x08 0)" 0
	sim_expect "errno of lossless buffer 1 of 0 bytes" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 262144 0 0 0 0 0 0 0)" 22
	sim_expect "errno of 45023 bytes (one under the headroom)" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 262144 45023 0 0 0 0 0 0)" 12
	sim_expect "errno of 45024 bytes (the headroom)" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 262144 45024 0 0 0 0 0 0)" 0
	sim_expect "errno of 131072 bytes" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 262144 131072 0 0 0 0 0 0)" 0
	sim_expect "errno of 531072 bytes (over the spare space)" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 400000 131072 0 0 0 0 0 0)" 22
	sim_expect "errno of 4093 cells (shared pool of 3)" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 392832 131072 0 0 0 0 0 0)" 22
	sim_expect "errno of 4092 cells (shared pool of 4)" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 392704 131072 0 0 0 0 0 0)" 0
	sim_expect "sizes after the refused sets" "$(sim_buf "$dev")" \
		"[[0,0,0,1,0,0,0,0],[392704,131072,0,0,0,0,0,0]]"
	# a cable of 500 m needs (301 + 1080) * 100 + 4080 + 9344 > 131072
	sim_expect "errno of a 500 m cable" "$(sim_dcbnl pfc "$dev" 0x08 500)" 12
	sim_expect "delay after the refused cable" \
		"$(sim_pfc_delay "$dev")" 7
	sim_expect "errno of a 1000 m cable (ignored)" \
		"$(sim_dcbnl pfc "$dev" 0x08 1000)" 0
	sim_expect "delay after the ignored cable" "$(sim_pfc_delay "$dev")" 7
	# a new map is checked against the current sizes: prio 3 to buffer 2
	# with buffer 2 sized in the same set is ENOMEM, sizes first works
	sim_expect "errno of map and size in one set" \
		"$(sim_dcbnl buf "$dev" 0 0 0 2 0 0 0 0 131072 131072 131072 0 0 0 0 0)" 12
	sim_expect "errno of the sizes first" \
		"$(sim_dcbnl buf "$dev" 0 0 0 1 0 0 0 0 131072 131072 131072 0 0 0 0 0)" 0
	sim_expect "errno of the map then" \
		"$(sim_dcbnl buf "$dev" 0 0 0 2 0 0 0 0 131072 131072 131072 0 0 0 0 0)" 0
	sim_expect "buffers at the end" "$(sim_buf "$dev")" \
		"[[0,0,0,2,0,0,0,0],[131072,131072,131072,0,0,0,0,0]]"
	echo "$id" > "$SIM_BUS"/del_device
	log_test "mlx5 buffers: cell floor, lossless 0 EINVAL, headroom ENOMEM, spare and shared pool EINVAL, delay >= 1000 ignored"
}

mlx5_ets_strict_reads_zero() {
	RET=0
	sim_expect "errno of ETS with a strict TC of 30 %" \
		"$(sim_dcbnl ets "$DEV" 0 1 2 2 0 0 0 0 2 2 0 2 2 2 2 2 50 50 30 0 0 0 0 0)" 0
	sim_expect "tc-bw (strict TC 2 reads 0 %)" \
		"$(sim_json .tc_bw dcb -j ets show dev "$DEV")" "[50,50,0,0,0,0,0,0]"
	sim_expect "the same set on bnxt_re" \
		"$(sim_dcbnl ets "rsim$SIM_ID2" 0 1 2 2 0 0 0 0 2 2 0 2 2 2 2 2 50 50 30 0 0 0 0 0)" 0
	sim_expect "bnxt_re tc-bw (kept as given)" \
		"$(sim_json .tc_bw dcb -j ets show dev "rsim$SIM_ID2")" "[50,50,30,0,0,0,0,0]"
	log_test "mlx5 ETS: a strict TC reads back 0 % (bnxt_en keeps what was set)"
}

# bnxt_en's ETS validation (bnxt_dcb.c bnxt_ets_validate(), Linux 6.1) on
# a device whose hardware has 4 TCs.  TSA: 0 strict, 2 ETS, 255 vendor.
bnxt_ets_rules() {
	local id=$((SIM_ID + 7)) dev

	RET=0
	dev=rsim$id
	echo "$id bnxt_re" > "$SIM_BUS"/new_device
	check_err $? "cannot create device $id"
	echo 4 > "$DFS/../$id/max_tc"
	sim_expect "ets-cap (max_tc)" \
		"$(sim_json .ets_cap dcb -j ets show dev "$dev")" 4
	sim_expect "errno of a prio on TC 5" \
		"$(sim_dcbnl ets "$dev" 0 0 0 5 0 0 0 0 2 2 0 0 0 0 0 0 50 50 0 0 0 0 0 0)" 22
	sim_expect "errno of ETS on TC 6" \
		"$(sim_dcbnl ets "$dev" 0 1 0 0 0 0 0 0 2 2 0 0 0 0 2 0 50 50 0 0 0 0 0 0)" 22
	# ENOTSUPP (524) reaches user space in dcbnl's u8 as 524 & 255: 12
	sim_expect "errno of a vendor TSA" \
		"$(sim_dcbnl ets "$dev" 0 1 2 0 0 0 0 0 255 2 0 0 0 0 0 0 0 100 0 0 0 0 0 0)" 12
	sim_expect "errno of 110 %" \
		"$(sim_dcbnl ets "$dev" 0 1 2 0 0 0 0 0 2 2 0 0 0 0 0 0 60 50 0 0 0 0 0 0)" 22
	sim_expect "errno of 100 % with a 0 % ETS TC" \
		"$(sim_dcbnl ets "$dev" 0 1 2 0 0 0 0 0 2 2 0 0 0 0 0 0 100 0 0 0 0 0 0 0)" 22
	sim_expect "errno of 60 % (under 100 is allowed)" \
		"$(sim_dcbnl ets "$dev" 0 1 2 0 0 0 0 0 2 2 0 0 0 0 0 0 30 30 0 0 0 0 0 0)" 0
	sim_expect "tc-bw of 60 %" "$(sim_json .tc_bw dcb -j ets show dev "$dev")" \
		"[30,30,0,0,0,0,0,0]"
	# the TC equal to max_tc passes the driver's check (">", not ">=")
	sim_expect "errno of a prio on TC 4" \
		"$(sim_dcbnl ets "$dev" 0 1 4 0 0 0 0 0 2 2 0 0 0 0 0 0 50 50 0 0 0 0 0 0)" 0
	sim_expect "prio-tc" "$(sim_json .prio_tc dcb -j ets show dev "$dev")" \
		"[0,1,4,0,0,0,0,0]"
	echo "$id" > "$SIM_BUS"/del_device
	log_test "bnxt_en ETS: TCs above the hardware's strict, vendor TSA ENOTSUPP, sum over 100 and a starved TC EINVAL, under 100 allowed"
}

# bnxt_en (bnxt_dcb.c bnxt_hwrm_queue_pfc_cfg(), Linux 6.1): PFC
# priorities may fall into at most max_lltc TCs; pfc-cap reads max_lltc.
bnxt_max_lltc() {
	local dev=rsim$SIM_ID2 d=$DFS/../$SIM_ID2

	RET=0
	sim_expect "max_lltc" "$(cat "$d/max_lltc")" 2
	sim_expect "pfc-cap (max_lltc)" \
		"$(sim_json .pfc_cap dcb -j pfc show dev "$dev")" 2
	sim_expect "errno of ETS prio 1..3 on TC 1..3" \
		"$(sim_dcbnl ets "$dev" 0 1 2 3 0 1 0 0 2 2 2 2 0 0 0 0 25 25 25 25 0 0 0 0)" 0
	sim_expect "errno of PFC in 3 TCs" "$(sim_dcbnl pfc "$dev" 0x0e 0)" 22
	sim_expect "prio-pfc after the refused set" \
		"$(sim_json .prio_pfc dcb -j pfc show dev "$dev")" \
		"[false,false,false,false,false,false,false,false]"
	sim_expect "errno of PFC on prio 1, 2 and 5 (2 TCs)" \
		"$(sim_dcbnl pfc "$dev" 0x26 0)" 0
	sim_expect "prio-pfc" "$(sim_json .prio_pfc dcb -j pfc show dev "$dev")" \
		"[false,true,true,false,false,true,false,false]"
	echo 3 > "$d/max_lltc"
	sim_expect "errno of PFC in 3 TCs with max_lltc 3" \
		"$(sim_dcbnl pfc "$dev" 0x0e 0)" 0
	echo 2 > "$d/max_lltc"
	sim_expect "errno of PFC off" "$(sim_dcbnl pfc "$dev" 0 0)" 0
	log_test "bnxt_en PFC: lossless TCs limited to max_lltc, which pfc-cap reports"
}

# ice (ice_dcb_nl.c ice_dcbnl_setpfc(), Linux 6.1) takes only the PFC
# priorities: the delay reads back what the hardware has.
ice_pfc_delay() {
	local dev=rsim$SIM_ID1

	RET=0
	sim_expect "errno of delay 50" "$(sim_dcbnl pfc "$dev" 0x08 50)" 0
	sim_expect "delay" "$(sim_pfc_delay "$dev")" 7
	sim_expect "prio-pfc" "$(sim_json .prio_pfc[3] dcb -j pfc show dev "$dev")" true
	sim_expect "errno of PFC off" "$(sim_dcbnl pfc "$dev" 0 0)" 0
	log_test "ice PFC: the delay is not taken"
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

# The top directories mlx5/ and bnxt_re/ belong to the real drivers when
# they are loaded: devices appear in them, and neither unloading
# rocetune_sim nor deleting a device removes them.  Tried with mlx5_core,
# which creates debugfs mlx5/ when it loads, even without a device.
real_dir_shared() {
	local id=$((SIM_ID + 4)) top=/sys/kernel/debug/mlx5 f mlx5_here=0

	if [ "$RT_SIM_LOADED_HERE" != 1 ]; then
		log_skip "debugfs mlx5/ of mlx5_core" \
			"rocetune_sim was loaded before this script, which cannot reload it"
		return
	fi
	RET=0
	f=$top/rocetune_sim$id/cc_params/np_cnp_dscp
	rt_sim_unload
	check_err $? "cannot unload rocetune_sim"
	if [ ! -d /sys/module/mlx5_core ]; then
		[ ! -e "$top" ]
		check_err $? "unloading rocetune_sim left its mlx5/"
		modprobe mlx5_core && mlx5_here=1
		check_err $? "cannot load mlx5_core"
	fi
	[ -d "$top" ]
	check_err $? "mlx5_core has no debugfs mlx5/"
	rt_sim_load
	check_err $? "cannot load rocetune_sim again"
	echo "$id mlx5" > "$SIM_BUS"/new_device
	sim_expect "cc file in mlx5_core's mlx5/" "$(cat "$f" 2>&1)" 48
	rt_sim_unload
	[ -d "$top" ]
	check_err $? "unloading rocetune_sim removed mlx5_core's mlx5/"
	[ ! -e "$top/rocetune_sim$id" ]
	check_err $? "unloading rocetune_sim left its device in mlx5/"
	rt_sim_load
	check_err $? "cannot load rocetune_sim again"
	if [ "$mlx5_here" = 1 ]; then
		echo "$id mlx5" > "$SIM_BUS"/new_device
		# mlx5_core takes its mlx5/ and our entry in it away
		rmmod mlx5_core
		check_err $? "cannot unload mlx5_core"
		[ ! -e "$top" ]
		check_err $? "mlx5/ still there without mlx5_core"
		echo "$id" > "$SIM_BUS"/del_device
		check_err $? "deleting the device after mlx5_core left failed"
		echo "$id mlx5" > "$SIM_BUS"/new_device
		sim_expect "cc file in rocetune_sim's own mlx5/" \
			"$(cat "$f" 2>&1)" 48
		echo "$id" > "$SIM_BUS"/del_device
	fi
	! dmesg_has "Directory 'mlx5' with parent '/' already present"
	check_err $? "a second mlx5/ was attempted"
	log_test "debugfs mlx5/ of a real driver: used, never removed"
	setup
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

	for id in "$SIM_ID" "$SIM_ID1" "$SIM_ID2" $((SIM_ID + 5)) \
		$((SIM_ID + 6)) $((SIM_ID + 7)) $((SIM_ID + 8)); do
		echo "$id" > "$SIM_BUS"/del_device 2> /dev/null
	done
	rt_sim_unload
}

rt_require_root
rt_require_cmd dcb ethtool rdma jq
trap cleanup EXIT
setup
rt_run_tests
