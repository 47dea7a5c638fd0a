#!/usr/bin/env python3
"""Weft/peer ratios from side-by-side.csv and side-by-side-idle.csv, as a Markdown table (stdout).

Saturation: the most delivered messages/s a server reached at any offered rate, per round; the median over rounds.
p99 at a fixed rate: 10,000 offered msgs/s (the issue's reference) if every server sustained it in every round
(delivered >= 90% of offered, < 1% lost, p99 <= 1 s: the driver's knee rule), and the highest rate every server
sustained in every round; the p99 per server at each, the median over rounds. Idle memory: the median over rounds.
Beside saturation: the server's and the load client's CPU (% of one core) during the step that reached it, when the
CSV has them; a client near 100% means that step measured the client's ceiling, not the server's.
"""
import csv
import statistics
import sys
from collections import defaultdict

SERVERS = ["weft", "weft-netty", "cometd", "faye"]
# Weft on each of its engines (embedded Jetty, Netty): each is compared with the peers, not with the other.
WEFTS = ["weft", "weft-netty"]
NAMES = {"weft": "Weft", "weft-netty": "Weft on Netty"}
REFERENCE_RATE = 10000.0


def cpu(row, column):
    """A CPU column as a rounded percentage, or ? when the CSV predates it or the value was not readable."""
    value = row.get(column) or "nan"
    return "?" if value == "nan" else f"{float(value):.0f}"


def main(chat_csv, idle_csv):
    rows = list(csv.DictReader(open(chat_csv)))
    idle = list(csv.DictReader(open(idle_csv)))
    out = []
    for transport in ["websocket", "long-polling"]:
        t_rows = [r for r in rows if r["transport"] == transport]
        if not t_rows:
            continue  # a run of the other transport only
        sat = defaultdict(lambda: defaultdict(float))
        cpu_at_sat = defaultdict(dict)
        ok = defaultdict(set)
        p99 = defaultdict(lambda: defaultdict(list))
        cost = defaultdict(lambda: defaultdict(list))
        rounds = sorted({r["label"] for r in t_rows})
        for r in t_rows:
            s, lbl, off = r["server"], r["label"], float(r["offered_per_s"])
            if float(r["delivered_per_s"]) > sat[s][lbl]:
                sat[s][lbl] = float(r["delivered_per_s"])
                cpu_at_sat[s][lbl] = f"{cpu(r, 'server_cpu_pct')}/{cpu(r, 'client_cpu_pct')}"
            if float(r["delivered_per_s"]) >= 0.9 * off and float(r["lost_pct"]) < 1.0 and float(r["p99_ms"]) <= 1000:
                ok[(s, lbl)].add(off)
            p99[s][off].append(float(r["p99_ms"]))
            if r.get("server_cpu_us_per_msg") not in (None, "", "nan"):
                cost[s][off].append(float(r["server_cpu_us_per_msg"]))
        present = [s for s in SERVERS if s in sat]
        common = None
        for s in present:
            for lbl in rounds:
                common = ok[(s, lbl)] if common is None else common & ok[(s, lbl)]
        # The reference rate (10,000 delivered msgs/s) when every server sustained it, else the highest such.
        fixed = (REFERENCE_RATE if common and REFERENCE_RATE in common else max(common)) if common else None
        med_sat = {s: statistics.median(sat[s].values()) for s in present}
        med_p99 = {s: statistics.median(p99[s][fixed]) for s in present} if fixed else {}
        # Server CPU per delivered message at the highest rate every server sustained in every round: what a server
        # spends per message under the same load, which the load client's own ceiling does not cap.
        top = max(common) if common else None
        med_cost = {s: statistics.median(cost[s][top]) for s in present if cost[s].get(top)} if top else {}
        out.append(f"### {transport}\n")
        out.append("| server | delivered msgs/s at saturation (per round) | server/client CPU % there (per round) "
                   "| median | p99 at " f"{fixed:.0f} msgs/s (ms) |" if fixed
                   else "| server | saturation per round | server/client CPU % | median | p99 |")
        out.append("|---|---|---|---|---|")
        for s in present:
            per_round = ", ".join(f"{sat[s][lbl]:.0f}" for lbl in rounds)
            cpus = ", ".join(cpu_at_sat[s].get(lbl, "?") for lbl in rounds)
            p = f"{med_p99[s]:.1f}" if s in med_p99 else "n/a"
            out.append(f"| {s} | {per_round} | {cpus} | {med_sat[s]:.0f} | {p} |")
        peers = [s for s in present if s not in WEFTS]
        for weft in [w for w in WEFTS if w in present and peers]:
            best_sat = max(peers, key=lambda s: med_sat[s])
            out.append("")
            out.append(f"- saturation, {NAMES[weft]} / best peer ({best_sat}): **{med_sat[weft] / med_sat[best_sat]:.2f}x** "
                       "(target >= 2)")
            for rate in sorted({fixed, top} - {None}):
                at = {s: statistics.median(p99[s][rate]) for s in present}
                best_p99 = min(peers, key=lambda s: at[s])
                values = ", ".join(f"{s} {at[s]:.1f}" for s in present)
                out.append(f"- p99 at {rate:.0f} msgs/s (ms, median: {values}), {NAMES[weft]} / best peer ({best_p99}): "
                           f"**{at[weft] / at[best_p99]:.2f}x** (target <= 0.5)")
            if weft in med_cost and any(p in med_cost for p in peers):
                costs = ", ".join(f"{s} {med_cost[s]:.1f}" for s in present if s in med_cost)
                cheapest = min((p for p in peers if p in med_cost), key=lambda p: med_cost[p])
                out.append(f"- server CPU per delivered message at {top:.0f} msgs/s (µs, median): {costs}; "
                           f"{NAMES[weft]} / cheapest peer ({cheapest}): **{med_cost[weft] / med_cost[cheapest]:.2f}x**")
        out.append("")
    out.append("### idle memory per session (median over rounds)\n")
    out.append("| server | transport | sessions | heap B/session | RSS B/session |")
    out.append("|---|---|---|---|---|")
    mem = {}
    for transport in ["websocket", "long-polling"]:
        for s in SERVERS:
            rs = [r for r in idle if r["server"] == s and r["transport"] == transport]
            if not rs:
                continue
            h = statistics.median(float(r["heap_per_session_b"]) for r in rs)
            rss = statistics.median(float(r["rss_per_session_b"]) for r in rs)
            mem[(s, transport)] = (h, rss)
            heap_text = f"{h:.0f}" + (" (V8 heap)" if s == "faye" else "")
            out.append(f"| {s} | {transport} | {rs[0]['sessions']} | {heap_text} | {rss:.0f} |")
    out.append("")
    for transport in ["websocket", "long-polling"]:
        for weft in WEFTS:
            if (weft, transport) in mem and ("cometd", transport) in mem:
                out.append(f"- {transport} heap per idle session, {NAMES[weft]} / CometD: "
                           f"**{mem[(weft, transport)][0] / mem[('cometd', transport)][0]:.2f}x** (target <= 0.5)")
            if (weft, transport) in mem and ("faye", transport) in mem:
                cometd = (f"; {NAMES[weft]} / CometD: {mem[(weft, transport)][1] / mem[('cometd', transport)][1]:.2f}x"
                          if ("cometd", transport) in mem else "")
                out.append(f"- {transport} RSS per idle session, {NAMES[weft]} / Faye: "
                           f"**{mem[(weft, transport)][1] / mem[('faye', transport)][1]:.2f}x** (target <= 1){cometd}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
