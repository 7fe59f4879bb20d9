#!/bin/sh
# The manual pages, made from the one source each has, so that they cannot
# disagree with it: tracekit(1) and tracekit-COMMAND(1) are the command's
# own --help texts (every command its --help lists), tracekit(3) is
# docs/library.md.  Run by the build (CMakeLists.txt); installed under
# share/man by `make install`.
# Usage: man.sh TRACEKIT OUTDIR LIBRARY_MD VERSION
set -eu
tk=$1 out=$2 libmd=$3 version=$4
mkdir -p "$out/man1" "$out/man3"
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
	date=$(date -u +%Y-%m-%d)
fi

# roff-safe lines: backslashes escaped, a leading '.' or "'" neutralised
esc() {
	sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

# Markdown tables (a run of lines starting with '|' whose second line is
# |---|...) become tagged paragraphs, one per row: the first cell the
# tag, each other cell a line under it, named by its column's heading
# when there are more than two ("returns: TK_OK, ..."); a row of a
# function's contract is too long for a terminal as one line, and a table
# of columns too narrow.  The source lines go before each table as
# comments (.\" md: ...), which the test of the pages reads back to
# compare the page with its source.
tables() {
	awk '
	function cell(s) {
		sub(/^[ \t]+/, "", s)
		sub(/[ \t]+$/, "", s)
		gsub(/[_.]/, "&\\:", s)	# a long name may break after a _ or a .
		if (s ~ /^[.\047]/)
			s = "\\&" s
		return s
	}
	function flush(   i, k, n, m, c, h) {
		if (!nt)
			return
		if (nt < 2 || t[2] !~ /^\|[-:| ]*\|$/) {
			for (i = 1; i <= nt; i++)
				print t[i]
			nt = 0
			return
		}
		print ".fi"
		for (i = 1; i <= nt; i++)
			print ".\\\" md: " t[i]
		print ".na"
		print ".nh"
		m = split(t[1], h, "|")
		for (i = 3; i <= nt; i++) {
			n = split(t[i], c, "|")
			print ".TP"
			print cell(c[2])
			for (k = 3; k < n; k++) {
				if (k > 3)
					print ".br"
				print (m > 4 ? cell(h[k]) ": " : "") cell(c[k])
			}
		}
		print ".ad"
		print ".hy"
		print ".PP"
		print ".nf"
		nt = 0
	}
	/^\|/ { t[++nt] = $0; next }
	{ flush(); print }
	END { flush() }'
}

# page NAME SECTION SUMMARY SYNOPSIS BODYFILE [SEE_ALSO]
page() {
	{
		printf '.TH %s %s %s "tracekit %s" "tracekit"\n' "$(echo "$1" | tr a-z A-Z)" "$2" "$date" "$version"
		printf '.SH NAME\n%s \\- %s\n' "$1" "$3"
		printf '.SH SYNOPSIS\n.nf\n%s\n.fi\n' "$4"
		printf '.SH DESCRIPTION\n.nf\n'
		# a Markdown source's headings become the page's subsections
		esc <"$5" | sed -e '1{/^# /d;}' -e 's/^##* \(.*\)/.fi\
.SS \1\
.nf/' | tables
		printf '.fi\n'
		if [ -n "${6:-}" ]; then
			printf '.SH SEE ALSO\n%s\n' "$6"
		fi
	} >"$out/man$2/$1.$2"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tk" --help >"$tmp/main"
# the commands: the lines of the table after "commands:", two spaces in
sed -n '/^commands:/,/^$/p' "$tmp/main" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' >"$tmp/cmds"
[ -s "$tmp/cmds" ] || { echo "man.sh: no commands in '$tk --help'" >&2; exit 1; }
# the table's last column (what a command does) starts where every line
# has a word starting
col=$(sed -n '/^commands:/,/^$/{/^  [a-z]/p}' "$tmp/main" |
	awk '{ for (i = 4; i <= length($0); i++)
		if (substr($0, i - 1, 1) == " " && substr($0, i, 1) != " ") n[i]++ }
	     END { for (i in n) if (n[i] == NR && (best == "" || i + 0 > best + 0)) best = i; print best }')
[ -n "$col" ] || { echo "man.sh: no column of descriptions in '$tk --help'" >&2; exit 1; }
see="tracekit(3)"
while read -r c; do
	see="$see, tracekit-$c(1)"
done <"$tmp/cmds"
while read -r c; do
	"$tk" "$c" --help >"$tmp/$c"
	summary=$(awk -v c="$c" -v col="$col" '$1 == c { print substr($0, col); exit }' "$tmp/main")
	synopsis=$(sed -n 's/^usage: //p' "$tmp/$c" | head -1)
	page "tracekit-$c" 1 "$summary" "$synopsis" "$tmp/$c" "tracekit(1), tracekit(3)"
done <"$tmp/cmds"
page tracekit 1 "reads, checks, converts and measures the timing traces of embedded real-time systems" \
	"tracekit <command> [options] FILE..." "$tmp/main" "$see"
page tracekit 3 "the C library of tracekit" \
	"#include <tracekit/tracekit.h>
cc prog.c \$(pkg-config --cflags --libs tracekit)" "$libmd" "tracekit(1)"
