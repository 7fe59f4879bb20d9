#!/bin/sh
# Compressed input (recognised by content, not name), from a file and from
# standard input; a truncated stream is an error with a byte offset and no
# output file.
set -u
cli=$1 root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fail=0
"$cli" cat examples/demo.btf > "$tmp/want"
gzip -c examples/demo.btf > "$tmp/demo.btf.gz"
zstd -q -c examples/demo.btf > "$tmp/demo.btf.zst"
cp "$tmp/demo.btf.gz" "$tmp/noext"
for f in "$tmp/demo.btf.gz" "$tmp/demo.btf.zst" "$tmp/noext"; do
	"$cli" cat "$f" > "$tmp/got" || { echo "FAIL: cat $f"; fail=1; }
	cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: $f differs"; fail=1; }
	"$cli" cat - < "$f" > "$tmp/got" || { echo "FAIL: cat - < $f"; fail=1; }
	cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: stdin $f differs"; fail=1; }
done
# a multi-member gzip file is one stream
{ gzip -c examples/demo.btf; gzip -c examples/demo.btf; } > "$tmp/two.gz"
"$cli" cat --no-header "$tmp/two.gz" > "$tmp/got" || { echo "FAIL: two members"; fail=1; }
[ "$(wc -l < "$tmp/got")" = $((2 * $("$cli" cat --no-header examples/demo.btf | wc -l))) ] || { echo "FAIL: two members: wrong count"; fail=1; }
# zero bytes after the last member (a tape's padding) end the stream, as
# gzip reads them (they were 'trailing data'); data after them is refused
{ gzip -c examples/demo.btf; head -c 1000 /dev/zero; } > "$tmp/pad.gz"
for how in file stdin; do
	if [ $how = file ]; then "$cli" cat "$tmp/pad.gz"; else "$cli" cat - < "$tmp/pad.gz"; fi > "$tmp/got" 2> "$tmp/err" ||
		{ echo "FAIL: zero padding ($how): $(cat "$tmp/err")"; fail=1; }
	cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: zero padding ($how) differs"; fail=1; }
done
{ gzip -c examples/demo.btf; head -c 10 /dev/zero; gzip -c examples/demo.btf; } > "$tmp/padx.gz"
"$cli" info "$tmp/padx.gz" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "padx.gz: error: at byte offset [0-9]*: trailing data after the gzip stream" "$tmp/err" ||
	{ echo "FAIL: data after zero padding: $rc $(cat "$tmp/err")"; fail=1; }
# a zstd file of two frames, and one that starts with a skippable frame
# (as pzstd writes): zstd's own decoder reads both
{ zstd -q -c examples/demo.btf; zstd -q -c examples/demo.btf; } > "$tmp/two.zst"
"$cli" cat --no-header "$tmp/two.zst" > "$tmp/got" || { echo "FAIL: two zstd frames"; fail=1; }
[ "$(wc -l < "$tmp/got")" = $((2 * $("$cli" cat --no-header examples/demo.btf | wc -l))) ] || { echo "FAIL: two zstd frames: wrong count"; fail=1; }
{ printf 'P*M\030\004\000\000\000abcd'; zstd -q -c examples/demo.btf; } > "$tmp/skip.zst"
zstd -q -t "$tmp/skip.zst" || { echo "FAIL: the skippable frame is not zstd's"; fail=1; }
for how in file stdin; do
	if [ $how = file ]; then "$cli" cat "$tmp/skip.zst"; else "$cli" cat - < "$tmp/skip.zst"; fi > "$tmp/got" 2> "$tmp/err" ||
		{ echo "FAIL: skippable frame ($how): $(cat "$tmp/err")"; fail=1; }
	cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: skippable frame ($how) differs"; fail=1; }
done
# truncated
size=$(wc -c < "$tmp/demo.btf.gz")
head -c $((size - 12)) "$tmp/demo.btf.gz" > "$tmp/trunc.btf.gz"
"$cli" convert "$tmp/trunc.btf.gz" "$tmp/out.btf" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] || { echo "FAIL: truncated gzip exit $rc"; fail=1; }
grep -q "trunc.btf.gz: error: at byte offset [0-9]*: truncated gzip stream" "$tmp/err" ||
	{ echo "FAIL: message: $(cat "$tmp/err")"; fail=1; }
[ ! -e "$tmp/out.btf" ] || { echo "FAIL: partial output left"; fail=1; }
ls "$tmp" | grep -q 'out.btf.tmp' && { echo "FAIL: temporary file left"; fail=1; }
zstd -q -c examples/demo.btf | head -c 200 > "$tmp/trunc.btf.zst"
"$cli" info "$tmp/trunc.btf.zst" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "truncated zstd stream" "$tmp/err" || { echo "FAIL: truncated zstd: $rc $(cat "$tmp/err")"; fail=1; }
[ $fail = 0 ] && echo "compressed input: all checks passed"
exit $fail
