#!/usr/bin/env bash
# shark_read.sh - benchmark the S.Ha.R.K. FTrace reader on a generated dump.
#
#   bash bench/shark_read.sh
#
# Environment (all optional):
#   N=67108864     records in the generated dump (16 bytes each: 1 GiB)
#   RUNS=5         timed runs per command; the median is reported
#   TRACEKIT=build/tracekit   the binary under test (its libtracekit.a,
#                  beside it, is linked into the reader-only program)
#   CC=cc
#
# Writes to bench/out/ (gitignored): gen_shark, reader_next, the dump
# (shark_n<N>.bin, reused while newer than the generator).
# Rows:
#   `tracekit info`  target >= 2 GB/s of records and a flat RSS (< 64 MB:
#                    both passes, the scan at open and the read, pread()
#                    the dump into 256 KB buffers)
#   `tracekit info --threads 0`  the same on one thread (by default, for
#                    inputs of 8 MiB or more, the reader maps records to
#                    events on a second thread while that is faster than
#                    doing it itself; docs/shark.md): no target, for
#                    comparison
#   `reader_next`    the reader alone (bench/reader_next.c: tk_reader_next in
#                    a loop, the times folded into a checksum), same target:
#                    what is left of info's time is info's own counting
#   `reader_next --threads 0`  the reader alone on one thread: no target
#   peers reading the same file in the same run: `wc -l` (reads every
#   byte) and `dd` to /dev/null (the bare read loop).
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
# the reader alone, linked with the library of the binary under test
bench_reader_next
bench_input "$TRACE"
run_bench "tracekit info (shark)" info 2 64 - -- "$TRACEKIT" info -q --from shark "$TRACE"
run_bench "tracekit info --threads 0" info0 - - - -- "$TRACEKIT" info -q --threads 0 --from shark "$TRACE"
if [[ -n $READER_NEXT ]]; then
	run_bench "reader only (reader_next)" shark_next 2 64 - -- "$READER_NEXT" --from shark "$TRACE"
	run_bench "reader only --threads 0" shark_next_1t - 64 - -- "$READER_NEXT" --from shark --threads 0 "$TRACE"
else
	bench_skip "reader only (reader_next)" "no libtracekit.a beside $TRACEKIT"
fi
run_bench "wc -l (peer)" wc - - - -- wc -l "$TRACE"
run_bench "dd bs=1M (peer)" dd - - - -- dd if="$TRACE" of=/dev/null bs=1M
bench_report "S.Ha.R.K. FTrace reader: $N records ($BYTES bytes)" \
	"tracekit info reads every record (decode, map to events, counts); reader_next only loops tk_reader_next"
exit "$FAILED"
