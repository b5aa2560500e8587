#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune's RDMA client sees Soft-RoCE devices: the add callback fires for
# devices that exist at load time and for devices added later, remove fires
# when a device is deleted and when the module unloads.

ALL_TESTS="add_existing add_new remove_on_del remove_on_unload"

source "$(dirname "$0")/lib.sh"

add_existing() {
	RET=0
	rt_wire_up
	check_err $? "cannot set up the rxe wire"
	rt_kmod_load
	check_err $? "cannot load rocetune.ko"
	dmesg_has "^rocetune: $RT_RXE0: tracking, 1 RoCE port"
	check_err $? "no add for $RT_RXE0"
	dmesg_has "^rocetune: $RT_RXE1: tracking, 1 RoCE port"
	check_err $? "no add for $RT_RXE1"
	log_test "add fires for the two rxe devices present at load"
}

add_new() {
	RET=0
	# One rxe device per netdev: the extra one gets its own.
	ip link add rt_extra type dummy && ip link set rt_extra up
	check_err $? "cannot create a dummy netdev"
	rdma link add rxe_extra type rxe netdev rt_extra
	check_err $? "cannot add rxe_extra"
	wait_for 10 dmesg_has '^rocetune: rxe_extra: tracking'
	check_err $? "no add for a device created after load"
	log_test "add fires for an rxe device created after load"
}

remove_on_del() {
	RET=0
	rdma link del rxe_extra
	check_err $? "cannot delete rxe_extra"
	wait_for 10 dmesg_has '^rocetune: rxe_extra: removed'
	check_err $? "no remove for a deleted device"
	log_test "remove fires when an rxe device is deleted"
}

remove_on_unload() {
	RET=0
	rt_kmod_unload
	check_err $? "rmmod failed"
	dmesg_has "^rocetune: $RT_RXE0: removed" &&
		dmesg_has "^rocetune: $RT_RXE1: removed"
	check_err $? "remove did not fire for every device at unload"
	log_test "remove fires for every device at unload"
}

cleanup() {
	rt_kmod_unload 2> /dev/null
	rdma link del rxe_extra 2> /dev/null
	ip link del rt_extra 2> /dev/null
	rt_wire_down
}

rt_require_root
rt_require_cmd rdma ip
trap cleanup EXIT
rt_run_tests
