#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps.sh - what make deps (scripts/deps.sh) does to the daemons of the
# packages it wants for a tool only (NO_DAEMON: prometheus,
# prometheus-node-exporter), and how it waits for another apt.  Run on a
# host, as root, in sysroots (sysroot.sh, an overlay of the host's root,
# with systemd not running): there dpkg purges the two packages, so that
# the real apt-get, dpkg, maintainer scripts and systemctl of the host
# install them again through scripts/deps.sh, from a local repository of
# their .debs (the host's apt cache, else apt-get download), which keeps
# the run off the network and the host's apt untouched.
#
# - The administrator installed, enabled and runs node_exporter; make deps
#   installs prometheus while another process holds dpkg's lock: it waits,
#   masks prometheus, leaves node_exporter enabled and running, and
#   "deps.sh --services" (make check's step) passes.
# - Neither is installed; another process holds apt's lists lock: make
#   deps waits, then both end up installed, disabled and masked; a second
#   make deps changes nothing and the check passes again.
# - The check fails when a daemon's state changed across make deps.
#
# TAP on stdout.
set -uo pipefail

source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	local_repo
	admin_setup
	admin_dpkg_lock_waited
	admin_check_passes
	admin_daemon_kept
	none_lists_lock_waited
	none_installed_masked
	none_check_passes
	again_changes_nothing
	check_catches_change
"

NO_DAEMON=(prometheus prometheus-node-exporter)
base=$RT_TOP/build/system
sr=$base/deps
logs=$base/deps-logs
repo=$base/deps-repo
# Seconds the other process holds a lock.
HOLD=5
NE_PORT=$((RANDOM % 1000 + 23000))

# In a PID namespace of its own: a daemon of the host's administrator is
# not the sysroot's.
in_root() {
	"$RT_SELFTESTS/system/sysroot.sh" -p "$sr" "$1"
}

# The commands of the sysroot's shell: HOLD LOCKFILE SECONDS takes LOCKFILE
# with fcntl (as apt and dpkg do: flock(1) would not stop them) and holds
# it; pristine removes both packages, the masks of an earlier make deps and
# make deps' record, and makes the local repository apt's only source.
# shellcheck disable=SC2016 # expanded in the sysroot
prelude='
set -uo pipefail
hold() {
	python3 -c "
import fcntl, sys, time
f = open(sys.argv[1], \"a\")
fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
print(\"held\", flush=True)
time.sleep(int(sys.argv[2]))
" "$@"
}
pristine() {
	dpkg --purge prometheus prometheus-node-exporter || return 1
	for u in prometheus.service prometheus-node-exporter.service; do
		[ "$(readlink /etc/systemd/system/$u)" != /dev/null ] ||
			rm /etc/systemd/system/$u
	done
	rm -rf /var/lib/rocetune-deps
	rm -f /etc/apt/sources.list.d/*
	echo "deb [trusted=yes] file:'"$repo"' ./" > /etc/apt/sources.list
}
'

# The two .debs, at the versions installed on the host, as a repository.
local_repo() {
	local p v a f

	RET=0
	rm -rf "$repo" "$sr" "$logs"
	mkdir -p "$repo" "$logs"
	for p in "${NO_DAEMON[@]}"; do
		read -r v a < <(dpkg-query -W -f '${Version} ${Architecture}\n' "$p")
		f=/var/cache/apt/archives/${p}_${v//:/%3a}_$a.deb
		if [ -f "$f" ]; then
			cp "$f" "$repo/"
		else
			(cd "$repo" && apt-get download -q "$p=$v") > "$logs/download.log" 2>&1 ||
				check_err 1 "no .deb of $p $v: apt-get download: $(tail -n 2 "$logs/download.log")"
		fi
	done
	# Packages.xz too: apt looks for it first.
	(cd "$repo" && dpkg-scanpackages -m . > Packages 2> "$logs/scan.log" &&
		xz -k Packages)
	check_err $? "dpkg-scanpackages failed: $(tail -n 2 "$logs/scan.log")"
	[ "$(grep -c '^Package: ' "$repo/Packages")" = 2 ]
	check_err $? "the repository has not the 2 packages: $(grep '^Package: ' "$repo/Packages")"
	log_test "a local repository of $(cd "$repo" && echo *.deb)"
}

# The administrator installs node_exporter (Debian enables it) and runs it.
# shellcheck disable=SC2016 # expanded in the sysroot
admin_setup() {
	local out

	RET=0
	out=$(in_root "$prelude"'
pristine > /dev/null
mine=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d
	chmod 0755 /usr/sbin/policy-rc.d
	mine=1
fi
apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends prometheus-node-exporter || exit 1
[ -z "$mine" ] || rm /usr/sbin/policy-rc.d
echo "enabled: $(systemctl is-enabled prometheus-node-exporter.service)"
echo "prometheus: $(dpkg-query -W -f "\${Status}" prometheus 2>&1)"
' 2>&1)
	check_err $? "the administrator's apt-get install failed: $(tail -n 3 <<< "$out")"
	echo "$out" > "$logs/admin-setup.log"
	grep -qx 'enabled: enabled' <<< "$out"
	check_err $? "node_exporter is not enabled after its install: $(grep '^enabled:' <<< "$out")"
	grep -q '^prometheus: .*no packages found' <<< "$out"
	check_err $? "prometheus is installed: $(grep '^prometheus:' <<< "$out")"
	log_test "setup: the administrator installed node_exporter (enabled), prometheus absent"
}

# make deps, while node_exporter runs and another process holds dpkg's lock.
# shellcheck disable=SC2016 # expanded in the sysroot
admin_run() {
	in_root "$prelude"'
/usr/bin/prometheus-node-exporter --collector.disable-defaults \
	--web.listen-address=127.0.0.1:'"$NE_PORT"' > /var/tmp/ne.log 2>&1 &
ne=$!
for i in $(seq 50); do
	pgrep -f "^/usr/bin/prometheus-node-exporter " > /dev/null && break
	sleep 0.1
done
echo "running before: $(pgrep -f "^/usr/bin/prometheus-node-exporter " > /dev/null && echo yes)"
coproc H { hold /var/lib/dpkg/lock-frontend '"$HOLD"'; }
read -r held <&"${H[0]}"
echo "holder: $held"
t0=$(date +%s)
(cd '"$RT_TOP"' && scripts/deps.sh)
echo "deps: rc=$? seconds=$(($(date +%s) - t0))"
(cd '"$RT_TOP"' && scripts/deps.sh --services)
echo "services: rc=$?"
echo "node_exporter: $(systemctl is-enabled prometheus-node-exporter.service)"
echo "prometheus: $(systemctl is-enabled prometheus.service)"
echo "running after: $(kill -0 $ne 2> /dev/null && pgrep -f "^/usr/bin/prometheus-node-exporter " > /dev/null && echo yes)"
kill $ne
' > "$logs/admin-run.log" 2>&1
}

admin_dpkg_lock_waited() {
	local l=$logs/admin-run.log s

	RET=0
	admin_run
	grep -qx 'running before: yes' "$l"
	check_err $? "setup: node_exporter does not run ($(grep '^running before' "$l"))"
	grep -qx 'holder: held' "$l"
	check_err $? "setup: the lock holder did not take the lock (build/system/deps-logs/admin-run.log)"
	grep -q '^deps: rc=0 ' "$l"
	check_err $? "make deps failed: $(grep -E '^(E:|deps: rc)' "$l" | head -n 3)"
	s=$(sed -n 's/^deps: rc=.* seconds=//p' "$l")
	[ "${s:-0}" -ge $((HOLD - 1)) ]
	check_err $? "make deps took ${s:-?} s, less than the lock was held ($HOLD s)"
	grep -q '^Waiting for cache lock: Could not get lock /var/lib/dpkg/lock-frontend' "$l" &&
		grep -q '^deps: waiting up to [0-9]* s for the lock:' "$l"
	check_err $? "no message that make deps waits for dpkg's lock"
	log_test "make deps waits for dpkg's lock, held by another process for $HOLD s (took ${s:-?} s), then installs"
}

admin_check_passes() {
	local l=$logs/admin-run.log

	RET=0
	grep -qx 'services: rc=0' "$l"
	check_err $? "deps.sh --services failed: $(grep -B3 '^services: rc' "$l" | head -n 3)"
	grep -q "^deps: prometheus-node-exporter.service (of prometheus-node-exporter): administrator's, left as it was: enabled" "$l"
	check_err $? "node_exporter is not reported as the administrator's, enabled"
	grep -q "^deps: prometheus.service (of prometheus): installed by make deps: masked" "$l"
	check_err $? "prometheus is not reported as installed by make deps, masked"
	sed -n "/^deps: the services of/,/^services: rc/p" "$l" | sed 's/^/# /'
	log_test "make check's step passes: node_exporter the administrator's, prometheus masked"
}

admin_daemon_kept() {
	local l=$logs/admin-run.log

	RET=0
	grep -qx 'node_exporter: enabled' "$l"
	check_err $? "node_exporter is no longer enabled: $(grep '^node_exporter:' "$l")"
	grep -qx 'running after: yes' "$l"
	check_err $? "node_exporter no longer runs"
	grep -qx 'prometheus: masked' "$l"
	check_err $? "prometheus is not masked: $(grep '^prometheus:' "$l")"
	log_test "after make deps node_exporter is still enabled and running, prometheus masked"
}

# make deps on a machine with neither, while another process holds apt's
# lists lock.
# shellcheck disable=SC2016 # expanded in the sysroot
none_lists_lock_waited() {
	local l=$logs/none-run.log s

	RET=0
	rm -rf "$sr"
	in_root "$prelude"'
pristine > /dev/null || exit 1
echo "before: $(dpkg-query -W prometheus prometheus-node-exporter 2>&1 | grep -c "no packages found")"
coproc H { hold /var/lib/apt/lists/lock '"$HOLD"'; }
read -r held <&"${H[0]}"
echo "holder: $held"
t0=$(date +%s)
(cd '"$RT_TOP"' && scripts/deps.sh)
echo "deps: rc=$? seconds=$(($(date +%s) - t0))"
' > "$l" 2>&1
	check_err $? "setup: cannot purge the packages in the sysroot (build/system/deps-logs/none-run.log)"
	grep -qx 'before: 2' "$l"
	check_err $? "setup: the packages are not both absent: $(grep '^before' "$l")"
	grep -qx 'holder: held' "$l"
	check_err $? "setup: the lock holder did not take the lock"
	grep -q '^deps: rc=0 ' "$l"
	check_err $? "make deps failed: $(grep -E '^(E:|deps: rc)' "$l" | head -n 3)"
	s=$(sed -n 's/^deps: rc=.* seconds=//p' "$l")
	[ "${s:-0}" -ge $((HOLD - 1)) ]
	check_err $? "make deps took ${s:-?} s, less than the lock was held ($HOLD s)"
	grep -q '^deps: waiting up to [0-9]* s for the lock: /var/lib/apt/lists/lock. It is held by process [0-9]* (python3)' "$l"
	check_err $? "no message that make deps waits for the lists lock"
	log_test "make deps waits for apt's lists lock, held by another process for $HOLD s (took ${s:-?} s)"
}

# The state of both packages' services, by the host's own tools.
# shellcheck disable=SC2016 # expanded in the sysroot
none_state() {
	in_root '
for p in prometheus prometheus-node-exporter; do
	echo "$p: $(dpkg-query -W -f "\${Status}" $p) $(systemctl is-enabled $p.service)" \
		"wants=$(find /etc/systemd/system -name $p.service -path "*.wants/*" | wc -l)" \
		"rc-start=$(ls /etc/rc[2-5].d | grep -c "^S..$p\$")"
done
cat /var/lib/rocetune-deps/installed
'
}

none_installed_masked() {
	local out p

	RET=0
	out=$(none_state 2>&1)
	echo "$out" > "$logs/none-state.log"
	for p in "${NO_DAEMON[@]}"; do
		grep -qx "$p: install ok installed masked wants=0 rc-start=0" <<< "$out"
		check_err $? "$(grep "^$p:" <<< "$out")"
		grep -q "^$p installed " <<< "$out"
		check_err $? "make deps' record has no '$p installed'"
	done
	printf '# %s\n' "${out//$'\n'/$'\n'# }"
	log_test "both installed, disabled and masked (no .wants link, no rc start link)"
}

none_check_passes() {
	local out

	RET=0
	out=$(in_root "cd '$RT_TOP' && scripts/deps.sh --services" 2>&1)
	check_err $? "deps.sh --services failed: $(grep -v ': installed by make deps' <<< "$out" | head -n 3)"
	[ "$(grep -c ': installed by make deps: \(masked\|disabled\)' <<< "$out")" = 4 ]
	check_err $? "not 4 services installed by make deps and masked: $out"
	printf '# %s\n' "${out//$'\n'/$'\n'# }"
	log_test "make check's step passes: both installed by make deps, masked"
}

again_changes_nothing() {
	local out

	RET=0
	out=$(in_root "cd '$RT_TOP' && scripts/deps.sh && scripts/deps.sh --services" 2>&1)
	check_err $? "make deps, then deps.sh --services failed: $(tail -n 3 <<< "$out")"
	[ "$(grep -c ': installed by make deps (.*), as it left it: \(masked\|disabled\)' <<< "$out")" = 4 ]
	check_err $? "not 4 services reported as make deps left them: $out"
	log_test "make deps again installs nothing; the check passes, all as make deps left them"
}

# A daemon enabled after the state was recorded, as a make deps that
# enabled one would: the check fails and names it.
check_catches_change() {
	local out rc

	RET=0
	out=$(in_root "cd '$RT_TOP' && scripts/deps.sh > /dev/null &&
		systemctl --quiet unmask prometheus.service &&
		systemctl --quiet enable prometheus.service &&
		scripts/deps.sh --services" 2>&1)
	rc=$?
	check_fail "$rc" "deps.sh --services passed with prometheus.service enabled"
	grep -q '^deps:   now:    prometheus systemd prometheus.service enabled' <<< "$out"
	check_err $? "no line naming the change: $out"
	log_test "the check fails when make deps enabled a daemon (prometheus.service, rc $rc)"
}

rt_require_root
mkdir -p "$base"
rt_run_tests
