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
writer=
trap '[ -n "$writer" ] && kill "$writer" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0 count=0 turn=0 seen=
for tool in gzip zstd python3; do
	command -v $tool > /dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
mkdir "$tmp/in" "$tmp/run"

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
		python3 "$tests/stream/gen.py" "$fmt" "$s" "$tmp/in/gen_$s.$fmt" || exit 1
	done ;;
shark)
	python3 "$tests/formats/shark/make_cases.py" "$tmp/cases" > /dev/null ||
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
	python3 "$tests/formats/ftstream/make_cases.py" "$tmp/cases" > /dev/null ||
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
		python3 "$tests/formats/ftstream/make_cases.py" --gen $((s / 6)) "$tmp/in/gen_$s.ftstream" || exit 1
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
			python3 "$tests/stream/gen.py" btf $((s * k)) "$tmp/gen.btf" || exit 1
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
cd "$tmp/run" || exit 1
# a read that hangs fails (exit 124) instead of holding the test up
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout ${TK_STREAM_TIMEOUT:-120}"
# S.Ha.R.K. has no magic to probe, and a broken input (fail/) may be told
# by its file's extension only: both are named (--from)
base_from=
case $fmt in shark) base_from="--from $fmt" ;; esac
# run NAME CMD ARGS INPUT [< file]: out/err/rc of `tracekit CMD` in NAME.*
run() {
	v=$1 cmd=$2 input=$3
	shift 3
	# shellcheck disable=SC2086
	$limit "$cli" "$cmd" $from $args "$input" > "$v.out" 2> "$v.err"
	echo $? > "$v.rc"
}
# the name of the input in messages and info's first line is not compared
norm() {
	sed -e 's/tkin\.[a-z.]*/INPUT/g' -e 's/<stdin>/INPUT/g' -e 's/^file: *.*$/file: INPUT/' "$1"
}
# (equal bytes need no normalising; the reference's is made once per run
# of it: $normed lists the parts done)
normed=
same() { # ref variant what
	for x in out err rc; do
		cmp -s "$1.$x" "$2.$x" && continue
		case " $normed " in *" $x "*) ;; *)
			norm "$1.$x" > "$1.$x.n" && normed="$normed $x" ;;
		esac
		if ! norm "$2.$x" > "$2.$x.n" || ! cmp -s "$1.$x.n" "$2.$x.n"; then
			echo "FAIL $name ($3, $2): $x differs from the file's"
			diff "$1.$x.n" "$2.$x.n" | head -8
			fail=1
			return
		fi
	done
}
for f in "$tmp"/in/*."$fmt"; do
	name=$(basename "$f")
	stem=${f%.*}
	args=""
	[ -f "$stem.args" ] && args=$(cat "$stem.args")
	from=$base_from
	case $name in fail_*) from="--from $fmt" ;; esac
	cp "$f" "tkin.$fmt"
	gzip -c "tkin.$fmt" > "tkin.$fmt.gz"
	zstd -q -c "tkin.$fmt" > "tkin.$fmt.zst"
	cmds="cat info"
	if [ "$full" != 1 ]; then
		# one of the two commands per input, in turn
		case $((turn % 2)) in 0) cmds=cat ;; 1) cmds=info ;; esac
	fi
	for cmd in $cmds; do
		run file $cmd "tkin.$fmt"
		normed=
		# what must read does (so that a matrix of failures to start
		# cannot pass)
		case $f in */fail_*) ;; *)
			if [ "$(cat file.rc)" != 0 ] || [ ! -s file.out ]; then
				echo "FAIL $name ($cmd, file): exit $(cat file.rc)"
				head -n 3 file.err
				fail=1
			fi ;;
		esac
		# the variants this input is read through (all of them in the
		# full matrix, one in turn in the sampled one)
		variants="stdin pipe gz zst gzpipe zstpipe fifo"
		# (the first input through all of them, so that a format of
		# few inputs has every transport read too)
		if [ "$full" != 1 ] && [ "$count" -gt 0 ]; then
			turn=$((turn + 1))
			set -- $variants
			shift $((turn % 7))
			variants=$1
		fi
		for v in $variants; do
			case $v in
			stdin) run stdin $cmd - < "tkin.$fmt" ;;
			pipe) cat "tkin.$fmt" | run pipe $cmd - ;;
			gz) run gz $cmd "tkin.$fmt.gz" ;;
			zst) run zst $cmd "tkin.$fmt.zst" ;;
			gzpipe) gzip -c "tkin.$fmt" | run gzpipe $cmd - ;;
			zstpipe) zstd -q -c "tkin.$fmt" | run zstpipe $cmd - ;;
			fifo)
				rm -f tkin.fifo
				if mkfifo tkin.fifo 2> /dev/null; then
					cat "tkin.$fmt" > tkin.fifo &
					writer=$!
					run fifo $cmd tkin.fifo
					# a reader that stopped early (or never
					# opened it) ends the writer: it must not
					# block the test
					kill "$writer" 2> /dev/null
					wait "$writer" 2> /dev/null
					writer=
				else
					variants=$(echo "$variants" | sed 's/ *fifo//')
				fi ;;
			esac
		done
		seen="$seen $variants"
		for v in $variants; do
			same file "$v" "$cmd"
		done
		count=$((count + 1))
	done
done
# the sampled matrix must still have read through every transport
for v in stdin pipe gz zst gzpipe zstpipe fifo; do
	case " $seen " in *" $v "*) ;; *)
		command -v mkfifo > /dev/null 2>&1 || [ $v != fifo ] || continue
		echo "FAIL: no input was read through $v"; fail=1 ;;
	esac
done
if [ $fail = 0 ]; then
	if [ "$full" = 1 ]; then
		echo "stream matrix $fmt: $count inputs x commands, each the same from 8 transports"
	else
		echo "stream matrix $fmt (sampled; TK_TEST_FULL=1 for all): $count inputs x commands, each the same from the file and one other transport in turn"
	fi
fi
exit $fail
