#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# checkpatch.sh [FILE...] - run the kernel's checkpatch.pl --strict
# --no-tree on the kernel-side sources (default: every .c/.h under kmod/
# and selftests/).  checkpatch.pl and its data files are taken from
# Debian's linux-source-6.1 tarball at check time into build/checkpatch/;
# they are never part of this tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/checkpatch

if [ ! -f "$dir/checkpatch.pl" ]; then
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "checkpatch: linux-source-6.1 is not installed (make deps)" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=2 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	mapfile -t files < <(cd "$top" && find kmod selftests -name '*.[ch]' | sort)
fi

# netdev's ignore list, plus FILE_PATH_CHANGES (no MAINTAINERS here).
cd "$top"
perl "$dir/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore COMMIT_LOG_LONG_LINE,MACRO_ARG_REUSE,ALLOC_SIZEOF_STRUCT,NO_AUTHOR_SIGN_OFF,GIT_COMMIT_ID,FILE_PATH_CHANGES \
	-f "${files[@]}"
