#!/usr/bin/env bash
# stats.sh - `tracekit stats` against `tracekit info` on the same trace
# (the issue's target: stats takes at most 1.5x the time of info, memory flat).
#
#   bash bench/stats.sh
#
# Environment (all optional):
#   N=10000000 CORES=4 SEED=1   which trace of bench/btf_read.sh (it is made
#                               by that script: run it first if it is missing)
#   RUNS=3                      timed runs per command; the median is reported
#   TRACEKIT=build/tracekit     the binary under test
#   CC=cc                       compiler for the rusage helper
# Exit status: 0, or 1 when the ratio is above the target.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-3}
. "$HERE/lib.sh"
bench_init stats

N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
TARGET=1.5

TRACE="$OUT/trace_n${N}_c${CORES}_s${SEED}.btf"
[[ -x $TRACEKIT ]] || bench_die "$TRACEKIT does not exist (build it with 'make')"
[[ -s $TRACE ]] || bench_die "$TRACE is missing (make it with: N=$N bash bench/btf_read.sh)"
bench_input "$TRACE"

run_bench "tracekit info (the peer)" stats_bench_info - - - -- "$TRACEKIT" info "$TRACE"
run_bench "tracekit stats --format csv" stats_bench_stats - - - -- "$TRACEKIT" stats --format csv "$TRACE"
bench_report "stats benchmark: $(basename "$TRACE"), $BYTES bytes"

info_s=$(awk -F'\t' 'NR == 2 { print $2 }' "$RESULTS")
stats_s=$(awk -F'\t' 'NR == 3 { print $2 }' "$RESULTS")
[[ $info_s != - && $stats_s != - ]] || bench_die "a command failed (see $OUT/stats_bench_*.stderr)"
ratio=$(awk -v a="$stats_s" -v b="$info_s" 'BEGIN { printf("%.2f", b > 0 ? a / b : 0) }')
echo "ratio stats/info: $ratio (target <= $TARGET)"
awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r + 0 <= t + 0) }' || { echo "FAIL"; exit 1; }
echo "PASS"
