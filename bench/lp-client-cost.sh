#!/usr/bin/env bash
# Issue 26, what a long-polling client pays: the chat load of side-by-side.sh (1,000 clients, 100 rooms, 50 B) on
# io.weft.client's long-polling, one ladder per server (weft weft-netty cometd faye, or LP_SERVERS), alternated, at
# LP_RATES (default 20000,40000); the ladder logs, per rung, the batches the clients wrote and read and the messages
# per batch read (in bench/target/lp-client-cost.log), beside the CSV's client CPU. LP_ROUNDS rounds (default 1).
# The pre-warm runs 30 s at 5,000 msgs/s (LP_PREWARM_MS, LP_PREWARM_RATE; not with BENCH_SHORT): started at 20,000, the client's one core is
# busy enough that its JIT compiler falls behind, and how long it stays behind depends on the server (see
# long-polling-client-cost.md, 28 November).
# BENCH_SHORT=1: 200 clients in 20 rooms at 2500,5000 msgs/s.
# Writes docs/benchmarks/long-polling-client-cost.csv.
source "$(dirname "$0")/lib.sh"
ROUNDS=${LP_ROUNDS:-1}; CLIENTS=1000; ROOMS=100; RATES=${LP_RATES:-20000,40000}
short && { CLIENTS=200; ROOMS=20; RATES=2500,5000; }
times=$(ladder_times)
short || times="$(sed "s/--prewarm-ms=[0-9]*/--prewarm-ms=${LP_PREWARM_MS:-30000}/" <<< "$times") \
--prewarm-rate=${LP_PREWARM_RATE:-5000}"
SERVERS=(${LP_SERVERS:-weft weft-netty cometd faye})
bench_deadline $(( ROUNDS * ${#SERVERS[@]} * 260 + 300 ))
bench_build
CSV="$OUT/long-polling-client-cost.csv"; LOG="$BUILD/lp-client-cost.log"; rm -f "$CSV" "$LOG"
for round in $(seq 1 "$ROUNDS"); do
    for server in "${SERVERS[@]}"; do
        port=$(free_port)
        start_server "$server" "$port"
        driver 400 ladder --server-pid="$SERVER_PID" --server="$server" --transport=long-polling \
            --urls="$(urls "$port")" --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATES" \
            $times --csv="$CSV" --label="round$round" 2>&1 | tee -a "$LOG" || log "$server failed"
        stop_server
    done
done
grep -E "io.weft.client|offered:" "$LOG"
log "done: $CSV"
