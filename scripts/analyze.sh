#!/bin/sh
# Clang's static analyzer over the library, the command and the recorder
# (src/ and recorder/), file by file with the flags of the CMake build in
# BUILD_DIR (its compile_commands.json; nothing is compiled or linked).
# Each finding is printed with the path that leads to it; the exit status is
# 1 when there is any.  A finding is fixed, or explained at its line (or
# the line above) by a comment `analyzer-ok CHECKER: REASON` (TK_ANALYZER_ASSUME in src/core/
# internal.h gives the analyzer an invariant it cannot see, with the reason).  The dead-store checker is off: a value stored and not read again
# (`rc = ...` kept in a uniform error chain) is not a defect.
# Usage: scripts/analyze.sh BUILD_DIR [JOBS [PATTERN]]  (PATTERN: only the
# files whose path matches this extended regular expression)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=$(cd "$1" && pwd)
jobs=${2:-2}
only=${3:-.}
cdb=$bdir/compile_commands.json
[ -f "$cdb" ] || { echo "analyze: no $cdb (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 2; }
out=$bdir/analyze
rm -rf "$out"
mkdir -p "$out"
# one shell command per file of src/ and recorder/ (each once): the
# analyzer with the -D, -I, -std and -f flags of the build
python3 - "$cdb" "$root" "$out" "${ANALYZE_CC:-clang}" > "$out/jobs" <<'PY'
import json, shlex, sys
cdb, root, out, cc = sys.argv[1:5]
seen = set()
for e in json.load(open(cdb)):
    f = e["file"]
    rel = f[len(root) + 1:] if f.startswith(root + "/") else ""
    if not (rel.startswith("src/") or rel.startswith("recorder/")) or f in seen:
        continue
    seen.add(f)
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    keep, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a == "-c" or a == f or a == "-g" or a.startswith(("-fsanitize", "-W", "-O")):
            pass
        else:
            keep.append(a)
    log = out + "/" + rel.replace("/", "_") + ".log"
    cmd = [cc, "--analyze", "-Xanalyzer", "-analyzer-output=text",
           "-Xclang", "-analyzer-disable-checker=deadcode.DeadStores"] + keep + [f, "-o", "/dev/null"]
    print("cd %s && %s > %s 2>&1 || echo 'analyze: clang failed on %s' >> %s"
          % (shlex.quote(e["directory"]), shlex.join(cmd), shlex.quote(log), rel, shlex.quote(log)))
PY
grep -E -e "$only" "$out/jobs" > "$out/jobs.sel" || true
mv "$out/jobs.sel" "$out/jobs"
n=$(wc -l < "$out/jobs")
echo "analyze: $n files of src/ and recorder/, clang --analyze, $jobs at a time"
xargs -d '\n' -P "$jobs" -I CMD sh -c CMD < "$out/jobs"
cat "$out"/*.log > "$out/all.txt"
# a finding whose line (or the line above) carries `analyzer-ok CHECKER:
# REASON` (a comment) is one looked at and explained there: listed, not
# counted
python3 - "$out/all.txt" "$out/findings.txt" <<'PY'
import re, sys
blocks, cur = [], None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(.+?):(\d+):\d+: warning: .*\[([\w.]+)\]$", line.rstrip("\n"))
    if m:
        cur = [m.group(1), int(m.group(2)), m.group(3), [line]]
        blocks.append(cur)
    elif cur and re.search(r"warnings? generated", line):
        cur = None
    elif cur:
        cur[3].append(line)
kept = []
for f, n, checker, text in blocks:
    try:
        lines = open(f, errors="replace").read().split("\n")
        src = lines[n - 1] if "analyzer-ok" in lines[n - 1] else lines[n - 2]
    except (OSError, IndexError):
        src = ""
    m = re.search(r"analyzer-ok ([\w.]+): ", src)
    if m and m.group(1) == checker:
        print("analyze: explained at %s:%d: %s" % (f, n, src.strip()))
    else:
        kept.append("".join(text))
with open(sys.argv[2], "w") as o:
    o.write("".join(kept))
PY
found=$(grep -c ': warning: ' "$out/findings.txt" || true)
failed=$(grep -c '^analyze: clang failed' "$out/all.txt" || true)
if [ "$found" -ne 0 ] || [ "$failed" -ne 0 ]; then
	cat "$out/findings.txt"
	grep '^analyze: clang failed' "$out/all.txt" || true
	echo "analyze: $found findings, $failed files not analyzed (the paths above, $out/findings.txt)"
	exit 1
fi
echo "analyze: no findings in $n files"
