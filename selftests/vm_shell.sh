#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The VM's shell (make vm-shell) starts ready to use: its start file,
# vm/shell-rc.sh, run here by an interactive bash as guest.sh runs it, with
# commands on its stdin instead of a user.  Inside it: rocetune and
# rocetuned are this tree's, on PATH; the module and ib_core are loaded
# (lsmod), rocetune answers for rxe0 and rxe1, which rdma shows up on va
# and vb; man rocetune renders the page; the profile directory is
# writable and the CLI reads it; "modprobe rocetune", the CLI's hint,
# loads this tree's module; the banner names all that and no failed step.
# The Ctrl-C and console of the shell are run.sh's and QEMU's: see
# vm/shell_pty.py.

ALL_TESTS="sh_start sh_tools sh_module sh_wire sh_man sh_profiles sh_modprobe"

source "$(dirname "$0")/lib.sh"

RC=$RT_SELFTESTS/vm/shell-rc.sh
OUT=$(mktemp -d)
CONF=/run/modprobe.d/rocetune-vm.conf

cleanup() {
	rt_wire_down
	rt_kmod_unload
	# guest.sh's modprobe.d, which keeps the other tests off an installed
	# module.
	[ ! -f "$OUT/modprobe.conf" ] || cp "$OUT/modprobe.conf" "$CONF"
	rm -rf "$OUT" /run/rocetune
}

# val KEY: the value of the shell's line "KEY=VALUE".
val() {
	sed -n "s/^$1=//p" "$OUT/stdout" | tail -n 1
}

sh_start() {
	RET=0
	# The shell is the user's: PATH and MANPATH as a login leaves them.
	env -i HOME=/root TERM=dumb PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		RT_WORK="$RT_TOP" RT_KVER="$RT_KVER" \
		bash --rcfile "$RC" -i > "$OUT/stdout" 2> "$OUT/stderr" <<-'EOF'
		echo "cli=$(command -v rocetune)"
		echo "agent=$(command -v rocetuned)"
		echo "agent_v=$(rocetuned -V 2>&1)"
		echo "lsmod=$(lsmod | awk '$1 == "rocetune" || $1 == "ib_core" { print $1 }' | sort | tr '\n' ' ')"
		echo "devs=$(rocetune -j dev show | jq -r '[.[].dev] | sort | join(" ")')"
		echo "rdma=$(rdma link show | awk '{ print $2, $4, $NF }' | sort | tr '\n' ' ')"
		echo "manw=$(man -w rocetune)"
		echo "man=$(man -P cat rocetune 2> /dev/null | grep -c 'rocetune - ')"
		echo "mandir=$(man -w rocetune-qp)"
		echo "pdir=$ROCETUNE_PROFILE_DIR"
		cp "$ROCETUNE_PROFILE_DIR/50-lossless-roce.conf" "$ROCETUNE_PROFILE_DIR/90-mine.conf"
		echo "pcopy=$?"
		echo "pcheck=$(rocetune -j profile check | jq -c '[.files, .error_count]' 2>&1)"
		rmmod rocetune
		echo "rmmod=$?"
		modprobe rocetune
		echo "modprobe=$?"
		echo "reloaded=$(grep -c '^rocetune ' /proc/modules)"
		exit 7
	EOF
	echo $? > "$OUT/rc"
	sed 's/^/# shell: /' "$OUT/stdout"
	grep -v '^rt-vm:[^ ]*# ' "$OUT/stderr" | sed 's/^/# stderr: /'
	check_err $(($(cat "$OUT/rc") != 7)) \
		"the shell exited $(cat "$OUT/rc"), not with its exit 7"
	grep -q '^rt-vm: kernel ' "$OUT/stdout" &&
		grep -q 'Ctrl-C interrupts' "$OUT/stdout"
	check_err $? "no banner"
	check_fail "$(grep -c -e 'not ready' -e FAILED "$OUT/stdout" "$OUT/stderr" |
		awk -F: '{ s += $2 } END { print s == 0 }')" \
		"the setup says a step failed"
	log_test "vm shell: its start file runs, says what is there and that nothing failed"
}

sh_tools() {
	RET=0
	[ "$(val cli)" = "$RT_TOP/build/userspace/rocetune" ]
	check_err $? "rocetune on PATH is \"$(val cli)\""
	[ "$(val agent)" = "$RT_TOP/build/userspace/rocetuned" ]
	check_err $? "rocetuned on PATH is \"$(val agent)\""
	[[ $(val agent_v) =~ ^rocetuned\ [0-9] ]]
	check_err $? "rocetuned -V: \"$(val agent_v)\""
	log_test "vm shell: rocetune and rocetuned of this tree on PATH"
}

sh_module() {
	RET=0
	[ "$(val lsmod)" = "ib_core rocetune " ]
	check_err $? "lsmod: \"$(val lsmod)\", not ib_core and rocetune"
	[ "$(val devs)" = "$RT_RXE0 $RT_RXE1" ]
	check_err $? "rocetune dev show: \"$(val devs)\""
	log_test "vm shell: rocetune.ko and ib_core loaded, the CLI answers for rxe0 and rxe1"
}

sh_wire() {
	RET=0
	[ "$(val rdma)" = "$RT_RXE0/1 ACTIVE $RT_NETDEV0 $RT_RXE1/1 ACTIVE $RT_NETDEV1 " ]
	check_err $? "rdma link show: \"$(val rdma)\""
	log_test "vm shell: the Soft-RoCE wire is up (rdma link: rxe0 on va, rxe1 on vb, ACTIVE)"
}

sh_man() {
	RET=0
	[ "$(readlink -f "$(val manw)")" = "$RT_TOP/userspace/man/rocetune.8" ]
	check_err $? "man -w rocetune: \"$(val manw)\""
	[ "$(val man)" = 1 ]
	check_err $? "man rocetune does not render the NAME line ($(val man))"
	[ "$(readlink -f "$(val mandir)")" = "$RT_TOP/userspace/man/rocetune-qp.8" ]
	check_err $? "man -w rocetune-qp: \"$(val mandir)\""
	log_test "vm shell: man rocetune (and rocetune-qp) are this tree's pages"
}

sh_profiles() {
	local want

	RET=0
	[ "$(val pcopy)" = 0 ]
	check_err $? "cannot write a profile into \"$(val pdir)\""
	# Every file of profiles/ and the one written, no error.
	want="[$(find "$RT_TOP/profiles" -name '*.conf' | wc -l | awk '{ print $1 + 1 }'),0]"
	[ "$(val pcheck)" = "$want" ]
	check_err $? "rocetune profile check in $(val pdir): [files, errors] $(val pcheck), not $want"
	log_test "vm shell: ROCETUNE_PROFILE_DIR ($(val pdir)) is writable, holds profiles/, and the CLI reads it"
}

sh_modprobe() {
	RET=0
	[ "$(val rmmod)" = 0 ] && [ "$(val modprobe)" = 0 ] &&
		[ "$(val reloaded)" = 1 ]
	check_err $? "rmmod $(val rmmod), modprobe rocetune $(val modprobe), loaded after: $(val reloaded)"
	log_test "vm shell: modprobe rocetune (the CLI's hint) loads this tree's module"
}

rt_require_root
rt_require_cmd bash man rdma lsmod jq
[ -r "$RC" ] || rt_setup_failed "no $RC"
trap cleanup EXIT
[ ! -f "$CONF" ] || cp "$CONF" "$OUT/modprobe.conf" ||
	rt_setup_failed "cannot save $CONF"
rt_kmod_unload
rt_run_tests
