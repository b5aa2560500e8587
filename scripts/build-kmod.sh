#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-kmod.sh [-c] KVER - build every kernel module of the tree for KVER
# into build/KVER/ (one copy of the sources per kernel, so that builds for
# 6.1 and 6.12 live side by side), with W=1.  Fails on any compiler
# warning.  With -c, also runs sparse (C=2) and fails on any sparse report.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
sparse=0
if [ "${1:-}" = -c ]; then
	sparse=1
	shift
fi
kver=$("$top/scripts/kver.sh" "${1:-}")
kdir=/lib/modules/$kver/build
out=$top/build/$kver

# Module directories, each with a Kbuild file (MODULE_DIRS overrides).
MODULE_DIRS=${MODULE_DIRS:-"kmod selftests/harness selftests/rocetune_sim"}

[ -d "$kdir" ] || { echo "build-kmod: no headers for $kver in $kdir (make deps)" >&2; exit 1; }
mkdir -p "$out"
cp "$top/VERSION" "$out/VERSION"

# kbuild cannot build in a directory whose path has a space ("building
# multiple external modules is not supported"): it is then given the
# build directory through a symlink of a path without one.
kb=$out
case $out in
*[[:space:]]*)
	link=$(mktemp -d)
	trap 'rm -rf "$link"' EXIT
	ln -s "$out" "$link/build"
	kb=$link/build
	;;
esac

status=0
jobs=$(nproc)
for d in $MODULE_DIRS; do
	mkdir -p "$out/$d"
	# Copy preserving times so that an unchanged source is not rebuilt.
	(cd "$top/$d" && find . -type f \( -name '*.[ch]' -o -name Kbuild \) -print0 |
		cpio --null -pdmu --quiet "$out/$d")
	log=$out/$d/build.log
	if ! make -j"$jobs" -C "$kdir" M="$kb/$d" CONFIG_ROCETUNE=m W=1 modules > "$log" 2>&1; then
		cat "$log" >&2
		echo "build-kmod: $d failed to build for $kver" >&2
		status=1
		continue
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		echo "build-kmod: $d has compiler warnings for $kver (W=1)" >&2
		status=1
	fi
	if [ "$sparse" = 1 ]; then
		slog=$out/$d/sparse.log
		make -j"$jobs" -C "$kdir" M="$kb/$d" CONFIG_ROCETUNE=m W=1 C=2 \
			modules > "$slog" 2>&1 || status=1
		# Reports about our files only: header noise is the kernel's.
		if grep -E "^$kb/$d/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$slog" >&2; then
			echo "build-kmod: sparse reports in $d for $kver" >&2
			status=1
		fi
	fi
done
exit $status
