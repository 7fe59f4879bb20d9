#!/usr/bin/env bash
# tarmac_read.sh - benchmark the Tarmac reader of tracekit (`tracekit info`)
# against `wc -l` on the same file, in the same run (issue 6).
#
#   bash bench/tarmac_read.sh
#
# Environment (all optional):
#   N=1000000000   approximate bytes of the generated log (N=20000000 for a
#                  quick run)
#   VARIANT=fm     fm: Fast Models AArch64 lines with cpuN prefixes;
#                  m: Cortex-M RTL lines of the spec (bench/gen_tarmac.c)
#   SEED=1         generator seed
#   RUNS=5         timed runs per command; the median is reported
#   PEERS=1        0 = skip the wc -l row
#   TRACEKIT=build/tracekit   the binary under test
#   CC=cc          compiler for the generator and the rusage helper
#
# Everything it writes goes to bench/out/ (gitignored): the helper binaries,
# the log (tarmac_b<N>_<VARIANT>_s<SEED>.tarmac, reused while it exists and
# is newer than the generator), the last run's stdout/stderr of every command
# and tarmac_results.tsv.
# Exit status: 0, or 1 when a tracekit row FAILs a target.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

N=${N:-1000000000}
VARIANT=${VARIANT:-fm}
SEED=${SEED:-1}
RUNS=${RUNS:-5}
PEERS=${PEERS:-1}
TRACEKIT=${TRACEKIT:-$ROOT/build/tracekit}
CC=${CC:-cc}
CFLAGS=(-std=c11 -O2 -Wall -Wextra -Werror)

# targets for our rows
INFO_GBPS=0.5
INFO_RSS_MB=64

OUT="$HERE/out"
BIN="$OUT/bin"
mkdir -p "$BIN"

die() { echo "tarmac_read.sh: $*" >&2; exit 2; }
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a positive integer (got '$N')"
[[ $VARIANT == fm || $VARIANT == m ]] || die "VARIANT must be fm or m (got '$VARIANT')"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be an integer (got '$SEED')"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -gt 0 ]] || die "RUNS must be a positive integer (got '$RUNS')"

# --- helpers ---------------------------------------------------------------

build() { # build SRC BIN: compile when missing or older than the source
	local src=$1 bin=$2
	if [[ ! -x $bin || $src -nt $bin ]]; then
		echo "building $(basename "$bin") ($CC ${CFLAGS[*]})"
		"$CC" "${CFLAGS[@]}" -o "$bin.tmp" "$src"
		mv -f "$bin.tmp" "$bin"
	fi
}
build "$HERE/gen_tarmac.c" "$BIN/gen_tarmac"
build "$HERE/rusage.c" "$BIN/rusage"
RUSAGE="$BIN/rusage"

# --- the trace -------------------------------------------------------------

TRACE="$OUT/tarmac_b${N}_${VARIANT}_s${SEED}.tarmac"
if [[ -s $TRACE && $TRACE -nt $BIN/gen_tarmac ]]; then
	echo "reusing $TRACE"
else
	rm -f "$OUT"/tarmac_*.tarmac "$OUT"/tarmac_*.tarmac.tmp
	echo "generating $TRACE ..."
	"$RUSAGE" "$OUT/.gen" "$BIN/gen_tarmac" -b "$N" -v "$VARIANT" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
	read -r gsec _ _ < "$OUT/.gen"
	gbytes=$(stat -c %s "$TRACE")
	awk -v s="$gsec" -v b="$gbytes" 'BEGIN { printf("generated %.1f MB in %.2f s (%.2f GB/s)\n", b / 1e6, s, b / s / 1e9) }'
fi
BYTES=$(stat -c %s "$TRACE")

avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
if (( avail_kb > 0 && avail_kb * 1024 < BYTES )); then
	echo "warning: only $((avail_kb / 1024)) MB available; the log may not stay in the page cache" >&2
fi

echo "warming the page cache ..."
cat "$TRACE" > /dev/null
cat "$TRACE" > /dev/null

# --- measuring ---------------------------------------------------------------

rm -f "$OUT"/tarmac_*.stdout "$OUT"/tarmac_*.stderr
RESULTS="$OUT/tarmac_results.tsv"
printf 'command\tmedian_s\tGB_per_s\tpeak_rss_MB\ttarget\tresult\n' > "$RESULTS"
ROWS=()
FAILED=0

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

add_row() { # add_row LABEL SECONDS GBPS RSS_MB TARGET RESULT
	ROWS+=("$(printf '%-34s %9s %8s %12s   %-22s %s' "$@")")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS"
}

# run_bench LABEL SLUG MIN_GBPS MAX_RSS_MB CLEANUP -- COMMAND...
#   MIN_GBPS / MAX_RSS_MB: "-" for none (a peer row).  CLEANUP: a path to
#   delete before and after every run, or "-".
run_bench() {
	local label=$1 slug=$2 min_gbps=$3 max_rss=$4 cleanup=$5
	shift 6
	local -a secs=()
	local maxkb=0 i sec kb st
	local target="(peer)"
	if [[ $min_gbps != - ]]; then
		target=">= $min_gbps GB/s"
		[[ $max_rss != - ]] && target="$target, < $max_rss MB"
	fi
	echo "running: $label ($RUNS runs)"
	for ((i = 1; i <= RUNS; i++)); do
		[[ $cleanup != - ]] && rm -f "$cleanup"
		st=0
		"$RUSAGE" "$OUT/.m" "$@" > "$OUT/$slug.stdout" 2> "$OUT/$slug.stderr" || st=$?
		if [[ $cleanup != - && $st == 0 && $i == 1 ]]; then
			[[ -e $cleanup ]] && echo "  output: $(stat -c %s "$cleanup") bytes" || echo "  note: $cleanup was not written"
		fi
		[[ $cleanup != - ]] && rm -f "$cleanup"
		if [[ $st != 0 ]]; then
			echo "  run $i failed with status $st:" >&2
			head -n 5 "$OUT/$slug.stderr" | sed 's/^/    /' >&2
			if [[ $min_gbps != - ]]; then
				add_row "$label" - - - "$target" "FAIL (exit $st)"
				FAILED=1
			else
				add_row "$label" - - - "$target" "error (exit $st)"
			fi
			return 0
		fi
		read -r sec kb _ < "$OUT/.m"
		secs+=("$sec")
		(( kb > maxkb )) && maxkb=$kb
	done
	local med gbps rssmb
	med=$(printf '%s\n' "${secs[@]}" | median)
	gbps=$(awk -v b="$BYTES" -v s="$med" 'BEGIN { printf("%.3f", s > 0 ? b / s / 1e9 : 0) }')
	rssmb=$(awk -v k="$maxkb" 'BEGIN { printf("%.1f", k / 1024) }')
	local result=""
	if [[ $min_gbps != - ]]; then
		result=PASS
		awk -v g="$gbps" -v m="$min_gbps" 'BEGIN { exit !(g + 0 >= m + 0) }' || result=FAIL
		if [[ $max_rss != - ]] && (( maxkb >= max_rss * 1024 )); then
			result=FAIL
		fi
		[[ $result == FAIL ]] && FAILED=1
	fi
	add_row "$label" "$(printf '%.3f' "$med")" "$gbps" "$rssmb" "$target" "$result"
}

# ours
if [[ -x $TRACEKIT ]]; then
	run_bench "tracekit info" tarmac_info "$INFO_GBPS" "$INFO_RSS_MB" - -- \
		"$TRACEKIT" info "$TRACE"
else
	echo "skip: $TRACEKIT does not exist yet (build it with 'make'); tracekit rows skipped"
	add_row "tracekit info" - - - ">= $INFO_GBPS GB/s, < $INFO_RSS_MB MB" SKIP
fi

# peer, same file, same run
if [[ $PEERS != 0 ]]; then
	run_bench "wc -l" tarmac_wc - - - -- wc -l "$TRACE"
fi

# --- report ------------------------------------------------------------------

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo
echo "Tarmac read benchmark: $(basename "$TRACE"), $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN { printf("%.1f MB", b / 1e6) }'), variant $VARIANT)"
echo "median of $RUNS runs, warm page cache; GB/s = file bytes / median seconds / 1e9; peak RSS = max over runs"
echo "host: ${cpu:-unknown CPU}, $(nproc) CPUs, $(uname -sr)"
echo
printf '%-34s %9s %8s %12s   %-22s %s\n' "command" "median s" "GB/s" "peak RSS MB" "target" "result"
printf '%s\n' "-------------------------------------------------------------------------------------------------"
printf '%s\n' "${ROWS[@]}"
echo
if [[ $PEERS != 0 && -s $OUT/tarmac_wc.stdout ]]; then
	echo "wc -l: $(awk '{ print $1 }' "$OUT/tarmac_wc.stdout") lines"
fi
if [[ -s $OUT/tarmac_info.stdout ]]; then
	echo "tracekit info (last run):"
	sed 's/^/    /' "$OUT/tarmac_info.stdout"
fi
echo "results: $RESULTS"
exit $FAILED
