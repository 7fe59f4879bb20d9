#!/bin/sh
# The libraries export the public API and nothing else:
#  - libtracekit.so (nm -D) and libtracekit.a (nm -g) define exactly the
#    functions the headers of include/tracekit/ declare TK_API;
#  - the shared library's soname carries the major version;
#  - libtracekit.a is position-independent: it links into a shared object.
# Usage: exports.sh INCLUDE_DIR LIBTRACEKIT_SO LIBTRACEKIT_A CC WORKDIR
set -u
inc=$1 so=$2 ar=$3 cc=$4 work=$5
mkdir -p "$work" || exit 1
rc=0
# the declared API: the name before '(' on every TK_API line
sed -n 's/^TK_API .*[^a-z0-9_]\(tk_[a-z0-9_]*\)(.*/\1/p' "$inc"/tracekit/*.h | sort -u >"$work/declared"
n=$(wc -l <"$work/declared")
[ "$n" -ge 100 ] || { echo "only $n TK_API declarations found in $inc/tracekit"; exit 1; }
# a function declared without TK_API would be neither declared above nor
# exported: find such lines (a declaration starts in column 0)
bare=$(grep -nE '^[a-z].*[^a-z0-9_]tk_[a-z0-9_]+\(' "$inc"/tracekit/*.h | grep -vE ':(TK_API|typedef|static|extern) ')
if [ -n "$bare" ]; then
	echo "declared without TK_API:"; echo "$bare"; rc=1
fi
nm -D --defined-only "$so" | awk '{print $3}' | sort -u >"$work/so" || exit 1
nm -g --defined-only "$ar" | awk 'NF == 3 {print $3}' | sort -u >"$work/ar" || exit 1
for lib in so ar; do
	extra=$(comm -13 "$work/declared" "$work/$lib")
	missing=$(comm -23 "$work/declared" "$work/$lib")
	if [ -n "$extra" ]; then
		echo "libtracekit.${lib%r} exports what no public header declares:"; echo "$extra"; rc=1
	fi
	if [ -n "$missing" ]; then
		echo "libtracekit.${lib%r} lacks declared functions:"; echo "$missing"; rc=1
	fi
done
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case $soname in
libtracekit.so.[0-9]*) ;;
*) echo "soname '$soname' carries no version"; rc=1 ;;
esac
# the archive links into a shared object (no R_X86_64_PC32 against a
# library symbol: position-independent code)
cat >"$work/plugin.c" <<'EOC'
#include <tracekit/tracekit.h>
const char *plugin_version(void);
const char *plugin_version(void) { return tk_version(); }
EOC
if ! $cc -std=c11 -fPIC -shared -I"$inc" -o "$work/plugin.so" "$work/plugin.c" "$ar" \
	-lz -lzstd -lexpat -lsqlite3 -lelf -lyaml -lnettle -lpthread ${TK_EXTRA_CFLAGS:-} 2>"$work/plugin.err"; then
	echo "libtracekit.a does not link into a shared object:"; head -5 "$work/plugin.err"; rc=1
fi
[ $rc = 0 ] && echo "$n functions exported by both libraries, nothing else; soname $soname"
exit $rc
