#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deb.sh - the Debian packages of build/deb/ (make deb) on a host: in a
# sysroot (sysroot.sh, an overlay of the host's root), "apt install
# ./rocetune_*.deb ./rocetune-dkms_*.deb" installs the tools, the udev
# rule and units (rocetuned not enabled), the example profiles as
# documentation and an empty /etc/rocetune; DKMS builds and installs
# rocetune.ko for the kernels (6.1, 6.12); a reinstall leaves the
# administrator's profile alone; "apt purge" removes every file of both
# packages, the modules and the DKMS tree, and leaves that profile.  TAP on
# stdout; host, as root.
set -uo pipefail

source "$(dirname "$0")/../lib.sh"
rt_require_root

ALL_TESTS="
	debs_built
	apt_install
	dkms_built_on_install
	installed_files
	reinstall_keeps_admin_profile
	apt_purge
	nothing_left
"

base=$RT_TOP/build/system
sr=$base/deb
debdir=$RT_TOP/build/deb
version=$(cat "$RT_TOP/VERSION")
kvers=()
for k in ${KERNELS:-6.1 6.12}; do
	kv=$("$RT_TOP/scripts/kver.sh" "$k") || kv=$k
	kvers+=("$kv")
done
debs=()
examples=/usr/share/doc/rocetune/examples
# The administrator's profile, under an example's name.
admin=/etc/rocetune/50-lossless-roce.conf

in_root() {
	"$RT_SELFTESTS/system/sysroot.sh" "$sr" "$1"
}

debs_built() {
	RET=0
	debs=("$debdir/rocetune_${version}_"*.deb "$debdir/rocetune-dkms_${version}_all.deb")
	[ -f "${debs[0]}" ] && [ -f "${debs[1]}" ]
	check_err $? "no rocetune and rocetune-dkms $version in build/deb (make deb)"
	log_test "packages: ${debs[*]##*/}"
}

apt_install() {
	RET=0
	in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		${debs[*]}" > "$base/deb-install.log" 2>&1
	check_err $? "apt-get install failed (build/system/deb-install.log): $(tail -n 3 "$base/deb-install.log")"
	in_root "dpkg-query -W -f '\${Package} \${Status}\n' rocetune rocetune-dkms" |
		grep -c 'install ok installed' | grep -qx 2
	check_err $? "dpkg does not have both packages installed"
	log_test "apt install ./rocetune_*.deb ./rocetune-dkms_*.deb"
}

dkms_built_on_install() {
	local k status lines

	RET=0
	status=$(in_root "dkms status -m rocetune -v $version" 2> /dev/null)
	mapfile -t lines <<< "$status"
	printf '# %s\n' "${lines[@]}"
	for k in "${kvers[@]}"; do
		echo "$status" | grep -q "^rocetune/$version, $k, x86_64: installed" ||
			check_err 1 "the package did not build rocetune for $k"
		in_root "modprobe -S $k --show-depends rocetune" 2>&1 |
			grep -q "/$k/updates/dkms/rocetune\.ko" ||
			check_err 1 "modprobe -S $k does not find the DKMS module"
	done
	log_test "DKMS built and installed rocetune.ko on install (${kvers[*]})"
}

installed_files() {
	local f conffiles enabled

	RET=0
	for f in /usr/sbin/rocetune /usr/sbin/rocetuned /usr/lib/udev/rules.d/90-rocetune.rules \
		/usr/lib/udev/rocetune-udev-wants /usr/lib/systemd/system/rocetune-apply@.service \
		/usr/lib/systemd/system/rocetuned.service \
		/usr/lib/modules-load.d/rocetune.conf /usr/src/rocetune-$version/dkms.conf; do
		[ -e "$sr/upper$f" ] || check_err 1 "$f missing"
	done
	for f in "$RT_TOP"/profiles/*.conf; do
		cmp -s "$f" "$sr/upper$examples/${f##*/}" ||
			check_err 1 "$examples/${f##*/} is not profiles/${f##*/}"
	done
	# A profile in /etc/rocetune is live: the package ships none.
	[ -d "$sr/upper/etc/rocetune" ] &&
		[ -z "$(find "$sr/upper/etc/rocetune" -mindepth 1)" ]
	check_err $? "/etc/rocetune is not an empty directory"
	conffiles=$(in_root "dpkg-query -W -f '\${Conffiles}' rocetune")
	[ -z "$conffiles" ]
	check_err $? "conffiles: $conffiles"
	enabled=$(find "$sr/upper/etc/systemd" -name rocetuned.service 2> /dev/null)
	[ -z "$enabled" ]
	check_err $? "rocetuned.service was enabled: $enabled"
	log_test "tools, rule, units (rocetuned not enabled), modules-load.d, DKMS source; examples in $examples, /etc/rocetune empty"
}

# The administrator writes a profile (under an example's name); installing
# the package again (as an upgrade does) leaves it as it is.
reinstall_keeps_admin_profile() {
	RET=0
	in_root "printf '[Match]\nName=ens1f0np0\n\n[Lossless]\nPFC=3\n' > $admin" &&
		cp "$sr/upper$admin" "$base/deb-admin.conf"
	check_err $? "cannot write $admin"
	in_root "dpkg -i ${debs[0]}" > "$base/deb-reinstall.log" 2>&1
	check_err $? "dpkg -i ${debs[0]##*/} again failed (build/system/deb-reinstall.log)"
	cmp -s "$base/deb-admin.conf" "$sr/upper$admin"
	check_err $? "the reinstall changed $admin"
	[ "$(find "$sr/upper/etc/rocetune" -mindepth 1)" = "$sr/upper$admin" ]
	check_err $? "/etc/rocetune has: $(find "$sr/upper/etc/rocetune" -mindepth 1 -printf '%P ')"
	log_test "a reinstall leaves the administrator's $admin alone, adds nothing"
}

apt_purge() {
	RET=0
	in_root "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q rocetune rocetune-dkms" \
		> "$base/deb-purge.log" 2>&1
	check_err $? "apt-get purge failed (build/system/deb-purge.log)"
	in_root "dpkg-query -W rocetune rocetune-dkms" > /dev/null 2>&1
	check_fail $? "dpkg still knows the packages"
	log_test "apt purge rocetune rocetune-dkms"
}

nothing_left() {
	local left k

	RET=0
	# Any file whose path names rocetune, except dpkg's and apt's records,
	# the tree's own files and the administrator's profile (and its
	# directory), which purge leaves as they are.
	left=$(cd "$sr/upper" && find . \( -path "./${RT_TOP#/}" -o -path ./var/lib/dpkg \
		-o -path ./var/cache -o -path ./var/log -o -path ./var/lib/apt \) -prune \
		-o ! -type c ! -path ".$admin" ! -path ./etc/rocetune -print | grep -i rocetune)
	[ -z "$left" ] || check_err 1 "left behind: ${left//$'\n'/ }"
	cmp -s "$base/deb-admin.conf" "$sr/upper$admin"
	check_err $? "purge removed or changed the administrator's $admin"
	[ -z "$(in_root "dkms status -m rocetune")" ] || check_err 1 "dkms still knows rocetune"
	for k in "${kvers[@]}"; do
		in_root "modprobe -S $k --show-depends rocetune" > /dev/null 2>&1 &&
			check_err 1 "modprobe -S $k still finds rocetune"
	done
	log_test "purge left no file, module or DKMS tree; the administrator's profile stays"
}

rm -rf "$sr"
mkdir -p "$base"
rt_run_tests
