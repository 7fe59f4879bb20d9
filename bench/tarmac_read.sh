#!/usr/bin/env bash
# tarmac_read.sh - benchmark the Tarmac reader of tracekit (`tracekit info`)
# and the function profile (`tracekit stats --elf`) against `wc -l` on the
# same file, in the same run (issue 6).  Timing harness: bench/lib.sh.
#
#   bash bench/tarmac_read.sh
#
# Environment (all optional; RUNS, TRACEKIT, CC as in bench/lib.sh):
#   N=1000000000   approximate bytes of the generated log (N=20000000 for a
#                  quick run)
#   VARIANT=fm     fm: Fast Models AArch64 lines with cpuN prefixes;
#                  m: Cortex-M RTL lines of the spec (bench/gen_tarmac.c)
#   SEED=1         generator seed
#   PEERS=1        0 = skip the wc -l row
#
# The ELF for `stats --elf` is made by tests/tarmac/mkelf.py: 64-byte
# functions covering every PC the generator writes (python3 needed; the row
# is skipped without it).  Everything written goes to bench/out/: the
# helper binaries, the log (tarmac_b<N>_<VARIANT>_s<SEED>.tarmac, reused
# while it exists and is newer than the generator), the ELF, the last run's
# stdout/stderr of every command and tarmac_results.tsv.
# Exit status: 0, or 1 when a tracekit row FAILs a target.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
bench_init tarmac

N=${N:-1000000000}
VARIANT=${VARIANT:-fm}
SEED=${SEED:-1}
PEERS=${PEERS:-1}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || bench_die "N must be a positive integer (got '$N')"
[[ $VARIANT == fm || $VARIANT == m ]] || bench_die "VARIANT must be fm or m (got '$VARIANT')"
[[ $SEED =~ ^[0-9]+$ ]] || bench_die "SEED must be an integer (got '$SEED')"

# targets for our rows
INFO_GBPS=0.5
ELF_GBPS=0.2
RSS_MB=64
# stats --elf holds the call tree, one node per distinct call path: the
# generated logs call at random, so their tree grows with the log (about
# 85 MB at 1 GB of Fast Models lines); a real program's tree stays small.
# Its bound is a guard against a leak, not a flat-memory target.
ELF_RSS_MB=256

bench_build "$HERE/gen_tarmac.c" "$BIN/gen_tarmac"

TRACE="$OUT/tarmac_b${N}_${VARIANT}_s${SEED}.tarmac"
if [[ -s $TRACE && $TRACE -nt $BIN/gen_tarmac ]]; then
	echo "reusing $TRACE"
else
	rm -f "$OUT"/tarmac_*.tarmac "$OUT"/tarmac_*.tarmac.tmp
	echo "generating $TRACE ..."
	"$RUSAGE" "$OUT/.gen" "$BIN/gen_tarmac" -b "$N" -v "$VARIANT" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
# the generator's PCs: 0x7e8.. (m) or 0x2105d4.. (fm) plus at most
# 0xfff instructions and the run until the next jump
ELF="$OUT/tarmac_${VARIANT}.elf"
have_elf=0
if command -v python3 > /dev/null 2>&1; then
	if [[ $VARIANT == m ]]; then
		python3 "$ROOT/tests/tarmac/mkelf.py" "$ELF" --thumb --grid 0 512 40
	else
		python3 "$ROOT/tests/tarmac/mkelf.py" "$ELF" --grid 210000 1024 40
	fi
	have_elf=1
fi
bench_input "$TRACE"

if [[ -x $TRACEKIT ]]; then
	run_bench "tracekit info" tarmac_info "$INFO_GBPS" "$RSS_MB" - -- \
		"$TRACEKIT" info "$TRACE"
	if [[ $have_elf == 1 ]]; then
		run_bench "tracekit stats --elf" tarmac_elf "$ELF_GBPS" "$ELF_RSS_MB" - -- \
			"$TRACEKIT" stats --elf "$ELF" "$TRACE"
	else
		bench_skip "tracekit stats --elf" ">= $ELF_GBPS GB/s (python3 missing)"
	fi
else
	echo "skip: $TRACEKIT does not exist yet (build it with 'make'); tracekit rows skipped"
	bench_skip "tracekit info" ">= $INFO_GBPS GB/s, < $RSS_MB MB"
	bench_skip "tracekit stats --elf" ">= $ELF_GBPS GB/s, < $RSS_MB MB"
fi
if [[ $PEERS != 0 ]]; then
	run_bench "wc -l" tarmac_wc - - - -- wc -l "$TRACE"
fi

bench_report "Tarmac read benchmark: $(basename "$TRACE"), $BYTES bytes, variant $VARIANT"
if [[ $PEERS != 0 && -s $OUT/tarmac_wc.stdout ]]; then
	echo "wc -l: $(awk '{ print $1 }' "$OUT/tarmac_wc.stdout") lines"
fi
exit "$FAILED"
