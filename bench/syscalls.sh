#!/usr/bin/env bash
# Issue 18: the system calls each server makes per delivered message, at one fixed rate of the chat load (1,000
# clients, 100 rooms, 50 B; 10,000 delivered msgs/s by default), both transports, servers alternated (floor, weft,
# cometd, faye): what the kernel share in cpu-profile.md is spent on. During the measured rung, `strace -c -f` counts
# every thread's system calls for a window; the calls per delivered message divide them by what the ladder counted
# delivered in its rung. strace slows every call it stops, so only the counts mean something here, not the times (and
# a server it slows past its knee delivers less than offered: the rung's delivered rate is given beside).
# Usage: bench/syscalls.sh [RATE]. SYSCALL_SERVERS (default "floor weft cometd faye") and SYSCALL_TRANSPORTS (default
# both) narrow the run. BENCH_SHORT=1: 200 clients in 20 rooms at 2,000 msgs/s.
# Writes docs/benchmarks/syscalls.md.
source "$(dirname "$0")/lib.sh"
RATE=${1:-10000}; CLIENTS=1000; ROOMS=100; WARM=10000; MEASURE=15000
short && { RATE=2000; CLIENTS=200; ROOMS=20; WARM=2000; MEASURE=8000; }
command -v strace >/dev/null || { echo "bench/syscalls.sh needs strace (apt-get install strace)" >&2; exit 1; }
bench_deadline 1800
bench_build
STARTED="$(date -u '+%Y-%m-%d %H:%M') UTC"
DIR="$BUILD/syscalls"; rm -rf "$DIR"; mkdir -p "$DIR"
CSV="$DIR/ladder.csv"
WINDOW=$(( MEASURE / 1000 - 4 ))
args=()
for transport in ${SYSCALL_TRANSPORTS:-websocket long-polling}; do
    for server in ${SYSCALL_SERVERS:-floor weft cometd faye}; do
        port=$(free_port)
        base="$DIR/$server-$transport"
        start_server "$server" "$port"
        driver 600 ladder --server-pid="$SERVER_PID" --server="$server" --transport="lean-$transport" \
            --urls="$(urls "$port")" --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATE" \
            --prewarm-ms="$WARM" --warmup-ms=3000 --measure-ms="$MEASURE" --knee-p99-ms=60000 --csv="$CSV" \
            --label="$server-$transport" > "$base.out" 2>&1 &
        ladder=$!
        await_measured_rung "$base.out" "$ladder" # the window lies inside the measured rung
        pid=$(server_main_pid)
        timeout -s INT "$WINDOW" strace -c -f -qq -o "$base.strace" -p "$(ls /proc/"$pid"/task | paste -sd,)" \
            >/dev/null 2>&1 || true
        wait "$ladder" || log "syscalls $server $transport failed"
        cat "$base.out" >&2
        stop_server
        args+=("$base.strace=$server $transport")
    done
done
{
    echo "# The system calls each server makes per delivered message"
    echo
    echo "\`bench/syscalls.sh $RATE\`, $CLIENTS clients in $ROOMS rooms, 50 B, lean clients, from $STARTED, Weft at" \
        "\`$(git -C "$ROOT" rev-parse --short HEAD)\`. Each server pinned to one core, the load to the other;" \
        "\`strace -c -f\` on every server thread for ${WINDOW} s inside the ${MEASURE} ms measured rung."
    echo
    python3 "$BENCH_DIR/syscalls-summary.py" "$CSV" "$WINDOW" "${args[@]}"
} > "$OUT/syscalls.md"
cat "$OUT/syscalls.md"
log "done: $OUT/syscalls.md"
