#!/usr/bin/env bash
# A/B of this tree against an earlier commit, alternated within one run: the Weft load server built from commit A
# (in a worktree of its own, with a Maven repository of its own so that its snapshots do not replace this tree's),
# then this tree's, then A's, ... on the chat load of experiment 5 (1,000 clients, 100 rooms, 50 B) over the given
# transport. The load is this tree's for both. Unlike ab-weft.sh, A may differ in any way: another API, other modules,
# other dependencies. A commit from before the load server ran the benchmarks runs as its bench/driver BenchServer.
#   bench/ab-commits.sh TRANSPORT ROUNDS A_COMMIT [NAME]
# e.g. bench/ab-commits.sh websocket 3 76a01b4 websocket-jakarta
# Writes docs/benchmarks/ab-NAME.csv (label a-roundN = A_COMMIT, b-roundN = this tree). AB_RATES overrides the rates.
source "$(dirname "$0")/lib.sh"
TRANSPORT=${1:?transport}; ROUNDS=${2:-3}; A_COMMIT=${3:?commit}; NAME=${4:-commits}
bench_deadline $(( ROUNDS * 2 * 300 + 600 ))
A_TREE="$BUILD/ab-a-tree"; A_M2="$BUILD/ab-a-m2"
rm -rf "$A_TREE"; git -C "$ROOT" worktree prune
git -C "$ROOT" worktree add --detach "$A_TREE" "$A_COMMIT" >/dev/null
trap 'kill $WATCHDOG 2>/dev/null || true; git -C "$ROOT" worktree remove --force "$A_TREE" >/dev/null 2>&1 || true; cleanup' EXIT
# A's repository: the third-party artifacts of the default one (hard links, no copies), none of Weft's snapshots.
M2_DEFAULT="${BENCH_M2:-$HOME/.m2/repository}"
rm -rf "$A_M2"; cp -al "$M2_DEFAULT" "$A_M2"; rm -rf "$A_M2/io/weft"
log "building A ($A_COMMIT) into $A_TREE"
(BENCH_M2="$A_M2" BENCH_SKIP_BUILD=0 bash -c "source '$A_TREE/bench/lib.sh'; bench_build")
bench_build
A_CP=""; A_LEGACY_CP=""
if [[ -f "$A_TREE/bench/driver/src/main/java/io/weft/bench/BenchServer.java" ]]; then
    A_LEGACY_CP="$A_TREE/bench/driver/target/classes:$(cat "$A_TREE/bench/driver/target/classpath.txt")"
else
    A_CP="$A_TREE/bench/target/load-client/classes:$(cat "$A_TREE/bench/target/load-client/classpath.txt")"
fi
CSV="$OUT/ab-$NAME.csv"; rm -f "$CSV"
for round in $(seq 1 "$ROUNDS"); do
    for variant in a b; do
        classes=""; legacy=""; [[ $variant == a ]] && { classes=$A_CP; legacy=$A_LEGACY_CP; }
        port=$(free_port)
        WEFT_CP_PREPEND="$classes" WEFT_BENCH_SERVER_CP="$legacy" start_server weft "$port"
        driver 300 ladder --server-pid="$SERVER_PID" --server=weft --transport="$TRANSPORT" --urls="$(urls "$port")" \
            --clients=1000 --rooms=100 --size=50 --rates="${AB_RATES:-10000,20000,40000,80000}" $(ladder_times) \
            --csv="$CSV" --label="$variant-round$round" || log "ab $variant failed"
        stop_server
    done
done
log "done: $CSV"
