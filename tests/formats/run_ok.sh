#!/bin/sh
# A file that must read: `tracekit cat` gives NAME.out exactly (sidecar
# NAME.args may add options such as --strict), and a round trip through the
# format's writer (if it has one) gives the same events again.
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

# shellcheck disable=SC2086
"$cli" cat -q $args "$in" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: exit $rc"; cat "$tmp/err"; exit 1
fi
if ! cmp -s "$tmp/out" "$dir/$stem.out"; then
	echo "FAIL: output differs from $stem.out:"; diff "$dir/$stem.out" "$tmp/out" | head -40; exit 1
fi
# round trip: write with the format's writer, read back, same events
# (a read-only format has none: the output above is the whole check)
if [ "$("$cli" formats | awk -v f="$ext" '$1 == f { print $3 }')" = "-" ]; then
	echo "ok: $name (read only)"; exit 0
fi
# shellcheck disable=SC2086
"$cli" convert -q $args "$in" "$tmp/rt.$ext" 2> "$tmp/err" || { echo "FAIL: convert"; cat "$tmp/err"; exit 1; }
# shellcheck disable=SC2086
"$cli" cat -q $args "$tmp/rt.$ext" > "$tmp/out2" 2> "$tmp/err" || { echo "FAIL: re-read"; cat "$tmp/err"; exit 1; }
# (NAME.rt.out: a dialect input, which the writer writes as its
# specification allows: the events read back, docs/mappings.md)
want="$tmp/out"
[ -f "$dir/$stem.rt.out" ] && want="$dir/$stem.rt.out"
if ! cmp -s "$want" "$tmp/out2"; then
	echo "FAIL: round trip differs:"; diff "$want" "$tmp/out2" | head -40; exit 1
fi
echo "ok: $name"
