#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetune.ko loaded and unloaded RT_MOD_CYCLES times (8 here, 200 in
# "make check-long") while, all side by side: RDMA traffic (ib_write_bw)
# crosses the rxe wire, the CLI dumps devices, ports and QPs, "rocetune
# -j monitor" listens for events, and a third rxe device and a simulated
# hardware device (rocetune_sim) are added and removed.  Each load must
# answer a request; afterwards:
# - every traffic run succeeded (the module's coming and going never
#   breaks RDMA traffic);
# - the kernel log gained no oops, WARN, BUG, lockdep or slab error;
# - no rocetune module, genl family or slab cache is left;
# - kmalloc slab usage and the vmalloc'ed module memory are back within
#   SLAB_TOL and MOD_TOL of the baseline taken before the first cycle.

ALL_TESTS="load_unload_cycles nothing_left memory_back"

source "$(dirname "$0")/lib.sh"

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
OUT=${RT_OUT:-/tmp}/mod_cycles
CYCLES=${RT_MOD_CYCLES:-8}
SIM_BUS=/sys/bus/rocetune_sim
SIM_ID=$((RANDOM % 800 + 100))
PORT=18600
# The kernel's own slab users (9p, the RDMA core, sockets) move by some
# 100 KiB between two quiet readings; a leak of one 64-byte object per
# cycle and device event stays below this only in the short run, which is
# why check-long runs 200 cycles.
SLAB_TOL=${RT_MOD_SLAB_TOL:-$((768 * 1024))}
MOD_TOL=${RT_MOD_MEM_TOL:-0}
STOP=$OUT/stop
PIDS=()
SLAB0=
VMOD0=
MODS0=
POS0=

# module_vmalloc: bytes of vmalloc areas that hold module code and data.
module_vmalloc() {
	awk '/module_alloc|execmem|load_module/ { s += $2 } END { print s + 0 }' \
		/proc/vmallocinfo
}

# modules: the names of the loaded modules, one a line, sorted.
modules() {
	cut -d' ' -f1 /proc/modules | sort
}

# Workers: each runs until $STOP exists, and counts in OUT/NAME.ok and
# OUT/NAME.fail.
count() {
	echo >> "$OUT/$1.$2"
}

traffic_loop() {
	local g0 g1 spid

	g0=$(rt_gid_index "$RT_RXE0" "$RT_IP0")
	g1=$(rt_gid_index "$RT_RXE1" "$RT_IP1")
	while [ ! -e "$STOP" ]; do
		ib_write_bw -F -d "$RT_RXE1" -x "$g1" -p "$PORT" -s 4096 -n 300 \
			> "$OUT/srv.log" 2>&1 &
		spid=$!
		if ! wait_for 20 rt_port_listening "$PORT"; then
			kill "$spid" 2> /dev/null
			wait "$spid"
			count traffic fail
			continue
		fi
		if timeout 60 ib_write_bw -F -d "$RT_RXE0" -x "$g0" -p "$PORT" \
			-s 4096 -n 300 "$RT_IP1" > "$OUT/cli.log" 2>&1 &&
		   timeout 20 tail --pid="$spid" -f /dev/null &&
		   wait "$spid"; then
			count traffic ok
		else
			cp "$OUT/cli.log" "$OUT/traffic-fail-$(date +%s).log"
			kill "$spid" 2> /dev/null
			count traffic fail
		fi
	done
}

# The CLI's dumps; they fail while the module is out, which is not counted
# against it: a dump must succeed whenever the module is in (checked by
# each cycle).
dump_loop() {
	local c

	while [ ! -e "$STOP" ]; do
		for c in "dev show" "port show" "qp show" "qp show top 3" \
			"qp stats" "config show"; do
			# shellcheck disable=SC2086 # c is the command's words
			if "$RT_CLI" -j $c > /dev/null 2>&1; then
				count dumps ok
			else
				count dumps fail
			fi
		done
		sleep 0.5
	done
}

monitor_loop() {
	while [ ! -e "$STOP" ]; do
		timeout 5 "$RT_CLI" -j monitor >> "$OUT/monitor.json" 2> /dev/null
		count monitor ok
		sleep 0.2
	done
}

# A third rxe device on its own veth pair, and a simulated mlx5 device,
# added and removed over and over.
device_loop() {
	while [ ! -e "$STOP" ]; do
		if echo "$SIM_ID mlx5" > "$SIM_BUS/new_device" &&
		   rdma link add rxe2 type rxe netdev vc; then
			count devices ok
		else
			count devices fail
		fi
		sleep 0.5
		echo "$SIM_ID" > "$SIM_BUS/del_device"
		rdma link del rxe2
		sleep 0.3
	done
}

nlines() {
	if [ -f "$1" ]; then
		wc -l < "$1"
	else
		echo 0
	fi
}

# rmmod_retry: rmmod rocetune; a dump in progress holds a module reference
# for as long as it runs, so "in use" is retried for up to 10 s.
rmmod_retry() {
	local i

	for i in $(seq 50); do
		rmmod rocetune 2> "$OUT/rmmod.err" && return 0
		grep -q "in use" "$OUT/rmmod.err" || break
		count rmmod busy
		sleep 0.2
	done
	cat "$OUT/rmmod.err" >&2
	return 1
}

load_unload_cycles() {
	local i t0 t1 t2 t3 bad tload=0 tunload=0 maxload=0 maxunload=0

	RET=0
	t0=$(date +%s)
	traffic_loop & PIDS+=($!)
	dump_loop & PIDS+=($!)
	monitor_loop & PIDS+=($!)
	device_loop & PIDS+=($!)
	for i in $(seq "$CYCLES"); do
		t1=${EPOCHREALTIME/./}
		if ! rt_kmod_load; then
			check_err 1 "cycle $i: cannot load rocetune.ko"
			break
		fi
		t2=${EPOCHREALTIME/./}
		# Let the module sample and the workers meet it.
		sleep "0.$((RANDOM % 5 + 1))"
		rt_json "$RT_CLI" -j dev show > /dev/null
		check_err $? "cycle $i: rocetune dev show failed with the module in"
		t3=${EPOCHREALTIME/./}
		if ! rmmod_retry; then
			check_err 1 "cycle $i: cannot unload rocetune.ko"
			break
		fi
		t1=$(((t2 - t1) / 1000))
		t3=$(((${EPOCHREALTIME/./} - t3) / 1000))
		tload=$((tload + t1))
		tunload=$((tunload + t3))
		[ "$t1" -le "$maxload" ] || maxload=$t1
		[ "$t3" -le "$maxunload" ] || maxunload=$t3
		[ $((i % 10)) != 0 ] || echo "# cycle $i, $(($(date +%s) - t0)) s"
	done
	touch "$STOP"
	# The workers finish their current round (a traffic run takes some
	# seconds under emulation).
	for i in "${PIDS[@]}"; do
		timeout 120 tail --pid="$i" -f /dev/null
		wait "$i"
	done
	PIDS=()
	rt_kmod_unload
	echo "# load: $((tload / CYCLES)) ms on average, at most $maxload ms;" \
		"unload: $((tunload / CYCLES)) ms on average, at most $maxunload ms"
	echo "# $CYCLES cycles in $(($(date +%s) - t0)) s; traffic runs: $(nlines "$OUT/traffic.ok") ok," \
		"$(nlines "$OUT/traffic.fail") failed; CLI dumps: $(nlines "$OUT/dumps.ok") ok," \
		"$(nlines "$OUT/dumps.fail") refused (module out); monitor starts: $(nlines "$OUT/monitor.ok");" \
		"device add/del rounds: $(nlines "$OUT/devices.ok") ok, $(nlines "$OUT/devices.fail") failed;" \
		"rmmod retries (module in use): $(nlines "$OUT/rmmod.busy")"
	[ "$(nlines "$OUT/traffic.ok")" -ge 1 ]
	check_err $? "no traffic run completed"
	expect "failed traffic runs" "$(nlines "$OUT/traffic.fail")" 0
	[ "$(nlines "$OUT/dumps.ok")" -ge 1 ]
	check_err $? "no CLI dump succeeded"
	expect "failed device add/del rounds" "$(nlines "$OUT/devices.fail")" 0
	[ "$(nlines "$OUT/devices.ok")" -ge 1 ]
	check_err $? "no device was added"
	bad=$(rt_dmesg_bad "$POS0")
	[ -z "$bad" ]
	check_err $? "kernel log: $(head -n 1 <<< "$bad")"
	log_test "$CYCLES load/unload cycles with traffic, dumps, monitor, device add/del"
}

nothing_left() {
	RET=0
	[ ! -d /sys/module/rocetune ]
	check_err $? "rocetune is still loaded"
	genl ctrl list > "$OUT/families"
	check_err $? "genl ctrl list failed"
	grep -w rocetune "$OUT/families" > /dev/null
	check_fail $? "the rocetune family is still registered"
	grep -E '^(rocetune|rt_)' /proc/slabinfo > "$OUT/caches"
	check_fail $? "slab caches left: $(cut -d' ' -f1 "$OUT/caches" | tr '\n' ' ')"
	log_test "no module, genl family or slab cache left"
}

memory_back() {
	local slab vmod

	RET=0
	slab=$(rt_kmalloc_bytes)
	vmod=$(module_vmalloc)
	echo "# kmalloc in use: $SLAB0 bytes before, $slab after ($((slab - SLAB0)), tolerance $SLAB_TOL)"
	echo "# module vmalloc: $VMOD0 bytes before, $vmod after (tolerance $MOD_TOL)"
	# Modules the kernel loaded on demand meanwhile hold module memory
	# too: name them, so that their memory is not taken for a leak.
	comm -13 <(echo "$MODS0") <(modules) | sed 's/^/# loaded meanwhile: /'
	[ "$slab" -le $((SLAB0 + SLAB_TOL)) ]
	check_err $? "kmalloc grew by $((slab - SLAB0)) bytes"
	[ "$vmod" -le $((VMOD0 + MOD_TOL)) ]
	check_err $? "module memory grew by $((vmod - VMOD0)) bytes"
	log_test "kmalloc and module memory back to the baseline"
}

cleanup() {
	local p

	touch "$STOP" 2> /dev/null
	for p in "${PIDS[@]}"; do
		kill "$p" 2> /dev/null
	done
	rt_kmod_unload 2> /dev/null
	[ ! -d "$SIM_BUS/devices/rocetune_sim$SIM_ID" ] ||
		echo "$SIM_ID" > "$SIM_BUS/del_device"
	rdma link del rxe2 2> /dev/null
	rt_sim_unload 2> /dev/null
	ip link del vc 2> /dev/null
	rt_wire_down
}

setup() {
	rm -rf "$OUT"
	mkdir -p "$OUT" || return 1
	rt_wire_up && rt_sim_load || return 1
	ip link add vc type veth peer name vd && ip link set vc up &&
		ip link set vd up || return 1
	# One cycle first, so that what the first load allocates once (the
	# RDMA core's client slot, sysfs) is in the baseline.
	rt_kmod_load && "$RT_CLI" -j dev show > /dev/null && rmmod rocetune ||
		return 1
	# The workers wait for perftest's port with ss, which makes the
	# kernel load inet_diag and tcp_diag (64 KiB of module memory on
	# 6.12): load them before the baseline too.
	rt_port_listening 1 || :
	SLAB0=$(rt_kmalloc_bytes)
	VMOD0=$(module_vmalloc)
	MODS0=$(modules)
	POS0=$(rt_dmesg_pos)
}

rt_require_root
rt_require_cmd jq genl ib_write_bw rdma
trap cleanup EXIT
setup || rt_setup_failed "cannot set up the rxe wire, rocetune_sim or a load of rocetune.ko"
rt_run_tests
