#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sysroot.sh [-p] DIR 'COMMAND' - run COMMAND (bash) as root chrooted into a
# writable copy of the host's root: an overlay whose lower layer is / and
# whose upper layer is DIR/upper, mounted in a private mount namespace that
# ends with the command.  The host is never written; DIR/upper holds
# exactly what COMMAND changed (deleted files as whiteouts), and a later
# call with the same DIR goes on from there.  /proc, /dev, and tmpfs on
# /run and /tmp are mounted for COMMAND, whose exit status is returned.
# A tree under /tmp or /run (a user's clone) would be hidden by those: it
# gets an overlay of its own at its path (upper layer DIR/tree-upper).
#
# -p: COMMAND runs in a PID namespace of its own, whose /proc shows only
# its processes (not the host's daemons), and which ends with it.
set -euo pipefail

pidns=()
if [ "${1:-}" = -p ]; then
	pidns=(--pid --fork)
	shift
fi
dir=$(mkdir -p "$1" && cd "$1" && pwd)
cmd=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir/upper" "$dir/work" "$dir/root" "$dir/tree-upper" "$dir/tree-work"
case $top in
*,* | *:*)
	echo "sysroot.sh: an overlay cannot have a path with , or : ($top)" >&2
	exit 1
	;;
esac

# shellcheck disable=SC2016 # the inner script expands its own arguments
exec unshare --mount --propagation private "${pidns[@]}" /bin/bash -euc '
dir=$1 cmd=$2 top=$3
r=$dir/root
mount -t overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" overlay "$r"
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/run"
mount -t tmpfs tmpfs "$r/tmp"
case $top in
/tmp/* | /run/*)
	mkdir -p "$r$top"
	mount -t overlay -o "lowerdir=$top,upperdir=$dir/tree-upper,workdir=$dir/tree-work" \
		overlay "$r$top"
	;;
esac
exec chroot "$r" /bin/bash -c "$cmd"
' sysroot "$dir" "$cmd" "$top"
