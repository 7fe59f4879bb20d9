#!/bin/sh
# A S.Ha.R.K. stream longer than 64 MiB is read as the same file is (the
# source spools a pipe before the reader reads it at random): a TSC that
# goes down is put in order with the one warning, and a piece of a record
# at the end is seen at open (--strict: refused at its offset, exit 2, no
# output file; without it a warning).  Each input (64 MiB and a little) is
# made here, read from the file and piped in: same events, same messages.
# Usage: stream_large.sh TRACEKIT
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# gen LAST: the clock (1000 cycles/ms), 64 MiB of records at TSC 2000, then
# LAST: "dec" a record at TSC 1500, "cut" 3 bytes of a record
gen() {
	python3 -c '
import struct, sys
def rec(code, par1, tsc, par2=0):
    return struct.pack("<HHIII", code, par1, tsc >> 32, tsc & 0xffffffff, par2)
out = sys.stdout.buffer
out.write(rec(0x20, 256, 1000, 1000))
out.write(rec(0x15, 256, 2000) * (4 << 20))
out.write(rec(0x15, 256, 1500) if sys.argv[1] == "dec" else b"\x15\x00\x00")
' "$1" > "$tmp/$1.bin"
}
# same LAST ARGS...: the file and the pipe give the same output, status
# and stderr (the input's name aside)
same() {
	last=$1
	shift
	"$cli" "$@" "$tmp/$last.bin" 2> "$tmp/err.f" | cksum > "$tmp/out.f"
	"$cli" "$@" - < "$tmp/$last.bin" 2> "$tmp/err.p" | cksum > "$tmp/out.p"
	sed "s|$tmp/$last.bin|<stdin>|" "$tmp/err.f" > "$tmp/err.f2"
	cmp -s "$tmp/out.f" "$tmp/out.p" ||
		{ echo "FAIL $last $*: the pipe's output differs from the file's"; fail=1; }
	cmp -s "$tmp/err.f2" "$tmp/err.p" ||
		{ echo "FAIL $last $*: stderr differs"; diff "$tmp/err.f2" "$tmp/err.p"; fail=1; }
}
# check LAST STRICT-STATUS WARNING-OR-ERROR
check() {
	gen "$1"
	same "$1" cat --from shark
	same "$1" cat --strict --from shark
	cat "$tmp/$1.bin" | "$cli" cat -q --strict --from shark - > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq "$2" ] || { echo "FAIL $1: cat --strict exit $rc, expected $2"; fail=1; }
	if [ "$2" -eq 2 ]; then
		got=$(head -n 1 "$tmp/err")
		[ "$got" = "$3" ] || { echo "FAIL $1: cat --strict: got '$got'"; fail=1; }
		cat "$tmp/$1.bin" | "$cli" convert -q --strict --from shark - "$tmp/out.btf" 2> /dev/null
		rc=$?
		{ [ $rc -eq 2 ] && [ ! -e "$tmp/out.btf" ]; } ||
			{ echo "FAIL $1: convert --strict exit $rc or left a file"; fail=1; }
		rm -f "$tmp/out.btf"
		return
	fi
	cat "$tmp/$1.bin" | "$cli" info --from shark - > "$tmp/info" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL $1: lenient exit $rc"; cat "$tmp/err"; fail=1; }
	grep -q "$3" "$tmp/err" ||
		{ echo "FAIL $1: lenient: no warning '$3'"; cat "$tmp/err"; fail=1; }
}
# the record at TSC 1500 comes first: read in TSC order, as from the file
# (the order is set at open: the reading ends once its sixth line is out)
check dec 0 'records are not in TSC order from offset 67108880 on'
line=$("$cli" cat -q --from shark - < "$tmp/dec.bin" | sed -n '6{p;q}')
rm -f "$tmp/dec.bin"
case $line in
1500,*activate) ;;
*) echo "FAIL dec: the third line is not the activation at TSC 1500: '$line'"; fail=1 ;;
esac
check cut 2 "<stdin>: error: at byte offset 67108880: truncated record: 3 bytes at the end (records are 16 bytes)"

[ $fail = 0 ] && echo "shark large streams: ok"
exit $fail
