#!/usr/bin/env bash
# Issue 15's benchmark: the chat ladder (bench/chat-rooms.sh's scenario: N clients in rooms, rising offered rates, a
# warm-up and a measured window per rung) against (a) one Weft node without Redis, (b) one node with --redis, (c)
# three nodes with --redis, the configurations alternated (round 1 a b c, round 2 c b a, ...).
#
# Clients: the lean websocket client, client i on node i % nodes (the --urls list is node-major over the four
# loopback addresses) and in room i % rooms; ROOMS is not a multiple of 3, so every room has members on every node and
# each publish crosses Redis to the other two nodes.
# Pinning: the load client on core 0 (CLIENT_CPU), every Weft node and redis-server on core 1 (SERVER_CPU): the server
# side has one core whatever the configuration, so (c) runs three JVMs and Redis on the core (a) has alone. On a
# 2-core machine three nodes cannot beat one; what this measures is the CPU per delivered message of the nodes and of
# Redis.
# CPU: a sampler reads utime+stime of every node and of redis-server from /proc/<pid>/stat every 100 ms; each rung's
# measured window is placed from the time its CSV row came out (the row follows the window, then a drain of about
# the messages' p99, or of 5 s when some never arrived). For one node the ladder's own server_cpu_pct (exact window)
# is there to check it against; with three nodes that column is node 1's alone.
#
# Default: 1,000 clients in 100 rooms, 50-byte messages, rates 5k..160k (each ladder stops at its knee), 2 rounds:
# about 10 minutes. ROUNDS=N for more. BENCH_SHORT=1: 200 clients in 20 rooms, two rates, one round (about 2 minutes).
# Writes docs/benchmarks/cluster.csv (the ladder's columns, then config, nodes, round, nodes_cpu_pct,
# nodes_cpu_us_per_msg, redis_cpu_pct, redis_cpu_us_per_publish) and cluster-*.png.
source "$(dirname "$0")/lib.sh"
# Its own build folder: the other scripts' bench/target/load-client and bench/target/harness may be rebuilt under a
# running ladder.
BUILD="$BENCH_DIR/target/cluster"
mkdir -p "$BUILD"
CLIENTS=1000; ROOMS=100; RATES=5000,10000,20000,30000,40000,60000,80000,120000,160000; ROUNDS="${ROUNDS:-2}"
short && { CLIENTS=200; ROOMS=20; RATES=2000,5000; ROUNDS=1; }
MEASURE_S=5; short && MEASURE_S=1.5
if short; then bench_deadline 600; else bench_deadline $(( 1500 + (ROUNDS - 2) * 700 )); fi

cluster_build() { # lib.sh's build_weft into this script's BUILD: no CometD, no Faye
    if [[ "${BENCH_SKIP_BUILD:-0}" == 1 && -f "$BUILD/harness/classpath.txt" ]]; then return; fi
    build_weft
}

# start_group LOG CMD...: CMD pinned to the server core in a process group of its own; sets GROUP_PID (its pid: the
# exec chain keeps it).
start_group() {
    local logf=$1; shift
    : > "$logf"
    setsid bash -c 'ulimit -n "$(ulimit -Hn)"; exec "$@"' _ $( [[ -n "$SERVER_CPU" ]] && echo taskset -c "$SERVER_CPU" ) \
        "$@" >"$logf" 2>&1 < /dev/null &
    GROUP_PID=$!
    STARTED_PIDS+=("$GROUP_PID")
}

stop_group() {
    local pid=$1 i
    kill -TERM -- "-$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# start_redis PORT: a redis-server without persistence on loopback; sets REDIS_PID.
start_redis() {
    local port=$1 i
    mkdir -p "$BUILD/redis"
    start_group "$BUILD/redis.log" redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
        --dir "$BUILD/redis"
    REDIS_PID=$GROUP_PID
    for i in $(seq 1 100); do
        redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && { log "redis up on $port (pid $REDIS_PID)"; return 0; }
        sleep 0.1
    done
    cat "$BUILD/redis.log" >&2; return 1
}

# start_node N PORT [REDIS_URI]: Weft's load server, node N; appends its pid to NODE_PIDS.
start_node() {
    local n=$1 port=$2 redis=${3:-} logf="$BUILD/node-$1.log" i
    start_group "$logf" java $SERVER_HEAP $JVM_COMMON $LOAD_LOGGING -cp "$(load_cp)" io.weft.load.LoadServer \
        --port="$port" --extensions=none ${redis:+--redis=$redis}
    for i in $(seq 1 300); do
        if grep -q "^READY" "$logf"; then
            log "node $n up on $port (pid $GROUP_PID)${redis:+, $redis}"; NODE_PIDS+=("$GROUP_PID"); return 0
        fi
        kill -0 "$GROUP_PID" 2>/dev/null || { cat "$logf" >&2; return 1; }
        sleep 0.1
    done
    echo "node $n did not start" >&2; cat "$logf" >&2; return 1
}

# The sampler: every 100 ms, "wall_seconds node_ticks redis_ticks" (utime+stime summed over the node pids; -1 for
# no redis), until killed.
SAMPLER='
import sys, time
redis, nodes = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
def ticks(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
        fields = s[s.rindex(")") + 2:].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0
while True:
    print("%.3f %d %d" % (time.time(), sum(ticks(p) for p in nodes), ticks(redis) if redis > 0 else -1), flush=True)
    time.sleep(0.1)
'

# The rows with their arrival times and the samples, joined: one cluster.csv row per rung.
JOIN='
import csv, sys, bisect
rows_file, samples_file, out, config, nodes, rnd, measure, header = sys.argv[1:9]
measure, tick = float(measure), 0.01  # USER_HZ 100
samples = [tuple(map(float, l.split())) for l in open(samples_file) if len(l.split()) == 3]
times = [s[0] for s in samples]
def at(t, col):  # the cumulative ticks at time t, interpolated
    i = bisect.bisect_left(times, t)
    if i <= 0: return samples[0][col]
    if i >= len(samples): return samples[-1][col]
    (t0, v0), (t1, v1) = (samples[i-1][0], samples[i-1][col]), (samples[i][0], samples[i][col])
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
names = header.split(",")
with open(out, "a") as f:
    for line in open(rows_file):
        stamp, _, row = line.strip().partition(" ")
        cells = row.split(",")
        if len(cells) != len(names): continue
        r = dict(zip(names, cells))
        drain = 5.0 if int(r["received"]) < int(r["expected"]) else min(5.0, float(r["p99_ms"]) / 1000 + 0.05)
        end = float(stamp) - drain; start = end - measure
        delivered = float(r["delivered_per_s"]) * measure
        published = float(r["publish_per_s"]) * measure
        node_s = (at(end, 1) - at(start, 1)) * tick
        extra = ["%.1f" % (100 * node_s / measure), "%.2f" % (node_s * 1e6 / delivered if delivered else float("nan"))]
        if samples[0][2] >= 0:
            redis_s = (at(end, 2) - at(start, 2)) * tick
            extra += ["%.1f" % (100 * redis_s / measure), "%.2f" % (redis_s * 1e6 / published)]
        else:
            extra += ["", ""]
        f.write(",".join(cells + [config, nodes, rnd] + extra) + "\n")
'
HEADER="server,transport,clients,rooms,size,offered_per_s,publish_per_s,delivered_per_s,expected,received,lost_pct,p50_ms,p90_ms,p99_ms,max_ms,load_avg,label,server_cpu_pct,server_cpu_us_per_msg,client_cpu_pct"

# run_config a|b|c ROUND: fresh Redis (b, c) and nodes, one ladder, the rows joined to the CPU samples.
run_config() {
    local config=$1 round=$2 nodes=1 redis_uri="" rport="" port n a urls="" ports=() sampler rows
    [[ $config == c ]] && nodes=3
    NODE_PIDS=(); REDIS_PID=-1
    if [[ $config != a ]]; then
        rport=$(free_port); start_redis "$rport"; redis_uri="redis://127.0.0.1:$rport"
    fi
    for n in $(seq 1 "$nodes"); do
        port=$(free_port); ports+=("$port"); start_node "$n" "$port" "$redis_uri"
    done
    # Node-major over the loopback addresses: url u is address u / nodes, node u % nodes; client i -> node i % nodes.
    for a in "${ADDRS[@]}"; do for port in "${ports[@]}"; do urls+="${urls:+,}http://$a:$port/cometd"; done; done
    setsid python3 -c "$SAMPLER" "$REDIS_PID" "${NODE_PIDS[@]}" > "$BUILD/samples-$config-$round.txt" &
    sampler=$!; STARTED_PIDS+=("$sampler")
    rows="$BUILD/rows-$config-$round.txt"; : > "$rows"
    log "config $config, round $round: $nodes node(s)${redis_uri:+ on $redis_uri}, $CLIENTS clients, $ROOMS rooms"
    driver 600 ladder --server-pid="${NODE_PIDS[0]}" --server=weft --transport=lean-websocket --urls="$urls" \
        --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATES" $(ladder_times) \
        --csv="$BUILD/ladder-$config-$round.csv" --label="$config-r$round" --hlog-dir="$BUILD/hlog" \
        2> "$BUILD/ladder-$config-$round.err" \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line" | tee -a "$rows" >&2; done \
        || log "config $config round $round: the ladder failed (see $BUILD/ladder-$config-$round.err)"
    stop_group "$sampler"
    for n in "${NODE_PIDS[@]}"; do stop_group "$n"; done
    [[ $REDIS_PID -gt 0 ]] && stop_group "$REDIS_PID"
    python3 -c "$JOIN" "$rows" "$BUILD/samples-$config-$round.txt" "$CSV" "$config" "$nodes" "$round" "$MEASURE_S" \
        "$HEADER"
}

cluster_build
CSV="$OUT/cluster.csv"; rm -f "$CSV"
echo "$HEADER,config,nodes,round,nodes_cpu_pct,nodes_cpu_us_per_msg,redis_cpu_pct,redis_cpu_us_per_publish" > "$CSV"
for round in $(seq 1 "$ROUNDS"); do
    order=(a b c); (( round % 2 == 0 )) && order=(c b a)
    for config in "${order[@]}"; do run_config "$config" "$round"; sleep 2; done
done
for y in p99_ms:"p99 latency (ms, log)" p50_ms:"p50 latency (ms, log)"; do
    chart --csv="$CSV" --out="$OUT/cluster-${y%%:*}.png" --x=delivered_per_s --y="${y%%:*}" --series=config+round \
        --logy=true --title="Chat ladder: a = 1 node, b = 1 node + Redis, c = 3 nodes + Redis (server side on 1 core)" \
        --xlabel="delivered messages/s" --ylabel="${y#*:}"
done
chart --csv="$CSV" --out="$OUT/cluster-cpu.png" --x=delivered_per_s --y=nodes_cpu_us_per_msg --series=config+round \
    --title="Weft nodes' CPU per delivered message (all nodes summed)" --xlabel="delivered messages/s" \
    --ylabel="µs of CPU per delivered message"
log "done: $CSV"
