#!/usr/bin/env bash
# Experiment 3, server-side emitters (after the Tomcat vs Node.js study, 2011), on Weft: the server publishes to every
# client every 1, 5, 10 and 30 s; per point the emit duration (from the server's publish to the last client reached),
# responses/s while an emit spreads, server CPU % (of one core) and memory, per transport.
# Default: 1k and 5k clients, 2 emits per period (about 13 minutes). --full: 1k, 5k, 10k and 18k clients.
# BENCH_SHORT=1: 200 clients, periods of 1 and 2 s (about 1 minute; see lib.sh).
# Writes docs/benchmarks/emitters.csv and emitters-*.png.
source "$(dirname "$0")/lib.sh"
CLIENTS=(1000 5000); [[ "${1:-}" == --full ]] && CLIENTS=(1000 5000 10000 18000)
PERIODS=1,5,10,30
short && { CLIENTS=(200); PERIODS=1,2; }
bench_deadline $(( ${#CLIENTS[@]} * 2 * 300 + 300 ))
bench_build
CSV="$OUT/emitters.csv"; rm -f "$CSV"
for clients in "${CLIENTS[@]}"; do
    for transport in websocket long-polling; do
        port=$(free_port)
        start_server weft "$port"
        driver 400 emit --transport="$transport" --urls="$(urls "$port")" --clients="$clients" --periods-s="$PERIODS" \
            --emits=2 --csv="$CSV" || log "emit $transport $clients failed"
        stop_server
    done
done
for y in emit_avg_ms server_cpu_pct responses_per_s server_heap_mb; do
    chart --csv="$CSV" --out="$OUT/emitters-$y.png" --x=period_s --y="$y" --series=transport+clients --logx=true \
        --title="Weft, server-side emitter: $y vs emit period" --xlabel="emit period (s, log)" --ylabel="$y"
done
log "done: $CSV"
