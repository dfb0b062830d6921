#!/usr/bin/env bash
# Compares two builds of rpcc on loopback, interleaved in one run (the machine's loopback latency is
# bimodal and drifts: only runs side by side compare). Usage:
#   rpcc-benchmarks/compare-builds.sh OLD NEW [ThroughputBenchmark options]
#   rpcc-benchmarks/compare-builds.sh --jmh OLD NEW
# OLD and NEW: git refs of this repository (a commit, branch or tag), or built rpcc-benchmarks.jar files.
# A ref is exported (git archive, no worktree registered, nothing of this checkout touched) to
# /tmp/rpcc-builds/<commit> and built there once (./rpcc mvn -o -DskipTests ... -pl rpcc-benchmarks -am
# package, never install); a later run with the same commit reuses the build.
#
# Throughput (the default): ThroughputBenchmark is compiled from this checkout's sources against each
# build's jar (the same source for both: a moved class keeps it source- but not binary-compatible), then
# run with that build's shaded jar behind it on the class path, so the same runner measures both, even
# a ref older than the runner. Each of $ROUNDS rounds
# (default 3) runs the runner's whole matrix once per build, each in a fresh JVM, alternating which build
# goes first; options after the refs go to the runner (--help lists them), e.g.
#   rpcc-benchmarks/compare-builds.sh main h-engine --variants plain,chain2,seq2 --in-flight 1,16 --connections 1
# then prints old against new: median of the rounds, ratio new ÷ old, each round's ratio, allocation per
# operation and latency (compare-builds.py).
#
# --jmh: ChainBenchmark from each build's own jar, one JMH fork per build, benchmark of $BENCHES (default
# plainCall chain2Hops) and server executor per round (-bm sample; $JMH_ARGS, default -wi 6 -w 2 -i 4 -r 2;
# eventLoops $EVENT_LOOPS, default perNode), then the median of the forks' medians per row.
#
# Environment: ROUNDS, OUT (default /tmp/rpcc-compare-<time>: CSV or JSON and logs of every JVM),
# JVM_OPTS (default -Xms1g -Xmx1g), BUILDS (default /tmp/rpcc-builds), MVN_ARGS (default -o).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=throughput
if [ "${1:-}" = --jmh ]; then mode=jmh; shift; fi
if [ $# -lt 2 ]; then sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
old_ref=$1; new_ref=$2; shift 2
rounds=${ROUNDS:-3}
out=${OUT:-/tmp/rpcc-compare-$(date +%Y%m%d-%H%M%S)}
builds=${BUILDS:-/tmp/rpcc-builds}
mkdir -p "$out" "$builds"

# the JDK the rpcc launcher picks
java_home=$("$root/rpcc" java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.home = //p' | head -n1)
J="$java_home/bin/java"
F=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
read -r -a JO <<< "${JVM_OPTS:--Xms1g -Xmx1g}"

# prints the path of the shaded rpcc-benchmarks.jar for a ref (building it if needed) or a jar file
jar_of() {
  local ref=$1 sha dir tmp
  if [ -f "$ref" ]; then (cd "$(dirname "$ref")" && echo "$PWD/$(basename "$ref")"); return; fi
  sha=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}") || { echo "compare-builds: $ref is neither a jar nor a commit" >&2; exit 2; }
  dir=$builds/$sha
  if [ ! -f "$dir/rpcc-benchmarks/target/rpcc-benchmarks.jar" ]; then
    echo "$(date +%T) building $ref ($sha) in $dir (log: $dir.log)" >&2
    tmp=$(mktemp -d "$builds/.build-XXXXXX")
    git -C "$root" archive "$sha" | tar -x -C "$tmp"
    read -r -a MA <<< "${MVN_ARGS:--o}"
    if ! (cd "$tmp" && ./rpcc mvn -q "${MA[@]}" -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
        -pl rpcc-benchmarks -am package) > "$dir.log" 2>&1; then
      echo "compare-builds: building $ref failed; the end of $dir.log:" >&2; tail -n 30 "$dir.log" >&2; rm -rf "$tmp"; exit 1
    fi
    rm -rf "$dir"; mv "$tmp" "$dir"
  fi
  echo "$dir/rpcc-benchmarks/target/rpcc-benchmarks.jar"
}

old_jar=$(jar_of "$old_ref")
new_jar=$(jar_of "$new_ref")
{
  echo "old: $old_ref ($old_jar)"
  echo "new: $new_ref ($new_jar)"
  echo "mode: $mode, $rounds rounds, runner options: $*"
} | tee "$out/builds.txt"

if [ "$mode" = throughput ]; then
  src=$here/src/main/java/io/rpcc/benchmarks
  # the same source compiled against each build: a class that moved package between them (NodeBuilder
  # did) keeps the source compatible but not the binary
  mkdir -p "$out/runner-old" "$out/runner-new"
  "$java_home/bin/javac" -nowarn --release 21 -cp "$old_jar" -d "$out/runner-old" "$src/ThroughputBenchmark.java" "$src/GrpcEcho.java" "$src/BenchTransport.java"
  "$java_home/bin/javac" -nowarn --release 21 -cp "$new_jar" -d "$out/runner-new" "$src/ThroughputBenchmark.java" "$src/GrpcEcho.java" "$src/BenchTransport.java"
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for which in $order; do
      jar=$old_jar; [ "$which" = new ] && jar=$new_jar
      runner=$out/runner-$which
      echo "$(date +%T) round $round/$rounds: $which" >&2
      if ! "$J" "${F[@]}" "${JO[@]}" -cp "$runner:$jar" io.rpcc.benchmarks.ThroughputBenchmark --quiet --rounds 1 \
          --label "$which" --csv "$out/$which-$round.csv" "$@" > "$out/$which-$round.log" 2>&1; then
        if [ ! -f "$out/$which-$round.csv" ]; then
          echo "compare-builds: the $which build's run failed in round $round; the end of $out/$which-$round.log:" >&2
          tail -n 30 "$out/$which-$round.log" >&2; exit 1
        fi
        # operations failed, but the matrix ran: the summary lists the cells with failures
        echo "compare-builds: the $which build had failed operations in round $round:" >&2
        sed -n '/^Errors:/,$p' "$out/$which-$round.log" >&2
      fi
    done
  done
else
  jmh_args=${JMH_ARGS:--wi 6 -w 2 -i 4 -r 2}
  for round in $(seq 1 "$rounds"); do
    for bench in ${BENCHES:-plainCall chain2Hops}; do
      for ex in direct virtual; do
        if [ $((round % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
        for which in $order; do
          jar=$old_jar; [ "$which" = new ] && jar=$new_jar
          # shellcheck disable=SC2086
          "$J" "${F[@]}" -jar "$jar" "ChainBenchmark.$bench\$" -p serverExecutor=$ex -p eventLoops="${EVENT_LOOPS:-perNode}" \
            -f 1 $jmh_args -bm sample -tu us -jvmArgsAppend "${F[*]} ${JO[*]}" -rf json \
            -rff "$out/$which-$bench-$ex-$round.json" > "$out/$which-$bench-$ex-$round.log" 2>&1
          echo "$(date +%T) round $round/$rounds: $which $bench $ex" >&2
        done
      done
    done
  done
fi
echo
python3 "$here/compare-builds.py" "$out" | tee "$out/summary.md"
echo
echo "(raw results: $out)"
