#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetuned, the agent, on simulated mlx5 NICs and Soft-RoCE with
# rocetune.ko loaded, checked by independent readers (iproute2's dcb,
# ethtool, the cc files, the module's QP stats by the YNL client,
# promtool): profiles applied at start and on hotplug, drift restored or
# only reported, a flapping setter that does not make the agent loop,
# pause-storm actions (the sim's pfc_storm knob) applied and restored,
# /metrics clean for promtool, a bad profile on SIGHUP that keeps the old
# ones, a second agent refused, storm actions that survive a kill -9 of
# the agent and a STORM_END lost in an event overrun, an action whose
# state cannot be read not taken, a NIC lock held by another process
# (flock(1)) that delays the storm action only until it is free, silent
# status clients that delay no scrape, systemd's watchdog fed, and a
# clean stop.  Latencies the agent
# measures are printed as TAP comments ("# latency ...").

ALL_TESTS="
	start_applies
	ready_notify
	hotplug_applies
	drift_dcb_reapplied
	drift_cc_polled
	drift_rxe_polled
	drift_reported_only
	flapping_setter_bounded
	storm_timeout_restored
	storm_disable_pfc_restored
	storm_lock_held
	status_silent_clients
	metrics_promtool
	prometheus_scrapes
	sighup_bad_profile_kept
	second_agent_refused
	storm_restart_resync
	storm_end_lost
	storm_action_skipped
	ready_endpoint
	storm_slow_scrapes
	sigterm_stops
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_AGENT=${RT_AGENT:-$RT_TOP/build/userspace/rocetuned}
SIM_BUS=/sys/bus/rocetune_sim
DFS=/sys/kernel/debug/rocetune_sim
ID=$((RANDOM % 700 + 100))
HID=$((ID + 1))			# the hotplugged NIC
FID=$((ID + 2))			# disable-pfc, no PFC= (storm_restart_resync)
GID=$((ID + 3))			# no profile: the event flood (storm_end_lost)
KID=$((ID + 4))			# irdma: no tunable (storm_action_skipped)
DEV=rsim$ID
HDEV=rsim$HID
FDEV=rsim$FID
CC=/sys/kernel/debug/mlx5/rocetune_sim$ID/cc_params
PORT=$((RANDOM % 1000 + 19000))
PROM_PORT=
WORK=$(mktemp -d /tmp/rt-agent.XXXXXX)
# The agent's log: in the run's output directory when there is one, so
# that it survives a VM that dies.
LOG=${RT_OUT:+$RT_OUT/agent-$(uname -r).log}
LOG=${LOG:-$WORK/agent.log}
AGENT_PID=
HOLD_PID=
SCRAPE_PIDS=()
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"

cleanup() {
	[ -z "$HOLD_PID" ] || kill "$HOLD_PID" 2> /dev/null
	[ ${#SCRAPE_PIDS[@]} -eq 0 ] || kill "${SCRAPE_PIDS[@]}" 2> /dev/null
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2> /dev/null
	[ -z "$AGENT_PID" ] || wait "$AGENT_PID" 2> /dev/null
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$HID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$FID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$GID" > "$SIM_BUS/del_device" 2> /dev/null
	echo "$KID" > "$SIM_BUS/del_device" 2> /dev/null
	rt_wire_down
	rt_kmod_unload
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

# log_has ERE: the agent's log has a line matching ERE.
log_has() {
	grep -E -- "$1" "$LOG" > /dev/null
}

# log_count ERE: how many lines of the agent's log match ERE.
log_count() {
	grep -c -E -- "$1" "$LOG"
}

# wait_log SECS ERE: until the agent logs ERE.
wait_log() {
	wait_for "$1" log_has "$2"
}

# prio_pfc NETDEV PRIO: "true" or "false", as dcb shows it.
prio_pfc() {
	dcb -j pfc show dev "$1" | jq -r ".prio_pfc[$2]"
}

pfc_is() {
	[ "$(prio_pfc "$1" "$2")" = "$3" ]
}

tout() {
	ethtool --get-tunable "$1" pfc-prevention-tout |
		sed -n 's/^pfc-prevention-tout: //p'
}

tout_is() {
	[ "$(tout "$1")" = "$2" ]
}

cc_is() {
	[ "$(cat "$CC/$1")" = "$2" ]
}

status_json() {
	rt_json "$RT_CLI" -j agent status
}

suppressed_is() {
	[ "$(status_json | jq -r ".nics[] | select(.netdev == \"$1\") | .drift.suppressed")" = "$2" ]
}

reload_ok_is() {
	[ "$(status_json | jq -r .last_reload_ok)" = "$1" ]
}

storm_ms_is() {
	[ "$(rt_json "$RT_CLI" -j config show dev "$1" | jq -r '.storm_ms')" = "$2" ]
}

agent_alive() {
	kill -0 "$AGENT_PID" 2> /dev/null
}

# The main NIC: lossless on priority 3, DCQCN, storm action timeout.
write_main_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-main.conf" << EOF
[Match]
Name=$DEV

[Lossless]
PFC=3
PFCStormTimeoutMs=500

[DCQCN]
CNPDSCP=46
MinRateMbps=10

[Agent]
PollIntervalSec=1
MaxReapplies=3
ReapplyWindowSec=600

[Watchdog]
Action=timeout
TimeoutMs=200
StormMs=100
RestoreAfterMs=1000
EOF
}

# The hotplugged NIC: drift only reported, storm action disable-pfc.
write_hot_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/40-hot.conf" << EOF
[Match]
Name=$HDEV

[Lossless]
PFC=3 4

[Agent]
OnDrift=report
PollIntervalSec=1

[Watchdog]
Action=disable-pfc
StormMs=100
RestoreAfterMs=1500
EOF
}

# Soft-RoCE: rocetune.ko's DCQCN on rxe0's netdev (there only in
# drift_rxe_polled).
write_rxe_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/30-rxe.conf" << EOF
[Match]
Name=$RT_NETDEV0

[DCQCN]
Enable=yes
MinRateMbps=40
AIRateMbps=9

[Agent]
PollIntervalSec=1
EOF
}

# start_agent [OPTION...]: the agent, logging to $LOG (emptied first).
start_agent() {
	: > "$LOG"
	"$RT_AGENT" --foreground --metrics-listen "127.0.0.1:$PORT" \
		--poll-interval 5 "$@" 2> "$LOG" &
	AGENT_PID=$!
}

setup() {
	rt_sim_load || return 1
	rt_kmod_load || return 1
	echo "$ID mlx5" > "$SIM_BUS/new_device" || return 1
	ip link set "$DEV" up || return 1
	wait_for 30 "$RT_CLI" profile show dev "$DEV" || return 1
	[ -d "$CC" ] || return 1
	# The sim flaps the link on a PFC change as mlx5 does; 200 ms each
	# would only slow the flapping setter down.
	echo N > "$DFS/$ID/pfc_link_flap" || return 1
	write_main_profile
	write_hot_profile
	write_rxe_profile
	"$RT_CLI" profile check > /dev/null
}

start_applies() {
	RET=0
	pfc_is "$DEV" 3 false
	check_err $? "PFC on priority 3 before the agent"
	start_agent
	wait_log 30 "$DEV: profile 50-main.conf applied \(start\)"
	check_err $? "no start apply logged: $(tail -5 "$LOG")"
	pfc_is "$DEV" 3 true
	check_err $? "dcb: PFC is not on on priority 3"
	tout_is "$DEV" 500
	check_err $? "tunable: pfc-prevention-tout is $(tout "$DEV"), not 500"
	cc_is np_cnp_dscp 46 && cc_is rp_min_rate 10
	check_err $? "cc files: np_cnp_dscp $(cat "$CC/np_cnp_dscp"), rp_min_rate $(cat "$CC/rp_min_rate")"
	expect "status: last result" \
		"$(status_json | jq -r ".nics[] | select(.netdev == \"$DEV\") | .last_result")" \
		applied
	expect "module threshold (StormMs=)" \
		"$(rt_json "$RT_CLI" -j config show dev "rsim_ib$ID" | jq -r '.storm_ms')" \
		100
	log_test "start: the profile is applied (dcb, ethtool, cc files)"
}

# sd_notify: READY=1 comes after the start apply, with a STATUS=.
ready_notify() {
	local sock=$WORK/notify out

	RET=0
	# WATCHDOG_USEC as systemd sets it for WatchdogSec=2s.
	out=$(ROCETUNE_RUN_DIR=$WORK/run2 NOTIFY_SOCKET=$sock \
		WATCHDOG_USEC=2000000 python3 - "$RT_AGENT" "$sock" << 'EOF'
import os, socket, subprocess, sys, time
agent, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(30)
p = subprocess.Popen([agent, "--foreground"], stderr=subprocess.PIPE)
msgs = []
try:
    while not any(b"READY=1" in m for m in msgs):
        msgs.append(s.recv(4096))
    # After READY=1: WATCHDOG=1 every second, watched for 3 s; the
    # largest gap counts from READY=1 and to the end of the 3 s.
    t0 = time.monotonic()
    pings = [t0]
    s.settimeout(0.1)
    while time.monotonic() - t0 < 3:
        try:
            m = s.recv(4096)
        except socket.timeout:
            continue
        if b"WATCHDOG=1" in m:
            pings.append(time.monotonic())
    pings.append(time.monotonic())
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    print("pings", len(pings) - 2, "maxgap_ms", int(max(gaps) * 1000))
finally:
    p.terminate()
    err = p.communicate(timeout=30)[1].decode()
ready = next(i for i, m in enumerate(msgs) if b"READY=1" in m)
print("extend-before-ready" if any(b"EXTEND_TIMEOUT_USEC=" in m for m in msgs[:ready]) else "no-extend")
print(" ".join(m.decode().replace("\n", "|") for m in msgs))
print("applied-before-ready" if "applied" in err or "already in force" in err else "no-apply")
print("exit", p.returncode)
EOF
	)
	check_err $? "the notify listener failed: $out"
	grep -E "READY=1" <<< "$out" > /dev/null
	check_err $? "no READY=1: $out"
	grep -E "STATUS=[0-9]+ RoCE NIC" <<< "$out" > /dev/null
	check_err $? "no STATUS=: $out"
	grep -E "READY=1\|STATUS=[0-9]+ RoCE NIC[^|]*; ready" <<< "$out" > /dev/null
	check_err $? "STATUS= with READY=1 does not say ready: $out"
	grep -x "applied-before-ready" <<< "$out" > /dev/null
	check_err $? "READY=1 before the start apply: $out"
	grep -x "exit 0" <<< "$out" > /dev/null
	check_err $? "SIGTERM did not exit 0: $out"
	grep -x "extend-before-ready" <<< "$out" > /dev/null
	check_err $? "no EXTEND_TIMEOUT_USEC= during the start apply: $out"
	pings=$(sed -n 's/^pings \([0-9]*\) maxgap_ms \(-*[0-9]*\)$/\1 \2/p' <<< "$out")
	echo "# WATCHDOG=1 in the 3 s after READY=1 (WATCHDOG_USEC=2000000): ${pings% *}, largest gap ${pings#* } ms"
	[ -n "$pings" ] && [ "${pings% *}" -ge 2 ] && [ "${pings#* }" -lt 2000 ]
	check_err $? "no WATCHDOG=1 within the watchdog's 2 s: $out"
	log_test "sd_notify: READY=1 after the start apply, STATUS=, EXTEND_TIMEOUT_USEC=, WATCHDOG=1"
}

hotplug_applies() {
	local t0 t1 lat

	RET=0
	t0=$(date +%s%N)
	echo "$HID mlx5" > "$SIM_BUS/new_device" ||
		check_err 1 "cannot add a simulated NIC"
	wait_log 30 "$HDEV: hotplug -> profile applied in"
	check_err $? "no hotplug apply: $(tail -5 "$LOG")"
	t1=$(date +%s%N)
	pfc_is "$HDEV" 3 true && pfc_is "$HDEV" 4 true
	check_err $? "dcb: PFC of $HDEV is $(dcb -j pfc show dev "$HDEV" | jq -c .prio_pfc)"
	lat=$(sed -n "s/.*$HDEV: hotplug -> profile applied in \([0-9.]*\) ms.*/\1/p" "$LOG" | head -n 1)
	[ -n "$lat" ]
	check_err $? "no latency logged"
	echo "# latency hotplug (module DEV_ADD -> applied, agent-measured): $lat ms; new_device -> seen applied by this script: $(((t1 - t0) / 1000000)) ms"
	# Set when the module knows the device, which may be after the apply.
	wait_for 30 storm_ms_is "rsim_ib$HID" 100
	check_err $? "module threshold of the new NIC: $(rt_json "$RT_CLI" -j config show dev "rsim_ib$HID" | jq -r '.storm_ms')"
	log_test "hotplug: a new NIC gets its profile"
}

drift_dcb_reapplied() {
	RET=0
	rt_dcb pfc set dev "$DEV" prio-pfc 3:off
	wait_log 30 "$DEV: drift \(DCB notification\): pfc is .*profile 50-main.conf wants"
	check_err $? "no drift logged: $(tail -5 "$LOG")"
	wait_for 30 pfc_is "$DEV" 3 true
	check_err $? "PFC on priority 3 not restored"
	log_has "$DEV: profile 50-main.conf applied \(drift\)"
	check_err $? "no drift re-apply logged"
	log_test "drift: a dcb change by hand is logged and restored"
}

drift_cc_polled() {
	RET=0
	echo 7 > "$CC/np_cnp_dscp"
	wait_log 30 "$DEV: drift \(poll\): dcqcn CNPDSCP is 7, profile 50-main.conf wants 46"
	check_err $? "no cc drift logged: $(tail -3 "$LOG")"
	wait_for 30 cc_is np_cnp_dscp 46
	check_err $? "np_cnp_dscp not restored: $(cat "$CC/np_cnp_dscp")"
	log_test "drift: a cc file change is found by polling and restored"
}

# The rxe DCQCN state as rocetune.ko reports it, read by the YNL client:
# "accounting np rp ai-rate min-rate".
rxe_state() {
	python3 "$RT_SELFTESTS/rt_qp.py" stats |
		jq -r ".[] | select(.dev_name == \"$RT_RXE0\") | [.qp_acct, .qp_np_enable, .qp_rp_enable, .qp_rp_ai_rate_mbps, .qp_rp_min_rate_mbps] | map(tostring) | join(\" \")"
}

rxe_state_is() {
	[ "$(rxe_state)" = "$1" ]
}

# Software RoCE: the profile's [DCQCN] goes to rocetune.ko when rxe0
# appears; a change by hand is found by the poll and written back.
drift_rxe_polled() {
	RET=0
	rt_wire_up
	check_err $? "Soft-RoCE wire setup failed"
	wait_log 60 "$RT_NETDEV0: .*profile 30-rxe.conf applied"
	check_err $? "no apply to $RT_NETDEV0 logged: $(tail -5 "$LOG")"
	expect "module state (YNL)" "$(rxe_state)" "1 1 1 9 40"
	"$RT_CLI" qp set dev "$RT_RXE0" rp-ai-rate-mbps 3 rp off
	check_err $? "qp set failed"
	wait_log 30 "$RT_NETDEV0: drift \(poll\): .*dcqcn AIRateMbps is 3, profile 30-rxe.conf wants 9"
	check_err $? "no rxe drift logged: $(tail -3 "$LOG")"
	wait_for 30 rxe_state_is "1 1 1 9 40"
	check_err $? "not restored: $(rxe_state)"
	rt_wire_down
	log_test "drift: rxe's DCQCN in rocetune.ko is applied, polled and restored"
}

drift_reported_only() {
	RET=0
	rt_dcb pfc set dev "$HDEV" prio-pfc 4:off
	wait_log 30 "$HDEV: drift \(DCB notification\): pfc is"
	check_err $? "no drift logged for $HDEV"
	wait_log 30 "$HDEV: drift reported only \(OnDrift=report\)"
	check_err $? "not reported as report-only"
	sleep 1.5	# a poll period: it must stay as it was set
	pfc_is "$HDEV" 4 false
	check_err $? "OnDrift=report: the agent wrote PFC back"
	log_has "$HDEV: profile 40-hot.conf applied \(drift\)"
	check_fail $? "OnDrift=report: a drift re-apply was logged"
	expect "status: drift state" \
		"$(status_json | jq -r ".nics[] | select(.netdev == \"$HDEV\") | .drift.state")" \
		reported
	rt_dcb pfc set dev "$HDEV" prio-pfc 4:on
	wait_for 30 pfc_is "$HDEV" 4 true
	log_test "drift: only reported under OnDrift=report"
}

# flap NETDEV SECS: toggle PFC on priority 3 every 100 ms for SECS over
# raw rtnetlink (a dcb per change costs a fork, seconds under emulation);
# prints the number of changes.
flap() {
	python3 -S - "$@" << 'EOF'
import socket, struct, sys, time
RTM_SETDCB, DCB_CMD_IEEE_SET = 79, 20
DCB_ATTR_IFNAME, DCB_ATTR_IEEE, DCB_ATTR_IEEE_PFC = 1, 13, 2


def attr(t, payload):
    a = struct.pack("=HH", 4 + len(payload), t) + payload
    return a + b"\0" * (-len(a) % 4)


dev, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
end, n = time.monotonic() + secs, 0
while time.monotonic() < end:
    pfc = struct.pack("=BBBxH2x16Q", 8, 0 if n % 2 == 0 else 8, 0, 0,
                      *([0] * 16))
    body = struct.pack("=BBH", 0, DCB_CMD_IEEE_SET, 0)
    body += attr(DCB_ATTR_IFNAME, dev.encode() + b"\0")
    body += attr(DCB_ATTR_IEEE | 0x8000, attr(DCB_ATTR_IEEE_PFC, pfc))
    s.send(struct.pack("=IHHII", 16 + len(body), RTM_SETDCB, 5, n + 1, 0)
           + body)
    s.recv(65536)
    n += 1
    time.sleep(0.1)
print(n)
EOF
}

flapping_setter_bounded() {
	local before after applies n

	RET=0
	before=$(log_count "$DEV: profile 50-main.conf applied \(drift\)")
	n=$(flap "$DEV" 5)
	check_err $? "the flapping setter failed"
	echo "# flapping setter: $n PFC changes in 5 s, one every 100 ms"
	wait_log 30 "$DEV: [0-9]+ drift re-applies within 600 s .* stops re-applying $DEV"
	check_err $? "the agent did not stop re-applying: $(tail -5 "$LOG")"
	after=$(log_count "$DEV: profile 50-main.conf applied \(drift\)")
	applies=$((after - before))
	# MaxReapplies=3, one drift re-apply was used by drift_dcb_reapplied
	# and drift_cc_polled took another.
	[ "$applies" -le 3 ]
	check_err $? "$applies drift re-applies during the flapping (limit 3)"
	expect "stop messages" \
		"$(log_count "$DEV: .* stops re-applying")" 1
	agent_alive
	check_err $? "the agent died"
	expect "status: suppressed" \
		"$(status_json | jq -r ".nics[] | select(.netdev == \"$DEV\") | .drift.suppressed")" \
		true
	curl -sf "http://127.0.0.1:$PORT/metrics" |
		grep -F "rocetune_agent_reapply_suppressed{netdev=\"$DEV\"} 1" > /dev/null
	check_err $? "not exported as suppressed"
	# A reload clears it and restores the NIC.
	kill -HUP "$AGENT_PID"
	wait_for 30 pfc_is "$DEV" 3 true
	check_err $? "PFC not restored after SIGHUP"
	wait_for 30 suppressed_is "$DEV" false
	check_err $? "still suppressed after SIGHUP"
	log_test "flapping setter: bounded re-applies, then the agent stops and says so"
}

# storm_stop ID: end the sim's pause storm on priority 3.
storm_stop() {
	echo "3 0 0" > "$DFS/$1/pfc_storm"
}

storm_timeout_restored() {
	local lat

	RET=0
	tout_is "$DEV" 500
	check_err $? "tunable not at the profile's 500 before the storm"
	# A storm until stopped: the action must hold until then, however
	# slow this VM is.
	echo "3 1000 0" > "$DFS/$ID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_for 30 tout_is "$DEV" 200
	check_err $? "storm: pfc-prevention-tout is $(tout "$DEV"), not 200"
	wait_log 30 "$DEV: pause storm on priority 3: pfc-prevention-tout 200 ms in force"
	check_err $? "no storm action logged: $(tail -5 "$LOG")"
	lat=$(sed -n "s/.*$DEV: pause storm on priority 3: pfc-prevention-tout 200 ms in force \([0-9.]*\) ms after.*/\1/p" "$LOG" | tail -n 1)
	echo "# latency storm STORM_START (kernel time) -> timeout applied: $lat ms (module interval 100 ms, StormMs=100)"
	storm_stop "$ID"
	wait_log 30 "$DEV: pause storm on priority 3 over after"
	check_err $? "no storm end"
	# RestoreAfterMs=1000 after the end.
	wait_for 30 tout_is "$DEV" 500
	check_err $? "not restored: pfc-prevention-tout is $(tout "$DEV")"
	log_has "$DEV: pause storms over for 1000 ms \(RestoreAfterMs=\): restoring profile 50-main.conf"
	check_err $? "no restore logged"
	log_has "$DEV: drift .*pfc-storm-timeout"
	check_fail $? "the storm action was taken for drift"
	log_test "storm: Action=timeout applied (ethtool) and restored"
}

# checks NETDEV: how many times the agent compared NETDEV with its profile.
checks() {
	status_json | jq -r ".nics[] | select(.netdev == \"$1\") | .drift.checks"
}

checks_at_least() {
	local n

	n=$(checks "$1") && [ -n "$n" ] && [ "$n" -ge "$2" ]
}

# The agent's log since line $1 about $HDEV's storm, as tokens.
storm_sequence() {
	tail -n +"$(($1 + 1))" "$LOG" |
		grep -E -o "$HDEV: (pause storm on priority 3: PFC off on it in force|pause storm on priority 3 over after|pause storms over for 1500 ms|profile 40-hot.conf applied \(storm restore\)|drift)" |
		sed -e 's/.*in force$/act/' -e 's/.*over after$/end/' \
		    -e 's/.*storms over for.*/hold-over/' \
		    -e 's/.*storm restore.*/restore/' -e 's/.*drift$/drift/' |
		tr '\n' ' '
}

storm_disable_pfc_restored() {
	local lat start c0

	RET=0
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 of $HDEV not on before the storm"
	start=$(wc -l < "$LOG")
	echo "3 1000 0" > "$DFS/$HID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_for 30 pfc_is "$HDEV" 3 false
	check_err $? "storm: PFC on priority 3 still on"
	pfc_is "$HDEV" 4 true
	check_err $? "storm: PFC on priority 4 was turned off too"
	wait_log 30 "$HDEV: pause storm on priority 3: PFC off on it in force"
	check_err $? "no storm action logged"
	lat=$(sed -n "s/.*$HDEV: pause storm on priority 3: PFC off on it in force \([0-9.]*\) ms after.*/\1/p" "$LOG" | tail -n 1)
	echo "# latency storm STORM_START (kernel time) -> PFC off (dcb) applied: $lat ms"
	# While the storm lasts the agent compares the NIC (its own write
	# notified RTNLGRP_DCB, and it polls every second) and keeps PFC off.
	c0=$(checks "$HDEV")
	wait_for 30 checks_at_least "$HDEV" $((c0 + 2))
	check_err $? "no comparison during the action"
	pfc_is "$HDEV" 3 false
	check_err $? "the agent reverted its own action"
	storm_stop "$HID"
	wait_for 30 pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 not restored"
	wait_log 30 "$HDEV: profile 40-hot.conf applied \(storm restore\)"
	check_err $? "no restore logged"
	# Restored only RestoreAfterMs=1500 after the storm's end, and never
	# taken for drift.
	expect "the agent's storm handling" "$(storm_sequence "$start")" \
		"act end hold-over restore "
	log_test "storm: Action=disable-pfc applied (dcb), held, restored"
}

# hold_lock NETDEV SECS: hold the NIC's lock as "rocetune profile apply"
# does (flock(2) on RUN_DIR/NETDEV.lock, here flock(1)) for SECS, in the
# background ($HOLD_PID); returns once it is held.
hold_lock() {
	flock -o "$ROCETUNE_RUN_DIR/$1.lock" sleep "$2" &
	HOLD_PID=$!
	wait_for 10 lock_held "$1"
}

lock_held() {
	! flock -n "$ROCETUNE_RUN_DIR/$1.lock" true
}

# metric NAME NETDEV: the value of the agent's series NAME{netdev=NETDEV}.
metric() {
	curl -sf "http://127.0.0.1:$PORT/metrics" |
		sed -n "s/^$1{netdev=\"$2\"} //p"
}

metric_is() {
	[ "$(metric "$1" "$2")" = "$3" ]
}

# pfc_within MS NETDEV PRIO STATE: poll dcb every 50 ms until PRIO's PFC
# is STATE; prints the milliseconds it took.
pfc_within() {
	local t0 t1

	t0=$(date +%s%N)
	while ! pfc_is "$2" "$3" "$4"; do
		[ $(($(date +%s%N) - t0)) -lt 10000000000 ] || break
		sleep 0.05
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
	pfc_is "$2" "$3" "$4" && [ $(((t1 - t0) / 1000000)) -lt "$1" ]
}

# A CLI applying a profile holds the NIC's lock when a storm starts: the
# agent writes nothing and reports no action while it cannot write, keeps
# serving (status answers), skips its drift checks, and the action lands
# as soon as the lock is free; the same for the restore.
storm_lock_held() {
	local t0 t1 ms start s0

	RET=0
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 of $HDEV not on before the storm"
	start=$(wc -l < "$LOG")
	s0=$(metric rocetune_agent_drift_checks_skipped_total "$HDEV")
	hold_lock "$HDEV" 5
	check_err $? "flock(1) did not take $ROCETUNE_RUN_DIR/$HDEV.lock"
	echo "3 1000 0" > "$DFS/$HID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_log 5 "$HDEV: pause storm on priority 3: the disable-pfc action waits for the NIC's lock"
	check_err $? "no waiting action logged: $(tail -3 "$LOG")"
	sleep 0.5	# 10 retries
	expect "waiting action logged (once, not at each 50 ms retry)" \
		"$(sed -n "$((start + 1)),\$p" "$LOG" | grep -c "$HDEV: pause storm on priority 3: the disable-pfc action waits")" 1
	t0=$(date +%s%N)
	expect "status while the lock is held: priorities waiting" \
		"$(status_json | jq -r ".nics[] | select(.netdev == \"$HDEV\") | .storm.waiting_prios")" 8
	t1=$(date +%s%N)
	echo "# rocetune agent status while a storm action waits for the lock: $(((t1 - t0) / 1000000)) ms"
	expect "rocetune_agent_storm_action_active while it cannot write" \
		"$(metric rocetune_agent_storm_action_active "$HDEV")" 0
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 written while the lock was held"
	lock_held "$HDEV"
	check_err $? "the hold ended before the checks: they prove nothing"
	wait "$HOLD_PID"
	HOLD_PID=
	ms=$(pfc_within 1000 "$HDEV" 3 false)
	check_err $? "PFC on priority 3 not off within 1 s of the lock's release ($ms ms)"
	echo "# latency lock released -> PFC off on priority 3 (dcb, polled every 50 ms): $ms ms"
	pfc_is "$HDEV" 4 true
	check_err $? "storm: PFC on priority 4 was turned off too"
	wait_log 5 "$HDEV: pause storm on priority 3: PFC off on it in force"
	check_err $? "no action logged"
	expect "rocetune_agent_storm_action_active once written" \
		"$(metric rocetune_agent_storm_action_active "$HDEV")" 1
	[ "$(metric rocetune_agent_drift_checks_skipped_total "$HDEV")" -gt "${s0:-0}" ]
	check_err $? "no drift check skipped during the hold (PollIntervalSec=1)"
	sed -n "$((start + 1)),\$p" "$LOG" | grep -E "$HDEV: drift" > /dev/null
	check_fail $? "a drift was taken during the hold: $(grep "$HDEV: drift" "$LOG" | tail -1)"

	# The restore (RestoreAfterMs=1500) falls within a hold of 4 s.
	storm_stop "$HID"
	wait_log 10 "$HDEV: pause storm on priority 3 over after"
	check_err $? "no storm end"
	hold_lock "$HDEV" 4
	check_err $? "flock(1) did not take the lock again"
	wait_log 5 "$HDEV: pause storms over for 1500 ms"
	check_err $? "no restore started"
	pfc_is "$HDEV" 3 false && lock_held "$HDEV"
	check_err $? "restored while the lock was held"
	wait "$HOLD_PID"
	HOLD_PID=
	ms=$(pfc_within 2000 "$HDEV" 3 true)
	check_err $? "PFC on priority 3 not restored within 2 s of the lock's release ($ms ms)"
	echo "# latency lock released -> PFC on again (restore, dcb): $ms ms"
	wait_for 5 metric_is rocetune_agent_storm_action_active "$HDEV" 0
	check_err $? "the action is still reported active after the restore"
	log_test "storm: a NIC lock held by another apply delays the action only until it is free"
}

# scrape_loop: scrape /metrics back to back until killed.
scrape_loop() {
	while :; do
		curl -s --max-time 60 "http://127.0.0.1:$PORT/metrics" > /dev/null
	done
}

# ready_code: the HTTP status of GET /ready; its body in $WORK/ready.
ready_code() {
	curl -s -o "$WORK/ready" -w '%{http_code}' "http://127.0.0.1:$PORT/ready"
}

ready_code_is() {
	[ "$(ready_code)" = "$1" ]
}

ready_metric() {
	curl -sf "http://127.0.0.1:$PORT/metrics" |
		sed -n 's/^rocetune_agent_ready //p'
}

# Readiness, what a rollout gates on: true after the start applies; a
# reload whose apply the NIC refuses (its cc files locked down, as under
# Secure Boot) makes GET /ready 503 naming the NIC and the result, the
# gauge 0 and "agent status" false, and the agent says so, as long as it
# lasts; once the profile is in force again, all are back to ready.
ready_endpoint() {
	RET=0
	# run alone (RT_ONLY_TESTS), the NIC hotplug_applies adds
	[ -e "/sys/class/net/$HDEV" ] || echo "$HID mlx5" > "$SIM_BUS/new_device" ||
		check_err 1 "cannot add a simulated NIC"
	restart_agent ready
	check_err $? "no start apply after the restart: $(tail -5 "$LOG")"
	wait_for 30 ready_code_is 200
	check_err $? "not ready after the start applies: $(ready_code) $(cat "$WORK/ready")"
	expect "GET /ready body" "$(cat "$WORK/ready")" "ready"
	expect "rocetune_agent_ready" "$(ready_metric)" 1
	expect "agent status .ready" "$(status_json | jq -c '[.ready, .not_ready]')" '[true,[]]'

	# the cc files refused as under Secure Boot lockdown, until undone
	echo 1 > "$DFS/$ID/cc_lockdown" ||
		check_err 1 "cannot set cc_lockdown"
	sed -i 's/^CNPDSCP=46$/CNPDSCP=44/' "$ROCETUNE_PROFILE_DIR/50-main.conf"
	kill -HUP "$AGENT_PID"
	wait_for 30 ready_code_is 503
	check_err $? "still ready with its cc files refused: $(cat "$WORK/ready")"
	grep -E "^$DEV: profile 50-main.conf: last apply invalid: .*[Ll]ockdown" "$WORK/ready" > /dev/null
	check_err $? "GET /ready does not name $DEV, its result and lockdown: $(cat "$WORK/ready")"
	expect "rocetune_agent_ready, cc files refused" "$(ready_metric)" 0
	expect "agent status .ready, cc files refused" \
		"$(status_json | jq -r '.ready, (.not_ready | length > 0)' | tr '\n' ' ')" "false true "
	wait_log 10 "not ready: .*$DEV: profile 50-main.conf: last apply invalid"
	check_err $? "no \"not ready\" logged: $(tail -3 "$LOG")"
	sleep 2		# two drift polls: still not ready
	expect "GET /ready, cc files refused 2 s later" "$(ready_code)" 503

	echo 0 > "$DFS/$ID/cc_lockdown"
	kill -HUP "$AGENT_PID"
	wait_for 30 ready_code_is 200
	check_err $? "not ready again after the profile landed: $(ready_code) $(cat "$WORK/ready")"
	cc_is np_cnp_dscp 44
	check_err $? "np_cnp_dscp $(cat "$CC/np_cnp_dscp"), the profile says 44"
	expect "rocetune_agent_ready again" "$(ready_metric)" 1
	wait_log 10 "ready: every NIC has its profile in force"
	check_err $? "no \"ready\" logged: $(tail -3 "$LOG")"

	write_main_profile
	kill -HUP "$AGENT_PID"
	wait_for 30 cc_is np_cnp_dscp 46
	check_err $? "the main profile not back in force"
	wait_for 30 ready_code_is 200
	check_err $? "not ready with the main profile: $(cat "$WORK/ready")"
	log_test "readiness: GET /ready, rocetune_agent_ready and agent status false while a reload's apply is refused, naming the NIC; true once it lands"
}

# held_count: how many scrape collections the agent has begun.
held_count() {
	log_count "metrics: collection held [0-9]+ ms"
}

# held_more N: more than N collections begun.
held_more() {
	[ "$(held_count)" -gt "$1" ]
}

# Scrapes whose collection is slowed to 3 s each (ROCETUNE_METRICS_DELAY_MS,
# a test hook, as a large QP table would), two scrapers back to back.  A
# storm starts 0.5 s into a collection, so a collection that held the
# event loop would hold the action back 2.5 s; the action must land
# within 1 s.  The storm's end is followed at once by one more scrape, so
# a collection in the loop would hold the restore (due 1.5 s later) past
# 3 s; it must land within 2.5 s.  Every scrape answers.
storm_slow_scrapes() {
	local lat ms out i cpid n0

	RET=0
	# run alone (RT_ONLY_TESTS), the NIC hotplug_applies adds
	[ -e "/sys/class/net/$HDEV" ] || echo "$HID mlx5" > "$SIM_BUS/new_device" ||
		check_err 1 "cannot add a simulated NIC"
	export ROCETUNE_METRICS_DELAY_MS=3000
	restart_agent scrapes
	check_err $? "no start apply after the restart: $(tail -5 "$LOG")"
	unset ROCETUNE_METRICS_DELAY_MS
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 of $HDEV not on before the storm"
	for i in 1 2; do
		scrape_loop &
		SCRAPE_PIDS+=("$!")
	done
	n0=$(held_count)
	curl -s --max-time 60 -o /dev/null -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$PORT/metrics" > "$WORK/scrape.out" &
	cpid=$!
	wait_for 10 held_more "$n0"
	check_err $? "no collection begun: $(tail -3 "$LOG")"
	sleep 0.5
	echo "3 1000 0" > "$DFS/$HID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	ms=$(pfc_within 1500 "$HDEV" 3 false)
	check_err $? "PFC on priority 3 not off within 1.5 s of the storm while scrapes run ($ms ms)"
	wait_log 10 "$HDEV: pause storm on priority 3: PFC off on it in force"
	check_err $? "no storm action logged: $(tail -3 "$LOG")"
	lat=$(sed -n "s/.*$HDEV: pause storm on priority 3: PFC off on it in force \([0-9.]*\) ms after.*/\1/p" "$LOG" | tail -n 1)
	echo "# latency storm STORM_START (kernel time) -> PFC off, 0.5 s into a 3 s collection: $lat ms (seen by dcb $ms ms after the storm began)"
	[ -n "$lat" ] && [ "${lat%.*}" -lt 1000 ]
	check_err $? "storm action $lat ms after STORM_START with scrapes running"
	wait "$cpid"
	out=$(cat "$WORK/scrape.out")
	echo "# a scrape (3 s collection) with 2 scrapers running: HTTP status and seconds $out"
	[ "${out%% *}" = 200 ]
	check_err $? "the scrape during the storm: $out"
	storm_stop "$HID"
	wait_log 10 "$HDEV: pause storm on priority 3 over after"
	check_err $? "no storm end"
	curl -s --max-time 60 -o /dev/null -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$PORT/metrics" > "$WORK/scrape.out" &
	cpid=$!
	# RestoreAfterMs=1500 after the end
	ms=$(pfc_within 2500 "$HDEV" 3 true)
	check_err $? "PFC on priority 3 not restored within 2.5 s of the storm's end ($ms ms)"
	echo "# latency storm end logged -> PFC on again (RestoreAfterMs=1500), a scrape begun at the end: $ms ms"
	wait "$cpid"
	out=$(cat "$WORK/scrape.out")
	[ "${out%% *}" = 200 ]
	check_err $? "the scrape after the storm: $out"
	kill "${SCRAPE_PIDS[@]}" 2> /dev/null
	wait "${SCRAPE_PIDS[@]}" 2> /dev/null
	SCRAPE_PIDS=()
	restart_agent plain
	check_err $? "no start apply after the restart without the hook"
	log_test "storm: the action and its restore land on time while slow scrapes run"
}

# Five clients connect to the status socket and say nothing: "rocetune
# agent status" and a scrape still answer within 1 s (each silent client
# used to cost the loop 1 s).
status_silent_clients() {
	local out rc ms len

	RET=0
	out=$(python3 - "$ROCETUNE_RUN_DIR/rocetuned.sock" "$RT_CLI" \
		"http://127.0.0.1:$PORT/metrics" << 'EOF'
import socket, subprocess, sys, time, urllib.request
path, cli, url = sys.argv[1:4]
silent = []
for i in range(5):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    silent.append(c)
time.sleep(0.2)
t0 = time.monotonic()
r = subprocess.run([cli, "-j", "agent", "status"], capture_output=True,
                   timeout=30)
t1 = time.monotonic()
body = urllib.request.urlopen(url, timeout=30).read()
t2 = time.monotonic()
print("status", r.returncode, int((t1 - t0) * 1000))
print("scrape", len(body), int((t2 - t1) * 1000))
# The silent ones are closed by the agent after its 1 s.
closed = 0
for c in silent:
    c.settimeout(5)
    try:
        closed += c.recv(1) == b""
    except OSError:
        pass
print("closed", closed)
EOF
	)
	check_err $? "the silent clients' script failed: $out"
	read -r _ rc ms <<< "$(grep '^status ' <<< "$out")"
	echo "# rocetune agent status with 5 silent clients: $ms ms"
	expect "agent status exit" "$rc" 0
	[ -n "$ms" ] && [ "$ms" -lt 1000 ]
	check_err $? "agent status took $ms ms: $out"
	read -r _ len ms <<< "$(grep '^scrape ' <<< "$out")"
	echo "# /metrics scrape with 5 silent status clients: $ms ms ($len bytes)"
	[ -n "$ms" ] && [ "$ms" -lt 1000 ] && [ "$len" -gt 0 ]
	check_err $? "the scrape took $ms ms: $out"
	expect "silent clients closed by the agent" \
		"$(sed -n 's/^closed //p' <<< "$out")" 5
	agent_alive
	check_err $? "the agent died"
	log_test "status: 5 silent clients delay neither agent status nor a scrape"
}

metrics_promtool() {
	local m=$WORK/metrics out

	RET=0
	curl -sf "http://127.0.0.1:$PORT/metrics" > "$m"
	check_err $? "scrape failed"
	[ -s "$m" ]
	check_err $? "empty scrape"
	out=$(promtool check metrics < "$m" 2>&1)
	check_err $? "promtool: $out"
	[ -z "$out" ]
	check_err $? "promtool findings: $out"
	grep -E "^rocetune_agent_profile_info\{netdev=\"$DEV\",device=\"rsim_ib$ID\",port=\"1\",profile=\"50-main.conf\"\} 1$" "$m" > /dev/null
	check_err $? "no profile info of $DEV"
	grep -E "^rocetune_agent_storm_actions_total\{netdev=\"$DEV\",action=\"timeout\"\} [1-9]" "$m" > /dev/null
	check_err $? "no storm action counted"
	grep -E "^rocetune_agent_storm_action_latency_seconds_count [1-9]" "$m" > /dev/null
	check_err $? "no storm latency"
	grep -E "^rocetune_agent_drift_events_total\{netdev=\"$DEV\",setting=\"pfc\"\} [1-9]" "$m" > /dev/null
	check_err $? "no drift counted"
	grep -E "^rocetune_agent_applies_total\{netdev=\"$DEV\",result=\"applied\"\} [1-9]" "$m" > /dev/null
	check_err $? "no applies counted"
	grep -E "^rocetune_pfc_rx_pause_total\{device=\"rsim_ib$ID\",port=\"1\"" "$m" > /dev/null
	check_err $? "no port series from the module"
	echo "# metrics: $(grep -c -v '^#' "$m") samples, $(grep -c '^# TYPE' "$m") families"
	# Prometheus keeps its connection: two scrapes, one connection.
	out=$(curl -sfv -o /dev/null -o /dev/null "http://127.0.0.1:$PORT/metrics" \
		"http://127.0.0.1:$PORT/metrics" 2>&1)
	check_err $? "two scrapes on one connection failed"
	expect "curl's reused connections" \
		"$(grep -c '^\* Re-using existing connection' <<< "$out")" 1
	log_test "metrics: promtool check metrics is clean; agent and port series; keep-alive"
}

prom_nics_is() {
	local out

	out=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query?query=rocetune_agent_nics") &&
		[ "$(jq -r '.data.result[0].value[1]' <<< "$out")" = "$1" ]
}

prom_up() {
	local out

	out=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query?query=up%7Bjob%3D%22rocetuned%22%7D") &&
		[ "$(jq -r '.data.result[0].value[1]' <<< "$out")" = 1 ]
}

prom_info() {
	curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query?query=rocetune_agent_profile_info%7Bnetdev%3D%22$1%22%7D"
}

prom_info_device_is() {
	local out

	out=$(prom_info "$1") &&
		[ "$(jq -r '.data.result[0].metric.device' <<< "$out")" = "$2" ]
}

# A real Prometheus server scrapes the agent and answers a query.
prometheus_scrapes() {
	local pid

	RET=0
	PROM_PORT=$((PORT + 1))
	mkdir -p "$WORK/prom"
	cat > "$WORK/prom/prometheus.yml" << EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rocetuned
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	prometheus --config.file="$WORK/prom/prometheus.yml" \
		--storage.tsdb.path="$WORK/prom/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		> "$WORK/prom/log" 2>&1 &
	pid=$!
	wait_for 120 prom_up
	check_err $? "Prometheus did not scrape the agent: $(tail -3 "$WORK/prom/log")"
	wait_for 30 prom_nics_is 2
	check_err $? "query rocetune_agent_nics did not answer 2"
	wait_for 30 prom_info_device_is "$DEV" "rsim_ib$ID"
	check_err $? "info series' device label through Prometheus: $(prom_info "$DEV")"
	kill "$pid"
	wait "$pid" 2> /dev/null
	log_test "Prometheus scrapes the agent and answers a query"
}

sighup_bad_profile_kept() {
	RET=0
	printf '[Match]\nName=%s\n[Lossless]\nPFC=9\n' "$DEV" \
		> "$ROCETUNE_PROFILE_DIR/10-broken.conf"
	kill -HUP "$AGENT_PID"
	wait_log 30 "profile reload failed: errors in .*; the 3 profiles loaded before stay in force"
	check_err $? "no reload failure logged: $(tail -3 "$LOG")"
	log_has "10-broken.conf:4: \[Lossless\] PFC=9"
	check_err $? "the error does not name file:line"
	agent_alive
	check_err $? "the agent died"
	expect "status: profile kept" \
		"$(status_json | jq -r ".nics[] | select(.netdev == \"$DEV\") | .profile" | sed 's#.*/##')" \
		50-main.conf
	expect "status: reload" "$(status_json | jq -r .last_reload_ok)" false
	# The old profile still works: drift is restored.
	rt_dcb pfc set dev "$DEV" prio-pfc 3:off
	wait_for 30 pfc_is "$DEV" 3 true
	check_err $? "the old profile is no longer in force"
	rm -f "$ROCETUNE_PROFILE_DIR/10-broken.conf"
	kill -HUP "$AGENT_PID"
	wait_for 30 reload_ok_is true
	check_err $? "a good reload is not ok"
	log_test "SIGHUP with a bad profile keeps the old ones and says why"
}

second_agent_refused() {
	local out rc

	RET=0
	out=$(timeout 20 "$RT_AGENT" --foreground 2>&1)
	rc=$?
	expect "exit status" "$rc" 1
	grep -E "another rocetuned is running \(pid $AGENT_PID; it holds the lock" <<< "$out" > /dev/null
	check_err $? "no clear error: $out"
	agent_alive
	check_err $? "the first agent died"
	log_test "a second agent refuses to start"
}

# A NIC without PFC= in its profile: the action must put back what it
# read before it, also from an agent started after a crash.
write_nopfc_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/45-nopfc.conf" << EOF
[Match]
Name=$FDEV

[Watchdog]
Action=disable-pfc
StormMs=100
RestoreAfterMs=1000
EOF
}

# sim_nic ID [PERSONALITY]: simulated NIC ID, added if it is not there,
# known to the CLI.
sim_nic() {
	[ -d "/sys/class/net/rsim$1" ] ||
		echo "$1 ${2:-mlx5}" > "$SIM_BUS/new_device" || return 1
	wait_for 30 "$RT_CLI" profile show dev "rsim$1"
}

# storms_are RDMADEV N: rocetune.ko says N priorities of RDMADEV storm.
storms_are() {
	[ "$(rt_json "$RT_CLI" -j -s port show "$1/1" |
		jq '[.. | objects | select(.storm == true)] | length')" = "$2" ]
}

# restart_agent [OPTION...]: a clean stop, then a new agent with a new log.
restart_agent() {
	if [ -n "$AGENT_PID" ]; then
		kill -TERM "$AGENT_PID"
		wait "$AGENT_PID"
	fi
	LOG=${LOG%.log}-$1.log
	shift
	start_agent "$@"
	wait_log 30 "$HDEV: profile 40-hot.conf (applied )?\(start\)"
}

# now_ms: the monotonic clock, in ms.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# kill -9 of the agent while its actions hold: the new agent keeps them
# (rocetune.ko's storm state, the record of what the action read) and
# restores PFC after RestoreAfterMs= of the storms' end.
storm_restart_resync() {
	local t0 th tf

	RET=0
	write_nopfc_profile
	kill -HUP "$AGENT_PID"
	wait_log 30 "profiles reloaded: 4 from"
	check_err $? "the new profile was not loaded: $(tail -3 "$LOG")"
	sim_nic "$FID"
	check_err $? "cannot add the simulated NIC $FDEV"
	wait_log 30 "$FDEV: hotplug -> profile applied in"
	check_err $? "$FDEV: no hotplug apply"
	# Lossless on 3 and 5, set by another tool: the profile leaves PFC be.
	rt_dcb pfc set dev "$FDEV" prio-pfc 3:on 5:on
	pfc_is "$FDEV" 3 true && pfc_is "$FDEV" 5 true
	check_err $? "dcb: PFC of $FDEV is $(dcb -j pfc show dev "$FDEV" | jq -c .prio_pfc)"
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 of $HDEV not on before the storm"
	{ echo "3 1000 0" > "$DFS/$HID/pfc_storm" &&
		echo "3 1000 0" > "$DFS/$FID/pfc_storm"; } ||
		check_err 1 "cannot inject the storms"
	wait_for 30 pfc_is "$HDEV" 3 false && wait_for 30 pfc_is "$FDEV" 3 false
	check_err $? "storm: PFC on priority 3 still on"
	pfc_is "$FDEV" 5 true
	check_err $? "storm: PFC on priority 5 of $FDEV was turned off too"
	kill -KILL "$AGENT_PID"
	wait "$AGENT_PID" 2> /dev/null
	AGENT_PID=
	LOG=${LOG%.log}-restart.log
	start_agent
	wait_log 30 "$HDEV: profile 40-hot.conf (applied )?\(start\)"
	check_err $? "no start apply after the restart: $(tail -5 "$LOG")"
	# The storms last: the actions hold, through drift checks.
	pfc_is "$HDEV" 3 false
	check_err $? "the start apply turned PFC on again on a storming priority"
	log_has "$FDEV: a storm action of a previous rocetuned is in force"
	check_err $? "$FDEV: the previous agent's action not taken over"
	wait_for 30 checks_at_least "$HDEV" 2
	check_err $? "no comparison after the restart"
	pfc_is "$HDEV" 3 false && pfc_is "$FDEV" 3 false
	check_err $? "the new agent reverted the action while the storm lasts"
	t0=$(now_ms)
	storm_stop "$HID"
	storm_stop "$FID"
	wait_for 30 pfc_is "$HDEV" 3 true
	check_err $? "$HDEV: PFC on priority 3 not restored"
	th=$(($(now_ms) - t0))
	wait_for 30 pfc_is "$FDEV" 3 true
	check_err $? "$FDEV: PFC on priority 3 not restored to what it was"
	tf=$(($(now_ms) - t0))
	pfc_is "$FDEV" 5 true && pfc_is "$HDEV" 4 true
	check_err $? "the restore changed another priority"
	echo "# storm end -> PFC back (dcb), after the restart: $HDEV $th ms (RestoreAfterMs=1500), $FDEV $tf ms (RestoreAfterMs=1000)"
	[ "$th" -ge 1500 ] && [ "$th" -le 11500 ]
	check_err $? "$HDEV restored $th ms after the end, not in 1500..11500"
	[ "$tf" -ge 1000 ] && [ "$tf" -le 11000 ]
	check_err $? "$FDEV restored $tf ms after the end, not in 1000..11000"
	[ ! -e "$ROCETUNE_RUN_DIR/$FDEV.storm" ]
	check_err $? "the record of the action is left after the restore"
	log_test "storm: kill -9 of the agent mid-storm; the new one keeps the action, then restores"
}

# Pause storms on four priorities of a NIC without a profile (the sim
# grows at most 8 counters at once, two per storm): 8 events.
flood_round() {
	local p

	for p in 0 1 2 3; do
		echo "$p 1000 0" > "$DFS/$GID/pfc_storm" || return 1
	done
	wait_for 10 storms_are "rsim_ib$GID" 4 || return 1
	for p in 0 1 2 3; do
		echo "$p 0 0" > "$DFS/$GID/pfc_storm" || return 1
	done
	wait_for 10 storms_are "rsim_ib$GID" 0
}

# STORM_END lost: the agent is stopped (SIGSTOP) while a flood of events
# fills its event socket (--event-buffer 4096), then the storm ends, and
# its STORM_END is dropped.  After SIGCONT the agent reads the overrun,
# takes the storm state from rocetune.ko and restores PFC.
storm_end_lost() {
	local t0 t1 r n

	RET=0
	sim_nic "$GID" ||
		check_err 1 "cannot add the simulated NIC rsim$GID"
	"$RT_CLI" config set dev "rsim_ib$GID" storm-ms 10 ||
		check_err 1 "cannot set the storm threshold of rsim_ib$GID"
	# No periodic rescan (it would resynchronise too) during the test.
	restart_agent lost --event-buffer 4096 --poll-interval 3600
	check_err $? "no start apply: $(tail -5 "$LOG")"
	pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 of $HDEV not on before the storm"
	echo "3 1000 0" > "$DFS/$HID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_log 30 "$HDEV: pause storm on priority 3: PFC off on it in force"
	check_err $? "no storm action"
	pfc_is "$HDEV" 3 false
	check_err $? "storm: PFC on priority 3 still on"
	kill -STOP "$AGENT_PID"
	for r in 1 2 3 4 5; do
		flood_round
		check_err $? "event flood round $r failed"
	done
	storm_stop "$HID"
	wait_for 10 storms_are "rsim_ib$HID" 0
	check_err $? "the storm of $HDEV did not end"
	t0=$(now_ms)
	kill -CONT "$AGENT_PID"
	wait_for 30 pfc_is "$HDEV" 3 true
	check_err $? "PFC on priority 3 not restored after the lost STORM_END: $(grep -E "$HDEV|lost" "$LOG" | tail -5)"
	t1=$(($(now_ms) - t0))
	echo "# lost STORM_END: SIGCONT -> PFC back (dcb): $t1 ms (RestoreAfterMs=1500)"
	log_has "events from rocetune.ko were lost \(socket overrun\)"
	check_err $? "no overrun logged"
	log_has "$HDEV: pause storm on priority 3 over after"
	check_fail $? "the STORM_END was not lost: the test proves nothing"
	log_has "$HDEV: storm state resynchronised \(events lost\)"
	check_err $? "no resynchronisation logged"
	n=$(curl -sf "http://127.0.0.1:$PORT/metrics" |
		sed -n 's/^rocetune_agent_event_overruns_total //p')
	[ -n "$n" ] && [ "$n" -ge 1 ]
	check_err $? "rocetune_agent_event_overruns_total is '$n'"
	[ "$t1" -ge 1500 ] && [ "$t1" -le 11500 ]
	check_err $? "restored $t1 ms after SIGCONT, not in 1500..11500"
	log_test "storm: a STORM_END lost in an event overrun; resynchronised, PFC back"
}

# Action=timeout without PFCStormTimeoutMs= on a NIC whose tunable cannot
# be read (the irdma personality has none): the value to restore is
# unknown, so the action is not taken, nothing is written, and the agent
# says so once and counts it.
storm_action_skipped() {
	local kdev=rsim$KID c0 n

	RET=0
	cat > "$ROCETUNE_PROFILE_DIR/46-skip.conf" << EOF
[Match]
Name=$kdev

[Watchdog]
Action=timeout
TimeoutMs=200
StormMs=100
RestoreAfterMs=500
EOF
	kill -HUP "$AGENT_PID"
	wait_log 30 "profiles reloaded: [0-9]+ from"
	check_err $? "the new profile was not loaded: $(tail -3 "$LOG")"
	sim_nic "$KID" irdma
	check_err $? "cannot add the simulated NIC $kdev"
	wait_log 30 "$kdev: hotplug -> profile applied in"
	check_err $? "$kdev: no hotplug apply: $(tail -3 "$LOG")"
	wait_for 30 storm_ms_is "rsim_ib$KID" 100
	check_err $? "module threshold of $kdev not set"
	c0=$(cat "$DFS/$KID/set_count")
	echo "3 1000 0" > "$DFS/$KID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_log 30 "$kdev: pause storm on priority 3: NO timeout action \(tout-read-failed: .*\): nothing written"
	check_err $? "no skipped action logged: $(grep -F "$kdev" "$LOG" | tail -3)"
	# It tries again every 200 ms: said once, counted each time.
	sleep 1
	expect "skips logged at error level" \
		"$(log_count "error: $kdev: pause storm on priority 3: NO timeout action")" 1
	n=$(curl -sf "http://127.0.0.1:$PORT/metrics" |
		sed -n "s/^rocetune_agent_storm_actions_skipped_total{netdev=\"$kdev\",reason=\"tout-read-failed\"} //p")
	[ -n "$n" ] && [ "$n" -ge 2 ]
	check_err $? "rocetune_agent_storm_actions_skipped_total of $kdev is '$n', not >= 2"
	expect "set operations on $kdev during the storm" \
		"$(cat "$DFS/$KID/set_count")" "$c0"
	echo "3 0 0" > "$DFS/$KID/pfc_storm"
	wait_log 30 "$kdev: pause storms over \(no action was in force: nothing to restore\)"
	check_err $? "no storm end, or a restore: $(grep -F "$kdev" "$LOG" | tail -3)"
	expect "set operations on $kdev after the storm" \
		"$(cat "$DFS/$KID/set_count")" "$c0"
	log_test "storm: an action whose state cannot be read is not taken, and said (once)"
}

sigterm_stops() {
	local rc

	RET=0
	kill -TERM "$AGENT_PID"
	timeout 10 tail --pid="$AGENT_PID" -f /dev/null
	check_err $? "the agent did not stop"
	wait "$AGENT_PID"
	rc=$?
	AGENT_PID=
	expect "exit status" "$rc" 0
	[ ! -e "$ROCETUNE_RUN_DIR/rocetuned.sock" ]
	check_err $? "the status socket is left behind"
	"$RT_CLI" agent status > /dev/null 2>&1
	check_fail $? "agent status succeeds without an agent"
	log_test "SIGTERM: a clean stop"
}

rt_require_root
rt_require_cmd dcb ethtool jq curl promtool prometheus python3
setup || rt_setup_failed "simulated NIC, rocetune.ko or the profiles"
rt_run_tests
