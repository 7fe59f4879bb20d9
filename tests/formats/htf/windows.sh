#!/bin/sh
# The HTF reader's file windows (docs/htf.md, Speed): a plain file is read
# through a 64 KB pread() window per core section, a pipe or gzip input
# through a mapped temporary file.  On a generated trace whose sections are
# several windows long, with a comment line longer than a window, '#'s in
# comments, CRLF, blank and indented lines, both paths must give the same
# events, and errors deep in a section keep their line and column.
# Usage: windows.sh TRACEKIT
set -u
cli=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 3 cores x 30000 records (4+2+1 bytes: 14 digits), ~450 KB per section
awk 'BEGIN {
	printf "#Format HTF\n#Version 1.0\n#NumberOfCores 3\n#TimeScale ns\n"
	printf "#TimestampLength 4\n#EntityLength 2\n#EventLength 1\n\n"
	printf "#TypeTable\n#-00 Task\n#-02 Runnable\n\n"
	printf "#TaskEventTable\n#-00 activate\n#-01 start\n#-04 terminate\n\n"
	printf "#RunnableEventTable\n#-00 start\n#-03 terminate\n\n#EntityTable\n"
	for (c = 0; c < 3; c++) {
		printf "#-%04X Task_%d\n", 2 * c, c
		printf "#-%04X Run_%d\n", 2 * c + 1, c
	}
	printf "\n#EntityTypeTable\n"
	for (c = 0; c < 3; c++)
		printf "#-%04X 00\n#-%04X 02\n", 2 * c, 2 * c + 1
	printf "\n#TraceData\n"
	long = "x"
	while (length(long) < 600000)
		long = long long
	for (c = 0; c < 3; c++) {
		printf "#-%02X\n", c
		t = c
		for (i = 0; i < 30000; i++) {
			# T activate, T start, R start, R terminate, T terminate
			k = i % 5
			ent = k == 2 || k == 3 ? 2 * c + 1 : 2 * c
			ev = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? 0 : k == 3 ? 3 : 4
			t += 3
			line = sprintf("%08X%04X%02X", t, ent, ev)
			if (c == 1 && i == 20000)
				line = line " // " long
			if (i % 997 == 5)
				line = line " // see #" i
			if (i % 1499 == 7)
				line = "  " line
			print line
			if (i % 2003 == 11)
				print ""
		}
	}
}' > "$tmp/t.htf" || fail "generating"

n=$("$cli" info "$tmp/t.htf" | sed -n 's/^events: *//p')
[ "$n" = 90000 ] || fail "file: $n events, 90000 expected"
"$cli" convert -q "$tmp/t.htf" "$tmp/file.btf" || fail "convert from the file"
"$cli" convert -q - "$tmp/pipe.btf" < "$tmp/t.htf" || fail "convert from a pipe"
cmp -s "$tmp/file.btf" "$tmp/pipe.btf" || fail "file and pipe differ"
gzip -c "$tmp/t.htf" > "$tmp/t.htf.gz"
"$cli" convert -q "$tmp/t.htf.gz" "$tmp/gz.btf" || fail "convert from gzip"
cmp -s "$tmp/file.btf" "$tmp/gz.btf" || fail "file and gzip differ"
# the last event: Core_2's last record (core c: times c + 3, c + 6, ...)
last=$(tail -n 1 "$tmp/file.btf" | cut -d, -f1)
[ "$last" = 90002 ] || fail "last time $last, 90002 expected"

# CRLF: the same events
sed 's/$/\r/' "$tmp/t.htf" > "$tmp/crlf.htf"
"$cli" convert -q "$tmp/crlf.htf" "$tmp/crlf.btf" || fail "convert CRLF"
cmp -s "$tmp/file.btf" "$tmp/crlf.btf" || fail "CRLF differs"

# an error deep in the second section: its line and column, from the
# file and from a pipe
line=$(grep -n '^#-01$' "$tmp/t.htf" | cut -d: -f1)
bad=$((line + 25001))
awk -v bad="$bad" 'NR == bad { sub(/^ */, ""); $0 = substr($0, 1, 3) "G" substr($0, 5) } { print }' \
	"$tmp/t.htf" > "$tmp/bad.htf"
for src in file pipe; do
	if [ $src = file ]; then
		"$cli" info "$tmp/bad.htf" > /dev/null 2> "$tmp/err" && fail "bad digit accepted ($src)"
	else
		"$cli" info - < "$tmp/bad.htf" > /dev/null 2> "$tmp/err" && fail "bad digit accepted ($src)"
	fi
	grep -q ":$bad:4: error: 'G' in a record" "$tmp/err" ||
		{ cat "$tmp/err"; fail "error position ($src), line $bad col 4 expected"; }
done
echo "ok: 90000 events through windows, pipe, gzip and CRLF alike; error at line $bad col 4"
