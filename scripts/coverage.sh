#!/bin/sh
# Line and branch coverage of src/ from the gcov counts a test run left in
# BUILD_DIR (a build configured with TK_COVERAGE=ON, see `make coverage`):
# the totals, a table per file (BUILD_DIR/coverage/files.txt), a page per
# file with the lines and branches taken (BUILD_DIR/coverage/index.html).
# Fails when the line or branch coverage is below LINE_FLOOR or
# BRANCH_FLOOR (per cent).
# Usage: scripts/coverage.sh BUILD_DIR LINE_FLOOR BRANCH_FLOOR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=$(cd "$1" && pwd)
lines=$2 branches=$3
out=$bdir/coverage
command -v gcovr > /dev/null || { echo "coverage: gcovr is missing (TK_CI_DEPS=1 sh scripts/install-deps.sh)" >&2; exit 2; }
ls "$bdir"/CMakeFiles/tracekit_objs.dir/src/core/*.gcda > /dev/null 2>&1 ||
	{ echo "coverage: no gcov counts in $bdir (build with TK_COVERAGE=ON and run the tests)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
cd "$root"
# only the counts of BUILD_DIR (gcovr would also take other build folders
# under the root); --exclude-unreachable-branches: the branches gcc adds on
# lines with no code of their own (a closing brace) are not counted
gcovr -r "$root" --object-directory "$bdir" --filter 'src/' \
	--exclude-unreachable-branches \
	--txt "$out/files.txt" --html-details "$out/index.html" \
	--json-summary "$out/summary.json" --json "$out/coverage.json" \
	--print-summary "$bdir" > "$out/summary.txt"
python3 - "$out/summary.json" "$lines" "$branches" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
floor_l, floor_b = float(sys.argv[2]), float(sys.argv[3])
pl, pb = s["line_percent"], s["branch_percent"]
print("coverage of src/ under the test suite:")
print("  lines:    %5.1f %% (%d of %d), floor %.1f %%" % (pl, s["line_covered"], s["line_total"], floor_l))
print("  branches: %5.1f %% (%d of %d), floor %.1f %%" % (pb, s["branch_covered"], s["branch_total"], floor_b))
bad = [n for n, p, f in (("line", pl, floor_l), ("branch", pb, floor_b)) if p < f]
if bad:
    print("coverage: %s coverage below the floor" % " and ".join(bad))
    sys.exit(1)
PY
echo "coverage: per file in $out/files.txt, line by line in $out/index.html"
