#!/bin/sh
# Usage: outputs.sh TRACEKIT ROOT GEN_BTF [EVENTS]
# Outputs: `report -o -` writes the page to standard output (no file named
# '-'); outputs named .gz / .zst are compressed (gzip -t, zstd -t), their
# content byte for byte the uncompressed output, for every text format and
# for the report's page; outputs that cannot be compressed (a CTF
# directory, an SQLite file) are refused, leaving nothing behind.
# EVENTS: those of the large output (300k: its BTF 13 MB, 13 flushes of
# the sink's 1 MiB buffer through the compressor); the sanitized and the
# coverage builds give 100k (4.4 MB, its JSON more), the Release build's
# run of the label `release` the 300k.
set -u
cli=$1 root=$2 gen=$3 events=${4:-300k}
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
demo=examples/demo.btf
shark=../shared/corpus/shark/shark-demo-trace.bin

no_temps() {
	if ls -A "$tmp" | grep -q '\.tmp-'; then
		echo "FAIL: $1: temporary left: $(ls -A "$tmp" | grep '\.tmp-')"
		fail=1
	fi
}

# report -o -: the page on standard output, as with -o FILE
(cd "$tmp" && "$cli" report -q "$root/$demo" -o page.html) || { echo "FAIL: report -o FILE"; fail=1; }
(cd "$tmp" && "$cli" report -q "$root/$demo" -o - > stdout.html) ||
	{ echo "FAIL: report -o -"; fail=1; }
cmp -s "$tmp/page.html" "$tmp/stdout.html" || { echo "FAIL: report -o - differs from -o FILE"; fail=1; }
[ ! -e "$tmp/-" ] || { echo "FAIL: report -o - made a file named '-'"; fail=1; }
(cd "$tmp" && "$cli" report -q "$root/$demo" --output - | cmp -s - page.html) ||
	{ echo "FAIL: report --output - | differs"; fail=1; }

# compressed outputs: plain bytes equal, the stream checked by gzip / zstd
roundtrip() { # IN FORMAT-EXT [convert options]
	in=$1 ext=$2
	shift 2
	"$cli" convert -q "$@" "$in" "$tmp/plain.$ext" ||
		{ echo "FAIL: convert $in plain.$ext"; fail=1; return; }
	for z in gz zst; do
		out="$tmp/o.$ext.$z"
		"$cli" convert -q "$@" "$in" "$out" ||
			{ echo "FAIL: convert $in o.$ext.$z"; fail=1; continue; }
		if [ $z = gz ]; then
			gzip -t "$out" || { echo "FAIL: gzip -t o.$ext.gz"; fail=1; }
			gzip -dc "$out" > "$tmp/back"
		else
			zstd -q -t "$out" || { echo "FAIL: zstd -t o.$ext.zst"; fail=1; }
			zstd -q -dc "$out" > "$tmp/back"
		fi
		cmp -s "$tmp/plain.$ext" "$tmp/back" ||
			{ echo "FAIL: o.$ext.$z does not decompress to plain.$ext"; fail=1; }
		rm -f "$out" "$tmp/back"
	done
	rm -f "$tmp/plain.$ext"
}
# every writer whose output is a stream (the registry says which), by the
# first extension of its name
for ext in $("$cli" formats --format csv |
	     awk -F, 'NR > 1 && $4 == "yes" { split($5, e, " "); print e[1] }'); do
	roundtrip $demo $ext
done
if [ -e $shark ]; then
	roundtrip $shark list
	roundtrip $shark pwc
	roundtrip $shark btf
else
	echo "note: $shark missing, shark-list / shark-pwc not checked"
fi
# a large output: many flushes of the sink's buffer through the compressor
"$gen" -n "$events" "$tmp/big.btf" 2> /dev/null || { echo "FAIL: gen_btf"; fail=1; }
roundtrip "$tmp/big.btf" btf
roundtrip "$tmp/big.btf" json
rm -f "$tmp/big.btf"
# read back by tracekit itself
"$cli" cat $demo > "$tmp/want"
"$cli" convert -q $demo "$tmp/rt.btf.gz" || { echo "FAIL: btf -> btf.gz"; fail=1; }
"$cli" cat "$tmp/rt.btf.gz" > "$tmp/got" || { echo "FAIL: cat rt.btf.gz"; fail=1; }
cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: btf.gz read back differs"; fail=1; }
"$cli" convert -q $demo "$tmp/rt.atf.zst" || { echo "FAIL: btf -> atf.zst"; fail=1; }
"$cli" convert -q "$tmp/rt.atf.zst" "$tmp/rt2.btf.gz" || { echo "FAIL: atf.zst -> btf.gz"; fail=1; }
"$cli" convert -q $demo "$tmp/rt.atf" && "$cli" convert -q "$tmp/rt.atf" "$tmp/rt2.btf" &&
	gzip -dc "$tmp/rt2.btf.gz" | cmp -s - "$tmp/rt2.btf" ||
	{ echo "FAIL: btf -> atf.zst -> btf.gz differs from the plain chain"; fail=1; }
# --to with a name that has only the compression suffix
"$cli" convert -q $demo "$tmp/plain.btf"
"$cli" convert -q --to btf $demo "$tmp/out.gz" && gzip -dc "$tmp/out.gz" | cmp -s - "$tmp/plain.btf" ||
	{ echo "FAIL: --to btf out.gz"; fail=1; }
# standard output is never compressed
"$cli" convert -q --to btf $demo - | cmp -s - "$tmp/plain.btf" || { echo "FAIL: convert - differs"; fail=1; }
# the report's page
for z in gz zst; do
	(cd "$tmp" && "$cli" report -q "$root/$demo" -o "page.html.$z") || { echo "FAIL: report -o page.html.$z"; fail=1; continue; }
	if [ $z = gz ]; then gzip -t "$tmp/page.html.gz" && gzip -dc "$tmp/page.html.gz" > "$tmp/back"
	else zstd -q -t "$tmp/page.html.zst" && zstd -q -dc "$tmp/page.html.zst" > "$tmp/back"; fi
	cmp -s "$tmp/back" "$tmp/page.html" || { echo "FAIL: page.html.$z differs"; fail=1; }
done
no_temps "compressed outputs"

# refused: directory and database outputs
for out in o.ctf.gz o.ctf.zst o.sqlite.gz o.db.zst o.SQLITE.GZ; do
	"$cli" convert -q $demo "$tmp/$out" 2> "$tmp/err"
	rc=$?
	[ $rc = 2 ] || { echo "FAIL: $out: exit $rc, expected 2"; fail=1; }
	grep -q "$out: error: .* cannot be compressed" "$tmp/err" ||
		{ echo "FAIL: $out: message: $(cat "$tmp/err")"; fail=1; }
	[ ! -e "$tmp/$out" ] || { echo "FAIL: $out was made"; fail=1; }
done
"$cli" convert -q --to ctf $demo "$tmp/trace.gz" 2> "$tmp/err"
[ $? = 2 ] && grep -q "cannot be compressed" "$tmp/err" && [ ! -e "$tmp/trace.gz" ] ||
	{ echo "FAIL: --to ctf trace.gz: $(cat "$tmp/err")"; fail=1; }
no_temps "refused outputs"
[ $fail = 0 ] && echo "outputs: all checks passed"
exit $fail
