#!/usr/bin/env python3
"""The VCD export read by GTKWave and its converters (issue 21).

usage: viewers.py TRACEKIT DIR_OR_FILE...

Every trace file found (a directory is searched for .btf, .atf, .htf,
.tarmac, .txt and .bin files; files named *.out/*.args/*.expected are not
traces) is converted to VCD, also one with no event on a core (a Tarmac
log without exceptions, an empty trace).  Each VCD must be read:

  - by GTKWave itself, under xvfb-run, running a Tcl script that lists
    every signal (gtkwave::getNumFacs / getFacName): exit 0, no "error",
    and the names listed are exactly the declared ones (scope path and
    reference joined by '.'), so none is dropped, split into a bit select
    or renamed "$DUPn";
  - by vcd2fst, read back with fst2vcd, and by vcd2lxt2, read back with
    lxt2vcd: exit 0, no "error", the same declared names.

`make test` samples the directories (every third trace of each, in name
order); `make test-full` (TK_TEST_FULL=1) reads every trace.

Prints a table (trace, signals declared, GTKWave, vcd2fst, vcd2lxt2) and
exits 1 on any failure, 77 when gtkwave or xvfb-run is not installed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TCL = """set n [ gtkwave::getNumFacs ]
puts "TKFACS $n"
for {set i 0} {$i < $n} {incr i} {
    puts "TKFAC [ gtkwave::getFacName $i ]"
}
gtkwave::/File/Quit
"""

TRACE_EXT = (".btf", ".atf", ".htf", ".tarmac", ".txt", ".bin")


def declared(text):
    """Full names (scope.path.reference) of the $var lines of a VCD."""
    names = []
    scope = []
    for line in text.split("$enddefinitions")[0].split("\n"):
        t = line.split()
        if t[:1] == ["$scope"]:
            scope.append(t[2])
        elif t[:1] == ["$upscope"]:
            scope.pop()
        elif t[:1] == ["$var"]:
            ref = " ".join(t[4:-1])
            names.append(".".join(scope + [ref]))
    return names


def run(args, timeout=300):
    r = subprocess.run(args, capture_output=True, timeout=timeout)
    return r.returncode, r.stdout.decode("latin-1"), r.stderr.decode("latin-1")


def errors(rc, out, err):
    bad = [ln for ln in (out + err).split("\n") if re.search(r"error", ln, re.I)]
    if rc != 0:
        bad.insert(0, "exit %d" % rc)
    return bad


def same(want, got):
    if sorted(want) == sorted(got):
        return None
    w, g = set(want), set(got)
    return "%d declared, %d read; missing %s; unexpected %s" % (
        len(want), len(got), sorted(w - g)[:5], sorted(g - w)[:5])


def check(tk, src, d, rows):
    base = os.path.basename(src)
    vcd = os.path.join(d, "t.vcd")
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    rc, out, err = run([tk, "convert", src, vcd])
    if rc != 0:
        rows.append((base, "-", "convert failed: " + err.strip()[:80], "", ""))
        return 1
    with open(vcd, encoding="latin-1") as f:
        want = declared(f.read())
    fails = 0
    cols = []
    # GTKWave
    tcl = os.path.join(d, "list.tcl")
    with open(tcl, "w") as f:
        f.write(TCL)
    rc, out, err = run(["gtkwave", "-S", tcl, vcd])
    got = [ln[6:] for ln in out.split("\n") if ln.startswith("TKFAC ")]
    bad = errors(rc, out, err)
    prob = "; ".join(bad[:3]) if bad else same(want, got)
    if "TKFACS %d" % len(want) not in out.split("\n") and not prob:
        prob = "facility count differs"
    cols.append(prob or "%d read, no error" % len(got))
    fails += bool(prob)
    # vcd2fst + fst2vcd, vcd2lxt2 + lxt2vcd
    for conv, back, ext in (("vcd2fst", "fst2vcd", "fst"), ("vcd2lxt2", "lxt2vcd", "lxt")):
        o = os.path.join(d, "t." + ext)
        rc, out, err = run([conv, vcd, o])
        bad = errors(rc, out, err)
        if not bad:
            rc, out, err = run([back, o])
            bad = errors(rc, "", err)
        prob = "; ".join(bad[:3]) if bad else same(want, declared(out))
        cols.append(prob or "%d read back, no error" % len(want))
        fails += bool(prob)
    rows.append((base, str(len(want))) + tuple(cols))
    if fails:
        print("FAIL: %s: %s" % (src, cols))
    return fails


def main():
    tk = sys.argv[1]
    for tool in ("gtkwave", "vcd2fst", "fst2vcd", "vcd2lxt2", "lxt2vcd"):
        if not shutil.which(tool):
            print("skip: %s is not installed (Debian package gtkwave; "
                  "scripts/install-deps.sh installs it with TK_TEST_DEPS=1)" % tool)
            return 77
    if not os.environ.get("TK_UNDER_XVFB"):
        if not shutil.which("xvfb-run"):
            print("skip: xvfb-run is not installed (Debian package xvfb; "
                  "scripts/install-deps.sh installs it with TK_TEST_DEPS=1)")
            return 77
        env = dict(os.environ, TK_UNDER_XVFB="1")
        return subprocess.call(["xvfb-run", "-a", sys.executable] + sys.argv, env=env)
    srcs = []
    step = 1 if os.environ.get("TK_TEST_FULL") == "1" else 3
    for a in sys.argv[2:]:
        if os.path.isdir(a):
            found = []
            for root, _, files in sorted(os.walk(a)):
                found += [os.path.join(root, f) for f in sorted(files)
                          if f.endswith(TRACE_EXT) and "README" not in f]
            srcs += found[::step]
        elif os.path.exists(a):
            srcs.append(a)
        else:
            print("skip (absent):", a)
    fails = 0
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for src in srcs:
            fails += check(tk, src, d, rows)
    print("| trace | signals | GTKWave | vcd2fst+fst2vcd | vcd2lxt2+lxt2vcd |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    converted = sum(1 for r in rows if r[1] != "-")
    print("%d traces, %d converted and read" % (len(rows), converted))
    if fails or converted == 0:
        print("%d failure(s)" % fails)
        return 1
    print("ok")
    return 0


sys.exit(main())
