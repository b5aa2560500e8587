#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# install-kmod.sh KVER [DESTDIR] - install the rocetune.ko that
# build-kmod.sh built for KVER (build/KVER/kmod/) into
# DESTDIR/lib/modules/KVER/updates/ with kbuild's modules_install, which
# signs and compresses it as the kernel's configuration says.  No depmod:
# "make install-kmod" runs it when there is no DESTDIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=$("$top/scripts/kver.sh" "${1:-}")
destdir=${2:-}
kdir=/lib/modules/$kver/build
out=$top/build/$kver/kmod

if [ ! -e "$out/rocetune.ko" ]; then
	echo "install-kmod: no $out/rocetune.ko (scripts/build-kmod.sh $kver)" >&2
	exit 1
fi
# kbuild takes no M= with a space: build-kmod.sh then builds through a
# symlink of a path without one, which is gone, and modules_install wants
# the objects at the paths of the build (modules.order): build again
# through a new symlink (the sources are those build-kmod.sh copied), and
# install from there.
kb=$out
case $out in
*[[:space:]]*)
	link=$(mktemp -d)
	trap 'rm -rf "$link"' EXIT
	ln -s "$out" "$link/kmod"
	kb=$link/kmod
	make -C "$kdir" M="$kb" CONFIG_ROCETUNE=m modules > "$out/install-build.log" 2>&1 || {
		cat "$out/install-build.log" >&2
		exit 1
	}
	;;
esac
make -C "$kdir" M="$kb" CONFIG_ROCETUNE=m INSTALL_MOD_DIR=updates \
	${destdir:+INSTALL_MOD_PATH="$destdir"} modules_install
