#!/usr/bin/env bash
# Prints server-core's package graph from its compiled classes (jdeps, class-level edges folded into packages):
# one line per edge, "from -> to (n class-to-class dependencies)", io.weft.server. left off; edges into the shared
# bayeux module (io.weft.bayeux) are shown too.
#   tools/package-graph.sh            # builds server-core first when target/classes is missing
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLASSES="$ROOT/server-core/target/classes"
[[ -d "$CLASSES/io" ]] || mvn -q -f "$ROOT/pom.xml" -pl server-core compile
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
cp -r "$CLASSES/io" "$WORK/" # without module-info.class, so jdeps does not ask for Jackson's and SLF4J's modules
jdeps -verbose:class -filter:none "$WORK" \
    | awk '$2 == "->" && $1 ~ /^io\.weft\.server\./ && $3 ~ /^io\.weft\.(server|bayeux)\./ {
          from = $1; sub(/\.[^.]*$/, "", from); to = $3; sub(/\.[^.]*$/, "", to);
          if (from != to) edges[from " -> " to]++ }
          END { for (e in edges) print e " (" edges[e] ")" }' \
    | sed 's/io\.weft\.server\.//g' | sort
