#!/bin/sh
# A file that must be refused: exit status 2, the first line of stderr equal
# to NAME.err (with the path shown as NAME), and no output file left by
# `convert`.  Sidecar NAME.args may add options such as --strict.
set -u
cli=$1 in=$2
dir=$(dirname "$in") name=$(basename "$in")
stem=${name%.gz}; stem=${stem%.zst}
ext=${stem##*.}
stem=${stem%.*}
args=""
[ -f "$dir/$stem.args" ] && args=$(cat "$dir/$stem.args")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cd "$dir" || exit 1
# shellcheck disable=SC2086
"$cli" cat -q $args "$name" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -ne 2 ]; then
	echo "FAIL: exit status $rc, expected 2"; cat "$tmp/err"; exit 1
fi
head -n 1 "$tmp/err" > "$tmp/first"
if ! cmp -s "$tmp/first" "$stem.err"; then
	echo "FAIL: message differs:"; echo "expected: $(cat "$stem.err")"; echo "got:      $(cat "$tmp/first")"; exit 1
fi
# shellcheck disable=SC2086
"$cli" convert -q $args "$name" "$tmp/out.$ext" 2> /dev/null
rc=$?
if [ $rc -ne 2 ] || [ -e "$tmp/out.$ext" ] || [ -n "$(ls "$tmp" | grep -v '^err$\|^first$')" ]; then
	echo "FAIL: convert exit $rc or left a file: $(ls "$tmp")"; exit 1
fi
echo "ok: $name refused: $(cat "$tmp/first")"
