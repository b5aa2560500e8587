#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# shell-rc.sh - the start file of the test VM's interactive shell (run.sh
# -s, make vm-shell: guest.sh runs "bash --rcfile" on it), and of
# selftests/vm_shell.sh, which checks what it makes ready.  It leaves the
# shell ready to use this tree:
#   - this tree's rocetune.ko loaded (ib_core first, which insmod does not
#     load), and "modprobe rocetune" / "modprobe rocetune_sim" (the CLI's
#     own hint) loading this tree's builds, never an installed module;
#   - the Soft-RoCE wire of the selftests (rt_wire_up: rxe0 on va, rxe1 on
#     vb);
#   - rocetune and rocetuned (build/userspace) on PATH, their man pages on
#     MANPATH;
#   - a writable profile directory, ROCETUNE_PROFILE_DIR, on tmpfs,
#     holding a copy of the tree's example profiles (the host's
#     /etc/rocetune is read-only in the VM);
# and prints a banner saying what is there (and what failed, if any).

# shellcheck source=../lib.sh
. "${RT_WORK:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/selftests/lib.sh"
# lib.sh is for scripts: an interactive shell keeps bash's defaults.
set +o pipefail

RT_SHELL_DIR=/run/rocetune
export ROCETUNE_PROFILE_DIR=$RT_SHELL_DIR/profiles
export PATH=$RT_TOP/build/userspace:$PATH
export MANPATH=$RT_SHELL_DIR/man:
RT_SHELL_FAILED=()

# rt_shell_fail WHAT: record a failed step (the banner names it).
rt_shell_fail() {
	RT_SHELL_FAILED+=("$1")
	echo "rt-vm: FAILED: $1" >&2
}

# rt_shell_modprobe: "modprobe rocetune" (and rocetune_sim) load this
# tree's builds, ib_core first; replaces guest.sh's "install ... /bin/false"
# (which keeps the selftests from loading an installed module).
rt_shell_modprobe() {
	local m ko

	mkdir -p /run/modprobe.d || return 1
	for m in rocetune:kmod/rocetune.ko \
		rocetune_sim:selftests/rocetune_sim/rocetune_sim.ko; do
		ko=$RT_BUILD/${m#*:}
		echo "install ${m%%:*} /sbin/modprobe ib_core &&" \
			"/sbin/insmod $ko \$CMDLINE_OPTS"
	done > /run/modprobe.d/rocetune-vm.conf
}

# rt_shell_man: the man pages of userspace/man under MANPATH's man8.
rt_shell_man() {
	local f

	mkdir -p "$RT_SHELL_DIR/man/man8" || return 1
	for f in "$RT_TOP"/userspace/man/*.8; do
		ln -sf "$f" "$RT_SHELL_DIR/man/man8/" || return 1
	done
	man -w rocetune > /dev/null
}

rt_shell_setup() {
	if ! mkdir -p "$ROCETUNE_PROFILE_DIR" ||
	   ! cp "$RT_TOP"/profiles/*.conf "$ROCETUNE_PROFILE_DIR/"; then
		rt_shell_fail "the profile directory $ROCETUNE_PROFILE_DIR"
	fi
	rt_shell_man || rt_shell_fail "the man pages in $RT_SHELL_DIR/man"
	rt_shell_modprobe ||
		rt_shell_fail "/run/modprobe.d/rocetune-vm.conf"
	[ -x "$RT_TOP/build/userspace/rocetune" ] ||
		rt_shell_fail "no $RT_TOP/build/userspace/rocetune (make userspace)"
	rt_kmod_loaded || modprobe rocetune ||
		rt_shell_fail "loading $RT_BUILD/kmod/rocetune.ko (scripts/build-kmod.sh $RT_KVER)"
	[ -d "/sys/class/infiniband/$RT_RXE0" ] || rt_wire_up ||
		rt_shell_fail "the Soft-RoCE wire (rt_wire_up)"
}

rt_shell_banner() {
	local ver

	ver=$(rocetune -V 2> /dev/null)
	cat <<EOF
rt-vm: kernel $(uname -r), the project at $RT_TOP (read-write)
  module    rocetune $(cat /sys/module/rocetune/version 2> /dev/null) loaded from ${RT_BUILD#"$RT_TOP"/}/kmod/rocetune.ko
            (rmmod rocetune; modprobe rocetune loads it again, ib_core first)
  Soft-RoCE $RT_RXE0 on $RT_NETDEV0 ($RT_IP0) <-> $RT_RXE1 on $RT_NETDEV1 ($RT_IP1), a veth pair
            ($(rdma link show 2> /dev/null | awk '{ printf "%s%s %s", s, $2, $4; s = ", " }'))
  tools     ${ver:-rocetune: missing} and rocetuned from build/userspace (on PATH)
  manual    man rocetune, man rocetune-qp, ... (MANPATH)
  profiles  ROCETUNE_PROFILE_DIR=$ROCETUNE_PROFILE_DIR (tmpfs, a copy of profiles/)
  helpers   selftests/lib.sh is sourced (rt_wire_down, rt_wire_up, rt_sim_load, ...)
  Ctrl-C interrupts the command in this shell; exit (or Ctrl-D) powers the VM off.
EOF
	if [ ${#RT_SHELL_FAILED[@]} -gt 0 ]; then
		echo "rt-vm: not ready: ${#RT_SHELL_FAILED[@]} step(s) failed:"
		printf '  %s\n' "${RT_SHELL_FAILED[@]}"
	fi
}

rt_shell_setup
rt_shell_banner
PS1='rt-vm:\w# '
