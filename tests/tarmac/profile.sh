#!/bin/sh
# The function profile of a Tarmac log against ELF symbols: `stats --elf`
# (CSV and the JSON call tree) and `tarmac folded` (both weights; the
# deprecated `convert --to folded` gives the same bytes and one note),
# compared exactly with what tests/tarmac/profile.py's simulator says; the
# ELF made by tests/tarmac/mkelf.py, and (when arm-none-eabi-gcc is
# installed) a real Thumb program's ELF.  Then exceptions still open at the
# end of a log, and the errors (bad ELF, folded from a non-Tarmac input).
# Usage: profile.sh CLI
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null 2>&1 || { echo "skipped: python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# compare.py TREE_JSON STATS_JSON: the call tree against the expected one
cat > "$tmp/compare.py" <<'EOF'
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))["call_tree"]
def norm(nodes):
    return sorted([n["name"], n["exception"], n["calls"], n["self_instructions"],
                   n["instructions"], n["self_time"], n["time"], norm(n["children"])]
                  for n in nodes)
if norm(got) != want:
    print("call tree differs:\n  got  %s\n  want %s" % (norm(got), want))
    sys.exit(1)
EOF

# check DIR ELF LABEL: every output against the simulator's
check() {
	d=$1 elf=$2 label=$3
	if ! "$cli" tarmac folded "$d/log.tarmac" --elf "$elf" -o "$d/got.folded" 2> "$d/err"; then
		echo "FAIL $label: tarmac folded: $(head -n 1 "$d/err")"; fail=1
	elif ! cmp -s "$d/want.folded" "$d/got.folded"; then
		echo "FAIL $label: folded stacks differ:"; diff "$d/want.folded" "$d/got.folded"; fail=1
	fi
	# standard output by default
	if ! "$cli" tarmac --weight time --elf "$elf" folded "$d/log.tarmac" > "$d/got_time.folded" 2> "$d/err"; then
		echo "FAIL $label: tarmac folded --weight time: $(head -n 1 "$d/err")"; fail=1
	elif ! cmp -s "$d/want_time.folded" "$d/got_time.folded"; then
		echo "FAIL $label: folded stacks by time differ:"; diff "$d/want_time.folded" "$d/got_time.folded"; fail=1
	fi
	# the deprecated spelling: the same bytes, one note on stderr
	for w in instructions time; do
		sfx=; [ $w = time ] && sfx=_time
		if ! "$cli" convert --to folded --weight $w --elf "$elf" "$d/log.tarmac" "$d/old$sfx.folded" 2> "$d/err"; then
			echo "FAIL $label: convert --weight $w: $(head -n 1 "$d/err")"; fail=1
		elif ! cmp -s "$d/want$sfx.folded" "$d/old$sfx.folded"; then
			echo "FAIL $label: convert --to folded --weight $w differs from tarmac folded"; fail=1
		elif [ "$(cat "$d/err")" != "tracekit convert: note: --to folded is deprecated: use 'tracekit tarmac folded IN --elf FILE -o OUT'" ]; then
			echo "FAIL $label: convert to folded: stderr '$(cat "$d/err")'"; fail=1
		fi
	done
	# named .gz: the same stacks, gzip-compressed (both spellings)
	if ! "$cli" tarmac folded "$d/log.tarmac" -o "$d/got.folded.gz" --elf "$elf" 2> "$d/err"; then
		echo "FAIL $label: tarmac folded to .folded.gz: $(head -n 1 "$d/err")"; fail=1
	elif ! gzip -t "$d/got.folded.gz" || ! gzip -dc "$d/got.folded.gz" | cmp -s - "$d/want.folded"; then
		echo "FAIL $label: got.folded.gz is not the folded stacks compressed"; fail=1
	fi
	if ! "$cli" convert -q "$d/log.tarmac" "$d/old.folded.gz" --elf "$elf" 2> "$d/err"; then
		echo "FAIL $label: convert to .folded.gz: $(head -n 1 "$d/err")"; fail=1
	elif [ -s "$d/err" ] || ! gzip -dc "$d/old.folded.gz" | cmp -s - "$d/want.folded"; then
		echo "FAIL $label: convert -q to old.folded.gz: not the stacks, or a note: $(cat "$d/err")"; fail=1
	fi
	"$cli" stats --elf "$elf" --format csv "$d/log.tarmac" > "$d/got.csv" 2> "$d/err" ||
		{ echo "FAIL $label: stats csv: $(head -n 1 "$d/err")"; fail=1; }
	cmp -s "$d/want.csv" "$d/got.csv" ||
		{ echo "FAIL $label: stats --elf csv differs:"; diff "$d/want.csv" "$d/got.csv"; fail=1; }
	"$cli" stats --elf "$elf" --format json "$d/log.tarmac" > "$d/got.json" 2> "$d/err" ||
		{ echo "FAIL $label: stats json: $(head -n 1 "$d/err")"; fail=1; }
	python3 "$tmp/compare.py" "$d/want_tree.json" "$d/got.json" || { echo "FAIL $label: call tree"; fail=1; }
	# the table shows the same figures
	"$cli" stats --elf "$elf" "$d/log.tarmac" > "$d/got.txt" 2> "$d/err" ||
		{ echo "FAIL $label: stats table: $(head -n 1 "$d/err")"; fail=1; }
	sed -n '2p' "$d/want.csv" | awk -F, '{ printf "%s %s %s %s %s %s\n", $1, $2, $3, $4, $5, $6 }' > "$d/row"
	awk '{ $1 = $1; print }' "$d/got.txt" | grep -qxF -f "$d/row" ||
		{ echo "FAIL $label: table row '$(cat "$d/row")' missing"; fail=1; }
}

# 1. the generated ELF: Thumb addresses (bit 0 set), one symbol without a
# size (baz: up to the next symbol), a mapping symbol and a data object
mkdir "$tmp/gen"
cat > "$tmp/gen/layout" <<'EOF'
main 1000 40
foo 1040 40
bar 1080 20
baz 10a0 0
SysTick_Handler 10c0 20
helper 10e0 20
recur 1100 20
EOF
python3 "$here/mkelf.py" "$tmp/gen/prog.elf" --thumb main:1000:40 foo:1040:40 bar:1080:20 \
	baz:10a0:0 SysTick_Handler:10c0:20 helper:10e0:20 recur:1100:20 || exit 1
python3 "$here/profile.py" "$tmp/gen/layout" "$tmp/gen" || exit 1
check "$tmp/gen" "$tmp/gen/prog.elf" generated-elf
# the figures the simulator gives for this program, written out once so
# that a change in the simulator cannot hide one in tracekit
grep -qx 'main,1,9,54,105,810,ns' "$tmp/gen/got.csv" || { echo "FAIL: main row"; fail=1; }
grep -qx 'baz,1,7,10,110,155,ns' "$tmp/gen/got.csv" || { echo "FAIL: baz (no size) row"; fail=1; }
grep -qx 'recur,3,11,11,170,170,ns' "$tmp/gen/got.csv" || { echo "FAIL: recur row"; fail=1; }
grep -qx 'main;foo;bar;SysTick_Handler;bar 4' "$tmp/gen/got.folded" || { echo "FAIL: handler stack"; fail=1; }
grep -qx 'main;recur;recur;recur 3' "$tmp/gen/got.folded" || { echo "FAIL: recursion stack"; fail=1; }

# 2. exceptions still open at the end of the log: left open, reported
mkdir "$tmp/open"
python3 "$here/profile.py" "$tmp/gen/layout" "$tmp/open" open || exit 1
"$cli" stats --format json "$tmp/open/log.tarmac" > "$tmp/open/stats.json" 2> "$tmp/open/err"
grep -q '{"name": "SysTick", "count": 2, "total": 160, "min": 35, "max": 125, "open": 1}' "$tmp/open/stats.json" ||
	{ echo "FAIL open: $(grep -A1 exceptions "$tmp/open/stats.json")"; fail=1; }
"$cli" stats "$tmp/open/log.tarmac" | grep -q '^  SysTick .*count        2 .*open at end 1$' ||
	{ echo "FAIL open: table"; fail=1; }
"$cli" convert "$tmp/open/log.tarmac" "$tmp/open/out.btf" 2> "$tmp/open/err" || { echo "FAIL open: convert"; fail=1; }
grep -q "warning: 1 exception still active at the end of the log: left open (no terminate)" "$tmp/open/err" ||
	{ echo "FAIL open: warning: $(cat "$tmp/open/err")"; fail=1; }
[ "$(grep -c ',I,SysTick,[0-9]*,start$' "$tmp/open/out.btf")" = 3 ] &&
[ "$(grep -c ',I,SysTick,[0-9]*,terminate$' "$tmp/open/out.btf")" = 2 ] ||
	{ echo "FAIL open: BTF starts/terminates"; fail=1; }
# the profile closes the open handler at the last instruction
"$cli" convert "$tmp/open/log.tarmac" "$tmp/open/got.folded" --elf "$tmp/gen/prog.elf" ||
	{ echo "FAIL open: folded"; fail=1; }
grep -qx 'main;SysTick_Handler 3' "$tmp/open/got.folded" || { echo "FAIL open: handler frame"; fail=1; }
cmp -s "$tmp/open/want.folded" "$tmp/open/got.folded" || { echo "FAIL open: folded differs"; fail=1; }

# 3. errors: one line, exit 2, no output file
echo "not an elf" > "$tmp/bad.elf"
"$cli" stats --elf "$tmp/bad.elf" "$tmp/gen/log.tarmac" > /dev/null 2> "$tmp/err"
[ $? = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "bad.elf: error: not an ELF file" "$tmp/err" ||
	{ echo "FAIL bad elf: $(cat "$tmp/err")"; fail=1; }
"$cli" convert "$tmp/gen/log.tarmac" "$tmp/x.folded" --elf "$tmp/missing.elf" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] && grep -q "missing.elf: error: cannot open" "$tmp/err" ||
	{ echo "FAIL missing elf: $(cat "$tmp/err")"; fail=1; }
head -c 200 "$tmp/gen/prog.elf" > "$tmp/cut.elf"
"$cli" stats --elf "$tmp/cut.elf" "$tmp/gen/log.tarmac" > /dev/null 2> "$tmp/err"
[ $? = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
grep -q "cut.elf: error: truncated ELF file (its section headers end past the end of the file)" "$tmp/err" ||
	{ echo "FAIL cut elf: $(cat "$tmp/err")"; fail=1; }
"$cli" convert "$tmp/gen/log.tarmac" "$tmp/x.folded" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] && grep -q "need the program's symbols: --elf FILE" "$tmp/err" ||
	{ echo "FAIL folded without --elf: $(cat "$tmp/err")"; fail=1; }
printf '#version 2.2\n#timeScale ns\n0,Core_0,0,T,A,0,activate\n' > "$tmp/t.btf"
"$cli" convert "$tmp/t.btf" "$tmp/x.folded" --elf "$tmp/gen/prog.elf" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] && grep -q "folded stacks are made from an Arm Tarmac log" "$tmp/err" ||
	{ echo "FAIL folded from BTF: $(cat "$tmp/err")"; fail=1; }
"$cli" convert "$tmp/t.btf" "$tmp/y.folded" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/y.folded" ] || { echo "FAIL folded from BTF without --elf: $(cat "$tmp/err")"; fail=1; }
# an output that is the log or the ELF (a hard link too): refused, both
# left as they were (they were replaced by the output, exit 0)
cp "$tmp/gen/log.tarmac" "$tmp/self.tarmac"; cp "$tmp/gen/prog.elf" "$tmp/self.elf"
ln -f "$tmp/self.tarmac" "$tmp/self-link.tarmac"
for args in "folded $tmp/self.tarmac --elf $tmp/self.elf -o $tmp/self.tarmac" \
	    "folded $tmp/self.tarmac --elf $tmp/self.elf -o $tmp/self.elf" \
	    "folded $tmp/self.tarmac --elf $tmp/self.elf -o $tmp/self-link.tarmac" \
	    "vcd $tmp/self.tarmac $tmp/self.tarmac" \
	    "vcd $tmp/self.tarmac $tmp/self.elf --elf $tmp/self.elf"; do
	# shellcheck disable=SC2086
	"$cli" tarmac $args 2> "$tmp/err"
	[ $? = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q ": error: the output is the input \|: error: the output is the ELF file (--elf) " "$tmp/err" &&
	cmp -s "$tmp/self.tarmac" "$tmp/gen/log.tarmac" && cmp -s "$tmp/self.elf" "$tmp/gen/prog.elf" ||
		{ echo "FAIL output over input (tarmac $args): $(cat "$tmp/err")"; fail=1;
		  cp "$tmp/gen/log.tarmac" "$tmp/self.tarmac"; cp "$tmp/gen/prog.elf" "$tmp/self.elf"; }
done
# convert's folded stacks (--to folded, OUT named .folded, through a
# symbolic link): an output that is the ELF is refused too, the ELF left as
# it was (it was replaced by the folded stacks, exit 0)
ln -sf "$tmp/self.elf" "$tmp/self-elf-link.folded"
for args in "$tmp/self.tarmac $tmp/self.elf --to folded --elf $tmp/self.elf" \
	    "$tmp/self.tarmac $tmp/self-elf-link.folded --elf $tmp/self.elf"; do
	# shellcheck disable=SC2086
	"$cli" convert -q $args 2> "$tmp/err"
	[ $? = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
	grep -q ": error: the output is the ELF file (--elf) $tmp/self.elf (it would be replaced)" "$tmp/err" &&
	cmp -s "$tmp/self.elf" "$tmp/gen/prog.elf" ||
		{ echo "FAIL output over the ELF (convert $args): $(cat "$tmp/err")"; fail=1;
		  cp "$tmp/gen/prog.elf" "$tmp/self.elf"; }
done
# calls --function naming no symbol (a typo): an error, not an empty
# list with exit 0
out=$("$cli" tarmac calls "$tmp/gen/log.tarmac" --elf "$tmp/gen/prog.elf" --function nosuch 2> "$tmp/err")
[ $? = 2 ] && [ -z "$out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
grep -q "prog.elf: error: no function 'nosuch' (--function) among its symbols" "$tmp/err" ||
	{ echo "FAIL calls --function nosuch: $out $(cat "$tmp/err")"; fail=1; }
"$cli" tarmac calls "$tmp/gen/log.tarmac" --elf "$tmp/gen/prog.elf" --function foo | grep -q "^foo  (call" ||
	{ echo "FAIL calls --function foo"; fail=1; }
# tarmac folded: the same errors
"$cli" tarmac folded "$tmp/gen/log.tarmac" -o "$tmp/x.folded" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] &&
	[ "$(cat "$tmp/err")" = "tracekit tarmac: folded stacks need the program's symbols: --elf FILE (see 'tracekit tarmac --help')" ] ||
	{ echo "FAIL tarmac folded without --elf: $(cat "$tmp/err")"; fail=1; }
"$cli" tarmac folded "$tmp/t.btf" --elf "$tmp/gen/prog.elf" -o "$tmp/x.folded" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
	grep -q "t.btf: folded stacks are made from an Arm Tarmac log" "$tmp/err" ||
	{ echo "FAIL tarmac folded from BTF: $(cat "$tmp/err")"; fail=1; }
"$cli" tarmac folded "$tmp/gen/log.tarmac" --elf "$tmp/missing.elf" -o "$tmp/x.folded" 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/x.folded" ] && grep -q "missing.elf: error: cannot open" "$tmp/err" ||
	{ echo "FAIL tarmac folded, missing elf: $(cat "$tmp/err")"; fail=1; }
"$cli" tarmac flame "$tmp/gen/log.tarmac" 2> "$tmp/err"
[ $? = 2 ] && grep -q "unknown tool 'flame'" "$tmp/err" || { echo "FAIL tarmac flame: $(cat "$tmp/err")"; fail=1; }
# folded stacks are a command, not a format
! "$cli" formats | grep -q '^folded' || { echo "FAIL: formats lists folded"; fail=1; }
"$cli" convert "$tmp/t.btf" - --to FOLDED > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "unknown format 'FOLDED'" "$tmp/err" || { echo "FAIL: --to FOLDED: $(cat "$tmp/err")"; fail=1; }

# 4. a real Thumb program built by arm-none-eabi-gcc (skipped without it)
real=skipped
if command -v arm-none-eabi-gcc > /dev/null 2>&1 && command -v arm-none-eabi-nm > /dev/null 2>&1; then
	mkdir "$tmp/gcc"
	cat > "$tmp/gcc/prog.c" <<'EOF'
/* every function padded so that the simulated program fits in it */
#define PAD() __asm__ volatile(".rept 40\n\tnop\n\t.endr")
void bar(void) { PAD(); }
void helper(void) { PAD(); }
void baz(void) { PAD(); }
void foo(void) { PAD(); bar(); helper(); }
void recur(int n) { PAD(); if (n) recur(n - 1); }
void SysTick_Handler(void) { PAD(); bar(); }
int main(void) { PAD(); foo(); baz(); recur(2); return 0; }
EOF
	if arm-none-eabi-gcc -mthumb -mcpu=cortex-m3 -O0 -ffreestanding -nostdlib \
		-Wl,-Ttext=0x1000 -Wl,-e,main -o "$tmp/gcc/prog.elf" "$tmp/gcc/prog.c" 2> "$tmp/gcc/err"; then
		arm-none-eabi-nm -S --defined-only "$tmp/gcc/prog.elf" |
			awk '$3 ~ /^[Tt]$/ { print $4, $1, $2 }' > "$tmp/gcc/nm"
		python3 - "$tmp/gcc/nm" > "$tmp/gcc/layout" <<'EOF'
import sys
for ln in open(sys.argv[1]):
    name, addr, size = ln.split()
    print(name, "%x" % (int(addr, 16) & ~1), size)
EOF
		python3 "$here/profile.py" "$tmp/gcc/layout" "$tmp/gcc" || exit 1
		check "$tmp/gcc" "$tmp/gcc/prog.elf" arm-none-eabi-gcc
		real=checked
	else
		echo "FAIL: arm-none-eabi-gcc could not build the test program:"; cat "$tmp/gcc/err"; fail=1
	fi
fi
# stamps of another unit are taken in the log's (20000 ps is 20 ns); one
# that is not a whole ns, or earlier than the one before, is said: a
# warning, or with --strict an error and no output
python3 "$here/mkelf.py" "$tmp/mix.elf" --thumb main:100:20
printf '10 ns IT (00000100:1) 00000100 2001 T16 MOVS r0,#1\n20000 ps IT (00000102:2) 00000102 2001 T16 MOVS r0,#1\n30 ns IT (00000104:3) 00000104 2001 T16 MOVS r0,#1\n' > "$tmp/mix.tarmac"
out=$("$cli" stats --strict "$tmp/mix.tarmac" --elf "$tmp/mix.elf" --format csv 2>&1)
[ "$(echo "$out" | grep '^main,')" = "main,1,3,3,20,20,ns" ] || { echo "FAIL: mixed units: $out"; fail=1; }
printf '10 ns IT (00000100:1) 00000100 2001 T16 MOVS r0,#1\n20001 ps IT (00000102:2) 00000102 2001 T16 MOVS r0,#1\n30 ns IT (00000104:3) 00000104 2001 T16 MOVS r0,#1\n5 ns IT (00000104:3) 00000104 2001 T16 MOVS r0,#1\n' > "$tmp/mix2.tarmac"
"$cli" stats "$tmp/mix2.tarmac" --elf "$tmp/mix.elf" --format csv > /dev/null 2> "$tmp/err" &&
	grep -q "warning: the function times are not exact (time stamps: 1 not whole ns, rounded down or not counted; 1 earlier than the one before, not counted)" "$tmp/err" ||
	{ echo "FAIL: inexact stamps warning"; cat "$tmp/err"; fail=1; }
out=$("$cli" stats --strict "$tmp/mix2.tarmac" --elf "$tmp/mix.elf" --format csv 2> /dev/null)
[ $? = 2 ] && [ -z "$out" ] || { echo "FAIL: inexact stamps, --strict: $out"; fail=1; }
"$cli" tarmac folded --weight time "$tmp/mix2.tarmac" --elf "$tmp/mix.elf" -o "$tmp/m.folded" --strict 2> /dev/null
[ $? = 2 ] && [ ! -e "$tmp/m.folded" ] || { echo "FAIL: inexact stamps, folded --strict"; fail=1; }

# assembler labels (STT_NOTYPE) name the code no function covers, never
# code inside a function (inner, in main) nor as a mapping symbol ($t)
python3 "$here/mkelf.py" "$tmp/lab.elf" --thumb main:100:10 inner:104:label tail:110:label
printf '10 ns IT (00000100:1) 00000100 2001 T16 MOVS r0,#1\n20 ns IT (00000104:2) 00000104 2001 T16 MOVS r0,#1\n30 ns IT (00000106:3) 00000106 2001 T16 MOVS r0,#1\n40 ns IT (00000110:4) 00000110 2001 T16 MOVS r0,#1\n50 ns IT (00000112:5) 00000112 2001 T16 MOVS r0,#1\n60 ns IT (00000100:6) 00000100 2001 T16 MOVS r0,#1\n' > "$tmp/lab.tarmac"
out=$("$cli" stats "$tmp/lab.tarmac" --elf "$tmp/lab.elf" --format csv 2>&1)
[ "$out" = "$(printf 'function,calls,self_instructions,instructions,self_time,time,unit\nmain,2,4,4,30,30,ns\ntail,1,2,2,20,20,ns')" ] ||
	{ echo "FAIL: labels: $out"; fail=1; }

# a function nested in another (foo inside main's range: overlapping
# symbols): foo where it is, main around it, however the PC got there (was
# main for all once in main, and [unknown] in main past foo when come from
# foo)
python3 "$here/mkelf.py" "$tmp/nest.elf" main:8000:100 foo:8010:4
printf '1 clk IT (1) 00008000 e3a00001 A svc_usr : MOV r0,#1\n2 clk IT (2) 00008004 eb000001 A svc_usr : BL 0x8010\n3 clk IT (3) 00008010 e12fff1e A svc_usr : BX lr\n4 clk IT (4) 00008008 ea000004 A svc_usr : B 0x8020\n5 clk IT (5) 00008020 e3a00001 A svc_usr : MOV r0,#1\n' > "$tmp/nest.tarmac"
out=$("$cli" tarmac folded "$tmp/nest.tarmac" --elf "$tmp/nest.elf" 2>&1)
[ "$out" = "$(printf 'main 4\nmain;foo 1')" ] || { echo "FAIL: nested symbols, folded: $out"; fail=1; }
printf '1 clk IT (1) 00008010 e1a0f00e A svc_usr : MOV pc,lr\n2 clk IT (2) 00008020 e3a00001 A svc_usr : MOV r0,#1\n' > "$tmp/nest2.tarmac"
out=$("$cli" tarmac folded "$tmp/nest2.tarmac" --elf "$tmp/nest.elf" 2>&1)
[ "$out" = "$(printf 'foo 1\nmain 1')" ] || { echo "FAIL: nested symbols, from the inner one: $out"; fail=1; }

[ $fail = 0 ] && echo "tarmac profile: all checks passed (real ELF: $real)"
exit $fail
