#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-doc.sh [FILE...] - the kernel's scripts/kernel-doc -none -Wall on
# the kernel-side sources (default: every .c/.h under kmod/ and
# selftests/): fails on any warning, a comment that says /** but is not
# kernel-doc, a missing parameter, member or return description.  The
# script is the one Debian's newest linux-kbuild package ships.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdoc=$(printf '%s\n' /usr/src/linux-kbuild-*/scripts/kernel-doc | sort -V | tail -n 1)
[ -f "$kdoc" ] || { echo "kernel-doc: no linux-kbuild package (make deps)" >&2; exit 1; }

files=("$@")
cd "$top"
if [ ${#files[@]} -eq 0 ]; then
	mapfile -t files < <(find kmod selftests -name '*.[ch]' | sort)
fi

out=$(perl "$kdoc" -none -Wall "${files[@]}" 2>&1) || true
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "kernel-doc: $(printf '%s\n' "$out" | grep -c warning) warning(s) in ${#files[@]} files" >&2
	exit 1
fi
echo "kernel-doc: ${#files[@]} files, no warnings"
