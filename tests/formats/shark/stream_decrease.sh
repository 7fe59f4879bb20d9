#!/bin/sh
# A S.Ha.R.K. stream longer than the reader holds whole (64 MiB) is read in
# the order it comes, so a TSC that goes down cannot be put in order: with
# --strict it is refused at its record (exit 2, no output file), without it
# a warning.  The 64 MiB input is made here and piped in.
# Usage: stream_decrease.sh TRACEKIT
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

gen() {
	python3 -c '
import struct, sys
def rec(code, par1, tsc, par2=0):
    return struct.pack("<HHIII", code, par1, tsc >> 32, tsc & 0xffffffff, par2)
out = sys.stdout.buffer
out.write(rec(0x20, 256, 1000, 1000))      # the clock: 1000 cycles/ms
out.write(rec(0x15, 256, 2000) * (4 << 20))  # 64 MiB at TSC 2000
out.write(rec(0x15, 256, 1500))            # then one at TSC 1500
'
}
want="<stdin>: error: at byte offset 67108880: TSC 1500 is before the previous record's 2000"

gen | "$cli" cat -q --strict --from shark - > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: cat --strict exit $rc, expected 2"; fail=1; }
got=$(head -n 1 "$tmp/err")
[ "$got" = "$want" ] || { echo "FAIL: cat --strict: got '$got'"; fail=1; }

gen | "$cli" convert -q --strict --from shark - "$tmp/out.btf" 2> /dev/null
rc=$?
{ [ $rc -eq 2 ] && [ ! -e "$tmp/out.btf" ]; } ||
	{ echo "FAIL: convert --strict exit $rc or left a file"; fail=1; }

# lenient: read as it came, with the decrease named in a warning
gen | "$cli" info --from shark - > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: lenient exit $rc"; cat "$tmp/err"; fail=1; }
grep -q 'offset 67108880' "$tmp/err" ||
	{ echo "FAIL: lenient: no warning at offset 67108880"; cat "$tmp/err"; fail=1; }

[ $fail = 0 ] && echo "shark stream decrease: ok"
exit $fail
