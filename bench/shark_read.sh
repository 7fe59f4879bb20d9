#!/usr/bin/env bash
# shark_read.sh - benchmark the S.Ha.R.K. FTrace reader on a generated dump.
#
#   bash bench/shark_read.sh
#
# Environment (all optional):
#   N=67108864     records in the generated dump (16 bytes each: 1 GiB)
#   RUNS=5         timed runs per command; the median is reported
#   TRACEKIT=build/tracekit   the binary under test
#   CC=cc
#
# Writes to bench/out/ (gitignored): gen_shark, the dump
# (shark_n<N>.bin, reused while newer than the generator).
# Rows: `tracekit info` (target >= 2 GB/s of records; no RSS target: the
# file is mapped and scanned once for its order and clock, so its pages
# count in the RSS as page cache), and as
# peers reading the same file in the same run: `wc -l` (reads every byte)
# and `dd` to /dev/null (the bare read loop).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init shark_read
N=${N:-67108864}
bench_build "$HERE/gen_shark.c" "$BIN/gen_shark"
TRACE="$OUT/shark_n${N}.bin"
if [[ ! -s $TRACE || $BIN/gen_shark -nt $TRACE ]]; then
	echo "generating $TRACE ..."
	"$BIN/gen_shark" -n "$N" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
[[ -x $TRACEKIT ]] || bench_die "no $TRACEKIT (build first)"
bench_input "$TRACE"
run_bench "tracekit info (shark)" info 2 - - -- "$TRACEKIT" info -q --from shark "$TRACE"
run_bench "wc -l (peer)" wc - - - -- wc -l "$TRACE"
run_bench "dd bs=1M (peer)" dd - - - -- dd if="$TRACE" of=/dev/null bs=1M
bench_report "S.Ha.R.K. FTrace reader: $N records ($BYTES bytes)" \
	"tracekit info reads every record (decode, map to events, counts)"
exit "$FAILED"
