# Shared by bench/cluster.sh and bench/history-redis.sh: Weft nodes on Redis (one redis-server for plain pub/sub, or
# a Redis Cluster of three masters for sharded pub/sub), a CPU sampler over the nodes and every redis-server, and the
# join of the ladder's rows with the samples into one CSV row per rung. Sourced after lib.sh, once the script has set
# BUILD (a build folder of its own), CLIENTS, ROOMS, RATES and MEASURE_S (the ladder's measured window, s).
#
# run_config NAME ROUND MODE NODES [LOADSERVER_FLAG...] is the unit: fresh Redis and fresh nodes, one ladder, the rows
# appended to $CSV (cluster_csv writes its header) with NAME in the config column.
#
# Pinning: every node and every redis-server on SERVER_CPU, the load client on CLIENT_CPU (lib.sh).
# Clients: the lean websocket client, client i on node i % nodes (the --urls list is node-major over the four loopback
# addresses) and in room i % rooms.
# CPU: the sampler reads the CPU time of every node and every redis-server from /proc every 100 ms (SAMPLER); each
# rung's measured window is placed from the time its CSV row came out (the row follows the window, then a drain of
# about the messages' p99, or of 5 s when some never arrived).

cluster_build() { # lib.sh's build_weft into the script's BUILD: no CometD, no Faye
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

# start_redis_server NAME PORT [OPTION...]: a redis-server without persistence on loopback, in $BUILD/NAME (emptied
# first), answering PING; appends its pid to REDIS_PIDS.
start_redis_server() {
    local name=$1 port=$2 i; shift 2
    rm -rf "${BUILD:?}/$name"; mkdir -p "$BUILD/$name"
    start_group "$BUILD/$name.log" redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
        --dir "$BUILD/$name" "$@"
    REDIS_PIDS+=("$GROUP_PID")
    for i in $(seq 1 100); do
        redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
        sleep 0.1
    done
    cat "$BUILD/$name.log" >&2; return 1
}

# start_redis: one redis-server for plain pub/sub; sets REDIS_URI.
start_redis() {
    local port; port=$(free_port)
    start_redis_server redis "$port"
    REDIS_URI="redis://127.0.0.1:$port"
    log "redis up on $port (pid ${REDIS_PIDS[-1]})"
}

# cluster_ports N: N ports p free together with p + 10000 (a cluster node's bus port), below 55536.
cluster_ports() {
    python3 - "$1" <<'EOF'
import random, socket, sys
found = []
while len(found) < int(sys.argv[1]):
    p = random.randrange(20000, 30000)
    socks = []
    try:
        for q in (p, p + 10000):
            s = socket.socket(); socks.append(s); s.bind(("127.0.0.1", q))
        if p not in found: found.append(p)
    except OSError:
        pass
    finally:
        for s in socks: s.close()
print(" ".join(map(str, found)))
EOF
}

# start_redis_cluster: a Redis Cluster of three masters, no replicas (redis-cli --cluster create), waited for until
# every shard says cluster_state:ok, knows the other two and sees all 16384 slots served (as the tests'
# RedisClusterServer waits); sets REDIS_URI to the three seeds, redis://127.0.0.1:p1,...
start_redis_cluster() {
    local ports port i shard hosts=() seeds="" info view
    read -r -a ports <<< "$(cluster_ports 3)"
    for i in 0 1 2; do
        start_redis_server "shard-$i" "${ports[$i]}" --cluster-enabled yes --cluster-config-file nodes.conf
        hosts+=("127.0.0.1:${ports[$i]}"); seeds+="${seeds:+,}redis://127.0.0.1:${ports[$i]}"
    done
    redis-cli --cluster create "${hosts[@]}" --cluster-replicas 0 --cluster-yes > "$BUILD/cluster-create.log" 2>&1 \
        || { cat "$BUILD/cluster-create.log" >&2; return 1; }
    for i in $(seq 1 200); do
        shard=0
        for port in "${ports[@]}"; do
            info=$(redis-cli -p "$port" cluster info 2>/dev/null || true)
            view=$(redis-cli -p "$port" cluster nodes 2>/dev/null || true)
            if [[ $info == *cluster_state:ok* && $info == *cluster_known_nodes:3* && $info == *cluster_slots_ok:16384*
                && $view != *fail* && $view != *handshake* ]]; then
                shard=$((shard + 1))
            fi
        done
        if (( shard == 3 )); then
            REDIS_URI=$seeds; log "redis cluster up on ${ports[*]} (pids ${REDIS_PIDS[*]})"; return 0
        fi
        sleep 0.1
    done
    echo "the Redis Cluster did not form" >&2; redis-cli -p "${ports[0]}" cluster nodes >&2; return 1
}

# start_node N PORT [LOADSERVER_FLAG...]: Weft's load server, node N; appends its pid to NODE_PIDS. --drain=0: it stops
# at once when told (the ladder is over, no client is left to move).
start_node() {
    local n=$1 port=$2 logf="$BUILD/node-$1.log" i; shift 2
    start_group "$logf" java $SERVER_HEAP $JVM_COMMON $LOAD_LOGGING -cp "$(load_cp)" io.weft.load.LoadServer \
        --port="$port" --extensions=none --drain=0 "$@"
    for i in $(seq 1 300); do
        if grep -q "^READY" "$logf"; then
            log "node $n up on $port (pid $GROUP_PID) $*"; NODE_PIDS+=("$GROUP_PID"); return 0
        fi
        kill -0 "$GROUP_PID" 2>/dev/null || { cat "$logf" >&2; return 1; }
        sleep 0.1
    done
    echo "node $n did not start" >&2; cat "$logf" >&2; return 1
}

# The sampler: every 100 ms, "wall_seconds node_ticks redis_ticks" (CPU time in ticks of 10 ms, summed over the node
# pids and over the redis-server pids, a comma-separated list; "-" for none, and then -1), until killed. A node's is
# utime+stime from /proc/<pid>/stat (exited threads included, to the tick); a redis-server's is the run time of its
# threads from /proc/<pid>/task/*/schedstat (to the nanosecond: at a few hundred publishes a second a tick is several
# microseconds per publish; its threads live as long as it does, so none is lost).
SAMPLER='
import glob, sys, time
redis = [int(p) for p in sys.argv[1].split(",")] if sys.argv[1] != "-" else []
nodes = [int(p) for p in sys.argv[2:]]
def ticks(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
        fields = s[s.rindex(")") + 2:].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0
def run_ticks(pid):
    total = 0
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e7
while True:
    print("%.3f %d %.4f" % (time.time(), sum(ticks(p) for p in nodes),
                            sum(run_ticks(p) for p in redis) if redis else -1), flush=True)
    time.sleep(0.1)
'

# The rows with their arrival times and the samples, joined: one CSV row per rung.
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

# cluster_csv FILE: FILE emptied, with the header: the ladder's columns, then the config, its number of nodes, the
# round, and the sampler's figures; sets CSV.
cluster_csv() {
    CSV=$1; rm -f "$CSV"
    echo "$HEADER,config,nodes,round,nodes_cpu_pct,nodes_cpu_us_per_msg,redis_cpu_pct,redis_cpu_us_per_publish" > "$CSV"
}

# run_config NAME ROUND none|plain|sharded NODES [LOADSERVER_FLAG...]: no Redis, one redis-server (--redis) or a
# Redis Cluster (--redis --redis-sharded); NODES load servers with the flags given; one ladder; its rows joined to the
# CPU samples and appended to $CSV as config NAME.
run_config() {
    local config=$1 round=$2 mode=$3 nodes=$4 port n a urls="" ports=() redis_flags=() sampler rows pid
    shift 4
    NODE_PIDS=(); REDIS_PIDS=(); REDIS_URI=""
    case $mode in
        none) ;;
        plain) start_redis; redis_flags=(--redis="$REDIS_URI") ;;
        sharded) start_redis_cluster; redis_flags=(--redis="$REDIS_URI" --redis-sharded) ;;
        *) echo "run_config: no Redis mode $mode" >&2; return 1 ;;
    esac
    for n in $(seq 1 "$nodes"); do
        port=$(free_port); ports+=("$port"); start_node "$n" "$port" "${redis_flags[@]}" "$@"
    done
    # Node-major over the loopback addresses: url u is address u / nodes, node u % nodes; client i -> node i % nodes.
    for a in "${ADDRS[@]}"; do for port in "${ports[@]}"; do urls+="${urls:+,}http://$a:$port/cometd"; done; done
    setsid python3 -c "$SAMPLER" "$(IFS=,; echo "${REDIS_PIDS[*]:--}")" "${NODE_PIDS[@]}" \
        > "$BUILD/samples-$config-$round.txt" &
    sampler=$!; STARTED_PIDS+=("$sampler")
    rows="$BUILD/rows-$config-$round.txt"; : > "$rows"
    log "config $config, round $round: $nodes node(s)${REDIS_URI:+ on $mode $REDIS_URI}, $CLIENTS clients, $ROOMS rooms"
    driver 600 ladder --server-pid="${NODE_PIDS[0]}" --server=weft --transport=lean-websocket --urls="$urls" \
        --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATES" $(ladder_times) \
        --csv="$BUILD/ladder-$config-$round.csv" --label="$config-r$round" --hlog-dir="$BUILD/hlog" \
        2> "$BUILD/ladder-$config-$round.err" \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line" | tee -a "$rows" >&2; done \
        || log "config $config round $round: the ladder failed (see $BUILD/ladder-$config-$round.err)"
    stop_group "$sampler"
    for pid in "${NODE_PIDS[@]}"; do stop_group "$pid"; done
    for pid in "${REDIS_PIDS[@]}"; do stop_group "$pid"; done
    python3 -c "$JOIN" "$rows" "$BUILD/samples-$config-$round.txt" "$CSV" "$config" "$nodes" "$round" "$MEASURE_S" \
        "$HEADER"
}
