#!/bin/sh
# The order the S.Ha.R.K. reader reads a dump in, and the same results
# on every transport:
# - every test input (the format's cases, ok and fail; the dumps of
#   make_orders.py: a mix of irregular records, a wrap, runs, a clock
#   change, 40 runs, a truncated tail; the corpus dump) read by `cat` and
#   `convert`, lenient and --strict, gives the same stdout, stderr (the
#   input's name aside), exit status and output file from the file, from
#   a pipe, and from a .gz file and a .gz pipe;
# - a dump out of TSC order (a single wrap: a rotation; a few runs:
#   merged; 40 runs: sorted) gives the events of the same records written
#   in TSC order (then by position), with one warning that names the
#   first descent's offset;
# - the warnings reach the callback exactly between the events of the
#   records before theirs and their record's events, the same from a
#   file and from a memory stream handed out in pieces (warn_order.c);
# - a generated dump of more than 64 MiB (and with a truncated,
#   descending tail) reads the same from the file and from a pipe;
# - a dump whose clock rate changes only 8 MB in (big_clock.bin) is read
#   in picoseconds, each rate segment from its clock record on, exactly;
# - a dump cut short while it is read gives one clean error (shrink.c).
# `make test` samples it: each reading goes through the file and one other
# transport in turn, one dump of 600 000 records of each check is read,
# and the dump over 64 MiB only under `make test-full` (TK_TEST_FULL=1).
# Usage: orders.sh TRACEKIT DIR CORPUS_DUMP GEN_SHARK WARN_ORDER SHRINK
set -u
cli=$1 dir=$2 corpus=$3 gen=$4 order=$5 shrink=$6
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0 turn=0 gzin=
full=${TK_TEST_FULL:-0}
python3 "$dir/make_cases.py" "$tmp/cases" > /dev/null || { echo "FAIL: make_cases.py"; exit 1; }
python3 "$dir/make_orders.py" "$tmp/ord" || { echo "FAIL: make_orders.py"; exit 1; }

# run T CMD ARGS... IN: one reading of IN through transport T (file, pipe,
# gz, gzpipe) into $tmp/T.{out,err,rc}
run() {
	t=$1 cmd=$2
	shift 2
	rm -f "$tmp/o.btf"
	eval "in=\${$#}"
	args=
	while [ $# -gt 1 ]; do args="$args $1"; shift; done
	# the .gz of IN, made once for all its readings
	case $t in
	gz*) [ "$gzin" = "$in" ] || { gzip -c "$in" > "$tmp/in.gz"; gzin=$in; } ;;
	esac
	case $t in
	file) src=$in ;;
	gz) src=$tmp/in.gz ;;
	*) src=- ;;
	esac
	out=
	[ "$cmd" = convert ] && out=$tmp/o.btf
	case $t in
	pipe) cat "$in" | "$cli" $cmd $args "$src" $out > "$tmp/$t.out" 2> "$tmp/$t.err" ;;
	gzpipe) cat "$tmp/in.gz" | "$cli" $cmd $args "$src" $out > "$tmp/$t.out" 2> "$tmp/$t.err" ;;
	*) "$cli" $cmd $args "$src" $out > "$tmp/$t.out" 2> "$tmp/$t.err" ;;
	esac
	echo $? > "$tmp/$t.rc"
	if [ "$cmd" = convert ]; then
		if [ -e "$tmp/o.btf" ]; then cat "$tmp/o.btf" >> "$tmp/$t.out"; else echo "(no file)" >> "$tmp/$t.out"; fi
	fi
	# the input's name in messages
	sed -e "s|^$tmp/in.gz:|IN:|" -e "s|^$in:|IN:|" -e "s|^<stdin>:|IN:|" "$tmp/$t.err" > "$tmp/$t.e2"
}

# same CMD ARGS... IN: every transport as the file
same() {
	n=$((n + 1))
	run file "$@"
	ts="pipe gz gzpipe"
	if [ "$full" != 1 ]; then
		turn=$((turn + 1))
		case $((turn % 3)) in 0) ts=pipe ;; 1) ts=gz ;; 2) ts=gzpipe ;; esac
	fi
	for t in $ts; do
		run $t "$@"
		for k in out e2 rc; do
			if ! cmp -s "$tmp/file.$k" "$tmp/$t.$k"; then
				echo "FAIL: $* from $t: $k differs from the file's"
				diff "$tmp/file.$k" "$tmp/$t.$k" | head -5
				fail=1
			fi
		done
	done
}

inputs="$tmp/cases/ok/*.bin $tmp/cases/fail/*.bin $tmp/cases/tools/*.bin"
bigs="big_wrap"
[ "$full" = 1 ] || bigs=
for k in mixed clock sorted runs40 wrapped tail $bigs; do inputs="$inputs $tmp/ord/$k.bin"; done
[ -f "$corpus" ] && inputs="$inputs $corpus"
for in in $inputs; do
	same cat --from shark "$in"
	# kept for the orders below, which read these dumps the same way
	case $in in
	*/ord/wrapped.bin|*/ord/sorted.bin|*/ord/runs40.bin)
		cp "$tmp/file.out" "$in.out"; cp "$tmp/file.err" "$in.err" ;;
	esac
	same cat --strict --from shark "$in"
	same convert --from shark "$in"
done

# the orders: the events of the records in TSC order (empty slots last,
# a partial record dropped), one warning at the first descent
sorted() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = len(d) // 16
full = []       # (TSC, slot) of the records, empty slots left out
prev = at = None
for i, (typ, _, hi, lo, _) in enumerate(struct.iter_unpack('<HHIII', d[:16 * n])):
    if typ == 0:
        continue
    t = hi << 32 | lo
    if at is None and prev is not None and t < prev:
        at = i * 16
    prev = t
    full.append((t, i))
full.sort()
open(sys.argv[2], 'wb').write(b''.join(d[16 * i:16 * i + 16] for _, i in full) +
                              bytes(16) * (n - len(full)))
if at is not None:
    print(at)
PY
}
bigs="big_wrap big_mid big_sort big_parts"
[ "$full" = 1 ] || bigs=big_mid
for in in "$tmp"/ord/wrapped.bin "$tmp"/ord/sorted.bin "$tmp"/ord/runs40.bin \
	  $(for k in $bigs; do echo "$tmp/ord/$k.bin"; done); do
	n=$((n + 1))
	at=$(sorted "$in" "$tmp/s.bin")
	if [ -f "$in.out" ]; then
		cp "$in.out" "$tmp/a.out"; cp "$in.err" "$tmp/a.err"
	else
		"$cli" cat --from shark "$in" > "$tmp/a.out" 2> "$tmp/a.err"
	fi
	"$cli" cat --from shark "$tmp/s.bin" > "$tmp/b.out" 2> /dev/null
	cmp -s "$tmp/a.out" "$tmp/b.out" ||
		{ echo "FAIL: $in: not read in TSC order"; diff "$tmp/a.out" "$tmp/b.out" | head -5; fail=1; }
	grep -q "records are not in TSC order from offset $at on" "$tmp/a.err" ||
		{ echo "FAIL: $in: no warning at offset $at"; head -3 "$tmp/a.err"; fail=1; }
done

# where the warnings come among the events, from a file and a memory stream
bigs="big big_sort"
[ "$full" = 1 ] || bigs=big_sort
for in in "$tmp"/ord/mixed.bin "$tmp"/ord/wrapped.bin "$tmp"/ord/runs40.bin \
	  $(for k in $bigs; do echo "$tmp/ord/$k.bin"; done); do
	n=$((n + 1))
	for t in file stream; do
		"$order" "$in" $t > "$tmp/w$t" 2>&1 || { echo "FAIL: warn_order $in $t"; head -5 "$tmp/w$t"; fail=1; }
	done
	cmp -s "$tmp/wfile" "$tmp/wstream" ||
		{ echo "FAIL: warn_order $in: the warnings come elsewhere from a stream"; diff "$tmp/wfile" "$tmp/wstream" | head -5; fail=1; }
done
# the irregular dumps do warn and fail
"$cli" cat --from shark "$tmp/ord/big.bin" 2>&1 > /dev/null | grep -q "warnings in all" ||
	{ echo "FAIL: big.bin gives no warnings"; fail=1; }
"$cli" cat --strict --from shark "$tmp/ord/big.bin" > /dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: big.bin --strict does not fail"; fail=1; }

# a clock rate that changes only late in a large dump (big_clock.bin:
# big.bin with a cycles_per_msec of 10^6 at record 500 000, 8 MB in, far
# past the scan's first 1 MB; the mix's own clock records give back the
# first rate later): the scan at open finds it, so the whole dump is read
# in picoseconds with one warning, each rate segment from its clock
# record on (docs/mappings.md, shark_time.h); every set_frequence event
# (the first record's and each cycles_per_msec's: every segment's start)
# at exactly the model's time, with its rate
n=$((n + 1))
python3 - "$tmp/ord/big_clock.bin" > "$tmp/clk.want" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
clk = seg_tsc = seg_ps = None
out = []
for i, (typ, _, hi, lo, par2) in enumerate(struct.iter_unpack('<HHIII', d)):
    code = typ & 0xff
    if typ == 0 or code not in (0x10, 0x20) or par2 == 0:
        continue
    tsc = hi << 32 | lo
    if clk is None:
        clk, seg_tsc, seg_ps = par2, 0, 0   # the first rate from TSC 0 at 0 ps
    now = seg_ps + (tsc - seg_tsc) * 10**9 // clk
    if i == 0 or code == 0x10:
        out.append('%d,Core_0,0,C,Core_0,0,set_frequence,%d' % (now, par2 * 1000))
    if par2 != clk:
        clk, seg_tsc, seg_ps = par2, tsc, now
print('\n'.join(out))
PY
"$cli" cat --no-header --event set_frequence --from shark "$tmp/ord/big_clock.bin" > "$tmp/clk.out" 2> "$tmp/clk.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: big_clock.bin: exit $rc"; head -3 "$tmp/clk.err"; fail=1; }
grep -q ',set_frequence,1000000000$' "$tmp/clk.want" || { echo "FAIL: big_clock.bin: no rate change in the model"; fail=1; }
cmp -s "$tmp/clk.want" "$tmp/clk.out" ||
	{ echo "FAIL: big_clock.bin: the clock records' events are not at their times in ps"; diff "$tmp/clk.want" "$tmp/clk.out" | head -5; fail=1; }
[ "$(grep -c 'the clock rate changes within the dump' "$tmp/clk.err")" = 1 ] ||
	{ echo "FAIL: big_clock.bin: not one warning of the rate change"; head -3 "$tmp/clk.err"; fail=1; }

# a dump cut short while it is read: one clean error, then the end (read
# in file order, and as two runs merged: its halves swapped)
"$gen" -n 400000 "$tmp/cut.bin" || { echo "FAIL: gen_shark"; exit 1; }
cp "$tmp/cut.bin" "$tmp/cut1.bin"
tail -c +3200001 "$tmp/cut.bin" > "$tmp/cut2.bin"
head -c 3200000 "$tmp/cut.bin" >> "$tmp/cut2.bin"
for k in 1 2; do
	n=$((n + 1))
	"$shrink" "$tmp/cut$k.bin" > /dev/null || { echo "FAIL: shark_shrink cut$k.bin"; fail=1; }
done
rm -f "$tmp"/cut*.bin

# more than 64 MiB, and with a tail whose TSC goes down, an unknown code
# and a partial record: the file and a pipe (make test-full)
if [ "$full" = 1 ]; then
	"$gen" -n 4300000 "$tmp/g.bin" || { echo "FAIL: gen_shark"; exit 1; }
	cat "$tmp/g.bin" "$tmp/ord/tail.bin" > "$tmp/s.bin"
	rm -f "$tmp/g.bin"
	for mode in "" --strict; do
		n=$((n + 1))
		"$cli" info $mode --from shark "$tmp/s.bin" > "$tmp/f.out" 2> "$tmp/f.err"
		echo $? >> "$tmp/f.out"
		cat "$tmp/s.bin" | "$cli" info $mode --from shark - > "$tmp/p.out" 2> "$tmp/p.err"
		echo $? >> "$tmp/p.out"
		sed -i "s|^$tmp/s.bin|<stdin>|; s|^file: .*||" "$tmp/f.out" "$tmp/f.err"
		sed -i "s|^file: .*||" "$tmp/p.out"
		cmp -s "$tmp/f.out" "$tmp/p.out" && cmp -s "$tmp/f.err" "$tmp/p.err" ||
			{ echo "FAIL: large $mode: the pipe differs from the file"; diff "$tmp/f.out" "$tmp/p.out" | head -5; diff "$tmp/f.err" "$tmp/p.err" | head -5; fail=1; }
		grep -q "TSC order\|truncated record" "$tmp/p.err" ||
			{ echo "FAIL: large $mode: no reordering or truncation reported"; cat "$tmp/p.err"; fail=1; }
	done
fi
[ $fail = 0 ] && echo "shark orders: $n checks passed"
exit $fail
