#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# install_dkms.sh - "make install-tools" and "make dkms-install" as on a real
# host, in a sysroot (sysroot.sh: an overlay of the host's root, so the host
# is never written), for every kernel with headers: DKMS adds, builds and
# installs rocetune.ko, depmod resolves its ib_core dependency, and
# systemd-analyze verify finds nothing wrong with the installed units.  The
# example profiles are documentation: /etc/rocetune is created empty, and
# what the administrator puts there is never touched.  What was installed
# is saved for the VM boot (vm.sh) in build/system/stage/; then "make
# uninstall" and "make dkms-remove" must leave nothing behind but the
# administrator's profiles.  Last, "make install" (module and tools) and
# "make uninstall" from a copy of the tree whose path has a space.
# TAP on stdout; runs on the host as root.
set -uo pipefail

source "$(dirname "$0")/../lib.sh"
rt_require_root

ALL_TESTS="
	install_tools
	dkms_install
	depmod_deps
	units_verify
	stage_saved
	install_keeps_admin_profiles
	uninstall_clean
	install_path_with_space
"

base=$RT_TOP/build/system
sr=$base/install
stage=$base/stage
version=$(cat "$RT_TOP/VERSION")
profiles=("$RT_TOP"/profiles/*.conf)
examples=/usr/share/doc/rocetune/examples
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
	/usr/lib/systemd/system/rocetuned.service
	/usr/lib/modules-load.d/rocetune.conf
	/usr/share/rocetune/monitoring/rocetune.rules.yml
	/usr/share/rocetune/monitoring/grafana/rocetune.json
	/usr/share/rocetune/monitoring/grafana/provisioning.yml
)
for p in "${profiles[@]}"; do
	tool_files+=("$examples/${p##*/}")
done

install_tools() {
	local f p

	RET=0
	in_root "make -s install-tools" > "$base/install.log" 2>&1
	check_err $? "make install-tools failed (build/system/install.log)"
	for f in "${tool_files[@]}"; do
		[ -e "$sr/upper$f" ] || check_err 1 "$f not installed"
	done
	for p in "${profiles[@]}"; do
		cmp -s "$p" "$sr/upper$examples/${p##*/}" ||
			check_err 1 "example profile ${p##*/} is not as in profiles/"
	done
	# The profile directory exists, and is empty: a profile there is live.
	[ -d "$sr/upper/etc/rocetune" ] && [ -z "$(etc_listing)" ]
	check_err $? "/etc/rocetune is not an empty directory: $(etc_listing | tr '\n' ' ')"
	grep -q '^ExecStart=/usr/sbin/rocetune profile apply dev %I$' \
		"$sr/upper/usr/lib/systemd/system/rocetune-apply@.service"
	check_err $? "the apply unit does not run /usr/sbin/rocetune"
	grep -q '^ExecStart=/usr/sbin/rocetuned --foreground$' \
		"$sr/upper/usr/lib/systemd/system/rocetuned.service"
	check_err $? "rocetuned.service does not run /usr/sbin/rocetuned"
	grep -q 'IMPORT{program}="/usr/lib/udev/rocetune-udev-wants ' \
		"$sr/upper/usr/lib/udev/rules.d/90-rocetune.rules"
	check_err $? "the rule does not name the installed helper"
	log_test "make install-tools: CLI, man, completion, udev rule, units, modules-load.d; examples in $examples, /etc/rocetune empty"
}

# The administrator's profiles: one edited from an example under the
# example's name, one left as shipped (as an older make install did).
admin_edited=${profiles[0]##*/}
admin_copied=${profiles[-1]##*/}
admin_listing=$(printf '%s\n' "$admin_edited" "$admin_copied" | sort -u)

# etc_listing: what the sysroot's /etc/rocetune holds, one name a line.
etc_listing() {
	find "$sr/upper/etc/rocetune" -mindepth 1 -printf '%P\n' 2>&1 | sort
}

install_keeps_admin_profiles() {
	local out

	RET=0
	out=$(in_root "{ cat '${profiles[0]}'; echo '# edited'; } > /etc/rocetune/$admin_edited &&
		cp '${profiles[-1]}' /etc/rocetune/$admin_copied && make -s install-tools" 2>&1)
	check_err $? "second make install-tools failed: $out"
	echo "$out" >> "$base/install.log"
	tail -n 1 "$sr/upper/etc/rocetune/$admin_edited" | grep -qx '# edited'
	check_err $? "make install-tools overwrote the edited /etc/rocetune/$admin_edited"
	cmp -s "${profiles[-1]}" "$sr/upper/etc/rocetune/$admin_copied"
	check_err $? "make install-tools changed /etc/rocetune/$admin_copied"
	[ "$(etc_listing)" = "$admin_listing" ]
	check_err $? "make install-tools added to /etc/rocetune: $(etc_listing | tr '\n' ' ')"
	grep -q "warning: /etc/rocetune/$admin_copied is the example as shipped" <<< "$out"
	check_err $? "no warning about the example as shipped in /etc/rocetune: $out"
	log_test "make install-tools leaves the administrator's /etc/rocetune alone, warns of a live example"
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
		'rocetune-apply@br\\x2d0.service' rocetuned.service" 2>&1)
	check_err $? "systemd-analyze verify failed: $out"
	[ -z "$out" ] || check_err 1 "systemd-analyze verify: $out"
	log_test "systemd-analyze verify rocetune-apply@.service, rocetuned.service: clean"
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
	local f k left

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
	# Left: the administrator's profiles, untouched; man's cache of
	# formatted pages (from systemd-analyze) does not count.
	left=$(cd "$sr/upper" && find . \( -path "./${RT_TOP#/}" -o -path ./var/cache \
		-o -path ./etc/rocetune \) -prune -o ! -type c -print |
		grep -i rocetune)
	[ "$(etc_listing)" = "$admin_listing" ]
	check_err $? "/etc/rocetune has: $(etc_listing | tr '\n' ' ')"
	tail -n 1 "$sr/upper/etc/rocetune/$admin_edited" | grep -qx '# edited' &&
		cmp -s "${profiles[-1]}" "$sr/upper/etc/rocetune/$admin_copied"
	check_err $? "make uninstall changed the administrator's profiles"
	[ -z "$left" ] || check_err 1 "left behind: ${left//$'\n'/ }"
	log_test "make uninstall, make dkms-remove: nothing left but the administrator's profiles"
}

# kbuild refuses an M= path with a space; build-kmod.sh and install-kmod.sh
# go through a symlink.  A copy of the tree as it is (tracked and new
# files, as scripts/deb.sh makes), in a second sysroot: "make install"
# builds rocetune.ko for the default kernel, installs it in updates/ and
# runs depmod; "make uninstall" removes it all again.
install_path_with_space() {
	local sp=$base/install-space clone="$base/a dir with space/rocetune" kv out mod left

	RET=0
	rm -rf "$sp" "${clone%/*}"
	mkdir -p "$clone"
	(cd "$RT_TOP" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ ! -e "$f" ] || printf '%s\0' "$f"
		done | cpio --null -pdm --quiet "$clone")
	check_err $? "cannot copy the tree to '$clone'"
	kv=$("$RT_TOP/scripts/kver.sh")
	out=$("$RT_SELFTESTS/system/sysroot.sh" "$sp" "cd '$clone' && make -s install" 2>&1)
	check_err $? "make install in '${clone#"$RT_TOP"/}' failed: $(tail -n 5 <<< "$out")"
	echo "$out" > "$base/install-space.log"
	mod=("$sp/upper/usr/lib/modules/$kv/updates/"rocetune.ko*)
	[ -e "${mod[0]}" ] && [ "$(modinfo -F version "${mod[0]}" 2> /dev/null)" = "$version" ]
	check_err $? "no rocetune.ko $version in /lib/modules/$kv/updates"
	"$RT_SELFTESTS/system/sysroot.sh" "$sp" "modprobe -S $kv --show-depends rocetune" 2>&1 |
		grep -q "/$kv/updates/rocetune\.ko"
	check_err $? "depmod did not run: modprobe -S $kv does not find updates/rocetune.ko"
	[ -x "$sp/upper/usr/sbin/rocetune" ] && [ -e "$sp/upper/usr/lib/systemd/system/rocetuned.service" ]
	check_err $? "make install did not install the tools"
	out=$("$RT_SELFTESTS/system/sysroot.sh" "$sp" "cd '$clone' && make -s uninstall" 2>&1)
	check_err $? "make uninstall failed: $(tail -n 5 <<< "$out")"
	left=$(cd "$sp/upper" && find . \( -path "./${RT_TOP#/}" -o -path ./var/cache \) -prune \
		-o ! -type c -print | grep -i rocetune)
	[ -z "$left" ] || check_err 1 "left behind: ${left//$'\n'/ }"
	"$RT_SELFTESTS/system/sysroot.sh" "$sp" "modprobe -S $kv --show-depends rocetune" > /dev/null 2>&1 &&
		check_err 1 "modprobe -S $kv still finds rocetune"
	[ "$RET" != 0 ] || rm -rf "$sp" "${clone%/*}"
	log_test "make install, make uninstall from a path with a space (module for $kv, depmod)"
}

rm -rf "$sr"
mkdir -p "$base"
rt_run_tests
