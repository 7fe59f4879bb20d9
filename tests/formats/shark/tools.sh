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
# - `tracekit shark list|pwc IN [-o OUT]` writes the same bytes as the old
#   spelling `convert --to shark-list|shark-pwc` (kept, with a deprecation
#   note on stderr unless -q), to stdout, a file and a .gz file, from a
#   file, a pipe and a .gz input;
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

# the command, against the old spelling
for in in "$tmp/in/tools/tools.bin" ${dump:+"$dump"}; do
	[ -f "$in" ] || continue
	for m in list pwc; do
		"$cli" convert -q --from shark "$in" --to shark-$m "$tmp/old.$m" || { echo "FAIL: convert shark-$m"; fail=1; }
		"$cli" shark $m "$in" > "$tmp/new.$m" || { echo "FAIL: shark $m: exit $?"; fail=1; }
		cmp -s "$tmp/old.$m" "$tmp/new.$m" || { echo "FAIL: shark $m $in differs from convert"; fail=1; }
		"$cli" shark $m -o "$tmp/o.$m" "$in" && cmp -s "$tmp/old.$m" "$tmp/o.$m" ||
			{ echo "FAIL: shark $m -o"; fail=1; }
		"$cli" shark $m "$in" --output "$tmp/o.$m.gz" && gzip -dc "$tmp/o.$m.gz" | cmp -s "$tmp/old.$m" - ||
			{ echo "FAIL: shark $m -o .gz"; fail=1; }
		cat "$in" | "$cli" shark $m - | cmp -s "$tmp/old.$m" - || { echo "FAIL: shark $m from a pipe"; fail=1; }
		gzip -c "$in" > "$tmp/in.gz"
		"$cli" shark $m "$tmp/in.gz" | cmp -s "$tmp/old.$m" - || { echo "FAIL: shark $m from .gz"; fail=1; }
		rm -f "$tmp/o.$m" "$tmp/o.$m.gz" "$tmp/in.gz"
	done
done
# the old spelling says it is deprecated (not with -q), after writing all
"$cli" convert --from shark "$tmp/in/tools/tools.bin" --to shark-pwc - 2> "$tmp/err" > "$tmp/t.pwc"
cmp -s "$tmp/t.pwc" "$dir/tools/tools.pwc" || { echo "FAIL: convert --to shark-pwc without -q"; fail=1; }
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "deprecated: use 'tracekit shark pwc IN -o OUT'" "$tmp/err" ||
	{ echo "FAIL: deprecation note: $(cat "$tmp/err")"; fail=1; }
"$cli" convert -q "$tmp/in/tools/tools.bin" "$tmp/t.list" 2> "$tmp/err" && [ ! -s "$tmp/err" ] &&
	cmp -s "$tmp/t.list" "$dir/tools/tools.list" || { echo "FAIL: convert to .list"; fail=1; }
# a partial record at the end is not one (as the tools read)
cat "$tmp/in/tools/tools.bin" > "$tmp/part.bin"
printf 'abcde' >> "$tmp/part.bin"
"$cli" shark list "$tmp/part.bin" | cmp -s - "$dir/tools/tools.list" || { echo "FAIL: partial record listed"; fail=1; }
# usage errors: exit 2, nothing on stdout
for args in "" "list" "frob $tmp/part.bin" "list $tmp/part.bin extra" "list --bogus $tmp/part.bin"; do
	# shellcheck disable=SC2086
	"$cli" shark $args > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ] || { echo "FAIL: shark $args: exit $rc"; fail=1; }
done
"$cli" shark list "$tmp/nonexistent.bin" -o "$tmp/no.list" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/no.list" ] || { echo "FAIL: missing input: exit $rc or file left"; fail=1; }
"$cli" shark --help | grep -q "usage: tracekit shark list|pwc" || { echo "FAIL: shark --help"; fail=1; }

# not a shark input: refused, nothing written
printf '#creator test\n#timeScale ns\n0,Core_0,0,T,t,0,start\n' > "$tmp/x.btf"
"$cli" convert -q "$tmp/x.btf" --to shark-pwc "$tmp/x.pwc" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/x.pwc" ] || { echo "FAIL: BTF to shark-pwc: exit $rc or file left"; fail=1; }
grep -q "input must be read as shark" "$tmp/err" || { echo "FAIL: message: $(cat "$tmp/err")"; fail=1; }
# an output that is the dump (a hard link too): refused, the dump left as
# it was (it was replaced by the text, exit 0)
cp "$tmp/in/tools/tools.bin" "$tmp/self.bin"
ln -f "$tmp/self.bin" "$tmp/self-link.bin"
for args in "shark list $tmp/self.bin -o $tmp/self.bin" "shark pwc $tmp/self.bin -o $tmp/self-link.bin" \
	    "convert -q $tmp/self.bin $tmp/self.bin --to shark-list" "convert -q $tmp/self.bin $tmp/self.bin --to btf"; do
	# shellcheck disable=SC2086
	"$cli" $args 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "self.*bin: error: the output is the input $tmp/self.bin" "$tmp/err" &&
	cmp -s "$tmp/self.bin" "$tmp/in/tools/tools.bin" ||
		{ echo "FAIL: output over input ($args): exit $rc: $(cat "$tmp/err")"; fail=1;
		  cp "$tmp/in/tools/tools.bin" "$tmp/self.bin"; }
done
[ $fail = 0 ] && echo "shark host tools outputs: all passed"
exit $fail
