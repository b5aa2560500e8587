#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rocetuned's /metrics endpoint against the network: it binds exactly
# the addresses asked for (":PORT" every IPv4 and IPv6 address, "[::1]",
# "127.0.0.1", a host name's addresses as getent sees them); 16 idle and
# 5 silent clients of other peers do not delay a scrape (per-peer and
# total caps, idle timeout); --web.config.file in the Prometheus
# exporter-toolkit format, refused with FILE:LINE and the key when wrong;
# TLS with client certificates and bcrypt basic auth, checked by curl and
# by a real Prometheus server that scrapes the agent with tls_config and
# basic_auth and itself serves with the same web config file (so the
# format is the real one).  Certificates come from openssl, bcrypt hashes
# from libcrypt through Python, checked by Prometheus' own bcrypt.  The
# agent needs neither rocetune.ko nor a NIC for that.  Last, per-QP
# series (labels qpn and comm) of idle Soft-RoCE QPs (rt_qpair) only
# with --metrics-qp-labels, at most --metrics-max-series of them.

ALL_TESTS="
	web_config_refused
	bind_exact
	idle_clients_no_delay
	tls_auth_refusals
	prometheus_tls_basic_auth
	qp_labels_opt_in
"

source "$(dirname "$0")/lib.sh"
set -o pipefail

RT_AGENT=${RT_AGENT:-$RT_TOP/build/userspace/rocetuned}
PORT=$((RANDOM % 1000 + 21000))
PROM_PORT=$((PORT + 1))
WORK=$(mktemp -d /tmp/rt-web.XXXXXX)
LOG=$WORK/agent.log
AGENT_PID=
PROM_PID=
HOLD_PID=
QPAIR_PID=
WIRE=
PW=s3cret-$RANDOM
export ROCETUNE_PROFILE_DIR=$WORK/profiles
export ROCETUNE_RUN_DIR=$WORK/run
mkdir -p "$ROCETUNE_PROFILE_DIR"

cleanup() {
	[ -z "$HOLD_PID" ] || kill "$HOLD_PID" 2> /dev/null
	[ -z "$QPAIR_PID" ] || kill "$QPAIR_PID" 2> /dev/null
	[ -z "$QPAIR_PID" ] || wait "$QPAIR_PID" 2> /dev/null
	[ -z "$PROM_PID" ] || kill "$PROM_PID" 2> /dev/null
	[ -z "$PROM_PID" ] || wait "$PROM_PID" 2> /dev/null
	agent_stop
	if [ -n "$WIRE" ]; then
		rt_wire_down
		rt_kmod_unload
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

agent_stop() {
	[ -n "$AGENT_PID" ] || return 0
	kill "$AGENT_PID" 2> /dev/null
	wait "$AGENT_PID" 2> /dev/null
	AGENT_PID=
}

agent_listening() {
	grep -q "metrics on " "$LOG"
}

# agent_start ARGS...: a foreground agent, until it serves /metrics.
agent_start() {
	agent_stop
	: > "$LOG"
	"$RT_AGENT" --foreground "$@" >> "$LOG" 2>&1 &
	AGENT_PID=$!
	wait_for 30 agent_listening
}

# code URL [CURL ARGS...]: the HTTP status curl got, 000 when none.
code() {
	local url=$1

	shift
	curl -s -m 10 -o /dev/null -w '%{http_code}' "$@" "$url"
}

# A CA, a server certificate for localhost, 127.0.0.1 and ::1, a client
# certificate of the CA and one of another CA.
make_certs() {
	local d=$WORK/tls

	mkdir -p "$d" && cd "$d" || return 1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 2 -subj /CN=rt-test-ca -keyout ca.key -out ca.crt &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 2 -subj /CN=rt-other-ca -keyout other-ca.key \
		-out other-ca.crt &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=localhost \
		-addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
		-keyout srv.key -out srv.csr &&
	openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key \
		-CAcreateserial -days 2 -copy_extensions copy -out srv.crt &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=scraper -keyout cli.key -out cli.csr &&
	openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key \
		-CAcreateserial -days 2 -out cli.crt &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=intruder -keyout bad.key -out bad.csr &&
	openssl x509 -req -in bad.csr -CA other-ca.crt -CAkey other-ca.key \
		-CAcreateserial -days 2 -out bad.crt
	cd - > /dev/null || return 1
}

setup() {
	local hash

	make_certs > "$WORK/openssl.log" 2>&1 || {
		cat "$WORK/openssl.log"
		return 1
	}
	# bcrypt ($2b$, cost 5: Go's bcrypt takes 4..31) from libcrypt
	hash=$(python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=32)))' "$PW") &&
		[[ $hash == "\$2b\$05\$"* ]] || return 1
	cat > "$WORK/tls/web.yml" << EOF
# the same file for rocetuned and Prometheus (relative to this directory)
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS12
basic_auth_users:
  prom: '$hash'
EOF
}

# bad_config NAME EXPECTED-ERE: with web config NAME (in $WORK/tls, from
# stdin), the agent exits 1 at once with EXPECTED-ERE.
bad_config() {
	local f=$WORK/tls/$1 out rc

	cat > "$f"
	out=$(timeout 20 "$RT_AGENT" --foreground --metrics-listen "127.0.0.1:$PORT" \
		--web.config.file "$f" 2>&1)
	rc=$?
	expect "exit status with $1" "$rc" 1
	grep -E -- "$2" <<< "$out" > /dev/null
	check_err $? "$1: no clear error (wanted /$2/): $out"
	rt_port_listening "$PORT"
	check_fail $? "$1: the agent listens anyway"
}

web_config_refused() {
	local t=$WORK/tls

	RET=0
	bad_config unknown.yml "unknown.yml:2: unknown key \"tls_config\"" << EOF
# comment
tls_config:
  cert_file: srv.crt
EOF
	bad_config tlskey.yml "tlskey.yml:4: tls_server_config: unknown key \"certfile\"" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  certfile: srv.crt
EOF
	bad_config nokey.yml "nokey.yml:[0-9]+: tls_server_config: missing key_file" << EOF
tls_server_config:
  cert_file: srv.crt
EOF
	bad_config nofile.yml "nofile.yml:3: tls_server_config: key_file $t/nope.key: No such file" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: nope.key
EOF
	bad_config mismatch.yml "mismatch.yml: tls_server_config: cert_file and key_file" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: cli.key
EOF
	bad_config auth.yml "auth.yml:4: tls_server_config: client_auth_type: \"RequireCert\" is none of" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  client_auth_type: RequireCert
EOF
	bad_config ca.yml "ca.yml:4: tls_server_config: client_ca_file without a client_auth_type" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  client_ca_file: ca.crt
EOF
	bad_config ver.yml "ver.yml:4: tls_server_config: min_version: \"TLS1.2\" is none of" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  min_version: TLS1.2
EOF
	bad_config ciphers.yml "ciphers.yml:4: tls_server_config: cipher_suites: not supported by rocetuned" << EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  cipher_suites: [TLS_AES_128_GCM_SHA256]
EOF
	bad_config hash.yml "hash.yml:2: basic_auth_users: prom: not a bcrypt hash" << EOF
basic_auth_users:
  prom: $PW
EOF
	bad_config yaml.yml "yaml.yml:[0-9]+: not YAML" << EOF
basic_auth_users:
  prom: [unclosed
EOF
	log_test "a bad web config is refused at start, naming file:line and key"
}

# listens_on URL: a plain scrape of URL answers 200.
listens_on() {
	[ "$(code "$1")" = 200 ]
}

bind_exact() {
	local a url

	RET=0
	agent_start --metrics-listen ":$PORT"
	check_err $? "the agent did not start: $(tail -3 "$LOG")"
	listens_on "http://127.0.0.1:$PORT/metrics"
	check_err $? ":$PORT: not on 127.0.0.1"
	listens_on "http://[::1]:$PORT/metrics"
	check_err $? ":$PORT: not on ::1"
	agent_start --metrics-listen "[::1]:$PORT"
	check_err $? "the agent did not start on [::1]: $(tail -3 "$LOG")"
	listens_on "http://[::1]:$PORT/metrics"
	check_err $? "[::1]:$PORT: not on ::1"
	listens_on "http://127.0.0.1:$PORT/metrics"
	check_fail $? "[::1]:$PORT: also on 127.0.0.1"
	agent_start --metrics-listen "127.0.0.1:$PORT"
	check_err $? "the agent did not start on 127.0.0.1: $(tail -3 "$LOG")"
	listens_on "http://127.0.0.1:$PORT/metrics"
	check_err $? "127.0.0.1:$PORT: not on 127.0.0.1"
	listens_on "http://[::1]:$PORT/metrics"
	check_fail $? "127.0.0.1:$PORT: also on ::1"
	listens_on "http://127.0.0.2:$PORT/metrics"
	check_fail $? "127.0.0.1:$PORT: also on 127.0.0.2"
	# a host name: every address getent gives it
	agent_start --metrics-listen "localhost:$PORT"
	check_err $? "the agent did not start on localhost: $(tail -3 "$LOG")"
	for a in $(getent ahostsv4 localhost | awk '{print $1}' | sort -u) \
		 $(getent ahostsv6 localhost | awk '$1 !~ /^::ffff:/ {print $1}' | sort -u); do
		url=$a
		[[ $a == *:* ]] && url="[$a]"
		listens_on "http://$url:$PORT/metrics"
		check_err $? "localhost:$PORT: not on $a (getent)"
	done
	agent_stop
	log_test "binds exactly what is asked: :PORT v4+v6, [::1], 127.0.0.1, a host name"
}

# The holder: 16 idle connections of 127.0.0.2 (connected, nothing sent)
# and 5 silent ones of 127.0.0.3 (half a request line), held open; it
# prints how many of each the agent kept once the agent had 1 s to
# answer them.
hold_clients() {
	python3 - "$PORT" << 'EOF'
import socket, sys, time
port = int(sys.argv[1])
def conns(src, n, data):
    out = []
    for _ in range(n):
        s = socket.socket()
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        if data:
            s.send(data)
        out.append(s)
    return out
idle = conns("127.0.0.2", 16, b"")
silent = conns("127.0.0.3", 5, b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
time.sleep(1)
def kept(socks):
    n = 0
    for s in socks:
        try:
            if s.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b"":
                continue
        except BlockingIOError:
            pass
        except OSError:
            continue
        n += 1
    return n
print("kept %d idle %d silent" % (kept(idle), kept(silent)), flush=True)
time.sleep(120)
EOF
}

scrape_time_ms() {
	local t

	t=$(curl -sf -m 30 -o /dev/null -w '%{time_total}' "$@") || return 1
	awk -v t="$t" 'BEGIN { printf "%d\n", t * 1000 }'
}

holder_ready() {
	grep -q "^kept" "$WORK/hold.out"
}

idle_clients_no_delay() {
	local base t bound url=http://127.0.0.1:$PORT/metrics

	RET=0
	agent_start --metrics-listen ":$PORT"
	check_err $? "the agent did not start: $(tail -3 "$LOG")"
	# calibration: a scrape with nobody else connected
	base=$(scrape_time_ms "$url")
	check_err $? "no scrape without other clients"
	hold_clients > "$WORK/hold.out" 2>&1 &
	HOLD_PID=$!
	wait_for 30 holder_ready
	check_err $? "the clients did not connect: $(cat "$WORK/hold.out")"
	t=$(scrape_time_ms "$url")
	check_err $? "no scrape with 16 idle and 5 silent clients connected"
	bound=$((1000 + 2 * ${base:-0}))
	echo "# scrape ${base:-?} ms alone, ${t:-?} ms with 16 idle and 5 silent clients (bound $bound ms); $(cat "$WORK/hold.out")"
	[ -n "$t" ] && [ "$t" -lt "$bound" ]
	check_err $? "a scrape took ${t:-?} ms with idle clients connected"
	# each peer keeps at most 4 (AG_HTTP_PER_PEER)
	grep -Eq "^kept [0-4] idle [0-4] silent" "$WORK/hold.out"
	check_err $? "a peer kept more than 4 connections: $(cat "$WORK/hold.out")"
	kill "$HOLD_PID" 2> /dev/null
	wait "$HOLD_PID" 2> /dev/null
	HOLD_PID=
	agent_stop
	log_test "16 idle and 5 silent clients: a scrape still answers within 1 s"
}

# The TLS agent on [::1] and 127.0.0.1 (localhost's addresses).
tls_agent() {
	agent_start --metrics-listen ":$PORT" \
		--web.config.file "$WORK/tls/web.yml"
}

tls_auth_refusals() {
	local t=$WORK/tls out url=https://localhost:$PORT/metrics
	local good=(--cacert "$t/ca.crt" --cert "$t/cli.crt" --key "$t/cli.key")

	RET=0
	tls_agent
	check_err $? "the TLS agent did not start: $(tail -3 "$LOG")"
	expect "good cert and password" \
		"$(code "$url" "${good[@]}" -u "prom:$PW")" 200
	expect "good cert and password, over ::1" \
		"$(code "https://[::1]:$PORT/metrics" "${good[@]}" -u "prom:$PW")" 200
	expect "wrong password" "$(code "$url" "${good[@]}" -u "prom:x$PW")" 401
	expect "unknown user" "$(code "$url" "${good[@]}" -u "root:$PW")" 401
	expect "no password" "$(code "$url" "${good[@]}")" 401
	out=$(curl -s -m 10 -D - -o /dev/null "${good[@]}" "$url")
	grep -qi '^WWW-Authenticate: Basic' <<< "$out"
	check_err $? "401 without WWW-Authenticate: Basic: $out"
	expect "no client certificate" \
		"$(code "$url" --cacert "$t/ca.crt" -u "prom:$PW")" 000
	expect "a client certificate of another CA" \
		"$(code "$url" --cacert "$t/ca.crt" --cert "$t/bad.crt" --key "$t/bad.key" -u "prom:$PW")" 000
	expect "plain HTTP to the TLS port" \
		"$(code "http://127.0.0.1:$PORT/metrics" -u "prom:$PW")" 000
	expect "TLS 1.1 (min_version TLS12)" \
		"$(code "$url" "${good[@]}" -u "prom:$PW" --tlsv1.1 --tls-max 1.1)" 000
	curl -sf -m 10 "${good[@]}" -u "prom:$PW" "$url" > "$WORK/tls.prom"
	check_err $? "no scrape over TLS"
	grep -Eq '^rocetune_agent_build_info\{version="'"$(cat "$RT_TOP/VERSION")"'"\} 1$' "$WORK/tls.prom"
	check_err $? "no rocetune_agent_build_info: $(head -5 "$WORK/tls.prom")"
	out=$(promtool check metrics < "$WORK/tls.prom" 2>&1)
	check_err $? "promtool: $out"
	log_test "TLS: wrong password, no or a foreign client cert, plain HTTP, TLS 1.1 refused"
}

prom_query() {
	curl -sf -m 10 --cacert "$WORK/tls/ca.crt" --cert "$WORK/tls/cli.crt" \
		--key "$WORK/tls/cli.key" -u "prom:$PW" \
		"https://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"
}

# prom_is QUERY VALUE: Prometheus answers QUERY with one sample of VALUE.
prom_is() {
	[ "$(prom_query "$1" | jq -r '.data.result[0].value[1]')" = "$2" ]
}

prometheus_tls_basic_auth() {
	local p=$WORK/tls/prometheus.yml

	RET=0
	[ -n "$AGENT_PID" ] || tls_agent
	# relative paths are relative to prometheus.yml
	cat > "$p" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: rocetuned
    scheme: https
    tls_config: &tls
      ca_file: ca.crt
      cert_file: cli.crt
      key_file: cli.key
      server_name: localhost
    basic_auth:
      username: prom
      password: '$PW'
    static_configs:
      - targets: ['[::1]:$PORT']
  - job_name: wrong_password
    scheme: https
    tls_config: *tls
    basic_auth:
      username: prom
      password: 'x$PW'
    static_configs:
      - targets: ['[::1]:$PORT']
  - job_name: no_client_cert
    scheme: https
    tls_config:
      ca_file: ca.crt
      server_name: localhost
    basic_auth:
      username: prom
      password: '$PW'
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	prometheus --config.file="$p" --web.config.file="$WORK/tls/web.yml" \
		--storage.tsdb.path="$WORK/prom" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		> "$WORK/prom.log" 2>&1 &
	PROM_PID=$!
	wait_for 120 prom_is 'up{job="rocetuned"}' 1
	check_err $? "Prometheus did not scrape the agent: $(prom_query 'up' ; tail -3 "$WORK/prom.log")"
	wait_for 30 prom_is "rocetune_agent_build_info{job=\"rocetuned\",version=\"$(cat "$RT_TOP/VERSION")\"}" 1
	check_err $? "no build info through Prometheus"
	wait_for 30 prom_is 'up{job="wrong_password"}' 0
	check_err $? "a wrong password is not refused: $(prom_query 'up{job="wrong_password"}')"
	wait_for 30 prom_is 'up{job="no_client_cert"}' 0
	check_err $? "a scrape without client cert is not refused: $(prom_query 'up{job="no_client_cert"}')"
	# Prometheus serves with the same file: a wrong password is refused.
	expect "Prometheus with a wrong password" \
		"$(code "https://127.0.0.1:$PROM_PORT/api/v1/query?query=up" \
			--cacert "$WORK/tls/ca.crt" --cert "$WORK/tls/cli.crt" \
			--key "$WORK/tls/cli.key" -u "prom:x$PW")" 401
	kill "$PROM_PID"
	wait "$PROM_PID" 2> /dev/null
	PROM_PID=
	agent_stop
	log_test "Prometheus scrapes over TLS with basic auth and serves with the same web config"
}

scrape() {
	curl -sf -m 10 "http://127.0.0.1:$PORT/metrics"
}

# qpns FILE: the QP numbers of the per-QP series in FILE, one a line.
qpns() {
	sed -n 's/^rocetune_qp_[a-z_]*_total{.*qpn="\([0-9]*\)".*/\1/p' "$1" | sort -u
}

# scrape_qps FILE N: a scrape into FILE has the series of N QPs.
scrape_qps() {
	scrape > "$1" && [ "$(qpns "$1" | grep -c .)" -ge "$2" ]
}

# rxe0's port, with its profile, in the agent's scrape.
scrape_has_rxe0() {
	scrape > "$1" && grep -q '^rocetune_agent_profile_info{netdev="'"$RT_NETDEV0"'"' "$1"
}

# qp_value FILE NAME: the value of the unlabelled gauge NAME in FILE.
qp_value() {
	sed -n "s/^$2 //p" "$1"
}

qp_labels_opt_in() {
	local m=$WORK/qp.prom n per limit out

	RET=0
	WIRE=1
	if ! rt_kmod_load || ! rt_wire_up; then
		check_err 1 "cannot load rocetune.ko or set up the rxe wire"
		log_test "per-QP series only with --metrics-qp-labels, bounded"
		return
	fi
	printf '[Match]\nName=%s\n\n[Agent]\nMetricsTopQPs=6\n' \
		"$RT_NETDEV0" > "$ROCETUNE_PROFILE_DIR/40-rxe.conf"
	"$RT_TOP/build/selftests/rt_qpair" -n 6 \
		-g "$(rt_gid_index "$RT_RXE0" "$RT_IP0")" "$RT_RXE0" "$RT_RXE1" \
		> "$WORK/qpair.log" 2>&1 &
	QPAIR_PID=$!
	wait_for 30 grep -q '^ready$' "$WORK/qpair.log"
	check_err $? "rt_qpair: $(tail -2 "$WORK/qpair.log")"
	# with the labels: the reference, every QP of rxe0
	agent_start --metrics-listen "127.0.0.1:$PORT" --metrics-qp-labels
	check_err $? "the agent did not start: $(tail -3 "$LOG")"
	wait_for 60 scrape_qps "$m" 6
	check_err $? "not 6 QPs with --metrics-qp-labels: $(qpns "$m" | tr '\n' ' ')"
	n=$(qpns "$m" | grep -c .)
	per=$(( $(grep -c '^rocetune_qp_' "$m") / (n ? n : 1) ))
	expect "QPs of rxe0 (MetricsTopQPs=6)" "$n" 6
	grep -q '^rocetune_qp_[a-z_]*_total{.*,comm="rt_qpair"} ' "$m"
	check_err $? "no comm label with --metrics-qp-labels"
	# bounded: room for 2 QPs' series and a bit
	limit=$((2 * per + per / 2))
	agent_start --metrics-listen "127.0.0.1:$PORT" --metrics-qp-labels \
		--metrics-max-series "$limit"
	check_err $? "the agent did not start with --metrics-max-series: $(tail -3 "$LOG")"
	wait_for 60 scrape_qps "$m" 1
	check_err $? "no QP series with --metrics-max-series $limit"
	expect "QPs within --metrics-max-series $limit ($per series each)" \
		"$(qpns "$m" | grep -c .)" 2
	expect "rocetune_agent_qp_series" \
		"$(qp_value "$m" rocetune_agent_qp_series)" $((2 * per))
	expect "rocetune_agent_qp_series_dropped_qps" \
		"$(qp_value "$m" rocetune_agent_qp_series_dropped_qps)" 4
	out=$(promtool check metrics < "$m" 2>&1)
	check_err $? "promtool: $out"
	# without the flag: no series of a QP, no qpn, no comm
	agent_start --metrics-listen "127.0.0.1:$PORT"
	check_err $? "the agent did not start: $(tail -3 "$LOG")"
	wait_for 60 scrape_has_rxe0 "$m"
	check_err $? "rxe0 not in the scrape"
	sleep 2
	scrape > "$m"
	! grep -Eq '^rocetune_qp_|qpn=|comm=' "$m"
	check_err $? "per-QP labels without --metrics-qp-labels: $(grep -E -m 2 'qpn=|comm=' "$m")"
	grep -q "40-rxe.conf: MetricsTopQPs=6 gives no per-QP series without --metrics-qp-labels" "$LOG"
	check_err $? "no notice of the ignored MetricsTopQPs=: $(tail -3 "$LOG")"
	agent_stop
	kill "$QPAIR_PID"
	wait "$QPAIR_PID" 2> /dev/null
	QPAIR_PID=
	log_test "per-QP series only with --metrics-qp-labels, bounded by --metrics-max-series"
}

rt_require_root
rt_require_cmd curl jq openssl prometheus promtool python3 getent
[ -x "$RT_AGENT" ] || rt_setup_failed "$RT_AGENT is not built (make -C userspace)"
[ -x "$RT_TOP/build/selftests/rt_qpair" ] ||
	rt_setup_failed "rt_qpair is not built (make -C selftests helpers)"
setup || rt_setup_failed "certificates or the bcrypt hash"
rt_run_tests
