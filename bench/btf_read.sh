#!/usr/bin/env bash
# btf_read.sh - benchmark the BTF reader of tracekit against peer tools.
#
#   bash bench/btf_read.sh
#
# Environment (all optional):
#   N=10000000     events in the generated trace (N=100000 for a quick run)
#   CORES=4        cores in the generated trace
#   SEED=1         generator seed
#   RUNS=5         timed runs per command; the median is reported
#   PEERS=1        0 = skip the peer rows (wc, mawk, python3 csv)
#   VALIDATE=0     1 = check the generated trace with bench/check_btf.awk
#   TRACEKIT=build/tracekit   the binary under test
#   CC=cc          compiler for the generator and the rusage helper
#
# Everything it writes goes to bench/out/ (gitignored): the helper binaries,
# the trace (trace_n<N>_c<CORES>_s<SEED>.btf, reused while it exists and is
# newer than the generator), the convert output (deleted after every run),
# the last run's stdout/stderr of every command and btf_results.tsv.
# Exit status: 0, or 1 when a tracekit row FAILs a target (a skipped row does
# not fail).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init btf

N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
PEERS=${PEERS:-1}
VALIDATE=${VALIDATE:-0}

# targets for our rows
INFO_GBPS=1.0
INFO_RSS_MB=64
CONVERT_GBPS=0.5

[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || bench_die "N must be a positive integer (got '$N')"
[[ $CORES =~ ^[0-9]+$ ]] || bench_die "CORES must be an integer (got '$CORES')"
[[ $SEED =~ ^[0-9]+$ ]] || bench_die "SEED must be an integer (got '$SEED')"

bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"

# --- the trace -------------------------------------------------------------

TRACE="$OUT/trace_n${N}_c${CORES}_s${SEED}.btf"
if [[ -s $TRACE && $TRACE -nt $BIN/gen_btf ]]; then
	echo "reusing $TRACE"
else
	rm -f "$OUT"/trace_*.btf.tmp
	echo "generating $TRACE ..."
	"$RUSAGE" "$OUT/.gen" "$BIN/gen_btf" -n "$N" -c "$CORES" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
	read -r gsec _ _ < "$OUT/.gen"
	gbytes=$(stat -c %s "$TRACE")
	awk -v s="$gsec" -v b="$gbytes" 'BEGIN { printf("generated %.1f MB in %.2f s (%.2f GB/s)\n", b / 1e6, s, b / s / 1e9) }'
	if [[ $VALIDATE == 1 ]]; then
		echo "validating with check_btf.awk ..."
		mawk -f "$HERE/check_btf.awk" "$TRACE" || bench_die "generated trace is invalid"
	fi
fi
bench_input "$TRACE"

# --- measuring ---------------------------------------------------------------

rm -f "$OUT"/*.stdout "$OUT"/*.stderr "$OUT/convert_out.btf"

# ours
if [[ -x $TRACEKIT ]]; then
	run_bench "tracekit info" tracekit_info "$INFO_GBPS" "$INFO_RSS_MB" - -- \
		"$TRACEKIT" info "$TRACE"
	CONV="$OUT/convert_out.btf"
	run_bench "tracekit convert (btf -> btf)" tracekit_convert "$CONVERT_GBPS" - "$CONV" -- \
		"$TRACEKIT" convert "$TRACE" "$CONV"
else
	echo "skip: $TRACEKIT does not exist yet (build it with 'make'); tracekit rows skipped"
	bench_skip "tracekit info" ">= $INFO_GBPS GB/s, < $INFO_RSS_MB MB"
	bench_skip "tracekit convert (btf -> btf)" ">= $CONVERT_GBPS GB/s"
fi

# peers
if [[ $PEERS != 0 ]]; then
	run_bench "wc -l" wc - - - -- wc -l "$TRACE"
	if command -v mawk > /dev/null; then
		# shellcheck disable=SC2016 # an awk program, not a shell expansion
		run_bench "mawk (count by event)" mawk - - - -- \
			mawk -F, '{n[$7]++} END{for(k in n) print k, n[k]}' "$TRACE"
	else
		echo "skip: mawk not installed"
	fi
	# resolve the real interpreter: a pyenv shim would add ~1 s of start-up
	PY=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null || true)
	if [[ -n $PY && -x $PY ]]; then
		run_bench "python3 csv.reader (count rows)" python_csv - - - -- \
			"$PY" -c 'import csv, sys
with open(sys.argv[1], newline="") as f:
    print(sum(1 for _ in csv.reader(f)))' "$TRACE"
	else
		echo "skip: python3 not found"
	fi
fi

# --- report ------------------------------------------------------------------

bench_report "BTF read benchmark: $(basename "$TRACE"), $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN { printf("%.1f MB", b / 1e6) }'), $N events, $CORES cores)"
# sanity: the peers' answers (the last run's stdout)
if [[ $PEERS != 0 ]]; then
	[[ -s $OUT/wc.stdout ]] && echo "wc -l:            $(awk '{ print $1 }' "$OUT/wc.stdout") lines"
	[[ -s $OUT/python_csv.stdout ]] && echo "python3 csv rows: $(cat "$OUT/python_csv.stdout")"
	[[ -s $OUT/mawk.stdout ]] && echo "mawk events:      $(sort "$OUT/mawk.stdout" | awk 'NF == 2 { printf("%s%s=%s", sep, $1, $2); sep = " " }')"
fi
if [[ -s $OUT/tracekit_info.stdout ]]; then
	echo "tracekit info (last run, first lines):"
	head -n 12 "$OUT/tracekit_info.stdout" | sed 's/^/    /'
fi
exit "$FAILED"
