#!/usr/bin/env bash
# atf_read.sh - benchmark the ATF reader (expat, streaming) on a generated
# multi-core trace, with `xmllint --stream --noout` on the same file in the
# same run as the peer (an XML well-formedness pass with no model at all).
#
#   bash bench/atf_read.sh
#
# Environment (all optional; see bench/lib.sh for RUNS, TRACEKIT, CC):
#   N=4000000      TraceEntry elements in the generated trace (~65 bytes each)
#   CORES=2        Resources (cores)
#
# Writes to bench/out/ (gitignored): gen_atf, the trace
# (atf_n<N>_c<CORES>.atf, reused while newer than the generator).
# Targets: `tracekit info` >= 0.15 GB/s (150 MB/s) with a peak RSS that does
# not grow with the trace (< 64 MB here); run at two sizes to see it flat.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init atf
N=${N:-4000000}
CORES=${CORES:-2}
bench_build "$HERE/gen_atf.c" "$BIN/gen_atf"
[[ -x $TRACEKIT ]] || bench_die "no $TRACEKIT (build first)"

gen() { # gen N: the trace path
	local f="$OUT/atf_n$1_c${CORES}.atf"
	if [[ ! -s $f || $BIN/gen_atf -nt $f ]]; then
		echo "generating $f ..." >&2
		"$BIN/gen_atf" -n "$1" -c "$CORES" "$f.tmp"
		mv -f "$f.tmp" "$f"
	fi
	echo "$f"
}

# memory flat in the trace size: a quarter of the trace first
SMALL=$(gen $((N / 4)))
bench_input "$SMALL"
run_bench "tracekit info (N/4)" info_small 0.15 64 - -- "$TRACEKIT" info -q "$SMALL"
TRACE=$(gen "$N")
bench_input "$TRACE"
run_bench "tracekit info" info 0.15 64 - -- "$TRACEKIT" info -q "$TRACE"
run_bench "tracekit convert -> btf" convert - - "$OUT/atf_out.btf" -- "$TRACEKIT" convert -q "$TRACE" "$OUT/atf_out.btf"
if command -v xmllint > /dev/null; then
	run_bench "xmllint --stream --noout (peer)" xmllint - - - -- xmllint --stream --noout "$TRACE"
else
	bench_skip "xmllint --stream --noout (peer)" "(peer)"
fi
bench_report "ATF read benchmark: $(basename "$TRACE"), $BYTES bytes, $N entries, $CORES cores" \
	"the (N/4) row reads a quarter of the trace: its peak RSS next to the full row's shows memory flat in the trace size"
exit "$FAILED"
