#!/bin/sh
# Generated logs of each Tarmac variant, with the counts per line kind they
# must give (the generator knows what it wrote), read in strict mode; then
# the filters of `cat` and the figures of `stats` on the Cortex-M log, and
# the ISR events of the adapter.
# Usage: generated.sh CLI DRIVER
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
N=50

check() { # file "expected kinds json"
	if ! "$cli" info --strict --format json "$tmp/$1" > "$tmp/info" 2> "$tmp/err"; then
		echo "FAIL $1: $(head -n 1 "$tmp/err")"; fail=1; return
	fi
	got=$(sed -n 's/^  "kinds": \(.*\),$/\1/p' "$tmp/info")
	[ "$got" = "$2" ] || { echo "FAIL $1: $got"; echo "   expected $2"; fail=1; }
	[ -z "${3:-}" ] || grep -q "\"variant\": \"$3\"" "$tmp/info" ||
		{ echo "FAIL $1: variant: $(grep variant "$tmp/info")"; fail=1; }
}
kinds() { echo "{\"instruction\": $1, \"register\": $2, \"event\": $3, \"memory\": $4, \"bus\": $5, \"branch\": $6, \"other\": $7}"; }

# Cortex-M RTL (the spec): per round 3 instructions (one skipped), an
# exception entry (E SysTick, IPSR 15) and its return (BX lr with an
# EXC_RETURN in lr) 10 ns later
awk -v n=$N 'BEGIN {
	t = 100; print "      0 ns E Reset"
	for (i = 0; i < n; i++) {
		a = 2048 + 4 * i
		printf "%d ns IT (%08x:%08x) %08x 2900 T16 CMP r1,#0\n", t, a, i, a; t += 10
		printf "%d ns IS (%08x:%08x) %08x d001 T16 BEQ {pc}+6\n", t, a + 2, i, a + 2; t += 10
		printf "%d ns R r9 %08x\n", t, i
		printf "%d ns BNR4___I %08x f0018800\n", t, a
		printf "%d ns MNW4___D 20000%03x %08x\n", t, i * 4, i; t += 10
		printf "%d ns E SysTick\n", t
		printf "%d ns R psr 6100000f\n", t; t += 10
		printf "%d ns R lr fffffff9\n", t
		printf "%d ns IT (%08x:%08x) %08x 4770 T16 BX lr\n", t, 4096, i, 4096; t += 20
		printf "%d ns R psr 61000000\n", t; t += 10
	}
}' > "$tmp/m.tarmac"
check m.tarmac "$(kinds $((3 * N)) $((4 * N)) $((N + 1)) $N $N 0 0)" cortex-m-rtl

# Fast Models, AArch64, with a CPU prefix on half of the lines
awk -v n=$N 'BEGIN {
	print "0 clk SIGNAL: SIGNAL=DebugReset STATE=N"
	print "0 clk E 00000000:000000000000 00000001 CoreEvent_Reset"
	for (i = 0; i < n; i++) {
		p = (i % 2) ? "cpu1 " : ""
		printf "%d clk %sIT (%d) %08x d2a00200 O EL3h_s : MOV      x0,#0x100000\n", i, p, i, 8 * i
		printf "%d clk %sR X0 0000000000100000\n", i, p
		printf "%d clk %sMW8 000fffe0:0000000fffe0 00000000_002105e0\n", i, p
		printf "%d clk %sIS (%d) %08x 54ffffa1 O EL3h_s : B.NE     {pc}-0xc ; 0xc7e0\n", i, p, i, 8 * i + 4
	}
	printf "%d clk CADI E simulation_stopped\n", n
}' > "$tmp/fm.tarmac"
check fm.tarmac "$(kinds $((2 * N)) $N 3 $N 0 0 0)" fast-models

# gem5
awk -v n=$N 'BEGIN {
	for (i = 0; i < n; i++) {
		printf "%d clk cpu0 IT (%d) 002105d4 d2a00200 O EL3h_s :   MOVZ   X0, #16, #16\n", 250 * i, i + 1
		printf "%d clk cpu0 R X0 0000000000100000\n", 250 * i
		printf "%d clk cpu0 MW8 000fffe0:0000000fffe0 0000000000000000\n", 250 * i
	}
}' > "$tmp/gem5.tarmac"
check gem5.tarmac "$(kinds $N $N 0 $N 0 0 0)" gem5

# Tarmac Text Rev 3t: ES records, EXC, BR, LD/ST with continuation lines
awk -v n=$N 'BEGIN {
	print "Tarmac Text Rev 3t"
	print "          0 tic ES  EXC [0x00] Reset"
	print "                    BR (00000000) A"
	for (i = 0; i < n; i++) {
		printf "%11d tic ES  (%08x:e92d4830) A svc_s:          PUSH     {r4,r5,r11,lr}\n", i, 8 * i
		print  "                    ST 000ffff0 0002015c 00000000 00000000 00000000    S:00000ffff0    nGnRnE OSH"
		print  "                       000fffe0 00000000 00000007 ........ ........    S:00000fffe0    nGnRnE OSH"
		printf "%11d tic ES  (%08x:03a06a01) A svc_s:     CCFAIL MOVEQ    r6,#0x1000\n", i, 8 * i + 4
		print  "                    R SP_SVC 000fffe0"
	}
}' > "$tmp/rev3t.tarmac"
check rev3t.tarmac "$(kinds $((2 * N)) $N 1 $((2 * N)) 0 1 1)" text-rev3t

# cat filters and stats on the Cortex-M log
got=$("$cli" cat --kind instruction --mnemonic bx "$tmp/m.tarmac" | wc -l)
[ "$got" = $N ] || { echo "FAIL cat --mnemonic: $got"; fail=1; }
got=$("$cli" cat --pc 0x800-0x807 "$tmp/m.tarmac" | wc -l)
[ "$got" = 4 ] || { echo "FAIL cat --pc: $got"; fail=1; }
got=$("$cli" cat --addr 0x20000000-0x20000007 "$tmp/m.tarmac" | wc -l)
[ "$got" = 2 ] || { echo "FAIL cat --addr: $got"; fail=1; }
got=$("$cli" cat --register R9 --start 100 --end 200 "$tmp/m.tarmac" | wc -l)
[ "$got" = 2 ] || { echo "FAIL cat --register --start --end: $got"; fail=1; }
"$cli" stats --format json "$tmp/m.tarmac" > "$tmp/stats" || { echo "FAIL stats"; fail=1; }
grep -q "\"executed\": $((N * 2)), \"skipped\": $N" "$tmp/stats" ||
	{ echo "FAIL stats instructions: $(grep instructions "$tmp/stats")"; fail=1; }
grep -q "{\"name\": \"SysTick\", \"count\": $N, \"total\": $((10 * N)), \"min\": 10, \"max\": 10, \"open\": 0}" "$tmp/stats" ||
	{ echo "FAIL stats exceptions: $(grep -A1 exceptions "$tmp/stats")"; fail=1; }
grep -q "\"region\": \"0x20000000\", \"kind\": \"memory write\", \"count\": $N, \"bytes\": $((4 * N))" "$tmp/stats" ||
	{ echo "FAIL stats traffic: $(grep -A1 traffic "$tmp/stats")"; fail=1; }

# the adapter: BTF with one SysTick instance per round, entry to return
"$cli" convert -q "$tmp/m.tarmac" "$tmp/m.btf" || { echo "FAIL convert"; fail=1; }
got=$(grep -c ',I,SysTick,[0-9]*,terminate$' "$tmp/m.btf")
[ "$got" = $N ] || { echo "FAIL convert: $got SysTick terminates"; fail=1; }
grep -q "^130,Core_0,0,I,SysTick,1,start$" "$tmp/m.btf" || { echo "FAIL convert: first start"; head "$tmp/m.btf"; fail=1; }
grep -q "^140,Core_0,0,I,SysTick,1,terminate$" "$tmp/m.btf" || { echo "FAIL convert: first terminate"; head "$tmp/m.btf"; fail=1; }
"$cli" info "$tmp/m.tarmac" | grep -q "^format: *tarmac" || { echo "FAIL: not dispatched as tarmac"; fail=1; }

# lenient vs strict on an unknown line kind
{ cat "$tmp/m.tarmac"; echo "5000 ns ZZ what"; } > "$tmp/bad.tarmac"
"$cli" info --strict "$tmp/bad.tarmac" > /dev/null 2> "$tmp/err" && { echo "FAIL strict accepted ZZ"; fail=1; }
grep -q "bad.tarmac:$((10 * N + 2)):9: error: unknown line kind 'ZZ'" "$tmp/err" || { echo "FAIL strict message: $(cat "$tmp/err")"; fail=1; }
"$cli" info -q --format json "$tmp/bad.tarmac" | grep -q '"skipped": 1,' || { echo "FAIL lenient skip"; fail=1; }
# a line in another SI unit: converted exactly; not a whole ns: rounded
# down with a warning (strict: an error); beyond 64 bits: an error in both
{ echo "100 ns E Reset"; echo "102500 ps E SysTick"; echo "3 us E SysTick"; } > "$tmp/si.tarmac"
"$cli" convert -q --to btf "$tmp/si.tarmac" - | grep -q "^102,Core_0,0,I,SysTick,1,start$" || { echo "FAIL 102500 ps not 102 ns"; fail=1; }
"$cli" convert --to btf "$tmp/si.tarmac" - 2>&1 >/dev/null | grep -q "si.tarmac:2:1: warning: time 102500 ps is not a whole number of the trace's ns: rounded down" || { echo "FAIL si warning"; fail=1; }
"$cli" convert -q --to btf "$tmp/si.tarmac" - | grep -q "^3000,Core_0,0,I,SysTick,2,start$" || { echo "FAIL 3 us not 3000 ns"; fail=1; }
"$cli" convert --strict --to btf "$tmp/si.tarmac" - 2>&1 >/dev/null | grep -q "si.tarmac:2:1: error: time 102500 ps is not a whole number of the trace's ns" || { echo "FAIL si strict"; fail=1; }
{ echo "100 ns E Reset"; echo "20000000000 s E SysTick"; } > "$tmp/big.tarmac"
"$cli" convert --to btf "$tmp/big.tarmac" - 2>&1 >/dev/null | grep -q "big.tarmac:2:1: error: time 20000000000 s is beyond 64 bits of the trace's ns" || { echo "FAIL si overflow"; fail=1; }
[ $fail = 0 ] && echo "generated tarmac logs: all checks passed"
exit $fail
