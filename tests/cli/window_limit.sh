#!/bin/sh
# A --window far too short for the trace (1 ns over 20 ms: 20 M windows,
# the limit is 10 M) is refused before the windows are made, whatever the
# input: a file, standard input or /dev/fd/N on a pipe, gzip and zstd
# (file or pipe), and `dataset`, whose input is reported and skipped with
# no file of any table left.  The trace has an event every 50 us, so that the windows up
# to each event pass the limit only near its end: before the fix, 10 M
# windows were made first (320 MB of temporary file for `load`).  The file
# size limit (ulimit -f) stands for "little work": a run that writes the
# windows out is killed (SIGXFSZ).  It is a few MB: the windows made
# before the span is read ahead are few (a million of them, 32 MB for
# `load`, before tk_load_set_limit() read ahead by the cost of the windows).
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
msg='tracekit: load: --window 1ns makes more than 10000000 windows of this trace: give a longer window'
{
	printf '#version 2.2.0\n#timeScale ns\n'
	awk 'BEGIN { for (i = 0; i < 400; i++) {
		t = i * 50000
		printf "%d,Core_1,0,T,A,0,resume,\n%d,Core_1,0,T,A,0,preempt,\n", t, t + 25000 } }'
} > "$tmp/t.btf"
gzip -c "$tmp/t.btf" > "$tmp/t.btf.gz"
have_zstd=0
command -v zstd > /dev/null 2>&1 && zstd -q -c "$tmp/t.btf" > "$tmp/t.btf.zst" && have_zstd=1

# run CMD...: exit status in $rc, stdout in $tmp/out, stderr in $tmp/err,
# at most 4096 blocks (2 or 4 MB) written to any file and 300 s
run() {
	( ulimit -f 4096; TMPDIR=$tmp exec timeout 300 "$@" ) > "$tmp/out" 2> "$tmp/err"
	rc=$?
}
check_load() {
	what=$1
	[ "$rc" = 2 ] || { echo "FAIL: $what: exit $rc"; fail=1; }
	[ "$(cat "$tmp/err")" = "$msg" ] || { echo "FAIL: $what: stderr: $(head -c 300 "$tmp/err")"; fail=1; }
	[ ! -s "$tmp/out" ] || { echo "FAIL: $what: output written"; fail=1; }
}
run "$cli" load -q --window 1ns "$tmp/t.btf"
check_load "file"
run sh -c 'cat "$1" | "$2" load - --window 1ns -q' sh "$tmp/t.btf" "$cli"
check_load "standard input"
run sh -c 'cat "$1" | "$2" load -q --window 1ns /dev/fd/3 3<&0' sh "$tmp/t.btf" "$cli"
check_load "/dev/fd/3 on a pipe"
run "$cli" load -q --window 1ns "$tmp/t.btf.gz"
check_load "gzip file"
run sh -c 'cat "$1" | "$2" load -q --window 1ns -' sh "$tmp/t.btf.gz" "$cli"
check_load "gzip on standard input"
if [ $have_zstd = 1 ]; then
	run "$cli" load -q --window 1ns "$tmp/t.btf.zst"
	check_load "zstd file"
	run sh -c 'cat "$1" | "$2" load -q --window 1ns -' sh "$tmp/t.btf.zst" "$cli"
	check_load "zstd on standard input"
fi
# a window the trace takes: the same output from standard input as from
# the file
"$cli" load --window 1ms "$tmp/t.btf" > "$tmp/want" || { echo "FAIL: load 1ms"; fail=1; }
cat "$tmp/t.btf" | "$cli" load --window 1ms - > "$tmp/got" || { echo "FAIL: load 1ms from stdin"; fail=1; }
cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: load 1ms from stdin differs"; fail=1; }
cat "$tmp/t.btf" | "$cli" load --window 1ms /dev/fd/3 3<&0 > "$tmp/got" || { echo "FAIL: load 1ms from /dev/fd/3"; fail=1; }
cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: load 1ms from /dev/fd/3 differs"; fail=1; }
# an error in a piped input names it as before, with its line
printf '#version 2.2.0\n#timeScale ns\n0,Core_1,0,T,A,0,resume,\nbad\n' |
	"$cli" load --window 1ms - > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q '^<stdin>:4:' "$tmp/err" && [ ! -s "$tmp/out" ] ||
	{ echo "FAIL: bad piped input: exit $rc: $(cat "$tmp/err")"; fail=1; }
# a piped input that cannot be copied (no such TMPDIR): named, nothing
# written
cat "$tmp/t.btf" | TMPDIR=$tmp/none "$cli" load --window 1ms - > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "<stdin>: error: cannot create a temporary file in $tmp/none: No such file or directory" ] ||
	{ echo "FAIL: no TMPDIR: exit $rc: $(cat "$tmp/err")"; fail=1; }
[ "$(grep -c '^ *[0-9].*Core_1' "$tmp/want")" -ge 20 ] || { echo "FAIL: no windows"; cat "$tmp/want"; fail=1; }
ls "$tmp" | grep -q tracekit- && { echo "FAIL: temporary file left"; fail=1; }

# dataset: the input refused is named, skipped and leaves nothing; the
# other is added
awk 'BEGIN { print "#version 2.2.0"; print "#timeScale ns"
	for (i = 0; i < 10; i++) printf "%d,Core_1,0,T,A,0,resume,\n%d,Core_1,0,T,A,0,preempt,\n", i * 1000, i * 1000 + 500 }' > "$tmp/small.btf"
run "$cli" dataset "$tmp/ds" "$tmp/t.btf" "$tmp/small.btf" --window 1ns
[ "$rc" = 2 ] || { echo "FAIL: dataset: exit $rc"; fail=1; }
[ "$(cat "$tmp/err")" = "$tmp/t.btf: error: over 10000000 load windows: use a longer --window" ] ||
	{ echo "FAIL: dataset: stderr: $(head -c 300 "$tmp/err")"; fail=1; }
for table in events instances metrics load traces; do
	n=$(ls "$tmp/ds/$table" 2> /dev/null | wc -l)
	[ "$n" = 1 ] || { echo "FAIL: dataset: $n files in $table/"; ls -la "$tmp/ds/$table"; fail=1; }
	ls "$tmp/ds/$table" | grep -q '^small-' || { echo "FAIL: dataset: no small in $table/"; fail=1; }
done
run "$cli" dataset --append "$tmp/ds" "$tmp/t.btf.gz" --window 1ns -q
[ "$rc" = 2 ] || { echo "FAIL: dataset gzip: exit $rc"; fail=1; }
grep -q 'over 10000000 load windows' "$tmp/err" || { echo "FAIL: dataset gzip: stderr: $(head -c 300 "$tmp/err")"; fail=1; }
[ "$(find "$tmp/ds" -type f | wc -l)" = 5 ] || { echo "FAIL: dataset gzip: files left"; find "$tmp/ds" -type f; fail=1; }
[ $fail = 0 ] && echo "window limit: all checks passed"
exit $fail
