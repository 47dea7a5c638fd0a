#!/usr/bin/env bash
# Prometheus, for real (issue 29): docs/operations's Grafana dashboard and alert rules against Debian's prometheus
# (2.42) scraping a load server under a short load. Checks docs/operations/alerts.yml with promtool (check rules, and
# its unit tests alerts-test.yml), starts the load server (io.weft.load.LoadServer, loopback, a free port) and a
# prometheus of its own (temporary configuration and storage under bench/target/prometheus-check, a free port,
# scraping /metrics every second, evaluating alerts.yml every second), runs the load client (--auto: websocket, then
# long-polling; one request over maxMessageSize between them, refused and counted), then runs
# io.weft.load.PrometheusCheck: every dashboard query must return series over the load's window, and every alert rule
# must have been evaluated by Prometheus without error, each metric selector in it matching series. Prints what each
# query and rule gave, and exits non-zero on any problem. Stops what it started (a watchdog ends it after 600 s).
# Environment: lib.sh's BENCH_M2, MVN_OFFLINE=1, BENCH_SKIP_BUILD=1 (reuse the last build), PROM_CLIENTS [200],
# PROM_BATCHES [1000] (5 messages every 10 ms: 10 s per transport).
source "$(dirname "$0")/lib.sh"
bench_deadline 600
WORK="$BUILD/prometheus-check"
OPS="$ROOT/docs/operations"
CLIENTS="${PROM_CLIENTS:-200}"
BATCHES="${PROM_BATCHES:-1000}"

for tool in prometheus promtool curl python3; do
    command -v "$tool" > /dev/null || { echo "$tool is needed (apt-get install prometheus curl python3)" >&2; exit 1; }
done

log "promtool: the rule file, and its unit tests"
promtool check rules "$OPS/alerts.yml"
(cd "$OPS" && promtool test rules alerts-test.yml)

if [[ "${BENCH_SKIP_BUILD:-0}" != 1 || ! -f "$WORK/classpath.txt" ]]; then
    log "building load-client and the modules it needs from the checkout (tests skipped)"
    (cd "$ROOT" && mvn -q "${MVN_REPO[@]}" package dependency:build-classpath -DskipTests -Dmaven.javadoc.skip=true \
        -Dmaven.source.skip=true -Dmdep.outputFile=target/runtime-classpath.txt -Dmdep.includeScope=runtime \
        -pl load-client -am)
    rm -rf "$WORK"; mkdir -p "$WORK"
    # A copy of the classes: a build in the checkout must not pull them from under a running JVM.
    cp -r "$ROOT/load-client/target/classes" "$WORK/classes"
    cp "$ROOT/load-client/target/runtime-classpath.txt" "$WORK/classpath.txt"
fi
rm -rf "$WORK/prometheus" "$WORK/results"; mkdir -p "$WORK/prometheus"
CP="$WORK/classes:$(cat "$WORK/classpath.txt")"
LOGBACK="-Dlogback.configurationFile=$ROOT/load-client/src/exec/logback.xml"

started() { # started NAME COMMAND...: in its own process group, output to $WORK/NAME.log; sets STARTED
    local name=$1; shift
    setsid bash -c 'exec "$@"' _ "$@" > "$WORK/$name.log" 2>&1 < /dev/null &
    STARTED=$!
    STARTED_PIDS+=("$STARTED")
}

# until_true SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds; fails after SECONDS.
until_true() {
    local seconds=$1 what=$2 i; shift 2
    for (( i = 0; i < seconds * 5; i++ )); do "$@" && return 0; sleep 0.2; done
    echo "waited ${seconds}s for $what" >&2; return 1
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

api() { curl -fsS --get "http://127.0.0.1:$PROM_PORT/api/v1/$1" "${@:2}"; }

started server java -Xms512m -Xmx512m $JVM_COMMON $LOGBACK -cp "$CP" io.weft.load.LoadServer --host=127.0.0.1 --port=0
until_true 60 "the load server's READY line" grep -qs '^READY' "$WORK/server.log" || { cat "$WORK/server.log" >&2; exit 1; }
PORT=$(sed -n 's/^READY port=//p' "$WORK/server.log")
log "load server on 127.0.0.1:$PORT"

PROM_PORT=$(free_port)
cat > "$WORK/prometheus/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $OPS/alerts.yml
scrape_configs:
  - job_name: weft
    metrics_path: /metrics
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
started prometheus prometheus --config.file="$WORK/prometheus/prometheus.yml" \
    --storage.tsdb.path="$WORK/prometheus/data" --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn
until_true 30 "prometheus to be ready" curl -fs -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready" \
    || { cat "$WORK/prometheus.log" >&2; exit 1; }
log "prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) on 127.0.0.1:$PROM_PORT"
scraped_up() { api query --data-urlencode 'query=up{job="weft"} == 1' | grep -q '"value"'; }
until_true 30 "a first scrape" scraped_up
START=$(( $(date +%s) - 1 ))

load() { # load TRANSPORT: one --auto run, bounded
    log "load: $CLIENTS $1 clients, $BATCHES batches of 5 every 10 ms"
    timeout --kill-after=10 $(( BATCHES / 50 + 120 )) java -Xmx1g $JVM_COMMON $LOGBACK -cp "$CP" \
        io.weft.load.LoadClient --auto --server=127.0.0.1 --port="$PORT" --transport="$1" --clients="$CLIENTS" \
        --rooms=20 --batches="$BATCHES" --batch-size=5 --batch-pause=10000 --results="$WORK/results" \
        > "$WORK/load-$1.log" 2>&1 || { cat "$WORK/load-$1.log" >&2; exit 1; }
    grep -E '^Messages - Success' "$WORK/load-$1.log" >&2 || true
}
load websocket
log "one request over maxMessageSize (65,536 bytes): 413, counted at that limit"
head -c 70000 /dev/zero | tr '\0' ' ' | curl -s -o /dev/null -w '  answered %{http_code}\n' \
    -H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$PORT/cometd" >&2 || true
load long-polling
LOAD_END=$(date +%s)

# Wait for a scrape and an evaluation of every rule after the load, so the window holds all of it.
scraped_after() {
    api query --data-urlencode 'query=timestamp(weft_channels{job="weft"})' \
        | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; sys.exit(0 if r and float(r[0]["value"][1]) > float(sys.argv[1]) else 1)' "$LOAD_END"
}
evaluated_after() {
    api rules --data-urlencode 'type=alert' | python3 -c '
import datetime, json, re, sys
def when(text):  # RFC 3339, nanoseconds and all: the second it names
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)$", text)
    return datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(2) == "Z" else m.group(2))).timestamp()
rules = [r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]
sys.exit(0 if rules and all(when(r["lastEvaluation"]) > float(sys.argv[1]) for r in rules) else 1)' "$LOAD_END"
}
until_true 30 "a scrape after the load" scraped_after
until_true 30 "every rule evaluated after the load" evaluated_after
END=$(date +%s)

log "checking the dashboard's queries and the alert rules over $START..$END through Prometheus's HTTP API"
set +e
java $JVM_COMMON -cp "$CP" io.weft.load.PrometheusCheck --prometheus="http://127.0.0.1:$PROM_PORT" \
    --dashboard="$OPS/weft-dashboard.json" --alerts="$OPS/alerts.yml" --job=weft --instance="127.0.0.1:$PORT" \
    --start="$START" --end="$END" | tee "$WORK/check.txt"
RC=${PIPESTATUS[0]}
set -e
log "written: $WORK/check.txt (exit $RC)"
exit "$RC"
