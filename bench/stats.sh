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
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
TRACEKIT=${TRACEKIT:-$ROOT/build/tracekit}
CC=${CC:-cc}
TARGET=1.5

OUT="$HERE/out"
BIN="$OUT/bin"
TRACE="$OUT/trace_n${N}_c${CORES}_s${SEED}.btf"
die() { echo "stats.sh: $*" >&2; exit 2; }
[[ -x $TRACEKIT ]] || die "$TRACEKIT does not exist (build it with 'make')"
[[ -s $TRACE ]] || die "$TRACE is missing (make it with: N=$N bash bench/btf_read.sh)"
mkdir -p "$BIN"
if [[ ! -x $BIN/rusage || $HERE/rusage.c -nt $BIN/rusage ]]; then
	"$CC" -std=c11 -O2 -Wall -Wextra -Werror -o "$BIN/rusage.tmp" "$HERE/rusage.c"
	mv -f "$BIN/rusage.tmp" "$BIN/rusage"
fi
cat "$TRACE" > /dev/null # warm the page cache

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# measure SLUG COMMAND...: prints "median_seconds peak_rss_kb"
measure() {
	local slug=$1 i sec kb maxkb=0
	shift
	local -a secs=()
	for ((i = 1; i <= RUNS; i++)); do
		"$BIN/rusage" "$OUT/.m" "$@" > "$OUT/$slug.stdout" 2> "$OUT/$slug.stderr" ||
			die "$slug failed: $(head -n 3 "$OUT/$slug.stderr")"
		read -r sec kb _ < "$OUT/.m"
		secs+=("$sec")
		(( kb > maxkb )) && maxkb=$kb
	done
	echo "$(printf '%s\n' "${secs[@]}" | median) $maxkb"
}

echo "trace: $TRACE ($(stat -c %s "$TRACE") bytes), median of $RUNS runs"
read -r info_s info_kb < <(measure stats_bench_info "$TRACEKIT" info "$TRACE")
read -r stats_s stats_kb < <(measure stats_bench_stats "$TRACEKIT" stats --format csv "$TRACE")
ratio=$(awk -v a="$stats_s" -v b="$info_s" 'BEGIN { printf("%.2f", b > 0 ? a / b : 0) }')
printf '%-16s %9s %12s\n' command "median s" "peak RSS MB"
printf '%-16s %9.3f %12.1f\n' "tracekit info" "$info_s" "$(awk -v k="$info_kb" 'BEGIN { print k / 1024 }')"
printf '%-16s %9.3f %12.1f\n' "tracekit stats" "$stats_s" "$(awk -v k="$stats_kb" 'BEGIN { print k / 1024 }')"
echo "ratio stats/info: $ratio (target <= $TARGET)"
awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r + 0 <= t + 0) }' || { echo "FAIL"; exit 1; }
echo "PASS"
