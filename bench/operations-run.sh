#!/usr/bin/env bash
# Operations charts (issue 16): Weft's /metrics over a load run, drawn where no Prometheus and Grafana run. Starts the
# load server (io.weft.load.LoadServer, loopback only, a free port), scrapes its GET /metrics every 2 s with
# io.weft.load.MetricsScrape, and runs the load client (--auto runs, 10 messages every 10 ms into 100 rooms of its own)
# through a visible shape, about 3.5 minutes in all:
#   10 s idle | 500 websocket clients, 30 s of publishing | 10 s idle |
#   1,000 websocket clients, 60 s; 20 s in, 500 long-polling clients join for 20 s | 10 s idle |
#   1,000 long-polling clients, 30 s | 15 s idle
# then stops everything (bounded: a watchdog ends the script after 600 s, build included; traps stop what it started)
# and writes into docs/operations/: metrics.csv, sessions.png, deliveries.png, written.png, received.png, latency.png,
# heap.png, cpu.png (problems.png when errors, slow consumers or refusals were not zero), overview.png and run.txt
# (date, commit, machine, the load clients' summaries). It also checks that every metric the Grafana dashboard
# (docs/operations/weft-dashboard.json) names is in the server's /metrics after the run.
# Environment: lib.sh's SERVER_CPU / CLIENT_CPU (cores to pin to, [1 / 0]), SERVER_HEAP, CLIENT_HEAP, BENCH_M2,
# MVN_OFFLINE=1 (build with mvn -o), OPS_CHECKOUT=1 (run the checkout's code, uncommitted changes and all, instead of
# HEAD's).
source "$(dirname "$0")/lib.sh"
bench_deadline 600
DEST="$ROOT/docs/operations"
WORK="$BUILD/operations"
DASHBOARD="$DEST/weft-dashboard.json"
MARKS="$WORK/marks.txt"
rm -rf "$WORK"; mkdir -p "$WORK/charts" "$DEST"

python3 -m json.tool "$DASHBOARD" > /dev/null || { echo "$DASHBOARD is not JSON" >&2; exit 1; }

# What runs is a commit: HEAD exported (git archive) and built apart, so that uncommitted work in a shared checkout
# does not go into the charts, and nothing is installed into the local Maven repository. OPS_CHECKOUT=1 builds the
# checkout as it is instead (run.txt says so).
if [[ "${OPS_CHECKOUT:-0}" == 1 ]]; then
    SRC="$ROOT"
    SRC_NAME="the checkout as it was (commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet \
        HEAD || echo ', with uncommitted changes'))"
else
    SRC="$WORK/src"
    mkdir -p "$SRC"
    git -C "$ROOT" archive HEAD | tar -x -C "$SRC"
    SRC_NAME="commit $(git -C "$ROOT" rev-parse --short HEAD), exported with git archive"
fi
log "building load-client and the modules it needs from $SRC_NAME (tests skipped)"
# One reactor: load-client's classpath names its sibling modules' jars in $SRC/*/target.
(cd "$SRC" && mvn -q ${MVN_OFFLINE:+-o} "${MVN_REPO[@]}" package dependency:build-classpath -DskipTests \
    -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dmdep.outputFile=target/runtime-classpath.txt \
    -Dmdep.includeScope=runtime -pl load-client -am)
# A copy of load-client's classes: a build in the checkout (mvn clean) must not pull them from under a running JVM.
cp -r "$SRC/load-client/target/classes" "$WORK/classes"
cp "$SRC/load-client/target/runtime-classpath.txt" "$WORK/classpath.txt"
CP="$WORK/classes:$(cat "$WORK/classpath.txt")"
LOGBACK="-Dlogback.configurationFile=$ROOT/load-client/src/exec/logback.xml"

# started NAME CPU COMMAND...: in its own process group, pinned, output to $WORK/NAME.log; sets STARTED.
started() {
    local name=$1 cpu=$2; shift 2
    setsid bash -c 'exec "$@"' _ $( [[ -n "$cpu" ]] && echo taskset -c "$cpu" ) "$@" \
        > "$WORK/$name.log" 2>&1 < /dev/null &
    STARTED=$!
    STARTED_PIDS+=("$STARTED")
}

# stop_group PID SECONDS: SIGTERM to its group, SIGKILL after SECONDS.
stop_group() {
    local pid=$1 limit=$2 i
    kill -TERM -- "-$pid" 2>/dev/null || true
    for (( i = 0; i < limit * 10; i++ )); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

mark() { echo "$(date +%s%3N) $1" >> "$MARKS"; log "phase: $1"; }

# load NAME TRANSPORT CLIENTS BATCHES: one --auto run of the load client (bounded), in the background; sets LOAD_PID.
load() {
    local name=$1 transport=$2 clients=$3 batches=$4
    started "$name" "$CLIENT_CPU" timeout --kill-after=10 $(( batches / 100 + 90 )) \
        java $CLIENT_HEAP $JVM_COMMON $LOGBACK -cp "$CP" io.weft.load.LoadClient --auto --server=127.0.0.1 \
        --port="$PORT" --transport="$transport" --clients="$clients" --batches="$batches" --batch-size=10 \
        --batch-pause=10000 --rooms=100 --channel="/chat/$name" --results="$WORK/load-results"
    LOAD_PID=$STARTED
}

finished() { # finished PID NAME: waits for a load run, then logs its exit code and summary lines
    local rc=0
    wait "$1" || rc=$?
    log "$2 exit $rc: $(grep -E '^(All messages|Messages - Success|Messages - Latency:)' "$WORK/$2.log" \
        | tr '\n' ' ')"
    { echo "$2 exit=$rc"; grep -E '^(Messages - Success|Messages - Latency:|Server - (Latency|Elapsed|Heap))' \
        "$WORK/$2.log" | sed 's/^/    /'; } >> "$WORK/runs.txt"
}

started server "$SERVER_CPU" java $SERVER_HEAP $JVM_COMMON $LOGBACK -cp "$CP" io.weft.load.LoadServer \
    --host=127.0.0.1 --port=0
SERVER=$STARTED
for i in $(seq 1 300); do grep -qs '^READY' "$WORK/server.log" && break; sleep 0.1; done
PORT=$(sed -n 's/^READY port=//p' "$WORK/server.log")
[[ -n "$PORT" ]] || { cat "$WORK/server.log" >&2; exit 1; }
log "load server on 127.0.0.1:$PORT (pid $SERVER)"

started scrape "$CLIENT_CPU" java -Djava.awt.headless=true -cp "$CP" io.weft.load.MetricsScrape \
    --url="http://127.0.0.1:$PORT/metrics" --interval=2 --duration=330 --out="$WORK/charts" --marks="$MARKS"
SCRAPE=$STARTED
STARTED_AT=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
LOAD_BEFORE=$(load_avg)

sleep 10
mark "500 ws"
load ws500 websocket 500 3000; finished "$LOAD_PID" ws500
sleep 10
mark "1000 ws"
load ws1000 websocket 1000 6000; WS1000=$LOAD_PID
sleep 20
mark "+500 lp"
load lp500 long-polling 500 2000; finished "$LOAD_PID" lp500
finished "$WS1000" ws1000
sleep 10
mark "1000 lp"
load lp1000 long-polling 1000 3000; finished "$LOAD_PID" lp1000
sleep 15

curl -s "http://127.0.0.1:$PORT/metrics" > "$WORK/metrics-final.txt"
log "stopping the scrape (it writes the CSV and charts), then the server"
stop_group "$SCRAPE" 60
stop_group "$SERVER" 10
cat "$WORK/scrape.log" >&2

# Every metric the dashboard queries is one the server served (the load-client test checks labels and values too).
python3 - "$DASHBOARD" "$WORK/metrics-final.txt" <<'EOF'
import json, re, sys
exprs = []
def walk(node):
    if isinstance(node, dict):
        if isinstance(node.get("expr"), str):
            exprs.append(node["expr"])
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(json.load(open(sys.argv[1])))
served = {line.split("{")[0].split(" ")[0] for line in open(sys.argv[2]) if line.strip() and not line.startswith("#")}
named = {m for e in exprs for m in re.findall(r"\b(?:weft|jvm|process|system)_[a-z0-9_]+\b", e)}
missing = sorted(named - served)
print(f"dashboard: {len(exprs)} queries, {len(named)} metrics, all served" if not missing
      else f"dashboard: not served: {missing}", file=sys.stderr)
sys.exit(1 if missing else 0)
EOF

[[ -s "$WORK/charts/metrics.csv" && -s "$WORK/charts/overview.png" ]] || { echo "no charts were written" >&2; exit 1; }
rm -f "$DEST"/*.png "$DEST/metrics.csv"
cp "$WORK/charts/"* "$DEST/"
{
    echo "bench/operations-run.sh, started $STARTED_AT"
    echo "built from $SRC_NAME"
    echo "machine: $(nproc) cores, $(java -version 2>&1 | head -1); server pinned to core '${SERVER_CPU}'," \
        "load clients and scraper to core '${CLIENT_CPU}'; server heap: $SERVER_HEAP"
    echo "load average (1 min) at the start $LOAD_BEFORE, at the end $(load_avg)"
    echo "phases, launched at (seconds since the first scrape):"
    start=$(awk -F, 'NR == 2 { printf "%.0f", $2 - $1 * 1000 }' "$DEST/metrics.csv")
    while read -r at label; do printf '  %6.1f s  %s\n' "$(( at - start ))e-3" "$label"; done < "$MARKS"
    echo "load client runs:"
    sed 's/^/  /' "$WORK/runs.txt"
} > "$DEST/run.txt"
log "done: $DEST"
