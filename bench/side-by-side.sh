#!/usr/bin/env bash
# Experiment 5, Weft side by side with CometD 9.0.0 (Jetty 12.1.10) and Faye 1.4.3 (Node.js), same load client, same
# machine, servers alternated within the run (weft, cometd, faye, weft, cometd, faye): the chat load of experiments 1
# and 2 (1,000 clients, 100 rooms, 50-byte messages, rates up to each server's knee, both transports), and idle memory
# per session (2,000 idle sessions per transport). Then the table of ratios Weft/peer.
# Default: 2 rounds (about 25 minutes). --full: 3 rounds and 5,000 idle sessions. BENCH_SHORT=1: 1 round, 200 clients
# in 20 rooms, two rates, short rungs, 200 idle sessions (about 4 minutes; see lib.sh).
# Websocket chat load runs on the load tool's lean transport (raw sockets, no per-message objects: it costs a fraction
# of what the servers do, so the ladder finds the server's knee, not the client's); BENCH_WS_CLIENT=library runs it on
# io.weft.client instead, as long-polling always does.
# Writes docs/benchmarks/side-by-side.csv, side-by-side-idle.csv, side-by-side-ratios.md and side-by-side-*.png: p99
# against delivered msgs/s, and latency by percentile at 20,000 and 40,000 offered msgs/s, every server and round
# overlaid (from the histograms each step leaves in bench/target/hlog-side-by-side).
# SBS_SERVERS chooses the servers (default "weft cometd faye"; weft-netty is Weft on its Netty engine, and each Weft in
# the list gets its own ratios), SBS_TRANSPORTS the transports (default "websocket long-polling"), SBS_NAME the name
# of what it writes instead of side-by-side (so that a partial run does not replace the full one's pages).
source "$(dirname "$0")/lib.sh"
ROUNDS=2; IDLE_N=2000; [[ "${1:-}" == --full ]] && { ROUNDS=3; IDLE_N=5000; }
SERVERS=(${SBS_SERVERS:-weft cometd faye}); TRANSPORTS=(${SBS_TRANSPORTS:-websocket long-polling})
CLIENTS=1000; ROOMS=100; RATES=2500,5000,10000,20000,40000,60000,80000,120000,160000; AT=(20000 40000)
short && { ROUNDS=1; IDLE_N=200; CLIENTS=200; ROOMS=20; RATES=2500,5000; AT=(5000); }
bench_deadline $(( ROUNDS * ${#SERVERS[@]} * ${#TRANSPORTS[@]} * 250 + 600 ))
bench_build
NAME=${SBS_NAME:-side-by-side}
CSV="$OUT/$NAME.csv"; IDLE="$OUT/$NAME-idle.csv"; rm -f "$CSV" "$IDLE"
HLOG="$BUILD/hlog-$NAME"; rm -rf "$HLOG"
for round in $(seq 1 "$ROUNDS"); do
    for transport in "${TRANSPORTS[@]}"; do
        for server in "${SERVERS[@]}"; do
            port=$(free_port)
            start_server "$server" "$port"
            clients=$transport; [[ $transport == websocket && ${BENCH_WS_CLIENT:-lean} == lean ]] && clients=lean-websocket
            driver 600 ladder --server-pid="$SERVER_PID" --server="$server" --transport="$clients" \
                --urls="$(urls "$port")" --clients="$CLIENTS" --rooms="$ROOMS" --size=50 --rates="$RATES" \
                $(ladder_times) --csv="$CSV" --label="round$round" --hlog-dir="$HLOG" || log "chat $server $transport failed"
            stop_server
        done
    done
    for transport in "${TRANSPORTS[@]}"; do
        for server in "${SERVERS[@]}"; do idle_memory "$server" "$transport" "$IDLE_N" "$IDLE"; done
    done
done
python3 "$BENCH_DIR/ratios.py" "$CSV" "$IDLE" > "$OUT/$NAME-ratios.md"
cat "$OUT/$NAME-ratios.md"
for transport in "${TRANSPORTS[@]}"; do
    chart --csv="$CSV" --out="$OUT/$NAME-$transport-p99.png" --where="transport=$transport" \
        --x=delivered_per_s --y=p99_ms --series=server+label --logy=true --xlabel="delivered messages/s" \
        --ylabel="p99 latency (ms, log)" \
        --title="$CLIENTS clients, $ROOMS rooms, 50 B over $transport: p99 vs delivered msgs/s"
    for rate in "${AT[@]}"; do
        runs=()
        for round in $(seq 1 "$ROUNDS"); do
            for server in "${SERVERS[@]}"; do
                runs+=("$HLOG/$server-$transport-${CLIENTS}c-${ROOMS}r-50B-$rate-round$round.hlog=$server round$round")
            done
        done
        latency_chart --out="$OUT/$NAME-$transport-latency-$rate.png" \
            --title="$CLIENTS clients, $ROOMS rooms, 50 B over $transport, $rate offered msgs/s: latency by percentile" \
            "${runs[@]}"
    done
done
log "done: $CSV $IDLE"
