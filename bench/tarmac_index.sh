#!/usr/bin/env bash
# tarmac_index.sh - benchmark the index of `tracekit tarmac regs`, `mem`
# and `history` (issue 43): how fast it is built, how large it is beside
# the log, and how long a query takes with it, next to `wc -l` on the same
# generated log in the same run.  Timing harness: bench/lib.sh.
#
#   bash bench/tarmac_index.sh
#
# Environment (all optional; RUNS, TRACEKIT, CC as in bench/lib.sh):
#   N=1000000000   approximate bytes of the generated log (N=100000000 for a
#                  quick run); the log is bench/gen_tarmac.c's, named and
#                  reused as bench/tarmac_read.sh does
#   VARIANT=fm     fm or m (bench/gen_tarmac.c)
#   SEED=1         generator seed (and of the query points)
#   QUERIES=15     queries timed at random points (regs --line, regs
#                  --instr, mem --line in turn)
#   PEERS=1        0 = skip the wc -l row
#
# Rows: "tracekit index build" builds the index beside the log (the index
# is deleted before each run, and its size after the first is printed;
# the command is `tarmac regs LOG --line 1`, whose query is the first
# record); "wc -l" reads the same log.  Then the index is built once and
# QUERIES queries run with it, one at a time, timed with the process
# start and the index's load and check included; their median is the
# query time.  Arm's tarmac-trace-utilities (tarmac-index) cannot be run
# here: its row gives its published behaviour (about 16 MB/s to build,
# an index about 5 times the log's size), not a measurement.
# Targets: build >= 200 MB/s, index <= 0.5 x the log, query < 50 ms.
# Exit status: 0, or 1 when a target is missed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
bench_init tarmac_index

N=${N:-1000000000}
VARIANT=${VARIANT:-fm}
SEED=${SEED:-1}
QUERIES=${QUERIES:-15}
PEERS=${PEERS:-1}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || bench_die "N must be a positive integer (got '$N')"
[[ $VARIANT == fm || $VARIANT == m ]] || bench_die "VARIANT must be fm or m (got '$VARIANT')"
[[ $SEED =~ ^[0-9]+$ ]] || bench_die "SEED must be an integer (got '$SEED')"
[[ $QUERIES =~ ^[0-9]+$ && $QUERIES -gt 0 ]] || bench_die "QUERIES must be a positive integer"
[[ -x $TRACEKIT ]] || bench_die "$TRACEKIT does not exist yet (build it with 'make')"

BUILD_GBPS=0.2
BUILD_RSS_MB=256
MAX_RATIO=0.5
MAX_QUERY_MS=50

bench_build "$HERE/gen_tarmac.c" "$BIN/gen_tarmac"
TRACE="$OUT/tarmac_b${N}_${VARIANT}_s${SEED}.tarmac"
if [[ -s $TRACE && $TRACE -nt $BIN/gen_tarmac ]]; then
	echo "reusing $TRACE"
else
	rm -f "$OUT"/tarmac_*.tarmac "$OUT"/tarmac_*.tarmac.tmp "$OUT"/tarmac_*.tkidx
	echo "generating $TRACE ..."
	"$RUSAGE" "$OUT/.gen" "$BIN/gen_tarmac" -b "$N" -v "$VARIANT" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
INDEX="$TRACE.tkidx"
bench_input "$TRACE"

run_bench "tracekit index build" tarmac_index_build "$BUILD_GBPS" "$BUILD_RSS_MB" "$INDEX" -- \
	"$TRACEKIT" tarmac regs "$TRACE" --line 1
if [[ $PEERS != 0 ]]; then
	run_bench "wc -l" tarmac_index_wc - - - -- wc -l "$TRACE"
fi
bench_report "Tarmac index benchmark: $(basename "$TRACE"), $BYTES bytes, variant $VARIANT"
bench_row "tarmac-index (Arm, published)" - 0.016 - "(peer, not run here)" "index ~5x the log"
printf '%s\n' "${ROWS[-1]}"

# the index once (its CPU time too), then the queries
rm -f "$INDEX"
"$RUSAGE" "$OUT/.m" "$TRACEKIT" tarmac regs "$TRACE" --line 1 > /dev/null
read -r _ _ _ BUILD_CPU < "$OUT/.m"
ISIZE=$(stat -c %s "$INDEX")
RATIO=$(awk -v i="$ISIZE" -v b="$BYTES" 'BEGIN { printf("%.4f", i / b) }')
LINES=$(awk '{ print $1 }' "$OUT/tarmac_index_wc.stdout" 2>/dev/null || true)
[[ -n $LINES ]] || LINES=$(wc -l < "$TRACE")
# executed instructions: about one line in 2.2 (bench/gen_tarmac.c's
# mix), half of them on cpu0 in the fm variant
NEXEC=$(( LINES / 3 ))
CPU=()
if [[ $VARIANT == fm ]]; then
	CPU=(--cpu cpu0)
	NEXEC=$(( LINES / 6 ))
fi
RANDOM=$SEED
MS=()
CPUMS=()
for ((q = 0; q < QUERIES; q++)); do
	r=$(( (RANDOM * 32768 + RANDOM) ))
	case $((q % 3)) in
	0) args=(regs "$TRACE" "${CPU[@]}" --line $(( r % LINES + 1 ))) ;;
	1) args=(regs "$TRACE" "${CPU[@]}" --instr $(( r % NEXEC + 1 ))) ;;
	*) args=(mem "$TRACE" "$(printf '%x' $(( 0x20000000 + (r % 4095) * 16 )))" 64 \
		 --line $(( r % LINES + 1 ))) ;;
	esac
	"$RUSAGE" "$OUT/.m" "$TRACEKIT" tarmac "${args[@]}" > "$OUT/tarmac_index_query.stdout" \
		2> "$OUT/tarmac_index_query.stderr" || bench_die "query failed: tarmac ${args[*]}"
	read -r sec _ _ cpu < "$OUT/.m"
	MS+=("$(awk -v s="$sec" 'BEGIN { printf("%.2f", s * 1000) }')")
	CPUMS+=("$(awk -v s="$cpu" 'BEGIN { printf("%.2f", s * 1000) }')")
	echo "  query ${args[0]} ${args[*]:2}: ${MS[-1]} ms (CPU ${CPUMS[-1]} ms)"
done
QMED=$(printf '%s\n' "${MS[@]}" | bench_median)
QCPU=$(printf '%s\n' "${CPUMS[@]}" | bench_median)
echo
BUILD_S=$(awk -F'\t' '$1 == "tracekit index build" { print $2 }' "$RESULTS" | tail -n 1)
mbps() { awk -v b="$BYTES" -v s="$1" 'BEGIN { printf("%.0f", s > 0 ? b / s / 1e6 : 0) }'; }
echo "figures (wall time; CPU time, user + system, in brackets: the host is shared,"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
r=PASS
awk -v x="$(mbps "$BUILD_S")" 'BEGIN { exit !(x + 0 >= 200) }' || { r=FAIL; FAILED=1; }
echo "index build: $(mbps "$BUILD_S") MB/s ($(mbps "$BUILD_CPU") MB/s of CPU time); target >= 200 $r"
echo "             Arm's tarmac-index: about 16 MB/s (published, not run here)"
r=PASS
awk -v x="$RATIO" -v m="$MAX_RATIO" 'BEGIN { exit !(x + 0 <= m + 0) }' || { r=FAIL; FAILED=1; }
echo "index size:  $ISIZE bytes, $RATIO x the log; target <= $MAX_RATIO $r"
echo "             Arm's tarmac-index: about 5 x the log (published)"
r=PASS
awk -v x="$QMED" -v m="$MAX_QUERY_MS" 'BEGIN { exit !(x + 0 < m + 0) }' || { r=FAIL; FAILED=1; }
echo "query:       median $QMED ms ($QCPU ms of CPU time) of $QUERIES at random points; target < $MAX_QUERY_MS ms $r"
if [[ $PEERS != 0 ]]; then
	WC_S=$(awk -F'\t' '$1 == "wc -l" { print $2 }' "$RESULTS" | tail -n 1)
	echo "wc -l:       $(mbps "$WC_S") MB/s ($LINES lines)"
fi
exit "$FAILED"
