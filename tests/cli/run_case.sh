#!/bin/sh
# A CLI golden test.  A .case file holds header lines, a line "---", then the
# exact expected standard output:
#   cmd: ARGS...          the tracekit arguments (run from the project root)
#   stdin: FILE           (optional) file fed on standard input
#   exit: N               the expected exit status
#   stderr: TEXT          (optional) text the first stderr line must contain;
#                         a second stderr: line, the second line; and so on
#   needs: PATH           (optional) skip (77) when PATH does not exist
set -u
cli=$1 case=$2 root=$3
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

args=$(sed -n 's/^cmd: //p' "$case" | head -n 1)
stdin=$(sed -n 's/^stdin: //p' "$case" | head -n 1)
want_exit=$(sed -n 's/^exit: //p' "$case" | head -n 1)
needs=$(sed -n 's/^needs: //p' "$case" | head -n 1)
sed '1,/^---$/d' "$case" > "$tmp/want"

if [ -n "$needs" ] && [ ! -e "$needs" ]; then echo "skipped: $needs missing"; exit 77; fi
[ -n "$stdin" ] || stdin=/dev/null
# shellcheck disable=SC2086
eval "\"$cli\" $args" < "$stdin" > "$tmp/out" 2> "$tmp/err"
rc=$?
fail=0
if [ "$rc" != "${want_exit:-0}" ]; then
	echo "FAIL: exit status $rc, expected ${want_exit:-0}"; cat "$tmp/err"; fail=1
fi
k=0
sed -n 's/^stderr: //p' "$case" > "$tmp/want_err"
while IFS= read -r want_err; do
	k=$((k + 1))
	if ! sed -n "${k}p" "$tmp/err" | grep -qF -- "$want_err"; then
		echo "FAIL: stderr line $k does not contain: $want_err"; cat "$tmp/err"; fail=1
	fi
done < "$tmp/want_err"
if ! cmp -s "$tmp/want" "$tmp/out"; then
	echo "FAIL: stdout differs:"; diff "$tmp/want" "$tmp/out" | head -40; fail=1
fi
[ $fail = 0 ] && echo "ok: $(basename "$case")"
exit $fail
