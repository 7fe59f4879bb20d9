#!/usr/bin/env bash
# window.sh - a late time window (the last PERMILLE of the events) read
# through the library's query on a generated HTF trace and a generated
# S.Ha.R.K. dump: the HTF and S.Ha.R.K. readers skip ahead to the start
# (only the state of the records before it), next to the peer measured
# in the same rounds: the same events read the previous way, every event
# decoded and those before the start dropped (bench/window.c --filter).
# Both print the same count and checksum (checked).
#
#   bash bench/window.sh
#
# Environment (all optional):
#   HTF_N=5000000     records of the HTF trace (gen_htf, CORES core sections)
#   CORES=4
#   SHARK_N=8000000   records of the dump (gen_shark)
#   PERMILLE=990      the window starts at the event at PERMILLE / 1000 of
#                     the trace (990: the last 1 %)
#   RUNS=5            rounds; the median is reported
#   TRACEKIT=build/tracekit  its libtracekit.a is linked into window.c
#   CC=cc
#
# Writes to bench/out/ (gitignored): the binaries, the traces
# (htf_n<N>_c<CORES>.htf and shark_n<N>.bin, shared with htf_read.sh and
# shark_read.sh) and window_results.tsv.  No targets: the rows say what
# the skip saves; the ratio lines say it as peer / skip, of the wall
# medians and of CPU seconds (user + sys, RUNS more rounds).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init window
HTF_N=${HTF_N:-5000000}
CORES=${CORES:-4}
SHARK_N=${SHARK_N:-8000000}
PERMILLE=${PERMILLE:-990}
[[ $PERMILLE =~ ^[0-9]+$ && $PERMILLE -lt 1000 ]] || bench_die "PERMILLE must be below 1000 (got '$PERMILLE')"
lib="$(dirname "$TRACEKIT")/libtracekit.a"
[[ -f $lib ]] || bench_die "no $lib (build first)"
bench_build "$HERE/gen_htf.c" "$BIN/gen_htf"
bench_build "$HERE/gen_shark.c" "$BIN/gen_shark"
WIN="$BIN/window.$(printf '%s' "$lib" | cksum | cut -d' ' -f1)"
[[ -x $WIN && $lib -nt $WIN ]] && rm -f "$WIN"
bench_build "$HERE/window.c" "$WIN" -I"$ROOT/include" "$lib" \
	-lz -lzstd -lpthread -lexpat -lsqlite3 -lelf -lyaml -lnettle
HTF="$OUT/htf_n${HTF_N}_c${CORES}.htf"
if [[ ! -s $HTF || $BIN/gen_htf -nt $HTF ]]; then
	echo "generating $HTF ..."
	"$BIN/gen_htf" -n "$HTF_N" -c "$CORES" "$HTF.tmp"
	mv -f "$HTF.tmp" "$HTF"
fi
SHARK="$OUT/shark_n${SHARK_N}.bin"
if [[ ! -s $SHARK || $BIN/gen_shark -nt $SHARK ]]; then
	echo "generating $SHARK ..."
	"$BIN/gen_shark" -n "$SHARK_N" "$SHARK.tmp"
	mv -f "$SHARK.tmp" "$SHARK"
fi
HTF_START=$("$WIN" --at "$PERMILLE" "$HTF")
SHARK_START=$("$WIN" --from shark --at "$PERMILLE" "$SHARK")
for f in htf shark; do
	if [[ $f == htf ]]; then t=$HTF s=$HTF_START o=(); else t=$SHARK s=$SHARK_START o=(--from shark); fi
	a=$("$WIN" "${o[@]}" "$s" "$t") b=$("$WIN" "${o[@]}" --filter "$s" "$t")
	[[ $a == "$b" ]] || bench_die "$f: the skip gives '$a', the full read '$b'"
	echo "$f: $a"
done
bench_input "$HTF"
run_bench "HTF window, skip" htf_skip - - - -- "$WIN" "$HTF_START" "$HTF"
run_bench "HTF window, full read (peer)" htf_full - - - -- "$WIN" --filter "$HTF_START" "$HTF"
bench_input "$SHARK"
run_bench "S.Ha.R.K. window, skip" shark_skip - - - -- "$WIN" --from shark "$SHARK_START" "$SHARK"
run_bench "S.Ha.R.K. window, full read (peer)" shark_full - - - -- "$WIN" --from shark --filter "$SHARK_START" "$SHARK"
bench_report "late window: the last $((1000 - PERMILLE))/1000 of the events; HTF $HTF_N records, $CORES cores; S.Ha.R.K. $SHARK_N records" \
	"GB/s is of the whole input (the window's start is found by the skip)"
med() { awk -F'\t' -v l="$1" '$1 == l { print $2 }' "$RESULTS"; }
for f in HTF S.Ha.R.K.; do
	awk -v a="$(med "$f window, full read (peer)")" -v b="$(med "$f window, skip")" -v f="$f" \
		'BEGIN { if (b > 0) printf("%s wall: full read / skip = %.2f\n", f, a / b) }'
done
# CPU seconds (user + sys) in RUNS more interleaved rounds: on a shared
# host they move far less than the wall time
cpu() { "$RUSAGE" "$OUT/.w" "$@" > /dev/null 2>&1 || bench_die "$* failed"; awk '{ print $4 }' "$OUT/.w"; }
HS=() HF=() SS=() SF=()
for ((r = 1; r <= RUNS; r++)); do
	HS+=("$(cpu "$WIN" "$HTF_START" "$HTF")")
	HF+=("$(cpu "$WIN" --filter "$HTF_START" "$HTF")")
	SS+=("$(cpu "$WIN" --from shark "$SHARK_START" "$SHARK")")
	SF+=("$(cpu "$WIN" --from shark --filter "$SHARK_START" "$SHARK")")
done
for f in HTF S.Ha.R.K.; do
	if [[ $f == HTF ]]; then a=("${HS[@]}") b=("${HF[@]}"); else a=("${SS[@]}") b=("${SF[@]}"); fi
	awk -v s="$(printf '%s\n' "${a[@]}" | bench_median)" -v p="$(printf '%s\n' "${b[@]}" | bench_median)" -v f="$f" -v n="$RUNS" \
		'BEGIN { printf("%s CPU s (user+sys, median of %d): skip %.3f, full read %.3f, full read / skip = %.2f\n", f, n, s, p, s > 0 ? p / s : 0) }'
done
exit "$FAILED"
