#!/bin/sh
# check_corpus.sh CLI CORPUS - `tracekit check` on the shared BTF corpus:
# the spec examples and Vector's expected outputs check clean, the APP4MC
# example is reported not conformant, the Trace Compass trace reports only
# its runnable instances started out of number order (see docs/analysis.md).
set -u
cli=$1 dir=$2
[ -d "$dir" ] || { echo "skipped: $dir missing"; exit 77; }
fail=0
for f in "$dir"/spec_examples/*.btf "$dir"/vector_btf_toolchain_expected/*.btf; do
	if ! out=$("$cli" check -q "$f" 2>&1); then
		echo "FAIL: not clean: $f"; echo "$out" | head -5; fail=1
	fi
done
"$cli" check -q "$dir/app4mc_example1_task_only_short.btf" > /dev/null 2>&1
[ $? = 1 ] || { echo "FAIL: APP4MC example1 not reported"; fail=1; }
tc="$dir/tracecompass_20140219-123819.btf"
out=$("$cli" check -q "$tc" 2>/dev/null)
[ $? = 1 ] || { echo "FAIL: Trace Compass: exit status"; fail=1; }
if echo "$out" | grep ': error: ' | grep -v "^[^ ]*: error: R [A-Z_0-9]* [0-9]*: 'start' of a new instance" | grep -q .; then
	echo "FAIL: Trace Compass: a violation that is not a runnable numbering one:"
	echo "$out" | grep -v "'start' of a new instance" | head -5; fail=1
fi
echo "$out" | tail -n 1 | grep -q '263 violations in 38715 events (instance-gap 263)' ||
	{ echo "FAIL: Trace Compass summary: $(echo "$out" | tail -n 1)"; fail=1; }
[ $fail = 0 ] && echo "ok: corpus check"
exit $fail
