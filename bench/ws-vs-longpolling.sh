#!/usr/bin/env bash
# Experiment 2, websocket vs long-polling (after CometD 2.4, 2011), on Weft: offered rates from 1k/s up to the knee;
# median and p99 per point; payloads of 50, 500 and 2,000 bytes; then idle memory per session (heap after a full GC,
# and RSS) for N idle sessions of each transport.
# Default: 1k clients x 3 payloads, 5k clients x 50 bytes, idle 1k and 5k (about 12 minutes).
# --full: also 10k and 18k clients, idle up to 18k.
# BENCH_SHORT=1: 200 clients, 50 and 500 bytes, two rates, short rungs, idle 200 (about 2 minutes; see lib.sh).
# Writes docs/benchmarks/ws-vs-lp.csv, ws-vs-lp-idle.csv and ws-vs-lp-*.png, among them latency by percentile at
# 10,000 offered msgs/s per point, websocket and long-polling overlaid (histograms in bench/target/hlog-ws-vs-lp).
source "$(dirname "$0")/lib.sh"
FULL=0; [[ "${1:-}" == --full ]] && FULL=1
bench_deadline $(( FULL ? 5400 : 1500 ))
bench_build
CSV="$OUT/ws-vs-lp.csv"; IDLE="$OUT/ws-vs-lp-idle.csv"; rm -f "$CSV" "$IDLE"
HLOG="$BUILD/hlog-ws-vs-lp"; rm -rf "$HLOG"
POINTS=("1000 50" "1000 500" "1000 2000" "5000 50")
(( FULL )) && POINTS+=("10000 50" "18000 50")
RATES=1000,2000,5000,10000,20000,40000,80000,160000; AT=10000   # AT: the rate of the latency-by-percentile charts
IDLE_N=(1000 5000); (( FULL )) && IDLE_N=(1000 5000 10000 18000)
short && { POINTS=("200 50" "200 500"); RATES=1000,2000; AT=2000; IDLE_N=(200); }
for point in "${POINTS[@]}"; do
    read -r clients size <<< "$point"
    for transport in websocket long-polling; do   # alternated within each point
        port=$(free_port)
        start_server weft "$port"
        driver 600 ladder --server-pid="$SERVER_PID" --server=weft --transport="$transport" --urls="$(urls "$port")" \
            --clients="$clients" --rooms=100 --size="$size" --rates="$RATES" $(ladder_times) --csv="$CSV" \
            --label="${clients}c/${size}B" --hlog-dir="$HLOG" || log "ws-vs-lp $transport $clients/$size failed"
        stop_server
    done
done
for n in "${IDLE_N[@]}"; do
    for transport in websocket long-polling; do idle_memory weft "$transport" "$n" "$IDLE"; done
done
for size in $(printf '%s\n' "${POINTS[@]}" | awk '{ print $2 }' | sort -nu); do
    for y in p50_ms p99_ms; do
        chart --csv="$CSV" --out="$OUT/ws-vs-lp-${size}B-$y.png" --where="size=$size" --x=delivered_per_s --y="$y" \
            --series=transport+clients --logy=true --xlabel="delivered messages/s" --ylabel="$y (log)" \
            --title="Weft, ${size}-byte messages, 100 rooms: $y vs delivered msgs/s"
    done
done
for point in "${POINTS[@]}"; do
    read -r clients size <<< "$point"
    latency_chart --out="$OUT/ws-vs-lp-${clients}c-${size}B-latency-$AT.png" \
        --title="Weft, $clients clients, 100 rooms, ${size}-byte messages, $AT offered msgs/s: latency by percentile" \
        "$HLOG/weft-websocket-${clients}c-100r-${size}B-$AT-${clients}c_${size}B.hlog=websocket" \
        "$HLOG/weft-long-polling-${clients}c-100r-${size}B-$AT-${clients}c_${size}B.hlog=long-polling"
done
chart --csv="$IDLE" --out="$OUT/ws-vs-lp-idle-heap.png" --x=sessions --y=heap_per_session_b --series=transport \
    --title="Weft: heap per idle session after a full GC" --xlabel="idle sessions" --ylabel="bytes per session"
chart --csv="$IDLE" --out="$OUT/ws-vs-lp-idle-rss.png" --x=sessions --y=rss_per_session_b --series=transport \
    --title="Weft: RSS per idle session" --xlabel="idle sessions" --ylabel="bytes per session"
log "done: $CSV $IDLE"
