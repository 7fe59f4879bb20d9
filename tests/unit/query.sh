#!/bin/sh
# unit.query: test_query on inputs of every readable format (the format
# tests' BTF, HTF, ATF and Tarmac inputs, the S.Ha.R.K. dumps and recorder
# streams their make_cases.py write, the corpus dump when present).
set -u
bin=$1 src=$2 shared=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 "$src/formats/shark/make_cases.py" "$tmp/s" > /dev/null || exit 1
python3 "$src/formats/ftstream/make_cases.py" "$tmp/f" > /dev/null || exit 1
set -- "$src"/formats/btf/ok/*.btf "$src"/formats/htf/ok/*.htf \
	"$src"/formats/atf/ok/*.atf "$src"/formats/tarmac/ok/*.tarmac \
	"$tmp"/s/ok/*.bin "$tmp"/f/ok/*.tks
dump=$shared/corpus/shark/shark-demo-trace.bin
if [ -f "$dump" ]; then
	set -- "$@" "$dump" --shark "$dump"
else
	set -- "$@" --shark "$tmp/s/ok/wrapped.bin"
fi
exec "$bin" "$@"
