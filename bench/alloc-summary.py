#!/usr/bin/env python3
"""What each delivered message allocates, from JFR recordings of servers under the chat load (bench/alloc-profile.sh).

Usage: alloc-summary.py LADDER_CSV FILE.jfr=LABEL... (LABEL: "server transport round"), Markdown on stdout.

From bench/alloc-profile.jfc's events: jdk.ObjectAllocationInNewTLAB (a thread started a TLAB: its size) and
jdk.ObjectAllocationOutsideTLAB (an allocation too large for one: its size), each with the stack of the allocation
that caused it. Their sizes add up to every byte the JVM allocated while it recorded (less what the recorder itself
allocates, left out), and each site is charged about in proportion to what it allocates. (Recordings made with
jdk.ObjectAllocationSample instead, as before, are read by their weights.) Bytes per delivered message: that total over the recording's duration, divided by the
delivered messages per second of the ladder rung the recording lay in. Then the sites that allocate most, each as
the allocated type, the first frames of its stack and the first frame of the server's own code (io.weft, org.cometd).
"""
import collections
import csv
import json
import re
import subprocess
import sys

OWN = ("io.weft.", "org.cometd.")
TOP = 12


def frame_name(frame):
    return frame["method"]["type"]["name"].replace("/", ".") + "." + frame["method"]["name"]


def short(name):
    parts = name.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else name


def duration_s(path):
    summary = subprocess.run(["jfr", "summary", path], capture_output=True, text=True, check=True).stdout
    match = re.search(r"Duration:\s+(\d+(?:\.\d+)?)\s*s", summary)
    return float(match.group(1)) if match else None


EVENTS = "jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,jdk.ObjectAllocationSample"


def samples(path):
    """The allocation events of one kind: TLAB events where the recording has them, else the weighted samples."""
    printed = subprocess.run(["jfr", "print", "--json", "--events", EVENTS, path],
                             capture_output=True, text=True, check=True).stdout
    events = json.loads(printed)["recording"]["events"]
    tlab = [e for e in events if e["type"] != "jdk.ObjectAllocationSample"]
    return tlab if tlab else events


def bytes_of(event):
    values = event["values"]
    if event["type"] == "jdk.ObjectAllocationInNewTLAB":
        return values["tlabSize"]
    if event["type"] == "jdk.ObjectAllocationOutsideTLAB":
        return values["allocationSize"]
    return values["weight"]


def main(csv_path, runs):
    rows = list(csv.DictReader(open(csv_path)))
    out = ["| server | transport | round | delivered msgs/s | allocated MB/s | bytes per delivered message |",
           "|---|---|---|---|---|---|"]
    details = []
    for run in runs:
        path, label = run.split("=", 1)
        server, transport, round_label = label.split(" ", 2)
        row = next((r for r in rows if r["server"] == server and r["transport"] == transport
                    and r["label"] == round_label), None)
        try:
            events = samples(path)
            seconds = duration_s(path)
        except (subprocess.CalledProcessError, FileNotFoundError):
            out.append(f"| {server} | {transport} | {round_label} | – | no recording | – |")
            continue
        # What the recorder itself allocates (its start, its string pools) is not the server's.
        events = [e for e in events if not any(f["method"]["type"]["name"].startswith(("jdk/jfr/", "jdk.jfr."))
                                               for f in (e["values"].get("stackTrace") or {}).get("frames", []))]
        total = sum(bytes_of(e) for e in events)
        delivered = float(row["delivered_per_s"]) if row else float("nan")
        rate = total / seconds if seconds else float("nan")
        out.append(f"| {server} | {transport} | {round_label} | {delivered:.0f} | {rate / 1e6:.1f} "
                   f"| {rate / delivered:.0f} |")
        sites = collections.Counter()
        for e in events:
            values = e["values"]
            frames = [frame_name(f) for f in (values.get("stackTrace") or {}).get("frames", [])]
            own = next((f for f in frames if f.startswith(OWN)), "(no frame of the server's own)")
            kind = values["objectClass"]["name"].replace("/", ".").split(".")[-1]
            sites[(kind, " <- ".join(short(f) for f in frames[:3]), short(own))] += bytes_of(e)
        details.append(f"\n### {server}, {transport}, {round_label}: where it allocates (share of all bytes)\n")
        details.append("| share | type | first frames | first frame of the server's own |")
        details.append("|---|---|---|---|")
        for (kind, chain, own), weight in sites.most_common(TOP):
            details.append(f"| {weight / total * 100:.1f}% | `{kind}` | `{chain}` | `{own}` |")
    print("\n".join(out + details))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
