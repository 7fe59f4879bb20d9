#!/usr/bin/env python3
"""The VCD export read by GTKWave and its converters (issue 21).

usage: viewers.py TRACEKIT DIR_OR_FILE...

Every trace file found (a directory is searched for .btf, .atf, .htf,
.tarmac, .txt and .bin files; files named *.out/*.args/*.expected are not
traces) is converted to VCD, also one with no event on a core (a Tarmac
log without exceptions, an empty trace).  Each VCD must be read:

  - by GTKWave itself, under xvfb-run, running a Tcl script that lists
    every signal (gtkwave::getNumFacs / getFacName): loaded (a tab of its
    own), no "error", and the names listed are exactly the declared ones
    (scope path and reference joined by '.'), so none is dropped, split
    into a bit select or renamed "$DUPn";
  - by vcd2fst, read back with fst2vcd, and by vcd2lxt2, read back with
    lxt2vcd: exit 0, no "error", the same declared names.

`make test` samples the directories (every third trace of each, in name
order); `make test-full` (TK_TEST_FULL=1) reads every trace.

Prints a table (trace, signals declared, GTKWave, vcd2fst, vcd2lxt2) and
exits 1 on any failure, 77 when gtkwave or xvfb-run is not installed.

One GTKWave reads every VCD (a GTKWave started per VCD was most of this
test's time: about 3 s each, waiting on its X server): it is started on a
VCD of one signal and its Tcl script opens each VCD in a new tab
(gtkwave::loadFile, the loader of the command line), checks that the tab
is there and is that file's (gtkwave::getNumTabs, getDumpFileName), lists
its signals and closes it.  Each VCD's messages are the lines GTKWave
writes between its marker and the next one (stdout line-buffered by
stdbuf, the script's own output flushed at each marker); a VCD that does
not load (GTKWave alone: "VCD is malformed, exiting", exit 255) leaves no
tab, and a GTKWave that stops fails every VCD it did not finish.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (the VCDs to read, a Tcl list, and the host's tab count come first)
TCL = """proc tkfacs {} {
    set n [ gtkwave::getNumFacs ]
    puts "TKFACS $n"
    for {set i 0} {$i < $n} {incr i} {
        puts "TKFAC [ gtkwave::getFacName $i ]"
    }
}
set k 0
foreach f $files {
    puts "TKFILE $k"
    flush stdout
    puts stderr "TKFILE $k"
    gtkwave::loadFile $f
    set t [ gtkwave::getNumTabs ]
    puts "TKTAB $t [ gtkwave::getDumpFileName ]"
    if {$t == $host + 1} {
        tkfacs
        gtkwave::/File/Close
    }
    puts "TKDONE $k"
    flush stdout
    incr k
}
puts "TKFILE end"
flush stdout
puts stderr "TKFILE end"
gtkwave::/File/Quit
"""

# the VCD GTKWave is started on (its first tab, kept open)
HOST = """$timescale 1 ns $end
$scope module tk_host $end
$var wire 1 ! h $end
$upscope $end
$enddefinitions $end
#0
0!
#1
1!
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


def convert(tk, src, d, k):
    """src converted to d/k.vcd: (VCD, its declared names) or (None, error)"""
    vcd = os.path.join(d, "%d.vcd" % k)
    rc, out, err = run([tk, "convert", src, vcd])
    if rc != 0:
        return None, err
    with open(vcd, encoding="latin-1") as f:
        return vcd, declared(f.read())


def converters(vcd, want, d):
    """vcd2fst + fst2vcd, vcd2lxt2 + lxt2vcd: a problem or None each"""
    cols = []
    for conv, back, ext in (("vcd2fst", "fst2vcd", "fst"), ("vcd2lxt2", "lxt2vcd", "lxt")):
        o = os.path.join(d, "t." + ext)
        if os.path.exists(o):
            os.unlink(o)
        rc, out, err = run([conv, vcd, o])
        bad = errors(rc, out, err)
        if not bad:
            rc, out, err = run([back, o])
            bad = errors(rc, "", err)
        cols.append("; ".join(bad[:3]) if bad else same(want, declared(out)))
    return cols


def sections(text):
    """{marker: the lines after "TKFILE marker" up to the next marker}"""
    parts = {}
    key = None
    for ln in text.split("\n"):
        if ln.startswith("TKFILE "):
            key = ln[7:].strip()
            parts[key] = []
        elif key is not None:
            parts[key].append(ln)
    return parts


def gtkwave_all(vcds, d):
    """every VCD (path, declared names) read by one GTKWave: a problem or
    None each"""
    host = os.path.join(d, "host.vcd")
    with open(host, "w") as f:
        f.write(HOST)
    tcl = os.path.join(d, "list.tcl")
    with open(tcl, "w") as f:
        f.write("set files {%s}\nset host 1\n" % " ".join("{%s}" % v for v, _ in vcds))
        f.write(TCL)
    rc, out, err = run(["stdbuf", "-oL", "gtkwave", "-S", tcl, host], timeout=300 + 30 * len(vcds))
    so, se = sections(out), sections(err)
    probs = []
    for k, (vcd, want) in enumerate(vcds):
        key = str(k)
        o, e = so.get(key), se.get(key, [])
        if o is None or "TKDONE %s" % k not in o:
            probs.append("GTKWave stopped before it (exit %d): %s" % (
                rc, "; ".join(ln for ln in (out + err).split("\n")[-3:] if ln)))
            continue
        bad = [ln for ln in o + e if re.search(r"error", ln, re.I)]
        tab = [ln for ln in o if ln.startswith("TKTAB ")]
        if tab != ["TKTAB 2 " + vcd]:
            bad.insert(0, "not loaded in a tab of its own (%s)" % (tab[:1] or "no tab"))
        got = [ln[6:] for ln in o if ln.startswith("TKFAC ")]
        prob = "; ".join(bad[:3]) if bad else same(want, got)
        if "TKFACS %d" % len(want) not in o and not prob:
            prob = "facility count differs"
        probs.append(prob)
    if rc != 0 or "end" not in so:
        # GTKWave did not end as asked: every VCD read fails
        probs = [p or "GTKWave exit %d after it" % rc for p in probs]
    return probs


def main():
    tk = sys.argv[1]
    for tool in ("gtkwave", "vcd2fst", "fst2vcd", "vcd2lxt2", "lxt2vcd", "stdbuf"):
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
        done = []  # (source, VCD, declared names, converters' problems)
        for k, src in enumerate(srcs):
            base = os.path.basename(src)
            vcd, want = convert(tk, src, d, k)
            if vcd is None:
                rows.append((base, "-", "convert failed: " + want.strip()[:80], "", ""))
                print("FAIL: %s: convert failed: %s" % (src, want.strip()[:300]))
                fails += 1
                continue
            done.append((src, vcd, want, converters(vcd, want, d)))
        gtk = gtkwave_all([(v, w) for _, v, w, _ in done], d) if done else []
        for (src, vcd, want, conv), g in zip(done, gtk):
            cols = [g or "%d read, no error" % len(want)] + \
                [c or "%d read back, no error" % len(want) for c in conv]
            rows.append((os.path.basename(src), str(len(want))) + tuple(cols))
            n = bool(g) + sum(bool(c) for c in conv)
            if n:
                print("FAIL: %s: %s" % (src, cols))
            fails += n
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
