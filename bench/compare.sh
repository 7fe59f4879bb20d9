#!/usr/bin/env bash
# compare.sh - two revisions of tracekit side by side: every reader timed on
# the same generated inputs, A and B interleaved in the same run.
#
#   bash bench/compare.sh [A [B]]
#
#   A   a revision (default b75531a, the reference of issue 22)
#   B   a revision, or "worktree" (the default): this working tree as it
#       is, uncommitted changes included
#
# Each revision is checked out with `git worktree add --detach` under
# $WORK/src-<sha> and built (Release, target tracekit only) in
# $WORK/build-<sha>; the working tree is built from its own folder in
# $WORK/build-worktree.  Both stay for the next run (the builds are then
# incremental); `bash bench/compare.sh --clean` removes the worktrees and
# $WORK.
#
# The inputs are generated once, with the generators and the sizes of the
# bench/*_read.sh scripts and under the same names in bench/out/ (so that
# they are shared with those scripts; gitignored, never committed):
#   btf     gen_btf -n $BTF_N -c 4 -s 1        `tracekit info FILE`
#   htf     gen_htf -n $HTF_N -c 4             `tracekit info FILE`
#   atf     gen_atf -n $ATF_N -c 2             `tracekit info -q FILE`
#   tarmac  gen_tarmac -b $TARMAC_N -v fm -s 1 `tracekit info FILE`
#   shark   gen_shark -n $SHARK_N              `tracekit info -q --from shark FILE`
# Each side gets `--threads 0` when its binary accepts that option (tried
# on a small BTF file first), so that the readers are compared on one
# thread; a binary that no longer has the option is run without it.  The
# table says which.  (An older build's byte source may still read ahead on
# a thread of its own for BTF, ATF and Tarmac: --threads 0 did not turn
# that off.)
#
# Then RUNS rounds: in each, for every format, A once, then B once (under
# bench/rusage.c: wall time, peak RSS), so that a slower stretch of a shared
# host falls on both.  The table: format, input size, A's and B's median
# seconds and MB/s (input bytes / median / 1e6), B's speed over A's
# (A median / B median: above 1, B is faster; "slow" below the 0.90 of
# issue 22's limit), both peak RSS (max over the runs), and whether the
# last run's stdout of A and B are byte for byte the same.
#
# Environment (all optional):
#   RUNS=7          rounds
#   FORMATS="btf htf"                      the formats measured (default:
#                                          every format read that has a
#                                          bench/gen_FORMAT.c)
#   BTF_N=10000000 HTF_N=20000000 ATF_N=4000000 TARMAC_N=1000000000
#   SHARK_N=67108864                       input sizes (as bench/*_read.sh)
#   N=10000000                             events of a format not named above
#   THREADS0=auto   auto: --threads 0 where accepted; never: on neither side
#   ONE_CPU=        a CPU number: both sides run pinned to it (taskset), so
#                   a side whose byte source reads ahead on a thread of its
#                   own (b75531a's BTF, ATF and Tarmac) gets no second CPU:
#                   single-thread speed, whatever the other CPU does
#   WORK=bench/out/compare   worktrees, builds, the last run's outputs
#   JOBS=2          parallel build jobs
#   CC=cc           compiler of the generators and rusage (CMake picks its own)
# Exit status: 0 (whatever the ratios), 2 on a usage, build or run error.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-7}
. "$HERE/lib.sh"
bench_init compare

WORK=${WORK:-$OUT/compare}
JOBS=${JOBS:-2}
FORMATS=${FORMATS:-}
THREADS0=${THREADS0:-auto}
ONE_CPU=${ONE_CPU:-}
PIN=()
if [[ -n $ONE_CPU ]]; then
	[[ $ONE_CPU =~ ^[0-9]+$ ]] || bench_die "ONE_CPU must be a CPU number (got '$ONE_CPU')"
	command -v taskset > /dev/null || bench_die "ONE_CPU needs taskset (util-linux)"
	PIN=(taskset -c "$ONE_CPU")
fi
BTF_N=${BTF_N:-10000000}
HTF_N=${HTF_N:-20000000}
ATF_N=${ATF_N:-4000000}
TARMAC_N=${TARMAC_N:-1000000000}
SHARK_N=${SHARK_N:-67108864}
[[ $THREADS0 == auto || $THREADS0 == never ]] || bench_die "THREADS0 must be auto or never (got '$THREADS0')"
for v in BTF_N HTF_N ATF_N TARMAC_N SHARK_N JOBS; do
	[[ ${!v} =~ ^[0-9]+$ && ${!v} -gt 0 ]] || bench_die "$v must be a positive integer (got '${!v}')"
done

if [[ ${1:-} == --clean ]]; then
	if [[ -d $WORK ]]; then
		for d in "$WORK"/src-*; do
			[[ -d $d ]] && git -C "$ROOT" worktree remove --force "$d"
		done
		rm -rf "$WORK"
	fi
	git -C "$ROOT" worktree prune
	echo "removed $WORK"
	exit 0
fi
[[ $# -le 2 ]] || bench_die "usage: compare.sh [A [B]] | --clean"
A_REV=${1:-b75531a}
B_REV=${2:-worktree}
mkdir -p "$WORK"

echo "host: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown CPU)," \
	"nproc $(nproc), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) (at the start)"

# --- the two builds ----------------------------------------------------------

# build_rev REV: sets TK (the binary) and LABEL (the revision, for the table)
build_rev() {
	local rev=$1 sha src bdir
	if [[ $rev == worktree ]]; then
		sha=$(git -C "$ROOT" rev-parse --short HEAD)
		LABEL="worktree $sha"
		[[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no) ]] && LABEL="$LABEL+changes"
		src=$ROOT
		bdir=$WORK/build-worktree
	else
		sha=$(git -C "$ROOT" rev-parse --verify --short "$rev^{commit}") ||
			bench_die "no revision '$rev'"
		LABEL="$rev"
		[[ $sha == "$rev"* ]] || LABEL="$rev ($sha)"
		src=$WORK/src-$sha
		bdir=$WORK/build-$sha
		if [[ ! -e $src/CMakeLists.txt ]]; then
			git -C "$ROOT" worktree prune
			git -C "$ROOT" worktree add --detach "$src" "$sha" > /dev/null ||
				bench_die "git worktree add $src $sha failed"
		fi
	fi
	echo "building $LABEL in $bdir ..."
	{
		cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DTK_SANITIZE=OFF -DTK_COVERAGE=OFF &&
			cmake --build "$bdir" --target tracekit -j "$JOBS"
	} > "$WORK/build.log" 2>&1 || { tail -n 20 "$WORK/build.log" >&2; bench_die "the build of $LABEL failed"; }
	TK=$bdir/tracekit
}
build_rev "$A_REV"
A_TK=$TK A_LABEL=$LABEL
build_rev "$B_REV"
B_TK=$TK B_LABEL=$LABEL

# --- the inputs --------------------------------------------------------------

# every format B reads (the registry: `tracekit formats --format csv`) that
# has a generator bench/gen_FORMAT.c, unless FORMATS names them
for t in "$B_TK" "$A_TK"; do
	[[ -z $FORMATS ]] || break
	for g in $("$t" formats --format csv 2> /dev/null | awk -F, 'NR > 1 && $2 == "yes" { print $1 }'); do
		[[ -f $HERE/gen_$g.c ]] && FORMATS="$FORMATS $g"
	done
done
[[ -n $FORMATS ]] || bench_die "neither build lists its formats (tracekit formats --format csv): give FORMATS"
for g in $FORMATS; do
	[[ -f $HERE/gen_$g.c ]] || bench_die "no generator bench/gen_$g.c for format '$g'"
	bench_build "$HERE/gen_$g.c" "$BIN/gen_$g"
done

# gen FILE COMMAND...: make FILE once (kept while newer than its generator)
gen() {
	local f=$1 g=$2
	shift
	if [[ ! -s $f || $g -nt $f ]]; then
		echo "generating $f ..."
		"$@" "$f.tmp" > /dev/null 2> "$WORK/gen.log" ||
			{ cat "$WORK/gen.log" >&2; bench_die "$g failed"; }
		mv -f "$f.tmp" "$f"
	fi
}

# input FORMAT [small]: sets FILE and ARGS (the info command's options) for
# FORMAT; with "small", a small input in $WORK to try the options on
input() {
	local dir=$OUT n1=$BTF_N n2=$HTF_N n3=$ATF_N n4=$TARMAC_N n5=$SHARK_N
	if [[ -n ${2:-} ]]; then
		dir=$WORK n1=1000 n2=1000 n3=1000 n4=100000 n5=1000
	fi
	case $1 in
	btf)
		FILE=$dir/trace_n${n1}_c4_s1.btf
		gen "$FILE" "$BIN/gen_btf" -n "$n1" -c 4 -s 1
		ARGS=(info) ;;
	htf)
		FILE=$dir/htf_n${n2}_c4.htf
		gen "$FILE" "$BIN/gen_htf" -n "$n2" -c 4
		ARGS=(info) ;;
	atf)
		FILE=$dir/atf_n${n3}_c2.atf
		gen "$FILE" "$BIN/gen_atf" -n "$n3" -c 2
		ARGS=(info -q) ;;
	tarmac)
		FILE=$dir/tarmac_b${n4}_fm_s1.tarmac
		gen "$FILE" "$BIN/gen_tarmac" -b "$n4" -v fm -s 1
		ARGS=(info) ;;
	shark)
		FILE=$dir/shark_n${n5}.bin
		gen "$FILE" "$BIN/gen_shark" -n "$n5"
		ARGS=(info -q --from shark) ;;
	*)
		# a format with no sizes of its own here: its generator's
		# -n N (N events) makes the input, `info -q` reads it
		local n=${N:-10000000}
		[[ -n ${2:-} ]] && n=1000
		FILE=$dir/$1_n$n.$1
		gen "$FILE" "$BIN/gen_$1" -n "$n"
		ARGS=(info -q --from "$1") ;;
	esac
}

# does binary $1 take --threads 0 for this format?  Tried on the small
# input (the Tarmac path of some revisions has no such option).
threads0() {
	[[ $THREADS0 == auto ]] && "$1" "${ARGS[@]}" --threads 0 "$FILE" > /dev/null 2>&1
}

FMTS=() FILES=() BYTESS=() CMDA=() CMDB=() OPTA=() OPTB=()
for f in $FORMATS; do
	input "$f" small
	A_OPT=() B_OPT=()
	if threads0 "$A_TK"; then A_OPT=(--threads 0); fi
	if threads0 "$B_TK"; then B_OPT=(--threads 0); fi
	input "$f"
	FMTS+=("$f")
	FILES+=("$FILE")
	BYTESS+=("$(stat -c %s "$FILE")")
	OPTA+=("${A_OPT[*]:--}")
	OPTB+=("${B_OPT[*]:--}")
	# the options go before FILE; printf %q words, given back by eval
	CMDA+=("$(printf '%q ' "$A_TK" "${ARGS[@]}" "${A_OPT[@]}" "$FILE")")
	CMDB+=("$(printf '%q ' "$B_TK" "${ARGS[@]}" "${B_OPT[@]}" "$FILE")")
done
echo "warming the page cache ..."
for f in "${FILES[@]}"; do cat "$f" > /dev/null; cat "$f" > /dev/null; done

# --- the runs ----------------------------------------------------------------

declare -A SECS KB
# one SIDE (A or B) on format i: seconds and KiB appended; the stdout kept
run_one() {
	local side=$1 i=$2 st=0 sec kb
	local -a cmd
	if [[ $side == A ]]; then eval "cmd=(${CMDA[$i]})"; else eval "cmd=(${CMDB[$i]})"; fi
	"$RUSAGE" "$WORK/.m" "${PIN[@]}" "${cmd[@]}" > "$WORK/${FMTS[$i]}.$side.stdout" \
		2> "$WORK/${FMTS[$i]}.$side.stderr" || st=$?
	if [[ $st != 0 ]]; then
		echo "${FMTS[$i]}: $side ($(printf '%s ' "${cmd[@]}")) failed with status $st:" >&2
		head -n 5 "$WORK/${FMTS[$i]}.$side.stderr" | sed 's/^/    /' >&2
		exit 2
	fi
	read -r sec kb _ < "$WORK/.m"
	SECS[$side,$i]="${SECS[$side,$i]:-} $sec"
	(( kb > ${KB[$side,$i]:-0} )) && KB[$side,$i]=$kb
	return 0
}

echo "running $RUNS rounds of ${#FMTS[@]} formats, A then B (interleaved)"
for ((r = 1; r <= RUNS; r++)); do
	for ((i = 0; i < ${#FMTS[@]}; i++)); do
		run_one A "$i"
		run_one B "$i"
	done
done

# --- the table ---------------------------------------------------------------

echo
echo "A: $A_LABEL ($A_TK)"
echo "B: $B_LABEL ($B_TK)"
echo "median of $RUNS runs, A and B interleaved in every round, warm page cache; MB/s = input bytes / median / 1e6;"
echo "B/A = A median / B median (above 1: B faster; 'slow' below 0.90); RSS = max over the runs;"
echo "options: what each side was given besides the format's own ('-': no --threads option)"
echo "host at the end: nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n $ONE_CPU ]] && echo "both sides pinned to CPU $ONE_CPU (ONE_CPU): one CPU each, read-ahead threads included"
echo
printf '%-7s %8s | %-11s %7s %6s %7s | %-11s %7s %6s %7s | %5s %-4s | %s\n' \
	format "input MB" "A options" "A s" "A MB/s" "A RSS" "B options" "B s" "B MB/s" "B RSS" "B/A" "" "same stdout"
printf '%s\n' "------------------------------------------------------------------------------------------------------------------"
for ((i = 0; i < ${#FMTS[@]}; i++)); do
	# shellcheck disable=SC2086 # the seconds, one word each
	ma=$(printf '%s\n' ${SECS[A,$i]} | bench_median)
	# shellcheck disable=SC2086
	mb=$(printf '%s\n' ${SECS[B,$i]} | bench_median)
	same=no
	cmp -s "$WORK/${FMTS[$i]}.A.stdout" "$WORK/${FMTS[$i]}.B.stdout" && same=yes
	awk -v f="${FMTS[$i]}" -v b="${BYTESS[$i]}" -v ma="$ma" -v mb="$mb" \
		-v ka="${KB[A,$i]}" -v kb="${KB[B,$i]}" -v same="$same" \
		-v oa="${OPTA[$i]}" -v ob="${OPTB[$i]}" 'BEGIN {
		ratio = ma / mb
		printf("%-7s %8.1f | %-11s %7.3f %6.0f %7.1f | %-11s %7.3f %6.0f %7.1f | %5.2f %-4s | %s\n",
		       f, b / 1e6, oa, ma, b / ma / 1e6, ka / 1024, ob, mb, b / mb / 1e6, kb / 1024,
		       ratio, ratio < 0.90 ? "slow" : "", same)
	}'
done
echo "(RSS: peak resident MB)"
echo
echo "the last run's outputs: $WORK/<format>.{A,B}.{stdout,stderr}"
