#!/bin/sh
# HTF <-> BTF conversions (issue 3): exact round trips on the spec's examples
# and on generated multi-core traces, the one warning that counts what HTF
# cannot hold, --strict refusing it, width errors, and HTF from a pipe and
# from gzip (decoded to a temporary file for the k-way merge).
# Usage: roundtrip.sh TRACEKIT TESTDIR
set -u
cli=$1 dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# HTF -> BTF -> HTF on every ok/ file: the same events and times
for in in "$dir"/ok/*.htf; do
	b=$(basename "$in" .htf)
	"$cli" cat -q "$in" > "$tmp/a" || fail "cat $b"
	"$cli" convert -q --option as-read=1 "$in" "$tmp/$b.btf" || fail "htf->btf $b"
	"$cli" convert -q "$tmp/$b.btf" "$tmp/$b.htf" || fail "btf->htf $b"
	"$cli" cat -q "$tmp/$b.htf" > "$tmp/b" || fail "re-read $b"
	# (ok/NAME.rt.out: what the HTF writer changes in a dialect input)
	[ -f "$dir/ok/$b.rt.out" ] && cp "$dir/ok/$b.rt.out" "$tmp/a"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "HTF->BTF->HTF differs on $b"; }
done

# BTF -> HTF -> BTF on generated multi-core traces: lossless, so --strict
for spec in "2 40 1" "4 200 2" "8 30 3"; do
	# shellcheck disable=SC2086
	sh "$dir/gen_multicore.sh" $spec > "$tmp/g.btf"
	"$cli" convert --strict "$tmp/g.btf" "$tmp/g.htf" 2> "$tmp/err" || { cat "$tmp/err"; fail "btf->htf --strict ($spec)"; }
	[ -s "$tmp/err" ] && { cat "$tmp/err"; fail "warnings on a lossless conversion ($spec)"; }
	"$cli" convert --strict "$tmp/g.htf" "$tmp/g2.btf" || fail "htf->btf ($spec)"
	"$cli" cat --no-header "$tmp/g.btf" > "$tmp/a"
	"$cli" cat --no-header "$tmp/g2.btf" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "BTF->HTF->BTF differs ($spec)"; }
	# and the HTF written again from the BTF is the same file
	"$cli" convert --strict "$tmp/g2.btf" "$tmp/g2.htf" || fail "btf->htf again"
	cmp -s "$tmp/g.htf" "$tmp/g2.htf" || fail "HTF->BTF->HTF not byte-identical ($spec)"
	cores=$(grep -c '^#-' "$tmp/g.htf" | tr -d ' ')
	n=$(echo "$spec" | cut -d' ' -f1)
	# type table rows are "#-0X": count only the core sections after #Tracedata
	sections=$(sed -n '/^#[Tt]race[Dd]ata/,$p' "$tmp/g.htf" | grep -c '^#-')
	[ "$sections" = "$n" ] || fail "$sections sections for $n cores ($cores rows)"
done

# what HTF cannot hold: one warning with the counts; --strict refuses
printf '#version 2.2.1\n#timescale ns\n0,Stim,0,STI,Stim,0,trigger\n0,Stim,0,T,A,0,activate\n5,Core_0,0,T,A,0,start\n6,A,0,SIG,S,0,read,42\n7,A,0,SIG,S,0,write,43\n9,Core_0,0,T,A,0,terminate\n' > "$tmp/l.btf"
"$cli" convert "$tmp/l.btf" "$tmp/l.htf" 2> "$tmp/err" || fail "lossy convert"
[ "$(wc -l < "$tmp/err" | tr -d ' ')" = 1 ] || { cat "$tmp/err"; fail "expected one warning"; }
grep -q "2 notes dropped (first 'read' of SIG); 1 event of entity types without an HTF table dropped (first 'trigger' of STI); 1 event whose source" "$tmp/err" || { cat "$tmp/err"; fail "warning text"; }
"$cli" convert -q "$tmp/l.btf" "$tmp/q.htf" 2> "$tmp/err" || fail "quiet convert"
[ -s "$tmp/err" ] && fail "-q printed a warning"
"$cli" convert --strict "$tmp/l.btf" "$tmp/s.htf" 2> "$tmp/err"
[ $? -eq 2 ] || fail "--strict did not refuse"
[ -e "$tmp/s.htf" ] && fail "--strict left an output file"
grep -q 'HTF cannot hold' "$tmp/err" || fail "strict message"

# a width forced by --option that the data does not fit is an error
"$cli" convert -q --option timestamp-length=1 "$dir/ok/spec_sec4.htf" "$tmp/w.htf" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/w.htf" ] || fail "timestamp-length=1 accepted"
grep -q 'does not fit TimestampLength 1' "$tmp/err" || { cat "$tmp/err"; fail "width message"; }
"$cli" convert -q --option timestamp-length=8 --option entity-length=4 "$dir/ok/spec_sec4.htf" "$tmp/w.htf" || fail "wider widths"
grep -q '^#EntityLength 4' "$tmp/w.htf" || fail "entity-length option ignored"
"$cli" cat -q "$tmp/w.htf" | cmp -s - "$dir/ok/spec_sec4.out" || fail "wider widths change the events"
"$cli" convert -q --option bogus=1 "$dir/ok/spec_sec4.htf" "$tmp/w2.htf" 2> /dev/null
[ $? -eq 2 ] || fail "unknown option accepted"

# HTF -> HTF keeps the input's widths, entity and type ids: the records
# come back byte for byte (the data of the fixtures written canonically)
for b in spec_sec3 ties widths_1 widths_strict; do
	args=$(cat "$dir/ok/$b.args" 2>/dev/null)
	# shellcheck disable=SC2086
	"$cli" convert -q $args "$dir/ok/$b.htf" "$tmp/rt.htf" || fail "htf->htf $b"
	sed -n '/^#[Tt]race[Dd]ata/,$p' "$dir/ok/$b.htf" | tail -n +2 | sed 's| *//.*||' > "$tmp/a"
	sed -n '/^#[Tt]race[Dd]ata/,$p' "$tmp/rt.htf" | tail -n +2 > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head; fail "HTF->HTF records differ on $b"; }
done
# sparse ids, a type table in another order, widths wider than needed
printf '#Format HTF\n#Version 1.0\n#NumberOfCores 1\n#TimeScale ns\n#TimestampLength 8\n#EntityLength 2\n#EventLength 2\n\n#TypeTable\n#-07 ISR\n#-03 Task\n\n#TaskEventTable\n#-01 start\n#-04 terminate\n\n#ISREventTable\n#-00 start\n#-03 terminate\n\n#EntityTable\n#-0010 TaskA\n#-0200 IsrB\n\n#EntityTypeTable\n#-0010 03\n#-0200 07\n\n#TraceData\n#-00\n000000000000000500100001\n000000000000000702000000\n000000000000000902000003\n000000000000000C00100004\n' > "$tmp/ids.htf"
"$cli" convert --strict "$tmp/ids.htf" "$tmp/ids2.htf" || fail "htf->htf ids"
for l in '#TimestampLength 8' '#EntityLength 2' '#EventLength 2' '#-0010 TaskA' '#-0200 IsrB' '#-0010 03' '#-0200 07' '#-07 ISR' '#-03 Task' '000000000000000702000000' '000000000000000C00100004'; do
	grep -qx -- "$l" "$tmp/ids2.htf" || { cat "$tmp/ids2.htf"; fail "HTF->HTF lost '$l'"; }
done
# (the keyword line apart: the writer spells it #Tracedata, as APP4MC reads it)
sed -n '/^#[Tt]race[Dd]ata/,$p' "$tmp/ids2.htf" | tail -n +2 > "$tmp/b"
sed -n '/^#[Tt]race[Dd]ata/,$p' "$tmp/ids.htf" | tail -n +2 | cmp -s - "$tmp/b" || fail "HTF->HTF records differ on sparse ids"
grep -q '^#EntityTable\.' "$tmp/ids2.htf" && fail "id header entries leaked into the output"
# an explicit --option still wins
"$cli" convert -q --option entity-length=4 --option timestamp-length=4 "$tmp/ids.htf" "$tmp/ids3.htf" || fail "htf->htf with options"
grep -qx '#EntityLength 4' "$tmp/ids3.htf" && grep -qx '#-00000200 IsrB' "$tmp/ids3.htf" &&
	grep -qx '00000007000002000000' "$tmp/ids3.htf" || { cat "$tmp/ids3.htf"; fail "--option did not win over the input's widths"; }
# from BTF the ids are assigned in order of appearance
"$cli" convert -q "$tmp/ids.htf" "$tmp/ids.btf" && "$cli" convert -q "$tmp/ids.btf" "$tmp/ids4.htf" || fail "htf->btf->htf ids"
grep -qx '#-00 TaskA' "$tmp/ids4.htf" && grep -qx '#EntityLength 1' "$tmp/ids4.htf" || { cat "$tmp/ids4.htf"; fail "ids from BTF"; }

# CR-only line ends: read in strict mode too, with the one warning, whose
# summary does not say "lenient mode"
tr '\n' '\r' < "$dir/ok/multicore_strict.htf" > "$tmp/cr.htf"
"$cli" info --strict "$tmp/cr.htf" 2> "$tmp/err" > /dev/null || { cat "$tmp/err"; fail "strict CR-only"; }
[ "$(tail -n 1 "$tmp/err")" = "tracekit: 1 warning in all (the first of each kind shown)" ] || { cat "$tmp/err"; fail "strict summary"; }

# from a pipe and from gzip: the k-way merge runs over a temporary copy
"$cli" cat -q - < "$dir/ok/spec_appendix.htf" | cmp -s - "$dir/ok/spec_appendix.out" || fail "stdin"
gzip -c "$dir/ok/multicore_strict.htf" > "$tmp/m.htf.gz"
"$cli" cat -q --strict "$tmp/m.htf.gz" | cmp -s - "$dir/ok/multicore_strict.out" || fail "gzip"
echo "ok: htf round trips"
