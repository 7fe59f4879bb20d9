#!/bin/sh
# diff.all: tracekit diff on pairs of traces made from examples/demo.btf
# (its runnables left out) that differ in one known task only: NEW's
# Task_Sensor instance 1 terminates 8 us later (RT 36 -> 44 us, CET, GET).
# Only Task_Sensor's rows are listed, worst first, with NEW's max instance
# and time; the threshold, --metric, --all, csv, json, a pair of different
# formats that hold the same trace, entities in one trace only, exit codes.
set -u
cli=$1 root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
cd "$tmp" || exit 1
grep -v ',R,' "$root/examples/demo.btf" > base.btf
sed 's/^2036000,Core_2,0,T,Task_Sensor,1,terminate/2044000,Core_2,0,T,Task_Sensor,1,terminate/' \
	base.btf > new.btf
cmp -s base.btf new.btf && no "the pair does not differ"

"$cli" diff base.btf new.btf > out.txt
[ $? = 1 ] || no "a worsened task: exit status not 1"
cat > want.txt <<'END'
base: base.btf
new:  new.btf
threshold: 0 %; times in ns; 3 rows worsened
worse     Task_Sensor T CET: count 2 -> 2, min 29900 -> 29900 (+0, +0 %), avg 32900 -> 36900 (+4000, +12.16 %), max 35900 -> 43900 (+8000, +22.28 %) ns; new max: instance 1 at 2044000 ns
worse     Task_Sensor T GET: count 2 -> 2, min 35900 -> 36500 (+600, +1.67 %), avg 36200 -> 40200 (+4000, +11.05 %), max 36500 -> 43900 (+7400, +20.27 %) ns; new max: instance 1 at 2044000 ns
worse     Task_Sensor T RT: count 2 -> 2, min 36000 -> 38000 (+2000, +5.56 %), avg 37000 -> 41000 (+4000, +10.81 %), max 38000 -> 44000 (+6000, +15.79 %) ns; new max: instance 1 at 2044000 ns
END
cmp -s want.txt out.txt || { no "text output differs:"; diff want.txt out.txt; }

# the threshold: RT's max grew 15.79 %, GET's 20.27 %, CET's 22.28 %
"$cli" diff base.btf new.btf --threshold 20.5 > out.txt
[ $? = 1 ] || no "--threshold 20.5: exit status not 1"
[ "$(grep -c '^worse' out.txt)" = 1 ] && grep -q '^worse     Task_Sensor T CET' out.txt ||
	no "--threshold 20.5 does not list CET alone"
"$cli" diff base.btf new.btf --threshold 23 > out.txt
[ $? = 0 ] || no "--threshold 23: exit status not 0"
grep -q '^(no change beyond the threshold)$' out.txt || no "--threshold 23 lists a row"

# --metric, --all
"$cli" diff base.btf new.btf --metric RT --format csv > out.csv
[ $? = 1 ] || no "--metric RT: exit status not 1"
[ "$(wc -l < out.csv)" = 2 ] && grep -q '^Task_Sensor,T,RT,worse,ns,2,2,36000,38000,+2000,+5.56,37000,41000,+4000,+10.81,38000,44000,+6000,+15.79,1,2044000$' out.csv ||
	{ no "--metric RT --format csv:"; cat out.csv; }
"$cli" diff base.btf new.btf --metric PER --all --format csv > out.csv
[ $? = 0 ] || no "--metric PER: exit status not 0"
[ "$(cut -d, -f1,4 out.csv | tail -n +2 | sort | tr '\n' ' ')" = "Task_Control,same Task_Sensor,same " ] ||
	{ no "--all --metric PER:"; cat out.csv; }
"$cli" diff base.btf new.btf --metric XYZ 2>/dev/null
[ $? = 2 ] || no "an unknown --metric: exit status not 2"
"$cli" diff base.btf new.btf --metric '' > /dev/null 2>&1
[ $? = 2 ] || no "an empty --metric (nothing compared, exit 0 whatever changed): exit status not 2"

# json, with a percentile (read back by python)
"$cli" diff base.btf new.btf --format json --percentiles 50 > out.json
[ $? = 1 ] || no "json: exit status not 1"
python3 - out.json <<'PY' || no "json"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert d["worsened"] == 3, d["worsened"]
assert [r["metric"] for r in rows] == ["CET", "GET", "RT"], rows
rt = rows[2]
assert rt["entity"] == "Task_Sensor" and rt["status"] == "worse"
assert rt["max_base"] == 38000 and rt["max_new"] == 44000 and rt["max_change"] == 6000
assert rt["max_change_pct"] == 15.79 and rt["p50_base"] == 36000 and rt["p50_new"] == 38000
assert rt["max_instance"] == 1 and rt["max_at"] == 2044000
PY

# the same trace in another format: nothing changed
"$cli" convert -q base.btf base.atf || no "convert to ATF"
"$cli" diff -q base.btf base.atf > out.txt
[ $? = 0 ] || no "BTF against its ATF: exit status not 0"
grep -q '^(no change beyond the threshold)$' out.txt || { no "BTF against its ATF:"; cat out.txt; }

# an ISR only in NEW, a task only in BASE: listed; the task that went is a
# worsening (exit 1: a gate passed a run that lost a task), unless
# --allow-missing; an ISR that came is not
{ grep -v 'Task_Logger' base.btf
  printf '%s\n' '2040000,Stim_X,0,I,Isr_X,0,activate' '2040000,Core_1,0,I,Isr_X,0,start' \
	'2040500,Core_1,0,I,Isr_X,0,terminate'; } > other.btf
"$cli" diff base.btf other.btf --metric RT > out.txt
[ $? = 1 ] || no "a task only in BASE: exit status not 1"
grep -q '^only-new  Isr_X I RT$' out.txt || { no "Isr_X not listed as only in NEW"; cat out.txt; }
grep -q '^only-base Task_Logger T RT$' out.txt || { no "Task_Logger not listed as only in BASE"; cat out.txt; }
grep -q '; 1 row of BASE not in NEW (--allow-missing to accept)$' out.txt || { no "the row of BASE not in NEW not counted"; cat out.txt; }
"$cli" diff base.btf other.btf --metric RT --allow-missing > out.txt
[ $? = 0 ] || no "--allow-missing: exit status not 0"
grep -q '^only-base Task_Logger T RT$' out.txt || { no "--allow-missing: Task_Logger not listed"; cat out.txt; }
{ cat base.btf
  printf '%s\n' '2040000,Stim_X,0,I,Isr_X,0,activate' '2040000,Core_1,0,I,Isr_X,0,start' \
	'2040500,Core_1,0,I,Isr_X,0,terminate'; } > more.btf
"$cli" diff base.btf more.btf --metric RT > out.txt
[ $? = 0 ] || no "an ISR only in NEW: exit status not 0"
grep -q '^only-new  Isr_X I RT$' out.txt || { no "more.btf: Isr_X not listed as only in NEW"; cat out.txt; }
# a NEW run cut short, with no instance at all: every row went (it passed)
head -n 2 base.btf > empty.btf
"$cli" diff -q base.btf empty.btf --format json > out.json
[ $? = 1 ] || no "an empty NEW: exit status not 1"
python3 - out.json <<'PY' || no "an empty NEW: the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["worsened"] == 0 and d["base_only"] > 0 and d["missing_allowed"] is False, d
assert d["base_only"] == len(d["rows"]) and all(r["status"] == "base-only" for r in d["rows"]), d
PY
# the CSV and JSON status of a row of one trace (base-only, new-only: the
# text says only-base, only-new) is the one docs/verify.md names
for s in same changed worse base-only new-only; do
	grep -q "\`$s\`" "$root/docs/verify.md" || no "docs/verify.md does not name the CSV and JSON status $s"
done

# chains, as stats --chain makes them, in both
"$cli" diff "$root/tests/cli/stats_chain.btf" "$root/tests/cli/stats_chain.btf" --all \
	--format csv --chain E2E=Sensor,Filtered,Cmd --metric REACTION,AGE,LOST > out.csv
[ $? = 0 ] || no "a chain against itself: exit status not 0"
[ "$(cut -d, -f1-4 out.csv | tail -n +2 | tr '\n' ' ')" = "E2E,CHAIN,REACTION,same E2E,CHAIN,AGE,same E2E,CHAIN,LOST,same " ] ||
	{ no "the chain's rows:"; cat out.csv; }

# a row with a value on one side only (the chain's REACTION and AGE of a
# run where no cause reached Cmd: rows of count 0) is of that side only,
# as a row the other has not, never a change against nothing
grep -v 'Cmd,0,write' "$root/tests/cli/stats_chain.btf" > nocmd.btf
"$cli" diff "$root/tests/cli/stats_chain.btf" nocmd.btf --chain E2E=Sensor,Filtered,Cmd > out.txt
[ $? = 1 ] || no "a chain's values gone in NEW: exit status not 1"
cat > want.txt <<'END'
threshold: 0 %; times in ns; 1 row worsened; 2 rows of BASE not in NEW (--allow-missing to accept)
worse     E2E CHAIN LOST: count 1 -> 4, max 1 -> 4 (+3, +300 %)
only-base E2E CHAIN REACTION
only-base E2E CHAIN AGE
END
tail -n +3 out.txt | cmp -s want.txt - || { no "a chain's values gone in NEW:"; diff want.txt out.txt; }
"$cli" diff nocmd.btf "$root/tests/cli/stats_chain.btf" --chain E2E=Sensor,Filtered,Cmd \
	--format csv > out.csv
[ $? = 0 ] || no "a chain's values only in NEW: exit status not 0"
[ "$(cut -d, -f2-4 out.csv | tail -n +2 | tr '\n' ' ')" = "CHAIN,LOST,changed CHAIN,REACTION,new-only CHAIN,AGE,new-only " ] ||
	{ no "a chain's values only in NEW:"; cat out.csv; }

# the change has the places of stats' values of the metric in the unit:
# times of a trace in ns in us 6 (tk_time_digits), JIT 6; CET's avg grew
# by 1/3 ns, 0.000333 us (not +0 at 3 places), JIT's min by -3/1997
printf '%s\n' '#version 2.3.0' '#timescale ns' '0,S,0,STI,S,0,trigger' \
	'0,S,0,T,A,0,activate' '0,Core_1,0,T,A,0,start' '1000,Core_1,0,T,A,0,terminate' \
	'2000,S,0,T,A,1,activate' '2000,Core_1,0,T,A,1,start' '3000,Core_1,0,T,A,1,terminate' \
	'4000,S,0,T,A,2,activate' '4000,Core_1,0,T,A,2,start' '5000,Core_1,0,T,A,2,terminate' > a3.btf
sed 's/^5000,/5001,/; s/^4000,S,0,T,A,2,activate/3997,S,0,T,A,2,activate/' a3.btf > b3.btf
"$cli" diff a3.btf b3.btf --unit us --metric CET,JIT > out.txt
[ $? = 1 ] || no "places: exit status not 1"
cat > want.txt <<'END'
worse     A T CET: count 3 -> 3, min 1 -> 1 (+0, +0 %), avg 1 -> 1.000333 (+0.000333, +0.03 %), max 1 -> 1.001 (+0.001, +0.1 %) us; new max: instance 2 at 5.001 us
changed   A T JIT: count 2 -> 2, min 0 -> -0.001502 (-0.001502, new), avg 0 -> -0.000751 (-0.000751, new), max 0 -> 0 (+0, +0 %)
END
tail -n +4 out.txt | cmp -s want.txt - || { no "the change's places:"; diff want.txt out.txt; }
"$cli" diff a3.btf b3.btf --unit us --metric CET --format csv > out.csv
grep -q '^A,T,CET,worse,us,3,3,1,1,+0,+0,1,1.000333,+0.000333,+0.03,1,1.001,+0.001,+0.1,2,5.001$' out.csv ||
	{ no "the change's places (csv):"; cat out.csv; }

# the threshold is compared exactly: RT 200 ms -> 210.000001 ms grew by
# 5.0000005 %, beyond 5 % (the change in millionths of a percent was
# truncated to 5.000000: no worsening); 210 ms is 5 % exactly, not beyond
printf '%s\n' '#version 2.3.0' '#timescale ns' '0,S,0,STI,S,0,trigger' '0,S,0,T,A,0,activate' \
	'0,Core_1,0,T,A,0,start' '200000000,Core_1,0,T,A,0,terminate' > t200.btf
sed 's/^200000000,/210000001,/' t200.btf > t210a.btf
sed 's/^200000000,/210000000,/' t200.btf > t210.btf
"$cli" diff t200.btf t210a.btf --threshold 5 --metric RT > out.txt
[ $? = 1 ] || no "a growth of 5.0000005 % with --threshold 5: exit status not 1"
grep -q '^worse     A T RT' out.txt || { no "5.0000005 % is not beyond 5 %:"; cat out.txt; }
"$cli" diff t200.btf t210.btf --threshold 5 --metric RT > out.txt
[ $? = 0 ] || no "a growth of 5 % with --threshold 5: exit status not 0"
# a threshold of any size is a number in the JSON
"$cli" diff t200.btf t210.btf --threshold 1000000000000000000000000000000.5 --format json > out.json
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["threshold_pct"]; assert t == 1000000000000000000000000000000.5, t' out.json ||
	no "a huge --threshold: the JSON's threshold_pct"

# unreadable input
"$cli" diff base.btf no_such.btf 2>/dev/null
[ $? = 2 ] || no "an unreadable NEW: exit status not 2"
[ $fail = 0 ] && echo "ok: diff"
exit $fail
