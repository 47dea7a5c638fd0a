#!/usr/bin/env bash
# Issue 17's study, after the Comet study (Tomcat 6/7 vs Node.js) that set long-polling against HTTP streaming: on
# Weft, long-polling vs eventsource (Server-Sent Events: one held response carries many messages) vs websocket.
# The seed experiment's shape: N clients subscribed to one channel, a server-side emitter publishing to all of them at
# rising rates (emit periods 1, 0.2, 0.1 and 0.05 s: 1 to 20 emits/s). Per point: delivered messages/s, each
# delivery's latency from the emitter's publish (p50, p99) and the server's CPU per delivered message.
# Default: 500 clients, 20 emits per period (about 4 minutes). CLIENTS=N to change it. BENCH_SHORT=1: 100 clients,
# periods 1 and 0.2 s, 5 emits (about 1 minute).
# Builds the checkout as it is, in place (package, nothing installed into the local Maven repository), and writes
# docs/benchmarks/streaming.csv and streaming-*.png.
source "$(dirname "$0")/lib.sh"
CLIENTS="${CLIENTS:-500}"; PERIODS=1,0.2,0.1,0.05; EMITS=20
short && { CLIENTS=100; PERIODS=1,0.2; EMITS=5; }
bench_deadline 1200

log "building the bench module and the modules it needs from the checkout (tests skipped, nothing installed)"
# One reactor: each module's runtime classpath (load-client's with logback, -Pclient; none with load-client itself,
# whose classes come from the copy) names its sibling modules' jars in $ROOT/*/target.
(cd "$ROOT" && mvn -q ${MVN_OFFLINE:+-o} "${MVN_REPO[@]}" -Pclient package dependency:build-classpath -DskipTests \
    -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dmdep.outputFile=target/runtime-classpath.txt \
    -DincludeScope=runtime -DexcludeArtifactIds=load-client -pl bench -am)
# Where lib.sh's load_cp and harness_cp look: a copy of the classes (a build in the checkout must not pull them from
# under a JVM) and the classpaths.
keep_classes "$ROOT"
cp "$ROOT/load-client/target/runtime-classpath.txt" "$BUILD/load-client/classpath.txt"
mv "$ROOT/bench/target/runtime-classpath.txt" "$BUILD/harness/classpath.txt"

CSV="$OUT/streaming.csv"; rm -f "$CSV"
for transport in websocket eventsource long-polling; do
    port=$(free_port)
    start_server weft "$port"
    driver 600 emit --transport="$transport" --urls="$(urls "$port")" --clients="$CLIENTS" --periods-s="$PERIODS" \
        --emits="$EMITS" --csv="$CSV" || log "emit $transport $CLIENTS failed"
    stop_server
done
for y in delivered_per_s p50_ms p99_ms server_cpu_us_per_msg; do
    chart --csv="$CSV" --out="$OUT/streaming-$y.png" --x=period_s --y="$y" --series=transport --logx=true \
        --title="Weft, $CLIENTS clients, server-side emitter: $y vs emit period" \
        --xlabel="emit period (s, log; 0.05 = 20 emits/s)" --ylabel="$y"
done
log "done: $CSV ($(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ', uncommitted changes'))"
