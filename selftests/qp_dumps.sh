#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-QP accounting dumps: top-K, the change since a top-K sample and delta
# dumps (QPs changed since a generation).  The QPs are real but idle: RC
# QPs of rxe1 that rt_qpair holds connected to QPs of rxe0.  Their packets
# are injected (rt_qp.py inject: valid RC SENDs from the peer's address,
# which rxe takes and answers with an RNR NAK, as no receive is posted),
# so that each QP gets an exact number.
# Also who is told a QP's owner: only callers with CAP_NET_ADMIN, as their
# PID namespace sees it; and that a dump across a change of the QPs or of
# the devices is marked NLM_F_DUMP_INTR, and the CLI then runs it again.

ALL_TESTS="top_k_and_delta top_k_since_sample owners_per_reader dump_interrupted
	dev_show_retry"

source "$(dirname "$0")/qp_lib.sh"

IDLE_PIDS=()
IDLE_QPNS=()

# idle_known: the module has an entry for each QP of IDLE_QPNS.
idle_known() {
	rt_qp dump --dev "$RT_RXE1" |
		jq -e --argjson want "[$(IFS=,; echo "${IDLE_QPNS[*]}")]" \
			'$want - [.[] | select(.remote_qpn != null) | .qpn] == []' > /dev/null
}

# idle_start N: N RC QPs on rxe1, each connected to one of rxe0 and idle
# (one rt_qpair process); their QP numbers go to IDLE_QPNS, ascending.
# It returns once the module has their entries with their peers: its
# verification learns a QP within a period or two; a dump does not list
# it before that.
idle_start() {
	local log=$OUT/idle-qpair.log

	"$RT_TOP/build/selftests/rt_qpair" -n "$1" -g "$G0" "$RT_RXE0" "$RT_RXE1" \
		> "$log" 2>&1 &
	IDLE_PIDS+=($!)
	wait_for 30 grep -q '^ready$' "$log" || return 1
	mapfile -t IDLE_QPNS < <(awk 'NF == 2 { print $2 }' "$log" | sort -n)
	[ "${#IDLE_QPNS[@]}" = "$1" ] && wait_for 10 idle_known
}

idle_stop() {
	[ "${#IDLE_PIDS[@]}" = 0 ] && return
	kill "${IDLE_PIDS[@]}" 2> /dev/null
	wait "${IDLE_PIDS[@]}" 2> /dev/null
	IDLE_PIDS=()
	IDLE_QPNS=()
}

# inject QPN COUNT: COUNT packets from rxe0's address (the peer) to rxe1's
# QP QPN.
inject() {
	rt_qp inject --src "$RT_IP0" --dst "$RT_IP1" --qpn "$1" --count "$2"
}

# top_qpns JSON: "QPN:DELTA ..." of a top-K dump, in rank order.
top_qpns() {
	jq -r '[.[] | "\(.qpn):\(.top_delta // "-")"] | join(" ")' <<< "$1"
}

top_k_and_delta() {
	local a b c top gen n

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 3
	check_err $? "cannot start 3 idle connected QPs (rt_qpair) (QPs: ${IDLE_QPNS[*]})"
	a=${IDLE_QPNS[0]} b=${IDLE_QPNS[1]} c=${IDLE_QPNS[2]}
	inject "$a" 2 && inject "$b" 7 && inject "$c" 4
	check_err $? "the injection failed"
	top=$(rt_qp dump --dev "$RT_RXE1" --top-k 2 --top-by rx_pkts)
	echo "# top-2 by rx_pkts: $(jq -c '[.[] | [.qpn, .rx_pkts]]' <<< "$top")"
	[ "$(jq -c '[.[] | [.qpn, .rx_pkts]]' <<< "$top")" = "[[$b,7],[$c,4]]" ]
	check_err $? "top-2 is not $b (7 packets) then $c (4)"
	gen=$(jq -e '.[0].gen' <<< "$top")
	check_err $? "no generation in the top-K dump"
	n=$(rt_qp dump --dev "$RT_RXE1" --since "$gen" | jq length)
	[ "$n" = 0 ]
	check_err $? "$n QPs changed since generation $gen without traffic"
	inject "$a" 1
	check_err $? "the injection failed"
	n=$(rt_qp dump --dev "$RT_RXE1" --since "$gen" | jq -c '[.[].qpn]')
	[ "$n" = "[$a]" ]
	check_err $? "changed since generation $gen: $n, expected [$a]"
	idle_stop
	log_test "top-K and delta dumps: the 2 busiest of 3 QPs, then only the one that changed"
}

top_k_since_sample() {
	local x y s t top out rc dir i

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 2
	check_err $? "cannot start 2 idle connected QPs (rt_qpair; QPs: ${IDLE_QPNS[*]})"
	x=${IDLE_QPNS[0]} y=${IDLE_QPNS[1]}
	# X gets 10, then a top-K dump takes sample S; then X gets 3 more
	# and Y 5.  By totals X (13) leads; since S, Y (5) leads X (3).
	inject "$x" 10
	check_err $? "the injection failed"
	s=$(rt_qp dump --top-k 2 --top-by rx_pkts | jq -e '.[0].gen')
	check_err $? "no sample generation from a top-K dump"
	inject "$x" 3 && inject "$y" 5
	check_err $? "the injection failed"
	# By totals; this dump takes root's second sample, T.
	top=$(rt_qp dump --dev "$RT_RXE1" --qpn-from "$x" --top-k 2 \
		--top-by rx_pkts)
	t=$(jq -e '.[0].gen' <<< "$top")
	echo "# totals: $(top_qpns "$top")"
	[ "$(top_qpns "$top")" = "$x:- $y:-" ]
	check_err $? "by totals, expected $x then $y"
	# Another user's top-K dumps, however many, replace only its own
	# samples: root's S and T stay.
	for i in 1 2 3 4 5 6; do echo "qp_get QP_TOP_K:u32:2 --dump"; done |
		genl_as nobody batch > "$OUT/nobody-top.json"
	[ "$(jq -s '[.[] | select(.errno == 0)] | length' "$OUT/nobody-top.json")" = 6 ]
	check_err $? "user 65534's top-K dumps failed: $(jq -c -s 'map(.msg)' "$OUT/nobody-top.json")"
	top=$(rt_qp dump --dev "$RT_RXE1" --qpn-from "$x" --top-k 2 \
		--top-by rx_pkts --top-sample "$s")
	echo "# since sample $s, after 6 top-K dumps of user 65534: $(top_qpns "$top")"
	[ "$(top_qpns "$top")" = "$y:5 $x:3" ]
	check_err $? "since sample $s, expected $y:5 then $x:3"
	# That dump chained root's sample: U replaced S in its slot.
	out=$("$RT_CLI" qp show top 2 by rx_pkts since "$s" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && grep -q "sample not held" <<< "$out"
	check_err $? "a sample replaced by its own chain: exit $rc, \"$out\""
	# A user holds two samples: a third replaces its oldest (T).
	rt_qp dump --top-k 1 > /dev/null && rt_qp dump --top-k 1 > /dev/null
	out=$("$RT_CLI" qp show top 2 by rx_pkts since "$t" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && grep -q "sample not held" <<< "$out"
	check_err $? "root's oldest sample after two more: exit $rc, \"$out\""
	# The CLI's "changed" chains its samples in one slot.
	dir=$(mktemp -d)
	XDG_RUNTIME_DIR=$dir "$RT_CLI" -j qp show dev "$RT_RXE1" top 2 \
		by rx_pkts changed > /dev/null
	s=$(cat "$dir/rocetune-qp-top-gen")
	check_err $? "\"changed\" kept no sample generation"
	inject "$x" 3 && inject "$y" 5
	check_err $? "the injection failed"
	top=$(XDG_RUNTIME_DIR=$dir "$RT_CLI" -j qp show dev "$RT_RXE1" top 2 \
		by rx_pkts changed)
	echo "# since sample $s: $(top_qpns "$top")"
	[ "$(top_qpns "$top")" = "$y:5 $x:3" ]
	check_err $? "since the sample, expected $y:5 then $x:3"
	[ "$(cat "$dir/rocetune-qp-top-gen")" -gt "$s" ]
	check_err $? "\"changed\" did not keep the new sample's generation"
	rm -rf "$dir"
	idle_stop
	log_test "top-K since a sample: by the change (Y 5 over X 3); samples per user, another user's dumps replace none"
}

# genl_as WHO ARGS...: rt_genl.py as root (root), user 65534 (nobody), root
# of new user and network namespaces (userns) or of a new PID namespace
# (pidns).
genl_as() {
	local who=$1 udir

	shift
	case $who in
	root) python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	userns) unshare -Urn python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	pidns) unshare -pf python3 "$RT_SELFTESTS/rt_genl.py" "$@" ;;
	nobody)
		# A copy that the user can read: the tree may not be.
		udir=$(rt_unpriv_tree "${RT_GENL_FILES[@]}")
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all \
			python3 "$udir/selftests/rt_genl.py" "$@"
		rm -rf "$udir"
		;;
	esac
}

owners_per_reader() {
	local q pid got who out

	RET=0
	qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 1
	check_err $? "cannot start an idle connected QP (rt_qpair)"
	q=${IDLE_QPNS[0]} pid=${IDLE_PIDS[0]}
	got=$(rt_qp dump --dev "$RT_RXE1" |
		jq -c ".[] | select(.qpn == $q) | [.pid, .comm]")
	[ "$got" = "[$pid,\"rt_qpair\"]" ]
	check_err $? "owner of qpn $q for root: $got, expected [$pid,\"rt_qpair\"]"
	for who in nobody userns pidns; do
		out=$(genl_as "$who" req qp_get "DEV_NAME:str:$RT_RXE1" \
			"QPN:u32:$q" --attrs)
		echo "# $who: $(jq -c '.attrs[0] // [] | map(select(startswith("QP.P") or startswith("QP.C")))' <<< "$out")"
		jq -e '.errno == 0 and (.attrs[0] | index("QP.QPN")) and
			(.attrs[0] | index("QP.PID") | not) and
			(.attrs[0] | index("QP.COMM") | not)' <<< "$out" > /dev/null
		check_err $? "$who: $out"
	done
	idle_stop
	log_test "a QP's owner: to root its PID and command, to user 65534, user-namespace root and a PID namespace that cannot see it nothing"
}

# new_idle_qp_cmd PORT NAME: the shell command that starts one more idle
# QP (its server's PID in $OUT/NAME.pid) and returns once the module has an
# entry for it (the verification learns it within a period: rdma names the
# QP, rt_qp.py waits for its entry); the --pause-cmd of rt_genl.py runs it
# while a dump is half read.
new_idle_qp_cmd() {
	local pidf

	printf -v pidf '%q' "$OUT/$2.pid"
	printf '%s\n' "ibv_rc_pingpong -d $RT_RXE1 -g $G1 -p $1 > /dev/null 2>&1 &
		p=\$!; echo \$p > $pidf
		for i in \$(seq 100); do
			ss -ltnH 'sport = :$1' | grep -q LISTEN && break; sleep 0.2
		done
		q=\$(rdma -j res show qp link $RT_RXE1 | jq \".[] | select(.pid == \$p) | .lqpn\")
		[ -n \"\$q\" ] || exit 1
		for i in \$(seq 100); do
			python3 $(printf '%q' "$RT_QP") dump --dev $RT_RXE1 |
				jq -e \"any(.[]; .qpn == \$q)\" > /dev/null && exit 0
			sleep 0.1
		done
		exit 1"
}

# qp_gen_above GEN: a QP dump began since the generation was GEN.
qp_gen_above() {
	[ "$("$RT_CLI" -j qp stats dev "$RT_RXE1" | jq '.[0].gen')" -gt "$1" ]
}

# cli_retry: "qp show" while a QP comes.  strace holds the CLI's QP_GET
# sendmsg() (the second; the first asks for the family) for 20 s after the
# kernel filled the dump's first part; the QP comes then.  The kernel marks
# the dump, the CLI sends QP_GET again and prints every QP once.
cli_retry() {
	local g pid n got want

	g=$("$RT_CLI" -j qp stats dev "$RT_RXE1" | jq -e '.[0].gen') || return 1
	strace -qq -o "$OUT/cli-retry.strace" -e trace=sendmsg \
		-e inject=sendmsg:delay_exit=20000000:when=2 \
		"$RT_CLI" -j qp show dev "$RT_RXE1" > "$OUT/cli-retry.json" \
		2> "$OUT/cli-retry.err" &
	pid=$!
	wait_for 20 qp_gen_above "$g" &&
		bash -c "$(new_idle_qp_cmd $((PORT + 41)) cli-retry)"
	[ -s "$OUT/cli-retry.pid" ] && IDLE_PIDS+=("$(cat "$OUT/cli-retry.pid")")
	kill -0 "$pid" 2> /dev/null ||
		{ echo "# the QP came after the CLI's dump (a slow host?)"; return 1; }
	wait "$pid" || { echo "# the CLI failed: $(cat "$OUT/cli-retry.err")"; return 1; }
	n=$(grep -c '^sendmsg(.*nlmsg_type=rocetune' "$OUT/cli-retry.strace")
	got=$(jq -c '[.[].qpn]' "$OUT/cli-retry.json")
	want=$(rt_qp dump --dev "$RT_RXE1" | jq -c '[.[].qpn]')
	echo "# the CLI sent QP_GET $n times; it printed $(jq length <<< "$got") QPs, the table has $(jq length <<< "$want")"
	[ "$n" = 2 ] && [ "$got" = "$want" ] &&
		[ "$(jq 'unique | length' <<< "$got")" = "$(jq length <<< "$got")" ]
}

SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=31

# A dump's first part is filled when the request is sent, the next ones as
# they are read; rt_genl.py --pause-cmd changes the table in between.
dump_interrupted() {
	local out

	RET=0
	rm -f "$OUT/intr.pid" "$OUT/cli-retry.pid"
	# Any table will do: the previous test's, or a fresh one.
	[ -d /sys/module/rocetune ] || qp_reload
	check_err $? "cannot load rocetune.ko"
	idle_start 2
	check_err $? "cannot start 2 idle connected QPs (rt_qpair)"
	out=$(genl_as root req qp_get "DEV_NAME:str:$RT_RXE1" --dump)
	echo "# an undisturbed dump: $(jq -c '{replies, recvs, intr}' <<< "$out")"
	[ "$(jq .errno <<< "$out")" = 0 ] && [ "$(jq .replies <<< "$out")" -ge 2 ] &&
		[ "$(jq .intr <<< "$out")" = false ]
	check_err $? "an undisturbed dump: $out"
	out=$(genl_as root req qp_get "DEV_NAME:str:$RT_RXE1" --dump \
		--pause-cmd "$(new_idle_qp_cmd $((PORT + 40)) intr)")
	echo "# a QP created mid-dump: $(jq -c '{replies, recvs, intr}' <<< "$out")"
	[ "$(jq .errno <<< "$out")" = 0 ] && [ "$(jq .intr <<< "$out")" = true ]
	check_err $? "a QP created mid-dump did not mark it NLM_F_DUMP_INTR: $out"
	[ -s "$OUT/intr.pid" ] && IDLE_PIDS+=("$(cat "$OUT/intr.pid")")
	cli_retry
	check_err $? "the CLI did not run an interrupted dump again to a complete result"
	idle_stop
	# A simulated NIC comes while a port dump is half done.
	rt_sim_load
	check_err $? "cannot load rocetune_sim"
	out=$(genl_as root req port_get --dump \
		--pause-cmd "echo '$SIM_ID mlx5' > $SIM_BUS/new_device")
	echo "# a device added mid-dump: $(jq -c '{replies, recvs, intr}' <<< "$out")"
	[ "$(jq .errno <<< "$out")" = 0 ] && [ "$(jq .intr <<< "$out")" = true ]
	check_err $? "a device added mid-dump did not mark it NLM_F_DUMP_INTR: $out"
	sim_cleanup
	log_test "dumps that change under the reader are marked NLM_F_DUMP_INTR (QPs, devices); the CLI runs them again"
}

# dump_held PID: process PID (not a child of it) has a dump under way on
# one of its generic netlink sockets, with its first part filled and queued
# unread: /proc/net/netlink, the row of the socket's inode, says Eth 16
# (NETLINK_GENERIC), Dump 1 (the kernel's callback is running) and Rmem
# above 0.
dump_held() {
	local fd ino

	for fd in /proc/"$1"/fd/*; do
		ino=$(readlink "$fd") || continue
		case $ino in socket:*) ;; *) continue ;; esac
		ino=${ino#socket:[}
		ino=${ino%]}
		awk -v ino="$ino" '$2 == 16 && $5 > 0 && $7 == 1 && $10 == ino { f = 1 }
			END { exit !f }' /proc/net/netlink && return 0
	done
	return 1
}

# roce_devs: the RDMA devices with a RoCE port, by rdma and sysfs (not by
# rocetune): a sorted JSON array of their names.
roce_devs() {
	local d p

	for d in $(rdma -j dev show | jq -r '.[].ifname'); do
		for p in /sys/class/infiniband/"$d"/ports/*/link_layer; do
			if [ "$(cat "$p")" = Ethernet ]; then
				echo "$d"
				break
			fi
		done
	done | jq -R . | jq -sc sort
}

# dev_show_retry: "dev show" while a device comes, as cli_retry for QPs.
# strace holds the CLI's DEV_GET sendmsg() (the second; the first asks for
# the family) for 8 s after it returned: the kernel has filled the dump's
# first part then, which dump_held sees.  A simulated NIC comes meanwhile;
# its index is above every other, so the dump's next part meets it and is
# marked NLM_F_DUMP_INTR, and the CLI must send DEV_GET again and print the
# second, complete dump.  A device that came before the dump began leaves
# it undisturbed (DEV_GET sent once), one that came after it ended is not
# printed and finds the CLI gone ("came too late"): neither passes.
dev_show_retry() {
	local pid cli n got want new=rsim_ib$SIM_ID

	RET=0
	[ -d /sys/module/rocetune ] || qp_reload
	check_err $? "cannot load rocetune.ko"
	rt_sim_load
	check_err $? "cannot load rocetune_sim"
	[ ! -e "/sys/class/infiniband/$new" ]
	check_err $? "$new exists before the CLI's dump"
	strace -qq -o "$OUT/dev-retry.strace" -e trace=sendmsg \
		-e inject=sendmsg:delay_exit=8000000:when=2 \
		"$RT_CLI" -j dev show > "$OUT/dev-retry.json" \
		2> "$OUT/dev-retry.err" &
	pid=$!
	# strace's child is the CLI, whose socket holds the dump.
	wait_for 20 pgrep -P "$pid"
	cli=$(pgrep -P "$pid")
	wait_for 20 dump_held "$cli"
	check_err $? "the CLI's DEV_GET dump was not seen half read"
	echo "$SIM_ID mlx5" > "$SIM_BUS/new_device"
	check_err $? "cannot add simulated device $SIM_ID"
	kill -0 "$pid" 2> /dev/null
	check_err $? "the device came after the CLI's dump (a slow host?)"
	wait "$pid"
	check_err $? "the CLI failed: $(cat "$OUT/dev-retry.err")"
	n=$(grep -c '^sendmsg(.*nlmsg_type=rocetune' "$OUT/dev-retry.strace")
	got=$(jq -c '[.[].dev]' "$OUT/dev-retry.json")
	want=$(roce_devs)
	echo "# the CLI sent DEV_GET $n times and printed $got; rdma: $want"
	expect "DEV_GET requests" "$n" 2
	[ "$(jq 'unique | length' <<< "$got")" = "$(jq length <<< "$got")" ]
	check_err $? "a device printed twice: $got"
	check_same "$(jq -c sort <<< "$got")" "$want" \
		"the CLI printed $got, rdma lists $want"
	jq -e --arg d "$new" 'any(.[]; . == $d)' <<< "$got" > /dev/null
	check_err $? "the new device $new is not in $got"
	sim_cleanup
	log_test "dev show: a device added mid-dump makes the CLI dump again and print every device once"
}

sim_cleanup() {
	[ -d "$SIM_BUS/devices/rocetune_sim$SIM_ID" ] &&
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	rt_sim_unload
}

qp_test_cleanup() {
	idle_stop
	sim_cleanup 2> /dev/null
}

rt_require_cmd rdma strace pgrep
qp_main
