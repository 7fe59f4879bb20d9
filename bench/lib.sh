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
# run_bench queues COMMAND (with the BYTES of the input at that point);
# bench_report runs the queue in $RUNS rounds (default 5), each round
# running every queued command once under bench/rusage.c, so that the
# peers are timed in the same stretch of the host's time as ours, and
# adds a row per command: the median wall time, BYTES / median in GB/s,
# the peak RSS over the runs, and PASS/FAIL against the targets.  MIN_GBPS and MAX_RSS_MB are
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
	Q_KIND=() Q_LABEL=() Q_SLUG=() Q_MIN=() Q_MAX=() Q_CLEAN=() Q_BYTES=() Q_CMD=()
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
	[[ ${6:-} == -- && $# -gt 6 ]] || bench_die "run_bench: LABEL SLUG MIN_GBPS MAX_RSS_MB CLEANUP -- COMMAND..."
	Q_KIND+=(run)
	Q_LABEL+=("$1")
	Q_SLUG+=("$2")
	Q_MIN+=("$3")
	Q_MAX+=("$4")
	Q_CLEAN+=("$5")
	Q_BYTES+=("$BYTES")
	shift 6
	Q_CMD+=("$(printf '%q ' "$@")")
}

bench_skip() { # bench_skip LABEL TARGET: a row for a command that could not run
	Q_KIND+=(skip)
	Q_LABEL+=("$1")
	Q_SLUG+=(-)
	Q_MIN+=("$2")
	Q_MAX+=(-)
	Q_CLEAN+=(-)
	Q_BYTES+=("$BYTES")
	Q_CMD+=(-)
}

# One run of queued command i (round r): its seconds and KB go to Q_SECS
# and Q_KB; a failure ends its runs (Q_ST).
bench_run_one() {
	local i=$1 r=$2 st=0 sec kb clean=${Q_CLEAN[$1]} slug=${Q_SLUG[$1]}
	[[ $clean != - ]] && rm -rf "$clean"
	local -a cmd
	# Q_CMD holds the words quoted by printf %q: eval gives them back
	eval "cmd=(${Q_CMD[$i]})"
	"$RUSAGE" "$OUT/.m" "${cmd[@]}" > "$OUT/$slug.stdout" 2> "$OUT/$slug.stderr" || st=$?
	if [[ $clean != - && $st == 0 && $r == 1 ]]; then
		if [[ -e $clean ]]; then
			echo "  ${Q_LABEL[$i]}: output $(du -sb "$clean" | awk '{ print $1 }') bytes"
		else
			echo "  ${Q_LABEL[$i]}: note: $clean was not written"
		fi
	fi
	[[ $clean != - ]] && rm -rf "$clean"
	if [[ $st != 0 ]]; then
		echo "  ${Q_LABEL[$i]}: run $r failed with status $st:" >&2
		head -n 5 "$OUT/$slug.stderr" | sed 's/^/    /' >&2
		Q_ST[i]=$st
		return 0
	fi
	read -r sec kb _ < "$OUT/.m"
	Q_SECS[i]="${Q_SECS[$i]:-} $sec"
	(( kb > ${Q_KB[$i]:-0} )) && Q_KB[i]=$kb
	return 0
}

# Runs the queue: RUNS rounds, each running every queued command once in
# order, so that a change of the host's speed during the benchmark falls
# on every row alike (the peers are measured in the same rounds); then a
# row per command, in the order they were queued.
bench_run_queue() {
	local i r n=${#Q_KIND[@]} target med gbps rssmb result
	Q_SECS=()
	Q_KB=()
	Q_ST=()
	echo "running $RUNS rounds of $n commands (interleaved)"
	for ((r = 1; r <= RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			[[ ${Q_KIND[$i]} == run && -z ${Q_ST[$i]:-} ]] || continue
			bench_run_one "$i" "$r"
		done
	done
	for ((i = 0; i < n; i++)); do
		if [[ ${Q_KIND[$i]} == skip ]]; then
			bench_row "${Q_LABEL[$i]}" - - - "${Q_MIN[$i]}" SKIP
			continue
		fi
		target="(peer)"
		if [[ ${Q_MIN[$i]} != - ]]; then
			target=">= ${Q_MIN[$i]} GB/s"
			[[ ${Q_MAX[$i]} != - ]] && target="$target, < ${Q_MAX[$i]} MB"
		fi
		if [[ -n ${Q_ST[$i]:-} ]]; then
			if [[ ${Q_MIN[$i]} != - ]]; then
				bench_row "${Q_LABEL[$i]}" - - - "$target" "FAIL (exit ${Q_ST[$i]})"
				FAILED=1
			else
				bench_row "${Q_LABEL[$i]}" - - - "$target" "error (exit ${Q_ST[$i]})"
			fi
			continue
		fi
		# shellcheck disable=SC2086 # the seconds, one word each
		med=$(printf '%s\n' ${Q_SECS[$i]} | bench_median)
		gbps=$(awk -v b="${Q_BYTES[$i]}" -v s="$med" 'BEGIN { printf("%.3f", s > 0 ? b / s / 1e9 : 0) }')
		rssmb=$(awk -v k="${Q_KB[$i]:-0}" 'BEGIN { printf("%.1f", k / 1024) }')
		result=""
		if [[ ${Q_MIN[$i]} != - ]]; then
			result=PASS
			awk -v g="$gbps" -v m="${Q_MIN[$i]}" 'BEGIN { exit !(g + 0 >= m + 0) }' || result=FAIL
			if [[ ${Q_MAX[$i]} != - ]] && (( ${Q_KB[$i]:-0} >= ${Q_MAX[$i]} * 1024 )); then
				result=FAIL
			fi
			[[ $result == FAIL ]] && FAILED=1
		fi
		bench_row "${Q_LABEL[$i]}" "$(printf '%.3f' "$med")" "$gbps" "$rssmb" "$target" "$result"
	done
	Q_KIND=()
}

bench_report() { # bench_report TITLE [DETAIL]: runs the queue, then the table
	local cpu
	bench_run_queue
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
	echo
	echo "$1"
	[[ -n ${2:-} ]] && echo "$2"
	echo "median of $RUNS runs (interleaved: each round runs every command once), warm page cache;"
	echo "GB/s = input bytes / median seconds / 1e9; peak RSS = max over runs"
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
	local lib nb src=$BENCH_LIB_DIR/reader_next.c inc=$ROOT/include tree
	READER_NEXT=""
	lib="$(dirname "$TRACEKIT")/libtracekit.a"
	[[ -f $lib ]] || return 0
	# another tree's build (BASE=): its own headers and reader_next.c
	tree=$(cd "$(dirname "$TRACEKIT")/.." && pwd)
	if [[ $tree != "$ROOT" && -f $tree/bench/reader_next.c && -d $tree/include ]]; then
		src=$tree/bench/reader_next.c
		inc=$tree/include
	fi
	nb="$BIN/reader_next.$(printf '%s' "$lib" | cksum | cut -d' ' -f1)"
	[[ -x $nb && $lib -nt $nb ]] && rm -f "$nb"
	if bench_build "$src" "$nb" -I"$inc" "$lib" \
		-lz -lzstd -lpthread -lexpat -lsqlite3 -lelf -lyaml -lnettle; then
		READER_NEXT=$nb
	fi
	return 0
}
