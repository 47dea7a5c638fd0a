#!/usr/bin/env bash
# Experiment 1, chat rooms (after CometD/Jetty, 2008): users x rooms on Weft, 50-byte messages in bursts to 10 random
# rooms, offered rates climbing to the knee; latency against delivered throughput as a bubble chart (bubble = users).
# Default: 1k and 5k users x 100 and 1,000 rooms over websocket and long-polling (about 10 minutes).
# --full: 1k, 5k, 10k and 18k users (18k: the most one process holds under this machine's 20,000 file limit).
# BENCH_SHORT=1: 200 users in 10 and 100 rooms, two rates, short rungs (about 1 minute; see lib.sh).
# Writes docs/benchmarks/chat-rooms.csv and chat-rooms-*.png.
source "$(dirname "$0")/lib.sh"
USERS=(1000 5000); [[ "${1:-}" == --full ]] && USERS=(1000 5000 10000 18000)
ROOMS=(100 1000); RATES=2000,5000,10000,20000,40000,80000,160000
short && { USERS=(200); ROOMS=(10 100); RATES=2000,5000; }
bench_deadline $(( ${#USERS[@]} * 900 ))
bench_build
CSV="$OUT/chat-rooms.csv"; rm -f "$CSV"
for transport in websocket long-polling; do
    for users in "${USERS[@]}"; do
        for rooms in "${ROOMS[@]}"; do
            port=$(free_port)
            start_server weft "$port"
            driver 600 ladder --server-pid="$SERVER_PID" --server=weft --transport="$transport" --urls="$(urls "$port")" \
                --clients="$users" --rooms="$rooms" --size=50 --rates="$RATES" $(ladder_times) --csv="$CSV" \
                --label="${users}u/${rooms}r" || log "chat $transport $users/$rooms failed"
            stop_server
        done
    done
done
for transport in websocket long-polling; do
    chart --csv="$CSV" --out="$OUT/chat-rooms-$transport.png" --where="transport=$transport" --x=delivered_per_s \
        --y=p50_ms --bubble=clients --series=rooms --logy=true \
        --title="Chat rooms on Weft over $transport: p50 latency vs delivered msgs/s (bubble = users)" \
        --xlabel="delivered messages/s" --ylabel="p50 latency (ms, log)"
    chart --csv="$CSV" --out="$OUT/chat-rooms-$transport-p99.png" --where="transport=$transport" --x=delivered_per_s \
        --y=p99_ms --bubble=clients --series=rooms --logy=true \
        --title="Chat rooms on Weft over $transport: p99 latency vs delivered msgs/s (bubble = users)" \
        --xlabel="delivered messages/s" --ylabel="p99 latency (ms, log)"
done
log "done: $CSV"
