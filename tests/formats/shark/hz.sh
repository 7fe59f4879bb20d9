#!/bin/sh
# The shark reader's option hz=N (--input-option hz=N): the clock rate of a
# dump that has no clock record (a cyclic chunk that wrapped over its
# trace_start) or a wrong one.
# 1. no clock record, no option: 1 GHz assumed, and a warning that says so
#    and names the option;
# 2. the same dump with hz=25000000: a tick is 1/25000 ms (the 25000-cycle
#    period reads 1 ms), no warning;
# 3. a dump whose trace_start says 1000 cycles/ms, with hz=2000000: the
#    option wins, with a warning that gives the dump's rate;
# 4. refused with exit 2 and one line: hz=0, hz=1500 (the dump's unit is
#    cycles per ms), hz=abc, hz past 2^32 kHz, an unknown key.
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 - "$tmp" <<'PY' || exit 1
import struct, sys
d = sys.argv[1]
def rec(code, par1, tsc, par2=0):
    return struct.pack('<HHIII', code, par1, tsc >> 32, tsc & 0xffffffff, par2)
jobs = b''
for k in range(1, 4):   # task 256 released every 25000 cycles
    t = 25000 * k
    jobs += rec(0x12, 256, t) + rec(0x15, 256, t) + rec(0x62, 256, t + 5000)
open(d + '/noclock.bin', 'wb').write(jobs)
open(d + '/clock.bin', 'wb').write(rec(0x20, 0, 0, 1000) + jobs)
PY

# 1.
"$cli" cat --from shark "$tmp/noclock.bin" > "$tmp/out" 2> "$tmp/err" || { echo "FAIL noclock: exit $?"; fail=1; }
grep -qF "warning: no trace_start or cycles_per_msec record gives the clock rate (a cyclic chunk that wrapped over it?): 1 GHz assumed, 1 cycle = 1 ns; give the rate with the reader option hz=N (--input-option hz=N)" "$tmp/err" ||
	{ echo "FAIL noclock: warning"; cat "$tmp/err"; fail=1; }
grep -q '^50000,Core_0,0,T,ctx256,2,activate$' "$tmp/out" || { echo "FAIL noclock: times"; cat "$tmp/out"; fail=1; }

# 2.
"$cli" cat --from shark --input-option hz=25000000 "$tmp/noclock.bin" > "$tmp/out" 2> "$tmp/err" || { echo "FAIL hz: exit $?"; fail=1; }
[ -s "$tmp/err" ] && { echo "FAIL hz: stderr"; cat "$tmp/err"; fail=1; }
grep -q '^1000000,Core_0,0,C,Core_0,0,set_frequence,25000000$' "$tmp/out" &&
	grep -q '^2000000,Core_0,0,T,ctx256,2,activate$' "$tmp/out" &&
	grep -q '^3200000,Core_0,0,T,ctx256,3,terminate$' "$tmp/out" || { echo "FAIL hz: times"; cat "$tmp/out"; fail=1; }
"$cli" info --from shark --input-option hz=25000000 "$tmp/noclock.bin" > "$tmp/out" 2>&1
grep -q '^time unit: *ms x 1/25000$' "$tmp/out" && grep -q '#clk_per_msec 25000$' "$tmp/out" ||
	{ echo "FAIL hz: info"; cat "$tmp/out"; fail=1; }
"$cli" stats --from shark --input-option hz=25000000 --format csv "$tmp/noclock.bin" 2> /dev/null |
	grep -q '^ctx256,T,PER,2,1000000,1000000,1000000,ns,' || { echo "FAIL hz: the period is not 1 ms"; fail=1; }

# 3.
"$cli" cat --from shark --input-option hz=2000000 "$tmp/clock.bin" > "$tmp/out" 2> "$tmp/err" || { echo "FAIL forced: exit $?"; fail=1; }
grep -qF "warning: the dump's clock records say 1000 cycles/ms: hz=2000000 is used instead" "$tmp/err" ||
	{ echo "FAIL forced: warning"; cat "$tmp/err"; fail=1; }
grep -q '^12500000,Core_0,0,T,ctx256,1,activate$' "$tmp/out" || { echo "FAIL forced: times"; cat "$tmp/out"; fail=1; }

# 4.
for o in hz=0 hz=1500 hz=abc hz=4294967296000 clock=5; do
	"$cli" cat -q --from shark --input-option "$o" "$tmp/clock.bin" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "$tmp/clock.bin: error: bad shark reader option '$o' (hz=N: the clock rate in Hz, a multiple of 1000 below 2^32 kHz)" ] ||
		{ echo "FAIL $o: exit $rc: $(cat "$tmp/err")"; fail=1; }
done
[ $fail = 0 ] && echo "shark hz option: all passed"
exit $fail
