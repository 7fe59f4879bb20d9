#!/bin/sh
# The command line tool is a user of the library: every file of src/cli/
# includes only the public headers (include/tracekit/), system headers and
# the headers of src/cli/ itself, never the library's internals
# (src/core/, src/formats/, ...), by any spelling of the path.
# usage: cli_includes.sh ROOT
root=${1:?usage: cli_includes.sh ROOT}
cd "$root/src/cli" || exit 2
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
# FILE:LINE:#include X, any blanks, the comment after it dropped
grep -n '^[[:space:]]*#[[:space:]]*include' -- *.c *.h |
	sed 's/#[[:space:]]*include[[:space:]]*/#include /; s/[[:space:]]*\/[*/].*$//' > "$tmp"
n=$(ls -- *.c *.h | wc -l)
fail=0
while IFS= read -r line; do
	where=${line%%:[[:space:]#]*} what=${line#*#include }
	name=${what#?} name=${name%?}
	case $name in *..*) what="$what (a path with ..)"; name= ;; esac
	case $what in
	\"tracekit/*\"|\<tracekit/*\>)
		[ -n "$name" ] && [ -e "$root/include/$name" ] && continue ;;
	\"*/*\") ;;
	\"*\")
		# a header of src/cli/ itself
		[ -n "$name" ] && [ -e "$name" ] && continue ;;
	\<*\>)
		# a system header, not a file of the tree by another path
		[ -n "$name" ] && [ ! -e "$root/src/$name" ] && [ ! -e "$root/$name" ] &&
			continue ;;
	esac
	echo "FAIL: src/cli/$where: includes $what (only include/tracekit/, system and src/cli/ headers)"
	fail=1
done < "$tmp"
[ "$n" -gt 0 ] || { echo "FAIL: no source in src/cli"; fail=1; }
[ "$fail" = 0 ] && echo "ok: the $n files of src/cli include only public, system and CLI headers"
exit $fail
