#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs shellcheck on every shell script of the tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mapfile -t files < <({
	find scripts selftests bench dkms udev .ci -type f -name '*.sh' 2> /dev/null
	echo selftests/vm/init
	echo selftests/vm/init-systemd
	echo udev/rocetune-udev-wants
	echo selftests/demo/dcb
	echo selftests/demo/rocetuned
	echo .ci/run
} | sort -u)
shellcheck -x -P SCRIPTDIR "${files[@]}"
echo "shellcheck: ${#files[@]} scripts clean"
