#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mkinitramfs.sh KVER ENVFILE OUTPUT - build the test VM's initramfs.
#
# An uncompressed cpio with busybox, the modules needed to mount the host
# root over 9p (decompressed: busybox insmod takes plain .ko files), the
# init script next to this file and ENVFILE as /rt.env.
set -euo pipefail

kver=$1
envfile=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)

# busybox-static installs a statically linked /bin/busybox.
busybox=/bin/busybox
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: a static $busybox is needed (busybox-static)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"
cp "$envfile" "$tmp/rt.env"

# Modules for virtio-9p and overlayfs, in dependency order.
: > "$tmp/modules.list"
modprobe -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p overlay |
while read -r kind path _; do
	[ "$kind" = insmod ] || continue
	name=$(basename "$path")
	case "$name" in
	*.ko.xz) xz -dc "$path" > "$tmp/lib/modules/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$path" > "$tmp/lib/modules/${name%.zst}"; name=${name%.zst} ;;
	*.ko.gz) gzip -dc "$path" > "$tmp/lib/modules/${name%.gz}"; name=${name%.gz} ;;
	*) cp "$path" "$tmp/lib/modules/$name" ;;
	esac
	grep -qx "$name" "$tmp/modules.list" || echo "$name" >> "$tmp/modules.list"
done

(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet) > "$out"
