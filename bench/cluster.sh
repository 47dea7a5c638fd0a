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
# CPU: every 100 ms a sampler reads utime+stime of every node from /proc/<pid>/stat and redis-server's threads' run
# time from /proc/<pid>/task/*/schedstat (ns; the runs in cluster.md read its utime+stime, in 10 ms ticks); each
# rung's measured window is placed from the time its CSV row came out (the row follows the window, then a drain of
# about the messages' p99, or of 5 s when some never arrived). For one node the ladder's own server_cpu_pct (exact
# window) is there to check it against; with three nodes that column is node 1's alone.
#
# Default: 1,000 clients in 100 rooms, 50-byte messages, rates 5k..160k (each ladder stops at its knee), 2 rounds:
# about 10 minutes. ROUNDS=N for more. BENCH_SHORT=1: 200 clients in 20 rooms, two rates, one round (about 2 minutes).
# Writes docs/benchmarks/cluster.csv (the ladder's columns, then config, nodes, round, nodes_cpu_pct,
# nodes_cpu_us_per_msg, redis_cpu_pct, redis_cpu_us_per_publish) and cluster-*.png. The pieces (Redis, the nodes, the
# sampler, the join) are bench/cluster-lib.sh's, shared with bench/history-redis.sh.
source "$(dirname "$0")/lib.sh"
# Its own build folder: the other scripts' bench/target/load-client and bench/target/harness may be rebuilt under a
# running ladder.
BUILD="$BENCH_DIR/target/cluster"
mkdir -p "$BUILD"
source "$BENCH_DIR/cluster-lib.sh"
CLIENTS=1000; ROOMS=100; RATES=5000,10000,20000,30000,40000,60000,80000,120000,160000; ROUNDS="${ROUNDS:-2}"
short && { CLIENTS=200; ROOMS=20; RATES=2000,5000; ROUNDS=1; }
MEASURE_S=5; short && MEASURE_S=1.5
if short; then bench_deadline 600; else bench_deadline $(( 1500 + (ROUNDS - 2) * 700 )); fi

# run CONFIG ROUND: a = no Redis, b = one node on Redis, c = three nodes on Redis (cluster-lib.sh's run_config).
run() {
    case $1 in
        a) run_config a "$2" none 1 ;;
        b) run_config b "$2" plain 1 ;;
        c) run_config c "$2" plain 3 ;;
    esac
}

cluster_build
cluster_csv "$OUT/cluster.csv"
for round in $(seq 1 "$ROUNDS"); do
    order=(a b c); (( round % 2 == 0 )) && order=(c b a)
    for config in "${order[@]}"; do run "$config" "$round"; sleep 2; done
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
