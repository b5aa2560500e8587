#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# hotplug.sh - runs in the test VM booted with systemd as PID 1 (vm.sh) on
# a root where install_dkms.sh ran "make install-tools" and "make
# dkms-install".  The real chain is tested: a uevent -> systemd-udevd
# applies 90-rocetune.rules -> PID 1 starts rocetune-apply@NETDEV.service
# -> "rocetune profile apply dev NETDEV" -> the NIC's DCB state, read back
# with dcb.  Each apply is timed from the device's creation to the unit
# having run.  Removing a device stops its unit without failure; adding it
# again applies again.  rocetuned.service (Type=notify, sandboxed) starts,
# is READY with its STATUS=, puts back what was changed on the sim NIC by
# hand (dcb and its DCQCN debugfs file), stays running when the NIC goes,
# and stops cleanly.  An rxe device on a veth whose name needs systemd
# escaping starts the unit through the infiniband rule.  A bnxt_re sim NIC
# gets its DCQCN settings through the unit, in bnxt_re's mode-0400 debugfs
# files (the unit's CAP_DAC_OVERRIDE).

ALL_TESTS="
	boot_systemd
	dkms_module
	sim_apply
	sim_remove
	sim_readd
	agent_start
	agent_nic_removed
	agent_stop
	rxe_apply
	rxe_remove
	bnxt_apply
	no_failed_units
"

source "$(dirname "$0")/../lib.sh"

SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
SIM_DEV=rsim$SIM_ID
SIM_UNIT=rocetune-apply@$SIM_DEV.service
# A veth name with a '-': its unit name is escaped (rt\x2dva).
RXE_NETDEV=rt-va
RXE_PEER=rt-vb
RXE_DEV=rxe_rt0
RXE_UNIT='rocetune-apply@rt\x2dva.service'
PROFILE=/etc/rocetune/10-selftest-sim.conf
SIM_CC=/sys/kernel/debug/mlx5/rocetune_sim$SIM_ID/cc_params
BNXT_ID=$((SIM_ID + 1))
BNXT_DEV=rsim$BNXT_ID
BNXT_UNIT=rocetune-apply@$BNXT_DEV.service
BNXT_PROFILE=/etc/rocetune/20-selftest-bnxt.conf
BNXT_CC=/sys/kernel/debug/bnxt_re/rocetune_sim$BNXT_ID/cc_config
AGENT=rocetuned.service
agent_pid=
# Seconds from a device's creation to its profile applied.
APPLY_SECS=${APPLY_SECS:-120}
first_invocation=

cleanup() {
	systemctl stop "$AGENT" 2> /dev/null
	rdma link del "$RXE_DEV" 2> /dev/null
	ip link del "$RXE_NETDEV" 2> /dev/null
	[ -e "$SIM_BUS/devices/rocetune_sim$SIM_ID" ] && echo "$SIM_ID" > "$SIM_BUS/del_device"
	[ -e "$SIM_BUS/devices/rocetune_sim$BNXT_ID" ] && echo "$BNXT_ID" > "$SIM_BUS/del_device"
	rm -f "$PROFILE" "$BNXT_PROFILE"
	rm -rf "${RT_TMP:-}"
}
trap cleanup EXIT

# up_ms: milliseconds since boot (CLOCK_MONOTONIC in this guest), as
# systemd's *TimestampMonotonic (microseconds).
up_ms() {
	local up

	read -r up _ < /proc/uptime
	echo $((10#${up/./} * 10))
}

# applied_ms UNIT T0: milliseconds from T0 (up_ms) to UNIT becoming active,
# by systemd's own timestamp (not by when the polling noticed).
applied_ms() {
	local t

	t=$(prop "$1" ActiveEnterTimestampMonotonic)
	echo $((t / 1000 - $2))
}

prop() {
	systemctl show -p "$2" --value "$1"
}

# wait_state UNIT STATE SECS: until UNIT's ActiveState is STATE; a failed
# unit stays failed, so that ends the wait at once.
wait_state() {
	local unit=$1 state=$2 deadline=$(($(date +%s) + $3)) now

	while now=$(prop "$unit" ActiveState) && [ "$now" != "$state" ]; do
		[ "$now" != failed ] && [ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# unit_ok UNIT: it ran to the end with exit status 0 and is not failed.
unit_ok() {
	local unit=$1

	[ "$(prop "$unit" Result)" = success ] &&
		[ "$(prop "$unit" ExecMainStatus)" = 0 ] &&
		[ "$(prop "$unit" ActiveState)" = active ]
}

failed_units() {
	systemctl list-units --failed --plain --no-legend --no-pager | awk '{print $1}'
}

# sim_applied: the sim NIC is as the profile says (read with dcb, and its
# mlx5-like DCQCN file in debugfs).
sim_applied() {
	local pfc app cnp

	pfc=$(dcb pfc show dev "$SIM_DEV" prio-pfc) &&
		app=$(dcb -N app show dev "$SIM_DEV" dscp-prio) &&
		read -r cnp < "$SIM_CC/np_cnp_dscp" || return 1
	[[ " $pfc " == *" 3:on "* ]] && ! [[ $pfc =~ [0-24-7]:on ]] &&
		[[ " $app " == *" 26:3 "* ]] && [ "$cnp" = 46 ]
}

sim_state() {
	echo "$(dcb pfc show dev "$SIM_DEV" prio-pfc); $(dcb -N app show dev "$SIM_DEV" dscp-prio);" \
		"np_cnp_dscp $(cat "$SIM_CC/np_cnp_dscp")"
}

# agent_journal [ARGS]: the agent's journal of this boot (one journalctl:
# each fork costs 0.1-0.3 s under emulation).
agent_journal() {
	journalctl -b -u "$AGENT" -o cat --no-pager "$@"
}

# agent_logged ERE: the agent's journal has a line matching ERE.
agent_logged() {
	agent_journal | grep -E -q -- "$1"
}

# agent_running: active, running, its first main process, never restarted
# (one systemctl; messages are made only on failure, for the same reason).
agent_running() {
	[ "$(systemctl show -p ActiveState,SubState,MainPID,NRestarts "$AGENT" | sort |
		tr '\n' ' ')" = "ActiveState=active MainPID=$agent_pid NRestarts=0 SubState=running " ]
}

agent_state() {
	systemctl show -p ActiveState,SubState,Result,ExecMainStatus,MainPID,NRestarts,StatusText \
		"$AGENT" | tr '\n' ' '
}

boot_systemd() {
	RET=0
	[ "$(cat /proc/1/comm)" = systemd ]
	check_err $? "PID 1 is $(cat /proc/1/comm), not systemd"
	systemctl is-active --quiet systemd-udevd.service
	check_err $? "systemd-udevd is not running"
	[ -z "$(failed_units)" ]
	check_err $? "failed units after boot: $(failed_units | tr '\n' ' ')"
	log_test "systemd is PID 1, udevd runs, no failed unit (test started at $(cut -d' ' -f1 /proc/uptime)s)"
}

dkms_module() {
	local kv path

	RET=0
	kv=$(uname -r)
	[ -d /sys/module/rocetune ]
	check_err $? "rocetune.ko was not loaded at boot"
	# By identifier, not unit: early in a slow boot systemd-modules-load
	# may log to the kernel ring buffer, which journald imports later.
	journalctl -b -t systemd-modules-load -o cat |
		grep -q "Inserted module 'rocetune'"
	check_err $? "systemd-modules-load did not load rocetune"
	path=$(modinfo -n rocetune)
	case $path in
	/lib/modules/$kv/updates/dkms/rocetune.ko*) ;;
	*) check_err 1 "modinfo finds $path, not the DKMS module" ;;
	esac
	[ -e /sys/module/ib_core/holders/rocetune ]
	check_err $? "rocetune does not hold ib_core"
	[ -d "/var/lib/dkms/rocetune/$(cat "$RT_TOP/VERSION")/$kv" ]
	check_err $? "dkms has no build of rocetune for $kv"
	modprobe -r rocetune && modprobe rocetune && [ -d /sys/module/rocetune ]
	check_err $? "modprobe -r rocetune; modprobe rocetune failed"
	log_test "the DKMS-installed rocetune.ko loaded at boot (modules-load.d); modprobe works"
}

sim_apply() {
	local t0

	RET=0
	if [ ! -d /sys/module/rocetune_sim ]; then
		rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko
		check_err $? "cannot load rocetune_sim"
	fi
	cat > "$PROFILE" <<- EOF
		[Match]
		Driver=mlx5_core
		Name=$SIM_DEV

		[Lossless]
		Trust=dscp
		PFC=3
		DSCPToPriority=26:3

		[DCQCN]
		CNPDSCP=46
	EOF
	t0=$(up_ms)
	echo "$SIM_ID mlx5" > "$SIM_BUS/new_device"
	check_err $? "new_device failed"
	wait_state "$SIM_UNIT" active "$APPLY_SECS"
	check_err $? "$SIM_UNIT is $(prop "$SIM_UNIT" ActiveState) after ${APPLY_SECS}s"
	unit_ok "$SIM_UNIT"
	check_err $? "$SIM_UNIT: result $(prop "$SIM_UNIT" Result), exit $(prop "$SIM_UNIT" ExecMainStatus)"
	sim_applied
	check_err $? "$SIM_DEV is not as the profile says: $(sim_state)"
	first_invocation=$(prop "$SIM_UNIT" InvocationID)
	journalctl -b -u "$SIM_UNIT" -o cat --no-pager | sed 's/^/#   /'
	udevadm info -q property "/sys/class/net/$SIM_DEV" | grep '^ROCETUNE_WANTS=' | sed 's/^/#   net: /'
	log_test "sim NIC $SIM_DEV: rule -> $SIM_UNIT -> profile applied (dcb, cc_params) in $(applied_ms "$SIM_UNIT" "$t0") ms"
}

sim_remove() {
	RET=0
	echo "$SIM_ID" > "$SIM_BUS/del_device"
	check_err $? "del_device failed"
	wait_state "$SIM_UNIT" inactive 30
	check_err $? "$SIM_UNIT is $(prop "$SIM_UNIT" ActiveState) after the NIC went"
	[ -z "$(failed_units)" ]
	check_err $? "failed units: $(failed_units | tr '\n' ' ')"
	log_test "sim NIC removed: $SIM_UNIT stopped, no failed unit"
}

sim_readd() {
	local t0

	RET=0
	t0=$(up_ms)
	echo "$SIM_ID mlx5" > "$SIM_BUS/new_device"
	check_err $? "new_device failed"
	wait_state "$SIM_UNIT" active "$APPLY_SECS"
	check_err $? "$SIM_UNIT is $(prop "$SIM_UNIT" ActiveState) after ${APPLY_SECS}s"
	unit_ok "$SIM_UNIT"
	check_err $? "$SIM_UNIT: result $(prop "$SIM_UNIT" Result), exit $(prop "$SIM_UNIT" ExecMainStatus)"
	[ "$(prop "$SIM_UNIT" InvocationID)" != "$first_invocation" ]
	check_err $? "$SIM_UNIT did not run again"
	sim_applied
	check_err $? "the new $SIM_DEV is not as the profile says: $(sim_state)"
	log_test "sim NIC added again: applied again in $(applied_ms "$SIM_UNIT" "$t0") ms"
}

# The agent's unit as installed: its start (Type=notify: systemctl start
# returns at READY=1, which the agent sends after its start apply) puts
# back a PFC and a DCQCN setting changed by hand, through the sandbox
# (CapabilityBoundingSet=, ProtectSystem=strict, debugfs writable).
agent_start() {
	local t0 t1 log l

	RET=0
	{ rt_dcb pfc set dev "$SIM_DEV" prio-pfc 3:off && echo 7 > "$SIM_CC/np_cnp_dscp"; } ||
		check_err 1 "cannot change $SIM_DEV by hand"
	! sim_applied || check_err 1 "$SIM_DEV is still as its profile says: $(sim_state)"
	t0=$(up_ms)
	systemctl start "$AGENT" || check_err 1 "systemctl start $AGENT failed: $(agent_state)"
	t1=$(up_ms)
	agent_pid=$(prop "$AGENT" MainPID)
	agent_running || check_err 1 "$AGENT is not running: $(agent_state)"
	[[ $(prop "$AGENT" StatusText) == "1 RoCE NIC, 1 with a profile; "* ]] ||
		check_err 1 "$AGENT status: $(agent_state)"
	sim_applied || check_err 1 "$SIM_DEV is not as the profile says after the start: $(sim_state)"
	log=$(agent_journal)
	grep -E -q "^$SIM_DEV: profile ${PROFILE##*/} applied \(start\)" <<< "$log" ||
		check_err 1 "the agent logged no start apply on $SIM_DEV"
	while IFS= read -r l; do echo "#   $l"; done <<< "$log"
	log_test "$AGENT: READY in $((t1 - t0)) ms (systemctl start), profile put back on $SIM_DEV (dcb, cc_params)"
}

agent_nic_removed() {
	RET=0
	echo "$SIM_ID" > "$SIM_BUS/del_device" || check_err 1 "del_device failed"
	wait_for 30 agent_logged "^$SIM_DEV: gone" ||
		check_err 1 "the agent did not see $SIM_DEV go"
	agent_running || check_err 1 "$AGENT is not running after the NIC went: $(agent_state)"
	[ -z "$(failed_units)" ] || check_err 1 "failed units: $(failed_units | tr '\n' ' ')"
	agent_journal -p err > "$RT_TMP/agent-errors"
	[ ! -s "$RT_TMP/agent-errors" ] ||
		check_err 1 "errors in the agent's journal: $(head -n 3 "$RT_TMP/agent-errors")"
	log_test "sim NIC removed: $AGENT still running (same pid), no failed unit, no error logged"
}

# Result=success and exit status 0: the agent ended on SIGTERM by itself.
agent_stop() {
	local t0 t1

	RET=0
	t0=$(up_ms)
	systemctl stop "$AGENT" || check_err 1 "systemctl stop $AGENT failed"
	t1=$(up_ms)
	[ "$(systemctl show -p ActiveState,Result,ExecMainStatus "$AGENT" | sort | tr '\n' ' ')" = \
		"ActiveState=inactive ExecMainStatus=0 Result=success " ] ||
		check_err 1 "$AGENT after stop: $(agent_state)"
	agent_journal -p err > "$RT_TMP/agent-errors"
	[ ! -s "$RT_TMP/agent-errors" ] ||
		check_err 1 "errors in the agent's journal: $(head -n 3 "$RT_TMP/agent-errors")"
	log_test "systemctl stop $AGENT: inactive in $((t1 - t0)) ms, exit status 0, no error logged"
}

rxe_apply() {
	local t0

	RET=0
	ip link add "$RXE_NETDEV" type veth peer name "$RXE_PEER" &&
		ip link set "$RXE_NETDEV" up && ip link set "$RXE_PEER" up
	check_err $? "cannot create the veth pair"
	udevadm settle -t 30
	[ "$(prop "$RXE_UNIT" ActiveState)" = inactive ]
	check_err $? "a veth without an RDMA device started $RXE_UNIT"
	t0=$(up_ms)
	rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV"
	check_err $? "rdma link add failed"
	wait_state "$RXE_UNIT" active "$APPLY_SECS"
	check_err $? "$RXE_UNIT is $(prop "$RXE_UNIT" ActiveState) after ${APPLY_SECS}s"
	# No profile matches a veth: exit 0, nothing changed.
	unit_ok "$RXE_UNIT"
	check_err $? "$RXE_UNIT: result $(prop "$RXE_UNIT" Result), exit $(prop "$RXE_UNIT" ExecMainStatus)"
	journalctl -b -u "$RXE_UNIT" -o cat --no-pager | sed 's/^/#   /'
	udevadm info -q property "/sys/class/infiniband/$RXE_DEV" | grep '^ROCETUNE_WANTS=' |
		sed 's/^/#   infiniband: /'
	log_test "rxe on $RXE_NETDEV: infiniband rule -> $RXE_UNIT (escaped) ran in $(applied_ms "$RXE_UNIT" "$t0") ms"
}

rxe_remove() {
	RET=0
	rdma link del "$RXE_DEV" && ip link del "$RXE_NETDEV"
	check_err $? "cannot remove rxe and the veth"
	wait_state "$RXE_UNIT" inactive 30
	check_err $? "$RXE_UNIT is $(prop "$RXE_UNIT" ActiveState) after its netdev went"
	[ -z "$(failed_units)" ]
	check_err $? "failed units: $(failed_units | tr '\n' ' ')"
	log_test "rxe and its netdev removed: $RXE_UNIT stopped, no failed unit"
}

# bnxt_re's cc_config files are mode 0400 (bnxt_re/debugfs.c, Linux 6.12):
# root writes them only with CAP_DAC_OVERRIDE, which the installed unit
# must keep in its bounding set.
bnxt_apply() {
	local t0 ms caps mode g dscp

	RET=0
	cat > "$BNXT_PROFILE" <<- EOF
		[Match]
		Driver=bnxt_en
		Name=$BNXT_DEV

		[DCQCN]
		Enable=yes
		CNPDSCP=46
		G=4
	EOF
	t0=$(up_ms)
	echo "$BNXT_ID bnxt_re" > "$SIM_BUS/new_device"
	check_err $? "new_device bnxt_re failed"
	wait_state "$BNXT_UNIT" active "$APPLY_SECS"
	check_err $? "$BNXT_UNIT is $(prop "$BNXT_UNIT" ActiveState) after ${APPLY_SECS}s"
	journalctl -b -u "$BNXT_UNIT" -o cat --no-pager | sed 's/^/#   /'
	unit_ok "$BNXT_UNIT"
	check_err $? "$BNXT_UNIT: result $(prop "$BNXT_UNIT" Result), exit $(prop "$BNXT_UNIT" ExecMainStatus)"
	caps=" $(prop "$BNXT_UNIT" CapabilityBoundingSet) "
	[[ $caps == *" cap_dac_override "* && $caps == *" cap_net_admin "* ]]
	check_err $? "$BNXT_UNIT's CapabilityBoundingSet is$caps"
	mode=$(stat -c '%a %U' "$BNXT_CC/run_avg_weight_g")
	[ "$mode" = "400 root" ]
	check_err $? "$BNXT_CC/run_avg_weight_g is $mode, not 400 root"
	read -r g < "$BNXT_CC/run_avg_weight_g" && read -r dscp < "$BNXT_CC/alt_vlan_dscp"
	check_err $? "cannot read $BNXT_CC"
	[ "$g" = 4 ] && [ "$dscp" = 46 ]
	check_err $? "$BNXT_DEV: run_avg_weight_g $g, alt_vlan_dscp $dscp (not 4, 46)"
	ms=$(applied_ms "$BNXT_UNIT" "$t0")
	echo "$BNXT_ID" > "$SIM_BUS/del_device"
	check_err $? "del_device bnxt_re failed"
	wait_state "$BNXT_UNIT" inactive 30
	check_err $? "$BNXT_UNIT is $(prop "$BNXT_UNIT" ActiveState) after the NIC went"
	log_test "bnxt_re sim NIC: $BNXT_UNIT (${caps:1:-1}) wrote its 0400 cc_config files in $ms ms"
}

no_failed_units() {
	RET=0
	[ -z "$(failed_units)" ]
	check_err $? "failed units: $(failed_units | tr '\n' ' ')"
	journalctl -b -p err -o cat --no-pager | grep -i rocetune > "$RT_TMP/errors"
	[ ! -s "$RT_TMP/errors" ]
	check_err $? "errors in the journal: $(head -n 3 "$RT_TMP/errors")"
	log_test "no failed unit, no rocetune error in the journal"
}

rt_require_root
RT_TMP=$(mktemp -d)
rt_run_tests
