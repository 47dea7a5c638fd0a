#!/usr/bin/env bash
# Issue 27's cost of channel history in Redis: the chat ladder (bench/cluster.sh's: lean websocket clients in rooms,
# rising offered rates, a warm-up and a measured window per rung, each ladder stopping at its knee) on Weft nodes on
# Redis, without history and with history on every room (LoadServer --option=history=/chat/**, the defaults: 1,000
# publications, 1 MiB and 300 s per channel). With history a publish is one Lua script on Redis
# (history-publish.lua: epoch, offset, XADD, trim, then (S)PUBLISH with the position) instead of a plain (S)PUBLISH.
#
# Eight configurations, named MODE-NODESn-history|nohistory:
#   plain-1n-*     one node on one redis-server (--redis): each publish goes to Redis and comes back to the node alone
#   plain-3n-*     three nodes on that redis-server: each publish comes back to all three (ROOMS is not a multiple of
#                  3, so every room has members on every node); two thirds of the deliveries cross Redis
#   sharded-1n-*, sharded-3n-*   the same on a Redis Cluster of three masters, no replicas (redis-server 7 with
#                  --cluster-enabled yes, made by redis-cli --cluster create) with --redis-sharded: SPUBLISH and
#                  SSUBSCRIBE, each room (and its history keys) on the shard that owns its slot
# alternated within each round (round 1 in the order above, round 2 reversed, ...), a fresh Redis (or Redis Cluster)
# and fresh nodes for each ladder.
#
# Pinning, clients and the CPU sampler are bench/cluster-lib.sh's: every node and every redis-server on core 1
# (SERVER_CPU), the load client on core 0 (CLIENT_CPU); the sampler sums utime+stime over the nodes and over every
# redis-server (the three shards when sharded), so redis_cpu_us_per_publish is all of Redis's CPU per publish.
#
# Environment: RATES, offered deliveries/s [5000,10000,20000,40000]; ROUNDS [3]; CONFIGS, a comma-separated subset of
# the eight in a round's order [all eight]; HISTORY, the history rule of the *-history configurations [/chat/**: the
# defaults; a default ladder keeps fewer than 1,000 publications a room, so the script's trim never deletes: e.g.
# HISTORY='/chat/**:size=100' for a history at its cap, one XDEL per publish]; lib.sh's BENCH_M2, MVN_OFFLINE,
# BENCH_SKIP_BUILD, SERVER_CPU/CLIENT_CPU, SERVER_HEAP.
# Default: 1,000 clients in 100 rooms (10 members a room: a publish is 10 deliveries), 50-byte messages, 4 rates,
# 3 rounds of 8 ladders: about 25 minutes (a ladder is about a minute: the pre-warm, four rungs, the nodes' start).
# BENCH_SHORT=1: 200 clients in 20 rooms, rates 2000,5000, 1 round, short rungs (about 4 minutes with the build; into
# bench/target/short).
# Writes docs/benchmarks/history-redis.csv (cluster.csv's columns: the ladder's, then config, nodes, round,
# nodes_cpu_pct, nodes_cpu_us_per_msg, redis_cpu_pct, redis_cpu_us_per_publish), history-redis-medians.csv (per
# configuration and rate, the median over the rounds that reached it) and history-redis-*.png (from the medians).
source "$(dirname "$0")/lib.sh"
# Its own build folder: the other scripts' bench/target/load-client and bench/target/harness may be rebuilt under a
# running ladder.
BUILD="$BENCH_DIR/target/history-redis"
mkdir -p "$BUILD"
source "$BENCH_DIR/cluster-lib.sh"
ALL=plain-1n-nohistory,plain-1n-history,plain-3n-nohistory,plain-3n-history
ALL+=,sharded-1n-nohistory,sharded-1n-history,sharded-3n-nohistory,sharded-3n-history
CONFIGS="${CONFIGS:-$ALL}"; HISTORY="${HISTORY:-/chat/**}"
CLIENTS=1000; ROOMS=100; MEASURE_S=5
if short; then
    CLIENTS=200; ROOMS=20; MEASURE_S=1.5; RATES="${RATES:-2000,5000}"; ROUNDS="${ROUNDS:-1}"
else
    RATES="${RATES:-5000,10000,20000,40000}"; ROUNDS="${ROUNDS:-3}"
fi
IFS=, read -r -a CONFIG_LIST <<< "$CONFIGS"
# Each ladder takes about a minute (the pre-warm, four rungs, three JVMs and a Redis Cluster to start); twice that.
bench_deadline $(( 300 + ROUNDS * ${#CONFIG_LIST[@]} * 120 ))

# run NAME ROUND: the configuration its name says (MODE-NODESn-history|nohistory), through cluster-lib.sh's run_config.
run() {
    local name=$1 mode nodes history flags=()
    IFS=- read -r mode nodes history <<< "$name"
    case "$mode/$nodes/$history" in
        plain/[13]n/history | sharded/[13]n/history) flags=("--option=history=$HISTORY") ;;
        plain/[13]n/nohistory | sharded/[13]n/nohistory) ;;
        *) echo "history-redis: no configuration $name (MODE-NODESn-history|nohistory, MODE plain or sharded)" >&2
           return 1 ;;
    esac
    run_config "$name" "$2" "$mode" "${nodes%n}" "${flags[@]}"
}

# The median over the rounds of each configuration's figures at each offered rate, configurations in CONFIGS's order.
MEDIANS='
import csv, statistics, sys
rows_file, out, order = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
figures = ["delivered_per_s", "p50_ms", "p99_ms", "lost_pct", "nodes_cpu_pct", "nodes_cpu_us_per_msg",
           "redis_cpu_pct", "redis_cpu_us_per_publish"]
groups = {}
for r in csv.DictReader(open(rows_file)):
    groups.setdefault((r["config"], int(r["offered_per_s"])), []).append(r)
def median(rows, name):
    values = [float(r[name]) for r in rows if r[name] not in ("", "nan")]
    return "%.2f" % statistics.median(values) if values else ""
with open(out, "w") as f:
    f.write(",".join(["config", "nodes", "offered_per_s", "rounds"] + figures) + "\n")
    for key in sorted(groups, key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[1])):
        rows = groups[key]
        f.write(",".join([key[0], rows[0]["nodes"], str(key[1]), str(len(rows))]
                         + [median(rows, name) for name in figures]) + "\n")
'

cluster_build
cluster_csv "$OUT/history-redis.csv"
for round in $(seq 1 "$ROUNDS"); do
    order=("${CONFIG_LIST[@]}")
    if (( round % 2 == 0 )); then
        order=(); for (( i = ${#CONFIG_LIST[@]} - 1; i >= 0; i-- )); do order+=("${CONFIG_LIST[$i]}"); done
    fi
    for config in "${order[@]}"; do run "$config" "$round"; sleep 1; done
done
MEDIAN_CSV="$OUT/history-redis-medians.csv"
python3 -c "$MEDIANS" "$CSV" "$MEDIAN_CSV" "$CONFIGS"
chart --csv="$MEDIAN_CSV" --out="$OUT/history-redis-redis-cpu.png" --x=offered_per_s --y=redis_cpu_us_per_publish \
    --series=config --title="Redis's CPU per publish, all redis-servers summed (median over the rounds)" \
    --xlabel="offered deliveries/s (10 per publish)" --ylabel="µs of Redis CPU per publish"
chart --csv="$MEDIAN_CSV" --out="$OUT/history-redis-nodes-cpu.png" --x=offered_per_s --y=nodes_cpu_us_per_msg \
    --series=config --title="Weft nodes' CPU per delivered message, all nodes summed (median over the rounds)" \
    --xlabel="offered deliveries/s" --ylabel="µs of CPU per delivered message"
chart --csv="$MEDIAN_CSV" --out="$OUT/history-redis-p99_ms.png" --x=offered_per_s --y=p99_ms --series=config \
    --logy=true --title="p99 latency (median over the rounds; server side on 1 core)" \
    --xlabel="offered deliveries/s" --ylabel="p99 latency (ms, log)"
log "done: $CSV, $MEDIAN_CSV"
