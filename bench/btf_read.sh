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
# the last run's stdout/stderr of every command and results.tsv.
# Exit status: 0, or 1 when a tracekit row FAILs a target (a skipped row does
# not fail).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
RUNS=${RUNS:-5}
PEERS=${PEERS:-1}
VALIDATE=${VALIDATE:-0}
TRACEKIT=${TRACEKIT:-$ROOT/build/tracekit}
CC=${CC:-cc}
CFLAGS=(-std=c11 -O2 -Wall -Wextra -Werror)

# targets for our rows
INFO_GBPS=1.0
INFO_RSS_MB=64
CONVERT_GBPS=0.5

OUT="$HERE/out"
BIN="$OUT/bin"
mkdir -p "$BIN"

die() { echo "btf_read.sh: $*" >&2; exit 2; }
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a positive integer (got '$N')"
[[ $CORES =~ ^[0-9]+$ ]] || die "CORES must be an integer (got '$CORES')"
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
build "$HERE/gen_btf.c" "$BIN/gen_btf"
build "$HERE/rusage.c" "$BIN/rusage"
RUSAGE="$BIN/rusage"

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
		mawk -f "$HERE/check_btf.awk" "$TRACE" || die "generated trace is invalid"
	fi
fi
BYTES=$(stat -c %s "$TRACE")

avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
if (( avail_kb > 0 && avail_kb * 1024 < 2 * BYTES )); then
	echo "warning: only $((avail_kb / 1024)) MB available; the trace and the convert output may not stay in the page cache" >&2
fi

echo "warming the page cache ..."
cat "$TRACE" > /dev/null
cat "$TRACE" > /dev/null

# --- measuring ---------------------------------------------------------------

rm -f "$OUT"/*.stdout "$OUT"/*.stderr "$OUT/convert_out.btf"
RESULTS="$OUT/results.tsv"
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
	run_bench "tracekit info" tracekit_info "$INFO_GBPS" "$INFO_RSS_MB" - -- \
		"$TRACEKIT" info "$TRACE"
	CONV="$OUT/convert_out.btf"
	run_bench "tracekit convert (btf -> btf)" tracekit_convert "$CONVERT_GBPS" - "$CONV" -- \
		"$TRACEKIT" convert "$TRACE" "$CONV"
else
	echo "skip: $TRACEKIT does not exist yet (build it with 'make'); tracekit rows skipped"
	add_row "tracekit info" - - - ">= $INFO_GBPS GB/s, < $INFO_RSS_MB MB" SKIP
	add_row "tracekit convert (btf -> btf)" - - - ">= $CONVERT_GBPS GB/s" SKIP
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

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo
echo "BTF read benchmark: $(basename "$TRACE"), $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN { printf("%.1f MB", b / 1e6) }'), $N events, $CORES cores)"
echo "median of $RUNS runs, warm page cache; GB/s = file bytes / median seconds / 1e9; peak RSS = max over runs"
echo "host: ${cpu:-unknown CPU}, $(nproc) CPUs, $(uname -sr)"
echo
printf '%-34s %9s %8s %12s   %-22s %s\n' "command" "median s" "GB/s" "peak RSS MB" "target" "result"
printf '%s\n' "-------------------------------------------------------------------------------------------------"
printf '%s\n' "${ROWS[@]}"
echo
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
echo "results: $RESULTS"
exit $FAILED
