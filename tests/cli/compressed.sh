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
