#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The shipped Prometheus rules (monitoring/rocetune.rules.yml) and Grafana
# dashboard (monitoring/grafana/rocetune.json) end to end, with the real
# servers: rocetuned on a simulated mlx5 NIC with rocetune.ko loaded,
# scraped every second by Debian's prometheus, which evaluates the rules
# every second and sends its alerts to Debian's prometheus-alertmanager,
# which posts them to a webhook (a small python3 HTTP server that records
# every POST with its arrival time).
#
# - A PFC pause storm injected on the sim NIC (its pfc_storm knob) reaches
#   the webhook and Alertmanager's API as a firing RoceTunePauseStorm with
#   the host, netdev and prio labels, and resolves after the storm ends;
#   the storm -> webhook latency is printed.
# - A profile apply the sim refuses (fail_next_set: its first write fails
#   with EINVAL) fires RoceTuneProfileApplyFailed for the NIC.
# - kill -9 of the agent fires RoceTuneAgentDown.
# - Every query of the dashboard, its variables substituted, returns data
#   from this Prometheus (/api/v1/query), and the variables' own queries
#   offer the values substituted.
# - No other alert reaches the webhook.
#
# The rules are loaded from a copy in which only the "for:" durations are
# shortened, by one stated transformation (minutes become seconds: "for:
# 1m" -> "for: 1s", "for: 5m" -> "for: 5s"; durations in seconds kept);
# the test checks that the copy differs from the shipped file in nothing
# else, so the expressions, labels and annotations are the shipped ones.

ALL_TESTS="
	rules_copy
	servers_up
	storm_alert
	apply_failed_alert
	dashboard_queries
	agent_down_alert
	no_other_alerts
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_CLI=${RT_CLI:-$RT_TOP/build/userspace/rocetune}
RT_AGENT=${RT_AGENT:-$RT_TOP/build/userspace/rocetuned}
RULES=$RT_TOP/monitoring/rocetune.rules.yml
DASHBOARD=$RT_TOP/monitoring/grafana/rocetune.json
SIM_BUS=/sys/bus/rocetune_sim
DFS=/sys/kernel/debug/rocetune_sim
ID=$((RANDOM % 700 + 100))
DEV=rsim$ID
WORK=$(mktemp -d /tmp/rt-mon.XXXXXX)
LOG=${RT_OUT:+$RT_OUT/monitoring-agent-$(uname -r).log}
LOG=${LOG:-$WORK/agent.log}
HOOK=$WORK/webhook.jsonl
AGENT_PID=
PROM_PID=
AM_PID=
HOOK_PID=
AG_PORT=
PROM_PORT=
T_UP=
AM_PORT=
HOOK_PORT=
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"

stop_pid() {
	[ -n "$1" ] || return 0
	kill "$1" 2> /dev/null
	wait "$1" 2> /dev/null
}

cleanup() {
	stop_pid "$PROM_PID"
	stop_pid "$AM_PID"
	stop_pid "$HOOK_PID"
	stop_pid "$AGENT_PID"
	# Their logs, for a failure to be read after the VM is gone.
	if [ -n "$RT_OUT" ]; then
		for f in prometheus.log alertmanager.log webhook.jsonl; do
			[ ! -f "$WORK/$f" ] ||
				cp "$WORK/$f" "$RT_OUT/monitoring-$(uname -r)-$f"
		done
	fi
	echo "$ID" > "$SIM_BUS/del_device" 2> /dev/null
	rt_kmod_unload
	rt_sim_unload
	rm -rf "$WORK"
}
trap cleanup EXIT

# free_port: a TCP port in 20000..59999 that nothing listens on (the
# guest has its own network stack, but a host run must not take a port
# of the host's node_exporter, Prometheus or Alertmanager either).
free_port() {
	local p

	while :; do
		p=$((RANDOM % 40000 + 20000))
		case " $AG_PORT $PROM_PORT $AM_PORT $HOOK_PORT " in
		*" $p "*) continue ;;
		esac
		rt_port_listening "$p" || break
	done
	echo "$p"
}

# The NIC: lossless on priority 3, DCQCN, storm action timeout.  $1: the
# CNP DSCP (changed to make the agent apply on SIGHUP).
write_profile() {
	cat > "$ROCETUNE_PROFILE_DIR/50-mon.conf" << EOF
[Match]
Name=$DEV

[Lossless]
PFC=3
PFCStormTimeoutMs=500

[DCQCN]
CNPDSCP=$1

[Agent]
PollIntervalSec=1

[Watchdog]
Action=timeout
TimeoutMs=200
StormMs=100
RestoreAfterMs=1000
EOF
}

start_agent() {
	"$RT_AGENT" --foreground --metrics-listen "127.0.0.1:$AG_PORT" \
		--poll-interval 5 2>> "$LOG" &
	AGENT_PID=$!
}

log_has() {
	grep -E -- "$1" "$LOG" > /dev/null
}

setup() {
	: > "$LOG"
	rt_sim_load || return 1
	rt_kmod_load || return 1
	echo "$ID mlx5" > "$SIM_BUS/new_device" || return 1
	ip link set "$DEV" up || return 1
	wait_for 30 "$RT_CLI" profile show dev "$DEV" || return 1
	echo N > "$DFS/$ID/pfc_link_flap" || return 1
	write_profile 46
	"$RT_CLI" profile check > /dev/null || return 1
	AG_PORT=$(free_port)
	PROM_PORT=$(free_port)
	AM_PORT=$(free_port)
	HOOK_PORT=$(free_port)
	start_agent
	wait_for 60 log_has "$DEV: profile 50-mon.conf applied \(start\)"
}

# The rules with shorter "for:" durations, and the proof that nothing
# else differs.
rules_copy() {
	local out

	RET=0
	out=$(python3 - "$RULES" "$WORK/rules.yml" << 'EOF'
import re, sys, yaml
src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
# The transformation: a "for:" in minutes becomes the same number of
# seconds; nothing else of the file is touched.
pat = re.compile(r"^(\s*for:\s*)([0-9]+)m\s*$", re.M)
changes = ["%s %sm -> %ss" % (m.group(1).strip(), m.group(2), m.group(2))
           for m in pat.finditer(text)]
copy = pat.sub(lambda m: "%s%ss" % (m.group(1), m.group(2)), text)
open(dst, "w").write(copy)


def strip_for(doc):
    for g in doc["groups"]:
        for r in g["rules"]:
            r.pop("for", None)
    return doc


a, b = yaml.safe_load(text), yaml.safe_load(copy)
fors = [r.get("for") for g in b["groups"] for r in g["rules"] if "alert" in r]
print("changed", len(changes), "; ".join(changes))
print("alerts", len(fors), "for", " ".join(str(f) for f in fors))
print("same-but-for", strip_for(a) == strip_for(b))
EOF
	)
	check_err $? "the transformation failed: $out"
	echo "# rules copy: $(sed -n 's/^changed //p' <<< "$out")"
	echo "# rules copy: $(sed -n 's/^alerts //p' <<< "$out")"
	grep -qx "same-but-for True" <<< "$out"
	check_err $? "the copy differs from $RULES beyond for: $out"
	out=$(promtool check rules "$WORK/rules.yml" 2>&1)
	check_err $? "promtool check rules on the copy: $out"
	log_test "rules: a copy with for: in seconds, otherwise the shipped file"
}

# api PATH [CURL-ARG...]: GET from Prometheus' HTTP API.
api() {
	local path=$1

	shift
	curl -sf -G "http://127.0.0.1:$PROM_PORT$path" "$@"
}

# query EXPR: the instant vector of EXPR, as JSON.
query() {
	api /api/v1/query --data-urlencode "query=$1"
}

# query_value EXPR: the value of the first element of EXPR's result.
query_value() {
	query "$1" | jq -r '.data.result[0].value[1] // empty'
}

query_nonempty() {
	[ -n "$(query_value "$1")" ]
}

query_value_is() {
	[ "$(query_value "$1")" = "$2" ]
}

rules_loaded() {
	[ "$(api /api/v1/rules | jq '[.data.groups[].rules[]] | length')" -gt 0 ]
}

# Prometheus sends its alerts to our Alertmanager, and to it only.
am_discovered() {
	[ "$(api /api/v1/alertmanagers | jq -r '[.data.activeAlertmanagers[].url] | join(" ")')" = \
		"http://127.0.0.1:$AM_PORT/api/v2/alerts" ]
}

am_ready() {
	curl -sf "http://127.0.0.1:$AM_PORT/-/ready" > /dev/null
}

hook_ready() {
	curl -sf "http://127.0.0.1:$HOOK_PORT/" > /dev/null
}

# The webhook: every POST is one line of HOOK, {"t": arrival, "body": ...}.
start_hook() {
	python3 - "$HOOK_PORT" "$HOOK" > "$WORK/webhook.log" 2>&1 << 'EOF' &
import http.server, json, sys, time
port, path = int(sys.argv[1]), sys.argv[2]


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        t = time.time()
        n = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(n))
        with open(path, "a") as f:
            f.write(json.dumps({"t": t, "body": body}) + "\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


open(path, "a").close()
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
EOF
	HOOK_PID=$!
}

start_alertmanager() {
	mkdir -p "$WORK/am"
	cat > "$WORK/alertmanager.yml" << EOF
route:
  receiver: hook
  group_by: [alertname, host, netdev, prio]
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$HOOK_PORT/
        send_resolved: true
EOF
	prometheus-alertmanager --config.file="$WORK/alertmanager.yml" \
		--storage.path="$WORK/am" \
		--web.listen-address="127.0.0.1:$AM_PORT" \
		--cluster.listen-address= \
		> "$WORK/alertmanager.log" 2>&1 &
	AM_PID=$!
}

start_prometheus() {
	cat > "$WORK/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $WORK/rules.yml
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$AM_PORT']
scrape_configs:
  - job_name: rocetuned
    static_configs:
      - targets: ['127.0.0.1:$AG_PORT']
EOF
	promtool check config "$WORK/prometheus.yml" > "$WORK/promtool.log" 2>&1 ||
		return 1
	prometheus --config.file="$WORK/prometheus.yml" \
		--storage.tsdb.path="$WORK/prom" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		> "$WORK/prometheus.log" 2>&1 &
	PROM_PID=$!
}

# The alerts Prometheus has now, "NAME STATE" lines.
prom_alerts() {
	api /api/v1/alerts | jq -r '.data.alerts[] | "\(.labels.alertname) \(.state)"'
}

servers_up() {
	RET=0
	start_hook
	start_alertmanager
	start_prometheus
	check_err $? "promtool check config: $(cat "$WORK/promtool.log")"
	wait_for 30 hook_ready
	check_err $? "the webhook does not answer: $(cat "$WORK/webhook.log")"
	wait_for 60 am_ready
	check_err $? "Alertmanager not ready: $(tail -3 "$WORK/alertmanager.log")"
	wait_for 120 query_value_is 'up{job="rocetuned"}' 1
	check_err $? "Prometheus does not scrape the agent: $(tail -3 "$WORK/prometheus.log")"
	wait_for 30 rules_loaded
	check_err $? "no rules loaded: $(tail -3 "$WORK/prometheus.log")"
	wait_for 30 am_discovered
	check_err $? "Prometheus has not the Alertmanager: $(api /api/v1/alertmanagers)"
	# rate() over 1m needs two samples; the port series must be there.
	wait_for 30 query_value_is "count(netdev_prio:rocetune_pfc_rx_pause_frames:rate1m{netdev=\"$DEV\"} >= 0)" 8
	check_err $? "no per-priority pause rate of $DEV: $(query "netdev_prio:rocetune_pfc_rx_pause_frames:rate1m")"
	echo "# ports: agent $AG_PORT, prometheus $PROM_PORT, alertmanager $AM_PORT, webhook $HOOK_PORT"
	echo "# alerts before any fault: $(prom_alerts | tr '\n' ',')"
	[ -z "$(prom_alerts)" ]
	check_err $? "alerts before any fault: $(prom_alerts | tr '\n' ' ')"
	T_UP=$(now_s)
	log_test "servers: Prometheus scrapes the agent and loads the rules; Alertmanager and the webhook answer"
}

# hook_alert NAME STATUS [LABEL=VALUE...]: the arrival time of the first
# webhook POST with an alert NAME in STATUS (firing or resolved) whose
# labels include the LABEL=VALUEs; nothing if none yet.
hook_alert() {
	python3 - "$HOOK" "$@" << 'EOF'
import json, sys
path, name, status = sys.argv[1:4]
want = dict(a.split("=", 1) for a in sys.argv[4:])
want["alertname"] = name
for line in open(path):
    rec = json.loads(line)
    for a in rec["body"]["alerts"]:
        if a["status"] == status and \
           all(a["labels"].get(k) == v for k, v in want.items()):
            print("%.3f" % rec["t"])
            sys.exit(0)
sys.exit(1)
EOF
}

# am_active NAME: Alertmanager's API has NAME active; its labels as JSON.
am_active() {
	curl -sf "http://127.0.0.1:$AM_PORT/api/v2/alerts?active=true" |
		jq -e -c "[.[] | select(.labels.alertname == \"$1\" and .status.state == \"active\") | .labels] | select(length > 0) | .[0]"
}

am_not_active() {
	local out

	out=$(curl -sf "http://127.0.0.1:$AM_PORT/api/v2/alerts?active=true") &&
		[ "$(jq "[.[] | select(.labels.alertname == \"$1\")] | length" <<< "$out")" = 0 ]
}

now_s() {
	date +%s.%N
}

# ms_between T0 T1: milliseconds from T0 to T1 (seconds, with fractions).
ms_between() {
	python3 -c "import sys; print(int((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$1" "$2"
}

storm_alert() {
	local t0 t1 t2 t3 labels host

	RET=0
	host=127.0.0.1
	t0=$(now_s)
	echo "3 1000 0" > "$DFS/$ID/pfc_storm" ||
		check_err 1 "cannot inject a storm"
	wait_for 60 hook_alert RoceTunePauseStorm firing \
		host="$host" netdev="$DEV" prio=3 severity=critical
	check_err $? "no firing RoceTunePauseStorm at the webhook: $(prom_alerts | tr '\n' ' ')"
	t1=$(hook_alert RoceTunePauseStorm firing netdev="$DEV" prio=3)
	labels=$(am_active RoceTunePauseStorm)
	check_err $? "Alertmanager's API has no active RoceTunePauseStorm"
	expect "Alertmanager: the storm alert's host, netdev, prio" \
		"$(jq -r '"\(.host) \(.netdev) \(.prio)"' <<< "$labels")" \
		"$host $DEV 3"
	echo "# latency storm injected -> RoceTunePauseStorm at the webhook: $(ms_between "$t0" "$t1") ms (scrape and evaluation 1 s, for: 5s, group_wait 0s)"
	t2=$(now_s)
	echo "3 0 0" > "$DFS/$ID/pfc_storm"
	wait_for 60 hook_alert RoceTunePauseStorm resolved \
		host="$host" netdev="$DEV" prio=3
	check_err $? "RoceTunePauseStorm not resolved at the webhook: $(prom_alerts | tr '\n' ' ')"
	t3=$(hook_alert RoceTunePauseStorm resolved netdev="$DEV" prio=3)
	wait_for 30 am_not_active RoceTunePauseStorm
	check_err $? "Alertmanager still has RoceTunePauseStorm active"
	echo "# latency storm stopped -> resolved at the webhook: $(ms_between "$t2" "$t3") ms"
	log_test "storm: RoceTunePauseStorm with host, netdev, prio reaches the webhook and Alertmanager, and resolves"
}

# The agent applies a changed profile on SIGHUP; the sim refuses its
# first write (EINVAL), the engine rolls back.
apply_failed_alert() {
	local t0 t1

	RET=0
	expect "failures before" \
		"$(query_value "rocetune_agent_apply_failures_total{netdev=\"$DEV\"}")" 0
	echo 22 > "$DFS/$ID/fail_next_set" ||
		check_err 1 "cannot arm fail_next_set"
	write_profile 40
	t0=$(now_s)
	kill -HUP "$AGENT_PID"
	wait_for 30 log_has "$DEV: profile 50-mon.conf \\([a-z]+\\): rolled-back: "
	check_err $? "no rolled-back apply logged: $(tail -3 "$LOG")"
	wait_for 60 hook_alert RoceTuneProfileApplyFailed firing \
		host=127.0.0.1 netdev="$DEV" severity=critical
	check_err $? "no firing RoceTuneProfileApplyFailed at the webhook: $(prom_alerts | tr '\n' ' ')"
	t1=$(hook_alert RoceTuneProfileApplyFailed firing netdev="$DEV")
	am_active RoceTuneProfileApplyFailed > /dev/null
	check_err $? "Alertmanager's API has no active RoceTuneProfileApplyFailed"
	echo "# latency SIGHUP -> RoceTuneProfileApplyFailed at the webhook: $(ms_between "$t0" "$t1") ms"
	log_test "apply failed: RoceTuneProfileApplyFailed for the NIC reaches the webhook"
}

# A drift by hand, written back, so that the drift panels have a series.
make_drift() {
	local c

	c=$(query_value "sum(rocetune_agent_drift_events_total{netdev=\"$DEV\"})")
	rt_dcb pfc set dev "$DEV" prio-pfc 3:off
	wait_for 30 log_has "$DEV: profile 50-mon.conf applied \(drift\)" &&
		wait_for 30 query_nonempty "sum(rocetune_agent_drift_events_total{netdev=\"$DEV\"}) > ${c:-0}"
}

dashboard_queries() {
	local out inst

	RET=0
	make_drift
	check_err $? "no drift re-apply of $DEV: $(tail -3 "$LOG")"
	inst=127.0.0.1:$AG_PORT
	out=$(python3 - "$DASHBOARD" "http://127.0.0.1:$PROM_PORT" "$inst" "$DEV" << 'EOF'
import json, re, sys, urllib.parse, urllib.request
path, base, inst, dev = sys.argv[1:5]
vars = {"instance": inst, "netdev": dev}
d = json.load(open(path))


def get(p, **q):
    url = base + p + "?" + urllib.parse.urlencode(q, doseq=True)
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def subst(expr):
    def one(m):
        name = m.group(1) or m.group(2)
        if name not in vars:
            raise KeyError(name)
        return vars[name]
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", one, expr)


bad = 0
# The variables: label_values(SELECTOR, LABEL) must offer the value used.
for v in d["templating"]["list"]:
    if v["type"] != "query":
        continue
    q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
    m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
    sel, label = subst(m.group(1)), m.group(2)
    r = get("/api/v1/series", **{"match[]": sel})
    vals = sorted({s.get(label) for s in r["data"]} - {None})
    ok = vars[v["name"]] in vals
    bad += not ok
    print("%s variable %s: %s -> %s" % ("ok" if ok else "FAIL", v["name"], q, vals))


def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))


n = 0
for p in panels(d["panels"]):
    for t in p.get("targets", []):
        expr = subst(t["expr"])
        r = get("/api/v1/query", query=expr)
        res = r["data"]["result"]
        n += 1
        ok = r["status"] == "success" and len(res) > 0
        bad += not ok
        print("%s panel %r %s: %s -> %d series" % ("ok" if ok else "FAIL",
              p["title"], t["refId"], expr, len(res)))
print("queries", n, "bad", bad)
EOF
	)
	check_err $? "the dashboard's queries could not be run: $out"
	printf '# %s\n' "${out//$'\n'/$'\n'# }"
	grep -Eq "^queries [1-9][0-9]* bad 0$" <<< "$out"
	check_err $? "dashboard queries without data: $(grep '^FAIL' <<< "$out" | tr '\n' ' ')"
	log_test "dashboard: every query returns data ($(sed -n 's/^queries \([0-9]*\).*/\1/p' <<< "$out") queries), the variables offer their values"
}

agent_down_alert() {
	local t0 t1

	RET=0
	# Not one failed scrape before: the agent-down alert fires only now.
	expect "failed scrapes before the kill" \
		"$(query_value 'min_over_time(up{job="rocetuned"}[10m])')" 1
	t0=$(now_s)
	kill -KILL "$AGENT_PID"
	wait "$AGENT_PID" 2> /dev/null
	AGENT_PID=
	wait_for 60 hook_alert RoceTuneAgentDown firing \
		host=127.0.0.1 instance="127.0.0.1:$AG_PORT" severity=critical
	check_err $? "no firing RoceTuneAgentDown at the webhook: $(prom_alerts | tr '\n' ' ')"
	t1=$(hook_alert RoceTuneAgentDown firing instance="127.0.0.1:$AG_PORT")
	am_active RoceTuneAgentDown > /dev/null
	check_err $? "Alertmanager's API has no active RoceTuneAgentDown"
	echo "# latency kill -9 -> RoceTuneAgentDown at the webhook: $(ms_between "$t0" "$t1") ms (for: 1s)"
	log_test "agent down: kill -9 of the agent fires RoceTuneAgentDown at the webhook"
}

# Only the alerts the faults explain reached the webhook.  The pause
# fraction of the storm's priority may cross 20 % of the last minute.
# RoceTuneAgentNotScraped (absent(up), for: 5m shortened to 5s) may fire
# while Prometheus waits for its first scrape of the agent, which takes
# longer than 5 s under emulation: it is allowed only if it began firing
# before the first scrape was seen (T_UP), never after.
no_other_alerts() {
	local names

	RET=0
	names=$(python3 - "$HOOK" "$T_UP" << 'EOF'
import json, sys
from datetime import datetime
path, t_up = sys.argv[1], float(sys.argv[2])
seen, early = set(), set()
for line in open(path):
    for a in json.loads(line)["body"]["alerts"]:
        name = a["labels"]["alertname"]
        start = datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00"))
        if name == "RoceTuneAgentNotScraped" and start.timestamp() < t_up:
            early.add(name)
        else:
            seen.add(name)
print(" ".join(sorted(seen)), "|", " ".join(sorted(early)))
EOF
	)
	check_err $? "the webhook's record could not be read: $names"
	echo "# alerts at the webhook: ${names% |*}; before the first scrape: ${names#*| }"
	names=$(tr ' ' '\n' <<< "${names% |*}" |
		grep -Evx 'RoceTunePauseStorm|RoceTunePFCPauseFractionHigh|RoceTuneProfileApplyFailed|RoceTuneAgentDown|' |
		tr '\n' ' ')
	[ -z "$names" ]
	check_err $? "alerts no fault explains: $names"
	log_test "no other alert reached the webhook"
}

rt_require_root
rt_require_cmd dcb jq curl promtool prometheus prometheus-alertmanager python3
setup || rt_setup_failed "simulated NIC, rocetune.ko or the agent: $(tail -3 "$LOG")"
rt_run_tests
