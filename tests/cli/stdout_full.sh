#!/bin/sh
# Every command that writes to standard output notices a write error there
# (/dev/full: "No space left on device"): exit 2 and one line on stderr,
# where it would otherwise succeed (checked first with /dev/null).
set -u
cli=$1 root=$2
cd "$root" || exit 1
[ -w /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
shark=../shared/corpus/shark/shark-demo-trace.bin
tarmac=../shared/corpus/tarmac/calculator-aarch64-gem5.tarmac
demo=examples/demo.btf

try() {
	# shellcheck disable=SC2086
	"$cli" "$@" > /dev/null 2> "$tmp/err0"
	rc=$?
	if [ $rc != 0 ] && [ $rc != 1 ]; then
		echo "FAIL: '$*' fails even to /dev/null ($rc): $(head -n 1 "$tmp/err0")"
		fail=1
		return
	fi
	"$cli" "$@" > /dev/full 2> "$tmp/err"
	rc=$?
	if [ $rc != 2 ]; then
		echo "FAIL: '$*' > /dev/full: exit $rc, expected 2"
		fail=1
	elif [ "$(wc -l < "$tmp/err")" != 1 ] ||
	     ! grep -Eq '^<stdout>: error: write failed(: No space left on device)?$' "$tmp/err"; then
		echo "FAIL: '$*' > /dev/full: stderr is not one line:"; cat "$tmp/err"
		fail=1
	fi
	n=$((n + 1))
}

try --help
try -h
try help
try --version
try version
try formats
for c in info cat convert check stats verify diff load report formats shark-receive; do
	try $c --help
done
try info $demo
try info --format json $demo
try cat $demo
try cat --no-header $demo
for to in $("$cli" formats --format csv | awk -F, 'NR > 1 && $4 == "yes" { print $1 }'); do
	try convert -q $demo - --to $to
done
try check $demo
try check examples/demo.btf --max-errors 1
try stats $demo
try stats --format csv $demo
try stats --format json $demo
for f in text json junit; do
	try verify $demo -r tests/verify/demo_fail.yaml --format $f
done
for f in text csv json; do
	try diff $demo tests/cli/stats_chain.btf --format $f
done
try load $demo
try load --window 1ms $demo
try report -q $demo -o -
if [ -e $shark ]; then
	try info -q $shark
	try cat -q $shark
	try convert -q $shark - --to shark-list
	try convert -q $shark - --to shark-pwc
	try stats -q $shark
else
	echo "note: $shark missing, S.Ha.R.K. commands not checked"
fi
if [ -e $tarmac ]; then
	try info $tarmac
	try cat $tarmac
	try stats $tarmac
else
	echo "note: $tarmac missing, Tarmac commands not checked"
fi
[ $fail = 0 ] && echo "stdout write errors: $n commands checked"
exit $fail
