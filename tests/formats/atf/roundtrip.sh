#!/bin/sh
# ATF conversions (issue 3): ATF -> BTF -> ATF and ATF -> HTF -> ATF on the
# spec's examples and the fixtures, BTF -> ATF -> BTF and BTF -> ATF -> HTF
# -> ATF on generated multi-core traces (--strict: lossless), cores kept
# when a task's first event comes from a stimulus, well-formed
# XML (xmllint), the one warning that counts what ATF cannot hold, --strict
# refusing it, no output file on failure, ATF from a pipe and from gzip.
# Usage: roundtrip.sh TRACEKIT TESTDIR
set -u
cli=$1 dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
have_xmllint=0
command -v xmllint > /dev/null 2>&1 && have_xmllint=1
wellformed() { [ $have_xmllint = 0 ] || xmllint --noout "$1" || fail "xmllint: $1"; }

for in in "$dir"/ok/*.atf; do
	b=$(basename "$in" .atf)
	"$cli" cat -q "$in" > "$tmp/a" || fail "cat $b"
	"$cli" convert -q "$in" "$tmp/$b.atf" || fail "atf->atf $b"
	wellformed "$tmp/$b.atf"
	"$cli" convert -q --option as-read=1 "$in" "$tmp/$b.btf" || fail "atf->btf $b"
	"$cli" convert -q "$tmp/$b.btf" "$tmp/$b.2.atf" || fail "btf->atf $b"
	wellformed "$tmp/$b.2.atf"
	"$cli" cat -q "$tmp/$b.2.atf" > "$tmp/b" || fail "re-read $b"
	# (ok/NAME.rt.out: what the ATF writer drops from a lenient input)
	[ -f "$dir/ok/$b.rt.out" ] && cp "$dir/ok/$b.rt.out" "$tmp/a"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "ATF->BTF->ATF differs on $b"; }
done
# the spec's examples without user events go through HTF too
for b in spec_example1 spec_example6; do
	"$cli" cat -q "$dir/ok/$b.atf" > "$tmp/a"
	"$cli" convert -q "$dir/ok/$b.atf" "$tmp/$b.htf" || fail "atf->htf $b"
	"$cli" convert -q "$tmp/$b.htf" "$tmp/$b.3.atf" || fail "htf->atf $b"
	"$cli" cat -q "$tmp/$b.3.atf" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "ATF->HTF->ATF differs on $b"; }
done
# a strict input gives a strict, byte-stable output
"$cli" convert --strict "$dir/ok/multicore_decimals_strict.atf" "$tmp/m1.atf" || fail "strict atf->atf"
"$cli" convert --strict "$tmp/m1.atf" "$tmp/m2.atf" || fail "strict atf->atf again"
cmp -s "$tmp/m1.atf" "$tmp/m2.atf" || fail "ATF->ATF->ATF not byte-identical"
grep -q '<Cookie Vendor="Rapita"' "$tmp/m1.atf" || fail "cookie lost"
grep -q 'TimeRangeComment From="1"' "$tmp/m1.atf" || fail "TraceInformation lost"
grep -q 'Time="12345678901.5"' "$tmp/m1.atf" || fail "decimal time not kept"

# each TraceData of an ATF input is given back as it was, where times do
# not decrease at the join too (and within one, kept; an empty one kept),
# with its attributes; written on one line as well
cat > "$tmp/td.atf" <<'A'
<?xml version="1.0" encoding="utf-8"?>
<CommonFormat Version="1.0">
  <SystemConfiguration Name="td">
    <Resource ID="0" Scheduler="x">
      <SystemElement Name="TaskA" ID="10" Type="task" />
    </Resource>
    <EventIDMappings>
      <EventIDMapping EventID="1" EventType="activation-OS" />
      <EventIDMapping EventID="2" EventType="start" />
      <EventIDMapping EventID="3" EventType="terminate" />
    </EventIDMappings>
    <TimeBase Unit="ns"><Value Numerator="1" Denominator="1" /></TimeBase>
  </SystemConfiguration>
  <TraceData Start="0" Stop="40">
    <Comment>first</Comment>
    <TraceEntry Time="10" EventID="1" ReferenceID="10" />
    <TraceEntry Time="20" EventID="2" ReferenceID="10" />
    <TraceEntry Time="30" EventID="3" ReferenceID="10" />
  </TraceData>
  <TraceData Start="30" Stop="90">
    <Comment>second</Comment>
    <TraceEntry Time="30" EventID="1" ReferenceID="10" />
    <TraceEntry Time="60" EventID="2" ReferenceID="10" />
    <TraceEntry Time="50" EventID="3" ReferenceID="10" />
  </TraceData>
  <TraceData Start="95" Stop="99">
    <Comment>empty</Comment>
  </TraceData>
  <TraceData Start="100">
    <TraceEntry Time="100" EventID="1" ReferenceID="10" />
  </TraceData>
</CommonFormat>
A
tr -d '\n' < "$tmp/td.atf" | sed 's/?>/?>\n/' > "$tmp/td1.atf"
for f in td td1; do
	"$cli" convert -q "$tmp/$f.atf" "$tmp/$f.o.atf" || fail "atf->atf $f"
	wellformed "$tmp/$f.o.atf"
	[ "$(grep -c '<TraceData ' "$tmp/$f.o.atf" | tr -d ' ')" = 4 ] || { cat "$tmp/$f.o.atf"; fail "TraceData of $f not kept"; }
	for k in 1 2 3 4; do
		"$cli" cat -q --trace $k "$tmp/$f.atf" > "$tmp/a" || fail "cat --trace $k $f"
		"$cli" cat -q --trace $k "$tmp/$f.o.atf" > "$tmp/b" || fail "cat --trace $k $f.o"
		cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "TraceData $k of $f differs"; }
	done
	grep -q '<TraceData Start="30" Stop="90">' "$tmp/$f.o.atf" || fail "Start/Stop of $f lost"
	grep -q '<Comment>empty</Comment>' "$tmp/$f.o.atf" || fail "empty TraceData of $f lost"
	"$cli" convert -q "$tmp/$f.o.atf" "$tmp/$f.o2.atf" || fail "atf->atf->atf $f"
	cmp -s "$tmp/$f.o.atf" "$tmp/$f.o2.atf" || fail "ATF->ATF->ATF not byte-identical ($f)"
done
cmp -s "$tmp/td.o.atf" "$tmp/td1.o.atf" || { diff "$tmp/td.o.atf" "$tmp/td1.o.atf"; fail "one-line ATF written otherwise"; }

# BTF -> ATF -> BTF on generated multi-core traces (the types ATF holds)
for spec in "2 40 1" "4 200 2" "8 30 3"; do
	# shellcheck disable=SC2086
	sh "$dir/../htf/gen_multicore.sh" $spec > "$tmp/full.btf"
	"$cli" cat -q --type T --type I --type R --type IB "$tmp/full.btf" > "$tmp/g.btf"
	"$cli" convert --strict "$tmp/g.btf" "$tmp/g.atf" 2> "$tmp/err" || { cat "$tmp/err"; fail "btf->atf --strict ($spec)"; }
	[ -s "$tmp/err" ] && { cat "$tmp/err"; fail "warnings on a lossless conversion ($spec)"; }
	wellformed "$tmp/g.atf"
	"$cli" convert --strict "$tmp/g.atf" "$tmp/g2.btf" || fail "atf->btf ($spec)"
	"$cli" cat --no-header "$tmp/g.btf" > "$tmp/a"
	"$cli" cat --no-header "$tmp/g2.btf" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "BTF->ATF->BTF differs ($spec)"; }
	"$cli" convert --strict "$tmp/g.atf" "$tmp/g.htf" || fail "atf->htf ($spec)"
	"$cli" convert --strict "$tmp/g.htf" "$tmp/g3.atf" || fail "htf->atf ($spec)"
	"$cli" cat --no-header "$tmp/g3.atf" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "ATF->HTF->ATF differs ($spec)"; }
	n=$(echo "$spec" | cut -d' ' -f1)
	r=$(grep -c '<Resource ' "$tmp/g.atf" | tr -d ' ')
	[ "$r" = "$n" ] || fail "$r Resources for $n cores"
done

# a task's Resource is the core it runs on, even when its first event is
# an activation from a stimulus (no core): two cores, their load kept
cat > "$tmp/st.btf" <<'B'
#version 2.3.0
#timescale ns
0,Stimulus_A,0,T,Task_A,0,activate
100,Core_1,0,T,Task_A,0,start
1000,Stimulus_B,0,T,Task_B,0,activate
1100,Core_2,0,T,Task_B,0,start
11100,Core_1,0,T,Task_A,0,terminate
21100,Core_2,0,T,Task_B,0,terminate
B
"$cli" convert -q "$tmp/st.btf" "$tmp/st.atf" || fail "stimulus btf->atf"
[ "$(grep -c '<Resource ' "$tmp/st.atf" | tr -d ' ')" = 2 ] || { cat "$tmp/st.atf"; fail "Resources of a stimulus-activated trace"; }
"$cli" load "$tmp/st.btf" > "$tmp/a" && "$cli" load "$tmp/st.atf" > "$tmp/b" || fail "load"
cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b"; fail "load differs after btf->atf"; }
"$cli" check -q "$tmp/st.atf" > /dev/null || fail "violations after btf->atf"

# what ATF cannot hold: one warning with the counts; --strict refuses
sh "$dir/../htf/gen_multicore.sh" 2 10 1 > "$tmp/l.btf"
printf '5,Core_1,0,T,Task_1_0,0,start,a note\n' >> "$tmp/l.btf"
"$cli" convert "$tmp/l.btf" "$tmp/l.atf" 2> "$tmp/err" || fail "lossy convert"
grep -c 'ATF cannot hold everything' "$tmp/err" | grep -q '^1$' || { cat "$tmp/err"; fail "expected one loss warning"; }
grep -q 'events of entity types without an ATF SystemElement type dropped' "$tmp/err" || { cat "$tmp/err"; fail "warning text"; }
grep -q '1 note dropped' "$tmp/err" || { cat "$tmp/err"; fail "note count"; }
wellformed "$tmp/l.atf"
"$cli" convert --strict "$tmp/l.btf" "$tmp/s.atf" 2> "$tmp/err"
[ $? -eq 2 ] || fail "--strict did not refuse"
[ -e "$tmp/s.atf" ] && fail "--strict left an output file"
grep -q 'ATF cannot hold' "$tmp/err" || fail "strict message"
# a name XML cannot hold is an error, and no file is left
printf '#version 2.2.1\n#timescale ns\n0,Core_0,0,T,bad\001name,0,start\n' > "$tmp/x.btf"
"$cli" convert -q "$tmp/x.btf" "$tmp/x.atf" 2> /dev/null
[ $? -eq 2 ] && [ ! -e "$tmp/x.atf" ] || fail "control character accepted"
# and its message quotes the name without the control bytes (an escape
# sequence would reach the terminal)
printf '#version 2.2.1\n#timescale ns\n0,Core_0,0,T,bad\033]0;x\007\033[31mname,0,start\n' > "$tmp/x.btf"
"$cli" convert -q "$tmp/x.btf" "$tmp/x.atf" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/x.atf" ] || fail "escape sequence accepted"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "is not text that XML can hold" "$tmp/err" || fail "message for an escape sequence: $(cat -v "$tmp/err")"
[ "$(tr -d '\001-\010\013-\037\177' < "$tmp/err" | wc -c)" -eq "$(wc -c < "$tmp/err")" ] ||
	fail "control bytes in the message: $(cat -v "$tmp/err")"
# so is a name that holds U+FFFF (UTF-8, but no XML character)
printf '#version 2.2.1\n#timescale ns\n0,Core_0,0,T,bad\357\277\277,0,start\n' > "$tmp/x.btf"
"$cli" convert -q "$tmp/x.btf" "$tmp/x.atf" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/x.atf" ] || fail "name with U+FFFF accepted"
grep -q "is not text that XML can hold" "$tmp/err" || fail "message for U+FFFF"
# a name that is not UTF-8 follows the rule of every writer: its bad
# bytes as U+FFFD with a warning; --strict refuses it, leaving no file
for bad in 'bad\303' 'bad\355\240\200'; do
	printf "#version 2.2.1\n#timescale ns\n0,Core_0,0,T,$bad,0,start\n" > "$tmp/x.btf"
	"$cli" convert "$tmp/x.btf" "$tmp/x.atf" 2> "$tmp/err" || fail "name $bad refused"
	grep -q "strings are not UTF-8: their bad bytes are written as U+FFFD" "$tmp/err" || fail "warning for $bad"
	xmllint --noout "$tmp/x.atf" 2> /dev/null || { command -v xmllint > /dev/null && fail "$bad: not XML"; }
	rm -f "$tmp/x.atf"
	"$cli" convert --strict "$tmp/x.btf" "$tmp/x.atf" 2> "$tmp/err"
	[ $? -eq 2 ] && [ ! -e "$tmp/x.atf" ] || fail "name $bad accepted by --strict"
	grep -q "is not UTF-8" "$tmp/err" || fail "strict message for $bad"
done

# a task that activates itself: ATF reading gives the activation its
# core, so the writer counts the change (it predicted the source as the
# events came, before the task's start placed it on Core_0) and --strict
# refuses it
printf '#version 2.3.0\n#timescale ns\n0,T1,0,T,T1,0,activate\n10,Core_0,0,T,T1,0,start\n30,Core_0,0,T,T1,0,terminate\n' > "$tmp/self.btf"
"$cli" convert "$tmp/self.btf" "$tmp/self.atf" 2> "$tmp/err" || fail "self convert"
grep -q "1 event whose source or instances ATF reading synthesises differently (first 'activate' of T)" "$tmp/err" || { cat "$tmp/err"; fail "self warning"; }
"$cli" convert --strict "$tmp/self.btf" "$tmp/selfs.atf" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/selfs.atf" ] || fail "--strict kept a changed source"
# (found at close: the error names the event's line all the same)
grep -q "self.btf:3: error: .*(event 'activate' of type T); .* (writing $tmp/selfs.atf)\$" "$tmp/err" || { cat "$tmp/err"; fail "self error"; }

# from a pipe and from gzip
"$cli" cat -q - < "$dir/ok/spec_example6.atf" | cmp -s - "$dir/ok/spec_example6.out" || fail "stdin"
gzip -c "$dir/ok/multicore_decimals_strict.atf" > "$tmp/m.atf.gz"
"$cli" cat -q --strict "$tmp/m.atf.gz" | cmp -s - "$dir/ok/multicore_decimals_strict.out" || fail "gzip"
echo "ok: atf round trips"
