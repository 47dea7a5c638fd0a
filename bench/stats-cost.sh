#!/usr/bin/env bash
# What getStats()' counters cost per delivered message (issue 16): server-core's StatsCostBenchmark (JMH, both cores
# at once) times the work the counters add to a publish and to a frame written; docs/benchmarks/metrics-overhead.md
# divides it by a delivered message's whole server CPU cost from the load runs.
#   bench/stats-cost.sh            # ~1 minute; prints JMH's table and writes docs/benchmarks/stats-cost.txt
source "$(dirname "$0")/lib.sh"
bench_deadline 600
mvn -q -o -f "$ROOT/pom.xml" -pl server-core -am install -DskipTests >/dev/null \
    || mvn -q -f "$ROOT/pom.xml" -pl server-core -am install -DskipTests
CP_FILE="$BUILD/server-core-test-classpath.txt"
mvn -q -f "$ROOT/server-core/pom.xml" dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$CP_FILE" >/dev/null
CP="$ROOT/server-core/target/test-classes:$ROOT/server-core/target/classes:$(cat "$CP_FILE")"
log "StatsCostBenchmark at load average $(load_avg)"
java -cp "$CP" org.openjdk.jmh.Main io.weft.server.bench.StatsCostBenchmark -rf text \
    -rff "$OUT/stats-cost.txt" | tee "$BUILD/stats-cost.log"
log "load average after: $(load_avg); table in $OUT/stats-cost.txt"
