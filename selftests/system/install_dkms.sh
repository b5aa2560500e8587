#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# install_dkms.sh - "make install-tools" and "make dkms-install" as on a real
# host, in a sysroot (sysroot.sh: an overlay of the host's root, so the host
# is never written), for every kernel with headers: DKMS adds, builds and
# installs rocetune.ko, depmod resolves its ib_core dependency, and
# systemd-analyze verify finds nothing wrong with the installed unit.  What
# was installed is saved for the VM boot (vm.sh) in build/system/stage/;
# then "make uninstall" and "make dkms-remove" must leave nothing behind.
# TAP on stdout; runs on the host as root.
set -uo pipefail

source "$(dirname "$0")/../lib.sh"
rt_require_root

ALL_TESTS="
	install_tools
	install_keeps_edited
	dkms_install
	depmod_deps
	units_verify
	stage_saved
	uninstall_clean
"

base=$RT_TOP/build/system
sr=$base/install
stage=$base/stage
version=$(cat "$RT_TOP/VERSION")
profiles=("$RT_TOP"/profiles/*.conf)
kvers=()
for k in ${KERNELS:-6.1 6.12}; do
	# A kernel that is not installed fails the DKMS tests by its name.
	kv=$("$RT_TOP/scripts/kver.sh" "$k") || kv=$k
	kvers+=("$kv")
done

# in_root 'COMMAND': run COMMAND in the sysroot, in the tree.
in_root() {
	"$RT_SELFTESTS/system/sysroot.sh" "$sr" "cd '$RT_TOP' && $1"
}

# The files "make install-tools" installs (PREFIX=/usr).
tool_files=(
	/usr/sbin/rocetune
	/usr/sbin/rocetuned
	/usr/share/man/man8/rocetune.8
	/usr/share/bash-completion/completions/rocetune
	/usr/lib/udev/rules.d/90-rocetune.rules
	/usr/lib/udev/rocetune-udev-wants
	/usr/lib/systemd/system/rocetune-apply@.service
	/usr/lib/modules-load.d/rocetune.conf
)

install_tools() {
	local f p

	RET=0
	in_root "make -s install-tools" > "$base/install.log" 2>&1
	check_err $? "make install-tools failed (build/system/install.log)"
	for f in "${tool_files[@]}"; do
		[ -e "$sr/upper$f" ] || check_err 1 "$f not installed"
	done
	for p in "$RT_TOP"/profiles/*.conf; do
		cmp -s "$p" "$sr/upper/etc/rocetune/${p##*/}" ||
			check_err 1 "example profile ${p##*/} not in /etc/rocetune"
	done
	grep -q '^ExecStart=/usr/sbin/rocetune profile apply dev %I$' \
		"$sr/upper/usr/lib/systemd/system/rocetune-apply@.service"
	check_err $? "the unit does not run /usr/sbin/rocetune"
	grep -q 'IMPORT{program}="/usr/lib/udev/rocetune-udev-wants ' \
		"$sr/upper/usr/lib/udev/rules.d/90-rocetune.rules"
	check_err $? "the rule does not name the installed helper"
	log_test "make install-tools: CLI, man, completion, udev rule, unit, modules-load.d, profiles"
}

install_keeps_edited() {
	local p

	RET=0
	p=${profiles[0]##*/}
	in_root "echo '# edited' >> /etc/rocetune/$p && make -s install-tools" \
		>> "$base/install.log" 2>&1
	check_err $? "second make install-tools failed"
	tail -n 1 "$sr/upper/etc/rocetune/$p" | grep -qx '# edited'
	check_err $? "make install-tools overwrote the edited /etc/rocetune/$p"
	log_test "make install-tools keeps an edited /etc/rocetune/$p"
}

dkms_install() {
	local k status lines ko

	RET=0
	in_root "make -s dkms-install" > "$base/dkms.log" 2>&1
	check_err $? "make dkms-install failed (build/system/dkms.log)"
	status=$(in_root "dkms status -m rocetune -v $version" 2> /dev/null)
	mapfile -t lines <<< "$status"
	printf '# %s\n' "${lines[@]}"
	for k in "${kvers[@]}"; do
		echo "$status" | grep -q "^rocetune/$version, $k, x86_64: installed" ||
			check_err 1 "dkms does not have rocetune installed for $k"
		ko=("$sr/upper/usr/lib/modules/$k"/updates/dkms/rocetune.ko*)
		modinfo -F vermagic "${ko[0]}" 2> /dev/null | grep -q "^$k " ||
			check_err 1 "no rocetune.ko for $k in updates/dkms"
		[ "$(modinfo -F version "${ko[0]}" 2> /dev/null)" = "$version" ] ||
			check_err 1 "the module for $k is not version $version"
	done
	log_test "make dkms-install: dkms add, build, install for ${kvers[*]}"
}

depmod_deps() {
	local k deps

	RET=0
	for k in "${kvers[@]}"; do
		deps=$(in_root "modprobe -S $k --show-depends rocetune" 2>&1)
		echo "$deps" | grep -q '/ib_core\.ko' ||
			check_err 1 "modprobe -S $k rocetune would not load ib_core: $deps"
		echo "$deps" | grep -q "/$k/updates/dkms/rocetune\.ko" ||
			check_err 1 "modprobe -S $k rocetune does not find the DKMS module: $deps"
	done
	log_test "depmod: modprobe rocetune resolves ib_core, finds updates/dkms (${kvers[*]})"
}

units_verify() {
	local out

	RET=0
	out=$(in_root "systemd-analyze verify 'rocetune-apply@eth0.service' \
		'rocetune-apply@br\\x2d0.service'" 2>&1)
	check_err $? "systemd-analyze verify failed: $out"
	[ -z "$out" ] || check_err 1 "systemd-analyze verify: $out"
	log_test "systemd-analyze verify rocetune-apply@.service: clean"
}

# What the install left in the upper layer, without whiteouts, the tree's
# own copied-up files and caches, for systemd-stage.sh (RT_VM_STAGE).
stage_saved() {
	RET=0
	rm -rf "$stage"
	mkdir -p "$stage"
	(cd "$sr/upper" && find . \( -path "./${RT_TOP#/}" -o -path ./var/cache \
		-o -path ./var/log -o -path ./root -o -path ./tmp \) -prune \
		-o ! -type c -print0 | cpio --null -pdm --quiet "$stage")
	check_err $? "cannot copy the sysroot"
	[ -e "$stage/usr/sbin/rocetune" ] && [ -d "$stage/var/lib/dkms/rocetune" ]
	check_err $? "the stage misses the CLI or the DKMS tree"
	log_test "installed system saved for the VM ($(du -sh "$stage" | cut -f1))"
}

uninstall_clean() {
	local f k left left_profiles

	RET=0
	in_root "make -s uninstall && make -s dkms-remove" > "$base/uninstall.log" 2>&1
	check_err $? "make uninstall or dkms-remove failed (build/system/uninstall.log)"
	for f in "${tool_files[@]}"; do
		[ ! -e "$sr/upper$f" ] || check_err 1 "$f left behind"
	done
	[ -z "$(in_root "dkms status -m rocetune")" ] ||
		check_err 1 "dkms still knows rocetune"
	for k in "${kvers[@]}"; do
		in_root "modprobe -S $k --show-depends rocetune" > /dev/null 2>&1 &&
			check_err 1 "modprobe -S $k still finds rocetune"
	done
	# Left: the edited profile only (uninstall keeps edited files); man's
	# cache of formatted pages (from systemd-analyze) does not count.
	left=$(cd "$sr/upper" && find . \( -path "./${RT_TOP#/}" -o -path ./var/cache \
		-o -path ./etc/rocetune \) -prune -o ! -type d ! -type c -print |
		grep -i rocetune)
	left_profiles=("$sr"/upper/etc/rocetune/*)
	[ "${left_profiles[*]##*/}" = "${profiles[0]##*/}" ] ||
		check_err 1 "/etc/rocetune has: ${left_profiles[*]##*/}"
	[ -z "$left" ] || check_err 1 "left behind: ${left//$'\n'/ }"
	log_test "make uninstall, make dkms-remove: nothing left but the edited profile"
}

rm -rf "$sr"
mkdir -p "$base"
rt_run_tests
