#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps.sh - install every Debian package that rocetune's build, tests and
# demo need.  Idempotent: when everything is installed it only checks.
set -euo pipefail

PACKAGES=(
	# build
	build-essential make gcc pkg-config cpio xz-utils
	linux-headers-amd64 linux-headers-6.12-amd64
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev libcmocka-dev
	libibverbs-dev libmnl-dev libinih-dev
	# static checks (checkpatch.pl comes from the linux-source tarball)
	sparse shellcheck linux-source-6.1 perl python3
	# packaging
	dkms
	# test VM: kernels to boot, QEMU, the initramfs' busybox
	qemu-system-x86 linux-image-amd64 linux-image-6.12-amd64
	busybox-static kmod
	# tools used inside the VM
	rdma-core ibverbs-utils rdmacm-utils perftest iproute2 ethtool
	tcpdump tshark jq procps util-linux
	# promtool, to check the Prometheus text format
	prometheus
)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} packages are installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run 'make deps' as root to install them" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The test VM boots its own initramfs: skip building the distribution's.
export INITRD=No
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
