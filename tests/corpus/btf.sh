#!/bin/sh
# Every BTF file of the shared corpus: event counts against independently
# counted values (btf_counts.txt), strict/lenient reading, and the round trip
# BTF -> BTF (data lines byte for byte; header entries kept).
set -u
cli=$1 corpus=$2 expect=$3
[ -d "$corpus" ] || { echo "corpus not found at $corpus: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

json_events() { sed -n 's/^  "events": \([0-9]*\),$/\1/p'; }

while read -r kind file a b c d; do
	case $kind in
	events)
		got=$("$cli" info -q --format json "$corpus/$file" | json_events)
		if [ "$got" != "$a" ]; then echo "FAIL $file: $got events, expected $a"; fail=1; fi
		;;
	event)
		got=$("$cli" info -q --format json "$corpus/$file" |
		      grep "\"type\": \"$a\", \"event\": \"$b\"," | sed 's/.*"count": \([0-9]*\).*/\1/')
		if [ "$got" != "$c" ]; then echo "FAIL $file: $a $b = '$got', expected $c"; fail=1; fi
		;;
	strict)
		"$cli" info -q --strict "$corpus/$file" > /dev/null 2>&1
		rc=$?
		if [ "$rc" != "$a" ]; then echo "FAIL $file: info --strict exit $rc, expected $a"; fail=1; fi
		;;
	esac
done < "$expect"

# round trips of every file
for f in $(cd "$corpus" && find . -name '*.btf' | sort); do
	f=${f#./}
	out="$tmp/rt.btf"
	if ! "$cli" convert -q --option as-read=1 "$corpus/$f" "$out"; then echo "FAIL $f: convert"; fail=1; continue; fi
	# the original with CRs removed and a final newline, less comment lines
	# after the first event (comments in the data are not kept)
	tr -d '\r' < "$corpus/$f" | awk '
		/^#/ { if (data && ($0 == "#" || substr($0,2,1) == " " || substr($0,2,1) == "\t")) next }
		/^[^#]/ { data = 1 }
		length($0) > 0 { print }' > "$tmp/want"
	if ! cmp -s "$tmp/want" "$out"; then
		echo "FAIL $f: round trip differs"; diff "$tmp/want" "$out" | head -10; fail=1
	fi
	# and the converted file reads back to the same events
	"$cli" cat -q "$corpus/$f" > "$tmp/a"; "$cli" cat -q "$out" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL $f: re-read differs"; fail=1; }
done
[ $fail = 0 ] && echo "corpus btf: all checks passed"
exit $fail
