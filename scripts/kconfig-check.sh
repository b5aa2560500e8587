#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kconfig-check.sh [KVER...] - the Kconfig entry of rocetune, run through
# the kernel's own Kconfig tool (scripts/kconfig/conf of each kernel's
# headers, default 6.1 and 6.12): with every dependency set, ROCETUNE=m
# stays and selects CRC32; with any one of them unset, as a randconfig
# may leave it, olddefconfig drops ROCETUNE, so a kernel without
# netfilter, IPv4 or 64 bits never tries to build it.  The other symbols
# are stand-ins declared here: only the dependencies of rocetune's entry
# are under test.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kvers=("$@")
[ ${#kvers[@]} -gt 0 ] || kvers=(6.1 6.12)
deps=(NET INET NETFILTER INFINIBAND DCB 64BIT)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
bad=0

# The symbols rocetune's entry refers to, and the entry itself.
{
	printf 'config MODULES\n\tbool "modules"\n\tdefault y\n\tmodules\n'
	for s in NET INET NETFILTER DCB 64BIT; do
		printf 'config %s\n\tbool "%s"\n' "$s" "$s"
	done
	printf 'config INFINIBAND\n\ttristate "INFINIBAND"\n'
	printf 'config CRC32\n\ttristate\n'
	printf 'source "%s/Kconfig"\n' "$top"
} > "$work/Kconfig"

# olddefconfig CONF UNSET: the configuration with every dependency but
# UNSET, and ROCETUNE=m, after CONF --olddefconfig; printed.
olddefconfig() {
	local conf=$1 unset=$2 s

	{
		echo CONFIG_MODULES=y
		for s in "${deps[@]}"; do
			if [ "$s" = "$unset" ]; then
				echo "# CONFIG_$s is not set"
			elif [ "$s" = INFINIBAND ]; then
				echo "CONFIG_$s=m"
			else
				echo "CONFIG_$s=y"
			fi
		done
		echo CONFIG_ROCETUNE=m
	} > "$work/.config"
	(cd "$work" && KCONFIG_CONFIG=.config "$conf" --olddefconfig Kconfig) \
		> "$work/conf.log" 2>&1 || { cat "$work/conf.log" >&2; return 1; }
	cat "$work/.config"
}

for k in "${kvers[@]}"; do
	kv=$("$top/scripts/kver.sh" "$k") || { echo "kconfig: no kernel $k"; bad=1; continue; }
	conf=/lib/modules/$kv/build/scripts/kconfig/conf
	if [ ! -x "$conf" ]; then
		echo "kconfig: $conf is missing (make deps)"
		bad=1
		continue
	fi
	if ! out=$(olddefconfig "$conf" none); then
		echo "kconfig ($kv): conf failed"
		bad=1
		continue
	fi
	if grep -qx CONFIG_ROCETUNE=m <<< "$out" && grep -qx 'CONFIG_CRC32=[my]' <<< "$out"; then
		echo "kconfig ($kv): every dependency set: ROCETUNE=m, CRC32 selected"
	else
		echo "kconfig ($kv): every dependency set, but: $(grep -E 'ROCETUNE|CRC32' <<< "$out" | tr '\n' ' ')"
		bad=1
	fi
	for s in "${deps[@]}"; do
		out=$(olddefconfig "$conf" "$s") || { bad=1; continue; }
		if grep -q '^CONFIG_ROCETUNE=' <<< "$out"; then
			echo "kconfig ($kv): $s unset, yet $(grep '^CONFIG_ROCETUNE=' <<< "$out")"
			bad=1
		else
			echo "kconfig ($kv): $s unset: ROCETUNE dropped"
		fi
	done
done
exit $bad
