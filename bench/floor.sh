#!/usr/bin/env bash
# Issue 18, the floor: what this machine charges for the chat load with no server logic at all (io.weft.load.floor.
# FloorServer: plain NIO, one selector thread per core, canned Bayeux replies, each publish written to its room as the
# same bytes), beside Weft, CometD 9 and Faye under the same load: side-by-side.sh's chat load (1,000 clients, 100
# rooms, 50-byte messages, the ladder up to each server's knee), both transports, servers alternated within each
# round (floor, weft, cometd, faye), the server pinned to one core and the client to the other as everywhere here.
# Default: 5 rounds (about 55 minutes). BENCH_SHORT=1: 1 round, 200 clients in 20 rooms, two rates (about 3 minutes).
# FLOOR_TRANSPORTS="long-polling" (or "websocket") runs one transport and replaces only its rows in floor.csv (each
# transport's servers are compared with each other, alternated within its own run). FLOOR_PREWARM_MS (default 10000)
# lengthens the pre-warm rung at the first rate, so that the JVM servers' JIT compiler is done before it is measured.
# FLOOR_SERVERS (default "floor weft weft-netty cometd faye", weft-netty being the load server on transport-netty),
# FLOOR_RATES (the ladder's rates) and FLOOR_ROUNDS (default 5) narrow a run; FLOOR_NAME (default floor) names its
# CSV, page and charts, so that a narrower run does not replace the full one's.
# Writes docs/benchmarks/floor.csv and floor.md (floor-summary.py: per transport and fixed rate, each server's CPU
# per delivered message as the median of the rounds with their range, and its ratio to the floor's; saturation and
# p99 likewise).
source "$(dirname "$0")/lib.sh"
ROUNDS=${FLOOR_ROUNDS:-5}; CLIENTS=1000; ROOMS=100; RATES=${FLOOR_RATES:-10000,20000,40000,60000,80000,120000,160000,200000,240000}
short && { ROUNDS=1; CLIENTS=200; ROOMS=20; RATES=2500,5000; }
SERVERS=(${FLOOR_SERVERS:-floor weft weft-netty cometd faye}) # FLOOR_SERVERS="floor weft weft-netty": fewer
bench_deadline $(( ROUNDS * 900 + 600 ))
bench_build
STARTED="$(date -u '+%Y-%m-%d %H:%M') UTC"
NAME=${FLOOR_NAME:-floor}
CSV="$OUT/$NAME.csv"
TRANSPORTS=${FLOOR_TRANSPORTS:-websocket long-polling}
if [[ -n "${FLOOR_TRANSPORTS:-}" && -f "$CSV" ]]; then
    kept=$(mktemp)
    awk -F, -v drop=" $TRANSPORTS " 'NR == 1 || index(drop, " " $2 " ") == 0' "$CSV" > "$kept" && mv "$kept" "$CSV"
else
    rm -f "$CSV"
fi
times=$(ladder_times)
[[ -n "${FLOOR_PREWARM_MS:-}" ]] && times=$(sed "s/--prewarm-ms=[0-9]*/--prewarm-ms=$FLOOR_PREWARM_MS/" <<< "$times")
for round in $(seq 1 "$ROUNDS"); do
    for transport in $TRANSPORTS; do
        for server in "${SERVERS[@]}"; do
            port=$(free_port)
            start_server "$server" "$port"
            clients=lean-$transport
            driver 600 ladder --server-pid="$SERVER_PID" --server="$server" --transport="$clients" \
                --urls="$(urls "$port")" --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATES" \
                $times --csv="$CSV" --label="round$round" || log "floor run: $server $transport failed"
            stop_server
        done
    done
done
# The page: a header for this run, the tables, and the previous page's "## Reading it" section (hand-written) kept.
reading=$( [[ -f "$OUT/$NAME.md" ]] && sed -n '/^## Reading it/,$p' "$OUT/$NAME.md" || true)
{
    echo "# The floor: Weft, CometD 9 and Faye against what the machine charges"
    echo
    echo "\`${FLOOR_TRANSPORTS:+FLOOR_TRANSPORTS=$FLOOR_TRANSPORTS }${FLOOR_PREWARM_MS:+FLOOR_PREWARM_MS=$FLOOR_PREWARM_MS }bench/floor.sh\`" \
        "($ROUNDS rounds), from $STARTED, Weft at \`$(git -C "$ROOT" rev-parse --short HEAD)\`${FLOOR_TRANSPORTS:+ (the rows of the other transport kept from an earlier run)}." \
        "$CLIENTS clients in $ROOMS rooms, 50-byte messages, the lean clients; server pinned to one core, load to the other."
    echo
    python3 "$BENCH_DIR/floor-summary.py" "$CSV"
    if [[ -n "$reading" ]]; then echo; echo "$reading"; fi # (a bare && would fail the block without a previous page)
} > "$OUT/$NAME.md.new" && mv "$OUT/$NAME.md.new" "$OUT/$NAME.md"
cat "$OUT/$NAME.md"
for transport in websocket long-polling; do
    chart --csv="$CSV" --out="$OUT/$NAME-$transport-cpu.png" --where="transport=$transport" \
        --x=offered_per_s --y=server_cpu_us_per_msg --series=server+label --xlabel="offered messages/s" \
        --ylabel="server CPU per delivered message (µs)" \
        --title="$CLIENTS clients, $ROOMS rooms, 50 B over $transport: server CPU per message, floor and servers"
done
log "done: $CSV"
