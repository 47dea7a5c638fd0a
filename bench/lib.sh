# Shared by the bench/*.sh scripts: build, start and stop servers, run the harness's bench commands, clean up.
# Sourced, not run.
#
# Environment (all optional):
#   BENCH_M2          Maven local repository (-Dmaven.repo.local) for every build here [Maven's default]
#   MVN_OFFLINE       1: build with mvn -o
#   WEFT_SRC          the Weft checkout to build and install [this repository]
#   BENCH_SKIP_BUILD  1: use what bench/target and bench/cometd-server/target already hold
#   BENCH_SHORT       1: a few seconds per point and small sizes, to check that a script works end to end; the
#                     figures mean nothing, and go to bench/target/short instead of docs/benchmarks
#   SERVER_CPU / CLIENT_CPU   cores to pin the server and the client to with taskset [1 / 0]; "" = no pinning
#   SERVER_HEAP / CLIENT_HEAP JVM heap flags [-Xms1g -Xmx1g / -Xms2g -Xmx2g]
#   WEFT_CP_PREPEND   classes put before the Weft jars on the Weft server's classpath (A/B runs of a change)
#   WEFT_OPTS         extra JVM flags for the Weft server
#   SERVER_JVM_OPTS   extra JVM flags for whichever JVM server a script starts (Weft, CometD, the floor)
#   WEFT_EXTENSIONS   the Weft server's extensions (LoadServer --extensions: ack, timesync) [none, as the peers run]
#   WEFT_ARGS         extra LoadServer flags (e.g. --jetty-defaults: Jetty's connector defaults)

set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
OUT="$ROOT/docs/benchmarks"
BUILD="$BENCH_DIR/target"
[[ "${BENCH_SHORT:-0}" == 1 ]] && OUT="$BUILD/short"
WEFT_SRC="${WEFT_SRC:-$ROOT}"
SERVER_CPU="${SERVER_CPU-1}"
CLIENT_CPU="${CLIENT_CPU-0}"
SERVER_HEAP="${SERVER_HEAP:--Xms1g -Xmx1g}"
CLIENT_HEAP="${CLIENT_HEAP:--Xms2g -Xmx2g}"
# Idle memory runs let the heap shrink after the full GC that measures it (same flags for Weft and CometD), so that
# RSS shows what the sessions keep, not the young generation the connection storm touched.
IDLE_HEAP="${IDLE_HEAP:--Xms32m -Xmx1g -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30}"
JVM_COMMON="-XX:+UseG1GC -Djava.awt.headless=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
# The harness, the load tool and the load server log through logback (load-client's -Pclient runtime classpath, which
# the harness runs on too): warnings only.
LOAD_LOGGING="-Dlogback.configurationFile=$BENCH_DIR/logback.xml"
# Four loopback addresses: client i talks to ADDRS[i % 4], so ephemeral ports last four times longer.
ADDRS=(127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.4)
MVN_REPO=()
[[ -n "${BENCH_M2:-}" ]] && MVN_REPO=(-Dmaven.repo.local="$BENCH_M2")
[[ "${MVN_OFFLINE:-0}" == 1 ]] && MVN_REPO+=(-o)

mkdir -p "$OUT" "$BUILD"
# The hard limit is what this machine allows (20,000 here; raising it needs CAP_SYS_RESOURCE, which is not given).
ulimit -n "$(ulimit -Hn)"

STARTED_PIDS=()
cleanup() {
    local pid
    for pid in "${STARTED_PIDS[@]:-}"; do
        [[ -n "$pid" ]] && kill -TERM -- "-$pid" 2>/dev/null || true
    done
    sleep 1
    for pid in "${STARTED_PIDS[@]:-}"; do
        [[ -n "$pid" ]] && kill -KILL -- "-$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A watchdog: the whole script ends after $1 seconds whatever happens.
bench_deadline() {
    local seconds=$1 me=$$
    # The sleep gets none of the script's streams: the watchdog killed at exit leaves it behind, and a sleep holding a
    # pipe the script writes to would keep its reader (bench/x.sh | tail) waiting until the time limit.
    ( sleep "$seconds" </dev/null >/dev/null 2>&1
      echo "bench: time limit of ${seconds}s reached, stopping" >&2; kill -TERM "$me" ) &
    WATCHDOG=$!
    disown "$WATCHDOG" 2>/dev/null || true
    trap 'kill $WATCHDOG 2>/dev/null || true; cleanup' EXIT
}

pin() { # pin CPU command...: taskset when a core is given
    local cpu=$1; shift
    if [[ -n "$cpu" ]]; then taskset -c "$cpu" "$@"; else "$@"; fi
}

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

bench_build() {
    if [[ "${BENCH_SKIP_BUILD:-0}" == 1 ]]; then return; fi
    build_weft
    log "building the CometD 9 peer server"
    mvn -q "${MVN_REPO[@]}" -f "$BENCH_DIR/cometd-server/pom.xml" package dependency:build-classpath
    if [[ ! -d "$BUILD/faye/node_modules/faye" ]]; then
        log "installing faye 1.4.3 into $BUILD/faye"
        npm install --prefix "$BUILD/faye" --no-audit --no-fund --loglevel=error faye@1.4.3 >/dev/null
    fi
}

# build_weft: installs the bench module and what it needs (load-client among them), tests skipped, then keeps in
# $BUILD what the scripts run, with the runtime classpaths from the local repository: the load server and the load tool
# (load-client, logback included) in $BUILD/load-client, the harness (the bench module: Bench, FloorServer) in
# $BUILD/harness, its classpath without load-client, whose classes come from the copy.
build_weft() {
    log "building Weft (install the bench module and what it needs, tests skipped)"
    (cd "$WEFT_SRC" && mvn -q "${MVN_REPO[@]}" install -DskipTests -pl bench -am)
    keep_classes "$WEFT_SRC"
    # (The dependency plugin's filters are -DincludeScope and -DexcludeArtifactIds; only the output is -Dmdep.*.)
    mvn -q "${MVN_REPO[@]}" -f "$WEFT_SRC/load-client/pom.xml" -Pclient dependency:build-classpath \
        -DincludeScope=runtime -Dmdep.outputFile="$BUILD/load-client/classpath.txt"
    mvn -q "${MVN_REPO[@]}" -f "$WEFT_SRC/bench/pom.xml" dependency:build-classpath -DincludeScope=runtime \
        -DexcludeArtifactIds=load-client -Dmdep.outputFile="$BUILD/harness/classpath.txt"
}

# keep_classes SRC: a copy of load-client's and bench's classes as built in the tree SRC, where load_cp and harness_cp
# find them (a build in the checkout must not pull them from under a running JVM).
keep_classes() {
    local src=$1
    rm -rf "$BUILD/load-client" "$BUILD/harness"; mkdir -p "$BUILD/load-client" "$BUILD/harness"
    cp -r "$src/load-client/target/classes" "$BUILD/load-client/classes"
    cp -r "$src/bench/target/maven/classes" "$BUILD/harness/classes"
}

load_cp() { echo "$BUILD/load-client/classes:$(cat "$BUILD/load-client/classpath.txt")"; }
# The harness: its classes, then the load tool's (logback among its jars), then its own dependencies but load-client.
harness_cp() { echo "$BUILD/harness/classes:$(load_cp):$(cat "$BUILD/harness/classpath.txt")"; }
cometd_cp() { echo "$BENCH_DIR/cometd-server/target/classes:$(cat "$BENCH_DIR/cometd-server/target/classpath.txt")"; }

# start_server weft|cometd|faye|floor PORT: starts it in its own process group, waits for READY; sets SERVER_PID.
start_server() {
    local kind=$1 port=$2 logf="$BUILD/server-$1.log"
    local cmd
    case "$kind" in
        weft-netty) # the same load server on transport-netty's engine
            cmd=(java $SERVER_HEAP $JVM_COMMON $LOAD_LOGGING ${WEFT_OPTS:-} ${SERVER_JVM_OPTS:-}
                -cp "${WEFT_CP_PREPEND:+$WEFT_CP_PREPEND:}$(load_cp)" io.weft.load.LoadServer --port="$port" --engine=netty
                --extensions="${WEFT_EXTENSIONS:-none}" ${WEFT_ARGS:-}) ;;
        weft)
            if [[ -n "${WEFT_BENCH_SERVER_CP:-}" ]]; then # a tree from before the load server ran the benchmarks
                cmd=(java $SERVER_HEAP $JVM_COMMON ${WEFT_OPTS:-} -cp "$WEFT_BENCH_SERVER_CP" io.weft.bench.BenchServer "$port")
            else
                cmd=(java $SERVER_HEAP $JVM_COMMON $LOAD_LOGGING ${WEFT_OPTS:-} ${SERVER_JVM_OPTS:-}
                    -cp "${WEFT_CP_PREPEND:+$WEFT_CP_PREPEND:}$(load_cp)" io.weft.load.LoadServer --port="$port"
                    --extensions="${WEFT_EXTENSIONS:-none}" ${WEFT_ARGS:-})
            fi ;;
        cometd) cmd=(java $SERVER_HEAP $JVM_COMMON ${SERVER_JVM_OPTS:-} -cp "$(cometd_cp)" io.weft.bench.peer.CometDPeerServer "$port") ;;
        floor)  cmd=(java $SERVER_HEAP $JVM_COMMON ${SERVER_JVM_OPTS:-} -cp "$(harness_cp)" io.weft.load.floor.FloorServer
                    --port="$port" --host=0.0.0.0) ;;
        faye)   cmd=(node --expose-gc "$BENCH_DIR/faye-server/server.js" "$port" "$BUILD/faye/node_modules") ;;
        *) echo "unknown server $kind" >&2; return 1 ;;
    esac
    : > "$logf"
    setsid bash -c 'ulimit -n "$(ulimit -Hn)"; exec "$@"' _ $( [[ -n "$SERVER_CPU" ]] && echo taskset -c "$SERVER_CPU" ) \
        "${cmd[@]}" >"$logf" 2>&1 < /dev/null &
    SERVER_PID=$!
    STARTED_PIDS+=("$SERVER_PID")
    local i
    for i in $(seq 1 300); do
        if grep -q "^READY" "$logf"; then log "$kind up on port $port (pid $SERVER_PID)"; return 0; fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$logf" >&2; return 1; fi
        sleep 0.1
    done
    echo "$kind did not start" >&2; cat "$logf" >&2; return 1
}

# server_of RUN_NAME: the server a profiling run starts: weft-netty as it is, any other weft-X (a variant of Weft's
# classes) the weft load server, a peer by its name.
server_of() {
    case $1 in weft-netty) echo weft-netty ;; weft-*) echo weft ;; *) echo "$1" ;; esac
}

stop_server() {
    if [[ -n "${SERVER_PID:-}" ]]; then
        kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
        local i
        for i in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}

urls() { # urls PORT: the comma-separated Bayeux URLs over the loopback addresses
    local port=$1 a out=""
    for a in "${ADDRS[@]}"; do out+="${out:+,}http://$a:$port/cometd"; done
    echo "$out"
}

# driver TIMEOUT_S COMMAND --flags...: one of the harness's bench commands (io.weft.load.bench.Bench: ladder, idle,
# emit, relay, restart, storm, slow, proxy), pinned, bounded in time.
driver() {
    local limit=$1; shift
    pin "$CLIENT_CPU" timeout --kill-after=10 "$limit" java $CLIENT_HEAP $JVM_COMMON $LOAD_LOGGING -cp "$(harness_cp)" \
        io.weft.load.bench.Bench "$@"
}

# ladder_times: the ladder's rung lengths (a 10 s pre-warm, then 3 s warm-up and 5 s measured per rate; BENCH_SHORT:
# 1 s, then 0.5 s and 1.5 s). BENCH_PREWARM_RATE: the pre-warm's rate (default the first rate's): a rate the clients'
# JVM keeps up with, so that its JIT compiler is not starved of the client's core (see long-polling-client-cost.md).
ladder_times() {
    local rate=${BENCH_PREWARM_RATE:+ --prewarm-rate=$BENCH_PREWARM_RATE}
    if [[ "${BENCH_SHORT:-0}" == 1 ]]; then echo "--prewarm-ms=1000 --warmup-ms=500 --measure-ms=1500$rate"
    else echo "--prewarm-ms=10000 --warmup-ms=3000 --measure-ms=5000$rate"; fi
}
short() { [[ "${BENCH_SHORT:-0}" == 1 ]]; }

# chart --csv=F --out=F.png --x=COL --y=COL [--series=COL[+COL]] [--where=COL=V[+COL=V]] [--bubble=COL] [--logx]
# [--logy] [--title=T] [--xlabel=T] [--ylabel=T]: a CSV's columns charted (Bench chart).
chart() { java -Djava.awt.headless=true $LOAD_LOGGING -cp "$(harness_cp)" io.weft.load.bench.Bench chart "$@"; }
# latency_chart --out=F.png --title=T FILE.hlog=LEGEND...: latency by percentile, the given runs overlaid (those of
# FILE=LEGEND pairs whose file exists: a run past its knee leaves no histogram at that rate); nothing when none does.
latency_chart() {
    local arg files=() opts=()
    for arg in "$@"; do
        if [[ $arg == --* ]]; then opts+=("$arg"); elif [[ -f ${arg%%=*} ]]; then files+=("$arg"); fi
    done
    (( ${#files[@]} )) || { log "latency_chart: no histograms for ${opts[*]}"; return 0; }
    java -Djava.awt.headless=true $LOAD_LOGGING -cp "$(harness_cp)" io.weft.load.bench.Bench latency-chart \
        "${opts[@]}" "${files[@]}"
}

rss_bytes() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }

# The JVM (child of the process-group leader started by start_server) or node process id.
# await_measured_rung OUT_FILE LADDER_PID: returns once a one-rate ladder started with --warmup-ms=3000, its output
# going to OUT_FILE, is inside its measured rung (the pre-warm rung reported, then the warm-up over), or has ended.
await_measured_rung() {
    local out=$1 ladder=$2
    for _ in $(seq 1 600); do grep -q '^prewarm:' "$out" && break; kill -0 "$ladder" 2>/dev/null || break; sleep 0.5; done
    sleep 3.5
}

server_main_pid() {
    local pid=$SERVER_PID child
    child=$(pgrep -P "$pid" | head -1 || true)
    while [[ -n "$child" ]]; do pid=$child; child=$(pgrep -P "$pid" | head -1 || true); done
    echo "$pid"
}

# Live heap after a full GC (bytes), from a class histogram (which collects first).
heap_after_gc() {
    jcmd "$1" GC.class_histogram 2>/dev/null | awk '/^Total/ { print $3 }'
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

load_avg() { cut -d' ' -f1 /proc/loadavg; }

# idle_memory SERVER TRANSPORT N CSV: a fresh server; baseline after 100 clients came and went; then N idle clients;
# heap after a full GC (JVM servers) and RSS, before and after; appends one row per call.
idle_memory() {
    local server=$1 transport=$2 n=$3 csv=$4 port heap0 heap1 rss0 rss1 pid fifo dpid
    port=$(free_port)
    SERVER_HEAP="$IDLE_HEAP" start_server "$server" "$port"
    pid=$(server_main_pid)
    driver 120 idle --transport="$transport" --urls="$(urls "$port")" --clients=100 --hold-s=1 >/dev/null 2>&1 || true
    sleep 2
    read -r heap0 rss0 < <(server_memory "$server" "$pid" "$port")
    fifo="$BUILD/idle-$$.fifo"; rm -f "$fifo"; mkfifo "$fifo"
    driver 400 idle --transport="$transport" --urls="$(urls "$port")" --clients="$n" --hold-s=300 \
        < "$fifo" > "$BUILD/idle-driver.out" 2>"$BUILD/idle-driver.err" &
    dpid=$!
    exec 7>"$fifo"
    local i
    for i in $(seq 1 3000); do
        grep -q "^READY" "$BUILD/idle-driver.out" 2>/dev/null && break
        kill -0 "$dpid" 2>/dev/null || break
        sleep 0.1
    done
    local ready; ready=$(sed -n 's/^READY clients=//p' "$BUILD/idle-driver.out")
    sleep 5
    read -r heap1 rss1 < <(server_memory "$server" "$pid" "$port")
    echo stop >&7; exec 7>&-
    wait "$dpid" 2>/dev/null || true
    rm -f "$fifo"
    stop_server
    local row
    row=$(awk -v s="$server" -v t="$transport" -v n="${ready:-0}" -v h0="$heap0" -v h1="$heap1" -v r0="$rss0" \
        -v r1="$rss1" -v la="$(load_avg)" 'BEGIN { printf "%s,%s,%d,%d,%d,%.0f,%d,%d,%.0f,%s", s, t, n, h0, h1,
        (n > 0 ? (h1 - h0) / n : 0), r0, r1, (n > 0 ? (r1 - r0) / n : 0), la }')
    [[ -s "$csv" ]] || echo "server,transport,sessions,heap_base_b,heap_idle_b,heap_per_session_b,rss_base_b,rss_idle_b,rss_per_session_b,load_avg" > "$csv"
    echo "$row" >> "$csv"
    log "idle $row"
}

# server_memory SERVER PID PORT: "heap_bytes rss_bytes" (heap: live bytes after a full GC; node: V8 heapUsed after gc())
server_memory() {
    local server=$1 pid=$2 port=$3 heap
    if [[ "$server" == faye ]]; then
        heap=$(curl -s "http://127.0.0.1:$port/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["heapUsed"])')
        sleep 1
    else
        heap=$(heap_after_gc "$pid")
        heap=$(heap_after_gc "$pid")
    fi
    echo "$heap $(rss_bytes "$pid")"
}
