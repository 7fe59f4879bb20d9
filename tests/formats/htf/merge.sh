#!/bin/sh
# The HTF reader's k-way merge of the core sections (docs/htf.md), on
# generated traces, read from a file, from standard input, gzip-compressed
# and from memory streams (test_stream_source: every field, warning and
# error the same as from the file):
#  - ties: equal times go out in the order of the sections in the file;
#  - many sections (300, the heap; 3, 5, 8 the sorted heads): every record
#    once, the times never decrease, ties by section;
#  - a section whose times decrease: lenient reads it as it is (one
#    warning with the line), strict stops there;
#  - `//` comment records and comment lines, blank and indented lines;
#  - CR-only line ends: the same events as the LF text, one warning more.
# Usage: merge.sh TRACEKIT TEST_STREAM_SOURCE
set -u
cli=$1 streams=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# gen SECTIONS RECORDS_PER_SECTION ODD(0/1) [R] > file: section s has the
# times s % 3 + 3 * i (ties between sections 0, 3, 6, ...), entity s,
# events activate/terminate in turn; ODD adds comments, blank and
# indented lines; R > 0: runs of R records instead (section 0's first R,
# then section 1's, ..., each starting at the time the one before ended)
# and a comment line after every 250 records
gen() {
	awk -v ns="$1" -v n="$2" -v odd="$3" -v R="${4:-0}" 'BEGIN {
	printf "#Format HTF\n#Version 1.0\n#NumberOfCores %d\n#TimeScale ns\n", ns
	printf "#TimestampLength 4\n#EntityLength 2\n#EventLength 1\n\n"
	printf "#TypeTable\n#-00 Task\n\n#TaskEventTable\n#-00 activate\n#-04 terminate\n\n"
	printf "#EntityTable\n"
	for (s = 0; s < ns; s++)
		printf "#-%04X T%d\n", s, s
	printf "\n#EntityTypeTable\n"
	for (s = 0; s < ns; s++)
		printf "#-%04X 00\n", s
	printf "\n#TraceData\n"
	for (s = 0; s < ns; s++) {
		printf "#-%02X\n", s
		for (i = 0; i < n; i++) {
			t = R ? (int(i / R) * ns + s) * (R - 1) + i % R : s % 3 + 3 * i
			line = sprintf("%08X%04X%02X", t, s, i % 2 ? 4 : 0)
			if (odd && i % 7 == 3)
				line = line " // record " i
			if (odd && i % 11 == 5)
				line = "\t " line
			print line
			if (odd && i % 13 == 6)
				print "// a comment line"
			if (odd && i % 17 == 8)
				print ""
			if (R && i % 250 == 249)
				print "// a comment line"
		}
	}
}'
}

# the events of FILE as "time target" lines, and their order checked:
# times never decrease, equal times in section order (target T<s>, s the
# section)
check_order() {
	awk -F, '!/^#/ {
		t = $1 + 0; s = substr($5, 2) + 0
		if (NR > 1 && (t < pt || (t == pt && s < ps))) {
			print "out of order at event " n + 1 ": " $0; bad = 1; exit 1
		}
		pt = t; ps = s; n++
	} END { if (!bad) print n }' "$1"
}

# read FILE from a file, stdin and .gz: the same output and messages
transports() { # transports FILE [--strict]
	f=$1 s=${2:-}
	"$cli" cat -q $s "$f" > "$tmp/file.out" 2> "$tmp/file.err"
	echo $? > "$tmp/file.rc"
	"$cli" cat -q $s --from htf - < "$f" > "$tmp/stdin.out" 2> "$tmp/stdin.err"
	echo $? > "$tmp/stdin.rc"
	gzip -c "$f" > "$tmp/t.htf.gz"
	"$cli" cat -q $s "$tmp/t.htf.gz" > "$tmp/gz.out" 2> "$tmp/gz.err"
	echo $? > "$tmp/gz.rc"
	for k in stdin gz; do
		cmp -s "$tmp/file.out" "$tmp/$k.out" || fail "$f $s: $k output differs"
		cmp -s "$tmp/file.rc" "$tmp/$k.rc" || fail "$f $s: $k exit status differs"
		sed 's/^[^:]*://' "$tmp/file.err" > "$tmp/a"
		sed 's/^[^:]*://' "$tmp/$k.err" > "$tmp/b"
		cmp -s "$tmp/a" "$tmp/b" || fail "$f $s: $k messages differ"
	done
}

# 1. ties: 3 sections, every time in sections 0 and 3 ... equal
gen 6 40 0 > "$tmp/ties.htf"
transports "$tmp/ties.htf"
n=$(check_order "$tmp/file.out") || fail "ties: $n"
[ "$n" = 240 ] || fail "ties: 240 events expected, $n read"
# the first events: times 0 (sections 0, 3), 1 (1, 4), 2 (2, 5)
head -n 9 "$tmp/file.out" | tail -n 6 | cut -d, -f1,5 | tr '\n' ' ' > "$tmp/head"
[ "$(cat "$tmp/head")" = "0,T0 0,T3 1,T1 1,T4 2,T2 2,T5 " ] ||
	fail "ties: first events $(cat "$tmp/head")"

# 2. many sections: 2, 3, 5, 8 (the tournament), 9 and 300 (the heap)
for ns in 2 3 5 8 9 300; do
	gen $ns 50 1 > "$tmp/many$ns.htf"
	transports "$tmp/many$ns.htf"
	n=$(check_order "$tmp/file.out") || fail "$ns sections: $n"
	[ "$n" = $((ns * 50)) ] || fail "$ns sections: $((ns * 50)) events expected, $n read"
done
"$cli" cat "$tmp/many300.htf" 2>&1 > /dev/null | grep -q "many300.htf:[0-9]*:[0-9]*: warning: a comment without a record (skipped)" ||
	fail "many300: the comment line warning expected"
# strict: the first comment line in merge order is section 0's, the first
# in the file
l=$(grep -n '^// a comment line$' "$tmp/many300.htf" | head -n 1 | cut -d: -f1)
"$cli" cat --strict "$tmp/many300.htf" 2>&1 > /dev/null |
	grep -q "many300.htf:$l:1: error: a comment without a record" ||
	fail "many300 strict: the comment line error expected"

# 2b. runs: each section in turn has R = 300 records in a row (more than
# a batch), the next run starting at the time the last one ended (a tie:
# after the last section's run, section 0's first record comes before the
# last section's last one); a comment line every 250 records stops a run
# where the line-at-a-time path reads it
for ns in 2 4 7 8 12; do
	gen $ns 1500 0 300 > "$tmp/runs$ns.htf"
	transports "$tmp/runs$ns.htf"
	n=$(check_order "$tmp/file.out") || fail "runs, $ns sections: $n"
	[ "$n" = $((ns * 1500)) ] || fail "runs, $ns sections: $((ns * 1500)) events expected, $n read"
done

# 3. a section whose times decrease (the 3rd record of section 1 of 3)
gen 3 30 0 | awk '/^#-01$/ { s = 1; k = 0 } s && !/^#/ { k++; if (k == 3) $0 = "00000000000100" } { print }' \
	> "$tmp/decr.htf"
transports "$tmp/decr.htf"
n=$(wc -l < "$tmp/file.out")
[ "$n" = 93 ] || fail "decreasing: 90 events and 3 header lines expected, $n lines"
l=$(grep -n '^00000000000100$' "$tmp/decr.htf" | cut -d: -f1)
"$cli" cat "$tmp/decr.htf" 2>&1 > /dev/null |
	grep -q "decr.htf:$l:1: warning: time decreases in the section of Core_1 (0x0 after 0x4); merged as it is" ||
	fail "decreasing: the warning on line $l expected"
transports "$tmp/decr.htf" --strict
grep -q "decr.htf:$l:1: error: time decreases in the section of Core_1" "$tmp/file.err" ||
	fail "decreasing strict: the error on line $l expected"
[ "$(cat "$tmp/file.rc")" = 2 ] || fail "decreasing strict: exit 2 expected"

# 4. CR-only line ends: the events of the LF text
gen 5 60 1 > "$tmp/lf.htf"
tr '\n' '\r' < "$tmp/lf.htf" > "$tmp/cr.htf"
transports "$tmp/cr.htf"
cp "$tmp/file.out" "$tmp/cr.out"
"$cli" cat -q "$tmp/lf.htf" > "$tmp/lf.out" || fail "lf: exit $?"
cmp -s "$tmp/lf.out" "$tmp/cr.out" || fail "CR-only: not the events of the LF text"
"$cli" cat "$tmp/cr.htf" 2>&1 > /dev/null | grep -q "cr.htf:1: warning: lines end with a CR alone" ||
	fail "CR-only: its warning expected"
# and the same comment-line warning on the same line as the LF text
"$cli" cat "$tmp/lf.htf" 2>&1 > /dev/null | grep 'comment without' | sed 's/^[^:]*://' > "$tmp/a"
"$cli" cat "$tmp/cr.htf" 2>&1 > /dev/null | grep 'comment without' | sed 's/^[^:]*://' > "$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" || fail "CR-only: the comment warning differs"

# 5. memory streams (pieces of every size, gzip, zstd), lenient and strict
"$streams" "$tmp/ties.htf" "$tmp/many3.htf" "$tmp/many9.htf" "$tmp/many300.htf" \
	"$tmp/decr.htf" "$tmp/cr.htf" > "$tmp/streams" 2>&1 ||
	{ cat "$tmp/streams"; fail "memory streams"; }
echo "ok: ties, 2..300 sections, decreasing times, comments and CR-only alike from files, stdin, .gz and memory streams"
