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
#   BASE=          another build's tracekit (e.g. of an older commit, in a
#                  worktree of its own): its `info --threads 0` and its
#                  reader_next --threads 0 are timed in the same rounds,
#                  interleaved with ours, for a side-by-side table
#   DUMP=          a dump to read instead of the generated one
#   CC=cc
#
# Writes to bench/out/ (gitignored): gen_shark, reader_next, the dump
# (shark_n<N>.bin, reused while newer than the generator).
# Rows:
#   `tracekit info`  target >= 2 GB/s of records and a flat RSS (< 64 MB:
#                    the scan at open and the read pass copy the dump into
#                    buffers of 1 MB and 256 KB)
#   `reader_next`    the reader alone (bench/reader_next.c: tk_reader_next in
#                    a loop, the times folded into a checksum), same target:
#                    what is left of info's time is info's own counting
#   BASE's rows      no target, for comparison
#   peers reading the same file in the same run: `wc -l` (reads every
#   byte) and `dd` to /dev/null (the bare read loop).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init shark_read
N=${N:-67108864}
bench_build "$HERE/gen_shark.c" "$BIN/gen_shark"
TRACE=${DUMP:-$OUT/shark_n${N}.bin}
if [[ -z ${DUMP:-} && ( ! -s $TRACE || $BIN/gen_shark -nt $TRACE ) ]]; then
	echo "generating $TRACE ..."
	"$BIN/gen_shark" -n "$N" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
[[ -x $TRACEKIT ]] || bench_die "no $TRACEKIT (build first)"
# the reader alone, linked with the library of the binary under test
bench_reader_next
bench_input "$TRACE"
[[ -n ${DUMP:-} ]] && N=$((BYTES / 16))
run_bench "tracekit info (shark)" info 2 64 - -- "$TRACEKIT" info -q --from shark "$TRACE"
if [[ -n $READER_NEXT ]]; then
	run_bench "reader only (reader_next)" shark_next 2 64 - -- "$READER_NEXT" --from shark "$TRACE"
else
	bench_skip "reader only (reader_next)" "no libtracekit.a beside $TRACEKIT"
fi
if [[ -n ${BASE:-} ]]; then
	[[ -x $BASE ]] || bench_die "no $BASE"
	run_bench "BASE info --threads 0" base_info0 - - - -- "$BASE" info -q --threads 0 --from shark "$TRACE"
	mine=$READER_NEXT
	TRACEKIT=$BASE bench_reader_next
	if [[ -n $READER_NEXT && $READER_NEXT != "$mine" ]]; then
		run_bench "BASE reader_next --threads 0" base_next0 - - - -- "$READER_NEXT" --from shark --threads 0 "$TRACE"
	fi
fi
run_bench "wc -l (peer)" wc - - - -- wc -l "$TRACE"
run_bench "dd bs=1M (peer)" dd - - - -- dd if="$TRACE" of=/dev/null bs=1M
bench_report "S.Ha.R.K. FTrace reader: $N records ($BYTES bytes)" \
	"tracekit info reads every record (decode, map to events, counts); reader_next only loops tk_reader_next"
exit "$FAILED"
