#!/usr/bin/env bash
# source_readahead.sh - what the byte source's read-ahead thread is worth:
# `tracekit info` on BTF, ATF and Tarmac files (the readers that stream a
# plain file through tk_source_stream()) with the thread on and off,
# interleaved in the same run (issue 22: parallelism stays only if its gain
# holds on two separate runs; run this twice, some minutes apart).
#
#   make build && bash bench/source_readahead.sh
#
# The switch is a build of the bench's own, not an option of the library:
# the CLI sources (src/cli/*.c) are compiled as CMake's Release build does
# (-O3 -DNDEBUG) and linked twice with the libtracekit.a beside TRACEKIT,
# both times with -Wl,--wrap=pthread_create and bench/readahead_switch.c:
#   tracekit_ra_on    the wrapper starts the thread (and counts it)
#   tracekit_ra_off   the same compiled with -DTK_NO_READAHEAD: it refuses
#                     the thread, and the source falls back to one read()
#                     per fill, on the reader's thread
# Nothing in src/ and no environment variable is involved.  Each binary
# prints "threads: N started, M refused" to stderr at exit; the script
# checks that the on rows started a thread and the off rows refused one
# and started none, and that both printed the same stdout.
#
# Environment (all optional; RUNS, TRACEKIT, CC as in bench/lib.sh):
#   RUNS=7          rounds (each: every format on, then off)
#   FORMATS="btf atf tarmac"
#   BTF_N=10000000 ATF_N=4000000 TARMAC_N=1000000000   input sizes (as
#                   bench/*_read.sh, the same files in bench/out/)
# Table: per format, the median seconds and MB/s on and off, and off/on
# (off median / on median: above 1, the thread makes the read faster).
# Exit status: 0, or 2 when a build, a run or a check fails.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-7}
. "$HERE/lib.sh"
bench_init source_readahead

FORMATS=${FORMATS:-btf atf tarmac}
BTF_N=${BTF_N:-10000000}
ATF_N=${ATF_N:-4000000}
TARMAC_N=${TARMAC_N:-1000000000}
for v in BTF_N ATF_N TARMAC_N; do
	[[ ${!v} =~ ^[0-9]+$ && ${!v} -gt 0 ]] || bench_die "$v must be a positive integer (got '${!v}')"
done
LIB=$(dirname "$TRACEKIT")/libtracekit.a
[[ -f $LIB ]] || bench_die "no $LIB (make build first)"

echo "host: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown CPU)," \
	"nproc $(nproc), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) (at the start)"

# --- the two binaries --------------------------------------------------------

RA=$BIN/ra
rm -rf "$RA"
mkdir -p "$RA/cli"
echo "building tracekit_ra_on and tracekit_ra_off with $LIB ..."
for src in "$ROOT"/src/cli/*.c; do
	"$CC" "${BENCH_CFLAGS[@]}" -O3 -DNDEBUG -I"$ROOT/include" -c -o "$RA/cli/$(basename "$src" .c).o" "$src"
done
"$CC" "${BENCH_CFLAGS[@]}" -c -o "$RA/switch_on.o" "$HERE/readahead_switch.c"
"$CC" "${BENCH_CFLAGS[@]}" -DTK_NO_READAHEAD -c -o "$RA/switch_off.o" "$HERE/readahead_switch.c"
for side in on off; do
	"$CC" -O3 -o "$BIN/tracekit_ra_$side" "$RA"/cli/*.o "$RA/switch_$side.o" \
		-Wl,--wrap=pthread_create "$LIB" -lz -lzstd -lpthread -lexpat -lsqlite3 -lelf
done

# --- the inputs --------------------------------------------------------------

gen() { # gen FILE GENERATOR ARGS...: make FILE once (kept while newer than GENERATOR)
	local f=$1 g=$2
	shift
	if [[ ! -s $f || $g -nt $f ]]; then
		echo "generating $f ..."
		"$@" "$f.tmp" > /dev/null 2> "$OUT/gen.log" ||
			{ cat "$OUT/gen.log" >&2; bench_die "$g failed"; }
		mv -f "$f.tmp" "$f"
	fi
}

FMTS=()
declare -A SIZE
for f in $FORMATS; do
	case $f in
	btf)
		bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"
		FILE=$OUT/trace_n${BTF_N}_c4_s1.btf
		gen "$FILE" "$BIN/gen_btf" -n "$BTF_N" -c 4 -s 1
		ARGS=(info) ;;
	atf)
		bench_build "$HERE/gen_atf.c" "$BIN/gen_atf"
		FILE=$OUT/atf_n${ATF_N}_c2.atf
		gen "$FILE" "$BIN/gen_atf" -n "$ATF_N" -c 2
		ARGS=(info -q) ;;
	tarmac)
		bench_build "$HERE/gen_tarmac.c" "$BIN/gen_tarmac"
		FILE=$OUT/tarmac_b${TARMAC_N}_fm_s1.tarmac
		gen "$FILE" "$BIN/gen_tarmac" -b "$TARMAC_N" -v fm -s 1
		ARGS=(info) ;;
	*)
		bench_die "unknown format '$f' (btf atf tarmac)" ;;
	esac
	FMTS+=("$f")
	bench_input "$FILE"
	SIZE[$f]=$BYTES
	run_bench "$f info, read-ahead on" "ra_${f}_on" - - - -- "$BIN/tracekit_ra_on" "${ARGS[@]}" "$FILE"
	run_bench "$f info, read-ahead off" "ra_${f}_off" - - - -- "$BIN/tracekit_ra_off" "${ARGS[@]}" "$FILE"
done

bench_report "The byte source's read-ahead thread, on and off ($(basename "$LIB") beside $TRACEKIT)"

# --- checks and the on/off table ----------------------------------------------

bad=0
echo
printf '%-7s %8s | %8s %7s | %8s %7s | %6s | %s\n' format "input MB" "on s" "on MB/s" "off s" "off MB/s" "off/on" "checks"
printf '%s\n' "--------------------------------------------------------------------------------"
for f in "${FMTS[@]}"; do
	on=$(awk -F'\t' -v l="$f info, read-ahead on" '$1 == l { print $2 }' "$RESULTS")
	off=$(awk -F'\t' -v l="$f info, read-ahead off" '$1 == l { print $2 }' "$RESULTS")
	checks=ok
	grep -q '^threads: [1-9][0-9]* started' "$OUT/ra_${f}_on.stderr" || checks="on: no thread started"
	grep -q '^threads: 0 started, [1-9][0-9]* refused' "$OUT/ra_${f}_off.stderr" || checks="off: no thread refused"
	cmp -s "$OUT/ra_${f}_on.stdout" "$OUT/ra_${f}_off.stdout" || checks="stdout differs"
	[[ $on == - || $off == - ]] && checks="a run failed"
	[[ $checks == ok ]] || bad=2
	awk -v f="$f" -v on="$on" -v off="$off" -v b="${SIZE[$f]}" -v c="$checks" 'BEGIN {
		if (on == "-" || off == "-") { printf("%-7s %8s | %s\n", f, "-", c); exit }
		printf("%-7s %8.1f | %8.3f %7.0f | %8.3f %7.0f | %6.2f | %s\n",
		       f, b / 1e6, on, b / on / 1e6, off, b / off / 1e6, off / on, c)
	}'
done
echo "off/on = off median / on median (above 1: the thread makes the read faster)"
echo "host at the end: load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$bad"
