#!/usr/bin/env python3
"""Calls per delivered message from `strace -c` tables (bench/syscalls.sh).

Usage: syscalls-summary.py LADDER_CSV WINDOW_S FILE=LABEL... where LABEL is "server transport" and the ladder's row
for it carries the label "server-transport". The window's messages are the rung's delivered rate times WINDOW_S.
"""
import csv
import sys

SHOWN = 8  # the calls made most often; the rest are summed as "other"


def counts(path):
    """Calls by system call name, from strace -c's table (the errors column may be empty)."""
    calls = {}
    with open(path) as table:
        for line in table:
            fields = line.split()
            if len(fields) < 5 or not fields[0][0].isdigit() or fields[-1] == "total":
                continue
            calls[fields[-1]] = calls.get(fields[-1], 0) + int(fields[3])
    return calls


def main():
    ladder, window, runs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    delivered = {row["label"]: float(row["delivered_per_s"]) for row in csv.DictReader(open(ladder))}
    rows = []
    names = {}
    for run in runs:
        path, label = run.split("=", 1)
        rate = delivered.get(label.replace(" ", "-"))
        try:
            calls = counts(path)
        except OSError:
            calls = {}
        if not rate or not calls:
            rows.append((label, rate, None))
            continue
        per = {name: n / (rate * window) for name, n in calls.items()}
        rows.append((label, rate, per))
        for name, value in per.items():
            names[name] = names.get(name, 0) + value
    top = sorted(names, key=names.get, reverse=True)[:SHOWN]
    print("System calls per delivered message (every thread of the server), the most frequent first:")
    print()
    print("| server | transport | delivered msgs/s | all | " + " | ".join(top) + " | other |")
    print("|---|---|---|---|" + "---|" * (len(top) + 1))
    for label, rate, per in rows:
        server, transport = label.split(" ", 1)
        if per is None:
            print(f"| {server} | {transport} | {rate or 0:,.0f} | no count |" + " |" * (len(top) + 1))
            continue
        total = sum(per.values())
        other = total - sum(per.get(name, 0) for name in top)
        cells = " | ".join(f"{per.get(name, 0):.2f}" for name in top)
        print(f"| {server} | {transport} | {rate:,.0f} | **{total:.2f}** | {cells} | {other:.2f} |")


if __name__ == "__main__":
    main()
