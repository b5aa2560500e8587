#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# metrics_scrape.sh [ROUNDS] [MAX_SEC] - what a Prometheus scrape of a
# host's RoCE ports costs: rocetuned's /metrics against node_exporter's
# infiniband collector (Debian's prometheus-node-exporter 1.5.0, only
# that collector, no exporter metrics) on the same 1, 8 and 32 simulated
# NICs (rocetune_sim, mlx5 personality, one port each; no other RDMA
# device; METRICS_SCRAPE_COUNTS overrides the counts).
#
# One python3 process (bench/metrics_scrape.py scrape) keeps one HTTP
# connection to each and scrapes them alternately: one untimed scrape,
# then up to ROUNDS (default 100) interleaved rounds, fewer when a count
# takes more than MAX_SEC seconds (default 60).  Printed per count and
# exporter: median, p90 and min scrape time, bytes, samples and samples
# labelled with a device; then rocetune/node_exporter.
#
# node_exporter 1.5.0 cannot read these devices as they are (no board_id,
# no counters/ directory: see metrics_scrape.py, and the line this script
# prints first), so it reads a view of them (--path.sysfs) in which each
# port's counters/ files are bind mounts of its real hw_counters files.
#
# Needs root, rocetune.ko, rocetune_sim, rocetuned and
# prometheus-node-exporter (make deps): run it in the test VM, alone, e.g.
#   selftests/vm/run.sh -k 6.1 -x 'bench/metrics_scrape.sh 100 60'
# Method and results: bench/README.

ROUNDS=${1:-100}
MAX_SEC=${2:-60}
COUNTS=${METRICS_SCRAPE_COUNTS:-1 8 32}
source "$(dirname "$0")/lib.sh"
RT=$RT_TOP/build/userspace/rocetune
AGENT=$RT_TOP/build/userspace/rocetuned
NE=/usr/bin/prometheus-node-exporter
HELPER=$RT_TOP/bench/metrics_scrape.py
SIM_BUS=/sys/bus/rocetune_sim
ID0=500
RT_PORT=$((RANDOM % 1000 + 21000))
NE_PORT=$((RT_PORT + 1000))
WORK=$(mktemp -d /tmp/rt-scrape.XXXXXX)
VIEW=$WORK/sys
export ROCETUNE_PROFILE_DIR=$WORK/profiles ROCETUNE_RUN_DIR=$WORK/run
AGENT_PID=
NE_PID=
nsim=0

fail() {
	echo "metrics_scrape.sh: $*" >&2
	exit 1
}

stop() {
	[ -z "$1" ] && return
	kill "$1" 2> /dev/null
	wait "$1" 2> /dev/null
}

cleanup() {
	local i

	stop "$NE_PID"
	stop "$AGENT_PID"
	# The bind mounts first: they hold the devices' sysfs files.
	mountpoint -q "$VIEW" && umount -R "$VIEW"
	for ((i = 0; i < nsim; i++)); do
		echo "$((ID0 + i))" > "$SIM_BUS/del_device" 2> /dev/null
	done
	rt_sim_unload
	rt_kmod_unload 2> /dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

sim_add_to() {
	while [ "$nsim" -lt "$1" ]; do
		echo "$((ID0 + nsim)) mlx5" > "$SIM_BUS/new_device" ||
			fail "cannot create sim device $((ID0 + nsim))"
		nsim=$((nsim + 1))
		ip link set "rsim$((ID0 + nsim - 1))" up ||
			fail "cannot set rsim$((ID0 + nsim - 1)) up"
	done
}

rocetune_ports_are() {
	[ "$(rt_json "$RT" -j port show | jq length)" = "$1" ]
}

# devices_in URL: how many devices the port series of URL's scrape name.
devices_in() {
	curl -sf "$1" | grep -v '^#' | grep -o 'device="[^"]*"' | sort -u |
		wc -l
}

devices_in_is() {
	[ "$(devices_in "$1")" = "$2" ]
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

rt_require_root
rt_require_cmd python3 curl jq gojq "$NE"
[ -x "$AGENT" ] || fail "$AGENT is missing (make userspace)"
[ -z "$(ls /sys/class/infiniband 2> /dev/null)" ] ||
	fail "RDMA devices exist already: $(ls /sys/class/infiniband)"
rt_kmod_load || fail "cannot load rocetune.ko"
rt_sim_load || fail "cannot load rocetune_sim"
mkdir -p "$ROCETUNE_PROFILE_DIR" "$VIEW" || exit 1
mount -t tmpfs rt-scrape-view "$VIEW" || fail "cannot mount the view"
sim_add_to 1

# node_exporter on the devices as they are, for the record.
"$NE" --collector.disable-defaults --collector.infiniband \
	--web.disable-exporter-metrics --log.level=debug \
	--web.listen-address="127.0.0.1:$NE_PORT" 2> "$WORK/ne-real.log" &
NE_PID=$!
wait_for 30 rt_port_listening "$NE_PORT" || fail "node_exporter did not start"
real=$(curl -sf "http://127.0.0.1:$NE_PORT/metrics") ||
	fail "node_exporter scrape failed"
echo "# node_exporter $("$NE" --version 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p') on /sys as it is:" \
	"$(grep -c '^node_infiniband' <<< "$real") infiniband samples," \
	"$(grep '^node_scrape_collector_success' <<< "$real")"
grep 'infiniband' "$WORK/ne-real.log" | grep -o 'msg="[^"]*"' | grep -v Enabled |
	sed 's/^/#   node_exporter: /' | head -n 3
stop "$NE_PID"
NE_PID=

"$AGENT" --foreground --metrics-listen "127.0.0.1:$RT_PORT" \
	2> "$WORK/agent.log" &
AGENT_PID=$!
"$NE" --collector.disable-defaults --collector.infiniband \
	--web.disable-exporter-metrics --path.sysfs="$VIEW" \
	--web.listen-address="127.0.0.1:$NE_PORT" 2> "$WORK/ne.log" &
NE_PID=$!
wait_for 30 rt_port_listening "$RT_PORT" ||
	{ cat "$WORK/agent.log"; fail "rocetuned does not serve metrics"; }
wait_for 30 rt_port_listening "$NE_PORT" ||
	{ cat "$WORK/ne.log"; fail "node_exporter did not start"; }
RT_URL=http://127.0.0.1:$RT_PORT/metrics
NE_URL=http://127.0.0.1:$NE_PORT/metrics

echo "# kernel $(uname -r), $(nproc) CPU(s); up to $ROUNDS interleaved rounds or $MAX_SEC s per count"
printf '%-5s %-13s %6s %9s %9s %9s %8s %7s %7s\n' ports exporter rounds \
	median_ms p90_ms min_ms bytes samples port_s
declare -A med p90 bytes samples
for n in $COUNTS; do
	sim_add_to "$n"
	wait_for 60 rocetune_ports_are "$n" ||
		fail "rocetune does not see $n ports"
	python3 "$HELPER" view "$VIEW" > /dev/null || fail "cannot build the view"
	wait_for 60 devices_in_is "$RT_URL" "$n" ||
		fail "rocetuned's /metrics names $(devices_in "$RT_URL") devices, not $n"
	devices_in_is "$NE_URL" "$n" ||
		fail "node_exporter's /metrics names $(devices_in "$NE_URL") devices, not $n"
	curl -sf "$NE_URL" | grep -x 'node_scrape_collector_success{collector="infiniband"} 1' > /dev/null ||
		fail "node_exporter's infiniband collector failed: $(tail -n 3 "$WORK/ne.log")"
	out=$(python3 "$HELPER" scrape "$ROUNDS" "$MAX_SEC" "$n" \
		"rocetune=$RT_URL" "node_exporter=$NE_URL") || fail "scraping failed"
	while read -r line; do
		name=${line%% *}
		med[$name]=$(field median_ms "$line")
		p90[$name]=$(field p90_ms "$line")
		bytes[$name]=$(field bytes "$line")
		samples[$name]=$(field samples "$line")
		printf '%-5s %-13s %6s %9s %9s %9s %8s %7s %7s\n' "$n" "$name" \
			"$(field rounds "$line")" "${med[$name]}" "${p90[$name]}" \
			"$(field min_ms "$line")" "${bytes[$name]}" \
			"${samples[$name]}" "$(field port_series "$line")"
		[ "$(field reconnects "$line")" = 0 ] ||
			echo "#   $name: $(field reconnects "$line") reconnects"
	done <<< "$out"
	echo "#   rocetune/node_exporter at $n ports:" \
		"median $(ratio "${med[rocetune]}" "${med[node_exporter]}")," \
		"p90 $(ratio "${p90[rocetune]}" "${p90[node_exporter]}")," \
		"bytes $(ratio "${bytes[rocetune]}" "${bytes[node_exporter]}")," \
		"samples $(ratio "${samples[rocetune]}" "${samples[node_exporter]}")"
done
