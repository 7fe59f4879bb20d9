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
	"$cli" convert -q "$in" "$tmp/$b.btf" || fail "htf->btf $b"
	"$cli" convert -q "$tmp/$b.btf" "$tmp/$b.htf" || fail "btf->htf $b"
	"$cli" cat -q "$tmp/$b.htf" > "$tmp/b" || fail "re-read $b"
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
	# type table rows are "#-0X": count only the core sections after #TraceData
	sections=$(sed -n '/^#TraceData/,$p' "$tmp/g.htf" | grep -c '^#-')
	[ "$sections" = "$n" ] || fail "$sections sections for $n cores ($cores rows)"
done

# what HTF cannot hold: one warning with the counts; --strict refuses
printf '#version 2.2.1\n#timescale ns\n0,Stim,0,STI,Stim,0,trigger\n0,Stim,0,T,A,0,activate\n5,Core_0,0,T,A,0,start\n6,A,0,SIG,S,0,read,42\n7,A,0,SIG,S,0,write,43\n9,Core_0,0,T,A,0,terminate\n' > "$tmp/l.btf"
"$cli" convert "$tmp/l.btf" "$tmp/l.htf" 2> "$tmp/err" || fail "lossy convert"
[ "$(wc -l < "$tmp/err" | tr -d ' ')" = 1 ] || { cat "$tmp/err"; fail "expected one warning"; }
grep -q '2 notes dropped; 1 events of entity types without an HTF table dropped; 1 events whose source' "$tmp/err" || { cat "$tmp/err"; fail "warning text"; }
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

# from a pipe and from gzip: the k-way merge runs over a temporary copy
"$cli" cat -q - < "$dir/ok/spec_appendix.htf" | cmp -s - "$dir/ok/spec_appendix.out" || fail "stdin"
gzip -c "$dir/ok/multicore_strict.htf" > "$tmp/m.htf.gz"
"$cli" cat -q --strict "$tmp/m.htf.gz" | cmp -s - "$dir/ok/multicore_strict.out" || fail "gzip"
echo "ok: htf round trips"
