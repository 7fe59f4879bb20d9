#!/bin/sh
# unit.skip: test_skip on the HTF and S.Ha.R.K. inputs: the format tests'
# HTF files (the strict ones in strict mode too), the corpus BTF traces
# converted to HTF (real task and runnable structures over several
# cores), the S.Ha.R.K. dumps make_cases.py writes and the corpus dump.
# usage: skip.sh TEST_SKIP TRACEKIT TESTS_DIR SHARED_DIR [DIV]
# DIV (the sanitized and the coverage builds): the traces test_skip makes
# have DIV times fewer records a core (TK_TEST_FULL=1: the whole sizes,
# which the Release build runs, label `release`)
set -u
bin=$1 tracekit=$2 src=$3 shared=$4 div=${5:-1}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 "$src/formats/shark/make_cases.py" "$tmp/s" > /dev/null || exit 1
set -- "$src"/formats/htf/ok/*.htf "$tmp"/s/ok/*.bin
for b in "$shared"/corpus/btf/*.btf; do
	[ -f "$b" ] || continue
	h=$tmp/$(basename "$b" .btf).htf
	"$tracekit" convert -q "$b" "$h" 2> /dev/null && set -- "$@" "$h"
done
dump=$shared/corpus/shark/shark-demo-trace.bin
[ -f "$dump" ] && set -- "$@" "$dump"
exec "$bin" --div "$div" "$@" --strict "$src"/formats/htf/ok/*_strict.htf
