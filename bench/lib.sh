# lib.sh - the timing harness every bench/*.sh script shares (bash).
#
#   HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   . "$HERE/lib.sh"
#   bench_init NAME                  # OUT, BIN, RUSAGE, RESULTS, ROOT, TRACEKIT
#   bench_build "$HERE/gen_x.c" "$BIN/gen_x"   # compile a helper when stale
#   bench_input FILE                 # BYTES := size of FILE; warms the page cache
#   bench_reader_next                # READER_NEXT := bench/reader_next.c built
#                                    # with the libtracekit.a beside TRACEKIT
#   run_bench LABEL SLUG MIN_GBPS MAX_RSS_MB CLEANUP -- COMMAND...
#   bench_report "title line" "what was measured"
#   exit "$FAILED"
#
# run_bench runs COMMAND $RUNS times (default 5) under bench/rusage.c and
# adds a row: the median wall time, BYTES / median in GB/s, the peak RSS over
# the runs, and PASS/FAIL against the targets.  MIN_GBPS and MAX_RSS_MB are
# "-" for a peer row (no target).  CLEANUP is a path deleted before and after
# every run ("-" for none); its size after the first run is printed.  The
# last run's stdout and stderr stay in $OUT/SLUG.stdout / .stderr.  A failing
# command is a FAIL row for ours and an "error" row for a peer.
#
# Rows go to the screen (bench_report) and to $RESULTS (tab-separated).
# Environment every script accepts: RUNS, TRACEKIT (default build/tracekit),
# CC (default cc).  Everything written goes to bench/out/ (gitignored).

export LC_ALL=C

bench_die() { echo "$(basename "$0"): $*" >&2; exit 2; }

bench_init() { # bench_init NAME
	BENCH_NAME=$1
	BENCH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	ROOT=$(cd "$BENCH_LIB_DIR/.." && pwd)
	RUNS=${RUNS:-5}
	TRACEKIT=${TRACEKIT:-$ROOT/build/tracekit}
	CC=${CC:-cc}
	BENCH_CFLAGS=(-std=c11 -O2 -Wall -Wextra -Werror)
	[[ $RUNS =~ ^[0-9]+$ && $RUNS -gt 0 ]] || bench_die "RUNS must be a positive integer (got '$RUNS')"
	OUT="$BENCH_LIB_DIR/out"
	BIN="$OUT/bin"
	mkdir -p "$BIN"
	bench_build "$BENCH_LIB_DIR/rusage.c" "$BIN/rusage"
	RUSAGE="$BIN/rusage"
	RESULTS="$OUT/${BENCH_NAME}_results.tsv"
	printf 'command\tmedian_s\tGB_per_s\tpeak_rss_MB\ttarget\tresult\n' > "$RESULTS"
	ROWS=()
	FAILED=0
	BYTES=0
}

bench_build() { # bench_build SRC BIN [extra cc args]: compile when missing or stale
	local src=$1 bin=$2
	shift 2
	if [[ ! -x $bin || $src -nt $bin ]]; then
		echo "building $(basename "$bin") ($CC ${BENCH_CFLAGS[*]})"
		"$CC" "${BENCH_CFLAGS[@]}" -o "$bin.tmp" "$src" "$@"
		mv -f "$bin.tmp" "$bin"
	fi
}

bench_input() { # bench_input FILE: the measured input (bytes, warm cache)
	BYTES=$(stat -c %s "$1")
	local avail_kb
	avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
	if (( avail_kb > 0 && avail_kb * 1024 < 2 * BYTES )); then
		echo "warning: only $((avail_kb / 1024)) MB available; $1 may not stay in the page cache" >&2
	fi
	echo "warming the page cache ..."
	cat "$1" > /dev/null
	cat "$1" > /dev/null
}

bench_median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

bench_row() { # bench_row LABEL SECONDS GBPS RSS_MB TARGET RESULT
	ROWS+=("$(printf '%-36s %9s %8s %12s   %-24s %s' "$@")")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS"
}

run_bench() { # run_bench LABEL SLUG MIN_GBPS MAX_RSS_MB CLEANUP -- COMMAND...
	local label=$1 slug=$2 min_gbps=$3 max_rss=$4 cleanup=$5
	shift 6
	local -a secs=()
	local maxkb=0 i sec kb st target="(peer)"
	if [[ $min_gbps != - ]]; then
		target=">= $min_gbps GB/s"
		[[ $max_rss != - ]] && target="$target, < $max_rss MB"
	fi
	echo "running: $label ($RUNS runs)"
	for ((i = 1; i <= RUNS; i++)); do
		[[ $cleanup != - ]] && rm -rf "$cleanup"
		st=0
		"$RUSAGE" "$OUT/.m" "$@" > "$OUT/$slug.stdout" 2> "$OUT/$slug.stderr" || st=$?
		if [[ $cleanup != - && $st == 0 && $i == 1 ]]; then
			if [[ -e $cleanup ]]; then
				echo "  output: $(du -sb "$cleanup" | awk '{ print $1 }') bytes"
			else
				echo "  note: $cleanup was not written"
			fi
		fi
		[[ $cleanup != - ]] && rm -rf "$cleanup"
		if [[ $st != 0 ]]; then
			echo "  run $i failed with status $st:" >&2
			head -n 5 "$OUT/$slug.stderr" | sed 's/^/    /' >&2
			if [[ $min_gbps != - ]]; then
				bench_row "$label" - - - "$target" "FAIL (exit $st)"
				FAILED=1
			else
				bench_row "$label" - - - "$target" "error (exit $st)"
			fi
			return 0
		fi
		read -r sec kb _ < "$OUT/.m"
		secs+=("$sec")
		(( kb > maxkb )) && maxkb=$kb
	done
	local med gbps rssmb result=""
	med=$(printf '%s\n' "${secs[@]}" | bench_median)
	gbps=$(awk -v b="$BYTES" -v s="$med" 'BEGIN { printf("%.3f", s > 0 ? b / s / 1e9 : 0) }')
	rssmb=$(awk -v k="$maxkb" 'BEGIN { printf("%.1f", k / 1024) }')
	if [[ $min_gbps != - ]]; then
		result=PASS
		awk -v g="$gbps" -v m="$min_gbps" 'BEGIN { exit !(g + 0 >= m + 0) }' || result=FAIL
		if [[ $max_rss != - ]] && (( maxkb >= max_rss * 1024 )); then
			result=FAIL
		fi
		[[ $result == FAIL ]] && FAILED=1
	fi
	bench_row "$label" "$(printf '%.3f' "$med")" "$gbps" "$rssmb" "$target" "$result"
}

bench_skip() { # bench_skip LABEL TARGET: a row for a command that could not run
	bench_row "$1" - - - "$2" SKIP
}

bench_report() { # bench_report TITLE [DETAIL]
	local cpu
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
	echo
	echo "$1"
	[[ -n ${2:-} ]] && echo "$2"
	echo "median of $RUNS runs, warm page cache; GB/s = input bytes / median seconds / 1e9; peak RSS = max over runs"
	echo "host: ${cpu:-unknown CPU}, $(nproc) CPUs, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	printf '%-36s %9s %8s %12s   %-24s %s\n' "command" "median s" "GB/s" "peak RSS MB" "target" "result"
	printf '%s\n' "---------------------------------------------------------------------------------------------------------"
	printf '%s\n' "${ROWS[@]}"
	echo
	echo "results: $RESULTS"
}

# Builds bench/reader_next.c (a reader alone: tk_reader_next in a loop)
# against the libtracekit.a beside $TRACEKIT; sets READER_NEXT to it, or
# to "" when there is no such library.
bench_reader_next() {
	local lib nb
	READER_NEXT=""
	lib="$(dirname "$TRACEKIT")/libtracekit.a"
	[[ -f $lib ]] || return 0
	nb="$BIN/reader_next.$(basename "$(dirname "$TRACEKIT")")"
	[[ -x $nb && $lib -nt $nb ]] && rm -f "$nb"
	if bench_build "$BENCH_LIB_DIR/reader_next.c" "$nb" -I"$ROOT/include" "$lib" \
		-lz -lzstd -lpthread -lexpat -lsqlite3 -lelf; then
		READER_NEXT=$nb
	fi
	return 0
}
