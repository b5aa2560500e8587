#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms-src.sh DESTDIR - assemble the DKMS source tree of rocetune.ko in
# DESTDIR/rocetune-VERSION: the module's sources, the VERSION file, the
# kernel-version helper and dkms.conf with its version filled in.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
version=$(cat "$top/VERSION")
src=$dest/rocetune-$version

rm -rf "$src"
mkdir -p "$src/scripts"
(cd "$top" && find kmod -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -print0 |
	cpio --null -pdm --quiet "$src")
cp "$top/VERSION" "$top/Kconfig" "$top/dkms/Makefile" "$src/"
cp "$top/scripts/kver.sh" "$src/scripts/"
sed "s/@VERSION@/$version/" "$top/dkms/dkms.conf" > "$src/dkms.conf"
echo "$src"
