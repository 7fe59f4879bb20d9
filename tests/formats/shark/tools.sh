#!/bin/sh
# The host tools' outputs, `--to shark-list` (S.Ha.R.K. `list`) and
# `--to shark-pwc` (`pwcet_gen`):
# - the crafted tools/tools.bin gives tools/tools.{list,pwc} exactly
#   (reviewed by hand: FAST bit, stale par2, negative %d, empty slot,
#   skipped codes, the ipoint's number as its pwc code);
# - on every crafted input and on the real dump (if present), tracekit's
#   output equals tools_ref.py's, an independent model of the tools written
#   from the reference's 1.9;
# - the real dump: 27926 list lines, 10629 pwc lines (its histogram's codes
#   that pwcet_gen prints), the first lines of each;
# - a pipe reads the same; the .pwc extension picks the format; a non-shark
#   input is refused with exit 2 and no output file.
set -u
cli=$1 dir=$2 dump=${3:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 "$dir/make_cases.py" "$tmp/in" || { echo "FAIL: make_cases.py"; exit 1; }

for m in list pwc; do
	"$cli" convert -q --from shark "$tmp/in/tools/tools.bin" --to shark-$m "$tmp/t.$m" ||
		{ echo "FAIL tools.bin --to shark-$m: exit $?"; fail=1; continue; }
	cmp -s "$tmp/t.$m" "$dir/tools/tools.$m" ||
		{ echo "FAIL tools.bin shark-$m"; diff "$dir/tools/tools.$m" "$tmp/t.$m" | head; fail=1; }
done

inputs="$tmp/in/tools/tools.bin $(ls "$tmp"/in/ok/*.bin)"
[ -n "$dump" ] && [ -f "$dump" ] && inputs="$inputs $dump"
for in in $inputs; do
	for m in list pwc; do
		python3 "$dir/tools_ref.py" $m "$in" > "$tmp/want" || { echo "FAIL: tools_ref.py"; fail=1; continue; }
		"$cli" convert -q --from shark "$in" --to shark-$m - > "$tmp/got" ||
			{ echo "FAIL $in --to shark-$m: exit $?"; fail=1; continue; }
		cmp -s "$tmp/want" "$tmp/got" ||
			{ echo "FAIL $in shark-$m differs from the model"; diff "$tmp/want" "$tmp/got" | head; fail=1; }
	done
done

if [ -n "$dump" ] && [ -f "$dump" ]; then
	"$cli" convert -q "$dump" "$tmp/d.pwc" || { echo "FAIL: convert to .pwc"; fail=1; }
	"$cli" convert -q --from shark "$dump" --to shark-list "$tmp/d.list" || { echo "FAIL: list"; fail=1; }
	n=$(wc -l < "$tmp/d.list"); [ "$n" -eq 27926 ] || { echo "FAIL: list has $n lines, expected 27926"; fail=1; }
	n=$(wc -l < "$tmp/d.pwc"); [ "$n" -eq 10629 ] || { echo "FAIL: pwc has $n lines, expected 10629"; fail=1; }
	l=$(head -n 1 "$tmp/d.list")
	[ "$l" = "00000000 Type = 20 TSC = 24305936302 (00000005:a8bf27ae) Par1 =         256 Par2 =      367483" ] ||
		{ echo "FAIL: list line 1: '$l'"; fail=1; }
	l=$(head -n 1 "$tmp/d.pwc")
	[ "$l" = "0 24305936302 256 367483 " ] || { echo "FAIL: pwc line 1: '$l'"; fail=1; }
	# a pipe (read whole: up to 64 MiB) gives the same bytes
	cat "$dump" | "$cli" convert -q --from shark - --to shark-pwc - | cmp -s - "$tmp/d.pwc" ||
		{ echo "FAIL: pwc from a pipe differs"; fail=1; }
fi

# not a shark input: refused, nothing written
printf '#creator test\n#timeScale ns\n0,Core_0,0,T,t,0,start\n' > "$tmp/x.btf"
"$cli" convert -q "$tmp/x.btf" --to shark-pwc "$tmp/x.pwc" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/x.pwc" ] || { echo "FAIL: BTF to shark-pwc: exit $rc or file left"; fail=1; }
grep -q "input must be read as shark" "$tmp/err" || { echo "FAIL: message: $(cat "$tmp/err")"; fail=1; }
[ $fail = 0 ] && echo "shark host tools outputs: all passed"
exit $fail
