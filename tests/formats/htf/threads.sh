#!/bin/sh
# The HTF reader's merge on a second thread (docs/htf.md, Speed): with
# threads=1 it must give what threads=0 gives -- every event field, each
# warning at the same place among the events, the same end or error.
# Generated traces with what sends records to the line-at-a-time path deep
# in their sections (comment lines, trailing comments, indented and blank
# lines, a record with extra leading zeros, a time that decreases, an
# unknown entity id), CRLF and gzip input, a trace large enough for the
# scan's second half to run on a thread, 1, 2, 5 and 12 cores (the
# tournament of 2, 4, 8 and the heap), and every fixture of ok/ and fail/,
# lenient and strict.
# Usage: threads.sh TEST_READER_THREADS FIXTURE_DIR
set -u
bin=$1 dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# gen CORES RECORDS_PER_CORE ODDITIES(0/1) > file
gen() {
	awk -v cores="$1" -v n="$2" -v odd="$3" 'BEGIN {
	printf "#Format HTF\n#Version 1.0\n#NumberOfCores %d\n#TimeScale ns\n", cores
	printf "#TimestampLength 4\n#EntityLength 2\n#EventLength 1\n\n"
	printf "#TypeTable\n#-00 Task\n#-02 Runnable\n#-05 Signal\n\n"
	printf "#TaskEventTable\n#-00 activate\n#-01 start\n#-02 preempt\n#-03 resume\n#-04 terminate\n\n"
	printf "#RunnableEventTable\n#-00 start\n#-03 terminate\n\n"
	printf "#SignalEventTable\n#-00 read\n#-01 write\n\n#EntityTable\n"
	for (c = 0; c < cores; c++) {
		printf "#-%04X Task_%d\n", 3 * c, c
		printf "#-%04X Run_%d\n", 3 * c + 1, c
		printf "#-%04X Sig_%d\n", 3 * c + 2, c
	}
	printf "#-%04X Task_shared\n", 3 * cores
	printf "\n#EntityTypeTable\n"
	for (c = 0; c < cores; c++)
		printf "#-%04X 00\n#-%04X 02\n#-%04X 05\n", 3 * c, 3 * c + 1, 3 * c + 2
	printf "#-%04X 00\n", 3 * cores
	printf "\n#TraceData\n"
	srand(7)
	for (c = 0; c < cores; c++) {
		printf "#-%02X\n", c
		t = c
		for (i = 0; i < n; i++) {
			# T activate, T start, R start, S write, R terminate,
			# T preempt, T resume, T terminate
			k = i % 8
			ent = k == 2 || k == 4 ? 3 * c + 1 : k == 3 ? 3 * c + 2 : 3 * c
			ev = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? 0 : k == 3 ? 1 : k == 4 ? 3 : k == 5 ? 2 : k == 6 ? 3 : 4
			if (i % 1000 == 999) { ent = 3 * cores; ev = 0 }
			t += 1 + int(rand() * 7)
			line = sprintf("%08X%04X%02X", t, ent, ev)
			if (odd && c == cores - 1 && i == int(n / 2))
				line = sprintf("%08X%04X%02X", t - 100, ent, ev)
			if (odd && i % 997 == 5)
				line = line " // see #" i
			if (odd && i % 1499 == 7)
				line = "  " line
			if (odd && i % 4001 == 3000)
				line = "00" line
			print line
			if (odd && i % 2003 == 11)
				print ""
			if (odd && i % 3001 == 1500)
				print "// a comment line"
		}
	}
}'
}

set --
gen 4 30000 1 > "$tmp/odd4.htf" || fail "generating"
gen 12 6000 1 > "$tmp/odd12.htf"
gen 5 8000 1 > "$tmp/odd5.htf"
gen 2 20000 0 > "$tmp/plain2.htf"
# over 4 MiB: the scan for the sections runs its second half on a thread
gen 4 100000 1 > "$tmp/big4.htf"
awk 'BEGIN { s = 0 } /^#-03$/ { s = 1; k = 0 } s && !/^#/ { k++; if (k == 90000) { $0 = "0001G0000001" "01" } } { print }' \
	"$tmp/big4.htf" > "$tmp/bigbad4.htf"
gen 1 20000 1 > "$tmp/odd1.htf"
sed 's/$/\r/' "$tmp/odd4.htf" > "$tmp/crlf4.htf"
gzip -c "$tmp/odd12.htf" > "$tmp/odd12.htf.gz"
# an unknown entity id deep in the third section
awk 'BEGIN { s = 0 } /^#-02$/ { s = 1; k = 0 } s && !/^#/ { k++; if (k == 17000) { $0 = "000FFFFF7FFF00" } } { print }' \
	"$tmp/odd4.htf" > "$tmp/bad4.htf"
# a bad digit deep in the 11th section of 12
awk 'BEGIN { s = 0 } /^#-0A$/ { s = 1; k = 0 } s && !/^#/ { k++; if (k == 5000) { $0 = "0001G0000001" "01" } } { print }' \
	"$tmp/odd12.htf" > "$tmp/bad12.htf"
gen_files="$tmp/big4.htf $tmp/bigbad4.htf $tmp/odd4.htf $tmp/odd12.htf $tmp/odd5.htf $tmp/plain2.htf $tmp/odd1.htf $tmp/crlf4.htf $tmp/odd12.htf.gz $tmp/bad4.htf $tmp/bad12.htf"

"$bin" --from htf $gen_files > "$tmp/out" || { cat "$tmp/out"; fail "generated traces, lenient"; }
cat "$tmp/out"
grep -q "odd4.htf: 120000 events, 3 warnings" "$tmp/out" || fail "odd4: 120000 events and 3 warnings expected"
grep -q "/bad4.htf: .*is not in the #EntityTable" "$tmp/out" || fail "bad4: the unknown entity error expected"
grep -q "bigbad4.htf: .*'G' in a record" "$tmp/out" || fail "bigbad4: the bad digit error expected"
"$bin" --from htf --strict $gen_files > "$tmp/out" || { cat "$tmp/out"; fail "generated traces, strict"; }
"$bin" --from htf "$dir"/ok/*.htf "$dir"/fail/*.htf > "$tmp/out" || { cat "$tmp/out"; fail "fixtures, lenient"; }
"$bin" --from htf --strict "$dir"/ok/*.htf "$dir"/fail/*.htf > "$tmp/out" || { cat "$tmp/out"; fail "fixtures, strict"; }
echo "ok: generated traces and fixtures read alike with and without the merge's thread"
