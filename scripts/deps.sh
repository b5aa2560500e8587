#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps.sh - install every Debian package that rocetune's build, tests and
# demo need.  Idempotent: when everything is installed it only checks.
#
# Installing starts and enables no service: a policy-rc.d refuses every
# start while apt-get runs, and the daemons of NO_DAEMON (packages wanted
# for a tool only) that it installs are then disabled and masked.  Those
# the administrator installed before are left exactly as they are.  Before
# installing anything it records the state of every NO_DAEMON service in
# build/deps/services.before, and in /var/lib/rocetune-deps/installed the
# NO_DAEMON packages it installs.
#
# Another apt (unattended-upgrades on a fresh machine) holding apt's or
# dpkg's lock is waited for, up to DEPS_LOCK_TIMEOUT seconds (600).
#
# deps.sh --services: check what the last make deps did to the NO_DAEMON
# services (make check runs it): none that it installed is enabled or
# running, and none changed from the state it recorded before.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# The services as they were before the last make deps in this tree.
BEFORE=$top/build/deps/services.before
# The NO_DAEMON packages make deps installed on this machine, one a line:
# "PACKAGE installing DATE" while apt-get runs, "PACKAGE installed DATE"
# once its services are disabled and masked.
RECORD=/var/lib/rocetune-deps/installed
LOCK_TIMEOUT=${DEPS_LOCK_TIMEOUT:-600}

PACKAGES=(
	# build
	build-essential make gcc pkg-config cpio xz-utils
	linux-headers-amd64 linux-headers-6.12-amd64
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev libcmocka-dev
	libibverbs-dev libmnl-dev
	# the agent rocetuned: sd_notify, /metrics over HTTP(S), its web
	# config (YAML, TLS, bcrypt)
	libsystemd-dev libmicrohttpd-dev libyaml-dev libgnutls28-dev libcrypt-dev
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
	# selftests/monitoring.sh: the rules' alerts through a real Alertmanager
	prometheus-alertmanager
)

# Wanted for a tool, not for their daemon: prometheus would serve on :9090
# just to give us promtool, node_exporter on :9100 just to be started by a
# benchmark in the test VM, alertmanager on :9093 just to be started by
# selftests/monitoring.sh in the test VM.
NO_DAEMON=(prometheus prometheus-node-exporter prometheus-alertmanager)

installed() {
	dpkg-query -W -f '${Status}' "$1" 2> /dev/null | grep -q 'ok installed'
}

# units PACKAGE: the systemd units and SysV init scripts of PACKAGE, as
# "systemd NAME" and "sysv NAME" lines.
units() {
	dpkg-query -L "$1" 2> /dev/null | sed -n \
		-e 's#^\(/usr\)\{0,1\}/lib/systemd/system/\([^/@]*\.\(service\|socket\|timer\)\)$#systemd \2#p' \
		-e 's#^/etc/init\.d/\([^/]*\)$#sysv \1#p'
}

# running PACKAGE: its daemon runs, under any init.  By command line:
# pgrep -x matches the 15 characters of the process name only, and
# prometheus-node-exporter is longer.
running() {
	pgrep -f "^(/usr/bin/)?$1( |\$)"
}

# services: the state of every service of NO_DAEMON, one line each:
# "PACKAGE absent" for a package not installed, else a line
# "PACKAGE KIND NAME ENABLED ACTIVE" per unit or init script, then
# "PACKAGE process running|stopped".  ENABLED is what systemctl is-enabled
# says (with "+wanted" when it is not "enabled" but a .wants or .requires
# link still names the unit), for SysV "enabled" or "disabled" by its
# rc2-5.d start links; ACTIVE is what systemctl is-active says, "-"
# without systemd running.
services() {
	local p kind name en act

	for p in "${NO_DAEMON[@]}"; do
		if ! installed "$p"; then
			echo "$p absent"
			continue
		fi
		while read -r kind name; do
			act=-
			case $kind in
			systemd)
				en=$(systemctl is-enabled "$name" 2> /dev/null) || :
				[ -n "$en" ] || en=unknown
				if [ "$en" != enabled ] &&
				   find /etc/systemd/system -path "*.wants/$name" -o \
					-path "*.requires/$name" | grep . > /dev/null; then
					en=$en+wanted
				fi
				if [ -d /run/systemd/system ]; then
					act=$(systemctl is-active "$name" 2> /dev/null) || :
				fi
				;;
			sysv)
				en=disabled
				if compgen -G "/etc/rc[2-5].d/S??$name" > /dev/null; then
					en=enabled
				fi
				;;
			esac
			echo "$p $kind $name $en $act"
		done < <(units "$p")
		if running "$p" > /dev/null; then
			echo "$p process running"
		else
			echo "$p process stopped"
		fi
	done
}

# record_set PACKAGE STATUS: PACKAGE's line in RECORD says STATUS (now).
record_set() {
	mkdir -p "${RECORD%/*}"
	touch "$RECORD"
	sed -i "/^$1 /d" "$RECORD"
	echo "$1 $2 $(date -u +%Y-%m-%dT%H:%MZ)" >> "$RECORD"
}

# record_of PACKAGE: its status and date in RECORD ("installed DATE"),
# nothing when make deps did not install it.
record_of() {
	[ -r "$RECORD" ] || return 0
	sed -n "s/^$1 //p" "$RECORD"
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
	record_set "$1" installed
}

# off KIND ENABLED ACTIVE: a unit or init script is disabled (a unit also
# masked) and not running.
off() {
	case $1 in
	systemd) [ "$2" = masked ] && { [ "$3" = - ] || [ "$3" = inactive ]; } ;;
	sysv) [ "$2" = disabled ] ;;
	esac
}

# shown KIND NAME: a unit's name, an init script's path.
shown() {
	if [ "$1" = sysv ]; then
		echo "/etc/init.d/$2"
	else
		echo "$2"
	fi
}

# state KIND ENABLED ACTIVE: as said to the user.
state() {
	if [ "$1" = sysv ]; then
		echo "$2"
	elif [ "$3" = - ]; then
		echo "$2 (no systemd running)"
	else
		echo "$2, $3"
	fi
}

# check_no_daemon: compare the NO_DAEMON services with BEFORE.  Those of a
# package that make deps installed (absent before) must be disabled,
# masked and stopped; every other one must be as it was, and is reported
# as make deps' (installed by an earlier run, RECORD) or the
# administrator's.
check_no_daemon() {
	local p now b n kind name en act rec who bad=0 nunits noted=

	if [ ! -r "$BEFORE" ]; then
		echo "deps: no record of the services before make deps" \
			"(${BEFORE#"$top"/}): run make deps first"
		return 1
	fi
	echo "deps: the services of ${NO_DAEMON[*]}; before make deps, $(sed -n 's/^# at //p' "$BEFORE")"
	now=$(services)
	for p in "${NO_DAEMON[@]}"; do
		b=$(grep "^$p " "$BEFORE") || b=
		n=$(grep "^$p " <<< "$now") || n=
		if [ "$n" = "$p absent" ]; then
			echo "deps: $p is not installed (make deps installs it)"
			bad=1
			continue
		fi
		nunits=$(grep -c "^$p \(systemd\|sysv\) " <<< "$n") || :
		if [ "$nunits" = 0 ]; then
			echo "deps: no service of $p found: nothing was checked"
			bad=1
		fi
		if [ -z "$b" ]; then
			echo "deps: $p is not in ${BEFORE#"$top"/}: run make deps again"
			bad=1
			continue
		fi
		if [ "$b" = "$p absent" ]; then
			# Installed by this make deps.
			while read -r _ kind name en act; do
				case $kind in
				systemd | sysv)
					if off "$kind" "$en" "$act"; then
						echo "deps: $(shown "$kind" "$name") (of $p): installed by make deps: $(state "$kind" "$en" "$act")"
					else
						echo "deps: $(shown "$kind" "$name") (of $p): installed by make deps, but" \
							"is $(state "$kind" "$en" "$act") (it must be disabled, masked and stopped)"
						bad=1
					fi
					;;
				process)
					if [ "$name" != stopped ]; then
						echo "deps: $p (installed by make deps) is running:" \
							"$(running "$p" | head -n 3)"
						bad=1
					fi
					;;
				esac
			done <<< "$n"
			continue
		fi
		if [ "$b" != "$n" ]; then
			echo "deps: the services of $p changed across make deps:"
			diff <(echo "$b") <(echo "$n") | sed -n \
				-e 's/^< \(.*\)/deps:   before: \1/p' \
				-e 's/^> \(.*\)/deps:   now:    \1/p'
			bad=1
			continue
		fi
		rec=$(record_of "$p")
		case $rec in
		installing*)
			who="installed by an interrupted make deps ($rec)"
			;;
		installed*)
			who="installed by make deps (${rec#installed }), as it left it"
			while read -r _ kind name en act; do
				case $kind in
				systemd | sysv) off "$kind" "$en" "$act" ||
					who="installed by make deps (${rec#installed }), since changed by the administrator: left as it was"
					;;
				process) [ "$name" = stopped ] ||
					who="installed by make deps (${rec#installed }), since changed by the administrator: left as it was"
					;;
				esac
			done <<< "$n"
			;;
		*)
			who="administrator's, left as it was"
			[ -e "$RECORD" ] || [ -n "${noted:-}" ] ||
				echo "deps: (no $RECORD: make deps installed none of them" \
					"here, or an older one did that kept no record)"
			noted=1
			;;
		esac
		while read -r _ kind name en act; do
			case $kind in
			systemd | sysv) echo "deps: $(shown "$kind" "$name") (of $p): $who: $(state "$kind" "$en" "$act")" ;;
			process) echo "deps: $p's daemon: $who: $name" ;;
			esac
		done <<< "$n"
	done
	if [ "$bad" = 0 ]; then
		echo "deps: make deps started, enabled or changed no daemon of ${NO_DAEMON[*]}"
	else
		echo "deps: make deps installs ${NO_DAEMON[*]} for tools only," \
			"and leaves the administrator's as they are (deps.sh: NO_DAEMON)"
	fi
	return $bad
}

# wait_lock CMD...: run the apt-get command CMD, waiting for apt's and
# dpkg's locks while another process holds them.  DPkg::Lock::Timeout
# makes apt-get wait for dpkg's lock, but apt 2.6's "apt-get update" fails
# at once on the lock of its lists (/var/lib/apt/lists/lock): that is
# retried here.  apt says once a second that it waits: said once.
wait_lock() {
	local start log rc held waiting=

	start=$(date +%s)
	log=$(mktemp)
	while :; do
		rc=0
		"$@" -o DPkg::Lock::Timeout="$LOCK_TIMEOUT" 2>&1 |
			awk -v t="$LOCK_TIMEOUT" -v held="$log" '
			/^Waiting for cache lock: / {
				if ($0 == last)
					next
				if (!said++)
					print "deps: waiting up to " t " s for the lock:"
			}
			/^E: Could not get lock / {
				print > held
				locked = 1
				next
			}
			/^E: Unable to lock / && locked {
				next
			}
			{
				print
				fflush()
				last = $0
			}' || rc=$?
		held=$(sed -n 's/^E: Could not get lock //p' "$log")
		: > "$log"
		if [ "$rc" = 0 ] || [ -z "$held" ]; then
			rm -f "$log"
			return "$rc"
		fi
		if [ $(($(date +%s) - start)) -ge "$LOCK_TIMEOUT" ]; then
			echo "deps: apt's lock is still held after $LOCK_TIMEOUT s" \
				"(DEPS_LOCK_TIMEOUT): $held" >&2
			rm -f "$log"
			return "$rc"
		fi
		if [ -z "$waiting" ]; then
			echo "deps: waiting up to $LOCK_TIMEOUT s for the lock: $held"
			waiting=1
		fi
		sleep 2
	done
}

if [ "${1:-}" = --services ]; then
	check_no_daemon
	exit
fi

# Finish what an interrupted make deps began: a NO_DAEMON package it was
# installing has its services disabled and masked now, before the state
# is recorded.
if [ "$(id -u)" -eq 0 ] && [ -r "$RECORD" ]; then
	for p in "${NO_DAEMON[@]}"; do
		case $(record_of "$p") in
		installing*)
			if installed "$p"; then
				echo "deps: $p was installed by an interrupted make deps"
				no_daemon "$p"
			else
				sed -i "/^$p /d" "$RECORD"
			fi
			;;
		esac
	done
fi

mkdir -p "${BEFORE%/*}"
{
	echo "# at $(date -u '+%Y-%m-%d %H:%M:%S UTC') (deps.sh)"
	services
} > "$BEFORE.tmp"
mv "$BEFORE.tmp" "$BEFORE"

missing=()
for p in "${PACKAGES[@]}"; do
	if ! installed "$p"; then
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
for p in "${NO_DAEMON[@]}"; do
	case " ${missing[*]} " in
	*" $p "*) record_set "$p" installing ;;
	esac
done
wait_lock apt-get update -q
wait_lock apt-get install -y -q --no-install-recommends "${missing[@]}"
for p in "${NO_DAEMON[@]}"; do
	case " ${missing[*]} " in
	*" $p "*) no_daemon "$p" ;;
	esac
done
