#!/usr/bin/env bash
# htf_read.sh - benchmark the HTF reader (the k-way merge of the core
# sections) on a generated multi-core trace.
#
#   bash bench/htf_read.sh
#
# Environment (all optional):
#   N=20000000     records in the generated trace (about 15 bytes each)
#   CORES=4        core sections
#   RUNS=3         timed runs per command; the median is reported
#   TRACEKIT=build/tracekit   the binary under test
#   BASE=        another tracekit binary (e.g. an older build), run on the
#                same traces in the same rounds (`info --threads 0` when
#                its `--help` lists --threads), for a side-by-side table
#   BTF_N=10000000 the BTF peer's events (btf_read.sh's trace, made here
#                if missing: gen_btf -n BTF_N -c 4 -s 1)
#   CC=cc
#
# Writes to bench/out/ (gitignored): gen_htf, rusage, the trace
# (htf_n<N>_c<CORES>.htf, reused while newer than the generator) and
# htf_results.tsv.  Rows: `tracekit info` (target >= 1 GB/s of hex text,
# peak RSS < 64 MB), `tracekit info` on a quarter of the records (its RSS
# next to the full row's shows memory flat in the trace size), the reader
# alone (bench/reader_next.c: the library's tk_reader_next() in a loop that
# folds the events into a checksum, no per-event work of its own; linked
# with libtracekit.a next to TRACEKIT), `tracekit convert` to BTF,
# `tracekit info` on a trace of N/4 records that all carry a `//` comment,
# with a comment line every 7 records (gen_htf -k 7: every record through
# the line-at-a-time path; no target), the BASE rows if asked, and `wc -l`
# as the lower bound.
# Exit status: 0, or 1 when a tracekit row FAILs a target.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-3}
. "$HERE/lib.sh"
bench_init htf

N=${N:-20000000}
CORES=${CORES:-4}
INFO_GBPS=1.0
INFO_RSS_MB=64

[[ $N =~ ^[0-9]+$ && $N -ge 4 ]] || bench_die "N must be an integer >= 4 (got '$N')"
[[ $CORES =~ ^[0-9]+$ && $CORES -gt 0 ]] || bench_die "CORES must be a positive integer (got '$CORES')"
[[ -x $TRACEKIT ]] || bench_die "$TRACEKIT does not exist (build it with 'make')"
bench_build "$HERE/gen_htf.c" "$BIN/gen_htf"
bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"
# the reader alone, linked with the library of the binary under test
bench_reader_next

gen() { # gen RECORDS FILE [gen_htf options]
	if [[ ! -s $2 || $BIN/gen_htf -nt $2 ]]; then
		echo "generating $2 ..."
		"$BIN/gen_htf" -n "$1" -c "$CORES" "${@:3}" "$2.tmp"
		mv -f "$2.tmp" "$2"
	fi
}
TRACE="$OUT/htf_n${N}_c${CORES}.htf"
QUARTER="$OUT/htf_n$((N / 4))_c${CORES}.htf"
COMMENTS="$OUT/htf_n$((N / 4))_c${CORES}_k7.htf"
gen "$N" "$TRACE"
gen "$((N / 4))" "$QUARTER"
gen "$((N / 4))" "$COMMENTS" -k 7
BTF_N=${BTF_N:-10000000}
[[ $BTF_N =~ ^[0-9]+$ && $BTF_N -gt 0 ]] || bench_die "BTF_N must be a positive integer (got '$BTF_N')"
BTF="$OUT/trace_n${BTF_N}_c4_s1.btf"
if [[ ! -s $BTF || $BIN/gen_btf -nt $BTF ]]; then
	echo "generating $BTF ..."
	"$BIN/gen_btf" -n "$BTF_N" -c 4 -s 1 "$BTF.tmp"
	mv -f "$BTF.tmp" "$BTF"
fi
BASE=${BASE:-}
BASE_OPT=()
if [[ -n $BASE ]]; then
	[[ -x $BASE ]] || bench_die "BASE $BASE is not an executable"
	"$BASE" info --help 2>&1 | grep -q -- --threads && BASE_OPT=(--threads 0)
fi

bench_input "$QUARTER"
run_bench "tracekit info (N/4)" htf_info_quarter "$INFO_GBPS" "$INFO_RSS_MB" - -- \
	"$TRACEKIT" info "$QUARTER"
bench_input "$COMMENTS"
run_bench "tracekit info (N/4, all commented)" htf_info_comments - "$INFO_RSS_MB" - -- \
	"$TRACEKIT" info "$COMMENTS"
[[ -z $BASE ]] || run_bench "BASE info ${BASE_OPT[*]} (N/4, all commented)" htf_base_comments - - - -- \
	"$BASE" info "${BASE_OPT[@]}" "$COMMENTS"
bench_input "$TRACE"
BYTES_HTF=$BYTES
run_bench "tracekit info" htf_info "$INFO_GBPS" "$INFO_RSS_MB" - -- \
	"$TRACEKIT" info "$TRACE"
[[ -z $BASE ]] || run_bench "BASE info ${BASE_OPT[*]}" htf_base_info - - - -- \
	"$BASE" info "${BASE_OPT[@]}" "$TRACE"
if [[ -n $READER_NEXT ]]; then
	run_bench "reader alone (reader_next)" htf_next "$INFO_GBPS" "$INFO_RSS_MB" - -- \
		"$READER_NEXT" "$TRACE"
else
	bench_skip "reader alone (reader_next)" "no libtracekit.a beside $TRACEKIT"
fi
run_bench "tracekit convert -> btf" htf_convert - - "$OUT/htf_convert_out.btf" -- \
	"$TRACEKIT" convert -q "$TRACE" "$OUT/htf_convert_out.btf"
run_bench "wc -l (lower bound)" htf_wc - - - -- wc -l "$TRACE"
bench_input "$BTF"
BTF_BYTES=$BYTES
run_bench "tracekit info on BTF (per-byte peer)" htf_btf_info - - - -- \
	"$TRACEKIT" info "$BTF"

BYTES=$BYTES_HTF # (the BTF row's bench_input set it)
bench_report "HTF read benchmark: $(basename "$TRACE"), $BYTES bytes, $N records, $CORES cores" \
	"the (N/4) row's GB/s is of the quarter file; its peak RSS next to the full row's shows memory flat"

# HTF/BTF per byte: info's bytes per second and per CPU second
gbps() { awk -F'\t' -v l="$1" '$1 == l { print $3 }' "$RESULTS"; }
cpu_s() { # cpu_s FILE: user + sys seconds of one `tracekit info FILE`
	local TIMEFORMAT='%U %S' t
	t=$({ time "$TRACEKIT" info "$1" > /dev/null; } 2>&1) || bench_die "info $1 failed"
	awk -v t="$t" 'BEGIN { split(t, a, " "); print a[1] + a[2] }'
}
HTF_CPU=() BTF_CPU=()
for ((r = 1; r <= RUNS; r++)); do
	HTF_CPU+=("$(cpu_s "$TRACE")")
	BTF_CPU+=("$(cpu_s "$BTF")")
done
hc=$(printf '%s\n' "${HTF_CPU[@]}" | bench_median)
bc=$(printf '%s\n' "${BTF_CPU[@]}" | bench_median)
awk -v h="$(gbps "tracekit info")" -v b="$(gbps "tracekit info on BTF (per-byte peer)")" \
	-v hb="$BYTES_HTF" -v bb="$BTF_BYTES" -v hc="$hc" -v bc="$bc" 'BEGIN {
	printf("HTF/BTF per byte, wall: %.0f / %.0f MB/s = %.2f\n", h * 1000, b * 1000, b > 0 ? h / b : 0)
	printf("HTF/BTF per byte, CPU (user+sys, median of the extra rounds): %.0f / %.0f MB per CPU s = %.2f\n",
	       hb / hc / 1e6, bb / bc / 1e6, (hb / hc) / (bb / bc))
}'
exit "$FAILED"
