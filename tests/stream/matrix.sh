#!/bin/sh
# The transports of an input must not change what is read from it: every
# input of format FMT (its tests/formats ok/ and fail/ inputs, the examples,
# the shared corpus, and generated inputs of about 6 KiB, 300 KiB, 1.3 MiB
# (and 4.5 MiB for ATF, past its 4 MiB prescan) whose refills fall
# anywhere in a line or a token: BTF and Tarmac from tests/stream/gen.py,
# S.Ha.R.K. from its generator, the recorder's stream from its make_cases.py, every other format that is written (the
# registry says which) converted from a generated BTF) is read by
# `tracekit cat` and `tracekit info` from the file, then from standard
# input (redirected), a pipe, a FIFO, a .gz and a .zst file and gzip and
# zstd through a pipe; each must give the file's standard output, exit
# status and messages (the input's name aside) exactly.
# That is the exhaustive matrix, run by `make test-full` (TK_TEST_FULL=1).
# `make test` samples it: every input is read by one of the two commands
# from the file and from one of the other transports, in turn (so that each
# transport reads inputs of every kind; the first input from all of them),
# and only the generated inputs up to 300 KiB are made.
# Usage: matrix.sh CLI FMT TESTS_DIR SHARED_DIR [SHARK_GEN]
set -u
full=${TK_TEST_FULL:-0}
fmt=$2 tests=$(cd "$3" && pwd) shared=$4 gen=${5:-}
# the runs are made in a directory of their own: absolute paths
cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -z "$gen" ] || gen=$(cd "$(dirname "$gen")" && pwd)/$(basename "$gen")
[ -d "$shared" ] && shared=$(cd "$shared" && pwd)
root=$(cd "$tests/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for tool in gzip zstd python3; do
	command -v $tool > /dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
mkdir "$tmp/in" "$tmp/run"
# the interpreter itself, found once (python3 may be a launcher that costs
# more than the scripts run by it, for every call)
py=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) && [ -x "$py" ] || py=python3

# ---- the inputs: $tmp/in/NAME.FMT, options in $tmp/in/NAME.args ----------
add() { # file [name]
	[ -f "$1" ] || return 0
	b=${2:-$(basename "$1")}
	cp "$1" "$tmp/in/$b"
	stem=${1%.*}
	if [ -f "$stem.args" ]; then
		cp "$stem.args" "$tmp/in/${b%.*}.args"
	fi
}
for f in "$tests/formats/$fmt"/ok/*."$fmt" "$root"/examples/*."$fmt"; do
	add "$f"
done
# inputs that must fail: named fail_*
for f in "$tests/formats/$fmt"/fail/*."$fmt"; do
	add "$f" "fail_$(basename "$f")"
done
for f in "$shared/corpus/$fmt"/*."$fmt"; do
	add "$f" "corpus_$(basename "$f")"
done
big="6000 300000 1300000"
[ "$full" = 1 ] || big="6000 300000"
case $fmt in
btf | tarmac)
	for s in $big; do
		"$py" "$tests/stream/gen.py" "$fmt" "$s" "$tmp/in/gen_$s.$fmt" || exit 1
	done ;;
shark)
	"$py" "$tests/formats/shark/make_cases.py" "$tmp/cases" > /dev/null ||
		{ echo "FAIL: make_cases.py"; exit 1; }
	for f in "$tmp"/cases/ok/*.bin "$tmp"/cases/fail/*.bin; do
		n=$(basename "${f%.bin}")
		case $f in */fail/*) n=fail_$n ;; esac
		add "$f" "$n.shark"
		case $f in *_strict.bin) echo --strict > "$tmp/in/$n.args" ;; esac
	done
	rm -rf "$tmp/cases"
	for f in "$shared"/corpus/shark/*.bin; do
		add "$f" "corpus_$(basename "${f%.bin}").shark"
	done
	if [ -n "$gen" ]; then
		shark_sizes="400 20000 90000"
		[ "$full" = 1 ] || shark_sizes="400 20000"
		for n in $shark_sizes; do
			"$gen" -n $n "$tmp/in/gen_$n.shark" > /dev/null || exit 1
		done
	fi ;;
ftstream)
	"$py" "$tests/formats/ftstream/make_cases.py" "$tmp/cases" > /dev/null ||
		{ echo "FAIL: make_cases.py"; exit 1; }
	for f in "$tmp"/cases/ok/*.tks "$tmp"/cases/fail/*.tks; do
		n=$(basename "${f%.tks}")
		case $f in */fail/*) n=fail_$n ;; esac
		add "$f" "$n.ftstream"
		case $f in *_strict.tks) echo --strict > "$tmp/in/$n.args" ;; esac
	done
	rm -rf "$tmp/cases"
	# streams of about 6 KiB, 300 KiB (1.3 MiB), 6 bytes an event
	for s in $big; do
		"$py" "$tests/formats/ftstream/make_cases.py" --gen $((s / 6)) "$tmp/in/gen_$s.ftstream" || exit 1
	done ;;
*)
	# every other format read and written (the registry says which: a
	# format added needs no line here): converted from generated BTF
	# (HTF holds an event in fewer bytes; ATF's largest input passes its
	# 4 MiB prescan)
	if "$cli" formats --format csv |
		awk -F, -v f="$fmt" '$1 == f && $3 == "yes" { w = 1 } END { exit !w }'; then
		k=2
		[ "$fmt" = htf ] && k=8
		[ "$fmt" = atf ] && [ "$full" = 1 ] && big="$big 4500000"
		for s in $big; do
			"$py" "$tests/stream/gen.py" btf $((s * k)) "$tmp/gen.btf" || exit 1
			"$cli" convert -q "$tmp/gen.btf" "$tmp/in/gen_$s.$fmt" 2> /dev/null ||
				{ echo "FAIL: cannot convert a generated BTF to $fmt"; exit 1; }
		done
		rm -f "$tmp/gen.btf"
	else
		# inputs whose refills fall inside lines are not optional
		echo "FAIL: $fmt is read only and has no generator here (a case above)"
		exit 1
	fi ;;
esac

# ---- the matrix ------------------------------------------------------------
# (tests/stream/matrix.py: the runs of tracekit started one by one from a
# single process, with no shell, `timeout`, `cmp` or `sed` around each;
# a read that hangs past TK_STREAM_TIMEOUT (120 s) fails as exit 124)
# S.Ha.R.K. has no magic to probe, and a broken input (fail/) may be told
# by its file's extension only: both are named (--from)
base_from=
case $fmt in shark) base_from="--from $fmt" ;; esac
"$py" "$tests/stream/matrix.py" "$cli" "$fmt" "$tmp" "$full" "$base_from" "$tmp"/in/*."$fmt" || fail=1
exit $fail
