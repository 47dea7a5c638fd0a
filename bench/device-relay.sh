#!/usr/bin/env bash
# Experiment 4, device relay (after the Cometa edge server, 2015), on Weft over websocket: N mostly idle devices,
# 20 requesters sending 1,000 requests/s in all to random devices through the server, each device answering; round
# trip avg/min/max/stddev/p99 as N grows, seen by the requesters and by the server (the load server's report of the
# measured window, saved as device-relay-stats-N.json).
# Default: 1k, 5k, 10k devices (about 4 minutes). --devices=N,M,...: those sizes, rows appended. --full: up to 19,500
# (this machine's 20,000 open-file limit per process bounds it; see docs/benchmarks/README.md).
# BENCH_SHORT=1: 200 and 1,000 devices, 2 s warm-up, 4 s measured (about 1 minute; see lib.sh).
# Writes docs/benchmarks/device-relay.csv, device-relay.png and device-relay-p99.png.
source "$(dirname "$0")/lib.sh"
DEVICES=(1000 5000 10000); [[ "${1:-}" == --full ]] && DEVICES=(1000 5000 10000 15000 19500)
KEEP=0; [[ "${1:-}" == --devices=* ]] && { IFS=, read -ra DEVICES <<< "${1#--devices=}"; KEEP=1; }  # appends rows
TIMES=(--warmup-ms=6000 --measure-ms=15000)
short && { DEVICES=(200 1000); TIMES=(--warmup-ms=2000 --measure-ms=4000); }
bench_deadline $(( ${#DEVICES[@]} * 360 + 300 ))
bench_build
CSV="$OUT/device-relay.csv"; (( KEEP )) || rm -f "$CSV"
for devices in "${DEVICES[@]}"; do
    port=$(free_port)
    start_server weft "$port"
    driver 420 relay --urls="$(urls "$port")" --devices="$devices" --requesters=20 --rate=1000 "${TIMES[@]}" \
        --csv="$CSV" --server-report="$OUT/device-relay-stats-$devices.json" || log "relay $devices failed"
    stop_server
done
chart --csv="$CSV" --out="$OUT/device-relay.png" --x=devices --y=avg_ms --series=server \
    --title="Device relay on Weft (websocket), 1,000 req/s: average round trip vs connected devices" \
    --xlabel="connected devices" --ylabel="average round trip (ms)"
chart --csv="$CSV" --out="$OUT/device-relay-p99.png" --x=devices --y=p99_ms --series=server \
    --title="Device relay on Weft (websocket), 1,000 req/s: p99 round trip vs connected devices" \
    --xlabel="connected devices" --ylabel="p99 round trip (ms)"
log "done: $CSV"
