#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kver.sh [PATTERN] - print the full release of an installed kernel.
#
# PATTERN is a full release ("6.1.0-57-amd64") or a version prefix ("6.1",
# "6.12"): a prefix matches the newest release that starts with it followed
# by "." or "-", so "6.1" never matches 6.12.  Without PATTERN: the running
# kernel if its build directory exists, else the newest installed headers.
# Kernels are looked up in /lib/modules; a kernel counts as installed when
# its build directory (headers) or its modules are present.
set -eu

pattern=${1:-}
moddir=${KVER_MODDIR:-/lib/modules}

if [ -z "$pattern" ]; then
	running=$(uname -r)
	if [ -d "$moddir/$running/build" ]; then
		echo "$running"
		exit 0
	fi
	pick=$(for d in "$moddir"/*/build; do
		[ -d "$d" ] && basename "$(dirname "$d")"; done | sort -V | tail -n 1)
	if [ -z "$pick" ]; then
		echo "kver.sh: no kernel headers in $moddir (run 'make deps')" >&2
		exit 1
	fi
	echo "$pick"
	exit 0
fi

if [ -d "$moddir/$pattern" ]; then
	echo "$pattern"
	exit 0
fi

pick=$(for d in "$moddir"/"$pattern".* "$moddir"/"$pattern"-*; do
	[ -d "$d" ] && basename "$d"
done | sort -V | tail -n 1)
if [ -z "$pick" ]; then
	echo "kver.sh: no installed kernel matches '$pattern' in $moddir" >&2
	exit 1
fi
echo "$pick"
