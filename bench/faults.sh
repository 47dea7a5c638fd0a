#!/usr/bin/env bash
# Faults (issue 12): what happens to a Weft server and its clients when things go wrong, measured.
#   restart  1,000 websocket clients connected; the server is killed with SIGKILL and started again on the same port:
#            how long until every client has handshaken again and receives again.
#   proxy    100 clients with the ack extension reach the server through a TCP proxy that cuts a random connection
#            every 200 ms, while a publisher sends numbered messages for 60 s (long-polling, then websocket):
#            lost, duplicated, reordered.
#   slow     500 chatting websocket clients (500-byte messages), measured for 60 s without, then three times 60 s
#            with 50 sockets that stopped reading (each subscribed to every room);
#            the server's heap after a full GC every 15 s.
#   storm    2,000 websocket clients drop their connections at once and as many handshake at once: handshake latency,
#            time until all are back, the server's refusals.
#   soak     1,000 websocket clients chatting at 5,000 deliveries/s for --minutes (30 by default): heap after a full
#            GC, delivered msgs/s and latency every minute.
# Usage: bench/faults.sh [restart|proxy|slow|storm|soak|all] [--minutes N]   (all by default)
# BENCH_SHORT=1: slow with 10 s phases, one of them with the stalled sockets, and results in bench/target/short.
# Writes docs/benchmarks/faults-results.txt (the RESULT lines), faults-slow-heap.csv, faults-soak.csv,
# faults-soak-heap.csv and faults-soak-*.png.
source "$(dirname "$0")/lib.sh"
WHAT=all; MINUTES=30
while (( $# )); do
    case "$1" in
        --minutes) MINUTES=$2; shift 2 ;;
        --minutes=*) MINUTES=${1#*=}; shift ;;
        restart|proxy|slow|storm|soak|all) WHAT=$1; shift ;;
        *) echo "usage: $0 [restart|proxy|slow|storm|soak|all] [--minutes N]" >&2; exit 2 ;;
    esac
done
bench_deadline $(( 1500 + MINUTES * 75 ))
bench_build
RESULTS="$OUT/faults-results.txt"
[[ "$WHAT" == all ]] && : > "$RESULTS"
COMMIT=$(cd "$WEFT_SRC" && git rev-parse --short HEAD)

result() { # result NAME LINE...: the RESULT lines of a run, stamped
    local name=$1; shift
    local arg line
    for arg in "$@"; do
      while IFS= read -r line; do
        [[ -n "$line" ]] || continue
        printf '%s %s commit=%s load_avg=%s %s\n' "$(date -u +%FT%TZ)" "$name" "$COMMIT" "$(load_avg)" "${line#RESULT }" \
            | tee -a "$RESULTS" >&2
      done <<< "$arg"
    done
}

# A driver that reads commands from a fifo: fifo_driver NAME LIMIT ARGS... sets DRIVER_PID, DRIVER_OUT; fd 7 writes.
fifo_driver() {
    local name=$1 limit=$2; shift 2
    DRIVER_OUT="$BUILD/faults-$name.out"
    local fifo="$BUILD/faults-$name.fifo"
    rm -f "$fifo"; mkfifo "$fifo"
    driver "$limit" "$@" < "$fifo" > "$DRIVER_OUT" 2> "$BUILD/faults-$name.err" &
    DRIVER_PID=$!
    exec 7>"$fifo"
    local i
    for i in $(seq 1 3000); do
        grep -q "^READY" "$DRIVER_OUT" 2>/dev/null && return 0
        kill -0 "$DRIVER_PID" 2>/dev/null || { cat "$BUILD/faults-$name.err" >&2; return 1; }
        sleep 0.1
    done
    return 1
}

fault_restart() {
    local port; port=$(free_port)
    start_server weft "$port"
    fifo_driver restart 400 restart --transport=websocket --urls="$(urls "$port")" --clients=1000 --rooms=10
    log "restart: $(grep ^READY "$DRIVER_OUT"); killing the server with SIGKILL"
    local pid; pid=$(server_main_pid)
    kill -KILL "$pid"
    echo killed >&7
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    start_server weft "$port"
    wait "$DRIVER_PID" || log "restart driver failed"
    exec 7>&-
    result restart "$(grep '^RESULT' "$DRIVER_OUT")"
    stop_server
}

fault_proxy() {
    local transport port out
    for transport in long-polling websocket; do
        port=$(free_port)
        WEFT_EXTENSIONS=ack start_server weft "$port"
        out=$(driver 300 proxy --transport="$transport" --urls="http://127.0.0.1:$port/cometd" --clients=100 \
            --rooms=10 --rate=200 --seconds=60 --cut-ms=200 2> "$BUILD/faults-proxy-$transport.err") \
            || log "proxy $transport failed"
        result proxy "$(grep '^RESULT' <<< "$out")"
        stop_server
    done
}

fault_slow() {
    local port csv="$OUT/faults-slow-heap.csv" start pid
    port=$(free_port)
    start_server weft "$port"
    pid=$(server_main_pid)
    echo "seconds,heap_after_gc_b,stalled" > "$csv"
    local phases=(--phase-s=60 --with-phases=3); short && phases=(--phase-s=10 --with-phases=1)
    driver 400 slow --urls="$(urls "$port")" --clients=500 --rooms=50 --stalled=50 --rate=2000 "${phases[@]}" \
        > "$BUILD/faults-slow.out" 2> "$BUILD/faults-slow.err" &
    local dpid=$! stalled=0
    start=$(date +%s)
    while kill -0 "$dpid" 2>/dev/null; do
        grep -q "^STALLED" "$BUILD/faults-slow.out" 2>/dev/null && stalled=1
        echo "$(( $(date +%s) - start )),$(heap_after_gc "$pid"),$stalled" >> "$csv"
        sleep 15
    done
    wait "$dpid" || log "slow driver failed"
    result slow "$(grep '^RESULT' "$BUILD/faults-slow.out")"
    result slow "RESULT heap_after_gc_b=$(cut -d, -f2 "$csv" | tail -n +2 | paste -sd' ')"
    stop_server
}

fault_storm() {
    local port out
    port=$(free_port)
    start_server weft "$port"
    out=$(driver 400 storm --transport=websocket --urls="$(urls "$port")" --clients=2000 --rooms=100 \
        2> "$BUILD/faults-storm.err") || log "storm failed"
    result storm "$(grep '^RESULT' <<< "$out")" \
        "RESULT server_refusals=$(curl -s "http://127.0.0.1:$port/stats" | python3 -c 'import json,sys; print(json.dumps({k: v for k, v in json.load(sys.stdin)["refusals"].items() if v}).replace(" ", ""))') server_alive=$(kill -0 "$(server_main_pid)" 2>/dev/null && echo yes || echo no)"
    stop_server
}

fault_soak() {
    local port pid csv="$OUT/faults-soak.csv" heap="$OUT/faults-soak-heap.csv" rates start
    port=$(free_port)
    start_server weft "$port"
    pid=$(server_main_pid)
    rm -f "$csv"
    echo "minute,heap_after_gc_b,server" > "$heap"
    rates=$(printf '5000,%.0s' $(seq 1 "$MINUTES")); rates=${rates%,}
    driver $(( MINUTES * 75 + 300 )) ladder --server-pid="$SERVER_PID" --server=weft --transport=lean-websocket \
        --urls="$(urls "$port")" --clients=1000 --rooms=100 --size=50 --rates="$rates" --prewarm-ms=0 \
        --warmup-ms=1000 --measure-ms=57000 --knee-p99-ms=60000 --csv="$csv" --label=soak \
        > "$BUILD/faults-soak.out" 2> "$BUILD/faults-soak.err" &
    local dpid=$! minute=0
    start=$(date +%s)
    while kill -0 "$dpid" 2>/dev/null; do
        echo "$minute,$(heap_after_gc "$pid"),weft" >> "$heap"
        minute=$(( minute + 1 ))
        while kill -0 "$dpid" 2>/dev/null && (( $(date +%s) - start < minute * 60 )); do sleep 1; done
    done
    wait "$dpid" || log "soak driver failed"
    echo "$minute,$(heap_after_gc "$pid"),weft" >> "$heap"
    stop_server
    python3 - "$heap" "$csv" "$MINUTES" <<'EOF' | while read -r line; do result soak "$line"; done
import csv, sys

def slope(points):  # least squares, bytes per minute
    mx = sum(m for m, _ in points) / len(points)
    my = sum(h for _, h in points) / len(points)
    return sum((m - mx) * (h - my) for m, h in points) / max(1e-9, sum((m - mx) ** 2 for m, _ in points))

heap = [(float(r["minute"]), float(r["heap_after_gc_b"])) for r in csv.DictReader(open(sys.argv[1])) if r["heap_after_gc_b"]]
steps = list(csv.DictReader(open(sys.argv[2])))
# the first point is taken before the clients come, the last after they left: neither is under load
loaded = heap[1:-1] or heap
settled = [p for p in loaded if p[0] >= 2] or loaded
mb = 2 ** 20
print("RESULT minutes=%s heap_before_mb=%.1f heap_loaded_first_mb=%.1f heap_loaded_last_mb=%.1f heap_loaded_max_mb=%.1f "
      "heap_after_mb=%.1f slope_loaded_kb_per_min=%.1f slope_from_min2_kb_per_min=%.1f steps=%d "
      "delivered_per_s=%s..%s p99_ms_max=%s lost_pct_max=%s" % (
          sys.argv[3], heap[0][1] / mb, loaded[0][1] / mb, loaded[-1][1] / mb, max(h for _, h in loaded) / mb,
          heap[-1][1] / mb, slope(loaded) / 1024, slope(settled) / 1024, len(steps),
          min((s["delivered_per_s"] for s in steps), key=float, default="-"),
          max((s["delivered_per_s"] for s in steps), key=float, default="-"),
          max((s["p99_ms"] for s in steps), key=float, default="-"),
          max((s["lost_pct"] for s in steps), key=float, default="-")))
EOF
    chart --csv="$heap" --out="$OUT/faults-soak-heap.png" --x=minute --y=heap_after_gc_b --series=server \
        --title="Weft soak: live heap after a full GC, each minute" --xlabel="minute" --ylabel="bytes"
    awk -F, 'NR == 1 { print "minute," $0; next } { print NR - 1 "," $0 }' "$csv" > "$BUILD/faults-soak-minutes.csv"
    chart --csv="$BUILD/faults-soak-minutes.csv" --out="$OUT/faults-soak-latency.png" --x=minute --y=p99_ms \
        --series=transport --title="Weft soak: p99 delivery latency each minute" --xlabel="minute" --ylabel="p99 ms"
}

case "$WHAT" in
    all) fault_restart; fault_proxy; fault_slow; fault_storm; fault_soak ;;
    *) "fault_$WHAT" ;;
esac
log "faults: done; results in $RESULTS"
