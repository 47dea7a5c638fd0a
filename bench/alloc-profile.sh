#!/usr/bin/env bash
# Issue 18: what each delivered message allocates, server by server (JVM servers: floor, weft, cometd), from a JFR
# recording of the server during one fixed-rate rung of the chat load (1,000 clients, 100 rooms, 50 B, 10,000
# delivered msgs/s by default), both transports. Allocation is counted in bytes, not timed, so it holds on a busy
# machine where CPU figures do not. The recording (bench/alloc-profile.jfc) has an event per TLAB started and per
# allocation outside one, whose sizes add up to everything allocated.
# Usage: bench/alloc-profile.sh [RATE]. BENCH_SHORT=1: 200 clients in 20 rooms at 2,000 msgs/s, short rungs.
# An A/B of a change in bytes: WEFT_VARIANTS="before=CLASSES after=" runs Weft once per variant (CLASSES put before
# the installed jars, as ab-weft.sh does; empty: the installed jars), ALLOC_ROUNDS times alternated, labelled
# weft-<variant>; ALLOC_SERVERS (default "floor weft cometd") and ALLOC_TRANSPORTS (default both) narrow the run;
# ALLOC_OUT names the page it writes [alloc-profile.md].
# Writes docs/benchmarks/alloc-profile.md (alloc-summary.py: bytes per delivered message, and the allocation sites
# that make up most of it, by type and call chain).
source "$(dirname "$0")/lib.sh"
RATE=${1:-10000}; CLIENTS=1000; ROOMS=100; WARM=10000; MEASURE=25000
short && { RATE=2000; CLIENTS=200; ROOMS=20; WARM=2000; MEASURE=9000; }
bench_deadline 1800
bench_build
STARTED="$(date -u '+%Y-%m-%d %H:%M') UTC"; LOAD_BEFORE=$(load_avg)
JFRS="$BUILD/alloc-profile"; rm -rf "$JFRS"; mkdir -p "$JFRS"
CSV="$JFRS/ladder.csv"
args=()
runs=()
for server in ${ALLOC_SERVERS:-floor weft cometd}; do
    if [[ $server == weft && -n "${WEFT_VARIANTS:-}" ]]; then
        for variant in $WEFT_VARIANTS; do runs+=("weft-${variant%%=*}=${variant#*=}"); done
    else
        runs+=("$server=")
    fi
done
for round in $(seq 1 "${ALLOC_ROUNDS:-1}"); do
for transport in ${ALLOC_TRANSPORTS:-websocket long-polling}; do
    for run in "${runs[@]}"; do
        name=${run%%=*}
        server=$(server_of "$name")
        port=$(free_port)
        jfr="$JFRS/$name-$transport-$round.jfr"; out="$JFRS/$name-$transport-$round.out"
        WEFT_CP_PREPEND="${run#*=}" start_server "$server" "$port"
        clients=$transport; [[ $transport == websocket ]] && clients=lean-websocket
        driver 600 ladder --server-pid="$SERVER_PID" --server="$name" --transport="$clients" --urls="$(urls "$port")" \
            --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATE" --prewarm-ms="$WARM" --warmup-ms=3000 \
            --measure-ms="$MEASURE" --knee-p99-ms=60000 --csv="$CSV" --label="round$round" > "$out" 2>&1 &
        ladder=$!
        # The recording covers the measured window: it starts once the pre-warm rung and the warm-up are over.
        for _ in $(seq 1 600); do grep -q '^prewarm:' "$out" && break; kill -0 "$ladder" 2>/dev/null || break; sleep 0.5; done
        sleep 3.5
        jcmd "$(server_main_pid)" JFR.start name=alloc settings="$BENCH_DIR/alloc-profile.jfc" filename="$jfr" \
            duration="$(( MEASURE / 1000 - 5 ))s" >/dev/null || log "no recording of $name $transport"
        wait "$ladder" || log "alloc $name $transport failed"
        cat "$out" >&2
        stop_server
        args+=("$jfr=$name $transport round$round")
    done
done
done
{
    echo "# What each delivered message allocates"
    echo
    echo "\`bench/alloc-profile.sh $RATE\`${WEFT_VARIANTS:+ (Weft variants: $WEFT_VARIANTS, ${ALLOC_ROUNDS:-1} rounds alternated)}, $CLIENTS clients in $ROOMS rooms, 50 B, from $STARTED, Weft at" \
        "\`$(git -C "$ROOT" rev-parse --short HEAD)\`; load average $LOAD_BEFORE before, $(load_avg) after. The" \
        "total is every byte allocated (JFR's TLAB events); a site's share is an estimate: each TLAB is charged to" \
        "the allocation that started it. A server that delivered less than the offered rate was past its" \
        "knee there, and its bytes per message are inflated by what it spent on falling behind."
    echo
    python3 "$BENCH_DIR/alloc-summary.py" "$CSV" "${args[@]}"
} > "$OUT/${ALLOC_OUT:-alloc-profile.md}"
cat "$OUT/${ALLOC_OUT:-alloc-profile.md}"
log "done: $OUT/${ALLOC_OUT:-alloc-profile.md}"
