#!/usr/bin/env bash
# Issue 27's failover runs: what subscribers lose when a Weft node dies or is restarted, without recovery and with it.
# Each run (Bench loss: LossRun) starts its own redis-server, two Weft load servers behind HAProxy on the documented
# cluster-redis/haproxy.cfg (ports changed) and a third node in the same cluster for the publisher, which no fault
# touches; SUBSCRIBERS JavaScript clients in Node subscribe through HAProxy, subscriber i to /loss/(i % 20): with
# CLIENTS=mixed (default) half of them the official CometD client (npm cometd 9.0.0), half weft.js (Weft's own), both
# kinds on every channel; CLIENTS=cometd or CLIENTS=weft for one kind only. The publisher numbers 200 messages a second
# across the 20 channels; FAULT_AT s into the publishing the fault: none, kill (kill -9 node a, which stays down) or
# rolling (SIGTERM node a, which drains for DRAIN s (10: LoadServer's default) and stops, start it again, wait until
# HAProxy takes it back, then node b); AFTER s more of publishing. Each subscriber counts what it lost, received twice
# or out of order (by the publisher's numbers per channel, against what the publisher's node acknowledged), and how long
# after a fault it received again; the table gives those counts for each kind of client too.
#
# Recovery: history on /loss/** on every node (LoadServer --option=history=/loss/**), weft-recovery.js registered on
# every official client, and weft.js's own recovery (without recovery weft.js runs with recover: false); RECOVERY_JS=PATH:
# another extension, with the weft.js it imports (and the weft.js subscribers use) beside it. RECOVERY=auto (default):
# each run without, then with, where examples' weft-recovery.js exists (without only, otherwise); off, on or both.
#
# Default: 500 subscribers, websocket and long-polling, faults none, kill and rolling, 10 s + 20 s: about 15 minutes
# with recovery (12 runs). TRANSPORTS="websocket", FAULTS="kill rolling", SUBSCRIBERS=N, FAULT_AT=S, AFTER=S to narrow.
# BENCH_SHORT=1: 50 subscribers, 3 s + 8 s, into bench/target/short.
# Writes docs/benchmarks/recovery-failover.csv (a row per run; KEEP_CSV=1 appends to the rows there, if it has the
# columns a run writes) and the table in recovery-failover.md (between its table markers; the rest of the page is prose
# kept as it is).
source "$(dirname "$0")/lib.sh"
# Its own build folder: the other scripts' bench/target/load-client and bench/target/harness may be rebuilt under a run.
BUILD="$BENCH_DIR/target/recovery"
mkdir -p "$BUILD"
SUBSCRIBERS="${SUBSCRIBERS:-500}"; FAULT_AT="${FAULT_AT:-10}"; AFTER="${AFTER:-20}"; DRAIN="${DRAIN:-10}"
TRANSPORTS="${TRANSPORTS:-websocket long-polling}"; FAULTS="${FAULTS:-none kill rolling}"; CLIENTS="${CLIENTS:-mixed}"
if short; then SUBSCRIBERS=50; FAULT_AT=3; AFTER=8; fi
EXTENSION="${RECOVERY_JS:-$ROOT/examples/src/main/resources/static/weft-recovery.js}"
case "${RECOVERY:-auto}" in
    auto) if [[ -f "$EXTENSION" ]]; then MODES="false true"; else MODES="false"; fi ;;
    off) MODES="false" ;; on) MODES="true" ;; both) MODES="false true" ;;
    *) echo "RECOVERY is auto, off, on or both" >&2; exit 2 ;;
esac
runs=0; for _ in $TRANSPORTS; do for _ in $FAULTS; do for _ in $MODES; do runs=$((runs + 1)); done; done; done
bench_deadline $(( 900 + runs * (FAULT_AT + AFTER + 150) ))

for tool in haproxy redis-server node npm; do
    command -v "$tool" >/dev/null || { echo "recovery.sh needs $tool on the PATH" >&2; exit 2; }
done
if [[ "${BENCH_SKIP_BUILD:-0}" != 1 || ! -f "$BUILD/harness/classpath.txt" ]]; then
    build_weft
fi
CSV="$OUT/recovery-failover.csv"; [[ "${KEEP_CSV:-0}" == 1 ]] || rm -f "$CSV"
COMMIT=$(cd "$WEFT_SRC" && git rev-parse --short HEAD)
STARTED=$(date -u +"%Y-%m-%d %H:%M")

# run TRANSPORT FAULT RECOVERY: one Bench loss in a process group of its own (the trap kills it and every process it
# started), not pinned: the nodes, HAProxy, Redis and Node share the machine's cores as they would.
run() {
    local transport=$1 fault=$2 recovery=$3 logf="$BUILD/loss-$1-$2-$3.log"
    log "$transport, $fault, recovery $recovery: $SUBSCRIBERS subscribers, clients $CLIENTS (load $(load_avg))"
    setsid timeout --kill-after=10 $(( FAULT_AT + AFTER + 240 )) java -Xms256m -Xmx1g $JVM_COMMON $LOAD_LOGGING \
        -cp "$(harness_cp)" io.weft.load.bench.Bench loss --transport="$transport" --fault="$fault" \
        --recovery="$recovery" --clients="$CLIENTS" --subscribers="$SUBSCRIBERS" --fault-at-s="$FAULT_AT" --after-s="$AFTER" --drain-s="$DRAIN" \
        --npm-prefix="$BUILD/npm-loss" --haproxy-cfg="$ROOT/cluster-redis/haproxy.cfg" --recovery-js="$EXTENSION" \
        --dir="$BUILD/runs" --csv="$CSV" --label="$COMMIT drain ${DRAIN}s" > "$logf" 2>&1 < /dev/null &
    local pid=$!
    STARTED_PIDS+=("$pid")
    if wait "$pid"; then grep -A3 '^RESULT' "$logf" >&2; else log "the run failed: see $logf"; tail -5 "$logf" >&2; fi
}

for transport in $TRANSPORTS; do
    for fault in $FAULTS; do
        for recovery in $MODES; do run "$transport" "$fault" "$recovery"; sleep 2; done
    done
done

# The table of recovery-failover.md, from the CSV, between the page's markers (a new page gets a heading and them).
python3 - "$CSV" "$OUT/recovery-failover.md" "$COMMIT" "$STARTED" "$(load_avg)" <<'EOF'
import csv, os, sys
csv_file, page, commit, started, load = sys.argv[1:6]
rows = list(csv.DictReader(open(csv_file))) if os.path.exists(csv_file) else []
def n(v):
    return f"{int(v):,}"
lines = [f"Last run {started} UTC at `{commit}` (load average {load} at its end), "
         + (f"{rows[0]['subscribers']} subscribers, {rows[0]['rate']} msgs/s over {rows[0]['channels']} channels."
            if rows else "no run completed."), "",
         "| transport | fault | recovery | clients | lost | duplicated | out of order | subscribers that lost (each) "
         "| interrupted (twice) | by client: lost / duplicated / out of order | back after the fault "
         "| longest silence | measured at |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
KINDS = {"cometd": "CometD", "weft": "weft.js"}
def kinds(r):
    return [(name, k) for k, name in KINDS.items() if int(r.get(f"{k}_subscribers") or 0) > 0]
def clients(r):
    ran = kinds(r)
    return ran[0][0] if len(ran) == 1 else ", ".join(f"{name} {r[k + '_subscribers']}" for name, k in ran)
def by_client(r):
    ran = kinds(r)
    return "–" if len(ran) < 2 else "; ".join(
        f"{name}, {r[k + '_interrupted']} interrupted: {n(r[k + '_lost'])} / {n(r[k + '_duplicated'])} "
        f"/ {n(r[k + '_out_of_order'])}"
        for name, k in ran)
for r in rows:
    each = (f" ({r['lost_each_min']}–{r['lost_each_max']})" if r['lost_each_min'] != r['lost_each_max']
            else f" ({r['lost_each_max']})") if int(r['subscribers_lost']) else ""
    back = f"{r['back_s']} s" if r['back_s'] else "–"
    lines.append(f"| {r['transport']} | {r['fault']} | {r['recovery']} | {clients(r)} "
                 f"| {n(r['lost'])} of {n(r['expected'])} "
                 f"| {n(r['duplicated'])} | {n(r['out_of_order'])} | {r['subscribers_lost']} of {r['subscribers']}{each} "
                 f"| {r['interrupted']} ({r['interrupted_twice']}) | {by_client(r)} | {back} | {r['longest_silence_s']} s "
                 f"| {r.get('label') or ''} |")
table = "\n".join(lines)
begin, end = "<!-- table: bench/recovery.sh writes what follows -->", "<!-- /table -->"
text = open(page).read() if os.path.exists(page) else f"# Failover with and without recovery (issue 27)\n\n{begin}\n{end}\n"
if begin not in text or end not in text:
    sys.exit(f"{page} has lost its table markers")
head, rest = text.split(begin, 1)
open(page, "w").write(head + begin + "\n" + table + "\n" + end + rest.split(end, 1)[1])
EOF
log "done: $CSV, $OUT/recovery-failover.md"
