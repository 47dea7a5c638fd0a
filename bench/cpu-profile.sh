#!/usr/bin/env bash
# Issue 18: where each server's CPU per delivered message goes, at one fixed rate of the chat load (1,000 clients, 100
# rooms, 50 B; 40,000 delivered msgs/s by default), both transports, servers alternated (floor, weft, cometd, faye).
# During the measured window: every server thread's user and kernel time from /proc (before and after), so the cost
# splits into kernel, GC threads, JIT compiler threads, other JVM threads and the application's threads; and, for the
# JVM servers, a JFR recording of execution samples (bench/cpu-profile.jfc: Java threads running Java code, every
# 10 ms), by which the application threads' user time splits by whose code ran (Weft, Jetty, CometD, Jackson, the
# JDK on their behalf...). Faye (node) gets the /proc split only.
# Usage: bench/cpu-profile.sh [RATE]. BENCH_SHORT=1: 200 clients in 20 rooms at 2,000 msgs/s, short rungs.
# WEFT_VARIANTS="before=CLASSES after=" profiles Weft once per variant, as alloc-profile.sh does; CPU_SERVERS (default
# "floor weft cometd faye"), CPU_TRANSPORTS (default both) and CPU_ROUNDS (default 1) narrow or widen the run;
# CPU_OUT names the page it writes [cpu-profile.md].
# Writes docs/benchmarks/cpu-profile.md (cpu-summary.py).
source "$(dirname "$0")/lib.sh"
RATE=${1:-40000}; CLIENTS=1000; ROOMS=100; WARM=10000; MEASURE=25000
short && { RATE=2000; CLIENTS=200; ROOMS=20; WARM=2000; MEASURE=9000; }
bench_deadline 2400
bench_build
STARTED="$(date -u '+%Y-%m-%d %H:%M') UTC"; LOAD_BEFORE=$(load_avg)
DIR="$BUILD/cpu-profile"; rm -rf "$DIR"; mkdir -p "$DIR"
CSV="$DIR/ladder.csv"
WINDOW=$(( MEASURE / 1000 - 5 ))
args=()
runs=()
for server in ${CPU_SERVERS:-floor weft cometd faye}; do
    if [[ $server == weft && -n "${WEFT_VARIANTS:-}" ]]; then
        for variant in $WEFT_VARIANTS; do runs+=("weft-${variant%%=*}=${variant#*=}"); done
    else
        runs+=("$server=")
    fi
done
for round in $(seq 1 "${CPU_ROUNDS:-1}"); do
for transport in ${CPU_TRANSPORTS:-websocket long-polling}; do
    for run in "${runs[@]}"; do
        name=${run%%=*}
        server=$(server_of "$name")
        port=$(free_port)
        base="$DIR/$name-$transport-$round"
        # JFR starts with the JVM: started in the middle of the load instead, its own start-up (class loading and
        # compiling on the server's one core) put Weft and CometD so far behind at 40,000 msgs/s that they never caught
        # up. The window's recording is a second one, cheap to start.
        WEFT_CP_PREPEND="${run#*=}" SERVER_JVM_OPTS="${SERVER_JVM_OPTS:-} -XX:StartFlightRecording=settings=$BENCH_DIR/cpu-profile.jfc,name=warm" \
            start_server "$server" "$port"
        clients=lean-$transport
        driver 600 ladder --server-pid="$SERVER_PID" --server="$name" --transport="$clients" --urls="$(urls "$port")" \
            --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATE" --prewarm-ms="$WARM" --warmup-ms=3000 \
            --measure-ms="$MEASURE" --knee-p99-ms=60000 --csv="$CSV" --label="round$round" > "$base.out" 2>&1 &
        ladder=$!
        await_measured_rung "$base.out" "$ladder" # the window lies inside the measured rung
        pid=$(server_main_pid)
        if [[ $server != faye ]]; then
            jcmd "$pid" JFR.start name=cpu settings="$BENCH_DIR/cpu-profile.jfc" filename="$base.jfr" \
                duration="$(( WINDOW + 1 ))s" >/dev/null || log "no recording of $name $transport"
        fi
        python3 "$BENCH_DIR/cpu-summary.py" snapshot "$pid" > "$base.before"
        sleep "$WINDOW"
        python3 "$BENCH_DIR/cpu-summary.py" snapshot "$pid" > "$base.after"
        wait "$ladder" || log "cpu-profile $name $transport failed"
        cat "$base.out" >&2
        stop_server
        args+=("$base=$name $transport round$round")
    done
done
done
{
    echo "# Where each server's CPU per delivered message goes"
    echo
    echo "\`${CPU_SERVERS:+CPU_SERVERS=\"$CPU_SERVERS\" }${CPU_TRANSPORTS:+CPU_TRANSPORTS=$CPU_TRANSPORTS }bench/cpu-profile.sh $RATE\`${WEFT_VARIANTS:+ (Weft variants: $WEFT_VARIANTS)}, ${CPU_ROUNDS:-1} round(s)," \
        "$CLIENTS clients in $ROOMS rooms, 50 B, from $STARTED, Weft at \`$(git -C "$ROOT" rev-parse --short HEAD)\`;" \
        "load average $LOAD_BEFORE before, $(load_avg) after. Each server pinned to one core, the load to the other."
    echo
    python3 "$BENCH_DIR/cpu-summary.py" report "$CSV" "${args[@]}"
} > "$OUT/${CPU_OUT:-cpu-profile.md}"
cat "$OUT/${CPU_OUT:-cpu-profile.md}"
log "done: $OUT/${CPU_OUT:-cpu-profile.md}"
