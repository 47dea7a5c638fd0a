#!/usr/bin/env python3
"""The floor table of issue 18 from floor.csv (bench/floor.sh), as Markdown (stdout).

Per transport and per offered rate that every server sustained in every round (delivered >= 90% of offered, < 1%
lost, p99 <= 1 s: the ladder's knee rule), and at 10,000 and 40,000 msgs/s when they did: each server's CPU per
delivered message (the median over rounds, the range of the rounds in brackets) and its ratio to the floor's (the
issue's targets: Weft <= 1.3x over websocket, <= 1.5x over long-polling; "weft" is Weft on embedded Jetty, "weft-netty" on
transport-netty), and the p99 there, Weft's against the best
peer's (target: no worse). Then saturation: the most
delivered messages/s each server reached in a round, the median over rounds, and Weft's ratio to CometD's (target
>= 2).
"""
import csv
import statistics
import sys
from collections import defaultdict

SERVERS = ["floor", "weft", "weft-netty", "cometd", "faye"]
WEFT = ("weft", "weft-netty")  # Weft on embedded Jetty, and on transport-netty
TARGET = {"websocket": 1.3, "long-polling": 1.5}
FIXED = (10000.0, 40000.0)


def sustained(row):
    offered = float(row["offered_per_s"])
    return (float(row["delivered_per_s"]) >= 0.9 * offered and float(row["lost_pct"]) < 1.0
            and float(row["p99_ms"]) <= 1000)


def spread(values, digits=1):
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def main(path):
    rows = list(csv.DictReader(open(path)))
    out = []
    for transport in ["websocket", "long-polling"]:
        t_rows = [r for r in rows if r["transport"] == transport]
        if not t_rows:
            continue
        rounds = sorted({r["label"] for r in t_rows})
        present = [s for s in SERVERS if any(r["server"] == s for r in t_rows)]
        ok = defaultdict(set)
        cost = defaultdict(lambda: defaultdict(list))
        p99 = defaultdict(lambda: defaultdict(list))
        sat = defaultdict(lambda: defaultdict(float))
        for r in t_rows:
            s, lbl, off = r["server"], r["label"], float(r["offered_per_s"])
            if sustained(r):
                ok[(s, lbl)].add(off)
            if r.get("server_cpu_us_per_msg") not in (None, "", "nan"):
                cost[s][off].append(float(r["server_cpu_us_per_msg"]))
            p99[s][off].append(float(r["p99_ms"]))
            sat[s][lbl] = max(sat[s][lbl], float(r["delivered_per_s"]))
        common = None
        for s in present:
            for lbl in rounds:
                common = ok[(s, lbl)] if common is None else common & ok[(s, lbl)]
        common = sorted(common or [])
        # The fixed rates, whoever sustained them, and every rate all servers sustained in every round.
        rates = sorted(set(common) | {r for r in FIXED if any(cost[s][r] for s in present)})
        out.append(f"### {transport} ({len(rounds)} rounds)\n")
        out.append("CPU per delivered message in µs and p99 in ms: the median of the rounds [their range]. A cell marked "
                   "* had the server past its knee in at least one round at that rate (delivered < 90% of offered, "
                   "or p99 > 1 s); (n) says in how many rounds it had a row there at all, when not in every one.\n")
        header = "| offered msgs/s | " + " | ".join(f"{s}: CPU µs/msg" for s in present)
        header += " | " + " | ".join(f"{s}/floor" for s in present if s != "floor")
        header += " | " + " | ".join(f"{s}: p99 ms" for s in present) + " |"
        out.append(header)
        out.append("|---" * (1 + 2 * len(present) + len(present) - 1) + "|")

        def cell(s, rate, values, digits=1):
            if not values:
                return "n/a"
            text = spread(values, digits)
            if any(rate not in ok[(s, lbl)] for lbl in rounds):
                text += " *"
            if len(values) < len(rounds):
                text += f" ({len(values)})"
            return text

        for rate in rates:
            cells = [f"{rate:.0f}"]
            cells += [cell(s, rate, cost[s][rate]) for s in present]
            floor = statistics.median(cost["floor"][rate]) if cost["floor"][rate] else None
            for s in present:
                if s == "floor":
                    continue
                if floor and cost[s][rate]:
                    ratio = statistics.median(cost[s][rate]) / floor
                    cells.append(f"**{ratio:.2f}x**" if s in WEFT else f"{ratio:.2f}x")
                else:
                    cells.append("n/a")
            cells += [cell(s, rate, p99[s][rate]) for s in present]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out.append(f"Target: Weft's CPU per delivered message <= {TARGET[transport]}x the floor's.\n")
        peers = [s for s in ("cometd", "faye") if s in present]
        for weft_server in [s for s in WEFT if s in present]:
            if not peers:
                break
            steady = {rate: [s for s in peers if all(rate in ok[(s, lbl)] for lbl in rounds)]
                      for rate in sorted({off for s in peers for lbl in rounds for off in ok[(s, lbl)]})}
            steady = {rate: who for rate, who in steady.items() if who}
            out.append(f"p99 of {weft_server} (median of the rounds) against the best peer's, at each rate a peer "
                       "sustained in every round, among the peers that did (target: no worse):\n")
            if not steady:
                out.append("- none: no peer sustained any rate in every round\n")
            for rate, who in steady.items():
                if not p99[weft_server][rate]:
                    out.append(f"- {rate:.0f} msgs/s: {weft_server} has no row there: not met")
                    continue
                weft = statistics.median(p99[weft_server][rate])
                best_peer = min(who, key=lambda s: statistics.median(p99[s][rate]))
                best = statistics.median(p99[best_peer][rate])
                verdict = "met" if weft <= best else "not met"
                out.append(f"- {rate:.0f} msgs/s: {weft_server} {weft:.1f} ms, best peer {best_peer} {best:.1f} ms: "
                           f"{verdict}")
            out.append("")
        out.append("Saturation: the most messages/s each server delivered in a round, at any rung (past its knee too); "
                   "a server that reached the ladder's top rate may go higher.\n")
        out.append("| server | delivered msgs/s at saturation, per round | median |")
        out.append("|---|---|---|")
        for s in present:
            per_round = ", ".join(f"{sat[s][lbl]:.0f}" for lbl in rounds)
            out.append(f"| {s} | {per_round} | {statistics.median(sat[s].values()):.0f} |")
        for weft_server in [s for s in WEFT if s in present and "cometd" in present]:
            ratio = statistics.median(sat[weft_server].values()) / statistics.median(sat["cometd"].values())
            out.append("")
            out.append(f"Saturation, {weft_server} / CometD: **{ratio:.2f}x** (target >= 2).")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
