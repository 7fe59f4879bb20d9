#!/bin/sh
# The S.Ha.R.K. reader gives the same results with its decoding on a second
# thread (--threads 1) as without (--threads 0), and as --threads auto:
# `cat` and `convert` (to BTF) of every test input, lenient and --strict,
# compared on stdout, stderr (warnings, error messages), exit status and
# the output file; inputs: the format's cases (make_cases.py, ok and fail),
# the corpus dump, the irregular dumps of make_threads.py (new contexts,
# unknown codes, descents, empty slots, sorted and rotated dumps, a clock
# rate change, ...; large ones for --threads auto and the scan at open in
# two halves), a generated dump of more than 32 MiB (`info`, `stats`; and
# with a clock change, against the same bytes from a pipe), and a
# stream (a pipe of more than 64 MiB: that dump with an irregular tail,
# through `info`).
# The warnings that reach the callback come exactly between the events of
# the records before theirs and their record's events, the same with and
# without the thread (warn_order.c).
# A dump cut short while it is read gives one clean error (shrink.c).
# Usage: threads.sh TRACEKIT DIR CORPUS_DUMP GEN_SHARK WARN_ORDER SHRINK
set -u
cli=$1 dir=$2 corpus=$3 gen=$4 order=$5 shrink=$6
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
python3 "$dir/make_cases.py" "$tmp/cases" > /dev/null || { echo "FAIL: make_cases.py"; exit 1; }
python3 "$dir/make_threads.py" "$tmp/thr" || { echo "FAIL: make_threads.py"; exit 1; }

# run T CMD ARGS...: one reading with --threads T into $tmp/T.{out,err,rc}
run() {
	t=$1 cmd=$2
	shift 2
	rm -f "$tmp/o.btf"
	if [ "$cmd" = convert ]; then
		"$cli" convert --threads "$t" "$@" "$tmp/o.btf" > "$tmp/$t.out" 2> "$tmp/$t.err"
		echo $? > "$tmp/$t.rc"
		if [ -e "$tmp/o.btf" ]; then cat "$tmp/o.btf" >> "$tmp/$t.out"; else echo "(no file)" >> "$tmp/$t.out"; fi
	else
		"$cli" "$cmd" --threads "$t" "$@" > "$tmp/$t.out" 2> "$tmp/$t.err"
		echo $? > "$tmp/$t.rc"
	fi
}

# same CMD ARGS...: threads 0 vs 1 (and auto)
same() {
	n=$((n + 1))
	run 0 "$@"
	for t in 1 auto; do
		run $t "$@"
		for k in out err rc; do
			if ! cmp -s "$tmp/0.$k" "$tmp/$t.$k"; then
				echo "FAIL: $* --threads $t: $k differs from --threads 0"
				diff "$tmp/0.$k" "$tmp/$t.$k" | head -5
				fail=1
			fi
		done
	done
}

inputs="$tmp/cases/ok/*.bin $tmp/cases/fail/*.bin $tmp/cases/tools/*.bin"
inputs="$inputs $tmp/thr/mixed.bin $tmp/thr/clock.bin $tmp/thr/sorted.bin $tmp/thr/wrapped.bin $tmp/thr/tail.bin"
[ -f "$corpus" ] && inputs="$inputs $corpus"
for in in $inputs; do
	for mode in "" --strict; do
		# shellcheck disable=SC2086
		same cat $mode --from shark "$in"
		# shellcheck disable=SC2086
		same convert $mode --from shark "$in"
	done
done
# the large ones: cat, and the first failure of --strict
for in in "$tmp"/thr/big*.bin; do
	same cat --from shark "$in"
	same info --strict --from shark "$in"
done
# where the warnings come among the events
for in in "$tmp"/thr/mixed.bin "$tmp"/thr/wrapped.bin "$tmp"/thr/big.bin "$tmp"/thr/big_sort.bin; do
	n=$((n + 1))
	for t in 0 1 -1; do
		"$order" "$in" $t > "$tmp/w$t" 2>&1 || { echo "FAIL: warn_order $in $t"; head -5 "$tmp/w$t"; fail=1; }
	done
	cmp -s "$tmp/w0" "$tmp/w1" && cmp -s "$tmp/w0" "$tmp/w-1" ||
		{ echo "FAIL: warn_order $in: the warnings come elsewhere with a thread"; diff "$tmp/w0" "$tmp/w1" | head -5; fail=1; }
done
# the irregular dumps do warn and fail
"$cli" cat --from shark "$tmp/thr/big.bin" 2>&1 > /dev/null | grep -q "warnings in all" ||
	{ echo "FAIL: big.bin gives no warnings"; fail=1; }
"$cli" cat --strict --from shark "$tmp/thr/big.bin" > /dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: big.bin --strict does not fail"; fail=1; }

# a stream: more than 64 MiB through a pipe (read as it comes)
"$gen" -n 4300000 "$tmp/g.bin" || { echo "FAIL: gen_shark"; exit 1; }
# (a plain file of more than 32 MiB: read with pread() in both passes)
same info --from shark "$tmp/g.bin"
same stats --from shark "$tmp/g.bin"
# (and auto threads where the pipe loses each time it is timed: its
# worker stopped and started again every few blocks)
export TRACEKIT_TEST_PIPE_LOSES=1
for cmd in info stats; do
	n=$((n + 1))
	run auto $cmd --from shark "$tmp/g.bin"
	mv "$tmp/auto.out" "$tmp/lose.out"
	unset TRACEKIT_TEST_PIPE_LOSES
	run 0 $cmd --from shark "$tmp/g.bin"
	export TRACEKIT_TEST_PIPE_LOSES=1
	cmp -s "$tmp/0.out" "$tmp/lose.out" ||
		{ echo "FAIL: $cmd g.bin: auto threads with the pipe stopped differ"; diff "$tmp/0.out" "$tmp/lose.out" | head -5; fail=1; }
done
unset TRACEKIT_TEST_PIPE_LOSES
# a plain file of more than 32 MiB whose clock rate changes mid-way: its
# first rate is looked for with pread() too; the same as the same bytes
# held whole from a pipe (through the mapping code's twin), and on every
# thread mode
python3 - "$tmp/g.bin" "$tmp/gc.bin" <<'PY' || { echo "FAIL: gc.bin"; exit 1; }
import sys
d = bytearray(open(sys.argv[1], 'rb').read(16 * 3000000))
k = 16 * 1500000
d[k:k + 2] = b'\x10\x00'            # cycles_per_msec, its TSC kept
d[k + 12:k + 16] = (1000000).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(d)
PY
same info --from shark "$tmp/gc.bin"
n=$((n + 1))
"$cli" info --threads 0 --from shark - < "$tmp/gc.bin" 2>&1 | grep -v '^file:' > "$tmp/gc.pipe"
"$cli" info --threads 0 --from shark "$tmp/gc.bin" 2>&1 | grep -v '^file:' > "$tmp/gc.file"
sed 's/^<stdin>:/gc.bin:/' "$tmp/gc.pipe" > "$tmp/gc.pipe2"
sed "s|^$tmp/gc.bin:|gc.bin:|" "$tmp/gc.file" > "$tmp/gc.file2"
grep -q "time unit:   ps" "$tmp/gc.file2" ||
	{ echo "FAIL: gc.bin: no clock change seen"; fail=1; }
cmp -s "$tmp/gc.pipe2" "$tmp/gc.file2" ||
	{ echo "FAIL: gc.bin: the file and the pipe differ"; diff "$tmp/gc.pipe2" "$tmp/gc.file2" | head -5; fail=1; }
rm -f "$tmp"/gc.*
# a dump cut short while it is read: one clean error, then the end
"$gen" -n 400000 "$tmp/cut.bin" || { echo "FAIL: gen_shark"; exit 1; }
for t in 0 1; do
	n=$((n + 1))
	cp "$tmp/cut.bin" "$tmp/cut$t.bin"
	"$shrink" "$tmp/cut$t.bin" $t > /dev/null || { echo "FAIL: shark_shrink --threads $t"; fail=1; }
done
# the same, the dump's halves swapped: two runs, merged (read out of file
# order); the error names where the file now ends
tail -c +3200001 "$tmp/cut.bin" > "$tmp/runs.bin"
head -c 3200000 "$tmp/cut.bin" >> "$tmp/runs.bin"
for t in 0 1; do
	n=$((n + 1))
	cp "$tmp/runs.bin" "$tmp/cut$t.bin"
	"$shrink" "$tmp/cut$t.bin" $t > /dev/null || { echo "FAIL: shark_shrink (two runs) --threads $t"; fail=1; }
done
rm -f "$tmp"/cut*.bin "$tmp/runs.bin"
cat "$tmp/g.bin" "$tmp/thr/tail.bin" > "$tmp/s.bin"
rm -f "$tmp/g.bin"
for mode in "" --strict; do
	n=$((n + 1))
	for t in 0 1 auto; do
		# shellcheck disable=SC2086
		cat "$tmp/s.bin" | "$cli" info --threads $t $mode - > "$tmp/$t.out" 2> "$tmp/$t.err"
		echo $? > "$tmp/$t.rc"
	done
	for t in 1 auto; do
		for k in out err rc; do
			cmp -s "$tmp/0.$k" "$tmp/$t.$k" ||
				{ echo "FAIL: stream $mode --threads $t: $k differs"; diff "$tmp/0.$k" "$tmp/$t.$k" | head -5; fail=1; }
		done
	done
	grep -q "TSC.*\(decreases\|is before\)" "$tmp/0.err" ||
		{ echo "FAIL: stream $mode: no descent reported"; cat "$tmp/0.err"; fail=1; }
done
[ $fail = 0 ] && echo "shark threads: $n readings the same with --threads 0, 1 and auto"
exit $fail
