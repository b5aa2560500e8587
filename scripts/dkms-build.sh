#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms-build.sh KVER - build rocetune.ko with the real dkms for KVER in
# trees relocated under build/dkms/ (nothing is written to /var/lib/dkms
# or /lib/modules), and check that dkms produced a module for KVER.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=$("$top/scripts/kver.sh" "${1:-}")
version=$(cat "$top/VERSION")
base=$top/build/dkms/$kver
rm -rf "$base"
mkdir -p "$base"
# Neither dkms nor kbuild can work in a path with a space (a symlink does
# not help: make builds in the physical directory): the trees are then
# built in a temporary directory and copied here at the end.
dk=$base
case $base in
*[[:space:]]*)
	dk=$(mktemp -d)
	trap 'cp -a "$dk/." "$base/"; rm -rf "$dk"' EXIT
	;;
esac
mkdir -p "$dk/tree" "$dk/install"
"$top/scripts/dkms-src.sh" "$dk/src" > /dev/null

opts=(--dkmstree "$dk/tree" --sourcetree "$dk/src" --installtree "$dk/install")
dkms add "${opts[@]}" -m rocetune -v "$version"
dkms build "${opts[@]}" -m rocetune -v "$version" -k "$kver"
ko=$(find "$dk/tree/rocetune/$version/$kver" -name 'rocetune.ko*' | head -n 1)
[ -n "$ko" ] || { echo "dkms-build: no rocetune.ko for $kver" >&2; exit 1; }
modinfo -F vermagic "$ko" | grep -q "^$kver " ||
	{ echo "dkms-build: $ko is not built for $kver" >&2; exit 1; }
modinfo -F version "$ko" | grep -qx "$version" ||
	{ echo "dkms-build: $ko does not carry version $version" >&2; exit 1; }
echo "dkms-build: $ko (version $version, $kver)"
dkms status "${opts[@]}" -m rocetune -v "$version"
