#!/bin/bash
# Options and operands in any order, for every command, and every kind of
# input: each command run with its options before, after and between its
# operands (also after "--" and with POSIXLY_CORRECT set) must give what
# the options-first form gives; then each reading command on the same
# input as a file, standard input, a pipe (/dev/fd/N of a process
# substitution), .gz and .zst files and compressed pipes.  BTF traces and
# a generated Arm Tarmac log (with an ELF from tests/tarmac/mkelf.py), whose
# record view must be chosen whatever the order and the kind of input.
# bash: process substitution.
# Usage: order.sh CLI ROOT
set -u
cli=$1 root=$2
cd "$root" || exit 1
command -v python3 > /dev/null 2>&1 || { echo "skipped: python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0

# run OUT ARGS...: stdout, then the exit status, to OUT; stderr to OUT.err
run() {
	local out=$1
	shift
	"$cli" "$@" > "$out" 2> "$out.err"
	echo "exit $?" >> "$out"
	runs=$((runs + 1))
}

# same EXIT REF VARIANT...: REF (a string of arguments) must exit EXIT;
# each VARIANT, as given and with POSIXLY_CORRECT=1, must give the same
# standard output, status and first line of standard error
same() {
	local want=$1 ref=$2 v env
	shift 2
	eval "run \"\$tmp/want\" $ref"
	if ! tail -n 1 "$tmp/want" | grep -qx "exit $want"; then
		echo "FAIL: '$ref': $(tail -n 1 "$tmp/want"), expected exit $want"
		head -n 3 "$tmp/want.err"; fail=1; return
	fi
	for v in "$@"; do
		for env in "" "POSIXLY_CORRECT=1"; do
			eval "$env run \"\$tmp/got\" $v"
			if ! cmp -s "$tmp/want" "$tmp/got" ||
			   [ "$(head -n 1 "$tmp/want.err")" != "$(head -n 1 "$tmp/got.err")" ]; then
				echo "FAIL: ${env:+$env }'$v' differs from '$ref':"
				diff "$tmp/want" "$tmp/got" | head -n 6
				diff "$tmp/want.err" "$tmp/got.err" | head -n 4
				fail=1
			fi
		done
	done
}

btf=examples/demo.btf
gzip -c "$btf" > "$tmp/demo.btf.gz"
zstd -q -c "$btf" > "$tmp/demo.btf.zst"
# a trace with violations for check (exit 1)
printf '#version 2.2\n#timeScale ns\n0,Core_0,0,T,A,0,start\n5,Core_0,0,T,B,0,start\n9,Core_0,0,T,A,0,terminate\n' > "$tmp/bad.btf"

# a Cortex-M log of a known program and its ELF (tests/tarmac/profile.sh)
cat > "$tmp/layout" <<'EOF'
main 1000 40
foo 1040 40
bar 1080 20
baz 10a0 0
SysTick_Handler 10c0 20
helper 10e0 20
recur 1100 20
EOF
python3 tests/tarmac/mkelf.py "$tmp/prog.elf" --thumb main:1000:40 foo:1040:40 bar:1080:20 \
	baz:10a0:0 SysTick_Handler:10c0:20 helper:10e0:20 recur:1100:20 || exit 1
python3 tests/tarmac/profile.py "$tmp/layout" "$tmp" || exit 1
log=$tmp/log.tarmac elf=$tmp/prog.elf
gzip -c "$log" > "$tmp/log.tarmac.gz"
zstd -q -c "$log" > "$tmp/log.tarmac.zst"

# ---- 1. options before, after and between the operands --------------------------

same 0 "info --format json -q $btf" \
	"info $btf --format json -q" "info -q $btf --format=json" "info --format json -q -- $btf"
same 0 "cat --type I --no-header $btf" \
	"cat $btf --type I --no-header" "cat --type I $btf --no-header" "cat --type I --no-header -- $btf"
same 1 "check -q --max-errors 1 $tmp/bad.btf" \
	"check $tmp/bad.btf -q --max-errors 1" "check -q $tmp/bad.btf --max-errors=1"
same 0 "stats --format csv --type T --unit us $btf" \
	"stats $btf --format csv --type T --unit us" "stats --format csv $btf --type T --unit us"
same 0 "load --window 10ms --format csv $btf" \
	"load $btf --window 10ms --format csv" "load --window 10ms $btf --format csv"
same 0 "convert --to btf --start 10ms $btf -" \
	"convert $btf - --to btf --start 10ms" "convert $btf --to btf - --start 10ms" \
	"convert --to btf --start 10ms -- $btf -"
same 0 "formats" "formats --"
same 2 "formats extra" "formats -- extra"
# shark-receive: the options after FILE are read (a bad one refused), and
# one reception that ends by --timeout without a packet (exit 1, no file)
same 2 "shark-receive --bind 300.1.1.1 $tmp/r.bin" \
	"shark-receive $tmp/r.bin --bind 300.1.1.1"
run "$tmp/recv" shark-receive "$tmp/r.bin" --port 0 --timeout 1 -q
grep -qx "exit 1" "$tmp/recv" && [ ! -e "$tmp/r.bin" ] ||
	{ echo "FAIL: shark-receive FILE --port 0 --timeout 1: $(cat "$tmp/recv" "$tmp/recv.err")"; fail=1; }
# report: the same page whatever the order
for order in 1 2 3; do
	case $order in
	1) run "$tmp/rep" report -q -o "$tmp/r.html" "$btf" ;;
	2) run "$tmp/rep" report "$btf" -o "$tmp/r.html" -q ;;
	3) POSIXLY_CORRECT=1 run "$tmp/rep" report -q "$btf" --output "$tmp/r.html" ;;
	esac
	grep -qx "exit 0" "$tmp/rep" || { echo "FAIL: report order $order: $(cat "$tmp/rep.err")"; fail=1; }
	mv "$tmp/r.html" "$tmp/r$order.html" 2> /dev/null
done
cmp -s "$tmp/r1.html" "$tmp/r2.html" && cmp -s "$tmp/r1.html" "$tmp/r3.html" ||
	{ echo "FAIL: report pages differ with the order of the options"; fail=1; }
# the S.Ha.R.K. tools (convert --to shark-list / shark-pwc)
dump=../shared/corpus/shark/shark-demo-trace.bin
if [ -f "$dump" ]; then
	same 0 "convert --from shark --to shark-list $dump -" \
		"convert $dump - --from shark --to shark-list" "convert $dump --to shark-list - --from shark"
	same 0 "convert --to shark-pwc $dump -" "convert $dump - --to shark-pwc"
fi

# the Tarmac record view, whatever the order
same 0 "info --strict --format json $log" \
	"info $log --strict --format json" "info --format json $log --strict" \
	"info $log --from tarmac --strict --format json"
same 0 "cat --kind instruction --pc 1000-10ff $log" \
	"cat $log --kind instruction --pc 1000-10ff" "cat --kind instruction $log --pc 1000-10ff"
same 0 "stats --elf $elf --top 3 $log" \
	"stats $log --elf $elf --top 3" "stats --top 3 $log --elf $elf"
same 0 "stats --elf $elf --format csv $log" "stats $log --format csv --elf $elf"
same 0 "convert --elf $elf --to folded $log -" \
	"convert $log - --to folded --elf $elf" "convert $log --elf $elf --to folded -"
run "$tmp/f1" convert "$log" "$tmp/a.folded" --elf "$elf" --weight time
run "$tmp/f2" convert --weight time --elf "$elf" "$log" "$tmp/b.folded"
cmp -s "$tmp/a.folded" "$tmp/b.folded" && cmp -s "$tmp/a.folded" "$tmp/want_time.folded" ||
	{ echo "FAIL: folded stacks (--weight time) with the options after OUT"; fail=1; }
# an option of the other view: a usage error, before any output
same 2 "stats --elf $elf $btf" "stats $btf --elf $elf"
same 2 "cat --entity Task_1 $log" "cat $log --entity Task_1"
same 2 "convert --start 5 $log $tmp/c.folded --elf $elf" "convert $log $tmp/c.folded --elf $elf --start 5"
[ ! -e "$tmp/c.folded" ] || { echo "FAIL: folded stacks written after a usage error"; fail=1; }
same 2 "convert --elf $elf $btf $tmp/c.btf"

# ---- 2. every kind of input ------------------------------------------------------

# kinds WANT FILE ARGS: the command (ARGS, a string, the input where "@"
# stands) on FILE as a path, on standard input, through a pipe, compressed
# (FILE.gz and FILE.zst must exist) and through compressed pipes: exit WANT
# and the same output each time (the input's name, in the "file:" line or
# elsewhere, aside)
kinds() {
	local want=$1 f=$2 tpl=$3 k src
	for k in file stdin pipe gz zst gzpipe zstpipe; do
		case $k in
		file) src=$f ;;
		stdin) src="- < $f" ;;
		pipe) src="<(cat $f)" ;;
		gz) src=$f.gz ;;
		zst) src=$f.zst ;;
		gzpipe) src="<(gzip -c $f)" ;;
		zstpipe) src="<(zstd -q -c $f)" ;;
		esac
		eval "run \"\$tmp/kind.\$k\" ${tpl//@/$src}"
		sed -e '/^file: /d' -e "s#$f\\.gz#INPUT#g; s#$f\\.zst#INPUT#g; s#$f#INPUT#g" \
			-e 's#/dev/fd/[0-9]*#INPUT#g; s#^<stdin>:#INPUT:#; s#"<stdin>"#"INPUT"#' "$tmp/kind.$k" > "$tmp/kind.$k.norm"
		if ! tail -n 1 "$tmp/kind.$k" | grep -qx "exit $want"; then
			echo "FAIL: ($k) '${tpl//@/$src}': $(tail -n 1 "$tmp/kind.$k"), expected exit $want"
			head -n 3 "$tmp/kind.$k.err"; fail=1
		elif ! cmp -s "$tmp/kind.file.norm" "$tmp/kind.$k.norm"; then
			echo "FAIL: ($k) '${tpl//@/$src}' differs from the file's output:"
			diff "$tmp/kind.file.norm" "$tmp/kind.$k.norm" | head -n 6; fail=1
		fi
	done
}

cp "$btf" "$tmp/demo.btf"
b=$tmp/demo.btf
kinds 0 "$b" "info @ --strict"
kinds 0 "$b" "cat --type T @ --no-header"
gzip -c "$tmp/bad.btf" > "$tmp/bad.btf.gz"
zstd -q -c "$tmp/bad.btf" > "$tmp/bad.btf.zst"
kinds 1 "$tmp/bad.btf" "check @ -q"
kinds 0 "$b" "stats @ --format csv"
kinds 0 "$b" "load @ --window 10ms"
kinds 0 "$b" "convert @ - --to htf"
kinds 0 "$log" "info @ --strict"
kinds 0 "$log" "cat --kind event @"
kinds 0 "$log" "stats @ --elf $elf"
kinds 0 "$log" "stats --format json --elf $elf @"
kinds 0 "$log" "convert @ - --elf $elf --to folded"
kinds 0 "$log" "convert @ - --to btf"

# the brief's examples, spelled out
"$cli" info <(cat "$btf") > "$tmp/p" 2>&1 && grep -qx "format:      btf" "$tmp/p" ||
	{ echo "FAIL: info <(cat demo.btf): $(head -n 2 "$tmp/p")"; fail=1; }
"$cli" info "$log" --strict > "$tmp/p" 2>&1 && grep -q "^format:    tarmac (" "$tmp/p" ||
	{ echo "FAIL: info LOG --strict: $(head -n 2 "$tmp/p")"; fail=1; }
"$cli" stats "$log" --elf "$elf" > "$tmp/p" 2>&1 && grep -q "^functions (" "$tmp/p" ||
	{ echo "FAIL: stats LOG --elf ELF: $(head -n 2 "$tmp/p")"; fail=1; }
# report reads FILE twice: a pipe is refused with a usage error
"$cli" report <(cat "$btf") -o "$tmp/p.html" 2> "$tmp/p"
[ $? = 2 ] && [ ! -e "$tmp/p.html" ] && grep -q "can be read only once" "$tmp/p" ||
	{ echo "FAIL: report of a pipe: $(cat "$tmp/p")"; fail=1; }

[ $fail = 0 ] && echo "order: $runs runs, all the same whatever the order and the kind of input"
exit $fail
