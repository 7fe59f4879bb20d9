#!/bin/sh
# layering.sh ROOT - the layers of docs/design.md in the #include lines of
# src/: every arrow runs one way.
#   src/formats/   includes nothing from src/analysis/ or src/exports/
#   src/analysis/  includes nothing from src/exports/ or src/cli/
#   src/exports/   includes from src/analysis/ only analysis_exports.h, the
#                  analysis layer's interface for the exports (never
#                  analysis_internal.h)
# An include "x" is resolved as the compiler does: beside the file, then in
# include/.  And a reader or writer sets and reads a trace's time base
# through core (tk_trace_set_timebase(), tk_trace_timebase()), never by the
# field of core's struct.  Every line that breaks a rule is printed; exit 1
# if any.
root=${1:?usage: layering.sh ROOT}
cd "$root" || exit 2
[ -d src/formats ] && [ -d src/analysis ] || { echo "layering.sh: $root: no src/formats or src/analysis" >&2; exit 2; }

bad=0
# rule DIR FORBIDDEN...: no file under src/DIR includes a file under a
# FORBIDDEN path (relative to the root; a file path forbids that file)
rule() {
	dir=$1
	shift
	[ -d "src/$dir" ] || return 0
	for f in $(find "src/$dir" -name '*.[ch]' | sort); do
		d=$(dirname "$f")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while IFS= read -r inc; do
			if [ -e "$d/$inc" ]; then
				p=$(realpath -m --relative-to=. "$d/$inc")
			elif [ -e "include/$inc" ]; then
				p=$(realpath -m --relative-to=. "include/$inc")
			else
				continue
			fi
			for no in "$@"; do
				case "$p" in
				"$no"|"$no"/*)
					echo "$f: includes \"$inc\" ($p): src/$dir must not include $no"
					;;
				esac
			done
		done
	done
}

out=$(
	rule formats src/analysis src/exports
	rule analysis src/exports src/cli
	rule exports src/analysis/analysis_internal.h
	grep -rnE '(->|\.)t->tb\b|trace->tb\b' src/formats src/exports |
		sed 's/$/: the time base through tk_trace_set_timebase() \/ tk_trace_timebase()/'
)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	bad=1
fi
exit $bad
