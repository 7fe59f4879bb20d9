#!/bin/sh
# Recorder stream inputs: every ok/NAME.tks reads (`cat -q`, the format
# probed) to NAME.out exactly (the inputs are written by make_cases.py at
# each run), and its BTF conversion reads back to the same events; every
# fail/NAME.tks is refused (exit 2, first stderr line = NAME.err, no output
# file left).  Names ending in _strict are read with --strict.
set -u
cli=$1 dir=$(cd "$2" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 "$dir/make_cases.py" "$tmp/in" || { echo "FAIL: make_cases.py"; exit 1; }
cd "$tmp/in/ok" || exit 1
for in in *.tks; do
	stem=$dir/ok/${in%.tks}
	if ! "$cli" cat -q "$in" > "$tmp/out" 2> "$tmp/err"; then
		echo "FAIL $in: exit $?"; cat "$tmp/err"; fail=1; continue
	fi
	cmp -s "$tmp/out" "$stem.out" || { echo "FAIL $in: differs from $stem.out"; diff "$stem.out" "$tmp/out" | head -20; fail=1; }
	"$cli" convert -q --option as-read=1 "$in" "$tmp/rt.btf" || { echo "FAIL $in: convert"; fail=1; continue; }
	"$cli" cat -q "$tmp/rt.btf" > "$tmp/out2" || { echo "FAIL $in: BTF re-read"; fail=1; continue; }
	cmp -s "$tmp/out" "$tmp/out2" || { echo "FAIL $in: BTF round trip differs"; diff "$tmp/out" "$tmp/out2" | head; fail=1; }
	rm -f "$tmp/rt.btf"
done
cd "$tmp/in/fail" || exit 1
for in in *.tks; do
	stem=$dir/fail/${in%.tks}
	args=""
	case $stem in *_strict) args=--strict ;; esac
	# shellcheck disable=SC2086
	"$cli" cat -q $args --force-format --from ftstream "$in" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL $in: exit $rc, expected 2"; fail=1; }
	head -n 1 "$tmp/err" | cmp -s - "$stem.err" || { echo "FAIL $in: got '$(head -n 1 "$tmp/err")'"; fail=1; }
	# shellcheck disable=SC2086
	"$cli" convert -q $args --force-format --from ftstream "$in" "$tmp/x.btf" 2> /dev/null
	[ $? -eq 2 ] && [ ! -e "$tmp/x.btf" ] || { echo "FAIL $in: convert left a file or succeeded"; fail=1; }
done
[ $fail = 0 ] && echo "ftstream format cases: all passed"
exit $fail
