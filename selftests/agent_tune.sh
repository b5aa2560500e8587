#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetuned's closed loop ([Tune]) on a simulated mlx5 NIC with
# rocetune.ko loaded: the sim's counter grow knob makes CNPs (and then
# pause frames) at a set rate; the DCQCN parameter is read from its
# cc_params file, not through rocetune.  One bounded step per decision,
# the cool-down held, Max= never crossed, back toward the profile's value
# below Below=, a step reverted when the guard metric grows, drift back
# to the tuned value, decisions in /metrics (promtool clean), and a plant
# that answers every step by asking for the opposite one: the rule stops
# (oscillation), says so in the log, the status and /metrics, and writes
# nothing more.  Short sampling intervals and polling, no long sleeps: it
# must take at most 120 s in the emulated VM.

ALL_TESTS="
	start_at_base
	one_step_then_cooldown
	limit_never_crossed
	drift_keeps_tuned_value
	back_below_low
	guard_reverts
	qp_series
	metrics_promtool
	oscillation_stops
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_AGENT=${RT_AGENT:-$RT_TOP/build/userspace/rocetuned}
SIM_BUS=/sys/bus/rocetune_sim
DFS=/sys/kernel/debug/rocetune_sim
ID=$((RANDOM % 700 + 100))
DEV=rsim$ID
FILE=/sys/kernel/debug/mlx5/rocetune_sim$ID/cc_params/np_min_time_between_cnps
PORT=$((RANDOM % 1000 + 20000))
COOLDOWN_MS=3000
WORK=$(mktemp -d /tmp/rt-tune.XXXXXX)
LOG=${RT_OUT:+$RT_OUT/agent-tune-$(uname -r).log}
LOG=${LOG:-$WORK/agent.log}
SEEN=$WORK/seen
AGENT_PID=
SAMPLER_PID=
PLANT_PID=
WIRE=
QP_PORT=$((PORT + 1))
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"

cleanup() {
	[ -z "$PLANT_PID" ] || kill "$PLANT_PID" 2> /dev/null
	[ -z "$SAMPLER_PID" ] || kill "$SAMPLER_PID" 2> /dev/null
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2> /dev/null
	[ -z "$AGENT_PID" ] || wait "$AGENT_PID" 2> /dev/null
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	[ -z "$WIRE" ] || rt_wire_down
	rt_kmod_unload
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

value() {
	cat "$FILE"
}

value_is() {
	[ "$(value)" = "$1" ]
}

log_has() {
	grep -E -- "$1" "$LOG" > /dev/null
}

# grow COUNTER RATE: the sim's counter grows by RATE per second until
# stopped (RATE 0).
grow() {
	echo "$1 $2 0" > "$DFS/$ID/grow"
}

scrape() {
	curl -sf "http://127.0.0.1:$PORT/metrics"
}

# metric_has ERE: a sample line of /metrics matches ERE.
metric_has() {
	local m

	m=$(scrape) && grep -E -- "$1" <<< "$m" > /dev/null
}

# decisions DIRECTION REASON [FILE]: the decision counter in a scrape (of
# FILE, else a new one), 0 when absent.
decisions() {
	local m n

	if [ -n "${3:-}" ]; then
		m=$(< "$3")
	else
		m=$(scrape) || return 1
	fi
	n=$(sed -n "s/^rocetune_agent_tune_decisions_total{netdev=\"$DEV\",parameter=\"MinTimeBetweenCNPsUs\",direction=\"$1\",reason=\"$2\"} \([0-9]*\)$/\1/p" <<< "$m")
	echo "${n:-0}"
}

decisions_at_least() {
	local n

	n=$(decisions "$1" "$2") && [ "$n" -ge "$3" ]
}

# The values of the cc file, read all along by a reader of its own that
# forks nothing (a fork costs up to seconds in a loaded emulated VM): one
# "EPOCHREALTIME VALUE" line per read, every 20 ms.
sampler() {
	local v fifo=$WORK/tick

	mkfifo "$fifo" || return 1
	exec 9<> "$fifo"
	while :; do
		read -r v < "$FILE" && printf '%s %s\n' "$EPOCHREALTIME" "$v"
		read -r -t 0.02 -u 9 v
	done > "$SEEN"
}

# changes: each change of the value the sampler saw, "MS FROM TO" (MS
# since its first read).
changes() {
	awk 'NR == 1 { t0 = $1; v = $2; next }
	     $2 != v { printf "%d %s %s\n", ($1 - t0) * 1000, v, $2; v = $2 }' \
		"$SEEN"
}

# seen FROM TO: the sampler saw the value change from FROM to TO.
seen() {
	changes | grep -E -- " $1 $2$" > /dev/null
}

# The rule: CNPs above 1000/s make MinTimeBetweenCNPsUs (4 in the profile)
# larger by 4 up to 12, below 100/s it goes back; a growing rate of
# received pause frames reverts a step.  $1: CooldownMs=.
write_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-tune.conf" << EOF
[Match]
Name=$DEV

[DCQCN]
MinTimeBetweenCNPsUs=4

[Agent]
PollIntervalSec=1

[Tune]
Parameter=MinTimeBetweenCNPsUs
Metric=cnp
Direction=increase
Above=1000
Below=100
Step=4
Min=4
Max=12
CooldownMs=$1
IntervalMs=200
Guard=rx-pause
GuardTolerance=50
EOF
}

setup() {
	rt_sim_load || return 1
	rt_kmod_load || return 1
	echo "$ID mlx5" > "$SIM_BUS/new_device" || return 1
	ip link set "$DEV" up || return 1
	wait_for 30 "$RT_CLI" profile show dev "$DEV" || return 1
	[ -f "$FILE" ] || return 1
	# Not the sim's initial value, so that the start apply is seen.
	echo 20 > "$FILE" || return 1
	write_profile "$COOLDOWN_MS"
	"$RT_CLI" profile check > /dev/null || return 1
	"$RT_AGENT" --foreground --metrics-listen "127.0.0.1:$PORT" \
		--metrics-qp-labels --poll-interval 5 2> "$LOG" &
	AGENT_PID=$!
}

start_at_base() {
	RET=0
	wait_for 60 value_is 4
	check_err $? "the start apply did not write the profile's 4: $(value); $(tail -3 "$LOG")"
	sampler &
	SAMPLER_PID=$!
	wait_for 60 metric_has "^rocetune_agent_tune_value\{netdev=\"$DEV\",parameter=\"MinTimeBetweenCNPsUs\"\} 4$"
	check_err $? "no tune value 4 in /metrics"
	# Quiet: no decision at all.
	expect "decisions while quiet" "$(decisions up high)" 0
	log_test "start: the profile's value, no decision while quiet"
}

one_step_then_cooldown() {
	local c t1 t2

	RET=0
	grow np_cnp_sent 5000 || check_err 1 "cannot grow np_cnp_sent"
	wait_for 60 seen 8 12
	check_err $? "no two steps 4 -> 8 -> 12 within 60 s: $(changes | tr '\n' ' ')"
	c=$(changes)
	expect "the first change (one Step=4)" \
		"$(sed -n '1s/^[0-9]* //p' <<< "$c")" "4 8"
	expect "the second change" "$(sed -n '2s/^[0-9]* //p' <<< "$c")" "8 12"
	t1=$(sed -n '1s/ .*//p' <<< "$c")
	t2=$(sed -n '2s/ .*//p' <<< "$c")
	# CooldownMs=3000 between them (the reader sees each change up to
	# one read late; 500 ms for a starved VM).
	[ -n "$t1" ] && [ -n "$t2" ] &&
		[ $((t2 - t1)) -ge $((COOLDOWN_MS - 500)) ]
	check_err $? "the second step came $((t2 - t1)) ms after the first (CooldownMs=$COOLDOWN_MS)"
	echo "# steps 4 -> 8 -> 12 seen $((t2 - t1)) ms apart (CooldownMs=$COOLDOWN_MS)"
	log_has "$DEV: tune MinTimeBetweenCNPsUs 4 -> 8 in force \(step up: cnp [0-9]+/s > Above=1000; Guard=rx-pause 0/s\)"
	check_err $? "the decision is not logged with its inputs: $(grep tune "$LOG" | tail -3)"
	log_test "CNP rate above Above=: one bounded step, then the cool-down"
}

limit_never_crossed() {
	RET=0
	# Max=12 reached while CNPs stay high: the next decisions hold.
	wait_for 60 decisions_at_least none limit 1
	check_err $? "no hold at the limit: $(tail -3 "$LOG")"
	expect "value at Max=" "$(value)" 12
	log_has "$DEV: tune MinTimeBetweenCNPsUs 12 held \(limit: cnp"
	check_err $? "the hold is not logged"
	log_test "at Max=: held, never crossed"
}

drift_keeps_tuned_value() {
	RET=0
	# The tuned value (12, not the profile's 4) is what drift restores;
	# CNPs are still high, so 12 stays.
	echo 20 > "$FILE"
	wait_for 60 seen 20 12
	check_err $? "drift not restored: $(value)"
	expect "value" "$(value)" 12
	log_has "$DEV: drift \(poll\): dcqcn MinTimeBetweenCNPsUs is 20, profile 50-tune.conf wants 12"
	check_err $? "the drift does not want the tuned value: $(grep drift "$LOG" | tail -2)"
	log_test "drift: the tuned value is restored, not the profile's"
}

back_below_low() {
	RET=0
	grow np_cnp_sent 0 || check_err 1 "cannot stop np_cnp_sent"
	wait_for 60 seen 12 8
	check_err $? "no step back below Below=: $(changes | tr '\n' ' ')"
	log_has "$DEV: tune MinTimeBetweenCNPsUs 12 -> 8 in force \(back down: cnp 0/s < Below=100"
	check_err $? "the step back is not logged: $(grep tune "$LOG" | tail -3)"
	log_test "CNP rate below Below=: one step back toward the profile's value"
}

guard_reverts() {
	RET=0
	# A long cool-down, so that the guard watches the step for 60 s
	# however slow this VM is; the reload starts from the profile's 4.
	write_profile 60000
	kill -HUP "$AGENT_PID"
	wait_for 60 log_has "profiles reloaded"
	check_err $? "no reload"
	wait_for 60 value_is 4
	check_err $? "the reload did not start from 4: $(value)"
	grow np_cnp_sent 5000 || check_err 1 "cannot grow np_cnp_sent"
	wait_for 60 value_is 8
	check_err $? "no step up: $(value)"
	# Then the guard metric (received pause frames) grows: revert.
	grow rx_prio3_pause 2000 || check_err 1 "cannot grow rx_prio3_pause"
	wait_for 60 value_is 4
	check_err $? "not reverted: $(value); $(grep tune "$LOG" | tail -3)"
	log_has "$DEV: tune MinTimeBetweenCNPsUs 8 -> 4 in force \(revert, guard: rx-pause rose to [0-9]+/s, 0/s before the step \+ GuardTolerance=50\)"
	check_err $? "the revert is not logged with its inputs"
	# CNPs still high: the reverted step is not tried again.
	wait_for 60 decisions_at_least none blocked 1
	check_err $? "no blocked decision: $(grep tune "$LOG" | tail -3)"
	expect "value after the revert" "$(value)" 4
	grow rx_prio3_pause 0
	grow np_cnp_sent 0
	# The rule's part is over: the reader stops (its record is checked
	# in metrics_promtool).
	kill "$SAMPLER_PID" 2> /dev/null
	wait "$SAMPLER_PID" 2> /dev/null
	SAMPLER_PID=
	log_test "guard metric worse after a step: reverted, not tried again"
}

metrics_promtool() {
	local m=$WORK/metrics out bad d

	RET=0
	# Every value the file took, read all along: the rule's, and the
	# drift's 20.  Every change but the drift's is one Step=.
	bad=$(awk '{ print $2 }' "$SEEN" | sort -u |
		grep -v -x -E '4|8|12|20' | tr '\n' ' ')
	[ -z "$bad" ]
	check_err $? "the cc file took values outside the rule: $bad"
	bad=$(changes | awk '$2 != 20 && $3 != 20 && $3 - $2 != 4 && $2 - $3 != 4' |
		tr '\n' ' ')
	[ -z "$bad" ]
	check_err $? "changes of more than one Step=: $bad"
	echo "# $(wc -l < "$SEEN") reads, changes: $(changes | awk '{ print $2 "->" $3 }' | tr '\n' ' ')"
	scrape > "$m"
	check_err $? "scrape failed"
	out=$(promtool check metrics < "$m" 2>&1)
	check_err $? "promtool: $out"
	[ -z "$out" ]
	check_err $? "promtool findings: $out"
	for d in "up high" "down low" "down guard" "none limit" "none blocked" \
		 "none cooldown"; do
		# shellcheck disable=SC2086 # two words
		[ "$(decisions $d "$m")" -ge 1 ]
		check_err $? "no decision \"$d\" counted"
	done
	grep -E "^rocetune_agent_tune_value\{netdev=\"$DEV\",parameter=\"MinTimeBetweenCNPsUs\"\} 4$" "$m" > /dev/null
	check_err $? "tune value gauge: $(grep tune_value "$m")"
	grep -E "^rocetune_port_tx_cnp_pkts_total\{device=\"rsim_ib$ID\",port=\"1\"" "$m" > /dev/null
	check_err $? "no port series"
	[ -n "$(qp_metrics "$m")" ]
	check_err $? "no QP series (MetricsTopQPs=) in the scrape promtool checks"
	echo "# metrics: $(grep -c '^rocetune_agent_tune' "$m") tune samples"
	log_test "metrics: decisions by direction and reason, value, QP series; promtool clean"
}

# The plant of oscillation_stops, too much gain: while the parameter is at
# the profile's 4 the port sends 5000 CNPs/s, above it none.  Each step up
# of the rule is answered by a rate below Below=, each step back by one
# above Above=.  Builtins only (no fork per read).
plant() {
	local v last="" fifo=$WORK/plant-tick

	mkfifo "$fifo" || return 1
	exec 8<> "$fifo"
	while :; do
		if read -r v < "$FILE" && [ "$v" != "$last" ]; then
			if [ "$v" = 4 ]; then
				grow np_cnp_sent 5000
			else
				grow np_cnp_sent 0
			fi
			last=$v
		fi
		read -r -t 0.05 -u 8 v
	done
}

# The rule's writes logged since the last reload.
tune_writes() {
	awk '/profiles reloaded/ { n = 0 }
	     /: tune MinTimeBetweenCNPsUs [0-9]+ -> [0-9]+ / { n++ }
	     END { print n + 0 }' "$LOG"
}

# reloaded_since N: more than N reloads logged.
reloaded_since() {
	[ "$(grep -c "profiles reloaded" "$LOG")" -gt "$1" ]
}

tune_state() {
	rt_json "$RT_CLI" -j agent status |
		jq -r ".nics[] | select(.netdev == \"$DEV\") | .tune.state"
}

oscillation_stops() {
	local reloads n v

	RET=0
	grow np_cnp_sent 0
	grow rx_prio3_pause 0
	# The shortest cool-down a profile may have.
	write_profile 1000
	reloads=$(grep -c "profiles reloaded" "$LOG")
	kill -HUP "$AGENT_PID"
	wait_for 60 reloaded_since "$reloads"
	check_err $? "no reload"
	wait_for 60 value_is 4
	check_err $? "the reload did not start from 4: $(value)"
	expect "state after the reload" "$(tune_state)" running
	plant &
	PLANT_PID=$!
	wait_for 120 log_has "$DEV: tune MinTimeBetweenCNPsUs stopped \(oscillation: 4 reversals of direction in the last 5 changes within an hour"
	check_err $? "the rule did not stop: $(grep -E 'tune|stopped' "$LOG" | tail -4)"
	n=$(tune_writes)
	v=$(value)
	echo "# stopped after $n writes, $v in force"
	expect "writes until the stop" "$n" 5
	expect "status tune.state" "$(tune_state)" oscillation
	metric_has "^rocetune_agent_tune_stopped\{netdev=\"$DEV\",parameter=\"MinTimeBetweenCNPsUs\",reason=\"oscillation\"\} 1$"
	check_err $? "no stopped gauge: $(scrape | grep tune_stopped)"
	metric_has "^rocetune_agent_tune_stopped\{netdev=\"$DEV\",parameter=\"MinTimeBetweenCNPsUs\",reason=\"budget\"\} 0$"
	check_err $? "the budget gauge is not 0: $(scrape | grep tune_stopped)"
	"$RT_CLI" agent status | grep -E "^ +tune: MinTimeBetweenCNPsUs $v .*, writes in the last hour: 5 of 60, STOPPED \(oscillation\)$" > /dev/null
	check_err $? "the status text: $("$RT_CLI" agent status | grep tune:)"
	# The plant keeps asking (4 cool-downs): nothing is written.
	sleep 4
	expect "writes after the stop" "$(tune_writes)" "$n"
	expect "value after the stop" "$(value)" "$v"
	[ "$(grep -c "tune MinTimeBetweenCNPsUs stopped" "$LOG")" = 1 ]
	check_err $? "the stop is not said exactly once"
	kill "$PLANT_PID" 2> /dev/null
	wait "$PLANT_PID" 2> /dev/null
	PLANT_PID=
	grow np_cnp_sent 0
	log_test "an oscillating plant: the rule stops after 5 writes, says why, writes nothing more"
}

# qp_metrics FILE: the QP series of a scrape in FILE, "DEVICE PORT QPN".
qp_metrics() {
	sed -n 's/^rocetune_qp_rx_pkts_total{device="\([^"]*\)",port="\([0-9]*\)",qpn="\([0-9]*\)".*/\1 \2 \3/p' "$1"
}

scrape_has_qps() {
	scrape > "$1" && [ -n "$(qp_metrics "$1")" ]
}

# [Agent] MetricsTopQPs=: the per-QP series of a Soft-RoCE port (the sim
# has no QP accounting) in the agent's scrape, bounded, with the labels
# of the port series.
qp_series() {
	local m=$WORK/qp-metrics g0 g1 spid rc out

	RET=0
	WIRE=1
	if ! rt_wire_up; then
		check_err 1 "cannot set up the rxe wire"
		log_test "metrics: MetricsTopQPs= adds per-QP series"
		return
	fi
	printf '[Match]\nName=%s\n\n[Agent]\nMetricsTopQPs=1\n' \
		"$RT_NETDEV0" > "$ROCETUNE_PROFILE_DIR/40-rxe.conf"
	kill -HUP "$AGENT_PID"
	# Entries stay after the QPs are gone, for the scrape.
	"$RT_CLI" qp set linger-ms 600000
	check_err $? "qp set linger-ms"
	g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	# A server left behind would hold rxe0 (and block rt_wire_down).
	timeout 120 ibv_rc_pingpong -d "$RT_RXE0" -g "$g0" -n 20 \
		-p "$QP_PORT" > "$WORK/server.log" 2>&1 &
	spid=$!
	rc=1
	if wait_for 30 rt_port_listening "$QP_PORT"; then
		timeout 60 ibv_rc_pingpong -d "$RT_RXE1" -g "$g1" -n 20 \
			-p "$QP_PORT" "$RT_IP0" > "$WORK/client.log" 2>&1
		rc=$?
	fi
	[ "$rc" = 0 ] || kill "$spid" 2> /dev/null
	wait "$spid"
	check_err $((rc + $?)) "ibv_rc_pingpong: $(tail -n 2 "$WORK"/*.log | tr '\n' ' ')"
	wait_for 60 scrape_has_qps "$m"
	check_err $? "no QP series in the scrape: $(grep -c . "$m") lines"
	out=$(qp_metrics "$m")
	# One QP of rxe0's port 1 (MetricsTopQPs=1); rxe1 has no profile.
	expect "QP series (device port qpn)" \
		"$(awk '{ print $1, $2 }' <<< "$out" | tr '\n' ' ')" "rxe0 1 "
	grep -E "^rocetune_port_rx_pkts_total\{device=\"rxe0\",port=\"1\",netdev=\"$RT_NETDEV0\"\} " "$m" > /dev/null
	check_err $? "no port series of rxe0 with the same labels"
	# promtool: with the agent's other series, in metrics_promtool.
	log_test "metrics: MetricsTopQPs= adds per-QP series, bounded, labels of the port series"
}

rt_require_root
rt_require_cmd curl promtool awk mkfifo ibv_rc_pingpong jq
[ -x "$RT_AGENT" ] || rt_setup_failed "$RT_AGENT is not built (make -C userspace)"
setup || rt_setup_failed "simulated NIC, rocetune.ko or the agent"
rt_run_tests
