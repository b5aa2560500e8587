#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune.ko against the simulated DCB-capable RoCE NIC (rocetune_sim),
# read through the real CLI ("rocetune -j ... | jq"):
#  - vendor normalization for the mlx5, irdma and bnxt_re personalities:
#    injected hardware counters come out under the normalized names, a
#    counter the personality lacks is absent (not zero), and the raw
#    counters (-s) equal "rdma statistic show" read side by side;
#  - 32-bit counters are accumulated wrap-safe into 64 bits;
#  - per-priority PFC (enabled, PFC frames sent/received) equals dcb's;
#  - a pause storm gives exactly one storm_start and one storm_end, in
#    time, also while "port show" is queried during the storm;
#  - CNP and ECN-CE rate thresholds give *_rate_high then *_rate_normal,
#    also while "port show" is queried meanwhile;
#  - sim device add/del give dev_add/dev_del events.
#
# Timing bounds (the VM is QEMU/TCG on a loaded host): the sim advances
# its counters in 100 ms steps (RSIM_TICK_MS), so the first pause frames
# are visible up to one tick after the injection and the last ones up to
# one tick after its end.  A storm must start within storm_ms + 2
# intervals + STORM_SLACK_MS of the injection, and end within 2 intervals
# + 1 tick + STORM_SLACK_MS of the injected end (STORM_SLACK_MS default
# 400).  The measured latencies are printed as "# " lines.
#
# Every process costs about half a second under TCG: each check reads
# the tools once and compares in a single jq program.

# shellcheck disable=SC2016 # the jq programs' $variables are jq's
ALL_TESTS="
	dev_show
	port_state
	norm_mlx5
	norm_irdma
	norm_bnxt_re
	norm_bnxt_re2
	hw_raw_vs_rdma
	wrap_32bit
	wrap_hw_raw
	pfc_vs_dcb
	pause_storm
	pause_storm_250
	storm_with_queries
	cnp_ecn_rates
	rates_with_queries
	hotplug_events
"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
SIM_BUS=/sys/bus/rocetune_sim
SIM_DFS=/sys/kernel/debug/rocetune_sim
SIM_BASE=$((RANDOM % 800 + 100))
# Devices: one per personality, one for the storms, one for the rates.
ID_MLX5=$SIM_BASE
ID_IRDMA=$((SIM_BASE + 1))
ID_BNXT=$((SIM_BASE + 2))
ID_STORM=$((SIM_BASE + 3))
ID_RATE=$((SIM_BASE + 4))
ID_HOTPLUG=$((SIM_BASE + 5))
ID_BNXT2=$((SIM_BASE + 6))
SIM_TICK_MS=100
STORM_SLACK_MS=${STORM_SLACK_MS:-400}

RT_TMP=$(mktemp -d)
RT_MON=$RT_TMP/monitor.json
mon_pid=
kmod_loaded_here=0
sim_ids=
orig_cfg=

# The normalization rocetune promises (Documentation/counters.rst), as
# "normalized:vendor" pairs, for each personality of the sim.
sim_map() {
	case $1 in
	mlx5)
		echo "rx_ecn_ce_pkts:np_ecn_marked_roce_packets" \
			"tx_cnp_pkts:np_cnp_sent rx_cnp_pkts:rp_cnp_handled" \
			"rx_cnp_ignored_pkts:rp_cnp_ignored" \
			"out_of_sequence:out_of_sequence" \
			"rx_seq_err_naks:packet_seq_err" \
			"rx_rnr_naks:rnr_nak_retry_err" \
			"local_ack_timeouts:local_ack_timeout_err" \
			"duplicate_requests:duplicate_request"
		;;
	irdma)
		echo "rx_ecn_ce_pkts:RxECNMrkd tx_cnp_pkts:cnpSent" \
			"rx_cnp_pkts:cnpHandled rx_cnp_ignored_pkts:cnpIgnored"
		;;
	bnxt_re)
		echo "tx_pkts:tx_pkts rx_pkts:rx_pkts" \
			"rx_ecn_ce_pkts:rx_ecn_marked_pkts" \
			"tx_cnp_pkts:tx_cnp_pkts rx_cnp_pkts:rx_cnp_pkts" \
			"out_of_sequence:oos_drop_count" \
			"rx_seq_err_naks:seq_err_naks_rcvd" \
			"rx_rnr_naks:rnr_naks_rcvd" \
			"local_ack_timeouts:to_retransmits" \
			"duplicate_requests:dup_req"
		;;
	bnxt_re2)
		# the names of the rdma-next rename (mlx5's for five of them)
		echo "tx_pkts:tx_pkts rx_pkts:rx_pkts" \
			"rx_ecn_ce_pkts:np_ecn_marked_roce_packets" \
			"tx_cnp_pkts:np_cnp_pkts rx_cnp_pkts:rp_cnp_handled" \
			"out_of_sequence:out_of_sequence" \
			"rx_seq_err_naks:seq_err_naks_rcvd" \
			"rx_rnr_naks:rnr_naks_rcvd" \
			"local_ack_timeouts:local_ack_timeout_err" \
			"duplicate_requests:dup_req"
		;;
	esac
}

# now_ms: CLOCK_MONOTONIC in ms (10 ms resolution), the clock of the
# events' time_ns: the uptime is CLOCK_BOOTTIME, the same in a VM that
# never suspends.  No fork, so it brackets a write tightly even under TCG.
now_ms() {
	local up

	read -r up _ < /proc/uptime
	echo $((10#${up%.*} * 1000 + 10#${up#*.} * 10))
}

# port_show ID: "rocetune -j -s port show" of sim device ID's port (a
# "do" request: the kernel takes a fresh sample first).
port_show() {
	"$RT_CLI" -j -s port show "rsim_ib$1/1"
}

rdma_stat() {
	rdma -j statistic show link "rsim_ib$1/1"
}

# jq_check WHAT JQ-ARGS...: jq -r prints one line per error found.  Its
# input (unless -n) must not be empty: jq finds no error in nothing.
jq_check() {
	local what=$1 in out

	shift
	if [ "$1" = -n ]; then
		out=$(jq -r "$@")
	else
		in=$(cat)
		if [ -z "$in" ]; then
			check_err 1 "$what: no input"
			return
		fi
		out=$(jq -r "$@" <<< "$in")
	fi
	check_err $? "$what: jq failed"
	[ -z "$out" ]
	check_err $? "$what: $(echo "$out" | tr '\n' ';')"
}

sim_set() {
	echo "$3" > "$SIM_DFS/$1/counters/$2"
}

sim_new() {
	echo "$1 $2" > "$SIM_BUS/new_device" || return 1
	sim_ids="$sim_ids $1"
	ip link set "rsim$1" up
}

sim_del() {
	echo "$1" > "$SIM_BUS/del_device"
}

# sim_grow_idle ID: no counter of device ID is growing.
sim_grow_idle() {
	[ -z "$(cat "$SIM_DFS/$1/grow")" ]
}

# The monitor ------------------------------------------------------------

# mon_lines: number of complete lines the monitor has written.
mon_lines() {
	wc -l < "$RT_MON"
}

# mon_since N: the events after line N, as one JSON array.
mon_since() {
	tail -n +$(($1 + 1)) "$RT_MON" | jq -s -c -R '[split("\n")[] | fromjson?]'
}

# mon_seen N EVENT DEV: an EVENT of DEV after line N (no jq: the CLI
# prints "event" then "dev" first).
mon_seen() {
	tail -n +$(($1 + 1)) "$RT_MON" |
		grep -F "{\"event\":\"$2\",\"dev\":\"$3\"," > /dev/null
}

mon_start() {
	rt_monitor_start "$RT_MON" "$RT_TMP/monitor.err"
	check_err $? "the monitor did not start"
	mon_pid=$RT_MON_PID
}

# cfg_set_check KEYWORD=JSON_KEY=VALUE...: "config set KEYWORD VALUE...",
# then "config show" has JSON_KEY VALUE.
cfg_set_check() {
	local a args=() want="{"

	for a in "$@"; do
		args+=("${a%%=*}" "${a##*=}")
		a=${a#*=}
		want="$want\"${a%%=*}\":${a#*=},"
	done
	want="${want%,}}"
	"$RT_CLI" config set "${args[@]}"
	check_err $? "config set ${args[*]} failed"
	"$RT_CLI" -j config show | jq_check "config show" --argjson w "$want" \
		'. as $c | $w | to_entries[] | select($c[.key] != .value) |
		"\(.key) is \($c[.key]), expected \(.value)"'
}

# Tests ------------------------------------------------------------------

dev_show() {
	local devs ports id ifx="{"

	RET=0
	devs=$("$RT_CLI" -j dev show)
	check_err $? "dev show failed"
	ports=$("$RT_CLI" -j port show)
	check_err $? "port show failed"
	for id in "$ID_MLX5" "$ID_IRDMA" "$ID_BNXT" "$ID_STORM" "$ID_RATE"; do
		ifx="$ifx\"$id\":$(cat "/sys/class/net/rsim$id/ifindex"),"
	done
	ifx="${ifx%,}}"
	jq_check "dev/port show" -n --argjson devs "$devs" --argjson ports "$ports" \
		--argjson ifx "$ifx" '$ifx | to_entries[] | .key as $id |
		.value as $ifindex | "rsim_ib\($id)" as $d |
		([$devs[] | select(.dev == $d)] |
		 if length != 1 or .[0].num_ports != 1 then "dev show \($d): \(.)"
		 else empty end),
		([$ports[] | select(.dev == $d)] |
		 if length != 1 or .[0].port != 1 or .[0].netdev != "rsim\($id)" or
		    .[0].netdev_ifindex != $ifindex then "port show \($d): \(.)"
		 else empty end)'
	log_test "dev show lists the sim devices, port show their port and netdev"
}

# The port state rocetune reports (from the RDMA core's cache) is the one
# "rdma link show" reads from the driver, and "active" since the netdev is
# up with carrier, for ports that never flapped (irdma, bnxt_re, storm).
port_state() {
	local ports links

	RET=0
	ports=$("$RT_CLI" -j port show)
	links=$(rdma -j link show)
	jq_check "state" -n --argjson ports "$ports" --argjson links "$links" \
		--argjson ids "[$ID_IRDMA,$ID_BNXT,$ID_STORM]" '$ids[] |
		"rsim_ib\(.)" as $d |
		([$ports[] | select(.dev == $d) | .state][0]) as $ours |
		([$links[] | select(.ifname == $d) | .state][0] | ascii_downcase) as $rdma |
		if $ours != $rdma or $ours != "active" then
		"\($d)/1: port show \($ours), rdma link \($rdma), netdev up"
		else empty end'
	log_test "port show state is active, as rdma link show says (netdev up)"
}

# norm_check PERSONALITY ID: inject a distinct value into each vendor
# counter that rocetune maps, read the port back: exactly those
# normalized counters with those values, the others absent (counters
# and rates); and each normalized counter equals its vendor counter as
# rdma statistic shows it.
norm_check() {
	local pers=$1 id=$2 pair v=0 want="{" map="{" ours

	RET=0
	for pair in $(sim_map "$pers"); do
		v=$((v + 1))
		sim_set "$id" "${pair#*:}" $((1000 * id + 17 * v))
		check_err $? "cannot set counter ${pair#*:}"
		want="$want\"${pair%%:*}\":$((1000 * id + 17 * v)),"
		map="$map\"${pair%%:*}\":\"${pair#*:}\","
	done
	want="${want%,}}"
	map="${map%,}}"
	ours=$(port_show "$id")
	jq_check "$pers vs rdma statistic" -n --argjson a "$ours" \
		--argjson b "$(rdma_stat "$id")" --argjson m "$map" '
		($a[0].counters // {}) as $c | $b[0] as $t |
		$m | to_entries[] |
		select($t[.value] == null or $c[.key] != $t[.value]) |
		"\(.key) is \($c[.key]), rdma statistic \(.value) is \($t[.value])"'
	jq_check "$pers" --argjson w "$want" <<< "$ours" '.[0] |
		(.counters // {}) as $c | (.rates // {}) as $r |
		(($w | keys) - ($c | keys) | .[] | "\(.) missing"),
		(($c | keys) - ($w | keys) | .[] |
		 "\(.) present, the device has no such counter (\($c[.]))"),
		($w | to_entries[] | select($c[.key] != null and $c[.key] != .value) |
		 "\(.key) is \($c[.key]), injected \(.value)"),
		(if ($r | keys) != ($w | keys) then "rates have \($r | keys)"
		 else empty end)'
	log_test "$pers: normalized counters have the injected values, missing ones absent"
}

norm_mlx5() {
	norm_check mlx5 "$ID_MLX5"
}

norm_irdma() {
	norm_check irdma "$ID_IRDMA"
}

norm_bnxt_re() {
	norm_check bnxt_re "$ID_BNXT"
}

# bnxt_re with the counter names of the 2025 rename: both generations
# normalize alike.
norm_bnxt_re2() {
	norm_check bnxt_re2 "$ID_BNXT2"
}

# hw_same WHAT ID: -s hw_counters of the port equal rdma statistic's,
# read side by side.
hw_same() {
	local ours theirs

	ours=$(port_show "$2")
	theirs=$(rdma_stat "$2")
	jq_check "$1" -n --argjson a "$ours" --argjson b "$theirs" \
		'$a[0].hw_counters as $o | $b[0] | del(.ifname, .port) as $t |
		if $o == $t then empty else
		($t | to_entries[] | select($o[.key] != .value) |
		 "\(.key): rocetune \($o[.key]), rdma statistic \(.value)"),
		(($o | keys) - ($t | keys) | .[] | "\(.) not in rdma statistic")
		end'
}

hw_raw_vs_rdma() {
	local id

	RET=0
	for id in "$ID_MLX5" "$ID_IRDMA" "$ID_BNXT" "$ID_BNXT2"; do
		hw_same "rsim_ib$id" "$id"
	done
	log_test "-s port show: raw hw_counters equal rdma statistic's (4 personalities)"
}

# wrap_32bit: the mlx5 q-counter out_of_sequence is 32 bits wide.
wrap_32bit() {
	local id=$ID_MLX5 seq=$RT_TMP/wrap_samples

	RET=0
	sim_set "$id" out_of_sequence 4294967000
	port_show "$id" | jq_check "before the wrap" \
		'.[0].counters.out_of_sequence | select(. != 4294967000) |
		"out_of_sequence \(.), expected 4294967000"'
	# +1000 in 500 ms, across 2^32, while the module samples every 100 ms.
	echo "out_of_sequence 2000 500" > "$SIM_DFS/$id/grow"
	: > "$seq"
	for _ in 1 2 3 4; do
		port_show "$id" >> "$seq"
	done
	wait_for 5 sim_grow_idle "$id"
	check_err $? "the growth did not end"
	port_show "$id" >> "$seq"
	jq -s -c '[.[][0].counters.out_of_sequence]' "$seq" | sed 's/^/# out_of_sequence samples: /'
	jq_check "during the wrap" -n --argjson raw \
		"$(cat "$SIM_DFS/$id/counters/out_of_sequence")" \
		--argjson rdma "$(rdma_stat "$id")" \
		'[inputs[0].counters.out_of_sequence] as $s |
		(if $s != ($s | sort) then "went backwards: \($s)" else empty end),
		(if $s[-1] != 4294968000 then "last \($s[-1]), expected 4294968000"
		 else empty end),
		(if $raw != 704 then "sim raw value \($raw), expected 704"
		 else empty end),
		(if $rdma[0].out_of_sequence != 704 then
		 "rdma statistic \($rdma[0].out_of_sequence), expected 704"
		 else empty end)' "$seq"
	# A 64-bit counter (np_cnp_sent) passes 2^32 without wrapping.
	sim_set "$id" np_cnp_sent 4294967000
	port_show "$id" > /dev/null
	sim_set "$id" np_cnp_sent +1000
	jq_check "64-bit np_cnp_sent past 2^32" -n \
		--argjson a "$(port_show "$id")" --argjson b "$(rdma_stat "$id")" \
		'($a[0].counters.tx_cnp_pkts, $b[0].np_cnp_sent) |
		select(. != 4294968000) | "\(.), expected 4294968000"'
	log_test "32-bit counter wrap: 64-bit value keeps increasing, raw value wraps"
}

# wrap_hw_raw: after the wrap of wrap_32bit, "-s" still shows the raw
# counters as rdma statistic does (rocetune-port(8): "as rdma statistic
# show prints them"; issue 3: "the raw vendor counters, unmodified").
wrap_hw_raw() {
	RET=0
	hw_same "rsim_ib$ID_MLX5 after a wrap" "$ID_MLX5"
	log_test "-s port show: raw hw_counters equal rdma statistic's after a 32-bit wrap"
}

pfc_vs_dcb() {
	local id p rx tx

	RET=0
	for id in "$ID_MLX5" "$ID_IRDMA"; do
		rt_dcb pfc set dev "rsim$id" prio-pfc all:off 3:on
		check_err $? "dcb pfc set on rsim$id failed"
		# mlx5 flaps the link on a PFC change.
		sleep 0.3
		wait_for 5 grep -qx 1 "/sys/class/net/rsim$id/carrier"
		rx="" tx=""
		for p in 0 1 2 3 4 5 6 7; do
			sim_set "$id" "rx_prio${p}_pause" $((100 * id + 11 * p + 1))
			sim_set "$id" "tx_prio${p}_pause" $((200 * id + 13 * p + 2))
			rx="$rx,$((100 * id + 11 * p + 1))"
			tx="$tx,$((200 * id + 13 * p + 2))"
		done
		# Side by side: ours, then dcb's.
		jq_check "rsim$id" -n --argjson port "$(port_show "$id")" \
			--argjson dcb "$(dcb -j pfc show dev "rsim$id")" \
			--argjson dcbs "$(dcb -j -s pfc show dev "rsim$id")" \
			--argjson rx "[${rx#,}]" --argjson tx "[${tx#,}]" \
			'$port[0].pfc as $p | [$p.prio[] | .rx_pause] as $prx |
			[$p.prio[] | .tx_pause] as $ptx |
			[range(8) as $i | $p.enabled | index($i) != null] as $pen |
			(if $prx != $dcbs.indications then
			 "rx_pause \($prx), dcb indications \($dcbs.indications)" else empty end),
			(if $prx != $rx then "rx_pause \($prx), injected \($rx)" else empty end),
			(if $ptx != $dcbs.requests then
			 "tx_pause \($ptx), dcb requests \($dcbs.requests)" else empty end),
			(if $ptx != $tx then "tx_pause \($ptx), injected \($tx)" else empty end),
			(if [$p.prio[] | .prio] != [range(8)] then "prio numbering" else empty end),
			(if $pen != $dcb.prio_pfc then
			 "enabled \($p.enabled), dcb prio-pfc \($dcb.prio_pfc)" else empty end),
			(if $p.enabled != [3] then "enabled \($p.enabled), expected [3]"
			 else empty end),
			(if $p.cap != $dcb.pfc_cap then "cap \($p.cap), dcb pfc-cap \($dcb.pfc_cap)"
			 else empty end)'
	done
	log_test "port show PFC: enabled, tx/rx pause per prio equal dcb's (mlx5, irdma)"
}

# storm_run LEN QUERY IVAL: a storm of LEN ms on prio 3 of the storm
# device (1000 frames/s), sampled every IVAL ms; with QUERY 1, "port show"
# of that port in a loop while it lasts.  Checks the events it causes.
storm_run() {
	local len=$1 query=$2 ival=$3 id=$ID_STORM dev=rsim_ib$ID_STORM storm=300
	local n0 t0 t1 nq=0 r

	cfg_set_check interval=interval_ms="$ival" storm-ms=storm_ms="$storm"
	sleep 0.5
	n0=$(mon_lines)
	t0=$(now_ms)
	echo "3 1000 $len" > "$SIM_DFS/$id/pfc_storm"
	check_err $? "cannot start the pause storm"
	t1=$(now_ms)
	if [ "$query" = 1 ]; then
		while [ $(($(now_ms) - t0)) -lt "$len" ]; do
			port_show "$id" > /dev/null
			nq=$((nq + 1))
		done
	fi
	wait_for $((len / 1000 + 10)) mon_seen "$n0" storm_end "$dev"
	check_err $? "no storm_end on $dev"
	# Anything that would follow (a second storm) within 5 intervals.
	sleep 0.5
	r=$(mon_since "$n0" | jq -r --arg d "$dev" --argjson t0 "$t0" \
		--argjson len "$len" --argjson storm "$storm" --argjson ival "$ival" \
		--argjson tick "$SIM_TICK_MS" --argjson slack "$STORM_SLACK_MS" '
		[.[] | select(.dev == $d and (.event | startswith("storm")))] as $e |
		[$e[] | select(.prio == 3 and .event == "storm_start")] as $s |
		[$e[] | select(.prio == 3 and .event == "storm_end")] as $n |
		($storm + 2 * $ival + $slack) as $bs |
		(2 * $ival + $tick + $slack) as $be |
		(if $s | length > 0 then ($s[0].time_ns / 1e6 | floor) - $t0
		 else null end) as $ls |
		(if $n | length > 0 then ($n[-1].time_ns / 1e6 | floor) - $t0 - $len
		 else null end) as $le |
		"# storm_start +\($ls) ms after the injection (bound \($bs)), " +
		"storm_end +\($le) ms after its end (bound \($be)), " +
		"duration_ms \([$n[] | .duration_ms]), events \([$e[] | [.event, .prio]])",
		(if ($s | length) != 1 then "\($s | length) storm_start on prio 3"
		 else empty end),
		(if ($n | length) != 1 then "\($n | length) storm_end on prio 3"
		 else empty end),
		([$e[] | select(.prio != 3)] | if length > 0 then
		 "storm events on other priorities: \(.)" else empty end),
		(if $ls != null and $ls < $storm - $ival then
		 "storm_start only \($ls) ms after the injection" else empty end),
		(if $ls != null and $ls > $bs then
		 "storm_start \($ls) ms after the injection" else empty end),
		(if $le != null and $le < 0 then
		 "storm_end \(-$le) ms before the injected end" else empty end),
		(if $le != null and $le > $be then
		 "storm_end \($le) ms after the injected end" else empty end),
		($n[] | .duration_ms | select(. < $len - $ival or . > $len + $be) |
		 "duration_ms \(.) for a \($len) ms storm")')
	echo "# storm (interval $ival ms, $nq port show during it, injection write took $((t1 - t0)) ms)"
	echo "$r" | grep '^#'
	r=$(echo "$r" | grep -v '^#')
	[ -z "$r" ]
	check_err $? "$(echo "$r" | tr '\n' ';')"
	port_show "$id" | jq_check "after the storm" \
		'.[0].pfc.prio[3].storm | select(. != false) | "prio 3 storm flag \(.)"'
}

pause_storm() {
	RET=0
	storm_run 1500 0 100
	log_test "pause storm on prio 3: one storm_start, one storm_end, in time"
}

# The same with an interval that is not the sim's 100 ms step: every
# interval then sees new pause frames while the storm lasts.
pause_storm_250() {
	RET=0
	storm_run 1500 0 250
	log_test "pause storm sampled every 250 ms: one storm_start, one storm_end, in time"
}

# A "port show" during a storm must not change the events (the module
# takes a fresh sample for it, at most every 10 ms).
storm_with_queries() {
	RET=0
	storm_run 1500 1 100
	log_test "pause storm with port show queries during it: still one start, one end"
}

# rates_run QUERY: CNP and ECN-CE rates of the rate device above the
# thresholds for 2 s; with QUERY 1, for 5 s with "port get" requests of
# that port in a loop meanwhile.  Checks the events (and the rates).
rates_run() {
	local query=$1 id=$ID_RATE dev=rsim_ib$ID_RATE ival=400 thresh=3000
	local n0 t0 t1 t nq=0 r v rates="" grow=2000 qpid

	# With queries, the counters grow longer: time for several of them
	# (a few hundred ms each under TCG) while the rate is steady.
	[ "$query" = 1 ] && grow=5000

	# The sim's hardware counters move in 100 ms steps (hw_refresh_ms,
	# like NICs that copy their counters out periodically), so a rate
	# over an interval of I ms is measured from I/100 +- 1 steps.  With 400 ms the
	# measured rates stay within 0.5..1.25 times the true one: far from
	# the threshold on both sides, so exactly one crossing each way.
	cfg_set_check interval=interval_ms="$ival" \
		cnp-rate=cnp_rate_thresh="$thresh" ecn-rate=ecn_rate_thresh="$thresh"
	echo 100 > "$SIM_DFS/$id/hw_refresh_ms"
	sleep 0.9
	if [ "$query" = 1 ]; then
		# Each "port get" takes a fresh sample (at most every
		# 10 ms); the rates it shows must still span a whole interval
		# of the periodic samples.  Requests 20 ms apart (windows of
		# tens of ms over 100 ms steps would give rates of 0 or
		# several times the true one), from before the counters
		# start to grow (a Python start can take seconds on a loaded
		# TCG host) until after they stop.
		python3 "$RT_SELFTESTS/rt_genl.py" repeat $((grow / 1000 + 2)) \
			port_get "DEV_NAME:str:$dev" PORT_INDEX:u32:1 \
			> "$RT_TMP/rates.json" &
		qpid=$!
		wait_for 30 test -s "$RT_TMP/rates.json"
		check_err $? "rt_genl.py repeat port_get did not start"
	fi
	n0=$(mon_lines)
	t0=$(now_ms)
	# The CNP rate is sent + received: 4000 + 4000 per second.
	echo "cnpSent 4000 $grow" > "$SIM_DFS/$id/grow"
	echo "cnpHandled 4000 $grow" > "$SIM_DFS/$id/grow"
	echo "RxECNMrkd 8000 $grow" > "$SIM_DFS/$id/grow"
	t1=$(now_ms)
	if [ "$query" = 1 ]; then
		# Those answered while the counters grow steadily (from two
		# intervals after the start to the end, with TCG slack)
		# show 0.5..1.25 times the true ECN-CE rate of 8000/s.
		wait "$qpid"
		check_err $? "rt_genl.py repeat port_get failed"
		nq=$(wc -l < "$RT_TMP/rates.json")
		r=$(jq -r --argjson from $((t1 + 2 * ival + 100)) \
			--argjson to $((t0 + grow - 100)) '
			select(.t_ms >= $from and .t_ms <= $to) |
			"\(.t_ms) \(.rates[0].rx_ecn_ce_pkts)"' "$RT_TMP/rates.json")
		while read -r t v; do
			[ -n "$t" ] || continue
			rates="$rates $v"
			[ "$v" -ge 4000 ] 2> /dev/null && [ "$v" -le 10000 ]
			check_err $? "port get at +$((t - t1)) ms: ECN-CE rate $v/s, true 8000/s"
		done <<< "$r"
		echo "# ECN-CE rates of $(wc -w <<< "$rates") port get while growing:" \
			"$(tr ' ' '\n' <<< "${rates# }" | sort -n | uniq -c | tr -s '\n ' ' ')"
		[ "$(wc -w <<< "$rates")" -ge 5 ]
		check_err $? "fewer than 5 port get while the counters grew steadily"
	fi
	wait_for 12 mon_seen "$n0" cnp_rate_normal "$dev"
	check_err $? "no cnp_rate_normal on $dev"
	wait_for 5 mon_seen "$n0" ecn_rate_normal "$dev"
	check_err $? "no ecn_rate_normal on $dev"
	sleep 1
	r=$(mon_since "$n0" | jq -r --arg d "$dev" --argjson th "$thresh" '
		("cnp", "ecn") as $k |
		[.[] | select(.dev == $d and (.event | startswith($k + "_rate")))] as $e |
		"# \($k): \([$e[] | [.event, .value]])",
		(if [$e[] | .event] != [$k + "_rate_high", $k + "_rate_normal"] then
		 "\($k) events \([$e[] | .event])" else empty end),
		($e[] | select(.thresh != $th or .port != 1) | "\(.event): \(.)"),
		($e[] | select(.event | endswith("high")) | select(.value <= $th) |
		 "\(.event) with value \(.value)"),
		($e[] | select(.event | endswith("normal")) | select(.value > $th) |
		 "\(.event) with value \(.value)")')
	echo "# rates ($nq port show meanwhile)"
	echo "$r" | grep '^#'
	r=$(echo "$r" | grep -v '^#')
	[ -z "$r" ]
	check_err $? "$(echo "$r" | tr '\n' ';')"
	"$RT_CLI" config set cnp-rate 0 ecn-rate 0
	echo 0 > "$SIM_DFS/$id/hw_refresh_ms"
}

cnp_ecn_rates() {
	RET=0
	rates_run 0
	log_test "CNP and ECN-CE rates above the thresholds: *_rate_high then *_rate_normal"
}

# A "port show" meanwhile must not change the events or the rates (the
# module takes a fresh sample for it, at most every 10 ms, which updates
# the totals only).
rates_with_queries() {
	RET=0
	rates_run 1
	log_test "CNP/ECN rates with port show queries meanwhile: still one high, one normal"
}

hotplug_events() {
	local id=$ID_HOTPLUG dev=rsim_ib$ID_HOTPLUG n0 listed

	RET=0
	n0=$(mon_lines)
	echo "$id bnxt_re" > "$SIM_BUS/new_device"
	check_err $? "new_device failed"
	sim_ids="$sim_ids $id"
	wait_for 10 mon_seen "$n0" dev_add "$dev"
	check_err $? "no dev_add for $dev"
	listed=$("$RT_CLI" -j dev show)
	sim_del "$id"
	check_err $? "del_device failed"
	wait_for 10 mon_seen "$n0" dev_del "$dev"
	check_err $? "no dev_del for $dev"
	sleep 0.3
	jq_check "hotplug" -n --arg d "$dev" --argjson l1 "$listed" \
		--argjson l2 "$("$RT_CLI" -j dev show)" --argjson ev "$(mon_since "$n0")" '
		[$ev[] | select(.dev == $d and .event == "dev_add")] as $a |
		[$ev[] | select(.dev == $d and .event == "dev_del")] as $r |
		(if ($a | length) != 1 then "\($a | length) dev_add events" else empty end),
		(if ($r | length) != 1 then "\($r | length) dev_del events" else empty end),
		(if ($a | length) == 1 and ($r | length) == 1 and
		    $a[0].dev_index != $r[0].dev_index then "dev_index \($a[0].dev_index) " +
		    "on add, \($r[0].dev_index) on del" else empty end),
		(if [$l1[] | select(.dev == $d)] == [] then "dev show does not list \($d)"
		 else empty end),
		(if [$l2[] | select(.dev == $d)] != [] then "dev show lists \($d) after del"
		 else empty end)'
	log_test "sim device add/del: dev_add and dev_del events with the name"
}

setup() {
	rt_sim_load || rt_setup_failed "cannot load rocetune_sim"
	if ! rt_kmod_loaded; then
		rt_kmod_load || rt_setup_failed "cannot load rocetune.ko"
		kmod_loaded_here=1
	fi
	orig_cfg=$("$RT_CLI" -j config show) ||
		rt_setup_failed "rocetune config show failed"
	mon_start
	{ sim_new "$ID_MLX5" mlx5 && sim_new "$ID_IRDMA" irdma &&
		sim_new "$ID_BNXT" bnxt_re && sim_new "$ID_BNXT2" bnxt_re2 &&
		sim_new "$ID_STORM" mlx5 &&
		sim_new "$ID_RATE" irdma; } ||
		rt_setup_failed "cannot create the sim devices"
	wait_for 10 mon_seen 0 dev_add "rsim_ib$ID_RATE" ||
		echo "# no dev_add for the setup devices: $(cat "$RT_MON")"
}

cleanup() {
	local id

	if [ -n "$mon_pid" ]; then
		kill "$mon_pid" 2> /dev/null
		wait "$mon_pid" 2> /dev/null
		[ ! -s "$RT_TMP/monitor.err" ] ||
			echo "# monitor stderr: $(cat "$RT_TMP/monitor.err")"
	fi
	for id in $sim_ids; do
		sim_del "$id" 2> /dev/null
	done
	if [ "$kmod_loaded_here" = 1 ]; then
		rt_kmod_unload
	elif [ -n "$orig_cfg" ]; then
		"$RT_CLI" config set \
			interval "$(jq .interval_ms <<< "$orig_cfg")" \
			storm-ms "$(jq .storm_ms <<< "$orig_cfg")" \
			cnp-rate "$(jq .cnp_rate_thresh <<< "$orig_cfg")" \
			ecn-rate "$(jq .ecn_rate_thresh <<< "$orig_cfg")"
	fi
	rt_sim_unload
	rm -rf "$RT_TMP"
}

rt_require_root
rt_require_cmd dcb rdma jq
[ -x "$RT_CLI" ] || rt_setup_failed "$RT_CLI is not built (make -C userspace)"
trap cleanup EXIT
setup
rt_run_tests
