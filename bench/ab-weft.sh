#!/usr/bin/env bash
# A/B of a change to Weft, alternated within one run: the Weft server with classes A, then B, then A, then B, ...
# (each a classpath entry put before the installed Weft jars; "" = the installed jars), on the chat load of
# experiment 5 (1,000 clients, 100 rooms, 50 B) over the given transport, up to the knee.
#   bench/ab-weft.sh TRANSPORT ROUNDS A_CLASSES B_CLASSES
# e.g. bench/ab-weft.sh long-polling 2 "" /path/to/server-core/target/classes
# Writes docs/benchmarks/ab-weft.csv (label a-roundN / b-roundN). WEFT_ARGS="--engine=netty" A/Bs the Netty mount;
# AB_RATES, AB_PREWARM_MS and AB_MEASURE_MS set the ladder's rates, its pre-warm and each rung's measured time.
# AB_A_ARGS and AB_B_ARGS add load-server arguments to one variant each (e.g. AB_B_ARGS="--option=history=/chat/**"
# A/Bs channel history, with "" "" as the classes); AB_NAME names the CSV instead of ab-weft.
source "$(dirname "$0")/lib.sh"
TRANSPORT=${1:-long-polling}; ROUNDS=${2:-2}; A=${3:-}; B=${4:-}
bench_deadline $(( ROUNDS * 2 * 240 + 120 ))
times=$(ladder_times) # AB_PREWARM_MS lengthens the pre-warm rung, as floor.sh's FLOOR_PREWARM_MS does
[[ -n "${AB_PREWARM_MS:-}" ]] && times=$(sed "s/--prewarm-ms=[0-9]*/--prewarm-ms=$AB_PREWARM_MS/" <<< "$times")
[[ -n "${AB_MEASURE_MS:-}" ]] && times=$(sed "s/--measure-ms=[0-9]*/--measure-ms=$AB_MEASURE_MS/" <<< "$times")
bench_build
CSV="$OUT/${AB_NAME:-ab-weft}.csv"; rm -f "$CSV"
for round in $(seq 1 "$ROUNDS"); do
    for variant in a b; do
        classes=$A; [[ $variant == b ]] && classes=$B
        args=${AB_A_ARGS:-}; [[ $variant == b ]] && args=${AB_B_ARGS:-}
        port=$(free_port)
        WEFT_CP_PREPEND="$classes" WEFT_ARGS="${WEFT_ARGS:-} $args" start_server weft "$port"
        driver 600 ladder --server-pid="$SERVER_PID" --server=weft --transport="$TRANSPORT" --urls="$(urls "$port")" \
            --clients=1000 --rooms=100 --size=50 --rates="${AB_RATES:-2500,5000,10000,20000,40000,80000,160000}" \
            $times --csv="$CSV" --label="$variant-round$round" || log "ab $variant failed"
        stop_server
    done
done
log "done: $CSV"
