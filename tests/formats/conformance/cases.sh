#!/bin/sh
# The cases of issue 25, each asserted on the output itself: what the
# writer writes instead, the warning that names it, and --strict refusing
# (exit 2, no file).  The matrix (matrix.py) checks every input; this checks
# that the known departures are gone for the right reason.
set -u
cli=$1 corpus=$2 formats=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# convert IN OUT: lenient, stderr in $tmp/err; then --strict must refuse
# with a message containing $3 (when given), and leave no file
conv() {
	"$cli" convert "$1" "$tmp/$2" 2> "$tmp/err" || { cat "$tmp/err"; bad "convert $1 $2"; }
	"$cli" info --strict "$tmp/$2" > /dev/null 2> "$tmp/ierr" || { cat "$tmp/ierr"; bad "info --strict $2"; }
}
refused() {
	"$cli" convert -q --strict "$1" "$tmp/s.$2" 2> "$tmp/serr"
	rc=$?
	[ $rc -eq 2 ] && [ ! -e "$tmp/s.$2" ] || bad "convert --strict $1 to $2: exit $rc (expected 2, no file)"
	grep -q "$3" "$tmp/serr" || { cat "$tmp/serr"; bad "strict message for $1 to $2 lacks '$3'"; }
}

# ATF -> BTF: a user event is a stimulus trigger named by its note
conv "$formats/atf/ok/spec_example2.atf" a.btf
grep -q '^1000,User_2,0,STI,User_2,0,trigger,SYNC$' "$tmp/a.btf" || bad "ATF user event not written as STI trigger"
grep -q ',user,' "$tmp/a.btf" && bad "entity type user written to BTF"

# BTF -> BTF: the Trace Compass trace's two header blocks merged into one
tc=$corpus/btf/tracecompass_20140219-123819.btf
conv "$tc" tc.btf
[ "$(grep -c '^#version' "$tmp/tc.btf")" = 1 ] || bad "more than one #version"
[ "$(head -1 "$tmp/tc.btf")" = "#version 2.2.0" ] || bad "#version is not the first line"
grep -q '^#inputFile ' "$tmp/tc.btf" || bad "the second block's new entry #inputFile lost"
grep -q "2 header entries of a second header block dropped (first '#version 2.1.0')" "$tmp/err" || { cat "$tmp/err"; bad "header warning"; }
refused "$tc" btf "a second #version"   # the strict reader refuses it first

# S.Ha.R.K. -> BTF: events BTF does not define (timer_post on EVENT) dropped, named
sh=$corpus/shark/shark-demo-trace.bin
conv "$sh" sh.btf
grep -q 'timer_post' "$tmp/sh.btf" && bad "timer_post written to BTF"
grep -q "events BTF does not define for their type dropped (first 'timer_post' of EVENT)" "$tmp/err" || { cat "$tmp/err"; bad "timer_post warning"; }
# a strict-valid input whose events BTF does not define: the writer refuses
refused "$formats/atf/ok/multicore_decimals_strict.atf" btf "BTF cannot hold events that BTF does not define for their entity type (event 'activation-failed' of type T"

# FreeRTOS -> BTF: set_frequency written as the specification's set_frequence
fr=$corpus/btf/freertos_btf_trace_example_head200.btf
conv "$fr" fr.btf
grep -q ',set_frequence,' "$tmp/fr.btf" || bad "set_frequence missing"
grep -q 'set_frequency' "$tmp/fr.btf" && bad "set_frequency written"
grep -q "fr.btf: warning" "$tmp/err" && bad "a respelling is not a loss"

# ATF -> ATF: every ReferenceID in the UserTable of its EventID
conv "$formats/atf/ok/spec_example2.atf" a.atf
grep -q '<Info ReferenceID="3">ref3</Info>' "$tmp/a.atf" || bad "Info of ReferenceID 3 missing"
"$cli" cat -q "$formats/atf/ok/spec_example2.atf" > "$tmp/c1"
"$cli" cat -q "$tmp/a.atf" > "$tmp/c2"
diff "$tmp/c1" "$tmp/c2" > /dev/null || bad "ATF -> ATF changed the events"

# ATF -> HTF: a core section's times do not decrease
conv "$formats/atf/ok/spec_example4.atf" e4.htf
grep -q "7 decreasing times in a section raised to the section's previous time" "$tmp/err" || { cat "$tmp/err"; bad "HTF time warning"; }

# tracekit cat prints what was read (dialects too); as-read=1 is that writer
"$cli" cat -q "$formats/btf/ok/dialects.btf" | grep -q ',ISR,Isr_1,0,start$' || bad "cat respelled ISR"
"$cli" convert -q --option as-read=2 "$fr" "$tmp/x.btf" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/x.btf" ] && grep -q "unknown BTF writer option" "$tmp/err" || bad "as-read=2 accepted"

[ $fail -eq 0 ] && echo "ok: issue 25 cases"
exit $fail
