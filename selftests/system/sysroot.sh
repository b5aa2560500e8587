#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sysroot.sh DIR 'COMMAND' - run COMMAND (bash) as root chrooted into a
# writable copy of the host's root: an overlay whose lower layer is / and
# whose upper layer is DIR/upper, mounted in a private mount namespace that
# ends with the command.  The host is never written; DIR/upper holds
# exactly what COMMAND changed (deleted files as whiteouts), and a later
# call with the same DIR goes on from there.  /proc, /dev, and tmpfs on
# /run and /tmp are mounted for COMMAND, whose exit status is returned.
set -euo pipefail

dir=$(mkdir -p "$1" && cd "$1" && pwd)
cmd=$2
mkdir -p "$dir/upper" "$dir/work" "$dir/root"

# shellcheck disable=SC2016 # the inner script expands its own arguments
exec unshare --mount --propagation private /bin/bash -euc '
dir=$1 cmd=$2
r=$dir/root
mount -t overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" overlay "$r"
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/run"
mount -t tmpfs tmpfs "$r/tmp"
exec chroot "$r" /bin/bash -c "$cmd"
' sysroot "$dir" "$cmd"
