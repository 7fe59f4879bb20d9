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
#   CC=cc
#
# Writes to bench/out/ (gitignored): gen_htf, rusage, the trace
# (htf_n<N>_c<CORES>.htf, reused while newer than the generator).
# Rows: `tracekit info` (target >= 1 GB/s of hex text, peak RSS flat),
# `tracekit convert` to BTF, and `wc -l` as the lower bound.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
N=${N:-20000000}
CORES=${CORES:-4}
RUNS=${RUNS:-3}
TRACEKIT=${TRACEKIT:-$ROOT/build/tracekit}
CC=${CC:-cc}
OUT="$HERE/out"
BIN="$OUT/bin"
mkdir -p "$BIN"
for p in gen_htf rusage; do
	if [[ ! -x $BIN/$p || $HERE/$p.c -nt $BIN/$p ]]; then
		"$CC" -std=c11 -O2 -Wall -Wextra -Werror -o "$BIN/$p" "$HERE/$p.c"
	fi
done
TRACE="$OUT/htf_n${N}_c${CORES}.htf"
if [[ ! -s $TRACE || $BIN/gen_htf -nt $TRACE ]]; then
	echo "generating $TRACE ..."
	"$BIN/gen_htf" -n "$N" -c "$CORES" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
bytes=$(stat -c %s "$TRACE")
cat "$TRACE" > /dev/null; cat "$TRACE" > /dev/null
[[ -x $TRACEKIT ]] || { echo "no $TRACEKIT (build first)"; exit 2; }

row() { # row NAME CMD...: median wall time, GB/s, max RSS
	local name=$1; shift
	local times=() rss=0 i sec kb
	for ((i = 0; i < RUNS; i++)); do
		"$BIN/rusage" "$OUT/.r" "$@" > /dev/null 2> "$OUT/.err" || { echo "$name: FAILED"; cat "$OUT/.err"; return 1; }
		read -r sec kb _ < "$OUT/.r"
		times+=("$sec")
		(( kb > rss )) && rss=$kb
	done
	sec=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")
	awk -v n="$name" -v s="$sec" -v b="$bytes" -v r="$rss" \
		'BEGIN { printf("%-28s %8.3f s %7.2f GB/s %8.1f MB RSS\n", n, s, b / s / 1e9, r / 1024) }'
}
printf 'trace: %s (%.1f MB, %s records, %s cores)\n' "$TRACE" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "$N" "$CORES"
row "tracekit info" "$TRACEKIT" info "$TRACE"
row "tracekit convert -> btf" "$TRACEKIT" convert -q "$TRACE" "$OUT/htf_convert_out.btf"
rm -f "$OUT/htf_convert_out.btf"
row "wc -l (lower bound)" wc -l "$TRACE"
