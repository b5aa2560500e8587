#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh - what the benchmarks share, on top of the selftests' lib.sh
# (which they all use for the wire, the modules and the devices).

# shellcheck source=../selftests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../selftests/lib.sh"

# field KEY LINE: the value of KEY in LINE, a helper's "KEY=VALUE ..."
# output line.
field() {
	local w

	for w in $2; do
		[ "${w%%=*}" = "$1" ] && echo "${w#*=}"
	done
}
