#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune_sim devices come and go at run time through the normal kernel
# paths: each add and remove sends uevents for the bus device, its netdev
# and its RDMA device, leaves nothing behind, and survives 100 cycles,
# with rocetune.ko loaded.  Module unload removes the
# devices that are left.  The VM harness fails the test on any oops,
# warning or leaked netdev reference in the kernel log.

ALL_TESTS="
	add_del_uevents
	add_del_100
	del_while_busy
	rmmod_with_devices
"

source "$(dirname "$0")/lib.sh"

SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
CYCLES=${SIM_CYCLES:-100}
monitor_pid=
kmod_loaded_here=0

sim_load() {
	[ -d /sys/module/rocetune_sim ] ||
		rt_modload rocetune_sim selftests/rocetune_sim/rocetune_sim.ko
}

sim_present() {
	local id=$1

	[ -d "$SIM_BUS/devices/rocetune_sim$id" ] &&
		[ -d "/sys/class/net/rsim$id" ] &&
		[ -d "/sys/class/infiniband/rsim_ib$id" ] &&
		[ -d "/sys/kernel/debug/rocetune_sim/$id" ]
}

sim_absent() {
	local id=$1

	[ ! -e "$SIM_BUS/devices/rocetune_sim$id" ] &&
		[ ! -e "/sys/class/net/rsim$id" ] &&
		[ ! -e "/sys/class/infiniband/rsim_ib$id" ] &&
		[ ! -e "/sys/kernel/debug/rocetune_sim/$id" ]
}

add_del_uevents() {
	local log=$RT_TMP/uevents n ev

	RET=0
	udevadm monitor --kernel --subsystem-match=rocetune_sim \
		--subsystem-match=net --subsystem-match=infiniband > "$log" &
	monitor_pid=$!
	sleep 1
	echo "$SIM_ID mlx5" > "$SIM_BUS"/new_device
	check_err $? "new_device failed"
	sim_present "$SIM_ID"
	check_err $? "device, netdev, RDMA device or debugfs missing"
	rdma dev show "rsim_ib$SIM_ID" > /dev/null
	check_err $? "rdma dev does not show rsim_ib$SIM_ID"
	echo "$SIM_ID" > "$SIM_BUS"/del_device
	check_err $? "del_device failed"
	sim_absent "$SIM_ID"
	check_err $? "something is left after del_device"
	sleep 1
	kill "$monitor_pid"
	wait "$monitor_pid" 2> /dev/null
	monitor_pid=
	# "KERNEL[time] ACTION DEVPATH (SUBSYSTEM)"
	for ev in "add /devices/rocetune_sim$SIM_ID (rocetune_sim)" \
		"add /devices/rocetune_sim$SIM_ID/net/rsim$SIM_ID (net)" \
		"add /devices/rocetune_sim$SIM_ID/infiniband/rsim_ib$SIM_ID (infiniband)" \
		"remove /devices/rocetune_sim$SIM_ID/infiniband/rsim_ib$SIM_ID (infiniband)" \
		"remove /devices/rocetune_sim$SIM_ID/net/rsim$SIM_ID (net)" \
		"remove /devices/rocetune_sim$SIM_ID (rocetune_sim)"; do
		n=$(awk '/^KERNEL/ { $1 = ""; sub(/^ +/, ""); print }' "$log" |
			grep -cxF "$ev")
		[ "$n" = 1 ]
		check_err $? "$n uevents: $ev"
	done
	[ "$RET" = 0 ] || sed 's/^/# /' "$log"
	log_test "add and del send uevents for the device, netdev and RDMA device"
}

add_del_100() {
	local i id pers personalities=(mlx5 irdma bnxt_re) start devs

	RET=0
	if ! rt_kmod_loaded; then
		rt_kmod_load && kmod_loaded_here=1
		check_err $? "cannot load rocetune.ko"
	fi
	start=$(date +%s)
	for ((i = 0; i < CYCLES; i++)); do
		id=$((SIM_ID + i % 3))
		pers=${personalities[i % 3]}
		if ! echo "$id $pers" > "$SIM_BUS"/new_device; then
			check_err 1 "cycle $i: new_device failed"
			break
		fi
		if ! sim_present "$id"; then
			check_err 1 "cycle $i: device $id incomplete"
			break
		fi
		# exercise the device a little while it exists: a storm that
		# never ends, and every 5th time a link flap still pending
		echo "$((i % 8)) 1000 0" > "/sys/kernel/debug/rocetune_sim/$id/pfc_storm"
		if [ $((i % 5)) = 0 ]; then
			ip link set "rsim$id" up
			# Debian 12's dcb reports set errors unreliably: ignored
			dcb pfc set dev "rsim$id" prio-pfc $((i % 8)):on 2> /dev/null
		fi
		if ! echo "$id" > "$SIM_BUS"/del_device; then
			check_err 1 "cycle $i: del_device failed"
			break
		fi
		if ! sim_absent "$id"; then
			check_err 1 "cycle $i: device $id left something behind"
			break
		fi
	done
	echo "# $i cycles in $(($(date +%s) - start)) s"
	[ -z "$(ls "$SIM_BUS"/devices)" ]
	check_err $? "devices left on the bus"
	devs=$(rdma dev)
	check_err $? "rdma dev failed"
	! grep rsim_ib <<< "$devs" > /dev/null
	check_err $? "RDMA devices left"
	if [ "$kmod_loaded_here" = 1 ]; then
		rt_kmod_unload
		check_err $? "rocetune.ko did not unload"
		kmod_loaded_here=0
	fi
	log_test "$CYCLES add/del cycles leave nothing behind"
}

del_while_busy() {
	local id=$((SIM_ID + 10)) d

	RET=0
	echo "$id irdma" > "$SIM_BUS"/new_device
	check_err $? "new_device failed"
	d=/sys/kernel/debug/rocetune_sim/$id
	ip link set "rsim$id" up
	echo "cnpSent 1000000 0" > "$d/grow"
	echo "3 5000 0" > "$d/pfc_storm"
	(while cat "$d/counters/cnpSent" "/sys/class/infiniband/rsim_ib$id/ports/1/hw_counters/cnpSent"; do
		:
	done) > /dev/null 2>&1 &
	sleep 0.5
	echo "$id" > "$SIM_BUS"/del_device
	check_err $? "del_device with growing counters and a reader failed"
	wait
	sim_absent "$id"
	check_err $? "device left behind"
	log_test "del while counters grow and are being read"
}

rmmod_with_devices() {
	RET=0
	echo "$((SIM_ID + 20)) mlx5" > "$SIM_BUS"/new_device &&
		echo "$((SIM_ID + 21)) bnxt_re" > "$SIM_BUS"/new_device
	check_err $? "new_device failed"
	dcb app add dev "rsim$((SIM_ID + 20))" dscp-prio 26:3
	rmmod rocetune_sim
	check_err $? "rmmod with devices failed"
	[ ! -e "/sys/class/net/rsim$((SIM_ID + 20))" ] && [ ! -d "$SIM_BUS" ]
	check_err $? "devices or bus left after rmmod"
	sim_load
	check_err $? "reload failed"
	echo "$((SIM_ID + 20)) mlx5" > "$SIM_BUS"/new_device
	check_err $? "new_device after reload failed"
	sim_expect_empty=$(dcb -j app show dev "rsim$((SIM_ID + 20))" | jq -c '.dscp_prio // []')
	[ "$sim_expect_empty" = "[]" ]
	check_err $? "a new netdev inherited the app table: $sim_expect_empty"
	echo "$((SIM_ID + 20))" > "$SIM_BUS"/del_device
	log_test "rmmod removes the devices that are left; reload works"
}

cleanup() {
	local d

	[ -z "$monitor_pid" ] || kill "$monitor_pid" 2> /dev/null
	[ "$kmod_loaded_here" = 1 ] && rt_kmod_unload
	for d in "$SIM_BUS"/devices/rocetune_sim*; do
		[ -e "$d" ] && echo "${d##*rocetune_sim}" > "$SIM_BUS"/del_device
	done
	[ -d /sys/module/rocetune_sim ] && rmmod rocetune_sim
	rm -rf "$RT_TMP"
}

rt_require_root
rt_require_cmd dcb rdma udevadm jq
RT_TMP=$(mktemp -d)
trap cleanup EXIT
sim_load || rt_setup_failed "cannot load rocetune_sim"
rt_run_tests
