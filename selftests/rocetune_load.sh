#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune.ko loads, registers its RDMA client and unloads cleanly, also
# several times in a row.

ALL_TESTS="load unload reload"

source "$(dirname "$0")/lib.sh"

load() {
	RET=0
	rt_kmod_load
	check_err $? "insmod failed"
	rt_kmod_loaded
	check_err $? "module not in /sys/module"
	dmesg_has '^rocetune: version [0-9.]+ loaded'
	check_err $? "no load message in the kernel log"
	[ "$(cat /sys/module/rocetune/refcnt 2> /dev/null)" = 0 ]
	check_err $? "module holds references after load"
	log_test "rocetune.ko loads and registers its RDMA client"
}

unload() {
	RET=0
	rt_kmod_unload
	check_err $? "rmmod failed"
	rt_kmod_loaded
	check_fail $? "module still loaded after rmmod"
	dmesg_has '^rocetune: unloaded'
	check_err $? "no unload message in the kernel log"
	log_test "rocetune.ko unloads cleanly"
}

reload() {
	local i

	RET=0
	for i in 1 2 3 4 5; do
		rt_kmod_load || { check_err 1 "load $i failed"; break; }
		rt_kmod_unload || { check_err 1 "unload $i failed"; break; }
	done
	log_test "rocetune.ko loads and unloads 5 times"
}

cleanup() {
	rt_kmod_unload 2> /dev/null
}

rt_require_root
trap cleanup EXIT
rt_run_tests
