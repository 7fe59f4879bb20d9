#!/bin/sh
# Core names through the writers that number their cores (HTF sections,
# ATF Resources): Core_<n> is n even when a core of another name comes
# first (which gets the lowest free id: 1 here, not Core_0's 0); other
# names are renamed, counted once per core, refused by --strict with no
# output file.
# Usage: core_names.sh TRACEKIT
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '#version 2.3.0\n#timescale ns\n100,CPU_B,0,T,T1,0,start\n150,Core_0,0,T,T2,0,start\n200,CPU_B,0,T,T1,0,terminate\n250,Core_0,0,T,T2,0,terminate\n300,Core_007,0,T,T3,0,start\n400,Core_007,0,T,T3,0,terminate\n' > "$tmp/c.btf"
printf '100,Core_1,0,T,T1,0,start\n150,Core_0,0,T,T2,0,start\n200,Core_1,0,T,T1,0,terminate\n250,Core_0,0,T,T2,0,terminate\n300,Core_2,0,T,T3,0,start\n400,Core_2,0,T,T3,0,terminate\n' > "$tmp/want"
for f in htf atf; do
	F=$(echo "$f" | tr a-z A-Z)
	"$cli" convert "$tmp/c.btf" "$tmp/c.$f" 2> "$tmp/err" || fail "$f: convert"
	grep -q "$F cannot hold everything: 2 cores renamed Core_<n>" "$tmp/err" || { cat "$tmp/err"; fail "$f: rename warning"; }
	"$cli" cat --no-header "$tmp/c.$f" > "$tmp/b" || fail "$f: re-read"
	cmp -s "$tmp/want" "$tmp/b" || { cat "$tmp/b"; fail "$f: cores read back"; }
	"$cli" convert --strict "$tmp/c.btf" "$tmp/cs.$f" 2> "$tmp/err"
	[ $? -eq 2 ] && [ ! -e "$tmp/cs.$f" ] || fail "$f: --strict kept a renamed core"
	grep -q "c.btf:3: error: $F cannot hold core names other than Core_<n> (event 'start' of type T); .* (writing $tmp/cs.$f)\$" "$tmp/err" || { cat "$tmp/err"; fail "$f: rename error"; }
done
echo "ok: core names"
