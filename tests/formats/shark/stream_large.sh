#!/bin/sh
# A S.Ha.R.K. stream longer than the reader holds whole (64 MiB) is read in
# the order it comes: a TSC that goes down cannot be put in order, and a
# piece of a record at the end is seen only there.  With --strict each is
# refused at its offset (exit 2, no output file), without it a warning.
# The inputs (64 MiB and a little) are made here and piped in.
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
' "$1"
}
# check LAST ERROR WARNING
check() {
	gen "$1" | "$cli" cat -q --strict --from shark - > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL $1: cat --strict exit $rc, expected 2"; fail=1; }
	got=$(head -n 1 "$tmp/err")
	[ "$got" = "$2" ] || { echo "FAIL $1: cat --strict: got '$got'"; fail=1; }
	gen "$1" | "$cli" convert -q --strict --from shark - "$tmp/out.btf" 2> /dev/null
	rc=$?
	{ [ $rc -eq 2 ] && [ ! -e "$tmp/out.btf" ]; } ||
		{ echo "FAIL $1: convert --strict exit $rc or left a file"; fail=1; }
	rm -f "$tmp/out.btf"
	gen "$1" | "$cli" info --from shark - > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL $1: lenient exit $rc"; cat "$tmp/err"; fail=1; }
	grep -q "$3" "$tmp/err" ||
		{ echo "FAIL $1: lenient: no warning '$3'"; cat "$tmp/err"; fail=1; }
}
check dec "<stdin>: error: at byte offset 67108880: TSC 1500 is before the previous record's 2000" \
	'offset 67108880: the TSC decreases'
check cut "<stdin>: error: at byte offset 67108880: truncated record: 3 bytes at the end (records are 16 bytes)" \
	'the last 3 bytes are not a whole record'

[ $fail = 0 ] && echo "shark large streams: ok"
exit $fail
