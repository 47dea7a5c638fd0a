#!/usr/bin/env python3
"""Where a server's CPU per delivered message goes (bench/cpu-profile.sh).

  cpu-summary.py snapshot PID
      every thread of PID: name, user and kernel clock ticks, and the time of the reading (JSON on stdout)
  cpu-summary.py report LADDER_CSV BASE=LABEL...
      Markdown on stdout. BASE.before and BASE.after are snapshots around the window, BASE.jfr a JFR recording of
      execution samples in it (JVM servers); LABEL is "server transport round", matched to the ladder's row.

The threads' time splits the cost into kernel (every thread's kernel time: the sockets, the scheduler, loopback TCP
on the sending side), GC threads, JIT compiler threads, other JVM threads and the application's threads (user time).
The application's user time splits further by execution samples: each sample goes to the first frame from the top
of its stack that is not the JDK's (JDK code runs on behalf of its caller), named by library.
"""
import collections
import csv
import json
import os
import subprocess
import sys
import time

JDK = ("java.", "javax.", "jdk.", "sun.", "com.sun.")
OWNERS = [("io.weft.load.floor.", "floor"), ("io.weft.load.", "load server"), ("io.weft.", "Weft"),
          ("org.eclipse.jetty.", "Jetty"), ("io.netty.", "Netty"), ("org.cometd.", "CometD"),
          ("com.fasterxml.jackson.", "Jackson"),
          ("org.slf4j.", "logging"), ("ch.qos.logback.", "logging")]
GROUPS = ["kernel", "GC", "JIT", "JVM other", "application"]
TOP = 12


def snapshot(pid):
    tick = os.sysconf("SC_CLK_TCK")
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended meanwhile
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        threads[tid] = {"name": name, "user": int(fields[11]) / tick, "kernel": int(fields[12]) / tick}
    json.dump({"time": time.monotonic(), "threads": threads}, sys.stdout)


def group(name):
    """The group a thread's user time counts in, by its name (JVM threads, node's V8 helpers)."""
    if name.startswith(("GC Thread", "G1 ", "GC ")):
        return "GC"
    if name.startswith(("C1 CompilerThre", "C2 CompilerThre")):
        return "JIT"
    if name.startswith(("VM ", "JFR ", "Service Thread", "Monitor Deflati", "Signal Dispatch", "Reference Handl",
                        "Finalizer", "Common-Cleaner", "Sweeper thread", "Notification Th", "Attach Listener")):
        return "JVM other"
    if name.startswith("V8 "):
        return "GC"  # node: V8's worker threads (garbage collection and compilation in the background)
    return "application"


def split(before, after):
    """Seconds of CPU per group over the window, and the window's length."""
    seconds = collections.Counter()
    for tid, t in after["threads"].items():
        b = before["threads"].get(tid, {"user": 0.0, "kernel": 0.0})
        seconds["kernel"] += t["kernel"] - b["kernel"]
        seconds[group(t["name"])] += t["user"] - b["user"]
    return seconds, after["time"] - before["time"]


def owner(frames):
    for frame in frames:
        name = frame["method"]["type"]["name"].replace("/", ".")
        if name.startswith(JDK):
            continue
        for prefix, label in OWNERS:
            if name.startswith(prefix):
                return label
        return name.rsplit(".", 1)[0]  # another library: its package
    return "JDK"


def frame_name(frame):
    parts = frame["method"]["type"]["name"].replace("/", ".").split(".")
    return ".".join(parts[-2:]) + "." + frame["method"]["name"]


def samples(path):
    printed = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", path],
                             capture_output=True, text=True, check=True).stdout
    return [e["values"]["stackTrace"]["frames"] for e in json.loads(printed)["recording"]["events"]
            if e["values"].get("stackTrace")]


def us(value):
    return f"{value:.1f}"


def report(csv_path, runs):
    rows = list(csv.DictReader(open(csv_path)))
    table = ["| server | transport | round | delivered msgs/s | CPU µs/msg | " + " | ".join(GROUPS) + " |",
             "|---" * (5 + len(GROUPS)) + "|"]
    by_code = {}
    tops = []
    labels = set()
    for run in runs:
        base, label = run.split("=", 1)
        server, transport, round_label = label.split(" ", 2)
        row = next((r for r in rows if r["server"] == server and r["transport"] == transport
                    and r["label"] == round_label), None)
        try:
            before = json.load(open(base + ".before"))
            after = json.load(open(base + ".after"))
        except (OSError, ValueError):
            table.append(f"| {server} | {transport} | {round_label} | – | no readings |" + " – |" * len(GROUPS))
            continue
        if row is None or float(row["delivered_per_s"]) <= 0:
            table.append(f"| {server} | {transport} | {round_label} | – | no ladder row |" + " – |" * len(GROUPS))
            continue
        seconds, elapsed = split(before, after)
        delivered = float(row["delivered_per_s"]) * elapsed
        per_msg = {g: seconds[g] * 1e6 / delivered for g in GROUPS}
        total = sum(per_msg.values())
        table.append(f"| {server} | {transport} | {round_label} | {float(row['delivered_per_s']):,.0f} | "
                     f"**{us(total)}** | "
                     + " | ".join(f"{us(per_msg[g])} ({100 * per_msg[g] / total:.0f}%)" for g in GROUPS) + " |")
        if not os.path.exists(base + ".jfr"):
            continue
        try:
            stacks = samples(base + ".jfr")
        except (subprocess.CalledProcessError, FileNotFoundError, ValueError):
            continue
        if not stacks:
            continue
        owners = collections.Counter(owner(s) for s in stacks)
        code = {o: per_msg["application"] * n / len(stacks) for o, n in owners.items()}
        by_code[(server, transport, round_label)] = code
        labels.update(code)
        self_time = collections.Counter(frame_name(s[0]) + " (" + owner(s) + ")" for s in stacks)
        tops.append((server, transport, round_label, len(stacks), self_time.most_common(TOP)))
    out = ["CPU per delivered message in µs, by what ran: every thread's kernel time, then user time by thread "
           "group. A server whose delivered rate is under the offered one was past its knee here.", ""]
    out += table
    if by_code:
        order = [label for label in ["Weft", "Jetty", "CometD", "Jackson", "JDK", "floor", "load server", "logging"]
                 if label in labels]
        order += sorted(labels - set(order))
        out += ["", "The application threads' user time (the column above) by whose code ran, in µs per delivered "
                "message (execution samples; JDK code counts for the library that called it):", "",
                "| server | transport | round | " + " | ".join(order) + " |", "|---" * (3 + len(order)) + "|"]
        for (server, transport, round_label), code in by_code.items():
            out.append(f"| {server} | {transport} | {round_label} | "
                       + " | ".join(us(code.get(label, 0.0)) for label in order) + " |")
    for server, transport, round_label, count, top in tops:
        out += ["", f"#### {server}, {transport}, {round_label}: the methods most often on top ({count} samples)", "",
                "| method (whose) | share of samples |", "|---|---|"]
        out += [f"| `{name}` | {100 * n / count:.1f}% |" for name, n in top]
    print("\n".join(out))


def main(argv):
    if len(argv) == 3 and argv[1] == "snapshot":
        snapshot(argv[2])
    elif len(argv) >= 3 and argv[1] == "report":
        report(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
