#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps.sh - install every Debian package that rocetune's build, tests and
# demo need.  Idempotent: when everything is installed it only checks.
#
# Installing starts and enables no service: a policy-rc.d refuses every
# start while apt-get runs, and the daemons of NO_DAEMON (packages wanted
# for a tool only) are then disabled and masked.
#
# deps.sh --services: check that no daemon of NO_DAEMON is running,
# enabled or listening (make check runs it).
set -euo pipefail

PACKAGES=(
	# build
	build-essential make gcc pkg-config cpio xz-utils
	linux-headers-amd64 linux-headers-6.12-amd64
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev libcmocka-dev
	libibverbs-dev libmnl-dev libinih-dev
	# the agent rocetuned: sd_notify, /metrics over HTTP
	libsystemd-dev libmicrohttpd-dev
	# static checks (checkpatch.pl comes from the linux-source tarball)
	sparse shellcheck linux-source-6.1 perl python3
	# the YNL spec (scripts/spec-check.py, the selftests' netlink clients)
	python3-yaml
	# packaging; the systemd-as-PID-1 VM boots the host's systemd and udev
	dkms debhelper dh-dkms lintian systemd udev man-db
	# test VM: kernels to boot, QEMU, the initramfs' busybox
	qemu-system-x86 linux-image-amd64 linux-image-6.12-amd64
	busybox-static kmod
	# tools used inside the VM
	rdma-core ibverbs-utils rdmacm-utils perftest iproute2 ethtool
	tcpdump tshark jq gojq procps util-linux
	# promtool, to check the Prometheus text format
	prometheus
	# bench/metrics_scrape.sh: node_exporter's infiniband collector
	prometheus-node-exporter
)

# Wanted for a tool, not for their daemon: prometheus would serve on :9090
# just to give us promtool, node_exporter on :9100 just to be started by a
# benchmark in the test VM.
NO_DAEMON=(prometheus prometheus-node-exporter)

# units PACKAGE: the systemd units and SysV init scripts of PACKAGE, as
# "systemd NAME" and "sysv NAME" lines.
units() {
	dpkg-query -L "$1" 2> /dev/null | sed -n \
		-e 's#^\(/usr\)\{0,1\}/lib/systemd/system/\([^/@]*\.\(service\|socket\|timer\)\)$#systemd \2#p' \
		-e 's#^/etc/init\.d/\([^/]*\)$#sysv \1#p'
}

# no_daemon PACKAGE: stop, disable and mask its services (with or without
# systemd running), so that neither this boot nor the next runs them.
no_daemon() {
	local kind name

	while read -r kind name; do
		case $kind in
		systemd)
			if [ -d /run/systemd/system ]; then
				systemctl stop "$name" || true
			fi
			# Without systemd running, systemctl edits the links.
			systemctl --quiet disable "$name" &&
				systemctl --quiet mask "$name"
			echo "deps: $name (of $1) disabled and masked; to run it:" \
				"systemctl unmask $name && systemctl enable --now $name"
			;;
		sysv)
			[ -d /run/systemd/system ] ||
				invoke-rc.d "$name" stop > /dev/null 2>&1 || true
			update-rc.d "$name" disable > /dev/null
			;;
		esac
	done < <(units "$1")
}

# check_no_daemon: every service of NO_DAEMON is stopped and disabled.
check_no_daemon() {
	local p kind name bad=0 st n

	for p in "${NO_DAEMON[@]}"; do
		dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'ok installed' ||
			continue
		n=0
		while read -r kind name; do
			n=$((n + 1))
			case $kind in
			systemd)
				# Enabled: a symlink in a .wants or .requires directory.
				if find /etc/systemd/system -path "*.wants/$name" -o \
					-path "*.requires/$name" | grep . > /dev/null; then
					echo "deps: $name (of $p) is enabled"
					bad=1
				fi
				if [ -d /run/systemd/system ] &&
				   st=$(systemctl is-active "$name") ; then
					echo "deps: $name (of $p) is $st"
					bad=1
				fi
				;;
			sysv)
				if compgen -G "/etc/rc[2-5].d/S??$name" > /dev/null; then
					echo "deps: /etc/init.d/$name (of $p) is enabled"
					bad=1
				fi
				;;
			esac
		done < <(units "$p")
		if [ "$n" = 0 ]; then
			echo "deps: no service of $p found: nothing was checked"
			bad=1
		fi
		# Running at all, say under another init.  By command line:
		# pgrep -x matches the 15 characters of the process name
		# only, and prometheus-node-exporter is longer.
		if pgrep -f "^(/usr/bin/)?$p( |\$)" > /dev/null; then
			echo "deps: $p is running:" \
				"$(pgrep -a -f "^(/usr/bin/)?$p( |\$)" | head -n 3)"
			bad=1
		fi
	done
	if [ "$bad" = 0 ]; then
		echo "deps: no daemon of ${NO_DAEMON[*]} runs or is enabled"
	else
		echo "deps: make deps installs ${NO_DAEMON[*]} for tools only" \
			"(deps.sh: NO_DAEMON)"
	fi
	return $bad
}

if [ "${1:-}" = --services ]; then
	check_no_daemon
	exit
fi

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
# No service starts while installing (invoke-rc.d and deb-systemd-invoke
# ask policy-rc.d), unless the machine has a policy of its own.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# rocetune deps.sh: start nothing while installing\nexit 101\n' \
		> "$policy"
	chmod 0755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
for p in "${NO_DAEMON[@]}"; do
	case " ${missing[*]} " in
	*" $p "*) no_daemon "$p" ;;
	esac
done
