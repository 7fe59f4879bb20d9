#!/usr/bin/env python3
"""examples/library/count_events.c, built with the link line of
docs/library.md, must count what `tracekit info --format json` counts,
and the violations `tracekit check` counts.

usage: check_example.py CC ROOT LIBTRACEKIT TRACEKIT WORKDIR TRACE...

The program is compiled with `CC -std=c11 -IROOT/include count_events.c
LIBTRACEKIT` and the libraries of docs/library.md's line after `make
build` (read from it: a line changed there is the line tested; the
pkg-config line beside it gives them but -lpthread), warnings as errors,
plus $TK_EXTRA_CFLAGS (the sanitizer of a sanitized build), run on each
trace, and its format, event count, entity count, events per entity type
and warning count compared with `tracekit info --format json` on the
same trace, its violation count with the summary line of `tracekit
check`.  Its output on examples/demo.btf is the one docs/library.md
shows (each line shown, in order; "..." for lines left out).  Exit 0,
or 1.
"""
import json
import os
import re
import subprocess
import sys


def doc_libs(md):
    """the -l flags of docs/library.md's link line after `make build`, and
    the pkg-config packages said to give them"""
    sec = md.split("Without installing, `make build`", 1)[1]
    block = sec.split("```sh\n", 1)[1].split("```", 1)[0].replace("\\\n", " ")
    line = [ln for ln in block.split("\n") if ln.startswith("cc ")][0].split()
    libs = line[line.index("build/libtracekit.a") + 1:line.index("-o")]
    m = re.search(r"`pkg-config --libs ([^`]*)`", sec)
    return libs, m.group(1).split() if m else []


def doc_output(md):
    """the lines docs/library.md shows for `./count_events examples/demo.btf`"""
    block = md.split("$ ./count_events examples/demo.btf\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").split("\n")


def shown(want, got):
    """each line of want in got, in order; "..." (alone, indented or not)
    stands for any lines"""
    i = 0
    for w in want:
        if w.strip() == "...":
            continue
        while i < len(got) and got[i] != w:
            i += 1
        if i == len(got):
            return w
        i += 1
    return None


def main():
    cc, root, lib, tk, work = sys.argv[1:6]
    traces = sys.argv[6:]
    os.makedirs(work, exist_ok=True)
    md = open(os.path.join(root, "docs", "library.md"), encoding="utf-8").read()
    libs, pkgs = doc_libs(md)
    prog = os.path.join(work, "count_events")
    cmd = [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2",
           "-I" + os.path.join(root, "include"),
           os.path.join(root, "examples", "library", "count_events.c"),
           lib] + libs + ["-o", prog] + os.environ.get("TK_EXTRA_CFLAGS", "").split()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: build:", " ".join(cmd), p.stderr)
        return 1
    fails = 0
    q = subprocess.run(["pkg-config", "--libs"] + pkgs, capture_output=True, text=True)
    if not pkgs or q.returncode != 0 or \
            q.stdout.split() != [x for x in libs if x != "-lpthread"]:
        print("FAIL: docs/library.md: pkg-config --libs %s gives %r, the line %r"
              % (" ".join(pkgs), q.stdout.strip(), " ".join(libs)))
        fails += 1
    demo = os.path.join(root, "examples", "demo.btf")
    out = subprocess.run([prog, demo], capture_output=True, text=True)
    miss = shown(doc_output(md), out.stdout.split("\n"))
    if out.returncode != 0 or miss is not None:
        print("FAIL: docs/library.md shows %r of ./count_events examples/demo.btf, "
              "it printed:\n%s" % (miss, out.stdout))
        fails += 1
    for t in traces:
        out = subprocess.run([prog, t], capture_output=True, text=True)
        info = subprocess.run([tk, "info", "--format", "json", t],
                              capture_output=True, text=True)
        if out.returncode != 0 or info.returncode != 0:
            print(f"FAIL: {t}: exit {out.returncode}/{info.returncode}: {out.stderr}{info.stderr}")
            fails += 1
            continue
        j = json.loads(info.stdout)
        chk = subprocess.run([tk, "check", t], capture_output=True, text=True)
        m = re.search(r"^.*: (?:ok: \d+ events, (no) violations|(\d+) violations? in)",
                      chk.stdout.splitlines()[-1] if chk.stdout else "")
        if chk.returncode not in (0, 1) or not m:
            print(f"FAIL: {t}: check: exit {chk.returncode}: {chk.stdout[-200:]}{chk.stderr}")
            fails += 1
            continue
        want_violations = 0 if m.group(1) else int(m.group(2))
        got, per_type = {}, {}
        for line in out.stdout.splitlines():
            if line.startswith("  "):
                k, v = line.split()
                per_type[k] = int(v)
            else:
                k, _, v = line.partition(":")
                got[k] = v.strip()
        want_types = {}
        for c in j["event_counts"]:
            want_types[c["type"]] = want_types.get(c["type"], 0) + c["count"]
        checks = [("format", got.get("format"), j["format"]),
                  ("events", int(got.get("events", -1)), j["events"]),
                  ("entities", int(got.get("entities", -1)), j["entities"]),
                  ("per type", per_type, want_types),
                  ("warnings", int(got.get("warnings", -1)), j["warnings"]),
                  ("violations", int(got.get("violations", -1)), want_violations)]
        for what, a, b in checks:
            if a != b:
                print(f"FAIL: {t}: {what}: example {a!r}, info {b!r}")
                fails += 1
    print(f"{len(traces)} traces, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
