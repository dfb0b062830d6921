#!/usr/bin/env bash
# Compares two builds of rpcc-benchmarks.jar fork by fork, interleaved (the machine's loopback latency is
# bimodal: only runs side by side compare). Usage:
#   rpcc-benchmarks/compare-builds.sh BEFORE.jar NOW.jar [rounds (3)] [eventLoops (perNode)]
# Each round runs, for each benchmark of $BENCHES (default: plainCall chain2Hops) and both server executors,
# one JMH fork of each build
# (-bm sample -wi 6 -w 2 -i 4 -r 2), alternating which build goes first; then prints the median of the
# forks' medians per row, their ratio and the per-round ratios (compare-builds.py). JSON in ./compare-runs.
# Both builds' ChainBenchmark must have the eventLoops parameter.
set -euo pipefail
before=$1; now=$2; rounds=${3:-3}; loops=${4:-perNode}
J="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
F="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
out=compare-runs; mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for bench in ${BENCHES:-plainCall chain2Hops}; do
    for ex in direct virtual; do
      if [ $((round % 2)) -eq 1 ]; then order="before now"; else order="now before"; fi
      for which in $order; do
        jar=$before; [ "$which" = now ] && jar=$now
        "$J" $F -jar "$jar" "ChainBenchmark.$bench\$" -p serverExecutor=$ex -p eventLoops=$loops -f 1 -wi 6 -w 2 \
          -i 4 -r 2 -bm sample -tu us -jvmArgsAppend "$F" -rf json -rff "$out/$which-$bench-$ex-$round.json" \
          > "$out/$which-$bench-$ex-$round.log" 2>&1
        echo "$(date +%T) round $round: $which $bench $ex"
      done
    done
  done
done
python3 "$(dirname "$0")/compare-builds.py" "$out"
