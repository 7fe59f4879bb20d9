#!/usr/bin/env bash
# stats.sh - `tracekit stats` against `tracekit info` on the same trace
# (the issue's target: stats takes at most 1.5x the time of info, memory flat),
# and `stats --chain` and `stats --percentiles` beside plain `stats`
# (issue 41: --percentiles at most 2x the peak memory and 2x the time of
# stats; --chain is printed, with no target).
#
#   bash bench/stats.sh
#
# Environment (all optional):
#   N=10000000 CORES=4 SEED=1   which trace of bench/btf_read.sh (it is made
#                               by that script: run it first if it is missing)
#   RUNS=3                      timed runs per command; the median is reported
#   TRACEKIT=build/tracekit     the binary under test
#   CC=cc                       compiler for the rusage helper
#   CHAINS="E2E=S48,S57,S55 L1=S24,S42"  the chains of the --chain row (signals
#                               of bench/gen_btf.c's trace that runnables read
#                               and then write: two links, and one)
#   PERCENTILES=50,90,99,99.9   the --percentiles row
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
CHAINS=${CHAINS:-"E2E=S48,S57,S55 L1=S24,S42"}
PERCENTILES=${PERCENTILES:-50,90,99,99.9}
chain_args=()
for c in $CHAINS; do chain_args+=(--chain "$c"); done
run_bench "tracekit stats --format csv ${chain_args[*]}" stats_bench_chain - - - -- \
	"$TRACEKIT" stats --format csv "${chain_args[@]}" "$TRACE"
run_bench "tracekit stats --format csv --percentiles $PERCENTILES" stats_bench_pct - - - -- \
	"$TRACEKIT" stats --format csv --percentiles "$PERCENTILES" "$TRACE"
bench_report "stats benchmark: $(basename "$TRACE"), $BYTES bytes"

# the rows of --chain and --percentiles against plain stats (rows 3, 4, 5
# of the results: median seconds, peak RSS)
awk -F'\t' 'NR == 3 { s = $2; m = $4 } NR == 4 { cs = $2; cm = $4 } NR == 5 { ps = $2; pm = $4 }
	END {
		if (s > 0 && m > 0) {
			printf("stats --chain / stats: time %.2f, peak memory %.2f\n", cs / s, cm / m)
			printf("stats --percentiles / stats: time %.2f (target <= 2), peak memory %.2f (target <= 2)\n", ps / s, pm / m)
		}
	}' "$RESULTS"

info_s=$(awk -F'\t' 'NR == 2 { print $2 }' "$RESULTS")
stats_s=$(awk -F'\t' 'NR == 3 { print $2 }' "$RESULTS")
[[ $info_s != - && $stats_s != - ]] || bench_die "a command failed (see $OUT/stats_bench_*.stderr)"
ratio=$(awk -v a="$stats_s" -v b="$info_s" 'BEGIN { printf("%.2f", b > 0 ? a / b : 0) }')
echo "ratio stats/info: $ratio (target <= $TARGET)"
awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r + 0 <= t + 0) }' || { echo "FAIL"; exit 1; }
echo "PASS"
